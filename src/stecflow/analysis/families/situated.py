"""The tests of seed 000's situated task: ``situated_ttests`` (paired t-tests
over the evaluators of a ``situated_identification`` study, the only test such
a study takes) and ``confusion`` (each instance's TP/FP/FN/TN per system and
each system's P, R, F, from the decision metrics' item scores).

The computations are :mod:`stecflow.analysis.situated`'s; they read and check
their tables themselves (naming file and line), so the loaders give the paths.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from stecflow.analysis.kind_defaults import DECISION_METRICS, checked_situated_spec
from stecflow.analysis.record import judgment_settings
from stecflow.analysis.registry import AnalysisJob, AnalysisTest, SpecContext
from stecflow.core.io import write_json, write_tsv

__all__ = ["CONFUSION", "SITUATED_TTESTS", "TESTS"]

log = logging.getLogger(__name__)


def _check(
    entry: Mapping[str, Any], where: str, context: SpecContext
) -> dict[str, Any]:
    return checked_situated_spec(
        entry, where, context.metrics, context.studies, context.seen
    )


def _judgments_path(
    spec: Mapping[str, Any], job: AnalysisJob, record: dict[str, Any]
) -> Any:
    """The study's ``judgments/<study>.tsv``."""
    return job.judgments[spec["source"]]


def _run_ttests(
    spec: Mapping[str, Any], path: Any, job: AnalysisJob, record: dict[str, Any]
) -> Any:
    from stecflow.analysis import situated

    result, extra = situated.run_situated_ttests(
        spec, path, alpha=job.alpha, digits=job.digits
    )
    record["settings"] = {
        "digits": job.digits,
        "confidence": 1 - job.alpha,
        "alternative": spec.get("alternative", "two-sided"),
        "sessions": "the trials merge_judgments kept (failed sessions are"
        " discarded there, judgments/quality)",
    }
    record.update(extra)
    info = judgment_settings(path)
    if info["awaiting_responses"] is None:  # no summary: the table says
        info["awaiting_responses"] = extra["n_trials"] == 0
    record["judgments"] = {spec["source"]: info}
    record["awaiting_responses"] = (
        [spec["source"]] if info["awaiting_responses"] else []
    )
    return result


def _write_ttests(
    spec: Mapping[str, Any],
    result: Any,
    path: Any,
    job: AnalysisJob,
    record: dict[str, Any],
) -> dict[str, Any]:
    from stecflow.analysis import situated

    return _write(spec, result, situated.SITUATED_TEST_COLUMNS, job, record)


def _item_tables(
    spec: Mapping[str, Any], job: AnalysisJob, record: dict[str, Any]
) -> Any:
    """``scores/items.tsv`` and ``scores/analysed.tsv``."""
    return job.items_path, job.systems_path


def _run_confusion(
    spec: Mapping[str, Any], paths: Any, job: AnalysisJob, record: dict[str, Any]
) -> Any:
    from stecflow.analysis import situated

    precision, recall = spec.get("measures") or DECISION_METRICS
    items_path, systems_path = paths
    result, extra = situated.decision_confusion(
        items_path, systems_path, precision=precision, recall=recall
    )
    record["settings"] = {"precision": precision, "recall": recall}
    record.update(extra)
    record["judgments"] = {}
    record["awaiting_responses"] = []
    return result


def _write_confusion(
    spec: Mapping[str, Any],
    result: Any,
    paths: Any,
    job: AnalysisJob,
    record: dict[str, Any],
) -> dict[str, Any]:
    from stecflow.analysis import situated

    return _write(spec, result, situated.CONFUSION_COLUMNS, job, record)


def _write(
    spec: Mapping[str, Any],
    result: Any,
    columns: Any,
    job: AnalysisJob,
    record: dict[str, Any],
) -> dict[str, Any]:
    write_tsv(result.to_dict(orient="records"), list(columns), job.out_tsv)
    write_json(record, job.out_json)
    log.info("%s: %d result rows", spec["id"], len(result))
    return record


SITUATED_TTESTS = AnalysisTest(
    name="situated_ttests",
    check=_check,
    load=_judgments_path,
    run=_run_ttests,
    write=_write_ttests,
    checks_scores=False,
)

CONFUSION = AnalysisTest(
    name="confusion",
    check=_check,
    load=_item_tables,
    run=_run_confusion,
    write=_write_confusion,
    checks_scores=False,
)

TESTS = (SITUATED_TTESTS, CONFUSION)

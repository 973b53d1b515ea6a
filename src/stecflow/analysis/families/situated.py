"""The test of seed 000's situated task: ``confusion`` (each instance's
TP/FP/FN/TN per system and each system's P, R, F, from the decision metrics'
item scores). The situated study's own ``situated_ttests`` is its kind's
(:mod:`stecflow.studykinds.situated_identification.analyses`).

The computation is :mod:`stecflow.analysis.situated`'s; it reads and checks
its tables itself (naming file and line), so the loader gives the paths.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from stecflow.analysis.kind_defaults import DECISION_METRICS, checked_confusion_spec
from stecflow.analysis.registry import AnalysisJob, AnalysisTest, SpecContext
from stecflow.core.io import write_json, write_tsv

__all__ = ["CONFUSION", "TESTS"]

log = logging.getLogger(__name__)


def _check(
    entry: Mapping[str, Any], where: str, context: SpecContext
) -> dict[str, Any]:
    return checked_confusion_spec(entry, where, context.metrics, context.seen)


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


CONFUSION = AnalysisTest(
    name="confusion",
    check=_check,
    load=_item_tables,
    run=_run_confusion,
    write=_write_confusion,
    checks_scores=False,
)

TESTS = (CONFUSION,)

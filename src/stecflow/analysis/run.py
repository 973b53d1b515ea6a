"""Running the configured analyses: each through its test in the registry
(:func:`run_analysis`), or, when it cannot be computed, a table and record
saying why (:func:`run_analysis_or_note`).

An analysis that cannot be computed (a metric no analysed system has scores of,
no system entering, too few systems, a degenerate design, a missing judgments
table) writes a table whose rows say why (``computable`` false, ``reason``) and
a record with ``computable`` false, which the report shows in its place; it
never stops the other analyses or the workflow.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from stecflow.analysis import registry
from stecflow.analysis.frames import item_frames
from stecflow.analysis.record import about
from stecflow.analysis.registry import AnalysisJob
from stecflow.core.io import iter_tsv_columns, write_json, write_tsv

__all__ = [
    "failure_reason",
    "not_computable_rows",
    "prefetch_item_frames",
    "run_analysis",
    "run_analysis_or_note",
    "unscored_measures",
    "write_not_computable",
]

log = logging.getLogger(__name__)


def run_analysis(
    spec: Mapping[str, Any],
    items_path: str | Path,
    systems_path: str | Path,
    out_tsv: str | Path,
    out_json: str | Path,
    *,
    alpha: float = 0.05,
    higher_is_better: Mapping[str, bool] | None = None,
    exclude_references_from_correlations: bool = True,
    judgments: Mapping[str, str | Path] | None = None,
    ss_type: int = 3,
    digits: int = 2,
    posthoc: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Run one configured analysis and write its table and its JSON record.

    The analysis' test (:func:`stecflow.analysis.registry.get`) loads what it
    analyses, runs, and writes the table and the record.

    Parameters
    ----------
    spec
        One entry of :func:`~stecflow.analysis.specs.analysis_specs`.
    items_path
        ``scores/items.tsv`` from
        :func:`~stecflow.analysis.collect.collect_item_scores`.
    systems_path
        ``scores/analysed.tsv`` from the same: which systems enter, their
        labels, their system-level scores (for correlations: BLEU and NIST
        enter with their corpus-level values) and their properties.
    alpha
        Significance level (``statistics.alpha``) of post hoc tests; 1 - alpha
        is the confidence level of t-test and mixed-model intervals.
    higher_is_better
        Metric ID -> direction, so that letter ``A`` goes to the best systems.
    exclude_references_from_correlations
        Leave the human reference sets out of correlations (default, as seed 001
        Table 10; see
        :func:`~stecflow.analysis.families.correlation.correlation_exclusions`,
        which also applies the
        spec's ``exclude_systems``).
    judgments
        Study ID -> ``judgments/<study>.tsv``, for analyses of human judgments and
        correlations with their system means.
    ss_type
        Sums of squares of ANOVAs (``statistics.ss_type``).
    digits
        Decimals of the statistics in the texts (``statistics.digits``).
    posthoc
        ``statistics.posthoc``: ``display`` (``spss_subsets`` or ``cld``) and
        ``subset_sig``.
    """
    test = registry.get(spec["test"])
    judgments = judgments or {}
    posthoc = dict(posthoc or {})
    labels = {
        (team, system): label
        for team, system, label in iter_tsv_columns(
            systems_path, ("team", "system", "label")
        )
    }
    record: dict[str, Any] = {
        "id": spec["id"],
        "test": spec["test"],
        "alpha": alpha,
        "spec": dict(spec),
        "settings": {"ss_type": ss_type, "digits": digits, "posthoc": posthoc},
    }
    job = AnalysisJob(
        items_path=items_path,
        systems_path=systems_path,
        out_tsv=out_tsv,
        out_json=out_json,
        labels=labels,
        judgments=judgments,
        alpha=alpha,
        higher_is_better=higher_is_better,
        exclude_references=exclude_references_from_correlations,
        ss_type=ss_type,
        digits=digits,
        posthoc=posthoc,
    )
    data = test.load(spec, job, record)
    result = test.run(spec, data, job, record)
    return test.write(spec, result, data, job, record)


def run_analysis_or_note(
    spec: Mapping[str, Any],
    items_path: str | Path,
    systems_path: str | Path,
    out_tsv: str | Path,
    out_json: str | Path,
    **settings: Any,
) -> dict[str, Any]:
    """:func:`run_analysis`, or, if it cannot run, a record saying why.

    An analysis that cannot be computed (a measure no system has scores of, too
    few systems, a degenerate design, a study whose systems were all rejected)
    still writes its table and record (:func:`write_not_computable`): one row
    ``computable`` false with the reason, which the report shows where the
    result would be. It never stops the other analyses or the workflow; what
    went wrong is logged with its traceback. *settings* are the keyword
    arguments of :func:`run_analysis`.
    """
    alpha = settings.get("alpha", 0.05)
    try:
        unscored = unscored_measures(spec, systems_path)
        partial = registry.get(spec["test"]).partial
        if unscored and partial is not None:  # what can be computed, and why not
            record = partial(
                spec,
                unscored,
                lambda kept: run_analysis(
                    kept, items_path, systems_path, out_tsv, out_json, **settings
                ),
                out_tsv,
                out_json,
            )
            if record is not None:
                return record
        if unscored:
            reason = "; ".join(unscored.values())
            return write_not_computable(
                spec, reason, systems_path, out_tsv, out_json, alpha=alpha
            )
        return run_analysis(
            spec, items_path, systems_path, out_tsv, out_json, **settings
        )
    except Exception as exc:  # noqa: BLE001 (every failure becomes a row)
        log.warning("%s could not be computed", spec["id"], exc_info=True)
        return write_not_computable(
            spec, failure_reason(exc), systems_path, out_tsv, out_json, alpha=alpha
        )


def unscored_measures(spec: Mapping[str, Any], systems_path: str | Path) -> dict:
    """Metric -> why no system entering the analysis has a score of it.

    The metrics an analysis of the automatic scores names (``measure``, or the
    ``measures`` of a correlation that are not ``<study>:<measure>``; those of a
    study's analysis that ``scores/analysed.tsv`` lists as metrics) that no
    analysed system has a ``scored`` row of: the reason its systems were
    skipped (``no system has scores of se: the outputs have no word strings (12
    of 12 items)``), or that no
    system enters the statistics at all. Empty when every metric has scores.
    """
    measures = list(spec.get("measures") or [])
    if spec.get("measure"):
        measures = [spec["measure"], *measures]
    measures = [m for m in measures if ":" not in m]
    if not registry.get(spec["test"]).checks_scores or not measures:
        return {}
    scored: set[str] = set()
    skipped: dict[str, str] = {}
    labels: set[str] = set()
    for label, metric, status, reason in iter_tsv_columns(
        systems_path, ("label", "metric", "status", "reason")
    ):
        labels.add(str(label))
        if status == "scored":
            scored.add(str(metric))
        else:
            skipped.setdefault(str(metric), str(reason or status or ""))
    if spec.get("source", "scores") != "scores":  # the study's own measures
        measures = [m for m in measures if m in scored or m in skipped]
    if not labels and spec.get("source", "scores") == "scores":
        return dict.fromkeys(
            measures,
            "no system enters the statistics (no accepted submission; late ones"
            " only with statistics.include_late)",
        )
    return {
        m: f"no system has scores of {m}"
        + (f": {skipped[m]}" if skipped.get(m) else "")
        for m in measures
        if m not in scored
    }


def failure_reason(exc: BaseException) -> str:
    """Why an analysis could not be computed, from the error it raised.

    Our own errors (:class:`~stecflow.core.errors.StecflowError`, e.g. a
    statistics function's :class:`~stecflow.stats._common.StatsInputError`) and
    value errors say it themselves; anything else is named with its type.

    >>> failure_reason(ValueError("fewer than 2 systems"))
    'fewer than 2 systems'
    >>> failure_reason(ZeroDivisionError("division by zero"))
    'ZeroDivisionError: division by zero'
    """
    from stecflow.core.errors import StecflowError

    text = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, StecflowError | ValueError):
        return text
    return f"{type(exc).__name__}: {text}"


def not_computable_rows(spec: Mapping[str, Any], reason: str) -> list[dict[str, Any]]:
    """The table of an analysis that could not be computed: why, in the columns
    the report reads for its test (``computable`` false, ``reason``).

    One row per pair of measures for correlations (each cell of the matrix
    says why), one row of the first factor's effect otherwise.

    Examples
    --------
    >>> not_computable_rows({"test": "kruskal", "factors": ["system"]}, "no data")
    [{'source': 'system', 'computable': False, 'reason': 'no data'}]
    >>> [(r["measure_a"], r["measure_b"]) for r in not_computable_rows(
    ...     {"test": "correlations", "measures": ["dice", "masi", "se"]}, "x")]
    [('dice', 'masi'), ('dice', 'se'), ('masi', 'se')]
    """
    test = spec.get("test")
    status = {"computable": False, "reason": reason}
    if test in registry.names():
        return registry.get(test).not_computable(spec, status)
    return registry.effect_rows(spec, status)


def write_not_computable(
    spec: Mapping[str, Any],
    reason: str,
    systems_path: str | Path,
    out_tsv: str | Path,
    out_json: str | Path,
    *,
    alpha: float = 0.05,
) -> dict[str, Any]:
    """Write the table and record of an analysis that could not be computed.

    The table is :func:`not_computable_rows`; the record has the spec, the
    systems that would have entered, ``computable`` false, the ``reason`` and
    a text line ``not computable (<reason>)`` (what the report shows of the
    analyses it has no table for).
    """
    try:
        systems = sorted(
            {str(label) for (label,) in iter_tsv_columns(systems_path, ("label",))}
        )
    except Exception:  # noqa: BLE001 (the reason is the analysis's, not this)
        systems = []
    rows = not_computable_rows(spec, reason)
    abouts = [about(row) if "measure_a" in row else spec["id"] for row in rows]
    record = {
        "id": spec["id"],
        "test": spec["test"],
        "alpha": alpha,
        "spec": dict(spec),
        "settings": {},
        "computable": False,
        "reason": reason,
        "systems": systems,
        "judgments": {},
        "awaiting_responses": [],
        "text": [
            {"about": a, "text": f"not computable ({reason})"}
            for a in dict.fromkeys(abouts)
        ],
    }
    write_tsv(rows, list(rows[0]), out_tsv)
    write_json(record, out_json)
    log.info("%s: not computable: %s", spec["id"], reason)
    return record


def prefetch_item_frames(
    items_path: str | Path, specs: Iterable[Mapping[str, Any]]
) -> None:
    """Read, in one pass, the item scores that the analyses *specs* will ask for."""
    measures = []
    for spec in specs:
        measures += registry.get(spec["test"]).item_measures(spec)
    wanted = [m for m in dict.fromkeys(measures) if isinstance(m, str)]
    if wanted:
        item_frames(items_path, wanted)

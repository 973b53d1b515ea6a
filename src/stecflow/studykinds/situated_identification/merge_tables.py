"""The tables a situated study's merge writes: their columns and their rows.

The judgments table (:data:`SITUATED_JUDGMENT_COLUMNS`), the measures table
(:data:`SITUATED_MEASURE_COLUMNS`, one row per class, :func:`measure_rows`), the
summary's records (:func:`records`) and the intrinsic evaluation re-scored with
the FP-system instances the majority identified (:func:`rescored_intrinsic`,
:func:`stecflow.metrics.classification.rescore_false_positives`, seed §5.4).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from stecflow.judgments._common import JudgmentsError, plain
from stecflow.studykinds.situated_identification.measures import IDENTIFICATION_COLUMNS

__all__ = [
    "MEASURE_INPUT",
    "SITUATED_JUDGMENT_COLUMNS",
    "SITUATED_MEASURE_COLUMNS",
    "measure_rows",
    "number",
    "records",
    "rescored_intrinsic",
]

#: Columns of ``results/judgments/<study>.tsv`` for a situated study.
SITUATED_JUDGMENT_COLUMNS = (
    "subject",
    "list",
    "order",
    "instance",
    "class",
    "shown",
    "expression",
    "target",
    "chosen",
    "correct",
    "cant_tell",
    "time_ms",
    "replays",
    "corrected",
    "session_status",
    "simulated",
)

#: Columns of ``results/judgments/measures/<study>.tsv``: one row per class.
SITUATED_MEASURE_COLUMNS = (
    "class",
    "n_evaluators",
    "n_responses",
    "n_correct",
    "n_cant_tell",
    "ir",
    "n_instances",
    "n_majority",
    "mir",
    "agreement_mean",
    "agreement_sd",
    "agreement_n",
    "it_n",
    "it_mean_ms",
    "it_sd_ms",
    "it_correct_n",
    "it_correct_mean_ms",
    "it_correct_sd_ms",
    "n_corrected_excluded",
    "replays_mean",
    "replays_sd",
    "n_replayed",
)

#: The trial fields :func:`.measures.situated_measures` reads,
#: and its names for them.
MEASURE_INPUT = {
    "subject": "subject",
    "item": "instance",
    "class": "class",
    "chosen_entity": "chosen",
    "target_entity": "target",
    "correct": "correct",
    "cant_tell": "cant_tell",
    "time_ms": "time_ms",
    "replays": "replays",
    "corrected": "corrected",
    "session_status": "session_status",
}


def records(frame: Any, columns: Sequence[str]) -> list[dict[str, Any]]:
    """The rows of *frame* as plain values, *columns* only."""
    out = []
    for row in frame.to_dict("records"):
        out.append({c: plain(row.get(c)) for c in columns})
    return out


def number(value: Any) -> Any:
    """A plain value; a whole float as an int."""
    value = plain(value)
    if isinstance(value, float) and value.is_integer() and not isinstance(value, bool):
        return int(value)
    return value


def measure_rows(measures: Any) -> list[dict[str, Any]]:
    """The rows of the measures table, one per class, from the measures."""
    rows = []
    times = measures.times
    replays = measures.replays
    for ident in measures.identification.to_dict("records"):
        cls = ident["class"]
        row = {c: plain(ident[c]) for c in IDENTIFICATION_COLUMNS}
        for scope, prefix in (("all", "it"), ("correct", "it_correct")):
            t = times[(times["class"] == cls) & (times["scope"] == scope)]
            record = t.iloc[0] if len(t) else None
            row[f"{prefix}_n"] = None if record is None else plain(record["it_n"])
            row[f"{prefix}_mean_ms"] = (
                None if record is None else plain(record["it_mean_ms"])
            )
            row[f"{prefix}_sd_ms"] = (
                None if record is None else plain(record["it_sd_ms"])
            )
            if scope == "all":
                row["n_corrected_excluded"] = (
                    None if record is None else plain(record["n_corrected_excluded"])
                )
        r = replays[(replays["class"] == cls) & (replays["scope"] == "all")]
        record = r.iloc[0] if len(r) else None
        for column in ("replays_mean", "replays_sd", "n_replayed"):
            row[column] = None if record is None else plain(record[column])
        rows.append({c: row.get(c) for c in SITUATED_MEASURE_COLUMNS})
    return rows


def rescored_intrinsic(
    intrinsic: Mapping[str, Any] | None,
    tested: int,
    identified: int,
    instances: Any,
    source: str,
) -> dict[str, Any] | None:
    from stecflow.metrics.classification import (
        ConfusionMatrix,
        rescore_false_positives,
    )

    if not intrinsic:
        return None
    try:
        matrix = ConfusionMatrix(*(int(intrinsic[k]) for k in ("tp", "fp", "fn", "tn")))
        result = rescore_false_positives(matrix, tested=tested, identified=identified)
    except (KeyError, TypeError, ValueError) as exc:
        raise JudgmentsError(
            f"cannot re-score the intrinsic evaluation: {exc}",
            file=source,
            field="intrinsic",
        ) from None
    fp = instances[instances["class"] == "FP-system"] if len(instances) else instances
    return {
        "original": {
            **matrix.as_dict(),
        },
        "precision": result.precision,
        "recall": result.recall,
        "f": result.f,
        "credited": result.credited,
        "untested": result.untested,
        "fp_tested": result.fp_tested,
        "fp_identified": result.fp_identified,
        "instances_tested": sorted(str(i) for i in fp["instance"]) if len(fp) else [],
        "instances_identified": sorted(
            str(i)
            for i, ok in zip(fp["instance"], fp["majority_identified"], strict=True)
            if ok
        )
        if len(fp)
        else [],
        "rows": [{k: plain(v) for k, v in r.items()} for r in result.rows()],
    }

"""What the default writer of an analysis writes: its result table, and its JSON
record completed with the judgments' settings, the design's completeness and
the texts of the result.

The tests bound to a study kind write their own (their families' modules);
every record says how the judgments it rests on were cleaned
(:func:`judgment_settings`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stecflow.core.io import read_json, write_json, write_tsv
from stecflow.studykinds.registry import in_family

if TYPE_CHECKING:  # pragma: no cover
    from stecflow.analysis.registry import AnalysisJob

__all__ = ["about", "judgment_settings", "write_result"]

log = logging.getLogger(__name__)


def judgment_settings(judgments_path: str | Path) -> dict[str, Any]:
    """How a study's judgments were cleaned, from the merge stage's summary.

    The summary sits beside the table (``judgments/summary/<study>.json``, written
    by the same job), so the settings behind every human figure are recorded with it.
    """
    path = Path(judgments_path)
    summary_path = path.parent / "summary" / f"{path.stem}.json"
    if not summary_path.is_file() and _is_situated_table(path):
        summary: dict[str, Any] = {}
    else:
        summary = read_json(summary_path)
    if not summary or summary.get("task") in in_family("situated"):
        corrections = summary.get("corrections") or []
        return {
            "simulated": summary.get("simulated"),
            "settings": summary.get("settings"),
            "counts": summary.get("counts"),
            "corrections_applied": len(corrections),
            "discarded": len(summary.get("discarded") or []),
            "awaiting_responses": (
                bool(summary["awaiting_responses"])
                if "awaiting_responses" in summary
                else None
            ),
            "summary": str(summary_path) if summary else None,
        }
    outliers = summary.get("outliers") or {}
    return {
        "simulated": summary.get("simulated"),
        "settings": summary.get("settings"),
        "outlier_rule": outliers.get("signature"),
        "outliers": {
            measure: entry.get("count_text")
            for measure, entry in sorted((outliers.get("measures") or {}).items())
        },
        "corrections_applied": (summary.get("corrections") or {}).get("applied", 0),
        "counts": summary.get("counts"),
        "awaiting_responses": bool(summary.get("awaiting_responses")),
    }


def _is_situated_table(path: Path) -> bool:
    """Whether a judgments table has the situated columns (class, cant_tell)."""
    with open(path, encoding="utf-8") as handle:
        header = handle.readline().rstrip("\n").split("\t")
    return {"class", "cant_tell", "instance"} <= set(header)


def about(row: Any) -> str:
    """What one result row is about: the effect, or the pair of measures."""
    if "measure_a" in row:
        return f"{row['measure_a']} ~ {row['measure_b']}"
    return str(row.get("source", ""))


def write_result(
    spec: Mapping[str, Any],
    result: Any,
    frame: Any,
    job: AnalysisJob,
    record: dict[str, Any],
) -> dict[str, Any]:
    """Write the *result* frame as the table and *record* as the JSON record.

    The record gets the settings of the judgments the analysis read
    (``judgments``, ``awaiting_responses``), the completeness of the design
    over the test's ``design_factors`` in the analysed *frame* (``design``:
    missing lists, empty cells), and, unless its runner wrote them, the
    result's rows in words (``text``).
    """
    from stecflow.analysis.registry import get

    test = get(spec["test"])
    judgments = job.judgments
    used = {spec.get("source", "scores")} | {
        m.split(":", 1)[0] for m in spec.get("measures", []) if ":" in m
    }
    record["judgments"] = {
        study: judgment_settings(judgments[study])
        for study in sorted(used)
        if study in judgments
    }
    # studies built but not yet run: their figures are awaited, not missing
    record["awaiting_responses"] = sorted(
        study
        for study, info in record["judgments"].items()
        if info["awaiting_responses"]
    )
    design_factors = list(test.design_factors(spec))
    if design_factors:  # missing lists, empty cells
        from stecflow.stats.balance import design_completeness

        counts = (record["judgments"].get(spec.get("source", "")) or {}).get(
            "counts"
        ) or {}
        dv = "value" if "value" in frame else spec["measures"][0]
        columns = [("label" if f == "system" else f) for f in design_factors]
        record["design"] = design_completeness(
            frame.dropna(subset=columns),  # systems without a property are out
            dv,
            columns,
            names=design_factors,
            lists_in_design=counts.get("lists_in_design"),
            lists_run=counts.get("lists_run"),
            unit="items" if spec.get("source", "scores") == "scores" else "judgments",
        )
    if "text" not in record:
        record["text"] = []
        if test.texts:  # letters tables have no test statistic of their own
            from stecflow.analysis.formatting import format_result

            record["text"] = [
                {"about": about(row), "text": text}
                for _, row in result.iterrows()
                if (text := format_result(row, digits=job.digits))
            ]
    write_tsv(result.to_dict(orient="records"), list(result.columns), job.out_tsv)
    write_json(record, job.out_json)
    log.info("%s: %d result rows", spec["id"], len(result))
    return record

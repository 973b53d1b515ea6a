"""The system table: every scored submission's results, one row per metric and subset.

:func:`aggregate_scores` concatenates the per-submission summaries into
``scores/systems.tsv`` (the ``aggregate_scores`` rule); :func:`read_system_scores`
reads it back.

May import: :mod:`stecflow.core`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.core.io import read_json, read_tsv, write_tsv

__all__ = ["aggregate_scores", "read_system_scores", "system_rows", "SYSTEM_COLUMNS"]


SYSTEM_COLUMNS = (
    "team",
    "system",
    "status",
    "reference_set",
    "late",
    "primary",
    "metric",
    "metric_name",
    "subset_kind",
    "subset",
    "value",
    "n",
    "n_skipped",
    "ci_low",
    "ci_high",
    "higher_is_better",
    "signature",
    "reason",
)


def aggregate_scores(summary_paths: Sequence[str | Path], out_path: str | Path) -> int:
    """Concatenate per-system summaries into ``scores/systems.tsv``.

    Skipped systems get one row with the reason. Rows are sorted by team, system,
    metric ID and subset. Returns the number of rows.
    """
    rows = system_rows(read_json(path) for path in summary_paths)
    write_tsv(rows, SYSTEM_COLUMNS, out_path)
    return len(rows)


def system_rows(summaries: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The ``scores/systems.tsv`` rows of per-system summaries, sorted."""
    rows = []
    for summary in summaries:
        identity = {
            k: summary[k]
            for k in ("team", "system", "reference_set", "late", "primary")
        }
        if summary["status"] != "scored":
            rows.append(
                {**identity, "status": summary["status"], "reason": summary["reason"]}
            )
            continue
        for row in summary["scores"]:
            rows.append({**identity, **row})
    order = {"all": 0, "subdomain": 1, "condition": 2}
    rows.sort(
        key=lambda r: (
            r["team"],
            r["system"],
            r.get("metric") or "",
            order.get(r.get("subset_kind") or "all", 3),
            r.get("subset_kind") or "",  # meta fields (data.subsets) by name
            r.get("subset") or "",
        )
    )
    return rows


def read_system_scores(path: str | Path) -> list[dict[str, str]]:
    """Read ``scores/systems.tsv`` back (all values as strings)."""
    return read_tsv(path)

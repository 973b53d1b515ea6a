"""The campaign's validation summary (``validation/summary.tsv``) and corrections.

One row per submission with its status, lateness and first problem
(:func:`summarise_validation`, the ``summarise_validation`` rule), and which
submission supersedes which (:func:`superseding`).

May import: :mod:`stecflow.core`, :mod:`stecflow.submissions`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.core.io import read_json, write_json_lines, write_tsv
from stecflow.tasks.base import Problem

__all__ = ["summarise_validation", "superseding", "SUMMARY_COLUMNS"]


def superseding(records: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], str]:
    """``(team, system)`` -> the system(s) of the team that supersede it.

    Read from the validation records' ``supersedes`` (set only when it names
    another system folder of the team); several are joined with ``,``.

    >>> superseding([{"team": "is", "system": "fbs-2", "supersedes": "fbs"},
    ...              {"team": "is", "system": "fbs"}])
    {('is', 'fbs'): 'fbs-2'}
    """
    out: dict[tuple[str, str], list[str]] = {}
    for record in records:
        if record.get("supersedes"):
            key = (record["team"], record["supersedes"])
            out.setdefault(key, []).append(record["system"])
    return {key: ",".join(sorted(systems)) for key, systems in sorted(out.items())}


#: Columns of ``results/validation/summary.tsv``.
SUMMARY_COLUMNS = (
    "team",
    "system",
    "status",
    "late",
    "reference",
    "primary",
    "supersedes",
    "superseded_by",
    "tasks",
    "n_outputs",
    "n_items",
    "n_errors",
    "n_warnings",
    "first_error",
)


def summarise_validation(
    record_paths: Sequence[str | Path],
    discovery_problems: Sequence[Sequence[str]],
    tsv_path: str | Path,
    records_path: str | Path | None = None,
) -> list[dict[str, Any]]:
    """Collect every validation record into one table, one row per submission.

    With *records_path* (``validation/records.jsonl``), also write the records
    themselves there, one a line in the order of *record_paths*: the stages that
    read every record (the report) read that one file, so that Snakemake tracks
    one input for them instead of one per submission.

    Folders that discovery could not take as submissions get a row with status
    ``unreadable`` and the reason, so nothing in ``submissions/`` goes unmentioned.
    A system that a later one of its team names in ``supersedes`` gets that
    system's ID in ``superseded_by`` (it leaves the ranking and the statistics).
    """
    rows = []
    records = [read_json(path) for path in record_paths]
    superseded_by = superseding(records)
    for record in records:
        first = record["errors"][0] if record["errors"] else None
        rows.append(
            {
                **{k: record[k] for k in SUMMARY_COLUMNS if k in record},
                "superseded_by": superseded_by.get((record["team"], record["system"])),
                "first_error": Problem(**first).describe() if first else "",
            }
        )
    for name, reason in discovery_problems:
        team, _, system = name.partition("/")
        rows.append(
            {
                "team": team,
                "system": system,
                "status": "unreadable",
                "first_error": f"{name}: {reason}",
            }
        )
    rows.sort(key=lambda r: (r["team"], r["system"]))
    write_tsv(rows, SUMMARY_COLUMNS, tsv_path)
    if records_path is not None:
        write_json_lines(records, records_path)
    return rows

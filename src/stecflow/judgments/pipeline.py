"""The steps every study kind's merge takes alike, written once.

The three merges (:func:`stecflow.judgments.study.merge_study` for the grid
kinds, :func:`stecflow.judgments.text_study.merge_text_study` and
:func:`stecflow.studykinds.situated_identification.merge.merge_situated_study`)
read response files, name evaluators, join trials to a design, apply
corrections and write the data-quality table and their four files
(:func:`write_merged`) with the same code: it lives here, for a kind of its own
to use too. The steps that differ between the kinds (the join itself, the
exclusion rules, the order of the quality table of a grid study) stay in the
kinds' modules.

Nothing here imports pandas.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.judgments._common import CHECKS, QUALITY_COLUMNS, problem

__all__ = [
    "correction_paths",
    "name_subjects",
    "quality_key",
    "read_response_files",
    "read_session_rows",
    "release_key",
    "sort_problems",
    "trial_location",
    "write_merged",
    "write_quality",
]


def release_key(study: str, pseudonym_key: str | None) -> str:
    """The key pseudonyms are made with: *pseudonym_key*, else the study's ID.

    >>> release_key("s1", None), release_key("s1", "campaign")
    ('s1', 'campaign')
    """
    return study if pseudonym_key is None else str(pseudonym_key)


def read_response_files(
    paths: Sequence[str | Path], read: Callable[[str], Any]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Read response files in sorted order with *read*: (rows, problems, sources).

    *read* takes a path and returns an import result (``rows``, ``problems``,
    ``source_format``); each file gives one ``sources`` entry (``file``,
    ``format``, ``rows``).
    """
    rows: list[dict[str, Any]] = []
    problems: list[dict[str, Any]] = []
    sources = []
    for path in sorted(str(p) for p in paths):
        result = read(path)
        rows.extend(result.rows)
        problems.extend(result.problems)
        sources.append(
            {"file": path, "format": result.source_format, "rows": len(result.rows)}
        )
    return rows, problems, sources


def name_subjects(rows: Sequence[dict[str, Any]], study: str) -> list[dict[str, Any]]:
    """Name each row's evaluator: the participant, or the session without one.

    A participant with several sessions is ``participant/session`` in each (a
    ``subject_multiple_sessions`` problem says so). Sets ``subject`` in place and
    returns the problems.
    """
    sessions_of: dict[str, set[str]] = {}
    for row in rows:
        if row["participant"] is not None:
            sessions_of.setdefault(row["participant"], set()).add(row["session"])
    found = []
    for participant, sessions in sorted(sessions_of.items()):
        if len(sessions) > 1:
            found.append(
                problem(
                    "subject_multiple_sessions",
                    f"participant {participant} has {len(sessions)} sessions "
                    f"({', '.join(sorted(sessions))}); each is an evaluator of its "
                    "own",
                    study=study,
                    subject=participant,
                )
            )
    for row in rows:
        who = row["participant"]
        if who is None:
            row["subject"] = row["session"]
        elif len(sessions_of[who]) > 1:
            row["subject"] = f"{who}/{row['session']}"
        else:
            row["subject"] = who
    return found


def trial_location(row: Mapping[str, Any]) -> dict[str, Any]:
    """Where an imported row is: the location keywords of :func:`problem`."""
    return {
        "source_file": row.get("source_file"),
        "source_line": row.get("source_line"),
        "session": row.get("session"),
        "list_id": row.get("list"),
        "order": row.get("order"),
        "item": row.get("item"),
        "system": row.get("system"),
    }


def correction_paths(
    corrections: str | Path | Sequence[str | Path] | None,
) -> list[str]:
    """The corrections files to apply, in order.

    One path, a sequence of them (possibly empty, as a Snakemake input function
    may give) or None.

    >>> correction_paths(None), correction_paths("c.tsv"), correction_paths([])
    ([], ['c.tsv'], [])
    """
    if corrections is None:
        return []
    if isinstance(corrections, str | Path):
        return [str(corrections)]
    return [str(p) for p in corrections]


def read_session_rows(path: str | Path | None) -> list[dict[str, Any]]:
    """The rows of a study's session table; none if *path* is None or no file."""
    if path is not None and Path(path).is_file():
        from stecflow.core.io import read_tsv

        return list(read_tsv(path))
    return []


def quality_key(row: Mapping[str, Any]) -> tuple[Any, ...]:
    """Sort key of the data-quality table of a text or situated study.

    By file, line, subject, list, session, order, check (in :data:`CHECKS`
    order) and detail; a missing value sorts last.
    """
    order = row.get("order")
    return (
        row.get("source_file") or "~",
        row.get("source_line") if row.get("source_line") is not None else 1 << 30,
        row.get("subject") or "~",
        row.get("list") or "~",
        row.get("session") or "~",
        order if order is not None else 1 << 30,
        list(CHECKS).index(row["check"]),
        row.get("detail") or "",
    )


def sort_problems(
    problems: list[dict[str, Any]],
    study: str,
    *,
    key: Callable[[Mapping[str, Any]], Any] = quality_key,
) -> None:
    """Give every problem without one the *study* and sort them by *key*, in place."""
    for p in problems:
        p["study"] = p.get("study") or study
    problems.sort(key=key)


def write_quality(
    problems: Sequence[Mapping[str, Any]],
    rows: Sequence[Mapping[str, Any]],
    path: str | Path,
    key: str,
) -> None:
    """Write the data-quality table with the pseudonyms of the summary.

    The table is released and reported as it is
    (:func:`stecflow.judgments.public.public_quality`; *rows* are the judgments
    rows, *key* the :func:`release_key`).
    """
    from stecflow.core.io import write_tsv
    from stecflow.judgments.public import public_quality

    write_tsv(public_quality(problems, key, rows), QUALITY_COLUMNS, path)


def write_merged(
    table: Sequence[Mapping[str, Any]],
    columns: Sequence[str],
    problems: Sequence[Mapping[str, Any]],
    measures: Sequence[Mapping[str, Any]],
    measure_columns: Sequence[str],
    summary: Mapping[str, Any],
    key: str,
    *,
    judgments: str | Path,
    quality: str | Path,
    measures_path: str | Path,
    summary_path: str | Path,
) -> dict[str, Any]:
    """Write a merge's four files and return the summary as written.

    The judgments table (*table*, *columns*), the data-quality table of
    *problems*, the *measures* and the summary; *key* is the
    :func:`release_key`. The quality table carries the
    summary's pseudonyms, and the summary holds no raw participant or session
    ID and no absolute path (:mod:`stecflow.judgments.public`): both are
    released and reported as they are.
    """
    from stecflow.core.io import write_json, write_tsv
    from stecflow.judgments.public import public_summary

    write_tsv(table, columns, judgments)
    write_quality(problems, table, quality, key)
    write_tsv(measures, measure_columns, measures_path)
    written = public_summary(summary, key)
    write_json(written, summary_path)
    return written

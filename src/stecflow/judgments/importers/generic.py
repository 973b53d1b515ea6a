"""Read a generic CSV (or TSV) of judgments that an organiser made with any tool.

Its columns (:data:`~stecflow.judgments.importers.GENERIC_COLUMNS`) are
documented in ``docs/judgments.md``.
"""

from __future__ import annotations

import logging
from pathlib import Path

from stecflow.judgments._common import JudgmentsError, problem, read_text
from stecflow.judgments.importers._columns import (
    GENERIC_ALIASES,
    GENERIC_COLUMNS,
    GENERIC_RESPONSES,
)
from stecflow.judgments.importers._rows import (
    ImportResult,
    RowProblems,
    check_identity,
    check_width,
    empty_row,
    parse_value,
    split_table,
)

__all__ = ["read_generic_table"]

logger = logging.getLogger(__name__)


def read_generic_table(
    path: str | Path,
    *,
    study: str | None = None,
    encoding: str | None = None,
    strict: bool = False,
) -> ImportResult:
    """Read a generic CSV of judgments (the format of ``docs/judgments.md``).

    Parameters
    ----------
    path : path
        CSV (comma or semicolon) or TSV, UTF-8 (or *encoding*), one row per
        trial. Required: ``participant`` (or ``subject`` or ``session``) and
        ``item``; recommended: ``system``, ``list`` and ``order``; at least one
        response column (``chosen_entity``, ``correct``, ``adequacy``,
        ``fluency``, a time in ms, ``cant_tell``, ``timeout``). Other columns are
        ignored and listed in the notes.
    study : str, optional
        Labels problems; rows without a ``study`` column get this study.
    encoding : str, optional
        The file's encoding when it is not UTF-8.
    strict : bool, default False
        Raise at the first unusable row.

    Returns
    -------
    ImportResult
        ``source_format`` ``generic``.

    Raises
    ------
    JudgmentsError
        Required columns missing (participant, item, and system unless list
        is given), no response column, or undecodable bytes.
    """
    source = str(path)
    header, rows, _ = split_table(read_text(path, encoding=encoding), source)
    header = [GENERIC_ALIASES.get(h, h) for h in header]
    if len(set(header)) != len(header):
        raise JudgmentsError(
            "two columns mean the same (e.g. subject and participant); keep one",
            file=source,
            line=1,
        )
    if "participant" not in header and "session" not in header:
        raise JudgmentsError(
            "no participant column; a generic CSV needs participant (or subject or "
            f"session) and item; its header has {', '.join(header)}",
            file=source,
            line=1,
            field="participant",
        )
    if "item" not in header:
        raise JudgmentsError(
            f"no item column; a generic CSV needs participant and item; its header "
            f"has {', '.join(header)}",
            file=source,
            line=1,
            field="item",
        )
    if "system" not in header and "list" not in header:
        # the design could give each row's system from its list (and order);
        # without either, every row would be left out as an unknown subject
        raise JudgmentsError(
            "no system column, and no list column to find each row's system in"
            " the study's design; add a system column (the system whose output the"
            " row judged) or list (and order); its header has " + ", ".join(header),
            file=source,
            line=1,
            field="system",
        )
    if not any(c in header for c in GENERIC_RESPONSES):
        raise JudgmentsError(
            "no response column; give at least one of " + ", ".join(GENERIC_RESPONSES),
            file=source,
            line=1,
        )
    result = ImportResult(source, "generic")
    ignored = [h for h in header if h not in GENERIC_COLUMNS]
    if ignored:
        result.notes.append(f"ignored column(s): {', '.join(ignored)}")
        result.problems.append(
            problem(
                "source_note",
                f"column(s) ignored: {', '.join(ignored)}",
                study=study,
                source_file=source,
                source_line=1,
            )
        )
    for line, fields in rows:
        problems = RowProblems(result, line, strict, study)
        fields = check_width(fields, header, problems)
        row = empty_row(source_file=source, source_line=line, source_format="generic")
        for name, text in zip(header, fields, strict=True):
            if name in GENERIC_COLUMNS:
                row[name] = parse_value(name, text, problems)
        row["session"] = row["session"] or row["participant"]
        row["participant"] = row["participant"] or row["session"]
        row["study"] = row["study"] or study
        row["simulated"] = bool(row["simulated"])
        row["aborted"] = False
        if row["item"] is None:
            problems.add("item", "empty; every row needs its item")
        check_identity(row, problems, need_order=False)
        problems.finish(row)
        result.rows.append(row)
    logger.info("%s: %d row(s) (generic format)", source, len(result.rows))
    return result

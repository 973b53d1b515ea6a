"""Read the collection server's export and the web page's offline result files.

Both are the same TSV with the columns
:data:`stecflow.studies.settings.RESPONSE_COLUMNS`, optionally followed by
``simulated`` (files written by :mod:`stecflow.judgments.simulate`) and
``answered_utc`` (the server's export: when the trial was received; checked, not
carried further). Rows whose ``session_status`` is ``offline`` are labelled
``offline``.
"""

from __future__ import annotations

import logging
from pathlib import Path

from stecflow.core.io import decode_cell
from stecflow.judgments._common import JudgmentsError, read_text
from stecflow.judgments.importers._columns import (
    OPTIONAL_SERVER_COLUMNS,
    check_answered_utc,
    response_columns,
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

__all__ = ["read_response_table"]

logger = logging.getLogger(__name__)


def read_response_table(
    path: str | Path,
    *,
    study: str | None = None,
    encoding: str | None = None,
    strict: bool = False,
) -> ImportResult:
    """Read the collection server's export or an offline result file.

    Parameters
    ----------
    path : path
        A TSV with the columns
        :data:`stecflow.studies.settings.RESPONSE_COLUMNS` (in any order),
        optionally with ``simulated`` and ``answered_utc``. A comma- or
        semicolon-separated copy (a spreadsheet's "save as CSV") is read too.
    study : str, optional
        Only used to label problems; rows keep the file's own ``study``.
    encoding : str, optional
        The file's encoding when it is not UTF-8 (a byte-order mark wins).
    strict : bool, default False
        Raise at the first unusable row instead of keeping it with a flag.

    Cells are decoded as :func:`stecflow.core.io.write_tsv` (which writes the
    server's export and simulated answers) encodes them: escapes undone, the
    ``'`` that neutralises a formula-like participant ID removed.

    Returns
    -------
    ImportResult
        ``source_format`` ``server``; each row's ``source_format`` is ``offline``
        when its ``session_status`` is ``offline``.

    Raises
    ------
    JudgmentsError
        The file is not such a table (a column missing or unexpected), or cannot
        be decoded; with ``strict``, also for an unusable row.
    """
    source = str(path)
    header, rows, _ = split_table(read_text(path, encoding=encoding), source)
    expected = response_columns()
    missing = [c for c in expected if c not in header]
    if missing:
        raise JudgmentsError(
            f"missing column(s) {', '.join(missing)}; a server export or offline "
            f"file has exactly {', '.join(expected)}",
            file=source,
            line=1,
            field=missing[0],
        )
    extra = [
        c for c in header if c not in expected and c not in OPTIONAL_SERVER_COLUMNS
    ]
    if extra:
        raise JudgmentsError(
            f"unexpected column(s) {', '.join(extra)}; a server export has only "
            f"{', '.join(expected)} (and simulated, answered_utc); use the generic "
            "CSV format for other tables",
            file=source,
            line=1,
            field=extra[0],
        )
    result = ImportResult(source, "server")
    for line, fields in rows:
        problems = RowProblems(result, line, strict, study)
        fields = check_width(fields, header, problems)
        row = empty_row(source_file=source, source_line=line)
        for name, text in zip(header, fields, strict=True):
            if name == "answered_utc":
                bad = check_answered_utc(text)
                if bad is not None:
                    problems.add(name, bad)
                continue
            # stecflow wrote the file (write_tsv): undo its escapes and the
            # formula neutralisation of free-text cells (stecflow.core.io).
            row[name] = parse_value(name, decode_cell(text, name), problems)
        if row["simulated"] is None:
            row["simulated"] = False
        row["source_format"] = (
            "offline" if row["session_status"] == "offline" else "server"
        )
        row["aborted"] = False
        check_identity(row, problems, need_order=True)
        problems.finish(row)
        result.rows.append(row)
    logger.info("%s: %d row(s) (server/offline format)", source, len(result.rows))
    return result

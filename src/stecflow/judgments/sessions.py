"""Session tables: one row per participant session, beside the trial responses.

The collection server's export writes ``<stem>.sessions.tsv`` beside the trial
TSV, and the page in offline mode offers ``<study>-<list>-<session>.sessions.tsv``
(:mod:`stecflow.studies.server`); both have the columns :data:`SESSION_COLUMNS`
in this order, then one column per questionnaire answer, ``<screen>.<field>``,
sorted:

``study``, ``session``, ``participant``, ``study_id``, ``external_session``, ``list``
    The study, the public session ID, the participant ID and the crowdsourcing
    platform's study and session IDs (Prolific's ``STUDY_ID``, ``SESSION_ID``),
    and the list the session got.
``status``
    ``completed``, ``in_progress``, ``abandoned`` (silent for longer than the
    server's ``abandon_after_s``) or ``returned`` (the organiser marked the place
    returned or timed out on the platform).
``started_utc``, ``ended_utc``, ``duration_s``
    ISO 8601 UTC times with ``Z``; ``ended_utc`` is empty while in progress;
    ``duration_s`` (seconds from start to completion) only for completed
    sessions.
``n_trials_answered``, ``consent``
    Trials stored; ``1`` when the participant agreed on the consent screen.

A study lists its session tables among its response files
(``studies.<id>.responses``); they are told apart by their header
(:func:`is_session_header`: ``status`` and ``started_utc``, no ``item``).
:func:`read_sessions` reads and checks them; :func:`merge_sessions` writes a
study's merged table, ``results/judgments/sessions/<study>.tsv``, and returns
the other response files. Nothing here imports pandas at import time.
"""

from __future__ import annotations

import csv
import io
import logging
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from stecflow.judgments._common import JudgmentsError, read_text

# the fixed columns of a session table, in order (contract C2): the server's
from stecflow.studies.server.progress import SESSION_COLUMNS

__all__ = [
    "PROBLEM_COLUMN",
    "SESSION_COLUMNS",
    "SESSION_STATUSES",
    "is_session_header",
    "is_session_table",
    "merge_sessions",
    "read_sessions",
    "split_session_tables",
]

logger = logging.getLogger(__name__)

#: The statuses a session can have.
SESSION_STATUSES = ("completed", "in_progress", "abandoned", "returned")
#: The column :func:`read_sessions` adds after the answers: what is wrong with
#: the row (file, line, field and what was expected), empty when nothing is.
PROBLEM_COLUMN = "problem"

_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$")
_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_ANSWER = re.compile(r"^[A-Za-z0-9_-]{1,64}\.[A-Za-z0-9_-]{1,64}$")
#: Cells of outside free text, neutralised against spreadsheet formulas when
#: written (IDs and answers); the quote is removed on reading.
_FREE = ("participant", "session", "list", "study_id", "external_session")


def is_session_header(header: Iterable[str]) -> bool:
    """True for the header of a session table: ``status`` and ``started_utc``,
    and no ``item`` (a trial table has one).

    >>> is_session_header(["study", "session", "status", "started_utc"])
    True
    >>> is_session_header(["status", "started_utc", "item"])
    False
    """
    names = {h.strip().lstrip("\ufeff").lower() for h in header}
    return {"status", "started_utc"} <= names and "item" not in names


def _first_line(text: str) -> str:
    return next((line for line in text.split("\n") if line.strip()), "")


def _split_header(line: str) -> list[str]:
    delimiter = "\t" if "\t" in line else ","
    return [h.strip().strip('"') for h in line.split(delimiter)]


def is_session_table(path: str | Path, *, encoding: str | None = None) -> bool:
    """Whether the file *path* is a session table (by its header line).

    Only the start of the file is read. A file that cannot be read is not one
    (the response readers then say why).
    """
    try:
        with open(path, "rb") as handle:
            head = handle.read(65536)
    except OSError:
        return False
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = head.decode("utf-16", errors="replace")
    else:
        try:
            text = head.decode(encoding or "utf-8-sig", errors="replace")
        except LookupError:  # an unknown encoding: the readers name it
            text = head.decode("utf-8-sig", errors="replace")
    return is_session_header(_split_header(_first_line(text.replace("\r", ""))))


def split_session_tables(
    paths: Sequence[str | Path], *, encoding: str | None = None
) -> tuple[list[str], list[str]]:
    """Split a study's ``responses`` into (trial response files, session tables)."""
    responses, sessions = [], []
    for path in paths:
        (sessions if is_session_table(path, encoding=encoding) else responses).append(
            str(path)
        )
    return responses, sessions


def _restore(text: str) -> str:
    from stecflow.core.io import restore_formula, unescape_cell

    text = unescape_cell(text)
    return restore_formula(text) if text[:1] == "'" else text


def _check_row(
    row: dict[str, Any], study: str | None, where: str
) -> tuple[dict[str, Any], list[str]]:
    """Parse the typed cells of *row* in place; return it and its problems."""
    found: list[str] = []

    def bad(field: str, message: str) -> None:
        found.append(f"{where}, field {field}: {message}")

    for name in ("study", "session", "list", "status", "started_utc"):
        if not row.get(name):
            bad(name, "empty; every session row needs it")
    if study is not None and row.get("study") and row["study"] != study:
        bad("study", f"{row['study']!r} is not this study ({study})")
    for name in ("session", "study_id", "external_session"):
        value = row.get(name)
        if value and not _ID.match(value):
            bad(name, f"{value!r} is not 1-64 letters, digits, - or _")
    status = row.get("status")
    if status and status not in SESSION_STATUSES:
        bad("status", f"{status!r} is not one of {', '.join(SESSION_STATUSES)}")
    for name in ("started_utc", "ended_utc"):
        value = row.get(name)
        if value and not _UTC.match(value):
            bad(
                name,
                f"{value!r} is not an ISO 8601 UTC time such as 2026-11-26T21:40:00Z",
            )
            row[name] = None
    if status == "in_progress" and row.get("ended_utc"):
        bad("ended_utc", "set for a session in progress; expected empty")
    duration = row.get("duration_s")
    if duration:
        try:
            row["duration_s"] = float(duration)
            if not row["duration_s"] >= 0:
                raise ValueError
        except ValueError:
            bad("duration_s", f"{duration!r} is not a number of seconds of 0 or more")
            row["duration_s"] = None
    else:
        row["duration_s"] = None
        if status == "completed":
            bad("duration_s", "empty for a completed session; expected seconds")
    if row["duration_s"] is not None and status and status != "completed":
        bad("duration_s", f"set for a session that is {status}; expected empty")
    count = row.get("n_trials_answered")
    try:
        row["n_trials_answered"] = int(count) if count else None
        if row["n_trials_answered"] is not None and row["n_trials_answered"] < 0:
            raise ValueError
    except ValueError:
        bad("n_trials_answered", f"{count!r} is not a whole number of 0 or more")
        row["n_trials_answered"] = None
    consent = row.get("consent")
    if consent in (None, ""):
        row["consent"] = None
    elif consent == "1":
        row["consent"] = 1
    else:
        bad("consent", f"{consent!r}; expected 1 or empty")
        row["consent"] = None
    for name in SESSION_COLUMNS:
        if row.get(name) == "":
            row[name] = None
    return row, found


def _read_one(
    path: str, study: str | None, encoding: str | None, strict: bool
) -> tuple[list[dict[str, Any]], list[str]]:
    text = read_text(path, encoding=encoding)
    first = _first_line(text)
    if not first:
        raise JudgmentsError(
            "the file is empty; expected a header line", file=path, line=1
        )
    start = text.split("\n").index(first)
    delimiter = "\t" if "\t" in first else ","
    body = io.StringIO("\n".join(text.split("\n")[start:]))
    if delimiter == "\t":
        reader = csv.reader(body, delimiter="\t", quoting=csv.QUOTE_NONE)
    else:
        reader = csv.reader(body, delimiter=",")
    header = [h.strip().lstrip("\ufeff") for h in next(reader)]
    missing = [c for c in SESSION_COLUMNS if c not in header]
    if missing:
        raise JudgmentsError(
            f"missing column(s) {', '.join(missing)}; a session table has "
            f"{', '.join(SESSION_COLUMNS)}, then <screen>.<field> answer columns",
            file=path,
            line=start + 1,
            field=missing[0],
        )
    extra = [
        c
        for c in header
        if c not in (*SESSION_COLUMNS, PROBLEM_COLUMN) and not _ANSWER.match(c)
    ]
    if extra:
        raise JudgmentsError(
            f"unexpected column(s) {', '.join(extra)}; after the fixed columns a "
            "session table has only answer columns named <screen>.<field> (and "
            f"{PROBLEM_COLUMN} in a merged table)",
            file=path,
            line=start + 1,
            field=extra[0],
        )
    duplicated = sorted({c for c in header if header.count(c) > 1})
    if duplicated:
        raise JudgmentsError(
            f"column(s) {', '.join(duplicated)} appear twice",
            file=path,
            line=start + 1,
            field=duplicated[0],
        )
    answers = [c for c in header if c not in (*SESSION_COLUMNS, PROBLEM_COLUMN)]
    rows = []
    for fields in reader:
        line = start + reader.line_num
        if not any(f.strip() for f in fields):
            continue
        where = f"{path}, line {line}"
        problems = []
        if len(fields) != len(header):
            problems.append(
                f"{where}: {len(fields)} fields, the header has {len(header)}"
            )
            fields = (fields + [""] * len(header))[: len(header)]
        row: dict[str, Any] = {}
        for name, cell in zip(header, fields, strict=True):
            free = name in _FREE or name in answers or name == PROBLEM_COLUMN
            value = _restore(cell) if free else cell
            row[name] = value.strip() if name not in answers else value
        earlier = row.pop(PROBLEM_COLUMN, "")  # a merged table's own flags
        row, found = _check_row(row, study, where)
        problems.extend(found)
        if earlier:
            problems.insert(0, earlier)
        for name in answers:
            if row[name] == "":
                row[name] = None
        if problems and strict:
            raise JudgmentsError(problems[0], file=path, line=line)
        row[PROBLEM_COLUMN] = "; ".join(problems) or None
        row["_where"] = where
        rows.append(row)
    return rows, answers


def read_sessions(
    paths: Sequence[str | Path],
    *,
    study: str | None = None,
    encoding: str | None = None,
    strict: bool = False,
) -> Any:
    """Read and check session tables; one row per session.

    Parameters
    ----------
    paths : sequence of paths
        Session tables (the server's ``*.sessions.tsv``, the page's offline
        ones), read in sorted order. A comma-separated copy is read too.
    study : str, optional
        The study they belong to; a row of another study is flagged.
    encoding : str, optional
        The files' encoding when it is not UTF-8.
    strict : bool, default False
        Raise at the first problem instead of flagging it.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`SESSION_COLUMNS`, the answer columns of all files (sorted;
        empty where a file lacks one), then :data:`PROBLEM_COLUMN`. Rows sorted
        by list, start, session and file. ``duration_s`` is a float,
        ``n_trials_answered`` an int, ``consent`` 1 or None, answers the text
        written. A row with a problem (an unknown status, a time not in ISO 8601
        UTC, a session seen in another row, ...) is kept with the problem named
        (file, line, field, what was expected). A file that cannot be read as a
        whole (a column missing, undecodable bytes) does not stop the others: it
        gives one row with only ``study`` and the problem.

    Raises
    ------
    JudgmentsError
        With *strict*, at the first problem.
    """
    import pandas as pd

    rows: list[dict[str, Any]] = []
    answers: set[str] = set()
    for path in sorted(str(p) for p in paths):
        try:
            found, columns = _read_one(path, study, encoding, strict)
        except JudgmentsError as error:
            if strict:
                raise
            logger.error("%s", error)
            rows.append({"study": study, PROBLEM_COLUMN: f"{path}: not read: {error}"})
            continue
        answers.update(columns)
        rows.extend(found)
    seen: dict[str, str] = {}
    for row in rows:
        session = row.get("session")
        where = row.get("_where")
        if not session or where is None:
            continue
        if session in seen:
            note = (
                f"{where}, field session: {session} is also in {seen[session]}; "
                "expected one row per session"
            )
            if strict:
                raise JudgmentsError(note, field="session")
            row[PROBLEM_COLUMN] = "; ".join(x for x in (row[PROBLEM_COLUMN], note) if x)
        else:
            seen[session] = where
    columns = [*SESSION_COLUMNS, *sorted(answers), PROBLEM_COLUMN]
    rows.sort(
        key=lambda r: (
            str(r.get("list") or ""),
            str(r.get("started_utc") or ""),
            str(r.get("session") or ""),
        )
    )
    frame = pd.DataFrame(
        [{c: r.get(c) for c in columns} for r in rows], columns=columns, dtype=object
    )
    return frame


def merge_sessions(
    response_paths: Sequence[str | Path],
    out_path: str | Path,
    *,
    study: str | None = None,
    encoding: str | None = None,
    strict: bool = False,
    withdrawals: Sequence[str | Path] = (),
    key: str | None = None,
) -> list[str]:
    """Write a study's merged session table; return its other response files.

    The session tables among *response_paths* (:func:`is_session_table`) are
    read (:func:`read_sessions`) and written to *out_path*
    (``results/judgments/sessions/<study>.tsv``): :data:`SESSION_COLUMNS`, the
    answer columns, then :data:`PROBLEM_COLUMN`; with none (e.g. a simulated
    study), the fixed columns and ``problem`` without rows. The sessions of a
    participant who withdrew (*withdrawals*, the study's withdrawals files, whose
    hashes are keyed with *key*, the release key; default the study's ID:
    :mod:`stecflow.judgments.withdrawals`) are left out.

    Returns
    -------
    list of str
        The paths that are not session tables (the trial responses), in order.
    """
    from stecflow.core.io import FREE_TEXT_COLUMNS, neutralise_formula, write_tsv

    responses, tables = split_session_tables(response_paths, encoding=encoding)
    frame = read_sessions(tables, study=study, encoding=encoding, strict=strict)
    columns = list(frame.columns)
    # write_tsv neutralises its own free-text columns; these are the others
    free = [
        c for c in columns if ("." in c or c in _FREE) and c not in FREE_TEXT_COLUMNS
    ]
    from stecflow.judgments.withdrawals import drop_withdrawn

    kept, _, withdrawal = drop_withdrawn(
        frame.to_dict("records"), [], withdrawals, key or str(study or "")
    )
    records = []
    for record in kept:
        for name in free:
            if isinstance(record.get(name), str):
                record[name] = neutralise_formula(record[name])
        records.append(record)
    write_tsv(records, columns, out_path)
    logger.info(
        "%d session table(s), %d session(s) -> %s (%d of withdrawn participants left"
        " out)",
        len(tables),
        len(records),
        out_path,
        withdrawal["rows_dropped"],
    )
    return responses

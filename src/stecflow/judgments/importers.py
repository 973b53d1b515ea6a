"""Read human-study responses from every supported source into one tidy table.

Four sources are supported, each read by its own function and all returning an
:class:`ImportResult` whose rows have the columns :data:`IMPORT_COLUMNS` (one row
per answered trial):

``server`` / ``offline``: :func:`read_response_table`
    The collection server's export
    (:func:`stecflow.studies.server.export_responses`) and
    the file the web page saves in offline mode: the same TSV with the columns
    :data:`stecflow.studies.stimuli.RESPONSE_COLUMNS`, optionally followed by
    ``simulated`` (files written by :mod:`stecflow.judgments.simulate`). Rows whose
    ``session_status`` is ``offline`` are labelled ``offline``.
``generic``: :func:`read_generic_table`
    A small CSV (or TSV) an organiser can produce from any other tool; its columns
    are documented in ``docs/judgments.md``.
``dmdx_azk``: :func:`read_dmdx_azk`
    DMDX's default output (``.azk``): a header, then one block per subject
    (``Subject N, <date> <time> on <machine>, refresh <ms>ms[, ID <id>]``, a line
    ``Item RT``, then one line per item with the item number and the time in ms,
    negative when the response was wrong; a time-out is the negative time-out
    value; ``*** ABORTED ***`` after a time marks an aborted item; lines starting
    with ``!`` are comments). Item numbers are mapped to trials with the
    ``<list>-items.tsv`` table that :func:`stecflow.studies.stimuli.make_dmdx_files`
    writes, or by its convention (item *n* = identification of trial *n*,
    ``10000 + n`` = reading of trial *n*).

:func:`detect_format` tells them apart and :func:`read_responses` dispatches.

A file that cannot be read as a whole (unknown format, missing or unexpected
columns, binary data, bytes that are not in the file's encoding) raises
:class:`JudgmentsError` naming the file, line and field. A row that cannot be used
(a time that is not a number, a truncated line, an unknown boolean) is **kept**:
the bad value becomes missing, ``import_problem`` says what was wrong, and a row of
the data-quality table (:data:`QUALITY_COLUMNS`, check ``import_problem``) reports
it; the merge leaves such rows out of the analyses. With ``strict=True`` the first
such problem raises instead.
"""

from __future__ import annotations

import csv
import io
import logging
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stecflow.core.io import decode_cell
from stecflow.judgments._common import (
    IMPORT_COLUMNS,
    JudgmentsError,
    clean_str,
    normalise_header,
    parse_bool,
    parse_int,
    parse_number,
    problem,
    read_text,
)

__all__ = [
    "DMDX_READING_OFFSET",
    "GENERIC_COLUMNS",
    "ImportResult",
    "detect_format",
    "read_dmdx_azk",
    "read_dmdx_item_table",
    "read_generic_table",
    "read_response_table",
    "read_responses",
]

logger = logging.getLogger(__name__)

#: DMDX item number of the reading phase of trial *n* is ``n + DMDX_READING_OFFSET``
#: (the convention of :func:`stecflow.studies.stimuli.make_dmdx_files`).
DMDX_READING_OFFSET = 10000

#: Columns a generic CSV may have. ``participant`` (or ``session``) and ``item``
#: are required, plus at least one response column.
GENERIC_COLUMNS = (
    "study",
    "session",
    "participant",
    "list",
    "order",
    "item",
    "system",
    "practice",
    "filler",
    "adequacy",
    "fluency",
    "chosen_entity",
    "target_entity",
    "correct",
    "cant_tell",
    "timeout",
    "reading_time_ms",
    "identification_time_ms",
    "rt_ms",
    "simulated",
)
_GENERIC_RESPONSES = (
    "adequacy",
    "fluency",
    "chosen_entity",
    "correct",
    "cant_tell",
    "timeout",
    "reading_time_ms",
    "identification_time_ms",
    "rt_ms",
)
_GENERIC_ALIASES = {
    "subject": "participant",
    "subject_id": "participant",
    "participant_id": "participant",
    "chosen": "chosen_entity",
    "target": "target_entity",
    "can_t_tell": "cant_tell",
    "cannot_tell": "cant_tell",
}

# Columns only the server's export has: a header with two of them is an export.
_SERVER_MARKERS = (
    "task",
    "variant",
    "session_status",
    "subdomain",
    "audio_onset_ms",
    "click_x",
    "click_y",
)

_STR = (
    "study",
    "task",
    "variant",
    "session",
    "participant",
    "session_status",
    "list",
    "item",
    "system",
    "subdomain",
    "chosen_entity",
    "target_entity",
)
_BOOL = ("practice", "filler", "correct", "cant_tell", "timeout", "simulated")
_RATING = ("adequacy", "fluency")
_TIMES = ("reading_time_ms", "identification_time_ms", "rt_ms", "audio_onset_ms")
_FLOAT = ("click_x", "click_y")


@dataclass
class ImportResult:
    """What one file gave: rows of :data:`IMPORT_COLUMNS`, problems and notes.

    Attributes
    ----------
    path : str
        The file, as given.
    source_format : str
        ``server`` (also for offline files), ``generic`` or ``dmdx_azk``.
    rows : list of dict
        One per trial, in file order; every key of :data:`IMPORT_COLUMNS`.
    problems : list of dict
        Rows of the data-quality table (:data:`QUALITY_COLUMNS`).
    notes : list of str
        Facts about the file (DMDX comments, ignored columns, encoding used).
    """

    path: str
    source_format: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    problems: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_frame(self) -> Any:
        """The rows as a :class:`pandas.DataFrame` with :data:`IMPORT_COLUMNS`."""
        import pandas as pd

        return pd.DataFrame(self.rows, columns=list(IMPORT_COLUMNS), dtype=object)


def _empty_row(**values: Any) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(IMPORT_COLUMNS)
    row.update(values)
    return row


class _RowProblems:
    """Collects the problems of one row; raises at once when strict."""

    def __init__(
        self, result: ImportResult, line: int, strict: bool, study: str | None
    ) -> None:
        self.result = result
        self.line = line
        self.strict = strict
        self.study = study
        self.messages: list[str] = []

    def add(self, field_name: str | None, message: str) -> None:
        if self.strict:
            raise JudgmentsError(
                message, file=self.result.path, line=self.line, field=field_name
            )
        where = f"{field_name}: " if field_name else ""
        self.messages.append(where + message)
        self.result.problems.append(
            problem(
                "import_problem",
                message,
                study=self.study,
                source_file=self.result.path,
                source_line=self.line,
                field=field_name,
            )
        )

    def finish(self, row: dict[str, Any]) -> None:
        row["import_problem"] = "; ".join(self.messages) or None
        for p in self.result.problems:
            if p["source_line"] == self.line and p["source_file"] == self.result.path:
                p["session"] = row.get("session")
                p["list"] = row.get("list")
                p["order"] = row.get("order")
                p["item"] = row.get("item")
                p["system"] = row.get("system")


def _parse_value(
    name: str, text: str, problems: _RowProblems, *, rating_range: bool = True
) -> Any:
    try:
        if name in _STR:
            return clean_str(text)
        if name == "order":
            return parse_int(text)
        if name in _BOOL:
            return parse_bool(text)
        if name in _RATING:
            value = parse_number(text)
            if value is not None and rating_range and not 0 <= value <= 100:
                raise ValueError(f"{value:g} is outside 0-100")
            return value
        if name in _TIMES:
            value = parse_number(text)
            if value is not None and value < 0:
                raise ValueError(f"{value:g} is negative")
            return value
        if name in _FLOAT:
            return parse_number(text)
    except ValueError as exc:
        problems.add(name, str(exc))
        return None
    return clean_str(text)


# --------------------------------------------------------------------------- tables


def _delimiter(header: str, path: str) -> str:
    if "\t" in header:
        return "\t"
    if ";" in header and "," not in header:
        return ";"
    if "," in header:
        return ","
    if path.lower().endswith(".csv"):
        return ","
    return "\t"


def _split_table(
    text: str, path: str
) -> tuple[list[str], list[tuple[int, list[str]]], str]:
    """Header (normalised) and (line number, fields) of every non-empty line."""
    lines = text.split("\n")
    start = 0
    while start < len(lines) and not lines[start].strip():
        start += 1
    if start == len(lines):
        raise JudgmentsError(
            "the file is empty; expected a header line", file=path, line=1
        )
    delimiter = _delimiter(lines[start], path)
    body = io.StringIO("\n".join(lines[start:]))
    if delimiter == "\t":
        reader = csv.reader(body, delimiter=delimiter, quoting=csv.QUOTE_NONE)
    else:
        reader = csv.reader(body, delimiter=delimiter)
    rows: list[tuple[int, list[str]]] = []
    header: list[str] | None = None
    try:
        for fields in reader:
            line = start + reader.line_num
            if header is None:
                header = [normalise_header(h) for h in fields]
                continue
            if not any(f.strip() for f in fields):
                continue
            rows.append((line, fields))
    except csv.Error as exc:
        raise JudgmentsError(
            f"malformed line ({exc})", file=path, line=start + reader.line_num
        ) from None
    assert header is not None
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise JudgmentsError(
                f"column {name!r} appears twice in the header",
                file=path,
                line=start + 1,
                field=name,
            )
        seen.add(name)
    return header, rows, delimiter


def _check_width(
    fields: list[str], header: Sequence[str], problems: _RowProblems
) -> list[str]:
    if len(fields) < len(header):
        problems.add(
            header[len(fields)],
            f"truncated line: {len(fields)} of {len(header)} fields",
        )
        return fields + [""] * (len(header) - len(fields))
    if len(fields) > len(header):
        problems.add(
            None, f"{len(fields) - len(header)} field(s) more than the header has"
        )
        return fields[: len(header)]
    return fields


def _response_columns() -> tuple[str, ...]:
    from stecflow.studies.stimuli import RESPONSE_COLUMNS

    return tuple(RESPONSE_COLUMNS)


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
        A TSV with the columns :data:`stecflow.studies.stimuli.RESPONSE_COLUMNS` (in any
        order), optionally with ``simulated``. A comma- or semicolon-separated
        copy (a spreadsheet's "save as CSV") is read too.
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
    header, rows, _ = _split_table(read_text(path, encoding=encoding), source)
    expected = _response_columns()
    missing = [c for c in expected if c not in header]
    if missing:
        raise JudgmentsError(
            f"missing column(s) {', '.join(missing)}; a server export or offline "
            f"file has exactly {', '.join(expected)}",
            file=source,
            line=1,
            field=missing[0],
        )
    extra = [c for c in header if c not in expected and c != "simulated"]
    if extra:
        raise JudgmentsError(
            f"unexpected column(s) {', '.join(extra)}; a server export has only "
            f"{', '.join(expected)} (and simulated); use the generic CSV format for "
            "other tables",
            file=source,
            line=1,
            field=extra[0],
        )
    result = ImportResult(source, "server")
    for line, fields in rows:
        problems = _RowProblems(result, line, strict, study)
        fields = _check_width(fields, header, problems)
        row = _empty_row(source_file=source, source_line=line)
        for name, text in zip(header, fields, strict=True):
            # stecflow wrote the file (write_tsv): undo its escapes and the
            # formula neutralisation of free-text cells (stecflow.core.io).
            row[name] = _parse_value(name, decode_cell(text, name), problems)
        if row["simulated"] is None:
            row["simulated"] = False
        row["source_format"] = (
            "offline" if row["session_status"] == "offline" else "server"
        )
        row["aborted"] = False
        _check_identity(row, problems, need_order=True)
        problems.finish(row)
        result.rows.append(row)
    logger.info("%s: %d row(s) (server/offline format)", source, len(result.rows))
    return result


def _check_identity(
    row: dict[str, Any], problems: _RowProblems, *, need_order: bool
) -> None:
    if row["session"] is None:
        problems.add("session", "empty; every row needs its session")
    if need_order and row["order"] is None and row["item"] is None:
        problems.add("order", "empty, and so is item; the trial cannot be identified")


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
        Required columns missing, no response column, or undecodable bytes.
    """
    source = str(path)
    header, rows, _ = _split_table(read_text(path, encoding=encoding), source)
    header = [_GENERIC_ALIASES.get(h, h) for h in header]
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
    if not any(c in header for c in _GENERIC_RESPONSES):
        raise JudgmentsError(
            "no response column; give at least one of " + ", ".join(_GENERIC_RESPONSES),
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
        problems = _RowProblems(result, line, strict, study)
        fields = _check_width(fields, header, problems)
        row = _empty_row(source_file=source, source_line=line, source_format="generic")
        for name, text in zip(header, fields, strict=True):
            if name in GENERIC_COLUMNS:
                row[name] = _parse_value(name, text, problems)
        row["session"] = row["session"] or row["participant"]
        row["participant"] = row["participant"] or row["session"]
        row["study"] = row["study"] or study
        row["simulated"] = bool(row["simulated"])
        row["aborted"] = False
        if row["item"] is None:
            problems.add("item", "empty; every row needs its item")
        _check_identity(row, problems, need_order=False)
        problems.finish(row)
        result.rows.append(row)
    logger.info("%s: %d row(s) (generic format)", source, len(result.rows))
    return result


# --------------------------------------------------------------------------- DMDX

_STARS = re.compile(r"^\s*\*{10,}\s*$")
_SUBJECT = re.compile(
    r"^\s*Subject\s+(?P<number>-?\d+)\s*,\s*(?P<rest>.*?)\s*$", re.IGNORECASE
)
_SUBJECT_ID = re.compile(r",\s*ID\s+(?P<id>.+?)\s*$", re.IGNORECASE)
_ITEM_HEADER = re.compile(r"^\s*Item\s+RT\b", re.IGNORECASE)
_ABORTED = re.compile(r"\*+\s*ABORTED\s*\*+", re.IGNORECASE)
_INCORPORATED = re.compile(r"Subjects\s+incorporated\s+to\s+date\s*:\s*(\d+)", re.I)


def read_dmdx_item_table(path: str | Path) -> dict[int, dict[str, Any]]:
    """Read ``<list>-items.tsv`` of :func:`stecflow.studies.stimuli.make_dmdx_files`.

    Parameters
    ----------
    path : path
        The table: ``dmdx_item``, ``phase`` (``reading`` or ``identification``),
        ``list``, ``order``, ``item``, ``system``, ``practice``, ``filler``,
        ``target_entity`` (further columns are ignored).

    Returns
    -------
    dict
        DMDX item number -> ``{"phase", "list", "order", "item", "system",
        "practice", "filler", "target_entity"}``.

    Raises
    ------
    JudgmentsError
        A column missing, a number or flag unreadable, an item number repeated.
    """
    source = str(path)
    header, rows, _ = _split_table(read_text(path), source)
    needed = ("dmdx_item", "phase", "list", "order", "item")
    missing = [c for c in needed if c not in header]
    if missing:
        raise JudgmentsError(
            f"missing column(s) {', '.join(missing)}; expected the <list>-items.tsv "
            "that stecflow writes beside the DMDX item files",
            file=source,
            line=1,
            field=missing[0],
        )
    table: dict[int, dict[str, Any]] = {}
    for line, fields in rows:
        values = dict(zip(header, fields, strict=False))
        try:
            number = int(values.get("dmdx_item", "").strip())
            order = parse_int(values.get("order", ""))
            practice = parse_bool(values.get("practice", "")) or False
            filler = parse_bool(values.get("filler", "")) or False
        except ValueError as exc:
            raise JudgmentsError(str(exc), file=source, line=line) from None
        phase = values.get("phase", "").strip()
        if phase not in ("reading", "identification"):
            raise JudgmentsError(
                f"phase {phase!r} is not reading or identification",
                file=source,
                line=line,
                field="phase",
            )
        if number in table:
            raise JudgmentsError(
                f"item number {number} appears twice",
                file=source,
                line=line,
                field="dmdx_item",
            )
        table[number] = {
            "phase": phase,
            "list": clean_str(values.get("list")),
            "order": order,
            "item": clean_str(values.get("item")),
            "system": clean_str(values.get("system")),
            "practice": practice,
            "filler": filler,
            "target_entity": clean_str(values.get("target_entity")),
        }
    return table


@dataclass
class _Block:
    number: int
    line: int
    session: str
    participant: str | None
    machine: str | None
    rows: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)
    comments: list[str] = field(default_factory=list)
    seen_header: bool = False


def read_dmdx_azk(
    path: str | Path,
    *,
    list_id: str | None = None,
    item_table: Mapping[int, Mapping[str, Any]] | str | Path | None = None,
    study: str | None = None,
    timeout_ms: float = 15000.0,
    encoding: str | None = None,
    strict: bool = False,
) -> ImportResult:
    """Read a DMDX ``.azk`` data file of an identification study.

    Parameters
    ----------
    path : path
        The ``.azk`` file; DMDX names it after the item file (``L01.rtf`` gives
        ``L01.azk``), so one file holds the subjects who did one list.
    list_id : str, optional
        The list the file belongs to (default: the item table's list, else the
        file name without extension).
    item_table : mapping or path, optional
        DMDX item number -> trial, as :func:`read_dmdx_item_table` returns (or
        its path). Without it, item *n* is the identification phase of trial
        *n* and ``10000 + n`` its reading phase; item, system and target then
        come from the design at the merge.
    study : str, optional
        The study every row belongs to.
    timeout_ms : float, default 15000
        The item files' time-out (seeds 001 and 003: 15 000 ms). A negative time
        within 1 ms of ``-timeout_ms`` is a time-out, any other negative time a
        wrong response.
    encoding : str, optional
        The file's encoding. By default UTF-8, falling back to Windows-1252 (DMDX
        writes the machine's code page unless its Unicode option is on).
    strict : bool, default False
        Raise at the first unusable line.

    Returns
    -------
    ImportResult
        ``source_format`` ``dmdx_azk``; one row per trial (a ``read_first``
        trial's reading and identification lines become one row). Sessions are
        ``<list>-s<subject number>``; ``participant`` is the subject ID DMDX
        recorded (``, ID ...``), if any. ``session_status`` is ``completed`` when
        every trial of the item table was answered, else ``aborted`` (``unknown``
        without an item table). ``chosen_entity`` is unknown (DMDX records only
        the sign); ``correct`` comes from the sign.

    Raises
    ------
    JudgmentsError
        No subject block (not a DMDX ``.azk`` file), a data line outside a
        block, or undecodable bytes; with ``strict``, also an unusable line.
    """
    source = str(path)
    text = read_text(path, encoding=encoding, fallback=None if encoding else "cp1252")
    if isinstance(item_table, str | Path):
        item_table = read_dmdx_item_table(item_table)
    table = dict(item_table) if item_table is not None else None
    if list_id is None and table:
        lists = sorted({str(v["list"]) for v in table.values() if v.get("list")})
        if len(lists) == 1:
            list_id = lists[0]
    if list_id is None:
        list_id = Path(source).stem
    result = ImportResult(source, "dmdx_azk")
    blocks: list[_Block] = []
    incorporated: int | None = None
    lines = text.split("\n")
    block: _Block | None = None
    for index, raw in enumerate(lines, start=1):
        line = raw.rstrip()
        if not line.strip():
            continue
        stripped = line.strip()
        if stripped.startswith("!"):
            comment = stripped[1:].strip()
            if block is not None:
                block.comments.append(f"line {index}: {comment}")
            else:
                result.notes.append(f"line {index}: {comment}")
            continue
        if _STARS.match(line):
            block = None
            continue
        match = _INCORPORATED.search(line)
        if match and block is None:
            incorporated = int(match.group(1))
            continue
        if block is None and re.match(r"^\s*Data file started", line, re.I):
            continue
        subject = _SUBJECT.match(line)
        if subject:
            rest = subject.group("rest")
            id_match = _SUBJECT_ID.search(rest)
            machine = re.search(r"\bon\s+([^,]+)", rest)
            number = int(subject.group("number"))
            repeats = sum(1 for b in blocks if b.number == number)
            session = f"{list_id}-s{number}" + (f"-{repeats + 1}" if repeats else "")
            if repeats:
                result.problems.append(
                    problem(
                        "source_note",
                        f"subject number {number} appears again; this block is "
                        f"session {session}",
                        study=study,
                        source_file=source,
                        source_line=index,
                        session=session,
                    )
                )
            block = _Block(
                number=number,
                line=index,
                session=session,
                participant=clean_str(id_match.group("id")) if id_match else None,
                machine=machine.group(1).strip() if machine else None,
            )
            blocks.append(block)
            continue
        if block is None:
            raise JudgmentsError(
                f"unexpected line {stripped[:40]!r} outside a subject block; a DMDX "
                ".azk file has 'Subject N, ...' before its data",
                file=source,
                line=index,
            )
        if _ITEM_HEADER.match(line):
            block.seen_header = True
            continue
        _dmdx_line(
            line, index, block, result, table, list_id, study, timeout_ms, strict
        )
    if not blocks:
        raise JudgmentsError(
            "no 'Subject N, ...' block; this is not a DMDX .azk data file",
            file=source,
            line=1,
        )
    if incorporated is not None and incorporated != len(blocks):
        note = (
            f"header says {incorporated} subject(s) incorporated, the file has "
            f"{len(blocks)} block(s)"
        )
        result.notes.append(note)
        result.problems.append(
            problem("source_note", note, study=study, source_file=source, source_line=1)
        )
    _dmdx_rows(blocks, result, table, list_id, study)
    logger.info(
        "%s: %d subject(s), %d trial(s) (DMDX .azk)",
        source,
        len(blocks),
        len(result.rows),
    )
    return result


def _dmdx_line(
    line: str,
    index: int,
    block: _Block,
    result: ImportResult,
    table: Mapping[int, Mapping[str, Any]] | None,
    list_id: str,
    study: str | None,
    timeout_ms: float,
    strict: bool,
) -> None:
    problems = _RowProblems(result, index, strict, study)
    aborted = bool(_ABORTED.search(line))
    tokens = _ABORTED.sub(" ", line).split()
    row = _empty_row(
        study=study,
        source_format="dmdx_azk",
        source_file=result.path,
        source_line=index,
        session=block.session,
        list=list_id,
        task="identification",
        simulated=False,
        aborted=aborted,
    )
    number: int | None = None
    try:
        number = int(tokens[0])
    except ValueError:
        problems.add("item", f"{tokens[0]!r} is not a DMDX item number")
    value: float | None = None
    if len(tokens) < 2:
        problems.add("rt", "truncated line: an item number without a time")
    else:
        try:
            value = parse_number(tokens[1])
        except ValueError as exc:
            problems.add("rt", str(exc))
    phase, order = "identification", None
    if number is not None:
        if number == 0:
            return  # item 0 is the instruction screen; DMDX records no time
        if table is not None:
            entry = table.get(number)
            if entry is None:
                problems.add("item", f"item number {number} is not in the item table")
            else:
                phase, order = entry["phase"], entry["order"]
                for key in ("item", "system", "practice", "filler", "target_entity"):
                    row[key] = entry[key]
        elif number > DMDX_READING_OFFSET:
            phase, order = "reading", number - DMDX_READING_OFFSET
        else:
            order = number
    if order is None and not problems.messages:
        problems.add("item", "the trial cannot be identified")
    row["order"] = order
    if value is not None:
        if phase == "reading":
            row["reading_time_ms"] = abs(value)
        elif value < 0 and abs(abs(value) - timeout_ms) <= 1.0:
            row["timeout"] = True
        else:
            row["correct"] = value > 0
            row["timeout"] = False
            row["identification_time_ms"] = abs(value)
    slot = (order if order is not None else -index, 0)
    while slot in block.rows and _phase_taken(block.rows[slot], phase):
        slot = (slot[0], slot[1] + 1)  # a repeated line: a separate (duplicate) row
    problems.finish(row)
    if slot in block.rows:
        _merge_phase(block.rows[slot], row, phase)
    else:
        row["_phase_seen"] = {phase}
        block.rows[slot] = row


def _phase_taken(row: dict[str, Any], phase: str) -> bool:
    return phase in row["_phase_seen"]


def _merge_phase(target: dict[str, Any], row: dict[str, Any], phase: str) -> None:
    target["_phase_seen"].add(phase)
    if phase == "reading":
        target["reading_time_ms"] = row["reading_time_ms"]
    else:
        for key in ("correct", "timeout", "identification_time_ms", "source_line"):
            target[key] = row[key]
    target["aborted"] = bool(target["aborted"] or row["aborted"])
    messages = [m for m in (target["import_problem"], row["import_problem"]) if m]
    target["import_problem"] = "; ".join(messages) or None


def _dmdx_rows(
    blocks: list[_Block],
    result: ImportResult,
    table: Mapping[int, Mapping[str, Any]] | None,
    list_id: str,
    study: str | None,
) -> None:
    has_reading = (
        any(v["phase"] == "reading" for v in table.values())
        if table is not None
        else any("reading" in r["_phase_seen"] for b in blocks for r in b.rows.values())
    )
    expected = (
        {v["order"] for v in table.values() if v["phase"] == "identification"}
        if table is not None
        else None
    )
    for block in blocks:
        session = block.session
        answered = {
            r["order"]
            for r in block.rows.values()
            if "identification" in r["_phase_seen"] and r["order"] is not None
        }
        if expected is None:
            status = "unknown"
        elif expected <= answered:
            status = "completed"
        else:
            status = "aborted"
        for key in sorted(block.rows, key=lambda k: (k[0], k[1])):
            row = block.rows[key]
            phases = row.pop("_phase_seen")
            row["session"] = session
            row["participant"] = block.participant
            row["session_status"] = status
            row["variant"] = "read_first" if has_reading else None
            if "identification" not in phases and row["import_problem"] is None:
                row["import_problem"] = "reading phase only: no identification"
                result.problems.append(
                    problem(
                        "import_problem",
                        "reading phase only: no identification response",
                        study=study,
                        source_file=result.path,
                        source_line=row["source_line"],
                        session=session,
                        list_id=list_id,
                        order=row["order"],
                        field="rt",
                    )
                )
            if row["reading_time_ms"] is not None and row["identification_time_ms"]:
                row["rt_ms"] = row["reading_time_ms"] + row["identification_time_ms"]
            elif row["identification_time_ms"] is not None:
                row["rt_ms"] = row["identification_time_ms"]
            result.rows.append(row)
        if block.comments:
            result.notes.append(f"session {session}: " + " | ".join(block.comments))


# --------------------------------------------------------------------------- dispatch


def detect_format(path: str | Path, *, encoding: str | None = None) -> str:
    """Tell which reader a response file needs.

    Returns
    -------
    str
        ``dmdx_azk`` (extension ``.azk`` or a DMDX header), ``server`` (the
        server's export: every column, or two of the columns only it has, so
        that a damaged export gets a precise message) or ``generic`` (``participant`` or
        ``subject`` or ``session``, and ``item``).

    Raises
    ------
    JudgmentsError
        The file fits none of them; the message lists its header.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "x.csv")
    ...     _ = open(p, "w").write("subject,item,system,correct\\n1,t001,A,1\\n")
    ...     detect_format(p)
    'generic'
    """
    source = str(path)
    if source.lower().endswith(".azk"):
        return "dmdx_azk"
    text = read_text(path, encoding=encoding, fallback="cp1252")
    head = text.lstrip()[:2000]
    if _INCORPORATED.search(head) or re.search(r"^\s*\*{10,}\s*$", head, re.M):
        return "dmdx_azk"
    first = next((line for line in text.split("\n") if line.strip()), "")
    delimiter = _delimiter(first, source)
    header = [normalise_header(h.strip('"')) for h in first.split(delimiter)]
    markers = set(header) & set(_SERVER_MARKERS)
    if set(_response_columns()) <= set(header) or len(markers) >= 2:
        return "server"  # a damaged export gets read_response_table's message
    names = {_GENERIC_ALIASES.get(h, h) for h in header}
    if ("participant" in names or "session" in names) and "item" in names:
        return "generic"
    raise JudgmentsError(
        f"unknown format: the header has {', '.join(header)[:300]}; expected the "
        "server's export columns, the generic CSV's (participant, item, ...) or a "
        "DMDX .azk file",
        file=source,
        line=1,
    )


def read_responses(
    path: str | Path,
    *,
    study: str | None = None,
    source_format: str | None = None,
    list_id: str | None = None,
    dmdx_item_table: Mapping[int, Mapping[str, Any]] | str | Path | None = None,
    timeout_ms: float = 15000.0,
    encoding: str | None = None,
    strict: bool = False,
) -> ImportResult:
    """Read one response file of any supported format (:func:`detect_format`).

    Parameters
    ----------
    path : path
        The file.
    study : str, optional
        The study the file belongs to (used for DMDX and generic rows without a
        study, and in problem rows).
    source_format : {"server", "offline", "generic", "dmdx_azk"}, optional
        Skip detection.
    list_id, dmdx_item_table, timeout_ms
        DMDX only, see :func:`read_dmdx_azk`.
    encoding : str, optional
        The file's encoding when it is not UTF-8.
    strict : bool, default False
        Raise at the first unusable row.

    Returns
    -------
    ImportResult
        Rows of :data:`IMPORT_COLUMNS`, problems and notes.
    """
    kind = source_format or detect_format(path, encoding=encoding)
    readers: dict[str, Callable[[], ImportResult]] = {
        "server": lambda: read_response_table(
            path, study=study, encoding=encoding, strict=strict
        ),
        "generic": lambda: read_generic_table(
            path, study=study, encoding=encoding, strict=strict
        ),
        "dmdx_azk": lambda: read_dmdx_azk(
            path,
            list_id=list_id,
            item_table=dmdx_item_table,
            study=study,
            timeout_ms=timeout_ms,
            encoding=encoding,
            strict=strict,
        ),
    }
    readers["offline"] = readers["server"]
    if kind not in readers:
        raise JudgmentsError(
            f"unknown format {kind!r}; use one of {', '.join(sorted(readers))}",
            file=str(path),
            field="source_format",
        )
    return readers[kind]()


def concat_results(results: Iterable[ImportResult]) -> Any:
    """Concatenate import results into one DataFrame of :data:`IMPORT_COLUMNS`."""
    import pandas as pd

    rows = [row for result in results for row in result.rows]
    return pd.DataFrame(rows, columns=list(IMPORT_COLUMNS), dtype=object)

"""Read DMDX's default output (``.azk``) and the item table that maps its items.

An ``.azk`` file has a header, then one block per subject (``Subject N, <date>
<time> on <machine>, refresh <ms>ms[, ID <id>]``, a line ``Item RT``, then one
line per item with the item number and the time in ms, negative when the
response was wrong; a time-out is the negative time-out value; ``*** ABORTED
***`` after a time marks an aborted item; lines starting with ``!`` are
comments). Item numbers are mapped to trials with the ``<list>-items.tsv`` table
that :func:`stecflow.studies.dmdx.make_dmdx_files` writes, or by its
convention (item *n* = identification of trial *n*, ``10000 + n`` = reading of
trial *n*).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stecflow.judgments._common import (
    JudgmentsError,
    clean_str,
    parse_bool,
    parse_int,
    parse_number,
    problem,
    read_text,
)
from stecflow.judgments.importers._rows import (
    ImportResult,
    ResponseFormat,
    RowProblems,
    empty_row,
    split_table,
)

__all__ = [
    "DMDX_READING_OFFSET",
    "looks_like_azk",
    "read_dmdx_azk",
    "read_dmdx_item_table",
]

logger = logging.getLogger(__name__)


#: DMDX item number of the reading phase of trial *n* is ``n + DMDX_READING_OFFSET``
#: (the convention of :func:`stecflow.studies.dmdx.make_dmdx_files`).
DMDX_READING_OFFSET = 10000


_STARS = re.compile(r"^\s*\*{10,}\s*$")
_SUBJECT = re.compile(
    r"^\s*Subject\s+(?P<number>-?\d+)\s*,\s*(?P<rest>.*?)\s*$", re.IGNORECASE
)
_SUBJECT_ID = re.compile(r",\s*ID\s+(?P<id>.+?)\s*$", re.IGNORECASE)
_ITEM_HEADER = re.compile(r"^\s*Item\s+RT\b", re.IGNORECASE)
_ABORTED = re.compile(r"\*+\s*ABORTED\s*\*+", re.IGNORECASE)
_INCORPORATED = re.compile(r"Subjects\s+incorporated\s+to\s+date\s*:\s*(\d+)", re.I)


def looks_like_azk(head: str) -> bool:
    """Whether a file's first characters are a DMDX ``.azk`` header.

    >>> looks_like_azk("Subjects incorporated to date: 2\\nData file started on ...")
    True
    >>> looks_like_azk("participant,item,correct")
    False
    """
    return bool(_INCORPORATED.search(head) or re.search(r"^\s*\*{10,}\s*$", head, re.M))


def read_dmdx_item_table(path: str | Path) -> dict[int, dict[str, Any]]:
    """Read ``<list>-items.tsv`` of :func:`stecflow.studies.dmdx.make_dmdx_files`.

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
    header, rows, _ = split_table(read_text(path), source)
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
    problems = RowProblems(result, index, strict, study)
    aborted = bool(_ABORTED.search(line))
    tokens = _ABORTED.sub(" ", line).split()
    row = empty_row(
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


def _read(path: str | Path, *, item_table: Any, **options: Any) -> ImportResult:
    return read_dmdx_azk(path, item_table=item_table, **options)


#: The ``dmdx_azk`` format (:func:`stecflow.judgments.importers.detect_format`).
FORMAT = ResponseFormat(".azk", looks_like_azk, _read)

"""Read DMDX "zillion responses" output (``.zil``) of an identification study.

The item files of :func:`stecflow.studies.dmdx.make_dmdx_files` put ``<zil>`` in
the parameter line, so DMDX writes a ``.zil`` file instead of an ``.azk`` file.
Sources: DMDX help by J. C. Forster, University of Arizona ("Zillion Responses
Keyword", u.arizona.edu/~jforster/dmdx/help/dmdxhzillionresponseskeyword.htm:
zillion mode records every press and release until the time-out; "File Format
notes", dmdxhfileformatnotes.htm: the header, subject blocks and ``!`` lines
shared with ``.azk``), and a ``.zil`` file DMDX wrote in a published study
(github.com/leijing7/dmdx, ``src_data/patch1/McGurkClearScript.zil``), whose
layout this reader follows::

    Subject 1, 06/26/2015 16:34:49 on ITP66820, refresh 16.67ms, ID C,1,EB
    !  Display error at msec 852.78, tick 48 in item 0, frame "..."
    Item 1001, 5662.52
     5662.52,+2
    Item 1002, -6629.16
     6629.16,+2
    Item 1003, No Responses.

``Item N, RT`` gives the item number and the RT of the response DMDX picked
(negative when wrong); every recorded response follows on its own indented
line(s): the time in ms from the clock on, a comma, ``+`` (press) or ``-``
(release) and the button or key name. ``No Responses.`` means nothing was
pressed before the time-out. The real file has keyboard responses only; for a
mouse button this reader also accepts the click position after the name, in
parentheses (``2750.12,+Mouse Left Button (0.3012,0.3590)``, normalised 0-1
from the top left corner, or pixels with ``screen_size``). Check a pilot file
from the lab's DMDX: an unreadable response is reported with its file and
line, never guessed.

The chosen entity is the first press of a mouse button inside a picture's
box of the trial (``<list>-items.tsv``, column ``boxes``), so positions map to
the same pictures as in the web experiment.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stecflow.judgments._common import JudgmentsError, problem, read_text
from stecflow.judgments.importers._rows import (
    ImportResult,
    ResponseFormat,
    RowProblems,
    empty_row,
    split_table,
)
from stecflow.studykinds.identification.import_dmdx import (
    _ABORTED,
    _INCORPORATED,
    _STARS,
    _SUBJECT,
    _SUBJECT_ID,
    _Block,
    _dmdx_rows,
    _merge_phase,
    _phase_taken,
    read_dmdx_item_table,
)

__all__ = ["looks_like_zil", "read_dmdx_item_boxes", "read_dmdx_zil"]

logger = logging.getLogger(__name__)

_ITEM = re.compile(r"^\s*Item\s+(?P<number>-?\d+)\s*(?:,(?P<rest>.*))?$", re.IGNORECASE)
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")
# one recorded response: time, sign, name, optional click position
_ENTRY = re.compile(
    r"(?P<time>\d+(?:\.\d+)?)\s*,\s*(?P<sign>[+-])(?P<name>[^\s(,][^(,]*?)"
    r"(?:\s*\(\s*(?P<x>-?\d+(?:\.\d+)?)\s*[,;]\s*(?P<y>-?\d+(?:\.\d+)?)\s*\))?"
    r"(?=\s+\d+(?:\.\d+)?\s*,\s*[+-]|\s*$)"
)
_NO_RESPONSE = re.compile(r"^no\s+responses?\.?$", re.IGNORECASE)
_DAMAGED_SUBJECT = re.compile(r"^\s*Subj\w*\s*,?.*\brefresh\b", re.IGNORECASE)
_CLICK = re.compile(r"mouse|button", re.IGNORECASE)


def looks_like_zil(head: str) -> bool:
    """Whether a file's first characters are DMDX zillion output.

    >>> looks_like_zil("Subjects incorporated to date: 1\\n***\\nItem 1, No Response")
    True
    >>> looks_like_zil("Subjects incorporated to date: 1\\n  Item  RT\\n  1  512.0")
    False
    """
    return bool(
        _INCORPORATED.search(head)
        and re.search(r"^\s*Item\s+-?\d+\s*,", head, re.M | re.I)
    )


def read_dmdx_item_boxes(path: str | Path) -> dict[int, list[tuple[str, tuple]]]:
    """Picture boxes per DMDX item number from ``<list>-items.tsv``.

    Returns
    -------
    dict
        DMDX item number -> ``[(entity, (x1, y1, x2, y2)), ...]`` in normalised
        screen coordinates (the ``boxes`` column, ``e1:x1,y1,x2,y2;e2:...``).

    Raises
    ------
    JudgmentsError
        The column is missing or a box is unreadable (file, line, field).
    """
    source = str(path)
    header, rows, _ = split_table(read_text(path), source)
    if "boxes" not in header or "dmdx_item" not in header:
        raise JudgmentsError(
            "missing column boxes; the .zil reader needs the <list>-items.tsv "
            "that stecflow writes beside the DMDX item files",
            file=source,
            line=1,
            field="boxes",
        )
    boxes: dict[int, list[tuple[str, tuple]]] = {}
    for line, fields in rows:
        values = dict(zip(header, fields, strict=False))
        try:
            number = int(values["dmdx_item"].strip())
            cells = []
            for part in filter(None, values.get("boxes", "").split(";")):
                entity, _, coords = part.partition(":")
                box = tuple(float(v) for v in coords.split(","))
                if len(box) != 4:
                    raise ValueError(f"box {part!r} has not four numbers")
                cells.append((entity.strip(), box))
        except (ValueError, KeyError) as exc:
            raise JudgmentsError(
                f"unreadable picture box ({exc}); expected entity:x1,y1,x2,y2;...",
                file=source,
                line=line,
                field="boxes",
            ) from None
        boxes[number] = cells
    return boxes


@dataclass
class _Item:
    block: _Block
    line: int
    number: int
    head: str
    aborted: bool
    responses: list[tuple[int, str]] = field(default_factory=list)


def _entity_at(x: float, y: float, cells: list[tuple[str, tuple]]) -> str | None:
    for entity, (x1, y1, x2, y2) in cells:
        if x1 <= x <= x2 and y1 <= y <= y2:
            return entity
    return None


def read_dmdx_zil(
    path: str | Path,
    *,
    item_table: str | Path,
    list_id: str | None = None,
    study: str | None = None,
    screen_size: tuple[int, int] | None = None,
    encoding: str | None = None,
    strict: bool = False,
) -> ImportResult:
    """Read a DMDX ``.zil`` data file of an identification study.

    Parameters
    ----------
    path : path
        The ``.zil`` file (DMDX names it after the item file: ``L01.zil``).
    item_table : path
        The list's ``<list>-items.tsv``: item numbers and picture boxes.
    list_id : str, optional
        Default: the item table's list.
    study : str, optional
        The study every row belongs to.
    screen_size : (int, int), optional
        Width and height in pixels, when DMDX recorded pixel positions.
    encoding : str, optional
        By default UTF-8, falling back to Windows-1252 (DMDX's default).
    strict : bool, default False
        Raise at the first unusable line.

    Returns
    -------
    ImportResult
        ``source_format`` ``dmdx_zil``; the same rows as
        :func:`.import_dmdx.read_dmdx_azk` gives, plus
        ``chosen_entity``, ``click_x``/``click_y`` (normalised) and ``correct``
        from the chosen picture. Every response is kept in the notes
        (``session ...: order n: +Mouse Left Button 812.4 (...)``).

    Raises
    ------
    JudgmentsError
        No subject block, data outside a block, undecodable bytes, an item
        table without boxes; with ``strict``, also an unusable line.
    """
    source = str(path)
    text = read_text(path, encoding=encoding, fallback=None if encoding else "cp1252")
    table = read_dmdx_item_table(item_table)
    boxes = read_dmdx_item_boxes(item_table)
    if list_id is None:
        lists = sorted({str(v["list"]) for v in table.values() if v.get("list")})
        list_id = lists[0] if len(lists) == 1 else Path(source).stem
    result = ImportResult(source, "dmdx_zil")
    blocks: list[_Block] = []
    block: _Block | None = None
    incorporated: int | None = None
    items: list[_Item] = []
    for index, raw in enumerate(text.split("\n"), start=1):
        stripped = raw.strip()
        if not stripped:
            continue
        if stripped.startswith("!"):
            comment = f"line {index}: {stripped[1:].strip()}"
            (block.comments if block is not None else result.notes).append(comment)
            if re.search(r"\berror\b", stripped, re.I):
                result.problems.append(
                    problem(
                        "source_note",
                        f"DMDX reported: {stripped[1:].strip()}",
                        study=study,
                        source_file=source,
                        source_line=index,
                        session=block.session if block else None,
                    )
                )
            continue
        if _STARS.match(raw):
            block = None
            continue
        match = _INCORPORATED.search(raw)
        if match and block is None:
            incorporated = int(match.group(1))
            continue
        if block is None and re.match(r"^\s*Data file started", raw, re.I):
            continue
        subject = _SUBJECT.match(raw)
        if subject:
            rest = subject.group("rest")
            id_match = _SUBJECT_ID.search(rest)
            number = int(subject.group("number"))
            repeats = sum(1 for b in blocks if b.number == number)
            session = f"{list_id}-s{number}" + (f"-{repeats + 1}" if repeats else "")
            block = _Block(
                number=number,
                line=index,
                session=session,
                participant=id_match.group("id").strip() if id_match else None,
                machine=None,
            )
            blocks.append(block)
            continue
        if _DAMAGED_SUBJECT.match(raw):
            session = f"{list_id}-line{index}"
            block = _Block(
                number=-index,
                line=index,
                session=session,
                participant=None,
                machine=None,
            )
            blocks.append(block)
            result.problems.append(
                problem(
                    "source_note",
                    f"damaged subject line {stripped[:50]!r}; its block is session "
                    f"{session}",
                    study=study,
                    source_file=source,
                    source_line=index,
                    session=session,
                )
            )
            continue
        if block is None:
            raise JudgmentsError(
                f"unexpected line {stripped[:40]!r} outside a subject block; a DMDX "
                ".zil file has 'Subject N, ...' before its data",
                file=source,
                line=index,
            )
        item = _ITEM.match(raw)
        if item:
            items.append(
                _Item(
                    block,
                    index,
                    int(item.group("number")),
                    _ABORTED.sub(" ", item.group("rest") or "").strip(),
                    bool(_ABORTED.search(raw)),
                )
            )
            continue
        if items and items[-1].block is block and raw[:1].isspace():
            items[-1].responses.append((index, stripped))  # a response line
            continue
        RowProblems(result, index, strict, study).add(
            None, f"unreadable line {stripped[:40]!r}; expected 'Item N, ...'"
        )
    if not blocks:
        raise JudgmentsError(
            "no 'Subject N, ...' block; this is not a DMDX .zil data file",
            file=source,
            line=1,
        )
    for entry in items:
        _item_row(entry, result, table, boxes, list_id, study, screen_size, strict)
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
    for row in result.rows:
        row["source_format"] = "dmdx_zil"
    logger.info(
        "%s: %d subject(s), %d trial(s) (DMDX .zil)",
        source,
        len(blocks),
        len(result.rows),
    )
    return result


def _item_row(
    entry: _Item,
    result: ImportResult,
    table: Mapping[int, Mapping[str, Any]],
    boxes: Mapping[int, list[tuple[str, tuple]]],
    list_id: str,
    study: str | None,
    screen_size: tuple[int, int] | None,
    strict: bool,
) -> None:
    block, index, number = entry.block, entry.line, entry.number
    if number == 0:
        return  # the instruction screen
    problems = RowProblems(result, index, strict, study)
    row = empty_row(
        study=study,
        source_format="dmdx_zil",
        source_file=result.path,
        source_line=index,
        session=block.session,
        list=list_id,
        task="identification",
        simulated=False,
        aborted=entry.aborted,
    )
    item = table.get(number)
    phase, order = "identification", None
    if item is None:
        problems.add("item", f"item number {number} is not in the item table")
    else:
        phase, order = item["phase"], item["order"]
        for key in ("item", "system", "practice", "filler", "target_entity"):
            row[key] = item[key]
    row["order"] = order
    no_response = bool(_NO_RESPONSE.match(entry.head))
    if not no_response and not _NUMBER.match(entry.head):
        problems.add(
            "rt",
            f"{entry.head[:40]!r} is neither a time nor 'No Responses.' "
            "(truncated or damaged line?)",
        )
    presses: list[tuple[str, float, float | None, float | None]] = []
    for line, text in entry.responses:
        rest = _ENTRY.sub("", text).strip(" ,")
        if rest:
            problems.add(
                "response",
                f"line {line}: unreadable response {rest[:40]!r} (truncated or "
                "damaged line?); expected time,+name or time,+name (x,y)",
            )
        for match in _ENTRY.finditer(text):
            if match.group("sign") != "+":
                continue
            x = float(match.group("x")) if match.group("x") is not None else None
            y = float(match.group("y")) if match.group("y") is not None else None
            if x is not None and y is not None and (x > 1 or y > 1):
                if screen_size is None:
                    problems.add(
                        "response",
                        f"line {line}: position ({x:g},{y:g}) is in pixels; read the "
                        "file with screen_size=(width, height) of the DMDX screen",
                    )
                    x = y = None
                else:
                    x, y = x / screen_size[0], y / screen_size[1]
            name = match.group("name").strip()
            presses.append((name, float(match.group("time")), x, y))
    presses.sort(key=lambda p: p[1])
    where = f"session {block.session}: order {order}"
    if presses:
        result.notes.append(
            where
            + ": "
            + ", ".join(
                f"+{n} {t:g}" + (f" ({x:.4f},{y:.4f})" if x is not None else "")
                for n, t, x, y in presses
            )
        )
    if phase == "reading":
        if presses:
            row["reading_time_ms"] = presses[0][1]
    elif not problems.messages or presses:
        clicks = [p for p in presses if _CLICK.search(p[0])]
        chosen = None
        for name, time, x, y in clicks:
            if x is None:
                problems.add(
                    "response", f"click {name!r} at {time:g} ms has no position"
                )
                continue
            entity = _entity_at(x, y, boxes.get(number, []))
            if entity is None:
                _note(
                    result,
                    study,
                    index,
                    block,
                    order,
                    f"click at ({x:.4f},{y:.4f}) is outside every picture",
                )
                continue
            if chosen is None:
                chosen = (entity, time, x, y)
            else:
                _note(
                    result,
                    study,
                    index,
                    block,
                    order,
                    f"repeated click on {entity} at {time:g} ms; the first "
                    f"({chosen[0]} at {chosen[1]:g} ms) counts",
                )
        keys = [p for p in presses if not _CLICK.search(p[0])]
        if keys:
            _note(
                result,
                study,
                index,
                block,
                order,
                "key press(es) " + ", ".join(k[0] for k in keys) + " are not a choice",
            )
        if chosen is not None:
            row["chosen_entity"], row["identification_time_ms"] = chosen[0], chosen[1]
            row["click_x"], row["click_y"] = chosen[2], chosen[3]
            row["timeout"] = False
            if row["target_entity"] is not None:
                row["correct"] = chosen[0] == row["target_entity"]
        elif not problems.messages:
            row["timeout"] = True  # nothing chosen before the time-out
            if not no_response and not presses:
                _note(result, study, index, block, order, "no response recorded")
    slot = (order if order is not None else -index, 0)
    while slot in block.rows and _phase_taken(block.rows[slot], phase):
        slot = (slot[0], slot[1] + 1)
    problems.finish(row)
    if slot in block.rows:
        _merge_phase(block.rows[slot], row, phase)
        if phase != "reading":
            for key in ("chosen_entity", "click_x", "click_y"):
                block.rows[slot][key] = row[key]
    else:
        row["_phase_seen"] = {phase}
        block.rows[slot] = row


def _note(
    result: ImportResult,
    study: str | None,
    line: int,
    block: _Block,
    order: int | None,
    message: str,
) -> None:
    result.problems.append(
        problem(
            "source_note",
            message,
            study=study,
            source_file=result.path,
            source_line=line,
            session=block.session,
            order=order,
        )
    )


def _read(
    path: str | Path,
    *,
    item_table: Any,
    timeout_ms: float,  # noqa: ARG001 - a .zil file records its own time-outs
    **options: Any,
) -> ImportResult:
    if item_table is None or isinstance(item_table, Mapping):
        raise JudgmentsError(
            "a DMDX .zil file needs the path of its <list>-items.tsv (the picture "
            "boxes map click positions to pictures)",
            file=str(path),
            field="dmdx_item_table",
        )
    return read_dmdx_zil(path, item_table=item_table, **options)


#: The ``dmdx_zil`` format (:func:`stecflow.judgments.importers.detect_format`).
FORMAT = ResponseFormat(".zil", looks_like_zil, _read)

"""Read the response files of a text human study (``text_rating``, ``text_preference``).

Owns :func:`read_text_responses`: one file of text trials, as

* the collection server's export of a text study: the columns
  :data:`~stecflow.studies.settings.RESPONSE_COLUMNS`, then the text ones:
  for ``text_rating`` one column ``rating_<criterion id>`` per criterion (an
  integer 1..``points`` on a Likert scale, a number 0-100 on a slider); for
  ``text_preference`` :data:`PREFERENCE_COLUMNS` (``system_left``,
  ``system_right``, ``preferred``: ``left``, ``right`` or ``tie``, and
  ``chosen_system``, the system preferred, empty for a tie);
* the file the web page saves in offline mode (the same columns;
  ``session_status`` is ``offline``);
* the simulated file of
  :func:`stecflow.judgments.text_simulation.simulate_text_study`:
  the same columns followed by ``simulated`` (true in every row).

The answer time is the export's ``rt_ms`` (the page's time from the trial's
start to the answer).

A file that cannot be read as a whole (a column missing or unexpected, bytes not
in the encoding, a criterion of the study without its column) raises
:class:`~stecflow.judgments.JudgmentsError` naming the file, line and column. A
line that cannot be used in part (a rating off its scale, an outcome that is not
left/right/tie, a ``chosen_system`` that is not the side preferred, a truncated
line) is **kept**: the bad value becomes missing, ``import_problem`` says what
was wrong, and a row of the data-quality table (check ``import_problem``, with
file, line and column in ``field``) reports it; the merge leaves such trials out
of the analyses. With ``strict=True`` the first such problem raises instead.

May import: :mod:`stecflow.core`, :mod:`stecflow.judgments` (``_common``,
``importers``), :mod:`stecflow.studies` (inside functions).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stecflow.core.io import decode_cell
from stecflow.judgments._common import (
    JudgmentsError,
    clean_str,
    parse_bool,
    parse_number,
    read_text,
)
from stecflow.judgments.importers._rows import (
    ImportResult,
    RowProblems,
    check_width,
    parse_value,
    split_table,
)
from stecflow.studykinds.registry import in_family, paired

__all__ = [
    "PREFERENCE_COLUMNS",
    "PREFERENCE_OUTCOMES",
    "RATING_PREFIX",
    "SCALES",
    "TEXT_IMPORT_COLUMNS",
    "TEXT_TASKS",
    "Criterion",
    "TextImport",
    "criteria_from_config",
    "read_text_responses",
    "text_response_columns",
]

logger = logging.getLogger(__name__)

#: The two text study tasks.
#: The kinds of the text family (:mod:`stecflow.studykinds`).
TEXT_TASKS = in_family("text")
#: Scales of a rating criterion.
SCALES = ("likert", "slider")
#: The response columns of a preference trial, after the server's.
PREFERENCE_COLUMNS = ("system_left", "system_right", "preferred", "chosen_system")
#: Values of ``preferred``.
PREFERENCE_OUTCOMES = ("left", "right", "tie")
#: Prefix of a rating criterion's response column.
RATING_PREFIX = "rating_"

#: Keys of every row :func:`read_text_responses` returns (and ``ratings``: a
#: dict criterion ID -> value, for ``text_rating``).
TEXT_IMPORT_COLUMNS = (
    "source_file",
    "source_line",
    "source_format",
    "study",
    "task",
    "session",
    "participant",
    "session_status",
    "list",
    "order",
    "item",
    "system",
    "practice",
    "filler",
    "ratings",
    "system_left",
    "system_right",
    "preferred",
    "chosen_system",
    "time_ms",
    "simulated",
    "import_problem",
)

_SERVER_TIME = "rt_ms"


@dataclass(frozen=True)
class Criterion:
    """One criterion of a text study (config ``studies[].criteria[]``).

    Attributes
    ----------
    id : str
        Its ID (the rating column is ``rating_<id>``).
    scale : str
        ``likert`` (integers 1..``points``), ``slider`` (0-100) or
        ``preference`` (a preference study's criterion).
    points : int or None
        Points of a Likert scale.
    allow_tie : bool
        A preference criterion that offers "no preference".
    """

    id: str
    scale: str
    points: int | None = None
    allow_tie: bool = True

    def check(self, value: float) -> None:
        """Raise ValueError when *value* is off the scale (saying what fits)."""
        if self.scale == "likert":
            points = self.points or 5
            if value != int(value) or not 1 <= value <= points:
                raise ValueError(
                    f"{value:g} is not on the {points}-point scale; expected a whole "
                    f"number 1-{points}"
                )
        elif not 0 <= value <= 100:
            raise ValueError(f"{value:g} is outside the slider's 0-100")


def criteria_from_config(
    entries: Sequence[Mapping[str, Any]] | None, task: str, *, where: str = "criteria"
) -> list[Criterion]:
    """The criteria of a study config entry, checked.

    Parameters
    ----------
    entries : sequence of mapping
        ``studies[].criteria``: ``id`` and, for ``text_rating``, ``scale``
        (``likert`` with ``points``, default 5; or ``slider``); for
        ``text_preference`` one entry (``allow_tie``, default true).
    task : str
        ``text_rating`` or ``text_preference``.
    where : str
        The key path, for messages.

    Raises
    ------
    JudgmentsError
        An unknown task or scale, a missing or repeated ID, a preference study
        with more than one criterion (naming the key).
    """
    if task not in TEXT_TASKS:
        raise JudgmentsError(
            f"task {task!r}; expected one of {', '.join(TEXT_TASKS)}", field="task"
        )
    entries = list(entries or [])
    if not entries:
        raise JudgmentsError("a text study needs at least one criterion", field=where)
    if paired(task) and len(entries) != 1:
        raise JudgmentsError(
            f"{len(entries)} criteria; a preference trial asks one question, so a "
            "text_preference study has exactly one criterion",
            field=where,
        )
    out: list[Criterion] = []
    for n, entry in enumerate(entries):
        key = f"{where}[{n}]"
        ident = clean_str(str(entry.get("id") or ""))
        if not ident:
            raise JudgmentsError("a criterion needs an id", field=f"{key}.id")
        if ident in {c.id for c in out}:
            raise JudgmentsError(f"criterion {ident!r} twice", field=f"{key}.id")
        if paired(task):
            out.append(
                Criterion(ident, "preference", None, bool(entry.get("allow_tie", True)))
            )
            continue
        scale = entry.get("scale", "likert")
        if scale not in SCALES:
            raise JudgmentsError(
                f"scale {scale!r}; expected one of {', '.join(SCALES)}",
                field=f"{key}.scale",
            )
        points = entry.get("points", 5) if scale == "likert" else None
        if points is not None and (not isinstance(points, int) or points < 2):
            raise JudgmentsError(
                f"points {points!r}; expected a whole number of 2 or more",
                field=f"{key}.points",
            )
        out.append(Criterion(ident, scale, points))
    return out


def text_response_columns(task: str, criteria: Sequence[Criterion]) -> tuple[str, ...]:
    """The columns of a text study's export or offline file, in order.

    >>> text_response_columns("text_preference", [])[-2:]
    ('preferred', 'chosen_system')
    """
    from stecflow.studies.settings import RESPONSE_COLUMNS

    if paired(task):
        return (*RESPONSE_COLUMNS, *PREFERENCE_COLUMNS)
    return (*RESPONSE_COLUMNS, *(RATING_PREFIX + c.id for c in criteria))


@dataclass
class TextImport:
    """What one text response file gave.

    Attributes
    ----------
    path : str
        The file, as given.
    task : str
        ``text_rating`` or ``text_preference``.
    source_format : str
        ``server``, ``offline`` or ``simulated`` (when every row is the same).
    rows : list of dict
        One per line, in file order; keys :data:`TEXT_IMPORT_COLUMNS`.
    problems : list of dict
        Rows of the data-quality table.
    """

    path: str
    task: str
    source_format: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    problems: list[dict[str, Any]] = field(default_factory=list)


def read_text_responses(
    path: str | Path,
    *,
    task: str,
    criteria: Sequence[Criterion],
    study: str | None = None,
    encoding: str | None = None,
    strict: bool = False,
) -> TextImport:
    """Read one text response file (export, offline file or simulated file).

    Parameters
    ----------
    path : path
        A TSV (or a spreadsheet's CSV copy) with the columns of
        :func:`text_response_columns`, in any order, optionally followed by
        ``simulated``.
    task : str
        ``text_rating`` or ``text_preference``.
    criteria : sequence of Criterion
        The study's criteria (:func:`criteria_from_config`): for a rating study
        each needs its ``rating_<id>`` column, whose values are checked against
        its scale; a preference criterion says whether ties are allowed.
    study : str, optional
        Labels problems; rows keep the file's own ``study``.
    encoding : str, optional
        The file's encoding when it is not UTF-8 (a byte-order mark wins).
    strict : bool, default False
        Raise at the first unusable line instead of keeping it flagged.

    Returns
    -------
    TextImport
        The rows (practice trials included, flagged) and the problems found.

    Raises
    ------
    JudgmentsError
        The file is not such a table (a column missing or unexpected, naming the
        file, line 1 and the column), or cannot be decoded; with ``strict``,
        also for an unusable line (file, line, column).
    """
    if task not in TEXT_TASKS:
        raise JudgmentsError(
            f"task {task!r}; expected one of {', '.join(TEXT_TASKS)}", field="task"
        )
    source = str(path)
    header, lines, _ = split_table(read_text(path, encoding=encoding), source)
    expected = text_response_columns(task, criteria)
    missing = [c for c in expected if c not in header]
    if missing:
        raise JudgmentsError(
            f"missing column(s) {', '.join(missing)}; a {task} export or offline "
            f"file has {', '.join(expected)}",
            file=source,
            line=1,
            field=missing[0],
        )
    # answered_utc: the server's receipt time (read, not kept)
    extra = [c for c in header if c not in expected + ("simulated", "answered_utc")]
    if extra:
        hint = (
            " (a rating column of a criterion the study does not have?)"
            if any(c.startswith(RATING_PREFIX) for c in extra)
            else ""
        )
        raise JudgmentsError(
            f"unexpected column(s) {', '.join(extra)}{hint}; a {task} export has "
            f"only {', '.join(expected)} (and simulated)",
            file=source,
            line=1,
            field=extra[0],
        )
    by_column = {RATING_PREFIX + c.id: c for c in criteria}
    allow_tie = all(c.allow_tie for c in criteria)
    sink = ImportResult(source, "server")  # RowProblems writes its problems here
    result = TextImport(source, task, "server")
    for line, fields in lines:
        problems = RowProblems(sink, line, strict, study)
        fields = check_width(fields, header, problems)
        row: dict[str, Any] = dict.fromkeys(TEXT_IMPORT_COLUMNS)
        ratings: dict[str, float | None] = {}
        for name, text in zip(header, fields, strict=True):
            text = decode_cell(text, name)
            if name in by_column:
                ratings[by_column[name].id] = _rating(
                    name, text, by_column[name], problems
                )
            elif name == "simulated":
                row[name] = _flag(name, text, problems)
            elif name in PREFERENCE_COLUMNS:
                row[name] = clean_str(text)
            else:
                value = parse_value(name, text, problems)
                if name in row:
                    row[name] = value
                if name == _SERVER_TIME:
                    row["time_ms"] = value
        row["ratings"] = None if paired(task) else ratings
        row["source_file"], row["source_line"] = source, line
        row["simulated"] = bool(row["simulated"])
        _check_row(row, task, allow_tie, problems)
        row["source_format"] = (
            "simulated"
            if row["simulated"]
            else ("offline" if row["session_status"] == "offline" else "server")
        )
        problems.finish(row)
        result.rows.append(row)
    result.problems = sink.problems
    kinds = {r["source_format"] for r in result.rows}
    if len(kinds) == 1:
        result.source_format = kinds.pop()
    logger.info("%s: %d %s row(s)", source, len(result.rows), task)
    return result


def _flag(name: str, text: str, problems: RowProblems) -> bool | None:
    try:
        return parse_bool(text)
    except ValueError as exc:
        problems.add(name, str(exc))
        return None


def _rating(
    name: str, text: str, criterion: Criterion, problems: RowProblems
) -> float | None:
    try:
        value = parse_number(text)
        if value is not None:
            criterion.check(value)
        return value
    except ValueError as exc:
        problems.add(name, str(exc))
        return None


def _check_row(
    row: dict[str, Any], task: str, allow_tie: bool, problems: RowProblems
) -> None:
    if row["task"] is not None and row["task"] != task:
        problems.add("task", f"{row['task']!r}; expected {task}")
    if row["session"] is None:
        problems.add("session", "empty; every row needs its session")
    if row["list"] is None:
        problems.add("list", "empty; every row needs the list it was shown from")
    if row["order"] is None and row["item"] is None:
        problems.add("order", "empty, and so is item; the trial cannot be identified")
    if not paired(task) or row["practice"]:
        return
    left, right = row["system_left"], row["system_right"]
    if left is None or right is None:
        problems.add(
            "system_left" if left is None else "system_right",
            "empty; a preference trial names the two systems shown",
        )
    elif left == right:
        problems.add("system_right", f"{right!r} is also the left system")
    preferred = row["preferred"]
    if preferred is None:
        return  # no answer: the merge reports it (no_response)
    if preferred not in PREFERENCE_OUTCOMES or (preferred == "tie" and not allow_tie):
        outcomes = PREFERENCE_OUTCOMES if allow_tie else PREFERENCE_OUTCOMES[:2]
        problems.add(
            "preferred", f"{preferred!r}; expected one of {', '.join(outcomes)}"
        )
        row["preferred"] = None
        return
    chosen = row["chosen_system"]
    expected = {"left": left, "right": right, "tie": None}[preferred]
    if chosen != expected:
        problems.add(
            "chosen_system",
            f"{chosen or '(empty)'!s} with preferred {preferred}; expected "
            f"{expected or '(empty)'}",
        )
        row["preferred"] = None

"""Read the response files of a situated identification study (seed 000 §5.1).

Owns :func:`read_situated_responses`: one file of situated trials, as

* the collection server's export of a situated study (``stecflow export``,
  :func:`stecflow.studies.server.export_responses`): the columns
  :data:`~stecflow.studies.settings.RESPONSE_COLUMNS`, then the situated ones,
  :data:`.stimuli.SITUATED_COLUMNS` (``instance``,
  ``dialogue``, ``expression``, ``time_ms``, ``plays``, ``replays``,
  ``answer_via``), the fields of the server's ``situated_trials`` table;
* the file the web page saves in offline mode (the same columns, written from
  the study document's ``columns``; ``session_status`` is ``offline``);
* the simulated file of
  :func:`.simulate_job.simulate_situated_study`: the same
  columns followed by ``simulated`` and ``corrected`` (a declared mis-click the
  simulated evaluator's answer was corrected for).

The REG importers (:mod:`stecflow.judgments.importers.server`) refuse the
situated columns as unexpected; :func:`is_situated_header` tells a situated
header apart (every server column and every situated column).

A file that cannot be read as a whole (a column missing or unexpected, bytes not
in the encoding) raises :class:`~stecflow.judgments.JudgmentsError` naming the
file, line and column. A line that cannot be used in part (a time that is not a
number, a truncated line, an unknown boolean, an instance that is not the
trial's item) is **kept**: the bad value becomes missing, ``import_problem`` says
what was wrong (an empty or bad ``time_ms`` is taken from
``identification_time_ms``, where the page and the server write the same
time), and a row of the data-quality table (check ``import_problem``,
with the file, the line and the column in ``field``) reports it. With
``strict=True`` the first such problem raises instead.

May import: :mod:`stecflow.core`, :mod:`stecflow.judgments` (``_common``,
``importers``), :mod:`stecflow.studies` (inside functions).
"""

from __future__ import annotations

import logging
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

__all__ = [
    "ANSWER_VIA",
    "OPTIONAL_COLUMNS",
    "SITUATED_IMPORT_COLUMNS",
    "SituatedImport",
    "is_situated_header",
    "read_situated_responses",
    "situated_response_columns",
]

logger = logging.getLogger(__name__)

#: Values of ``answer_via`` the page records.
ANSWER_VIA = ("board", "button", "dont_know")
#: Columns a situated response file may have after the required ones.
OPTIONAL_COLUMNS = ("simulated", "corrected")

#: Keys of every row :func:`read_situated_responses` returns.
SITUATED_IMPORT_COLUMNS = (
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
    "chosen_entity",
    "target_entity",
    "correct",
    "cant_tell",
    "identification_time_ms",
    "instance",
    "dialogue",
    "expression",
    "time_ms",
    "plays",
    "replays",
    "answer_via",
    "simulated",
    "corrected",
    "import_problem",
)

_TASK = "situated_identification"
_COUNTS = ("plays", "replays")


def situated_response_columns() -> tuple[str, ...]:
    """The columns of a situated export or offline file, in order.

    Imported on use (the studies package is big).

    >>> situated_response_columns()[-3:]
    ('plays', 'replays', 'answer_via')
    """
    from stecflow.studies.settings import RESPONSE_COLUMNS
    from stecflow.studykinds.situated_identification.stimuli import SITUATED_COLUMNS

    return (*RESPONSE_COLUMNS, *SITUATED_COLUMNS)


def is_situated_header(header: list[str] | tuple[str, ...]) -> bool:
    """True when *header* (normalised names) has every situated response column.

    >>> is_situated_header(["study", "item"])
    False
    >>> is_situated_header(list(situated_response_columns()))
    True
    """
    return set(situated_response_columns()) <= set(header)


@dataclass
class SituatedImport:
    """What one situated response file gave.

    Attributes
    ----------
    path : str
        The file, as given.
    source_format : str
        ``server`` (an export), ``offline`` (every row ``session_status``
        ``offline``) or ``simulated`` (every row ``simulated``).
    rows : list of dict
        One per line, in file order; keys :data:`SITUATED_IMPORT_COLUMNS`.
    problems : list of dict
        Rows of the data-quality table.
    """

    path: str
    source_format: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    problems: list[dict[str, Any]] = field(default_factory=list)


def _count(text: str) -> int | None:
    value = parse_number(text)
    if value is None:
        return None
    if value != int(value) or value < 0:
        raise ValueError(f"{text!r} is not a whole number of 0 or more")
    return int(value)


def _situated_value(name: str, text: str, problems: RowProblems) -> Any:
    try:
        if name == "time_ms":
            value = parse_number(text)
            if value is not None and value < 0:
                raise ValueError(f"{value:g} is negative; expected a time in ms")
            return value
        if name in _COUNTS:
            return _count(text)
        if name in OPTIONAL_COLUMNS:
            return parse_bool(text)
        if name == "answer_via":
            value = clean_str(text)
            if value is not None and value not in ANSWER_VIA:
                raise ValueError(f"{value!r} is not one of {', '.join(ANSWER_VIA)}")
            return value
    except ValueError as exc:
        problems.add(name, str(exc))
        return None
    return clean_str(text)


def read_situated_responses(
    path: str | Path,
    *,
    study: str | None = None,
    encoding: str | None = None,
    strict: bool = False,
) -> SituatedImport:
    """Read one situated response file (export, offline file or simulated file).

    Parameters
    ----------
    path : path
        A TSV (or a spreadsheet's CSV copy) with the columns of
        :func:`situated_response_columns`, in any order, optionally followed by
        :data:`OPTIONAL_COLUMNS`.
    study : str, optional
        Labels problems; rows keep the file's own ``study``.
    encoding : str, optional
        The file's encoding when it is not UTF-8 (a byte-order mark wins).
    strict : bool, default False
        Raise at the first unusable line instead of keeping it flagged.

    Returns
    -------
    SituatedImport
        The rows (practice trials included, flagged), and the problems found.

    Raises
    ------
    JudgmentsError
        The file is not such a table (a column missing or unexpected, naming the
        file, line 1 and the column), or cannot be decoded; with ``strict``,
        also for an unusable line (file, line, column).
    """
    source = str(path)
    header, lines, _ = split_table(read_text(path, encoding=encoding), source)
    expected = situated_response_columns()
    missing = [c for c in expected if c not in header]
    if missing:
        raise JudgmentsError(
            f"missing column(s) {', '.join(missing)}; a situated export or offline "
            f"file has {', '.join(expected)}",
            file=source,
            line=1,
            field=missing[0],
        )
    # answered_utc: the server's receipt time (read, not kept)
    extra = [
        c
        for c in header
        if c not in expected and c not in (*OPTIONAL_COLUMNS, "answered_utc")
    ]
    if extra:
        raise JudgmentsError(
            f"unexpected column(s) {', '.join(extra)}; a situated export has only "
            f"{', '.join(expected)} (and {', '.join(OPTIONAL_COLUMNS)})",
            file=source,
            line=1,
            field=extra[0],
        )
    situated = set(expected[-7:]) | set(OPTIONAL_COLUMNS)
    # RowProblems wants an ImportResult; its problems are moved over below.
    sink = ImportResult(source, "server")
    result = SituatedImport(source, "server")
    for line, fields in lines:
        problems = RowProblems(sink, line, strict, study)
        fields = check_width(fields, header, problems)
        values: dict[str, Any] = {}
        for name, text in zip(header, fields, strict=True):
            text = decode_cell(text, name)
            if name in situated:
                values[name] = _situated_value(name, text, problems)
            else:
                values[name] = parse_value(name, text, problems)
        row: dict[str, Any] = dict.fromkeys(SITUATED_IMPORT_COLUMNS)
        row.update({k: v for k, v in values.items() if k in row})
        row["source_file"], row["source_line"] = source, line
        row["simulated"] = bool(row["simulated"])
        row["corrected"] = bool(row["corrected"])
        if row["instance"] is None:
            row["instance"] = row["item"]
        if row["item"] is None:
            row["item"] = row["instance"]
        if row["time_ms"] is None:
            row["time_ms"] = values.get("identification_time_ms")
        _check_row(row, problems)
        row["source_format"] = (
            "simulated"
            if row["simulated"]
            else ("offline" if row["session_status"] == "offline" else "server")
        )
        problems.finish(row)
        row["import_problem"] = "; ".join(problems.messages) or None
        result.rows.append(row)
    result.problems = sink.problems
    kinds = {r["source_format"] for r in result.rows}
    if len(kinds) == 1:
        result.source_format = kinds.pop()
    logger.info("%s: %d situated row(s)", source, len(result.rows))
    return result


def _check_row(row: dict[str, Any], problems: RowProblems) -> None:
    if row["task"] is not None and row["task"] != _TASK:
        problems.add("task", f"{row['task']!r}; expected {_TASK}")
    if row["session"] is None:
        problems.add("session", "empty; every row needs its session")
    if row["list"] is None:
        problems.add("list", "empty; every row needs the list it was shown from")
    if row["item"] is None:
        problems.add("item", "empty, and so is instance; expected the instance ID")
    elif row["instance"] != row["item"]:
        problems.add(
            "instance",
            f"{row['instance']!r} is not the trial's item {row['item']!r}; expected "
            "the same instance ID in both",
        )
    if row["cant_tell"] and row["chosen_entity"] is not None:
        problems.add(
            "chosen_entity",
            f"{row['chosen_entity']!r} with cant_tell true; expected one of them",
        )
    if (
        row["replays"] is not None
        and row["plays"] is not None
        and row["plays"] not in (row["replays"], row["replays"] + 1)
    ):
        problems.add(
            "replays",
            f"{row['replays']} with plays {row['plays']}; expected plays - 1",
        )

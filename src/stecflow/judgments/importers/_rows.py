"""What every importer shares: the result, table splitting and the row checks.

A row that cannot be used is kept: :class:`RowProblems` records what was wrong
(column ``import_problem`` and a row of the data-quality table) or, when strict,
raises :class:`~stecflow.judgments.JudgmentsError` at once.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from stecflow.judgments._common import (
    IMPORT_COLUMNS,
    JudgmentsError,
    clean_str,
    normalise_header,
    parse_bool,
    parse_int,
    parse_number,
    problem,
)
from stecflow.judgments.importers._columns import (
    BOOL_COLUMNS,
    FLOAT_COLUMNS,
    RATING_COLUMNS,
    STR_COLUMNS,
    TIME_COLUMNS,
)

__all__ = [
    "ImportResult",
    "ResponseFormat",
    "RowProblems",
    "check_identity",
    "check_width",
    "concat_results",
    "empty_row",
    "guess_delimiter",
    "parse_value",
    "split_table",
]


@dataclass(frozen=True)
class ResponseFormat:
    """A response file of a study kind's own (its lab software's output,
    :attr:`stecflow.studykinds.base.StudyKind.response_formats`).

    Attributes
    ----------
    suffix : str
        The file name's extension that tells the format at once (``.azk``).
    looks_like : callable
        ``head -> bool``: whether a file's first 2,000 characters (leading
        space stripped) are of this format.
    read : callable
        ``(path, *, study, list_id, item_table, timeout_ms, encoding, strict)
        -> ImportResult``, as :func:`stecflow.judgments.importers.read_responses`
        passes them.
    """

    suffix: str
    looks_like: Callable[[str], bool]
    read: Callable[..., ImportResult]


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


def empty_row(**values: Any) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(IMPORT_COLUMNS)
    row.update(values)
    return row


class RowProblems:
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


def parse_value(
    name: str, text: str, problems: RowProblems, *, rating_range: bool = True
) -> Any:
    try:
        if name in STR_COLUMNS:
            return clean_str(text)
        if name == "order":
            return parse_int(text)
        if name in BOOL_COLUMNS:
            return parse_bool(text)
        if name in RATING_COLUMNS:
            value = parse_number(text)
            if value is not None and rating_range and not 0 <= value <= 100:
                raise ValueError(f"{value:g} is outside 0-100")
            return value
        if name in TIME_COLUMNS:
            value = parse_number(text)
            if value is not None and value < 0:
                raise ValueError(f"{value:g} is negative")
            return value
        if name in FLOAT_COLUMNS:
            return parse_number(text)
    except ValueError as exc:
        problems.add(name, str(exc))
        return None
    return clean_str(text)


def guess_delimiter(header: str, path: str) -> str:
    if "\t" in header:
        return "\t"
    if ";" in header and "," not in header:
        return ";"
    if "," in header:
        return ","
    if path.lower().endswith(".csv"):
        return ","
    return "\t"


def split_table(
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
    delimiter = guess_delimiter(lines[start], path)
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


def check_width(
    fields: list[str], header: Sequence[str], problems: RowProblems
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


def check_identity(
    row: dict[str, Any], problems: RowProblems, *, need_order: bool
) -> None:
    if row["session"] is None:
        problems.add("session", "empty; every row needs its session")
    if need_order and row["order"] is None and row["item"] is None:
        problems.add("order", "empty, and so is item; the trial cannot be identified")


def concat_results(results: Iterable[ImportResult]) -> Any:
    """Concatenate import results into one DataFrame of :data:`IMPORT_COLUMNS`."""
    import pandas as pd

    rows = [row for result in results for row in result.rows]
    return pd.DataFrame(rows, columns=list(IMPORT_COLUMNS), dtype=object)

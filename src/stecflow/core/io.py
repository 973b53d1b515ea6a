"""Deterministic writers for the tables and JSON files stecflow produces.

JSON: sorted keys, indent 2, UTF-8, trailing newline, NaN as null. TSV: a fixed
column order, ``\\n`` line endings, no index, floats through :func:`format_float`
(NaN and None as the empty string).

TSV cells are safe to open in a spreadsheet and to split into lines, and read back
as they were written (:func:`iter_tsv` undoes both steps):

* *Escaping* (every cell, :func:`escape_cell`): a backslash, tab, line feed and
  carriage return become ``\\\\``, ``\\t``, ``\\n`` and ``\\r``; every other
  control character (C0, DEL, C1) and the line and paragraph separators U+2028 and
  U+2029 become ``\\xNN`` or ``\\uNNNN``. A cell never holds a character that any
  reader (a spreadsheet, :meth:`str.splitlines`, a JavaScript parser) takes for the
  end of a line or of a cell.
* *Formula neutralisation* (cells of :data:`FREE_TEXT_COLUMNS` only,
  :func:`neutralise_formula`): free text supplied from outside (a team's system
  description, a participant's ID, a free-text answer, a comment) that starts with
  ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading ``'``, as
  OWASP recommends against CSV injection, so that a spreadsheet shows it as text
  instead of running it. Values stecflow itself produces (``+LOC``/``-LOC``
  conditions, scores such as ``-0.37``) are in other columns and left alone: the
  decision is by column, never by guessing from the value.

The report's CSV downloads (:meth:`stecflow.report.tables.Table.to_csv`) neutralise
the same columns.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import operator
import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "FORMULA_TRIGGERS",
    "FREE_TEXT_COLUMNS",
    "decode_cell",
    "escape_cell",
    "format_float",
    "format_tsv",
    "iter_json_records",
    "iter_tsv",
    "iter_tsv_blocks",
    "iter_tsv_columns",
    "neutralise_formula",
    "parse_tsv",
    "read_json",
    "read_tsv",
    "restore_formula",
    "unescape_cell",
    "write_json",
    "write_json_lines",
    "write_tsv",
]

#: Significant digits kept for floats in result files.
FLOAT_DIGITS = 10

#: Columns (of every TSV stecflow writes, and of the report's CSV downloads) that
#: hold free text supplied from outside the project, or messages that may begin
#: with such text; their cells are neutralised (:func:`neutralise_formula`). The
#: one list: add a column here when a table gains outside free text.
FREE_TEXT_COLUMNS: frozenset[str] = frozenset(
    {
        # Submissions: folder names (a folder that is no valid submission keeps its
        # name) and what teams wrote in system.yaml.
        "team",
        "system",
        "description",
        "submitted",
        "folder",
        # Human-study responses: IDs and answers as participants, their browsers or
        # another lab tool gave them (rows that match no design trial keep them).
        "participant",
        "session",
        "subject",
        "list",
        "item",
        "chosen_entity",
        "target_entity",
        "choice",
        # Comments, and messages that may start with a value quoted from outside
        # ("-5 is outside 0-100", "<folder>: not a submission").
        "correction_reason",
        "original_values",
        "first_error",
        "reason",
        "problem",
        "where",
        "detail",
        "field",
    }
)

#: First characters that make a spreadsheet read a cell as a formula (OWASP, "CSV
#: injection").
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")

# A cell that needs the ' prefix: a trigger after any number of quotes (so that a
# value already starting with ' and a trigger stays distinct and round-trips).
_TRIGGER = "[" + re.escape("".join(FORMULA_TRIGGERS)) + "]"
_FORMULA = re.compile("'*" + _TRIGGER)
_NEUTRALISED = re.compile("''*" + _TRIGGER)
_TO_ESCAPE = re.compile(r"[\\\x00-\x1f\x7f-\x9f\u2028\u2029]")
# (not a surrogate: escape_cell never writes one, and a lone surrogate read back
# could not be written again as UTF-8; "\ud800" in a cell stays as it is)
_ESCAPED = re.compile(r"\\(?:[\\tnr]|x[0-9a-f]{2}|u(?!d[89a-f])[0-9a-f]{4})")
_SHORT = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}
_SHORT_BACK = {v: k for k, v in _SHORT.items()}


def neutralise_formula(text: str) -> str:
    """Prefix ``'`` to *text* a spreadsheet would run as a formula.

    Text starting with one of :data:`FORMULA_TRIGGERS`, possibly after quotes,
    gets one more quote; :func:`restore_formula` removes it.

    >>> print(neutralise_formula('=HYPERLINK("http://x","y")'))
    '=HYPERLINK("http://x","y")
    >>> neutralise_formula("+cmd"), neutralise_formula("'+cmd"), neutralise_formula("a")
    ("'+cmd", "''+cmd", 'a')
    """
    return "'" + text if _FORMULA.match(text) else text


def restore_formula(text: str) -> str:
    """Undo :func:`neutralise_formula`.

    >>> restore_formula("'+cmd"), restore_formula("''+cmd"), restore_formula("'a")
    ('+cmd', "'+cmd", "'a")
    """
    return text[1:] if _NEUTRALISED.match(text) else text


def _escape_char(match: re.Match[str]) -> str:
    char = match.group()
    short = _SHORT.get(char)
    if short is not None:
        return short
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _unescape_char(match: re.Match[str]) -> str:
    text = match.group()
    short = _SHORT_BACK.get(text)
    return short if short is not None else chr(int(text[2:], 16))


def escape_cell(text: str) -> str:
    """Escape backslashes, control characters and U+2028/U+2029 in a TSV cell.

    >>> escape_cell("a\\tb\\u2028c\\x07d\\\\e")
    'a\\\\tb\\\\u2028c\\\\x07d\\\\\\\\e'
    """
    if _TO_ESCAPE.search(text) is None:
        return text
    return _TO_ESCAPE.sub(_escape_char, text)


def unescape_cell(text: str) -> str:
    """Undo :func:`escape_cell` (a backslash starting no escape stays as it is,
    as does the escape of a surrogate, which :func:`escape_cell` never writes).

    >>> unescape_cell(r"a\\ud800b\\u00e9")
    'a\\\\ud800bé'

    >>> text = "a\\tb\\u2028c\\x07d\\\\e"
    >>> unescape_cell(escape_cell(text)) == text
    True
    """
    if "\\" not in text:
        return text
    return _ESCAPED.sub(_unescape_char, text)


def decode_cell(text: str, column: str) -> str:
    """A cell of a TSV stecflow wrote, as the value it was written from.

    >>> decode_cell("'+cmd", "participant"), decode_cell("-0.37", "value")
    ('+cmd', '-0.37')
    """
    text = unescape_cell(text)
    if column in FREE_TEXT_COLUMNS and text[:1] == "'":
        return restore_formula(text)
    return text


def format_float(value: float, digits: int = FLOAT_DIGITS) -> str:
    """Format a float reproducibly; NaN and infinities become ``""``.

    >>> format_float(2 / 3), format_float(1.0), format_float(float("nan"))
    ('0.6666666667', '1', '')
    """
    if value is None or not math.isfinite(value):
        return ""
    text = f"{value:.{digits}g}"
    return "0" if text == "-0" else text


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if value.__class__.__name__ in ("NAType", "NaTType"):  # pandas' missing values
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, (list, tuple)):
        return ",".join(_text(v) for v in value)
    return str(value)


def format_tsv(rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> str:
    """Render *rows* as TSV text with exactly *columns*, in the order given.

    Cells are escaped, and those of :data:`FREE_TEXT_COLUMNS` neutralised (see the
    module's docstring).

    >>> format_tsv([{"a": 1.5, "b": None}], ["a", "b"])
    'a\\tb\\n1.5\\t\\n'
    >>> format_tsv([{"participant": "+cmd", "condition": "-LOC", "value": -0.37}],
    ...            ["participant", "condition", "value"])
    "participant\\tcondition\\tvalue\\n'+cmd\\t-LOC\\t-0.37\\n"
    """
    return "".join(_tsv_lines(rows, columns))


def _float_text(value: float) -> str:
    # format_float for a plain float: the hot path of _tsv_lines. A finite
    # number's text never ends in "n" or "f", those of nan, inf and -inf do.
    text = _FLOAT_FORMAT % value
    if text[-1] in "nf":
        return ""
    return "0" if text == "-0" else text


_FLOAT_FORMAT = f"%.{FLOAT_DIGITS}g"


#: How _tsv_lines turns a cell of these exact types into text (others: _text).
_CELL_TEXT: dict[type, Any] = {
    float: _float_text,
    int: str,
    bool: _text,
    type(None): _text,
}


# Characters that make a cell need escaping, but for the tab and line feed, which
# _chunk_text counts instead (a chunk's text has one per cell and line).
_UNSAFE = re.compile(r"[\\\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
#: Rows rendered at a time by _tsv_lines.
_CHUNK_ROWS = 1024


def _tsv_lines(
    rows: Iterable[Mapping[str, Any]], columns: Sequence[str]
) -> Iterator[str]:
    """The header line, then the rows' lines a chunk of rows at a time.

    Each cell is formatted (:func:`_text`) and free text neutralised, column by
    column over a chunk of rows; then ``csv.writer`` (no quoting) joins the
    chunk's cells in C, and one scan of the chunk's text (its tabs and line
    feeds counted, no other character that needs escaping) shows that it equals
    the cell-by-cell escaped form, the usual case; if not, that chunk is escaped
    cell by cell.
    """
    yield "\t".join(escape_cell(c) for c in columns) + "\n"
    width = len(columns)
    free = {i for i, c in enumerate(columns) if c in FREE_TEXT_COLUMNS}
    pick = operator.itemgetter(*columns) if width > 1 else None
    buffer = io.StringIO()
    writer = csv.writer(
        buffer,
        delimiter="\t",
        quoting=csv.QUOTE_NONE,
        quotechar=None,
        escapechar=None,
        lineterminator="\n",
    )
    source = iter(rows)
    while chunk := list(itertools.islice(source, _CHUNK_ROWS)):
        values: list[Any] = []
        if pick is not None and set(map(type, chunk)) == {dict}:
            try:
                values = list(map(pick, chunk))
            except KeyError:  # a missing column: empty, as get gives
                values = []
        if not values:
            values = [tuple(map(row.get, columns)) for row in chunk]
        cells = [
            _column_texts(column, i in free)
            for i, column in enumerate(zip(*values, strict=True))
        ]
        lines = list(zip(*cells, strict=True)) if cells else [()] * len(chunk)
        yield _chunk_text(lines, width, writer, buffer)


def _column_texts(column: tuple[Any, ...], free: bool) -> Sequence[str]:
    """The texts of one column's cells (:func:`_text`, then neutralised if free)."""
    kinds = set(map(type, column))
    if kinds == {str}:
        texts: Sequence[str] = column
    elif kinds == {float}:
        texts = list(map(_FLOAT_FORMAT.__mod__, column))
        if not _FLOAT_ODD.isdisjoint(texts):
            texts = [_float_text(v) for v in column]
    else:
        convert = _CELL_TEXT.get
        texts = [
            v if v.__class__ is str else (convert(v.__class__) or _text)(v)
            for v in column
        ]
    if free and _FORMULA_LINE.search("\n".join(texts)) is not None:
        texts = [neutralise_formula(t) for t in texts]
    return texts


# The texts of "%.10g" that format_float writes otherwise.
_FLOAT_ODD = frozenset({"nan", "inf", "-inf", "-0"})
# A line (cell) that may need neutralise_formula: a trigger after quotes.
_FORMULA_LINE = re.compile("^'*" + _TRIGGER, re.MULTILINE)


def _chunk_text(
    chunk: list[tuple[str, ...]], width: int, writer: Any, buffer: io.StringIO
) -> str:
    text = None
    if width > 1:  # (csv quotes a row of one empty cell)
        buffer.seek(0)
        buffer.truncate()
        try:
            writer.writerows(chunk)
        except csv.Error:  # a cell with a tab or line break: escaped below
            pass
        else:
            text = buffer.getvalue()
            if (
                text.count("\n") != len(chunk)
                or text.count("\t") != (width - 1) * len(chunk)
                or _UNSAFE.search(text) is not None
            ):
                text = None
    if text is None:
        text = "".join("\t".join(map(escape_cell, cells)) + "\n" for cells in chunk)
    return text


def write_tsv(
    rows: Iterable[Mapping[str, Any]], columns: Sequence[str], path: str | Path
) -> None:
    """Write *rows* as TSV with exactly *columns*, in the order given.

    *rows* may be a generator: lines are written as they come, so a large table
    never has to be held in memory.
    """
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.writelines(_tsv_lines(rows, columns))


def read_tsv(path: str | Path) -> list[dict[str, str]]:
    """Read a TSV written by :func:`write_tsv` as a list of string dicts."""
    return list(iter_tsv(path))


def iter_tsv(path: str | Path) -> Iterator[dict[str, str]]:
    """Read a TSV written by :func:`write_tsv` row by row (for large tables).

    Cells are decoded (:func:`decode_cell`): the values are those written.
    """
    with open(path, encoding="utf-8", newline="") as handle:
        yield from _decoded_rows(handle)


def iter_tsv_columns(
    path: str | Path,
    columns: Sequence[str],
    where: tuple[str, str] | None = None,
    *,
    among: tuple[str, Collection[str]] | None = None,
    raw: bool = False,
) -> Iterator[tuple[str | None, ...]]:
    """A few columns of each row of a TSV written by :func:`write_tsv`, as tuples.

    The cells :func:`iter_tsv` gives for *columns* (decoded the same way; None
    for a column the table or a short line lacks; blank lines skipped), without a
    dict per row: for scanning large tables such as a submission's item scores.
    *where* ``(column, value)`` keeps only the rows whose cell in that column is
    *value* as written (a value :func:`write_tsv` writes unchanged, such as
    ``*``); a table without the column has no such rows. *among* ``(column,
    values)`` likewise keeps only the rows whose cell in that column is one of
    *values* as written (e.g. the few metrics a reader needs). *raw* gives the cells
    as written, not decoded: to copy them into another table of the same
    columns (:func:`format_tsv` would write them back unchanged). With *where*,
    the file is read whole and its kept lines found in it (a submission's
    item table: tens of MB at 10,000 items); otherwise line by line.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "t.tsv"
    ...     write_tsv([{"a": "x\\ty", "b": 1.5}, {"a": "=1"}], ["a", "b"], path)
    ...     every = list(iter_tsv_columns(path, ["b", "a", "c"]))
    ...     some = list(iter_tsv_columns(path, ["a"], among=("b", {"1.5", "2"})))
    >>> every
    [('1.5', 'x\\ty', None), ('', '=1', None)]
    >>> some
    [('x\\ty',)]
    """
    # write_tsv escapes tabs and line breaks inside cells, so a line is a row and
    # its cells are the line split at tabs (csv.reader with QUOTE_NONE, faster)
    with open(path, encoding="utf-8", newline="") as handle:
        header = handle.readline().rstrip("\r\n")
        if not header:
            return
        names = header.split("\t")
        at = [names.index(c) if c in names else None for c in columns]
        width = max((i for i in at if i is not None), default=-1) + 1
        pick = [i if i is not None else 0 for i in at]
        absent = [n for n, i in enumerate(at) if i is None]
        if where is not None and where[0] not in names:
            return
        if among is not None and among[0] not in names:
            return
        keep_at, keep_value = (names.index(where[0]), where[1]) if where else (0, "")
        among_at, among_values = (
            (names.index(among[0]), frozenset(among[1])) if among else (0, frozenset())
        )
        # the lines that can hold such a row (the value after a tab, then a tab
        # or the line's end) are found in the whole text by a regular
        # expression, and only they are split (the few metrics of a
        # submission's item table the report reads: 1.2x faster than line by
        # line, more the fewer rows are kept)
        lines: Iterable[str] = handle
        if where is not None and keep_at > 0:
            text = handle.read()
            if "\r" in text:  # lines end as the reader ends them: \n, \r\n or \r
                lines = io.StringIO(text, newline="")
            else:
                near = among_at - keep_at if among is not None and among_at > 0 else 0
                pattern = _candidate_pattern(keep_value, among_values, near)
                lines = _lines_matching(text, pattern)
        for line in lines:
            line = line.rstrip("\r\n")
            if not line:
                continue
            row = line.split("\t")
            if where is not None and (
                len(row) <= keep_at or row[keep_at] != keep_value
            ):
                continue
            if among is not None and (
                len(row) <= among_at or row[among_at] not in among_values
            ):
                continue
            if len(row) < width or absent:
                cells = tuple(
                    row[i] if i is not None and i < len(row) else None for i in at
                )
            else:
                cells = tuple([row[i] for i in pick])
            if not raw and ("\\" in line or "'" in line):
                cells = tuple(map(_decoded, cells, columns))
            yield cells


def iter_tsv_blocks(
    path: str | Path, cells: Collection[str] | None = None, *, size: int = 1 << 23
) -> Iterator[str]:
    """The text of a TSV written by :func:`write_tsv` in blocks of whole lines:
    its header line first, then blocks of about *size* characters.

    With *cells*, a block keeps only the lines that hold one of *cells* as a
    cell after the first (as written), found by one regular expression over the
    block: the candidates for a reader that then keeps the rows whose given
    column holds one of them (e.g. the few metrics an analysis reads of the
    1.9 million rows of ``scores/items.tsv``), without splitting the other lines.
    A block without such lines is skipped.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "t.tsv"
    ...     write_tsv([{"a": "x", "b": "se"}, {"a": "se", "b": "dice"},
    ...                {"a": "y", "b": "dice"}], ["a", "b"], path)
    ...     blocks = list(iter_tsv_blocks(path, {"se"}))
    >>> blocks
    ['a\\tb\\n', 'x\\tse\\n']
    """
    pattern = None
    if cells is not None:
        either = "|".join(map(re.escape, sorted(cells)))
        pattern = re.compile(f"\\t(?:{either})(?=[\\t\\r\\n]|\\Z)")
    with open(path, encoding="utf-8", newline="") as handle:
        yield handle.readline()
        while text := handle.read(size):
            if not text.endswith("\n"):
                text += handle.readline()  # to the end of its last line
            if pattern is not None:
                text = "".join(_lines_matching(text, pattern))
            if text:
                yield text


def _candidate_pattern(
    value: str, among: Collection[str], near: int
) -> re.Pattern[str]:
    """What a line of a row kept by :func:`iter_tsv_columns` holds: *value* as a
    cell after the first; if *near* is -1 or 1, one of *among* as the cell just
    before or after it."""
    cell = re.escape(value)
    if near in (-1, 1) and among:
        either = "|".join(map(re.escape, sorted(among)))
        first, second = (either, cell) if near < 0 else (cell, either)
        return re.compile(f"\\t(?:{first})\\t(?:{second})(?=[\\t\\n]|\\Z)")
    return re.compile(f"\\t(?:{cell})(?=[\\t\\n]|\\Z)")


def _lines_matching(text: str, pattern: re.Pattern[str]) -> Iterator[str]:
    """The lines of *text* (ended by ``\\n``) in which *pattern* occurs, each
    once and in order, found without splitting the others."""
    end = 0
    for match in pattern.finditer(text):
        start = match.start()
        if start < end:  # another match in a line already given
            continue
        begin = text.rfind("\n", 0, start) + 1
        end = text.find("\n", match.end())
        end = len(text) if end < 0 else end + 1
        yield text[begin:end]


def _decoded(cell: str | None, column: str) -> str | None:
    """*cell* as :func:`iter_tsv` gives it (decoded where it needs to be)."""
    if cell and ("\\" in cell or (cell[0] == "'" and column in FREE_TEXT_COLUMNS)):
        return decode_cell(cell, column)
    return cell


def parse_tsv(text: str) -> list[dict[str, str]]:
    """Read TSV text written by :func:`format_tsv` (e.g. from an archive).

    >>> parse_tsv(format_tsv([{"detail": "=1\\u2028x", "n": 2}], ["detail", "n"]))
    [{'detail': '=1\\u2028x', 'n': '2'}]
    """
    return list(_decoded_rows(io.StringIO(text, newline="")))


def _decoded_rows(lines: Iterable[str]) -> Iterator[dict[str, str]]:
    """The rows of TSV *lines* as ``csv.DictReader`` gives them (tab-separated,
    no quoting), decoded; twice as fast as the reader itself.

    write_tsv escapes tabs and line breaks inside cells, so without quoting a
    line is a row and its cells are the line split at tabs. As DictReader: the
    first line names the columns, blank lines are skipped, a short line's missing
    cells are None and a long line's extra cells are a list under the key None.
    """
    names: list[str] | None = None
    width = 0
    for line in lines:
        line = line.rstrip("\r\n")
        if names is None:
            names = line.split("\t") if line else []
            width = len(names)
            continue
        if not line:
            continue
        cells = line.split("\t")
        if "\\" in line or "'" in line:  # only such a line has a cell to decode
            cells[:width] = map(_decoded, cells[:width], names)
        row: dict[Any, Any] = dict(zip(names, cells, strict=False))  # see below
        if len(cells) < width:
            row.update(dict.fromkeys(names[len(cells) :]))
        elif len(cells) > width:
            row[None] = cells[width:]  # as written, as DictReader leaves them
        yield row


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value


def write_json(data: Any, path: str | Path) -> None:
    """Write *data* as deterministic JSON (sorted keys, NaN as null)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(_clean(data), sort_keys=True, indent=2, ensure_ascii=False)
    Path(path).write_text(text + "\n", encoding="utf-8")


def read_json(path: str | Path) -> Any:
    """Read a JSON file written by :func:`write_json`."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def write_json_lines(values: Iterable[Any], path: str | Path) -> None:
    """Write *values* as JSON Lines: one compact JSON value a line, sorted keys,
    NaN as null (one file that stands for many :func:`write_json` files)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        for value in values:
            text = json.dumps(
                _clean(value), sort_keys=True, ensure_ascii=False, separators=(",", ":")
            )
            handle.write(text + "\n")


def iter_json_records(paths: Iterable[str | Path]) -> Iterator[Any]:
    """The JSON values of *paths*, in order: a ``.jsonl`` file (written by
    :func:`write_json_lines`) gives one a line, any other file its one value.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> write_json({"team": "a"}, folder / "a.json")
    >>> write_json_lines([{"team": "b"}, {"team": "c"}], folder / "all.jsonl")
    >>> paths = [folder / "a.json", folder / "all.jsonl"]
    >>> [record["team"] for record in iter_json_records(paths)]
    ['a', 'b', 'c']
    """
    for path in paths:
        if Path(path).suffix != ".jsonl":
            yield read_json(path)
            continue
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    yield json.loads(line)

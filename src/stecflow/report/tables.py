"""A small table model for the report, with CSV and LaTeX (booktabs) renderings.

A :class:`Table` is what the HTML template draws and what the download links
carry: the CSV holds the table's cells split into plain columns (a confidence
interval becomes two columns), the LaTeX is a ``booktabs`` ``table`` environment
an organiser can paste into an overview paper. Both are deterministic text and
reach the browser as ``data:`` URIs, so downloading needs no network and no script.
"""

from __future__ import annotations

import bisect
import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from urllib.parse import quote

from stecflow.core.io import FREE_TEXT_COLUMNS, neutralise_formula
from stecflow.report.formatting import DASH
from stecflow.report.latex import latex_escape, latex_needs

__all__ = [
    "BEST_NOTE",
    "RANK_COLUMN",
    "Cell",
    "Column",
    "Row",
    "Table",
    "competition_ranks",
    "data_uri",
    "number",
    "rank_cells",
]

#: The note of a table whose best values are marked.
BEST_NOTE = (
    "Bold: the best value of its column among the ranked systems (ties all bold);"
    " the CSV's best column names those columns."
)

#: Row classes of rows that are not in the ranking (human references, late or
#: superseded submissions): their values are never marked best.
UNRANKED_CLASSES = frozenset({"reference", "late", "superseded"})


def number(text: str) -> float | None:
    """The number a cell's text shows, or None (dashes, words, empty cells).

    Accepts the typographic minus, a ``%`` and a trailing mark (``*``, ``†``).

    Examples
    --------
    >>> number("6.41"), number("−0.37"), number("64.5 %"), number("—"), number("")
    (6.41, -0.37, 64.5, None, None)
    >>> number("IS-fbs"), number("nan"), number("Infinity"), number("1e3")
    (None, None, None, 1000.0)
    """
    cleaned = text.replace("\u2212", "-").replace("%", "").strip().rstrip("*†‡§ ")
    # a word (a system's name) is no number: only "nan" and "inf" would parse,
    # and they are refused below (a raised ValueError costs more than this test)
    if cleaned[:1].isalpha() and cleaned[:1] not in "nNiI":
        return None
    try:
        value = float(cleaned)
    except ValueError:
        return None
    return value if value == value and abs(value) != float("inf") else None


def competition_ranks(
    values: Sequence[float | None], higher_is_better: bool
) -> list[int | None]:
    """Standard competition ranks ("1, 2, 2, 4") of *values*; None stays unranked.

    Equal values share the best rank of their tie; the next value's rank skips
    as many places as the tie held.

    Examples
    --------
    >>> competition_ranks([6.4, 5.0, 5.0, 4.1, None], True)
    [1, 2, 2, 4, None]
    >>> competition_ranks([0.3, 0.1, 0.3], False)
    [2, 1, 2]
    """
    ordered = sorted(v for v in values if v is not None)
    n = len(ordered)
    ranks: list[int | None] = []
    for value in values:  # the values better than this one, by bisection
        if value is None:
            ranks.append(None)
        elif higher_is_better:
            ranks.append(n - bisect.bisect_right(ordered, value) + 1)
        else:
            ranks.append(bisect.bisect_left(ordered, value) + 1)
    return ranks


def rank_cells(ranks: Sequence[int | None]) -> list[Cell]:
    """The cells of a rank column (a shared rank says so in its title); a dash
    for a row not in the ranking.

    Examples
    --------
    >>> [c.text for c in rank_cells([1, 2, 2, None])]
    ['1', '2', '2', '–']
    >>> rank_cells([1, 2, 2])[1].title
    'rank 2, shared'
    """
    shared = {r for r in ranks if r is not None and list(ranks).count(r) > 1}
    cells = []
    for rank in ranks:
        if rank is None:
            cells.append(
                Cell(DASH, csv=("",), title="not in the ranking", classes="missing")
            )
        else:
            tied = rank in shared
            cells.append(
                Cell(
                    str(rank),
                    csv=(str(rank),),
                    title=f"rank {rank}, shared" if tied else "",
                    value=float(rank),
                )
            )
    return cells


#: Characters left as they are in ``data:`` URIs (RFC 3986 sub-delimiters and
#: path characters); everything else is percent-encoded.
_URI_SAFE = "!$'()*+,;=:@/?"


def data_uri(text: str, media_type: str) -> str:
    """Percent-encode *text* as a UTF-8 ``data:`` URI.

    Examples
    --------
    >>> data_uri("a,b\\n1 %,#2\\n", "text/csv")
    'data:text/csv;charset=utf-8,a,b%0A1%20%25,%232%0A'
    """
    return f"data:{media_type};charset=utf-8,{quote(text, safe=_URI_SAFE)}"


@dataclass(frozen=True)
class Column:
    """One column: header text, an optional spanning group and its CSV names.

    Attributes
    ----------
    key : str
        CSV column name (when ``csv`` is not given).
    label : str
        Header text.
    group : str
        Text of the spanning header above consecutive columns with equal groups.
    align : {"l", "r", "c"}
        Alignment (also the LaTeX column type).
    csv : tuple of str, optional
        The CSV columns this column becomes (e.g. value, CI low, CI high).
    better : {"", "higher", "lower"}
        A score column: its best value among the ranked rows is marked, and
        sorting it starts with the best.
    groups : str
        The column's cells carry significance groups (:attr:`Cell.group`): the
        name of the test that made them; the CSV gets a ``<key>_group`` column.
    """

    key: str
    label: str
    group: str = ""
    align: str = "r"
    csv: tuple[str, ...] | None = None
    better: str = ""
    groups: str = ""

    @property
    def base_csv_names(self) -> tuple[str, ...]:
        """The CSV names of the cells' values (without the group column)."""
        return self.csv if self.csv is not None else (self.key,)

    @property
    def csv_names(self) -> tuple[str, ...]:
        """The CSV header names of this column."""
        extra = (f"{self.key}_group",) if self.groups else ()
        return self.base_csv_names + extra

    @property
    def first_order(self) -> str:
        """The order of the first sort by this column: best first, ranks up."""
        if self.better == "higher":
            return "descending"
        return "ascending"


@dataclass(frozen=True)
class Cell:
    """One cell: the text shown, an optional second line and its CSV values.

    Attributes
    ----------
    text : str
        What the cell shows (escaped by the template).
    detail : str
        A second, smaller line (e.g. a confidence interval).
    csv : tuple of str, optional
        Values for the column's CSV names (default: ``(text,)``).
    title : str
        Tooltip (e.g. why a score is missing).
    classes : str
        CSS classes.
    href : str
        Makes the text a link (relative URLs only).
    value : float, optional
        The number the cell stands for (sorting, best values); default: the
        number its text shows (:func:`number`).
    group : str
        Significance group (letters or cluster number), shown after the value.
    """

    text: str = ""
    detail: str = ""
    csv: tuple[str, ...] | None = None
    title: str = ""
    classes: str = ""
    href: str = ""
    value: float | None = None
    group: str = ""

    # cached: the page, the best values, the CSV and the LaTeX all ask
    @cached_property
    def number(self) -> float | None:
        """The cell's number: :attr:`value`, else what its text shows."""
        return self.value if self.value is not None else number(self.text)

    @cached_property
    def sort_value(self) -> str:
        """The ``data-value`` attribute of the cell (empty: not a number)."""
        value = self.number
        return "" if value is None else repr(value)

    def csv_values(self, width: int) -> tuple[str, ...]:
        """The cell's CSV values, padded to *width*."""
        values = self.csv if self.csv is not None else (self.text,)
        return tuple(values) + ("",) * (width - len(values))


@dataclass(frozen=True)
class Row:
    """A row of cells, or (with ``heading``) a spanning divider row.

    ``ranked``: the row competes for the best values; by default every row
    but dividers and rows of the :data:`UNRANKED_CLASSES`.
    """

    cells: tuple[Cell, ...] = ()
    classes: str = ""
    heading: str = ""
    ranked: bool | None = None

    @property
    def in_ranking(self) -> bool:
        """True if the row's values may be marked best."""
        if self.heading:
            return False
        if self.ranked is not None:
            return self.ranked
        return not UNRANKED_CLASSES & set(self.classes.split())


@dataclass
class Table:
    """A captioned table with CSV and LaTeX renderings.

    Attributes
    ----------
    id : str
        HTML id and download file stem (letters, digits, ``-``).
    caption : str
        Caption text (after "Table N:").
    columns : list of Column
    rows : list of Row
    notes : list of str
        Footnotes shown under the table (and as LaTeX footnote lines).
    latex_detail : bool
        Put each cell's second line into the LaTeX cell too (``6.41 [5.90, 6.95]``).
    detail_note : str
        What the second lines are (shown first among the notes; in the LaTeX
        caption only with ``latex_detail``).
    number : int
        Table number in the report (set when the report is assembled).
    file_prefix : str
        Prefix of the download file names (the campaign ID).
    """

    id: str
    caption: str
    columns: list[Column]
    rows: list[Row]
    notes: list[str] = field(default_factory=list)
    latex_detail: bool = False
    detail_note: str = ""
    number: int = 0
    file_prefix: str = ""
    _best: frozenset[tuple[int, int]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    # -- leaderboard ------------------------------------------------------------

    @property
    def scored_columns(self) -> list[int]:
        """Indices of the columns whose best values are marked."""
        return [
            n for n, c in enumerate(self.columns) if c.better in ("higher", "lower")
        ]

    def best_cells(self) -> frozenset[tuple[int, int]]:
        """``(row, column)`` indices of the best values, per score column.

        The best is the highest (``better="higher"``) or lowest value among the
        ranked rows (:attr:`Row.in_ranking`); every tied cell is marked, and a
        column with one value or none, or all values equal, marks nothing.
        """
        marked: set[tuple[int, int]] = set()
        for col in self.scored_columns:
            values = {
                r: row.cells[col].number
                for r, row in enumerate(self.rows)
                if row.in_ranking and row.cells[col].number is not None
            }
            if len(values) < 2:
                continue
            found = [v for v in values.values() if v is not None]
            if min(found) == max(found):
                continue  # all equal: none is better
            best = max(found) if self.columns[col].better == "higher" else min(found)
            marked |= {(r, col) for r, v in values.items() if v == best}
        return frozenset(marked)

    def is_best(self, row: int, column: int) -> bool:
        """True if the cell at *row*, *column* holds its column's best value."""
        if self._best is None:
            self._best = self.best_cells()
        return (row, column) in self._best

    def html_cells(self, row: int) -> list[tuple[Cell, str, bool]]:
        """``(cell, its class attribute, best)`` of each cell of row *row*,
        for the page (the column's alignment, ``rank``, the cell's classes)."""
        if self._best is None:
            self._best = self.best_cells()
        out = []
        for n, (cell, column) in enumerate(
            zip(self.rows[row].cells, self.columns, strict=False)
        ):
            best = (row, n) in self._best
            classes = f"a-{column.align}"
            if column.key == "rank":
                classes += " rank"
            if cell.classes:
                classes += f" {cell.classes}"
            if best:
                classes += " best"
            out.append((cell, classes, best))
        return out

    @property
    def marks_best(self) -> bool:
        """True if the table marks best values (it has score columns)."""
        return bool(self.scored_columns)

    @property
    def sortable(self) -> bool:
        """True if the table has rows to sort (the page's script sorts it)."""
        return sum(1 for row in self.rows if not row.heading) > 1

    def bodies(self) -> list[list[tuple[int, Row]]]:
        """The rows as ``tbody`` sections: a divider row opens a new one.

        Sorting in the page keeps every row in its section (late submissions
        stay under their divider).
        """
        bodies: list[list[tuple[int, Row]]] = [[]]
        for n, row in enumerate(self.rows):
            if row.heading and bodies[-1]:
                bodies.append([])
            bodies[-1].append((n, row))
        return bodies

    def group_tests(self) -> list[str]:
        """The tests that made the table's significance groups, in column order."""
        found: list[str] = []
        for column in self.columns:
            if column.groups and column.groups not in found:
                found.append(column.groups)
        return found

    # -- header structure -----------------------------------------------------

    @property
    def html_notes(self) -> list[str]:
        """The notes under the table in the page."""
        return (
            ([self.detail_note] if self.detail_note else [])
            + list(self.notes)
            + self._best_note()
        )

    def _best_note(self) -> list[str]:
        if not self.marks_best or not self.best_cells():
            return []
        return [BEST_NOTE]

    @property
    def latex_notes(self) -> list[str]:
        """The notes in the LaTeX caption, each ending with punctuation."""
        notes = list(self.notes) + self._best_note()
        if self.detail_note and self.latex_detail:
            notes.insert(0, self.detail_note)
        return [n if n.endswith((".", "!", "?", ")")) else n + "." for n in notes]

    @property
    def has_groups(self) -> bool:
        """True if any column has a group header."""
        return any(c.group for c in self.columns)

    def group_spans(self) -> list[tuple[str, int]]:
        """Consecutive columns with equal groups, as ``(group, span)`` pairs."""
        spans: list[tuple[str, int]] = []
        for column in self.columns:
            if spans and spans[-1][0] == column.group and column.group:
                spans[-1] = (column.group, spans[-1][1] + 1)
            else:
                spans.append((column.group, 1))
        return spans

    # -- CSV ------------------------------------------------------------------

    def to_csv(self) -> str:
        """The table as CSV: one header line, divider rows left out, ``\\n`` ends.

        Cells of the CSV columns named in :data:`stecflow.core.io.FREE_TEXT_COLUMNS`
        (text from teams or participants) that a spreadsheet would run as a
        formula get a leading ``'`` (:func:`stecflow.core.io.neutralise_formula`);
        other columns (scores such as ``-0.37``, ``+LOC`` subsets) are left alone.

        Examples
        --------
        >>> t = Table("t", "c", [Column("system", "System", align="l"),
        ...     Column("se", "SE", csv=("se", "se_ci_low", "se_ci_high"))],
        ...     [Row((Cell("GRAPH"), Cell("6.41", "[5.90, 6.95]",
        ...                              csv=("6.41", "5.90", "6.95"))))])
        >>> print(t.to_csv(), end="")
        system,se,se_ci_low,se_ci_high
        GRAPH,6.41,5.90,6.95
        >>> t = Table("p", "c", [Column("description", "Description", align="l"),
        ...     Column("value", "Value")], [Row((Cell("=1+1"), Cell("-0.37")))])
        >>> print(t.to_csv(), end="")
        description,value
        '=1+1,-0.37
        """
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        names = [name for c in self.columns for name in c.csv_names]
        if self.marks_best:
            names.append("best")
        free = [name in FREE_TEXT_COLUMNS for name in names]
        writer.writerow(names)
        for r, row in enumerate(self.rows):
            if row.heading:
                continue
            values: list[str] = []
            for column, cell in zip(self.columns, row.cells, strict=True):
                values.extend(cell.csv_values(len(column.base_csv_names)))
                if column.groups:
                    values.append(cell.group)
            if self.marks_best:
                values.append(
                    " ".join(
                        self.columns[c].base_csv_names[0]
                        for c in self.scored_columns
                        if self.is_best(r, c)
                    )
                )
            writer.writerow(
                [
                    neutralise_formula(v) if f and isinstance(v, str) else v
                    for v, f in zip(values, free, strict=True)
                ]
            )
        return out.getvalue()

    # -- LaTeX ----------------------------------------------------------------

    def _latex_cell(self, cell: Cell, best: bool = False) -> str:
        text = latex_escape(cell.text)
        if best:
            text = rf"\textbf{{{text}}}"
        if cell.group:
            text += rf"$^{{\mathrm{{{latex_escape(cell.group)}}}}}$"
        if self.latex_detail and cell.detail:
            text += r" {\footnotesize " + latex_escape(cell.detail) + "}"
        return text

    def to_latex(self) -> str:
        r"""The table as a LaTeX ``table`` with ``booktabs`` rules.

        Examples
        --------
        >>> t = Table("t", "Scores", [Column("s", "System", align="l"),
        ...     Column("se", "SE", group="All")], [Row((Cell("A_1"), Cell("6.41")))])
        >>> print(t.to_latex(), end="")  # doctest: +NORMALIZE_WHITESPACE
        % needs \usepackage{booktabs}
        \begin{table}[ht]
        \centering
        \begin{tabular}{lr}
        \toprule
         & All \\
        \cmidrule(lr){2-2}
        System & SE \\
        \midrule
        A\_1 & 6.41 \\
        \bottomrule
        \end{tabular}
        \caption{Scores}
        \label{tab:t}
        \end{table}
        """
        n = len(self.columns)
        lines = [
            r"% needs \usepackage{booktabs}",
            r"\begin{table}[ht]",
            r"\centering",
            r"\begin{tabular}{" + "".join(c.align for c in self.columns) + "}",
            r"\toprule",
        ]
        if self.has_groups:
            cells, rules, start = [], [], 1
            for group, span in self.group_spans():
                if group and span > 1:
                    cells.append(
                        rf"\multicolumn{{{span}}}{{c}}{{{latex_escape(group)}}}"
                    )
                else:
                    cells.append(latex_escape(group))
                if group:
                    rules.append(rf"\cmidrule(lr){{{start}-{start + span - 1}}}")
                start += span
            lines.append(" & ".join(cells) + r" \\")
            lines.append(" ".join(rules))
        lines.append(" & ".join(latex_escape(c.label) for c in self.columns) + r" \\")
        lines.append(r"\midrule")
        for r, row in enumerate(self.rows):
            if row.heading:
                lines.append(r"\midrule")
                lines.append(
                    rf"\multicolumn{{{n}}}{{l}}{{\emph{{{latex_escape(row.heading)}}}}}"
                    r" \\"
                )
                continue
            lines.append(
                " & ".join(
                    self._latex_cell(cell, self.is_best(r, c))
                    for c, cell in enumerate(row.cells)
                )
                + r" \\"
            )
        lines.append(r"\bottomrule")
        lines.append(r"\end{tabular}")
        caption = latex_escape(self.caption)
        if self.latex_notes:
            caption += " " + " ".join(latex_escape(n) for n in self.latex_notes)
        lines.append(rf"\caption{{{caption}}}")
        lines.append(rf"\label{{tab:{self.id}}}")
        lines.append(r"\end{table}")
        # what the table needs beyond booktabs (T1, xelatex), after its first line
        lines[1:1] = ["% " + need for need in latex_needs("\n".join(lines))]
        return "\n".join(lines) + "\n"

    # -- plain text -----------------------------------------------------------

    def to_text(self) -> str:
        """The table as aligned plain text for a terminal, then its notes.

        A cell's second line follows its text after a space, as in the LaTeX
        with ``latex_detail``; group headers join the column headers.

        Examples
        --------
        >>> t = Table("t", "c", [Column("s", "System", align="l"),
        ...     Column("se", "SE", group="All")],
        ...     [Row((Cell("GRAPH"), Cell("6.41", "[5.90, 6.95]")))], ["A note."])
        >>> print(t.to_text())
        System             All SE
        GRAPH   6.41 [5.90, 6.95]
        <BLANKLINE>
        A note.
        """
        headers = [
            f"{c.group} {c.label}".strip() if c.group else c.label for c in self.columns
        ]
        lines: list[list[str] | str] = [headers]
        for row in self.rows:
            if row.heading:
                lines.append(row.heading)
                continue
            lines.append(
                [
                    " ".join(t for t in (c.text, c.group, c.detail) if t)
                    for c in row.cells
                ]
            )
        widths = [
            max(len(line[n]) for line in lines if isinstance(line, list))
            for n in range(len(self.columns))
        ]
        out = []
        for line in lines:
            if isinstance(line, str):
                out.append(line)
                continue
            cells = [
                text.ljust(width) if column.align == "l" else text.rjust(width)
                for text, width, column in zip(line, widths, self.columns, strict=True)
            ]
            out.append("  ".join(cells).rstrip())
        if self.html_notes:
            out += ["", *self.html_notes]
        return "\n".join(out)

    # -- downloads ------------------------------------------------------------

    @property
    def csv_name(self) -> str:
        """File name of the CSV download."""
        return f"{self.file_prefix}{self.id}.csv"

    @property
    def latex_name(self) -> str:
        """File name of the LaTeX download."""
        return f"{self.file_prefix}{self.id}.tex"

    @property
    def csv_uri(self) -> str:
        """The CSV as a ``data:`` URI."""
        return data_uri(self.to_csv(), "text/csv")

    @property
    def latex_uri(self) -> str:
        """The LaTeX as a ``data:`` URI."""
        return data_uri(self.to_latex(), "application/x-tex")


#: A rank column (:func:`rank_cells`) whose value the CSV carries elsewhere: in
#: the system column's ``rank``.
RANK_COLUMN = Column("rank", "Rank", csv=())

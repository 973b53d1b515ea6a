"""A small table model for the report, with CSV and LaTeX (booktabs) renderings.

A :class:`Table` is what the HTML template draws and what the download links
carry: the CSV holds the table's cells split into plain columns (a confidence
interval becomes two columns), the LaTeX is a ``booktabs`` ``table`` environment
an organiser can paste into an overview paper. Both are deterministic text and
reach the browser as ``data:`` URIs, so downloading needs no network and no script.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from urllib.parse import quote

from stecflow.core.io import FREE_TEXT_COLUMNS, neutralise_formula
from stecflow.report.formatting import latex_escape

__all__ = ["Cell", "Column", "Row", "Table", "data_uri"]


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
    """

    key: str
    label: str
    group: str = ""
    align: str = "r"
    csv: tuple[str, ...] | None = None

    @property
    def csv_names(self) -> tuple[str, ...]:
        """The CSV header names of this column."""
        return self.csv if self.csv is not None else (self.key,)


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
    """

    text: str = ""
    detail: str = ""
    csv: tuple[str, ...] | None = None
    title: str = ""
    classes: str = ""
    href: str = ""

    def csv_values(self, width: int) -> tuple[str, ...]:
        """The cell's CSV values, padded to *width*."""
        values = self.csv if self.csv is not None else (self.text,)
        return tuple(values) + ("",) * (width - len(values))


@dataclass(frozen=True)
class Row:
    """A row of cells, or (with ``heading``) a spanning divider row."""

    cells: tuple[Cell, ...] = ()
    classes: str = ""
    heading: str = ""


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

    # -- header structure -----------------------------------------------------

    @property
    def html_notes(self) -> list[str]:
        """The notes under the table in the page."""
        return ([self.detail_note] if self.detail_note else []) + list(self.notes)

    @property
    def latex_notes(self) -> list[str]:
        """The notes in the LaTeX caption, each ending with punctuation."""
        notes = list(self.notes)
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
        free = [name in FREE_TEXT_COLUMNS for name in names]
        writer.writerow(names)
        for row in self.rows:
            if row.heading:
                continue
            values: list[str] = []
            for column, cell in zip(self.columns, row.cells, strict=True):
                values.extend(cell.csv_values(len(column.csv_names)))
            writer.writerow(
                [
                    neutralise_formula(v) if f and isinstance(v, str) else v
                    for v, f in zip(values, free, strict=True)
                ]
            )
        return out.getvalue()

    # -- LaTeX ----------------------------------------------------------------

    def _latex_cell(self, cell: Cell) -> str:
        text = latex_escape(cell.text)
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
        for row in self.rows:
            if row.heading:
                lines.append(r"\midrule")
                lines.append(
                    rf"\multicolumn{{{n}}}{{l}}{{\emph{{{latex_escape(row.heading)}}}}}"
                    r" \\"
                )
                continue
            lines.append(" & ".join(self._latex_cell(c) for c in row.cells) + r" \\")
        lines.append(r"\bottomrule")
        lines.append(r"\end{tabular}")
        caption = latex_escape(self.caption)
        if self.latex_notes:
            caption += " " + " ".join(latex_escape(n) for n in self.latex_notes)
        lines.append(rf"\caption{{{caption}}}")
        lines.append(rf"\label{{tab:{self.id}}}")
        lines.append(r"\end{table}")
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
            lines.append([f"{c.text} {c.detail}".rstrip() for c in row.cells])
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

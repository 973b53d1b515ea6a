"""Write statistical results the way the seed papers do (APA-like strings).

Seed 001 (TUNA-REG'09) writes "F(7, 880) = 7.291, p < .001" and "chi2_7 = 44.98;
p < .001"; seed 003 writes "F(14, 2219) = 2.58, p < .01" and marks correlations with
"*" (p < .05) and "**" (p < .01). The functions here turn result rows of
:mod:`stecflow.stats` into such strings and tables; they only format, never
compute. Conventions (APA 7th ed., section 6.36): no leading zero for p and r;
``p < .001`` below .001; two decimals by default (``digits``); integral degrees of
freedom without decimals. A row that is not computable formats as
``"not computable (<reason>)"``.

The analyses write these strings into their records and the report shows them;
:mod:`stecflow.stats` itself knows nothing of presentation.

May import: :mod:`stecflow.core`, :mod:`stecflow.stats`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas loads where a table is made: the report needs none
    import pandas as pd

__all__ = [
    "correlation_table",
    "format_chi2",
    "format_f",
    "format_p",
    "format_r",
    "format_result",
    "format_t",
    "letter_columns",
    "letter_table",
]

_TEST_NAMES = {
    "wilks": "Wilks' Λ",
    "pillai": "Pillai's V",
    "hotelling_lawley": "Hotelling-Lawley T",
    "roy": "Roy's Θ",
}


def _num(value: float, digits: int) -> str:
    text = f"{value:.{digits}f}"
    return "0" + text[2:] if text.startswith("-0") and float(text) == 0 else text


def _no_zero(value: float, digits: int) -> str:
    """Format without the leading zero (for values bounded by 1)."""
    text = _num(value, digits)
    if text.startswith("0."):
        return text[1:]
    if text.startswith("-0."):
        return "-" + text[2:]
    return text


def _df(value: float) -> str:
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.2f}"


def format_p(p: float, *, digits: int = 3) -> str:
    """Format a p-value APA style.

    Examples
    --------
    >>> format_p(0.0004), format_p(0.02261), format_p(0.46455), format_p(1.0)
    ('p < .001', 'p = .023', 'p = .465', 'p = 1.000')
    """
    if p is None or not math.isfinite(p):
        return "p = n/a"
    threshold = 10.0**-digits
    if p < threshold:
        return f"p < {_no_zero(threshold, digits)}"
    return f"p = {_no_zero(p, digits)}"


def format_f(f: float, df1: float, df2: float, p: float, *, digits: int = 2) -> str:
    """Format an F test: ``F(df1, df2) = value, p``.

    Examples
    --------
    >>> format_f(12.3401, 5, 1066, 1e-9)
    'F(5, 1066) = 12.34, p < .001'
    """
    return f"F({_df(df1)}, {_df(df2)}) = {_num(f, digits)}, {format_p(p)}"


def format_chi2(chi2: float, df: float, p: float, *, digits: int = 2) -> str:
    """Format a chi-square (e.g. Kruskal-Wallis H): ``χ²(df) = value, p``.

    Examples
    --------
    >>> format_chi2(31.2, 7, 0.00006)
    'χ²(7) = 31.20, p < .001'
    """
    return f"χ²({_df(df)}) = {_num(chi2, digits)}, {format_p(p)}"


def format_t(t: float, df: float, p: float, *, digits: int = 2) -> str:
    """Format a t test: ``t(df) = value, p``.

    Examples
    --------
    >>> format_t(-4.780914, 5, 0.004967)
    't(5) = -4.78, p = .005'
    """
    return f"t({_df(df)}) = {_num(t, digits)}, {format_p(p)}"


def format_r(r: float, df: float, p: float, *, digits: int = 2) -> str:
    """Format a correlation: ``r(df) = value, p`` (no leading zero).

    Examples
    --------
    >>> format_r(-0.867845, 3, 0.056514)
    'r(3) = -.87, p = .057'
    """
    return f"r({_df(df)}) = {_no_zero(r, digits)}, {format_p(p)}"


def format_result(row: Mapping[str, Any] | pd.Series, *, digits: int = 2) -> str:
    """Format one result row of any :mod:`stecflow.stats` function.

    The kind of result is recognised from the row's columns: MANOVA (``test`` and
    ``value``), ANOVA (``f`` and ``df_resid``), Kruskal-Wallis (``h``), t test
    (``t``), correlation (``r``; ``ρ`` for Spearman), Tukey (``q``), Mann-Whitney
    (``u``), mixed-model fixed effect (``estimate`` with ``t`` and its
    Satterthwaite ``df``, or ``z`` from older results), bootstrap interval (``estimate``
    with ``ci_low``/``ci_high``). Rows without a test of their own (the ANOVA
    ``Residual`` row, variance components) give ``""``.

    Parameters
    ----------
    row : mapping or pandas.Series
        One row, e.g. ``frame.iloc[0]``.
    digits : int
        Decimals of the statistic.

    Returns
    -------
    str
        The formatted result, or ``"not computable (<reason>)"``.

    Raises
    ------
    StatsInputError
        If the row is not a recognised result.

    Examples
    --------
    >>> format_result({"source": "system", "f": 7.291, "df": 7, "df_resid": 880,
    ...                "p_val": 2e-8, "computable": True, "reason": ""}, digits=3)
    'F(7, 880) = 7.291, p < .001'
    >>> format_result({"h": 44.98, "df": 7, "p_val": 1e-7, "computable": True})
    'χ²(7) = 44.98, p < .001'
    >>> format_result({"computable": False, "reason": "fewer than 2 groups with data"})
    'not computable (fewer than 2 groups with data)'
    """
    get = row.get
    if not bool(get("computable", True)):
        return f"not computable ({get('reason', '') or 'no reason given'})"
    if get("source") == "Residual" or get("effect") == "random":
        return ""
    if "test" in row and "value" in row:
        name = _TEST_NAMES.get(str(row["test"]), str(row["test"]))
        return (
            f"{name} = {_num(row['value'], digits)}, "
            f"{format_f(row['f'], row['df1'], row['df2'], row['p_val'], digits=digits)}"
        )
    if "f" in row and "df_resid" in row:
        return format_f(
            row["f"], row["df"], row["df_resid"], row["p_val"], digits=digits
        )
    if "h" in row:
        return format_chi2(row["h"], row["df"], row["p_val"], digits=digits)
    if "r" in row:  # before t: correlation rows carry their t as well
        text = format_r(row["r"], row["df"], row["p_val"], digits=digits)
        return "ρ" + text[1:] if get("method") == "spearman" else text
    if "t" in row and "effect" in row and "estimate" in row:  # mixed: fixed effect
        test = format_t(row["t"], row["df"], row["p_val"], digits=digits)
        return f"b = {_num(row['estimate'], digits)}, {test}"
    if "t" in row:
        return format_t(row["t"], row["df"], row["p_val"], digits=digits)
    if "q" in row and "p_adj" in row:
        return f"q = {_num(row['q'], digits)}, {format_p(row['p_adj'])}"
    if "u" in row:
        return f"U = {_num(row['u'], digits)}, {format_p(row['p_val'])}"
    if "z" in row:
        return (
            f"b = {_num(row['estimate'], digits)}, z = {_num(row['z'], digits)}, "
            + (format_p(row["p_val"]))
        )
    if "estimate" in row and "ci_low" in row and "confidence" in row:
        level = f"{100 * float(row['confidence']):g}%"
        return (
            f"{_num(row['estimate'], digits)}, {level} CI "
            f"[{_num(row['ci_low'], digits)}, {_num(row['ci_high'], digits)}]"
        )
    from stecflow.stats._common import StatsInputError

    raise StatsInputError("format_result: not a recognised result row")


def correlation_table(
    corr: pd.DataFrame,
    *,
    measures: Sequence[str] | None = None,
    digits: int = 2,
    marks: bool = True,
) -> pd.DataFrame:
    """Square table of correlations as strings, like Table 10 of seed 001.

    Parameters
    ----------
    corr : pandas.DataFrame
        The result of :func:`stecflow.stats.correlation.pairwise_corr`.
    measures : sequence of str, optional
        Row and column order (default: order of first appearance).
    digits : int
        Decimals of r.
    marks : bool
        Append the significance marks (``*`` p < .05, ``**`` p < .01).

    Returns
    -------
    pandas.DataFrame
        Measures as index and columns; cells like ``"0.95**"``, ``"1"`` on the
        diagonal, ``"n/a"`` where not computable.

    Examples
    --------
    >>> import pandas as pd
    >>> corr = pd.DataFrame({"measure_a": ["x"], "measure_b": ["y"], "r": [-0.8678],
    ...                      "sig": [""], "computable": [True], "reason": [""]})
    >>> correlation_table(corr).values.tolist()
    [['1', '-0.87'], ['-0.87', '1']]
    """
    import pandas as pd

    from stecflow.stats._common import check_columns

    check_columns(
        corr,
        ["measure_a", "measure_b", "r", "sig", "computable"],
        what="correlation_table",
    )
    if measures is None:
        measures = list(dict.fromkeys([*corr["measure_a"], *corr["measure_b"]]))
    cells = correlation_cells(
        corr[["measure_a", "measure_b", "r", "sig", "computable"]].itertuples(
            index=False
        ),
        measures,
        digits=digits,
        marks=marks,
    )
    table = pd.DataFrame("", index=list(measures), columns=list(measures), dtype=object)
    for (a, b), cell in cells.items():
        table.loc[a, b] = cell
    return table


def correlation_cells(
    rows: Iterable[tuple[str, str, float, str, bool]],
    measures: Sequence[str],
    *,
    digits: int = 2,
    marks: bool = True,
) -> dict[tuple[str, str], str]:
    """The cells of :func:`correlation_table`, from plain rows.

    *rows* are ``(measure_a, measure_b, r, sig, computable)``; the result maps
    ``(row measure, column measure)`` to the cell for every pair of *measures*
    that has one: ``"1"`` on the diagonal, the row's value both ways, a later
    row of the same pair winning.

    >>> correlation_cells([("x", "y", 0.9512, "**", True)], ["x", "y"])
    {('x', 'x'): '1', ('y', 'y'): '1', ('x', 'y'): '0.95**', ('y', 'x'): '0.95**'}
    """
    known = set(measures)
    cells = {(m, m): "1" for m in measures}
    for a, b, r, sig, computable in rows:
        if a not in known or b not in known:
            continue
        if bool(computable) and r is not None:
            cell = _num(float(r), digits) + (str(sig) if marks else "")
        else:
            cell = "n/a"
        cells[a, b] = cells[b, a] = cell
    return cells


def letter_table(letters: pd.DataFrame) -> pd.DataFrame:
    """Spread letter strings into one column per letter (seed 001, Tables 7, 9).

    Parameters
    ----------
    letters : pandas.DataFrame
        The result of :func:`stecflow.stats.posthoc.subset_letters`,
        :func:`~stecflow.stats.posthoc.compact_letter_display` or
        :func:`~stecflow.stats.posthoc.tukey_cld` (columns ``group`` and
        ``letters``), in display order.

    Returns
    -------
    pandas.DataFrame
        Index ``group`` (display order), one column per letter (in order of first
        use) holding the letter or ``""``.

    Examples
    --------
    >>> import pandas as pd
    >>> lt = pd.DataFrame({"group": ["GRAPH", "USP", "IS"],
    ...                    "letters": ["A", "AB", "B"]})
    >>> letter_table(lt).values.tolist()
    [['A', ''], ['A', 'B'], ['', 'B']]
    """
    import pandas as pd

    from stecflow.stats._common import check_columns

    check_columns(letters, ["group", "letters"], what="letter_table")
    names, rows = letter_columns(letters["group"], letters["letters"].fillna(""))
    table = pd.DataFrame.from_dict(rows, orient="index", columns=names)
    table.index.name = "group"
    return table


def letter_columns(
    groups: Iterable[Any], letters: Iterable[str]
) -> tuple[list[str], dict[str, list[str]]]:
    """The columns of :func:`letter_table`, from plain sequences: the letters in
    order of first use, and each group's row (the letter or ``""`` per column).

    A letter string is its characters, or its space-separated names when it has
    spaces (``"A10 A11"``).

    >>> letter_columns(["GRAPH", "USP", "IS"], ["A", "AB", "B"])
    (['A', 'B'], {'GRAPH': ['A', ''], 'USP': ['A', 'B'], 'IS': ['', 'B']})
    """
    split = [
        (str(g), s.split(" ") if " " in s else list(s))
        for g, s in zip(groups, letters, strict=True)
    ]
    names = list(dict.fromkeys(x for _, parts in split for x in parts))
    rows = {g: [x if x in parts else "" for x in names] for g, parts in split}
    return names, rows

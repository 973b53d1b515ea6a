"""Number and text formatting for the report: fixed decimals, p-values, LaTeX.

Everything the report prints goes through these helpers, so that the same number
is written the same way in the HTML, the CSV and the LaTeX downloads. Missing or
non-finite numbers print as an en dash (``–``), as in the seed papers' tables.
"""

from __future__ import annotations

import math
import re
from typing import Any

# the LaTeX escaping lives in stecflow.report.latex; kept here for its callers
from stecflow.report.latex import latex_escape

__all__ = [
    "DASH",
    "fixed",
    "latex_escape",
    "no_zero",
    "p_cell",
    "p_text",
    "parse_float",
    "system_anchor",
]

#: What a missing number prints as.
DASH = "–"


def system_anchor(team: str, system: str) -> str:
    """The HTML id of a submission's own section in the report.

    Every table that names a submission links its name to ``#`` plus this id.

    Examples
    --------
    >>> system_anchor("UDel", "NIST-1"), system_anchor("a b", "é/x")
    ('system-UDel--NIST-1', 'system-a-b--x')
    """

    def slug(text: str) -> str:
        return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "-"

    return f"system-{slug(team)}--{slug(system)}"


def parse_float(value: Any) -> float | None:
    """Read a number from a TSV/JSON cell; ``None`` for empty, bad or non-finite.

    Examples
    --------
    >>> parse_float("2.5"), parse_float(""), parse_float(None), parse_float("nan")
    (2.5, None, None, None)
    """
    if value is None or value == "":
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def fixed(value: float | None, digits: int = 2) -> str:
    """Format with *digits* decimals; ``–`` when missing; never ``-0.00``.

    Examples
    --------
    >>> fixed(6.4071), fixed(-0.0001), fixed(None), fixed(12.5, 1)
    ('6.41', '0.00', '–', '12.5')
    """
    if value is None or not math.isfinite(value):
        return DASH
    text = f"{value:.{digits}f}"
    if text.startswith("-") and float(text) == 0:
        text = text[1:]
    return text


def no_zero(value: float | None, digits: int = 3) -> str:
    """Format a number bounded by 1 without the leading zero (APA style).

    Examples
    --------
    >>> no_zero(0.01426), no_zero(-0.5, 2), no_zero(1.0, 2)
    ('.014', '-.50', '1.00')
    """
    text = fixed(value, digits)
    if text.startswith("0."):
        return text[1:]
    if text.startswith("-0."):
        return "-" + text[2:]
    return text


def p_cell(p: float | None, digits: int = 3) -> str:
    """A p-value for a table cell: ``.088``, ``< .001``.

    Examples
    --------
    >>> p_cell(0.0877), p_cell(1e-9), p_cell(None)
    ('.088', '< .001', '–')
    """
    if p is None or not math.isfinite(p):
        return DASH
    threshold = 10.0**-digits
    if p < threshold:
        return f"< {no_zero(threshold, digits)}"
    return no_zero(p, digits)


def p_text(p: float | None, digits: int = 3) -> str:
    """A p-value for running text: ``p = .088``, ``p < .001``.

    Examples
    --------
    >>> p_text(0.0877), p_text(0.00001)
    ('p = .088', 'p < .001')
    """
    cell = p_cell(p, digits)
    if cell == DASH:
        return "p = n/a"
    return f"p {cell}" if cell.startswith("<") else f"p = {cell}"

"""Multiple-comparison corrections.

The Bonferroni correction (Dunn 1961) multiplies each of *m* p-values by *m* and caps
the result at 1; equivalently each test is run at level alpha / m. Seed 003 (Belz &
Gatt 2007) applies it to a MANOVA's tests and follow-ups; REFERENCE.md section 21.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from stecflow.stats._common import (
    StatsInputError,
    fill_column,
    finish_frame,
    not_computable,
    ok,
)

__all__ = ["adjust_p", "bonferroni"]


def adjust_p(
    p_values: Sequence[float] | np.ndarray, method: str = "bonferroni"
) -> np.ndarray:
    """Return Bonferroni-adjusted p-values, skipping NaN entries.

    NaN p-values (tests that were not computable) are left as NaN and do not count
    towards the number of tests *m*.

    Parameters
    ----------
    p_values : sequence of float
        Unadjusted p-values.
    method : {"bonferroni", "none"}
        The correction; ``"none"`` returns the input unchanged.

    Returns
    -------
    numpy.ndarray
        ``min(1, m * p)`` element-wise, NaN where the input is NaN.

    Raises
    ------
    StatsInputError
        For an unknown *method* or a p-value outside [0, 1].

    References
    ----------
    Dunn, O. J. (1961). Multiple comparisons among means. JASA 56(293):52-64.

    Examples
    --------
    >>> adjust_p([0.01, 0.02, 0.04]).round(2).tolist()
    [0.03, 0.06, 0.12]
    >>> adjust_p([0.01, float("nan")]).tolist()
    [0.01, nan]
    """
    p = np.asarray(p_values, dtype=float)
    finite = ~np.isnan(p)
    if np.any((p[finite] < 0) | (p[finite] > 1)):
        raise StatsInputError("p-values must lie in [0, 1]")
    if method == "none":
        return p.copy()
    if method != "bonferroni":
        raise StatsInputError(
            f"unknown correction {method!r}; use 'bonferroni' or 'none'"
        )
    m = int(finite.sum())
    out = np.full_like(p, np.nan)
    out[finite] = np.minimum(1.0, p[finite] * m)
    return out


def bonferroni(
    p_values: Sequence[float] | np.ndarray, alpha: float = 0.05
) -> pd.DataFrame:
    """Bonferroni-correct a family of p-values, as a tidy table.

    Parameters
    ----------
    p_values : sequence of float
        Unadjusted p-values of one family of tests; NaN marks a test that was not
        computable and does not count towards *m*.
    alpha : float
        Family-wise significance level.

    Returns
    -------
    pandas.DataFrame
        One row per input, in input order, with columns

        ``p_val`` (input), ``p_adj`` (``min(1, m p)``), ``m`` (number of tests),
        ``alpha_per_test`` (``alpha / m``), ``reject`` (``p_adj < alpha``),
        ``computable``, ``reason``.

    References
    ----------
    Dunn, O. J. (1961). Multiple comparisons among means. JASA 56(293):52-64.
    Equivalent to ``statsmodels.stats.multitest.multipletests(p, method="bonferroni")``.

    Examples
    --------
    >>> res = bonferroni([0.01, 0.02, 0.04])
    >>> res["p_adj"].round(2).tolist(), round(float(res["alpha_per_test"][0]), 6)
    ([0.03, 0.06, 0.12], 0.016667)
    >>> res["reject"].tolist()
    [True, False, False]
    """
    if not 0 < alpha < 1:
        raise StatsInputError(f"alpha must lie in (0, 1), not {alpha}")
    p = np.asarray(p_values, dtype=float)
    adj = adjust_p(p)
    m = int((~np.isnan(p)).sum())
    rows: list[dict[str, Any]] = []
    for raw, padj in zip(p, adj, strict=True):
        if np.isnan(raw):
            rows.append(
                not_computable("p-value missing (test not computable)", p_val=raw, m=m)
            )
        else:
            rows.append(
                ok(
                    p_val=float(raw),
                    p_adj=float(padj),
                    m=m,
                    alpha_per_test=alpha / m,
                    reject=bool(padj < alpha),
                )
            )
    frame = finish_frame(rows, ["p_val", "p_adj", "m", "alpha_per_test", "reject"])
    frame["m"] = frame["m"].astype(int)
    fill_column(frame, "reject", False, bool)
    return frame

"""Correlations between evaluation measures on per-system means.

TUNA-REG'09 (seed 001, section 5.4, Table 10) correlates every pair of its eight
measures with Pearson's r "calculated on the means (1 mean per system on each
measure)", marking "*" (significant at .05) and "**" (at .01); ASGRE'07 (seed 003,
Tables 5 and 6) does the same. The unit of analysis is the system: n = number of
systems, df = n - 2 (REFERENCE.md section 18). Table 10 of seed 001 is reproduced
from the published system means only when the human reference "systems" HUMAN-1 and
HUMAN-2 are left out, hence the ``exclude_systems`` argument.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import stats

from stecflow.stats._common import (
    StatsInputError,
    check_columns,
    fill_column,
    finish_frame,
    is_constant,
    level_label,
    not_computable,
    numeric,
    ok,
)

__all__ = ["CORRELATION_COLUMNS", "pairwise_corr", "significance_mark", "system_means"]

logger = logging.getLogger(__name__)

#: Columns of :func:`pairwise_corr`.
CORRELATION_COLUMNS = [
    "measure_a",
    "measure_b",
    "method",
    "r",
    "n",
    "df",
    "p_val",
    "sig",
    "excluded",
    "computable",
    "reason",
]


def significance_mark(p: float, levels: Sequence[float] = (0.05, 0.01)) -> str:
    """Return ``"*"`` per level that *p* is below (``"**"`` for p < .01).

    Examples
    --------
    >>> [significance_mark(p) for p in (0.2, 0.04, 0.004, float("nan"))]
    ['', '*', '**', '']
    """
    if p is None or not np.isfinite(p):
        return ""
    return "*" * sum(1 for level in levels if p < level)


def system_means(
    data: pd.DataFrame,
    measures: Sequence[str],
    *,
    system: str = "system",
) -> pd.DataFrame:
    """Mean of each measure per system (one row per system, sorted by system).

    Each mean uses the system's non-missing values of that measure; a system with
    no value for a measure gets NaN there (handled pairwise by
    :func:`pairwise_corr`). Data that already has one row per system passes through
    unchanged (apart from sorting).

    Parameters
    ----------
    data : pandas.DataFrame
        Rows with a *system* column and one numeric column per measure.
    measures : sequence of str
        Measure columns.
    system : str
        Column identifying the system.

    Returns
    -------
    pandas.DataFrame
        Columns *system* then the measures, one row per system.

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["a", "a", "b"], "x": [1.0, 3.0, 5.0]})
    >>> system_means(df, ["x"]).values.tolist()
    [['a', 2.0], ['b', 5.0]]
    """
    measures = list(measures)
    check_columns(data, [system, *measures], what="system_means")
    frame = pd.DataFrame({system: data[system].map(level_label)})
    for m in measures:
        frame[m] = numeric(data, m, what="system_means").replace(
            [np.inf, -np.inf], np.nan
        )
    return frame.groupby(system, sort=True)[measures].mean().reset_index()


def pairwise_corr(
    data: pd.DataFrame,
    measures: Sequence[str],
    *,
    system: str = "system",
    method: Literal["pearson", "spearman"] = "pearson",
    exclude_systems: Iterable[str] = (),
) -> pd.DataFrame:
    """Correlate every pair of measures over per-system means.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per system (a system-level table) or several rows per system
        (averaged first with :func:`system_means`), with a *system* column and one
        numeric column per measure.
    measures : sequence of str
        Measure columns, at least two; pairs follow this order.
    system : str
        Column identifying the system.
    method : {"pearson", "spearman"}
        Pearson's product-moment r (``scipy.stats.pearsonr``) or Spearman's rho
        (``scipy.stats.spearmanr``).
    exclude_systems : iterable of str
        Systems to leave out, e.g. the human reference sets
        ``("HUMAN-1", "HUMAN-2")``. Names not present are logged and ignored.

    Returns
    -------
    pandas.DataFrame
        One row per pair of measures: ``measure_a``, ``measure_b``, ``method``,
        ``r`` (r or rho), ``n`` (systems with both means), ``df`` (n - 2),
        ``p_val`` (two-sided), ``sig`` (``"*"`` p < .05, ``"**"`` p < .01, else
        ``""``), ``excluded`` (comma-separated systems actually left out),
        ``computable``, ``reason``. Not computable with fewer than 3 systems or when
        a measure is constant over the systems.

    Raises
    ------
    StatsInputError
        For a missing column, fewer than 2 measures or an unknown *method*.

    Notes
    -----
    Missing means are handled pairwise. The Pearson p-value is the exact t-test
    (t = r sqrt(n - 2) / sqrt(1 - r^2), df = n - 2), identical to R's
    ``cor.test``. The Spearman p-value uses the same t approximation (as SPSS
    does); R's ``cor.test(method = "spearman")`` computes an exact p-value for
    small n without ties instead, so its p differs (rho agrees).

    References
    ----------
    Pearson, K. (1896). Mathematical contributions to the theory of evolution III.
    Phil. Trans. R. Soc. A 187:253-318.
    Spearman, C. (1904). The proof and measurement of association between two
    things. American Journal of Psychology 15(1):72-101.
    Belz, A. & Gatt, A. (2008). Intrinsic vs. extrinsic evaluation measures for
    referring expression generation. ACL-08: HLT short papers.

    Examples
    --------
    REFERENCE.md section 18:

    >>> df = pd.DataFrame({"system": list("abcde"),
    ...                    "x": [.81, .77, .70, .66, .60],
    ...                    "y": [1.90, 2.10, 2.05, 2.40, 2.35]})
    >>> res = pairwise_corr(df, ["x", "y"])
    >>> res.loc[0, ["r", "p_val", "df"]].astype(float).round(6).tolist()
    [-0.867845, 0.056514, 3.0]
    >>> int(pairwise_corr(df, ["x", "y"], exclude_systems=["e", "d"]).at[0, "n"])
    3
    """
    measures = list(measures)
    if len(measures) < 2:
        raise StatsInputError("pairwise_corr: give at least two measures")
    if len(set(measures)) != len(measures):
        raise StatsInputError("pairwise_corr: measures must be distinct")
    if method not in ("pearson", "spearman"):
        raise StatsInputError(
            f"pairwise_corr: method must be 'pearson' or 'spearman', not {method!r}"
        )
    means = system_means(data, measures, system=system)
    exclude = {level_label(s) for s in exclude_systems}
    present = set(means[system])
    unknown = sorted(exclude - present)
    if unknown:
        logger.warning(
            "pairwise_corr: systems to exclude not in data: %s", ", ".join(unknown)
        )
    excluded = ",".join(sorted(exclude & present))
    means = means[~means[system].isin(exclude)]
    rows: list[dict[str, Any]] = []
    for a, b in itertools.combinations(measures, 2):
        pair = means[[a, b]].dropna()
        n = len(pair)
        base = {
            "measure_a": a,
            "measure_b": b,
            "method": method,
            "n": n,
            "excluded": excluded,
        }
        x, y = pair[a].to_numpy(dtype=float), pair[b].to_numpy(dtype=float)
        if n < 3:
            rows.append(
                not_computable(
                    f"fewer than 3 systems with both measures (n = {n})", **base
                )
            )
            continue
        constant = [m for m, v in ((a, x), (b, y)) if is_constant(v)]
        if constant:
            rows.append(
                not_computable(f"{constant[0]!r} is constant over the systems", **base)
            )
            continue
        if method == "pearson":
            res = stats.pearsonr(x, y)
            r, p = float(res.statistic), float(res.pvalue)
        else:
            res = stats.spearmanr(x, y)
            r, p = float(res.statistic), float(res.pvalue)
        rows.append(ok(r=r, df=n - 2, p_val=p, sig=significance_mark(p), **base))
    frame = finish_frame(rows, CORRELATION_COLUMNS)
    frame["n"] = frame["n"].astype(int)
    frame["df"] = frame["df"].astype("Int64")
    fill_column(frame, "sig", "", str)
    return frame

"""Correlations between evaluation measures on per-system means.

TUNA-REG'09 (seed 001, section 5.4, Table 10) correlates every pair of its eight
measures with Pearson's r "calculated on the means (1 mean per system on each
measure)", marking "*" (significant at .05) and "**" (at .01); ASGRE'07 (seed 003,
Tables 5 and 6) does the same. The unit of analysis is the system: n = number of
systems, df = n - 2 (REFERENCE.md section 18). Table 10 of seed 001 is reproduced
from the published system means only when the human reference "systems" HUMAN-1 and
HUMAN-2 are left out, hence the ``exclude_systems`` argument.

A correlation over a handful of systems describes those systems and nothing more:
pairs over fewer than :data:`MIN_SYSTEMS` systems get no significance marks and
carry the ``few_systems`` flag, and :func:`correlation_caveats` says so in plain
words for the stats JSON and the report.
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

__all__ = [
    "CORRELATION_COLUMNS",
    "MIN_SYSTEMS",
    "correlation_caveats",
    "pairwise_corr",
    "significance_mark",
    "system_means",
]

logger = logging.getLogger(__name__)

#: Fewest systems (df = n - 2 >= 3) over which a correlation gets significance marks.
#:
#: Why 5. The unit of analysis is the system, so n is the number of systems, and
#: the p-value of r rests on the system means being bivariate normal, which 3 or
#: 4 points cannot show. Without that assumption (an exact permutation test of r,
#: which only asks that systems be exchangeable) the smallest two-sided p over n
#: systems is 2/n!: .33 for 3 systems and .083 for 4, so no correlation over fewer
#: than 5 systems can be significant at .05 on the data alone; from 5 systems
#: (2/120 = .017) it can. Over 3 systems (df = 1) Pearson's test needs |r| > .997
#: for p < .05, and r is fixed by where one system lies: "r = 1.00**" there says
#: nothing about measures. The threshold keeps what the seeds published: seed
#: 001's Table 10 marks correlations over 6 systems (df = 4), seed 003's over 15.
MIN_SYSTEMS = 5

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
    "few_systems",
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
    min_systems: int = MIN_SYSTEMS,
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
    min_systems : int
        Fewest systems for significance marks (default :data:`MIN_SYSTEMS`, 5,
        justified there). A pair over fewer systems keeps its r and p but gets no
        ``sig`` and ``few_systems`` True.

    Returns
    -------
    pandas.DataFrame
        One row per pair of measures: ``measure_a``, ``measure_b``, ``method``,
        ``r`` (r or rho), ``n`` (systems with both means), ``df`` (n - 2),
        ``p_val`` (two-sided), ``sig`` (``"*"`` p < .05, ``"**"`` p < .01, else
        ``""``; always ``""`` over fewer than *min_systems* systems),
        ``few_systems`` (n < *min_systems*, computable or not), ``excluded``
        (comma-separated systems actually left out), ``computable``, ``reason``.
        Not computable with fewer than 3 systems or when a measure is constant
        over the systems (r is undefined then).

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
    >>> res.at[0, "sig"], bool(res.at[0, "few_systems"])
    ('', False)
    >>> three = pairwise_corr(df, ["x", "y"], exclude_systems=["e", "d"])
    >>> int(three.at[0, "df"]), three.at[0, "sig"], bool(three.at[0, "few_systems"])
    (1, '', True)
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
            "few_systems": n < min_systems,
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
        sig = "" if base["few_systems"] else significance_mark(p)
        rows.append(ok(r=r, df=n - 2, p_val=p, sig=sig, **base))
    frame = finish_frame(rows, CORRELATION_COLUMNS)
    frame["n"] = frame["n"].astype(int)
    frame["df"] = frame["df"].astype("Int64")
    fill_column(frame, "sig", "", str)
    fill_column(frame, "few_systems", False, bool)
    return frame


def _range(values: Sequence[int]) -> str:
    low, high = min(values), max(values)
    return str(low) if low == high else f"{low}–{high}"


def correlation_caveats(
    result: pd.DataFrame, *, min_systems: int = MIN_SYSTEMS
) -> list[dict[str, Any]]:
    """Plain sentences on what a correlation table cannot say, for JSON and report.

    Parameters
    ----------
    result : pandas.DataFrame
        The result of :func:`pairwise_corr`.
    min_systems : int
        The threshold it ran with.

    Returns
    -------
    list of dict
        ``{"kind": "few_systems", "n_systems": [...], "text": ...}`` when some
        pair ran over fewer than *min_systems* systems, then one
        ``{"kind": "constant", "measure": m, "text": ...}`` per measure that has
        the same value for every system (its correlations are undefined).
        Empty when the table needs no caveat.

    Examples
    --------
    >>> df = pd.DataFrame({"system": list("abc"), "x": [1.0, 2, 3],
    ...                    "y": [1.0, 2, 2.9], "c": 7.0})
    >>> [c["text"] for c in correlation_caveats(pairwise_corr(df, ["x", "y", "c"]))]
    ['Correlations over 3 systems (df = 1): too few systems for a significance test to mean anything (at least 5 are needed), so no correlation is marked significant; r describes these systems only.', "'c' has the same value for every system, so its correlation with any other measure is undefined."]
    """  # noqa: E501
    caveats: list[dict[str, Any]] = []
    few = result[result["few_systems"].astype(bool)]
    computed = few[few["computable"].astype(bool)]
    if len(computed):
        counts = sorted({int(n) for n in computed["n"]})
        dfs = sorted({n - 2 for n in counts})
        text = (
            f"Correlations over {_range(counts)} systems (df = {_range(dfs)}): too"
            " few systems for a significance test to mean anything (at least"
            f" {min_systems} are needed), so no correlation is marked significant;"
            " r describes these systems only."
        )
    elif len(few):
        counts = sorted({int(n) for n in few["n"]})
        text = (
            f"Correlations over {_range(counts)} systems: r needs at least 3"
            f" systems, and a significance test at least {min_systems}, so no"
            " correlation was computed."
        )
    if len(few):
        caveats.append(
            {
                "kind": "few_systems",
                "n_systems": counts,
                "min_systems": min_systems,
                "text": text,
            }
        )
    constant: list[str] = []
    for reason in result.loc[~result["computable"].astype(bool), "reason"]:
        if str(reason).endswith(" is constant over the systems"):
            name = str(reason).removesuffix(" is constant over the systems")
            if name not in constant:
                constant.append(name)
    for name in constant:
        caveats.append(
            {
                "kind": "constant",
                "measure": name.strip("'\""),
                "text": f"{name} has the same value for every system, so its"
                " correlation with any other measure is undefined.",
            }
        )
    return caveats

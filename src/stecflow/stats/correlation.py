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

Every number follows R's ``cor.test`` (R 4.2): Pearson's t with df = n - 2 and the
Fisher-z confidence interval; Spearman's S and R's p-value (exact permutation
distribution for n <= 9, the Edgeworth series of AS 89 up to n = 1290, the t
approximation with ties or above 1290). ``tests/r/make_reference_corr_manova.R``
holds the R side of the comparison.
"""

from __future__ import annotations

import itertools
import logging
import math
from collections.abc import Iterable, Sequence
from functools import lru_cache
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
    "spearman_p",
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
    "ci_low",
    "ci_high",
    "confidence",
    "t",
    "s",
    "p_method",
    "deletion",
    "n_missing",
    "note",
    "computable",
    "reason",
]

#: Largest n for which R's ``cor.test`` gives Spearman's rho a p-value from the
#: distribution of S (exact or AS 89) rather than the t approximation.
SPEARMAN_EXACT_MAX_N = 1290

#: Up to this n the distribution of S is enumerated over all n! permutations (R's
#: ``prho`` does the same; AS 89 itself stopped at 6).
SPEARMAN_ENUMERATE_MAX_N = 9

TIES_NOTE = "ties: no exact p-value, asymptotic t approximation (as R's cor.test)"


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


@lru_cache(maxsize=SPEARMAN_ENUMERATE_MAX_N)
def _s_counts(n: int) -> tuple[int, ...]:
    """How many of the n! permutations give each value of S = sum (i - p_i)^2."""
    perms = np.array(list(itertools.permutations(range(n))), dtype=np.int16)
    values = ((perms - np.arange(n, dtype=np.int16)) ** 2).sum(axis=1)
    return tuple(int(c) for c in np.bincount(values))


def _prho(n: int, s: float, lower_tail: bool) -> float:
    """P(S >= s), or P(S < s) with *lower_tail*: R's ``prho`` (AS 89), step by step.

    Exact over all permutations for n <= 9, Edgeworth series above (Best &
    Roberts 1975, with R's ``pnorm`` in place of AS 66).
    """
    pv = 0.0 if lower_tail else 1.0
    if n <= 1 or s <= 0:
        return pv
    n3 = n * (n * n - 1.0) / 3.0  # the largest S
    if s > n3:
        return 1.0 - pv
    if n <= SPEARMAN_ENUMERATE_MAX_N:
        counts = _s_counts(n)
        nfac = math.factorial(n)
        upper = sum(counts[math.ceil(s) :])  # permutations with S >= s
        return (nfac - upper if lower_tail else upper) / nfac
    from scipy.stats import norm

    c1, c2, c3, c4, c5, c6 = 0.2274, 0.2531, 0.1745, 0.0758, 0.1033, 0.3932
    c7, c8, c9, c10, c11, c12 = 0.0879, 0.0151, 0.0072, 0.0831, 0.0131, 4.6e-4
    y = float(n)
    b = 1 / y
    x = (6.0 * (s - 1) * b / (y * y - 1) - 1) * math.sqrt(y - 1)
    y = x * x
    u = (
        x
        * b
        * (
            c1
            + b * (c2 + c3 * b)
            + y
            * (
                -c4
                + b * (c5 + c6 * b)
                - y * b * (c7 + c8 * b - y * (c9 - c10 * b + y * b * (c11 - c12 * y)))
            )
        )
    )
    y = u / math.exp(y / 2.0)
    tail = float(norm.cdf(x)) if lower_tail else float(norm.sf(x))
    pv = (-y if lower_tail else y) + tail
    return min(max(pv, 0.0), 1.0)


def spearman_p(rho: float, n: int) -> tuple[float, str]:
    """Two-sided p-value of Spearman's rho without ties, as R's ``cor.test``.

    R (``cor.test(method = "spearman")``, default ``exact = NULL``) tests
    S = (n^3 - n)(1 - rho) / 6 against its permutation distribution: exactly
    (all n! orderings) for n <= 9, by the Edgeworth series of algorithm AS 89 for
    10 <= n <= 1290, and by the t approximation (df = n - 2) above 1290. The
    two-sided p is twice the smaller tail, at most 1. Use it only when neither
    variable has ties (R then falls back to the t approximation, as
    :func:`pairwise_corr` does).

    Parameters
    ----------
    rho : float
        Spearman's rho.
    n : int
        Number of pairs (at least 2).

    Returns
    -------
    tuple of (float, str)
        The p-value and how it was obtained: ``"exact"``, ``"edgeworth"`` or
        ``"t"``.

    Notes
    -----
    SciPy's ``spearmanr`` always uses the t approximation: for n = 6 and
    rho = 1 it returns p = 0 where the exact p is 2/720 = 0.002778. R's AS 89
    branch can give exactly 0 for extreme rho (e.g. rho = 1, n = 10), since the
    series is clipped to [0, 1]; we return what R returns.

    References
    ----------
    Best, D. J. & Roberts, D. E. (1975). Algorithm AS 89: the upper tail
    probabilities of Spearman's rho. Applied Statistics 24(3):377-379.

    Examples
    --------
    >>> p, how = spearman_p(1.0, 6)  # R: p-value = 0.002778
    >>> round(p, 6), how
    (0.002778, 'exact')
    >>> p, how = spearman_p(0.7972027972027973, 12)  # R: p-value = 0.003161
    >>> round(p, 6), how
    (0.003161, 'edgeworth')
    """
    if n <= 2:
        return float("nan"), ""
    q = (n**3 - n) * (1 - rho) / 6
    if n > SPEARMAN_EXACT_MAX_N:
        return _t_p(rho, n - 2), "t"
    lower = not q > (n**3 - n) / 6
    p = _prho(n, round(q) + 2 * lower, lower)
    how = "exact" if n <= SPEARMAN_ENUMERATE_MAX_N else "edgeworth"
    return min(2 * p, 1.0), how


def _t_stat(r: float, df: int) -> float:
    """t = sqrt(df) r / sqrt(1 - r^2), infinite for |r| = 1 (as R)."""
    if abs(r) >= 1:
        return math.copysign(math.inf, r)
    return math.sqrt(df) * r / math.sqrt(1 - r * r)


def _t_p(r: float, df: int) -> float:
    """Two-sided p of r from t with df degrees of freedom (R: 2 min(pt, 1 - pt))."""
    from scipy.stats import t as tdist

    return float(min(2 * tdist.sf(abs(_t_stat(r, df)), df), 1.0))


def _fisher_ci(r: float, n: int, confidence: float) -> tuple[float, float]:
    """Fisher-z interval of Pearson's r, as R's ``cor.test`` (none for n <= 3)."""
    if n <= 3:
        return float("nan"), float("nan")
    from scipy.stats import norm

    with np.errstate(divide="ignore"):
        z = float(np.arctanh(r))
    half = float(norm.ppf((1 + confidence) / 2)) / math.sqrt(n - 3)
    return math.tanh(z - half), math.tanh(z + half)


def _has_ties(values: np.ndarray) -> bool:
    return len(np.unique(values)) < len(values)


def pairwise_corr(
    data: pd.DataFrame,
    measures: Sequence[str],
    *,
    system: str = "system",
    method: Literal["pearson", "spearman"] = "pearson",
    exclude_systems: Iterable[str] = (),
    min_systems: int = MIN_SYSTEMS,
    confidence: float = 0.95,
    deletion: Literal["listwise", "pairwise"] = "listwise",
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
        Pearson's product-moment r or Spearman's rho (Pearson's r of the ranks,
        ties sharing their mean rank).
    exclude_systems : iterable of str
        Systems to leave out, e.g. the human reference sets
        ``("HUMAN-1", "HUMAN-2")``. Names not present are logged and ignored.
    min_systems : int
        Fewest systems for significance marks (default :data:`MIN_SYSTEMS`, 5,
        justified there). A pair over fewer systems keeps its r and p but gets no
        ``sig`` and ``few_systems`` True.
    confidence : float
        Level of Pearson's confidence interval (default 0.95), strictly
        between 0 and 1.
    deletion : {"listwise", "pairwise"}
        Systems with a missing mean: ``"listwise"`` (default) leaves a system
        with any measure missing out of every pair, so all cells rest on the
        same systems; ``"pairwise"`` leaves it out only of the pairs involving
        the missing measure (cells then rest on different systems).

    Returns
    -------
    pandas.DataFrame
        One row per pair of measures: ``measure_a``, ``measure_b``, ``method``,
        ``r`` (r or rho), ``n`` (systems in this cell), ``df`` (n - 2),
        ``p_val`` (two-sided), ``sig`` (``"*"`` p < .05, ``"**"`` p < .01, else
        ``""``; always ``""`` over fewer than *min_systems* systems),
        ``few_systems`` (n < *min_systems*, computable or not), ``excluded``
        (comma-separated systems actually left out by *exclude_systems*),
        ``ci_low`` and ``ci_high`` (Fisher-z interval of Pearson's r, NaN for
        Spearman and for n <= 3, as R), ``confidence`` (its level), ``t``
        (the t statistic of the p-value when it comes from t: always for
        Pearson, for Spearman only with ties or n > 1290), ``s`` (Spearman's S
        = sum of squared rank differences; NaN for Pearson), ``p_method``
        (``"t"``, ``"exact"`` or ``"edgeworth"``, see :func:`spearman_p`),
        ``deletion`` (``"listwise"`` or ``"pairwise"``), ``n_missing``
        (systems left out of this cell for a missing mean), ``note`` (e.g. why
        Spearman's p is not exact), ``computable``, ``reason``. Not computable
        with fewer than 3 systems or when a measure is constant over the
        systems (r is undefined then).

    Raises
    ------
    StatsInputError
        For a missing column, fewer than 2 measures, an unknown *method* or
        *deletion*, or a *confidence* outside (0, 1).

    Notes
    -----
    Everything equals R's ``cor.test`` (default arguments, R 4.2) on the same
    systems. Pearson: t = r sqrt(n - 2) / sqrt(1 - r^2) with df = n - 2 (as
    ``scipy.stats.pearsonr``), and the interval tanh(atanh(r) +- z / sqrt(n - 3)).
    Spearman: without ties, the exact permutation p-value for n <= 9 and the
    AS 89 Edgeworth series up to n = 1290 (:func:`spearman_p`); with ties (or
    n > 1290), the t approximation of rho, as R does, with a ``note``.
    ``scipy.stats.spearmanr`` always uses the t approximation, so its p differs
    from ours without ties (rho agrees): for n = 6 and rho = 1 it gives 0, R
    and we 2/720 = .0028. SPSS also uses the t approximation.

    References
    ----------
    Pearson, K. (1896). Mathematical contributions to the theory of evolution III.
    Phil. Trans. R. Soc. A 187:253-318.
    Spearman, C. (1904). The proof and measurement of association between two
    things. American Journal of Psychology 15(1):72-101.
    Fisher, R. A. (1921). On the "probable error" of a coefficient of
    correlation deduced from a small sample. Metron 1:3-32.
    Best, D. J. & Roberts, D. E. (1975). Algorithm AS 89: the upper tail
    probabilities of Spearman's rho. Applied Statistics 24(3):377-379.
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
    >>> res.loc[0, ["t", "ci_low", "ci_high"]].astype(float).round(6).tolist()
    [-3.02545, -0.991188, 0.061544]
    >>> res.at[0, "sig"], bool(res.at[0, "few_systems"])
    ('', False)
    >>> three = pairwise_corr(df, ["x", "y"], exclude_systems=["e", "d"])
    >>> int(three.at[0, "df"]), three.at[0, "sig"], bool(three.at[0, "few_systems"])
    (1, '', True)

    Spearman's p is exact for small n without ties (R: S = 36, p = 0.1333;
    ``scipy.stats.spearmanr`` gives 0.1041):

    >>> rho = pairwise_corr(df, ["x", "y"], method="spearman")
    >>> rho.loc[0, ["r", "s", "p_val"]].astype(float).round(6).tolist()
    [-0.8, 36.0, 0.133333]
    >>> rho.at[0, "p_method"]
    'exact'
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
    if deletion not in ("listwise", "pairwise"):
        raise StatsInputError(
            "pairwise_corr: deletion must be 'listwise' or 'pairwise',"
            f" not {deletion!r}"
        )
    if not (isinstance(confidence, int | float) and 0 < confidence < 1):
        raise StatsInputError(
            f"pairwise_corr: confidence must be between 0 and 1, not {confidence!r}"
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
    n_systems = len(means)
    if deletion == "listwise":
        incomplete = means[measures].isna().any(axis=1)
        if incomplete.any():
            logger.info(
                "pairwise_corr: systems without every measure left out of every"
                " correlation (listwise deletion): %s",
                ", ".join(means.loc[incomplete, system]),
            )
        means = means[~incomplete]
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
            "confidence": confidence,
            "deletion": deletion,
            "n_missing": n_systems - n,
        }
        x, y = pair[a].to_numpy(dtype=float), pair[b].to_numpy(dtype=float)
        if n < 3:
            with_both = (
                "every measure (listwise deletion)"
                if deletion == "listwise"
                else "both measures"
            )
            rows.append(
                not_computable(
                    f"fewer than 3 systems with {with_both} (n = {n})", **base
                )
            )
            continue
        constant = [m for m, v in ((a, x), (b, y)) if is_constant(v)]
        if constant:
            rows.append(
                not_computable(f"{constant[0]!r} is constant over the systems", **base)
            )
            continue
        df = n - 2
        extra: dict[str, Any] = {"note": ""}
        if method == "pearson":
            r = float(np.clip(stats.pearsonr(x, y).statistic, -1.0, 1.0))
            t = _t_stat(r, df)
            p = _t_p(r, df)
            ci_low, ci_high = _fisher_ci(r, n, confidence)
            extra.update(t=t, ci_low=ci_low, ci_high=ci_high, p_method="t")
        else:
            r = float(np.clip(stats.spearmanr(x, y).statistic, -1.0, 1.0))
            extra["s"] = (n**3 - n) * (1 - r) / 6
            if _has_ties(x) or _has_ties(y):
                p, how = _t_p(r, df), "t"
                extra["note"] = TIES_NOTE
            else:
                p, how = spearman_p(r, n)
            if how == "t":
                extra["t"] = _t_stat(r, df)
            extra["p_method"] = how
        sig = "" if base["few_systems"] else significance_mark(p)
        rows.append(ok(r=r, df=df, p_val=p, sig=sig, **extra, **base))
    frame = finish_frame(rows, CORRELATION_COLUMNS)
    frame["n"] = frame["n"].astype(int)
    frame["n_missing"] = frame["n_missing"].astype(int)
    frame["df"] = frame["df"].astype("Int64")
    frame["confidence"] = frame["confidence"].astype(float)
    for column in ("ci_low", "ci_high", "t", "s"):
        frame[column] = frame[column].astype(float)
    fill_column(frame, "sig", "", str)
    fill_column(frame, "p_method", "", str)
    fill_column(frame, "note", "", str)
    fill_column(frame, "deletion", deletion, str)
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

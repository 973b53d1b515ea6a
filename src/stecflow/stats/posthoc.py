"""Post hoc comparisons after an ANOVA: Tukey HSD, SPSS homogeneous subsets, letters.

TUNA-REG'09 (seed 001, Tables 7 and 9) shows Tukey HSD results as SPSS homogeneous
subsets printed as letters: "systems which do not share a letter are significantly
different". REFERENCE.md section 16 pins down the two displays this module offers:

* **SPSS homogeneous subsets** (:func:`homogeneous_subsets`): one critical range
  ``HSD = q(1 - alpha; k, df_E) * sqrt(MS_E / n_h)`` with the harmonic mean group
  size ``n_h``; subsets are the maximal runs of ascending means whose range does not
  exceed HSD, each with a "Sig." value. Config:
  ``statistics.posthoc.display: spss_subsets`` (default).
* **Compact letter display** (:func:`compact_letter_display`, Piepho 2004) built from
  Tukey-Kramer pairwise decisions (:func:`pairwise_tukey`), where two groups share a
  letter iff they do not differ significantly. ``statistics.posthoc.display: cld``.

Both can use the error term (MS_E, df_E) of a factorial model, as SPSS does in a
two-way UNIANOVA, through the ``model`` argument (or explicit ``ms_error`` and
``df_error``). statsmodels' ``pairwise_tukeyhsd`` cannot: it always pools the
one-way variance. With equal group sizes the displays coincide; with unequal sizes
they can disagree (REFERENCE.md section 16, example B).
"""

from __future__ import annotations

import functools
import itertools
import math
import string
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from stecflow.stats._common import (
    NanPolicy,
    StatsInputError,
    as_list,
    check_columns,
    drop_missing,
    finish_frame,
    level_label,
    not_computable,
    ok,
)
from stecflow.stats.anova import error_term

__all__ = [
    "PAIRWISE_TUKEY_COLUMNS",
    "SUBSET_COLUMNS",
    "compact_letter_display",
    "homogeneous_subsets",
    "maximal_subsets",
    "pairwise_tukey",
    "ptukey_isf",
    "ptukey_sf",
    "subset_letters",
    "tukey_cld",
]

#: Columns of :func:`pairwise_tukey`.
PAIRWISE_TUKEY_COLUMNS = [
    "group_a",
    "group_b",
    "mean_a",
    "mean_b",
    "n_a",
    "n_b",
    "delta",
    "se",
    "q",
    "p_adj",
    "ci_low",
    "ci_high",
    "reject",
    "ms_error",
    "df_error",
    "alpha",
    "computable",
    "reason",
]

#: Columns of :func:`homogeneous_subsets`.
SUBSET_COLUMNS = [
    "subset",
    "group",
    "mean",
    "n",
    "sig",
    "n_harmonic",
    "q_crit",
    "hsd",
    "ms_error",
    "df_error",
    "alpha",
    "computable",
    "reason",
]

#: Columns of :func:`subset_letters`, :func:`compact_letter_display` and
#: :func:`tukey_cld`.
LETTER_COLUMNS = ["group", "mean", "n", "letters", "computable", "reason"]

_SUBSET_SIG_METHODS = ("studentized_range",)


# ---------------------------------------------------------------------------
# The studentized range distribution, vectorised, as R's ptukey.
#
# Copenhaver & Holland (1988): P(Q < q; k, df) = integral over the scaled chi
# distribution of the error df of W(q s; k), where W is the distribution of the
# range of k standard normals in Hartley's form, each integral by Gauss-Legendre
# quadrature on fixed intervals with fixed cut-offs. R's ptukey implements this
# algorithm; this is an independent, vectorised implementation of the same
# quadrature (same nodes, intervals and cut-offs), so its p-values equal R's
# (within 1.3e-13 absolute on tests/r/make_reference_anova.R's grid).
# scipy.stats.studentized_range (adaptive quadrature, 1-15 ms per value) is too
# slow for 500,000 pairs and differs from R where R's quadrature is coarse.

_SQRT_2PI = math.sqrt(2.0 * math.pi)
_CHUNK = 1 << 15  # values per block: bounds the temporaries to a few MB


@functools.cache
def _legendre(order: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes (ascending) and weights on [-1, 1]."""
    nodes, weights = np.polynomial.legendre.leggauss(order)
    return nodes, weights


def _range_cdf(w: np.ndarray, k: int) -> np.ndarray:
    """P(range of *k* iid standard normals < w), for an array *w* >= 0.

    Hartley's form: ``(2 Phi(w/2) - 1)^k`` plus ``k`` times the integral from w/2
    to 8 of ``phi(x) (Phi(x) - Phi(x - w))^(k - 1)``, by 12-point Gauss-Legendre on
    two (w > 3) or three equal intervals; terms below exp(-30) are skipped, the
    result is 1 for w >= 16 and 0 below exp(-30) (R's wprob with rr = 1).
    """
    from scipy.special import ndtr

    out = np.ones_like(w)
    todo = 0.5 * w < 8.0
    if not todo.any():
        return out
    wt = w[todo]
    half = 0.5 * wt
    first = 2.0 * ndtr(half) - 1.0
    first = np.where(first >= math.exp(-50.0 / k), first**k, 0.0)
    n_int = np.where(wt > 3.0, 2, 3)
    width = (8.0 - half) / n_int
    nodes, weights = _legendre(12)
    floor = math.exp(-30.0 / (k - 1))
    total = np.zeros_like(wt)
    for m in range(3):
        centre = half + (m + 0.5) * width
        x = centre[:, None] + (0.5 * width)[:, None] * nodes[None, :]
        x2 = x * x
        inner = ndtr(x) - ndtr(x - wt[:, None])
        use = (x2 <= 60.0) & (inner >= floor)
        terms = np.where(
            use,
            weights * np.exp(-0.5 * x2) * np.power(np.where(use, inner, 1.0), k - 1),
            0.0,
        )
        part = terms.sum(axis=1) * (width * k / _SQRT_2PI)
        total += np.where(m < n_int, part, 0.0)
    res = total + first
    res = np.where(res <= math.exp(-30.0), 0.0, res)
    out[todo] = np.minimum(res, 1.0)
    return out


#: Panels of the interpolant of :func:`_range_cdf`: width and Chebyshev degree.
_PANEL = 0.125
_DEGREE = 15


@functools.cache
def _range_cdf_panels(k: int) -> tuple[np.ndarray, np.ndarray]:
    """Chebyshev interpolants of :func:`_range_cdf` for *k* on panels of [0, 16).

    The quadrature switches from three intervals (w <= 3) to two (w > 3), a jump
    of up to ~3e-7 in R's values, so no panel crosses 3. Returns the panels' left
    edges and their coefficients (one row per panel). Interpolating R's
    quadrature (not the exact W) keeps R's values:
    the interpolant differs from it by about 1e-13 (R's cut-offs make jumps of
    that size), and evaluating a degree-15 polynomial per value is about 50
    times cheaper than the quadrature.
    """
    edges = np.arange(0.0, 16.0, _PANEL)
    cheb = np.polynomial.chebyshev
    t = np.cos(np.pi * (np.arange(_DEGREE + 1) + 0.5) / (_DEGREE + 1))  # nodes
    w = edges[:, None] + 0.5 * _PANEL * (t[None, :] + 1.0)
    values = _range_cdf(w.reshape(-1), k).reshape(w.shape)
    coef = np.stack([cheb.chebfit(t, row, _DEGREE) for row in values])
    return edges, coef


def _range_cdf_fast(w: np.ndarray, k: int) -> np.ndarray:
    """:func:`_range_cdf` through its piecewise Chebyshev interpolant."""
    edges, coef = _range_cdf_panels(k)
    out = np.ones_like(w)
    todo = np.flatnonzero(w < 16.0)
    if len(todo) == 0:
        return out
    x = w[todo]
    # panels are closed on the right: w = 3 belongs to the three-interval rule
    panel = np.clip(np.ceil(x / _PANEL).astype(np.int64) - 1, 0, len(edges) - 1)
    t = 2.0 * (x - edges[panel]) / _PANEL - 1.0
    c = coef[panel]
    # Clenshaw recurrence, all values at once
    b1 = np.zeros_like(x)
    b2 = np.zeros_like(x)
    for j in range(_DEGREE, 0, -1):
        b1, b2 = 2.0 * t * b1 - b2 + c[:, j], b1
    res = t * b1 - b2 + c[:, 0]
    out[todo] = np.clip(res, 0.0, 1.0)
    return out


def _ptukey_cdf(q: np.ndarray, k: int, df: float) -> np.ndarray:
    """P(Q < q) of the studentized range (k means, df error df) for q > 0."""
    if df > 25000:  # R: the error variance is taken as known
        return _range_cdf_fast(q, k)
    from scipy.special import gammaln

    ulen = 1.0 if df <= 100 else 0.5 if df <= 800 else 0.25 if df <= 5000 else 0.125
    f2 = 0.5 * df
    log_const = f2 * math.log(df) - df * math.log(2.0) - gammaln(f2) + math.log(ulen)
    nodes, weights = _legendre(16)
    ans = np.zeros_like(q)
    running = np.ones(q.shape, dtype=bool)
    for i in range(1, 51):
        u = (2 * i - 1) * ulen + ulen * nodes  # 2 chi^2 / df at the nodes
        log_dens = log_const + (f2 - 1.0) * np.log(u) - u * (0.25 * df)
        keep = log_dens >= -30.0
        idx = np.flatnonzero(running)
        qq = q[idx]
        interval = np.zeros_like(qq)
        for u_j, a_j, t_j in zip(u[keep], weights[keep], log_dens[keep], strict=True):
            w = qq * math.sqrt(0.5 * u_j)
            interval += _range_cdf_fast(w, k) * a_j * math.exp(t_j)
        # R stops at the first interval (from 1 / ulen on) adding <= 1e-14
        stop = (i * ulen >= 1.0) & (interval <= 1e-14)
        ans[idx[~stop]] += interval[~stop]
        running[idx[stop]] = False
        if not running.any():
            break
    return np.minimum(ans, 1.0)


def ptukey_sf(q: Any, k: int, df: float) -> np.ndarray:
    """Upper tail ``P(Q >= q)`` of the studentized range distribution, vectorised.

    Parameters
    ----------
    q : array_like
        Values of the studentized range statistic.
    k : int
        Number of means (at least 2).
    df : float
        Error degrees of freedom (above 25,000 the error variance is taken as
        known, as in R).

    Returns
    -------
    numpy.ndarray
        ``P(Q >= q)``, shaped like *q*: 1 for ``q <= 0``, 0 for ``q = inf``, NaN
        for NaN or when *k* < 2 or *df* <= 0. For 0 < *df* < 2, where R's
        ``ptukey`` gives NaN, ``scipy.stats.studentized_range.sf`` (slow, one
        call per value).

    Notes
    -----
    The algorithm of Copenhaver & Holland (1988) with R's quadrature nodes,
    intervals and cut-offs, evaluated on all values at once (the range
    distribution through piecewise Chebyshev interpolants of R's quadrature):
    equal to R's ``ptukey(q, k, df, lower.tail = FALSE)``, which ``TukeyHSD``
    uses, within 1.3e-13 absolute on a grid of k = 2-1000, df = 2-1e5.

    R parity is chosen over SciPy's: ``scipy.stats.studentized_range.sf``
    integrates adaptively (1-15 ms per value) and agrees with R to about 1e-10
    in general, but differs where R's fixed quadrature is coarse: up to ~2e-5
    just above df = 25,000 (R then treats the error variance as known) and up to
    ~1.5e-3 for df = 2 and large q. As in R, ``1 - P`` is computed, so p-values
    below ~1e-13 are 0 or rounding noise.

    References
    ----------
    Copenhaver, M. D. & Holland, B. S. (1988). Computation of the distribution of
    the maximum studentized range statistic with application to multiple
    significance testing of simple effects. Journal of Statistical Computation
    and Simulation 30(1):1-15.

    Examples
    --------
    >>> ptukey_sf([3.0, 4.046093, 6.0], 4, 16).round(6).tolist()  # R: the same
    [0.188448, 0.05, 0.003127]
    """
    values = np.asarray(q, dtype=float)
    flat = values.reshape(-1)
    out = np.full(flat.shape, np.nan)
    if not (k >= 2 and df > 0):
        return out.reshape(values.shape)
    if df < 2:  # R gives NaN; SciPy's adaptive quadrature is defined there
        from scipy.stats import studentized_range

        return np.asarray(studentized_range.sf(values, k, df), dtype=float)
    out[flat <= 0] = 1.0
    out[np.isposinf(flat)] = 0.0
    todo = np.flatnonzero((flat > 0) & np.isfinite(flat))
    for start in range(0, len(todo), _CHUNK):
        idx = todo[start : start + _CHUNK]
        out[idx] = 0.5 - _ptukey_cdf(flat[idx], int(k), float(df)) + 0.5
    return out.reshape(values.shape)


def ptukey_isf(p: float, k: int, df: float) -> float:
    """The *q* with ``ptukey_sf(q, k, df) == p`` (the critical range for level p).

    Parameters
    ----------
    p : float
        Upper-tail probability, e.g. alpha.
    k, df
        As in :func:`ptukey_sf`.

    Returns
    -------
    float
        The critical value ``q(1 - p; k, df)``.

    Notes
    -----
    Solved by Brent's method to 1e-12 on :func:`ptukey_sf`, so a critical range
    and the p-values of the same analysis agree; R's ``qtukey`` (a secant search
    stopping at 1e-4) and ``scipy.stats.studentized_range.ppf`` agree with it to
    about 1e-6 relative.

    Examples
    --------
    >>> round(ptukey_isf(0.05, 4, 16), 6)
    4.046093
    """
    from scipy.optimize import brentq

    hi = 2.0
    while float(ptukey_sf(hi, k, df)[()]) > p:
        hi *= 2.0
    return float(
        brentq(lambda x: float(ptukey_sf(x, k, df)[()]) - p, 0.0, hi, xtol=1e-12)
    )


def _check_alpha(alpha: float) -> None:
    if not 0 < alpha < 1:
        raise StatsInputError(f"alpha must lie in (0, 1), not {alpha}")


def _groups(
    data: pd.DataFrame,
    dv: str,
    between: str,
    model: Sequence[str] | None,
    ms_error: float | None,
    df_error: float | None,
    nan_policy: NanPolicy,
    what: str,
) -> tuple[pd.DataFrame, float, float, str]:
    """Group statistics (sorted by label) and the error term to use."""
    if not isinstance(between, str):
        raise StatsInputError(f"{what}: between must be one column name")
    roles = as_list(model) or [between]
    if between not in roles:
        raise StatsInputError(
            f"{what}: the post hoc factor {between!r} must be one of the model "
            f"factors {roles}",
            field=between,
        )
    if (ms_error is None) != (df_error is None):
        raise StatsInputError(f"{what}: give both ms_error and df_error, or neither")
    clean, _, reason = drop_missing(data, [dv], roles, what=what, nan_policy=nan_policy)
    labels = clean[between].map(level_label)
    stats = (
        clean.assign(_g=labels)
        .groupby("_g", sort=True)[dv]
        .agg(["mean", "size"])
        .rename(columns={"size": "n"})
    )
    stats.index.name = "group"
    stats = stats.reset_index()
    if reason:
        return stats, float("nan"), float("nan"), reason
    if len(stats) < 2:
        return stats, float("nan"), float("nan"), "fewer than 2 groups with data"
    if ms_error is not None and df_error is not None:
        if not (np.isfinite(ms_error) and ms_error > 0 and df_error > 0):
            return stats, float("nan"), float("nan"), "error term must be positive"
        return stats, float(ms_error), float(df_error), ""
    mse, dfe, why = error_term(clean, dv, roles)
    if why:
        return stats, float("nan"), float("nan"), f"no error term: {why}"
    return stats, mse, float(dfe), ""


def pairwise_tukey(
    data: pd.DataFrame,
    dv: str,
    between: str,
    *,
    model: Sequence[str] | None = None,
    ms_error: float | None = None,
    df_error: float | None = None,
    alpha: float = 0.05,
    nan_policy: NanPolicy = "omit",
) -> pd.DataFrame:
    """Tukey-Kramer pairwise comparisons of group means, with a chosen error term.

    ``q = |mean_a - mean_b| / sqrt(MS_E / 2 * (1/n_a + 1/n_b))`` is referred to the
    studentized range distribution with *k* (number of groups) and df_E degrees of
    freedom; the p-value is therefore already family-wise (Tukey) adjusted.

    **Orientation as R's** ``TukeyHSD``: the groups are sorted by label; for each
    pair of an earlier level ``A`` and a later level ``B``, the row has
    ``group_a = B``, ``group_b = A`` (R's row name ``"B-A"``) and
    ``delta = mean_B - mean_A`` (R's ``diff``), with the interval around it (R's
    ``lwr``, ``upr``). Rows come in R's order: ``B-A, C-A, ..., C-B, ...``.

    Parameters
    ----------
    data : pandas.DataFrame
        Long format, one row per observation.
    dv : str
        Numeric dependent variable.
    between : str
        Factor whose levels are compared (e.g. ``"system"``).
    model : sequence of str, optional
        Factors of the ANOVA model whose error term is used, e.g.
        ``["system", "domain"]`` for the two-way SYSTEM x DOMAIN model as in SPSS.
        Default: the one-way model on *between*. Empty cells are allowed.
    ms_error, df_error : float, optional
        An explicit error mean square and its df (override *model*).
    alpha : float
        Level for the confidence intervals and ``reject``.
    nan_policy : {"omit", "not_computable"}
        Missing-value handling (see :mod:`stecflow.stats._common`).

    Returns
    -------
    pandas.DataFrame
        One row per pair, in R's order: ``group_a`` (the later level),
        ``group_b`` (the earlier level), ``mean_a``, ``mean_b``, ``n_a``, ``n_b``,
        ``delta`` (``mean_a - mean_b``, R's ``diff``), ``se`` (standard error of
        ``delta``), ``q`` (studentized range statistic,
        ``|delta| / sqrt(MS_E/2 (1/n_a+1/n_b))``), ``p_adj`` (Tukey p, R's
        ``p adj``), ``ci_low``, ``ci_high`` (simultaneous 1 - alpha interval for
        ``delta``, R's ``lwr`` and ``upr``), ``reject`` (``p_adj < alpha``),
        ``ms_error``, ``df_error``, ``alpha``, ``computable``, ``reason``.

    Notes
    -----
    With the one-way error term this equals R's ``TukeyHSD`` and
    ``scipy.stats.tukey_hsd`` (whose ``statistic[i, j]`` is ``mean_i - mean_j``:
    our ``delta`` for levels ``i < j`` is ``statistic[j, i]``); with a factorial
    error term it equals R's ``TukeyHSD(aov(y ~ a * b), "a")`` for the first
    factor of the model (R adjusts the means of later factors for earlier ones;
    SPSS and this function use the observed marginal means). Levels sort as
    Python sorts strings; R's ``factor()`` sorts by the locale's collation, which
    can order mixed-case labels differently (R in the C locale agrees).

    The p-values are R's ``ptukey`` (:func:`ptukey_sf`, equal to R's to about
    1e-13), computed for all pairs at once: 1,000 groups (499,500 pairs) take
    seconds (``benchmarks/README.md``). The critical range is :func:`ptukey_isf`
    (R's ``qtukey`` stops its search at 1e-4, so intervals agree with R's to
    about 1e-6 relative).

    References
    ----------
    Tukey, J. W. (1953). The problem of multiple comparisons. Unpublished
    manuscript, Princeton University.
    Kramer, C. Y. (1956). Extension of multiple range tests to group means with
    unequal numbers of replications. Biometrics 12(3):307-310.

    Examples
    --------
    REFERENCE.md section 16, example A:

    >>> df = pd.DataFrame({
    ...     "g": list("AAAAABBBBBCCCCCDDDDD"),
    ...     "y": [2, 3, 2.5, 3.5, 3, 3.5, 4, 3, 4.5, 4,
    ...           5, 4.5, 5.5, 4, 5, 6.5, 6, 5.5, 7, 6]})
    >>> res = pairwise_tukey(df, "y", "g")
    >>> res[["group_a", "group_b"]].agg("-".join, axis=1).tolist()
    ['B-A', 'C-A', 'D-A', 'C-B', 'D-B', 'D-C']
    >>> res["delta"].round(6).tolist()[:2]
    [1.0, 2.0]
    >>> res["p_adj"].round(6).tolist()[:4]
    [0.059076, 0.000234, 0.0, 0.059076]
    """
    _check_alpha(alpha)
    stats, mse, dfe, reason = _groups(
        data, dv, between, model, ms_error, df_error, nan_policy, "pairwise_tukey"
    )
    k = len(stats)
    if reason and k < 2:
        return finish_frame(
            [not_computable(reason, alpha=alpha)], PAIRWISE_TUKEY_COLUMNS
        )
    # pairs in R's order: (i < j) column by column, shown as "level_j - level_i"
    i, j = np.triu_indices(k, 1)
    groups = stats["group"].to_numpy(dtype=object)
    frame = pd.DataFrame({"group_a": groups[j], "group_b": groups[i]})
    if reason:
        frame["alpha"] = alpha
        frame["reject"] = False
        frame["computable"] = False
        frame["reason"] = reason
        return finish_frame(frame.to_dict(orient="records"), PAIRWISE_TUKEY_COLUMNS)
    means = stats["mean"].to_numpy(dtype=float)
    ns = stats["n"].to_numpy(dtype=np.int64)
    delta = means[j] - means[i]
    half_var = mse / 2 * (1.0 / ns[i] + 1.0 / ns[j])
    q = np.abs(delta) / np.sqrt(half_var)
    p = np.clip(ptukey_sf(q, k, dfe), 0.0, 1.0)
    margin = ptukey_isf(alpha, k, dfe) * np.sqrt(half_var)
    frame = frame.assign(
        mean_a=means[j],
        mean_b=means[i],
        n_a=ns[j],
        n_b=ns[i],
        delta=delta,
        se=np.sqrt(2 * half_var),
        q=q,
        p_adj=p,
        ci_low=delta - margin,
        ci_high=delta + margin,
        reject=p < alpha,
        ms_error=mse,
        df_error=dfe,
        alpha=alpha,
        computable=True,
        reason="",
    )
    return frame[PAIRWISE_TUKEY_COLUMNS].reset_index(drop=True)


def maximal_subsets(
    values: Sequence[float] | np.ndarray, dcrit: float
) -> list[tuple[int, ...]]:
    """Maximal runs of sorted values whose range does not exceed *dcrit*.

    This is the SPSS homogeneous-subset rule for a single critical range: sort the
    values ascending; for each position *i* take the longest run ``i..j`` with
    ``v(j) - v(i) <= dcrit``; keep the runs not contained in another run. Subsets
    may overlap (unlike a partition).

    Parameters
    ----------
    values : sequence of float
        The values (e.g. group means), in any order.
    dcrit : float
        The critical difference.

    Returns
    -------
    list of tuple of int
        Each subset as a tuple of indices into *values*, members in ascending order
        of value; subsets ordered from the lowest values up.

    References
    ----------
    IBM SPSS Statistics, POSTHOC subcommand (UNIANOVA command): homogeneous subsets.
    Same result as ``statsmodels.sandbox.stats.multicomp.homogeneous_subsets``
    followed by ``set_remove_subs`` (REFERENCE.md section 16).

    Examples
    --------
    The statsmodels docstring case (REFERENCE.md section 25, row 27):

    >>> maximal_subsets([0, 2, 2.5, 3, 6, 8, 9, 9.5, 10], 2)
    [(0, 1), (1, 2, 3), (4, 5), (5, 6, 7, 8)]
    """
    vals = np.asarray(values, dtype=float)
    if vals.ndim != 1 or not np.all(np.isfinite(vals)):
        raise StatsInputError(
            "maximal_subsets: values must be a 1-d array of finite numbers"
        )
    order = np.argsort(vals, kind="stable")
    srt = vals[order]
    k = len(srt)
    tol = 1e-12 * max(1.0, float(np.max(np.abs(srt)))) if k else 0.0
    # The run starting at i ends at j(i), which never decreases with i (two
    # pointers: linear, not quadratic, in k). A run lies inside another one
    # exactly when it ends where the run before it ends.
    keep = []
    j = 0
    for i in range(k):
        j = max(j, i)
        while j + 1 < k and srt[j + 1] - srt[i] <= dcrit + tol:
            j += 1
        if not keep or j > keep[-1][1]:
            keep.append((i, j))
    return [tuple(int(order[p]) for p in range(i, j + 1)) for (i, j) in keep]


def homogeneous_subsets(
    data: pd.DataFrame,
    dv: str,
    between: str,
    *,
    model: Sequence[str] | None = None,
    ms_error: float | None = None,
    df_error: float | None = None,
    alpha: float = 0.05,
    sig_method: str = "studentized_range",
    nan_policy: NanPolicy = "omit",
) -> pd.DataFrame:
    """SPSS-style Tukey HSD homogeneous subsets, with each subset's "Sig.".

    Algorithm (REFERENCE.md section 16): sort the group means ascending; with
    ``n_h = k / sum(1/n_i)`` (harmonic mean group size) and
    ``HSD = q(1 - alpha; k, df_E) * sqrt(MS_E / n_h)``, the subsets are the maximal
    runs of sorted means whose range is at most HSD (:func:`maximal_subsets`);
    ``Sig. = P(Q(k, df_E) >= range / sqrt(MS_E / n_h))``, 1 for a singleton. The
    quantile and the probabilities are R's (:func:`ptukey_isf`,
    :func:`ptukey_sf`); the subsets take linear time in the number of groups
    (1,000 systems: well under a second).

    Parameters
    ----------
    data : pandas.DataFrame
        Long format, one row per observation.
    dv : str
        Numeric dependent variable.
    between : str
        The factor whose levels are grouped (e.g. ``"system"``).
    model : sequence of str, optional
        Factors of the ANOVA model that supplies MS_E and df_E, e.g.
        ``["system", "domain"]`` (SPSS uses the full model's error term in a
        factorial UNIANOVA). Default: the one-way model on *between*.
    ms_error, df_error : float, optional
        Explicit error term (overrides *model*).
    alpha : float
        Significance level of the critical range.
    sig_method : {"studentized_range"}
        How a subset's Sig. is computed (config
        ``statistics.posthoc.subset_sig``); the only method is the formula above, a
        reconstruction of SPSS's algorithm.
    nan_policy : {"omit", "not_computable"}
        Missing-value handling.

    Returns
    -------
    pandas.DataFrame
        Long format, one row per (subset, member group), subsets numbered from 1
        (lowest means) as SPSS prints them left to right, members by ascending mean:
        ``subset``, ``group``, ``mean``, ``n``, ``sig`` (the subset's Sig.),
        ``n_harmonic``, ``q_crit``, ``hsd``, ``ms_error``, ``df_error``, ``alpha``,
        ``computable``, ``reason``. When not computable, a single row with
        ``computable=False``.

    Raises
    ------
    StatsInputError
        For a missing column, a bad *alpha* or an unknown *sig_method*.

    See Also
    --------
    subset_letters : the subsets as letters per group (seed 001, Tables 7 and 9).
    tukey_cld : the compact letter display alternative.

    References
    ----------
    IBM SPSS Statistics, POSTHOC subcommand (UNIANOVA command).
    Tukey, J. W. (1953). The problem of multiple comparisons. Princeton University.

    Examples
    --------
    REFERENCE.md section 16, example A (k = 4, n = 5 per group, MS_E = 0.325):

    >>> df = pd.DataFrame({
    ...     "g": list("AAAAABBBBBCCCCCDDDDD"),
    ...     "y": [2, 3, 2.5, 3.5, 3, 3.5, 4, 3, 4.5, 4,
    ...           5, 4.5, 5.5, 4, 5, 6.5, 6, 5.5, 7, 6]})
    >>> res = homogeneous_subsets(df, "y", "g")
    >>> res.groupby("subset")["group"].agg("".join).tolist()
    ['AB', 'BC', 'D']
    >>> res.groupby("subset")["sig"].first().round(3).tolist()
    [0.059, 0.059, 1.0]
    >>> round(float(res["hsd"][0]), 6), round(float(res["q_crit"][0]), 6)
    (1.031555, 4.046093)
    """
    _check_alpha(alpha)
    if sig_method not in _SUBSET_SIG_METHODS:
        raise StatsInputError(
            f"homogeneous_subsets: sig_method must be one of {_SUBSET_SIG_METHODS}, "
            f"not {sig_method!r}"
        )
    stats, mse, dfe, reason = _groups(
        data, dv, between, model, ms_error, df_error, nan_policy, "homogeneous_subsets"
    )
    if reason:
        return finish_frame([not_computable(reason, alpha=alpha)], SUBSET_COLUMNS)
    k = len(stats)
    means = stats["mean"].to_numpy(dtype=float)
    ns = stats["n"].to_numpy(dtype=float)
    n_h = k / float(np.sum(1.0 / ns))
    scale = np.sqrt(mse / n_h)
    q_crit = ptukey_isf(alpha, k, dfe)
    hsd = q_crit * scale
    subsets = maximal_subsets(means, hsd)
    sizes = np.array([len(m) for m in subsets], dtype=np.int64)
    members = np.fromiter(itertools.chain.from_iterable(subsets), dtype=np.int64)
    ranges = np.array([means[m[-1]] - means[m[0]] for m in subsets])
    sig = np.where(sizes == 1, 1.0, ptukey_sf(ranges / scale, k, dfe))
    number = np.repeat(np.arange(1, len(subsets) + 1), sizes)
    frame = pd.DataFrame(
        {
            "subset": number,
            "group": stats["group"].to_numpy(dtype=object)[members],
            "mean": means[members],
            "n": ns[members].astype(np.int64),
            "sig": np.repeat(sig, sizes),
            "n_harmonic": n_h,
            "q_crit": q_crit,
            "hsd": float(hsd),
            "ms_error": mse,
            "df_error": dfe,
            "alpha": alpha,
            "computable": True,
            "reason": "",
        }
    )
    return frame[SUBSET_COLUMNS]


def _letter_names(count: int, case: Literal["lower", "upper"]) -> list[str]:
    first, second = (
        (string.ascii_lowercase, string.ascii_uppercase)
        if case == "lower"
        else (string.ascii_uppercase, string.ascii_lowercase)
    )
    alphabet = first + second
    names = list(alphabet[:count])
    extra = count - len(names)
    for i in range(extra):  # beyond 52 letters: a1, b1, ...
        names.append(f"{alphabet[i % len(alphabet)]}{i // len(alphabet) + 1}")
    return names


def _join(letters: list[str]) -> str:
    return ("" if all(len(x) == 1 for x in letters) else " ").join(letters)


def _letters_frame(
    groups: Sequence[str],
    columns: Sequence[set[str]],
    means: dict[str, float],
    ns: dict[str, int],
    case: Literal["lower", "upper"],
) -> pd.DataFrame:
    names = _letter_names(len(columns), case)
    rows: list[dict[str, Any]] = []
    for g in groups:
        own = [names[c] for c, col in enumerate(columns) if g in col]
        rows.append(
            ok(
                group=g,
                mean=means.get(g, np.nan),
                n=ns.get(g, np.nan),
                letters=_join(own),
            )
        )
    return finish_frame(rows, LETTER_COLUMNS)


def subset_letters(
    subsets: pd.DataFrame,
    *,
    descending: bool = False,
    case: Literal["lower", "upper"] = "upper",
) -> pd.DataFrame:
    """Homogeneous subsets as one letter string per group (seed 001, Tables 7, 9).

    Parameters
    ----------
    subsets : pandas.DataFrame
        The result of :func:`homogeneous_subsets`.
    descending : bool
        Order groups from the highest mean down and give ``A`` to the subset with
        the highest means (use it when higher is better, e.g. Adequacy); default:
        lowest first (when lower is better, e.g. identification time).
    case : {"upper", "lower"}
        Letter case; the seed's tables use capitals.

    Returns
    -------
    pandas.DataFrame
        One row per group, in the display order: ``group``, ``mean``, ``n``,
        ``letters`` (e.g. ``"AB"``), ``computable``, ``reason``.

    Examples
    --------
    >>> df = pd.DataFrame({
    ...     "g": list("AAAAABBBBBCCCCCDDDDD"),
    ...     "y": [2, 3, 2.5, 3.5, 3, 3.5, 4, 3, 4.5, 4,
    ...           5, 4.5, 5.5, 4, 5, 6.5, 6, 5.5, 7, 6]})
    >>> subset_letters(homogeneous_subsets(df, "y", "g"), descending=True)[
    ...     ["group", "letters"]].values.tolist()
    [['D', 'A'], ['C', 'B'], ['B', 'BC'], ['A', 'C']]
    """
    check_columns(
        subsets,
        ["subset", "group", "mean", "n", "computable", "reason"],
        what="subset_letters",
    )
    if len(subsets) == 0 or not subsets["computable"].all():
        reason = "; ".join(sorted(set(subsets["reason"]) - {""})) or "no subsets"
        return finish_frame([not_computable(reason)], LETTER_COLUMNS)
    per_group = subsets.drop_duplicates("group").set_index("group")
    order = sorted(
        per_group.index, key=lambda g: (per_group.at[g, "mean"], g), reverse=descending
    )
    numbers = sorted(subsets["subset"].unique(), reverse=descending)
    columns = [set(subsets.loc[subsets["subset"] == s, "group"]) for s in numbers]
    frame = _letters_frame(
        order,
        columns,
        per_group["mean"].astype(float).to_dict(),
        per_group["n"].astype(int).to_dict(),
        case,
    )
    frame["n"] = frame["n"].astype(int)
    return frame


def _labels(column: pd.Series) -> pd.Series:
    """``column.map(level_label)``, calling it once per distinct value."""
    codes, uniques = pd.factorize(column, use_na_sentinel=False)
    names = np.array([level_label(u) for u in uniques], dtype=object)
    return pd.Series(names[codes], index=column.index, dtype=object)


def _bits(mask: int) -> list[int]:
    """Positions of the set bits of *mask*, ascending."""
    if mask < (1 << 64):
        out = []
        while mask:
            low = mask & -mask
            out.append(low.bit_length() - 1)
            mask ^= low
        return out
    digits = np.frombuffer(bin(mask)[:1:-1].encode("ascii"), dtype=np.uint8)
    return np.flatnonzero(digits == ord("1")).tolist()


def _maximal_cliques(together: np.ndarray) -> list[int]:
    """All maximal cliques of a graph, as bit masks (Bron-Kerbosch with pivot).

    *together* is the symmetric adjacency matrix (no self-loops) of "not
    significantly different". Piepho's insert-absorb steps (without sweeping)
    end with exactly these cliques: every column they keep is a set of mutually
    non-significant groups, each maximal such set stays inside some column at
    every step, and absorption removes the non-maximal ones. Enumerating them
    directly costs time per clique instead of per significant pair and column.

    References
    ----------
    Bron, C. & Kerbosch, J. (1973). Algorithm 457: finding all cliques of an
    undirected graph. Communications of the ACM 16(9):575-577.
    Tomita, E., Tanaka, A. & Takahashi, H. (2006). The worst-case time complexity
    for generating all maximal cliques. Theoretical Computer Science 363:28-42.
    """
    k = len(together)
    packed = np.packbits(together, axis=1, bitorder="little")
    adj = [int.from_bytes(row.tobytes(), "little") for row in packed]
    cliques: list[int] = []
    stack = [(0, (1 << k) - 1, 0)]  # (clique so far, candidates, excluded)
    while stack:
        clique, cand, excl = stack.pop()
        if not cand:
            if not excl:
                cliques.append(clique)
            continue
        # pivot: the vertex with the most neighbours among the candidates
        pivot = max(_bits(cand | excl), key=lambda v: (cand & adj[v]).bit_count())
        for v in _bits(cand & ~adj[pivot]):
            bit = 1 << v
            stack.append((clique | bit, cand & adj[v], excl & adj[v]))
            cand &= ~bit
            excl |= bit
    return cliques


def _piepho(
    groups: Sequence[str], significant: set[frozenset[str]], sweep: bool
) -> list[set[str]]:
    """Insert-absorb, optionally sweep (Piepho 2004); returns the letter columns."""
    cols: list[set[str]] = [set(groups)]
    position = {g: i for i, g in enumerate(groups)}
    pairs = sorted(significant, key=lambda p: sorted(position[g] for g in p))
    for pair in pairs:
        a, b = sorted(pair, key=position.__getitem__)
        new: list[set[str]] = []
        for col in cols:
            if a in col and b in col:
                new.extend([col - {b}, col - {a}])
            else:
                new.append(col)
        cols = _absorb(new)
    if not sweep:
        return cols
    # Sweep: drop a group from a column when every non-significance it expresses
    # there is also expressed by another column, and the group keeps a letter.
    for c, col in enumerate(cols):
        for g in sorted(col, key=position.__getitem__):
            others = [d for e, d in enumerate(cols) if e != c]
            if not any(g in d for d in others):
                continue
            if all(any(g in d and h in d for d in others) for h in col - {g}):
                col.discard(g)
    return _absorb([c for c in cols if c])


def _absorb(cols: list[set[str]]) -> list[set[str]]:
    """Remove columns contained in another column (keep the first of equal ones)."""
    out: list[set[str]] = []
    for i, col in enumerate(cols):
        contained = any(
            (col < other) or (col == other and j < i)
            for j, other in enumerate(cols)
            if j != i
        )
        if not contained:
            out.append(set(col))
    return out


def compact_letter_display(
    pairwise: pd.DataFrame,
    *,
    alpha: float = 0.05,
    p_col: str = "p_adj",
    order: Sequence[str] | None = None,
    case: Literal["lower", "upper"] = "lower",
    sweep: bool = False,
) -> pd.DataFrame:
    """Compact letter display of pairwise decisions (Piepho 2004).

    Two groups share a letter if and only if they do not differ significantly
    (``p < alpha``). The letters are those of Piepho's insert-absorb algorithm:
    each letter is a maximal set of mutually non-significant groups, and groups
    sharing a letter need not be adjacent in the order of their means. For
    balanced data (one critical difference) these sets are the SPSS homogeneous
    subsets. Insert-absorb ends with exactly the maximal cliques of the graph of
    non-significant pairs, so they are enumerated directly (Bron-Kerbosch with
    pivoting on bit sets): 1,000 groups (499,500 pairs) take about a second
    instead of hours pair by pair.

    Parameters
    ----------
    pairwise : pandas.DataFrame
        One row per pair with columns ``group_a``, ``group_b`` and *p_col*, e.g.
        the result of :func:`pairwise_tukey`. A pair whose p-value is missing (a
        not-computable test) counts as not significant.
    alpha : float
        Significance level.
    p_col : str
        Column with the (adjusted) p-values.
    order : sequence of str, optional
        Display order of the groups (e.g. by mean); letters are named in the order
        in which they first occur along it. Default: sorted group labels.
    case : {"lower", "upper"}
        Letter case.
    sweep : bool
        Also apply Piepho's sweeping step, which removes letters whose
        non-significances are all shown by other letters: fewer letters, but the
        letters are then no longer the maximal sets (nor the SPSS subsets).
        Default False, as R's ``multcompView::multcompLetters``. Sweeping runs
        Piepho's steps pair by pair, which is slow for hundreds of groups.

    Returns
    -------
    pandas.DataFrame
        One row per group in *order*: ``group``, ``mean`` and ``n`` (from
        ``mean_a``/``mean_b`` and ``n_a``/``n_b`` when present, else NaN),
        ``letters``, ``computable``, ``reason``.

    References
    ----------
    Piepho, H.-P. (2004). An algorithm for a letter-based representation of
    all-pairwise comparisons. Journal of Computational and Graphical Statistics
    13(2):456-466. Without ``sweep``, the same letters as R's
    ``multcompView::multcompLetters`` (insert-absorb only).
    Bron, C. & Kerbosch, J. (1973). Algorithm 457: finding all cliques of an
    undirected graph. Communications of the ACM 16(9):575-577.

    Examples
    --------
    REFERENCE.md section 16, example A (Tukey p-values):

    >>> pw = pd.DataFrame({
    ...     "group_a": ["A", "A", "A", "B", "B", "C"],
    ...     "group_b": ["B", "C", "D", "C", "D", "D"],
    ...     "p_adj": [.059076, .000234, 1e-8, .059076, 1e-6, .006503]})
    >>> compact_letter_display(pw)[["group", "letters"]].values.tolist()
    [['A', 'a'], ['B', 'ab'], ['C', 'b'], ['D', 'c']]
    """
    _check_alpha(alpha)
    check_columns(
        pairwise, ["group_a", "group_b", p_col], what="compact_letter_display"
    )
    labels = sorted(
        set(_labels(pairwise["group_a"])) | set(_labels(pairwise["group_b"]))
    )
    if order is None:
        groups = labels
    else:
        groups = [level_label(g) for g in order]
        if sorted(groups) != labels:
            raise StatsInputError(
                "compact_letter_display: order must list each group of pairwise once"
            )
    if not groups:
        return finish_frame([not_computable("no groups")], LETTER_COLUMNS)
    labels_a, labels_b = (_labels(pairwise[col]) for col in ("group_a", "group_b"))
    means: dict[str, float] = {}
    ns: dict[str, int] = {}
    sides = [
        pd.DataFrame({"g": lab, "m": pairwise[f"mean_{x}"], "n": pairwise[f"n_{x}"]})
        for x, lab in (("a", labels_a), ("b", labels_b))
        if f"mean_{x}" in pairwise and f"n_{x}" in pairwise
    ]
    if sides:
        known = pd.concat(sides)
        known = known[known["m"].notna()].drop_duplicates("g", keep="last")
        means = dict(zip(known["g"], known["m"].astype(float), strict=True))
        ns = dict(zip(known["g"], known["n"].astype(int), strict=True))
    position = {g: i for i, g in enumerate(groups)}
    ia = labels_a.map(position).to_numpy(dtype=np.int64)
    ib = labels_b.map(position).to_numpy(dtype=np.int64)
    p = pd.to_numeric(pairwise[p_col], errors="coerce").to_numpy(dtype=float)
    is_sig = np.isfinite(p) & (p < alpha) & (ia != ib)
    if sweep:  # Piepho's insert-absorb and sweep, pair by pair
        significant = {
            frozenset((groups[i], groups[j]))
            for i, j in zip(ia[is_sig], ib[is_sig], strict=True)
        }
        columns = _piepho(groups, significant, sweep)
    else:  # insert-absorb yields exactly the maximal cliques: enumerate them
        k = len(groups)
        together = np.ones((k, k), dtype=bool)
        together[ia[is_sig], ib[is_sig]] = False
        together[ib[is_sig], ia[is_sig]] = False
        np.fill_diagonal(together, False)
        columns = [
            {groups[i] for i in _bits(clique)} for clique in _maximal_cliques(together)
        ]
    position = {g: i for i, g in enumerate(groups)}
    columns.sort(key=lambda col: sorted(position[g] for g in col))
    return _letters_frame(groups, columns, means, ns, case)


def tukey_cld(
    data: pd.DataFrame,
    dv: str,
    between: str,
    *,
    model: Sequence[str] | None = None,
    ms_error: float | None = None,
    df_error: float | None = None,
    alpha: float = 0.05,
    descending: bool = False,
    case: Literal["lower", "upper"] = "lower",
    sweep: bool = False,
    nan_policy: NanPolicy = "omit",
) -> pd.DataFrame:
    """Tukey-Kramer comparisons shown as a compact letter display.

    :func:`pairwise_tukey` followed by :func:`compact_letter_display`, with groups
    ordered by mean.

    Parameters
    ----------
    data, dv, between, model, ms_error, df_error, alpha, nan_policy
        As in :func:`pairwise_tukey`.
    descending : bool
        Order groups from the highest mean down (letter ``a`` goes to the best
        group when higher is better); default lowest first.
    case : {"lower", "upper"}
        Letter case.
    sweep : bool
        Piepho's sweeping step (see :func:`compact_letter_display`).

    Returns
    -------
    pandas.DataFrame
        ``group``, ``mean``, ``n``, ``letters``, ``computable``, ``reason``, one
        row per group in display order.

    References
    ----------
    Kramer (1956); Piepho (2004); see :func:`pairwise_tukey` and
    :func:`compact_letter_display`.

    Examples
    --------
    >>> df = pd.DataFrame({
    ...     "g": list("AAAAABBBBBCCCCCDDDDD"),
    ...     "y": [2, 3, 2.5, 3.5, 3, 3.5, 4, 3, 4.5, 4,
    ...           5, 4.5, 5.5, 4, 5, 6.5, 6, 5.5, 7, 6]})
    >>> tukey_cld(df, "y", "g")["letters"].tolist()
    ['a', 'ab', 'b', 'c']
    """
    pw = pairwise_tukey(
        data,
        dv,
        between,
        model=model,
        ms_error=ms_error,
        df_error=df_error,
        alpha=alpha,
        nan_policy=nan_policy,
    )
    if not pw["computable"].all():
        reason = "; ".join(sorted(set(pw["reason"]) - {""}))
        return finish_frame([not_computable(reason)], LETTER_COLUMNS)
    means = dict(zip(pw["group_a"], pw["mean_a"], strict=True)) | dict(
        zip(pw["group_b"], pw["mean_b"], strict=True)
    )
    order = sorted(means, key=lambda g: (means[g], g), reverse=descending)
    frame = compact_letter_display(pw, alpha=alpha, order=order, case=case, sweep=sweep)
    frame["n"] = frame["n"].astype(int)
    return frame

"""Seeded bootstrap confidence intervals and the paired bootstrap test.

Every function takes the seed as an argument and draws from
``numpy.random.default_rng``; nothing reads global or environment state, so a
result is a pure function of its inputs (STYLE.md section 8). Each group or
system pair gets its own generator, derived from the seed and the group's ID with
SHA-256, so adding a system to a campaign does not change the intervals of the
others.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import stats

from stecflow.stats._common import (
    NanPolicy,
    StatsInputError,
    as_list,
    drop_missing,
    finish_frame,
    is_constant,
    level_label,
    not_computable,
    ok,
)
from stecflow.stats.multitest import adjust_p

__all__ = [
    "BOOTSTRAP_COLUMNS",
    "PAIRED_BOOTSTRAP_COLUMNS",
    "bootstrap_ci",
    "paired_bootstrap",
]

Statistic = Literal["mean", "median"]
Method = Literal["percentile", "bca"]

#: Columns of :func:`bootstrap_ci`.
BOOTSTRAP_COLUMNS = [
    "group",
    "statistic",
    "estimate",
    "ci_low",
    "ci_high",
    "confidence",
    "method",
    "n",
    "n_boot",
    "seed",
    "computable",
    "reason",
]

#: Columns of :func:`paired_bootstrap`.
PAIRED_BOOTSTRAP_COLUMNS = [
    "system",
    "baseline",
    "mean_system",
    "mean_baseline",
    "delta",
    "ci_low",
    "ci_high",
    "p_val",
    "p_adj",
    "confidence",
    "n",
    "n_boot",
    "seed",
    "computable",
    "reason",
]

_STATISTICS: dict[str, Callable[..., np.ndarray]] = {
    "mean": np.mean,
    "median": np.median,
}


def derive_rng(seed: int, *labels: str) -> np.random.Generator:
    """Return a generator seeded from *seed* and string *labels* (via SHA-256).

    Examples
    --------
    >>> a = derive_rng(1, "GRAPH").integers(1000)
    >>> b = derive_rng(1, "GRAPH").integers(1000)
    >>> bool(a == b)
    True
    """
    digest = hashlib.sha256("\x1f".join(labels).encode("utf-8")).digest()
    words = [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4)]
    return np.random.default_rng([int(seed), *words])


def _check(n_boot: int, confidence: float, seed: int) -> None:
    if not isinstance(n_boot, int | np.integer) or n_boot < 1:
        raise StatsInputError(f"n_boot must be a positive integer, not {n_boot!r}")
    if not 0 < confidence < 1:
        raise StatsInputError(f"confidence must lie in (0, 1), not {confidence}")
    if not isinstance(seed, int | np.integer) or isinstance(seed, bool) or seed < 0:
        raise StatsInputError(f"seed must be a non-negative integer, not {seed!r}")


def _bca(
    values: np.ndarray,
    boot: np.ndarray,
    estimate: float,
    func: Callable[..., np.ndarray],
    alpha: float,
) -> tuple[float, float]:
    """Bias-corrected and accelerated percentile interval (Efron 1987)."""
    prop = (np.sum(boot < estimate) + 0.5 * np.sum(boot == estimate)) / len(boot)
    z0 = stats.norm.ppf(np.clip(prop, 1e-12, 1 - 1e-12))
    n = len(values)
    jack = np.array([func(np.delete(values, i)) for i in range(n)])
    diff = jack.mean() - jack
    denom = 6.0 * np.sum(diff**2) ** 1.5
    accel = float(np.sum(diff**3) / denom) if denom > 0 else 0.0
    out = []
    for z_alpha in (stats.norm.ppf(alpha / 2), stats.norm.ppf(1 - alpha / 2)):
        adj = z0 + (z0 + z_alpha) / (1 - accel * (z0 + z_alpha))
        out.append(float(np.quantile(boot, stats.norm.cdf(adj))))
    return out[0], out[1]


def bootstrap_ci(
    data: pd.DataFrame,
    dv: str,
    *,
    seed: int,
    by: str | None = None,
    statistic: Statistic = "mean",
    n_boot: int = 1000,
    confidence: float = 0.95,
    method: Method = "percentile",
    nan_policy: NanPolicy = "omit",
) -> pd.DataFrame:
    """Nonparametric bootstrap confidence interval of a mean or median, per group.

    Observations are resampled with replacement *n_boot* times within each group.

    Parameters
    ----------
    data : pandas.DataFrame
        Long format, one row per observation.
    dv : str
        Numeric variable.
    seed : int
        Seed of ``numpy.random.default_rng``; each group's generator is derived
        from it and the group label, so groups do not influence each other.
    by : str, optional
        Grouping column (e.g. ``"system"``); default: one interval for all rows
        (group ``"all"``).
    statistic : {"mean", "median"}
        The statistic.
    n_boot : int
        Number of bootstrap resamples.
    confidence : float
        Confidence level.
    method : {"percentile", "bca"}
        Percentile interval (quantiles of the bootstrap distribution, numpy's
        linear interpolation) or bias-corrected and accelerated (BCa).
    nan_policy : {"omit", "not_computable"}
        Missing-value handling.

    Returns
    -------
    pandas.DataFrame
        One row per group (sorted): ``group``, ``statistic``, ``estimate`` (on the
        original data), ``ci_low``, ``ci_high``, ``confidence``, ``method``, ``n``,
        ``n_boot``, ``seed``, ``computable``, ``reason``. Fewer than 2 observations
        are not computable; constant data give the degenerate interval.

    References
    ----------
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap.
    Chapman & Hall, ch. 13-14.
    Efron, B. (1987). Better bootstrap confidence intervals. JASA 82:171-185.

    Examples
    --------
    >>> df = pd.DataFrame({"system": list("aaaaabbbbb"),
    ...                    "y": [1, 2, 3, 4, 5, 2, 2, 3, 3, 9]})
    >>> res = bootstrap_ci(df, "y", by="system", seed=42, n_boot=2000)
    >>> res[["group", "estimate"]].values.tolist()
    [['a', 3.0], ['b', 3.8]]
    >>> inside = (res["ci_low"] < res["estimate"]) & (res["estimate"] < res["ci_high"])
    >>> bool(inside.all())
    True
    >>> res.equals(bootstrap_ci(df, "y", by="system", seed=42, n_boot=2000))
    True
    """
    _check(n_boot, confidence, seed)
    if statistic not in _STATISTICS:
        raise StatsInputError(
            f"bootstrap_ci: statistic must be mean or median, not {statistic!r}"
        )
    if method not in ("percentile", "bca"):
        raise StatsInputError(
            f"bootstrap_ci: method must be percentile or bca, not {method!r}"
        )
    func = _STATISTICS[statistic]
    roles = as_list(by)
    clean, _, reason = drop_missing(
        data, [dv], roles, what="bootstrap_ci", nan_policy=nan_policy
    )
    if by is None:
        groups = {"all": clean[dv].to_numpy(dtype=float)}
    else:
        groups = {
            level_label(k): g[dv].to_numpy(dtype=float)
            for k, g in clean.groupby(clean[by].map(level_label), sort=True)
        }
    alpha = 1 - confidence
    rows: list[dict[str, Any]] = []
    common = {
        "statistic": statistic,
        "confidence": confidence,
        "method": method,
        "n_boot": n_boot,
        "seed": seed,
    }
    if not groups:
        groups = {"all": np.array([])}
    for label, values in groups.items():
        base = {"group": label, "n": len(values), **common}
        if reason:
            rows.append(not_computable(reason, **base))
            continue
        if len(values) < 2:
            rows.append(
                not_computable(f"fewer than 2 observations (n = {len(values)})", **base)
            )
            continue
        estimate = float(func(values))
        if is_constant(values):
            rows.append(
                ok(estimate=estimate, ci_low=estimate, ci_high=estimate, **base)
            )
            continue
        rng = derive_rng(seed, "bootstrap_ci", label)
        idx = rng.integers(0, len(values), size=(n_boot, len(values)))
        boot = func(values[idx], axis=1)
        if method == "percentile":
            low, high = (
                float(q) for q in np.quantile(boot, [alpha / 2, 1 - alpha / 2])
            )
        else:
            low, high = _bca(values, boot, estimate, func, alpha)
        rows.append(ok(estimate=estimate, ci_low=low, ci_high=high, **base))
    frame = finish_frame(rows, BOOTSTRAP_COLUMNS)
    for col in ("n", "n_boot", "seed"):
        frame[col] = frame[col].astype(int)
    return frame


def paired_bootstrap(
    data: pd.DataFrame,
    dv: str,
    system: str,
    item: str,
    *,
    baseline: str,
    seed: int,
    systems: Sequence[str] | None = None,
    n_boot: int = 1000,
    confidence: float = 0.95,
    correction: str = "none",
    nan_policy: NanPolicy = "omit",
) -> pd.DataFrame:
    """Paired bootstrap test of each system's mean score against a baseline.

    Items are resampled with replacement, with the same indices for system and
    baseline (Koehn 2004). The p-value is two-sided: the bootstrap differences are
    centred on zero to approximate the null distribution, and
    ``p = (1 + #{|d*_b - mean(d*)| > |d|}) / (n_boot + 1)``, as in sacrebleu's
    ``paired_bs`` test (which takes the +1 from multeval).

    Parameters
    ----------
    data : pandas.DataFrame
        Long format: one row per (system, item) score; duplicates are averaged.
    dv : str
        Numeric per-item score.
    system : str
        Column identifying the system.
    item : str
        Column identifying the item (the resampling unit).
    baseline : str
        The system every other system is compared with.
    seed : int
        Seed; each pair's generator is derived from it and both system IDs, so
        the result of one pair depends only on that pair's data.
    systems : sequence of str, optional
        Systems to compare (default: all but the baseline, sorted).
    n_boot : int
        Number of resamples.
    confidence : float
        Level of the percentile interval for ``delta``.
    correction : {"none", "bonferroni"}
        Correction of the p-values over the compared systems, in ``p_adj``.
    nan_policy : {"omit", "not_computable"}
        Missing-value handling.

    Returns
    -------
    pandas.DataFrame
        One row per system: ``system``, ``baseline``, ``mean_system``,
        ``mean_baseline``, ``delta`` (system minus baseline, over the items both
        have), ``ci_low``, ``ci_high`` (percentile interval of the bootstrap
        deltas), ``p_val``, ``p_adj``, ``confidence``, ``n`` (shared items),
        ``n_boot``, ``seed``, ``computable``, ``reason``.

    References
    ----------
    Koehn, P. (2004). Statistical significance tests for machine translation
    evaluation. EMNLP 2004, pp. 388-395.
    Post, M. (2018). A call for clarity in reporting BLEU scores. WMT 2018
    (sacrebleu; ``sacrebleu/significance.py``).

    Examples
    --------
    >>> df = pd.DataFrame({"system": ["base"] * 6 + ["new"] * 6,
    ...                    "item": list(range(6)) * 2,
    ...                    "score": [.2, .4, .1, .5, .3, .2, .5, .6, .4, .8, .5, .6]})
    >>> res = paired_bootstrap(df, "score", "system", "item", baseline="base", seed=1)
    >>> res[["system", "n"]].values.tolist(), round(float(res.at[0, "delta"]), 2)
    ([['new', 6]], 0.28)
    >>> bool(res.at[0, "p_val"] < 0.01)
    True
    """
    _check(n_boot, confidence, seed)
    clean, _, reason = drop_missing(
        data, [dv], [system, item], what="paired_bootstrap", nan_policy=nan_policy
    )
    clean = clean.assign(
        _s=clean[system].map(level_label), _i=clean[item].map(level_label)
    )
    wide = clean.pivot_table(
        index="_i", columns="_s", values=dv, aggfunc="mean", sort=True
    )
    baseline = level_label(baseline)
    if systems is None:
        targets = [s for s in wide.columns if s != baseline]
    else:
        targets = [level_label(s) for s in systems]
    alpha = 1 - confidence
    rows: list[dict[str, Any]] = []
    common = {
        "baseline": baseline,
        "confidence": confidence,
        "n_boot": n_boot,
        "seed": seed,
    }
    if not targets:
        rows.append(
            not_computable("no system to compare with the baseline", n=0, **common)
        )
    for name in targets:
        base = {"system": name, **common}
        if reason:
            rows.append(not_computable(reason, n=0, **base))
            continue
        missing = [s for s in (name, baseline) if s not in wide.columns]
        if missing:
            rows.append(
                not_computable(f"no data for system {missing[0]!r}", n=0, **base)
            )
            continue
        pair = wide[[name, baseline]].dropna()
        n = len(pair)
        if n < 2:
            rows.append(
                not_computable(f"fewer than 2 shared items (n = {n})", n=n, **base)
            )
            continue
        x, y = pair[name].to_numpy(dtype=float), pair[baseline].to_numpy(dtype=float)
        d = x - y
        delta = float(d.mean())
        values = {"mean_system": float(x.mean()), "mean_baseline": float(y.mean())}
        if is_constant(d):
            rows.append(
                not_computable(
                    "the per-item differences are constant",
                    n=n,
                    delta=delta,
                    **values,
                    **base,
                )
            )
            continue
        rng = derive_rng(seed, "paired_bootstrap", name, baseline)
        idx = rng.integers(0, n, size=(n_boot, n))
        boot = d[idx].mean(axis=1)
        centred = np.abs(boot - boot.mean())
        p = (int(np.sum(centred > abs(delta))) + 1) / (n_boot + 1)
        low, high = (float(q) for q in np.quantile(boot, [alpha / 2, 1 - alpha / 2]))
        rows.append(
            ok(delta=delta, ci_low=low, ci_high=high, p_val=p, n=n, **values, **base)
        )
    frame = finish_frame(rows, PAIRED_BOOTSTRAP_COLUMNS)
    frame["p_adj"] = adjust_p(frame["p_val"].to_numpy(dtype=float), correction)
    for col in ("n", "n_boot", "seed"):
        frame[col] = frame[col].astype(int)
    return frame

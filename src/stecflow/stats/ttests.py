"""Paired (dependent-samples) t-tests.

Used to compare two systems (or two conditions) on scores paired by item or by
subject, e.g. the counterbalanced identification study of seed 000 and the
system-versus-baseline comparisons of a campaign. REFERENCE.md section 19.
"""

from __future__ import annotations

import itertools
from typing import Literal

import pandas as pd
from scipy import stats

from stecflow.stats._common import (
    NanPolicy,
    StatsInputError,
    drop_missing,
    finish_frame,
    is_constant,
    level_label,
    not_computable,
    ok,
)
from stecflow.stats.multitest import adjust_p

__all__ = ["PAIRED_COLUMNS", "paired_ttest", "pairwise_paired_ttests"]

Alternative = Literal["two-sided", "less", "greater"]

#: Columns of :func:`paired_ttest` (and, with ``p_adj`` and ``correction`` added
#: after ``p_val``, of :func:`pairwise_paired_ttests`).
PAIRED_COLUMNS = [
    "level_a",
    "level_b",
    "mean_a",
    "mean_b",
    "delta",
    "t",
    "df",
    "p_val",
    "ci_low",
    "ci_high",
    "dz",
    "alternative",
    "n",
    "n_missing",
    "computable",
    "reason",
]


def _wide(
    data: pd.DataFrame,
    dv: str,
    within: str,
    subject: str,
    nan_policy: NanPolicy,
    what: str,
) -> tuple[pd.DataFrame, int, str]:
    """One row per subject, one column per level (duplicates averaged)."""
    if within == subject:
        raise StatsInputError(f"{what}: within and subject must be different columns")
    clean, n_missing, reason = drop_missing(
        data, [dv], [within, subject], what=what, nan_policy=nan_policy
    )
    clean = clean.assign(
        _w=clean[within].map(level_label), _s=clean[subject].map(level_label)
    )
    wide = clean.pivot_table(
        index="_s", columns="_w", values=dv, aggfunc="mean", sort=True
    )
    return wide, n_missing, reason


def _one(
    wide: pd.DataFrame,
    a: str,
    b: str,
    n_missing_rows: int,
    reason: str,
    alternative: Alternative,
    confidence: float,
) -> dict[str, object]:
    base: dict[str, object] = {"level_a": a, "level_b": b, "alternative": alternative}
    if a not in wide.columns or b not in wide.columns:
        missing = a if a not in wide.columns else b
        return not_computable(
            f"no data for level {missing!r}", n=0, n_missing=n_missing_rows, **base
        )
    pair = wide[[a, b]]
    complete = pair.dropna()
    n = len(complete)
    base["n"] = n
    base["n_missing"] = n_missing_rows + int(len(pair) - n)
    if reason:
        return not_computable(reason, **base)
    if n < 2:
        return not_computable(f"fewer than 2 complete pairs (n = {n})", **base)
    x = complete[a].to_numpy(dtype=float)
    y = complete[b].to_numpy(dtype=float)
    d = x - y
    if is_constant(d):
        return not_computable(
            "the paired differences are constant (zero variance)", **base
        )
    res = stats.ttest_rel(x, y, alternative=alternative)
    ci = res.confidence_interval(confidence_level=confidence)
    return ok(
        mean_a=float(x.mean()),
        mean_b=float(y.mean()),
        delta=float(d.mean()),
        t=float(res.statistic),
        df=int(n - 1),
        p_val=float(res.pvalue),
        ci_low=float(ci.low),
        ci_high=float(ci.high),
        dz=float(d.mean() / d.std(ddof=1)),
        **base,
    )


def _check(alternative: str, confidence: float) -> None:
    if alternative not in ("two-sided", "less", "greater"):
        raise StatsInputError(
            f"alternative must be two-sided, less or greater, not {alternative!r}"
        )
    if not 0 < confidence < 1:
        raise StatsInputError(f"confidence must lie in (0, 1), not {confidence}")


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    frame["df"] = frame["df"].astype("Int64")
    frame["n"] = frame["n"].fillna(0).astype(int)
    frame["n_missing"] = frame["n_missing"].fillna(0).astype(int)
    return frame


def paired_ttest(
    data: pd.DataFrame,
    dv: str,
    within: str,
    subject: str,
    *,
    a: str | None = None,
    b: str | None = None,
    alternative: Alternative = "two-sided",
    confidence: float = 0.95,
    nan_policy: NanPolicy = "omit",
) -> pd.DataFrame:
    """Paired t-test of *dv* between two levels of *within*, paired by *subject*.

    Parameters
    ----------
    data : pandas.DataFrame
        Long format, one row per observation.
    dv : str
        Numeric dependent variable.
    within : str
        Column with the two conditions compared (e.g. ``"system"``).
    subject : str
        Column with the pairing unit (subject or item). Several rows of one
        subject and level are averaged first; subjects without both levels are
        dropped (counted in ``n_missing``).
    a, b : str, optional
        The two levels to compare (``delta = mean_a - mean_b``). Default: the two
        levels of *within*, sorted (an error if there are not exactly two).
    alternative : {"two-sided", "less", "greater"}
        Alternative hypothesis about ``mean_a - mean_b``.
    confidence : float
        Confidence level of the interval for ``delta``.
    nan_policy : {"omit", "not_computable"}
        Missing-value handling.

    Returns
    -------
    pandas.DataFrame
        One row: ``level_a``, ``level_b``, ``mean_a``, ``mean_b``, ``delta``,
        ``t``, ``df`` (n - 1), ``p_val``, ``ci_low``, ``ci_high``, ``dz`` (Cohen's
        d_z, mean difference over its SD), ``alternative``, ``n`` (complete pairs),
        ``n_missing`` (rows and unpaired subjects dropped), ``computable``,
        ``reason``.

    Raises
    ------
    StatsInputError
        For a missing column, an unknown option, or when *a*/*b* are not given and
        *within* does not have exactly two levels.

    References
    ----------
    Student (1908). The probable error of a mean. Biometrika 6(1):1-25.
    ``scipy.stats.ttest_rel``; R ``t.test(x, y, paired = TRUE)``.
    Cohen, J. (1988). Statistical Power Analysis for the Behavioral Sciences, 2nd
    ed. (d_z).

    Examples
    --------
    REFERENCE.md section 19:

    >>> x = [2.1, 2.5, 1.9, 2.8, 2.4, 2.2]
    >>> z = [2.4, 2.6, 2.3, 3.1, 2.5, 2.6]
    >>> df = pd.DataFrame({"item": list(range(6)) * 2, "system": ["x"] * 6 + ["z"] * 6,
    ...                    "score": x + z})
    >>> res = paired_ttest(df, "score", "system", "item")
    >>> res.loc[0, ["t", "df", "p_val"]].astype(float).round(6).tolist()
    [-4.780914, 5.0, 0.004967]
    """
    _check(alternative, confidence)
    wide, n_missing, reason = _wide(
        data, dv, within, subject, nan_policy, "paired_ttest"
    )
    if a is None or b is None:
        if a is not None or b is not None:
            raise StatsInputError("paired_ttest: give both a and b, or neither")
        levels = list(wide.columns)
        if len(levels) != 2:
            raise StatsInputError(
                f"paired_ttest: {within!r} has {len(levels)} levels; give a and b",
                field=within,
            )
        a, b = levels
    row = _one(
        wide, level_label(a), level_label(b), n_missing, reason, alternative, confidence
    )
    return _typed(finish_frame([row], PAIRED_COLUMNS))


def pairwise_paired_ttests(
    data: pd.DataFrame,
    dv: str,
    within: str,
    subject: str,
    *,
    correction: str = "bonferroni",
    alternative: Alternative = "two-sided",
    confidence: float = 0.95,
    nan_policy: NanPolicy = "omit",
) -> pd.DataFrame:
    """Paired t-tests between every pair of levels of *within*, Bonferroni-corrected.

    Parameters
    ----------
    data, dv, within, subject, alternative, confidence, nan_policy
        As in :func:`paired_ttest`; each pair uses the subjects that have both
        levels.
    correction : {"bonferroni", "none"}
        Correction over the computable pairs.

    Returns
    -------
    pandas.DataFrame
        One row per pair of levels (sorted), with the columns of
        :func:`paired_ttest` plus ``p_adj`` and ``correction`` after ``p_val``.

    Examples
    --------
    >>> df = pd.DataFrame({"item": [1, 2, 3, 4] * 3, "system": list("aaaabbbbcccc"),
    ...                    "y": [1, 2, 3, 4, 2, 3, 5, 5, 1, 1, 2, 5]})
    >>> res = pairwise_paired_ttests(df, "y", "system", "item")
    >>> res[["level_a", "level_b", "n"]].values.tolist()
    [['a', 'b', 4], ['a', 'c', 4], ['b', 'c', 4]]
    """
    _check(alternative, confidence)
    wide, n_missing, reason = _wide(
        data, dv, within, subject, nan_policy, "pairwise_paired_ttests"
    )
    columns = PAIRED_COLUMNS[:8] + ["p_adj", "correction"] + PAIRED_COLUMNS[8:]
    levels = list(wide.columns)
    if len(levels) < 2:
        row = not_computable(
            reason or "fewer than 2 levels with data", correction=correction
        )
        return _typed(finish_frame([row], columns))
    rows = [
        _one(wide, x, y, n_missing, reason, alternative, confidence)
        | {"correction": correction}
        for x, y in itertools.combinations(levels, 2)
    ]
    frame = finish_frame(rows, columns)
    frame["p_adj"] = adjust_p(frame["p_val"].to_numpy(dtype=float), correction)
    return _typed(frame)

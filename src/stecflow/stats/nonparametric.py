"""Rank-based tests: Kruskal-Wallis H and pairwise Mann-Whitney U follow-ups.

TUNA-REG'09 (seed 001, sections 5.1 and 5.3) and ASGRE'07 (seed 003, section 4) test
accuracy indicators (0/1 per trial) across systems with a Kruskal-Wallis test,
reported as a chi-square: "chi2_7 = 44.98; p < .001". REFERENCE.md section 17.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
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

__all__ = ["KRUSKAL_COLUMNS", "MANNWHITNEY_COLUMNS", "kruskal", "pairwise_mannwhitney"]

#: Columns of :func:`kruskal`.
KRUSKAL_COLUMNS = [
    "source",
    "h",
    "df",
    "p_val",
    "n",
    "n_groups",
    "n_missing",
    "computable",
    "reason",
]

#: Columns of :func:`pairwise_mannwhitney`.
MANNWHITNEY_COLUMNS = [
    "group_a",
    "group_b",
    "n_a",
    "n_b",
    "u",
    "p_val",
    "p_adj",
    "correction",
    "computable",
    "reason",
]


def _split(
    data: pd.DataFrame, dv: str, between: str, nan_policy: NanPolicy, what: str
) -> tuple[dict[str, np.ndarray], int, str]:
    if not isinstance(between, str):
        raise StatsInputError(f"{what}: between must be one column name")
    clean, n_missing, reason = drop_missing(
        data, [dv], [between], what=what, nan_policy=nan_policy
    )
    groups = {
        level_label(k): g[dv].to_numpy(dtype=float)
        for k, g in clean.groupby(clean[between].map(level_label), sort=True)
    }
    return groups, n_missing, reason


def kruskal(
    data: pd.DataFrame,
    dv: str,
    between: str,
    *,
    nan_policy: NanPolicy = "omit",
) -> pd.DataFrame:
    """Kruskal-Wallis H test of *dv* across the levels of *between*.

    H is corrected for ties and referred to the chi-square distribution with
    k - 1 df, as SPSS and ``scipy.stats.kruskal`` do. For 0/1 data (accuracy
    indicators) the tie-corrected H equals (N - 1) / N times Pearson's chi-square
    of the k x 2 table (REFERENCE.md section 17).

    Parameters
    ----------
    data : pandas.DataFrame
        Long format, one row per observation (e.g. per trial).
    dv : str
        Numeric (or boolean) dependent variable.
    between : str
        Grouping factor (e.g. ``"system"``).
    nan_policy : {"omit", "not_computable"}
        Missing-value handling.

    Returns
    -------
    pandas.DataFrame
        One row: ``source`` (= *between*), ``h`` (tie-corrected H, the chi-square
        statistic), ``df`` (k - 1), ``p_val``, ``n``, ``n_groups``, ``n_missing``,
        ``computable``, ``reason``. Not computable with fewer than 2 groups or when
        all values are equal (H is 0/0).

    References
    ----------
    Kruskal, W. H. & Wallis, W. A. (1952). Use of ranks in one-criterion variance
    analysis. JASA 47(260):583-621.

    Examples
    --------
    REFERENCE.md section 17:

    >>> acc = {"A": [1, 1, 1, 1, 1, 1, 0, 1, 1, 1],
    ...        "B": [1, 0, 1, 0, 1, 1, 0, 1, 0, 1],
    ...        "C": [0, 0, 1, 0, 1, 0, 0, 1, 0, 0]}
    >>> df = pd.DataFrame([(s, y) for s, ys in acc.items() for y in ys],
    ...                   columns=["system", "correct"])
    >>> res = kruskal(df, "correct", "system")
    >>> res.loc[0, ["h", "df", "p_val"]].astype(float).round(6).tolist()
    [7.25, 2.0, 0.026649]
    """
    groups, n_missing, reason = _split(data, dv, between, nan_policy, "kruskal")
    n = int(sum(len(g) for g in groups.values()))
    base = {"source": between, "n": n, "n_groups": len(groups), "n_missing": n_missing}
    if not reason:
        if len(groups) < 2:
            reason = "fewer than 2 groups with data"
        elif is_constant(np.concatenate(list(groups.values()))):
            reason = f"dv {dv!r} is constant: all values tie"
    if reason:
        row = not_computable(reason, **base)
    else:
        res = stats.kruskal(*groups.values())
        row = ok(
            h=float(res.statistic), df=len(groups) - 1, p_val=float(res.pvalue), **base
        )
    frame = finish_frame([row], KRUSKAL_COLUMNS)
    frame["df"] = frame["df"].astype("Int64")
    return frame


def pairwise_mannwhitney(
    data: pd.DataFrame,
    dv: str,
    between: str,
    *,
    correction: str = "bonferroni",
    nan_policy: NanPolicy = "omit",
) -> pd.DataFrame:
    """Pairwise two-sided Mann-Whitney U tests, Bonferroni-corrected.

    The follow-up to a significant Kruskal-Wallis test suggested in REFERENCE.md
    section 17. Uses ``scipy.stats.mannwhitneyu`` with the normal approximation
    with tie and continuity correction (``method="asymptotic"``), as SPSS and R's
    ``wilcox.test(exact = FALSE)`` do.

    Parameters
    ----------
    data, dv, between, nan_policy
        As in :func:`kruskal`.
    correction : {"bonferroni", "none"}
        Correction over the k (k - 1) / 2 pairs.

    Returns
    -------
    pandas.DataFrame
        One row per pair (groups sorted by label): ``group_a``, ``group_b``,
        ``n_a``, ``n_b``, ``u`` (U of ``group_a``), ``p_val``, ``p_adj``,
        ``correction``, ``computable``, ``reason``.

    References
    ----------
    Mann, H. B. & Whitney, D. R. (1947). On a test of whether one of two random
    variables is stochastically larger than the other. Ann. Math. Stat. 18:50-60.

    Examples
    --------
    >>> df = pd.DataFrame({"g": list("aaaabbbbcccc"),
    ...                    "y": [1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 5]})
    >>> pairwise_mannwhitney(df, "y", "g")[["group_a", "group_b", "u"]].values.tolist()
    [['a', 'b', 0.0], ['a', 'c', 7.5], ['b', 'c', 15.5]]
    """
    groups, _, reason = _split(data, dv, between, nan_policy, "pairwise_mannwhitney")
    labels = list(groups)
    rows: list[dict[str, Any]] = []
    if len(labels) < 2:
        return finish_frame(
            [
                not_computable(
                    reason or "fewer than 2 groups with data", correction=correction
                )
            ],
            MANNWHITNEY_COLUMNS,
        )
    for a, b in itertools.combinations(labels, 2):
        x, y = groups[a], groups[b]
        base = {
            "group_a": a,
            "group_b": b,
            "n_a": len(x),
            "n_b": len(y),
            "correction": correction,
        }
        if reason:
            rows.append(not_computable(reason, **base))
        elif is_constant(np.concatenate([x, y])):
            rows.append(not_computable("all values tie in this pair", **base))
        else:
            res = stats.mannwhitneyu(x, y, alternative="two-sided", method="asymptotic")
            rows.append(ok(u=float(res.statistic), p_val=float(res.pvalue), **base))
    frame = finish_frame(rows, MANNWHITNEY_COLUMNS)
    frame["p_adj"] = adjust_p(frame["p_val"].to_numpy(dtype=float), correction)
    return frame

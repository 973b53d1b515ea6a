"""How far the system rankings of several evaluation designs agree.

Seed 001 §6 plans "a direct comparison between different designs for
human-assessed intrinsic evaluations (e.g. comparing the slider design reported
here to preference judgments and rating scales)". Given each design's score per
system (higher better), :func:`design_correlations` gives, for every pair of
designs, Spearman's rho and Kendall's tau-b with their two-sided p-values
(:func:`scipy.stats.spearmanr`, :func:`scipy.stats.kendalltau`) and the share
of system pairs the two designs order the same way; :func:`kendalls_w` the
agreement of all the rankings together (Kendall's coefficient of concordance W
with the correction for ties, and its chi-square test).

May import: :mod:`stecflow.core`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

__all__ = ["average_ranks", "design_correlations", "kendalls_w", "MIN_SYSTEMS"]

#: The fewest systems a correlation between two designs is computed over.
MIN_SYSTEMS = 3


def average_ranks(values: Sequence[float]) -> list[float]:
    """Ranks from 1 (the highest value) with ties given their average rank.

    >>> average_ranks([0.5, 0.9, 0.5, 0.1])
    [2.5, 1.0, 2.5, 4.0]
    """
    order = sorted(range(len(values)), key=lambda i: -values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def _same_order(a: Sequence[float], b: Sequence[float]) -> float:
    """The share of pairs of systems both designs order alike (a pair tied in
    one design and not the other counts half)."""
    pairs = list(combinations(range(len(a)), 2))
    if not pairs:
        return math.nan
    total = 0.0
    for i, j in pairs:
        da, db = a[i] - a[j], b[i] - b[j]
        if da * db > 0 or (da == 0 and db == 0):
            total += 1
        elif da == 0 or db == 0:
            total += 0.5
    return total / len(pairs)


def design_correlations(
    scores: Mapping[str, Mapping[str, float]],
) -> list[dict[str, Any]]:
    """Rank correlations between every pair of designs, over their shared systems.

    Parameters
    ----------
    scores
        Design -> system -> score (higher is better), designs in report order.

    Returns
    -------
    list of dict
        One row per pair of designs (in the given order): ``design_a``,
        ``design_b``, ``n`` (systems scored by both), ``spearman_rho``,
        ``spearman_p``, ``kendall_tau`` (tau-b), ``kendall_p``, ``same_order``
        (share of system pairs ordered alike), ``same_best`` (both rank the
        same system first), ``computable`` and ``reason`` (fewer than
        :data:`MIN_SYSTEMS` systems, or a design giving every system the same
        score).

    Examples
    --------
    >>> rows = design_correlations({"slider": {"A": 3, "B": 2, "C": 1, "D": 4},
    ...                             "likert": {"A": 2, "B": 3, "C": 1, "D": 4}})
    >>> r = rows[0]
    >>> round(r["spearman_rho"], 4), round(r["kendall_tau"], 4), r["same_order"]
    (0.8, 0.6667, 0.8333333333333334)
    """
    from scipy import stats

    rows = []
    for a, b in combinations(list(scores), 2):
        shared = sorted(set(scores[a]) & set(scores[b]))
        x = [float(scores[a][s]) for s in shared]
        y = [float(scores[b][s]) for s in shared]
        row: dict[str, Any] = {"design_a": a, "design_b": b, "n": len(shared)}
        reason = ""
        if len(shared) < MIN_SYSTEMS:
            reason = f"{len(shared)} systems scored by both; at least {MIN_SYSTEMS}"
        elif len(set(x)) < 2 or len(set(y)) < 2:
            reason = "a design gives every system the same score"
        if reason:
            row.update(
                spearman_rho=math.nan,
                spearman_p=math.nan,
                kendall_tau=math.nan,
                kendall_p=math.nan,
                same_order=_same_order(x, y) if shared else math.nan,
                same_best=False,
                computable=False,
                reason=reason,
            )
        else:
            rho, p_rho = stats.spearmanr(x, y)
            tau, p_tau = stats.kendalltau(x, y)
            best_a = {s for s, v in zip(shared, x, strict=True) if v == max(x)}
            best_b = {s for s, v in zip(shared, y, strict=True) if v == max(y)}
            row.update(
                spearman_rho=float(rho),
                spearman_p=float(p_rho),
                kendall_tau=float(tau),
                kendall_p=float(p_tau),
                same_order=_same_order(x, y),
                same_best=best_a == best_b,
                computable=True,
                reason="",
            )
        rows.append(row)
    return rows


def kendalls_w(scores: Mapping[str, Mapping[str, float]]) -> dict[str, Any]:
    """Kendall's W of the designs' rankings of the systems all of them score.

    ``W = 12 S / (m^2 (n^3 - n) - m T)``, where *m* designs rank *n* systems
    (average ranks for ties), ``S`` is the sum of squared deviations of the
    systems' rank sums from their mean and ``T`` the sum over designs and tie
    groups of ``t^3 - t``; ``chi2 = m (n - 1) W`` on ``n - 1`` degrees of
    freedom (Kendall & Babington Smith 1939).

    >>> w = kendalls_w({"a": {"A": 3, "B": 2, "C": 1}, "b": {"A": 3, "B": 1, "C": 2}})
    >>> w["n"], w["m"], w["w"]
    (3, 2, 0.75)
    """
    from scipy import stats

    systems = sorted(set.intersection(*(set(v) for v in scores.values())))
    m, n = len(scores), len(systems)
    result: dict[str, Any] = {"systems": systems, "m": m, "n": n}
    if m < 2 or n < MIN_SYSTEMS:
        return {**result, "w": math.nan, "chi2": math.nan, "df": max(n - 1, 0),
                "p_value": math.nan, "computable": False,
                "reason": f"{n} systems scored by every design; at least"
                f" {MIN_SYSTEMS}"}  # fmt: skip
    sums = [0.0] * n
    ties = 0.0
    for by_system in scores.values():
        values = [float(by_system[s]) for s in systems]
        for k, r in enumerate(average_ranks(values)):
            sums[k] += r
        for value in set(values):
            t = values.count(value)
            ties += t**3 - t
    mean = sum(sums) / n
    s = sum((r - mean) ** 2 for r in sums)
    denominator = m**2 * (n**3 - n) - m * ties
    if denominator <= 0:
        return {**result, "w": math.nan, "chi2": math.nan, "df": n - 1,
                "p_value": math.nan, "computable": False,
                "reason": "every design gives every system the same score"}  # fmt: skip
    w = 12 * s / denominator
    chi2 = m * (n - 1) * w
    return {
        **result,
        "w": w,
        "chi2": chi2,
        "df": n - 1,
        "p_value": float(stats.chi2.sf(chi2, n - 1)),
        "computable": True,
        "reason": "",
    }

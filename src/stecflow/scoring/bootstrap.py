"""Subsets of the test set and the bootstrap resampling of its items.

The subsets scores are reported on (all items, each subdomain, each condition,
and each value of the meta fields a campaign names in ``data.subsets``), and the
seeded resampling counts and percentile intervals of REFERENCE.md: the same seed
and subset give the same resamples for every system.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.metrics`.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import Any

from stecflow.data.model import Item

__all__ = ["bootstrap_intervals", "subsets_of"]


def subsets_of(
    items: Sequence[Item], fields: Sequence[str] = ()
) -> list[tuple[str, str, list[int]]]:
    """The subsets scores are reported on: all, each subdomain, each condition,
    then each value of each meta field in *fields*.

    Returns ``(kind, name, indices)`` triples in a fixed order; subdomains and
    conditions are sorted, items without a condition are in no condition subset.
    A meta field (config ``data.subsets``; an item's :attr:`~Item.extra`) gives
    one subset per value, sorted, its kind the field's name (as WebNLG reports
    seen and unseen categories); items without the field are in none of them.

    >>> from stecflow.data.model import Domain
    >>> items = [Item(f"t{n}", Domain(()), "all", extra=(("seen", s),))
    ...          for n, s in enumerate(["seen", "unseen", "seen"])]
    >>> subsets_of(items, ["seen"])
    [('all', 'all', [0, 1, 2]), ('seen', 'seen', [0, 2]), ('seen', 'unseen', [1])]
    """
    subsets = [("all", "all", list(range(len(items))))]
    for kind, key in (("subdomain", "subdomain"), ("condition", "condition")):
        values = sorted({getattr(i, key) for i in items if getattr(i, key)})
        if kind == "subdomain" and len(values) < 2:
            continue
        for value in values:
            subsets.append(
                (
                    kind,
                    value,
                    [n for n, i in enumerate(items) if getattr(i, key) == value],
                )
            )
    metas = [dict(i.extra) for i in items]
    for field in dict.fromkeys(fields):
        for value in sorted({m[field] for m in metas if field in m}):
            subsets.append(
                (
                    field,
                    value,
                    [n for n, m in enumerate(metas) if m.get(field) == value],
                )
            )
    return subsets


def _rng_seed(seed: int, *parts: str) -> int:
    digest = hashlib.sha256("\x1f".join([str(seed), *parts]).encode()).digest()
    return int.from_bytes(digest[:8], "little")


def _bootstrap_counts(n: int, resamples: int, seed: int, subset: str) -> Any:
    """How often each of *n* items is drawn in each resample (resamples × n).

    The draws depend only on the seed, the subset and n, so every system gets the
    same resampled items for a subset and intervals compare like with like. The
    counts are whole numbers held as float64 (exact), so that every metric's
    resampled statistics are one BLAS product with them, without a cast or copy.

    The draws are those of one ``rng.integers(0, n, size=(resamples, n))`` call,
    made a block of rows at a time (numpy draws both from the same stream of
    32-bit words, tested), so only the counts matrix is ever whole in memory;
    each block's counts are one ``bincount``.
    """
    import numpy as np

    if n < 2 or resamples <= 0:
        return None
    rng = np.random.default_rng(_rng_seed(seed, subset, str(n)))
    counts = np.empty((resamples, n), dtype=np.float64)
    step = max(1, _BLOCK // n)  # rows per block
    for start in range(0, resamples, step):
        rows = min(step, resamples - start)
        drawn = rng.integers(0, n, size=(rows, n), dtype=np.int64)
        drawn += np.arange(0, rows * n, n, dtype=np.int64)[:, None]  # row offsets
        block = np.bincount(drawn.ravel(), minlength=rows * n)
        counts[start : start + rows] = block.reshape(rows, n)
    return counts


#: Draws per block of :func:`_bootstrap_counts` (8 MB of int64 indices).
_BLOCK = 1 << 20


def _resample_scores(
    metric: Any, stats: Sequence[tuple[float, ...]], counts: Any, scores: Any = None
) -> Any:
    """The metric's score on each resample (an array): ``metric.resample_scores``
    computed without copying *counts*.

    An item-level metric that keeps the generic mean of defined item scores
    (:meth:`~stecflow.metrics.base.Metric.resample_scores`) and is defined on
    every item is one matrix-vector product ``counts @ scores / n``: the product
    the generic method computes, on the same numbers in the same layout (so the
    same bits), without its copy of the drawn columns. *scores* are the item
    scores of *stats* if the caller has them. Every other metric (undefined
    items, corpus formulas) goes through its own method.
    """
    import numpy as np

    if _generic_mean(metric):
        if scores is None:
            scores = _item_scores(metric, stats)
        if not np.isnan(scores).any():
            return (counts @ scores) / len(stats)
    return np.array(metric.resample_scores(stats, counts), dtype=float)


def _generic_mean(metric: Any) -> bool:
    from stecflow.metrics.base import Metric

    return metric.level == "item" and (
        type(metric).resample_scores is Metric.resample_scores
    )


def _item_scores(metric: Any, stats: Sequence[tuple[float, ...]]) -> Any:
    import numpy as np

    return np.fromiter(
        map(metric.score_from_stats, stats), dtype=float, count=len(stats)
    )


def _interval(values: Any, confidence: float) -> tuple[float, float]:
    import numpy as np

    values = values[~np.isnan(values)]
    if values.size == 0:
        return math.nan, math.nan
    alpha = (1 - confidence) / 2
    ordered = np.sort(values)
    return _quantile(ordered, alpha), _quantile(ordered, 1 - alpha)


def _quantile(ordered: Any, q: float) -> float:
    """``np.quantile(ordered, q)`` (its default, linear method), bit for bit.

    The same operations as NumPy's ``_quantile`` and ``_lerp`` on an array
    already sorted; ``np.quantile`` itself calls ``np.unique``, which loads
    ``numpy.ma`` (several milliseconds of every scoring job).
    """
    last = ordered.size - 1
    position = last * q
    if position >= last:
        return float(ordered[last])
    below = math.floor(position)
    low, high = float(ordered[below]), float(ordered[below + 1])
    weight = position - below
    step = high - low
    return high - step * (1 - weight) if weight >= 0.5 else low + step * weight


def _bootstrap_ci(
    metric: Any, stats: Sequence[tuple[float, ...]], counts: Any, confidence: float
) -> tuple[float, float]:
    """Percentile bootstrap interval of the system score (Efron & Tibshirani 1993)."""
    if counts is None:
        return math.nan, math.nan
    return _interval(_resample_scores(metric, stats, counts), confidence)


def bootstrap_intervals(
    pending: Sequence[
        tuple[str, str, Sequence[int], Any, Sequence[Any], dict[str, Any]]
    ],
    resamples: int,
    seed: int,
    confidence: float,
) -> None:
    """Fill ``ci_low`` and ``ci_high`` of every pending system row.

    *pending* holds ``(kind, name, indices, metric, stats, row)``: a subset (its
    kind, name and the indices of its items, ascending), a metric, statistics and
    the row to fill. *stats* are either the metric's statistics of every scored
    item, of which the subset takes *indices*, or the subset's own (a corpus
    metric computed anew on it), one per index. The intervals are those of
    :func:`_bootstrap_ci` on the subset's statistics and counts: each subset's
    counts (:func:`_bootstrap_counts`) are drawn once, serve every metric, and
    only one subset's are held at a time; an item-level metric's item scores are
    computed once for all subsets.
    """
    import numpy as np

    by_subset: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
    for kind, name, indices, metric, stats, row in pending:
        by_subset.setdefault((kind, name), []).append((indices, metric, stats, row))
    scores: dict[tuple[int, int], Any] = {}  # (metric, stats) -> item scores
    for (kind, name), jobs in by_subset.items():
        counts = _bootstrap_counts(len(jobs[0][0]), resamples, seed, f"{kind}:{name}")
        for indices, metric, stats, row in jobs:
            if counts is None:
                row["ci_low"], row["ci_high"] = math.nan, math.nan
                continue
            whole = len(stats) != len(indices)  # stats of every item: take indices
            subset_stats = [stats[i] for i in indices] if whole else stats
            item_scores = None
            if _generic_mean(metric):
                key = (id(metric), id(stats))
                if key not in scores:
                    scores[key] = _item_scores(metric, stats)
                item_scores = scores[key]
                if whole:
                    item_scores = item_scores[np.asarray(indices, dtype=np.intp)]
            values = _resample_scores(metric, subset_stats, counts, item_scores)
            row["ci_low"], row["ci_high"] = _interval(values, confidence)
        del counts

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

__all__ = ["subsets_of"]


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
    same resampled items for a subset and intervals compare like with like.
    """
    import numpy as np

    if n < 2 or resamples <= 0:
        return None
    rng = np.random.default_rng(_rng_seed(seed, subset, str(n)))
    indices = rng.integers(0, n, size=(resamples, n))
    offsets = (np.arange(resamples) * n)[:, None]
    flat = np.bincount((indices + offsets).ravel(), minlength=resamples * n)
    return flat.reshape(resamples, n)


def _bootstrap_ci(
    metric: Any, stats: Sequence[tuple[float, ...]], counts: Any, confidence: float
) -> tuple[float, float]:
    """Percentile bootstrap interval of the system score (Efron & Tibshirani 1993)."""
    import numpy as np

    if counts is None:
        return math.nan, math.nan
    values = np.array(metric.resample_scores(stats, counts), dtype=float)
    values = values[~np.isnan(values)]
    if values.size == 0:
        return math.nan, math.nan
    alpha = (1 - confidence) / 2
    low, high = np.quantile(values, [alpha, 1 - alpha])
    return float(low), float(high)

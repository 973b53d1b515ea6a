"""Paired bootstrap of every pair of S systems: shared draws, or one test per pair.

The rows of ``pairwise_tests`` (draws once per number of items, each system's
resamples scored once) are checked against ``paired_bs`` called on about 200
sampled pairs alone (the previous code); that per-pair time is extrapolated to
every pair. CPU seconds, one process.

Usage::

    python benchmarks/significance_pairs.py SYSTEMS ITEMS METRIC
    python benchmarks/significance_pairs.py 1000 112 se
"""

from __future__ import annotations

import random
import sys
import time

import numpy as np

from stecflow.metrics import get_metric
from stecflow.scoring.significance import (
    metric_score_function,
    pairwise_tests,
    significance_settings,
)
from stecflow.stats.significance import paired_bs

WORDS = [
    "the",
    "large",
    "red",
    "chair",
    "facing",
    "left",
    "a",
    "young",
    "man",
    "with",
    "glasses",
    "and",
    "beard",
    "small",
    "blue",
    "fan",
]


def main() -> None:
    systems_n, items_n, metric_id = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    metric = get_metric(metric_id)
    rng = random.Random(1)
    refs = [[" ".join(rng.sample(WORDS, 5))] for _ in range(items_n)]
    stats = {}
    for s in range(systems_n):
        hyps = [" ".join(rng.sample(WORDS, rng.randint(3, 7))) for _ in range(items_n)]
        rows = metric.corpus_stats(hyps, refs)
        stats[f"t/s{s:04d}"] = {f"i{k:04d}": tuple(r) for k, r in enumerate(rows)}
    settings = significance_settings({"methods": ["paired_bs"]})
    start = time.process_time()
    rows, _ = pairwise_tests(stats, metric, settings, metric_id=metric_id)
    shared = time.process_time() - start
    by_pair = {(r["system_a"], r["system_b"]): r for r in rows}
    score = metric_score_function(metric)
    systems = sorted(stats)
    pairs = [(a, b) for i, a in enumerate(systems) for b in systems[i + 1 :]]
    sample = pairs[:: max(1, len(pairs) // 200)]
    start = time.process_time()
    for a, b in sample:
        stats_a = np.array([stats[a][i] for i in sorted(stats[a])], dtype=float)
        stats_b = np.array([stats[b][i] for i in sorted(stats[b])], dtype=float)
        alone = paired_bs(stats_a, stats_b, score, resamples=1000, seed=12345)
        row = by_pair[(a, b)]
        assert (alone.p_value, alone.delta) == (row["p_value"], row["delta"]), (a, b)
    per_pair = (time.process_time() - start) / len(sample) * len(pairs)
    print(
        f"{metric_id}: {systems_n} systems x {items_n} items, {len(pairs)} pairs:"
        f" shared draws {shared:.2f} s; one test per pair {per_pair:.1f} s"
        f" (extrapolated from {len(sample)} pairs; equal p-values and deltas)"
    )


if __name__ == "__main__":
    main()

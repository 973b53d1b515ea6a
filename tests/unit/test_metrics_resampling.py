"""Vectorised bootstrap scores equal aggregate() on each resample."""

from __future__ import annotations

import numpy as np
import pytest

from stecflow.metrics import get_metric

HYPS = [
    "the red chair",
    "a big sofa facing left",
    "",
    "the man with glasses",
    "the fan",
]
REFS = [
    ["the red chair", "the large red chair"],
    ["the large sofa facing left"],
    ["the chair", "a desk"],
    ["the man with the glasses", "a bearded man"],
    ["the small blue fan on the left", "fan"],
]


@pytest.mark.parametrize(
    "name, options",
    [
        ("bleu3", {}),
        ("bleu3", {"smooth_method": "add-k"}),
        ("nist5", {}),
        ("nist5", {"variable_refs": "mteval"}),
        ("se", {}),
        ("seb", {}),
        ("se_norm", {}),
        ("rouge_su4", {}),
    ],
)
def test_resample_scores_match_aggregate(name, options):
    metric = get_metric(name, **options)
    stats = metric.corpus_stats(HYPS, REFS)
    rng = np.random.default_rng(3)
    counts = np.zeros((50, len(stats)), dtype=np.int64)
    for row in counts:
        np.add.at(row, rng.integers(0, len(stats), len(stats)), 1)
    fast = metric.resample_scores(stats, counts)
    slow = [
        metric.aggregate([stats[i] for i in np.repeat(np.arange(len(stats)), row)])
        for row in counts
    ]
    assert fast == pytest.approx(slow, abs=1e-9, nan_ok=True)

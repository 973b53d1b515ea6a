"""The scoring bootstrap's matrix products equal a plain per-resample loop."""

from __future__ import annotations

import numpy as np
import pytest

from stecflow.metrics import get_metric
from stecflow.scoring.bootstrap import (
    _bootstrap_ci,
    _bootstrap_counts,
    _quantile,
    _resample_scores,
    _rng_seed,
    bootstrap_intervals,
)

HYPS = [
    "the red chair",
    "a big sofa facing left",
    "the small grey desk",
    "the man with glasses",
    "the fan",
    "a blue fan facing front",
    "the large red sofa",
]
REFS = [
    ["the red chair", "the large red chair"],
    ["the large sofa facing left"],
    ["the grey desk", "a desk"],
    ["the man with the glasses", "a bearded man"],
    ["the small blue fan on the left", "fan"],
    ["the blue fan", "a fan facing forward"],
    ["the red sofa", "a large sofa"],
]


def _loop(metric, stats, seed, subset):
    """Each resample drawn and aggregated one at a time, as written in REFERENCE.md."""
    n = len(stats)
    rng = np.random.default_rng(_rng_seed(seed, subset, str(n)))
    indices = rng.integers(0, n, size=(200, n))
    return [metric.aggregate([stats[i] for i in row]) for row in indices]


@pytest.mark.parametrize("name", ["se", "rouge2", "bleu3", "nist5"])
def test_resampled_scores_equal_a_loop_over_resamples(name):
    metric = get_metric(name)
    stats = metric.corpus_stats(HYPS, REFS)
    counts = _bootstrap_counts(len(stats), 200, 2009, "all:all")
    assert counts.shape == (200, len(stats))
    assert (counts.sum(axis=1) == len(stats)).all()
    fast = _resample_scores(metric, stats, counts)
    slow = _loop(metric, stats, 2009, "all:all")
    assert len(set(slow)) > 5  # the resamples differ: the test can fail
    assert np.max(np.abs(fast - np.array(slow))) < 1e-12


def test_mean_metric_interval_is_the_generic_methods_bit_for_bit():
    metric = get_metric("se")
    stats = metric.corpus_stats(HYPS, REFS)
    counts = _bootstrap_counts(len(stats), 500, 7, "all:all")
    generic = np.array(metric.resample_scores(stats, counts.astype(np.int64)))
    assert _resample_scores(metric, stats, counts).tolist() == generic.tolist()
    low, high = _bootstrap_ci(metric, stats, counts, 0.95)
    assert (low, high) == tuple(np.quantile(generic, [0.025, 0.975]).tolist())
    assert low < high


def test_undefined_items_fall_back_to_the_metrics_own_mean():
    metric = get_metric("seb")  # undefined where every reference is empty
    stats = [(1.0,), (float("nan"),), (3.0,), (5.0,)]
    counts = _bootstrap_counts(4, 100, 1, "all:all")
    got = _resample_scores(metric, stats, counts)
    for row, value in zip(counts, got, strict=True):
        drawn = [s[0] for s, c in zip(stats, row, strict=True) for _ in range(int(c))]
        defined = [x for x in drawn if x == x]
        expected = sum(defined) / len(defined) if defined else float("nan")
        assert value == pytest.approx(expected, abs=1e-12, nan_ok=True)


def test_intervals_of_subsets_taken_from_all_items_equal_direct_ones():
    metric = get_metric("se")
    stats = metric.corpus_stats(HYPS, REFS)
    indices = [0, 2, 3, 6]
    rows = [{}, {}]
    bootstrap_intervals(
        [
            ("all", "all", list(range(7)), metric, stats, rows[0]),
            ("condition", "x", indices, metric, stats, rows[1]),
        ],
        300,
        11,
        0.9,
    )
    direct_all = _bootstrap_ci(
        metric, stats, _bootstrap_counts(7, 300, 11, "all:all"), 0.9
    )
    direct_sub = _bootstrap_ci(
        metric,
        [stats[i] for i in indices],
        _bootstrap_counts(4, 300, 11, "condition:x"),
        0.9,
    )
    assert (rows[0]["ci_low"], rows[0]["ci_high"]) == direct_all
    assert (rows[1]["ci_low"], rows[1]["ci_high"]) == direct_sub
    assert direct_all != direct_sub


@pytest.mark.parametrize("block", [1, 7, 50, 1 << 20])
@pytest.mark.parametrize("n", [2, 3, 11, 112])
def test_counts_drawn_in_blocks_are_those_of_one_draw(monkeypatch, block, n):
    """Blocks of rows (any size, rows cut anywhere) draw the numbers of one call."""
    import stecflow.scoring.bootstrap as bootstrap

    monkeypatch.setattr(bootstrap, "_BLOCK", block)
    rng = np.random.default_rng(_rng_seed(2009, "all:all", str(n)))
    one_call = rng.integers(0, n, size=(300, n))
    expected = np.array([np.bincount(row, minlength=n) for row in one_call])
    counts = _bootstrap_counts(n, 300, 2009, "all:all")
    assert counts.dtype == np.float64
    assert (counts == expected).all()


@pytest.mark.parametrize("n", [1, 2, 3, 7, 200, 1000, 1001])
def test_quantile_is_numpys_bit_for_bit(n):
    rng = np.random.default_rng(n)
    for values in (
        rng.normal(50, 20, n),
        np.round(rng.uniform(0, 1, n), 1),  # ties
        rng.integers(0, 4, n).astype(float) / 3,
    ):
        ordered = np.sort(values)
        # the intervals' own, and enough others to reach NumPy's two branches
        # of the interpolation (a single formula differs in the last bit)
        qs = [(1 - 0.95) / 2, 1 - (1 - 0.95) / 2, (1 - 0.9) / 2, 1 - (1 - 0.99) / 2]
        for q in [*qs, *np.linspace(0, 1, 401).tolist()]:
            assert _quantile(ordered, q) == float(np.quantile(values, q)), (n, q)

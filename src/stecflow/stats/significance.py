"""Which systems differ: paired significance tests and WMT-style clusters.

Owns the two paired tests of sacreBLEU's ``sacrebleu/significance.py`` (version
2.x) between two systems scored on the same items, made general: a system is a
matrix of per-item *sufficient statistics* (one row per item) and a *score
function* scores any multiset of those rows, given as a matrix of counts (one row
per resample or trial, one column per statistics row). Corpus-level metrics whose
score is a function of summed statistics (BLEU, chrF, TER) pass that function
through :func:`summed`; a stecflow metric passes its own
``Metric.resample_scores`` (NIST-5 too, whose reference length is not a plain
sum); metrics that average per-item scores pass :func:`mean_statistics` of those
scores with :func:`mean_score`, the mean of the defined item scores.

Both tests follow sacreBLEU step by step, so that with the same seed they give
the numbers ``sacrebleu --paired-bs`` / ``--paired-ar`` print:

* :func:`paired_bs` (Koehn 2004; sacreBLEU ``_paired_bs_test``, the Moses
  script ``bootstrap-hypothesis-difference-significance.pl``): one generator
  ``numpy.random.default_rng(seed)`` draws ``rng.choice(n, size=(resamples, n))``
  item indices shared by both systems; the p-value is
  ``(#{|d_b| - mean(|d|) > |delta|} + 1) / (resamples + 1)``.
* :func:`paired_ar` (Riezler & Maxwell 2005; sacreBLEU
  ``_paired_ar_test``, after multeval's StratifiedApproximateRandomizationTest):
  ``rng.integers(2, size=(trials, n), dtype=bool)`` swaps the two systems'
  statistics item by item; the p-value is
  ``(#{|score(A') - score(B')| > |delta|} + 1) / (trials + 1)``.

Every comparison starts a fresh generator from the seed, as sacreBLEU does for
each system against its baseline, so a pair's result does not depend on which
other systems a campaign has. Statistics are summed in float64 (sacreBLEU casts
the bootstrap's statistics to float32 first; both give the same sums for integer
counts below 2**24, which BLEU, chrF and TER statistics are), and a difference
within a relative 1e-9 of the observed one is a tie, which does not count (with
integer statistics ties are exact in both). sacreBLEU treats a
seed of 0 as "no seed"; here every seed, 0 included, seeds the generator.

:func:`significance_clusters` groups systems not significantly different, WMT
style (the rule is in its docstring).

No files, no presentation. May import: :mod:`stecflow.core.errors` only
(numpy inside the functions).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from stecflow.stats._common import StatsInputError

__all__ = [
    "CLUSTER_RULE",
    "TIE_MARGIN",
    "PairedResult",
    "bootstrap_counts",
    "paired_bs_from_scores",
    "randomisation_draws",
    "mean_score",
    "mean_statistics",
    "paired_ar",
    "paired_bs",
    "significance_clusters",
    "summed",
]

#: A score function ``score(counts, stats)``: *counts* (integer array ``(m, N)``)
#: says how often each of the *N* rows of *stats* (array ``(N, k)``) is drawn in
#: each of *m* pseudo-systems; it returns one score per pseudo-system (length
#: ``m``).
ScoreFunction = Callable[[Any, Any], Any]

#: The clustering rule, as the report states it.
CLUSTER_RULE = (
    "systems are sorted by score, best first; the best system opens cluster 1, and"
    " each next system joins the current cluster unless it is significantly"
    " different from the cluster's best system, in which case it opens the next"
    " cluster"
)


@dataclass(frozen=True)
class PairedResult:
    """The result of one paired test of system B against system A.

    Attributes
    ----------
    score_a, score_b : float
        The two systems' scores on all items.
    delta : float
        ``score_b - score_a``.
    p_value : float
        Two-sided p-value (``nan`` when a score is undefined).
    samples : int
        Bootstrap resamples or randomisation trials.
    seed : int
        The generator's seed.
    n : int
        Items compared.
    """

    score_a: float
    score_b: float
    delta: float
    p_value: float
    samples: int
    seed: int
    n: int


def summed(score: Callable[[Any], float]) -> ScoreFunction:
    """A score function from a function of summed statistics (BLEU, chrF, TER).

    Parameters
    ----------
    score : callable
        Column sums of the drawn statistics (one 1-D array) to a score, e.g.
        ``lambda s: sacrebleu_metric._compute_score_from_stats(list(s)).score``.

    Returns
    -------
    callable
        A :data:`ScoreFunction`: sums ``counts @ stats`` and scores every row.

    Examples
    --------
    >>> import numpy as np
    >>> difference = summed(lambda s: float(s[0] - s[1]))
    >>> difference(np.array([[1, 1], [2, 0]]), np.array([[3.0, 1.0], [1.0, 1.0]]))
    array([2., 4.])
    """
    import numpy as np

    def apply(counts: Any, stats: Any) -> Any:
        sums = np.asarray(counts, dtype=float) @ np.asarray(stats, dtype=float)
        return np.array([float(score(row)) for row in sums], dtype=float)

    return apply


def mean_statistics(scores: Sequence[float]) -> Any:
    """Sufficient statistics of a mean over items: (score or 0, defined) per item.

    A ``nan`` score (an item on which the metric is undefined) contributes
    nothing, so that :func:`mean_score` of summed rows is the mean of the defined
    scores, as a metric's system score is.

    Parameters
    ----------
    scores : sequence of float
        One score per item, ``nan`` where undefined.

    Returns
    -------
    numpy.ndarray
        Shape ``(n, 2)``.

    Examples
    --------
    >>> mean_statistics([0.5, float("nan"), 1.0]).tolist()
    [[0.5, 1.0], [0.0, 0.0], [1.0, 1.0]]
    """
    import numpy as np

    values = np.asarray(scores, dtype=float)
    defined = ~np.isnan(values)
    return np.column_stack([np.where(defined, values, 0.0), defined.astype(float)])


def mean_score(counts: Any, stats: Any) -> Any:
    """The score function of :func:`mean_statistics`: mean of the drawn scores.

    ``nan`` where no drawn item has a defined score.

    Examples
    --------
    >>> import numpy as np
    >>> stats = mean_statistics([0.5, 1.0, float("nan")])
    >>> mean_score(np.array([[1, 1, 0], [2, 0, 0], [0, 0, 3]]), stats).tolist()
    [0.75, 0.5, nan]
    """
    import numpy as np

    sums = np.asarray(counts, dtype=float) @ np.asarray(stats, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(sums[:, 1] > 0, sums[:, 0] / np.maximum(sums[:, 1], 1), np.nan)


def _prepare(stats_a: Any, stats_b: Any, samples: int, seed: int) -> tuple[Any, Any]:
    import numpy as np

    a = np.asarray(stats_a, dtype=float)
    b = np.asarray(stats_b, dtype=float)
    if a.ndim == 1:
        a = a[:, None]
    if b.ndim == 1:
        b = b[:, None]
    if a.ndim != 2 or a.shape != b.shape:
        raise StatsInputError(
            f"paired statistics must have the same shape (items x statistics);"
            f" got {a.shape} and {b.shape}: give both systems' statistics of the"
            " same items in the same order"
        )
    if a.shape[0] == 0:
        raise StatsInputError("no items to compare; give at least one item")
    if isinstance(samples, bool) or int(samples) != samples or samples < 1:
        raise StatsInputError(f"the number of samples must be >= 1; got {samples!r}")
    if isinstance(seed, bool) or int(seed) != seed or seed < 0:
        raise StatsInputError(f"the seed must be an integer >= 0; got {seed!r}")
    return a, b


def _observed(a: Any, b: Any, score: ScoreFunction) -> tuple[float, float]:
    import numpy as np

    ones = np.ones((1, a.shape[0]), dtype=np.int64)
    return float(score(ones, a)[0]), float(score(ones, b)[0])


#: Relative margin under which a sample statistic ties with the observed one.
TIE_MARGIN = 1e-9


def _p_value(sample_stats: Any, observed: float) -> float:
    """sacreBLEU's ``_compute_p_value``: ``(#{stat > observed} + 1) / (n + 1)``.

    A statistic within :data:`TIE_MARGIN` (relative) of the observed one ties
    with it and does not count: means of item scores summed in another order
    differ in the last bits, where sacreBLEU's integer statistics tie exactly.
    """
    import numpy as np

    margin = TIE_MARGIN * max(1.0, abs(observed))
    count = int(np.sum(sample_stats > observed + margin))
    return (count + 1) / (len(sample_stats) + 1)


def paired_bs(
    stats_a: Any,
    stats_b: Any,
    score: ScoreFunction,
    *,
    resamples: int = 1000,
    seed: int = 12345,
) -> PairedResult:
    """Paired bootstrap resampling test of B against A, as sacreBLEU's.

    Parameters
    ----------
    stats_a, stats_b : array-like, shape (n, k)
        Per-item sufficient statistics of the two systems, same items in the same
        order (a 1-D array is one statistic per item).
    score : callable
        A :data:`ScoreFunction` ``score(counts, stats)``: :func:`summed` of a
        function of summed statistics, :func:`mean_score` for
        :func:`mean_statistics`, or a metric's ``resample_scores`` (with its
        arguments in the order ``(stats, counts)``).
    resamples : int
        Bootstrap resamples (sacreBLEU's default 1000).
    seed : int
        Seed of ``numpy.random.default_rng`` (sacreBLEU's default 12345).

    Returns
    -------
    PairedResult
        Scores, ``delta = score_b - score_a`` and the two-sided p-value.

    Raises
    ------
    StatsInputError
        If the statistics differ in shape or are empty, or an argument is invalid.

    References
    ----------
    Koehn, P. (2004). Statistical significance tests for machine translation
    evaluation. EMNLP 2004. sacreBLEU 2.x ``significance._paired_bs_test``.

    Examples
    --------
    >>> a = mean_statistics([0.0, 1.0, 0.0, 1.0])
    >>> b = mean_statistics([1.0, 1.0, 1.0, 1.0])
    >>> r = paired_bs(a, b, mean_score, resamples=100, seed=1)
    >>> r.delta, r.p_value <= 1
    (0.5, True)
    """
    import numpy as np

    a, b = _prepare(stats_a, stats_b, resamples, seed)
    n = a.shape[0]
    score_a, score_b = _observed(a, b, score)
    counts = bootstrap_counts(n, resamples, seed)
    return paired_bs_from_scores(
        score_a,
        score_b,
        np.asarray(score(counts, a), dtype=float),
        np.asarray(score(counts, b), dtype=float),
        n=n,
        seed=seed,
    )


def bootstrap_counts(n: int, resamples: int, seed: int) -> Any:
    """The draws of :func:`paired_bs`: how often each of *n* items is drawn.

    The same for every pair of systems scored on the same *n* items (one
    generator per test, started from *seed*), so a caller testing many pairs
    draws them once and scores each system's resamples once
    (:func:`paired_bs_from_scores`).

    Returns
    -------
    numpy.ndarray of int64, shape (resamples, n)

    Examples
    --------
    >>> bootstrap_counts(4, 3, 1).sum(axis=1).tolist()
    [4, 4, 4]
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    idxs = rng.choice(n, size=(resamples, n), replace=True)
    counts = np.zeros((resamples, n), dtype=np.int64)
    np.add.at(counts, (np.arange(resamples)[:, None], idxs), 1)
    return counts


def paired_bs_from_scores(
    score_a: float,
    score_b: float,
    scores_a: Any,
    scores_b: Any,
    *,
    n: int,
    seed: int,
) -> PairedResult:
    """:func:`paired_bs` from the two systems' scores and resample scores.

    *scores_a* and *scores_b* are ``score(bootstrap_counts(n, resamples, seed),
    stats)`` of each system, scored on the same *n* items; the result is the same
    as :func:`paired_bs`'s.
    """
    import numpy as np

    scores_a = np.asarray(scores_a, dtype=float)
    scores_b = np.asarray(scores_b, dtype=float)
    if math.isnan(score_a) or math.isnan(score_b):
        p_value = math.nan
    else:
        diffs = np.abs(scores_b - scores_a)
        p_value = _p_value(diffs - diffs.mean(), abs(score_a - score_b))
    return PairedResult(
        score_a,
        score_b,
        score_b - score_a,
        p_value,
        len(scores_a),
        int(seed),
        int(n),
    )


def paired_ar(
    stats_a: Any,
    stats_b: Any,
    score: ScoreFunction,
    *,
    trials: int = 10000,
    seed: int = 12345,
    chunk: int = 1000,
    draws: Any = None,
) -> PairedResult:
    """Paired approximate randomisation test of B against A, as sacreBLEU's.

    Parameters
    ----------
    stats_a, stats_b, score
        As for :func:`paired_bs`.
    trials : int
        Randomisation trials (sacreBLEU's default 10000).
    seed : int
        Seed of ``numpy.random.default_rng`` (sacreBLEU's default 12345).
    chunk : int
        Trials scored at a time (memory only; the result does not depend on it).
    draws : numpy.ndarray of bool, optional
        ``randomisation_draws(n, trials, seed)``, drawn once by a caller testing
        many pairs on the same items (the same result, without drawing again).

    Returns
    -------
    PairedResult
        Scores, ``delta = score_b - score_a`` and the two-sided p-value.

    Raises
    ------
    StatsInputError
        If the statistics differ in shape or are empty, or an argument is invalid.

    References
    ----------
    Riezler, S. and Maxwell, J. T. (2005). On some pitfalls in automatic
    evaluation and significance testing for MT. ACL 2005 workshop on intrinsic
    and extrinsic evaluation measures. Clark, J. H. et al. (2011), multeval.
    sacreBLEU 2.x ``significance._paired_ar_test``.

    Examples
    --------
    A system against itself: no trial exceeds the observed difference 0, so p is
    ``1 / (trials + 1)``, as in sacreBLEU (multeval: "having a zero difference
    should not be attributed to chance").

    >>> a = mean_statistics([0.0, 1.0, 0.0, 1.0])
    >>> r = paired_ar(a, a, mean_score, trials=99, seed=1)
    >>> r.delta, r.p_value
    (0.0, 0.01)
    """
    import numpy as np

    a, b = _prepare(stats_a, stats_b, trials, seed)
    n = a.shape[0]
    score_a, score_b = _observed(a, b, score)
    if draws is None:
        pos_sel = randomisation_draws(n, trials, seed)
    elif draws.shape != (trials, n):
        raise StatsInputError(
            f"draws of shape {draws.shape} for {trials} trials of {n} items; give"
            " randomisation_draws(n, trials, seed)"
        )
    else:
        pos_sel = draws
    both = np.vstack([a, b])  # pseudo-system A' draws pos rows of A, the rest of B
    diffs = np.empty(trials, dtype=float)
    step = max(1, int(chunk))
    for start in range(0, trials, step):
        pos = pos_sel[start : start + step].astype(np.int64)
        neg = 1 - pos
        scores_a = np.asarray(score(np.hstack([pos, neg]), both), dtype=float)
        scores_b = np.asarray(score(np.hstack([neg, pos]), both), dtype=float)
        diffs[start : start + len(pos)] = np.abs(scores_a - scores_b)
    if math.isnan(score_a) or math.isnan(score_b):
        p_value = math.nan
    else:
        p_value = _p_value(diffs, abs(score_a - score_b))
    return PairedResult(
        score_a, score_b, score_b - score_a, p_value, int(trials), int(seed), n
    )


def randomisation_draws(n: int, trials: int, seed: int) -> Any:
    """The draws of :func:`paired_ar`: which items each trial swaps.

    ``True`` where pseudo-system A' takes the item from A; the same for every
    pair scored on the same *n* items.

    Returns
    -------
    numpy.ndarray of bool, shape (trials, n)
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    return rng.integers(2, size=(trials, n), dtype=bool)


def significance_clusters(
    scores: Mapping[str, float],
    significant: Callable[[str, str], bool],
    *,
    higher_is_better: bool = True,
) -> list[tuple[str, int, int]]:
    """Rank systems by score and group those not significantly different.

    The rule (:data:`CLUSTER_RULE`) is the one issue #16 sets ("systems not
    significantly different from the best of their cluster"): systems sorted by
    score, best first; a new cluster starts at the first system that is
    significantly different from the best system of the current cluster. It
    draws lines through a ranking as the WMT findings papers' ranking tables do;
    WMT builds its clusters from its own human-evaluation tests, so its lines
    may fall elsewhere. Ranks are competition ranks of the scores (equal scores
    share a rank: 1, 2, 2, 4); equal scores are listed by system name. Systems
    whose score is undefined (``nan``) are left out.

    Parameters
    ----------
    scores : mapping
        System -> score.
    significant : callable
        ``significant(best, other)``: True if the two systems differ
        significantly (the caller's test and level).
    higher_is_better : bool
        Direction of the score.

    Returns
    -------
    list of (system, rank, cluster)
        In ranking order; clusters are numbered from 1.

    Examples
    --------
    >>> differ = {("A", "C"), ("B", "C"), ("A", "D"), ("B", "D"), ("C", "D")}
    >>> significance_clusters({"A": 0.9, "B": 0.8, "C": 0.5, "D": 0.4},
    ...                       lambda x, y: (x, y) in differ)
    [('A', 1, 1), ('B', 2, 1), ('C', 3, 2), ('D', 4, 3)]
    """
    defined = {s: float(v) for s, v in scores.items() if not math.isnan(float(v))}
    sign = -1.0 if higher_is_better else 1.0
    order = sorted(defined, key=lambda s: (sign * defined[s], s))
    out: list[tuple[str, int, int]] = []
    cluster, top = 0, None
    for position, system in enumerate(order, start=1):
        tied = out and defined[out[-1][0]] == defined[system]
        rank = out[-1][1] if tied else position
        if top is None or significant(top, system):
            cluster += 1
            top = system
        out.append((system, rank, cluster))
    return out

"""Bradley-Terry strengths, win rates and Wilson intervals (stecflow.stats.preference).

The Bradley-Terry fit is checked against a hand-worked 3-system example whose
counts are exactly proportional to the probabilities of strengths 4 : 2 : 1 (so
the likelihood equations hold there and the MLE is known), its standard errors
against the inverse information worked by hand, and, when ``choix`` is
importable, against ``choix.opt_pairwise`` (every decisive comparison doubled
and a tie entered as one win each way, which is twice the half-and-half
log-likelihood).
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from stecflow.stats._common import StatsInputError
from stecflow.stats.preference import (
    bradley_terry,
    pairwise_preferences,
    preference_counts,
    wilson_interval,
)


def _trials(spec: list[tuple[str, str, str, int]]) -> pd.DataFrame:
    rows = []
    for left, right, outcome, times in spec:
        rows += [
            {"system_left": left, "system_right": right, "preferred": outcome}
        ] * times
    return pd.DataFrame(rows)


# A-B: A 2, B 1; B-C: B 2, C 1; A-C: A 4, C 1 -> strengths 4 : 2 : 1 exactly.
HAND = [
    ("A", "B", "left", 2),
    ("B", "A", "left", 1),  # B shown left, preferred
    ("B", "C", "left", 2),
    ("C", "B", "left", 1),
    ("A", "C", "left", 3),
    ("C", "A", "right", 1),  # A on the right, preferred
    ("A", "C", "right", 1),
]


def test_wilson_interval_by_hand_and_against_statsmodels():
    # 7 of 10, z = 1.959964: centre (0.7 + z^2/20) / (1 + z^2/10)
    z = 1.959963984540054
    centre = (0.7 + z * z / 20) / (1 + z * z / 10)
    half = z * math.sqrt(0.7 * 0.3 / 10 + z * z / 400) / (1 + z * z / 10)
    low, high = wilson_interval(7, 10)
    assert low == pytest.approx(centre - half, abs=1e-12)
    assert high == pytest.approx(centre + half, abs=1e-12)
    assert (round(low, 4), round(high, 4)) == (0.3968, 0.8922)
    smp = pytest.importorskip("statsmodels.stats.proportion")
    for k, n, conf in ((0, 5, 0.95), (3, 3, 0.9), (12, 40, 0.99)):
        expected = smp.proportion_confint(k, n, alpha=1 - conf, method="wilson")
        assert wilson_interval(k, n, confidence=conf) == pytest.approx(expected)
    assert all(math.isnan(x) for x in wilson_interval(0, 0))
    with pytest.raises(StatsInputError):
        wilson_interval(4, 3)


def test_bradley_terry_hand_worked_three_systems():
    result = bradley_terry(_trials(HAND), reference="C").set_index("system")
    assert list(result.index) == ["A", "B", "C"]
    assert list(result["rank"]) == [1, 2, 3]
    ln2 = math.log(2)
    # log-strengths log 4, log 2, log 1 centred: ln2, 0, -ln2
    assert result["strength"].tolist() == pytest.approx([ln2, 0, -ln2], abs=1e-8)
    assert result["worth"].tolist() == pytest.approx([4 / 7, 2 / 7, 1 / 7])
    assert result["diff"].tolist() == pytest.approx([2 * ln2, ln2, 0], abs=1e-8)
    # information with C fixed: [[22/15, -2/3], [-2/3, 4/3]], det 68/45;
    # var(A - C) = 45/68 * 4/3 = 15/17, var(B - C) = 45/68 * 22/15 = 33/34
    assert result.loc["A", "se_diff"] == pytest.approx(math.sqrt(15 / 17))
    assert result.loc["B", "se_diff"] == pytest.approx(math.sqrt(33 / 34))
    assert result.loc["C", "se_diff"] == 0
    z = 2 * ln2 / math.sqrt(15 / 17)
    assert result.loc["A", "z"] == pytest.approx(z)
    assert result.loc["A", "p_value"] == pytest.approx(math.erfc(z / math.sqrt(2)))
    assert math.isnan(result.loc["C", "p_value"])
    assert result.loc["A", "ci_low"] == pytest.approx(
        2 * ln2 - 1.959963984540054 * math.sqrt(15 / 17)
    )
    # the log-likelihood at the MLE: sum of count * log p
    loglik = (
        2 * math.log(2 / 3)
        + math.log(1 / 3)
        + 2 * math.log(2 / 3)
        + math.log(1 / 3)
        + 4 * math.log(4 / 5)
        + math.log(1 / 5)
    )
    assert result["log_likelihood"].tolist() == pytest.approx([loglik] * 3)
    assert result["n"].tolist() == [8, 6, 8]
    assert result["score"].tolist() == [6, 3, 2]
    assert set(result["ties"]) == {"half"}
    # sum-to-zero SEs: diagonal of the pseudo-inverse of the Laplacian
    laplacian = [[22 / 15, -2 / 3, -4 / 5], [-2 / 3, 4 / 3, -2 / 3]]
    laplacian.append([-4 / 5, -2 / 3, 22 / 15])
    import numpy as np

    expected = np.sqrt(np.diag(np.linalg.pinv(np.array(laplacian))))
    assert result["se"].tolist() == pytest.approx(expected.tolist())


def test_bradley_terry_default_reference_is_first_by_name():
    result = bradley_terry(_trials(HAND)).set_index("system")
    assert set(result["reference"]) == {"A"}
    assert result.loc["C", "diff"] == pytest.approx(-2 * math.log(2))
    # var(C - A) is var(A - C): the same by symmetry of the difference
    assert result.loc["C", "se_diff"] == pytest.approx(math.sqrt(15 / 17))


def test_bradley_terry_ties_split_half_and_half():
    # A 3, B 1, 2 ties: A scores 4 of 6 -> diff log(4 / 2)
    trials = _trials([("A", "B", "left", 3), ("A", "B", "right", 1)])
    trials = pd.concat([trials, _trials([("B", "A", "tie", 2)])])
    result = bradley_terry(trials, reference="B").set_index("system")
    assert result.loc["A", "diff"] == pytest.approx(math.log(2))
    # information 6 * p(1-p) with p = 2/3 -> var 1 / (6 * 2/9) = 3/4
    assert result.loc["A", "se_diff"] == pytest.approx(math.sqrt(3 / 4))


CHOIX_SPEC = [
    *HAND,
    ("A", "B", "tie", 1),
    ("C", "D", "left", 2),
    ("D", "A", "left", 1),
    ("D", "B", "right", 3),
    ("B", "D", "tie", 2),
    ("C", "D", "right", 1),
]
#: choix 0.4.1's opt_pairwise(4, data, alpha=0, tol=1e-12) on CHOIX_SPEC (data as
#: in test_bradley_terry_against_choix), centred; run on 2026-11-26.
CHOIX_STRENGTHS = [0.5516834, 0.39090741, -0.37946954, -0.56312127]


def test_bradley_terry_matches_choix_recorded_values():
    result = bradley_terry(_trials(CHOIX_SPEC)).set_index("system")
    strengths = result.loc[["A", "B", "C", "D"], "strength"].tolist()
    assert strengths == pytest.approx(CHOIX_STRENGTHS, abs=1e-7)


def test_bradley_terry_against_choix():
    choix = pytest.importorskip("choix")
    trials = _trials(CHOIX_SPEC)
    systems = ["A", "B", "C", "D"]
    data = []
    for left, right, outcome in trials.itertuples(index=False):
        i, j = systems.index(left), systems.index(right)
        if outcome == "tie":
            data += [(i, j), (j, i)]
        else:
            winner, loser = (i, j) if outcome == "left" else (j, i)
            data += [(winner, loser)] * 2
    params = choix.opt_pairwise(4, data, alpha=0, tol=1e-12)
    params = params - params.mean()
    result = bradley_terry(trials).set_index("system").loc[systems]
    assert result["strength"].tolist() == pytest.approx(list(params), abs=1e-6)


def test_bradley_terry_without_mle_is_not_computable():
    trials = _trials([("A", "B", "left", 3), ("B", "C", "left", 2)])
    trials = pd.concat([trials, _trials([("C", "B", "left", 1)])])
    result = bradley_terry(trials)
    assert not result["computable"].any()
    assert result["reason"].iloc[0].startswith("A won every comparison")


def test_bradley_terry_errors_name_the_column():
    bad = _trials([("A", "B", "maybe", 1)])
    with pytest.raises(StatsInputError, match="'maybe'") as err:
        bradley_terry(bad)
    assert err.value.field == "preferred"
    with pytest.raises(StatsInputError, match="with itself"):
        bradley_terry(_trials([("A", "A", "left", 1)]))
    with pytest.raises(StatsInputError, match="reference 'Z'"):
        bradley_terry(_trials(HAND), reference="Z")


def test_counts_and_pairwise_win_rates():
    trials = pd.concat(
        [
            _trials(HAND),
            _trials([("A", "B", "tie", 2)]),
            pd.DataFrame([{"system_left": "A", "system_right": None}]),
        ]
    )
    counts = preference_counts(trials).set_index("system")
    assert counts.loc["A", ["n", "wins", "losses", "ties"]].tolist() == [10, 6, 2, 2]
    assert counts.loc["A", "win_rate"] == pytest.approx(7 / 10)
    assert counts.loc["A", "ci_low"] == pytest.approx(wilson_interval(7, 10)[0])
    assert counts.loc["C", "win_rate"] == pytest.approx(2 / 8)
    assert set(counts["n_missing"]) == {1}
    pairs = pairwise_preferences(trials)
    ab = pairs[(pairs["system_a"] == "A") & (pairs["system_b"] == "B")].iloc[0]
    assert (ab["n"], ab["wins_a"], ab["wins_b"], ab["ties"]) == (5, 2, 1, 2)
    assert ab["win_rate_a"] == pytest.approx(3 / 5)
    # two-sided exact binomial: 2 of 3 at 1/2 -> p = 1
    assert ab["p_value"] == pytest.approx(1.0)
    ac = pairs[(pairs["system_a"] == "A") & (pairs["system_b"] == "C")].iloc[0]
    # 4 of 5: P(X >= 4) + P(X <= 1) = 2 * 6/32
    assert ac["p_value"] == pytest.approx(12 / 32)
    only_ties = pairwise_preferences(_trials([("X", "Y", "tie", 2)]))
    assert not only_ties["computable"].iloc[0]
    assert only_ties["win_rate_a"].iloc[0] == 0.5

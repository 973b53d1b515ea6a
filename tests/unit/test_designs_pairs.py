"""Balanced pair designs for preference studies (stecflow.studies.designs.pairs).

Hand-worked numbers: 3 systems make P = 3 pairs; 6 items make 2 item sets of 3;
6 subjects (2 x P) form one group that sees both item sets. So each subject sees
6 trials (each item once, each pair twice, each ordered pair once: every system
2 times left and 2 times right), and each item is shown with each of the 6
ordered pairs exactly once.
"""

from __future__ import annotations

from collections import Counter
from itertools import permutations

import pytest

from stecflow.studies.designs import DesignError
from stecflow.studies.designs.pairs import (
    PAIR_TRIAL_COLUMNS,
    PAIRS,
    _oriented_pairs,
    pair_balance_problems,
    pair_design,
    pair_label,
    valid_pair_subject_counts,
)

SYSTEMS = ["organisers/template", "organisers/rules", "organisers/weak"]
ITEMS = [f"t{n:04d}" for n in range(1, 7)]


def _sides(trials):
    """(left, right) of every trial."""
    return list(zip(trials["system_left"], trials["system_right"], strict=True))


@pytest.fixture(scope="module")
def design():
    return pair_design(SYSTEMS, ITEMS, subjects=6, seed=2012, study="text-preference")


def test_shape_and_columns(design):
    assert design.kind == PAIRS == "pairs"
    assert tuple(design.trials.columns) == PAIR_TRIAL_COLUMNS
    assert PAIR_TRIAL_COLUMNS[-2:] == ("system_left", "system_right")
    assert len(design.trials) == 36
    assert design.squares == 2 and design.groups == 1 and design.subjects == 6
    assert sorted(design.trials["list"].unique()) == [f"L0{n}" for n in range(1, 7)]
    assert sorted(design.item_sets) == ["S1", "S2"]
    assert sorted(i for s in design.item_sets.values() for i in s) == ITEMS
    assert design.settings()["trials_per_subject"] == 6
    assert not design.trials["practice"].any() and not design.trials["filler"].any()


def test_every_subject_sees_each_item_once_and_each_pair_twice(design):
    for _, trials in design.trials.groupby("list"):
        assert sorted(trials["item"]) == ITEMS
        assert trials["order"].tolist() == [1, 2, 3, 4, 5, 6]
        assert set(Counter(trials["system"]).values()) == {2}
        # per item set: each pair once
        for _, in_set in trials.groupby("item_set"):
            assert sorted(in_set["system"]) == sorted(
                pair_label(a, b) for a, b in [SYSTEMS[:2], SYSTEMS[::2], SYSTEMS[1:]]
            )
        # each ordered pair once: every system twice left, twice right
        ordered = Counter(_sides(trials))
        assert sorted(ordered) == sorted(permutations(SYSTEMS, 2))
        assert set(ordered.values()) == {1}
        assert Counter(trials["system_left"]) == dict.fromkeys(SYSTEMS, 2)
        assert Counter(trials["system_right"]) == dict.fromkeys(SYSTEMS, 2)


def test_every_item_shows_every_ordered_pair_once(design):
    for _, trials in design.trials.groupby("item"):
        assert len(trials) == 6
        assert sorted(_sides(trials)) == sorted(permutations(SYSTEMS, 2))


def test_system_column_is_the_sorted_pair(design):
    for row in design.trials.itertuples():
        assert row.system_left != row.system_right
        assert row.system == "|".join(sorted((row.system_left, row.system_right)))
    assert pair_label("b", "a") == pair_label("a", "b") == "a|b"
    assert pair_balance_problems(design) == []


def test_round_robin_orientation_is_balanced_for_odd_numbers_of_systems():
    # (0, 1): 1 odd -> x left; (0, 2): 2 even -> z left; (1, 2): 3 odd -> y left
    assert _oriented_pairs(["x", "y", "z"]) == [("x", "y"), ("z", "x"), ("y", "z")]
    five = _oriented_pairs(list("abcde"))
    assert len(five) == 10
    assert Counter(left for left, _ in five) == dict.fromkeys("abcde", 2)
    four = Counter(left for left, _ in _oriented_pairs(list("abcd")))
    assert sorted(four.values()) == [1, 1, 2, 2]


def test_one_item_set_per_subject_still_counterbalances_every_item():
    d = pair_design(SYSTEMS, ITEMS, subjects=12, seed=5)
    assert d.groups == 2 and len(d.trials) == 36
    assert pair_balance_problems(d) == []
    assert any("odd number of item sets" in note for note in d.notes)
    for _, trials in d.trials.groupby("list"):
        assert trials["item_set"].nunique() == 1 and len(trials) == 3
        assert set(Counter(trials["system"]).values()) == {1}
        # within one item set each of the three systems is left once (round robin)
        assert Counter(trials["system_left"]) == dict.fromkeys(SYSTEMS, 1)
    for _, trials in d.trials.groupby("item"):
        assert sorted(_sides(trials)) == sorted(permutations(SYSTEMS, 2))


def test_two_systems_alternate_sides_and_replications_double_counts():
    d = pair_design(["a", "b"], ["i1", "i2"], subjects=2, seed=1)
    for _, trials in d.trials.groupby("list"):
        assert sorted(_sides(trials)) == [
            ("a", "b"),
            ("b", "a"),
        ]
    d = pair_design(SYSTEMS, ITEMS, subjects=12, seed=9, replications=2)
    assert d.replications == 2 and len(d.trials) == 72
    assert pair_balance_problems(d) == []
    counts = Counter(zip(d.trials["item"], _sides(d.trials), strict=True))
    assert set(counts.values()) == {2}


def test_four_systems():
    items = [f"i{n:02d}" for n in range(12)]
    d = pair_design(["a", "b", "c", "d"], items, subjects=12, seed=4)
    assert len(d.trials) == 12 * 12 and pair_balance_problems(d) == []
    for _, trials in d.trials.groupby("list"):
        ordered = Counter(_sides(trials))
        assert len(ordered) == 12 and set(ordered.values()) == {1}


def test_deterministic_and_independent_of_the_order_given(design):
    again = pair_design(
        list(reversed(SYSTEMS)),
        list(reversed(ITEMS)),
        subjects=6,
        seed=2012,
        study="text-preference",
    )
    assert again.trials.equals(design.trials)
    other = pair_design(SYSTEMS, ITEMS, subjects=6, seed=2013, study="text-preference")
    assert not other.trials.equals(design.trials)
    assert pair_balance_problems(other) == []


def test_valid_subject_counts():
    assert valid_pair_subject_counts(3, 6) == [6, 12]
    assert valid_pair_subject_counts(2, 4) == [2, 4, 8]
    assert valid_pair_subject_counts(4, 12, replications=2) == [24, 48]
    assert valid_pair_subject_counts(3, 5) == []


def test_impossible_requests_say_what_would_work():
    with pytest.raises(DesignError, match=r"multiple of 3 items \(e.g. 3 or 6\)"):
        pair_design(SYSTEMS, ITEMS[:5], subjects=6, seed=1)
    with pytest.raises(DesignError, match="one of 6, 12") as info:
        pair_design(SYSTEMS, ITEMS, subjects=4, seed=1)
    assert info.value.field == "subjects"
    with pytest.raises(DesignError, match="at least 2"):
        pair_design(["a"], ITEMS, subjects=2, seed=1)
    with pytest.raises(DesignError, match=r"may not contain '\|'"):
        pair_design(["a|b", "c"], ["i1"], subjects=2, seed=1)


def test_balance_check_catches_a_swapped_and_a_repeated_trial(design):
    broken = design.trials.copy()
    first = broken.index[0]
    left, right = broken.loc[first, "system_left"], broken.loc[first, "system_right"]
    broken.loc[first, "system_left"], broken.loc[first, "system_right"] = right, left
    swapped = type(design)(**{**design.__dict__, "trials": broken})
    problems = pair_balance_problems(swapped)
    item = broken.loc[first, "item"]
    assert f"item {item}: {right} left of {left} 2 times, should be 1" in problems
    assert f"item {item}: {left} left of {right} 0 times, should be 1" in problems
    assert any(p.startswith("list L01: ordered pairs shown") for p in problems)
    repeated = design.trials.copy()
    second = repeated.index[1]
    repeated.loc[second, "item"] = repeated.loc[first, "item"]
    problems = pair_balance_problems(
        type(design)(**{**design.__dict__, "trials": repeated})
    )
    assert f"list L01 shows {item} more than once" in problems

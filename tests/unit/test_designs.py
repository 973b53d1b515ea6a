"""Experimental designs: REFERENCE.md sections 22-23 and the seeds' study designs."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter

import numpy as np
import pytest

from stecflow.core.errors import ConfigError
from stecflow.core.ids import is_valid_id
from stecflow.studies.designs import (
    BALANCE_COLUMNS,
    TRIAL_COLUMNS,
    Design,
    DesignError,
    balance_problems,
    balance_table,
    check_balance,
    latin_square_design,
    two_group_design,
    valid_subject_counts,
    williams_square,
)

# TUNA-REG'09 (seed 001): 6 peer systems + 2 human sets, 112 test items in two domains.
TUNA09_SYSTEMS = [
    "GRAPH",
    "IS-FP-GT",
    "NIL-UCM-EvoCBR",
    "NIL-UCM-EvoTAP",
    "NIL-UCM-ValuesCBR",
    "USP-EACH",
    "HUMAN-1",
    "HUMAN-2",
]
TUNA09_ITEMS = [f"t{k:03d}" for k in range(1, 113)]
TUNA09_DOMAINS = {
    item: "furniture" if k < 56 else "people" for k, item in enumerate(TUNA09_ITEMS)
}
DEV_ITEMS = [f"d{k:03d}" for k in range(1, 41)]

# ASGRE (seed 003, section 3.2): 15 systems, 148 test items.
ASGRE_SYSTEMS = [f"sys{k:02d}" for k in range(1, 16)]
ASGRE_ITEMS = [f"a{k:03d}" for k in range(1, 149)]

WILLIAMS_4 = [[0, 1, 3, 2], [1, 2, 0, 3], [2, 3, 1, 0], [3, 0, 2, 1]]
WILLIAMS_8 = [
    [0, 1, 7, 2, 6, 3, 5, 4],
    [1, 2, 0, 3, 7, 4, 6, 5],
    [2, 3, 1, 4, 0, 5, 7, 6],
    [3, 4, 2, 5, 1, 6, 0, 7],
    [4, 5, 3, 6, 2, 7, 1, 0],
    [5, 6, 4, 7, 3, 0, 2, 1],
    [6, 7, 5, 0, 4, 1, 3, 2],
    [7, 0, 6, 1, 5, 2, 4, 3],
]


def adjacent_pairs(rows) -> Counter:
    return Counter((row[i], row[i + 1]) for row in rows for i in range(len(row) - 1))


@pytest.fixture(scope="module")
def rating() -> Design:
    """TUNA-REG'09 rating experiment: 8 subjects, 2 practice items."""
    return latin_square_design(
        TUNA09_SYSTEMS,
        TUNA09_ITEMS,
        subjects=8,
        seed=2009,
        subdomains=TUNA09_DOMAINS,
        practice_pool=DEV_ITEMS,
        n_practice=2,
        study="tuna09-rating",
    )


@pytest.fixture(scope="module")
def identification() -> Design:
    """TUNA-REG'09 identification experiment: 16 subjects, 5 practice items."""
    return latin_square_design(
        TUNA09_SYSTEMS,
        TUNA09_ITEMS,
        subjects=16,
        seed=2009,
        subdomains=TUNA09_DOMAINS,
        practice_pool=DEV_ITEMS,
        n_practice=5,
        study="tuna09-ident",
    )


@pytest.fixture(scope="module")
def asgre() -> Design:
    """ASGRE identification experiment: 15 systems x 148 items (+2 fillers), 30 subjects."""
    return latin_square_design(
        ASGRE_SYSTEMS,
        ASGRE_ITEMS,
        subjects=30,
        seed=2007,
        practice_pool=DEV_ITEMS,
        n_practice=5,
        study="asgre",
    )


# --------------------------------------------------------------------------- Williams


def test_williams_test_vectors():
    assert williams_square(4).tolist() == WILLIAMS_4
    assert williams_square(8).tolist() == WILLIAMS_8


@pytest.mark.parametrize(
    ("n", "rows", "count"), [(4, 4, 1), (8, 8, 1), (15, 30, 2), (3, 6, 2), (6, 6, 1)]
)
def test_williams_adjacent_pairs_are_balanced(n, rows, count):
    square = williams_square(n)
    assert square.shape == (rows, n)
    pairs = adjacent_pairs(square.tolist())
    assert len(pairs) == n * (n - 1)
    assert set(pairs.values()) == {count}


@pytest.mark.parametrize("n", [2, 4, 7, 8, 15])
def test_williams_rows_and_columns_are_permutations(n):
    square = williams_square(n)
    for block in (square[:n], square[n:]) if n % 2 else (square,):
        for row in block:
            assert sorted(row.tolist()) == list(range(n))
        for column in block.T:
            assert sorted(column.tolist()) == list(range(n))


@pytest.mark.parametrize("n", [0, 1, 2.0, True])
def test_williams_rejects_bad_sizes(n):
    with pytest.raises(ValueError, match="n: must be"):
        williams_square(n)


# --------------------------------------------------------------------------- TUNA-REG'09


def test_tuna09_rating_counts(rating):
    test = rating.test_trials
    assert len(test) == 896 == 14 * 8 * 8
    assert rating.squares == 14 and rating.groups == 1 and rating.subjects == 8
    assert test["square"].nunique() == 14
    # 112 test trials per subject plus 2 practice trials, 14 per system per subject
    assert rating.trials.groupby("list").size().tolist() == [114] * 8
    assert test.groupby("list").size().tolist() == [112] * 8
    per_subject_system = test.groupby(["list", "system"]).size()
    assert len(per_subject_system) == 64 and set(per_subject_system) == {14}
    # each system receives 112 judgements, each (item, system) pair exactly one
    assert test.groupby("system").size().tolist() == [112] * 8
    per_cell = test.groupby(["item", "system"]).size()
    assert len(per_cell) == 112 * 8 and set(per_cell) == {1}
    assert not test["filler"].any()
    assert balance_problems(rating) == []


def test_tuna09_rating_subjects_see_each_system_equally_per_domain(rating):
    # seed 001 section 5.2: "each subject sees descriptions from each system and for
    # each domain the same number of times"
    per_cell = rating.test_trials.groupby(["list", "subdomain", "system"]).size()
    assert len(per_cell) == 8 * 2 * 8 and set(per_cell) == {7}
    # squares hold a single domain
    assert set(rating.test_trials.groupby("square")["subdomain"].nunique()) == {1}
    table = balance_table(rating)
    assert "subject_subdomain_system" in set(table["check"])


def test_each_subject_takes_one_row_of_every_square(rating):
    test = rating.test_trials
    per_subject_square = test.groupby(["list", "square"]).agg(
        rows=("square_row", "nunique"), trials=("item", "size")
    )
    assert set(per_subject_square["rows"]) == {1}
    assert set(per_subject_square["trials"]) == {8}
    # within a square every row is a different subject and the cells form a Latin square
    for _, square in test.groupby("square"):
        assert square.groupby("square_row")["list"].nunique().tolist() == [1] * 8
        assert square.groupby("list")["square_row"].first().nunique() == 8
        assert set(square.groupby("square_row")["system"].nunique()) == {8}
        assert set(square.groupby("square_column")["system"].nunique()) == {8}
        assert set(square.groupby("square_column")["item"].nunique()) == {1}


def test_tuna09_identification_counts(identification):
    test = identification.test_trials
    assert len(test) == 896
    assert identification.groups == 2
    assert identification.trials.groupby("list").size().tolist() == [61] * 16
    assert test.groupby("list").size().tolist() == [56] * 16
    per_subject_system = test.groupby(["list", "system"]).size()
    assert len(per_subject_system) == 16 * 8 and set(per_subject_system) == {7}
    assert test.groupby("system").size().tolist() == [112] * 8
    assert set(test.groupby(["item", "system"]).size()) == {1}
    # each subject does one row of 7 of the 14 squares
    assert set(test.groupby("list")["square"].nunique()) == {7}
    assert balance_problems(identification) == []


def test_tuna09_identification_groups_split_by_domain(identification):
    test = identification.test_trials
    by_group = test.groupby("group").agg(
        domains=("subdomain", "unique"),
        items=("item", "nunique"),
        squares=("square", "unique"),
    )
    assert [list(d) for d in by_group["domains"]] == [["furniture"], ["people"]]
    assert by_group["items"].tolist() == [56, 56]
    assert [sorted(s) for s in by_group["squares"]] == [
        list(range(1, 8)),
        list(range(8, 15)),
    ]
    # every subject in a group sees the group's 56 items
    assert set(test.groupby("list")["item"].nunique()) == {56}
    assert test.groupby("group")["list"].nunique().tolist() == [8, 8]
    # subject slots alternate between the groups
    slots = identification.trials.drop_duplicates("list")
    assert slots["group"].tolist() == [1, 2] * 8


def test_groups_can_mix_domains():
    design = latin_square_design(
        TUNA09_SYSTEMS,
        TUNA09_ITEMS,
        subjects=16,
        seed=1,
        subdomains=TUNA09_DOMAINS,
        group_by_subdomain=False,
    )
    counts = design.test_trials.groupby(["group", "subdomain"])["item"].nunique()
    assert counts.to_dict() == {
        (1, "furniture"): 32,
        (1, "people"): 24,
        (2, "furniture"): 24,
        (2, "people"): 32,
    }
    assert balance_problems(design) == []


def test_without_subdomains_groups_take_consecutive_squares():
    design = latin_square_design(TUNA09_SYSTEMS, TUNA09_ITEMS, subjects=16, seed=1)
    squares = design.test_trials.groupby("group")["square"].unique()
    assert [sorted(s) for s in squares] == [list(range(1, 8)), list(range(8, 15))]
    assert design.test_trials["subdomain"].isna().all()
    assert balance_problems(design) == []


# --------------------------------------------------------------------------- ASGRE


def test_asgre_counts_with_fillers(asgre):
    test = asgre.test_trials
    assert len(test) == 2250 == 10 * 15 * 15
    assert asgre.squares == 10 and asgre.groups == 2
    assert test.groupby("list").size().tolist() == [75] * 30
    assert asgre.trials.groupby("list").size().tolist() == [80] * 30
    per_subject_system = test.groupby(["list", "system"]).size()
    assert len(per_subject_system) == 30 * 15 and set(per_subject_system) == {5}
    # 150 judgements per system, fillers included; 148 real items once per system
    assert test.groupby("system").size().tolist() == [150] * 15
    real = test[~test["filler"]]
    assert real["item"].nunique() == 148
    per_cell = real.groupby(["item", "system"]).size()
    assert len(per_cell) == 148 * 15 and set(per_cell) == {1}
    # each group: 15 subjects, 75 items (5 squares)
    assert test.groupby("group")["list"].nunique().tolist() == [15, 15]
    assert test.groupby("group")[["square", "square_column"]].apply(
        lambda f: len(f.drop_duplicates())
    ).tolist() == [75, 75]
    assert balance_problems(asgre) == []


def test_asgre_fillers_duplicate_two_items_of_the_other_group(asgre):
    test = asgre.test_trials
    fillers = test[test["filler"]]
    assert len(fillers) == 2 * 15
    assert fillers["item"].nunique() == 2
    assert set(fillers["square"]) == {10}
    assert set(fillers["item"]) <= set(ASGRE_ITEMS)
    assert set(fillers.groupby("item")["system"].nunique()) == {15}
    # originals sit in the other group, so no subject sees an item twice
    originals = test[~test["filler"] & test["item"].isin(fillers["item"])]
    assert set(originals["group"]).isdisjoint(set(fillers["group"]))
    assert not test.duplicated(["list", "item"]).any()
    assert any("filler" in note for note in asgre.notes)
    table = balance_table(asgre)
    filler_rows = table[table["check"] == "filler_system"]
    assert len(filler_rows) == 30 and filler_rows["ok"].all()
    assert set(filler_rows["expected"]) == {1}


def test_single_group_fillers_come_from_other_squares():
    design = latin_square_design(
        ["A", "B", "C"], ["i1", "i2", "i3", "i4"], subjects=3, seed=9
    )
    test = design.test_trials
    fillers = test[test["filler"]]
    assert len(test) == 18 and fillers["item"].nunique() == 2
    short = fillers["square"].iloc[0]
    real_in_short = set(test[(test["square"] == short) & ~test["filler"]]["item"])
    assert real_in_short.isdisjoint(set(fillers["item"]))
    assert balance_problems(design) == []


def test_asgre_carryover_balanced_design():
    design = latin_square_design(
        ASGRE_SYSTEMS, ASGRE_ITEMS, subjects=30, seed=3, carryover_balanced=True
    )
    test = design.test_trials
    assert len(test) == 2250 and design.carryover_balanced
    pairs = Counter()
    for _, trials in test.groupby(["list", "square"]):
        trials = trials.sort_values("order")
        # a square's items are shown consecutively, in column order
        assert trials["order"].diff().dropna().eq(1).all()
        assert trials["square_column"].tolist() == list(range(1, 16))
        pairs.update(adjacent_pairs([trials["system"].tolist()]))
    # 150 sequences of 14 adjacencies: each of the 210 ordered pairs 10 times
    assert len(pairs) == 210 and set(pairs.values()) == {10}
    table = balance_table(design)
    assert table[table["check"] == "carryover"]["ok"].all()
    assert balance_problems(design) == []


def test_even_carryover_design_balances_every_square(rating):
    design = latin_square_design(
        TUNA09_SYSTEMS, TUNA09_ITEMS, subjects=8, seed=5, carryover_balanced=True
    )
    for _, square in design.test_trials.groupby("square"):
        sequences = [
            trials.sort_values("order")["system"].tolist()
            for _, trials in square.groupby("list")
        ]
        pairs = adjacent_pairs(sequences)
        assert len(pairs) == 56 and set(pairs.values()) == {1}
    assert balance_problems(design) == []
    # without carry-over balance the squares are interleaved in each list
    first = rating.test_trials[rating.test_trials["list"] == "L01"]["square"].head(16)
    assert first.nunique() > 2


def test_odd_carryover_needs_an_even_number_of_squares():
    with pytest.raises(ValueError, match="even number of squares") as info:
        latin_square_design(
            ASGRE_SYSTEMS,
            ASGRE_ITEMS[:135],
            subjects=15,
            seed=1,
            carryover_balanced=True,
        )
    assert "between 121 and 135" not in str(info.value)
    assert "between 106 and 120 or between 136 and 150" in str(info.value)


# --------------------------------------------------------------------------- options


def test_replications_judge_each_pair_once_per_replication():
    design = latin_square_design(
        ["A", "B", "C", "D"],
        [f"i{k}" for k in range(8)],
        subjects=8,
        seed=4,
        replications=2,
    )
    test = design.test_trials
    assert len(test) == 64
    assert set(test.groupby(["item", "system"]).size()) == {2}
    assert set(test.groupby(["replication", "item", "system"]).size()) == {1}
    assert test.groupby("replication")["list"].nunique().tolist() == [4, 4]
    assert balance_problems(design) == []


def test_practice_items_come_first_and_are_not_test_items(identification):
    practice = identification.trials[identification.trials["practice"]]
    assert len(identification.practice_items) == 5
    assert set(identification.practice_items) <= set(DEV_ITEMS)
    assert set(identification.practice_items).isdisjoint(TUNA09_ITEMS)
    for _, rows in identification.trials.groupby("list"):
        head = rows.sort_values("order").head(5)
        assert head["practice"].all()
        assert head["item"].tolist() == list(identification.practice_items)
        assert head["order"].tolist() == [1, 2, 3, 4, 5]
    assert practice["square"].isna().all() and practice["system"].isna().all()
    assert not practice["filler"].any()


def test_practice_system_fills_the_system_column():
    design = latin_square_design(
        ["A", "B"],
        ["i1", "i2"],
        subjects=2,
        seed=1,
        practice_pool=["p1"],
        n_practice=1,
        practice_system="HUMAN-1",
    )
    practice = design.trials[design.trials["practice"]]
    assert practice["system"].tolist() == ["HUMAN-1", "HUMAN-1"]


def test_trial_table_shape(identification):
    trials = identification.trials
    assert tuple(trials.columns) == TRIAL_COLUMNS
    assert trials[["subject_slot", "order"]].equals(
        trials.sort_values(["subject_slot", "order"])[["subject_slot", "order"]]
    )
    assert str(trials["square"].dtype) == "Int64" and trials["order"].dtype == np.int64
    assert trials["practice"].dtype == bool and trials["filler"].dtype == bool
    assert set(trials["study"]) == {"tuna09-ident"}
    lists = trials.drop_duplicates("list")
    assert lists["list"].tolist() == [f"L{k:02d}" for k in range(1, 17)]
    assert lists["subject_slot"].tolist() == list(range(1, 17))
    assert all(is_valid_id(x) for x in lists["list"])
    assert identification.items == tuple(TUNA09_ITEMS)
    assert identification.systems == tuple(sorted(TUNA09_SYSTEMS))


def test_settings_are_plain_data(asgre):
    settings = asgre.settings()
    assert json.loads(json.dumps(settings)) == settings
    assert settings["n_trials"] == 2250 and settings["n_fillers"] == 30
    assert settings["trials_per_subject"] == 80 and settings["seed"] == 2007


# --------------------------------------------------------------------------- determinism


def test_same_seed_same_design(identification):
    again = latin_square_design(
        list(reversed(TUNA09_SYSTEMS)),
        list(reversed(TUNA09_ITEMS)),
        subjects=16,
        seed=2009,
        subdomains=TUNA09_DOMAINS,
        practice_pool=list(reversed(DEV_ITEMS)),
        n_practice=5,
        study="tuna09-ident",
    )
    assert again.trials.equals(identification.trials)
    assert balance_table(again).equals(balance_table(identification))


def test_another_seed_changes_the_order(identification):
    other = latin_square_design(
        TUNA09_SYSTEMS,
        TUNA09_ITEMS,
        subjects=16,
        seed=2010,
        subdomains=TUNA09_DOMAINS,
        practice_pool=DEV_ITEMS,
        n_practice=5,
        study="tuna09-ident",
    )
    assert not other.trials.equals(identification.trials)
    key = ["list", "order"]
    merged = identification.trials.merge(other.trials, on=key, suffixes=("", "_other"))
    assert (merged["item"] != merged["item_other"]).mean() > 0.9
    assert balance_problems(other) == []


# --------------------------------------------------------------------------- errors


def test_subjects_must_fit_the_squares():
    with pytest.raises(
        ValueError,
        match=r"subjects: 10 subjects do not fit 14 squares of 8 systems.*8, 16, 56, 112",
    ):
        latin_square_design(TUNA09_SYSTEMS, TUNA09_ITEMS, subjects=10, seed=1)
    # a multiple of n whose groups do not divide the squares
    with pytest.raises(ValueError, match=r"24 subjects .* one of 8, 16, 56, 112"):
        latin_square_design(TUNA09_SYSTEMS, TUNA09_ITEMS, subjects=24, seed=1)
    with pytest.raises(
        ValueError, match=r"× 2 replications subjects, i.e. one of 16, 32, 112, 224"
    ):
        latin_square_design(
            TUNA09_SYSTEMS, TUNA09_ITEMS, subjects=8, seed=1, replications=2
        )


def test_fewer_items_than_systems():
    with pytest.raises(
        ValueError,
        match="5 items for 8 systems.*at least 8 items or compare fewer systems",
    ):
        latin_square_design(TUNA09_SYSTEMS, TUNA09_ITEMS[:5], subjects=8, seed=1)


def test_valid_subject_counts_match_the_seeds():
    assert valid_subject_counts(8, 112) == [8, 16, 56, 112]
    assert valid_subject_counts(15, 148) == [15, 30, 75, 150]
    assert valid_subject_counts(4, 8, replications=3) == [12, 24]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"systems": ["A", "A", "B"]}, "systems: duplicate IDs A"),
        ({"systems": ["A"]}, "systems: need at least 2"),
        ({"systems": "AB"}, "systems: give a list of IDs"),
        ({"items": ["i1", "", "i3"]}, "items: IDs must be non-empty"),
        ({"seed": -1}, "seed: must be a non-negative integer"),
        ({"seed": 1.5}, "seed: must be a non-negative integer"),
        ({"study": "my.study"}, "study: 'my.study' is not a valid ID"),
        ({"subjects": 0}, "subjects: must be at least 1"),
        (
            {"practice_pool": ["i1", "p1"], "n_practice": 1},
            "practice_pool: 1 practice item.*i1.*another split",
        ),
        (
            {"practice_pool": ["p1"], "n_practice": 2},
            "n_practice: asked for 2 practice items but the pool holds 1",
        ),
        (
            {"subdomains": {"i1": "x"}},
            r"subdomains: no subdomain for 3 item\(s\) \(i2, i3, i4\)",
        ),
    ],
)
def test_bad_requests_raise_clear_errors(kwargs, message):
    arguments = {
        "systems": ["A", "B"],
        "items": ["i1", "i2", "i3", "i4"],
        "subjects": 2,
        "seed": 1,
    }
    arguments.update(kwargs)
    with pytest.raises(DesignError, match=message) as info:
        latin_square_design(**arguments)
    assert isinstance(info.value, ValueError) and isinstance(info.value, ConfigError)


# --------------------------------------------------------------------------- two groups


@pytest.fixture(scope="module")
def rexj() -> Design:
    """Seed 000 section 5.1: 36 FP contexts (15 'parallelogram'), 20 TP + 20 FN shared."""
    contexts = [f"fp{k:02d}" for k in range(1, 37)]
    strata = {c: "parallelogram" if k < 15 else "other" for k, c in enumerate(contexts)}
    shared = [f"tp{k:02d}" for k in range(1, 21)] + [f"fn{k:02d}" for k in range(1, 21)]
    return two_group_design(
        contexts,
        original="ORIG",
        replacement="DP",
        shared=shared,
        strata=strata,
        subjects=36,
        seed=2010,
        study="rexj",
    )


def test_two_group_counts(rexj):
    test = rexj.test_trials
    assert len(test) == 36 * 76
    assert test.groupby("list").size().tolist() == [76] * 36
    assert test.groupby("group")["list"].nunique().tolist() == [18, 18]
    # every subject sees every context exactly once
    assert set(test.groupby("list")["item"].nunique()) == {76}
    assert len(rexj.item_sets["A"]) == len(rexj.item_sets["B"]) == 18
    assert len(rexj.item_sets["shared"]) == 40
    assert balance_problems(rexj) == []


def test_two_group_counterbalancing(rexj):
    test = rexj.test_trials
    versions = test.groupby(["group", "item_set"])["system"].unique()
    assert {k: list(v) for k, v in versions.items()} == {
        (1, "A"): ["ORIG"],
        (1, "B"): ["DP"],
        (1, "shared"): ["ORIG"],
        (2, "A"): ["DP"],
        (2, "B"): ["ORIG"],
        (2, "shared"): ["ORIG"],
    }
    contexts = test[test["item_set"].isin(["A", "B"])]
    per_version = contexts.groupby(["item", "system"])["list"].nunique()
    assert len(per_version) == 36 * 2 and set(per_version) == {18}
    shared = test[test["item_set"] == "shared"]
    assert set(shared.groupby("item")["list"].nunique()) == {36}
    # the 15 parallelogram contexts are split 7/8 (seed 000: 7 in FP1, 8 in FP2)
    parallelograms = {f"fp{k:02d}" for k in range(1, 16)}
    split = sorted(len(parallelograms & set(rexj.item_sets[h])) for h in ("A", "B"))
    assert split == [7, 8]


def test_two_group_balance_table(rexj):
    table = balance_table(rexj)
    assert tuple(table.columns) == BALANCE_COLUMNS
    assert table["ok"].all()
    subject = table[table["check"] == "subject_system"].set_index(["unit", "system"])[
        "expected"
    ]
    assert subject[("L01", "ORIG")] == 18 + 40 and subject[("L01", "DP")] == 18
    assert subject[("L02", "ORIG")] == 18 + 40 and subject[("L02", "DP")] == 18


def test_two_group_orders_differ_between_subjects(rexj):
    first = rexj.trials[rexj.trials["list"] == "L01"]["item"].tolist()
    third = rexj.trials[rexj.trials["list"] == "L03"]["item"].tolist()
    assert sorted(first) == sorted(third) and first != third


def test_two_group_errors():
    with pytest.raises(
        ValueError,
        match="35 subjects cannot form two equal groups; use an even number such as 34 or 36",
    ):
        two_group_design(
            ["c1", "c2"], original="O", replacement="R", subjects=35, seed=1
        )
    with pytest.raises(ValueError, match="c1 are both contexts and shared items"):
        two_group_design(
            ["c1", "c2"],
            original="O",
            replacement="R",
            shared=["c1"],
            subjects=2,
            seed=1,
        )
    with pytest.raises(ValueError, match="original/replacement: duplicate IDs O"):
        two_group_design(
            ["c1", "c2"], original="O", replacement="O", subjects=2, seed=1
        )
    with pytest.raises(ValueError, match="practice_pool: .*test items"):
        two_group_design(
            ["c1", "c2"],
            original="O",
            replacement="R",
            shared=["s1"],
            subjects=2,
            seed=1,
            practice_pool=["s1"],
            n_practice=1,
        )


# --------------------------------------------------------------------------- checks


def test_balance_problems_find_tampering(rating):
    trials = rating.trials.copy()
    index = trials.index[~trials["practice"]][0]
    other = next(s for s in TUNA09_SYSTEMS if s != trials.loc[index, "system"])
    trials.loc[index, "system"] = other
    broken = dataclasses.replace(rating, trials=trials)
    problems = balance_problems(broken)
    assert any(p.startswith("subject_system: list L01 x system") for p in problems)
    assert any(
        p.startswith("item_system: item") and "expected 1" in p for p in problems
    )
    with pytest.raises(DesignError, match="problem"):
        check_balance(broken)
    check_balance(rating)


def test_balance_problems_find_practice_and_order_errors(rating):
    trials = rating.trials.copy()
    first_test = trials.index[(trials["list"] == "L02") & ~trials["practice"]][0]
    trials.loc[first_test, "order"] = 999
    practice = trials.index[(trials["list"] == "L03") & trials["practice"]][0]
    trials.loc[practice, "item"] = (
        "d040" if trials.loc[practice, "item"] != "d040" else "d039"
    )
    leaked = dataclasses.replace(
        rating, trials=trials, practice_items=(*rating.practice_items, "t001")
    )
    problems = balance_problems(leaked)
    assert any(p.startswith("L02: order runs") for p in problems)
    assert any(p.startswith("L03: practice trials must come first") for p in problems)
    assert "practice items are test items: t001" in problems

"""Uniqueness, Minimality (REFERENCE.md §6) and under/over-specification (seed 004)."""

from __future__ import annotations

import math

import pytest

from stecflow.metrics import (
    Minimality,
    Overspecification,
    Underspecification,
    Uniqueness,
    is_minimal,
    is_unique,
    minimal_distinguishing_size,
    overspecification,
    underspecification,
)


def fs(*pairs: str) -> frozenset[tuple[str, str]]:
    return frozenset(tuple(p.split(":")) for p in pairs)  # type: ignore[misc]


# REFERENCE.md §6 test domain
E1 = fs("type:chair", "colour:red", "size:large", "orientation:front")
E2 = fs("type:chair", "colour:blue", "size:large", "orientation:front")
E3 = fs("type:sofa", "colour:red", "size:small", "orientation:front")
D = [E2, E3]
CTX = {"target": E1, "distractors": D}

SECTION6_TABLE = [
    (fs("colour:red"), False, False),
    (fs("type:chair", "colour:red"), True, True),
    (fs("colour:red", "size:large"), True, True),
    (fs("type:chair", "colour:red", "size:large"), True, False),
    (fs("colour:green"), False, False),
]


def test_k_star_is_two():
    assert minimal_distinguishing_size(E1, D) == 2
    for attr in E1:
        assert not is_unique(frozenset({attr}), E1, D)


@pytest.mark.parametrize(("s", "unique", "minimal"), SECTION6_TABLE)
def test_section6_table(s, unique, minimal):
    assert is_unique(s, E1, D) is unique
    assert is_minimal(s, E1, D) is minimal
    assert Uniqueness().score_segment(s, [], **CTX) == float(unique)
    assert Minimality().score_segment(s, [], **CTX) == float(minimal)


def test_section6_system_scores():
    sets = [row[0] for row in SECTION6_TABLE]
    contexts = [CTX] * len(sets)
    refs = [[]] * len(sets)
    assert Uniqueness().corpus_score(sets, refs, contexts) == pytest.approx(3 / 5)
    assert Minimality().corpus_score(sets, refs, contexts) == pytest.approx(2 / 5)


def test_inputs_are_normalised():
    assert Uniqueness().score_segment(
        {("Colour", "RED"), ("Type", "Chair")},
        [],
        target=[(n.upper(), v) for n, v in E1],
        distractors=D,
    )


def test_count_type_false_makes_type_free():
    # Type is free: {type:chair, colour:red} distinguishes with one counted attribute.
    assert minimal_distinguishing_size(E1, D, count_type_in_minimality=False) == 1
    m = Minimality(count_type_in_minimality=False)
    assert m.score_segment(fs("type:chair", "colour:red"), [], **CTX) == 1.0
    # {colour:red, size:large} has two counted attributes: no longer minimal.
    assert m.score_segment(fs("colour:red", "size:large"), [], **CTX) == 0.0
    assert m.score_segment(fs("colour:red"), [], **CTX) == 0.0


# A domain where the two minimality readings differ: k* = 1 ({type:chair}), but
# {colour:red, size:large} has no redundant attribute.
T2 = fs("type:chair", "colour:red", "size:large")
D2 = [
    fs("type:sofa", "colour:red", "size:small"),
    fs("type:sofa", "colour:blue", "size:large"),
]


def test_full_brevity_vs_no_redundant_attr():
    s = fs("colour:red", "size:large")
    assert minimal_distinguishing_size(T2, D2) == 1
    assert not is_minimal(s, T2, D2)
    assert is_minimal(s, T2, D2, minimality="no_redundant_attr")
    redundant = fs("type:chair", "colour:red")
    assert not is_minimal(redundant, T2, D2, minimality="no_redundant_attr")
    assert is_minimal(fs("type:chair"), T2, D2, minimality="no_redundant_attr")
    m = Minimality(minimality="no_redundant_attr")
    assert m.score_segment(s, [], target=T2, distractors=D2) == 1.0
    # Not unique, hence not minimal under either reading.
    assert not is_minimal(fs("colour:red"), T2, D2, minimality="no_redundant_attr")


def test_no_redundant_attr_with_type_not_counted():
    # Removing type never counts as redundancy when type is free.
    s = fs("type:chair", "colour:red")
    t = fs("type:chair", "colour:red")
    d = [fs("type:chair", "colour:blue"), fs("type:sofa", "colour:red")]
    assert is_minimal(s, t, d, minimality="no_redundant_attr")
    s2 = fs("type:chair", "colour:red", "size:large")
    t2 = fs("type:chair", "colour:red", "size:large")
    d2 = [fs("type:sofa", "colour:red", "size:large")]
    assert not is_minimal(s2, t2, d2, minimality="no_redundant_attr")
    assert not is_minimal(
        fs("type:chair", "colour:red"),
        t2,
        d2,
        minimality="no_redundant_attr",
        count_type_in_minimality=False,
    )
    assert is_minimal(
        fs("type:chair"),
        t2,
        d2,
        minimality="no_redundant_attr",
        count_type_in_minimality=False,
    )


def test_unsolvable_item_is_counted_and_never_minimal():
    t = fs("type:chair", "colour:red")
    d = [fs("type:chair", "colour:red", "size:large")]  # has all of t's attributes
    assert minimal_distinguishing_size(t, d) is None
    assert not is_minimal(t, t, d)
    ctx = {"target": t, "distractors": d}
    for metric in (Uniqueness(), Minimality()):
        stats = metric.corpus_stats([t, fs("colour:red")], [[], []], [ctx, CTX])
        assert metric.aggregate(stats) == 0.0
        assert metric.summary(stats) == {
            "n_items": 2,
            "n_scored": 2,
            "n_skipped": 0,
            "n_unsolvable": 1,
        }
    assert math.isnan(overspecification(t, t, d))
    assert underspecification(t, t, d) == 1.0


def test_empty_domain_has_k_star_zero():
    assert minimal_distinguishing_size(E1, []) == 0
    assert is_minimal(frozenset(), E1, [])


# -- under-specification ----------------------------------------------------------


@pytest.mark.parametrize(
    ("s", "degree"),
    [
        (fs("type:chair", "colour:red"), 0),
        (fs("colour:red"), 1),  # e3 is red
        (fs("type:chair"), 1),  # e2 is a chair
        (fs("size:large"), 1),
        (fs("orientation:front"), 2),
        (frozenset(), 2),
        (fs("colour:green"), 2),  # false of the target: |D| by default
        (fs("type:chair", "colour:blue"), 2),  # true of e2 only, false of the target
    ],
)
def test_underspecification_hand_worked(s, degree):
    assert underspecification(s, E1, D) == degree
    assert Underspecification().score_segment(s, [], **CTX) == degree


def test_underspecification_exclude_false_of_target():
    m = Underspecification(false_of_target="exclude")
    assert math.isnan(m.score_segment(fs("colour:green"), [], **CTX))
    sets = [fs("colour:green"), fs("colour:red"), fs("orientation:front")]
    stats = m.corpus_stats(sets, [[]] * 3, [CTX] * 3)
    assert m.aggregate(stats) == 1.5
    assert m.summary(stats)["n_skipped"] == 1
    assert Underspecification().corpus_score(sets, [[]] * 3, [CTX] * 3) == 5 / 3


# -- over-specification -----------------------------------------------------------


@pytest.mark.parametrize(
    ("s", "unique_scope", "all_scope"),
    [
        (fs("type:chair", "colour:red"), 0, 0),
        (fs("colour:red", "size:large"), 0, 0),
        (fs("type:chair", "colour:red", "size:large"), 1, 1),
        (E1, 2, 2),
        (fs("colour:red"), math.nan, 0),  # not unique; |S| - k* = -1 floored
        (fs("colour:red", "orientation:front"), math.nan, 0),  # true of e3 too
        (fs("type:sofa", "colour:green", "size:small"), math.nan, 1),
    ],
)
def test_overspecification_hand_worked(s, unique_scope, all_scope):
    got = overspecification(s, E1, D)
    if math.isnan(unique_scope):
        assert math.isnan(got)
    else:
        assert got == unique_scope
    assert overspecification(s, E1, D, scope="all") == all_scope


def test_overspecification_type_not_counted():
    # k*' = 1; {type:chair, colour:red, size:large} has 2 counted attributes.
    s = fs("type:chair", "colour:red", "size:large")
    assert overspecification(s, E1, D, count_type_in_minimality=False) == 1
    assert overspecification(fs("colour:red", "size:large"), E1, D) == 0
    assert (
        overspecification(
            fs("colour:red", "size:large"), E1, D, count_type_in_minimality=False
        )
        == 1
    )


def test_overspecification_metric_mean_over_defined_items():
    m = Overspecification()
    sets = [E1, fs("type:chair", "colour:red"), fs("colour:red")]
    stats = m.corpus_stats(sets, [[]] * 3, [CTX] * 3)
    assert m.item_scores(stats)[:2] == [2.0, 0.0]
    assert m.aggregate(stats) == 1.0
    assert m.summary(stats) == {"n_items": 3, "n_scored": 2, "n_skipped": 1}
    assert Overspecification(scope="all").corpus_score(
        sets, [[]] * 3, [CTX] * 3
    ) == pytest.approx(2 / 3)
    assert m.higher_is_better is False


def test_domain_metrics_need_the_domain():
    with pytest.raises(ValueError, match="pass target and distractors"):
        Uniqueness().score_segment(E1, [])
    with pytest.raises(ValueError, match="pass distractors"):
        Minimality().score_segment(E1, [], target=E1)


def test_invalid_function_options():
    with pytest.raises(ValueError, match="minimality"):
        is_minimal(E1, E1, D, minimality="shortest")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="false_of_target"):
        underspecification(E1, E1, D, false_of_target="zero")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="scope"):
        overspecification(E1, E1, D, scope="some")  # type: ignore[arg-type]

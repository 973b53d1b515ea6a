"""The properties seed 004 states of Dice, checked on random attribute sets
(hypothesis), beside those of the two measures it proposes (SetEdit, DenotSim).

Van Deemter & Gatt (seed 004, §1): "The Dice measure is symmetrical, in that
s(A, B) = s(B, A), for all A and B. Also, s(A, A) holds for every set A.
Finally, a triangular kind of transitivity holds: if s(A, B) = m and s(B, C) = n
then s(A, C) ≤ m + n." The first two hold (``s(A, A) = 1``). The third, read as
written, does not: with B disjoint from A = C, m = n = 0 while s(A, C) = 1. What
does hold is the triangle inequality of the Jaccard distance, which Dice is a
monotone function of (J = s / (2 - s)); the tests say both.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import find, given, settings
from hypothesis import strategies as st

from stecflow.metrics.denotation import denotation_similarity
from stecflow.metrics.sets import dice, set_edit_distance

#: Attributes of a small TUNA-like domain: a few names, a few values each.
ATTRIBUTE = st.tuples(
    st.sampled_from(["type", "colour", "size", "orientation"]),
    st.sampled_from(["a", "b", "c"]),
)
SETS = st.frozensets(ATTRIBUTE, max_size=6)
#: Entities of a domain: one value per attribute name.
ENTITY = st.fixed_dictionaries(
    {
        name: st.sampled_from(["a", "b", "c"])
        for name in ("type", "colour", "size", "orientation")
    }
).map(lambda d: frozenset(d.items()))
DOMAIN = st.lists(ENTITY, min_size=1, max_size=7)
#: The same examples on every run (CI's results can be reproduced).
SAME = settings(derandomize=True, database=None, deadline=None, max_examples=300)


def jaccard_distance(a: frozenset, b: frozenset) -> Fraction:
    """1 - J(A, B), from Dice alone: J = s / (2 - s)."""
    s = dice(a, b)
    return 1 - s / (2 - s)


@SAME
@given(SETS, SETS)
def test_dice_is_symmetric_and_within_0_and_1(a, b):
    s = dice(a, b)
    assert s == dice(b, a)
    assert 0 <= s <= 1
    assert (s == 1) == (a == b)


@SAME
@given(SETS)
def test_dice_of_a_set_with_itself_is_1(a):
    assert dice(a, a) == 1


def test_the_seeds_triangle_bound_on_dice_does_not_hold():
    """s(A, C) ≤ s(A, B) + s(B, C), as the seed writes it, has counterexamples;
    hypothesis finds the smallest, empty sets allowed or not: A = C, and B
    sharing nothing with them."""

    def broken(t: tuple[frozenset, frozenset, frozenset]) -> bool:
        return dice(t[0], t[2]) > dice(t[0], t[1]) + dice(t[1], t[2])

    nonempty = st.frozensets(ATTRIBUTE, min_size=1, max_size=6)
    for sets in (SETS, nonempty):
        a, b, c = find(st.tuples(sets, sets, sets), broken, settings=SAME)
        assert a == c != b and not (a & b)
        assert (dice(a, b), dice(b, c), dice(a, c)) == (0, 0, 1)


@SAME
@given(SETS, SETS, SETS)
def test_the_jaccard_distance_dice_implies_is_a_metric(a, b, c):
    """The bound that does hold: Dice is 2J / (1 + J), and 1 - J obeys the
    triangle inequality."""
    j = Fraction(len(a & b), len(a | b)) if a | b else Fraction(1)
    assert dice(a, b) == 2 * j / (1 + j)
    assert jaccard_distance(a, c) <= jaccard_distance(a, b) + jaccard_distance(b, c)


def test_the_dice_distance_is_not_a_metric():
    """1 - Dice is no metric either (why the seed's bound cannot be rescued by
    turning it into a distance): {p}, {p, q}, {q}."""
    p, q = ("colour", "a"), ("size", "b")
    a, b, c = frozenset({p}), frozenset({p, q}), frozenset({q})
    assert 1 - dice(a, c) > (1 - dice(a, b)) + (1 - dice(b, c))  # 1 > 2/3


def test_dice_punishes_omission_more_than_addition():
    """The seed's example: O = {P, Q}; {P} scores 2/3, {P, Q, R} 4/5."""
    p, q, r = ("type", "a"), ("colour", "b"), ("size", "c")
    oracle = frozenset({p, q})
    assert dice(frozenset({p}), oracle) == Fraction(2, 3)
    assert dice(frozenset({p, q, r}), oracle) == Fraction(4, 5)


@SAME
@given(SETS, SETS, SETS)
def test_set_edit_distance_is_a_metric(a, b, c):
    """The edit distance the seed proposes instead (§1.1, REFERENCE.md §7):
    symmetric, zero only for equal sets, at most |A ∪ B|, and obeying the
    triangle inequality."""
    d = set_edit_distance(a, b)
    assert d == set_edit_distance(b, a)
    assert (d == 0) == (a == b)
    assert 0 <= d <= len(a | b)
    assert set_edit_distance(a, c) <= d + set_edit_distance(b, c)


@SAME
@given(SETS, SETS, DOMAIN)
def test_denotation_similarity_is_symmetric_within_0_and_1(a, b, domain):
    """DenotSim (§1.3) keeps Dice's first two properties."""
    s = denotation_similarity(a, b, domain)
    assert s == denotation_similarity(b, a, domain)
    assert 0 <= s <= 1
    assert denotation_similarity(a, a, domain) == 1

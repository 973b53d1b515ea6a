"""Reference-based attribute-set metrics: REFERENCE.md §2-5 and seed 004 §1.1, §1.3."""

from __future__ import annotations

import hashlib
import re
from fractions import Fraction
from pathlib import Path

import pytest

from stecflow.metrics import (
    MASI,
    DenotationSimilarity,
    Dice,
    SetAccuracy,
    SetEdit,
    denotation_similarity,
    dice,
    masi,
    normalise_attribute_set,
    set_edit_distance,
    without_type,
)
from stecflow.metrics.denotation import (
    ValueHierarchy,
    denotation,
)
from stecflow.scoring.hierarchy import load_value_hierarchy

# REFERENCE.md §3
A = frozenset({("type", "chair"), ("colour", "red"), ("size", "large")})
B = frozenset(
    {
        ("type", "chair"),
        ("colour", "red"),
        ("orientation", "left"),
        ("x-dimension", "2"),
    }
)
A1 = frozenset({("type", "chair"), ("colour", "red")})  # A′
EMPTY: frozenset[tuple[str, str]] = frozenset()

# REFERENCE.md §6 domain, reused for the denotation similarity
E1 = frozenset(
    {("type", "chair"), ("colour", "red"), ("size", "large"), ("orientation", "front")}
)
E2 = frozenset(
    {("type", "chair"), ("colour", "blue"), ("size", "large"), ("orientation", "front")}
)
E3 = frozenset(
    {("type", "sofa"), ("colour", "red"), ("size", "small"), ("orientation", "front")}
)


# -- §2 representation -----------------------------------------------------------


def test_normalise_attribute_set_case_whitespace_and_integers():
    raw = [("Colour", " RED "), ("x-dimension", "02"), ("hair  Colour", "dark")]
    assert normalise_attribute_set(raw) == {
        ("colour", "red"),
        ("x-dimension", "2"),
        ("hair colour", "dark"),
    }
    assert normalise_attribute_set({"y-dimension": 1}) == {("y-dimension", "1")}
    once = normalise_attribute_set(raw)
    assert normalise_attribute_set(once) == once


def test_location_is_two_attributes_and_values_are_distinct():
    top_left = normalise_attribute_set([("y-dimension", "1"), ("x-dimension", "1")])
    assert len(top_left) == 2
    assert ("colour", "red") != ("colour", "blue")


def test_without_type():
    assert without_type(A) == {("colour", "red"), ("size", "large")}


# -- §3 Dice -----------------------------------------------------------------------


def test_dice_vectors():
    assert dice(A, B) == Fraction(4, 7)
    assert round(float(dice(A, B)), 4) == 0.5714
    assert dice(A1, B) == Fraction(2, 3)
    assert dice(without_type(A), without_type(B)) == Fraction(2, 5)
    assert dice(EMPTY, EMPTY) == 1
    assert dice(EMPTY, B) == 0


def test_dice_metric_type_option_and_multi_ref():
    assert Dice().score_segment(A, [B]) == pytest.approx(4 / 7)
    no_type = Dice(include_type_in_set_metrics=False)
    assert no_type.score_segment(A, [B]) == pytest.approx(0.4)
    assert Dice().score_segment(A1, [B, A1]) == pytest.approx((2 / 3 + 1) / 2)
    assert Dice(multi_ref="max").score_segment(A1, [B, A1]) == 1.0
    assert Dice().score_segment(EMPTY, [EMPTY]) == 1.0


def test_dice_metric_normalises_inputs():
    messy = {("Type", "Chair "), ("COLOUR", "red")}
    assert Dice().score_segment(messy, [A1]) == 1.0


def test_dice_system_score_is_the_mean_over_items():
    assert Dice().corpus_score([A, A1, EMPTY], [[B], [B], [EMPTY]]) == pytest.approx(
        (4 / 7 + 2 / 3 + 1) / 3
    )


# -- §4 MASI -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ({1, 2}, {1, 2}, Fraction(1)),
        ({1, 2}, {1, 2, 3, 4}, Fraction(1, 3)),
        ({1, 2, 3}, {2, 3, 4}, Fraction(1, 6)),
        ({1}, {2}, Fraction(0)),
        ({"a"}, set(), Fraction(0)),
        (set(), set(), Fraction(1)),
        (A, B, Fraction(2, 15)),
        (A1, B, Fraction(1, 3)),
    ],
)
def test_masi_vectors(a, b, expected):
    assert masi(a, b) == expected
    assert masi(b, a) == expected
    assert 1 - masi(a, b) == 1 - expected


def test_masi_distances_are_exact_thirds_not_nltk_rounding():
    # NLTK releases with 0.67/0.33 weights give 0.665 and 0.835 here.
    assert 1 - masi({1, 2}, {1, 2, 3, 4}) == Fraction(2, 3)
    assert 1 - masi({1, 2, 3}, {2, 3, 4}) == Fraction(5, 6)
    assert 1 - masi(A, B) == Fraction(13, 15)
    assert round(float(masi(A, B)), 4) == 0.1333


def test_masi_metric():
    assert MASI().score_segment(A, [B]) == pytest.approx(2 / 15)
    assert MASI().score_segment(A1, [B, A1]) == pytest.approx((1 / 3 + 1) / 2)
    assert MASI(multi_ref="max").score_segment(A1, [B, A1]) == 1.0
    assert MASI().score_segment(EMPTY, [EMPTY]) == 1.0
    # Without type: A = {red, large}, B = {red, left, x2}: J = 1/4, M = 1/3.
    assert MASI(include_type_in_set_metrics=False).score_segment(
        A, [B]
    ) == pytest.approx(1 / 12)


# -- §5 Accuracy -------------------------------------------------------------------


def test_set_accuracy_any_and_mean():
    acc = SetAccuracy()
    assert acc.score_segment(A1, [B, A1]) == 1.0
    assert acc.score_segment(A, [B, A1]) == 0.0
    assert SetAccuracy(multi_ref="mean").score_segment(A1, [B, A1]) == 0.5
    assert acc.corpus_score([A1, A, A1], [[A1], [B], [B, A1]]) == pytest.approx(2 / 3)


def test_set_accuracy_type_option_and_normalisation():
    hyp = {("colour", "Red")}
    assert SetAccuracy().score_segment(hyp, [A1]) == 0.0
    assert SetAccuracy(include_type_in_set_metrics=False).score_segment(hyp, [A1]) == 1
    assert SetAccuracy().score_segment(
        {("x-dimension", "02")}, [{("X-Dimension", "2")}]
    )


# -- seed 004 §1.1: edit distance on attribute sets ----------------------------------


def test_set_edit_distance_hand_worked():
    # Only non-matching attributes cost; no shared names, so 1 deletion + 2 insertions.
    assert set_edit_distance(A, B) == 3
    # Same name, other value: one substitution (cost 1), where Dice gives 0.
    assert set_edit_distance({("colour", "red")}, {("colour", "blue")}) == 1
    assert dice({("colour", "red")}, {("colour", "blue")}) == 0
    # Seed 004 §1.1: oracle {P, Q}; omission {P} and addition {P, Q, R} cost the
    # same (Dice: 2/3 vs 4/5).
    p, q, r = ("p", "1"), ("q", "1"), ("r", "1")
    assert set_edit_distance(frozenset({p}), frozenset({p, q})) == 1
    assert set_edit_distance(frozenset({p, q, r}), frozenset({p, q})) == 1
    # Substitution + insertion.
    assert set_edit_distance(A1 | {("colour", "blue")} - {("colour", "red")}, A) == 2
    # Two values of one name against one: one substitution, one deletion.
    two = frozenset({("colour", "red"), ("colour", "blue")})
    assert set_edit_distance(two, frozenset({("colour", "green")})) == 2
    assert set_edit_distance(EMPTY, EMPTY) == 0
    assert set_edit_distance(A, EMPTY) == 3
    assert set_edit_distance(A, A) == 0


def test_set_edit_distance_is_symmetric_and_bounded():
    sets = [A, B, A1, EMPTY, E1, E2, E3]
    for x in sets:
        for y in sets:
            d = set_edit_distance(x, y)
            assert d == set_edit_distance(y, x)
            assert d <= len(x | y)
            assert (d == 0) == (x == y)


def test_set_edit_metric():
    m = SetEdit()
    assert m.higher_is_better is False
    assert m.score_segment(A, [B, A1]) == 2.0  # mean(3, 1)
    assert SetEdit(multi_ref="min").score_segment(A, [B, A1]) == 1.0
    assert SetEdit(multi_ref="max").score_segment(A, [B, A1]) == 3.0
    assert (
        SetEdit(include_type_in_set_metrics=False).score_segment(
            {("type", "sofa")}, [{("type", "chair")}]
        )
        == 0.0
    )


# -- seed 004 §1.3: denotation-based similarity --------------------------------------


def _seed_animals():
    """Seed 004's domain: 20 animals, a1..a15 mammals, a16..a20 mothers, some striped."""
    ents = []
    for i in range(1, 21):
        attrs = {("type", "animal"), ("pattern", "striped" if i % 2 else "plain")}
        if i <= 15:
            attrs.add(("type", "mammal"))
        else:
            attrs.add(("type", "mother"))
        ents.append(frozenset(attrs))
    return ents


def test_denotation_reproduces_the_seed_value_similarities():
    ents = _seed_animals()
    animal = denotation(frozenset({("type", "animal")}), "type", ents)
    mammal = denotation(frozenset({("type", "mammal")}), "type", ents)
    mother = denotation(frozenset({("type", "mother")}), "type", ents)
    assert (len(animal), len(mammal), len(mother)) == (20, 15, 5)
    assert dice(animal, mammal) == Fraction(6, 7)  # (2·15)/35
    assert dice(animal, mother) == Fraction(2, 5)  # (2·5)/25


def test_denotation_similarity_seed_example():
    ents = _seed_animals()
    striped_animal = frozenset({("pattern", "striped"), ("type", "animal")})
    striped_mammal = frozenset({("pattern", "striped"), ("type", "mammal")})
    striped_mother = frozenset({("pattern", "striped"), ("type", "mother")})
    # {striped, animal} is more similar to {striped, mammal} than to {striped, mother}.
    assert denotation_similarity(striped_animal, striped_mammal, ents) == Fraction(
        13, 14
    )  # mean(1, 6/7)
    assert denotation_similarity(striped_animal, striped_mother, ents) == Fraction(
        7, 10
    )  # mean(1, 2/5)
    # Plain set Dice cannot tell the two apart.
    assert dice(striped_animal, striped_mammal) == dice(striped_animal, striped_mother)


def test_denotation_similarity_tuna_hand_worked():
    ents = [E1, E2, E3]
    ref = frozenset({("type", "chair"), ("colour", "red"), ("size", "large")})
    # Omitted size: the hypothesis denotes all 3 entities there, "large" 2 of them:
    # Dice({1,2,3}, {1,2}) = 4/5; mean(1, 1, 4/5) = 14/15.
    assert denotation_similarity(A1, ref, ents) == Fraction(14, 15)
    # A wrong value of a single-valued attribute has a disjoint denotation: 0.
    blue = frozenset({("type", "chair"), ("colour", "blue")})
    assert denotation_similarity(blue, A1, ents) == Fraction(1, 2)
    # Omitting an attribute true of the whole domain costs nothing.
    front = A1 | {("orientation", "front")}
    assert denotation_similarity(A1, front, ents) == 1
    # Values no entity has: identical values score 1, different ones 0.
    green = frozenset({("colour", "green")})
    purple = frozenset({("colour", "purple")})
    assert denotation_similarity(green, green, ents) == 1
    assert denotation_similarity(green, purple, ents) == 0
    assert denotation_similarity(EMPTY, EMPTY, ents) == 1
    # Symmetric, 1 on identity.
    assert denotation_similarity(ref, A1, ents) == Fraction(14, 15)
    for x in (A, A1, ref, blue, green):
        assert denotation_similarity(x, x, ents) == 1


def test_denotation_similarity_metric_needs_the_domain():
    m = DenotationSimilarity()
    ref = [frozenset({("type", "chair"), ("colour", "red"), ("size", "large")})]
    ctx = {"target": E1, "distractors": [E2, E3]}
    assert m.score_segment(A1, ref, **ctx) == pytest.approx(14 / 15)
    # Without type, the dimensions are colour and size: mean(1, 4/5).
    no_type = DenotationSimilarity(include_type_in_set_metrics=False)
    assert no_type.score_segment(A1, ref, **ctx) == pytest.approx(0.9)
    assert (
        DenotationSimilarity(multi_ref="max").score_segment(A1, [*ref, A1], **ctx)
        == 1.0
    )
    with pytest.raises(ValueError, match="needs the item's domain"):
        m.score_segment(A1, ref)
    with pytest.raises(TypeError, match="sequence of attribute sets"):
        m.score_segment(A1, ref, target=E1, distractors=E2)


# -- seed 004 §1.3: "the distance between properties in an ontology tree" ------------

HIERARCHY = Path(__file__).resolve().parents[1] / "data" / "value_hierarchy.yaml"
# type: chair, sofa -> seat -> furniture <- desk; colour: red, orange -> warm;
# blue, green -> cool
CHAIR = frozenset({("type", "chair"), ("colour", "red")})
SOFA = frozenset({("type", "sofa"), ("colour", "red")})
DESK = frozenset({("type", "desk"), ("colour", "blue")})


def test_value_hierarchy_distances_by_hand():
    h = load_value_hierarchy(HIERARCHY)
    assert h.sha256 == hashlib.sha256(HIERARCHY.read_bytes()).hexdigest()
    assert h.distance("type", "chair", "chair") == 0
    assert h.distance("type", "chair", "seat") == 1  # parent
    assert h.distance("type", "chair", "sofa") == 2  # siblings, via seat
    assert h.distance("type", "chair", "furniture") == 2
    assert h.distance("type", "chair", "desk") == 3  # chair-seat-furniture-desk
    assert h.distance("colour", "red", "blue") is None  # two trees: warm, cool
    assert h.distance("type", "chair", "fan") is None  # not in the hierarchy
    assert [h.similarity("type", "chair", v) for v in ("chair", "seat", "sofa")] == [
        1,
        Fraction(1, 2),
        Fraction(1, 3),
    ]
    assert h.similarity("type", "Chair ", "DESK") == Fraction(1, 4)  # normalised
    assert h.similarity("colour", "red", "blue") == 0


def test_hierarchy_gives_partial_credit_by_tree_distance_by_hand():
    h = load_value_hierarchy(HIERARCHY)
    ents = [CHAIR, SOFA, DESK]

    def sim(hyp, hierarchy=h):
        return denotation_similarity(frozenset(hyp), CHAIR, ents, hierarchy)

    # colour equal (1); type sofa vs chair: disjoint denotations (Dice 0), tree
    # distance 2 -> 1/3; mean over the two dimensions
    assert sim(SOFA) == Fraction(2, 3)  # (1 + 1/3) / 2
    assert sim(SOFA, None) == Fraction(1, 2)  # (1 + 0) / 2, without the tree
    assert sim({("type", "desk"), ("colour", "red")}) == Fraction(5, 8)  # (1+1/4)/2
    # orange denotes nothing here; red and orange are siblings under warm
    assert sim({("type", "chair"), ("colour", "orange")}) == Fraction(2, 3)
    # red and blue are in different trees: no credit
    assert sim({("type", "chair"), ("colour", "blue")}) == Fraction(1, 2)
    # an omitted type denotes the whole domain: Dice({e1,e2,e3}, {e1}) = 1/2; the
    # tree compares values only
    assert sim({("colour", "red")}) == sim({("colour", "red")}, None) == Fraction(3, 4)


def test_hierarchy_joins_the_denotations_the_larger_counts():
    # seed 004's animals: the tree {mammal, mother} -> animal gives 1/2 to both
    # pairs; the denotations give 6/7 (animal, mammal) and 2/5 (animal, mother)
    ents = _seed_animals()
    h = ValueHierarchy({"type": {"mammal": "animal", "mother": "animal"}})
    striped_animal = frozenset({("pattern", "striped"), ("type", "animal")})
    striped_mammal = frozenset({("pattern", "striped"), ("type", "mammal")})
    striped_mother = frozenset({("pattern", "striped"), ("type", "mother")})
    assert denotation_similarity(striped_animal, striped_mammal, ents, h) == Fraction(
        13, 14
    )  # mean(1, max(6/7, 1/2))
    assert denotation_similarity(striped_animal, striped_mother, ents, h) == Fraction(
        3, 4
    )  # mean(1, max(2/5, 1/2))


def test_metric_with_a_hierarchy_and_its_signature(tmp_path):
    plain = DenotationSimilarity()
    tree = DenotationSimilarity(value_hierarchy=load_value_hierarchy(HIERARCHY))
    context = {"target": CHAIR, "distractors": [SOFA, DESK]}
    assert plain.score_segment(SOFA, [CHAIR], **context) == 0.5
    assert tree.score_segment(SOFA, [CHAIR], **context) == pytest.approx(2 / 3)
    sha = hashlib.sha256(HIERARCHY.read_bytes()).hexdigest()
    assert plain.signature() == "DenotSim|refs:mean|type:yes|version:1"
    assert tree.signature() == f"DenotSim|refs:mean|type:yes|hier:{sha[:16]}|version:1"
    # another hierarchy, another signature
    other = tmp_path / "h.yaml"
    other.write_text("type: {chair: seat, sofa: seat}\n")
    assert DenotationSimilarity(
        value_hierarchy=load_value_hierarchy(other)
    ).signature() != (tree.signature())


def test_scoring_value_hierarchy_reaches_the_denotation_similarity():
    from stecflow.scoring.specs import metric_signatures, metric_specs

    scoring = {
        "metrics": [{"id": "denotation_similarity"}, {"id": "dice"}],
        "value_hierarchy": str(HIERARCHY),
    }
    specs = {s.id: dict(s.options) for s in metric_specs(scoring)}
    assert specs == {
        "denotation_similarity": {"value_hierarchy": str(HIERARCHY)},
        "dice": {},
    }
    sha = hashlib.sha256(HIERARCHY.read_bytes()).hexdigest()[:16]
    assert f"|hier:{sha}|" in metric_signatures(scoring)["denotation_similarity"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("type: {chair: seat, seat: chair}\n", "chair -> seat -> chair form a cycle"),
        ("- chair\n- seat\n", "one mapping per attribute"),
        ("type: [chair, seat]\n", "attribute type: give one mapping"),
        ("type: {chair: [seat]}\n", "attribute type: give one mapping"),
        ("type: {chair: &a seat, sofa: *a}\n", "anchors"),
    ],
)
def test_bad_hierarchy_files_are_config_errors(tmp_path, text, message):
    from stecflow.core.errors import ConfigError
    from stecflow.scoring.specs import build_metrics, metric_specs

    path = tmp_path / "h.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=re.escape(message)):
        load_value_hierarchy(path)
    scoring = {
        "metrics": [{"id": "denotation_similarity"}],
        "value_hierarchy": str(path),
    }
    with pytest.raises(ConfigError) as error:
        build_metrics(metric_specs(scoring))
    assert error.value.field == "scoring.metrics[denotation_similarity].options"
    assert str(path) in str(error.value)


def test_missing_hierarchy_file_says_so(tmp_path):
    with pytest.raises(ValueError, match="cannot be read"):
        load_value_hierarchy(tmp_path / "nope.yaml")

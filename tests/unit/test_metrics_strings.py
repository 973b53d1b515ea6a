"""String Accuracy, SE, SEB and SE-norm (REFERENCE.md §7-9), checked against rapidfuzz.

SEB is seed 002's name for Bangalore et al.'s length-normalised string accuracy
(REFERENCE.md §9 calls it SSA); SE-norm is SE divided by a length (§7).
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from rapidfuzz.distance import Indel, Levenshtein

from stecflow.metrics import (
    SE,
    SEB,
    SSA,
    SENorm,
    StringAccuracy,
    edit_distance,
    get_metric,
    normalised_edit_distance,
    simple_string_accuracy,
)

# REFERENCE.md §7 table: hypothesis, reference, SE (1,1,2), unit Levenshtein, SSA,
# rapidfuzz normalised (1,1,2).
SECTION7 = [
    ("the large red chair", "the big red chair", 2, 1, 0.75, Fraction(1, 4)),
    ("the large red chair", "the red chair facing left", 3, 3, 0.4, Fraction(1, 3)),
    ("the big red sofa", "the large red sofa facing left", 4, 3, 0.5, Fraction(2, 5)),
    ("the chair", "the red chair", 1, 1, Fraction(2, 3), Fraction(1, 5)),
    ("", "the chair", 2, 2, 0.0, Fraction(1)),
    ("a b c d e", "x", 6, 5, -4, Fraction(1)),
]


@pytest.mark.parametrize(("hyp", "ref", "se", "unit", "ssa", "norm"), SECTION7)
def test_section7_table(hyp, ref, se, unit, ssa, norm):
    h, r = hyp.split(), ref.split()
    assert edit_distance(h, r) == se
    assert edit_distance(h, r, weights=(1, 1, 1)) == unit
    assert simple_string_accuracy(h, r) == pytest.approx(float(ssa), abs=1e-12)
    assert normalised_edit_distance(h, r) == pytest.approx(float(norm), abs=1e-12)
    # The metric objects (default normalisation) agree: seed 002's SEB is the SSA
    # column, SE-norm the rapidfuzz-normalised one.
    assert SE().score_segment(hyp, [ref]) == se
    assert SEB().score_segment(hyp, [ref]) == pytest.approx(float(ssa), abs=1e-12)
    assert SENorm().score_segment(hyp, [ref]) == pytest.approx(float(norm), abs=1e-12)
    assert get_metric("seb").score_segment(hyp, [ref]) == pytest.approx(
        float(ssa), abs=1e-12
    )
    assert get_metric("se_norm").score_segment(hyp, [ref]) == pytest.approx(
        float(norm), abs=1e-12
    )


@pytest.mark.parametrize(("hyp", "ref", "se", "unit", "ssa", "norm"), SECTION7)
def test_se_equals_rapidfuzz_called_directly(hyp, ref, se, unit, ssa, norm):
    h, r = hyp.split(), ref.split()
    assert SE().score_segment(hyp, [ref]) == Levenshtein.distance(
        h, r, weights=(1, 1, 2)
    )
    assert SE().score_segment(hyp, [ref]) == Indel.distance(h, r)
    assert SENorm().score_segment(hyp, [ref]) == Levenshtein.normalized_distance(
        h, r, weights=(1, 1, 2)
    )
    assert SEB().score_segment(hyp, [ref]) == 1 - Levenshtein.distance(h, r) / len(r)


def test_character_level_sanity_check():
    assert edit_distance("lewenstein", "levenshtein") == 3


def test_se_equals_indel_distance_on_random_token_lists():
    rng = random.Random(0)
    vocab = ["the", "red", "chair", "big", "sofa", "left"]
    for _ in range(200):
        h = [rng.choice(vocab) for _ in range(rng.randrange(7))]
        r = [rng.choice(vocab) for _ in range(rng.randrange(7))]
        se = SE().score_segment(" ".join(h), [" ".join(r)])
        assert (
            se == Levenshtein.distance(h, r, weights=(1, 1, 2)) == Indel.distance(h, r)
        )


def test_se_two_references():
    refs = ["the big red chair", "the red chair facing left"]
    assert SE().score_segment("the large red chair", refs) == 2.5
    assert SE(multi_ref="min").score_segment("the large red chair", refs) == 2
    assert SE(multi_ref="max").score_segment("the large red chair", refs) == 3


def test_se_system_score_and_variable_references():
    hyps = ["the large red chair", "the chair", ""]
    refs = [
        ["the big red chair", "the red chair facing left"],
        ["the red chair"],
        ["x"],
    ]
    assert SE().corpus_score(hyps, refs) == pytest.approx((2.5 + 1 + 1) / 3)


def test_se_uses_the_normalisation():
    assert SE().score_segment("The red chair.", ["the red chair"]) == 0
    assert SE(lowercase=False).score_segment("The red chair", ["the red chair"]) == 2
    assert (
        SE(punctuation="keep").score_segment("the red chair.", ["the red chair"]) == 2
    )


def test_ssa_is_not_one_minus_se_over_r():
    h, r = ["the", "large", "red", "chair"], ["the", "big", "red", "chair"]
    assert simple_string_accuracy(h, r) == 0.75
    assert 1 - edit_distance(h, r) / len(r) == 0.5


def test_seb_empty_reference_is_skipped_and_counted():
    assert math.isnan(simple_string_accuracy(["a"], []))
    m = SEB()
    stats = m.corpus_stats(["the chair", "a chair"], [["the red chair"], [""]])
    assert math.isnan(m.item_scores(stats)[1])
    assert m.aggregate(stats) == pytest.approx(2 / 3)
    assert m.summary(stats) == {"n_items": 2, "n_scored": 1, "n_skipped": 1}
    # An empty reference next to a usable one is ignored.
    assert m.score_segment("the chair", ["", "the red chair"]) == pytest.approx(2 / 3)


def test_seb_multi_reference():
    refs = ["the big red chair", "the red chair facing left"]
    assert SEB().score_segment("the large red chair", refs) == pytest.approx(0.575)
    assert SEB(multi_ref="max").score_segment("the large red chair", refs) == 0.75


def test_seb_is_seed002s_sebs_direction_and_se_norm_the_other():
    # seed 002 Table 2: SEB correlates with Dice (.92**) and BLEU (.82**), and
    # against SE; higher is better. SE-norm is a distance.
    assert SEB.higher_is_better and get_metric("seb").display_name == "SEB"
    assert not SENorm.higher_is_better and not SE.higher_is_better
    assert get_metric("se_norm").display_name == "SE-norm"
    hyp, refs = "the large red chair", ["the big red chair"]
    better, worse = "the large red chair", "a b c d e"
    assert SEB().score_segment(better, refs) > SEB().score_segment(worse, refs)
    assert SENorm().score_segment(better, refs) < SENorm().score_segment(worse, refs)
    assert SEB().score_segment(hyp, refs) == 0.75  # 1 - 1/4, REFERENCE.md §9
    assert SENorm().score_segment(hyp, refs) == 0.25  # 2/8, REFERENCE.md §7


def test_ssa_is_a_deprecated_alias_of_seb(caplog):
    with caplog.at_level("WARNING"):
        metric = get_metric("ssa")
    assert type(metric) is SEB and SSA is SEB
    assert metric.signature().startswith("SEB|refs:mean|case:lc|punct:strip|version:2")
    assert "deprecated" in caplog.text and "'seb'" in caplog.text
    assert metric.score_segment("a b c d e", ["x"]) == -4  # REFERENCE.md §9


def test_old_seb_options_point_to_se_norm():
    with pytest.raises(ValueError, match="normaliser.*se_norm"):
        get_metric("seb", normaliser="sum_lengths")


def test_se_norm_normalisers():
    h, r = ["the", "chair"], ["the", "red", "chair"]
    assert normalised_edit_distance(h, r, "sum_lengths") == pytest.approx(1 / 5)
    assert normalised_edit_distance(h, r, "ref_length") == pytest.approx(1 / 3)
    assert normalised_edit_distance(h, r, "max_length") == pytest.approx(1 / 3)
    assert normalised_edit_distance([], [], "sum_lengths") == 0.0
    assert normalised_edit_distance([], [], "max_length") == 0.0
    assert math.isnan(normalised_edit_distance(["a"], [], "ref_length"))
    assert normalised_edit_distance(["a", "b", "c", "d", "e"], ["x"], "ref_length") == 6
    assert SENorm(normaliser="ref_length").score_segment(
        "the chair", ["the red chair"]
    ) == (pytest.approx(1 / 3))
    with pytest.raises(ValueError, match="normaliser"):
        normalised_edit_distance(h, r, "length")  # type: ignore[arg-type]


def test_string_accuracy():
    refs = ["the big red chair", "the red chair facing left"]
    assert StringAccuracy().score_segment("The red chair, facing left!", refs) == 1.0
    assert StringAccuracy().score_segment("the red chair", refs) == 0.0
    assert (
        StringAccuracy(multi_ref="mean").score_segment("the big red chair", refs) == 0.5
    )
    assert StringAccuracy().score_segment("", [""]) == 1.0
    assert (
        StringAccuracy(punctuation="keep").score_segment("the chair.", ["the chair"])
        == 0
    )
    hyps = ["the big red chair", "a sofa", "the red chair facing left"]
    assert StringAccuracy().corpus_score(hyps, [refs] * 3) == pytest.approx(2 / 3)


def test_string_metric_signatures():
    assert (
        SE().signature().split("|version")[0]
        == "SE|refs:mean|case:lc|punct:strip|w:1,1,2"
    )
    assert "rapidfuzz:" in SE().signature()
    assert SEB(lowercase=False).signature().startswith("SEB|refs:mean|case:mixed|")
    assert SENorm().signature().startswith("SE-norm|norm:sum_lengths|refs:mean|")


@pytest.mark.parametrize("multi_ref", ["mean", "min", "max"])
def test_se_corpus_path_equals_segment_path(multi_ref):
    from stecflow.metrics import get_metric

    se = get_metric("se", multi_ref=multi_ref)
    hyps = ["the large red chair", "", "A big, red SOFA", "the man"]
    refs = [
        ["the big red chair", "the red chair facing left"],
        ["the chair"],
        ["a big red sofa", "the sofa", "red sofa on the left"],
        ["the man with glasses"],
    ]
    assert se.corpus_stats(hyps, refs) == [
        se.segment_stats(h, r) for h, r in zip(hyps, refs, strict=True)
    ]

"""NIST-5 after mteval-v13a (REFERENCE.md §11)."""

from __future__ import annotations

import math

import pytest

from stecflow.metrics import NIST5, ngram_info, nist_length_penalty
from stecflow.metrics.nist import NIST_BETA

HYPS = ["the large red chair", "the man with a beard"]
REFS = [
    ["the big red chair", "the red chair facing left"],
    ["the bearded man", "the man with the beard"],
]

# nltk.translate.nist_score.sentence_nist docstring examples (one segment each).
HYP1 = (
    "It is a guide to action which ensures that the military always obeys the "
    "commands of the party"
)
HYP2 = (
    "It is to insure the troops forever hearing the activity guidebook that party "
    "direct"
)
NLTK_REFS = [
    "It is a guide to action that ensures that the military will forever heed "
    "Party commands",
    "It is the guiding principle which guarantees the military forces always being "
    "under the command of the Party",
    "It is the practical guide for the army always to heed the directions of the party",
]


def test_beta_and_brevity_penalty_vectors():
    assert pytest.approx(4.216173616831698, abs=1e-15) == NIST_BETA
    assert nist_length_penalty(2 / 3) == pytest.approx(0.5, abs=1e-12)
    assert round(nist_length_penalty(0.9), 6) == 0.954275
    assert round(nist_length_penalty(0.5), 6) == 0.131905
    assert nist_length_penalty(1.0) == 1.0
    assert nist_length_penalty(1.7) == 1.0
    assert nist_length_penalty(0.0) == 0.0


def test_info_weights_vector():
    info = ngram_info([[("the", "red", "chair"), ("the", "large", "red", "chair")]])
    assert round(info[("the",)], 6) == 1.807355
    assert info[("the",)] == math.log2(7 / 2)
    assert info[("red",)] == info[("chair",)] == math.log2(7 / 2)
    assert info[("the", "red")] == 1.0
    assert info[("red", "chair")] == 0.0
    assert info[("the", "red", "chair")] == 0.0


def test_single_segment_vector():
    m = NIST5()
    stats = m.corpus_stats(
        ["the red chair"], [["the red chair", "the large red chair"]]
    )
    (s,) = stats
    info_sum = sum(s[3 + i] / max(s[8 + i], 1) for i in range(5))
    assert round(info_sum, 6) == 2.307355
    assert round(nist_length_penalty(3 / ((3 + 4) / 2)), 6) == 0.904669
    assert round(m.aggregate(stats), 6) == 2.087392
    assert round(
        m.score_segment("the red chair", ["the red chair", "the large red chair"]), 6
    ) == (2.087392)


def test_two_item_corpus_vector():
    m = NIST5()
    assert round(m.corpus_score(HYPS, REFS), 6) == 2.804382
    stats = m.corpus_stats(HYPS, REFS)
    # No 4- or 5-gram matches: NIST-5 equals NIST-3 here.
    assert all(s[3 + 3] == s[3 + 4] == 0 for s in stats)


def test_nltk_docstring_examples_mteval_values():
    m = NIST5(lowercase=False, punctuation="keep")  # case preserved, pre-tokenised
    assert round(m.corpus_score([HYP1], [NLTK_REFS]), 6) == 5.037920
    assert round(m.corpus_score([HYP2], [NLTK_REFS]), 6) == 2.113875


def test_short_corpus_does_not_divide_by_zero():
    # NLTK raises ZeroDivisionError when no hypothesis has 5 tokens (nltk#3444).
    assert NIST5().corpus_score(["the chair"], [["the chair"]]) > 0
    assert NIST5().corpus_score([""], [["the chair"]]) == 0.0


def test_aggregate_sums_before_scoring_and_resamples():
    m = NIST5()
    stats = m.corpus_stats(HYPS, REFS)
    mean_items = sum(m.item_scores(stats)) / 2
    assert m.aggregate(stats) != pytest.approx(mean_items)
    assert m.aggregate([stats[0], stats[0]]) == pytest.approx(
        m.score_from_stats(stats[0])
    )


def test_segment_stats_needs_the_corpus_info():
    m = NIST5()
    with pytest.raises(ValueError, match="corpus_stats"):
        m.segment_stats(HYPS[0], REFS[0])
    tokenised = [[m.tokens(r) for r in refs] for refs in REFS]
    info = ngram_info(tokenised)
    assert m.segment_stats(HYPS[0], REFS[0], info=info) == m.corpus_stats(HYPS, REFS)[0]


def test_variable_number_of_references():
    hyps = ["the red chair", "the man"]
    refs = [["the red chair", "the large red chair"], ["the old man"]]
    stats = NIST5().corpus_stats(hyps, refs)
    # per_item_mean: L_ref = 3.5 + 3 = 6.5; mteval: (7 + 3) / 2 = 5.
    base = NIST5().aggregate(stats) / nist_length_penalty(5 / 6.5)
    assert NIST5(variable_refs="mteval").aggregate(stats) == pytest.approx(base)
    # With a constant number of references the two options agree.
    assert NIST5().corpus_score(HYPS, REFS) == NIST5(
        variable_refs="mteval"
    ).corpus_score(HYPS, REFS)


def test_signature():
    assert (
        NIST5().signature()
        == "NIST-5|vrefs:per_item_mean|case:lc|punct:strip|version:1"
    )

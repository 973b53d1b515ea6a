"""ROUGE-2 and ROUGE-SU4 (REFERENCE.md §12)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from stecflow.metrics import ROUGE2, ROUGESU4
from stecflow.metrics.rouge import ngrams, rouge_from_counts, rouge_hits, skip_bigrams

HYP = "the large red chair"
REFS2 = ["the big red chair", "the red chair facing left"]
BEARD = "the man with a beard"
BEARD_REFS = ["the bearded man", "the man with the beard"]


def scores(cls, hyp, refs, **kw):
    return tuple(
        cls(score=s, **kw).score_segment(hyp, refs)
        for s in ("recall", "precision", "f")
    )


def test_single_reference_vector():
    r, p, f = scores(ROUGE2, HYP, ["the big red chair"])
    assert r == p == f == pytest.approx(1 / 3)
    r, p, f = scores(ROUGESU4, HYP, ["the big red chair"])
    assert r == p == f == pytest.approx(5 / 9)
    assert round(r, 4) == 0.5556
    stats = ROUGESU4().segment_stats(HYP, ["the big red chair"])
    assert stats[1:] == (5, 9, 9, 1)  # hits, ref units, hyp units, refs
    assert Fraction(stats[1], stats[2]) == Fraction(5, 9)


def test_counting_the_last_unigram_gives_0_6():
    m = ROUGESU4(su_include_last_unigram=True)
    assert m.score_segment(HYP, ["the big red chair"]) == pytest.approx(0.6)


def test_two_reference_vector():
    r, p, f = scores(ROUGE2, HYP, REFS2)
    assert r == pytest.approx(2 / 7)
    assert round(r, 6) == 0.285714
    assert p == pytest.approx(1 / 3)
    assert round(f, 6) == 0.307692
    r, p, f = scores(ROUGESU4, HYP, REFS2)
    assert (round(r, 6), round(p, 6), round(f, 6)) == (0.434783, 0.555556, 0.487805)


def test_beard_vector():
    r, p, _ = scores(ROUGE2, BEARD, BEARD_REFS)
    assert r == pytest.approx(1 / 3) and p == pytest.approx(1 / 4)
    r, p, _ = scores(ROUGESU4, BEARD, BEARD_REFS)
    assert (round(r, 6), round(p, 6)) == (0.578947, 0.392857)


def test_skip_bigram_window_and_last_token_rule():
    toks = ["a", "b", "c", "d", "e", "f", "g"]
    units = skip_bigrams(toks, unigrams=False)
    assert ("a", "f") in units  # 4 tokens between
    assert ("a", "g") not in units  # 5 tokens between
    assert len(units) == 6 + 5 + 4 + 3 + 2 + 1 - 1
    assert skip_bigrams(["chair"]) == {}
    assert skip_bigrams(["chair"], include_last_unigram=True) == {("chair",): 1}
    su = skip_bigrams(["a", "b"])
    assert su == {("a",): 1, ("a", "b"): 1}


def test_one_token_texts_and_zero_denominators():
    assert ROUGESU4().score_segment("chair", ["chair"]) == 0.0
    assert ROUGE2().score_segment("chair", ["the chair"]) == 0.0
    assert ROUGE2(score="precision").score_segment("", ["the chair"]) == 0.0
    assert rouge_from_counts(0, 0, 0, 1) == (0.0, 0.0, 0.0)


def test_counts_are_pooled_over_references_and_clipped():
    hyp = ngrams(["the", "the", "the"], 1)
    assert rouge_hits(hyp, [ngrams(["the"], 1), ngrams(["the", "the"], 1)]) == (
        3,
        3,
        3,
        2,
    )


def test_system_score_is_the_mean_over_items():
    m = ROUGE2()
    assert m.corpus_score([HYP, BEARD], [REFS2, BEARD_REFS]) == pytest.approx(
        (2 / 7 + 1 / 3) / 2
    )


def test_rouge155_preprocessing_option():
    m = ROUGE2(rouge155_preprocess=True)
    assert m.score_segment(
        "The large, red chair!", ["the big red chair"]
    ) == pytest.approx(1 / 3)
    assert m.tokens("The -big- chair") == ("the", "chair")
    with pytest.raises(TypeError):
        m.tokens(None)  # type: ignore[arg-type]


def test_signatures():
    assert (
        ROUGE2().signature()
        == "ROUGE-2|score:recall|r155:no|case:lc|punct:strip|version:1"
    )
    assert ROUGESU4(score="f").signature() == (
        "ROUGE-SU4|score:f|last_uni:no|r155:no|case:lc|punct:strip|version:1"
    )

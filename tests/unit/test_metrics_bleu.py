"""BLEU-3 (REFERENCE.md §10), checked against sacreBLEU called directly."""

from __future__ import annotations

import itertools
import random

import pytest
from sacrebleu.metrics import BLEU

from stecflow.metrics import BLEU3
from stecflow.metrics.bleu import SMOOTH_DEFAULTS, closest_ref_len, compute_bleu
from tests.conftest import python_stdout

HYPS = ["the large red chair", "the man with a beard"]
REFS = [
    ["the big red chair", "the red chair facing left"],
    ["the bearded man", "the man with the beard"],
]
STREAMS = [["the big red chair", "the bearded man"],
           ["the red chair facing left", "the man with the beard"]]  # fmt: skip


def sacre(hyps, refs, **kwargs):
    """sacreBLEU's corpus BLEU-3 on item-major references (None pads streams)."""
    n = max(len(r) for r in refs)
    streams = [[r[i] if i < len(r) else None for r in refs] for i in range(n)]
    bleu = BLEU(max_ngram_order=3, tokenize="none", force=True, **kwargs)
    return bleu.corpus_score(hyps, streams)


def test_two_item_corpus_vector():
    m = BLEU3()
    stats = m.corpus_stats(HYPS, REFS)
    summed = [sum(col) for col in zip(*stats, strict=True)]
    assert summed[2:5] == [7, 3, 1]  # counts
    assert summed[5:8] == [9, 7, 5]  # totals
    assert summed[:2] == [9, 9]  # hyp_len, ref_len (4 + 5)
    assert m.aggregate(stats) == pytest.approx(100 * (1 / 15) ** (1 / 3))
    assert round(m.aggregate(stats), 3) == 40.548
    for smooth in ("exp", "none", "floor"):
        assert round(BLEU3(smooth_method=smooth).corpus_score(HYPS, REFS), 3) == 40.548


def test_two_item_corpus_add_k():
    assert round(BLEU3(smooth_method="add-k").corpus_score(HYPS, REFS), 4) == 50.6098


def test_trigram_smoothing_vector():
    score = BLEU3().corpus_score(
        ["the small red chair"], [["the red chair", "the small chair"]]
    )
    assert round(score, 2) == 55.03


def test_sentence_vectors_effective_order():
    off = BLEU3(segment_effective_order=False)
    assert off.score_segment("the chair", ["the chair"]) == 0.0
    assert round(BLEU3().score_segment("the chair", ["the chair"]), 1) == 100.0
    assert round(BLEU3().score_segment("the large red chair", REFS[0]), 3) == 39.685
    stats = BLEU3().segment_stats("the large red chair", REFS[0])
    assert stats[2:5] == (3, 1, 0) and stats[5:8] == (4, 3, 2)


def test_matches_sacrebleu_corpus_score_on_the_vectors():
    for smooth in SMOOTH_DEFAULTS:
        ours = BLEU3(smooth_method=smooth).corpus_score(HYPS, REFS)
        theirs = BLEU(
            max_ngram_order=3, tokenize="none", force=True, smooth_method=smooth
        ).corpus_score(HYPS, STREAMS)
        assert ours == pytest.approx(theirs.score, abs=1e-9)
    theirs = sacre(HYPS, REFS)
    assert theirs.counts == [7, 3, 1] and theirs.totals == [9, 7, 5]


def test_matches_sacrebleu_sentence_score():
    bleu = BLEU(max_ngram_order=3, tokenize="none", force=True, effective_order=True)
    expected = bleu.sentence_score("the large red chair", REFS[0]).score
    assert BLEU3().score_segment("the large red chair", REFS[0]) == pytest.approx(
        expected
    )


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("smooth", ["exp", "none", "floor", "add-k"])
def test_matches_sacrebleu_on_random_corpora_with_variable_references(seed, smooth):
    rng = random.Random(seed)
    vocab = ["the", "red", "chair", "big", "sofa", "left", "man", "beard", "with"]

    def sent(lo):
        return " ".join(rng.choice(vocab) for _ in range(rng.randrange(lo, 7)))

    hyps = [sent(0) for _ in range(25)]  # some hypotheses are empty
    refs = [[sent(1) for _ in range(rng.randrange(1, 4))] for _ in range(25)]
    ours = BLEU3(smooth_method=smooth)
    stats = ours.corpus_stats(hyps, refs)
    theirs = sacre(hyps, refs, smooth_method=smooth)
    assert ours.aggregate(stats) == pytest.approx(theirs.score, abs=1e-9)
    summed = [sum(col) for col in zip(*stats, strict=True)]
    assert summed[:2] == [theirs.sys_len, theirs.ref_len]
    if smooth != "add-k":  # sacreBLEU reports add-k's smoothed counts
        assert summed[2:5] == theirs.counts and summed[5:8] == theirs.totals


def test_our_normalisation_then_sacrebleu_none_tokeniser():
    hyps = ["The large RED chair.", "the man, with a beard"]
    refs = [["the big red chair!", "The red chair facing left"], REFS[1]]
    ours = BLEU3().corpus_score(hyps, refs)
    assert ours == pytest.approx(BLEU3().corpus_score(HYPS, REFS))


def test_corpus_bleu_is_not_the_mean_of_sentence_bleu():
    m = BLEU3()
    stats = m.corpus_stats(HYPS, REFS)
    mean_sentence = sum(m.item_scores(stats)) / 2
    assert m.aggregate(stats) != pytest.approx(mean_sentence)


def test_empty_hypothesis_corpus_scores_zero():
    assert BLEU3().corpus_score(["", ""], [["the chair"], ["a sofa"]]) == 0.0
    assert BLEU3().score_segment("", ["the chair"]) == 0.0


def test_closest_reference_length_ties_go_to_the_shorter():
    assert closest_ref_len(4, [3, 5]) == 3
    assert closest_ref_len(4, [5, 3]) == 3
    assert closest_ref_len(0, [2, 4]) == 2


@pytest.mark.parametrize(
    ("smooth", "value"),
    [("exp", None), ("none", None), ("floor", None), ("floor", 0.5), ("add-k", None),
     ("add-k", 2)],
)  # fmt: skip
@pytest.mark.parametrize("effective_order", [False, True])
def test_compute_bleu_is_sacrebleus_bit_for_bit(smooth, value, effective_order):
    """Every combination of up to 3 matches of up to 3 n-grams of each order,
    and of lengths 0-3 (empty and short hypotheses and references), gives the
    very float sacreBLEU's static method gives."""
    orders = [(c, t) for t in range(4) for c in range(t + 1)]
    checked = 0
    for grams in itertools.product(orders, repeat=3):
        correct = [c for c, _ in grams]
        total = [t for _, t in grams]
        for sys_len, ref_len in itertools.product(range(4), repeat=2):
            options = dict(
                sys_len=sys_len,
                ref_len=ref_len,
                smooth_method=smooth,
                smooth_value=value,
                effective_order=effective_order,
                max_ngram_order=3,
            )
            theirs = BLEU.compute_bleu(list(correct), list(total), **options).score
            assert compute_bleu(correct, total, **options) == theirs, (grams, options)
            checked += 1
    assert checked == 10**3 * 16


def test_scoring_bleu_does_not_import_sacrebleu():
    code = (
        "import sys\n"
        "from stecflow.metrics import BLEU3\n"
        "m = BLEU3()\n"
        "stats = m.corpus_stats(['the red chair'], [['the red chair']])\n"
        "print(round(m.aggregate(stats), 9), round(m.item_scores(stats)[0], 9),"
        " 'sacrebleu' in sys.modules)"
    )
    assert python_stdout(code).split() == ["100.0", "100.0", "False"]


def test_smooth_defaults_agree_with_sacrebleu():
    assert SMOOTH_DEFAULTS == BLEU.SMOOTH_DEFAULTS


def test_signature():
    import sacrebleu

    sig = BLEU3().signature()
    assert sig == (
        "BLEU-3|smooth:exp|eff:no|seg_eff:yes|case:lc|punct:strip|tok:none|version:1"
        f"|sacrebleu:{sacrebleu.__version__}"
    )
    assert "smooth:add-k[1.00]" in BLEU3(smooth_method="add-k").signature()
    assert (
        "smooth:floor[0.20]"
        in BLEU3(smooth_method="floor", smooth_value=0.2).signature()
    )
    # sacreBLEU's own signature uses the same words for the same settings.
    theirs = BLEU(max_ngram_order=3, tokenize="none", force=True)
    theirs.corpus_score(HYPS, STREAMS)
    assert "|tok:none|smooth:exp|" in str(theirs.get_signature())


def test_invalid_options():
    with pytest.raises(ValueError, match="smooth_method"):
        BLEU3(smooth_method="add-one")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="smooth_value"):
        BLEU3(smooth_value="1")  # type: ignore[arg-type]

"""The batch paths of SE and the attribute-set metrics against their peers.

``corpus_stats`` of SE and of the set metrics takes a batch path (rapidfuzz's
``cpdist``; sets normalised once, exact integer arithmetic). These tests check,
on seeded random inputs, that it gives exactly the numbers of ``segment_stats``
item by item, and the values of independent references: rapidfuzz's Levenshtein
with weights (1, 1, 2), NLTK's ``masi_distance``, the plain set formulas with
exact fractions, and REFERENCE.md's worked examples.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from rapidfuzz.distance import Levenshtein

from stecflow.metrics import get_metric
from stecflow.metrics.sets import (
    NormalisedSet,
    NormalisedSets,
    dice_scores,
    masi_scores,
    normalise_attribute_set,
)
from stecflow.metrics.strings import se_batch, token_table
from stecflow.metrics.text import TextNormaliser

NAMES = ("type", "colour", "size", "orientation", "x-dimension")
VALUES = ("red", "blue", "chair", "sofa", "large", "small", "left", "1", "2", "02")
WORDS = ("the", "red", "Chair", "sofa,", "large", "small.", "facing", "left", "one")


def _raw_set(rng: random.Random, size: int | None = None) -> frozenset:
    size = rng.randint(0, 4) if size is None else size
    pairs = set()
    for _ in range(size):
        name = rng.choice(NAMES)
        if rng.random() < 0.2:
            name = name.upper()
        value = rng.choice(VALUES)
        if rng.random() < 0.2:
            value = f" {value.capitalize()} "
        pairs.add((name, value))
    return frozenset(pairs)


def _sets(seed: int, n: int, n_refs: int | None = 2):
    rng = random.Random(seed)
    hyps = [_raw_set(rng) for _ in range(n)]
    refs = [
        [_raw_set(rng) for _ in range(n_refs or rng.randint(1, 3))] for _ in range(n)
    ]
    return hyps, refs


def _text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 7)))


def _item_by_item(metric, hyps, refs, contexts=None):
    contexts = contexts or [{}] * len(hyps)
    return [
        metric.segment_stats(h, r, **c)
        for h, r, c in zip(hyps, refs, contexts, strict=True)
    ]


def _same(a: list[tuple[float, ...]], b: list[tuple[float, ...]]) -> bool:
    return len(a) == len(b) and all(
        x == y or (math.isnan(x) and math.isnan(y))
        for s, t in zip(a, b, strict=True)
        for x, y in zip(s, t, strict=True)
    )


# -- SE ------------------------------------------------------------------------


@pytest.mark.parametrize("n_refs", [1, 2, 3, None])
@pytest.mark.parametrize("multi_ref", ["mean", "min", "max"])
def test_se_batch_equals_rapidfuzz_levenshtein_and_item_by_item(n_refs, multi_ref):
    rng = random.Random(20 + (n_refs or 0))
    hyps = [_text(rng) for _ in range(300)]
    refs = [[_text(rng) for _ in range(n_refs or rng.randint(1, 4))] for _ in hyps]
    se = get_metric("se", multi_ref=multi_ref)
    stats = se.corpus_stats(hyps, refs)
    norm = TextNormaliser()
    reduce = {"mean": lambda v: math.fsum(v) / len(v), "min": min, "max": max}
    expected = [
        float(
            reduce[multi_ref](
                [
                    Levenshtein.distance(
                        norm.tokens(h), norm.tokens(r), weights=(1, 1, 2)
                    )
                    for r in rs
                ]
            )
        )
        for h, rs in zip(hyps, refs, strict=True)
    ]
    assert [s[0] for s in stats] == expected
    assert stats == _item_by_item(se, hyps, refs)
    assert all(type(s[0]) is float for s in stats)


def test_se_batch_worked_examples():
    # REFERENCE.md §7: "the large red chair" vs "the big red chair" is 2, vs
    # "the red chair facing left" 3 (mean 2.5); an empty hypothesis costs |r|.
    se = get_metric("se")
    stats = se.corpus_stats(
        ["the large red chair", ""],
        [["the big red chair", "the red chair facing left"], ["the chair"]],
    )
    assert stats == [(2.5,), (2.0,)]
    assert se.corpus_score(
        ["the large red chair", ""],
        [["the big red chair", "the red chair facing left"], ["the chair"]],
    ) == pytest.approx(2.25)


def test_se_batch_helpers():
    table = token_table(TextNormaliser())
    encoded = table["The red, chair."]
    assert len(encoded) == 3 and len(set(encoded)) == 3
    assert table["chair red"] == encoded[2] + encoded[1]
    tokens = {"a b": ("a", "b"), "b": ("b",), "a": ("a",)}
    assert se_batch(["a b", "a"], [["a b", "b"], ["a"]], tokens) == [0.5, 0.0]
    assert se_batch(["a b", "a"], [["a b", "b"], ["a"]], table) == [0.5, 0.0]
    assert se_batch([], [], table) == []
    assert se_batch(["a"], [[]], table) is None  # malformed: the caller reports
    assert se_batch(["a"], ["a"], table) is None


def test_se_batch_keeps_the_errors_of_the_item_path():
    se = get_metric("se")
    with pytest.raises(TypeError, match="refs must be a sequence"):
        se.corpus_stats(["a"], ["a"])
    with pytest.raises(ValueError, match="at least one reference"):
        se.corpus_stats(["a"], [[]])
    with pytest.raises(TypeError, match="expected a string"):
        se.corpus_stats([["a"]], [["a"]])
    with pytest.raises(TypeError, match="unexpected context"):
        se.corpus_stats(["a"], [["a"]], [{"colour": "red"}])


# -- attribute sets ----------------------------------------------------------------


SET_METRICS = [
    ("dice", {"multi_ref": "mean"}),
    ("dice", {"multi_ref": "max"}),
    ("dice", {"include_type_in_set_metrics": False}),
    ("masi", {"multi_ref": "mean"}),
    ("masi", {"multi_ref": "max"}),
    ("masi", {"include_type_in_set_metrics": False}),
    ("set_accuracy", {"multi_ref": "any"}),
    ("set_accuracy", {"multi_ref": "mean"}),
    ("set_edit", {"multi_ref": "mean"}),
    ("set_edit", {"multi_ref": "min"}),
    ("set_edit", {"multi_ref": "max", "include_type_in_set_metrics": False}),
]


@pytest.mark.parametrize(("name", "options"), SET_METRICS)
@pytest.mark.parametrize("n_refs", [1, 2, None])
def test_set_batch_equals_item_by_item(name, options, n_refs):
    hyps, refs = _sets(7, 400, n_refs)
    metric = get_metric(name, **options)
    expected = _item_by_item(metric, hyps, refs)
    assert metric.corpus_stats(hyps, refs) == expected
    # already-normalised sets take the pass-through path: same numbers
    norm_hyps = [normalise_attribute_set(h) for h in hyps]
    norm_refs = [[normalise_attribute_set(r) for r in rs] for rs in refs]
    assert metric.corpus_stats(norm_hyps, norm_refs) == expected
    # unhashable sets (plain ``set``) go item by item: same numbers
    set_hyps = [set(h) for h in hyps]
    assert metric.corpus_stats(set_hyps, refs) == expected


def test_dice_and_masi_equal_exact_fractions_and_nltk():
    from nltk.metrics.distance import masi_distance

    hyps, refs = _sets(11, 500, None)
    hyps = [normalise_attribute_set(h) for h in hyps]
    refs = [[normalise_attribute_set(r) for r in rs] for rs in refs]

    def dice(a, b):
        return (
            Fraction(1)
            if not a and not b
            else Fraction(2 * len(a & b), len(a) + len(b))
        )

    def masi(a, b):
        if a == b:
            return Fraction(1)
        if not a & b:
            return Fraction(0)
        weight = Fraction(2, 3) if a <= b or b <= a else Fraction(1, 3)
        return Fraction(len(a & b), len(a | b)) * weight

    want_dice = [
        float(sum(dice(h, r) for r in rs) / len(rs))
        for h, rs in zip(hyps, refs, strict=True)
    ]
    want_masi = [
        float(sum(masi(h, r) for r in rs) / len(rs))
        for h, rs in zip(hyps, refs, strict=True)
    ]
    assert dice_scores(hyps, refs) == want_dice
    assert masi_scores(hyps, refs) == want_masi
    assert [s[0] for s in get_metric("dice").corpus_stats(hyps, refs)] == want_dice
    # NLTK (exact thirds since nltk#3695; undefined for two empty sets)
    checked = 0
    for h, rs, value in zip(hyps, refs, want_masi, strict=True):
        if any(not h and not r for r in rs):
            continue
        nltk = sum(1 - masi_distance(h, r) for r in rs) / len(rs)
        assert value == pytest.approx(nltk, abs=1e-12)
        checked += 1
    assert checked > 400


def test_masi_batch_worked_examples():
    # REFERENCE.md §4 / worked examples 1-3
    s = [frozenset({1, 2}), frozenset({1, 2, 3}), frozenset({1}), frozenset()]
    assert masi_scores([s[0]], [[frozenset({1, 2, 3, 4})]]) == [1 / 3]
    assert masi_scores([s[1]], [[frozenset({2, 3, 4})]]) == [1 / 6]
    assert masi_scores(
        [s[0], s[2], frozenset("a"), s[3]], [[s[0]], [frozenset({2})], [s[3]], [s[3]]]
    ) == [1.0, 0.0, 0.0, 1.0]
    assert dice_scores([s[3]], [[s[3]]]) == [1.0]
    assert dice_scores([frozenset("pq")], [[frozenset("p")]]) == [2 / 3]


def test_set_batch_keeps_the_errors_of_the_item_path():
    dice = get_metric("dice")
    h = frozenset({("type", "chair")})
    with pytest.raises(TypeError, match="refs must be a sequence"):
        dice.corpus_stats([h], [h])
    with pytest.raises(ValueError, match="at least one reference"):
        dice.corpus_stats([h], [[]])
    with pytest.raises(TypeError, match="unexpected context"):
        dice.corpus_stats([h], [[h]], [{"colour": "red"}])
    with pytest.raises(ValueError, match="2 hypotheses but 1 reference"):
        dice.corpus_stats([h, h], [[h]])


def test_normalised_set_is_a_frozenset():
    s = normalise_attribute_set([("Colour", " Red "), ("x-dimension", "02")])
    assert type(s) is NormalisedSet
    assert s == frozenset({("colour", "red"), ("x-dimension", "2")})
    assert hash(s) == hash(frozenset(s))
    assert normalise_attribute_set(s) is s
    assert repr(s) == repr(frozenset(s))
    assert type(s & s) is frozenset


# -- domain metrics -----------------------------------------------------------------


def _domains(seed: int, n: int):
    rng = random.Random(seed)
    hyps, contexts = [], []
    for _ in range(n):
        target = frozenset((name, rng.choice(VALUES[:4])) for name in NAMES[:4])
        distractors = [
            frozenset((name, rng.choice(VALUES[:4])) for name in NAMES[:4])
            for _ in range(rng.randint(0, 6))
        ]
        hyp = frozenset(rng.sample(sorted(target), rng.randint(0, 3)))
        if rng.random() < 0.2:
            hyp |= {("colour", "blue")}
        if rng.random() < 0.2:
            hyp = frozenset((n.upper(), v) for n, v in hyp)
        hyps.append(hyp)
        contexts.append({"target": target, "distractors": distractors})
    return hyps, contexts


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("underspecification", {}),
        ("underspecification", {"false_of_target": "exclude"}),
        ("overspecification", {}),
        ("overspecification", {"scope": "all"}),
        ("overspecification", {"count_type_in_minimality": False}),
        ("uniqueness", {}),
        ("minimality", {}),
    ],
)
def test_domain_batch_equals_item_by_item(name, options):
    hyps, contexts = _domains(3, 400)
    refs = [[]] * len(hyps)
    metric = get_metric(name, **options)
    expected = _item_by_item(metric, hyps, refs, contexts)
    assert _same(metric.corpus_stats(hyps, refs, contexts), expected)
    norm = normalise_attribute_set
    norm_contexts = [
        {
            "target": norm(c["target"]),
            "distractors": [norm(d) for d in c["distractors"]],
        }
        for c in contexts
    ]
    stats = metric.corpus_stats([norm(h) for h in hyps], refs, norm_contexts)
    assert _same(stats, expected)
    # distractors as the scoring stage holds them: not checked again, same numbers
    held = [{**c, "distractors": NormalisedSets(c["distractors"])} for c in contexts]
    assert _same(metric.corpus_stats(hyps, refs, held), expected)


def test_normalised_sets_hold_only_normalised_sets():
    """Whatever goes in is normalised on the way in, and a tuple stays so."""
    sets = NormalisedSets([[("Colour", " Red ")], frozenset({("TYPE", "chair")})])
    assert [type(s) for s in sets] == [NormalisedSet, NormalisedSet]
    assert sets == (frozenset({("colour", "red")}), frozenset({("type", "chair")}))
    assert NormalisedSets() == ()
    with pytest.raises(AttributeError):
        sets.append(frozenset())  # type: ignore[attr-defined]


def test_scoring_contexts_hold_the_distractors_normalised_once():
    from stecflow.scoring.score import _item_contexts
    from stecflow.tasks.registry import read_testset, task_types
    from tests.conftest import TINY

    items = read_testset(TINY / "testset.xml")
    (task,) = task_types(["attribute_selection"])
    contexts = _item_contexts(task, items, normalise=True)
    assert all(type(c["distractors"]) is NormalisedSets for c in contexts)
    assert contexts[0]["distractors"] == tuple(
        normalise_attribute_set(d)
        for d in task.scoring_context(items[0])["distractors"]
    )


def test_domain_batch_takes_the_item_path_for_other_context_keys():
    """A context with a key besides target and distractors goes item by item,
    which names the key, as before the two-key shortcut."""
    m = get_metric("underspecification")
    h = frozenset({("type", "chair")})
    with pytest.raises(TypeError, match="unexpected context argument.s. extra"):
        m.corpus_stats([h], [[]], [{"target": h, "distractors": [], "extra": 1}])


def test_underspecification_equals_the_set_formula():
    hyps, contexts = _domains(5, 400)
    stats = get_metric("underspecification").corpus_stats(
        hyps, [[]] * len(hyps), contexts
    )
    for h, c, (value,) in zip(hyps, contexts, stats, strict=True):
        h = normalise_attribute_set(h)
        if h <= c["target"]:
            assert value == sum(1 for d in c["distractors"] if h <= d)
        else:
            assert value == len(c["distractors"])


def test_domain_batch_keeps_the_errors_of_the_item_path():
    m = get_metric("underspecification")
    h = frozenset({("type", "chair")})
    with pytest.raises(ValueError, match="needs the item's domain"):
        m.corpus_stats([h], [[]], [{"target": h}])
    with pytest.raises(TypeError, match="distractors must be a sequence"):
        m.corpus_stats([h], [[]], [{"target": h, "distractors": frozenset()}])


def test_se_token_codes_past_the_surrogates_give_the_same_distances():
    # token codes are characters; once a campaign has seen 55,296 distinct tokens
    # they reach the surrogate range and beyond: the distances do not change
    table = token_table(TextNormaliser(punctuation="keep", lowercase=False))
    table.clear()
    table.codes.clear()
    table.codes.update({f"filler{i}": chr(i) for i in range(0xD7FC)})
    rng = random.Random(3)
    hyps = [_text(rng) for _ in range(200)]
    refs = [[_text(rng), _text(rng)] for _ in hyps]
    se = get_metric("se", punctuation="keep", lowercase=False)
    stats = se.corpus_stats(hyps, refs)
    assert max(map(ord, "".join(table.values()))) >= 0xD800
    assert stats == _item_by_item(se, hyps, refs)
    table.clear()
    table.codes.clear()

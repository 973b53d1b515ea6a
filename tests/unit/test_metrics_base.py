"""The metric base class, the registry, signatures and the package's import cost."""

from __future__ import annotations

import inspect
import math
import random
from fractions import Fraction

import pytest

from stecflow.metrics import (
    Metric,
    available_metrics,
    get_metric,
    metric_class,
    reduce_over_references,
)
from stecflow.metrics.base import library_version
from tests.conftest import REPO, python_stdout

DATA = REPO / "tests" / "data"

EXPECTED_NAMES = {
    "dice",
    "masi",
    "set_accuracy",
    "uniqueness",
    "minimality",
    "set_edit",
    "underspecification",
    "overspecification",
    "denotation_similarity",
    "string_accuracy",
    "se",
    "seb",
    "se_norm",
    "bleu3",
    "nist5",
    "rouge2",
    "rouge_su4",
}

# A tiny TUNA-like test set used to exercise every metric the same way.
TARGET = frozenset({("type", "chair"), ("colour", "red"), ("size", "large")})
DISTRACTORS = [
    frozenset({("type", "chair"), ("colour", "blue"), ("size", "large")}),
    frozenset({("type", "sofa"), ("colour", "red"), ("size", "small")}),
]
SET_HYPS = [
    frozenset({("type", "chair"), ("colour", "red")}),
    frozenset({("colour", "red")}),
    frozenset({("type", "chair"), ("colour", "red"), ("size", "large")}),
]
SET_REFS = [
    [frozenset({("type", "chair"), ("colour", "red")})],
    [frozenset({("type", "chair"), ("colour", "red"), ("size", "large")}), SET_HYPS[0]],
    [frozenset({("colour", "red"), ("size", "large")})],
]
TEXT_HYPS = ["the large red chair", "the man with a beard", ""]
TEXT_REFS = [
    ["the big red chair", "the red chair facing left"],
    ["the bearded man", "the man with the beard"],
    ["the chair"],
]
CONTEXTS = [{"target": TARGET, "distractors": DISTRACTORS}] * 3


def _data(metric: Metric):
    if metric.input_type == "attributes":
        return SET_HYPS, SET_REFS
    return TEXT_HYPS, TEXT_REFS


def test_registry_has_every_required_name():
    assert set(available_metrics()) >= EXPECTED_NAMES
    for name in available_metrics():
        assert metric_class(name).name == name


def test_unknown_metric_lists_valid_names():
    with pytest.raises(ValueError, match="unknown metric 'bleu4'") as err:
        get_metric("bleu4")
    for name in EXPECTED_NAMES:
        assert name in str(err.value)


def test_unknown_option_is_a_clear_value_error():
    with pytest.raises(ValueError, match="does not accept option.*multiref") as err:
        get_metric("dice", multiref="max")
    assert "multi_ref" in str(err.value)


def test_invalid_option_value_names_the_choices():
    with pytest.raises(ValueError, match="multi_ref must be one of 'mean', 'max'"):
        get_metric("dice", multi_ref="median")
    with pytest.raises(ValueError, match="must be true or false"):
        get_metric("dice", include_type_in_set_metrics="yes")


def test_signature_example_from_the_brief():
    assert get_metric("dice").signature() == "Dice|refs:mean|type:yes|version:1"
    assert (
        get_metric("dice").signature({"bs": 1000, "seed": 7})
        == "Dice|refs:mean|type:yes|bs:1000|seed:7|version:1"
    )


@pytest.mark.parametrize("name", sorted(EXPECTED_NAMES))
def test_signature_structure_and_library_versions(name):
    metric = get_metric(name)
    sig = metric.signature()
    parts = sig.split("|")
    assert parts[0] == metric.display_name
    assert f"version:{metric.version}" in parts
    for lib in metric.libraries:
        assert f"{lib}:{library_version(lib)}" in parts
        assert library_version(lib) != "missing"
    assert sig == get_metric(name).signature()  # deterministic


def test_display_names_are_unique():
    names = [metric_class(n).display_name for n in available_metrics()]
    assert len(names) == len(set(names))


def _alternative(value, annotation_choices):
    if isinstance(value, bool):
        return not value
    if value is None:
        return 0.5
    for choice in annotation_choices:
        if choice != value:
            return choice
    raise AssertionError(f"no alternative for {value!r}")


@pytest.mark.parametrize("name", sorted(EXPECTED_NAMES))
def test_every_option_is_a_constructor_argument_and_changes_the_signature(name):
    cls = metric_class(name)
    params = {
        p.name: p
        for p in inspect.signature(cls.__init__).parameters.values()
        if p.name != "self"
    }
    assert set(params) == set(cls.option_names())
    for pname, param in params.items():
        # smooth_value only matters (and only shows) with floor or add-k smoothing
        fixed = {"smooth_method": "floor"} if pname == "smooth_value" else {}
        base = cls(**fixed).signature()
        assert param.kind is inspect.Parameter.KEYWORD_ONLY
        choices = getattr(param.annotation, "__args__", ())
        if isinstance(param.annotation, str) and "Literal[" in param.annotation:
            inner = param.annotation.split("Literal[", 1)[1].split("]", 1)[0]
            choices = tuple(c.strip().strip("'\"") for c in inner.split(","))
        elif param.annotation == "Punctuation":
            choices = ("strip", "delete", "split", "keep")
        other = _alternative(param.default, choices)
        if pname == "value_hierarchy":  # a file (seed 004 §1.3's ontology)
            from stecflow.scoring.hierarchy import load_value_hierarchy

            other = load_value_hierarchy(DATA / "value_hierarchy.yaml")
        changed = cls(**{**fixed, pname: other})
        assert changed.signature() != base, pname
        assert changed.options()[pname] == other


@pytest.mark.parametrize("name", sorted(EXPECTED_NAMES))
def test_aggregate_of_corpus_stats_is_corpus_score_and_resampling_works(name):
    metric = get_metric(name)
    hyps, refs = _data(metric)
    stats = metric.corpus_stats(hyps, refs, CONTEXTS)
    assert len(stats) == 3
    assert all(len(s) == len(metric.stat_names) for s in stats)
    score = metric.corpus_score(hyps, refs, CONTEXTS)
    assert metric.aggregate(stats) == pytest.approx(score, nan_ok=True)
    rng = random.Random(1)
    resample = [stats[rng.randrange(3)] for _ in range(3)]
    assert isinstance(metric.aggregate(resample), float)
    assert len(metric.item_scores(stats)) == 3
    assert metric.summary(stats)["n_items"] == 3
    if metric.level == "item":
        item = metric.item_scores(stats)
        defined = [x for x in item if not math.isnan(x)]
        if defined:
            assert score == pytest.approx(sum(defined) / len(defined))


@pytest.mark.parametrize("name", sorted(EXPECTED_NAMES))
def test_empty_stats_cannot_be_aggregated(name):
    with pytest.raises(ValueError, match="empty"):
        get_metric(name).aggregate([])


@pytest.mark.parametrize("name", sorted(EXPECTED_NAMES))
def test_unknown_context_key_is_rejected(name):
    metric = get_metric(name)
    hyps, refs = _data(metric)
    with pytest.raises(TypeError, match="unexpected context argument"):
        metric.score_segment(hyps[0], refs[0], **CONTEXTS[0], domain=None)


def test_length_mismatch_is_rejected():
    with pytest.raises(ValueError, match="2 hypotheses but 1 reference lists"):
        get_metric("se").corpus_stats(["a", "b"], [["a"]])
    with pytest.raises(ValueError, match="contexts"):
        get_metric("dice").corpus_stats(SET_HYPS, SET_REFS, CONTEXTS[:1])


@pytest.mark.parametrize("name", ["dice", "se", "bleu3", "nist5", "rouge2"])
def test_an_item_without_references_is_rejected(name):
    metric = get_metric(name)
    hyp = SET_HYPS[0] if metric.input_type == "attributes" else "a chair"
    with pytest.raises(ValueError, match="at least one reference"):
        metric.corpus_stats([hyp], [[]])


def test_a_single_reference_instead_of_a_list_is_rejected():
    with pytest.raises(TypeError, match="sequence of references"):
        get_metric("se").score_segment("a chair", "a chair")
    with pytest.raises(TypeError, match="sequence of references"):
        get_metric("dice").score_segment(SET_HYPS[0], SET_HYPS[0])


def test_reduce_over_references():
    assert reduce_over_references([2, 3], "mean") == 2.5
    assert reduce_over_references([Fraction(1, 3), Fraction(2, 3)], "mean") == 0.5
    assert reduce_over_references([2, 3], "max") == 3.0
    assert reduce_over_references([2, 3], "min") == 2.0
    assert reduce_over_references([0, 0], "any") == 0.0
    assert reduce_over_references([0, 1], "any") == 1.0
    assert reduce_over_references([math.nan, 1.0], "mean") == 1.0
    assert math.isnan(reduce_over_references([math.nan], "mean"))
    with pytest.raises(ValueError):
        reduce_over_references([1], "median")  # type: ignore[arg-type]


def test_input_types_and_levels():
    corpus = {n for n in available_metrics() if metric_class(n).level == "corpus"}
    assert corpus == {"bleu3", "nist5", "decision_f", "bleu", "chrf", "ter"}
    text = {n for n in available_metrics() if metric_class(n).input_type == "text"}
    assert text == {
        "string_accuracy",
        "se",
        "seb",
        "se_norm",
        "bleu3",
        "nist5",
        "rouge2",
        "rouge_su4",
        "bleu",
        "chrf",
        "ter",
        "rouge_l",
    }
    assert [n for n in available_metrics() if metric_class(n).requires_corpus] == [
        "nist5"
    ]


def test_repr_shows_options():
    assert repr(get_metric("se")) == (
        "SE(multi_ref='mean', lowercase=True, punctuation='strip')"
    )


def test_importing_metrics_is_light():
    code = (
        "import sys, stecflow.metrics\n"
        "heavy = ['pandas', 'scipy', 'sacrebleu', 'rapidfuzz', 'numpy', 'snakemake']\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
    )
    assert python_stdout(code).strip() == ""


def test_signatures_do_not_import_libraries():
    code = (
        "import sys\n"
        "from stecflow.metrics import get_metric, available_metrics\n"
        "[get_metric(n).signature() for n in available_metrics()]\n"
        "print(','.join(m for m in ['sacrebleu', 'rapidfuzz'] if m in sys.modules))\n"
    )
    assert python_stdout(code).strip() == ""

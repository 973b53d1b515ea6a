"""Attribute sets and the reference metrics that compare them as plain sets of pairs.

An attribute is a ``(name, value)`` pair and an attribute set a ``frozenset`` of
them (REFERENCE.md §2). This module owns their representation (normalisation,
:class:`NormalisedSet`, the shared table of :func:`prepared_sets`, the context's
domain) and the measures that compare an output set with reference sets pair by
pair: the TUNA challenges' Dice (§3), MASI (§4) and Accuracy (§5), and the edit
distance on attribute sets van Deemter & Gatt propose in "Content Determination in
GRE: Evaluating the evaluator" (seed 004, §1.1). Seed 004's similarity that gives
partial credit to values with overlapping denotations or close in an ontology
(§1.3) is in :mod:`stecflow.metrics.denotation`; the measures that need the domain
but no reference (Uniqueness, Minimality, under- and over-specification) are in
:mod:`stecflow.metrics.distinguishing`.

Option ``include_type_in_set_metrics`` (default true, REFERENCE.md §2): when false,
the ``type`` attribute is removed from output and reference sets before every
measure of this module and of :mod:`stecflow.metrics.denotation`.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from fractions import Fraction
from functools import lru_cache
from itertools import chain
from typing import Any, ClassVar, Literal

from stecflow.metrics.base import (
    CONTEXT_KEYS,
    Metric,
    Stats,
    check_bool,
    check_choice,
    reduce_over_references,
    register_metric,
)
from stecflow.metrics.measure_types import MeasureType

__all__ = [
    "DICE_MASI_MODES",
    "TYPE_ATTRIBUTE",
    "MASI",
    "AttributeSet",
    "NormalisedSet",
    "NormalisedSets",
    "Dice",
    "SetAccuracy",
    "SetEdit",
    "dice",
    "dice_scores",
    "masi",
    "masi_scores",
    "normalise_attribute_set",
    "prepare_sets",
    "prepared_sets",
    "set_edit_distance",
    "without_type",
]

#: An attribute set: a frozenset of ``(name, value)`` pairs.
AttributeSet = frozenset[tuple[str, str]]

#: The name of the head-noun attribute (after normalisation).
TYPE_ATTRIBUTE = "type"

#: Valid ``multi_ref`` values of Dice, MASI and the denotation similarity.
DICE_MASI_MODES: tuple[str, ...] = ("mean", "max")

_WS = re.compile(r"\s+")
_INT = re.compile(r"[+-]?\d+")


def _norm_text(text: object) -> str:
    out = _WS.sub(" ", str(text).strip()).lower()
    if _INT.fullmatch(out):
        return str(int(out))
    return out


def normalise_attribute_set(
    pairs: Iterable[tuple[object, object]] | Mapping[object, object],
    *,
    cache: bool = True,
) -> AttributeSet:
    """Build a normalised attribute set (REFERENCE.md §2).

    Names and values are stripped, inner whitespace is collapsed to one space and
    they are lower-cased; a value (or name) that is an integer is rewritten in
    canonical form, so gradable values compare as integers (``"02"`` equals
    ``"2"``). The function is idempotent; every metric of this package applies it
    to its inputs.

    Parameters
    ----------
    pairs : iterable of (name, value) or mapping
        The attributes.
    cache : bool, default True
        Look a frozenset up in (and add it to) a cache of the last 65,536 sets
        normalised. False when the caller keeps the results itself and the
        cache would only hold the sets it was given.

    Returns
    -------
    AttributeSet
        A frozenset of ``(name, value)`` string pairs.

    Examples
    --------
    >>> sorted(normalise_attribute_set([("Colour", " Red "), ("x-dimension", "02")]))
    [('colour', 'red'), ('x-dimension', '2')]
    """
    if type(pairs) is NormalisedSet:
        return pairs
    if isinstance(pairs, frozenset) and cache:
        return _normalise_frozen(pairs)
    items = pairs.items() if isinstance(pairs, Mapping) else pairs
    return NormalisedSet(_pair(name, value) for name, value in items)


class NormalisedSet(frozenset):
    """A frozenset that :func:`normalise_attribute_set` made (its pairs are normal).

    Equal to, and hashed like, the plain frozenset of the same pairs; the type
    only tells the metrics' batch paths that normalising it again is the
    identity, so they can skip the look-up.

    Examples
    --------
    >>> s = normalise_attribute_set([("Colour", "Red")])
    >>> s == frozenset({("colour", "red")}), s
    (True, frozenset({('colour', 'red')}))
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return repr(frozenset(self))


class NormalisedSets(tuple):
    """Attribute sets, each normalised (a domain's distractors, made once).

    Each set is normalised as it is put in (:func:`normalise_attribute_set`),
    and a tuple cannot change afterwards, so the domain metrics' batch path
    takes it as it is instead of checking every set's type again on each call.

    Examples
    --------
    >>> d = NormalisedSets([{("Colour", "Red")}, frozenset({("type", "chair")})])
    >>> [type(s).__name__ for s in d], d[0] == {("colour", "red")}
    (['NormalisedSet', 'NormalisedSet'], True)
    """

    __slots__ = ()

    def __new__(
        cls, sets: Iterable[Iterable[tuple[object, object]]] = ()
    ) -> NormalisedSets:
        return super().__new__(cls, map(normalise_attribute_set, sets))


@lru_cache(maxsize=1 << 16)
def _normalise_frozen(pairs: frozenset[tuple[object, object]]) -> AttributeSet:
    """Cached normalisation of a hashable set (the common case when scoring)."""
    return NormalisedSet(_pair(name, value) for name, value in pairs)


def _pair(name: object, value: object) -> tuple[str, str]:
    """One normalised ``(name, value)`` pair; equal pairs are mostly one object.

    A test set repeats a few hundred pairs in every domain, so sharing them
    keeps normalised sets small (a 10,000-item test set's domains hold 70,000
    sets of 5-6 pairs).
    """
    try:
        return _shared_pair(name, value)
    except TypeError:  # an unhashable name or value (normalised as text)
        return (_norm_text(name), _norm_text(value))


@lru_cache(maxsize=1 << 16)
def _shared_pair(name: object, value: object) -> tuple[str, str]:
    return (_norm_text(name), _norm_text(value))


def without_type(attrs: AttributeSet) -> AttributeSet:
    """Return *attrs* without its ``type`` attribute(s).

    Examples
    --------
    >>> sorted(without_type(frozenset({("type", "chair"), ("colour", "red")})))
    [('colour', 'red')]
    """
    return frozenset(a for a in attrs if a[0] != TYPE_ATTRIBUTE)


def dice(a: AbstractSet[Hashable], b: AbstractSet[Hashable]) -> Fraction:
    """Dice coefficient ``2|A ∩ B| / (|A| + |B|)`` of two sets (REFERENCE.md §3).

    Parameters
    ----------
    a, b : set
        Any two sets.

    Returns
    -------
    Fraction
        The exact coefficient; ``Dice(∅, ∅)`` is defined as 1 (identical sets).

    References
    ----------
    Gatt, A., Belz, A. & Kow, E. (2008). The TUNA Challenge 2008: Overview and
    Evaluation Results. INLG 2008.

    Examples
    --------
    >>> dice({"p", "q"}, {"p"})
    Fraction(2, 3)
    >>> dice(set(), set())
    Fraction(1, 1)
    """
    if not a and not b:
        return Fraction(1)
    return Fraction(2 * len(a & b), len(a) + len(b))


def masi(a: AbstractSet[Hashable], b: AbstractSet[Hashable]) -> Fraction:
    """MASI similarity ``J(A, B) · M(A, B)`` with exact thirds (REFERENCE.md §4).

    ``J`` is the Jaccard coefficient; ``M`` is 1 if the sets are equal, 2/3 if one
    is a proper subset of the other, 1/3 if they overlap otherwise, 0 if they are
    disjoint. Unlike NLTK releases with the rounded 0.67/0.33 weights
    (nltk/nltk#3361), the weights are exact. The distance is ``1 - masi(a, b)``.

    Parameters
    ----------
    a, b : set
        Any two sets.

    Returns
    -------
    Fraction
        The exact similarity; two empty sets score 1 (the "identical" branch,
        where NLTK raises ZeroDivisionError), one empty set scores 0.

    References
    ----------
    Passonneau, R. (2006). Measuring Agreement on Set-valued Items (MASI) for
    Semantic and Pragmatic Annotation. LREC 2006.

    Examples
    --------
    >>> masi({1, 2}, {1, 2, 3, 4})
    Fraction(1, 3)
    >>> masi({1, 2, 3}, {2, 3, 4})
    Fraction(1, 6)
    """
    if a == b:
        return Fraction(1)
    common = len(a & b)
    if common == 0:
        return Fraction(0)
    jaccard = Fraction(common, len(a | b))
    weight = Fraction(2, 3) if (a <= b or b <= a) else Fraction(1, 3)
    return jaccard * weight


def set_edit_distance(hyp: AttributeSet, ref: AttributeSet) -> int:
    """Edit distance between two attribute sets with unit costs (seed 004, §1.1).

    Insertion, deletion and substitution all cost 1, as van Deemter & Gatt
    suggest; a substitution replaces an attribute by one with the **same name**
    and another value (``colour:red`` -> ``colour:blue``). Order is irrelevant for
    sets, so the minimum cost has a closed form: with ``H = hyp - ref`` and
    ``R = ref - hyp``, for every attribute name *n* the unmatched values are paired
    up by substitutions and the rest inserted or deleted, giving
    ``sum over n of max(|H_n|, |R_n|)``.

    Parameters
    ----------
    hyp, ref : AttributeSet
        The two sets (no normalisation is applied here).

    Returns
    -------
    int
        The distance (0 for equal sets; at most ``|hyp| + |ref|``).

    References
    ----------
    van Deemter, K. & Gatt, A. Content Determination in GRE: Evaluating the
    evaluator (seed 004), §1.1.

    Examples
    --------
    >>> h = frozenset({("type", "chair"), ("colour", "red")})
    >>> r = frozenset({("type", "chair"), ("colour", "blue"), ("size", "large")})
    >>> set_edit_distance(h, r)  # one substitution, one insertion
    2
    """
    only_h: dict[str, int] = {}
    only_r: dict[str, int] = {}
    for name, _ in hyp - ref:
        only_h[name] = only_h.get(name, 0) + 1
    for name, _ in ref - hyp:
        only_r[name] = only_r.get(name, 0) + 1
    return sum(
        max(only_h.get(n, 0), only_r.get(n, 0)) for n in set(only_h) | set(only_r)
    )


def _reference_lists_ok(refs: Sequence[Sequence[Any]]) -> bool:
    """True if every item's references are a non-empty list or tuple."""
    return set(map(type, refs)) <= {list, tuple} and 0 not in set(map(len, refs))


class _SetTable(dict):
    """Attribute set to its normalised form, filled on first look-up."""

    def __init__(self, include_type: bool) -> None:
        super().__init__()
        self.include_type = include_type

    def __missing__(self, pairs: AttributeSet) -> AttributeSet:
        out = normalise_attribute_set(pairs)
        if not self.include_type:
            out = without_type(out)
        if len(self) >= _SET_TABLE_SIZE:
            self.clear()
        self[pairs] = out
        return out


_SET_TABLE_SIZE = 1 << 17
_SET_TABLES = {True: _SetTable(True), False: _SetTable(False)}


def prepared_sets(include_type: bool = True) -> Mapping[AttributeSet, AttributeSet]:
    """The shared table of normalised attribute sets (sets seen before are looked up).

    ``table[s]`` is ``normalise_attribute_set(s)``, without ``type`` if
    *include_type* is false, computed once per set (the table is emptied when it
    reaches 131,072 sets). Keys must be hashable (frozensets); a set or a dict
    raises TypeError.
    """
    return _SET_TABLES[include_type]


def prepare_sets(
    hyps: Sequence[Any], refs: Sequence[Sequence[Any]], include_type: bool = True
) -> tuple[Sequence[AttributeSet], Sequence[Sequence[AttributeSet]]]:
    """Normalise the outputs and references of a test set for the batch paths.

    Sets that are already :class:`NormalisedSet` pass through untouched (with
    ``type`` kept); others are looked up in :func:`prepared_sets`.

    Raises
    ------
    TypeError
        If a set is not hashable (a ``set`` or ``dict``).
    """
    if (
        include_type
        and set(map(type, hyps)) == {NormalisedSet}
        and set(map(type, chain.from_iterable(refs))) <= {NormalisedSet}
    ):
        return hyps, refs
    lookup = prepared_sets(include_type).__getitem__
    return (
        list(map(lookup, hyps)),
        [list(map(lookup, item_refs)) for item_refs in refs],
    )


def _mean_of_fractions(pairs: Iterable[tuple[int, int]], n: int) -> float:
    """``float(sum(p / q) / n)`` computed exactly on integers (correctly rounded)."""
    num, den = 0, 1
    for p, q in pairs:
        num = num * q + p * den
        den *= q
    return num / (den * n)


def dice_scores(
    hyps: Sequence[AttributeSet],
    refs: Sequence[Sequence[AttributeSet]],
    multi_ref: Literal["mean", "max"] = "mean",
) -> list[float]:
    """Per-item Dice of normalised sets, combined over references.

    Equal to ``reduce_over_references([dice(h, r) for r in rs], multi_ref)``:
    the mean is the exact mean of the fractions, rounded once.

    Examples
    --------
    >>> a, b = frozenset("pq"), frozenset("p")
    >>> dice_scores([a], [[a, b]])
    [0.8333333333333334]
    """
    out = []
    append = out.append
    for h, rs in zip(hyps, refs, strict=True):
        size = len(h)
        if len(rs) == 1:
            (r,) = rs
            total = size + len(r)
            append(2 * len(h & r) / total if total else 1.0)
        elif multi_ref == "mean":
            append(
                _mean_of_fractions(
                    [
                        (2 * len(h & r), size + len(r)) if size + len(r) else (1, 1)
                        for r in rs
                    ],
                    len(rs),
                )
            )
        else:  # float rounding is monotonic: the max of the floats is exact
            append(
                max(
                    2 * len(h & r) / (size + len(r)) if size + len(r) else 1.0
                    for r in rs
                )
            )
    return out


def _masi_fraction(a: AttributeSet, b: AttributeSet) -> tuple[int, int]:
    """MASI of two sets as (numerator, denominator)."""
    if a == b:
        return 1, 1
    common = len(a & b)
    if common == 0:
        return 0, 1
    union = len(a) + len(b) - common
    if common == len(a) or common == len(b):  # one is a subset of the other
        return 2 * common, 3 * union
    return common, 3 * union


def masi_scores(
    hyps: Sequence[AttributeSet],
    refs: Sequence[Sequence[AttributeSet]],
    multi_ref: Literal["mean", "max"] = "mean",
) -> list[float]:
    """Per-item MASI of normalised sets, combined over references.

    Equal to ``reduce_over_references([masi(h, r) for r in rs], multi_ref)``
    (exact thirds, the mean rounded once).

    Examples
    --------
    >>> masi_scores([frozenset({1, 2})], [[frozenset({1, 2, 3, 4}), frozenset({1})]])
    [0.3333333333333333]
    """
    out = []
    append = out.append
    for h, rs in zip(hyps, refs, strict=True):
        if len(rs) == 1:
            p, q = _masi_fraction(h, rs[0])
            append(p / q)
        elif multi_ref == "mean":
            append(_mean_of_fractions([_masi_fraction(h, r) for r in rs], len(rs)))
        else:
            append(max(p / q for p, q in (_masi_fraction(h, r) for r in rs)))
    return out


class AttributeSetMetric(Metric):
    """Shared machinery of the attribute-set metrics (inputs are attribute sets)."""

    input_type: ClassVar[Literal["attributes", "text"]] = "attributes"
    include_type_in_set_metrics: bool

    def _init_type(self, include_type_in_set_metrics: bool) -> None:
        check_bool("include_type_in_set_metrics", include_type_in_set_metrics)
        self.include_type_in_set_metrics = include_type_in_set_metrics

    def prepare(self, attrs: Iterable[tuple[object, object]]) -> AttributeSet:
        """Normalise a set and drop ``type`` if the options say so."""
        out = normalise_attribute_set(attrs)
        return out if self.include_type_in_set_metrics else without_type(out)

    def _prepare_all(
        self,
        hyp: AttributeSet,
        refs: Sequence[AttributeSet],
        context: Mapping[str, Any],
    ) -> tuple[AttributeSet, list[AttributeSet]]:
        self.check_context(context)
        self.check_refs(refs)
        return self.prepare(hyp), [self.prepare(r) for r in refs]

    def corpus_stats(
        self,
        hyps: Sequence[Any],
        refs: Sequence[Sequence[Any]],
        contexts: Sequence[Mapping[str, Any]] | None = None,
    ) -> list[Stats]:
        """Statistics of every item (see :meth:`Metric.corpus_stats`).

        The batch path: every set is normalised once (:func:`prepared_sets`, a
        table shared by the calls) and the measure runs on the normalised
        frozensets (:meth:`batch_scores`) with exact integer arithmetic, so the
        numbers equal those of :meth:`segment_stats` item by item (tested).
        Inputs the table cannot take (unhashable sets, malformed reference
        lists) go item by item, which names the problem.
        """
        self._check_lengths(hyps, refs, contexts)
        for context in contexts or ():
            if not context.keys() <= CONTEXT_KEYS:
                self.check_context(context)
        scores = None
        has_batch = type(self).batch_scores is not AttributeSetMetric.batch_scores
        if has_batch and _reference_lists_ok(refs):
            try:
                prepared = prepare_sets(hyps, refs, self.include_type_in_set_metrics)
            except (TypeError, ValueError):
                pass
            else:
                scores = self.batch_scores(*prepared)
        if scores is None:
            return super().corpus_stats(hyps, refs, contexts)
        return list(zip(scores))

    def batch_scores(
        self, hyps: Sequence[AttributeSet], refs: Sequence[Sequence[AttributeSet]]
    ) -> list[float] | None:
        """Per-item scores of normalised sets (``type`` already dropped if asked).

        The fast path of :meth:`corpus_stats`; None means "no batch version"
        (the item-by-item path is used).
        """
        return None


@register_metric
class Dice(AttributeSetMetric):
    """Dice coefficient against the references (REFERENCE.md §3).

    Per item: :func:`dice` of the output set with each reference set, combined
    over references by ``multi_ref``; system score: mean over items.

    Parameters
    ----------
    multi_ref : {"mean", "max"}, default "mean"
        How scores against several references are combined.
    include_type_in_set_metrics : bool, default True
        Keep the ``type`` attribute in the sets.

    Examples
    --------
    >>> m = Dice()
    >>> m.score_segment({("type", "chair"), ("colour", "red")},
    ...                 [{("type", "chair")}, {("type", "chair"), ("colour", "red")}])
    0.8333333333333334
    >>> m.signature()
    'Dice|refs:mean|type:yes|version:1'
    """

    name = "dice"
    display_name = "Dice"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "Dice coefficient with the reference attribute sets",
        "set_similarity",
    )
    version = "1"
    signature_fields = (("multi_ref", "refs"), ("include_type_in_set_metrics", "type"))

    def __init__(
        self,
        *,
        multi_ref: Literal["mean", "max"] = "mean",
        include_type_in_set_metrics: bool = True,
    ) -> None:
        check_choice("multi_ref", multi_ref, DICE_MASI_MODES)
        self.multi_ref = multi_ref
        self._init_type(include_type_in_set_metrics)

    def segment_stats(
        self, hyp: AttributeSet, refs: Sequence[AttributeSet], **context: Any
    ) -> Stats:
        """Return ``(dice,)`` for one item (see :meth:`Metric.segment_stats`)."""
        h, rs = self._prepare_all(hyp, refs, context)
        return (reduce_over_references([dice(h, r) for r in rs], self.multi_ref),)

    def batch_scores(
        self, hyps: Sequence[AttributeSet], refs: Sequence[Sequence[AttributeSet]]
    ) -> list[float]:
        """Per-item Dice of normalised sets (:func:`dice_scores`)."""
        return dice_scores(hyps, refs, self.multi_ref)


@register_metric
class MASI(AttributeSetMetric):
    """MASI similarity against the references (REFERENCE.md §4).

    Per item: :func:`masi` (exact thirds) with each reference set, combined by
    ``multi_ref``; system score: mean over items.

    Parameters
    ----------
    multi_ref : {"mean", "max"}, default "mean"
        How scores against several references are combined.
    include_type_in_set_metrics : bool, default True
        Keep the ``type`` attribute in the sets.

    Examples
    --------
    >>> MASI().score_segment({("type", "chair")},
    ...                      [{("type", "chair"), ("size", "large")}])
    0.3333333333333333
    """

    name = "masi"
    display_name = "MASI"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "MASI with the reference attribute sets",
        "set_similarity",
    )
    version = "1"
    signature_fields = (("multi_ref", "refs"), ("include_type_in_set_metrics", "type"))

    def __init__(
        self,
        *,
        multi_ref: Literal["mean", "max"] = "mean",
        include_type_in_set_metrics: bool = True,
    ) -> None:
        check_choice("multi_ref", multi_ref, DICE_MASI_MODES)
        self.multi_ref = multi_ref
        self._init_type(include_type_in_set_metrics)

    def segment_stats(
        self, hyp: AttributeSet, refs: Sequence[AttributeSet], **context: Any
    ) -> Stats:
        """Return ``(masi,)`` for one item (see :meth:`Metric.segment_stats`)."""
        h, rs = self._prepare_all(hyp, refs, context)
        return (reduce_over_references([masi(h, r) for r in rs], self.multi_ref),)

    def batch_scores(
        self, hyps: Sequence[AttributeSet], refs: Sequence[Sequence[AttributeSet]]
    ) -> list[float]:
        """Per-item MASI of normalised sets (:func:`masi_scores`)."""
        return masi_scores(hyps, refs, self.multi_ref)


@register_metric
class SetAccuracy(AttributeSetMetric):
    """Attribute-set Accuracy: exact match with a reference (REFERENCE.md §5).

    Per item: 1 if the output set equals a reference set after normalisation;
    with several references ``multi_ref="any"`` (default) scores 1 if it equals at
    least one, ``"mean"`` scores the share of references it equals. System score:
    mean over items (a proportion).

    Parameters
    ----------
    multi_ref : {"any", "mean"}, default "any"
        How matches against several references are combined.
    include_type_in_set_metrics : bool, default True
        Keep the ``type`` attribute in the sets.

    Examples
    --------
    >>> SetAccuracy().score_segment({("Colour", "RED")}, [{("colour", "red")}, set()])
    1.0
    """

    name = "set_accuracy"
    display_name = "SetAccuracy"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "exact match with a reference attribute set",
        "set_similarity",
    )
    version = "1"
    signature_fields = (("multi_ref", "refs"), ("include_type_in_set_metrics", "type"))

    def __init__(
        self,
        *,
        multi_ref: Literal["any", "mean"] = "any",
        include_type_in_set_metrics: bool = True,
    ) -> None:
        check_choice("multi_ref", multi_ref, ("any", "mean"))
        self.multi_ref = multi_ref
        self._init_type(include_type_in_set_metrics)

    def segment_stats(
        self, hyp: AttributeSet, refs: Sequence[AttributeSet], **context: Any
    ) -> Stats:
        """Return ``(accuracy,)`` for one item (see :meth:`Metric.segment_stats`)."""
        h, rs = self._prepare_all(hyp, refs, context)
        return (reduce_over_references([int(h == r) for r in rs], self.multi_ref),)

    def batch_scores(
        self, hyps: Sequence[AttributeSet], refs: Sequence[Sequence[AttributeSet]]
    ) -> list[float]:
        """Per-item accuracy of normalised sets."""
        if self.multi_ref == "any":
            return [1.0 if h in rs else 0.0 for h, rs in zip(hyps, refs, strict=True)]
        return [rs.count(h) / len(rs) for h, rs in zip(hyps, refs, strict=True)]


@register_metric
class SetEdit(AttributeSetMetric):
    """Edit distance on attribute sets, all operations cost 1 (seed 004, §1.1).

    Per item: :func:`set_edit_distance` to each reference set, combined by
    ``multi_ref``; system score: mean over items. Lower is better.

    Parameters
    ----------
    multi_ref : {"mean", "min", "max"}, default "mean"
        How distances to several references are combined (``min`` is the
        closest reference).
    include_type_in_set_metrics : bool, default True
        Keep the ``type`` attribute in the sets.

    Examples
    --------
    >>> SetEdit().score_segment({("colour", "red")}, [{("colour", "blue")}])
    1.0
    """

    name = "set_edit"
    display_name = "SetEdit"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "edit distance to the reference attribute sets",
        "set_similarity",
    )
    version = "1"
    higher_is_better = False
    signature_fields = (("multi_ref", "refs"), ("include_type_in_set_metrics", "type"))

    def __init__(
        self,
        *,
        multi_ref: Literal["mean", "min", "max"] = "mean",
        include_type_in_set_metrics: bool = True,
    ) -> None:
        check_choice("multi_ref", multi_ref, ("mean", "min", "max"))
        self.multi_ref = multi_ref
        self._init_type(include_type_in_set_metrics)

    def segment_stats(
        self, hyp: AttributeSet, refs: Sequence[AttributeSet], **context: Any
    ) -> Stats:
        """Return ``(distance,)`` for one item (see :meth:`Metric.segment_stats`)."""
        h, rs = self._prepare_all(hyp, refs, context)
        dists = [set_edit_distance(h, r) for r in rs]
        return (reduce_over_references(dists, self.multi_ref),)

    def batch_scores(
        self, hyps: Sequence[AttributeSet], refs: Sequence[Sequence[AttributeSet]]
    ) -> list[float]:
        """Per-item set edit distance of normalised sets."""
        if self.multi_ref == "mean":
            return [
                sum([set_edit_distance(h, r) for r in rs]) / len(rs)
                for h, rs in zip(hyps, refs, strict=True)
            ]
        reduce = min if self.multi_ref == "min" else max
        return [
            float(reduce([set_edit_distance(h, r) for r in rs]))
            for h, rs in zip(hyps, refs, strict=True)
        ]


def domain_from_context(
    metric: str, context: Mapping[str, Any]
) -> tuple[AttributeSet, list[AttributeSet]]:
    """Return the normalised ``target`` and ``distractors`` of a metric's context.

    Raises
    ------
    ValueError
        If either keyword is missing.
    """
    missing = [k for k in ("target", "distractors") if context.get(k) is None]
    if missing:
        raise ValueError(
            f"{metric} needs the item's domain: pass {' and '.join(missing)}= "
            "(the target's attribute set and the distractors' attribute sets)"
        )
    distractors = context["distractors"]
    if isinstance(distractors, frozenset | set):
        raise TypeError(
            f"{metric}: distractors must be a sequence of attribute sets, "
            "not a single set"
        )
    return (
        normalise_attribute_set(context["target"]),
        [normalise_attribute_set(d) for d in distractors],
    )

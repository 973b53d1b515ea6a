"""Domain-based attribute-set measures: does the description pick out the target?

These measures look at the item's domain (the target's attribute set and the
distractors' attribute sets), not at the human references: Uniqueness and
Minimality (REFERENCE.md §6, after Dale 1989 and Dale & Reiter 1995) and the
degrees of under- and over-specification that van Deemter & Gatt propose
(seed 004, §1.2).

With target *t*, distractors *D* and an output set *S* of attributes::

    true_of(S, e)  :=  S ⊆ attrs(e)
    unique(S)      :=  true_of(S, t) and no d in D with true_of(S, d)
    k*             :=  min{|S'| : S' ⊆ attrs(t), unique(S')}      (brute force)

The whole output set is used here, ``type`` included, whatever
``include_type_in_set_metrics`` says: dropping an attribute would change what
the description refers to. Whether ``type`` *counts* towards the size of a set is
the option ``count_type_in_minimality`` (default true): when false, ``type``
attributes are free, so sizes and ``k*`` count only the other attributes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import combinations
from typing import Any, ClassVar, Literal

from stecflow.metrics.base import (
    CONTEXT_KEYS,
    Metric,
    Stats,
    check_bool,
    check_choice,
    register_metric,
)
from stecflow.metrics.measure_types import MeasureType
from stecflow.metrics.sets import (
    TYPE_ATTRIBUTE,
    AttributeSet,
    NormalisedSet,
    NormalisedSets,
    domain_from_context,
    normalise_attribute_set,
    prepared_sets,
)

__all__ = [
    "Minimality",
    "Overspecification",
    "Underspecification",
    "Uniqueness",
    "is_minimal",
    "is_unique",
    "minimal_distinguishing_size",
    "overspecification",
    "true_of",
    "underspecification",
]


def true_of(description: AttributeSet, entity: AttributeSet) -> bool:
    """Return True if every attribute of *description* holds of *entity*.

    Examples
    --------
    >>> true_of(frozenset({("colour", "red")}),
    ...         frozenset({("colour", "red"), ("type", "chair")}))
    True
    """
    return description <= entity


def is_unique(
    description: AttributeSet, target: AttributeSet, distractors: Sequence[AttributeSet]
) -> bool:
    """Return True if *description* is true of the target and of no distractor.

    A set with an attribute that is false of the target is not unique: it does
    not refer to the target (REFERENCE.md §6, decision 1).

    Examples
    --------
    >>> t = frozenset({("type", "chair"), ("colour", "red")})
    >>> d = [frozenset({("type", "chair"), ("colour", "blue")})]
    >>> is_unique(frozenset({("colour", "red")}), t, d)
    True
    >>> is_unique(frozenset({("type", "chair")}), t, d)
    False
    """
    return true_of(description, target) and not any(
        true_of(description, d) for d in distractors
    )


def _size(description: AttributeSet, count_type: bool) -> int:
    if count_type:
        return len(description)
    return sum(1 for name, _ in description if name != TYPE_ATTRIBUTE)


@lru_cache(maxsize=4096)
def _min_size_cached(
    target: AttributeSet, distractors: tuple[AttributeSet, ...], count_type: bool
) -> int | None:
    if count_type:
        free: frozenset[tuple[str, str]] = frozenset()
        counted = sorted(target)
    else:
        free = frozenset(a for a in target if a[0] == TYPE_ATTRIBUTE)
        counted = sorted(a for a in target if a[0] != TYPE_ATTRIBUTE)
    for k in range(len(counted) + 1):
        for combo in combinations(counted, k):
            if is_unique(free | frozenset(combo), target, distractors):
                return k
    return None


def minimal_distinguishing_size(
    target: AttributeSet,
    distractors: Sequence[AttributeSet],
    *,
    count_type_in_minimality: bool = True,
) -> int | None:
    """Return ``k*``, the size of the smallest distinguishing subset of the target.

    Brute force over subsets of the target's attributes, smallest first (TUNA
    domains are tiny). With ``count_type_in_minimality=False`` the target's
    ``type`` attributes may be added for free and are not counted. Results are
    cached per domain, since every system is scored on the same domains.

    Parameters
    ----------
    target : AttributeSet
        The target's attributes.
    distractors : sequence of AttributeSet
        The distractors' attributes.
    count_type_in_minimality : bool, default True
        Count ``type`` attributes in the size.

    Returns
    -------
    int or None
        ``k*``; ``None`` if no subset distinguishes the target (the item is
        unsolvable: some distractor has all the target's attributes).

    Examples
    --------
    >>> t = frozenset({("type", "chair"), ("colour", "red"), ("size", "large")})
    >>> d = [frozenset({("type", "chair"), ("colour", "blue"), ("size", "large")}),
    ...      frozenset({("type", "sofa"), ("colour", "red"), ("size", "small")})]
    >>> minimal_distinguishing_size(t, d)
    2
    >>> minimal_distinguishing_size(t, d, count_type_in_minimality=False)
    1
    """
    return _min_size_cached(  # (the cache holds the sets given, not copies)
        _frozen(target), tuple(map(_frozen, distractors)), count_type_in_minimality
    )


def _frozen(attrs: Iterable[tuple[str, str]]) -> AttributeSet:
    return attrs if isinstance(attrs, frozenset) else frozenset(attrs)


def is_minimal(
    description: AttributeSet,
    target: AttributeSet,
    distractors: Sequence[AttributeSet],
    *,
    minimality: Literal["full_brevity", "no_redundant_attr"] = "full_brevity",
    count_type_in_minimality: bool = True,
) -> bool:
    """Return True if *description* is a minimal distinguishing description.

    Minimal implies unique (an under-specified set is never minimal), and an
    unsolvable item has no minimal description (REFERENCE.md §6, decisions 2, 5).

    Parameters
    ----------
    description, target : AttributeSet
        The output set and the target's attributes.
    distractors : sequence of AttributeSet
        The distractors' attributes.
    minimality : {"full_brevity", "no_redundant_attr"}, default "full_brevity"
        ``full_brevity``: unique and of size ``k*`` (cardinality-minimal, Dale
        1989); ``no_redundant_attr``: unique and no attribute can be removed with
        the set staying unique. With ``count_type_in_minimality=False``,
        removing a ``type`` attribute does not count.
    count_type_in_minimality : bool, default True
        Count ``type`` attributes in sizes (and as removable).

    Returns
    -------
    bool
        Whether the set is minimal.

    Examples
    --------
    >>> t = frozenset({("type", "chair"), ("colour", "red"), ("size", "large")})
    >>> d = [frozenset({("type", "chair"), ("colour", "blue"), ("size", "large")}),
    ...      frozenset({("type", "sofa"), ("colour", "red"), ("size", "small")})]
    >>> is_minimal(frozenset({("type", "chair"), ("colour", "red")}), t, d)
    True
    """
    check_choice("minimality", minimality, ("full_brevity", "no_redundant_attr"))
    if not is_unique(description, target, distractors):
        return False
    if minimality == "full_brevity":
        k = minimal_distinguishing_size(
            target, distractors, count_type_in_minimality=count_type_in_minimality
        )
        return k is not None and _size(description, count_type_in_minimality) == k
    return not any(
        is_unique(description - {attr}, target, distractors)
        for attr in description
        if count_type_in_minimality or attr[0] != TYPE_ATTRIBUTE
    )


def underspecification(
    description: AttributeSet,
    target: AttributeSet,
    distractors: Sequence[AttributeSet],
    *,
    false_of_target: Literal["all", "exclude"] = "all",
) -> float:
    """Degree of under-specification: distractors the description fails to rule out.

    Van Deemter & Gatt (seed 004, §1.2) suggest measuring under-specification
    "by the number of distractors that a description fails to remove". For a
    description true of the target this is the number of distractors it is also
    true of (0 for a distinguishing description).

    A description that is **false of the target** does not pick out the target
    at all; counting only the distractors it fits would score a description that
    fits nothing (``colour:green`` when nothing is green) as perfect. Decision:
    by default (``false_of_target="all"``) it gets the worst degree, the number
    of distractors ``|D|``: it rules out none of them *in favour of the target*.
    With ``"exclude"`` the degree is undefined (``nan``) and the item is left out
    of the mean.

    Parameters
    ----------
    description, target : AttributeSet
        The output set and the target's attributes.
    distractors : sequence of AttributeSet
        The distractors' attributes.
    false_of_target : {"all", "exclude"}, default "all"
        Treatment of a description that is false of the target.

    Returns
    -------
    float
        The count, or ``nan``.

    Examples
    --------
    >>> t = frozenset({("type", "chair"), ("colour", "red")})
    >>> d = [frozenset({("type", "chair"), ("colour", "blue")}),
    ...      frozenset({("type", "chair"), ("colour", "green")})]
    >>> underspecification(frozenset({("type", "chair")}), t, d)
    2.0
    >>> underspecification(frozenset({("colour", "grey")}), t, d)
    2.0
    """
    check_choice("false_of_target", false_of_target, ("all", "exclude"))
    if not true_of(description, target):
        return float(len(distractors)) if false_of_target == "all" else math.nan
    return float(sum(1 for d in distractors if true_of(description, d)))


def overspecification(
    description: AttributeSet,
    target: AttributeSet,
    distractors: Sequence[AttributeSet],
    *,
    scope: Literal["unique", "all"] = "unique",
    count_type_in_minimality: bool = True,
) -> float:
    """Degree of over-specification: attributes beyond a minimal distinguishing set.

    The degree is ``|S| - k*`` (seed 004, §1.2: the mirror image of
    under-specification). Decision: by default (``scope="unique"``) it is defined
    only for distinguishing descriptions, for which it is never negative (a
    unique set is a subset of the target's attributes, so ``|S| >= k*``); a
    description that is not unique is under-specified or wrong rather than
    over-specified, so its degree is ``nan`` and the item is left out of the mean
    (report the count). With ``scope="all"`` every description gets
    ``max(0, |S| - k*)``. Unsolvable items (no ``k*``) are always ``nan``.

    Parameters
    ----------
    description, target : AttributeSet
        The output set and the target's attributes.
    distractors : sequence of AttributeSet
        The distractors' attributes.
    scope : {"unique", "all"}, default "unique"
        Which descriptions have a degree.
    count_type_in_minimality : bool, default True
        Count ``type`` attributes in ``|S|`` and ``k*``.

    Returns
    -------
    float
        The degree, or ``nan``.

    Examples
    --------
    >>> t = frozenset({("type", "chair"), ("colour", "red"), ("size", "large")})
    >>> d = [frozenset({("type", "chair"), ("colour", "blue"), ("size", "large")})]
    >>> overspecification(t, t, d)  # k* = 1 ({colour:red})
    2.0
    >>> overspecification(frozenset({("type", "chair")}), t, d)
    nan
    """
    check_choice("scope", scope, ("unique", "all"))
    k = minimal_distinguishing_size(
        target, distractors, count_type_in_minimality=count_type_in_minimality
    )
    if k is None:
        return math.nan
    if scope == "unique" and not is_unique(description, target, distractors):
        return math.nan
    return float(max(0, _size(description, count_type_in_minimality) - k))


class DomainMetric(Metric):
    """Shared machinery of the metrics that need the item's domain, not references.

    Their ``segment_stats`` ignore ``refs`` (pass ``()`` or the references) and
    need the context keywords ``target`` and ``distractors``.
    """

    input_type: ClassVar[Literal["attributes", "text"]] = "attributes"

    def _domain(
        self, hyp: AttributeSet, context: dict[str, Any]
    ) -> tuple[AttributeSet, AttributeSet, list[AttributeSet]]:
        self.check_context(context)
        target, distractors = domain_from_context(self.display_name, context)
        return normalise_attribute_set(hyp), target, distractors

    def corpus_stats(
        self,
        hyps: Sequence[Any],
        refs: Sequence[Sequence[Any]],
        contexts: Sequence[Mapping[str, Any]] | None = None,
    ) -> list[Stats]:
        """Statistics of every item (see :meth:`Metric.corpus_stats`).

        Metrics with a batch version (:meth:`batch_scores`) normalise each set
        once (sets that are already :class:`~stecflow.metrics.sets.NormalisedSet`
        pass through, and distractors given as
        :class:`~stecflow.metrics.sets.NormalisedSets`, as the scoring stage
        gives them, are not checked again) and compute the same numbers as
        :meth:`segment_stats` (tested); malformed contexts go item by item, which
        names the problem.
        """
        self._check_lengths(hyps, refs, contexts)
        has_batch = type(self).batch_scores is not DomainMetric.batch_scores
        domains = None
        if has_batch and contexts is not None:
            domains = _batch_domains(hyps, contexts)
        scores = None if domains is None else self.batch_scores(domains)
        if scores is None:
            return super().corpus_stats(hyps, refs, contexts)
        return list(zip(scores))

    def batch_scores(
        self, domains: Sequence[tuple[AttributeSet, AttributeSet, list[AttributeSet]]]
    ) -> list[float] | None:
        """Per-item scores of normalised ``(output, target, distractors)`` triples.

        None means "no batch version" (the item-by-item path is used).
        """
        return None


def _batch_domains(
    hyps: Sequence[Any], contexts: Sequence[Mapping[str, Any]]
) -> list[tuple[AttributeSet, AttributeSet, list[AttributeSet]]] | None:
    """Normalised ``(output, target, distractors)`` of every item, or None.

    None if a context is malformed or a set cannot be looked up; the caller then
    goes item by item, which raises the right error.
    """
    lookup = prepared_sets(True).__getitem__
    out = []
    append = out.append
    normal, normal_sets = NormalisedSet, NormalisedSets
    only_normal = {normal}  # (the checks made once, not per item)
    not_a_list = (frozenset, set)
    allowed = CONTEXT_KEYS.issuperset
    try:
        for hyp, context in zip(hyps, contexts, strict=True):
            target = context.get("target")
            distractors = context.get("distractors")
            if (
                target is None
                or distractors is None
                # (two keys: exactly these two, both allowed)
                or (len(context) != 2 and not allowed(context))
                or (
                    type(distractors) is not list
                    and isinstance(distractors, not_a_list)
                )
            ):
                return None
            if type(target) is not normal:
                target = lookup(target)
            if type(distractors) is not normal_sets and (
                {*map(type, distractors)} != only_normal
            ):
                distractors = list(map(lookup, distractors))
            if type(hyp) is not normal:
                hyp = lookup(hyp)
            append((hyp, target, distractors))
    except (TypeError, ValueError):
        return None
    return out


@register_metric
class Uniqueness(DomainMetric):
    """Share of outputs that distinguish the target (REFERENCE.md §6).

    Statistics per item: ``(unique, unsolvable)``; system score: mean of
    ``unique``. The full output set is used, ``type`` included.

    Examples
    --------
    >>> t = {("type", "chair"), ("colour", "red")}
    >>> d = [{("type", "chair"), ("colour", "blue")}]
    >>> Uniqueness().score_segment({("colour", "red")}, [], target=t, distractors=d)
    1.0
    """

    name = "uniqueness"
    display_name = "Uniqueness"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "whether the attribute set singles out the target in its domain",
        "reg_specific",
    )
    version = "1"
    stat_names = ("unique", "unsolvable")

    def __init__(self) -> None:
        pass

    def segment_stats(
        self, hyp: AttributeSet, refs: Sequence[AttributeSet], **context: Any
    ) -> Stats:
        """Return ``(unique, unsolvable)`` for one item."""
        s, t, d = self._domain(hyp, context)
        return (
            float(is_unique(s, t, d)),
            float(minimal_distinguishing_size(t, d) is None),
        )

    def summary(self, stats: Sequence[Stats]) -> dict[str, int]:
        """Counts, with ``n_unsolvable`` (items no description can distinguish)."""
        out = super().summary(stats)
        out["n_unsolvable"] = int(sum(s[1] for s in stats))
        return out


@register_metric
class Minimality(DomainMetric):
    """Share of outputs that are minimal distinguishing descriptions (REFERENCE.md §6).

    Statistics per item: ``(minimal, unsolvable)``; system score: mean of
    ``minimal``. Unsolvable items count as not minimal and are reported.

    Parameters
    ----------
    minimality : {"full_brevity", "no_redundant_attr"}, default "full_brevity"
        See :func:`is_minimal`.
    count_type_in_minimality : bool, default True
        Count ``type`` attributes in sizes.

    Examples
    --------
    >>> t = {("type", "chair"), ("colour", "red")}
    >>> d = [{("type", "chair"), ("colour", "blue")}]
    >>> Minimality().score_segment({("colour", "red")}, [], target=t, distractors=d)
    1.0
    >>> Minimality().signature()
    'Minimality|minimality:full_brevity|count_type:yes|version:1'
    """

    name = "minimality"
    display_name = "Minimality"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "whether the attribute set is a smallest one singling out the target",
        "reg_specific",
    )
    version = "1"
    stat_names = ("minimal", "unsolvable")
    signature_fields = (
        ("minimality", "minimality"),
        ("count_type_in_minimality", "count_type"),
    )

    def __init__(
        self,
        *,
        minimality: Literal["full_brevity", "no_redundant_attr"] = "full_brevity",
        count_type_in_minimality: bool = True,
    ) -> None:
        check_choice("minimality", minimality, ("full_brevity", "no_redundant_attr"))
        check_bool("count_type_in_minimality", count_type_in_minimality)
        self.minimality = minimality
        self.count_type_in_minimality = count_type_in_minimality

    def segment_stats(
        self, hyp: AttributeSet, refs: Sequence[AttributeSet], **context: Any
    ) -> Stats:
        """Return ``(minimal, unsolvable)`` for one item."""
        s, t, d = self._domain(hyp, context)
        minimal = is_minimal(
            s,
            t,
            d,
            minimality=self.minimality,
            count_type_in_minimality=self.count_type_in_minimality,
        )
        return (float(minimal), float(minimal_distinguishing_size(t, d) is None))

    def summary(self, stats: Sequence[Stats]) -> dict[str, int]:
        """Counts, with ``n_unsolvable`` (items no description can distinguish)."""
        out = super().summary(stats)
        out["n_unsolvable"] = int(sum(s[1] for s in stats))
        return out


@register_metric
class Underspecification(DomainMetric):
    """Mean degree of under-specification (seed 004, §1.2); lower is better.

    Per item: :func:`underspecification`; system score: mean over the items on
    which it is defined.

    Parameters
    ----------
    false_of_target : {"all", "exclude"}, default "all"
        See :func:`underspecification`.

    Examples
    --------
    >>> t = {("type", "chair"), ("colour", "red")}
    >>> d = [{("type", "chair"), ("colour", "blue")},
    ...      {("type", "sofa"), ("colour", "red")}]
    >>> Underspecification().score_segment(
    ...     {("type", "chair")}, [], target=t, distractors=d)
    1.0
    """

    name = "underspecification"
    display_name = "Underspec"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "degree to which the attribute set fails to single out the target",
        "reg_specific",
    )
    version = "1"
    higher_is_better = False
    signature_fields = (("false_of_target", "false_of_target"),)

    def __init__(self, *, false_of_target: Literal["all", "exclude"] = "all") -> None:
        check_choice("false_of_target", false_of_target, ("all", "exclude"))
        self.false_of_target = false_of_target

    def segment_stats(
        self, hyp: AttributeSet, refs: Sequence[AttributeSet], **context: Any
    ) -> Stats:
        """Return ``(degree,)`` for one item (``nan`` if excluded)."""
        s, t, d = self._domain(hyp, context)
        return (underspecification(s, t, d, false_of_target=self.false_of_target),)

    def batch_scores(
        self, domains: Sequence[tuple[AttributeSet, AttributeSet, list[AttributeSet]]]
    ) -> list[float]:
        """Per-item :func:`underspecification` of normalised domains."""
        worst = self.false_of_target == "all"
        return [
            float(sum(map(s.__le__, d)))
            if s <= t
            else (float(len(d)) if worst else math.nan)
            for s, t, d in domains
        ]


@register_metric
class Overspecification(DomainMetric):
    """Mean degree of over-specification (seed 004, §1.2); lower is better.

    Per item: :func:`overspecification`; system score: mean over the items on
    which it is defined (by default the distinguishing outputs of solvable items;
    :meth:`summary` gives the counts).

    Parameters
    ----------
    scope : {"unique", "all"}, default "unique"
        See :func:`overspecification`.
    count_type_in_minimality : bool, default True
        Count ``type`` attributes in ``|S|`` and ``k*``.

    Examples
    --------
    >>> t = {("type", "chair"), ("colour", "red")}
    >>> d = [{("type", "chair"), ("colour", "blue")}]
    >>> Overspecification().score_segment(t, [], target=t, distractors=d)
    1.0
    """

    name = "overspecification"
    display_name = "Overspec"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "degree to which the attribute set holds more than the target needs",
        "reg_specific",
    )
    version = "1"
    higher_is_better = False
    signature_fields = (
        ("scope", "scope"),
        ("count_type_in_minimality", "count_type"),
    )

    def __init__(
        self,
        *,
        scope: Literal["unique", "all"] = "unique",
        count_type_in_minimality: bool = True,
    ) -> None:
        check_choice("scope", scope, ("unique", "all"))
        check_bool("count_type_in_minimality", count_type_in_minimality)
        self.scope = scope
        self.count_type_in_minimality = count_type_in_minimality

    def segment_stats(
        self, hyp: AttributeSet, refs: Sequence[AttributeSet], **context: Any
    ) -> Stats:
        """Return ``(degree,)`` for one item (``nan`` where undefined)."""
        s, t, d = self._domain(hyp, context)
        return (
            overspecification(
                s,
                t,
                d,
                scope=self.scope,
                count_type_in_minimality=self.count_type_in_minimality,
            ),
        )

    def batch_scores(
        self, domains: Sequence[tuple[AttributeSet, AttributeSet, list[AttributeSet]]]
    ) -> list[float]:
        """Per-item :func:`overspecification` of normalised domains."""
        count_type = self.count_type_in_minimality
        unique_only = self.scope == "unique"
        out = []
        for s, t, d in domains:
            k = _min_size_cached(t, tuple(d), count_type)
            if k is None or (
                unique_only and not (s <= t and not any(map(s.__le__, d)))
            ):
                out.append(math.nan)
            else:
                size = len(s) if count_type else _size(s, False)
                out.append(float(max(0, size - k)))
        return out

"""Seed 004 §1.3's denotation similarity of attribute sets and its value hierarchy.

Van Deemter & Gatt ("Content Determination in GRE: Evaluating the evaluator",
seed 004 §1.3) propose a similarity of descriptions that, unlike Dice and MASI
(:mod:`stecflow.metrics.sets`), gives partial credit to a value that differs from
the reference's but means something close. Each attribute is a dimension whose
points are sets of entities: a value's :func:`denotation` is the set of the
domain's entities that have it (the whole domain for a description silent on the
attribute), and :func:`denotation_similarity` compares two descriptions by the Dice
coefficient of their denotations on each attribute either mentions, averaged over
those attributes. Where the domain cannot show that two values are related (in
TUNA's flat domains ``chair`` and ``sofa`` denote disjoint sets), the seed's
alternative, "the distance between properties in an ontology tree", gives the
credit: a :class:`ValueHierarchy` is a forest of values per attribute (read by the
scoring stage from the campaign's file with
:func:`stecflow.scoring.hierarchy.load_value_hierarchy`) in which two values are
``1 / (1 + path length)`` similar, and a dimension on which each description
gives one value, and different ones, scores the larger of the two similarities.
The registered metric :class:`DenotationSimilarity`
(``denotation_similarity``) scores an output set against its references in the
item's domain (context keywords ``target`` and ``distractors``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

from stecflow.metrics.base import (
    Stats,
    check_choice,
    reduce_over_references,
    register_metric,
)
from stecflow.metrics.measure_types import MeasureType
from stecflow.metrics.sets import (
    DICE_MASI_MODES,
    AttributeSet,
    AttributeSetMetric,
    _norm_text,
    dice,
    domain_from_context,
)

__all__ = [
    "DenotationSimilarity",
    "ValueHierarchy",
    "denotation",
    "denotation_similarity",
]


def denotation(
    description: AttributeSet, name: str, entities: Sequence[AttributeSet]
) -> frozenset[int]:
    """Return the indices of the entities the description's *name* values fit.

    The denotation of an attribute value is the set of entities that have it. A
    description with several values for *name* denotes the entities having all
    of them (conjunction, as in ``true_of``); a description with no value for
    *name* is semantically empty on that dimension and denotes the whole domain
    (seed 004, §1.3).

    Parameters
    ----------
    description : AttributeSet
        The description.
    name : str
        The attribute (dimension).
    entities : sequence of AttributeSet
        The domain's entities.

    Returns
    -------
    frozenset of int
        Indices into *entities*.

    Examples
    --------
    >>> ents = [frozenset({("colour", "red")}), frozenset({("colour", "blue")})]
    >>> sorted(denotation(frozenset({("colour", "red")}), "colour", ents))
    [0]
    >>> sorted(denotation(frozenset(), "colour", ents))
    [0, 1]
    """
    values = [a for a in description if a[0] == name]
    return frozenset(
        i for i, ent in enumerate(entities) if all(v in ent for v in values)
    )


@dataclass(frozen=True)
class ValueHierarchy:
    """An ontology of attribute values: a forest of values per attribute (seed 004).

    Seed 004 (§1.3) suggests, as an alternative to comparing denotations, to
    "use the distance between properties in an ontology tree". The seed gives no
    formula; the decisions taken here (not settled by the sources):

    * Each attribute has its own forest, given as ``value -> parent`` (``null``
      for a root); parents need not be values of the domain (``seat`` above
      ``chair`` and ``sofa``).
    * The distance of two values is the number of edges on the path between them
      through their lowest common ancestor (the path length of Rada et al. 1989):
      a value and its parent are 1 apart, two children of one parent 2.
    * The similarity of two values is ``1 / (1 + distance)``: 1 for the same
      value, 1/2 for parent and child, 1/3 for siblings; values in different
      trees, or not in the hierarchy, have similarity 0 unless equal.

    Attribute names and values are normalised like attribute sets (REFERENCE.md
    §2). The scoring stage reads it from a YAML file
    (:func:`stecflow.scoring.hierarchy.load_value_hierarchy`).

    Attributes
    ----------
    parents : mapping
        Attribute -> value -> parent value (None for a root).
    sha256 : str
        sha256 of the file it was read from (recorded in signatures).
    source : str
        The file's name, for messages.

    Examples
    --------
    >>> h = ValueHierarchy({"type": {"chair": "seat", "sofa": "seat",
    ...                              "seat": "furniture", "desk": "furniture"}})
    >>> h.distance("type", "chair", "sofa"), h.distance("type", "chair", "desk")
    (2, 3)
    >>> h.similarity("type", "chair", "sofa"), h.similarity("type", "chair", "fan")
    (Fraction(1, 3), Fraction(0, 1))
    """

    parents: Mapping[str, Mapping[str, str | None]]
    sha256: str = ""
    source: str = ""
    _paths: dict[tuple[str, str], tuple[str, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        tidy = {
            _norm_text(attr): {
                _norm_text(value): None if parent is None else _norm_text(parent)
                for value, parent in values.items()
            }
            for attr, values in self.parents.items()
        }
        object.__setattr__(self, "parents", tidy)
        for attr, values in tidy.items():
            for value in values:
                self._path(attr, value)  # raises on a cycle

    def _path(self, attr: str, value: str) -> tuple[str, ...]:
        """*value* and its ancestors, nearest first."""
        key = (attr, value)
        if key not in self._paths:
            parents = self.parents.get(attr, {})
            path = [value]
            while parents.get(path[-1]) is not None:
                parent = parents[path[-1]]
                if parent in path:
                    raise ValueError(
                        f"{self.source or 'value hierarchy'}: {attr}: the values"
                        f" {' -> '.join([*path, parent])} form a cycle; every"
                        " chain of parents must end at a root (parent null)"
                    )
                path.append(parent)
            self._paths[key] = tuple(path)
        return self._paths[key]

    def distance(self, attr: str, a: str, b: str) -> int | None:
        """Edges between two values of *attr*; None if they share no ancestor.

        Names and values are normalised as in attribute sets.
        """
        attr, a, b = _norm_text(attr), _norm_text(a), _norm_text(b)
        if a == b:
            return 0
        path_a, path_b = self._path(attr, a), self._path(attr, b)
        depth_in_b = {v: n for n, v in enumerate(path_b)}
        for n, value in enumerate(path_a):
            if value in depth_in_b:
                return n + depth_in_b[value]
        return None

    def similarity(self, attr: str, a: str, b: str) -> Fraction:
        """``1 / (1 + distance)``, or 0 for values with no common ancestor."""
        d = self.distance(attr, a, b)
        return Fraction(0) if d is None else Fraction(1, 1 + d)


def denotation_similarity(
    a: AttributeSet,
    b: AttributeSet,
    entities: Sequence[AttributeSet],
    hierarchy: ValueHierarchy | None = None,
) -> Fraction:
    """Similarity of two descriptions that credits values with related meanings.

    This implements the proposal of seed 004, §1.3: each attribute is a dimension
    whose points are sets of entities, and two values of a dimension are compared
    by the Dice coefficient of their denotations in the domain. Decisions taken
    where the seed leaves a choice:

    * The dimensions compared are the attribute names used by either description;
      the similarity is the **mean** over them of the per-dimension similarity.
      Two descriptions that mention nothing score 1 (like ``Dice(∅, ∅)``).
    * A description without a value for a dimension denotes the whole domain
      there (the seed's "semantically empty" reading), so omitting an attribute
      that is true of most of the domain costs little.
    * Identical value sets score 1 on their dimension even if no entity has them;
      otherwise the score is ``dice`` of the two denotations, with 0 for two
      different values that both denote nothing.

    In flat single-valued domains such as TUNA's, two different values of an
    attribute have disjoint denotations and score 0; partial credit then comes
    from omitted or extra attributes, weighted by how little they discriminate.
    With hierarchical values (an entity that is both ``type:animal`` and
    ``type:mammal``) overlapping values get partial credit, as in the seed's
    example ``s(animal, mammal) = 2·15/35 = 6/7``.

    With a *hierarchy* (the seed's alternative, "the distance between properties
    in an ontology tree"), a dimension on which each description gives one value,
    and different ones, scores the larger of the denotations' Dice and the
    values' :meth:`ValueHierarchy.similarity`: values close in the tree get
    partial credit even where the domain cannot show it (in TUNA's flat domains
    ``chair`` and ``sofa`` denote disjoint sets). Without a value, or with
    several, on a dimension, the denotations alone count.

    Parameters
    ----------
    a, b : AttributeSet
        The descriptions.
    entities : sequence of AttributeSet
        The domain: the target's and the distractors' attribute sets.
    hierarchy : ValueHierarchy, optional
        An ontology of the attribute values.

    Returns
    -------
    Fraction
        A similarity in [0, 1], 1 for equal descriptions.

    References
    ----------
    van Deemter, K. & Gatt, A. Content Determination in GRE: Evaluating the
    evaluator (seed 004), §1.3.

    Examples
    --------
    >>> ents = [frozenset({("colour", "red"), ("size", "large")}),
    ...         frozenset({("colour", "blue"), ("size", "large")}),
    ...         frozenset({("colour", "red"), ("size", "small")})]
    >>> denotation_similarity(frozenset({("colour", "red")}),
    ...                       frozenset({("colour", "red"), ("size", "large")}), ents)
    Fraction(9, 10)
    >>> h = ValueHierarchy({"colour": {"red": "warm", "orange": "warm"}})
    >>> denotation_similarity(frozenset({("colour", "orange")}),
    ...                       frozenset({("colour", "red")}), ents, h)
    Fraction(1, 3)
    """
    names = sorted({n for n, _ in a} | {n for n, _ in b})
    if not names:
        return Fraction(1)
    total = Fraction(0)
    for name in names:
        values_a = {v for n, v in a if n == name}
        values_b = {v for n, v in b if n == name}
        if values_a == values_b:
            total += 1
            continue
        den_a = denotation(a, name, entities)
        den_b = denotation(b, name, entities)
        score = dice(den_a, den_b) if den_a or den_b else Fraction(0)
        if hierarchy is not None and len(values_a) == len(values_b) == 1:
            (value_a,), (value_b,) = values_a, values_b
            score = max(score, hierarchy.similarity(name, value_a, value_b))
        total += score
    return total / len(names)


@register_metric
class DenotationSimilarity(AttributeSetMetric):
    """Denotation-based similarity with the references (seed 004, §1.3).

    Per item: :func:`denotation_similarity` of the output set with each reference
    set in the item's domain (target plus distractors), combined by
    ``multi_ref``; system score: mean over items. Needs the context keywords
    ``target`` and ``distractors``.

    Parameters
    ----------
    multi_ref : {"mean", "max"}, default "mean"
        How scores against several references are combined.
    include_type_in_set_metrics : bool, default True
        Keep the ``type`` dimension in the descriptions.
    value_hierarchy : ValueHierarchy, optional
        An ontology of the campaign's attribute values (the scoring stage reads
        it from the file the config names with
        :func:`stecflow.scoring.hierarchy.load_value_hierarchy`): related values
        get partial credit by
        their distance in it (seed 004 §1.3). The signature records the file's
        sha256 (``hier:<first 16 hex digits>``); without one it is unchanged.

    Examples
    --------
    >>> t = {("type", "chair"), ("colour", "red")}
    >>> d = [{("type", "chair"), ("colour", "blue")},
    ...      {("type", "sofa"), ("colour", "red")}]
    >>> DenotationSimilarity().score_segment(
    ...     {("colour", "red")}, [{("type", "chair"), ("colour", "red")}],
    ...     target=t, distractors=d)
    0.9
    """

    name = "denotation_similarity"
    display_name = "DenotSim"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "similarity of what the attribute set and the references denote in the domain",
        "set_similarity",
    )
    version = "1"
    signature_fields = (
        ("multi_ref", "refs"),
        ("include_type_in_set_metrics", "type"),
        ("value_hierarchy", "hier"),
    )

    def __init__(
        self,
        *,
        multi_ref: Literal["mean", "max"] = "mean",
        include_type_in_set_metrics: bool = True,
        value_hierarchy: ValueHierarchy | None = None,
    ) -> None:
        check_choice("multi_ref", multi_ref, DICE_MASI_MODES)
        self.multi_ref = multi_ref
        self._init_type(include_type_in_set_metrics)
        if value_hierarchy is not None and not isinstance(
            value_hierarchy, ValueHierarchy
        ):
            raise TypeError(
                "value_hierarchy must be a ValueHierarchy; read a file with"
                " stecflow.scoring.hierarchy.load_value_hierarchy"
            )
        self.value_hierarchy = value_hierarchy
        self.hierarchy = value_hierarchy

    def signature_items(self) -> list[tuple[str, object]]:
        """Fields of the signature; the hierarchy as its sha256, if there is one."""
        items = [(k, v) for k, v in super().signature_items() if k != "hier"]
        if self.hierarchy is not None:
            items.append(("hier", self.hierarchy.sha256[:16]))
        return items

    def segment_stats(
        self, hyp: AttributeSet, refs: Sequence[AttributeSet], **context: Any
    ) -> Stats:
        """Return ``(similarity,)`` for one item (see :meth:`Metric.segment_stats`)."""
        h, rs = self._prepare_all(hyp, refs, context)
        target, distractors = domain_from_context(self.display_name, context)
        entities = [target, *distractors]
        sims = [denotation_similarity(h, r, entities, self.hierarchy) for r in rs]
        return (reduce_over_references(sims, self.multi_ref),)

"""The data model: domains, items (trials), references and system outputs.

An *attribute* is a ``(name, value)`` pair, and an attribute set is a frozenset of
them (REFERENCE.md §2): ``colour:red`` and ``colour:blue`` are different attributes,
and TUNA's location is two attributes, ``x-dimension`` and ``y-dimension``.
Everything here is immutable and hashable, so items can be cached and compared.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property

__all__ = [
    "ATTRIBUTE_KINDS",
    "CONDITIONS",
    "AttributeSet",
    "Domain",
    "Entity",
    "EntityAttribute",
    "Item",
    "Output",
    "Reference",
    "attribute_set",
    "format_attribute_set",
]

#: Kinds of attribute in the TUNA 1.0 distribution (its ``TYPE`` XML attribute).
ATTRIBUTE_KINDS = ("literal", "gradable", "boolean")
#: The experimental conditions of the TUNA corpus.
CONDITIONS = ("+LOC", "-LOC")

AttributeSet = frozenset[tuple[str, str]]


def attribute_set(pairs: Iterable[tuple[str, str]] | Mapping[str, str]) -> AttributeSet:
    """Build an attribute set from (name, value) pairs or a mapping.

    Names and values are stripped of surrounding whitespace.

    >>> sorted(attribute_set({"colour": "red", "type": " chair "}))
    [('colour', 'red'), ('type', 'chair')]
    """
    items = pairs.items() if isinstance(pairs, Mapping) else pairs
    return frozenset((str(name).strip(), str(value).strip()) for name, value in items)


def format_attribute_set(attrs: Iterable[tuple[str, str]]) -> str:
    """Render an attribute set compactly and deterministically.

    >>> format_attribute_set({("type", "chair"), ("colour", "red")})
    '{colour:red, type:chair}'
    """
    return "{" + ", ".join(f"{n}:{v}" for n, v in sorted(attrs)) + "}"


@dataclass(frozen=True)
class EntityAttribute:
    """One attribute of a domain entity, with its TUNA 1.0 kind when known."""

    name: str
    value: str
    kind: str | None = None


@dataclass(frozen=True)
class Entity:
    """An entity in a domain: the target or a distractor, with a picture."""

    id: str
    is_target: bool
    attributes: tuple[EntityAttribute, ...]
    image: str | None = None

    @property
    def attribute_set(self) -> AttributeSet:
        """The entity's attributes as a set of (name, value) pairs."""
        return frozenset((a.name, a.value) for a in self.attributes)

    def value_of(self, name: str) -> str | None:
        """Return the value of attribute *name*, or None if the entity lacks it."""
        for attribute in self.attributes:
            if attribute.name == name:
                return attribute.value
        return None


@dataclass(frozen=True)
class Domain:
    """The entities shown together in one item; exactly one is the target."""

    entities: tuple[Entity, ...]

    @property
    def target(self) -> Entity:
        """The target referent."""
        return next(e for e in self.entities if e.is_target)

    @property
    def distractors(self) -> tuple[Entity, ...]:
        """Every entity except the target, in document order."""
        return tuple(e for e in self.entities if not e.is_target)

    def values(self) -> dict[str, frozenset[str]]:
        """Map each attribute name used in the domain to the values it takes."""
        return dict(self._values)

    @cached_property
    def _values(self) -> dict[str, frozenset[str]]:
        # once per domain: every submission's outputs are checked against it
        seen: dict[str, set[str]] = {}
        for entity in self.entities:
            for attribute in entity.attributes:
                seen.setdefault(attribute.name, set()).add(attribute.value)
        return {name: frozenset(values) for name, values in sorted(seen.items())}

    def __iter__(self) -> Iterator[Entity]:
        return iter(self.entities)


@dataclass(frozen=True)
class Reference:
    """One human description of an item's target.

    ``annotated_word_string`` keeps the inner XML of ANNOTATED-WORD-STRING (text with
    ``<ATTRIBUTE NAME=... VALUE=...>`` spans) exactly as read, so writing it back
    loses nothing.
    """

    word_string: str | None = None
    attribute_set: AttributeSet | None = None
    annotated_word_string: str | None = None
    id: str | None = None
    #: Annotations of a task type other than REG, as sorted (name, value) pairs
    #: (situated dialogue: the corpus's ``form`` and ``pronoun`` decision).
    fields: tuple[tuple[str, object], ...] = ()

    def get(self, name: str, default: object = None) -> object:
        """The value of field *name* (:attr:`fields`), or *default*."""
        return dict(self.fields).get(name, default)


@dataclass(frozen=True)
class Item:
    """One trial: a domain, its condition and subdomain, and human references.

    ``extra`` keeps other TRIAL attributes (TUNA 1.0's CARDINALITY, SIMILARITY, …)
    as sorted (name, value) pairs so they survive a round trip. ``input`` is the
    input of a task type whose items are more than a domain (a hashable object
    that task type defines, e.g. a situated-dialogue instance); None for REG.
    """

    id: str
    domain: Domain
    subdomain: str
    condition: str | None = None
    references: tuple[Reference, ...] = ()
    extra: tuple[tuple[str, str], ...] = field(default=())
    input: object = None


@dataclass(frozen=True)
class Output:
    """What a system produced for one item, with the line it came from.

    ``fields`` holds what a task type other than REG outputs, as sorted (name,
    value) pairs (situated dialogue: ``("pronoun", True)``); REG outputs leave it
    empty.

    >>> Output("e1", "that one", fields=(("pronoun", True),)).get("pronoun")
    True
    """

    item_id: str
    word_string: str | None = None
    attribute_set: AttributeSet | None = None
    line: int | None = None
    fields: tuple[tuple[str, object], ...] = ()

    def get(self, name: str, default: object = None) -> object:
        """The value of field *name* (:attr:`fields`), or *default*."""
        return dict(self.fields).get(name, default)

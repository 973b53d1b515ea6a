"""TUNA-shaped domains: the furniture and people vocabularies on a 5 × 3 grid.

A domain has 7 entities on distinct cells of the 5 × 3 grid (``x-dimension`` 1–5,
``y-dimension`` 1–3), with TUNA's vocabularies (:data:`FURNITURE_SCHEMA`,
:data:`PEOPLE_SCHEMA`). People are drawn consistently: a tie or a suit comes with a
shirt. A domain is made by first deciding which attributes the target needs
(TUNA's domains were designed likewise): a target is drawn at random, then a set
*D* of 1–4 of its non-location attributes; for each attribute in *D* one distractor
differs from the target only there (sometimes also in one attribute outside *D*),
and the other distractors differ in at least one attribute of *D* and in a few
random others. So *D* (without location) distinguishes the target; the domain is
kept only if the smallest distinguishing set without location has 1–4 attributes.
Each entity's picture is named by :func:`stecflow.tasks.reg.pictures.image_name`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from itertools import combinations

from stecflow.baselines.systems import LOCATION_ATTRIBUTES as _LOCATION
from stecflow.data.model import Domain, Entity, EntityAttribute
from stecflow.tasks.reg.pictures import image_name

__all__ = [
    "ENTITIES_PER_DOMAIN",
    "FURNITURE_SCHEMA",
    "GRID_COLUMNS",
    "GRID_ROWS",
    "PEOPLE_SCHEMA",
    "Appearance",
    "Schema",
    "appearance_of",
    "generate_domain",
    "minimal_distinguishing_size",
]

GRID_COLUMNS = 5
GRID_ROWS = 3
ENTITIES_PER_DOMAIN = 7

Schema = tuple[tuple[str, tuple[str, ...], str], ...]
#: Furniture attributes: (name, values, TUNA 1.0 kind), in file order.
FURNITURE_SCHEMA: Schema = (
    ("type", ("chair", "desk", "fan", "sofa"), "literal"),
    ("colour", ("blue", "green", "grey", "red"), "literal"),
    ("orientation", ("front", "back", "left", "right"), "literal"),
    ("size", ("large", "small"), "literal"),
)
#: People attributes: (name, values, TUNA 1.0 kind), in file order.
PEOPLE_SCHEMA: Schema = (
    ("type", ("person",), "literal"),
    ("age", ("old", "young"), "literal"),
    ("hairColour", ("dark", "light"), "literal"),
    ("hasBeard", ("0", "1"), "boolean"),
    ("hasGlasses", ("0", "1"), "boolean"),
    ("hasHair", ("0", "1"), "boolean"),
    ("hasShirt", ("0", "1"), "boolean"),
    ("hasSuit", ("0", "1"), "boolean"),
    ("hasTie", ("0", "1"), "boolean"),
    ("orientation", ("front", "left", "right"), "literal"),
)
_SCHEMAS = {"furniture": FURNITURE_SCHEMA, "people": PEOPLE_SCHEMA}

Appearance = dict[str, str]


def _repair(appearance: Appearance, changed: str) -> None:
    """Keep clothes consistent (a suit or a tie comes with a shirt)."""
    if "hasShirt" not in appearance:
        return
    if changed in ("hasSuit", "hasTie") and appearance[changed] == "1":
        appearance["hasShirt"] = "1"
    if appearance["hasShirt"] == "0":
        appearance["hasSuit"] = appearance["hasTie"] = "0"


def _random_appearance(subdomain: str, rng: random.Random) -> Appearance:
    if subdomain == "furniture":
        return {name: rng.choice(values) for name, values, _ in FURNITURE_SCHEMA}
    outfit = rng.choice(
        [("0", "0", "0"), ("1", "0", "0"), ("1", "1", "0"), ("1", "0", "1")]
    )
    outfit = ("1", "1", "1") if rng.random() < 0.2 else outfit
    return {
        "type": "person",
        "age": rng.choice(("old", "young")),
        "hairColour": rng.choice(("dark", "light")),
        "hasBeard": "1" if rng.random() < 0.4 else "0",
        "hasGlasses": "1" if rng.random() < 0.45 else "0",
        "hasHair": "1" if rng.random() < 0.7 else "0",
        "hasShirt": outfit[0],
        "hasSuit": outfit[1],
        "hasTie": outfit[2],
        "orientation": rng.choice(("front", "left", "right")),
    }


def _mutate(
    target: Appearance, names: Iterable[str], subdomain: str, rng: random.Random
) -> Appearance:
    values = {name: vals for name, vals, _ in _SCHEMAS[subdomain]}
    result = dict(target)
    for name in names:
        result[name] = rng.choice([v for v in values[name] if v != result[name]])
        _repair(result, name)
    return result


def minimal_distinguishing_size(
    target: Appearance, distractors: Sequence[Appearance]
) -> int | None:
    """Size of the smallest set of *target*'s attributes that rules out every
    distractor, or None if there is none.

    >>> minimal_distinguishing_size({"type": "fan", "colour": "red"},
    ...                             [{"type": "fan", "colour": "blue"}])
    1
    """
    names = sorted(target)
    for size in range(len(names) + 1):
        for subset in combinations(names, size):
            if all(any(d.get(n) != target[n] for n in subset) for d in distractors):
                return size
    return None


def generate_domain(subdomain: str, rng: random.Random) -> Domain:
    """Generate one TUNA-like domain: 7 entities on distinct grid cells.

    The target needs 1–4 attributes besides location to be distinguished (see the
    module docstring); entity IDs are ``e1`` … ``e7`` in (shuffled) document order.

    Parameters
    ----------
    subdomain
        ``"furniture"`` or ``"people"``.
    rng
        The source of randomness.

    Returns
    -------
    Domain
    """
    schema = _SCHEMAS[subdomain]
    kinds = {name: kind for name, _, kind in schema}
    variable = [name for name, values, _ in schema if len(values) > 1]
    k_weights = (
        (0.2, 0.42, 0.28, 0.1) if subdomain == "furniture" else (0.22, 0.38, 0.28, 0.12)
    )
    while True:
        target = _random_appearance(subdomain, rng)
        k = rng.choices((1, 2, 3, 4), weights=k_weights)[0]
        needed = rng.sample(variable, k)
        others = [n for n in variable if n not in needed]
        distractors: list[Appearance] = []
        for name in needed:
            changes = [name]
            if others and rng.random() < 0.25:
                changes.append(rng.choice(others))
            distractors.append(_mutate(target, changes, subdomain, rng))
        while len(distractors) < ENTITIES_PER_DOMAIN - 1:
            extra = rng.sample(others, min(len(others), rng.choice((0, 1, 1, 2))))
            changes = [rng.choice(needed), *extra]
            distractors.append(_mutate(target, changes, subdomain, rng))
        size = minimal_distinguishing_size(target, distractors)
        if size is not None and 1 <= size <= 4:
            break
    appearances = [target, *distractors]
    order = list(range(ENTITIES_PER_DOMAIN))
    rng.shuffle(order)
    cells = rng.sample(range(GRID_COLUMNS * GRID_ROWS), ENTITIES_PER_DOMAIN)
    entities = []
    for position, index in enumerate(order):
        appearance = appearances[index]
        column, row = cells[index] % GRID_COLUMNS + 1, cells[index] // GRID_COLUMNS + 1
        attributes = [
            EntityAttribute(name, appearance[name], kinds[name])
            for name, _, _ in schema
        ]
        attributes.append(EntityAttribute("x-dimension", str(column), "gradable"))
        attributes.append(EntityAttribute("y-dimension", str(row), "gradable"))
        entities.append(
            Entity(
                id=f"e{position + 1}",
                is_target=index == 0,
                attributes=tuple(attributes),
                image=image_name(appearance),
            )
        )
    return Domain(tuple(entities))


def appearance_of(entity: Entity) -> Appearance:
    """An entity's attributes other than location: what its picture shows."""
    return {a.name: a.value for a in entity.attributes if a.name not in _LOCATION}

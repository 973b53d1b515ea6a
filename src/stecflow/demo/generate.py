"""Generate the demo campaign: a TUNA-shaped corpus, pictures and submissions.

No copy of the TUNA corpus may be shipped, so :func:`build_demo` makes a corpus of
the same shape from one seed, draws its entities
(:mod:`stecflow.tasks.reg.pictures`), and
writes the demo submissions that exercise every stage of the campaign.

Corpus
------
Splits and sizes are those of TUNA-REG (Gatt, Belz & Kow 2009, Table 2): train
319 furniture + 274 people items (IDs ``tr-0001`` …), dev 80 + 68 (``dv-0001`` …),
test 56 + 56 (``t001`` … ``t112``). Within a split, furniture items come first; the
two conditions are balanced within each subdomain (the test set has 28 +LOC and
28 -LOC items per subdomain) and shuffled.

Domains
-------
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

References (the generative model of human descriptions)
-------------------------------------------------------
Each reference is written by an *author* from a pool of 60. An author has a
verbosity (0.2–0.7, scaling the chance of adding an attribute that rules nothing
out), a
propensity to use location (0.5–1.2), a rate of mentioning the head noun, a habit
for the determiner (mostly "the", sometimes "a" or none), word-order habits and
preferred words (e.g. "couch" rather than "sofa"), each used 85 % of the time.
Test items get two references, HUMAN-1 and HUMAN-2, by two different authors drawn
independently; train and dev items get one.

*Content* is chosen like a noisy Incremental Algorithm: the head noun (``type``)
first (about 95 % of the time), then the target's other attributes in an order
sorted by salience times log-normal noise. Salience favours colour, then size and
orientation (furniture) and beard, glasses and hair (people); a boolean attribute
with value 0 is less salient (except baldness, which is very salient). Location
has salience 0.4 × the author's propensity under +LOC and 0.03 under -LOC, where
describers were discouraged from using it. An attribute that rules out a remaining
distractor is taken (97 %; and 3 % of the time the author then gives up before the
description is distinguishing); one that does not is still taken with probability
0.7 × salience × verbosity, which makes references over-specified, as human ones
are. Having used one of ``x-dimension``/``y-dimension``, an author adds the other
half the time ("top left"). References are therefore usually, not always,
distinguishing.

*Words*: the attribute set is realised by a grammar with synonyms ("sofa"/"couch",
"grey"/"gray", "large"/"big", "facing left"/"looking left", "man"/"guy"/"person",
"at the top"/"in the top row", "on the left" …), pre-modifier or post-modifier
variants ("bearded man"/"man with a beard"), optional orders (size and colour,
orientation and location, row and column), a dropped or indefinite article and the
odd capital letter. The annotated string wraps the words realising each attribute
in ``<ATTRIBUTE NAME=".." VALUE="..">…</ATTRIBUTE>``; the word string is the same
text without the tags.

Submissions
-----------
``organisers`` (Full Brevity, Greedy, the Incremental Algorithm with a preference
order learnt from train, and IA with orders learnt per subdomain and condition that
uses location only under +LOC; all realised by
:func:`stecflow.tasks.reg.realiser.realise`),
``human`` (HUMAN-1, HUMAN-2: the test references, flagged ``reference: true``),
``late-team`` (IA with a random preference order per item, submitted after the
deadline) and ``broken-team`` (missing ``contact``; an outputs file with the
problems listed by :func:`write_broken_submission`).

Determinism: every random choice comes from :class:`random.Random` instances seeded
from the campaign seed and a purpose string through SHA-256 (never ``hash()`` or the
clock), and every file is written in a fixed order, so the same seed gives the same
bytes. Regenerate with ``python -m stecflow.demo.generate`` (or ``stecflow demo``)
from the
project root.
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from stecflow.baselines import systems as baselines
from stecflow.data.corpus import write_items
from stecflow.data.model import Domain, Entity, EntityAttribute, Item, Output, Reference
from stecflow.submissions.files import (
    METADATA_FILE,
    OUTPUTS_FILE,
    write_metadata,
    write_outputs,
)
from stecflow.tasks.reg.pictures import image_name, render_svg
from stecflow.tasks.reg.realiser import realise

__all__ = [
    "DEADLINE",
    "DEFAULT_SEED",
    "FURNITURE_SCHEMA",
    "PEOPLE_SCHEMA",
    "SPLIT_SIZES",
    "BrokenProblem",
    "DemoBuild",
    "build_demo",
    "demo_submissions",
    "generate_corpus",
    "generate_domain",
    "item_ids",
    "main",
    "minimal_distinguishing_size",
    "write_broken_submission",
    "write_pictures",
]

logger = logging.getLogger(__name__)

#: The seed of the committed demo data.
DEFAULT_SEED = 2009
#: Submission deadline of the demo campaign (ISO 8601, UTC).
DEADLINE = "2026-06-01T23:59:59Z"
GRID_COLUMNS = 5
GRID_ROWS = 3
ENTITIES_PER_DOMAIN = 7
#: Items per split and subdomain (TUNA-REG'09, Table 2).
SPLIT_SIZES: dict[str, dict[str, int]] = {
    "train": {"furniture": 319, "people": 274},
    "dev": {"furniture": 80, "people": 68},
    "test": {"furniture": 56, "people": 56},
}
_ID_FORMAT = {"train": "tr-{:04d}", "dev": "dv-{:04d}", "test": "t{:03d}"}

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
_LOCATION = baselines.LOCATION_ATTRIBUTES

Appearance = dict[str, str]


def _rng(seed: int, *keys: object) -> random.Random:
    """A random generator for one purpose, derived from the seed via SHA-256."""
    text = "/".join([str(seed), *map(str, keys)])
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def item_ids(split: str) -> list[str]:
    """Return the item IDs of a split, furniture items first.

    >>> item_ids("test")[:2], item_ids("test")[-1], item_ids("train")[0]
    (['t001', 't002'], 't112', 'tr-0001')
    """
    total = sum(SPLIT_SIZES[split].values())
    return [_ID_FORMAT[split].format(i) for i in range(1, total + 1)]


# --------------------------------------------------------------------------- domains


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


# ------------------------------------------------------------------------ authors


@dataclass(frozen=True)
class _Author:
    """A describer: habits that stay the same across the author's references."""

    number: int
    verbosity: float
    location: float
    type_rate: float
    determiner: str
    size_after_colour: bool
    location_first: bool
    column_first: bool
    corner: float
    capital: float

    def prefers(self, key: str, variants: Sequence[tuple[str, float]]) -> str:
        """The author's habitual variant for *key* (fixed per author and key)."""
        words = [v for v, _ in variants]
        weights = [w for _, w in variants]
        return _rng(self.number, "lexicon", key).choices(words, weights)[0]


def _authors(seed: int, count: int = 60) -> list[_Author]:
    rng = _rng(seed, "authors")
    authors = []
    for number in range(count):
        authors.append(
            _Author(
                number=seed * 1000 + number,
                verbosity=round(rng.uniform(0.2, 0.7), 3),
                location=round(rng.uniform(0.5, 1.2), 3),
                type_rate=round(rng.uniform(0.88, 1.0), 3),
                determiner=rng.choices(("the", "a", ""), weights=(0.86, 0.05, 0.09))[0],
                size_after_colour=rng.random() < 0.15,
                location_first=rng.random() < 0.25,
                column_first=rng.random() < 0.3,
                corner=round(rng.uniform(0.3, 0.9), 3),
                capital=rng.choice((0.0, 0.0, 0.1, 0.5)),
            )
        )
    return authors


# ------------------------------------------------------------- content selection

#: Scales the chance of adding an attribute that rules out no remaining distractor.
_REDUNDANCY = 0.7
_SALIENCE = {
    "type": 1.0,
    "colour": 0.9,
    "size": 0.45,
    "orientation": 0.4,
    "hasBeard": 0.75,
    "hasGlasses": 0.75,
    "hasHair": 0.6,
    "hairColour": 0.55,
    "age": 0.35,
    "hasSuit": 0.3,
    "hasTie": 0.25,
    "hasShirt": 0.15,
}


def _salience(name: str, target: Entity, condition: str, author: _Author) -> float:
    if name in _LOCATION:
        return 0.4 * author.location if condition == "+LOC" else 0.03
    value = target.value_of(name)
    base = _SALIENCE.get(name, 0.3)
    if name == "orientation" and target.value_of("type") == "person":
        base = 0.25
    if name == "hasHair":
        return min(1.0, base * 1.4) if value == "0" else base * 0.3
    if name == "hairColour" and target.value_of("hasHair") == "0":
        return base * 0.3
    if value == "0":
        return base * 0.35
    return base


def _select_content(
    domain: Domain, condition: str, author: _Author, rng: random.Random
) -> dict[str, str]:
    target = domain.target
    values = {a.name: a.value for a in target.attributes}
    selected: dict[str, str] = {}
    remaining = list(domain.distractors)

    def take(name: str) -> None:
        selected[name] = values[name]
        remaining[:] = [d for d in remaining if d.value_of(name) == values[name]]

    if rng.random() < author.type_rate:
        take("type")
    names = [name for name in values if name != "type"]
    weight = {n: _salience(n, target, condition, author) for n in names}
    keys = {n: weight[n] * rng.lognormvariate(0, 0.5) for n in names}
    for name in sorted(names, key=lambda n: (-keys[n], n)):
        helps = any(d.value_of(name) != values[name] for d in remaining)
        if helps and rng.random() < 0.97:
            take(name)
            if remaining and len(selected) >= 2 and rng.random() < 0.03:
                break  # the author stops before the description is distinguishing
        elif rng.random() < _REDUNDANCY * weight[name] * author.verbosity:
            take(name)
    located = [n for n in _LOCATION if n in selected]
    if len(located) == 1 and rng.random() < 0.5:
        take(next(n for n in _LOCATION if n not in selected))
    if not selected:
        take("type")
    return selected


# ------------------------------------------------------------------ realisation

Segment = str | tuple[str, str, str]  # plain words, or (name, value, words)

_FURNITURE_WORDS: dict[str, list[tuple[str, float]]] = {
    "chair": [("chair", 1.0)],
    "desk": [("desk", 0.8), ("table", 0.2)],
    "fan": [("fan", 1.0)],
    "sofa": [("sofa", 0.55), ("couch", 0.35), ("settee", 0.1)],
    "blue": [("blue", 1.0)],
    "green": [("green", 1.0)],
    "grey": [("grey", 0.6), ("gray", 0.4)],
    "red": [("red", 1.0)],
    "large": [("large", 0.45), ("big", 0.55)],
    "small": [("small", 0.7), ("little", 0.3)],
}
_FACING = {
    "front": [
        ("facing forward", 0.3),
        ("facing the front", 0.2),
        ("facing us", 0.2),
        ("facing the viewer", 0.15),
        ("from the front", 0.15),
    ],
    "back": [
        ("facing away", 0.45),
        ("facing backwards", 0.3),
        ("seen from the back", 0.25),
    ],
    "left": [
        ("facing left", 0.5),
        ("facing to the left", 0.2),
        ("pointing left", 0.15),
        ("turned to the left", 0.15),
    ],
    "right": [
        ("facing right", 0.5),
        ("facing to the right", 0.2),
        ("pointing right", 0.15),
        ("turned to the right", 0.15),
    ],
}
_LOOKING = {
    "front": [
        ("looking straight ahead", 0.3),
        ("facing forward", 0.25),
        ("looking at the camera", 0.25),
        ("facing us", 0.2),
    ],
    "left": [
        ("looking left", 0.4),
        ("facing left", 0.35),
        ("looking to the left", 0.25),
    ],
    "right": [
        ("looking right", 0.4),
        ("facing right", 0.35),
        ("looking to the right", 0.25),
    ],
}
_MAN = [
    ("man", 0.55),
    ("guy", 0.15),
    ("person", 0.12),
    ("gentleman", 0.1),
    ("bloke", 0.04),
    ("chap", 0.04),
]
# Location phrases: (words before the annotated span, annotated words).
_COLUMN_PHRASES = {
    "1": [("on the", "left"), ("on the", "far left"), ("in the", "left column")],
    "2": [("", "second from the left"), ("in the", "second column")],
    "3": [
        ("in the", "middle column"),
        ("in the", "centre column"),
        ("in the", "middle"),
    ],
    "4": [("", "second from the right"), ("in the", "fourth column")],
    "5": [("on the", "right"), ("on the", "far right"), ("in the", "right column")],
}
_ROW_PHRASES = {
    "1": [("at the", "top"), ("in the", "top row"), ("on the", "top row")],
    "2": [("in the", "middle row"), ("in the", "second row")],
    "3": [("at the", "bottom"), ("in the", "bottom row"), ("on the", "bottom row")],
}


class _Words:
    """Word choice for one reference: the author's habit, or now and then another."""

    def __init__(self, author: _Author, rng: random.Random) -> None:
        self.author = author
        self.rng = rng

    def pick(self, key: str, variants: Sequence[tuple[str, float]]) -> str:
        if len(variants) == 1:
            return variants[0][0]
        if self.rng.random() < 0.85:
            return self.author.prefers(key, variants)
        return self.rng.choices([v for v, _ in variants], [w for _, w in variants])[0]

    def chance(self, p: float) -> bool:
        return self.rng.random() < p


def _join_list(items: Sequence[list[Segment]]) -> list[Segment]:
    """Coordinate phrases: ``a``, ``a and b``, ``a, b and c``."""
    out: list[Segment] = []
    for index, item in enumerate(items):
        if index and index == len(items) - 1:
            out.append("and")
        elif index:
            out.append(",")
        out.extend(item)
    return out


def _location_segments(
    selected: dict[str, str], author: _Author, w: _Words
) -> list[Segment]:
    x, y = selected.get("x-dimension"), selected.get("y-dimension")
    if x is None and y is None:
        return []
    if x in ("1", "5") and y in ("1", "3") and w.chance(author.corner):
        prefix = w.pick("corner-prefix", [("at the", 0.5), ("in the", 0.5)])
        row, column = {"1": "top", "3": "bottom"}[y], {"1": "left", "5": "right"}[x]
        segments: list[Segment] = [
            prefix,
            ("y-dimension", y, row),
            ("x-dimension", x, column),
        ]
        if prefix == "in the" and w.chance(0.6):
            segments.append("corner")
        return segments
    phrases: list[list[Segment]] = []
    for name, value, table in (
        ("y-dimension", y, _ROW_PHRASES),
        ("x-dimension", x, _COLUMN_PHRASES),
    ):
        if value is None:
            continue
        options = {span: before for before, span in table[value]}
        span = w.pick(f"{name}-{value}", [(option, 1.0) for option in options])
        phrase: list[Segment] = [options[span]] if options[span] else []
        phrases.append([*phrase, (name, value, span)])
    if len(phrases) == 2 and author.column_first:
        phrases.reverse()
    if len(phrases) == 2:
        return [*phrases[0], *([","] if w.chance(0.4) else []), *phrases[1]]
    return phrases[0]


def _furniture_segments(
    selected: dict[str, str], author: _Author, w: _Words
) -> tuple[list[Segment], list[Segment], list[list[Segment]]]:
    premods: list[Segment] = []
    for name in ("size", "colour"):
        if name in selected:
            value = selected[name]
            premods.append((name, value, w.pick(value, _FURNITURE_WORDS[value])))
    if len(premods) == 2 and (author.size_after_colour != w.chance(0.05)):
        premods.reverse()
    postmods: list[list[Segment]] = []
    if "orientation" in selected:
        value = selected["orientation"]
        if value in ("left", "right") and w.chance(0.12):
            premods.append(("orientation", value, f"{value}-facing"))
        else:
            postmods.append(
                [("orientation", value, w.pick(f"facing-{value}", _FACING[value]))]
            )
    if "type" in selected:
        value = selected["type"]
        noun: list[Segment] = [("type", value, w.pick(value, _FURNITURE_WORDS[value]))]
    else:
        noun = [
            w.pick("furniture-one", [("one", 0.7), ("thing", 0.2), ("object", 0.1)])
        ]
    return premods, noun, postmods


_WITH_ITEMS = {
    "hasBeard": [("a beard", 1.0)],
    "hasGlasses": [("glasses", 0.8), ("spectacles", 0.2)],
    "hasTie": [("a tie", 1.0)],
}
_WEAR_ITEMS = {
    "hasShirt": [("a shirt", 1.0)],
    "hasSuit": [("a suit", 0.7), ("a jacket", 0.3)],
    "hasTie": [("a tie", 1.0)],
    "hasGlasses": [("glasses", 1.0)],
}
_NEGATIVES = {
    "hasBeard": [("without a beard", 0.5), ("with no beard", 0.5)],
    "hasGlasses": [("without glasses", 0.6), ("with no glasses", 0.4)],
    "hasHair": [("with no hair", 1.0)],
    "hasShirt": [("not wearing a shirt", 0.5), ("without a shirt", 0.5)],
    "hasSuit": [
        ("without a jacket", 0.4),
        ("not wearing a suit", 0.3),
        ("without a suit", 0.3),
    ],
    "hasTie": [("without a tie", 0.6), ("with no tie", 0.4)],
}


def _people_segments(
    selected: dict[str, str], author: _Author, w: _Words
) -> tuple[list[Segment], list[Segment], list[list[Segment]]]:
    premods: list[Segment] = []
    with_items: list[list[Segment]] = []
    wear_items: list[list[Segment]] = []
    negatives: list[list[Segment]] = []
    if "age" in selected:
        value = selected["age"]
        words = {"old": [("old", 0.5), ("older", 0.3), ("elderly", 0.2)]}
        words["young"] = [("young", 0.6), ("younger", 0.4)]
        premods.append(("age", value, w.pick(f"age-{value}", words[value])))
    hair, has_hair = selected.get("hairColour"), selected.get("hasHair")
    old = selected.get("age") == "old"
    if hair is not None and has_hair == "1":
        shades = {
            "dark": [("dark", 1.0)],
            "light": [("white", 0.6), ("grey", 0.4)]
            if old
            else [("light", 0.4), ("fair", 0.3), ("blond", 0.3)],
        }[hair]
        shade = w.pick(f"hair-{hair}-{old}", shades)
        with_items.append([("hairColour", hair, shade), ("hasHair", "1", "hair")])
        has_hair = None
    elif hair is not None:
        options = {
            "dark": [("dark-haired", 0.7), ("dark haired", 0.3)],
            "light": [("white-haired", 0.6), ("grey-haired", 0.4)]
            if old
            else [("blond", 0.4), ("fair-haired", 0.3), ("light-haired", 0.3)],
        }[hair]
        if w.chance(0.3):
            with_items.append([("hairColour", hair, f"{hair} hair")])
        else:
            premods.append(
                ("hairColour", hair, w.pick(f"haired-{hair}-{old}", options))
            )
    if has_hair == "0":
        if w.chance(0.85):
            premods.append(
                ("hasHair", "0", w.pick("bald", [("bald", 0.8), ("balding", 0.2)]))
            )
        else:
            negatives.append([("hasHair", "0", "with no hair")])
    elif has_hair == "1":
        with_items.append([("hasHair", "1", "hair")])
    if selected.get("hasBeard") == "1" and w.chance(0.2):
        premods.append(("hasBeard", "1", "bearded"))
    elif selected.get("hasBeard") == "0" and w.chance(0.35):
        premods.append(("hasBeard", "0", "clean-shaven"))
    elif "hasBeard" in selected:
        value = selected["hasBeard"]
        if value == "1":
            with_items.append([("hasBeard", "1", "a beard")])
        else:
            negatives.append(
                [("hasBeard", "0", w.pick("no-beard", _NEGATIVES["hasBeard"]))]
            )
    for name in ("hasGlasses", "hasShirt", "hasSuit", "hasTie"):
        if name not in selected:
            continue
        if selected[name] == "0":
            negatives.append([(name, "0", w.pick(f"no-{name}", _NEGATIVES[name]))])
        elif name == "hasGlasses" and w.chance(0.7):
            with_items.append([(name, "1", w.pick("glasses", _WITH_ITEMS[name]))])
        elif name == "hasTie" and not wear_items and w.chance(0.5):
            with_items.append([(name, "1", "a tie")])
        else:
            wear_items.append([(name, "1", w.pick(f"wear-{name}", _WEAR_ITEMS[name]))])
    if "type" in selected:
        noun: list[Segment] = [("type", "person", w.pick("man", _MAN))]
    else:
        noun = [w.pick("people-one", [("one", 0.8), ("person", 0.2)])]
    postmods: list[list[Segment]] = []
    if with_items:
        postmods.append(["with", *_join_list(with_items)])
    if wear_items:
        verb = w.pick("wearing", [("wearing", 0.7), ("in", 0.3)])
        postmods.append([verb, *_join_list(wear_items)])
        if len(postmods) == 2 and w.chance(0.2):
            postmods.reverse()
    if negatives:
        postmods.append(_join_list(negatives))
    if "orientation" in selected:
        value = selected["orientation"]
        postmods.append(
            [("orientation", value, w.pick(f"looking-{value}", _LOOKING[value]))]
        )
    return premods, noun, postmods


def _render(segments: Sequence[Segment]) -> tuple[str, str]:
    """Return (word string, annotated word string) of a segment list."""
    plain: list[str] = []
    annotated: list[str] = []
    for segment in segments:
        if isinstance(segment, str):
            words = markup = segment
        else:
            name, value, words = segment
            markup = f'<ATTRIBUTE NAME="{name}" VALUE="{value}">{words}</ATTRIBUTE>'
        if not words:
            continue
        if plain and not words.startswith(","):
            plain.append(" ")
            annotated.append(" ")
        plain.append(words)
        annotated.append(markup)
    return "".join(plain), "".join(annotated)


def _realise_human(
    selected: dict[str, str], subdomain: str, author: _Author, rng: random.Random
) -> tuple[str, str]:
    w = _Words(author, rng)
    build = _furniture_segments if subdomain == "furniture" else _people_segments
    premods, noun, postmods = build(selected, author, w)
    location = _location_segments(selected, author, w)
    if location:
        first = author.location_first != w.chance(0.1)
        postmods = [location, *postmods] if first else [*postmods, location]
    determiner = author.determiner
    if determiner and w.chance(0.05):
        determiner = ""  # an article dropped
    if determiner == "a" and premods and isinstance(premods[0], tuple):
        first_word = premods[0][2]
        determiner = "an" if first_word[0] in "aeiou" else "a"
    elif determiner == "a" and isinstance(noun[0], tuple) and noun[0][2][0] in "aeiou":
        determiner = "an"
    segments: list[Segment] = [determiner, *premods, *noun]
    for phrase in postmods:
        segments.extend(phrase)
    segments = [s for s in segments if s != ""]
    if w.chance(author.capital):
        head = segments[0]
        if isinstance(head, str):
            segments[0] = head[:1].upper() + head[1:]
        else:
            segments[0] = (head[0], head[1], head[2][:1].upper() + head[2][1:])
    return _render(segments)


def _reference(
    domain: Domain,
    subdomain: str,
    condition: str,
    author: _Author,
    rng: random.Random,
    reference_id: str | None,
) -> Reference:
    selected = _select_content(domain, condition, author, rng)
    words, annotated = _realise_human(selected, subdomain, author, rng)
    return Reference(
        word_string=words,
        attribute_set=frozenset(selected.items()),
        annotated_word_string=annotated,
        id=reference_id,
    )


# ----------------------------------------------------------------------- corpus


def _conditions(count: int, rng: random.Random) -> list[str]:
    conditions = ["+LOC"] * ((count + 1) // 2) + ["-LOC"] * (count // 2)
    rng.shuffle(conditions)
    return conditions


def generate_corpus(seed: int = DEFAULT_SEED) -> dict[str, list[Item]]:
    """Generate the train, dev and test items of the demo corpus.

    Parameters
    ----------
    seed
        Every random choice derives from it; the same seed gives the same corpus.

    Returns
    -------
    dict
        ``{"train": [...], "dev": [...], "test": [...]}``, items in ID order.
    """
    authors = _authors(seed)
    corpus: dict[str, list[Item]] = {}
    for split, sizes in SPLIT_SIZES.items():
        ids = iter(item_ids(split))
        items: list[Item] = []
        for subdomain, count in sizes.items():
            conditions = _conditions(count, _rng(seed, split, subdomain, "conditions"))
            for condition in conditions:
                item_id = next(ids)
                domain = generate_domain(subdomain, _rng(seed, item_id, "domain"))
                rng = _rng(seed, item_id, "references")
                if split == "test":
                    pair = rng.sample(authors, 2)
                    references = tuple(
                        _reference(
                            domain, subdomain, condition, author, rng, f"HUMAN-{i}"
                        )
                        for i, author in enumerate(pair, start=1)
                    )
                else:
                    author = rng.choice(authors)
                    references = (
                        _reference(domain, subdomain, condition, author, rng, None),
                    )
                items.append(
                    Item(
                        id=item_id,
                        domain=domain,
                        subdomain=subdomain,
                        condition=condition,
                        references=references,
                    )
                )
        corpus[split] = items
    return corpus


def _appearance(entity: Entity) -> Appearance:
    return {a.name: a.value for a in entity.attributes if a.name not in _LOCATION}


def write_pictures(items: Iterable[Item], directory: str | Path) -> list[Path]:
    """Write one SVG per distinct entity appearance used by *items*.

    Other ``*.svg`` files in *directory* are removed, so the folder always matches
    the corpus.

    Returns
    -------
    list of Path
        The pictures written, sorted.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    pictures: dict[str, str] = {}
    for item in items:
        for entity in item.domain.entities:
            if entity.image and entity.image not in pictures:
                pictures[entity.image] = render_svg(_appearance(entity))
    for stale in sorted(directory.glob("*.svg")):
        if stale.name not in pictures:
            stale.unlink()
    written = []
    for name in sorted(pictures):
        path = directory / name
        path.write_bytes(pictures[name].encode("utf-8"))
        written.append(path)
    return written


# ------------------------------------------------------------------ submissions


@dataclass(frozen=True)
class BrokenProblem:
    """One deliberate problem of the broken demo submission's outputs file."""

    line: int
    item_id: str
    problem: str


def _outputs(
    items: Sequence[Item], select: Callable[[Item], frozenset[tuple[str, str]]]
) -> list[Output]:
    outputs = []
    for item in items:
        attributes = select(item)
        outputs.append(
            Output(item.id, word_string=realise(attributes), attribute_set=attributes)
        )
    return outputs


def demo_submissions(
    corpus: dict[str, list[Item]], seed: int = DEFAULT_SEED
) -> dict[tuple[str, str], tuple[dict[str, object], list[Output]]]:
    """The valid demo submissions: (team, system) -> (metadata, outputs).

    Parameters
    ----------
    corpus
        As returned by :func:`generate_corpus` (train gives the IA orders).
    seed
        Seeds the late team's random preference orders.
    """
    test = corpus["test"]
    by_subdomain = baselines.learn_preference_order(corpus["train"])
    by_condition = baselines.learn_preference_order(
        corpus["train"], key=lambda item: (item.subdomain, item.condition)
    )

    def ia(item: Item) -> frozenset[tuple[str, str]]:
        return baselines.incremental(item.domain, by_subdomain[item.subdomain])

    def ia_loc(item: Item) -> frozenset[tuple[str, str]]:
        order = by_condition[(item.subdomain, item.condition)]
        if item.condition != "+LOC":
            order = tuple(n for n in order if n not in _LOCATION)
        return baselines.incremental(item.domain, order)

    def random_ia(item: Item) -> frozenset[tuple[str, str]]:
        names = sorted({a.name for a in item.domain.target.attributes})
        _rng(seed, item.id, "late-team").shuffle(names)
        return baselines.incremental(item.domain, names)

    def meta(
        team: str, system: str, description: str, **extra: object
    ) -> dict[str, object]:
        return {
            "team": team,
            "system": system,
            "description": description,
            "contact": f"{team}@example.org",
            "primary": False,
            "submitted": "2026-05-20T14:03:00Z",
            "tasks": ["end_to_end", "attribute_selection"],
            "reference": False,
            "release_consent": True,
            **extra,
        }

    template = " Realised by the deterministic template realiser."
    systems: dict[tuple[str, str], tuple[dict[str, object], list[Output]]] = {
        ("organisers", "full-brevity"): (
            meta(
                "organisers",
                "full-brevity",
                "Full Brevity (Dale 1989): a smallest distinguishing attribute set,"
                " ties broken by a fixed attribute order." + template,
            ),
            _outputs(test, lambda item: baselines.full_brevity(item.domain)),
        ),
        ("organisers", "greedy"): (
            meta(
                "organisers",
                "greedy",
                "Greedy (Dale 1989): repeatedly adds the attribute that rules out most"
                " remaining distractors." + template,
                submitted="2026-05-20T14:05:00Z",
            ),
            _outputs(test, lambda item: baselines.greedy(item.domain)),
        ),
        ("organisers", "incremental"): (
            meta(
                "organisers",
                "incremental",
                "Incremental Algorithm (Dale & Reiter 1995), preference order learnt"
                " per subdomain from attribute frequencies in train, type always"
                " included." + template,
                primary=True,
                submitted="2026-05-20T14:07:00Z",
            ),
            _outputs(test, ia),
        ),
        ("organisers", "incremental-loc"): (
            meta(
                "organisers",
                "incremental-loc",
                "Incremental Algorithm with preference orders learnt per subdomain and"
                " condition; location used only under +LOC." + template,
                submitted="2026-05-20T14:09:00Z",
            ),
            _outputs(test, ia_loc),
        ),
        ("late-team", "primary"): (
            meta(
                "late-team",
                "primary",
                "Incremental Algorithm with a random preference order per item"
                " (seeded), template realiser. Submitted after the deadline.",
                primary=True,
                submitted="2026-06-03T09:30:00Z",
            ),
            _outputs(test, random_ia),
        ),
    }
    for number in (1, 2):
        system = f"HUMAN-{number}"
        outputs = []
        for item in test:
            reference = next(r for r in item.references if r.id == system)
            outputs.append(
                Output(
                    item.id,
                    word_string=reference.word_string,
                    attribute_set=reference.attribute_set,
                )
            )
        systems[("human", system)] = (
            meta(
                "human",
                system,
                f"Human reference set {number}: the test set's {system} descriptions,"
                " written by several authors.",
                reference=True,
                submitted="2026-05-15T09:00:00Z",
            ),
            outputs,
        )
    return systems


def _xml_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def write_broken_submission(
    test: Sequence[Item], outputs: Sequence[Output], directory: str | Path
) -> list[BrokenProblem]:
    """Write the deliberately broken submission (outputs.xml and system.yaml).

    The outputs file is written byte by byte, not with the writer, and is
    well-formed XML apart from the bad bytes. Its problems (in line order):

    * bytes invalid in UTF-8 (a Latin-1 ``é``) in the 3rd item's word string;
    * the 5th item is missing;
    * the 10th item occurs twice;
    * an attribute value not in the domain (``colour:purple``) in the 20th item;
    * an unknown item ID, ``t999``, after the 20th item;
    * an attribute name not in the domain (``material:wood``) in the 30th item;
    * a whitespace-only WORD-STRING in the 40th item (a warning: it is scored as
      an empty description).

    The metadata lacks ``contact``.

    Parameters
    ----------
    test
        The test items (the first 56 are furniture).
    outputs
        Valid outputs for every test item, in the same order (e.g. Full Brevity).
    directory
        ``submissions/broken-team/primary``.

    Returns
    -------
    list of BrokenProblem
        Where each problem is (1-based line numbers of the outputs file).
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    lines: list[bytes] = [b"<?xml version='1.0' encoding='UTF-8'?>", b"<OUTPUTS>"]
    problems: list[BrokenProblem] = []

    def trial(
        output: Output, *, wrong: tuple[str, str] | None = None, note: str = ""
    ) -> None:
        lines.append(f'  <TRIAL ID="{output.item_id}">'.encode())
        if note == "unknown-id":
            problems.append(
                BrokenProblem(len(lines), output.item_id, "unknown item ID")
            )
        lines.append(b"    <ATTRIBUTE-SET>")
        pairs = sorted(output.attribute_set or ())
        if wrong is not None:
            pairs = sorted({p for p in pairs if p[0] != wrong[0]} | {wrong})
        for name, value in pairs:
            lines.append(f'      <ATTRIBUTE NAME="{name}" VALUE="{value}"/>'.encode())
            if (name, value) == wrong:
                problems.append(BrokenProblem(len(lines), output.item_id, note))
        lines.append(b"    </ATTRIBUTE-SET>")
        words = _xml_text(output.word_string or "").encode()
        if note == "encoding":
            words += b" (caf\xe9 corner)"
        elif note == "empty word string":
            words = b"   "
        lines.append(b"    <WORD-STRING>" + words + b"</WORD-STRING>")
        if note in ("encoding", "empty word string"):
            detail = "bytes invalid in UTF-8" if note == "encoding" else note
            problems.append(BrokenProblem(len(lines), output.item_id, detail))
        lines.append(b"  </TRIAL>")

    for index, output in enumerate(outputs, start=1):
        if index == 3:
            trial(output, note="encoding")
        elif index == 5:
            problems.append(
                BrokenProblem(len(lines) + 1, output.item_id, "missing item")
            )
        elif index == 10:
            trial(output)
            problems.append(
                BrokenProblem(len(lines) + 1, output.item_id, "duplicated item")
            )
            trial(output)
        elif index == 20:
            trial(
                output, wrong=("colour", "purple"), note="attribute value not in domain"
            )
            unknown = Output(
                "t999",
                word_string=output.word_string,
                attribute_set=output.attribute_set,
            )
            trial(unknown, note="unknown-id")
        elif index == 30:
            trial(
                output, wrong=("material", "wood"), note="attribute name not in domain"
            )
        elif index == 40:
            trial(output, note="empty word string")
        else:
            trial(output)
    lines.append(b"</OUTPUTS>")
    (directory / OUTPUTS_FILE).write_bytes(b"\n".join(lines) + b"\n")
    write_metadata(
        {
            "team": "broken-team",
            "system": "primary",
            "description": "A deliberately broken submission to exercise validation.",
            "primary": True,
            "submitted": "2026-05-28T17:45:00Z",
            "tasks": ["end_to_end", "attribute_selection"],
            "reference": False,
            "release_consent": False,
        },
        directory / METADATA_FILE,
    )
    return problems


# -------------------------------------------------------------------------- build


@dataclass(frozen=True)
class DemoBuild:
    """What :func:`build_demo` wrote."""

    files: tuple[Path, ...]
    broken_problems: tuple[BrokenProblem, ...]


def build_demo(
    resources_dir: str | Path, submissions_dir: str | Path, seed: int = DEFAULT_SEED
) -> DemoBuild:
    """Generate the demo corpus, its pictures and the demo submissions.

    Writes ``<resources_dir>/{train,dev,test}.xml``, ``<resources_dir>/images/*.svg``
    and ``<submissions_dir>/<team>/<system>/{outputs.xml,system.yaml}`` for the teams
    ``organisers``, ``human``, ``late-team`` and ``broken-team``. Other submissions
    in *submissions_dir* are left alone.

    Parameters
    ----------
    resources_dir
        Usually ``resources/demo``.
    submissions_dir
        Usually ``submissions``.
    seed
        The campaign seed; the same seed gives byte-identical files.

    Returns
    -------
    DemoBuild
        The files written (sorted) and the broken submission's problems.
    """
    resources_dir, submissions_dir = Path(resources_dir), Path(submissions_dir)
    corpus = generate_corpus(seed)
    files: list[Path] = []
    for split, items in corpus.items():
        path = resources_dir / f"{split}.xml"
        write_items(items, path)
        files.append(path)
    all_items = [item for items in corpus.values() for item in items]
    files.extend(write_pictures(all_items, resources_dir / "images"))
    for (team, system), (metadata, outputs) in sorted(
        demo_submissions(corpus, seed).items()
    ):
        directory = submissions_dir / team / system
        write_outputs(outputs, directory / OUTPUTS_FILE)
        write_metadata(metadata, directory / METADATA_FILE)
        files.extend([directory / OUTPUTS_FILE, directory / METADATA_FILE])
    broken_dir = submissions_dir / "broken-team" / "primary"
    fb = _outputs(corpus["test"], lambda item: baselines.full_brevity(item.domain))
    problems = write_broken_submission(corpus["test"], fb, broken_dir)
    files.extend([broken_dir / OUTPUTS_FILE, broken_dir / METADATA_FILE])
    logger.info("wrote %d demo files (seed %d)", len(files), seed)
    return DemoBuild(files=tuple(sorted(files)), broken_problems=tuple(problems))


def main(argv: Sequence[str] | None = None) -> int:
    """Command line:
    ``python -m stecflow.demo.generate [--resources DIR] [--submissions DIR]
    [--seed N]``."""
    parser = argparse.ArgumentParser(
        prog="python -m stecflow.demo.generate",
        description="Regenerate the demo corpus, pictures and submissions.",
    )
    parser.add_argument("--resources", default="resources/demo", type=Path)
    parser.add_argument("--submissions", default="submissions", type=Path)
    parser.add_argument("--seed", default=DEFAULT_SEED, type=int)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    build = build_demo(args.resources, args.submissions, args.seed)
    for problem in build.broken_problems:
        logger.info(
            "broken-team/primary/%s line %d (%s): %s",
            OUTPUTS_FILE,
            problem.line,
            problem.item_id,
            problem.problem,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

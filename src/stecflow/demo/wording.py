"""The words of the demo's human-like references.

The attribute set is realised by a grammar with synonyms ("sofa"/"couch",
"grey"/"gray", "large"/"big", "facing left"/"looking left", "man"/"guy"/"person",
"at the top"/"in the top row", "on the left" …), pre-modifier or post-modifier
variants ("bearded man"/"man with a beard"), optional orders (size and colour,
orientation and location, row and column), a dropped or indefinite article and the
odd capital letter. The annotated string wraps the words realising each attribute
in ``<ATTRIBUTE NAME=".." VALUE="..">…</ATTRIBUTE>``; the word string is the same
text without the tags.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from stecflow.demo.authors import Author

__all__ = ["Segment", "realise_human"]

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

    def __init__(self, author: Author, rng: random.Random) -> None:
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
    selected: dict[str, str], author: Author, w: _Words
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
    selected: dict[str, str], author: Author, w: _Words
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
    selected: dict[str, str], author: Author, w: _Words
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


def realise_human(
    selected: dict[str, str], subdomain: str, author: Author, rng: random.Random
) -> tuple[str, str]:
    """Return (word string, annotated word string) of *selected* as *author* writes."""
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

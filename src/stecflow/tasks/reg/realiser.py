"""A deterministic template realiser: attribute sets to noun phrases.

Each attribute is always realised by the same words in the same position, whatever
else is in the set, as in the ASGRE identification experiment (Gatt, Belz & Kow
2008, seed 003 §3.2: "a deterministic, template-based method which always maps each
attribute to word(s) in the same way and in the same position regardless of
context"). The phrase is built from these slots, in this order:

====  ==========================  ==========================================
slot  attributes                  words
====  ==========================  ==========================================
1     (determiner)                ``the``
2     ``size``, ``age``           ``large``/``small``, ``old``/``young``
3     ``colour``, ``hairColour``  the colour; ``dark-haired``/``light-haired``
4     ``hasHair:0``               ``bald``
5     ``type``                    the type (``person`` for people); ``one``
                                  when the set has no ``type``
6     ``hasHair:1``,              ``with`` + list of ``hair``, ``a beard``,
      ``hasBeard:1``,             ``glasses``
      ``hasGlasses:1``
7     ``hasBeard:0``,             ``without`` + list of ``a beard``,
      ``hasGlasses:0``            ``glasses``
8     ``hasShirt:1``,             ``wearing`` + list of ``a shirt``,
      ``hasSuit:1``,              ``a suit``, ``a tie``
      ``hasTie:1``
9     ``hasShirt:0``,             ``not wearing`` + list, as in slot 8
      ``hasSuit:0``, ``hasTie:0``
10    ``orientation``             ``facing forward``/``facing backward``/
                                  ``facing left``/``facing right``
11    ``y-dimension``,            ``at the`` + ``top``/``middle``/``bottom``
      ``x-dimension``             + ``left``/``centre left``/``centre``/
                                  ``centre right``/``right``
12    anything else               ``with <name> <value>``, sorted
====  ==========================  ==========================================

Lists are joined as ``a, b and c``. Several values of one attribute name (which a
well-formed description never has) are realised side by side in sorted order.
"""

from __future__ import annotations

from collections.abc import Iterable

from stecflow.core.text import in_words

__all__ = ["REALISER_ID", "TEMPLATE_SLOTS", "realise"]

#: The realiser's name and version in signatures and study settings; raise the
#: version whenever a template changes the words of any attribute set.
REALISER_ID = "template-v1"

_WITH, _WITHOUT, _WEARING, _NOT_WEARING = 6, 7, 8, 9

#: (name, value) -> (slot, words); see the module docstring.
TEMPLATE_SLOTS: dict[tuple[str, str], tuple[int, str]] = {
    ("size", "large"): (2, "large"),
    ("size", "small"): (2, "small"),
    ("age", "old"): (2, "old"),
    ("age", "young"): (2, "young"),
    ("colour", "blue"): (3, "blue"),
    ("colour", "green"): (3, "green"),
    ("colour", "grey"): (3, "grey"),
    ("colour", "red"): (3, "red"),
    ("hairColour", "dark"): (3, "dark-haired"),
    ("hairColour", "light"): (3, "light-haired"),
    ("hasHair", "0"): (4, "bald"),
    ("type", "chair"): (5, "chair"),
    ("type", "desk"): (5, "desk"),
    ("type", "fan"): (5, "fan"),
    ("type", "sofa"): (5, "sofa"),
    ("type", "person"): (5, "person"),
    ("hasHair", "1"): (_WITH, "hair"),
    ("hasBeard", "1"): (_WITH, "a beard"),
    ("hasGlasses", "1"): (_WITH, "glasses"),
    ("hasBeard", "0"): (_WITHOUT, "a beard"),
    ("hasGlasses", "0"): (_WITHOUT, "glasses"),
    ("hasShirt", "1"): (_WEARING, "a shirt"),
    ("hasSuit", "1"): (_WEARING, "a suit"),
    ("hasTie", "1"): (_WEARING, "a tie"),
    ("hasShirt", "0"): (_NOT_WEARING, "a shirt"),
    ("hasSuit", "0"): (_NOT_WEARING, "a suit"),
    ("hasTie", "0"): (_NOT_WEARING, "a tie"),
    ("orientation", "front"): (10, "facing forward"),
    ("orientation", "back"): (10, "facing backward"),
    ("orientation", "left"): (10, "facing left"),
    ("orientation", "right"): (10, "facing right"),
}
_LIST_HEADS = {_WITH: "with", _WITHOUT: "without", _WEARING: "wearing"}
_LIST_HEADS[_NOT_WEARING] = "not wearing"
# Order of items inside a list slot, whatever order the set is iterated in.
_LIST_ORDER = ("hasHair", "hasBeard", "hasGlasses", "hasShirt", "hasSuit", "hasTie")
_ROWS = {"1": "top", "2": "middle", "3": "bottom"}
_COLUMNS = {
    "1": "left",
    "2": "centre left",
    "3": "centre",
    "4": "centre right",
    "5": "right",
}


def _location(values: dict[str, list[str]]) -> str:
    parts = [
        *(_ROWS.get(v, f"row {v}") for v in values.get("y-dimension", [])),
        *(_COLUMNS.get(v, f"column {v}") for v in values.get("x-dimension", [])),
    ]
    return "at the " + " ".join(parts) if parts else ""


def realise(attributes: Iterable[tuple[str, str]]) -> str:
    """Realise an attribute set as a definite noun phrase, deterministically.

    Parameters
    ----------
    attributes
        (name, value) pairs, e.g. an :data:`~stecflow.data.model.AttributeSet`.

    Returns
    -------
    str
        A lower-case phrase whose words depend on each attribute alone, in the slot
        order of the module docstring. The empty set gives ``"the one"``.

    Examples
    --------
    >>> realise({("type", "chair"), ("colour", "red"), ("size", "large"),
    ...          ("orientation", "left"), ("x-dimension", "1"), ("y-dimension", "1")})
    'the large red chair facing left at the top left'
    >>> realise({("type", "person"), ("hasBeard", "1"), ("hasGlasses", "1"),
    ...          ("hasTie", "0"), ("age", "old")})
    'the old person with a beard and glasses not wearing a tie'
    >>> realise({("colour", "blue"), ("hasHair", "0")})
    'the blue bald one'
    """
    slots: dict[int, list[tuple[int, str, str]]] = {}
    location: dict[str, list[str]] = {}
    others: list[str] = []
    for name, value in sorted(set(attributes)):
        if name in ("x-dimension", "y-dimension"):
            location.setdefault(name, []).append(value)
        elif (name, value) in TEMPLATE_SLOTS:
            slot, words = TEMPLATE_SLOTS[(name, value)]
            rank = _LIST_ORDER.index(name) if name in _LIST_ORDER else 0
            slots.setdefault(slot, []).append((rank, value, words))
        else:
            others.append(f"with {name} {value}")
    phrase = ["the"]
    for slot in range(2, 11):
        entries = [words for _, _, words in sorted(slots.get(slot, []))]
        if slot == 5 and not entries:
            entries = ["one"]
        if not entries:
            continue
        if slot in _LIST_HEADS:
            phrase.append(f"{_LIST_HEADS[slot]} {in_words(entries)}")
        else:
            phrase.extend(entries)
    if location:
        phrase.append(_location(location))
    phrase.extend(others)
    return " ".join(phrase)

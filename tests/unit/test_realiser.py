"""Tests of the deterministic template realiser."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from stecflow.demo.generate import FURNITURE_SCHEMA, PEOPLE_SCHEMA
from stecflow.tasks.reg.realiser import TEMPLATE_SLOTS, realise


@pytest.mark.parametrize(
    ("attributes", "expected"),
    [
        (
            {
                ("type", "chair"),
                ("colour", "red"),
                ("size", "large"),
                ("orientation", "left"),
                ("x-dimension", "1"),
                ("y-dimension", "1"),
            },
            "the large red chair facing left at the top left",
        ),
        ({("type", "sofa")}, "the sofa"),
        ({("colour", "grey"), ("type", "fan")}, "the grey fan"),
        ({("colour", "green")}, "the green one"),
        (set(), "the one"),
        ({("type", "desk"), ("orientation", "back")}, "the desk facing backward"),
        ({("type", "desk"), ("x-dimension", "3")}, "the desk at the centre"),
        ({("type", "desk"), ("y-dimension", "2")}, "the desk at the middle"),
        (
            {("type", "desk"), ("x-dimension", "4"), ("y-dimension", "3")},
            "the desk at the bottom centre right",
        ),
        (
            {
                ("type", "person"),
                ("age", "young"),
                ("hairColour", "light"),
                ("hasGlasses", "1"),
                ("hasBeard", "1"),
                ("hasHair", "1"),
            },
            "the young light-haired person with hair, a beard and glasses",
        ),
        (
            {
                ("type", "person"),
                ("hasHair", "0"),
                ("hasBeard", "0"),
                ("hasSuit", "1"),
                ("hasTie", "1"),
                ("hasShirt", "0"),
                ("orientation", "front"),
            },
            "the bald person without a beard wearing a suit and a tie"
            " not wearing a shirt facing forward",
        ),
        (
            {("type", "chair"), ("material", "wood")},
            "the chair with material wood",
        ),
    ],
)
def test_realise(attributes: set[tuple[str, str]], expected: str) -> None:
    assert realise(attributes) == expected


def test_realise_accepts_any_iterable_and_ignores_duplicates() -> None:
    attrs = [("colour", "red"), ("type", "chair"), ("colour", "red")]
    assert realise(attrs) == realise(iter(attrs)) == "the red chair"


def _vocabulary() -> list[tuple[str, str]]:
    pairs = [(n, v) for n, vals, _ in FURNITURE_SCHEMA + PEOPLE_SCHEMA for v in vals]
    pairs += [("x-dimension", str(x)) for x in range(1, 6)]
    pairs += [("y-dimension", str(y)) for y in range(1, 4)]
    return sorted(set(pairs))


def test_every_demo_attribute_has_template_words() -> None:
    for name, value in _vocabulary():
        if name not in ("x-dimension", "y-dimension"):
            assert (name, value) in TEMPLATE_SLOTS


def test_order_of_input_does_not_matter() -> None:
    rng = random.Random(7)
    pairs = [p for p in _vocabulary() if p[0] not in ("hasSuit", "hasShirt")]
    for _ in range(200):
        subset = rng.sample(pairs, rng.randint(0, 6))
        shuffled = subset[:]
        rng.shuffle(shuffled)
        assert realise(subset) == realise(shuffled)


def test_each_attribute_keeps_its_words_and_relative_position() -> None:
    """Adding an attribute never changes the words of the others or their order."""
    furniture = {
        ("type", "fan"),
        ("colour", "blue"),
        ("size", "small"),
        ("orientation", "right"),
        ("x-dimension", "5"),
        ("y-dimension", "3"),
    }
    full = realise(furniture)
    assert full == "the small blue fan facing right at the bottom right"
    words = {
        ("size", "small"): "small",
        ("colour", "blue"): "blue",
        ("type", "fan"): "fan",
        ("orientation", "right"): "facing right",
    }
    for size in range(1, len(words) + 1):
        for subset in combinations(sorted(words), size):
            text = realise(set(subset) | {("type", "fan")})
            positions = [full.index(words[a]) for a in sorted(subset)]
            found = [text.index(words[a]) for a in sorted(subset)]
            # same relative order as in the full phrase
            assert sorted(range(len(subset)), key=lambda i: positions[i]) == sorted(
                range(len(subset)), key=lambda i: found[i]
            )

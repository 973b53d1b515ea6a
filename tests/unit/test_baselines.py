"""Tests of the attribute-selection baselines on hand-worked domains."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from stecflow.baselines import systems as baselines
from stecflow.baselines.systems import (
    LOCATION_ATTRIBUTES,
    attribute_frequencies,
    full_brevity,
    greedy,
    incremental,
    is_distinguishing,
    learn_preference_order,
    remaining_distractors,
)
from stecflow.data.model import Domain, Entity, EntityAttribute, Item, Reference
from stecflow.demo.generate import generate_corpus


def entity(number: int, target: bool = False, **attrs: str) -> Entity:
    names = {"x": "x-dimension", "y": "y-dimension"}
    return Entity(
        f"e{number}",
        target,
        tuple(EntityAttribute(names.get(k, k), v) for k, v in attrs.items()),
    )


@pytest.fixture
def reference_example() -> Domain:
    """REFERENCE.md §6: no single attribute distinguishes e1, k* = 2."""
    return Domain(
        (
            entity(
                1, True, type="chair", colour="red", size="large", orientation="front"
            ),
            entity(2, type="chair", colour="blue", size="large", orientation="front"),
            entity(3, type="sofa", colour="red", size="small", orientation="front"),
        )
    )


def k_star(domain: Domain) -> int | None:
    """Brute-force k* of REFERENCE.md §6, independent of the baselines."""
    target = domain.target.attribute_set
    for size in range(len(target) + 1):
        for subset in combinations(sorted(target), size):
            if all(not set(subset) <= d.attribute_set for d in domain.distractors):
                return size
    return None


def test_reference_example_full_brevity(reference_example: Domain) -> None:
    result = full_brevity(reference_example)
    assert len(result) == k_star(reference_example) == 2
    assert is_distinguishing(result, reference_example)
    # Ties between {type, colour} and {colour, size} go to the canonical order.
    assert result == {("type", "chair"), ("colour", "red")}


def test_reference_example_uniqueness_table(reference_example: Domain) -> None:
    rows = [
        ({("colour", "red")}, False),
        ({("type", "chair"), ("colour", "red")}, True),
        ({("colour", "red"), ("size", "large")}, True),
        ({("type", "chair"), ("colour", "red"), ("size", "large")}, True),
        ({("colour", "green")}, False),
    ]
    for attrs, unique in rows:
        assert is_distinguishing(attrs, reference_example) is unique


def test_reference_example_greedy(reference_example: Domain) -> None:
    # type, colour and size each rule out one distractor: canonical order picks
    # type (rules out e3), then colour (rules out e2).
    assert greedy(reference_example) == {("type", "chair"), ("colour", "red")}


def test_reference_example_incremental(reference_example: Domain) -> None:
    # orientation rules out nobody and is skipped; size rules out e3, colour e2;
    # type is added as the head noun.
    result = incremental(reference_example, ["orientation", "size", "colour"])
    assert result == {("size", "large"), ("colour", "red"), ("type", "chair")}
    without_type = incremental(
        reference_example, ["size", "colour"], include_type=False
    )
    assert without_type == {("size", "large"), ("colour", "red")}


def test_greedy_picks_most_discriminating_first() -> None:
    domain = Domain(
        (
            entity(1, True, type="fan", colour="red", size="small", orientation="left"),
            entity(2, type="fan", colour="blue", size="small", orientation="left"),
            entity(3, type="fan", colour="green", size="small", orientation="left"),
            entity(4, type="fan", colour="grey", size="small", orientation="right"),
            entity(5, type="fan", colour="red", size="large", orientation="left"),
        )
    )
    # colour rules out 3 of 4; then size rules out the last.
    assert greedy(domain) == {("colour", "red"), ("size", "small")}
    assert full_brevity(domain) == {("colour", "red"), ("size", "small")}


def test_greedy_is_not_always_minimal() -> None:
    # Greedy takes colour (rules out 3) and then needs two more attributes, while
    # size + orientation alone distinguish the target.
    domain = Domain(
        (
            entity(1, True, colour="red", size="small", orientation="left"),
            entity(2, colour="blue", size="large", orientation="left"),
            entity(3, colour="blue", size="large", orientation="left"),
            entity(4, colour="blue", size="small", orientation="right"),
            entity(5, colour="red", size="large", orientation="left"),
            entity(6, colour="red", size="small", orientation="right"),
        )
    )
    assert full_brevity(domain) == {("size", "small"), ("orientation", "left")}
    assert len(greedy(domain)) == 3
    assert is_distinguishing(greedy(domain), domain)


def test_incremental_overspecifies_along_the_order() -> None:
    domain = Domain(
        (
            entity(1, True, type="sofa", colour="red", size="large"),
            entity(2, type="sofa", colour="blue", size="large"),
            entity(3, type="sofa", colour="red", size="small"),
            entity(4, type="chair", colour="red", size="large"),
        )
    )
    # colour rules out e2, size e3, type e4: all three are needed here.
    assert incremental(domain, ["colour", "size", "type"]) == {
        ("colour", "red"),
        ("size", "large"),
        ("type", "sofa"),
    }
    assert full_brevity(domain) == incremental(domain, ["type", "colour", "size"])


def test_no_distinguishing_set() -> None:
    domain = Domain(
        (
            entity(1, True, type="chair", colour="red", size="large"),
            entity(2, type="chair", colour="red", size="large"),
            entity(3, type="chair", colour="blue", size="large"),
        )
    )
    assert k_star(domain) is None
    fb = full_brevity(domain)
    assert fb == {("colour", "red")}  # rules out e3, the only one that can be
    assert not is_distinguishing(fb, domain)
    assert greedy(domain) == {("colour", "red")}
    assert incremental(domain, ["size", "colour"]) == {
        ("colour", "red"),
        ("type", "chair"),
    }
    assert [e.id for e in remaining_distractors(fb, domain)] == ["e2"]


def test_no_distractors() -> None:
    domain = Domain((entity(1, True, type="desk", colour="grey"),))
    assert full_brevity(domain) == frozenset()
    assert greedy(domain) == frozenset()
    assert incremental(domain, ["colour"]) == {("type", "desk")}


def test_location_and_exclude() -> None:
    domain = Domain(
        (
            entity(1, True, type="chair", colour="red", x="1", y="1"),
            entity(2, type="chair", colour="red", x="2", y="1"),
            entity(3, type="sofa", colour="red", x="1", y="2"),
        )
    )
    # type rules out e3 and x-dimension e2; {type, x} precedes {x, y}.
    assert full_brevity(domain) == {("type", "chair"), ("x-dimension", "1")}
    # Without location the target cannot be told from e2.
    no_location = full_brevity(domain, exclude=LOCATION_ATTRIBUTES)
    assert no_location == {("type", "chair")}
    assert not is_distinguishing(no_location, domain)
    assert greedy(domain, exclude=LOCATION_ATTRIBUTES) == {("type", "chair")}


def test_full_brevity_tie_break_is_canonical_order() -> None:
    # Every single attribute distinguishes: type comes first in CANONICAL_ORDER.
    domain = Domain(
        (
            entity(1, True, type="fan", colour="green", size="small"),
            entity(2, type="desk", colour="blue", size="large"),
        )
    )
    assert full_brevity(domain) == {("type", "fan")}
    assert greedy(domain) == {("type", "fan")}


def test_an_attribute_the_distractor_lacks_rules_it_out() -> None:
    domain = Domain(
        (entity(1, True, type="person", hasBeard="1"), entity(2, type="person"))
    )
    assert full_brevity(domain) == {("hasBeard", "1")}


def test_learn_preference_order_hand_counts() -> None:
    domain = Domain(
        (entity(1, True, type="chair", colour="red", size="large", orientation="left"),)
    )
    references = [
        {("type", "chair"), ("colour", "red")},
        {("type", "chair"), ("size", "large")},
        {("colour", "red")},
        {("type", "chair")},
    ]
    items = [
        Item(
            f"i{n}",
            domain,
            "furniture",
            "+LOC" if n % 2 else "-LOC",
            (Reference(attribute_set=frozenset(r)),),
        )
        for n, r in enumerate(references)
    ]
    counts = attribute_frequencies(items)["furniture"]
    assert counts == Counter({"type": 3, "colour": 2, "size": 1, "orientation": 0})
    assert learn_preference_order(items) == {
        "furniture": ("type", "colour", "size", "orientation")
    }
    by_condition = learn_preference_order(items, key=lambda i: i.condition)
    assert by_condition["-LOC"] == ("colour", "type", "size", "orientation")
    assert by_condition["+LOC"] == ("type", "size", "colour", "orientation")


@pytest.fixture(scope="module")
def demo_corpus() -> dict[str, list[Item]]:
    return generate_corpus()


def test_full_brevity_unique_and_minimal_on_demo_test_set(
    demo_corpus: dict[str, list[Item]],
) -> None:
    for item in demo_corpus["test"]:
        result = full_brevity(item.domain)
        assert is_distinguishing(result, item.domain), item.id
        assert len(result) == k_star(item.domain), item.id


def test_greedy_and_incremental_unique_on_demo_test_set(
    demo_corpus: dict[str, list[Item]],
) -> None:
    orders = learn_preference_order(demo_corpus["train"])
    for item in demo_corpus["test"]:
        assert is_distinguishing(greedy(item.domain), item.domain), item.id
        ia = incremental(item.domain, orders[item.subdomain])
        assert is_distinguishing(ia, item.domain), item.id
        assert ("type", item.domain.target.value_of("type")) in ia


def test_preference_order_learnt_from_demo_train_matches_counts(
    demo_corpus: dict[str, list[Item]],
) -> None:
    orders = learn_preference_order(demo_corpus["train"])
    assert set(orders) == {"furniture", "people"}
    for subdomain, order in orders.items():
        counts: Counter[str] = Counter()
        names: set[str] = set()
        for item in demo_corpus["train"]:
            if item.subdomain != subdomain:
                continue
            names.update(a.name for e in item.domain.entities for a in e.attributes)
            for reference in item.references:
                counts.update({name for name, _ in reference.attribute_set or ()})
        assert set(order) == names
        frequencies = [counts[name] for name in order]
        assert frequencies == sorted(frequencies, reverse=True)
        assert order[0] == "type"
    assert orders["furniture"][1] == "colour"
    # Human-like references favour beards, glasses and hair over clothes.
    people = orders["people"]
    assert people.index("hasGlasses") < people.index("hasShirt")
    assert people.index("hasBeard") < people.index("hasTie")


def test_module_exports() -> None:
    for name in baselines.__all__:
        assert hasattr(baselines, name)


def test_run_baseline_incremental_leaves_each_item_out():
    from stecflow.baselines.systems import run_baseline

    A = EntityAttribute

    def domain(colour):
        return Domain(
            (
                Entity(
                    "e1",
                    True,
                    (A("type", "chair"), A("colour", colour), A("size", "large")),
                ),
                Entity(
                    "e2",
                    False,
                    (A("type", "chair"), A("colour", "blue"), A("size", "small")),
                ),
            )
        )

    # Item a's own reference prefers size; the other two prefer colour.
    items = [
        Item(
            "a",
            domain("red"),
            "furniture",
            references=(Reference(attribute_set=frozenset({("size", "large")})),),
        ),
        Item(
            "b",
            domain("red"),
            "furniture",
            references=(Reference(attribute_set=frozenset({("colour", "red")})),),
        ),
        Item(
            "c",
            domain("green"),
            "furniture",
            references=(Reference(attribute_set=frozenset({("colour", "green")})),),
        ),
    ]
    outputs = run_baseline("incremental", items)
    assert [sorted(o.attribute_set) for o in outputs] == [
        [("colour", "red"), ("type", "chair")],  # learnt from b and c: colour first
        [
            ("colour", "red"),
            ("type", "chair"),
        ],  # from a (size) and c (colour): tie -> canonical order
        [("colour", "green"), ("type", "chair")],
    ]
    assert outputs[0].word_string == "the red chair"
    fb = run_baseline("full-brevity", items, word_strings=False)
    assert fb[0].word_string is None and len(fb[0].attribute_set) == 1
    with pytest.raises(ValueError, match="unknown baseline 'random'"):
        run_baseline("random", items)

"""Control trials: placement by the design, degraded and gold texts (issue 17)."""

from __future__ import annotations

import pytest

from stecflow.data.model import Domain, Entity, EntityAttribute, Item, Reference
from stecflow.metrics.distinguishing import is_unique
from stecflow.studies.controls import (
    control_texts,
    degrade_text,
    degraded_span_length,
    gold_description,
)
from stecflow.studies.designs import latin_square_design
from stecflow.studies.designs.checks import DesignError
from stecflow.studies.designs.controls import (
    CONTROL_SYSTEM,
    add_controls,
    control_positions,
)

ITEMS = [f"i{n:02d}" for n in range(1, 17)]


def _design(seed: int = 7):
    return latin_square_design(["a/x", "b/y"], ITEMS, subjects=2, seed=seed)


def test_same_count_per_list_spread_not_first_last_or_adjacent() -> None:
    design = add_controls(_design(), kind="degraded", per_list=3)
    for _, rows in design.trials.groupby("list"):
        rows = rows.sort_values("order")
        flags = rows["control"].notna().tolist()
        assert sum(flags) == 3
        assert not flags[0] and not flags[-1]
        assert not any(a and b for a, b in zip(flags, flags[1:], strict=False))
        assert rows["order"].tolist() == list(range(1, len(rows) + 1))
        assert set(rows.loc[rows["control"].notna(), "system"]) == {CONTROL_SYSTEM}
        # one control in each third of the 19 trials
        positions = [i + 1 for i, f in enumerate(flags) if f]
        assert [(p - 1) * 3 // 19 for p in positions] == [0, 1, 2]
    assert len(design.trials) == 2 * (16 + 3)


def test_placement_deterministic_and_seeded() -> None:
    one = add_controls(_design(), kind="gold", per_list=2).trials
    two = add_controls(_design(), kind="gold", per_list=2).trials
    assert one.equals(two)
    other = add_controls(_design(8), kind="gold", per_list=2).trials
    assert not one[["list", "order", "control"]].equals(
        other[["list", "order", "control"]]
    )
    assert control_positions(10, 2, 1, "L01") == control_positions(10, 2, 1, "L01")


def test_too_many_controls_refused() -> None:
    with pytest.raises(DesignError, match="at least 20 test trials"):
        add_controls(_design(), kind="degraded", per_list=10)


def test_span_length_table_and_degraded_text() -> None:
    assert [degraded_span_length(n) for n in (1, 3, 7, 12, 18, 24)] == [
        1,
        2,
        3,
        4,
        5,
        6,
    ]
    text = degrade_text(
        "the large red chair facing left", ["the old man with glasses"], 1, "t1"
    )
    assert text == "old man with chair facing left"
    assert (
        degrade_text("a b", ["a b"], 1, "t") is None
    )  # the only donor span is the same


def _entity(eid: str, target: bool, **attrs: str) -> Entity:
    return Entity(eid, target, tuple(EntityAttribute(k, v) for k, v in attrs.items()))


def test_gold_description_is_unique_in_domain() -> None:
    domain = Domain(
        (
            _entity("e1", True, type="chair", colour="red", size="large"),
            _entity("e2", False, type="chair", colour="red", size="small"),
            _entity("e3", False, type="desk", colour="red", size="large"),
        )
    )
    ambiguous = Reference(
        "the red chair", frozenset({("type", "chair"), ("colour", "red")})
    )
    item = Item("t1", domain, "furniture", references=(ambiguous,))
    text = gold_description(item)
    assert text == "the large red chair"  # the reference is ambiguous: realised
    target = domain.target.attribute_set
    others = [d.attribute_set for d in domain.distractors]
    assert is_unique(
        frozenset({("type", "chair"), ("size", "large")}) | {("colour", "red")},
        target,
        others,
    )
    good = Reference("the big chair", frozenset({("type", "chair"), ("size", "large")}))
    assert (
        gold_description(Item("t1", domain, "furniture", references=(good,)))
        == "the big chair"
    )
    twin = Domain((_entity("e1", True, type="fan"), _entity("e2", False, type="fan")))
    assert gold_description(Item("t2", twin, "furniture")) is None
    texts = control_texts("gold", [item, Item("t2", twin, "furniture")], {}, seed=1)
    assert texts == {"t1": "the large red chair"}

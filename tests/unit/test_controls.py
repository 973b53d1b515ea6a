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


def _rows(session, ratings, controls, rt=1500.0, answered=None):
    out = []
    for order, (rating, control) in enumerate(
        zip(ratings, controls, strict=True), start=1
    ):
        out.append(
            {
                "session": session,
                "participant": session,
                "list": "L01",
                "order": order,
                "practice": False,
                "control": control,
                "adequacy": rating,
                "correct": None,
                "rt_ms": rt,
            }
        )
    return out[:answered] if answered else out


def test_exclusion_rules_hand_computed() -> None:
    from stecflow.judgments.exclusions import exclusion_audit

    controls = [None, None, "degraded", None, None, "degraded", None]
    attentive = _rows("s1", [70, 80, 20, 60, 90, 30, 75], controls)
    # straight-liner: every rating 50 -> degraded not below own median (50)
    lazy = _rows("s2", [50] * 7, controls, rt=400.0, answered=6)
    rules = [
        {"name": "attention", "controls_below": 0.5},
        {"name": "fast", "median_time_below_ms": 800},
        {"name": "unfinished", "incomplete": True},
        {"name": "colour", "answer": {"field": "demo.colour_vision", "in": ["no"]}},
    ]
    sessions = [
        {"session": "s1", "demo.colour_vision": "yes"},
        {"session": "s2", "demo.colour_vision": "no"},
    ]
    audit = exclusion_audit(
        attentive + lazy, rules, list_sizes={"L01": 7}, sessions=sessions
    )
    table = {
        (r["session"], r["rule"]): (r["value"], r["threshold"], r["excluded"])
        for r in audit
    }
    # s1: median of 70, 80, 60, 90, 75 = 75; 20 and 30 below -> 2/2 = 1
    assert table["s1", "attention"] == ("1", "0.5", 0)
    assert table["s2", "attention"] == ("0", "0.5", 1)
    assert table["s1", "fast"] == ("1500", "800", 0)
    assert table["s2", "fast"] == ("400", "800", 1)
    assert table["s2", "unfinished"] == ("6", "7", 1)
    assert table["s1", "unfinished"] == ("7", "7", 0)
    assert table["s2", "colour"] == ("no", "no", 1)
    assert table["s1", "colour"] == ("yes", "no", 0)
    reasons = {(r["session"], r["rule"]): r["reason"] for r in audit}
    assert reasons["s1", "attention"] == (
        "2 of 2 control trials passed (at least 50% required)"
    )
    assert reasons["s2", "attention"] == (
        "0 of 2 control trials passed (at least 50% required)"
    )
    assert reasons["s2", "fast"] == "median 400 ms against a minimum of 800 ms"
    assert reasons["s2", "unfinished"] == "6 of 7 test trials answered (all required)"
    assert reasons["s2", "colour"] == (
        "answered demo.colour_vision with no (excluding: no)"
    )


def test_gold_controls_and_cut() -> None:
    from stecflow.judgments.exclusions import exclusion_audit

    rows = [
        {
            "session": "s",
            "participant": "p",
            "list": "L",
            "order": i,
            "practice": False,
            "control": "gold",
            "correct": c,
            "rt_ms": 1000,
        }
        for i, c in enumerate([True, False, True, True], start=1)
    ]
    audit = exclusion_audit(
        rows, [{"name": "g", "controls_below": 0.8}], list_sizes={"L": 4}
    )
    assert (audit[0]["value"], audit[0]["excluded"]) == ("0.75", 1)
    assert audit[0]["reason"] == (
        "3 of 4 control trials passed (at least 80% required)"
    )


def test_apply_exclusions_flags_every_row() -> None:
    import pandas as pd

    from stecflow.judgments.exclusions import apply_exclusions

    frame = pd.DataFrame(
        {
            "participant": ["a", "a", "b"],
            "session": ["1", "1", "2"],
            "excluded": [False, True, False],
            "exclusion_reason": [None, "duplicate", None],
        }
    )
    audit = [
        {"participant": "a", "rule": "attention", "excluded": 1},
        {"participant": "b", "rule": "attention", "excluded": 0},
    ]
    out = apply_exclusions(frame, audit)
    assert out["excluded"].tolist() == [True, True, False]
    assert out["exclusion_reason"].tolist()[:2] == [
        "rule:attention",
        "duplicate; rule:attention",
    ]


def test_controls_config_checked() -> None:
    from stecflow.core.errors import ConfigError
    from stecflow.studies.setup import study_specs

    base = {"id": "s", "systems": ["a/x", "b/y"], "subjects": 2, "seed": 1}
    [spec] = study_specs(
        {"studies": [{**base, "task": "identification", "controls": {"per_list": 2}}]}
    )
    assert spec["controls"] == {"kind": "gold", "per_list": 2, "share": None}
    with pytest.raises(ConfigError, match="takes degraded control trials, not gold"):
        study_specs(
            {
                "studies": [
                    {
                        **base,
                        "task": "rating",
                        "controls": {"kind": "gold", "per_list": 1},
                    }
                ]
            }
        )
    with pytest.raises(ConfigError, match="per_list .* or share"):
        study_specs({"studies": [{**base, "task": "rating", "controls": {}}]})


def test_exclusion_rules_refused_where_they_would_not_be_applied() -> None:
    from stecflow.core.errors import ConfigError
    from stecflow.studies.setup import study_specs

    base = {"id": "s", "systems": ["a/x", "b/y"], "subjects": 2, "seed": 1}
    rules = [{"name": "fast", "median_time_below_ms": 500}]
    [spec] = study_specs({"studies": [{**base, "task": "rating", "exclusions": rules}]})
    assert spec["exclusions"] == rules
    text = {
        **base,
        "task": "text_rating",
        "criteria": [{"id": "fluency", "question": "How fluent?", "points": 5}],
        "exclusions": rules,
    }
    [spec] = study_specs({"studies": [text]})  # text studies apply them
    assert spec["exclusions"] == rules
    situated = {
        **base,
        "systems": ["a/x"],
        "task": "situated_identification",
        "exclusions": rules,
    }
    [spec] = study_specs({"studies": [situated]})  # time rules apply
    assert spec["exclusions"] == rules
    # but a situated study has no control trials to count
    situated["exclusions"] = [{"name": "attention", "controls_below": 0.5}]
    with pytest.raises(ConfigError, match="has no control trials") as err:
        study_specs({"studies": [situated]})
    assert err.value.field == "studies[0].exclusions"


def test_text_controls_config_checked() -> None:
    from stecflow.core.errors import ConfigError
    from stecflow.studies.setup import study_specs

    base = {"id": "s", "systems": ["a/x", "b/y"], "subjects": 2, "seed": 1}
    criteria = [{"id": "fluency", "question": "How fluent?", "points": 5}]
    rating = {**base, "task": "text_rating", "criteria": criteria}
    [spec] = study_specs({"studies": [{**rating, "controls": {"share": 0.1}}]})
    assert spec["controls"] == {"kind": "degraded", "per_list": None, "share": 0.1}
    preference = {**base, "task": "text_preference", "criteria": criteria}
    [spec] = study_specs({"studies": [{**preference, "controls": {"per_list": 1}}]})
    assert spec["controls"]["kind"] == "degraded"  # a text against its copy
    with pytest.raises(ConfigError, match="takes degraded control trials, not gold"):
        study_specs(
            {"studies": [{**preference, "controls": {"kind": "gold", "per_list": 1}}]}
        )

"""System properties in system.yaml, checked against the campaign's declaration."""

from __future__ import annotations

import pytest

from stecflow.data.corpus import read_items
from stecflow.submissions.validation import validate_submission

TASKS = ["end_to_end", "attribute_selection"]
DECLARED = {
    "incremental": "boolean",
    "trainable": "boolean",
    "beam": "integer",
    "uses_type": ["always", "sometimes", "never"],
}


def validate(campaign, properties_yaml: str, declared=DECLARED):
    folder = campaign / "submissions" / "alpha" / "sys1"
    path = folder / "system.yaml"
    path.write_text(path.read_text() + properties_yaml)
    return validate_submission(
        folder,
        read_items(campaign / "testset.xml"),
        team="alpha",
        system="sys1",
        campaign_tasks=TASKS,
        properties=declared,
    )


def test_declared_properties_are_kept_in_the_record(tiny_campaign):
    record = validate(
        tiny_campaign,
        "properties:\n  incremental: true\n  trainable: false\n  beam: 4\n"
        "  uses_type: always\n",
    )
    assert record["status"] == "accepted" and record["warnings"] == []
    assert record["properties"] == {
        "incremental": True,
        "trainable": False,
        "beam": 4,
        "uses_type": "always",
    }


def test_property_problems_name_their_line(tiny_campaign):
    # system.yaml has 11 lines; "properties:" is line 12
    record = validate(
        tiny_campaign,
        "properties:\n  incremental: yes please\n  beam: true\n"
        "  uses_type: often\n  colour: red\n  nested: [1, 2]\n",
    )
    assert record["status"] == "rejected"
    found = [(e["code"], e["line"], e["field"]) for e in record["errors"]]
    assert found == [
        ("bad_property", 13, "properties.incremental"),
        ("bad_property", 14, "properties.beam"),
        ("bad_property", 15, "properties.uses_type"),
        ("unknown_property", 16, "properties.colour"),
        ("unknown_property", 17, "properties.nested"),
    ]
    messages = {e["field"]: e["message"] for e in record["errors"]}
    assert messages["properties.beam"] == "expected a whole number, got true"
    assert messages["properties.uses_type"] == (
        "expected one of always, sometimes, never, got the text 'often'"
    )
    assert (
        "it asks for: incremental, trainable, beam, uses_type"
        in (messages["properties.colour"])
    )
    # trainable is missing: a warning at the properties key, not a rejection
    assert [(w["code"], w["line"], w["field"]) for w in record["warnings"]] == [
        ("missing_property", 12, "properties.trainable")
    ]
    assert record["properties"] == {}


@pytest.mark.parametrize("declared", [None, {}])
def test_properties_the_campaign_does_not_ask_for_are_errors(tiny_campaign, declared):
    record = validate(tiny_campaign, "properties:\n  incremental: true\n", declared)
    assert [(e["code"], e["line"]) for e in record["errors"]] == [
        ("unknown_property", 13)
    ]
    assert "none are declared" in record["errors"][0]["message"]


def test_a_system_without_properties_gets_one_warning_per_declared_one(tiny_campaign):
    record = validate(tiny_campaign, "")
    assert record["status"] == "accepted"
    assert [w["field"] for w in record["warnings"]] == [
        f"properties.{name}" for name in DECLARED
    ]
    assert record["properties"] == {}


def test_a_human_reference_set_need_not_give_properties(tiny_campaign):
    """A reference set has no algorithm: no warning when it gives none; what
    it does give is still checked."""
    folder = tiny_campaign / "submissions" / "alpha" / "sys1"
    path = folder / "system.yaml"
    path.write_text(path.read_text().replace("reference: false", "reference: true"))
    record = validate(tiny_campaign, "")
    assert record["warnings"] == [] and record["errors"] == []
    record = validate(tiny_campaign, "properties:\n  colour: red\n")
    assert [(e["code"], e["line"]) for e in record["errors"]] == [
        ("unknown_property", 13)
    ]

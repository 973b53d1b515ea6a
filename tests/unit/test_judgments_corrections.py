"""Corrections file: reading, checks, application with an audit trail."""

from __future__ import annotations

import pandas as pd
import pytest

from stecflow.data.corpus import read_items
from stecflow.judgments import JudgmentsError
from stecflow.judgments.corrections import (
    CORRECTABLE_FIELDS,
    Correction,
    apply_corrections,
    read_corrections,
)
from stecflow.judgments.design import read_design
from stecflow.judgments.flags import analysis_flags
from stecflow.judgments.importers import read_responses
from stecflow.judgments.merge import merge_with_design
from tests.conftest import FIXTURES

J = FIXTURES / "judgments"
BROKEN = J / "broken"
ITEMS = {
    i.id: i for i in read_items(J / "testset.xml") + read_items(J / "practice.xml")
}


def merged():
    rows = []
    for name in ("server_export.tsv", "id-demo-L02-offline-9c1d2e3f.tsv"):
        rows += read_responses(J / name).rows
    return merge_with_design(
        rows, read_design(J / "design_id.tsv"), study="id-demo", items=ITEMS
    ).trials


def test_read_the_fixture():
    corrections = read_corrections(J / "corrections.tsv")
    assert [c.line for c in corrections] == [4, 5, 6]  # comments skipped
    first = corrections[0]
    assert first == Correction(
        line=4,
        field="chosen_entity",
        new_value="e1",
        reason="participant reported a mis-click right after the trial (lab log, "
        "3 June)",
        study="id-demo",
        session="3f9a0c2be41d7a65",
        order=3,
        old_value="e2",
    )
    assert corrections[1].participant == "P17" and corrections[1].item == "t04"
    assert corrections[1].new_value is True
    assert corrections[2].new_value == 90.0 and corrections[2].study == "rate-demo"


def test_apply_with_audit_trail():
    trials = merged()
    out, report, problems = apply_corrections(
        trials,
        read_corrections(J / "corrections.tsv"),
        study="id-demo",
        source="corrections.tsv",
        items=ITEMS,
    )
    assert len(report) == 2  # the rate-demo row is skipped
    fixed = out[(out["session"] == "3f9a0c2be41d7a65") & (out["order"] == 3)].iloc[0]
    assert fixed["chosen_entity"] == "e1" and fixed["correct"] is True
    assert fixed["choice"] == "e1"
    assert fixed["corrected"] is True
    assert fixed["corrected_fields"] == "chosen_entity"
    assert fixed["original_values"] == "chosen_entity=e2"
    assert fixed["correction_reason"].startswith("participant reported a mis-click")
    dropped = out[(out["session"] == "offline-9c1d2e3f") & (out["item"] == "t04")]
    assert dropped.iloc[0]["excluded"] is True
    assert dropped.iloc[0]["exclusion_reason"] == "correction"
    assert report[0] == {
        "study": "id-demo",
        "corrections_line": 4,
        "session": "3f9a0c2be41d7a65",
        "subject": "5f1c2e7a9b3d4e00aa11b2c3",
        "list": "L01",
        "order": 3,
        "item": "t01",
        "system": "HUMAN-1",
        "field": "chosen_entity",
        "old_value": "e2",
        "new_value": "e1",
        "reason": fixed["correction_reason"],
    }
    assert [p["check"] for p in problems] == ["corrected", "excluded_by_correction"]
    assert problems[0]["source_file"] == "corrections.tsv"
    assert problems[0]["source_line"] == 4
    # The input is not modified; corrected trials leave the time analysis only.
    assert not trials["corrected"].any()
    flags = analysis_flags(out, task="identification")
    assert flags.loc[fixed.name, "in_analysis"]
    assert not flags.loc[fixed.name, "in_time_analysis"]


def test_several_fields_of_one_trial_keep_every_original():
    trials = merged()
    corrections = [
        Correction(
            line=2,
            session="3f9a0c2be41d7a65",
            order=2,
            field="identification_time_ms",
            new_value=3400.0,
            reason="clock",
        ),
        Correction(
            line=3,
            session="3f9a0c2be41d7a65",
            order=2,
            field="cant_tell",
            new_value=True,
            reason="pressed can't tell",
        ),
    ]
    out, report, _ = apply_corrections(trials, corrections, study="id-demo")
    row = out[(out["session"] == "3f9a0c2be41d7a65") & (out["order"] == 2)].iloc[0]
    assert row["corrected_fields"] == "identification_time_ms,cant_tell"
    assert row["original_values"] == ("identification_time_ms=3517.6; cant_tell=false")
    assert row["correction_reason"] == "clock; pressed can't tell"
    assert row["chosen_entity"] is None and row["correct"] is False
    assert row["choice"] == "cant_tell"
    assert [r["old_value"] for r in report] == ["3517.6", "false"]


def test_unmatched_correction_is_an_error_naming_the_line():
    corrections = read_corrections(BROKEN / "corrections_unmatched.tsv")
    with pytest.raises(JudgmentsError) as info:
        apply_corrections(
            merged(), corrections, study="id-demo", source="corrections_unmatched.tsv"
        )
    assert info.value.line == 3
    assert "matches no trial" in str(info.value)
    assert "session 3f9a0c2be41d7a66" in str(info.value)


def test_ambiguous_correction_is_an_error():
    corrections = [
        Correction(
            line=2,
            participant="P17",
            item="t04",
            field="exclude",
            new_value=True,
            reason="x",
        )
    ]
    trials = merged()
    again = trials[trials["participant"] == "P17"].copy()
    again["session"] = "offline-second"
    twice = pd.concat([trials, again], ignore_index=True)
    with pytest.raises(JudgmentsError, match="matches 2 trials"):
        apply_corrections(twice, corrections, study="id-demo")


def test_old_value_guard():
    corrections = read_corrections(BROKEN / "corrections_wrong_old_value.tsv")
    with pytest.raises(JudgmentsError) as info:
        apply_corrections(merged(), corrections, study="id-demo")
    assert info.value.field == "old_value"
    assert "'e3' is not the trial's value 'e2'" in str(info.value)


def test_entity_must_be_in_the_domain():
    corrections = [
        Correction(
            line=2,
            session="3f9a0c2be41d7a65",
            order=3,
            field="chosen_entity",
            new_value="e9",
            reason="x",
        )
    ]
    with pytest.raises(JudgmentsError, match="e9 is not in the domain of t01"):
        apply_corrections(merged(), corrections, study="id-demo", items=ITEMS)


@pytest.mark.parametrize(
    ("text", "field", "message"),
    [
        (
            "study\tsession\torder\tfield\tnew_value\treason\n"
            "id-demo\ts\t3\tchosen\te1\tm\n",
            "field",
            "'chosen' cannot be corrected",
        ),
        ("session\torder\tfield\tnew_value\treason\tnote\n", "note", "unknown column"),
        ("session\torder\tfield\tnew_value\n", "reason", "no reason column"),
        ("order\tfield\tnew_value\treason\n", "session", "no session or participant"),
        ("session\tfield\tnew_value\treason\n", "order", "no order or item"),
        (
            "session\torder\tfield\tnew_value\treason\ns\t3\tadequacy\t150\tm\n",
            "new_value",
            "outside 0-100",
        ),
        (
            "session\torder\tfield\tnew_value\treason\ns\tthird\tadequacy\t50\tm\n",
            "order",
            "not a number",
        ),
        (
            "session\torder\tfield\tnew_value\treason\ns\t3\tadequacy\t50\t\n",
            "reason",
            "give the reason",
        ),
        (
            "session\torder\tfield\tnew_value\treason\n\t3\tadequacy\t50\tm\n",
            "session",
            "give the session or the participant",
        ),
        (
            "session\torder\tfield\tnew_value\treason\ns\t3\texclude\tfalse\tm\n",
            "new_value",
            "exclude takes new_value true",
        ),
        (
            "session\torder\tfield\tnew_value\treason\ns\t3\tfluency\t50\tm\n"
            "s\t3\tfluency\t60\tm\n",
            "field",
            "corrected on line 2",
        ),
    ],
)
def test_malformed_corrections(tmp_path, text, field, message):
    path = tmp_path / "corrections.tsv"
    path.write_text(text)
    with pytest.raises(JudgmentsError) as info:
        read_corrections(path)
    assert info.value.field == field
    assert message in str(info.value)
    assert str(path) in str(info.value)


def test_fixture_with_unknown_field():
    with pytest.raises(JudgmentsError) as info:
        read_corrections(BROKEN / "corrections_unknown_field.tsv")
    assert (info.value.line, info.value.field) == (2, "field")


def test_csv_corrections_and_empty_file(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("participant,item,field,new_value,reason\nP17,t02,fluency,55,x\n")
    [c] = read_corrections(path)
    assert (c.participant, c.item, c.new_value) == ("P17", "t02", 55.0)
    path.write_text("# nothing to correct yet\n")
    assert read_corrections(path) == []


def test_correctable_fields_are_documented():
    text = (FIXTURES.parent.parent / "docs" / "judgments.md").read_text()
    for name in CORRECTABLE_FIELDS:
        assert f"`{name}`" in text

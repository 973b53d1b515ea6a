from __future__ import annotations

import json
import shutil

import pytest

from stecflow.core.io import iter_json_records, read_tsv
from stecflow.data.corpus import read_items
from stecflow.submissions.outputs import read_outputs
from stecflow.submissions.report import format_report, write_validation
from stecflow.submissions.summary import summarise_validation
from stecflow.submissions.validation import validate_submission

TASKS = ["end_to_end", "attribute_selection"]


@pytest.fixture
def items(tiny_campaign):
    return read_items(tiny_campaign / "testset.xml")


def run(tiny_campaign, items, team, system, **kw):
    return validate_submission(
        tiny_campaign / "submissions" / team / system,
        items,
        team=team,
        system=system,
        campaign_tasks=kw.pop("tasks", TASKS),
        deadline=kw.pop("deadline", "2026-06-01T23:59:59Z"),
    )


def codes(record):
    return [(e["code"], e["line"], e["field"]) for e in record["errors"]]


def test_valid_submission_is_accepted(tiny_campaign, items):
    record = run(tiny_campaign, items, "alpha", "sys1")
    assert record["status"] == "accepted"
    assert record["errors"] == [] and record["n_outputs"] == 4
    assert record["late"] is False and record["primary"] is True
    assert len(record["checksums"]["outputs.xml"]) == 64


def test_late_submission_is_accepted_and_marked(tiny_campaign, items):
    record = run(tiny_campaign, items, "beta", "sys2")
    assert record["status"] == "accepted" and record["late"] is True
    assert run(tiny_campaign, items, "beta", "sys2", deadline=None)["late"] is False


def test_broken_submission_lists_every_problem(tiny_campaign, items):
    record = run(tiny_campaign, items, "gamma", "broken")
    assert record["status"] == "rejected"
    assert codes(record) == [
        ("incomplete_metadata", None, "contact"),
        ("bad_metadata", 4, "primary"),
        ("bad_metadata", 6, "tasks[1]"),
        ("task_not_run", None, "tasks"),
        ("undecodable", 13, None),
        ("xml_syntax", 17, None),
        ("xml_syntax", 18, None),
        ("duplicate_item", 9, "TRIAL t2"),
        ("unknown_item", 12, "TRIAL t9"),
        ("missing_item", None, "TRIAL t4"),
    ]
    assert all(e["file"].startswith("gamma/broken/") for e in record["errors"])
    # an empty description is a bad output, not a broken file: a warning
    assert [(w["code"], w["line"]) for w in record["warnings"]] == [("empty_string", 7)]


def test_values_and_attributes_must_exist_in_the_domain(items):
    data = b"""<OUTPUTS>
<TRIAL ID="t1"><ATTRIBUTE-SET><ATTRIBUTE NAME="colour" VALUE="purple"/><ATTRIBUTE NAME="hasTail" VALUE="1"/></ATTRIBUTE-SET><WORD-STRING>x</WORD-STRING></TRIAL>
<TRIAL ID="t2"><WORD-STRING>the desk</WORD-STRING></TRIAL>
<TRIAL ID="t3"><ATTRIBUTE-SET/><WORD-STRING>a</WORD-STRING><NOTE>hi</NOTE></TRIAL>
<TRIAL ID="t4"><ATTRIBUTE-SET><ATTRIBUTE NAME="age" VALUE="young"/></ATTRIBUTE-SET><WORD-STRING>b</WORD-STRING></TRIAL>
</OUTPUTS>"""
    outputs, problems = read_outputs(data, "o.xml", items, TASKS)
    found = [(p.code, p.line, p.severity) for p in problems]
    assert found == [
        ("unknown_value", 2, "error"),
        ("unknown_attribute", 2, "error"),
        ("missing_output", 3, "error"),
        ("empty_attribute_set", 4, "error"),
        ("unexpected_element", 4, "warning"),
    ]
    assert "values there: blue, red" in problems[0].message
    assert [o.item_id for o in outputs] == ["t1", "t2", "t3", "t4"]
    assert outputs[3].attribute_set == {("age", "young")}


def test_word_strings_only_task_needs_no_attribute_set(items):
    data = b'<OUTPUTS><TRIAL ID="t1"><WORD-STRING>a</WORD-STRING></TRIAL></OUTPUTS>'
    _, problems = read_outputs(data, "o.xml", items[:1], ["end_to_end"])
    assert problems == []


def test_missing_files_and_bad_names(tiny_campaign, items):
    folder = tiny_campaign / "submissions" / "alpha" / "sys1"
    (folder / "outputs.xml").rename(folder / "output.txt")
    (folder / "system.yaml").unlink()
    record = run(tiny_campaign, items, "alpha", "sys1")
    assert [e["code"] for e in record["errors"]] == [
        "missing_metadata",
        "missing_outputs",
    ]
    assert "the folder has: output.txt" in record["errors"][1]["message"]


def test_metadata_must_match_folder_and_be_decodable(tiny_campaign, items):
    folder = tiny_campaign / "submissions" / "alpha" / "sys1"
    text = (folder / "system.yaml").read_text().replace("system: sys1", "system: other")
    (folder / "system.yaml").write_text(text)
    record = run(tiny_campaign, items, "alpha", "sys1")
    assert codes(record) == [("metadata_mismatch", 2, "system")]
    (folder / "system.yaml").write_bytes(b"team: alpha\ndescription: caf\xe9\n")
    record = run(tiny_campaign, items, "alpha", "sys1")
    assert codes(record) == [("undecodable", 2, None)]


def test_unquoted_timestamp_is_accepted(tiny_campaign, items):
    folder = tiny_campaign / "submissions" / "alpha" / "sys1"
    text = (folder / "system.yaml").read_text()
    (folder / "system.yaml").write_text(
        text.replace("'2026-05-01T10:00:00Z'", "2026-06-03T10:00:00Z")
    )
    record = run(tiny_campaign, items, "alpha", "sys1")
    assert record["status"] == "accepted" and record["late"] is True


def test_reports_and_summary_are_deterministic(tiny_campaign, items, tmp_path):
    paths = []
    for team, system in [("alpha", "sys1"), ("gamma", "broken")]:
        record = run(tiny_campaign, items, team, system)
        json_path = tmp_path / f"{team}.json"
        write_validation(record, json_path, tmp_path / f"{team}.md")
        paths.append(json_path)
    first = (tmp_path / "gamma.json").read_bytes()
    write_validation(
        run(tiny_campaign, items, "gamma", "broken"),
        tmp_path / "again.json",
        tmp_path / "again.md",
    )
    assert (tmp_path / "again.json").read_bytes() == first
    assert str(tiny_campaign) not in first.decode()  # no absolute paths
    md = (tmp_path / "gamma.md").read_text()
    assert (
        "**Status: REJECTED**" in md
        and "| gamma/broken/outputs.xml | 12 | TRIAL t9 |" in md
    )
    rows = summarise_validation(
        paths,
        [["bad team/x", "folder names may use only"]],
        tmp_path / "s.tsv",
        tmp_path / "records.jsonl",
    )
    # every record, one a line in the order given, read back as its own file
    lines = (tmp_path / "records.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in lines] == [
        json.loads(p.read_text()) for p in paths
    ]
    assert [r["team"] for r in iter_json_records([tmp_path / "records.jsonl"])] == [
        "alpha",
        "gamma",
    ]
    table = read_tsv(tmp_path / "s.tsv")
    assert [(r["team"], r["status"]) for r in table] == [
        ("alpha", "accepted"),
        ("bad team", "unreadable"),
        ("gamma", "rejected"),
    ]
    assert (
        table[2]["first_error"]
        == "gamma/broken/system.yaml, contact: required field is missing"
    )
    assert len(rows) == 3


def test_markdown_escapes_table_cells():
    record = {
        "team": "t",
        "system": "s",
        "status": "rejected",
        "late": False,
        "n_items": 1,
        "n_outputs": 0,
        "errors": [{"file": "f", "line": 1, "field": "a|b", "message": "x|y\nz"}],
        "warnings": [],
    }
    assert "| f | 1 | a\\|b | x\\|y z |" in format_report(record)


def test_submission_folder_copy_validates_the_same(tiny_campaign, items, tmp_path):
    copy = tmp_path / "alpha" / "sys1"
    shutil.copytree(tiny_campaign / "submissions" / "alpha" / "sys1", copy)
    record = validate_submission(
        copy, items, team="alpha", system="sys1", campaign_tasks=TASKS
    )
    assert record == run(tiny_campaign, items, "alpha", "sys1", deadline=None)

"""A corrected resubmission supersedes its earlier version, or stands beside it.

Seed 002 (§2, Table 1) shows both versions of IS-FBS side by side (the buggy one
marked *IS-FBS); seed 003 (§2) analyses the corrected version only. In stecflow both
stand by default; ``supersedes: <system>`` in the corrected one's system.yaml keeps
the earlier system scored and shown, marked superseded, out of the ranking and the
statistics (issue #12, point 6c).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from stecflow.campaign import analysed_submissions, superseded_submissions
from stecflow.core.io import read_tsv
from stecflow.data.corpus import read_items
from stecflow.submissions.report import format_report, write_validation
from stecflow.submissions.summary import summarise_validation
from stecflow.submissions.validation import validate_submission

TASKS = ["end_to_end", "attribute_selection"]
DEADLINE = "2026-06-01T23:59:59Z"


def resubmit(campaign: Path, team: str, earlier: str, system: str, **meta) -> Path:
    """Copy *earlier* as a new system of the same team, with extra metadata."""
    root = campaign / "submissions" / team
    shutil.copytree(root / earlier, root / system)
    path = root / system / "system.yaml"
    data = yaml.safe_load(path.read_text())
    data.update({"system": system, **meta})
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return root / system


def validate(campaign: Path, team: str, system: str) -> dict:
    return validate_submission(
        campaign / "submissions" / team / system,
        read_items(campaign / "testset.xml"),
        team=team,
        system=system,
        campaign_tasks=TASKS,
        deadline=DEADLINE,
    )


def test_supersedes_an_earlier_system_of_the_team(tiny_campaign):
    resubmit(tiny_campaign, "alpha", "sys1", "sys1-fixed", supersedes="sys1")
    record = validate(tiny_campaign, "alpha", "sys1-fixed")
    assert record["status"] == "accepted" and record["errors"] == []
    assert record["supersedes"] == "sys1"
    assert "- supersedes: alpha/sys1" in format_report(record)
    # without the key, a resubmission stands beside the earlier one
    resubmit(tiny_campaign, "alpha", "sys1", "sys1-beside")
    assert validate(tiny_campaign, "alpha", "sys1-beside")["supersedes"] is None


@pytest.mark.parametrize(
    ("supersedes", "message"),
    [
        ("sys9", "team alpha has no system 'sys9' to supersede"),
        ("sys2", "team alpha has no system 'sys2' to supersede"),  # beta's system
        ("sys1-fixed", "a system cannot supersede itself"),
    ],
)
def test_supersedes_must_name_another_system_of_the_same_team(
    tiny_campaign, supersedes, message
):
    resubmit(tiny_campaign, "alpha", "sys1", "sys1-fixed", supersedes=supersedes)
    record = validate(tiny_campaign, "alpha", "sys1-fixed")
    assert record["status"] == "rejected" and record["supersedes"] is None
    assert [(e["code"], e["field"]) for e in record["errors"]] == [
        ("bad_supersedes", "supersedes")
    ]
    assert record["errors"][0]["message"].startswith(message)
    assert record["errors"][0]["file"] == "alpha/sys1-fixed/system.yaml"


def test_supersedes_must_be_an_id(tiny_campaign):
    resubmit(tiny_campaign, "alpha", "sys1", "sys1-fixed", supersedes="../beta/sys2")
    record = validate(tiny_campaign, "alpha", "sys1-fixed")
    assert [(e["code"], e["field"]) for e in record["errors"]] == [
        ("bad_metadata", "supersedes")
    ]


def test_summary_shows_the_superseded_system(tiny_campaign, tmp_path):
    resubmit(tiny_campaign, "alpha", "sys1", "sys1-fixed", supersedes="sys1")
    paths = []
    for team, system in [("alpha", "sys1"), ("alpha", "sys1-fixed"), ("beta", "sys2")]:
        record = validate(tiny_campaign, team, system)
        paths.append(tmp_path / f"{system}.json")
        write_validation(record, paths[-1], tmp_path / f"{system}.md")
    summarise_validation(paths, [], tmp_path / "summary.tsv")
    rows = {r["system"]: r for r in read_tsv(tmp_path / "summary.tsv")}
    assert rows["sys1"]["superseded_by"] == "sys1-fixed"
    assert rows["sys1"]["status"] == "accepted"
    assert rows["sys1-fixed"]["supersedes"] == "sys1"
    assert rows["sys1-fixed"]["superseded_by"] == rows["sys2"]["superseded_by"] == ""


def test_superseded_and_late_systems_stay_out_of_the_statistics(tiny_campaign):
    root = tiny_campaign / "submissions"
    resubmit(tiny_campaign, "alpha", "sys1", "sys1-fixed", supersedes="sys1")
    # a name that is not a system of the same team supersedes nothing
    resubmit(tiny_campaign, "alpha", "sys1", "sys1-odd", supersedes="sys2")
    found = [
        ("alpha", "sys1"),
        ("alpha", "sys1-fixed"),
        ("alpha", "sys1-odd"),
        ("beta", "sys2"),
    ]
    assert superseded_submissions(root, found) == {("alpha", "sys1"): "sys1-fixed"}
    assert analysed_submissions(root, found, DEADLINE) == (
        ("alpha", "sys1-fixed"),
        ("alpha", "sys1-odd"),
    )  # beta/sys2 is late
    assert analysed_submissions(root, found, DEADLINE, include_late=True) == (
        ("alpha", "sys1-fixed"),
        ("alpha", "sys1-odd"),
        ("beta", "sys2"),
    )
    # standing beside it (no key): both are analysed
    assert analysed_submissions(root, found[:1] + found[2:], DEADLINE) == (
        ("alpha", "sys1"),
        ("alpha", "sys1-odd"),
    )

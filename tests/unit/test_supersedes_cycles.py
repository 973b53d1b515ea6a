"""``supersedes:`` loops and forks (issue #38, point 2).

``a`` supersedes ``b`` and ``b`` supersedes ``a``: both were accepted without a
word, both marked superseded, and the team disappeared from
``scores/analysed.tsv``. A cycle is an error naming its files, none of its
systems counts as superseded (the team stays); two systems superseding the same
one get a warning.
"""

from __future__ import annotations

import json

from stecflow.campaign import analysed_submissions, superseded_submissions
from stecflow.core.io import read_tsv
from stecflow.submissions.report import write_validation
from stecflow.submissions.summary import summarise_validation
from stecflow.submissions.supersession import supersession
from tests.unit.test_supersedes import DEADLINE, resubmit, validate


def summarise(campaign, tmp_path, pairs):
    paths = []
    for team, system in pairs:
        record = validate(campaign, team, system)
        assert record["status"] == "accepted", record["errors"]
        paths.append(tmp_path / f"{team}-{system}.json")
        write_validation(record, paths[-1], tmp_path / f"{team}-{system}.md")
    summarise_validation(
        paths, [], tmp_path / "summary.tsv", tmp_path / "records.jsonl"
    )
    rows = {(r["team"], r["system"]): r for r in read_tsv(tmp_path / "summary.tsv")}
    lines = (tmp_path / "records.jsonl").read_text().splitlines()
    records = {(r["team"], r["system"]): r for r in map(json.loads, lines)}
    return rows, records


def test_a_cycle_is_an_error_naming_both_files_and_the_team_stays(
    tiny_campaign, tmp_path
):
    root = tiny_campaign / "submissions"
    resubmit(tiny_campaign, "alpha", "sys1", "a", supersedes="b")
    resubmit(tiny_campaign, "alpha", "sys1", "b", supersedes="a")
    (root / "alpha" / "sys1").rename(root / "alpha" / "zz-unrelated")
    found = [("alpha", "a"), ("alpha", "b"), ("beta", "sys2")]
    assert superseded_submissions(root, found) == {}
    assert analysed_submissions(root, found, DEADLINE, include_late=True) == (
        ("alpha", "a"),
        ("alpha", "b"),
        ("beta", "sys2"),
    )
    rows, records = summarise(tiny_campaign, tmp_path, found)
    message = (
        "alpha/a/system.yaml supersedes b and alpha/b/system.yaml supersedes a: a"
        " cycle, so neither counts as superseded; remove the key from the"
        " system.yaml of the system that is not the correction"
    )
    for system in ("a", "b"):
        row = rows[("alpha", system)]
        assert row["superseded_by"] == ""
        assert (
            row["first_error"] == f"alpha/{system}/system.yaml, supersedes: {message}"
        )
        assert row["n_errors"] == "1"
        record = records[("alpha", system)]
        assert [(e["code"], e["field"], e["message"]) for e in record["errors"]] == [
            ("supersedes_cycle", "supersedes", message)
        ]
        assert record["n_errors"] == 1
    assert records[("beta", "sys2")]["errors"] == []


def test_a_longer_cycle_is_found_and_a_system_outside_it_still_supersedes():
    claims = {
        ("t", "a"): "b",
        ("t", "b"): "c",
        ("t", "c"): "a",
        ("t", "d"): "a",  # d corrects a, which is in the cycle
        ("t", "e"): None,
    }
    found = supersession(claims)
    assert found.cycles == (("t", ("a", "b", "c")),)
    assert found.superseded == {("t", "a"): ("d",)}
    assert found.cycle_message("t", ("a", "b", "c")).startswith(
        "t/a/system.yaml supersedes b, t/b/system.yaml supersedes c and"
        " t/c/system.yaml supersedes a: a cycle, so none of them counts"
    )
    # a chain is no cycle: both earlier systems are superseded
    chain = supersession({("t", "a"): None, ("t", "b"): "a", ("t", "c"): "b"})
    assert chain.cycles == () and chain.forks == {}
    assert chain.superseded == {("t", "a"): ("b",), ("t", "b"): ("c",)}


def test_a_fork_is_a_warning_on_both_systems(tiny_campaign, tmp_path):
    root = tiny_campaign / "submissions"
    resubmit(tiny_campaign, "alpha", "sys1", "fix-1", supersedes="sys1")
    resubmit(tiny_campaign, "alpha", "sys1", "fix-2", supersedes="sys1")
    found = [("alpha", "fix-1"), ("alpha", "fix-2"), ("alpha", "sys1")]
    assert superseded_submissions(root, found) == {("alpha", "sys1"): "fix-1,fix-2"}
    rows, records = summarise(tiny_campaign, tmp_path, found)
    assert rows[("alpha", "sys1")]["superseded_by"] == "fix-1,fix-2"
    for system in ("fix-1", "fix-2"):
        record = records[("alpha", system)]
        assert record["status"] == "accepted" and record["errors"] == []
        fork = [w for w in record["warnings"] if w["code"] == "supersedes_fork"]
        assert [(w["file"], w["field"]) for w in fork] == [
            (f"alpha/{system}/system.yaml", "supersedes")
        ]
        assert fork[0]["message"].startswith(
            "alpha/fix-1/system.yaml and alpha/fix-2/system.yaml both supersede"
            " sys1: sys1 is left out of the ranking and the statistics"
        )
        assert rows[("alpha", system)]["first_error"] == ""

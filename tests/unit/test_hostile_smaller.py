"""The smaller breakages of issue #38, point 7, each with its test.

Two ``primary: true`` systems of one team, team folders equal but for case
(``Team-Q`` and ``team-q``), a generic CSV of judgments without its ``system``
column, ``outputs.xml`` as a FIFO or a folder, and ``stecflow validate
--config`` on a system folder that the workflow lists as unreadable.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from stecflow import cli
from stecflow.core.io import read_tsv
from stecflow.data.corpus import read_items
from stecflow.judgments import JudgmentsError
from stecflow.judgments.importers import read_responses
from stecflow.submissions.report import write_validation
from stecflow.submissions.summary import summarise_validation
from stecflow.submissions.validation import validate_submission
from tests.conftest import FIXTURES, TINY

TASKS = ["end_to_end", "attribute_selection"]


def validate(campaign, team, system):
    return validate_submission(
        campaign / "submissions" / team / system,
        read_items(campaign / "testset.xml"),
        team=team,
        system=system,
        campaign_tasks=TASKS,
    )


def copy_system(campaign, team, system, new_team, new_system, **meta):
    target = campaign / "submissions" / new_team / new_system
    shutil.copytree(campaign / "submissions" / team / system, target)
    path = target / "system.yaml"
    text = path.read_text()
    text = text.replace(f"team: {team}", f"team: {new_team}")
    text = text.replace(f"system: {system}", f"system: {new_system}")
    for key, value in meta.items():
        text = text.replace(f"{key}: true", f"{key}: {value}")
    path.write_text(text)


def summary_of(campaign, tmp_path, pairs):
    paths = []
    for team, system in pairs:
        record = validate(campaign, team, system)
        paths.append(tmp_path / f"{team}-{system}.json")
        write_validation(record, paths[-1], tmp_path / f"{team}-{system}.md")
    summarise_validation(paths, [], tmp_path / "s.tsv", tmp_path / "r.jsonl")
    lines = (tmp_path / "r.jsonl").read_text().splitlines()
    records = {(r["team"], r["system"]): r for r in map(json.loads, lines)}
    return read_tsv(tmp_path / "s.tsv"), records


def codes(record, code):
    return [(w["file"], w["field"], w["message"]) for w in record["warnings"]
            if w["code"] == code]  # fmt: skip


def test_two_primary_systems_of_one_team_get_a_warning(tiny_campaign, tmp_path):
    copy_system(tiny_campaign, "alpha", "sys1", "alpha", "sys1b")
    pairs = [("alpha", "sys1"), ("alpha", "sys1b"), ("beta", "sys2")]
    _, records = summary_of(tiny_campaign, tmp_path, pairs)
    message = (
        "team alpha marks 2 systems primary: true (alpha/sys1/system.yaml,"
        " alpha/sys1b/system.yaml); a team has one primary system, the one it"
        " ranks by: set primary: false in the others"
    )
    for system in ("sys1", "sys1b"):
        record = records[("alpha", system)]
        assert codes(record, "several_primary") == [
            (f"alpha/{system}/system.yaml", "primary", message)
        ]
        assert record["status"] == "accepted"
    assert codes(records[("beta", "sys2")], "several_primary") == []


def test_team_folders_equal_but_for_case_get_a_warning(tiny_campaign, tmp_path):
    copy_system(tiny_campaign, "alpha", "sys1", "Team-Q", "sys1")
    copy_system(tiny_campaign, "alpha", "sys1", "team-q", "sys1")
    pairs = [("Team-Q", "sys1"), ("alpha", "sys1"), ("team-q", "sys1")]
    rows, records = summary_of(tiny_campaign, tmp_path, pairs)
    for team in ("Team-Q", "team-q"):
        [(file, field, message)] = codes(records[(team, "sys1")], "case_clash")
        assert (file, field) == (f"{team}/sys1", None)
        assert message.startswith(
            "the team folders Team-Q and team-q differ only in upper and lower"
            " case: on a file system that ignores case (macOS, Windows)"
        )
    assert codes(records[("alpha", "sys1")], "case_clash") == []
    # the summary counts the warnings it added
    assert {r["team"]: r["n_warnings"] for r in rows}["team-q"] == str(
        records[("team-q", "sys1")]["n_warnings"]
    )


def test_generic_csv_without_system_or_list_names_the_column(tmp_path):
    source = (FIXTURES / "judgments" / "generic_lab.csv").read_text().splitlines()
    lines = [",".join(p for n, p in enumerate(line.split(",")) if n != 2)
             for line in source]  # fmt: skip
    path = tmp_path / "lab.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(JudgmentsError) as caught:
        read_responses(path, study="id-demo")
    error = caught.value
    assert (error.file, error.line, error.field) == (str(path), 1, "system")
    assert error.message.startswith(
        "no system column, and no list column to find each row's system in the"
        " study's design; add a system column"
    )
    assert error.message.endswith(
        "its header has participant, item, chosen_entity, identification_time_ms,"
        " practice, notes"
    )


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (os.mkfifo, "a named pipe (FIFO)"),
        (os.mkdir, "a folder"),
        (lambda p: os.symlink("nowhere", p), "a symbolic link to nothing"),
    ],
)
def test_outputs_xml_that_is_no_file_gets_a_precise_message(tiny_campaign, make, kind):
    folder = tiny_campaign / "submissions" / "alpha" / "sys1"
    (folder / "outputs.xml").unlink()
    make(folder / "outputs.xml")
    record = validate(tiny_campaign, "alpha", "sys1")
    assert record["status"] == "rejected"
    assert [(e["code"], e["message"]) for e in record["errors"]] == [
        (
            "missing_outputs",
            f"outputs.xml is {kind}, not a file; put the system's outputs in a"
            " regular file named outputs.xml",
        )
    ]


def test_system_yaml_that_is_a_folder_gets_a_precise_message(tiny_campaign):
    folder = tiny_campaign / "submissions" / "alpha" / "sys1"
    (folder / "system.yaml").unlink()
    (folder / "system.yaml").mkdir()
    record = validate(tiny_campaign, "alpha", "sys1")
    assert record["errors"][0]["message"] == (
        "system.yaml is a folder, not a file; put the metadata in a regular file"
        " named system.yaml"
    )


def test_cli_validate_follows_the_workflows_rule_for_linked_folders(
    tiny_campaign, tmp_path, capsys
):
    outside = tmp_path / "elsewhere" / "sys9"
    shutil.copytree(TINY / "submissions" / "alpha" / "sys1", outside)
    team = tiny_campaign / "submissions" / "alpha"
    (team / "sys9").symlink_to(outside)
    config = str(tiny_campaign / "config" / "config.yaml")
    # the workflow's discovery lists it as unreadable ...
    from stecflow.campaign import discover_submissions

    found = discover_submissions(tiny_campaign / "submissions")
    assert ("alpha", "sys9") not in found.submissions
    assert [name for name, _ in found.problems] == ["alpha/sys9"]
    # ... and so does the command line, given the folder or team/system
    for given in (str(team / "sys9"), "alpha/sys9"):
        assert cli.main(["validate", given, "--config", config]) == 2
        err = capsys.readouterr().err
        assert "alpha/sys9: a symbolic link that leads out of the submissions" in err
        assert "put the system folder itself here" in err
    # a link inside the submissions folder is followed, named as the link
    (team / "again").symlink_to(team / "sys1")
    assert cli.main(["validate", "alpha/again", "--config", config]) == 1
    out = capsys.readouterr().out
    # validated as alpha/again, as the workflow does: its system.yaml says sys1
    assert out.startswith("# Validation report: alpha/again\n")
    assert (
        "| alpha/again/system.yaml | 2 | system | says the text 'sys1' but the"
        " folder is named 'again'; make them the same |"
    ) in out


def test_a_late_copy_of_outputs_already_in_gets_a_warning(tiny_campaign, tmp_path):
    """The same outputs file submitted again (a late resubmission without
    supersedes): both submissions are told, the late one says so."""
    copy_system(tiny_campaign, "alpha", "sys1", "alpha", "sys1-late", primary="false")
    meta = tiny_campaign / "submissions" / "alpha" / "sys1-late" / "system.yaml"
    meta.write_text(meta.read_text() + "late: true\n")
    pairs = [("alpha", "sys1"), ("alpha", "sys1-late"), ("beta", "sys2")]
    _, records = summary_of(tiny_campaign, tmp_path, pairs)
    assert records[("alpha", "sys1-late")]["late"] is True
    [(file, field, message)] = codes(
        records[("alpha", "sys1-late")], "identical_outputs"
    )
    assert (file, field) == ("alpha/sys1-late", None)
    assert message == (
        "the outputs are byte for byte those of alpha/sys1 (this one is late): the"
        " same file submitted twice? If this system corrects another, say so with"
        " supersedes in system.yaml; otherwise send this system's own outputs"
    )
    [(_, _, message)] = codes(records[("alpha", "sys1")], "identical_outputs")
    assert message.startswith("the outputs are byte for byte those of alpha/sys1-late:")
    assert codes(records[("beta", "sys2")], "identical_outputs") == []

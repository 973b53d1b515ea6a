from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from stecflow.campaign import (
    OWNER_FILE,
    check_config,
    check_results_owner,
    claim_results,
    discover_submissions,
    late_submissions,
    load_testset,
    results_dir,
)
from stecflow.core.errors import ConfigError
from tests.conftest import REPO


def test_discovery_is_sorted_and_flags_bad_entries(tmp_path):
    for name in [
        "zeta/b",
        "alpha/z",
        "alpha/a",
        "bad team/x",
        ".hidden/x",
        "alpha/.git",
    ]:
        (tmp_path / name).mkdir(parents=True)
    (tmp_path / "README.txt").write_text("x")
    (tmp_path / "alpha" / "notes.txt").write_text("x")
    found = discover_submissions(tmp_path)
    assert found.submissions == (("alpha", "a"), ("alpha", "z"), ("zeta", "b"))
    assert [name for name, _ in found.problems] == [
        "README.txt",
        "alpha/notes.txt",
        "bad team/x",
    ]


def test_missing_root_means_no_submissions(tmp_path):
    assert discover_submissions(tmp_path / "none").submissions == ()


def test_late_submissions_read_when_the_dag_is_built(tmp_path):
    deadline = "2026-06-01T23:59:59Z"
    metadata = {
        ("a", "on-time"): "submitted: '2026-05-01T00:00:00Z'\n",
        ("a", "after"): "submitted: 2026-06-02 00:00:00\n",  # unquoted: UTC
        ("b", "flagged"): "submitted: '2026-05-01T00:00:00Z'\nlate: true\n",
        ("b", "excused"): "submitted: '2026-07-01T00:00:00Z'\nlate: false\n",
        ("c", "broken"): "submitted: [unclosed\n",
        ("c", "binary"): b"\xff\xfe",
        ("c", "missing"): None,
    }
    for (team, system), text in metadata.items():
        folder = tmp_path / team / system
        folder.mkdir(parents=True)
        if isinstance(text, bytes):
            (folder / "system.yaml").write_bytes(text)
        elif text is not None:
            (folder / "system.yaml").write_text(text)
    late = late_submissions(tmp_path, list(metadata), deadline)
    # unreadable files count as on time here: validation rejects them anyway
    assert late == {("a", "after"), ("b", "flagged")}
    assert late_submissions(tmp_path, list(metadata), None) == {("b", "flagged")}
    # read once per build, but again when the file changes (a late re-run)
    (tmp_path / "a" / "on-time" / "system.yaml").write_text("late: true\n")
    assert ("a", "on-time") in late_submissions(tmp_path, list(metadata), deadline)


def test_a_build_reads_what_an_earlier_one_stored(tmp_path, monkeypatch):
    """What one DAG build read of the system.yaml files is stored by file state;
    the next build takes it from the store (the same values and types), and
    reads again only the files that changed."""
    from stecflow.campaign import submissions  # the store is its module state
    from stecflow.data import yamlsafe

    deadline = "2026-06-01T23:59:59Z"
    texts = {
        ("a", "unquoted"): "submitted: 2026-06-02 00:00:00\n",  # a datetime
        ("a", "offset"): "submitted: 2026-06-01T23:00:00-02:00\nlate: false\n",
        ("b", "fixed"): "supersedes: broken\nsubmitted: '2026-05-01T00:00:00Z'\n",
        ("b", "broken"): "submitted: 2026-05-01\n",  # a date
        ("c", "odd"): "submitted: [2026]\nlate: 1\n",  # a list: not stored
    }
    for (team, system), text in texts.items():
        (tmp_path / team / system).mkdir(parents=True)
        (tmp_path / team / system / "system.yaml").write_text(text)
    store = tmp_path / "store" / "at-build.json"
    pairs = list(texts)
    monkeypatch.setattr(submissions, "_READ_AT_BUILD", {})
    monkeypatch.setattr(submissions, "_USED_AT_BUILD", set())
    first = submissions.analysed_submissions(tmp_path, pairs, deadline, store=store)
    # late: unquoted (after the deadline), odd (late: 1); offset says late: false
    assert first == (("a", "offset"), ("b", "fixed"))
    read = dict(submissions._READ_AT_BUILD)
    stored = json.loads(store.read_text())["files"]
    assert len(stored) == 4 and not any("odd" in key for key in stored)
    # a new build: the stored files are not read again, and read as they were
    monkeypatch.setattr(submissions, "_READ_AT_BUILD", {})
    monkeypatch.setattr(submissions, "_USED_AT_BUILD", set())
    loads = []
    load_yaml = yamlsafe.load_yaml
    monkeypatch.setattr(
        yamlsafe, "load_yaml", lambda *a, **k: loads.append(a[1]) or load_yaml(*a, **k)
    )
    again = submissions.analysed_submissions(tmp_path, pairs, deadline, store=store)
    assert again == first and read == submissions._READ_AT_BUILD
    assert [Path(p).parent.name for p in loads] == ["odd"]
    # a changed file is read again
    (tmp_path / "a" / "unquoted" / "system.yaml").write_text("late: false\n")
    monkeypatch.setattr(submissions, "_READ_AT_BUILD", {})
    loads.clear()
    late = submissions.late_submissions(tmp_path, pairs, deadline)
    assert ("a", "unquoted") not in late and len(loads) == 5  # no store: all
    store.write_text("not json")  # a broken store is ignored
    assert submissions.analysed_submissions(tmp_path, pairs, deadline, store=store)


def test_check_config_names_the_key():
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    check_config(config)
    config["campaign"]["deadline"] = "June 1st"
    with pytest.raises(ConfigError) as info:
        check_config(config)
    assert info.value.field == "campaign.deadline"


def test_b5ref_campaign_must_run_attribute_selection():
    config = {"campaign": {"tasks": ["end_to_end"]}, "data": {"format": "b5-ref"}}
    with pytest.raises(ConfigError, match="attribute_selection"):
        check_config(config)


def test_unknown_format():
    with pytest.raises(ConfigError, match="unknown format 'csv'"):
        load_testset("x", "csv")


#: Folder names discovery takes as submissions: any valid ID, up to 64 characters.
GOOD_NAMES = ["a", "a" * 20, "a" * 64, "0123456789", "x" + "-_" * 20, "a-b", "team-1"]
#: Folder names it refuses, each listed as a problem with the reason.
BAD_NAMES = ["a" * 65, "v1.2", "bad team", "équipe", "-lead", "_lead"]


def test_discovery_takes_every_valid_id_and_lists_the_others(tmp_path):
    for name in GOOD_NAMES + BAD_NAMES:
        (tmp_path / "team" / name).mkdir(parents=True)
        (tmp_path / name / "primary").mkdir(parents=True)
    (tmp_path / os.fsdecode(b"caf\xe9") / "primary").mkdir(parents=True)
    found = discover_submissions(tmp_path)
    assert found.submissions == tuple(
        sorted([("team", n) for n in GOOD_NAMES] + [(n, "primary") for n in GOOD_NAMES])
    )
    reason = (
        "folder names may use only letters (a-z, A-Z), digits, '-' and '_', must"
        " start with a letter or digit and have at most 64 characters; rename the"
        " folder"
    )
    expected = sorted(
        [(f"team/{n}", reason) for n in BAD_NAMES]
        + [(f"{n}/primary", reason) for n in BAD_NAMES]
        + [("caf\\xe9/primary", reason)]  # not UTF-8: shown escaped, never dropped
    )
    assert sorted(found.problems) == expected


def test_results_folder_is_normalised_and_never_the_working_directory():
    assert results_dir({"results": "results/b5-ref/"}) == "results/b5-ref"
    assert results_dir({"results": "./out//b5"}) == "out/b5"
    assert results_dir({}) == "results"
    for bad in (".", "./", "..", "../.."):
        with pytest.raises(ConfigError, match="folder of its own") as info:
            results_dir({"results": bad})
        assert info.value.field == "results"


def test_results_folder_belongs_to_the_campaign_that_claimed_it(tmp_path):
    folder = tmp_path / "results"
    check_results_owner(folder, "demo-reg")  # no folder yet: nobody owns it
    claim_results(folder, "demo-reg")
    assert (folder / OWNER_FILE).read_text() == "demo-reg\n"
    claim_results(folder, "demo-reg")  # the same campaign again: fine
    check_results_owner(folder, "demo-reg")
    with pytest.raises(ConfigError) as info:
        check_results_owner(folder, "b5-ref")
    assert str(info.value) == (
        f"{folder}/ holds the outputs of campaign 'demo-reg' ({folder / OWNER_FILE}"
        " says so); campaign 'b5-ref' cannot write there. Set `results:"
        " results/b5-ref` (or another folder of its own) in the config of"
        f" 'b5-ref', or remove {folder}/ if those outputs are no longer wanted"
    )
    with pytest.raises(ConfigError, match="'demo-reg'"):
        claim_results(folder, "b5-ref")
    assert (folder / OWNER_FILE).read_text() == "demo-reg\n"

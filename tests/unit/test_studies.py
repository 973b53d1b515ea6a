from __future__ import annotations

from dataclasses import replace

import pytest

from stecflow.core.errors import ConfigError
from stecflow.core.io import read_json, read_tsv
from stecflow.data.corpus import read_items, write_items
from stecflow.studies.setup import check_studies, design_study, study_specs

SUBMISSIONS = [("alpha", "sys1"), ("beta", "sys2"), ("human", "HUMAN-1")]


def config(**study):
    entry = {
        "id": "s",
        "task": "rating",
        "systems": ["alpha/sys1", "beta/sys2"],
        "subjects": 2,
        "seed": 1,
        "simulate": True,
    }
    return {"studies": [{**entry, **study}]}


def test_defaults_and_variants():
    [spec] = study_specs(config(task="identification"))
    assert spec["variant"] == "together" and spec["practice"] == 0
    with pytest.raises(ConfigError, match="rating studies have no variant"):
        study_specs(config(variant="spoken"))


def test_systems_must_be_submissions():
    check_studies(config(), SUBMISSIONS)
    with pytest.raises(ConfigError) as info:
        check_studies(config(systems=["alpha/sys1", "late/primary"]), SUBMISSIONS)
    assert info.value.field == "studies[0].systems" and "late/primary" in str(
        info.value
    )
    with pytest.raises(ConfigError, match="twice"):
        check_studies(config(systems=["alpha/sys1", "alpha/sys1"]), SUBMISSIONS)


def test_design_study_writes_design_and_balance(tiny_campaign, tmp_path):
    [spec] = study_specs(config(practice=1))
    out = tmp_path / "s"
    testset = tiny_campaign / "testset.xml"
    practice = tmp_path / "dev.xml"
    write_items([replace(i, id=f"dev-{i.id}") for i in read_items(testset)], practice)
    settings = design_study(
        spec,
        testset,
        practice,
        out / "design.tsv",
        out / "balance.tsv",
        out / "design.json",
    )
    assert settings["n_trials"] == 8 and settings["subjects"] == 2
    rows = read_tsv(out / "design.tsv")
    test_rows = [r for r in rows if r["practice"] == "false"]
    warmup = [(r["subject_slot"], r["item"]) for r in rows if r["practice"] == "true"]
    assert len(warmup) == 2 and warmup[0][1] == warmup[1][1]  # the same for everyone
    assert warmup[0][1].startswith("dev-")
    assert len(test_rows) == 8 and {r["system"] for r in test_rows} == {
        "alpha/sys1",
        "beta/sys2",
    }
    # each subject sees each system equally often, each item x system cell once
    for subject in ("1", "2"):
        systems = [r["system"] for r in test_rows if r["subject_slot"] == subject]
        assert systems.count("alpha/sys1") == systems.count("beta/sys2") == 2
    assert len({(r["item"], r["system"]) for r in test_rows}) == 8
    assert all(r["ok"] == "true" for r in read_tsv(out / "balance.tsv"))
    assert read_json(out / "design.json")["task"] == "rating"
    again = tmp_path / "again"
    design_study(
        spec,
        testset,
        practice,
        again / "design.tsv",
        again / "balance.tsv",
        again / "design.json",
    )
    assert (again / "design.tsv").read_bytes() == (out / "design.tsv").read_bytes()


def test_impossible_design_says_what_would_work(tiny_campaign, tmp_path):
    [spec] = study_specs(config(subjects=3))
    with pytest.raises(ConfigError, match="2, 4"):
        design_study(
            spec,
            tiny_campaign / "testset.xml",
            None,
            tmp_path / "d.tsv",
            tmp_path / "b.tsv",
            tmp_path / "d.json",
        )
    [spec] = study_specs(config(practice=2))
    with pytest.raises(ConfigError, match="data.dev"):
        design_study(
            spec,
            tiny_campaign / "testset.xml",
            None,
            tmp_path / "d.tsv",
            tmp_path / "b.tsv",
            tmp_path / "d.json",
        )


def test_two_group_design_from_the_config(tiny_campaign, tmp_path):
    [spec] = study_specs(
        config(design="two_group", task="identification", shared=2, subjects=4)
    )
    out = tmp_path / "tg"
    settings = design_study(
        spec,
        tiny_campaign / "testset.xml",
        None,
        out / "d.tsv",
        out / "b.tsv",
        out / "d.json",
    )
    assert settings["kind"] == "two_group" and settings["subjects"] == 4
    rows = read_tsv(out / "d.tsv")
    shared = {r["item"] for r in rows if r["item_set"] == "shared"}
    assert len(shared) == 2
    # every subject sees the shared items with the original system (alpha/sys1)
    assert {r["system"] for r in rows if r["item_set"] == "shared"} == {"alpha/sys1"}
    # each context of sets A and B is seen with both systems, by different groups
    others = [r for r in rows if r["item_set"] in ("A", "B")]
    for item in {r["item"] for r in others}:
        seen = {(r["group"], r["system"]) for r in others if r["item"] == item}
        assert len(seen) == 2
        assert {g for g, _ in seen} == {"1", "2"}
        assert {s for _, s in seen} == {"alpha/sys1", "beta/sys2"}
    with pytest.raises(ConfigError, match="exactly two systems"):
        study_specs(
            config(
                design="two_group", systems=["alpha/sys1", "beta/sys2", "human/HUMAN-1"]
            )
        )


def test_a_study_may_wait_for_its_responses():
    # built before the data are collected: the merge then reports it as awaited
    [spec] = study_specs(config(simulate=False))
    assert spec["responses"] == [] and spec["simulate"] is False
    [spec] = study_specs(config(simulate=False, responses=["exports/s.tsv"]))
    assert spec["responses"] == ["exports/s.tsv"] and spec["corrections"] is None


def asgre_shaped(campaign):
    """The tiny campaign as an ASGRE one: its systems output attribute sets only."""
    import re

    for system in ("alpha/sys1", "beta/sys2"):
        folder = campaign / "submissions" / system
        outputs = (folder / "outputs.xml").read_text()
        (folder / "outputs.xml").write_text(
            re.sub(r"\s*<WORD-STRING>[^<]*</WORD-STRING>", "", outputs)
        )
        meta = (folder / "system.yaml").read_text()
        meta = re.sub(r"tasks:\n(- .*\n)+", "tasks: [attribute_selection]\n", meta)
        (folder / "system.yaml").write_text(meta)
    return campaign


def test_attribute_selection_outputs_are_shown_realised(tiny_campaign, tmp_path):
    from stecflow.studies.setup import build_stimuli

    campaign = asgre_shaped(tiny_campaign)
    root = str(campaign / "submissions")
    with pytest.raises(ConfigError) as info:
        check_studies({**config(), "submissions": {"root": root}}, SUBMISSIONS)
    assert "alpha/sys1 outputs attribute sets only" in str(info.value)
    assert "realise: template" in str(info.value)
    realised = {**config(realise="template"), "submissions": {"root": root}}
    check_studies(realised, SUBMISSIONS)
    [spec] = study_specs(realised)
    testset = campaign / "testset.xml"
    out = tmp_path / "s"
    design_study(
        spec, testset, None, out / "design.tsv", out / "balance.tsv", out / "d.json"
    )
    dirs = {s: campaign / "submissions" / s for s in spec["systems"]}
    summary = build_stimuli(
        spec, out / "design.tsv", testset, None, dirs, None, out / "web", out / "dmdx"
    )
    # what the pages show: each list's offline copy (the served page has no trial)
    pages = "".join(
        p.read_text(errors="replace")
        for p in (out / "offline").rglob("*")
        if p.is_file()
    )
    # alpha's set for t1 is {colour: red, type: chair}: "the red chair"
    assert "the red chair" in pages
    assert read_json(out / "d.json")["realiser"] == "template-v1"
    assert summary["sha256"]
    # without realise, the stimuli job refuses the blank descriptions too
    [plain] = study_specs(config())
    with pytest.raises(ConfigError, match="alpha/sys1 has no WORD-STRING for item t1"):
        build_stimuli(
            plain,
            out / "design.tsv",
            testset,
            None,
            dirs,
            None,
            tmp_path / "w",
            tmp_path / "d",
        )

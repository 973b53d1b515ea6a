"""Control trials and exclusion rules end to end (issue 17, point 3).

The tiny campaign's rating study with one degraded control trial per list, four
simulated participants per list of whom a share click through (sliders left at
50), and a rule declared in advance: excluded below all controls rated under the
participant's own median. The click-through participants are excluded, the audit
says why, and the analyses run on fewer trials.
"""

from __future__ import annotations

import json

import pytest
import yaml

from stecflow.core.io import read_tsv
from tests.workflow.helpers import snakemake

pytestmark = pytest.mark.workflow


def test_inattentive_participants_excluded(tiny_campaign):
    config_path = tiny_campaign / "config" / "config.yaml"
    config = yaml.safe_load(config_path.read_text())
    [study] = config["studies"]
    study["controls"] = {"per_list": 1}
    study["exclusions"] = [{"name": "attention", "controls_below": 1}]
    config["judgments"]["simulation"].update(sessions_per_list=4, inattentive=0.4)
    config_path.write_text(yaml.safe_dump(config, sort_keys=False))

    snakemake(tiny_campaign)
    results = tiny_campaign / "results"
    design = read_tsv(results / "studies" / "ratings" / "design.tsv")
    controls = [r for r in design if r["control"]]
    assert len(controls) == 2 and {r["system"] for r in controls} == {"CONTROL"}
    trials = read_tsv(results / "judgments" / "ratings.tsv")
    lazy = {
        r["session"]
        for r in trials
        if all(t["adequacy"] == "50" for t in trials if t["session"] == r["session"])
    }
    assert lazy, "the seed gives at least one click-through participant"
    audit = read_tsv(results / "judgments" / "exclusions" / "ratings.tsv")
    excluded = {r["session"] for r in audit if r["excluded"] == "1"}
    assert lazy <= excluded
    assert all(r["rule"] == "attention" for r in audit)
    assert len(audit) == len({t["session"] for t in trials})
    for row in trials:
        if row["session"] in excluded:
            assert row["excluded"] == "true" and row["in_analysis"] == "false"
            assert "rule:attention" in row["exclusion_reason"]
        if row["control"]:
            assert row["in_analysis"] == "false"
    kept = [r for r in trials if r["in_analysis"] == "true"]
    # 4 test trials per session, sessions not excluded
    assert len(kept) == 4 * (len({t["session"] for t in trials}) - len(excluded))
    record = json.loads((results / "stats" / "ratings-adequacy-anova.json").read_text())
    counts = record["judgments"]["ratings"]["counts"]
    assert counts["in_analysis"] == len(kept)
    assert counts["controls"] == len([r for r in trials if r["control"]])
    report = (results / "report" / "index.html").read_text(encoding="utf-8")
    assert "Exclusion rules declared before data collection: attention" in report
    assert f"{len(excluded)} of {len(audit)} participants excluded" in report


def test_gold_controls_in_identification_study(tiny_campaign):
    config_path = tiny_campaign / "config" / "config.yaml"
    config = yaml.safe_load(config_path.read_text())
    [study] = config["studies"]
    study.update(
        id="ident",
        task="identification",
        controls={"per_list": 1},
        exclusions=[{"name": "gold", "controls_below": 1}],
    )
    config["judgments"]["simulation"].update(sessions_per_list=3, inattentive=0.5)
    config_path.write_text(yaml.safe_dump(config, sort_keys=False))

    snakemake(tiny_campaign)
    results = tiny_campaign / "results"
    stimuli = json.loads(
        (results / "studies" / "ident" / "stimuli-key.json").read_text()
    )
    gold = [
        t for lst in stimuli["lists"] for t in lst["trials"] if t["system"] == "CONTROL"
    ]
    assert len(gold) == 2 and all(t["description"] for t in gold)
    # the participant's copy of the list does not say which trials they are
    shown = results / "studies" / "ident" / "offline" / "L01" / "stimuli.js"
    assert b"CONTROL" not in shown.read_bytes() and b"gold" not in shown.read_bytes()
    trials = read_tsv(results / "judgments" / "ident.tsv")
    audit = read_tsv(results / "judgments" / "exclusions" / "ident.tsv")
    for row in audit:  # excluded exactly when a gold trial was missed
        missed = [
            t
            for t in trials
            if t["session"] == row["session"]
            and t["control"] == "gold"
            and t["correct"] != "true"
        ]
        assert row["excluded"] == ("1" if missed else "0")
    assert all(r["in_analysis"] == "false" for r in trials if r["control"])

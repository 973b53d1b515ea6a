"""Run the workflow on the tiny fixture campaign and check what it wrote."""

from __future__ import annotations

import json
import re

import pytest

from stecflow.io import read_tsv
from tests.workflow.helpers import planned_jobs, snakemake

pytestmark = pytest.mark.workflow


def test_tiny_campaign_end_to_end(tiny_campaign, tmp_path_factory):
    snakemake(tiny_campaign)
    results = tiny_campaign / "results"
    summary = read_tsv(results / "validation" / "summary.tsv")
    assert [(r["team"], r["system"], r["status"], r["late"]) for r in summary] == [
        ("alpha", "sys1", "accepted", "false"),
        ("beta", "sys2", "accepted", "true"),
        ("gamma", "broken", "rejected", "false"),
    ]
    broken = json.loads((results / "validation" / "gamma" / "broken.json").read_text())
    assert broken["n_errors"] == 11
    assert {e["code"] for e in broken["errors"]} >= {
        "incomplete_metadata",
        "undecodable",
        "xml_syntax",
        "duplicate_item",
        "unknown_item",
        "missing_item",
        "empty_string",
        "task_not_run",
    }
    md = (results / "validation" / "gamma" / "broken.md").read_text()
    assert "| gamma/broken/outputs.xml | 13 |" in md

    # nothing left to do on a second invocation
    assert planned_jobs(tiny_campaign) == {}

    # the same inputs in a fresh copy give identical bytes
    import shutil

    from tests.conftest import TINY

    again = tmp_path_factory.mktemp("again") / "campaign"
    shutil.copytree(TINY, again)
    snakemake(again)
    for path in sorted(results.rglob("*")):
        if path.is_file() and not {"logs", "benchmarks"} & set(path.parts):
            twin = again / "results" / path.relative_to(results)
            assert twin.read_bytes() == path.read_bytes(), path


def test_new_submission_reruns_only_its_jobs(tiny_campaign):
    snakemake(tiny_campaign)
    import shutil

    source = tiny_campaign / "submissions" / "alpha" / "sys1"
    target = tiny_campaign / "submissions" / "delta" / "late1"
    shutil.copytree(source, target)
    meta = target / "system.yaml"
    meta.write_text(
        meta.read_text().replace("team: alpha", "team: delta").replace("sys1", "late1")
    )
    jobs = planned_jobs(tiny_campaign)
    assert jobs == {
        "all": 1,
        "validate_submission": 1,
        "summarise_validation": 1,
        "score_submission": 1,
        "aggregate_scores": 1,
        "collect_item_scores": 1,
        "run_analysis": 4,
    }
    plan = snakemake(tiny_campaign, "--dry-run").stdout
    scored = re.findall(r"output: results/scores/items/(\S+)\.tsv", plan)
    assert scored == ["delta/late1"]


def test_changing_a_metric_setting_reruns_scoring_only(tiny_campaign):
    snakemake(tiny_campaign)
    config = tiny_campaign / "config" / "config.yaml"
    config.write_text(config.read_text() + "scoring:\n  text:\n    lowercase: false\n")
    jobs = planned_jobs(tiny_campaign)
    assert jobs == {
        "all": 1,
        "score_submission": 3,
        "aggregate_scores": 1,
        "collect_item_scores": 1,
        "run_analysis": 4,
    }


def test_scores_of_the_tiny_campaign(tiny_campaign):
    snakemake(tiny_campaign)
    rows = read_tsv(tiny_campaign / "results" / "scores" / "systems.tsv")
    se = {(r["system"], r["subset"]): r["value"] for r in rows if r["metric"] == "se"}
    assert se[("sys1", "all")] == "2.375"
    assert se[("sys1", "people")] == "3.5"
    skipped = [r for r in rows if r["status"] == "skipped"]
    assert [(r["system"], r["reason"]) for r in skipped] == [
        ("broken", "rejected at validation (11 errors)")
    ]
    items = read_tsv(
        tiny_campaign / "results" / "scores" / "items" / "alpha" / "sys1.tsv"
    )
    assert {r["reference"] for r in items} == {"*", "HUMAN-1", "HUMAN-2"}

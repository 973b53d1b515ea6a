"""A study is built before its data are collected (issue #12, point 4).

The experiment is needed before there is anything to merge: a study with no
response files yet builds its design, stimuli, web experiment and DMDX files,
its judgments and statistics say "awaiting responses", and the rest of the
campaign completes. Listing the response files later re-runs only what reads
them.
"""

from __future__ import annotations

import json

import pytest
import yaml

from stecflow.core.io import read_tsv
from stecflow.judgments.simulate import simulate_study
from tests.workflow.helpers import planned_jobs, snakemake

pytestmark = pytest.mark.workflow


def test_study_without_responses_then_with_them(tiny_campaign):
    config_path = tiny_campaign / "config" / "config.yaml"
    config = yaml.safe_load(config_path.read_text())
    [study] = config["studies"]
    study["simulate"] = False  # a real study: no responses yet
    config_path.write_text(yaml.safe_dump(config, sort_keys=False))

    snakemake(tiny_campaign)
    results = tiny_campaign / "results"
    web = results / "studies" / "ratings" / "web"
    assert (web / "index.html").is_file() and (web / "MANIFEST.tsv").is_file()
    assert any((results / "studies" / "ratings" / "dmdx").iterdir())
    assert read_tsv(results / "judgments" / "ratings.tsv") == []
    summary = json.loads(
        (results / "judgments" / "summary" / "ratings.json").read_text()
    )
    assert summary["awaiting_responses"] is True
    anova = json.loads((results / "stats" / "ratings-adequacy-anova.json").read_text())
    assert anova["awaiting_responses"] == ["ratings"]
    html = (results / "report" / "index.html").read_text()
    # the study, its 4 analyses and the correlations that use its measures
    assert html.count("Awaiting responses") == 1 + 4 + 1
    assert list((results / "release").glob("*.zip"))  # the campaign completed

    # the responses come in: only the merge and what reads it run again
    responses = tiny_campaign / "responses" / "ratings.tsv"
    simulate_study(
        stimuli_path=web,
        items_paths=[results / "data" / "testset.xml"],
        out_path=responses,
        seed=7,
    )
    study["responses"] = ["responses/ratings.tsv"]
    config_path.write_text(yaml.safe_dump(config, sort_keys=False))
    jobs = planned_jobs(tiny_campaign)
    assert "design_study" not in jobs and "build_stimuli" not in jobs
    assert jobs["merge_judgments"] == 1 and jobs["render_report"] == 1
    # one job: the 4 analyses of the study and the correlations; not the scores'
    assert jobs["run_analyses_ratings"] == 1 and "run_analyses_scores" not in jobs
    snakemake(tiny_campaign)
    judged = read_tsv(results / "judgments" / "ratings.tsv")
    assert len([r for r in judged if r["practice"] == "false"]) == 8
    html = (results / "report" / "index.html").read_text()
    assert "Awaiting responses" not in html

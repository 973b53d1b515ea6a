"""Dry runs of every campaign: the DAG builds and has the expected jobs."""

from __future__ import annotations

import re
import shutil
import time

import pytest

from tests.conftest import REPO
from tests.workflow.helpers import planned_jobs, snakemake

pytestmark = pytest.mark.workflow


#: Jobs of one run of the tiny campaign (three submissions, one rating study).
TINY_JOBS = {
    "all": 1,
    "prepare_testset": 1,
    "check_submission": 3,
    "summarise_validation": 1,
    "aggregate_scores": 1,
    "collect_item_scores": 1,
    "compare_systems": 1,
    "design_study": 1,
    "build_stimuli": 1,
    "simulate_responses": 1,
    "merge_judgments": 1,
    "compute_agreement": 1,
    # one job per group of analyses reading the same tables: the 3 of the
    # scores; the 4 of the rating study and the correlations, which read it too
    "run_analyses_scores": 1,
    "run_analyses_ratings": 1,
    "render_submissions": 1,
    "render_report": 1,
    "pack_release": 1,
    "build_release": 1,
}


def test_tiny_campaign_dry_run(tiny_campaign):
    assert planned_jobs(tiny_campaign) == TINY_JOBS


def test_jobs_start_by_the_work_that_waits_on_them(tiny_campaign):
    """The campaign-wide jobs' priorities (PRIORITY in workflow/rules/common.smk):
    each one above every job that reads its outputs, so the chain that ends the
    run starts first; the per-submission jobs keep 0."""
    run = snakemake(tiny_campaign, "--dry-run", "--forceall")
    jobs = []
    for block in re.split(r"^(?:local)?rule ", run.stdout + run.stderr, flags=re.M)[1:]:
        fields = dict(re.findall(r"^\s+(input|output|priority): (.*)$", block, re.M))
        files = {
            name: {
                f.removesuffix(" (cached)") for f in fields.get(name, "").split(", ")
            }
            for name in ("input", "output")
        }
        jobs.append((block.split(":", 1)[0], int(fields.get("priority", 0)), files))
    per_submission = {"prepare_testset", "check_submission"}
    assert {rule for rule, n, _ in jobs if n == 0} == per_submission | {"all"}
    pairs = {
        (producer, consumer)
        for producer, _, made in jobs
        for consumer, _, read in jobs
        if producer not in per_submission
        and consumer != "all"
        and made["output"] & read["input"]
    }
    priority = {rule: n for rule, n, _ in jobs}
    assert ("render_submissions", "render_report") in pairs
    assert len(pairs) >= 20
    bad = [(p, c) for p, c in sorted(pairs) if priority[p] <= priority[c]]
    assert bad == [], bad
    # the longest chain first: the scores, then the section "Submissions"
    assert max(priority, key=priority.get) == "aggregate_scores"


def test_slurm_profile_groups_the_per_submission_jobs(tiny_campaign):
    """profiles/slurm sends every submission's validation and scoring as one job.

    A dry run through the profile (no cluster needed): one group job holds the three
    per-submission jobs, and the placeholders reach SLURM's resources as they are.
    """
    run = snakemake(
        tiny_campaign, "--profile", str(REPO / "profiles" / "slurm"), "--dry-run"
    )
    text = run.stdout + run.stderr
    groups = re.split(r"Group job per_submission", text)[1:]
    assert len(groups) == 1
    rules = re.findall(r"^\s+rule (\w+):", groups[0].split("\nJob stats")[0], re.M)
    assert rules == ["check_submission"] * 3
    assert "slurm_partition=<partition>, slurm_account=<account>" in text


def test_demo_campaign_dry_run():
    jobs = planned_jobs(REPO, "--forceall")
    n = sum(
        1
        for team in (REPO / "submissions").iterdir()
        for _ in team.iterdir()
        if _.is_dir()
    )
    assert n >= 8
    assert jobs["check_submission"] == n and jobs["summarise_validation"] == 1
    assert jobs["aggregate_scores"] == 1
    # the 11 analyses of config/config.yaml, one job per set of tables they read
    assert {r: n for r, n in jobs.items() if r.startswith("run_analys")} == {
        "run_analyses_scores": 1,
        "run_analyses_rating": 1,
        "run_analyses_identification": 1,
        "run_analyses_identification+rating": 1,  # the correlations
    }
    # one job tests every pair of the analysed systems on every metric
    assert jobs["collect_item_scores"] == jobs["compare_systems"] == 1
    # two studies (rating, identification), answered by simulated participants
    assert jobs["design_study"] == jobs["build_stimuli"] == 2
    assert jobs["simulate_responses"] == jobs["merge_judgments"] == 2
    assert jobs["compute_agreement"] == 2  # inter-rater agreement per study


def test_b5ref_campaign_dry_run(b5ref_dir):
    jobs = planned_jobs(REPO, "--forceall", "--configfile", "config/b5-ref.yaml")
    assert jobs["prepare_testset"] == 1
    assert jobs["check_submission"] == len(
        list((REPO / "resources" / "b5-ref" / "submissions").glob("*/*/"))
    )


def test_dialogue_campaign_dry_run():
    """config/dialogue-demo.yaml: the two baselines and the three ablations of the
    learnt one (seed 000 Table 4), the confusion analysis and the t-tests, one
    situated study answered by simulated evaluators."""
    jobs = planned_jobs(REPO, "--forceall", "--configfile", "config/dialogue-demo.yaml")
    assert jobs["prepare_testset"] == 1
    assert jobs["check_submission"] == 5
    assert jobs["run_analyses_scores"] == jobs["run_analyses_situated"] == 1
    assert jobs["compare_systems"] == 1
    assert jobs["design_study"] == jobs["build_stimuli"] == 1
    assert jobs["simulate_responses"] == jobs["merge_judgments"] == 1
    assert jobs["render_report"] == jobs["pack_release"] == jobs["build_release"] == 1


def test_bad_config_key_is_named(tiny_campaign):
    config = tiny_campaign / "config" / "config.yaml"
    config.write_text(config.read_text().replace("deadline:", "dedline:"))
    result = snakemake(tiny_campaign, "--dry-run", check=False)
    assert result.returncode != 0
    assert "dedline" in result.stderr + result.stdout


#: Lints we accept, each justified in README.md ("Linting").
ALLOWED_LINTS = {"Specify a conda environment or container for each rule."}


def test_lint_has_only_justified_warnings():
    result = snakemake(REPO, "--lint", check=False)
    text = result.stdout + result.stderr
    lints = set(re.findall(r"^\s+\* (.+?):?$", text, flags=re.MULTILINE))
    assert "Lints for" in text or result.returncode == 0, text
    assert lints <= ALLOWED_LINTS, lints - ALLOWED_LINTS


def test_the_readme_says_the_job_counts_of_the_dry_runs():
    """The README's job counts of the shipped campaigns are what Snakemake plans."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    said = {}
    for match in re.finditer(
        r"^snakemake .*--configfile (config/[\w-]+\.yaml)$", text, re.M
    ):
        section = text[match.end() :].split("\n#", 1)[0]  # to the next heading
        count = re.search(r"runs (\d+) jobs", section)
        if count:
            said[match.group(1)] = int(count.group(1))
    assert set(said) == {"config/dialogue-demo.yaml", "config/b5-ref.yaml"}
    for config, n in said.items():
        jobs = planned_jobs(REPO, "--forceall", "--configfile", config)
        assert sum(jobs.values()) == n, (config, dict(jobs))


def test_editing_a_session_of_a_folder_test_set_prepares_it_again(tmp_path):
    """A test set given as a folder (the dialogue sessions): editing one of its
    files, which leaves the folder's own time as it was, prepares it again."""
    shutil.copytree(REPO / "config", tmp_path / "config")
    shutil.copytree(
        REPO / "resources" / "dialogue-demo", tmp_path / "resources" / "dialogue-demo"
    )
    args = ("prepare_testset", "--configfile", "config/dialogue-demo.yaml")
    snakemake(tmp_path, *args)
    assert planned_jobs(tmp_path, *args) == {}
    folder = tmp_path / "resources" / "dialogue-demo"
    session = folder / "s03.json"
    before = folder.stat().st_mtime_ns
    time.sleep(0.01)
    session.write_bytes(session.read_bytes() + b"\n")  # an edit in place
    assert folder.stat().st_mtime_ns == before  # the folder's time is unchanged
    assert planned_jobs(tmp_path, *args) == {"prepare_testset": 1}

"""Run the workflow on the tiny fixture campaign and check what it wrote."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from stecflow.core.io import read_tsv
from tests.conftest import TINY
from tests.workflow.helpers import job_resources, planned_jobs, snakemake

pytestmark = pytest.mark.workflow


def test_tiny_campaign_end_to_end(tiny_campaign, tmp_path_factory):
    run = snakemake(tiny_campaign)
    # every job asked for memory and time sized from its inputs (cluster-ready)
    jobs = job_resources(run.stdout + run.stderr)
    assert {rule for rule, _ in jobs} >= {"check_submission", "build_release"}
    for rule, resources in jobs:
        if rule != "all":
            assert int(resources["mem_mb"]) > 300 and int(resources["runtime"]) >= 5
    check = [int(r["mem_mb"]) for rule, r in jobs if rule == "check_submission"]
    assert len(check) == 3 and min(check) > 300  # 300 MB + 16 per MB of input
    # no job asks for more than one core (Snakemake prints "threads: N" if one
    # did): the workflow caps the numerical libraries at one thread per job
    assert "threads:" not in run.stdout + run.stderr
    results = tiny_campaign / "results"
    summary = read_tsv(results / "validation" / "summary.tsv")
    assert [(r["team"], r["system"], r["status"], r["late"]) for r in summary] == [
        ("alpha", "sys1", "accepted", "false"),
        ("beta", "sys2", "accepted", "true"),
        ("gamma", "broken", "rejected", "false"),
    ]
    broken = json.loads((results / "validation" / "gamma" / "broken.json").read_text())
    # validation/records.jsonl: every record, one a line, in discovery order
    bundle = (results / "validation" / "records.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in bundle] == [
        json.loads(
            (results / "validation" / f"{r['team']}/{r['system']}.json").read_text()
        )
        for r in summary
    ]
    assert broken["n_errors"] == 10
    assert [w["code"] for w in broken["warnings"]] == ["empty_string"]
    assert {e["code"] for e in broken["errors"]} >= {
        "incomplete_metadata",
        "undecodable",
        "xml_syntax",
        "duplicate_item",
        "unknown_item",
        "missing_item",
        "task_not_run",
    }
    md = (results / "validation" / "gamma" / "broken.md").read_text()
    assert "| gamma/broken/outputs.xml | 13 |" in md

    # nothing left to do on a second invocation
    assert planned_jobs(tiny_campaign) == {}
    # each job's benchmark beside its log, in Snakemake's columns (written by
    # the job itself: stecflow.core.logs.write_benchmark)
    logs = sorted(
        p.relative_to(results / "logs") for p in results.glob("logs/**/*.log")
    )
    benchmarks = sorted(
        p.relative_to(results / "benchmarks")
        for p in results.glob("benchmarks/**/*.tsv")
    )
    assert len(logs) > 15 and benchmarks == [p.with_suffix(".tsv") for p in logs]
    header, row = (
        (results / "benchmarks/check_submission/alpha/sys1.tsv")
        .read_text()
        .split("\n")[:2]
    )
    assert header.split("\t")[:3] == ["s", "h:m:s", "max_rss"]
    assert float(row.split("\t")[2]) > 20  # MB: a Python process with lxml loaded

    # the human study: design, stimuli, simulated answers merged with the design
    judgments = read_tsv(results / "judgments" / "ratings.tsv")
    test_trials = [r for r in judgments if r["practice"] == "false"]
    assert len(test_trials) == 8 and all(r["simulated"] == "true" for r in judgments)
    assert {r["system"] for r in test_trials} == {"alpha/sys1", "beta/sys2"}
    assert all(1 <= int(r["adequacy"]) <= 100 for r in test_trials)
    assert (results / "studies" / "ratings" / "web" / "index.html").is_file()
    anova = json.loads((results / "stats" / "ratings-adequacy-anova.json").read_text())
    assert anova["n_observations"] == 8 and anova["text"][0]["text"].startswith(
        "F(1, 4) = "
    )
    # the report and the release archive
    assert "Tiny test campaign" in (results / "report" / "index.html").read_text()
    assert (results / "release" / "tiny-1.zip").is_file()

    # the same inputs in a fresh copy give identical bytes
    again = tmp_path_factory.mktemp("again") / "campaign"
    shutil.copytree(TINY, again)
    snakemake(again)
    for path in sorted(results.rglob("*")):
        if path.is_file() and not {"logs", "benchmarks"} & set(path.parts):
            twin = again / "results" / path.relative_to(results)
            assert twin.read_bytes() == path.read_bytes(), path


#: Per-submission rules and the aggregates that may re-run for a late submission.
PER_SUBMISSION = {"check_submission"}
AGGREGATES = {
    "all",
    "summarise_validation",
    "aggregate_scores",
    "collect_item_scores",
    "compare_systems",
    "run_analyses_scores",
    "run_analyses_ratings",
    "render_submissions",
    "render_report",
    "pack_release",
    "build_release",
}


def add_late_submission(campaign):
    """Copy alpha/sys1 to delta/late1, submitted after the deadline."""
    source = campaign / "submissions" / "alpha" / "sys1"
    target = campaign / "submissions" / "delta" / "late1"
    shutil.copytree(source, target)
    meta = target / "system.yaml"
    text = meta.read_text().replace("team: alpha", "team: delta")
    meta.write_text(text.replace("sys1", "late1").replace("2026-05-01", "2026-06-20"))


def test_new_submission_reruns_only_its_jobs(tiny_campaign):
    """A late submission runs its own jobs and the cheap aggregates, nothing else.

    Read from Snakemake's own dry run: the rules planned, and the outputs of the
    per-submission jobs, which must all belong to the new submission; no study
    (design, stimuli, judgments) is touched.
    """
    snakemake(tiny_campaign)
    add_late_submission(tiny_campaign)
    jobs = planned_jobs(tiny_campaign)
    assert set(jobs) <= PER_SUBMISSION | AGGREGATES
    assert jobs["check_submission"] == 1
    plan = snakemake(tiny_campaign, "--dry-run").stdout
    outputs = re.findall(r"output: ([^\s,]+)", plan)  # each job's first
    assert not [o for o in outputs if o.startswith("results/studies/")]
    assert not [o for o in outputs if o.startswith("results/judgments/")]
    per_submission = [
        o
        for o in outputs
        if o.startswith(
            ("results/validation/", "results/scores/items/", "results/scores/systems/")
        )
    ]
    assert per_submission and all(
        "/delta/late1" in o for o in per_submission if not o.endswith("summary.tsv")
    )
    # and it runs: the late submission is validated, scored and marked late
    snakemake(tiny_campaign)
    rows = read_tsv(tiny_campaign / "results" / "validation" / "summary.tsv")
    assert ("delta", "late1", "accepted", "true") in [
        (r["team"], r["system"], r["status"], r["late"]) for r in rows
    ]
    # taken out again: its results go too, and nothing else is run again
    shutil.rmtree(tiny_campaign / "submissions" / "delta")
    snakemake(tiny_campaign)
    results = tiny_campaign / "results"
    left = [
        p.relative_to(results)
        for folder in ("validation", "scores/items", "scores/systems")
        for p in (results / folder).rglob("*")
        if "delta" in p.parts
    ]
    assert left == []
    rows = read_tsv(results / "validation" / "summary.tsv")
    assert "delta" not in {r["team"] for r in rows}


def test_late_submission_leaves_the_statistics_alone(tiny_campaign):
    """With late submissions kept out of the statistics, no analysis re-runs.

    The report and the archive list the late system, so they are rebuilt; the
    analyses' inputs do not include it, so their outputs stay as they were.
    """
    config = tiny_campaign / "config" / "config.yaml"
    text = config.read_text()
    config.write_text(text.replace("include_late: true", "include_late: false"))
    snakemake(tiny_campaign)
    stats = tiny_campaign / "results" / "stats"
    before = {p.name: p.stat().st_mtime_ns for p in stats.iterdir()}
    add_late_submission(tiny_campaign)
    assert planned_jobs(tiny_campaign) == {
        "all": 1,
        "check_submission": 1,
        "summarise_validation": 1,
        "aggregate_scores": 1,
        "render_submissions": 1,
        "render_report": 1,
        "pack_release": 1,
        "build_release": 1,
    }
    snakemake(tiny_campaign)
    assert {p.name: p.stat().st_mtime_ns for p in stats.iterdir()} == before
    systems = read_tsv(tiny_campaign / "results" / "scores" / "systems.tsv")
    assert ("delta", "late1", "true") in {
        (r["team"], r["system"], r["late"]) for r in systems
    }
    html = (tiny_campaign / "results" / "report" / "index.html").read_text()
    assert "late1" in html


def test_changing_a_metric_setting_reruns_scoring_only(tiny_campaign):
    snakemake(tiny_campaign)
    config = tiny_campaign / "config" / "config.yaml"
    # one key changed in place (a key given twice is refused: stecflow.campaign)
    text = config.read_text()
    assert text.count("    lowercase: true\n") == 1
    config.write_text(text.replace("    lowercase: true\n", "    lowercase: false\n"))
    jobs = planned_jobs(tiny_campaign)
    # the studies do not depend on metric settings; reports and archive do. Each
    # submission's one job re-writes its validation record too (the same bytes),
    # so the validation summary is re-made, but the studies ignore the record's age
    assert jobs == {
        "all": 1,
        "check_submission": 3,
        "summarise_validation": 1,
        "aggregate_scores": 1,
        "collect_item_scores": 1,
        "compare_systems": 1,
        "run_analyses_scores": 1,
        "run_analyses_ratings": 1,
        "render_submissions": 1,
        "render_report": 1,
        "pack_release": 1,
        "build_release": 1,
    }


def test_scores_of_the_tiny_campaign(tiny_campaign):
    snakemake(tiny_campaign)
    rows = read_tsv(tiny_campaign / "results" / "scores" / "systems.tsv")
    se = {(r["system"], r["subset"]): r["value"] for r in rows if r["metric"] == "se"}
    assert se[("sys1", "all")] == "2.375"
    assert se[("sys1", "people")] == "3.5"
    skipped = [r for r in rows if r["status"] == "skipped"]
    assert [(r["system"], r["reason"]) for r in skipped] == [
        ("broken", "rejected at validation (10 errors)")
    ]
    items = read_tsv(
        tiny_campaign / "results" / "scores" / "items" / "alpha" / "sys1.tsv"
    )
    assert {r["reference"] for r in items} == {"*", "HUMAN-1", "HUMAN-2"}


def test_collected_responses_rerun_only_the_merge_and_what_follows(tiny_campaign):
    """Switching a study from simulated to collected answers leaves its stimuli alone."""
    snakemake(tiny_campaign)
    exports = tiny_campaign / "responses"
    exports.mkdir()
    simulated = tiny_campaign / "results" / "judgments" / "simulated" / "ratings.tsv"
    (exports / "ratings-server.tsv").write_text(simulated.read_text())
    config = tiny_campaign / "config" / "config.yaml"
    text = config.read_text().replace(
        "    simulate: true\n",
        "    simulate: false\n    responses: [responses/ratings-server.tsv]\n",
    )
    config.write_text(text)
    jobs = planned_jobs(tiny_campaign)
    assert "merge_judgments" in jobs
    assert not {
        "design_study",
        "build_stimuli",
        "simulate_responses",
        "check_submission",
    } & set(jobs)
    assert set(jobs) <= {
        "all",
        "merge_judgments",
        "compute_agreement",
        "run_analyses_ratings",  # not run_analyses_scores: its tables are the same
        "render_report",
        "pack_release",
        "build_release",
    }


def test_statistics_record_the_judgment_settings(tiny_campaign):
    snakemake(tiny_campaign)
    record = json.loads(
        (
            tiny_campaign / "results" / "stats" / "ratings-adequacy-anova.json"
        ).read_text()
    )
    study = record["judgments"]["ratings"]
    assert study["simulated"] is True
    assert study["outlier_rule"].startswith("outliers|rule:sd|k:2")
    assert study["corrections_applied"] == 0
    assert record["alpha"] == 0.05 and record["systems"] == ["sys1", "sys2"]


def test_report_caveats_where_they_apply(tiny_campaign):
    """Statistics that cannot mean much say so in the report, and only they do.

    Issue #12, point 8. The tiny campaign has two systems (too few for any
    correlation), a rating study whose two lists were both run with equal cells,
    and no identification study; then one list goes unanswered.
    """
    snakemake(tiny_campaign, "results/report/index.html")
    results = tiny_campaign / "results"
    html = (results / "report" / "index.html").read_text()
    few = (
        "Correlations over 2 systems: r needs at least 3 systems, and a"
        " significance test at least 5, so no correlation was computed."
    )
    assert f"<strong>Too few systems.</strong> {few}" in html  # beside the matrix
    assert f'<td class="a-l">{few}</td>' in html  # data quality
    record = json.loads((results / "stats" / "correlations.json").read_text())
    assert [c["kind"] for c in record["caveats"]] == ["few_systems"]
    assert {"true"} == {
        r["few_systems"] for r in read_tsv(results / "stats" / "correlations.tsv")
    }
    anova = json.loads((results / "stats" / "ratings-adequacy-anova.json").read_text())
    assert anova["design"]["complete"] and anova["design"]["note"] == ""
    for absent in (
        "Incomplete design",
        "Unbalanced cells",
        "has no participant",
        "Identical by construction",
        "Constant measure",
    ):
        assert absent not in html, absent

    # one of the two lists unanswered: every analysis of the study says so
    exports = tiny_campaign / "responses"
    exports.mkdir()
    simulated = results / "judgments" / "simulated" / "ratings.tsv"
    lines = simulated.read_text().splitlines(keepends=True)
    column = lines[0].rstrip("\n").split("\t").index("list")
    kept = [line for line in lines[1:] if line.split("\t")[column] == "L01"]
    (exports / "ratings-server.tsv").write_text(lines[0] + "".join(kept))
    config = tiny_campaign / "config" / "config.yaml"
    config.write_text(
        config.read_text().replace(
            "    simulate: true\n",
            "    simulate: false\n    responses: [responses/ratings-server.tsv]\n",
        )
    )
    snakemake(tiny_campaign, "results/report/index.html")
    html = (results / "report" / "index.html").read_text()
    note = "<strong>Incomplete design.</strong> 1 of 2 lists has no participant."
    assert html.count(note) == 4  # above each ANOVA and Tukey table of the study
    anova = json.loads((results / "stats" / "ratings-adequacy-anova.json").read_text())
    assert anova["design"]["lists_without_participant"] == 1
    assert anova["design"]["note"] == "1 of 2 lists has no participant."
    se = json.loads((results / "stats" / "se-anova.json").read_text())
    assert se["design"]["note"] == ""  # the automatic scores are complete

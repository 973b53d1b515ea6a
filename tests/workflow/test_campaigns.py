"""A campaign config stands alone, and campaigns in one checkout never mix."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest

from stecflow.core.io import read_tsv
from tests.workflow.helpers import planned_jobs, snakemake

pytestmark = pytest.mark.workflow

#: All a campaign config must name: the campaign, its data, its submissions.
MINIMAL = """\
campaign:
  id: mini
  title: Minimal campaign
  tasks: [end_to_end, attribute_selection]
data:
  testset: testset.xml
  format: tuna
submissions:
  root: submissions
"""


def result_files(results: Path) -> dict[str, bytes]:
    """Every result file but logs and benchmarks, by path under *results*."""
    return {
        str(p.relative_to(results)): p.read_bytes()
        for p in sorted(results.rglob("*"))
        if p.is_file() and not {"logs", "benchmarks"} & set(p.parts)
    }


def test_minimal_config_given_with_configfile_is_the_whole_campaign(tiny_campaign):
    """Nothing of config/config.yaml (the tiny campaign's) leaks in: no study, no
    deadline, no bootstrap settings; the schema's defaults fill in the rest."""
    mini_config = tiny_campaign / "mini.yaml"
    mini_config.write_text(MINIMAL)
    snakemake(tiny_campaign, "--configfile", str(mini_config))
    results = tiny_campaign / "results"
    assert (results / ".campaign").read_text() == "mini\n"
    summary = read_tsv(results / "validation" / "summary.tsv")
    # no deadline: beta/sys2 (late in the tiny campaign) is on time
    assert [(r["team"], r["system"], r["status"], r["late"]) for r in summary] == [
        ("alpha", "sys1", "accepted", "false"),
        ("beta", "sys2", "accepted", "false"),
        ("gamma", "broken", "rejected", "false"),
    ]
    assert not (results / "studies").exists() and not (results / "judgments").exists()
    # the TUNA-REG'09 analyses on the campaign's own scores (no study to analyse)
    assert sorted(p.name for p in (results / "stats").glob("*.json")) == [
        "accuracy-kruskal.json",
        "correlations.json",
        "se-anova.json",
        "se-tukey.json",
    ]
    assert "Minimal campaign" in (results / "report" / "index.html").read_text()
    with zipfile.ZipFile(results / "release" / "mini-1.zip") as archive:
        config = json.loads(archive.read("config.json"))
        assert "report/index.html" in archive.namelist()
    assert config["studies"] == [] and config["results"] == "results"
    assert config["campaign"]["deadline"] is None
    assert config["scoring"]["bootstrap"]["resamples"] == 1000  # tiny's is 200
    assert planned_jobs(tiny_campaign, "--configfile", str(mini_config)) == {}


def test_two_campaigns_in_one_checkout_keep_their_own_outputs(tiny_campaign):
    snakemake(tiny_campaign)  # the tiny campaign (config/config.yaml) in results/
    results = tiny_campaign / "results"
    assert (results / ".campaign").read_text() == "tiny\n"
    before = result_files(results)
    assert "release/tiny-1.zip" in before

    # A second campaign pointed at the same folder stops before any job runs.
    mini_config = tiny_campaign / "mini.yaml"
    mini_config.write_text(MINIMAL)
    refused = snakemake(tiny_campaign, "--configfile", str(mini_config), check=False)
    assert refused.returncode != 0
    assert (
        "results/ holds the outputs of campaign 'tiny' (results/.campaign says so);"
        " campaign 'mini' cannot write there. Set `results: results/mini`"
    ) in refused.stdout + refused.stderr
    assert result_files(results) == before

    # With a folder of its own it runs to its report and archive.
    mini_config.write_text(MINIMAL + "results: results/mini\n")
    snakemake(tiny_campaign, "--configfile", str(mini_config))
    mini = results / "mini"
    assert (mini / ".campaign").read_text() == "mini\n"
    assert "Minimal campaign" in (mini / "report" / "index.html").read_text()
    with zipfile.ZipFile(mini / "release" / "mini-1.zip") as archive:
        names = set(archive.namelist())
    assert {"report/index.html", "scores/systems.tsv", "stats/se-anova.tsv"} <= names
    assert not [n for n in names if n.startswith("mini/")]
    assert sorted(p.name for p in (mini / "release").iterdir()) == [
        "MANIFEST.tsv",
        "mini-1.zip",
    ]

    # The first campaign's outputs are untouched and up to date.
    after = {
        k: v for k, v in result_files(results).items() if not k.startswith("mini/")
    }
    assert after == before
    assert planned_jobs(tiny_campaign) == {}


def test_demo_then_b5ref_in_one_checkout(tmp_path):
    """The demo, then the real b5-ref campaign, in one copy of the checkout: each
    writes to its own results folder and both reports and archives are complete."""
    import shutil

    from tests.conftest import REPO

    checkout = tmp_path / "checkout"
    for part in ("config", "resources", "submissions"):
        shutil.copytree(REPO / part, checkout / part)
    snakemake(checkout)
    snakemake(checkout, "--configfile", "config/b5-ref.yaml")
    demo, b5 = checkout / "results", checkout / "results" / "b5-ref"
    assert (demo / ".campaign").read_text().strip() != "b5-ref"
    assert (b5 / ".campaign").read_text() == "b5-ref\n"
    for results in (demo, b5):
        [archive] = (results / "release").glob("*.zip")
        with zipfile.ZipFile(archive) as zipped:
            assert "report/index.html" in zipped.namelist()
        assert (results / "report" / "index.html").stat().st_size > 10_000
    b5_rows = read_tsv(b5 / "validation" / "summary.tsv")
    assert [r["status"] for r in b5_rows] == ["accepted"] * 3
    demo_rows = read_tsv(demo / "validation" / "summary.tsv")
    assert len(demo_rows) == 8 and "b5-ref" not in {r["team"] for r in demo_rows}
    # the demo declares seed 003 Table 1's properties, and its report shows them
    # as the teams gave them; b5-ref declares none, and has no such table
    text = " ".join(
        re.sub(r"<[^>]+>", " ", (demo / "report" / "index.html").read_text()).split()
    )
    table = text[text.index("Systems by algorithmic property") :]
    assert table.startswith(
        "Systems by algorithmic property (seed 003 Table 1): what each team declared"
        " in system.yaml. Property late-team/primary full-brevity greedy incremental"
        " incremental-loc discriminatory_power n n Y n n full_brevity n Y n n n"
        " incremental Y n n Y Y trainable n n n Y Y"
    ), table[:400]
    assert "algorithmic property" not in (b5 / "report" / "index.html").read_text()
    # the teams' own development scores (seed 001 Table 4), listed by the reported
    # SE, each beside the organisers' score on the test data with its interval
    import html

    table = html.unescape(text[text.index("Self-reported development scores") :])
    table = table[table.index("System Reported Test") :]
    assert table.startswith(
        "System Reported Test Reported Test Reported Test Data Refs Team's note"
        " incremental-loc 8.78 10.71 [5.36, 16.07] 7.48 8.68 [7.73, 9.65] 0.2238"
        " 0.31 [0.26, 0.36] development 1"
        " incremental * 10.14 9.82 [5.36, 15.18] 8.108 9.49 [8.40, 10.57] 0.2122"
        " 0.25 [0.21, 0.30] development 1 Acc: exact match after lower-casing and"
        " removing punctuation"
        " late-team/primary * † 2.03 1.79 [0.00, 4.46] 9.649 11.43 [10.50, 12.44]"
        " 0.1446 0.19 [0.16, 0.22] development 1"
        " greedy – 0.00 [0.00, 0.00] 9.676 10.65 [9.82, 11.46] 0.0465 0.07"
        " [0.05, 0.09] development 1 Reported: the team's own number"
    ), table[:800]
    assert "Self-reported" not in (b5 / "report" / "index.html").read_text()
    # every measure typed as seed 001 Table 3 types it, and the correlations of
    # its Table 10 grouped by those types (issue #45, points 1 and 4)
    assert (
        "ID time (ms) identification Extrinsic/human speed of identifying the"
        " referent in an identification experiment task performance"
    ) in text[text.index("Evaluation criteria: every measure reported") :]
    assert "Judgments Task performance String similarity Adequacy Fluency" in text
    # neither campaign has anything left to do: nothing of one touched the other
    assert planned_jobs(checkout) == {}
    assert planned_jobs(checkout, "--configfile", "config/b5-ref.yaml") == {}

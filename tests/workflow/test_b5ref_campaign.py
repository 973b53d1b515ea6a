"""The b5-ref campaign end to end, on the corpus shipped in resources/b5-ref/corpus."""

from __future__ import annotations

import pytest

from stecflow.cli import main as cli
from stecflow.core.io import read_tsv
from tests.conftest import REPO
from tests.workflow.helpers import snakemake

pytestmark = pytest.mark.workflow
SUBMISSIONS = REPO / "resources" / "b5-ref" / "submissions"


@pytest.mark.parametrize("algorithm", ["full-brevity", "greedy", "incremental"])
def test_committed_baselines_regenerate_identically(b5ref_dir, tmp_path, algorithm):
    out = tmp_path / "organisers" / algorithm
    assert (
        cli(
            [
                "baseline",
                algorithm,
                str(b5ref_dir),
                str(out),
                "--format",
                "b5-ref",
                "--no-strings",
            ]
        )
        == 0
    )
    for name in ("outputs.xml", "system.yaml"):
        assert (out / name).read_bytes() == (
            SUBMISSIONS / "organisers" / algorithm / name
        ).read_bytes()


def test_b5ref_campaign_runs(b5ref_dir, tmp_path):
    campaign = tmp_path / "b5"
    campaign.mkdir()
    text = (REPO / "config" / "b5-ref.yaml").read_text()
    text = text.replace("testset: resources/b5-ref/corpus", f"testset: {b5ref_dir}")
    text = text.replace("root: resources/b5-ref/submissions", f"root: {SUBMISSIONS}")
    (campaign / "b5-ref.yaml").write_text(text)
    snakemake(campaign, "--configfile", str(campaign / "b5-ref.yaml"))
    results = campaign / "results" / "b5-ref"  # the config's own results folder
    assert (results / ".campaign").read_text() == "b5-ref\n"
    assert (results / "release" / "b5-ref-1.zip").is_file()
    summary = read_tsv(results / "validation" / "summary.tsv")
    assert [(r["system"], r["status"]) for r in summary] == [
        ("full-brevity", "accepted"),
        ("greedy", "accepted"),
        ("incremental", "accepted"),
    ]
    rows = read_tsv(results / "scores" / "systems.tsv")
    fb = {r["metric"]: r for r in rows if r["system"] == "full-brevity"}
    # Full Brevity is unique and minimal by construction, on all 12 scenes.
    assert fb["uniqueness"]["value"] == "1" and fb["minimality"]["value"] == "1"
    assert fb["dice"]["n"] == "12"
    assert {r["metric"] for r in rows} == {
        "dice",
        "masi",
        "set_accuracy",
        "uniqueness",
        "minimality",
        "set_edit",
        "underspecification",
        "overspecification",
        "denotation_similarity",
    }

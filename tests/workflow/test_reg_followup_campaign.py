"""The follow-up of seed 001 §6 (config/reg-followup.yaml) end to end.

The demo campaign's six systems and 30 of its test items, judged for Adequacy in
four designs (the seed's slider, an anchored slider and a 5-point scale beside
the grid in words, and pairwise preferences), simulated. The comparison's numbers
are checked against an independent computation on the campaign's own judgments
tables: per-system means (and win rates) computed here, and
``scipy.stats.spearmanr`` / ``kendalltau`` on them.
"""

from __future__ import annotations

import json
import re
import shutil
from html import unescape
from itertools import combinations
from pathlib import Path

import pytest

from stecflow.core.io import read_tsv
from tests.conftest import REPO
from tests.workflow.helpers import snakemake

pytestmark = pytest.mark.workflow

CONFIG = "config/reg-followup.yaml"
DESIGNS = ["slider:adequacy", "anchored:adequacy", "likert:adequacy", "prefer:win_rate"]
SYSTEMS = {
    "organisers/full-brevity",
    "organisers/greedy",
    "organisers/incremental",
    "organisers/incremental-loc",
    "human/HUMAN-1",
    "human/HUMAN-2",
}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("reg-followup-checkout")
    shutil.copytree(REPO / "config", folder / "config")
    shutil.copytree(REPO / "submissions", folder / "submissions")
    shutil.copytree(REPO / "resources" / "demo", folder / "resources" / "demo")
    snakemake(folder, "--configfile", CONFIG)
    return folder / "results" / "reg-followup"


def _labels(results: Path) -> dict[str, str]:
    """``team/system`` -> the label the statistics use."""
    return {
        f"{r['team']}/{r['system']}": r["label"]
        for r in read_tsv(results / "scores" / "analysed.tsv")
    }


def _independent_scores(results: Path) -> dict[str, dict[str, float]]:
    """Each design's per-system score, from the judgments tables alone."""
    labels = _labels(results)
    scores: dict[str, dict[str, float]] = {}
    for design in DESIGNS:
        study, measure = design.split(":")
        rows = [
            r
            for r in read_tsv(results / "judgments" / f"{study}.tsv")
            if r["in_analysis"] == "true"
        ]
        if measure == "win_rate":
            points: dict[str, list[float]] = {}
            for r in rows:
                for side in ("left", "right"):
                    system = r[f"system_{side}"]
                    won = {side: 1.0, "tie": 0.5}.get(r["preferred"], 0.0)
                    points.setdefault(system, []).append(won)
        else:
            points = {}
            for r in rows:
                if r["system"] in SYSTEMS:
                    points.setdefault(r["system"], []).append(float(r[measure]))
        assert set(points) == SYSTEMS, design
        scores[design] = {labels[s]: sum(v) / len(v) for s, v in points.items()}
    return scores


def test_every_design_judged_the_same_systems_on_the_same_items(results):
    items = {}
    for design in DESIGNS:
        study = design.split(":")[0]
        rows = [
            r
            for r in read_tsv(results / "studies" / study / "design.tsv")
            if r["practice"] == "false" and r.get("control", "") == ""
        ]
        items[study] = {r["item"] for r in rows}
        assert len(items[study]) == 30
    assert len({frozenset(v) for v in items.values()}) == 1


def test_the_comparison_equals_an_independent_computation(results):
    from scipy.stats import kendalltau, spearmanr

    scores = _independent_scores(results)
    record = json.loads((results / "stats" / "adequacy-designs.json").read_text())
    for row in record["scores"]:
        for design in DESIGNS:
            assert row[design] == pytest.approx(scores[design][row["system"]], abs=1e-9)
    table = read_tsv(results / "stats" / "adequacy-designs.tsv")
    assert [(r["design_a"], r["design_b"]) for r in table] == list(
        combinations(DESIGNS, 2)
    )
    for r in table:
        systems = sorted(scores[r["design_a"]])
        x = [scores[r["design_a"]][s] for s in systems]
        y = [scores[r["design_b"]][s] for s in systems]
        rho, p_rho = spearmanr(x, y)
        tau, p_tau = kendalltau(x, y)
        assert r["n"] == "6" and r["computable"] == "true"
        assert float(r["spearman_rho"]) == pytest.approx(rho, abs=1e-9)
        assert float(r["spearman_p"]) == pytest.approx(p_rho, abs=1e-9)
        assert float(r["kendall_tau"]) == pytest.approx(tau, abs=1e-9)
        assert float(r["kendall_p"]) == pytest.approx(p_tau, abs=1e-9)
    # Kendall's W from the rank sums (no ties among the means here or not)
    w = record["concordance"]
    assert w["m"] == 4 and w["n"] == 6 and w["df"] == 5
    assert 0 <= w["w"] <= 1 and w["chi2"] == pytest.approx(4 * 5 * w["w"])


def test_the_report_shows_the_comparison(results):
    html = (results / "report" / "index.html").read_text(encoding="utf-8")
    section = html.split('id="stats-adequacy-designs-section"', 1)[1][:40000]
    text = unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", section)))
    assert "Comparison of evaluation designs" in html
    # each design named by its study in the heading
    assert "Adequacy (slider), Adequacy (anchored)" in html
    assert "Each design's per-system scores and ranks, side by side" in text
    assert "Rank correlations between the designs' system rankings" in text
    assert "Kendall's W =" in text
    first = read_tsv(results / "stats" / "adequacy-designs.tsv")[0]
    rho = f"{float(first['spearman_rho']):.2f}".replace("-", "−")
    assert rho in text or rho.replace("−", "-") in text


def test_the_text_studies_show_the_grid_in_words_and_the_word_strings(results):
    key = json.loads((results / "studies" / "likert" / "stimuli-key.json").read_text())
    assert len(key["inputs"]) == 30
    assert all(json.dumps(v).count("TARGET: ") == 1 for v in key["inputs"].values())
    outputs = (
        REPO / "submissions" / "organisers" / "greedy" / "outputs.xml"
    ).read_text()
    words = dict(
        re.findall(r'<TRIAL ID="([^"]+)">.*?<WORD-STRING>([^<]*)<', outputs, re.S)
    )
    trials = [
        t
        for lst in key["lists"]
        for t in lst["trials"]
        if t["system"] == "organisers/greedy"
    ]
    assert len(trials) == 30
    assert all(t["output"] == words[t["item"]] for t in trials)

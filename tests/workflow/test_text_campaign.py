"""The data-to-text campaign (config/text-demo.yaml) end to end.

The demo's test set is JSON Lines with three references per input; its systems
submit in the three outputs formats (JSON Lines, plain text, GEM-style JSON), one
submission is broken and one late. The scores must equal sacreBLEU's command line
on the same texts, per subset of the inputs' meta fields too.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from stecflow.core.io import read_tsv
from stecflow.release.archive import pseudonym
from tests.conftest import REPO
from tests.workflow.helpers import planned_jobs, snakemake

pytestmark = pytest.mark.workflow

CONFIG = "config/text-demo.yaml"
DEMO = REPO / "resources" / "text-demo"


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("text-checkout")
    shutil.copytree(REPO / "config", folder / "config")
    shutil.copytree(DEMO, folder / "resources" / "text-demo")
    snakemake(folder, "--configfile", CONFIG)
    return folder


def _sacrebleu(tmp: Path, hyps: list[str], refs: list[list[str]]) -> dict:
    """sacreBLEU's command line on *hyps* against the reference streams."""
    (tmp / "hyp.txt").write_text("".join(h + "\n" for h in hyps), encoding="utf-8")
    ref_files = []
    for n, stream in enumerate(zip(*refs, strict=True)):
        path = tmp / f"ref{n}.txt"
        path.write_text("".join(r + "\n" for r in stream), encoding="utf-8")
        ref_files.append(str(path))
    done = subprocess.run(
        [sys.executable, "-m", "sacrebleu", *ref_files, "-i", str(tmp / "hyp.txt")]
        + ["-m", "bleu", "chrf", "ter", "--chrf-word-order", "2", "-w", "8"],
        capture_output=True,
        text=True,
        check=True,
    )
    return {r["name"]: r for r in json.loads(done.stdout)}


def test_validation_reads_every_format_and_reports_every_problem(checkout):
    results = checkout / "results" / "text-demo"
    assert (results / "data" / "testset.jsonl").is_file()
    status = {
        f"{r['team']}/{r['system']}": (r["status"], r["late"], r["n_errors"])
        for r in read_tsv(results / "validation" / "summary.tsv")
    }
    assert status == {
        "broken-team/primary": ("rejected", "false", "4"),
        "human/ref": ("accepted", "false", "0"),
        "late-team/primary": ("accepted", "true", "0"),
        "organisers/rules": ("accepted", "false", "0"),  # outputs.txt
        "organisers/template": ("accepted", "false", "0"),  # outputs.jsonl
        "organisers/weak": ("accepted", "false", "0"),  # outputs.json (GEM)
    }
    record = json.loads(
        (results / "validation" / "broken-team" / "primary.json").read_text()
    )
    problems = sorted((e["code"], e["line"]) for e in record["errors"])
    assert problems == [
        ("duplicate_item", 10),
        ("missing_item", None),
        ("undecodable", 3),
        ("unknown_item", 21),
    ]


def test_scores_equal_sacrebleu_on_the_same_texts(checkout, tmp_path):
    results = checkout / "results" / "text-demo"
    lines = [
        json.loads(line)
        for line in (DEMO / "test.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    refs = [line["references"] for line in lines]
    hyps = (DEMO / "submissions/organisers/rules/outputs.txt").read_text("utf-8")
    hyps = hyps.splitlines()
    scores = {
        (r["metric"], r["subset_kind"], r["subset"]): float(r["value"])
        for r in read_tsv(results / "scores" / "systems.tsv")
        if r["system"] == "rules"
    }
    expected = _sacrebleu(tmp_path, hyps, refs)
    assert scores[("bleu", "all", "all")] == pytest.approx(
        expected["BLEU"]["score"], abs=1e-6
    )
    assert scores[("chrf", "all", "all")] == pytest.approx(
        expected["chrF2++"]["score"], abs=1e-6
    )
    assert scores[("ter", "all", "all")] == pytest.approx(
        expected["TER"]["score"], abs=1e-6
    )
    # a subset is the corpus score of its own inputs, not a mean of items
    unseen = [n for n, line in enumerate(lines) if line["meta"]["seen"] == "unseen"]
    expected_unseen = _sacrebleu(
        tmp_path, [hyps[n] for n in unseen], [refs[n] for n in unseen]
    )
    assert scores[("bleu", "seen", "unseen")] == pytest.approx(
        expected_unseen["BLEU"]["score"], abs=1e-6
    )
    # the report's methods give sacreBLEU's own signatures, as its CLI prints them
    html = (results / "report" / "index.html").read_text(encoding="utf-8")
    for name, header in (("BLEU", "BLEU"), ("chrF2++", "chrF++"), ("TER", "TER")):
        assert f"{header}: {expected[name]['signature']}" in html
    assert {k[2] for k in scores if k[1] == "category"} == {
        "Chair",
        "Desk",
        "Fan",
        "Person",
        "Sofa",
    }


def test_which_systems_differ(checkout):
    """Every pair of the four official systems on every metric, by both of
    sacreBLEU's paired tests; the clusters follow BLEU's ranking."""
    results = checkout / "results" / "text-demo"
    rows = read_tsv(results / "scores" / "significance.tsv")
    assert len(rows) == 6 * 6 * 2  # pairs x metrics x methods
    assert {r["method"] for r in rows} == {"paired_bs", "paired_ar"}
    bleu = {
        frozenset((r["system_a"], r["system_b"])): r
        for r in rows
        if r["metric"] == "bleu" and r["method"] == "paired_bs"
    }
    weak_rules = bleu[frozenset(("organisers/weak", "organisers/rules"))]
    assert weak_rules["significant"] == "true" and float(weak_rules["p_value"]) < 0.05
    clusters = [
        r["system"]
        for r in read_tsv(results / "scores" / "clusters.tsv")
        if r["metric"] == "bleu"
    ]
    assert clusters == [
        "human/ref",
        "organisers/rules",
        "organisers/template",
        "organisers/weak",
    ]


def test_rating_and_preference_studies(checkout):
    """Both text studies are designed, built, answered by simulated participants,
    merged and analysed; the better baseline comes out ahead in both."""
    results = checkout / "results" / "text-demo"
    for study in ("text-rating", "text-preference"):
        balance = read_tsv(results / "studies" / study / "balance.tsv")
        assert balance and all(r["ok"] == "true" for r in balance)
        assert (results / "studies" / study / "web" / "index.html").is_file()
        summary = json.loads(
            (results / "judgments/summary" / f"{study}.json").read_text()
        )
        assert summary["simulated"] is True
    # 120 items x 3 pairs: every ordered pair once per item, each list 120 trials
    pairs = read_tsv(results / "studies" / "text-preference" / "design.tsv")
    assert len(pairs) == 6 * 120
    assert {
        (r["system_left"], r["system_right"]) for r in pairs if r["item"] == "t001"
    } == {
        (a, b)
        for a in ("organisers/rules", "organisers/template", "organisers/weak")
        for b in ("organisers/rules", "organisers/template", "organisers/weak")
        if a != b
    }
    preference = read_tsv(results / "judgments/measures/text-preference.tsv")
    ranks = {r["system"]: int(r["bt_rank"]) for r in preference}
    assert ranks["organisers/weak"] == 3  # it drops triples and repeats itself
    ratings = read_tsv(results / "judgments/measures/text-rating.tsv")
    assert {r["criterion"] for r in ratings} == {"fluency", "adequacy"}
    anova = json.loads((results / "stats" / "fluency-anova.json").read_text())
    # 6 lists x 60 rated texts, less the excluded participant's 60 (below)
    assert anova["text"][0]["text"].startswith("F(2, 297) = ")
    bt = json.loads((results / "stats" / "preference.json").read_text())
    assert [t["about"] for t in bt["text"]][-1] == "weak"


def test_rating_study_controls_and_exclusions(checkout):
    """Three degraded control trials per list; the simulated click-through
    participant (judgments.simulation.inattentive) fails them and is excluded by
    the rules declared in the config, with the audit's reasons in the report."""
    results = checkout / "results" / "text-demo"
    design = read_tsv(results / "studies" / "text-rating" / "design.tsv")
    controls = [r for r in design if r["control"]]
    assert len(controls) == 18 and {r["system"] for r in controls} == {"CONTROL"}
    audit = read_tsv(results / "judgments" / "exclusions" / "text-rating.tsv")
    assert len(audit) == 12  # 6 participants x 2 rules
    excluded = {r["participant"] for r in audit if r["excluded"] == "1"}
    assert excluded == {"sim-L05"}
    [attention] = [
        r for r in audit if r["participant"] == "sim-L05" and r["rule"] == "attention"
    ]
    assert attention["reason"] == (
        "0 of 3 control trials passed (at least 50% required)"
    )
    judgments = read_tsv(results / "judgments" / "text-rating.tsv")
    theirs = [r for r in judgments if r["session"] == "sim-L05"]
    assert len(theirs) == 63
    assert all(r["excluded"] == "true" for r in theirs)
    assert all(r["in_analysis"] == "false" for r in judgments if r["control"])
    measures = read_tsv(results / "judgments" / "measures" / "text-rating.tsv")
    assert "CONTROL" not in {r["system"] for r in measures}
    html = (results / "report" / "index.html").read_text(encoding="utf-8")
    assert "1 of 6 participants excluded" in html
    # the report names participants by keyed pseudonym (release.key, else
    # the campaign ID: stecflow.judgments.public)
    name = pseudonym("sim-L05", "demo-text-release-key", prefix="P-")
    assert f"{name}: attention, 0 of 3 control trials passed" in html
    assert "sim-L05" not in html


def test_report_release_and_nothing_left_to_do(checkout):
    results = checkout / "results" / "text-demo"
    html = (results / "report" / "index.html").read_text(encoding="utf-8")
    assert "chrF++" in html and "TER" in html
    assert "Pairwise preference, study text-preference" in html
    assert "ratings per criterion" in html
    assert "Automatic intrinsic scores per category" in html
    assert "listed in order of overall BLEU" in html
    with zipfile.ZipFile(results / "release" / "demo-text-1.zip") as zipped:
        names = set(zipped.namelist())
    assert "submissions/organisers/rules/outputs.txt" in names
    assert "submissions/organisers/weak/outputs.json" in names
    assert planned_jobs(checkout, "--configfile", CONFIG) == {}

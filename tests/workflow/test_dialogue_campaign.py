"""The situated-dialogue campaign (config/dialogue-demo.yaml) end to end.

Seed 000's study on the simulated demo corpus: the organisers' two baselines are
validated and scored, the recency baseline's false positives are tested in the
situated identification study (answered by simulated evaluators), and the report
and the release archive hold the intrinsic evaluation, the design, seed 000's
Tables 7-9, the t-tests and the re-scored precision and F.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from fractions import Fraction
from pathlib import Path

import pytest

from stecflow.core.io import read_tsv
from stecflow.data.dialogue import read_corpus
from stecflow.metrics.classification import confusion_matrix
from stecflow.tasks.base import Limits
from stecflow.tasks.situated_dialogue import items_from_sessions, read_outputs
from tests.conftest import REPO
from tests.workflow.helpers import planned_jobs, snakemake

pytestmark = pytest.mark.workflow

CONFIG = "config/dialogue-demo.yaml"
DEMO = REPO / "resources" / "dialogue-demo"


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """A copy of the config and resources, the campaign run once in it."""
    pytest.importorskip("sklearn", reason="pip install 'stecflow[dialogue]'")
    folder = tmp_path_factory.mktemp("dialogue-checkout")
    shutil.copytree(REPO / "config", folder / "config")
    shutil.copytree(DEMO, folder / "resources" / "dialogue-demo")
    snakemake(folder, "--configfile", CONFIG)
    return folder


def _confusion(system: str):
    """The system's confusion matrix, computed here from its outputs.tsv."""
    items = items_from_sessions(read_corpus(DEMO))
    data = (DEMO / "submissions" / "organisers" / system / "outputs.tsv").read_bytes()
    outputs, problems = read_outputs(data, "outputs.tsv", items, ["pronoun"], Limits())
    assert not problems
    return confusion_matrix(
        [item.input.pronoun for item in items], [o.get("pronoun") for o in outputs]
    )


def test_scores_are_the_confusion_of_each_baseline(checkout):
    results = checkout / "results" / "dialogue-demo"
    assert (results / ".campaign").read_text() == "demo-dialogue\n"
    assert (results / "data" / "testset.json").is_file()
    summary = read_tsv(results / "validation" / "summary.tsv")
    assert [(r["system"], r["status"]) for r in summary] == [
        ("logistic", "accepted"),
        ("recency", "accepted"),
    ]
    scores = {
        (r["system"], r["metric"]): float(r["value"])
        for r in read_tsv(results / "scores" / "systems.tsv")
        if r["subset"] == "all"
    }
    intrinsic = json.loads((results / "stats" / "intrinsic.json").read_text())
    counts = {s["system"]: s for s in intrinsic["systems"]}
    for system in ("logistic", "recency"):
        cm = _confusion(system)
        assert scores[(system, "decision_precision")] == pytest.approx(cm.precision)
        assert scores[(system, "decision_recall")] == pytest.approx(cm.recall)
        assert scores[(system, "decision_f")] == pytest.approx(cm.f)
        assert (counts[system]["tp"], counts[system]["fp"]) == (cm.tp, cm.fp)
        assert (counts[system]["fn"], counts[system]["tn"]) == (cm.fn, cm.tn)
    # the recency baseline: a pronoun iff the target was mentioned last
    assert (counts["recency"]["tp"], counts["recency"]["fp"]) == (68, 35)
    assert scores[("recency", "decision_f")] == pytest.approx(136 / 232)


def test_study_design_judgments_and_statistics(checkout):
    results = checkout / "results" / "dialogue-demo"
    design = json.loads((results / "studies" / "situated" / "design.json").read_text())
    assert design["system"] == "organisers/recency"
    # 32 of the 35 FP instances qualify (30 s context), all tested; 20 TP, 20 FN
    assert design["counts"]["fp"] == 32
    assert (design["counts"]["tp"], design["counts"]["fn"]) == (20, 20)
    rows = read_tsv(results / "studies" / "situated" / "design.tsv")
    per_list = {}
    for row in rows:
        per_list.setdefault(row["list"], []).append(row["condition"])
    assert len(per_list) == 36
    assert {len(v) for v in per_list.values()} == {72}  # under the budget of 80
    for conditions in per_list.values():
        assert conditions.count("FP-Orig") == conditions.count("FP-system") == 16
        assert conditions.count("TP") == conditions.count("FN") == 20

    summary = json.loads(
        (results / "judgments" / "summary" / "situated.json").read_text()
    )
    assert summary["simulated"] is True and summary["awaiting_responses"] is False
    assert summary["counts"]["evaluators"] == 36
    ir = {r["class"]: r for r in summary["identification"]}
    assert ir["TP"]["n_responses"] == 36 * 20 and ir["FP-Orig"]["n_responses"] == 576
    assert ir["TP"]["ir"] > ir["FN"]["ir"]  # the model's recency effect
    # re-scoring: the FPs the majority identified count as correct (seed 000 5.4)
    rescored = summary["rescored"]
    credited = rescored["fp_identified"]
    assert rescored["precision"] == pytest.approx(float(Fraction(68 + credited, 103)))
    assert rescored["recall"] == pytest.approx(68 / 129)
    judgments = read_tsv(results / "judgments" / "situated.tsv")
    assert len(judgments) == 36 * 72 and {r["simulated"] for r in judgments} == {"true"}

    ttests = json.loads((results / "stats" / "situated-ttests.json").read_text())
    assert [t["about"] for t in ttests["text"]] == [
        "TP vs FN: identification rate",
        "TP vs FN: identification time (ms)",
        "FP-system vs FP-Orig: identification rate",
        "FP-system vs FP-Orig: identification time (ms)",
    ]
    assert all(t["text"].startswith("t(35) = ") for t in ttests["text"])
    assert ttests["simulated"] is True


def test_clip_list_and_durations(checkout):
    """Issue #45 point 12: each clip's start and end, and their mean and SD
    (seed 000 §5.1, "15.2 s (SD = 7.9 s)" in its corpus) in the report."""
    import statistics

    results = checkout / "results" / "dialogue-demo"
    clips = read_tsv(results / "studies" / "situated" / "clips.tsv")
    shown = read_tsv(results / "studies" / "situated" / "design.tsv")
    assert [r["instance"] for r in clips] == sorted({r["item"] for r in shown})
    durations = [int(r["end_ms"]) - int(r["start_ms"]) for r in clips]
    assert durations == [int(r["duration_ms"]) for r in clips]
    assert all(r["end_ms"] == r["utterance_onset_ms"] for r in clips)
    assert len(durations) == 72 and max(durations) <= 30_000
    design = json.loads((results / "studies" / "situated" / "design.json").read_text())
    assert design["clips"]["mean_ms"] == pytest.approx(statistics.fmean(durations))
    assert design["clips"]["sd_ms"] == pytest.approx(statistics.stdev(durations))
    html = (results / "report" / "index.html").read_text(encoding="utf-8")
    assert "mean 7.2 s (SD = 6.0 s), from 2.4 to 29.7 s, 72 clips" in html
    assert 'id="situated-situated-clips"' in html


def test_report_and_release(checkout):
    results = checkout / "results" / "dialogue-demo"
    html = (results / "report" / "index.html").read_text(encoding="utf-8")
    assert 'id="situated"' in html and "Simulated data." in html
    assert "Spanger et al." in html  # the scores follow seed 000, not TUNA-REG
    assert "decisions (against the corpus)" in html
    assert ">nan<" not in html and "NaN" not in html
    [archive] = (results / "release").glob("*.zip")
    assert archive.name == "demo-dialogue-1.zip"
    with zipfile.ZipFile(archive) as zipped:
        names = zipped.namelist()
        datasheet = zipped.read("DATASHEET.md").decode()
    assert "data/testset.json" in names
    assert "submissions/organisers/recency/outputs.tsv" in names
    assert "judgments/situated.tsv" in names
    assert "studies/situated/clips.tsv" in names  # the clip list (issue #45, 12)
    assert "two-group design" in datasheet and "32 false-positive" in datasheet
    # nothing left to do: a second run plans no job
    assert planned_jobs(checkout, "--configfile", CONFIG) == {}

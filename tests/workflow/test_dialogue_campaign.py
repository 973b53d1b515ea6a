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
    # the baselines and the logistic regression without each feature group
    # (seed 000 Table 4)
    systems = ["logistic", "logistic-no-A", "logistic-no-D", "logistic-no-O", "recency"]
    assert [(r["system"], r["status"]) for r in summary] == [
        (system, "accepted") for system in systems
    ]
    scores = {
        (r["system"], r["metric"]): float(r["value"])
        for r in read_tsv(results / "scores" / "systems.tsv")
        if r["subset"] == "all"
    }
    intrinsic = json.loads((results / "stats" / "intrinsic.json").read_text())
    counts = {s["system"]: s for s in intrinsic["systems"]}
    for system in systems:
        cm = _confusion(system)
        assert scores[(system, "decision_precision")] == pytest.approx(cm.precision)
        assert scores[(system, "decision_recall")] == pytest.approx(cm.recall)
        assert scores[(system, "decision_f")] == pytest.approx(cm.f)
        assert (counts[system]["tp"], counts[system]["fp"]) == (cm.tp, cm.fp)
        assert (counts[system]["fn"], counts[system]["tn"]) == (cm.fn, cm.tn)
    # the recency baseline: a pronoun iff the target was mentioned last
    assert (counts["recency"]["tp"], counts["recency"]["fp"]) == (68, 35)
    assert scores[("recency", "decision_f")] == pytest.approx(136 / 232)
    # Table 4's "all but current operation": TP 86, FP 47, FN 43
    assert scores[("logistic-no-O", "decision_f")] == pytest.approx(172 / 262)


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
    assert "except those of the current operation (O1-O2)" in html  # Table 4 rows
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


def test_corpus_description_lengths_and_errors_in_the_report(checkout):
    """Issue #45 points 10, 13 and 14, each against an independent count."""
    import statistics
    from collections import Counter

    from tests.unit.test_report_situated import cells

    results = checkout / "results" / "dialogue-demo"
    html = (results / "report" / "index.html").read_text(encoding="utf-8")
    # 10: the test set by form, feature and speaker (seed 000 Table 2)
    counts: Counter = Counter()
    for session in read_corpus(DEMO):
        for utterance, expression in session.expressions():
            counts["all", utterance.speaker] += 1
            for feature in expression.content or ():
                counts[feature, utterance.speaker] += 1
    table = {r[0]: r[1:] for r in cells(html, "testset-expressions")}
    assert table["All referring expressions (to one piece)"] == ["368", "43", "411"]
    assert counts["all", "solver"] == 368 and counts["all", "operator"] == 43
    assert table["(a) Demonstratives: pronouns (“that one”)"] == ["129", "43", "172"]
    assert table["(b) Object attributes (“the small triangle”)"][0] == str(
        counts["object_attribute", "solver"]
    )
    assert table["(c) Spatial relations (“on the left”)"][0] == str(
        counts["spatial_relation", "solver"]
    )
    assert table["(d) Actions on a piece (“the triangle you just moved”)"][0] == str(
        counts["action", "solver"]
    )
    excluded = {r[0]: r[1] for r in cells(html, "testset-excluded")}
    assert excluded["the operator's expressions"] == "43"
    assert excluded["Instances (the task's items)"] == "368"
    # 13: the corpus expression against the recency baseline's "that one"
    judgments = read_tsv(results / "judgments" / "situated.tsv")
    shown = {(r["instance"], r["class"]): r["expression"] for r in judgments}
    fp = sorted({i for i, c in shown if c == "FP-Orig"})
    diffs = [len(shown[i, "FP-Orig"]) - len(shown[i, "FP-system"]) for i in fp]
    length = json.loads((results / "stats" / "situated-length.json").read_text())
    chars = length["rows"][0]
    assert chars["unit"] == "characters" and chars["n"] == len(fp) == 32
    assert chars["mean_difference"] == pytest.approx(statistics.mean(diffs))
    assert chars["sd_difference"] == pytest.approx(statistics.stdev(diffs))
    row = cells(html, "situated-situated-length-situated-length")[0]
    assert row[1:6] == [
        "32",
        f"{statistics.mean(len(shown[i, 'FP-Orig']) for i in fp):.2f}",
        "8.00",  # "that one"
        f"{statistics.mean(diffs):.2f}",
        f"{statistics.stdev(diffs):.2f}",
    ]
    # 14: the instances fewer than half the evaluators identified
    right: Counter = Counter()
    total: Counter = Counter()
    for r in judgments:
        total[r["instance"], r["class"]] += 1
        right[r["instance"], r["class"]] += r["correct"] == "true"
    below = Counter(c for (i, c), n in total.items() if right[i, c] / n < 0.5)
    by_class: Counter = Counter()
    for r in cells(html, "situated-situated-errors"):
        by_class[r[0] if r[0] in ("TP", "FN", "FP-Orig") else "FP-system"] += int(r[3])
    assert +by_class == +below and below["FN"] > 0
    assert len(cells(html, "situated-situated-wrong")) == sum(below.values())

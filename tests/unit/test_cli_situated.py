"""The command line on the situated-dialogue task (seed 000): baselines, scoring,
validation of ``outputs.tsv``, and the decision metrics in the config schema."""

from __future__ import annotations

import re
import sys

import pytest
import yaml

from stecflow.cli import main
from stecflow.core.errors import ConfigError
from stecflow.scoring.specs import metric_specs
from tests.conftest import REPO

DEMO = REPO / "resources" / "dialogue-demo"


@pytest.fixture(scope="module")
def items():
    from stecflow.data.dialogue import read_corpus
    from stecflow.tasks.situated_dialogue import items_from_sessions

    return items_from_sessions(read_corpus(DEMO))


def _recency(tmp_path, capsys):
    folder = tmp_path / "organisers" / "recency"
    assert (
        main(["baseline", "recency", "--dialogue", str(DEMO), "--out", str(folder)])
        == 0
    )
    assert capsys.readouterr().out == (
        f"wrote 368 decisions to {folder / 'outputs.tsv'}\n"
    )
    return folder


def test_recency_baseline_writes_the_submission_of_baselines_situated(
    tmp_path, capsys, items
):
    from stecflow.baselines.situated import recency_outputs
    from stecflow.tasks.situated_dialogue import format_outputs

    folder = _recency(tmp_path, capsys)
    assert (folder / "outputs.tsv").read_text(encoding="utf-8") == format_outputs(
        recency_outputs(items)
    )
    meta = yaml.safe_load((folder / "system.yaml").read_text(encoding="utf-8"))
    assert meta["team"] == "organisers" and meta["system"] == "recency"
    assert meta["tasks"] == ["situated_dialogue"] and meta["primary"] is False
    assert "feature D1" in meta["description"]


def test_score_recency_prints_the_confusion_matrix_of_classification(
    tmp_path, capsys, items
):
    from stecflow.baselines.situated import recency_outputs
    from stecflow.metrics.classification import confusion_matrix

    folder = _recency(tmp_path, capsys)
    outputs = recency_outputs(items)
    m = confusion_matrix(
        [i.references[0].get("pronoun") for i in items],
        [o.get("pronoun") for o in outputs],
    )
    assert (m.tp, m.fp, m.fn, m.tn) == (68, 35, 61, 204)
    tsv = tmp_path / "scores.tsv"
    args = ["score", str(DEMO), str(folder / "outputs.tsv"), "--resamples", "0"]
    assert main([*args, "--tsv", str(tsv)]) == 0
    out = capsys.readouterr().out
    # P = 68/103, R = 68/129, F = 2*68/(2*68 + 35 + 61) = 136/232
    assert round(m.precision, 3) == 0.660 and round(m.recall, 3) == 0.527
    assert round(m.f, 3) == round(136 / 232, 3) == 0.586
    assert "precision 0.660  recall 0.527  F 0.586" in out
    assert "system DP      TP     68  FP         35" in out
    assert "system not DP  FN     61  TN        204" in out
    assert "Pronoun decisions (368 instances;" in out
    # the table's overall scores are the same numbers, with the report's three
    # decimals (seed 000's), through the registered decision metrics; its
    # columns count the instances, as the report's do (precision's n is 103)
    table = out.splitlines()[2]
    assert "All items (n = 368)" in table and "S01 (n = 63)" in table
    sessions = {}
    for item in items:
        name = item.subdomain.upper()
        sessions[name] = sessions.get(name, 0) + 1
    assert sum(sessions.values()) == 368 and sessions["S01"] == 63
    assert all(f"{s} (n = {n})" in table for s, n in sessions.items())
    lines = {line.split()[0]: line.split()[1] for line in out.splitlines()[3:6]}
    assert lines == {"Precision": "0.660", "Recall": "0.527", "F-measure": "0.586"}
    # the long records keep each metric's denominator
    import csv

    from stecflow.scoring.score import score_outputs

    with open(tsv, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    shown = {r["metric"]: (r["value"], r["n"]) for r in rows if r["subset"] == "all"}
    assert shown == {
        "decision_precision": ("0.660", "103"),
        "decision_recall": ("0.527", "129"),
        "decision_f": ("0.586", "368"),
    }
    _, system_rows = score_outputs(
        items, outputs, {"bootstrap": {"resamples": 0}}, tasks=["situated_dialogue"]
    )
    exact = {r["metric"]: r["value"] for r in system_rows if r["subset"] == "all"}
    assert exact["decision_precision"] == pytest.approx(m.precision)
    assert exact["decision_recall"] == pytest.approx(m.recall)
    assert exact["decision_f"] == pytest.approx(m.f)


def test_score_format_dialogue_given_or_detected_is_the_same(tmp_path, capsys):
    folder = _recency(tmp_path, capsys)
    base = ["score", str(DEMO), str(folder / "outputs.tsv"), "--resamples", "0"]
    assert main(base) == 0
    detected = capsys.readouterr().out
    assert main([*base, "--format", "dialogue"]) == 0
    assert capsys.readouterr().out == detected
    assert main([*base, "--format", "tuna"]) == 2
    assert "give --format dialogue" in capsys.readouterr().err


def test_dialogue_folder_is_recognised_by_its_format_key(tmp_path):
    from stecflow.tasks.formats import chosen_format as _data_format

    assert _data_format(str(DEMO), None) == "dialogue"
    assert _data_format(str(DEMO), "tuna") == "tuna"  # given wins (then refused)
    other = tmp_path / "other"
    other.mkdir()
    (other / "a.json").write_text('{"format": "something-else"}', encoding="utf-8")
    assert _data_format(str(other), None) == "tuna"
    (other / "a.json").write_text("not json", encoding="utf-8")
    assert _data_format(str(other), None) == "tuna"
    compact = tmp_path / "compact"
    compact.mkdir()
    (compact / "s.json").write_text('{"format":"stecflow-dialogue"}', "utf-8")
    assert _data_format(str(compact), None) == "dialogue"


def test_logistic_baseline_folds_and_seed(tmp_path, capsys, items):
    pytest.importorskip("sklearn")
    from stecflow.baselines.situated import logistic_outputs
    from stecflow.tasks.situated_dialogue import format_outputs

    folder = tmp_path / "organisers" / "logistic"
    argv = ["baseline", "logistic", "--dialogue", str(DEMO), "--out", str(folder)]
    assert main([*argv, "--folds", "3", "--seed", "7"]) == 0
    capsys.readouterr()
    learnt = logistic_outputs(items, folds=3, seed=7)
    assert (folder / "outputs.tsv").read_text(encoding="utf-8") == format_outputs(
        learnt.outputs
    )
    meta = yaml.safe_load((folder / "system.yaml").read_text(encoding="utf-8"))
    assert "3-fold cross-validation grouped by session (seed 7)" in " ".join(
        meta["description"].split()
    )


def test_logistic_without_scikit_learn_says_how_to_install(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setitem(sys.modules, "sklearn", None)  # import fails
    folder = tmp_path / "organisers" / "logistic"
    argv = ["baseline", "logistic", "--dialogue", str(DEMO), "--out", str(folder)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "needs scikit-learn" in err
    assert "pip install 'stecflow[dialogue]'" in err
    assert not folder.exists()


def test_baseline_usage_errors(tmp_path, capsys):
    out = str(tmp_path / "t" / "s")
    assert main(["baseline", "greedy", "--dialogue", str(DEMO), "--out", out]) == 2
    assert "greedy is a REG baseline" in capsys.readouterr().err
    xml = REPO / "tests" / "fixtures" / "tiny_campaign" / "testset.xml"
    assert main(["baseline", "recency", str(xml), out]) == 2
    assert "--dialogue DIR" in capsys.readouterr().err
    assert main(["baseline", "recency", "--out", out]) == 2
    assert "give the data set" in capsys.readouterr().err
    assert main(["baseline", "recency", str(DEMO), "--dialogue", str(DEMO)]) == 2
    assert "give the data set once" in capsys.readouterr().err


def test_validate_accepts_the_baseline_and_rejects_a_broken_line(tmp_path, capsys):
    folder = _recency(tmp_path, capsys)
    assert main(["validate", str(folder), "--testset", str(DEMO)]) == 0
    out = capsys.readouterr().out
    assert "**Status: ACCEPTED**" in out
    assert "outputs read: 368 of 368 test items" in out
    path = folder / "outputs.tsv"
    lines = path.read_text(encoding="utf-8").splitlines()
    instance = lines[2].split("\t")[0]
    lines[2] = f"{instance}\tyes"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["validate", str(folder), "--testset", str(DEMO)]) == 1
    out = capsys.readouterr().out
    assert "**Status: REJECTED**" in out
    assert "| organisers/recency/outputs.tsv | 3 |" in out
    assert "must be 1 (a demonstrative pronoun) or 0, not 'yes'" in out
    # score refuses it too, naming the line, unless --partial
    assert main(["score", str(DEMO), str(path), "--resamples", "0"]) == 1
    err = capsys.readouterr().err
    assert "outputs.tsv, line 3, pronoun:" in err
    assert main(["score", str(DEMO), str(path), "--resamples", "0", "--partial"]) == 0
    assert "Pronoun decisions (367 instances;" in capsys.readouterr().out


@pytest.mark.parametrize(
    "words",
    [
        "--format {tuna,b5-ref,dialogue,text}",
        "stecflow-dialogue sessions",
        "outputs.tsv",
        "confusion matrix",
        "demonstrative pronoun",
    ],
)
def test_score_help_explains_the_situated_task(words, capsys):
    with pytest.raises(SystemExit) as info:
        main(["score", "--help"])
    assert info.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert words in out


def test_baseline_help_names_the_situated_options(capsys):
    with pytest.raises(SystemExit):
        main(["baseline", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for words in (
        "recency",
        "logistic",
        "--dialogue DIR",
        "--out FOLDER",
        "--folds FOLDS",
        "--seed SEED",
        "'dialogue' extra",
    ):
        assert words in out


def test_schema_lists_every_decision_metric():
    from stecflow.metrics.base import available_metrics, metric_class

    schema = yaml.safe_load(
        (REPO / "workflow" / "schemas" / "config.schema.yaml").read_text("utf-8")
    )
    metric = schema["properties"]["scoring"]["properties"]["metrics"]["items"][
        "properties"
    ]["metric"]
    decision = {
        n for n in available_metrics() if metric_class(n).input_type == "decision"
    }
    assert decision == {"decision_precision", "decision_recall", "decision_f"}
    # the schema checks the form of a name (plug-ins are package.module:Class);
    # the names themselves are checked in code (scoring.specs), and documented
    assert "decision_f" in metric["description"]
    assert all(re.fullmatch(metric["pattern"], name) for name in decision)


def test_schema_accepts_a_situated_campaign_scoring():
    import jsonschema

    schema = yaml.safe_load(
        (REPO / "workflow" / "schemas" / "config.schema.yaml").read_text("utf-8")
    )
    scoring = {
        "metrics": [
            {"id": "P", "metric": "decision_precision"},
            {"id": "R", "metric": "decision_recall"},
            {"id": "F", "metric": "decision_f"},
        ]
    }
    sub = {**schema, "properties": {"scoring": schema["properties"]["scoring"]}}
    sub.pop("required", None)
    jsonschema.validate({"scoring": scoring}, sub)
    bad = {"metrics": [{"id": "A", "metric": "decision_accuracy"}]}
    jsonschema.validate({"scoring": bad}, sub)  # a well-formed name ...
    with pytest.raises(ConfigError, match="decision_accuracy") as caught:
        metric_specs(bad, ["situated_dialogue"])  # ... that no metric has
    assert caught.value.field.startswith("scoring.metrics[")

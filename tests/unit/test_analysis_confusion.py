"""The ``confusion`` analysis (issue #15 point 4): instance classes per system.

The item scores are made for real: the demo corpus (resources/dialogue-demo) is
written as the prepared corpus file, the two organisers' baselines (recency,
logistic) are written as submissions, validated, scored by
:func:`stecflow.scoring.score.score_submission` and gathered by
:func:`stecflow.analysis.collect.collect_item_scores`, as the workflow does.
The classes are checked against :func:`stecflow.metrics.classification.
instance_classes` on the corpus's gold forms and the baselines' decisions, and the
counts against those of tests/unit/test_baselines_situated.py (recency: TP 68,
FP 35, FN 61, TN 204; logistic: TP 103, FP 14, FN 26, TN 225).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from stecflow.analysis.collect import ITEM_TABLE_COLUMNS, collect_item_scores
from stecflow.analysis.run import run_analysis
from stecflow.analysis.situated import (
    CONFUSION_COLUMNS,
    CONFUSION_SYSTEM_KEYS,
    decision_confusion,
)
from stecflow.analysis.specs import analysis_specs
from stecflow.core.errors import ConfigError, StecflowError
from stecflow.core.io import read_tsv, write_tsv
from stecflow.metrics.classification import ConfusionMatrix, instance_classes
from tests.conftest import REPO

DEMO = REPO / "resources" / "dialogue-demo"
COUNTS = {"recency": (68, 35, 61, 204), "logistic": (103, 14, 26, 225)}


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    """items.tsv and analysed.tsv of the two baselines, and their decisions."""
    pytest.importorskip("sklearn")
    from stecflow.baselines.situated import write_baseline_submissions
    from stecflow.data.dialogue import read_corpus, write_corpus_file
    from stecflow.scoring.score import score_submission
    from stecflow.submissions.outputs import read_outputs
    from stecflow.submissions.report import write_validation
    from stecflow.submissions.validation import validate_submission
    from stecflow.tasks.registry import read_testset

    root = tmp_path_factory.mktemp("confusion")
    testset = root / "data" / "testset.json"
    write_corpus_file(read_corpus(DEMO), testset)
    items = read_testset(testset)
    folders = write_baseline_submissions(items, root / "submissions", seed=2009)
    summaries, tables, records, decided = [], [], [], {}
    for folder in folders:
        team, system = folder.parent.name, folder.name
        record = validate_submission(
            folder,
            items,
            team=team,
            system=system,
            campaign_tasks=["situated_dialogue"],
        )
        assert record["status"] == "accepted"
        validation = root / "validation" / team / f"{system}.json"
        validation.parent.mkdir(parents=True, exist_ok=True)
        write_validation(record, validation, validation.with_suffix(".md"))
        score_submission(
            validation,
            folder,
            testset,
            {"bootstrap": {"resamples": 50}},
            root / "scores" / "items" / team / f"{system}.tsv",
            root / "scores" / "systems" / team / f"{system}.json",
            tasks=["situated_dialogue"],
        )
        summaries.append(root / "scores" / "systems" / team / f"{system}.json")
        tables.append(root / "scores" / "items" / team / f"{system}.tsv")
        records.append(validation)
        outputs, problems = read_outputs(
            (folder / "outputs.tsv").read_bytes(),
            "outputs.tsv",
            items,
            ["situated_dialogue"],
        )
        assert problems == []
        decided[system] = {o.item_id: o.get("pronoun") for o in outputs}
    collect_item_scores(
        summaries,
        tables,
        root / "scores" / "items.tsv",
        root / "scores" / "analysed.tsv",
        validation_paths=records,
    )
    return {
        "root": root,
        "items": items,
        "decided": decided,
        "items_tsv": root / "scores" / "items.tsv",
        "analysed": root / "scores" / "analysed.tsv",
    }


def dialogue_config(analyses=None, metrics=None, studies=None) -> dict:
    """The parts of config/dialogue-demo.yaml that analysis_specs reads."""
    ids = metrics or ["decision_precision", "decision_recall", "decision_f"]
    return {
        "campaign": {"id": "demo-dialogue", "tasks": ["situated_dialogue"]},
        "scoring": {"metrics": [{"id": m} for m in ids]},
        "studies": studies or [],
        "statistics": {"analyses": analyses or []},
    }


def run(spec, scored, tmp_path):
    record = run_analysis(
        spec,
        scored["items_tsv"],
        scored["analysed"],
        tmp_path / f"{spec['id']}.tsv",
        tmp_path / f"{spec['id']}.json",
    )
    return record, read_tsv(tmp_path / f"{spec['id']}.tsv")


def test_classes_match_instance_classes_and_the_baseline_counts(scored, tmp_path):
    (spec,) = analysis_specs(
        dialogue_config([{"id": "intrinsic", "test": "confusion"}])
    )
    assert spec == {
        "id": "intrinsic",
        "test": "confusion",
        "source": "scores",
        "measures": ["decision_precision", "decision_recall"],
    }
    record, rows = run(spec, scored, tmp_path)
    assert list(rows[0]) == list(CONFUSION_COLUMNS)
    assert len(rows) == 2 * 368
    gold = [i.input.pronoun for i in scored["items"]]
    for system, (tp, fp, fn, tn) in COUNTS.items():
        mine = {r["instance"]: r for r in rows if r["system"] == system}
        predicted = [scored["decided"][system][i.id] for i in scored["items"]]
        expected = instance_classes(gold, predicted)
        assert [mine[i.id]["class"] for i in scored["items"]] == expected
        assert [mine[i.id]["session"] for i in scored["items"]] == [
            i.input.session for i in scored["items"]
        ]
        classes = [mine[i.id]["class"] for i in scored["items"]]
        assert tuple(classes.count(c) for c in ("TP", "FP", "FN", "TN")) == (
            tp,
            fp,
            fn,
            tn,
        )
        assert {r["team"] for r in mine.values()} == {"organisers"}
        entry = next(s for s in record["systems"] if s["system"] == system)
        assert set(CONFUSION_SYSTEM_KEYS) <= set(entry)
        assert (entry["tp"], entry["fp"], entry["fn"], entry["tn"]) == (tp, fp, fn, tn)
        assert entry["n"] == 368 and entry["tn_unlisted"] == 0
        assert entry["label"] == system and entry["team"] == "organisers"
        matrix = ConfusionMatrix(tp, fp, fn, tn)
        for key in ("precision", "recall", "f"):
            assert entry[key] == pytest.approx(getattr(matrix, key), abs=1e-12)
    # by hand: recency P = 68 / 103, R = 68 / 129, F = 136 / 232
    recency = next(s for s in record["systems"] if s["system"] == "recency")
    assert recency["precision"] == pytest.approx(68 / 103, abs=1e-12)
    assert recency["recall"] == pytest.approx(68 / 129, abs=1e-12)
    assert recency["f"] == pytest.approx(136 / 232, abs=1e-12)


def test_json_record_has_what_the_report_reads(scored, tmp_path):
    (spec,) = analysis_specs(
        dialogue_config([{"id": "intrinsic", "test": "confusion"}])
    )
    run(spec, scored, tmp_path)
    record = json.loads((tmp_path / "intrinsic.json").read_text())
    assert {"id", "test", "alpha", "spec", "settings", "text", "systems"} <= set(record)
    assert record["test"] == "confusion" and record["awaiting_responses"] == []
    assert [s["label"] for s in record["systems"]] == ["logistic", "recency"]
    assert record["skipped"] == []
    assert record["text"] == [
        {
            "about": "logistic",
            "text": "P = .880, R = .798, F = .837 (TP 103, FP 14, FN 26, TN 225;"
            " n = 368)",
        },
        {
            "about": "recency",
            "text": "P = .660, R = .527, F = .586 (TP 68, FP 35, FN 61, TN 204;"
            " n = 368)",
        },
    ]
    assert record["settings"] == {
        "precision": "decision_precision",
        "recall": "decision_recall",
    }


def _copy_items(scored, tmp_path, keep=lambda row: True, change=None) -> Path:
    rows = [r for r in read_tsv(scored["items_tsv"]) if keep(r)]
    if change:
        change(rows)
    path = tmp_path / "items.tsv"
    write_tsv(rows, ITEM_TABLE_COLUMNS, path)
    return path


def test_tn_rows_left_out_of_items_are_still_counted(scored, tmp_path):
    # items.tsv lists every instance (an undefined score as an empty cell); were
    # the TN rows dropped, n would still come from analysed.tsv's counts
    rows = read_tsv(scored["items_tsv"])
    decision = ("decision_precision", "decision_recall")
    defined = {
        (r["system"], r["item"])
        for r in rows
        if r["metric"] in decision and r["value"] != ""
    }

    def listed(row):
        tn = (row["system"], row["item"]) not in defined
        return not (row["system"] == "recency" and row["metric"] in decision and tn)

    path = _copy_items(scored, tmp_path, keep=listed)
    frame, extra = decision_confusion(path, scored["analysed"])
    recency = next(s for s in extra["systems"] if s["system"] == "recency")
    assert (recency["tp"], recency["fp"], recency["fn"], recency["tn"]) == COUNTS[
        "recency"
    ]
    assert recency["n"] == 368 and recency["tn_unlisted"] == 204
    shown = frame[frame["system"] == "recency"]
    assert len(shown) == 368 - 204 and "TN" not in set(shown["class"])
    logistic = next(s for s in extra["systems"] if s["system"] == "logistic")
    assert logistic["tn"] == 225 and logistic["tn_unlisted"] == 0


def test_bad_item_scores_are_errors_with_their_line(scored, tmp_path):
    rows = read_tsv(scored["items_tsv"])
    target = next(
        n
        for n, r in enumerate(rows)
        if r["metric"] == "decision_precision" and r["value"] == "1"
    )

    def half(rows):
        rows[target]["value"] = "0.5"

    path = _copy_items(scored, tmp_path, change=half)
    with pytest.raises(StecflowError, match="expected 1, 0 or empty") as caught:
        decision_confusion(path, scored["analysed"])
    assert caught.value.line == target + 2 and caught.value.field == "value"

    def flip(rows):  # a TP whose precision says FP: no decision cell
        rows[target]["value"] = "0"

    path = _copy_items(scored, tmp_path, change=flip)
    with pytest.raises(StecflowError, match="is no decision cell") as caught:
        decision_confusion(path, scored["analysed"])
    assert caught.value.line == target + 2


def test_counts_that_disagree_with_analysed_are_an_error(scored, tmp_path):
    rows = read_tsv(scored["items_tsv"])
    # an FP turned TN: both scores empty, but analysed.tsv still counts TP + FP
    fp = next(
        r["item"]
        for r in rows
        if r["metric"] == "decision_precision"
        and r["value"] == "0"
        and r["system"] == "recency"
    )

    def drop_fp(rows):
        for r in rows:
            if r["system"] == "recency" and r["item"] == fp:
                r["value"] = ""

    path = _copy_items(scored, tmp_path, change=drop_fp)
    with pytest.raises(StecflowError, match="do not belong together") as caught:
        decision_confusion(path, scored["analysed"])
    assert caught.value.file == str(scored["analysed"])


def test_a_system_without_decision_scores_is_reported_not_dropped(scored, tmp_path):
    analysed = tmp_path / "analysed.tsv"
    rows = read_tsv(scored["analysed"])
    for row in rows:
        if row["system"] == "recency" and row["metric"] == "decision_recall":
            row.update(status="skipped", reason="no outputs to score", n="", value="")
    write_tsv(rows, list(rows[0]), analysed)
    path = _copy_items(scored, tmp_path, keep=lambda r: r["system"] != "recency")
    frame, extra = decision_confusion(path, analysed)
    assert [s["system"] for s in extra["systems"]] == ["logistic"]
    assert extra["skipped"] == [
        {
            "team": "organisers",
            "system": "recency",
            "label": "recency",
            "reason": "decision_recall was not scored (no outputs to score)",
        }
    ]
    assert set(frame["system"]) == {"logistic"}


def test_metric_ids_other_than_the_registry_names(scored, tmp_path):
    def rename(rows):
        for r in rows:
            r["metric"] = {"decision_precision": "p", "decision_recall": "r"}.get(
                r["metric"], r["metric"]
            )

    path = _copy_items(scored, tmp_path, change=rename)
    analysed = tmp_path / "analysed.tsv"
    shutil.copy(scored["analysed"], analysed)
    rows = read_tsv(analysed)
    rename(rows)
    write_tsv(rows, list(rows[0]), analysed)
    config = dialogue_config([{"id": "c", "test": "confusion"}], metrics=["decision_f"])
    config["scoring"]["metrics"] += [
        {"id": "p", "metric": "decision_precision"},
        {"id": "r", "metric": "decision_recall"},
    ]
    (spec,) = analysis_specs(config)
    assert spec["measures"] == ["p", "r"]
    record = run_analysis(spec, path, analysed, tmp_path / "c.tsv", tmp_path / "c.json")
    assert [(s["tp"], s["fn"]) for s in record["systems"]] == [(103, 26), (68, 61)]


def test_config_errors_name_the_field():
    def fails(entry, match, field, **kwargs):
        with pytest.raises(ConfigError, match=match) as caught:
            analysis_specs(dialogue_config([entry], **kwargs))
        assert caught.value.field == field

    fails(
        {"id": "c", "test": "confusion", "source": "situated"},
        "its source is scores",
        "statistics.analyses[0].source",
    )
    fails(
        {"id": "c", "test": "confusion", "factors": ["system"]},
        "factors does not apply to confusion",
        "statistics.analyses[0].factors",
    )
    fails(
        {"id": "c", "test": "confusion"},
        "needs the metrics decision_precision and decision_recall",
        "statistics.analyses[0].test",
        metrics=["decision_precision", "decision_f"],
    )
    fails(
        {"id": "c", "test": "confusion", "measures": ["decision_recall"]},
        "in this order",
        "statistics.analyses[0].measures",
    )
    fails(
        {
            "id": "c",
            "test": "confusion",
            "measures": ["decision_recall", "decision_precision"],
        },
        "in this order",
        "statistics.analyses[0].measures",
    )


def test_default_analyses_of_a_dialogue_campaign_without_studies():
    specs = analysis_specs(dialogue_config())
    assert specs == [
        {
            "id": "confusion",
            "test": "confusion",
            "source": "scores",
            "measures": ["decision_precision", "decision_recall"],
        }
    ]

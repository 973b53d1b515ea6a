"""Issue 39: default analyses follow the metrics a campaign computes, and an
analysis that cannot be computed becomes a row saying why, never a failed job."""

from __future__ import annotations

import pytest
import yaml

from stecflow.analysis.collect import collect_item_scores
from stecflow.analysis.run import run_analysis_or_note, unscored_measures
from stecflow.analysis.specs import analysis_specs
from stecflow.core.io import read_json, read_tsv, write_json, write_tsv
from stecflow.scoring.score import ITEM_COLUMNS
from stecflow.scoring.specs import metric_specs
from tests.conftest import REPO

SKIPPED = "the outputs have no word strings (5 of 5 items)"


def _readme_config(tasks, **extra):
    """The README's minimal config (as the workflow test reads it), other tasks."""
    config = {
        "results": "results/my-campaign",
        "campaign": {"id": "my-campaign", "title": "My REG challenge", "tasks": tasks},
        "data": {"format": "tuna", "testset": "data/test.xml"},
        "submissions": {"root": "my-submissions"},
    }
    config.update(extra)
    return config


def _named_metrics(spec):
    return [m for m in [spec.get("measure"), *spec.get("measures", [])] if m]


@pytest.mark.parametrize(
    ("tasks", "scoring", "expected"),
    [
        (
            ["attribute_selection"],
            {},
            {
                "dice-anova": ["dice"],
                "dice-tukey": ["dice"],
                "accuracy-kruskal": ["set_accuracy"],
                "correlations": ["dice", "masi", "set_accuracy", "set_edit"],
            },
        ),
        (
            ["attribute_selection"],
            {"realise": "template"},  # realised attribute sets get string metrics
            {
                "se-anova": ["se"],
                "se-tukey": ["se"],
                "accuracy-kruskal": ["string_accuracy"],
                "correlations": ["string_accuracy", "se", "bleu3", "nist5"],
            },
        ),
        (
            ["end_to_end"],
            {},
            {
                "se-anova": ["se"],
                "se-tukey": ["se"],
                "accuracy-kruskal": ["string_accuracy"],
                "correlations": ["string_accuracy", "se", "bleu3", "nist5"],
            },
        ),
        (
            ["attribute_selection"],
            {"metrics": [{"id": "masi"}, {"id": "se"}]},  # MASI only scores
            {},
        ),
    ],
)
def test_default_analyses_name_only_metrics_the_campaign_computes(
    tasks, scoring, expected
):
    config = _readme_config(tasks, scoring=scoring)
    specs = analysis_specs(config)
    assert {s["id"]: _named_metrics(s) for s in specs} == expected
    configured = {s.id for s in metric_specs(scoring, tasks)}
    for spec in specs:
        assert set(_named_metrics(spec)) <= configured


def test_the_b5ref_config_analyses_are_the_attribute_selection_defaults():
    config = yaml.safe_load((REPO / "config" / "b5-ref.yaml").read_text())
    explicit = analysis_specs(config)
    config["statistics"].pop("analyses")
    config.pop("scoring")
    assert analysis_specs(config) == explicit


@pytest.fixture
def tables(tmp_path):
    """scores/items.tsv and scores/analysed.tsv of three systems: se scored,
    string_accuracy skipped (no word strings)."""
    summaries, items = [], []
    for n, system in enumerate(["A", "B", "C"]):
        values = [n + k / 10 for k in range(5)]
        scores = [
            {
                "status": "scored",
                "subset_kind": "all",
                "subset": "all",
                "metric": metric,
                "value": value,
            }
            for metric, value in (("se", sum(values) / 5), ("dice", 1 / (n + 1)))
        ] + [
            {
                "status": "skipped",
                "subset_kind": "all",
                "subset": "all",
                "metric": "string_accuracy",
                "reason": SKIPPED,
            }
        ]
        summary = {
            "team": f"team{n}",
            "system": system,
            "status": "scored",
            "late": False,
            "reference_set": False,
            "primary": True,
            "reason": None,
            "scores": scores,
        }
        write_json(summary, tmp_path / f"{system}.json")
        rows = [
            {
                "item": f"i{k}",
                "subdomain": "people",
                "condition": "+LOC",
                "metric": metric,
                "reference": "*",
                "value": v,
                "stats": str(v),
            }
            for k, v in enumerate(values)
            for metric in ("se", "dice")
        ]
        write_tsv(rows, ITEM_COLUMNS, tmp_path / f"{system}.tsv")
        summaries.append(tmp_path / f"{system}.json")
        items.append(tmp_path / f"{system}.tsv")
    collect_item_scores(
        summaries, items, tmp_path / "items.tsv", tmp_path / "analysed.tsv"
    )
    return tmp_path


def _run(folder, spec, **settings):
    record = run_analysis_or_note(
        {"factors": ["system"], "source": "scores", **spec},
        folder / "items.tsv",
        folder / "analysed.tsv",
        folder / f"{spec['id']}.tsv",
        folder / f"{spec['id']}.json",
        **settings,
    )
    assert read_json(folder / f"{spec['id']}.json") == record
    return record, read_tsv(folder / f"{spec['id']}.tsv")


@pytest.mark.parametrize(
    ("test", "key"),
    [
        ("anova", "source"),
        ("tukey", "system"),
        ("kruskal", "source"),
        ("ttest", "level_a"),
        ("mixed", "source"),
    ],
)
def test_an_analysis_of_an_unscored_metric_is_a_row_saying_why(tables, test, key):
    spec = {"id": "x", "test": test, "measure": "string_accuracy"}
    record, rows = _run(tables, spec)
    reason = f"no system has scores of string_accuracy: {SKIPPED}"
    assert record["computable"] is False and record["reason"] == reason
    assert record["systems"] == ["A", "B", "C"]
    assert record["text"] == [{"about": "x", "text": f"not computable ({reason})"}]
    assert len(rows) == 1 and key in rows[0]
    assert rows[0]["computable"] == "false" and rows[0]["reason"] == reason


def test_correlations_keep_the_pairs_they_can_compute(tables):
    spec = {"id": "c", "test": "correlations", "measures": ["se", "string_accuracy"]}
    record, rows = _run(
        tables, {**spec, "measures": ["se", "dice", *spec["measures"][1:]]}
    )
    pairs = {(r["measure_a"], r["measure_b"]): r for r in rows}
    assert list(pairs) == [
        ("se", "dice"),
        ("se", "string_accuracy"),
        ("dice", "string_accuracy"),
    ]
    assert pairs[("se", "dice")]["computable"] == "true"
    assert float(pairs[("se", "dice")]["r"]) < 0
    assert pairs[("dice", "string_accuracy")]["computable"] == "false"
    assert SKIPPED in pairs[("dice", "string_accuracy")]["reason"]
    assert record["spec"]["measures"] == ["se", "dice", "string_accuracy"]
    assert record["unscored"] == {
        "string_accuracy": f"no system has scores of string_accuracy: {SKIPPED}"
    }
    about = [t["about"] for t in record["text"]]
    assert "se ~ dice" in about and "dice ~ string_accuracy" in about
    # one measure left: nothing to correlate, every pair says why
    record, rows = _run(tables, spec)
    assert record["computable"] is False
    assert [(r["measure_a"], r["measure_b"], r["computable"]) for r in rows] == [
        ("se", "string_accuracy", "false")
    ]


def test_no_system_entering_is_a_row_saying_why(tables):
    header = (tables / "analysed.tsv").read_text().splitlines()[0]
    (tables / "analysed.tsv").write_text(header + "\n")
    (tables / "items.tsv").write_text(
        (tables / "items.tsv").read_text().splitlines()[0] + "\n"
    )
    record, rows = _run(tables, {"id": "a", "test": "anova", "measure": "se"})
    assert record["computable"] is False and "no system enters" in record["reason"]
    assert rows[0]["source"] == "system" and record["systems"] == []


def test_a_failing_analysis_is_a_row_not_an_exception(tables, caplog):
    # a study whose judgments table is missing (e.g. every system rejected
    # before the study ran): the analysis says why, the job goes on
    spec = {
        "id": "r",
        "test": "anova",
        "source": "rating",
        "measure": "fluency",
        "factors": ["system"],
    }
    record, rows = _run(
        tables, spec, judgments={"rating": tables / "missing" / "rating.tsv"}
    )
    assert record["computable"] is False
    assert "rating.tsv" in record["reason"]
    assert rows == [
        {"source": "system", "computable": "false", "reason": record["reason"]}
    ]
    assert "r could not be computed" in caplog.text


def test_scored_measures_are_not_unscored(tables):
    assert (
        unscored_measures({"test": "anova", "measure": "se"}, tables / "analysed.tsv")
        == {}
    )
    # a study's own measures are not metrics: not checked here
    spec = {"test": "anova", "source": "rating", "measure": "fluency"}
    assert unscored_measures(spec, tables / "analysed.tsv") == {}

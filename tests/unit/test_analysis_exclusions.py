"""Which systems a correlation leaves out (issue #12, point 6a).

By default the human reference sets stay out of correlations, as in TUNA-REG'09:
seed 001's Table 10 is reproduced from its published system means only without
HUMAN-1 and HUMAN-2 (Fluency-ID speed r = -0.89; -0.37 with them). An analysis'
``exclude_systems`` leaves named systems out too, as seed 002 (§4) left IS-FBS out of
the correlations between its two experiments.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from scipy import stats

from stecflow.analysis.collect import ANALYSED_COLUMNS
from stecflow.analysis.families.correlation import correlation_exclusions
from stecflow.analysis.run import run_analysis
from stecflow.analysis.specs import analysis_specs
from stecflow.core.errors import ConfigError
from stecflow.core.io import read_tsv, write_tsv
from tests.conftest import REPO

MEANS = REPO / "tests" / "data" / "r_reference" / "tuna09_system_means.csv"
MEASURES = ["fluency", "adequacy", "id_acc", "id_speed", "acc", "se", "bleu", "nist"]
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"


def seed001_means() -> list[dict[str, str]]:
    with MEANS.open(newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture
def analysed(tmp_path: Path) -> Path:
    """scores/analysed.tsv holding seed 001's published system means (Table 5-9)."""
    rows = []
    for row in seed001_means():
        human = row["system"].startswith("HUMAN")
        for measure in MEASURES:
            rows.append(
                {
                    "label": row["system"],
                    "team": "human" if human else "peers",
                    "system": row["system"],
                    "status": "scored",
                    "reference_set": human,
                    "late": False,
                    "primary": True,
                    "metric": measure,
                    "subset_kind": "all",
                    "subset": "all",
                    "value": row[measure],
                }
            )
    path = tmp_path / "analysed.tsv"
    write_tsv(rows, ANALYSED_COLUMNS, path)
    return path


def correlate(folder: Path, analysed: Path, **kwargs) -> tuple[dict, dict]:
    spec = {"id": "c", "test": "correlations", "measures": MEASURES}
    spec.update(kwargs.pop("spec", {}))
    record = run_analysis(
        {"factors": ["system"], **spec},
        folder / "items.tsv",  # correlations read system means only
        analysed,
        folder / "c.tsv",
        folder / "c.json",
        **kwargs,
    )
    rows = {(r["measure_a"], r["measure_b"]): r for r in read_tsv(folder / "c.tsv")}
    return record, rows


def test_default_leaves_references_out_and_reproduces_table10(tmp_path, analysed):
    record, rows = correlate(tmp_path, analysed)
    fluency_speed = rows[("fluency", "id_speed")]
    assert fluency_speed["n"] == "6"
    assert round(float(fluency_speed["r"]), 2) == -0.89  # seed 001 Table 10
    assert record["excluded_systems"] == ["HUMAN-1", "HUMAN-2"]
    assert record["exclusions"] == {
        "HUMAN-1": "human reference set",
        "HUMAN-2": "human reference set",
    }
    # with the references the published table is not reproduced
    _, with_refs = correlate(
        tmp_path, analysed, exclude_references_from_correlations=False
    )
    assert with_refs[("fluency", "id_speed")]["n"] == "8"
    assert round(float(with_refs[("fluency", "id_speed")]["r"]), 2) == -0.37


def test_exclude_systems_removes_a_named_system_and_the_json_says_so(
    tmp_path, analysed
):
    record, rows = correlate(
        tmp_path, analysed, spec={"exclude_systems": ["peers/GRAPH", "nobody/X"]}
    )
    kept = [r for r in seed001_means() if r["system"] not in ("GRAPH",)]
    kept = [r for r in kept if not r["system"].startswith("HUMAN")]
    expected = stats.pearsonr(
        [float(r["fluency"]) for r in kept], [float(r["id_speed"]) for r in kept]
    ).statistic
    assert rows[("fluency", "id_speed")]["n"] == "5"
    assert float(rows[("fluency", "id_speed")]["r"]) == pytest.approx(expected)
    assert round(expected, 4) == -0.8703  # scipy on the five peers left
    written = json.loads((tmp_path / "c.json").read_text())
    assert written == record
    assert written["excluded_systems"] == ["GRAPH", "HUMAN-1", "HUMAN-2"]
    assert written["exclusions"]["GRAPH"] == "named in exclude_systems"
    assert written["exclude_systems_not_analysed"] == ["nobody/X"]
    assert written["spec"]["exclude_systems"] == ["peers/GRAPH", "nobody/X"]


def test_correlation_exclusions_resolves_names():
    labels = {("a", "x"): "a/x", ("b", "x"): "b/x", ("c", "y"): "y"}
    out, absent = correlation_exclusions(labels, [], ["b/x", "y", "x"])
    assert out == {"b/x": "named in exclude_systems", "y": "named in exclude_systems"}
    assert absent == ["x"]  # two teams have a system x: write team/system
    out, _ = correlation_exclusions(labels, ["y"], exclude_references=False)
    assert out == {}


def test_default_and_demo_config_exclude_references():
    schema = yaml.safe_load(SCHEMA.read_text())
    statistics = schema["properties"]["statistics"]["properties"]
    assert statistics["exclude_references_from_correlations"]["default"] is True
    demo = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    assert demo["statistics"]["exclude_references_from_correlations"] is True


def test_exclude_systems_in_the_schema_and_only_for_correlations():
    schema = yaml.safe_load(SCHEMA.read_text())
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    correlations = config["statistics"]["analyses"][-1]
    assert correlations["test"] == "correlations"
    correlations["exclude_systems"] = ["organisers/greedy", "HUMAN-1"]
    validator.validate(config)
    correlations["exclude_systems"] = ["a/b/c"]
    assert not validator.is_valid(config)
    config["statistics"]["analyses"] = [
        {"id": "x", "test": "anova", "measure": "se", "exclude_systems": ["t/s"]}
    ]
    with pytest.raises(ConfigError, match="correlations only") as error:
        analysis_specs(config)
    assert error.value.field == "statistics.analyses[0].exclude_systems"

"""The registry of analysis tests (:mod:`stecflow.analysis.registry`).

* Every registered test is declared whole: a spec check, a frame loader, a
  runner, a writer and the rest are callables; its family module lists it; the
  config schema's ``test`` enum is the registry's built-in names, in order.
* An unknown test name is refused with the config schema's message, by the
  schema and by the library alike.
* A test declared here, outside the library, is checked by
  :func:`~stecflow.analysis.specs.analysis_specs` and run by
  :func:`~stecflow.analysis.run.run_analysis` (and its not-computable path) with
  no change to the library: copy it for a new test's tests.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

import pytest
import yaml

from stecflow.analysis import registry
from stecflow.analysis.collect import collect_item_scores
from stecflow.analysis.frames import (
    factor_columns,
    measure_frame,
    measure_item_scores,
    system_table,
)
from stecflow.analysis.registry import AnalysisJob, AnalysisTest
from stecflow.analysis.run import (
    not_computable_rows,
    prefetch_item_frames,
    run_analysis,
    run_analysis_or_note,
    write_not_computable,
)
from stecflow.analysis.specs import analysis_specs, spec_check
from stecflow.core.errors import ConfigError
from stecflow.core.io import read_json, read_tsv, write_json, write_tsv
from stecflow.scoring.score import ITEM_COLUMNS
from stecflow.studykinds.registry import hook as kind_hook
from stecflow.studykinds.registry import kinds
from tests.conftest import REPO

SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"


def _config() -> dict[str, Any]:
    return yaml.safe_load((REPO / "config" / "config.yaml").read_text())


# ------------------------------------------------------------- conformance


@pytest.mark.parametrize("name", registry.names())
def test_every_registered_test_is_declared_whole(name):
    test = registry.get(name)
    assert isinstance(test, AnalysisTest) and test.name == name
    for hook in (
        "check",
        "load",
        "run",
        "write",
        "design_factors",
        "item_measures",
        "not_computable",
    ):
        assert callable(getattr(test, hook)), f"{name}: {hook}"
    assert test.partial is None or callable(test.partial)
    # one family module declares it, or one study kind's ``tests`` hook
    families = [
        m for m in registry.FAMILIES if test in importlib.import_module(m).TESTS
    ] + [k.name for k in kinds() if test in (kind_hook(k.name, "tests") or ())]
    assert len(families) == 1, families
    # its not-computable table says why in every row, in the report's columns
    spec = {"id": "x", "test": name, "factors": ["system"], "measures": ["a", "b"]}
    rows = not_computable_rows(spec, "no data")
    assert rows and all(
        r["computable"] is False and r["reason"] == "no data" for r in rows
    )


def test_the_schemas_tests_are_the_registrys():
    """The config schema's ``test`` enum lists the built-in tests, in order."""
    schema = yaml.safe_load(SCHEMA.read_text())
    entry = schema["properties"]["statistics"]["properties"]["analyses"]["items"]
    assert tuple(entry["properties"]["test"]["enum"]) == registry.names()


def test_an_unknown_test_gives_the_schemas_error(tmp_path):
    """As today: the config check refuses it with the schema's message, and the
    library, called without the schema, with the same message."""
    from stecflow.campaign import validate_config

    known = list(registry.names())
    expected = f"'median' is not one of {known}"
    config = _config()
    config["statistics"]["analyses"] = [{"id": "x", "test": "median", "measure": "se"}]
    with pytest.raises(ConfigError) as info:
        validate_config(config, SCHEMA)
    assert info.value.message == expected
    assert info.value.field == "config.statistics.analyses[0].test"
    with pytest.raises(ConfigError) as info:
        analysis_specs(config)
    assert info.value.message == expected
    assert info.value.field == "statistics.analyses[0].test"
    with pytest.raises(ConfigError, match="'median' is not one of"):
        registry.get("median")
    # run_analysis_or_note writes why, as for any analysis it cannot compute
    systems = tmp_path / "analysed.tsv"
    write_tsv([], ["label", "metric", "status", "reason"], systems)
    record = run_analysis_or_note(
        {"id": "x", "test": "median", "measure": "se", "factors": ["system"]},
        tmp_path / "items.tsv",
        systems,
        tmp_path / "x.tsv",
        tmp_path / "x.json",
    )
    assert record["computable"] is False and record["reason"] == f"test: {expected}"
    assert read_tsv(tmp_path / "x.tsv") == [
        {"source": "system", "computable": "false", "reason": f"test: {expected}"}
    ]


def test_a_name_is_registered_once():
    with pytest.raises(ValueError, match="already registered"):
        registry.register(
            AnalysisTest(
                name="anova",
                check=spec_check(),
                load=measure_frame,
                run=lambda spec, frame, job, record: frame,
            )
        )


# ------------------------------------------- a test declared outside the library


def _run_median(
    spec: Mapping[str, Any], frame: Any, job: AnalysisJob, record: dict[str, Any]
) -> Any:
    """Each system's median of the measure, best first."""
    factor = factor_columns(spec)[0]
    medians = frame.groupby(factor)["value"].median()
    best_high = (job.higher_is_better or {}).get(spec["measure"], True)
    medians = medians.sort_values(ascending=not best_high)
    record["order"] = "best first"
    return system_table(medians.rename("median").reset_index())


def _one_row_per_system(
    spec: Mapping[str, Any], status: Mapping[str, Any]
) -> list[dict[str, Any]]:
    return [{"system": "", "median": "", **status}]


MEDIAN = AnalysisTest(
    name="median",
    check=spec_check(),
    load=measure_frame,
    run=_run_median,
    texts=False,  # a table of medians has no test statistic
    item_measures=measure_item_scores,
    not_computable=_one_row_per_system,
)


@pytest.fixture
def median():
    registry.register(MEDIAN)
    yield MEDIAN
    registry.unregister(MEDIAN.name)


@pytest.fixture
def scored(tmp_path):
    """scores/items.tsv and scores/analysed.tsv of three systems, four items."""
    values = {"A": [1, 2, 3, 10], "B": [4, 5, 6, 0], "C": [7, 7, 8, 9]}
    summaries, items = [], []
    for n, (system, scores) in enumerate(values.items()):
        summary = {
            "team": f"team{n}",
            "system": system,
            "status": "scored",
            "late": False,
            "reference_set": False,
            "primary": True,
            "reason": None,
            "scores": [
                {
                    "status": "scored",
                    "subset_kind": "all",
                    "subset": "all",
                    "metric": "se",
                    "value": sum(scores) / 4,
                }
            ],
        }
        write_json(summary, tmp_path / f"{system}.json")
        rows = [
            {
                "item": f"i{k}",
                "subdomain": "people" if k % 2 else "furniture",
                "condition": "+LOC",
                "metric": "se",
                "reference": "*",
                "value": v,
                "stats": str(v),
            }
            for k, v in enumerate(scores)
        ]
        write_tsv(rows, ITEM_COLUMNS, tmp_path / f"{system}.tsv")
        summaries.append(tmp_path / f"{system}.json")
        items.append(tmp_path / f"{system}.tsv")
    out = (tmp_path / "items.tsv", tmp_path / "analysed.tsv")
    collect_item_scores(summaries, items, *out)
    return out


def test_a_test_registered_outside_the_library_runs_through_the_dispatcher(
    median, scored, tmp_path
):
    assert registry.names()[-1] == "median"
    config = _config()
    config["statistics"]["analyses"] = [
        {"id": "se-median", "test": "median", "measure": "se"}
    ]
    (spec,) = analysis_specs(config)  # its check fills in the defaults
    assert spec == {
        "id": "se-median",
        "test": "median",
        "measure": "se",
        "factors": ["system"],
        "source": "scores",
    }
    config["statistics"]["analyses"][0]["measure"] = "bleu3"
    with pytest.raises(ConfigError, match="corpus-level metric") as info:
        analysis_specs(config)  # and checks it as the library's tests are
    assert info.value.field == "statistics.analyses[0].measure"

    items, systems = scored
    prefetch_item_frames(items, [spec])
    record = run_analysis(
        spec,
        items,
        systems,
        tmp_path / "se-median.tsv",
        tmp_path / "se-median.json",
        higher_is_better={"se": False},
    )
    table = read_tsv(tmp_path / "se-median.tsv")
    assert [(r["system"], r["median"]) for r in table] == [
        ("A", "2.5"),
        ("B", "4.5"),
        ("C", "7.5"),
    ]
    assert read_json(tmp_path / "se-median.json") == record
    # the default writer's record: its runner's entries, the loader's, the design
    assert record["order"] == "best first" and record["text"] == []
    assert record["systems"] == ["A", "B", "C"] and record["n_observations"] == 12
    assert record["design"]["complete"] is True
    assert record["judgments"] == {} and record["awaiting_responses"] == []

    # an unscored measure: its own not-computable table, from the declaration
    write_tsv(
        [{"label": "A", "metric": "se", "status": "skipped", "reason": "no text"}],
        ["label", "metric", "status", "reason"],
        tmp_path / "unscored.tsv",
    )
    record = run_analysis_or_note(
        spec, items, tmp_path / "unscored.tsv", tmp_path / "u.tsv", tmp_path / "u.json"
    )
    assert record["reason"] == "no system has scores of se: no text"
    assert read_tsv(tmp_path / "u.tsv") == [
        {
            "system": "",
            "median": "",
            "computable": "false",
            "reason": "no system has scores of se: no text",
        }
    ]
    assert write_not_computable(
        spec, "why", systems, tmp_path / "w.tsv", tmp_path / "w.json"
    )["systems"] == ["A", "B", "C"]


def test_an_unregistered_test_is_gone(scored, tmp_path):
    """After the fixture, the library knows its own tests only."""
    assert "median" not in registry.names()

"""Metric plug-ins: by config path ("package.module:ClassName") and by entry point.

The plug-in is docs/examples/length_ratio.py, the worked example of
docs/metrics.md, loaded as an organiser would load it.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from stecflow.core.errors import ConfigError
from stecflow.scoring import specs

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "docs" / "examples"
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"

HYPS = ["a b c", "a"]
REFS = [["a b", "a b c d"], ["a b"]]


@pytest.fixture
def examples_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))
    yield
    sys.modules.pop("length_ratio", None)


def _scoring(metric, **options):
    entry = {"id": "lr", "metric": metric}
    if options:
        entry["options"] = options
    return {"metrics": [{"id": "bleu"}, entry]}


def test_plugin_by_config_path(examples_on_path):
    scoring = _scoring("length_ratio:LengthRatio", reference="shortest")
    (bleu_spec, bleu), (spec, metric) = specs.build_metrics(specs.metric_specs(scoring))
    assert bleu.name == "bleu" and bleu_spec.id == "bleu"
    assert spec.name == "length_ratio:LengthRatio"
    assert type(metric).__name__ == "LengthRatio" and metric.reference == "shortest"
    # (3 + 1) output tokens over shortest references 2 + 2
    assert metric.corpus_score(HYPS, REFS) == 1.0
    # default option: mean reference lengths 3 + 2
    (_, (_, default)) = specs.build_metrics(
        specs.metric_specs(_scoring("length_ratio:LengthRatio"))
    )
    assert default.corpus_score(HYPS, REFS) == 0.8
    signatures = specs.metric_signatures(scoring)
    assert signatures["lr"] == "LengthRatio|ref:shortest|bs:1000|seed:2009|version:1"
    assert specs.metric_directions(scoring) == {"bleu": True, "lr": True}


def test_plugin_option_errors_name_the_entry(examples_on_path):
    with pytest.raises(
        ConfigError, match="does not accept option.*its options are: reference"
    ) as err:
        specs.build_metrics(
            specs.metric_specs(_scoring("length_ratio:LengthRatio", colour="red"))
        )
    assert err.value.field == "scoring.metrics[lr].options"
    with pytest.raises(ConfigError, match="option reference must be one of"):
        specs.build_metrics(
            specs.metric_specs(_scoring("length_ratio:LengthRatio", reference="x"))
        )


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("no_such_module_xyz:Metric", "cannot import module 'no_such_module_xyz'"),
        ("length_ratio:NoSuchClass", "module 'length_ratio' has no 'NoSuchClass'"),
        ("length_ratio:Metric", "abstract metric class"),
        ("length_ratio:check_choice", "not a metric class"),
        ("os:path", "is module .* not a metric class"),
        ("length_ratio:", "not a plug-in path"),
        (":LengthRatio", "not a plug-in path"),
        ("length ratio:LengthRatio", "not a plug-in path"),
        ("a:b:c", "not a plug-in path"),
    ],
)
def test_bad_plugin_path(examples_on_path, path, message):
    with pytest.raises(ConfigError, match=message) as err:
        specs.metric_specs(_scoring(path))
    assert err.value.field == "scoring.metrics[1].metric"
    assert "scoring.metrics[1].metric" in str(err.value)
    if "plug-in path" in message or "not a metric class" in message:
        assert "'package.module:ClassName'" in str(err.value)


def test_module_failing_at_import_is_a_config_error(tmp_path, monkeypatch):
    (tmp_path / "broken_metric_xyz.py").write_text("raise RuntimeError('boom')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ConfigError, match="cannot import module.*boom") as err:
        specs.metric_specs(_scoring("broken_metric_xyz:Anything"))
    assert err.value.field == "scoring.metrics[1].metric"


def test_unknown_name_lists_names_and_the_plugin_form():
    with pytest.raises(ConfigError, match="unknown metric 'bleu5'") as err:
        specs.metric_specs({"metrics": [{"id": "bleu5"}]})
    assert "chrf" in str(err.value) and "package.module:ClassName" in str(err.value)
    assert err.value.field == "scoring.metrics[0].metric"


def _fake_distribution(root: Path, entry_points: str) -> None:
    """An installed distribution as importlib.metadata finds it: a dist-info folder."""
    info = root / "stecflow_fake_metrics-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: stecflow-fake-metrics\nVersion: 0.1\n"
    )
    (info / "entry_points.txt").write_text(entry_points)


def test_plugin_by_entry_point(tmp_path, monkeypatch, examples_on_path):
    _fake_distribution(
        tmp_path,
        "[stecflow.metrics]\n"
        "length_ratio = length_ratio:LengthRatio\n"
        "not_a_metric = length_ratio:check_choice\n"
        "gone = no_such_module_xyz:Thing\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    assert specs.plugin_metric_names() == {
        "gone": "no_such_module_xyz:Thing",
        "length_ratio": "length_ratio:LengthRatio",
        "not_a_metric": "length_ratio:check_choice",
    }
    scoring = {
        "metrics": [{"id": "length_ratio", "options": {"reference": "shortest"}}]
    }
    ((spec, metric),) = specs.build_metrics(specs.metric_specs(scoring))
    assert spec.name == "length_ratio"
    assert type(metric).__name__ == "LengthRatio"
    assert metric.corpus_score(HYPS, REFS) == 1.0
    with pytest.raises(
        ConfigError, match="entry point 'not_a_metric'.*not a metric class"
    ) as err:
        specs.metric_specs({"metrics": [{"id": "x", "metric": "not_a_metric"}]})
    assert err.value.field == "scoring.metrics[0].metric"
    with pytest.raises(ConfigError, match="entry point 'gone'.*cannot be loaded"):
        specs.metric_specs({"metrics": [{"id": "gone"}]})
    with pytest.raises(
        ConfigError, match="installed plug-ins: gone, length_ratio, not_a_metric"
    ):
        specs.metric_specs({"metrics": [{"id": "nope"}]})
    # a built-in name wins over an entry point of the same name
    _fake = tmp_path / "other"
    _fake.mkdir()
    _fake_distribution(_fake, "[stecflow.metrics]\nbleu = length_ratio:LengthRatio\n")
    monkeypatch.syspath_prepend(str(_fake))
    importlib.invalidate_caches()
    assert specs.resolve_metric_class("bleu").__module__ == "stecflow.metrics.sacrebleu"


def test_shared_text_options_do_not_reach_sacrebleu_metrics():
    scoring = {
        "metrics": [{"id": "bleu"}, {"id": "se"}, {"id": "rouge_l"}],
        "text": {"lowercase": True, "punctuation": "strip", "tokenise": "words"},
    }
    by_id = {s.id: dict(s.options) for s in specs.metric_specs(scoring)}
    assert by_id == {
        "bleu": {},
        "se": {"lowercase": True, "punctuation": "strip", "tokenise": "words"},
        "rouge_l": {},
    }
    built = dict(specs.build_metrics(specs.metric_specs(scoring)))
    bleu = next(m for s, m in built.items() if s.id == "bleu")
    assert bleu.lowercase is False  # sacreBLEU's default
    explicit = specs.metric_specs(
        {**scoring, "metrics": [{"id": "bleu", "options": {"lowercase": True}}]}
    )
    assert dict(explicit[0].options) == {"lowercase": True}


def test_schema_accepts_plugin_paths_and_rejects_malformed_names():
    schema = yaml.safe_load(SCHEMA.read_text())
    entry = schema["properties"]["scoring"]["properties"]["metrics"]["items"]
    validator = jsonschema.Draft202012Validator(entry)
    for good in ("bleu", "chrf", "rouge_l", "length_ratio:LengthRatio", "pkg.mod:Cls"):
        assert not list(validator.iter_errors({"id": "m", "metric": good})), good
    for bad in ("a b", "x:y:z", ":Cls", "pkg:", 3):
        assert list(validator.iter_errors({"id": "m", "metric": bad})), bad

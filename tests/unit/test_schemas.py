"""The JSON schemas are closed, agree with stecflow.core.ids, and accept our configs."""

from __future__ import annotations

import copy

import jsonschema
import pytest
import yaml

from stecflow.core import ids
from tests.conftest import REPO, TINY

CONFIG_SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"
SUBMISSION_SCHEMA = (
    REPO / "src" / "stecflow" / "submissions" / "schemas" / "submission.schema.yaml"
)
CAMPAIGNS = sorted((REPO / "config").glob("*.yaml")) + [TINY / "config" / "config.yaml"]


def load(path):
    return yaml.safe_load(path.read_text())


def objects(schema, path="$"):
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            yield path, schema
        for key, value in schema.items():
            yield from objects(value, f"{path}.{key}")
    elif isinstance(schema, list):
        for n, value in enumerate(schema):
            yield from objects(value, f"{path}[{n}]")


@pytest.mark.parametrize("schema_path", [CONFIG_SCHEMA, SUBMISSION_SCHEMA])
def test_every_object_is_closed_and_described(schema_path):
    schema = load(schema_path)
    for path, obj in objects(schema):
        # closed, or (metric options) restricted by a schema and checked in code
        assert obj.get("additionalProperties") is False or isinstance(
            obj.get("additionalProperties"), dict
        ), path
        for key, prop in obj.get("properties", {}).items():
            assert prop.get("description"), f"{path}.{key} has no description"


@pytest.mark.parametrize("schema_path", [CONFIG_SCHEMA, SUBMISSION_SCHEMA])
def test_id_patterns_agree_with_stecflow_ids(schema_path):
    """Every ID property (id, team, system, study systems) uses stecflow.core.ids' regex."""

    def id_patterns(node, key=None):
        if isinstance(node, dict):
            if key in ("id", "team", "system", "systems") and "pattern" in node:
                yield node["pattern"]
            if key == "systems" and isinstance(node.get("items"), dict):
                yield node["items"]["pattern"]
            for k, v in node.items():
                yield from id_patterns(
                    v, k if k not in ("properties", "items") else key
                )
        elif isinstance(node, list):
            for v in node:
                yield from id_patterns(v, key)

    patterns = list(id_patterns(load(schema_path)))
    team_system = f"^{ids.ID_REGEX}/{ids.ID_REGEX}$"  # study systems: team/system
    assert patterns and set(patterns) <= {ids.ID_PATTERN, team_system}
    assert ids.ID_PATTERN in patterns


@pytest.mark.parametrize(
    "campaign", CAMPAIGNS, ids=lambda p: p.parent.parent.name + "/" + p.name
)
def test_campaign_configs_are_valid(campaign):
    jsonschema.Draft202012Validator(load(CONFIG_SCHEMA)).validate(load(campaign))


def test_every_optional_key_has_a_default():
    """A --configfile is the whole campaign (the demo's config is not read), so
    the schema, not the demo, holds the default of every key the workflow reads.

    Entries of lists (studies, analyses, metrics) get theirs in stecflow.
    """

    def missing(obj, path):
        for key, prop in obj.get("properties", {}).items():
            if key not in obj.get("required", []) and "default" not in prop:
                yield f"{path}.{key}"
            if prop.get("type") == "object":
                yield from missing(prop, f"{path}.{key}")

    assert list(missing(load(CONFIG_SCHEMA), "$")) == []


MINIMAL = {
    "campaign": {"id": "mini", "title": "Mini", "tasks": ["attribute_selection"]},
    "data": {"testset": "test.xml"},
    "submissions": {"root": "submissions"},
}


@pytest.mark.parametrize(
    "config",
    [MINIMAL, *(load(path) for path in CAMPAIGNS)],
    ids=["minimal", *(path.parent.parent.name + "/" + path.stem for path in CAMPAIGNS)],
)
def test_validate_config_fills_in_what_snakemake_s_validate_does(config):
    """The workflow checks its config with campaign.validate_config: the same
    defaults, in the same places, as Snakemake's validate()."""
    from snakemake.utils import validate

    from stecflow.campaign import validate_config

    ours, snakemake_s = copy.deepcopy(config), copy.deepcopy(config)
    validate_config(ours, CONFIG_SCHEMA)
    validate(snakemake_s, str(CONFIG_SCHEMA))
    assert ours == snakemake_s and ours != config


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (lambda c: c.update(bogus=1), "config", "'bogus' was unexpected"),
        (
            lambda c: c["campaign"].update(dealine="x"),
            "config.campaign",
            "'dealine' was unexpected",
        ),
        (
            lambda c: c["campaign"].update(tasks="end_to_end"),
            "config.campaign.tasks",
            "'end_to_end' is not of type 'array'",
        ),
        (lambda c: c.update(data=[]), "config.data", "[] is not of type 'object'"),
        (
            lambda c: c["campaign"]["tasks"].append(3),
            "config.campaign.tasks[1]",
            "3 is not of type 'string'",
        ),
    ],
)
def test_validate_config_names_the_key_of_a_problem(change, field, message):
    from stecflow.campaign import validate_config
    from stecflow.core.errors import ConfigError

    config = copy.deepcopy(MINIMAL)
    change(config)
    with pytest.raises(ConfigError) as caught:
        validate_config(config, CONFIG_SCHEMA)
    assert caught.value.field == field and message in caught.value.message


def test_schema_defaults_complete_a_minimal_config():
    """The campaign, its data and its submissions are all a config must name."""
    from stecflow.campaign import validate_config

    config = copy.deepcopy(MINIMAL)
    validate_config(config, CONFIG_SCHEMA)  # fills in the defaults
    assert config["results"] == "results"
    assert config["campaign"] == {
        "id": "mini",
        "title": "Mini",
        "tasks": ["attribute_selection"],
        "description": "",
        "version": "1",
        "deadline": None,
    }
    assert config["data"] == {
        "testset": "test.xml",
        "format": "tuna",
        "subsets": [],
        "train": None,
        "dev": None,
        "images": None,
    }
    assert config["submissions"]["limits"]["max_trials"] == 50000
    assert config["studies"] == [] and config["statistics"]["analyses"] == []
    assert config["statistics"]["include_late"] is False
    assert config["scoring"]["metrics"] == []
    assert config["scoring"]["bootstrap"] == {
        "resamples": 1000,
        "confidence": 0.95,
        "seed": 2009,
    }
    assert config["judgments"]["simulation"]["seed"] == 2009
    assert config["release"]["include_testset"] is False
    assert config["report"] == {
        "previous_release": None,
        "changes": [],
        "rank_by": {},
        "measure_types": {},
    }


def test_unknown_key_is_rejected_with_its_path():
    config = load(REPO / "config" / "config.yaml")
    config["campaign"]["dealine"] = "x"
    errors = list(
        jsonschema.Draft202012Validator(load(CONFIG_SCHEMA)).iter_errors(config)
    )
    assert len(errors) == 1
    assert list(errors[0].path) == ["campaign"] and "dealine" in errors[0].message

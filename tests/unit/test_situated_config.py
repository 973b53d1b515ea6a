"""A situated-dialogue campaign's config: what it may hold, and the defaults it gets."""

from __future__ import annotations

import pytest

from stecflow.campaign import check_config, prepare_testset, prepared_testset_name
from stecflow.core.errors import ConfigError
from stecflow.data.dialogue import read_corpus
from stecflow.studies.setup import check_studies, design_spec, study_specs
from stecflow.studykinds.situated_identification.setup import SITUATED_DEFAULTS
from stecflow.tasks.registry import read_testset
from stecflow.tasks.situated_dialogue import items_from_sessions
from tests.conftest import REPO

DEMO = REPO / "resources" / "dialogue-demo"


def _study(**keys):
    return {
        "id": "situated",
        "task": "situated_identification",
        "systems": ["organisers/recency"],
        "subjects": 36,
        "seed": 2010,
        **keys,
    }


def _config(study, data_format="dialogue"):
    return {
        "campaign": {"id": "c", "tasks": ["situated_dialogue"]},
        "data": {"format": data_format, "testset": str(DEMO)},
        "submissions": {"root": str(DEMO / "submissions")},
        "studies": [study],
    }


def test_a_situated_study_gets_the_seed_defaults_and_keeps_its_own():
    [spec] = study_specs({"studies": [_study(situated={"n_per_class": 10})]})
    assert spec["situated"] == {**SITUATED_DEFAULTS, "n_per_class": 10}
    assert SITUATED_DEFAULTS["features"] == ["O1", "O2"]  # seed 000 section 5.1
    assert SITUATED_DEFAULTS["max_context_ms"] == 30_000
    assert SITUATED_DEFAULTS["trial_budget"] == 80
    # the situated settings decide the design: they are a param of its rule
    assert design_spec(spec)["situated"]["n_per_class"] == 10


@pytest.mark.parametrize(
    ("keys", "field", "words"),
    [
        (
            {"systems": ["organisers/recency", "organisers/logistic"]},
            "studies[0].systems",
            "tests one system",
        ),
        ({"subjects": 35}, "studies[0].subjects", "use 36"),
        ({"design": "two_group"}, "studies[0].design", "its own two-group design"),
        ({"practice": 2}, "studies[0].design", "leave out design"),
        ({"variant": "read_first"}, "studies[0].variant", "REG identification"),
    ],
)
def test_what_a_situated_study_cannot_have_is_named(keys, field, words):
    with pytest.raises(ConfigError) as caught:
        study_specs({"studies": [_study(**keys)]})
    assert caught.value.field == field
    assert words in caught.value.message


def test_situated_settings_on_a_reg_study_and_a_one_system_reg_study_are_refused():
    reg = {"id": "r", "task": "rating", "subjects": 2, "seed": 1}
    with pytest.raises(ConfigError, match="situated_identification") as caught:
        study_specs({"studies": [{**reg, "systems": ["a/b", "a/c"], "situated": {}}]})
    assert caught.value.field == "studies[0].situated"
    with pytest.raises(ConfigError, match="at least two systems"):
        study_specs({"studies": [{**reg, "systems": ["a/b"]}]})


def test_study_task_and_data_format_must_match():
    submissions = [("organisers", "recency")]
    check_studies(_config(_study()), submissions)  # the demo's: fine
    with pytest.raises(ConfigError, match="needs a dialogue corpus") as caught:
        check_studies(_config(_study(), "tuna"), submissions)
    assert caught.value.field == "studies[0].task"
    rating = _study(task="rating", systems=["organisers/recency", "organisers/x"])
    with pytest.raises(ConfigError, match="task: situated_identification"):
        check_studies(_config(rating), [*submissions, ("organisers", "x")])


@pytest.mark.parametrize(
    ("data_format", "tasks"),
    [
        ("dialogue", ["end_to_end"]),
        ("dialogue", ["situated_dialogue", "end_to_end"]),
        ("tuna", ["situated_dialogue"]),
    ],
)
def test_a_dialogue_corpus_goes_with_the_situated_task_alone(data_format, tasks):
    config = {
        "campaign": {"id": "c", "tasks": tasks},
        "data": {"format": data_format, "testset": "x"},
    }
    with pytest.raises(ConfigError, match="situated_dialogue") as caught:
        check_config(config)
    assert caught.value.field == "campaign.tasks"


def test_the_prepared_test_set_of_a_dialogue_corpus_is_one_corpus_file(tmp_path):
    out = tmp_path / prepared_testset_name("dialogue")
    assert out.name == "testset.json"
    assert prepare_testset(DEMO, "dialogue", out) == 368
    items = read_testset(out)
    assert len(items) == 368 and items[0].id == "s01-e001"
    assert sum(item.input.pronoun for item in items) == 129
    # the items read back equal those of the corpus folder, inputs included
    assert items == items_from_sessions(read_corpus(DEMO))
    again = tmp_path / "again.json"
    prepare_testset(DEMO, "dialogue", again)
    assert again.read_bytes() == out.read_bytes()

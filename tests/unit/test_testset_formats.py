"""The test-set format seam (:mod:`stecflow.tasks.formats`).

Every registered format keeps the same contract (read, prepare, the prepared and
job files read back, recognised by its layout), and a format defined here, in
the tests, loads and prepares a test set through :mod:`stecflow.campaign`'s
functions and is checked against a campaign's tasks without any change to the
library.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from stecflow import campaign
from stecflow.core.errors import ConfigError
from stecflow.data.model import Domain, Entity, EntityAttribute, Item
from stecflow.tasks import formats, registry
from stecflow.tasks.formats import TestsetFormat
from tests.conftest import B5REF, REPO

#: A test set of each built-in format, as a user gives it.
SAMPLES = {
    "tuna": REPO / "tests" / "fixtures" / "tiny_campaign" / "testset.xml",
    "b5-ref": B5REF,
    "dialogue": REPO / "resources" / "dialogue-demo",
    "text": REPO / "tests" / "fixtures" / "text" / "testset.jsonl",
}


def test_every_built_in_format_has_a_sample_here_and_in_the_schema():
    schema = yaml.safe_load(
        (REPO / "workflow" / "schemas" / "config.schema.yaml").read_text()
    )
    enum = schema["properties"]["data"]["properties"]["format"]["enum"]
    assert tuple(enum) == formats.names() == campaign.DATA_FORMATS
    assert set(SAMPLES) == set(formats.names())
    assert schema["properties"]["data"]["properties"]["format"]["default"] == (
        formats.DEFAULT_FORMAT
    )


@pytest.mark.parametrize("name", formats.names())
def test_every_format_keeps_the_contract(name, tmp_path):
    testset_format = formats.get(name)
    source = SAMPLES[name]
    assert testset_format.name == name
    assert testset_format.prepared_name.startswith("testset.")
    assert testset_format.job_name.startswith("testset.")
    assert testset_format.what
    # recognised by its layout; given by name, the name wins
    assert formats.layout(source) == (name, testset_format.sniff(source))
    assert formats.chosen_format(str(source), name) == name
    if testset_format.claims is not None:
        assert formats.chosen_format(str(source)) == name
    # read, then prepared: the prepared file and the jobs' file give the same items
    items = campaign.load_testset(source, name)
    assert items and len({i.id for i in items}) == len(items)
    prepared = tmp_path / campaign.prepared_testset_name(name)
    job = tmp_path / campaign.job_testset_name(name)
    compact = job if job != prepared else None
    assert campaign.prepare_testset(source, name, prepared, compact) == len(items)
    for path in (prepared, job):
        again = registry.read_testset(path)
        assert [i.id for i in again] == [i.id for i in items], path
    # its task rule: an alone format runs one of its own tasks only
    if testset_format.alone:
        own = list(testset_format.tasks or ())
        campaign.check_tasks({"campaign": {"tasks": own}, "data": {"format": name}})
        with pytest.raises(ConfigError, match=f"data.format: {name}"):
            campaign.check_tasks(
                {"campaign": {"tasks": ["realisation"]}, "data": {"format": name}}
            )
    else:
        campaign.check_tasks(
            {"campaign": {"tasks": ["attribute_selection"]}, "data": {"format": name}}
        )


def test_an_unknown_format_is_named_with_the_known_ones():
    with pytest.raises(ConfigError, match="unknown format 'csv'; expected one of tuna"):
        campaign.load_testset("x.csv", "csv")


# ------------------------------------------------------- a format of the tests


def _item(item_id: str, colour: str) -> Item:
    target = Entity("e1", True, (EntityAttribute("colour", colour),))
    other = Entity("e2", False, (EntityAttribute("colour", "grey"),))
    return Item(item_id, Domain((target, other)), "furniture")


def read_colours(path) -> list[Item]:
    """``id<TAB>colour`` per line, a TSV test set no built-in format reads."""
    rows = Path(path).read_text(encoding="utf-8").splitlines()
    return [_item(*row.split("\t")) for row in rows if row]


def prepare_colours(path, out, compact=None) -> int:
    items = read_colours(path)
    Path(out).write_text(
        json.dumps([[i.id, i.domain.entities[0].attributes[0].value] for i in items])
        + "\n",
        encoding="utf-8",
    )
    return len(items)


def read_prepared_colours(path) -> list[Item]:
    rows = json.loads(Path(path).read_text(encoding="utf-8"))
    return [_item(item_id, colour) for item_id, colour in rows]


COLOURS = TestsetFormat(
    name="colours",
    tasks=("colour_naming",),
    alone=True,
    what="a colour table",
    sniff=lambda p: "a colour table" if p.suffix == ".colours" else None,
    claims=lambda p: p.suffix == ".colours",
    read=read_colours,
    prepare=prepare_colours,
    prepared_name="testset.colours.json",
    job_name="testset.colours.json",
    read_prepared=read_prepared_colours,
)


@pytest.fixture
def colours():
    formats.register(COLOURS)
    yield COLOURS
    formats.unregister(COLOURS.name)


def test_a_new_format_loads_and_prepares_through_the_campaign(colours, tmp_path):
    source = tmp_path / "test.colours"
    source.write_text("c1\tred\nc2\tblue\n", encoding="utf-8")
    assert "colours" in formats.names()
    assert formats.chosen_format(source) == "colours"
    assert formats.layout(source) == ("colours", "a colour table")
    items = campaign.load_testset(source, "colours")
    assert [i.id for i in items] == ["c1", "c2"]
    name = campaign.prepared_testset_name("colours")
    assert name == campaign.job_testset_name("colours") == "testset.colours.json"
    assert campaign.prepare_testset(source, "colours", tmp_path / name) == 2
    # the stages read the prepared file through the task registry
    again = registry.read_testset(tmp_path / name)
    assert [(i.id, i.domain.entities[0].attributes[0].value) for i in again] == [
        ("c1", "red"),
        ("c2", "blue"),
    ]


def test_a_new_alone_format_gets_the_generic_task_rule(colours):
    with pytest.raises(ConfigError) as raised:
        campaign.check_tasks(
            {"campaign": {"tasks": ["end_to_end"]}, "data": {"format": "colours"}}
        )
    assert raised.value.message == (
        "a colour table (data.format: colours) is for the colour_naming task alone,"
        " and that task needs one: set campaign.tasks: [colour_naming] with"
        " data.format: colours"
    )
    assert raised.value.field == "campaign.tasks"


def test_a_format_is_registered_once(colours):
    formats.register(COLOURS)  # the same declaration again: fine
    with pytest.raises(ValueError, match="'colours' is registered"):
        formats.register(TestsetFormat(**{**COLOURS.__dict__, "what": "other"}))
    formats.unregister("tuna")  # built-in formats stay
    assert "tuna" in formats.names()

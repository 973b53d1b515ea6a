"""The compact test set (stecflow.data.compact) gives the XML reader's items."""

from __future__ import annotations

import json

import pytest

from stecflow.campaign import prepare_testset
from stecflow.core.errors import CorpusError
from stecflow.data.compact import read_compact, write_compact
from stecflow.data.corpus import read_items
from stecflow.scoring.check import load_items
from tests.conftest import REPO


@pytest.mark.parametrize(
    ("source", "data_format"),
    [("resources/demo/test.xml", "tuna"), (None, "b5-ref")],
    ids=["demo", "b5-ref"],
)
def test_compact_form_round_trips_to_the_xml_readers_items(
    source, data_format, b5ref_dir, tmp_path
):
    path = REPO / source if source else b5ref_dir
    n = prepare_testset(
        path, data_format, tmp_path / "t.xml", compact_path=tmp_path / "t.compact.json"
    )
    expected = read_items(tmp_path / "t.xml")
    items = read_compact(tmp_path / "t.compact.json")
    assert len(items) == n == len(expected) > 0
    assert items == expected  # every field of every item, in order
    assert [i.id for i in items] == [i.id for i in expected]
    assert load_items(tmp_path / "t.compact.json") == expected
    assert load_items(tmp_path / "t.xml") == expected
    # byte-deterministic: the same items give the same bytes
    write_compact(items, tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == (
        tmp_path / "t.compact.json"
    ).read_bytes()


def test_compact_form_shares_repeated_entities(tmp_path):
    items = read_items(REPO / "resources" / "demo" / "test.xml")
    write_compact(items, tmp_path / "c.json")
    document = json.loads((tmp_path / "c.json").read_text())
    n_entities = sum(len(i.domain.entities) for i in items)
    assert len(document["entities"]) < n_entities
    back = read_compact(tmp_path / "c.json")
    # one object per distinct attribute, however many entities carry it
    first = [a for i in back for e in i.domain.entities for a in e.attributes]
    assert len({id(a) for a in first}) == len(document["attributes"])


def test_a_foreign_or_damaged_file_is_refused_by_name(tmp_path):
    bad = tmp_path / "testset.compact.json"
    bad.write_text('{"format": "stecflow-compact-testset", "version": 99}')
    with pytest.raises(CorpusError, match="version 99.*prepare_testset") as error:
        read_compact(bad)
    assert str(bad) in str(error.value)
    bad.write_text('{"format": "stecflow-compact-testset", "version": 1}')
    with pytest.raises(CorpusError, match="damaged"):
        read_compact(bad)
    bad.write_text("[1, 2")
    with pytest.raises(CorpusError, match="not a readable compact test set"):
        read_compact(bad)

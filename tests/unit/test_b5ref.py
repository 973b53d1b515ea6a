from __future__ import annotations

from collections import Counter

from stecflow.data.b5ref import read_b5ref
from stecflow.data.corpus import read_items, write_items


def test_reads_the_whole_corpus(b5ref_dir):
    items = read_b5ref(b5ref_dir)
    assert [i.id for i in items] == [f"ctx-{n:02d}" for n in range(1, 13)]
    assert all(len(i.domain.entities) == 6 for i in items)
    assert sum(len(i.references) for i in items) == 1821
    counts = Counter(len(i.references) for i in items)
    assert counts == {152: 9, 151: 3}
    first = items[0]
    assert first.domain.target.id == "a"
    assert len(first.domain.target.attributes) == 27
    names = {a.name for i in items for a in i.domain.target.attributes}
    assert len(names) == 27


def test_latin1_text_is_decoded(b5ref_dir):
    items = read_b5ref(b5ref_dir)
    strings = [r.word_string for i in items for r in i.references]
    assert any("asiático" in s for s in strings)
    assert not any("\ufffd" in s for s in strings)
    speaker8 = next(r for r in items[0].references if r.id == "speaker-8")
    assert speaker8.word_string == "homem asiático"
    assert speaker8.attribute_set == {("gender", "male"), ("race", "asian")}


def test_round_trip_through_stecflow_xml(b5ref_dir, tmp_path):
    items = read_b5ref(b5ref_dir)
    write_items(items, tmp_path / "b5.xml")
    assert read_items(tmp_path / "b5.xml") == items


def test_accepts_the_ref_folder_itself(b5ref_dir):
    assert len(read_b5ref(b5ref_dir / "ref")) == 12

from __future__ import annotations

import pytest

from stecflow.core.errors import CorpusError, XMLError
from stecflow.data.corpus import read_items, write_items
from stecflow.data.model import attribute_set

TUNA_REG_TRIAL = """<?xml version="1.0" encoding="UTF-8"?>
<TRIAL CONDITION="+LOC" ID="t42">
  <DOMAIN>
    <ENTITY ID="121" TYPE="target" IMAGE="fan-blue-small-left.gif">
      <ATTRIBUTE NAME="colour" VALUE="blue" />
      <ATTRIBUTE NAME="orientation" VALUE="left" />
      <ATTRIBUTE NAME="type" VALUE="fan" />
      <ATTRIBUTE NAME="size" VALUE="small" />
      <ATTRIBUTE NAME="x-dimension" VALUE="1" />
      <ATTRIBUTE NAME="y-dimension" VALUE="3" />
    </ENTITY>
    <ENTITY ID="122" TYPE="distractor" IMAGE="fan-red-small-left.gif">
      <ATTRIBUTE NAME="colour" VALUE="red" />
      <ATTRIBUTE NAME="orientation" VALUE="left" />
      <ATTRIBUTE NAME="type" VALUE="fan" />
      <ATTRIBUTE NAME="size" VALUE="small" />
      <ATTRIBUTE NAME="x-dimension" VALUE="2" />
      <ATTRIBUTE NAME="y-dimension" VALUE="3" />
    </ENTITY>
  </DOMAIN>
  <WORD-STRING>
    the blue fan   facing left
  </WORD-STRING>
  <ANNOTATED-WORD-STRING>the <ATTRIBUTE NAME="colour" VALUE="blue">blue</ATTRIBUTE> <ATTRIBUTE NAME="type" VALUE="fan">fan</ATTRIBUTE> <ATTRIBUTE NAME="orientation" VALUE="left">facing left</ATTRIBUTE></ANNOTATED-WORD-STRING>
  <ATTRIBUTE-SET>
    <ATTRIBUTE NAME="colour" VALUE="blue" />
    <ATTRIBUTE NAME="orientation" VALUE="left" />
    <ATTRIBUTE NAME="type" VALUE="fan" />
  </ATTRIBUTE-SET>
</TRIAL>
"""

TUNA10_TRIAL = """<?xml version="1.0" encoding="UTF-8"?>
<TRIAL ID="s3t12" CARDINALITY="1" CONDITION="-LOC" SIMILARITY="similar">
  <DOMAIN>
    <ENTITY ID="p1" TYPE="target" IMAGE="p1.jpg">
      <ATTRIBUTE NAME="type" VALUE="person" TYPE="literal" />
      <ATTRIBUTE NAME="hasBeard" VALUE="1" TYPE="boolean" />
      <ATTRIBUTE NAME="x-dimension" VALUE="2" TYPE="gradable" />
    </ENTITY>
    <ENTITY ID="p2" TYPE="distractor" IMAGE="p2.jpg">
      <ATTRIBUTE NAME="type" VALUE="person" TYPE="literal" />
      <ATTRIBUTE NAME="hasBeard" VALUE="0" TYPE="boolean" />
      <ATTRIBUTE NAME="x-dimension" VALUE="3" TYPE="gradable" />
    </ENTITY>
  </DOMAIN>
  <STRING-DESCRIPTION>the man with the beard</STRING-DESCRIPTION>
  <DESCRIPTION>the <ATTRIBUTE NAME="type" VALUE="person">man</ATTRIBUTE> with the <ATTRIBUTE NAME="hasBeard" VALUE="1">beard</ATTRIBUTE></DESCRIPTION>
  <ATTRIBUTE-SET>
    <ATTRIBUTE NAME="type" VALUE="person" />
    <ATTRIBUTE NAME="hasBeard" VALUE="1" />
  </ATTRIBUTE-SET>
</TRIAL>
"""


def test_reads_tuna_reg_trial(tmp_path):
    path = tmp_path / "t42.xml"
    path.write_text(TUNA_REG_TRIAL)
    [item] = read_items(path)
    assert item.id == "t42" and item.condition == "+LOC"
    assert item.subdomain == "furniture"
    assert item.domain.target.id == "121"
    assert item.domain.target.image == "fan-blue-small-left.gif"
    assert [e.id for e in item.domain.distractors] == ["122"]
    [reference] = item.references
    assert reference.word_string == "the blue fan facing left"
    assert reference.attribute_set == attribute_set(
        {"colour": "blue", "orientation": "left", "type": "fan"}
    )
    assert reference.annotated_word_string.startswith('the <ATTRIBUTE NAME="colour"')
    assert item.domain.values()["x-dimension"] == frozenset({"1", "2"})
    # made once per domain (every submission's outputs are checked against it);
    # each caller gets its own mapping
    item.domain.values().clear()
    assert item.domain.values()["x-dimension"] == frozenset({"1", "2"})
    assert item.domain.values() is not item.domain.values()


def test_round_trip_gives_the_same_model(tmp_path):
    source = tmp_path / "t42.xml"
    source.write_text(TUNA_REG_TRIAL)
    items = read_items(source)
    out = tmp_path / "out.xml"
    write_items(items, out)
    assert read_items(out) == items
    # writing is deterministic
    out2 = tmp_path / "out2.xml"
    write_items(read_items(out), out2)
    assert out.read_bytes() == out2.read_bytes()


def test_tuna_1_0_layout(tmp_path):
    folder = tmp_path / "corpus" / "singular" / "people"
    folder.mkdir(parents=True)
    (folder / "s3t12.xml").write_text(TUNA10_TRIAL)
    [item] = read_items(tmp_path / "corpus")
    assert item.subdomain == "people"
    assert item.extra == (("CARDINALITY", "1"), ("SIMILARITY", "similar"))
    assert [a.kind for a in item.domain.target.attributes] == [
        "literal",
        "boolean",
        "gradable",
    ]
    [reference] = item.references
    assert reference.word_string == "the man with the beard"
    assert "hasBeard" in reference.annotated_word_string
    out = tmp_path / "out.xml"
    write_items([item], out)
    assert read_items(out) == [item]


def test_several_references_round_trip(tiny_campaign):
    items = read_items(tiny_campaign / "testset.xml")
    assert [len(i.references) for i in items] == [2, 2, 2, 2]
    assert [r.id for r in items[0].references] == ["HUMAN-1", "HUMAN-2"]
    assert items[2].subdomain == "people" and items[1].condition == "-LOC"


@pytest.mark.parametrize(
    "mutation, message, line",
    [
        (('TYPE="target"', 'TYPE="targte"'), "TYPE is 'targte'", 4),
        (('TYPE="distractor"', 'TYPE="target"'), "exactly one target", 3),
        (
            (
                'NAME="size" VALUE="small" />\n      <ATTRIBUTE NAME="x',
                'NAME="size" />\n      <ATTRIBUTE NAME="x',
            ),
            "VALUE attribute is missing",
            8,
        ),
        (('<TRIAL CONDITION="+LOC" ID="t42">', "<TRIAL>"), "ID attribute", 2),
    ],
)
def test_model_errors_name_file_line_and_element(tmp_path, mutation, message, line):
    path = tmp_path / "bad.xml"
    path.write_text(TUNA_REG_TRIAL.replace(*mutation, 1))
    with pytest.raises(CorpusError) as info:
        read_items(path)
    assert message in str(info.value)
    assert info.value.file == str(path) and info.value.line == line


def test_duplicate_trial_ids(tmp_path):
    body = TUNA_REG_TRIAL.split("\n", 1)[1]
    path = tmp_path / "dup.xml"
    path.write_text(f"<TRIALS>{body}{body}</TRIALS>")
    with pytest.raises(CorpusError, match="'t42' occurs more than once"):
        read_items(path)


def test_malformed_xml(tmp_path):
    path = tmp_path / "bad.xml"
    path.write_text(TUNA_REG_TRIAL.replace("</DOMAIN>", "</DOMIAN>"))
    with pytest.raises(XMLError) as info:
        read_items(path)
    assert info.value.line == 20  # the </DOMIAN> line


def test_repeated_entity_attributes_are_checked_every_time(tmp_path):
    """Attributes are built once per distinct raw form and shared, and a bad one
    after good ones of the same name is still an error naming its line."""
    entity = '<ENTITY ID="{id}" TYPE="{t}">{attrs}</ENTITY>'
    good = '<ATTRIBUTE NAME="colour" VALUE=" red " TYPE="literal"/>'
    trials = "".join(
        f'<TRIAL ID="t{n}"><DOMAIN>'
        + entity.format(id="e1", t="target", attrs=good)
        + entity.format(id="e2", t="distractor", attrs=good)
        + "</DOMAIN><WORD-STRING>the red one</WORD-STRING></TRIAL>\n"
        for n in range(3)
    )
    path = tmp_path / "c.xml"
    path.write_text(f"<TRIALS>\n{trials}</TRIALS>\n", encoding="utf-8")
    items = read_items(path)
    attributes = [e.attributes[0] for i in items for e in i.domain.entities]
    assert {(a.name, a.value, a.kind) for a in attributes} == {
        ("colour", "red", "literal")
    }
    assert len({id(a) for a in attributes}) == 1
    bad = trials.replace('VALUE=" red " TYPE="literal"', 'VALUE=" " TYPE="literal"', 1)
    path.write_text(f"<TRIALS>\n{trials}{bad}</TRIALS>\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="VALUE attribute is missing") as info:
        read_items(path)
    assert info.value.line == 5
    kind = trials.replace('TYPE="literal"', 'TYPE="colourful"', 1)
    path.write_text(f"<TRIALS>\n{kind}</TRIALS>\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="attribute TYPE is 'colourful'"):
        read_items(path)

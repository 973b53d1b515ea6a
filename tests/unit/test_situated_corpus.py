"""The situated-dialogue test set described as seed 000 describes REX-J (issue #45
point 10): the optional ``content`` and ``set_aside`` fields of the format, the
counts of :mod:`stecflow.tasks.situated_corpus` and the Methods tables of
:mod:`stecflow.report.testset_tables`.

The small corpus below is counted by hand in the comments; the demo corpus is
counted independently from its files' JSON.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path

import pytest

from stecflow.core.errors import CorpusError
from stecflow.data.dialogue import (
    dumps_session,
    load_session,
    read_corpus,
    write_corpus_file,
)
from stecflow.report import testset_tables
from stecflow.report.context import Context
from stecflow.tasks.registry import get
from stecflow.tasks.situated_corpus import corpus_tables, describe_corpus
from tests.unit.test_dialogue_data import encode, small

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "resources" / "dialogue-demo"


def annotated() -> dict:
    """small() with content on four of its five expressions and set_aside counts.

    e1 solver unique_name "the square"          [object_attribute]
    e2 solver demonstrative_pronoun "that one"  []
    e3 operator demonstrative_pronoun "this one" []
    e4 solver demonstrative_pronoun "that"      (not annotated)
    e5 solver unique_name "the square"          [object_attribute, spatial_relation]
    """
    raw = small()
    contents = {
        "e1": ["object_attribute"],
        "e2": [],
        "e3": [],
        "e5": ["object_attribute", "spatial_relation"],
    }
    for utterance in raw["utterances"]:
        for expression in utterance["expressions"]:
            if expression["id"] in contents:
                expression["content"] = contents[expression["id"]]
    raw["set_aside"] = {"group": 3, "undetermined": 1}
    return raw


def test_content_and_set_aside_are_read_and_written_back() -> None:
    session = load_session(encode(annotated()), "t1.json")
    content = {e.id: e.content for _, e in session.expressions()}
    assert content == {
        "e1": ("object_attribute",),
        "e2": (),
        "e3": (),
        "e4": None,
        "e5": ("object_attribute", "spatial_relation"),
    }
    assert session.set_aside == (("group", 3), ("undetermined", 1))
    text = dumps_session(session)
    assert load_session(text.encode("utf-8"), "again.json") == session
    # left out stays left out
    plain = load_session(encode(small()), "t1.json")
    assert plain.set_aside is None
    assert '"content"' not in dumps_session(plain)
    assert '"set_aside"' not in dumps_session(plain)


@pytest.mark.parametrize(
    ("change", "field", "expected"),
    [
        (
            lambda r: r["utterances"][0]["expressions"][0].update(content=["colour"]),
            "utterances[0].expressions[0].content[0]",
            "colour",
        ),
        (
            lambda r: r["utterances"][0]["expressions"][0].update(
                content=["action", "action"]
            ),
            "utterances[0].expressions[0].content",
            "non-unique",
        ),
        (
            lambda r: r.update(set_aside={"group": -1, "undetermined": 0}),
            "set_aside.group",
            "-1",
        ),
        (
            lambda r: r.update(set_aside={"group": 2}),
            "set_aside",
            "undetermined",
        ),
    ],
)
def test_bad_annotations_are_refused_with_the_field(change, field, expected) -> None:
    raw = copy.deepcopy(annotated())
    change(raw)
    with pytest.raises(CorpusError) as caught:
        load_session(encode(raw), "t1.json")
    assert caught.value.field == field
    assert expected in str(caught.value)
    assert caught.value.line is not None


def test_describe_corpus_counts_by_hand() -> None:
    session = load_session(encode(annotated()), "t1.json")
    d = describe_corpus([session])
    assert d["expressions"] == {"solver": 4, "operator": 1}
    assert d["by_form"]["unique_name"] == {"solver": 2, "operator": 0}
    assert d["by_form"]["demonstrative_pronoun"] == {"solver": 2, "operator": 1}
    assert d["by_feature"]["demonstrative"] == {"solver": 2, "operator": 1}
    assert d["by_feature"]["demonstrative_adjective"] == {"solver": 0, "operator": 0}
    assert d["by_feature"]["object_attribute"] == {"solver": 2, "operator": 0}
    assert d["by_feature"]["spatial_relation"] == {"solver": 1, "operator": 0}
    assert d["by_feature"]["action"] == {"solver": 0, "operator": 0}
    assert d["not_annotated"] == {"solver": 1, "operator": 0}  # e4
    assert d["set_aside"] == {"group": 3, "undetermined": 1}
    assert d["set_aside_sessions"] == 1
    assert d["instances"] == 4 and d["not_instances"] == {"operator": 1}


def test_corpus_tables_of_a_file(tmp_path: Path) -> None:
    session = load_session(encode(annotated()), "t1.json")
    path = tmp_path / "testset.json"
    write_corpus_file([session], path)
    expressions, excluded = corpus_tables(path)
    rows = {r[0]: r[1:] for r in expressions["rows"]}
    assert rows["All referring expressions (to one piece)"] == [4, 1, 5]
    assert rows["(a) Demonstratives"] == [2, 1, 3]
    assert rows["(b) Object attributes (“the small triangle”)"] == [2, 0, 2]
    assert rows["(c) Spatial relations (“on the left”)"] == [1, 0, 1]
    assert rows["Not annotated for (b)-(d)"] == [1, 0, 1]
    assert [c for c, _ in expressions["columns"]] == [
        "what",
        "solver",
        "operator",
        "all",
    ]
    counts = {r[0]: r[1] for r in excluded["rows"]}
    # 5 in the file + 4 set aside = 9 annotated, as the seed's 1,242 + 201
    assert counts["Referring expressions annotated"] == 9
    assert counts["set aside by the annotators: refers to a group of pieces"] == 3
    assert counts["set aside by the annotators: referent could not be determined"] == 1
    assert counts["the operator's expressions"] == 1
    assert counts["Instances (the task's items)"] == 4
    # the task type gives the same tables to the report
    assert get("situated_dialogue").describe_testset(path) == [expressions, excluded]


def test_the_demo_corpus_counted_from_its_json() -> None:
    """Every count of the demo corpus against a count of the raw JSON."""
    speakers: Counter = Counter()
    forms: Counter = Counter()
    features: Counter = Counter()
    for path in sorted(DEMO.glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        for utterance in raw["utterances"]:
            for expression in utterance["expressions"]:
                who = utterance["speaker"]
                speakers[who] += 1
                forms[expression["form"], who] += 1
                for feature in expression["content"]:
                    features[feature, who] += 1
    d = describe_corpus(read_corpus(DEMO))
    assert d["expressions"] == {"solver": 368, "operator": 43} == dict(speakers)
    assert d["instances"] == 368
    for (form, who), n in forms.items():
        assert d["by_form"][form][who] == n
    for (feature, who), n in features.items():
        assert d["by_feature"][feature][who] == n
    assert d["by_feature"]["demonstrative_pronoun"] == {"solver": 129, "operator": 43}
    assert d["by_feature"]["object_attribute"]["solver"] == 239
    assert d["by_feature"]["spatial_relation"]["solver"] == 82
    assert d["by_feature"]["action"]["solver"] == 37
    assert d["not_annotated"] == {"solver": 0, "operator": 0}
    assert d["set_aside"] == {"group": 0, "undetermined": 0}


def test_the_report_draws_the_tables_under_methods(tmp_path: Path) -> None:
    session = load_session(encode(annotated()), "t1.json")
    path = tmp_path / "testset.json"
    write_corpus_file([session], path)
    ctx = Context(
        config={"campaign": {"tasks": ["situated_dialogue"]}},
        metrics={},
        entries=[],
        records={},
        summary=[],
        testset=None,  # type: ignore[arg-type]  # not read here
        analyses=[],
        judgments=[],
        prefix="t-",
        tables=3,
    )
    blocks = testset_tables.description_blocks(ctx, path)
    assert blocks[0]["kind"] == "h3" and blocks[0]["id"] == "methods-testset"
    tables = [b["table"] for b in blocks[1:]]
    assert [t.number for t in tables] == [4, 5]
    first = tables[0]
    assert first.rows[0].cells[0].text == "All referring expressions (to one piece)"
    assert [c.text for c in first.rows[0].cells[1:]] == ["4", "1", "5"]
    assert "4,1,5" in first.to_csv()
    # a campaign of a task type without a description: nothing
    ctx.config = {"campaign": {"tasks": ["end_to_end"]}}
    assert testset_tables.description_blocks(ctx, path) == []

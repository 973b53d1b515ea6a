"""Text-rating and text-preference study documents (stecflow.studies.text).

The items are a minimal stand-in for the text task type's (``Item.input`` a
string, a list of triples or a dict; outputs as ``Output.word_string``), so the
builder's input is what that task type will hand it: items and outputs per
system.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import jsonschema
import pytest
import yaml

from stecflow.core.errors import ConfigError, StimuliError
from stecflow.data.model import Domain, Item, Output, Reference
from stecflow.studies.bundle import study_sha256
from stecflow.studies.designs import latin_square_design
from stecflow.studies.designs.pairs import pair_design
from stecflow.studies.settings import RESPONSE_COLUMNS
from stecflow.studies.strings import TEXT_UI_STRINGS, UI_STRINGS
from stecflow.studies.text import (
    PREFERENCE_COLUMNS,
    build_text_study,
    make_text_study_files,
    text_criteria,
    text_settings,
)
from stecflow.studies.text_input import (
    HTML_ATTRIBUTES,
    HTML_TAGS,
    sanitise_html,
    shown_input,
)

ROOT = Path(__file__).resolve().parents[2]
SYSTEMS = ["organisers/template", "organisers/rules", "organisers/weak"]
TRIPLES = [
    ("Alan_Bean", "birthPlace", "Wheeler,_Texas"),
    ("Alan_Bean", "occupation", "Test_pilot"),
]
RATING = [
    {
        "id": "fluency",
        "question": "How fluent is the text?",
        "scale": "likert",
        "points": 5,
        "anchors": ["Not fluent at all", "Perfectly fluent"],
    },
    {
        "id": "adequacy",
        "question": "Does the text say what the data says?",
        "scale": "slider",
        "anchors": ["Not at all", "Completely"],
    },
]
PREFERENCE = [{"id": "overall", "question": "Which text is better?", "allow_tie": True}]


def _item(item_id, value, refs=("A reference.",)):
    return Item(
        item_id,
        Domain(()),
        "all",
        references=tuple(
            Reference(word_string=r, id=f"ref{n}") for n, r in enumerate(refs)
        ),
        input=value,
    )


ITEMS = [
    _item("t1", TRIPLES),
    _item("t2", "The cat sat on the mat."),
    _item("t3", {"name": "Aromi", "eatType": "coffee shop", "stars": 3}),
]
OUTPUTS = {
    # an iterable of Output, as the text task type's reader gives them
    "organisers/template": [
        Output("t1", "Alan Bean was born in Wheeler, Texas.", line=1),
        Output("t2", "A cat sat on a mat.", line=2),
        Output("t3", "Aromi is a coffee shop with 3 stars.", line=3),
    ],
    # or item -> text
    "organisers/rules": {"t1": "Bean: pilot.", "t2": "Cat mat.", "t3": "Aromi coffee."},
    "organisers/weak": {"t1": "Alan.", "t2": "The cat.", "t3": "  Aromi.  "},
}
TEXTS = {
    "organisers/template": {
        o.item_id: o.word_string for o in OUTPUTS["organisers/template"]
    },
    "organisers/rules": OUTPUTS["organisers/rules"],
    "organisers/weak": {"t1": "Alan.", "t2": "The cat.", "t3": "Aromi."},
}


def _rating(**options):
    design = latin_square_design(
        SYSTEMS, ["t1", "t2", "t3"], subjects=3, seed=2011, study="text-rating"
    )
    return design, make_text_study_files(
        design, ITEMS, OUTPUTS, task="text_rating", criteria=RATING, **options
    )


def _preference(**options):
    design = pair_design(
        SYSTEMS, ["t1", "t2", "t3"], subjects=6, seed=2012, study="text-preference"
    )
    return design, make_text_study_files(
        design, ITEMS, OUTPUTS, task="text_preference", criteria=PREFERENCE, **options
    )


# --------------------------------------------------------------------------- documents


def test_rating_document():
    design, bundle = _rating()
    doc = bundle.document
    assert doc["task"] == "text_rating" and doc["variant"] is None
    assert doc["columns"] == [*RESPONSE_COLUMNS, "rating_fluency", "rating_adequacy"]
    assert doc["criteria"] == [
        {
            "id": "fluency",
            "question": "How fluent is the text?",
            "scale": "likert",
            "points": 5,
            "anchors": ["Not fluent at all", "Perfectly fluent"],
            "allow_tie": False,
        },
        {
            "id": "adequacy",
            "question": "Does the text say what the data says?",
            "scale": "slider",
            "points": None,
            "anchors": ["Not at all", "Completely"],
            "allow_tie": False,
        },
    ]
    assert doc["inputs"] == {
        "t1": {
            "kind": "triples",
            "triples": [
                ["Alan_Bean", "birthPlace", "Wheeler,_Texas"],
                ["Alan_Bean", "occupation", "Test_pilot"],
            ],
        },
        "t2": {"kind": "text", "text": "The cat sat on the mat."},
        "t3": {
            "kind": "json",
            "fields": [["eatType", "coffee shop"], ["name", "Aromi"], ["stars", "3"]],
        },
    }
    assert doc["settings"]["title"] == "Judging texts"
    assert doc["texts"]["instructions"] == [
        TEXT_UI_STRINGS["en"]["instructions_text_rating"],
        TEXT_UI_STRINGS["en"]["instructions_text_scales"],
    ]
    assert doc["texts"]["ui"]["choose_tie"] == "No preference"
    assert doc["texts"]["ui"]["next"] == UI_STRINGS["en"]["next"]
    # trial for trial the design, the design's system's output
    rows = design.trials.sort_values(["subject_slot", "order"]).to_dict("records")
    trials = [t for lst in doc["lists"] for t in lst["trials"]]
    assert len(trials) == len(rows) == 9
    for row, trial in zip(rows, trials, strict=True):
        assert (trial["item"], trial["system"], trial["order"]) == (
            row["item"],
            row["system"],
            row["order"],
        )
        assert trial["output"] == TEXTS[row["system"]][row["item"]]
        assert trial["input"] == row["item"] and trial["target"] is None
    assert [lst["list"] for lst in doc["lists"]] == ["L01", "L02", "L03"]
    # the page's document holds no list, no input and no design
    public = json.loads(bundle.files["stimuli.json"])
    assert {"lists", "inputs", "design", "notes"}.isdisjoint(public)
    assert public["criteria"] == doc["criteria"]
    assert bundle.files["stimuli.js"].startswith(b"window.STECFLOW_STUDY = ")
    # a participant's list shows each input once, by an opaque key
    shown = json.loads(bundle.key)["participant_lists"]["L01"]
    assert sorted(shown["inputs"].values(), key=str) == sorted(
        (doc["inputs"][t["input"]] for t in doc["lists"][0]["trials"]), key=str
    )
    assert {t["input"] for t in shown["trials"]} == set(shown["inputs"])
    assert all(not key.startswith("t") for key in shown["inputs"])


def test_preference_document():
    design, bundle = _preference()
    doc = bundle.document
    assert doc["task"] == "text_preference"
    assert doc["columns"] == [*RESPONSE_COLUMNS, *PREFERENCE_COLUMNS]
    assert PREFERENCE_COLUMNS == (
        "system_left",
        "system_right",
        "preferred",
        "chosen_system",
    )
    assert doc["texts"]["instructions"] == [
        TEXT_UI_STRINGS["en"]["instructions_text_preference"],
        TEXT_UI_STRINGS["en"]["instructions_text_tie"],
    ]
    assert doc["design"]["kind"] == "pairs"
    rows = design.trials.sort_values(["subject_slot", "order"]).to_dict("records")
    trials = [t for lst in doc["lists"] for t in lst["trials"]]
    assert len(trials) == 18 and len(doc["lists"]) == 6
    for row, trial in zip(rows, trials, strict=True):
        left, right = row["system_left"], row["system_right"]
        assert (trial["system_left"], trial["system_right"]) == (left, right)
        assert trial["system"] == "|".join(sorted((left, right)))
        assert trial["output_left"] == TEXTS[left][row["item"]]
        assert trial["output_right"] == TEXTS[right][row["item"]]
        assert trial["item_set"] == "S1"
    # no tie offered: the instructions say nothing of it
    no_tie = [{"id": "overall", "question": "Which text is better?"}]
    bundle = make_text_study_files(
        design, ITEMS, OUTPUTS, task="text_preference", criteria=no_tie
    )
    assert bundle.document["criteria"][0]["allow_tie"] is False
    assert len(bundle.document["texts"]["instructions"]) == 1


def test_a_preference_study_needs_a_pair_design():
    design = latin_square_design(SYSTEMS, ["t1", "t2", "t3"], subjects=3, seed=1)
    with pytest.raises(StimuliError, match="pair_design"):
        make_text_study_files(
            design, ITEMS, OUTPUTS, task="text_preference", criteria=PREFERENCE
        )


def test_missing_items_and_outputs_are_all_listed():
    design = latin_square_design(SYSTEMS, ["t1", "t2", "t3"], subjects=3, seed=1)
    outputs = {**OUTPUTS, "organisers/rules": {"t1": "Bean: pilot."}}
    with pytest.raises(StimuliError) as info:
        make_text_study_files(
            design, ITEMS[:2], outputs, task="text_rating", criteria=RATING
        )
    message = info.value.message
    # t3 in each of the 3 lists; rules's t2 in the one list that shows it
    assert message.startswith("4 problem(s): ")
    assert "no output of system organisers/rules for item t2" in message
    assert "item t3 (list L01) is not in the items" in message
    assert info.value.field == "study study"


def test_practice_trials_show_the_first_reference():
    design = latin_square_design(
        SYSTEMS,
        ["t1", "t2", "t3"],
        subjects=3,
        seed=1,
        practice_pool=["p1"],
        n_practice=1,
    )
    items = [*ITEMS, _item("p1", "Practice input.", refs=("First ref.", "Second."))]
    bundle = make_text_study_files(
        design, items, OUTPUTS, task="text_rating", criteria=RATING
    )
    first = bundle.document["lists"][0]["trials"][0]
    assert first["practice"] and first["system"] is None
    assert first["output"] == "First ref."
    assert bundle.document["inputs"]["p1"] == {
        "kind": "text",
        "text": "Practice input.",
    }


def test_empty_outputs_are_kept_and_noted():
    design = latin_square_design(SYSTEMS, ["t1", "t2", "t3"], subjects=3, seed=1)
    outputs = {**OUTPUTS, "organisers/weak": {"t1": " ", "t2": "x", "t3": "y"}}
    bundle = make_text_study_files(
        design, ITEMS, outputs, task="text_rating", criteria=RATING
    )
    assert bundle.document["notes"] == [
        "the output of organisers/weak for item t1 is empty"
    ]
    shown = [
        t["output"]
        for lst in bundle.document["lists"]
        for t in lst["trials"]
        if t["system"] == "organisers/weak" and t["item"] == "t1"
    ]
    assert shown == [""]


def test_same_inputs_same_bytes_and_the_folder_is_frozen(tmp_path):
    _, first = _preference()
    _, second = _preference()
    assert first.files == second.files
    design, _ = _preference()
    summary = build_text_study(
        design,
        ITEMS,
        OUTPUTS,
        task="text_preference",
        criteria=PREFERENCE,
        out_dir=tmp_path / "web",
    )
    assert summary["lists"] == 6 and summary["trials"] == 18
    assert summary["sha256"] == study_sha256(tmp_path / "web")
    assert sorted(p.name for p in (tmp_path / "web").iterdir()) == [
        "MANIFEST.tsv",
        "experiment.css",
        "experiment.js",
        "index.html",
        "stimuli.js",
        "stimuli.json",
    ]
    with pytest.raises(StimuliError, match="frozen"):
        build_text_study(
            design,
            ITEMS,
            OUTPUTS,
            task="text_preference",
            criteria=PREFERENCE,
            out_dir=tmp_path / "web",
        )


# --------------------------------------------------------------------------- inputs


def test_inputs_of_the_text_task_type_shape():
    """An object with kind and value (the text task type's TextInput)."""
    triples = SimpleNamespace(kind="triples", value=(("a", "b", "c"),))
    assert shown_input(triples) == (
        {"kind": "triples", "triples": [["a", "b", "c"]]},
        [],
    )
    text = SimpleNamespace(kind="text", value="Some text.")
    assert shown_input(text)[0] == {"kind": "text", "text": "Some text."}
    as_pairs = SimpleNamespace(
        kind="json", value=(("b", 2), ("a", [1, {"y": 2, "x": 1}]))
    )
    assert shown_input(as_pairs)[0] == {
        "kind": "json",
        "fields": [["a", '[1,{"x":1,"y":2}]'], ["b", "2"]],
    }
    as_text = SimpleNamespace(kind="json", value='{"html": "<p>Hi <i>there</i></p>"}')
    assert shown_input(as_text)[0] == {
        "kind": "html",
        "nodes": [["p", {}, ["Hi ", ["i", {}, ["there"]]]]],
    }
    assert shown_input(None) == ({"kind": "none"}, [])


def test_bad_inputs_say_what_is_wrong():
    with pytest.raises(StimuliError, match=r"triple 2 is \('a', 'b'\), not three"):
        shown_input([("a", "b", "c"), ("a", "b")])
    with pytest.raises(StimuliError, match="cannot show an input of type int"):
        shown_input(3)
    design = latin_square_design(SYSTEMS, ["t1", "t2", "t3"], subjects=3, seed=1)
    items = [ITEMS[0], ITEMS[1], _item("t3", [("x", "y")])]
    with pytest.raises(StimuliError, match="item t3: triple 1 is"):
        make_text_study_files(
            design, items, OUTPUTS, task="text_rating", criteria=RATING
        )


def _all_tags(nodes):
    for node in nodes:
        if isinstance(node, list):
            yield node[0], node[1]
            yield from _all_tags(node[2])


def test_html_snippets_are_sanitised_by_the_allow_list():
    hostile = (
        '<P CLASS="x" onmouseover="steal()">Hello <B>world</B></P>'
        "<script>alert(1)</script><style>p{}</style>"
        '<img src="http://evil/x.png" onerror="x()">'
        '<a href="javascript:alert(1)">click</a>'
        '<iframe src="http://evil"><p>inside</p></iframe>'
        "<!-- a comment --><svg><script>x()</script><text>t</text></svg>"
        '<table><tr><td colspan="2" rowspan="x" style="color:red">cell</td>'
        '<th dir="rtl" lang="ar">h</th></tr></table>'
        "<ul><li>one<li>two</ul>&lt;script&gt; &amp; <em>done"
    )
    nodes, removed = sanitise_html(hostile)
    assert nodes == [
        ["p", {}, ["Hello ", ["b", {}, ["world"]]]],
        "click",
        [
            "table",
            {},
            [
                [
                    "tr",
                    {},
                    [
                        ["td", {"colspan": "2"}, ["cell"]],
                        ["th", {"dir": "rtl", "lang": "ar"}, ["h"]],
                    ],
                ]
            ],
        ],
        ["ul", {}, [["li", {}, ["one"]], ["li", {}, ["two"]]]],
        "<script> & ",
        ["em", {}, ["done"]],
    ]
    assert removed == [
        "<a> (unwrapped)",
        "comment",
        "iframe",
        "img",
        "p@class",
        "p@onmouseover",
        "script",
        "style",
        "svg",
        "td@rowspan",
        "td@style",
    ]
    for tag, attributes in _all_tags(nodes):
        assert tag in HTML_TAGS
        assert set(attributes) <= set(HTML_ATTRIBUTES)


@pytest.mark.parametrize(
    ("snippet", "nodes", "removed"),
    [
        ("<SCRIPT>alert(1)</SCRIPT>ok", ["ok"], ["script"]),
        ("a<iframe>b<p>c", ["a"], ["iframe"]),  # unclosed: the rest is dropped
        ("<svg><svg><a>x</a></svg>y</svg>z", ["z"], ["svg"]),
        ("<p/>q<br/><hr>", [["p", {}, []], "q", ["br", {}, []], ["hr", {}, []]], []),
        ("<b><i>x</b>y</i>z", [["b", {}, [["i", {}, ["x"]]]], "yz"], []),
        (
            "<table><tr><td>1<td>2<tr><th>3</table>after",
            [
                [
                    "table",
                    {},
                    [
                        ["tr", {}, [["td", {}, ["1"]], ["td", {}, ["2"]]]],
                        ["tr", {}, [["th", {}, ["3"]]]],
                    ],
                ],
                "after",
            ],
            [],
        ),
        (
            '<div dir="sideways" lang="en-GB">t</div>',
            [["div", {"lang": "en-GB"}, ["t"]]],
            ["div@dir"],
        ),
        ("<p>a<p>b", [["p", {}, ["a"]], ["p", {}, ["b"]]], []),
    ],
)
def test_html_edge_cases(snippet, nodes, removed):
    assert sanitise_html(snippet) == (nodes, removed)


def test_html_inputs_are_noted_in_the_document(caplog):
    design = latin_square_design(SYSTEMS, ["t1", "t2", "t3"], subjects=3, seed=1)
    items = [*ITEMS[:2], _item("t3", {"html": "<p>Menu<script>x()</script></p>"})]
    bundle = make_text_study_files(
        design, items, OUTPUTS, task="text_rating", criteria=RATING
    )
    assert bundle.document["inputs"]["t3"] == {
        "kind": "html",
        "nodes": [["p", {}, ["Menu"]]],
    }
    assert bundle.document["notes"] == ["item t3: removed from its HTML: script"]
    assert "item t3: removed from its HTML: script" in caplog.text


def test_the_page_builds_html_from_the_same_allow_list():
    components = ROOT / "src/stecflow/studies/web/components"
    js = (components / "_text.js").read_text(encoding="utf-8")
    block = js.split("const HTML_TAGS = new Set([", 1)[1].split("]);", 1)[0]
    assert set(re.findall(r'"(\w+)"', block)) == HTML_TAGS
    attrs = js.split("const HTML_ATTRIBUTES = {", 1)[1].split("};", 1)[0]
    found = dict(re.findall(r"(\w+): /\^(.+)\$/", attrs))
    assert {k: v.strip("()") for k, v in found.items()} == HTML_ATTRIBUTES
    # every string the text trials show is in TEXT_UI_STRINGS (or the REG table)
    section = "".join(
        (components / name).read_text(encoding="utf-8")
        for name in ("_text.js", "text_rating.js", "text_preference.js")
    )
    assert "function makeInput" in section
    assert not re.search(
        r"\.(inner|outer)HTML|insertAdjacentHTML|document\.write", section
    )
    said = set(re.findall(r'\bsay\("(\w+)"', section))
    assert said and said <= set(TEXT_UI_STRINGS["en"])
    assert set(re.findall(r'\bt\("(\w+)"', section)) <= set(UI_STRINGS["en"])


# --------------------------------------------------------------------------- criteria


@pytest.mark.parametrize(
    ("criteria", "task", "field", "message"),
    [
        (
            [{"id": "a", "question": "Q?", "scale": "slider"}],
            "text_rating",
            "criteria[0].anchors",
            "give 2 anchors, got 0",
        ),
        (
            [{"id": "a", "question": "Q?", "points": 12}],
            "text_rating",
            "criteria[0].points",
            "from 2 to 11, got 12",
        ),
        (
            [{"id": "a", "question": "Q?", "points": 4, "anchors": ["x", "y", "z"]}],
            "text_rating",
            "criteria[0].anchors",
            "give no anchors, 2 (the ends) or 4 (one per point), got 3",
        ),
        (
            [{"id": "a", "question": "Q?", "scale": "slider", "points": 5,
              "anchors": ["x", "y"]}],
            "text_rating",
            "criteria[0].points",
            "a slider has no points",
        ),
        (
            [{"id": "a", "question": "Q?"}, {"id": "a", "question": "R?"}],
            "text_rating",
            "criteria[1].id",
            "duplicate ID a",
        ),
        (
            [{"id": "a.b", "question": "Q?"}],
            "text_rating",
            "criteria[0].id",
            "must be an ID",
        ),
        (
            [{"id": "a", "question": " "}],
            "text_rating",
            "criteria[0].question",
            "non-empty",
        ),
        (
            [{"id": "a", "question": "Q?", "scale": "stars"}],
            "text_rating",
            "criteria[0].scale",
            "likert, slider",
        ),
        (
            [{"id": "a", "question": "Q?", "allow_tie": True}],
            "text_rating",
            "criteria[0].allow_tie",
            "text_rating criteria take anchors, id, points, question, scale",
        ),
        (
            [{"id": "a", "question": "Q?", "scale": "likert"}],
            "text_preference",
            "criteria[0].scale",
            "text_preference criteria take allow_tie, id, question",
        ),
        (
            [{"id": "a", "question": "Q?"}, {"id": "b", "question": "R?"}],
            "text_preference",
            "criteria",
            "one question per trial",
        ),
        ([], "text_rating", "criteria", "at least one"),
        (None, "text_preference", "criteria", "a text_preference study needs criteria"),
        ({"id": "a", "question": "Q?"}, "text_rating", "criteria", "a list of"),
        (["fluency"], "text_rating", "criteria[0]", "must be a mapping"),
        ([{"id": "a", "question": "Q?"}], "rating", "task", "text_rating"),
    ],
)  # fmt: skip
def test_bad_criteria_name_the_key(criteria, task, field, message):
    with pytest.raises(ConfigError, match=re.escape(message)) as info:
        text_criteria(criteria, task)
    assert info.value.field == field


def test_criteria_defaults():
    (likert,) = text_criteria([{"id": "q", "question": " Q? "}], "text_rating")
    assert (likert.scale, likert.points, likert.anchors, likert.question) == (
        "likert",
        5,
        (),
        "Q?",
    )
    labelled = text_criteria(
        [{"id": "q", "question": "Q?", "points": 3, "anchors": ["a", "b", "c"]}],
        "text_rating",
    )
    assert labelled[0].anchors == ("a", "b", "c")
    assert text_criteria(labelled, "text_rating") == labelled  # idempotent


# --------------------------------------------------------------------------- settings


def test_japanese_and_overridden_strings():
    _, bundle = _preference(
        settings={"language": "ja", "strings": {"choose_tie": "同じ", "next": "次"}}
    )
    doc = bundle.document
    assert doc["settings"]["title"] == "文章の評価"
    ui = doc["texts"]["ui"]
    assert ui["choose_left"] == "Aの方がよい" and ui["choose_tie"] == "同じ"
    assert ui["next"] == "次" and ui["start"] == "開始"
    assert doc["settings"]["strings"] == {"choose_tie": "同じ", "next": "次"}
    assert (
        doc["texts"]["instructions"][0]
        == TEXT_UI_STRINGS["ja"]["instructions_text_preference"]
    )
    assert set(TEXT_UI_STRINGS["ja"]) == set(TEXT_UI_STRINGS["en"])
    assert not set(TEXT_UI_STRINGS["en"]) & set(UI_STRINGS["en"])
    with pytest.raises(ConfigError) as info:
        text_settings({"strings": {"likert_point": "{n}"}})
    assert info.value.field == "experiment.strings.likert_point"
    with pytest.raises(ConfigError) as info:
        text_settings({"strings": {"no_such": "x"}})
    assert info.value.field == "experiment.strings.no_such"


# --------------------------------------------------------------------------- config


def _study_schema():
    schema = yaml.safe_load(
        (ROOT / "workflow/schemas/config.schema.yaml").read_text(encoding="utf-8")
    )
    return schema["properties"]["studies"]["items"]


CONTRACT = """
- id: text-rating
  task: text_rating
  systems: [organisers/template, organisers/rules, human/ref]
  subjects: 6
  seed: 2011
  criteria:
    - {id: fluency, question: "How fluent is the text?", scale: likert, points: 5,
       anchors: ["Not fluent at all", "Perfectly fluent"]}
    - {id: adequacy, question: "Does the text say what the data says?", scale: slider,
       anchors: ["Not at all", "Completely"]}
  simulate: true
- id: text-preference
  task: text_preference
  systems: [organisers/template, organisers/rules, organisers/weak]
  subjects: 6
  seed: 2012
  criteria: [{id: overall, question: "Which text is better?", allow_tie: true}]
  simulate: true
"""


def test_the_contracts_studies_pass_the_schema_and_the_checks():
    schema = _study_schema()
    for study in yaml.safe_load(CONTRACT):
        jsonschema.validate(study, schema)
        checked = text_criteria(study["criteria"], study["task"])
        assert [c.id for c in checked] == [c["id"] for c in study["criteria"]]
    bad = {
        **yaml.safe_load(CONTRACT)[1],
        "criteria": [{"id": "x", "question": "Q", "colour": 1}],
    }
    with pytest.raises(jsonschema.ValidationError, match="colour"):
        jsonschema.validate(bad, schema)

"""The text-generation task: its JSON Lines test set, outputs files and scores.

The fixture (tests/fixtures/text/testset.jsonl) has five items with two
references each; the scores below are worked out by hand from the definitions
of REFERENCE.md (string accuracy: the normalised tokens equal a reference's; SE:
word edit distance with insertion and deletion 1 and substitution 2, the mean
over the references).
"""

from __future__ import annotations

import copy
import json
import random

import pytest
import yaml

from stecflow import campaign
from stecflow.cli import main
from stecflow.core.errors import ConfigError, CorpusError
from stecflow.core.io import read_json, read_tsv
from stecflow.data.jsonl import load_jsonl, load_testset
from stecflow.data.model import Output
from stecflow.scoring.bootstrap import subsets_of
from stecflow.scoring.score import score_outputs, score_submission
from stecflow.scoring.systems import aggregate_scores
from stecflow.submissions.outputs import (
    outputs_file,
    outputs_files,
    submission_file_names,
)
from stecflow.submissions.validation import validate_submission, validate_to_files
from stecflow.tasks import registry
from stecflow.tasks.base import Limits
from stecflow.tasks.text_generation import (
    TextInput,
    format_outputs,
    read_items,
    read_outputs,
    write_outputs,
)
from tests.conftest import REPO

FIXTURE = REPO / "tests" / "fixtures" / "text" / "testset.jsonl"
TASKS = ["text_generation"]
#: The "good" system: outputs of t1..t5 (t5 empty: a warning, scored as empty).
TEXTS = [
    "Aromi is a coffee shop by the river.",
    "the red chair faces left",
    "the big blue desk",
    "Alan Bean was a pilot.",
    "",
]
#: Per item, by hand: (string accuracy, SE mean over the two references).
#: t1: ref1 exact (0); ref2 "aromi is a riverside coffee shop": LCS 5 of 8 and
#:     6 tokens, 8 + 6 - 10 = 4 -> (0 + 4) / 2 = 2.
#: t2: ref1 equal once lowercased and stripped (0); ref2 "a red chair facing
#:     left": the->a, faces->facing, two substitutions = 4 -> 2.
#: t3: large->big = 2 and the->a = 2 -> 2; no reference matches.
#: t4: ref1 one deletion (test) = 1; ref2 "alan bean worked as a test pilot":
#:     LCS 4 of 5 and 7 tokens, 5 + 7 - 8 = 4 -> 2.5.
#: t5: empty against 7 and 5 tokens -> 6.
BY_HAND = {
    "t1": (1, 2.0),
    "t2": (1, 2.0),
    "t3": (0, 2.0),
    "t4": (0, 2.5),
    "t5": (0, 6.0),
}
SCORING = {
    "metrics": [{"id": "string_accuracy"}, {"id": "se"}],
    "bootstrap": {"resamples": 20, "seed": 1},
}


@pytest.fixture(scope="module")
def items():
    return read_items(FIXTURE)


def _mean(ids, column):
    values = [BY_HAND[i][column] for i in ids]
    return sum(values) / len(values)


# ----------------------------------------------------------------- the task type


def test_registered_with_its_files_and_default_metric_names():
    task = registry.get("text_generation")
    assert "text_generation" in registry.names()
    assert task.outputs == ("word_string",)
    assert task.outputs_file_names == ("outputs.jsonl", "outputs.txt", "outputs.json")
    # the names only: the sacreBLEU metrics are registered by another module
    assert task.default_metrics == ("bleu", "chrf", "ter")
    assert submission_file_names(TASKS) == (
        "system.yaml",
        "outputs.json",
        "outputs.jsonl",
        "outputs.txt",
    )


def test_reg_and_situated_files_are_unchanged():
    assert registry.get("end_to_end").outputs_file_names == ("outputs.xml",)
    assert submission_file_names(["end_to_end", "attribute_selection"]) == (
        "system.yaml",
        "outputs.xml",
    )
    assert outputs_files(["situated_dialogue"]) == ("outputs.tsv",)
    assert outputs_file([], ["situated_dialogue"], folder="/nonexistent") == (
        "outputs.tsv"
    )


# -------------------------------------------------------------------- test set


def test_fixture_items(items):
    assert [i.id for i in items] == ["t1", "t2", "t3", "t4", "t5"]
    assert [i.input.kind for i in items] == [
        "triples",
        "text",
        "json",
        "triples",
        "text",
    ]
    t1, _, t3, _, t5 = items
    assert t1.input.value == (
        ("Aromi", "eatType", "coffee shop"),
        ("Aromi", "area", "riverside"),
    )
    assert t3.input.data == {"type": "desk", "colour": "blue", "size": "large"}
    assert t3.input.value == '{"colour":"blue","size":"large","type":"desk"}'
    assert [(r.id, r.word_string) for r in t5.references] == [
        ("ref1", "The grey fan seen from the back."),
        ("ref2", "A grey fan facing away."),
    ]
    assert t5.extra == (("category", "Chair"), ("seen", "seen"))
    assert {i.subdomain for i in items} == {"all"}
    assert hash(t1) == hash(read_items(FIXTURE)[0])  # hashable, and stable


GOOD = '{"id": "t1", "input": "x", "references": ["y"]}'


@pytest.mark.parametrize(
    ("lines", "line", "field", "message"),
    [
        ([GOOD, '{"id": "t2", "input": "x",'], 2, None, "not valid JSON"),
        ([GOOD, '{"input": "x", "references": ["y"]}'], 2, "id", "no id"),
        ([GOOD, '{"id": "", "input": "x", "references": ["y"]}'], 2, "id", "empty"),
        ([GOOD, '{"id": 7, "input": "x", "references": ["y"]}'], 2, "id", "number 7"),
        ([GOOD, GOOD], 2, "id", "ID 't1' again (first on line 1)"),
        ([GOOD, '{"id": "t2", "input": "x"}'], 2, "references", "got none"),
        (
            [GOOD, '{"id": "t2", "input": "x", "references": []}'],
            2,
            "references",
            "one or more",
        ),
        (
            [GOOD, '{"id": "t2", "input": "x", "references": ["a", " "]}'],
            2,
            "references[1]",
            "non-empty text",
        ),
        (
            [GOOD, '{"id": "t2", "input": 3, "references": ["y"]}'],
            2,
            "input",
            "a text, a list of [subject, predicate, object] triples or an object",
        ),
        (
            [GOOD, '{"id": "t2", "input": [["a", "b"]], "references": ["y"]}'],
            2,
            "input",
            "input[0] is a list of 2",
        ),
        (
            [GOOD, '{"id": "t2", "input": "x", "references": ["y"], "meta": []}'],
            2,
            "meta",
            "an object of texts",
        ),
        (
            [
                GOOD,
                '{"id": "t2", "input": "x", "references": ["y"],'
                ' "meta": {"seen": {"a": "b"}}}',
            ],
            2,
            "meta.seen",
            "flat object of texts",
        ),
        (
            [
                GOOD,
                '{"id": "t2", "input": "x", "references": ["y"], "meta": {" ": "a"}}',
            ],
            2,
            "meta",
            "needs a name",
        ),
        (
            [GOOD, '{"id": "t2", "input": "x", "references": ["y"], "ref": 1}'],
            2,
            "ref",
            "unknown key 'ref'",
        ),
        ([GOOD, "", GOOD.replace("t1", "t2")], 2, None, "blank line"),
        (
            [GOOD, '{"id": "t2", "input": "x", "references": ["y"], "id": "t3"}'],
            2,
            "id",
            "key given twice",
        ),
        (
            [GOOD, GOOD, '{"id": "t3", "input": {"a": NaN}, "references": ["y"]}'],
            3,
            None,
            "NaN is not a number JSON allows",
        ),
        (
            [GOOD, '{"id": "t2", "input": ' + "[" * 40 + "]" * 40 + "}"],
            2,
            None,
            "nest more than 32 levels",
        ),
    ],
)
def test_testset_errors_name_line_and_field(lines, line, field, message):
    data = ("\n".join(lines) + "\n").encode()
    with pytest.raises(CorpusError) as caught:
        load_testset(data, "test.jsonl")
    error = caught.value
    assert (error.file, error.line, error.field) == ("test.jsonl", line, field)
    assert message in error.message


def test_testset_bytes_errors():
    with pytest.raises(CorpusError, match=r"test.jsonl, line 1: .*byte-order mark"):
        load_testset(b"\xef\xbb\xbf" + GOOD.encode(), "test.jsonl")
    with pytest.raises(CorpusError, match=r"test.jsonl, line 2: .*not valid UTF-8"):
        load_testset(GOOD.encode() + b'\n{"id": "t\xe9"}', "test.jsonl")
    with pytest.raises(CorpusError, match="the limit is 10 bytes"):
        load_testset(GOOD.encode(), "test.jsonl", max_bytes=10)
    with pytest.raises(CorpusError, match="holds no item"):
        load_testset(b"", "test.jsonl")
    # CRLF line ends and a missing last newline are fine
    assert [n for n, _ in load_jsonl(b'{"a": 1}\r\n{"a": 2}', "x")] == [1, 2]


def test_prepared_testset_round_trip(items, tmp_path):
    assert campaign.prepared_testset_name("text") == "testset.jsonl"
    out = tmp_path / "results" / "data" / "testset.jsonl"
    assert campaign.prepare_testset(FIXTURE, "text", out) == 5
    assert registry.read_testset(out) == items
    assert campaign.load_testset(FIXTURE, "text") == items
    first = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    assert list(first) == ["id", "input", "meta", "references"]
    assert first["input"] == [
        ["Aromi", "eatType", "coffee shop"],
        ["Aromi", "area", "riverside"],
    ]
    # writing the prepared file again gives the same bytes
    again = tmp_path / "again.jsonl"
    campaign.prepare_testset(out, "text", again)
    assert again.read_bytes() == out.read_bytes()


def _config(**data):
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config = copy.deepcopy(config)
    config["data"].update(data)
    return config


def test_check_config_text_format_and_task_go_together():
    config = _config(format="text", subsets=["category", "seen"])
    config["campaign"]["tasks"] = ["text_generation"]
    campaign.check_config(config)
    config["campaign"]["tasks"] = ["text_generation", "end_to_end"]
    with pytest.raises(ConfigError, match="text_generation task alone"):
        campaign.check_config(config)
    config = _config(format="tuna")
    config["campaign"]["tasks"] = ["text_generation"]
    with pytest.raises(ConfigError, match="text_generation task alone"):
        campaign.check_config(config)
    with pytest.raises(ConfigError, match=r"data.subsets\[0\].*only a text test set"):
        campaign.check_config(_config(subsets=["category"]))
    config = _config(format="text", subsets=["seen", "all"])
    config["campaign"]["tasks"] = ["text_generation"]
    with pytest.raises(ConfigError, match=r"data.subsets\[1\]"):
        campaign.check_config(config)


def test_schema_accepts_text_and_subsets():
    import jsonschema

    schema = yaml.safe_load(
        (REPO / "workflow" / "schemas" / "config.schema.yaml").read_text()
    )
    data = schema["properties"]["data"]
    jsonschema.validate(
        {"format": "text", "testset": "t.jsonl", "subsets": ["category"]}, data
    )
    for bad in (["all"], ["a.b"], ["seen", "seen"]):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"testset": "t", "subsets": bad}, data)


# -------------------------------------------------------------- outputs files


def _jsonl(texts, ids=("t1", "t2", "t3", "t4", "t5")):
    return "".join(
        json.dumps({"id": i, "output": t}) + "\n"
        for i, t in zip(ids, texts, strict=True)
    ).encode()


def _gem(texts, ids=("t1", "t2", "t3", "t4", "t5")):
    values = [{"gem_id": i, "generated": t} for i, t in zip(ids, texts, strict=True)]
    return json.dumps({"language": "en", "values": values}, indent=1).encode()


def test_the_three_formats_read_the_same_outputs(items):
    expected = [(i.id, t) for i, t in zip(items, TEXTS, strict=True)]
    txt = ("\n".join(TEXTS) + "\n").encode()
    positional = json.dumps({"language": "en", "values": TEXTS}).encode()
    keyed = json.dumps(
        {
            "submission_name": "good",
            "tasks": {
                "demo_test": {
                    "values": TEXTS[::-1],
                    "keys": ["t5", "t4", "t3", "t2", "t1"],
                }
            },
        }
    ).encode()
    for label, data in (
        ("o/outputs.jsonl", _jsonl(TEXTS)),
        ("o/outputs.txt", txt),
        ("o/outputs.json", _gem(TEXTS)),
        ("o/outputs.json", positional),
        ("o/outputs.json", keyed),
        ("hyp.out", _jsonl(TEXTS)),  # another name: told by its content
        ("hyp.out", _gem(TEXTS)),
        ("hyp.out", json.dumps(json.loads(_gem(TEXTS))).encode()),  # on one line
        ("hyp.out", txt),
    ):
        outputs, problems = read_outputs(data, label, items, ["word_string"])
        assert [(o.item_id, o.word_string) for o in outputs] == expected, label
        assert [(p.code, p.line, p.severity) for p in problems] == [
            ("empty_output", problems[0].line, "warning")
        ], label
    outputs, _ = read_outputs(_jsonl(TEXTS), "o/outputs.jsonl", items)
    assert [o.line for o in outputs] == [1, 2, 3, 4, 5]
    outputs, _ = read_outputs(_gem(TEXTS), "o/outputs.json", items)
    assert [o.line for o in outputs] == [4, 8, 12, 16, 20]  # "{" of each value


def _problems(data, label, items, limits=None):
    _, problems = read_outputs(data, label, items, ["word_string"], limits)
    return [(p.code, p.line, p.field, p.severity) for p in problems]


def test_jsonl_problems_have_their_lines(items):
    lines = [
        '{"id": "t1", "output": "a"}',
        '{"id": "t1", "output": "b"}',  # repeated
        '{"id": "t9", "output": "c"}',  # unknown
        '{"id": "t2", "output": "d", "score": 0.5}',  # extra key: a warning
        '{"output": "e"}',  # no id
        '{"id": "t3"}',  # no output
        '{"id": "t4", "output": null}',  # not a string
        '{"id": "t5", "output": "f"',  # not JSON
    ]
    problems = _problems(("\n".join(lines) + "\n").encode(), "o.jsonl", items)
    assert problems == [
        ("missing_id", 5, "id", "error"),
        ("bad_output", 6, "output", "error"),
        ("json_syntax", 8, None, "error"),
        ("unknown_key", 4, "score", "warning"),
        ("bad_output", 7, "item t4", "error"),
        ("unknown_item", 3, "item t9", "error"),
        ("duplicate_item", 2, "item t1", "error"),
        ("missing_item", None, "item t3", "error"),
        ("missing_item", None, "item t5", "error"),
    ]


def test_blank_lines_in_outputs_jsonl_are_a_warning(items):
    data = _jsonl(TEXTS).replace(b"\n", b"\n\n", 1) + b"\n"
    outputs, problems = read_outputs(data, "o.jsonl", items)
    assert len(outputs) == 5
    assert [(p.code, p.line, p.severity, p.message) for p in problems][0] == (
        "blank_line",
        2,
        "warning",
        "2 blank lines ignored (first: line 2); give one object per line",
    )


def test_a_wrong_type_is_named_as_json_names_it(items):
    _, problems = read_outputs(
        b'{"id": "t1", "output": null}\n', "o.jsonl", items, ["word_string"]
    )
    assert problems[0].describe() == (
        "o.jsonl, line 1, item t1: the output must be a string, not null"
    )


def test_bytes_and_limits(items):
    data = _jsonl(TEXTS)
    assert _problems(b"\xef\xbb\xbf" + data, "o.jsonl", items) == [
        ("byte_order_mark", 1, None, "error")
    ]
    broken = data.replace(b"Alan", b"Al\xe9n")
    # the lines around bad bytes are still read and checked: the empty fifth
    # output is still a warning, a line repeated after the bad one an error
    empty = ("empty_output", 5, "item t5", "warning")
    assert _problems(broken, "o.jsonl", items) == [
        ("undecodable", 4, None, "error"),
        empty,
    ]
    assert _problems(broken.replace(b"\n", b"\r\n"), "o.txt", items) == [
        ("undecodable", 4, None, "error")
    ]
    lines = broken.split(b"\n")
    again = b"\n".join([*lines[:5], lines[0], *lines[5:]])
    assert sorted(_problems(again, "o.jsonl", items)) == sorted(
        [("undecodable", 4, None, "error"), ("duplicate_item", 6, "item t1", "error"),
         empty]
    )  # fmt: skip
    outputs, _ = read_outputs(broken, "o.jsonl", items, ["word_string"])
    assert len(outputs) == 5 and "\ufffd" in outputs[3].word_string
    gem = b'{"language": "en", "values": ["Al\xe9n"]}'
    assert _problems(gem, "o.json", items) == [("undecodable", 1, None, "error")]
    long = _jsonl(["x" * 11, "a", "b", "c", "d"])
    assert _problems(long, "o.jsonl", items, Limits(max_word_string_chars=10)) == [
        ("string_too_long", 1, "item t1", "error")
    ]
    assert _problems(data, "o.jsonl", items, Limits(max_trials=3))[0] == (
        "too_many_outputs",
        4,
        None,
        "error",
    )
    tiny = Limits(max_outputs_mib=100 / 2**20)  # 100 bytes
    assert _problems(data, "o.jsonl", items, tiny)[0][0] == "outputs_too_large"


def test_txt_line_count_and_gem_problems(items):
    four = ("\n".join(TEXTS[:4]) + "\n").encode()
    assert _problems(four, "o.txt", items) == [("line_count", 5, None, "error")]
    six = ("\n".join([*TEXTS[:4], "x", "y"]) + "\n").encode()
    assert _problems(six, "o.txt", items) == [("line_count", 6, None, "error")]
    outputs, _ = read_outputs(four, "o.txt", items)
    assert [o.item_id for o in outputs] == ["t1", "t2", "t3", "t4"]  # kept, flagged
    positional = json.dumps({"language": "en", "values": ["a", "b"]}).encode()
    assert _problems(positional, "o.json", items) == [
        ("value_count", 1, "values", "error")
    ]
    assert _problems(b'{"language": "en"}', "o.json", items)[0][0] == "bad_gem"
    two = json.dumps({"tasks": {"a": {"values": []}, "b": {"values": []}}}).encode()
    assert _problems(two, "o.json", items)[0][:3] == ("gem_tasks", 1, "tasks")
    mixed = _gem(TEXTS).replace(b'"gem_id": "t3",', b'"other": 3,')
    assert ("missing_id", 12, "gem_id", "error") in _problems(mixed, "o.json", items)


def test_the_reader_never_raises_on_random_edits(items):
    rng = random.Random(16)
    sources = [
        ("o.jsonl", _jsonl(TEXTS)),
        ("o.json", _gem(TEXTS)),
        ("o.txt", ("\n".join(TEXTS) + "\n").encode()),
    ]
    for _ in range(300):
        label, data = rng.choice(sources)
        data = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        outputs, problems = read_outputs(bytes(data), label, items)
        assert len(outputs) <= len(items)
        assert all(p.file == label for p in problems)


def test_writer_round_trip(items, tmp_path):
    outputs = [
        Output(i.id, t)
        for i, t in zip(items, ['Ça va, "x"\ty', *TEXTS[1:]], strict=True)
    ]
    path = tmp_path / "outputs.jsonl"
    write_outputs(outputs, path)
    read, _ = read_outputs(path.read_bytes(), "outputs.jsonl", items)
    assert [(o.item_id, o.word_string) for o in read] == [
        (o.item_id, o.word_string) for o in outputs
    ]
    assert (
        format_outputs(outputs[:1]) == '{"id": "t1", "output": "Ça va, \\"x\\"\\ty"}\n'
    )


# ----------------------------------------------------- validation and scoring


def _submit(root, team, system, files):
    folder = root / team / system
    folder.mkdir(parents=True)
    meta = {
        "team": team,
        "system": system,
        "description": "a text system",
        "contact": "a@example.org",
        "primary": True,
        "submitted": "2026-05-01T10:00:00Z",
        "tasks": TASKS,
    }
    (folder / "system.yaml").write_text(yaml.safe_dump(meta))
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return folder


def test_validation_accepts_one_file_and_refuses_two_or_none(items, tmp_path):
    root = tmp_path / "submissions"
    for name, data in (
        ("outputs.jsonl", _jsonl(TEXTS)),
        ("outputs.txt", ("\n".join(TEXTS) + "\n").encode()),
        ("outputs.json", _gem(TEXTS)),
    ):
        folder = _submit(root, "team", name.replace(".", "-"), {name: data})
        record = validate_submission(
            folder, items, team="team", system=folder.name, campaign_tasks=TASKS
        )
        assert record["status"] == "accepted", record["errors"]
        assert record["n_outputs"] == 5 and list(record["checksums"]) == [
            "system.yaml",
            name,
        ]
        assert [w["code"] for w in record["warnings"]] == ["empty_output"]
        assert record["warnings"][0]["file"] == f"team/{folder.name}/{name}"
        assert outputs_file(TASKS, TASKS, folder=folder) == name
    two = _submit(
        root, "team", "two", {"outputs.jsonl": _jsonl(TEXTS), "outputs.txt": b"x\n"}
    )
    record = validate_submission(
        two, items, team="team", system="two", campaign_tasks=TASKS
    )
    assert record["status"] == "rejected"
    assert [(e["code"], e["message"]) for e in record["errors"]] == [
        (
            "several_outputs",
            "outputs.jsonl and outputs.txt are both outputs files; keep the one"
            " that holds the system's outputs",
        )
    ]
    three = _submit(
        root,
        "team",
        "three",
        {"outputs.jsonl": b"", "outputs.txt": b"", "outputs.json": b""},
    )
    record = validate_submission(
        three, items, team="team", system="three", campaign_tasks=TASKS
    )
    assert record["errors"][0]["message"].startswith(
        "outputs.jsonl, outputs.txt and outputs.json are all outputs files"
    )
    none = _submit(root, "team", "none", {})
    record = validate_submission(
        none, items, team="team", system="none", campaign_tasks=TASKS
    )
    assert record["errors"][0]["message"] == (
        "no outputs file (outputs.jsonl, outputs.txt or outputs.json) (the folder"
        " has: system.yaml); put the system's outputs in one of them"
    )


def test_subsets_per_meta_field(items):
    subsets = subsets_of(items, ["seen", "category"])
    assert [(k, n, i) for k, n, i in subsets] == [
        ("all", "all", [0, 1, 2, 3, 4]),
        ("seen", "seen", [0, 1, 4]),
        ("seen", "unseen", [2, 3]),
        ("category", "Astronaut", [3]),
        ("category", "Chair", [1, 4]),
        ("category", "Desk", [2]),
        ("category", "Restaurant", [0]),
    ]
    assert subsets_of(items) == subsets[:1]  # REG behaviour: no meta subsets


def test_end_to_end_validate_and_score(items, tmp_path):
    root = tmp_path / "submissions"
    testset = tmp_path / "results" / "data" / "testset.jsonl"
    campaign.prepare_testset(FIXTURE, "text", testset)
    folders = {
        "jsonl": _submit(root, "team-a", "jsonl", {"outputs.jsonl": _jsonl(TEXTS)}),
        "txt": _submit(
            root, "team-a", "txt", {"outputs.txt": ("\n".join(TEXTS) + "\n").encode()}
        ),
        "gem": _submit(root, "team-b", "gem", {"outputs.json": _gem(TEXTS)}),
    }
    summaries = []
    for name, folder in folders.items():
        team = folder.parent.name
        validation = tmp_path / "validation" / team / f"{name}.json"
        record = validate_to_files(
            folder,
            testset,
            team=team,
            system=name,
            campaign_tasks=TASKS,
            deadline=None,
            json_path=validation,
            md_path=validation.with_suffix(".md"),
        )
        assert record["status"] == "accepted"
        summary_path = tmp_path / "scores" / "systems" / team / f"{name}.json"
        score_submission(
            validation,
            folder,
            testset,
            SCORING,
            tmp_path / "scores" / "items" / team / f"{name}.tsv",
            summary_path,
            tasks=TASKS,
            subsets=["category", "seen"],
        )
        summaries.append(summary_path)
    rows = read_json(summaries[0])["scores"]
    got = {(r["metric"], r["subset_kind"], r["subset"]): r for r in rows}
    subsets = {
        ("all", "all"): ["t1", "t2", "t3", "t4", "t5"],
        ("seen", "seen"): ["t1", "t2", "t5"],
        ("seen", "unseen"): ["t3", "t4"],
        ("category", "Astronaut"): ["t4"],
        ("category", "Chair"): ["t2", "t5"],
        ("category", "Desk"): ["t3"],
        ("category", "Restaurant"): ["t1"],
    }
    assert set(got) == {
        (m, k, n) for m in ("string_accuracy", "se") for k, n in subsets
    }
    for (kind, name), ids in subsets.items():
        accuracy = got["string_accuracy", kind, name]
        assert accuracy["value"] == pytest.approx(_mean(ids, 0), abs=1e-12)
        assert accuracy["n"] == len(ids)
        assert got["se", kind, name]["value"] == pytest.approx(_mean(ids, 1))
    assert got["string_accuracy", "all", "all"]["value"] == pytest.approx(0.4)
    assert got["se", "all", "all"]["value"] == pytest.approx(2.9)
    # the three formats of the same outputs score the same
    for other in summaries[1:]:
        assert read_json(other)["scores"] == rows
    items_tsv = read_tsv(tmp_path / "scores" / "items" / "team-a" / "txt.tsv")
    se_t4 = {
        r["reference"]: float(r["value"])
        for r in items_tsv
        if r["item"] == "t4" and r["metric"] == "se"
    }
    assert se_t4 == {"*": 2.5, "ref1": 1.0, "ref2": 4.0}
    systems = tmp_path / "scores" / "systems.tsv"
    assert aggregate_scores(summaries, systems) == 3 * 2 * 7
    table = read_tsv(systems)
    kinds = [r["subset_kind"] for r in table if r["system"] == "gem"]
    assert kinds[:7] == ["all", "category", "category", "category", "category"] + [
        "seen",
        "seen",
    ]


def test_score_outputs_without_subsets_is_all_only(items, caplog):
    outputs = [Output(i.id, t) for i, t in zip(items, TEXTS, strict=True)]
    _, rows = score_outputs(items, outputs, SCORING, tasks=TASKS)
    assert {(r["subset_kind"], r["subset"]) for r in rows} == {("all", "all")}
    _, rows = score_outputs(items, outputs, SCORING, tasks=TASKS, subsets=["lang"])
    assert {(r["subset_kind"], r["subset"]) for r in rows} == {("all", "all")}
    assert "data.subsets names 'lang', a meta field no scored item has" in caplog.text


def test_cli_validate_and_score_a_text_testset(tmp_path, capsys):
    folder = _submit(
        tmp_path / "submissions",
        "team",
        "sys",
        {"outputs.txt": ("\n".join(TEXTS) + "\n").encode()},
    )
    assert main(["validate", str(folder), "--testset", str(FIXTURE)]) == 0
    assert "empty" in capsys.readouterr().out
    tsv = tmp_path / "scores.tsv"
    argv = ["score", str(FIXTURE), str(folder / "outputs.txt")]
    assert main([*argv, "--metrics", "string_accuracy", "se", "--tsv", str(tsv)]) == 0
    rows = {r["metric"]: r for r in read_tsv(tsv) if r["subset"] == "all"}
    assert set(rows) == {"string_accuracy", "se"}
    assert float(rows["se"]["value"]) == pytest.approx(2.9)
    (folder / "outputs.txt").write_text("only one line\n")
    assert main(["validate", str(folder), "--testset", str(FIXTURE)]) == 1
    assert "| 2 |  | 1 line; the test set has 5 items: give one line per item" in (
        capsys.readouterr().out
    )


def test_text_input_data_round_trips():
    value = (("a", "b", "c"),)
    assert TextInput("triples", value).data == [["a", "b", "c"]]
    assert TextInput("text", "x").data == "x"


def test_cli_score_part_of_the_items_with_the_configs_subsets(tmp_path, capsys):
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_bytes(_jsonl(TEXTS[2:], ids=("t3", "t4", "t5")))
    config = tmp_path / "campaign.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "campaign": {"tasks": TASKS},
                "data": {"format": "text", "subsets": ["seen"]},
                "scoring": SCORING,
            }
        )
    )
    tsv = tmp_path / "scores.tsv"
    argv = ["score", str(FIXTURE), str(outputs), "--config", str(config)]
    assert main([*argv, "--tsv", str(tsv)]) == 0
    assert f"2 of the 5 items of {FIXTURE} have no output in {outputs} (t1, t2)" in (
        capsys.readouterr().err
    )
    rows = {(r["metric"], r["subset_kind"], r["subset"]): r for r in read_tsv(tsv)}
    assert set(rows) == {
        (m, k, n)
        for m in ("string_accuracy", "se")
        for k, n in (("all", "all"), ("seen", "seen"), ("seen", "unseen"))
    }
    assert float(rows["se", "all", "all"]["value"]) == pytest.approx(
        _mean(["t3", "t4", "t5"], 1)
    )
    assert float(rows["se", "seen", "unseen"]["value"]) == pytest.approx(2.25)
    assert rows["se", "seen", "seen"]["n"] == "1"  # t5 alone

"""No escape sequence stops a campaign (issue #38, points 1 and 7).

A JSON or YAML escape such as ``\\ud800`` decodes to a string that cannot be
written as UTF-8; ``\\u0000``, ``\\e`` and ``\\u202e`` decode to characters that
the XML path refuses or that reorder a page. Every reader of JSON and YAML
refuses them, naming the file, the line, the field and the character
(``U+XXXX``), so that validation says REJECTED instead of ACCEPTED and a crash at
the first write.
"""

from __future__ import annotations

import io
import json

import pytest

from stecflow.core.errors import CorpusError, YAMLError
from stecflow.core.text import bad_character, escaped, find_bad_text
from stecflow.data._json import _parse
from stecflow.data.dialogue import load_session
from stecflow.data.jsonl import parse_lines
from stecflow.data.yamlsafe import load_yaml
from stecflow.serving.request import HTTPError, read_json
from stecflow.submissions.report import write_validation
from stecflow.submissions.validation import validate_submission
from tests.unit import test_dialogue_data as dialogue
from tests.unit import test_text_task as text

SURROGATE = "U+D800 (an unpaired surrogate, half of a UTF-16 pair: not a character)"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("a\ud800", f"character 2 is {SURROGATE}; remove it"),
        ("\x00", "character 1 is U+0000 (NUL, a control character); remove it"),
        ("x\x1b[31m", "character 2 is U+001B (ESC, a control character); remove it"),
        (
            "ab\u202e",
            "character 3 is U+202E (RIGHT-TO-LEFT OVERRIDE, which shows the text"
            " after it in another order); remove it",
        ),
        ("\x7f", None),  # XML allows DEL: so do we
        ("tab\tline\nreturn\r\u200f\u2067", None),  # RTL marks and isolates stay
        ("\U0001f600", None),
    ],
)
def test_bad_character_names_the_character(value, message):
    assert bad_character(value) == message


def test_find_bad_text_walks_keys_and_lists_and_escaped_shows_it_safely():
    assert find_bad_text({"a": [1, {"b\ud800": "x"}]})[0] == ("a", 1, "b\ud800")
    assert find_bad_text({"a": [1, {"b": True}]}) is None
    assert escaped("b\ud800\x00") == "b\\ud800\\u0000"
    escaped("b\ud800").encode("utf-8")  # safe to write


@pytest.mark.parametrize(
    ("line", "field", "code"),
    [
        ('{"id": "t1", "output": "a\\ud800b"}', "output", "U+D800"),
        ('{"id": "t1", "output": "\\u0000"}', "output", "U+0000"),
        ('{"id": "t1", "output": "\\u001b[2J"}', "output", "U+001B"),
        ('{"id": "t1", "output": "\\u202Eevil"}', "output", "U+202E"),
        ('{"id": "t1", "x\\uDFFF": 1}', "x\\udfff", "U+DFFF"),
        ('{"id": "t1", "meta": {"k": ["ok", "\\u0007"]}}', "meta.k[1]", "U+0007"),
    ],
)
def test_json_lines_refuse_escapes_with_line_and_field(line, field, code):
    good = '{"id": "t0", "output": "caf\\u00e9 \\ud83d\\ude00"}'
    (_, first), (n, error) = parse_lines(f"{good}\n{line}\n", "t/s/outputs.jsonl")
    assert first == {"id": "t0", "output": "café \U0001f600"}  # pairs are fine
    assert isinstance(error, CorpusError)
    assert (error.file, error.line, error.field) == ("t/s/outputs.jsonl", 2, field)
    assert f" is {code} (" in error.message


def test_a_whole_json_file_names_the_line_of_the_field():
    data = b'{\n  "a": 1,\n  "b": [\n    "fine",\n    "bad \\ud800"\n  ]\n}\n'
    with pytest.raises(CorpusError) as caught:
        _parse(data, "f.json", 10_000, 8)
    assert (caught.value.line, caught.value.field) == (5, "b[1]")


@pytest.mark.parametrize(
    ("text", "line", "field", "code"),
    [
        ('description: "greedy \\ud800 baseline"\n', 1, "description", "U+D800"),
        ('a: 1\nauthors:\n  - name: "x\\0y"\n', 3, "authors[0].name", "U+0000"),
        ('a: 1\nb: "\\e[31mred"\n', 2, "b", "U+001B"),
        ("a: 1\nb: \u202eevil\n", 2, "b", "U+202E"),
        # YAML's \u escapes are code points: a UTF-16 pair is two lone halves
        ('a: "\\ud83d\\ude00"\n', 1, "a", "U+D83D"),
    ],
)
def test_yaml_refuses_escapes_with_line_and_key_path(text, line, field, code):
    with pytest.raises(YAMLError) as caught:
        load_yaml(text.encode(), "t/s/system.yaml")
    error = caught.value
    assert (error.file, error.line, error.field) == ("t/s/system.yaml", line, field)
    assert f" is {code} (" in error.message
    assert load_yaml(b'a: "\\U0001F600\\t"', "x") == {"a": "\U0001f600\t"}


def test_a_text_submission_with_a_lone_surrogate_is_rejected_and_writable(tmp_path):
    items = _text_items()
    data = text._jsonl(text.TEXTS).replace(
        b'"the big blue desk"', b'"the big \\ud800 desk"'
    )
    folder = text._submit(tmp_path / "subs", "team", "sys", {"outputs.jsonl": data})
    record = validate_submission(
        folder, items, team="team", system="sys", campaign_tasks=text.TASKS
    )
    assert record["status"] == "rejected"
    errors = [(e["file"], e["line"], e["field"]) for e in record["errors"]]
    assert errors == [
        ("team/sys/outputs.jsonl", 3, "output"),
        ("team/sys/outputs.jsonl", None, "item t3"),  # as for any unreadable line
    ]
    assert "U+D800" in record["errors"][0]["message"]
    # the record and the team's report are written (the old crash)
    write_validation(record, tmp_path / "r.json", tmp_path / "r.md")
    assert "U+D800" in (tmp_path / "r.md").read_text(encoding="utf-8")


def _text_items():
    from stecflow.tasks.registry import read_testset

    return read_testset(text.FIXTURE)


@pytest.mark.parametrize(
    "name", ["outputs.txt", "outputs.json"]
)  # the other text formats
def test_other_text_formats_refuse_the_same_characters(tmp_path, name):
    items = _text_items()
    texts = list(text.TEXTS)
    texts[1] = "the red \x1b[31mchair"
    data = (
        ("\n".join(texts) + "\n").encode()
        if name == "outputs.txt"
        else text._gem(texts)
    )
    folder = text._submit(tmp_path / "subs", "team", "sys", {name: data})
    record = validate_submission(
        folder, items, team="team", system="sys", campaign_tasks=text.TASKS
    )
    assert record["status"] == "rejected"
    assert record["errors"][0]["message"].startswith(
        "character 9 is U+001B (ESC, a control character)"
    )
    assert record["errors"][0]["line"] == (2 if name == "outputs.txt" else 10)


def test_an_output_of_zero_width_characters_only_is_a_warning(tmp_path):
    items = _text_items()
    texts = list(text.TEXTS)
    texts[2] = "\u200b\u200d \u2060"
    folder = text._submit(
        tmp_path / "subs", "team", "sys", {"outputs.jsonl": text._jsonl(texts)}
    )
    record = validate_submission(
        folder, items, team="team", system="sys", campaign_tasks=text.TASKS
    )
    assert record["status"] == "accepted"
    invisible = [w for w in record["warnings"] if w["code"] == "invisible_output"]
    assert [(w["line"], w["field"]) for w in invisible] == [(3, "word_string")]
    assert "U+200B, U+200D, U+2060" in invisible[0]["message"]


@pytest.mark.parametrize(
    ("description", "code"),
    [
        ('"greedy \\ud800 baseline"', "U+D800"),
        ('"\\0"', "U+0000"),
        ('"\\e[2J"', "U+001B"),
        ('"abc\\u202Edef"', "U+202E"),
    ],
)
def test_system_yaml_escapes_are_rejected_at_validation(
    tiny_campaign, tmp_path, description, code
):
    from stecflow.data.corpus import read_items

    folder = tiny_campaign / "submissions" / "alpha" / "sys1"
    path = folder / "system.yaml"
    path.write_text(
        path.read_text().replace(
            "description: sys1 test system", f"description: {description}"
        )
    )
    record = validate_submission(
        folder,
        read_items(tiny_campaign / "testset.xml"),
        team="alpha",
        system="sys1",
        campaign_tasks=["end_to_end", "attribute_selection"],
    )
    assert record["status"] == "rejected"
    first = record["errors"][0]
    assert (first["file"], first["line"], first["field"]) == (
        "alpha/sys1/system.yaml",
        3,
        "description",
    )
    assert f" is {code} (" in first["message"]
    write_validation(record, tmp_path / "r.json", tmp_path / "r.md")
    text_written = (tmp_path / "r.json").read_text(encoding="utf-8")
    assert "\\u202e" not in text_written.lower() or code != "U+202E"
    assert "\x1b" not in text_written and "\x00" not in text_written


def test_reg_xml_outputs_with_an_override_are_rejected(tiny_campaign):
    from stecflow.data.corpus import read_items

    folder = tiny_campaign / "submissions" / "alpha" / "sys1"
    path = folder / "outputs.xml"
    xml = path.read_text(encoding="utf-8")
    start = xml.index("<WORD-STRING>") + len("<WORD-STRING>")
    path.write_text(xml[:start] + "&#x202E;" + xml[start:], encoding="utf-8")
    record = validate_submission(
        folder,
        read_items(tiny_campaign / "testset.xml"),
        team="alpha",
        system="sys1",
        campaign_tasks=["end_to_end", "attribute_selection"],
    )
    assert record["status"] == "rejected"
    assert [(e["code"], e["field"]) for e in record["errors"]] == [
        ("bad_character", "word_string")
    ]
    # the line of the output (its TRIAL element)
    assert record["errors"][0]["line"] == xml[: xml.index("<TRIAL")].count("\n") + 1


def test_a_dialogue_session_names_file_line_and_field():
    raw = dialogue.small()
    raw["utterances"][2]["text"] = "this \ud800?"
    data = json.dumps(raw, indent=2).encode("utf-8")
    with pytest.raises(CorpusError) as caught:
        load_session(data, "corpus/t1.json")
    error = caught.value
    assert error.file == "corpus/t1.json"
    assert error.field == "utterances[2].text"
    assert error.line == dialogue.line_of(data, '"this \\ud800?"')
    assert "U+D800" in error.message


def _environ(body: bytes) -> dict:
    return {
        "CONTENT_LENGTH": str(len(body)),
        "CONTENT_TYPE": "application/json",
        "wsgi.input": io.BytesIO(body),
    }


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            b'{"answers": {"comment": "x\\ud800"}}',
            f"answers.comment: character 2 is {SURROGATE}; remove it",
        ),
        (
            b'{"responses": [{"value": "\\u0000"}]}',
            "responses[0].value: character 1 is U+0000 (NUL, a control"
            " character); remove it",
        ),
        (
            b'{"k\\udc00": 1}',
            f"k\\udc00: character 2 is {SURROGATE.replace('D800', 'DC00')}; remove it",
        ),
    ],
)
def test_server_bodies_refuse_them_with_400(body, message):
    with pytest.raises(HTTPError) as caught:
        read_json(_environ(body), 10_000)
    assert caught.value.status == 400
    assert str(caught.value) == message
    assert read_json(_environ(b'{"a": "caf\\u00e9\\n\\t"}'), 10_000) == {
        "a": "café\n\t"
    }


def test_a_surrogate_escape_in_a_judgments_cell_stays_text(tmp_path):
    from stecflow.core.io import decode_cell, escape_cell
    from stecflow.judgments.importers import read_responses
    from tests.conftest import FIXTURES

    assert decode_cell("x\\ud800y", "participant") == "x\\ud800y"
    assert decode_cell("x\\u2028y\\x07", "participant") == "x\u2028y\x07"
    lines = (FIXTURES / "judgments" / "server_export.tsv").read_text().split("\n")
    cells = lines[1].split("\t")
    cells[4] = "p\\ud800"  # participant
    lines[1] = "\t".join(cells)
    path = tmp_path / "export.tsv"
    path.write_text("\n".join(lines), encoding="utf-8")
    rows = read_responses(path).rows
    assert rows[0]["participant"] == "p\\ud800"
    escape_cell(rows[0]["participant"]).encode("utf-8")  # writable


@pytest.mark.parametrize("reference", ["&#xD800;", "&#55296;", "&#x1B;", "&#0;"])
def test_xml_character_references_xml_refuses_are_rejected_not_a_crash(
    tiny_campaign, reference
):
    # libxml2's recovering parser kept &#xD800; as bytes lxml could not decode:
    # an internal_error (found by benchmarks/fuzz_validation.py)
    from stecflow.data.corpus import read_items

    folder = tiny_campaign / "submissions" / "alpha" / "sys1"
    path = folder / "outputs.xml"
    xml = path.read_text(encoding="utf-8")
    at = xml.index("</WORD-STRING>")
    path.write_text(xml[:at] + reference + xml[at:], encoding="utf-8")
    record = validate_submission(
        folder,
        read_items(tiny_campaign / "testset.xml"),
        team="alpha",
        system="sys1",
        campaign_tasks=["end_to_end", "attribute_selection"],
    )
    assert record["status"] == "rejected"
    first = record["errors"][0]
    assert first["line"] == xml[:at].count("\n") + 1
    assert first["message"].startswith(f"the character reference {reference} is to U+")
    assert first["message"].endswith("which XML does not allow; remove it")

"""Hostile and careless submissions: validation always returns a record, fast.

Every case here stopped or corrupted a campaign before (issue: "No submission,
file or client can stop a campaign"): YAML dates, alias bombs, huge files,
namespaced roots, duplicate attributes, UTF-16 files.
"""

from __future__ import annotations

import codecs
import datetime as dt
import json
import tracemalloc

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stecflow.data.corpus import read_items
from stecflow.submissions.outputs import read_outputs
from stecflow.submissions.report import write_validation
from stecflow.submissions.validation import validate_submission
from stecflow.tasks.base import Limits

TASKS = ["end_to_end", "attribute_selection"]
META = {
    "team": "alpha",
    "system": "sys1",
    "description": "a system",
    "contact": "someone@example.org",
    "primary": True,
    "submitted": "2026-05-01T10:00:00Z",
    "tasks": ["end_to_end", "attribute_selection"],
}


@pytest.fixture
def folder(tiny_campaign):
    return tiny_campaign / "submissions" / "alpha" / "sys1"


@pytest.fixture
def items(tiny_campaign):
    return read_items(tiny_campaign / "testset.xml")


def validate(folder, items, limits=None):
    return validate_submission(
        folder,
        items,
        team="alpha",
        system="sys1",
        campaign_tasks=TASKS,
        deadline="2026-06-01T23:59:59Z",
        limits=limits,
    )


def problems(record, severity="errors"):
    return [(p["code"], p["line"], p["field"]) for p in record[severity]]


def write_meta(folder, text: str | bytes) -> None:
    data = text.encode() if isinstance(text, str) else text
    (folder / "system.yaml").write_bytes(data)


def with_peak(function, *args):
    """(result, peak MB of Python allocations): what a refusal "before reading"
    costs. Wall time is left to the benchmarks: a loaded machine makes it noise."""
    tracemalloc.start()
    try:
        result = function(*args)
    finally:
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
    return result, peak


# ------------------------------------------------------------------ metadata


def test_yaml_date_means_midnight_utc_and_the_record_is_json(folder, items, tmp_path):
    write_meta(
        folder, yaml.safe_dump({**META, "submitted": "X"}).replace("X", "2026-05-20")
    )
    record = validate(folder, items)
    assert record["status"] == "accepted", record["errors"]
    assert record["metadata"]["submitted"] == "2026-05-20T00:00:00Z"
    assert record["late"] is False
    write_validation(record, tmp_path / "r.json", tmp_path / "r.md")
    assert json.loads((tmp_path / "r.json").read_text())["metadata"]["submitted"] == (
        "2026-05-20T00:00:00Z"
    )


#: One value of every kind YAML can hold, as it would be written in the file.
YAML_VALUES = {
    "date": "2026-05-20",
    "timestamp": "2026-05-20 10:00:00",
    "integer": "42",
    "huge integer": "1" * 5000,
    "float": "3.5",
    "nan": ".nan",
    "infinity": "-.inf",
    "list": "[a, b]",
    "mapping": "{a: 1}",
    "null": "null",
    "boolean": "yes",
    "huge string": "x" * 60_000,
    "empty string": "''",
}


@pytest.mark.parametrize(
    "field", sorted(META) + ["reference", "late", "release_consent"]
)
def test_every_yaml_type_in_every_field_gives_a_record(folder, items, tmp_path, field):
    for kind, value in YAML_VALUES.items():
        text = yaml.safe_dump({k: v for k, v in META.items() if k != field})
        write_meta(folder, text + f"{field}: {value}\n")
        record = validate(folder, items)
        write_validation(record, tmp_path / "r.json", tmp_path / "r.md")
        codes = {p["code"] for p in record["errors"]}
        assert "internal_error" not in codes, (field, kind, record["errors"])
        if record["status"] == "rejected":
            # the message names the field (or the line, when YAML itself refused it)
            named = [
                p
                for p in record["errors"]
                if p["field"] == field or p["line"] == text.count("\n") + 1
            ]
            assert named, (field, kind, record["errors"])


def test_type_errors_say_what_was_expected(folder, items):
    write_meta(
        folder, yaml.safe_dump({**META, "primary": "maybe", "tasks": "end_to_end"})
    )
    record = validate(folder, items)
    messages = {p["field"]: p["message"] for p in record["errors"]}
    assert messages["primary"] == "expected true or false, got the text 'maybe'"
    assert messages["tasks"] == "expected a list, got the text 'end_to_end'"


def test_alias_bomb_is_refused_at_once(folder, items):
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [
        f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)
    ]
    write_meta(folder, "\n".join(lines) + "\n")
    record, peak = with_peak(validate, folder, items)
    assert problems(record) == [("bad_yaml", 1, "a0")]
    assert "anchors (&a0) are not allowed" in record["errors"][0]["message"]
    assert peak < 100


def test_huge_system_yaml_is_refused_before_it_is_read(folder, items):
    write_meta(folder, yaml.safe_dump(META) + "description2: " + "x" * 60_000_000)
    record, peak = with_peak(validate, folder, items)
    assert problems(record) == [("metadata_too_large", None, None)]
    assert record["errors"][0]["message"].startswith("the file is 60,000,")
    assert "the limit is 65,536 bytes" in record["errors"][0]["message"]
    assert peak < 100


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "team: !!python/object/apply:os.system [echo]",
            "tags (tag:yaml.org,2002:python",
        ),
        ("team: !custom x", "tags (!custom) are not allowed"),
        ("description: !!binary aGk=", "tags (tag:yaml.org,2002:binary)"),
        ("team: alpha\nteam: alpha", "key 'team' is given twice (first on line 1)"),
        ("x: " + "[" * 100, "nest more than 20 levels"),
        ("? [a]\n: 1", "keys must be plain names"),
        ("submitted: 2026-02-31", "2026-02-31 cannot be read as a date"),
        (b"team: caf\xe9", "bytes are not valid UTF-8"),
    ],
)
def test_unsafe_or_unreadable_yaml_is_a_problem_with_a_line(
    folder, items, text, message
):
    write_meta(folder, text)
    record = validate(folder, items)
    [error] = record["errors"][:1]
    assert message in error["message"] and error["line"] is not None
    assert error["file"] == "alpha/sys1/system.yaml"


yaml_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=30),
    st.dates(),
    st.datetimes(timezones=st.sampled_from([None, dt.UTC])),
)
yaml_values = st.recursive(
    yaml_scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
documents = st.one_of(
    yaml_values,
    st.fixed_dictionaries(
        {},
        optional={
            key: yaml_values
            for key in [*META, "reference", "late", "release_consent", "extra"]
        },
    ),
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(document=documents, raw=st.binary(max_size=40))
def test_random_yaml_documents_always_give_a_record(
    folder, items, tmp_path, document, raw
):
    for data in (yaml.safe_dump(document, allow_unicode=True).encode(), raw):
        write_meta(folder, data)
        record = validate(folder, items)
        assert record["status"] in ("accepted", "rejected")
        assert "internal_error" not in {p["code"] for p in record["errors"]}
        write_validation(record, tmp_path / "r.json", tmp_path / "r.md")


# --------------------------------------------------------------------- limits


def outputs_of(folder) -> bytes:
    return (folder / "outputs.xml").read_bytes()


def test_outputs_over_the_size_limit_are_refused_before_reading(folder, items):
    with open(folder / "outputs.xml", "ab") as handle:
        handle.truncate(300 * 2**20)  # a sparse 300 MiB file
    record, peak = with_peak(validate, folder, items)
    assert problems(record) == [("outputs_too_large", None, None)]
    message = record["errors"][0]["message"]
    assert message.startswith("the file is 300.0 MiB (314,572,800 bytes);")
    assert "the limit is 16 MiB (submissions.limits.max_outputs_mib" in message
    assert peak < 100


def test_too_many_trials_are_refused_before_parsing(folder, items, monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("the XML was parsed")

    monkeypatch.setattr("stecflow.data.xmlsafe.etree.fromstring", never)
    trial = b'<TRIAL ID="x"><WORD-STRING>w</WORD-STRING></TRIAL>\n'
    (folder / "outputs.xml").write_bytes(
        b"<OUTPUTS>\n" + trial * 300_000 + b"</OUTPUTS>"
    )
    record, peak = with_peak(validate, folder, items, Limits(max_trials=1000))
    assert problems(record) == [("too_many_trials", None, "<TRIAL>")]
    assert record["errors"][0]["message"] == (
        "the file has 300,000 <TRIAL> elements; the limit is 1,000"
    )
    assert peak < 200


def test_attribute_and_string_limits(folder, items):
    # every set of the tiny submission has 2 attributes; "the red chair very
    # very ... very" has 13 + 20 * 5 = 113 characters once spaces are normalised
    data = outputs_of(folder).replace(
        b"the red chair", b"the red chair " + b"very " * 20, 1
    )
    limits = Limits(max_attributes_per_set=1, max_word_string_chars=50)
    _, found = read_outputs(data, "o.xml", items, TASKS, limits)
    errors = [(p.code, p.line, p.message) for p in found if p.severity == "error"]
    assert errors[0] == (
        "too_many_attributes",
        4,
        "the ATTRIBUTE-SET has 2 attributes; the limit is 1",
    )
    assert (
        "string_too_long",
        8,
        "the WORD-STRING has 113 characters; the limit is 50",
    ) in errors


def test_reports_list_at_most_100_problems_of_a_kind(folder, items, tmp_path):
    unknown = b"".join(b'<TRIAL ID="u%d"/>' % i for i in range(5000))
    data = outputs_of(folder).replace(b"</OUTPUTS>", unknown + b"</OUTPUTS>")
    (folder / "outputs.xml").write_bytes(data)
    record = validate(folder, items)
    unknown_items = [p for p in record["errors"] if p["code"] == "unknown_item"]
    assert record["n_errors"] == 5000 and len(unknown_items) == 101
    assert (
        unknown_items[-1]["message"]
        == "4,900 more problems of this kind are not listed"
    )
    write_validation(record, tmp_path / "r.json", tmp_path / "r.md")
    assert "- errors: 5000" in (tmp_path / "r.md").read_text()


def test_scoring_reads_with_the_limits_validation_used(folder, items):
    record = validate(folder, items, Limits(max_word_string_chars=7000))
    assert record["limits"]["max_word_string_chars"] == 7000
    assert Limits.from_config(record["limits"]) == Limits(max_word_string_chars=7000)


# ------------------------------------------------------------------ structure


def read(data, items):
    outputs, found = read_outputs(data, "o.xml", items, TASKS)
    return outputs, [(p.code, p.line, p.severity) for p in found]


def test_wrong_or_namespaced_root_is_an_error(folder, items):
    data = outputs_of(folder)
    outputs, found = read(data.replace(b"OUTPUTS>", b"RESULTS>"), items)
    assert outputs == [] and found == [("unexpected_root", 2, "error")]
    namespaced = data.replace(b"<OUTPUTS>", b'<OUTPUTS xmlns="http://example.org/x">')
    outputs, found = read_outputs(namespaced, "o.xml", items, TASKS)
    assert outputs == [] and [p.code for p in found] == ["unexpected_root"]
    assert "in the namespace 'http://example.org/x'" in found[0].message


def test_duplicate_attribute_is_an_error_naming_its_line(folder, items):
    data = outputs_of(folder).replace(
        b'<ATTRIBUTE NAME="colour" VALUE="red"/>',
        b'<ATTRIBUTE NAME="colour" VALUE="red"/>\n      <ATTRIBUTE NAME="colour" VALUE="red"/>',
        1,
    )
    outputs, found = read_outputs(data, "o.xml", items, TASKS)
    [error] = found
    assert (error.code, error.line, error.severity) == (
        "duplicate_attribute",
        6,
        "error",
    )
    assert error.message == (
        "colour='red' is given again (first on line 5); give each attribute once"
    )


def test_unknown_xml_attributes_are_one_warning(folder, items):
    data = outputs_of(folder).replace(b'<TRIAL ID="', b'<TRIAL score="1" ID="')
    data = data.replace(b"<ATTRIBUTE-SET>", b'<ATTRIBUTE-SET lang="en">')
    outputs, found = read_outputs(data, "o.xml", items, TASKS)
    assert len(outputs) == 4
    [warning] = found
    assert (warning.code, warning.line, warning.severity) == (
        "unknown_xml_attribute",
        3,
        "warning",
    )
    assert warning.message == (
        "8 XML attributes that stecflow does not read are ignored: TRIAL score= on"
        " line 3, ATTRIBUTE-SET lang= on line 4, TRIAL score= on line 10,"
        " ATTRIBUTE-SET lang= on line 11, TRIAL score= on line 17 and 3 more"
    )


@pytest.mark.parametrize(
    "codec", ["utf-8-sig", "utf-16", "utf-16-be", "utf-32", "utf-32-le"]
)
def test_unicode_files_with_a_byte_order_mark_are_read(folder, items, codec):
    text = outputs_of(folder).decode("utf-8")
    expected, _ = read_outputs(text.encode(), "o.xml", items, TASKS)
    bom = {"utf-16-be": codecs.BOM_UTF16_BE, "utf-32-le": codecs.BOM_UTF32_LE}
    data = bom.get(codec, b"") + text.encode(codec)
    outputs, found = read_outputs(data, "o.xml", items, TASKS)
    assert outputs == expected
    if codec == "utf-8-sig":
        assert found == []
    else:
        [note] = found
        family = codec[:6].upper()
        assert (note.code, note.severity) == ("encoding_mismatch", "warning")
        assert note.message == (
            f"the file declares UTF-8 but is {family} (it starts with a {family}"
            f" byte-order mark); it was read as {family}"
        )


def test_undecodable_utf16_names_the_encoding_found(folder, items):
    text = outputs_of(folder).decode("utf-8").replace("UTF-8", "UTF-16")
    data = text.encode("utf-16")
    broken = data[:200] + b"\x00\xd8" + data[200:]  # a lone surrogate
    _, found = read_outputs(broken, "o.xml", items, TASKS)
    assert found[0].code == "undecodable"
    assert "are not valid UTF-16" in found[0].message


def test_empty_word_string_is_a_warning_and_kept(folder, items):
    data = outputs_of(folder).replace(b"the red chair", b"   ", 1)
    outputs, found = read(data, items)
    assert found == [("empty_string", 8, "warning")]
    assert outputs[0].word_string == ""


def test_second_output_in_a_trial_is_an_error_and_markup_in_strings_a_warning(
    folder, items
):
    data = outputs_of(folder).replace(
        b"<WORD-STRING>the red chair</WORD-STRING>",
        b"<WORD-STRING>the red chair</WORD-STRING><WORD-STRING>a chair</WORD-STRING>",
        1,
    )
    outputs, found = read(data, items)
    assert found == [("duplicate_output", 8, "error")]
    assert outputs[0].word_string == "the red chair"
    data = outputs_of(folder).replace(
        b"the red chair",
        b'the <xi:include xmlns:xi="http://www.w3.org/2001/XInclude"'
        b' href="/etc/passwd" parse="text"/>red chair',
        1,
    )
    outputs, found = read(data, items)
    assert found == [("unexpected_element", 8, "warning")]
    assert outputs[0].word_string == "the red chair"


def test_files_are_opened_without_following_a_last_minute_link(tmp_path):
    # Discovery resolved the path inside submissions/; if its last part has
    # become a link since, the open refuses it rather than reading the target.
    from stecflow.submissions.reading import _open_regular

    outside = tmp_path / "outside.txt"
    outside.write_text("CANARY")
    link = tmp_path / "sub" / "outputs.xml"
    link.parent.mkdir()
    link.symlink_to(outside)
    from stecflow.core.errors import StecflowError

    with pytest.raises((OSError, StecflowError)):
        _open_regular(link)

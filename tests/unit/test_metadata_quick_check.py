"""The quick schema check of system.yaml (fastjsonschema) against jsonschema.

Validation runs jsonschema, which lists every problem with its place, only on a
file the quick check refuses; so the quick check must never accept a document
that jsonschema refuses. Both run here on valid documents and on thousands of
seeded mutations of them: wrong types, missing and unknown fields, odd keys,
hostile strings. They must agree, except where the quick check is stricter by
design (``$`` in a pattern: before a final newline too, for jsonschema).
"""

from __future__ import annotations

import datetime as dt
import functools
import random

import jsonschema
import pytest

from stecflow.submissions.metadata import _conforms, _submission_schema
from stecflow.tasks.registry import names

VALID = {
    "team": "alpha",
    "system": "sys1",
    "description": "Picks attributes in the Incremental Algorithm's order.",
    "contact": "alpha@example.org",
    "primary": True,
    "submitted": "2026-05-20T14:03:00Z",
    "tasks": ["attribute_selection"],
}

OPTIONAL = {
    "reference": False,
    "late": True,
    "supersedes": "sys0",
    "release_consent": True,
    "properties": {"incremental": True, "beam": 3, "rate": 0.5, "kind": "rules"},
}

#: Values every field is tried with: each JSON type, values at the edges of the
#: patterns and lengths, and what YAML can give that JSON cannot.
ODD_VALUES = [
    None,
    True,
    False,
    0,
    1,
    -7,
    1.0,
    2.5,
    float("nan"),
    "",
    "a",
    "ab",
    "abc",
    "alpha\n",
    "alpha ",
    " alpha",
    "-alpha",
    "a" * 64,
    "a" * 65,
    "ALPHA_2-b",
    "caf\u00e9",
    "\u0661\u0662",  # Arabic-Indic digits: \d would take them, [0-9] does not
    "2026-05-20T14:03:00Z",
    "2026-05-20T14:03Z",
    "2026-05-20T14:03:00+02:00",
    "2026-05-20T14:03:00",
    "2026-05-20T14:03:00Z\n",
    "2026-05-20 14:03:00Z",
    "attribute_selection",
    "realisation",
    "no_such_task",
    "Attribute_selection",
    [],
    ["attribute_selection"],
    ["attribute_selection", "attribute_selection"],
    ["attribute_selection", "realisation"],
    ["no_such_task"],
    [1],
    [None],
    [["attribute_selection"]],
    {},
    {"a": 1},
    {"a": [1]},
    {"a": {"b": 1}},
    {"a": None},
    {1: True},
    dt.date(2026, 5, 20),
    dt.datetime(2026, 5, 20, 14, 3),
]


@functools.cache
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(_submission_schema())


def _jsonschema_accepts(document) -> bool:
    return not any(True for _ in _validator().iter_errors(document))


def _ends_in_newline(value) -> bool:
    if isinstance(value, str):
        return value.endswith("\n")
    if isinstance(value, list):
        return any(_ends_in_newline(v) for v in value)
    if isinstance(value, dict):
        return any(_ends_in_newline(v) for v in value.values())
    return False


def _documents(count: int, seed: int):
    """Valid documents and seeded mutations of them, one to four changes each."""
    rng = random.Random(seed)
    fields = [*VALID, *OPTIONAL]
    yield dict(VALID)
    yield {**VALID, **OPTIONAL}
    for field in fields:  # every field alone, with every odd value
        for value in ODD_VALUES:
            yield {**VALID, field: value}
        yield {k: v for k, v in VALID.items() if k != field}
    for _ in range(count):
        document = {**VALID, **rng.choice([{}, OPTIONAL])}
        for _ in range(rng.randint(1, 4)):
            change = rng.random()
            if change < 0.6:
                document[rng.choice(fields)] = rng.choice(ODD_VALUES)
            elif change < 0.8:
                document.pop(rng.choice(fields), None)
            else:
                document[rng.choice(["extra", 1, None, True, "Team", "tasks "])] = (
                    rng.choice(ODD_VALUES)
                )
        yield document


@pytest.mark.parametrize("seed", [1, 2])
def test_the_quick_check_accepts_only_what_jsonschema_accepts(seed):
    assert list(_submission_schema()["properties"]["tasks"]["items"]["enum"]) == list(
        names()
    )
    outcomes = {"both accept": 0, "both refuse": 0, "only jsonschema accepts": 0}
    for document in _documents(2000, seed):
        quick, full = _conforms(document), _jsonschema_accepts(document)
        assert not (quick and not full), document
        if quick == full:
            outcomes["both accept" if quick else "both refuse"] += 1
        else:
            # stricter on purpose: a final newline does not end a pattern's match
            assert _ends_in_newline(document), document
            outcomes["only jsonschema accepts"] += 1
    assert outcomes["both accept"] > 150 and outcomes["both refuse"] > 1500, outcomes
    assert outcomes["only jsonschema accepts"] > 0, outcomes


def test_a_value_with_a_final_newline_still_gets_jsonschemas_answer(tmp_path):
    """Where only jsonschema accepts, validation says what jsonschema says."""
    from stecflow.submissions.metadata import _read_metadata

    path = tmp_path / "system.yaml"
    path.write_text(
        'team: "alpha\\n"\nsystem: sys1\ndescription: d\ncontact: abc\n'
        "primary: true\nsubmitted: '2026-05-20T14:03:00Z'\n"
        "tasks: [attribute_selection]\n"
    )
    metadata, problems = _read_metadata(path, "alpha/sys1/system.yaml", "alpha", "sys1")
    assert not _conforms(metadata) and _jsonschema_accepts(metadata)
    # no schema problem; the folder-name check still catches the newline
    assert [(p.code, p.field) for p in problems] == [("metadata_mismatch", "team")]

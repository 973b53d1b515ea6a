"""The collection server with text rating and preference studies (studies.text).

Trials are posted as ``web/experiment.js`` posts them (textRatingTrial,
textPreferenceTrial) to a real server on 127.0.0.1; each refusal says what is
wrong; the export carries the study's text columns after ``RESPONSE_COLUMNS``
with the posted values (from the side table ``text_trials``).
"""

from __future__ import annotations

import csv
import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from stecflow.data.model import Domain, Item
from stecflow.studies.designs import latin_square_design
from stecflow.studies.designs.pairs import pair_design
from stecflow.studies.server import (
    CollectionError,
    export_responses,
    load_study,
    read_responses,
)
from stecflow.studies.settings import RESPONSE_COLUMNS
from stecflow.studies.text import PREFERENCE_COLUMNS, build_text_study

SYSTEMS = ["organisers/template", "organisers/rules", "organisers/weak"]
ITEMS = [
    Item("t1", Domain(()), "all", input=[("A", "p", "B")]),
    Item("t2", Domain(()), "all", input="Some text."),
    Item("t3", Domain(()), "all", input={"k": "v"}),
]
OUTPUTS = {s: {i.id: f"{s} on {i.id}" for i in ITEMS} for s in SYSTEMS}
RATING = [
    {"id": "fluency", "question": "Fluent?", "scale": "likert", "points": 5},
    {
        "id": "adequacy",
        "question": "Adequate?",
        "scale": "slider",
        "anchors": ["Not at all", "Completely"],
    },
]


@pytest.fixture(scope="module")
def studies(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("text")
    rating = latin_square_design(SYSTEMS, ["t1", "t2", "t3"], subjects=3, seed=1)
    build_text_study(
        rating,
        ITEMS,
        OUTPUTS,
        task="text_rating",
        criteria=RATING,
        out_dir=root / "rating" / "web",
    )
    pairs = pair_design(SYSTEMS, ["t1", "t2", "t3"], subjects=6, seed=2)
    build_text_study(
        pairs,
        ITEMS,
        OUTPUTS,
        task="text_preference",
        criteria=[{"id": "overall", "question": "Better?", "allow_tie": True}],
        out_dir=root / "preference" / "web",
    )
    build_text_study(
        pairs,
        ITEMS,
        OUTPUTS,
        task="text_preference",
        criteria=[{"id": "overall", "question": "Better?"}],
        out_dir=root / "no-tie" / "web",
    )
    return {p.name: p for p in root.iterdir()}


def _trials(study: Path, list_id: str) -> list[dict[str, Any]]:
    doc = json.loads((study / "stimuli-key.json").read_text())
    return next(lst for lst in doc["lists"] if lst["list"] == list_id)["trials"]


def _rating(trial, fluency=4, adequacy=73, rt_ms=2500.5):
    return {
        "order": trial["order"],
        "trial": trial["id"],
        "rt_ms": rt_ms,
        "rating_fluency": fluency,
        "rating_adequacy": adequacy,
    }


def _preference(trial, preferred="left"):
    """A preference as the page posts it: the side, never the systems."""
    return {
        "order": trial["order"],
        "trial": trial["id"],
        "rt_ms": 1800.0,
        "preferred": preferred,
    }


def test_load_text_studies(studies):
    rating = load_study(studies["rating"])
    assert rating.text and not rating.situated
    assert rating.columns == (*RESPONSE_COLUMNS, "rating_fluency", "rating_adequacy")
    assert [c["id"] for c in rating.criteria] == ["fluency", "adequacy"]
    trial = rating.lists["L01"][1]
    assert trial.target is None and trial.entities == frozenset()
    preference = load_study(studies["preference"])
    assert preference.columns == (*RESPONSE_COLUMNS, *PREFERENCE_COLUMNS)
    first = _trials(studies["preference"], "L01")[0]
    trial = preference.lists["L01"][1]
    assert (trial.system_left, trial.system_right) == (
        first["system_left"],
        first["system_right"],
    )


def test_post_and_export_ratings(serve, studies, tmp_path):
    study = studies["rating"]
    client, _ = serve(study)
    session = client.session("p01")
    trials = _trials(study, "L01")
    values = [(4, 73), (1, 0), (5, 100)]
    for trial, (fluency, adequacy) in zip(trials, values, strict=True):
        payload = _rating(trial, fluency, adequacy)
        status, data, _ = client.call("POST", "/api/trial", payload, session["token"])
        assert (status, data) == (201, {"stored": True, "order": trial["order"]})
    # a resent trial is a duplicate and leaves the stored answers as they were
    again = _rating(trials[0], 2, 10)
    status, data, _ = client.call("POST", "/api/trial", again, session["token"])
    assert status == 200 and data["duplicate"] is True
    status, data, _ = client.call("POST", "/api/complete", {}, session["token"])
    assert status == 200, data
    db = tmp_path / "responses.sqlite"
    rows = read_responses(study, db_path=db)
    assert [tuple(r) for r in rows] == [
        (*load_study(study).columns, "answered_utc")
    ] * 3
    got = [
        (r["order"], r["system"], r["rating_fluency"], r["rating_adequacy"], r["rt_ms"])
        for r in rows
    ]
    assert got == [
        (t["order"], t["system"], f, a, 2500.5)
        for t, (f, a) in zip(trials, values, strict=True)
    ]
    assert {r["target_entity"] for r in rows} == {None}
    out = tmp_path / "responses.tsv"
    assert export_responses(study, out, db_path=db) == 3
    with out.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        assert reader.fieldnames[-3:] == [
            "rating_fluency",
            "rating_adequacy",
            "answered_utc",
        ]
        table = list(reader)
    assert [(r["rating_fluency"], r["rating_adequacy"]) for r in table] == [
        ("4", "73"),
        ("1", "0"),
        ("5", "100"),
    ]


def test_post_and_export_preferences(serve, studies, tmp_path):
    study = studies["preference"]
    client, _ = serve(study)
    session = client.session("p02")
    trials = _trials(study, "L01")
    choices = ["left", "right", "tie"]
    for trial, choice in zip(trials, choices, strict=True):
        payload = _preference(trial, choice)
        status, data, _ = client.call("POST", "/api/trial", payload, session["token"])
        assert status == 201, data
    status, data, _ = client.call("POST", "/api/complete", {}, session["token"])
    assert status == 200, data
    out = tmp_path / "responses.tsv"
    assert export_responses(study, out, db_path=tmp_path / "responses.sqlite") == 3
    with out.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        assert tuple(reader.fieldnames) == (
            *RESPONSE_COLUMNS,
            *PREFERENCE_COLUMNS,
            "answered_utc",
        )
        table = list(reader)
    assert [
        (r["system_left"], r["system_right"], r["preferred"], r["chosen_system"])
        for r in table
    ] == [
        (trials[0]["system_left"], trials[0]["system_right"], "left",
         trials[0]["system_left"]),
        (trials[1]["system_left"], trials[1]["system_right"], "right",
         trials[1]["system_right"]),
        (trials[2]["system_left"], trials[2]["system_right"], "tie", ""),
    ]  # fmt: skip


RATING_REFUSALS = [
    ({"rating_fluency": 6}, "rating_fluency must be an integer from 1 to 5, got 6"),
    ({"rating_fluency": 0}, "rating_fluency must be an integer from 1 to 5, got 0"),
    (
        {"rating_fluency": True},
        "rating_fluency must be an integer from 1 to 5, got True",
    ),
    (
        {"rating_adequacy": 101},
        "rating_adequacy must be an integer from 0 to 100, got 101",
    ),
    (
        {"rating_adequacy": 50.5},
        "rating_adequacy must be an integer from 0 to 100, got 50.5",
    ),
    (
        {"rating_adequacy": None},
        "rating_adequacy must be an integer from 0 to 100, got None",
    ),
    ({"rt_ms": None}, "rt_ms is required"),
    ({"adequacy": 50}, "adequacy does not belong to a text_rating trial"),
    ({"chosen_entity": "e1"}, "chosen_entity does not belong to a text_rating trial"),
    ({"rating_colour": 3}, "unknown field(s): rating_colour"),
    ({"preferred": "left"}, "unknown field(s): preferred"),
]


@pytest.mark.parametrize(("changes", "message"), RATING_REFUSALS)
def test_bad_ratings_are_refused(serve, studies, changes, message):
    client, _ = serve(studies["rating"])
    session = client.session("p03")
    payload = {**_rating(_trials(studies["rating"], "L01")[0]), **changes}
    status, data, _ = client.call("POST", "/api/trial", payload, session["token"])
    assert (status, data["error"]) == (400, message)


def test_bad_preferences_are_refused(serve, studies):
    client, _ = serve(studies["preference"])
    session = client.session("p04")
    trial = _trials(studies["preference"], "L01")[0]
    left, right = trial["system_left"], trial["system_right"]
    cases = [
        # the systems of the sides are the key's: a page never sends them
        (
            {"system_left": right, "system_right": left},
            "unknown field(s): system_left, system_right",
        ),
        (
            {"preferred": "both"},
            "preferred must be one of left, right, tie, got 'both'",
        ),
        ({"chosen_system": left}, "unknown field(s): chosen_system"),
        ({"rating_overall": 3}, "unknown field(s): rating_overall"),
    ]
    for changes, message in cases:
        payload = {**_preference(trial), **changes}
        status, data, _ = client.call("POST", "/api/trial", payload, session["token"])
        assert (status, data["error"]) == (400, message)


def test_no_tie_without_allow_tie(serve, studies, tmp_path):
    client, _ = serve(studies["no-tie"], db_path=tmp_path / "no-tie.sqlite")
    session = client.session("p05")
    trial = _trials(studies["no-tie"], "L01")[0]
    status, data, _ = client.call(
        "POST", "/api/trial", _preference(trial, "tie"), session["token"]
    )
    assert (status, data["error"]) == (
        400,
        "preferred must be one of left, right, got 'tie'",
    )


def test_a_text_study_without_criteria_is_not_loaded(studies, tmp_path):
    web = tmp_path / "web"
    web.mkdir()
    key = json.loads((studies["rating"] / "stimuli-key.json").read_text())
    key["criteria"] = []
    raw = json.dumps(key).encode()
    (tmp_path / "stimuli-key.json").write_bytes(raw)
    doc = json.loads((studies["rating"] / "web" / "stimuli.json").read_text())
    doc["design_sha256"] = hashlib.sha256(raw).hexdigest()
    (web / "stimuli.json").write_text(json.dumps(doc))
    with pytest.raises(CollectionError, match="must give its criteria"):
        load_study(tmp_path)


def test_a_version_2_database_without_the_text_table_gets_it(serve, studies, tmp_path):
    db = tmp_path / "old.sqlite"
    client, server = serve(studies["rating"], db_path=db)
    server.shutdown()
    with sqlite3.connect(db) as connection:
        connection.execute("DROP TABLE text_trials")
        connection.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    client, _ = serve(studies["rating"], db_path=db)
    session = client.session("p06")
    payload = _rating(_trials(studies["rating"], "L01")[0])
    status, _, _ = client.call("POST", "/api/trial", payload, session["token"])
    assert status == 201
    with sqlite3.connect(db) as connection:
        assert connection.execute(
            "SELECT value FROM meta WHERE key = 'schema_version'"
        ).fetchone() == ("3",)
        assert sorted(
            connection.execute('SELECT name, value FROM text_trials WHERE "order" = 1')
        ) == [("rating_adequacy", 73), ("rating_fluency", 4)]

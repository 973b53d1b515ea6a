"""The collection server with a situated identification study (seed 000 §5.1).

Trials of the demo dialogue corpus are posted as ``web/experiment.js`` posts them
(through a real server on 127.0.0.1, as in ``test_server.py``); each refusal says
what is wrong; the export has the study document's columns, the situated ones
after ``RESPONSE_COLUMNS``, with the posted values. A database of schema version 1
(REG studies, before situated trials) is migrated; a newer one is refused.
"""

from __future__ import annotations

import csv
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from stecflow.data.dialogue import read_corpus
from stecflow.studies.server import (
    CollectionError,
    export_responses,
    load_study,
    make_app,
    read_responses,
)
from stecflow.studies.settings import RESPONSE_COLUMNS
from stecflow.studykinds.situated_identification.stimuli import (
    SITUATED_COLUMNS,
    build_situated_study,
)
from tests.browser.studykit import build_demo_study

ROOT = Path(__file__).resolve().parents[2]
LIST = [
    ("s01", "s01-e007", None),
    ("s01", "s01-e010", "that one"),
    ("s01", "s01-e014", None),
]


@pytest.fixture(scope="module")
def situated_study(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("situated")
    sessions = {s.id: s for s in read_corpus(ROOT / "resources" / "dialogue-demo")}
    build_situated_study(sessions, {"L01": LIST}, study="rexj", out_dir=root / "web")
    return root


def _trials(study: Path) -> list[dict[str, Any]]:
    """The trials of the built study, each with its clip in place of its key."""
    doc = json.loads((study / "stimuli-key.json").read_text())
    return [
        {**t, "context": doc["contexts"][t["context"]]}
        for t in doc["lists"][0]["trials"]
    ]


def _pieces(trial: dict[str, Any]) -> list[str]:
    return [p["id"] for p in trial["context"]["pieces"]]


def situated_payload(
    trial: dict[str, Any],
    *,
    chosen: str | None = None,
    via: str = "board",
    plays: int = 1,
    time_ms: float = 2500.5,
) -> dict[str, Any]:
    """A trial as the page posts it (experiment.js, situatedTrial)."""
    cant_tell = via == "dont_know"
    return {
        "order": trial["order"],
        "trial": trial["id"],
        "chosen_entity": None if cant_tell else (chosen or trial["target"]),
        "cant_tell": cant_tell,
        "timeout": False,
        "reading_time_ms": None,
        "identification_time_ms": time_ms,
        "rt_ms": time_ms,
        "audio_onset_ms": None,
        "click_x": None,
        "click_y": None,
        "time_ms": time_ms,
        "plays": plays,
        "replays": plays - 1,
        "answer_via": via,
    }


def test_load_situated_study(situated_study):
    study = load_study(situated_study)
    assert study.task == "situated_identification" and study.situated
    assert study.columns == RESPONSE_COLUMNS + SITUATED_COLUMNS
    trials = _trials(situated_study)
    for doc_trial in trials:
        trial = study.lists["L01"][doc_trial["order"]]
        # the valid answers are the pieces on the board, the target among them
        assert trial.entities == frozenset(_pieces(doc_trial))
        assert trial.target in trial.entities
        assert (trial.dialogue, trial.expression) == ("s01", doc_trial["expression"])
    assert [t["expression"] for t in trials] == [e for _, e, _ in LIST]


def test_post_and_export_situated_trials(serve, situated_study, tmp_path):
    client, _ = serve(situated_study)
    session = client.session("p01")
    t1, t2, t3 = _trials(situated_study)
    wrong = next(p for p in _pieces(t2) if p != t2["target"])
    posted = [
        situated_payload(t1, via="board", plays=1, time_ms=1700.0),
        situated_payload(t2, chosen=wrong, via="button", plays=3, time_ms=5400.25),
        situated_payload(t3, via="dont_know", plays=2, time_ms=900.0),
    ]
    for payload in posted:
        status, data, _ = client.call("POST", "/api/trial", payload, session["token"])
        assert (status, data) == (201, {"stored": True, "order": payload["order"]})
    # a resent trial is a duplicate, and leaves the stored one as it was
    again = dict(posted[0], plays=5, replays=4)
    status, data, _ = client.call("POST", "/api/trial", again, session["token"])
    assert status == 200 and data["duplicate"] is True
    status, data, _ = client.call("POST", "/api/complete", {}, session["token"])
    assert status == 200, data

    db = tmp_path / "responses.sqlite"
    rows = read_responses(situated_study, db_path=db)
    assert [list(r) for r in rows] == [
        [*RESPONSE_COLUMNS, *SITUATED_COLUMNS, "answered_utc"]
    ] * 3
    got = [
        (
            r["order"],
            r["chosen_entity"],
            r["correct"],
            r["cant_tell"],
            r["time_ms"],
            r["identification_time_ms"],
            r["plays"],
            r["replays"],
            r["answer_via"],
            r["instance"],
            r["expression"],
        )
        for r in rows
    ]
    assert got == [
        (1, t1["target"], True, False, 1700.0, 1700.0, 1, 0, "board", t1["item"],
         "s01-e007"),
        (2, wrong, False, False, 5400.25, 5400.25, 3, 2, "button", t2["item"],
         "s01-e010"),
        (3, None, False, True, 900.0, 900.0, 2, 1, "dont_know", t3["item"],
         "s01-e014"),
    ]  # fmt: skip
    assert {r["task"] for r in rows} == {"situated_identification"}
    assert {r["session_status"] for r in rows} == {"completed"}
    assert {r["participant"] for r in rows} == {"p01"}

    out = tmp_path / "responses.tsv"
    assert export_responses(situated_study, out, db_path=db) == 3
    with out.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        assert tuple(reader.fieldnames) == (
            *RESPONSE_COLUMNS,
            *SITUATED_COLUMNS,
            "answered_utc",
        )
        table = list(reader)
    assert [
        (r["plays"], r["replays"], r["time_ms"], r["answer_via"], r["dialogue"])
        for r in table
    ] == [
        ("1", "0", "1700", "board", "s01"),
        ("3", "2", "5400.25", "button", "s01"),
        ("2", "1", "900", "dont_know", "s01"),
    ]


def _changed(shown: dict[str, Any], **changes: Any) -> dict[str, Any]:
    payload = situated_payload(shown)
    for key, value in changes.items():
        if value is _DROP:
            payload.pop(key)
        else:
            payload[key] = value
    return payload


_DROP = object()

REFUSALS = [
    ({"plays": 0, "replays": -1}, "plays must be an integer of 1 or more"),
    ({"plays": True, "replays": 0}, "plays must be an integer of 1 or more"),
    ({"plays": 2.0, "replays": 1}, "plays must be an integer of 1 or more"),
    ({"plays": 2, "replays": 2}, "replays must be plays - 1 = 1, got 2"),
    ({"replays": "0"}, "replays must be an integer, got '0'"),
    ({"time_ms": -1}, "time_ms must be between 0 and 3.6e+06"),
    ({"time_ms": "1200"}, "time_ms must be a number, got str"),
    ({"time_ms": _DROP}, "time_ms is required"),
    ({"answer_via": "mouse"}, "answer_via must be one of board, button, dont_know"),
    ({"answer_via": _DROP}, "answer_via must be one of board, button, dont_know"),
    (
        {"answer_via": "dont_know"},
        "answer_via is dont_know exactly when cant_tell is true",
    ),
    ({"chosen_entity": "nope"}, "chosen_entity 'nope' is not a piece of trial 1"),
    ({"chosen_entity": ""}, "chosen_entity '' is not a piece of trial 1"),
    (
        {"chosen_entity": None, "cant_tell": False, "answer_via": "board"},
        "give exactly one of chosen_entity, cant_tell=true, timeout=true",
    ),
    (
        {"cant_tell": True, "answer_via": "dont_know"},
        "give exactly one of chosen_entity, cant_tell=true, timeout=true",
    ),
    (
        {"chosen_entity": None, "timeout": True, "answer_via": "board"},
        "a situated trial has no time-out",
    ),
    # what names the trial comes from the study's key, never from the page
    ({"instance": "other"}, "unknown field(s): instance"),
    ({"expression": "s01-e010"}, "unknown field(s): expression"),
    ({"system": "ORIG"}, "unknown field(s): system"),
    ({"trial": _DROP}, "trial 1 of this list is t"),
    ({"entities": []}, "unknown field(s): entities"),
]


@pytest.mark.parametrize(("changes", "message"), REFUSALS)
def test_situated_refusals(serve, situated_study, changes, message):
    client, _ = serve(situated_study)
    session = client.session()
    first = _trials(situated_study)[0]
    payload = _changed(first, **changes)
    status, data, _ = client.call("POST", "/api/trial", payload, session["token"])
    assert status == 400
    assert data["error"].startswith(message), data["error"]
    # nothing was stored: the trial is still to be answered
    status, state, _ = client.call("GET", "/api/session", token=session["token"])
    assert status == 200 and state["answered"] == []


def test_situated_fields_are_refused_in_a_reg_study(serve, tmp_path):
    study = build_demo_study(
        tmp_path / "ident", task="identification", variant="together"
    )
    client, _ = serve(study)
    session = client.session()
    doc = json.loads((study / "stimuli-key.json").read_text())
    trial = next(x for x in doc["lists"] if x["list"] == session["list"])["trials"][0]
    payload = {
        "order": trial["order"],
        "trial": trial["id"],
        "chosen_entity": trial["target"],
        "identification_time_ms": 100.0,
        "rt_ms": 100.0,
        "plays": 1,
    }
    status, data, _ = client.call("POST", "/api/trial", payload, session["token"])
    assert (status, data) == (400, {"error": "unknown field(s): plays"})


# --------------------------------------------------------------------------- schema


def _meta(db: Path) -> dict[str, str]:
    with sqlite3.connect(db) as connection:
        return dict(connection.execute("SELECT key, value FROM meta"))


def _tables(db: Path) -> set[str]:
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT name FROM sqlite_master WHERE type='table'")
        return {r[0] for r in rows}


def test_version_1_database_is_migrated_and_reads_as_before(serve, tmp_path):
    study = build_demo_study(tmp_path / "rating", task="rating")
    db = tmp_path / "responses.sqlite"
    client, server = serve(study, db_path=db)
    session = client.session()
    doc = json.loads((study / "stimuli-key.json").read_text())
    trial = next(x for x in doc["lists"] if x["list"] == session["list"])["trials"][0]
    payload = {
        "order": trial["order"],
        "trial": trial["id"],
        "adequacy": 70,
        "fluency": 40,
        "rt_ms": 1234.5,
    }
    status, _, _ = client.call("POST", "/api/trial", payload, session["token"])
    assert status == 201
    server.shutdown()
    before = read_responses(study, db_path=db)
    # make it a database of the previous stecflow: version 1, no side table
    with sqlite3.connect(db) as connection:
        connection.execute("DROP TABLE situated_trials")
        connection.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    assert "situated_trials" not in _tables(db)
    # the export reads a version 1 database as it is (read-only)
    assert read_responses(study, db_path=db) == before
    assert [list(r) for r in before] == [[*RESPONSE_COLUMNS, "answered_utc"]]
    assert before[0]["adequacy"] == 70 and before[0]["rt_ms"] == 1234.5
    # the server migrates it: the side table is added, the rows stay
    app = make_app(study, db_path=db)
    app.close()
    assert _meta(db)["schema_version"] == "3"
    assert "situated_trials" in _tables(db)
    assert read_responses(study, db_path=db) == before


def test_newer_database_is_refused(tmp_path, situated_study):
    db = tmp_path / "responses.sqlite"
    make_app(situated_study, db_path=db).close()
    assert _meta(db)["schema_version"] == "3"
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
    message = re.escape("has database schema version 4, newer than this stecflow's (3)")
    with pytest.raises(CollectionError, match=message):
        make_app(situated_study, db_path=db)
    with pytest.raises(CollectionError, match=message):
        read_responses(situated_study, db_path=db)

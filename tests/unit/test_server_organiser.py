"""Tests of the collection server for paid participants: consent and platform IDs,
questionnaire answers, timestamps and the session table in the export, returned
places, the organiser's progress pages behind a token, the event log, backups,
schema migration and the deployment files; HTTP-level against a server on
127.0.0.1 with an injected clock."""

from __future__ import annotations

import base64
import csv
import json
import re
import shutil
import sqlite3
import subprocess
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from stecflow.studies.server import CollectionError, export_responses, make_app
from stecflow.studies.server.cli import main as server_main
from stecflow.studies.server.cli import sessions_command
from stecflow.studies.server.events import EventLog
from stecflow.studies.server.organiser import backup_database
from stecflow.studies.settings import RESPONSE_COLUMNS
from tests.browser.studykit import build_demo_study
from tests.unit.test_server import _trials, rating_payload

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "resources" / "deploy"
#: 2026-11-26T21:40:00Z
T0 = 1795729200.0
TOKEN = "organiser-token-0123456789"


class Clock:
    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    return build_demo_study(tmp_path_factory.mktemp("plain"), task="rating")


@pytest.fixture(scope="module")
def consent_study(tmp_path_factory) -> Path:
    """A rating study whose document declares a consent screen."""
    root = build_demo_study(tmp_path_factory.mktemp("consent"), task="rating")
    path = root / "web" / "stimuli.json"
    doc = json.loads(path.read_text())
    doc["settings"]["screens"] = [
        {"id": "consent", "kind": "consent"},
        {"id": "demographics", "kind": "questionnaire"},
    ]
    path.write_text(json.dumps(doc))
    return root


def _answer_list(client, study: Path, session: dict[str, Any], clock=None, step=0.0):
    for trial in _trials(study, session["list"]):
        if clock is not None:
            clock.now += step
        status, data, _ = client.call(
            "POST", "/api/trial", rating_payload(trial), session["token"]
        )
        assert status == 201, data


def _post_session(client, **body) -> tuple[int, Any]:
    status, data, _ = client.call("POST", "/api/session", body)
    return status, data


def _read_tsv(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def _events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# --------------------------------------------------------------------------- C1


def test_consent_is_required_when_the_study_declares_a_consent_screen(
    serve, consent_study, study, tmp_path
):
    log = tmp_path / "events.jsonl"
    client, _ = serve(consent_study, clock=Clock(), log_path=log)
    status, data = _post_session(client, participant="P1")
    assert status == 400 and "consent page" in data["error"]
    status, data = _post_session(client, participant="P1", consent=False)
    assert status == 400
    status, data = _post_session(client, participant="P1", consent="yes")
    assert (status, data["error"]) == (400, "consent must be true or false")
    status, data = _post_session(
        client,
        participant="P1",
        consent=True,
        study_id="65a1f0c2e4b0",
        external_session="sess-42_a",
    )
    assert status == 201 and set(data) == {
        "token",
        "session_id",
        "list",
        "stimuli",  # the session's own list, blinded
        "answered",
        "completed",
        "completion_code",
    }
    with sqlite3.connect(tmp_path / "responses.sqlite") as db:
        assert db.execute(
            "SELECT participant, study_id, external_session, consent FROM sessions"
        ).fetchall() == [("P1", "65a1f0c2e4b0", "sess-42_a", 1)]
    # the refusals leave no session, only a log line each
    events = _events(log)
    assert [(e["event"], e["status"], e["session"]) for e in events] == [
        ("refused", 400, None),
        ("refused", 400, None),
        ("refused", 400, None),
        ("created", 201, data["session_id"]),
    ]
    assert events[0]["reason"] == "no consent"


def test_platform_ids_are_checked(serve, study):
    client, _ = serve(study)
    for body in (
        {"study_id": ""},
        {"study_id": "a" * 65},
        {"external_session": "has space"},
        {"external_session": "trailing-newline\n"},
        {"external_session": 12},
        {"external": "x"},
    ):
        status, data = _post_session(client, **body)
        assert status == 400, (body, data)
    # without a consent screen, consent is optional
    status, _ = _post_session(client, study_id="S1")
    assert status == 201


def test_answers_are_stored_per_screen_and_replaced(serve, study, tmp_path):
    clock = Clock()
    client, _ = serve(study, clock=clock)
    session = client.session("P9")
    body = {
        "screen": "demographics",
        "answers": {"age": 34, "gender": "female", "colour_blind": False, "x": None},
    }
    status, data, _ = client.call("POST", "/api/answers", body, session["token"])
    assert (status, data) == (200, {"stored": 4})
    # re-posting a screen replaces its answers
    body["answers"] = {"age": 35, "handedness": "=left"}
    status, data, _ = client.call("POST", "/api/answers", body, session["token"])
    assert (status, data) == (200, {"stored": 2})
    debrief = {"screen": "debrief", "answers": {"comments": "Fine.\tThanks"}}
    status, _, _ = client.call("POST", "/api/answers", debrief, session["token"])
    assert status == 200
    with sqlite3.connect(tmp_path / "responses.sqlite") as db:
        stored = db.execute(
            "SELECT screen, field, value_json FROM answers ORDER BY screen, field"
        ).fetchall()
    assert stored == [
        ("debrief", "comments", '"Fine.\\tThanks"'),
        ("demographics", "age", "35"),
        ("demographics", "handedness", '"=left"'),
    ]
    status, _, _ = client.call("POST", "/api/answers", debrief)
    assert status == 403


ANSWER_REFUSALS = [
    ({"screen": "bad screen", "answers": {}}, "screen must be 1-64 letters"),
    ({"screen": "s\n", "answers": {}}, "screen must be 1-64 letters"),
    ({"screen": "s", "answers": []}, "answers must be an object"),
    ({"screen": "s", "answers": {"a.b": 1}}, "answer field 'a.b' must be 1-64"),
    ({"screen": "s", "answers": {"a": [1]}}, "answer a must be a string, number"),
    ({"screen": "s", "answers": {"a": {"b": 1}}}, "answer a must be a string"),
    ({"screen": "s", "answers": {"a": "x" * 2001}}, "longer than 2000 characters"),
    (
        {"screen": "s", "answers": {f"f{k}": k for k in range(101)}},
        "at most 100 answer fields",
    ),
    ({"screen": "s", "answers": {}, "more": 1}, "unknown field(s): more"),
]


@pytest.mark.parametrize(("body", "message"), ANSWER_REFUSALS)
def test_answers_are_refused_with_a_reason(serve, study, body, message):
    client, _ = serve(study)
    session = client.session()
    status, data, _ = client.call("POST", "/api/answers", body, session["token"])
    assert status == 400 and message in data["error"], data


def test_long_answers_within_the_limits_fit(serve, study):
    client, _ = serve(study)
    session = client.session()
    # 100 x 2000 characters of 3 bytes in UTF-8, as a browser sends them
    answers = {f"f{k}": "\u3042" * 2000 for k in range(100)}
    raw = json.dumps({"screen": "long", "answers": answers}, ensure_ascii=False)
    status, data, _ = client.call(
        "POST",
        "/api/answers",
        raw=raw.encode("utf-8"),
        token=session["token"],
        headers={"Content-Type": "application/json"},
    )
    assert (status, data) == (200, {"stored": 100})


# --------------------------------------------------------------------------- C2


def test_export_has_times_and_the_session_table(serve, study, tmp_path):
    clock = Clock()
    client, _ = serve(study, clock=clock)
    done = client.session("P-done")  # 21:40:00
    clock.now = T0 + 10.5
    answers = {
        "screen": "demographics",
        "answers": {"age": 41, "field": "-linguistics"},
    }
    client.call("POST", "/api/answers", answers, done["token"])
    _answer_list(client, study, done, clock, step=20.0)
    n_trials = len(_trials(study, done["list"]))
    clock.now = T0 + 300.0  # completes at 21:45:00
    status, _, _ = client.call("POST", "/api/complete", {}, done["token"])
    assert status == 200
    clock.now = T0 + 400.0
    open_one = client.session()  # 21:46:40, one trial, then silence
    trial = _trials(study, open_one["list"])[0]
    client.call("POST", "/api/trial", rating_payload(trial), open_one["token"])

    out = tmp_path / "out" / "rating.tsv"
    n = export_responses(
        study, out, db_path=tmp_path / "responses.sqlite", now=T0 + 500.0
    )
    assert n == n_trials + 1
    trials = _read_tsv(out)
    assert list(trials[0]) == [*RESPONSE_COLUMNS, "answered_utc"]
    assert [r["answered_utc"] for r in trials[:2]] == [
        "2026-11-26T21:40:30.500Z",
        "2026-11-26T21:40:50.500Z",
    ]
    assert trials[-1]["answered_utc"] == "2026-11-26T21:46:40.000Z"
    sessions = _read_tsv(out.with_name("rating.sessions.tsv"))
    assert list(sessions[0]) == [
        "study",
        "session",
        "participant",
        "study_id",
        "external_session",
        "list",
        "status",
        "started_utc",
        "ended_utc",
        "duration_s",
        "n_trials_answered",
        "consent",
        "demographics.age",
        "demographics.field",
    ]
    first, second = sessions
    assert first == {
        "study": "demo-study",
        "session": done["session_id"],
        "participant": "P-done",
        "study_id": "",
        "external_session": "",
        "list": "L01",
        "status": "completed",
        "started_utc": "2026-11-26T21:40:00Z",
        "ended_utc": "2026-11-26T21:45:00Z",
        "duration_s": "300",
        "n_trials_answered": str(n_trials),
        "consent": "",
        "demographics.age": "41",
        # a free-text answer that a spreadsheet would run is neutralised
        "demographics.field": "'-linguistics",
    }
    assert (second["status"], second["ended_utc"], second["duration_s"]) == (
        "in_progress",
        "",
        "",
    )
    assert second["n_trials_answered"] == "1"
    # the same files through the server's command line
    assert (
        server_main(
            [
                "export",
                str(study),
                "--out",
                str(tmp_path / "cli.tsv"),
                "--db",
                str(tmp_path / "responses.sqlite"),
            ]
        )
        == 0
    )
    assert (tmp_path / "cli.sessions.tsv").is_file()


# --------------------------------------------------------------------------- point 5


def _script(client, study: Path, clock: Clock) -> dict[str, dict[str, Any]]:
    """Five sessions: two completed (300 s and 900 s), one returned on the
    platform, one abandoned, one in progress."""
    s: dict[str, dict[str, Any]] = {}
    s["a"] = client.session("Pa")  # L01
    s["b"] = client.session("Pb")  # L02
    status, s["c"] = _post_session(client, participant="Pc", external_session="PX-c")
    assert status == 201  # L03
    _answer_list(client, study, s["a"])
    clock.now = T0 + 300.0
    assert client.call("POST", "/api/complete", {}, s["a"]["token"])[0] == 200
    _answer_list(client, study, s["b"])
    clock.now = T0 + 900.0
    assert client.call("POST", "/api/complete", {}, s["b"]["token"])[0] == 200
    return s


def test_returned_and_abandoned_places_free_their_lists(serve, study, tmp_path):
    clock = Clock()
    log = tmp_path / "events.jsonl"
    client, server = serve(
        study, clock=clock, admin_token=TOKEN, log_path=log, abandon_after_s=600.0
    )
    s = _script(client, study, clock)
    assert [s[k]["list"] for k in "abc"] == ["L01", "L02", "L03"]
    # every list is used once; ties go to the list with fewer completions: L03
    s["d"] = client.session("Pd")
    assert s["d"]["list"] == "L03"
    # the platform returned c's place: the organiser marks it by the platform's ID
    status, data, _ = client.call(
        "POST",
        "/admin/return",
        {"session": "PX-c"},
        headers={"Authorization": f"Bearer {TOKEN}"},
    )
    assert (status, data) == (
        200,
        {
            "session": s["c"]["session_id"],
            "list": "L03",
            "returned_utc": "2026-11-26T21:55:00Z",
            "already": False,
        },
    )
    # a returned session can send nothing more
    trial = _trials(study, "L03")[0]
    status, data, _ = client.call(
        "POST", "/api/trial", rating_payload(trial), s["c"]["token"]
    )
    assert status == 409 and "returned" in data["error"]
    # d goes silent for longer than abandon_after_s
    clock.now = T0 + 900.0 + 601.0
    progress = server.app.progress()
    assert {k: progress[k] for k in STATUS_KEYS} == {
        "sessions": 4,
        "completed": 2,
        "in_progress": 0,
        "abandoned": 1,
        "returned": 1,
    }
    l03 = progress["lists"][2]
    assert l03 == {
        "list": "L03",
        "completed": 0,
        "in_progress": 0,
        "abandoned": 1,
        "returned": 1,
        "needed": 1,
        "held_by_returned": [s["c"]["session_id"]],
        "held_by_abandoned": [s["d"]["session_id"]],
    }
    assert progress["lists_needed"] == ["L03"]
    assert progress["participants_needed"] == 1
    # so the next participant gets L03
    assert client.session("Pe")["list"] == "L03"
    # the organiser's command line marks a place too (here: by session ID)
    text = sessions_command(
        "return",
        study,
        db_path=tmp_path / "responses.sqlite",
        session=s["d"]["session_id"],
        now=T0 + 2000.0,
    )
    assert f"session {s['d']['session_id']} returned; list L03" in text
    with pytest.raises(CollectionError, match="is completed"):
        sessions_command(
            "return", study, db_path=tmp_path / "responses.sqlite", session="Pa"
        )
    with pytest.raises(CollectionError, match="no session has"):
        sessions_command(
            "return", study, db_path=tmp_path / "responses.sqlite", session="nobody"
        )
    returned = [e for e in _events(log) if e["event"] == "returned"]
    assert returned == [
        {
            "time": "2026-11-26T21:55:00.000Z",
            "event": "returned",
            "status": 200,
            "session": s["c"]["session_id"],
            "list": "L03",
            "by": "organiser",
        }
    ]
    # the export shows the statuses
    out = tmp_path / "x.tsv"
    export_responses(study, out, db_path=tmp_path / "responses.sqlite", now=T0 + 2001)
    statuses = {
        r["session"]: r["status"] for r in _read_tsv(tmp_path / "x.sessions.tsv")
    }
    assert statuses[s["c"]["session_id"]] == "returned"
    assert statuses[s["d"]["session_id"]] == "returned"
    ended = {
        r["session"]: r["ended_utc"] for r in _read_tsv(tmp_path / "x.sessions.tsv")
    }
    assert ended[s["c"]["session_id"]] == "2026-11-26T21:55:00Z"


STATUS_KEYS = ("sessions", "completed", "in_progress", "abandoned", "returned")


# --------------------------------------------------------------------------- point 4


def _basic(token: str) -> dict[str, str]:
    raw = base64.b64encode(f"organiser:{token}".encode()).decode()
    return {"Authorization": f"Basic {raw}"}


def test_admin_pages_need_the_token(serve, study, tmp_path):
    client, _ = serve(study)  # no token configured: the pages do not exist
    assert client.call("GET", "/admin/progress.json")[0] == 404
    client, _ = serve(
        study, admin_token=TOKEN, db_path=tmp_path / "second.sqlite", clock=Clock()
    )
    status, data, headers = client.call("GET", "/admin/progress.json")
    assert status == 401 and headers["WWW-Authenticate"].startswith("Basic")
    for wrong in ("Bearer " + TOKEN[:-1], "Bearer " + TOKEN + "x", "Token " + TOKEN):
        status, _, _ = client.call(
            "GET", "/admin/progress.json", headers={"Authorization": wrong}
        )
        assert status == 401, wrong
    # a participant's session token is no organiser token
    session = client.session()
    status, _, _ = client.call("GET", "/admin/progress.json", token=session["token"])
    assert status == 401
    status, data, _ = client.call(
        "GET", "/admin/progress.json", headers={"Authorization": f"Bearer {TOKEN}"}
    )
    assert status == 200 and data["sessions"] == 1 and data["in_progress"] == 1
    status, page, headers = client.call("GET", "/admin/progress", headers=_basic(TOKEN))
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    text = page.decode()
    assert "Sessions: 1; completed 0, in progress 1, abandoned 0" in text
    assert "<td>L01</td><td>0</td><td>1</td><td>0</td><td>0</td><td>0</td>" in text
    assert "<script" not in text and "http" not in text.replace("http-equiv", "")
    csp = headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "style-src 'sha256-" in csp
    assert TOKEN not in text
    status, body, headers = client.call(
        "GET", "/admin/sessions.tsv", headers=_basic(TOKEN)
    )
    assert status == 200 and headers["Content-Disposition"].endswith(
        'filename="demo-study.sessions.tsv"'
    )
    assert body.decode().startswith("study\tsession\tparticipant\t")
    status, body, _ = client.call("GET", "/admin/export.tsv", headers=_basic(TOKEN))
    assert status == 200 and body.decode().split("\n")[0].endswith("\tanswered_utc")
    # participants' pages never link to it, and a short token is refused
    assert b"admin" not in (study / "web" / "index.html").read_bytes()
    with pytest.raises(CollectionError, match="at least 16"):
        make_app(study, db_path=tmp_path / "third.sqlite", admin_token="short")


def test_progress_numbers_of_a_scripted_study(serve, study, tmp_path):
    clock = Clock()
    client, server = serve(study, clock=clock, abandon_after_s=600.0, per_list=2)
    s = _script(client, study, clock)  # a: 300 s, b: 900 s
    clock.now = T0 + 1000.0
    third = client.session("Pf")  # L03 is held by c (silent since T0)
    _answer_list(client, study, third)
    clock.now = T0 + 1000.0 + 450.0
    client.call("POST", "/api/complete", {}, third["token"])
    progress = server.app.progress()
    durations = [300.0, 900.0, 450.0]
    assert progress["duration_s"] == {
        "n": 3,
        "median": pytest.approx(float(np.percentile(durations, 50))),
        "p90": pytest.approx(float(np.percentile(durations, 90))),
    }
    assert progress["duration_s"]["p90"] == pytest.approx(810.0)  # 450 + 0.8 * 450
    # c is silent since T0: abandoned; per_list=2 wants two completions each
    assert {k: progress[k] for k in STATUS_KEYS} == {
        "sessions": 4,
        "completed": 3,
        "in_progress": 0,
        "abandoned": 1,
        "returned": 0,
    }
    assert [(e["list"], e["completed"], e["needed"]) for e in progress["lists"]] == [
        ("L01", 1, 1),
        ("L02", 1, 1),
        ("L03", 1, 1),
    ]
    assert progress["participants_needed"] == 3
    assert progress["lists"][2]["held_by_abandoned"] == [s["c"]["session_id"]]
    # the command line prints the same numbers
    text = sessions_command(
        "progress",
        study,
        db_path=tmp_path / "responses.sqlite",
        abandon_after_s=600.0,
        per_list=2,
        as_json=True,
        now=clock.now,
    )
    assert json.loads(text) == progress


# --------------------------------------------------------------------------- point 5 log


def test_event_log_lines(serve, study, tmp_path):
    clock = Clock()
    log = tmp_path / "log" / "events.jsonl"
    client, server = serve(study, clock=clock, log_path=log)
    session = client.session("PROLIFIC-PID-123")
    clock.now = T0 + 1.25
    client.call(
        "POST",
        "/api/answers",
        {"screen": "demographics", "answers": {"age": 30}},
        session["token"],
    )
    trial = _trials(study, session["list"])[0]
    clock.now = T0 + 5.0
    client.call("POST", "/api/trial", rating_payload(trial), session["token"])
    client.call("POST", "/api/trial", rating_payload(trial), session["token"])
    bad = dict(rating_payload(trial), adequacy=101)
    client.call("POST", "/api/trial", bad, session["token"])
    clock.now = T0 + 6.0
    client.call("POST", "/api/complete", {}, session["token"])
    server.shutdown()
    sid = session["session_id"]
    lines = log.read_text().splitlines()
    assert [json.loads(line) for line in lines] == [
        {
            "time": "2026-11-26T21:40:00.000Z",
            "event": "created",
            "status": 201,
            "session": sid,
            "list": "L01",
        },
        {
            "time": "2026-11-26T21:40:01.250Z",
            "event": "answers",
            "status": 200,
            "session": sid,
            "list": "L01",
            "screen": "demographics",
            "fields": 1,
        },
        {
            "time": "2026-11-26T21:40:05.000Z",
            "event": "trial",
            "status": 201,
            "session": sid,
            "list": "L01",
            "order": 1,
        },
        {
            "time": "2026-11-26T21:40:05.000Z",
            "event": "trial",
            "status": 200,
            "session": sid,
            "list": "L01",
            "order": 1,
            "duplicate": True,
        },
        {
            "time": "2026-11-26T21:40:05.000Z",
            "event": "trial",
            "status": 400,
            "session": sid,
            "list": "L01",
            "order": 1,
            "reason": "adequacy must be an integer from 1 to 100, got 101",
        },
        {
            "time": "2026-11-26T21:40:06.000Z",
            "event": "completed",
            "status": 409,
            "session": sid,
            "list": "L01",
            "reason": "trials are missing",
        },
    ]
    text = log.read_text()
    # no secrets, no participant ID, no address unless configured
    assert session["token"] not in text and "PROLIFIC-PID-123" not in text
    assert "127.0.0.1" not in text


def test_event_log_with_addresses_behind_a_proxy(serve, study, tmp_path):
    log = tmp_path / "events.jsonl"
    client, _ = serve(
        study,
        log_path=log,
        log_addresses=True,
        behind_proxy=True,
        sessions_per_address=1,
    )
    # a reverse proxy appends the client's address: the last entry counts
    proxy = {"X-Forwarded-For": "198.51.100.7, 203.0.113.5"}
    status, _, _ = client.call(
        "POST",
        "/api/session",
        {},
        headers={**proxy, "Content-Type": "application/json"},
    )
    assert status == 201
    status, _, _ = client.call(
        "POST",
        "/api/session",
        {},
        headers={**proxy, "Content-Type": "application/json"},
    )
    assert status == 429  # one session per address
    other = {"X-Forwarded-For": "198.51.100.7, 203.0.113.6"}
    status, _, _ = client.call(
        "POST",
        "/api/session",
        {},
        headers={**other, "Content-Type": "application/json"},
    )
    assert status == 201
    events = _events(log)
    assert [(e["event"], e["status"], e["address"]) for e in events] == [
        ("created", 201, "203.0.113.5"),
        ("refused", 429, "203.0.113.5"),
        ("created", 201, "203.0.113.6"),
    ]


def test_event_log_is_rotated(tmp_path):
    path = tmp_path / "events.jsonl"
    log = EventLog(path, max_bytes=400, backups=2)
    for k in range(30):
        log.write(T0 + k, "trial", status=201, session="s1", list="L01", order=k)
    log.close()
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["events.jsonl", "events.jsonl.1", "events.jsonl.2"]
    for name in files:
        assert (tmp_path / name).stat().st_size <= 400
    orders = [
        json.loads(line)["order"]
        for name in ("events.jsonl.2", "events.jsonl.1", "events.jsonl")
        for line in (tmp_path / name).read_text().splitlines()
    ]
    assert orders == list(range(30 - len(orders), 30))  # newest kept, in order


# --------------------------------------------------------------------------- storage


def test_an_old_database_still_opens_and_is_migrated(serve, study, tmp_path):
    db = tmp_path / "responses.sqlite"
    client, server = serve(study, clock=Clock())
    session = client.session("old-P")
    _answer_list(client, study, session)
    server.shutdown()
    # make it a database of the previous stecflow (schema version 2)
    with sqlite3.connect(db) as connection:
        connection.execute("DROP TABLE answers")
        for name in ("study_id", "external_session", "consent", "returned_s"):
            connection.execute(f"ALTER TABLE sessions DROP COLUMN {name}")
        connection.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    # the export reads it as it is (read-only: nothing changes)
    export_responses(study, tmp_path / "old.tsv", db_path=db, now=T0 + 60)
    rows = _read_tsv(tmp_path / "old.sessions.tsv")
    assert [
        (r["participant"], r["status"], r["consent"], r["study_id"]) for r in rows
    ] == [("old-P", "in_progress", "", "")]
    with sqlite3.connect(db) as connection:
        assert connection.execute(
            "SELECT value FROM meta WHERE key = 'schema_version'"
        ).fetchone() == ("2",)
    # the server migrates it and goes on: the session completes
    client, server = serve(study, clock=Clock(T0 + 100))
    status, _, _ = client.call("POST", "/api/complete", {}, session["token"])
    assert status == 200
    status, data, _ = client.call(
        "POST",
        "/api/answers",
        {"screen": "debrief", "answers": {"ok": True}},
        session["token"],
    )
    assert status == 200
    server.shutdown()
    with sqlite3.connect(db) as connection:
        assert connection.execute(
            "SELECT value FROM meta WHERE key = 'schema_version'"
        ).fetchone() == ("3",)
        columns = {r[1] for r in connection.execute("PRAGMA table_info(sessions)")}
    assert {"study_id", "external_session", "consent", "returned_s"} <= columns
    export_responses(study, tmp_path / "new.tsv", db_path=db, now=T0 + 200)
    (row,) = _read_tsv(tmp_path / "new.sessions.tsv")
    assert (row["status"], row["duration_s"], row["debrief.ok"]) == (
        "completed",
        "100",
        "true",
    )


def test_backup_is_consistent_while_sessions_are_written(study, tmp_path):
    db = tmp_path / "responses.sqlite"
    app = make_app(study, db_path=db, synchronous="NORMAL", sessions_per_address=0)
    stop = threading.Event()
    errors: list[BaseException] = []
    trials = _trials(study, "L01")

    def writer() -> None:
        # each transaction adds a session and all its trials at once
        k = 0
        try:
            while not stop.is_set():
                with app.store.transaction() as connection:
                    sid = f"w{k:05d}"
                    connection.execute(
                        "INSERT INTO sessions (session_id, token_sha256, list, "
                        "created_s, last_seen_s) VALUES (?, ?, 'L01', ?, ?)",
                        (sid, f"h{k}", T0, T0),
                    )
                    connection.executemany(
                        'INSERT INTO trials (session_id, "order", list, item, system, '
                        "practice, filler, received_s) VALUES (?, ?, 'L01', ?, ?, 0, 0, ?)",
                        [(sid, t["order"], t["item"], t["system"], T0) for t in trials],
                    )
                k += 1
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        counts = []
        for n in range(5):
            out = tmp_path / "backups" / f"copy-{n}.sqlite"
            result = backup_database(db, out)
            with sqlite3.connect(out) as copy:
                assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
                per_session = copy.execute(
                    "SELECT COUNT(*) FROM trials GROUP BY session_id"
                ).fetchall()
            # never half a transaction: every session has all its trials
            assert {c for (c,) in per_session} <= {len(trials)}
            assert result["trials"] == result["sessions"] * len(trials)
            counts.append(result["sessions"])
    finally:
        stop.set()
        thread.join()
        app.close()
    assert not errors
    assert counts == sorted(counts) and counts[-1] > 0
    assert not list((tmp_path / "backups").glob("*.part"))
    # through the command line, once the writer has stopped: the same rows
    assert (
        server_main(
            [
                "backup",
                str(study),
                "--db",
                str(db),
                "--out",
                str(tmp_path / "final.sqlite"),
            ]
        )
        == 0
    )
    with sqlite3.connect(db) as a, sqlite3.connect(tmp_path / "final.sqlite") as b:
        query = 'SELECT session_id, "order" FROM trials ORDER BY 1, 2'
        assert a.execute(query).fetchall() == b.execute(query).fetchall()


# --------------------------------------------------------------------------- deployment


def test_systemd_units_verify():
    units = sorted(DEPLOY.glob("*.service")) + sorted(DEPLOY.glob("*.timer"))
    assert [u.name for u in units] == [
        "stecflow-backup.service",
        "stecflow-study.service",
        "stecflow-backup.timer",
    ]
    service = (DEPLOY / "stecflow-study.service").read_text()
    assert "--behind-proxy" in service and "--host 127.0.0.1" in service
    assert "--admin-token-file" in service and "STECFLOW_ADMIN_TOKEN=" not in service
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.skip("systemd-analyze is not installed")
    # verify needs existing executables: the venv's stecflow becomes /bin/true
    work = Path(__import__("tempfile").mkdtemp())
    for unit in units:
        text = unit.read_text().replace("/srv/stecflow/venv/bin/stecflow", "/bin/true")
        (work / unit.name).write_text(text)
    run = subprocess.run(
        [tool, "verify", "--man=no", *(str(work / u.name) for u in units)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "Failed to parse" not in run.stderr and "Unknown" not in run.stderr, (
        run.stderr
    )
    shutil.rmtree(work)


def _nginx_blocks(text: str) -> list[tuple[str, list[str]]]:
    """(block name, its directives) of an nginx file, braces checked; the
    directives outside every block (the file is included in nginx's http {})
    come last, as the block "http"."""
    lines = [re.sub(r"#.*", "", line).strip() for line in text.splitlines()]
    stack: list[tuple[str, list[str]]] = [("http", [])]
    blocks = []
    for line in filter(None, lines):
        if line.endswith("{"):
            stack.append((line[:-1].strip(), []))
        elif line == "}":
            assert len(stack) > 1, "unbalanced }"
            blocks.append(stack.pop())
        else:
            assert line.endswith(";"), f"directive without ';': {line}"
            stack[-1][1].append(line[:-1])
    assert len(stack) == 1, "unclosed block"
    return [*blocks, stack[0]]


def test_reverse_proxy_configurations_are_well_formed():
    blocks = dict(
        (name, directives)
        for name, directives in _nginx_blocks(
            (DEPLOY / "nginx-stecflow.conf").read_text()
        )
        if name.startswith("location")
    )
    for name in ("location /", "location /api/", "location = /api/answers"):
        location = blocks[name]
        assert "proxy_pass http://127.0.0.1:8000" in location, name
        assert (
            "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for" in location
        ), name
    for name in ("location /api/", "location = /api/answers"):
        assert "proxy_next_upstream off" in blocks[name], name
        assert "limit_req zone=stecflow_api burst=100 nodelay" in blocks[name], name
    text = (DEPLOY / "nginx-stecflow.conf").read_text()
    # the zones at http level (the file is included in http {}), used by the server
    http = dict(_nginx_blocks(text))["http"]
    assert any(d.startswith("limit_conn_zone $binary_remote_addr ") for d in http)
    assert any(d.startswith("limit_req_zone $binary_remote_addr ") for d in http)
    assert "limit_conn stecflow_conn 32" in text
    assert "ssl_certificate " in text and "return 301 https://" in text
    caddy = (DEPLOY / "Caddyfile").read_text()
    assert caddy.count("{") == caddy.count("}")
    assert "reverse_proxy 127.0.0.1:8000" in caddy


# --------------------------------------------------------------------------- CLI


ORGANISER_FLAGS = [
    "--admin-token-file",
    "token.txt",
    "--log",
    "events.jsonl",
    "--log-addresses",
    "--per-list",
    "3",
]
ORGANISER = {
    "admin_token_file": "token.txt",
    "admin_token": None,
    "log_path": "events.jsonl",
    "log": True,
    "log_addresses": True,
    "per_list": 3,
}
ORGANISER_DEFAULTS = {
    "admin_token_file": None,
    "admin_token": None,
    "log_path": None,
    "log": True,
    "log_addresses": False,
    "per_list": 1,
}


def test_both_command_lines_pass_the_organiser_options(monkeypatch, tmp_path):
    from stecflow import cli
    from stecflow.studies import server as server_module
    from tests.unit.test_server_hardening import _captured

    seen = _captured(monkeypatch)
    for run in (cli.main, server_module.main):
        seen.clear()
        assert run(["serve", str(tmp_path), *ORGANISER_FLAGS]) == 0
        assert {k: seen[k] for k in ORGANISER} == ORGANISER
        seen.clear()
        assert run(["serve", str(tmp_path), "--no-log"]) == 0
        assert {k: seen[k] for k in ORGANISER_DEFAULTS} == dict(
            ORGANISER_DEFAULTS, log=False
        )


def test_stecflow_sessions_commands(study, tmp_path, capsys, monkeypatch):
    from stecflow import cli

    db = tmp_path / "responses.sqlite"
    app = make_app(study, db_path=db, clock=Clock())
    app.close()
    with sqlite3.connect(db) as connection:
        connection.execute(
            "INSERT INTO sessions (session_id, token_sha256, list, participant, "
            "created_s, last_seen_s, external_session) "
            "VALUES ('s1', 'h1', 'L02', 'P1', ?, ?, 'PX-1')",
            (T0, T0),
        )
    assert cli.main(["sessions", "return", str(study), "--db", str(db), "PX-1"]) == 0
    assert capsys.readouterr().out == (
        "session s1 returned; list L02 goes to the next participant\n"
    )
    assert cli.main(["sessions", "progress", str(study), "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "1 sessions; completed 0, in progress 0, abandoned 0, returned 1" in out
    assert "L02\t0\t0\t0\t1\t1" in out
    assert "participants still needed: 3 (lists L01, L02, L03)" in out
    copy = tmp_path / "copy.sqlite"
    assert (
        cli.main(
            ["sessions", "backup", str(study), "--db", str(db), "--out", str(copy)]
        )
        == 0
    )
    assert capsys.readouterr().out.endswith("(1 sessions, 0 trials)\n")
    # an unknown session is an error with a plain message, exit code 2
    assert cli.main(["sessions", "return", str(study), "--db", str(db), "nobody"]) == 2
    assert "no session has the session, platform session or participant ID" in (
        capsys.readouterr().err
    )


def test_serve_writes_its_log_beside_the_database_by_default(study, tmp_path):
    from stecflow.studies.server import serve

    db = tmp_path / "data" / "responses.sqlite"
    seen = {}

    def ready(server):
        seen["log"] = server.app.event_log.path
        seen["token"] = server.app.admin_token
        # stop serving from another thread, as Ctrl-C would
        threading.Thread(target=server.shutdown).start()

    serve(study, port=0, db_path=db, ready=ready, admin_token=TOKEN)
    assert seen == {"log": tmp_path / "data" / "responses.events.jsonl", "token": TOKEN}


def test_one_session_per_participant_unless_returned(serve, study, tmp_path):
    """A participant ID opens one session: a second attempt is refused with a
    reason the page translates, until the organiser marks the place returned."""
    clock = Clock()
    client, _ = serve(study, clock=clock, admin_token=TOKEN)
    first = client.session("P-once")
    status, data = _post_session(client, participant="P-once")
    assert status == 409 and data["reason"] == "already_started"
    assert data["error"].startswith("You have already started this study.")
    _answer_list(client, study, first)
    assert client.call("POST", "/api/complete", {}, first["token"])[0] == 200
    status, data = _post_session(client, participant="P-once")
    assert (status, data["reason"]) == (409, "already_completed")
    # another participant, and a session without an ID, are unaffected
    assert _post_session(client, participant="P-other")[0] == 201
    assert _post_session(client)[0] == 201
    # a place returned on the platform frees the ID for a new attempt
    second_id = "P-again"
    started = client.session(second_id)
    status, _, _ = client.call(
        "POST",
        "/admin/return",
        {"session": started["session_id"]},
        headers={"Authorization": f"Bearer {TOKEN}"},
    )
    assert status == 200
    status, data = _post_session(client, participant=second_id)
    assert status == 201 and data["session_id"] != started["session_id"]


def test_participant_facing_refusals_have_catalogue_reasons(serve, study):
    """Each refusal a participant can meet names a key of the interface catalogue,
    so the page shows it in the study's language."""
    from stecflow.studies.strings import UI_STRINGS

    client, _ = serve(study, clock=Clock(), max_sessions=1, require_participant=True)
    status, data = _post_session(client)
    assert (status, data["reason"]) == (400, "participant_needed")
    assert _post_session(client, participant="P1")[0] == 201
    status, data = _post_session(client, participant="P2")
    assert (status, data["reason"]) == (409, "study_full")
    for reason in ("participant_needed", "study_full", "already_started"):
        assert UI_STRINGS["en"][reason] and UI_STRINGS["ja"][reason]

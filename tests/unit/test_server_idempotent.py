"""Creating a session is idempotent: a retry whose first answer was lost gets its
session back (issue 38, point 3), and nobody else gets a second attempt.

The page sends an attempt key with ``POST api/session``; the server keeps its
SHA-256 and answers the same key of the same participant with the session it
opened (200, the same token), while another key still gets 409. The WSGI tests
call the application directly; the socket tests close the connection before
reading the answer, as a browser does whose network drops.
"""

from __future__ import annotations

import hashlib
import io
import json
import socket
import sqlite3
import time
from pathlib import Path
from typing import Any
from wsgiref.util import setup_testing_defaults

import pytest

from stecflow.studies.server import make_app
from tests.browser.studykit import build_demo_study
from tests.unit.test_server import FakeClock

KEY = "k" * 10 + "0123456789_-"  # 22 characters: the shortest key accepted
OTHER = "x" * 32


@pytest.fixture(scope="module")
def rating_study(tmp_path_factory) -> Path:
    return build_demo_study(tmp_path_factory.mktemp("idempotent"), task="rating")


@pytest.fixture
def app(rating_study, tmp_path):
    app = make_app(
        rating_study, db_path=tmp_path / "responses.sqlite", clock=FakeClock()
    )
    yield app
    app.close()


def call(
    app: Any,
    method: str,
    path: str,
    body: Any = None,
    token: str | None = None,
    address: str = "192.0.2.1",
) -> tuple[int, Any]:
    """One request through the WSGI application: its status and JSON answer."""
    data = b"" if body is None else json.dumps(body).encode()
    environ: dict[str, Any] = {}
    setup_testing_defaults(environ)
    environ.update(
        REQUEST_METHOD=method,
        PATH_INFO=path,
        CONTENT_TYPE="application/json",
        CONTENT_LENGTH=str(len(data)),
        REMOTE_ADDR=address,
    )
    environ["wsgi.input"] = io.BytesIO(data)
    if token is not None:
        environ["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    seen = []
    answer = b"".join(app(environ, lambda status, headers: seen.append(status)))
    return int(seen[0].split()[0]), json.loads(answer)


def sessions(db: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as connection:
        return connection.execute(
            "SELECT session_id, participant, token_sha256, attempt_sha256 "
            "FROM sessions ORDER BY created_s, session_id"
        ).fetchall()


def update(db: Path, sql: str, *args: Any) -> None:
    """Change the database as answering or the organiser would (the ways of
    posting answers are tested elsewhere)."""
    with sqlite3.connect(db) as connection:
        connection.execute(sql, args)


def start(participant: str | None, attempt: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"participant": participant, "consent": True}
    if attempt is not None:
        body["attempt"] = attempt
    return body


# --------------------------------------------------------------------------- WSGI


def test_the_same_attempt_key_gets_the_same_session(app, tmp_path):
    status, first = call(app, "POST", "/api/session", start("p1", KEY))
    assert status == 201 and first["answered"] == []
    status, again = call(app, "POST", "/api/session", start("p1", KEY))
    assert status == 200
    assert again == first  # same session, list and token: nothing is rotated
    assert call(app, "GET", "/api/session", token=first["token"])[0] == 200
    # two trials answered, then the answer to a retry is lost again: it resumes
    for order in (1, 2):
        update(
            app.db_path,
            'INSERT INTO trials (session_id, "order", list, item, practice, filler, '
            "received_s) VALUES (?, ?, ?, 'i', 0, 0, 0)",
            first["session_id"],
            order,
            first["list"],
        )
    status, again = call(app, "POST", "/api/session", start("p1", KEY))
    assert (status, again["answered"], again["token"]) == (200, [1, 2], first["token"])
    # one session, holding digests only: neither the key nor the token is stored
    db = tmp_path / "responses.sqlite"
    ((session_id, participant, token_sha256, attempt_sha256),) = sessions(db)
    assert (session_id, participant) == (first["session_id"], "p1")
    assert attempt_sha256 == hashlib.sha256(KEY.encode()).hexdigest()
    assert token_sha256 == hashlib.sha256(first["token"].encode()).hexdigest()
    raw = db.read_bytes() + Path(f"{db}-wal").read_bytes()
    assert KEY.encode() not in raw and first["token"].encode() not in raw


def test_another_key_or_none_is_still_refused(app):
    assert call(app, "POST", "/api/session", start("p1", KEY))[0] == 201
    for body in (start("p1", OTHER), start("p1")):
        status, data = call(app, "POST", "/api/session", body)
        assert (status, data["reason"]) == (409, "already_started")
    # the key belongs to p1: another participant sending it gets a session of
    # their own, with another token
    status, other = call(app, "POST", "/api/session", start("p2", KEY))
    assert status == 201
    assert len({row[0] for row in sessions(app.db_path)}) == 2
    status, first = call(app, "POST", "/api/session", start("p1", KEY))
    assert status == 200 and first["token"] != other["token"]


def test_a_participant_id_with_a_line_break_is_not_another_participant(app):
    """``p1\n`` passed the ID check (``$`` matches before a final line break),
    so it opened a second session for p1."""
    assert call(app, "POST", "/api/session", start("p1", KEY))[0] == 201
    status, data = call(app, "POST", "/api/session", start("p1\n", OTHER))
    assert status == 400
    assert data["error"] == "participant must be 1-64 letters, digits, - or _"
    assert [row[1] for row in sessions(app.db_path)] == ["p1"]


def test_a_completed_or_returned_session_is_not_reopened(app):
    status, first = call(app, "POST", "/api/session", start("p1", KEY))
    sql = "UPDATE sessions SET completed_s = 1 WHERE session_id = ?"
    update(app.db_path, sql, first["session_id"])
    status, data = call(app, "POST", "/api/session", start("p1", KEY))
    assert (status, data["reason"]) == (409, "already_completed")
    # returned: the ID is free again, and the key opens a new session
    status, second = call(app, "POST", "/api/session", start("p2", KEY))
    sql = "UPDATE sessions SET returned_s = 1 WHERE session_id = ?"
    update(app.db_path, sql, second["session_id"])
    status, third = call(app, "POST", "/api/session", start("p2", KEY))
    assert status == 201 and third["session_id"] != second["session_id"]


def test_without_a_participant_the_key_alone_identifies_the_retry(app):
    status, first = call(app, "POST", "/api/session", start(None, KEY))
    assert status == 201
    status, again = call(app, "POST", "/api/session", start(None, KEY))
    assert (status, again["session_id"]) == (200, first["session_id"])
    # without the key, or with another one, it is a new session as before
    assert call(app, "POST", "/api/session", start(None))[0] == 201
    assert call(app, "POST", "/api/session", start(None, OTHER))[0] == 201
    # a participant's session is not found by a request without an ID
    assert call(app, "POST", "/api/session", start("p1", "p" * 22))[0] == 201
    assert call(app, "POST", "/api/session", start(None, "p" * 22))[0] == 201
    assert len(sessions(app.db_path)) == 5


def test_a_retry_passes_the_session_limit(rating_study, tmp_path):
    app = make_app(
        rating_study,
        db_path=tmp_path / "limited.sqlite",
        clock=FakeClock(),
        sessions_per_address=1,
    )
    try:
        assert call(app, "POST", "/api/session", start("p1", KEY))[0] == 201
        for _ in range(3):  # neither refused nor counted
            assert call(app, "POST", "/api/session", start("p1", KEY))[0] == 200
        status, data = call(app, "POST", "/api/session", start("p2", OTHER))
        assert (status, data["reason"]) == (429, "too_many_sessions")
    finally:
        app.close()


def test_the_event_log_marks_the_retry(rating_study, tmp_path):
    log = tmp_path / "events.jsonl"
    app = make_app(
        rating_study,
        db_path=tmp_path / "logged.sqlite",
        clock=FakeClock(),
        log_path=log,
    )
    try:
        _, first = call(app, "POST", "/api/session", start("p1", KEY))
        call(app, "POST", "/api/session", start("p1", KEY))
        call(app, "POST", "/api/session", start("p1", OTHER))
    finally:
        app.close()
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert [
        (e["event"], e["status"], e["session"], e.get("duplicate")) for e in events
    ] == [
        ("created", 201, first["session_id"], None),
        ("created", 200, first["session_id"], True),
        ("refused", 409, None, None),
    ]


@pytest.mark.parametrize(
    "attempt", ["k" * 21, "k" * 65, "k" * 21 + ".", "k" * 21 + "\n", 12345, True]
)
def test_a_malformed_attempt_key_gets_400(app, attempt):
    status, data = call(app, "POST", "/api/session", start("p1", attempt))
    assert status == 400
    assert data["error"] == "attempt must be 22-64 letters, digits, - or _"
    assert sessions(app.db_path) == []


def test_a_database_without_the_column_gets_it(rating_study, tmp_path):
    db = tmp_path / "old.sqlite"
    make_app(rating_study, db_path=db).close()
    with sqlite3.connect(db) as connection:  # as a stecflow without attempt keys
        connection.execute("DROP INDEX sessions_by_attempt")
        connection.execute("ALTER TABLE sessions DROP COLUMN attempt_sha256")
    app = make_app(rating_study, db_path=db, clock=FakeClock())
    try:
        assert call(app, "POST", "/api/session", start("p1", KEY))[0] == 201
        assert call(app, "POST", "/api/session", start("p1", KEY))[0] == 200
    finally:
        app.close()
    with sqlite3.connect(db) as connection:
        assert connection.execute(
            "SELECT value FROM meta WHERE key = 'schema_version'"
        ).fetchone() == ("3",)


# --------------------------------------------------------------------------- sockets


def _request(body: dict[str, Any]) -> bytes:
    data = json.dumps(body).encode()
    return (
        b"POST /api/session HTTP/1.0\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\n"
        b"Content-Length: " + str(len(data)).encode() + b"\r\n\r\n" + data
    )


def _send_and_hang_up(port: int, body: dict[str, Any]) -> None:
    """Send a request and close the connection without reading the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(_request(body))


def _wait_for_sessions(db: Path, count: int) -> list[tuple[Any, ...]]:
    deadline = time.monotonic() + 10
    while len(rows := sessions(db)) < count:
        assert time.monotonic() < deadline, "the server did not commit the session"
        time.sleep(0.02)
    return rows


def test_a_lost_reply_does_not_lock_the_participant_out(serve, rating_study, tmp_path):
    client, _ = serve(rating_study)
    db = tmp_path / "responses.sqlite"
    _send_and_hang_up(client.port, start("p1", KEY))
    ((session_id, *_),) = _wait_for_sessions(db, 1)  # committed, answer lost
    status, data, _ = client.call("POST", "/api/session", start("p1", KEY))
    assert (status, data["session_id"], data["answered"]) == (200, session_id, [])
    status, state, _ = client.call("GET", "/api/session", token=data["token"])
    assert (status, state["session_id"]) == (200, session_id)
    # anyone else sending the participant's ID is still refused
    for body in (start("p1", OTHER), start("p1")):
        status, refused, _ = client.call("POST", "/api/session", body)
        assert (status, refused["reason"]) == (409, "already_started")
    # without a key, the lost answer still locks the participant out (as before)
    _send_and_hang_up(client.port, start("p2"))
    _wait_for_sessions(db, 2)
    status, refused, _ = client.call("POST", "/api/session", start("p2"))
    assert (status, refused["reason"]) == (409, "already_started")
    assert len(sessions(db)) == 2


def test_lost_replies_under_load(serve, rating_study, tmp_path):
    """Forty participants at once each lose the first answer and retry."""
    import concurrent.futures

    client, _ = serve(rating_study, sessions_per_address=0)
    db = tmp_path / "responses.sqlite"
    keys = {f"p{k:02d}": f"{k:02d}" + "a" * 30 for k in range(40)}

    def attempt(participant: str) -> tuple[int, str]:
        body = start(participant, keys[participant])
        _send_and_hang_up(client.port, body)
        status, data, _ = client.call("POST", "/api/session", body)
        return status, data.get("session_id")

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = dict(zip(keys, pool.map(attempt, keys), strict=True))
    rows = _wait_for_sessions(db, 40)
    assert len(rows) == 40  # one session each, however the two requests raced
    by_participant = {participant: session for session, participant, *_ in rows}
    for participant, (status, session_id) in results.items():
        assert status in (200, 201)  # 201 if the retry overtook the first request
        assert session_id == by_participant[participant]

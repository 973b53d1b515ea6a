"""Tests of stecflow.studies.server against a real server on 127.0.0.1 (in a thread)."""

from __future__ import annotations

import csv
import http.client
import json
import socket
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from stecflow.studies.server import (
    CollectionError,
    export_responses,
    load_study,
    main,
    make_app,
    read_responses,
)
from stecflow.studies.settings import RESPONSE_COLUMNS
from tests.browser.studykit import build_demo_study


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def rating_study(tmp_path_factory) -> Path:
    return build_demo_study(tmp_path_factory.mktemp("rating"), task="rating")


@pytest.fixture(scope="module")
def identification_study(tmp_path_factory) -> Path:
    return build_demo_study(
        tmp_path_factory.mktemp("identification"),
        task="identification",
        variant="read_first",
        study="ident",
    )


class Client:
    """A tiny HTTP client for one server."""

    def __init__(self, port: int) -> None:
        self.port = port

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        *,
        raw: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Any, dict[str, str]]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        sent = dict(headers or {})
        data = raw
        if body is not None:
            data = json.dumps(body).encode()
            sent.setdefault("Content-Type", "application/json")
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        payload = response.read()
        connection.close()
        try:
            decoded = json.loads(payload)
        except ValueError:
            decoded = payload
        return response.status, decoded, response.headers  # any case

    def session(self, participant: str | None = None) -> dict[str, Any]:
        status, data, _ = self.call(
            "POST", "/api/session", {"participant": participant}
        )
        assert status == 201, data
        return data


def _doc(study: Path) -> dict[str, Any]:
    """The study's key: every trial with its item, system, answer and labels."""
    return json.loads((study / "stimuli-key.json").read_text())


def label_of(trial: dict[str, Any], entity: str) -> str:
    """The label the page shows for an entity of a trial (its key's labels)."""
    return next(k for k, v in trial["labels"].items() if v == entity)


def _trials(study: Path, list_id: str) -> list[dict[str, Any]]:
    return next(x for x in _doc(study)["lists"] if x["list"] == list_id)["trials"]


def rating_payload(trial: dict[str, Any], adequacy: int = 70, fluency: int = 40):
    return {
        "order": trial["order"],
        "trial": trial["id"],
        "adequacy": adequacy,
        "fluency": fluency,
        "rt_ms": 1234.5,
    }


def identification_payload(trial: dict[str, Any], chosen: str | None = None):
    return {
        "order": trial["order"],
        "trial": trial["id"],
        "chosen_entity": label_of(trial, chosen or trial["target"]),
        "cant_tell": False,
        "timeout": False,
        "reading_time_ms": 812.3,
        "identification_time_ms": 1500.0,
        "rt_ms": 2312.3,
        "audio_onset_ms": None,
        "click_x": 0.25,
        "click_y": 0.75,
    }


def answer_all(client: Client, study: Path, session: dict[str, Any]) -> None:
    for trial in _trials(study, session["list"]):
        status, data, _ = client.call(
            "POST", "/api/trial", rating_payload(trial), session["token"]
        )
        assert status in (200, 201), data


# --------------------------------------------------------------------------- lists


def test_lists_fill_evenly_in_list_order(serve, rating_study):
    client, _ = serve(rating_study)
    first = [client.session()["list"] for _ in range(3)]
    assert first == ["L01", "L02", "L03"]
    # every list in use once: ties go to the earlier list
    fourth = client.session()
    assert fourth["list"] == "L01"
    # a list completed once is "used" like a list in progress, but among lists
    # used equally often the one with fewer completions comes first
    client2 = client
    l02 = client2.session()  # L02: second session
    assert l02["list"] == "L02"
    answer_all(client, rating_study, l02)
    status, data, _ = client.call("POST", "/api/complete", {}, l02["token"])
    assert status == 200 and len(data["completion_code"]) == 8
    assert client.session()["list"] == "L03"


def test_concurrent_sessions_spread_over_the_lists(serve, rating_study):
    # 30 sessions from one address: more than the default per-address limit
    client, _ = serve(rating_study, sessions_per_address=0)
    lists: list[str] = []
    lock = threading.Lock()

    def create() -> None:
        data = client.session()
        with lock:
            lists.append(data["list"])

    threads = [threading.Thread(target=create) for _ in range(30)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(lists) == sorted(["L01", "L02", "L03"] * 10)


def test_abandoned_sessions_release_their_list(serve, rating_study):
    clock = FakeClock()
    client, _ = serve(rating_study, abandon_after_s=100, clock=clock)
    a, b, c = client.session(), client.session(), client.session()
    assert [a["list"], b["list"], c["list"]] == ["L01", "L02", "L03"]
    clock.now += 80
    for session in (a, c):  # A and C keep answering; B falls silent
        trial = _trials(rating_study, session["list"])[0]
        status, _, _ = client.call(
            "POST", "/api/trial", rating_payload(trial), session["token"]
        )
        assert status == 201
    clock.now += 50  # B silent for 130 s > 100 s
    d = client.session()
    assert d["list"] == "L02", "the abandoned list goes to the next participant"
    # B may still come back and go on; its rows are labelled in the export
    status, state, _ = client.call("GET", "/api/session", token=b["token"])
    assert status == 200 and state["list"] == "L02" and state["answered"] == []


def test_study_full(serve, rating_study):
    client, _ = serve(rating_study, max_sessions=2)
    client.session()
    client.session()
    status, data, _ = client.call("POST", "/api/session", {})
    assert status == 409 and "no more participants" in data["error"]


# --------------------------------------------------------------------------- sessions


def test_resume_returns_answered_trials_and_duplicates_never_overwrite(
    serve, rating_study, tmp_path
):
    client, _ = serve(rating_study)
    session = client.session("P-1")
    token = session["token"]
    trials = _trials(rating_study, session["list"])
    for trial in trials[:3]:
        status, data, _ = client.call(
            "POST", "/api/trial", rating_payload(trial), token
        )
        assert (status, data["stored"]) == (201, True)
    status, state, _ = client.call("GET", "/api/session", token=token)
    assert status == 200
    assert state["answered"] == [t["order"] for t in trials[:3]]
    assert state["list"] == session["list"] and state["completed"] is False
    assert "token" not in state
    again = rating_payload(trials[1], adequacy=1, fluency=1)
    status, data, _ = client.call("POST", "/api/trial", again, token)
    assert (status, data) == (200, {"duplicate": True, "order": 2, "stored": False})
    rows = read_responses(rating_study, db_path=tmp_path / "responses.sqlite")
    assert [(r["order"], r["adequacy"]) for r in rows] == [(1, 70), (2, 70), (3, 70)]


def test_completion_needs_every_trial_and_is_idempotent(serve, rating_study):
    client, _ = serve(rating_study)
    session = client.session()
    token = session["token"]
    trials = _trials(rating_study, session["list"])
    client.call("POST", "/api/trial", rating_payload(trials[0]), token)
    status, data, _ = client.call("POST", "/api/complete", {}, token)
    assert status == 409
    assert data["missing"] == [t["order"] for t in trials[1:]]
    answer_all(client, rating_study, session)
    status, first, _ = client.call("POST", "/api/complete", {}, token)
    status2, second, _ = client.call("POST", "/api/complete", {}, token)
    assert (status, status2) == (200, 200) and first == second
    status, state, _ = client.call("GET", "/api/session", token=token)
    assert state["completed"] is True
    assert state["completion_code"] == first["completion_code"]


def test_tokens_isolate_sessions(serve, rating_study, tmp_path):
    client, _ = serve(rating_study)
    alice, bob = client.session("alice"), client.session("bob")
    trial_a = _trials(rating_study, alice["list"])[0]
    status, _, _ = client.call(
        "POST", "/api/trial", rating_payload(trial_a), alice["token"]
    )
    assert status == 201
    status, state, _ = client.call("GET", "/api/session", token=bob["token"])
    assert state["answered"] == [] and state["session_id"] != alice["session_id"]
    for token in (None, "", "x" * 43, alice["token"][:-1] + "?", "' OR 1=1 --" * 3):
        status, data, _ = client.call("GET", "/api/session", token=token)
        assert status == 403, token
        status, data, _ = client.call(
            "POST", "/api/trial", rating_payload(trial_a), token
        )
        assert status == 403, token
    status, _, _ = client.call(
        "GET", "/api/session", headers={"Authorization": "Basic abc"}
    )
    assert status == 403
    rows = read_responses(rating_study, db_path=tmp_path / "responses.sqlite")
    assert [(r["participant"], r["order"]) for r in rows] == [("alice", 1)]
    # the token is never stored
    db = sqlite3.connect(tmp_path / "responses.sqlite")
    dump = "\n".join(db.iterdump())
    db.close()
    assert alice["token"] not in dump and bob["token"] not in dump


def test_a_trial_must_match_the_sessions_list(serve, rating_study):
    client, _ = serve(rating_study)
    session = client.session()
    trials = _trials(rating_study, session["list"])
    # the same order of another list has another ID: IDs are per list
    other = next(t for t in _trials(rating_study, "L02") if t["order"] == 1)
    wrong = rating_payload(trials[0]) | {"trial": other["id"]}
    status, data, _ = client.call("POST", "/api/trial", wrong, session["token"])
    assert status == 400 and f"is {trials[0]['id']}, not" in data["error"]
    # a page that sends the item and system is refused: they are the key's
    status, data, _ = client.call(
        "POST",
        "/api/trial",
        rating_payload(trials[0]) | {"item": trials[0]["item"]},
        session["token"],
    )
    assert status == 400 and "unknown field(s): item" in data["error"]
    status, data, _ = client.call(
        "POST",
        "/api/trial",
        rating_payload(trials[0]) | {"order": 999},
        session["token"],
    )
    assert status == 400 and "has no trial 999" in data["error"]


# --------------------------------------------------------------------------- input


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"adequacy": 0}, "adequacy must be an integer from 1 to 100"),
        ({"adequacy": 101}, "adequacy must be an integer from 1 to 100"),
        ({"fluency": "50"}, "fluency must be an integer from 1 to 100"),
        ({"fluency": True}, "fluency must be an integer from 1 to 100"),
        ({"adequacy": 50.5}, "adequacy must be an integer"),
        ({"rt_ms": -1}, "rt_ms must be between"),
        ({"rt_ms": None}, "rt_ms is required"),
        ({"order": "1"}, "order must be an integer"),
        ({"correct": True}, "unknown field(s): correct"),
        ({"chosen_entity": "e1"}, "does not belong to a rating trial"),
    ],
)
def test_rating_answers_are_checked(serve, rating_study, change, message):
    client, _ = serve(rating_study)
    session = client.session()
    trial = _trials(rating_study, session["list"])[0]
    payload = rating_payload(trial) | change
    status, data, _ = client.call("POST", "/api/trial", payload, session["token"])
    assert status == 400
    assert message in data["error"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"chosen_entity": "nobody"}, "not an entity of this trial"),
        ({"timeout": True}, "exactly one of"),
        ({"chosen_entity": None}, "exactly one of"),
        ({"click_x": 1.5}, "click_x must be between 0 and 1"),
        ({"reading_time_ms": None}, "reading_time_ms is required"),
        ({"identification_time_ms": float("inf")}, "too large for a float"),
        ({"adequacy": 50}, "does not belong to identification"),
    ],
)
def test_identification_answers_are_checked(
    serve, identification_study, change, message
):
    client, _ = serve(identification_study)
    session = client.session()
    trial = _trials(identification_study, session["list"])[0]
    payload = identification_payload(trial) | change
    raw = json.dumps(payload).replace("Infinity", "1e999").encode()
    status, data, _ = client.call(
        "POST",
        "/api/trial",
        token=session["token"],
        raw=raw,
        headers={"Content-Type": "application/json"},
    )
    assert status == 400, data
    assert message in data["error"] or (
        "between" in data["error"] and "identification_time_ms" in data["error"]
    )


def test_correctness_is_computed_by_the_server(serve, identification_study, tmp_path):
    client, _ = serve(identification_study)
    session = client.session()
    trials = _trials(identification_study, session["list"])
    token = session["token"]
    wrong = next(
        e["id"] for e in trials[1]["entities"] if e["id"] != trials[1]["target"]
    )
    timeout = identification_payload(trials[2]) | {
        "chosen_entity": None,
        "timeout": True,
        "identification_time_ms": None,
        "rt_ms": None,
        "click_x": None,
        "click_y": None,
    }
    cant = identification_payload(trials[3]) | {
        "chosen_entity": None,
        "cant_tell": True,
    }
    for payload in (
        identification_payload(trials[0]),
        identification_payload(trials[1], wrong),
        timeout,
        cant,
    ):
        status, data, _ = client.call("POST", "/api/trial", payload, token)
        assert status == 201, data
    rows = read_responses(identification_study, db_path=tmp_path / "responses.sqlite")
    got = [
        (r["chosen_entity"], r["correct"], r["timeout"], r["cant_tell"]) for r in rows
    ]
    assert got == [
        (trials[0]["target"], True, False, False),
        (wrong, False, False, False),
        (None, None, True, False),
        (None, False, False, True),
    ]
    assert rows[0]["click_x"] == 0.25 and rows[0]["reading_time_ms"] == 812.3


def test_bodies_are_limited_and_must_be_json_objects(serve, rating_study):
    client, _ = serve(rating_study, max_body_bytes=2048)
    session = client.session()
    token = session["token"]
    big = json.dumps({"participant": "x" * 20_000}).encode()
    status, data, _ = client.call(
        "POST", "/api/session", raw=big, headers={"Content-Type": "application/json"}
    )
    assert status == 413 and "2048 bytes" in data["error"]
    status, _, _ = client.call(
        "POST",
        "/api/trial",
        token=token,
        raw=b"{" + b" " * 3000 + b"}",
        headers={"Content-Type": "application/json"},
    )
    assert status == 413
    for raw in (b"{not json", b"[1, 2]", b'"text"', b"\xff\xfe", b"", b"[" * 1500):
        status, data, _ = client.call(
            "POST",
            "/api/trial",
            token=token,
            raw=raw,
            headers={"Content-Type": "application/json"},
        )
        assert status in (400, 413), raw
    status, data, _ = client.call(
        "POST",
        "/api/trial",
        token=token,
        raw=b"{}",
        headers={"Content-Type": "text/plain"},
    )
    assert status == 415
    # no Content-Length at all
    with socket.create_connection(("127.0.0.1", client.port), timeout=10) as sock:
        sock.sendall(
            b"POST /api/session HTTP/1.0\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\n\r\n{}"
        )
        answer = sock.recv(4096)
    assert answer.startswith(b"HTTP/1.0 411")
    # a huge claimed length is refused before reading
    with socket.create_connection(("127.0.0.1", client.port), timeout=10) as sock:
        sock.sendall(
            b"POST /api/session HTTP/1.0\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 999999999\r\n\r\n{}"
        )
        answer = sock.recv(4096)
    assert answer.startswith(b"HTTP/1.0 413")
    status, _, _ = client.call("POST", "/api/session", {"participant": "a b"})
    assert status == 400
    status, _, _ = client.call("POST", "/api/session", {"list": "L02"})
    assert status == 400


def test_routes_methods_and_static_files(serve, rating_study):
    (rating_study / "web" / "secret.sqlite").write_bytes(b"not served")
    try:
        client, _ = serve(rating_study)
        status, html, headers = client.call("GET", "/")
        assert status == 200 and b"<!DOCTYPE html>" in html
        assert headers["Content-Type"].startswith("text/html")
        assert "default-src 'self'" in headers["Content-Security-Policy"]
        assert headers["X-Content-Type-Options"] == "nosniff"
        for path in (
            "/stimuli.js",
            "/experiment.js",
            "/experiment.css",
            "/stimuli.json",
        ):
            assert client.call("GET", path)[0] == 200, path
        image = _doc(rating_study)["lists"][0]["trials"][0]["entities"][0]["image"]
        status, data, headers = client.call("GET", "/" + image)
        assert status == 200 and headers["Content-Type"] == "image/svg+xml"
        for path in (
            "/secret.sqlite",
            "/../responses.sqlite",
            "/%2e%2e/responses.sqlite",
            "/images/../../responses.sqlite",
            "/.hidden.js",
            "/nothing.js",
            "/images",
        ):
            assert client.call("GET", path)[0] == 404, path
        assert client.call("DELETE", "/api/session")[0] == 405
        assert client.call("POST", "/index.html", {})[0] == 405
        assert client.call("GET", "/api/unknown")[0] == 404
        status, ping, _ = client.call("GET", "/api/ping")
        assert ping == {
            "sha256": load_study(rating_study).sha256,
            "study": "demo-study",
            "task": "rating",
            "variant": None,
            "require_participant": False,  # the page refuses at once without an ID
        }
    finally:
        (rating_study / "web" / "secret.sqlite").unlink()


# --------------------------------------------------------------------------- export


def test_export_has_the_documented_columns(serve, rating_study, tmp_path):
    client, _ = serve(rating_study)
    done = client.session("P-done")
    answer_all(client, rating_study, done)
    client.call("POST", "/api/complete", {}, done["token"])
    partial = client.session()
    trial = _trials(rating_study, partial["list"])[0]
    client.call("POST", "/api/trial", rating_payload(trial, 12, 99), partial["token"])
    out = tmp_path / "export" / "responses.tsv"
    n = export_responses(rating_study, out, db_path=tmp_path / "responses.sqlite")
    with open(out, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        assert tuple(reader.fieldnames) == (*RESPONSE_COLUMNS, "answered_utc")
        rows = list(reader)
    n_trials = len(_trials(rating_study, done["list"]))
    assert n == len(rows) == n_trials + 1
    assert [r["list"] for r in rows] == ["L01"] * n_trials + ["L02"]
    first = rows[0]
    assert first["study"] == "demo-study" and first["task"] == "rating"
    assert first["variant"] == "" and first["session_status"] == "completed"
    assert first["participant"] == "P-done" and first["practice"] == "true"
    assert (first["adequacy"], first["fluency"], first["rt_ms"]) == (
        "70",
        "40",
        "1234.5",
    )
    assert (
        first["session"] == done["session_id"] and done["token"] not in out.read_text()
    )
    assert rows[-1]["session_status"] == "in_progress"
    assert (rows[-1]["adequacy"], rows[-1]["fluency"]) == ("12", "99")
    test_only = tmp_path / "test-only.tsv"
    n = export_responses(
        rating_study,
        test_only,
        db_path=tmp_path / "responses.sqlite",
        include_practice=False,
    )
    assert n == n_trials + 1 - 2 - 1  # two practice trials in L01, one in L02
    assert (
        main(
            [
                "export",
                str(rating_study),
                "--out",
                str(tmp_path / "cli.tsv"),
                "--db",
                str(tmp_path / "responses.sqlite"),
            ]
        )
        == 0
    )
    assert (tmp_path / "cli.tsv").read_bytes() == out.read_bytes()


def test_database_is_pinned_to_its_stimuli(
    tmp_path, rating_study, identification_study
):
    db = tmp_path / "responses.sqlite"
    make_app(rating_study, db_path=db).close()
    make_app(rating_study, db_path=db).close()  # same stimuli: fine
    with pytest.raises(CollectionError, match="studies are frozen"):
        make_app(identification_study, db_path=db)
    with pytest.raises(CollectionError, match="other stimuli"):
        read_responses(identification_study, db_path=db)
    with pytest.raises(CollectionError, match="nothing collected yet"):
        read_responses(rating_study, db_path=tmp_path / "none.sqlite")
    with pytest.raises(CollectionError, match="no built study"):
        load_study(tmp_path)
    assert main(["export", str(tmp_path), "--out", str(tmp_path / "x.tsv")]) == 2


def test_default_database_sits_beside_the_web_folder(tmp_path):
    study = build_demo_study(tmp_path, task="rating", study="defaults")
    app = make_app(study / "web")
    try:
        assert app.db_path == study / "responses.sqlite"
        assert app.db_path.is_file()
        mode = sqlite3.connect(app.db_path).execute("PRAGMA journal_mode").fetchone()
        assert mode == ("wal",)
    finally:
        app.close()

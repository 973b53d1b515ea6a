"""Hardening of stecflow.studies.server: malformed bodies, time-outs, load and session limits.

Every test runs a real server on 127.0.0.1 in a thread (see test_server.py).
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from stecflow import cli
from stecflow.studies import server as server_module
from stecflow.studies.server import (
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_READ_TIMEOUT_S,
    DEFAULT_SESSION_WINDOW_S,
    DEFAULT_SESSIONS_PER_ADDRESS,
    CollectionError,
    make_server,
    read_responses,
)
from stecflow.studies.server import cli as server_cli
from tests.browser.studykit import build_demo_study
from tests.unit.test_server import Client, FakeClock, _trials, rating_payload


@pytest.fixture(scope="module")
def rating_study(tmp_path_factory) -> Path:
    return build_demo_study(tmp_path_factory.mktemp("hardening"), task="rating")


def raw_exchange(port: int, request: bytes, timeout: float = 10.0) -> bytes:
    """Send *request* on a fresh connection; return all the server sends back."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def post_raw(client: Client, path: str, raw: bytes, token: str | None = None):
    return client.call(
        "POST", path, token=token, raw=raw, headers={"Content-Type": "application/json"}
    )


# --------------------------------------------------------------------------- bodies

HUGE = "9" * 5000  # beyond Python's 4,300-digit limit of int("...")
DIGITS_400 = "1" + "0" * 400  # an int too large for float()


def _trial_body(study: Path, list_id: str, **change: str) -> bytes:
    """The JSON of a valid rating answer with some values replaced by raw text."""
    payload = rating_payload(_trials(study, list_id)[0])
    text = json.dumps(payload)
    for name, raw in change.items():
        text = text.replace(
            f'"{name}": {json.dumps(payload[name])}', f'"{name}": {raw}'
        )
    return text.encode()


@pytest.mark.parametrize(
    ("field", "raw", "message"),
    [
        ("order", HUGE, "more than 20 digits"),
        ("rt_ms", HUGE, "more than 20 digits"),
        ("rt_ms", DIGITS_400, "more than 20 digits"),
        ("rt_ms", "NaN", "has NaN, which is not JSON"),
        ("rt_ms", "Infinity", "has Infinity, which is not JSON"),
        ("rt_ms", "-Infinity", "has -Infinity, which is not JSON"),
        ("rt_ms", "1e400", "too large for a float"),
        ("adequacy", "70.0", "adequacy must be an integer from 1 to 100"),
        ("rt_ms", "99999999999999999999", "rt_ms must be between 0 and 3.6e+06"),
    ],
)
def test_malformed_numbers_get_400(serve, rating_study, field, raw, message):
    client, _ = serve(rating_study)
    session = client.session()
    body = _trial_body(rating_study, session["list"], **{field: raw})
    assert raw in body.decode()
    status, data, headers = post_raw(client, "/api/trial", body, session["token"])
    assert (status, headers["Content-Type"]) == (400, "application/json")
    assert message in data["error"]
    # a huge number in the session body, too
    body = b'{"participant": ' + raw.encode() + b"}"
    status, data, _ = post_raw(client, "/api/session", body)
    assert status == 400 and set(data) == {"error"}


@pytest.mark.parametrize(
    ("raw", "status", "message"),
    [
        (b"[" * 10_000, 400, "not valid JSON"),
        (b'{"a": ' * 2000 + b"1" + b"}" * 2000, 400, "not valid JSON"),
        (b"[1, 2]", 400, "must be a JSON object"),
        (b"null", 400, "must be a JSON object"),
        (b"12", 400, "must be a JSON object"),
        (b'{"order": 1', 400, "not valid JSON"),
        (b'\xff{"order": 1}', 400, "not valid JSON"),
        (b'{"item": "\xc3"}', 400, "not valid JSON"),
        (b"\xef\xbb\xbf{}", 400, "not valid JSON"),
        (b'{"order": 1}' + b" " * 20_000, 413, "limited to 16384 bytes"),
    ],
)
def test_malformed_bodies_get_4xx(serve, rating_study, raw, status, message):
    client, _ = serve(rating_study)
    token = client.session()["token"]
    got, data, _ = post_raw(client, "/api/trial", raw, token)
    assert got == status and message in data["error"]


@pytest.mark.parametrize(
    ("length", "answer"),
    [
        (b"\xb2", b"HTTP/1.0 400"),  # a superscript two: str.isdigit() says yes
        (b"-1", b"HTTP/1.0 400"),
        (b"1e3", b"HTTP/1.0 400"),
        (b"9" * 5000, b"HTTP/1.0 400"),  # int() refuses over 4,300 digits
        (b"9" * 20, b"HTTP/1.0 413"),
    ],
)
def test_malformed_content_length_gets_4xx(serve, rating_study, length, answer):
    client, _ = serve(rating_study)
    reply = raw_exchange(
        client.port,
        b"POST /api/session HTTP/1.0\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: " + length + b"\r\n\r\n{}",
    )
    assert reply.startswith(answer), reply[:80]
    assert reply.endswith(b"}") and b'"error": ' in reply


def test_wrong_content_types_get_415(serve, rating_study):
    client, _ = serve(rating_study)
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "*/*"):
        status, data, _ = client.call(
            "POST", "/api/session", raw=b"{}", headers={"Content-Type": content_type}
        )
        assert status == 415 and "application/json" in data["error"]


# --------------------------------------------------------------------------- time-outs


def test_idle_connections_are_closed_after_the_read_timeout(serve, rating_study):
    client, _ = serve(rating_study, read_timeout_s=0.5)
    for sent in (b"", b"GET /api/ping HTTP/1.0\r\n"):  # nothing; no end of headers
        with socket.create_connection(("127.0.0.1", client.port), timeout=10) as sock:
            sock.sendall(sent)
            start = time.monotonic()
            assert sock.recv(1024) == b""  # closed without an answer
            assert 0.4 < time.monotonic() - start < 5
    # a body shorter than its Content-Length: closed once the body stops
    # coming (the application never sees a partial body)
    with socket.create_connection(("127.0.0.1", client.port), timeout=10) as sock:
        sock.sendall(
            b"POST /api/session HTTP/1.0\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 10\r\n\r\n{}"
        )
        start = time.monotonic()
        assert sock.recv(65536) == b""
        assert 0.4 < time.monotonic() - start < 5
    assert client.call("GET", "/api/ping")[0] == 200


def test_connections_beyond_the_bound_get_503(serve, rating_study):
    client, _ = serve(rating_study, max_connections=2, read_timeout_s=10)
    idle = [socket.create_connection(("127.0.0.1", client.port)) for _ in range(2)]
    try:
        start = time.monotonic()
        status, data, headers = client.call("GET", "/api/ping")
        assert time.monotonic() - start < 2  # at once, not after the time-out
        assert status == 503 and headers["Retry-After"] == "1"
        assert data == {"error": "the server is busy; please try again in a moment"}
        # a client that sent nothing yet gets the same answer
        reply = raw_exchange(client.port, b"")
        assert reply.startswith(b"HTTP/1.0 503 Service Unavailable\r\n")
    finally:
        for sock in idle:
            sock.close()
    # the closed connections free their slots, and so do answered requests: a
    # leak would leave no slot after the second request
    for _ in range(10):
        deadline = time.monotonic() + 5
        while client.call("GET", "/api/ping")[0] != 200:
            assert time.monotonic() < deadline, "the slots were not released"
            time.sleep(0.05)


def test_limits_must_be_sensible(rating_study, tmp_path):
    db = tmp_path / "responses.sqlite"
    for options, field in (
        ({"read_timeout_s": 0}, "read_timeout_s"),
        ({"max_connections": 0}, "max_connections"),
        ({"sessions_per_address": -1}, "sessions_per_address"),
        ({"session_window_s": 0}, "session_window_s"),
    ):
        with pytest.raises(CollectionError, match=field):
            make_server(rating_study, port=0, db_path=db, **options)


# --------------------------------------------------------------------------- sessions


def test_sessions_per_address_are_limited_and_the_study_cap_still_applies(
    serve, rating_study
):
    clock = FakeClock()
    client, _ = serve(
        rating_study,
        clock=clock,
        sessions_per_address=2,
        session_window_s=60,
        max_sessions=3,
    )
    client.session()
    client.session()
    status, data, headers = client.call("POST", "/api/session", {})
    assert (status, headers["Retry-After"], data["retry_after_s"]) == (429, "60", 60)
    assert "too many sessions were started from your network" in data["error"]
    clock.now += 30
    status, _, headers = client.call("POST", "/api/session", {})
    assert (status, headers["Retry-After"]) == (429, "30")
    clock.now += 31  # the first two are out of the window
    assert client.session()["list"] == "L03"
    clock.now += 61
    for _ in range(3):  # full: 409, and a refused attempt does not count as one
        status, data, _ = client.call("POST", "/api/session", {})
        assert status == 409 and "no more participants" in data["error"]


def test_addresses_behind_a_proxy(serve, rating_study, tmp_path):
    client, _ = serve(rating_study, sessions_per_address=1, behind_proxy=True)

    def create(forwarded: str) -> int:
        headers = {"X-Forwarded-For": forwarded}
        return client.call("POST", "/api/session", {}, headers=headers)[0]

    assert create("192.0.2.1") == 201
    assert create("192.0.2.1") == 429
    assert create("198.51.100.7, 192.0.2.1") == 429  # only the proxy's entry counts
    assert create("192.0.2.1, 192.0.2.2") == 201
    assert create("2001:db8::1") == 201
    assert create("2001:db8::2") == 429  # the same /64
    assert create("2001:db8:0:1::1") == 201
    # without behind_proxy the header is the client's word and is ignored
    client, _ = serve(
        rating_study, db_path=tmp_path / "direct.sqlite", sessions_per_address=1
    )
    assert create("192.0.2.10") == 201
    assert create("192.0.2.11") == 429


def test_a_participant_id_can_be_required(serve, rating_study, tmp_path):
    client, _ = serve(rating_study, require_participant=True)
    for body in ({}, {"participant": None}):
        status, data, _ = client.call("POST", "/api/session", body)
        assert status == 400
        assert data["error"].startswith("this study needs your participant ID")
        assert "?PROLIFIC_PID=" in data["error"] and "?pid=" in data["error"]
    status, _, _ = client.call("POST", "/api/session", {"participant": ""})
    assert status == 400
    session = client.session("W-42")
    trial = _trials(rating_study, session["list"])[0]
    status, _, _ = client.call(
        "POST", "/api/trial", rating_payload(trial), session["token"]
    )
    assert status == 201
    rows = read_responses(rating_study, db_path=tmp_path / "responses.sqlite")
    assert [(r["participant"], r["order"]) for r in rows] == [("W-42", 1)]


# --------------------------------------------------------------------------- CLI


def _captured(monkeypatch) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    def fake_serve(study_dir, host="127.0.0.1", port=8000, **options):
        seen.update(options, study_dir=str(study_dir), host=host, port=port)

    # stecflow.cli imports serve from the package when it runs; the server's own
    # command line (stecflow.studies.server.cli) has it imported already
    monkeypatch.setattr(server_module, "serve", fake_serve)
    monkeypatch.setattr(server_cli, "serve", fake_serve)
    # the study itself is checked before serving (tests/unit/test_cli.py)
    monkeypatch.setattr(server_module, "check_study", lambda *args, **kw: None)
    return seen


LIMIT_FLAGS = [
    "--read-timeout",
    "5",
    "--max-connections",
    "7",
    "--sessions-per-address",
    "3",
    "--session-window",
    "90",
    "--require-participant",
    "--behind-proxy",
]
LIMITS = {
    "read_timeout_s": 5.0,
    "max_connections": 7,
    "sessions_per_address": 3,
    "session_window_s": 90.0,
    "require_participant": True,
    "behind_proxy": True,
}
DEFAULTS = {
    "read_timeout_s": DEFAULT_READ_TIMEOUT_S,
    "max_connections": DEFAULT_MAX_CONNECTIONS,
    "sessions_per_address": DEFAULT_SESSIONS_PER_ADDRESS,
    "session_window_s": DEFAULT_SESSION_WINDOW_S,
    "require_participant": False,
    "behind_proxy": False,
}


def test_stecflow_serve_passes_the_limits(monkeypatch, tmp_path, capsys):
    seen = _captured(monkeypatch)
    assert cli.main(["serve", str(tmp_path), *LIMIT_FLAGS]) == 0
    assert {k: seen[k] for k in LIMITS} == LIMITS
    seen.clear()
    assert cli.main(["serve", str(tmp_path)]) == 0
    assert {k: seen[k] for k in DEFAULTS} == DEFAULTS
    seen.clear()
    assert server_module.main(["serve", str(tmp_path), *LIMIT_FLAGS]) == 0
    assert {k: seen[k] for k in LIMITS} == LIMITS
    seen.clear()
    assert server_module.main(["serve", str(tmp_path)]) == 0
    assert {k: seen[k] for k in DEFAULTS} == DEFAULTS
    with pytest.raises(SystemExit):
        cli.main(["serve", "--help"])
    out = capsys.readouterr().out
    for flag in LIMIT_FLAGS[::2][:4] + ["--require-participant", "--behind-proxy"]:
        assert flag in out


def test_both_command_lines_declare_the_serve_options_once(capsys):
    from stecflow.studies.server.options import SERVE_OPTIONS, SERVER_ORDER

    flags = [option.flag for option in SERVE_OPTIONS]
    assert sorted(SERVER_ORDER) == sorted(flags)
    for main in (cli.main, server_module.main):
        with pytest.raises(SystemExit):
            main(["serve", "--help"])
        out = capsys.readouterr().out
        assert all(flag in out for flag in flags), main

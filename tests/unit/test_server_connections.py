"""One client address cannot hold the server's connections (issues 38 and 44).

Real sockets on loopback only: 127.0.0.1 plays the greedy client and 127.0.0.2
(the same machine, bound as the source address) everyone else. Every loop is
bounded and every socket is closed at the end of its test.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from stecflow import cli
from stecflow.studies import server as server_module
from stecflow.studies.server import (
    DEFAULT_CONNECTIONS_PER_ADDRESS,
    DEFAULT_MAX_CONNECTIONS,
    CollectionError,
    make_server,
)
from tests.browser.studykit import build_demo_study
from tests.unit.test_server_hardening import _captured

CROWDED = b"too many connections from your network; please try again in a moment"
BUSY = b"the server is busy; please try again in a moment"


@pytest.fixture(scope="module")
def rating_study(tmp_path_factory) -> Path:
    return build_demo_study(tmp_path_factory.mktemp("connections"), task="rating")


def _connect(port: int, source: str) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(10)
    try:
        sock.bind((source, 0))
        sock.connect(("127.0.0.1", port))
    except OSError as error:
        sock.close()
        if source != "127.0.0.1" and not isinstance(error, TimeoutError):
            pytest.skip(f"cannot use {source} as a source address ({error})")
        raise
    return sock


@contextlib.contextmanager
def held(port: int, source: str, count: int) -> Iterator[list[socket.socket]]:
    """*count* idle connections from *source*, accepted by the server."""
    socks: list[socket.socket] = []
    try:
        for _ in range(count):
            socks.append(_connect(port, source))
        yield socks
    finally:
        for sock in socks:
            sock.close()


def exchange(port: int, source: str, request: bytes) -> tuple[bytes, float]:
    """Send *request* from *source*; the whole answer and the seconds it took."""
    start = time.monotonic()
    with contextlib.closing(_connect(port, source)) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer, time.monotonic() - start


PING = b"GET /api/ping HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n"


def ping(port: int, source: str, forwarded: str | None = None) -> bytes:
    request = PING
    if forwarded is not None:
        request = PING[:-2] + f"X-Forwarded-For: {forwarded}\r\n\r\n".encode()
    answer, took = exchange(port, source, request)
    assert took < 2  # at once, never after the read time-out
    return answer


def wait_until_served(port: int, source: str, forwarded: str | None = None) -> None:
    """Ping until 200 (slots are freed by the server's threads, a moment later;
    while hundreds of closed sockets are still being dropped, a new connection
    may be reset: that too means not yet)."""
    deadline = time.monotonic() + 5
    while True:
        try:
            if ping(port, source, forwarded).startswith(b"HTTP/1.0 200"):
                return
        except ConnectionResetError:
            pass
        assert time.monotonic() < deadline, "the connections were not released"
        time.sleep(0.05)


def test_one_address_cannot_take_every_connection(serve, rating_study):
    client, _ = serve(
        rating_study, max_connections=8, connections_per_address=3, read_timeout_s=10
    )
    port = client.port
    with held(port, "127.0.0.1", 6) as socks:
        # three are served (waiting for a request), the other three refused at
        # once with a 503, without waiting for the read time-out
        time.sleep(0.2)
        refused = []
        for sock in socks[3:]:
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
            refused.append(answer)
        assert all(
            a.startswith(b"HTTP/1.0 503 Service Unavailable\r\n") for a in refused
        )
        assert all(
            b"Retry-After: 1\r\n" in a and a.endswith(CROWDED + b'"}') for a in refused
        )
        answer = ping(port, "127.0.0.1")
        assert answer.startswith(b"HTTP/1.0 503") and CROWDED in answer
        # another address is still served, up to its own cap
        assert ping(port, "127.0.0.2").startswith(b"HTTP/1.0 200 OK\r\n")
        with held(port, "127.0.0.2", 3):
            answer = ping(port, "127.0.0.2")
            assert answer.startswith(b"HTTP/1.0 503") and CROWDED in answer
            assert ping(port, "127.0.0.3").startswith(b"HTTP/1.0 200")
    # closing the idle connections frees their places
    wait_until_served(port, "127.0.0.1")
    for _ in range(10):  # answered requests leave nothing counted behind
        assert ping(port, "127.0.0.1").startswith(b"HTTP/1.0 200")


def test_with_the_defaults_256_idle_sockets_leave_others_served(serve, rating_study):
    """The issue's case: one client opens 256 idle connections."""
    client, _ = serve(rating_study)
    with held(client.port, "127.0.0.1", 256) as socks:
        # the last ones are refused at once, the first 64 are kept waiting
        last = b""
        while chunk := socks[-1].recv(65536):
            last += chunk
        assert last.startswith(b"HTTP/1.0 503") and CROWDED in last
        for _ in range(5):
            assert ping(client.port, "127.0.0.2").startswith(b"HTTP/1.0 200")
    wait_until_served(client.port, "127.0.0.1")


def test_the_global_bound_still_applies(serve, rating_study):
    client, _ = serve(
        rating_study, max_connections=4, connections_per_address=3, read_timeout_s=10
    )
    with held(client.port, "127.0.0.1", 3), held(client.port, "127.0.0.2", 1):
        time.sleep(0.2)
        answer = ping(client.port, "127.0.0.3")
        assert answer.startswith(b"HTTP/1.0 503") and BUSY in answer
    wait_until_served(client.port, "127.0.0.3")


def test_without_a_cap_one_address_takes_everything(serve, rating_study):
    """What the issue saw: one client's idle sockets lock everyone else out."""
    client, _ = serve(
        rating_study, max_connections=4, connections_per_address=0, read_timeout_s=10
    )
    with held(client.port, "127.0.0.1", 4):
        time.sleep(0.2)
        answer = ping(client.port, "127.0.0.2")
        assert answer.startswith(b"HTTP/1.0 503") and BUSY in answer
    wait_until_served(client.port, "127.0.0.2")


def _stalled(port: int, forwarded: str) -> socket.socket:
    """A request through the proxy whose body stops coming."""
    sock = _connect(port, "127.0.0.1")
    sock.sendall(
        b"POST /api/session HTTP/1.0\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: 10\r\n"
        b"X-Forwarded-For: " + forwarded.encode() + b"\r\n\r\n{"
    )
    return sock


def test_behind_a_proxy_stalled_bodies_hold_no_worker(serve, rating_study):
    """Behind a proxy every connection comes from the proxy (127.0.0.1): its
    address is not capped (the proxy's own per-address limit counts, nginx
    limit_conn), and a body that stops coming holds no worker thread: the
    server reads whole requests on its event loop before a worker sees them."""
    client, _ = serve(
        rating_study,
        max_connections=64,
        connections_per_address=2,
        read_timeout_s=10,
        threads=1,
        behind_proxy=True,
    )
    port = client.port
    with held(port, "127.0.0.1", 4):
        stalled = [_stalled(port, "192.0.2.1") for _ in range(8)]
        try:
            time.sleep(0.2)
            for forwarded in ("192.0.2.1", "198.51.100.9, 192.0.2.1", "192.0.2.2"):
                answer = ping(port, "127.0.0.1", forwarded)
                assert answer.startswith(b"HTTP/1.0 200")
        finally:
            for sock in stalled:
                sock.close()


def test_a_stalled_body_is_closed_after_the_read_timeout(serve, rating_study):
    client, _ = serve(rating_study, read_timeout_s=1, behind_proxy=True)
    sock = _stalled(client.port, "192.0.2.1")
    start = time.monotonic()
    try:
        sock.settimeout(10)
        assert sock.recv(65536) == b""  # closed by the server, no answer
    finally:
        sock.close()
    assert 0.5 < time.monotonic() - start < 5


def test_the_cap_must_be_sensible(rating_study, tmp_path):
    with pytest.raises(CollectionError, match="connections_per_address"):
        make_server(
            rating_study,
            port=0,
            db_path=tmp_path / "responses.sqlite",
            connections_per_address=-1,
        )
    assert 0 < DEFAULT_CONNECTIONS_PER_ADDRESS < DEFAULT_MAX_CONNECTIONS


def test_both_command_lines_pass_the_cap(monkeypatch, tmp_path):
    seen = _captured(monkeypatch)
    for main in (cli.main, server_module.main):
        assert main(["serve", str(tmp_path), "--connections-per-address", "5"]) == 0
        assert seen.pop("connections_per_address") == 5
        assert main(["serve", str(tmp_path)]) == 0
        assert seen.pop("connections_per_address") == DEFAULT_CONNECTIONS_PER_ADDRESS

"""Browser tests: Playwright driving Debian's chromium against the built experiment.

The tests skip (with the reason) unless both ``playwright`` (pip) and Debian's
``chromium`` are installed; Playwright's own browser downloads are not used. Every
page is watched: console errors and uncaught exceptions fail the test, and so does
any request to a host other than 127.0.0.1 (such requests are also aborted).
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

# the demo report, built once per session for every report test module (the
# session's one chromium, ``browser``, is a fixture of tests/conftest.py, so that
# tests/deploy shares it: two Playwright instances cannot run in one process)
from tests.browser.reportkit import chromium, demo  # noqa: F401

_NOT_LOCAL = re.compile(r"^(?!https?://127\.0\.0\.1[:/])(?:https?|wss?|ftp)://")


@dataclass
class Watch:
    """A page with everything it logged and requested."""

    page: Any
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)

    def assert_clean(self, *, allow: tuple[str, ...] = ()) -> None:
        """No console errors (except messages containing *allow*), no remote hosts."""
        errors = [e for e in self.errors if not any(a in e for a in allow)]
        assert errors == [], errors
        assert self.blocked == [], self.blocked
        for url in self.requests:
            assert url.startswith(("http://127.0.0.1:", "file://", "data:", "blob:")), (
                url
            )


@pytest.fixture
def watched(browser: Any) -> Iterator[Watch]:
    """A fresh browser context and page, watched for errors and remote requests."""
    context = browser.new_context(
        accept_downloads=True, viewport={"width": 1100, "height": 1000}
    )
    page = context.new_page()
    watch = Watch(page)

    def on_console(message: Any) -> None:
        if message.type == "error":
            watch.errors.append(message.text)

    def block(route: Any) -> None:
        watch.blocked.append(route.request.url)
        route.abort()

    context.route(_NOT_LOCAL, block)
    page.on("console", on_console)
    page.on("pageerror", lambda error: watch.errors.append(f"pageerror: {error}"))
    page.on("request", lambda request: watch.requests.append(request.url))
    page.set_default_timeout(20_000)
    yield watch
    context.close()


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ServerProcess:
    """``python -m stecflow.studies.server serve`` in a subprocess (can be killed and restarted)."""

    def __init__(self, study_dir: Path, db_path: Path, port: int, log: Path) -> None:
        self.study_dir, self.db_path, self.port, self.log = (
            study_dir,
            db_path,
            port,
            log,
        )
        self.url = f"http://127.0.0.1:{port}/"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> ServerProcess:
        handle = open(self.log, "ab")  # noqa: SIM115 - closed with the process
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "stecflow.studies.server",
                "serve",
                str(self.study_dir),
                "--port",
                str(self.port),
                "--db",
                str(self.db_path),
            ],
            stdout=handle,
            stderr=handle,
        )
        handle.close()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(self.log.read_text())
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return self
            time.sleep(0.05)
        raise RuntimeError(f"server did not start: {self.log.read_text()}")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None


@pytest.fixture
def server_process(tmp_path: Path) -> Iterator[Any]:
    """A factory of server subprocesses, all killed at the end of the test."""
    started: list[ServerProcess] = []

    def make(study_dir: Path, db_path: Path, port: int) -> ServerProcess:
        server = ServerProcess(study_dir, db_path, port, tmp_path / "server.log")
        started.append(server)
        return server

    yield make
    for server in started:
        server.kill()

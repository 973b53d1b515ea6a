"""Fixtures shared by the unit tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def serve(tmp_path):
    """Start collection servers in threads; shut them all down at the end.

    ``serve(study, **options)`` returns a JSON client of the server and the server.
    """
    from stecflow.studies.server import make_server
    from tests.unit.test_server import Client

    servers = []

    def start(study: Path, **options: Any):
        options.setdefault("db_path", tmp_path / "responses.sqlite")
        server = make_server(study, port=0, **options).start()
        servers.append(server)
        return Client(server.port), server

    yield start
    for server in servers:
        server.shutdown()

"""The collection server's old HTTP layer (wsgiref), kept as a benchmark baseline.

A copy of ``_ThreadingWSGIServer`` and its handler from
``src/stecflow/studies/server/httpd.py`` at commit c2444cf, the last commit
before the server moved to waitress (``stecflow.serving``): the standard
library's ``wsgiref`` with one thread per connection, at most
``--max-connections`` served at once (the ones beyond get an immediate 503
without a thread) and at most ``--connections-per-address`` from one client
address. It serves today's application,
:func:`stecflow.studies.server.app.make_app`, with the same options as
``stecflow serve`` (the event log beside the database, ``synchronous=FULL``),
so that ``benchmarks/server_stack.py`` compares the two HTTP layers and nothing
else. The only change to the copied code is the import of ``client_key`` and
``drain_body``, which moved from ``stecflow.studies.server.request`` to
``stecflow.serving.request``.

Run from the repository::

    python benchmarks/wsgiref_server.py STUDY --port 8001 --db responses.sqlite \
        --behind-proxy

It prints ``listening on http://HOST:PORT/`` once it accepts connections.
"""

from __future__ import annotations

import argparse
import logging
import socket
import sys
import threading
import time
from pathlib import Path
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

from stecflow.serving.request import client_key, drain_body
from stecflow.serving.server import BUSY, CROWDED
from stecflow.studies.server.app import make_app
from stecflow.studies.server.defaults import (
    DEFAULT_CONNECTIONS_PER_ADDRESS,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_READ_TIMEOUT_S,
    DEFAULT_SESSIONS_PER_ADDRESS,
)
from stecflow.studies.server.events import default_log

logger = logging.getLogger("wsgiref_server")

# ------------------------------------------------- copied from c2444cf's httpd.py

_LINGER_S = 0.5
_MAX_LINGERING = 128


class _Handler(WSGIRequestHandler):
    def setup(self) -> None:
        # StreamRequestHandler puts self.timeout on the socket: every read that
        # waits longer raises TimeoutError.
        self.timeout = getattr(self.server, "read_timeout_s", DEFAULT_READ_TIMEOUT_S)
        super().setup()

    def handle(self) -> None:
        self._forwarded_key: str | None = None
        try:
            super().handle()
        except OSError as error:  # silent (TimeoutError) or gone: nobody to answer
            logger.debug("%s: connection dropped (%r)", self.client_address[0], error)
        finally:
            if self._forwarded_key is not None:
                self.server.leave(self._forwarded_key)  # type: ignore[attr-defined]

    def parse_request(self) -> bool:
        """Parse the headers; behind a proxy, count the forwarded address too."""
        if not super().parse_request():
            return False
        server = self.server
        if not getattr(server, "counts_forwarded", False):
            return True
        forwarded = ",".join(self.headers.get_all("X-Forwarded-For") or [])
        key = client_key(
            {
                "REMOTE_ADDR": self.client_address[0],
                "HTTP_X_FORWARDED_FOR": forwarded,
            },
            True,
        )
        if not server.enter(key):  # type: ignore[attr-defined]
            logger.debug("%s: too many connections", key)
            # the request's body (a small one) is read so that the answer arrives
            drain_body(
                {
                    "CONTENT_LENGTH": self.headers.get("Content-Length", ""),
                    "wsgi.input": self.rfile,
                }
            )
            self.wfile.write(_CROWDED)
            self.close_connection = True
            return False
        self._forwarded_key = key
        return True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        logger.debug("%s %s", self.address_string(), format % args)


# the same 503 answers as today's server
_BUSY, _CROWDED = BUSY, CROWDED


class _ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    """One thread per connection, at most *max_connections* at once and at most
    *connections_per_address* (0: no limit) from one client address."""

    daemon_threads = True
    request_queue_size = 1024
    allow_reuse_address = True

    def __init__(
        self,
        address: tuple[str, int],
        handler: type[WSGIRequestHandler],
        *,
        read_timeout_s: float,
        max_connections: int,
        connections_per_address: int = 0,
        behind_proxy: bool = False,
    ) -> None:
        self.read_timeout_s = float(read_timeout_s)
        self._slots = threading.BoundedSemaphore(max_connections)
        self.connections_per_address = int(connections_per_address)
        # Behind a proxy every connection comes from the proxy: the address that
        # counts is the one it forwards, known once the headers are read.
        self.counts_peers = self.connections_per_address > 0 and not behind_proxy
        self.counts_forwarded = self.connections_per_address > 0 and behind_proxy
        self._per_address: dict[str, int] = {}
        self._per_address_lock = threading.Lock()
        self._lingering: list[tuple[float, socket.socket]] = []
        super().__init__(address, handler)

    def enter(self, key: str) -> bool:
        """Count a connection of address *key*; False (not counted) beyond the cap."""
        with self._per_address_lock:
            held = self._per_address.get(key, 0)
            if held >= self.connections_per_address:
                return False
            self._per_address[key] = held + 1
            return True

    def leave(self, key: str) -> None:
        """Uncount a connection of address *key*."""
        with self._per_address_lock:
            held = self._per_address.get(key, 0) - 1
            if held > 0:
                self._per_address[key] = held
            else:
                self._per_address.pop(key, None)

    @staticmethod
    def _peer(client_address: Any) -> str:
        return client_key({"REMOTE_ADDR": client_address[0]}, False)

    def process_request(self, request: Any, client_address: Any) -> None:
        peer = self._peer(client_address) if self.counts_peers else None
        if peer is not None and not self.enter(peer):
            logger.debug("%s: too many connections", peer)
            self._refuse(request, _CROWDED)
            return
        if not self._slots.acquire(blocking=False):
            if peer is not None:
                self.leave(peer)
            self._refuse(request, _BUSY)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:  # the thread did not start: its slot is free
            self._slots.release()
            if peer is not None:
                self.leave(peer)
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()
            if self.counts_peers:
                self.leave(self._peer(client_address))

    def _refuse(self, request: socket.socket, answer: bytes) -> None:
        """Answer 503 without a thread and without ever blocking the accept loop.

        The socket is closed a little later (:meth:`service_actions`): closing it
        while the request is still arriving would reset the connection before
        the client reads the answer.
        """
        try:
            request.setblocking(False)
            _discard_input(request)
            request.sendall(answer)  # a new socket's send buffer takes it at once
            request.shutdown(socket.SHUT_WR)
        except OSError:
            self.close_request(request)
            return
        if len(self._lingering) >= _MAX_LINGERING:
            self.close_request(request)
            return
        self._lingering.append((time.monotonic() + _LINGER_S, request))

    def service_actions(self) -> None:
        """Close refused sockets once the client has closed or after a moment."""
        super().service_actions()
        now = time.monotonic()
        waiting = []
        for deadline, request in self._lingering:
            if _discard_input(request) or now >= deadline:
                self.close_request(request)
            else:
                waiting.append((deadline, request))
        self._lingering = waiting

    def server_close(self) -> None:
        super().server_close()
        for _, request in self._lingering:
            self.close_request(request)
        self._lingering = []


def _discard_input(request: socket.socket) -> bool:
    """Read what a non-blocking socket holds; True once the client has closed."""
    try:
        while request.recv(65536):
            pass
    except BlockingIOError:
        return False
    except OSError:
        return True
    return True


# ------------------------------------------------------------------ the command


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("study_dir")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--db", required=True)
    parser.add_argument("--behind-proxy", action="store_true")
    parser.add_argument("--synchronous", choices=("FULL", "NORMAL"), default="FULL")
    parser.add_argument("--read-timeout", type=float, default=DEFAULT_READ_TIMEOUT_S)
    parser.add_argument("--max-connections", type=int, default=DEFAULT_MAX_CONNECTIONS)
    parser.add_argument(
        "--connections-per-address", type=int, default=DEFAULT_CONNECTIONS_PER_ADDRESS
    )
    parser.add_argument(
        "--sessions-per-address", type=int, default=DEFAULT_SESSIONS_PER_ADDRESS
    )
    parser.add_argument("--no-log", action="store_true", help="write no event log")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    db = Path(args.db)
    app = make_app(
        args.study_dir,
        db_path=db,
        synchronous=args.synchronous,
        behind_proxy=args.behind_proxy,
        sessions_per_address=args.sessions_per_address,
        log_path=None if args.no_log else default_log(db),
    )
    httpd = _ThreadingWSGIServer(
        (args.host, args.port),
        _Handler,
        read_timeout_s=args.read_timeout,
        max_connections=args.max_connections,
        connections_per_address=args.connections_per_address,
        behind_proxy=app.behind_proxy,
    )
    httpd.set_app(app)
    print(f"listening on http://{args.host}:{httpd.server_address[1]}/", flush=True)
    try:
        httpd.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
        app.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

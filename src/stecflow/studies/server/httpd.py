"""The threaded HTTP server around the application, and :func:`serve`.

Owns the ``wsgiref`` server with one thread per connection: the read time-out of
every connection, at most ``max_connections`` served at once (the ones beyond get
an immediate 503 without a thread) and at most ``connections_per_address`` of
them from one client address (counted as the session limit counts addresses,
:func:`~stecflow.studies.server.request.client_key`: the socket's peer when it
accepts the connection, or, ``behind_proxy``, the address the proxy forwards,
once the request's headers are read; the ones beyond get a 503 as well),
:class:`ExperimentServer` (bind, start in a thread, shut down),
:func:`make_server` and the blocking :func:`serve`.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

from stecflow.studies.server.app import CollectionApp, make_app
from stecflow.studies.server.defaults import (
    DEFAULT_ABANDON_AFTER_S,
    DEFAULT_CONNECTIONS_PER_ADDRESS,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_READ_TIMEOUT_S,
    DEFAULT_SESSION_WINDOW_S,
    DEFAULT_SESSIONS_PER_ADDRESS,
)
from stecflow.studies.server.events import default_log
from stecflow.studies.server.organiser import admin_token_from
from stecflow.studies.server.request import client_key, drain_body
from stecflow.studies.server.study import CollectionError, default_db, resolve_study

__all__ = ["ExperimentServer", "make_server", "serve"]

logger = logging.getLogger(__name__)

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


def _unavailable(message: str) -> bytes:
    """A whole 503 answer with *message*, sent without the application."""
    body = b'{"error": "' + message.encode("ascii") + b'"}'
    return (
        b"HTTP/1.0 503 Service Unavailable\r\n"
        b"Content-Type: application/json\r\n"
        b"Content-Length: " + str(len(body)).encode("ascii") + b"\r\n"
        b"Retry-After: 1\r\n"
        b"Cache-Control: no-store\r\n"
        b"Connection: close\r\n\r\n" + body
    )


_BUSY = _unavailable("the server is busy; please try again in a moment")
_CROWDED = _unavailable(
    "too many connections from your network; please try again in a moment"
)


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


class ExperimentServer:
    """A running HTTP server for one study (see :func:`make_server`).

    Attributes
    ----------
    app : CollectionApp
        The application served.
    host : str
    port : int
        The port actually bound (useful with ``port=0``).
    url : str
        ``http://host:port/``.
    """

    def __init__(
        self,
        app: CollectionApp,
        host: str,
        port: int,
        *,
        read_timeout_s: float = DEFAULT_READ_TIMEOUT_S,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        connections_per_address: int = DEFAULT_CONNECTIONS_PER_ADDRESS,
    ) -> None:
        if not read_timeout_s > 0:
            raise CollectionError("must be positive", field="read_timeout_s")
        if max_connections < 1:
            raise CollectionError("must be 1 or more", field="max_connections")
        if connections_per_address < 0:
            raise CollectionError(
                "must be 0 (no limit) or more", field="connections_per_address"
            )
        self.app = app
        self._httpd = _ThreadingWSGIServer(
            (host, port),
            _Handler,
            read_timeout_s=read_timeout_s,
            max_connections=max_connections,
            connections_per_address=connections_per_address,
            behind_proxy=app.behind_proxy,
        )
        self._httpd.set_app(app)
        self.host = host
        self.port = int(self._httpd.server_address[1])
        self.url = f"http://{host}:{self.port}/"
        self._thread: threading.Thread | None = None

    def serve_forever(self) -> None:
        """Serve until :meth:`shutdown` is called (from another thread)."""
        self._httpd.serve_forever(poll_interval=0.2)

    def start(self) -> ExperimentServer:
        """Serve in a daemon thread; return self."""
        self._thread = threading.Thread(
            target=self.serve_forever, name="stecflow-server", daemon=True
        )
        self._thread.start()
        return self

    def shutdown(self) -> None:
        """Stop serving (if :meth:`start` was used), then :meth:`close`."""
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=10)
            self._thread = None
        self.close()

    def close(self) -> None:
        """Close the listening socket and the database."""
        self._httpd.server_close()
        self.app.close()

    def __enter__(self) -> ExperimentServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()


def make_server(
    study_dir: str | Path,
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    db_path: str | Path | None = None,
    abandon_after_s: float = DEFAULT_ABANDON_AFTER_S,
    read_timeout_s: float = DEFAULT_READ_TIMEOUT_S,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    connections_per_address: int = DEFAULT_CONNECTIONS_PER_ADDRESS,
    **options: Any,
) -> ExperimentServer:
    """Bind a server for a study without starting it.

    Parameters
    ----------
    study_dir, db_path, abandon_after_s
        As for :func:`make_app`; further keyword *options* (the session limit,
        ``require_participant``, ``behind_proxy``, ...) go there too.
    host : str, default "127.0.0.1"
        Address to bind; give ``0.0.0.0`` only behind a TLS reverse proxy.
    port : int, default 8000
        Port; 0 picks a free one (see :attr:`ExperimentServer.port`).
    read_timeout_s : float, default 30
        A connection that sends nothing for this long is closed (a stalled body
        gets 408).
    max_connections : int, default 256
        Connections served at once; the ones beyond get an immediate 503 with
        ``Retry-After: 1`` (the experiment page retries).
    connections_per_address : int, default 64
        Connections one client address may hold at once (0: no limit); the ones
        beyond get a 503 as well, so that one client holding idle connections
        does not take the server from everyone else. The address is the
        socket's peer, or, with ``behind_proxy``, the one the proxy forwards in
        ``X-Forwarded-For`` (counted once a request's headers arrived; the
        proxy itself holds the idle connections of its clients). Raise it for
        a lab whose computers share one address.

    Returns
    -------
    ExperimentServer
        Call ``.serve_forever()`` or ``.start()`` (thread), then ``.shutdown()``.
    """
    app = make_app(
        study_dir, db_path=db_path, abandon_after_s=abandon_after_s, **options
    )
    try:
        return ExperimentServer(
            app,
            host,
            port,
            read_timeout_s=read_timeout_s,
            max_connections=max_connections,
            connections_per_address=connections_per_address,
        )
    except (OSError, CollectionError):
        app.close()
        raise


def serve(
    study_dir: str | Path,
    host: str = "127.0.0.1",
    port: int = 8000,
    db_path: str | Path | None = None,
    abandon_after_s: float = DEFAULT_ABANDON_AFTER_S,
    *,
    synchronous: str = "FULL",
    read_timeout_s: float = DEFAULT_READ_TIMEOUT_S,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    connections_per_address: int = DEFAULT_CONNECTIONS_PER_ADDRESS,
    sessions_per_address: int = DEFAULT_SESSIONS_PER_ADDRESS,
    session_window_s: float = DEFAULT_SESSION_WINDOW_S,
    require_participant: bool = False,
    behind_proxy: bool = False,
    ready: Callable[[ExperimentServer], None] | None = None,
    admin_token: str | None = None,
    admin_token_file: str | Path | None = None,
    log_path: str | Path | None = None,
    log: bool = True,
    log_addresses: bool = False,
    per_list: int = 1,
) -> None:
    """Serve a study until interrupted (Ctrl-C); the CLI's ``stecflow serve``.

    Parameters
    ----------
    study_dir : path
        The study folder (``results/studies/<study>``) or its ``web`` folder.
    host, port
        Where to listen (default ``127.0.0.1:8000``).
    db_path : path, optional
        The database (default: ``responses.sqlite`` beside the web folder).
    abandon_after_s : float, default 1800
        Silence after which an unfinished session's list is given to others.
    synchronous : {"FULL", "NORMAL"}, default "FULL"
        SQLite durability (see :func:`make_app`); NORMAL is about twice as fast
        per write but may lose the last answers on a power cut.
    read_timeout_s, max_connections, connections_per_address
        As for :func:`make_server`.
    sessions_per_address, session_window_s, require_participant, behind_proxy
        As for :func:`make_app`.
    ready : callable, optional
        Called with the server once it listens (e.g. to print its URL).
    admin_token, admin_token_file : optional
        The organiser's token, or a file whose first line is it; else the
        environment variable ``STECFLOW_ADMIN_TOKEN``; without any, the
        organiser's pages are off
        (:func:`~stecflow.studies.server.organiser.admin_token_from`).
    log_path : path, optional
        The event log (default: ``<database stem>.events.jsonl`` beside the
        database, :func:`~stecflow.studies.server.events.default_log`).
    log : bool, default True
        Write the event log at all.
    log_addresses, per_list
        As for :func:`make_app`.
    """
    token = admin_token_from(admin_token, admin_token_file)
    if log:
        db = (
            Path(db_path)
            if db_path is not None
            else default_db(resolve_study(study_dir))
        )
        log_path = Path(log_path) if log_path is not None else default_log(db)
    else:
        log_path = None
    server = make_server(
        study_dir,
        host,
        port,
        db_path=db_path,
        abandon_after_s=abandon_after_s,
        synchronous=synchronous,
        read_timeout_s=read_timeout_s,
        max_connections=max_connections,
        connections_per_address=connections_per_address,
        sessions_per_address=sessions_per_address,
        session_window_s=session_window_s,
        require_participant=require_participant,
        behind_proxy=behind_proxy,
        admin_token=token,
        log_path=log_path,
        log_addresses=log_addresses,
        per_list=per_list,
    )
    logger.info(
        "serving study %s at %s (responses in %s, events in %s; organiser's pages %s)",
        server.app.study.study,
        server.url,
        server.app.db_path,
        log_path or "no log",
        "at admin/progress" if token else "off (no admin token)",
    )
    if ready is not None:
        ready(server)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        logger.info("stopped")
    finally:
        server.close()


# --------------------------------------------------------------------------- export

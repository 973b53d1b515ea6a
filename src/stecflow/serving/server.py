"""The production HTTP server under stecflow's WSGI applications: waitress.

waitress (pure Python, maintained, on PyPI) reads requests on one event loop
and hands whole requests to a pool of worker threads: an idle or slow client
holds a channel of the loop, never a worker, and a body is read in full before
the application sees it. :class:`HTTPServer` configures it from
:class:`Limits` and adds the one thing waitress has not, a cap on the
connections of one client address:

* ``max_connections`` connections open at once; one more gets an immediate
  503 with ``Retry-After: 1`` (the experiment page retries);
* ``connections_per_address`` of them from one address (IPv6: one /64), the
  ones beyond get a 503 as well, so that one client holding idle sockets does
  not take the server from everyone else; behind a reverse proxy every
  connection comes from the proxy, and the proxy's own per-address limit
  (nginx ``limit_conn``, ``resources/deploy/nginx-stecflow.conf``) is the one
  that counts;
* a connection silent for ``read_timeout_s`` (no request under way) is closed;
* request headers and bodies are limited in size (413 beyond);
* with a ``trusted_proxy``, the client's address is the last entry of
  ``X-Forwarded-For`` on connections from that proxy only; from anyone else
  the forwarding headers are removed before the application sees them.

A refused connection is answered and closed on the event loop, without a
worker; it is closed once the client has read the answer and closed, or after
half a second.

May import: :mod:`stecflow.core`, :mod:`stecflow.serving`.
"""

from __future__ import annotations

import errno
import logging
import math
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from stecflow.serving.request import client_key

__all__ = ["Limits", "HTTPServer", "unavailable"]

logger = logging.getLogger(__name__)

_LINGER_S = 0.5
_MAX_LINGERING = 128


@dataclass(frozen=True)
class Limits:
    """The limits of an :class:`HTTPServer` (see the module's description)."""

    #: A connection silent this long with no request under way is closed.
    read_timeout_s: float = 30.0
    #: Connections open at once; more get a 503.
    max_connections: int = 256
    #: Connections one client address may hold (0: no limit); more get a 503.
    connections_per_address: int = 64
    #: Largest request body, in bytes (413 beyond).
    max_body_bytes: int = 2 * 1024 * 1024
    #: Largest request line and headers, in bytes (431 beyond).
    max_header_bytes: int = 64 * 1024
    #: Worker threads running the application.
    threads: int = 8

    def check(self) -> None:
        """Raise ValueError naming the first limit that makes no sense."""
        if not self.read_timeout_s > 0:
            raise ValueError("read_timeout_s: must be positive")
        if self.max_connections < 1:
            raise ValueError("max_connections: must be 1 or more")
        if self.connections_per_address < 0:
            raise ValueError("connections_per_address: must be 0 (no limit) or more")
        if self.threads < 1:
            raise ValueError("threads: must be 1 or more")


def unavailable(message: str) -> bytes:
    """A whole 503 answer with the JSON ``{"error": message}``."""
    body = b'{"error": "' + message.encode("ascii") + b'"}'
    return (
        b"HTTP/1.0 503 Service Unavailable\r\n"
        b"Content-Type: application/json\r\n"
        b"Content-Length: " + str(len(body)).encode("ascii") + b"\r\n"
        b"Retry-After: 1\r\n"
        b"Cache-Control: no-store\r\n"
        b"Connection: close\r\n\r\n" + body
    )


BUSY = unavailable("the server is busy; please try again in a moment")
CROWDED = unavailable(
    "too many connections from your network; please try again in a moment"
)


def _waitress_classes() -> tuple[Any, Any, Any, Any]:
    """waitress's server, dispatcher, adjustments and event loop (imported late:
    a command line that serves nothing does not load it)."""
    from waitress import wasyncore
    from waitress.adjustments import Adjustments
    from waitress.server import TcpWSGIServer
    from waitress.task import ThreadedTaskDispatcher

    return TcpWSGIServer, ThreadedTaskDispatcher, Adjustments, wasyncore


def _server_class() -> Any:
    TcpWSGIServer, _, _, wasyncore = _waitress_classes()
    from waitress.channel import HTTPChannel
    from waitress.parser import HTTPRequestParser, ParsingError
    from waitress.task import ErrorTask

    class Parser(HTTPRequestParser):  # type: ignore[misc]
        def parse_header(self, header_plus: bytes) -> None:
            try:
                super().parse_header(header_plus)
            except ValueError:  # int() of a Content-Length of 5,000 digits
                raise ParsingError("Content-Length is invalid") from None

    class JSONErrorTask(ErrorTask):  # type: ignore[misc]
        """waitress's answer to a request it cannot read, in the JSON every
        answer of stecflow's API has: ``{"error": "..."}``."""

        def execute(self) -> None:
            import json

            error = self.request.error
            limit = self.channel.server.adj.max_request_body_size
            message = {
                400: f"the request cannot be read ({error.body})",
                413: f"the request body is limited to {limit} bytes",
                431: "the request headers are too large",
            }.get(error.code, f"{error.reason} ({error.body})")
            body = json.dumps({"error": message}).encode()
            self.status = f"{error.code} {error.reason}"
            self.response_headers.extend(
                [
                    ("Content-Type", "application/json"),
                    ("Content-Length", str(len(body))),
                    ("Cache-Control", "no-store"),
                ]
            )
            self.set_close_on_finish()
            self.content_length = len(body)
            self.write(body)

    class Channel(HTTPChannel):  # type: ignore[misc]
        parser_class = Parser
        error_task_class = JSONErrorTask

    class Refusal(wasyncore.dispatcher):  # type: ignore[misc,name-defined]
        """A refused connection: its answer written, then closed once read."""

        def __init__(self, sock: socket.socket, map: dict, answer: bytes) -> None:  # noqa: A002
            super().__init__(sock, map)
            self.answer = answer
            self.deadline = time.monotonic() + _LINGER_S

        def readable(self) -> bool:
            if time.monotonic() >= self.deadline:
                self.close()
                return False
            return True

        def handle_read(self) -> None:
            self.recv(65536)  # dropped; an empty read (closed) closes it

        def writable(self) -> bool:
            return bool(self.answer)

        def handle_write(self) -> None:
            sent = self.send(self.answer)
            self.answer = self.answer[sent:]
            if not self.answer:
                try:
                    self.socket.shutdown(socket.SHUT_WR)
                except OSError:
                    self.close()

        def handle_close(self) -> None:
            self.close()

        def handle_error(self) -> None:
            self.close()

    class Server(TcpWSGIServer):  # type: ignore[misc,valid-type]
        """waitress's TCP server, with a cap per address and an immediate 503."""

        channel_class = Channel
        max_connections = 256
        per_address = 0

        def handle_accept(self) -> None:
            try:
                pair = self.accept()
                if pair is None:
                    return
                conn, addr = pair
                self.set_socket_options(conn)
            except OSError:
                return
            refusals = len(self._map) - len(self.active_channels) - 2
            answer = None
            if len(self.active_channels) >= self.max_connections:
                answer = BUSY
            elif self.per_address:
                peer = client_key({"REMOTE_ADDR": addr[0]}, False)
                held = sum(  # (a copy: workers may close channels meanwhile)
                    1
                    for channel in list(self.active_channels.values())
                    if channel.addr
                    and client_key({"REMOTE_ADDR": channel.addr[0]}, False) == peer
                )
                if held >= self.per_address:
                    answer = CROWDED
                    logger.debug("%s: too many connections", peer)
            if answer is None:
                self.channel_class(
                    self, conn, self.fix_addr(addr), self.adj, map=self._map
                )
            elif refusals >= _MAX_LINGERING:  # answered, closed without waiting
                try:
                    conn.setblocking(False)
                    conn.send(answer)
                except OSError:
                    pass
                conn.close()
            else:
                Refusal(conn, self._map, answer)

        def handle_error(self) -> None:
            # waitress's default closes the listening socket: a production
            # server keeps listening, whatever one connection did
            logger.exception("error while accepting a connection")

    return Server


class HTTPServer:
    """A WSGI application served by waitress on *host*:*port*.

    Parameters
    ----------
    app
        The WSGI application.
    host, port
        Where to listen; port 0 picks a free one (:attr:`port`).
    limits
        The limits (:class:`Limits`).
    trusted_proxy
        The address of the reverse proxy in front (e.g. ``127.0.0.1``, or
        ``*`` for any peer): on its connections the client's address is the
        last entry of ``X-Forwarded-For``. None: no proxy; the header is
        removed.

    Attributes
    ----------
    host : str
    port : int
        The port actually bound.
    url : str
        ``http://host:port/``.
    """

    def __init__(
        self,
        app: Callable[..., Any],
        host: str,
        port: int,
        *,
        limits: Limits = Limits(),
        trusted_proxy: str | None = None,
    ) -> None:
        limits.check()
        _, Dispatcher, Adjustments, wasyncore = _waitress_classes()
        self._wasyncore = wasyncore
        timeout = max(1, math.ceil(limits.read_timeout_s))
        adjustments = Adjustments(
            host=host,
            port=port,
            threads=limits.threads,
            # the 503 beyond max_connections is ours; waitress stops accepting
            # at its own limit, above ours and the refusals still lingering
            connection_limit=limits.max_connections + _MAX_LINGERING + 8,
            channel_timeout=timeout,
            cleanup_interval=max(1, min(30, timeout // 2)),
            max_request_body_size=limits.max_body_bytes,
            max_request_header_size=limits.max_header_bytes,
            # poll(2), not select(2): no limit of 1,024 descriptors
            asyncore_use_poll=True,
            backlog=1024,
            **(
                {
                    "trusted_proxy": trusted_proxy,
                    "trusted_proxy_count": 1,
                    "trusted_proxy_headers": {"x-forwarded-for"},
                }
                if trusted_proxy
                else {}
            ),
            clear_untrusted_proxy_headers=True,
            log_untrusted_proxy_headers=False,
            expose_tracebacks=False,
            log_socket_errors=False,
            ident="stecflow",
        )
        self._map: dict[int, Any] = {}
        dispatcher = Dispatcher()
        dispatcher.set_thread_count(limits.threads)
        server = _server_class()(
            app, map=self._map, dispatcher=dispatcher, adj=adjustments
        )
        server.max_connections = limits.max_connections
        server.per_address = 0 if trusted_proxy else limits.connections_per_address
        self._server = server
        self.limits = limits
        self.trusted_proxy = trusted_proxy
        self.host = host
        self.port = int(server.effective_port)
        self.url = f"http://{host}:{self.port}/"
        self._thread: threading.Thread | None = None
        self._serving = threading.Event()
        self._stopped = threading.Event()
        self._closed = False
        self._close_lock = threading.Lock()

    def serve_forever(self) -> None:
        """Serve until :meth:`shutdown` (from another thread) or Ctrl-C."""
        self._serving.set()
        try:
            self._server.run()
        finally:
            self._serving.clear()
            self._stopped.set()

    def start(self) -> HTTPServer:
        """Serve in a daemon thread; return self."""
        self._thread = threading.Thread(
            target=self.serve_forever, name="stecflow-http", daemon=True
        )
        self._thread.start()
        return self

    def shutdown(self) -> None:
        """Stop serving: close every connection on the event loop (from any
        thread), stop the workers (the requests under way finish first)."""
        # the workers first: a request under way finishes and wakes the loop
        self._server.task_dispatcher.shutdown()
        if self._serving.is_set():
            try:
                self._server.trigger.pull_trigger(self._close_all)
            except OSError as exc:  # the loop stopped meanwhile, its trigger closed
                if exc.errno != errno.EBADF:
                    raise
            self._stopped.wait(timeout=10)
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
        self.close()

    def _close_all(self) -> None:
        self._wasyncore.close_all(self._map)

    def close(self) -> None:
        """Close the listening socket, the connections and the workers."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        self._server.task_dispatcher.shutdown()
        self._wasyncore.close_all(self._map)

    def __enter__(self) -> HTTPServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

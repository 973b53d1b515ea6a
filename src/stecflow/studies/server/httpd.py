"""The collection server on the HTTP layer, and :func:`serve`.

Wiring only: the application (:func:`~stecflow.studies.server.app.make_app`)
served by :class:`stecflow.serving.server.HTTPServer` (waitress) with the
study's limits; :class:`ExperimentServer` (bind, start in a thread, shut down),
:func:`make_server` and the blocking :func:`serve`. The limits themselves
(connections, per-address cap, time-outs, sizes, the trusted proxy) are
described in :mod:`stecflow.serving.server`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from stecflow.serving.server import HTTPServer, Limits
from stecflow.studies.server.app import CollectionApp, make_app
from stecflow.studies.server.defaults import (
    ANSWERS_BODY_BYTES,
    DEFAULT_ABANDON_AFTER_S,
    DEFAULT_CONNECTIONS_PER_ADDRESS,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_READ_TIMEOUT_S,
    DEFAULT_SESSION_WINDOW_S,
    DEFAULT_SESSIONS_PER_ADDRESS,
    DEFAULT_THREADS,
    DEFAULT_TRUSTED_PROXY,
)
from stecflow.studies.server.events import default_log
from stecflow.studies.server.organiser import admin_token_from
from stecflow.studies.server.study import CollectionError, default_db, resolve_study

__all__ = ["ExperimentServer", "make_server", "serve"]

logger = logging.getLogger(__name__)


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
        threads: int = DEFAULT_THREADS,
        trusted_proxy: str = DEFAULT_TRUSTED_PROXY,
    ) -> None:
        limits = Limits(
            read_timeout_s=read_timeout_s,
            max_connections=max_connections,
            connections_per_address=connections_per_address,
            # the largest body the application takes, and room for its 413
            max_body_bytes=2 * ANSWERS_BODY_BYTES,
            threads=threads,
        )
        try:
            limits.check()
        except ValueError as error:
            field, message = str(error).split(": ", 1)
            raise CollectionError(message, field=field) from None
        self.app = app
        self._http = HTTPServer(
            app,
            host,
            port,
            limits=limits,
            trusted_proxy=trusted_proxy if app.behind_proxy else None,
        )
        self.host = host
        self.port = self._http.port
        self.url = self._http.url

    def serve_forever(self) -> None:
        """Serve until :meth:`shutdown` is called (from another thread)."""
        self._http.serve_forever()

    def start(self) -> ExperimentServer:
        """Serve in a daemon thread; return self."""
        self._http.start()
        return self

    def shutdown(self) -> None:
        """Stop serving (if :meth:`start` was used), then :meth:`close`."""
        self._http.shutdown()
        self.close()

    def close(self) -> None:
        """Close the listening socket and the database."""
        self._http.close()
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
    threads: int = DEFAULT_THREADS,
    trusted_proxy: str = DEFAULT_TRUSTED_PROXY,
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
        A connection silent this long with no request under way is closed
        (also one whose headers or body stall).
    max_connections : int, default 256
        Connections open at once; the ones beyond get an immediate 503 with
        ``Retry-After: 1`` (the experiment page retries). Idle connections
        cost no thread: they wait on the server's event loop.
    connections_per_address : int, default 64
        Connections one client address (IPv6: one /64) may hold at once (0: no
        limit); the ones beyond get a 503 as well, so that one client holding
        idle connections does not take the server from everyone else. Behind
        a proxy (``behind_proxy``) every connection comes from the proxy: its
        own per-address limit counts instead (nginx ``limit_conn``). Raise it
        for a lab whose computers share one address.
    threads : int, default 8
        Worker threads running the application (whole requests only).
    trusted_proxy : str, default "127.0.0.1"
        With ``behind_proxy``, the proxy's address: only on its connections is
        the last address of ``X-Forwarded-For`` the client's (``*``: any peer).

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
            threads=threads,
            trusted_proxy=trusted_proxy,
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
    threads: int = DEFAULT_THREADS,
    trusted_proxy: str = DEFAULT_TRUSTED_PROXY,
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
    read_timeout_s, max_connections, connections_per_address, threads, trusted_proxy
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
        threads=threads,
        trusted_proxy=trusted_proxy,
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
        server.serve_forever()  # returns on Ctrl-C (waitress catches it)
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        logger.info("stopped")


# --------------------------------------------------------------------------- export

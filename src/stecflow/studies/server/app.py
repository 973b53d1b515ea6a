"""The WSGI application: the experiment's files and the ``api/`` and ``admin/`` routes.

Owns :class:`CollectionApp` (routing each request to the experiment's files, a
participant endpoint of :mod:`~stecflow.studies.server.participants` or an
organiser's page of :mod:`~stecflow.studies.server.admin`, answering errors, and
the per-session event log) and :func:`make_app`, which builds one for a study
folder.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from stecflow.serving.request import (
    HTTPError,
    RateLimit,
    client_key,
    drain_body,
    read_json,
)
from stecflow.serving.static import StaticFiles
from stecflow.studies.server.admin import OrganiserPages
from stecflow.studies.server.defaults import (
    ANSWERS_BODY_BYTES,
    DEFAULT_ABANDON_AFTER_S,
    DEFAULT_SESSION_WINDOW_S,
    DEFAULT_SESSIONS_PER_ADDRESS,
    MAX_BODY_BYTES,
)
from stecflow.studies.server.events import (
    DEFAULT_LOG_BACKUPS,
    DEFAULT_LOG_MAX_BYTES,
    EventLog,
)
from stecflow.studies.server.organiser import admin_token_from
from stecflow.studies.server.participants import ParticipantEndpoints
from stecflow.studies.server.responses import json_response, security_headers
from stecflow.studies.server.store import Store
from stecflow.studies.server.study import (
    CollectionError,
    Study,
    default_db,
    load_study,
)

__all__ = ["CollectionApp", "make_app"]

logger = logging.getLogger(__name__)


class CollectionApp(ParticipantEndpoints, OrganiserPages):
    """The WSGI application: static experiment files plus the ``api/`` endpoints.

    Use :func:`make_app` to build one; :meth:`close` closes the database.

    Attributes
    ----------
    study : Study
        The study served.
    db_path : Path
        The SQLite database.
    abandon_after_s : float
        Silence after which an unfinished session no longer holds its list.
    require_participant : bool
        Whether a session needs a participant ID.
    behind_proxy : bool
        Whether client addresses come from ``X-Forwarded-For``.
    """

    def __init__(
        self,
        study: Study,
        db_path: Path,
        *,
        abandon_after_s: float = DEFAULT_ABANDON_AFTER_S,
        max_body_bytes: int = MAX_BODY_BYTES,
        max_sessions: int = 100_000,
        sessions_per_address: int = DEFAULT_SESSIONS_PER_ADDRESS,
        session_window_s: float = DEFAULT_SESSION_WINDOW_S,
        require_participant: bool = False,
        behind_proxy: bool = False,
        clock: Callable[[], float] = time.time,
        synchronous: str = "FULL",
        admin_token: str | None = None,
        event_log: EventLog | None = None,
        log_addresses: bool = False,
        per_list: int = 1,
    ) -> None:
        if abandon_after_s <= 0:
            raise CollectionError("must be positive", field="abandon_after_s")
        if sessions_per_address < 0:
            raise CollectionError(
                "must be 0 (no limit) or more", field="sessions_per_address"
            )
        if session_window_s <= 0:
            raise CollectionError("must be positive", field="session_window_s")
        if per_list < 1:
            raise CollectionError("must be 1 or more", field="per_list")
        self.study = study
        self.db_path = db_path
        self.abandon_after_s = float(abandon_after_s)
        self.max_body_bytes = int(max_body_bytes)
        self.max_sessions = int(max_sessions)
        self.require_participant = bool(require_participant)
        self.behind_proxy = bool(behind_proxy)
        self._session_limit = RateLimit(int(sessions_per_address), session_window_s)
        self.clock = clock
        self.admin_token = admin_token
        self.event_log = event_log
        self.log_addresses = bool(log_addresses)
        self.per_list = int(per_list)
        self.store = Store(db_path, study, synchronous)
        self._list_ids = list(study.lists)
        # the manifest names every list's media: the organiser's, not served
        self._files = StaticFiles(
            study.web_dir, headers=security_headers, hidden={"MANIFEST.tsv"}
        )

    def close(self) -> None:
        """Close the database connections and the event log."""
        self.store.close()
        if self.event_log is not None:
            self.event_log.close()

    # ----------------------------------------------------------------- WSGI

    def __call__(
        self, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        method = environ.get("REQUEST_METHOD", "GET")
        path = environ.get("PATH_INFO", "/") or "/"
        note: dict[str, Any] = {}
        try:
            if path.startswith("/api/"):
                status, body = self._api(method, path[len("/api/") :], environ, note)
                self._log_event(note, status, environ)
                return json_response(start_response, status, body)
            if path.startswith("/admin/"):
                return self._admin(
                    method, path[len("/admin/") :], environ, start_response
                )
            return self._files(environ, start_response)
        except HTTPError as error:
            if error.status in (411, 413):
                drain_body(environ)
            note.setdefault("reason", error.message)
            self._log_event(note, error.status, environ)
            body = {"error": error.message, **error.extra}
            return json_response(start_response, error.status, body, error.headers)
        except Exception:  # pragma: no cover - a bug; logged, never shown
            logger.exception("internal error on %s %s", method, path)
            return json_response(
                start_response, 500, {"error": "internal server error"}
            )

    def _log_event(
        self, note: Mapping[str, Any], status: int, environ: Mapping[str, Any]
    ) -> None:
        """Write the event a request noted (if any) to the event log."""
        if self.event_log is None or "event" not in note:
            return
        event = note["event"]
        if event == "created" and status >= 400:
            event = "refused"
        if event != "refused" and note.get("session") is None:
            return  # no session: a stranger's request, nothing to log about it
        fields: dict[str, Any] = {
            "status": status,
            "session": note.get("session"),
            "list": note.get("list"),
        }
        for name in ("order", "screen", "fields", "duplicate", "by"):
            if name in note:
                fields[name] = note[name]
        if status >= 400 and "reason" in note:
            reason = str(note["reason"])
            fields["reason"] = reason if len(reason) <= 200 else reason[:199] + "…"
        if self.log_addresses:
            fields["address"] = client_key(environ, self.behind_proxy)
        self.event_log.write(self.clock(), event, **fields)

    def _api(
        self,
        method: str,
        route: str,
        environ: Mapping[str, Any],
        note: dict[str, Any],
    ) -> tuple[int, Any]:
        routes = {
            "ping": ("GET",),
            "session": ("GET", "POST"),
            "trial": ("POST",),
            "answers": ("POST",),
            "complete": ("POST",),
        }
        if route not in routes:
            raise HTTPError(404, "no such endpoint")
        if method not in routes[route]:
            raise HTTPError(405, f"use {' or '.join(routes[route])}")
        if route == "ping":
            return 200, {
                "study": self.study.study,
                "sha256": self.study.sha256,
                "task": self.study.task,
                "variant": self.study.variant,
                # the page refuses a link without an ID on its first screen,
                # not after consent and a questionnaire
                "require_participant": self.require_participant,
            }
        if route == "session" and method == "POST":
            note["event"] = "created"
            return self._with_list(
                self._create_session(
                    environ, read_json(environ, self.max_body_bytes), note
                )
            )
        if route == "session":
            return self._with_list(self._state(environ))
        if route == "trial":
            note["event"] = "trial"
            return self._store_trial(
                environ, read_json(environ, self.max_body_bytes), note
            )
        if route == "answers":
            note["event"] = "answers"
            limit = max(self.max_body_bytes, ANSWERS_BODY_BYTES)
            return self._store_answers(environ, read_json(environ, limit), note)
        note["event"] = "completed"
        read_json(environ, self.max_body_bytes)
        return self._complete(environ, note)


def make_app(
    study_dir: str | Path,
    *,
    db_path: str | Path | None = None,
    abandon_after_s: float = DEFAULT_ABANDON_AFTER_S,
    max_body_bytes: int = MAX_BODY_BYTES,
    max_sessions: int = 100_000,
    sessions_per_address: int = DEFAULT_SESSIONS_PER_ADDRESS,
    session_window_s: float = DEFAULT_SESSION_WINDOW_S,
    require_participant: bool = False,
    behind_proxy: bool = False,
    clock: Callable[[], float] = time.time,
    synchronous: str = "FULL",
    admin_token: str | None = None,
    log_path: str | Path | None = None,
    log_max_bytes: int = DEFAULT_LOG_MAX_BYTES,
    log_backups: int = DEFAULT_LOG_BACKUPS,
    log_addresses: bool = False,
    per_list: int = 1,
) -> CollectionApp:
    """Build the WSGI application of a study.

    Parameters
    ----------
    study_dir : path
        The study folder (``results/studies/<study>``) or its ``web`` folder.
    db_path : path, optional
        The SQLite database (created if absent). Default: ``responses.sqlite``
        beside the web folder (``results/studies/<study>/responses.sqlite``); keep
        it somewhere backed up, outside the web folder.
    abandon_after_s : float, default 1800
        Silence after which an unfinished session no longer holds its list.
    max_body_bytes : int, default 16384
        Limit of every request body.
    max_sessions : int, default 100000
        Sessions the study accepts in all (409 after that: the study is full).
    sessions_per_address : int, default 20
        Sessions one client address may open per *session_window_s* (429 with
        ``Retry-After`` beyond that); 0 lifts the limit. Raise it for a lab whose
        computers share one address.
    session_window_s : float, default 600
        The window of *sessions_per_address*, in seconds.
    require_participant : bool, default False
        Open a session only with a participant ID (from the page's address,
        e.g. ``?PROLIFIC_PID=``); 400 with a message saying so without one.
    behind_proxy : bool, default False
        Take the client address from the last entry of ``X-Forwarded-For``, as
        a reverse proxy on this host appends it. Only behind such a proxy:
        otherwise clients choose their own address.
    clock : callable, default time.time
        Seconds since the epoch (tests pass a fake clock).
    synchronous : {"FULL", "NORMAL"}, default "FULL"
        SQLite's ``synchronous`` pragma: FULL survives power loss, NORMAL only
        process crashes.
    admin_token : str, optional
        The organiser's token (at least 16 characters): turns on the pages
        under ``admin/`` (progress, exports, returned places), which ask for it.
        Without one they answer 404. Participants never see it.
    log_path : path, optional
        The per-session event log (JSON Lines, :mod:`~stecflow.studies.server.events`);
        none by default (``stecflow serve`` writes one beside the database).
    log_max_bytes, log_backups : int, default 10 MB and 5
        Rotate the log at this size, keeping this many older copies.
    log_addresses : bool, default False
        Write the client's address into each event (personal data: only when
        the study's data protection allows it).
    per_list : int, default 1
        Completed sessions wanted per list (the progress page's "still needed").

    Returns
    -------
    CollectionApp
    """
    study = load_study(study_dir)
    if synchronous not in ("FULL", "NORMAL"):
        raise CollectionError("must be FULL or NORMAL", field="synchronous")
    if admin_token is not None:
        admin_token = admin_token_from(admin_token)
    path = Path(db_path) if db_path is not None else default_db(study.web_dir)
    event_log = None
    if log_path is not None:
        try:
            event_log = EventLog(log_path, max_bytes=log_max_bytes, backups=log_backups)
        except (OSError, ValueError) as error:
            raise CollectionError(
                f"cannot write the event log ({error})", file=str(log_path)
            ) from None
    try:
        return CollectionApp(
            study,
            path,
            abandon_after_s=abandon_after_s,
            max_body_bytes=max_body_bytes,
            max_sessions=max_sessions,
            sessions_per_address=sessions_per_address,
            session_window_s=session_window_s,
            require_participant=require_participant,
            behind_proxy=behind_proxy,
            clock=clock,
            synchronous=synchronous,
            admin_token=admin_token,
            event_log=event_log,
            log_addresses=log_addresses,
            per_list=per_list,
        )
    except BaseException:
        if event_log is not None:
            event_log.close()
        raise


# --------------------------------------------------------------------------- server

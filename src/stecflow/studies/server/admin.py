"""The organiser's pages under ``admin/``: progress, exports, returned places.

Owns :class:`OrganiserPages`, the part of
:class:`~stecflow.studies.server.app.CollectionApp` behind the organiser's token
(404 without one): the progress page and numbers, the responses and sessions
exports, and marking a place returned.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from stecflow.serving.request import HTTPError, read_json
from stecflow.studies.server.checks import FIELD_NAME
from stecflow.studies.server.events import EventLog, utc_iso
from stecflow.studies.server.organiser import check_admin_token, mark_returned
from stecflow.studies.server.progress import progress as study_progress
from stecflow.studies.server.progress import progress_html
from stecflow.studies.server.responses import (
    ADMIN_CSP,
    json_response,
    security_headers,
)
from stecflow.studies.server.store import Store
from stecflow.studies.server.study import CollectionError, Study

__all__ = ["OrganiserPages"]


class OrganiserPages:
    """The organiser's side of :class:`~stecflow.studies.server.app.CollectionApp`.

    A mixin: the application holds the study, the store, the clock, the token and
    the event log it reads (declared here for the type checker).
    """

    study: Study
    db_path: Path
    store: Store
    clock: Callable[[], float]
    abandon_after_s: float
    max_body_bytes: int
    admin_token: str | None
    event_log: EventLog | None
    per_list: int
    _list_ids: list[str]

    def _admin(
        self,
        method: str,
        route: str,
        environ: Mapping[str, Any],
        start_response: Callable[..., Any],
    ) -> list[bytes]:
        """The organiser's pages, behind the admin token (404 without one)."""
        check_admin_token(environ, self.admin_token)
        routes = {
            "progress": "GET",
            "progress.json": "GET",
            "export.tsv": "GET",
            "sessions.tsv": "GET",
            "return": "POST",
        }
        if route not in routes:
            raise HTTPError(404, "no such page")
        if method != routes[route] and not (
            routes[route] == "GET" and method == "HEAD"
        ):
            raise HTTPError(405, f"use {routes[route]}")
        if route == "return":
            return json_response(start_response, *self._return(environ))
        now = self.clock()
        if route in ("progress", "progress.json"):
            data = self.progress(now)
            if route == "progress.json":
                return json_response(start_response, 200, data)
            page = progress_html(data).encode("utf-8")
            start_response(
                "200 OK",
                security_headers("text/html; charset=utf-8", len(page), ADMIN_CSP),
            )
            return [b"" if method == "HEAD" else page]
        from stecflow.core.io import format_tsv
        from stecflow.studies.server.export import export_columns, read_responses

        if route == "export.tsv":
            rows = read_responses(
                self.study.web_dir,
                db_path=self.db_path,
                abandon_after_s=self.abandon_after_s,
                now=now,
            )
            text = format_tsv(rows, export_columns(self.study))
            name = f"{self.study.study}.tsv"
        else:
            from stecflow.studies.server.export import format_sessions

            text = format_sessions(self.study, self.db_path, now, self.abandon_after_s)
            name = f"{self.study.study}.sessions.tsv"
        data_bytes = text.encode("utf-8")
        headers = security_headers(
            "text/tab-separated-values; charset=utf-8", len(data_bytes)
        )
        headers.append(("Content-Disposition", f'attachment; filename="{name}"'))
        start_response("200 OK", headers)
        return [b"" if method == "HEAD" else data_bytes]

    def progress(self, now: float | None = None) -> dict[str, Any]:
        """The progress numbers (:func:`stecflow.studies.server.progress.progress`)."""
        with self.store.connection() as db:
            return study_progress(
                db,
                self.study.study,
                self._list_ids,
                self.clock() if now is None else now,
                self.abandon_after_s,
                self.per_list,
            )

    def _return(self, environ: Mapping[str, Any]) -> tuple[int, Any]:
        payload = read_json(environ, self.max_body_bytes)
        unknown = sorted(set(payload) - {"session"})
        ident = payload.get("session")
        if unknown or not isinstance(ident, str) or not FIELD_NAME.fullmatch(ident):
            raise HTTPError(
                400,
                'send {"session": "<session, platform session or participant ID>"}',
            )
        now = self.clock()
        try:
            result = mark_returned(self.store, ident, now)
        except CollectionError as error:
            status = 404 if "no session" in error.message else 409
            raise HTTPError(status, error.message) from None
        if not result["already"] and self.event_log is not None:
            self.event_log.write(
                now,
                "returned",
                status=200,
                session=result["session"],
                list=result["list"],
                by="organiser",
            )
        return 200, {
            "session": result["session"],
            "list": result["list"],
            "returned_utc": utc_iso(result["returned_s"]),
            "already": result["already"],
        }

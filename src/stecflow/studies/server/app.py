"""The WSGI application: the experiment's files and the ``api/`` endpoints.

Owns :class:`CollectionApp` (routing, static files, sessions and the even filling
of lists, checking each answered trial against the design, questionnaire
answers, completion, the organiser's pages under ``admin/`` and the per-session
event log) and :func:`make_app`, which builds one for a study folder.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import math
import re
import secrets
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.serving.request import (
    REASONS,
    HTTPError,
    RateLimit,
    client_key,
    drain_body,
    read_json,
)
from stecflow.serving.static import StaticFiles
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
    utc_iso,
)
from stecflow.studies.server.organiser import (
    admin_token_from,
    check_admin_token,
    mark_returned,
)
from stecflow.studies.server.progress import PROGRESS_CSS, progress_html
from stecflow.studies.server.progress import progress as study_progress
from stecflow.studies.server.store import RESPONSE_FIELDS, SITUATED_FIELDS, Store
from stecflow.studies.server.study import (
    CollectionError,
    Study,
    Trial,
    default_db,
    load_study,
)
from stecflow.studies.settings import RESPONSE_COLUMNS

__all__ = ["CollectionApp", "make_app"]

logger = logging.getLogger(__name__)

_MAX_MS = 3_600_000.0
_PARTICIPANT = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
#: Screen IDs and answer field names (contract C1).
_NAME = _PARTICIPANT
#: Limits of questionnaire answers: characters per string value, fields per
#: screen, screens per session.
MAX_ANSWER_CHARS = 2000
MAX_ANSWER_FIELDS = 100
MAX_SCREENS = 50
_ADMIN_CSP = (
    "default-src 'none'; style-src 'sha256-"
    + base64.b64encode(hashlib.sha256(PROGRESS_CSS.encode()).digest()).decode()
    + "'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'"
)
_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "media-src 'self' blob:; connect-src 'self'; object-src 'none'; "
    "base-uri 'none'; frame-ancestors 'none'; form-action 'none'"
)


def _number(
    payload: Mapping[str, Any], name: str, low: float, high: float, *, required: bool
) -> float | None:
    value = payload.get(name)
    if value is None:
        if required:
            raise HTTPError(400, f"{name} is required")
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise HTTPError(400, f"{name} must be a number, got {type(value).__name__}")
    # Compared before any conversion: NaN fails, and a huge int never meets float().
    if not low <= value <= high:
        raise HTTPError(400, f"{name} must be between {low:g} and {high:g}")
    return float(value)


def _flag(payload: Mapping[str, Any], name: str) -> bool:
    value = payload.get(name, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise HTTPError(400, f"{name} must be true or false")
    return value


#: Stored fields that come from the study's key, never from the page: what names
#: the trial shown, and the systems of a preference's sides and of its answer.
_FROM_KEY = frozenset(
    {
        "instance",
        "dialogue",
        "expression",
        "system_left",
        "system_right",
        "chosen_system",
    }
)
#: What the page sends for a trial: its order and opaque ID, and the answer. The
#: item, system and correctness come from the study's key.
_TRIAL_KEYS = frozenset({"order", "trial", *RESPONSE_FIELDS}) - {"correct"}
_SITUATED_KEYS = (_TRIAL_KEYS | frozenset(SITUATED_FIELDS)) - _FROM_KEY
#: How a situated trial can be answered (seed 000 §5.1: a piece on the board,
#: its numbered button, or "I don't know").
ANSWER_VIA = ("board", "button", "dont_know")


def _situated(payload: Mapping[str, Any], trial: Trial) -> dict[str, Any]:
    """Check the fields of a situated identification trial; return them as stored.

    The record of ``_validate`` (chosen piece or ``cant_tell``) is checked there;
    this checks the clip's plays and the answer's way, and adds what names the
    trial shown, from the study's key.
    """
    record: dict[str, Any] = {
        "instance": trial.item,
        "dialogue": trial.dialogue,
        "expression": trial.expression,
    }
    record["time_ms"] = _number(payload, "time_ms", 0, _MAX_MS, required=True)
    plays = payload.get("plays")
    if isinstance(plays, bool) or not isinstance(plays, int) or plays < 1:
        raise HTTPError(
            400, f"plays must be an integer of 1 or more (clip starts), got {plays!r}"
        )
    replays = payload.get("replays")
    if isinstance(replays, bool) or not isinstance(replays, int):
        raise HTTPError(400, f"replays must be an integer, got {replays!r}")
    if replays != plays - 1:
        raise HTTPError(400, f"replays must be plays - 1 = {plays - 1}, got {replays}")
    if plays > 1_000_000:
        raise HTTPError(400, "plays must be at most 1000000")
    record.update(plays=plays, replays=replays)
    via = payload.get("answer_via")
    if via not in ANSWER_VIA:
        raise HTTPError(
            400, f"answer_via must be one of {', '.join(ANSWER_VIA)}, got {via!r}"
        )
    dont_know = bool(payload.get("cant_tell"))
    if (via == "dont_know") != dont_know:
        raise HTTPError(
            400,
            "answer_via is dont_know exactly when cant_tell is true "
            f"(got answer_via={via}, cant_tell={str(dont_know).lower()})",
        )
    record["answer_via"] = via
    return record


def _text_fields(
    payload: Mapping[str, Any], trial: Trial, study: Study
) -> dict[str, Any]:
    """Check the answer fields of a text rating or preference trial.

    Rating: ``rating_<id>`` per criterion, an integer 1..points (Likert) or
    0-100 (slider). Preference: ``preferred`` (``left``, ``right``, or ``tie``
    when the criterion allows it); the systems of the two sides and the chosen
    one (null for a tie) are stored from the study's key: the page never knows
    them.
    """
    record: dict[str, Any] = {}
    if study.task == "text_rating":
        for criterion in study.criteria:
            name = f"rating_{criterion['id']}"
            if criterion.get("scale") == "slider":
                low, high = 0, 100
            else:
                low, high = 1, int(criterion.get("points") or 5)
            value = payload.get(name)
            if (
                isinstance(value, bool)
                or not isinstance(value, int)
                or not low <= value <= high
            ):
                raise HTTPError(
                    400,
                    f"{name} must be an integer from {low} to {high}, got {value!r}",
                )
            record[name] = value
        return record
    record.update(system_left=trial.system_left, system_right=trial.system_right)
    tie = bool(study.criteria and study.criteria[0].get("allow_tie"))
    answers = ("left", "right", "tie") if tie else ("left", "right")
    preferred = payload.get("preferred")
    if preferred not in answers:
        raise HTTPError(
            400, f"preferred must be one of {', '.join(answers)}, got {preferred!r}"
        )
    chosen = {"left": trial.system_left, "right": trial.system_right}.get(preferred)
    record.update(preferred=preferred, chosen_system=chosen)
    return record


class CollectionApp:
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
            study.web_dir, headers=self._headers, hidden={"MANIFEST.tsv"}
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
                return self._json(start_response, status, body)
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
            return self._json(start_response, error.status, body, error.headers)
        except Exception:  # pragma: no cover - a bug; logged, never shown
            logger.exception("internal error on %s %s", method, path)
            return self._json(start_response, 500, {"error": "internal server error"})

    @staticmethod
    def _headers(
        content_type: str, length: int, csp: str = _CSP
    ) -> list[tuple[str, str]]:
        return [
            ("Content-Type", content_type),
            ("Content-Length", str(length)),
            ("Cache-Control", "no-store"),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
            ("Content-Security-Policy", csp),
        ]

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

    def _json(
        self,
        start_response: Callable[..., Any],
        status: int,
        body: Any,
        headers: Sequence[tuple[str, str]] = (),
    ) -> list[bytes]:
        data = json.dumps(body, sort_keys=True).encode("utf-8")
        start_response(
            f"{status} {REASONS.get(status, 'Error')}",
            self._headers("application/json", len(data)) + list(headers),
        )
        return [data]

    def _session(
        self, db: sqlite3.Connection, environ: Mapping[str, Any]
    ) -> tuple[Any, ...]:
        header = str(environ.get("HTTP_AUTHORIZATION") or "")
        if not header.startswith("Bearer "):
            raise HTTPError(403, "no session token (Authorization: Bearer ...)")
        token = header[len("Bearer ") :].strip()
        if not 20 <= len(token) <= 128:
            raise HTTPError(403, "unknown session")
        digest = hashlib.sha256(token.encode("utf-8")).hexdigest()
        row = db.execute(
            "SELECT session_id, list, participant, completed_s, completion_code, "
            "returned_s FROM sessions WHERE token_sha256 = ?",
            (digest,),
        ).fetchone()
        if row is None:
            raise HTTPError(403, "unknown session")
        return tuple(row)

    @staticmethod
    def _refuse_returned(returned_s: float | None) -> None:
        if returned_s is not None:
            raise HTTPError(
                409,
                "This place was returned to the study, so no more answers can be "
                "recorded for it. Thank you for your time.",
                reason="place_returned",
            )

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

    def _with_list(self, reply: tuple[int, Any]) -> tuple[int, Any]:
        """Add the session's own list, as its participant sees it, to a reply.

        The only way a page gets trials: the list of the session whose token it
        holds, blinded (:mod:`stecflow.studies.blinding`); no request names
        another list.
        """
        status, body = reply
        if isinstance(body, dict) and body.get("list") is not None:
            body = {**body, "stimuli": self.study.participant_lists[body["list"]]}
        return status, body

    # ----------------------------------------------------------------- endpoints

    def _usage(self, db: sqlite3.Connection, now: float) -> dict[str, tuple[int, int]]:
        cutoff = now - self.abandon_after_s
        usage = {list_id: (0, 0) for list_id in self._list_ids}
        for list_id, done, active in db.execute(
            "SELECT list, SUM(completed_s IS NOT NULL), "
            "SUM(completed_s IS NULL AND returned_s IS NULL AND last_seen_s >= ?) "
            "FROM sessions GROUP BY list",
            (cutoff,),
        ):
            if list_id in usage:
                usage[list_id] = (int(done or 0), int(active or 0))
        return usage

    def _create_session(
        self,
        environ: Mapping[str, Any],
        payload: Mapping[str, Any],
        note: dict[str, Any],
    ) -> tuple[int, Any]:
        known = {"participant", "study_id", "external_session", "consent", "attempt"}
        unknown = sorted(set(payload) - known)
        if unknown:
            raise HTTPError(400, f"unknown field(s): {', '.join(unknown)}")
        attempt = payload.get("attempt")
        if attempt is not None and (
            not isinstance(attempt, str)
            or not re.fullmatch(r"[A-Za-z0-9_-]{22,64}", attempt)
        ):
            raise HTTPError(400, "attempt must be 22-64 letters, digits, - or _")
        ids = {}
        for name in ("study_id", "external_session"):
            value = payload.get(name)
            if value is not None and (
                not isinstance(value, str) or not _NAME.fullmatch(value)
            ):
                raise HTTPError(400, f"{name} must be 1-64 letters, digits, - or _")
            ids[name] = value
        consent = payload.get("consent")
        if consent is not None and not isinstance(consent, bool):
            raise HTTPError(400, "consent must be true or false")
        if self.study.consent and consent is not True:
            note["reason"] = "no consent"
            raise HTTPError(
                400,
                "This study records answers only from participants who agreed to "
                "take part on its consent page. Please open the study again from "
                "the link you were given and read the consent page.",
                reason="consent_needed",
            )
        participant = payload.get("participant")
        if participant is not None and (
            not isinstance(participant, str) or not _PARTICIPANT.fullmatch(participant)
        ):
            raise HTTPError(400, "participant must be 1-64 letters, digits, - or _")
        if participant is None and self.require_participant:
            raise HTTPError(
                400,
                "this study needs your participant ID: open the study with the "
                "link you were given (its address ends in ?participant=..., "
                "?PROLIFIC_PID=..., ?pid=... or ?workerId=...)",
                reason="participant_needed",
            )
        now = self.clock()
        client = client_key(environ, self.behind_proxy)
        retried = False
        if attempt is not None:  # a retry opens no session: the limit lets it pass
            with self.store.connection() as db:
                retried = (
                    self._refuse_repeat(db, participant, attempt, note) is not None
                )
        wait = 0.0 if retried else self._session_limit.take(client, now)
        if wait > 0:
            retry = max(1, math.ceil(wait))
            logger.debug("session limit reached by %s", client)
            raise HTTPError(
                429,
                "too many sessions were started from your network; "
                f"please try again in {retry} seconds",
                headers=[("Retry-After", str(retry))],
                retry_after_s=retry,
                reason="too_many_sessions",
            )
        try:
            status, body = self._open_session(
                participant, now, ids, consent is True, note, attempt
            )
        except BaseException:
            if not retried:
                self._session_limit.give_back(client, now)
            raise
        if status == 200 and not retried:  # found a retry only in the transaction
            self._session_limit.give_back(client, now)
        return status, body

    def _open_session(
        self,
        participant: str | None,
        now: float,
        ids: Mapping[str, str | None],
        consent: bool,
        note: dict[str, Any],
        attempt: str | None = None,
    ) -> tuple[int, Any]:
        """Open a session (201), or answer a retry with the session it opened (200).

        With an *attempt* key the token is derived from the key and the session
        ID, so a retry gets the same token without the token being stored: the
        database holds only SHA-256 digests of the key and of the token, and a
        copy of it gives neither. A token that did reach the page (in another
        tab) stays valid. Without a key the token is random.
        """
        session_id = secrets.token_hex(8)
        answered: list[int] = []
        with self.store.transaction() as db:
            retried = self._refuse_repeat(db, participant, attempt, note)
            if retried is not None:
                session_id = retried
                (chosen,) = db.execute(
                    "SELECT list FROM sessions WHERE session_id = ?", (session_id,)
                ).fetchone()
                db.execute(
                    "UPDATE sessions SET last_seen_s = ? WHERE session_id = ?",
                    (now, session_id),
                )
                answered = [
                    int(r[0])
                    for r in db.execute(
                        'SELECT "order" FROM trials WHERE session_id = ? '
                        'ORDER BY "order"',
                        (session_id,),
                    )
                ]
            else:
                (count,) = db.execute("SELECT COUNT(*) FROM sessions").fetchone()
                if count >= self.max_sessions:
                    # 409, not 503: the page retries 5xx, and a full study stays full
                    raise HTTPError(
                        409,
                        "This study is full and takes no more participants. Thank"
                        " you for your interest.",
                        reason="study_full",
                    )
                usage = self._usage(db, now)
                position = {list_id: k for k, list_id in enumerate(self._list_ids)}
                chosen = min(
                    self._list_ids,
                    key=lambda k: (sum(usage[k]), usage[k][0], position[k]),
                )
            if attempt is None:
                token = secrets.token_urlsafe(32)
            else:
                seed = f"stecflow session token\0{session_id}\0{attempt}".encode()
                token = base64.urlsafe_b64encode(hashlib.sha256(seed).digest())
                token = token.rstrip(b"=").decode("ascii")
            if retried is None:
                db.execute(
                    "INSERT INTO sessions (session_id, token_sha256, list, "
                    "participant, created_s, last_seen_s, study_id, "
                    "external_session, consent, attempt_sha256) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        session_id,
                        hashlib.sha256(token.encode("utf-8")).hexdigest(),
                        chosen,
                        participant,
                        now,
                        now,
                        ids.get("study_id"),
                        ids.get("external_session"),
                        1 if consent else None,
                        None
                        if attempt is None
                        else hashlib.sha256(attempt.encode("ascii")).hexdigest(),
                    ),
                )
        note.update(session=session_id, list=chosen)
        if retried is not None:
            note["duplicate"] = True
        logger.info(
            "session %s: list %s%s", session_id, chosen, " (retried)" if retried else ""
        )
        return 200 if retried else 201, {
            "token": token,
            "session_id": session_id,
            "list": chosen,
            "answered": answered,
            "completed": False,
            "completion_code": None,
        }

    @staticmethod
    def _refuse_repeat(
        db: sqlite3.Connection,
        participant: str | None,
        attempt: str | None,
        note: dict[str, Any],
    ) -> str | None:
        """The session a request retries (its ID), or None; refuse a repeat.

        A request with the attempt key of an open session (neither completed nor
        returned) of the same participant ID, or of no ID when it gives none,
        retries it: the page sends its key again when the answer to its first
        request was lost. Otherwise: one session per participant ID, unless the
        organiser marked it returned. A second session would show the participant
        a second list (items seen twice, two sets of judgments from one person).
        A place marked returned (``stecflow sessions return``) frees the ID for a
        new attempt.
        """
        if attempt is not None:
            found = db.execute(
                "SELECT session_id FROM sessions WHERE attempt_sha256 = ? "
                "AND participant IS ? AND completed_s IS NULL AND returned_s IS NULL "
                "ORDER BY created_s DESC LIMIT 1",
                (hashlib.sha256(attempt.encode("ascii")).hexdigest(), participant),
            ).fetchone()
            if found is not None:
                return str(found[0])
        if participant is None:
            return None
        found = db.execute(
            "SELECT completed_s FROM sessions WHERE participant = ? "
            "AND returned_s IS NULL LIMIT 1",
            (participant,),
        ).fetchone()
        if found is None:
            return None
        note["reason"] = "repeat participant"
        if found[0] is not None:
            raise HTTPError(
                409,
                "You have already completed this study: each person takes part"
                " once. Thank you for your help.",
                reason="already_completed",
            )
        raise HTTPError(
            409,
            "You have already started this study. Please continue in the browser"
            " and on the device where you began; if you cannot, contact the"
            " researcher named on the consent page.",
            reason="already_started",
        )

    def _state(self, environ: Mapping[str, Any]) -> tuple[int, Any]:
        with self.store.transaction() as db:
            session_id, list_id, _, completed_s, code, _ = self._session(db, environ)
            db.execute(
                "UPDATE sessions SET last_seen_s = ? WHERE session_id = ?",
                (self.clock(), session_id),
            )
            answered = [
                int(r[0])
                for r in db.execute(
                    'SELECT "order" FROM trials WHERE session_id = ? ORDER BY "order"',
                    (session_id,),
                )
            ]
        return 200, {
            "session_id": session_id,
            "list": list_id,
            "answered": answered,
            "completed": completed_s is not None,
            "completion_code": code,
        }

    def _validate(self, payload: Mapping[str, Any], trial: Trial) -> dict[str, Any]:
        if payload.get("trial") != trial.trial_id:
            raise HTTPError(
                400,
                f"trial {trial.order} of this list is {trial.trial_id}, not "
                f"{payload.get('trial')!r}",
            )
        record: dict[str, Any] = dict.fromkeys(RESPONSE_FIELDS)
        if self.study.text:
            record["rt_ms"] = _number(payload, "rt_ms", 0, _MAX_MS, required=True)
            for name in RESPONSE_FIELDS:
                if name != "rt_ms" and payload.get(name) not in (None, False):
                    raise HTTPError(
                        400, f"{name} does not belong to a {self.study.task} trial"
                    )
            return record
        if self.study.task == "rating":
            for name in ("adequacy", "fluency"):
                value = payload.get(name)
                if isinstance(value, bool) or not isinstance(value, int):
                    raise HTTPError(400, f"{name} must be an integer from 1 to 100")
                if not 1 <= value <= 100:
                    raise HTTPError(400, f"{name} must be an integer from 1 to 100")
                record[name] = value
            record["rt_ms"] = _number(payload, "rt_ms", 0, _MAX_MS, required=True)
            for name in RESPONSE_FIELDS:
                if name not in ("adequacy", "fluency", "rt_ms") and payload.get(
                    name
                ) not in (None, False):
                    raise HTTPError(400, f"{name} does not belong to a rating trial")
            return record
        for name in ("adequacy", "fluency"):
            if payload.get(name) is not None:
                raise HTTPError(400, f"{name} does not belong to identification")
        chosen = payload.get("chosen_entity")
        if trial.labels and chosen is not None:
            # the page shows labels (stecflow.studies.blinding); store the entity
            if not isinstance(chosen, str) or chosen not in trial.labels:
                raise HTTPError(400, "chosen_entity is not an entity of this trial")
            chosen = trial.labels[chosen]
        if chosen is not None and (
            not isinstance(chosen, str) or chosen not in trial.entities
        ):
            if self.study.situated:
                raise HTTPError(
                    400,
                    f"chosen_entity {chosen!r} is not a piece of trial "
                    f"{trial.order} (its pieces: {', '.join(sorted(trial.entities))})",
                )
            raise HTTPError(400, "chosen_entity is not an entity of this trial")
        if self.study.situated and _flag(payload, "timeout"):
            raise HTTPError(
                400, "a situated trial has no time-out (seed 000 sets none)"
            )
        cant_tell = _flag(payload, "cant_tell")
        timeout = _flag(payload, "timeout")
        if (chosen is not None) + cant_tell + timeout != 1:
            raise HTTPError(
                400, "give exactly one of chosen_entity, cant_tell=true, timeout=true"
            )
        record.update(chosen_entity=chosen, cant_tell=cant_tell, timeout=timeout)
        if chosen is not None:
            record["correct"] = chosen == trial.target
        else:
            record["correct"] = False if cant_tell else None
        answered = not timeout
        record["identification_time_ms"] = _number(
            payload, "identification_time_ms", 0, _MAX_MS, required=answered
        )
        record["rt_ms"] = _number(payload, "rt_ms", 0, _MAX_MS, required=answered)
        record["reading_time_ms"] = _number(
            payload,
            "reading_time_ms",
            0,
            _MAX_MS,
            required=self.study.variant == "read_first",
        )
        record["audio_onset_ms"] = _number(
            payload, "audio_onset_ms", 0, _MAX_MS, required=False
        )
        record["click_x"] = _number(payload, "click_x", 0, 1, required=False)
        record["click_y"] = _number(payload, "click_y", 0, 1, required=False)
        return record

    def _store_trial(
        self,
        environ: Mapping[str, Any],
        payload: Mapping[str, Any],
        note: dict[str, Any],
    ) -> tuple[int, Any]:
        allowed = _SITUATED_KEYS if self.study.situated else _TRIAL_KEYS
        if self.study.text:
            allowed = (
                _TRIAL_KEYS | set(self.study.columns[len(RESPONSE_COLUMNS) :])
            ) - _FROM_KEY
        unknown = sorted(set(payload) - allowed)
        if unknown:
            raise HTTPError(400, f"unknown field(s): {', '.join(unknown)}")
        order = payload.get("order")
        if isinstance(order, bool) or not isinstance(order, int):
            raise HTTPError(400, "order must be an integer")
        with self.store.transaction() as db:
            session_id, list_id, _, _, _, returned_s = self._session(db, environ)
            note.update(session=session_id, list=list_id, order=order)
            self._refuse_returned(returned_s)
            trial = self.study.lists[list_id].get(order)
            if trial is None:
                raise HTTPError(400, f"list {list_id} has no trial {order}")
            record = self._validate(payload, trial)
            extra = _situated(payload, trial) if self.study.situated else None
            answers = (
                _text_fields(payload, trial, self.study) if self.study.text else {}
            )
            now = self.clock()
            cursor = db.execute(
                'INSERT OR IGNORE INTO trials (session_id, "order", list, item, '
                "system, subdomain, practice, filler, target_entity, "
                + ", ".join(RESPONSE_FIELDS)
                + ", received_s) VALUES ("
                + ", ".join("?" * (10 + len(RESPONSE_FIELDS)))
                + ")",
                (
                    session_id,
                    order,
                    list_id,
                    trial.item,
                    trial.system,
                    trial.subdomain,
                    int(trial.practice),
                    int(trial.filler),
                    trial.target,
                    *(
                        int(record[k]) if isinstance(record[k], bool) else record[k]
                        for k in RESPONSE_FIELDS
                    ),
                    now,
                ),
            )
            stored = cursor.rowcount == 1
            if stored and extra is not None:
                db.execute(
                    'INSERT INTO situated_trials (session_id, "order", '
                    + ", ".join(SITUATED_FIELDS)
                    + ") VALUES ("
                    + ", ".join("?" * (2 + len(SITUATED_FIELDS)))
                    + ")",
                    (session_id, order, *(extra[k] for k in SITUATED_FIELDS)),
                )
            if stored and answers:
                db.executemany(
                    'INSERT INTO text_trials (session_id, "order", name, value) '
                    "VALUES (?, ?, ?, ?)",
                    [(session_id, order, k, v) for k, v in answers.items()],
                )
            db.execute(
                "UPDATE sessions SET last_seen_s = ? WHERE session_id = ?",
                (now, session_id),
            )
        if stored:
            return 201, {"stored": True, "order": order}
        note["duplicate"] = True
        return 200, {"stored": False, "duplicate": True, "order": order}

    def _store_answers(
        self,
        environ: Mapping[str, Any],
        payload: Mapping[str, Any],
        note: dict[str, Any],
    ) -> tuple[int, Any]:
        unknown = sorted(set(payload) - {"screen", "answers"})
        if unknown:
            raise HTTPError(400, f"unknown field(s): {', '.join(unknown)}")
        screen = payload.get("screen")
        if not isinstance(screen, str) or not _NAME.fullmatch(screen):
            raise HTTPError(400, "screen must be 1-64 letters, digits, - or _")
        answers = payload.get("answers")
        if not isinstance(answers, dict):
            raise HTTPError(400, "answers must be an object of field: value")
        if len(answers) > MAX_ANSWER_FIELDS:
            raise HTTPError(
                400, f"a screen has at most {MAX_ANSWER_FIELDS} answer fields"
            )
        rows = []
        for field, value in answers.items():
            if not _NAME.fullmatch(field):
                raise HTTPError(
                    400,
                    f"answer field {field[:70]!r} must be 1-64 letters, digits, - or _",
                )
            if isinstance(value, str):
                if len(value) > MAX_ANSWER_CHARS:
                    raise HTTPError(
                        400,
                        f"answer {field} is longer than {MAX_ANSWER_CHARS} characters",
                    )
            elif value is not None and not isinstance(value, bool | int | float):
                raise HTTPError(
                    400,
                    f"answer {field} must be a string, number, true, false or null",
                )
            rows.append((field, json.dumps(value, ensure_ascii=False)))
        with self.store.transaction() as db:
            session_id, list_id, _, _, _, returned_s = self._session(db, environ)
            note.update(session=session_id, list=list_id, screen=screen)
            self._refuse_returned(returned_s)
            screens = {
                r[0]
                for r in db.execute(
                    "SELECT DISTINCT screen FROM answers WHERE session_id = ?",
                    (session_id,),
                )
            }
            if screen not in screens and len(screens) >= MAX_SCREENS:
                raise HTTPError(400, f"a session has at most {MAX_SCREENS} screens")
            now = self.clock()
            db.execute(
                "DELETE FROM answers WHERE session_id = ? AND screen = ?",
                (session_id, screen),
            )
            db.executemany(
                "INSERT INTO answers (session_id, screen, field, value_json, "
                "received_s) VALUES (?, ?, ?, ?, ?)",
                [(session_id, screen, f, v, now) for f, v in rows],
            )
            db.execute(
                "UPDATE sessions SET last_seen_s = ? WHERE session_id = ?",
                (now, session_id),
            )
        note["fields"] = len(rows)
        return 200, {"stored": len(rows)}

    def _complete(
        self, environ: Mapping[str, Any], note: dict[str, Any]
    ) -> tuple[int, Any]:
        with self.store.transaction() as db:
            session_id, list_id, _, completed_s, code, returned_s = self._session(
                db, environ
            )
            note.update(session=session_id, list=list_id)
            if completed_s is not None:
                note["duplicate"] = True
                return 200, {"completion_code": code}
            self._refuse_returned(returned_s)
            have = {
                int(r[0])
                for r in db.execute(
                    'SELECT "order" FROM trials WHERE session_id = ?', (session_id,)
                )
            }
            missing = sorted(set(self.study.lists[list_id]) - have)
            if missing:
                raise HTTPError(409, "trials are missing", missing=missing)
            code = self.study.completion_code or secrets.token_hex(4).upper()
            now = self.clock()
            db.execute(
                "UPDATE sessions SET completed_s = ?, completion_code = ?, "
                "last_seen_s = ? WHERE session_id = ?",
                (now, code, now, session_id),
            )
        logger.info("session %s completed list %s", session_id, list_id)
        return 200, {"completion_code": code}

    # ----------------------------------------------------------------- organiser

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
            return self._json(start_response, *self._return(environ))
        now = self.clock()
        if route in ("progress", "progress.json"):
            data = self.progress(now)
            if route == "progress.json":
                return self._json(start_response, 200, data)
            page = progress_html(data).encode("utf-8")
            start_response(
                "200 OK",
                self._headers("text/html; charset=utf-8", len(page), _ADMIN_CSP),
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
        headers = self._headers(
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
        if unknown or not isinstance(ident, str) or not _NAME.fullmatch(ident):
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

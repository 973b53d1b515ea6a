"""The participant's endpoints under ``api/``: sessions, trials, answers, completion.

Owns :class:`ParticipantEndpoints`, the part of
:class:`~stecflow.studies.server.app.CollectionApp` that opens a session (the
even filling of lists, one session per participant ID, retries with an attempt
key, the per-address limit), answers with the session's state and list, stores
each answered trial and each questionnaire screen once checked
(:mod:`~stecflow.studies.server.checks`), and completes the session.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import math
import re
import secrets
import sqlite3
from collections.abc import Callable, Mapping
from typing import Any

from stecflow.serving.request import HTTPError, RateLimit, client_key
from stecflow.studies.server.checks import (
    FIELD_NAME,
    MAX_SCREENS,
    PARTICIPANT_ID,
    check_answers,
    check_trial,
    situated_fields,
    text_fields,
    trial_keys,
)
from stecflow.studies.server.store import RESPONSE_FIELDS, SITUATED_FIELDS, Store
from stecflow.studies.server.study import Study

__all__ = ["ParticipantEndpoints"]

# the name these log lines have always had (they were written by app.py)
logger = logging.getLogger("stecflow.studies.server.app")


class ParticipantEndpoints:
    """The participant's side of :class:`~stecflow.studies.server.app.CollectionApp`.

    A mixin: the application holds the study, the store, the clock and the limits
    it reads (declared here for the type checker).
    """

    study: Study
    store: Store
    clock: Callable[[], float]
    abandon_after_s: float
    max_sessions: int
    require_participant: bool
    behind_proxy: bool
    _session_limit: RateLimit
    _list_ids: list[str]

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
                not isinstance(value, str) or not FIELD_NAME.fullmatch(value)
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
            not isinstance(participant, str)
            or not PARTICIPANT_ID.fullmatch(participant)
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

    def _store_trial(
        self,
        environ: Mapping[str, Any],
        payload: Mapping[str, Any],
        note: dict[str, Any],
    ) -> tuple[int, Any]:
        allowed = trial_keys(self.study)
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
            record = check_trial(payload, trial, self.study)
            extra = situated_fields(payload, trial) if self.study.situated else None
            answers = text_fields(payload, trial, self.study) if self.study.text else {}
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
        screen, rows = check_answers(payload)
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

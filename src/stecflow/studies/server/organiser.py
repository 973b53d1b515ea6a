"""What the organiser does beside the participants: tokens, returned places, backups.

Owns :func:`check_admin_token` (the organiser's token, from the request's
``Authorization`` header, compared in constant time), :func:`admin_token_from`
(the token from an option, a file or the environment variable
:data:`ADMIN_TOKEN_ENV`), :func:`mark_returned` (a place the crowdsourcing
platform returned or timed out: its session stops holding its list) and
:func:`backup_database` (a consistent copy of the database while the server
runs, with SQLite's online backup, stamped with its time and entered in the
database's backup register, :func:`backups_path`), :func:`withdraw_participant`
(a participant who withdraws: every session erased, an audit line without
personal data in the withdrawals file of
:mod:`stecflow.studies.server.withdrawals`, and each registered backup that
still holds the sessions marked, :func:`withdrawn_marker_path`) and
:func:`list_backups` (the register, each backup with whether it holds withdrawn
data).
"""

from __future__ import annotations

import base64
import binascii
import csv
import hmac
import os
import sqlite3
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from stecflow.serving.request import HTTPError
from stecflow.studies.server.events import utc_iso
from stecflow.studies.server.store import Store
from stecflow.studies.server.study import CollectionError
from stecflow.studies.server.withdrawals import (
    HASH_CHARS,
    Withdrawal,
    append_withdrawal,
    id_hash,
    key_check,
    pseudonym_digits,
    read_withdrawals,
    withdrawals_path,
)

__all__ = [
    "ADMIN_TOKEN_ENV",
    "BACKUP_COLUMNS",
    "MIN_ADMIN_TOKEN",
    "admin_token_from",
    "backup_database",
    "backups_path",
    "check_admin_token",
    "list_backups",
    "mark_returned",
    "record_withdrawal",
    "withdraw_participant",
    "withdrawn_marker_path",
]

#: The environment variable that holds the organiser's token.
ADMIN_TOKEN_ENV = "STECFLOW_ADMIN_TOKEN"
#: The shortest organiser token accepted (characters).
MIN_ADMIN_TOKEN = 16


def admin_token_from(
    token: str | None = None,
    token_file: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> str | None:
    """The organiser's token: *token*, else the first line of *token_file*, else
    the environment variable :data:`ADMIN_TOKEN_ENV`; None when none is set.

    Raises
    ------
    CollectionError
        The token is shorter than :data:`MIN_ADMIN_TOKEN` characters, has
        white space or other characters than printable ASCII, or the file
        cannot be read.
    """
    env = os.environ if environ is None else environ
    field = "admin_token"
    if token is None and token_file is not None:
        field = "admin_token_file"
        try:
            lines = Path(token_file).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as error:
            raise CollectionError(
                f"cannot read the organiser's token file ({error})",
                file=str(token_file),
            ) from None
        token = lines[0].strip() if lines else ""
    if token is None:
        token = env.get(ADMIN_TOKEN_ENV) or None
        field = ADMIN_TOKEN_ENV
    if token is None:
        return None
    if len(token) < MIN_ADMIN_TOKEN or not all(33 <= ord(c) <= 126 for c in token):
        raise CollectionError(
            f"the organiser's token must be at least {MIN_ADMIN_TOKEN} printable "
            'characters without spaces; make one with: python -c "import secrets; '
            'print(secrets.token_urlsafe(32))"',
            field=field,
        )
    return token


def check_admin_token(environ: Mapping[str, Any], token: str | None) -> None:
    """Let a request through only with the organiser's *token*.

    The token comes as ``Authorization: Bearer <token>`` (scripts) or as the
    password of ``Authorization: Basic`` (a browser asks for it; any user name).
    Compared with :func:`hmac.compare_digest`.

    Raises
    ------
    HTTPError
        404 when no token is configured (the organiser's pages are off), 401
        with ``WWW-Authenticate`` otherwise.
    """
    if token is None:
        raise HTTPError(404, "no such page")
    header = str(environ.get("HTTP_AUTHORIZATION") or "")
    given = ""
    if header.startswith("Bearer "):
        given = header[len("Bearer ") :].strip()
    elif header.startswith("Basic "):
        try:
            decoded = base64.b64decode(header[len("Basic ") :].strip(), validate=True)
            given = decoded.decode("utf-8").partition(":")[2]
        except (binascii.Error, UnicodeDecodeError):
            given = ""
    if not hmac.compare_digest(given.encode("utf-8"), token.encode("utf-8")):
        raise HTTPError(
            401,
            "the organiser's token is required (Authorization: Bearer <token>, "
            "or the password the browser asks for)",
            headers=[("WWW-Authenticate", 'Basic realm="stecflow organiser"')],
        )


def mark_returned(store: Store, ident: str, now: float) -> dict[str, Any]:
    """Mark a session's place returned (or timed out) on the platform.

    The session no longer holds its list (the next participant may get it) and
    can no longer send answers; it stays in the database and the exports, with
    status ``returned``.

    Parameters
    ----------
    store : Store
        The study's database.
    ident : str
        The session ID, the platform's session ID (``external_session``) or the
        participant ID.
    now : float
        The time of the return (seconds since the epoch).

    Returns
    -------
    dict
        ``session``, ``list``, ``returned_utc`` seconds (``returned_s``) and
        ``already`` (true when it was marked before; nothing changes then).

    Raises
    ------
    CollectionError
        No session or several match *ident*, or the session is completed.
    """
    with store.transaction() as db:
        found = db.execute(
            "SELECT session_id, list, completed_s, returned_s FROM sessions "
            "WHERE session_id = ? OR external_session = ? OR participant = ? "
            "ORDER BY created_s",
            (ident, ident, ident),
        ).fetchall()
        if not found:
            raise CollectionError(
                f"no session has the session, platform session or participant ID "
                f"{ident!r}",
                field="session",
            )
        if len(found) > 1:
            ids = ", ".join(r[0] for r in found)
            raise CollectionError(
                f"{ident!r} matches {len(found)} sessions ({ids}); give the session "
                "ID of the one to mark returned",
                field="session",
            )
        session_id, list_id, completed_s, returned_s = found[0]
        if completed_s is not None:
            raise CollectionError(
                f"session {session_id} is completed (list {list_id}); a completed "
                "place is not returned",
                field="session",
            )
        already = returned_s is not None
        if not already:
            db.execute(
                "UPDATE sessions SET returned_s = ? WHERE session_id = ?",
                (now, session_id),
            )
            returned_s = now
    return {
        "session": session_id,
        "list": list_id,
        "returned_s": returned_s,
        "already": already,
    }


def backup_database(
    db_path: str | Path, out_path: str | Path, now: float | None = None
) -> dict[str, int]:
    """Copy a study's database consistently, even while the server writes to it.

    Uses SQLite's online backup (:meth:`sqlite3.Connection.backup`, in one step:
    the copy is the database at one moment, every transaction either in it or
    not), checks the copy (``PRAGMA integrity_check``) and only then moves it to
    *out_path* (so a failed backup never leaves half a file there). The copy's
    ``meta`` table gets ``backup_utc`` (the time of the copy, *now* or the
    clock's), and the copy is entered in the database's backup register
    (:func:`backups_path`), so that a later withdrawal can mark it
    (:func:`withdraw_participant`).

    Returns
    -------
    dict
        ``sessions`` and ``trials`` in the copy.

    Raises
    ------
    CollectionError
        The database is missing, or the copy fails its check.
    """
    source_path = Path(db_path)
    out = Path(out_path)
    if not source_path.is_file():
        raise CollectionError("the database does not exist", file=str(source_path))
    if out.resolve() == source_path.resolve():
        raise CollectionError(
            "the backup must go to another file than the database", file=str(out)
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(
        prefix=f".{out.name}.", suffix=".part", dir=out.parent
    )
    os.close(handle)
    source = sqlite3.connect(source_path, timeout=30.0)
    try:
        target = sqlite3.connect(temporary)
        try:
            source.backup(target)
            (check,) = target.execute("PRAGMA integrity_check").fetchone()
            if check != "ok":
                raise CollectionError(
                    f"the copy failed SQLite's integrity check ({check})",
                    file=str(out),
                )
            counts = {
                name: int(target.execute(f"SELECT COUNT(*) FROM {name}").fetchone()[0])
                for name in ("sessions", "trials")
            }
            stamp = utc_iso(time.time() if now is None else now)
            if target.execute(_HAS_META).fetchone():
                with target:
                    target.execute(
                        "INSERT OR REPLACE INTO meta (key, value) "
                        "VALUES ('backup_utc', ?)",
                        (stamp,),
                    )
        finally:
            target.close()
        os.replace(temporary, out)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    finally:
        source.close()
    _register_backup(source_path, out, str(stamp), counts)
    return counts


_HAS_META = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
#: The columns of a database's backup register (:func:`backups_path`).
BACKUP_COLUMNS = ("backup_utc", "path", "sessions", "trials")


def backups_path(db_path: str | Path) -> Path:
    """The backup register of a database: ``<stem>.backups.tsv`` beside it, one
    line per :func:`backup_database` copy (:data:`BACKUP_COLUMNS`; ``path``
    absolute).

    >>> backups_path("results/studies/rating/responses.sqlite").as_posix()
    'results/studies/rating/responses.backups.tsv'
    """
    db = Path(db_path)
    return db.with_name(f"{db.stem}.backups.tsv")


def withdrawn_marker_path(backup: str | Path) -> Path:
    """The marker beside a backup that holds withdrawn participants' data:
    ``<backup file name>.withdrawn.tsv``, with the withdrawals' audit lines.

    >>> withdrawn_marker_path("backups/rating-1.sqlite").as_posix()
    'backups/rating-1.sqlite.withdrawn.tsv'
    """
    path = Path(backup)
    return path.with_name(f"{path.name}.withdrawn.tsv")


def _register_backup(
    db_path: Path, out: Path, stamp: str, counts: dict[str, int]
) -> None:
    register = backups_path(db_path)
    new = not register.exists() or register.stat().st_size == 0
    with open(register, "a", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
        if new:
            writer.writerow(BACKUP_COLUMNS)
        writer.writerow(
            [stamp, str(out.resolve()), counts["sessions"], counts["trials"]]
        )


def _read_register(db_path: Path) -> list[dict[str, str]]:
    register = backups_path(db_path)
    if not register.is_file():
        return []
    with open(register, encoding="utf-8", newline="") as handle:
        return [
            row
            for row in csv.DictReader(handle, delimiter="\t")
            if row.get("path") and row.get("backup_utc")
        ]


def _matching_sessions(
    rows: list[tuple[Any, ...]], ident: str, key: str
) -> list[tuple[Any, ...]]:
    """The rows (session_id, participant, external_session) of one person:
    those *ident* names (an ID, a release pseudonym or a recorded hash), then
    every other session of their participant IDs."""
    digits = pseudonym_digits(ident)
    found = []
    for row in rows:
        ids = [str(v) for v in row if v]
        if ident in ids or (
            digits is not None and any(id_hash(v, key).startswith(digits) for v in ids)
        ):
            found.append(row)
    people = {row[1] for row in found if row[1]}
    return [row for row in rows if row in found or (row[1] and row[1] in people)]


def withdraw_participant(
    store: Store,
    ident: str,
    key: str,
    now: float,
    *,
    record_only: bool = False,
) -> dict[str, Any]:
    """Erase a participant's sessions from the database and record the withdrawal.

    Every session *ident* names (its session, platform session or participant
    ID; a release pseudonym such as ``P07-3fa2b19c0d``; or a hash from an audit
    line), with every other session of the same participant ID, is deleted
    with its trials, its situated or text answer fields and its questionnaire
    answers, in one transaction and with SQLite's ``secure_delete`` (the freed
    pages are overwritten), then the write-ahead log is checkpointed and
    truncated so that no copy of the rows stays in it. One audit line goes to
    the withdrawals file beside the database
    (:func:`~stecflow.studies.server.withdrawals.withdrawals_path`): the time,
    the keyed hashes of the sessions' IDs and the counts erased, no ID. Each
    backup of the register (:func:`backups_path`) that still holds one of the
    sessions gets the same line in its marker (:func:`withdrawn_marker_path`).

    Parameters
    ----------
    store : Store
        The study's database.
    ident : str
        Who withdraws (see above).
    key : str
        The campaign's release key (``release.key``, else the campaign ID): the
        hashes are keyed with it, as the release's pseudonyms are.
    now : float
        The time of the withdrawal (seconds since the epoch).
    record_only : bool, default False
        Record the withdrawal even when no session matches (answers collected
        elsewhere: offline files, the lab); the hash is then that of *ident*
        (or its pseudonym's digits).

    Returns
    -------
    dict
        ``sessions``, ``trials``, ``answers`` (counts erased), ``hashes``,
        ``record`` (the withdrawals file), ``backups`` (the backups marked) and
        ``log_truncated`` (false when a reader, e.g. the running server, kept
        the write-ahead log from being emptied; SQLite empties and removes it
        when the last connection closes, i.e. when the server stops).

    Raises
    ------
    CollectionError
        No session matches *ident* (and not *record_only*).
    """
    record = withdrawals_path(store.path)
    with store.transaction() as db:
        db.execute("PRAGMA secure_delete = ON")
        everyone = db.execute(
            "SELECT session_id, participant, external_session FROM sessions "
            "ORDER BY created_s, session_id"
        ).fetchall()
        found = _matching_sessions(everyone, ident, key)
        if not found and not record_only:
            raise CollectionError(
                f"no session has the session, platform session or participant ID, "
                f"or the pseudonym, {ident!r}; nothing was erased. If the person's "
                "answers were collected elsewhere (offline files, the lab), give "
                "--record-only to record the withdrawal for the workflow",
                field="participant",
            )
        ids = [row[0] for row in found]
        marks = ",".join("?" * len(ids))
        counts = {"sessions": len(ids), "trials": 0, "answers": 0}
        if ids:
            counts["trials"] = int(
                db.execute(
                    f"SELECT COUNT(*) FROM trials WHERE session_id IN ({marks})", ids
                ).fetchone()[0]
            )
            counts["answers"] = int(
                db.execute(
                    f"SELECT COUNT(*) FROM answers WHERE session_id IN ({marks})", ids
                ).fetchone()[0]
            )
            for table in (
                "text_trials",
                "situated_trials",
                "trials",
                "answers",
                "sessions",
            ):
                db.execute(f"DELETE FROM {table} WHERE session_id IN ({marks})", ids)
        hashes = {id_hash(str(v), key)[:HASH_CHARS] for row in found for v in row if v}
        if not found:
            hashes = {pseudonym_digits(ident) or id_hash(ident, key)[:HASH_CHARS]}
        withdrawal = Withdrawal(
            str(utc_iso(now)), key_check(key), tuple(sorted(hashes)), **counts
        )
        # recorded before the commit: an erasure is never left unrecorded
        append_withdrawal(record, withdrawal)
    with store.connection() as db:
        # a reader (the server answering a request) is waited for 2 s at most
        db.execute("PRAGMA busy_timeout = 2000")
        try:
            busy = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        finally:
            db.execute("PRAGMA busy_timeout = 30000")
    marked = _mark_backups(store.path, withdrawal, key)
    return {
        **counts,
        "hashes": list(withdrawal.hashes),
        "record": str(record),
        "backups": marked,
        # False while a reader (the running server) kept the log from being
        # emptied: its old pages are overwritten as the server writes on
        "log_truncated": not busy,
    }


def record_withdrawal(
    db_path: str | Path, ident: str, key: str, now: float
) -> dict[str, Any]:
    """Record a withdrawal without a database to erase from (answers collected
    offline or in the lab, or the database is elsewhere): the audit line of
    :func:`withdraw_participant` with the hash of *ident* (or its pseudonym's
    digits) and nothing erased, in the withdrawals file beside *db_path*."""
    record = withdrawals_path(db_path)
    digits = pseudonym_digits(ident) or id_hash(ident, key)[:HASH_CHARS]
    withdrawal = Withdrawal(str(utc_iso(now)), key_check(key), (digits,))
    append_withdrawal(record, withdrawal)
    return {
        "sessions": 0,
        "trials": 0,
        "answers": 0,
        "hashes": [digits],
        "record": str(record),
        "backups": _mark_backups(Path(db_path), withdrawal, key),
        "log_truncated": True,
    }


def _backup_sessions(path: Path) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return db.execute(
            "SELECT session_id, participant, external_session FROM sessions"
        ).fetchall()
    except sqlite3.Error:
        return []
    finally:
        db.close()


def _mark_backups(db_path: Path, withdrawal: Any, key: str) -> list[str]:
    """Mark each registered backup that holds a session of *withdrawal*."""

    marked = []
    for entry in _read_register(db_path):
        path = Path(entry["path"])
        if not path.is_file():
            continue
        holds = any(
            id_hash(str(v), key).startswith(h)
            for row in _backup_sessions(path)
            for v in row
            if v
            for h in withdrawal.hashes
        )
        if holds:
            append_withdrawal(withdrawn_marker_path(path), withdrawal)
            marked.append(str(path))
    return sorted(set(marked))


def list_backups(db_path: str | Path) -> list[dict[str, Any]]:
    """The backups of the register (:func:`backups_path`), oldest first.

    Returns
    -------
    list of dict
        ``backup_utc``, ``path``, ``sessions``, ``trials``, ``exists`` and
        ``withdrawn``: the number of withdrawals whose participants' data the
        backup holds (the lines of its marker, :func:`withdrawn_marker_path`).
    """

    out = []
    for entry in _read_register(Path(db_path)):
        path = Path(entry["path"])
        marker = withdrawn_marker_path(path)
        out.append(
            {
                "backup_utc": entry["backup_utc"],
                "path": str(path),
                "sessions": int(entry.get("sessions") or 0),
                "trials": int(entry.get("trials") or 0),
                "exists": path.is_file(),
                "withdrawn": len(read_withdrawals([marker])) if path.is_file() else 0,
            }
        )
    return sorted(out, key=lambda e: (e["backup_utc"], e["path"]))

"""What the organiser does beside the participants: tokens, returned places, backups.

Owns :func:`check_admin_token` (the organiser's token, from the request's
``Authorization`` header, compared in constant time), :func:`admin_token_from`
(the token from an option, a file or the environment variable
:data:`ADMIN_TOKEN_ENV`), :func:`mark_returned` (a place the crowdsourcing
platform returned or timed out: its session stops holding its list) and
:func:`backup_database` (a consistent copy of the database while the server
runs, with SQLite's online backup).
"""

from __future__ import annotations

import base64
import binascii
import hmac
import os
import sqlite3
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from stecflow.studies.server.request import HTTPError
from stecflow.studies.server.store import Store
from stecflow.studies.server.study import CollectionError

__all__ = [
    "ADMIN_TOKEN_ENV",
    "MIN_ADMIN_TOKEN",
    "admin_token_from",
    "backup_database",
    "check_admin_token",
    "mark_returned",
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


def backup_database(db_path: str | Path, out_path: str | Path) -> dict[str, int]:
    """Copy a study's database consistently, even while the server writes to it.

    Uses SQLite's online backup (:meth:`sqlite3.Connection.backup`, in one step:
    the copy is the database at one moment, every transaction either in it or
    not), checks the copy (``PRAGMA integrity_check``) and only then moves it to
    *out_path* (so a failed backup never leaves half a file there).

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
        finally:
            target.close()
        os.replace(temporary, out)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    finally:
        source.close()
    return counts

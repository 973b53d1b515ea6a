"""The per-session event log: one JSON object per line (JSON Lines), bounded.

Owns :class:`EventLog`, which the application writes one line to for every
session event, and :func:`utc_iso`, the time format of the log and the exports.

Each line has, in this order: ``time`` (ISO 8601 UTC with milliseconds and
``Z``), ``event`` (``created``, ``refused``, ``answers``, ``trial``,
``completed``, ``returned``), ``status`` (the HTTP status code answered),
``session`` (the public session ID, never its token; null when none was opened),
``list``, ``order`` (trial events), then event-specific fields: ``screen`` and
``fields`` (answers), ``duplicate`` (a trial re-sent, or a ``created`` with
status 200: a session request retried with its attempt key), ``reason`` (a
refusal or error, in plain words), ``by`` (``organiser`` for a place marked
returned) and, only when the log is configured to, ``address`` (the client
address as the session limit counts it). Participant IDs and tokens are never written.

The file is bounded: when it would exceed *max_bytes*, it is renamed to
``<name>.1`` (older copies shifted up to ``<name>.<backups>``, the oldest
dropped) and a new file is started, as :class:`logging.handlers.RotatingFileHandler`
does.
"""

from __future__ import annotations

import json
import os
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = [
    "default_log",
    "EVENTS",
    "DEFAULT_LOG_MAX_BYTES",
    "DEFAULT_LOG_BACKUPS",
    "EventLog",
    "utc_iso",
]

#: The events of the log.
EVENTS = ("created", "refused", "answers", "trial", "completed", "returned")
#: Default size at which the log is rotated (10 MB).
DEFAULT_LOG_MAX_BYTES = 10 * 1024 * 1024
#: Default number of rotated copies kept.
DEFAULT_LOG_BACKUPS = 5


def utc_iso(seconds: float | None, *, millis: bool = False) -> str | None:
    """Seconds since the epoch as ISO 8601 UTC with ``Z`` (None stays None).

    >>> utc_iso(1795729200.0)
    '2026-11-26T21:40:00Z'
    >>> utc_iso(1795729200.25, millis=True)
    '2026-11-26T21:40:00.250Z'
    """
    if seconds is None:
        return None
    moment = datetime.fromtimestamp(float(seconds), UTC)
    if millis:
        return (
            moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
        )
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def default_log(db_path: str | Path) -> Path:
    """The event log of a database by default: ``<stem>.events.jsonl`` beside it.

    >>> default_log("results/studies/s/responses.sqlite").as_posix()
    'results/studies/s/responses.events.jsonl'
    """
    db = Path(db_path)
    return db.with_name(f"{db.stem}.events.jsonl")


class EventLog:
    """Append session events to a JSON Lines file, rotated at *max_bytes*.

    Parameters
    ----------
    path : path
        The log file (created with its folder; appended to).
    max_bytes : int, default 10 MB
        Size beyond which the file is rotated; 0: never rotated.
    backups : int, default 5
        Rotated copies kept (``path.1`` newest ... ``path.<backups>``).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        max_bytes: int = DEFAULT_LOG_MAX_BYTES,
        backups: int = DEFAULT_LOG_BACKUPS,
    ) -> None:
        if max_bytes < 0:
            raise ValueError("max_bytes must be 0 (no rotation) or more")
        if backups < 0:
            raise ValueError("backups must be 0 or more")
        self.path = Path(path)
        self.max_bytes = int(max_bytes)
        self.backups = int(backups)
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = open(self.path, "a", encoding="utf-8")  # noqa: SIM115

    def write(self, when: float, event: str, **fields: Any) -> None:
        """Append one event at *when* (seconds since the epoch)."""
        record = {"time": utc_iso(when, millis=True), "event": event, **fields}
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        data = line.encode("utf-8")
        with self._lock:
            if self._handle.closed:
                return
            size = self._handle.tell()
            if self.max_bytes and size > 0 and size + len(data) > self.max_bytes:
                self._rotate()
            self._handle.write(line)
            self._handle.flush()

    def _rotate(self) -> None:
        self._handle.close()
        if self.backups == 0:
            self.path.unlink(missing_ok=True)
        else:
            for k in range(self.backups - 1, 0, -1):
                older = self.path.with_name(f"{self.path.name}.{k}")
                if older.exists():
                    os.replace(older, self.path.with_name(f"{self.path.name}.{k + 1}"))
            os.replace(self.path, self.path.with_name(f"{self.path.name}.1"))
        self._handle = open(self.path, "a", encoding="utf-8")  # noqa: SIM115

    def close(self) -> None:
        """Close the file (later events are dropped)."""
        with self._lock:
            self._handle.close()

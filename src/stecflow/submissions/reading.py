"""Opening a submission's files: regular files inside ``submissions/`` only.

A file discovery resolved is opened without following a link its last part may
have become since (:func:`stecflow.submissions.safepath.open_inside`), read up to a
size limit, and checksummed; a file that cannot be opened becomes an
``unreadable_file`` problem, never an exception.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`,
:mod:`stecflow.submissions`.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from stecflow.core.errors import StecflowError
from stecflow.tasks.base import Problem

__all__ = []


def _open_regular(path: Path) -> Any:
    """Open a submission file that discovery resolved inside ``submissions/``.

    Without following a link its last part may have become since, and only if
    it is a regular file (:func:`stecflow.submissions.safepath.open_inside`).
    """
    from stecflow.submissions.safepath import open_inside

    return open_inside(path, path.parent)


def _read_regular(path: Path, size: int) -> bytes:
    """At most *size* bytes of a file opened with :func:`_open_regular`."""
    with _open_regular(path) as handle:
        return handle.read(size)


def _unreadable(exc: Exception, label: str) -> Problem:
    """A file that could not be opened after discovery found it."""
    reason = getattr(exc, "message", None) or getattr(exc, "strerror", None) or exc
    return Problem("unreadable_file", f"the file cannot be read: {reason}", label)


def _sha256(path: Path, max_bytes: int) -> str | None:
    """The file's sha256, read in blocks; None if it is missing or over the limit."""
    if not path.is_file() or path.stat().st_size > max_bytes:
        return None
    try:
        with _open_regular(path) as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except (OSError, StecflowError):  # reported where the file is read
        return None

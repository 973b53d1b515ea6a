"""Paths as the release writes them: relative to the project, never naming a
place on the machine that built it (a home folder names its user)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

__all__ = ["relative_everywhere", "relative_path"]

#: A path that names a place on one machine: POSIX absolute, Windows drive or UNC.
_ABSOLUTE = re.compile(r"^(?:/|[A-Za-z]:[\\/]|\\\\)")


def relative_path(value: str, root: str | Path | None = None) -> str:
    """A path as released: relative to *root* (the project) when under it, else
    the file name alone; relative paths are returned unchanged.

    >>> relative_path("/home/ann/campaign/responses/a.tsv", "/home/ann/campaign")
    'responses/a.tsv'
    >>> relative_path("C:\\\\Users\\\\ann\\\\a.tsv", "/home/ann/campaign")
    'a.tsv'
    >>> relative_path("responses/a.tsv")
    'responses/a.tsv'
    """
    if not _ABSOLUTE.match(value):
        return value
    base = str(Path(root) if root is not None else Path.cwd()).rstrip("/\\")
    if value.startswith(base + "/") or value.startswith(base + "\\"):
        return value[len(base) + 1 :].replace("\\", "/")
    return re.split(r"[\\/]", value.rstrip("/\\"))[-1]


def relative_everywhere(value: Any, root: str | Path | None) -> Any:
    """*value* with every string that is an absolute path made relative."""
    if isinstance(value, str):
        return relative_path(value, root)
    if isinstance(value, list):
        return [relative_everywhere(v, root) for v in value]
    if isinstance(value, dict):
        return {k: relative_everywhere(v, root) for k, v in value.items()}
    return value

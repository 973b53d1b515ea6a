"""Static files of one folder, served by a WSGI application.

:class:`StaticFiles` answers ``GET`` and ``HEAD`` for the files of a folder:
only names of letters, digits, ``.``, ``_`` and ``-`` (no ``..``, no hidden
file), only the types it knows, never a file outside the folder (symbolic
links are resolved first), each read once and kept in memory.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path
from urllib.parse import unquote

from stecflow.serving.request import HTTPError

__all__ = ["STATIC_TYPES", "StaticFiles"]

#: The types of the files served, by suffix.
STATIC_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".wav": "audio/wav",
    ".mp4": "video/mp4",
    ".webm": "video/webm",
    ".ogv": "video/ogg",
    ".mp3": "audio/mpeg",
    ".ogg": "audio/ogg",
    ".oga": "audio/ogg",
    ".m4a": "audio/mp4",
    ".opus": "audio/ogg",
    ".tsv": "text/tab-separated-values; charset=utf-8",
}
_SAFE_PATH = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]*(/[A-Za-z0-9_][A-Za-z0-9._-]*)*$")


class StaticFiles:
    """The files of *root*, but the relative paths in *hidden*.

    Parameters
    ----------
    root
        The folder served.
    hidden
        Relative paths never served (404), e.g. an organiser's manifest.
    headers
        Called with a content type and a length, gives the answer's headers
        (the application's security headers).
    index
        The file served for ``/``.
    """

    def __init__(
        self,
        root: str | Path,
        *,
        headers: Callable[[str, int], list[tuple[str, str]]],
        hidden: Collection[str] = (),
        index: str = "index.html",
    ) -> None:
        self.root = Path(root).resolve()
        self.hidden = frozenset(hidden)
        self.index = index
        self._headers = headers
        self._files: dict[str, tuple[bytes, str]] = {}
        self._lock = threading.Lock()

    def file(self, path: str) -> tuple[bytes, str]:
        """The bytes and type of the file at URL *path*.

        Raises
        ------
        HTTPError
            404 for a name not allowed, a type not served, a hidden path or a
            file not there.
        """
        relative = unquote(path).lstrip("/") or self.index
        if not _SAFE_PATH.match(relative) or ".." in relative.split("/"):
            raise HTTPError(404, "not found")
        content_type = STATIC_TYPES.get(Path(relative).suffix.lower())
        if content_type is None or relative in self.hidden:
            raise HTTPError(404, "not found")
        with self._lock:
            cached = self._files.get(relative)
        if cached is None:
            target = (self.root / relative).resolve()
            if self.root not in target.parents or not target.is_file():
                raise HTTPError(404, "not found")
            cached = (target.read_bytes(), content_type)
            with self._lock:
                self._files[relative] = cached
        return cached

    def __call__(
        self, environ: Mapping[str, object], start_response: Callable[..., object]
    ) -> Iterable[bytes]:
        """Answer a request for a file (a WSGI application)."""
        method = environ.get("REQUEST_METHOD", "GET")
        if method not in ("GET", "HEAD"):
            raise HTTPError(405, "only GET and HEAD are allowed here")
        data, content_type = self.file(str(environ.get("PATH_INFO") or "/"))
        start_response("200 OK", self._headers(content_type, len(data)))
        return [b"" if method == "HEAD" else data]

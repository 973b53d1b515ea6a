"""Reading a request: errors as HTTP answers, strict JSON bodies, client limits.

Owns :class:`HTTPError` (an answer other than success, with its status and
message), :func:`read_json` (a body within its size limit, in strict JSON: no
``NaN`` or ``Infinity``, no number beyond 20 digits or outside the range of a
float), :func:`drain_body`, :func:`client_key` (the address the session limit
counts) and :class:`RateLimit` (events per key per window).
"""

from __future__ import annotations

import ipaddress
import json
import math
import re
import threading
from collections import deque
from collections.abc import Mapping, Sequence
from contextlib import suppress
from typing import Any

__all__ = [
    "REASONS",
    "HTTPError",
    "RateLimit",
    "client_key",
    "drain_body",
    "read_json",
]

_MAX_DIGITS = 20
_CONTENT_LENGTH = re.compile(r"^[0-9]{1,15}$")
_DRAIN_LIMIT = 1024 * 1024


class HTTPError(Exception):
    """An answer other than success: its *status*, the *message* the page gets
    (``{"error": message}``), extra *headers* and extra fields of the JSON body."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        headers: Sequence[tuple[str, str]] = (),
        **extra: Any,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = list(headers)
        self.extra = extra


REASONS = {
    200: "OK",
    201: "Created",
    400: "Bad Request",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    408: "Request Timeout",
    409: "Conflict",
    411: "Length Required",
    413: "Payload Too Large",
    415: "Unsupported Media Type",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


class _BadNumber(ValueError):
    """A number in a request body that the API refuses (the message says why)."""


def _parse_int(text: str) -> int:
    # Python refuses int strings over 4,300 digits with a ValueError of its own;
    # no field of the API needs more than a few digits.
    if len(text.lstrip("-")) > _MAX_DIGITS:
        raise _BadNumber(
            f"the request body has a number of more than {_MAX_DIGITS} digits"
        )
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400 parses as infinity
        raise _BadNumber("the request body has a number too large for a float")
    return value


def _parse_constant(text: str) -> float:
    raise _BadNumber(f"the request body has {text}, which is not JSON; send numbers")


def client_key(environ: Mapping[str, Any], behind_proxy: bool) -> str:
    """The address a request comes from, as the session limit counts it.

    Behind a reverse proxy, the last address of ``X-Forwarded-For`` (the one the
    proxy added; earlier ones are the client's word). IPv6 addresses count per
    /64, the block one subscriber usually holds.
    """
    address = str(environ.get("REMOTE_ADDR") or "")
    if behind_proxy:
        forwarded = str(environ.get("HTTP_X_FORWARDED_FOR") or "")
        address = forwarded.split(",")[-1].strip() or address
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class RateLimit:
    """At most *limit* events per *window_s* seconds per key (``limit=0``: none)."""

    def __init__(self, limit: int, window_s: float) -> None:
        self.limit = limit
        self.window_s = window_s
        self._events: dict[str, deque[float]] = {}
        self._lock = threading.Lock()
        self._next_sweep = -math.inf

    def take(self, key: str, now: float) -> float:
        """Count an event of *key*; return 0, or the seconds until one is allowed."""
        if self.limit <= 0:
            return 0.0
        horizon = now - self.window_s
        with self._lock:
            if now >= self._next_sweep:  # forget quiet addresses once per window
                self._events = {
                    k: v for k, v in self._events.items() if v and v[-1] > horizon
                }
                self._next_sweep = now + self.window_s
            events = self._events.setdefault(key, deque())
            while events and events[0] <= horizon:
                events.popleft()
            if len(events) >= self.limit:
                return events[0] - horizon
            events.append(now)
            return 0.0

    def give_back(self, key: str, now: float) -> None:
        """Uncount the event of *key* at *now* (its request failed)."""
        with self._lock:
            events = self._events.get(key)
            if events is not None:
                with suppress(ValueError):
                    events.remove(now)


def drain_body(environ: Mapping[str, Any]) -> None:
    """Read (and drop) an unread body so that the client sees the answer."""
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return
    stream = environ.get("wsgi.input")
    if stream is None or not 0 < length <= _DRAIN_LIMIT:
        return
    with suppress(OSError):  # a client that stalls or leaves: answer anyway
        while length > 0:
            chunk = stream.read(min(length, 65536))
            if not chunk:
                break
            length -= len(chunk)


def read_json(environ: Mapping[str, Any], max_body_bytes: int) -> dict[str, Any]:
    """The JSON object in a request body of at most *max_body_bytes* bytes.

    Raises
    ------
    HTTPError
        411 without a length, 413 beyond the limit, 415 for another content
        type, 408 for a body that stalls, 400 for anything else (not strict
        JSON, not an object, shorter than its length, a text holding a lone
        surrogate, a control character but tab and line breaks, or a
        bidirectional override: :mod:`stecflow.core.text`).
    """
    length_text = str(environ.get("CONTENT_LENGTH") or "").strip()
    if not length_text:
        raise HTTPError(411, "a Content-Length header is required")
    if not _CONTENT_LENGTH.match(length_text):  # ASCII digits, at most 15
        if length_text.isascii() and length_text.isdigit():
            raise HTTPError(
                413, f"the request body is limited to {max_body_bytes} bytes"
            )
        raise HTTPError(400, "Content-Length must be a number of bytes")
    length = int(length_text)
    if length > max_body_bytes:
        raise HTTPError(413, f"the request body is limited to {max_body_bytes} bytes")
    content_type = str(environ.get("CONTENT_TYPE") or "application/json")
    if content_type.split(";")[0].strip().lower() != "application/json":
        drain_body(environ)
        raise HTTPError(415, "send JSON (Content-Type: application/json)")
    try:
        raw = environ["wsgi.input"].read(length) if length else b""
    except TimeoutError:
        raise HTTPError(408, "the request body did not arrive in time") from None
    except OSError:
        raise HTTPError(400, "the connection broke off in the body") from None
    if len(raw) != length:
        raise HTTPError(400, "the request body is shorter than Content-Length")
    try:
        data = json.loads(
            raw.decode("utf-8"),
            parse_int=_parse_int,
            parse_float=_parse_float,
            parse_constant=_parse_constant,
        )
    except _BadNumber as error:
        raise HTTPError(400, str(error)) from None
    except (ValueError, RecursionError):  # bad UTF-8 or JSON, also a ValueError
        raise HTTPError(400, "the request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise HTTPError(400, "the request body must be a JSON object")
    # a lone surrogate ("\\ud800") cannot be written as UTF-8, a NUL or an
    # ESC must never reach a stored file or a page: refused here, not at a write
    from stecflow.core.text import escaped, find_bad_text

    found = find_bad_text(data)
    if found is not None:
        path, reason = found
        field = "".join(
            f"[{part}]" if isinstance(part, int) else f".{escaped(part)}"
            for part in path
        ).lstrip(".")
        raise HTTPError(400, f"{field or 'the body'}: {reason}")
    return data

"""The headers and JSON bodies of the server's answers.

Owns the security headers every answer carries (:func:`security_headers`, with the
content security policies of the experiment's files, :data:`CSP`, and of the
organiser's pages, :data:`ADMIN_CSP`) and :func:`json_response`.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any

from stecflow.serving.request import REASONS
from stecflow.studies.server.progress import PROGRESS_CSS

__all__ = ["ADMIN_CSP", "CSP", "json_response", "security_headers"]

ADMIN_CSP = (
    "default-src 'none'; style-src 'sha256-"
    + base64.b64encode(hashlib.sha256(PROGRESS_CSS.encode()).digest()).decode()
    + "'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'"
)
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "media-src 'self' blob:; connect-src 'self'; object-src 'none'; "
    "base-uri 'none'; frame-ancestors 'none'; form-action 'none'"
)


def security_headers(
    content_type: str, length: int, csp: str = CSP
) -> list[tuple[str, str]]:
    """The headers of every answer: no caching, no sniffing, no referrer, *csp*."""
    return [
        ("Content-Type", content_type),
        ("Content-Length", str(length)),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("Content-Security-Policy", csp),
    ]


def json_response(
    start_response: Callable[..., Any],
    status: int,
    body: Any,
    headers: Sequence[tuple[str, str]] = (),
) -> list[bytes]:
    """Start a JSON answer (keys sorted) and return its body."""
    data = json.dumps(body, sort_keys=True).encode("utf-8")
    start_response(
        f"{status} {REASONS.get(status, 'Error')}",
        security_headers("application/json", len(data)) + list(headers),
    )
    return [data]

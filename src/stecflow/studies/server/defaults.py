"""The defaults of the collection server's settings, in one place.

:func:`~stecflow.studies.server.app.make_app`,
:func:`~stecflow.studies.server.httpd.serve`, the export and
``python -m stecflow.studies.server`` take their defaults from here, and so does
``stecflow serve`` (both declare their options in
:mod:`stecflow.studies.server.options`); ``tests/unit/test_server_hardening.py``
checks that both command lines pass these defaults.
"""

from __future__ import annotations

__all__ = [
    "ANSWERS_BODY_BYTES",
    "DEFAULT_ABANDON_AFTER_S",
    "DEFAULT_CONNECTIONS_PER_ADDRESS",
    "DEFAULT_MAX_CONNECTIONS",
    "DEFAULT_READ_TIMEOUT_S",
    "DEFAULT_SESSION_WINDOW_S",
    "DEFAULT_SESSIONS_PER_ADDRESS",
    "DEFAULT_THREADS",
    "DEFAULT_TRUSTED_PROXY",
    "MAX_BODY_BYTES",
]

#: Default limit of a request body, in bytes.
MAX_BODY_BYTES = 16 * 1024
#: Limit of the body of ``POST api/answers`` (a questionnaire screen: up to 100
#: fields of up to 2000 characters, 3 bytes each in UTF-8 for Japanese; the
#: default limit of other bodies is lower).
ANSWERS_BODY_BYTES = 1024 * 1024
#: Default time after which an unfinished, silent session no longer holds its list.
DEFAULT_ABANDON_AFTER_S = 1800.0
#: Default number of worker threads running the application.
DEFAULT_THREADS = 8
#: Default address of the reverse proxy whose X-Forwarded-For is believed
#: (``--behind-proxy``): nginx on the same machine.
DEFAULT_TRUSTED_PROXY = "127.0.0.1"
#: Default time a connection may stay silent before it is closed.
DEFAULT_READ_TIMEOUT_S = 30.0
#: Default number of connections open at once (more get a 503).
DEFAULT_MAX_CONNECTIONS = 256
#: Default number of those one client address may hold (more get a 503): a
#: quarter, so that one client holding idle connections leaves the rest to others.
DEFAULT_CONNECTIONS_PER_ADDRESS = 64
#: Default number of sessions one client address may open per window.
DEFAULT_SESSIONS_PER_ADDRESS = 20
#: Default window of the per-address session limit, in seconds.
DEFAULT_SESSION_WINDOW_S = 600.0

"""Column definitions the importers share: generic CSV columns and value kinds.

Nothing here imports pandas or the studies package at import time.
"""

from __future__ import annotations

import re

__all__ = [
    "BOOL_COLUMNS",
    "FLOAT_COLUMNS",
    "GENERIC_ALIASES",
    "GENERIC_COLUMNS",
    "GENERIC_RESPONSES",
    "OPTIONAL_SERVER_COLUMNS",
    "RATING_COLUMNS",
    "SERVER_MARKERS",
    "STR_COLUMNS",
    "TIME_COLUMNS",
    "check_answered_utc",
    "response_columns",
]


#: Columns a generic CSV may have. ``participant`` (or ``session``) and ``item``
#: are required, plus at least one response column.
GENERIC_COLUMNS = (
    "study",
    "session",
    "participant",
    "list",
    "order",
    "item",
    "system",
    "practice",
    "filler",
    "adequacy",
    "fluency",
    "chosen_entity",
    "target_entity",
    "correct",
    "cant_tell",
    "timeout",
    "reading_time_ms",
    "identification_time_ms",
    "rt_ms",
    "simulated",
)
GENERIC_RESPONSES = (
    "adequacy",
    "fluency",
    "chosen_entity",
    "correct",
    "cant_tell",
    "timeout",
    "reading_time_ms",
    "identification_time_ms",
    "rt_ms",
)
GENERIC_ALIASES = {
    "subject": "participant",
    "subject_id": "participant",
    "participant_id": "participant",
    "chosen": "chosen_entity",
    "target": "target_entity",
    "can_t_tell": "cant_tell",
    "cannot_tell": "cant_tell",
}

# Columns only the server's export has: a header with two of them is an export.
SERVER_MARKERS = (
    "task",
    "variant",
    "session_status",
    "subdomain",
    "audio_onset_ms",
    "click_x",
    "click_y",
)

#: Columns a server export or offline file may have after its own:
#: ``simulated`` (files of the simulator) and ``answered_utc`` (when the server
#: received the trial: ISO 8601 UTC with ``Z``; checked, not carried into the
#: judgments, whose session times come from the session table).
OPTIONAL_SERVER_COLUMNS = ("simulated", "answered_utc")

_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$")


def check_answered_utc(text: str) -> str | None:
    """The problem with an ``answered_utc`` cell, or None (empty is fine).

    >>> check_answered_utc("2026-11-26T21:40:00.250Z") is None
    True
    >>> check_answered_utc("26/11/2026 21:40")
    "'26/11/2026 21:40' is not an ISO 8601 UTC time such as 2026-11-26T21:40:00Z"
    """
    text = text.strip()
    if not text or _UTC.match(text):
        return None
    return f"{text!r} is not an ISO 8601 UTC time such as 2026-11-26T21:40:00Z"


# How parse_value (``_rows``) reads each column; any other column is a string.
STR_COLUMNS = (
    "study",
    "task",
    "variant",
    "session",
    "participant",
    "session_status",
    "list",
    "item",
    "system",
    "subdomain",
    "chosen_entity",
    "target_entity",
)
BOOL_COLUMNS = ("practice", "filler", "correct", "cant_tell", "timeout", "simulated")
RATING_COLUMNS = ("adequacy", "fluency")
TIME_COLUMNS = ("reading_time_ms", "identification_time_ms", "rt_ms", "audio_onset_ms")
FLOAT_COLUMNS = ("click_x", "click_y")


def response_columns() -> tuple[str, ...]:
    """The server export's columns (imported on use: the studies package is big)."""
    from stecflow.studies.settings import RESPONSE_COLUMNS

    return tuple(RESPONSE_COLUMNS)

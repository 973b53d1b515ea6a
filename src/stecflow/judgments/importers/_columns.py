"""Column definitions the importers share: generic CSV columns and value kinds.

Nothing here imports pandas or the studies package at import time.
"""

from __future__ import annotations

__all__ = [
    "BOOL_COLUMNS",
    "FLOAT_COLUMNS",
    "GENERIC_ALIASES",
    "GENERIC_COLUMNS",
    "GENERIC_RESPONSES",
    "RATING_COLUMNS",
    "SERVER_MARKERS",
    "STR_COLUMNS",
    "TIME_COLUMNS",
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

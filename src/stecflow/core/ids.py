"""Identifiers used as Snakemake wildcards: teams, systems, studies.

IDs end up in file paths and wildcards, so they must not contain dots, slashes or
spaces, and are at most :data:`MAX_ID_LENGTH` characters long. The same regular
expression is used in the JSON schemas (a test checks this).

The per-submission rules do not use ``{team}`` and ``{system}`` wildcards but one
wildcard, :data:`SUBMISSION_WILDCARD_REGEX`, whose value is ``<team>/<system>.``
(the dot before the extension included). Snakemake refuses any wildcard value that
ends in one piece repeated 20 times or more (its ``PeriodicityDetector``, meant to
catch rules that feed themselves forever), and valid IDs such as
``aaaaaaaaaaaaaaaaaaaa`` or ``x-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_`` end that
way; a value ending in the one dot never does.
"""

from __future__ import annotations

import re

__all__ = [
    "ID_PATTERN",
    "ID_REGEX",
    "MAX_ID_LENGTH",
    "SUBMISSION_WILDCARD_REGEX",
    "is_valid_id",
    "split_submission_wildcard",
    "submission_wildcard",
]

#: The longest ID accepted (folder names, config IDs).
MAX_ID_LENGTH = 64
#: The same pattern without anchors, for Snakemake ``wildcard_constraints``.
ID_REGEX = rf"[A-Za-z0-9][A-Za-z0-9_-]{{0,{MAX_ID_LENGTH - 1}}}"
#: The pattern an ID must match, anchored, as written in the JSON schemas.
ID_PATTERN = rf"^{ID_REGEX}$"
#: The value of the per-submission wildcard: ``<team>/<system>.``.
SUBMISSION_WILDCARD_REGEX = rf"{ID_REGEX}/{ID_REGEX}\."

_ID_RE = re.compile(ID_REGEX)
_SUBMISSION_RE = re.compile(rf"({ID_REGEX})/({ID_REGEX})\.")


def is_valid_id(value: str) -> bool:
    """Return True if *value* can be used as a team, system or study ID.

    >>> is_valid_id("team-07"), is_valid_id("HUMAN-1"), is_valid_id("v1.2")
    (True, True, False)
    >>> is_valid_id("a" * 64), is_valid_id("a" * 65), is_valid_id("team\\n")
    (True, False, False)
    """
    return isinstance(value, str) and _ID_RE.fullmatch(value) is not None


def submission_wildcard(team: str, system: str) -> str:
    """The per-submission wildcard value of *team*/*system*.

    >>> submission_wildcard("team-07", "primary")
    'team-07/primary.'
    """
    return f"{team}/{system}."


def split_submission_wildcard(value: str) -> tuple[str, str]:
    """``(team, system)`` from a per-submission wildcard value.

    >>> split_submission_wildcard("team-07/primary.")
    ('team-07', 'primary')

    Raises
    ------
    ValueError
        If *value* is not ``<team>/<system>.`` with valid IDs.
    """
    match = _SUBMISSION_RE.fullmatch(value)
    if match is None:
        raise ValueError(f"{value!r} is not a <team>/<system>. wildcard value")
    return match.group(1), match.group(2)

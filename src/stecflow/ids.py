"""Identifiers used as Snakemake wildcards: teams, systems, studies.

IDs end up in file paths and wildcards, so they must not contain dots, slashes or
spaces. The same regular expression is used in the JSON schemas (a test checks this).
"""

from __future__ import annotations

import re

__all__ = ["ID_PATTERN", "ID_REGEX", "is_valid_id"]

#: The pattern an ID must match, anchored, as written in the JSON schemas.
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]*$"
#: The same pattern without anchors, for Snakemake ``wildcard_constraints``.
ID_REGEX = r"[A-Za-z0-9][A-Za-z0-9_-]*"

_ID_RE = re.compile(ID_PATTERN)


def is_valid_id(value: str) -> bool:
    """Return True if *value* can be used as a team, system or study ID.

    >>> is_valid_id("team-07"), is_valid_id("HUMAN-1"), is_valid_id("v1.2")
    (True, True, False)
    """
    return bool(_ID_RE.match(value))

"""Argument checking for the design builders, and the error they raise.

Every builder of :mod:`stecflow.studies.designs` checks its arguments with these
helpers before drawing anything, so an impossible request fails with a
:class:`DesignError` whose field is the argument and whose message says what would
work.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from stecflow.core.errors import ConfigError
from stecflow.core.ids import is_valid_id

__all__ = ["DesignError"]


class DesignError(ConfigError, ValueError):
    """A design cannot be built from the requested numbers (the field is the argument).

    It is a :class:`ValueError` too, so callers may catch either.
    """


def _check_count(value: object, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise DesignError(f"must be an integer, got {value!r}", field=name)
    if value < minimum:
        raise DesignError(f"must be at least {minimum}, got {value}", field=name)
    return int(value)


def _check_ids(values: Sequence[str], name: str, minimum: int) -> tuple[str, ...]:
    if isinstance(values, str):
        raise DesignError("give a list of IDs, not a single string", field=name)
    ids = tuple(values)
    bad = [v for v in ids if not isinstance(v, str) or not v.strip()]
    if bad:
        raise DesignError(f"IDs must be non-empty strings, got {bad[:3]!r}", field=name)
    dupes = sorted(k for k, c in Counter(ids).items() if c > 1)
    if dupes:
        raise DesignError(
            f"duplicate IDs {', '.join(dupes)}; give each once", field=name
        )
    if len(ids) < minimum:
        raise DesignError(f"need at least {minimum}, got {len(ids)}", field=name)
    return tuple(sorted(ids))


def _check_study(study: str) -> str:
    if not isinstance(study, str) or not is_valid_id(study):
        raise DesignError(
            f"{study!r} is not a valid ID (letters, digits, '_' and '-' only)",
            field="study",
        )
    return study


def _check_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise DesignError(f"must be a non-negative integer, got {seed!r}", field="seed")
    return int(seed)

"""Seeded randomness of the demo campaign.

Every random choice of the demo comes from a :class:`random.Random` instance seeded
from the campaign seed and a purpose string through SHA-256 (never ``hash()`` or the
clock), so the same seed gives the same corpus and submissions, and what one purpose
draws never shifts what another draws.
"""

from __future__ import annotations

import hashlib
import random

__all__ = ["DEFAULT_SEED", "rng_for"]

#: The seed of the committed demo data.
DEFAULT_SEED = 2009


def rng_for(seed: int, *keys: object) -> random.Random:
    """A random generator for one purpose, derived from the seed via SHA-256."""
    text = "/".join([str(seed), *map(str, keys)])
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))

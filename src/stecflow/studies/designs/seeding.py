"""Reproducible randomisation for the designs.

Every random choice draws from ``numpy.random.default_rng`` seeded with a SHA-256
digest of the study seed and the purpose of the draw (for example ``order`` and the
subject slot), so designs are identical on every machine and do not depend on the
order in which IDs are given.
"""

from __future__ import annotations

import hashlib

import numpy as np

__all__: list[str] = []


def _rng(seed: int, *keys: object) -> np.random.Generator:
    """A generator for one purpose, seeded with SHA-256 of the seed and *keys*."""
    text = "/".join([str(seed), *map(str, keys)])
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "big"))

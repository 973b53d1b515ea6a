"""Cluster resources of the workflow's jobs, sized from their inputs.

Every rule declares ``mem_mb`` and ``runtime`` (minutes) through these two
functions, so that an executor plugin (SLURM and others) asks for what a job
needs: a fixed base plus so much per MB of input, the factors taken from the peak
memory and the times of each rule in the scale benchmark (``benchmarks/README.md``),
with room to spare. Snakemake calls the returned functions once the inputs exist
(a dry run shows ``<TBD>`` until then) and again, with a higher ``attempt``, when
a failed job is retried.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

__all__ = ["mem_mb", "runtime"]


def mem_mb(base: float, per_input_mb: float) -> Callable[..., int]:
    """Memory (MB): *base*, plus *per_input_mb* per MB of input; doubled per retry.

    >>> class Input:
    ...     size_mb = 10.0
    >>> size = mem_mb(300, 20)
    >>> size(None, Input(), 1), size(None, Input(), 2)
    (500, 1000)
    """

    def size(wildcards: Any, input: Any, attempt: int) -> int:  # noqa: A002
        return math.ceil((base + per_input_mb * input.size_mb) * 2 ** (attempt - 1))

    return size


def runtime(base: float, per_input_mb: float = 0) -> Callable[..., int]:
    """Wall-clock limit (minutes): *base*, plus *per_input_mb* per MB; × attempt.

    >>> class Input:
    ...     size_mb = 2.5
    >>> minutes = runtime(10, 2)
    >>> minutes(None, Input(), 1), minutes(None, Input(), 3)
    (15, 45)
    """

    def minutes(wildcards: Any, input: Any, attempt: int) -> int:  # noqa: A002
        return math.ceil((base + per_input_mb * input.size_mb) * attempt)

    return minutes

"""Cluster resources of the workflow's jobs, sized from their inputs.

Every rule declares ``mem_mb`` and ``runtime`` (minutes) through these two
functions, so that an executor plugin (SLURM and others) asks for what a job
needs: a fixed base plus so much per MB of input, the factors taken from the peak
memory and the times of each rule in the scale benchmark (``benchmarks/README.md``),
with room to spare. Snakemake calls the returned functions when it builds the DAG
and again just before a job runs, once its inputs exist (until then they answer
``<TBD>``, as a dry run shows), and with a higher ``attempt`` when a failed job is
retried.

Input sizes are read with one ``stat`` per file: Snakemake's own
``input.size_mb`` runs an event loop per call, which made the dry run of a
1,000-submission campaign take twice as long (benchmarks/README.md).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, MutableMapping
from typing import Any

__all__ = [
    "NUMERIC_THREAD_VARIABLES",
    "cap_numeric_threads",
    "input_mb",
    "mem_mb",
    "runtime",
]

#: The variables through which the numerical libraries' thread pools are sized:
#: OpenBLAS (NumPy's and SciPy's wheels), OpenMP builds of it, and MKL (conda).
NUMERIC_THREAD_VARIABLES = (
    "OPENBLAS_NUM_THREADS",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
)


def input_mb(paths: Iterable[str]) -> float | None:
    """Total size (MB) of *paths*, or None while one of them does not exist yet.

    >>> input_mb([__file__]) > 0, input_mb(["no/such/file"])
    (True, None)
    """
    total = 0
    for path in paths:
        try:
            total += os.stat(path).st_size
        except FileNotFoundError:
            return None
    return total / 1024 / 1024


def cap_numeric_threads(
    environ: MutableMapping[str, str], threads: int = 1
) -> dict[str, str]:
    """Give the numerical libraries of every job *threads* threads; return what was set.

    No rule declares ``threads:``, so Snakemake runs each job on one core. Left
    alone, OpenBLAS starts a thread per core in every job that imports NumPy, and
    N jobs on N cores then contend for them: a scoring job at 112 items took
    1.66 s of CPU instead of 1.38 s (benchmarks/README.md). One thread also
    keeps floating-point results independent of the machine's core count. A
    variable the user has set is kept, so a campaign can still choose otherwise.

    >>> env = {"OMP_NUM_THREADS": "4"}
    >>> cap_numeric_threads(env)
    {'OPENBLAS_NUM_THREADS': '1', 'MKL_NUM_THREADS': '1'}
    >>> env["OMP_NUM_THREADS"], env["OPENBLAS_NUM_THREADS"]
    ('4', '1')
    """
    added = {}
    for variable in NUMERIC_THREAD_VARIABLES:
        if variable not in environ:
            environ[variable] = added[variable] = str(threads)
    return added


def mem_mb(
    base: float, per_input_mb: float, *, pending: Any = None
) -> Callable[..., Any]:
    """Memory (MB): *base*, plus *per_input_mb* per MB of input; doubled per retry.

    The returned function answers *pending* while an input does not exist yet
    (the workflow passes Snakemake's "to be determined" marker).

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile() as handle:
    ...     _ = handle.write(b"x" * 10 * 1024 * 1024)
    ...     handle.flush()
    ...     size = mem_mb(300, 20)
    ...     size(None, [handle.name], 1), size(None, [handle.name], 2)
    (500, 1000)
    """

    return _from_inputs(base, per_input_mb, pending, lambda attempt: 2 ** (attempt - 1))


def runtime(
    base: float, per_input_mb: float = 0, *, pending: Any = None
) -> Callable[..., Any]:
    """Wall-clock limit (minutes): *base*, plus *per_input_mb* per MB; × attempt.

    *pending* as for :func:`mem_mb`.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile() as handle:
    ...     _ = handle.write(b"x" * 5 * 512 * 1024)
    ...     handle.flush()
    ...     minutes = runtime(10, 2)
    ...     minutes(None, [handle.name], 1), minutes(None, [handle.name], 3)
    (15, 45)
    """

    return _from_inputs(base, per_input_mb, pending, lambda attempt: attempt)


def _from_inputs(
    base: float,
    per_input_mb: float,
    pending: Any,
    retry_factor: Callable[[int], float],
) -> Callable[..., Any]:
    """A Snakemake resource function: (base + per MB of input) x retry factor."""

    def amount(wildcards: Any, input: Any, attempt: int) -> Any:  # noqa: A002
        mb = input_mb(input)
        if mb is None:
            return pending
        return math.ceil((base + per_input_mb * mb) * retry_factor(attempt))

    return amount

"""Williams squares: Latin squares balanced for carry-over (REFERENCE.md section 23)."""

from __future__ import annotations

import numpy as np

from stecflow.studies.designs.checks import _check_count

__all__ = ["williams_square"]


def williams_square(n: int) -> np.ndarray:
    """Return a Williams (carry-over balanced) square for *n* treatments.

    The first row is ``0, 1, n-1, 2, n-2, 3, ...``; row *r* adds *r* (mod *n*) to
    every entry. For odd *n* the reversed rows are appended, giving ``2n`` rows.
    Every row and every column of the first *n* rows is a permutation of
    ``0..n-1``, and every ordered pair of different treatments is adjacent
    (first immediately before second) exactly once (even *n*) or exactly twice
    (odd *n*, all ``2n`` rows).

    Parameters
    ----------
    n : int
        Number of treatments (systems), at least 2.

    Returns
    -------
    numpy.ndarray
        Integer array of shape ``(n, n)`` for even *n*, ``(2n, n)`` for odd *n*;
        rows are sequences (subjects), columns are periods (positions).

    Raises
    ------
    DesignError
        If *n* is not an integer of at least 2.

    References
    ----------
    Williams, E. J. (1949). Experimental designs balanced for the estimation of
    residual effects of treatments. Australian Journal of Scientific Research
    A 2(2):149-168. Bradley, J. V. (1958). Complete counterbalancing of immediate
    sequential effects in a Latin square design. JASA 53(282):525-528.
    REFERENCE.md section 23.

    Examples
    --------
    >>> williams_square(4).tolist()
    [[0, 1, 3, 2], [1, 2, 0, 3], [2, 3, 1, 0], [3, 0, 2, 1]]
    >>> williams_square(3).tolist()
    [[0, 1, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0], [0, 2, 1], [1, 0, 2]]
    >>> williams_square(15).shape
    (30, 15)
    """
    n = _check_count(n, "n", 2)
    first = [0]
    low, high = 1, n - 1
    while len(first) < n:
        first.append(low)
        low += 1
        if len(first) < n:
            first.append(high)
            high -= 1
    base = np.array(first, dtype=np.int64)
    rows = (base[None, :] + np.arange(n, dtype=np.int64)[:, None]) % n
    if n % 2:
        rows = np.vstack([rows, rows[:, ::-1]])
    return rows

"""Pairwise preferences: win rates with Wilson intervals and Bradley-Terry strengths.

Owns the statistics of a preference study (each trial shows two systems'
outputs for one item and the participant prefers one, or calls a tie):

* :func:`wilson_interval`: the Wilson score interval of a proportion;
* :func:`preference_counts`: per system, its wins, losses and ties, its win
  rate (ties count half) and the rate's Wilson interval;
* :func:`pairwise_preferences`: per pair of systems, the same counts, the first
  system's win rate over the second with its Wilson interval and a two-sided
  exact binomial (sign) test of wins against losses, ties left out;
* :func:`bradley_terry`: Bradley-Terry strengths by maximum likelihood.

The Bradley-Terry model (Bradley & Terry 1952) gives system *i* a log-strength
:math:`\\lambda_i`, with :math:`P(i \\succ j) = 1 / (1 + e^{\\lambda_j -
\\lambda_i})`. **Ties are split half and half** (a tie is half a win for each
side; Davidson's tie model is not implemented). The strengths are found by
maximising the log-likelihood with :func:`scipy.optimize.minimize`
(``trust-exact``, analytic gradient and Hessian) with the reference system's
strength fixed at 0, then centred to mean 0. Standard errors come from the
inverse of the observed information (which, for this model, is the expected
information: the weighted Laplacian of the comparison graph); the strengths'
own errors are those of the sum-to-zero parameterisation (the Moore-Penrose
inverse of the information). Each system is tested against the reference
(Wald: :math:`z = (\\lambda_i - \\lambda_{ref}) / SE`), as R's BradleyTerry2
reports its coefficients against ``refcat``. The maximum-likelihood estimate
exists only when every split of the systems in two has comparisons won by each
side (Ford 1957: the graph of "won at least half a comparison against" is
strongly connected); otherwise every row is not computable and says which
system wins or loses all its comparisons.

Input is a long table, one row per answered trial, with the two systems shown
and which was preferred (``left``, ``right`` or ``tie``); rows with a missing
value in any of the three columns are removed and counted (``n_missing``).
Results follow :mod:`stecflow.stats._common`'s "not computable" convention.

May import: :mod:`stecflow.core.errors` only (numpy, pandas and SciPy inside
functions).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

__all__ = [
    "BT_COLUMNS",
    "OUTCOMES",
    "PAIR_COLUMNS",
    "SYSTEM_COLUMNS",
    "bradley_terry",
    "pairwise_preferences",
    "preference_counts",
    "wilson_interval",
]

#: Values of the ``preferred`` column.
OUTCOMES = ("left", "right", "tie")

#: Columns of :func:`preference_counts`.
SYSTEM_COLUMNS = (
    "system",
    "n",
    "wins",
    "losses",
    "ties",
    "win_rate",
    "ci_low",
    "ci_high",
    "n_missing",
    "computable",
    "reason",
)

#: Columns of :func:`pairwise_preferences`.
PAIR_COLUMNS = (
    "system_a",
    "system_b",
    "n",
    "wins_a",
    "wins_b",
    "ties",
    "win_rate_a",
    "ci_low",
    "ci_high",
    "p_value",
    "computable",
    "reason",
)

#: Columns of :func:`bradley_terry`.
BT_COLUMNS = (
    "system",
    "rank",
    "n",
    "score",
    "strength",
    "se",
    "worth",
    "reference",
    "diff",
    "se_diff",
    "ci_low",
    "ci_high",
    "z",
    "p_value",
    "ties",
    "log_likelihood",
    "n_missing",
    "computable",
    "reason",
)


def wilson_interval(
    successes: float, n: float, *, confidence: float = 0.95
) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``successes / n``.

    Parameters
    ----------
    successes : float
        Successes (may be fractional: a tie counted as half a win).
    n : float
        Trials; 0 gives ``(nan, nan)``.
    confidence : float, default 0.95
        Coverage of the interval.

    Returns
    -------
    tuple of float
        ``(low, high)``, within [0, 1].

    Examples
    --------
    >>> [round(x, 4) for x in wilson_interval(7, 10)]
    [0.3968, 0.8922]
    """
    from scipy.stats import norm

    from stecflow.stats._common import StatsInputError

    if not 0 < confidence < 1:
        raise StatsInputError(f"confidence must be in (0, 1), not {confidence!r}")
    if n < 0 or successes < 0 or successes > n:
        raise StatsInputError(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return math.nan, math.nan
    z = float(norm.ppf(1 - (1 - confidence) / 2))
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def _clean(
    data: Any, left: str, right: str, preferred: str, what: str
) -> tuple[Any, int]:
    """The three columns as strings, incomplete rows removed; (frame, n_missing)."""
    import pandas as pd

    from stecflow.stats._common import StatsInputError, check_columns

    check_columns(data, [left, right, preferred], what=what)
    frame = data[[left, right, preferred]].copy()
    frame.columns = ["left", "right", "preferred"]
    frame = frame.replace("", pd.NA)
    complete = frame.notna().all(axis=1)
    frame = frame.loc[complete].astype(str).reset_index(drop=True)
    bad = sorted(set(frame["preferred"]) - set(OUTCOMES))
    if bad:
        raise StatsInputError(
            f"{what}: {preferred} has {bad[0]!r}; expected one of "
            + ", ".join(OUTCOMES),
            field=preferred,
        )
    same = frame[frame["left"] == frame["right"]]
    if len(same):
        raise StatsInputError(
            f"{what}: a trial compares {same['left'].iloc[0]!r} with itself",
            field=right,
        )
    return frame, int((~complete).sum())


def _tallies(frame: Any) -> dict[tuple[str, str], list[int]]:
    """(a, b) with a < b -> [wins of a, wins of b, ties]."""
    tally: dict[tuple[str, str], list[int]] = {}
    for left, right, outcome in frame.itertuples(index=False):
        a, b = sorted((left, right))
        counts = tally.setdefault((a, b), [0, 0, 0])
        if outcome == "tie":
            counts[2] += 1
        elif (outcome == "left") == (left == a):
            counts[0] += 1
        else:
            counts[1] += 1
    return tally


def preference_counts(
    data: Any,
    *,
    left: str = "system_left",
    right: str = "system_right",
    preferred: str = "preferred",
    confidence: float = 0.95,
) -> Any:
    """Per system: comparisons, wins, losses, ties and the win rate.

    The win rate is ``(wins + ties / 2) / n`` over the system's *n* comparisons,
    with its Wilson interval (:func:`wilson_interval`).

    Returns
    -------
    pandas.DataFrame
        :data:`SYSTEM_COLUMNS`, one row per system (sorted by name).
    """
    from stecflow.stats._common import finish_frame, ok

    frame, n_missing = _clean(data, left, right, preferred, "preference_counts")
    totals: dict[str, list[int]] = {}
    for (a, b), (wa, wb, ties) in _tallies(frame).items():
        for system, won, lost in ((a, wa, wb), (b, wb, wa)):
            entry = totals.setdefault(system, [0, 0, 0])
            entry[0] += won
            entry[1] += lost
            entry[2] += ties
    rows = []
    for system in sorted(totals):
        wins, losses, ties = totals[system]
        n = wins + losses + ties
        score = wins + ties / 2
        low, high = wilson_interval(score, n, confidence=confidence)
        rows.append(
            ok(
                system=system,
                n=n,
                wins=wins,
                losses=losses,
                ties=ties,
                win_rate=score / n,
                ci_low=low,
                ci_high=high,
                n_missing=n_missing,
            )
        )
    return finish_frame(rows, SYSTEM_COLUMNS)


def pairwise_preferences(
    data: Any,
    *,
    left: str = "system_left",
    right: str = "system_right",
    preferred: str = "preferred",
    confidence: float = 0.95,
) -> Any:
    """Per pair of systems compared: counts, win rate, Wilson interval, sign test.

    ``system_a`` sorts before ``system_b``; ``win_rate_a`` is
    ``(wins_a + ties / 2) / n``; ``p_value`` is the two-sided exact binomial
    test of ``wins_a`` in ``wins_a + wins_b`` against 1/2
    (:func:`scipy.stats.binomtest`), ties left out; a pair with only ties has
    no test (not computable).

    Returns
    -------
    pandas.DataFrame
        :data:`PAIR_COLUMNS`, one row per pair (sorted).
    """
    from scipy.stats import binomtest

    from stecflow.stats._common import finish_frame, not_computable, ok

    frame, _ = _clean(data, left, right, preferred, "pairwise_preferences")
    rows = []
    for (a, b), (wa, wb, ties) in sorted(_tallies(frame).items()):
        n = wa + wb + ties
        score = wa + ties / 2
        low, high = wilson_interval(score, n, confidence=confidence)
        fields = {
            "system_a": a,
            "system_b": b,
            "n": n,
            "wins_a": wa,
            "wins_b": wb,
            "ties": ties,
            "win_rate_a": score / n,
            "ci_low": low,
            "ci_high": high,
        }
        if wa + wb == 0:
            rows.append(not_computable("only ties: no sign test", **fields))
        else:
            p = float(binomtest(wa, wa + wb, 0.5).pvalue)
            rows.append(ok(**fields, p_value=p))
    return finish_frame(rows, PAIR_COLUMNS)


def _ford_problem(systems: Sequence[str], score: Any) -> str:
    """Why the maximum-likelihood strengths do not exist, or "" when they do.

    *score[i, j]* is what *i* scored against *j* (wins plus half the ties). The
    MLE exists iff the directed graph with an edge i -> j whenever score[i, j]
    > 0 is strongly connected (Ford 1957; Hunter 2004, Assumption 1).
    """
    n = len(systems)

    def reach(forward: bool) -> set[int]:
        seen, todo = {0}, [0]
        while todo:
            i = todo.pop()
            for j in range(n):
                edge = score[i, j] if forward else score[j, i]
                if j not in seen and edge > 0:
                    seen.add(j)
                    todo.append(j)
        return seen

    if len(reach(True)) == n and len(reach(False)) == n:
        return ""
    comparisons = score + score.T
    for i in range(n):
        played = comparisons[i].sum()
        if played and score[i].sum() == played:
            return (
                f"{systems[i]} won every comparison: its maximum-likelihood "
                "strength is infinite (Ford's condition fails)"
            )
        if played and score[i].sum() == 0:
            return (
                f"{systems[i]} lost every comparison: its maximum-likelihood "
                "strength is minus infinity (Ford's condition fails)"
            )
    return (
        "the systems split into groups one of which never loses to the other (or "
        "are not all compared): the maximum-likelihood strengths do not exist "
        "(Ford's condition fails)"
    )


def bradley_terry(
    data: Any,
    *,
    left: str = "system_left",
    right: str = "system_right",
    preferred: str = "preferred",
    reference: str | None = None,
    confidence: float = 0.95,
    tol: float = 1e-10,
) -> Any:
    """Bradley-Terry strengths by maximum likelihood, ties split half and half.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per trial.
    left, right, preferred : str
        The columns naming the two systems shown and the outcome (``left``,
        ``right`` or ``tie``).
    reference : str, optional
        The system the others are tested against (default: the first by name).
    confidence : float, default 0.95
        Coverage of the intervals of ``diff``.
    tol : float
        Gradient tolerance of the optimiser.

    Returns
    -------
    pandas.DataFrame
        :data:`BT_COLUMNS`, one row per system, best first (``rank`` 1):
        ``n`` comparisons, ``score`` (wins + ties / 2), ``strength`` (the
        log-strength, centred to mean 0) and its ``se`` (sum-to-zero
        constraint), ``worth`` (``exp(strength)`` normalised to sum 1), the
        ``reference`` system, ``diff`` (strength minus the reference's),
        ``se_diff``, the Wald interval ``ci_low``-``ci_high`` of ``diff``, ``z``
        and the two-sided ``p_value`` (NaN in the reference's own row),
        ``ties`` (``"half"``: how ties entered), the maximised
        ``log_likelihood`` and ``n_missing``.

    Raises
    ------
    StatsInputError
        A column is missing, an outcome is not left/right/tie, a trial compares
        a system with itself, or *reference* was not compared.

    Examples
    --------
    Two systems, A preferred 3 times, B once, one tie: the strength difference
    is ``log(3.5 / 1.5)``.

    >>> import pandas as pd, math
    >>> d = pd.DataFrame({"system_left": ["A"] * 5, "system_right": ["B"] * 5,
    ...                   "preferred": ["left"] * 3 + ["right", "tie"]})
    >>> r = bradley_terry(d).set_index("system")
    >>> bool(abs(r.loc["B", "diff"] + math.log(3.5 / 1.5)) < 1e-8)
    True
    """
    import numpy as np
    from scipy.optimize import minimize
    from scipy.stats import norm

    from stecflow.stats._common import (
        StatsInputError,
        finish_frame,
        not_computable,
        ok,
    )

    if not 0 < confidence < 1:
        raise StatsInputError(f"confidence must be in (0, 1), not {confidence!r}")
    frame, n_missing = _clean(data, left, right, preferred, "bradley_terry")
    tally = _tallies(frame)
    systems = sorted({s for pair in tally for s in pair})
    if reference is None and systems:
        reference = systems[0]
    if systems and reference not in systems:
        raise StatsInputError(
            f"bradley_terry: reference {reference!r} was not compared; systems: "
            + ", ".join(systems),
            field="reference",
        )
    k = len(systems)
    index = {s: i for i, s in enumerate(systems)}
    score = np.zeros((k, k))  # score[i, j]: what i scored against j
    for (a, b), (wa, wb, ties) in tally.items():
        i, j = index[a], index[b]
        score[i, j] += wa + ties / 2
        score[j, i] += wb + ties / 2
    games = score + score.T
    base = {"ties": "half", "reference": reference, "n_missing": n_missing}
    if k < 2:
        return finish_frame(
            [
                not_computable("fewer than 2 systems compared", system=s, **base)
                for s in systems
            ],
            BT_COLUMNS,
        )
    why = _ford_problem(systems, score)
    if why:
        return finish_frame(
            [
                not_computable(
                    why,
                    system=s,
                    n=int(games[index[s]].sum()),
                    score=float(score[index[s]].sum()),
                    **base,
                )
                for s in systems
            ],
            BT_COLUMNS,
        )
    r = index[reference]
    free = [i for i in range(k) if i != r]

    def full(theta: Any) -> Any:
        lam = np.zeros(k)
        lam[free] = theta
        return lam

    def negloglik(theta: Any) -> float:
        lam = full(theta)
        diff = lam[:, None] - lam[None, :]
        # log P(i beats j) = -log(1 + exp(lam_j - lam_i))
        return float(np.sum(score * np.logaddexp(0.0, -diff)))

    def information(lam: Any) -> Any:
        p = 1.0 / (1.0 + np.exp(-(lam[:, None] - lam[None, :])))
        w = games * p * p.T
        np.fill_diagonal(w, 0.0)
        return np.diag(w.sum(axis=1)) - w

    def gradient(theta: Any) -> Any:
        lam = full(theta)
        p = 1.0 / (1.0 + np.exp(-(lam[:, None] - lam[None, :])))
        np.fill_diagonal(p, 0.0)
        # d(-loglik)/d lam_i = expected score of i - observed score of i
        g = (games * p).sum(axis=1) - score.sum(axis=1)
        return g[free]

    def hessian(theta: Any) -> Any:
        return information(full(theta))[np.ix_(free, free)]

    fit = minimize(
        negloglik,
        np.zeros(k - 1),
        jac=gradient,
        hess=hessian,
        method="trust-exact",
        options={"gtol": tol, "maxiter": 1000},
    )
    lam = full(fit.x)
    if not fit.success and np.max(np.abs(gradient(fit.x))) > 1e-6:
        return finish_frame(
            [
                not_computable(f"the fit did not converge ({fit.message})", system=s)
                for s in systems
            ],
            BT_COLUMNS,
        )
    info = information(lam)
    reduced = np.linalg.inv(info[np.ix_(free, free)])  # covariance of lam - lam_r
    cov_ref = np.zeros((k, k))
    cov_ref[np.ix_(free, free)] = reduced
    centred = lam - lam.mean()
    cov_centred = np.linalg.pinv(info)  # the sum-to-zero parameterisation
    worth = np.exp(centred) / np.exp(centred).sum()
    loglik = -negloglik(fit.x)
    z_crit = float(norm.ppf(1 - (1 - confidence) / 2))
    order = sorted(range(k), key=lambda i: (-lam[i], systems[i]))
    rank = {i: n + 1 for n, i in enumerate(order)}
    rows = []
    for i in order:
        diff = float(lam[i] - lam[r])
        row = {
            "system": systems[i],
            "rank": rank[i],
            "n": int(games[i].sum()),
            "score": float(score[i].sum()),
            "strength": float(centred[i]),
            "se": float(math.sqrt(max(cov_centred[i, i], 0.0))),
            "worth": float(worth[i]),
            "diff": diff,
            "log_likelihood": float(loglik),
            **base,
        }
        if i == r:
            row.update(se_diff=0.0)
        else:
            se_diff = float(math.sqrt(cov_ref[i, i]))
            z = diff / se_diff
            row.update(
                se_diff=se_diff,
                ci_low=diff - z_crit * se_diff,
                ci_high=diff + z_crit * se_diff,
                z=z,
                p_value=float(2 * norm.sf(abs(z))),
            )
        rows.append(ok(**row))
    return finish_frame(rows, BT_COLUMNS)

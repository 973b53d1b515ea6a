"""How complete and balanced the data of one analysis are.

A human study is designed complete and balanced: repeated Latin squares give every
system the same number of judgments in every subdomain (REFERENCE.md section 22),
as long as every list of the design has a participant. When lists go unrun, or
trials are lost (time-outs, errors left out of time analyses, partial sessions),
the analysis runs on an incomplete design whose cells (system × subdomain) hold
different numbers of observations. The ANOVA's Type III sums of squares still
apply, but the reader must know: :func:`design_completeness` counts the
observations per cell and states the fact in one line, e.g. "3 of 8 lists have no
participant; system × subdomain cells have 6–14 judgments".
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import pandas as pd

from stecflow.stats._common import StatsInputError, check_columns, numeric

__all__ = ["cell_counts", "design_completeness"]


def cell_counts(data: pd.DataFrame, dv: str, factors: Sequence[str]) -> pd.DataFrame:
    """Non-missing observations of *dv* in every cell of the factors' crossing.

    Cells are all combinations of the levels observed for each factor, so a
    combination without data is a row with ``n`` = 0.

    Parameters
    ----------
    data : pandas.DataFrame
        Long-format data.
    dv : str
        The measure; missing values do not count.
    factors : sequence of str
        Factor columns, at least one.

    Returns
    -------
    pandas.DataFrame
        Columns ``*factors``, ``n``, sorted by the factors.

    Examples
    --------
    >>> df = pd.DataFrame({"system": list("AAAB"), "dom": list("fppf"),
    ...                    "y": [1.0, 2.0, None, 4.0]})
    >>> cell_counts(df, "y", ["system", "dom"]).values.tolist()
    [['A', 'f', 1], ['A', 'p', 1], ['B', 'f', 1], ['B', 'p', 0]]
    """
    factors = list(factors)
    if not factors:
        raise StatsInputError("cell_counts: give at least one factor")
    check_columns(data, [dv, *factors], what="cell_counts")
    values = numeric(data, dv, what="cell_counts")
    keys = data[factors].astype(str)
    observed = keys[values.notna().to_numpy()]
    counts = observed.groupby(factors, sort=True).size()
    levels = [sorted(set(keys[f])) for f in factors]
    rows = [
        (*cell, int(counts.get(cell if len(cell) > 1 else cell[0], 0)))
        for cell in itertools.product(*levels)
    ]
    return pd.DataFrame(rows, columns=[*factors, "n"])


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def design_completeness(
    data: pd.DataFrame,
    dv: str,
    factors: Sequence[str],
    *,
    names: Sequence[str] | None = None,
    lists_in_design: int | None = None,
    lists_run: int | None = None,
    unit: str = "observations",
) -> dict[str, Any]:
    """Whether an analysis ran on a complete, balanced design, and the line saying so.

    Parameters
    ----------
    data, dv, factors
        As :func:`cell_counts`: the observations the analysis used.
    names : sequence of str, optional
        How the factors are called in the text (default: the column names).
    lists_in_design, lists_run : int, optional
        For human studies: the lists of the design, and those with at least one
        participant (the judgments summary's counts).
    unit : str
        What an observation is, plural ("judgments", "items").

    Returns
    -------
    dict
        ``factors``, ``n_cells``, ``empty_cells``, ``n_min``, ``n_max``,
        ``balanced`` (every cell has the same n, none empty), ``lists_in_design``,
        ``lists_run``, ``lists_without_participant`` (None without lists),
        ``complete`` (every list run and no empty cell), ``notes`` (one sentence
        part per problem) and ``note`` (them joined, with a full stop; ``""`` for a
        complete, balanced design).

    Examples
    --------
    >>> df = pd.DataFrame({"system": list("AAAABB"), "dom": list("ffppfp"),
    ...                    "y": [1.0, 2, 3, 4, 5, 6]})
    >>> d = design_completeness(df, "y", ["system", "dom"], lists_in_design=8,
    ...                         lists_run=5, unit="judgments")
    >>> d["note"]
    '3 of 8 lists have no participant; system × dom cells have 1–2 judgments.'
    >>> design_completeness(df[df.system == "A"], "y", ["system"])["note"]
    ''
    """
    factors = list(factors)
    shown = list(names) if names is not None else factors
    if len(shown) != len(factors):
        raise StatsInputError("design_completeness: one name per factor")
    cells = cell_counts(data, dv, factors)
    n = cells["n"].to_numpy(dtype=int)
    filled = n[n > 0]
    n_min = int(filled.min()) if filled.size else 0
    n_max = int(filled.max()) if filled.size else 0
    empty = int((n == 0).sum())
    missing_lists = (
        max(lists_in_design - lists_run, 0)
        if lists_in_design is not None and lists_run is not None
        else None
    )
    notes = []
    if missing_lists:
        have = "has" if missing_lists == 1 else "have"
        notes.append(
            f"{missing_lists} of {lists_in_design} lists {have} no participant"
        )
    what = " × ".join(shown)
    if empty:
        notes.append(
            f"{empty} of {_plural(len(n), f'{what} cell', f'{what} cells')}"
            f" {'is' if empty == 1 else 'are'} empty"
        )
    if n_min != n_max:
        notes.append(f"{what} cells have {n_min}–{n_max} {unit}")
    return {
        "factors": shown,
        "n_cells": int(len(n)),
        "empty_cells": empty,
        "n_min": n_min,
        "n_max": n_max,
        "balanced": not empty and n_min == n_max,
        "lists_in_design": lists_in_design,
        "lists_run": lists_run,
        "lists_without_participant": missing_lists,
        "complete": not empty and not missing_lists,
        "notes": notes,
        "note": "; ".join(notes) + "." if notes else "",
    }

"""Shared conventions of :mod:`stecflow.stats` (private).

The "not computable" convention
-------------------------------
Every public function of :mod:`stecflow.stats` returns a :class:`pandas.DataFrame`
whose last two columns are

``computable`` (bool)
    True when the row holds a valid result.
``reason`` (str)
    Empty when ``computable`` is True; otherwise a short, specific English sentence
    saying why the statistic cannot be computed (``"fewer than 2 groups with data"``,
    ``"dv is constant: zero residual variance"``, ``"empty cell(s): S2 x ppl"``).

A data condition that makes a test undefined (too few groups or observations, a
constant measure, an empty cell of a factorial design, all values missing) never
raises and never yields an unexplained NaN: it yields a row with
``computable=False``, a ``reason`` and NaN in the numeric result columns. Wrong
*arguments* (a column that does not exist, a non-numeric dependent variable, an
unknown option) raise :class:`StatsInputError`, which is both a
:class:`~stecflow.core.errors.StecflowError` and a :class:`ValueError`.

Missing values (NaN) in the dependent variable or in a role column are removed
listwise before a test (SPSS's default, and pingouin's) and logged. The test tables
(ANOVA, Kruskal-Wallis, t tests, MANOVA, mixed model) report how many rows were
used (``n``) and removed (``n_missing``), so the removal is never silent;
``nan_policy="not_computable"`` turns any missing value into a not-computable row
instead. Correlations of system means use listwise deletion by default (a system
missing any measure leaves every cell; ``deletion="pairwise"`` keeps it where it
has both values) and report ``n`` and ``n_missing`` per pair and the deletion used.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from stecflow.core.errors import StecflowError

__all__ = [
    "NanPolicy",
    "StatsInputError",
    "as_list",
    "check_columns",
    "drop_missing",
    "fill_column",
    "finish_frame",
    "level_label",
]

logger = logging.getLogger("stecflow.stats")

NanPolicy = Literal["omit", "not_computable"]

#: The two columns every result frame ends with.
STATUS_COLUMNS = ["computable", "reason"]


class StatsInputError(StecflowError, ValueError):
    """An argument of a statistics function is wrong (not the data's content)."""


def as_list(value: str | Sequence[str] | None) -> list[str]:
    """Return *value* as a list of column names (a single string becomes one item)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return list(value)


def check_columns(data: pd.DataFrame, columns: Iterable[str], *, what: str) -> None:
    """Raise :class:`StatsInputError` unless every column exists in *data*."""
    if not isinstance(data, pd.DataFrame):
        raise StatsInputError(f"{what}: data must be a pandas DataFrame")
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise StatsInputError(
            f"{what}: column(s) {', '.join(map(repr, missing))} not in data; "
            f"available: {', '.join(map(str, data.columns))}",
            field=missing[0],
        )


def numeric(data: pd.DataFrame, column: str, *, what: str) -> pd.Series:
    """Return *column* as float; raise :class:`StatsInputError` if not numeric."""
    series = data[column]
    if pd.api.types.is_bool_dtype(series):
        return series.astype(float)
    try:
        return pd.to_numeric(series, errors="raise").astype(float)
    except (TypeError, ValueError) as exc:
        raise StatsInputError(
            f"{what}: column {column!r} must be numeric ({exc})", field=column
        ) from exc


def check_nan_policy(nan_policy: str) -> None:
    """Raise :class:`StatsInputError` for an unknown *nan_policy*."""
    if nan_policy not in ("omit", "not_computable"):
        raise StatsInputError(
            f"nan_policy must be 'omit' or 'not_computable', not {nan_policy!r}"
        )


def drop_missing(
    data: pd.DataFrame,
    dvs: Sequence[str],
    roles: Sequence[str],
    *,
    what: str,
    nan_policy: NanPolicy = "omit",
) -> tuple[pd.DataFrame, int, str]:
    """Select the columns, coerce *dvs* to float and drop incomplete rows.

    Returns the clean frame, the number of removed rows and a reason string that is
    non-empty when ``nan_policy == "not_computable"`` and something was missing.
    """
    check_nan_policy(nan_policy)
    check_columns(data, [*dvs, *roles], what=what)
    frame = pd.DataFrame(index=data.index)
    for role in roles:
        frame[role] = data[role]
    for dv in dvs:
        frame[dv] = numeric(data, dv, what=what)
    frame = frame.replace([np.inf, -np.inf], np.nan)
    complete = frame.notna().all(axis=1)
    n_missing = int((~complete).sum())
    reason = ""
    if n_missing:
        cols = [c for c in [*dvs, *roles] if frame[c].isna().any()]
        msg = f"{n_missing} row(s) with missing values in {', '.join(cols)}"
        if nan_policy == "not_computable":
            reason = msg
        else:
            logger.info("%s: %s removed (listwise deletion)", what, msg)
    return frame.loc[complete].reset_index(drop=True), n_missing, reason


def level_label(value: Hashable) -> str:
    """Return a group level as the string used in result tables."""
    return str(value)


def finish_frame(
    rows: Sequence[Mapping[str, Any]], columns: Sequence[str]
) -> pd.DataFrame:
    """Build a result frame with a fixed column order and the status columns last.

    Missing keys become NaN (numeric) or ``""`` (``reason``); ``computable`` is bool.
    """
    cols = [c for c in columns if c not in STATUS_COLUMNS] + STATUS_COLUMNS
    frame = pd.DataFrame([dict(r) for r in rows], columns=cols)
    fill_column(frame, "computable", False, bool)
    fill_column(frame, "reason", "", str)
    return frame.reset_index(drop=True)


def fill_column(frame: pd.DataFrame, column: str, value: Any, dtype: type) -> None:
    """Replace missing values of *column* by *value* and cast it to *dtype*."""
    col = frame[column].astype(object)
    frame[column] = col.where(col.notna(), value).astype(dtype)


def not_computable(reason: str, **fields: Any) -> dict[str, Any]:
    """Return a result row marked not computable, with the given identifying fields."""
    return {**fields, "computable": False, "reason": reason}


def ok(**fields: Any) -> dict[str, Any]:
    """Return a result row marked computable."""
    return {**fields, "computable": True, "reason": ""}


def is_constant(values: np.ndarray) -> bool:
    """True when all finite values are equal (up to floating-point noise)."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return True
    scale = max(1.0, float(np.max(np.abs(values))))
    return bool(np.ptp(values) <= 1e-12 * scale)

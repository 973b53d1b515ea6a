"""The design of a situated identification study as its merge reads it.

``design.tsv`` (:func:`read_situated_design`, its test trials
:func:`drop_practice`) and ``design.json`` (:func:`read_design_settings`: the
majority rule, the time scopes and the halves of the item sets).

May import: pandas inside functions.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from stecflow.judgments._common import JudgmentsError
from stecflow.studykinds.situated_identification.measures import (
    CLASSES,
    MAJORITY_RULES,
    SCOPES,
)

__all__ = [
    "TASK",
    "design_halves",
    "drop_practice",
    "majority_rule",
    "read_design_settings",
    "read_situated_design",
    "time_scopes",
]

#: The study kind: the ``task`` of a simulated row and of the summary.
TASK = "situated_identification"
_DESIGN_NEEDED = ("study", "list", "order", "item", "condition", "shown", "target")


def read_situated_design(path: str | Path) -> Any:
    """Read ``design.tsv`` of a situated study as a DataFrame.

    Parameters
    ----------
    path : path
        The design (columns
        :data:`.design.SITUATED_TRIAL_COLUMNS`; at
        least ``study, list, order, item, condition, shown, target``).

    Returns
    -------
    pandas.DataFrame
        Strings, ``order`` as int, ``practice`` and ``filler`` as bool.

    Raises
    ------
    JudgmentsError
        A column is missing, a condition is not a situated class, or an order is
        not a whole number (file, line, column).
    """
    import pandas as pd

    from stecflow.core.io import read_tsv

    source = str(path)
    try:
        rows = read_tsv(path)
    except OSError as exc:
        raise JudgmentsError(
            f"cannot read the design ({exc.strerror})", file=source
        ) from None
    columns = list(rows[0]) if rows else []
    if rows:
        missing = [c for c in _DESIGN_NEEDED if c not in columns]
        if missing:
            raise JudgmentsError(
                f"missing column(s) {', '.join(missing)}; expected the situated "
                "design's columns (SITUATED_TRIAL_COLUMNS)",
                file=source,
                line=1,
                field=missing[0],
            )
    for line, row in enumerate(rows, start=2):
        if row["condition"] not in CLASSES:
            raise JudgmentsError(
                f"condition {row['condition']!r}; expected one of "
                + ", ".join(CLASSES),
                file=source,
                line=line,
                field="condition",
            )
        try:
            row["order"] = int(row["order"])
        except ValueError:
            raise JudgmentsError(
                f"order {row['order']!r}; expected a whole number",
                file=source,
                line=line,
                field="order",
            ) from None
        for flag in ("practice", "filler"):
            row[flag] = row.get(flag, "") == "true"
    frame = pd.DataFrame(rows, columns=columns or list(_DESIGN_NEEDED))
    return frame


def drop_practice(design: Any) -> Any:
    """The design without practice trials (they are not situated instances)."""
    if "practice" not in design.columns or not len(design):
        return design
    return design[~design["practice"].astype(bool)].reset_index(drop=True)


def read_design_settings(path: str | Path) -> dict[str, Any]:
    """Read ``design.json`` of a situated study (a JSON object)."""
    from stecflow.core.io import read_json

    try:
        data = read_json(path)
    except OSError as exc:
        raise JudgmentsError(
            f"cannot read design.json ({exc.strerror})", file=str(path)
        ) from None
    except ValueError as exc:
        raise JudgmentsError(f"not JSON ({exc})", file=str(path)) from None
    if not isinstance(data, dict):
        raise JudgmentsError("expected a JSON object", file=str(path))
    return data


def majority_rule(settings: Mapping[str, Any], path: str) -> str:
    """The majority rule *settings* (design.json at *path*) give; default strict."""
    rule = settings.get("majority") or "strict"
    if rule not in MAJORITY_RULES:
        raise JudgmentsError(
            f"majority {rule!r}; expected one of {', '.join(MAJORITY_RULES)}",
            file=path,
            field="majority",
        )
    return str(rule)


def time_scopes(settings: Mapping[str, Any], path: str) -> list[str]:
    """The time scopes *settings* (design.json at *path*) give, in SCOPES order."""
    scopes = settings.get("time_scope") or list(SCOPES)
    if isinstance(scopes, str):
        scopes = [scopes]
    bad = [s for s in scopes if s not in SCOPES]
    if bad:
        raise JudgmentsError(
            f"time_scope {bad[0]!r}; expected {', '.join(SCOPES)}",
            file=path,
            field="time_scope",
        )
    return [s for s in SCOPES if s in scopes]


def design_halves(design_json: Mapping[str, Any]) -> Any:
    """The design's halves: ``halves``, else the A and B of ``item_sets``."""
    if "halves" in design_json:
        return design_json["halves"]
    sets = design_json.get("item_sets") or {}
    return {k: sets[k] for k in ("A", "B") if k in sets}

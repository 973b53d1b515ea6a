"""The study design: read, normalised, and indexed for placing answers in it.

:func:`read_design` reads the design table a built study writes
(``results/studies/<study>/design.tsv``, the columns of
:data:`stecflow.studies.designs.TRIAL_COLUMNS`); :func:`design_frame` normalises
a :class:`~stecflow.studies.designs.Design` or its table (types, required
columns, one trial per list and order). :class:`DesignIndex` holds the trials
by list and order and finds the trial an answer belongs to, by order or by item
and system; :func:`stecflow.judgments.merge.merge_with_design` uses it (the
rules for placing a session are in :mod:`stecflow.judgments.merge`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stecflow.judgments._common import JudgmentsError, parse_bool, parse_int, plain

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["DesignIndex", "design_frame", "read_design"]

_DESIGN_NEEDED = ("list", "order", "item", "system")


def read_design(path: str | Path) -> pd.DataFrame:
    """Read a design table written as TSV (``results/studies/<study>/design.tsv``).

    Parameters
    ----------
    path : path
        TSV with the columns of :data:`stecflow.studies.designs.TRIAL_COLUMNS` (at least
        ``list``, ``order``, ``item`` and ``system``).

    Returns
    -------
    pandas.DataFrame
        As :func:`design_frame` returns.

    Raises
    ------
    JudgmentsError
        A required column is missing or a value cannot be read.
    """
    import pandas as pd

    source = str(path)
    try:
        frame = pd.read_csv(
            path, sep="\t", dtype=str, keep_default_na=False, encoding="utf-8"
        )
    except (OSError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise JudgmentsError(f"cannot read the design ({exc})", file=source) from None
    return design_frame(frame, source=source)


def design_frame(design: Any, *, source: str = "design") -> pd.DataFrame:
    """Normalise a design (a :class:`~stecflow.studies.designs.Design` or its table).

    Returns a copy with ``order`` and ``subject_slot`` as int, ``practice`` and
    ``filler`` as bool and every other column as str or None; rows with an
    empty list or order raise.

    >>> import pandas as pd
    >>> d = design_frame(pd.DataFrame({"list": ["L01"], "order": ["1"],
    ...                                "item": ["t1"], "system": ["A"]}))
    >>> d.loc[0, "order"], d.loc[0, "practice"]
    (1, False)
    """
    import pandas as pd

    frame = design.trials if hasattr(design, "trials") else design
    frame = pd.DataFrame(frame).copy()
    missing = [c for c in _DESIGN_NEEDED if c not in frame.columns]
    if missing:
        raise JudgmentsError(
            f"the design has no column {missing[0]}; expected the design table of "
            "stecflow.studies.designs (list, order, item, system, ...)",
            file=source,
            line=1,
            field=missing[0],
        )
    records = []
    for index, raw in enumerate(frame.to_dict("records"), start=2):
        row: dict[str, Any] = {}
        for key, value in raw.items():
            value = plain(value)
            row[key] = None if value is None else str(value).strip() or None
        try:
            row["order"] = parse_int(row["order"] or "")
            slot = row.get("subject_slot")
            row["subject_slot"] = parse_int(slot) if slot else None
            for flag in ("practice", "filler"):
                row[flag] = bool(parse_bool(row.get(flag) or ""))
        except ValueError as exc:
            raise JudgmentsError(str(exc), file=source, line=index) from None
        if row["list"] is None or row["order"] is None or row["item"] is None:
            raise JudgmentsError(
                "list, order and item must not be empty", file=source, line=index
            )
        records.append(row)
    out = pd.DataFrame(records, dtype=object)
    duplicated = out.duplicated(["list", "order"])
    if duplicated.any():
        first = int(duplicated.to_numpy().nonzero()[0][0]) + 2
        raise JudgmentsError(
            "two trials share list and order", file=source, line=first, field="order"
        )
    return out


class DesignIndex:
    """The trials of a design by list and order, and the matching of answers to them."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.trials: dict[str, dict[int, dict[str, Any]]] = defaultdict(dict)
        for raw in frame.to_dict("records"):
            row = {k: plain(v) for k, v in raw.items()}
            self.trials[row["list"]][row["order"]] = row
        self.lists = sorted(self.trials)

    def candidates(self, row: Mapping[str, Any], list_id: str) -> list[int]:
        """Orders of the trials of *list_id* an order-less row may answer.

        The trials showing the row's item (and system, when the row has one),
        narrowed by the row's ``practice`` and ``filler`` flags when it records
        them and they leave at least one trial (the design decides in the end).
        """
        trials = self.trials.get(list_id, {})
        item, system = row["item"], row["system"]
        if item is None:
            return []
        found = sorted(
            o
            for o, t in trials.items()
            if t["item"] == item and (system is None or t.get("system") == system)
        )
        for flag in ("practice", "filler"):
            value = row.get(flag)
            if value is None or len(found) < 2:
                continue
            narrowed = [o for o in found if bool(trials[o][flag]) == bool(value)]
            found = narrowed or found
        return found

    def match(self, row: Mapping[str, Any], list_id: str) -> tuple[int | None, str]:
        """Return (order, "ok" | "missing" | "mismatch" | "ambiguous").

        ``ambiguous``: a row without an order whose item and system several trials
        of the list show (a filler copy of a test trial, say); the session's
        other rows decide (:meth:`resolve`).
        """
        trials = self.trials.get(list_id, {})
        item, system, order = row["item"], row["system"], row["order"]
        if order is not None:
            trial = trials.get(order)
            if trial is None:
                return None, "missing"
            if item is not None and item != trial["item"]:
                return order, "mismatch"
            if system is not None and trial.get("system") not in (None, system):
                return order, "mismatch"
            return order, "ok"
        found = self.candidates(row, list_id)
        if not found:
            return None, "missing"
        if len(found) == 1:
            return found[0], "ok"
        return None, "ambiguous"

    def score(self, rows: Sequence[Mapping[str, Any]], list_id: str) -> int:
        return sum(1 for r in rows if self.match(r, list_id)[1] in ("ok", "ambiguous"))

    def resolve(
        self, rows: Sequence[Mapping[str, Any]], list_id: str
    ) -> dict[int, tuple[int | None, str, tuple[int, ...]]]:
        """Match every row of one session: ``id(row)`` -> (order, status, candidates).

        Rows whose item and system several trials of the list show (and that
        have no order) are told apart by their occurrence: the trials not taken
        by the session's other rows, in list order, go to the rows with the same
        candidates, in file and line order (the order they were answered in), when
        there are exactly as many rows as such trials. Otherwise a single test
        trial among the candidates takes every row (the others then are
        duplicates); failing that the rows stay ``ambiguous``.
        """
        out: dict[int, tuple[int | None, str, tuple[int, ...]]] = {}
        pending: dict[tuple[int, ...], list[Mapping[str, Any]]] = {}
        taken: set[int] = set()
        for row in rows:
            order, status = self.match(row, list_id)
            if status == "ambiguous":
                key = tuple(self.candidates(row, list_id))
                pending.setdefault(key, []).append(row)
                continue
            out[id(row)] = (order, status, ())
            if status == "ok" and order is not None:
                taken.add(order)
        trials = self.trials.get(list_id, {})
        for key, group in pending.items():
            free = [o for o in key if o not in taken]
            tests = [o for o in key if not trials[o]["practice"]]
            if len(free) == len(group):
                assigned = list(free)
            elif len(tests) == 1:
                assigned = tests * len(group)
            else:
                for row in group:
                    out[id(row)] = (None, "ambiguous", key)
                continue
            for row, order in zip(group, assigned, strict=True):
                out[id(row)] = (order, "ok", key)
            taken.update(assigned)
        return out

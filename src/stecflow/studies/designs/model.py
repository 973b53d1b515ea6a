"""The :class:`Design` object and its trials table.

:data:`TRIAL_COLUMNS` names the columns of :attr:`Design.trials`; the builders
(:mod:`~stecflow.studies.designs.latin`, :mod:`~stecflow.studies.designs.two_group`)
collect one dict per trial and turn them into the table with ``_frame``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

__all__ = ["TRIAL_COLUMNS", "Design"]

#: Columns of :attr:`Design.trials`, in this order (rows sorted by subject slot and
#: order). ``square``, ``square_row`` and ``square_column`` are 1-based and missing
#: (``<NA>``) for practice trials and in designs without squares.
TRIAL_COLUMNS = (
    "study",
    "list",
    "subject_slot",
    "group",
    "replication",
    "square",
    "square_row",
    "square_column",
    "order",
    "item",
    "subdomain",
    "item_set",
    "system",
    "practice",
    "filler",
    "control",
)


#: The :attr:`Design.kind` of each builder.
_LATIN = "latin_square"
_TWO_GROUP = "two_group"


@dataclass(frozen=True, eq=False)
class Design:
    """A study design: which subject slot sees which item by which system, when.

    Attributes
    ----------
    study : str
        The study ID, repeated in the ``study`` column.
    kind : {"latin_square", "two_group"}
        The function that built the design.
    seed : int
        The seed every random choice was derived from.
    systems : tuple of str
        The systems compared, sorted (for a two-group design: original, replacement).
    items : tuple of str
        The test items (without practice items and filler copies), sorted.
    trials : pandas.DataFrame
        One row per trial with the columns of :data:`TRIAL_COLUMNS`, sorted by
        ``subject_slot`` then ``order``. ``list`` is the ID of the subject slot's
        trial list (``L01``, ``L02``, ...); ``order`` is the 1-based position in that
        list, practice trials first; ``filler`` marks duplicated items that only fill
        the last square (leave them out of the analysis); ``control`` is the kind of
        a control trial (``degraded`` or ``gold``, system ``CONTROL``, see
        :mod:`~stecflow.studies.designs.controls`) and missing otherwise;
        ``item_set`` is ``A``, ``B`` or ``shared`` in a two-group design and
        missing otherwise.
    subjects : int
        Number of subject slots (lists).
    groups : int
        Number of subject groups per replication; the subjects of one group see the
        same items.
    replications : int
        How often every (item, system) pair is judged.
    squares : int
        Latin squares per replication (0 for a two-group design).
    carryover_balanced : bool
        Whether the squares are Williams squares presented in column order.
    practice_items : tuple of str
        The practice items, in the order every subject sees them.
    item_sets : dict
        For a two-group design, the items of sets ``A``, ``B`` and ``shared``.
    shared_system : str or None
        For a two-group design, the system shown with the shared items.
    notes : tuple of str
        Facts a report should state (fillers, subdomain grouping).
    """

    study: str
    kind: str
    seed: int
    systems: tuple[str, ...]
    items: tuple[str, ...]
    trials: pd.DataFrame
    subjects: int
    groups: int
    replications: int = 1
    squares: int = 0
    carryover_balanced: bool = False
    practice_items: tuple[str, ...] = ()
    item_sets: dict[str, tuple[str, ...]] = field(default_factory=dict)
    shared_system: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def test_trials(self) -> pd.DataFrame:
        """The trials without practice trials (fillers included)."""
        return self.trials[~self.trials["practice"]]

    def settings(self) -> dict[str, Any]:
        """Return the design's parameters as plain, JSON-ready data for a report.

        >>> from stecflow.studies.designs import latin_square_design
        >>> d = latin_square_design(["a", "b"], ["i1", "i2"], subjects=2, seed=1)
        >>> d.settings()["n_trials"], d.settings()["trials_per_subject"]
        (4, 2)
        """
        per_list = self.trials.groupby("list").size()
        controls = self.trials["control"].notna() if "control" in self.trials else None
        n_controls = int(controls.sum()) if controls is not None else 0
        return {
            "study": self.study,
            "kind": self.kind,
            "seed": self.seed,
            "systems": list(self.systems),
            "n_items": len(self.items),
            "subjects": self.subjects,
            "groups": self.groups,
            "replications": self.replications,
            "squares": self.squares,
            "carryover_balanced": self.carryover_balanced,
            "practice_items": list(self.practice_items),
            "item_sets": {k: list(v) for k, v in sorted(self.item_sets.items())},
            "shared_system": self.shared_system,
            "n_trials": int(len(self.test_trials)) - n_controls,
            "n_fillers": int(self.trials["filler"].sum()),
            "trials_per_subject": int(per_list.max()) if len(per_list) else 0,
            "notes": list(self.notes),
            **({"n_controls": n_controls} if n_controls else {}),
        }


def _list_id(slot: int, subjects: int) -> str:
    width = max(2, len(str(subjects)))
    return f"L{slot:0{width}d}"


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=list(TRIAL_COLUMNS))
    for column in ("subject_slot", "group", "replication", "order"):
        frame[column] = frame[column].astype("int64")
    for column in ("square", "square_row", "square_column"):
        frame[column] = frame[column].astype("Int64")
    for column in ("practice", "filler"):
        frame[column] = frame[column].astype(bool)
    for column in (
        "study",
        "list",
        "item",
        "subdomain",
        "item_set",
        "system",
        "control",
    ):
        frame[column] = frame[column].astype(object)
        frame[column] = frame[column].where(frame[column].notna(), None)
    frame = frame.sort_values(["subject_slot", "order"], kind="stable")
    return frame.reset_index(drop=True)

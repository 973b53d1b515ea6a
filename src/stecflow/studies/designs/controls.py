"""Control trials placed by the design (attention checks and gold items).

A study may ask for control trials (config ``studies.<id>.controls``): trials
whose right answer is known, so that inattentive participants can be found and
excluded by rules declared before the study runs
(:mod:`stecflow.judgments.exclusions`). Two kinds:

``degraded``
    Rating studies: an output damaged on purpose, which an attentive participant
    rates low (the "bad references" of WMT's direct assessment and Appraise).
``gold``
    Identification studies: a description that identifies the target
    unambiguously; the expected answer is the target.

:func:`add_controls` inserts the same number of control trials into every list
of a design. Where they go is drawn from the study seed: the list's test trials
are cut into as many equal segments as there are control trials and one control
trial goes into each segment, never as the first or the last test trial of the
list and never right after another control trial, so they are spread over the
list. A control trial shows an item the list does not otherwise show when there
is one (seeded draw), with the system name :data:`CONTROL_SYSTEM`; its
``control`` column holds the kind (empty for every other trial). What it shows
is made by :mod:`stecflow.studies.controls`.

In a pair design (``text_preference``) a control trial compares a system's
output with a degraded copy of it: ``system_left`` and ``system_right`` are that
system (:func:`control_source`, drawn per item from the seed) and
:data:`CONTROL_SYSTEM`, on a side drawn from the seed; ``system`` is their
:func:`~stecflow.studies.designs.pairs.pair_label`. The expected answer is the
intact text.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from stecflow.studies.designs.checks import DesignError
from stecflow.studies.designs.model import Design, _frame
from stecflow.studies.designs.pairs import PAIRS, pair_label
from stecflow.studies.designs.seeding import _rng

__all__ = [
    "CONTROL_KINDS",
    "CONTROL_SYSTEM",
    "add_controls",
    "control_positions",
    "control_source",
    "controls_per_list",
]

#: The ``system`` of every control trial (never a submission: IDs are team/system).
CONTROL_SYSTEM = "CONTROL"
#: The kinds of control trial.
CONTROL_KINDS = ("degraded", "gold")


def controls_per_list(n_test: int, per_list: int | None, share: float | None) -> int:
    """How many control trials each list gets.

    *per_list* as given, or *share* of the list's test trials after insertion
    (rounded, at least 1): ``n = round(share * n_test / (1 - share))``.

    >>> controls_per_list(20, 3, None), controls_per_list(20, None, 0.1)
    (3, 2)
    """
    if (per_list is None) == (share is None):
        raise DesignError("give per_list or share, not both", field="controls")
    if per_list is not None:
        if isinstance(per_list, bool) or not isinstance(per_list, int) or per_list < 1:
            raise DesignError(
                f"must be a positive integer, got {per_list!r}",
                field="controls.per_list",
            )
        return per_list
    assert share is not None
    if not 0 < share < 0.5:
        raise DesignError(
            f"must be above 0 and below 0.5, got {share!r}", field="controls.share"
        )
    return max(1, round(share * n_test / (1 - share)))


def control_positions(n_test: int, n_controls: int, seed: int, *keys: Any) -> list[int]:
    """1-based positions of the control trials among ``n_test + n_controls``.

    The positions are cut into *n_controls* equal segments; one position is drawn
    in each (seeded by *seed* and *keys*), never the first or the last position
    and never right after the previous control.

    >>> control_positions(8, 2, 1, "L01")
    [2, 6]
    >>> control_positions(8, 2, 1, "L01") == control_positions(8, 2, 1, "L01")
    True
    """
    total = n_test + n_controls
    if n_test < 2 * n_controls:
        raise DesignError(
            f"{n_controls} control trial(s) need at least {2 * n_controls} test"
            f" trials per list, the lists have {n_test}; lower per_list (or share)",
            field="controls.per_list",
        )
    rng = _rng(seed, "controls", *keys)
    positions: list[int] = []
    for segment in range(n_controls):
        low = segment * total // n_controls + 1
        high = (segment + 1) * total // n_controls
        allowed = [
            p
            for p in range(low, high + 1)
            if 1 < p < total and (not positions or p > positions[-1] + 1)
        ]
        if not allowed:  # cannot happen with n_test >= 2 * n_controls
            raise DesignError("no room for a control trial", field="controls")
        positions.append(allowed[int(rng.integers(len(allowed)))])
    return positions


def control_source(systems: Sequence[str], seed: int, item: str) -> str:
    """The system whose output a pair control trial on *item* degrades.

    Drawn from the seed per item (so every list's control trial on the item
    shows the same two texts), among the sorted systems.

    >>> control_source(["b", "a", "c"], 1, "t1") in {"a", "b", "c"}
    True
    >>> control_source(["b", "a"], 1, "t1") == control_source(["a", "b"], 1, "t1")
    True
    """
    ordered = sorted(systems)
    return ordered[int(_rng(seed, "control-source", item).integers(len(ordered)))]


def add_controls(
    design: Design,
    *,
    kind: str,
    per_list: int | None = None,
    share: float | None = None,
    eligible: Sequence[str] | None = None,
    subdomains: Mapping[str, str] | None = None,
) -> Design:
    """The design with control trials inserted into every list.

    Parameters
    ----------
    design
        A design without control trials.
    kind
        ``degraded`` or ``gold`` (:data:`CONTROL_KINDS`).
    per_list, share
        How many control trials per list (:func:`controls_per_list`, from the
        longest list's test trials, so every list gets the same count).
    eligible
        Items a control trial may show (default: the design's items); an item
        the list does not otherwise show is preferred.
    subdomains
        Item -> subdomain, for the ``subdomain`` column.

    Returns
    -------
    Design
        A copy whose trials hold the control trials (system
        :data:`CONTROL_SYSTEM`, ``control`` = *kind*), orders renumbered;
        ``notes`` says how many were placed.

    Examples
    --------
    >>> from stecflow.studies.designs import latin_square_design
    >>> d = latin_square_design(["a", "b"], ["i1", "i2", "i3", "i4"], subjects=2,
    ...                         seed=3)
    >>> c = add_controls(d, kind="degraded", per_list=1)
    >>> c.trials.groupby("list")["control"].count().tolist()
    [1, 1]
    """
    if kind not in CONTROL_KINDS:
        raise DesignError(
            f"{kind!r} is not one of {', '.join(CONTROL_KINDS)}", field="controls.kind"
        )
    pool = sorted(set(eligible if eligible is not None else design.items))
    if not pool:
        raise DesignError(
            "no item can show a control trial (see the message above)",
            field="controls",
        )
    subdomains = subdomains or {}
    trials = design.trials
    sizes = trials[~trials["practice"]].groupby("list").size()
    n = controls_per_list(int(sizes.max()), per_list, share)
    rows: list[dict[str, Any]] = []
    for list_id, group in trials.groupby("list", sort=True):
        group = group.sort_values("order")
        practice = [r for r in group.to_dict("records") if r["practice"]]
        tests = [r for r in group.to_dict("records") if not r["practice"]]
        positions = control_positions(len(tests), n, design.seed, list_id)
        rng = _rng(design.seed, "controls", "items", list_id)
        shown = {r["item"] for r in tests}
        unseen = [i for i in pool if i not in shown] or pool
        picks = rng.choice(len(unseen), size=n, replace=len(unseen) < n)
        base = {k: v for k, v in tests[0].items()}
        controls = [
            {
                **base,
                "replication": base["replication"],
                "square": None,
                "square_row": None,
                "square_column": None,
                "item": unseen[int(p)],
                "subdomain": subdomains.get(unseen[int(p)]),
                "item_set": None,
                "system": CONTROL_SYSTEM,
                "practice": False,
                "filler": False,
                "control": kind,
            }
            for p in picks
        ]
        if design.kind == PAIRS:  # a system against a degraded copy of itself
            sides = _rng(design.seed, "controls", "sides", list_id)
            for row in controls:
                intact = control_source(design.systems, design.seed, row["item"])
                pair = [intact, CONTROL_SYSTEM]
                if sides.random() < 0.5:
                    pair.reverse()
                row.update(
                    system=pair_label(intact, CONTROL_SYSTEM),
                    system_left=pair[0],
                    system_right=pair[1],
                )
        merged: list[dict[str, Any]] = []
        queue = iter(tests)
        for position in range(1, len(tests) + n + 1):
            merged.append(controls.pop(0) if position in positions else next(queue))
        for order, row in enumerate([*practice, *merged], start=1):
            rows.append({**row, "order": order})
    notes = (
        *design.notes,
        f"{n} {kind} control trial(s) per list (system {CONTROL_SYSTEM}), placed"
        " by the seed, never first, last or adjacent; left out of every analysis",
    )
    frame = _frame(rows)
    if design.kind == PAIRS:  # the sides shown, after the trial columns
        frame["system_left"] = [r["system_left"] for r in rows]
        frame["system_right"] = [r["system_right"] for r in rows]
    return dataclasses.replace(design, trials=frame, notes=notes)

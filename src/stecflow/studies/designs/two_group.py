"""The counterbalanced two-group design with shared items (seed 000, section 5.1).

``_version`` says which system a group sees for an item set (``A``, ``B`` or
``shared``); :mod:`~stecflow.studies.designs.balance` uses it to count what a
balanced two-group design must show.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from stecflow.studies.designs.checks import (
    DesignError,
    _check_count,
    _check_ids,
    _check_seed,
    _check_study,
)
from stecflow.studies.designs.model import _TWO_GROUP, Design, _frame, _list_id
from stecflow.studies.designs.practice import _choose_practice, _practice_rows
from stecflow.studies.designs.seeding import _rng

__all__ = ["two_group_design"]

# the name of the module before it became a package, kept for the job logs
logger = logging.getLogger("stecflow.studies.designs")

#: The item sets of a two-group design.
_SETS = ("A", "B", "shared")


def _split_halves(
    contexts: tuple[str, ...], strata: Mapping[str, str] | None, seed: int
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Deal the contexts alternately to A and B, stratum by stratum, after shuffling."""
    rng = _rng(seed, "halves")
    if strata is None:
        sequence = [contexts[int(i)] for i in rng.permutation(len(contexts))]
    else:
        sequence = []
        for label in sorted(set(strata[c] for c in contexts)):
            members = [c for c in contexts if strata[c] == label]
            sequence.extend(members[int(i)] for i in rng.permutation(len(members)))
    half_a = tuple(sorted(sequence[0::2]))
    half_b = tuple(sorted(sequence[1::2]))
    return half_a, half_b


def _version(
    group: int, item_set: str, systems: tuple[str, ...], shared_system: str | None
) -> str | None:
    """The system a group sees for an item set in a two-group design."""
    if item_set == "shared":
        return shared_system
    original, replacement = systems
    first = (group == 1) == (item_set == "A")
    return original if first else replacement


def two_group_design(
    contexts: Sequence[str],
    *,
    original: str,
    replacement: str,
    subjects: int,
    seed: int,
    shared: Sequence[str] = (),
    shared_system: str | None = None,
    strata: Mapping[str, str] | None = None,
    practice_pool: Sequence[str] = (),
    n_practice: int = 0,
    practice_system: str | None = None,
    study: str = "study",
) -> Design:
    """Build the counterbalanced two-group design of seed 000 (section 5.1).

    The *contexts* are split into halves A and B. Group 1 sees A with the
    *original* expression and B with the *replacement* (a system's output); group 2
    sees A with the replacement and B with the original (FP1-Orig + FP2-DP vs
    FP1-DP + FP2-Orig). Both groups also see the *shared* items with
    *shared_system*. So every subject sees every context exactly once, and every
    context is seen in both versions, by different subjects.

    Rules: contexts (sorted) are shuffled, within each stratum when *strata* is
    given (strata in sorted order), and dealt alternately to A and B, so the halves
    differ in size by at most one overall and within every stratum (seed 000: 15
    "parallelogram" contexts, 7 in one half and 8 in the other). Subject slots
    alternate between the groups (odd slots group 1). Practice trials come first,
    identical for everyone; each subject's test trials are then shuffled.

    Parameters
    ----------
    contexts : sequence of str
        Item IDs shown in both versions, at least 2.
    original, replacement : str
        The system IDs of the two versions (e.g. the corpus expression and the
        system's replacement), different from each other.
    subjects : int
        Number of subject slots, an even number (two equal groups).
    seed : int
        The study seed, a non-negative integer.
    shared : sequence of str, default ()
        Items both groups see with *shared_system*; disjoint from *contexts*.
    shared_system : str, optional
        The system shown with the shared items; defaults to *original*.
    strata : mapping of str to str, optional
        Context ID to stratum label, to spread each stratum evenly over A and B.
    practice_pool, n_practice, practice_system, study
        As in :func:`latin_square_design`.

    Returns
    -------
    Design
        ``kind="two_group"``, ``systems=(original, replacement)``; ``item_set`` is
        ``A``, ``B`` or ``shared``.

    Raises
    ------
    DesignError
        (also a ValueError) for an odd subject count, overlapping contexts and
        shared items, identical versions, missing strata or bad practice items.

    References
    ----------
    Spanger, P. et al., task-performance evaluation of demonstrative pronouns in the
    REX-J Tangram corpus (seed 000, section 5.1).

    Examples
    --------
    >>> from stecflow.studies.designs import balance_problems
    >>> d = two_group_design(["c1", "c2", "c3", "c4"], original="ORIG",
    ...                      replacement="DP", shared=["t1", "t2"], subjects=4,
    ...                      seed=3)
    >>> d.trials.groupby("list").size().tolist()
    [6, 6, 6, 6]
    >>> d.trials.groupby(["item", "system"]).size().loc["c1"].tolist()
    [2, 2]
    >>> balance_problems(d)
    []
    """
    study = _check_study(study)
    seed = _check_seed(seed)
    context_ids = _check_ids(contexts, "contexts", 2)
    shared_ids = _check_ids(shared, "shared", 0)
    overlap = sorted(set(context_ids) & set(shared_ids))
    if overlap:
        raise DesignError(
            f"{', '.join(overlap[:5])} are both contexts and shared items; "
            "give each item in one of the two lists",
            field="shared",
        )
    _check_ids([original, replacement], "original/replacement", 2)
    if shared_system is None:
        shared_system = original
    _check_ids([shared_system], "shared_system", 1)
    subjects = _check_count(subjects, "subjects", 2)
    if subjects % 2:
        raise DesignError(
            f"{subjects} subjects cannot form two equal groups; use an even number "
            f"such as {subjects - 1} or {subjects + 1}",
            field="subjects",
        )
    if strata is not None:
        missing = [c for c in context_ids if c not in strata]
        if missing:
            raise DesignError(
                f"no stratum for {len(missing)} context(s) ({', '.join(missing[:5])}); "
                "give one for every context or none at all",
                field="strata",
            )
    all_items = tuple(sorted(context_ids + shared_ids))
    practice = _choose_practice(practice_pool, n_practice, all_items, seed)
    half_a, half_b = _split_halves(context_ids, strata, seed)
    item_sets = {"A": half_a, "B": half_b, "shared": shared_ids}
    rows: list[dict[str, Any]] = []
    for slot in range(1, subjects + 1):
        group = 1 if slot % 2 else 2
        base = {
            "study": study,
            "list": _list_id(slot, subjects),
            "subject_slot": slot,
            "group": group,
            "replication": 1,
        }
        rows.extend(_practice_rows(base, practice, practice_system, {}))
        trials = [
            (
                item,
                item_set,
                _version(group, item_set, (original, replacement), shared_system),
            )
            for item_set in _SETS
            for item in item_sets[item_set]
        ]
        order = _rng(seed, "order", slot).permutation(len(trials))
        for position, index in enumerate(order, start=len(practice) + 1):
            item, item_set, system = trials[int(index)]
            rows.append(
                {
                    **base,
                    "square": None,
                    "square_row": None,
                    "square_column": None,
                    "order": position,
                    "item": item,
                    "subdomain": None,
                    "item_set": item_set,
                    "system": system,
                    "practice": False,
                    "filler": False,
                }
            )
    notes = (
        f"contexts split into A ({len(half_a)}) and B ({len(half_b)})"
        + (" within strata" if strata is not None else ""),
        f"group 1 sees A as {original} and B as {replacement}; group 2 the reverse; "
        f"both see {len(shared_ids)} shared item(s) as {shared_system}",
    )
    design = Design(
        study=study,
        kind=_TWO_GROUP,
        seed=seed,
        systems=(original, replacement),
        items=all_items,
        trials=_frame(rows),
        subjects=subjects,
        groups=2,
        item_sets=item_sets,
        shared_system=shared_system,
        practice_items=practice,
        notes=notes,
    )
    logger.info(
        "study %s: two-group design, %d contexts + %d shared items, %d subjects",
        study,
        len(context_ids),
        len(shared_ids),
        subjects,
    )
    return design

"""Balanced pairs for preference studies: which subject compares which two systems.

Owns :func:`pair_design` (the design of a ``text_preference`` study: two outputs
for the same input, side by side), :func:`valid_pair_subject_counts`,
:func:`pair_balance_problems` (the proof of its balance) and
:data:`PAIR_TRIAL_COLUMNS`, the columns of its trials table
(:data:`~stecflow.studies.designs.model.TRIAL_COLUMNS` then ``system_left`` and
``system_right``).

With *k* systems there are ``P = k (k - 1) / 2`` unordered pairs. The items are
laid out in *item sets* of *P* items; in each item set every subject compares
every pair once (on a different item each time: a cyclic Latin square whose rows
are subjects, columns items and symbols pairs), and each item is shown with every
pair in both left/right orders once per replication (two halves of ``P``
subjects see the same square in the two orders). So:

* every subject sees each of its items once and every pair equally often (once
  per item set);
* every (item, ordered pair) is judged exactly once per replication, so every
  item gives every pair in both orders;
* a subject's left/right order of every pair alternates from one of its item
  sets to the next, so with an even number of item sets per subject each
  subject sees every ordered pair equally often; within one item set the
  orientation follows a round-robin rule on a random order of the systems
  (system *i* is left of system *j* > *i* when ``i + j`` is odd), which puts every
  system on the left in half of its pairs for an odd number of systems (within
  one for an even number).

May import: :mod:`stecflow.studies.designs.checks`,
:mod:`stecflow.studies.designs.model`, :mod:`stecflow.studies.designs.seeding`
(numpy and pandas).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Any

from stecflow.studies.designs.checks import (
    DesignError,
    _check_count,
    _check_ids,
    _check_seed,
    _check_study,
)
from stecflow.studies.designs.model import TRIAL_COLUMNS, Design, _frame, _list_id
from stecflow.studies.designs.seeding import _rng

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "PAIRS",
    "PAIR_SEPARATOR",
    "PAIR_TRIAL_COLUMNS",
    "pair_balance_problems",
    "pair_balance_table",
    "pair_design",
    "pair_label",
    "valid_pair_subject_counts",
]

logger = logging.getLogger("stecflow.studies.designs")

#: The :attr:`Design.kind` of :func:`pair_design`.
PAIRS = "pairs"
#: Joins the two systems of a pair in the ``system`` column (no ID contains it).
PAIR_SEPARATOR = "|"
#: Columns of a pair design's trials table.
PAIR_TRIAL_COLUMNS = (*TRIAL_COLUMNS, "system_left", "system_right")


def pair_label(a: str, b: str) -> str:
    """The ``system`` value of a trial comparing *a* and *b*: the sorted pair.

    >>> pair_label("rules", "template")
    'rules|template'
    >>> pair_label("template", "rules")
    'rules|template'
    """
    first, second = sorted((a, b))
    return f"{first}{PAIR_SEPARATOR}{second}"


def _divisors(n: int) -> list[int]:
    return [g for g in range(1, n + 1) if n % g == 0]


def valid_pair_subject_counts(
    n_systems: int, n_items: int, *, replications: int = 1
) -> list[int]:
    """Every subject count :func:`pair_design` accepts.

    ``2 P g r`` for every divisor ``g`` of the number of item sets ``n_items / P``
    (the groups of ``2 P`` subjects that share the item sets), ``P`` the number of
    pairs and ``r`` the replications.

    Examples
    --------
    >>> valid_pair_subject_counts(3, 6)
    [6, 12]
    >>> valid_pair_subject_counts(4, 12, replications=2)
    [24, 48]
    """
    k = _check_count(n_systems, "n_systems", 2)
    n_pairs = k * (k - 1) // 2
    n = _check_count(n_items, "n_items", 1)
    replications = _check_count(replications, "replications", 1)
    if n % n_pairs:
        return []
    return [2 * n_pairs * g * replications for g in _divisors(n // n_pairs)]


def _oriented_pairs(order: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair of *order*'s systems, left first: i is left of j > i iff i+j odd."""
    pairs = []
    for i, j in combinations(range(len(order)), 2):
        left, right = (i, j) if (i + j) % 2 else (j, i)
        pairs.append((order[left], order[right]))
    return pairs


def pair_design(
    systems: Sequence[str],
    items: Sequence[str],
    *,
    subjects: int,
    seed: int,
    replications: int = 1,
    study: str = "study",
) -> Design:
    """Build a balanced pair design for a preference study.

    Parameters
    ----------
    systems : sequence of str
        The *k* systems compared (at least 2), e.g. ``team/system`` IDs.
    items : sequence of str
        The item IDs: a multiple of the number of pairs ``P = k (k - 1) / 2``.
    subjects : int
        Number of subject slots (lists): see :func:`valid_pair_subject_counts`.
    seed : int
        The study seed; every random draw (the items' item sets and columns, the
        subjects' rows, the pairs' symbols, the systems' order, each subject's
        trial order) is seeded from it and the purpose of the draw.
    replications : int, default 1
        Independent copies of the design, each with its own subjects.
    study : str, default "study"
        The study ID.

    Returns
    -------
    Design
        ``kind="pairs"``; ``trials`` has :data:`PAIR_TRIAL_COLUMNS`: ``system`` is
        the sorted pair (:func:`pair_label`), ``system_left`` and
        ``system_right`` the order shown, ``item_set`` the item set (``S1``,
        ``S2``, ...), ``square`` its number, ``square_row`` the subject's row of
        its cyclic square and ``square_column`` the item's column. ``squares``
        is the number of item sets and ``item_sets`` their items. No practice
        trials and no fillers.

    Raises
    ------
    DesignError
        (also a ValueError) for fewer than two systems, a number of items that is
        not a multiple of the number of pairs or a subject count that does not
        fit (the message says what would), duplicate IDs.

    Examples
    --------
    Three systems (three pairs), six items (two item sets), six subjects:

    >>> d = pair_design(["a", "b", "c"], [f"i{n}" for n in range(6)],
    ...                 subjects=6, seed=3)
    >>> len(d.trials), d.squares
    (36, 2)
    >>> d.trials.groupby(["list", "system"]).size().unique().tolist()
    [2]
    >>> d.trials.groupby(["item", "system_left", "system_right"]).size().unique(
    ...     ).tolist()
    [1]
    >>> pair_balance_problems(d)
    []
    """
    study = _check_study(study)
    seed = _check_seed(seed)
    system_ids = _check_ids(systems, "systems", 2)
    bad = [s for s in system_ids if PAIR_SEPARATOR in s]
    if bad:
        raise DesignError(
            f"system IDs may not contain {PAIR_SEPARATOR!r}: {', '.join(bad)}",
            field="systems",
        )
    item_ids = _check_ids(items, "items", 1)
    k = len(system_ids)
    n_pairs = k * (k - 1) // 2
    n_items = len(item_ids)
    if n_items % n_pairs:
        lower = n_items // n_pairs * n_pairs
        options = [str(n) for n in (lower, lower + n_pairs) if n > 0]
        raise DesignError(
            f"{n_items} items for {k} systems ({n_pairs} pairs): every item set "
            f"shows each pair once, so give a multiple of {n_pairs} items (e.g. "
            f"{' or '.join(options)})",
            field="items",
        )
    replications = _check_count(replications, "replications", 1)
    subjects = _check_count(subjects, "subjects", 1)
    n_sets = n_items // n_pairs
    valid = valid_pair_subject_counts(k, n_items, replications=replications)
    if subjects not in valid:
        per = f"2 × {n_pairs} pairs × (a divisor of {n_sets} item sets)"
        if replications > 1:
            per += f" × {replications} replications"
        raise DesignError(
            f"{subjects} subjects do not fit {n_sets} item sets of {n_pairs} pairs:"
            f" use {per} subjects, i.e. one of {', '.join(map(str, valid))}",
            field="subjects",
        )
    per_replication = subjects // replications
    groups = per_replication // (2 * n_pairs)
    sets_per_group = n_sets // groups
    rows: list[dict[str, Any]] = []
    item_sets: dict[str, tuple[str, ...]] = {}
    for rep in range(replications):
        layout = _rng(seed, "layout", rep).permutation(n_items)
        sequence = [item_ids[int(i)] for i in layout]
        blocks = [
            sequence[start : start + n_pairs] for start in range(0, n_items, n_pairs)
        ]
        order = [system_ids[int(i)] for i in _rng(seed, "systems", rep).permutation(k)]
        oriented = _oriented_pairs(order)
        symbols = [
            oriented[int(i)] for i in _rng(seed, "symbols", rep).permutation(n_pairs)
        ]
        by_subject: dict[tuple[int, int], list[dict[str, Any]]] = {}
        for s, block in enumerate(blocks):
            if rep == 0:
                item_sets[f"S{s + 1}"] = tuple(sorted(block))
            group, local = divmod(s, sets_per_group)
            columns = _rng(seed, "columns", rep, s).permutation(n_pairs)
            column_items = [block[int(i)] for i in columns]
            row_of = _rng(seed, "rows", rep, s).permutation(n_pairs)
            for half in (0, 1):
                swap = (half + local) % 2 == 1
                for q in range(n_pairs):
                    row = int(row_of[q])
                    for column, item in enumerate(column_items):
                        left, right = symbols[(row + column) % n_pairs]
                        if swap:
                            left, right = right, left
                        by_subject.setdefault((group, half * n_pairs + q), []).append(
                            {
                                "replication": rep + 1,
                                "square": s + 1,
                                "square_row": row + 1,
                                "square_column": column + 1,
                                "item": item,
                                "subdomain": None,
                                "item_set": f"S{s + 1}",
                                "system": pair_label(left, right),
                                "system_left": left,
                                "system_right": right,
                                "practice": False,
                                "filler": False,
                            }
                        )
        for (group, position), trials in sorted(by_subject.items()):
            slot = rep * per_replication + position * groups + group + 1
            base = {
                "study": study,
                "list": _list_id(slot, subjects),
                "subject_slot": slot,
                "group": group + 1,
                "replication": rep + 1,
            }
            shuffled = _rng(seed, "order", slot).permutation(len(trials))
            for number, index in enumerate(shuffled, start=1):
                rows.append({**base, **trials[int(index)], "order": number})
    frame = _frame(rows)
    sides = {
        (r["subject_slot"], r["order"]): (r["system_left"], r["system_right"])
        for r in rows
    }
    keys = list(zip(frame["subject_slot"], frame["order"], strict=True))
    frame["system_left"] = [sides[(int(s), int(o))][0] for s, o in keys]
    frame["system_right"] = [sides[(int(s), int(o))][1] for s, o in keys]
    notes = [
        f"{n_pairs} pairs of {k} systems; {n_sets} item sets of {n_pairs} items; "
        f"{groups} group(s) of {2 * n_pairs} subjects per replication, "
        f"{sets_per_group} item set(s) each"
    ]
    if sets_per_group % 2:
        notes.append(
            "each subject sees an odd number of item sets, so not every ordered "
            "pair equally often (every item still shows both orders)"
        )
    design = Design(
        study=study,
        kind=PAIRS,
        seed=seed,
        systems=system_ids,
        items=item_ids,
        trials=frame,
        subjects=subjects,
        groups=groups,
        replications=replications,
        squares=n_sets,
        item_sets=item_sets,
        notes=tuple(notes),
    )
    logger.info(
        "study %s: %d pairs of %d systems x %d items, %d subjects in %d group(s), "
        "%d trials",
        study,
        n_pairs,
        k,
        n_items,
        subjects,
        groups,
        len(frame),
    )
    return design


def pair_balance_problems(design: Design) -> list[str]:
    """Every way a pair design falls short of its balance (empty: balanced).

    Checks that every trial shows two different systems of the design, named in
    ``system`` as :func:`pair_label`; that every list shows each of its items
    once and, per item set, every pair once; that every item shows every
    ordered pair ``replications`` times; and that a list that sees an even
    number of item sets sees every ordered pair equally often.

    Examples
    --------
    >>> d = pair_design(["a", "b"], ["i1", "i2"], subjects=2, seed=1)
    >>> pair_balance_problems(d)
    []
    >>> d.trials.loc[0, "system_right"] = d.trials.loc[0, "system_left"]
    >>> pair_balance_problems(d)[0]  # doctest: +ELLIPSIS
    'list L01, order 1: compares ... with itself'
    """
    problems: list[str] = []
    systems = set(design.systems)
    pairs = [pair_label(a, b) for a, b in combinations(sorted(systems), 2)]
    ordered = [(a, b) for a in sorted(systems) for b in sorted(systems) if a != b]
    trials = design.trials.to_dict("records")
    for t in trials:
        where = f"list {t['list']}, order {t['order']}"
        left, right = t["system_left"], t["system_right"]
        if left == right:
            problems.append(f"{where}: compares {left} with itself")
        elif {left, right} - systems:
            problems.append(f"{where}: {left} or {right} is not a system of the design")
        elif t["system"] != pair_label(left, right):
            problems.append(f"{where}: system {t['system']} is not {left} and {right}")
    by_list: dict[str, list[dict[str, Any]]] = {}
    for t in trials:
        by_list.setdefault(t["list"], []).append(t)
    for list_id, shown in sorted(by_list.items()):
        repeated = sorted(
            k for k, c in Counter(t["item"] for t in shown).items() if c > 1
        )
        if repeated:
            problems.append(
                f"list {list_id} shows {', '.join(repeated)} more than once"
            )
        sets = sorted({t["item_set"] for t in shown})
        for item_set in sets:
            counts = Counter(t["system"] for t in shown if t["item_set"] == item_set)
            if any(counts.get(p, 0) != 1 for p in pairs):
                problems.append(
                    f"list {list_id}, item set {item_set}: pairs shown "
                    f"{dict(sorted(counts.items()))}, each should be once"
                )
        if len(sets) % 2 == 0:
            sides = Counter((t["system_left"], t["system_right"]) for t in shown)
            want = len(sets) // 2
            off = [
                f"{a}|{b}: {sides.get((a, b), 0)}"
                for a, b in ordered
                if sides.get((a, b), 0) != want
            ]
            if off:
                problems.append(
                    f"list {list_id}: ordered pairs shown {', '.join(off)}, each "
                    f"should be {want}"
                )
    by_item = Counter((t["item"], t["system_left"], t["system_right"]) for t in trials)
    for item in design.items:
        for a, b in ordered:
            n = by_item.get((item, a, b), 0)
            if n != design.replications:
                problems.append(
                    f"item {item}: {a} left of {b} {n} times, should be "
                    f"{design.replications}"
                )
    return problems


def pair_balance_table(design: Design) -> pd.DataFrame:
    """Count a pair design's trials against what its balance requires.

    Checks (``check`` column, :data:`~stecflow.studies.designs.balance.
    BALANCE_COLUMNS`): ``subject_pair``, trials per list and pair (unit the
    list, ``system`` the pair label), each pair once per item set the list sees;
    ``item_ordered_pair``, trials per item and ordered pair (``system`` is
    ``left>right``), ``replications`` each.

    >>> d = pair_design(["a", "b"], ["i1", "i2"], subjects=2, seed=1)
    >>> t = pair_balance_table(d)
    >>> t[["check", "unit", "system", "n_trials", "expected", "ok"]].values[0].tolist()
    ['item_ordered_pair', 'i1', 'a>b', 1, 1, True]
    >>> bool(t["ok"].all())
    True
    """
    import pandas as pd

    from stecflow.studies.designs.balance import BALANCE_COLUMNS

    systems = sorted(design.systems)
    pairs = [pair_label(a, b) for a, b in combinations(systems, 2)]
    trials = design.trials[~design.trials["practice"].astype(bool)]
    rows = []
    for list_id, shown in sorted(trials.groupby("list"), key=lambda kv: kv[0]):
        counts = Counter(shown["system"])
        expected = len(shown) // len(pairs)
        for pair in pairs:
            rows.append(("subject_pair", list_id, pair, counts[pair], expected))
    ordered = Counter(
        (t["item"], f"{t['system_left']}>{t['system_right']}")
        for t in trials.to_dict("records")
    )
    for item in sorted(set(trials["item"])):
        for a in systems:
            for b in systems:
                if a != b:
                    n = ordered[(item, f"{a}>{b}")]
                    rows.append(
                        ("item_ordered_pair", item, f"{a}>{b}", n, design.replications)
                    )
    frame = pd.DataFrame(
        [(*r, r[3] == r[4]) for r in rows], columns=list(BALANCE_COLUMNS)
    )
    return frame.sort_values(["check", "unit", "system"], kind="stable").reset_index(
        drop=True
    )

"""Balance checks: count what a design shows against what it must show.

:func:`balance_table` counts, :func:`balance_problems` lists every problem (counts,
order, practice trials, repeated items) and :func:`check_balance` raises them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

import pandas as pd

from stecflow.studies.designs.checks import DesignError
from stecflow.studies.designs.model import _LATIN, _TWO_GROUP, Design
from stecflow.studies.designs.two_group import _SETS, _version

__all__ = [
    "BALANCE_COLUMNS",
    "balance_problems",
    "balance_table",
    "check_balance",
]

#: Columns of :func:`balance_table`.
BALANCE_COLUMNS = ("check", "unit", "system", "n_trials", "expected", "ok")


def _count_rows(
    check: str,
    counts: Mapping[tuple[str, str], int],
    expected: Mapping[tuple[str, str], int],
) -> list[dict[str, Any]]:
    keys = sorted(set(counts) | set(expected))
    return [
        {
            "check": check,
            "unit": unit,
            "system": system,
            "n_trials": int(counts.get((unit, system), 0)),
            "expected": int(expected.get((unit, system), 0)),
            "ok": int(counts.get((unit, system), 0))
            == int(expected.get((unit, system), 0)),
        }
        for unit, system in keys
    ]


def _carryover_counts(test: pd.DataFrame) -> Counter[tuple[str, str]]:
    pairs: Counter[tuple[str, str]] = Counter()
    for _, trials in test.groupby("subject_slot", sort=True):
        trials = trials.sort_values("order")
        systems = trials["system"].tolist()
        squares = trials["square"].tolist()
        for i in range(len(systems) - 1):
            if squares[i] == squares[i + 1]:
                pairs[(systems[i], systems[i + 1])] += 1
    return pairs


def balance_table(design: Design) -> pd.DataFrame:
    """Count the trials of a design against what a balanced design must show.

    Checks (the ``check`` column):

    ``subject_system``
        Test trials (fillers included) per list and system. Repeated Latin squares:
        the group's squares per subject, for every system. Two-group design: the
        sizes of the item sets the subject's group sees in that version.
    ``item_system``
        Non-filler test trials per item and system: the replications for every
        (item, system) pair of a Latin-square design; for a two-group design the
        size of the group(s) seeing the item in that version (0 where none does).
    ``filler_system``
        Filler trials per duplicated item and system: the number of filler copies of
        the item, for every system.
    ``subject_subdomain_system``
        Only when every subdomain's size is a multiple of *n* (squares hold one
        subdomain): trials per list and subdomain (unit ``list|subdomain``) equal
        for every system.
    ``carryover``
        Only for carry-over balanced designs: how often the unit system immediately
        precedes the system within a square, equal for every ordered pair.

    Parameters
    ----------
    design : Design
        A design from :func:`latin_square_design` or :func:`two_group_design`.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`BALANCE_COLUMNS`: ``check``, ``unit`` (list ID, item ID or
        system), ``system``, ``n_trials``, ``expected`` and ``ok``
        (``n_trials == expected``); rows sorted by check, unit and system.

    Examples
    --------
    >>> from stecflow.studies.designs import latin_square_design
    >>> d = latin_square_design(["A", "B", "C"], ["i1", "i2", "i3", "i4", "i5"],
    ...                         subjects=3, seed=1)
    >>> table = balance_table(d)
    >>> table.groupby("check")["ok"].all().to_dict()
    {'filler_system': True, 'item_system': True, 'subject_system': True}
    >>> table[table.check == "subject_system"].expected.unique().tolist()
    [2]
    """
    test = design.test_trials
    real = test[~test["filler"]]
    fillers = test[test["filler"]]
    subject_counts = Counter(zip(test["list"], test["system"], strict=True))
    item_counts = Counter(zip(real["item"], real["system"], strict=True))
    lists = design.trials.drop_duplicates("list")[["list", "group"]]
    subject_expected: dict[tuple[str, str], int] = {}
    item_expected: dict[tuple[str, str], int] = {}
    if design.kind == _TWO_GROUP:
        group_sizes = Counter(lists["group"])
        for list_id, group in zip(lists["list"], lists["group"], strict=True):
            for item_set in _SETS:
                system = _version(
                    int(group), item_set, design.systems, design.shared_system
                )
                if system is not None and design.item_sets.get(item_set):
                    key = (list_id, system)
                    subject_expected[key] = subject_expected.get(key, 0) + len(
                        design.item_sets[item_set]
                    )
        for item_set in _SETS:
            for item in design.item_sets.get(item_set, ()):
                for system in design.systems:
                    item_expected.setdefault((item, system), 0)
                for group, size in sorted(group_sizes.items()):
                    key = (
                        item,
                        str(
                            _version(
                                int(group),
                                item_set,
                                design.systems,
                                design.shared_system,
                            )
                        ),
                    )
                    item_expected[key] = item_expected.get(key, 0) + size
    else:
        per_group = design.squares // design.groups if design.groups else 0
        for list_id in lists["list"]:
            for system in design.systems:
                subject_expected[(list_id, system)] = per_group
        for item in design.items:
            for system in design.systems:
                item_expected[(item, system)] = design.replications
    rows = _count_rows("subject_system", subject_counts, subject_expected)
    rows += _count_rows("item_system", item_counts, item_expected)
    if len(fillers):
        copies = fillers.groupby("item")[["replication", "square"]].apply(
            lambda frame: len(frame.drop_duplicates())
        )
        filler_expected = {
            (item, system): int(copies[item])
            for item in copies.index
            for system in design.systems
        }
        filler_counts = Counter(zip(fillers["item"], fillers["system"], strict=True))
        rows += _count_rows("filler_system", filler_counts, filler_expected)
    n = len(design.systems)
    sizes = Counter(real.drop_duplicates(["replication", "item"])["subdomain"].dropna())
    if (
        design.kind == _LATIN
        and sizes
        and all(size % n == 0 for size in sizes.values())
    ):
        labelled = test[test["subdomain"].notna()]
        units = labelled["list"] + "|" + labelled["subdomain"].astype(str)
        counts = Counter(zip(units, labelled["system"], strict=True))
        totals = Counter(units)
        expected = {
            (unit, system): totals[unit] // n
            for unit in totals
            for system in design.systems
        }
        rows += _count_rows("subject_subdomain_system", counts, expected)
    if design.carryover_balanced:
        pairs = _carryover_counts(test)
        total = sum(pairs.values())
        ordered = [(a, b) for a in design.systems for b in design.systems if a != b]
        each = total // len(ordered)
        rows += _count_rows("carryover", pairs, dict.fromkeys(ordered, each))
    table = pd.DataFrame(rows, columns=list(BALANCE_COLUMNS))
    table["n_trials"] = table["n_trials"].astype("int64")
    table["expected"] = table["expected"].astype("int64")
    table["ok"] = table["ok"].astype(bool)
    table = table.sort_values(["check", "unit", "system"], kind="stable")
    return table.reset_index(drop=True)


def balance_problems(design: Design) -> list[str]:
    """Return every way in which a design is unbalanced or malformed (empty if none).

    Besides the counts of :func:`balance_table` it checks that each list's ``order``
    runs 1, 2, 3, ...; that practice trials come first, are the same items in the
    same order in every list and are not test items; and that no list shows a test
    item twice except as a filler copy.

    Parameters
    ----------
    design : Design
        The design to check.

    Returns
    -------
    list of str
        One readable message per problem, in a fixed order.

    Examples
    --------
    >>> import dataclasses
    >>> from stecflow.studies.designs import latin_square_design
    >>> d = latin_square_design(["A", "B"], ["i1", "i2"], subjects=2, seed=5)
    >>> balance_problems(d)
    []
    >>> broken = dataclasses.replace(d, trials=d.trials.iloc[1:])
    >>> balance_problems(broken)[:2]  # doctest: +NORMALIZE_WHITESPACE
    ['L01: order runs 2..2, expected 1..1',
     'item_system: item i1 x system B has 0 trial(s), expected 1']
    """
    problems: list[str] = []
    trials = design.trials
    practice_ids = set(design.practice_items)
    test_items = set(design.items)
    practice_sequence = list(design.practice_items)
    for list_id, rows in trials.groupby("list", sort=True):
        rows = rows.sort_values("order")
        orders = rows["order"].tolist()
        if orders != list(range(1, len(orders) + 1)):
            problems.append(
                f"{list_id}: order runs {orders[0]}..{orders[-1]}, "
                f"expected 1..{len(orders)}"
            )
        flags = rows["practice"].tolist()
        head = rows["item"].tolist()[: len(practice_sequence)]
        if flags != sorted(flags, reverse=True) or head != practice_sequence:
            problems.append(
                f"{list_id}: practice trials must come first, as "
                f"{', '.join(practice_sequence) or 'none'}"
            )
        real = rows[~rows["practice"] & ~rows["filler"]]["item"]
        twice = sorted(real[real.duplicated()].unique())
        if twice:
            problems.append(f"{list_id}: test item(s) shown twice: {', '.join(twice)}")
    leaked = sorted(practice_ids & test_items)
    if leaked:
        problems.append(f"practice items are test items: {', '.join(leaked)}")
    unknown = sorted(set(design.test_trials["item"]) - test_items)
    if unknown:
        problems.append(f"trials show items outside the design: {', '.join(unknown)}")
    table = balance_table(design)
    for row in table[~table["ok"]].itertuples(index=False):
        if row.check == "carryover":
            what = f"{row.unit} immediately before {row.system}"
        else:
            kind = "item" if row.check in ("item_system", "filler_system") else "list"
            what = f"{kind} {row.unit} x system {row.system}"
        problems.append(
            f"{row.check}: {what} has {row.n_trials} trial(s), expected {row.expected}"
        )
    return problems


def check_balance(design: Design) -> None:
    """Raise :class:`DesignError` listing every problem :func:`balance_problems` finds.

    Parameters
    ----------
    design : Design
        The design to check.

    Raises
    ------
    DesignError
        If the design is unbalanced or malformed; the message lists all problems.

    Examples
    --------
    >>> from stecflow.studies.designs import latin_square_design
    >>> check_balance(latin_square_design(["A", "B"], ["i1", "i2"], subjects=2, seed=5))
    """
    problems = balance_problems(design)
    if problems:
        raise DesignError(
            f"{len(problems)} problem(s): " + "; ".join(problems), field=design.study
        )

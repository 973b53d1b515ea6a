"""Repeated Latin-square designs (REFERENCE.md section 22), fillers included.

:func:`valid_subject_counts` lists the subject counts a design accepts and
:func:`latin_square_design` builds it: items in blocks of *n* (one block per
square), subject groups, filler copies completing the last square, cyclic or
Williams squares (:mod:`~stecflow.studies.designs.williams`) and each subject's
order.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from math import ceil
from typing import Any

import numpy as np

from stecflow.studies.designs.checks import (
    DesignError,
    _check_count,
    _check_ids,
    _check_seed,
    _check_study,
)
from stecflow.studies.designs.model import _LATIN, Design, _frame, _list_id
from stecflow.studies.designs.practice import _choose_practice, _practice_rows
from stecflow.studies.designs.seeding import _rng
from stecflow.studies.designs.williams import williams_square

__all__ = ["latin_square_design", "valid_subject_counts"]

# the name of the module before it became a package, kept for the job logs
logger = logging.getLogger("stecflow.studies.designs")


def valid_subject_counts(
    n_systems: int, n_items: int, *, replications: int = 1
) -> list[int]:
    """Return every subject count a repeated-Latin-square design accepts.

    With *n* systems and ``S = ceil(n_items / n)`` squares, the subjects of one
    replication form ``g`` groups of *n* (one per square row), and the squares must
    split evenly between the groups, so the counts are ``n * g * replications`` for
    every divisor ``g`` of ``S``.

    Parameters
    ----------
    n_systems : int
        Number of systems (the square size *n*).
    n_items : int
        Number of test items (before fillers).
    replications : int, default 1
        How often every (item, system) pair is judged.

    Returns
    -------
    list of int
        Ascending valid subject counts.

    Raises
    ------
    DesignError
        If a count is not a positive integer or there are fewer than 2 systems.

    Examples
    --------
    >>> valid_subject_counts(8, 112)
    [8, 16, 56, 112]
    >>> valid_subject_counts(15, 148)
    [15, 30, 75, 150]
    """
    n = _check_count(n_systems, "n_systems", 2)
    squares = ceil(_check_count(n_items, "n_items", 1) / n)
    replications = _check_count(replications, "replications", 1)
    return [n * g * replications for g in range(1, squares + 1) if squares % g == 0]


def _layout_items(
    items: tuple[str, ...],
    n: int,
    subdomains: Mapping[str, str] | None,
    rng: np.random.Generator,
) -> list[list[str]]:
    """Shuffle the items (within subdomain, subdomains in sorted order) into blocks."""
    if subdomains is None:
        sequence = [items[int(i)] for i in rng.permutation(len(items))]
    else:
        sequence = []
        for label in sorted(set(subdomains[i] for i in items)):
            members = [i for i in items if subdomains[i] == label]
            sequence.extend(members[int(i)] for i in rng.permutation(len(members)))
    return [sequence[start : start + n] for start in range(0, len(sequence), n)]


def latin_square_design(
    systems: Sequence[str],
    items: Sequence[str],
    *,
    subjects: int,
    seed: int,
    subdomains: Mapping[str, str] | None = None,
    group_by_subdomain: bool = True,
    carryover_balanced: bool = False,
    replications: int = 1,
    practice_pool: Sequence[str] = (),
    n_practice: int = 0,
    practice_system: str | None = None,
    study: str = "study",
) -> Design:
    """Build a repeated-Latin-square design (REFERENCE.md section 22).

    With *n* systems the items are laid out in ``S = ceil(len(items) / n)`` blocks of
    *n*; block *k* becomes square *k*, whose columns are its items, whose rows are
    subject slots and whose cells are systems. Each replication's subjects form
    ``g = subjects / (n * replications)`` groups of *n*; the squares are split
    evenly between the groups and each subject takes one row of each of its group's
    ``S / g`` squares. Hence every subject sees every system ``S / g`` times, and
    every (item, system) pair is judged exactly once per replication.

    The rules, in the order they are applied (every random draw is seeded from
    *seed* and the purpose of the draw, see the module docstring):

    1. Systems and items are sorted first, so the order they are given in does not
       matter.
    2. *Blocks.* Items are shuffled and cut into blocks of *n*. With *subdomains*
       they are shuffled within their subdomain and the subdomains follow each other
       in sorted order, so a square holds one subdomain whenever the subdomain sizes
       are multiples of *n* (then each subject sees every system equally often per
       subdomain, as in TUNA-REG'09).
    3. *Groups.* Consecutive squares form a group (squares ``1..S/g`` go to group 1,
       and so on). With *subdomains* this gives each group a single subdomain when
       every subdomain's size is a multiple of the group's ``n * S / g`` items (the
       TUNA-REG'09 identification experiment: 16 subjects, two groups, one domain's
       56 items each). Set ``group_by_subdomain=False`` to deal the squares to the
       groups in turn instead (square *k* to group ``k mod g``), which mixes
       subdomains within a group.
    4. *Fillers.* If ``len(items)`` is not a multiple of *n*, the last square is
       completed with copies of items drawn at random from the items of the other
       groups (or, with a single group, of the other squares), flagged
       ``filler=True``. Their trials count towards each subject's balance but not
       towards the (item, system) coverage; leave them out of the analysis (seed
       003: 148 items + 2 fillers = 150 for 15 systems).
    5. *Squares.* Square *k* is the cyclic square ``(row + column) mod n``, or with
       ``carryover_balanced`` the Williams square of :func:`williams_square` (for odd
       *n*, even-numbered squares use its first *n* rows and odd-numbered squares
       the reversed rows, so an even number of squares uses all ``2n`` sequences
       equally often). Items are assigned to its columns at random, its rows to the
       group's subjects at random, and the symbols ``0..n-1`` to the systems by one
       random permutation per replication.
    6. *Order.* Practice trials come first, the same items in the same order for
       every subject. Without carry-over balance each subject's test trials are
       then shuffled. With carry-over balance each subject sees the squares in a
       random order and, within a square, the items in column order, so every
       system immediately precedes every other equally often within squares (the
       junctions between squares are not balanced).
    7. *Subject slots* interleave the groups (slot 1 in group 1, slot 2 in group 2,
       ...; then replication 2), so recruiting the first subjects fills the groups
       evenly.

    Parameters
    ----------
    systems : sequence of str
        The *n* systems (peer systems and human reference sets), at least 2.
    items : sequence of str
        The test item IDs, at least *n*. From :class:`stecflow.data.model.Item` objects:
        ``[item.id for item in items]``.
    subjects : int
        Number of subject slots; see :func:`valid_subject_counts`.
    seed : int
        The study seed (config ``design.seed``), a non-negative integer.
    subdomains : mapping of str to str, optional
        Item ID to subdomain (``{item.id: item.subdomain for item in items}``); must
        cover every test item. Practice items' subdomains are looked up if present.
    group_by_subdomain : bool, default True
        With *subdomains*, give consecutive squares (one subdomain where sizes
        allow) to a group; False deals squares to groups in turn. Without
        *subdomains* groups always take consecutive (randomly filled) squares.
    carryover_balanced : bool, default False
        Use Williams squares and present each square's items in column order.
    replications : int, default 1
        Independent copies of the design, each with its own subjects.
    practice_pool : sequence of str, default ()
        Items to draw practice trials from, e.g. the development split; none may be
        a test item.
    n_practice : int, default 0
        Number of practice trials shown first to every subject.
    practice_system : str, optional
        The system whose output is shown in practice trials (e.g. a human
        reference); None leaves the ``system`` column empty for them.
    study : str, default "study"
        The study ID.

    Returns
    -------
    Design
        ``kind="latin_square"``; see :class:`Design` for the trial table.

    Raises
    ------
    DesignError
        (also a ValueError) for impossible requests: fewer items than systems, a
        subject count that does not fit the squares (the message lists the counts
        that do), odd *n* with carry-over balance and an odd number of squares,
        duplicate IDs, practice items from the test set.

    References
    ----------
    Belz, A. & Gatt, A. (2007), The attribute selection for GRE challenge: overview
    and evaluation results (seed 003, section 3.2). Gatt, A., Belz, A. & Kow, E.
    (2009), The TUNA-REG Challenge 2009: overview and evaluation results (seed 001,
    sections 5.2 and 5.3). REFERENCE.md sections 22 and 23.

    Examples
    --------
    Four systems, eight items (two squares) and four subjects: 32 trials, each
    subject sees each system twice and each (item, system) pair is judged once.

    >>> from stecflow.studies.designs import balance_problems
    >>> d = latin_square_design(["A", "B", "C", "D"], [f"i{k}" for k in range(8)],
    ...                         subjects=4, seed=7)
    >>> len(d.trials), d.squares, d.groups
    (32, 2, 1)
    >>> d.trials.groupby(["list", "system"]).size().unique().tolist()
    [2]
    >>> d.trials.groupby(["item", "system"]).size().unique().tolist()
    [1]
    >>> balance_problems(d)
    []

    Impossible requests say what would work:

    >>> latin_square_design(["A", "B"], ["i1", "i2", "i3"], subjects=3, seed=1)
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    stecflow.studies.designs.checks.DesignError: subjects: 3 subjects ... one of 2, 4
    """
    study = _check_study(study)
    seed = _check_seed(seed)
    system_ids = _check_ids(systems, "systems", 2)
    n = len(system_ids)
    item_ids = _check_ids(items, "items", 1)
    if len(item_ids) < n:
        raise DesignError(
            f"{len(item_ids)} items for {n} systems: each Latin square needs one item "
            f"per system, so give at least {n} items or compare fewer systems",
            field="items",
        )
    replications = _check_count(replications, "replications", 1)
    subjects = _check_count(subjects, "subjects", 1)
    squares = ceil(len(item_ids) / n)
    valid = valid_subject_counts(n, len(item_ids), replications=replications)
    if subjects not in valid:
        per = f"{n} × (a divisor of {squares} squares)"
        if replications > 1:
            per += f" × {replications} replications"
        raise DesignError(
            f"{subjects} subjects do not fit {squares} squares of {n} systems: use "
            f"{per} subjects, i.e. one of {', '.join(map(str, valid))}",
            field="subjects",
        )
    if carryover_balanced and n % 2 and squares % 2:
        raise DesignError(
            f"carry-over balance for an odd number of systems ({n}) needs an even "
            f"number of squares (the 2n Williams sequences), but {len(item_ids)} items "
            f"make {squares}; give between {(squares - 2) * n + 1} and "
            f"{(squares - 1) * n} or between {squares * n + 1} and {(squares + 1) * n} "
            "items, or set carryover_balanced=False",
            field="carryover_balanced",
        )
    if subdomains is not None:
        missing = [i for i in item_ids if i not in subdomains]
        if missing:
            raise DesignError(
                f"no subdomain for {len(missing)} item(s) ({', '.join(missing[:5])}); "
                "give one for every test item or none at all",
                field="subdomains",
            )
    practice = _choose_practice(practice_pool, n_practice, item_ids, seed)
    labels: Mapping[str, str] = subdomains or {}

    per_replication = subjects // replications
    groups = per_replication // n
    per_group = squares // groups
    n_fillers = squares * n - len(item_ids)
    template = williams_square(n) if carryover_balanced else None
    rows: list[dict[str, Any]] = []
    notes: list[str] = []
    for rep in range(replications):
        rng = _rng(seed, "layout", rep)
        blocks = _layout_items(item_ids, n, subdomains, rng)
        if subdomains is not None and not group_by_subdomain:
            group_of = [k % groups for k in range(squares)]
        else:
            group_of = [k // per_group for k in range(squares)]
        filler_sources: list[str] = []
        if n_fillers:
            short = squares - 1
            others = [
                i
                for k, b in enumerate(blocks)
                if group_of[k] != group_of[short]
                for i in b
            ]
            if not others:
                others = [i for b in blocks[:short] for i in b]
            others = sorted(others)
            picks = _rng(seed, "fillers", rep).choice(
                len(others), n_fillers, replace=False
            )
            filler_sources = [others[int(i)] for i in picks]
            notes.append(
                f"replication {rep + 1}: square {squares} completed with filler copies "
                f"of {', '.join(sorted(filler_sources))}"
            )
        symbol_to_system = [
            system_ids[int(i)] for i in _rng(seed, "symbols", rep).permutation(n)
        ]
        # the trials of each subject position (group, position in group)
        by_subject: dict[tuple[int, int], list[list[dict[str, Any]]]] = {}
        for k, block in enumerate(blocks):
            cells = [(item, False) for item in block]
            if k == squares - 1:
                cells += [(item, True) for item in filler_sources]
            columns = _rng(seed, "columns", rep, k).permutation(n)
            column_items = [cells[int(i)] for i in columns]
            row_of_position = _rng(seed, "rows", rep, k).permutation(n)
            if template is None:
                symbols = (np.arange(n)[:, None] + np.arange(n)[None, :]) % n
            else:
                symbols = template[n:] if n % 2 and k % 2 else template[:n]
            for position in range(n):
                row = int(row_of_position[position])
                square_trials = []
                for column, (item, filler) in enumerate(column_items):
                    square_trials.append(
                        {
                            "replication": rep + 1,
                            "square": k + 1,
                            "square_row": row + 1,
                            "square_column": column + 1,
                            "item": item,
                            "subdomain": labels.get(item),
                            "item_set": None,
                            "system": symbol_to_system[int(symbols[row, column])],
                            "practice": False,
                            "filler": filler,
                        }
                    )
                by_subject.setdefault((group_of[k], position), []).append(square_trials)
        for (group, position), per_square in sorted(by_subject.items()):
            slot = rep * per_replication + position * groups + group + 1
            base = {
                "study": study,
                "list": _list_id(slot, subjects),
                "subject_slot": slot,
                "group": group + 1,
                "replication": rep + 1,
            }
            rows.extend(_practice_rows(base, practice, practice_system, labels))
            order_rng = _rng(seed, "order", slot)
            if carryover_balanced:
                sequence = [
                    trial
                    for i in order_rng.permutation(len(per_square))
                    for trial in per_square[int(i)]
                ]
            else:
                flat = [trial for square in per_square for trial in square]
                sequence = [flat[int(i)] for i in order_rng.permutation(len(flat))]
            for position_in_list, trial in enumerate(sequence, start=len(practice) + 1):
                rows.append({**base, **trial, "order": position_in_list})
    if subdomains is not None and groups > 1:
        notes.append(
            "squares given to groups "
            + ("consecutively by subdomain" if group_by_subdomain else "in turn")
        )
    design = Design(
        study=study,
        kind=_LATIN,
        seed=seed,
        systems=system_ids,
        items=item_ids,
        trials=_frame(rows),
        subjects=subjects,
        groups=groups,
        replications=replications,
        squares=squares,
        carryover_balanced=bool(carryover_balanced),
        practice_items=practice,
        notes=tuple(notes),
    )
    logger.info(
        "study %s: %d systems x %d items in %d squares, %d subjects in %d group(s), "
        "%d trials",
        study,
        n,
        len(item_ids),
        squares,
        subjects,
        groups,
        len(design.test_trials),
    )
    return design

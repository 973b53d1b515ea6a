"""Experimental designs for the human studies: repeated Latin squares and friends.

A human study shows each subject a *list* of trials; a trial is one item (a domain
with its target) described by one system. This module decides which subject sees
which item described by which system, and in which order. It does no I/O: every
design is returned as a :class:`Design` whose ``trials`` table can be written as TSV
by the caller.

Three designs are supported:

* :func:`latin_square_design`, the repeated Latin squares of REFERENCE.md section 22
  used by ASGRE 2007 and the TUNA challenges: items in blocks of *n* (one block per
  square), rows of each square are subject slots, columns are items, cells are the
  *n* systems. Every subject sees every system equally often and every
  (item, system) pair is judged exactly once per replication.
* the same with carry-over balance (``carryover_balanced=True``): the squares are
  Williams squares (:func:`williams_square`, REFERENCE.md section 23) and each
  subject sees a square's items in column order, so every system immediately
  precedes every other system equally often.
* :func:`two_group_design`, the counterbalanced design of seed 000 (section 5.1):
  the same contexts are shown with the original expression to one group and with a
  system's replacement to the other (FP1-Orig + FP2-DP vs FP1-DP + FP2-Orig), plus
  shared items that both groups see.

:func:`balance_table` counts what a design shows and :func:`balance_problems` (or
:func:`check_balance`, which raises) proves that a design is balanced.

Randomisation is reproducible: every random choice draws from
``numpy.random.default_rng`` seeded with a SHA-256 digest of the study seed and the
purpose of the draw (for example ``order`` and the subject slot), so designs are
identical on every machine and do not depend on the order in which IDs are given.
"""

from __future__ import annotations

import hashlib
import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from math import ceil
from typing import Any

import numpy as np
import pandas as pd

from stecflow.core.errors import ConfigError
from stecflow.core.ids import is_valid_id

__all__ = [
    "BALANCE_COLUMNS",
    "TRIAL_COLUMNS",
    "Design",
    "DesignError",
    "balance_problems",
    "balance_table",
    "check_balance",
    "latin_square_design",
    "two_group_design",
    "valid_subject_counts",
    "williams_square",
]

logger = logging.getLogger(__name__)

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
)

#: Columns of :func:`balance_table`.
BALANCE_COLUMNS = ("check", "unit", "system", "n_trials", "expected", "ok")

_LATIN = "latin_square"
_TWO_GROUP = "two_group"
_SETS = ("A", "B", "shared")


class DesignError(ConfigError, ValueError):
    """A design cannot be built from the requested numbers (the field is the argument).

    It is a :class:`ValueError` too, so callers may catch either.
    """


# --------------------------------------------------------------------------- design


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
        the last square (leave them out of the analysis); ``item_set`` is ``A``,
        ``B`` or ``shared`` in a two-group design and missing otherwise.
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

        >>> d = latin_square_design(["a", "b"], ["i1", "i2"], subjects=2, seed=1)
        >>> d.settings()["n_trials"], d.settings()["trials_per_subject"]
        (4, 2)
        """
        per_list = self.trials.groupby("list").size()
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
            "n_trials": int(len(self.test_trials)),
            "n_fillers": int(self.trials["filler"].sum()),
            "trials_per_subject": int(per_list.max()) if len(per_list) else 0,
            "notes": list(self.notes),
        }


# --------------------------------------------------------------------------- helpers


def _rng(seed: int, *keys: object) -> np.random.Generator:
    """A generator for one purpose, seeded with SHA-256 of the seed and *keys*."""
    text = "/".join([str(seed), *map(str, keys)])
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "big"))


def _check_count(value: object, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise DesignError(f"must be an integer, got {value!r}", field=name)
    if value < minimum:
        raise DesignError(f"must be at least {minimum}, got {value}", field=name)
    return int(value)


def _check_ids(values: Sequence[str], name: str, minimum: int) -> tuple[str, ...]:
    if isinstance(values, str):
        raise DesignError("give a list of IDs, not a single string", field=name)
    ids = tuple(values)
    bad = [v for v in ids if not isinstance(v, str) or not v.strip()]
    if bad:
        raise DesignError(f"IDs must be non-empty strings, got {bad[:3]!r}", field=name)
    dupes = sorted(k for k, c in Counter(ids).items() if c > 1)
    if dupes:
        raise DesignError(
            f"duplicate IDs {', '.join(dupes)}; give each once", field=name
        )
    if len(ids) < minimum:
        raise DesignError(f"need at least {minimum}, got {len(ids)}", field=name)
    return tuple(sorted(ids))


def _check_study(study: str) -> str:
    if not isinstance(study, str) or not is_valid_id(study):
        raise DesignError(
            f"{study!r} is not a valid ID (letters, digits, '_' and '-' only)",
            field="study",
        )
    return study


def _check_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise DesignError(f"must be a non-negative integer, got {seed!r}", field="seed")
    return int(seed)


def _choose_practice(
    pool: Sequence[str], n_practice: int, test_items: Sequence[str], seed: int
) -> tuple[str, ...]:
    """Draw the practice items (same for every subject) from outside the test set."""
    n_practice = _check_count(n_practice, "n_practice", 0)
    if n_practice == 0:
        return ()
    candidates = _check_ids(pool, "practice_pool", 0)
    overlap = sorted(set(candidates) & set(test_items))
    if overlap:
        raise DesignError(
            f"{len(overlap)} practice item(s) are test items "
            f"({', '.join(overlap[:5])}); draw practice items from another split, "
            "e.g. the development set",
            field="practice_pool",
        )
    if n_practice > len(candidates):
        raise DesignError(
            f"asked for {n_practice} practice items but the pool holds "
            f"{len(candidates)}; lower n_practice or give a larger pool",
            field="n_practice",
        )
    picks = _rng(seed, "practice").choice(len(candidates), n_practice, replace=False)
    return tuple(candidates[int(i)] for i in picks)


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
    for column in ("study", "list", "item", "subdomain", "item_set", "system"):
        frame[column] = frame[column].astype(object)
        frame[column] = frame[column].where(frame[column].notna(), None)
    frame = frame.sort_values(["subject_slot", "order"], kind="stable")
    return frame.reset_index(drop=True)


def _practice_rows(
    base: dict[str, Any],
    practice: tuple[str, ...],
    practice_system: str | None,
    subdomains: Mapping[str, str],
) -> list[dict[str, Any]]:
    return [
        {
            **base,
            "square": None,
            "square_row": None,
            "square_column": None,
            "order": position,
            "item": item,
            "subdomain": subdomains.get(item),
            "item_set": None,
            "system": practice_system,
            "practice": True,
            "filler": False,
        }
        for position, item in enumerate(practice, start=1)
    ]


# --------------------------------------------------------------------------- Williams


def williams_square(n: int) -> np.ndarray:
    """Return a Williams (carry-over balanced) square for *n* treatments.

    The first row is ``0, 1, n-1, 2, n-2, 3, ...``; row *r* adds *r* (mod *n*) to
    every entry. For odd *n* the reversed rows are appended, giving ``2n`` rows.
    Every row and every column of the first *n* rows is a permutation of
    ``0..n-1``, and every ordered pair of different treatments is adjacent
    (first immediately before second) exactly once (even *n*) or exactly twice
    (odd *n*, all ``2n`` rows).

    Parameters
    ----------
    n : int
        Number of treatments (systems), at least 2.

    Returns
    -------
    numpy.ndarray
        Integer array of shape ``(n, n)`` for even *n*, ``(2n, n)`` for odd *n*;
        rows are sequences (subjects), columns are periods (positions).

    Raises
    ------
    DesignError
        If *n* is not an integer of at least 2.

    References
    ----------
    Williams, E. J. (1949). Experimental designs balanced for the estimation of
    residual effects of treatments. Australian Journal of Scientific Research
    A 2(2):149-168. Bradley, J. V. (1958). Complete counterbalancing of immediate
    sequential effects in a Latin square design. JASA 53(282):525-528.
    REFERENCE.md section 23.

    Examples
    --------
    >>> williams_square(4).tolist()
    [[0, 1, 3, 2], [1, 2, 0, 3], [2, 3, 1, 0], [3, 0, 2, 1]]
    >>> williams_square(3).tolist()
    [[0, 1, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0], [0, 2, 1], [1, 0, 2]]
    >>> williams_square(15).shape
    (30, 15)
    """
    n = _check_count(n, "n", 2)
    first = [0]
    low, high = 1, n - 1
    while len(first) < n:
        first.append(low)
        low += 1
        if len(first) < n:
            first.append(high)
            high -= 1
    base = np.array(first, dtype=np.int64)
    rows = (base[None, :] + np.arange(n, dtype=np.int64)[:, None]) % n
    if n % 2:
        rows = np.vstack([rows, rows[:, ::-1]])
    return rows


# --------------------------------------------------------------------------- Latin


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
    stecflow.studies.designs.DesignError: subjects: 3 subjects do not fit 2 ... 2, 4
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


# --------------------------------------------------------------------------- two groups


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


# --------------------------------------------------------------------------- balance


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
    >>> check_balance(latin_square_design(["A", "B"], ["i1", "i2"], subjects=2, seed=5))
    """
    problems = balance_problems(design)
    if problems:
        raise DesignError(
            f"{len(problems)} problem(s): " + "; ".join(problems), field=design.study
        )

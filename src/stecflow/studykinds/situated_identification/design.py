"""The extrinsic study design of seed 000 (section 5.1), built from an instance table.

This module owns the step from an intrinsic evaluation's instances (one referring
expression in a situated dialogue, with the class TP, FP, FN or TN that a system's
"use a demonstrative pronoun" decision earned) to the two-group design the seed ran:

1. :func:`qualify_instances`: an instance qualifies when its preceding context holds
   both the last mention of the target and the last action on it, and lasts at
   most ``max_context_ms`` (30 s in the seed).
2. :func:`largest_remainder`: the stratified allocation of *n* draws over feature
   strata in proportion to the corpus (Hamilton's largest-remainder method), with
   short strata capped and their shortfall re-allocated.
3. :func:`situated_design`: all qualifying FP instances (up to ``max_fp``), *n* TP
   and *n* FN instances sampled to the corpus's feature distribution, the FP
   instances split into halves balanced on a stratum, the two groups
   (FP1-Orig + FP2-system, FP1-system + FP2-Orig), TP and FN shared by all, order
   shuffled per participant, and the trial budget checked. The counterbalancing
   itself is :func:`~stecflow.studies.designs.two_group.two_group_design`'s.

No I/O: tables in, a :class:`SituatedDesign` out.

May import: pandas, numpy (inside functions), the standard library and
stecflow.studies.designs (checks, model, seeding, two_group, balance).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from stecflow.studies.designs.balance import BALANCE_COLUMNS, balance_table
from stecflow.studies.designs.checks import (
    DesignError,
    _check_count,
    _check_ids,
    _check_seed,
    _check_study,
)
from stecflow.studies.designs.model import Design
from stecflow.studies.designs.seeding import _rng
from stecflow.studies.designs.two_group import two_group_design

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ALLOCATION_COLUMNS",
    "CONDITIONS",
    "INSTANCE_COLUMNS",
    "QUALIFICATION_COLUMNS",
    "SITUATED_TRIAL_COLUMNS",
    "SituatedDesign",
    "largest_remainder",
    "qualify_instances",
    "situated_design",
]

logger = logging.getLogger("stecflow.studies.designs")

#: Columns every instance table needs (besides the feature, stratum and expression
#: columns named by the arguments). Times are in ms from the session's start.
INSTANCE_COLUMNS = (
    "instance",
    "session",
    "class",
    "target",
    "context_start_ms",
    "utterance_start_ms",
    "last_mention_ms",
    "last_action_ms",
)

#: The classes of the intrinsic evaluation (seed 000, Table 5).
_CLASSES = ("TP", "FP", "FN", "TN")

#: The conditions of the trials: an FP instance with the corpus expression or with
#: the system's, and the shared TP and FN instances (corpus expression).
CONDITIONS = ("FP-Orig", "FP-system", "TP", "FN")

#: Columns of :func:`qualify_instances`.
QUALIFICATION_COLUMNS = (
    "instance",
    "session",
    "class",
    "target",
    "context_ms",
    "qualifies",
    "reason",
)

#: Columns of :attr:`SituatedDesign.allocation`.
ALLOCATION_COLUMNS = (
    "class",
    "stratum",
    "reference_count",
    "reference_share",
    "quota",
    "ideal",
    "available",
    "allocated",
)

#: Columns of :attr:`SituatedDesign.trials`: the two-group design's columns
#: (``item`` is the instance ID) and what the trial shows.
SITUATED_TRIAL_COLUMNS = (
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
    "instance_class",
    "condition",
    "shown",
    "expression",
    "target",
)


@dataclass(frozen=True, eq=False)
class SituatedDesign(Design):
    """A two-group design of seed 000 with the instance selection that fed it.

    It is a :class:`~stecflow.studies.designs.model.Design` of kind ``two_group``
    (so :func:`~stecflow.studies.designs.balance.balance_problems` applies): the
    items are instance IDs, ``item_sets`` ``A`` and ``B`` are the halves FP1 and
    FP2 and ``shared`` holds the TP and FN instances; ``systems`` is
    ``(original, system)``.

    Attributes
    ----------
    trials : pandas.DataFrame
        Columns :data:`SITUATED_TRIAL_COLUMNS`: the design's columns plus
        ``instance_class`` (TP, FP, FN), ``condition`` (one of :data:`CONDITIONS`),
        ``shown`` (``original`` or ``system``: whose expression the trial shows),
        ``expression`` (its text) and ``target``.
    qualification : pandas.DataFrame
        :func:`qualify_instances` of the whole instance table.
    allocation : pandas.DataFrame
        Columns :data:`ALLOCATION_COLUMNS`, one row per sampled class and feature
        stratum: the stratum's count in the reference distribution and its share,
        the exact proportional ``quota``, the ``ideal`` largest-remainder
        allocation without capacity limits, the qualifying instances
        ``available`` and the number ``allocated``.
    balance : pandas.DataFrame
        Columns :data:`~stecflow.studies.designs.balance.BALANCE_COLUMNS`: the
        rows of :func:`~stecflow.studies.designs.balance.balance_table` and the
        checks ``list_condition`` (trials per list and condition),
        ``half_stratum`` (FP instances per halves stratum and half: an even split,
        the larger half of an odd stratum being either) and ``feature_stratum``
        (sampled instances per class and feature stratum against the ideal
        allocation; not ``ok`` where a short stratum forced a deviation).
    parameters : dict
        The selection's settings and counts (JSON-ready), merged into
        :meth:`settings`.
    """

    qualification: pd.DataFrame | None = None
    allocation: pd.DataFrame | None = None
    balance: pd.DataFrame | None = None
    parameters: dict[str, Any] = field(default_factory=dict)

    def settings(self) -> dict[str, Any]:
        """Return the design's and the selection's parameters as plain data."""
        out = super().settings()
        out.update(self.parameters)
        return out


def largest_remainder(
    weights: Mapping[str, int],
    n: int,
    capacity: Mapping[str, int] | None = None,
) -> dict[str, int]:
    """Allocate *n* draws over strata in proportion to *weights* (largest remainder).

    Each stratum gets the integer part of its exact quota ``n * w / sum(w)``; the
    draws left over go one each to the strata with the largest fractional parts
    (Hamilton's method). The arithmetic is exact (integers), so equal fractions
    are real ties; they go to the stratum with the larger weight, then to the
    stratum whose key sorts first.

    With *capacity*, no stratum gets more than its capacity: a short stratum
    keeps its capacity, and the draws it cannot take are allocated again by the
    same rule over the strata that still have room, in proportion to their
    weights, until all *n* are placed.

    Parameters
    ----------
    weights : mapping of str to int
        Stratum key to its count in the reference distribution (non-negative).
        Strata of weight 0 get nothing.
    n : int
        Draws to allocate, non-negative.
    capacity : mapping of str to int, optional
        Stratum key to the most it can give (missing keys: 0). Unlimited if None.

    Returns
    -------
    dict of str to int
        Every key of *weights*, with its allocation; the values sum to *n*.

    Raises
    ------
    DesignError
        If *n* exceeds what the strata of positive weight can give.

    References
    ----------
    Balinski, M. L. and Young, H. P. (2001). *Fair Representation*, 2nd ed.,
    Brookings (Hamilton's method). Seed 000, section 5.1: the TP and FN instances
    keep "the distribution ... roughly the same as that of the entire corpus".

    Examples
    --------
    >>> largest_remainder({"a": 311, "b": 187, "c": 248, "d": 496}, 20)
    {'a': 5, 'b': 3, 'c': 4, 'd': 8}
    >>> largest_remainder({"a": 1, "b": 1, "c": 1}, 2)
    {'a': 1, 'b': 1, 'c': 0}
    >>> largest_remainder({"a": 311, "b": 187, "c": 248, "d": 496}, 20,
    ...                   capacity={"a": 2, "b": 10, "c": 12, "d": 15})
    {'a': 2, 'b': 4, 'c': 5, 'd': 9}
    """
    n = _check_count(n, "n", 0)
    keys = sorted(weights)
    for key in keys:
        if isinstance(weights[key], bool) or int(weights[key]) < 0:
            raise DesignError(
                f"weight of {key} must be a non-negative integer, got {weights[key]!r}",
                field="weights",
            )
    room = {k: (int(capacity.get(k, 0)) if capacity is not None else n) for k in keys}
    give = {k: 0 for k in keys}
    if n > sum(room[k] for k in keys if weights[k] > 0):
        raise DesignError(
            f"{n} draws requested but the strata can give only "
            f"{sum(room[k] for k in keys if weights[k] > 0)}",
            field="n",
        )
    remaining = n
    open_keys = [k for k in keys if weights[k] > 0 and room[k] > 0]
    while remaining > 0:
        total = sum(int(weights[k]) for k in open_keys)
        floors = {k: remaining * int(weights[k]) // total for k in open_keys}
        fractions = {k: remaining * int(weights[k]) % total for k in open_keys}
        left = remaining - sum(floors.values())
        ranked = sorted(open_keys, key=lambda k: (-fractions[k], -weights[k], k))
        seats = dict(floors)
        for key in ranked[:left]:
            seats[key] += 1
        for key in open_keys:
            take = min(seats[key], room[key] - give[key])
            give[key] += take
            remaining -= take
        open_keys = [k for k in open_keys if give[k] < room[k]]
    return give


def qualify_instances(
    instances: pd.DataFrame,
    *,
    max_context_ms: float = 30_000,
    speaker: str | None = None,
) -> pd.DataFrame:
    """Say which instances have a usable preceding context (seed 000, section 5.1).

    An instance qualifies when its context (from ``context_start_ms`` to
    ``utterance_start_ms``, the clip a participant watches) contains both the
    last mention of the target and the last action on it, and is at most
    *max_context_ms* long. The seed: "we decided to adopt the duration of the
    preceding context in which both events, the last mention to the target and
    the last action on the target, are included. In addition, we limited the
    maximum duration to 30 s"; an expression in a dialogue's first utterance, for
    instance, has no such context.

    The checks, in this order; the first that fails is the ``reason``:

    0. with *speaker*, the ``speaker`` column equals it (the seed used only the
       solvers' expressions, so that evaluators always play the operator);
    1. ``last_mention_ms`` is given (the target was mentioned before);
    2. ``last_action_ms`` is given (the target was acted on before);
    3. ``context_start_ms`` is given (the reason says when the context holding
       both events would be longer than *max_context_ms*);
    4. ``context_start_ms <= last_mention_ms < utterance_start_ms``;
    5. ``context_start_ms <= last_action_ms < utterance_start_ms``;
    6. ``utterance_start_ms - context_start_ms <= max_context_ms``.

    Parameters
    ----------
    instances : pandas.DataFrame
        One row per instance with the columns of :data:`INSTANCE_COLUMNS`
        (missing times are NaN or None).
    max_context_ms : float, default 30000
        The longest context allowed, in ms (seed 000: 30 s).
    speaker : str, optional
        Keep only expressions of this speaker role (seed 000: ``solver``); the
        table then needs a ``speaker`` column. All speakers if None.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`QUALIFICATION_COLUMNS`, sorted by instance: ``context_ms``
        (``utterance_start_ms - context_start_ms``, NaN without a start),
        ``qualifies`` and ``reason`` (empty when it qualifies).

    Raises
    ------
    DesignError
        For a missing column, a duplicate or empty instance ID, a class outside
        TP, FP, FN, TN, a missing utterance start or a non-positive maximum.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({
    ...     "instance": ["i1", "i2", "i3"], "session": "s1", "class": "FP",
    ...     "target": "p7", "context_start_ms": [1000, 1000, 0],
    ...     "utterance_start_ms": [9000, 9000, 40000],
    ...     "last_mention_ms": [2000, None, 1000],
    ...     "last_action_ms": [5000, 3000, 39000]})
    >>> columns = ["instance", "qualifies", "reason"]
    >>> qualify_instances(table)[columns].to_numpy().tolist()
    ... # doctest: +NORMALIZE_WHITESPACE
    [['i1', True, ''], ['i2', False, 'no earlier mention of the target'],
     ['i3', False, 'context of 40000 ms exceeds the maximum of 30000 ms']]
    """
    import pandas as pd

    table = _check_instances(instances, ("speaker",) if speaker is not None else ())
    if isinstance(max_context_ms, bool) or not float(max_context_ms) > 0:
        raise DesignError(
            f"must be a positive number of ms, got {max_context_ms!r}",
            field="max_context_ms",
        )
    limit = float(max_context_ms)
    times = {
        c: pd.to_numeric(table[c], errors="coerce")
        for c in INSTANCE_COLUMNS
        if c.endswith("_ms")
    }
    missing = table["instance"][times["utterance_start_ms"].isna()].tolist()
    if missing:
        raise DesignError(
            f"no utterance start for {', '.join(map(str, missing[:5]))}; every "
            "instance needs the onset of its utterance",
            field="utterance_start_ms",
        )
    rows = []
    for i in range(len(table)):
        start = times["context_start_ms"].iloc[i]
        onset = times["utterance_start_ms"].iloc[i]
        mention = times["last_mention_ms"].iloc[i]
        action = times["last_action_ms"].iloc[i]
        length = onset - start
        said_by = table["speaker"].iloc[i] if speaker is not None else None
        if speaker is not None and said_by != speaker:
            reason = f"spoken by {_text(said_by) or 'nobody'}, not the {speaker}"
        elif pd.isna(mention):
            reason = "no earlier mention of the target"
        elif pd.isna(action):
            reason = "no earlier action on the target"
        elif pd.isna(start) and onset - min(mention, action) > limit:
            # the table leaves the start empty when no context short enough
            # holds both events (stecflow.data.dialogue.context_start)
            reason = (
                "no context start: one holding the last mention and the last "
                f"action would last {_ms(onset - min(mention, action))} ms, over "
                f"the maximum of {_ms(limit)} ms"
            )
        elif pd.isna(start):
            reason = "no context start"
        elif not start <= mention < onset:
            reason = (
                f"last mention at {_ms(mention)} ms is outside the context "
                f"{_ms(start)}-{_ms(onset)} ms"
            )
        elif not start <= action < onset:
            reason = (
                f"last action at {_ms(action)} ms is outside the context "
                f"{_ms(start)}-{_ms(onset)} ms"
            )
        elif length > limit:
            reason = (
                f"context of {_ms(length)} ms exceeds the maximum of {_ms(limit)} ms"
            )
        else:
            reason = ""
        rows.append(
            {
                "instance": table["instance"].iloc[i],
                "session": table["session"].iloc[i],
                "class": table["class"].iloc[i],
                "target": table["target"].iloc[i],
                "context_ms": float(length),
                "qualifies": reason == "",
                "reason": reason,
            }
        )
    out = pd.DataFrame(rows, columns=list(QUALIFICATION_COLUMNS))
    out["qualifies"] = out["qualifies"].astype(bool)
    out["context_ms"] = out["context_ms"].astype(float)
    return out.sort_values("instance", kind="stable").reset_index(drop=True)


def _ms(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:g}"


def _check_instances(instances: pd.DataFrame, extra: Sequence[str]) -> pd.DataFrame:
    import pandas as pd

    if not isinstance(instances, pd.DataFrame):
        raise DesignError(
            f"give a pandas DataFrame, got {type(instances).__name__}",
            field="instances",
        )
    needed = [*INSTANCE_COLUMNS, *extra]
    absent = [c for c in dict.fromkeys(needed) if c not in instances.columns]
    if absent:
        raise DesignError(
            f"missing column(s) {', '.join(absent)}; the table has "
            f"{', '.join(map(str, instances.columns))}",
            field="instances",
        )
    table = instances.reset_index(drop=True)
    ids = table["instance"].tolist()
    _check_ids(ids, "instance", 0)
    bad = sorted(
        {str(c) for c in table["class"] if not isinstance(c, str) or c not in _CLASSES}
    )
    if bad:
        raise DesignError(
            f"class must be one of {', '.join(_CLASSES)}, got {', '.join(bad[:5])}",
            field="class",
        )
    return table


def _stratum_keys(table: pd.DataFrame, features: Sequence[str]) -> list[str]:
    """``O1=1|O2=0`` for each row (``all`` without features)."""
    if not features:
        return ["all"] * len(table)
    missing = table["instance"][table[list(features)].isna().any(axis=1)].tolist()
    if missing:
        raise DesignError(
            f"missing feature value(s) for {', '.join(map(str, missing[:5]))}; "
            "every instance needs a value of every feature",
            field="features",
        )
    return [
        "|".join(f"{f}={_label(row[f])}" for f in features)
        for _, row in table[list(features)].iterrows()
    ]


def _label(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if hasattr(value, "item"):  # numpy scalars
        return _label(value.item())  # type: ignore[union-attr]
    return str(value)


def _sample(
    pool: Mapping[str, Sequence[str]],
    weights: Mapping[str, int],
    n: int,
    seed: int,
    purpose: str,
) -> tuple[dict[str, int], dict[str, int], list[str]]:
    """Allocate *n* over the strata of *pool* and draw within each stratum."""
    capacity = {k: len(v) for k, v in pool.items()}
    keys = sorted(set(weights) | set(pool))
    full_weights = {k: int(weights.get(k, 0)) for k in keys}
    ideal = largest_remainder(full_weights, n)
    allocated = largest_remainder(full_weights, n, capacity)
    chosen: list[str] = []
    for key in keys:
        members = sorted(pool.get(key, ()))
        take = allocated[key]
        if take:
            picks = _rng(seed, purpose, key).choice(len(members), take, replace=False)
            chosen.extend(members[int(i)] for i in sorted(picks))
    return ideal, allocated, sorted(chosen)


def situated_design(
    instances: pd.DataFrame,
    *,
    subjects: int,
    seed: int,
    features: Sequence[str] = ("O1", "O2"),
    halves_by: str | None = None,
    n_per_class: int = 20,
    max_fp: int | None = None,
    trial_budget: int = 80,
    max_context_ms: float = 30_000,
    speaker: str | None = None,
    reference: str = "corpus",
    original_expression: str = "original_expression",
    system_expression: str = "system_expression",
    original: str = "Orig",
    system: str = "system",
    study: str = "study",
) -> SituatedDesign:
    """Build seed 000's extrinsic study (section 5.1) from an instance table.

    Procedure, as the seed ran it (its numbers in brackets):

    1. Keep the instances that qualify (:func:`qualify_instances`: both the last
       mention of and the last action on the target in a context of at most
       *max_context_ms* [30 s]), spoken by *speaker* when given [the solver].
    2. Take every qualifying FP instance [36 of 133]; when more than *max_fp*
       qualify, draw *max_fp* of them as in step 3.
    3. Draw *n_per_class* TP and *n_per_class* FN instances [20 each] so that
       the distribution of the *features* [the cursor features O1, O2] matches
       the reference distribution: allocate by :func:`largest_remainder` over
       the feature strata (the combinations of the features' values) with the
       qualifying instances of each stratum as its capacity; then draw within
       each stratum uniformly at random, seeded by *seed*, the class and the
       stratum.
    4. Check the trial budget: every participant sees all FP instances once and
       all TP and FN instances [36 + 20 + 20 = 76 <= 80].
    5. Split the FP instances into halves FP1 (``A``) and FP2 (``B``) balanced on
       the column *halves_by* [15 "parallelogram" expressions: 7 and 8], build
       the two groups (FP1-Orig + FP2-system and FP1-system + FP2-Orig; TP and
       FN, with their corpus expressions, shared by all) and shuffle each
       participant's order, all by
       :func:`~stecflow.studies.designs.two_group.two_group_design`.

    Parameters
    ----------
    instances : pandas.DataFrame
        One row per instance: the columns of :data:`INSTANCE_COLUMNS`, the
        *features*, *halves_by* and the two expression columns. ``class`` is
        the system's class of the instance (TP, FP, FN, TN).
    subjects : int
        Participants, an even number (two equal groups) [36].
    seed : int
        The study seed; every draw derives from it.
    features : sequence of str, default ("O1", "O2")
        Columns whose joint distribution the TP and FN samples keep.
    halves_by : str, optional
        Column of the stratum the FP halves are balanced on (e.g. whether the
        expression is "the parallelogram"); without it the halves are a plain
        random split.
    n_per_class : int, default 20
        TP and FN instances each [20].
    max_fp : int, optional
        At most this many FP instances (all qualifying ones if None).
    trial_budget : int, default 80
        Most trials a participant may see ["about 80 trials constitute a rough
        maximum limit of cognitive load"].
    max_context_ms : float, default 30000
        As in :func:`qualify_instances`.
    speaker : str, optional
        As in :func:`qualify_instances` (seed 000: ``"solver"``). The reference
        distribution is still that of the whole table.
    reference : {"corpus", "class"}, default "corpus"
        The distribution the samples keep: that of every instance of the table
        (``corpus``, the seed's "entire corpus"), or that of the instances of
        the sampled class (``class``); qualifying or not.
    original_expression, system_expression : str
        Columns with the corpus's expression and the system's (for FP instances,
        e.g. "sore"; may be empty for other classes).
    original, system : str
        IDs of the two versions in the ``system`` column.
    study : str
        The study ID.

    Returns
    -------
    SituatedDesign
        ``kind="two_group"``; trials, qualification, allocation and balance
        tables as described there.

    Raises
    ------
    DesignError
        (a ValueError) naming the numbers: too few qualifying instances of a
        class, a trial budget the design exceeds, fewer than 2 FP instances, an
        FP instance without a system expression, a missing column or value.

    References
    ----------
    Spanger, P. et al., task-performance evaluation of demonstrative pronouns in
    the REX-J corpus (seed 000, sections 5.1 and 5.3).
    """
    study = _check_study(study)
    seed = _check_seed(seed)
    n_per_class = _check_count(n_per_class, "n_per_class", 0)
    trial_budget = _check_count(trial_budget, "trial_budget", 1)
    subjects = _check_count(subjects, "subjects", 2)
    if max_fp is not None:
        max_fp = _check_count(max_fp, "max_fp", 2)
    if reference not in ("corpus", "class"):
        raise DesignError(
            f"must be 'corpus' or 'class', got {reference!r}", field="reference"
        )
    if isinstance(features, str):
        raise DesignError("give a list of column names", field="features")
    features = tuple(features)
    extra = [*features, original_expression, system_expression]
    if halves_by is not None:
        extra.append(halves_by)
    table = _check_instances(instances, extra)
    qualification = qualify_instances(
        table, max_context_ms=max_context_ms, speaker=speaker
    )
    table = table.assign(_stratum=_stratum_keys(table, features))
    table = table.sort_values("instance", kind="stable").reset_index(drop=True)
    table["_qualifies"] = qualification["qualifies"].to_numpy()
    by_id = table.set_index("instance")
    qualifying = {
        c: table[table["_qualifies"] & (table["class"] == c)] for c in _CLASSES
    }

    def weights_of(cls: str) -> dict[str, int]:
        rows = table if reference == "corpus" else table[table["class"] == cls]
        return {str(k): int(v) for k, v in rows["_stratum"].value_counts().items()}

    def pool_of(cls: str) -> dict[str, list[str]]:
        rows = qualifying[cls]
        return {
            str(k): list(g["instance"]) for k, g in rows.groupby("_stratum", sort=True)
        }

    allocation_rows: list[dict[str, Any]] = []
    balance_rows: list[dict[str, Any]] = []

    def draw(cls: str, n: int) -> list[str]:
        available = len(qualifying[cls])
        if available < n:
            raise DesignError(
                f"{n} {cls} instances requested but only {available} of the "
                f"{int((table['class'] == cls).sum())} {cls} instances qualify "
                f"(context of at most {_ms(float(max_context_ms))} ms with the last "
                "mention and the last action); lower n_per_class or lengthen "
                "max_context_ms",
                field="n_per_class" if cls != "FP" else "max_fp",
            )
        weights = weights_of(cls)
        pool = pool_of(cls)
        ideal, allocated, chosen = _sample(pool, weights, n, seed, f"sample/{cls}")
        total = sum(weights.values())
        for key in sorted(allocated):
            w = weights.get(key, 0)
            allocation_rows.append(
                {
                    "class": cls,
                    "stratum": key,
                    "reference_count": w,
                    "reference_share": w / total if total else 0.0,
                    "quota": n * w / total if total else 0.0,
                    "ideal": ideal[key],
                    "available": len(pool.get(key, ())),
                    "allocated": allocated[key],
                }
            )
            balance_rows.append(
                {
                    "check": "feature_stratum",
                    "unit": f"{cls}|{key}",
                    "system": cls,
                    "n_trials": allocated[key],
                    "expected": ideal[key],
                    "ok": allocated[key] == ideal[key],
                }
            )
        return chosen

    n_fp_qualifying = len(qualifying["FP"])
    n_fp = n_fp_qualifying if max_fp is None else min(max_fp, n_fp_qualifying)
    per_participant = n_fp + 2 * n_per_class
    if per_participant > trial_budget:
        fits = []
        if trial_budget - 2 * n_per_class >= 2:
            fits.append(f"set max_fp to at most {trial_budget - 2 * n_per_class}")
        if trial_budget >= n_fp:
            fits.append(f"lower n_per_class to at most {(trial_budget - n_fp) // 2}")
        fits.append(f"raise trial_budget to {per_participant}")
        fix = f"{', '.join(fits[:-1])} or {fits[-1]}" if len(fits) > 1 else fits[0]
        raise DesignError(
            f"each participant would see {n_fp} FP + {n_per_class} TP + "
            f"{n_per_class} FN = {per_participant} trials, over the budget of "
            f"{trial_budget}; {fix}",
            field="trial_budget",
        )
    if n_fp < 2:
        raise DesignError(
            f"only {n_fp} FP instance(s) qualify; the two halves need at least 2: "
            "lengthen max_context_ms (or test a system with more false positives)",
            field="instances",
        )
    if n_fp < n_fp_qualifying:
        fp_ids = draw("FP", n_fp)
    else:
        fp_ids = sorted(qualifying["FP"]["instance"])
    tp_ids = draw("TP", n_per_class)
    fn_ids = draw("FN", n_per_class)
    no_text = [i for i in fp_ids if not _text(by_id.at[i, system_expression])] + [
        i
        for i in [*fp_ids, *tp_ids, *fn_ids]
        if not _text(by_id.at[i, original_expression])
    ]
    if no_text:
        raise DesignError(
            f"no expression to show for {', '.join(sorted(set(no_text))[:5])}; FP "
            f"instances need {system_expression} and every selected instance "
            f"{original_expression}",
            field="instances",
        )
    strata = None
    if halves_by is not None:
        unlabelled = [i for i in fp_ids if not _text(by_id.at[i, halves_by])]
        if unlabelled:
            raise DesignError(
                f"no {halves_by} value for {', '.join(unlabelled[:5])}",
                field="halves_by",
            )
        strata = {i: _label(by_id.at[i, halves_by]) for i in fp_ids}
    base = two_group_design(
        fp_ids,
        original=original,
        replacement=system,
        subjects=subjects,
        seed=seed,
        shared=[*tp_ids, *fn_ids],
        shared_system=original,
        strata=strata,
        study=study,
    )
    trials = _situated_trials(
        base.trials, by_id, original, system, original_expression, system_expression
    )
    balance_rows = (
        _condition_rows(trials, base, n_per_class)
        + (_half_rows(base, strata) if strata is not None else [])
        + balance_rows
    )
    balance = _balance_frame(balance_table(base), balance_rows)
    allocation = _allocation_frame(allocation_rows)
    counts = {c: int((qualification["class"] == c).sum()) for c in _CLASSES}
    qualifying_counts = {c: len(qualifying[c]) for c in _CLASSES}
    parameters = {
        "max_context_ms": float(max_context_ms),
        "speaker": speaker,
        "features": list(features),
        "halves_by": halves_by,
        "n_per_class": n_per_class,
        "max_fp": max_fp,
        "trial_budget": trial_budget,
        "reference": reference,
        "instances_per_class": counts,
        "qualifying_per_class": qualifying_counts,
        "selected_per_class": {"FP": n_fp, "TP": len(tp_ids), "FN": len(fn_ids)},
        "trials_per_participant": per_participant,
    }
    notes = (
        *base.notes,
        "qualifying instances (both the last mention and the last action within "
        f"{_ms(float(max_context_ms))} ms): "
        + ", ".join(f"{c} {qualifying_counts[c]} of {counts[c]}" for c in _CLASSES),
        f"{n_per_class} TP and {n_per_class} FN instances sampled to the "
        f"{reference} distribution of {', '.join(features) or 'nothing'} "
        "(largest remainder)",
    )
    design = SituatedDesign(
        study=base.study,
        kind=base.kind,
        seed=base.seed,
        systems=base.systems,
        items=base.items,
        trials=trials,
        subjects=base.subjects,
        groups=base.groups,
        item_sets={
            **base.item_sets,
            "TP": tuple(tp_ids),
            "FN": tuple(fn_ids),
        },
        shared_system=base.shared_system,
        practice_items=base.practice_items,
        notes=notes,
        qualification=qualification,
        allocation=allocation,
        balance=balance,
        parameters=parameters,
    )
    logger.info(
        "study %s: situated design, %d FP + %d TP + %d FN instances, %d subjects",
        study,
        n_fp,
        len(tp_ids),
        len(fn_ids),
        subjects,
    )
    return design


def _text(value: object) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return ""
    return str(value).strip()


def _situated_trials(
    trials: pd.DataFrame,
    by_id: pd.DataFrame,
    original: str,
    system: str,
    original_expression: str,
    system_expression: str,
) -> pd.DataFrame:
    out = trials.copy()
    classes = [str(by_id.at[i, "class"]) for i in out["item"]]
    shown = ["system" if s == system else "original" for s in out["system"]]
    out["instance_class"] = classes
    out["condition"] = [
        (f"FP-{'system' if how == 'system' else 'Orig'}" if c == "FP" else c)
        for c, how in zip(classes, shown, strict=True)
    ]
    out["shown"] = shown
    out["expression"] = [
        _text(
            by_id.at[i, system_expression if how == "system" else original_expression]
        )
        for i, how in zip(out["item"], shown, strict=True)
    ]
    out["target"] = [str(by_id.at[i, "target"]) for i in out["item"]]
    for column in ("instance_class", "condition", "shown", "expression", "target"):
        out[column] = out[column].astype(object)
    return out[list(SITUATED_TRIAL_COLUMNS)].reset_index(drop=True)


def _condition_rows(
    trials: pd.DataFrame, design: Design, n_per_class: int
) -> list[dict[str, Any]]:
    """Trials per list and condition against the sizes of the sets each group sees."""
    sizes = {
        1: {
            "FP-Orig": len(design.item_sets["A"]),
            "FP-system": len(design.item_sets["B"]),
        },
        2: {
            "FP-Orig": len(design.item_sets["B"]),
            "FP-system": len(design.item_sets["A"]),
        },
    }
    counts = trials.groupby(["list", "condition"]).size()
    rows = []
    lists = trials.drop_duplicates("list")[["list", "group"]]
    for list_id, group in zip(lists["list"], lists["group"], strict=True):
        expected = {**sizes[int(group)], "TP": n_per_class, "FN": n_per_class}
        for condition in CONDITIONS:
            got = int(counts.get((list_id, condition), 0))
            rows.append(
                {
                    "check": "list_condition",
                    "unit": list_id,
                    "system": condition,
                    "n_trials": got,
                    "expected": expected[condition],
                    "ok": got == expected[condition],
                }
            )
    return rows


def _half_rows(design: Design, strata: Mapping[str, str]) -> list[dict[str, Any]]:
    """FP instances per halves stratum and half, against an even split."""
    rows = []
    for label in sorted(set(strata.values())):
        got = {
            half: sum(1 for i in design.item_sets[half] if strata[i] == label)
            for half in ("A", "B")
        }
        size = got["A"] + got["B"]
        low, high = size // 2, size - size // 2
        larger = "A" if got["A"] > got["B"] else "B"
        for half in ("A", "B"):
            expected = high if half == larger else low
            rows.append(
                {
                    "check": "half_stratum",
                    "unit": label,
                    "system": half,
                    "n_trials": got[half],
                    "expected": expected,
                    "ok": got[half] == expected,
                }
            )
    return rows


def _balance_frame(base: pd.DataFrame, rows: list[dict[str, Any]]) -> pd.DataFrame:
    import pandas as pd

    extra = pd.DataFrame(rows, columns=list(BALANCE_COLUMNS))
    table = pd.concat([base, extra], ignore_index=True) if len(extra) else base
    table["n_trials"] = table["n_trials"].astype("int64")
    table["expected"] = table["expected"].astype("int64")
    table["ok"] = table["ok"].astype(bool)
    table = table.sort_values(["check", "unit", "system"], kind="stable")
    return table.reset_index(drop=True)


def _allocation_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    import pandas as pd

    frame = pd.DataFrame(rows, columns=list(ALLOCATION_COLUMNS))
    for column in ("reference_count", "ideal", "available", "allocated"):
        frame[column] = frame[column].astype("int64")
    for column in ("reference_share", "quota"):
        frame[column] = frame[column].astype(float)
    return frame.sort_values(["class", "stratum"], kind="stable").reset_index(drop=True)

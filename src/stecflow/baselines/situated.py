"""The organisers' baselines of the situated-dialogue task (seed 000 §4.1).

Both decide, per instance (an item of :mod:`stecflow.tasks.situated_dialogue`),
whether to use a demonstrative pronoun (DP):

* :func:`recency_outputs`, the seed's baseline: "a DP whenever the most recently
  mentioned object is the target", i.e. feature D1;
* :func:`logistic_outputs`, a learnt linear classifier over the Table 3 features
  (:func:`feature_matrix`): scikit-learn's L2-regularised logistic regression on
  standardised features (the seed used a linear SVM), evaluated by k-fold
  cross-validation grouped by session (:func:`session_folds`, seeded), so every
  instance's decision comes from a model that never saw its session; with
  ``without`` it leaves out the columns of whole feature groups
  (:data:`FEATURE_GROUPS`), as the "all but" rows of the seed's Table 4
  (:mod:`stecflow.baselines.situated_ablations`).

A DP decision shows the language's demonstrative (:data:`DEMONSTRATIVES`: "that
one", *sore*); a non-DP decision shows no expression (the seed's classifier
proposed none). :func:`write_submission` writes a submission folder
(``system.yaml`` and ``outputs.tsv``) as ``stecflow baseline`` does for REG.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`,
:mod:`stecflow.metrics`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stecflow.data.model import Item, Output
from stecflow.tasks.situated_dialogue import Instance, write_outputs

__all__ = [
    "DEMONSTRATIVES",
    "FEATURE_COLUMNS",
    "FEATURE_GROUPS",
    "LearntDecisions",
    "feature_matrix",
    "kept_columns",
    "logistic_outputs",
    "recency_outputs",
    "session_folds",
    "write_baseline_submissions",
    "write_submission",
]

#: The demonstrative pronoun a DP decision shows, by session language (seed 000
#: §5.1 replaced FP expressions by *sore*, "that").
DEMONSTRATIVES = {"en": "that one", "ja": "それ"}

#: The columns :func:`feature_matrix` makes of the Table 3 features: booleans
#: as 0/1, counts as they are, a time in ms (D2, A2) as ``log(1 + seconds)`` with
#: an indicator that it is known (null: never mentioned / never acted on), the
#: last action's kind (A3) one-hot.
FEATURE_COLUMNS = (
    "D1",
    "D2_known",
    "D2_log_s",
    "D3",
    "D4",
    "D5",
    "A1",
    "A2_known",
    "A2_log_s",
    "A3_move",
    "A3_rotate",
    "A3_flip",
    "A4",
    "A5",
    "O1",
    "O2",
)

#: The seed's three feature categories (Table 3), by the letter their features'
#: names (and so their columns in :data:`FEATURE_COLUMNS`) begin with.
FEATURE_GROUPS = {
    "D": "dialogue history",
    "A": "action history",
    "O": "current operation",
}


def kept_columns(without: Sequence[str] = ()) -> tuple[str, ...]:
    """The columns of :data:`FEATURE_COLUMNS` left when the feature groups
    *without* (letters of :data:`FEATURE_GROUPS`) are removed.

    Raises
    ------
    ValueError
        A group that is not one of :data:`FEATURE_GROUPS`, or every group removed.

    Examples
    --------
    >>> kept_columns(["D", "A"])
    ('O1', 'O2')
    >>> kept_columns(["X"])
    Traceback (most recent call last):
    ...
    ValueError: unknown feature group 'X': the groups are D (dialogue history), A (action history) and O (current operation)
    """  # noqa: E501
    for group in without:
        if group not in FEATURE_GROUPS:
            named = [f"{g} ({what})" for g, what in FEATURE_GROUPS.items()]
            raise ValueError(
                f"unknown feature group {group!r}: the groups are"
                f" {', '.join(named[:-1])} and {named[-1]}"
            )
    kept = tuple(c for c in FEATURE_COLUMNS if c[0] not in set(without))
    if not kept:
        raise ValueError("every feature group removed: the classifier has no feature")
    return kept


def _instance(item: Item) -> Instance:
    if not isinstance(item.input, Instance):
        raise ValueError(
            f"item {item.id} is not a situated-dialogue instance; make the items"
            " with stecflow.tasks.situated_dialogue.items_from_sessions"
        )
    return item.input


def _decision(item: Item, pronoun: bool) -> Output:
    shown = DEMONSTRATIVES.get(_instance(item).language, DEMONSTRATIVES["en"])
    return Output(
        item.id, shown if pronoun else None, None, fields=(("pronoun", pronoun),)
    )


def recency_outputs(items: Sequence[Item]) -> list[Output]:
    """The seed's baseline: a DP iff the target is the most recently mentioned
    object (feature D1).

    Raises
    ------
    ValueError
        An item is not a situated-dialogue instance.
    """
    return [_decision(item, _instance(item).features.D1) for item in items]


def _time(ms: int | None) -> tuple[float, float]:
    return (0.0, 0.0) if ms is None else (1.0, math.log1p(ms / 1000))


def feature_matrix(items: Sequence[Item]) -> list[list[float]]:
    """One row of :data:`FEATURE_COLUMNS` per item.

    Examples
    --------
    >>> _time(None), _time(0), round(_time(1718)[1], 3)
    ((0.0, 0.0), (1.0, 0.0), 1.0)
    """
    rows = []
    for item in items:
        f = _instance(item).features
        rows.append(
            [
                float(f.D1),
                *_time(f.D2),
                float(f.D3),
                float(f.D4),
                float(f.D5),
                float(f.A1),
                *_time(f.A2),
                float(f.A3 == "move"),
                float(f.A3 == "rotate"),
                float(f.A3 == "flip"),
                float(f.A4),
                float(f.A5),
                float(f.O1),
                float(f.O2),
            ]
        )
    return rows


def session_folds(sessions: Sequence[str], folds: int, seed: int) -> dict[str, int]:
    """Assign sessions to *folds* folds: shuffled with *seed*, then dealt in turn.

    At most one fold per session: with fewer sessions than *folds* every session
    is a fold of its own (leave one session out).

    Raises
    ------
    ValueError
        Fewer than two sessions or folds.

    Examples
    --------
    >>> session_folds(["s1", "s2", "s3"], 10, 1) == session_folds(["s3", "s2", "s1"],
    ...                                                           10, 1)
    True
    >>> sorted(session_folds(["a", "b", "c", "d"], 2, 7).values())
    [0, 0, 1, 1]
    """
    import numpy as np

    names = sorted(set(sessions))
    if len(names) < 2 or folds < 2:
        raise ValueError(
            "cross-validation grouped by session needs at least two sessions and"
            f" two folds (got {len(names)} sessions, {folds} folds)"
        )
    k = min(folds, len(names))
    order = np.random.default_rng(seed).permutation(len(names))
    return {names[int(j)]: n % k for n, j in enumerate(order)}


@dataclass(frozen=True)
class LearntDecisions:
    """The out-of-fold decisions of :func:`logistic_outputs` and how they came about.

    Attributes
    ----------
    outputs
        One :class:`Output` per item, in item order.
    probabilities
        The model's probability of a DP per item (out of fold).
    fold_of
        Each session's fold.
    folds
        Folds used (at most one per session).
    columns
        The columns of :data:`FEATURE_COLUMNS` the model was fitted on.
    """

    outputs: list[Output]
    probabilities: list[float]
    fold_of: Mapping[str, int]
    folds: int
    columns: tuple[str, ...] = FEATURE_COLUMNS


def logistic_outputs(
    items: Sequence[Item],
    *,
    folds: int = 10,
    seed: int = 2009,
    c: float = 1.0,
    without: Sequence[str] = (),
) -> LearntDecisions:
    """A logistic regression over the Table 3 features, decisions out of fold.

    Per fold of :func:`session_folds`, scikit-learn's ``StandardScaler`` and
    ``LogisticRegression(C=c)`` (L2, lbfgs) are fitted on the other folds'
    instances, labelled with the corpus's decision; an instance of the fold
    gets a DP when its predicted probability is at least 0.5.

    Parameters
    ----------
    items
        The instances (:func:`~stecflow.tasks.situated_dialogue.items_from_sessions`).
    folds
        Folds (the seed used tenfold cross-validation); at most one per session.
    seed
        Seed of the assignment of sessions to folds.
    c
        Inverse regularisation strength.
    without
        Feature groups to leave out (letters of :data:`FEATURE_GROUPS`); the
        folds do not depend on them.

    Raises
    ------
    ValueError
        Fewer than two sessions, a training fold with one class only, an
        unknown feature group or every group left out.
    ImportError
        scikit-learn is missing (``pip install 'stecflow[dialogue]'``).
    """
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    columns = kept_columns(without)
    instances = [_instance(item) for item in items]
    x = np.array(feature_matrix(items), dtype=float).reshape(
        len(items), len(FEATURE_COLUMNS)
    )
    x = x[:, [FEATURE_COLUMNS.index(c) for c in columns]]
    y = np.array([i.pronoun for i in instances], dtype=int)
    fold_of = session_folds([i.session for i in instances], folds, seed)
    fold = np.array([fold_of[i.session] for i in instances])
    k = max(fold_of.values()) + 1
    probability = np.full(len(items), np.nan)
    for held_out in range(k):
        test = fold == held_out
        if len(set(y[~test])) < 2:
            raise ValueError(
                f"fold {held_out}: the training instances hold one class only"
            )
        model = make_pipeline(StandardScaler(), LogisticRegression(C=c))
        model.fit(x[~test], y[~test])
        probability[test] = model.predict_proba(x[test])[:, 1]
    outputs = [
        _decision(item, bool(p >= 0.5))
        for item, p in zip(items, probability, strict=True)
    ]
    return LearntDecisions(
        outputs, [float(p) for p in probability], fold_of, k, columns
    )


def write_submission(
    folder: str | Path,
    outputs: Sequence[Output],
    *,
    description: str,
    contact: str = "organisers@example.org",
    submitted: str = "2026-01-01T00:00:00Z",
) -> Path:
    """Write *outputs* as a submission folder: ``outputs.tsv`` and ``system.yaml``.

    The folder's parent names the team and the folder the system, as for
    ``stecflow baseline``; the system is no primary entry, takes part in
    ``situated_dialogue`` and may be released.
    """
    import yaml

    folder = Path(folder)
    write_outputs(outputs, folder / "outputs.tsv")
    metadata: dict[str, Any] = {
        "team": folder.parent.name,
        "system": folder.name,
        "description": description,
        "contact": contact,
        "primary": False,
        "submitted": submitted,
        "tasks": ["situated_dialogue"],
        "reference": False,
        "release_consent": True,
    }
    text = yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True, width=88)
    (folder / "system.yaml").write_text(text, encoding="utf-8")
    return folder


def write_baseline_submissions(
    items: Sequence[Item],
    root: str | Path,
    *,
    team: str = "organisers",
    folds: int = 10,
    seed: int = 2009,
    ablations: bool = False,
) -> list[Path]:
    """Write both baselines as submissions ``<root>/<team>/recency`` and
    ``<root>/<team>/logistic``; their descriptions say how they decided (the
    logistic regression's folds and seed included).

    With *ablations*, also the logistic regression without each feature group,
    ``<root>/<team>/logistic-no-D``, ``-no-A`` and ``-no-O``, with the same
    folds (the "all but" rows of seed 000's Table 4:
    :func:`stecflow.baselines.situated_ablations.write_ablation_submissions`).

    Returns
    -------
    list of Path
        The folders: recency, logistic, then those of the ablations.
    """
    root = Path(root)
    recency = write_submission(
        root / team / "recency",
        recency_outputs(items),
        description=(
            "Recency baseline of seed 000: a demonstrative pronoun iff the most"
            " recently mentioned object is the target (feature D1)."
        ),
    )
    learnt = logistic_outputs(items, folds=folds, seed=seed)
    logistic = write_submission(
        root / team / "logistic",
        learnt.outputs,
        description=(
            "Logistic regression (scikit-learn, L2, C=1, standardised features)"
            " over the Table 3 features; decisions out of fold from"
            f" {learnt.folds}-fold cross-validation grouped by session (seed"
            f" {seed})."
        ),
    )
    folders = [recency, logistic]
    if ablations:
        from stecflow.baselines.situated_ablations import (
            ablation_rows,
            write_ablation_submissions,
        )

        rows = ablation_rows(items, folds=folds, seed=seed)
        folders += write_ablation_submissions(rows, root, team=team, seed=seed)
    return folders

"""Seed 000's Table 4: the learnt classifier with one feature category left out.

The seed (§4.1) reports precision, recall and F of the pronoun class for five
classifiers: the baseline (a DP iff the most recently mentioned object is the
target), the classifier on all the Table 3 features, and the classifier on all
but one of the three categories: dialogue history (D1–D5), action history
(A1–A5), current operation (O1, O2). :func:`ablation_rows` computes these rows
with the organisers' baselines of :mod:`stecflow.baselines.situated`: the recency
baseline, then :func:`~stecflow.baselines.situated.logistic_outputs` on all
columns and without each group (:data:`~stecflow.baselines.situated.FEATURE_GROUPS`),
every learnt row with the same session-grouped folds (one seed), so the rows
differ only in their features.

:func:`format_ablation_table` prints the rows, :func:`write_ablation_table` writes
them as TSV (:data:`ABLATION_COLUMNS`), and :func:`write_ablation_submissions`
writes the "all but" rows as submission folders (``logistic-no-D`` ...) for a
campaign to score beside the baselines.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`,
:mod:`stecflow.metrics`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stecflow.baselines.situated import (
    FEATURE_COLUMNS,
    FEATURE_GROUPS,
    kept_columns,
    logistic_outputs,
    recency_outputs,
    write_submission,
)
from stecflow.core.io import format_tsv
from stecflow.data.model import Item, Output
from stecflow.metrics.classification import ConfusionMatrix, confusion_matrix

__all__ = [
    "ABLATION_COLUMNS",
    "AblationRow",
    "ablated_system",
    "ablation_description",
    "ablation_records",
    "ablation_rows",
    "format_ablation_table",
    "group_range",
    "write_ablation_submissions",
    "write_ablation_table",
]

#: Columns of the TSV of :func:`write_ablation_table`, one line per row of the
#: table: its label, the system (submission) name, the feature groups left out
#: (letters, comma-separated), the feature columns used, the folds of the
#: cross-validation (empty for the baseline, which learns nothing), the counts
#: of the four cells and precision, recall and F of the pronoun class (empty
#: when undefined).
ABLATION_COLUMNS = (
    "row",
    "system",
    "removed",
    "columns",
    "folds",
    "tp",
    "fp",
    "fn",
    "tn",
    "precision",
    "recall",
    "f",
)


@dataclass(frozen=True)
class AblationRow:
    """One row of the table.

    Attributes
    ----------
    label
        The row's name as the seed's Table 4 words it ("All but dialogue
        history").
    system
        Its submission name: ``recency``, ``logistic`` or ``logistic-no-<G>``.
    removed
        The feature groups left out (empty for the first two rows).
    columns
        The feature columns the classifier used (``("D1",)`` for the baseline).
    folds
        Folds of the cross-validation; None for the baseline.
    matrix
        Its decisions against the corpus.
    outputs
        Its decisions, one per item in item order.
    """

    label: str
    system: str
    removed: tuple[str, ...]
    columns: tuple[str, ...]
    folds: int | None
    matrix: ConfusionMatrix
    outputs: tuple[Output, ...]


def ablated_system(without: Sequence[str]) -> str:
    """The submission name of the classifier without the groups *without*.

    Examples
    --------
    >>> ablated_system([]), ablated_system(["O"]), ablated_system(["O", "D"])
    ('logistic', 'logistic-no-O', 'logistic-no-D-O')
    """
    kept_columns(without)  # refuses an unknown group
    order = list(FEATURE_GROUPS)
    groups = sorted(set(without), key=order.index)
    return "-".join(["logistic", *(["no", *groups] if groups else [])])


def _label(without: Sequence[str]) -> str:
    if not without:
        return "All features"
    names = [FEATURE_GROUPS[g] for g in FEATURE_GROUPS if g in without]
    return "All but " + " and ".join(names)


def group_range(group: str) -> str:
    """The features of *group* as the seed names them.

    Examples
    --------
    >>> group_range("D"), group_range("O")
    ('D1-D5', 'O1-O2')
    """
    names = list(dict.fromkeys(c.split("_")[0] for c in FEATURE_COLUMNS))
    mine = [n for n in names if n[0] == group]
    return f"{mine[0]}-{mine[-1]}"


def ablation_description(without: Sequence[str], folds: int, seed: int) -> str:
    """The ``system.yaml`` description of the classifier without *without*.

    Examples
    --------
    >>> ablation_description(["O"], 6, 2009)[67:]
    'over the Table 3 features of seed 000 except those of the current operation (O1-O2); decisions out of fold from 6-fold cross-validation grouped by session (seed 2009).'
    """  # noqa: E501
    removed = [
        f"the {FEATURE_GROUPS[g]} ({group_range(g)})"
        for g in FEATURE_GROUPS
        if g in without
    ]
    but = f" except those of {' and '.join(removed)}" if removed else ""
    return (
        "Logistic regression (scikit-learn, L2, C=1, standardised features)"
        f" over the Table 3 features of seed 000{but}; decisions out of fold"
        f" from {folds}-fold cross-validation grouped by session (seed {seed})."
    )


def _gold(items: Sequence[Item]) -> list[bool]:
    return [bool(item.input.pronoun) for item in items]


def ablation_rows(
    items: Sequence[Item],
    *,
    folds: int = 10,
    seed: int = 2009,
    groups: Sequence[str] = tuple(FEATURE_GROUPS),
) -> list[AblationRow]:
    """The rows of seed 000's Table 4 on *items*.

    Baseline (recency, feature D1), all features, then all but each of *groups*
    in the order given; every learnt row from
    :func:`~stecflow.baselines.situated.logistic_outputs` with the same *folds*
    and *seed*, hence the same assignment of sessions to folds.

    Raises
    ------
    ValueError
        What :func:`~stecflow.baselines.situated.logistic_outputs` raises (an
        unknown group included).
    ImportError
        scikit-learn is missing.
    """
    for group in groups:
        kept_columns([group])
    gold = _gold(items)
    baseline = recency_outputs(items)
    rows = [
        AblationRow(
            "Baseline",
            "recency",
            (),
            ("D1",),
            None,
            confusion_matrix(gold, [o.get("pronoun") for o in baseline]),
            tuple(baseline),
        )
    ]
    for without in [(), *((g,) for g in groups)]:
        learnt = logistic_outputs(items, folds=folds, seed=seed, without=without)
        rows.append(
            AblationRow(
                _label(without),
                ablated_system(without),
                without,
                learnt.columns,
                learnt.folds,
                confusion_matrix(gold, [o.get("pronoun") for o in learnt.outputs]),
                tuple(learnt.outputs),
            )
        )
    return rows


def ablation_records(rows: Sequence[AblationRow]) -> list[dict[str, Any]]:
    """The rows as dicts with the keys :data:`ABLATION_COLUMNS`."""
    return [
        {
            "row": row.label,
            "system": row.system,
            "removed": ",".join(row.removed),
            "columns": ",".join(row.columns),
            "folds": row.folds,
            "tp": row.matrix.tp,
            "fp": row.matrix.fp,
            "fn": row.matrix.fn,
            "tn": row.matrix.tn,
            "precision": row.matrix.precision,
            "recall": row.matrix.recall,
            "f": row.matrix.f,
        }
        for row in rows
    ]


def write_ablation_table(rows: Sequence[AblationRow], path: str | Path) -> Path:
    """Write the rows as TSV (:data:`ABLATION_COLUMNS`; floats to 10
    significant digits) and return *path*."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = format_tsv(ablation_records(rows), ABLATION_COLUMNS)
    path.write_text(text, encoding="utf-8", newline="")
    return path


def _score(value: float, digits: int) -> str:
    return "-" if math.isnan(value) else f"{value:.{digits}f}"


def format_ablation_table(rows: Sequence[AblationRow], digits: int = 3) -> str:
    """The rows as a plain-text table: row, system, TP, FP, FN, TN, P, R, F
    (scores to *digits* decimals, ``-`` when undefined), one line each.

    Examples
    --------
    >>> m = ConfusionMatrix(tp=2, fp=1, fn=1, tn=4)
    >>> row = AblationRow("Baseline", "recency", (), ("D1",), None, m, ())
    >>> print(format_ablation_table([row]))
    row       system   TP  FP  FN  TN  P      R      F
    Baseline  recency   2   1   1   4  0.667  0.667  0.667
    """
    header = ["row", "system", "TP", "FP", "FN", "TN", "P", "R", "F"]
    lines = [
        [
            row.label,
            row.system,
            str(row.matrix.tp),
            str(row.matrix.fp),
            str(row.matrix.fn),
            str(row.matrix.tn),
            *(
                _score(v, digits)
                for v in (row.matrix.precision, row.matrix.recall, row.matrix.f)
            ),
        ]
        for row in rows
    ]
    widths = [max(len(r[i]) for r in [header, *lines]) for i in range(len(header))]
    out = []
    for cells in [header, *lines]:
        texts = [
            cell.ljust(w) if i < 2 or cells is header else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(cells, widths, strict=True))
        ]
        out.append("  ".join(texts).rstrip())
    return "\n".join(out)


def write_ablation_submissions(
    rows: Sequence[AblationRow],
    root: str | Path,
    *,
    team: str = "organisers",
    seed: int = 2009,
    contact: str = "organisers@example.org",
    submitted: str = "2026-01-01T00:00:00Z",
) -> list[Path]:
    """Write the rows that leave a group out as submissions
    ``<root>/<team>/<system>`` (``logistic-no-D`` ...), their descriptions
    naming the groups left out, the folds and *seed* (the seed the rows were
    computed with). The baseline and all-features rows are left to
    :func:`~stecflow.baselines.situated.write_baseline_submissions`.

    Returns
    -------
    list of Path
        The folders, in the order of *rows*.
    """
    root = Path(root)
    return [
        write_submission(
            root / team / row.system,
            row.outputs,
            description=ablation_description(row.removed, row.folds or 0, seed),
            contact=contact,
            submitted=submitted,
        )
        for row in rows
        if row.removed
    ]

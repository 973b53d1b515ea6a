"""The intrinsic evaluation of seed 000's situated task, as the seed reports it.

Owns :func:`decision_confusion`, the analysis ``confusion`` of the campaign's
statistics stage (:mod:`stecflow.analysis.families.situated` calls it): each
instance's class (TP, FP, FN, TN) per system and each system's counts with P,
R and F (seed 000 §4, Table 4), from the decision metrics' item scores in
``results/scores/items.tsv``. It reads and checks its tables itself, naming
file and line. The situated study's own t-tests are its kind's
(:mod:`stecflow.studykinds.situated_identification.analyses`).

May import: :mod:`stecflow.core`, :mod:`stecflow.metrics` (``classification``),
pandas (inside functions).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "CONFUSION_COLUMNS",
    "CONFUSION_SYSTEM_KEYS",
    "decision_confusion",
]

#: Columns of the ``confusion`` analysis' table: one row per instance x system.
CONFUSION_COLUMNS = ("team", "system", "label", "instance", "session", "class")
#: Keys of each entry of the ``confusion`` record's ``systems``.
CONFUSION_SYSTEM_KEYS = (
    "team",
    "system",
    "label",
    "tp",
    "fp",
    "fn",
    "tn",
    "n",
    "precision",
    "recall",
    "f",
)

#: (decision_precision, decision_recall) item scores -> the instance's class;
#: None is an undefined (empty) score.
_CELLS = {(1, 1): "TP", (0, None): "FP", (None, 0): "FN", (None, None): "TN"}


def _proportion(value: float) -> str:
    """Three decimals without the leading zero, as seed 000 writes P, R and F."""
    import math

    if not math.isfinite(value):
        return "n/a"
    text = f"{value:.3f}"
    return text[1:] if text.startswith("0.") else text


def _decision_score(text: str, where: dict[str, Any]) -> int | None:
    from stecflow.core.errors import StecflowError

    if text == "":
        return None
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if value not in (0.0, 1.0):
        raise StecflowError(
            f"{text!r} is not the item score of a decision; expected 1, 0 or empty",
            **where,
        )
    return int(value)


def _scored_n(rows: Sequence[Mapping[str, str]], metric: str) -> tuple[int, int] | str:
    """(n, n + n_skipped) of *metric* over all items, or why there is none."""
    mine = [r for r in rows if r["metric"] == metric and r.get("subset") == "all"]
    if not mine:
        return f"{metric} has no score in scores/analysed.tsv"
    row = mine[0]
    if row.get("status") != "scored":
        return f"{metric} was not scored ({row.get('reason') or row.get('status')})"
    n = int(row["n"])
    return n, n + int(row.get("n_skipped") or 0)


def decision_confusion(
    items_path: str | Path,
    systems_path: str | Path,
    *,
    precision: str = "decision_precision",
    recall: str = "decision_recall",
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Each instance's class (TP, FP, FN, TN) per system, and each system's counts.

    The classes come from the item scores of :mod:`stecflow.metrics.decisions`
    (``results/scores/items.tsv``): ``decision_precision`` is 1 for a TP, 0 for
    an FP and empty otherwise; ``decision_recall`` is 1 for a TP, 0 for an FN and
    empty otherwise; so both empty is a TN. Any other pair is an error.

    How many instances a system has is read from ``results/scores/analysed.tsv``
    (the scoring stage's counts, not from the rows of ``items.tsv``):
    ``decision_precision``'s ``n`` (TP + FP) plus ``n_skipped`` (the instances
    where it is undefined, FN + TN), checked against ``decision_recall``'s
    (TP + FN, and FP + TN). ``items.tsv`` lists every scored instance today, an
    undefined score as an empty cell; if it ever leaves such rows out, the TNs it
    does not list are still counted (TN = n - TP - FP - FN) and their number is
    given in ``tn_unlisted``, but they get no row in the instance table.

    Parameters
    ----------
    items_path, systems_path
        ``scores/items.tsv`` and ``scores/analysed.tsv`` of
        :func:`stecflow.analysis.collect.collect_item_scores`.
    precision, recall
        The campaign's IDs of the ``decision_precision`` and ``decision_recall``
        metrics.

    Returns
    -------
    (pandas.DataFrame, dict)
        The instances (:data:`CONFUSION_COLUMNS`; ``session`` is the item's
        ``subdomain``, the session ID for the situated-dialogue task), in the
        order of ``analysed.tsv`` then ``items.tsv``; and the record entries:
        ``systems`` (:data:`CONFUSION_SYSTEM_KEYS` from
        :class:`stecflow.metrics.classification.ConfusionMatrix`, plus
        ``tn_unlisted``), ``skipped`` (systems without decision scores, with the
        reason) and ``text`` (per system, ``"P = .660, R = .527, F = .586 (TP 68,
        FP 35, FN 61, TN 204; n = 368)"``).

    Raises
    ------
    StecflowError
        A score that is no decision (1, 0, empty), an impossible pair, an
        instance with only one of the two scores, or counts that disagree with
        ``analysed.tsv`` (file, line and field named where there is one).
    """
    import pandas as pd

    from stecflow.core.errors import StecflowError
    from stecflow.core.io import read_tsv
    from stecflow.metrics.classification import ConfusionMatrix

    items_file, systems_file = str(items_path), str(systems_path)
    analysed: dict[tuple[str, str], list[dict[str, str]]] = {}
    for row in read_tsv(systems_path):
        analysed.setdefault((row["team"], row["system"]), []).append(row)
    instances: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    chunks = pd.read_csv(
        items_path, sep="\t", dtype=str, keep_default_na=False, chunksize=200_000
    )
    for chunk in chunks:
        chunk = chunk[chunk["metric"].isin([precision, recall])]
        columns = ("team", "system", "item", "subdomain", "metric", "value")
        cells_of = zip(chunk.index, *(chunk[c] for c in columns), strict=True)
        for index, *cells in cells_of:
            team, system, item, session, metric, value = cells
            line = int(index) + 2  # the header is line 1
            if (team, system) not in analysed:
                raise StecflowError(
                    f"{team}/{system} has item scores but is not among the systems"
                    f" analysed ({systems_file})",
                    file=items_file,
                    line=line,
                    field="system",
                )
            entry = instances.setdefault((team, system), {}).setdefault(
                item, {"session": session, "line": line, "scores": {}}
            )
            if metric in entry["scores"]:
                raise StecflowError(
                    f"{metric} of {team}/{system} on {item} is given twice (also"
                    f" line {entry['scores'][metric][1]})",
                    file=items_file,
                    line=line,
                    field="item",
                )
            where = {"file": items_file, "line": line, "field": "value"}
            entry["scores"][metric] = (_decision_score(value, where), line)
    rows: list[dict[str, Any]] = []
    systems: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    texts: list[dict[str, str]] = []
    for (team, system), scores in analysed.items():
        label = scores[0]["label"]
        by_p, by_r = _scored_n(scores, precision), _scored_n(scores, recall)
        if isinstance(by_p, str) or isinstance(by_r, str):
            reason = by_p if isinstance(by_p, str) else by_r
            skipped.append(
                {"team": team, "system": system, "label": label, "reason": str(reason)}
            )
            continue
        (n_p, n), (n_r, n_from_recall) = by_p, by_r
        if n != n_from_recall:
            raise StecflowError(
                f"{team}/{system}: {precision} counts {n} instances but {recall}"
                f" {n_from_recall}",
                file=systems_file,
                field="n_skipped",
            )
        counts = dict.fromkeys(("TP", "FP", "FN", "TN"), 0)
        for item, entry in (instances.get((team, system)) or {}).items():
            scored = entry["scores"]
            for metric in (precision, recall):
                if metric not in scored:
                    raise StecflowError(
                        f"{team}/{system} on {item}: no {metric} row, only the other"
                        " decision score; a decision is classed by both",
                        file=items_file,
                        line=entry["line"],
                        field="metric",
                    )
            pair = (scored[precision][0], scored[recall][0])
            cls = _CELLS.get(pair)
            if cls is None:
                raise StecflowError(
                    f"{team}/{system} on {item}: {precision} {pair[0]} with {recall}"
                    f" {pair[1]} (line {scored[recall][1]}) is no decision cell;"
                    " expected 1 and 1 (TP), 0 and empty (FP), empty and 0 (FN) or"
                    " empty and empty (TN)",
                    file=items_file,
                    line=scored[precision][1],
                    field="value",
                )
            counts[cls] += 1
            rows.append(
                {
                    "team": team,
                    "system": system,
                    "label": label,
                    "instance": item,
                    "session": entry["session"],
                    "class": cls,
                }
            )
        listed = sum(counts.values())
        tp, fp, fn = counts["TP"], counts["FP"], counts["FN"]
        if tp + fp != n_p or tp + fn != n_r or listed > n:
            raise StecflowError(
                f"{team}/{system}: the item scores give TP {tp}, FP {fp}, FN {fn} and"
                f" {listed} instances, but {precision} has n = {n_p}, {recall}"
                f" n = {n_r} over {n} instances; the two files do not belong"
                " together (run collect_item_scores again)",
                file=systems_file,
                field="n",
            )
        matrix = ConfusionMatrix(tp=tp, fp=fp, fn=fn, tn=n - tp - fp - fn)
        systems.append(
            {
                "team": team,
                "system": system,
                "label": label,
                **matrix.as_dict(),
                "tn_unlisted": n - listed,
            }
        )
        texts.append(
            {
                "about": label,
                "text": f"P = {_proportion(matrix.precision)}, R ="
                f" {_proportion(matrix.recall)}, F = {_proportion(matrix.f)} (TP"
                f" {tp}, FP {fp}, FN {fn}, TN {matrix.tn}; n = {n})",
            }
        )
    frame = pd.DataFrame(rows, columns=list(CONFUSION_COLUMNS))
    return frame, {"systems": systems, "skipped": skipped, "text": texts}

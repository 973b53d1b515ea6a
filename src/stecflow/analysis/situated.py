"""The t-tests of seed 000's situated identification study, as the seed reports them.

Owns :func:`situated_ttests`: paired t-tests over evaluators on the per-evaluator
means of :func:`stecflow.judgments.situated.evaluator_table`, for the seed's
comparisons (§5.3):

* TP vs FN on the identification rate ("a significant difference at 0.01 %
  level (t(33) = 16.24)", §5.3.2),
* TP vs FN on the identification time ("t(33) = 7.79", §5.3.3),
* FP-system vs FP-Orig on the identification time ("no significant
  difference", §5.3.3) and on the identification rate (compared in Table 7).

Each evaluator contributes one pair: their IR (correct / responses) or their
mean IT (ms, corrected trials excluded) in each class, so ``df`` is the number
of evaluators minus one (33 with the seed's 34). Evaluators whose session failed
are discarded first, as for Tables 7-9
(:func:`~stecflow.judgments.situated.discard_failed_sessions`). The test is
:func:`stecflow.stats.ttests.paired_ttest`; the texts are
:func:`stecflow.analysis.formatting.format_result`'s ("t(33) = 16.24, p < .001").
``t`` is signed, ``mean_a - mean_b`` over its standard error: TP faster than FN
gives a negative t on IT, where the seed writes its magnitude.

The two analyses of the campaign's statistics stage built on it
(:mod:`stecflow.analysis.families.situated` calls them):

* ``situated_ttests`` (:func:`run_situated_ttests`): the tests above on a study's
  ``results/judgments/<study>.tsv``, read by :func:`read_situated_trials`;
* ``confusion`` (:func:`decision_confusion`): each instance's class (TP, FP, FN,
  TN) per system and each system's counts with P, R and F (seed 000 §4, Table 4),
  from the decision metrics' item scores in ``results/scores/items.tsv``.

May import: :mod:`stecflow.core`, :mod:`stecflow.metrics` (``classification``),
:mod:`stecflow.stats`, :mod:`stecflow.judgments` (``situated``, ``_common``),
:mod:`stecflow.analysis` (``formatting``), pandas (inside functions).
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
    "MEASURES",
    "SEED_COMPARISONS",
    "SITUATED_TEST_COLUMNS",
    "TRIALS_NEEDED",
    "decision_confusion",
    "read_situated_trials",
    "run_situated_ttests",
    "situated_ttests",
]

#: Measures of the evaluator table that can be compared, and their labels.
MEASURES = {
    "ir": "identification rate",
    "it_mean_ms": "identification time (ms)",
    "replays_mean": "replays",
}

#: The seed's comparisons: (class a, class b, measure).
SEED_COMPARISONS: tuple[tuple[str, str, str], ...] = (
    ("TP", "FN", "ir"),
    ("TP", "FN", "it_mean_ms"),
    ("FP-system", "FP-Orig", "ir"),
    ("FP-system", "FP-Orig", "it_mean_ms"),
)

#: Columns of :func:`situated_ttests`: the comparison, then
#: :data:`stecflow.stats.ttests.PAIRED_COLUMNS`, then the text.
SITUATED_TEST_COLUMNS = (
    "measure",
    "label",
    "level_a",
    "level_b",
    "mean_a",
    "mean_b",
    "delta",
    "t",
    "df",
    "p_val",
    "ci_low",
    "ci_high",
    "dz",
    "alternative",
    "n",
    "n_missing",
    "computable",
    "reason",
    "text",
)


def situated_ttests(
    trials: pd.DataFrame,
    *,
    comparisons: Sequence[tuple[str, str, str]] = SEED_COMPARISONS,
    complete: Sequence[str] = ("completed",),
    expected_trials: int | None = None,
    alternative: str = "two-sided",
    confidence: float = 0.95,
    digits: int = 2,
) -> tuple[pd.DataFrame, list[dict[str, str]]]:
    """Paired t-tests over evaluators between instance classes (seed 000, §5.3).

    Parameters
    ----------
    trials : pandas.DataFrame
        The trials table of :mod:`stecflow.judgments.situated`
        (:data:`~stecflow.judgments.situated.TRIAL_COLUMNS`).
    comparisons : sequence of (str, str, str)
        (class a, class b, measure) per test, measure one of :data:`MEASURES`;
        default :data:`SEED_COMPARISONS`.
    complete, expected_trials
        As :func:`~stecflow.judgments.situated.discard_failed_sessions`.
    alternative, confidence
        As :func:`stecflow.stats.ttests.paired_ttest` (about ``mean_a - mean_b``).
    digits
        Decimals of t in the texts.

    Returns
    -------
    (pandas.DataFrame, list of dict)
        The tests, :data:`SITUATED_TEST_COLUMNS`, one row per comparison in the
        order given (``label`` names the measure; ``text`` as the seed writes
        it); and the texts, ``{"about": "TP vs FN: identification rate",
        "text": "t(33) = 16.24, p < .001"}`` per computable test.

    Raises
    ------
    JudgmentsError
        A column or class problem in *trials*, or an unknown measure.

    Examples
    --------
    >>> import pandas as pd
    >>> trials = pd.DataFrame({
    ...     "subject": [s for s in "abcd" for _ in range(4)],
    ...     "instance": ["t1", "t2", "f1", "f2"] * 4,
    ...     "class": ["TP", "TP", "FN", "FN"] * 4, "target": "1",
    ...     "chosen": ["1", "1", "1", "2",   "1", "1", "2", "2",
    ...                "1", "2", "1", "2",   "1", "1", "1", "1"],
    ...     "cant_tell": False, "time_ms": 1000.0, "session_status": "completed"})
    >>> rows, texts = situated_ttests(trials, comparisons=[("TP", "FN", "ir")])
    >>> rows[["mean_a", "mean_b", "t", "df"]].round(4).values.tolist()
    [[0.875, 0.5, 1.5667, 3]]
    >>> texts
    [{'about': 'TP vs FN: identification rate', 'text': 't(3) = 1.57, p = .215'}]
    """
    import pandas as pd

    from stecflow.analysis.formatting import format_result
    from stecflow.judgments._common import JudgmentsError
    from stecflow.judgments.situated import discard_failed_sessions, evaluator_table
    from stecflow.stats.ttests import paired_ttest

    for _, _, measure in comparisons:
        if measure not in MEASURES:
            raise JudgmentsError(
                f"{measure!r} is not one of {', '.join(MEASURES)}",
                field="comparisons",
            )
    kept, _ = discard_failed_sessions(
        trials, complete=complete, expected_trials=expected_trials
    )
    evaluators = evaluator_table(kept)
    rows: list[dict[str, Any]] = []
    texts: list[dict[str, str]] = []
    for a, b, measure in comparisons:
        result = paired_ttest(
            evaluators,
            measure,
            "class",
            "subject",
            a=a,
            b=b,
            alternative=alternative,  # type: ignore[arg-type]
            confidence=confidence,
        ).iloc[0]
        text = format_result(result, digits=digits)
        row = {"measure": measure, "label": MEASURES[measure], **result.to_dict()}
        row["text"] = text
        rows.append(row)
        if bool(result["computable"]):
            texts.append({"about": f"{a} vs {b}: {MEASURES[measure]}", "text": text})
    frame = pd.DataFrame(rows, columns=list(SITUATED_TEST_COLUMNS))
    frame["df"] = frame["df"].astype("Int64")
    return frame, texts


#: Columns of the trials table :func:`read_situated_trials` needs
#: (``results/judgments/<study>.tsv`` has more; see the module docstring).
TRIALS_NEEDED = (
    "subject",
    "instance",
    "class",
    "target",
    "cant_tell",
    "session_status",
)

#: Boolean columns of ``results/judgments/<study>.tsv`` (``true``/``false``; an
#: empty ``correct`` is derived from ``chosen`` and ``target``).
_BOOLEAN_COLUMNS = ("correct", "cant_tell", "corrected", "simulated")
_NUMERIC_COLUMNS = ("time_ms", "replays")


def read_situated_trials(path: str | Path) -> pd.DataFrame:
    """The trials of a situated study as the merge stage wrote them, typed.

    Parameters
    ----------
    path : str or Path
        ``results/judgments/<study>.tsv`` (one row per trial kept, columns
        ``subject, list, order, instance, class, shown, expression, target,
        chosen, correct, cant_tell, time_ms, replays, corrected, session_status,
        simulated``).

    Returns
    -------
    pandas.DataFrame
        The same rows: ``correct``, ``cant_tell``, ``corrected`` and
        ``simulated`` as booleans (``correct`` None where empty: derived later),
        ``time_ms`` and ``replays`` as floats (NaN where empty), ``chosen`` None
        where empty ("I don't know"), the other columns as strings.

    Raises
    ------
    JudgmentsError
        A required column is missing, or a cell is not ``true``/``false`` or a
        number where one is expected (file, line and column named).

    Examples
    --------
    >>> import tempfile
    >>> from stecflow.core.io import write_tsv
    >>> path = Path(tempfile.mkdtemp()) / "situated.tsv"
    >>> write_tsv([{"subject": "e1", "instance": "i1", "class": "TP",
    ...             "target": "p1", "chosen": "", "cant_tell": True,
    ...             "time_ms": 1200.5, "corrected": False,
    ...             "session_status": "completed"}],
    ...           ["subject", "instance", "class", "target", "chosen",
    ...            "cant_tell", "time_ms", "corrected", "session_status"], path)
    >>> row = read_situated_trials(path).iloc[0]
    >>> row["chosen"], bool(row["cant_tell"]), float(row["time_ms"])
    (None, True, 1200.5)
    """
    import math

    import pandas as pd

    from stecflow.core.io import read_tsv
    from stecflow.judgments._common import JudgmentsError

    path = Path(path)
    rows = read_tsv(path)
    with open(path, encoding="utf-8") as handle:
        header = handle.readline().rstrip("\n").split("\t")
    missing = [c for c in TRIALS_NEEDED if c not in header]
    if missing:
        raise JudgmentsError(
            f"the trials table lacks the column(s) {', '.join(missing)}; expected"
            f" at least {', '.join(TRIALS_NEEDED)}",
            file=str(path),
            line=1,
            field=missing[0],
        )
    out: list[dict[str, Any]] = []
    for number, row in enumerate(rows, start=2):
        typed: dict[str, Any] = dict(row)
        for column in _BOOLEAN_COLUMNS:
            if column not in row:
                continue
            text = row[column]
            if text in ("true", "false"):
                typed[column] = text == "true"
            elif text == "":
                typed[column] = None
            else:
                raise JudgmentsError(
                    f"{text!r} is not a boolean; expected true, false or empty",
                    file=str(path),
                    line=number,
                    field=column,
                )
        for column in _NUMERIC_COLUMNS:
            if column not in row:
                continue
            text = row[column]
            try:
                typed[column] = float(text) if text != "" else math.nan
            except ValueError:
                raise JudgmentsError(
                    f"{text!r} is not a number; expected one (or empty)",
                    file=str(path),
                    line=number,
                    field=column,
                ) from None
        if "chosen" in row and row["chosen"] == "":
            typed["chosen"] = None
        out.append(typed)
    return pd.DataFrame(out, columns=header)


def run_situated_ttests(
    spec: Mapping[str, Any],
    judgments_path: str | Path,
    *,
    alpha: float = 0.05,
    digits: int = 2,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The ``situated_ttests`` analysis of one situated study.

    Parameters
    ----------
    spec : mapping
        The analysis (:func:`stecflow.analysis.specs.analysis_specs`):
        ``source`` the study; optional ``comparisons`` (``[[class_a, class_b,
        measure], ...]``, default :data:`SEED_COMPARISONS`) and ``alternative``.
    judgments_path : str or Path
        ``results/judgments/<study>.tsv`` (:func:`read_situated_trials`). The
        trials are those the merge stage kept: evaluators whose session failed
        were discarded there (``judgments/quality``), so every row enters.
    alpha : float
        ``statistics.alpha``; intervals are at 1 - alpha.
    digits : int
        ``statistics.digits``: decimals of t in the texts.

    Returns
    -------
    (pandas.DataFrame, dict)
        The tests (:data:`SITUATED_TEST_COLUMNS`; no row when the study has no
        trial yet) and the record entries: ``text`` (``about``/``text``),
        ``rows`` (the table as records), ``simulated`` (any trial simulated),
        ``comparisons``, ``n_trials``, ``n_evaluators``.
    """
    import pandas as pd

    from stecflow.judgments._common import plain

    comparisons = [tuple(c) for c in spec.get("comparisons") or SEED_COMPARISONS]
    trials = read_situated_trials(judgments_path)
    simulated = bool(
        "simulated" in trials and trials["simulated"].fillna(False).astype(bool).any()
    )
    if trials.empty:  # built, not yet run: awaiting responses
        frame = pd.DataFrame(columns=list(SITUATED_TEST_COLUMNS))
        texts: list[dict[str, str]] = []
    else:
        statuses = sorted({str(s) for s in trials["session_status"]})
        frame, texts = situated_ttests(
            trials,
            comparisons=comparisons,  # type: ignore[arg-type]
            complete=statuses or ("completed",),
            alternative=spec.get("alternative", "two-sided"),
            confidence=1 - alpha,
            digits=digits,
        )
    extra = {
        "text": texts,
        "rows": [
            {k: plain(v) for k, v in row.items()}
            for row in frame.to_dict(orient="records")
        ],
        "simulated": simulated,
        "comparisons": [list(c) for c in comparisons],
        "n_trials": len(trials),
        "n_evaluators": int(trials["subject"].nunique()) if len(trials) else 0,
    }
    return frame, extra


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

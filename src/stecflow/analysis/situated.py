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

May import: :mod:`stecflow.core`, :mod:`stecflow.stats`, :mod:`stecflow.judgments`
(``situated``), :mod:`stecflow.analysis` (``formatting``), pandas (inside
functions).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["MEASURES", "SEED_COMPARISONS", "SITUATED_TEST_COLUMNS", "situated_ttests"]

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

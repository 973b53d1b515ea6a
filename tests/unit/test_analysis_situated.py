"""Seed 000's paired t-tests over evaluators (analysis.situated).

The synthetic study has the seed's shape: 34 evaluators kept (one more whose
session failed is discarded), each with 20 TP and 20 FN trials and 8 FP trials in
each form. Every evaluator identifies all TP targets; half identify 14 of the 20 FN
targets (IR .70), half 16 (IR .80). So the paired differences are .30 and .20:
mean .25, SD .05 * sqrt(34/33), and t = .25 / (SD / sqrt(34)) = 5 * sqrt(33)
= 28.7228 with 33 df.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from stecflow.analysis.situated import (
    SEED_COMPARISONS,
    SITUATED_TEST_COLUMNS,
    situated_ttests,
)
from stecflow.judgments import JudgmentsError
from stecflow.judgments.situated import evaluator_table
from stecflow.stats.ttests import paired_ttest


def synthetic_trials() -> pd.DataFrame:
    rows = []
    for k in range(35):
        subject = f"e{k:02d}"
        status = "abandoned" if k == 34 else "completed"
        fn_correct = 14 if k % 2 == 0 else 16
        plan = [("TP", 20, 20), ("FN", 20, fn_correct)]
        plan += [("FP-Orig", 8, 8 - k % 3), ("FP-system", 8, 7 - k % 2)]
        for cls, n, n_correct in plan:
            for i in range(n):
                correct = i < n_correct
                base = {"TP": 2000, "FN": 2600, "FP-Orig": 2400, "FP-system": 2500}
                rows.append(
                    {
                        "subject": subject,
                        "instance": f"{cls}-{i:02d}",
                        "class": cls,
                        "target": "p1",
                        "chosen": "p1" if correct else "p2",
                        "cant_tell": False,
                        # Evaluator speed varies; FN is slower by 600 + 20 k ms.
                        "time_ms": base[cls]
                        + 50 * k
                        + (20 * k if cls == "FN" else 0)
                        + (13 * (k % 4) if cls == "FP-system" else 0)
                        # A corrected trial with a huge time, excluded from IT.
                        + (90_000 if (cls == "TP" and i == 0) else 0)
                        + 7 * i,
                        "replays": i % 3,
                        "corrected": cls == "TP" and i == 0,
                        "session_status": status,
                    }
                )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def trials() -> pd.DataFrame:
    return synthetic_trials()


def test_hand_computed_tp_fn_identification_rate(trials):
    rows, texts = situated_ttests(trials)
    assert tuple(rows.columns) == SITUATED_TEST_COLUMNS
    first = rows.iloc[0]
    assert (first["level_a"], first["level_b"], first["measure"]) == ("TP", "FN", "ir")
    assert first["n"] == 34 and first["df"] == 33
    assert first["mean_a"] == pytest.approx(1.0)
    assert first["mean_b"] == pytest.approx(0.75)
    assert first["t"] == pytest.approx(5 * math.sqrt(33))
    assert first["text"] == "t(33) = 28.72, p < .001"
    assert texts[0] == {
        "about": "TP vs FN: identification rate",
        "text": "t(33) = 28.72, p < .001",
    }


def test_identification_time_excludes_corrected_trials_and_is_signed(trials):
    rows, _ = situated_ttests(trials, comparisons=[("TP", "FN", "it_mean_ms")])
    row = rows.iloc[0]
    # TP: 19 uncorrected trials, i = 1..19, mean 7 * 10 = 70 ms above the base.
    tp = [2000 + 50 * k + 70 for k in range(34)]
    fn = [2600 + 70 * k + 7 * 9.5 for k in range(34)]
    assert row["mean_a"] == pytest.approx(sum(tp) / 34)
    assert row["mean_b"] == pytest.approx(sum(fn) / 34)
    assert row["t"] < 0 and row["text"].startswith("t(33) = -")


def test_every_seed_comparison_equals_paired_ttest_on_the_evaluator_table(trials):
    rows, texts = situated_ttests(trials)
    kept = trials[trials["session_status"] == "completed"]
    evaluators = evaluator_table(kept)
    assert [tuple(r) for r in rows[["level_a", "level_b", "measure"]].values] == list(
        SEED_COMPARISONS
    )
    for (a, b, measure), (_, row) in zip(
        SEED_COMPARISONS, rows.iterrows(), strict=True
    ):
        expected = paired_ttest(evaluators, measure, "class", "subject", a=a, b=b)
        expected = expected.iloc[0]
        for column in ("mean_a", "mean_b", "delta", "t", "p_val", "ci_low", "dz"):
            assert row[column] == pytest.approx(expected[column]), (a, b, column)
        assert row["df"] == expected["df"] == 33
        t_text = f"{expected['t']:.2f}"
        assert row["text"].startswith(f"t(33) = {t_text}, p ")
    assert len(texts) == 4


def test_failed_sessions_kept_when_complete_says_so(trials):
    rows, _ = situated_ttests(
        trials,
        comparisons=[("TP", "FN", "ir")],
        complete=("completed", "abandoned"),
    )
    assert rows.iloc[0]["n"] == 35 and rows.iloc[0]["df"] == 34


def test_not_computable_and_errors(trials):
    same = trials.assign(time_ms=1000.0)
    rows, texts = situated_ttests(same, comparisons=[("TP", "FN", "it_mean_ms")])
    assert not rows.iloc[0]["computable"]
    assert rows.iloc[0]["text"].startswith("not computable (")
    assert texts == []
    with pytest.raises(JudgmentsError, match="not one of"):
        situated_ttests(trials, comparisons=[("TP", "FN", "speed")])

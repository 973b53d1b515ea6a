"""Seed 000's measures of the situated identification study (Tables 7-9)."""

from __future__ import annotations

import math
import statistics

import pandas as pd
import pytest

from stecflow.judgments import JudgmentsError
from stecflow.judgments.measures import item_identification
from stecflow.metrics.classification import ConfusionMatrix, rescore_false_positives
from stecflow.studykinds.situated_identification.measures import (
    DISCARD_COLUMNS,
    IDENTIFICATION_COLUMNS,
    INSTANCE_COLUMNS,
    REPLAY_COLUMNS,
    TIME_COLUMNS,
    discard_failed_sessions,
    evaluator_table,
    identification_table,
    instance_table,
    replay_table,
    situated_measures,
    time_table,
)

DK = "dk"  # "I don't know"


def table(rows, status="completed"):
    """Rows of (subject, instance, class, target, answer, time_ms, replays[, corr])."""
    out = []
    for row in rows:
        subject, instance, cls, target, answer, time_ms, replays, *rest = row
        out.append(
            {
                "subject": subject,
                "instance": instance,
                "class": cls,
                "target": target,
                "chosen": None if answer == DK else answer,
                "cant_tell": answer == DK,
                "time_ms": time_ms,
                "replays": replays,
                "corrected": bool(rest and rest[0]),
                "session_status": status,
            }
        )
    return pd.DataFrame(out)


# --------------------------------------------------------------------------------
# Small hand-computed tables


def five_evaluators(answers, cls="TP", target="3"):
    return table(
        [(f"s{i}", "i1", cls, target, a, 1000.0, 0) for i, a in enumerate(answers)]
    )


def test_strict_majority_is_more_than_half_and_plurality_the_unique_mode():
    two_of_five = five_evaluators(["3", "3", "1", "2", DK])
    strict = instance_table(two_of_five).iloc[0]
    assert (strict["n_correct"], strict["n_responses"]) == (2, 5)
    assert strict["n_cant_tell"] == 1
    assert strict["ir"] == pytest.approx(0.4)
    assert not strict["majority_identified"]
    assert math.isnan(strict["agreement"])
    plural = instance_table(two_of_five, majority="plurality").iloc[0]
    assert plural["majority_identified"]
    assert plural["agreement"] == pytest.approx(0.4)
    tied = five_evaluators(["3", "3", "1", "1", DK])
    assert not instance_table(tied, majority="plurality").iloc[0]["majority_identified"]
    # three "I don't know" outvote two correct answers under plurality
    dont_know = five_evaluators(["3", "3", DK, DK, DK])
    assert not instance_table(dont_know, majority="plurality").iloc[0][
        "majority_identified"
    ]
    # exactly half is not a majority ("more than half")
    half = five_evaluators(["3", "3", "1", "2"])
    assert not instance_table(half).iloc[0]["majority_identified"]
    three = five_evaluators(["3", "3", "3", "1", DK])
    row = instance_table(three).iloc[0]
    assert row["majority_identified"]
    assert row["agreement"] == pytest.approx(0.6)


def test_agreement_differs_from_the_reg_studies_agreement():
    # two wrong answers agree on piece 1: measures.py's agreement is the modal
    # share 0.4 (of a wrong answer); the seed's is undefined (majority wrong)
    data = five_evaluators(["3", "1", "1", "2", DK])
    reg = item_identification(
        data.assign(item=data["instance"], choice=data["chosen"].fillna("dk")),
        gold="target",
        by=("class",),
    )
    assert reg.iloc[0]["agreement"] == pytest.approx(0.4)
    assert math.isnan(instance_table(data).iloc[0]["agreement"])
    # majority correct with 4 of 5: both 0.8 here, but the seed's counts only
    # the correct target
    data = five_evaluators(["3", "3", "3", "3", "1"])
    assert instance_table(data).iloc[0]["agreement"] == pytest.approx(0.8)


def test_correct_comes_from_the_column_or_from_chosen_and_target():
    data = five_evaluators(["3", "3", "1", "1", DK])
    derived = instance_table(data.drop(columns="correct", errors="ignore"))
    assert derived.iloc[0]["n_correct"] == 2
    # an explicit column wins (e.g. after a correction), but "I don't know" is
    # never correct; a missing value falls back on chosen == target
    data = five_evaluators(["3", "3", "1", "3", DK])
    explicit = data.assign(correct=[True, False, True, None, True])
    # s0 True, s1 False (column), s2 True (column), s3 chosen == target, s4 DK
    assert instance_table(explicit).iloc[0]["n_correct"] == 3


def test_input_errors_say_what_is_wrong():
    data = five_evaluators(["3", "3", "1", "1", DK])
    with pytest.raises(JudgmentsError, match="unknown instance class.*FP-DP"):
        instance_table(data.assign(**{"class": "FP-DP"}))
    with pytest.raises(
        JudgmentsError, match=r"s0 answered instance i1 \(TP\) more than once"
    ):
        instance_table(pd.concat([data, data.iloc[:1]]))
    with pytest.raises(JudgmentsError, match="several targets"):
        instance_table(data.assign(target=["3", "3", "3", "4", "3"]))
    with pytest.raises(JudgmentsError, match="lacks the column.*target"):
        instance_table(data.drop(columns="target"))
    with pytest.raises(JudgmentsError, match="majority"):
        instance_table(data, majority="mode")
    with pytest.raises(JudgmentsError, match="scopes"):
        time_table(data, scopes=["wrong"])


def test_custom_class_labels():
    data = five_evaluators(["3", "3", "3", "1", DK], cls="FP-DP")
    out = identification_table(data, classes=("TP", "FN", "FP-Orig", "FP-DP"))
    assert out["class"].tolist() == ["FP-DP"]
    assert out.iloc[0]["mir"] == 1.0


def test_discarded_evaluators_are_listed_with_the_reason():
    rows = table([("a", "i1", "TP", "1", "1", 1.0, 0)])
    rows = pd.concat(
        [
            rows,
            table([("b", "i1", "TP", "1", "1", 1.0, 0)], status="aborted"),
            table([("c", "i1", "TP", "1", "1", 1.0, 0)], status=None),
        ]
    )
    kept, discarded = discard_failed_sessions(rows)
    assert kept["subject"].tolist() == ["a"]
    assert list(discarded.columns) == list(DISCARD_COLUMNS)
    assert discarded[["subject", "reason"]].values.tolist() == [
        ["b", "session aborted"],
        ["c", "session status unknown"],
    ]
    kept, discarded = discard_failed_sessions(
        rows, complete=("completed", "aborted"), expected_trials=1
    )
    assert kept["subject"].tolist() == ["a", "b"]


# --------------------------------------------------------------------------------
# Tables 7-9 on a synthetic study whose every number is checked by hand.
#
# Six evaluators in two groups (A: s1-s3, B: s4-s6), as in the seed's design:
# TP t1, t2 and FN n1, n2 seen by all; FP f1, f2 seen by A as f1-Orig + f2-system
# and by B as f1-system + f2-Orig. s7 (group A) abandoned after two trials and s8
# completed only one: both are discarded. "7" is a wrong piece.

STUDY = [
    # TP: t1 all correct (s2's answer was a declared mis-click, corrected; its
    # time is excluded from IT); t2 5 of 6
    ("s1", "t1", "TP", "1", "1", 1000.0, 0),
    ("s2", "t1", "TP", "1", "1", 9000.0, 0, True),
    ("s3", "t1", "TP", "1", "1", 1000.0, 0),
    ("s4", "t1", "TP", "1", "1", 1000.0, 0),
    ("s5", "t1", "TP", "1", "1", 1000.0, 0),
    ("s6", "t1", "TP", "1", "1", 1000.0, 0),
    ("s1", "t2", "TP", "2", "2", 2000.0, 1),
    ("s2", "t2", "TP", "2", "2", 2000.0, 0),
    ("s3", "t2", "TP", "2", "2", 2000.0, 0),
    ("s4", "t2", "TP", "2", "2", 2000.0, 0),
    ("s5", "t2", "TP", "2", "7", 5000.0, 2),
    ("s6", "t2", "TP", "2", "2", 2000.0, 0),
    # FN: n1 4 of 6 (one wrong, one "I don't know"); n2 2 of 6 (no majority)
    ("s1", "n1", "FN", "3", "3", 3000.0, 1),
    ("s2", "n1", "FN", "3", "3", 3000.0, 1),
    ("s3", "n1", "FN", "3", "7", 4000.0, 2),
    ("s4", "n1", "FN", "3", DK, 6000.0, 3),
    ("s5", "n1", "FN", "3", "3", 3000.0, 1),
    ("s6", "n1", "FN", "3", "3", 3000.0, 1),
    ("s1", "n2", "FN", "4", "4", 3000.0, 1),
    ("s2", "n2", "FN", "4", "7", 4000.0, 2),
    ("s3", "n2", "FN", "4", "7", 4000.0, 2),
    ("s4", "n2", "FN", "4", DK, 6000.0, 3),
    ("s5", "n2", "FN", "4", "7", 4000.0, 2),
    ("s6", "n2", "FN", "4", "4", 3000.0, 1),
    # FP-Orig: f1 (group A) 3 of 3; f2 (group B) 1 of 3
    ("s1", "f1", "FP-Orig", "5", "5", 1500.0, 0),
    ("s2", "f1", "FP-Orig", "5", "5", 1500.0, 0),
    ("s3", "f1", "FP-Orig", "5", "5", 1500.0, 0),
    ("s4", "f2", "FP-Orig", "6", "6", 2500.0, 1),
    ("s5", "f2", "FP-Orig", "6", "7", 3500.0, 1),
    ("s6", "f2", "FP-Orig", "6", DK, 4500.0, 2),
    # FP-system: f1 (group B) 2 of 3; f2 (group A) 3 of 3, s2's corrected
    ("s4", "f1", "FP-system", "5", "5", 2000.0, 2),
    ("s5", "f1", "FP-system", "5", "5", 2000.0, 2),
    ("s6", "f1", "FP-system", "5", "7", 5000.0, 3),
    ("s1", "f2", "FP-system", "6", "6", 2000.0, 1),
    ("s2", "f2", "FP-system", "6", "6", 8000.0, 1, True),
    ("s3", "f2", "FP-system", "6", "6", 2000.0, 1),
]
GONE = [
    ("s7", "t1", "TP", "1", "7", 500.0, 5),
    ("s7", "f1", "FP-Orig", "5", DK, 700.0, 0),
]
PARTIAL = [("s8", "t1", "TP", "1", "1", 100.0, 0)]


@pytest.fixture(scope="module")
def study():
    trials = pd.concat(
        [table(STUDY), table(GONE, status="abandoned"), table(PARTIAL)],
        ignore_index=True,
    )
    return situated_measures(trials, expected_trials=6)


def test_synthetic_study_discards_the_failed_sessions(study):
    assert study.discarded.to_dict("records") == [
        {
            "subject": "s7",
            "session_status": "abandoned",
            "n_trials": 2,
            "reason": "session abandoned; answered 2 of 6 trials",
        },
        {
            "subject": "s8",
            "session_status": "completed",
            "n_trials": 1,
            "reason": "answered 1 of 6 trials",
        },
    ]
    assert sorted(study.evaluators["subject"].unique()) == [
        f"s{i}" for i in range(1, 7)
    ]


def test_synthetic_table_7(study):
    t7 = study.identification.set_index("class")
    assert list(study.identification.columns) == list(IDENTIFICATION_COLUMNS)
    assert t7.index.tolist() == ["TP", "FN", "FP-Orig", "FP-system"]
    counts = ["n_evaluators", "n_responses", "n_correct", "n_cant_tell"]
    counts += ["n_instances", "n_majority", "agreement_n"]
    assert t7[counts].values.tolist() == [
        [6, 12, 11, 0, 2, 2, 2],  # TP: 6 + 5 correct
        [6, 12, 6, 2, 2, 1, 1],  # FN: 4 + 2 correct, n2 has no majority
        [6, 6, 4, 1, 2, 1, 1],  # FP-Orig: 3 + 1, f2 has no majority
        [6, 6, 5, 0, 2, 2, 2],  # FP-system: 2 + 3
    ]
    assert t7["ir"].tolist() == pytest.approx([11 / 12, 6 / 12, 4 / 6, 5 / 6])
    assert t7["mir"].tolist() == pytest.approx([1.0, 0.5, 0.5, 1.0])
    # agreement over majority-correct instances: TP (6/6, 5/6), FN (4/6),
    # FP-Orig (3/3), FP-system (2/3, 3/3); SD of two values a, b is |a - b|/√2
    assert t7["agreement_mean"].tolist() == pytest.approx([11 / 12, 4 / 6, 1.0, 5 / 6])
    assert t7.loc["TP", "agreement_sd"] == pytest.approx((1 / 6) / math.sqrt(2))
    assert t7.loc["FP-system", "agreement_sd"] == pytest.approx((1 / 3) / math.sqrt(2))
    assert math.isnan(t7.loc["FN", "agreement_sd"])  # one instance
    assert math.isnan(t7.loc["FP-Orig", "agreement_sd"])


def test_synthetic_table_8(study):
    t8 = study.times.set_index(["class", "scope"])
    assert list(study.times.columns) == list(TIME_COLUMNS)
    tp_all = [1000.0] * 5 + [2000.0] * 5 + [5000.0]  # s2's corrected 9000 out
    assert t8.loc[("TP", "all"), "it_n"] == 11
    assert t8.loc[("TP", "all"), "n_corrected_excluded"] == 1
    assert t8.loc[("TP", "all"), "it_mean_ms"] == pytest.approx(20000 / 11)
    assert t8.loc[("TP", "all"), "it_sd_ms"] == pytest.approx(statistics.stdev(tp_all))
    assert t8.loc[("TP", "correct"), "it_mean_ms"] == pytest.approx(1500.0)
    assert t8.loc[("TP", "correct"), "it_sd_ms"] == pytest.approx(
        math.sqrt(10 * 500.0**2 / 9)
    )
    assert t8.loc[("FN", "all"), "it_mean_ms"] == pytest.approx(46000 / 12)
    assert t8.loc[("FN", "correct"), ["it_n", "it_mean_ms", "it_sd_ms"]].tolist() == [
        6,
        3000.0,
        0.0,
    ]
    assert t8.loc[("FP-Orig", "all"), "it_mean_ms"] == pytest.approx(2500.0)
    assert t8.loc[("FP-Orig", "correct"), "it_mean_ms"] == pytest.approx(1750.0)
    assert t8.loc[("FP-system", "all"), ["it_n", "n_corrected_excluded"]].tolist() == [
        5,
        1,
    ]
    assert t8.loc[("FP-system", "all"), "it_mean_ms"] == pytest.approx(2600.0)
    assert t8.loc[("FP-system", "correct"), "it_mean_ms"] == pytest.approx(2000.0)


def test_synthetic_table_9(study):
    t9 = study.replays.set_index(["class", "scope"])
    assert list(study.replays.columns) == list(REPLAY_COLUMNS)
    cells = ["n_trials", "n_replayed", "replays_total"]
    assert t9[cells].values.tolist() == [
        [12, 2, 3.0],  # TP all: s1 t2 once, s5 t2 twice
        [11, 1, 1.0],  # TP correct
        [12, 12, 20.0],  # FN all: 6×1 + 4×2 + 2×3
        [6, 6, 6.0],  # FN correct
        [6, 3, 4.0],  # FP-Orig all
        [4, 1, 1.0],  # FP-Orig correct
        [6, 6, 10.0],  # FP-system all (corrected trials kept)
        [5, 5, 7.0],  # FP-system correct
    ]
    assert t9.loc[("TP", "all"), "replays_mean"] == pytest.approx(0.25)
    assert t9.loc[("FN", "all"), "replays_mean"] == pytest.approx(20 / 12)
    assert t9.loc[("FN", "correct"), "replays_sd"] == 0.0
    assert t9.loc[("FP-system", "all"), "replays_sd"] == pytest.approx(
        statistics.stdev([2, 2, 3, 1, 1, 1])
    )


def test_synthetic_instances_and_rescoring_counts(study):
    inst = study.instances
    assert list(inst.columns) == list(INSTANCE_COLUMNS)
    fp_system = inst[inst["class"] == "FP-system"]
    assert fp_system[["instance", "n_correct", "n_responses"]].values.tolist() == [
        ["f1", 2, 3],
        ["f2", 3, 3],
    ]
    assert study.fp_rescoring_counts() == (2, 2)
    assert study.fp_rescoring_counts("FP-Orig") == (2, 1)
    tested, identified = study.fp_rescoring_counts()
    rescored = rescore_false_positives(
        ConfusionMatrix(tp=6, fp=4, fn=2, tn=8), tested=tested, identified=identified
    )
    assert rescored.precision == pytest.approx(0.8)


def test_synthetic_per_evaluator_table(study):
    ev = study.evaluators.set_index(["subject", "class"])
    # s2: TP t1 (corrected, time out) and t2; FN n1 correct, n2 wrong
    assert ev.loc[("s2", "TP"), ["n_correct", "it_n", "it_mean_ms"]].tolist() == [
        2,
        1,
        2000.0,
    ]
    assert ev.loc[("s2", "FN"), "ir"] == 0.5
    assert ev.loc[("s4", "FN"), "replays_mean"] == 3.0
    assert len(evaluator_table(table(STUDY))) == 6 * 4


def test_tables_from_the_single_functions_match(study):
    trials = table(STUDY)
    pd.testing.assert_frame_equal(identification_table(trials), study.identification)
    pd.testing.assert_frame_equal(time_table(trials), study.times)
    pd.testing.assert_frame_equal(replay_table(trials), study.replays)

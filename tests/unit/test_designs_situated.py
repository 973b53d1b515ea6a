"""Seed 000's extrinsic study design (section 5.1) built from an instance table.

The synthetic instance table has the seed's proportions where the seed states them:
1,242 expressions (section 4.1); 133 FP instances of which 36 qualify and are all
tested, 15 of them "the parallelogram" (sections 5.1 and 5.4); TP = 263 and FN = 62
(TN = 784), the only confusion matrix with FP = 133 that gives the seed's
P = .664 and F = .730 (Table 4). Table 6 (qualifying TP and FN) and the corpus's
O1/O2 distribution are not in the text: we assume 150 qualifying TP and 45
qualifying FN ("much larger than 20") and the O1/O2 counts of ``CORPUS_O1_O2``.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from stecflow.studies.designs import DesignError, balance_problems, check_balance
from stecflow.studies.designs.seeding import _rng  # the documented seeding rule
from stecflow.studykinds.situated_identification.design import (
    CONDITIONS,
    SITUATED_TRIAL_COLUMNS,
    SituatedDesign,
    largest_remainder,
    qualify_instances,
    situated_design,
)

COMBOS = ("O1=1|O2=1", "O1=1|O2=0", "O1=0|O2=1", "O1=0|O2=0")
#: Whole-corpus O1/O2 counts (assumed), summing to the seed's 1,242 expressions.
CORPUS_O1_O2 = {"O1=1|O2=1": 311, "O1=1|O2=0": 187, "O1=0|O2=1": 248, "O1=0|O2=0": 496}
#: Per class: qualifying and non-qualifying instances per O1/O2 stratum, in COMBOS
#: order. Class totals: TP 263, FP 133, FN 62, TN 784.
COUNTS = {
    "TP": ((60, 30, 25, 35), (40, 20, 23, 30)),
    "FP": ((10, 8, 8, 10), (30, 20, 22, 25)),
    "FN": ((8, 10, 12, 15), (2, 4, 4, 7)),
    "TN": ((80, 45, 70, 180), (81, 50, 84, 194)),
}
#: Largest remainder of 20 over CORPUS_O1_O2: quotas 5.008, 3.011, 3.994, 7.987,
#: floors 5, 3, 3, 7 and the two seats left to the remainders .994 and .987.
IDEAL_20 = {"O1=0|O2=0": 8, "O1=0|O2=1": 4, "O1=1|O2=0": 3, "O1=1|O2=1": 5}
REASONS = (
    ("no_mention", "no earlier mention of the target"),
    ("action_before", "last action at 500 ms is outside the context 1000-15000 ms"),
    ("too_long", "context of 31000 ms exceeds the maximum of 30000 ms"),
)


def seed_table(short_fn_o1o2: int | None = None) -> pd.DataFrame:
    """The synthetic instance table; optionally only *short_fn_o1o2* FN qualify in
    stratum O1=1|O2=1 (the others lose their last mention)."""
    rows = []
    parallelograms = 0
    for cls, (qualifying, other) in COUNTS.items():
        k = 0
        for index, combo in enumerate(COMBOS):
            o1, o2 = (int(part[-1]) for part in combo.split("|"))
            for position in range(qualifying[index] + other[index]):
                k += 1
                qualifies = position < qualifying[index]
                row = {
                    "instance": f"{cls.lower()}{k:03d}",
                    "session": f"s{k % 24 + 1:02d}",
                    "class": cls,
                    "target": f"p{k % 7 + 1}",
                    "context_start_ms": 1000.0,
                    "utterance_start_ms": 15000.0,
                    "last_mention_ms": 3000.0,
                    "last_action_ms": 6000.0,
                    "O1": o1,
                    "O2": o2,
                    "named": "other",
                    "original_expression": "ano sankakkei",
                    "system_expression": "sore" if cls in ("TP", "FP") else "",
                }
                if cls == "FP" and qualifies and parallelograms < 15:
                    parallelograms += 1
                    row["named"] = "parallelogram"
                    row["original_expression"] = "heikousihenkei"
                if (
                    short_fn_o1o2 is not None
                    and cls == "FN"
                    and combo == "O1=1|O2=1"
                    and short_fn_o1o2 <= position < qualifying[index]
                ):
                    qualifies = False
                if not qualifies:
                    kind = REASONS[position % 3][0]
                    if kind == "no_mention":
                        row["last_mention_ms"] = math.nan
                    elif kind == "action_before":
                        row["last_action_ms"] = 500.0
                    else:
                        row["context_start_ms"] = -16000.0
                rows.append(row)
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return seed_table()


@pytest.fixture(scope="module")
def rexj(table) -> SituatedDesign:
    return situated_design(
        table, subjects=36, seed=2010, halves_by="named", study="rexj"
    )


# ------------------------------------------------------------------ qualification


def test_synthetic_table_has_the_seed_proportions(table):
    assert len(table) == 1242
    assert table["class"].value_counts().to_dict() == {
        "TN": 784,
        "TP": 263,
        "FP": 133,
        "FN": 62,
    }
    tp, fp, fn = 263, 133, 62
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    f = 2 * precision * recall / (precision + recall)
    assert (round(precision, 3), round(f, 3)) == (0.664, 0.730)


def test_qualifying_counts_per_class(table):
    q = qualify_instances(table)
    assert q.groupby("class")["qualifies"].sum().to_dict() == {
        "FN": 45,
        "FP": 36,
        "TN": 375,
        "TP": 150,
    }
    # FP: 97 non-qualifying, reasons rotating over the three kinds per stratum
    fp = q[(q["class"] == "FP") & ~q["qualifies"]]
    assert len(fp) == 97
    assert set(fp["reason"]) == {text for _, text in REASONS}
    assert q["instance"].is_monotonic_increasing
    assert q.loc[q["qualifies"], "reason"].eq("").all()
    assert q.loc[q["instance"] == "fp001", "context_ms"].item() == 14000.0


def test_qualification_boundaries():
    table = pd.DataFrame(
        {
            "instance": ["a", "b", "c", "d", "e", "f"],
            "session": "s1",
            "class": ["TP", "FP", "FN", "TN", "TP", "FP"],
            "target": "p1",
            "context_start_ms": [0, 0, 0, 0, 0, None],
            "utterance_start_ms": [30000, 30001, 10000, 10000, 10000, 10000],
            # mention exactly at the context start is inside; at the onset is not
            "last_mention_ms": [0, 100, 10000, 100, 100, 100],
            "last_action_ms": [29999, 100, 100, None, 100, 100],
        }
    )
    q = qualify_instances(table).set_index("instance")
    assert q["qualifies"].to_dict() == {
        "a": True,
        "b": False,
        "c": False,
        "d": False,
        "e": True,
        "f": False,
    }
    assert q.at["b", "reason"] == "context of 30001 ms exceeds the maximum of 30000 ms"
    assert q.at["c", "reason"] == (
        "last mention at 10000 ms is outside the context 0-10000 ms"
    )
    assert q.at["d", "reason"] == "no earlier action on the target"
    assert q.at["f", "reason"] == "no context start"
    # a longer maximum admits b
    assert (
        qualify_instances(table, max_context_ms=30001)
        .set_index("instance")
        .at["b", "qualifies"]
    )


def test_only_the_solvers_expressions_when_asked(table):
    said = table.assign(
        speaker=[
            "operator" if i in ("fp001", "tp001") else "solver"
            for i in table["instance"]
        ]
    )
    q = qualify_instances(said, speaker="solver").set_index("instance")
    assert q.at["fp001", "reason"] == "spoken by operator, not the solver"
    assert q.groupby("class")["qualifies"].sum().to_dict() == {
        "FN": 45,
        "FP": 35,
        "TN": 375,
        "TP": 149,
    }
    design = situated_design(said, subjects=2, seed=1, speaker="solver")
    assert "fp001" not in design.items
    assert design.settings()["trials_per_participant"] == 75
    with pytest.raises(DesignError, match="missing column.*speaker"):
        qualify_instances(table, speaker="solver")


def test_qualification_errors(table):
    with pytest.raises(DesignError, match="missing column.*last_action_ms"):
        qualify_instances(table.drop(columns=["last_action_ms"]))
    with pytest.raises(
        DesignError, match="class must be one of TP, FP, FN, TN, got XX"
    ):
        qualify_instances(table.assign(**{"class": ["XX"] * len(table)}))
    with pytest.raises(DesignError, match="duplicate IDs fp001"):
        qualify_instances(pd.concat([table, table[table["instance"] == "fp001"]]))
    with pytest.raises(DesignError, match="max_context_ms: must be a positive"):
        qualify_instances(table, max_context_ms=0)


# ------------------------------------------------------------------ allocation


def test_largest_remainder_hand_cases():
    assert largest_remainder(CORPUS_O1_O2, 20) == IDEAL_20
    # equal fractions (2/4 each): the larger weight wins, then the key sorting first
    assert largest_remainder({"a": 1, "b": 3}, 2) == {"a": 0, "b": 2}
    assert largest_remainder({"b": 1, "a": 1, "c": 1}, 2) == {"a": 1, "b": 1, "c": 0}
    assert largest_remainder({"a": 0, "b": 5}, 3) == {"a": 0, "b": 3}
    assert largest_remainder({"a": 2, "b": 2}, 0) == {"a": 0, "b": 0}
    # a short stratum keeps its capacity; its 3 missing seats go over b, c, d by
    # weight 187 : 248 : 496 (quotas .603, .799, 1.598 -> 0 + 1, 0 + 1, 1 + 1)
    capped = largest_remainder(
        CORPUS_O1_O2,
        20,
        {"O1=1|O2=1": 2, "O1=1|O2=0": 10, "O1=0|O2=1": 12, "O1=0|O2=0": 15},
    )
    assert capped == {"O1=0|O2=0": 9, "O1=0|O2=1": 5, "O1=1|O2=0": 4, "O1=1|O2=1": 2}
    # capacities that bind twice: a gets 1, then b fills to 2, c takes the rest
    assert largest_remainder({"a": 6, "b": 3, "c": 1}, 6, {"a": 1, "b": 2, "c": 9}) == {
        "a": 1,
        "b": 2,
        "c": 3,
    }
    with pytest.raises(
        DesignError, match="7 draws requested but the strata can give only 6"
    ):
        largest_remainder({"a": 1, "b": 1}, 7, {"a": 3, "b": 3})
    with pytest.raises(DesignError, match="weight of a must be a non-negative"):
        largest_remainder({"a": -1}, 1)


def test_tp_and_fn_keep_the_corpus_distribution(rexj, table):
    allocation = rexj.allocation
    assert set(allocation["class"]) == {"TP", "FN"}  # all 36 FP are used
    for cls in ("TP", "FN"):
        rows = allocation[allocation["class"] == cls].set_index("stratum")
        assert rows["allocated"].to_dict() == IDEAL_20
        assert rows["ideal"].to_dict() == IDEAL_20
        assert rows["reference_count"].to_dict() == CORPUS_O1_O2
        assert rows.at["O1=1|O2=1", "quota"] == pytest.approx(20 * 311 / 1242)
        assert rows.at["O1=0|O2=0", "reference_share"] == pytest.approx(496 / 1242)
    assert (
        allocation.set_index(["class", "stratum"])["available"].to_dict()[
            ("FN", "O1=1|O2=1")
        ]
        == 8
    )
    # the chosen instances really have those strata
    chosen = table.set_index("instance").loc[list(rexj.item_sets["TP"])]
    keys = "O1=" + chosen["O1"].astype(str) + "|O2=" + chosen["O2"].astype(str)
    assert keys.value_counts().to_dict() == IDEAL_20
    assert set(chosen["class"]) == {"TP"}
    feature_rows = rexj.balance[rexj.balance["check"] == "feature_stratum"]
    assert len(feature_rows) == 8 and feature_rows["ok"].all()


def test_short_stratum_is_capped_and_reallocated():
    design = situated_design(
        seed_table(short_fn_o1o2=2), subjects=2, seed=7, halves_by="named"
    )
    fn = design.allocation[design.allocation["class"] == "FN"].set_index("stratum")
    assert fn["available"].to_dict() == {
        "O1=0|O2=0": 15,
        "O1=0|O2=1": 12,
        "O1=1|O2=0": 10,
        "O1=1|O2=1": 2,
    }
    assert fn["allocated"].to_dict() == {
        "O1=0|O2=0": 9,
        "O1=0|O2=1": 5,
        "O1=1|O2=0": 4,
        "O1=1|O2=1": 2,
    }
    assert fn["ideal"].to_dict() == IDEAL_20
    flagged = design.balance[
        (design.balance["check"] == "feature_stratum") & ~design.balance["ok"]
    ]
    assert flagged["unit"].tolist() == [
        "FN|O1=0|O2=0",
        "FN|O1=0|O2=1",
        "FN|O1=1|O2=0",
        "FN|O1=1|O2=1",
    ]
    assert len(design.item_sets["FN"]) == 20


def test_class_reference_distribution(table):
    design = situated_design(
        table, subjects=2, seed=1, reference="class", halves_by="named"
    )
    fn = design.allocation[design.allocation["class"] == "FN"].set_index("stratum")
    # FN strata 10, 14, 16, 22 of 62: quotas 3.226, 4.516, 5.161, 7.097
    assert fn["reference_count"].to_dict() == {
        "O1=0|O2=0": 22,
        "O1=0|O2=1": 16,
        "O1=1|O2=0": 14,
        "O1=1|O2=1": 10,
    }
    assert fn["allocated"].to_dict() == {
        "O1=0|O2=0": 7,
        "O1=0|O2=1": 5,
        "O1=1|O2=0": 5,
        "O1=1|O2=1": 3,
    }


# ------------------------------------------------------------------ the design


def test_seed_counts(rexj):
    assert isinstance(rexj, SituatedDesign) and rexj.kind == "two_group"
    assert tuple(rexj.trials.columns) == SITUATED_TRIAL_COLUMNS
    test = rexj.test_trials
    assert len(test) == 36 * 76
    assert test.groupby("list").size().tolist() == [76] * 36
    assert test.groupby("group")["list"].nunique().to_dict() == {1: 18, 2: 18}
    per_list = test.groupby(["list", "condition"]).size().unstack()
    assert per_list[list(CONDITIONS)].drop_duplicates().to_numpy().tolist() == [
        [18, 18, 20, 20]
    ]
    assert len(rexj.item_sets["A"]) == len(rexj.item_sets["B"]) == 18
    # every FP instance: 18 participants with the corpus's, 18 with the system's
    fp = test[test["instance_class"] == "FP"]
    assert set(fp.groupby(["item", "condition"])["list"].nunique()) == {18}
    assert fp["item"].nunique() == 36
    settings = rexj.settings()
    assert settings["trials_per_participant"] == 76
    assert settings["qualifying_per_class"] == {
        "TP": 150,
        "FP": 36,
        "FN": 45,
        "TN": 375,
    }
    assert settings["selected_per_class"] == {"FP": 36, "TP": 20, "FN": 20}
    assert settings["trials_per_subject"] == 76
    assert balance_problems(rexj) == []
    check_balance(rexj)
    assert rexj.balance["ok"].all()
    conditions = rexj.balance[rexj.balance["check"] == "list_condition"]
    assert len(conditions) == 36 * 4


def test_groups_see_opposite_versions(rexj):
    test = rexj.test_trials
    seen = test.groupby(["group", "item_set"])["condition"].unique()
    assert {k: sorted(v) for k, v in seen.items()} == {
        (1, "A"): ["FP-Orig"],
        (1, "B"): ["FP-system"],
        (1, "shared"): ["FN", "TP"],
        (2, "A"): ["FP-system"],
        (2, "B"): ["FP-Orig"],
        (2, "shared"): ["FN", "TP"],
    }
    shown = test.groupby("condition")[["shown", "system"]].agg(lambda s: sorted(set(s)))
    assert shown.to_dict("index") == {
        "FN": {"shown": ["original"], "system": ["Orig"]},
        "FP-Orig": {"shown": ["original"], "system": ["Orig"]},
        "FP-system": {"shown": ["system"], "system": ["system"]},
        "TP": {"shown": ["original"], "system": ["Orig"]},
    }
    assert set(test.loc[test["condition"] == "FP-system", "expression"]) == {"sore"}
    assert set(test.loc[test["condition"] == "FP-Orig", "expression"]) == {
        "ano sankakkei",
        "heikousihenkei",
    }


def test_halves_are_balanced_on_the_stratum(rexj, table):
    named = table.set_index("instance")["named"]
    split = {h: named.loc[list(rexj.item_sets[h])].value_counts() for h in "AB"}
    assert sorted(split[h]["parallelogram"] for h in "AB") == [7, 8]
    assert sorted(split[h]["other"] for h in "AB") == [10, 11]
    rows = rexj.balance[rexj.balance["check"] == "half_stratum"]
    assert rows["ok"].all() and len(rows) == 4
    assert sorted(rows.loc[rows["unit"] == "parallelogram", "n_trials"]) == [7, 8]


def test_tp_and_fn_are_shared_by_all(rexj):
    test = rexj.test_trials
    for cls in ("TP", "FN"):
        sets = test[test["condition"] == cls].groupby("list")["item"].agg(frozenset)
        assert set(sets) == {frozenset(rexj.item_sets[cls])}
        assert len(rexj.item_sets[cls]) == 20
    assert set(rexj.item_sets["shared"]) == set(rexj.item_sets["TP"]) | set(
        rexj.item_sets["FN"]
    )


def test_orders_are_the_seeded_permutations(rexj):
    canonical = [
        *sorted(rexj.item_sets["A"]),
        *sorted(rexj.item_sets["B"]),
        *sorted(rexj.item_sets["shared"]),
    ]
    orders = []
    for slot in range(1, 37):
        rows = rexj.trials[rexj.trials["subject_slot"] == slot]
        assert rows["order"].tolist() == list(range(1, 77))
        permutation = _rng(2010, "order", slot).permutation(76)
        assert rows["item"].tolist() == [canonical[int(i)] for i in permutation]
        orders.append(tuple(rows["item"]))
    assert len(set(orders)) == 36


def test_trial_budget_error(table):
    with pytest.raises(
        DesignError,
        match=(
            r"trial_budget: each participant would see 36 FP \+ 23 TP \+ 23 FN = 82 "
            r"trials, over the budget of 80; set max_fp to at most 34"
        ),
    ):
        situated_design(table, subjects=36, seed=1, n_per_class=23)
    with pytest.raises(DesignError, match="= 76 trials, over the budget of 75"):
        situated_design(table, subjects=36, seed=1, trial_budget=75)
    # with max_fp = 34 the budget holds: 34 FP drawn to the corpus distribution
    design = situated_design(
        table, subjects=4, seed=1, n_per_class=23, max_fp=34, halves_by="named"
    )
    assert design.settings()["trials_per_participant"] == 80
    assert len(design.item_sets["A"]) + len(design.item_sets["B"]) == 34
    fp = design.allocation[design.allocation["class"] == "FP"].set_index("stratum")
    # quotas 34 * (311, 187, 248, 496) / 1242 = 8.51, 5.12, 6.79, 13.58 give
    # 8, 5, 7, 14; capacity 10 caps O1=0|O2=0 at 10 and its 4 seats go over the
    # others by 311 : 187 : 248 (quotas 1.67, 1.00, 1.33 -> 2, 1, 1)
    assert fp["ideal"].to_dict() == {
        "O1=0|O2=0": 14,
        "O1=0|O2=1": 7,
        "O1=1|O2=0": 5,
        "O1=1|O2=1": 8,
    }
    assert fp["allocated"].to_dict() == {
        "O1=0|O2=0": 10,
        "O1=0|O2=1": 8,
        "O1=1|O2=0": 6,
        "O1=1|O2=1": 10,
    }


def test_other_errors(table):
    with pytest.raises(
        DesignError,
        match="46 FN instances requested but only 45 of the 62 FN instances qualify",
    ):
        situated_design(table, subjects=2, seed=1, n_per_class=46, trial_budget=200)
    with pytest.raises(DesignError, match="35 subjects cannot form two equal groups"):
        situated_design(table, subjects=35, seed=1)
    no_sore = table.assign(
        system_expression=table["system_expression"].where(
            table["instance"] != "fp001", ""
        )
    )
    with pytest.raises(DesignError, match="no expression to show for fp001"):
        situated_design(no_sore, subjects=2, seed=1)
    with pytest.raises(DesignError, match="missing column.*O2"):
        situated_design(table.drop(columns=["O2"]), subjects=2, seed=1)
    with pytest.raises(DesignError, match="missing feature value.*tp001"):
        situated_design(
            table.assign(O1=table["O1"].where(table["instance"] != "tp001")),
            subjects=2,
            seed=1,
        )
    with pytest.raises(DesignError, match="reference: must be 'corpus' or 'class'"):
        situated_design(table, subjects=2, seed=1, reference="session")


def test_determinism(table, rexj):
    again = situated_design(
        table.sample(frac=1.0, random_state=3),
        subjects=36,
        seed=2010,
        halves_by="named",
        study="rexj",
    )
    pd.testing.assert_frame_equal(again.trials, rexj.trials)
    pd.testing.assert_frame_equal(again.balance, rexj.balance)
    pd.testing.assert_frame_equal(again.allocation, rexj.allocation)
    assert again.settings() == rexj.settings()
    other = situated_design(
        table, subjects=36, seed=2011, halves_by="named", study="rexj"
    )
    assert other.item_sets["TP"] != rexj.item_sets["TP"]
    assert other.item_sets["A"] != rexj.item_sets["A"]
    # the allocation does not depend on the seed, only the draws within strata
    pd.testing.assert_frame_equal(other.allocation, rexj.allocation)

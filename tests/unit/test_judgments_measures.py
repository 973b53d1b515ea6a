"""Derived measures: REFERENCE.md §13 vectors and hand-computed tables."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from stecflow.judgments import JudgmentsError
from stecflow.judgments.measures import (
    MEASURE_COLUMNS,
    describe,
    identification_rates,
    identification_summary,
    item_identification,
    rating_summary,
    study_measures,
)


def judgements(choices_by_item, system="S", gold="g"):
    rows = []
    for item, choices in choices_by_item.items():
        for e, choice in enumerate(choices):
            rows.append(
                {
                    "system": system,
                    "item": item,
                    "subject": f"e{e}",
                    "choice": choice,
                    "target_entity": gold,
                }
            )
    return pd.DataFrame(rows)


REF = {"i1": ["g", "g", "x", "g", "y"], "i2": ["x", "x", "g", "g", "y"]}


def test_reference_section_13_vectors():
    per_item = item_identification(judgements(REF)).set_index("item")
    assert per_item.loc["i1", "ir"] == pytest.approx(0.6)
    assert per_item.loc["i1", "majority_identified"] == 1
    assert per_item.loc["i1", "agreement"] == pytest.approx(0.6)
    assert per_item.loc["i2", "ir"] == pytest.approx(0.4)
    assert per_item.loc["i2", "majority_identified"] == 0  # x/g tie
    assert per_item.loc["i2", "agreement"] == pytest.approx(0.4)
    assert bool(per_item.loc["i2", "tied"]) and not per_item.loc["i1", "tied"]


def test_majority_tie_option():
    per_item = item_identification(judgements(REF), majority_tie="identified")
    assert per_item["majority_identified"].tolist() == [1, 1]
    rates = identification_rates(judgements(REF), majority_tie="identified")
    assert rates.loc[0, "mir"] == 1.0
    with pytest.raises(JudgmentsError) as info:
        identification_rates(judgements(REF), majority_tie="coin")
    assert info.value.field == "ident.majority_tie"


def test_system_rates_mean_over_items_and_pooled():
    data = judgements({"i1": REF["i1"], "i2": REF["i2"], "i3": ["g", "g", "g"]})
    rates = identification_rates(data).iloc[0]
    assert rates["n_items"] == 3 and rates["n_judgements"] == 13
    assert rates["ir"] == pytest.approx((0.6 + 0.4 + 1.0) / 3)
    assert rates["mir"] == pytest.approx(2 / 3)
    assert rates["agreement"] == pytest.approx((0.6 + 0.4 + 1.0) / 3)
    pooled = identification_rates(data, aggregation="pooled").iloc[0]
    assert pooled["ir"] == pytest.approx((3 + 2 + 3) / 13)
    assert pooled["agreement"] == pytest.approx((3 + 2 + 3) / 13)
    assert pooled["mir"] == pytest.approx(2 / 3)  # always over items
    with pytest.raises(JudgmentsError) as info:
        identification_rates(data, aggregation="median")
    assert info.value.field == "ident.aggregation"


def test_rates_per_system_and_ignoring_missing_choices():
    a = judgements({"i1": ["g", "g", None]}, system="A")
    b = judgements({"i1": ["x", "g", "x"]}, system="B")
    rates = identification_rates(pd.concat([a, b]))
    assert rates["system"].tolist() == ["A", "B"]
    assert rates["ir"].tolist() == pytest.approx([1.0, 1 / 3])
    assert rates["n_judgements"].tolist() == [2, 3]
    assert rates["mir"].tolist() == [1.0, 0.0]
    assert rates["agreement"].tolist() == pytest.approx([1.0, 2 / 3])


def test_can_t_tell_and_timeouts_are_choices():
    per_item = item_identification(
        judgements({"i1": ["cant_tell", "cant_tell", "g", "timeout"]})
    ).iloc[0]
    assert per_item["ir"] == 0.25 and per_item["majority_identified"] == 0
    assert per_item["agreement"] == 0.5


def test_two_golds_for_one_item_is_an_error():
    data = judgements({"i1": ["g", "g"]})
    data.loc[1, "target_entity"] = "h"
    with pytest.raises(JudgmentsError, match="several gold"):
        item_identification(data)


def test_describe():
    df = pd.DataFrame({"s": ["A"] * 4 + ["B"], "t": [1.0, 2.0, 4.0, math.nan, 7.0]})
    out = describe(df, "t", by=["s"])
    assert out["mean"].tolist() == pytest.approx([7 / 3, 7.0])
    assert out.loc[0, "sd"] == pytest.approx(np.std([1, 2, 4], ddof=1))
    assert math.isnan(out.loc[1, "sd"]) and out["n"].tolist() == [3, 1]
    assert describe(df, "t").loc[0, "n"] == 4


def test_identification_summary_hand_computed():
    df = pd.DataFrame(
        {
            "system": ["A", "A", "A", "A", "B", "B"],
            "correct": [True, False, True, None, True, True],
            "identification_time_adj_ms": [1000.0, 2000.0, 3000.0, None, 500.0, 700.0],
            "reading_time_adj_ms": [None] * 6,
            "rt_adj_ms": [1000.0, 2000.0, 3000.0, None, 500.0, 700.0],
            "in_time_analysis": [True, True, True, False, True, False],
        }
    )
    out = identification_summary(df).set_index("system")
    assert out.loc["A", "n_trials"] == 4 and out.loc["A", "n_correct"] == 2
    assert out.loc["A", "accuracy"] == 0.5 and out.loc["A", "error_rate"] == 0.5
    assert out.loc["A", "identification_time_adj_ms_mean"] == 2000.0
    assert out.loc["A", "identification_time_adj_ms_sd"] == 1000.0
    assert out.loc["B", "identification_time_adj_ms_n"] == 1
    assert out.loc["B", "accuracy"] == 1.0
    assert out.loc["A", "reading_time_adj_ms_n"] == 0


def test_rating_summary_matches_numpy():
    rng = np.random.default_rng(3)
    df = pd.DataFrame(
        {
            "system": np.repeat(["G", "H"], 20),
            "subdomain": np.tile(["furniture", "people"], 20),
            "adequacy": rng.integers(1, 101, 40).astype(float),
            "fluency": rng.integers(1, 101, 40).astype(float),
        }
    )
    out = rating_summary(df, by=["system", "subdomain"])
    g = df[(df.system == "G") & (df.subdomain == "people")]
    row = out[(out.system == "G") & (out.subdomain == "people")].iloc[0]
    assert row["adequacy_mean"] == pytest.approx(g.adequacy.mean())
    assert row["fluency_sd"] == pytest.approx(g.fluency.std(ddof=1))
    assert row["adequacy_n"] == 10
    assert len(out) == 4


def judgments_table():
    """A tiny judgments table: 2 systems, 2 subdomains, 2 subjects."""
    rows = []
    spec = [
        # system, subdomain, item, subject, choice, correct, time
        ("A", "furniture", "t1", "s1", "e1", True, 1000.0),
        ("A", "furniture", "t1", "s2", "e1", True, 1200.0),
        ("A", "people", "t2", "s1", "e2", False, 2000.0),
        ("A", "people", "t2", "s2", "e1", True, 1800.0),
        ("B", "furniture", "t1", "s1", "e3", False, 1500.0),
        ("B", "furniture", "t1", "s2", "timeout", None, None),
        ("B", "people", "t2", "s1", "e1", True, 1600.0),
        ("B", "people", "t2", "s2", "e1", True, 1700.0),
        ("B", "people", "t3", "s1", "e1", True, 999.0),  # practice: left out
    ]
    for system, subdomain, item, subject, choice, correct, time in spec:
        rows.append(
            {
                "system": system,
                "subdomain": subdomain,
                "item": item,
                "subject": subject,
                "choice": choice,
                "correct": correct,
                "target_entity": "e1",
                "timeout": choice == "timeout",
                "cant_tell": False,
                "in_analysis": item != "t3",
                "in_time_analysis": item != "t3" and time is not None,
                "identification_time_adj_ms": time,
                "reading_time_adj_ms": None,
                "rt_adj_ms": time,
                "adequacy": None,
                "fluency": None,
            }
        )
    return pd.DataFrame(rows)


def test_study_measures_identification():
    out = study_measures(judgments_table(), task="identification", study="s")
    assert list(out.columns) == list(MEASURE_COLUMNS)
    assert out[["system", "subdomain"]].values.tolist() == [
        ["A", "all"],
        ["A", "furniture"],
        ["A", "people"],
        ["B", "all"],
        ["B", "furniture"],
        ["B", "people"],
    ]
    a = out.iloc[0]
    assert a["n_trials"] == 4 and a["n_subjects"] == 2 and a["n_items"] == 2
    assert a["accuracy"] == 0.75 and a["error_rate"] == 0.25
    assert a["identification_time_mean_ms"] == 1500.0
    assert a["identification_time_n"] == 4
    assert a["ir"] == 0.75 and a["mir"] == 0.5  # t2 is a 1-1 tie
    assert a["agreement"] == 0.75
    b = out.iloc[3]
    assert b["accuracy"] == 0.5 and b["n_timeouts"] == 1
    assert b["identification_time_n"] == 3
    assert b["mir"] == 0.5  # t1: e3/timeout tie, t2: identified
    assert math.isnan(a["adequacy_mean"])


def test_study_measures_rating():
    df = judgments_table()
    df["adequacy"] = [80, 90, 60, 70, 50, 55, 65, 75, 5.0]
    df["fluency"] = [70, 70, 70, 70, 40, 60, 50, 50, 5.0]
    out = study_measures(df, task="rating")
    a = out.iloc[0]
    assert a["adequacy_mean"] == 75.0 and a["adequacy_n"] == 4
    assert a["adequacy_sd"] == pytest.approx(np.std([80, 90, 60, 70], ddof=1))
    assert a["fluency_sd"] == 0.0
    assert math.isnan(a["accuracy"]) and a["rt_n"] == 4

"""stecflow.stats against values computed with R (tests/r/make_reference.R).

The data sets and R's results are stored in tests/data/r_reference/, so these tests
do not need R. R functions: aov (Type I), car::Anova(type = 2, 3) with contr.sum,
TukeyHSD, multcompView::multcompLetters, kruskal.test, wilcox.test, cor.test,
t.test(paired = TRUE), summary.manova, car::Manova(type = 3), lme4::lmer.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from stecflow.stats.anova import anova, error_term
from stecflow.stats.correlation import pairwise_corr
from stecflow.stats.manova import manova
from stecflow.stats.mixed import mixed_model
from stecflow.stats.nonparametric import kruskal, pairwise_mannwhitney
from stecflow.stats.posthoc import pairwise_tukey, tukey_cld
from stecflow.stats.ttests import paired_ttest

DATA = Path(__file__).resolve().parents[1] / "data" / "r_reference"


@cache
def reference() -> dict[str, Any]:
    with (DATA / "reference.json").open(encoding="utf-8") as fh:
        return json.load(fh)


def load(name: str) -> pd.DataFrame:
    return pd.read_csv(DATA / f"{name}.csv", keep_default_na=False, na_values=[""])


def r_term(term: str) -> str:
    """R names terms like ours ("system:domain")."""
    return term


TWO_WAY = [("ref15_two_way", "y"), ("unbalanced_4x2", "adequacy")]


@pytest.mark.parametrize(("name", "dv"), TWO_WAY)
@pytest.mark.parametrize(("ss_type", "key"), [(1, "type1"), (2, "type2"), (3, "type3")])
def test_two_way_anova_matches_r(name: str, dv: str, ss_type: int, key: str) -> None:
    ref = reference()[name][key]
    res = anova(load(name), dv, ["system", "domain"], ss_type=ss_type)
    res = res.set_index("source")
    for i, term in enumerate(ref["term"]):
        row = res.loc["Residual" if term == "Residuals" else term]
        assert row["ss"] == pytest.approx(ref["ss"][i], rel=1e-9)
        assert row["df"] == ref["df"][i]
        if term != "Residuals":
            assert row["f"] == pytest.approx(ref["f"][i], rel=1e-9)
            assert row["p_val"] == pytest.approx(ref["p"][i], rel=1e-6)


def test_unbalanced_data_type1_and_type3_differ() -> None:
    ref = reference()["unbalanced_4x2"]
    t1 = dict(zip(ref["type1"]["term"], ref["type1"]["ss"], strict=True))
    t3 = dict(zip(ref["type3"]["term"], ref["type3"]["ss"], strict=True))
    assert abs(t1["system"] - t3["system"]) > 1.0
    assert abs(t1["domain"] - t3["domain"]) > 1.0


@pytest.mark.parametrize(("name", "dv"), TWO_WAY)
def test_one_way_anova_matches_r(name: str, dv: str) -> None:
    ref = reference()[name]["oneway"]
    res = anova(load(name), dv, "system").set_index("source")
    assert res.at["system", "f"] == pytest.approx(ref["f"][0], rel=1e-9)
    assert res.at["system", "p_val"] == pytest.approx(ref["p"][0], rel=1e-6)
    assert res.at["Residual", "ss"] == pytest.approx(ref["ss"][1], rel=1e-9)


@pytest.mark.parametrize(("name", "dv"), TWO_WAY)
def test_error_term_matches_r(name: str, dv: str) -> None:
    ref = reference()[name]
    mse, dfe, _ = error_term(load(name), dv, ["system", "domain"])
    assert mse == pytest.approx(ref["mse"], rel=1e-9)
    assert dfe == ref["df_resid"]


def _check_tukey(res: pd.DataFrame, ref: dict[str, Any]) -> None:
    # oriented as R: row "B-A" has group_a = B, group_b = A, delta = mean_B - mean_A
    assert (res["group_a"] + "-" + res["group_b"]).tolist() == list(ref["pair"])
    for i, row in res.iterrows():
        assert row["delta"] == pytest.approx(ref["diff"][i], rel=1e-9)
        # R's qtukey stops its search at 1e-4; ours solves to 1e-12
        assert row["ci_low"] == pytest.approx(ref["lwr"][i], rel=1e-6, abs=1e-9)
        assert row["ci_high"] == pytest.approx(ref["upr"][i], rel=1e-6, abs=1e-9)
        # the same algorithm as R's ptukey: equal to rounding
        assert row["p_adj"] == pytest.approx(ref["p"][i], rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(("name", "dv"), TWO_WAY)
def test_tukey_one_way_matches_r(name: str, dv: str) -> None:
    res = pairwise_tukey(load(name), dv, "system")
    _check_tukey(res, reference()[name]["tukey_system_oneway"])


@pytest.mark.parametrize(("name", "dv"), TWO_WAY)
def test_tukey_with_two_way_error_term_matches_r(name: str, dv: str) -> None:
    res = pairwise_tukey(load(name), dv, "system", model=["system", "domain"])
    _check_tukey(res, reference()[name]["tukey_system_twoway"])


@pytest.mark.parametrize("name", ["tukey_example_a", "tukey_example_b"])
def test_tukey_examples_match_r(name: str) -> None:
    ref = reference()[name]
    res = pairwise_tukey(load(name), "y", "group")
    _check_tukey(res, ref["tukey"])
    assert res.at[0, "ms_error"] == pytest.approx(ref["mse"], rel=1e-9)


def _letter_groups(letters: dict[str, str]) -> set[frozenset[str]]:
    return {
        frozenset(g for g, ls in letters.items() if letter in ls)
        for letter in set("".join(letters.values()))
    }


@pytest.mark.parametrize("name", ["tukey_example_a", "tukey_example_b"])
def test_cld_groups_match_multcompview(name: str) -> None:
    ref = reference()[name]["letters"]
    res = tukey_cld(load(name), "y", "group")
    ours = dict(zip(res["group"], res["letters"], strict=True))
    assert _letter_groups(ours) == _letter_groups(ref)


@pytest.mark.parametrize(("name", "dv"), TWO_WAY)
def test_kruskal_matches_r(name: str, dv: str) -> None:
    ref = reference()[name]["kruskal"]
    res = kruskal(load(name), dv, "system")
    assert res.at[0, "h"] == pytest.approx(ref["h"], rel=1e-9)
    assert res.at[0, "df"] == ref["df"]
    assert res.at[0, "p_val"] == pytest.approx(ref["p"], rel=1e-7)


def test_kruskal_binary_matches_r() -> None:
    ref = reference()["kruskal_binary"]
    res = kruskal(load("kruskal_binary"), "correct", "system")
    assert res.at[0, "h"] == pytest.approx(ref["h"], rel=1e-12)
    assert res.at[0, "p_val"] == pytest.approx(ref["p"], rel=1e-9)
    assert ref["pearson_chi2"] == pytest.approx(7.5)


def test_pairwise_mannwhitney_matches_r() -> None:
    ref = reference()["unbalanced_4x2"]["pairwise_wilcox"]
    res = pairwise_mannwhitney(load("unbalanced_4x2"), "adequacy", "system")
    res = res.set_index(["group_a", "group_b"])
    for a, b, w, p in zip(ref["a"], ref["b"], ref["w"], ref["p"], strict=True):
        assert res.at[(a, b), "u"] == pytest.approx(w)
        assert res.at[(a, b), "p_val"] == pytest.approx(p, rel=1e-9)
        assert res.at[(a, b), "p_adj"] == pytest.approx(min(1.0, 6 * p), rel=1e-9)


MEASURES = ["fluency", "adequacy", "id_acc", "id_speed", "acc", "se", "bleu", "nist"]


@pytest.mark.parametrize("method", ["pearson", "spearman"])
@pytest.mark.parametrize("subset", ["all", "peers"])
def test_correlations_match_r(method: str, subset: str) -> None:
    ref = reference()["tuna09_system_means"][f"{method}_{subset}"]
    exclude = ("HUMAN-1", "HUMAN-2") if subset == "peers" else ()
    res = pairwise_corr(
        load("tuna09_system_means"), MEASURES, method=method, exclude_systems=exclude
    )
    res = res.set_index(["measure_a", "measure_b"])
    assert len(res) == len(ref["a"]) == 28
    for a, b, r, p, df in zip(
        ref["a"], ref["b"], ref["r"], ref["p"], ref["df"], strict=True
    ):
        row = res.loc[(a, b)]
        assert row["r"] == pytest.approx(r, abs=1e-12)
        assert row["df"] == df
        if row["p_method"] == "t":
            # Pearson, or Spearman with ties: R's t approximation (exact = FALSE)
            assert row["p_val"] == pytest.approx(p, rel=1e-7)
        else:
            # Spearman without ties: exact p since issue #18, checked against
            # cor.test(exact = NULL) in test_stats_corr_manova_r.py
            assert method == "spearman" and row["p_method"] == "exact"


def test_paired_ttest_matches_r() -> None:
    ref = reference()["paired_ttest"]
    res = paired_ttest(load("paired_ttest"), "score", "system", "item")
    row = res.iloc[0]
    assert row["t"] == pytest.approx(ref["t"], rel=1e-12)
    assert row["df"] == ref["df"]
    assert row["p_val"] == pytest.approx(ref["p"], rel=1e-9)
    assert row["delta"] == pytest.approx(ref["delta"], rel=1e-12)
    assert row["ci_low"] == pytest.approx(ref["ci_low"], rel=1e-9)
    assert row["ci_high"] == pytest.approx(ref["ci_high"], rel=1e-9)


R_TESTS = {
    "Wilks": "wilks",
    "Pillai": "pillai",
    "Hotelling-Lawley": "hotelling_lawley",
    "Roy": "roy",
}


@pytest.mark.parametrize("r_test", ["Wilks", "Pillai", "Roy", "Hotelling-Lawley"])
def test_one_way_manova_matches_r(r_test: str) -> None:
    ref = reference()["manova_ref20"][r_test]
    res = manova(load("manova_ref20"), ["rt", "acc"], "system").set_index("test")
    row = res.loc[R_TESTS[r_test]]
    assert row["value"] == pytest.approx(ref["value"], rel=1e-9)
    assert row["f"] == pytest.approx(ref["f"], rel=1e-9)
    assert (row["df1"], row["df2"]) == (ref["df1"], ref["df2"])
    assert row["p_val"] == pytest.approx(ref["p"], rel=1e-7)


@pytest.mark.parametrize("r_test", ["Wilks", "Pillai", "Roy", "Hotelling-Lawley"])
def test_two_way_type3_manova_matches_car(r_test: str) -> None:
    ref = reference()["unbalanced_4x2"]["manova_type3"][r_test]
    res = manova(load("unbalanced_4x2"), ["adequacy", "fluency"], ["system", "domain"])
    res = res[res["test"] == R_TESTS[r_test]].set_index("source")
    for i, term in enumerate(ref["term"]):
        row = res.loc[term]
        assert row["value"] == pytest.approx(ref["value"][i], rel=1e-8)
        assert row["f"] == pytest.approx(ref["f"][i], rel=1e-8)
        assert (row["df1"], row["df2"]) == (ref["df1"][i], ref["df2"][i])
        assert row["p_val"] == pytest.approx(ref["p"][i], rel=1e-6)


@pytest.mark.parametrize(
    ("key", "dv", "transform", "coding"),
    [
        ("rating_means", "rating", "none", "means"),
        ("rating_treatment", "rating", "none", "treatment"),
        ("logtime_means", "time_ms", "log", "means"),
    ],
)
def test_mixed_model_matches_lme4(
    key: str, dv: str, transform: str, coding: str
) -> None:
    ref = reference()["mixed_crossed"][key]
    res = mixed_model(
        load("mixed_crossed"),
        dv,
        transform=transform,
        coding=coding,  # type: ignore[arg-type]
    )
    assert res["computable"].all()
    fixed = res[res["effect"] == "fixed"]
    np.testing.assert_allclose(fixed["estimate"], ref["estimate"], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(fixed["se"], ref["se"], rtol=2e-3)
    random = res[res["effect"] == "random"].set_index("term")["estimate"]
    r_vc = dict(zip(ref["vc_group"], ref["vc_var"], strict=True))
    assert random["subject"] == pytest.approx(r_vc["subject"], rel=5e-3)
    assert random["item"] == pytest.approx(r_vc["item"], rel=5e-3)
    assert random["residual"] == pytest.approx(r_vc["Residual"], rel=5e-3)

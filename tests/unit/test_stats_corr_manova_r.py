"""Correlations and MANOVA against R (tests/r/make_reference_corr_manova.R).

Issue #18, points 4 and 5. R's results are stored in
tests/data/r_reference/corr_manova.json (15 significant digits), with the data in
corr_systems.csv, manova_scale.csv and tuna09_system_means.csv, so these tests do
not need R. R functions: ``cor.test`` (defaults: Fisher-z interval, exact
Spearman p), ``summary.manova``, ``summary.aov`` on the multivariate fit and
``p.adjust(method = "bonferroni")``.

Tolerances: 1e-9 relative where R and we compute the same quantity the same way
(the JSON's 15 digits and the order of floating-point operations leave ~1e-14);
1e-10 relative between our own results on rescaled data.
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from stecflow.stats.correlation import TIES_NOTE, pairwise_corr, spearman_p
from stecflow.stats.manova import manova, manova_followups

DATA = Path(__file__).resolve().parents[1] / "data" / "r_reference"
REL = 1e-9


@cache
def reference() -> dict[str, Any]:
    with (DATA / "corr_manova.json").open(encoding="utf-8") as fh:
        return json.load(fh)


def load(name: str) -> pd.DataFrame:
    return pd.read_csv(DATA / f"{name}.csv", keep_default_na=False, na_values=[""])


def close(ours: float, theirs: float | None, rel: float = REL) -> bool:
    """Equal to *rel* relative (or both missing; R writes NA as null)."""
    if theirs is None:
        return bool(np.isnan(ours))
    return ours == pytest.approx(theirs, rel=rel, abs=1e-300)


# ---------------------------------------------------------------- correlations


def case_data(case: dict[str, Any]) -> pd.DataFrame:
    data = load(case["data"])
    if case["data"] == "tuna09_system_means" and case["k"] == 0:  # the 6 peers
        return data[~data["system"].isin(["HUMAN-1", "HUMAN-2"])]
    return data.head(case["k"])


@pytest.mark.parametrize("name", sorted(reference()["correlations"]))
def test_pairwise_corr_matches_cor_test(name: str) -> None:
    case = reference()["correlations"][name]
    res = pairwise_corr(
        case_data(case),
        case["measures"],
        method=case["method"],
        deletion=case["deletion"],
        confidence=case["confidence"],
    ).set_index(["measure_a", "measure_b"])
    assert len(res) == len(case["a"])
    n_systems = len(case_data(case))
    assert (res["deletion"] == case["deletion"]).all()
    for i, (a, b) in enumerate(zip(case["a"], case["b"], strict=True)):
        row = res.loc[(a, b)]
        assert row["computable"], row["reason"]
        assert row["n"] == case["n"][i]
        assert row["n_missing"] == n_systems - case["n"][i]
        assert row["df"] == case["df"][i]
        assert close(row["r"], case["r"][i], 1e-12)
        assert close(row["p_val"], case["p"][i]), (a, b, row["p_val"], case["p"][i])
        assert row["confidence"] == case["confidence"]
        assert close(row["ci_low"], case["ci_low"][i])
        assert close(row["ci_high"], case["ci_high"][i])
        if case["method"] == "pearson":
            assert close(row["t"], case["t"][i])
            assert row["p_method"] == "t" and row["note"] == ""
            assert np.isnan(row["s"])
        else:
            # R's S; with rho = 1 it is 0 (R writes ~1e-14 then)
            assert row["s"] == pytest.approx(case["s"][i], rel=REL, abs=1e-9)
            if case["ties"][i]:
                assert row["p_method"] == "t" and row["note"] == TIES_NOTE
                assert math.isfinite(row["t"])
            else:
                expected = "exact" if row["n"] <= 9 else "edgeworth"
                assert row["p_method"] == expected and row["note"] == ""
                assert np.isnan(row["t"])


def test_the_cases_cover_every_p_method() -> None:
    """The references reach the exact, Edgeworth and tied Spearman branches."""
    branches = set()
    for case in reference()["correlations"].values():
        if case["method"] == "spearman":
            for n, ties in zip(case["n"], case["ties"], strict=True):
                branches.add("t" if ties else "exact" if n <= 9 else "edgeworth")
    assert branches == {"exact", "edgeworth", "t"}
    sizes = {n for c in reference()["correlations"].values() for n in c["n"]}
    assert {4, 9, 10} <= sizes  # smallest Fisher interval, both sides of n = 9


@pytest.mark.parametrize("n", [5, 6, 9, 10, 12])
def test_spearman_of_a_perfect_ranking_matches_r(n: int) -> None:
    ref = reference()["spearman_perfect"][str(n)]
    x = np.arange(1.0, n + 1)
    df = pd.DataFrame({"system": [f"s{i}" for i in range(n)], "x": x, "y": x**2})
    df["neg"] = -df["y"]
    res = pairwise_corr(df, ["x", "y", "neg"], method="spearman").set_index(
        ["measure_a", "measure_b"]
    )
    assert res.at[("x", "y"), "r"] == pytest.approx(1.0, rel=1e-15)
    assert res.at[("x", "neg"), "r"] == pytest.approx(-1.0, rel=1e-15)
    assert close(res.at[("x", "y"), "p_val"], ref["p_pos"])
    assert close(res.at[("x", "neg"), "p_val"], ref["p_neg"])
    pearson = pairwise_corr(df, ["x", "y"]).iloc[0]
    assert close(pearson["p_val"], ref["p_pearson"])


def test_spearman_rho_one_over_six_systems_is_not_zero() -> None:
    """R: p = 2/6! = 0.002778; scipy's t approximation says 0."""
    p, how = spearman_p(1.0, 6)
    assert p == pytest.approx(2 / 720, rel=1e-15) and how == "exact"
    assert reference()["spearman_perfect"]["6"]["p_pos"] == pytest.approx(
        2 / 720, rel=1e-14
    )


def test_spearman_p_above_1290_is_the_t_approximation() -> None:
    """R's cor.test switches to the t approximation above n = 1290."""
    from scipy import stats

    rho = 0.06
    p, how = spearman_p(rho, 1291)
    t = rho * math.sqrt(1289 / (1 - rho**2))
    assert how == "t"
    assert p == pytest.approx(2 * stats.t.sf(t, 1289), rel=1e-12)
    assert spearman_p(rho, 1290)[1] == "edgeworth"


def test_listwise_is_the_default_and_pairwise_an_option() -> None:
    data = load("corr_systems")
    listwise = pairwise_corr(data, ["a", "b", "d"])
    assert (listwise["deletion"] == "listwise").all()
    assert listwise["n"].tolist() == [12, 12, 12]  # S05 and S12 lack d
    assert listwise["n_missing"].tolist() == [2, 2, 2]
    pairwise = pairwise_corr(data, ["a", "b", "d"], deletion="pairwise")
    assert pairwise["n"].tolist() == [14, 12, 12]
    assert pairwise["n_missing"].tolist() == [0, 2, 2]
    assert listwise.at[0, "r"] != pytest.approx(pairwise.at[0, "r"], rel=1e-6)


def test_listwise_with_an_empty_measure_says_why() -> None:
    data = load("corr_systems").assign(empty=np.nan)
    res = pairwise_corr(data, ["a", "b", "empty"])
    assert not res["computable"].any()
    assert res.at[0, "reason"] == (
        "fewer than 3 systems with every measure (listwise deletion) (n = 0)"
    )
    pairwise = pairwise_corr(data, ["a", "b", "empty"], deletion="pairwise")
    assert pairwise["computable"].tolist() == [True, False, False]


@pytest.mark.parametrize(
    "kwargs",
    [{"deletion": "casewise"}, {"confidence": 95}, {"confidence": 0.0}],
)
def test_bad_options_raise(kwargs: dict[str, Any]) -> None:
    from stecflow.stats._common import StatsInputError

    with pytest.raises(StatsInputError):
        pairwise_corr(load("corr_systems"), ["a", "b"], **kwargs)


# ---------------------------------------------------------------- MANOVA

DVS = ["rt_ms", "score", "words"]
FACTORS = ["system", "domain"]
R_TESTS = {
    "Wilks": "wilks",
    "Pillai": "pillai",
    "Hotelling-Lawley": "hotelling_lawley",
    "Roy": "roy",
}
SCALINGS = sorted(reference()["manova_scale"])  # "original", "rt_ms*1e-3", ...
STAT_COLUMNS = ["value", "f", "df1", "df2", "p_val", "p_adj"]


def scaled(key: str) -> pd.DataFrame:
    """manova_scale.csv with one DV multiplied as R did ("score*1e3")."""
    data = load("manova_scale")
    if key != "original":
        column, factor = key.split("*")
        data[column] = data[column] * float(factor)
    return data


def test_milliseconds_next_to_a_small_score_are_not_singular() -> None:
    """The bug of issue #18: SD 250 ms next to SD 0.02 was called singular."""
    data = load("manova_scale")
    assert data["rt_ms"].std() > 200 and data["score"].std() < 0.03
    res = manova(data, DVS, FACTORS)
    assert res["computable"].all(), res["reason"].iloc[0]


@pytest.mark.parametrize("key", SCALINGS)
@pytest.mark.parametrize("r_test", sorted(R_TESTS))
def test_manova_matches_summary_manova_at_every_scale(key: str, r_test: str) -> None:
    ref = reference()["manova_scale"][key][r_test]
    res = manova(scaled(key), DVS, FACTORS)
    res = res[res["test"] == R_TESTS[r_test]].set_index("source")
    assert list(res.index) == ref["term"]  # balanced: R's sequential = Type III
    for i, term in enumerate(ref["term"]):
        row = res.loc[term]
        assert row["computable"], row["reason"]
        assert row["value"] == pytest.approx(ref["value"][i], rel=REL)
        assert row["f"] == pytest.approx(ref["f"][i], rel=REL)
        assert (row["df1"], row["df2"]) == (ref["df1"][i], ref["df2"][i])
        assert row["p_val"] == pytest.approx(ref["p"][i], rel=REL)


@pytest.mark.parametrize("key", [k for k in SCALINGS if k != "original"])
def test_manova_is_invariant_to_rescaling_a_dv(key: str) -> None:
    original = manova(scaled("original"), DVS, FACTORS)
    rescaled = manova(scaled(key), DVS, FACTORS)
    assert rescaled[["source", "test"]].equals(original[["source", "test"]])
    assert rescaled["computable"].all() and original["computable"].all()
    for column in STAT_COLUMNS:
        np.testing.assert_allclose(
            rescaled[column].to_numpy(float),
            original[column].to_numpy(float),
            rtol=1e-10,
            atol=0,
            err_msg=column,
        )


@pytest.mark.parametrize("key", SCALINGS)
def test_followups_match_summary_aov_with_bonferroni(key: str) -> None:
    ref = reference()["manova_scale"][key]["followups"]
    res = manova_followups(scaled(key), DVS, FACTORS).set_index(["dv", "source"])
    assert len(res) == len(ref["dv"]) == 9
    for i, (dv, term) in enumerate(zip(ref["dv"], ref["term"], strict=True)):
        row = res.loc[(dv, term)]
        assert row["computable"], row["reason"]
        assert row["ss"] == pytest.approx(ref["ss"][i], rel=REL)
        assert row["df"] == ref["df"][i]
        assert row["df_resid"] == ref["df_resid"][i]
        assert row["f"] == pytest.approx(ref["f"][i], rel=REL)
        assert row["p_val"] == pytest.approx(ref["p"][i], rel=REL)
        assert row["p_adj"] == pytest.approx(ref["p_adj"][i], rel=REL)
        assert row["p_adj"] == pytest.approx(min(1.0, 3 * row["p_val"]), rel=1e-15)


@pytest.mark.parametrize("factor", [1.0, 1e-3, 1e3, 1e-9, 1e9])
def test_singular_verdicts_do_not_depend_on_units(factor: float) -> None:
    data = load("manova_scale")
    data["rt_ms"] = data["rt_ms"] * factor
    collinear = data.assign(mix=data["rt_ms"] / factor * 1e-3 - 7 * data["score"])
    res = manova(collinear, [*DVS, "mix"], FACTORS)
    assert not res["computable"].any()
    assert "collinear" in res.at[0, "reason"]
    constant = data.assign(score=0.8 * factor)
    res = manova(constant, DVS, FACTORS)
    assert res.at[0, "reason"] == (
        "the residual SSCP matrix is singular (dependent variable 'score' is constant)"
    )
    # a DV that is a function of the cells: the model fits it exactly
    cell_mean = data.groupby(FACTORS)["rt_ms"].transform("mean")
    res = manova(data.assign(fitted=cell_mean), ["score", "fitted"], FACTORS)
    assert "fits dependent variable 'fitted' exactly" in res.at[0, "reason"]
    # and the computable case stays computable at every scale
    assert manova(data, DVS, FACTORS)["computable"].all()


@pytest.mark.parametrize("factor", [1e-15, 1.0, 1e15])
def test_followups_judge_constant_dvs_whatever_the_units(factor: float) -> None:
    data = load("manova_scale")
    data["score"] = data["score"] * factor
    data["flat"] = 0.8 * factor
    res = manova_followups(data, ["score", "flat"], FACTORS)
    assert res.loc[res["dv"] == "score", "computable"].all()
    assert (res.loc[res["dv"] == "flat", "reason"] == "dv 'flat' is constant").all()
    f = res.loc[res["dv"] == "score", "f"].to_numpy(float)
    base = manova_followups(load("manova_scale"), ["score"], FACTORS)["f"]
    np.testing.assert_allclose(f, base.to_numpy(float), rtol=1e-10, atol=0)

"""REFERENCE.md test vectors for stecflow.stats (sections 15-21, table rows 25-33).

Each test asserts to the number of decimals REFERENCE.md shows, and cross-checks the
library named there (scipy, statsmodels) where one exists.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.sandbox.stats.multicomp import homogeneous_subsets as sm_subsets
from statsmodels.sandbox.stats.multicomp import set_remove_subs
from statsmodels.stats.multitest import multipletests

from stecflow.stats.anova import anova, error_term
from stecflow.stats.correlation import pairwise_corr
from stecflow.stats.manova import manova
from stecflow.stats.multitest import adjust_p, bonferroni
from stecflow.stats.nonparametric import kruskal
from stecflow.stats.posthoc import (
    compact_letter_display,
    homogeneous_subsets,
    maximal_subsets,
    pairwise_tukey,
    subset_letters,
    tukey_cld,
)
from stecflow.stats.ttests import paired_ttest

# ---------------------------------------------------------------- data


def ref15() -> pd.DataFrame:
    cells = {
        ("S1", "furn"): [0.80, 0.75, 0.85],
        ("S1", "ppl"): [0.60, 0.65],
        ("S2", "furn"): [0.70, 0.72],
        ("S2", "ppl"): [0.55, 0.50, 0.58],
        ("S3", "furn"): [0.90, 0.88, 0.86],
        ("S3", "ppl"): [0.62, 0.70, 0.66],
    }
    return pd.DataFrame(
        [(s, d, y) for (s, d), ys in cells.items() for y in ys],
        columns=["system", "domain", "y"],
    )


EXAMPLE_A = {
    "A": [2, 3, 2.5, 3.5, 3],
    "B": [3.5, 4, 3, 4.5, 4],
    "C": [5, 4.5, 5.5, 4, 5],
    "D": [6.5, 6, 5.5, 7, 6],
}


def example_a() -> pd.DataFrame:
    return pd.DataFrame(
        [(g, y) for g, ys in EXAMPLE_A.items() for y in ys], columns=["group", "y"]
    )


def _sd1(mean: float, n: int) -> list[float]:
    z = np.arange(n, dtype=float)
    z = (z - z.mean()) / z.std(ddof=1)
    return list(mean + z)


def example_b() -> pd.DataFrame:
    ys = [0.707107, -0.707107] + _sd1(1.0, 30) + _sd1(1.7, 30)
    return pd.DataFrame({"group": ["A"] * 2 + ["B"] * 30 + ["C"] * 30, "y": ys})


# ---------------------------------------------------------------- section 15 / row 25


def test_anova_type3_reference_15() -> None:
    res = anova(ref15(), "y", ["system", "domain"]).set_index("source")
    assert list(res.index) == ["system", "domain", "system:domain", "Residual"]
    expected = {
        "system": (0.054913, 2, 20.0169, 3.189e-4),
        "domain": (0.135201, 1, 98.5671, 1.698e-6),
        "system:domain": (0.002273, 2, 0.8286, 0.4646),
    }
    for term, (ss, df, f, p) in expected.items():
        assert res.at[term, "ss"] == pytest.approx(ss, abs=5e-7)
        assert res.at[term, "df"] == df
        assert res.at[term, "f"] == pytest.approx(f, abs=5e-5)
        assert res.at[term, "p_val"] == pytest.approx(p, rel=5e-4)
        assert res.at[term, "df_resid"] == 10
    assert res.at["Residual", "ss"] == pytest.approx(0.013717, abs=5e-7)
    assert res.at["Residual", "df"] == 10
    assert res["computable"].all()


def test_anova_type1_differs_reference_15() -> None:
    t1 = anova(ref15(), "y", ["system", "domain"], ss_type=1).set_index("source")
    t3 = anova(ref15(), "y", ["system", "domain"], ss_type=3).set_index("source")
    assert round(t1.at["system", "ss"], 4) == 0.0735
    assert abs(t1.at["system", "ss"] - t3.at["system", "ss"]) > 0.01


def test_anova_partial_eta_squared() -> None:
    res = anova(ref15(), "y", ["system", "domain"]).set_index("source")
    ss_e = res.at["Residual", "ss"]
    for term in ("system", "domain", "system:domain"):
        ss = res.at[term, "ss"]
        assert res.at[term, "np2"] == pytest.approx(ss / (ss + ss_e))


def test_anova_one_way_matches_scipy() -> None:
    df = example_a()
    res = anova(df, "y", "group")
    ref = sps.f_oneway(*EXAMPLE_A.values())
    assert res.at[0, "f"] == pytest.approx(ref.statistic, rel=1e-10)
    assert res.at[0, "p_val"] == pytest.approx(ref.pvalue, rel=1e-8)
    assert (res.at[0, "df"], res.at[0, "df_resid"]) == (3, 16)
    # all SS types coincide in a one-way design
    for ss_type in (1, 2):
        other = anova(df, "y", "group", ss_type=ss_type)
        assert other.at[0, "ss"] == pytest.approx(res.at[0, "ss"])


# ---------------------------------------------------------------- section 16 / rows 26-28


def test_tukey_example_a_error_term_and_hsd() -> None:
    mse, dfe, reason = error_term(example_a(), "y", "group")
    assert reason == ""
    assert mse == pytest.approx(0.325)
    assert dfe == 16
    res = homogeneous_subsets(example_a(), "y", "group")
    assert res.at[0, "n_harmonic"] == pytest.approx(5)
    assert round(res.at[0, "q_crit"], 6) == 4.046093
    assert round(res.at[0, "hsd"], 6) == 1.031555


def test_tukey_example_a_spss_subsets() -> None:
    res = homogeneous_subsets(example_a(), "y", "group")
    groups = res.groupby("subset")["group"].apply(tuple).tolist()
    assert groups == [("A", "B"), ("B", "C"), ("D",)]
    sig = res.groupby("subset")["sig"].first().round(3).tolist()
    assert sig == [0.059, 0.059, 1.0]
    means = res.drop_duplicates("group").set_index("group")["mean"]
    assert means.round(6).to_dict() == {"A": 2.8, "B": 3.8, "C": 4.8, "D": 6.2}


def test_tukey_example_a_pairwise_p_match_scipy() -> None:
    res = pairwise_tukey(example_a(), "y", "group").set_index(["group_a", "group_b"])
    expected = {  # oriented as R's TukeyHSD: (later, earlier)
        ("B", "A"): 0.059076,
        ("C", "B"): 0.059076,
        ("C", "A"): 0.000234,
        ("D", "C"): 0.006503,
    }
    for pair, p in expected.items():
        assert round(res.at[pair, "p_adj"], 6) == p
    ref = sps.tukey_hsd(*EXAMPLE_A.values())
    ci = ref.confidence_interval(0.95)
    labels = list(EXAMPLE_A)
    for (a, b), row in res.iterrows():
        i, j = labels.index(a), labels.index(b)
        assert i > j  # group_a is the later level, as in R
        assert row["p_adj"] == pytest.approx(ref.pvalue[i, j], abs=1e-6)
        assert row["delta"] == pytest.approx(ref.statistic[i, j])
        assert row["ci_low"] == pytest.approx(ci.low[i, j], abs=1e-6)
        assert row["ci_high"] == pytest.approx(ci.high[i, j], abs=1e-6)


def test_tukey_example_a_cld() -> None:
    res = tukey_cld(example_a(), "y", "group")
    assert dict(zip(res["group"], res["letters"], strict=True)) == {
        "A": "a",
        "B": "ab",
        "C": "b",
        "D": "c",
    }


def test_tukey_example_a_letter_display_same_groups() -> None:
    spss = subset_letters(homogeneous_subsets(example_a(), "y", "group"), case="lower")
    cld = tukey_cld(example_a(), "y", "group")
    assert (
        spss[["group", "letters"]].values.tolist()
        == cld[["group", "letters"]].values.tolist()
    )


def test_maximal_subsets_statsmodels_docstring_case() -> None:
    means = [0, 2, 2.5, 3, 6, 8, 9, 9.5, 10]
    expected = [(0, 1), (1, 2, 3), (4, 5), (5, 6, 7, 8)]
    assert maximal_subsets(means, 2) == expected
    _, _, subsets, _ = sm_subsets(means, 2)
    assert sorted(set_remove_subs(subsets)) == expected


def test_maximal_subsets_unsorted_input_returns_original_indices() -> None:
    assert maximal_subsets([9.5, 0, 2], 2) == [(1, 2), (0,)]


def test_tukey_example_b_spss_subsets() -> None:
    res = homogeneous_subsets(example_b(), "y", "group")
    assert round(res.at[0, "n_harmonic"], 6) == 5.294118
    assert round(res.at[0, "q_crit"], 6) == 3.400118
    assert round(res.at[0, "hsd"], 6) == 1.477737
    assert res.at[0, "ms_error"] == pytest.approx(1.0, abs=1e-6)
    assert res.at[0, "df_error"] == 59
    groups = res.groupby("subset")["group"].apply(set).tolist()
    assert groups == [{"A", "B"}, {"B", "C"}]


def test_tukey_example_b_tukey_kramer() -> None:
    res = pairwise_tukey(example_b(), "y", "group").set_index(["group_a", "group_b"])
    expected = {
        ("B", "A"): (1.9365, 0.3634, False),
        ("C", "A"): (3.2920, 0.0597, False),
        ("C", "B"): (3.8341, 0.0235, True),
    }
    for pair, (q, p, reject) in expected.items():
        assert round(res.at[pair, "q"], 4) == q
        assert round(res.at[pair, "p_adj"], 4) == p
        assert res.at[pair, "reject"] == reject


def test_tukey_example_b_cld_groups_disagree_with_spss() -> None:
    cld = tukey_cld(example_b(), "y", "group")
    letters = dict(zip(cld["group"], cld["letters"], strict=True))
    groups = {
        frozenset(g for g, ls in letters.items() if letter in ls)
        for letter in set("".join(letters.values()))
    }
    assert groups == {frozenset("AB"), frozenset("AC")}
    spss = homogeneous_subsets(example_b(), "y", "group")
    spss_groups = {frozenset(g) for g in spss.groupby("subset")["group"].apply(set)}
    assert spss_groups == {frozenset("AB"), frozenset("BC")}


def test_cld_from_p_values_example_b() -> None:
    pw = pd.DataFrame(
        {
            "group_a": ["A", "A", "B"],
            "group_b": ["B", "C", "C"],
            "p_adj": [0.3634, 0.0597, 0.0235],
        }
    )
    res = compact_letter_display(pw)
    letters = dict(zip(res["group"], res["letters"], strict=True))
    assert len(letters["A"]) == 2 and len(letters["B"]) == 1 and len(letters["C"]) == 1
    assert letters["B"] != letters["C"]


def test_posthoc_with_two_way_error_term() -> None:
    df = ref15()
    mse_full, df_full, _ = error_term(df, "y", ["system", "domain"])
    assert df_full == 10
    assert mse_full == pytest.approx(0.013717 / 10, rel=1e-4)
    res = homogeneous_subsets(df, "y", "system", model=["system", "domain"])
    assert res.at[0, "df_error"] == 10
    assert res.at[0, "ms_error"] == pytest.approx(mse_full)
    explicit = homogeneous_subsets(
        df, "y", "system", ms_error=mse_full, df_error=df_full
    )
    pd.testing.assert_frame_equal(res, explicit)
    one_way = homogeneous_subsets(df, "y", "system")
    assert one_way.at[0, "df_error"] == 13


# ---------------------------------------------------------------- section 17 / row 29


KW = {
    "A": [1, 1, 1, 1, 1, 1, 0, 1, 1, 1],
    "B": [1, 0, 1, 0, 1, 1, 0, 1, 0, 1],
    "C": [0, 0, 1, 0, 1, 0, 0, 1, 0, 0],
}


def test_kruskal_binary_reference_17() -> None:
    df = pd.DataFrame(
        [(s, y) for s, ys in KW.items() for y in ys], columns=["system", "c"]
    )
    res = kruskal(df, "c", "system")
    assert round(res.at[0, "h"], 2) == 7.25
    assert round(res.at[0, "p_val"], 6) == 0.026649
    assert res.at[0, "df"] == 2
    assert res.at[0, "n"] == 30
    # invariant: H = (N - 1) / N * Pearson chi-square of the k x 2 table
    table = pd.crosstab(df["system"], df["c"]).to_numpy()
    chi2 = sps.chi2_contingency(table, correction=False).statistic
    assert round(chi2, 4) == 7.5
    assert res.at[0, "h"] == pytest.approx(29 / 30 * chi2)


def test_kruskal_boolean_dv() -> None:
    df = pd.DataFrame(
        [(s, bool(y)) for s, ys in KW.items() for y in ys], columns=["system", "c"]
    )
    assert round(kruskal(df, "c", "system").at[0, "h"], 2) == 7.25


# ---------------------------------------------------------------- section 18 / row 30


def test_pearson_system_means_reference_18() -> None:
    df = pd.DataFrame(
        {
            "system": ["s1", "s2", "s3", "s4", "s5"],
            "x": [0.81, 0.77, 0.70, 0.66, 0.60],
            "y": [1.90, 2.10, 2.05, 2.40, 2.35],
        }
    )
    res = pairwise_corr(df, ["x", "y"])
    assert round(res.at[0, "r"], 6) == -0.867845
    assert round(res.at[0, "p_val"], 6) == 0.056514
    assert res.at[0, "df"] == 3
    assert res.at[0, "n"] == 5
    assert res.at[0, "sig"] == ""
    r = res.at[0, "r"]
    t = r * np.sqrt(3) / np.sqrt(1 - r**2)
    assert res.at[0, "p_val"] == pytest.approx(2 * sps.t.sf(abs(t), 3))


def test_correlation_averages_rows_per_system() -> None:
    df = pd.DataFrame(
        {
            "system": ["s1", "s1", "s2", "s3", "s4", "s5"],
            "x": [0.80, 0.82, 0.77, 0.70, 0.66, 0.60],
            "y": [1.80, 2.00, 2.10, 2.05, 2.40, 2.35],
        }
    )
    assert round(pairwise_corr(df, ["x", "y"]).at[0, "r"], 6) == -0.867845


# ---------------------------------------------------------------- section 19 / row 31


def test_paired_ttest_reference_19() -> None:
    x = [2.1, 2.5, 1.9, 2.8, 2.4, 2.2]
    z = [2.4, 2.6, 2.3, 3.1, 2.5, 2.6]
    df = pd.DataFrame(
        {"item": list(range(6)) * 2, "system": ["x"] * 6 + ["z"] * 6, "score": x + z}
    )
    res = paired_ttest(df, "score", "system", "item")
    assert round(res.at[0, "t"], 6) == -4.780914
    assert round(res.at[0, "p_val"], 6) == 0.004967
    assert res.at[0, "df"] == 5
    ref = sps.ttest_rel(x, z)
    assert res.at[0, "t"] == pytest.approx(ref.statistic)
    # the order of the rows does not matter: pairing is by item
    shuffled = df.sample(frac=1, random_state=3)
    assert paired_ttest(shuffled, "score", "system", "item").at[
        0, "t"
    ] == pytest.approx(res.at[0, "t"])


# ---------------------------------------------------------------- section 20 / row 32


def manova_data() -> pd.DataFrame:
    pairs = {
        "S1": [(1.8, 0.95), (2.0, 0.90), (1.9, 1.0), (2.2, 0.85)],
        "S2": [(2.4, 0.80), (2.6, 0.75), (2.3, 0.85), (2.5, 0.70)],
        "S3": [(2.1, 0.90), (2.0, 0.95), (2.3, 0.80), (2.2, 0.90)],
    }
    return pd.DataFrame(
        [(s, rt, acc) for s, v in pairs.items() for rt, acc in v],
        columns=["system", "rt", "acc"],
    )


def test_manova_reference_20() -> None:
    res = manova(manova_data(), ["rt", "acc"], "system").set_index("test")
    assert round(res.at["wilks", "value"], 6) == 0.260439
    assert round(res.at["pillai", "value"], 6) == 0.788658
    assert round(res.at["wilks", "f"], 6) == 3.838029
    assert (res.at["wilks", "df1"], res.at["wilks", "df2"]) == (4, 16)
    assert round(res.at["wilks", "p_val"], 6) == 0.022623


def test_manova_rao_f_formula() -> None:
    """Rao's F from REFERENCE.md section 20, computed by hand from Lambda."""
    res = manova(manova_data(), ["rt", "acc"], "system").set_index("test")
    lam = res.at["wilks", "value"]
    p, q, v = 2, 2, 9
    r = v - (p - q + 1) / 2
    u = (p * q - 2) / 4
    t = np.sqrt((p**2 * q**2 - 4) / (p**2 + q**2 - 5))
    df1, df2 = p * q, r * t - 2 * u
    f = (1 - lam ** (1 / t)) / lam ** (1 / t) * df2 / df1
    assert res.at["wilks", "f"] == pytest.approx(f)
    assert res.at["wilks", "df2"] == pytest.approx(df2)


# ---------------------------------------------------------------- section 21 / row 33


def test_bonferroni_reference_21() -> None:
    res = bonferroni([0.01, 0.02, 0.04])
    assert res["p_adj"].round(2).tolist() == [0.03, 0.06, 0.12]
    assert round(res.at[0, "alpha_per_test"], 6) == 0.016667
    assert res["m"].tolist() == [3, 3, 3]
    ref = multipletests([0.01, 0.02, 0.04], method="bonferroni")[1]
    np.testing.assert_allclose(res["p_adj"], ref)


def test_bonferroni_caps_at_one_and_skips_nan() -> None:
    out = adjust_p([0.5, np.nan, 0.2])
    assert out[0] == 1.0 and np.isnan(out[1]) and out[2] == pytest.approx(0.4)
    res = bonferroni([0.5, np.nan])
    assert res["computable"].tolist() == [True, False]
    assert res.at[1, "reason"] != ""

"""The "not computable" convention of stecflow.stats: bad data never crashes.

Too few groups or observations, a constant measure, an empty cell, missing values:
each yields rows with ``computable == False`` and a specific ``reason``; wrong
arguments raise StatsInputError (a StecflowError and a ValueError).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest

from stecflow.core.errors import StecflowError
from stecflow.stats._common import StatsInputError
from stecflow.stats.anova import anova, error_term
from stecflow.stats.correlation import pairwise_corr
from stecflow.stats.manova import manova, manova_followups
from stecflow.stats.mixed import mixed_model
from stecflow.stats.nonparametric import kruskal, pairwise_mannwhitney
from stecflow.stats.posthoc import (
    compact_letter_display,
    homogeneous_subsets,
    maximal_subsets,
    pairwise_tukey,
    subset_letters,
    tukey_cld,
)
from stecflow.stats.resampling import bootstrap_ci, paired_bootstrap
from stecflow.stats.ttests import paired_ttest, pairwise_paired_ttests


def two_way(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [
        (s, d, float(rng.normal(10 + i, 1)))
        for i, s in enumerate("ABC")
        for d in ("furn", "ppl")
        for _ in range(4)
    ]
    return pd.DataFrame(rows, columns=["system", "domain", "y"])


def one_group() -> pd.DataFrame:
    return pd.DataFrame(
        {"system": ["A"] * 5, "domain": ["f"] * 5, "y": [1.0, 2, 3, 4, 5]}
    )


def constant() -> pd.DataFrame:
    df = two_way()
    df["y"] = 3.0
    return df


def empty_cell() -> pd.DataFrame:
    df = two_way()
    return df[~((df["system"] == "B") & (df["domain"] == "ppl"))]


def one_per_cell() -> pd.DataFrame:
    return two_way().groupby(["system", "domain"], as_index=False).first()


def all_nan() -> pd.DataFrame:
    df = two_way()
    df["y"] = np.nan
    return df


NOT_COMPUTABLE: dict[str, tuple[Callable[[], pd.DataFrame], str]] = {
    "anova one level": (
        lambda: anova(one_group(), "y", "system"),
        "fewer than 2 levels",
    ),
    "anova constant": (
        lambda: anova(constant(), "y", ["system", "domain"]),
        "constant",
    ),
    "anova no df": (
        lambda: anova(one_per_cell(), "y", ["system", "domain"]),
        "residual",
    ),
    "anova all nan": (lambda: anova(all_nan(), "y", "system"), "no observations"),
    "tukey one group": (
        lambda: pairwise_tukey(one_group(), "y", "system"),
        "fewer than 2",
    ),
    "tukey constant": (lambda: pairwise_tukey(constant(), "y", "system"), "constant"),
    "subsets one group": (
        lambda: homogeneous_subsets(one_group(), "y", "system"),
        "fewer",
    ),
    "subsets constant": (
        lambda: homogeneous_subsets(constant(), "y", "system"),
        "constant",
    ),
    "subsets bad error": (
        lambda: homogeneous_subsets(two_way(), "y", "system", ms_error=0.0, df_error=5),
        "positive",
    ),
    "cld constant": (lambda: tukey_cld(constant(), "y", "system"), "constant"),
    "letters of failed subsets": (
        lambda: subset_letters(homogeneous_subsets(constant(), "y", "system")),
        "constant",
    ),
    "kruskal one group": (lambda: kruskal(one_group(), "y", "system"), "fewer than 2"),
    "kruskal constant": (lambda: kruskal(constant(), "y", "system"), "constant"),
    "kruskal all nan": (lambda: kruskal(all_nan(), "y", "system"), "fewer than 2"),
    "mannwhitney one group": (
        lambda: pairwise_mannwhitney(one_group(), "y", "system"),
        "fewer than 2",
    ),
    "mannwhitney constant": (
        lambda: pairwise_mannwhitney(constant(), "y", "system"),
        "tie",
    ),
    "manova constant dv": (
        lambda: manova(two_way().assign(z=1.0), ["y", "z"], "system"),
        "singular",
    ),
    "manova collinear dvs": (
        lambda: manova(
            two_way().assign(z=lambda d: 2 * d["y"] + 1), ["y", "z"], "system"
        ),
        "singular",
    ),
    "manova empty cell": (
        lambda: manova(
            empty_cell().assign(z=lambda d: d["y"] ** 2),
            ["y", "z"],
            ["system", "domain"],
        ),
        "rank deficient",
    ),
    "manova one level": (
        lambda: manova(one_group().assign(z=[5.0, 1, 4, 2, 3]), ["y", "z"], "system"),
        "fewer than 2 levels",
    ),
    "followups constant dv": (
        lambda: manova_followups(two_way().assign(z=1.0), ["z"], "system"),
        "constant",
    ),
    "bootstrap n=1": (
        lambda: bootstrap_ci(pd.DataFrame({"y": [1.0]}), "y", seed=1),
        "fewer than 2",
    ),
}


@pytest.mark.parametrize("case", sorted(NOT_COMPUTABLE))
def test_not_computable_rows(case: str) -> None:
    make, fragment = NOT_COMPUTABLE[case]
    res = make()
    assert list(res.columns[-2:]) == ["computable", "reason"]
    assert len(res) >= 1
    assert res["computable"].dtype == bool
    assert not res["computable"].any()
    assert all(fragment in r for r in res["reason"]), res["reason"].tolist()


def test_computable_rows_have_empty_reason_and_no_nan_statistics() -> None:
    df = two_way()
    res = anova(df, "y", ["system", "domain"])
    effects = res[res["source"] != "Residual"]
    assert effects["computable"].all() and (effects["reason"] == "").all()
    assert not effects[["ss", "df", "f", "p_val", "np2"]].isna().any().any()


def test_anova_nan_policy() -> None:
    df = two_way()
    df.loc[[0, 5], "y"] = np.nan
    omitted = anova(df, "y", ["system", "domain"])
    assert omitted["computable"].all()
    assert (omitted["n_missing"] == 2).all() and (omitted["n"] == len(df) - 2).all()
    strict = anova(df, "y", ["system", "domain"], nan_policy="not_computable")
    assert not strict["computable"].any()
    assert "2 row(s) with missing values in y" in strict.at[0, "reason"]


def test_missing_factor_value_is_dropped_listwise() -> None:
    df = two_way()
    df.loc[3, "system"] = None
    res = anova(df, "y", "system")
    assert res.at[0, "n_missing"] == 1


def test_anova_empty_cell_refuses_only_type3() -> None:
    # Type III is undefined with an empty cell (its hypotheses depend on the
    # contrasts); the error term and Types I and II are defined (issue #18)
    res = anova(empty_cell(), "y", ["system", "domain"]).set_index("source")
    effects = res.drop(index="Residual")
    assert not effects["computable"].any()
    assert all("empty cell(s) (B x ppl)" in r for r in effects["reason"])
    assert all("contrast" in r for r in effects["reason"])
    assert res.at["Residual", "computable"]
    for ss_type in (1, 2):
        ok = anova(empty_cell(), "y", ["system", "domain"], ss_type=ss_type)
        assert ok["computable"].all()
        assert ok.set_index("source").at["system:domain", "df"] == 1  # 2 - 1 empty


def test_error_term_with_empty_cell_is_the_within_cell_term() -> None:
    df = empty_cell()
    mse, dfe, reason = error_term(df, "y", ["system", "domain"])
    within = df.groupby(["system", "domain"])["y"].transform(lambda v: v - v.mean())
    assert reason == "" and dfe == len(df) - 5
    assert mse == pytest.approx(float((within**2).sum()) / dfe, rel=1e-12)


def test_error_term_with_empty_cell_and_no_residual_df() -> None:
    df = one_per_cell()
    df = df[~((df["system"] == "B") & (df["domain"] == "ppl"))]
    mse, dfe, reason = error_term(df, "y", ["system", "domain"])
    assert np.isnan(mse) and dfe == 0 and "no residual degrees of freedom" in reason


def test_cld_missing_p_counts_as_not_significant() -> None:
    pw = pd.DataFrame({"group_a": ["a"], "group_b": ["b"], "p_adj": [np.nan]})
    res = compact_letter_display(pw)
    assert res["letters"].tolist() == ["a", "a"]


def test_correlation_constant_and_small_n() -> None:
    df = pd.DataFrame(
        {
            "system": list("abcd"),
            "x": [1.0, 2, 3, 4],
            "c": 5.0,
            "y": [1.0, np.nan, np.nan, 2],
        }
    )
    # pairwise deletion (an option since issue #18; listwise is the default)
    res = pairwise_corr(df, ["x", "c", "y"], deletion="pairwise").set_index(
        ["measure_a", "measure_b"]
    )
    assert not res.at[("x", "c"), "computable"]
    assert "'c' is constant" in res.at[("x", "c"), "reason"]
    assert not res.at[("x", "y"), "computable"]
    assert "n = 2" in res.at[("x", "y"), "reason"]
    assert res.at[("x", "y"), "n"] == 2
    # listwise: b and c lack y, so every cell has 2 systems
    res = pairwise_corr(df, ["x", "c", "y"])
    assert res["n"].tolist() == [2, 2, 2] and not res["computable"].any()


def test_correlation_excluding_unknown_system_logs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    df = pd.DataFrame(
        {"system": list("abcd"), "x": [1.0, 2, 3, 5], "y": [2.0, 1, 4, 3]}
    )
    with caplog.at_level(logging.WARNING):
        res = pairwise_corr(df, ["x", "y"], exclude_systems=["HUMAN-1", "a"])
    assert "HUMAN-1" in caplog.text
    assert res.at[0, "excluded"] == "a" and res.at[0, "n"] == 3


def test_paired_ttest_edge_cases() -> None:
    df = pd.DataFrame(
        {
            "item": [1, 2, 3, 1, 2, 3],
            "system": list("aaabbb"),
            "y": [1.0, 2, 3, 2, 3, 4],
        }
    )
    res = paired_ttest(df, "y", "system", "item")
    assert not res.at[0, "computable"] and "constant" in res.at[0, "reason"]
    one = df[df["item"] == 1]
    res = paired_ttest(one, "y", "system", "item")
    assert (
        not res.at[0, "computable"]
        and "fewer than 2 complete pairs" in res.at[0, "reason"]
    )
    unpaired = pd.concat([df, pd.DataFrame({"item": [9], "system": ["a"], "y": [7.0]})])
    unpaired.loc[unpaired["item"] == 1, "y"] += [0.5, 0.0]
    res = paired_ttest(unpaired, "y", "system", "item")
    assert (
        res.at[0, "computable"] and res.at[0, "n"] == 3 and res.at[0, "n_missing"] == 1
    )
    res = paired_ttest(df, "y", "system", "item", a="a", b="zzz")
    assert not res.at[0, "computable"] and "zzz" in res.at[0, "reason"]


def test_pairwise_paired_ttests_bonferroni() -> None:
    rng = np.random.default_rng(5)
    df = pd.DataFrame(
        {
            "item": list(range(10)) * 3,
            "system": np.repeat(["a", "b", "c"], 10),
            "y": rng.normal(size=30),
        }
    )
    res = pairwise_paired_ttests(df, "y", "system", "item")
    assert len(res) == 3
    np.testing.assert_allclose(res["p_adj"], np.minimum(1, 3 * res["p_val"]))
    single = pairwise_paired_ttests(df[df["system"] == "a"], "y", "system", "item")
    assert not single.at[0, "computable"]


def test_mixed_model_not_computable() -> None:
    df = pd.DataFrame(
        {
            "subject": ["s1"] * 8,
            "item": list("abcdefgh"),
            "system": list("ABAB" * 2),
            "t": [1.0, 2, 3, 4, 5, 6, 7, 8],
        }
    )
    res = mixed_model(df, "t")
    assert (
        not res["computable"].any() and "fewer than 2 subjects" in res.at[0, "reason"]
    )
    df["subject"] = ["s1", "s2"] * 4
    df.loc[0, "t"] = 0.0
    res = mixed_model(df, "t", transform="log")
    assert not res["computable"].any() and "positive" in res.at[0, "reason"]
    df["t"] = 5.0
    res = mixed_model(df, "t")
    assert not res["computable"].any() and "constant" in res.at[0, "reason"]


def test_bootstrap_constant_gives_degenerate_interval() -> None:
    res = bootstrap_ci(pd.DataFrame({"y": [2.0, 2.0, 2.0]}), "y", seed=3)
    assert res.at[0, "computable"]
    assert res.at[0, "ci_low"] == res.at[0, "ci_high"] == 2.0


def test_paired_bootstrap_edge_cases() -> None:
    df = pd.DataFrame(
        {
            "system": ["b"] * 3 + ["s"] * 3,
            "item": [1, 2, 3] * 2,
            "y": [1.0, 2, 3, 2, 3, 4],
        }
    )
    res = paired_bootstrap(df, "y", "system", "item", baseline="b", seed=1)
    assert not res.at[0, "computable"] and "constant" in res.at[0, "reason"]
    assert res.at[0, "delta"] == pytest.approx(1.0)
    res = paired_bootstrap(df, "y", "system", "item", baseline="nope", seed=1)
    assert not res["computable"].any()


@pytest.mark.parametrize(
    "call",
    [
        lambda: anova(two_way(), "nope", "system"),
        lambda: anova(two_way(), "y", "nope"),
        lambda: anova(two_way(), "system", "domain"),
        lambda: anova(two_way(), "y", "system", ss_type=4),
        lambda: anova(two_way(), "y", "system", nan_policy="drop"),
        lambda: pairwise_tukey(two_way(), "y", "system", model=["domain"]),
        lambda: pairwise_tukey(two_way(), "y", "system", ms_error=1.0),
        lambda: homogeneous_subsets(two_way(), "y", "system", sig_method="exact"),
        lambda: homogeneous_subsets(two_way(), "y", "system", alpha=1.5),
        lambda: pairwise_corr(two_way(), ["y"]),
        lambda: pairwise_corr(two_way(), ["y", "y"]),
        lambda: pairwise_corr(two_way().assign(z=1.0), ["y", "z"], method="kendall"),
        lambda: paired_ttest(two_way().assign(i=range(24)), "y", "system", "i"),
        lambda: manova(two_way(), ["y"], "system"),
        lambda: manova(two_way().assign(z=1.0), ["y", "z"], "system", terms=["nope"]),
        lambda: mixed_model(two_way(), "y", subject="domain", item="domain"),
        lambda: bootstrap_ci(two_way(), "y", seed=-1),
        lambda: bootstrap_ci(two_way(), "y", seed=1, n_boot=0),
        lambda: bootstrap_ci(two_way(), "y", seed=1, method="abc"),  # type: ignore[arg-type]
    ],
)
def test_bad_arguments_raise(call: Callable[[], object]) -> None:
    with pytest.raises(StatsInputError) as info:
        call()
    assert isinstance(info.value, StecflowError) and isinstance(info.value, ValueError)


@pytest.mark.parametrize("sweep", [False, True])
@pytest.mark.parametrize("seed", range(25))
def test_cld_letters_encode_exactly_the_non_significant_pairs(
    seed: int, sweep: bool
) -> None:
    """Piepho's display: share a letter iff not significantly different."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 9))
    groups = [f"g{i}" for i in range(k)]
    pairs = [(a, b) for i, a in enumerate(groups) for b in groups[i + 1 :]]
    p = rng.choice([0.001, 0.5], size=len(pairs), p=[0.5, 0.5])
    pw = pd.DataFrame(
        {"group_a": [a for a, _ in pairs], "group_b": [b for _, b in pairs], "p_adj": p}
    )
    res = compact_letter_display(pw, sweep=sweep)
    letters = dict(zip(res["group"], res["letters"], strict=True))
    assert all(letters[g] for g in groups)
    for (a, b), pv in zip(pairs, p, strict=True):
        share = bool(set(letters[a]) & set(letters[b]))
        assert share == (pv >= 0.05), (a, b, letters)


def test_cld_equals_spss_subsets_for_balanced_data() -> None:
    """REFERENCE.md section 16: with one critical difference the displays coincide."""
    rng = np.random.default_rng(2009)
    effects = rng.normal(0, 8, 8)
    df = pd.DataFrame(
        {
            "system": np.repeat([f"S{i}" for i in range(8)], 112),
            "domain": np.tile(np.repeat(["furniture", "people"], 56), 8),
        }
    )
    df["y"] = 70 + np.repeat(effects, 112) + rng.normal(0, 25, len(df))
    subsets = homogeneous_subsets(df, "y", "system", model=["system", "domain"])
    spss = {frozenset(g) for g in subsets.groupby("subset")["group"].apply(set)}
    assert len(spss) > 1 and any(len(g) > 2 for g in spss)
    cld = tukey_cld(df, "y", "system", model=["system", "domain"])
    letters = dict(zip(cld["group"], cld["letters"], strict=True))
    groups = {
        frozenset(g for g, ls in letters.items() if x in ls)
        for x in set("".join(letters.values()))
    }
    assert groups == spss
    swept = tukey_cld(df, "y", "system", model=["system", "domain"], sweep=True)
    assert swept["letters"].str.len().sum() <= cld["letters"].str.len().sum()


def _maximal_subsets_by_definition(values, dcrit):
    """Every run i..j of sorted values with range <= dcrit, minus contained runs."""
    vals = np.asarray(values, dtype=float)
    order = np.argsort(vals, kind="stable")
    srt = vals[order]
    tol = 1e-12 * max(1.0, float(np.max(np.abs(srt)))) if len(srt) else 0.0
    spans = []
    for i in range(len(srt)):
        j = i
        while j + 1 < len(srt) and srt[j + 1] - srt[i] <= dcrit + tol:
            j += 1
        spans.append((i, j))
    kept = [
        (i, j)
        for i, j in spans
        if not any(a <= i and j <= b and (a, b) != (i, j) for a, b in spans)
    ]
    return [tuple(int(order[p]) for p in range(i, j + 1)) for i, j in kept]


def test_maximal_subsets_linear_scan_matches_the_definition():
    rng = np.random.default_rng(7)
    for _ in range(500):
        k = int(rng.integers(0, 25))
        values = np.round(rng.uniform(0, 10, k), int(rng.integers(0, 3)))
        dcrit = float(rng.choice([0, 0.5, 1, 2, 5, 20]))
        assert maximal_subsets(values, dcrit) == _maximal_subsets_by_definition(
            values, dcrit
        )


def test_one_way_anova_without_design_matrix_equals_statsmodels_ols():
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    rng = np.random.default_rng(3)
    groups = np.repeat(list("ABCDEFG"), [3, 5, 8, 2, 9, 4, 6])
    df = pd.DataFrame({"g": groups, "y": rng.normal(size=len(groups))})
    df["y"] += df["g"].map({"A": 0.0, "B": 0.5, "C": 1.0}).fillna(0.2)
    ours = anova(df, "y", "g")
    ref = anova_lm(smf.ols("y ~ C(g, Sum)", data=df).fit(), typ=2)
    assert ours.loc[0, "ss"] == pytest.approx(ref["sum_sq"].iloc[0], rel=1e-12)
    assert ours.loc[0, "f"] == pytest.approx(ref["F"].iloc[0], rel=1e-10)
    assert ours.loc[0, "p_val"] == pytest.approx(ref["PR(>F)"].iloc[0], rel=1e-10)
    assert ours.loc[1, "ss"] == pytest.approx(ref["sum_sq"].iloc[1], rel=1e-12)
    assert (ours.loc[0, "df"], ours.loc[1, "df"]) == (6, len(df) - 7)

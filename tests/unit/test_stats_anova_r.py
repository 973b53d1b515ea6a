"""ANOVA with empty cells, Tukey HSD oriented as R and R's ptukey (issue #18).

Compares stecflow.stats.anova and stecflow.stats.posthoc with R results stored by
tests/r/make_reference_anova.R in tests/data/r_reference/anova.json (the tests do
not need R). R functions: anova(lm()), car::Anova(type = 2), drop1, TukeyHSD,
ptukey.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from stecflow.stats import posthoc
from stecflow.stats.anova import anova, error_term
from stecflow.stats.posthoc import (
    homogeneous_subsets,
    pairwise_tukey,
    ptukey_isf,
    ptukey_sf,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "r_reference"
EMPTY = ["anova_empty_one", "anova_empty_two"]


@cache
def reference() -> dict[str, Any]:
    with (DATA / "anova.json").open(encoding="utf-8") as fh:
        return json.load(fh)


def load(name: str) -> pd.DataFrame:
    return pd.read_csv(DATA / f"{name}.csv", keep_default_na=False, na_values=[""])


def _check_table(res: pd.DataFrame, ref: dict[str, Any]) -> None:
    """Every term of R's table, same SS, df, F and p (relative 1e-10)."""
    res = res.set_index("source")
    assert res["computable"].all()
    assert len(res) == len(ref["term"])
    for i, term in enumerate(ref["term"]):
        row = res.loc["Residual" if term == "Residuals" else term]
        assert row["ss"] == pytest.approx(ref["ss"][i], rel=1e-10)
        assert row["df"] == ref["df"][i]
        if term != "Residuals":
            assert row["f"] == pytest.approx(ref["f"][i], rel=1e-10)
            assert row["p_val"] == pytest.approx(ref["p"][i], rel=1e-10)


@pytest.mark.parametrize("name", EMPTY)
def test_type1_with_empty_cells_matches_r(name: str) -> None:
    ref = reference()[name]
    _check_table(anova(load(name), "y", ["system", "domain"], ss_type=1), ref["type1"])


@pytest.mark.parametrize("name", EMPTY)
def test_type1_is_sequential_in_the_given_order(name: str) -> None:
    ref = reference()[name]["type1_domain_first"]
    res = anova(load(name), "y", ["domain", "system"], ss_type=1)
    assert res["source"].tolist() == ["domain", "system", "domain:system", "Residual"]
    _check_table(res, ref)


@pytest.mark.parametrize("name", EMPTY)
def test_type2_with_empty_cells_matches_car(name: str) -> None:
    ref = reference()[name]
    _check_table(anova(load(name), "y", ["system", "domain"], ss_type=2), ref["type2"])


@pytest.mark.parametrize("name", EMPTY)
def test_interaction_loses_one_df_per_empty_cell(name: str) -> None:
    ref = reference()[name]
    n_empty = len(np.atleast_1d(ref["empty_cells"]))
    assert n_empty == ref["n_aliased"] == (1 if name.endswith("one") else 2)
    res = anova(load(name), "y", ["system", "domain"], ss_type=1)
    assert res.set_index("source").at["system:domain", "df"] == 3 * 2 - n_empty


@pytest.mark.parametrize("name", EMPTY)
def test_error_term_with_empty_cells_matches_r(name: str) -> None:
    ref = reference()[name]
    mse, dfe, reason = error_term(load(name), "y", ["system", "domain"])
    assert reason == ""
    assert mse == pytest.approx(ref["mse"], rel=1e-12)
    assert dfe == ref["df_resid"]


@pytest.mark.parametrize("name", EMPTY)
def test_type3_with_empty_cells_is_refused_with_the_reason(name: str) -> None:
    ref = reference()[name]
    # the reason, shown by R: Type III "drop the term" SS depend on the contrasts
    by_sum, by_trt = ref["type3_drop1_sum"], ref["type3_drop1_treatment"]
    assert by_sum["ss"][0] != pytest.approx(by_trt["ss"][0], rel=1e-3)
    assert by_sum["df"][:2] != by_trt["df"][:2]
    res = anova(load(name), "y", ["system", "domain"], ss_type=3).set_index("source")
    effects = res.drop(index="Residual")
    assert not effects["computable"].any()
    assert effects[["ss", "f", "p_val"]].isna().all().all()
    cells = ", ".join(sorted(np.atleast_1d(ref["empty_cells"])))
    for reason in effects["reason"]:
        assert f"empty cell(s) ({cells})" in reason
        assert "contrast coding" in reason and "ss_type=1 or 2" in reason
    # the error term stays defined
    assert res.at["Residual", "computable"]
    assert res.at["Residual", "ms"] == pytest.approx(ref["mse"], rel=1e-12)


def test_term_without_df_is_not_computable() -> None:
    # 2 x 2 with one empty cell: the interaction has (2-1)(2-1) - 1 = 0 df and R's
    # anova() drops its row; ours says why
    df = pd.DataFrame(
        {
            "a": ["p", "p", "p", "p", "q", "q", "q"],
            "b": ["u", "u", "v", "v", "u", "u", "u"],
            "y": [1.0, 2.0, 4.0, 4.5, 3.0, 3.5, 5.0],
        }
    )
    res = anova(df, "y", ["a", "b"], ss_type=1).set_index("source")
    assert res.loc[["a", "b", "Residual"], "computable"].all()
    assert not res.at["a:b", "computable"]
    assert "no degrees of freedom for a:b" in res.at["a:b", "reason"]
    # the additive part by hand: b adjusted for a is the contrast within level p
    assert res.at["a", "ss"] == pytest.approx(
        4 * 3 / 7 * (np.mean([1, 2, 4, 4.5]) - np.mean([3, 3.5, 5])) ** 2, rel=1e-12
    )
    assert res.at["b", "ss"] == pytest.approx(2 * 2 / 4 * (4.25 - 1.5) ** 2, rel=1e-12)


# ---------------------------------------------------------------- Tukey HSD


def _check_tukey(res: pd.DataFrame, ref: dict[str, Any]) -> None:
    """Oriented and ordered as R's TukeyHSD; p equal to R's ptukey to rounding."""
    assert res["computable"].all()
    assert (res["group_a"] + "-" + res["group_b"]).tolist() == list(ref["pair"])
    np.testing.assert_allclose(res["delta"], ref["diff"], rtol=1e-10, atol=1e-12)
    # R's qtukey stops its secant search at 1e-4; ours solves to 1e-12
    np.testing.assert_allclose(res["ci_low"], ref["lwr"], rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(res["ci_high"], ref["upr"], rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(res["p_adj"], ref["p"], rtol=1e-9, atol=1e-12)
    assert (res["mean_a"] - res["mean_b"]).to_numpy() == pytest.approx(
        res["delta"].to_numpy(), abs=1e-12
    )


@pytest.mark.parametrize("name", EMPTY)
def test_tukey_with_two_way_error_term_and_empty_cells_matches_r(name: str) -> None:
    res = pairwise_tukey(load(name), "y", "system", model=["system", "domain"])
    _check_tukey(res, reference()[name]["tukey_system_twoway"])
    assert res.at[0, "df_error"] == reference()[name]["df_resid"]


@pytest.mark.parametrize("which", ["twoway", "oneway"])
def test_tukey_300_pairs_match_r(which: str) -> None:
    ref = reference()["tukey_many"][f"tukey_system_{which}"]
    model = ["system", "domain"] if which == "twoway" else None
    res = pairwise_tukey(load("tukey_many"), "y", "system", model=model)
    assert len(res) == 300
    _check_tukey(res, ref)
    # R's first row is "sys02-sys01": mean(sys02) - mean(sys01)
    assert (res.at[0, "group_a"], res.at[0, "group_b"]) == ("sys02", "sys01")


def test_tukey_reject_agrees_with_the_interval() -> None:
    res = pairwise_tukey(load("tukey_many"), "y", "system", model=["system", "domain"])
    excludes_zero = (res["ci_low"] > 0) | (res["ci_high"] < 0)
    assert res["reject"].any() and not res["reject"].all()
    assert (res["reject"] == excludes_zero).all()


def test_subsets_sig_is_ptukey_of_the_range() -> None:
    df = load("tukey_many")
    sub = homogeneous_subsets(df, "y", "system", model=["system", "domain"])
    mse, dfe, _ = error_term(df, "y", ["system", "domain"])
    scale = np.sqrt(mse / sub.at[0, "n_harmonic"])
    assert sub["q_crit"].iloc[0] == pytest.approx(ptukey_isf(0.05, 25, dfe), rel=1e-12)
    assert float(ptukey_sf(sub["q_crit"].iloc[0], 25, dfe)[()]) == pytest.approx(
        0.05, rel=1e-9
    )
    for _, members in sub.groupby("subset"):
        rng = members["mean"].max() - members["mean"].min()
        expected = 1.0 if len(members) == 1 else ptukey_sf(rng / scale, 25, dfe)[()]
        assert members["sig"].iloc[0] == pytest.approx(expected, rel=1e-12)
        assert rng <= sub.at[0, "hsd"] + 1e-9


# ---------------------------------------------------------------- ptukey


def test_ptukey_matches_r_on_its_whole_grid() -> None:
    # every branch of R's algorithm: df <= 100, 800, 5000, 25000 and > 25000;
    # k = 2 to 1000; p from 1 down to 0 (absolute 1e-12: R computes 1 - P, so
    # below ~1e-13 its p-values are rounding noise; measured max 1.3e-13)
    ref = pd.DataFrame(reference()["ptukey"])
    assert len(ref) == 1680
    for (k, df), part in ref.groupby(["k", "df"]):
        ours = ptukey_sf(part["q"].to_numpy(), int(k), float(df))
        np.testing.assert_allclose(ours, part["p"], rtol=0, atol=1e-12)
        big = part["p"].to_numpy() > 1e-4  # relative too, where 1e-13 is small
        np.testing.assert_allclose(ours[big], part["p"][big], rtol=1e-9)


def test_ptukey_blocks_and_special_values(monkeypatch: pytest.MonkeyPatch) -> None:
    q = np.linspace(0.05, 9, 41)
    whole = ptukey_sf(q, 7, 30)
    monkeypatch.setattr(posthoc, "_CHUNK", 4)  # many blocks give the same values
    np.testing.assert_array_equal(ptukey_sf(q, 7, 30), whole)
    special = ptukey_sf([0.0, -1.0, np.inf, np.nan], 7, 30)
    assert special[:3].tolist() == [1.0, 1.0, 0.0] and np.isnan(special[3])
    assert np.isnan(ptukey_sf(2.0, 1, 30)[()])
    # R gives NaN for df < 2; SciPy's quadrature is used there
    from scipy.stats import studentized_range

    assert ptukey_sf(3.0, 4, 1.5)[()] == pytest.approx(
        studentized_range.sf(3.0, 4, 1.5), rel=1e-12
    )


def test_disconnected_design_leaves_no_df_for_adjusted_terms() -> None:
    # system A only in domain x, B only in y: domain is confounded with system
    df = pd.DataFrame(
        {
            "s": ["A"] * 3 + ["B"] * 3,
            "d": ["x"] * 3 + ["y"] * 3,
            "y": [1, 2, 3, 5, 6, 8.0],
        }
    )
    seq = anova(df, "y", ["s", "d"], ss_type=1).set_index("source")
    assert seq.at["s", "computable"] and seq.at["s", "df"] == 1
    assert seq.at["s", "ss"] == pytest.approx(3 * 3 / 6 * (2 - 19 / 3) ** 2, rel=1e-12)
    for ss_type, terms in ((1, ["d", "s:d"]), (2, ["s", "d", "s:d"])):
        res = anova(df, "y", ["s", "d"], ss_type=ss_type).set_index("source")
        for term in terms:
            assert not res.at[term, "computable"]
            assert res.at[term, "reason"].startswith(
                f"no degrees of freedom for {term}"
            )
        assert res.at["Residual", "computable"] and res.at["Residual", "df"] == 4


@pytest.mark.parametrize(
    ("f", "df1", "df2"),
    [
        (3.2, 4, 100),
        (0.0, 2, 5),
        (-1e-12, 2, 3),
        (1e-9, 3, 3),
        (50.0, 1, 1000),
        (1.7, 999, 111_000),
        (float("inf"), 2, 3),
        (float("nan"), 2, 2),
        (2.0, 0, 5),
        (0.0, 0, 5),
        (-1.0, 3, 0),
        (0.0, float("nan"), 3),
        (2.0, 2.5, 7.5),
    ],
)
def test_f_tail_is_scipy_stats_f_sf(f: float, df1: int, df2: int) -> None:
    """The ANOVA's p values come from scipy.special.fdtrc, the function
    scipy.stats.f.sf calls, without importing scipy.stats: the same numbers, 1
    below the support and NaN without degrees of freedom."""
    from scipy.stats import f as f_dist

    from stecflow.stats.anova import _f_sf

    np.testing.assert_equal(_f_sf(f, df1, df2), f_dist.sf(f, df1, df2))


def test_one_way_anova_and_tukey_leave_scipy_stats_unloaded() -> None:
    """Loading scipy.stats takes about 1.1 s in a job that has pandas already;
    the scores' ANOVA and Tukey need none of it."""
    import subprocess
    import sys

    code = (
        "import sys, pandas as pd\n"
        "from stecflow.stats.anova import anova\n"
        "from stecflow.stats.posthoc import pairwise_tukey\n"
        "d = pd.DataFrame({'y': [1., 2., 3., 2., 5., 6., 4., 8., 9.],"
        " 'g': list('aaabbbccc')})\n"
        "anova(d, 'y', ['g']); pairwise_tukey(d, 'y', 'g')\n"
        "assert 'scipy.stats' not in sys.modules, 'scipy.stats was loaded'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)

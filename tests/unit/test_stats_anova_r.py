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

from stecflow.stats.anova import anova, error_term

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

"""stecflow.stats.mixed against lme4 and lmerTest (tests/r/make_reference_mixed.R).

The data sets and R's results are in tests/data/r_reference/ (mixed_*.csv,
mixed.json), so these tests do not need R. Every model was fitted in R twice: with
lmer's default optimiser settings ("default", what users of lme4 publish) and with
a tight tolerance ("tight"). Our optimum is the tighter one, so:

* against "tight" we assert what both compute exactly to 1e-8 (fixed effects),
  1e-10 (logLik, REMLcrit) and 1e-6 (SEs, vcov, variance components, t), and the
  Satterthwaite df to 1e-5 (lmerTest takes its Hessian by numDeriv, good to ~1e-7);
* against "default" the tolerances are those of lme4's own stopping rule
  (BOBYQA, xtol_abs = ftol_abs = 1e-8, which leaves theta ~7e-6 off the optimum on
  the sparse design): 1e-5 for fixed effects, SEs, intervals, logLik and REMLcrit,
  3e-5 for the variance components (their relative error is twice that of theta),
  1e-4 for the df and for log p (p itself inherits t's error times t^2: a t of 40
  that is 4e-6 off moves p by 1e-2 relative).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from stecflow.stats import mixed as mixed_module
from stecflow.stats.mixed import MIXED_COLUMNS, mixed_model

DATA = Path(__file__).resolve().parents[1] / "data" / "r_reference"


@cache
def reference() -> dict[str, Any]:
    with (DATA / "mixed.json").open(encoding="utf-8") as fh:
        return json.load(fh)


@cache
def _load(name: str) -> pd.DataFrame:
    return pd.read_csv(DATA / f"{name}.csv", keep_default_na=False, na_values=[""])


def load(name: str) -> pd.DataFrame:
    return _load(name).copy()


# (data set, key in mixed.json, dv, transform, coding, reml)
CASES = [
    ("mixed_unbalanced", "rating_means", "rating", "none", "means", True),
    ("mixed_unbalanced", "rating_treatment", "rating", "none", "treatment", True),
    ("mixed_unbalanced", "logtime_means", "time_ms", "log", "means", True),
    ("mixed_unbalanced", "rating_means_ml", "rating", "none", "means", False),
    ("mixed_sparse", "rating_means", "rating", "none", "means", True),
    ("mixed_sparse", "rating_treatment", "rating", "none", "treatment", True),
    ("mixed_singular", "rating_means", "rating", "none", "means", True),
]
IDS = [f"{c[0].removeprefix('mixed_')}-{c[1]}" for c in CASES]


@cache
def _fit(name: str, dv: str, transform: str, coding: str, reml: bool) -> pd.DataFrame:
    return mixed_model(
        load(name),
        dv,
        transform=transform,  # type: ignore[arg-type]
        coding=coding,  # type: ignore[arg-type]
        reml=reml,
    )


def fit_case(case: tuple[Any, ...]) -> tuple[pd.DataFrame, pd.DataFrame, pd.Series]:
    name, _key, dv, transform, coding, reml = case
    res = _fit(name, dv, transform, coding, reml).copy()
    fixed = res[res["effect"] == "fixed"]
    random = res[res["effect"] == "random"].set_index("term")["estimate"]
    return res, fixed, random


def r_variances(ref: dict[str, Any]) -> np.ndarray:
    vc = dict(zip(ref["vc_group"], ref["vc_var"], strict=True))
    return np.array([vc["subject"], vc["item"], vc["Residual"]])


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fit_matches_lme4_tight(case: tuple[Any, ...]) -> None:
    ref = reference()[case[0]][case[1]]["tight"]
    res, fixed, random = fit_case(case)
    assert res["computable"].all() and res["converged"].all()
    assert list(res.columns) == MIXED_COLUMNS
    np.testing.assert_allclose(fixed["estimate"], ref["estimate"], rtol=1e-8)
    np.testing.assert_allclose(fixed["se"], ref["se"], rtol=1e-6)
    np.testing.assert_allclose(fixed["t"], ref["t"], rtol=1e-6)
    np.testing.assert_allclose(
        random[["subject", "item", "residual"]], r_variances(ref), rtol=1e-6, atol=1e-12
    )
    assert res["loglik"].iloc[0] == pytest.approx(ref["loglik"], rel=1e-10)
    assert res["reml_crit"].iloc[0] == pytest.approx(ref["reml_crit"], rel=1e-10)
    assert (res["method"] == ("REML" if case[5] else "ML")).all()
    assert (res["singular"] == ref["singular"]).all()


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_satterthwaite_matches_lmertest_tight(case: tuple[Any, ...]) -> None:
    ref = reference()[case[0]][case[1]]["tight"]
    _, fixed, _ = fit_case(case)
    np.testing.assert_allclose(fixed["df"], ref["df"], rtol=1e-5)
    np.testing.assert_allclose(fixed["p_val"], ref["p"], rtol=1e-4)
    # lmerTest::contest(confint = TRUE): estimate -/+ qt(.975, df) * se
    np.testing.assert_allclose(fixed["ci_low"], ref["ci_low"], rtol=1e-7)
    np.testing.assert_allclose(fixed["ci_high"], ref["ci_high"], rtol=1e-7)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fit_matches_lme4_default(case: tuple[Any, ...]) -> None:
    ref = reference()[case[0]][case[1]]["default"]
    res, fixed, random = fit_case(case)
    np.testing.assert_allclose(fixed["estimate"], ref["estimate"], rtol=1e-5)
    np.testing.assert_allclose(fixed["se"], ref["se"], rtol=1e-5)
    np.testing.assert_allclose(
        random[["subject", "item", "residual"]], r_variances(ref), rtol=3e-5
    )
    assert res["loglik"].iloc[0] == pytest.approx(ref["loglik"], rel=1e-10)
    # an ML fit's REMLcrit is not at its own optimum: first-order in theta's error
    assert res["reml_crit"].iloc[0] == pytest.approx(ref["reml_crit"], rel=1e-8)
    # our optimum is at least as good as lme4's (a higher REML or ML log-likelihood)
    assert res["loglik"].iloc[0] >= ref["loglik"] - 1e-9
    np.testing.assert_allclose(fixed["df"], ref["df"], rtol=1e-4)
    np.testing.assert_allclose(np.log(fixed["p_val"]), np.log(ref["p"]), rtol=1e-4)
    np.testing.assert_allclose(fixed["ci_low"], ref["ci_low"], rtol=1e-5)
    np.testing.assert_allclose(fixed["ci_high"], ref["ci_high"], rtol=1e-5)


def test_balanced_latin_square_matches_lme4() -> None:
    """The older reference (reference.json, default lmer) to 1e-5, not 2e-3."""
    with (DATA / "reference.json").open(encoding="utf-8") as fh:
        refs = json.load(fh)["mixed_crossed"]
    data = pd.read_csv(DATA / "mixed_crossed.csv")
    for key, dv, transform, coding in [
        ("rating_means", "rating", "none", "means"),
        ("rating_treatment", "rating", "none", "treatment"),
        ("logtime_means", "time_ms", "log", "means"),
    ]:
        ref = refs[key]
        res = mixed_model(data, dv, transform=transform, coding=coding)  # type: ignore[arg-type]
        fixed = res[res["effect"] == "fixed"]
        random = res[res["effect"] == "random"].set_index("term")["estimate"]
        np.testing.assert_allclose(fixed["estimate"], ref["estimate"], rtol=1e-8)
        np.testing.assert_allclose(fixed["se"], ref["se"], rtol=1e-5)
        np.testing.assert_allclose(
            random[["subject", "item", "residual"]], r_variances(ref), rtol=3e-5
        )
        assert res["loglik"].iloc[0] == pytest.approx(ref["loglik"], rel=1e-10)


def test_singular_fit_is_flagged_with_lme4s_numbers() -> None:
    case = CASES[-1]
    ref = reference()[case[0]][case[1]]["default"]
    assert (
        ref["singular"]
        and ref["theta"][ref["theta_names"].index("item.(Intercept)")] == 0
    )
    res, fixed, random = fit_case(case)
    assert res["singular"].all() and res["computable"].all()
    assert random["item"] == 0.0 and random["subject"] > 0
    assert all(
        note.startswith("singular fit") and "item variance is estimated at 0" in note
        for note in res["note"]
    )
    assert not fixed[["estimate", "se", "df", "t", "p_val"]].isna().any().any()
    # lmerTest at theta_item = 0 equals the df of the model without item intercepts
    np.testing.assert_allclose(fixed["df"], ref["df"], rtol=1e-5)


def test_non_singular_fits_have_no_note() -> None:
    res, _, _ = fit_case(CASES[0])
    assert not res["singular"].any() and (res["note"] == "").all()


def test_zero_residual_variance_is_not_computable() -> None:
    rows = [(s, i, "AB"[(s + i) % 2]) for s in range(5) for i in range(6)]
    df = pd.DataFrame(rows, columns=["subject", "item", "system"])
    # an exact sum of system, subject and item effects: no residual
    df["y"] = 10.0 + 3 * (df["system"] == "B") + 0.7 * df["subject"] - 0.4 * df["item"]
    res = mixed_model(df, "y")
    assert not res["computable"].any()
    assert res["reason"].str.startswith("zero residual variance").all()
    assert res[["estimate", "se", "df", "t", "p_val"]].isna().all().all()
    assert len(res) == 5 and list(res["term"]) == [
        "A",
        "B",
        "subject",
        "item",
        "residual",
    ]
    # a little noise makes it computable again
    df.loc[0, "y"] += 0.5
    assert mixed_model(df, "y")["computable"].all()


def test_identical_subject_and_item_grouping_is_not_computable() -> None:
    df = pd.DataFrame(
        {"subject": np.repeat(np.arange(8), 3), "system": list("ABC") * 8}
    )
    df["item"] = "item" + df["subject"].astype(str)
    df["y"] = np.sin(np.arange(24.0)) + np.repeat(np.cos(np.arange(8.0)), 3)
    res = mixed_model(df, "y")
    assert not res["computable"].any()
    assert res["reason"].str.contains("cannot be separated").all()


def test_both_variances_at_zero_gives_the_ordinary_least_squares_t_test() -> None:
    """Singular in both components: lmerTest's df are those of OLS, n - p."""
    rows = [(s, i, "AB"[(s + i) % 2]) for s in range(6) for i in range(8)]
    df = pd.DataFrame(rows, columns=["subject", "item", "system"])
    df["y"] = np.sin(1.7 * np.arange(48.0))
    res = mixed_model(df, "y")
    fixed = res[res["effect"] == "fixed"].set_index("term")
    assert res["singular"].all() and res["computable"].all()
    assert "subject variance is estimated at 0 and the item" in res.at[0, "note"]
    groups = df.groupby("system")["y"]
    s2 = float(((df["y"] - groups.transform("mean")) ** 2).sum()) / (48 - 2)
    np.testing.assert_allclose(fixed["estimate"], groups.mean(), rtol=1e-12)
    np.testing.assert_allclose(fixed["se"], np.sqrt(s2 / groups.size()), rtol=1e-10)
    np.testing.assert_allclose(fixed["df"], 46.0, rtol=1e-10)


def test_no_satterthwaite_df_is_not_computable_without_nan_results(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_df(data: Any, fitted: Any, reml: bool) -> tuple[np.ndarray, bool]:
        return np.full(data.p, np.nan), False

    monkeypatch.setattr(mixed_module, "_satterthwaite", no_df)
    res = mixed_model(load("mixed_unbalanced"), "rating")
    assert not res["computable"].any()
    assert res["reason"].str.contains("not positive definite").all()
    fixed = res[res["effect"] == "fixed"]
    assert fixed["estimate"].notna().all() and fixed["p_val"].isna().all()


def test_log_transform_back_transforms_estimates_and_intervals() -> None:
    _, fixed, _ = fit_case(CASES[2])
    np.testing.assert_allclose(fixed["response_estimate"], np.exp(fixed["estimate"]))
    np.testing.assert_allclose(fixed["response_ci_low"], np.exp(fixed["ci_low"]))
    np.testing.assert_allclose(fixed["response_ci_high"], np.exp(fixed["ci_high"]))


def test_confidence_level_changes_only_the_intervals() -> None:
    res95 = _fit("mixed_sparse", "rating", "none", "treatment", True)
    res90 = mixed_model(
        load("mixed_sparse"), "rating", coding="treatment", confidence=0.9
    )
    pd.testing.assert_series_equal(res95["p_val"], res90["p_val"])
    fixed = res90["effect"] == "fixed"
    assert (res90.loc[fixed, "ci_high"] < res95.loc[fixed, "ci_high"]).all()


def test_result_does_not_depend_on_row_order_or_labels() -> None:
    data = load("mixed_sparse")
    base = _fit("mixed_sparse", "rating", "none", "means", True)
    shuffled = data.sample(frac=1.0, random_state=3).reset_index(drop=True)
    shuffled["subject"] = "x" + shuffled["subject"].str[::-1]
    res = mixed_model(shuffled, "rating")
    cols = ["estimate", "se", "df", "p_val", "loglik"]
    np.testing.assert_allclose(res[cols].to_numpy(), base[cols].to_numpy(), rtol=1e-7)


def test_missing_values_are_counted_and_dropped() -> None:
    data = load("mixed_unbalanced")
    data.loc[[3, 50], "rating"] = np.nan
    res = mixed_model(data, "rating")
    assert (res["n_missing"] == 2).all() and (res["n"] == len(data) - 2).all()
    assert res["computable"].all()

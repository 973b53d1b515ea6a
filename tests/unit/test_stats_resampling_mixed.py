"""Seeded bootstrap, paired bootstrap, MANOVA follow-ups and the mixed model."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from stecflow.stats.manova import manova, manova_followups
from stecflow.stats.mixed import mixed_model
from stecflow.stats.resampling import bootstrap_ci, derive_rng, paired_bootstrap


def scores(seed: int = 7, systems: str = "abc", n_items: int = 40) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    item_eff = rng.normal(0, 1, n_items)
    rows = []
    for k, s in enumerate(systems):
        for i in range(n_items):
            rows.append((s, f"item{i:02d}", 0.3 * k + item_eff[i] + rng.normal(0, 0.5)))
    return pd.DataFrame(rows, columns=["system", "item", "score"])


def test_bootstrap_is_reproducible_and_seed_dependent() -> None:
    df = scores()
    a = bootstrap_ci(df, "score", by="system", seed=11)
    b = bootstrap_ci(df, "score", by="system", seed=11)
    c = bootstrap_ci(df, "score", by="system", seed=12)
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a["ci_low"], c["ci_low"])
    assert (a["seed"] == 11).all() and (a["n_boot"] == 1000).all()


def test_bootstrap_groups_are_independent_of_each_other() -> None:
    df = scores()
    full = bootstrap_ci(df, "score", by="system", seed=3).set_index("group")
    part = bootstrap_ci(df[df["system"] != "b"], "score", by="system", seed=3)
    part = part.set_index("group")
    pd.testing.assert_series_equal(full.loc[["a", "c"], "ci_low"], part["ci_low"])


def test_bootstrap_percentile_close_to_t_interval() -> None:
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"y": rng.normal(10, 2, 200)})
    res = bootstrap_ci(df, "y", seed=5, n_boot=4000)
    t_low, t_high = sps.t.interval(
        0.95, 199, loc=df["y"].mean(), scale=sps.sem(df["y"])
    )
    assert res.at[0, "group"] == "all"
    assert res.at[0, "ci_low"] == pytest.approx(t_low, abs=0.05)
    assert res.at[0, "ci_high"] == pytest.approx(t_high, abs=0.05)


def test_bootstrap_bca_close_to_scipy() -> None:
    rng = np.random.default_rng(1)
    y = rng.exponential(2.0, 60)
    ours = bootstrap_ci(pd.DataFrame({"y": y}), "y", seed=2, n_boot=20000, method="bca")
    ref = sps.bootstrap(
        (y,), np.mean, n_resamples=20000, method="BCa", rng=np.random.default_rng(2)
    ).confidence_interval
    assert ours.at[0, "ci_low"] == pytest.approx(ref.low, rel=0.02)
    assert ours.at[0, "ci_high"] == pytest.approx(ref.high, rel=0.02)


def test_bootstrap_median() -> None:
    res = bootstrap_ci(
        pd.DataFrame({"y": [1.0, 2, 3, 4, 100]}), "y", seed=1, statistic="median"
    )
    assert res.at[0, "estimate"] == 3.0 and res.at[0, "ci_high"] <= 100


def test_derive_rng_depends_on_labels() -> None:
    assert derive_rng(1, "a").integers(1 << 30) != derive_rng(1, "b").integers(1 << 30)


def test_paired_bootstrap_detects_difference_and_is_reproducible() -> None:
    df = scores()
    res = paired_bootstrap(
        df, "score", "system", "item", baseline="a", seed=9, n_boot=2000
    )
    again = paired_bootstrap(
        df, "score", "system", "item", baseline="a", seed=9, n_boot=2000
    )
    pd.testing.assert_frame_equal(res, again)
    res = res.set_index("system")
    assert list(res.index) == ["b", "c"]
    assert res.at["c", "delta"] == pytest.approx(
        df[df.system == "c"].score.mean() - df[df.system == "a"].score.mean()
    )
    assert res.at["c", "p_val"] < 0.01
    assert res.at["c", "ci_low"] < res.at["c", "delta"] < res.at["c", "ci_high"]
    assert res.at["c", "p_val"] >= 1 / 2001


def test_paired_bootstrap_null_p_is_not_small() -> None:
    rng = np.random.default_rng(4)
    base = rng.normal(size=50)
    df = pd.DataFrame(
        {
            "system": ["base"] * 50 + ["same"] * 50,
            "item": list(range(50)) * 2,
            "y": np.concatenate([base, base + rng.normal(0, 0.3, 50)]),
        }
    )
    res = paired_bootstrap(df, "y", "system", "item", baseline="base", seed=1)
    t = sps.ttest_rel(df.y[50:], df.y[:50])
    assert res.at[0, "p_val"] == pytest.approx(t.pvalue, abs=0.06)


def test_paired_bootstrap_pair_does_not_depend_on_other_systems() -> None:
    df = scores()
    full = paired_bootstrap(df, "score", "system", "item", baseline="a", seed=2)
    only_c = paired_bootstrap(
        df[df.system != "b"], "score", "system", "item", baseline="a", seed=2
    )
    assert full.set_index("system").at["c", "p_val"] == only_c.at[0, "p_val"]


def test_manova_followups_bonferroni_per_term() -> None:
    rng = np.random.default_rng(8)
    df = pd.DataFrame(
        {
            "trainable": np.repeat(["no", "yes"], 30),
            "incremental": np.tile(np.repeat(["no", "yes"], 15), 2),
        }
    )
    df["dice"] = 0.5 + 0.1 * (df.trainable == "yes") + rng.normal(0, 0.05, 60)
    df["masi"] = 0.3 + 0.1 * (df.trainable == "yes") + rng.normal(0, 0.05, 60)
    df["rt"] = 1500 + rng.normal(0, 100, 60)
    dvs = ["dice", "masi", "rt"]
    mv = manova(df, dvs, ["trainable", "incremental"])
    assert set(mv["source"]) == {"trainable", "incremental", "trainable:incremental"}
    wilks = mv[mv.test == "wilks"].set_index("source")
    assert wilks.at["trainable", "p_adj"] == pytest.approx(
        min(1, 3 * wilks.at["trainable", "p_val"])
    )
    assert (wilks["df1"] == 3).all()
    fu = manova_followups(df, dvs, ["trainable", "incremental"])
    assert len(fu) == 9
    for _, group in fu.groupby("source"):
        np.testing.assert_allclose(group["p_adj"], np.minimum(1, 3 * group["p_val"]))
    main_only = manova(
        df, dvs, ["trainable", "incremental"], terms=["trainable", "incremental"]
    )
    assert set(main_only["source"]) == {"trainable", "incremental"}


def test_manova_followups_match_anova() -> None:
    from stecflow.stats.anova import anova

    rng = np.random.default_rng(2)
    df = pd.DataFrame(
        {"g": np.repeat(list("abc"), [4, 6, 5]), "h": list("xy" * 7) + ["x"]}
    )
    df["u"] = rng.normal(size=15)
    df["v"] = rng.normal(size=15)
    fu = manova_followups(df, ["u", "v"], ["g", "h"]).set_index(["dv", "source"])
    ref = anova(df, "u", ["g", "h"]).set_index("source")
    for term in ("g", "h", "g:h"):
        assert fu.at[("u", term), "f"] == pytest.approx(ref.at[term, "f"])
        assert fu.at[("u", term), "np2"] == pytest.approx(ref.at[term, "np2"])


def test_mixed_model_treatment_coding_differences() -> None:
    df = pd.read_csv(
        __import__("pathlib").Path(__file__).resolve().parents[1]
        / "data"
        / "r_reference"
        / "mixed_crossed.csv"
    )
    means = mixed_model(df, "rating").query("effect == 'fixed'").set_index("term")
    treat = mixed_model(df, "rating", coding="treatment", reference="B")
    treat = treat.query("effect == 'fixed'").set_index("term")
    assert list(treat.index) == ["(Intercept)", "A", "C", "D"]
    assert treat.at["(Intercept)", "estimate"] == pytest.approx(
        means.at["B", "estimate"], rel=1e-4
    )
    assert treat.at["D", "estimate"] == pytest.approx(
        means.at["D", "estimate"] - means.at["B", "estimate"], abs=1e-3
    )


def test_mixed_model_log_time_back_transform() -> None:
    df = pd.read_csv(
        __import__("pathlib").Path(__file__).resolve().parents[1]
        / "data"
        / "r_reference"
        / "mixed_crossed.csv"
    )
    res = mixed_model(df, "time_ms", transform="log").query("effect == 'fixed'")
    np.testing.assert_allclose(res["response_estimate"], np.exp(res["estimate"]))
    assert (res["response_estimate"].between(2000, 4500)).all()
    assert (res["transform"] == "log").all() and res["converged"].all()

"""Reaction-time outliers: REFERENCE.md §14 worked example and test vectors."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from stecflow.judgments import JudgmentsError
from stecflow.judgments.outliers import (
    OUTLIER_CELL_COLUMNS,
    OutlierSettings,
    max_abs_z,
    outlier_sentence,
    replace_outliers,
    sd_bounds,
    short_count,
    treat_outliers,
)

# REFERENCE.md §14 test vector.
RT = [500, 520, 480, 510, 2000, 490, 505, 495, 515, 485]


def test_reference_worked_example():
    mean, sd, lower, upper = sd_bounds(RT)
    assert mean == 650.0
    assert round(sd, 6) == 474.517299
    assert round(lower, 3) == -299.035 and round(upper, 3) == 1599.035
    result = replace_outliers(RT)
    assert result.outlier.tolist() == [False] * 4 + [True] + [False] * 5
    assert result.n == 10 and result.n_outliers == 1
    assert result.replacement_value == 500.0  # SPSS RMV SMEAN after recoding
    assert result.adjusted.tolist() == [
        500,
        520,
        480,
        510,
        500,
        490,
        505,
        495,
        515,
        485,
    ]
    including = replace_outliers(RT, replacement="mean_including")
    assert including.adjusted[4] == 650.0
    dropped = replace_outliers(RT, replacement="drop")
    assert math.isnan(dropped.adjusted[4])
    winsor = replace_outliers(RT, replacement="winsorize")
    assert round(winsor.adjusted[4], 3) == 1599.035


def test_max_abs_z_vectors():
    assert round(max_abs_z(5), 2) == 1.79
    assert round(max_abs_z(10), 3) == 2.846
    assert max_abs_z(1) == 0.0
    assert max_abs_z(10, ddof=0) == pytest.approx(3.0)
    # The bound is attained by one extreme value among equal ones.
    for n in (3, 5, 10, 30):
        x = np.array([0.0] * (n - 1) + [1.0])
        z = (x[-1] - x.mean()) / x.std(ddof=1)
        assert z == pytest.approx(max_abs_z(n))


def test_small_series_cannot_have_outliers_and_warn():
    result = replace_outliers([500, 510, 505, 498, 5000])
    assert result.n_outliers == 0
    assert "largest possible |z| is 1.79" in result.warning
    single = replace_outliers([500.0])
    assert single.n_outliers == 0 and "undefined" in single.warning


def test_bounds_are_strict_and_nan_is_ignored():
    x = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 4.0, math.nan]
    r = replace_outliers(x, k=2.846049894151541 - 1e-9)
    assert r.n == 10 and r.n_outliers == 1
    r = replace_outliers(x, k=2.846049894151541 + 1e-9)
    assert r.n_outliers == 0
    assert math.isnan(r.adjusted[-1]) and not r.outlier[-1]


def test_ddof_zero_and_k():
    r = replace_outliers(RT, ddof=0)
    assert r.sd == pytest.approx(np.std(RT))
    assert replace_outliers(RT, k=3).n_outliers == 0


def test_fixed_and_none_rules():
    r = replace_outliers(
        [150, 800, 900, 16000], rule="fixed", fixed_min=200, fixed_max=15000
    )
    assert r.outlier.tolist() == [True, False, False, True]
    assert r.replacement_value == 850.0
    assert replace_outliers(RT, rule="none").n_outliers == 0
    every = replace_outliers([1.0, 2.0], rule="fixed", fixed_max=0.5)
    assert np.isnan(every.adjusted).all() and "every value" in every.warning


def test_settings_validation_and_signature():
    s = OutlierSettings.from_mapping(
        {"k": 2.5, "scope": "per_system_domain", "measures": ["rt_ms"]}
    )
    assert s.measures == ("rt_ms",)
    assert s.signature() == (
        "outliers|rule:sd|k:2.5|ddof:1|scope:per_system_domain|"
        "replacement:mean_excluding_outliers"
    )
    assert (
        OutlierSettings(rule="fixed", fixed_max_ms=15000)
        .signature()
        .startswith("outliers|rule:fixed|min:None|max:15000")
    )
    bad = [
        ({"rule": "iqr"}, "outliers.rule"),
        ({"scope": "per_day"}, "outliers.scope"),
        ({"replacement": "median"}, "outliers.replacement"),
        ({"k": 0}, "outliers.k"),
        ({"k": "2"}, "outliers.k"),
        ({"sd_ddof": 2}, "outliers.sd_ddof"),
        ({"measures": ["time"]}, "outliers.measures"),
        ({"rule": "fixed"}, "outliers.fixed_min_ms"),
        ({"cutoff": 3}, "outliers.cutoff"),
    ]
    for values, field in bad:
        with pytest.raises(JudgmentsError) as info:
            OutlierSettings.from_mapping(values)
        assert info.value.field == field
    assert OutlierSettings().to_dict()["measures"] == [
        "identification_time_ms",
        "reading_time_ms",
    ]


def frame():
    rng = np.random.default_rng(7)
    rows = []
    for system, shift in (("A", 0), ("B", 1500)):
        for subdomain in ("furniture", "people"):
            for k in range(12):
                rows.append(
                    {
                        "system": system,
                        "subdomain": subdomain,
                        "subject": f"s{k % 4}",
                        "rt": 3000 + shift + rng.normal(0, 300),
                    }
                )
    rows[0]["rt"] = 9000.0
    return pd.DataFrame(rows)


def test_treat_outliers_scope_all_equals_one_series():
    df = frame()
    out, cells = treat_outliers(df, "rt")
    direct = replace_outliers(df["rt"])
    assert out["rt_outlier"].tolist() == direct.outlier.tolist()
    assert np.allclose(out["rt_adjusted"], direct.adjusted)
    assert list(cells.columns) == list(OUTLIER_CELL_COLUMNS)
    assert cells["cell"].tolist() == ["all"]


def test_treat_outliers_per_system_domain():
    df = frame()
    out, cells = treat_outliers(
        df,
        "rt",
        settings={"scope": "per_system_domain"},
        flag_column="flag",
        adjusted_column="adj",
    )
    assert cells["cell"].tolist() == [
        "system=A, subdomain=furniture",
        "system=A, subdomain=people",
        "system=B, subdomain=furniture",
        "system=B, subdomain=people",
    ]
    assert cells["n"].tolist() == [12, 12, 12, 12]
    assert bool(out.loc[0, "flag"])
    first = df[(df.system == "A") & (df.subdomain == "furniture")]["rt"]
    expected = replace_outliers(first.to_numpy())
    assert out.loc[0, "adj"] == pytest.approx(expected.replacement_value)


def test_treat_outliers_per_subject_and_mask():
    df = frame()
    mask = np.ones(len(df), dtype=bool)
    mask[0] = False  # the extreme value is not in the series
    out, cells = treat_outliers(
        df, "rt", settings=OutlierSettings(scope="per_subject"), mask=mask
    )
    assert cells["cell"].tolist() == [f"subject=s{k}" for k in range(4)]
    assert math.isnan(out.loc[0, "rt_adjusted"]) and not out.loc[0, "rt_outlier"]
    assert int(cells["n"].sum()) == len(df) - 1


def test_sentence_in_the_seed_style():
    assert short_count(44, 896) == "44 of 896 data points (4.9%)"
    text = outlier_sentence(44, 896)
    assert "44 data points (4.9%) out of a total of 896" in text
    assert "mean ± 2SD range (computed over all trials)" in text
    assert "replaced with the series mean" in text
    dropped = outlier_sentence(
        3,
        120,
        measure="reading_time_ms",
        settings=OutlierSettings(replacement="drop", scope="per_subject", k=2.5),
    )
    assert dropped.startswith("Outliers were defined as those reading times")
    assert "mean ± 2.5SD range (computed per subject)" in dropped
    assert "left out of the analysis" in dropped
    assert outlier_sentence(0, 10).endswith("by this definition.")
    fixed = outlier_sentence(
        1, 10, settings=OutlierSettings(rule="fixed", fixed_max_ms=15000)
    )
    assert "range [-inf, 15000] ms" in fixed
    assert "No outlier treatment" in outlier_sentence(
        0, 10, settings=OutlierSettings(rule="none")
    )

"""Inter-rater agreement (stecflow.judgments.agreement) and z-normalisation
(stecflow.judgments.normalise), against published values, the reference
libraries (krippendorff, pingouin), R (psych) where installed, and hand
computations; and the report's agreement subsection."""

from __future__ import annotations

import json
import math
import runpy
import shutil
import subprocess
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from stecflow.core.errors import ConfigError
from stecflow.judgments._common import JudgmentsError
from stecflow.judgments.agreement import (
    AGREEMENT_COLUMNS,
    AgreementSettings,
    alpha,
    analysed_rows,
    icc,
    reliability_matrix,
    study_agreement,
    write_agreement,
)
from stecflow.judgments.normalise import add_z_scores, check_normalise
from tests.conftest import REPO

N = np.nan
# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", section C:
# observers A-D (rows) x 12 units, with missing values; alpha = 0.743 (nominal,
# section C) and 0.849 (interval, section E's table of the same data).
K2011 = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
        [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
    ]
)
# Shrout & Fleiss (1979), Table 1 (6 targets x 4 judges) and Table 2's values.
SF1979 = np.array(
    [
        [9, 2, 5, 8],
        [6, 1, 3, 2],
        [8, 4, 6, 8],
        [7, 1, 2, 6],
        [10, 5, 6, 9],
        [6, 2, 4, 7],
    ],
    dtype=float,
)


# ------------------------------------------------------------------------ alpha


def test_alpha_reproduces_krippendorff_2011_worked_examples():
    krippendorff = pytest.importorskip("krippendorff")
    assert alpha(K2011, "nominal") == pytest.approx(0.743, abs=5e-4)
    assert alpha(K2011, "interval") == pytest.approx(0.849, abs=5e-4)
    for level in ("nominal", "interval"):
        library = krippendorff.alpha(reliability_data=K2011, level_of_measurement=level)
        assert alpha(K2011, level) == pytest.approx(library, abs=1e-12)
    # nominal exactly: D_o = 4/40 = 0.1, D_e = ... gives 0.743421052631579
    assert alpha(K2011, "nominal") == pytest.approx(0.743421052631579, abs=1e-12)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.parametrize("level", ["nominal", "interval"])
def test_alpha_equals_the_library_on_incomplete_data(seed, level):
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(seed)
    data = rng.integers(1, 8 if level == "nominal" else 101, size=(9, 60)).astype(float)
    data[rng.random(data.shape) < 0.7] = np.nan
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    assert alpha(data, level) == pytest.approx(expected, abs=1e-12)


def test_alpha_is_undefined_without_pairable_values_or_variation():
    assert math.isnan(alpha(np.array([[1.0, N], [N, 2.0]]), "interval"))
    assert math.isnan(alpha(np.array([[3.0, 3.0], [3.0, 3.0]]), "nominal"))
    with pytest.raises(JudgmentsError, match="unknown level"):
        alpha(K2011, "ordinal")


# -------------------------------------------------------------------------- ICC


def test_icc_reproduces_shrout_fleiss_1979_table_2():
    two = icc(SF1979.T)
    one = icc(SF1979.T, model="one_way")
    assert two["model"] == "two_way" and one["model"] == "one_way"
    assert round(one["single"], 2) == 0.17 and round(one["average"], 2) == 0.44
    assert round(two["single"], 2) == 0.29 and round(two["average"], 2) == 0.62
    assert (two["k"], two["n_units"], two["n_raters"]) == (4.0, 6, 4)


def test_icc_equals_pingouin_on_complete_data():
    pg = pytest.importorskip("pingouin")
    rng = np.random.default_rng(7)
    true = rng.normal(50, 15, size=30)
    data = true[:, None] + rng.normal(0, 10, size=(30, 5)) + [0, 3, -2, 5, 1]
    long = pd.DataFrame(
        [(u, r, data[u, r]) for u in range(30) for r in range(5)],
        columns=["unit", "rater", "score"],
    )
    ref = pg.intraclass_corr(long, targets="unit", raters="rater", ratings="score")
    # rows in both 0.5 (ICC1, ICC2, ...) and 0.7 (ICC(1,1), ICC(A,1), ...) naming:
    # one-way, two-way absolute, two-way consistency; single, then average
    ref = list(ref["ICC"])
    two = icc(data.T)
    one = icc(data.T, model="one_way")
    assert one["single"] == pytest.approx(ref[0], abs=1e-10)
    assert two["single"] == pytest.approx(ref[1], abs=1e-10)
    assert one["average"] == pytest.approx(ref[3], abs=1e-10)
    assert two["average"] == pytest.approx(ref[4], abs=1e-10)


def test_icc_one_way_unbalanced_by_hand():
    # units A = [1, 3], B = [4, 6, 8], C = [2, 4]; N = 7, a = 3, grand mean 4:
    # SSB = 2*4 + 3*4 + 2*1 = 22, MSB = 11; SSW = 2 + 8 + 2 = 12, MSW = 3;
    # k0 = (7 - 17/7) / 2 = 16/7; ICC(1,1) = 8 / (11 + (16/7 - 1) 3) = 56/104,
    # ICC(1,k) = (MSB - MSW) / MSB = 8/11.
    data = np.array([[1, 4, 2], [3, 6, 4], [N, 8, N]], dtype=float)
    result = icc(data)
    assert result["model"] == "one_way"
    assert result["k"] == pytest.approx(16 / 7)
    assert result["single"] == pytest.approx(56 / 104)
    assert result["average"] == pytest.approx(8 / 11)


def test_icc_against_r_psych_when_installed():
    if shutil.which("Rscript") is None:
        pytest.skip("Rscript is not installed: the comparison with R's psych::ICC")
    probe = subprocess.run(
        ["Rscript", "-e", "library(psych)"], capture_output=True, text=True
    )
    if probe.returncode != 0:
        pytest.skip("R's psych package is not installed: no comparison with R")
    rows = ",".join(f"c({','.join(str(int(v)) for v in r)})" for r in SF1979)
    script = (
        f"x <- rbind({rows}); r <- psych::ICC(x, lmer = FALSE)$results;"
        " cat(r$ICC, sep = '\\n')"
    )
    out = subprocess.run(
        ["Rscript", "-e", script], capture_output=True, text=True, check=True
    )
    values = [float(v) for v in out.stdout.split()]  # ICC1 ICC2 ICC3 ICC1k ...
    assert icc(SF1979.T, model="one_way")["single"] == pytest.approx(values[0])
    assert icc(SF1979.T)["single"] == pytest.approx(values[1])
    assert icc(SF1979.T, model="one_way")["average"] == pytest.approx(values[3])
    assert icc(SF1979.T)["average"] == pytest.approx(values[4])


# ------------------------------------------------------------ a study's table


def _rating_table(seed: int = 0, raters_per_unit: int = 2) -> pd.DataFrame:
    """A Latin-square-like rating table: each (item, system) judged by
    *raters_per_unit* of 6 subjects, plus practice, control and excluded rows."""
    rng = np.random.default_rng(seed)
    rows = []
    systems = ["t/a", "t/b", "t/c"]
    quality = {"t/a": 70, "t/b": 50, "t/c": 30}
    for i in range(12):
        for s_index, system in enumerate(systems):
            for r in range(raters_per_unit):
                subject = f"s{(i + s_index + 3 * r) % 6}"
                base = quality[system] + rng.normal(0, 8)
                rows.append(
                    {
                        "subject": subject,
                        "item": f"i{i:02d}",
                        "system": system,
                        "practice": "false",
                        "filler": "false",
                        "excluded": "false",
                        "in_analysis": "true",
                        "control": "",
                        "adequacy": f"{base + rng.normal(0, 5):.0f}",
                        "fluency": f"{base + rng.normal(0, 5):.0f}",
                    }
                )
    extra = dict(rows[0])
    rows.append({**extra, "practice": "true", "in_analysis": "false"})
    rows.append({**extra, "system": "CONTROL", "control": "degraded", "adequacy": "2"})
    rows.append({**extra, "excluded": "true", "in_analysis": "false"})
    return pd.DataFrame(rows)


STUDY = {"id": "rate", "task": "rating", "seed": 11}


def test_study_agreement_rows_and_reasons():
    table = _rating_table()
    rows, facts = study_agreement(table, STUDY, {"bootstrap": 200})
    assert facts["dropped"] == {
        "control": 1,
        "excluded": 1,
        "filler": 0,
        "not_in_analysis": 0,
        "practice": 1,
    }
    assert facts["rows_used"] == 12 * 3 * 2
    by = {(r["criterion"], r["coefficient"]): r for r in rows}
    assert set(by) == {
        (c, k)
        for c in ("adequacy", "fluency")
        for k in ("alpha", "ICC(1,1)", "ICC(1,k)")
    }
    first = by[("adequacy", "alpha")]
    assert (first["n_units"], first["n_pairable"], first["raters_per_unit"]) == (
        36,
        72,
        2.0,
    )
    assert first["n_raters"] == 6
    # point estimates: the library's alpha, the hand-checked ICC on the same matrix
    matrix, *_ = reliability_matrix(
        analysed_rows(table)[0].assign(u=lambda f: f["item"] + "|" + f["system"]),
        unit="u",
        rater="subject",
        value="adequacy",
        level="interval",
    )
    assert first["estimate"] == pytest.approx(alpha(matrix, "interval"), abs=1e-12)
    one = icc(matrix)
    assert by[("adequacy", "ICC(1,1)")]["estimate"] == pytest.approx(one["single"])
    for r in rows:  # systems differ a lot: strong agreement, CI around it
        assert 0.5 < r["estimate"] < 1
        assert r["ci_low"] < r["estimate"] < r["ci_high"]
        assert r["n_boot"] == 200


def test_bootstrap_is_seeded():
    table = _rating_table()
    a, _ = study_agreement(table, STUDY, {"bootstrap": 100})
    b, _ = study_agreement(table, STUDY, {"bootstrap": 100})
    c, _ = study_agreement(table, STUDY, {"bootstrap": 100, "seed": 12})
    assert a == b
    assert [r["ci_low"] for r in a] != [r["ci_low"] for r in c]
    assert [r["estimate"] for r in a] == [r["estimate"] for r in c]


def test_units_judged_once_give_no_agreement_and_say_why():
    rows, _ = study_agreement(_rating_table(raters_per_unit=1), STUDY, {})
    assert all(math.isnan(r["estimate"]) and r["n_units"] == 0 for r in rows)
    assert "more than one participant" in rows[0]["note"]


def test_preference_units_ignore_sides_and_ties_are_a_category():
    rows = []
    for i in range(8):
        for n, (left, right) in enumerate([("x", "y"), ("y", "x")]):
            winner = "x" if i % 3 else ""
            rows.append(
                {
                    "subject": f"s{n}",
                    "item": f"i{i}",
                    "system_left": left,
                    "system_right": right,
                    "preferred": "tie" if not winner else "left",
                    "winner": winner,
                    "in_analysis": "true",
                    "excluded": "false",
                }
            )
    study = {
        "id": "pref",
        "task": "text_preference",
        "seed": 1,
        "criteria": [{"id": "overall"}],
    }
    result, _ = study_agreement(pd.DataFrame(rows), study, {"bootstrap": 0})
    (row,) = result
    assert (row["criterion"], row["level"], row["n_units"]) == ("overall", "nominal", 8)
    assert row["estimate"] == pytest.approx(1.0)  # both raters always agree
    assert math.isnan(row["ci_low"]) and row["n_boot"] == 0


def test_settings_are_checked():
    with pytest.raises(JudgmentsError, match="agreement.bootsrap"):
        AgreementSettings.from_mapping({"bootsrap": 3})
    with pytest.raises(JudgmentsError, match="agreement.confidence"):
        AgreementSettings.from_mapping({"confidence": 1.5})


def test_write_agreement_is_deterministic_and_records_settings(tmp_path):
    table = _rating_table()
    add = table.to_dict("records")
    add_z_scores(add, ["adequacy", "fluency"])
    path = tmp_path / "rate.tsv"
    pd.DataFrame(add).to_csv(path, sep="\t", index=False)
    study = {**STUDY, "normalise": "z", "agreement": {"bootstrap": 50}}
    for n in (1, 2):
        write_agreement(
            path, tmp_path / f"a{n}.tsv", tmp_path / f"a{n}.json", study=study
        )
    assert (tmp_path / "a1.tsv").read_bytes() == (tmp_path / "a2.tsv").read_bytes()
    assert (tmp_path / "a1.json").read_bytes() == (tmp_path / "a2.json").read_bytes()
    header = (tmp_path / "a1.tsv").read_text().splitlines()[0].split("\t")
    assert tuple(header) == AGREEMENT_COLUMNS
    summary = json.loads((tmp_path / "a1.json").read_text())
    assert summary["settings"]["bootstrap"] == 50
    assert summary["settings"]["seed"] == 11
    assert summary["libraries"]["krippendorff"]
    means = {(m["criterion"], m["system"]): m for m in summary["system_means"]}
    assert (
        means[("adequacy", "t/a")]["z_mean"] > 0 > means[("adequacy", "t/c")]["z_mean"]
    )


def test_adapter_calls_the_library(tmp_path):
    path = tmp_path / "rate.tsv"
    _rating_table().to_csv(path, sep="\t", index=False)
    adapter = runpy.run_path(str(REPO / "workflow/scripts/compute_agreement.py"))
    adapter["main"](
        SimpleNamespace(
            input=SimpleNamespace(judgments=str(path)),
            output=SimpleNamespace(
                table=str(tmp_path / "out.tsv"), settings=str(tmp_path / "out.json")
            ),
            params=SimpleNamespace(spec={**STUDY, "agreement": {"bootstrap": 10}}),
            log=[str(tmp_path / "log.txt")],
        )
    )
    assert len((tmp_path / "out.tsv").read_text().splitlines()) == 1 + 6


# -------------------------------------------------------------------- z-scores


def test_z_scores_by_hand():
    # rater s1: 10, 20, 60 -> mean 30, SD (n-1) = sqrt((400+100+900)/2) = sqrt(700)
    # rater s2: 50, 50 -> constant, no z; practice and excluded rows never count
    rows = [
        {"subject": "s1", "adequacy": "10", "practice": False},
        {"subject": "s1", "adequacy": "20", "practice": False},
        {"subject": "s1", "adequacy": "60", "practice": False},
        {"subject": "s1", "adequacy": "99", "practice": True},
        {"subject": "s1", "adequacy": "0", "excluded": "true"},
        {"subject": "s1", "adequacy": "", "practice": False},
        {"subject": "s2", "adequacy": "50"},
        {"subject": "s2", "adequacy": "50"},
    ]
    assert add_z_scores(rows, ["adequacy"]) == ("adequacy_z",)
    sd = math.sqrt(700)
    z = [r["adequacy_z"] for r in rows]
    assert z[:3] == pytest.approx([-20 / sd, -10 / sd, 30 / sd])
    assert z[3:] == [None] * 5
    assert add_z_scores(rows, ["adequacy"], normalise=None) == ()
    with pytest.raises(JudgmentsError, match="normalise"):
        add_z_scores(rows, ["adequacy"], normalise="minmax")


def test_z_scores_equal_pandas_groupwise_standardisation():
    table = _rating_table(seed=3)
    table = table[table["practice"] == "false"]
    table = table[table["excluded"] == "false"]
    rows = table.to_dict("records")
    add_z_scores(rows, ["fluency"])
    values = pd.to_numeric(table["fluency"])
    expected = values.groupby(table["subject"]).transform(
        lambda x: (x - x.mean()) / x.std()
    )
    assert [r["fluency_z"] for r in rows] == pytest.approx(list(expected))


def test_normalise_only_for_ratings():
    assert check_normalise({"task": "text_rating", "normalise": "z"}) == "z"
    assert check_normalise({"task": "identification"}) is None
    with pytest.raises(ConfigError, match=r"studies\[1\]\.normalise"):
        check_normalise({"task": "identification", "normalise": "z"}, "studies[1]")


# ---------------------------------------------------------------------- report


def test_report_subsection(tmp_path):
    from stecflow.report.agreement import agreement_blocks
    from stecflow.report.context import Context

    path = tmp_path / "rate.tsv"
    rows = _rating_table().to_dict("records")
    add_z_scores(rows, ["adequacy", "fluency"])
    pd.DataFrame(rows).to_csv(path, sep="\t", index=False)
    study = {**STUDY, "normalise": "z", "agreement": {"bootstrap": 50}}
    write_agreement(path, tmp_path / "a.tsv", tmp_path / "rate.json", study=study)
    ctx = Context(
        config={},
        metrics={},
        entries=[],
        records={},
        summary=[],
        testset=None,  # type: ignore[arg-type]
        analyses=[],
        judgments=[],
        prefix="demo-",
    )
    blocks = agreement_blocks(ctx, [tmp_path / "rate.json", tmp_path / "none.json"])
    kinds = [b["kind"] for b in blocks]
    assert kinds == ["h3", "p", "table", "table", "p"]
    coefficients = blocks[2]["table"]
    summary = json.loads((tmp_path / "rate.json").read_text())
    first = summary["coefficients"][0]
    data_rows = [r for r in coefficients.rows if not r.heading]
    assert len(data_rows) == 6
    assert data_rows[0].cells[1].text == "α (interval)"
    assert data_rows[0].cells[2].text == f"{first['estimate']:.3f}"
    assert data_rows[0].cells[3].text == (
        f"[{first['ci_low']:.3f}, {first['ci_high']:.3f}]"
    )
    means = blocks[3]["table"]
    assert len(means.rows) == 6  # 2 criteria x 3 systems
    assert "krippendorff package 0." in blocks[4]["parts"][0]["text"]
    assert "ICC(1,1)" in blocks[4]["parts"][0]["text"]
    assert agreement_blocks(ctx, [tmp_path / "none.json"]) == []


def test_text_rating_criteria_icc_for_sliders_only():
    table = _rating_table(seed=5).drop(columns=["control"])
    study = {
        "id": "text",
        "task": "text_rating",
        "seed": 3,
        "criteria": [
            {"id": "fluency", "scale": "likert", "points": 5},
            {"id": "adequacy", "scale": "slider"},
        ],
    }
    rows, facts = study_agreement(table, study, {"bootstrap": 20})
    assert [(r["criterion"], r["coefficient"]) for r in rows] == [
        ("fluency", "alpha"),
        ("adequacy", "alpha"),
        ("adequacy", "ICC(1,1)"),
        ("adequacy", "ICC(1,k)"),
    ]
    assert facts["dropped"]["control"] == 1  # the CONTROL system, without a column


def test_situated_answers_are_nominal_per_instance_and_expression():
    # two evaluators per (instance, shown); evaluator s2 disagrees on one of four
    rows = [
        {"subject": s, "instance": i, "shown": "system", "chosen": c}
        for i, (a, b) in enumerate(
            [("p1", "p1"), ("p2", "p2"), ("p3", "p4"), ("p5", "p5")]
        )
        for s, c in (("s1", a), ("s2", b))
    ]
    study = {"id": "sit", "task": "situated_identification", "seed": 1}
    (row,), _ = study_agreement(pd.DataFrame(rows), study, {"bootstrap": 0})
    assert (row["criterion"], row["level"], row["n_units"]) == (
        "chosen_piece",
        "nominal",
        4,
    )
    # by hand: n = 8 values; D_o = 2/8 (one disagreeing unit: 2 ordered pairs / 1);
    # categories p1 2, p2 2, p3 1, p4 1, p5 2: D_e = (64 - 14) / 56
    assert row["estimate"] == pytest.approx(1 - (2 / 8) / (50 / 56))


def test_analyses_can_name_z_measures_of_normalised_studies():
    import yaml
    from snakemake.utils import validate

    from stecflow.analysis.specs import analysis_specs

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    validate(
        config,
        schema=str(REPO / "workflow/schemas/config.schema.yaml"),
        set_default=True,
    )
    extra = {
        "id": "z",
        "test": "anova",
        "source": "rating",
        "measure": "adequacy_z",
    }
    config["statistics"]["analyses"].append(extra)
    specs = {s["id"]: s for s in analysis_specs(config)}
    assert specs["z"]["measure"] == "adequacy_z"
    study = next(s for s in config["studies"] if s["id"] == "rating")
    study["normalise"] = None
    with pytest.raises(ConfigError, match="adequacy_z"):
        analysis_specs(config)


def test_a_study_awaiting_responses_gets_empty_tables(tmp_path):
    header = tmp_path / "header.tsv"
    _rating_table().head(0).to_csv(header, sep="\t", index=False)
    empty = tmp_path / "empty.tsv"
    empty.write_text("")
    for path in (header, empty):
        summary = write_agreement(
            path, tmp_path / "a.tsv", tmp_path / "a.json", study=STUDY
        )
        assert summary["awaiting_judgments"] is True
        assert summary["coefficients"] == []
        lines = (tmp_path / "a.tsv").read_text().splitlines()
        assert lines == ["\t".join(AGREEMENT_COLUMNS)]


def test_merge_study_adds_z_columns(tmp_path):
    from stecflow.core.io import read_tsv
    from stecflow.judgments import merge_study

    fixtures = REPO / "tests" / "fixtures" / "judgments"
    outputs = {}
    for normalise in (None, "z"):
        out = tmp_path / f"{normalise}.tsv"
        merge_study(
            fixtures / "design_rate.tsv",
            [fixtures / "rating_export.tsv"],
            None,
            fixtures / "testset.xml",
            out_judgments_tsv=out,
            study="rate-demo",
            task="rating",
            normalise=normalise,
        )
        outputs[normalise] = read_tsv(out)
    plain, normalised = outputs[None], outputs["z"]
    assert "adequacy_z" not in plain[0]
    assert [{k: r[k] for k in plain[0]} for r in normalised] == plain
    table = pd.DataFrame(normalised)
    scored = table[
        (table["practice"] == "false")
        & (table["excluded"] == "false")
        & (table["adequacy"] != "")
    ]
    assert len(scored) >= 4
    for column in ("adequacy", "fluency"):
        values = pd.to_numeric(scored[column])
        expected = values.groupby(scored["subject"]).transform(
            lambda x: (x - x.mean()) / x.std()
        )
        got = pd.to_numeric(scored[f"{column}_z"])
        assert list(got) == pytest.approx(list(expected), abs=1e-9)
    practice = table[table["practice"] == "true"]
    assert len(practice) and (practice["adequacy_z"] == "").all()


@pytest.mark.parametrize("level", ["nominal", "interval"])
def test_resampling_statistics_equal_the_matrix_formulas(level):
    from stecflow.judgments.agreement import UnitStats

    rng = np.random.default_rng(5)
    data = rng.integers(1, 6 if level == "nominal" else 101, size=(8, 50))
    data = data.astype(float) + (0 if level == "nominal" else 1000.0)
    data[rng.random(data.shape) < 0.6] = np.nan
    keep = (~np.isnan(data)).sum(axis=0) >= 2
    data = data[:, keep]
    stats = UnitStats.from_matrix(data, level)
    for _ in range(20):
        picks = rng.integers(0, data.shape[1], data.shape[1])
        weights = np.bincount(picks, minlength=data.shape[1])
        sample = data[:, picks]
        assert stats.alpha(weights) == pytest.approx(alpha(sample, level), abs=1e-10)
        if level == "interval":
            one = icc(sample, model="one_way")
            got = stats.icc_one_way(weights)
            assert got["single"] == pytest.approx(one["single"], abs=1e-10)
            assert got["average"] == pytest.approx(one["average"], abs=1e-10)
    constant = UnitStats.from_matrix(np.full((2, 3), 7.0), "interval")
    assert math.isnan(constant.alpha(np.ones(3)))


def test_a_table_without_raters_is_named(tmp_path):
    path = tmp_path / "rate.tsv"
    _rating_table().drop(columns=["subject"]).to_csv(path, sep="\t", index=False)
    with pytest.raises(JudgmentsError, match=r"rate\.tsv.*subject"):
        write_agreement(path, tmp_path / "a.tsv", tmp_path / "a.json", study=STUDY)


def test_check_config_refuses_normalise_on_an_identification_study():
    import yaml
    from snakemake.utils import validate

    from stecflow.campaign import check_config

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    validate(
        config,
        schema=str(REPO / "workflow/schemas/config.schema.yaml"),
        set_default=True,
    )
    check_config(config)
    config["studies"][1]["normalise"] = "z"
    with pytest.raises(ConfigError, match=r"studies\[1\]\.normalise: only rating"):
        check_config(config)

"""Power analysis and session duration (stecflow.analysis.power, ``stecflow power``)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import yaml

from stecflow.analysis.power import (
    Effects,
    PowerError,
    design_duration,
    estimate_effects,
    power_table,
    session_duration,
    wilson,
)
from stecflow.cli import main


def test_one_way_anova_power_matches_noncentral_f():
    """No participant or item variance: a one-way ANOVA with Cohen's f known."""
    from statsmodels.stats.power import FTestAnovaPower

    effects = Effects(means={"A": 0, "B": 4, "C": 8}, rater_sd=0, item_sd=0)
    runs = 300
    rows = power_table(effects, [6], runs=runs, seed=11, trials_per_system=5)
    f = float(np.std([0, 4, 8])) / 14.0
    # 6 participants x 5 trials x 3 systems = 90 judgments, 30 per system.
    expected = FTestAnovaPower().power(effect_size=f, nobs=90, alpha=0.05, k_groups=3)
    assert expected == pytest.approx(0.4807, abs=1e-3)
    (row,) = rows
    se = math.sqrt(expected * (1 - expected) / runs)
    assert abs(row["power"] - expected) < 3 * se
    assert row["ci_low"] < expected < row["ci_high"]


def test_power_grows_with_participants_and_tests_are_named():
    effects = Effects(means={"A": 50, "B": 53, "C": 56})
    rows = power_table(
        effects,
        [3, 12, 30],
        runs=60,
        seed=3,
        trials_per_system=4,
        tests=("anova", "kruskal"),
        pairs=[("A", "C")],
    )
    for test in ("anova", "kruskal", "tukey A-C"):
        powers = [r["power"] for r in rows if r["test"] == test]
        assert len(powers) == 3
        assert powers[0] < powers[1] < powers[2], (test, powers)


def test_power_is_deterministic_with_a_seed():
    effects = Effects(means={"A": 50, "B": 54})
    first = power_table(effects, [4, 8], runs=30, seed=5, trials_per_system=3)
    again = power_table(effects, [4, 8], runs=30, seed=5, trials_per_system=3)
    other = power_table(effects, [4, 8], runs=30, seed=6, trials_per_system=3)
    assert first == again
    assert [r["significant"] for r in first] != [r["significant"] for r in other]
    # A size's runs do not depend on the other sizes.
    alone = power_table(effects, [8], runs=30, seed=5, trials_per_system=3)
    assert alone == first[1:]


def test_wilson_interval_hand_computed():
    low, high = wilson(8, 10)
    assert (round(low, 4), round(high, 4)) == (0.4902, 0.9433)


def test_unknown_pair_and_test_refused():
    effects = Effects(means={"A": 1, "B": 2})
    with pytest.raises(PowerError, match="Z is not a system"):
        power_table(
            effects, [4], runs=1, seed=1, trials_per_system=1, pairs=[("A", "Z")]
        )
    with pytest.raises(PowerError, match="unknown test 'mixed'"):
        power_table(effects, [4], runs=1, seed=1, trials_per_system=1, tests=["mixed"])


PILOT = """participant\tsystem\tpractice\tcontrol\tadequacy
p1\tA\t0\t\t10
p1\tA\t0\t\t12
p1\tB\t0\t\t20
p1\tB\t0\t\t22
p2\tA\t0\t\t14
p2\tA\t0\t\t16
p2\tB\t0\t\t24
p2\tB\t0\t\t26
p2\tA\t1\t\t99
p2\tCONTROL\t0\tdegraded\t0
"""


def test_pilot_estimation_by_hand(tmp_path):
    path = tmp_path / "rating.tsv"
    path.write_text(PILOT, encoding="utf-8")
    effects = estimate_effects(path, "adequacy")
    # Means 13 and 23; residuals p1 -3,-1,-3,-1 and p2 1,3,1,3: within-participant
    # SS 8 on 8 - 2 df = 4/3; participant means -2, 2 have variance 8; rater
    # variance 8 - (4/3)/4 = 23/3.
    assert effects.means == {"A": 13.0, "B": 23.0}
    assert effects.noise_sd == pytest.approx(math.sqrt(4 / 3), abs=1e-6)
    assert effects.rater_sd == pytest.approx(math.sqrt(23 / 3), abs=1e-6)
    assert effects.item_sd == 0
    assert "2 participants, 8 judgments" in effects.source


def test_pilot_bad_value_names_line_and_field(tmp_path):
    path = tmp_path / "rating.tsv"
    path.write_text(PILOT.replace("\t26\n", "\tlots\n"), encoding="utf-8")
    with pytest.raises(PowerError, match=r"line 9, field adequacy: 'lots'"):
        estimate_effects(path, "adequacy")


SESSIONS = """study\tsession\tparticipant\tstatus\tstarted_utc\tduration_s
rating\ts1\tp1\tcompleted\t2026-11-26T10:00:00Z\t600
rating\ts2\tp2\tcompleted\t2026-11-26T10:00:00Z\t900
rating\ts3\tp3\tcompleted\t2026-11-26T10:00:00Z\t1200
rating\ts4\tp4\tcompleted\t2026-11-26T10:00:00Z\t1500
rating\ts5\tp5\tcompleted\t2026-11-26T10:00:00Z\t1800
rating\ts6\tp6\tabandoned\t2026-11-26T10:00:00Z\t5000
rating\ts7\tp7\tin_progress\t2026-11-26T10:00:00Z\t
"""


def test_session_duration_median_p90_and_pay(tmp_path):
    path = tmp_path / "rating.sessions.tsv"
    path.write_text(SESSIONS, encoding="utf-8")
    got = session_duration(path, hourly_rate=12.0)
    # Completed: 10, 15, 20, 25, 30 min; p90 (linear) = 25 + 0.6 * 5 = 28.
    assert got["sessions"] == 5
    assert (got["median_min"], got["p90_min"]) == (20.0, 28.0)
    assert (got["pay_median"], got["pay_p90"]) == (4.0, 5.6)


def test_session_duration_bad_value(tmp_path):
    path = tmp_path / "s.tsv"
    path.write_text(SESSIONS.replace("\t900\n", "\t15min\n"), encoding="utf-8")
    with pytest.raises(PowerError, match=r"line 3, field duration_s: '15min'"):
        session_duration(path)


def test_design_duration_without_pilot():
    got = design_duration(60, per_trial_ms=3000, instructions_s=120, hourly_rate=10)
    # 120 s + 60 x 3 s = 300 s = 5 min at the median speed.
    # 90th percentile: 120 s + 180 s x exp(1.28155 x 0.25) = 368.0 s = 6.13 min.
    assert (got["median_min"], got["p90_min"]) == (5.0, 6.13)
    assert (got["pay_median"], got["pay_p90"]) == (0.83, 1.02)


def test_design_duration_counts_control_and_practice_trials():
    from stecflow.analysis.power import run_power

    study = yaml.safe_load(CONFIG)["studies"][0]
    study["controls"] = {"kind": "degraded", "per_list": 3}
    _, settings = run_power({"studies": [study]}, "rating", runs=1, participants=[3])
    # 10 trials per system x 3 systems + 3 controls + 2 practice = 35 trials.
    assert settings["duration"]["source"].startswith("design: 35 trials x 3500 ms")
    # 120 s + 35 x 3.5 s = 242.5 s = 4.04 min.
    assert settings["duration"]["median_min"] == 4.04


CONFIG = """studies:
  - id: rating
    task: rating
    systems: [A, B, C]
    seed: 7
    practice: 2
    power:
      effects: {means: {A: 50, B: 55, C: 60}}
      participants: [3, 6]
      runs: 10
      pairs: [[A, C]]
      hourly_rate: 12
      currency: GBP
"""


def test_cli_power_writes_tsv_json_svg(tmp_path, capsys):
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    sessions = tmp_path / "s.tsv"
    sessions.write_text(SESSIONS, encoding="utf-8")
    out = tmp_path / "power"
    argv = ["power", "rating", "--config", str(config), "--out", str(out)]
    assert main([*argv, "--sessions", str(sessions)]) == 0
    printed = capsys.readouterr()
    assert "3 participants  anova" in printed.out
    assert "median 20.0 min, 90th percentile 28.0 min" in printed.out
    assert "4.00 GBP (median), 5.60 GBP (90th percentile)" in printed.out
    assert "simulated 20/20 studies" in printed.err
    table = (out / "rating.tsv").read_text(encoding="utf-8").splitlines()
    assert table[0].split("\t")[:5] == [
        "participants",
        "test",
        "runs",
        "significant",
        "power",
    ]
    assert len(table) == 1 + 2 * 2
    settings = json.loads((out / "rating.json").read_text(encoding="utf-8"))
    assert settings["duration"]["pay_p90"] == 5.6
    assert settings["seed"] == 7
    assert (out / "rating.svg").read_text(encoding="utf-8").startswith("<svg")
    first = (out / "rating.tsv").read_bytes()
    assert main([*argv, "--quiet"]) == 0
    assert (out / "rating.tsv").read_bytes() == first


def test_cli_power_without_effects_says_what_to_give(tmp_path, capsys):
    config = tmp_path / "config.yaml"
    config.write_text("studies:\n  - id: rating\n    systems: [A, B]\n")
    assert main(["power", "rating", "--config", str(config)]) == 2
    assert "--pilot" in capsys.readouterr().err


def test_datasheet_answers_the_power_question(tmp_path):
    from stecflow.release.heds import datasheet
    from stecflow.release.studyfacts import power_results

    config = tmp_path / "config.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    out = tmp_path / "power"
    assert main(["power", "rating", "--config", str(config), "--out", str(out)]) == 0
    files = {"power/rating.json": out / "rating.json", "scores/x.tsv": config}
    power = power_results(files)
    study = {
        "study": "rating",
        "title": "Ratings",
        "task": "rating",
        "n_items": 12,
        "systems": ["A", "B", "C"],
        "n_trials": 36,
        "n_fillers": 0,
        "subjects": 3,
        "groups": 1,
        "kind": "latin_square",
        "squares": 1,
        "seed": 7,
        "practice_items": [],
        "power": power["rating"],
    }
    text = datasheet({"campaign": {"title": "T", "tasks": ["end_to_end"]}}, [study])
    rows = {
        (int(r["participants"]), r["test"]): float(r["power"])
        for r in power["rating"]["rows"]
    }
    # HEDS 3.0 3.1.3.1-3.1.3.3: the method, the power, the code
    method, line, code = (
        next(x for x in text.splitlines() if x.startswith(f"- **{q} "))
        for q in ("3.1.3.1", "3.1.3.2", "3.1.3.3")
    )
    assert f"anova (3: {rows[(3, 'anova')]:.2f}, 6: {rows[(6, 'anova')]:.2f};" in line
    assert "10 simulated studies per participant number" in method
    assert "alpha 0.05" in method
    assert "`power/rating.json`" in code
    # 32 trials (30 + 2 practice) x 3.5 s + 120 s = 232 s.
    assert "Session duration median 3.9 min" in line
    del study["power"]
    text = datasheet({"campaign": {"title": "T", "tasks": ["end_to_end"]}}, [study])
    assert (
        "3.1.3.1 Method of statistical power analysis:** None run by stecflow" in text
    )
    assert "3.1.3.2 Statistical power of the sample:** N/A" in text


def test_schema_accepts_the_power_keys_and_refuses_unknown_ones():
    import jsonschema
    import yaml

    from tests.conftest import REPO

    schema = yaml.safe_load(
        (REPO / "workflow" / "schemas" / "config.schema.yaml").read_text()
    )
    power = yaml.safe_load(CONFIG)["studies"][0]["power"]
    study_schema = schema["properties"]["studies"]["items"]["properties"]["power"]
    jsonschema.validate(power, study_schema)
    with pytest.raises(jsonschema.ValidationError, match="runz"):
        jsonschema.validate({**power, "runz": 3}, study_schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**power, "tests": ["mixed"]}, study_schema)


def test_cli_power_from_a_pilot(tmp_path, capsys):
    config = tmp_path / "config.yaml"
    config.write_text("studies:\n  - id: rating\n    systems: [A, B]\n    seed: 3\n")
    pilot = tmp_path / "rating.tsv"
    pilot.write_text(PILOT, encoding="utf-8")
    out = tmp_path / "power"
    argv = ["power", "rating", "--config", str(config), "--pilot", str(pilot)]
    assert main([*argv, "--runs", "5", "--quiet", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    # Default sizes: 1-4 x the 2 lists; a 10-point difference with SD 1.15 noise.
    assert [line.split()[0] for line in printed.splitlines()[:4]] == [
        "2",
        "4",
        "6",
        "8",
    ]
    assert "power 1.000" in printed
    settings = json.loads((out / "rating.json").read_text(encoding="utf-8"))
    assert settings["effects"]["means"] == {"A": 13.0, "B": 23.0}
    assert settings["effects"]["source"].startswith("pilot ")

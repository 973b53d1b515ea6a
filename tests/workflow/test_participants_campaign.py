"""The paid-participants demo (config/participants-demo.yaml) end to end.

One rating study as it would go to a crowdsourcing platform: consent, the seed's
participant questions and a debrief around the trials, two degraded control trials
per list, exclusion rules declared in advance, three simulated participants per list
(one in ten inattentive), inter-rater agreement, per-rater z-scores, and the power
and pay plan. Agreement is checked against the ``krippendorff`` package on the
judgments table the campaign wrote; the analyses' counts against that table.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from stecflow.core.io import read_tsv
from stecflow.release.archive import pseudonym
from tests.conftest import REPO
from tests.workflow.helpers import snakemake

pytestmark = pytest.mark.workflow

CONFIG = "config/participants-demo.yaml"


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("participants-checkout")
    shutil.copytree(REPO / "config", folder / "config")
    shutil.copytree(REPO / "submissions", folder / "submissions")
    for name in ("demo", "participants"):
        shutil.copytree(REPO / "resources" / name, folder / "resources" / name)
    snakemake(folder, "--configfile", CONFIG)
    return folder / "results" / "participants-demo"


def _rows(results: Path) -> list[dict[str, str]]:
    return read_tsv(results / "judgments" / "rating.tsv")


def test_controls_are_placed_in_every_list_and_kept_out_of_the_analyses(results):
    rows = _rows(results)
    controls = [r for r in rows if r["control"]]
    assert {r["control"] for r in controls} == {"degraded"}
    assert {r["system"] for r in controls} == {"CONTROL"}
    per_session = {}
    for r in controls:
        per_session[r["session"]] = per_session.get(r["session"], 0) + 1
    assert len(per_session) == 18 and set(per_session.values()) == {2}
    assert not any(r["in_analysis"] == "true" for r in controls)
    anova = json.loads((results / "stats" / "rating-adequacy-anova.json").read_text())
    counts = anova["judgments"]["rating"]["counts"]
    kept = [
        r
        for r in rows
        if r["practice"] == "false"
        and r["filler"] == "false"
        and not r["control"]
        and r["excluded"] == "false"
    ]
    assert counts["controls"] == 36 and counts["in_analysis"] == len(kept) == 17 * 112


def test_the_inattentive_participant_is_excluded_by_the_declared_rules(results):
    audit = read_tsv(results / "judgments" / "exclusions" / "rating.tsv")
    assert len(audit) == 18 * 3  # one row per participant and rule
    excluded = sorted(
        (r["participant"], r["rule"]) for r in audit if r["excluded"] == "1"
    )
    assert excluded == [("sim-L03-02", "failed-controls"), ("sim-L03-02", "too-fast")]
    rows = [r for r in _rows(results) if r["participant"] == "sim-L03-02"]
    assert rows and all(r["excluded"] == "true" for r in rows)
    assert all(r["in_analysis"] == "false" for r in rows)
    report = (results / "report" / "index.html").read_text(encoding="utf-8")
    name = pseudonym("sim-L03-02", "demo-participants-release-key", prefix="P-")
    assert "failed-controls" in report and name in report
    assert "sim-L03-02" not in report  # keyed pseudonyms only


def test_agreement_equals_the_krippendorff_package_on_the_judgments(results):
    krippendorff = pytest.importorskip("krippendorff")
    import numpy as np

    rows = [
        r
        for r in _rows(results)
        if r["practice"] == "false"
        and r["filler"] == "false"
        and not r["control"]
        and r["excluded"] == "false"
    ]
    raters = sorted({r["subject"] for r in rows})
    units = sorted({(r["item"], r["system"]) for r in rows})
    table = {
        row["criterion"] + "/" + row["coefficient"]: row
        for row in read_tsv(results / "judgments" / "agreement" / "rating.tsv")
    }
    for criterion in ("adequacy", "fluency"):
        data = np.full((len(raters), len(units)), np.nan)
        where = {u: k for k, u in enumerate(units)}
        for r in rows:
            data[raters.index(r["subject"]), where[(r["item"], r["system"])]] = float(
                r[criterion]
            )
        expected = krippendorff.alpha(
            reliability_data=data, level_of_measurement="interval"
        )
        row = table[f"{criterion}/alpha"]
        assert float(row["estimate"]) == pytest.approx(expected, abs=1e-9)
        assert float(row["ci_low"]) < expected < float(row["ci_high"])
        assert row["n_raters"] == "17" and row["n_units"] == "672"
    # z-scores: each participant's scores standardised by their own mean and SD
    some = [r for r in _rows(results) if r["subject"] == raters[0]]
    scored = [r for r in some if r["practice"] == "false" and r["duplicate"] != "true"]
    values = np.array([float(r["adequacy"]) for r in scored])
    z = (values - values.mean()) / values.std(ddof=1)
    assert [float(r["adequacy_z"]) for r in scored] == pytest.approx(z, abs=1e-6)


def test_power_and_pay_are_planned_and_reported(results):
    power = read_tsv(results / "power" / "rating.tsv")
    assert [int(r["participants"]) for r in power] == [3, 6, 12, 18]
    values = [float(r["power"]) for r in power]
    assert values == sorted(values) and values[-1] > values[0]
    settings = json.loads((results / "power" / "rating.json").read_text())
    duration = settings["duration"]
    # 18 trials per system x 6 systems + 2 control trials (controls: per_list 2)
    # + 2 practice, 3.5 s each, 120 s instructions
    assert duration["source"] == "design: 112 trials x 3500 ms + 120 s instructions"
    assert duration["median_min"] == pytest.approx((112 * 3.5 + 120) / 60, abs=0.01)
    assert duration["pay_median"] == pytest.approx(
        12 * duration["median_min"] / 60, abs=0.01
    )
    report = (results / "report" / "index.html").read_text(encoding="utf-8")
    for title in ("Power and duration", "Inter-rater agreement"):
        assert title in report


def test_the_evaluators_as_a_group_and_their_time_on_task(results):
    """Issue #45 point 3 (seed 001 §5.2-5.3): the simulated participants answer
    the questionnaire; the report describes them and gives the time on task
    beside the power analysis's estimate."""
    import statistics

    sessions = read_tsv(results / "judgments" / "sessions" / "rating.tsv")
    audit = read_tsv(results / "judgments" / "exclusions" / "rating.tsv")
    excluded = {r["participant"] for r in audit if r["excluded"] in ("1", "true")}
    kept = [r for r in sessions if r["participant"] not in excluded]
    assert len(sessions) == 18 and len(kept) == 18 - len(excluded)
    block = json.loads((results / "judgments" / "summary" / "rating.json").read_text())[
        "evaluators"
    ]
    assert (block["evaluators"], block["excluded"]) == (len(kept), len(excluded))
    ages = [int(r["demographics.age"]) for r in kept]
    women = sum(r["demographics.gender"] == "female" for r in kept)
    native = sum(r["demographics.native"] == "yes" for r in kept)
    assert block["sentence"].startswith(
        f"{len(kept)} evaluators took part ({women} women, "
    )
    # ages only in the release's bins of 10 from the question's min (18)
    low = [18 + (a - 18) // 10 * 10 for a in ages]
    median = 18 + (statistics.median_low(ages) - 18) // 10 * 10
    assert block["sentence"].endswith(
        f", aged {min(low)}-{max(low) + 9} (in bins of 10; median in"
        f" {median}-{median + 9}); {native} native speakers of English."
    )
    seconds = [float(r["duration_s"]) for r in sessions if r["status"] == "completed"]
    time = block["time_on_task"]
    assert time["n"] == 18
    assert time["median"] == pytest.approx(statistics.median(seconds), abs=0.05)
    p90 = statistics.quantiles(seconds, n=10, method="inclusive")[8]
    assert time["p90"] == pytest.approx(p90, abs=0.05)
    report = (results / "report" / "index.html").read_text(encoding="utf-8")
    assert "Evaluators of study rating" in report
    assert block["sentence"] in report
    assert f"90th percentile {p90 / 60:.1f} min; estimated before the study" in report
    assert "simulated answer" not in report  # free text is never shown

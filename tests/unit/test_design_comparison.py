"""The ``design_comparison`` analysis (seed 001 §6: slider vs rating scale vs
preference judgements on the same systems) and its rank statistics.

Constructed judgments of four systems in three designs whose rankings are
known, so Spearman's rho, Kendall's tau-b, their p-values and Kendall's W are
exact numbers worked out by hand:

* slider means A 80, B 60, C 40, D 20 (ranks 1 2 3 4);
* Likert means A 4, B 2, C 3, D 1 (ranks 1 3 2 4);
* preference win rates A 1, B 2/3, D 1/3, C 0 (ranks 1 2 4 3).
"""

from __future__ import annotations

import json
import math
from itertools import combinations
from pathlib import Path

import pytest

from stecflow.analysis import registry
from stecflow.analysis.registry import AnalysisJob, SpecContext
from stecflow.analysis.specs import analysis_sources
from stecflow.core.errors import ConfigError
from stecflow.core.io import read_tsv, write_tsv
from stecflow.stats.rank_agreement import average_ranks, kendalls_w

SYSTEMS = ("A", "B", "C", "D")
LABELS = {("t", s): s for s in SYSTEMS}
STUDIES = {
    "slider": {"id": "slider", "task": "rating", "systems": []},
    "likert": {
        "id": "likert",
        "task": "text_rating",
        "systems": [],
        "criteria": [{"id": "adequacy", "question": "Clear?", "points": 5}],
    },
    "prefer": {
        "id": "prefer",
        "task": "text_preference",
        "systems": [],
        "criteria": [{"id": "adequacy", "question": "Which is clearer?"}],
    },
}
MEASURES = ["slider:adequacy", "likert:adequacy", "prefer:win_rate"]


def _ratings(path: Path, means: dict[str, list[int]]) -> None:
    rows = [
        {"system": f"t/{s}", "in_analysis": "true", "adequacy": v}
        for s, values in means.items()
        for v in values
    ]
    rows.append({"system": "CONTROL", "in_analysis": "true", "adequacy": 1})
    write_tsv(rows, ["system", "in_analysis", "adequacy"], path)
    _summary(path)


def _summary(path: Path) -> None:
    summary = path.parent / "summary" / f"{path.stem}.json"
    summary.parent.mkdir(exist_ok=True)
    summary.write_text(json.dumps({"awaiting_responses": False}), encoding="utf-8")


def _job(tmp_path: Path) -> AnalysisJob:
    judgments = tmp_path / "judgments"
    judgments.mkdir()
    _ratings(
        judgments / "slider.tsv",
        {"A": [70, 90], "B": [50, 70], "C": [30, 50], "D": [10, 30]},
    )
    _ratings(
        judgments / "likert.tsv",
        {"A": [4, 4], "B": [1, 3], "C": [3, 3], "D": [1, 1]},
    )
    beats = {"A": "BCD", "B": "CD", "D": "C", "C": ""}
    rows = []
    for left, right in combinations(SYSTEMS, 2):
        winner = "left" if right in beats[left] else "right"
        rows.append(
            {
                "system_left": f"t/{left}",
                "system_right": f"t/{right}",
                "preferred": winner,
                "in_analysis": "true",
            }
        )
    path = judgments / "prefer.tsv"
    write_tsv(rows, ["system_left", "system_right", "preferred", "in_analysis"], path)
    _summary(path)
    return AnalysisJob(
        items_path=tmp_path / "items.tsv",
        systems_path=tmp_path / "analysed.tsv",
        out_tsv=tmp_path / "out.tsv",
        out_json=tmp_path / "out.json",
        labels=LABELS,
        judgments={s: judgments / f"{s}.tsv" for s in STUDIES},
    )


def _spec(measures=None):
    context = SpecContext({}, STUDIES, {}, {})
    entry = {"id": "designs", "test": "design_comparison"}
    entry["measures"] = MEASURES if measures is None else measures
    return registry.get("design_comparison").check(
        entry, "statistics.analyses[0]", context
    )


def _run(tmp_path: Path) -> tuple[list[dict[str, str]], dict]:
    test = registry.get("design_comparison")
    spec, job = _spec(), _job(tmp_path)
    record: dict = {"id": spec["id"], "test": spec["test"], "spec": spec}
    data = test.load(spec, job, record)
    rows = test.run(spec, data, job, record)
    test.write(spec, rows, data, job, record)
    return read_tsv(job.out_tsv), json.loads(Path(job.out_json).read_text())


def test_pairs_of_designs_have_exact_rank_correlations(tmp_path):
    rows, record = _run(tmp_path)
    by_pair = {(r["design_a"], r["design_b"]): r for r in rows}
    assert list(by_pair) == [
        ("slider:adequacy", "likert:adequacy"),
        ("slider:adequacy", "prefer:win_rate"),
        ("likert:adequacy", "prefer:win_rate"),
    ]
    # rho = 1 - 6 sum d^2 / (n (n^2 - 1)); tau-b = (concordant - discordant) / 6
    expected = {
        ("slider:adequacy", "likert:adequacy"): (0.8, 4 / 6, 5 / 6),
        ("slider:adequacy", "prefer:win_rate"): (0.8, 4 / 6, 5 / 6),
        ("likert:adequacy", "prefer:win_rate"): (0.4, 2 / 6, 4 / 6),
    }
    # p of rho: t = rho sqrt((n - 2) / (1 - rho^2)) on 2 df, two-sided; for 2
    # df the t distribution's tail is 1/2 (1 - t / sqrt(2 + t^2)). p of tau:
    # exact, the share of the 24 orders of 4 with |tau| at least as large
    # (tau 2/3: 1 order with 0 discordant pairs and 3 with 1, each side: 8/24;
    # tau 1/3: 1 + 3 + 5 with at most 2 discordant, each side: 18/24)
    exact_p_tau = {4 / 6: 8 / 24, 2 / 6: 18 / 24}
    for pair, (rho, tau, same) in expected.items():
        row = by_pair[pair]
        t = rho * math.sqrt(2 / (1 - rho**2))
        p_rho = 1 - t / math.sqrt(2 + t**2)
        assert row["n"] == "4" and row["computable"] == "true"
        assert float(row["spearman_rho"]) == pytest.approx(rho, abs=1e-9)
        assert float(row["spearman_p"]) == pytest.approx(p_rho, abs=1e-9)
        assert float(row["kendall_tau"]) == pytest.approx(tau, abs=1e-9)
        assert float(row["kendall_p"]) == pytest.approx(exact_p_tau[tau], abs=1e-9)
        assert float(row["same_order"]) == pytest.approx(same)
        assert row["same_best"] == "true"  # every design puts A first
    # the per-system scores side by side, ranked by the first design
    scores = {r["system"]: r for r in record["scores"]}
    assert [r["system"] for r in record["scores"]] == ["A", "B", "C", "D"]
    assert scores["B"]["slider:adequacy"] == 60.0
    assert scores["B"]["likert:adequacy"] == 2.0
    assert scores["B"]["prefer:win_rate"] == pytest.approx(2 / 3)
    assert scores["C"]["prefer:win_rate rank"] == 4.0
    # Kendall's W: rank sums 3, 7, 9, 11; S = 35; W = 12 S / (9 * 60) = 7/9
    concordance = record["concordance"]
    assert concordance["w"] == pytest.approx(7 / 9)
    assert concordance["chi2"] == pytest.approx(7.0)
    assert concordance["df"] == 3
    assert record["awaiting_responses"] == []


def test_kendalls_w_with_ties_and_perfect_agreement():
    assert average_ranks([2, 2, 1]) == [1.5, 1.5, 3.0]
    same = {"a": {"x": 3, "y": 2, "z": 1}, "b": {"x": 30, "y": 20, "z": 10}}
    assert kendalls_w(same)["w"] == pytest.approx(1.0)
    # ties: rank sums 3.5, 2.5, 6 (mean 4): S = 0.25 + 2.25 + 4 = 6.5;
    # T = 2^3 - 2 = 6; W = 12 * 6.5 / (4 * 24 - 2 * 6) = 78 / 84
    tied = {"a": {"x": 2, "y": 2, "z": 1}, "b": {"x": 2, "y": 3, "z": 1}}
    assert kendalls_w(tied)["w"] == pytest.approx(78 / 84)


def test_the_analysis_reads_every_study_it_compares():
    assert analysis_sources(_spec(), STUDIES) == ["likert", "prefer", "slider"]


@pytest.mark.parametrize(
    ("measures", "message"),
    [
        (["slider:adequacy"], "give at least two designs to compare"),
        (["slider:adequacy", "slider:adequacy"], "a design is listed twice"),
        (
            ["slider:adequacy", "nosuch:adequacy"],
            "'nosuch:adequacy' is not <study>:<measure> of a configured study",
        ),
        (
            ["slider:adequacy", "prefer:adequacy"],
            "study prefer (text_preference) has no measure 'adequacy'; it has"
            " win_rate, strength",
        ),
        (
            ["slider:win_rate", "prefer:win_rate"],
            "study slider (rating) has no measure 'win_rate'; it has adequacy, fluency",
        ),
    ],
)
def test_bad_designs_are_refused_naming_the_key(measures, message):
    with pytest.raises(ConfigError) as error:
        _spec(measures)
    assert message in str(error.value)
    assert "statistics.analyses[0].measures" in str(error.value)


def test_too_few_systems_or_a_constant_design_is_said_not_computed():
    from stecflow.stats.rank_agreement import design_correlations

    [few] = design_correlations({"a": {"x": 1, "y": 2}, "b": {"x": 2, "y": 1}})
    assert few["computable"] is False and math.isnan(few["spearman_rho"])
    assert few["reason"] == "2 systems scored by both; at least 3"
    [flat] = design_correlations(
        {"a": {"x": 1, "y": 2, "z": 3}, "b": {"x": 5, "y": 5, "z": 5}}
    )
    assert flat["reason"] == "a design gives every system the same score"
    assert kendalls_w({"a": {"x": 1}, "b": {"x": 2}})["computable"] is False

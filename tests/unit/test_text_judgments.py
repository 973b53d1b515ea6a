"""Text human studies: import, merge, measures and simulated participants.

The designs are small TSVs made here by hand (TRIAL_COLUMNS, plus system_left and
system_right for a preference study); the response files are written in the
export format (RESPONSE_COLUMNS, then the text columns), so every value checked
below is worked out from the rows written in the test.
"""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

import pandas as pd
import pytest

from stecflow.core.io import read_json, read_tsv, write_tsv
from stecflow.judgments import JudgmentsError
from stecflow.judgments.importers import read_text_responses, text_response_columns
from stecflow.judgments.importers.text import Criterion, criteria_from_config
from stecflow.judgments.text_join import read_text_design
from stecflow.judgments.text_measures import rating_measures
from stecflow.judgments.text_sim import (
    TextSimulationSettings,
    output_quality,
    simulate_text_answers,
)
from stecflow.judgments.text_simulation import simulate_text_study
from stecflow.judgments.text_study import judgment_columns, merge_text_study
from stecflow.release.archive import pseudonym
from stecflow.stats.preference import bradley_terry
from stecflow.studies.designs import TRIAL_COLUMNS

RATING = {
    "id": "tr",
    "task": "text_rating",
    "criteria": [
        {"id": "fluency", "scale": "likert", "points": 5},
        {"id": "adequacy", "scale": "slider"},
    ],
}
PREFERENCE = {
    "id": "tp",
    "task": "text_preference",
    "criteria": [{"id": "overall", "allow_tie": True}],
}


def _design(path: Path, study: str, trials: list[dict]) -> Path:
    rows = []
    for t in trials:
        row = dict.fromkeys(TRIAL_COLUMNS, "")
        row.update(study=study, subject_slot="1", practice="false", filler="false")
        row.update(t)
        rows.append(row)
    columns = list(TRIAL_COLUMNS)
    if "system_left" in trials[0]:
        columns += ["system_left", "system_right"]
    write_tsv(rows, columns, path)
    return path


def _responses(path: Path, task: str, criteria, rows: list[dict]) -> Path:
    criteria = criteria_from_config(criteria, task)
    full = []
    for r in rows:
        row = {
            "study": "tr" if task == "text_rating" else "tp",
            "task": task,
            "session_status": "completed",
            "practice": "false",
            "filler": "false",
        }
        row.update(r)
        full.append(row)
    write_tsv(full, text_response_columns(task, criteria), path)
    return path


def _merge(tmp_path: Path, design, responses, study, corrections=None, **settings):
    out = {k: tmp_path / f"{k}.tsv" for k in ("judgments", "quality", "measures")}
    summary = merge_text_study(
        design,
        responses,
        corrections,
        out["judgments"],
        out["quality"],
        out["measures"],
        tmp_path / "summary.json",
        study=study,
        settings=settings,
    )
    return summary, {k: read_tsv(v) for k, v in out.items()}


# ----------------------------------------------------------------- rating study


def _rating_design(tmp_path: Path) -> Path:
    trials = [
        {"list": "L1", "order": "1", "item": "t1", "system": "A"},
        {"list": "L1", "order": "2", "item": "t2", "system": "B"},
        {"list": "L1", "order": "3", "item": "t3", "system": "A"},
        {"list": "L2", "order": "1", "item": "t1", "system": "B"},
        {"list": "L2", "order": "2", "item": "t2", "system": "A"},
        {"list": "L2", "order": "3", "item": "t3", "system": "B"},
    ]
    return _design(tmp_path / "design.tsv", "tr", trials)


def _rating_rows() -> list[dict]:
    def r(session, lst, order, item, system, fl, ad, rt):
        return {
            "session": session,
            "participant": session.upper(),
            "list": lst,
            "order": order,
            "item": item,
            "system": system,
            "rating_fluency": fl,
            "rating_adequacy": ad,
            "rt_ms": rt,
        }

    return [
        r("s1", "L1", 1, "t1", "A", 5, 90, 4000),
        r("s1", "L1", 2, "t2", "B", 2, 30, 5000),
        r("s1", "L1", 3, "t3", "A", 4, 60, 4500),
        r("s2", "L2", 1, "t1", "B", 3, 20, 3000),
        r("s2", "L2", 2, "t2", "A", 4, 70, 3500),
        # s2 stops here: a partial session, kept and flagged
    ]


def test_rating_merge_measures_and_z_scores(tmp_path):
    design = _rating_design(tmp_path)
    responses = _responses(
        tmp_path / "export.tsv", "text_rating", RATING["criteria"], _rating_rows()
    )
    summary, out = _merge(tmp_path, design, [responses], RATING)
    judgments = out["judgments"]
    assert list(judgments[0]) == list(
        judgment_columns(
            "text_rating", criteria_from_config(RATING["criteria"], "text_rating")
        )
    )
    assert [
        (j["subject"], j["order"], j["system"], j["fluency"]) for j in judgments
    ] == [
        ("S1", "1", "A", "5"),
        ("S1", "2", "B", "2"),
        ("S1", "3", "A", "4"),
        ("S2", "1", "B", "3"),
        ("S2", "2", "A", "4"),
    ]
    assert {j["partial_session"] for j in judgments if j["subject"] == "S2"} == {"true"}
    assert all(j["in_analysis"] == "true" for j in judgments)
    assert judgments[0]["time_ms"] == "4000"
    checks = [(q["check"], q["session"]) for q in out["quality"]]
    s2 = pseudonym("s2", out["quality"][0]["study"], prefix="S-")  # as released
    assert ("missing_trials", s2) in checks and ("partial_session", s2) in checks
    measures = {(m["criterion"], m["system"]): m for m in out["measures"]}
    fa = measures[("fluency", "A")]
    assert (fa["n"], fa["n_subjects"], fa["mean"]) == ("3", "2", "4.333333333")
    assert float(fa["sd"]) == pytest.approx(statistics.stdev([5, 4, 4]))
    assert fa["z_mean"] == ""  # Likert: no z-scores
    # adequacy z-scores by hand: s1 rates 90, 30, 60 (mean 60, sd 30) -> 1, -1, 0;
    # s2 rates 20, 70 (mean 45, sd 35.355) -> -0.7071, 0.7071
    z_a = statistics.fmean([1.0, 0.0, 25 / math.sqrt(1250)])
    z_b = statistics.fmean([-1.0, -25 / math.sqrt(1250)])
    assert float(measures[("adequacy", "A")]["z_mean"]) == pytest.approx(z_a)
    assert float(measures[("adequacy", "B")]["z_mean"]) == pytest.approx(z_b)
    assert float(measures[("adequacy", "A")]["mean"]) == pytest.approx(220 / 3)
    assert measures[("adequacy", "B")]["z_n"] == "2"
    counts = summary["counts"]
    assert (counts["trials"], counts["partial_sessions"], counts["missing_trials"]) == (
        5,
        1,
        1,
    )
    assert summary["simulated"] is False and summary["task"] == "text_rating"
    assert read_json(tmp_path / "summary.json")["counts"] == counts
    written = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.suffix}
    _merge(tmp_path, design, [responses], RATING)  # a re-run: the same bytes
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.suffix} == written
    # excluding partial sessions leaves s2 out of the measures, not of the table
    _, out = _merge(
        tmp_path, design, [responses], RATING, exclude_partial_sessions=True
    )
    assert len(out["judgments"]) == 5
    assert {m["n"] for m in out["measures"] if m["system"] == "B"} == {"1"}


def test_rating_measures_z_scores_skip_constant_evaluators():
    rows = [
        {"subject": "s1", "system": "A", "in_analysis": True, "q": 50},
        {"subject": "s1", "system": "B", "in_analysis": True, "q": 50},
        {"subject": "s2", "system": "A", "in_analysis": True, "q": 90},
        {"subject": "s2", "system": "B", "in_analysis": True, "q": 10},
        {"subject": "s3", "system": "A", "in_analysis": False, "q": 0},
    ]
    m = {r["system"]: r for r in rating_measures(rows, [Criterion("q", "slider")])}
    assert (m["A"]["n"], m["A"]["mean"], m["A"]["z_n"]) == (2, 70.0, 1)
    assert m["A"]["z_mean"] == pytest.approx(1 / math.sqrt(2))
    assert m["B"]["z_mean"] == pytest.approx(-1 / math.sqrt(2))


def test_rating_import_problems_are_line_precise_and_kept(tmp_path):
    rows = _rating_rows()
    rows[1]["rating_fluency"] = 6  # off the 5-point scale (line 3)
    rows[2]["rating_adequacy"] = "lots"  # line 4
    responses = _responses(tmp_path / "x.tsv", "text_rating", RATING["criteria"], rows)
    result = read_text_responses(
        responses,
        task="text_rating",
        criteria=criteria_from_config(RATING["criteria"], "text_rating"),
    )
    found = [(p["source_line"], p["field"], p["detail"]) for p in result.problems]
    assert found == [
        (
            3,
            "rating_fluency",
            "6 is not on the 5-point scale; expected a whole number 1-5",
        ),
        (4, "rating_adequacy", "'lots' is not a number"),
    ]
    assert result.rows[1]["ratings"] == {"fluency": None, "adequacy": 30}
    summary, out = _merge(tmp_path, _rating_design(tmp_path), [responses], RATING)
    flagged = {j["order"]: j for j in out["judgments"] if j["subject"] == "S1"}
    assert flagged["2"]["in_analysis"] == "false"
    assert flagged["2"]["exclusion_reason"] == "import_problem"
    assert flagged["2"]["adequacy"] == "30"  # kept, out of the analysis
    assert summary["counts"]["in_analysis"] == 3
    with pytest.raises(JudgmentsError) as err:
        read_text_responses(
            responses,
            task="text_rating",
            criteria=criteria_from_config(RATING["criteria"], "text_rating"),
            strict=True,
        )
    assert (err.value.line, err.value.field) == (3, "rating_fluency")


def test_rating_file_errors_name_file_line_and_column(tmp_path):
    criteria = criteria_from_config(RATING["criteria"], "text_rating")
    responses = _responses(tmp_path / "x.tsv", "text_rating", RATING["criteria"], [])
    only_fluency = [criteria[0]]
    with pytest.raises(JudgmentsError, match="unexpected column") as err:
        read_text_responses(responses, task="text_rating", criteria=only_fluency)
    assert (err.value.file, err.value.line, err.value.field) == (
        str(responses),
        1,
        "rating_adequacy",
    )
    extra = [*criteria, Criterion("clarity", "likert", 7)]
    with pytest.raises(JudgmentsError, match="missing column") as err:
        read_text_responses(responses, task="text_rating", criteria=extra)
    assert err.value.field == "rating_clarity"
    bad_design = tmp_path / "bad.tsv"
    bad_design.write_text("study\tlist\torder\titem\tsystem\ntr\tL1\tfirst\tt1\tA\n")
    with pytest.raises(JudgmentsError, match="order 'first'") as err:
        read_text_design(bad_design, "text_rating")
    assert (err.value.line, err.value.field) == (2, "order")
    with pytest.raises(JudgmentsError, match="exactly one criterion"):
        criteria_from_config([{"id": "a"}, {"id": "b"}], "text_preference")
    with pytest.raises(JudgmentsError) as err:
        criteria_from_config([{"id": "a", "scale": "stars"}], "text_rating")
    assert err.value.field == "criteria[0].scale"


def test_offline_files_and_undecodable_bytes(tmp_path):
    rows = [{**r, "session_status": "offline"} for r in _rating_rows()[:3]]
    offline = _responses(tmp_path / "off.tsv", "text_rating", RATING["criteria"], rows)
    criteria = criteria_from_config(RATING["criteria"], "text_rating")
    result = read_text_responses(offline, task="text_rating", criteria=criteria)
    assert result.source_format == "offline"
    assert [r["time_ms"] for r in result.rows] == [4000, 5000, 4500]
    data = offline.read_bytes().split(b"\n")
    data[2] = data[2].replace(b"s1", b"s\xff1")
    broken = tmp_path / "broken.tsv"
    broken.write_bytes(b"\n".join(data))
    with pytest.raises(JudgmentsError, match="not valid utf-8") as err:
        read_text_responses(broken, task="text_rating", criteria=criteria)
    assert (err.value.file, err.value.line) == (str(broken), 3)
    bad_testset = tmp_path / "testset.jsonl"
    bad_testset.write_text('{"id": "t1", "input": "a chair"}\n{"id": 2}\n')
    with pytest.raises(JudgmentsError, match="string id") as err:
        simulate_text_study(
            _rating_design(tmp_path),
            bad_testset,
            {},
            tmp_path / "sim.tsv",
            study=RATING,
            seed=1,
        )
    assert (err.value.line, err.value.field) == (2, "id")


def test_rating_design_join_problems(tmp_path):
    rows = _rating_rows()
    rows.append(dict(rows[0]))  # duplicate of s1's trial 1 (line 7)
    rows.append({**rows[1], "session": "s3", "participant": "S3", "list": "L9"})
    rows.append({**rows[1], "session": "s4", "participant": "S4", "system": "C"})
    responses = _responses(tmp_path / "x.tsv", "text_rating", RATING["criteria"], rows)
    _, out = _merge(tmp_path, _rating_design(tmp_path), [responses], RATING)
    found = {(q["check"], q["source_line"], q["field"]) for q in out["quality"]}
    assert ("duplicate", "7", "order") in found
    assert ("unknown_list", "8", "list") in found
    assert ("design_mismatch", "9", "system") in found
    mismatch = next(q for q in out["quality"] if q["check"] == "design_mismatch")
    assert mismatch["detail"] == (
        "system 'C'; the design shows 'B' at order 2 of list L1 (line 3)"
    )
    assert len(out["judgments"]) == 5


def test_rating_corrections_change_and_exclude(tmp_path):
    responses = _responses(
        tmp_path / "x.tsv", "text_rating", RATING["criteria"], _rating_rows()
    )
    corrections = tmp_path / "corrections.tsv"
    corrections.write_text(
        "session\torder\tfield\told_value\tnew_value\treason\n"
        "s1\t1\tfluency\t5.0\t4\tslider slipped\n"
        "s2\t2\texclude\t\ttrue\tread aloud by the experimenter\n"
    )
    summary, out = _merge(
        tmp_path, _rating_design(tmp_path), [responses], RATING, corrections
    )
    by = {(j["subject"], j["order"]): j for j in out["judgments"]}
    assert by[("S1", "1")]["fluency"] == "4" and by[("S1", "1")]["corrected"] == "true"
    assert by[("S2", "2")]["in_analysis"] == "false"
    assert by[("S2", "2")]["exclusion_reason"] == "correction"
    fa = next(
        m for m in out["measures"] if (m["criterion"], m["system"]) == ("fluency", "A")
    )
    assert (fa["n"], fa["mean"]) == ("2", "4")
    assert summary["corrections"]["applied"] == 2
    assert [
        q["check"] for q in out["quality"] if q["source_file"] == corrections.name
    ] == [
        "corrected",
        "excluded_by_correction",
    ]
    bad = tmp_path / "bad.tsv"
    bad.write_text(
        "session\torder\tfield\tnew_value\treason\ns1\t1\tfluency\t9\tslip\n"
    )
    with pytest.raises(JudgmentsError, match="5-point") as err:
        _merge(tmp_path, _rating_design(tmp_path), [responses], RATING, bad)
    assert (err.value.file, err.value.line, err.value.field) == (
        str(bad),
        2,
        "new_value",
    )


# -------------------------------------------------------------- preference study


def _preference_design(tmp_path: Path) -> Path:
    pairs = [("A", "B"), ("B", "C"), ("C", "A"), ("B", "A"), ("C", "B"), ("A", "C")]
    trials = [
        {
            "list": "L1",
            "order": str(n),
            "item": f"t{n}",
            "system": "",
            "system_left": left,
            "system_right": right,
        }
        for n, (left, right) in enumerate(pairs, start=1)
    ]
    return _design(tmp_path / "pdesign.tsv", "tp", trials)


def _preference_rows(outcomes: list[tuple[str, str]]) -> list[dict]:
    pairs = [("A", "B"), ("B", "C"), ("C", "A"), ("B", "A"), ("C", "B"), ("A", "C")]
    rows = []
    for session, outcome in outcomes:
        for n, ((left, right), preferred) in enumerate(
            zip(pairs, outcome, strict=True), start=1
        ):
            side = {"l": "left", "r": "right", "t": "tie"}[preferred]
            rows.append(
                {
                    "session": session,
                    "participant": session,
                    "list": "L1",
                    "order": n,
                    "item": f"t{n}",
                    "system_left": left,
                    "system_right": right,
                    "preferred": side,
                    "chosen_system": {"left": left, "right": right}.get(side, ""),
                    "rt_ms": 2000,
                }
            )
    return rows


def test_preference_merge_counts_and_bradley_terry(tmp_path):
    # session p1: A>B, B>C, A>C (right), A>B (right), tie C-B, A>C
    # session p2: B>A, B>C, C>A (left), A>B (right), B>C (right), tie A-C
    rows = _preference_rows([("p1", "llrrtl"), ("p2", "rllrrt")])
    responses = _responses(
        tmp_path / "p.tsv", "text_preference", PREFERENCE["criteria"], rows
    )
    summary, out = _merge(
        tmp_path, _preference_design(tmp_path), [responses], PREFERENCE
    )
    j = out["judgments"]
    assert [(r["order"], r["preferred"], r["winner"]) for r in j[:3]] == [
        ("1", "left", "A"),
        ("2", "left", "B"),
        ("3", "right", "A"),
    ]
    assert j[4]["winner"] == ""  # a tie has no winner
    measures = {m["system"]: m for m in out["measures"]}
    # A: wins p1 1,3,4,6 + p2 4 = 5; losses p2 1,3 = 2; ties p2 6 = 1
    assert [measures["A"][k] for k in ("n", "wins", "losses", "ties")] == [
        "8",
        "5",
        "2",
        "1",
    ]
    assert float(measures["A"]["win_rate"]) == pytest.approx(5.5 / 8)
    frame = pd.DataFrame(
        [{k: r[k] for k in ("system_left", "system_right", "preferred")} for r in j]
    )
    expected = bradley_terry(frame).set_index("system")
    for system in "ABC":
        assert float(measures[system]["bt_strength"]) == pytest.approx(
            expected.loc[system, "strength"], abs=1e-9
        )
    assert [m["system"] for m in out["measures"]] == list(expected.index)
    assert out["measures"][0]["bt_rank"] == "1"
    ab = next(
        p for p in summary["pairs"] if (p["system_a"], p["system_b"]) == ("A", "B")
    )
    assert (ab["n"], ab["wins_a"], ab["wins_b"], ab["ties"]) == (4, 3, 1, 0)
    assert summary["settings"]["preference"]["ties"] == "half"
    # p1 llrrtl, p2 rllrrt: 5 left, 5 right, 2 ties
    assert summary["sides"] == {"left": 5, "right": 5, "tie": 2}


def test_preference_import_checks_chosen_system_and_outcome(tmp_path):
    rows = _preference_rows([("p1", "llrrtl")])
    rows[0]["chosen_system"] = "B"  # preferred left, but B is on the right
    rows[1]["preferred"] = "both"
    responses = _responses(
        tmp_path / "p.tsv", "text_preference", PREFERENCE["criteria"], rows
    )
    summary, out = _merge(
        tmp_path, _preference_design(tmp_path), [responses], PREFERENCE
    )
    problems = [(q["source_line"], q["field"], q["detail"]) for q in out["quality"]]
    assert ("2", "chosen_system", "B with preferred left; expected A") in problems
    assert (
        "3",
        "preferred",
        "'both'; expected one of left, right, tie",
    ) in problems
    assert summary["counts"]["in_analysis"] == 4
    no_ties = {**PREFERENCE, "criteria": [{"id": "overall", "allow_tie": False}]}
    _, out = _merge(tmp_path, _preference_design(tmp_path), [responses], no_ties)
    assert any(
        q["source_line"] == "6" and q["detail"] == "'tie'; expected one of left, right"
        for q in out["quality"]
    )


def test_awaiting_responses_writes_empty_tables(tmp_path):
    summary, out = _merge(tmp_path, _preference_design(tmp_path), [], PREFERENCE)
    assert summary["awaiting_responses"] is True
    assert out["judgments"] == [] and out["measures"] == []
    assert summary["counts"]["lists_in_design"] == 1


# --------------------------------------------------------------- simulation

TRIPLES = {
    f"t{n}": [
        [f"Chair_{n}", "colour", ["Red", "Blue", "Green"][n % 3]],
        [f"Chair_{n}", "material", ["Oak", "Steel", "Pine"][n % 3] + "_Wood"],
    ]
    for n in range(1, 13)
}


def _system_outputs() -> dict[str, dict[str, str]]:
    good, rules, weak = {}, {}, {}
    for item, triples in TRIPLES.items():
        (s, _, colour), (_, _, material) = triples
        name = s.replace("_", " ")
        good[item] = (
            f"{name} is {colour.lower()} and made of {material.replace('_', ' ')}."
        )
        rules[item] = f"{name} is {colour.lower()}."
        weak[item] = "The chair is a chair is a chair is a chair."
    return {"org/good": good, "org/rules": rules, "org/weak": weak}


def _sim_design(tmp_path: Path, task: str) -> Path:
    systems = ["org/good", "org/rules", "org/weak"]
    pairs = [(a, b) for a in systems for b in systems if a != b]
    trials = []
    for n_list in range(6):
        for order, item in enumerate(TRIPLES, start=1):
            trial = {"list": f"L{n_list + 1}", "order": str(order), "item": item}
            if task == "text_rating":
                trial["system"] = systems[(order + n_list) % 3]
            else:
                left, right = pairs[(order + n_list) % 6]
                trial.update(system="", system_left=left, system_right=right)
            trials.append(trial)
    study = "tr" if task == "text_rating" else "tp"
    return _design(tmp_path / f"{study}-design.tsv", study, trials)


def _testset(tmp_path: Path) -> Path:
    path = tmp_path / "testset.jsonl"
    path.write_text(
        "".join(
            json.dumps({"id": k, "input": v, "references": ["x"]}) + "\n"
            for k, v in TRIPLES.items()
        )
    )
    return path


def test_output_quality_by_hand():
    triples = TRIPLES["t1"]  # Chair_1 colour Blue; Chair_1 material Steel_Wood
    q = output_quality(triples, "Chair 1 is blue.")
    # triple 1: chair, 1, blue all present; triple 2: chair, 1 of chair, 1, steel,
    # wood -> 2 / 4
    assert q.coverage == pytest.approx((1 + 0.5) / 2)
    assert (q.repetition, q.fluency, q.words) == (0.0, 1.0, 4)
    weak = output_quality(triples, "The chair is a chair is a chair.")
    # bigrams: the-chair chair-is is-a a-chair chair-is is-a a-chair: 4 of 7 distinct
    assert weak.repetition == pytest.approx(3 / 7)
    # coverage: triple 1 has chair of chair, 1, blue; triple 2 chair of chair, 1,
    # steel, wood -> (1/3 + 1/4) / 2 = 7/24
    assert weak.coverage == pytest.approx(7 / 24)
    assert weak.quality == pytest.approx(0.7 * 7 / 24 + 0.3 * 4 / 7)


@pytest.mark.parametrize("task", ["text_rating", "text_preference"])
def test_simulated_study_better_systems_rank_higher_and_is_deterministic(
    tmp_path, task
):
    study = RATING if task == "text_rating" else PREFERENCE
    design = _sim_design(tmp_path, task)
    testset = _testset(tmp_path)
    sim = tmp_path / "sim.tsv"
    n = simulate_text_study(
        design, testset, _system_outputs(), sim, study=study, seed=2011
    )
    assert n == 72
    first = sim.read_bytes()
    simulate_text_study(design, testset, _system_outputs(), sim, study=study, seed=2011)
    assert sim.read_bytes() == first
    other = tmp_path / "other.tsv"
    simulate_text_study(
        design, testset, _system_outputs(), other, study=study, seed=2012
    )
    assert other.read_bytes() != first
    summary, out = _merge(tmp_path, design, [sim], study)
    assert summary["simulated"] is True
    assert summary["sources"][0]["format"] == "simulated"
    assert all(j["simulated"] == "true" for j in out["judgments"])
    assert out["quality"] == []
    if task == "text_rating":
        for criterion in ("fluency", "adequacy"):
            means = {
                m["system"]: float(m["mean"])
                for m in out["measures"]
                if m["criterion"] == criterion
            }
            assert means["org/good"] > means["org/weak"], criterion
        adequacy = {
            m["system"]: float(m["z_mean"])
            for m in out["measures"]
            if m["criterion"] == "adequacy"
        }
        assert adequacy["org/good"] > adequacy["org/rules"] > adequacy["org/weak"]
        values = {int(j["fluency"]) for j in out["judgments"]}
        assert values <= {1, 2, 3, 4, 5}
    else:
        ranking = [m["system"] for m in out["measures"]]
        assert ranking == ["org/good", "org/rules", "org/weak"]
        assert [m["bt_rank"] for m in out["measures"]] == ["1", "2", "3"]


def test_simulation_depends_on_outputs_not_on_system_names():
    criteria = criteria_from_config(RATING["criteria"], "text_rating")
    trials = [
        {"list": "L1", "order": n, "item": item, "system": system}
        for n, (item, system) in enumerate(
            [(i, s) for i in TRIPLES for s in ("X", "Y")], start=1
        )
    ]
    outputs = _system_outputs()
    swapped = {("X", i): outputs["org/weak"][i] for i in TRIPLES}
    swapped |= {("Y", i): outputs["org/good"][i] for i in TRIPLES}
    rows = simulate_text_answers(
        trials,
        task="text_rating",
        criteria=criteria,
        inputs=TRIPLES,
        outputs=swapped,
        seed=1,
        study="tr",
        settings=TextSimulationSettings(),
    )
    mean = {
        s: statistics.fmean(r["ratings"]["adequacy"] for r in rows if r["system"] == s)
        for s in ("X", "Y")
    }
    assert mean["Y"] > mean["X"]
    with pytest.raises(JudgmentsError, match="not in the test set"):
        simulate_text_answers(
            [{"list": "L1", "order": 1, "item": "zz", "system": "X"}],
            task="text_rating",
            criteria=criteria,
            inputs=TRIPLES,
            outputs=swapped,
            seed=1,
            study="tr",
        )


# ----------------------------------------------------------------- analyses


def _text_config(analyses=None) -> dict:
    """The parts of a text campaign's config that analysis_specs reads."""
    return {
        "scoring": {"metrics": [{"id": "string_accuracy"}]},
        "studies": [
            {**RATING, "systems": ["org/good", "org/rules", "org/weak"]},
            {**PREFERENCE, "systems": ["org/good", "org/rules", "org/weak"]},
        ],
        "statistics": {"analyses": analyses or []},
    }


def _merged_study(tmp_path: Path, task: str) -> Path:
    """results/judgments/<study>.tsv and its summary, from a simulated study."""
    study = RATING if task == "text_rating" else PREFERENCE
    design = _sim_design(tmp_path, task)
    sim = tmp_path / f"{study['id']}-sim.tsv"
    simulate_text_study(
        design, _testset(tmp_path), _system_outputs(), sim, study=study, seed=7
    )
    folder = tmp_path / "judgments"
    merge_text_study(
        design,
        [sim],
        None,
        folder / f"{study['id']}.tsv",
        folder / "quality" / f"{study['id']}.tsv",
        folder / "measures" / f"{study['id']}.tsv",
        folder / "summary" / f"{study['id']}.json",
        study=study,
    )
    return folder / f"{study['id']}.tsv"


def _analysed(tmp_path: Path) -> Path:
    path = tmp_path / "analysed.tsv"
    rows = [
        {"team": "org", "system": s, "label": s.upper(), "properties": ""}
        for s in ("good", "rules", "weak")
    ]
    write_tsv(rows, ["team", "system", "label", "properties"], path)
    return path


def _run(tmp_path: Path, spec: dict, judgments: dict) -> tuple[dict, list[dict]]:
    from stecflow.analysis.run import run_analysis

    record = run_analysis(
        spec,
        tmp_path / "no-items.tsv",
        _analysed(tmp_path),
        tmp_path / "stats" / f"{spec['id']}.tsv",
        tmp_path / "stats" / f"{spec['id']}.json",
        judgments=judgments,
    )
    return record, read_tsv(tmp_path / "stats" / f"{spec['id']}.tsv")


def test_default_analyses_of_text_studies():
    from stecflow.analysis.specs import analysis_specs

    specs = analysis_specs(_text_config())
    text = [
        (s["id"], s["test"], s.get("measure")) for s in specs if s["source"] != "scores"
    ]
    assert text == [
        ("tr-fluency-anova", "anova", "fluency"),
        ("tr-fluency-tukey", "tukey", "fluency"),
        ("tr-adequacy-anova", "anova", "adequacy"),
        ("tr-adequacy-tukey", "tukey", "adequacy"),
        ("tp-preference", "preference", None),
    ]
    assert specs[1]["criteria"] == ["fluency", "adequacy"]
    assert specs[0]["id"] == "accuracy-kruskal"  # the scores' default stays


def test_text_analysis_config_errors_name_the_field():
    from stecflow.analysis.specs import analysis_specs
    from stecflow.core.errors import ConfigError

    def fails(entry, match, field):
        with pytest.raises(ConfigError, match=match) as err:
            analysis_specs(_text_config([entry]))
        assert err.value.field == field

    fails(
        {"id": "a", "test": "anova", "source": "tr", "measure": "clarity"},
        "unknown measure 'clarity'; measures here: fluency, adequacy",
        "statistics.analyses[0].measure",
    )
    fails(
        {"id": "a", "test": "anova", "source": "tp", "measure": "overall"},
        "analyse it with test preference",
        "statistics.analyses[0].test",
    )
    fails(
        {"id": "a", "test": "preference", "source": "tr"},
        "'tr' is not a text_preference study",
        "statistics.analyses[0].source",
    )
    fails(
        {"id": "a", "test": "preference", "source": "tp", "reference": "org/none"},
        "reference 'org/none' is not a system of study tp",
        "statistics.analyses[0].reference",
    )
    fails(
        {"id": "a", "test": "preference", "source": "tp", "factors": ["system"]},
        "factors does not apply",
        "statistics.analyses[0].factors",
    )


def test_schema_accepts_the_text_analyses():
    import jsonschema
    import yaml

    from tests.conftest import REPO

    schema = yaml.safe_load(
        (REPO / "workflow" / "schemas" / "config.schema.yaml").read_text()
    )
    analyses = schema["properties"]["statistics"]["properties"]["analyses"]
    validator = jsonschema.Draft202012Validator(analyses)
    validator.validate(
        [
            {
                "id": "tp-bt",
                "test": "preference",
                "source": "tp",
                "reference": "org/weak",
            },
            {"id": "tr-fl", "test": "mixed", "source": "tr", "measure": "fluency"},
        ]
    )
    with pytest.raises(jsonschema.ValidationError):
        validator.validate([{"id": "x", "test": "preference", "reference": "a b"}])


def test_anova_and_mixed_of_a_rating_criterion(tmp_path):
    from scipy.stats import f_oneway

    from stecflow.analysis.specs import analysis_specs

    path = _merged_study(tmp_path, "text_rating")
    (anova, mixed) = analysis_specs(
        _text_config(
            [
                {"id": "a", "test": "anova", "source": "tr", "measure": "adequacy"},
                {"id": "m", "test": "mixed", "source": "tr", "measure": "fluency"},
            ]
        )
    )
    record, rows = _run(tmp_path, anova, {"tr": path})
    trials = pd.read_csv(path, sep="\t")
    trials = trials[trials["in_analysis"]]
    groups = [g["adequacy"].to_numpy() for _, g in trials.groupby("system")]
    expected = f_oneway(*groups)
    system_row = next(r for r in rows if r["source"] == "system")
    assert float(system_row["f"]) == pytest.approx(expected.statistic)
    assert float(system_row["p_val"]) == pytest.approx(expected.pvalue)
    assert record["systems"] == ["GOOD", "RULES", "WEAK"]
    assert record["n_observations"] == len(trials) == 72
    assert record["judgments"]["tr"]["simulated"] is True
    record, rows = _run(tmp_path, mixed, {"tr": path})
    assert record["n_observations"] == 72
    # balanced and crossed (every evaluator rates each system 4 times, every item
    # is shown by each system twice): the means-coded estimates are the raw means
    means = trials.groupby("system")["fluency"].mean()
    fixed = {r["term"]: float(r["estimate"]) for r in rows if r["effect"] == "fixed"}
    assert fixed == pytest.approx(
        {s.split("/")[1].upper(): m for s, m in means.items()}
    )
    assert {r["n_subjects"] for r in rows} == {"6"}


def test_preference_analysis_equals_bradley_terry_on_the_judgments(tmp_path):
    from stecflow.analysis.families.preference import PREFERENCE_COLUMNS
    from stecflow.analysis.specs import analysis_specs

    path = _merged_study(tmp_path, "text_preference")
    (spec,) = analysis_specs(
        _text_config(
            [
                {
                    "id": "bt",
                    "test": "preference",
                    "source": "tp",
                    "reference": "org/weak",
                }
            ]
        )
    )
    record, rows = _run(tmp_path, spec, {"tp": path})
    assert list(rows[0]) == list(PREFERENCE_COLUMNS)
    trials = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    trials = trials[trials["in_analysis"] == "true"].replace(
        {"org/good": "GOOD", "org/rules": "RULES", "org/weak": "WEAK"}
    )
    expected = bradley_terry(trials, reference="WEAK").set_index("system")
    assert [r["system"] for r in rows] == list(expected.index)
    for r in rows:
        e = expected.loc[r["system"]]
        assert float(r["strength"]) == pytest.approx(e["strength"], abs=1e-9)
        assert r["reference"] == "WEAK"
        if r["system"] != "WEAK":
            assert float(r["p_value"]) == pytest.approx(e["p_value"])
    good = next(r for r in rows if r["system"] == "GOOD")
    assert int(good["n"]) == int(good["wins"]) + int(good["losses"]) + int(good["ties"])
    assert len(record["pairs"]) == 3
    assert record["model"]["ties"] == "half"
    assert record["n_trials"] == len(trials)
    assert record["awaiting_responses"] == []

"""Control trials and exclusion rules of a text rating study (issue 17, point 3).

A small text test set (12 inputs, one reference each), three systems rated by
three simulated evaluators on a Likert and a slider criterion, two degraded
control trials per list and two rules declared in advance. The design places the
controls by the seed; the degraded texts differ from their source by one span of
words taken from another input's reference (WMT's bad references); the
simulator's click-through evaluator fails the controls and is excluded, with the
audit's reason; the report says so in plain words.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stecflow.core.io import read_tsv
from stecflow.release.archive import pseudonym

_REFS = [
    "Chair 1 is big and red.",
    "The small desk faces left in column two.",
    "Fan 3 is green.",
    "A tall person with glasses stands in row one near the door.",
    "Sofa 5 is blue and large.",
    "Desk 6 is brown.",
]
_SPEC = {
    "id": "tr",
    "task": "text_rating",
    "systems": ["a/x", "b/y", "c/z"],
    "subjects": 3,
    "seed": 7,
    "criteria": [
        {"id": "fluency", "question": "Fluent?", "scale": "likert", "points": 5},
        {
            "id": "adequacy",
            "question": "Adequate?",
            "scale": "slider",
            "anchors": ["Not at all", "Completely"],
        },
    ],
    "controls": {"per_list": 2},
    "exclusions": [
        {"name": "attention", "controls_below": 0.5},
        {"name": "fast", "median_time_below_ms": 1500},
    ],
}


def _reference(k: int) -> str:
    return f"{_REFS[k % 6]} It is number {k}."


@pytest.fixture()
def study(tmp_path: Path) -> dict:
    from stecflow.studies.controls import control_texts
    from stecflow.studies.setup import _design_text, make_design, study_specs
    from stecflow.tasks.registry import read_testset

    lines = [
        json.dumps(
            {
                "id": f"t{k:02d}",
                "input": f"fact {k} about thing {k}",
                "references": [_reference(k)],
            }
        )
        for k in range(1, 13)
    ]
    testset = tmp_path / "test.jsonl"
    testset.write_text("\n".join(lines) + "\n", encoding="utf-8")
    [spec] = study_specs({"studies": [_SPEC]})
    design = make_design(spec, testset, None)
    (tmp_path / "design.tsv").write_text(_design_text(design), encoding="utf-8")
    items = read_testset(testset)
    outputs = {
        s: {i.id: f"thing {i.id[1:]} has fact {i.id[1:]} from {s}" for i in items}
        for s in spec["systems"]
    }
    outputs["CONTROL"] = control_texts("degraded", items, outputs, seed=7)
    return {
        "tmp": tmp_path,
        "spec": spec,
        "design": design,
        "items": items,
        "outputs": outputs,
        "testset": testset,
    }


def test_controls_placed_by_the_seed(study) -> None:
    trials = study["design"].trials
    controls = trials[trials["control"].notna()]
    assert controls[["list", "order", "item"]].values.tolist() == [
        ["L01", 7, "t12"],
        ["L01", 9, "t03"],
        ["L02", 2, "t10"],
        ["L02", 13, "t04"],
        ["L03", 2, "t03"],
        ["L03", 8, "t10"],
    ]
    assert set(controls["system"]) == {"CONTROL"}
    assert set(controls["control"]) == {"degraded"}
    # 12 items / 3 systems: 12 test trials per list, plus the 2 controls
    assert trials.groupby("list").size().tolist() == [14, 14, 14]
    # never first or last, never adjacent
    for _, group in controls.groupby("list"):
        orders = sorted(group["order"])
        assert orders[0] > 1 and orders[-1] < 14 and orders[1] - orders[0] > 1


def test_degraded_text_differs_by_one_span_of_another_reference(study) -> None:
    from stecflow.studies.controls import degraded_span_length

    texts = study["outputs"]["CONTROL"]
    assert set(texts) == {f"t{k:02d}" for k in range(1, 13)}
    # by hand: "Fan 3 is green. It is number 2." has 7 words, so a span of 3
    # (WMT: 2 for 2-5 words, 3 for 6-8); "green. It is" became "It is number",
    # three consecutive words of another input's reference
    assert texts["t02"] == "Fan 3 is It is number number 2."
    donors = {k: _reference(k).split() for k in range(1, 13)}
    for k in range(1, 13):
        source = donors[k]
        out = texts[f"t{k:02d}"].split()
        length = degraded_span_length(len(source))
        assert len(out) == len(source) and out != source
        starts = [
            s
            for s in range(len(source) - length + 1)
            if out[:s] == source[:s] and out[s + length :] == source[s + length :]
        ]
        assert starts, k
        spans = [out[s : s + length] for s in starts]
        assert any(
            span == words[at : at + length]
            for span in spans
            for j, words in donors.items()
            if j != k
            for at in range(len(words) - length + 1)
        ), k


def test_control_trial_shows_the_degraded_text(study) -> None:
    from stecflow.studies.text import make_text_study_files

    bundle = make_text_study_files(
        study["design"],
        study["items"],
        study["outputs"],
        task="text_rating",
        criteria=study["spec"]["criteria"],
    )
    [first] = [lst for lst in bundle.document["lists"] if lst["list"] == "L01"]
    trial = next(t for t in first["trials"] if t["order"] == 7)
    assert trial["system"] == "CONTROL"
    assert trial["output"] == study["outputs"]["CONTROL"]["t12"]


def _merge(study, inattentive: float) -> tuple[dict, list, list]:
    from stecflow.judgments.text_simulation import simulate_text_study
    from stecflow.judgments.text_study import merge_text_study

    tmp = study["tmp"]
    simulate_text_study(
        tmp / "design.tsv",
        study["testset"],
        study["outputs"],
        tmp / "sim.tsv",
        study=study["spec"],
        seed=2009,
        settings={"inattentive": inattentive},
    )
    summary = merge_text_study(
        tmp / "design.tsv",
        [tmp / "sim.tsv"],
        None,
        tmp / "judgments.tsv",
        tmp / "quality.tsv",
        tmp / "measures.tsv",
        tmp / "summary.json",
        study=study["spec"],
        exclusions_path=tmp / "exclusions.tsv",
    )
    return summary, read_tsv(tmp / "exclusions.tsv"), read_tsv(tmp / "judgments.tsv")


def test_click_through_rater_fails_the_controls_and_is_excluded(study) -> None:
    summary, audit, judgments = _merge(study, inattentive=0.4)
    found = {(r["session"], r["rule"]): r for r in audit}
    assert len(audit) == 6  # 3 evaluators x 2 rules
    lazy = found["sim-L02", "attention"]
    assert (lazy["value"], lazy["threshold"], lazy["excluded"]) == ("0", "0.5", "1")
    assert lazy["reason"] == "0 of 2 control trials passed (at least 50% required)"
    fast = found["sim-L02", "fast"]
    assert fast["reason"] == "median 824 ms against a minimum of 1,500 ms"
    assert (fast["value"], fast["threshold"], fast["excluded"]) == ("824", "1500", "1")
    for other in ("sim-L01", "sim-L03"):
        row = found[other, "attention"]
        assert row["excluded"] == "0"
        assert row["reason"] == "2 of 2 control trials passed (at least 50% required)"
        assert found[other, "fast"]["excluded"] == "0"
    # the click-through evaluator: middle of the Likert scale, slider at 50
    theirs = [r for r in judgments if r["session"] == "sim-L02"]
    assert {(r["fluency"], r["adequacy"]) for r in theirs} == {("3", "50")}
    # kept and flagged, never dropped
    assert len(theirs) == 14
    assert all(r["excluded"] == "true" and r["in_analysis"] == "false" for r in theirs)
    assert {r["exclusion_reason"] for r in theirs if not r["control"]} == {
        "rule:attention, rule:fast"
    }
    controls = [r for r in judgments if r["control"]]
    assert len(controls) == 6 and {r["system"] for r in controls} == {"CONTROL"}
    assert all(r["in_analysis"] == "false" for r in controls)
    assert summary["counts"]["in_analysis"] == 24  # 2 evaluators x 12 trials
    assert summary["counts"]["controls"] == 6
    # the summary names participants by keyed pseudonym (stecflow.judgments.public)
    key = summary["study"]
    assert summary["exclusions"]["excluded_participants"] == [
        pseudonym("sim-L02", key, prefix="P-")
    ]
    measures = read_tsv(study["tmp"] / "measures.tsv")
    assert {r["system"] for r in measures} == {"a/x", "b/y", "c/z"}
    assert all(r["n"] == "8" for r in measures)


def test_without_inattentive_raters_nobody_is_excluded(study) -> None:
    summary, audit, _ = _merge(study, inattentive=0.0)
    assert [r["excluded"] for r in audit] == ["0"] * 6
    assert summary["exclusions"]["excluded_participants"] == []
    assert summary["counts"]["in_analysis"] == 36


def test_report_paragraphs(study) -> None:
    from stecflow.report.exclusions import exclusion_blocks

    summary, _, _ = _merge(study, inattentive=0.4)
    texts = [b["parts"][0]["text"] for b in exclusion_blocks(summary)]
    # the summary (and so the report) names participants by keyed pseudonym
    p1, p2, p3 = (
        pseudonym(f"sim-L0{n}", summary["study"], prefix="P-") for n in (1, 2, 3)
    )
    passed = {
        p1: f"{p1}: 2 of 2 control trials passed (at least 50% required)",
        p2: f"{p2}: 0 of 2 control trials passed (at least 50% required)",
        p3: f"{p3}: 2 of 2 control trials passed (at least 50% required)",
    }
    assert texts == [
        "Exclusion rules declared before data collection: attention: fewer than"
        " 50% of the control trials answered as expected (a degraded text rated"
        " below the participant's own median fluency); fast: median response"
        " time below 1,500 ms.",
        "1 of 3 participants excluded, every trial of theirs left out of the"
        f" analyses (kept, flagged, in the judgments table). {p2}: attention, 0"
        " of 2 control trials passed (at least 50% required); fast, median 824 ms"
        " against a minimum of 1,500 ms. Per list: L02 1.",
        "Control trials answered as expected, per participant: "
        + "; ".join(passed[p] for p in sorted(passed))
        + ".",
    ]


def test_report_folds_control_results_of_many_participants() -> None:
    from stecflow.report.exclusions import exclusion_blocks

    audit = [
        {
            "participant": f"p{n:02d}",
            "list": "L01",
            "rule": "attention",
            "value": "1",
            "threshold": "0.5",
            "excluded": 0,
            "reason": "3 of 3 control trials passed (at least 50% required)",
        }
        for n in range(1, 12)
    ]
    summary = {
        "task": "text_rating",
        "exclusions": {
            "rules": [{"name": "attention", "controls_below": 0.5}],
            "audit": audit,
        },
    }
    blocks = exclusion_blocks(summary)
    assert blocks[1]["parts"][0]["text"] == "No participant of 11 was excluded."
    folded = blocks[2]
    assert folded["kind"] == "details"
    assert folded["summary"] == "Control trials of each of the 11 participants"
    text = folded["blocks"][0]["parts"][0]["text"]
    assert text.startswith(
        "p01: 3 of 3 control trials passed (at least 50% required); p02: "
    )
    # ten participants stay a plain paragraph
    summary["exclusions"]["audit"] = audit[:10]
    assert exclusion_blocks(summary)[2]["kind"] == "p"


def test_old_audit_without_reason_still_reads() -> None:
    from stecflow.report.exclusions import exclusion_blocks

    summary = {
        "task": "rating",
        "exclusions": {
            "rules": [{"name": "fast", "median_time_below_ms": 800}],
            "audit": [
                {
                    "participant": "p1",
                    "list": "L01",
                    "rule": "fast",
                    "value": "400",
                    "threshold": "800",
                    "excluded": 1,
                }
            ],
        },
    }
    text = exclusion_blocks(summary)[1]["parts"][0]["text"]
    assert "p1: fast, 400 against 800." in text


def test_preference_controls_pair_a_text_with_its_degraded_copy(study) -> None:
    """A text_preference study: each control trial shows a system's output
    against a degraded copy of it; choosing the copy fails the control."""
    from stecflow.judgments.text_simulation import simulate_text_study
    from stecflow.judgments.text_study import merge_text_study
    from stecflow.studies.controls import pair_control_texts
    from stecflow.studies.designs.pairs import pair_balance_problems
    from stecflow.studies.setup import _design_text, make_design, study_specs

    tmp = study["tmp"]
    [spec] = study_specs(
        {
            "studies": [
                {
                    "id": "tp",
                    "task": "text_preference",
                    "systems": ["a/x", "b/y", "c/z"],
                    "subjects": 6,
                    "seed": 5,
                    "criteria": [
                        {"id": "overall", "question": "Better?", "allow_tie": True}
                    ],
                    "controls": {"per_list": 2},
                    "exclusions": [
                        {"name": "attention", "controls_below": 1},
                        {"name": "fast", "median_time_below_ms": 1500},
                    ],
                }
            ]
        }
    )
    assert spec["controls"]["kind"] == "degraded"
    plain = make_design(spec, study["testset"], None, controls=False)
    assert pair_balance_problems(plain) == []
    design = make_design(spec, study["testset"], None)
    (tmp / "pairs.tsv").write_text(_design_text(design), encoding="utf-8")
    trials = design.trials
    controls = trials[trials["control"].notna()]
    assert controls[
        ["list", "order", "item", "system_left", "system_right"]
    ].values.tolist()[:4] == [
        ["L01", 6, "t10", "b/y", "CONTROL"],
        ["L01", 12, "t02", "b/y", "CONTROL"],
        ["L02", 2, "t02", "CONTROL", "b/y"],
        ["L02", 8, "t04", "CONTROL", "a/x"],
    ]
    assert len(controls) == 12 and len(trials) == 6 * (12 + 2)
    # the same item shows the same system's copy in every list
    assert {(r["item"], r["system"]) for r in controls.to_dict("records")} >= {
        ("t02", "CONTROL|b/y")
    }
    assert not (controls[["item", "system"]].drop_duplicates().duplicated("item").any())
    items = study["items"]
    outputs = {
        s: {
            i.id: f"thing {i.id[1:]} has fact {i.id[1:]} and more words from {s}"
            for i in items
        }
        for s in spec["systems"]
    }
    outputs["CONTROL"] = pair_control_texts(
        [i.id for i in items], outputs, spec["systems"], seed=5
    )
    # "thing 02 ... from b/y" (10 words, span 4) with 4 words of another output
    copy, intact = outputs["CONTROL"]["t02"].split(), outputs["b/y"]["t02"].split()
    assert len(copy) == len(intact) == 10
    assert sum(a != b for a, b in zip(copy, intact, strict=True)) <= 4
    assert copy != intact
    simulate_text_study(
        tmp / "pairs.tsv",
        study["testset"],
        outputs,
        tmp / "psim.tsv",
        study=spec,
        seed=2009,
        settings={"inattentive": 0.3},
    )
    summary = merge_text_study(
        tmp / "pairs.tsv",
        [tmp / "psim.tsv"],
        None,
        tmp / "pj.tsv",
        tmp / "pq.tsv",
        tmp / "pm.tsv",
        tmp / "ps.json",
        study=spec,
        exclusions_path=tmp / "pex.tsv",
    )
    audit = read_tsv(tmp / "pex.tsv")
    attention = {r["participant"]: r for r in audit if r["rule"] == "attention"}
    # sim-L02 always chooses the left text, which is the copy in both controls
    assert attention["sim-L02"]["reason"] == (
        "0 of 2 control trials passed (at least 100% required)"
    )
    assert [p for p, r in sorted(attention.items()) if r["excluded"] == "1"] == [
        "sim-L02"
    ]
    judgments = read_tsv(tmp / "pj.tsv")
    lazy = [r for r in judgments if r["session"] == "sim-L02" and r["control"]]
    assert [(r["system_left"], r["winner"]) for r in lazy] == [
        ("CONTROL", "CONTROL"),
        ("CONTROL", "CONTROL"),
    ]
    assert summary["counts"]["in_analysis"] == 5 * 12
    measures = read_tsv(tmp / "pm.tsv")
    assert sorted(r["system"] for r in measures) == ["a/x", "b/y", "c/z"]
    assert all(
        r["n"] == "40" for r in measures
    )  # 5 evaluators x 12 pairs x 2 sides / 3

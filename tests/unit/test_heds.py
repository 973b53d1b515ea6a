"""The release's datasheet follows HEDS 3.0 question by question.

The question numbers below are those of the HEDS 3.0 form (Belz & Thomson 2024,
arXiv:2412.07940; https://nlp-heds.github.io, the form's ``Question <n>:``
labels, read from its index.html): every one is answered once per block it
belongs to (Sections 1, 2 and 5 once, Section 3 per study, Section 4 per
quality criterion), in the form's order, none twice.
"""

from __future__ import annotations

import copy
import re

import pytest
import yaml

from stecflow.release.heds import QUESTIONS, TO_COMPLETE, datasheet
from stecflow.studies.strings import ADEQUACY_QUESTION, FLUENCY_QUESTION
from tests.conftest import REPO

#: Every question number of the HEDS 3.0 form, in its order.
HEDS_3_0 = [
    *("1.1.1", "1.1.2", "1.2"),
    *("1.3.1.1", "1.3.1.2", "1.3.1.3", "1.3.2.1", "1.3.2.2", "1.3.2.3"),
    *("2.1", "2.2", "2.3", "2.4", "2.5"),
    *("3.1.1", "3.1.2", "3.1.3.1", "3.1.3.2", "3.1.3.3"),
    *("3.2.1", "3.2.2.1", "3.2.2.2", "3.2.2.3", "3.2.2.4", "3.2.3", "3.2.4", "3.2.5"),
    *("3.3.1", "3.3.2", "3.3.3.1", "3.3.3.2", "3.3.4.1", "3.3.4.2"),
    *("3.3.5", "3.3.6", "3.3.7", "3.3.8"),
    *("4.1.1", "4.1.2", "4.1.3", "4.2.1", "4.2.2", "4.2.3"),
    *("4.3.1.1", "4.3.1.2", "4.3.2", "4.3.3", "4.3.4", "4.3.5", "4.3.6"),
    *("4.3.7", "4.3.8", "4.3.9", "4.3.10", "4.3.11.1", "4.3.11.2"),
    *("4.3.12.1", "4.3.12.2"),
    *("5.1", "5.2", "5.3", "5.4"),
]


def section(number: str) -> list[str]:
    return [q for q in HEDS_3_0 if q.split(".")[0] == number]


ITEM = re.compile(r"^- \*\*(\d+(?:\.\d+)+) ")


def blocks(sheet: str) -> list[tuple[str, list[str]]]:
    """(heading, question numbers answered under it) for every heading."""
    out: list[tuple[str, list[str]]] = []
    for line in sheet.splitlines():
        if line.startswith("#"):
            out.append((line, []))
        elif match := ITEM.match(line):
            out[-1][1].append(match.group(1))
    return [(h, ids) for h, ids in out if ids]


def answers(sheet: str) -> list[tuple[str, str]]:
    """(question number, answer) of every question in the sheet."""
    return [
        (m.group(1), line.split(":** ", 1)[1])
        for line in sheet.splitlines()
        if (m := ITEM.match(line))
    ]


def block(sheet: str, heading: str) -> dict[str, str]:
    """The answers under the one heading that contains *heading*."""
    [(_, text)] = [
        (h, part)
        for part in re.split(r"^(?=#)", sheet, flags=re.M)
        if heading in (h := part.split("\n", 1)[0])
    ]
    return dict(answers(text))


def check_blocks(sheet: str, criteria: list[int]) -> None:
    """Sections 1, 2, then per study 3 and one 4 per criterion, then 5; each
    block holds its section's questions in order, each once."""
    found = blocks(sheet)
    expected = ["1", "2"]
    for n in criteria:
        expected += ["3"] + ["4"] * n
    expected.append("5")
    assert [ids[0].split(".")[0] for _, ids in found] == expected
    for heading, ids in found:
        assert ids == section(ids[0].split(".")[0]), heading


def test_the_questions_are_those_of_the_heds_3_0_form():
    assert list(QUESTIONS) == HEDS_3_0
    assert len(HEDS_3_0) == len(set(HEDS_3_0)) == 62


def _demo_studies() -> list[dict]:
    """The demo's two studies as their design.json and collection describe them."""
    systems = [
        "organisers/full-brevity",
        "organisers/greedy",
        "organisers/incremental",
        "organisers/incremental-loc",
        "human/HUMAN-1",
        "human/HUMAN-2",
    ]
    common = {
        "kind": "latin_square",
        "systems": systems,
        "n_items": 112,
        "n_trials": 672,
        "n_fillers": 12,
        "subjects": 6,
        "groups": 1,
        "squares": 1,
    }
    collected = {
        "trials": 672,
        "practice": 12,
        "fillers": 12,
        "participants": 6,
        "sessions": 6,
        "lists": {f"L0{n}": 112 for n in range(1, 7)},
        "controls": 0,
        "simulated": True,
        "excluded_rows": 0,
        "exclusions": None,
    }
    return [
        {
            **common,
            "study": "rating",
            "task": "rating",
            "title": "Adequacy and fluency ratings",
            "seed": 2009,
            "practice_items": ["d1", "d2"],
            "collected": collected,
        },
        {
            **common,
            "study": "identification",
            "task": "identification",
            "variant": "read_first",
            "title": "Identification experiment",
            "seed": 2010,
            "practice_items": ["d1", "d2", "d3", "d4", "d5"],
            "collected": collected | {"practice": 30},
        },
    ]


@pytest.fixture(scope="module")
def demo():
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    return config, _demo_studies()


def test_the_demo_datasheet_answers_every_question_once_per_block(demo):
    config, studies = demo
    sheet = datasheet(config, studies)
    # rating: Adequacy and Fluency; identification (read first): accuracy,
    # identification time and reading time
    check_blocks(sheet, [2, 3])
    headings = [h for h, _ in blocks(sheet) if h.startswith("### 4.")]
    assert headings == [
        "### 4. Quality criterion 1 of 2: Adequacy (`rating`)",
        "### 4. Quality criterion 2 of 2: Fluency (`rating`)",
        "### 4. Quality criterion 1 of 3: Identification accuracy (`identification`)",
        "### 4. Quality criterion 2 of 3: Identification time (`identification`)",
        "### 4. Quality criterion 3 of 3: Reading time (`identification`)",
    ]
    assert "HEDS 3.0 (Belz & Thomson 2024" in sheet
    # 14 questions of Sections 1-2, 2 x 23 of Section 3, 5 x 21 of Section 4, 4
    given = answers(sheet)
    assert len(given) == 14 + 2 * 23 + 5 * 21 + 4 == 169
    open_ = [q for q, a in given if TO_COMPLETE in a]
    # the paper, the affiliation and the emails, the power analysis (none in the
    # demo) and preregistration of each study, the QCET names, impact assessment
    assert sorted(open_) == sorted(
        ["1.1.1", "1.3.1.2", "1.3.1.3", "1.3.2.2", "1.3.2.3"]
        + ["3.1.3.1", "3.3.1"] * 2
        + ["4.3.1.2"] * 5
        + ["5.4"]
    )
    assert len(given) - len(open_) >= 153


def test_the_demo_datasheet_gives_the_studys_own_answers(demo):
    config, studies = demo
    sheet = datasheet(config, studies)
    adequacy = block(sheet, "Adequacy (`rating`)")
    assert adequacy["4.3.3"] == "100."
    assert adequacy["4.3.4"].startswith("1–100 (the slider's position) (left end")
    assert adequacy["4.3.5"].startswith("Slider")
    assert adequacy["4.3.7"] == (
        f"“{ADEQUACY_QUESTION}” (left end “not clear”, right end “very clear”)"
    )
    assert adequacy["4.3.8"] == "Direct quality estimation."
    # normalise: z, the demo's analyses, its agreement settings
    assert "per-rater z-scores (`adequacy_z`" in adequacy["4.3.9"]
    assert (
        "ANOVA (`rating-adequacy-anova`, factors system, subdomain)"
        in (adequacy["4.3.10"])
    )
    assert adequacy["4.3.11.1"].startswith("Krippendorff's alpha (interval metric)")
    assert "(1000 resamples, confidence 0.95)" in adequacy["4.3.11.1"]
    assert f"“{FLUENCY_QUESTION}”" in sheet
    rating = dict(answers(sheet.split("## Study 1")[1].split("### 4.")[0]))
    assert rating["3.1.1"].startswith("112 per system: 112 test items, 672 test")
    assert "Collected: 672 test trials" in rating["3.1.1"]
    assert rating["3.2.1"].startswith("6 simulated evaluator(s)")
    assert rating["3.2.4"].startswith("2 practice trial(s) at the start")
    # the power analysis is 3.1.3 (none in the demo), not a second 3.2.1
    assert rating["3.1.3.1"].startswith("None run by stecflow")
    assert sheet.count("- **3.2.1 ") == 2  # one per study
    ident = dict(answers(sheet.split("## Study 2")[1].split("### 4.")[0]))
    assert "times out 15 s after the pictures appear" not in ident["3.3.5"]
    assert ident["3.3.5"] == "N/A: simulated participants."
    accuracy = block(sheet, "Identification accuracy (`identification`)")
    assert accuracy["4.3.3"].startswith("N/A")
    assert accuracy["4.3.8"] == "Task performance measurements."
    assert "time-outs count as not identified" in accuracy["4.3.9"]
    assert (
        "Kruskal-Wallis test (`identification-accuracy-kruskal`" in (accuracy["4.3.10"])
    )
    assert "{timeout_s}" not in sheet and "A trial ends after 15 seconds" in sheet
    time = block(sheet, "Identification time (`identification`)")
    assert "outside the mean ± 2 SD (over all)" in time["4.3.9"]
    assert time["4.3.11.1"] == "InterAA not assessed for this criterion."
    ethics = dict(answers(sheet.split("## 5. Ethics")[1]))
    assert ethics["5.1"] == "Not applicable: simulated data."
    assert ethics["5.2"].startswith("No, personal data as defined by GDPR")


def test_the_datasheet_is_the_same_every_time(demo):
    config, studies = demo
    again = [dict(reversed(list(s.items()))) for s in copy.deepcopy(studies)]
    assert datasheet(config, studies) == datasheet(copy.deepcopy(config), again)


def test_power_pay_recruitment_and_quality_assurance_come_from_the_config(demo):
    config, studies = copy.deepcopy(demo)
    study = config["studies"][0]
    study["simulate"] = False
    study["experiment"]["completion_url"] = "https://app.prolific.com/x?cc={code}"
    study["power"] = {"hourly_rate": 12, "currency": "GBP "}
    study["controls"] = {"kind": "degraded", "per_list": 4}
    study["exclusions"] = [{"name": "attention", "controls_below": 0.75}]
    rating = studies[0] | {
        "collected": None,
        "power": {
            "settings": {"runs": 200, "alpha": 0.05, "effects": {"source": "pilot"}},
            "rows": [
                {"test": "anova", "participants": "6", "power": "0.6"},
                {"test": "anova", "participants": "12", "power": "0.9"},
            ],
        },
    }
    sheet = datasheet(config, [rating])
    check_blocks(sheet, [2])
    given = dict(answers(sheet.split("## Study 1")[1].split("### 4.")[0]))
    assert given["3.1.3.1"].startswith("Simulation (stecflow power): 200 simulated")
    assert given["3.1.3.2"] == (
        "power per participants: anova (6: 0.60, 12: 0.90; power 0.8 from 12"
        " participants)."
    )
    assert given["3.2.2.2"].startswith("Paid (monetary compensation): GBP 12 per hour")
    assert given["3.2.3"].startswith("through Prolific")
    assert given["3.2.2.1"] == TO_COMPLETE
    assert given["3.3.3.1"] == (
        "Automatic quality checking methods are used during and/or after"
        " evaluation; Evaluators are excluded if they fail quality checks (often"
        " or badly enough)"
    )
    assert "control trials (attention checks), 4 per list" in given["3.3.3.2"]
    assert "fewer than 0.75 of the control trials" in given["3.3.3.2"]
    assert given["3.3.7"].startswith("Evaluators carry out assessments at a place")
    assert "resume where they stopped" in given["3.3.5"]
    assert "(the exclusion rules were declared" in given["3.3.1"]
    ethics = dict(answers(sheet.split("## 5. Ethics")[1]))
    assert ethics["5.2"].startswith("Yes, personal data as defined by GDPR")


def test_a_preference_study_and_a_situated_study_have_their_blocks():
    config = {
        "campaign": {"title": "T", "tasks": ["text"]},
        "studies": [
            {
                "id": "pref",
                "task": "text_preference",
                "criteria": [
                    {"id": "overall", "question": "Which is better?", "allow_tie": True}
                ],
            }
        ],
    }
    pref = {
        "study": "pref",
        "task": "text_preference",
        "kind": "latin_square",
        "n_items": 2,
        "n_trials": 4,
        "n_fillers": 0,
        "subjects": 2,
        "groups": 1,
        "squares": 1,
        "seed": 1,
        "practice_items": [],
        "systems": ["a/b", "c/d"],
    }
    situated = {
        "study": "situated",
        "task": "situated_identification",
        "system": "a/b",
        "counts": {"fp": 36, "tp": 20, "fn": 20},
        "subjects": 2,
        "seed": 3,
        "n_trials": 76,
    }
    sheet = datasheet(config, [pref, situated])
    check_blocks(sheet, [1, 2])
    overall = block(sheet, "overall (`pref`)")
    assert overall["4.2.2"] == "Relative."
    assert overall["4.3.3"] == "3."
    assert overall["4.3.7"] == "“Which is better?”"
    assert overall["4.3.8"] == "Relative quality estimation (including ranking)"
    assert overall["4.3.11.1"].startswith("Krippendorff's alpha (nominal metric)")
    assert "36 false-positive instances of a/b" in sheet and "two-group design" in sheet

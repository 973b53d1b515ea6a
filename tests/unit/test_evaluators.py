"""The evaluators as a group and the time on task (issue #45, point 3; seed 001
§5.2-5.3): stecflow.judgments.evaluators, stecflow.judgments.simulated_sessions
and the report's subsection (stecflow.report.evaluators)."""

from __future__ import annotations

import json
import statistics

import pytest

from stecflow.core.io import read_tsv, write_json, write_tsv
from stecflow.judgments.evaluators import (
    add_evaluators,
    evaluators_summary,
    percentile,
    time_on_task,
)
from stecflow.judgments.sessions import SESSION_COLUMNS, read_sessions
from stecflow.judgments.simulated_sessions import (
    simulate_sessions,
    write_simulated_sessions,
)
from stecflow.report.context import Context
from stecflow.report.evaluators import evaluators_section
from stecflow.report.inputs import JudgmentStudy

QUESTIONNAIRE = {
    "screen": "d",
    "fields": [
        {
            "id": "gender",
            "type": "choice",
            "question": "What is your gender?",
            "options": [
                {"value": "female", "label": "Female"},
                {"value": "male", "label": "Male"},
                {"value": "other", "label": "Other"},
            ],
        },
        {"id": "age", "type": "number", "question": "Age?", "min": 18, "max": 99},
        {"id": "native", "type": "yes-no", "question": "Native speaker?"},
        {"id": "field", "type": "text", "question": "Field of study?"},
        {"id": "hours", "type": "number", "question": "Hours a week reading?"},
    ],
}


def _session(session, participant, status, start, end="", duration="", **answers):
    row = {
        "study": "rating",
        "session": session,
        "participant": participant,
        "list": "L01",
        "status": status,
        "started_utc": start,
        "ended_utc": end,
        "duration_s": duration,
    }
    row.update({f"d.{k}": v for k, v in answers.items()})
    return row


SESSIONS = [
    _session(
        "s1",
        "p1",
        "completed",
        "2026-01-01T10:00:00Z",
        "2026-01-01T10:25:00Z",
        "1500",
        gender="female",
        age="19",
        native="yes",
        field="linguistics",
        hours="3",
    ),
    # p2's first session has no answers: its answers are the second session's
    _session("s2a", "p2", "abandoned", "2026-01-01T09:00:00Z"),
    _session(
        "s2b",
        "p2",
        "completed",
        "2026-01-01T11:00:00Z",
        "2026-01-01T11:30:00Z",
        "1800",
        gender="male",
        age="41",
        native="true",
        field="",
        hours="5",
    ),
    _session(
        "s3",
        "p3",
        "completed",
        "2026-01-01T12:00:00Z",
        "2026-01-01T12:40:00Z",
        "2400",
        gender="female",
        age="24",
        native="no",
        field="law",
        hours="",
    ),
    # excluded by a rule: not counted, but their time on task is
    _session(
        "s4",
        "p4",
        "completed",
        "2026-01-01T13:00:00Z",
        "2026-01-01T14:00:00Z",
        "3600",
        gender="female",
        age="30",
        native="yes",
        field="",
        hours="1",
    ),
    # never completed: not counted
    _session("s5", "p5", "abandoned", "2026-01-01T15:00:00Z", gender="male", age="50"),
    # no duration_s: the time from start to end (20 minutes)
    _session(
        "s6",
        "p6",
        "completed",
        "2026-01-01T16:00:00Z",
        "2026-01-01T16:20:00Z",
        "",
        gender="nb",
        age="abc",
        native="",
        field="",
        hours="",
    ),
]
SENTENCE = (
    "4 evaluators took part (2 women, 1 man, 1 other answer), aged 18-47"
    " (in bins of 10; median in 18-27; 3 of 4 gave their age); 2 native speakers"
    " of English."
)


def _block():
    return evaluators_summary(
        SESSIONS, QUESTIONNAIRE, excluded=["p4"], withdrawn=2, language="English"
    )


def test_counts_who_took_part_and_who_is_not_counted():
    block = _block()
    assert (block["evaluators"], block["excluded"], block["withdrawn"]) == (4, 1, 2)
    assert block["not_completed"] == 1 and block["sessions"] == 7
    assert block["sentence"] == SENTENCE


def test_questions_counted_per_answer_ages_binned_free_text_only_counted():
    questions = {q["id"]: q for q in _block()["questions"]}
    counts = {
        k: [(c["answer"], c["count"]) for c in q["counts"]]
        for k, q in questions.items()
    }
    assert counts["gender"] == [
        ("female", 2),
        ("male", 1),
        ("other", 0),
        ("(other)", 1),
    ]
    # bins of 10 from the question's min (18), as the release counts them;
    # "abc" is not a number
    assert counts["age"] == [("18-27", 2), ("38-47", 1), ("(other)", 1)]
    assert questions["age"]["numbers"] == {
        "n": 3,
        "width": 10,
        "first_bin": "18-27",
        "last_bin": "38-47",
        "median_bin": "18-27",
    }
    assert counts["native"] == [("yes", 2), ("no", 1)]
    assert questions["native"]["no_answer"] == 1
    assert counts["field"] == []
    assert (questions["field"]["answered"], questions["field"]["no_answer"]) == (2, 2)
    assert "linguistics" not in json.dumps(_block())
    assert questions["hours"]["numbers"]["median_bin"] == "0-9"
    assert counts["hours"] == [("0-9", 2)] and questions["hours"]["no_answer"] == 2


def test_numbers_are_binned_as_the_release_bins_them_unless_released_as_given():
    """The summary and the report are released: a number is given only in the
    bins of the release's questionnaire counts (what the consent text promises),
    unless the policy releases that field per participant."""
    from stecflow.release.privacy import PersonalDataPolicy, questionnaire_counts

    people = [s for s in SESSIONS if s["participant"] not in ("p4", "p5")]
    for width in (10, 5):
        block = evaluators_summary(
            SESSIONS, QUESTIONNAIRE, excluded=["p4"], number_bin=width
        )
        released = questionnaire_counts(
            "rating", people, QUESTIONNAIRE, policy=PersonalDataPolicy(number_bin=width)
        )
        for question in block["questions"]:
            if question["type"] != "number":
                continue
            ours = {c["answer"]: c["count"] for c in question["counts"]}
            theirs = {
                r["answer"]: r["count"]
                for r in released
                if r["field"] == question["field"]
                and r["count"]
                and not r["answer"].startswith("(")
            }
            assert {k: v for k, v in ours.items() if not k.startswith("(")} == theirs
        assert "19" not in json.dumps(block["questions"][1]["numbers"])
    exact = evaluators_summary(
        SESSIONS, QUESTIONNAIRE, excluded=["p4"], exact=["d.age"], language="English"
    )
    ages = {q["id"]: q for q in exact["questions"]}
    assert ages["age"]["numbers"] == {"n": 3, "median": 24, "min": 19, "max": 41}
    assert "median_bin" in ages["hours"]["numbers"]
    assert ", aged 19-41 (median 24; 3 of 4 gave their age);" in exact["sentence"]


def test_time_on_task_of_every_completed_session():
    time = _block()["time_on_task"]
    seconds = [1500, 1800, 2400, 3600, 1200]
    expected_p90 = statistics.quantiles(seconds, n=10, method="inclusive")[8]
    assert expected_p90 == 3120.0  # 2400 + 0.6 * (3600 - 2400), by hand
    assert time["n"] == 5
    assert (time["median"], time["min"], time["max"]) == (1800, 1200, 3600)
    assert time["p90"] == expected_p90


@pytest.mark.parametrize("values", [[7.0], [1, 2], [3, 1, 4, 1, 5, 9, 2, 6]])
def test_percentile_is_numpy_linear(values):
    numpy = pytest.importorskip("numpy")
    for q in (10, 50, 90):
        assert percentile(values, q) == pytest.approx(numpy.percentile(values, q))


def test_no_sessions():
    empty = evaluators_summary([], QUESTIONNAIRE)
    assert empty["sentence"] == "" and empty["time_on_task"]["n"] == 0
    assert time_on_task([{"status": "completed", "duration_s": "x"}])["n"] == 0


def test_sentence_only_from_the_questions_there_are():
    only_age = {"screen": "d", "fields": [QUESTIONNAIRE["fields"][1]]}
    block = evaluators_summary(SESSIONS, only_age, excluded=["p4"])
    assert block["sentence"] == (
        "4 evaluators took part, aged 18-47 (in bins of 10; median in 18-27; 3 of 4"
        " gave their age)."
    )
    assert evaluators_summary(SESSIONS, None)["sentence"] == ("5 evaluators took part.")


def test_add_evaluators_reads_the_workflow_files(tmp_path):
    summary = tmp_path / "summary.json"
    write_json({"study": "rating", "withdrawals": {"withdrawn": 2}}, summary)
    sessions = tmp_path / "sessions.tsv"
    columns = [
        *SESSION_COLUMNS,
        *sorted(f"d.{f['id']}" for f in QUESTIONNAIRE["fields"]),
    ]
    write_tsv(SESSIONS, columns, sessions)
    audit = tmp_path / "exclusions.tsv"
    write_tsv(
        [
            {"participant": "p4", "excluded": "true"},
            {"participant": "p3", "excluded": "false"},
        ],
        ["participant", "excluded"],
        audit,
    )
    questionnaire = tmp_path / "q.yaml"
    questionnaire.write_text(json.dumps(QUESTIONNAIRE), encoding="utf-8")
    block = add_evaluators(
        summary,
        sessions,
        questionnaire_path=questionnaire,
        exclusions_path=audit,
        language="English",
    )
    assert block["sentence"] == SENTENCE
    assert json.loads(summary.read_text())["evaluators"] == block
    first = summary.read_bytes()
    add_evaluators(
        summary,
        sessions,
        questionnaire_path=questionnaire,
        exclusions_path=audit,
        language="English",
    )
    assert summary.read_bytes() == first
    withheld = add_evaluators(
        summary,
        sessions,
        questionnaire_path=questionnaire,
        exclusions_path=audit,
        withhold_questionnaire=True,
    )
    assert withheld["questions"] == [] and withheld["sentence"] == (
        "4 evaluators took part."
    )


def test_simulated_sessions_answer_the_questionnaire(tmp_path):
    trials = [
        {
            "session": s,
            "participant": s,
            "list": "L01",
            "rt_ms": "1000",
            "session_status": "completed",
        }
        for s in ("b", "a")
        for _ in range(10)
    ] + [
        {
            "session": "c",
            "participant": "c",
            "list": "L02",
            "reading_time_ms": "500",
            "identification_time_ms": "1500",
            "session_status": "completed",
        }
    ]
    rows, columns = simulate_sessions(trials, QUESTIONNAIRE, study="rating", seed=3)
    assert [r["session"] for r in rows] == ["a", "b", "c"]
    assert columns[-5:] == ["d.age", "d.field", "d.gender", "d.hours", "d.native"]
    # 10 trials of 1 s, 2 s between trials, 2 to 6 minutes of screens
    assert all(30 + 120 <= r["duration_s"] <= 30 + 360 for r in rows[:2])
    assert 4 + 120 <= rows[2]["duration_s"] <= 4 + 360
    for row in rows:
        assert 18 <= int(row["d.age"]) <= 18 + 0.4 * (99 - 18)
        assert row["d.gender"] in {"female", "male", "other"}
        assert row["d.native"] in {"yes", "no"}
    again, _ = simulate_sessions(trials, QUESTIONNAIRE, study="rating", seed=3)
    assert again == rows
    # the table reads back as a session table and gives the time on task
    responses = tmp_path / "sim.tsv"
    write_tsv(
        trials,
        [
            "session",
            "participant",
            "list",
            "rt_ms",
            "reading_time_ms",
            "identification_time_ms",
            "session_status",
        ],
        responses,
    )
    questionnaire = tmp_path / "q.yaml"
    questionnaire.write_text(json.dumps(QUESTIONNAIRE), encoding="utf-8")
    out = tmp_path / "sim.sessions.tsv"
    write_simulated_sessions(
        responses, out, study="rating", seed=3, questionnaire_path=questionnaire
    )
    frame = read_sessions([out], study="rating")
    assert len(frame) == 3 and not any(frame["problem"])
    block = evaluators_summary(read_tsv(out), QUESTIONNAIRE)
    assert block["evaluators"] == 3 and block["time_on_task"]["n"] == 3
    assert block["time_on_task"]["median"] == pytest.approx(
        statistics.median(float(r["duration_s"]) for r in rows), abs=0.05
    )


def _context(summary) -> Context:
    return Context(
        config={"studies": [{"id": "rating", "title": "Ratings"}]},
        metrics={},
        entries=[],
        records={},
        summary=[],
        testset=None,
        analyses=[],
        judgments=[JudgmentStudy("rating", summary=summary)],
        prefix="demo-",
    )


def test_report_subsection_sentence_table_and_time_beside_the_estimate():
    ctx = _context({"task": "rating", "evaluators": _block()})
    power = [
        {
            "study": "rating",
            "settings": {
                "duration": {"median_min": 25.0, "p90_min": 40.0, "source": "pilot"}
            },
        }
    ]
    blocks = evaluators_section(ctx, ["rating"], power)
    assert [b["kind"] for b in blocks] == ["h3", "p", "table", "dl", "p"]
    assert blocks[0]["text"] == "Evaluators of study rating: Ratings"
    text = json.dumps(blocks[1])
    assert SENTENCE in text
    assert (
        "Not counted here: 1 participant excluded by the rules declared before"
        " data collection, 2 participants who withdrew and 1 participant without"
        " a completed session."
    ) in text
    table = blocks[2]["table"]
    cells = [[c.text for c in row.cells] for row in table.rows]
    assert cells[:5] == [
        ["What is your gender?", "Female", "2"],
        ["", "Male", "1"],
        ["", "Other", "0"],
        ["", "(other)", "1"],
        ["Age?", "n 3, median in 18-27", "3"],
    ]
    assert ["", "18-27", "2"] in cells and ["", "38-47", "1"] in cells
    assert ["Field of study?", "(answered; free text is not shown)", "2"] in cells
    assert "linguistics" not in repr(blocks) and "law" not in str(cells)
    assert blocks[3]["items"] == [
        {
            "term": "Time on task",
            "text": "5 completed sessions: median 30.0 min, range 20.0 min to"
            " 60.0 min, 90th percentile 52.0 min; estimated before the study:"
            " median 25.0 min, 90th percentile 40.0 min (pilot).",
        }
    ]
    assert "linear interpolation" in blocks[4]["parts"][0]["text"]


def test_report_subsection_without_a_session_table_or_summary_block():
    ctx = _context({"task": "rating", "evaluators": evaluators_summary([], None)})
    blocks = evaluators_section(ctx, ["rating"])
    assert [b["kind"] for b in blocks] == ["h3", "p"]
    assert "no session table" in blocks[1]["parts"][0]["text"]
    assert evaluators_section(_context({"task": "rating"}), ["rating"]) == []
    waiting = _context({"awaiting_responses": True, "evaluators": _block()})
    assert evaluators_section(waiting, ["rating"]) == []

"""Tests of stecflow.judgments.sessions (session tables) and of the response
importers with the server export's ``answered_utc`` column."""

from __future__ import annotations

from pathlib import Path

import pytest

from stecflow.judgments._common import JudgmentsError
from stecflow.judgments.importers import detect_format, read_responses
from stecflow.judgments.sessions import (
    SESSION_COLUMNS,
    is_session_table,
    merge_sessions,
    read_sessions,
    split_session_tables,
)
from stecflow.studies.settings import RESPONSE_COLUMNS

HEADER = "\t".join(SESSION_COLUMNS)


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _server_table(tmp_path: Path) -> Path:
    return _write(
        tmp_path / "rating.sessions.tsv",
        [
            HEADER + "\tdemographics.age\tdemographics.field",
            "demo\ta1b2\tP1\tS-1\tX-1\tL01\tcompleted\t2026-11-26T21:40:00Z\t"
            "2026-11-26T21:45:00Z\t300\t8\t1\t41\t'-linguistics",
            "demo\tc3d4\tP2\t\t\tL02\tin_progress\t2026-11-26T21:41:00Z\t\t\t2\t1\t\t",
        ],
    )


def test_reads_a_server_session_table(tmp_path):
    frame = read_sessions([_server_table(tmp_path)], study="demo")
    assert list(frame.columns) == [
        *SESSION_COLUMNS,
        "demographics.age",
        "demographics.field",
        "problem",
    ]
    first, second = frame.to_dict("records")
    assert first == {
        "study": "demo",
        "session": "a1b2",
        "participant": "P1",
        "study_id": "S-1",
        "external_session": "X-1",
        "list": "L01",
        "status": "completed",
        "started_utc": "2026-11-26T21:40:00Z",
        "ended_utc": "2026-11-26T21:45:00Z",
        "duration_s": 300.0,
        "n_trials_answered": 8,
        "consent": 1,
        "demographics.age": "41",
        "demographics.field": "-linguistics",  # the formula guard is undone
        "problem": None,
    }
    assert (second["duration_s"], second["ended_utc"], second["problem"]) == (
        None,
        None,
        None,
    )


def test_bad_rows_are_kept_and_flagged_with_file_line_and_field(tmp_path):
    path = _write(
        tmp_path / "bad.sessions.tsv",
        [
            HEADER,
            "demo\ts1\tP1\t\t\tL01\tfinished\t2026-11-26T21:40:00Z\t\t\t3\t",
            "demo\ts2\tP2\t\t\tL02\tcompleted\t26/11/2026 21:40\t\t-5\t3\tyes",
            "other\ts3\tP3\t\t\tL03\tcompleted\t2026-11-26T21:40:00Z\t"
            "2026-11-26T21:50:00Z\t600\t3",
            "demo\ts1\tP1\t\t\tL01\tabandoned\t2026-11-26T21:40:00Z\t\t\t3",
        ],
    )
    frame = read_sessions([path], study="demo")
    assert len(frame) == 4  # nothing dropped
    problems = dict(
        zip(frame["session"] + "@" + frame["status"], frame["problem"], strict=True)
    )
    where = str(path)
    assert problems["s1@finished"] == (
        f"{where}, line 2, field status: 'finished' is not one of completed, "
        "in_progress, abandoned, returned"
    )
    s2 = problems["s2@completed"]
    assert f"{where}, line 3, field started_utc: '26/11/2026 21:40' is not an ISO" in s2
    assert "field duration_s: '-5' is not a number of seconds of 0 or more" in s2
    assert "field consent: 'yes'; expected 1 or empty" in s2
    assert problems["s3@completed"] == (
        f"{where}, line 4: 11 fields, the header has 12; "
        f"{where}, line 4, field study: 'other' is not this study (demo)"
    )
    assert problems["s1@abandoned"] == (
        f"{where}, line 5: 11 fields, the header has 12; "
        f"{where}, line 5, field session: s1 is also in {where}, line 2; expected "
        "one row per session"
    )
    with pytest.raises(JudgmentsError, match="field status: 'finished'"):
        read_sessions([path], study="demo", strict=True)


def test_a_broken_file_does_not_stop_the_others(tmp_path):
    good = _server_table(tmp_path)
    broken = _write(
        tmp_path / "broken.sessions.tsv",
        ["study\tsession\tstatus\tstarted_utc", "demo\tx\tcompleted\t"],
    )
    frame = read_sessions([good, broken], study="demo")
    assert len(frame) == 3
    flagged = frame[frame["session"].isna()]["problem"].tolist()
    assert len(flagged) == 1
    assert flagged[0].startswith(f"{broken}: not read: ")
    assert "missing column(s) participant, study_id" in flagged[0]
    with pytest.raises(JudgmentsError, match="missing column"):
        read_sessions([broken], strict=True)


def test_session_tables_are_told_apart_from_responses(tmp_path):
    sessions = _server_table(tmp_path)
    trials = _write(
        tmp_path / "rating.tsv",
        ["\t".join((*RESPONSE_COLUMNS, "answered_utc"))],
    )
    assert is_session_table(sessions) and not is_session_table(trials)
    assert detect_format(sessions) == "sessions"
    assert split_session_tables([trials, sessions]) == ([str(trials)], [str(sessions)])
    with pytest.raises(JudgmentsError, match="is a session table"):
        read_responses(sessions)
    out = tmp_path / "judgments" / "sessions" / "demo.tsv"
    assert merge_sessions([trials, sessions], out, study="demo") == [str(trials)]
    lines = out.read_text().splitlines()
    assert lines[0].split("\t") == [
        *SESSION_COLUMNS,
        "demographics.age",
        "demographics.field",
        "problem",
    ]
    # free text written back with its formula guard, so a spreadsheet is safe
    assert lines[1].split("\t")[-2:] == ["'-linguistics", ""]
    assert read_sessions([out], study="demo").equals(
        read_sessions([sessions], study="demo")
    )
    # a study without session tables gets the fixed columns and no rows
    empty = tmp_path / "none.tsv"
    assert merge_sessions([trials], empty, study="demo") == [str(trials)]
    assert empty.read_text() == "\t".join((*SESSION_COLUMNS, "problem")) + "\n"


def _export_row(**values: str) -> str:
    row = dict.fromkeys(RESPONSE_COLUMNS, "")
    row.update(
        study="demo",
        task="rating",
        session="s1",
        participant="P1",
        session_status="completed",
        list="L01",
        order="1",
        item="t001",
        system="A",
        practice="false",
        filler="false",
        adequacy="70",
        fluency="40",
        rt_ms="1234.5",
    )
    row.update(values)
    return "\t".join(row[c] for c in RESPONSE_COLUMNS)


def test_the_server_importer_accepts_answered_utc(tmp_path):
    path = _write(
        tmp_path / "export.tsv",
        [
            "\t".join((*RESPONSE_COLUMNS, "answered_utc")),
            _export_row() + "\t2026-11-26T21:40:30.500Z",
            _export_row(order="2", item="t002") + "\tyesterday",
        ],
    )
    assert detect_format(path) == "server"
    result = read_responses(path, study="demo")
    assert [r["import_problem"] for r in result.rows] == [
        None,
        "answered_utc: 'yesterday' is not an ISO 8601 UTC time such as "
        "2026-11-26T21:40:00Z",
    ]
    assert [r["adequacy"] for r in result.rows] == [70, 70]
    assert "answered_utc" not in result.rows[0]

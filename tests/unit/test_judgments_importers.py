"""Importers of human-study responses: server/offline TSV, generic CSV, DMDX .azk."""

from __future__ import annotations

from pathlib import Path

import pytest

from stecflow.core.errors import StecflowError
from stecflow.judgments import IMPORT_COLUMNS, JudgmentsError
from stecflow.judgments.importers import (
    detect_format,
    read_generic_table,
    read_response_table,
    read_responses,
)
from stecflow.studies.settings import RESPONSE_COLUMNS
from stecflow.studykinds.identification.import_dmdx import (
    read_dmdx_azk,
    read_dmdx_item_table,
)
from tests.conftest import FIXTURES

J = FIXTURES / "judgments"
BROKEN = J / "broken"


def test_detect_format_of_every_fixture():
    assert detect_format(J / "server_export.tsv") == "server"
    assert detect_format(J / "id-demo-L02-offline-9c1d2e3f.tsv") == "server"
    assert detect_format(J / "rating_export.tsv") == "server"
    assert detect_format(J / "generic_lab.csv") == "generic"
    assert detect_format(J / "generic_excel_semicolon.csv") == "generic"
    assert detect_format(J / "generic_excel_unicode.txt") == "generic"
    assert detect_format(J / "L01.azk") == "dmdx_azk"
    # A damaged export is still recognised, so that its reader names the column.
    assert detect_format(BROKEN / "server_missing_column.tsv") == "server"


def test_unknown_format_names_file_line_and_header():
    with pytest.raises(JudgmentsError) as info:
        detect_format(BROKEN / "unknown_format.csv")
    err = info.value
    assert isinstance(err, StecflowError) and isinstance(err, ValueError)
    assert err.file.endswith("unknown_format.csv") and err.line == 1
    assert "name, score, date" in str(err)


# --------------------------------------------------------------------------- server


def test_server_export_rows_and_types():
    result = read_response_table(J / "server_export.tsv")
    assert result.source_format == "server"
    assert len(result.rows) == 13
    assert not result.problems
    first = result.rows[0]
    assert set(first) == set(IMPORT_COLUMNS)
    assert first["session"] == "3f9a0c2be41d7a65"
    assert first["order"] == 1 and first["practice"] is True
    assert first["identification_time_ms"] == 2750.3
    assert first["click_x"] == 0.512
    assert first["simulated"] is False
    assert first["source_line"] == 2
    timeout = [r for r in result.rows if r["timeout"]]
    assert len(timeout) == 1
    assert timeout[0]["correct"] is None and timeout[0]["chosen_entity"] is None
    assert timeout[0]["identification_time_ms"] is None


def test_offline_file_is_read_by_the_same_reader_and_labelled():
    result = read_responses(J / "id-demo-L02-offline-9c1d2e3f.tsv")
    assert {r["source_format"] for r in result.rows} == {"offline"}
    assert {r["session"] for r in result.rows} == {"offline-9c1d2e3f"}
    cant = [r for r in result.rows if r["cant_tell"]]
    assert len(cant) == 1 and cant[0]["correct"] is False


def test_rating_export():
    rows = read_responses(J / "rating_export.tsv").rows
    assert [r["adequacy"] for r in rows[:3]] == [71.0, 88.0, 92.0]
    assert {r["task"] for r in rows} == {"rating"}
    assert rows[0]["variant"] is None


def test_missing_column_is_an_error_naming_the_column():
    with pytest.raises(JudgmentsError) as info:
        read_response_table(BROKEN / "server_missing_column.tsv")
    assert info.value.field == "click_y" and info.value.line == 1
    assert "missing column(s) click_y" in str(info.value)


def test_unexpected_column_is_an_error(tmp_path):
    text = (J / "server_export.tsv").read_text().split("\n")
    lines = [text[0] + "\tcomment"] + [line + "\tok" for line in text[1:3]]
    path = tmp_path / "export.tsv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(JudgmentsError, match="unexpected column.*comment"):
        read_response_table(path)


def test_bad_values_are_kept_flagged_and_reported():
    result = read_response_table(BROKEN / "server_bad_values.tsv")
    assert len(result.rows) == 5  # nothing dropped
    by_line = {r["source_line"]: r for r in result.rows}
    assert by_line[3]["identification_time_ms"] is None
    assert "not a number" in by_line[3]["import_problem"]
    assert by_line[4]["correct"] is None
    assert "maybe" in by_line[4]["import_problem"]
    assert "truncated line: 12 of 26 fields" in by_line[5]["import_problem"]
    assert by_line[5]["session"] == "3f9a0c2be41d7a65"  # identity survives
    assert by_line[5]["order"] == 4 and by_line[5]["item"] == "t04"
    problems = {(p["source_line"], p["field"]) for p in result.problems}
    assert problems == {
        (3, "identification_time_ms"),
        (4, "correct"),
        (5, "filler"),
    }
    assert all(p["check"] == "import_problem" for p in result.problems)
    assert all(p["severity"] == "error" for p in result.problems)
    assert by_line[2]["import_problem"] is None


def test_strict_mode_raises_at_the_first_bad_value():
    with pytest.raises(JudgmentsError) as info:
        read_response_table(BROKEN / "server_bad_values.tsv", strict=True)
    err = info.value
    assert (err.line, err.field) == (3, "identification_time_ms")
    assert "server_bad_values.tsv, line 3, identification_time_ms:" in str(err)


def test_out_of_range_rating_and_negative_time_are_problems(tmp_path):
    columns = list(RESPONSE_COLUMNS)
    row = dict.fromkeys(columns, "")
    row.update(session="s1", list="L01", order="2", adequacy="140", rt_ms="-5")
    path = tmp_path / "x.tsv"
    path.write_text("\t".join(columns) + "\n" + "\t".join(row[c] for c in columns))
    result = read_response_table(path)
    assert {p["field"] for p in result.problems} == {"adequacy", "rt_ms"}


def test_binary_and_empty_files(tmp_path):
    with pytest.raises(JudgmentsError, match="binary data") as info:
        read_responses(BROKEN / "binary.tsv")
    assert info.value.line == 1
    empty = tmp_path / "empty.tsv"
    empty.write_text("\n\n")
    with pytest.raises(JudgmentsError, match="empty"):
        read_response_table(empty)
    with pytest.raises(JudgmentsError, match="cannot read"):
        read_response_table(tmp_path / "missing.tsv")


def test_simulated_column_is_kept(tmp_path):
    columns = [*RESPONSE_COLUMNS, "simulated"]
    row = dict.fromkeys(columns, "")
    row.update(session="sim-L01-01", list="L01", order="1", simulated="true")
    path = tmp_path / "sim.tsv"
    path.write_text("\t".join(columns) + "\n" + "\t".join(row[c] for c in columns))
    assert read_responses(path).rows[0]["simulated"] is True


# --------------------------------------------------------------------------- generic


def test_generic_csv_minimal_columns():
    result = read_generic_table(J / "generic_lab.csv", study="id-demo")
    assert len(result.rows) == 13
    first = result.rows[0]
    assert first["participant"] == "S05" and first["session"] == "S05"
    assert first["study"] == "id-demo"
    assert first["practice"] is True and first["list"] is None
    assert first["order"] is None
    # A quoted field with a comma stays one field; the ignored column is reported.
    assert result.rows[4]["identification_time_ms"] == 4420.3
    assert result.notes == ["ignored column(s): notes"]
    assert [p["check"] for p in result.problems] == ["source_note"]


def test_generic_semicolon_csv_with_decimal_commas():
    rows = read_responses(J / "generic_excel_semicolon.csv").rows
    assert [r["identification_time_ms"] for r in rows] == [
        3069.2,
        3517.6,
        4011.0,
        2944.8,
    ]
    assert [r["correct"] for r in rows] == [True, True, False, True]


def test_generic_utf16_with_bom_from_a_spreadsheet():
    rows = read_responses(J / "generic_excel_unicode.txt").rows
    assert [r["participant"] for r in rows] == ["S10"] * 4
    assert rows[1]["correct"] is False and rows[2]["identification_time_ms"] == 3322.0


def test_generic_latin1_is_an_error_unless_the_encoding_is_given():
    path = BROKEN / "generic_latin1.csv"
    with pytest.raises(JudgmentsError) as info:
        read_responses(path)
    assert info.value.line == 2
    assert "not valid utf-8 (byte 0xe9)" in str(info.value)
    rows = read_responses(path, encoding="latin-1").rows
    assert [r["participant"] for r in rows] == ["René", "José"]
    with pytest.raises(JudgmentsError, match="unknown encoding") as bad:
        read_responses(path, encoding="no-such-codec")
    assert bad.value.field == "encoding"


def test_generic_without_required_columns(tmp_path):
    cases = {
        "item,correct\nt01,1\n": "participant",
        "participant,correct\nS1,1\n": "item",
    }
    for text, field in cases.items():
        path = tmp_path / "g.csv"
        path.write_text(text)
        with pytest.raises(JudgmentsError) as info:
            read_generic_table(path)
        assert info.value.field == field
    path = tmp_path / "g.csv"
    path.write_text("participant,item,system\nS1,t01,A\n")
    with pytest.raises(JudgmentsError, match="no response column"):
        read_generic_table(path)


def test_generic_non_numeric_time_is_flagged(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text(
        "participant,item,system,correct,identification_time_ms\n"
        "S1,t01,A,1,fast\nS1,t02,A,1,2800\nS1,t03,A\n"
    )
    result = read_generic_table(path)
    assert len(result.rows) == 3
    assert result.rows[0]["import_problem"] == (
        "identification_time_ms: 'fast' is not a number"
    )
    assert result.rows[1]["import_problem"] is None
    assert "truncated line" in result.rows[2]["import_problem"]


# --------------------------------------------------------------------------- DMDX


def test_dmdx_item_table():
    table = read_dmdx_item_table(J / "L01-items.tsv")
    assert sorted(table) == [1, 2, 3, 4, 5]
    assert table[3] == {
        "phase": "identification",
        "list": "L01",
        "order": 3,
        "item": "t01",
        "system": "HUMAN-1",
        "practice": False,
        "filler": False,
        "target_entity": "e1",
    }


def test_dmdx_azk_with_item_table():
    result = read_dmdx_azk(
        J / "L01.azk", item_table=J / "L01-items.tsv", study="id-demo"
    )
    assert result.source_format == "dmdx_azk"
    assert len(result.rows) == 14
    sessions = {r["session"]: r for r in result.rows}
    assert sorted(sessions) == ["L01-s1", "L01-s2", "L01-s3"]
    assert {r["participant"] for r in result.rows} == {"s01", "s02", "s03"}
    s1 = [r for r in result.rows if r["session"] == "L01-s1"]
    assert [r["correct"] for r in s1] == [True, True, False, True, True]
    assert s1[2]["identification_time_ms"] == 4102.90  # negative = wrong, abs time
    assert s1[2]["item"] == "t01" and s1[2]["system"] == "HUMAN-1"
    assert {r["session_status"] for r in s1} == {"completed"}
    s2 = [r for r in result.rows if r["session"] == "L01-s2"]
    assert {r["session_status"] for r in s2} == {"aborted"}  # item 5 never run
    timeout = s2[1]
    assert timeout["timeout"] is True and timeout["correct"] is None
    assert timeout["identification_time_ms"] is None
    assert s2[2]["aborted"] is True and s2[2]["source_line"] == 19
    # The Windows code page comment (cp1252 "è") is decoded and kept as a note.
    assert any("très small" in note for note in result.notes)
    assert all(
        r["study"] == "id-demo" and r["task"] == "identification" for r in result.rows
    )


def test_dmdx_azk_read_first_convention_without_item_table():
    result = read_responses(J / "L02-read-first.azk", list_id="L02")
    rows = result.rows
    assert len(rows) == 5
    assert {r["session"] for r in rows} == {"L02-s4"}
    assert {r["variant"] for r in rows} == {"read_first"}
    assert rows[0]["reading_time_ms"] == 1391.88
    assert rows[0]["identification_time_ms"] == 1809.04
    assert rows[0]["rt_ms"] == pytest.approx(3200.92)
    assert rows[1]["correct"] is False
    assert rows[4]["timeout"] is True and rows[4]["reading_time_ms"] == 1382.04
    assert rows[0]["item"] is None  # filled from the design at the merge
    assert {r["session_status"] for r in rows} == {"unknown"}


def test_dmdx_azk_list_defaults_to_the_file_name(tmp_path):
    path = tmp_path / "L07.azk"
    path.write_text(
        "**********\nSubject 1, 01/02/2026 10:00:00 on PC, refresh 16.67ms\n"
        "  Item       RT\n  1  812.40\n"
    )
    rows = read_dmdx_azk(path).rows
    assert rows[0]["list"] == "L07" and rows[0]["session"] == "L07-s1"
    assert rows[0]["participant"] is None


def test_dmdx_bad_lines_are_kept_and_reported(tmp_path):
    path = tmp_path / "L01.azk"
    path.write_text(
        "Subjects incorporated to date: 002\n"
        "**********************************************************************\n"
        "Subject 1, 01/02/2026 10:00:00 on PC, refresh 16.67ms\n"
        "  Item       RT\n"
        "      1   abc\n"
        "      2\n"
        "      x   712.86\n"
        "      3   712.86\n"
        "      3   690.00\n"
    )
    result = read_dmdx_azk(path)
    problems = [(p["source_line"], p["detail"]) for p in result.problems]
    assert (5, "'abc' is not a number") in problems
    assert (6, "truncated line: an item number without a time") in problems
    assert (7, "'x' is not a DMDX item number") in problems
    assert any("header says 2 subject(s)" in d for _, d in problems)
    # The repeated item 3 becomes a second row (the merge calls it a duplicate).
    assert [r["order"] for r in result.rows if r["order"] == 3] == [3, 3]
    with pytest.raises(JudgmentsError) as info:
        read_dmdx_azk(path, strict=True)
    assert info.value.line == 5


def test_dmdx_item_not_in_table_and_repeated_subject(tmp_path):
    path = tmp_path / "L01.azk"
    path.write_text(
        "**********\nSubject 1, d on PC\n  Item RT\n  9  500.00\n"
        "**********\nSubject 1, d on PC\n  Item RT\n  1  600.00\n"
    )
    result = read_dmdx_azk(path, item_table=J / "L01-items.tsv")
    assert "item number 9 is not in the item table" in result.rows[0]["import_problem"]
    assert [r["session"] for r in result.rows] == ["L01-s1", "L01-s1-2"]
    assert any("appears again" in p["detail"] for p in result.problems)


def test_dmdx_errors():
    with pytest.raises(JudgmentsError) as info:
        read_responses(BROKEN / "not_dmdx.azk")
    assert info.value.line == 1 and "outside a subject block" in str(info.value)


def test_not_a_dmdx_file_without_subject_blocks(tmp_path):
    path = tmp_path / "x.azk"
    path.write_text("Subjects incorporated to date: 000\n! nothing yet\n")
    with pytest.raises(JudgmentsError, match="not a DMDX .azk data file"):
        read_dmdx_azk(path)


def test_read_responses_rejects_unknown_format_name():
    with pytest.raises(JudgmentsError) as info:
        read_responses(J / "server_export.tsv", source_format="excel")
    assert info.value.field == "source_format"


def test_import_result_frame_has_the_columns():
    frame = read_responses(J / "server_export.tsv").to_frame()
    assert list(frame.columns) == list(IMPORT_COLUMNS)
    assert len(frame) == 13
    assert Path(frame.loc[0, "source_file"]).name == "server_export.tsv"

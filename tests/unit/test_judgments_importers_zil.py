"""DMDX zillion output (.zil): rows, chosen pictures, damaged files, detection.

The fixture tests/fixtures/judgments/zil/L01.zil answers the DMDX item file
L01.rtf and L01-items.tsv that make_dmdx_files writes for list L01 of the demo
identification study (together variant). Expected values were checked by hand
against the picture boxes in L01-items.tsv.
"""

from __future__ import annotations

import json
import shutil

import pytest

from stecflow.judgments import IMPORT_COLUMNS, JudgmentsError
from stecflow.judgments.importers import detect_format, read_responses
from stecflow.studykinds.identification.import_dmdx import read_dmdx_azk
from stecflow.studykinds.identification.import_dmdx_zil import read_dmdx_zil
from tests.conftest import FIXTURES

Z = FIXTURES / "judgments" / "zil"
ZIL = Z / "L01.zil"
ITEMS = Z / "L01-items.tsv"

# (session, participant, status, order, item, target, chosen, correct, timeout,
#  identification ms, click x, click y, source line)
# fmt: off
EXPECTED = [
    ("L01-s1", "s01", "completed", 1, "dv-0002", "e6", "e6", True, False, 1512.37, 0.86, 0.34, 10),  # noqa: E501
    ("L01-s1", "s01", "completed", 2, "dv-0016", "e7", "e1", False, False, 2204.9, 0.5, 0.58, 13),  # noqa: E501
    # a click above the pictures (outside), then e4
    ("L01-s1", "s01", "completed", 3, "t004", "e4", "e4", True, False, 3120.66, 0.32, 0.34, 16),  # noqa: E501
    # e3 then e4: the first click counts
    ("L01-s1", "s01", "completed", 4, "t001", "e3", "e3", True, False, 1733.52, 0.68, 0.58, 21),  # noqa: E501
    ("L01-s1", "s01", "completed", 5, "t005", "e7", None, None, True, None, None, None, 26),  # noqa: E501
    ("L01-s1", "s01", "completed", 6, "t006", "e5", "e5", True, False, 1902.75, 0.86, 0.82, 27),  # noqa: E501
    ("L01-s1", "s01", "completed", 7, "t003", "e6", "e6", True, False, 2650.08, 0.32, 0.82, 30),  # noqa: E501
    ("L01-s1", "s01", "completed", 8, "t002", "e3", "e3", True, False, 1840.41, 0.68, 0.82, 33),  # noqa: E501
    # subject 2 (ID in Windows-1252) stopped early; the last line is cut
    ("L01-s2", "Zoë", "aborted", 1, "dv-0002", "e6", "e6", True, False, 2911.54, 0.8, 0.4, 44),  # noqa: E501
    ("L01-s2", "Zoë", "aborted", 2, "dv-0016", "e7", "e7", True, False, 3300.0, 0.9, 0.8, 49),  # noqa: E501
    ("L01-s2", "Zoë", "aborted", 3, "t004", "e4", "e7", False, False, 2207.19, 0.1, 0.3, 52),  # noqa: E501
    ("L01-s2", "Zoë", "aborted", 4, "t001", "e3", None, None, None, None, None, None, 55),  # noqa: E501
]
# fmt: on
KEYS = (
    "session",
    "participant",
    "session_status",
    "order",
    "item",
    "target_entity",
    "chosen_entity",
    "correct",
    "timeout",
    "identification_time_ms",
    "click_x",
    "click_y",
    "source_line",
)


def _read(**options):
    return read_dmdx_zil(ZIL, item_table=ITEMS, study="demo-study", **options)


def test_fixture_item_table_is_what_make_dmdx_files_writes():
    from stecflow.studies.dmdx import make_dmdx_files
    from tests.unit.test_stimuli import _files

    files = make_dmdx_files(_files(task="identification", variant="together"))
    assert files["L01-items.tsv"] == ITEMS.read_bytes()
    assert files["L01.rtf"] == (Z / "L01.rtf").read_bytes()
    assert b"<zil>" in files["L01.rtf"]


def test_rows_per_subject_and_item():
    result = _read()
    assert result.source_format == "dmdx_zil"
    got = [tuple(row[k] for k in KEYS) for row in result.rows]
    assert got == EXPECTED
    for row in result.rows:
        assert set(row) == set(IMPORT_COLUMNS)
        assert row["source_format"] == "dmdx_zil"
        assert row["study"] == "demo-study" and row["list"] == "L01"
        assert row["task"] == "identification" and row["simulated"] is False
        assert row["rt_ms"] == row["identification_time_ms"]
    practice = [r["practice"] for r in result.rows[:8]]
    assert practice == [True, True] + [False] * 6
    assert result.rows[2]["system"] == "HUMAN-1"


def test_every_response_and_dmdx_lines_are_reported():
    result = _read()
    notes = {(p["session"], p["order"], p["detail"]) for p in result.problems}
    assert ("L01-s1", 3, "click at (0.5000,0.1500) is outside every picture") in notes
    assert (
        "L01-s1",
        4,
        "repeated click on e4 at 2488.13 ms; the first (e3 at 1733.52 ms) counts",
    ) in notes
    assert ("L01-s2", 1, "key press(es) Right Shift are not a choice") in notes
    error = [p for p in result.problems if p["detail"].startswith("DMDX reported")]
    assert [(p["source_line"], p["check"]) for p in error] == [(39, "source_note")]
    assert (
        "session L01-s1: order 3: +Mouse Left Button 1980.2 (0.5000,0.1500), "
        "+Mouse Left Button 3120.66 (0.3200,0.3400)"
    ) in result.notes
    assert (
        "session L01-s2: order 1: +Right Shift 1200, +Mouse Left Button 2911.54 "
        "(0.8000,0.4000)"
    ) in result.notes


def test_truncated_last_line_is_kept_and_flagged():
    result = _read()
    last = result.rows[-1]
    assert last["import_problem"].startswith(
        "response: line 56: unreadable response '2020.50,+Mouse Left Button (0.68'"
    )
    bad = [p for p in result.problems if p["check"] == "import_problem"]
    assert [
        (p["source_file"], p["source_line"], p["field"], p["session"]) for p in bad
    ] == [(str(ZIL), 55, "response", "L01-s2")]
    with pytest.raises(JudgmentsError) as info:
        _read(strict=True)
    assert (
        "line 55" in str(info.value)
        and "line 56" in str(info.value)
        and "L01.zil" in str(info.value)
    )


def test_encodings(tmp_path):
    assert _read(encoding="cp1252").rows[8]["participant"] == "Zoë"
    utf8 = tmp_path / "L01.zil"
    utf8.write_bytes(ZIL.read_bytes().decode("cp1252").encode("utf-8"))
    assert read_dmdx_zil(utf8, item_table=ITEMS).rows[8]["participant"] == "Zoë"
    with pytest.raises(JudgmentsError) as info:
        _read(encoding="utf-8")  # the fixture is Windows-1252: no fallback asked
    assert "line 38" in str(info.value)


def test_damaged_files_name_file_and_line(tmp_path):
    head = tmp_path / "cut.zil"
    head.write_text(
        "Subjects incorporated to date: 001\nData file started on machine X\n"
    )
    with pytest.raises(JudgmentsError, match="no 'Subject N, ...' block") as info:
        read_dmdx_zil(head, item_table=ITEMS)
    assert "cut.zil" in str(info.value) and "line 1" in str(info.value)
    outside = tmp_path / "outside.zil"
    outside.write_text(
        "Subjects incorporated to date: 001\n*****************\nItem 1, No Responses.\n"
    )
    with pytest.raises(JudgmentsError, match="outside a subject block") as info:
        read_dmdx_zil(outside, item_table=ITEMS)
    assert "line 3" in str(info.value)
    no_boxes = tmp_path / "L01-items.tsv"
    no_boxes.write_text(
        "dmdx_item\tphase\tlist\torder\titem\n1\tidentification\tL01\t1\tx\n"
    )
    with pytest.raises(JudgmentsError, match="missing column boxes"):
        read_dmdx_zil(ZIL, item_table=no_boxes)


def test_pixel_positions_need_the_screen_size(tmp_path):
    path = tmp_path / "px.zil"
    path.write_text(
        "Subjects incorporated to date: 001\n**********\n"
        "Subject 3, 03/12/2026 12:00:00 on LAB-PC-07, refresh 16.67ms\n"
        "Item 1, 900.00\n 900.00,+Mouse Left Button (1651,367)\n"
    )
    # 1651/1920 = 0.8599, 367/1080 = 0.3398: inside e6 (0.7808-0.9392, 0.2344-0.4456)
    row = read_dmdx_zil(path, item_table=ITEMS, screen_size=(1920, 1080)).rows[0]
    assert (row["chosen_entity"], row["correct"]) == ("e6", True)
    assert row["click_x"] == pytest.approx(1651 / 1920)
    result = read_dmdx_zil(path, item_table=ITEMS)
    assert "in pixels" in result.rows[0]["import_problem"]
    assert result.rows[0]["session_status"] == "aborted"


def test_detection_and_read_responses(tmp_path):
    assert detect_format(ZIL) == "dmdx_zil"
    renamed = tmp_path / "L01.txt"
    shutil.copy(ZIL, renamed)
    assert detect_format(renamed) == "dmdx_zil"  # by content
    assert detect_format(FIXTURES / "judgments" / "L01.azk") == "dmdx_azk"
    via = read_responses(ZIL, study="demo-study", dmdx_item_table=ITEMS)
    assert [r["chosen_entity"] for r in via.rows] == [e[6] for e in EXPECTED]
    with pytest.raises(JudgmentsError, match="needs the path of its <list>-items.tsv"):
        read_responses(ZIL)
    # the .azk reader gives the same columns for the same list
    azk = read_dmdx_azk(FIXTURES / "judgments" / "L01.azk")
    assert list(azk.rows[0]) == list(via.rows[0])


def test_merge_with_the_demo_design_treats_zil_rows_as_dmdx_rows():
    import pandas as pd

    from stecflow.judgments.merge import merge_with_design
    from tests.browser.studykit import demo_design, demo_items
    from tests.unit.test_stimuli import SYSTEMS

    test, dev = demo_items()
    outcome = merge_with_design(
        _read().rows,
        demo_design(systems=SYSTEMS),
        study="demo-study",
        items=test + dev,
        task="identification",
        variant="together",
    )
    trials = pd.DataFrame(outcome.trials)
    assert list(trials["chosen_entity"]) == [e[6] for e in EXPECTED]
    assert list(trials["excluded"]) == [False] * 11 + [True]
    assert list(trials["system"][2:8]) == [
        "HUMAN-1",
        "greedy",
        "full-brevity",
        "greedy",
        "HUMAN-1",
        "full-brevity",
    ]
    checks = {(p["check"], p["session"]) for p in outcome.problems}
    assert ("partial_session", "L01-s2") in checks
    assert ("missing_trials", "L01-s2") in checks


def test_damaged_subject_line_keeps_its_block(tmp_path):
    # a real DMDX .zil (github.com/leijing7/dmdx) has "Subjec029, ..." for a header
    path = tmp_path / "L01.zil"
    path.write_text(
        "Subjects incorporated to date: 001\n**********\n"
        "Subjec029, 06/29/2015 13:26:39 on LAB-PC-07, refresh 16.67ms ID D,1,ZL\n"
        "Item 1, 1512.37\n 1512.37,+Mouse Left Button (0.8600,0.3400)\n"
        "Item 2, No Responses.\n"
    )
    result = read_dmdx_zil(path, item_table=ITEMS)
    assert [
        (r["session"], r["order"], r["chosen_entity"], r["timeout"])
        for r in result.rows
    ] == [
        ("L01-line3", 1, "e6", False),
        ("L01-line3", 2, None, True),
    ]
    damaged = [p for p in result.problems if p["detail"].startswith("damaged subject")]
    assert [(p["source_line"], p["session"]) for p in damaged] == [(3, "L01-line3")]


def test_merge_study_finds_the_item_table_for_a_zil_file(tmp_path):
    import pandas as pd

    from stecflow.judgments.study import merge_study
    from tests.browser.studykit import demo_design
    from tests.unit.test_stimuli import SYSTEMS

    design = tmp_path / "design.tsv"
    demo_design(systems=SYSTEMS).trials.to_csv(design, sep="\t", index=False)
    out = tmp_path / "judgments.tsv"
    summary = merge_study(
        design,
        [ZIL],
        study="demo-study",
        task="identification",
        variant="together",
        dmdx_items_dir=Z,
        out_judgments_tsv=out,
    )
    assert [s["format"] for s in summary["sources"]] == ["dmdx_zil"]
    # sessions counted per list (no session ID in the summary)
    assert summary["lists"]["L01"]["statuses"] == {"aborted": 1, "completed": 1}
    assert "L01-s2" not in json.dumps(summary)
    table = pd.read_csv(out, sep="\t", dtype=str, keep_default_na=False)
    assert list(table["chosen_entity"]) == [e[6] or "" for e in EXPECTED]
    assert list(table["source_format"].unique()) == ["dmdx_zil"]

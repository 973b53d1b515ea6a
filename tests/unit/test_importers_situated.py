"""Reading situated response files: the server's export, the offline file, the
simulated file; what a bad file or line gives."""

from __future__ import annotations

import json

import pytest

from stecflow.data.dialogue import read_corpus
from stecflow.judgments import JudgmentsError
from stecflow.studies.server import export_responses
from stecflow.studies.settings import RESPONSE_COLUMNS
from stecflow.studykinds.situated_identification.import_server import (
    SITUATED_IMPORT_COLUMNS,
    is_situated_header,
    read_situated_responses,
    situated_response_columns,
)
from stecflow.studykinds.situated_identification.stimuli import (
    SITUATED_COLUMNS,
    build_situated_study,
)
from tests.conftest import REPO
from tests.unit.test_server_situated import LIST, situated_payload

COLUMNS = RESPONSE_COLUMNS + SITUATED_COLUMNS


def test_columns():
    assert situated_response_columns() == COLUMNS
    assert is_situated_header(list(COLUMNS))
    assert not is_situated_header(list(RESPONSE_COLUMNS))


def test_server_export_is_read(serve, tmp_path):
    sessions = {s.id: s for s in read_corpus(REPO / "resources" / "dialogue-demo")}
    study = tmp_path / "study"
    build_situated_study(sessions, {"L01": LIST}, study="rexj", out_dir=study / "web")
    client, _ = serve(study)
    session = client.session("p01")
    doc = json.loads((study / "stimuli-key.json").read_text())
    t1, t2, t3 = doc["lists"][0]["trials"]
    for payload in (
        situated_payload(t1, plays=1, time_ms=1700.0),
        situated_payload(t2, via="button", plays=3, time_ms=5400.25),
        situated_payload(t3, via="dont_know", plays=2, time_ms=900.0),
    ):
        status, _, _ = client.call("POST", "/api/trial", payload, session["token"])
        assert status == 201
    out = tmp_path / "export.tsv"
    export_responses(study, out, db_path=tmp_path / "responses.sqlite")
    result = read_situated_responses(out, study="rexj")
    assert result.source_format == "server" and result.problems == []
    assert [list(r) for r in result.rows] == [list(SITUATED_IMPORT_COLUMNS)] * 3
    got = [
        (r["source_line"], r["list"], r["order"], r["item"], r["instance"],
         r["chosen_entity"], r["cant_tell"], r["time_ms"], r["plays"], r["replays"],
         r["answer_via"], r["session_status"], r["participant"], r["simulated"])
        for r in result.rows
    ]  # fmt: skip
    assert got == [
        (2, "L01", 1, t1["item"], t1["item"], t1["target"], False, 1700.0, 1, 0,
         "board", "in_progress", "p01", False),
        (3, "L01", 2, t2["item"], t2["item"], t2["target"], False, 5400.25, 3, 2,
         "button", "in_progress", "p01", False),
        (4, "L01", 3, t3["item"], t3["item"], None, True, 900.0, 2, 1,
         "dont_know", "in_progress", "p01", False),
    ]  # fmt: skip


def _offline(rows):
    """A file as experiment.js's download() writes it (tsvCell)."""
    lines = ["\t".join(COLUMNS)]
    for row in rows:
        cells = []
        for column in COLUMNS:
            value = row.get(column)
            if value is None:
                cells.append("")
            elif value is True or value is False:
                cells.append("true" if value else "false")
            else:
                cells.append(str(value))
        lines.append("\t".join(cells))
    return "\n".join(lines) + "\n"


def _row(order, item, **values):
    row = {
        "study": "rexj", "task": "situated_identification",
        "session": "offline-0a1b2c3d", "participant": "lab-7",
        "session_status": "offline", "list": "L02", "order": order, "item": item,
        "system": "Orig", "practice": False, "filler": False,
        "chosen_entity": "SQ", "target_entity": "SQ", "correct": True,
        "cant_tell": False, "timeout": False, "identification_time_ms": 2100,
        "rt_ms": 2100, "instance": item, "dialogue": "s01", "expression": item,
        "time_ms": 2100, "plays": 1, "replays": 0, "answer_via": "board",
    }  # fmt: skip
    row.update(values)
    return row


def test_offline_file_is_read(tmp_path):
    path = tmp_path / "rexj-L02-offline-0a1b2c3d.tsv"
    path.write_text(
        _offline([_row(1, "s01-e007"), _row(2, "s01-e010", chosen_entity=None,
                                          cant_tell=True, answer_via="dont_know")]),
        encoding="utf-8",
    )  # fmt: skip
    result = read_situated_responses(path)
    assert result.source_format == "offline" and result.problems == []
    assert [(r["order"], r["chosen_entity"], r["cant_tell"]) for r in result.rows] == [
        (1, "SQ", False),
        (2, None, True),
    ]


def test_simulated_and_corrected_columns(tmp_path):
    path = tmp_path / "sim.tsv"
    text = _offline([_row(1, "s01-e007", session_status="completed")])
    header, line = text.rstrip("\n").split("\n")
    path.write_text(f"{header}\tsimulated\tcorrected\n{line}\ttrue\ttrue\n")
    result = read_situated_responses(path)
    assert result.source_format == "simulated"
    assert (result.rows[0]["simulated"], result.rows[0]["corrected"]) == (True, True)


@pytest.mark.parametrize(
    ("header", "message", "field"),
    [
        (
            RESPONSE_COLUMNS,
            "missing column(s) instance, dialogue, expression, time_ms, plays, "
            "replays, answer_via",
            "instance",
        ),
        ((*COLUMNS, "mood"), "unexpected column(s) mood", "mood"),
    ],
)
def test_wrong_header_names_file_line_and_column(tmp_path, header, message, field):
    path = tmp_path / "x.tsv"
    path.write_text("\t".join(header) + "\n", encoding="utf-8")
    with pytest.raises(JudgmentsError) as caught:
        read_situated_responses(path)
    assert message in str(caught.value)
    assert caught.value.file == str(path) and caught.value.line == 1
    assert caught.value.field == field


def test_bad_values_are_kept_flagged_and_strict_raises(tmp_path):
    path = tmp_path / "bad.tsv"
    path.write_text(
        _offline(
            [
                _row(1, "s01-e007", plays=2, replays=0),
                _row(2, "s01-e010", instance="s01-e011", answer_via="mouse"),
                _row(3, "s01-e014", task="rating", time_ms="12 s"),
            ]
        ),
        encoding="utf-8",
    )
    result = read_situated_responses(path, study="rexj")
    assert len(result.rows) == 3
    got = [(p["source_line"], p["field"], p["detail"]) for p in result.problems]
    assert got == [
        (2, "replays", "0 with plays 2; expected plays - 1"),
        (3, "answer_via", "'mouse' is not one of board, button, dont_know"),
        (3, "instance", "'s01-e011' is not the trial's item 's01-e010'; expected "
                        "the same instance ID in both"),
        (4, "time_ms", "'12 s' is not a number"),
        (4, "task", "'rating'; expected situated_identification"),
    ]  # fmt: skip
    assert {p["source_file"] for p in result.problems} == {str(path)}
    assert {p["check"] for p in result.problems} == {"import_problem"}
    assert result.rows[2]["time_ms"] == 2100  # from identification_time_ms
    assert result.rows[1]["import_problem"].startswith("answer_via: 'mouse'")
    with pytest.raises(JudgmentsError) as caught:
        read_situated_responses(path, strict=True)
    assert (caught.value.line, caught.value.field) == (2, "replays")


def test_csv_copy_is_read(tmp_path):
    path = tmp_path / "copy.csv"
    text = _offline([_row(1, "s01-e007")]).replace("\t", ",")
    path.write_text(text, encoding="utf-8")
    assert read_situated_responses(path).rows[0]["time_ms"] == 2100

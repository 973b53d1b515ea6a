"""Withdrawal and erasure (issue 37, point 4): `stecflow sessions withdraw`.

The store: a participant's sessions, trials and answers are erased, nothing of
them stays in the database file, one audit line without an ID is written, and
the backups made before are marked. The command line: the key from the config,
plain errors. The judgments stage: the rows of a withdrawn participant leave the
trial rows, the session table and the data-quality rows, matched by ID or by
release pseudonym, and the summary and the report count the withdrawal.
"""

from __future__ import annotations

import csv
import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from stecflow import cli
from stecflow.release.archive import pseudonym
from stecflow.studies.server.organiser import (
    backup_database,
    list_backups,
    withdraw_participant,
    withdrawn_marker_path,
)
from stecflow.studies.server.store import Store
from stecflow.studies.server.study import CollectionError, load_study
from stecflow.studies.server.withdrawals import (
    WITHDRAWAL_COLUMNS,
    Withdrawal,
    append_withdrawal,
    id_hash,
    key_check,
    read_withdrawals,
    withdrawal_matcher,
    withdrawals_path,
)
from tests.browser.studykit import build_demo_study

#: 2026-11-26T21:40:00Z
T0 = 1795729200.0
KEY = "campaign-release-key"


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    return build_demo_study(tmp_path_factory.mktemp("withdraw"), task="rating")


def _fill(db: Path, study: Path) -> None:
    """Three sessions: ann twice (L01, then L02), bob once (L03)."""
    Store(db, load_study(study)).close()
    sessions = [
        ("s-ann-1", "L01", "PID-ann", "EXT-a1"),
        ("s-ann-2", "L02", "PID-ann", "EXT-a2"),
        ("s-bob-1", "L03", "PID-bob", "EXT-b1"),
    ]
    with closing(sqlite3.connect(db)) as connection, connection:
        for n, (sid, lst, pid, ext) in enumerate(sessions):
            connection.execute(
                "INSERT INTO sessions (session_id, token_sha256, list, participant, "
                "created_s, last_seen_s, external_session, consent) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, 1)",
                (sid, f"token-{sid}", lst, pid, T0 + n, T0 + n, ext),
            )
            connection.executemany(
                'INSERT INTO trials (session_id, "order", list, item, system, '
                "practice, filler, adequacy, fluency, received_s) "
                "VALUES (?, ?, ?, ?, 'sysA', 0, 0, 50, 60, ?)",
                [(sid, k, lst, f"item{k}", T0) for k in range(1, 5)],
            )
            connection.execute(
                "INSERT INTO answers (session_id, screen, field, value_json, "
                "received_s) VALUES (?, 'demographics', 'field_of_study', ?, ?)",
                (sid, json.dumps(f"Studies of {pid}"), T0),
            )


def _ids(db: Path) -> list[str]:
    with closing(sqlite3.connect(db)) as connection:
        return [r[0] for r in connection.execute("SELECT session_id FROM sessions")]


def _count(db: Path, table: str) -> int:
    with closing(sqlite3.connect(db)) as connection:
        return connection.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def _withdraw(study: Path, db: Path, ident: str, now: float = T0 + 100, **kw):
    store = Store(db, load_study(study))
    try:
        return withdraw_participant(store, ident, KEY, now, **kw)
    finally:
        store.close()


def _bytes(db: Path) -> bytes:
    return b"".join(
        p.read_bytes() for p in db.parent.iterdir() if p.name.startswith(db.name)
    )


# --------------------------------------------------------------------------- store


def test_withdraw_by_participant_erases_every_session_and_keeps_an_audit_line(
    study, tmp_path
):
    db = tmp_path / "responses.sqlite"
    _fill(db, study)
    assert b"PID-ann" in _bytes(db)
    result = _withdraw(study, db, "PID-ann")
    assert (result["sessions"], result["trials"], result["answers"]) == (2, 8, 2)
    assert _ids(db) == ["s-bob-1"]
    assert (_count(db, "trials"), _count(db, "answers")) == (4, 1)
    # nothing of ann stays in the database file or its write-ahead log
    stored = _bytes(db)
    for text in (b"PID-ann", b"s-ann-1", b"EXT-a2", b"Studies of PID-ann"):
        assert text not in stored
    assert b"PID-bob" in stored
    # one audit line: time, key check, hashes, counts; no ID
    record = withdrawals_path(db)
    assert record == tmp_path / "responses.withdrawals.tsv"
    lines = record.read_text().splitlines()
    ids = ("PID-ann", "s-ann-1", "s-ann-2", "EXT-a1", "EXT-a2")
    hashes = ",".join(sorted(id_hash(v, KEY)[:16] for v in ids))
    assert lines == [
        "\t".join(WITHDRAWAL_COLUMNS),
        f"2026-11-26T21:41:40Z\t{key_check(KEY)}\t{hashes}\t2\t8\t2",
    ]
    assert "ann" not in record.read_text()
    assert result["hashes"] == hashes.split(",")


def test_withdraw_by_release_pseudonym_or_platform_session(study, tmp_path):
    db = tmp_path / "responses.sqlite"
    _fill(db, study)
    # the pseudonym the release gives bob's participant ID (P02-<hmac>)
    released = pseudonym("PID-bob", KEY, prefix="P02-")
    assert _withdraw(study, db, released)["sessions"] == 1
    assert _ids(db) == ["s-ann-1", "s-ann-2"]
    # a platform session ID names one session; the person's others go with it
    assert _withdraw(study, db, "EXT-a2")["sessions"] == 2
    assert _ids(db) == []
    assert len(read_withdrawals([withdrawals_path(db)])) == 2


def test_an_unknown_participant_erases_and_records_nothing(study, tmp_path):
    db = tmp_path / "responses.sqlite"
    _fill(db, study)
    with pytest.raises(CollectionError, match="nothing was erased.*--record-only"):
        _withdraw(study, db, "PID-nobody")
    assert len(_ids(db)) == 3 and not withdrawals_path(db).exists()
    # answers collected elsewhere: recorded only, with the ID's hash
    result = _withdraw(study, db, "PID-nobody", record_only=True)
    assert (result["sessions"], result["trials"]) == (0, 0)
    [w] = read_withdrawals([withdrawals_path(db)])
    assert w.hashes == (id_hash("PID-nobody", KEY)[:16],)


def test_backups_made_before_a_withdrawal_are_marked_and_listed(study, tmp_path):
    db = tmp_path / "responses.sqlite"
    _fill(db, study)
    before = tmp_path / "backups" / "before.sqlite"
    assert backup_database(db, before, now=T0 + 50) == {"sessions": 3, "trials": 12}
    with closing(sqlite3.connect(before)) as copy:
        assert copy.execute(
            "SELECT value FROM meta WHERE key = 'backup_utc'"
        ).fetchone() == ("2026-11-26T21:40:50Z",)
    result = _withdraw(study, db, "PID-ann")
    assert result["backups"] == [str(before.resolve())]
    marker = withdrawn_marker_path(before)
    assert marker.name == "before.sqlite.withdrawn.tsv"
    assert marker.read_text() == withdrawals_path(db).read_text()
    after = tmp_path / "backups" / "after.sqlite"
    backup_database(db, after, now=T0 + 200)
    listed = list_backups(db)
    assert [(Path(e["path"]).name, e["sessions"], e["withdrawn"]) for e in listed] == [
        ("before.sqlite", 3, 1),
        ("after.sqlite", 1, 0),
    ]
    # a second withdrawal marks only the backups that hold that person
    assert _withdraw(study, db, "PID-bob")["backups"] == sorted(
        str(p.resolve()) for p in (before, after)
    )
    assert [e["withdrawn"] for e in list_backups(db)] == [2, 1]
    # before restoring a marked backup, the hashes of its marker erase them there
    for w in read_withdrawals([marker]):
        assert _withdraw(study, before, w.hashes[0])["sessions"] == w.sessions
    assert _ids(before) == []


# --------------------------------------------------------------------------- CLI


def test_stecflow_sessions_withdraw_and_backups(study, tmp_path, capsys, monkeypatch):
    db = tmp_path / "responses.sqlite"
    _fill(db, study)
    backup = tmp_path / "b1.sqlite"
    assert (
        cli.main(
            ["sessions", "backup", str(study), "--db", str(db)] + ["--out", str(backup)]
        )
        == 0
    )
    capsys.readouterr()
    config = tmp_path / "campaign.yaml"
    config.write_text(f"campaign: {{id: demo}}\nrelease: {{key: {KEY}}}\n")
    argv = ["sessions", "withdraw", str(study), "--db", str(db), "PID-ann"]
    assert cli.main([*argv, "--config", str(config)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(
        "erased 2 session(s), 8 trial(s) and 2 questionnaire answer(s); the "
        f"withdrawal is recorded in {withdrawals_path(db)} (hashes "
    )
    assert out[2].startswith(f"backup {backup.resolve()} was made before")
    [w] = read_withdrawals([withdrawals_path(db)])
    assert w.key_check == key_check(KEY)  # keyed as the release's pseudonyms
    assert cli.main(["sessions", "backups", str(study), "--db", str(db)]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert listing[0] == "backup_utc\tsessions\ttrials\tpath\tnote"
    assert listing[1].split("\t")[1:4] == ["3", "12", str(backup.resolve())]
    assert "HOLDS DATA OF 1 WITHDRAWN PARTICIPANT(S)" in listing[1]
    # without a key or a config to read it from: a plain error, nothing erased
    monkeypatch.chdir(tmp_path)
    assert cli.main([*argv[:-1], "PID-bob"]) == 2
    assert "give the campaign config with --config FILE" in capsys.readouterr().err
    assert _ids(db) == ["s-bob-1"]
    # the campaign ID is the key when the config has no release.key
    config.write_text("campaign: {id: demo}\n")
    assert cli.main([*argv[:-1], "PID-bob", "--config", str(config)]) == 0
    assert read_withdrawals([withdrawals_path(db)])[1].key_check == key_check("demo")


def test_the_server_command_line_withdraws_too(study, tmp_path, capsys):
    from stecflow.studies.server.cli import main as server_main

    db = tmp_path / "responses.sqlite"
    _fill(db, study)
    argv = ["withdraw", str(study), "PID-bob", "--db", str(db), "--key", KEY]
    assert server_main(argv) == 0
    assert _ids(db) == ["s-ann-1", "s-ann-2"]
    assert "erased 1 session(s), 4 trial(s)" in capsys.readouterr().out


# --------------------------------------------------------------------------- file


def test_hashes_start_with_the_release_pseudonym():
    for value in ("PID-ann", "5f3a9c", "s-1"):
        assert id_hash(value, KEY)[:10] == pseudonym(value, KEY, prefix="")


def test_a_withdrawal_recorded_with_another_key_is_refused(tmp_path):
    path = tmp_path / "w.tsv"
    append_withdrawal(
        path, Withdrawal("2026-11-29T03:00:00Z", key_check("other"), ("0" * 16,))
    )
    with pytest.raises(CollectionError, match="another key") as error:
        withdrawal_matcher(read_withdrawals([path]), KEY)
    assert (error.value.file, error.value.line) == (str(path), 2)


def test_a_damaged_withdrawals_file_names_file_line_and_field(tmp_path):
    path = tmp_path / "w.tsv"
    path.write_text("\t".join(WITHDRAWAL_COLUMNS) + "\nyesterday\tx\ty\t1\t2\t3\n")
    with pytest.raises(CollectionError) as error:
        read_withdrawals([path])
    assert str(error.value) == (
        f"{path}, line 2, withdrawn_utc: expected a time such as 2026-11-29T03:00:00Z"
    )
    (tmp_path / "other.tsv").write_text("a\tb\n")
    with pytest.raises(CollectionError, match="not a withdrawals file"):
        read_withdrawals([tmp_path / "other.tsv"])
    assert read_withdrawals([tmp_path / "missing.tsv"]) == []


# --------------------------------------------------------------------------- merge


def _record(path: Path, *ids: str, key: str = KEY, trials: int = 0) -> None:
    append_withdrawal(
        path,
        Withdrawal(
            "2026-11-29T03:00:00Z",
            key_check(key),
            tuple(sorted(id_hash(i, key)[:16] for i in ids)),
            sessions=1,
            trials=trials,
        ),
    )


def _read(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def test_the_session_table_leaves_out_withdrawn_participants(tmp_path):
    from stecflow.judgments.sessions import SESSION_COLUMNS, merge_sessions

    table = tmp_path / "export.sessions.tsv"
    rows = [
        ["st", "s1", "PID-ann", "", "", "L01", "completed", "2026-11-26T21:40:00Z"],
        ["st", "s2", "PID-bob", "", "", "L02", "completed", "2026-11-26T21:41:00Z"],
    ]
    table.write_text(
        "\t".join(SESSION_COLUMNS)
        + "\n"
        + "".join(
            "\t".join([*r, "2026-11-26T21:50:00Z", "600", "4", "1"]) + "\n"
            for r in rows
        )
    )
    withdrawals = tmp_path / "w.tsv"
    _record(withdrawals, "PID-ann")
    out = tmp_path / "sessions.tsv"
    merge_sessions([table], out, study="st", withdrawals=[withdrawals], key=KEY)
    assert [r["participant"] for r in _read(out)] == ["PID-bob"]
    merge_sessions([table], out, study="st", withdrawals=[], key=KEY)
    assert [r["participant"] for r in _read(out)] == ["PID-ann", "PID-bob"]


def test_a_rating_study_leaves_out_a_withdrawn_participant_and_counts_them(tmp_path):
    from stecflow.judgments.study import merge_study
    from tests.conftest import FIXTURES

    j = FIXTURES / "judgments"

    def merged(withdrawals, out):
        folder = tmp_path / out
        summary = merge_study(
            j / "design_rate.tsv",
            [j / "rating_export.tsv"],
            None,
            j / "testset.xml",
            None,
            folder / "judgments.tsv",
            folder / "quality.tsv",
            folder / "summary.json",
            out_measures_tsv=folder / "measures.tsv",
            withdrawals=withdrawals,
            pseudonym_key=KEY,
        )
        return summary, _read(folder / "judgments.tsv"), _read(folder / "measures.tsv")

    before, judged, _ = merged([], "before")
    assert {r["subject"] for r in judged} == {"R01", "R02"}
    assert before["counts"]["withdrawn"] == 0
    withdrawals = tmp_path / "responses.withdrawals.tsv"
    _record(withdrawals, "R02", trials=5)  # withdrawn by participant ID
    after, judged, measures = merged([withdrawals], "after")
    assert {r["subject"] for r in judged} == {"R01"}
    assert len(judged) == len([r for r in _read(tmp_path / "before/judgments.tsv")
                               if r["subject"] == "R01"])  # fmt: skip
    assert after["counts"]["withdrawn"] == 1
    assert after["withdrawals"] == {
        "withdrawn": 1,
        "sessions_erased": 1,
        "trials_erased": 5,
        "answers_erased": 0,
        "rows_dropped": 5,
        "problems_dropped": 0,
    }
    assert {m["n_subjects"] for m in measures if m["subdomain"] == "all"} == {"1"}
    # by the release pseudonym of the session ID instead: the same result
    by_pseudonym = tmp_path / "by-pseudonym.tsv"
    digits = pseudonym("e2b7c41a9f05d368", KEY, prefix="S2-")
    store_line = Withdrawal(
        "2026-11-29T03:00:00Z", key_check(KEY), (digits.split("-")[1],)
    )
    append_withdrawal(by_pseudonym, store_line)
    again, judged, _ = merged([by_pseudonym], "again")
    assert {r["subject"] for r in judged} == {"R01"}
    assert again["counts"]["withdrawn"] == 1


def test_a_text_study_leaves_out_a_withdrawn_participant(tmp_path):
    from tests.unit.test_text_judgments import (
        RATING,
        _merge,
        _rating_design,
        _rating_rows,
        _responses,
    )

    design = _rating_design(tmp_path)
    responses = _responses(
        tmp_path / "export.tsv", "text_rating", RATING["criteria"], _rating_rows()
    )
    withdrawals = tmp_path / "w.tsv"
    _record(withdrawals, "S2", key="tr")  # the study's ID keys without a release key
    from stecflow.judgments.text_study import merge_text_study

    out = {k: tmp_path / f"{k}.tsv" for k in ("judgments", "quality", "measures")}
    summary = merge_text_study(
        design,
        [responses],
        None,
        out["judgments"],
        out["quality"],
        out["measures"],
        tmp_path / "summary.json",
        study=RATING,
        withdrawals=[withdrawals],
    )
    assert [r["subject"] for r in _read(out["judgments"])] == ["S1", "S1", "S1"]
    assert summary["counts"]["withdrawn"] == 1
    assert summary["withdrawals"]["rows_dropped"] == 2
    # the partial session of S2 is no longer reported either
    assert [q["check"] for q in _read(out["quality"])] == []
    plain, _ = _merge(tmp_path / "plain", design, [responses], RATING)
    assert plain["counts"]["withdrawn"] == 0


def test_a_situated_study_leaves_out_a_withdrawn_evaluator(tmp_path):
    from stecflow.studykinds.situated_identification.merge import merge_situated_study
    from tests.unit.test_situated_study import hand_design, hand_rows, write_responses

    design = hand_design(tmp_path)
    responses = write_responses(tmp_path / "export.tsv", hand_rows())
    gone = "a"  # evaluator a (session s-a), withdrawn by participant ID
    withdrawals = tmp_path / "w.tsv"
    _record(withdrawals, gone)
    base = tmp_path / "out"
    summary = merge_situated_study(
        design[0],
        design[1],
        [responses],
        None,
        base / "judgments.tsv",
        base / "quality.tsv",
        base / "measures.tsv",
        base / "summary.json",
        settings={},
        pseudonym_key=KEY,
        withdrawals=[withdrawals],
    )
    judged = _read(base / "judgments.tsv")
    assert {r["subject"] for r in judged} == {"b", "c", "d"}
    assert summary["counts"]["withdrawn"] == 1
    assert summary["withdrawals"]["rows_dropped"] == sum(
        1 for r in hand_rows() if r["participant"] == gone
    )
    assert summary["counts"]["evaluators"] == 3


def test_the_report_counts_withdrawals(tmp_path):
    from stecflow.report.quality import withdrawal_sentence

    summary = {
        "withdrawals": {
            "withdrawn": 2,
            "sessions_erased": 3,
            "trials_erased": 24,
            "answers_erased": 0,
            "rows_dropped": 0,
        }
    }
    assert withdrawal_sentence("rating", summary) == (
        "Study rating: 2 participants withdrew. Their answers were erased from the"
        " collection database (3 sessions, 24 trials, 0 questionnaire answers), and"
        " the 0 rows of theirs still in the response files were left out of the"
        " judgments, statistics, this report and the release."
    )
    assert withdrawal_sentence("rating", {"withdrawals": {"withdrawn": 0}}) is None
    assert withdrawal_sentence("rating", {}) is None


def test_a_reader_keeps_the_log_until_it_closes(study, tmp_path):
    db = tmp_path / "responses.sqlite"
    _fill(db, study)
    reader = sqlite3.connect(db)  # the running server, reading
    reader.execute("BEGIN")
    reader.execute("SELECT COUNT(*) FROM trials").fetchone()
    try:
        assert _withdraw(study, db, "PID-ann")["log_truncated"] is False
    finally:
        reader.rollback()
        reader.close()  # the last connection: SQLite empties and removes the log
    assert not (tmp_path / "responses.sqlite-wal").exists()
    assert b"PID-ann" not in _bytes(db) and b"PID-bob" in _bytes(db)


def test_data_quality_rows_quoting_a_withdrawn_id_go_too(tmp_path):
    from stecflow.judgments.withdrawals import drop_withdrawn

    withdrawals = tmp_path / "w.tsv"
    _record(withdrawals, "PID-ann")
    rows = [
        {"session": "5f1c2e", "participant": "PID-ann"},
        {"session": "77aa01", "participant": "PID-bob"},
    ]
    problems = [
        {"check": "duplicate", "session": "", "detail": "session 5f1c2e again"},
        {"check": "duplicate", "session": "77aa01", "detail": "session 77aa01 again"},
        {"check": "import_problem", "subject": "PID-ann", "detail": "bad value"},
        {"check": "note", "detail": "sessions 5f1c2ex and x5f1c2e differ"},
    ]
    kept, left, counts = drop_withdrawn(rows, problems, [withdrawals], KEY)
    assert kept == rows[1:]
    assert [p["detail"] for p in left] == [
        "session 77aa01 again",
        "sessions 5f1c2ex and x5f1c2e differ",
    ]
    assert (counts["rows_dropped"], counts["problems_dropped"]) == (1, 2)


def test_a_withdrawal_while_the_server_runs(serve, study, tmp_path):
    from tests.unit.test_server import _trials, rating_payload

    client, _ = serve(study)
    ann = client.session("PID-ann")
    bob = client.session("PID-bob")
    first, second = _trials(study, ann["list"])[:2]
    status, _, _ = client.call(
        "POST", "/api/trial", rating_payload(first), ann["token"]
    )
    assert status == 201
    db = tmp_path / "responses.sqlite"
    assert _withdraw(study, db, "PID-ann")["trials"] == 1
    # ann's page can send nothing more; bob goes on
    status, data, _ = client.call(
        "POST", "/api/trial", rating_payload(second), ann["token"]
    )
    assert (status, data["error"]) == (403, "unknown session")
    trial = _trials(study, bob["list"])[0]
    status, _, _ = client.call(
        "POST", "/api/trial", rating_payload(trial), bob["token"]
    )
    assert status == 201
    assert _ids(db) == [bob["session_id"]]
    # the list ann held goes to the next participant
    assert client.session("PID-cem")["list"] == ann["list"]

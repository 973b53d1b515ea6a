"""Complete rating and identification sessions in chromium, online and offline."""

from __future__ import annotations

import csv
import time
from pathlib import Path

import pytest

from stecflow.studies.server import make_server, read_responses
from stecflow.studies.settings import RESPONSE_COLUMNS
from stecflow.studies.speech import espeak_version
from tests.browser.conftest import free_port
from tests.browser.driver import Participant, label_of, load_document
from tests.browser.studykit import DEMO, FAST, build_demo_study, demo_design


def _rows_by_order(study_dir: Path, db: Path) -> dict[int, dict]:
    rows = read_responses(study_dir, db_path=db)
    orders = [r["order"] for r in rows]
    assert len(orders) == len(set(orders)), "a trial was stored twice"
    return {r["order"]: r for r in rows}


def _list_trials(doc: dict, list_id: str) -> list[dict]:
    return next(x for x in doc["lists"] if x["list"] == list_id)["trials"]


def test_rating_session_online(tmp_path, watched):
    study = build_demo_study(tmp_path, task="rating", settings=FAST)
    doc = load_document(study)
    db = tmp_path / "responses.sqlite"
    with make_server(study, port=0, db_path=db).start() as server:
        page = watched.page
        page.goto(server.url + "?participant=P-001")
        fractions = {}

        def rate(trial):
            k = trial["order"]
            fractions[k] = (0.1 + 0.1 * (k % 8), 0.95 - 0.1 * (k % 8))
            return fractions[k]

        person = Participant(page, doc, rate=rate)
        assert person.run() == "done"
        code = page.text_content("#completion-code").strip()
        assert len(code) == 8
        list_id = person.list_id
        assert list_id == "L01"
        rows = _rows_by_order(study, db)
    trials = _list_trials(doc, list_id)
    assert sorted(rows) == [t["order"] for t in trials]
    screens = [s for s, _ in person.screens]
    assert "practice-over" in screens and screens.count("break") == 1
    for trial in trials:
        row = rows[trial["order"]]
        assert (row["item"], row["system"], row["practice"]) == (
            trial["item"],
            trial["system"],
            trial["practice"],
        )
        assert row["participant"] == "P-001"
        assert row["session_status"] == "completed"
        assert row["task"] == "rating" and row["variant"] is None
        assert 1 <= row["adequacy"] <= 100 and 1 <= row["fluency"] <= 100
        assert row["adequacy"] == person.answers[trial["order"]]["adequacy"]
        assert row["fluency"] == person.answers[trial["order"]]["fluency"]
        assert 0 < row["rt_ms"] < 60_000
        assert row["chosen_entity"] is None and row["correct"] is None
        assert row["target_entity"] == trial["target"]
    # the sliders were set far apart: the stored values follow the pointer
    low = min(fractions, key=lambda k: fractions[k][0])
    high = max(fractions, key=lambda k: fractions[k][0])
    assert rows[low]["adequacy"] < rows[high]["adequacy"]
    watched.assert_clean()


def test_identification_session_online(tmp_path, watched):
    study = build_demo_study(
        tmp_path, task="identification", variant="together", settings=FAST
    )
    doc = load_document(study)
    db = tmp_path / "responses.sqlite"
    plan = {}

    def choose(trial):
        k = trial["order"]
        if trial["practice"]:
            action = "target"
        elif k == 4:
            action = "timeout"
        elif k % 3 == 0:
            action = "wrong"
        else:
            action = "target"
        plan[k] = action
        return action

    with make_server(study, port=0, db_path=db).start() as server:
        watched.page.goto(server.url)
        person = Participant(watched.page, doc, choose=choose)
        assert person.run() == "done"
        list_id = person.list_id
        rows = _rows_by_order(study, db)
    trials = _list_trials(doc, list_id)
    assert sorted(rows) == [t["order"] for t in trials]
    assert set(plan.values()) == {"target", "wrong", "timeout"}
    for trial in trials:
        row = rows[trial["order"]]
        action = plan[trial["order"]]
        assert row["target_entity"] == trial["target"]
        assert row["variant"] == "together" and row["reading_time_ms"] is None
        if action == "timeout":
            assert row["timeout"] is True and row["chosen_entity"] is None
            assert row["correct"] is None and row["identification_time_ms"] is None
            continue
        assert row["timeout"] is False and row["cant_tell"] is False
        assert row["chosen_entity"] == person.answers[trial["order"]]["chosen"]
        assert row["correct"] is (action == "target")
        # display onset to click: positive, within the timeout
        assert 0 < row["identification_time_ms"] < FAST["timeout_ms"]
        assert row["rt_ms"] == row["identification_time_ms"]
        # Playwright clicks the centre of the picture
        assert abs(row["click_x"] - 0.5) < 0.05 and abs(row["click_y"] - 0.5) < 0.05
    watched.assert_clean()


def _poll(read, n, seconds=10.0):
    """*read()* once it has *n* entries, or its last value after *seconds*."""
    deadline = time.monotonic() + seconds
    value = read()
    while len(value) < n and time.monotonic() < deadline:
        time.sleep(0.05)
        value = read()
    return value


def test_server_killed_and_restarted_mid_session(tmp_path, watched, server_process):
    study = build_demo_study(
        tmp_path, task="identification", variant="read_first", settings=FAST
    )
    doc = load_document(study)
    db = tmp_path / "responses.sqlite"
    server = server_process(study, db, free_port()).start()
    page = watched.page
    page.goto(server.url)
    person = Participant(page, doc, choose=lambda t: "target")
    # answer the first four trials (2 practice, 2 test), stop on the fifth
    assert person.run(stop=lambda s, o: s == "ready" and o == "5") == "ready"
    # the page goes on while an answer is on its way: wait until the fourth is in
    stored = _poll(lambda: [r["order"] for r in read_responses(study, db_path=db)], 4)
    assert stored == [1, 2, 3, 4]
    server.kill()
    # trial 5 is answered while the server is down: it waits in the page's queue
    person.last = ""
    assert person.run(stop=lambda s, o: s == "ready" and o == "6") == "ready"
    page.wait_for_function(
        "() => document.getElementById('status').textContent.includes('Saving')"
    )
    assert len(read_responses(study, db_path=db)) == 4
    server.start()
    page.reload()
    # the resume screen counts as the progress bar does: test trials only
    # (trials 1-2 are practice, 3-5 answered), never the practice as well
    page.wait_for_function("() => document.body.dataset.screen === 'resume'")
    list_id = page.evaluate("() => document.body.dataset.list || ''")
    # (before runTrials sets it: any list, all have as many test trials)
    list_id = list_id or next(x["list"] for x in doc["lists"])
    n_test = len([t for t in _list_trials(doc, list_id) if not t["practice"]])
    assert page.inner_text("#screen-resume p") == (
        f"Welcome back. You have answered 3 of {n_test} trials; you will continue"
        " where you stopped."
    )
    person.last = ""
    assert person.run() == "done"
    assert ("resume", "") in person.screens
    progress = page.evaluate(
        "() => document.getElementById('progress-text').textContent"
    )
    assert progress == f"Trial {n_test} of {n_test}"
    rows = _rows_by_order(study, db)
    trials = _list_trials(doc, person.list_id)
    assert sorted(rows) == [t["order"] for t in trials], "a trial was lost"
    for trial in trials:
        row = rows[trial["order"]]
        assert row["correct"] is True and row["session_status"] == "completed"
        assert row["reading_time_ms"] > 0 and row["identification_time_ms"] > 0
        assert row["rt_ms"] == pytest.approx(
            row["reading_time_ms"] + row["identification_time_ms"], abs=0.11
        )
    # Killing the server refuses new requests or cuts one in flight (before its
    # headers, or part-way through its body: a picture being sent); the page
    # resends either (asserted above: nothing lost).
    watched.assert_clean(
        allow=(
            "ERR_CONNECTION_REFUSED",
            "ERR_EMPTY_RESPONSE",
            "ERR_CONNECTION_RESET",
            "ERR_CONTENT_LENGTH_MISMATCH",
        )
    )


def test_offline_session_saves_a_results_file(tmp_path, watched):
    study = build_demo_study(
        tmp_path,
        task="identification",
        variant="together",
        settings={**FAST, "cant_tell": True, "completion_code": "LAB-2009"},
    )
    doc = load_document(study)
    page = watched.page
    # the served copy holds no list: from disk it says where the lists' copies are
    page.goto((study / "web" / "index.html").resolve().as_uri())
    page.wait_for_selector("#error")
    assert "offline/<list>/index.html" in page.text_content("#error")
    index = (study / "offline" / "L02" / "index.html").resolve().as_uri()
    page.goto(index + "?participant=lab-07")

    def choose(trial):
        return "cant_tell" if trial["order"] == 5 else "target"

    person = Participant(page, doc, choose=choose, list_choice="L02")
    # stop half way and reload: the offline session resumes from localStorage
    assert person.run(stop=lambda s, o: s == "ready" and o == "4") == "ready"
    page.reload()
    person.last = ""
    assert person.run() == "done"
    assert page.evaluate("() => document.body.dataset.mode") == "offline"
    assert page.text_content("#completion-code").strip() == "LAB-2009"
    with page.expect_download() as info:
        page.click("#download")
    path = tmp_path / "offline.tsv"
    info.value.save_as(path)
    assert info.value.suggested_filename.startswith("demo-study-L02-offline-")
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        assert tuple(reader.fieldnames) == RESPONSE_COLUMNS
        rows = list(reader)
    trials = _list_trials(doc, "L02")
    assert [int(r["order"]) for r in rows] == [t["order"] for t in trials]
    for row, trial in zip(rows, trials, strict=True):
        assert row["list"] == "L02" and row["session_status"] == "offline"
        assert row["participant"] == "lab-07"
        # the page knows no item, system or answer: the key fills them in
        assert (row["item"], row["system"], row["target_entity"]) == ("", "", "")
        assert row["correct"] == ""
        assert row["practice"] == ("true" if trial["practice"] else "false")
        if trial["order"] == 5:
            assert (row["cant_tell"], row["chosen_entity"]) == ("true", "")
        else:
            assert row["chosen_entity"] == label_of(trial, trial["target"])
            assert 0 < float(row["identification_time_ms"]) < FAST["timeout_ms"]
    watched.assert_clean()
    # merged with the design and the key: items, systems and answers as the design's
    from stecflow.core.io import read_tsv
    from stecflow.judgments.study import merge_study
    from stecflow.studies.setup import _design_text

    design = tmp_path / "design.tsv"
    design.write_text(_design_text(demo_design()), encoding="utf-8")
    out = tmp_path / "judgments.tsv"
    merge_study(
        design,
        [path],
        out_judgments_tsv=out,
        items_paths=[DEMO / "test.xml", DEMO / "dev.xml"],
        task="identification",
        variant="together",
        key_path=study / "stimuli-key.json",
        study="demo-study",
    )
    merged = {int(r["order"]): r for r in read_tsv(out)}
    for trial in trials:
        row = merged[trial["order"]]
        assert (row["item"], row["system"]) == (trial["item"], trial["system"] or "")
        assert row["target_entity"] == trial["target"]
        if trial["order"] == 5:
            assert (row["cant_tell"], row["correct"]) == ("true", "false")
        else:
            assert (row["chosen_entity"], row["correct"]) == (trial["target"], "true")


@pytest.mark.skipif(
    espeak_version() is None,
    reason="espeak-ng is not installed (apt-get install espeak-ng)",
)
def test_spoken_identification_session(tmp_path, watched):
    study = build_demo_study(
        tmp_path,
        task="identification",
        variant="spoken",
        settings={**FAST, "break_every": 0},
        n_practice=1,
        study="spoken-study",
    )
    doc = load_document(study)
    db = tmp_path / "responses.sqlite"
    with make_server(study, port=0, db_path=db).start() as server:
        watched.page.goto(server.url)
        person = Participant(watched.page, doc)
        assert person.run() == "done"
        rows = _rows_by_order(study, db)
    trials = _list_trials(doc, person.list_id)
    assert sorted(rows) == [t["order"] for t in trials]
    assert all(r["correct"] is True for r in rows.values())
    assert any("/audio/" in url for url in watched.requests)
    for row in rows.values():
        if row["audio_onset_ms"] is not None:  # headless chromium may have no sink
            assert row["audio_onset_ms"] >= FAST["delay_ms"] - 20
    watched.assert_clean()

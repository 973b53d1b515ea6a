"""Consent, questionnaire, debrief and checks in chromium (issue 17, points 2, 5, 6).

A Japanese study walks consent -> questionnaire -> trials -> debrief and shows no
English letter outside data; declining consent leaves no data and sends nothing;
the offline session table (contract C2) carries the answers; online, the IDs of a
Prolific link and the answers reach the server (contract C1) and the page goes to
the completion URL after the debrief.
"""

from __future__ import annotations

import csv
import re

import pytest

from stecflow.studies.speech import espeak_version
from stecflow.studies.strings import UI_STRINGS
from tests.browser import driver
from tests.browser.driver import Participant, load_document
from tests.browser.studykit import FAST
from tests.browser.studykit import build_demo_study as _build
from tests.conftest import REPO

PARTICIPANTS = REPO / "resources" / "participants"
SCREENS = driver.INTERACTIVE + ("consent", "questionnaire", "debrief", "declined")
SESSION_COLUMNS = (
    "study",
    "session",
    "participant",
    "study_id",
    "external_session",
    "list",
    "status",
    "started_utc",
    "ended_utc",
    "duration_s",
    "n_trials_answered",
    "consent",
)


@pytest.fixture(autouse=True)
def _more_screens(monkeypatch):
    monkeypatch.setattr(driver, "INTERACTIVE", SCREENS)


def _settings(language: str, **more):
    return {
        **FAST,
        "language": language,
        "consent": str(PARTICIPANTS / f"consent.{language}.md"),
        "questionnaire": str(PARTICIPANTS / f"questionnaire.{language}.yaml"),
        "debrief": str(PARTICIPANTS / f"debrief.{language}.md"),
        **more,
    }


def _visible_text(page, *, without=()) -> str:
    """The page's visible text, leaving out the elements matched by *without*."""
    return page.evaluate(
        """(without) => {
            const clone = document.body.cloneNode(true);
            for (const sel of without) clone.querySelectorAll(sel).forEach((n) => n.remove());
            clone.querySelectorAll('[hidden], script, noscript').forEach((n) => n.remove());
            return clone.textContent;
        }""",
        list(without),
    )


def _answer_questionnaire(page):
    page.check("#q-gender input[value=female]")
    page.fill("#q-age", "34")
    page.select_option("#q-education", "master")
    page.fill("#q-field", "言語学")
    page.check("#q-native input[value=yes]")
    page.check("#q-proficiency input[value=native]")
    page.check("#q-colour_vision input[value=yes]")
    page.check("#q-hearing input[value=yes]")
    page.check("#q-handedness input[value=right]")


def test_japanese_study_walks_every_screen_without_english(tmp_path, watched):
    study = _build(tmp_path, task="rating", settings=_settings("ja"))
    doc = load_document(study)
    page = watched.page
    page.goto(
        (study / "offline" / "L01" / "index.html").resolve().as_uri()
        + "?PROLIFIC_PID=p1"
    )
    person = Participant(page, doc, list_choice="L01", rate=lambda t: (0.5, 0.5))
    latin = re.compile(r"[A-Za-z]")
    seen = []

    def stop(screen, order):
        if screen not in seen:
            seen.append(screen)
            # data: descriptions and list IDs; everything else is Japanese
            text = _visible_text(page, without=("#list-select", ".description"))
            assert not latin.findall(text), (screen, text)
        return screen in ("consent", "questionnaire", "debrief")

    assert person.run(stop=stop) == "consent"
    assert page.text_content("#consent-agree") == UI_STRINGS["ja"]["consent_agree"]
    assert page.text_content("#screen-consent h2") == "説明と同意"
    page.click("#consent-agree")
    assert person.run(stop=stop) == "questionnaire"
    page.click("#questionnaire-submit")
    assert (
        page.text_content("#questionnaire-hint")
        == (UI_STRINGS["ja"]["questionnaire_required"])
    )
    _answer_questionnaire(page)
    page.click("#questionnaire-submit")
    person.last = ""
    assert person.run(stop=stop) == "debrief"
    assert page.text_content("#screen-debrief h2") == "ありがとうございました"
    page.click("#debrief-continue")
    assert person.run(stop=stop) == "done"
    assert seen[:3] == ["consent", "questionnaire", "welcome"]
    assert "rating" in seen and seen[-2:] == ["debrief", "done"]
    with page.expect_download() as info:
        page.click("#download-sessions")
    path = tmp_path / "s.tsv"
    info.value.save_as(path)
    assert info.value.suggested_filename.endswith(".sessions.tsv")
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        rows = list(reader)
    fields = tuple(reader.fieldnames)
    assert fields[:12] == SESSION_COLUMNS
    assert list(fields[12:]) == sorted(fields[12:])
    assert len(fields) == 12 + 10
    (row,) = rows
    n_trials = len(next(x for x in doc["lists"] if x["list"] == "L01")["trials"])
    assert row["study"] == doc["study"] and row["list"] == "L01"
    assert row["participant"] == "p1" and row["status"] == "completed"
    assert row["consent"] == "1" and row["n_trials_answered"] == str(n_trials)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", row["ended_utc"])
    assert row["started_utc"] <= row["ended_utc"]
    assert row["demographics.age"] == "34"
    assert row["demographics.gender"] == "female"
    assert row["demographics.education"] == "master"
    assert row["demographics.field"] == "言語学"
    assert row["demographics.colour_vision"] == "true"
    assert row["demographics.variety"] == ""
    watched.assert_clean()


def test_declining_consent_leaves_no_data(tmp_path, watched):
    study = _build(tmp_path, task="rating", settings=_settings("en"))
    page = watched.page
    page.goto((study / "offline" / "L01" / "index.html").resolve().as_uri())
    person = Participant(page, load_document(study))
    assert person.run(stop=lambda s, o: s == "consent") == "consent"
    # the organiser's file is shown as text: no markup reaches the page
    assert page.locator("#screen-consent strong, #screen-consent b").count() == 0
    page.click("#consent-decline")
    assert person.run(stop=lambda s, o: s == "declined") == "declined"
    assert page.text_content("#app").strip() == UI_STRINGS["en"]["declined"]
    stored = page.evaluate("() => Object.keys(window.localStorage)")
    assert stored == []
    watched.assert_clean()


def test_window_too_small_is_said_before_the_start(tmp_path, watched):
    study = _build(
        tmp_path, task="rating", settings={**FAST, "min_width": 1400, "min_height": 600}
    )
    page = watched.page
    page.set_viewport_size({"width": 1100, "height": 800})
    page.goto((study / "offline" / "L01" / "index.html").resolve().as_uri())
    page.wait_for_selector("#screen-too-small")
    assert "1400 \u00d7 600" in page.text_content("#app")
    assert "1100 \u00d7 800" in page.text_content("#app")
    page.set_viewport_size({"width": 1500, "height": 800})
    page.wait_for_selector("#screen-welcome")
    watched.assert_clean()


def test_online_prolific_link_sends_ids_consent_and_answers(
    tmp_path, watched, server_process
):
    """Needs the collection server of contract C1 (POST /api/answers)."""
    from tests.browser.conftest import free_port

    completion = "http://127.0.0.1:9/complete?cc={code}"
    study = _build(
        tmp_path,
        task="rating",
        settings=_settings("en", completion_url=completion),
    )
    doc = load_document(study)
    server = server_process(study, tmp_path / "r.sqlite", free_port()).start()
    bodies = []
    page = watched.page
    page.on(
        "request",
        lambda r: bodies.append((r.url, r.post_data)) if r.method == "POST" else None,
    )
    page.goto(server.url + "?PROLIFIC_PID=pp1&STUDY_ID=st1&SESSION_ID=se1")
    person = Participant(page, doc, rate=lambda t: (0.5, 0.5))
    assert person.run(stop=lambda s, o: s == "consent") == "consent"
    page.click("#consent-agree")
    assert person.run(stop=lambda s, o: s == "questionnaire") == "questionnaire"
    page.fill("#q-age", "40")
    page.check("#q-gender input[value=male]")
    page.select_option("#q-education", "doctorate")
    page.fill("#q-field", "physics")
    page.check("#q-native input[value=no]")
    page.check("#q-proficiency input[value=fluent]")
    page.check("#q-colour_vision input[value=yes]")
    page.check("#q-hearing input[value=yes]")
    page.check("#q-handedness input[value=left]")
    page.click("#questionnaire-submit")
    person.last = ""
    assert person.run(stop=lambda s, o: s == "debrief") == "debrief"
    page.route(
        "http://127.0.0.1:9/**",
        lambda route: route.fulfill(body="<p>done</p>", content_type="text/html"),
    )
    page.click("#debrief-continue")
    page.wait_for_url("http://127.0.0.1:9/complete?cc=*")
    assert re.fullmatch(r"http://127\.0\.0\.1:9/complete\?cc=[A-Za-z0-9_-]+", page.url)
    session = next(b for u, b in bodies if u.endswith("/api/session"))
    assert '"study_id":"st1"' in session and '"external_session":"se1"' in session
    assert '"consent":true' in session and '"participant":"pp1"' in session
    answers = next(b for u, b in bodies if u.endswith("/api/answers"))
    assert '"screen":"demographics"' in answers and '"age":40' in answers


@pytest.mark.skipif(
    espeak_version() is None,
    reason="the sound check speaks its word with espeak-ng, which is not installed"
    " (apt-get install espeak-ng)",
)
def test_sound_check_and_full_screen_come_before_the_start(tmp_path, watched):
    study = _build(
        tmp_path,
        task="rating",
        settings={**FAST, "sound_check": "apple", "fullscreen": True},
    )
    assert (study / "web" / "audio" / "sound-check.wav").read_bytes()[:4] == b"RIFF"
    page = watched.page
    page.goto((study / "offline" / "L01" / "index.html").resolve().as_uri())
    page.wait_for_selector("#screen-fullscreen")
    page.click("#fullscreen-skip")
    page.wait_for_selector("#screen-sound-check")
    page.click("#sound-play")
    page.fill("#sound-answer", "apples")
    page.click("#sound-continue")
    assert page.text_content("#sound-hint") == UI_STRINGS["en"]["sound_wrong"]
    page.fill("#sound-answer", " Apple ")
    page.click("#sound-continue")
    page.wait_for_selector("#screen-welcome")
    watched.assert_clean(allow=("play",))


def test_a_link_without_the_required_id_is_refused_on_the_first_screen(
    tmp_path, watched
):
    """With --require-participant, a link without an ID is told so at once: not
    after consent, a questionnaire and Start (the server's ping says an ID is
    needed), and nothing reaches the server but the ping."""
    from stecflow.studies.server import make_server, read_responses

    study = _build(tmp_path, task="rating", settings=_settings("en"))
    doc = load_document(study)
    db = tmp_path / "responses.sqlite"
    options = {"db_path": db, "require_participant": True}
    with make_server(study, port=0, **options).start() as server:
        page = watched.page
        page.goto(server.url)
        person = Participant(page, doc)
        assert person.run() == "error"
        assert person.screens == [("error", "")]  # no consent, no questionnaire
        assert "needs your participant ID" in page.text_content("#error")
        page.goto(server.url + "?PROLIFIC_PID=P-7")  # with it: consent first
        person = Participant(page, doc)
        assert person.run(stop=lambda screen, order: screen == "consent") == "consent"
    assert read_responses(study, db_path=db) == []
    watched.assert_clean()

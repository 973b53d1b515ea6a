"""The page sends the participant ID of its link; a server can require one."""

from __future__ import annotations

import sqlite3

from stecflow.studies.server import make_server
from tests.browser.driver import Participant, load_document
from tests.browser.studykit import FAST, build_demo_study


def test_participant_id_from_the_link_is_required_and_stored(tmp_path, watched):
    study = build_demo_study(tmp_path, task="rating", settings=FAST)
    doc = load_document(study)
    db = tmp_path / "responses.sqlite"
    options = {"db_path": db, "require_participant": True}
    with make_server(study, port=0, **options).start() as server:
        page = watched.page
        page.goto(server.url)  # no ID in the link: the page says what is missing
        assert Participant(page, doc).run() == "error"
        assert "needs your participant ID" in page.text_content("#error")
        page.goto(server.url + "?pid=W-42")
        person = Participant(page, doc)
        assert person.run(stop=lambda screen, order: screen == "rating") == "rating"
    with sqlite3.connect(db) as connection:
        stored = connection.execute("SELECT participant FROM sessions").fetchall()
    assert stored == [("W-42",)]
    watched.assert_clean(allow=("status of 400",))


def test_a_latecomer_to_a_full_study_is_told_so_at_once(tmp_path, watched):
    # The study cap is final (409): the page says the study is full instead of
    # "waiting for the server" for ever, as it does for a server that is down.
    study = build_demo_study(tmp_path, task="rating", settings=FAST)
    doc = load_document(study)
    options = {"db_path": tmp_path / "responses.sqlite", "max_sessions": 1}
    with make_server(study, port=0, **options).start() as server:
        first = watched.page
        first.goto(server.url)
        assert Participant(first, doc).run(stop=lambda s, o: s == "rating") == "rating"
        late = first.context.browser.new_page()  # a new browser profile's tab
        late.goto(server.url)
        assert Participant(late, doc).run() == "error"
        assert "takes no more participants" in late.text_content("#error")
    watched.assert_clean(allow=("status of 409",))


def test_a_second_attempt_with_the_same_id_is_refused_in_the_study_language(
    tmp_path, watched
):
    # A participant who opens the link again in another browser profile gets a
    # second list otherwise; the refusal comes from the study's own catalogue.
    from stecflow.studies.strings import UI_STRINGS

    study = build_demo_study(
        tmp_path, task="rating", settings={**FAST, "language": "ja"}
    )
    doc = load_document(study)
    options = {"db_path": tmp_path / "responses.sqlite", "require_participant": True}
    with make_server(study, port=0, **options).start() as server:
        first = watched.page
        first.goto(server.url + "?PROLIFIC_PID=P-7")
        assert Participant(first, doc).run(stop=lambda s, o: s == "rating") == "rating"
        again = first.context.browser.new_page()  # a new browser profile's tab
        again.goto(server.url + "?PROLIFIC_PID=P-7")
        assert Participant(again, doc).run() == "error"
        assert again.text_content("#error") == UI_STRINGS["ja"]["already_started"]
    watched.assert_clean(allow=("status of 409",))

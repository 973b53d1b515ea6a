"""A lost answer to the page's session request does not lock its participant out.

The first ``POST api/session`` reaches the server (which opens the session) but
its answer is cut off; the page retries with the same attempt key and carries on
in the session the server opened (issue 38, point 3).
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from typing import Any

from stecflow.studies.server import make_server
from tests.browser.driver import Participant, load_document
from tests.browser.studykit import FAST, build_demo_study


def test_the_retry_of_a_lost_session_reply_gets_the_same_session(tmp_path, watched):
    study = build_demo_study(tmp_path, task="rating", settings=FAST)
    doc = load_document(study)
    db = tmp_path / "responses.sqlite"
    sent: list[dict[str, Any]] = []

    def lose_the_first_reply(route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        sent.append(route.request.post_data_json)
        if len(sent) == 1:
            assert route.fetch().status == 201  # the server opened the session,
            route.abort("connectionreset")  # and the page never hears of it
        else:
            route.continue_()

    options = {"db_path": db, "require_participant": True}
    with make_server(study, port=0, **options).start() as server:
        page = watched.page
        page.route("**/api/session", lose_the_first_reply)
        page.goto(server.url + "?pid=W-42")
        person = Participant(page, doc)
        assert person.run(stop=lambda screen, order: screen == "rating") == "rating"
        stored = page.evaluate(
            "Object.keys(localStorage).filter((k) => k.endsWith(':attempt'))"
            ".map((k) => JSON.parse(localStorage.getItem(k)))"
        )
    assert len(sent) == 2 and sent[0] == sent[1]  # the same request, sent again
    key = sent[0]["attempt"]
    assert re.fullmatch(r"[0-9a-f]{32}", key) and stored == [key]
    with sqlite3.connect(db) as connection:
        rows = connection.execute(
            "SELECT participant, attempt_sha256 FROM sessions"
        ).fetchall()
    assert rows == [("W-42", hashlib.sha256(key.encode()).hexdigest())]
    watched.assert_clean(allow=("net::ERR_CONNECTION_RESET", "net::ERR_FAILED"))

"""The rating trial (web/components/_grid.js and rating.js) in chromium.

One trial of a demo rating study: the description above the item's pictures,
the target framed, the Adequacy and Fluency sliders, "Next" locked until both
sliders are moved. The sliders are moved with the keyboard to their ends, so
the values are known (the hidden scale maps 0-1000 to 1-100). What the page
posts online (api/trial: the trial's opaque id, its order and exactly the
rating's result fields) and what it records offline (the saved row) are
checked, and the server stores the posted answer under the key's item and
system.
"""

from __future__ import annotations

from typing import Any

from stecflow.studies.server import make_server, read_responses
from tests.browser.driver import label_of, load_document, trial_of
from tests.browser.studykit import FAST, build_demo_study

#: What a rating trial's result holds (the page posts it with order and trial).
RESULT = {"adequacy", "fluency", "rt_ms"}


def _is_trial_post(response: Any) -> bool:
    return response.request.method == "POST" and response.url.endswith("/api/trial")


def _answer_first_trial(page: Any, trial: dict[str, Any]) -> None:
    """Check the first trial's screen, then set adequacy 100 and fluency 1."""
    page.wait_for_selector("body[data-screen=rating][data-order='1']")
    assert page.text_content("#description") == trial["description"]
    cells = page.locator("#grid .cell")
    assert cells.count() == len(trial["entities"])
    target = page.locator(f'#grid [data-entity="{label_of(trial, trial["target"])}"]')
    assert "target" in target.get_attribute("class").split()
    assert page.locator("#grid .cell.target").count() == 1
    assert page.is_disabled("#next")
    assert page.text_content(".hint") == "Move both sliders to go on."
    page.focus("#adequacy")
    page.keyboard.press("End")
    assert page.is_disabled("#next")  # one slider moved is not enough
    page.focus("#fluency")
    page.keyboard.press("Home")
    assert page.is_enabled("#next")
    page.click("#next")


def test_a_rating_trial_posts_its_sliders(tmp_path, watched):
    study = build_demo_study(tmp_path, task="rating", settings=FAST)
    doc = load_document(study)
    db = tmp_path / "responses.sqlite"
    page = watched.page
    with make_server(study, port=0, db_path=db).start() as server:
        page.goto(server.url + "?participant=P-042")
        page.click("#start")
        page.wait_for_selector("body[data-screen=rating][data-order='1']")
        list_id = page.evaluate("() => document.body.dataset.list")
        trial = trial_of(doc, list_id, 1)
        with page.expect_response(_is_trial_post) as answered:
            _answer_first_trial(page, trial)
        assert answered.value.status == 201  # stored
        body = answered.value.request.post_data_json
        rows = read_responses(study, db_path=db)
    assert set(body) == {"order", "trial", *RESULT}
    assert (body["order"], body["trial"]) == (1, trial["id"])
    assert (body["adequacy"], body["fluency"]) == (100, 1)
    assert 0 < body["rt_ms"] < 60_000
    [row] = [r for r in rows if r["order"] == 1]
    assert (row["item"], row["system"], row["practice"]) == (
        trial["item"],
        trial["system"],
        trial["practice"],
    )
    assert (row["adequacy"], row["fluency"], row["rt_ms"]) == (100, 1, body["rt_ms"])
    assert row["task"] == "rating" and row["participant"] == "P-042"
    watched.assert_clean()


def test_a_rating_trial_is_recorded_offline(tmp_path, watched):
    study = build_demo_study(tmp_path, task="rating", settings=FAST)
    doc = load_document(study)
    page = watched.page
    index = (study / "offline" / "L02" / "index.html").resolve().as_uri()
    page.goto(index + "?participant=lab-01")
    page.wait_for_selector("body[data-screen=welcome]")
    page.click("#start")
    _answer_first_trial(page, trial_of(doc, "L02", 1))
    page.wait_for_selector("body[data-screen=rating][data-order='2']")
    state = page.evaluate(
        """() => {
            const key = Object.keys(localStorage).find((k) => k.endsWith(':offline'));
            return JSON.parse(localStorage.getItem(key));
        }"""
    )
    [row] = state["rows"]
    columns = doc["columns"]
    assert set(row) == set(columns)
    assert (row["order"], row["practice"], row["list"]) == (1, True, "L02")
    assert (row["task"], row["participant"]) == ("rating", "lab-01")
    assert (row["adequacy"], row["fluency"]) == (100, 1)
    assert 0 < row["rt_ms"] < 60_000
    # the page knows no item, system or answer; the identification fields stay empty
    empty = (
        set(columns)
        - RESULT
        - {
            "study",
            "task",
            "session",
            "participant",
            "session_status",
            "list",
            "order",
            "practice",
        }
    )
    assert {name: row[name] for name in empty} == dict.fromkeys(empty)
    watched.assert_clean()

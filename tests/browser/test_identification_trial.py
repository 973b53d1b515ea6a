"""The identification trial (web/components/_grid.js and identification.js) in
chromium.

The trial's screens in order (start, fixation, blank, the description with the
pictures; with ``read_first`` the reading screen between), the practice's
feedback, and what the page posts online (api/trial: the trial's opaque id,
its order and exactly the identification's result fields) for a click on the
target, "can't tell", a wrong picture and a timeout; offline, the recorded
row. The page knows the picture labels only: the server maps them back.
"""

from __future__ import annotations

from typing import Any

from stecflow.studies.server import make_server, read_responses
from tests.browser.driver import label_of, load_document, trial_of
from tests.browser.studykit import FAST, build_demo_study

#: What an identification trial's result holds (posted with order and trial).
RESULT = {
    "chosen_entity",
    "cant_tell",
    "timeout",
    "reading_time_ms",
    "identification_time_ms",
    "rt_ms",
    "audio_onset_ms",
    "click_x",
    "click_y",
}
#: Feedback long enough to be seen by the test.
SETTINGS = {**FAST, "cant_tell": True, "feedback_ms": 600, "timeout_ms": 3000}


def _is_trial_post(response: Any) -> bool:
    return response.request.method == "POST" and response.url.endswith("/api/trial")


def _screens(page: Any) -> None:
    """Record every screen the page shows, in order, in window.screens."""
    page.add_init_script(
        """new MutationObserver(() => {
            const s = document.body && document.body.dataset.screen;
            window.screens = window.screens || [];
            if (s && window.screens[window.screens.length - 1] !== s) window.screens.push(s);
        }).observe(document, { attributes: true, subtree: true,
                               attributeFilter: ['data-screen'] });"""
    )


def _answer(
    page: Any, order: int, act: Any, feedback: str | None = None
) -> tuple[dict[str, Any], str | None]:
    """Start trial *order*, *act* on its answer screen (in the practice, wait for
    the feedback of class *feedback*); the posted body and the feedback shown."""
    page.wait_for_selector(f"body[data-screen=ready][data-order='{order}']")
    with page.expect_response(_is_trial_post, timeout=20_000) as answered:
        page.keyboard.press("Space")
        page.wait_for_selector(f"body[data-screen=identify][data-order='{order}']")
        act()
        said = None
        if feedback is not None:
            page.wait_for_selector(f"#feedback.{feedback}")
            said = page.text_content("#feedback")
    assert answered.value.status == 201  # stored
    return answered.value.request.post_data_json, said


def test_identification_trials_post_their_answers(tmp_path, watched):
    study = build_demo_study(
        tmp_path, task="identification", variant="together", settings=SETTINGS
    )
    doc = load_document(study)
    db = tmp_path / "responses.sqlite"
    page = watched.page
    _screens(page)
    with make_server(study, port=0, db_path=db).start() as server:
        page.goto(server.url + "?participant=P-007")
        page.click("#start")
        page.wait_for_selector("body[data-screen=ready][data-order='1']")
        list_id = page.evaluate("() => document.body.dataset.list")
        trials = {k: trial_of(doc, list_id, k) for k in (1, 2, 3, 4)}
        assert [trials[k]["practice"] for k in (1, 2, 3)] == [True, True, False]

        # 1 (practice): the target, clicked; the feedback says it was right
        first = trials[1]
        target = f'#grid [data-entity="{label_of(first, first["target"])}"]'

        def click_target() -> None:
            assert page.text_content("#description") == first["description"]
            assert page.locator("#grid .cell").count() == len(first["entities"])
            assert page.locator("#grid .cell.target").count() == 0  # not marked
            page.click(target)

        one, said = _answer(page, 1, click_target, "good")
        assert said == "Correct."
        # 2 (practice): can't tell; the feedback says it was meant to be clear
        two, said = _answer(page, 2, lambda: page.click("#cant-tell"), "bad")
        assert said is not None and "meant to be clear" in said
        page.wait_for_selector("body[data-screen=practice-over]")
        page.click("#continue")
        # 3: a wrong picture; 4: no answer until the timeout
        third = trials[3]
        wrong = next(e["id"] for e in third["entities"] if e["id"] != third["target"])
        three, _ = _answer(
            page,
            3,
            lambda: page.click(f'#grid [data-entity="{label_of(third, wrong)}"]'),
        )
        four, _ = _answer(page, 4, lambda: None)
        page.wait_for_selector("body[data-screen=ready][data-order='5']")
        screens = page.evaluate("() => window.screens")
        rows = {r["order"]: r for r in read_responses(study, db_path=db)}
    # a trial's screens: start, fixation, blank, pictures, (practice) feedback
    first_trial = screens.index("ready")
    assert screens[first_trial : first_trial + 6] == [
        "ready",
        "fixation",
        "blank",
        "identify",
        "feedback",
        "ready",
    ], screens
    for order, body in ((1, one), (2, two), (3, three), (4, four)):
        assert set(body) == {"order", "trial", *RESULT}, order
        assert (body["order"], body["trial"]) == (order, trials[order]["id"])
        assert body["reading_time_ms"] is None and body["audio_onset_ms"] is None
    # the target, clicked at its centre: the label, the time, the click position
    assert one["chosen_entity"] == label_of(first, first["target"])
    assert (one["cant_tell"], one["timeout"]) == (False, False)
    assert 0 < one["identification_time_ms"] < SETTINGS["timeout_ms"]
    assert one["rt_ms"] == one["identification_time_ms"]
    assert abs(one["click_x"] - 0.5) < 0.05 and abs(one["click_y"] - 0.5) < 0.05
    # can't tell: no picture, no position
    assert (two["chosen_entity"], two["cant_tell"], two["timeout"]) == (
        None,
        True,
        False,
    )
    assert two["click_x"] is None and two["click_y"] is None
    assert 0 < two["rt_ms"] == two["identification_time_ms"]
    assert three["chosen_entity"] == label_of(third, wrong)
    # the timeout: nothing chosen, no time
    assert four["timeout"] is True and four["chosen_entity"] is None
    assert four["identification_time_ms"] is None and four["rt_ms"] is None
    # the server maps the labels back and marks the answers
    assert (rows[1]["chosen_entity"], rows[1]["correct"]) == (first["target"], True)
    assert rows[2]["cant_tell"] is True and rows[2]["correct"] is False
    assert (rows[3]["chosen_entity"], rows[3]["correct"]) == (wrong, False)
    assert rows[4]["timeout"] is True and rows[4]["correct"] is None
    watched.assert_clean()


def test_a_read_first_trial_records_the_reading_time_offline(tmp_path, watched):
    study = build_demo_study(
        tmp_path, task="identification", variant="read_first", settings=SETTINGS
    )
    doc = load_document(study)
    trial = trial_of(doc, "L01", 1)
    page = watched.page
    page.goto((study / "offline" / "L01" / "index.html").resolve().as_uri())
    page.click("#start")
    page.wait_for_selector("body[data-screen=ready][data-order='1']")
    page.click("#start-trial")
    page.wait_for_selector("body[data-screen=reading][data-order='1']")
    assert page.text_content("#description") == trial["description"]
    assert page.locator("#grid").count() == 0  # the pictures come after reading
    page.wait_for_timeout(150)
    page.click("#show-pictures")
    page.wait_for_selector("body[data-screen=identify][data-order='1']")
    # the description stays above the pictures unless hide_description
    shown = page.locator("#description").count()
    assert shown == (0 if doc["settings"]["hide_description"] else 1)
    page.click(f'#grid [data-entity="{label_of(trial, trial["target"])}"]')
    page.wait_for_selector("body[data-screen=ready][data-order='2']")
    state = page.evaluate(
        """() => {
            const key = Object.keys(localStorage).find((k) => k.endsWith(':offline'));
            return JSON.parse(localStorage.getItem(key));
        }"""
    )
    [row] = state["rows"]
    assert set(row) == set(doc["columns"])
    assert (row["order"], row["practice"], row["variant"]) == (1, True, "read_first")
    assert row["chosen_entity"] == label_of(trial, trial["target"])
    assert (row["cant_tell"], row["timeout"]) == (False, False)
    assert row["reading_time_ms"] >= 150
    assert row["rt_ms"] == round(
        row["reading_time_ms"] + row["identification_time_ms"], 1
    )
    # the page knows no item, system or answer: the judgments stage fills them in
    assert (row["item"], row["system"], row["target_entity"], row["correct"]) == (
        None,
        None,
        None,
        None,
    )
    assert row["adequacy"] is None and row["fluency"] is None
    watched.assert_clean()

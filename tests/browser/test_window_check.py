"""``experiment.check_window`` in chromium (issue 39, point 3).

Each study kind's minimum window (``StudyKind.min_window``) fits every trial of a list:
at the minimum (and as wide as a laptop at the minimum height) no scrolling is
needed to reach the answer controls and the pictures keep the size the minimum
was measured with. A 1366 x 768 laptop's browser window (1366 x 657) passes the
check of the picture-grid trials and reaches the first trial, also with
``fullscreen: true``; a smaller window gets the too-small screen, offered full
screen first (and again on the too-small screen), and goes on once enlarged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from stecflow.studies.designs import latin_square_design
from stecflow.studies.designs.pairs import pair_design
from stecflow.studies.text import build_text_study
from stecflow.studykinds.registry import kinds
from tests.browser.driver import Participant, load_document
from tests.browser.studykit import FAST, build_demo_study, build_situated_demo

#: Each kind's declared minimum window (StudyKind.min_window).
MIN_WINDOW = {kind.name: kind.min_window for kind in kinds()}
LAPTOP = (1366, 657)
#: The smallest picture and board the minimum windows were measured with
#: (StudyKind.min_window): half the 120 px cell, half the 480 px board.
MIN_CELL, MIN_BOARD = 60, 240

FIT = """() => {
  const seen = (e) => e.getClientRects().length > 0
    && getComputedStyle(e).visibility !== 'hidden';
  const root = document.scrollingElement;
  const outside = [...document.querySelectorAll(
      '#app button, #app input, #app .cell, #app .board, #app .ends span')]
    .filter(seen).filter((e) => { const r = e.getBoundingClientRect();
      return r.left < -0.5 || r.top < -0.5 || r.right > innerWidth + 0.5
        || r.bottom > innerHeight + 0.5; })
    .map((e) => e.id || e.className);
  const sizes = (q) => [...document.querySelectorAll(q)].filter(seen)
    .map((e) => e.getBoundingClientRect());
  return {
    size: [innerWidth, innerHeight],
    scroll: [root.scrollWidth, root.scrollHeight],
    outside: outside,
    cell: Math.min(9999, ...sizes('#app .cell').map((r) => r.width)),
    board: Math.min(9999, ...sizes('#app .board').map((r) => r.height)),
  };
}"""


def assert_fits(page: Any, task: str, where: str) -> None:
    """At the task's minimum and at a laptop's width: nothing to scroll to."""
    width, height = MIN_WINDOW[task]
    for size in ((width, height), (LAPTOP[0], height)):
        page.set_viewport_size({"width": size[0], "height": size[1]})
        m = page.evaluate(FIT)
        tag = (task, where, size)
        assert m["size"] == list(size), tag
        assert m["scroll"][0] <= size[0] and m["scroll"][1] <= size[1], (tag, m)
        assert m["outside"] == [], (tag, m)
        assert m["cell"] >= MIN_CELL and m["board"] >= MIN_BOARD, (tag, m)
    page.set_viewport_size({"width": width, "height": height})


def _open(page: Any, web: Path, size: tuple[int, int], query: str = "") -> None:
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(
        (web.parent / "offline" / "L01" / "index.html").resolve().as_uri() + query
    )


SLOW = {**FAST, "timeout_ms": 60_000, "break_every": 100, "check_window": True}


def test_the_laptop_window_passes_the_picture_grid_checks():
    for task in ("rating", "identification"):
        width, height = MIN_WINDOW[task]
        assert width <= LAPTOP[0] and height <= LAPTOP[1], task


@pytest.mark.parametrize(
    ("task", "variant"),
    [
        ("rating", None),
        ("identification", "together"),
        ("identification", "read_first"),
    ],
)
def test_reg_trials_fit_their_minimum_window(tmp_path, watched, task, variant):
    settings = {**SLOW, "cant_tell": task == "identification"}
    web = build_demo_study(tmp_path, task=task, variant=variant, settings=settings)
    doc = load_document(web)
    assert (doc["settings"]["min_width"], doc["settings"]["min_height"]) == (
        MIN_WINDOW[task]
    )
    page = watched.page
    _open(page, web / "web", MIN_WINDOW[task], "?list=L01")
    seen: list[str] = []

    def check(screen: str, order: str) -> bool:
        if screen in ("rating", "ready", "reading", "identify"):
            if screen in ("rating", "identify"):
                page.wait_for_function(
                    "() => [...document.querySelectorAll('#grid img')]"
                    ".every(i => i.complete)"
                )
            assert_fits(page, task, f"{screen}{order}")
            seen.append(screen)
        return False

    assert Participant(page, doc).run(stop=check) == "done"
    trials = len(doc["lists"][0]["trials"])
    assert seen.count("rating" if task == "rating" else "identify") == trials
    watched.assert_clean()


def test_situated_trials_fit_their_minimum_window(tmp_path, watched):
    task = "situated_identification"
    web = build_situated_demo(tmp_path, speed=8.0, settings={"check_window": True})
    page = watched.page
    _open(page, web, MIN_WINDOW[task])
    page.click("#start")
    for order in (1, 2, 3):
        page.wait_for_selector(
            f"body[data-screen=situated-context][data-order='{order}']"
        )
        assert_fits(page, task, f"context{order}")
        page.click("#play")
        page.wait_for_function(
            """() => document.body.dataset.screen === 'situated-identify'
                  && document.body.dataset.playing === '0'""",
            timeout=60_000,
        )
        assert_fits(page, task, f"identify{order}")
        page.click("#dont-know")
    watched.assert_clean()


@pytest.mark.parametrize("task", ["text_rating", "text_preference"])
def test_text_trials_fit_their_minimum_window(tmp_path, watched, task):
    from tests.browser.test_text_trials import (
        ITEMS,
        OUTPUTS,
        PREFERENCE,
        RATING,
        SYSTEMS,
    )

    items = ["t1", "t2", "t3"]
    if task == "text_rating":
        design = latin_square_design(SYSTEMS, items, subjects=3, seed=2011, study="tr")
    else:
        design = pair_design(SYSTEMS, items, subjects=6, seed=2012, study="tp")
    web = tmp_path / "web"
    build_text_study(
        design,
        ITEMS,
        OUTPUTS,
        task=task,
        criteria=RATING if task == "text_rating" else PREFERENCE,
        out_dir=web,
        settings={"check_window": True},
    )
    page = watched.page
    _open(page, web, MIN_WINDOW[task], "?list=L01")
    page.click("#start")
    screen = task.replace("_", "-")
    for order in (1, 2, 3):
        page.wait_for_selector(f"body[data-screen={screen}][data-order='{order}']")
        assert_fits(page, task, f"trial{order}")
        if task == "text_rating":
            page.click("label[for=rating_fluency-3]")
            page.focus("#rating_adequacy")
            page.keyboard.press("ArrowRight")
            page.click("#next")
        else:
            page.click("button.choose >> nth=0")
            if page.is_visible("#next"):
                page.click("#next")
    page.wait_for_selector("body[data-screen=done]")
    watched.assert_clean()


@pytest.mark.parametrize("fullscreen", [False, True], ids=["window", "fullscreen"])
@pytest.mark.parametrize("task", ["rating", "identification"])
def test_a_laptop_window_reaches_the_first_trial(tmp_path, watched, task, fullscreen):
    settings = {**SLOW, "fullscreen": fullscreen}
    study = build_demo_study(tmp_path, task=task, settings=settings)
    page = watched.page
    _open(page, study / "web", LAPTOP, "?list=L01")
    if fullscreen:
        page.wait_for_selector("#screen-fullscreen")
        page.click("#fullscreen-skip")
    page.wait_for_selector("#screen-welcome")
    page.click("#start")
    first = "rating" if task == "rating" else "ready"
    page.wait_for_selector(f"body[data-screen={first}][data-order='1']")
    if task == "identification":
        page.click("#start-trial")
        page.wait_for_selector("body[data-screen=identify][data-order='1']")
    m = page.evaluate(FIT)
    assert m["scroll"] == list(LAPTOP) and m["outside"] == [], m
    watched.assert_clean()


def test_a_small_window_is_offered_full_screen_and_goes_on_when_enlarged(
    tmp_path, watched
):
    study = build_demo_study(
        tmp_path, task="rating", settings={**SLOW, "fullscreen": True}
    )
    page = watched.page
    width, height = MIN_WINDOW["rating"]
    _open(page, study / "web", (width - 1, 600), "?list=L01")
    # full screen first: it may be what makes the window large enough
    page.wait_for_selector("#screen-fullscreen")
    page.click("#fullscreen-skip")
    page.wait_for_selector("#screen-too-small")
    text = page.text_content("#app")
    assert f"{width} \u00d7 {height}" in text and f"{width - 1} \u00d7 600" in text
    # offered again on the too-small screen
    assert page.is_visible("#too-small-fullscreen") == page.evaluate(
        "() => Boolean(document.fullscreenEnabled && !document.fullscreenElement)"
    )
    page.click("#screen-retry")
    page.wait_for_selector("#screen-too-small")
    page.set_viewport_size({"width": LAPTOP[0], "height": LAPTOP[1]})
    page.wait_for_selector("#screen-welcome")
    page.click("#start")
    page.wait_for_selector("body[data-screen=rating][data-order='1']")
    watched.assert_clean()


def test_the_too_small_screen_goes_full_screen(tmp_path, watched):
    study = build_demo_study(tmp_path, task="rating", settings=SLOW)
    page = watched.page
    _open(page, study / "web", (800, 500), "?list=L01")
    page.wait_for_selector("#screen-too-small")
    if not page.evaluate("() => Boolean(document.fullscreenEnabled)"):
        pytest.skip("this chromium cannot go full screen")
    page.click("#too-small-fullscreen")
    page.wait_for_function("() => Boolean(document.fullscreenElement)")
    # full screen but still too small (a headless window keeps its size): the
    # screen is shown again, without the full-screen button
    page.wait_for_selector("#screen-too-small")
    page.wait_for_function("() => !document.querySelector('#too-small-fullscreen')")
    page.set_viewport_size({"width": LAPTOP[0], "height": LAPTOP[1]})
    page.wait_for_selector("#screen-welcome")
    watched.assert_clean()

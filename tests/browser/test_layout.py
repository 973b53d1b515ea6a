"""Every screen of every trial kind on real screen sizes, in chromium.

At a laptop's 1366x768 (also in the 1366x657 a browser window leaves of it) and a
desktop's 1920x1080 each screen fits the window: no scrolling at all, every
control, slider label and picture inside the window. On a 400x800 phone nothing is wider than the window (no sideways scrolling, every
picture of the grid inside it) and a long screen may scroll down. On every size no
two named elements overlap (the header with the progress bar, the status footer,
the screen's parts and its controls), and the picture grid has no hover frame
until the pointer really moves (pictures appearing under a still pointer are not
highlighted). Screenshots go to ``/tmp/layout-<kind>-<screen>-<size>.png``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from stecflow.studies.designs import latin_square_design
from stecflow.studies.designs.pairs import pair_design
from stecflow.studies.speech import espeak_version
from stecflow.studies.text import build_text_study
from tests.browser.driver import Participant, label_of, load_document
from tests.browser.studykit import FAST, build_demo_study, build_situated_demo

#: A laptop's and a desktop's screen, the window a browser leaves on the laptop
#: (its tab bar, address bar and the system's task bar take about 110 px), a phone.
SIZES = [(1366, 768), (1920, 1080), (1366, 657), (400, 800)]
SHOTS = os.environ.get("STECFLOW_LAYOUT_SHOTS", "/tmp")
#: Frame colour of a picture under the pointer (experiment.css).
HOVER = "rgb(187, 187, 187)"

MEASURE = """() => {
  const seen = (e) => e.getClientRects().length > 0
    && getComputedStyle(e).visibility !== 'hidden';
  const name = (e) => e.id ? '#' + e.id
    : e.tagName.toLowerCase() + '.' + [...e.classList].join('.')
      + '[' + [...e.parentNode.children].indexOf(e) + ']'
      + (e.parentNode.id ? '@' + e.parentNode.id : '');
  const box = (e) => { const r = e.getBoundingClientRect();
    return [name(e), r.left, r.top + scrollY, r.right, r.bottom + scrollY]; };
  const screen = document.querySelector('#app > .screen');
  const parts = [document.querySelector('#header'), document.querySelector('#status'),
                 ...(screen ? screen.children : [])].filter(seen);
  const controls = [...document.querySelectorAll(
      '#app button, #app input, #app select, #app label, #app .ends span, '
      + '#app .cell, #progress-box, #app .answers, #app .board, #app .transcript')]
    .filter(seen);
  const pairs = [];
  for (const group of [parts, controls])
    for (let i = 0; i < group.length; i++)
      for (let j = i + 1; j < group.length; j++) {
        const a = group[i], b = group[j];
        if (a.contains(b) || b.contains(a)) continue;
        const p = a.getBoundingClientRect(), q = b.getBoundingClientRect();
        const dx = Math.min(p.right, q.right) - Math.max(p.left, q.left);
        const dy = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
        if (dx > 0.5 && dy > 0.5) pairs.push([name(a), name(b)]);
      }
  const root = document.scrollingElement;
  return {
    width: innerWidth, height: innerHeight,
    scrollWidth: root.scrollWidth, scrollHeight: root.scrollHeight,
    parts: parts.map(box), controls: controls.map(box), overlaps: pairs,
  };
}"""


def check_screen(page: Any, kind: str, screen: str, size: tuple[int, int]) -> dict:
    """Assert the layout rules for the screen on display; return the measurements."""
    page.evaluate("() => window.scrollTo(0, 0)")
    tag = f"{kind}-{screen}-{size[0]}x{size[1]}"
    page.screenshot(path=f"{SHOTS}/layout-{tag}.png", full_page=True)
    m = page.evaluate(MEASURE)
    assert (m["width"], m["height"]) == size
    assert m["overlaps"] == [], (tag, m["overlaps"])
    assert m["scrollWidth"] <= m["width"], (tag, "sideways scrolling", m["scrollWidth"])
    phone = size[0] < 600
    if not phone:
        assert m["scrollHeight"] <= m["height"], (tag, "scrolls", m["scrollHeight"])
    bottom = m["scrollHeight"] if phone else m["height"]
    for name, left, top, right, bottom_ in m["parts"] + m["controls"]:
        assert left >= -0.5 and right <= m["width"] + 0.5, (tag, name, left, right)
        assert top >= -0.5 and bottom_ <= bottom + 0.5, (tag, name, top, bottom_)
    # the whole picture grid is in the window at once, also on the phone (the
    # pictures scaled down, never cut off, no scrolling to reach one)
    for name, *_, bottom_ in m["controls"]:
        if ".cell" in name:
            assert bottom_ <= m["height"] + 0.5, (tag, name, bottom_)
    return m


def _size_id(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


@pytest.fixture(scope="module")
def studies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The web folders of one study of each trial kind (built once)."""
    root = tmp_path_factory.mktemp("layout")
    slow = {**FAST, "timeout_ms": 60_000, "break_every": 2}
    built = {
        "rating": build_demo_study(root / "r", task="rating", settings=slow),
        "together": build_demo_study(
            root / "t",
            task="identification",
            variant="together",
            settings={**slow, "cant_tell": True},
        ),
        "read_first": build_demo_study(
            root / "f", task="identification", variant="read_first", settings=slow
        ),
    }
    if espeak_version() is not None:
        built["spoken"] = build_demo_study(
            root / "s", task="identification", variant="spoken", settings=slow
        )
    built = {k: v / "web" for k, v in built.items()}
    built["situated"] = build_situated_demo(root / "situated", speed=4.0)
    built["text_rating"], built["text_preference"] = _text_studies(root)
    return built


def _text_studies(root: Path) -> tuple[Path, Path]:
    from tests.browser.test_text_trials import (
        ITEMS,
        OUTPUTS,
        PREFERENCE,
        RATING,
        SYSTEMS,
    )

    webs = []
    for task, design, criteria in (
        (
            "text_rating",
            latin_square_design(
                SYSTEMS, ["t1", "t2", "t3"], subjects=3, seed=2011, study="tr"
            ),
            RATING,
        ),
        (
            "text_preference",
            pair_design(SYSTEMS, ["t1", "t2", "t3"], subjects=6, seed=2012, study="tp"),
            PREFERENCE,
        ),
    ):
        web = root / task / "web"
        build_text_study(
            design,
            ITEMS,
            OUTPUTS,
            task=task,
            criteria=criteria,
            out_dir=web,
            settings={"break_every": 2},
        )
        webs.append(web)
    return webs[0], webs[1]


def _open(page: Any, web: Path, size: tuple[int, int], query: str = "") -> None:
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(
        (web.parent / "offline" / "L01" / "index.html").resolve().as_uri() + query
    )
    page.wait_for_selector("body[data-screen=welcome]")


REG = ["rating", "together", "read_first", "spoken"]


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
@pytest.mark.parametrize("kind", REG)
def test_reg_screens_fit(studies, watched, kind, size):
    """Every screen of a whole REG session (practice, breaks, the end)."""
    if kind not in studies:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng)")
    web = studies[kind]
    page = watched.page
    _open(page, web, size, "?list=L01")
    doc = load_document(web.parent)
    checked: list[str] = []

    def check(screen: str, order: str) -> bool:
        if screen not in checked or screen in ("rating", "identify", "reading"):
            if screen in ("identify", "rating"):
                page.wait_for_function(
                    "() => [...document.querySelectorAll('#grid img')]"
                    ".every(i => i.complete)"
                )
            check_screen(page, kind, screen if screen not in checked else "x", size)
            checked.append(screen)
        return False

    person = Participant(page, doc, list_choice=None)
    assert person.run(stop=check) == "done"
    check_screen(page, kind, "done", size)
    expected = {"welcome", "practice-over", "break"}
    expected |= {"rating"} if kind == "rating" else {"ready", "identify"}
    if kind == "read_first":
        expected.add("reading")
    assert expected <= set(checked), checked
    watched.assert_clean()


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
def test_situated_screens_fit(studies, watched, size):
    page = watched.page
    _open(page, studies["situated"], size)
    check_screen(page, "situated", "welcome", size)
    page.click("#start")
    page.wait_for_selector("body[data-screen=situated-context][data-order='1']")
    check_screen(page, "situated", "context", size)
    page.click("#play")
    page.wait_for_function(
        """() => document.body.dataset.screen === 'situated-identify'
              && document.body.dataset.playing === '0'"""
    )
    m = check_screen(page, "situated", "identify", size)
    names = [p[0] for p in m["controls"]]
    assert "#board" in names and "#dont-know" in names and "#transcript" in names
    if size[0] < 600:  # a phone has no pointer to hover with
        page.click("#dont-know")
        page.wait_for_selector("body[data-screen=situated-context][data-order='2']")
        watched.assert_clean()
        return
    # answer on the board: the next board appears under the still pointer
    square = page.locator("#board g.piece[data-piece='SQ'] polygon").bounding_box()
    x, y = square["x"] + square["width"] / 2, square["y"] + square["height"] / 2
    page.mouse.click(x, y)
    page.wait_for_selector("body[data-screen=situated-context][data-order='2']")
    page.wait_for_timeout(300)  # the browser updates hover after layout
    under = f"document.elementFromPoint({x}, {y}).closest('g.piece')"
    assert page.evaluate(f"() => {under}.matches(':hover')")
    width = f"() => getComputedStyle({under}.querySelector('polygon')).strokeWidth"
    assert page.evaluate(width) == "1.5px"  # no frame before the pointer moves
    page.mouse.move(x + 1, y + 1)
    assert page.evaluate(width) == "4px"
    watched.assert_clean()


@pytest.mark.parametrize("size", SIZES, ids=_size_id)
@pytest.mark.parametrize("kind", ["text_rating", "text_preference"])
def test_text_screens_fit(studies, watched, kind, size):
    page = watched.page
    _open(page, studies[kind], size, "?list=L01")
    check_screen(page, kind, "welcome", size)
    page.click("#start")
    screen = kind.replace("_", "-")
    for order in (1, 2, 3):
        page.wait_for_selector(f"body[data-screen={screen}][data-order='{order}']")
        m = check_screen(page, kind, f"trial{order}", size)
        names = [p[0] for p in m["controls"]]
        if kind == "text_rating":
            assert {"#next", "#rating_adequacy"} <= set(names), names
            # both ends of both scales (inside the window: checked above)
            assert sum(n.startswith("span.[") for n in names) == 4, names
            page.click("label[for=rating_fluency-3]")
            page.focus("#rating_adequacy")
            page.keyboard.press("ArrowRight")
            page.click("#next")
        else:
            page.click("button.choose >> nth=0")
            if page.is_visible("#next"):
                page.click("#next")
        if order == 2:
            page.wait_for_selector("body[data-screen=break]")
            check_screen(page, kind, "break", size)
            page.click("#continue")
    page.wait_for_selector("body[data-screen=done]")
    check_screen(page, kind, "done", size)
    watched.assert_clean()


def _cell_frames(page: Any) -> list[str]:
    return page.evaluate(
        "() => [...document.querySelectorAll('#grid .cell')]"
        ".map(c => getComputedStyle(c).borderTopColor)"
    )


@pytest.mark.parametrize("size", [SIZES[0]], ids=_size_id)
def test_no_hover_frame_before_the_pointer_moves(studies, watched, size):
    """Pictures appearing under a still pointer get no frame; a real move gives one."""
    web = studies["together"]
    doc = load_document(web.parent)
    page = watched.page
    _open(page, web, size, "?list=L01")
    page.click("#start")
    person = Participant(page, doc)
    # the first trial: learn where the grid is (the same 5 x 3 grid every trial)
    assert person.next_screen()[0] == "ready"
    page.keyboard.press("Space")
    page.wait_for_selector("body[data-screen=identify]")
    grid = page.locator("#grid").bounding_box()
    cell = page.locator("#grid .cell").first.bounding_box()
    step = cell["width"] + 6
    lst = next(x for x in doc["lists"] if x["list"] == "L01")
    second = next(t for t in lst["trials"] if t["order"] == 2)
    entity = second["entities"][0]
    x = grid["x"] + (entity["x"] - 1) * step + cell["width"] / 2
    y = grid["y"] + (entity["y"] - 1) * step + cell["height"] / 2
    first = lst["trials"][0]
    page.click(f'#grid [data-entity="{label_of(first, first["target"])}"]')
    # the second trial: the pointer rests where a picture will appear
    page.wait_for_selector("body[data-screen=ready][data-order='2']")
    page.mouse.move(x, y)
    page.keyboard.press("Space")
    page.wait_for_selector("body[data-screen=identify][data-order='2']")
    page.wait_for_timeout(300)  # the browser updates hover after layout
    under = page.evaluate(
        f"() => document.elementFromPoint({x}, {y}).closest('.cell').dataset.entity"
    )
    assert under == label_of(second, entity["id"])
    assert page.evaluate(f"() => document.elementFromPoint({x}, {y}).matches(':hover')")
    assert set(_cell_frames(page)) == {"rgba(0, 0, 0, 0)"}
    page.screenshot(path=f"{SHOTS}/layout-hover-still.png")
    page.mouse.move(x + 4, y + 3)
    frames = _cell_frames(page)
    index = [e["id"] for e in second["entities"]].index(entity["id"])
    assert frames[index] == HOVER
    assert frames.count(HOVER) == 1
    page.screenshot(path=f"{SHOTS}/layout-hover-moved.png")
    watched.assert_clean()

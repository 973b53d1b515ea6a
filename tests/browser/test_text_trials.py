"""The text-rating and text-preference trials (stecflow.studies.text) in chromium.

Offline (``file://``) sessions of one list each, at a laptop's 1366x768 and a
phone's 400x800: a Likert answer, a direct-assessment slider that must be moved
before "Next" (moved with the keyboard to known values), a preference with left
and right recorded as system names, a tie; the saved TSV's columns and rows are
checked against the study document. Every stimulus shows its input: a triple
table, plain text, the organiser's HTML (sanitised). Screenshots of each trial
are saved in the test's folder.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from stecflow.data.model import Domain, Item, Output
from stecflow.studies.designs import latin_square_design
from stecflow.studies.designs.pairs import pair_design
from stecflow.studies.settings import RESPONSE_COLUMNS
from stecflow.studies.text import PREFERENCE_COLUMNS, build_text_study

SYSTEMS = ["organisers/template", "organisers/rules", "organisers/weak"]
ITEMS = [
    Item(
        "t1",
        Domain(()),
        "all",
        input=[
            ("Alan_Bean", "birthPlace", "Wheeler,_Texas"),
            ("Alan_Bean", "occupation", "Test_pilot"),
        ],
    ),
    Item(
        "t2",
        Domain(()),
        "all",
        input="The cat sat on the mat while the sun shone over the quiet garden.",
    ),
    Item(
        "t3",
        Domain(()),
        "all",
        input={
            "html": '<p onclick="x()">Today\'s <b>menu</b><script>bad()</script></p>'
            '<table><tr><th>Dish</th><td colspan="2" style="color:red">Soup</td></tr>'
            "</table>"
        },
    ),
]
OUTPUTS = {
    "organisers/template": [
        Output("t1", "Alan Bean, born in Wheeler, Texas, was a test pilot."),
        Output("t2", "A cat sat on the mat in the sunny, quiet garden."),
        Output("t3", "Today the menu has soup."),
    ],
    "organisers/rules": {
        "t1": "Alan Bean was born in Wheeler. He is a test pilot.",
        "t2": "The cat sat on the mat.",
        "t3": "Soup is on the menu.",
    },
    "organisers/weak": {"t1": "Alan Bean Texas.", "t2": "Cat mat sun.", "t3": "Soup."},
}
RATING = [
    {
        "id": "fluency",
        "question": "How fluent is the text?",
        "scale": "likert",
        "points": 5,
        "anchors": ["Not fluent at all", "Perfectly fluent"],
    },
    {
        "id": "adequacy",
        "question": "Does the text say what the data says?",
        "scale": "slider",
        "anchors": ["Not at all", "Completely"],
    },
]
PREFERENCE = [{"id": "overall", "question": "Which text is better?", "allow_tie": True}]
VIEWPORTS = [(1366, 768), (400, 800)]


def _build(root: Path, task: str, settings=None) -> tuple[Path, dict]:
    if task == "text_rating":
        design = latin_square_design(
            SYSTEMS, ["t1", "t2", "t3"], subjects=3, seed=2011, study="text-rating"
        )
        criteria = RATING
    else:
        design = pair_design(
            SYSTEMS, ["t1", "t2", "t3"], subjects=6, seed=2012, study="text-preference"
        )
        criteria = PREFERENCE
    web = root / task / "web"
    build_text_study(
        design,
        ITEMS,
        OUTPUTS,
        task=task,
        criteria=criteria,
        out_dir=web,
        settings={"break_every": 0, **(settings or {})},
    )
    # the whole document: the study's key, beside web/
    document = json.loads((web.parent / "stimuli-key.json").read_text(encoding="utf-8"))
    return web, document


def _start(page, web: Path, size) -> None:
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto((web.parent / "offline" / "L01" / "index.html").resolve().as_uri())
    page.wait_for_selector("body[data-screen=welcome]")
    page.click("#start")


def _fits(page) -> None:
    """Nothing is wider than the window (no sideways scrolling)."""
    assert page.evaluate(
        "() => document.documentElement.scrollWidth <= window.innerWidth"
    )


def _input_shown(page, item: str) -> None:
    kind = page.get_attribute("#input", "data-kind")
    if item == "t1":
        assert kind == "triples"
        assert page.locator("#input thead th").all_text_contents() == [
            "Subject",
            "Predicate",
            "Object",
        ]
        rows = page.locator("#input tbody tr")
        assert rows.count() == 2
        assert rows.nth(0).locator("td").all_text_contents() == [
            "Alan_Bean",
            "birthPlace",
            "Wheeler,_Texas",
        ]
    elif item == "t2":
        assert kind == "text"
        assert page.text_content("#input .input-text") == (
            "The cat sat on the mat while the sun shone over the quiet garden."
        )
    else:
        assert kind == "html"
        assert page.text_content("#snippet p") == "Today's menu"
        assert page.text_content("#snippet p b") == "menu"
        assert page.get_attribute("#snippet td", "colspan") == "2"
        assert page.get_attribute("#snippet td", "style") is None
        assert page.get_attribute("#snippet p", "onclick") is None
        assert page.locator("#input script").count() == 0


def _saved_rows(page, path: Path) -> tuple[list[str], list[dict[str, str]]]:
    page.wait_for_selector("body[data-screen=done]")
    with page.expect_download() as info:
        page.click("#download")
    info.value.save_as(path)
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        return list(reader.fieldnames or []), list(reader)


def _slider(page, criterion: str, keys: list[str]) -> None:
    page.focus(f"#rating_{criterion}")
    for key in keys:
        page.keyboard.press(key)


# likert point, slider keys and the slider's value they give (it starts at 50)
RATINGS = [
    (4, ["ArrowRight"] * 23, 73),
    (1, ["Home"], 0),
    (5, ["ArrowLeft"] * 10, 40),
]


@pytest.mark.parametrize("size", VIEWPORTS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_likert_and_slider_ratings(tmp_path, watched, size):
    web, doc = _build(tmp_path, "text_rating")
    trials = doc["lists"][0]["trials"]
    page = watched.page
    _start(page, web, size)
    for trial, (point, keys, value) in zip(trials, RATINGS, strict=True):
        order = trial["order"]
        page.wait_for_selector(f"body[data-screen=text-rating][data-order='{order}']")
        _input_shown(page, trial["item"])
        assert page.text_content("#output-text") == trial["output"]
        assert page.locator("#criterion-fluency input[type=radio]").count() == 5
        assert page.locator("#criterion-fluency .ends span").all_text_contents() == [
            "Not fluent at all",
            "Perfectly fluent",
        ]
        assert page.locator("#criterion-adequacy .ends span").all_text_contents() == [
            "Not at all",
            "Completely",
        ]
        # the slider's pointer starts in the middle; nothing answered, no "Next"
        assert page.input_value("#rating_adequacy") == "50"
        assert page.is_disabled("#next")
        assert page.text_content("#hint") == "Answer every question to go on."
        page.click(f"label[for=rating_fluency-{point}]")
        assert page.is_checked(f"#rating_fluency-{point}")
        assert page.is_disabled("#next")  # the slider has not been moved
        _slider(page, "adequacy", keys)
        assert page.input_value("#rating_adequacy") == str(value)
        assert page.is_enabled("#next") and page.text_content("#hint") == ""
        _fits(page)
        page.screenshot(path=str(tmp_path / f"rating-{order}.png"), full_page=True)
        page.click("#next")
    columns, rows = _saved_rows(page, tmp_path / "rating.tsv")
    assert columns == [*RESPONSE_COLUMNS, "rating_fluency", "rating_adequacy"]
    got = [
        (r["order"], r["task"], r["item"], r["system"], r["rating_fluency"],
         r["rating_adequacy"], r["session_status"], r["list"])
        for r in rows
    ]  # fmt: skip
    # the page knows no item or system: the design gives them by list and order
    assert got == [
        (str(t["order"]), "text_rating", "", "", str(p), str(v), "offline", "L01")
        for t, (p, _, v) in zip(trials, RATINGS, strict=True)
    ]  # fmt: skip
    for row in rows:
        assert float(row["rt_ms"]) > 0
        assert row["adequacy"] == row["fluency"] == row["chosen_entity"] == ""
    watched.assert_clean()


def test_a_slider_without_required_touch_can_be_left_in_the_middle(tmp_path, watched):
    web, doc = _build(tmp_path, "text_rating", {"require_slider_touch": False})
    page = watched.page
    _start(page, web, VIEWPORTS[0])
    page.wait_for_selector("body[data-screen=text-rating][data-order='1']")
    assert page.is_disabled("#next")  # the Likert scale has no default
    page.click("label[for=rating_fluency-3]")
    assert page.is_enabled("#next")
    page.click("#next")
    page.wait_for_selector("body[data-screen=text-rating][data-order='2']")
    watched.assert_clean()


# which button, and what is recorded: preferred and the chosen side's system
CHOICES = ["left", "right", "tie"]


@pytest.mark.parametrize("size", VIEWPORTS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_preference_left_right_and_tie(tmp_path, watched, size):
    web, doc = _build(tmp_path, "text_preference")
    trials = doc["lists"][0]["trials"]
    page = watched.page
    _start(page, web, size)
    for trial, choice in zip(trials, CHOICES, strict=True):
        order = trial["order"]
        page.wait_for_selector(
            f"body[data-screen=text-preference][data-order='{order}']"
        )
        _input_shown(page, trial["item"])
        assert page.text_content("#question") == "Which text is better?"
        assert page.text_content("#output-left-text") == trial["output_left"]
        assert page.text_content("#output-right-text") == trial["output_right"]
        assert page.text_content("#output-left .heading") == "Text A"
        assert page.text_content("#choose-tie") == "No preference"
        # side by side at both sizes: same top, left box left of the right one
        left = page.locator("#output-left").bounding_box()
        right = page.locator("#output-right").bounding_box()
        assert left["y"] == right["y"] and left["x"] + left["width"] <= right["x"]
        assert page.is_disabled("#next")
        assert page.text_content("#hint") == "Choose one of the answers to go on."
        # change of mind: the last choice counts
        other = "right" if choice == "left" else "left"
        page.click(f"#choose-{other}")
        page.click(f"#choose-{choice}")
        assert page.get_attribute(f"#choose-{choice}", "aria-pressed") == "true"
        assert page.get_attribute(f"#choose-{other}", "aria-pressed") == "false"
        assert page.is_enabled("#next")
        _fits(page)
        page.screenshot(path=str(tmp_path / f"preference-{order}.png"), full_page=True)
        page.click("#next")
    columns, rows = _saved_rows(page, tmp_path / "preference.tsv")
    assert columns == [*RESPONSE_COLUMNS, *PREFERENCE_COLUMNS]
    # the page knows the side chosen, never the systems: the design gives them
    expected = [
        (str(trial["order"]), "text_preference", "", "", "", "", choice, "")
        for trial, choice in zip(trials, CHOICES, strict=True)
    ]
    got = [
        (r["order"], r["task"], r["item"], r["system"], r["system_left"],
         r["system_right"], r["preferred"], r["chosen_system"])
        for r in rows
    ]  # fmt: skip
    assert got == expected
    assert rows[2]["preferred"] == "tie"
    watched.assert_clean()


def test_japanese_interface(tmp_path, watched):
    web, _ = _build(tmp_path, "text_preference", {"language": "ja"})
    page = watched.page
    _start(page, web, VIEWPORTS[1])
    page.wait_for_selector("body[data-screen=text-preference][data-order='1']")
    assert page.text_content("#choose-left") == "Aの方がよい"
    assert page.text_content("#choose-tie") == "どちらとも言えない"
    assert page.text_content("#input .heading") == "入力"
    assert page.text_content("#title") == "文章の評価"
    watched.assert_clean()


def test_online_sessions_store_the_text_columns(tmp_path, watched):
    """Served by the collection server: what the page posts is accepted and the
    export carries the text columns (the first participant gets list L01)."""
    from stecflow.studies.server import make_server, read_responses

    page = watched.page
    page.set_viewport_size({"width": 1366, "height": 768})
    web, doc = _build(tmp_path, "text_rating")
    db = tmp_path / "rating.sqlite"
    with make_server(web.parent, port=0, db_path=db).start() as server:
        page.goto(server.url + "?participant=P-001")
        page.wait_for_selector("body[data-screen=welcome]")
        page.click("#start")
        for trial, (point, keys, _) in zip(
            doc["lists"][0]["trials"], RATINGS, strict=True
        ):
            page.wait_for_selector(
                f"body[data-screen=text-rating][data-order='{trial['order']}']"
            )
            page.click(f"label[for=rating_fluency-{point}]")
            _slider(page, "adequacy", keys)
            page.click("#next")
        page.wait_for_selector("body[data-screen=done]")
        rows = read_responses(web.parent, db_path=db)
    assert [
        (r["list"], r["order"], r["rating_fluency"], r["rating_adequacy"]) for r in rows
    ] == [("L01", 1, 4, 73), ("L01", 2, 1, 0), ("L01", 3, 5, 40)]
    assert {r["session_status"] for r in rows} == {"completed"}

    web, doc = _build(tmp_path, "text_preference")
    db = tmp_path / "preference.sqlite"
    trials = doc["lists"][0]["trials"]
    with make_server(web.parent, port=0, db_path=db).start() as server:
        page.goto(server.url)
        page.wait_for_selector("body[data-screen=welcome]")
        page.click("#start")
        for trial, choice in zip(trials, CHOICES, strict=True):
            page.wait_for_selector(
                f"body[data-screen=text-preference][data-order='{trial['order']}']"
            )
            page.click(f"#choose-{choice}")
            page.click("#next")
        page.wait_for_selector("body[data-screen=done]")
        rows = read_responses(web.parent, db_path=db)
    assert [(r["preferred"], r["chosen_system"]) for r in rows] == [
        ("left", trials[0]["system_left"]),
        ("right", trials[1]["system_right"]),
        ("tie", None),
    ]
    assert [(r["system_left"], r["system_right"]) for r in rows] == [
        (t["system_left"], t["system_right"]) for t in trials
    ]
    watched.assert_clean()

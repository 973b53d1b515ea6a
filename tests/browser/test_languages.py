"""The participant sees the study's language: Japanese strings in chromium.

A Japanese study (``experiment.language: ja``) shows the Japanese instructions,
buttons (seed 000's "I don't know" as わからない), progress and feedback; an English
study with a per-string override (``experiment.strings``) shows the override.
"""

from __future__ import annotations

from stecflow.studies.strings import UI_STRINGS
from tests.browser.driver import Participant, load_document
from tests.browser.studykit import FAST, build_demo_study

JA = UI_STRINGS["ja"]


def _open(watched, study):
    page = watched.page
    page.goto((study / "offline" / "L01" / "index.html").resolve().as_uri())
    return page


def test_japanese_study_shows_the_japanese_strings(tmp_path, watched):
    study = build_demo_study(
        tmp_path,
        task="identification",
        variant="together",
        settings={**FAST, "cant_tell": True, "language": "ja", "feedback_ms": 3000},
    )
    doc = load_document(study)
    page = _open(watched, study)
    person = Participant(page, doc, list_choice="L01")
    assert person.run(stop=lambda screen, order: screen == "welcome") == "welcome"
    assert page.evaluate("() => document.documentElement.lang") == "ja"
    assert page.title() == page.text_content("#title") == "絵の説明"
    welcome = page.text_content("#app")
    assert "各試行では、絵の一覧とそのうちの一つについての説明が同時に" in welcome
    assert "2.5秒以内に絵が選ばれないと" in welcome
    assert "「わからない」をクリックしてください" in welcome
    assert page.text_content("#start") == "開始"
    assert "オフラインモード" in welcome
    assert person.run(stop=lambda screen, order: screen == "ready") == "ready"
    assert page.text_content("#start-trial") == "開始"
    assert "準備ができたら「開始」をクリック" in page.text_content("#app")
    n_practice = sum(t["practice"] for t in doc["lists"][0]["trials"])
    assert page.text_content("#progress-text") == f"練習 1 / {n_practice}"
    assert person.run(stop=lambda screen, order: screen == "identify") == "identify"
    assert page.text_content("#cant-tell") == "わからない"
    assert page.get_attribute("#grid .cell", "aria-label") == "絵 1"
    # "I don't know" in practice: the Japanese feedback
    page.click("#cant-tell")
    page.wait_for_selector("#feedback")
    assert page.text_content("#feedback") == "この説明は十分に明確なはずでした。"
    watched.assert_clean()


def test_japanese_rating_study_and_an_english_override(tmp_path, watched):
    study = build_demo_study(
        tmp_path / "ja", task="rating", settings={**FAST, "language": "ja"}
    )
    page = _open(watched, study)
    person = Participant(page, load_document(study), rate=lambda t: (0.5, 0.5))
    assert person.run(stop=lambda screen, order: screen == "rating") == "rating"
    assert page.text_content("#adequacy-box .question") == JA["adequacy_question"]
    assert page.text_content("#next") == "次へ"
    assert "とても明確" in page.text_content("#adequacy-box")
    assert page.text_content("#app .hint") == JA["move_sliders"]

    english = build_demo_study(
        tmp_path / "en",
        task="identification",
        variant="together",
        settings={**FAST, "cant_tell": True, "strings": {"cant_tell": "I don't know"}},
    )
    page = _open(watched, english)
    person = Participant(page, load_document(english), list_choice="L01")
    assert person.run(stop=lambda screen, order: screen == "identify") == "identify"
    assert page.evaluate("() => document.documentElement.lang") == "en"
    assert page.text_content("#cant-tell") == "I don't know"
    assert page.text_content("#progress-text").startswith("Practice 1 of ")
    watched.assert_clean()

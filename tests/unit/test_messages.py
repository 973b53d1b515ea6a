"""No untranslated participant-facing string remains (issue 17, point 6).

(a) every key of every message table has every language, with the same
``{placeholders}``; (b) the page's code (web/core.js and the kinds'
components, web/components/) passes no string literal to what the
participant sees (text:, textContent, aria-label, alert, confirm, fatal) outside
the catalogue; an organiser's catalogue file for another language is checked for
missing keys, unknown keys and placeholders, with file and line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from stecflow.core.errors import ConfigError
from stecflow.studies.settings import StudySettings
from stecflow.studies.strings import (
    LANGUAGES,
    SITUATED_UI_STRINGS,
    TEXT_UI_STRINGS,
    UI_STRINGS,
    placeholders,
    read_catalogue,
)

REPO = Path(__file__).resolve().parents[2]
WEB = REPO / "src/stecflow/studies/web"
#: The page's code: the core, then every kind's trial components.
JS = "".join(
    path.read_text(encoding="utf-8")
    for path in [WEB / "core.js", *sorted((WEB / "components").glob("*.js"))]
)
TABLES = {
    "UI_STRINGS": UI_STRINGS,
    "SITUATED_UI_STRINGS": SITUATED_UI_STRINGS,
    "TEXT_UI_STRINGS": TEXT_UI_STRINGS,
}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_key_has_every_language_with_the_same_placeholders(name):
    table = TABLES[name]
    assert sorted(table) == sorted(LANGUAGES)
    english = table["en"]
    for language in LANGUAGES:
        assert set(table[language]) == set(english), (name, language)
        for key, text in table[language].items():
            assert text.strip(), (name, language, key)
            assert placeholders(text) == placeholders(english[key]), (
                name,
                language,
                key,
            )


def test_japanese_strings_are_translated():
    """A Japanese string is not the English one left in place (a few keys are
    short labels that may legitimately contain no letters at all)."""
    latin = re.compile(r"[A-Za-z]{3,}")
    for name, table in TABLES.items():
        for key, text in table["ja"].items():
            stripped = re.sub(r"\{\w+\}|JavaScript|stimuli\.js", "", text)
            assert not latin.search(stripped), (name, key, text)


def test_the_new_screens_strings_are_in_both_languages():
    for key in (
        "consent_agree",
        "consent_decline",
        "declined",
        "questionnaire_required",
        "debrief_continue",
        "screen_too_small",
        "sound_check",
        "session_download",
    ):
        assert UI_STRINGS["en"][key] and UI_STRINGS["ja"][key]
    assert UI_STRINGS["ja"]["consent_agree"] == "参加に同意します"
    assert placeholders(UI_STRINGS["ja"]["screen_too_small"]) == {
        "width",
        "height",
        "w",
        "h",
    }


# (b) the script shows only catalogue strings --------------------------------------

#: What the participant sees: an element's text, a text node, a label, a dialog.
SINKS = re.compile(
    r"""(?:\btext:\s*|\.textContent\s*=\s*|"aria-label":\s*|\balert\(\s*"""
    r"""|\bconfirm\(\s*|\bfatal\(\s*|createTextNode\(\s*|\bparagraphs\(\[\s*)"""
    r"""(?P<literal>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)"""
)


def _code_without_comments(js: str) -> str:
    return re.sub(r"^\s*//.*$", "", js, flags=re.M)


def test_no_literal_reaches_the_participant_outside_the_catalogue():
    body = _code_without_comments(JS.split("const UI = Object.assign", 1)[1])
    found = [
        m.group("literal")
        for m in SINKS.finditer(body)
        # symbols such as the fixation cross "+" are not language
        if re.search(r"[^\W\d_]", m.group("literal"))
    ]
    assert found == []


def test_the_sink_scan_would_find_a_literal():
    """The scan is not vacuous: it flags literals in each kind of sink."""
    sample = (
        'el("p", { text: "Hello" }); node.textContent = "Bye"; '
        'window.confirm("Sure?"); fatal("Oops"); el("a", {"aria-label": "list"})'
    )
    found = [m.group("literal") for m in SINKS.finditer(sample)]
    assert found == ['"Hello"', '"Bye"', '"Sure?"', '"Oops"', '"list"']


def test_text_shown_with_the_text_of_a_string_concatenation_is_a_key():
    """Strings built with + around t()/say() carry no English words."""
    for line in JS.splitlines():
        if re.search(r"\b(t|say)\(", line) and re.search(r'\+\s*"[A-Za-z]{2,}', line):
            pytest.fail(line)


# catalogue files -------------------------------------------------------------------


def _catalogue(tmp_path, strings, language="pt"):
    path = tmp_path / "pt.yaml"
    lines = [f"language: {language}", "strings:"]
    lines += [f"  {k}: {json.dumps(v, ensure_ascii=False)}" for k, v in strings.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_a_whole_catalogue_replaces_the_interface(tmp_path):
    strings = {k: "PT " + v for k, v in UI_STRINGS["en"].items()}
    path = _catalogue(tmp_path, strings)
    language, read = read_catalogue(path, UI_STRINGS)
    assert language == "pt" and read == strings
    settings = StudySettings(messages=path, strings={"start": "Começar"})
    ui = settings.ui_strings()
    assert ui["start"] == "Começar"
    assert ui["next"] == "PT Next"
    assert not settings.default_interface


def test_a_catalogue_missing_a_key_is_refused(tmp_path):
    strings = {k: v for k, v in UI_STRINGS["en"].items() if k != "next"}
    path = _catalogue(tmp_path, strings)
    with pytest.raises(ConfigError, match=r"pt\.yaml, strings: 1 .*missing: next"):
        read_catalogue(path, UI_STRINGS)
    # the situated table's keys are needed by a situated study only
    full = _catalogue(tmp_path, dict(UI_STRINGS["en"]))
    with pytest.raises(ConfigError, match="missing: instructions_situated"):
        read_catalogue(full, UI_STRINGS, SITUATED_UI_STRINGS)


def test_a_catalogue_with_a_wrong_placeholder_names_file_line_and_key(tmp_path):
    strings = dict(UI_STRINGS["en"])
    strings["progress_trial"] = "Ensaio {n} de {todos}"
    path = _catalogue(tmp_path, strings)
    line = 3 + list(strings).index("progress_trial")
    with pytest.raises(
        ConfigError,
        match=rf"pt\.yaml, line {line}, progress_trial: .*fields.*: n, total",
    ):
        read_catalogue(path, UI_STRINGS)


def test_a_catalogue_with_an_unknown_key_or_bad_language_is_refused(tmp_path):
    strings = {**UI_STRINGS["en"], "nxt": "Próximo"}
    with pytest.raises(ConfigError, match="nxt: unknown interface string"):
        read_catalogue(_catalogue(tmp_path, strings), UI_STRINGS)
    with pytest.raises(ConfigError, match="language: must be a language tag"):
        read_catalogue(_catalogue(tmp_path, UI_STRINGS["en"], "p t"), UI_STRINGS)

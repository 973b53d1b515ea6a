"""What the release holds about participants (issue 37, points 3 and 5).

The release policy (``release.personal_data``) decides what the archive holds
about the people who took part; the consent texts say the same, or the release
is not built; the datasheet reads the questionnaire's counts, the study's
wording and the control trials.
"""

from __future__ import annotations

import copy
import json
import zipfile
from pathlib import Path

import pytest
import yaml

from stecflow.core.errors import ConfigError
from stecflow.core.io import parse_tsv, write_tsv
from stecflow.release.archive import build_release
from stecflow.release.heds import datasheet
from stecflow.release.privacy import (
    PersonalDataPolicy,
    check_consent,
    consent_statement,
)
from stecflow.release.studyfacts import collected_counts, study_texts
from stecflow.studies.screens import read_questionnaire
from tests.conftest import REPO

PARTICIPANTS = REPO / "resources" / "participants"
CONSENTS = sorted(PARTICIPANTS.glob("consent.*.md"))
#: The promise the shipped consent made before the policy (and the release broke).
OLD_PROMISE = {
    "en": "- The data are stored securely, analysed for research and published only"
    " in\n  anonymous, aggregated form.\n",
    "ja": "- データは安全に保管され、研究のために分析され、匿名で集計した形でのみ公表\n"
    "  されます。\n",
}
SESSION_HEADER = [
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
    "demographics.age",
    "demographics.field",
    "demographics.gender",
    "demographics.native",
    "problem",
]


def _questions(language: str) -> tuple[dict[str, str], list[str]]:
    questionnaire = read_questionnaire(PARTICIPANTS / f"questionnaire.{language}.yaml")
    screen = questionnaire["screen"]
    fields = questionnaire["fields"]
    return (
        {f"{screen}.{f['id']}": f["question"] for f in fields},
        [f"{screen}.{f['id']}" for f in fields if f["type"] == "text"],
    )


def test_every_language_has_a_shipped_consent_text():
    assert [p.name for p in CONSENTS] == ["consent.en.md", "consent.ja.md"]


@pytest.mark.parametrize("path", CONSENTS, ids=lambda p: p.name)
def test_shipped_consent_says_what_the_default_release_holds(path):
    """Fails on the consent texts shipped before the policy: they promised the
    data would be "published only in anonymous, aggregated form", and every
    release holds one row per answer."""
    language = path.name.split(".")[1]
    text = path.read_text(encoding="utf-8")
    questions, free = _questions(language)
    assert check_consent(text, PersonalDataPolicy(), language, questions, free) == (
        True,
        [],
    )
    # the sentence is the default policy's, generated (line breaks aside)
    statement = consent_statement(PersonalDataPolicy(), language, questions, free)
    assert "".join(statement.split()) in "".join(text.split())


@pytest.mark.parametrize("path", CONSENTS, ids=lambda p: p.name)
def test_consent_fails_when_the_policy_opts_a_free_text_field_in(path):
    language = path.name.split(".")[1]
    text = path.read_text(encoding="utf-8")
    questions, free = _questions(language)
    policy = PersonalDataPolicy(per_participant=("demographics.field",))
    checked, problems = check_consent(text, policy, language, questions, free)
    assert checked and problems[0] == (
        "its statement of what is published is not the one release.personal_data gives"
    )
    # the sentence to use instead names the question, without the promise on
    # free text (the opted-in answer is free text)
    wanted = consent_statement(policy, language, questions, free)
    assert problems[-1] == f"put this statement in its place: {wanted}"
    assert questions["demographics.field"] in wanted
    assert "free-text box" not in wanted and "自由記述" not in wanted
    # exact times, another opt-in, break it as well; so does withholding a date
    for other in (
        PersonalDataPolicy(per_participant=("started_utc",)),
        PersonalDataPolicy(times="withhold"),
        PersonalDataPolicy(number_bin=5),
    ):
        assert check_consent(text, other, language, questions, free)[1]


@pytest.mark.parametrize("language", ["en", "ja"])
def test_the_old_promise_of_aggregated_data_is_caught(language):
    """The consent texts as shipped before: the release breaks their promise
    under any policy (it holds every answer to the trials)."""
    text = f"# Consent\n\n{OLD_PROMISE[language]}"
    checked, problems = check_consent(text, PersonalDataPolicy(), language)
    assert checked and "one row per answer under a pseudonym" in problems[0]
    # with the current statement beside it, still a contradiction
    both = text + consent_statement(PersonalDataPolicy(), language) + "\n"
    assert check_consent(both, PersonalDataPolicy(), language)[1]


def test_a_consent_text_without_a_known_statement_is_left_unchecked():
    assert check_consent("# Consent\n\nYou agree.\n", PersonalDataPolicy()) == (
        False,
        [],
    )
    # a language stecflow has no sentence for: the known promises only
    assert check_consent("Publicados ...", PersonalDataPolicy(), "pt") == (False, [])


def test_policy_errors_name_the_key():
    with pytest.raises(ConfigError, match="per_participant: 'age' is not a session"):
        PersonalDataPolicy.from_config({"personal_data": {"per_participant": ["age"]}})
    with pytest.raises(ConfigError, match="release.personal_data.colour: unknown"):
        PersonalDataPolicy.from_config({"personal_data": {"colour": 1}})


# -- the archive ---------------------------------------------------------------

ANSWERS = [
    # session, participant, started, age, field, gender, native
    ("3f9a0c2be41d7a65", "5f1c2e7a9b3d4e00aa11b2c3", "10:00:07", "19", "linguistics"),
    ("a71e5b0c3d9f2468", "60a7b3c9d2e1f4a5b6c7d8e9", "11:42:30", "34", ""),
    ("8c04d1e97b2a6f13", "61b8c4d0e3f2a5b6c7d8e9f0", "09:15:59", "27", "nursing"),
]
GENDERS = ["female", "male", "female"]
NATIVE = ["true", "false", "true"]


#: The design settings of the rating study (studies/rating/design.json).
DESIGN = {
    "study": "rating",
    "task": "rating",
    "kind": "latin_square",
    "n_items": 2,
    "n_trials": 6,
    "n_controls": 3,
    "n_fillers": 0,
    "subjects": 3,
    "groups": 1,
    "squares": 1,
    "seed": 1,
    "practice_items": [],
    "systems": ["a/b"],
}


def _campaign(tmp_path: Path) -> tuple[dict, Path]:
    """The demo config and one rating study's judgments, sessions and audit."""
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    folder = tmp_path / "j"
    rows = []
    for n, (session, participant, *_rest) in enumerate(ANSWERS):
        for order, (item, control) in enumerate([("t1", ""), ("t2", "degraded")]):
            rows.append(
                {
                    "study": "rating",
                    "list": f"L0{n + 1}",
                    "session": session,
                    "participant": participant,
                    "order": order + 1,
                    "item": item,
                    "system": "CONTROL" if control else "a/b",
                    "practice": "false",
                    "filler": "false",
                    "control": control,
                    "adequacy": 50 + n,
                }
            )
    write_tsv(rows, list(rows[0]), folder / "rating.tsv")
    sessions = []
    for (session, participant, start, age, field), gender, native in zip(
        ANSWERS, GENDERS, NATIVE, strict=True
    ):
        sessions.append(
            {
                "study": "rating",
                "session": session,
                "participant": participant,
                "study_id": "64e0aa11bb22cc33dd44ee55",
                "external_session": "65f0" + session,
                "list": "L01",
                "status": "completed",
                "started_utc": f"2026-05-01T{start}Z",
                "ended_utc": f"2026-05-01T{start[:3]}59:00Z",
                "duration_s": 1200,
                "n_trials_answered": 2,
                "consent": 1,
                "demographics.age": age,
                "demographics.field": field,
                "demographics.gender": gender,
                "demographics.native": native,
                "problem": "",
            }
        )
    sessions[1]["problem"] = (
        f"{tmp_path}/raw.sessions.tsv, line 3, field duration_s: '12x' is not a"
        " number of seconds of 0 or more"
    )
    write_tsv(sessions, SESSION_HEADER, folder / "sessions" / "rating.tsv")
    audit = [
        {
            "participant": ANSWERS[1][1],
            "session": ANSWERS[1][0],
            "list": "L02",
            "rule": "natives",
            "value": "false",
            "threshold": "false",
            "excluded": "1",
            "reason": "answered demographics.native with false (excluding: false)",
        }
    ]
    write_tsv(audit, list(audit[0]), folder / "exclusions" / "rating.tsv")
    design = tmp_path / "studies" / "rating" / "design.json"
    design.parent.mkdir(parents=True)
    design.write_text(json.dumps(DESIGN), encoding="utf-8")
    return config, folder / "rating.tsv"


def _build(config: dict, judgments: Path, out: Path) -> dict[str, bytes]:
    build_release(
        config,
        validation_records=[],
        submissions_root=out.parent / "submissions",
        files={},
        judgments=[judgments],
        study_settings=[judgments.parent.parent / "studies" / "rating" / "design.json"],
        out_zip=out,
        environment={},
    )
    with zipfile.ZipFile(out) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_release_holds_counts_not_answers_and_dates_not_times(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)  # the campaign folder: the config's consent and questions
    config, judgments = _campaign(tmp_path)
    found = _build(config, judgments, tmp_path / "a.zip")
    sessions = parse_tsv(found["judgments/sessions/rating.tsv"].decode())
    assert list(sessions[0]) == [
        "study",
        "session",
        "participant",
        "study_id",
        "external_session",
        "list",
        "status",
        "started_date",
        "ended_date",
        "duration_s",
        "n_trials_answered",
        "consent",
        "problem",
    ]
    assert {r["started_date"] for r in sessions} == {"2026-05-01"}
    assert [r["problem"] for r in sessions].count("duration_s") == 1
    # no answer, exact time or raw ID anywhere in the archive
    secrets = ["linguistics", "nursing", "T10:00:07", "10:00:07", "'12x'"]
    secrets += [a[0] for a in ANSWERS] + [a[1] for a in ANSWERS]
    for name, data in found.items():
        text = data.decode("utf-8", errors="replace")
        assert not [s for s in secrets if s in text], name
    audit = parse_tsv(found["judgments/exclusions/rating.tsv"].decode())
    assert (audit[0]["value"], audit[0]["reason"]) == (
        "",
        "answer to demographics.native among the excluding ones (false)",
    )
    counts = {
        (r["field"], r["answer"]): int(r["count"])
        for r in parse_tsv(found["judgments/questionnaire/rating.tsv"].decode())
    }
    assert counts[("demographics.age", "18-27")] == 2
    assert counts[("demographics.age", "28-37")] == 1
    assert counts[("demographics.gender", "female")] == 2
    assert counts[("demographics.gender", "male")] == 1
    assert counts[("demographics.gender", "other")] == 0
    assert counts[("demographics.native", "yes")] == 2
    assert counts[("demographics.field", "(answered)")] == 2
    assert counts[("demographics.field", "(no answer)")] == 1
    # asked but unanswered by all three
    assert counts[("demographics.handedness", "(no answer)")] == 3
    sheet = found["DATASHEET.md"].decode()
    assert (
        "Characteristics from the questionnaire (3 participant(s) answered; counts"
        " per answer): gender female 2, male 1; age 18-27 2, 28-37 1;" in sheet
    )
    assert "field free text, answered by 2 (not released)" in sheet
    assert "native yes 2, no 1" in sheet
    assert "session start and end times are released as dates (UTC)" in sheet
    assert "the consent text of `rating` states what is released" in sheet
    # the same bytes again
    again = _build(config, judgments, tmp_path / "b.zip")
    assert (tmp_path / "a.zip").read_bytes() == (tmp_path / "b.zip").read_bytes()
    assert again.keys() == found.keys()


def test_opting_a_field_in_needs_a_consent_that_says_so(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    config, judgments = _campaign(tmp_path)
    config["release"]["personal_data"] = {
        "per_participant": ["demographics.native", "started_utc"],
        "times": "relative",
    }
    # the shipped consent promises otherwise: no release
    with pytest.raises(ConfigError) as error:
        _build(config, judgments, tmp_path / "a.zip")
    message = str(error.value)
    assert message.startswith(
        "resources/participants/consent.en.md, studies[0].experiment.consent:"
        " the consent text of study rating promises what the release"
    )
    assert "“Is English your native language?”" in message
    assert message.endswith(
        "the time since the study began. Release only what the participants agreed"
        " to (change release.personal_data), or change the consent text before"
        " anyone agrees to it, then build the release again"
    )
    assert not (tmp_path / "a.zip").exists()
    # a consent text with the policy's sentence: the opted-in fields, only (ends
    # 10:59:00, 11:59:00, 09:59:00; the first start 09:15:59)
    policy = PersonalDataPolicy.from_config(config["release"])
    questions, free = _questions("en")
    consent = tmp_path / "consent.md"
    statement = consent_statement(policy, "en", questions, free)
    consent.write_text(f"# Consent\n\n{statement}\n", encoding="utf-8")
    config["studies"][0]["experiment"]["consent"] = str(consent)
    found = _build(config, judgments, tmp_path / "a.zip")
    sessions = parse_tsv(found["judgments/sessions/rating.tsv"].decode())
    assert [
        (r["demographics.native"], r["started_utc"], r["ended_s"]) for r in sessions
    ] == [
        ("true", "2026-05-01T10:00:07Z", "6181"),
        ("false", "2026-05-01T11:42:30Z", "9781"),
        ("true", "2026-05-01T09:15:59Z", "2581"),
    ]
    assert "demographics.field" not in sessions[0]
    # the audit quotes the opted-in answer
    audit = parse_tsv(found["judgments/exclusions/rating.tsv"].decode())
    assert audit[0]["value"] == "false"
    sheet = found["DATASHEET.md"].decode()
    assert "per participant: demographics.native" in sheet
    assert "exact times released by the organisers' choice: started_utc" in sheet


def test_withholding_the_questionnaire_and_times(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    config, judgments = _campaign(tmp_path)
    config["studies"][0]["experiment"].pop("consent")
    config["release"]["personal_data"] = {
        "questionnaire": "withhold",
        "times": "withhold",
    }
    found = _build(config, judgments, tmp_path / "a.zip")
    assert "judgments/questionnaire/rating.tsv" not in found
    header = found["judgments/sessions/rating.tsv"].decode().split("\n")[0].split("\t")
    assert not [c for c in header if "started" in c or "ended" in c or "." in c]
    assert "questionnaire answers are not released" in found["DATASHEET.md"].decode()


# -- the datasheet -------------------------------------------------------------


def test_datasheet_counts_control_trials_and_quotes_the_studys_wording(tmp_path):
    config, judgments = _campaign(tmp_path)
    collected = collected_counts(judgments)
    assert (collected["trials"], collected["controls"]) == (6, 3)
    design = {**DESIGN, "collected": collected}
    # the wording the study's page shows (its study document's texts: the
    # interface language and experiment.strings applied when it was built)
    web = tmp_path / "studies" / "rating" / "web"
    web.mkdir()
    texts = {
        "adequacy_question": "この説明はどのくらい明確ですか。",
        "adequacy_labels": ["明確でない", "とても明確"],
        "fluency_question": "この説明はどのくらい自然ですか。",
        "fluency_labels": ["自然でない", "とても自然"],
    }
    (web / "stimuli.json").write_text(json.dumps({"texts": texts}), encoding="utf-8")
    design["texts"] = study_texts([web, web.parent / "dmdx"])["rating"]
    sheet = datasheet(config, [design])
    assert "6 test trials, 3 of them control trials (attention checks)" in sheet
    # HEDS 3.0 4.3.7, once per criterion (Adequacy, then Fluency)
    assert [x for x in sheet.splitlines() if x.startswith("- **4.3.7 ")] == [
        "- **4.3.7 Verbatim question, prompt or instruction:** “この説明はどのくらい"
        "明確ですか。” (left end “明確でない”, right end “とても明確”)",
        "- **4.3.7 Verbatim question, prompt or instruction:** “この説明はどのくらい"
        "自然ですか。” (left end “自然でない”, right end “とても自然”)",
    ]
    # a string the config replaces
    config = copy.deepcopy(config)
    config["studies"][0]["experiment"] = {
        "strings": {"adequacy_question": "Can you find the picture from this?"}
    }
    sheet = datasheet(config, [design])
    assert (
        "4.3.7 Verbatim question, prompt or instruction:** “Can you find the"
        " picture from this?” (left end “明確でない”" in sheet
    )


def test_datasheet_quotes_a_text_studys_criteria():
    config = {
        "campaign": {"title": "T", "tasks": ["text"]},
        "studies": [
            {
                "id": "quality",
                "task": "text_rating",
                "criteria": [
                    {
                        "id": "fluency",
                        "question": "How fluent is the text?",
                        "points": 7,
                        "anchors": ["not at all", "perfectly"],
                    },
                    {
                        "id": "faithful",
                        "question": "Does it say only what the data say?",
                        "scale": "slider",
                        "anchors": ["no", "yes"],
                    },
                ],
            }
        ],
    }
    study = json.loads(
        json.dumps(
            {
                "study": "quality",
                "task": "text_rating",
                "kind": "latin_square",
                "n_items": 2,
                "n_trials": 4,
                "n_fillers": 0,
                "subjects": 2,
                "groups": 1,
                "squares": 1,
                "seed": 1,
                "practice_items": [],
                "systems": ["a/b", "c/d"],
            }
        )
    )
    sheet = datasheet(config, [study])
    # one HEDS 3.0 Section 4 per criterion, in the config's order
    blocks = sheet.split("### 4. Quality criterion ")[1:]
    assert [b.split("\n", 1)[0] for b in blocks] == [
        "1 of 2: fluency (`quality`)",
        "2 of 2: faithful (`quality`)",
    ]
    fluency, faithful = blocks
    assert "4.3.3 Size of the scale or rating instrument:** 7." in fluency
    assert "4.3.4 Possible values of the scale:** 1–7 (“not at all” to" in fluency
    assert "4.3.5 How the scale is presented:** Multiple-choice options" in fluency
    assert (
        "4.3.7 Verbatim question, prompt or instruction:** “How fluent is the"
        " text?”" in fluency
    )
    assert "4.3.3 Size of the scale or rating instrument:** 101." in faithful
    assert (
        "4.3.4 Possible values of the scale:** 0–100 (the slider's position)"
        " (left end “no”, right end “yes”)" in faithful
    )
    assert "4.3.5 How the scale is presented:** Slider" in faithful
    assert "“Does it say only what the data say?”" in faithful

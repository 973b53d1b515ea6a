"""The situated identification study document (seed 000 §5.1) built from the demo.

Figures are hand-computed from ``resources/dialogue-demo/s01.json``: expression
s01-e007 ("the square", in u006 at 18 629 ms) refers to SQ, last mentioned in
u005 (13 650 ms) and last acted on by s01-a003 (a move from 16 891 to 17 645 ms),
so its context runs from 13 650 to 18 629 ms (4 979 ms).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from stecflow.core.errors import StimuliError
from stecflow.data.dialogue import read_corpus
from stecflow.studies.bundle import study_sha256
from stecflow.studies.settings import RESPONSE_COLUMNS
from stecflow.studies.strings import UI_STRINGS
from stecflow.studykinds.situated_identification.stimuli import (
    SITUATED_COLUMNS,
    SITUATED_TASK,
    SituatedInstance,
    build_situated_study,
    highlighted_text,
    make_situated_study_files,
    trial_context,
    utf16_offset,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def sessions():
    return read_corpus(ROOT / "resources" / "dialogue-demo")


def _trial(bundle, n=0, list_id="L01"):
    """A trial of the document, its clip in place of the clip's key."""
    lst = next(x for x in bundle.document["lists"] if x["list"] == list_id)
    trial = lst["trials"][n]
    return {**trial, "context": trial_context(bundle.document, trial)}


def test_context_of_the_square(sessions):
    bundle = make_situated_study_files(
        sessions, {"L01": [("s01", "s01-e007", None)]}, study="sit"
    )
    doc = bundle.document
    assert doc["task"] == SITUATED_TASK == "situated_identification"
    assert doc["columns"] == list(RESPONSE_COLUMNS) + list(SITUATED_COLUMNS)
    trial = _trial(bundle)
    assert trial["item"] == "s01-e007" and trial["target"] == "SQ"
    assert trial["description"] == "Rotate the square to the right"
    assert trial["highlight"] == [7, 17] and trial["expression_text"] == "the square"
    context = trial["context"]
    assert (context["start_ms"], context["end_ms"], context["duration_ms"]) == (
        13650,
        18629,
        4979,
    )
    assert context["actions"] == [
        {
            "piece": "SQ",
            "kind": "move",
            "start_ms": 3241,
            "end_ms": 3995,
            "x": 236,
            "y": 443,
            "rotation": 135,
            "flipped": False,
        }
    ]
    assert context["transcript"] == [
        {
            "speaker": "solver",
            "start_ms": 0,
            "end_ms": 2865,
            "text": "Put the square next to the small triangle",
            "audio": None,
        }
    ]
    square = next(p for p in context["pieces"] if p["id"] == "SQ")
    assert square["number"] == 6
    assert square["outline"] == [
        [-25.0, -25.0],
        [25.0, -25.0],
        [25.0, 25.0],
        [-25.0, 25.0],
    ]
    assert (square["x"], square["y"], square["rotation"]) == (458, 476, 135)
    assert [p["number"] for p in context["pieces"]] == [1, 2, 3, 4, 5, 6, 7]
    assert context["cursor_start"] == [647, 91]
    assert context["cursor"][0] == [50, 644, 98]
    assert context["cursor"][-1] == [4089, 430, 257]
    assert all(0 <= t < 4979 for t, _, _ in context["cursor"])


def test_system_expression_replaces_the_corpus_one(sessions):
    bundle = make_situated_study_files(
        sessions,
        {"L01": [SituatedInstance("s01", "s01-e010", "the large triangle", "CLS")]},
        study="sit",
    )
    trial = _trial(bundle)
    assert trial["description"] == "Put the large triangle next to the parallelogram"
    assert trial["highlight"] == [4, 22]
    assert trial["expression_text"] == "the large triangle"
    assert trial["system"] == "CLS" and trial["target"] == "LT1"


def test_offsets_are_code_points_and_utf16_for_the_page():
    text = "\U00020bb7\u91ce\u5bb6: move that one"
    new, span = highlighted_text(text, 10, 18, "the square")
    assert new == "\U00020bb7\u91ce\u5bb6: move the square"
    assert new[span[0] : span[1]] == "the square" and span == [10, 20]
    # the first code point is two UTF-16 units in JavaScript
    assert utf16_offset(new, 10) == 11 and utf16_offset(new, 1) == 2


def test_japanese_interface_and_the_seeds_i_dont_know(sessions):
    bundle = make_situated_study_files(
        sessions,
        {"L01": [("s01", "s01-e007", None)]},
        study="sit",
        settings={"language": "ja"},
    )
    ui = bundle.document["texts"]["ui"]
    assert ui["dont_know"] == "わからない" and ui["play"] == "映像を再生"
    assert ui["cant_tell"] == UI_STRINGS["ja"]["cant_tell"]
    assert b'lang="ja"' in bundle.files["index.html"]


def test_refusals(sessions, tmp_path):
    with pytest.raises(StimuliError, match="no qualifying context"):
        # the first expression of s01: no earlier mention of its target
        make_situated_study_files(
            sessions, {"L01": [("s01", "s01-e001", None)]}, study="sit"
        )
    with pytest.raises(StimuliError, match="no session s99"):
        make_situated_study_files(sessions, {"L01": [("s99", "e", None)]}, study="x")
    with pytest.raises(StimuliError, match="no expression s01-e999"):
        make_situated_study_files(
            sessions, {"L01": [("s01", "s01-e999", None)]}, study="x"
        )
    (tmp_path / "clip.avi").write_bytes(b"x")
    with pytest.raises(StimuliError, match="must end in one of"):
        make_situated_study_files(
            sessions,
            {
                "L01": [
                    {"session": "s01", "expression": "s01-e007", "media": "clip.avi"}
                ]
            },
            study="x",
            media_dir=tmp_path,
        )
    with pytest.raises(StimuliError, match="is missing"):
        make_situated_study_files(
            sessions,
            {"L01": [{"session": "s01", "expression": "s01-e007", "media": "a.mp4"}]},
            study="x",
            media_dir=tmp_path,
        )
    with pytest.raises(StimuliError, match="speed"):
        make_situated_study_files(
            sessions, {"L01": [("s01", "s01-e007", None)]}, study="x", speed=0
        )


def test_media_file_and_folder(sessions, tmp_path):
    media = tmp_path / "media"
    media.mkdir()
    (media / "e007.webm").write_bytes(b"not really a video")
    lists = {
        "L01": [
            {
                "session": "s01",
                "expression": "s01-e007",
                "media": "e007.webm",
                "system": "Orig",
            },
            ("s01", "s01-e010", "that one"),
        ]
    }
    out = tmp_path / "web"
    summary = build_situated_study(
        sessions, lists, study="sit", out_dir=out, media_dir=media
    )
    assert (summary["lists"], summary["trials"], summary["files"]) == (1, 2, 7)
    # named by content: the organiser's name may say which version it shows
    name = f"media/{hashlib.sha256(b'not really a video').hexdigest()[:20]}.webm"
    assert (out / name).read_bytes() == b"not really a video"
    assert not (out / "media" / "e007.webm").exists()
    assert study_sha256(out) == summary["sha256"]
    doc = json.loads((tmp_path / "stimuli-key.json").read_text())
    first, second = doc["lists"][0]["trials"]
    assert (first["media"], first["media_kind"]) == (name, "video")
    assert (second["media"], second["media_kind"]) == (None, None)
    with pytest.raises(StimuliError, match="not empty"):
        build_situated_study(sessions, lists, study="sit", out_dir=out, media_dir=media)


def test_deterministic_and_shuffled_per_list(sessions):
    entries = [
        ("s01", "s01-e007", None),
        ("s01", "s01-e010", "that one"),
        ("s01", "s01-e014", None),
        ("s01", "s01-e016", None),
    ]
    lists = {"L01": entries, "L02": entries}
    a = make_situated_study_files(sessions, lists, study="sit", shuffle_seed=3)
    b = make_situated_study_files(sessions, lists, study="sit", shuffle_seed=3)
    assert a.files == b.files
    plain = make_situated_study_files(sessions, lists, study="sit")
    assert [t["item"] for t in plain.document["lists"][0]["trials"]] == [
        "s01-e007",
        "s01-e010",
        "s01-e014",
        "s01-e016",
    ]
    orders = [[t["item"] for t in lst["trials"]] for lst in a.document["lists"]]
    assert all(sorted(o) == sorted(e[1] for e in entries) for o in orders)
    assert orders[0] != orders[1]  # each list has its own order
    assert [t["order"] for t in a.document["lists"][0]["trials"]] == [1, 2, 3, 4]


def test_spoken_transcript_files(sessions, monkeypatch):
    lists = {"L01": [("s01", "s01-e008", None)]}
    silent = make_situated_study_files(sessions, lists, study="sit")
    transcript = _trial(silent)["context"]["transcript"]
    assert [line["audio"] for line in transcript] == [None, None, None]
    assert silent.document["speech"] is None

    from stecflow.studykinds.situated_identification import stimuli as situated

    calls = []

    def fake_speak(text, voice, wpm):
        calls.append((text, voice, wpm))
        return b"RIFF" + text.encode()

    monkeypatch.setattr(situated.tts, "espeak_version", lambda: "1.51")
    monkeypatch.setattr(situated.tts, "speak", fake_speak)
    spoken = make_situated_study_files(
        sessions, lists, study="sit", speech=True, settings={"speech_wpm": 180}
    )
    transcript = _trial(spoken)["context"]["transcript"]
    # s01-e008 (u007 at 22 832 ms): context from PG's last action (s01-a002,
    # 10 589 ms), so u004-u006 precede it
    assert [line["text"] for line in transcript] == [
        "this one?",
        "Put the square next to the small triangle",
        "Rotate the square to the right",
    ]
    assert [line["start_ms"] for line in transcript] == [
        12214 - 10589,
        13650 - 10589,
        18629 - 10589,
    ]
    assert calls == [(line["text"], "en-us", 180) for line in transcript]
    for line in transcript:
        assert line["audio"].startswith("audio/") and line["audio"].endswith(".wav")
        assert spoken.files[line["audio"]] == b"RIFF" + line["text"].encode()
    assert spoken.document["speech"] == {
        "engine": "espeak-ng",
        "version": "1.51",
        "voice": "en-us",
        "wpm": 180,
    }
    monkeypatch.setattr(situated.tts, "espeak_version", lambda: None)
    with pytest.raises(StimuliError, match="espeak-ng"):
        make_situated_study_files(sessions, lists, study="sit", speech=True)

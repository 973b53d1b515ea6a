"""Clips of a situated study (seed 000 §5.1): the clip list, the durations, and
clips cut from session recordings with ffmpeg.

The hand-made session below: expression e4 (ST1, utterance at 6 000 ms) was last
mentioned at 5 200 ms (e3) and last acted on at 5 500 ms (a2), so its clip runs
from 5 200 to 6 000 ms (800 ms); e2 (SQ, utterance at 4 000 ms): mention at
1 000 ms, action at 2 500 ms, clip 1 000-4 000 ms (3 000 ms); e6 (SQ, 9 000 ms):
mention at 6 000 ms (e5), action at 2 500 ms (a1), clip 2 500-9 000 ms
(6 500 ms). Mean 3 433.33 ms, SD (ddof 1) sqrt(((800-m)^2 + (3000-m)^2 +
(6500-m)^2) / 2) = 2 874.60 ms.

The recordings are made in the tests with ffmpeg's ``sine`` source; the tests that
need ffmpeg skip without it (Debian/Ubuntu: apt-get install ffmpeg).
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from stecflow.baselines.situated import recency_outputs, write_submission
from stecflow.core.errors import ConfigError, StimuliError
from stecflow.core.io import read_json, read_tsv
from stecflow.data.dialogue import load_session, read_sessions, write_corpus_file
from stecflow.studykinds.situated_identification.design_clips import (
    CLIP_COLUMNS,
    clip_rows,
    clip_summary,
)
from stecflow.studykinds.situated_identification.report_clips import (
    clip_blocks,
    clip_facts,
)
from stecflow.studykinds.situated_identification.setup import (
    build_situated_stimuli,
    check_spec,
    situated_instances,
)
from stecflow.studykinds.situated_identification.stimuli import (
    make_situated_study_files,
)
from stecflow.studykinds.situated_identification.stimuli_clips import (
    cut_clip,
    recording_files,
)
from stecflow.tasks.situated_dialogue import items_from_sessions
from tests.unit.test_situated_setup import DEMO, _design, _spec

HAVE_FFMPEG = bool(shutil.which("ffmpeg") and shutil.which("ffprobe"))
needs_ffmpeg = pytest.mark.skipif(
    not HAVE_FFMPEG,
    reason="ffmpeg is not installed (Debian/Ubuntu: apt-get install ffmpeg)",
)

F0 = {
    "D1": False, "D2": None, "D3": False, "D4": 0, "D5": 0,
    "A1": False, "A2": None, "A3": None, "A4": 0, "A5": 0, "O1": False, "O2": False,
}  # fmt: skip


def _expr(id_, start, end, referent, form):
    return {"id": id_, "start": start, "end": end, "referent": referent,
            "form": form, "features": dict(F0)}  # fmt: skip


def _session(sid="t1") -> dict:
    return {
        "format": "stecflow-dialogue", "version": 1, "id": sid, "language": "en",
        "source": "hand-made test session",
        "area": {"width": 800, "height": 600, "unit": 50},
        "pieces": [
            {"id": "SQ", "shape": "square", "x": 100, "y": 100, "rotation": 0, "flipped": False},
            {"id": "ST1", "shape": "small_triangle", "x": 300, "y": 100, "rotation": 0, "flipped": False},
        ],
        "goal": {"name": "row", "placements": [
            {"piece": "SQ", "x": 10, "y": 10, "rotation": 45, "flipped": False}]},
        "utterances": [
            {"id": "u1", "speaker": "solver", "start_ms": 1000, "end_ms": 2000,
             "text": "move the square to the left",
             "expressions": [_expr("e1", 5, 15, "SQ", "unique_name")]},
            {"id": "u2", "speaker": "solver", "start_ms": 4000, "end_ms": 5000,
             "text": "now that one", "expressions": [_expr("e2", 4, 12, "SQ", "demonstrative_pronoun")]},
            {"id": "u3", "speaker": "operator", "start_ms": 5200, "end_ms": 5600,
             "text": "this one?", "expressions": [_expr("e3", 0, 8, "ST1", "demonstrative_pronoun")]},
            {"id": "u4", "speaker": "solver", "start_ms": 6000, "end_ms": 7000,
             "text": "rotate that and the square",
             "expressions": [_expr("e4", 7, 11, "ST1", "demonstrative_pronoun"),
                             _expr("e5", 16, 26, "SQ", "unique_name")]},
            {"id": "u5", "speaker": "solver", "start_ms": 9000, "end_ms": 9800,
             "text": "the square again", "expressions": [_expr("e6", 0, 10, "SQ", "unique_name")]},
        ],
        "actions": [
            {"id": "a1", "piece": "SQ", "kind": "move", "start_ms": 2500, "end_ms": 3500,
             "x": 150, "y": 300, "rotation": 0, "flipped": False},
            {"id": "a2", "piece": "ST1", "kind": "rotate", "start_ms": 5500, "end_ms": 6500,
             "x": 300, "y": 100, "rotation": 90, "flipped": False},
        ],
        "cursor": [{"t_ms": 0, "x": 400, "y": 300}, {"t_ms": 3500, "x": 150, "y": 300}],
    }  # fmt: skip


@pytest.fixture(scope="module")
def hand():
    """The hand-made session, its instances and the recency baseline's table."""
    session = load_session(json.dumps(_session()).encode("utf-8"), "t1.json")
    items = items_from_sessions([session])
    decisions = {o.item_id: o for o in recency_outputs(items)}
    return session, situated_instances([session], items, decisions)


# ------------------------------------------------------------------ clip list


def test_clip_rows_of_the_hand_made_session(hand):
    _, table = hand
    rows = clip_rows(table, ["e6", "e2", "e4", "e4"])
    assert [tuple(r[c] for c in CLIP_COLUMNS[:1] + CLIP_COLUMNS[3:]) for r in rows] == [
        ("e2", 1000, 4000, 3000, 4000),
        ("e4", 5200, 6000, 800, 6000),
        ("e6", 2500, 9000, 6500, 9000),
    ]
    assert {r["session"] for r in rows} == {"t1"}
    classes = dict(zip(table["instance"], table["class"], strict=True))
    assert [r["class"] for r in rows] == [classes[i] for i in ("e2", "e4", "e6")]
    # no context start (nothing said or done before e1): no clip
    with pytest.raises(ValueError, match="e1 has no context start"):
        clip_rows(table, ["e1"])
    with pytest.raises(ValueError, match="not in the instance table"):
        clip_rows(table, ["nope"])


def test_clip_summary_mean_and_sd(hand):
    _, table = hand
    rows = clip_rows(table, ["e2", "e4", "e6"])
    summary = clip_summary(rows)
    m = (800 + 3000 + 6500) / 3
    sd = math.sqrt(((800 - m) ** 2 + (3000 - m) ** 2 + (6500 - m) ** 2) / 2)
    assert summary["n"] == 3
    assert summary["mean_ms"] == pytest.approx(3433.3333333)
    assert summary["sd_ms"] == pytest.approx(sd) == pytest.approx(2874.6014)
    assert (summary["min_ms"], summary["max_ms"]) == (800, 6500)
    one = clip_summary(rows[:1])
    assert one["sd_ms"] is None and one["mean_ms"] == 3000
    assert clip_summary([])["mean_ms"] is None


@pytest.fixture(scope="module")
def designed(tmp_path_factory):
    """The demo study's design (the recency baseline, 36 subjects)."""
    sessions = read_sessions(DEMO)
    items = items_from_sessions(sessions)
    decisions = {o.item_id: o for o in recency_outputs(items)}
    root = tmp_path_factory.mktemp("campaign")
    write_corpus_file(sessions, root / "testset.json")
    folder = write_submission(
        root / "submissions" / "organisers" / "recency",
        list(decisions.values()),
        description="recency",
    )
    record = root / "validation" / "organisers" / "recency.json"
    record.parent.mkdir(parents=True)
    record.write_text(
        json.dumps({"team": "organisers", "system": "recency", "status": "accepted"}),
        encoding="utf-8",
    )
    camp = {
        "testset": root / "testset.json",
        "outputs": folder / "outputs.tsv",
        "validation": record,
    }
    out = tmp_path_factory.mktemp("clips")
    settings = _design(camp, out)
    return camp, out, settings, sessions


def test_clips_tsv_and_design_json_of_the_demo(designed):
    _, out, settings, sessions = designed
    rows = read_tsv(out / "clips.tsv")
    assert list(rows[0]) == list(CLIP_COLUMNS)
    shown = sorted({r["item"] for r in read_tsv(out / "design.tsv")})
    assert [r["instance"] for r in rows] == shown and len(rows) == 72
    # each clip recomputed from the session files: the earlier of the last
    # mention of the target and the last action on it, to the utterance's onset
    by_id = {s.id: s for s in sessions}
    durations = []
    for r in rows:
        session = by_id[r["session"]]
        utterance, expression = session.find(r["instance"])
        onset = utterance.start_ms
        mention = max(
            u.start_ms
            for u in session.utterances
            if u.start_ms < onset
            and any(e.referent == expression.referent for e in u.expressions)
        )
        action = max(
            a.start_ms
            for a in session.actions
            if a.piece == expression.referent and a.start_ms < onset
        )
        start = min(mention, action)
        assert onset - start <= 30_000
        assert (int(r["start_ms"]), int(r["end_ms"])) == (start, onset), r
        assert int(r["utterance_onset_ms"]) == onset
        assert int(r["duration_ms"]) == onset - start
        durations.append(onset - start)
    clips = read_json(out / "design.json")["clips"]
    assert clips == settings["clips"]
    assert clips["n"] == 72
    assert clips["mean_ms"] == pytest.approx(np.mean(durations))
    assert clips["sd_ms"] == pytest.approx(np.std(durations, ddof=1))
    assert (clips["min_ms"], clips["max_ms"]) == (min(durations), max(durations))
    # the demo's figures (the seed's corpus gave 15.2 s, SD 7.9 s)
    assert round(clips["mean_ms"]) == 7165 and round(clips["sd_ms"]) == 6040
    assert {c: v["n"] for c, v in clips["classes"].items()} == {
        "FP": 32,
        "TP": 20,
        "FN": 20,
    }
    for cls, entry in clips["classes"].items():
        mine = [int(r["duration_ms"]) for r in rows if r["class"] == cls]
        assert entry["mean_ms"] == pytest.approx(np.mean(mine))
        assert entry["sd_ms"] == pytest.approx(np.std(mine, ddof=1))


def test_clip_durations_in_the_report(designed, tmp_path):
    from stecflow.studykinds.situated_identification.report import situated_section
    from tests.unit.test_report_situated import (
        cells,
        make_context,
        render,
        summary,
        text_of,
    )

    _, _, settings, _ = designed
    design = {"clips": settings["clips"]}
    assert clip_facts(design) == [
        ("Clip durations", "mean 7.2 s (SD = 6.0 s), from 2.4 to 29.7 s, 72 clips")
    ]
    data = summary()
    data["design"]["clips"] = json.loads(json.dumps(settings["clips"], sort_keys=True))
    ctx = make_context(tmp_path, summary_data=data)
    html = render(situated_section(ctx))
    assert "Clip durations: mean 7.2 s (SD = 6.0 s), from 2.4 to 29.7 s, 72 clips" in (
        text_of(html)
    )
    assert "studies/situated/clips.tsv" in html
    assert cells(html, "situated-situated-clips")[-4:] == [
        ["TP", "20", "4.6", "1.6", "3.0", "8.4"],
        ["FN", "20", "10.6", "7.2", "4.0", "29.0"],
        ["FP", "32", "6.6", "6.2", "2.4", "29.7"],
        ["All", "72", "7.2", "6.0", "2.4", "29.7"],
    ]
    assert clip_facts({}) == [] and clip_blocks(ctx, "situated", {}) == []


def test_clip_durations_in_the_datasheet(designed):
    from stecflow.release.heds import datasheet

    _, _, settings, _ = designed
    config = {"campaign": {"title": "T", "tasks": ["situated_dialogue"]}}
    study = {
        "study": "situated",
        "task": "situated_identification",
        "system": "organisers/recency",
        "counts": {"fp": 32, "tp": 20, "fn": 20},
        "subjects": 36,
        "seed": 2010,
        "n_trials": 72,
    }
    without = datasheet(config, [study])
    assert "may replay the clip" in without and "clips lasted" not in without
    sheet = datasheet(config, [{**study, "clips": settings["clips"]}])
    assert (
        "may replay the clip; the 72 clips lasted 7.2 s on average (SD = 6.0 s,"
        " 2.4 to 29.7 s)" in sheet
    )


# ------------------------------------------------------------ the recordings


def _sine(path: Path, seconds: float, rate: int = 8000) -> None:
    subprocess.run(
        ["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
         f"sine=frequency=440:sample_rate={rate}:duration={seconds}", "-ac", "1",
         str(path)],
        check=True,
    )  # fmt: skip


def _duration_ms(path: Path) -> float:
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of",
         "default=noprint_wrappers=1:nokey=1", str(path)],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return float(out) * 1000


@needs_ffmpeg
def test_cut_is_the_stretch_and_the_same_bytes_twice(tmp_path):
    _sine(tmp_path / "s01.wav", 12)
    clip = cut_clip(tmp_path / "s01.wav", 1500, 4250)
    assert clip[:4] == b"OggS" and b"OpusHead" in clip[:100]
    assert cut_clip(tmp_path / "s01.wav", 1500, 4250) == clip
    (tmp_path / "clip.opus").write_bytes(clip)
    # 2 750 ms; Opus pads a few ms (pre-skip, last frame)
    assert _duration_ms(tmp_path / "clip.opus") == pytest.approx(2750, abs=25)
    assert cut_clip(tmp_path / "s01.wav", 1500, 4000) != clip
    with pytest.raises(ValueError, match="start < end"):
        cut_clip(tmp_path / "s01.wav", 4000, 4000)


@needs_ffmpeg
def test_recordings_are_checked_with_clear_messages(tmp_path):
    where = "studies[situated].situated.recordings"
    clips = [{"session": "s01", "end_ms": 5000}, {"session": "s02", "end_ms": 9000}]
    _sine(tmp_path / "s01.wav", 6)
    with pytest.raises(ConfigError) as caught:
        recording_files(tmp_path, clips, where)
    assert caught.value.field == where
    assert (
        f"session s02 has no recording: expected {tmp_path / 's02.wav'} (or the same"
        " name ending in one of .wav, .flac, .mp3" in caught.value.message
    )
    (tmp_path / "s02.mp3").write_text("not sound at all\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        recording_files(tmp_path, clips, where)
    assert (
        f"the recording of session s02, {tmp_path / 's02.mp3'}, is not an audio"
        " file ffmpeg can read" in caught.value.message
    )
    (tmp_path / "s02.mp3").unlink()
    _sine(tmp_path / "s02.flac", 8)
    with pytest.raises(ConfigError) as caught:
        recording_files(tmp_path, clips, where)
    assert "s02.flac, lasts 8.000 s but a clip cut from it ends at 9.000 s" in (
        caught.value.message
    )
    _sine(tmp_path / "s02.ogg", 10)
    with pytest.raises(ConfigError, match=r"session s02 has 2 recordings \(s02.flac"):
        recording_files(tmp_path, clips, where)
    (tmp_path / "s02.flac").unlink()
    assert recording_files(tmp_path, clips, where) == {
        "s01": tmp_path / "s01.wav",
        "s02": tmp_path / "s02.ogg",
    }
    with pytest.raises(ConfigError, match="is not a folder"):
        recording_files(tmp_path / "none", clips, where)


def test_without_ffmpeg_the_error_says_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(ConfigError, match=r"apt-get install ffmpeg") as caught:
        recording_files(tmp_path, [{"session": "s01", "end_ms": 10}], "where")
    assert caught.value.field == "where"
    with pytest.raises(ConfigError, match=r"not installed: install it"):
        cut_clip(tmp_path / "s01.wav", 0, 10)


def test_recordings_in_the_config(tmp_path):
    spec = _spec(recordings=str(tmp_path))
    spec.update(design="latin_square", shared=0, practice=0, variant=None)
    check_spec(spec, 0)  # a folder: fine
    for extra, words in (
        ({"recordings": str(tmp_path / "none")}, "is not a folder"),
        ({"recordings": str(tmp_path), "speech": True}, "leave out speech"),
        ({"recordings": str(tmp_path), "media": str(tmp_path)}, "leave out speech"),
    ):
        spec["situated"] = {**_spec()["situated"], **extra}
        with pytest.raises(ConfigError, match=words) as caught:
            check_spec(spec, 3)
        assert caught.value.field == "studies[3].situated.recordings"
    spec["situated"] = {**_spec()["situated"], "recordings": None}
    check_spec(spec, 0)
    assert spec["situated"]["recordings"] is None
    sessions = read_sessions(DEMO)
    with pytest.raises(StimuliError, match="leave out speech and media"):
        make_situated_study_files(
            sessions,
            {"L01": [("s01", "s01-e007", None)]},
            study="x",
            recordings={},
            speech=True,
        )


@needs_ffmpeg
def test_stimuli_play_clips_cut_from_the_recordings(designed, tmp_path_factory):
    camp, _, _, sessions = designed
    folder = tmp_path_factory.mktemp("recordings")
    # a small design (2 FP, 2 TP, 2 FN instances; 2 lists): 6 clips to cut
    spec = _spec(subjects=2, n_per_class=2, max_fp=2, recordings=str(folder))
    out = tmp_path_factory.mktemp("small-clips")
    _design(camp, out, spec)
    clips = {r["instance"]: r for r in read_tsv(out / "clips.tsv")}
    assert len(clips) == 6
    for session in sessions:  # a recording of each session shown, to its end
        if any(c["session"] == session.id for c in clips.values()):
            end = max(u.end_ms for u in session.utterances)
            _sine(folder / f"{session.id}.wav", math.ceil(end / 1000) + 1)

    def build(web: Path) -> dict:
        return build_situated_stimuli(
            spec, out / "design.tsv", camp["testset"], web, web.parent / "dmdx"
        )

    first = build(out / "a" / "web")
    key = json.loads((out / "a" / "stimuli-key.json").read_text(encoding="utf-8"))
    assert key["clip_audio"]["codec"] == "libopus"
    assert len(key["contexts"]) == 6
    names = set()
    for trial in key["lists"][0]["trials"]:
        context = key["contexts"][trial["context"]]
        clip = clips[trial["item"]]
        assert (context["start_ms"], context["end_ms"], context["duration_ms"]) == (
            int(clip["start_ms"]),
            int(clip["end_ms"]),
            int(clip["duration_ms"]),
        )
        assert context["audio"].startswith("audio/clip-")
        path = out / "a" / "web" / context["audio"]
        assert path.read_bytes()[:4] == b"OggS"
        # the clip's length, within what Opus pads
        assert _duration_ms(path) == pytest.approx(context["duration_ms"], abs=25)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        assert context["audio"] == f"audio/clip-{digest[:20]}.opus"
        names.add(context["audio"])
    assert len(names) == 6  # every clip its own stretch
    # each offline list holds the clips it plays
    for name in names:
        offline = out / "a" / "offline" / "L01" / name
        assert offline.read_bytes() == (out / "a" / "web" / name).read_bytes()
    # the same recordings, the same bytes
    second = build(out / "b" / "web")
    assert first["sha256"] == second["sha256"]
    # a session without its recording: named, with the path expected
    missing = sorted({c["session"] for c in clips.values()})[0]
    (folder / f"{missing}.wav").unlink()
    with pytest.raises(ConfigError) as caught:
        build(out / "c" / "web")
    assert caught.value.field == "studies[situated].situated.recordings"
    assert (
        f"session {missing} has no recording: expected {folder / (missing + '.wav')}"
        in caught.value.message
    )

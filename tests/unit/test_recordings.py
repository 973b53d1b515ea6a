"""Recorded speech for spoken identification studies (stecflow.studies.recordings):
the config entry, the checks of the organisers' files, the copies in the web folder
and what the report and the datasheet say of them."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import struct
import wave
from pathlib import Path

import pytest

from stecflow.core.errors import ConfigError, StimuliError
from stecflow.core.voicing import speech_text
from stecflow.studies import recordings, speech
from stecflow.studies.recordings import audio_type, check_speech, wav_duration
from stecflow.studies.setup import study_specs
from stecflow.studies.stimuli import build_study, make_study_files
from tests.browser.studykit import IMAGES, demo_design, demo_items, demo_outputs

SYSTEMS = ("full-brevity", "greedy", "HUMAN-1")


def tone_wav(hz: float, seconds: float, rate: int = 8000) -> bytes:
    """A 16-bit mono sine tone as WAV bytes (``seconds * rate`` frames)."""
    frames = b"".join(
        struct.pack("<h", int(8000 * math.sin(2 * math.pi * hz * i / rate)))
        for i in range(int(round(seconds * rate)))
    )
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(rate)
        handle.writeframes(frames)
    return buffer.getvalue()


def _inputs():
    design = demo_design(systems=SYSTEMS, n_items=3, subjects=3, n_practice=1)
    test, dev = demo_items()
    return design, test + dev, demo_outputs(tuple(sorted(SYSTEMS)))


def _played(design, outputs) -> list[tuple[str, str]]:
    """(folder, item) of every description the design plays, as the layout names
    them: the system's folder, or practice/ for a practice trial's reference."""
    pairs = set()
    for row in design.trials.to_dict("records"):
        system, item = row.get("system"), str(row["item"])
        if system and item in outputs.get(system, {}):
            pairs.add((str(system), item))
        else:
            pairs.add(("practice", item))
    return sorted(pairs)


def _record(folder: Path, pairs, seconds=0.25) -> dict[tuple[str, str], bytes]:
    """Write one tone per (folder, item), each at its own pitch; return the bytes."""
    written = {}
    for n, (system, item) in enumerate(pairs):
        data = tone_wav(300 + 20 * n, seconds)
        path = folder / system / f"{item}.wav"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written[(system, item)] = data
    return written


@pytest.fixture
def no_espeak(monkeypatch):
    """espeak-ng absent: a recorded study must not need it."""

    def refuse(*args, **kwargs):
        raise AssertionError("espeak-ng was called")

    monkeypatch.setattr(speech, "espeak_version", lambda: None)
    monkeypatch.setattr(speech, "speak", refuse)


def _build(folder: Path, **speech_options):
    design, items, outputs = _inputs()
    return make_study_files(
        design,
        items,
        outputs,
        task="identification",
        variant="spoken",
        images_dir=IMAGES,
        speech_source={"source": "recorded", "audio": str(folder), **speech_options},
    )


# ------------------------------------------------------------------ the copies


def test_recordings_are_copied_named_by_sha256_and_recorded_in_the_key(
    tmp_path, no_espeak
):
    design, _, outputs = _inputs()
    pairs = _played(design, outputs)
    written = _record(tmp_path / "rec", pairs)
    # 3 systems x 3 items, and the practice item's reference
    assert len(pairs) == 10 and [p for p in pairs if p[0] == "practice"]
    bundle = _build(tmp_path / "rec")
    trials = [t for lst in bundle.document["lists"] for t in lst["trials"]]
    assert len(trials) == 3 * (3 + 1)
    for trial in trials:
        voiced = (
            ("practice", trial["item"])
            if trial["practice"]
            and trial["item"] not in outputs.get(trial["system"], {})
            else (trial["system"], trial["item"])
        )
        data = written[voiced]
        sha = hashlib.sha256(data).hexdigest()
        assert trial["audio"] == f"audio/{sha[:20]}.wav"
        assert bundle.files[trial["audio"]] == data  # copied, not re-encoded
        assert trial["recording"] == {
            "file": f"{voiced[0]}/{voiced[1]}.wav",
            "sha256": sha,
        }
    manifest = {
        row["path"]: row
        for row in csv.DictReader(
            io.StringIO(bundle.files["MANIFEST.tsv"].decode()), delimiter="\t"
        )
    }
    for data in written.values():
        sha = hashlib.sha256(data).hexdigest()
        assert manifest[f"audio/{sha[:20]}.wav"]["sha256"] == sha
    assert sorted(p for p in bundle.files if p.startswith("audio/")) == sorted(
        f"audio/{hashlib.sha256(d).hexdigest()[:20]}.wav" for d in written.values()
    )
    # 10 tones of 0.25 s (2000 frames at 8000 Hz each)
    assert bundle.document["speech"] == {
        "source": "recorded",
        "files": 10,
        "formats": {"wav": 10},
        "bytes": sum(len(d) for d in written.values()),
        "wav_files": 10,
        "wav_seconds": 2.5,
    }
    # the participant's files say neither the system nor the source file
    shown = [bundle.files, *bundle.offline.values()]
    assert any(b"audio/" in f["stimuli.js"] for f in bundle.offline.values())
    for files in shown:
        for path, data in files.items():
            if path.endswith((".json", ".js")):
                assert b"greedy/" not in data and b'"recording"' not in data, path
    key = json.loads(bundle.key)
    assert key["speech"]["files"] == 10
    assert all("recording" in t for lst in key["lists"] for t in lst["trials"])


def test_the_recorded_study_is_byte_deterministic(tmp_path, no_espeak):
    design, items, outputs = _inputs()
    _record(tmp_path / "rec", _played(design, outputs))
    spec = {"source": "recorded", "audio": str(tmp_path / "rec")}
    out = []
    for n, shown in enumerate((items, tuple(reversed(items)))):
        build_study(
            design,
            shown,
            outputs,
            task="identification",
            variant="spoken",
            images_dir=IMAGES,
            out_dir=tmp_path / f"s{n}" / "web",
            dmdx_dir=tmp_path / f"s{n}" / "dmdx",
            speech_source=spec,
        )
        out.append(
            {
                p.relative_to(tmp_path / f"s{n}").as_posix(): p.read_bytes()
                for p in sorted((tmp_path / f"s{n}").rglob("*"))
                if p.is_file()
            }
        )
    assert out[0] == out[1]
    # the DMDX folder gets the same files (DMDX plays WAV)
    assert len(list((tmp_path / "s0" / "dmdx").glob("*.wav"))) == 10 + 1  # + bell.wav


def test_recorded_audio_of_every_accepted_type(tmp_path, no_espeak):
    design, _, outputs = _inputs()
    pairs = _played(design, outputs)
    written = _record(tmp_path / "rec", pairs)
    heads = {
        ".mp3": b"ID3\x04\x00\x00\x00\x00\x00\x00" + bytes(100),
        ".ogg": b"OggS\x00\x02" + bytes(100),
        ".flac": b"fLaC\x00\x00\x00\x22" + bytes(100),
    }
    for (system, item), suffix in zip(pairs[:3], heads, strict=True):
        (tmp_path / "rec" / system / f"{item}.wav").unlink()
        (tmp_path / "rec" / system / f"{item}{suffix}").write_bytes(
            heads[suffix] + item.encode()
        )
        del written[(system, item)]
    bundle = _build(tmp_path / "rec")
    assert bundle.document["speech"]["formats"] == {
        "flac": 1,
        "mp3": 1,
        "ogg": 1,
        "wav": 7,
    }
    assert bundle.document["speech"]["wav_files"] == 7
    assert bundle.document["speech"]["wav_seconds"] == 1.75
    assert sorted({Path(p).suffix for p in bundle.files if p.startswith("audio/")}) == [
        ".flac",
        ".mp3",
        ".ogg",
        ".wav",
    ]


def test_a_manifest_names_each_recording(tmp_path, no_espeak):
    design, _, outputs = _inputs()
    pairs = _played(design, outputs)
    folder = tmp_path / "session-1"
    folder.mkdir()
    lines = ["system\titem\tfile"]
    for n, (system, item) in enumerate(pairs):
        (folder / f"take-{n:02d}.wav").write_bytes(tone_wav(500 + 10 * n, 0.125))
        lines.append(f"{system}\t{item}\ttake-{n:02d}.wav")
    manifest = tmp_path / "takes.tsv"
    manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    bundle = _build(folder, manifest=str(manifest))
    assert bundle.document["speech"]["wav_seconds"] == 1.25
    sources = {
        t["recording"]["file"]
        for lst in bundle.document["lists"]
        for t in lst["trials"]
    }
    assert sources == {f"take-{n:02d}.wav" for n in range(10)}
    # a row missing, a bad header, a path out of the folder, a duplicate
    manifest.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    system, item = pairs[-1]
    with pytest.raises(StimuliError, match=f"system {system}, item {item}: no row in"):
        _build(folder, manifest=str(manifest))
    manifest.write_text("system\titem\n", encoding="utf-8")
    with pytest.raises(StimuliError, match="line 1: the header must be system TAB"):
        _build(folder, manifest=str(manifest))
    manifest.write_text(
        "\n".join([*lines, f"{system}\t{item}\t../x.wav", lines[1]]) + "\n",
        encoding="utf-8",
    )
    with pytest.raises(StimuliError) as caught:
        _build(folder, manifest=str(manifest))
    assert "line 12: '../x.wav' is not a path inside the folder" in str(caught.value)
    assert f"line 13: {pairs[0][0]} {pairs[0][1]} is listed twice" in str(caught.value)


# ------------------------------------------------------------------ the checks


def test_every_missing_recording_is_listed_and_no_system_falls_back(
    tmp_path, no_espeak
):
    design, _, outputs = _inputs()
    pairs = _played(design, outputs)
    _record(tmp_path / "rec", [p for p in pairs if p[0] != "HUMAN-1"])
    greedy = [item for system, item in pairs if system == "greedy"]
    for item in greedy[:2]:
        (tmp_path / "rec" / "greedy" / f"{item}.wav").unlink()
    with pytest.raises(StimuliError) as caught:
        _build(tmp_path / "rec")
    message = str(caught.value)
    assert message.startswith(
        f"study demo-study: speech.audio: 3 recording problem(s) in {tmp_path / 'rec'}:"
    )
    assert (
        f"system HUMAN-1 has no recordings (expected the folder"
        f" {tmp_path / 'rec' / 'HUMAN-1'})" in message
    )
    for item in greedy[:2]:
        assert (
            f"system greedy, item {item}: missing"
            f" {tmp_path / 'rec' / 'greedy' / f'{item}.wav'} (or .mp3, .ogg, .oga,"
            " .opus, .flac)" in message
        )


def test_files_that_are_not_audio_too_large_or_doubled_are_refused(tmp_path, no_espeak):
    design, _, outputs = _inputs()
    pairs = _played(design, outputs)
    folder = tmp_path / "rec"
    _record(folder, pairs, seconds=0.01)  # 204 bytes each
    (a, b, c, d) = [folder / s / f"{i}" for s, i in pairs[:4]]
    a.with_suffix(".wav").write_bytes(b"<html>not a recording</html>")
    b.with_suffix(".wav").unlink()
    b.with_suffix(".mp3").parent.mkdir(exist_ok=True)
    Path(f"{b}.wav").write_bytes(b"ID3\x04" + bytes(100))  # MP3 named .wav
    Path(f"{c}.ogg").write_bytes(b"OggS" + bytes(100))  # beside c.wav
    Path(f"{d}.wav").write_bytes(tone_wav(440, 0.5))  # 8044 bytes
    with pytest.raises(StimuliError) as caught:
        _build(folder, max_mb=0.001)
    message = str(caught.value)
    assert "4 recording problem(s)" in message
    assert (
        f"{a}.wav: not audio (its first bytes are no RIFF/WAVE, OggS, ID3, MPEG"
        " frame or fLaC header)" in message
    )
    assert f"{b}.wav: MP3 audio named .wav" in message
    assert f"item {c.name}: 2 files ({c.name}.wav, {c.name}.ogg); keep one" in message
    assert f"{d}.wav: 0.0 MB is more than the 0.001 MB allowed (speech.max_mb)" in (
        message
    )


def test_audio_types_by_their_first_bytes():
    assert audio_type(tone_wav(440, 0.01)[:12]) == "wav"
    assert audio_type(b"\xff\xfb\x90\x64" + bytes(8)) == "mp3"  # MPEG-1 layer III
    assert audio_type(b"\xff\xf1\x50\x80" + bytes(8)) is None  # AAC (ADTS): layer 0
    assert audio_type(b"RIFF\x00\x00\x00\x00AVI ") is None
    assert audio_type(b"") is None
    assert wav_duration(tone_wav(440, 1.5, rate=16000)) == 1.5
    assert wav_duration(b"RIFF\x04\x00\x00\x00WAVE") is None  # no chunks


def test_the_speech_entry_is_checked_when_the_config_is_read():
    def spec(**extra):
        return {
            "id": "s1",
            "task": "identification",
            "systems": ["a/x", "b/y"],
            "subjects": 2,
            "seed": 1,
            **extra,
        }

    [checked] = study_specs(
        {
            "studies": [
                spec(variant="spoken", speech={"source": "recorded", "audio": "r"})
            ]
        }
    )
    assert checked["speech"] == {
        "source": "recorded",
        "audio": "r",
        "manifest": None,
        "max_mb": 20,
    }
    [synthetic] = study_specs(
        {"studies": [spec(variant="spoken", speech={"source": "synthetic"})]}
    )
    assert "speech" not in synthetic
    cases = [
        (
            spec(speech={"source": "recorded", "audio": "r"}),
            "studies[0].speech: speech settings are for a spoken identification"
            " study (variant: spoken), not variant together",
        ),
        (
            spec(variant="spoken", speech={"source": "recorded"}),
            "studies[0].speech.audio: recorded speech needs the folder of the"
            " recordings (audio: <folder>)",
        ),
        (
            spec(variant="spoken", speech={"source": "espeak"}),
            "studies[0].speech.source: must be synthetic or recorded, got 'espeak'",
        ),
        (
            spec(variant="spoken", speech={"source": "synthetic", "audio": "r"}),
            "studies[0].speech.audio: is for recorded speech (source: recorded);"
            " synthetic speech is set with experiment.voice and experiment.speech_wpm",
        ),
        (
            spec(
                variant="spoken",
                speech={"source": "recorded", "audio": "r", "max_mb": 0},
            ),
            "studies[0].speech.max_mb: must be a number of MB above 0 and at most"
            " 1000, got 0",
        ),
        (
            spec(variant="spoken", speech={"audio": "r", "folder": "r"}),
            "studies[0].speech.folder: unknown key; known keys are source, audio,"
            " manifest, max_mb",
        ),
        (
            {**spec(speech={"source": "recorded", "audio": "r"}), "task": "rating"},
            "studies[0].speech: speech settings are for task: identification",
        ),
    ]
    for entry, message in cases:
        with pytest.raises(ConfigError) as caught:
            study_specs({"studies": [entry]})
        assert str(caught.value) == message
    assert check_speech(None, "spoken", "s") is None


# ------------------------------------------------------------------ report, datasheet


def test_how_the_descriptions_were_voiced_in_words():
    assert (
        speech_text(
            {
                "source": "recorded",
                "files": 10,
                "formats": {"wav": 10},
                "bytes": 40440,
                "wav_files": 10,
                "wav_seconds": 2.5,
            }
        )
        == "recorded by the organisers: 10 audio files (WAV 10), 2.5 s in all"
    )
    assert speech_text(
        {
            "source": "recorded",
            "files": 10,
            "formats": {"flac": 1, "mp3": 1, "ogg": 1, "wav": 7},
            "wav_files": 7,
            "wav_seconds": 1.75,
        }
    ) == (
        "recorded by the organisers: 10 audio files (FLAC 1, MP3 1, OGG 1, WAV 7),"
        " the 7 WAV files 1.8 s in total"
    )
    assert speech_text(
        {"source": "recorded", "files": 1, "formats": {"mp3": 1}, "wav_files": 0}
    ) == ("recorded by the organisers: 1 audio file (MP3 1)")
    assert speech_text(None) is None


def test_the_datasheet_and_the_summary_say_the_audio_was_recorded(tmp_path, no_espeak):
    from stecflow.release.heds_kinds import IDENTIFICATION_SHEET
    from stecflow.release.studyfacts import study_speech

    design, items, outputs = _inputs()
    _record(tmp_path / "rec", _played(design, outputs))
    build_study(
        design,
        items,
        outputs,
        task="identification",
        variant="spoken",
        images_dir=IMAGES,
        out_dir=tmp_path / "studies" / "demo-study" / "web",
        speech_source={"source": "recorded", "audio": str(tmp_path / "rec")},
    )
    voiced = study_speech([tmp_path / "studies" / "demo-study" / "web"])
    assert voiced["demo-study"]["files"] == 10
    config_study = {"variant": "spoken", "speech": {"source": "recorded"}}
    trial = IDENTIFICATION_SHEET.trial(
        {"variant": "spoken", "speech": voiced["demo-study"]}, config_study
    )
    assert trial == (
        "the grid of pictures while the description is spoken (recorded by the"
        " organisers: 10 audio files (WAV 10), 2.5 s in all); the participant"
        " clicks the picture meant"
    )
    # before the stimuli are built, the config says it
    assert "(recorded by the organisers);" in IDENTIFICATION_SHEET.trial(
        {"variant": "spoken"}, config_study
    )
    key = tmp_path / "studies" / "demo-study" / "stimuli-key.json"
    assert recordings.key_speech(key) == voiced["demo-study"]
    assert recordings.key_speech(tmp_path / "absent.json") is None


def test_the_report_says_the_descriptions_were_recorded(tmp_path, no_espeak):
    """Built, simulated and merged: the study's summary keeps the key's
    ``speech`` and its section in the report says how the audio was made."""
    from stecflow.judgments.simulate import simulate_study
    from stecflow.judgments.study import merge_study
    from stecflow.report.human import human_section
    from stecflow.report.inputs import JudgmentStudy
    from stecflow.studies.setup import _design_text
    from tests.browser.studykit import DEMO
    from tests.unit.test_honest_statistics import _context

    design, items, outputs = _inputs()
    _record(tmp_path / "rec", _played(design, outputs))
    build_study(
        design,
        items,
        outputs,
        task="identification",
        variant="spoken",
        images_dir=IMAGES,
        out_dir=tmp_path / "study" / "web",
        speech_source={"source": "recorded", "audio": str(tmp_path / "rec")},
    )
    key = tmp_path / "study" / "stimuli-key.json"
    responses = tmp_path / "responses.tsv"
    simulate_study(key, [DEMO / "test.xml", DEMO / "dev.xml"], responses, seed=3)
    (tmp_path / "design.tsv").write_text(_design_text(design), encoding="utf-8")
    summary = merge_study(
        tmp_path / "design.tsv",
        [responses],
        items_paths=[DEMO / "test.xml", DEMO / "dev.xml"],
        task="identification",
        variant="spoken",
        study=design.study,
        key_path=key,
        out_measures_tsv=tmp_path / "measures.tsv",
    )
    assert summary["speech"] == {
        "source": "recorded",
        "files": 10,
        "formats": {"wav": 10},
        "bytes": 10 * 4044,  # 44 header bytes and 2000 16-bit frames each
        "wav_files": 10,
        "wav_seconds": 2.5,
    }
    from stecflow.core.io import read_tsv

    study = JudgmentStudy(
        design.study, measures=read_tsv(tmp_path / "measures.tsv"), summary=summary
    )
    texts = [
        "".join(part["text"] for part in block["parts"])
        for block in human_section(_context([], [study]))
        if block["kind"] == "p"
    ]
    assert (
        "The descriptions were recorded by the organisers: 10 audio files (WAV 10),"
        " 2.5 s in all." in texts
    )

"""A situated trial's clip cut from a session recording, played with the replay.

Seed 000 §5.1: "The audio of the dialogue fragment is provided in synchronisation
with the video." The study is built with a recording of session s01 (a sine
made with ffmpeg, as long as the session); the clip of s01-e007 (13 650 to
18 629 ms, 4 979 ms) is cut from it. In chromium the clip's ``<audio>`` starts
with the drawn replay, plays while the board's clock advances (the two clocks
within 300 ms of each other), stops with it, and on a replay both restart from
the clip's start. Skips without ffmpeg (apt-get install ffmpeg).
"""

from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path

import pytest

from stecflow.data.dialogue import read_corpus
from stecflow.studykinds.situated_identification.stimuli import build_situated_study

ROOT = Path(__file__).resolve().parents[2]
SPEED = 1.0  # the recording plays at its own speed: the replay follows it

pytestmark = pytest.mark.skipif(
    not (shutil.which("ffmpeg") and shutil.which("ffprobe")),
    reason="ffmpeg is not installed (Debian/Ubuntu: apt-get install ffmpeg)",
)

_CLOCKS = """() => {
    const audio = document.querySelector('#clip-audio');
    return {board: Number(document.querySelector('#board').dataset.t),
            audio: audio.currentTime * 1000, paused: audio.paused,
            starts: Number(document.body.dataset.clipAudioStarts || 0)};
}"""


def _build(tmp_path: Path) -> Path:
    sessions = {s.id: s for s in read_corpus(ROOT / "resources" / "dialogue-demo")}
    end = max(u.end_ms for u in sessions["s01"].utterances)
    recording = tmp_path / "s01.wav"
    subprocess.run(
        ["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
         f"sine=frequency=330:sample_rate=8000:duration={math.ceil(end / 1000)}",
         "-ac", "1", str(recording)],
        check=True,
    )  # fmt: skip
    web = tmp_path / "web"
    build_situated_study(
        sessions,
        {"L01": [("s01", "s01-e007", None)]},
        study="rexj-clip",
        out_dir=web,
        speed=SPEED,
        recordings={"s01": recording},
    )
    return web


def test_the_clip_audio_starts_and_restarts_with_the_replay(tmp_path, watched):
    web = _build(tmp_path)
    page = watched.page
    page.goto((web.parent / "offline" / "L01" / "index.html").resolve().as_uri())
    page.wait_for_selector("body[data-screen=welcome]")
    page.click("#start")
    page.wait_for_selector("body[data-screen=situated-context][data-order='1']")
    src = page.get_attribute("#clip-audio", "src")
    assert src.startswith("audio/clip-") and src.endswith(".opus")
    assert (web / src).is_file()
    before = page.evaluate(_CLOCKS)
    assert before["paused"] and before["starts"] == 0 and before["board"] == 0
    page.click("#play")
    page.wait_for_function(
        "() => Number(document.querySelector('#board').dataset.t) > 1500"
    )
    during = page.evaluate(_CLOCKS)
    assert not during["paused"] and during["starts"] == 1
    assert during["audio"] > 1000
    assert abs(during["audio"] - during["board"]) < 300, during
    page.wait_for_function(
        """() => document.body.dataset.onset === '1'
                && document.body.dataset.playing === '0'"""
    )
    after = page.evaluate(_CLOCKS)
    assert after["paused"] and after["board"] == 4979
    assert after["audio"] == pytest.approx(4979, abs=120)
    # the replay restarts the sound from the clip's start, with the board
    page.click("#play")
    page.wait_for_function("() => document.body.dataset.plays === '2'")
    page.wait_for_function(
        """() => !document.querySelector('#clip-audio').paused
                && Number(document.querySelector('#board').dataset.t) > 300"""
    )
    again = page.evaluate(_CLOCKS)
    assert again["starts"] == 2 and again["audio"] < 2500
    assert abs(again["audio"] - again["board"]) < 300, again
    page.click("#answers button[data-piece='SQ']")
    page.wait_for_selector("body[data-screen=done]")
    watched.assert_clean()

"""Audio clips cut from session recordings for a situated study (seed 000 §5.1).

Seed 000's evaluators watched a clip of the shared work area "from the context
start" to just before the utterance, with "the audio of the dialogue fragment
[...] provided in synchronisation with the video". stecflow draws the work area
from the log; when the organiser has the sessions' sound recordings (the
study's ``situated.recordings``: a folder with one audio file per session, named
``<session id>.<suffix>``, suffixes :data:`RECORDING_SUFFIXES`), each clip's
stretch of its session's recording is cut out with ffmpeg and played by the
page together with the replay (``components/situated_identification.js``).

* :func:`recording_files`: the recording of every session a study shows,
  checked: one file per session, an audio stream ffmpeg can read, long enough
  for the clips cut from it; every problem is a
  :class:`~stecflow.core.errors.ConfigError` naming the session and the path
  expected or found.
* :func:`cut_clip`: ``[start_ms, end_ms)`` of a recording, session time (the
  recording's 0 is the session's 0), as Ogg Opus bytes (:data:`CLIP_CODEC`):
  cut sample-exactly with ffmpeg's ``atrim`` filter, encoded by libopus at a
  fixed bit rate, 48 kHz, the recording's channels, with no metadata and
  ffmpeg's bit-exact flags, so the same recording and times give the same
  bytes (with the same ffmpeg).
* :func:`ffmpeg_tools`: ffmpeg and ffprobe on PATH, or a clear error saying
  how to install them (Debian/Ubuntu: ``apt-get install ffmpeg``).

May import: :mod:`stecflow.core`; the standard library (subprocess runs ffmpeg).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from stecflow.core.errors import ConfigError

__all__ = [
    "CLIP_CODEC",
    "RECORDING_SUFFIXES",
    "cut_clip",
    "ffmpeg_tools",
    "ffmpeg_version",
    "recording_files",
]

#: Suffixes of the recordings a study may give (any sound file ffmpeg reads, by
#: these names): WAV, FLAC, MP3, Ogg (Vorbis or Opus), Opus, M4A/AAC, WebM.
RECORDING_SUFFIXES = (
    ".wav",
    ".flac",
    ".mp3",
    ".ogg",
    ".oga",
    ".opus",
    ".m4a",
    ".aac",
    ".webm",
)

#: How the clips are encoded (recorded in the study document).
CLIP_CODEC = {"format": "ogg", "codec": "libopus", "bitrate": "64k", "rate": 48000}

#: A recording may be this much shorter than a clip's end (ms) before it is an
#: error: encoders pad and trim a few ms at either end.
_SLACK_MS = 50

_INSTALL = "install it (Debian/Ubuntu: apt-get install ffmpeg)"


def ffmpeg_tools(where: str = "situated.recordings") -> tuple[str, str]:
    """The paths of ffmpeg and ffprobe, or a ConfigError saying to install them."""
    ffmpeg, ffprobe = shutil.which("ffmpeg"), shutil.which("ffprobe")
    if ffmpeg is None or ffprobe is None:
        raise ConfigError(
            "the clips are cut from the recordings with ffmpeg (and checked with"
            f" ffprobe), which is not installed: {_INSTALL}, or leave out"
            " recordings",
            field=where,
        )
    return ffmpeg, ffprobe


def ffmpeg_version() -> str | None:
    """The installed ffmpeg's version (e.g. ``"5.1.9-0+deb12u1"``), or None."""
    exe = shutil.which("ffmpeg")
    if exe is None:
        return None
    try:
        out = subprocess.run(
            [exe, "-hide_banner", "-version"],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    words = out.split()
    return words[2] if len(words) > 2 and words[:2] == ["ffmpeg", "version"] else None


def _probe(ffprobe: str, path: Path) -> tuple[float | None, str]:
    """(duration in ms, problem) of *path*'s first audio stream."""
    try:
        done = subprocess.run(
            [
                ffprobe,
                "-v",
                "error",
                "-select_streams",
                "a:0",
                "-show_entries",
                "stream=codec_type,duration:format=duration",
                "-of",
                "json",
                str(path),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    except (OSError, subprocess.SubprocessError) as error:
        return None, f"ffprobe could not run ({error})"
    if done.returncode != 0:
        said = " ".join(done.stderr.split())[:200] or f"exit {done.returncode}"
        return None, f"ffprobe cannot read it ({said})"
    try:
        data = json.loads(done.stdout or "{}")
    except ValueError:
        return None, "ffprobe gave no answer"
    streams = [s for s in data.get("streams") or [] if s.get("codec_type") == "audio"]
    if not streams:
        return None, "it has no audio stream"
    for value in (
        streams[0].get("duration"),
        (data.get("format") or {}).get("duration"),
    ):
        try:
            return float(value) * 1000, ""
        except (TypeError, ValueError):
            continue
    return None, ""


def recording_files(
    folder: str | Path,
    clips: Iterable[Mapping[str, Any]],
    where: str,
) -> dict[str, Path]:
    """The recording of every session the *clips* are cut from, checked.

    Parameters
    ----------
    folder : path
        The study's ``situated.recordings`` folder.
    clips : iterable of mapping
        The clips to cut: ``session`` and ``end_ms`` (session time) at least.
    where : str
        The config key to name in errors (``studies[<id>].situated.recordings``).

    Returns
    -------
    dict of str to Path
        Session ID -> its recording, sorted by session.

    Raises
    ------
    ConfigError
        ffmpeg not installed; *folder* not a folder; a session without a
        recording (naming the session and the path expected), with more than
        one, one that is not an audio file ffprobe can read, or one that ends
        before a clip cut from it does (up to five problems listed).
    """
    _, ffprobe = ffmpeg_tools(where)
    root = Path(folder)
    if not root.is_dir():
        raise ConfigError(
            f"{root} is not a folder; give the folder holding one recording per"
            " session, named <session id>.<suffix>",
            field=where,
        )
    ends: dict[str, int] = {}
    for clip in clips:
        session = str(clip["session"])
        ends[session] = max(ends.get(session, 0), int(clip["end_ms"]))
    suffixes = ", ".join(RECORDING_SUFFIXES)
    found, problems = {}, []
    for session in sorted(ends):
        names = [root / f"{session}{s}" for s in RECORDING_SUFFIXES]
        present = [p for p in names if p.is_file()]
        if not present:
            problems.append(
                f"session {session} has no recording: expected {names[0]} (or the"
                f" same name ending in one of {suffixes})"
            )
            continue
        if len(present) > 1:
            problems.append(
                f"session {session} has {len(present)} recordings"
                f" ({', '.join(p.name for p in present)}); keep one"
            )
            continue
        path = present[0]
        duration, problem = _probe(ffprobe, path)
        if problem:
            problems.append(
                f"the recording of session {session}, {path}, is not an audio file"
                f" ffmpeg can read: {problem}"
            )
            continue
        if duration is not None and duration + _SLACK_MS < ends[session]:
            problems.append(
                f"the recording of session {session}, {path}, lasts"
                f" {duration / 1000:.3f} s but a clip cut from it ends at"
                f" {ends[session] / 1000:.3f} s of the session; the recording must"
                " start with the session and cover its clips"
            )
            continue
        found[session] = path
    if problems:
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise ConfigError(
            f"{len(problems)} problem(s) with the recordings in {root}:"
            f" {'; '.join(problems[:5])}{more}",
            field=where,
        )
    return found


def cut_clip(
    recording: str | Path,
    start_ms: int,
    end_ms: int,
    where: str = "situated.recordings",
) -> bytes:
    """``[start_ms, end_ms)`` of *recording* as Ogg Opus bytes (deterministic).

    Parameters
    ----------
    recording : path
        A sound file ffmpeg reads; its time 0 is the session's.
    start_ms, end_ms : int
        The clip, in ms of session time (``0 <= start_ms < end_ms``).
    where : str
        The config key to name in errors.

    Raises
    ------
    ConfigError
        ffmpeg not installed, or failing on the recording (its message).
    ValueError
        An empty or negative stretch.
    """
    if not 0 <= start_ms < end_ms:
        raise ValueError(f"a clip needs 0 <= start < end, got {start_ms}-{end_ms} ms")
    ffmpeg, _ = ffmpeg_tools(where)
    trim = f"atrim=start={start_ms / 1000:.3f}:end={end_ms / 1000:.3f}"
    with tempfile.TemporaryDirectory(prefix="stecflow-clip-") as tmp:
        out = Path(tmp) / "clip.opus"
        command = [
            ffmpeg,
            "-nostdin",
            "-hide_banner",
            "-loglevel",
            "error",
            "-threads",
            "1",
            "-i",
            str(recording),
            "-map",
            "0:a:0",
            "-af",
            f"{trim},asetpts=PTS-STARTPTS",
            "-map_metadata",
            "-1",
            "-map_chapters",
            "-1",
            "-c:a",
            CLIP_CODEC["codec"],
            "-b:a",
            CLIP_CODEC["bitrate"],
            "-ar",
            str(CLIP_CODEC["rate"]),
            "-flags:a",
            "+bitexact",
            "-fflags",
            "+bitexact",
            "-f",
            CLIP_CODEC["format"],
            str(out),
        ]
        try:
            done = subprocess.run(command, capture_output=True, timeout=600)
        except (OSError, subprocess.SubprocessError) as error:
            raise ConfigError(
                f"ffmpeg could not cut {recording}: {error}", field=where
            ) from None
        if done.returncode != 0 or not out.is_file():
            said = " ".join(done.stderr.decode("utf-8", "replace").split())[:300]
            raise ConfigError(
                f"ffmpeg could not cut {start_ms}-{end_ms} ms from {recording}:"
                f" {said or f'exit {done.returncode}'}",
                field=where,
            )
        return out.read_bytes()

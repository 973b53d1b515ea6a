"""Recorded descriptions: the organisers' own audio for a spoken identification study.

By default the spoken variant of the identification task synthesises every
description with espeak-ng (:mod:`stecflow.studies.speech`). A study may instead
play audio the organisers recorded (config ``studies[].speech``)::

    speech:
      source: recorded          # default: synthetic (espeak-ng)
      audio: recordings/spoken  # folder, from the campaign folder
      manifest: null            # optional TSV: system, item, file
      max_mb: 20                # largest file accepted, in MB (10^6 bytes)

Without a manifest the folder holds one file per description, named by the
system (as in the study's ``systems``, ``team/system``) and the item::

    <audio>/<team>/<system>/<item>.<wav|mp3|ogg|oga|opus|flac>
    <audio>/practice/<item>.<ext>     practice trials showing the item's human
                                      reference (no output of their system)
    <audio>/CONTROL/<item>.<ext>      control trials (``controls``), if any

With a manifest (a TSV file with the header ``system``, ``item``, ``file``; the
file a path inside the folder) only its rows count; its system column uses the
same names (``practice`` and ``CONTROL`` included).

:func:`recorded_audio` checks every trial's file at once and refuses the study
with the whole list of what is missing or wrong (a system without recordings is
named once with its expected folder, never replaced by espeak-ng): a file must
exist, be one of the accepted types by its first bytes (RIFF/WAVE, OggS, an ID3
tag or an MPEG audio frame, fLaC) agreeing with its suffix, and be at most
``max_mb`` MB. The files are copied byte for byte, never re-encoded, into the
web folder as ``audio/<sha256[:20]>.<suffix>``: named by their content (the
page's requests do not say which system a clip is from) and the same files
give the same names. Each trial records its source file and SHA-256 in the
study's key (``recording``, hidden from participants), ``MANIFEST.tsv`` lists
the copies with their SHA-256, and the study document's ``speech`` says
``source: recorded`` with the number of files, their formats, bytes and, for
WAV files, total duration (:func:`describe`).
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from stecflow.core.errors import ConfigError, StimuliError

__all__ = [
    "AUDIO_TYPES",
    "MAX_MB",
    "PRACTICE",
    "Recording",
    "audio_type",
    "check_speech",
    "describe",
    "key_speech",
    "recorded_audio",
    "wav_duration",
]

#: Suffix -> the audio type its first bytes must show.
AUDIO_TYPES = {
    ".wav": "wav",
    ".mp3": "mp3",
    ".ogg": "ogg",
    ".oga": "ogg",
    ".opus": "ogg",
    ".flac": "flac",
}
#: Default largest file, in MB (10^6 bytes).
MAX_MB = 20
#: The folder (and manifest system) of practice trials showing a reference.
PRACTICE = "practice"
#: The keys of ``studies[].speech``.
SPEECH_KEYS = ("source", "audio", "manifest", "max_mb")
_MANIFEST_COLUMNS = ["system", "item", "file"]


def audio_type(head: bytes) -> str | None:
    """The audio type of a file from its first bytes (at least 12), or None.

    Examples
    --------
    >>> audio_type(b"RIFF\\x24\\x00\\x00\\x00WAVEfmt ")
    'wav'
    >>> audio_type(b"ID3\\x04\\x00" + bytes(7)), audio_type(b"\\xff\\xfb\\x90\\x00")
    ('mp3', 'mp3')
    >>> audio_type(b"OggS\\x00\\x02"), audio_type(b"fLaC\\x00"), audio_type(b"<html>")
    ('ogg', 'flac', None)
    """
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "wav"
    if head[:4] == b"OggS":
        return "ogg"
    if head[:4] == b"fLaC":
        return "flac"
    if head[:3] == b"ID3":
        return "mp3"
    # an MPEG audio frame: 11 sync bits, a version and a layer that exist
    if len(head) >= 2 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0:
        version, layer = (head[1] >> 3) & 0b11, (head[1] >> 1) & 0b11
        if version != 0b01 and layer != 0b00:
            return "mp3"
    return None


def wav_duration(data: bytes) -> float | None:
    """Seconds of sound in a WAV file (its ``data`` chunk over the byte rate of
    its ``fmt`` chunk), or None if its chunks cannot be read.

    Examples
    --------
    >>> import io, wave
    >>> buffer = io.BytesIO()
    >>> with wave.open(buffer, "wb") as w:
    ...     w.setnchannels(1); w.setsampwidth(2); w.setframerate(8000)
    ...     w.writeframes(bytes(2 * 12000))
    >>> wav_duration(buffer.getvalue())
    1.5
    """
    if audio_type(data[:12]) != "wav":
        return None
    position, byte_rate, size = 12, None, None
    while position + 8 <= len(data):
        chunk, length = (
            data[position : position + 4],
            struct.unpack("<I", data[position + 4 : position + 8])[0],
        )
        body = position + 8
        if chunk == b"fmt " and length >= 16 and body + 16 <= len(data):
            byte_rate = struct.unpack("<I", data[body + 8 : body + 12])[0]
        elif chunk == b"data":
            # a streamed file may say 0 or more than it has: count what is there
            size = min(length, len(data) - body) if length else len(data) - body
            break
        position = body + length + (length & 1)
    if not byte_rate or size is None:
        return None
    return size / byte_rate


@dataclass(frozen=True)
class Recording:
    """One organiser's audio file, as copied into the web folder.

    Attributes
    ----------
    source : str
        Its path in the audio folder (``/``-separated).
    path : str
        Its copy in the web folder, ``audio/<sha256[:20]><suffix>``.
    sha256 : str
        SHA-256 of its bytes.
    kind : str
        Its audio type (``wav``, ``mp3``, ``ogg``, ``flac``).
    data : bytes
        Its bytes.
    """

    source: str
    path: str
    sha256: str
    kind: str
    data: bytes

    @property
    def record(self) -> dict[str, str]:
        """What a trial records of it in the study's key."""
        return {"file": self.source, "sha256": self.sha256}


def check_speech(speech: Any, variant: Any, where: str) -> dict[str, Any] | None:
    """``studies[].speech`` checked, defaults filled in; None for synthetic speech.

    Raises
    ------
    ConfigError
        For an unknown key, a bad value, or recorded speech in a study whose
        variant is not ``spoken`` (the field names the key).

    Examples
    --------
    >>> check_speech({"source": "recorded", "audio": "rec"}, "spoken", "s")
    {'source': 'recorded', 'audio': 'rec', 'manifest': None, 'max_mb': 20}
    >>> check_speech({"source": "synthetic"}, "spoken", "s") is None
    True
    >>> check_speech({"source": "recorded"}, "spoken", "studies[0].speech")
    Traceback (most recent call last):
    ...
    stecflow.core.errors.ConfigError: studies[0].speech.audio: recorded speech \
needs the folder of the recordings (audio: <folder>)
    """
    if speech is None:
        return None
    if not isinstance(speech, Mapping):
        raise ConfigError(
            "must be a mapping (source, audio, manifest, max_mb)", field=where
        )
    for key in sorted(speech):
        if key not in SPEECH_KEYS:
            raise ConfigError(
                f"unknown key; known keys are {', '.join(SPEECH_KEYS)}",
                field=f"{where}.{key}",
            )
    source = speech.get("source", "synthetic")
    if source not in ("synthetic", "recorded"):
        raise ConfigError(
            f"must be synthetic or recorded, got {source!r}", field=f"{where}.source"
        )
    if variant != "spoken":
        raise ConfigError(
            "speech settings are for a spoken identification study (variant:"
            f" spoken), not variant {variant or 'together'}",
            field=where,
        )
    if source == "synthetic":
        extra = sorted(k for k in speech if k != "source")
        if extra:
            raise ConfigError(
                "is for recorded speech (source: recorded); synthetic speech is"
                " set with experiment.voice and experiment.speech_wpm",
                field=f"{where}.{extra[0]}",
            )
        return None
    audio = speech.get("audio")
    if not isinstance(audio, str) or not audio.strip():
        raise ConfigError(
            "recorded speech needs the folder of the recordings (audio: <folder>)",
            field=f"{where}.audio",
        )
    manifest = speech.get("manifest")
    if manifest is not None and (not isinstance(manifest, str) or not manifest):
        raise ConfigError(
            "must be null or the path of a TSV file", field=f"{where}.manifest"
        )
    max_mb = speech.get("max_mb", MAX_MB)
    if (
        isinstance(max_mb, bool)
        or not isinstance(max_mb, (int, float))
        or not 0 < max_mb <= 1000
    ):
        raise ConfigError(
            f"must be a number of MB above 0 and at most 1000, got {max_mb!r}",
            field=f"{where}.max_mb",
        )
    return {
        "source": "recorded",
        "audio": audio,
        "manifest": manifest,
        "max_mb": max_mb,
    }


def _inside(name: str) -> bool:
    path = PurePosixPath(name)
    return bool(name) and not path.is_absolute() and ".." not in path.parts


def _read_manifest(path: Path) -> dict[tuple[str, str], str]:
    """(system, item) -> file, from a manifest TSV; errors name file and line."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise StimuliError(
            f"cannot read the recordings manifest {path}: {error}",
            field="speech.manifest",
        ) from None
    lines = text.splitlines()
    if not lines or lines[0].split("\t") != _MANIFEST_COLUMNS:
        raise StimuliError(
            f"{path}, line 1: the header must be {' TAB '.join(_MANIFEST_COLUMNS)}",
            field="speech.manifest",
        )
    found: dict[tuple[str, str], str] = {}
    problems = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = [c.strip() for c in line.split("\t")]
        if len(cells) != 3 or not all(cells):
            problems.append(f"line {number}: expected system, item and file")
            continue
        system, item, name = cells
        if not _inside(name):
            problems.append(f"line {number}: {name!r} is not a path inside the folder")
        elif (system, item) in found:
            problems.append(f"line {number}: {system} {item} is listed twice")
        else:
            found[(system, item)] = name
    if problems:
        raise StimuliError(
            f"{path}: {len(problems)} problem(s): {'; '.join(problems[:10])}",
            field="speech.manifest",
        )
    return found


def _candidates(folder: Path, system: str, item: str) -> list[Path]:
    """The files named ``<folder>/<system>/<item>.<accepted suffix>``."""
    base = folder.joinpath(*system.split("/"))
    return [
        base / f"{item}{suffix}"
        for suffix in AUDIO_TYPES
        if (base / f"{item}{suffix}").is_file()
    ]


def recorded_audio(
    wanted: Iterable[tuple[str, str]],
    speech: Mapping[str, Any],
    *,
    study: str = "study",
) -> dict[tuple[str, str], Recording]:
    """Every (system, item)'s recording, checked and read.

    Parameters
    ----------
    wanted : iterable of (str, str)
        The (system, item) pairs the study's trials play (system
        :data:`PRACTICE` for a practice trial showing the item's reference).
    speech : mapping
        ``studies[].speech`` as :func:`check_speech` returns it.
    study : str
        The study, named in errors.

    Returns
    -------
    dict
        (system, item) -> :class:`Recording`.

    Raises
    ------
    StimuliError
        Listing every problem: systems without a recordings folder, missing
        files (system, item and the path expected), a file of no accepted
        type, one whose suffix disagrees with its content, one too large, two
        files for one description.
    """
    folder = Path(speech["audio"])
    if not folder.is_dir():
        raise StimuliError(
            f"{folder} is not a folder of recordings",
            field=f"study {study}: speech.audio",
        )
    limit = int(float(speech.get("max_mb", MAX_MB)) * 1_000_000)
    manifest = (
        _read_manifest(Path(speech["manifest"])) if speech.get("manifest") else None
    )
    wanted = sorted(set(wanted))
    absent_systems = sorted(
        {
            system
            for system, _ in wanted
            if manifest is None and not folder.joinpath(*system.split("/")).is_dir()
        }
    )
    problems: list[str] = [
        f"system {system} has no recordings (expected the folder"
        f" {folder.joinpath(*system.split('/'))})"
        for system in absent_systems
    ]
    found: dict[tuple[str, str], Recording] = {}
    for system, item in wanted:
        if system in absent_systems:
            continue
        if manifest is not None:
            name = manifest.get((system, item))
            if name is None:
                problems.append(
                    f"system {system}, item {item}: no row in {speech['manifest']}"
                )
                continue
            path = folder / name
            if not path.is_file():
                problems.append(f"system {system}, item {item}: {path} is missing")
                continue
        else:
            paths = _candidates(folder, system, item)
            if not paths:
                expected = folder.joinpath(*system.split("/"), f"{item}.wav")
                problems.append(
                    f"system {system}, item {item}: missing {expected} (or .mp3,"
                    " .ogg, .oga, .opus, .flac)"
                )
                continue
            if len(paths) > 1:
                problems.append(
                    f"system {system}, item {item}: {len(paths)} files"
                    f" ({', '.join(p.name for p in paths)}); keep one"
                )
                continue
            path = paths[0]
        suffix = path.suffix.lower()
        expected_kind = AUDIO_TYPES.get(suffix)
        if expected_kind is None:
            problems.append(
                f"{path}: not an accepted audio file (suffix {suffix or 'none'};"
                f" accepted: {', '.join(AUDIO_TYPES)})"
            )
            continue
        size = path.stat().st_size
        if size > limit:
            problems.append(
                f"{path}: {size / 1e6:.1f} MB is more than the {limit / 1e6:g} MB"
                " allowed (speech.max_mb)"
            )
            continue
        data = path.read_bytes()
        kind = audio_type(data[:12])
        if kind is None:
            problems.append(
                f"{path}: not audio (its first bytes are no RIFF/WAVE, OggS, ID3,"
                " MPEG frame or fLaC header)"
            )
            continue
        if kind != expected_kind:
            problems.append(f"{path}: {kind.upper()} audio named {suffix}")
            continue
        sha = hashlib.sha256(data).hexdigest()
        found[(system, item)] = Recording(
            source=path.relative_to(folder).as_posix(),
            path=f"audio/{sha[:20]}{suffix}",
            sha256=sha,
            kind=kind,
            data=data,
        )
    if problems:
        shown = "; ".join(problems[:30])
        more = f" (and {len(problems) - 30} more)" if len(problems) > 30 else ""
        raise StimuliError(
            f"{len(problems)} recording problem(s) in {folder}: {shown}{more}",
            field=f"study {study}: speech.audio",
        )
    return found


def describe(recordings: Iterable[Recording]) -> dict[str, Any]:
    """The study document's ``speech`` for recorded audio: ``source``,
    ``files`` (distinct files), ``formats`` (type -> files), ``bytes``, and the
    WAV files' total ``wav_seconds`` (``wav_files`` of them)."""
    distinct = {r.sha256: r for r in recordings}
    formats: dict[str, int] = {}
    seconds, timed = 0.0, 0
    for recording in distinct.values():
        formats[recording.kind] = formats.get(recording.kind, 0) + 1
        if recording.kind == "wav":
            duration = wav_duration(recording.data)
            if duration is not None:
                seconds += duration
                timed += 1
    return {
        "source": "recorded",
        "files": len(distinct),
        "formats": dict(sorted(formats.items())),
        "bytes": sum(len(r.data) for r in distinct.values()),
        "wav_files": timed,
        "wav_seconds": round(seconds, 3),
    }


def key_speech(key_path: str | Path) -> dict[str, Any] | None:
    """The ``speech`` of a study's key (``stimuli-key.json``): how a spoken
    study's descriptions were voiced; None for other studies or an unreadable key
    (the merge reports that key itself)."""
    import json

    try:
        key = json.loads(Path(key_path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    voiced = key.get("speech") if isinstance(key, dict) else None
    return dict(voiced) if isinstance(voiced, Mapping) else None

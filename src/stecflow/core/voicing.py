"""How a spoken study's descriptions were voiced, in words.

The study document's ``speech`` (:mod:`stecflow.studies.stimuli`: espeak-ng's
engine, version, voice and rate; or, for organisers' recordings,
:func:`stecflow.studies.recordings.describe`) told in a phrase, for the report and
the datasheet, which both read it from the stages' files.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["speech_text"]


def speech_text(speech: Mapping[str, Any] | None) -> str | None:
    """How a spoken study's descriptions were voiced, in words (report, datasheet).

    Examples
    --------
    >>> speech_text({"source": "recorded", "files": 3, "formats": {"mp3": 1,
    ...     "wav": 2}, "bytes": 9000, "wav_files": 2, "wav_seconds": 3.25})[42:]
    '(MP3 1, WAV 2), the 2 WAV files 3.2 s in total'
    >>> speech_text({"engine": "espeak-ng", "version": "1.51", "voice": "en-us",
    ...     "wpm": 150})
    'synthesised by espeak-ng 1.51, voice en-us, 150 words per minute'
    """
    if not speech:
        return None
    if speech.get("source") == "recorded":
        formats = speech.get("formats") or {}
        n = int(speech.get("files") or 0)
        text = (
            f"recorded by the organisers: {n} audio file{'s' if n != 1 else ''}"
            f" ({', '.join(f'{k.upper()} {v}' for k, v in sorted(formats.items()))})"
        )
        timed = int(speech.get("wav_files") or 0)
        if timed:
            what = "the WAV file" if timed == 1 else f"the {timed} WAV files"
            if timed == n:
                what = "in all" if n > 1 else "long"
                return text + f", {float(speech['wav_seconds']):.1f} s {what}"
            text += f", {what} {float(speech['wav_seconds']):.1f} s in total"
        return text
    return (
        f"synthesised by {speech.get('engine', 'espeak-ng')}"
        f" {speech.get('version', '')}".rstrip()
        + f", voice {speech.get('voice', '?')}, {speech.get('wpm', '?')} words per"
        " minute"
    )

"""Sound for the studies: descriptions spoken by espeak-ng, and the warning beep.

The spoken variant of the identification task (:mod:`stecflow.studies.stimuli`)
ships one WAV file per distinct description, synthesised by the installed espeak-ng
(:func:`speak`); the same text, voice, rate and espeak-ng version give the same
bytes. The DMDX files (:mod:`stecflow.studies.dmdx`) also need the warning beep as
a file (:func:`beep_wav`); the web page makes its own with WebAudio.
"""

from __future__ import annotations

import io
import math
import re
import shutil
import struct
import subprocess
import tempfile
import wave
from pathlib import Path

from stecflow.core.errors import StimuliError

__all__ = ["beep_wav", "espeak_version", "speak"]


def espeak_version() -> str | None:
    """Return the installed espeak-ng version (e.g. ``"1.51"``), or None if absent.

    Examples
    --------
    >>> version = espeak_version()
    >>> version is None or version[0].isdigit()
    True
    """
    exe = shutil.which("espeak-ng")
    if exe is None:
        return None
    try:
        out = subprocess.run(
            [exe, "--version"], capture_output=True, text=True, check=True, timeout=30
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r"text-to-speech:\s*([0-9][0-9A-Za-z.+-]*)", out)
    return match.group(1) if match else "unknown"


def speak(text: str, voice: str, wpm: int) -> bytes:
    """Synthesise *text* with espeak-ng into WAV bytes (same input, same bytes).

    Parameters
    ----------
    text : str
        What to say.
    voice : str
        An espeak-ng voice (``espeak-ng --voices``).
    wpm : int
        Speaking rate in words per minute.

    Returns
    -------
    bytes
        A WAV file.

    Raises
    ------
    StimuliError
        If espeak-ng is not installed (field ``variant``) or fails, e.g. on an
        unknown voice (field ``voice``).
    """
    exe = shutil.which("espeak-ng")
    if exe is None:  # pragma: no cover - checked by the caller
        raise StimuliError("espeak-ng is not installed", field="variant")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "speech.wav"
        try:
            subprocess.run(
                [exe, "-v", voice, "-s", str(wpm), "-w", str(out), "--stdin"],
                input=text.encode("utf-8"),
                capture_output=True,
                check=True,
                timeout=120,
            )
        except subprocess.CalledProcessError as error:
            raise StimuliError(
                f"espeak-ng failed on {text!r} with voice {voice!r}: "
                f"{error.stderr.decode('utf-8', 'replace').strip()}",
                field="voice",
            ) from None
        return out.read_bytes()


def beep_wav(hz: int, ms: int, rate: int = 22050) -> bytes:
    """A short sine beep with 5 ms ramps, as 16-bit mono WAV bytes.

    Examples
    --------
    >>> beep_wav(880, 150)[:4]
    b'RIFF'
    """
    n = rate * ms // 1000
    ramp = max(1, rate * 5 // 1000)
    frames = bytearray()
    for i in range(n):
        envelope = min(1.0, i / ramp, (n - 1 - i) / ramp)
        sample = 0.4 * envelope * math.sin(2 * math.pi * hz * i / rate)
        frames += struct.pack("<h", int(round(sample * 32767)))
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as handle:
        handle.setnchannels(1)
        handle.setsampwidth(2)
        handle.setframerate(rate)
        handle.writeframes(bytes(frames))
    return buffer.getvalue()

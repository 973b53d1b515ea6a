"""The identification kind's rules of its config entry (its ``check`` hook).

A spoken identification study may play the organisers' recordings instead of
espeak-ng's voice (``speech: {source: recorded, audio: <folder>}``,
:mod:`stecflow.studies.recordings`); :func:`check_spec` checks that entry when
the config is read, and the stimuli job checks the files themselves.
"""

from __future__ import annotations

from typing import Any

from stecflow.studies.recordings import check_speech

__all__ = ["check_spec"]


def check_spec(spec: dict[str, Any], n: int) -> None:
    """Check ``studies[n].speech`` (only for variant spoken); a synthetic
    ``speech`` entry is dropped, as if it were not given.

    Raises
    ------
    ConfigError
        Naming ``studies[n].speech`` (or its key) and what was expected.

    Examples
    --------
    >>> spec = {"variant": "spoken", "speech": {"source": "synthetic"}}
    >>> check_spec(spec, 0); "speech" in spec
    False
    >>> check_spec({"variant": None, "speech": {"source": "recorded", "audio": "a"}},
    ...            3)
    Traceback (most recent call last):
    ...
    stecflow.core.errors.ConfigError: studies[3].speech: speech settings are for \
a spoken identification study (variant: spoken), not variant together
    """
    if "speech" not in spec:
        return
    checked = check_speech(spec["speech"], spec.get("variant"), f"studies[{n}].speech")
    if checked is None:
        del spec["speech"]
    else:
        spec["speech"] = checked

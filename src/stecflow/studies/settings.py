"""What a human study presents and records: tasks, questions, columns, settings.

The vocabulary shared by the study builder (:mod:`stecflow.studies.stimuli`), the
collection server (:mod:`stecflow.studies.server`) and the judgments
(:mod:`stecflow.judgments`): the tasks and timing variants a study can run
(:data:`TASKS`, :data:`VARIANTS`), the questions of the rating task
(:data:`ADEQUACY_QUESTION`, :data:`FLUENCY_QUESTION`), the columns of a response
table (:data:`RESPONSE_COLUMNS`) and the presentation settings of a study
(:class:`StudySettings`, config ``studies[].experiment``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from stecflow.core.errors import ConfigError

__all__ = [
    "ADEQUACY_QUESTION",
    "FLUENCY_QUESTION",
    "RESPONSE_COLUMNS",
    "TASKS",
    "VARIANTS",
    "StudySettings",
]

#: The tasks a study can run.
TASKS = ("rating", "identification")
#: The timing variants of the identification task.
VARIANTS = ("together", "read_first", "spoken")

#: The Adequacy question of TUNA-REG'09 (seed 001, section 5.2), verbatim.
ADEQUACY_QUESTION = (
    "How clear is this description? Try to imagine someone who could see the same "
    "grid with the same pictures, but didn't know which of the pictures was the "
    "target. How easily would they be able to find it, based on the phrase given?"
)
#: The Fluency question of TUNA-REG'09 (seed 001, section 5.2), verbatim.
FLUENCY_QUESTION = (
    "How fluent is this description? Here your task is to judge how well the "
    "phrase reads. Is it good, clear English?"
)

#: Columns of a response table, one row per answered trial, in this order. The
#: server's export (:func:`stecflow.studies.server.export_responses`) and the file
#: the page saves in offline mode both have exactly these columns; see
#: :mod:`stecflow.studies.server`
#: for what each holds.
RESPONSE_COLUMNS = (
    "study",
    "task",
    "variant",
    "session",
    "participant",
    "session_status",
    "list",
    "order",
    "item",
    "system",
    "subdomain",
    "practice",
    "filler",
    "adequacy",
    "fluency",
    "chosen_entity",
    "target_entity",
    "correct",
    "cant_tell",
    "timeout",
    "reading_time_ms",
    "identification_time_ms",
    "rt_ms",
    "audio_onset_ms",
    "click_x",
    "click_y",
)


@dataclass(frozen=True)
class StudySettings:
    """Presentation settings of a study (config ``studies[].experiment``).

    Attributes
    ----------
    title : str
        Shown at the top of the page and in the browser tab.
    fixation_ms : int
        Identification: how long the fixation cross is shown (seed 001: 1000 ms).
    delay_ms : int
        Identification: ``spoken``: from display onset to the start of the voice
        (seed 001: 500 ms); ``together`` and ``read_first``: blank screen between
        the fixation cross and the description.
    timeout_ms : int
        Identification: a trial times out this long after the pictures appear
        (seeds 001 and 003: 15 000 ms).
    reading_timeout_ms : int or None
        ``read_first``: the pictures are called up automatically after this long
        (None: no limit, as in seed 003).
    hide_description : bool
        ``read_first``: remove the description when the pictures appear, so that
        reading and identification are separate (seed 003).
    warning_beep : bool
        Identification: play the warning beep at the start of every trial.
    beep_hz, beep_ms : int
        Pitch and length of the beep.
    feedback_ms : int
        Identification: how long practice feedback ("correct" or not) is shown; 0
        gives none.
    break_every : int
        Offer a break after every this many test trials (0: never).
    cant_tell : bool
        Identification: add a "can't tell" button (seed 000).
    require_slider_touch : bool
        Rating: the participant must move or click each slider before going on.
    completion_code : str or None
        A fixed code shown at the end (e.g. a crowd-sourcing platform's); None lets
        the server issue a random code per session (offline: no code).
    voice : str
        espeak-ng voice of the spoken variant (``espeak-ng --voices``).
    speech_wpm : int
        Speaking rate in words per minute.
    cell_px : int
        Size of a grid cell on screen, in CSS pixels.
    instructions : str or None
        Replaces the default instructions (paragraphs separated by blank lines).
    """

    title: str = "Descriptions of pictures"
    fixation_ms: int = 1000
    delay_ms: int = 500
    timeout_ms: int = 15000
    reading_timeout_ms: int | None = None
    hide_description: bool = True
    warning_beep: bool = True
    beep_hz: int = 880
    beep_ms: int = 150
    feedback_ms: int = 800
    break_every: int = 20
    cant_tell: bool = False
    require_slider_touch: bool = True
    completion_code: str | None = None
    voice: str = "en-us"
    speech_wpm: int = 150
    cell_px: int = 120
    instructions: str | None = None

    def __post_init__(self) -> None:
        limits = {
            "fixation_ms": (0, 10_000),
            "delay_ms": (0, 10_000),
            "timeout_ms": (100, 600_000),
            "beep_hz": (100, 5_000),
            "beep_ms": (10, 2_000),
            "feedback_ms": (0, 10_000),
            "break_every": (0, 10_000),
            "speech_wpm": (60, 450),
            "cell_px": (40, 400),
        }
        for name, (low, high) in limits.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(f"must be an integer, got {value!r}", field=name)
            if not low <= value <= high:
                raise ConfigError(
                    f"must be between {low} and {high}, got {value}", field=name
                )
        if self.reading_timeout_ms is not None and (
            isinstance(self.reading_timeout_ms, bool)
            or not isinstance(self.reading_timeout_ms, int)
            or not 100 <= self.reading_timeout_ms <= 600_000
        ):
            raise ConfigError(
                f"must be null or an integer from 100 to 600000, got "
                f"{self.reading_timeout_ms!r}",
                field="reading_timeout_ms",
            )
        for name in (
            "hide_description",
            "warning_beep",
            "cant_tell",
            "require_slider_touch",
        ):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(
                    f"must be true or false, got {getattr(self, name)!r}", field=name
                )
        if not isinstance(self.title, str) or not self.title.strip():
            raise ConfigError("must be a non-empty string", field="title")
        if self.completion_code is not None and not re.fullmatch(
            r"[A-Za-z0-9_-]{1,64}", str(self.completion_code)
        ):
            raise ConfigError(
                "must be null or 1-64 letters, digits, '-' or '_'",
                field="completion_code",
            )
        if not re.fullmatch(r"[A-Za-z0-9_+-]{1,40}", str(self.voice)):
            raise ConfigError(
                f"{self.voice!r} is not an espeak-ng voice name", field="voice"
            )
        if self.instructions is not None and not isinstance(self.instructions, str):
            raise ConfigError("must be null or a string", field="instructions")

    @classmethod
    def from_mapping(
        cls, data: Mapping[str, Any] | None, *, where: str = "experiment"
    ) -> StudySettings:
        """Build settings from a config mapping, rejecting unknown keys.

        Parameters
        ----------
        data : mapping or None
            Key -> value; missing keys take their defaults.
        where : str, default "experiment"
            The key path named in error messages.

        Returns
        -------
        StudySettings

        Raises
        ------
        ConfigError
            For an unknown key or a value out of range (the field names the key).

        Examples
        --------
        >>> StudySettings.from_mapping({"fixation_ms": 200}).fixation_ms
        200
        >>> StudySettings.from_mapping({"fixation": 200})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        stecflow.core.errors.ConfigError: experiment.fixation: unknown key; ...
        """
        data = dict(data or {})
        known = {f.name for f in fields(cls)}
        for key in sorted(data):
            if key not in known:
                raise ConfigError(
                    f"unknown key; known keys are {', '.join(sorted(known))}",
                    field=f"{where}.{key}",
                )
        try:
            return cls(**data)
        except ConfigError as error:
            raise ConfigError(error.message, field=f"{where}.{error.field}") from None

    def to_dict(self) -> dict[str, Any]:
        """Return the settings as plain JSON-ready data."""
        return asdict(self)

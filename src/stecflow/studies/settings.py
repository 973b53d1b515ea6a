"""What a human study records and how it is presented: tasks, columns, settings.

The vocabulary shared by the study builder (:mod:`stecflow.studies.stimuli`), the
collection server (:mod:`stecflow.studies.server`) and the judgments
(:mod:`stecflow.judgments`): the kinds the picture-grid pages show
(:data:`TASKS`), the columns of a response table (:data:`RESPONSE_COLUMNS`), the
link parameters read for the IDs sent to the server (:data:`URL_PARAMS`) and the
presentation settings of a study (:class:`StudySettings`, config
``studies[].experiment``; :func:`paradigm_settings`). The strings the participant
sees are in :mod:`stecflow.studies.strings`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from stecflow.core.errors import ConfigError
from stecflow.studies.strings import (
    DEFAULT_TITLES,
    LANGUAGES,
    UI_STRINGS,
    placeholders,
    read_catalogue,
)
from stecflow.studykinds.registry import in_family

__all__ = [
    "RESPONSE_COLUMNS",
    "TASKS",
    "URL_PARAMS",
    "StudySettings",
    "paradigm_settings",
]


#: The study kinds whose trials show an item's pictures in a grid (the kinds of
#: the ``grid`` family, :mod:`stecflow.studykinds`).
TASKS = in_family("grid")


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


#: The link's parameters read for each ID sent to the server (contract C1), in
#: order of preference: Prolific's ``PROLIFIC_PID``, ``STUDY_ID`` and
#: ``SESSION_ID``, MTurk's ``workerId``, ``assignmentId``; a study adds its own
#: names first with ``experiment.url_params``.
URL_PARAMS: dict[str, list[str]] = {
    "participant": ["participant", "PROLIFIC_PID", "pid", "workerId"],
    "study_id": ["study_id", "STUDY_ID", "hitId"],
    "external_session": ["session_id", "SESSION_ID", "assignmentId"],
}

#: Fields added after the English study files were fixed: left out of the study
#: document while they keep their defaults.
_NEWER_FIELDS = (
    "consent",
    "questionnaire",
    "questionnaire_at",
    "debrief",
    "completion_url",
    "decline_url",
    "url_params",
    "min_width",
    "min_height",
    "check_window",
    "fullscreen",
    "sound_check",
    "messages",
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
    language : {"en", "ja"}
        Language of every string the participant sees (:data:`UI_STRINGS`). The
        instructions given here and the descriptions are the study's own and are
        not translated; the default title is (:data:`DEFAULT_TITLES`: a title
        equal to the English default becomes the language's). Seed 000 ran in
        Japanese.
    strings : mapping of str to str, optional
        Replaces single interface strings by key (:data:`UI_STRINGS`), in any
        language; a replacement must have the same ``{name}`` fields.
    consent, debrief : str or None
        Markdown or plain-text file (path from the campaign folder) shown before
        the first screen (consent: agree or decline; declining sends nothing) and
        after the last trial (debrief). Read and checked when the study is built
        (:mod:`stecflow.studies.screens`).
    questionnaire : str or None
        YAML file of questionnaire fields (:func:`stecflow.studies.screens.
        read_questionnaire`); shown after consent (``questionnaire_at: start``)
        or after the last trial (``end``).
    completion_url, decline_url : str or None
        Where the page sends the participant after the debrief (``{code}`` is
        replaced by the completion code, e.g. Prolific's
        ``https://app.prolific.com/submissions/complete?cc={code}``) or after
        declining consent.
    url_params : mapping, optional
        Names of the link's parameters holding ``participant``, ``study_id`` and
        ``external_session`` (a name or a list of names; defaults:
        :data:`URL_PARAMS`, Prolific's among them).
    min_width, min_height : int or None
        Smallest window (CSS pixels) the study runs in; the participant is told
        before starting and cannot go on in a smaller window.
    check_window : bool
        Check the window size before starting; without ``min_width`` and
        ``min_height``, the smallest window of the trial kind's layout (its
        :attr:`~stecflow.studykinds.base.StudyKind.min_window`).
    fullscreen : bool
        Ask for full screen before the first screen.
    sound_check : str or None
        A word spoken (espeak-ng) before the start, which the participant must
        type back; for spoken studies.
    messages : str or None
        A YAML catalogue of every interface string in another language
        (:func:`read_catalogue`): ``language`` (a tag such as ``pt``) and
        ``strings`` with every key of :data:`UI_STRINGS` (and of the trial kind's
        own table), each with the ``{name}`` fields of the English original.
        ``experiment.strings`` still overrides single strings.
    """

    title: str = DEFAULT_TITLES["en"]
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
    language: str = "en"
    strings: Mapping[str, str] | None = None
    consent: str | None = None
    questionnaire: str | None = None
    questionnaire_at: str = "start"
    debrief: str | None = None
    completion_url: str | None = None
    decline_url: str | None = None
    url_params: Mapping[str, Any] | None = None
    min_width: int | None = None
    min_height: int | None = None
    check_window: bool = False
    fullscreen: bool = False
    sound_check: str | None = None
    messages: str | None = None

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
        if self.language not in LANGUAGES:
            raise ConfigError(
                f"must be one of {', '.join(LANGUAGES)}, got {self.language!r}",
                field="language",
            )
        if self.strings is not None:
            if not isinstance(self.strings, Mapping):
                raise ConfigError("must be null or a mapping", field="strings")
            english = UI_STRINGS["en"]
            for key, value in self.strings.items():
                if key not in english:
                    raise ConfigError(
                        "unknown interface string; see UI_STRINGS in"
                        " stecflow.studies.strings for the keys",
                        field=f"strings.{key}",
                    )
                if not isinstance(value, str):
                    raise ConfigError("must be a string", field=f"strings.{key}")
                if placeholders(value) != placeholders(english[key]):
                    wanted = ", ".join(sorted(placeholders(english[key]))) or "none"
                    raise ConfigError(
                        f"must have the fields {{...}} of the original: {wanted}",
                        field=f"strings.{key}",
                    )
            object.__setattr__(self, "strings", dict(sorted(self.strings.items())))
        if self.title == DEFAULT_TITLES["en"]:
            object.__setattr__(self, "title", DEFAULT_TITLES[self.language])
        for name in ("consent", "questionnaire", "debrief"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise ConfigError("must be null or a file path", field=name)
        if self.questionnaire_at not in ("start", "end"):
            raise ConfigError(
                f"must be start or end, got {self.questionnaire_at!r}",
                field="questionnaire_at",
            )
        for name in ("completion_url", "decline_url"):
            value = getattr(self, name)
            if value is not None and (
                not isinstance(value, str)
                or not re.fullmatch(r"https?://[^\s<>\"]+", value)
            ):
                raise ConfigError(
                    f"must be null or an http(s) URL, got {value!r}", field=name
                )
        for name in ("min_width", "min_height"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool)
                or not isinstance(value, int)
                or not 200 <= value <= 4000
            ):
                raise ConfigError(
                    f"must be null or an integer from 200 to 4000, got {value!r}",
                    field=name,
                )
        if not isinstance(self.check_window, bool):
            raise ConfigError(
                f"must be true or false, got {self.check_window!r}",
                field="check_window",
            )
        if not isinstance(self.fullscreen, bool):
            raise ConfigError(
                f"must be true or false, got {self.fullscreen!r}", field="fullscreen"
            )
        if self.messages is not None and (
            not isinstance(self.messages, str) or not self.messages.strip()
        ):
            raise ConfigError("must be null or a file path", field="messages")
        if self.sound_check is not None and not re.fullmatch(
            r"[^\s]{1,40}", str(self.sound_check)
        ):
            raise ConfigError(
                "must be null or one word (no spaces)", field="sound_check"
            )
        if self.url_params is not None:
            if not isinstance(self.url_params, Mapping):
                raise ConfigError("must be null or a mapping", field="url_params")
            clean: dict[str, list[str]] = {}
            for key, value in self.url_params.items():
                if key not in URL_PARAMS:
                    raise ConfigError(
                        f"unknown; known: {', '.join(URL_PARAMS)}",
                        field=f"url_params.{key}",
                    )
                names = [value] if isinstance(value, str) else value
                if not isinstance(names, list) or not all(
                    isinstance(n, str) and re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", n)
                    for n in names
                ):
                    raise ConfigError(
                        "must be a parameter name or a list of them",
                        field=f"url_params.{key}",
                    )
                clean[key] = list(names)
            object.__setattr__(self, "url_params", dict(sorted(clean.items())))

    def url_param_names(self) -> dict[str, list[str]]:
        """The link's parameter names per ID, the study's own first."""
        given = dict(self.url_params or {})
        return {
            key: list(dict.fromkeys([*given.get(key, []), *names]))
            for key, names in URL_PARAMS.items()
        }

    def catalogue(self, *tables: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
        """The strings of ``experiment.messages`` ({} without one), checked.

        Every key of :data:`UI_STRINGS` and of each of *tables* (a trial kind's
        own strings, by language) must be there, with the English ``{name}``
        fields.
        """
        if self.messages is None:
            return {}
        return read_catalogue(self.messages, UI_STRINGS, *tables)[1]

    def ui_strings(self) -> dict[str, str]:
        """Every interface string in this study's language, with its overrides.

        Examples
        --------
        >>> StudySettings(language="ja").ui_strings()["cant_tell"]
        'わからない'
        >>> StudySettings(strings={"cant_tell": "I don't know"}).ui_strings()[
        ...     "cant_tell"]
        "I don't know"
        """
        return {
            **UI_STRINGS[self.language],
            **self.catalogue(),
            **(self.strings or {}),
        }

    @property
    def default_interface(self) -> bool:
        """True for English without overrides: the output stecflow always made."""
        return self.language == "en" and not self.strings and not self.messages

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
        """Return the settings as plain JSON-ready data.

        ``language`` and ``strings`` are left out while they have their defaults,
        so that the study files of an English study are those stecflow made
        before the interface could be translated.
        """
        data = asdict(self)
        if self.language == "en":
            del data["language"]
        if not self.strings:
            del data["strings"]
        for name in _NEWER_FIELDS:
            if data[name] == getattr(StudySettings, name):
                del data[name]
        if "url_params" in data:
            data["url_params"] = self.url_param_names()
        return data


def paradigm_settings(
    settings: StudySettings | Mapping[str, Any] | None,
    strings: Mapping[str, Mapping[str, str]],
    titles: Mapping[str, str],
) -> tuple[StudySettings, dict[str, str]]:
    """A study's settings and its overrides of a paradigm's own strings.

    For a study paradigm with interface strings of its own besides
    :data:`UI_STRINGS` (the situated trial, the text trials): the keys of
    ``experiment.strings`` that are the paradigm's (*strings*, by language) are
    checked here (a string, with the ``{name}`` fields of the English original)
    and returned apart; the rest stay in the settings. A study that sets no title
    gets *titles* in its language.

    Raises
    ------
    ConfigError
        For an unknown key or a bad value (``experiment.<key>``,
        ``experiment.strings.<key>``).
    """
    if isinstance(settings, StudySettings):
        if settings.title == DEFAULT_TITLES[settings.language]:
            settings = replace(settings, title=titles[settings.language])
        return settings, {}
    data = dict(settings or {})
    given = data.get("strings")
    own: dict[str, str] = {}
    if isinstance(given, Mapping):
        english = strings["en"]
        rest = {}
        for key, value in given.items():
            if key not in english:
                rest[key] = value
                continue
            if not isinstance(value, str):
                raise ConfigError("must be a string", field=f"experiment.strings.{key}")
            if placeholders(value) != placeholders(english[key]):
                wanted = ", ".join(sorted(placeholders(english[key]))) or "none"
                raise ConfigError(
                    f"must have the fields {{...}} of the original: {wanted}",
                    field=f"experiment.strings.{key}",
                )
            own[key] = value
        data["strings"] = rest or None
    if not data.get("title"):
        language = data.get("language", "en")
        data["title"] = titles.get(language, titles["en"])
    return StudySettings.from_mapping(data), dict(sorted(own.items()))

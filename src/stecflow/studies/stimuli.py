"""Stimuli of a human study: a self-contained web experiment and DMDX item files.

:func:`build_study` turns a study :class:`~stecflow.studies.designs.Design`, the
corpus items
and the systems' outputs into a folder that runs the whole experiment in a browser,
both from disk (``file://``, *offline*: the results are saved as a file at the end)
and served by :mod:`stecflow.studies.server` (*online*: every trial is stored the
moment it
is answered). It is a pure function of its inputs (design, items, outputs, settings,
pictures and, for spoken descriptions, the installed espeak-ng): the same inputs
give the same bytes, so a deployed study can be pinned by the SHA-256 of its
``MANIFEST.tsv`` (:func:`study_sha256`).

The two experiments of the TUNA challenges are supported (seed 001 sections 5.2 and
5.3, seed 003 section 3.2, seed 002, seed 000 section 5.1):

``task="rating"`` (intrinsic, TUNA-REG'09)
    Each trial shows a description with its domain pictures on the 5 x 3 grid, the
    target in a red frame, and two sliders with the Adequacy and Fluency questions
    of seed 001 (:data:`ADEQUACY_QUESTION`, :data:`FLUENCY_QUESTION`). Pointers
    start in the centre; the scale is hidden and mapped to the integers 1-100.
``task="identification"`` (extrinsic)
    The target is not marked; the participant clicks the picture meant. Each trial
    is started by the participant and begins with a warning beep (made in the page
    with WebAudio) and a fixation cross (``fixation_ms``, 1000 ms); it times out
    ``timeout_ms`` (15 000 ms) after the pictures appear. ``variant`` is one of
    ``together`` (description and pictures appear together after a blank of
    ``delay_ms``: one time, RIT), ``read_first`` (the description appears after the
    blank; the participant calls up the pictures with a button or the space bar:
    reading time and identification time) or ``spoken`` (the pictures appear and
    the description is played ``delay_ms`` (500 ms) later, synthesised with
    espeak-ng; identification time is measured from display onset). A "can't
    tell" button is added with ``cant_tell=True`` (the two-group design of seed 000).

Every experiment has instructions, the design's practice trials first (with
feedback in identification), a progress indicator, a break every ``break_every``
test trials and a completion screen. Times come from ``performance.now()``.

Output folder (``results/studies/<study>/web/``)::

    index.html       the page (open it from disk, or serve the folder)
    experiment.js    the runner (plain JavaScript, no library, no network)
    experiment.css
    stimuli.js       the study document as a script (file:// pages cannot fetch JSON)
    stimuli.json     the same document, read by the server
    images/          the pictures: the corpus's own files, the demo's SVG drawings
                     for entities without one, or a labelled placeholder
    audio/           spoken variant: one WAV per distinct description
    MANIFEST.tsv     path, size and SHA-256 of every other file

The study document (``stimuli.json``) holds ``study``, ``task``, ``variant``,
``settings`` (:class:`StudySettings`), ``texts`` (instructions and questions),
``columns`` (:data:`RESPONSE_COLUMNS`), ``design`` (the design's settings),
``speech`` (engine, version, voice and rate, or null) and ``lists``: one per subject
slot, each with its ordered ``trials``. A trial has ``order``, ``item``, ``system``
(null for practice trials without one), ``subdomain``, ``practice``, ``filler``,
``description`` (the word string shown or spoken), ``audio`` (a path or null),
``target`` (the target entity ID), ``grid`` (``[columns, rows]``) and ``entities``
(``id``, ``image``, and the 1-based grid cell ``x``, ``y``: TUNA's ``x-dimension``
and ``y-dimension`` when every entity has them, else a layout drawn from the study
seed and the item ID).

DMDX (:func:`make_dmdx_files`, written by :func:`build_study` when ``dmdx_dir`` is
given) replicates the seeds' lab set-up for identification studies; see that
function for how a trial maps onto a DMDX item.

Examples
--------
>>> from stecflow.studies.designs import latin_square_design
>>> from stecflow.data.model import Domain, Entity, EntityAttribute, Item
>>> def entity(i, x, target=False):
...     attrs = (EntityAttribute("type", "chair"), EntityAttribute("colour", "red"),
...              EntityAttribute("size", "large"),
...              EntityAttribute("orientation", "front"),
...              EntityAttribute("x-dimension", str(x)),
...              EntityAttribute("y-dimension", "1"))
...     return Entity(f"e{i}", target, attrs)
>>> items = [Item(f"t{k}", Domain((entity(1, 1, True), entity(2, 3))), "furniture")
...          for k in (1, 2)]
>>> design = latin_square_design(["A", "B"], ["t1", "t2"], subjects=2, seed=1)
>>> outputs = {"A": {"t1": "the chair", "t2": "the red chair"},
...            "B": {"t1": "the left one", "t2": "the large chair"}}
>>> bundle = make_study_files(design, items, outputs, task="rating")
>>> sorted(bundle.files)[:4]
['MANIFEST.tsv', 'experiment.css', 'experiment.js', 'images/chair-red-large-front.svg']
>>> [len(lst["trials"]) for lst in bundle.document["lists"]]
[2, 2]
"""

from __future__ import annotations

import hashlib
import html
import io
import json
import logging
import math
import re
import shutil
import struct
import subprocess
import tempfile
import wave
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stecflow.core.errors import ConfigError, StecflowError
from stecflow.data.model import Entity, Item

if TYPE_CHECKING:  # pragma: no cover - typing only (designs imports pandas)
    from stecflow.studies.designs import Design

__all__ = [
    "ADEQUACY_QUESTION",
    "FLUENCY_QUESTION",
    "RESPONSE_COLUMNS",
    "STIMULI_VERSION",
    "TASKS",
    "VARIANTS",
    "StimuliError",
    "StudyFiles",
    "StudySettings",
    "build_study",
    "espeak_version",
    "make_dmdx_files",
    "make_study_files",
    "study_sha256",
]

logger = logging.getLogger(__name__)

#: Version of the study document and page; bump when either changes meaning.
STIMULI_VERSION = 1
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

_IMAGE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\.(svg|png|jpe?g|gif|webp)$")
_DEMO_KEYS = {
    "furniture": ("type", "colour", "size", "orientation"),
    "person": (
        "type",
        "age",
        "hairColour",
        "hasHair",
        "hasBeard",
        "hasGlasses",
        "hasShirt",
        "hasSuit",
        "hasTie",
        "orientation",
    ),
}
_LOCATION = ("x-dimension", "y-dimension")
_WEB_ASSETS = ("experiment.js", "experiment.css")


class StimuliError(StecflowError, ValueError):
    """A study's stimuli cannot be built from the inputs given (the field says why)."""


# --------------------------------------------------------------------------- settings


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


# --------------------------------------------------------------------------- helpers


@dataclass(frozen=True)
class StudyFiles:
    """The files of a study's web folder, as bytes keyed by relative path.

    Attributes
    ----------
    document : dict
        The study document (also in ``files["stimuli.json"]``).
    files : dict of str to bytes
        Every file of the web folder, ``MANIFEST.tsv`` included.
    audio : dict of str to bytes
        The spoken descriptions (``audio/<name>.wav``), also in *files*.
    """

    document: dict[str, Any]
    files: dict[str, bytes] = field(repr=False)
    audio: dict[str, bytes] = field(default_factory=dict, repr=False)


def _digest(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode("utf-8")).hexdigest()


def _json_bytes(data: Any) -> bytes:
    text = json.dumps(data, sort_keys=True, indent=1, ensure_ascii=True)
    return (text + "\n").encode("utf-8")


def _plain(value: Any) -> Any:
    """Turn pandas/numpy scalars (and missing values) into plain Python values."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        return value.item()
    return value


def _asset(name: str) -> bytes:
    return resources.files("stecflow.studies").joinpath("web", name).read_bytes()


def _appearance(entity: Entity) -> dict[str, str]:
    return {a.name: a.value for a in entity.attributes if a.name not in _LOCATION}


def _demo_svg(entity: Entity) -> tuple[str, bytes] | None:
    """The demo corpus's drawing of *entity*, if its attributes fit the vocabulary."""
    from stecflow.tasks.reg.pictures import image_name, render_svg

    appearance = _appearance(entity)
    kind = "person" if appearance.get("type") == "person" else "furniture"
    if any(key not in appearance for key in _DEMO_KEYS[kind]):
        return None
    try:
        return image_name(appearance), render_svg(appearance).encode("utf-8")
    except (KeyError, ValueError):
        return None


def _placeholder_svg(entity: Entity) -> tuple[str, bytes]:
    """A labelled placeholder for an entity without a picture."""
    lines = [
        f"{a.name}: {a.value}" for a in entity.attributes if a.name not in _LOCATION
    ]
    shown = lines[:7] + (["..."] if len(lines) > 7 else [])
    body = [
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" '
        'width="100" height="100" role="img">',
        f"<title>{html.escape(entity.id)}</title>",
        '<rect x="2" y="2" width="96" height="96" fill="#f4f4f4" stroke="#888888" '
        'stroke-dasharray="4 3"/>',
        '<text x="50" y="14" font-family="sans-serif" font-size="10" '
        f'text-anchor="middle" fill="#222222">{html.escape(entity.id)}</text>',
    ]
    for row, text in enumerate(shown):
        body.append(
            f'<text x="6" y="{26 + 10 * row}" font-family="sans-serif" font-size="7" '
            f'fill="#444444">{html.escape(text[:28])}</text>'
        )
    body.append("</svg>")
    data = ("\n".join(body) + "\n").encode("utf-8")
    return f"placeholder-{hashlib.sha256(data).hexdigest()[:16]}.svg", data


def _entity_picture(
    entity: Entity, images_dir: Path | None, item_id: str
) -> tuple[str, bytes]:
    """Return (file name, bytes) of the picture shown for *entity*."""
    if entity.image:
        name = Path(entity.image).name
        if not _IMAGE_NAME.match(name) or name != entity.image:
            raise StimuliError(
                f"entity {entity.id}: image {entity.image!r} must be a plain file name "
                "(letters, digits, '.', '_', '-') ending in .svg, .png, .jpg, .gif "
                "or .webp",
                field=f"item {item_id}",
            )
        if images_dir is not None:
            path = images_dir / name
            if not path.is_file():
                raise StimuliError(
                    f"entity {entity.id}: picture {name} is not in {images_dir}; "
                    "give the corpus's images folder (config data.images)",
                    field=f"item {item_id}",
                )
            return name, path.read_bytes()
    demo = _demo_svg(entity)
    if demo is not None:
        return demo
    return _placeholder_svg(entity)


def _grid_position(entity: Entity) -> tuple[int, int] | None:
    x, y = entity.value_of("x-dimension"), entity.value_of("y-dimension")
    if x is None or y is None or not x.isdigit() or not y.isdigit():
        return None
    if int(x) < 1 or int(y) < 1:
        return None
    return int(x), int(y)


def _layout(item: Item, seed: int) -> tuple[list[int], list[tuple[Entity, int, int]]]:
    """Place the entities of *item* on a grid: ``([columns, rows], placements)``.

    TUNA's ``x-dimension`` (1-5) and ``y-dimension`` (1-3) are used when every
    entity has them; otherwise the entities are put in a balanced grid in an order
    drawn from the seed and the item ID (never the document order, which often
    puts the target first).
    """
    entities = list(item.domain.entities)
    positions = [_grid_position(e) for e in entities]
    if all(p is not None for p in positions):
        cells = [p for p in positions if p is not None]
        if len(set(cells)) != len(cells):
            raise StimuliError(
                "two entities share a grid cell (x-dimension, y-dimension)",
                field=f"item {item.id}",
            )
        columns = max(5, *(x for x, _ in cells))
        rows = max(3, *(y for _, y in cells))
        placed = [(e, p[0], p[1]) for e, p in zip(entities, cells, strict=True)]
        return [columns, rows], placed
    rows = math.ceil(len(entities) / 5)
    columns = math.ceil(len(entities) / rows)
    order = sorted(entities, key=lambda e: _digest(seed, "layout", item.id, e.id))
    placed = [(e, k % columns + 1, k // columns + 1) for k, e in enumerate(order)]
    return [columns, rows], placed


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


def _speak(text: str, voice: str, wpm: int) -> bytes:
    """Synthesise *text* with espeak-ng into WAV bytes (same input, same bytes)."""
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


def _beep_wav(hz: int, ms: int, rate: int = 22050) -> bytes:
    """A short sine beep with 5 ms ramps, as 16-bit mono WAV bytes."""
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


def _texts(
    task: str, variant: str | None, settings: StudySettings, n_practice: int
) -> dict[str, Any]:
    """The instructions and labels shown by the page."""
    timeout_s = f"{settings.timeout_ms / 1000:g}"
    if task == "rating":
        paragraphs = [
            "In this experiment you will see descriptions of pictures. Each screen "
            "shows a grid of pictures and a description of one of them, the target, "
            "which is marked by a red frame. Some descriptions were written by people, "
            "others were produced by computer programs.",
            "For each description you answer two questions by moving a slider: the "
            "further to the right, the better your judgment; the further to the "
            "left, the worse. There are no numbers; use the whole range as you see "
            "fit.",
            "1. " + ADEQUACY_QUESTION,
            "2. " + FLUENCY_QUESTION,
        ]
    else:
        how = {
            "together": "In each trial you will see a grid of pictures together with "
            "a description of one of them. Click the picture you think is meant, as "
            "quickly and as accurately as you can.",
            "read_first": "In each trial you will first see a description of one of "
            "the pictures in a grid. Read it, then click 'Show pictures' (or press "
            "the space bar) to see the grid, and click the picture you think is "
            "meant, as quickly and as accurately as you can.",
            "spoken": "In each trial you will see a grid of pictures and hear a "
            "description of one of them, read out by a synthetic voice (please "
            "wear headphones). Click the picture you think is meant, as quickly and "
            "as accurately as you can; you may click before the voice has finished.",
        }[str(variant)]
        paragraphs = [
            how,
            "You start each trial yourself by clicking 'Start' or pressing the space "
            "bar. You will then hear a short beep and see a cross (+) in the middle "
            f"of the screen: look at it. A trial ends after {timeout_s} seconds if "
            "no picture has been chosen.",
        ]
        if settings.cant_tell:
            paragraphs.append(
                'If you cannot tell which picture is meant, click "Can\'t tell".'
            )
    if n_practice:
        paragraphs.append(
            f"You will start with {n_practice} practice "
            f"{'example' if n_practice == 1 else 'examples'}."
        )
    if settings.instructions:
        paragraphs = [p.strip() for p in settings.instructions.split("\n\n")]
    return {
        "instructions": [p for p in paragraphs if p],
        "adequacy_question": ADEQUACY_QUESTION,
        "fluency_question": FLUENCY_QUESTION,
        "adequacy_labels": ["not clear", "very clear"],
        "fluency_labels": ["not fluent", "very fluent"],
    }


def _check_task(task: str, variant: str | None) -> str | None:
    if task not in TASKS:
        raise StimuliError(f"{task!r} is not one of {', '.join(TASKS)}", field="task")
    if task == "rating":
        if variant not in (None, "together"):
            raise StimuliError(
                f"a rating study has no variant (got {variant!r}); the description "
                "is always shown with the pictures",
                field="variant",
            )
        return None
    if variant is None:
        variant = "together"
    if variant not in VARIANTS:
        raise StimuliError(
            f"{variant!r} is not one of {', '.join(VARIANTS)}", field="variant"
        )
    return variant


# --------------------------------------------------------------------------- builder


def make_study_files(
    design: Design,
    items: Iterable[Item],
    outputs_by_system: Mapping[str, Mapping[str, str]],
    *,
    task: str,
    variant: str | None = None,
    images_dir: str | Path | None = None,
    settings: StudySettings | Mapping[str, Any] | None = None,
) -> StudyFiles:
    """Make every file of a study's web folder, in memory (a pure function).

    Parameters
    ----------
    design : Design
        The study design (:mod:`stecflow.studies.designs`); its lists become the page's
        lists, in the same order, trial for trial.
    items : iterable of Item
        Every item the design shows: test items and practice items (e.g. the test
        and development splits together).
    outputs_by_system : mapping
        System ID -> {item ID -> word string}. Human reference sets are systems
        here. Practice trials without a system, or whose system has no output for
        the practice item, show the item's first human reference.
    task : {"rating", "identification"}
        The experiment.
    variant : {"together", "read_first", "spoken"}, optional
        Identification only (default ``together``).
    images_dir : path, optional
        The corpus's pictures, named by ``Entity.image``. Entities without a
        picture get the demo corpus's drawing when their attributes fit its
        vocabulary, else a labelled placeholder.
    settings : StudySettings or mapping, optional
        Presentation settings (:class:`StudySettings`); a mapping is checked with
        :meth:`StudySettings.from_mapping`.

    Returns
    -------
    StudyFiles
        The study document and the bytes of every file, keyed by relative path.

    Raises
    ------
    StimuliError
        Unknown task or variant, an item or output missing, a picture missing or
        badly named, or the spoken variant without espeak-ng installed (it refuses
        rather than fall back to browser voices, which are neither reproducible
        nor available offline everywhere).
    """
    variant = _check_task(task, variant)
    if settings is None:
        settings = StudySettings()
    elif not isinstance(settings, StudySettings):
        settings = StudySettings.from_mapping(settings)
    images = Path(images_dir) if images_dir is not None else None
    if images is not None and not images.is_dir():
        raise StimuliError(f"{images} is not a folder", field="images_dir")
    by_id: dict[str, Item] = {}
    for each in items:
        by_id.setdefault(each.id, each)
    speech: dict[str, Any] | None = None
    if variant == "spoken":
        version = espeak_version()
        if version is None:
            raise StimuliError(
                "the spoken variant synthesises descriptions with espeak-ng, which "
                "is not installed; install it (Debian/Ubuntu: apt-get install "
                "espeak-ng) or choose variant together or read_first",
                field="variant",
            )
        speech = {
            "engine": "espeak-ng",
            "version": version,
            "voice": settings.voice,
            "wpm": settings.speech_wpm,
        }

    rows = [
        {key: _plain(value) for key, value in row.items()}
        for row in design.trials.to_dict("records")
    ]
    rows.sort(key=lambda r: (int(r["subject_slot"]), int(r["order"])))
    problems: list[str] = []
    pictures: dict[str, bytes] = {}
    audio: dict[str, bytes] = {}
    layouts: dict[str, tuple[list[int], list[dict[str, Any]]]] = {}
    lists: dict[str, dict[str, Any]] = {}
    for row in rows:
        item_id = str(row["item"])
        item = by_id.get(item_id)
        if item is None:
            problems.append(f"item {item_id} (list {row['list']}) is not in the items")
            continue
        system = row.get("system")
        system = None if system is None else str(system)
        practice = bool(row["practice"])
        text = outputs_by_system.get(system, {}).get(item_id) if system else None
        if text is None:
            if not practice:
                problems.append(f"no output of system {system} for item {item_id}")
                continue
            text = next((r.word_string for r in item.references if r.word_string), None)
            if text is None:
                problems.append(
                    f"practice item {item_id} has no output of system {system} "
                    "and no human reference with a word string"
                )
                continue
        text = " ".join(str(text).split())
        if item_id not in layouts:
            grid, placed = _layout(item, design.seed)
            entities = []
            for entity, x, y in placed:
                name, data = _entity_picture(entity, images, item_id)
                if pictures.setdefault(name, data) != data:
                    raise StimuliError(
                        f"two different pictures are both called {name}",
                        field=f"item {item_id}",
                    )
                entities.append(
                    {"id": entity.id, "image": f"images/{name}", "x": x, "y": y}
                )
            entities.sort(key=lambda e: (e["y"], e["x"]))
            layouts[item_id] = (grid, entities)
        grid, entities = layouts[item_id]
        sound = None
        if speech is not None:
            sound = (
                f"audio/{_digest(text, settings.voice, settings.speech_wpm)[:20]}.wav"
            )
            if sound not in audio:
                audio[sound] = _speak(text, settings.voice, settings.speech_wpm)
        list_id = str(row["list"])
        entry = lists.setdefault(
            list_id,
            {
                "list": list_id,
                "subject_slot": int(row["subject_slot"]),
                "group": int(row["group"]),
                "trials": [],
            },
        )
        entry["trials"].append(
            {
                "order": int(row["order"]),
                "item": item_id,
                "system": system,
                "subdomain": row.get("subdomain") or item.subdomain,
                "item_set": row.get("item_set"),
                "practice": practice,
                "filler": bool(row["filler"]),
                "description": text,
                "audio": sound,
                "target": item.domain.target.id,
                "grid": grid,
                "entities": entities,
            }
        )
    if problems:
        shown = "; ".join(problems[:10])
        more = f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""
        raise StimuliError(
            f"{len(problems)} problem(s): {shown}{more}", field=f"study {design.study}"
        )
    n_practice = len(design.practice_items)
    document = {
        "format": "stecflow-study",
        "version": STIMULI_VERSION,
        "study": design.study,
        "task": task,
        "variant": variant,
        "settings": settings.to_dict(),
        "texts": _texts(task, variant, settings, n_practice),
        "columns": list(RESPONSE_COLUMNS),
        "design": design.settings(),
        "speech": speech,
        "lists": [
            lists[k] for k in sorted(lists, key=lambda k: lists[k]["subject_slot"])
        ],
    }
    stimuli_json = _json_bytes(document)
    sha = hashlib.sha256(stimuli_json).hexdigest()
    stimuli_js = (
        "window.STECFLOW_STUDY = "
        + json.dumps(document, sort_keys=True, ensure_ascii=True)
        + ";\nwindow.STECFLOW_STUDY.sha256 = "
        + json.dumps(sha)
        + ";\n"
    ).encode("utf-8")
    files: dict[str, bytes] = {
        "index.html": _render_index(document),
        "stimuli.json": stimuli_json,
        "stimuli.js": stimuli_js,
    }
    for name in _WEB_ASSETS:
        files[name] = _asset(name)
    for name, data in pictures.items():
        files[f"images/{name}"] = data
    files.update(audio)
    files["MANIFEST.tsv"] = _manifest(files)
    return StudyFiles(document=document, files=dict(sorted(files.items())), audio=audio)


def _render_index(document: Mapping[str, Any]) -> bytes:
    from jinja2 import Environment, StrictUndefined

    env = Environment(
        autoescape=True, undefined=StrictUndefined, keep_trailing_newline=True
    )
    template = env.from_string(_asset("index.html.j2").decode("utf-8"))
    text = template.render(
        title=document["settings"]["title"],
        study=document["study"],
        task=document["task"],
        variant=document["variant"] or "",
    )
    return text.encode("utf-8")


def _manifest(files: Mapping[str, bytes]) -> bytes:
    lines = ["path\tsize\tsha256"]
    for path in sorted(files):
        data = files[path]
        lines.append(f"{path}\t{len(data)}\t{hashlib.sha256(data).hexdigest()}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def _write_tree(files: Mapping[str, bytes], out_dir: Path, overwrite: bool) -> None:
    if out_dir.exists() and any(out_dir.iterdir()):
        if not overwrite:
            raise StimuliError(
                f"{out_dir} already exists and is not empty; a study's stimuli are "
                "frozen once built: build a new study, or pass overwrite=True if "
                "this study has not been opened",
                field="out_dir",
            )
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for path in sorted(files):
        target = out_dir / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(files[path])


def build_study(
    design: Design,
    items: Iterable[Item],
    outputs_by_system: Mapping[str, Mapping[str, str]],
    *,
    task: str,
    variant: str | None = None,
    images_dir: str | Path | None = None,
    out_dir: str | Path,
    dmdx_dir: str | Path | None = None,
    settings: StudySettings | Mapping[str, Any] | None = None,
    overwrite: bool = False,
) -> dict[str, Any]:
    """Build a study's web experiment (and DMDX files) into folders.

    Parameters
    ----------
    design, items, outputs_by_system, task, variant, images_dir, settings
        As for :func:`make_study_files`.
    out_dir : path
        The web folder to create (``results/studies/<study>/web``).
    dmdx_dir : path, optional
        Also write DMDX item files there (``results/studies/<study>/dmdx``); see
        :func:`make_dmdx_files`.
    overwrite : bool, default False
        Replace a non-empty *out_dir* / *dmdx_dir*; without it they must be
        empty or absent (opened studies are frozen).

    Returns
    -------
    dict
        A summary: ``study``, ``task``, ``variant``, ``lists``, ``trials``,
        ``files`` (count) and ``sha256`` (of ``MANIFEST.tsv``, to pin the study).

    Raises
    ------
    StimuliError
        See :func:`make_study_files`; also if an output folder is not empty.
    """
    bundle = make_study_files(
        design,
        items,
        outputs_by_system,
        task=task,
        variant=variant,
        images_dir=images_dir,
        settings=settings,
    )
    out = Path(out_dir)
    _write_tree(bundle.files, out, overwrite)
    if dmdx_dir is not None:
        _write_tree(make_dmdx_files(bundle), Path(dmdx_dir), overwrite)
    doc = bundle.document
    summary = {
        "study": doc["study"],
        "task": doc["task"],
        "variant": doc["variant"],
        "lists": len(doc["lists"]),
        "trials": sum(len(lst["trials"]) for lst in doc["lists"]),
        "files": len(bundle.files),
        "sha256": hashlib.sha256(bundle.files["MANIFEST.tsv"]).hexdigest(),
    }
    logger.info(
        "study %s: %s%s, %d lists, %d trials, %d files in %s",
        summary["study"],
        task,
        f" ({doc['variant']})" if doc["variant"] else "",
        summary["lists"],
        summary["trials"],
        summary["files"],
        out,
    )
    return summary


def study_sha256(web_dir: str | Path) -> str:
    """Return the SHA-256 of a built study's ``MANIFEST.tsv`` (pins every file).

    Parameters
    ----------
    web_dir : path
        The study's web folder.

    Returns
    -------
    str
        Hex digest; equal for byte-identical studies.

    Raises
    ------
    StimuliError
        If a file differs from the manifest, or the manifest is missing.
    """
    root = Path(web_dir)
    manifest = root / "MANIFEST.tsv"
    if not manifest.is_file():
        raise StimuliError(f"{manifest} is missing; rebuild the study", field="web_dir")
    data = manifest.read_bytes()
    for line in data.decode("utf-8").splitlines()[1:]:
        path, size, digest = line.split("\t")
        target = root / path
        if not target.is_file() or hashlib.sha256(target.read_bytes()).hexdigest() != (
            digest
        ):
            raise StimuliError(
                f"{path} differs from MANIFEST.tsv (size {size}); the study's files "
                "were changed after it was built",
                field="web_dir",
            )
    return hashlib.sha256(data).hexdigest()


# --------------------------------------------------------------------------- DMDX


def _rtf(text: str) -> str:
    """Escape *text* for an RTF item file (DMDX reads RTF)."""
    out = []
    for char in text.replace('"', "'"):
        code = ord(char)
        if char in "\\{}":
            out.append("\\" + char)
        elif code < 128:
            out.append(char)
        elif code < 32768:
            out.append(f"\\u{code}?")
        else:
            out.append(f"\\u{code - 65536}?")
    return "".join(out)


def _f(value: float) -> str:
    return f"{value:.4f}".rstrip("0").rstrip(".") or "0"


def _boxes(trial: Mapping[str, Any]) -> list[tuple[str, str, tuple[float, ...]]]:
    """Screen boxes (normalised x1, y1, x2, y2) of a trial's pictures."""
    columns, rows = trial["grid"]
    width, height = 0.9 / columns, 0.72 / rows
    pad = 0.06
    boxes: list[tuple[str, str, tuple[float, ...]]] = []
    for entity in trial["entities"]:
        x1 = 0.05 + (entity["x"] - 1) * width
        y1 = 0.22 + (entity["y"] - 1) * height
        box = (
            x1 + pad * width,
            y1 + pad * height,
            x1 + (1 - pad) * width,
            y1 + (1 - pad) * height,
        )
        stem = Path(entity["image"]).stem
        boxes.append((entity["id"], stem, box))
    return boxes


_DMDX_README = """DMDX item files for study {study} ({task}{variant})
=================================================

Made by stecflow (stecflow.stimuli.make_dmdx_files) from the same study document as
the web experiment in ../web/, for labs that replicate the seeds' set-up (DMDX,
Forster & Forster 2003). One item file per list: <list>.rtf, plus <list>-items.tsv,
which maps every DMDX item number to the trial it shows and gives the screen box of
every picture (normalised coordinates x1,y1,x2,y2, 0-1 from the top left corner),
so that recorded click positions can be turned into the entity clicked.

Before the first session:
1. Convert the pictures to BMP (DMDX reads .bmp; the files name them without
   extension), e.g. with ImageMagick, in this folder:
     for f in ../web/images/*.svg; do
       convert -background white -density 300 "$f" -resize 300x300 \\
         "$(basename "${{f%.svg}}").bmp"
     done
   (corpus pictures in other formats: convert them the same way).
2. Open each .rtf in DMDX and run its Syntax Check, then a pilot session.
   These files use only the documented item-file keywords <ep>/<eop>, <vm>, <id>,
   <zil>, <t>, <d>, <nfb>, <xyjustification>, <dbc>, <dwc>, <msfd>, <xy>,
   <bmp x1,y1,x2,y2>, <wav>, frames separated by / (next screen) and , (same
   screen), * (clock on) and ; (end of item); there is no <scramble>, so items run
   in the design's list order. They were not run in DMDX when generated (DMDX is
   Windows-only).

Trial structure (identification; times from the study settings):
  the participant requests each item (no <cr>), warning bell (bell.wav),
  fixation cross for {fixation_ms} ms, then
  together:   blank {delay_ms} ms, description and pictures together (clock on);
  read_first: blank {delay_ms} ms, the description (clock on: item n+10000 gives
              the reading time), then the pictures (clock on: item n gives the
              identification time);
  spoken:     the pictures (clock on), the voice {delay_ms} ms later (audio/*.wav).
Timeout {timeout_ms} ms. The click position identifies the picture chosen.
Rating studies have no DMDX files: the seeds ran them on the web only.
"""


def make_dmdx_files(study: StudyFiles) -> dict[str, bytes]:
    """Make DMDX item files (``.rtf``, one per list) for an identification study.

    Mapping of a trial (list order *n*) onto DMDX items: item number *n* (practice
    trials included, as they come first) shows the warning bell (``<wav>
    "bell"``), the fixation cross (``<msfd {fixation_ms}> "+"``) and then the
    stimulus frame with the clock on (``*``): the description (``<xy .5,.1>``) and
    every picture at its grid box (``<bmp x1,y1,x2,y2> "<image stem>"``, pictures
    separated by ``,`` so they share one screen). ``read_first`` splits a trial
    into item ``10000 + n`` (the description: reading time) and item *n* (the
    pictures: identification time); ``spoken`` shows the pictures and plays
    ``<wav> "<audio stem>"`` ``delay_ms`` later. The mouse (``<id mouse>``) with
    zillion responses (``<zil>``) records the click position; ``<list>-items.tsv``
    gives each item's trial and picture boxes to decode it. The timeout is
    ``<t {timeout_ms}>``; there is no ``<scramble>``, so items run in the design's
    list order.

    Parameters
    ----------
    study : StudyFiles
        From :func:`make_study_files`.

    Returns
    -------
    dict of str to bytes
        ``README.txt``, ``bell.wav``, for identification studies ``<list>.rtf``
        and ``<list>-items.tsv`` per list, and the spoken variant's WAV files.
        Rating studies get the README only.
    """
    doc = study.document
    settings = doc["settings"]
    variant = doc["variant"]
    readme = _DMDX_README.format(
        study=doc["study"],
        task=doc["task"],
        variant=f", {variant}" if variant else "",
        fixation_ms=settings["fixation_ms"],
        delay_ms=settings["delay_ms"],
        timeout_ms=settings["timeout_ms"],
    )
    files: dict[str, bytes] = {"README.txt": readme.encode("utf-8")}
    if doc["task"] != "identification":
        return files
    files["bell.wav"] = _beep_wav(settings["beep_hz"], max(settings["beep_ms"], 200))
    for path, data in study.audio.items():
        files[Path(path).name] = data
    header = (
        "{\\rtf1\\ansi\\ansicpg1252\\deff0{\\fonttbl{\\f0\\fswiss Arial;}}\\f0\\fs28\n"
    )
    params = (
        "<ep> <vm desktop> <id keyboard> <id mouse> <zil> "
        f"<t {settings['timeout_ms']}> <d 30> <nfb> <xyjustification center> "
        "<dbc 255255255> <dwc 0> <eop>"
    )
    columns = (
        "dmdx_item",
        "phase",
        "list",
        "order",
        "item",
        "system",
        "practice",
        "filler",
        "target_entity",
        "description",
        "boxes",
    )
    for lst in doc["lists"]:
        lines = [
            params,
            f"! stecflow study {_rtf(doc['study'])}, list {lst['list']}, "
            f"identification ({variant}); generated file, do not edit",
            '0 <xy .5,.4> "'
            + _rtf("Click the picture that the description is about.")
            + '", <xy .5,.6> "'
            + _rtf("Press the space bar to start.")
            + '";',
        ]
        table = ["\t".join(columns)]
        for trial in lst["trials"]:
            n = trial["order"]
            boxes = _boxes(trial)
            pictures = ", ".join(
                f'<bmp {_f(b[0])},{_f(b[1])},{_f(b[2])},{_f(b[3])}> "{stem}"'
                for _, stem, b in boxes
            )
            text = f'<xy .5,.1> "{_rtf(trial["description"])}"'
            start = f'<wav> "bell" / <msfd {settings["fixation_ms"]}> <xy .5,.5> "+" / '
            blank = f'<msfd {settings["delay_ms"]}> "" / '
            phases = [("identification", n)]
            if variant == "together":
                lines.append(f"+{n} {start}{blank}* {text}, {pictures};")
            elif variant == "read_first":
                phases = [("reading", 10000 + n), ("identification", n)]
                lines.append(f"+{10000 + n} {start}{blank}* {text};")
                lines.append(f"+{n} * {pictures};")
            else:
                sound = Path(trial["audio"]).stem
                lines.append(
                    f"+{n} {start}* <msfd {settings['delay_ms']}> {pictures}, "
                    f'<wav> "{sound}";'
                )
            encoded = ";".join(
                f"{eid}:{_f(b[0])},{_f(b[1])},{_f(b[2])},{_f(b[3])}"
                for eid, _, b in boxes
            )
            for phase, number in phases:
                table.append(
                    "\t".join(
                        [
                            str(number),
                            phase,
                            lst["list"],
                            str(n),
                            trial["item"],
                            trial["system"] or "",
                            "true" if trial["practice"] else "false",
                            "true" if trial["filler"] else "false",
                            trial["target"],
                            " ".join(trial["description"].split()),
                            encoded,
                        ]
                    )
                )
        body = header + "".join(line + "\\par\n" for line in lines) + "}\n"
        files[f"{lst['list']}.rtf"] = body.encode("ascii")
        files[f"{lst['list']}-items.tsv"] = ("\n".join(table) + "\n").encode("utf-8")
    return dict(sorted(files.items()))

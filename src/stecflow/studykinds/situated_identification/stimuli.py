"""The situated identification study of seed 000 (§5.1): stimuli with a replay.

Owns the study document of ``task: situated_identification`` and its builder. A
trial replays the shared work area from the start of an expression's context to
just before its utterance (:func:`stecflow.data.dialogue.cut_context`): the pieces
move and the mouse cursor moves as logged, drawn in SVG by the kind's trial
component (``web/components/situated_identification.js``, in the study's
``experiment.js``) from the timeline (no video files), with the preceding
utterances as a transcript synchronised with the clip. When the clip has been
played once, the utterance is shown with the referring expression highlighted
(the system's expression in place of the corpus's where one is given) and the
participant clicks a numbered piece, its numbered button or "I don't know"; the
clip can be replayed any number of times. Organisers of a real corpus may give a
video or audio file per instance instead (``media``): the page then plays it
with a ``<video>`` or ``<audio>`` element in place of the drawing.

What the page records (:data:`SITUATED_COLUMNS`, after
:data:`~stecflow.studies.settings.RESPONSE_COLUMNS`): ``chosen_entity`` (the piece
ID), ``correct``, ``cant_tell`` ("I don't know"), ``time_ms`` (identification time
as seed 000 §5.2 defines it: from the onset of the utterance display to the click,
reading and replays included; also in ``identification_time_ms`` and ``rt_ms``),
``plays`` (times the clip was started, 1 when watched once) and ``replays``
(``plays - 1``, seed 000 Table 9, as :mod:`.measures` reads it),
``answer_via`` (``board``, ``button`` or ``dont_know``), with ``instance``,
``dialogue`` and ``expression`` naming what was shown. There is no time-out (the
seed sets none). These columns are in the file the page saves offline and in the
collection server's export (``stecflow serve``), after :data:`RESPONSE_COLUMNS`.

Replay: an action moves its piece linearly from its state before the action to the
state it leaves (rotation the short way round, a flip half way); one already under
way when the clip starts is drawn from the piece's state before it. The cursor is
the last logged sample (:func:`stecflow.data.dialogue.cursor_at`). With a video
file the participant answers with the numbered buttons; with an audio file the
board is shown still, as the utterance finds it.

The trial document (one per list entry) holds, besides the fields of the REG
studies' trials that apply (``order``, ``item``, ``system``, ``practice``,
``filler``, ``target``): ``dialogue`` and ``expression`` (IDs in the corpus),
``description`` (the utterance as shown), ``highlight`` (``[start, end]`` of the
expression in ``description``, in Python code points; the page converts them to
UTF-16 indices), ``expression_text``, ``media`` (``media/<name>`` or null),
``media_kind`` (``video``, ``audio`` or null) and ``context``: the key of its clip
in the document's ``contexts`` (``<session>/<expression>@<start_ms>``; each clip is
stored once, as every list shows the same instances: :func:`trial_context`). A clip
holds ``start_ms`` and ``end_ms`` in the session, ``duration_ms``, ``area``
(``width``, ``height``), ``pieces`` (``id``, ``number``, ``shape``, ``outline``: the
polygon in pixels about the centroid, before rotation and flip, and the state at the
start ``x``, ``y``, ``rotation``, ``flipped``), ``actions`` (``piece``, ``kind``,
``start_ms``, ``end_ms`` relative to the clip's start, negative for one under way at
the start, and the state they leave: ``x``, ``y``, ``rotation``, ``flipped``),
``cursor`` (``[t_ms, x, y]`` relative), ``cursor_start`` and ``transcript``
(``speaker``, ``start_ms``, ``end_ms`` relative, ``text``, ``audio``: the utterance
spoken by espeak-ng, ``audio/<name>.wav``, when the study is built with
``speech=True``, else null) and, when the study is built with the sessions'
recordings, ``audio``: the clip's stretch of its session's recording
(``audio/clip-<sha>.opus``, :mod:`.stimuli_clips`), which the page plays with
the replay, both starting together at every play.

The lists are given by the caller (a later step wires
:mod:`.design` to this builder); the folder is that of
:func:`stecflow.studies.stimuli.build_study`, with ``media/`` for supplied media
and ``audio/`` for the spoken transcript.

Examples
--------
>>> from stecflow.data.dialogue import read_corpus
>>> sessions = read_corpus("resources/dialogue-demo")  # doctest: +SKIP
>>> bundle = make_situated_study_files(  # doctest: +SKIP
...     sessions, {"L01": [("s01", "s01-e007", "that one")]}, study="rexj")

May import: :mod:`stecflow.core`, :mod:`stecflow.data`,
:mod:`stecflow.studies.settings`, :mod:`stecflow.studies.speech`,
:mod:`stecflow.studies.bundle`, :mod:`.stimuli_clips`.
"""

from __future__ import annotations

import hashlib
import logging
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stecflow.core.errors import StimuliError
from stecflow.data.dialogue import (
    Context,
    Session,
    context_start,
    cut_context,
    piece_polygon,
)
from stecflow.studies import speech as tts
from stecflow.studies.bundle import (
    STIMULI_VERSION,
    StudyFiles,
    digest,
    study_files,
    write_study,
)
from stecflow.studies.settings import RESPONSE_COLUMNS, StudySettings, paradigm_settings
from stecflow.studies.strings import SITUATED_TITLES, SITUATED_UI_STRINGS, UI_STRINGS

__all__ = [
    "AUDIO_SUFFIXES",
    "SITUATED_COLUMNS",
    "SITUATED_TASK",
    "VIDEO_SUFFIXES",
    "SituatedInstance",
    "build_situated_study",
    "highlighted_text",
    "make_situated_study_files",
    "trial_context",
    "situated_settings",
    "utf16_offset",
]

logger = logging.getLogger(__name__)

#: The ``task`` of a situated identification study.
SITUATED_TASK = "situated_identification"
#: Columns a situated study's response table has after RESPONSE_COLUMNS.
SITUATED_COLUMNS = (
    "instance",
    "dialogue",
    "expression",
    "time_ms",
    "plays",
    "replays",
    "answer_via",
)
#: Media file suffixes played with <video> and with <audio>.
VIDEO_SUFFIXES = (".mp4", ".webm", ".ogv")
AUDIO_SUFFIXES = (".wav", ".mp3", ".ogg", ".oga", ".m4a", ".opus")


@dataclass(frozen=True)
class SituatedInstance:
    """One trial's content: an expression of a session, as shown.

    Attributes
    ----------
    session : str
        The dialogue session's ID.
    expression : str
        The referring expression's ID in that session.
    text : str or None
        The expression shown in place of the corpus's (a system's output, e.g. a
        demonstrative pronoun); None shows the corpus's own.
    system : str or None
        Who produced *text* (``Orig`` or a system ID), recorded with the answer.
    media : str or None
        A video or audio file (name in ``media_dir``) played instead of the drawn
        replay.
    start_ms : int or None
        Where the context starts; None takes seed 000's
        (:func:`stecflow.data.dialogue.context_start`).
    item : str or None
        The trial's item ID (default: the expression ID).
    """

    session: str
    expression: str
    text: str | None = None
    system: str | None = None
    media: str | None = None
    start_ms: int | None = None
    item: str | None = None


def utf16_offset(text: str, index: int) -> int:
    """The UTF-16 index (JavaScript's) of the code point *index* of *text*.

    >>> utf16_offset("\U00020bb7\u91ce\u5bb6", 2)
    3
    >>> utf16_offset("abc", 2)
    2
    """
    return len(text[:index].encode("utf-16-le")) // 2


def highlighted_text(
    text: str, start: int, end: int, shown: str | None
) -> tuple[str, list[int]]:
    """The utterance with the expression ``text[start:end]`` replaced by *shown*.

    Returns the new text and the expression's ``[start, end]`` in it (code points).

    >>> highlighted_text("move the small triangle up", 5, 23, "that one")
    ('move that one up', [5, 13])
    >>> highlighted_text("move it", 5, 7, None)
    ('move it', [5, 7])
    """
    if shown is None:
        return text, [start, end]
    shown = " ".join(str(shown).split())
    return text[:start] + shown + text[end:], [start, start + len(shown)]


def _instance(value: Any) -> SituatedInstance:
    if isinstance(value, SituatedInstance):
        return value
    if isinstance(value, Mapping):
        return SituatedInstance(**value)
    if isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 3:
        return SituatedInstance(str(value[0]), str(value[1]), value[2])
    raise StimuliError(
        f"{value!r} is not a (session, expression, shown text) triple",
        field="lists",
    )


def _state(x: float, y: float, rotation: float, flipped: bool) -> dict[str, Any]:
    return {"x": x, "y": y, "rotation": rotation, "flipped": flipped}


def _context_document(session: Session, context: Context) -> dict[str, Any]:
    """The replayed stretch as the page draws it (times relative to the start)."""
    t0 = context.start_ms
    unit = session.area.unit
    pieces = []
    for number, piece in enumerate(context.pieces, start=1):
        outline = piece_polygon(piece.shape, 0, 0, 0, False, unit)
        pieces.append(
            {
                "id": piece.id,
                "number": number,
                "shape": piece.shape,
                "outline": [[round(x, 3), round(y, 3)] for x, y in outline],
                **_state(piece.x, piece.y, piece.rotation, piece.flipped),
            }
        )
    return {
        "start_ms": context.start_ms,
        "end_ms": context.end_ms,
        "duration_ms": context.duration_ms,
        "area": {"width": session.area.width, "height": session.area.height},
        "pieces": pieces,
        "actions": [
            {
                "piece": a.piece,
                "kind": a.kind,
                "start_ms": a.start_ms - t0,
                "end_ms": a.end_ms - t0,
                **_state(a.x, a.y, a.rotation, a.flipped),
            }
            for a in context.actions
        ],
        "cursor": [[s.t_ms - t0, s.x, s.y] for s in context.cursor],
        "cursor_start": (
            None if context.cursor_start is None else list(context.cursor_start)
        ),
        "transcript": [
            {
                "speaker": u.speaker,
                "start_ms": u.start_ms - t0,
                "end_ms": u.end_ms - t0,
                "text": u.text,
            }
            for u in context.utterances
        ],
    }


def _media_kind(name: str) -> str:
    suffix = Path(name).suffix.lower()
    if suffix in VIDEO_SUFFIXES:
        return "video"
    if suffix in AUDIO_SUFFIXES:
        return "audio"
    raise StimuliError(
        f"{name}: a media file must end in one of "
        f"{', '.join(VIDEO_SUFFIXES + AUDIO_SUFFIXES)}",
        field="media",
    )


def situated_settings(
    settings: StudySettings | Mapping[str, Any] | None,
) -> tuple[StudySettings, dict[str, str]]:
    """The settings of a situated study and its overrides of the situated strings.

    ``strings`` may replace keys of :data:`~stecflow.studies.strings.UI_STRINGS`
    (checked by :class:`~stecflow.studies.settings.StudySettings`) and of
    :data:`~stecflow.studies.strings.SITUATED_UI_STRINGS` (checked here: a known
    key, a string with the ``{name}`` fields of the original). A study that sets
    no title gets :data:`~stecflow.studies.strings.SITUATED_TITLES` in its
    language, not the REG studies' "Descriptions of pictures".

    Returns
    -------
    (StudySettings, dict)
        The settings (``strings``: the REG keys only) and the situated overrides.

    Raises
    ------
    ConfigError
        For an unknown key or a bad value (``experiment.<key>``,
        ``experiment.strings.<key>``).

    Examples
    --------
    >>> settings, extra = situated_settings({"strings": {"dont_know": "No idea"}})
    >>> settings.title, extra
    ('Which piece is meant?', {'dont_know': 'No idea'})
    >>> situated_settings({"language": "ja"})[0].title
    'どのピースのことでしょう'
    """
    return paradigm_settings(settings, SITUATED_UI_STRINGS, SITUATED_TITLES)


def _texts(settings: StudySettings, situated: Mapping[str, str]) -> dict[str, Any]:
    ui = {
        **UI_STRINGS[settings.language],
        **SITUATED_UI_STRINGS[settings.language],
        **settings.catalogue(SITUATED_UI_STRINGS),
        **(settings.strings or {}),
        **situated,
    }
    paragraphs = [ui["instructions_situated"], ui["instructions_situated_replay"]]
    if settings.instructions:
        paragraphs = [p.strip() for p in settings.instructions.split("\n\n")]
    return {
        "instructions": [p for p in paragraphs if p],
        "language": settings.language,
        "ui": ui,
    }


def _settings_document(
    settings: StudySettings, situated: Mapping[str, str]
) -> dict[str, Any]:
    data = settings.to_dict()
    if situated:
        data["strings"] = dict(sorted({**(settings.strings or {}), **situated}.items()))
    return data


def make_situated_study_files(
    sessions: Iterable[Session] | Mapping[str, Session],
    lists: Mapping[str, Sequence[Any]],
    *,
    study: str,
    settings: StudySettings | Mapping[str, Any] | None = None,
    max_context_ms: int = 30_000,
    media_dir: str | Path | None = None,
    shuffle_seed: int | None = None,
    speed: float = 1.0,
    speech: bool = False,
    groups: Mapping[str, int] | None = None,
    recordings: Mapping[str, str | Path] | None = None,
) -> StudyFiles:
    """Make every file of a situated identification study, in memory (pure).

    Parameters
    ----------
    sessions : iterable or mapping of Session
        The dialogue sessions (:func:`stecflow.data.dialogue.read_corpus`).
    lists : mapping of str to sequence
        List ID -> its trials in order: :class:`SituatedInstance`, a mapping of
        its fields, or a ``(session, expression, shown text)`` triple (shown text
        None: the corpus's expression).
    study : str
        The study's ID.
    settings : StudySettings or mapping, optional
        As for :func:`stecflow.studies.stimuli.make_study_files`; ``language``
        selects the interface strings, ``break_every`` the breaks; ``strings``
        may also replace the situated trial's strings (:func:`situated_settings`,
        which also gives the default title).
    max_context_ms : int, default 30000
        Longest context when an instance gives no ``start_ms`` (seed 000: 30 s).
    media_dir : path, optional
        The folder holding the instances' ``media`` files.
    shuffle_seed : int, optional
        Shuffle each list's trials with ``random.Random(f"{seed}:{list}")``
        (seed 000 randomised the order per participant); None keeps the order.
    speed : float, default 1.0
        Replay speed (1: as logged; more only for piloting and tests), recorded in
        the document.
    speech : bool, default False
        Also speak the transcript: each preceding utterance is synthesised with
        espeak-ng (voice ``settings.voice``, rate ``settings.speech_wpm``) into
        ``audio/`` and played from its logged onset during the replay.
    groups : mapping of str to int, optional
        List ID -> the group of the design it belongs to (seed 000's two groups),
        recorded with the list; 1 for every list if None.
    recordings : mapping of str to path, optional
        Session ID -> its sound recording (checked by
        :func:`.stimuli_clips.recording_files`): each clip's stretch of it is
        cut with ffmpeg (:func:`.stimuli_clips.cut_clip`) into
        ``audio/clip-<sha>.opus``, named in the clip's ``audio`` and played by
        the page with the replay; the document's ``clip_audio`` records the
        codec and the ffmpeg version. None: no clip audio (no ``audio`` key).

    Returns
    -------
    StudyFiles

    Raises
    ------
    StimuliError
        An unknown session or expression, an expression whose context does not
        qualify (seed 000 §5.1: no earlier mention of or action on the target,
        or longer than *max_context_ms*), a missing or unknown media file,
        *speech* without espeak-ng installed.
    """
    settings, situated_strings = situated_settings(settings)
    if not 0.25 <= float(speed) <= 20:
        raise StimuliError(f"must be between 0.25 and 20, got {speed}", field="speed")
    by_id = (
        dict(sessions) if isinstance(sessions, Mapping) else {s.id: s for s in sessions}
    )
    voice: dict[str, Any] | None = None
    if speech:
        version = tts.espeak_version()
        if version is None:
            raise StimuliError(
                "speech synthesises the transcript with espeak-ng, which is not "
                "installed (Debian/Ubuntu: apt-get install espeak-ng)",
                field="speech",
            )
        voice = {
            "engine": "espeak-ng",
            "version": version,
            "voice": settings.voice,
            "wpm": settings.speech_wpm,
        }
    audio: dict[str, bytes] = {}
    clip_audio: dict[str, bytes] = {}
    if recordings is not None and (speech or media_dir is not None):
        raise StimuliError(
            "recordings give each clip its own sound; leave out speech and media",
            field="recordings",
        )
    media_root = Path(media_dir) if media_dir is not None else None
    media: dict[str, bytes] = {}
    problems: list[str] = []
    contexts: dict[str, dict[str, Any]] = {}
    out_lists = []
    for list_id in sorted(lists):
        entries = [_instance(v) for v in lists[list_id]]
        if shuffle_seed is not None:
            random.Random(f"{shuffle_seed}:{list_id}").shuffle(entries)
        trials = []
        for order, inst in enumerate(entries, start=1):
            session = by_id.get(inst.session)
            if session is None:
                problems.append(f"no session {inst.session}")
                continue
            try:
                utterance, expression = session.find(inst.expression)
            except KeyError:
                problems.append(f"no expression {inst.expression} in {inst.session}")
                continue
            start = inst.start_ms
            if start is None:
                start = context_start(session, inst.expression, max_context_ms)
            if start is None:
                problems.append(
                    f"{inst.expression} has no qualifying context (seed 000 §5.1: the "
                    f"last mention of and the last action on {expression.referent} "
                    f"within {max_context_ms} ms before the utterance)"
                )
                continue
            # every list shows the same clips: each is stored once, by this key
            context_key = f"{session.id}/{inst.expression}@{start}"
            if context_key not in contexts:
                try:
                    context = cut_context(session, inst.expression, start)
                except ValueError as error:
                    problems.append(str(error))
                    continue
                context_doc = _context_document(session, context)
                for line in context_doc["transcript"]:
                    line["audio"] = None
                    if voice is not None:
                        name = digest(line["text"], settings.voice, settings.speech_wpm)
                        line["audio"] = f"audio/{name[:20]}.wav"
                        if line["audio"] not in audio:
                            audio[line["audio"]] = tts.speak(
                                line["text"], settings.voice, settings.speech_wpm
                            )
                if recordings is not None:
                    name = _clip_audio(recordings, session.id, context, clip_audio)
                    if name is None:
                        problems.append(f"no recording of session {session.id}")
                        continue
                    context_doc["audio"] = name
                contexts[context_key] = context_doc
            text, span = highlighted_text(
                utterance.text, expression.start, expression.end, inst.text
            )
            shown_media = None
            kind = None
            if inst.media is not None:
                name = Path(inst.media).name
                if name != inst.media or media_root is None:
                    problems.append(
                        f"media {inst.media!r} must be a file name in media_dir"
                    )
                    continue
                kind = _media_kind(name)
                source = media_root / name
                if not source.is_file():
                    problems.append(f"media file {source} is missing")
                    continue
                # named by content: an organiser's file name may say which
                # version (original or system) a clip shows
                data = source.read_bytes()
                sha = hashlib.sha256(data).hexdigest()[:20]
                shown_media = f"media/{sha}{Path(name).suffix.lower()}"
                media[shown_media] = data
            trials.append(
                {
                    "order": order,
                    "item": inst.item or inst.expression,
                    "system": inst.system,
                    "subdomain": None,
                    "item_set": None,
                    "practice": False,
                    "filler": False,
                    "dialogue": session.id,
                    "expression": expression.id,
                    "target": expression.referent,
                    "description": text,
                    "highlight": span,
                    "expression_text": text[span[0] : span[1]],
                    "media": shown_media,
                    "media_kind": kind,
                    "context": context_key,
                }
            )
        out_lists.append(
            {
                "list": str(list_id),
                "subject_slot": len(out_lists) + 1,
                "group": int((groups or {}).get(list_id, 1)),
                "trials": trials,
            }
        )
    if problems:
        shown = "; ".join(problems[:10])
        more = f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""
        raise StimuliError(
            f"{len(problems)} problem(s): {shown}{more}", field=f"study {study}"
        )
    document = {
        "format": "stecflow-study",
        "version": STIMULI_VERSION,
        "study": study,
        "task": SITUATED_TASK,
        "variant": None,
        "settings": _settings_document(settings, situated_strings),
        "texts": _texts(settings, situated_strings),
        "columns": list(RESPONSE_COLUMNS) + list(SITUATED_COLUMNS),
        "design": {
            "max_context_ms": max_context_ms,
            "shuffle_seed": shuffle_seed,
            "speed": float(speed),
        },
        "speech": voice,
        # how fast clips replay: the page's, unlike the design (kept in the key)
        "replay_speed": float(speed),
        "contexts": dict(sorted(contexts.items())),
        "lists": out_lists,
    }
    if recordings is not None:
        from stecflow.studykinds.situated_identification.stimuli_clips import (
            CLIP_CODEC,
            ffmpeg_version,
        )

        document["clip_audio"] = {**CLIP_CODEC, "ffmpeg": ffmpeg_version()}
    return study_files(document, {**media, **audio, **clip_audio}, audio)


def _clip_audio(
    recordings: Mapping[str, str | Path],
    session: str,
    context: Context,
    files: dict[str, bytes],
) -> str | None:
    """Cut *context*'s stretch of *session*'s recording into *files*; its name."""
    from stecflow.studykinds.situated_identification.stimuli_clips import cut_clip

    recording = recordings.get(session)
    if recording is None:
        return None
    data = cut_clip(recording, context.start_ms, context.end_ms, "recordings")
    name = f"audio/clip-{hashlib.sha256(data).hexdigest()[:20]}.opus"
    files[name] = data
    return name


def trial_context(document: Mapping[str, Any], trial: Mapping[str, Any]) -> Any:
    """The clip of *trial* in a situated study *document*.

    A trial names its clip by key (``context``); the clips are stored once, in
    the document's ``contexts``, since every list shows the same instances.
    """
    return document["contexts"][trial["context"]]


def build_situated_study(
    sessions: Iterable[Session] | Mapping[str, Session],
    lists: Mapping[str, Sequence[Any]],
    *,
    study: str,
    out_dir: str | Path,
    overwrite: bool = False,
    **options: Any,
) -> dict[str, Any]:
    """Build a situated identification study into *out_dir* (the web folder).

    Parameters
    ----------
    sessions, lists, study
        As for :func:`make_situated_study_files`; *options* are its keyword
        arguments.
    out_dir : path
        The folder to create (``results/studies/<study>/web``).
    overwrite : bool, default False
        Replace a non-empty *out_dir*.

    Returns
    -------
    dict
        ``study``, ``task``, ``lists``, ``trials``, ``files`` and ``sha256`` (of
        ``MANIFEST.tsv``), as :func:`stecflow.studies.stimuli.build_study`.
    """
    bundle = make_situated_study_files(sessions, lists, study=study, **options)
    write_study(bundle, out_dir, overwrite=overwrite)
    summary = bundle.summary()
    logger.info(
        "study %s: %s, %d lists, %d trials in %s",
        study,
        SITUATED_TASK,
        summary["lists"],
        summary["trials"],
        out_dir,
    )
    return summary

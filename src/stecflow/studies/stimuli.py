"""Stimuli of a human study: a self-contained web experiment and DMDX item files.

:func:`build_study` turns a study :class:`~stecflow.studies.designs.Design`, the corpus
items and the systems' outputs into a folder that runs the whole experiment in a
browser, both from disk (``file://``, *offline*: the results are saved as a file at the
end) and served by :mod:`stecflow.studies.server` (*online*: every trial is stored the
moment it is answered). It is a pure function of its inputs (design, items, outputs,
settings, pictures and, for spoken descriptions, the installed espeak-ng): the same
inputs give the same bytes, so a deployed study can be pinned by the SHA-256 of its
``MANIFEST.tsv`` (:func:`study_sha256`).

The two experiments of the TUNA challenges are supported (seed 001 sections 5.2 and
5.3, seed 003 section 3.2, seed 002, seed 000 section 5.1):

``task="rating"`` (intrinsic, TUNA-REG'09)
    Each trial shows a description with its domain pictures on the 5 x 3 grid, the
    target in a red frame, and two sliders with the Adequacy and Fluency questions
    of seed 001 (:data:`~stecflow.studies.strings.ADEQUACY_QUESTION`,
    :data:`~stecflow.studies.strings.FLUENCY_QUESTION`). Pointers start in the
    centre; the scale is hidden and mapped to the integers 1-100.
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
    espeak-ng by :mod:`stecflow.studies.speech`; identification time is measured
    from display onset). A "can't tell" button is added with ``cant_tell=True``
    (the two-group design of seed 000).

Every experiment has instructions, the design's practice trials first (with
feedback in identification), a progress indicator, a break every ``break_every``
test trials and a completion screen. Times come from ``performance.now()``.

Output folder (``results/studies/<study>/web/``)::

    index.html       the page (open it from disk, or serve the folder)
    experiment.js    the runner (plain JavaScript, no library, no network): the
                     core and the study kind's trial component (:func:`page_script`)
    experiment.css
    stimuli.js       the study document as a script (file:// pages cannot fetch JSON)
    stimuli.json     the same document, read by the server
    images/          the pictures: the corpus's own files, the demo's SVG drawings
                     for entities without one, or a labelled placeholder
    audio/           spoken variant: one WAV per distinct description
    MANIFEST.tsv     path, size and SHA-256 of every other file

The study document (``stimuli.json``) holds ``study``, ``task``, ``variant``,
``settings`` (:class:`~stecflow.studies.settings.StudySettings`), ``texts``
(instructions and questions), ``columns``
(:data:`~stecflow.studies.settings.RESPONSE_COLUMNS`), ``design`` (the design's
settings), ``speech`` (engine, version, voice and rate, or null) and ``lists``: one per
subject slot, each with its ordered ``trials``. A trial has ``order``, ``item``,
``system`` (null for practice trials without one), ``subdomain``, ``practice``,
``filler``, ``description`` (the word string shown or spoken), ``audio`` (a path or
null), ``target`` (the target entity ID), ``grid`` (``[columns, rows]``) and
``entities`` (``id``, ``image``, and the 1-based grid cell ``x``, ``y``: TUNA's
``x-dimension`` and ``y-dimension`` when every entity has them, else a layout drawn from
the study seed and the item ID). The grid, the entities and their pictures are the REG
task's scene of the item (:func:`stecflow.tasks.reg.scene.scene`); the pictures go to
``images/``.

DMDX (:func:`~stecflow.studies.dmdx.make_dmdx_files`, written by :func:`build_study`
when ``dmdx_dir`` is given) replicates the seeds' lab set-up for identification studies;
see that function for how a trial maps onto a DMDX item.

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
import json
import logging
import math
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stecflow.core.errors import StimuliError
from stecflow.data.model import Item
from stecflow.studies import speech
from stecflow.studies.blinding import KEY_FILE, blind, media_paths
from stecflow.studies.dmdx import make_dmdx_files
from stecflow.studies.settings import RESPONSE_COLUMNS, TASKS, StudySettings
from stecflow.studies.strings import UI_STRINGS, read_catalogue
from stecflow.studykinds.registry import identifies
from stecflow.tasks.registry import task_types

if TYPE_CHECKING:  # pragma: no cover - typing only (designs imports pandas)
    from stecflow.studies.designs import Design
    from stecflow.tasks.base import TaskType

__all__ = [
    "PAGE_MARKER",
    "STIMULI_VERSION",
    "StimuliError",
    "StudyFiles",
    "build_study",
    "make_study_files",
    "page_script",
    "study_sha256",
    "write_study",
]

logger = logging.getLogger(__name__)

#: Version of the study document and page; bump when either changes meaning.
STIMULI_VERSION = 1
_WEB_ASSETS = ("experiment.css",)
#: The line of ``web/core.js`` after which :func:`page_script` puts a kind's parts.
PAGE_MARKER = (
    b"  // ---- trial components of the study's kind"
    b" (page_script inserts them after this line)\n"
)


# --------------------------------------------------------------------------- helpers


@dataclass(frozen=True)
class StudyFiles:
    """The files of a study's web folder, as bytes keyed by relative path.

    Attributes
    ----------
    document : dict
        The whole study document, every trial with its item, system and answer:
        the organiser's (:mod:`stecflow.studies.blinding`); the web folder holds
        only its public part.
    files : dict of str to bytes
        Every file of the web folder (what the server serves), ``MANIFEST.tsv``
        included: the page, the public document (no lists), the media of every list.
    audio : dict of str to bytes
        The spoken descriptions (``audio/<name>.wav``), also in *files*.
    key : bytes
        The organiser's key (``stimuli-key.json``, beside the web folder): the
        document with trial IDs and entity labels, and every participant list.
    offline : dict of str to dict
        List ID -> the files of that list's offline copy (``offline/<list>/``):
        the page, the public document with that list only, its media.
    """

    document: dict[str, Any]
    files: dict[str, bytes] = field(repr=False)
    audio: dict[str, bytes] = field(default_factory=dict, repr=False)
    key: bytes = field(default=b"", repr=False)
    offline: dict[str, dict[str, bytes]] = field(default_factory=dict, repr=False)

    def summary(self) -> dict[str, Any]:
        """What a ``stimuli`` hook returns: ``study``, ``task``, ``variant``,
        the numbers of ``lists``, ``trials`` and ``files``, and ``sha256`` (of
        ``MANIFEST.tsv``, which an opened study's config pins)."""
        doc = self.document
        return {
            "study": doc["study"],
            "task": doc["task"],
            "variant": doc.get("variant"),
            "lists": len(doc["lists"]),
            "trials": sum(len(lst["trials"]) for lst in doc["lists"]),
            "files": len(self.files),
            "sha256": hashlib.sha256(self.files["MANIFEST.tsv"]).hexdigest(),
        }


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


def page_script(task: str) -> bytes:
    """The ``experiment.js`` of a study of kind *task*: the core and its parts.

    ``web/core.js`` up to and including its marker line (:data:`PAGE_MARKER`),
    then each of the kind's page parts
    (:attr:`~stecflow.studykinds.base.StudyKind.page`: a file of
    ``web/components/``, or an absolute path for a kind declared outside the
    library) after a one-line banner comment naming it (``components/<name>``,
    or the file's name), then the rest of ``core.js``. The parts are code inside
    the core's function and register the kind's trial with ``trialKind``. The
    bytes depend only on the files, never on where they are.

    Raises
    ------
    StimuliError
        If a page part is missing.

    Examples
    --------
    >>> script = page_script("rating")
    >>> b'// ---- components/_grid.js' in script
    True
    >>> script.count(b'trialKind("rating"')
    1
    """
    from stecflow.studykinds import registry

    core = _asset("core.js")
    head, marker, tail = core.partition(PAGE_MARKER)
    if not marker:  # pragma: no cover - the package's own file
        raise StimuliError("web/core.js has no marker line for the trial components")
    parts = [head, marker]
    for name in registry.get(task).page:
        path = Path(name)
        if path.is_absolute():
            label, source = path.name, path
        else:
            label = f"components/{name}"
            source = resources.files("stecflow.studies") / "web" / label
        try:
            data = source.read_bytes()
        except OSError as error:
            raise StimuliError(
                f"the page part {name} of the study kind {task} cannot be read"
                f" ({error.strerror or error}); StudyKind.page names files of"
                " stecflow/studies/web/components/ or absolute paths"
            ) from error
        if data and not data.endswith(b"\n"):
            data += b"\n"
        parts += [f"  // ---- {label}\n".encode(), data]
    parts.append(tail)
    return b"".join(parts)


def _texts(
    task: str, variant: str | None, settings: StudySettings, n_practice: int
) -> dict[str, Any]:
    """The instructions and labels shown by the page, in the study's language.

    Every string comes from :data:`~stecflow.studies.strings.UI_STRINGS`
    (:meth:`StudySettings.ui_strings`). Unless the interface is the default
    (English, no overrides), ``ui`` holds the whole table for ``experiment.js``
    and ``index.html``; the English default adds nothing, so an English study's
    files are byte for byte those of earlier versions.
    """
    ui = settings.ui_strings()
    timeout_s = f"{settings.timeout_ms / 1000:g}"
    if not identifies(task):
        paragraphs = [
            ui["instructions_rating_intro"],
            ui["instructions_rating_sliders"],
            "1. " + ui["adequacy_question"],
            "2. " + ui["fluency_question"],
        ]
    else:
        paragraphs = [
            ui[f"instructions_{variant}"],
            ui["instructions_trial_start"].format(timeout_s=timeout_s),
        ]
        if settings.cant_tell:
            paragraphs.append(ui["instructions_cant_tell"])
    if n_practice:
        key = "one" if n_practice == 1 else "many"
        paragraphs.append(ui[f"instructions_practice_{key}"].format(n=n_practice))
    if settings.instructions:
        paragraphs = [p.strip() for p in settings.instructions.split("\n\n")]
    texts: dict[str, Any] = {
        "instructions": [p for p in paragraphs if p],
        "adequacy_question": ui["adequacy_question"],
        "fluency_question": ui["fluency_question"],
        "adequacy_labels": [ui["adequacy_label_low"], ui["adequacy_label_high"]],
        "fluency_labels": [ui["fluency_label_low"], ui["fluency_label_high"]],
    }
    if not settings.default_interface:
        texts["language"] = settings.language
        texts["ui"] = ui
    return texts


def _check_task(task: str, variant: str | None) -> str | None:
    """The study's variant, its kind's default filled in (None: the kind has
    none); refuse a kind this builder cannot show and a variant it lacks."""
    from stecflow.studykinds.registry import get as study_kind

    if task not in TASKS:
        raise StimuliError(f"{task!r} is not one of {', '.join(TASKS)}", field="task")
    variants = study_kind(task).variants
    if not variants:
        if variant not in (None, "together"):
            raise StimuliError(
                f"a {task} study has no variant (got {variant!r}); the description "
                "is always shown with the pictures",
                field="variant",
            )
        return None
    if variant is None:
        variant = variants[0]
    if variant not in variants:
        raise StimuliError(
            f"{variant!r} is not one of {', '.join(variants)}", field="variant"
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
    task_type: TaskType | None = None,
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
        vocabulary, else a labelled placeholder (see
        :func:`stecflow.tasks.reg.scene.scene`).
    settings : StudySettings or mapping, optional
        Presentation settings (:class:`~stecflow.studies.settings.StudySettings`);
        a mapping is checked with
        :meth:`~stecflow.studies.settings.StudySettings.from_mapping`.
    task_type : TaskType, optional
        The campaign's task type, whose ``scene`` shows an item's input (default:
        the REG tasks' grid of entity pictures).

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
    if task_type is None:
        task_type = task_types()[0]
    show = task_type.scene
    if show is None:
        raise StimuliError(
            f"task type {task_type.name} declares no scene: its items' inputs cannot"
            " be shown in a study",
            field="task_type",
        )
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
    voice: dict[str, Any] | None = None
    if variant == "spoken":
        version = speech.espeak_version()
        if version is None:
            raise StimuliError(
                "the spoken variant synthesises descriptions with espeak-ng, which "
                "is not installed; install it (Debian/Ubuntu: apt-get install "
                "espeak-ng) or choose variant together or read_first",
                field="variant",
            )
        voice = {
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
            grid, shown, item_pictures = show(item, images, design.seed)
            # the scene checks one item; all items' pictures share images/
            for name, data in item_pictures.items():
                if pictures.setdefault(name, data) != data:
                    raise StimuliError(
                        f"two different pictures are both called {name}",
                        field=f"item {item_id}",
                    )
            entities = [{**e, "image": f"images/{e['image']}"} for e in shown]
            layouts[item_id] = (grid, entities)
        grid, entities = layouts[item_id]
        target_id = item.domain.target.id
        if not identifies(task):  # a judged stimulus frames its target
            entities = [
                {**e, "marked": True} if e["id"] == target_id else e for e in entities
            ]
        sound = None
        if voice is not None:
            sound = (
                f"audio/{_digest(text, settings.voice, settings.speech_wpm)[:20]}.wav"
            )
            if sound not in audio:
                audio[sound] = speech.speak(text, settings.voice, settings.speech_wpm)
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
                "target": target_id,
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
        "speech": voice,
        "lists": [
            lists[k] for k in sorted(lists, key=lambda k: lists[k]["subject_slot"])
        ],
    }
    extra = {f"images/{name}": data for name, data in pictures.items()}
    return study_files(document, {**extra, **audio}, audio)


def study_files(
    document: Mapping[str, Any],
    extra: Mapping[str, bytes],
    audio: Mapping[str, bytes],
) -> StudyFiles:
    """Every file of a study from its whole document and its media.

    The document is blinded (:func:`stecflow.studies.blinding.blind`). The web
    folder gets the page (``index.html``), the public document as JSON and as a
    script, the page's assets, the *extra* files (pictures, media, audio, by
    relative path) and the ``MANIFEST.tsv`` of them all, in path order; each
    list's offline copy gets the same page with that list only and the media it
    shows; the key keeps the rest. Shared by every kind of study.
    """
    from stecflow.studies.screens import study_screens

    screens = study_screens(document.get("settings") or {})
    extra = dict(extra)
    word = (document.get("settings") or {}).get("sound_check")
    if word:
        settings = document["settings"]
        extra["audio/sound-check.wav"] = speech.speak(
            word, settings.get("voice", "en-us"), settings.get("speech_wpm", 150)
        )
    if screens:
        document = {**document, "screens": screens}
    if (document.get("settings") or {}).get("messages"):
        language, _ = read_catalogue(document["settings"]["messages"], UI_STRINGS)
        document = {**document, "texts": {**document["texts"], "language": language}}
    given = document.get("settings") or {}
    if given.get("check_window"):
        from stecflow.studykinds.registry import get as study_kind

        width, height = study_kind(document["task"]).min_window
        document = {
            **document,
            "settings": {
                **given,
                "min_width": given.get("min_width") or width,
                "min_height": given.get("min_height") or height,
            },
        }
    blinded = blind(document)
    key = _json_bytes(blinded.key)
    public = {**blinded.public, "design_sha256": hashlib.sha256(key).hexdigest()}
    files = _page_files(public, extra)
    offline: dict[str, dict[str, bytes]] = {}
    code = (document.get("settings") or {}).get("completion_code")
    for list_id, shown in blinded.lists.items():
        wanted = media_paths(shown) | {"audio/sound-check.wav"}
        own = {
            **public,
            "settings": {**public["settings"], "completion_code": code},
            "lists": [shown],
        }
        offline[list_id] = _page_files(
            own, {p: data for p, data in extra.items() if p in wanted}
        )
    return StudyFiles(
        document=dict(document), files=files, audio=audio, key=key, offline=offline
    )


def _page_files(document: Mapping[str, Any], extra: Mapping[str, bytes]) -> dict:
    """The page, its document (JSON and script), assets, *extra* and manifest."""
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
    files["experiment.js"] = page_script(document["task"])
    files.update(extra)
    files["MANIFEST.tsv"] = _manifest(files)
    return dict(sorted(files.items()))


def _render_index(document: Mapping[str, Any]) -> bytes:
    from jinja2 import Environment, StrictUndefined

    env = Environment(
        autoescape=True, undefined=StrictUndefined, keep_trailing_newline=True
    )
    template = env.from_string(_asset("index.html.j2").decode("utf-8"))
    texts = document["texts"]
    ui = texts.get("ui") or UI_STRINGS["en"]
    text = template.render(
        title=document["settings"]["title"],
        study=document["study"],
        task=document["task"],
        variant=document["variant"] or "",
        language=texts.get("language", "en"),
        noscript=_html_text(ui["html_noscript"]),
        loading=_html_text(ui["html_loading"]),
        damaged=texts["ui"].get("damaged", "") if texts.get("ui") else "",
    )
    return text.encode("utf-8")


def _html_text(text: str) -> Any:
    """Escape *text* for HTML, writing the ellipsis as ``&hellip;``."""
    from markupsafe import Markup, escape

    return Markup(str(escape(text)).replace("\u2026", "&hellip;"))


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


def write_study(
    bundle: StudyFiles, out_dir: str | Path, *, overwrite: bool = False
) -> None:
    """Write a study's files: the web folder, and beside it the key and offline copies.

    *out_dir* is the web folder (``results/studies/<study>/web``); the key goes to
    ``stimuli-key.json`` and each list's offline copy to ``offline/<list>/`` in its
    parent folder, the study folder.
    """
    out = Path(out_dir)
    _write_tree(bundle.files, out, overwrite)
    offline = {
        f"{list_id}/{path}": data
        for list_id, files in bundle.offline.items()
        for path, data in files.items()
    }
    _write_tree(offline, out.parent / "offline", overwrite)
    (out.parent / KEY_FILE).write_bytes(bundle.key)


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
    task_type: TaskType | None = None,
) -> dict[str, Any]:
    """Build a study's web experiment (and DMDX files) into folders.

    Parameters
    ----------
    design, items, outputs_by_system, task, variant, images_dir, settings, task_type
        As for :func:`make_study_files`.
    out_dir : path
        The web folder to create (``results/studies/<study>/web``).
    dmdx_dir : path, optional
        Also write DMDX item files there (``results/studies/<study>/dmdx``); see
        :func:`stecflow.studies.dmdx.make_dmdx_files`.
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
        task_type=task_type,
    )
    out = Path(out_dir)
    write_study(bundle, out, overwrite=overwrite)
    if dmdx_dir is not None:
        _write_tree(make_dmdx_files(bundle), Path(dmdx_dir), overwrite)
    doc = bundle.document
    summary = bundle.summary()
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

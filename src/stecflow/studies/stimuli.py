"""The REG grid kinds' stimuli: their study document, its web bundle and DMDX files.

This module owns the study of the two grid kinds, ``rating`` and ``identification``
(a description shown with its domain's pictures on a grid): :func:`make_study_files`
turns a study :class:`~stecflow.studies.designs.Design`, the corpus items and the
systems' outputs into the study document and hands it to
:func:`~stecflow.studies.bundle.study_files` (the self-contained web experiment every
kind of study is written as, :mod:`stecflow.studies.bundle`); :func:`build_study`
writes it, with DMDX item files when asked. It is a pure function of its inputs
(design, items, outputs, settings, pictures and, for spoken descriptions, the
installed espeak-ng): the same inputs give the same bytes.

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
    espeak-ng by :mod:`stecflow.studies.speech`, or played from the organisers'
    recordings with ``speech`` (:mod:`stecflow.studies.recordings`);
    identification time is measured from display onset). A "can't tell" button
    is added with ``cant_tell=True`` (the two-group design of seed 000).

Every experiment has instructions, the design's practice trials first (with
feedback in identification), a progress indicator, a break every ``break_every``
test trials and a completion screen. Times come from ``performance.now()``.

Besides the bundle's files (:mod:`stecflow.studies.bundle`), the web folder
(``results/studies/<study>/web/``) holds::

    images/          the pictures: the corpus's own files, the demo's SVG drawings
                     for entities without one, or a labelled placeholder
    audio/           spoken variant: one WAV per distinct description, or each
                     recording copied as it is, named by its SHA-256

The study document (``stimuli.json``) holds ``study``, ``task``, ``variant``,
``settings`` (:class:`~stecflow.studies.settings.StudySettings`), ``texts``
(instructions and questions), ``columns``
(:data:`~stecflow.studies.settings.RESPONSE_COLUMNS`), ``design`` (the design's
settings), ``speech`` (engine, version, voice and rate; for recordings
:func:`stecflow.studies.recordings.describe`; or null) and ``lists``: one per
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

import logging
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stecflow.core.errors import StimuliError
from stecflow.data.model import Item
from stecflow.studies import recordings, speech
from stecflow.studies.bundle import (
    STIMULI_VERSION,
    StudyFiles,
    digest,
    plain,
    study_files,
    write_study,
    write_tree,
)
from stecflow.studies.dmdx import make_dmdx_files
from stecflow.studies.settings import RESPONSE_COLUMNS, TASKS, StudySettings
from stecflow.studykinds.registry import identifies
from stecflow.tasks.registry import task_types

if TYPE_CHECKING:  # pragma: no cover - typing only (designs imports pandas)
    from stecflow.studies.designs import Design
    from stecflow.tasks.base import TaskType

__all__ = ["StimuliError", "build_study", "make_study_files"]

logger = logging.getLogger(__name__)


# --------------------------------------------------------------------------- helpers


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
    speech_source: Mapping[str, Any] | None = None,
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
    speech_source : mapping, optional
        The spoken variant's ``studies[].speech``: with ``source: recorded``
        each description is played from the organisers' recording (see
        :mod:`stecflow.studies.recordings`; espeak-ng is then not used); None
        or ``source: synthetic``: espeak-ng.

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
        nor available offline everywhere); with recordings, every missing or bad
        recording at once (:func:`stecflow.studies.recordings.recorded_audio`).
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
    recorded = (
        recordings.check_speech(speech_source, variant, "speech")
        if speech_source is not None
        else None
    )
    if variant == "spoken" and recorded is None:
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
        {key: plain(value) for key, value in row.items()}
        for row in design.trials.to_dict("records")
    ]
    rows.sort(key=lambda r: (int(r["subject_slot"]), int(r["order"])))
    problems: list[str] = []
    pictures: dict[str, bytes] = {}
    audio: dict[str, bytes] = {}
    layouts: dict[str, tuple[list[int], list[dict[str, Any]]]] = {}
    lists: dict[str, dict[str, Any]] = {}
    # recorded speech: each trial's (system, item) recording, read after the loop
    to_play: list[tuple[tuple[str, str], dict[str, Any]]] = []
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
        voiced_by = system
        if text is None:
            voiced_by = recordings.PRACTICE
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
                f"audio/{digest(text, settings.voice, settings.speech_wpm)[:20]}.wav"
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
        trial: dict[str, Any] = {
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
        entry["trials"].append(trial)
        if recorded is not None:
            to_play.append(((str(voiced_by), item_id), trial))
    if problems:
        shown = "; ".join(problems[:10])
        more = f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""
        raise StimuliError(
            f"{len(problems)} problem(s): {shown}{more}", field=f"study {design.study}"
        )
    if recorded is not None:
        found = recordings.recorded_audio(
            [played for played, _ in to_play], recorded, study=design.study
        )
        for played, trial in to_play:
            trial["audio"] = found[played].path
            trial["recording"] = found[played].record
        audio = {r.path: r.data for r in sorted(found.values(), key=lambda r: r.path)}
        voice = recordings.describe(found.values())
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
    speech_source: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Build a study's web experiment (and DMDX files) into folders.

    Parameters
    ----------
    design, items, outputs_by_system, task, variant, images_dir, settings, task_type
    speech_source
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
        speech_source=speech_source,
    )
    out = Path(out_dir)
    write_study(bundle, out, overwrite=overwrite)
    if dmdx_dir is not None:
        write_tree(make_dmdx_files(bundle), Path(dmdx_dir), overwrite)
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

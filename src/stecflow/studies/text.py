"""Human studies of generated text: rating and preference trials, and their stimuli.

Owns the study document of ``task: text_rating`` and ``task: text_preference``
and its builder (:func:`make_text_study_files`, :func:`build_text_study`), the
organiser's criteria (:class:`Criterion`, :func:`text_criteria`) and the
trials' strings and settings; how an item's input is shown is
:mod:`stecflow.studies.text_input`'s.

``text_rating``
    Each trial shows an item's input and one system's output, and asks every
    criterion's question: a Likert scale (``scale: likert``: ``points`` radio
    buttons 1..points, numbered, with the two ``anchors`` under its ends or one
    label per point) or a continuous slider (``scale: slider``, direct
    assessment: 0-100, its two ``anchors`` visible at its ends, no numbers; the
    pointer starts in the middle and must be moved before going on, as the REG
    rating's ``require_slider_touch``). Every criterion must be answered.
``text_preference``
    Each trial shows the input and two systems' outputs side by side (left and
    right as the design gives them, randomised and counterbalanced by
    :func:`stecflow.studies.designs.pairs.pair_design`) and the one criterion's
    question; the participant chooses the left or the right text, or, with
    ``allow_tie``, "No preference".

Control trials (config ``controls``, placed by
:func:`stecflow.studies.designs.controls.add_controls`) are trials like the
others, of system ``CONTROL``: their texts, degraded copies
(:mod:`stecflow.studies.controls`), are ``outputs_by_system["CONTROL"]``; the
page shows them as any other trial (the participant cannot tell them apart;
the judgments stage finds them in ``design.tsv``'s ``control`` column).

The stimulus shows the input above the output(s), as
:func:`stecflow.studies.text_input.shown_input` gives it (plain text, triples,
a JSON object's fields, or an organiser's sanitised HTML snippet).

What the page records (after :data:`~stecflow.studies.settings.RESPONSE_COLUMNS`,
:func:`text_columns`): ``text_rating``: ``rating_<criterion id>`` per criterion
(an integer 1..points for a Likert scale, 0-100 for a slider); ``text_preference``:
``system_left``, ``system_right``, ``preferred`` (``left``, ``right`` or ``tie``)
and ``chosen_system`` (empty for a tie). ``rt_ms`` is the time from the display
to "Next"; ``system`` is the rated system, or in a preference trial the sorted
pair ``a|b`` (:func:`~stecflow.studies.designs.pairs.pair_label`).

The study document holds, besides the fields every study has (``format``,
``version``, ``study``, ``task``, ``variant`` (null), ``settings``, ``texts``,
``columns``, ``design``): ``criteria`` (``id``, ``question``, ``scale``,
``points``, ``anchors``, ``allow_tie``), ``inputs`` (item ID -> the input as
shown, stored once: every list shows the same items), ``notes`` and ``lists``,
whose trials have ``order``, ``item``, ``system``, ``subdomain``, ``item_set``,
``practice``, ``filler``, ``target`` (null), ``input`` (the key in ``inputs``)
and ``output`` (rating) or ``system_left``, ``system_right``, ``output_left``,
``output_right`` (preference).

Examples
--------
>>> from stecflow.data.model import Domain, Item
>>> from stecflow.studies.designs import latin_square_design
>>> items = [Item(f"t{k}", Domain(()), "all", input=f"input {k}") for k in (1, 2)]
>>> design = latin_square_design(["A", "B"], ["t1", "t2"], subjects=2, seed=1)
>>> outputs = {"A": {"t1": "one", "t2": "two"}, "B": {"t1": "uno", "t2": "dos"}}
>>> bundle = make_text_study_files(design, items, outputs, task="text_rating",
...     criteria=[{"id": "fluency", "question": "How fluent?", "points": 5}])
>>> bundle.document["columns"][-1]
'rating_fluency'
>>> bundle.document["inputs"]["t1"]
{'kind': 'text', 'text': 'input 1'}

May import: :mod:`stecflow.core`, :mod:`stecflow.data`,
:mod:`stecflow.studies.settings`, :mod:`stecflow.studies.bundle`,
:mod:`stecflow.studies.designs` (typing only).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stecflow.core.errors import ConfigError, StimuliError
from stecflow.core.ids import is_valid_id
from stecflow.data.model import Item
from stecflow.studies.bundle import (
    STIMULI_VERSION,
    StudyFiles,
    plain,
    study_files,
    write_study,
)
from stecflow.studies.settings import RESPONSE_COLUMNS, StudySettings, paradigm_settings
from stecflow.studies.strings import TEXT_TITLES, TEXT_UI_STRINGS, UI_STRINGS
from stecflow.studies.text_input import shown_input
from stecflow.studykinds.registry import in_family, paired

if TYPE_CHECKING:  # pragma: no cover - typing only (designs imports pandas)
    from stecflow.studies.designs import Design

__all__ = [
    "PREFERENCE_COLUMNS",
    "SCALES",
    "TEXT_TASKS",
    "Criterion",
    "build_text_study",
    "make_text_study_files",
    "text_columns",
    "text_criteria",
    "text_settings",
]

logger = logging.getLogger(__name__)

#: The kinds of the text family (:mod:`stecflow.studykinds`).
TEXT_TASKS = in_family("text")
#: The scales of a rating criterion.
SCALES = ("likert", "slider")
#: Columns of a preference study's response table after RESPONSE_COLUMNS.
PREFERENCE_COLUMNS = ("system_left", "system_right", "preferred", "chosen_system")
#: The answers of a preference trial (``preferred``).
PREFERRED = ("left", "right", "tie")

# --------------------------------------------------------------------------- criteria


@dataclass(frozen=True)
class Criterion:
    """One question of a text study (config ``studies[].criteria[]``).

    Attributes
    ----------
    id : str
        The criterion's ID (an ID as :mod:`stecflow.core.ids` allows); the
        response column is ``rating_<id>`` in a rating study.
    question : str
        The question shown.
    scale : {"likert", "slider"} or None
        Rating: a Likert scale or a 0-100 slider; None in a preference study.
    points : int or None
        Likert: the number of points (2-11; default 5).
    anchors : tuple of str
        Likert: the labels of its two ends, or one per point (or none: numbers
        only); slider: the labels of its two ends (required: direct assessment
        shows them); preference: none.
    allow_tie : bool
        Preference: offer "No preference".
    """

    id: str
    question: str
    scale: str | None = None
    points: int | None = None
    anchors: tuple[str, ...] = ()
    allow_tie: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The criterion as plain, JSON-ready data."""
        return {
            "id": self.id,
            "question": self.question,
            "scale": self.scale,
            "points": self.points,
            "anchors": list(self.anchors),
            "allow_tie": self.allow_tie,
        }


_RATING_KEYS = frozenset({"id", "question", "scale", "points", "anchors"})
_PREFERENCE_KEYS = frozenset({"id", "question", "allow_tie"})


def _criterion(data: Any, task: str, where: str) -> Criterion:
    allowed = _PREFERENCE_KEYS if paired(task) else _RATING_KEYS
    if isinstance(data, Criterion):
        data = {k: v for k, v in data.to_dict().items() if k in allowed}
    if not isinstance(data, Mapping):
        raise ConfigError("must be a mapping with id and question", field=where)
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise ConfigError(
            f"{task} criteria take {', '.join(sorted(allowed))}, not "
            f"{', '.join(unknown)}",
            field=f"{where}.{unknown[0]}",
        )
    cid = data.get("id")
    if not isinstance(cid, str) or not is_valid_id(cid):
        raise ConfigError(
            f"must be an ID (letters, digits, '_' and '-'), got {cid!r}",
            field=f"{where}.id",
        )
    question = data.get("question")
    if not isinstance(question, str) or not question.strip():
        raise ConfigError("must be a non-empty string", field=f"{where}.question")
    if paired(task):
        tie = data.get("allow_tie", False)
        if not isinstance(tie, bool):
            raise ConfigError("must be true or false", field=f"{where}.allow_tie")
        return Criterion(cid, question.strip(), allow_tie=tie)
    scale = data.get("scale") or "likert"
    if scale not in SCALES:
        raise ConfigError(
            f"must be one of {', '.join(SCALES)}, got {scale!r}", field=f"{where}.scale"
        )
    anchors_raw = data.get("anchors") or []
    if isinstance(anchors_raw, str) or not isinstance(anchors_raw, Sequence):
        raise ConfigError("must be a list of strings", field=f"{where}.anchors")
    anchors = tuple(anchors_raw)
    if any(not isinstance(a, str) or not a.strip() for a in anchors):
        raise ConfigError(
            "every anchor must be a non-empty string", field=f"{where}.anchors"
        )
    points = data.get("points")
    if scale == "slider":
        if points is not None:
            raise ConfigError(
                "a slider has no points (it records 0-100)", field=f"{where}.points"
            )
        if len(anchors) != 2:
            raise ConfigError(
                f"a slider shows the labels of its two ends: give 2 anchors, got "
                f"{len(anchors)}",
                field=f"{where}.anchors",
            )
        return Criterion(cid, question.strip(), "slider", None, anchors)
    if points is None:
        points = 5
    if isinstance(points, bool) or not isinstance(points, int) or not 2 <= points <= 11:
        raise ConfigError(
            f"must be an integer from 2 to 11, got {points!r}", field=f"{where}.points"
        )
    if len(anchors) not in (0, 2, points):
        raise ConfigError(
            f"give no anchors, 2 (the ends) or {points} (one per point), got "
            f"{len(anchors)}",
            field=f"{where}.anchors",
        )
    return Criterion(cid, question.strip(), "likert", points, anchors)


def text_criteria(criteria: Iterable[Any], task: str) -> tuple[Criterion, ...]:
    """Check a text study's criteria (config ``studies[].criteria``).

    Parameters
    ----------
    criteria : iterable of mapping or Criterion
        Each with ``id`` and ``question``; rating: ``scale`` (``likert``, the
        default, or ``slider``), ``points`` (Likert, 2-11, default 5) and
        ``anchors``; preference: ``allow_tie`` (default false).
    task : {"text_rating", "text_preference"}

    Returns
    -------
    tuple of Criterion
        In the order given.

    Raises
    ------
    ConfigError
        Naming the criterion's key (``criteria[<n>].<key>``): an unknown task, a
        key the task does not take, a bad ID or duplicate one, a bad scale,
        points or anchors, no criterion, or more than one in a preference
        study (it records one choice per trial).

    Examples
    --------
    >>> [c.scale for c in text_criteria(
    ...     [{"id": "fluency", "question": "Fluent?", "points": 5},
    ...      {"id": "adequacy", "question": "Adequate?", "scale": "slider",
    ...       "anchors": ["Not at all", "Completely"]}], "text_rating")]
    ['likert', 'slider']
    >>> text_criteria([{"id": "x", "question": "Q?", "scale": "slider"}],
    ...               "text_rating")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    stecflow.core.errors.ConfigError: criteria[0].anchors: a slider shows ...
    """
    if task not in TEXT_TASKS:
        raise ConfigError(
            f"{task!r} is not one of {', '.join(TEXT_TASKS)}", field="task"
        )
    if criteria is None:
        raise ConfigError(
            f"a {task} study needs criteria: give at least one", field="criteria"
        )
    if isinstance(criteria, Mapping | str):
        raise ConfigError("must be a list of criteria", field="criteria")
    checked = tuple(
        _criterion(c, task, f"criteria[{n}]") for n, c in enumerate(criteria)
    )
    if not checked:
        raise ConfigError("give at least one criterion", field="criteria")
    seen: set[str] = set()
    for n, c in enumerate(checked):
        if c.id in seen:
            raise ConfigError(f"duplicate ID {c.id}", field=f"criteria[{n}].id")
        seen.add(c.id)
    if paired(task) and len(checked) != 1:
        raise ConfigError(
            f"a text_preference study asks one question per trial (one choice is "
            f"recorded); got {len(checked)} criteria: make one study per question",
            field="criteria",
        )
    return checked


def text_columns(task: str, criteria: Iterable[Criterion]) -> tuple[str, ...]:
    """The columns of a text study's response table after RESPONSE_COLUMNS.

    >>> text_columns("text_rating", text_criteria(
    ...     [{"id": "fluency", "question": "Q?"}], "text_rating"))
    ('rating_fluency',)
    >>> text_columns("text_preference", ())
    ('system_left', 'system_right', 'preferred', 'chosen_system')
    """
    if paired(task):
        return PREFERENCE_COLUMNS
    return tuple(f"rating_{c.id}" for c in criteria)


# --------------------------------------------------------------------------- settings


def text_settings(
    settings: StudySettings | Mapping[str, Any] | None,
) -> tuple[StudySettings, dict[str, str]]:
    """The settings of a text study and its overrides of the text trials' strings.

    ``strings`` may replace keys of :data:`~stecflow.studies.strings.UI_STRINGS`
    (checked by :class:`~stecflow.studies.settings.StudySettings`) and of
    :data:`~stecflow.studies.strings.TEXT_UI_STRINGS` (checked here: a known key,
    a string with the ``{name}`` fields of the original). A study that sets no
    title gets :data:`~stecflow.studies.strings.TEXT_TITLES` in its language.

    Raises
    ------
    ConfigError
        For an unknown key or a bad value (``experiment.<key>``,
        ``experiment.strings.<key>``).

    Examples
    --------
    >>> settings, extra = text_settings({"strings": {"choose_tie": "Same"}})
    >>> settings.title, extra
    ('Judging texts', {'choose_tie': 'Same'})
    >>> text_settings({"language": "ja"})[0].title
    '文章の評価'
    """
    return paradigm_settings(settings, TEXT_UI_STRINGS, TEXT_TITLES)


def _texts(
    task: str,
    settings: StudySettings,
    text_strings: Mapping[str, str],
    criteria: Sequence[Criterion],
) -> dict[str, Any]:
    ui = {
        **UI_STRINGS[settings.language],
        **TEXT_UI_STRINGS[settings.language],
        **settings.catalogue(TEXT_UI_STRINGS),
        **(settings.strings or {}),
        **text_strings,
    }
    if not paired(task):
        paragraphs = [ui["instructions_text_rating"]]
        if any(c.scale == "slider" for c in criteria):
            paragraphs.append(ui["instructions_text_scales"])
    else:
        paragraphs = [ui["instructions_text_preference"]]
        if criteria[0].allow_tie:
            paragraphs.append(ui["instructions_text_tie"])
    if settings.instructions:
        paragraphs = [p.strip() for p in settings.instructions.split("\n\n")]
    return {
        "instructions": [p for p in paragraphs if p],
        "language": settings.language,
        "ui": ui,
    }


# --------------------------------------------------------------------------- builder


def _outputs(
    outputs_by_system: Mapping[str, Any],
) -> dict[str, dict[str, str]]:
    """System -> {item -> text} from mappings or iterables of Output."""
    table: dict[str, dict[str, str]] = {}
    for system, outputs in outputs_by_system.items():
        if isinstance(outputs, Mapping):
            table[str(system)] = {
                str(k): str(v) for k, v in outputs.items() if v is not None
            }
            continue
        texts: dict[str, str] = {}
        for output in outputs:
            if output.word_string is not None:
                texts.setdefault(str(output.item_id), str(output.word_string))
        table[str(system)] = texts
    return table


def _rows(design: Design) -> list[dict[str, Any]]:
    rows = [
        {key: plain(value) for key, value in row.items()}
        for row in design.trials.to_dict("records")
    ]
    rows.sort(key=lambda r: (int(r["subject_slot"]), int(r["order"])))
    return rows


def make_text_study_files(
    design: Design,
    items: Iterable[Item],
    outputs_by_system: Mapping[str, Any],
    *,
    task: str,
    criteria: Iterable[Any],
    settings: StudySettings | Mapping[str, Any] | None = None,
) -> StudyFiles:
    """Make every file of a text study's web folder, in memory (a pure function).

    Parameters
    ----------
    design : Design
        ``text_rating``: a design with a ``system`` per trial, e.g.
        :func:`~stecflow.studies.designs.latin_square_design`;
        ``text_preference``: a pair design
        (:func:`~stecflow.studies.designs.pairs.pair_design`) whose trials have
        ``system_left`` and ``system_right``. Its lists become the page's lists,
        trial for trial.
    items : iterable of Item
        Every item the design shows (practice items included); ``Item.input`` is
        shown (:func:`shown_input`).
    outputs_by_system : mapping
        System ID -> its outputs: a mapping item ID -> text, or an iterable of
        :class:`~stecflow.data.model.Output` (``item_id``, ``word_string``).
        A rating practice trial without an output shows the item's first
        reference.
    task : {"text_rating", "text_preference"}
    criteria : iterable
        The questions (:func:`text_criteria`).
    settings : StudySettings or mapping, optional
        Presentation settings (:func:`text_settings`); ``require_slider_touch``
        (default true) makes every slider be moved before "Next".

    Returns
    -------
    StudyFiles

    Raises
    ------
    StimuliError
        An item or output missing, a preference design without sides, an input
        that cannot be shown (every problem listed, the first ten in the message).
    ConfigError
        Bad criteria or settings.
    """
    checked = text_criteria(criteria, task)
    settings, text_strings = text_settings(settings)
    outputs = _outputs(outputs_by_system)
    by_id: dict[str, Item] = {}
    for each in items:
        by_id.setdefault(each.id, each)
    rows = _rows(design)
    preference = paired(task)
    if preference and rows and "system_left" not in rows[0]:
        raise StimuliError(
            "a text_preference study needs a pair design (system_left and "
            "system_right per trial): stecflow.studies.designs.pairs.pair_design",
            field="design",
        )
    problems: list[str] = []
    notes: list[str] = []
    inputs: dict[str, dict[str, Any]] = {}
    lists: dict[str, dict[str, Any]] = {}

    def text_of(system: str | None, item: Item, practice: bool) -> str | None:
        text = outputs.get(system, {}).get(item.id) if system else None
        if text is None and practice and not preference:
            text = next((r.word_string for r in item.references if r.word_string), None)
        if text is None:
            problems.append(f"no output of system {system} for item {item.id}")
            return None
        text = text.strip()
        if not text:
            notes.append(f"the output of {system} for item {item.id} is empty")
        return text

    for row in rows:
        item_id = str(row["item"])
        item = by_id.get(item_id)
        if item is None:
            problems.append(f"item {item_id} (list {row['list']}) is not in the items")
            continue
        if item_id not in inputs:
            try:
                shown, removed = shown_input(item.input)
            except (StimuliError, ValueError) as error:
                problems.append(f"item {item_id}: {getattr(error, 'message', error)}")
                continue
            if removed:
                note = f"item {item_id}: removed from its HTML: {', '.join(removed)}"
                logger.warning(note)
                notes.append(note)
            inputs[item_id] = shown
        system = row.get("system")
        system = None if system is None else str(system)
        practice = bool(row["practice"])
        trial: dict[str, Any] = {
            "order": int(row["order"]),
            "item": item_id,
            "system": system,
            "subdomain": row.get("subdomain") or item.subdomain,
            "item_set": row.get("item_set"),
            "practice": practice,
            "filler": bool(row["filler"]),
            "target": None,
            "input": item_id,
        }
        if preference:
            left, right = str(row["system_left"]), str(row["system_right"])
            texts = (text_of(left, item, practice), text_of(right, item, practice))
            if None in texts:
                continue
            trial.update(
                system_left=left,
                system_right=right,
                output_left=texts[0],
                output_right=texts[1],
            )
        else:
            text = text_of(system, item, practice)
            if text is None:
                continue
            trial["output"] = text
        list_id = str(row["list"])
        lists.setdefault(
            list_id,
            {
                "list": list_id,
                "subject_slot": int(row["subject_slot"]),
                "group": int(row["group"]),
                "trials": [],
            },
        )["trials"].append(trial)
    if problems:
        shown_problems = "; ".join(problems[:10])
        more = f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""
        raise StimuliError(
            f"{len(problems)} problem(s): {shown_problems}{more}",
            field=f"study {design.study}",
        )
    data = settings.to_dict()
    if text_strings:
        data["strings"] = dict(
            sorted({**(settings.strings or {}), **text_strings}.items())
        )
    document = {
        "format": "stecflow-study",
        "version": STIMULI_VERSION,
        "study": design.study,
        "task": task,
        "variant": None,
        "settings": data,
        "texts": _texts(task, settings, text_strings, checked),
        "columns": list(RESPONSE_COLUMNS) + list(text_columns(task, checked)),
        "criteria": [c.to_dict() for c in checked],
        "design": design.settings(),
        "speech": None,
        "inputs": dict(sorted(inputs.items())),
        "notes": sorted(set(notes)),
        "lists": [
            lists[k] for k in sorted(lists, key=lambda k: lists[k]["subject_slot"])
        ],
    }
    return study_files(document, {}, {})


def build_text_study(
    design: Design,
    items: Iterable[Item],
    outputs_by_system: Mapping[str, Any],
    *,
    task: str,
    criteria: Iterable[Any],
    out_dir: str | Path,
    settings: StudySettings | Mapping[str, Any] | None = None,
    overwrite: bool = False,
) -> dict[str, Any]:
    """Build a text study's web folder (``results/studies/<study>/web``).

    Parameters
    ----------
    design, items, outputs_by_system, task, criteria, settings
        As for :func:`make_text_study_files`.
    out_dir : path
        The folder to create.
    overwrite : bool, default False
        Replace a non-empty *out_dir* (only for a study not yet opened).

    Returns
    -------
    dict
        ``study``, ``task``, ``lists``, ``trials``, ``files`` and ``sha256`` (of
        ``MANIFEST.tsv``), as :func:`stecflow.studies.stimuli.build_study`.
    """
    bundle = make_text_study_files(
        design,
        items,
        outputs_by_system,
        task=task,
        criteria=criteria,
        settings=settings,
    )
    write_study(bundle, out_dir, overwrite=overwrite)
    summary = bundle.summary()
    logger.info(
        "study %s: %s, %d lists, %d trials in %s",
        summary["study"],
        task,
        summary["lists"],
        summary["trials"],
        out_dir,
    )
    return summary

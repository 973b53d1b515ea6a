"""What a task type is: the contract every entry of the registry fulfils.

A :class:`TaskType` says, in one place, what an item's input is, what an output
holds, how a submission file of the type is read and checked (with the file, line
and field of every problem), which metrics apply by default, how a stimulus shows
an item's input and a system's output, and which realiser (if any) turns a
structured output into text. Validation, scoring, the human studies and the report
ask the task type instead of testing element names or output kinds.

This module also holds the two types a reader of submission files speaks:
:class:`Problem` (one problem, with where it is) and :class:`Limits` (how large a
submission may be).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stecflow.data.model import Item, Output, Reference

__all__ = [
    "Limits",
    "OutputReader",
    "Problem",
    "Scene",
    "TaskType",
]


@dataclass(frozen=True)
class Problem:
    """One problem in a submission; ``severity`` is ``"error"`` or ``"warning"``."""

    code: str
    message: str
    file: str
    line: int | None = None
    field: str | None = None
    severity: str = "error"

    def describe(self) -> str:
        """Render as ``file, line N, field: message``."""
        where = [self.file]
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.field:
            where.append(self.field)
        return ", ".join(where) + ": " + self.message


@dataclass(frozen=True)
class Limits:
    """How large a submission may be; over a limit it is rejected before scoring.

    The defaults fit the REG challenges with room to spare (a TUNA-REG test set
    of 112 items gives an ``outputs.xml`` of about 20 KB); a campaign sets its
    own under ``submissions.limits`` in its config.
    """

    #: ``outputs.xml`` size in MiB, checked before the file is read.
    max_outputs_mib: float = 16
    #: ``system.yaml`` size in KiB, checked before the file is read.
    max_metadata_kib: float = 64
    #: TRIAL elements in ``outputs.xml``, counted before the file is parsed.
    max_trials: int = 50_000
    #: ATTRIBUTE elements in one ATTRIBUTE-SET.
    max_attributes_per_set: int = 100
    #: Characters in one WORD-STRING.
    max_word_string_chars: int = 5_000

    @classmethod
    def from_config(cls, limits: Mapping[str, Any] | None) -> Limits:
        """The limits a campaign config's ``submissions.limits`` sets.

        >>> Limits.from_config({"max_trials": 10}).max_trials
        10
        >>> Limits.from_config(None) == Limits()
        True
        """
        return cls(**{k: v for k, v in (limits or {}).items() if v is not None})

    @property
    def outputs_bytes(self) -> int:
        return int(self.max_outputs_mib * 1024 * 1024)

    @property
    def metadata_bytes(self) -> int:
        return int(self.max_metadata_kib * 1024)


#: ``read(data, label, items, required, limits) -> (outputs, problems)``: read the
#: bytes of a submission's outputs file (named *label* in messages) against the
#: test-set *items*; *required* are the :class:`Output` fields every item must
#: have (the union of the claimed task types' ``outputs``). It never raises on bad
#: input: it returns every output it could read, in test-set order, and every
#: problem found.
OutputReader = Callable[
    [bytes, str, Sequence[Item], Sequence[str], Limits],
    tuple[list[Output], list[Problem]],
]

#: ``scene(item, images_dir, seed) -> (grid, entities, pictures)``: how a stimulus
#: shows an item's input (see :func:`stecflow.tasks.reg.scene.scene`).
Scene = Callable[[Item, Path | None, int], tuple[Any, Any, Mapping[str, bytes]]]


def _no_context(item: Item) -> Mapping[str, Any]:
    return {}


def _text_only(
    source: Output | Reference, input_type: str, realise: Callable[..., str] | None
) -> Any:
    """Text metrics score the text, or the structured output realised."""
    if input_type != "text":
        return None
    if realise is None:
        return source.word_string
    return None if source.attribute_set is None else realise(source.attribute_set)


@dataclass(frozen=True)
class TaskType:
    """One kind of shared task, declared in one module and registered by name.

    Attributes
    ----------
    name
        The ID a campaign config (``campaign.tasks``) and a submission's
        ``system.yaml`` (``tasks``) use.
    summary
        How the report's overview names the task and what a system outputs.
    input
        What an item's input is (for the docs and the report's methods).
    outputs
        The :class:`~stecflow.data.model.Output` fields a system must give for
        every item (``"attribute_set"``, ``"word_string"``).
    outputs_file
        The file of a submission folder that holds the outputs.
    outputs_files
        Other names the outputs file may have, when the task type reads several
        formats (text generation: ``outputs.jsonl``, ``outputs.txt``,
        ``outputs.json``); a submission folder holds exactly one of
        :attr:`outputs_file_names`. Empty for a task type with one file.
    read_outputs
        The reader of that file (:data:`OutputReader`). Task types sharing a file
        share its reader, so one file serves a system that takes part in several.
    default_metrics
        The metric registry names computed when the config lists none, in the
        order the tables show them.
    metric_input
        ``(output or reference, input_type, realise) -> value``: what a metric
        whose ``input_type`` is ``"text"``, ``"attributes"`` or ``"domain"``
        scores; None when the output has no such value. *realise* is the task's
        realiser when the campaign scores realised outputs (``scoring.realise``),
        else None.
    scoring_context
        ``item -> mapping`` of keyword arguments metrics that look at an item's
        input receive (the REG tasks: the target's and the distractors'
        attribute sets).
    scene
        How a stimulus shows an item's input (:data:`Scene`), or None when the
        task's studies show no input.
    text_input
        ``(item, seed) -> input``: what a text study (text_rating,
        text_preference) shows as the input of an item that has no ``input`` of
        its own, in a form :func:`stecflow.studies.text_input.shown_input` takes
        (the REG tasks: the domain's grid in words, the target marked:
        :func:`stecflow.tasks.reg.text_input.domain_input`); None: nothing.
    describe_testset
        ``prepared test set path -> tables``: the test set described as the
        seed describes its corpus (each table ``id``, ``caption``, ``columns``
        as ``(id, title)``, ``rows``, ``notes``), drawn in the report's Methods
        section (the situated dialogue: seed 000 Table 2); None: nothing.
    realiser, realiser_id
        The function that turns a structured output into words, and the ID it
        adds to the signatures of scores computed on realised outputs; None when
        outputs are text already.
    labels
        How messages name each output field (the REG tasks: their XML elements).
    """

    name: str
    summary: str
    input: str
    outputs: tuple[str, ...]
    outputs_file: str
    read_outputs: OutputReader
    default_metrics: tuple[str, ...]
    metric_input: Callable[..., Any] = field(default=_text_only)
    scoring_context: Callable[[Item], Mapping[str, Any]] = field(default=_no_context)
    scene: Scene | None = None
    text_input: Callable[[Item, int], Any] | None = None
    describe_testset: Callable[[Any], list[dict[str, Any]]] | None = None
    outputs_files: tuple[str, ...] = ()
    realiser: Callable[..., str] | None = None
    realiser_id: str | None = None
    labels: Mapping[str, str] = field(
        default_factory=lambda: {
            "attribute_set": "attribute set",
            "word_string": "text",
        }
    )

    @property
    def outputs_file_names(self) -> tuple[str, ...]:
        """Every name the outputs file may have: :attr:`outputs_file` first.

        >>> from stecflow.tasks.registry import get
        >>> get("end_to_end").outputs_file_names
        ('outputs.xml',)
        """
        return tuple(dict.fromkeys((self.outputs_file, *self.outputs_files)))

    def shown_output(self, output: Output | Reference, realise: bool) -> str | None:
        """The words a stimulus shows for *output* (realised if *realise*)."""
        if realise and self.realiser is not None:
            attributes = getattr(output, "attribute_set", None)
            return None if attributes is None else self.realiser(attributes)
        return output.word_string

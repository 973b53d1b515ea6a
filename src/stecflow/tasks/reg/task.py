"""What the three REG task types share: the outputs file, metrics and stimuli.

The attribute-selection, realisation and end-to-end tasks of the REG challenges
read the same ``outputs.xml`` (:mod:`stecflow.tasks.reg.outputs`), show the same
grid of entity pictures (:mod:`stecflow.tasks.reg.scene`), realise attribute sets
with the same template realiser (:mod:`stecflow.tasks.reg.realiser`) and are scored
with every REG metric by default; they differ in what a system outputs.
:func:`reg_task` builds each of them.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.data.model import Item, Output, Reference
from stecflow.tasks.base import Limits, Problem, TaskType
from stecflow.tasks.reg.realiser import REALISER_ID, realise

__all__ = [
    "OUTPUTS_FILE",
    "REG_METRICS",
    "metric_input",
    "read_outputs",
    "reg_task",
    "scene",
    "scoring_context",
    "text_input",
]

#: The file of a submission folder that holds a REG system's outputs
#: (written by :func:`stecflow.tasks.reg.outputs.write_outputs`).
OUTPUTS_FILE = "outputs.xml"

#: The metrics of the REG challenges, computed when a campaign lists none: on
#: attribute sets (against the references, then against the domain), then on word
#: strings. A metric whose input a system does not output is reported as skipped.
REG_METRICS = (
    "dice",
    "masi",
    "set_accuracy",
    "set_edit",
    "denotation_similarity",
    "uniqueness",
    "minimality",
    "underspecification",
    "overspecification",
    "string_accuracy",
    "se",
    "seb",
    "se_norm",
    "bleu3",
    "nist5",
    "rouge2",
    "rouge_su4",
)


def metric_input(
    source: Output | Reference, input_type: str, realiser: Callable[..., str] | None
) -> Any:
    """What a metric scores of an output or a reference.

    Attribute-set metrics score the attribute set; word-string metrics the word
    string, or the attribute set realised by *realiser* when the campaign scores
    realised outputs (``scoring.realise: template``).

    >>> out = Output("t1", "the red chair", frozenset({("colour", "red")}))
    >>> metric_input(out, "text", None), metric_input(out, "text", realise)
    ('the red chair', 'the red one')
    """
    if input_type != "text":
        return source.attribute_set
    if realiser is None:
        return source.word_string
    return None if source.attribute_set is None else realiser(source.attribute_set)


def scoring_context(item: Item) -> Mapping[str, Any]:
    """The item's input as metrics that look at the domain receive it."""
    return {
        "target": item.domain.target.attribute_set,
        "distractors": [e.attribute_set for e in item.domain.distractors],
    }


def read_outputs(
    data: bytes,
    label: str,
    items: Sequence[Item],
    required: Sequence[str],
    limits: Limits,
) -> tuple[list[Output], list[Problem]]:
    """Read ``outputs.xml`` (:func:`stecflow.tasks.reg.outputs.read_outputs`).

    Imported on first use: the XML parser is not loaded by a job that only asks
    the registry what a task is.
    """
    from stecflow.tasks.reg.outputs import read_outputs as read

    return read(data, label, items, required, limits)


def scene(item: Item, images_dir: Path | None, seed: int) -> Any:
    """The grid of entity pictures a stimulus shows (:mod:`.scene`)."""
    from stecflow.tasks.reg.scene import scene as draw

    return draw(item, images_dir, seed)


def text_input(item: Item, seed: int) -> Any:
    """The domain's grid in words, for a text study (:mod:`.text_input`)."""
    from stecflow.tasks.reg.text_input import domain_input

    return domain_input(item, seed)


def reg_task(name: str, summary: str, input: str, outputs: tuple[str, ...]) -> TaskType:
    """One REG task type: the shared parts plus its *name*, texts and *outputs*."""
    return TaskType(
        name=name,
        summary=summary,
        input=input,
        outputs=outputs,
        outputs_file=OUTPUTS_FILE,
        read_outputs=read_outputs,
        default_metrics=REG_METRICS,
        metric_input=metric_input,
        scoring_context=scoring_context,
        scene=scene,
        text_input=text_input,
        realiser=realise,
        realiser_id=REALISER_ID,
        labels={"attribute_set": "ATTRIBUTE-SET", "word_string": "WORD-STRING"},
    )

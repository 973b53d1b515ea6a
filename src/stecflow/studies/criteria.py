"""What each kind of study rates: the criteria its agreement is computed on.

One :class:`Criterion` per thing a study's evaluators judge (its name, level
of measurement, judgments column, and whether an ICC applies), by the study's
kind (its ``rated`` hook names one of the functions here):
the judgments stage computes inter-rater agreement on them
(:mod:`stecflow.judgments.agreement`) and the release's datasheet describes
them (:mod:`stecflow.release.heds`).

May import: :mod:`stecflow.core`, :mod:`stecflow.studykinds`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Criterion",
    "configured_preference",
    "configured_ratings",
    "entity_choice",
    "piece_choice",
    "rated_criteria",
    "slider_criteria",
]


@dataclass(frozen=True)
class Criterion:
    """One thing rated: its name, level of measurement, and where it is read.

    ``column`` is the judgments table's column; ``icc`` says whether the ICC is
    computed (slider scores).
    """

    name: str
    level: str
    column: str
    icc: bool = False


def rated_criteria(study: Mapping[str, Any]) -> list[Criterion]:
    """What is rated in a study: its kind's ``rated`` hook
    (:mod:`stecflow.studykinds`) on the study's entry.

    >>> [c.name for c in rated_criteria({"task": "rating"})]
    ['adequacy', 'fluency']
    >>> rated_criteria({"task": "identification"})[0].level
    'nominal'
    """
    from stecflow.studykinds.registry import hook, names

    task = study.get("task")
    rated = hook(str(task), "rated") if task in names() else None
    if rated is None:
        raise ValueError(f"unknown task {task!r}")
    return rated(study)


def slider_criteria(study: Mapping[str, Any]) -> list[Criterion]:
    """Adequacy and fluency, on sliders (the rating kind)."""
    return [
        Criterion("adequacy", "interval", "adequacy", icc=True),
        Criterion("fluency", "interval", "fluency", icc=True),
    ]


def entity_choice(study: Mapping[str, Any]) -> list[Criterion]:
    """The entity chosen (the identification kind)."""
    return [Criterion("chosen_entity", "nominal", "choice")]


def piece_choice(study: Mapping[str, Any]) -> list[Criterion]:
    """The piece chosen (the situated identification kind)."""
    return [Criterion("chosen_piece", "nominal", "chosen")]


def configured_ratings(study: Mapping[str, Any]) -> list[Criterion]:
    """Each configured criterion's rating (the text rating kind): an ICC for
    a slider's scores."""
    return [
        Criterion(
            str(c["id"]),
            "interval",
            str(c["id"]),
            icc=(c.get("scale") or "likert") == "slider",
        )
        for c in study.get("criteria") or []
    ]


def configured_preference(study: Mapping[str, Any]) -> list[Criterion]:
    """The one question's winner (the text preference kind)."""
    return [
        Criterion(str(c["id"]), "nominal", "winner")
        for c in (study.get("criteria") or [])[:1]
    ]

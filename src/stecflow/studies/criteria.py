"""What each kind of study rates: the criteria its agreement is computed on.

One :class:`Criterion` per thing a study's evaluators judge (its name, level
of measurement, judgments column, and whether an ICC applies), by task:
the judgments stage computes inter-rater agreement on them
(:mod:`stecflow.judgments.agreement`) and the release's datasheet describes
them (:mod:`stecflow.release.heds`).

May import: :mod:`stecflow.core`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Criterion", "rated_criteria"]


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
    """What is rated in a study, by task (see the module docstring).

    >>> [c.name for c in rated_criteria({"task": "rating"})]
    ['adequacy', 'fluency']
    >>> rated_criteria({"task": "identification"})[0].level
    'nominal'
    """
    task = study.get("task")
    if task == "rating":
        return [
            Criterion("adequacy", "interval", "adequacy", icc=True),
            Criterion("fluency", "interval", "fluency", icc=True),
        ]
    if task == "identification":
        return [Criterion("chosen_entity", "nominal", "choice")]
    if task == "situated_identification":
        return [Criterion("chosen_piece", "nominal", "chosen")]
    if task == "text_rating":
        return [
            Criterion(
                str(c["id"]),
                "interval",
                str(c["id"]),
                icc=(c.get("scale") or "likert") == "slider",
            )
            for c in study.get("criteria") or []
        ]
    if task == "text_preference":
        return [
            Criterion(str(c["id"]), "nominal", "winner")
            for c in (study.get("criteria") or [])[:1]
        ]
    raise ValueError(f"unknown task {task!r}")

"""What a text trial's page answers: the response fields of the text kinds.

The ``responses`` hooks of :mod:`stecflow.studykinds.text_rating` and
:mod:`stecflow.studykinds.text_preference` (their fields depend on the study's
criteria: one ``rating_<id>`` per criterion, a tie offered or not) and the
``keyed`` hook of a preference, which stores beside its answer what only the
study's key knows: the systems of the two sides and the one chosen (the page
never knows them).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`,
:mod:`stecflow.studykinds`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from stecflow.studykinds.base import ResponseField

__all__ = ["preference_fields", "preference_keyed", "rating_fields"]


def rating_fields(criteria: Sequence[Mapping[str, Any]]) -> tuple[ResponseField, ...]:
    """``rating_<id>`` per criterion: an integer 1..points (Likert, 5 by
    default) or 0-100 (slider).

    >>> [(f.name, f.low, f.high) for f in rating_fields(
    ...     [{"id": "fluency", "points": 7}, {"id": "adequacy", "scale": "slider"}])]
    [('rating_fluency', 1, 7), ('rating_adequacy', 0, 100)]
    """
    return tuple(
        ResponseField(f"rating_{c['id']}", low=0, high=100)
        if c.get("scale") == "slider"
        else ResponseField(f"rating_{c['id']}", low=1, high=int(c.get("points") or 5))
        for c in criteria
    )


def preference_fields(
    criteria: Sequence[Mapping[str, Any]],
) -> tuple[ResponseField, ...]:
    """``preferred``: ``left``, ``right``, or ``tie`` when the study's one
    criterion allows it."""
    tie = bool(criteria and criteria[0].get("allow_tie"))
    sides = ("left", "right", "tie") if tie else ("left", "right")
    return (ResponseField("preferred", "choice", choices=sides),)


def preference_keyed(trial: Any, answers: Mapping[str, Any]) -> dict[str, Any]:
    """The systems of a preference trial's sides and of its answer (None for a
    tie), from the study's key."""
    left, right = trial.system_left, trial.system_right
    return {
        "system_left": left,
        "system_right": right,
        "chosen_system": {"left": left, "right": right}.get(answers["preferred"]),
    }

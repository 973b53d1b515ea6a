"""What the server accepts as an answer: a trial's fields, checked against the design.

Owns the checks of a trial's fields (:func:`trial_keys`, :func:`check_trial`; a
situated trial's plays and answer, :func:`situated_fields`; a text rating's or
preference's answers, :func:`text_fields`), of a questionnaire screen's answers
(:func:`check_answers`) and the patterns and limits they apply.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from stecflow.serving.request import HTTPError
from stecflow.studies.server.store import RESPONSE_FIELDS, SITUATED_FIELDS
from stecflow.studies.server.study import Study, Trial
from stecflow.studies.settings import RESPONSE_COLUMNS
from stecflow.studykinds.base import ResponseField
from stecflow.studykinds.registry import hook, response_fields

__all__ = [
    "ANSWER_VIA",
    "FIELD_NAME",
    "MAX_ANSWER_CHARS",
    "MAX_ANSWER_FIELDS",
    "MAX_SCREENS",
    "PARTICIPANT_ID",
    "check_answers",
    "check_trial",
    "flag",
    "number",
    "situated_fields",
    "text_fields",
    "trial_keys",
]

_MAX_MS = 3_600_000.0
PARTICIPANT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
#: Screen IDs and answer field names (contract C1).
FIELD_NAME = PARTICIPANT_ID
#: Limits of questionnaire answers: characters per string value, fields per
#: screen, screens per session.
MAX_ANSWER_CHARS = 2000
MAX_ANSWER_FIELDS = 100
MAX_SCREENS = 50


def number(
    payload: Mapping[str, Any], name: str, low: float, high: float, *, required: bool
) -> float | None:
    """The number *name* of *payload*, between *low* and *high* (400 otherwise)."""
    value = payload.get(name)
    if value is None:
        if required:
            raise HTTPError(400, f"{name} is required")
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise HTTPError(400, f"{name} must be a number, got {type(value).__name__}")
    # Compared before any conversion: NaN fails, and a huge int never meets float().
    if not low <= value <= high:
        raise HTTPError(400, f"{name} must be between {low:g} and {high:g}")
    return float(value)


def flag(payload: Mapping[str, Any], name: str) -> bool:
    """The flag *name* of *payload*: true, false or absent (false)."""
    value = payload.get(name, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise HTTPError(400, f"{name} must be true or false")
    return value


#: Stored fields that come from the study's key, never from the page: what names
#: the trial shown, and the systems of a preference's sides and of its answer.
_FROM_KEY = frozenset(
    {
        "instance",
        "dialogue",
        "expression",
        "system_left",
        "system_right",
        "chosen_system",
    }
)
#: What the page sends for a trial: its order and opaque ID, and the answer. The
#: item, system and correctness come from the study's key.
_TRIAL_KEYS = frozenset({"order", "trial", *RESPONSE_FIELDS}) - {"correct"}
_SITUATED_KEYS = (_TRIAL_KEYS | frozenset(SITUATED_FIELDS)) - _FROM_KEY
#: How a situated trial can be answered (seed 000 §5.1: a piece on the board,
#: its numbered button, or "I don't know").
ANSWER_VIA = ("board", "button", "dont_know")


def trial_keys(study: Study) -> frozenset[str]:
    """The fields the page may send for a trial of *study*."""
    allowed = _SITUATED_KEYS if study.situated else _TRIAL_KEYS
    if study.text:
        allowed = (
            _TRIAL_KEYS | set(study.columns[len(RESPONSE_COLUMNS) :])
        ) - _FROM_KEY
    return allowed


def check_trial(
    payload: Mapping[str, Any], trial: Trial, study: Study
) -> dict[str, Any]:
    """Check the fields every trial of *study* has; return them as stored.

    The trial's ID, then by kind: a text trial's reaction time (its answers are
    :func:`text_fields`), the declared answers of a grid kind that declares them
    (a rating's two scores), or else an identification's one answer (a chosen
    entity, ``cant_tell`` or ``timeout``) and its times and click.
    """
    if payload.get("trial") != trial.trial_id:
        raise HTTPError(
            400,
            f"trial {trial.order} of this list is {trial.trial_id}, not "
            f"{payload.get('trial')!r}",
        )
    record: dict[str, Any] = dict.fromkeys(RESPONSE_FIELDS)
    if study.text:
        record["rt_ms"] = number(payload, "rt_ms", 0, _MAX_MS, required=True)
        for name in RESPONSE_FIELDS:
            if name != "rt_ms" and payload.get(name) not in (None, False):
                raise HTTPError(400, f"{name} does not belong to a {study.task} trial")
        return record
    declared = response_fields(study.task)
    if declared:  # a grid kind whose answers are declared (rating)
        for field in declared:
            record[field.name] = _checked(field, payload.get(field.name))
        record["rt_ms"] = number(payload, "rt_ms", 0, _MAX_MS, required=True)
        taken = {field.name for field in declared} | {"rt_ms"}
        for name in RESPONSE_FIELDS:
            if name not in taken and payload.get(name) not in (None, False):
                raise HTTPError(400, f"{name} does not belong to a {study.task} trial")
        return record
    for name in ("adequacy", "fluency"):
        if payload.get(name) is not None:
            raise HTTPError(400, f"{name} does not belong to identification")
    chosen = payload.get("chosen_entity")
    if trial.labels and chosen is not None:
        # the page shows labels (stecflow.studies.blinding); store the entity
        if not isinstance(chosen, str) or chosen not in trial.labels:
            raise HTTPError(400, "chosen_entity is not an entity of this trial")
        chosen = trial.labels[chosen]
    if chosen is not None and (
        not isinstance(chosen, str) or chosen not in trial.entities
    ):
        if study.situated:
            raise HTTPError(
                400,
                f"chosen_entity {chosen!r} is not a piece of trial "
                f"{trial.order} (its pieces: {', '.join(sorted(trial.entities))})",
            )
        raise HTTPError(400, "chosen_entity is not an entity of this trial")
    if study.situated and flag(payload, "timeout"):
        raise HTTPError(400, "a situated trial has no time-out (seed 000 sets none)")
    cant_tell = flag(payload, "cant_tell")
    timeout = flag(payload, "timeout")
    if (chosen is not None) + cant_tell + timeout != 1:
        raise HTTPError(
            400, "give exactly one of chosen_entity, cant_tell=true, timeout=true"
        )
    record.update(chosen_entity=chosen, cant_tell=cant_tell, timeout=timeout)
    if chosen is not None:
        record["correct"] = chosen == trial.target
    else:
        record["correct"] = False if cant_tell else None
    answered = not timeout
    record["identification_time_ms"] = number(
        payload, "identification_time_ms", 0, _MAX_MS, required=answered
    )
    record["rt_ms"] = number(payload, "rt_ms", 0, _MAX_MS, required=answered)
    record["reading_time_ms"] = number(
        payload,
        "reading_time_ms",
        0,
        _MAX_MS,
        required=study.variant == "read_first",
    )
    record["audio_onset_ms"] = number(
        payload, "audio_onset_ms", 0, _MAX_MS, required=False
    )
    record["click_x"] = number(payload, "click_x", 0, 1, required=False)
    record["click_y"] = number(payload, "click_y", 0, 1, required=False)
    return record


def situated_fields(payload: Mapping[str, Any], trial: Trial) -> dict[str, Any]:
    """Check the fields of a situated identification trial; return them as stored.

    The record of :func:`check_trial` (chosen piece or ``cant_tell``) is checked there;
    this checks the clip's plays and the answer's way, and adds what names the
    trial shown, from the study's key.
    """
    record: dict[str, Any] = {
        "instance": trial.item,
        "dialogue": trial.dialogue,
        "expression": trial.expression,
    }
    record["time_ms"] = number(payload, "time_ms", 0, _MAX_MS, required=True)
    plays = payload.get("plays")
    if isinstance(plays, bool) or not isinstance(plays, int) or plays < 1:
        raise HTTPError(
            400, f"plays must be an integer of 1 or more (clip starts), got {plays!r}"
        )
    replays = payload.get("replays")
    if isinstance(replays, bool) or not isinstance(replays, int):
        raise HTTPError(400, f"replays must be an integer, got {replays!r}")
    if replays != plays - 1:
        raise HTTPError(400, f"replays must be plays - 1 = {plays - 1}, got {replays}")
    if plays > 1_000_000:
        raise HTTPError(400, "plays must be at most 1000000")
    record.update(plays=plays, replays=replays)
    via = payload.get("answer_via")
    if via not in ANSWER_VIA:
        raise HTTPError(
            400, f"answer_via must be one of {', '.join(ANSWER_VIA)}, got {via!r}"
        )
    dont_know = bool(payload.get("cant_tell"))
    if (via == "dont_know") != dont_know:
        raise HTTPError(
            400,
            "answer_via is dont_know exactly when cant_tell is true "
            f"(got answer_via={via}, cant_tell={str(dont_know).lower()})",
        )
    record["answer_via"] = via
    return record


def _checked(field: ResponseField, value: Any) -> Any:
    try:
        return field.check(value)
    except ValueError as error:
        raise HTTPError(400, str(error)) from None


def text_fields(
    payload: Mapping[str, Any], trial: Trial, study: Study
) -> dict[str, Any]:
    """Check the answer fields of a text trial; return them as stored.

    The fields are the kind's (:func:`~stecflow.studykinds.registry.response_fields`,
    given the study's criteria: a rating's ``rating_<id>`` per criterion, a
    preference's ``preferred``), each checked by its declaration; a kind's
    ``keyed`` hook adds what the study's key knows and the page does not (a
    preference's systems of its sides and of its answer).
    """
    record = {
        field.name: _checked(field, payload.get(field.name))
        for field in response_fields(study.task, study.criteria)
    }
    keyed = hook(study.task, "keyed")
    if keyed is not None:
        record.update(keyed(trial, record))
    return record


def check_answers(payload: Mapping[str, Any]) -> tuple[str, list[tuple[str, str]]]:
    """Check a questionnaire screen's answers; return its ID and its rows.

    Each row is a field name and its value as JSON.
    """
    unknown = sorted(set(payload) - {"screen", "answers"})
    if unknown:
        raise HTTPError(400, f"unknown field(s): {', '.join(unknown)}")
    screen = payload.get("screen")
    if not isinstance(screen, str) or not FIELD_NAME.fullmatch(screen):
        raise HTTPError(400, "screen must be 1-64 letters, digits, - or _")
    answers = payload.get("answers")
    if not isinstance(answers, dict):
        raise HTTPError(400, "answers must be an object of field: value")
    if len(answers) > MAX_ANSWER_FIELDS:
        raise HTTPError(400, f"a screen has at most {MAX_ANSWER_FIELDS} answer fields")
    rows = []
    for field, value in answers.items():
        if not FIELD_NAME.fullmatch(field):
            raise HTTPError(
                400,
                f"answer field {field[:70]!r} must be 1-64 letters, digits, - or _",
            )
        if isinstance(value, str):
            if len(value) > MAX_ANSWER_CHARS:
                raise HTTPError(
                    400,
                    f"answer {field} is longer than {MAX_ANSWER_CHARS} characters",
                )
        elif value is not None and not isinstance(value, bool | int | float):
            raise HTTPError(
                400,
                f"answer {field} must be a string, number, true, false or null",
            )
        rows.append((field, json.dumps(value, ensure_ascii=False)))
    return screen, rows

"""The session table of a simulated study: times and questionnaire answers.

Real participants leave a session table (:mod:`stecflow.judgments.sessions`);
simulated ones (:mod:`stecflow.judgments.simulate`) leave it too, so that a
demo campaign's report can describe its evaluators as a group and give the time
on task (:mod:`stecflow.judgments.evaluators`). :func:`simulate_sessions`
writes one row per simulated session of a simulated response file, in the
session table's format, with a ``simulated`` mark in no column (the trials'
file carries it; the judgments summary says the study is simulated):

- times: the sessions start an hour apart from :data:`FIRST_START` (plus up to
  half an hour, drawn); a session takes the sum of its trials' response times
  (``rt_ms``, else ``reading_time_ms`` plus ``identification_time_ms``), plus
  :data:`PER_TRIAL_S` per trial (moving on to the next one) and 2 to 6 minutes
  for the consent, instructions, questionnaire and debrief (drawn);
- answers to the study's questionnaire, drawn per field type: a choice's
  option *i* (from 0) with weight 2^-i; a number from a triangular
  distribution between its ``min`` (else 0) and 40 % of the way to its ``max``
  (else ``min`` + 40), mode ``min`` + 4, whole; yes/no ``yes`` with
  probability 0.9; free text ``simulated answer``; a field that is not
  ``required`` is left blank with probability 0.2.

Every draw comes from a generator seeded with the simulation's seed, the study
and the session, so the same inputs give the same bytes.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from stecflow.judgments.sessions import SESSION_COLUMNS

__all__ = [
    "FIRST_START",
    "PER_TRIAL_S",
    "simulate_sessions",
    "write_simulated_sessions",
]

#: When the first simulated session starts (UTC).
FIRST_START = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
#: Seconds a simulated participant takes between trials, on top of answering.
PER_TRIAL_S = 2.0


def _utc(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _float(value: Any) -> float:
    try:
        number = float(str(value))
    except (TypeError, ValueError):
        return 0.0
    return number if number == number and number >= 0 else 0.0


def _trial_seconds(row: Mapping[str, Any]) -> float:
    if str(row.get("rt_ms") or "").strip():
        return _float(row["rt_ms"]) / 1000
    return (
        _float(row.get("reading_time_ms")) + _float(row.get("identification_time_ms"))
    ) / 1000


def _answer(field: Mapping[str, Any], rng: random.Random) -> str:
    if not field.get("required", True) and rng.random() < 0.2:
        return ""
    kind = field.get("type")
    if kind == "choice":
        options = [str(o["value"]) for o in field.get("options") or ()]
        if not options:
            return ""
        return rng.choices(options, weights=[0.5**i for i in range(len(options))])[0]
    if kind == "number":
        low = float(field.get("min") if field.get("min") is not None else 0)
        top = field.get("max")
        high = low + 0.4 * (float(top) - low) if top is not None else low + 40
        value = round(rng.triangular(low, max(high, low), min(low + 4, high)))
        return str(int(value))
    if kind == "yes-no":
        return "yes" if rng.random() < 0.9 else "no"
    return "simulated answer"


def simulate_sessions(
    responses: Sequence[Mapping[str, Any]],
    questionnaire: Mapping[str, Any] | None,
    *,
    study: str,
    seed: int,
) -> tuple[list[dict[str, Any]], list[str]]:
    """The session rows of simulated *responses*, and the table's columns.

    >>> rows, columns = simulate_sessions(
    ...     [{"session": "s1", "participant": "p1", "list": "L01", "rt_ms": "4000",
    ...       "session_status": "completed"}] * 3, None, study="x", seed=1)
    >>> rows[0]["status"], rows[0]["n_trials_answered"], rows[0]["duration_s"] > 12
    ('completed', 3, True)
    """
    sessions: dict[str, list[Mapping[str, Any]]] = {}
    for row in responses:
        sessions.setdefault(str(row.get("session") or ""), []).append(row)
    sessions.pop("", None)
    fields = list((questionnaire or {}).get("fields") or ())
    screen = str((questionnaire or {}).get("screen") or "questionnaire")
    answer_columns = sorted(f"{screen}.{f['id']}" for f in fields)
    out = []
    for index, name in enumerate(sorted(sessions)):
        trials = sessions[name]
        rng = random.Random(f"{seed}:{study}:{name}")
        start = FIRST_START + timedelta(hours=index, seconds=rng.randint(0, 1800))
        screens_s = rng.uniform(120, 360)
        took = round(
            sum(_trial_seconds(t) for t in trials)
            + PER_TRIAL_S * len(trials)
            + screens_s,
            3,
        )
        status = str(trials[0].get("session_status") or "completed")
        row: dict[str, Any] = {
            "study": study,
            "session": name,
            "participant": str(trials[0].get("participant") or name),
            "study_id": "",
            "external_session": "",
            "list": str(trials[0].get("list") or ""),
            "status": status,
            "started_utc": _utc(start),
            # (an abandoned session ends when last seen: its last trial)
            "ended_utc": _utc(start + timedelta(seconds=took)),
            "duration_s": took if status == "completed" else "",
            "n_trials_answered": len(trials),
            "consent": 1,
        }
        for field in fields:
            row[f"{screen}.{field['id']}"] = _answer(field, rng)
        out.append(row)
    return out, [*SESSION_COLUMNS, *answer_columns]


def write_simulated_sessions(
    responses_path: str | Path,
    out_path: str | Path,
    *,
    study: str,
    seed: int,
    questionnaire_path: str | Path | None = None,
) -> None:
    """Write the session table of the simulated response file *responses_path*."""
    from stecflow.core.io import read_tsv, write_tsv

    questionnaire = None
    if questionnaire_path:
        from stecflow.studies.screens import read_questionnaire

        questionnaire = read_questionnaire(
            questionnaire_path, field="experiment.questionnaire"
        )
    rows, columns = simulate_sessions(
        read_tsv(responses_path), questionnaire, study=study, seed=seed
    )
    write_tsv(rows, columns, out_path)

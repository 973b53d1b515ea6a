"""Sessions as the organiser sees them: the session table and the progress numbers.

Owns :func:`session_status` (``completed``, ``returned``, ``abandoned`` or
``in_progress``), :data:`SESSION_COLUMNS` and :func:`read_session_rows` (one row
per session, the session table of the export), :func:`progress` (sessions per
list by status, durations, the lists that still need participants, the lists held
by returned or abandoned sessions) and :func:`progress_html` (the organiser's
progress page: self-contained, no script, no network).
"""

from __future__ import annotations

import html
import json
import sqlite3
import statistics
from collections.abc import Sequence
from typing import Any

from stecflow.studies.server.events import utc_iso
from stecflow.studies.server.store import session_columns

__all__ = [
    "SESSION_COLUMNS",
    "STATUSES",
    "progress",
    "progress_html",
    "read_session_rows",
    "session_status",
]

#: The fixed columns of the session table, in order; one column per
#: questionnaire answer, ``<screen>.<field>`` (sorted), follows them.
SESSION_COLUMNS = (
    "study",
    "session",
    "participant",
    "study_id",
    "external_session",
    "list",
    "status",
    "started_utc",
    "ended_utc",
    "duration_s",
    "n_trials_answered",
    "consent",
)
#: The statuses of a session.
STATUSES = ("completed", "in_progress", "abandoned", "returned")


def session_status(
    completed_s: float | None,
    last_seen_s: float,
    returned_s: float | None,
    now: float,
    abandon_after_s: float,
) -> str:
    """The status of a session at *now*.

    Completed wins; a place the organiser marked returned is ``returned``; an
    unfinished session silent for more than *abandon_after_s* is ``abandoned``.

    >>> session_status(None, 100.0, None, 200.0, 60.0)
    'abandoned'
    >>> session_status(None, 100.0, 150.0, 120.0, 60.0)
    'returned'
    """
    if completed_s is not None:
        return "completed"
    if returned_s is not None:
        return "returned"
    return "in_progress" if now - last_seen_s <= abandon_after_s else "abandoned"


def _answer_text(value_json: str) -> Any:
    value = json.loads(value_json)
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def read_session_rows(
    db: sqlite3.Connection, study: str, now: float, abandon_after_s: float
) -> tuple[list[dict[str, Any]], list[str]]:
    """Every session of a database as a row of the session table.

    Parameters
    ----------
    db : sqlite3.Connection
        The study's database (any schema version; an old one has no IDs,
        consent or answers: those cells are empty).
    study : str
        The study ID (the ``study`` column).
    now : float
        The time the statuses are judged at.
    abandon_after_s : float
        Silence after which an unfinished session is ``abandoned``.

    Returns
    -------
    rows : list of dict
        Sorted by list, start and session. ``ended_utc`` is the completion for a
        completed session, the return for a returned one, the last request heard
        for an abandoned one, empty while in progress; ``duration_s`` (start to
        completion, in seconds, 0.001 s resolution) only for completed sessions.
        Answers are the values as sent (numbers as numbers, booleans ``true`` /
        ``false``, null empty).
    answer_columns : list of str
        The ``<screen>.<field>`` columns, sorted.
    """
    have = session_columns(db)
    extra = ", ".join(
        f"s.{name}" if name in have else "NULL"
        for name in ("study_id", "external_session", "consent", "returned_s")
    )
    query = (
        "SELECT s.session_id, s.participant, s.list, s.created_s, s.last_seen_s, "
        f"s.completed_s, {extra}, "
        "(SELECT COUNT(*) FROM trials AS t WHERE t.session_id = s.session_id) "
        "FROM sessions AS s ORDER BY s.list, s.created_s, s.session_id"
    )
    answers: dict[str, dict[str, Any]] = {}
    has_answers = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'answers'"
    ).fetchone()
    if has_answers:
        for session_id, screen, field, value_json in db.execute(
            "SELECT session_id, screen, field, value_json FROM answers"
        ):
            answers.setdefault(session_id, {})[f"{screen}.{field}"] = _answer_text(
                value_json
            )
    rows = []
    for (
        session_id,
        participant,
        list_id,
        created_s,
        last_seen_s,
        completed_s,
        study_id,
        external,
        consent,
        returned_s,
        n_trials,
    ) in db.execute(query):
        status = session_status(
            completed_s, last_seen_s, returned_s, now, abandon_after_s
        )
        ended = {
            "completed": completed_s,
            "returned": returned_s,
            "abandoned": last_seen_s,
        }.get(status)
        rows.append(
            {
                "study": study,
                "session": session_id,
                "participant": participant,
                "study_id": study_id,
                "external_session": external,
                "list": list_id,
                "status": status,
                "started_utc": utc_iso(created_s),
                "ended_utc": utc_iso(ended),
                "duration_s": round(completed_s - created_s, 3)
                if status == "completed"
                else None,
                "n_trials_answered": int(n_trials),
                "consent": 1 if consent else None,
                **answers.get(session_id, {}),
            }
        )
    columns = sorted({c for row in answers.values() for c in row})
    return rows, columns


def _quantiles(values: Sequence[float]) -> tuple[float | None, float | None]:
    """Median and 90th percentile (linear interpolation between order statistics,
    as ``numpy.percentile``'s default)."""
    if not values:
        return None, None
    if len(values) == 1:
        return float(values[0]), float(values[0])
    deciles = statistics.quantiles(values, n=10, method="inclusive")
    return float(statistics.median(values)), float(deciles[8])


def progress(
    db: sqlite3.Connection,
    study: str,
    lists: Sequence[str],
    now: float,
    abandon_after_s: float,
    per_list: int = 1,
) -> dict[str, Any]:
    """The progress of a study's collection: what the organiser's page shows.

    Parameters
    ----------
    db : sqlite3.Connection
        The study's database.
    study : str
        The study ID.
    lists : sequence of str
        The lists of the design, in order.
    now, abandon_after_s
        As for :func:`read_session_rows`.
    per_list : int, default 1
        Completed sessions wanted per list.

    Returns
    -------
    dict
        ``study``, ``generated_utc``, ``abandon_after_s``, ``per_list``; the counts
        ``sessions``, ``completed``, ``in_progress``, ``abandoned``, ``returned``;
        ``duration_s`` (``n`` completed sessions, ``median`` and ``p90`` seconds
        from start to completion, null without any); ``lists``: per list its
        counts, ``needed`` (``per_list`` minus completed and in progress, at least
        0) and ``held_by_returned`` / ``held_by_abandoned`` (the sessions whose
        list went back to the pool); ``lists_needed`` (lists with ``needed`` > 0,
        in design order) and ``participants_needed`` (their sum).
    """
    rows, _ = read_session_rows(db, study, now, abandon_after_s)
    per = {
        list_id: {
            "list": list_id,
            **dict.fromkeys(STATUSES, 0),
            "needed": 0,
            "held_by_returned": [],
            "held_by_abandoned": [],
        }
        for list_id in lists
    }
    totals = dict.fromkeys(STATUSES, 0)
    durations = []
    for row in rows:
        entry = per.get(row["list"])
        totals[row["status"]] += 1
        if row["status"] == "completed":
            durations.append(row["duration_s"])
        if entry is None:  # a list no longer in the design (never, normally)
            continue
        entry[row["status"]] += 1
        if row["status"] in ("returned", "abandoned"):
            entry[f"held_by_{row['status']}"].append(row["session"])
    for entry in per.values():
        entry["needed"] = max(0, per_list - entry["completed"] - entry["in_progress"])
    median, p90 = _quantiles(durations)
    return {
        "study": study,
        "generated_utc": utc_iso(now),
        "abandon_after_s": abandon_after_s,
        "per_list": per_list,
        "sessions": len(rows),
        **totals,
        "duration_s": {"n": len(durations), "median": median, "p90": p90},
        "lists": list(per.values()),
        "lists_needed": [e["list"] for e in per.values() if e["needed"] > 0],
        "participants_needed": sum(e["needed"] for e in per.values()),
    }


#: The progress page's style sheet (allowed by its hash in the page's
#: Content-Security-Policy; nothing else is loaded).
PROGRESS_CSS = (
    "body{font-family:system-ui,sans-serif;margin:1.5rem;color:#222}"
    "table{border-collapse:collapse;margin:1rem 0}"
    "th,td{border:1px solid #bbb;padding:.25rem .6rem;text-align:right}"
    "th:first-child,td:first-child{text-align:left}"
    "td.ids{text-align:left;font-family:monospace;font-size:.85em}"
    ".need{background:#fff3cd}"
)


def _minutes(seconds: float | None) -> str:
    return "–" if seconds is None else f"{seconds / 60:.1f} min"


def progress_html(data: dict[str, Any]) -> str:
    """The organiser's progress page for :func:`progress`'s *data*."""
    e = html.escape
    d = data["duration_s"]
    head = (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>Progress of {e(data['study'])}</title>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<style>{PROGRESS_CSS}</style></head><body>"
    )
    summary = (
        f"<h1>Study {e(data['study'])}: progress</h1>"
        f"<p>As of {e(data['generated_utc'])}. Sessions: {data['sessions']}; "
        f"completed {data['completed']}, in progress {data['in_progress']}, "
        f"abandoned {data['abandoned']} (silent for more than "
        f"{data['abandon_after_s']:g} s), returned {data['returned']}.</p>"
        f"<p>Duration of the {d['n']} completed session(s): median "
        f"{_minutes(d['median'])}, 90th percentile {_minutes(d['p90'])}.</p>"
        f"<p>Participants still needed: {data['participants_needed']} "
        f"({data['per_list']} completed session(s) wanted per list); lists: "
        f"{e(', '.join(data['lists_needed']) or 'none')}.</p>"
    )
    header = (
        "<table><thead><tr><th>list</th><th>completed</th><th>in progress</th>"
        "<th>abandoned</th><th>returned</th><th>still needed</th>"
        "<th>held by returned or abandoned sessions</th></tr></thead><tbody>"
    )
    body = []
    for entry in data["lists"]:
        held = entry["held_by_returned"] + entry["held_by_abandoned"]
        css = " class='need'" if entry["needed"] else ""
        body.append(
            f"<tr{css}><td>{e(entry['list'])}</td><td>{entry['completed']}</td>"
            f"<td>{entry['in_progress']}</td><td>{entry['abandoned']}</td>"
            f"<td>{entry['returned']}</td><td>{entry['needed']}</td>"
            f"<td class='ids'>{e(' '.join(held))}</td></tr>"
        )
    links = (
        "<p>Downloads: <a href='progress.json'>progress (JSON)</a>, "
        "<a href='export.tsv'>trials (TSV)</a>, "
        "<a href='sessions.tsv'>sessions (TSV)</a>.</p>"
    )
    return (
        head
        + summary
        + header
        + "".join(body)
        + "</tbody></table>"
        + links
        + ("</body></html>")
    )

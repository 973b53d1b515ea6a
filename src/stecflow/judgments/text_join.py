"""The join of a text study's responses to its design (rating and preference).

Reads ``design.tsv`` (:func:`read_text_design`), places every imported answer on
a test trial of the design (:func:`join_text_trials`; an answer that cannot be
placed is a problem of the data-quality table, with file, line and column) and
gives each session its list, status and partial flag (:func:`text_sessions`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.judgments._common import JudgmentsError, clean_str, parse_int, problem
from stecflow.judgments.pipeline import trial_location
from stecflow.studykinds.registry import get, paired

__all__ = ["join_text_trials", "read_text_design", "text_sessions", "winner"]

_PARTIAL_STATUS = ("in_progress", "abandoned", "aborted")
#: The system of a control trial's degraded text (studies.designs.controls).
_CONTROL = "CONTROL"
#: The design's columns every text study needs, before its kind's sides.
_DESIGN_NEEDED = ("study", "list", "order", "item")


def read_text_design(path: str | Path, task: str) -> list[dict[str, Any]]:
    """Read ``design.tsv`` of a text study.

    Parameters
    ----------
    path : path
        The design: at least ``study, list, order, item`` and ``system``
        (rating) or ``system_left, system_right`` (preference); ``practice``
        and ``filler`` (``true``/``false``) when present.
    task : str
        ``text_rating`` or ``text_preference``.

    Returns
    -------
    list of dict
        One per trial, ``order`` as int, ``practice`` and ``filler`` as bool,
        ``line`` the design's line.

    Raises
    ------
    JudgmentsError
        A column is missing, an order is not a whole number, a list has an
        order twice, or a preference trial shows one system twice (file, line,
        column).
    """
    from stecflow.core.io import read_tsv

    source = str(path)
    try:
        rows = read_tsv(path)
    except OSError as exc:
        raise JudgmentsError(
            f"cannot read the design ({exc.strerror})", file=source
        ) from None
    needed = (*_DESIGN_NEEDED, *get(task).sides)
    if rows:
        missing = [c for c in needed if c not in rows[0]]
        if missing:
            raise JudgmentsError(
                f"missing column(s) {', '.join(missing)}; a {task} design has "
                f"{', '.join(needed)} (and TRIAL_COLUMNS)",
                file=source,
                line=1,
                field=missing[0],
            )
    seen: dict[tuple[str, int], int] = {}
    out = []
    for line, row in enumerate(rows, start=2):
        try:
            order = parse_int(row["order"])
        except ValueError:
            order = None
        if order is None:
            raise JudgmentsError(
                f"order {row['order']!r}; expected a whole number of 1 or more",
                file=source,
                line=line,
                field="order",
            )
        key = (row["list"], order)
        if key in seen:
            raise JudgmentsError(
                f"list {row['list']} has order {order} twice (first on line "
                f"{seen[key]})",
                file=source,
                line=line,
                field="order",
            )
        seen[key] = line
        trial = {k: clean_str(v) for k, v in row.items()}
        trial.update(order=order, line=line)
        for flag in ("practice", "filler"):
            trial[flag] = (row.get(flag) or "").strip().lower() == "true"
        if (
            paired(task)
            and not trial["practice"]
            and (
                not trial["system_left"]
                or trial["system_left"] == trial["system_right"]
            )
        ):
            raise JudgmentsError(
                f"system_left {trial['system_left']!r}, system_right "
                f"{trial['system_right']!r}; expected two different systems",
                file=source,
                line=line,
                field="system_left",
            )
        out.append(trial)
    return out


def winner(trial: Mapping[str, Any]) -> str | None:
    """The system a preference trial's answer prefers; None for a tie or no answer."""
    preferred = trial.get("preferred")
    if preferred == "left":
        return trial["system_left"]
    if preferred == "right":
        return trial["system_right"]
    return None


def _where(row: Mapping[str, Any]) -> dict[str, Any]:
    """:func:`~stecflow.judgments.pipeline.trial_location`, a preference
    trial's system written ``left vs right``."""
    return {
        **trial_location(row),
        "system": row.get("system")
        or (
            f"{row['system_left']} vs {row['system_right']}"
            if row.get("system_left")
            else None
        ),
    }


def join_text_trials(
    rows: Sequence[dict[str, Any]],
    design: Sequence[Mapping[str, Any]],
    task: str,
    study: str,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Join imported rows to the design's test trials; (trials, problems)."""
    lists = {d["list"] for d in design}
    by_order = {(d["list"], d["order"]): d for d in design}
    by_item: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for d in design:
        by_item.setdefault((d["list"], d["item"]), []).append(d)
    trials, problems = [], []
    seen: dict[tuple[str, str, int], dict[str, Any]] = {}
    for row in rows:
        where = _where(row)
        if row["practice"]:
            continue
        if row["study"] is not None and row["study"] != study:
            problems.append(
                problem(
                    "other_study",
                    f"study {row['study']!r}; expected {study}",
                    study=study,
                    field="study",
                    **where,
                )
            )
            continue
        if row["session"] is None or row["list"] is None:
            continue  # reported by the importer (import_problem)
        if row["list"] not in lists:
            problems.append(
                problem(
                    "unknown_list",
                    f"list {row['list']!r} is not in the design ({len(lists)} lists)",
                    study=study,
                    field="list",
                    **where,
                )
            )
            continue
        if row["order"] is not None:
            d = by_order.get((row["list"], row["order"]))
        else:
            found = by_item.get((row["list"], row["item"])) or []
            d = found[0] if len(found) == 1 else None
        if d is None or d["practice"]:
            problems.append(
                problem(
                    "not_in_design",
                    f"order {row['order']}, item {row['item']!r} is not a test trial "
                    f"of list {row['list']}",
                    study=study,
                    field="order" if row["order"] is not None else "item",
                    **where,
                )
            )
            continue
        shown = (
            ("item", "system")
            if not paired(task)
            else ("item", "system_left", "system_right")
        )
        differ = [k for k in shown if row.get(k) is not None and row.get(k) != d.get(k)]
        if differ:
            k = differ[0]
            problems.append(
                problem(
                    "design_mismatch",
                    f"{k} {row[k]!r}; the design shows {d[k]!r} at order "
                    f"{d['order']} of list {d['list']} (line {d['line']})",
                    study=study,
                    field=k,
                    **where,
                )
            )
            continue
        key = (row["session"], d["list"], d["order"])
        if key in seen:
            first = seen[key]
            problems.append(
                problem(
                    "duplicate",
                    f"trial {d['order']} answered again in session {row['session']} "
                    f"(first on line {first['source_line']} of "
                    f"{first['source_file']}); the first answer is kept",
                    study=study,
                    field="order",
                    **where,
                )
            )
            continue
        seen[key] = row
        trial = {
            "subject": row["subject"],
            "session": row["session"],
            "participant": row["participant"],
            "list": d["list"],
            "order": d["order"],
            "item": d["item"],
            "time_ms": row["time_ms"],
            "session_status": row["session_status"],
            "simulated": bool(row["simulated"]),
            "import_problem": row["import_problem"],
            "corrected": False,
            "excluded": False,
            "source_file": row["source_file"],
            "source_line": row["source_line"],
        }
        if not paired(task):
            trial["system"] = d["system"]
            trial["control"] = d.get("control")  # kind of a control trial
            trial["ratings"] = dict(row["ratings"] or {})
        else:
            trial["system_left"] = d["system_left"]
            trial["system_right"] = d["system_right"]
            trial["preferred"] = row["preferred"]
            trial["winner"] = winner(trial)
            trial["control"] = d.get("control")
            if trial["control"] and trial["preferred"] is not None:
                # expected: the intact text, not its degraded copy (nor a tie)
                trial["correct"] = trial["winner"] not in (None, _CONTROL)
        trials.append(trial)
    return trials, problems


def text_sessions(
    trials: Sequence[dict[str, Any]],
    design: Sequence[Mapping[str, Any]],
    study: str,
) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """Each session's list, status, missing trials and partial flag; problems."""
    expected: dict[str, set[int]] = {}
    for d in design:
        if not d["practice"]:
            expected.setdefault(d["list"], set()).add(d["order"])
    grouped: dict[str, list[dict[str, Any]]] = {}
    for t in trials:
        grouped.setdefault(t["session"], []).append(t)
    info, problems = {}, []
    for session, rows in sorted(grouped.items()):
        list_id = rows[0]["list"]
        statuses = Counter(r["session_status"] for r in rows if r["session_status"])
        status = min(statuses, key=lambda s: (-statuses[s], s)) if statuses else None
        missing = sorted(expected[list_id] - {r["order"] for r in rows})
        partial = bool(missing) or status in _PARTIAL_STATUS
        where = {
            "study": study,
            "source_file": rows[0]["source_file"],
            "session": session,
            "subject": rows[0]["subject"],
            "list_id": list_id,
        }
        n = len(expected[list_id])
        if missing:
            shown = ", ".join(map(str, missing[:20])) + (
                " ..." if len(missing) > 20 else ""
            )
            problems.append(
                problem(
                    "missing_trials",
                    f"{len(missing)} of {n} test trials of list {list_id} not "
                    f"answered (orders {shown})",
                    **where,
                )
            )
        if partial:
            problems.append(
                problem(
                    "partial_session",
                    f"session status {status or 'unknown'}, {n - len(missing)} of "
                    f"{n} test trials answered; kept and flagged",
                    **where,
                )
            )
        info[session] = {
            "list": list_id,
            "subject": rows[0]["subject"],
            "status": status,
            "partial": partial,
            "n_missing": len(missing),
        }
    return info, problems

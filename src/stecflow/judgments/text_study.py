"""The judgments stage of a text human study (``text_rating``, ``text_preference``).

Owns the functions the workflow calls for a study of a text task (issue #16):

* :func:`merge_text_study` (rule ``merge_judgments``): reads the response files
  (:func:`stecflow.judgments.importers.text.read_text_responses`), joins every
  trial to the design (``design.tsv``: the columns of
  :data:`stecflow.studies.designs.TRIAL_COLUMNS`, and for a preference study
  ``system_left`` and ``system_right``), applies the organisers' corrections
  (:func:`read_text_corrections`: the file format of
  :mod:`stecflow.judgments.corrections`, whose fields here are a criterion's
  ID, ``preferred`` and ``exclude``), keeps and flags partial sessions, and
  writes the four files of every merge: the judgments table
  (:func:`judgment_columns`), the data-quality table
  (:data:`~stecflow.judgments._common.QUALITY_COLUMNS`), the measures
  (:data:`RATING_MEASURE_COLUMNS` or :data:`PREFERENCE_MEASURE_COLUMNS`) and a
  JSON summary, byte-identical on every run (sorted rows, fixed columns, floats
  through :func:`stecflow.core.io.format_float`).
* :func:`simulate_text_study` (rule ``simulate_responses``): the design
  answered by :func:`stecflow.judgments.text_sim.simulate_text_answers`, written
  as a response file the importer reads, every row ``simulated``.

Measures. A rating study: per criterion and system, the number of ratings, their
mean and SD (``n - 1``), and for a slider criterion the mean of the ratings
standardised per evaluator, as WMT's direct assessment does (Graham et al.
2017): each evaluator's ratings of that criterion (the trials in the analysis)
become ``(x - mean) / sd`` with the evaluator's own mean and SD (``n - 1``); an
evaluator with fewer than two ratings or constant ones has no z-scores (the
count used is ``z_n``). A preference study: per system its wins, losses and
ties, its win rate (ties half) with a Wilson interval, and its Bradley-Terry
strength (:mod:`stecflow.stats.preference`, ties split half and half); the
pairwise win rates are in the summary.

Which trials enter the measures (``in_analysis``): a test trial joined to the
design, not excluded by a correction, without an import problem, answered
(every criterion missing is ``no_response``); partial sessions stay in unless
``judgments.exclude_partial_sessions``. A trial that cannot be placed in the
design (another study, an unknown list, a trial that is not the design's, a
duplicate) is only a row of the quality table, with file, line and column.

May import: :mod:`stecflow.core`, :mod:`stecflow.stats`, :mod:`stecflow.judgments`;
numpy, pandas and SciPy inside functions.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.judgments._common import (
    QUALITY_COLUMNS,
    JudgmentsError,
    clean_str,
    normalise_header,
    parse_int,
    parse_number,
    problem,
    read_text,
)
from stecflow.judgments.importers.text import (
    PREFERENCE_OUTCOMES,
    Criterion,
    criteria_from_config,
)
from stecflow.studykinds.base import MergeJob, SimulationJob

__all__ = [
    "PREFERENCE_MEASURE_COLUMNS",
    "RATING_MEASURE_COLUMNS",
    "TextCorrection",
    "judgment_columns",
    "merge_job",
    "merge_text_study",
    "preference_measures",
    "rating_measures",
    "read_text_corrections",
    "read_text_design",
    "simulate_job",
    "simulate_text_study",
]

logger = logging.getLogger(__name__)

#: Columns of the judgments table before the task's own (:func:`judgment_columns`).
_HEAD = ("subject", "session", "list", "order", "item")
#: Columns after them.
_TAIL = (
    "time_ms",
    "session_status",
    "partial_session",
    "corrected",
    "excluded",
    "in_analysis",
    "exclusion_reason",
    "simulated",
)

#: Columns of ``results/judgments/measures/<study>.tsv`` for a rating study.
RATING_MEASURE_COLUMNS = (
    "criterion",
    "scale",
    "system",
    "n",
    "n_subjects",
    "mean",
    "sd",
    "z_n",
    "z_mean",
    "z_sd",
)

#: Columns of ``results/judgments/measures/<study>.tsv`` for a preference study.
PREFERENCE_MEASURE_COLUMNS = (
    "criterion",
    "system",
    "n",
    "wins",
    "losses",
    "ties",
    "win_rate",
    "ci_low",
    "ci_high",
    "bt_rank",
    "bt_strength",
    "bt_se",
    "bt_worth",
    "bt_note",
)

_PARTIAL_STATUS = ("in_progress", "abandoned", "aborted")
#: The system of a control trial's degraded text (studies.designs.controls).
_CONTROL = "CONTROL"
_DESIGN_NEEDED = {
    "text_rating": ("study", "list", "order", "item", "system"),
    "text_preference": (
        "study",
        "list",
        "order",
        "item",
        "system_left",
        "system_right",
    ),
}


def judgment_columns(task: str, criteria: Sequence[Criterion]) -> tuple[str, ...]:
    """Columns of ``results/judgments/<study>.tsv`` of a text study.

    A rating study has ``system``, ``control`` (the kind of a control trial,
    empty for the others) and one column per criterion (its ID); a preference
    study ``system_left``, ``system_right``, ``preferred``, ``winner`` (the
    system preferred, empty for a tie) and ``control``.

    >>> judgment_columns("text_rating", [Criterion("fluency", "likert", 5)])[5:8]
    ('system', 'control', 'fluency')
    """
    if task == "text_preference":
        own: tuple[str, ...] = (
            "system_left",
            "system_right",
            "preferred",
            "winner",
            "control",
        )
    else:
        own = ("system", "control", *(c.id for c in criteria))
    return (*_HEAD, *own, *_TAIL)


def _check_criteria(task: str, criteria: Sequence[Criterion]) -> None:
    taken = set(judgment_columns(task, []))
    for n, criterion in enumerate(criteria):
        if task == "text_rating" and criterion.id in taken:
            raise JudgmentsError(
                f"criterion {criterion.id!r} has the name of a column of the "
                "judgments table; rename it",
                field=f"criteria[{n}].id",
            )


# ----------------------------------------------------------------------- design


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
    needed = _DESIGN_NEEDED[task]
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
            task == "text_preference"
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


# ------------------------------------------------------------------ corrections


class TextCorrection(dict):  # type: ignore[type-arg]
    """One checked row of a text study's corrections file (a dict of its cells)."""


def read_text_corrections(
    path: str | Path,
    *,
    task: str,
    criteria: Sequence[Criterion],
    encoding: str | None = None,
) -> list[TextCorrection]:
    """Read a corrections file for a text study.

    The format is that of :mod:`stecflow.judgments.corrections` (columns
    ``study, session, participant, order, item, system, field, old_value,
    new_value, reason``; ``#`` starts a comment line). ``field`` is a
    criterion's ID (a rating study; the value is checked against its scale),
    ``preferred`` (a preference study: ``left``, ``right`` or ``tie``) or
    ``exclude`` (``true``: leave the trial out).

    Returns
    -------
    list of TextCorrection
        With ``line``, ``field``, ``new_value`` (parsed), ``reason`` and the
        trial's keys (``order`` as int).

    Raises
    ------
    JudgmentsError
        An unknown column or field, a value off its scale, no session or
        participant, no order or item, no reason (file, line, column).
    """
    import csv
    import io

    from stecflow.judgments.corrections import CORRECTION_COLUMNS

    source = str(path)
    text = read_text(path, encoding=encoding)
    lines = [
        (n, line)
        for n, line in enumerate(text.split("\n"), start=1)
        if line.strip() and not line.lstrip().startswith("#")
    ]
    if not lines:
        return []
    delimiter = "\t" if "\t" in lines[0][1] else ","
    parsed = list(
        csv.reader(io.StringIO("\n".join(t for _, t in lines)), delimiter=delimiter)
    )
    header = [normalise_header(h) for h in parsed[0]]
    unknown = [h for h in header if h not in CORRECTION_COLUMNS]
    if unknown:
        raise JudgmentsError(
            f"unknown column {unknown[0]!r}; a corrections file has "
            + ", ".join(CORRECTION_COLUMNS),
            file=source,
            line=lines[0][0],
            field=unknown[0],
        )
    by_id = {c.id: c for c in criteria}
    fields = ["exclude", *(["preferred"] if task == "text_preference" else by_id)]
    out = []
    for (line, _), cells in zip(lines[1:], parsed[1:], strict=True):
        if len(cells) != len(header):
            raise JudgmentsError(
                f"{len(cells)} fields, the header has {len(header)}",
                file=source,
                line=line,
            )
        values = {h: clean_str(v) for h, v in zip(header, cells, strict=True)}
        name = values.get("field")
        if name not in fields:
            raise JudgmentsError(
                f"{name!r} cannot be corrected in a {task} study; use one of "
                + ", ".join(fields),
                file=source,
                line=line,
                field="field",
            )
        if not values.get("session") and not values.get("participant"):
            raise JudgmentsError(
                "give the session or the participant",
                file=source,
                line=line,
                field="session",
            )
        if not values.get("order") and not values.get("item"):
            raise JudgmentsError(
                "give the order or the item", file=source, line=line, field="order"
            )
        if not values.get("reason"):
            raise JudgmentsError(
                "give the reason for the correction",
                file=source,
                line=line,
                field="reason",
            )
        raw = values.get("new_value")
        try:
            order = parse_int(values.get("order") or "")
            if name == "exclude":
                if (raw or "").lower() != "true":
                    raise ValueError(f"{raw!r}; exclude takes new_value true")
                new_value: Any = True
            elif name == "preferred":
                if raw not in PREFERENCE_OUTCOMES:
                    raise ValueError(
                        f"{raw!r}; expected one of {', '.join(PREFERENCE_OUTCOMES)}"
                    )
                new_value = raw
            else:
                new_value = parse_number(raw or "")
                if new_value is not None:
                    by_id[name].check(new_value)
        except ValueError as exc:
            column = "order" if "whole number" in str(exc) and order is None else ""
            raise JudgmentsError(
                str(exc), file=source, line=line, field=column or "new_value"
            ) from None
        correction = TextCorrection(values)
        correction.update(line=line, field=name, new_value=new_value, order=order)
        out.append(correction)
    return out


def _matches(row: Mapping[str, Any], c: Mapping[str, Any]) -> bool:
    for key, column in (
        ("session", "session"),
        ("participant", "participant"),
        ("order", "order"),
        ("item", "item"),
    ):
        if c.get(key) is not None and row.get(column) != c[key]:
            return False
    system = c.get("system")
    if system is None:
        return True
    return system in (
        row.get("system"),
        row.get("system_left"),
        row.get("system_right"),
    )


def _apply_corrections(
    trials: list[dict[str, Any]],
    corrections: Sequence[Mapping[str, Any]],
    *,
    study: str,
    source: str,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Apply corrections in place; (report rows, quality rows)."""
    report, problems = [], []
    for c in corrections:
        if c.get("study") is not None and c["study"] != study:
            continue
        matches = [t for t in trials if _matches(t, c)]
        if len(matches) != 1:
            what = "no trial" if not matches else f"{len(matches)} trials"
            raise JudgmentsError(
                f"matches {what} of study {study}; give the session and the order",
                file=source,
                line=c["line"],
            )
        trial = matches[0]
        name = c["field"]
        if name == "exclude":
            old: Any = trial["excluded"]
            trial["excluded"] = True
        elif name == "preferred":
            old = trial["preferred"]
            trial["preferred"] = c["new_value"]
            trial["winner"] = _winner(trial)
        else:
            old = trial["ratings"].get(name)
            trial["ratings"][name] = c["new_value"]
        old_text = _plain_text(old)
        if c.get("old_value") is not None and not _same(c["old_value"], old):
            raise JudgmentsError(
                f"old_value {c['old_value']!r} is not the trial's value {old_text!r}",
                file=source,
                line=c["line"],
                field="old_value",
            )
        trial["corrected"] = True
        new_text = _plain_text(c["new_value"])
        problems.append(
            problem(
                "excluded_by_correction" if name == "exclude" else "corrected",
                f"{name}: {old_text or '(empty)'} -> {new_text or '(empty)'} "
                f"({c['reason']})",
                study=study,
                source_file=source,
                source_line=c["line"],
                session=trial["session"],
                subject=trial["subject"],
                list_id=trial["list"],
                order=trial["order"],
                item=trial["item"],
                system=trial.get("system"),
                field=name,
            )
        )
        report.append(
            {
                "corrections_line": c["line"],
                "file": source,
                "session": trial["session"],
                "subject": trial["subject"],
                "list": trial["list"],
                "order": trial["order"],
                "item": trial["item"],
                "field": name,
                "old_value": old_text,
                "new_value": new_text,
                "reason": c["reason"],
            }
        )
    return report, problems


def _same(expected: str, value: Any) -> bool:
    """Whether a correction's ``old_value`` is the trial's value (numbers by value)."""
    if isinstance(value, float):
        try:
            number = parse_number(expected)
        except ValueError:
            return False
        return number is not None and abs(number - value) < 1e-9
    return expected == _plain_text(value)


def _plain_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _winner(trial: Mapping[str, Any]) -> str | None:
    preferred = trial.get("preferred")
    if preferred == "left":
        return trial["system_left"]
    if preferred == "right":
        return trial["system_right"]
    return None


# ----------------------------------------------------------------------- merge


def _where(row: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "source_file": row.get("source_file"),
        "source_line": row.get("source_line"),
        "session": row.get("session"),
        "list_id": row.get("list"),
        "order": row.get("order"),
        "item": row.get("item"),
        "system": row.get("system")
        or (
            f"{row['system_left']} vs {row['system_right']}"
            if row.get("system_left")
            else None
        ),
    }


def _join(
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
            if task == "text_rating"
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
        if task == "text_rating":
            trial["system"] = d["system"]
            trial["control"] = d.get("control")  # kind of a control trial
            trial["ratings"] = dict(row["ratings"] or {})
        else:
            trial["system_left"] = d["system_left"]
            trial["system_right"] = d["system_right"]
            trial["preferred"] = row["preferred"]
            trial["winner"] = _winner(trial)
            trial["control"] = d.get("control")
            if trial["control"] and trial["preferred"] is not None:
                # expected: the intact text, not its degraded copy (nor a tie)
                trial["correct"] = trial["winner"] not in (None, _CONTROL)
        trials.append(trial)
    return trials, problems


def _sessions(
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


def _flags(
    trials: Sequence[dict[str, Any]],
    task: str,
    exclude_partial: bool,
    study: str,
) -> list[dict[str, Any]]:
    """Set ``in_analysis`` and ``exclusion_reason``; no_response problems."""
    problems = []
    for t in trials:
        reasons = []
        if t["excluded"]:
            reasons.append("correction")
        if t["import_problem"]:
            reasons.append("import_problem")
        if task == "text_rating":
            answered = any(v is not None for v in t["ratings"].values())
        else:
            answered = t["preferred"] is not None
        if not answered and not t["import_problem"]:
            reasons.append("no_response")
            problems.append(
                problem(
                    "no_response",
                    "no rating given"
                    if task == "text_rating"
                    else "no preference given; expected left, right or tie",
                    study=study,
                    source_file=t["source_file"],
                    source_line=t["source_line"],
                    session=t["session"],
                    subject=t["subject"],
                    list_id=t["list"],
                    order=t["order"],
                    item=t["item"],
                    system=t.get("system"),
                    field="preferred" if task == "text_preference" else None,
                )
            )
        if exclude_partial and t["partial_session"]:
            reasons.append("partial_session")
        if t.get("control"):  # a control trial never enters a system's measures
            reasons.append("control_trial")
        t["in_analysis"] = not reasons
        t["exclusion_reason"] = ", ".join(reasons) or None
    return problems


def _exclusions(
    trials: list[dict[str, Any]],
    design: Sequence[Mapping[str, Any]],
    study: Mapping[str, Any],
    criteria: Sequence[Criterion],
    sessions_path: str | Path | None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Apply the study's exclusion rules to *trials* (in place); (rules, audit).

    Every trial of a participant a rule excludes gets ``excluded`` true,
    ``in_analysis`` false and ``rule:<name>`` added to ``exclusion_reason``.
    """
    from stecflow.judgments.exclusions import (
        check_rules,
        excluded_by,
        exclusion_audit,
    )

    study_id = str(study.get("id") or "")
    rules = check_rules(study.get("exclusions"), study_id)
    if not rules:
        return [], []
    first = criteria[0].id if criteria else None
    for rule in rules:
        if "controls_below" in rule and not rule.get("measure"):
            rule["measure"] = first
    sizes = Counter(d["list"] for d in design if not d["practice"])
    session_rows: list[dict[str, Any]] = []
    if sessions_path is not None and Path(sessions_path).is_file():
        from stecflow.core.io import read_tsv

        session_rows = list(read_tsv(sessions_path))
    rows = [
        {
            **t,
            **(t.get("ratings") or {}),
            "participant": t.get("participant") or t["subject"],
            "practice": False,
            "rt_ms": t["time_ms"],
        }
        for t in trials
    ]
    audit = exclusion_audit(rows, rules, list_sizes=dict(sizes), sessions=session_rows)
    reasons = excluded_by(audit)
    for t, row in zip(trials, rows, strict=True):
        found = reasons.get(str(row["participant"]))
        if not found:
            continue
        t["excluded"] = True
        t["in_analysis"] = False
        old = [r for r in (t.get("exclusion_reason") or "").split(", ") if r]
        t["exclusion_reason"] = ", ".join(dict.fromkeys([*old, *found]))
    return rules, audit


def _subjects(rows: Sequence[dict[str, Any]], study: str) -> list[dict[str, Any]]:
    from stecflow.judgments.situated_study import _subjects as name_subjects

    return name_subjects(rows, study)


def _quality_key(row: Mapping[str, Any]) -> tuple[Any, ...]:
    from stecflow.judgments.situated_study import _quality_key as key

    return key(row)


def rating_measures(
    trials: Sequence[Mapping[str, Any]], criteria: Sequence[Criterion]
) -> list[dict[str, Any]]:
    """Per criterion and system: n, mean, SD, and for sliders the mean z-score.

    Parameters
    ----------
    trials : sequence of mapping
        The judgments rows (``subject``, ``system``, one key per criterion,
        ``in_analysis``); only trials in the analysis with a value count.
    criteria : sequence of Criterion
        The study's criteria, in the order of the output.

    Returns
    -------
    list of dict
        :data:`RATING_MEASURE_COLUMNS`, criteria in config order, systems by
        name. ``z_*`` are None for a Likert criterion.

    Examples
    --------
    >>> t = [{"subject": s, "system": y, "in_analysis": True, "a": v}
    ...      for s, y, v in [("s1", "A", 80), ("s1", "B", 40), ("s2", "A", 30),
    ...                      ("s2", "B", 10)]]
    >>> m = rating_measures(t, [Criterion("a", "slider")])
    >>> [(r["system"], r["mean"], round(r["z_mean"], 4)) for r in m]
    [('A', 55.0, 0.7071), ('B', 25.0, -0.7071)]
    """
    import statistics

    out = []
    for criterion in criteria:
        values = [
            (str(t["subject"]), str(t["system"]), float(t[criterion.id]))
            for t in trials
            if t.get("in_analysis") and not _missing(t.get(criterion.id))
        ]
        z: dict[int, float] = {}
        if criterion.scale == "slider":
            by_subject: dict[str, list[int]] = {}
            for n, (subject, _, _) in enumerate(values):
                by_subject.setdefault(subject, []).append(n)
            for indices in by_subject.values():
                xs = [values[i][2] for i in indices]
                if len(xs) < 2:
                    continue
                mean, sd = statistics.fmean(xs), statistics.stdev(xs)
                if sd == 0:
                    continue
                for i in indices:
                    z[i] = (values[i][2] - mean) / sd
        for system in sorted({v[1] for v in values}):
            rows = [n for n, v in enumerate(values) if v[1] == system]
            xs = [values[n][2] for n in rows]
            zs = [z[n] for n in rows if n in z]
            slider = criterion.scale == "slider"
            out.append(
                {
                    "criterion": criterion.id,
                    "scale": criterion.scale,
                    "system": system,
                    "n": len(xs),
                    "n_subjects": len({values[n][0] for n in rows}),
                    "mean": statistics.fmean(xs),
                    "sd": statistics.stdev(xs) if len(xs) > 1 else None,
                    "z_n": len(zs) if slider else None,
                    "z_mean": statistics.fmean(zs) if slider and zs else None,
                    "z_sd": statistics.stdev(zs) if slider and len(zs) > 1 else None,
                }
            )
    return out


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def preference_measures(
    trials: Sequence[Mapping[str, Any]],
    criterion: Criterion,
    *,
    confidence: float = 0.95,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
    """Per system win rates and Bradley-Terry strengths; pairwise win rates.

    Parameters
    ----------
    trials : sequence of mapping
        Judgments rows (``system_left``, ``system_right``, ``preferred``,
        ``in_analysis``); only trials in the analysis count.
    criterion : Criterion
        The study's criterion (its ID labels the rows).
    confidence : float
        Coverage of the Wilson intervals.

    Returns
    -------
    (measures, pairs, model)
        :data:`PREFERENCE_MEASURE_COLUMNS` rows (best Bradley-Terry rank
        first), :data:`stecflow.stats.preference.PAIR_COLUMNS` rows, and the
        model's facts (ties, log-likelihood, reference, whether computable).
    """
    import pandas as pd

    from stecflow.stats.preference import (
        bradley_terry,
        pairwise_preferences,
        preference_counts,
    )

    kept = [t for t in trials if t.get("in_analysis")]
    if not kept:
        return [], [], {"ties": "half", "computable": False, "reason": "no trials"}
    frame = pd.DataFrame(
        [
            {
                "system_left": t["system_left"],
                "system_right": t["system_right"],
                "preferred": t["preferred"],
            }
            for t in kept
        ]
    )
    counts = preference_counts(frame, confidence=confidence).set_index("system")
    bt = bradley_terry(frame).set_index("system")
    pairs = pairwise_preferences(frame, confidence=confidence)
    order = sorted(
        counts.index,
        key=lambda s: (
            bt.loc[s, "rank"] if bool(bt.loc[s, "computable"]) else 0,
            -counts.loc[s, "win_rate"],
            s,
        ),
    )
    out = []
    for system in order:
        c, b = counts.loc[system], bt.loc[system]
        fitted = bool(b["computable"])
        out.append(
            {
                "criterion": criterion.id,
                "system": system,
                "n": int(c["n"]),
                "wins": int(c["wins"]),
                "losses": int(c["losses"]),
                "ties": int(c["ties"]),
                "win_rate": float(c["win_rate"]),
                "ci_low": float(c["ci_low"]),
                "ci_high": float(c["ci_high"]),
                "bt_rank": int(b["rank"]) if fitted else None,
                "bt_strength": float(b["strength"]) if fitted else None,
                "bt_se": float(b["se"]) if fitted else None,
                "bt_worth": float(b["worth"]) if fitted else None,
                "bt_note": None if fitted else str(b["reason"]),
            }
        )
    first = bt.iloc[0]
    model = {
        "ties": "half",
        "computable": bool(first["computable"]),
        "reason": str(first["reason"]) or None,
        "log_likelihood": float(first["log_likelihood"])
        if bool(first["computable"])
        else None,
        "confidence": confidence,
    }
    pair_rows = [
        {k: (None if _missing(v) else v) for k, v in r.items()}
        for r in pairs.to_dict("records")
    ]
    return out, pair_rows, model


def merge_text_study(
    design_path: str | Path,
    responses: Sequence[str | Path],
    corrections: str | Path | Sequence[str | Path] | None,
    judgments_path: str | Path,
    quality_path: str | Path,
    measures_path: str | Path,
    summary_path: str | Path,
    *,
    study: Mapping[str, Any],
    settings: Mapping[str, Any] | None = None,
    pseudonym_key: str | None = None,
    exclusions_path: str | Path | None = None,
    sessions_path: str | Path | None = None,
    withdrawals: Sequence[str | Path] = (),
) -> dict[str, Any]:
    """Merge a text study's responses with its design and write its four files.

    Parameters
    ----------
    design_path : path
        ``results/studies/<study>/design.tsv`` (:func:`read_text_design`).
    responses : sequence of paths
        Response files (exports, offline files, simulated files), read in sorted
        order. Empty: the tables are written without rows and the summary says
        ``awaiting_responses``.
    corrections : path or sequence of paths, optional
        Corrections files (:func:`read_text_corrections`), applied in order.
    judgments_path, quality_path, measures_path, summary_path : path
        Outputs: :func:`judgment_columns`,
        :data:`~stecflow.judgments._common.QUALITY_COLUMNS`,
        :data:`RATING_MEASURE_COLUMNS` or :data:`PREFERENCE_MEASURE_COLUMNS`,
        and the JSON summary.
    study : mapping
        The study's config entry: ``id``, ``task`` (``text_rating`` or
        ``text_preference``), ``criteria`` and ``normalise`` (``z``: every
        criterion gains a ``<criterion>_z`` column of per-rater z-scores,
        :mod:`stecflow.judgments.normalise`) and ``exclusions`` (the rules of
        :mod:`stecflow.judgments.exclusions`; a rule's ``measure`` defaults to
        the first criterion).
    settings : mapping, optional
        The config's ``judgments`` mapping: ``encoding``, ``strict`` and
        ``exclude_partial_sessions`` (default false) are used.
    pseudonym_key : str, optional
        The release key the summary's pseudonyms are keyed with
        (:mod:`stecflow.judgments.public`); default: the study's ID.
    exclusions_path : path, optional
        The audit of the exclusion rules
        (``results/judgments/exclusions/<study>.tsv``,
        :data:`~stecflow.judgments.exclusions.AUDIT_COLUMNS`), written even
        without rules (header only). Every trial of an excluded participant
        stays in the judgments table with ``excluded`` true, ``in_analysis``
        false and ``rule:<name>`` in ``exclusion_reason``.
    sessions_path : path, optional
        The session table (``results/judgments/sessions/<study>.tsv``), for
        rules on questionnaire answers.
    withdrawals : sequence of paths
        The study's withdrawals files (:mod:`stecflow.judgments.withdrawals`):
        the rows of a participant who withdrew are left out of every table;
        the summary counts them (``withdrawals``, ``counts.withdrawn``).

    Returns
    -------
    dict
        The summary written to *summary_path*.

    Raises
    ------
    JudgmentsError
        A file cannot be read as a whole, a correction does not apply, or the
        study's criteria are invalid.
    """
    from stecflow.core.io import write_json, write_tsv
    from stecflow.judgments.importers.text import read_text_responses
    from stecflow.judgments.withdrawals import drop_withdrawn

    config = dict(settings or {})
    encoding = config.get("encoding")
    strict = bool(config.get("strict", False))
    exclude_partial = bool(config.get("exclude_partial_sessions", False))
    study_id = str(study.get("id") or "")
    task = str(study.get("task"))
    criteria = criteria_from_config(study.get("criteria"), task)
    _check_criteria(task, criteria)
    design = read_text_design(design_path, task)
    named = sorted({d["study"] for d in design if d.get("study")})
    if named and named != [study_id]:
        raise JudgmentsError(
            f"the design is of study {', '.join(named)}; expected {study_id}",
            file=str(design_path),
            field="study",
        )

    rows: list[dict[str, Any]] = []
    problems: list[dict[str, Any]] = []
    sources = []
    for path in sorted(str(p) for p in responses):
        result = read_text_responses(
            path,
            task=task,
            criteria=criteria,
            study=study_id,
            encoding=encoding,
            strict=strict,
        )
        rows.extend(result.rows)
        problems.extend(result.problems)
        sources.append(
            {"file": path, "format": result.source_format, "rows": len(result.rows)}
        )
    rows, problems, withdrawal = drop_withdrawn(
        rows,
        problems,
        withdrawals,
        study_id if pseudonym_key is None else pseudonym_key,
    )
    usable = [r for r in rows if r["session"] is not None]
    problems.extend(_subjects(usable, study_id))
    trials, found = _join(usable, design, task, study_id)
    problems.extend(found)

    if corrections is None:
        correction_files: list[str] = []
    elif isinstance(corrections, str | Path):
        correction_files = [str(corrections)]
    else:
        correction_files = [str(p) for p in corrections]
    report: list[dict[str, Any]] = []
    for path in correction_files:
        applied, found = _apply_corrections(
            trials,
            read_text_corrections(
                path, task=task, criteria=criteria, encoding=encoding
            ),
            study=study_id,
            source=path,
        )
        report.extend(applied)
        problems.extend(found)

    sessions, found = _sessions(trials, design, study_id)
    problems.extend(found)
    for t in trials:
        t["partial_session"] = sessions[t["session"]]["partial"]
    problems.extend(_flags(trials, task, exclude_partial, study_id))
    rules, audit = _exclusions(trials, design, study, criteria, sessions_path)
    if exclusions_path is not None:
        from stecflow.judgments.exclusions import write_audit

        write_audit(audit, exclusions_path)
    trials.sort(key=lambda t: (t["subject"], t["session"], t["order"]))

    columns = judgment_columns(task, criteria)
    table = []
    for t in trials:
        row = {c: t.get(c) for c in columns}
        if task == "text_rating":
            row.update(t["ratings"])
        table.append(row)
    if task == "text_rating" and study.get("normalise"):
        from stecflow.judgments.normalise import add_z_scores

        columns += add_z_scores(
            table, [c.id for c in criteria], normalise=study.get("normalise")
        )
    pairs: list[dict[str, Any]] = []
    model: dict[str, Any] | None = None
    if task == "text_rating":
        measure_rows = rating_measures(table, criteria)
        measure_columns = RATING_MEASURE_COLUMNS
    else:
        measure_rows, pairs, model = preference_measures(table, criteria[0])
        measure_columns = PREFERENCE_MEASURE_COLUMNS

    for p in problems:
        p["study"] = p.get("study") or study_id
    problems.sort(key=_quality_key)
    by_check = Counter(p["check"] for p in problems)
    test_design = [d for d in design if not d["practice"]]
    summary = {
        "study": study_id,
        "task": task,
        "simulated": bool(table) and all(r["simulated"] for r in table),
        "awaiting_responses": not responses,
        "withdrawals": withdrawal,
        "criteria": [
            {
                "id": c.id,
                "scale": c.scale,
                "points": c.points,
                **({"allow_tie": c.allow_tie} if task == "text_preference" else {}),
            }
            for c in criteria
        ],
        "counts": {
            "rows": len(rows),
            "withdrawn": withdrawal["withdrawn"],
            "sessions": len(sessions),
            "subjects": len({i["subject"] for i in sessions.values()}),
            "lists_in_design": len({d["list"] for d in test_design}),
            "lists_run": len({i["list"] for i in sessions.values()}),
            "design_test_trials": len(test_design),
            "trials": len(table),
            "in_analysis": sum(1 for r in table if r["in_analysis"]),
            "excluded": sum(1 for r in table if r["excluded"]),
            "controls": sum(1 for r in table if r.get("control")),
            "corrected": sum(1 for r in table if r["corrected"]),
            "duplicates": by_check.get("duplicate", 0),
            "timeouts": 0,
            "partial_sessions": sum(1 for i in sessions.values() if i["partial"]),
            "missing_trials": sum(i["n_missing"] for i in sessions.values()),
            "simulated_rows": sum(1 for r in table if r["simulated"]),
        },
        "sources": sources,
        "sessions": dict(sorted(sessions.items())),
        "quality": {"by_check": dict(sorted(by_check.items()))},
        "corrections": {
            "files": correction_files,
            "applied": len(report),
            "report": report,
        },
        "measures": measure_rows,
        "settings": {
            "exclude_partial_sessions": exclude_partial,
            "z_scores": "per evaluator and criterion, SD with n - 1 (sliders)",
            **({"preference": model} if model is not None else {}),
        },
    }
    if rules:  # the rules and who they excluded, for the report
        summary["exclusions"] = {
            "rules": rules,
            "excluded_participants": sorted(
                {str(r["participant"]) for r in audit if r["excluded"]}
            ),
            "audit": audit,
        }
    if task == "text_preference":
        summary["pairs"] = pairs
        # how often each side won: a check of position bias (the design
        # counterbalances the sides; a large imbalance is worth a look)
        summary["sides"] = dict(
            sorted(
                Counter(str(r["preferred"]) for r in table if r["in_analysis"]).items()
            )
        )
    write_tsv(table, columns, judgments_path)
    from stecflow.judgments.public import public_quality

    # the same pseudonyms as the summary (released and reported as it is)
    write_tsv(
        public_quality(
            problems,
            study_id if pseudonym_key is None else str(pseudonym_key),
            table,
        ),
        QUALITY_COLUMNS,
        quality_path,
    )
    write_tsv(measure_rows, measure_columns, measures_path)
    from stecflow.judgments.public import public_summary

    # no raw participant or session ID, no absolute path (released as it is)
    summary = public_summary(
        summary, study_id if pseudonym_key is None else str(pseudonym_key)
    )
    write_json(summary, summary_path)
    logger.info(
        "text study %s (%s): %d trial(s), %d in the analysis, %d problem(s)",
        study_id,
        task,
        len(table),
        summary["counts"]["in_analysis"],
        len(problems),
    )
    return summary


# -------------------------------------------------------------------- simulation


def _read_jsonl(path: str | Path, what: str) -> list[tuple[int, dict[str, Any]]]:
    import json

    source = str(path)
    out = []
    for n, line in enumerate(read_text(path).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise JudgmentsError(
                f"not JSON ({exc}); expected one {what} object per line",
                file=source,
                line=n,
            ) from None
        if not isinstance(value, dict) or not isinstance(value.get("id"), str):
            raise JudgmentsError(
                f"expected a JSON object with a string id ({what})",
                file=source,
                line=n,
                field="id",
            )
        out.append((n, value))
    return out


def _outputs(
    outputs: Mapping[str, str | Path | Mapping[str, str]],
) -> dict[tuple[str, str], str | None]:
    found: dict[tuple[str, str], str | None] = {}
    for system, value in outputs.items():
        if isinstance(value, Mapping):
            for item, text in value.items():
                found[(system, str(item))] = text
            continue
        for n, entry in _read_jsonl(value, "output"):
            text = entry.get("output")
            if text is not None and not isinstance(text, str):
                raise JudgmentsError(
                    "output must be a string", file=str(value), line=n, field="output"
                )
            found[(system, entry["id"])] = text
    return found


def simulate_text_study(
    design_path: str | Path,
    testset_path: str | Path,
    outputs: Mapping[str, str | Path | Mapping[str, str]],
    out_path: str | Path,
    *,
    study: Mapping[str, Any],
    seed: int,
    settings: Mapping[str, Any] | None = None,
) -> int:
    """Answer a text study's design with simulated evaluators; write a response file.

    One simulated evaluator per list (``sim-<list>``, participant and session)
    answers the list's test trials
    (:func:`stecflow.judgments.text_sim.simulate_text_answers`). The file has the
    columns of a text export
    (:func:`~stecflow.judgments.importers.text.text_response_columns`) and then
    ``simulated`` (true in every row); ``rt_ms`` holds the answer time and
    ``session_status`` is ``completed``.

    Parameters
    ----------
    design_path : path
        ``results/studies/<study>/design.tsv``.
    testset_path : path
        The prepared test set, ``results/data/testset.jsonl`` (``id`` and
        ``input`` per line).
    outputs : mapping
        System (as the design names it) -> its outputs: a JSON Lines file of
        ``{"id", "output"}`` or a mapping item ID -> text.
    out_path : path
        The TSV to write (``results/judgments/simulated/<study>.tsv``).
    study : mapping
        The study's config entry (``id``, ``task``, ``criteria``).
    seed : int
        The study seed.
    settings : mapping, optional
        The config's ``judgments.simulation``; the keys of
        :class:`~stecflow.judgments.text_sim.TextSimulationSettings` are used.

    Returns
    -------
    int
        The number of rows written.
    """
    from stecflow.core.io import write_tsv
    from stecflow.judgments.importers.text import text_response_columns
    from stecflow.judgments.text_sim import (
        TextSimulationSettings,
        simulate_text_answers,
    )

    task = str(study.get("task"))
    study_id = str(study.get("id") or "")
    criteria = criteria_from_config(study.get("criteria"), task)
    design = [d for d in read_text_design(design_path, task) if not d["practice"]]
    inputs = {e["id"]: e.get("input") for _, e in _read_jsonl(testset_path, "item")}
    answers = simulate_text_answers(
        design,
        task=task,
        criteria=criteria,
        inputs=inputs,
        outputs=_outputs(outputs),
        seed=seed,
        study=study_id,
        settings=TextSimulationSettings.from_mapping(settings),
    )
    rows = []
    for a in answers:
        row = {
            "study": study_id,
            "task": task,
            "session": a["subject"],
            "participant": a["subject"],
            "session_status": "completed",
            "list": a["list"],
            "order": a["order"],
            "item": a["item"],
            "practice": False,
            "filler": False,
            "rt_ms": a["time_ms"],
            "simulated": True,
        }
        if task == "text_rating":
            row["system"] = a["system"]
            row.update({f"rating_{k}": v for k, v in a["ratings"].items()})
        else:
            row.update(
                {
                    k: a[k]
                    for k in (
                        "system_left",
                        "system_right",
                        "preferred",
                        "chosen_system",
                    )
                }
            )
        rows.append(row)
    rows.sort(key=lambda r: (r["list"], r["order"]))
    write_tsv(rows, (*text_response_columns(task, criteria), "simulated"), out_path)
    logger.info("study %s: %d SIMULATED %s trial(s) written", study_id, len(rows), task)
    return len(rows)


def merge_job(job: MergeJob) -> None:
    """The text kinds' ``merge`` hook: :func:`merge_text_study` on a job's files."""
    merge_text_study(
        job.design,
        job.responses,
        list(job.corrections),
        job.judgments,
        job.quality,
        job.measures,
        job.summary,
        study=job.spec,
        settings=job.settings,
        pseudonym_key=job.pseudonym_key,
        exclusions_path=job.exclusions,
        sessions_path=job.sessions,
        withdrawals=list(job.withdrawals),
    )


def simulate_job(job: SimulationJob) -> None:
    """The text kinds' ``simulate`` hook: :func:`simulate_text_study` on the
    texts the study shows (:func:`stecflow.studies.setup.study_outputs`)."""
    from stecflow.studies.setup import study_outputs
    from stecflow.tasks.registry import read_testset

    items = read_testset(job.testset)
    simulate_text_study(
        job.design,
        job.testset,
        study_outputs(job.spec, items, job.submission_dirs, job.tasks),
        job.responses,
        study=job.spec,
        seed=job.seed,
        settings=job.settings,
    )

"""Map imported responses back to the study design and check the data.

:func:`merge_with_design` takes the import table (:data:`IMPORT_COLUMNS`, from
:mod:`stecflow.judgments.importers`) and the study's design table
(:data:`stecflow.studies.designs.TRIAL_COLUMNS`, ``results/studies/<study>/design.tsv``)
and returns one row per trial with the columns :data:`JUDGMENT_COLUMNS`, plus the
rows of the data-quality table (:data:`QUALITY_COLUMNS`) for everything it found.
The design is read and looked up by :mod:`stecflow.judgments.design`; which merged
trials enter the analyses is decided afterwards by
:func:`stecflow.judgments.flags.analysis_flags`.

How a session is placed in the design
-------------------------------------
A *session* is one run of one participant through one list (the server's session
ID; for DMDX ``<list>-s<subject number>``; for a generic CSV the ``session`` or
else the ``participant`` column). Its list is the ``list`` its rows record. A row
matches a design trial of that list by ``order`` (checking ``item`` and
``system`` when the row has them) or, without an order, by ``item`` and
``system`` (and the row's ``practice`` and ``filler`` flags, when it has them).
When several trials of the list show the same item and system (seed 003
completed its last square with filler copies of items, so a list may show an
item by a system once as a test trial and once as a filler), the session's rows
for that pair take the trials in list order, the first row (in file and line
order, i.e. the order the answers were given) the first trial, provided there
are exactly as many rows as trials. Then:

* If most of a session's identifiable rows do not match its recorded list but
  one other list matches at least half of them and more than any other, the
  participant was given the wrong list: the session is moved to that list
  (check ``wrong_list``, a warning).
* A recorded list that is not in the design, with no list that the trials fit,
  is ``unknown_list``; a session with no list and no list that fits is
  ``unknown_subject``. Their rows are kept and left out of the analyses.
* A row that matches no trial of the list is ``not_in_design``; a row whose
  order exists but whose item or system differ is ``design_mismatch``; a row
  without an order that fits several trials, when the number of such rows
  differs from the number of trials (one answer missing, or more answers than
  trials), is ``ambiguous_trial`` (an error naming file and line: give the
  order to tell them apart).
* A second copy of a trial in one session is a ``duplicate`` (the first copy,
  in file and line order, is kept).
* Test trials of the list never answered are reported per session
  (``missing_trials``), and the session is flagged ``partial_session`` (so are
  sessions whose status is ``in_progress``, ``abandoned`` or ``aborted``);
  partial sessions are kept in the analyses unless
  ``exclude_partial_sessions`` is set.
* Lists nobody did (``list_not_run``), lists done more than once
  (``list_repeated``) and participants with several sessions
  (``subject_multiple_sessions``) are reported.

The design is authoritative for list, subject slot, group, item, system,
subdomain, practice and filler; the test set gives each item's condition and
target. ``correct`` is recomputed as ``chosen_entity == target`` whenever the
chosen entity is known (``correct_mismatch`` reports disagreement with the
recorded value).
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from stecflow.judgments._common import (
    JUDGMENT_COLUMNS,
    JudgmentsError,
    plain,
    problem,
)
from stecflow.judgments.design import DesignIndex, design_frame
from stecflow.judgments.flags import trial_choice
from stecflow.studykinds.registry import identifies, in_family, names_where

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from stecflow.data.model import Item

__all__ = ["MergeOutcome", "merge_with_design"]

logger = logging.getLogger(__name__)

_PARTIAL_STATUS = ("in_progress", "abandoned", "aborted")


@dataclass
class MergeOutcome:
    """The merged trials and what the checks found.

    Attributes
    ----------
    trials : pandas.DataFrame
        One row per imported trial, columns :data:`JUDGMENT_COLUMNS` (outlier and
        analysis flags still at their defaults; see
        :func:`~stecflow.judgments.flags.analysis_flags`).
    problems : list of dict
        Rows of the data-quality table.
    task : str
        ``rating`` or ``identification``.
    sessions : dict
        Session -> ``{"list", "subject", "status", "partial", "missing"}``.
    """

    trials: pd.DataFrame
    problems: list[dict[str, Any]]
    task: str
    sessions: dict[str, dict[str, Any]]


def _records(responses: Any) -> list[dict[str, Any]]:
    if hasattr(responses, "to_dict"):
        rows = responses.to_dict("records")
    else:
        rows = [dict(r) for r in responses]
    out = []
    for row in rows:
        clean = {k: plain(v) for k, v in row.items()}
        out.append(clean)
    return out


def _place_session(
    session: str,
    rows: list[dict[str, Any]],
    design: DesignIndex,
    study: str,
    problems: list[dict[str, Any]],
) -> str | None:
    """Decide the list of one session (see the module docstring)."""
    first = rows[0]
    where = {
        "study": study,
        "source_file": first["source_file"],
        "source_line": first["source_line"],
        "session": session,
        "subject": first["participant"] or session,
    }
    recorded = Counter(r["list"] for r in rows if r["list"] is not None)
    declared = None
    if recorded:
        declared = sorted(recorded.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        if len(recorded) > 1:
            problems.append(
                problem(
                    "inconsistent_list",
                    f"rows record lists {', '.join(sorted(recorded))}; using "
                    f"{declared}",
                    list_id=declared,
                    **where,
                )
            )
    with_items = [r for r in rows if r["item"] is not None]
    if declared in design.trials and 2 * design.score(with_items, declared) >= len(
        with_items
    ):
        return declared  # the usual case: no need to try the other lists
    scores = {lst: design.score(with_items, lst) for lst in design.lists}
    best = max(scores.values(), default=0)
    leaders = [lst for lst, s in scores.items() if s == best and best > 0]
    candidate = (
        leaders[0] if len(leaders) == 1 and 2 * best >= len(with_items) else None
    )
    if declared in design.trials:
        own = scores[declared]
        if (
            with_items
            and candidate is not None
            and candidate != declared
            and 2 * own < len(with_items)
        ):
            problems.append(
                problem(
                    "wrong_list",
                    f"recorded on list {declared}, but {best} of {len(with_items)} "
                    f"trials are those of list {candidate} ({own} fit {declared}); "
                    f"assigned to {candidate}",
                    list_id=candidate,
                    **where,
                )
            )
            return candidate
        return declared
    if candidate is not None:
        if declared is not None:
            problems.append(
                problem(
                    "wrong_list",
                    f"list {declared} is not in the design, but {best} of "
                    f"{len(with_items)} trials are those of list {candidate}; "
                    f"assigned to {candidate}",
                    list_id=candidate,
                    **where,
                )
            )
        elif len(leaders) == 1 and best < len(with_items):
            pass  # the rows that do not fit are reported as not_in_design
        return candidate
    if declared is not None:
        problems.append(
            problem(
                "unknown_list",
                f"list {declared} is not in the design (lists "
                f"{_span(design.lists)}) and the trials fit no list; "
                f"{len(rows)} row(s) left out",
                list_id=declared,
                **where,
            )
        )
    else:
        detail = (
            "no list recorded and the trials fit no single list of the design"
            if len(leaders) != 1
            else "no list recorded and too few trials fit one list"
        )
        problems.append(
            problem(
                "unknown_subject", f"{detail}; {len(rows)} row(s) left out", **where
            )
        )
    return None


def _span(values: Sequence[str]) -> str:
    if len(values) <= 4:
        return ", ".join(values)
    return f"{values[0]}, {values[1]}, ..., {values[-1]}"


def _orders_text(orders: Iterable[int]) -> str:
    """Compress orders: ``1-3, 7``.

    >>> _orders_text([7, 1, 2, 3])
    '1-3, 7'
    """
    ordered = sorted(orders)
    parts: list[str] = []
    start = prev = None
    for o in ordered:
        if start is None:
            start = prev = o
        elif prev is not None and o == prev + 1:
            prev = o
        else:
            parts.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = prev = o
    if start is not None:
        parts.append(f"{start}" if start == prev else f"{start}-{prev}")
    return ", ".join(parts)


def _determine_task(rows: list[dict[str, Any]], task: str | None) -> str:
    if task is not None:
        if task not in in_family("grid"):
            raise JudgmentsError(
                f"task {task!r} is not {' or '.join(in_family('grid'))}", field="task"
            )
        return task
    tasks = Counter(r["task"] for r in rows if r.get("task"))
    if tasks:
        return sorted(tasks.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    rated = sum(1 for r in rows if r.get("adequacy") is not None)
    judged, found = (
        names_where(lambda kind: kind.family == "grid" and not kind.identifies)[0],
        names_where(lambda kind: kind.family == "grid" and kind.identifies)[0],
    )
    return judged if rated * 2 > len(rows) else found


def merge_with_design(
    responses: Any,
    design: Any,
    *,
    study: str,
    items: Mapping[str, Item] | Iterable[Item] | None = None,
    task: str | None = None,
    variant: str | None = None,
) -> MergeOutcome:
    """Map every imported trial to the design and run the checks.

    Parameters
    ----------
    responses : DataFrame or iterable of dict
        The import table (:data:`IMPORT_COLUMNS`), e.g. from several files.
    design : Design or DataFrame
        The study design (:func:`~stecflow.judgments.design.design_frame`
        normalises it).
    study : str
        The study ID; rows recording another study are left out (``other_study``).
    items : mapping or iterable of Item, optional
        The test set (and practice items), for conditions and targets.
    task : {"rating", "identification"}, optional
        Default: the rows' ``task`` (most common), else guessed from the data.
    variant : str, optional
        Default: the rows' ``variant``.

    Returns
    -------
    MergeOutcome
        Trials sorted by list, session, order, file and line.

    Examples
    --------
    >>> import pandas as pd
    >>> design = pd.DataFrame({"list": ["L01", "L01"], "order": [1, 2],
    ...                        "item": ["t1", "t2"], "system": ["A", "B"]})
    >>> rows = [{"session": "s1", "list": "L01", "order": 1, "adequacy": 80.0,
    ...          "fluency": 70.0}]
    >>> out = merge_with_design(rows, design, study="r1", task="rating")
    >>> out.trials.loc[0, ["item", "system"]].tolist()  # from the design
    ['t1', 'A']
    >>> [p["check"] for p in out.problems]
    ['missing_trials', 'partial_session']
    """
    import pandas as pd

    design_table = design_frame(design)
    layout = DesignIndex(design_table)
    by_item: dict[str, Item] = {}
    if items is not None:
        values = items.values() if isinstance(items, Mapping) else items
        for item in values:
            by_item.setdefault(item.id, item)
    rows = _records(responses)
    for row in rows:
        for key in ("source_file", "source_line", "participant", "list", "item"):
            row.setdefault(key, None)
        for key in (
            "study", "session", "system", "order", "chosen_entity", "target_entity",
            "correct", "cant_tell", "timeout", "aborted", "import_problem",
            "session_status", "simulated", "source_format", "task", "variant",
        ):  # fmt: skip
            row.setdefault(key, None)
    task = _determine_task(rows, task)
    if variant is None:
        variants = Counter(r["variant"] for r in rows if r.get("variant"))
        variant = min(variants, key=lambda v: (-variants[v], v)) if variants else None
    problems: list[dict[str, Any]] = []

    rows.sort(key=lambda r: (str(r["source_file"] or ""), r["source_line"] or 0))
    sessions: dict[str, list[dict[str, Any]]] = defaultdict(list)
    out_rows: list[dict[str, Any]] = []
    for row in rows:
        reasons: list[str] = []
        row["_reasons"] = reasons
        if row["import_problem"]:
            reasons.append("import_problem")
        if row["study"] is not None and row["study"] != study:
            reasons.append("other_study")
            problems.append(
                problem(
                    "other_study",
                    f"row of study {row['study']}, not {study}",
                    study=study,
                    source_file=row["source_file"],
                    source_line=row["source_line"],
                    session=row["session"],
                )
            )
            out_rows.append(row)
            continue
        if row["session"] is None:
            out_rows.append(row)
            continue
        sessions[row["session"]].append(row)

    session_info: dict[str, dict[str, Any]] = {}
    for session in sorted(sessions):
        srows = sessions[session]
        assigned = _place_session(session, srows, layout, study, problems)
        subject = next((r["participant"] for r in srows if r["participant"]), session)
        seen: dict[int, dict[str, Any]] = {}
        resolved = layout.resolve(srows, assigned) if assigned is not None else {}
        for row in srows:
            row["subject"] = subject
            if assigned is None:
                row["_reasons"].append(
                    "unknown_list" if row["list"] is not None else "unknown_subject"
                )
                out_rows.append(row)
                continue
            order, status, candidates = resolved[id(row)]
            where = {
                "study": study,
                "source_file": row["source_file"],
                "source_line": row["source_line"],
                "session": session,
                "subject": subject,
                "list_id": assigned,
            }
            if status == "ambiguous":
                row["_reasons"].append("ambiguous_trial")
                problems.append(
                    problem(
                        "ambiguous_trial",
                        _ambiguity(
                            row,
                            candidates,
                            layout.trials[assigned],
                            sum(
                                1
                                for r in resolved.values()
                                if r[1] == "ambiguous" and r[2] == candidates
                            ),
                        ),
                        item=row["item"],
                        system=row["system"],
                        **where,
                    )
                )
                row["list"] = assigned
                out_rows.append(row)
                continue
            if status == "missing":
                row["_reasons"].append("not_in_design")
                problems.append(
                    problem(
                        "not_in_design",
                        f"no trial of list {assigned} has "
                        + _identity(row)
                        + "; left out",
                        order=row["order"],
                        item=row["item"],
                        system=row["system"],
                        **where,
                    )
                )
                row["list"] = assigned
                out_rows.append(row)
                continue
            assert order is not None
            trial = layout.trials[assigned][order]
            if status == "mismatch":
                row["_reasons"].append("design_mismatch")
                problems.append(
                    problem(
                        "design_mismatch",
                        f"trial {order} of list {assigned} is item {trial['item']} "
                        f"by {trial.get('system')}, the row says {_identity(row)}; "
                        "left out",
                        order=order,
                        item=row["item"],
                        system=row["system"],
                        **where,
                    )
                )
                row["list"] = assigned
                out_rows.append(row)
                continue
            for key in ("item", "system", "subdomain", "practice", "filler"):
                row[key] = trial.get(key) if key in trial else row.get(key)
            row["list"], row["order"] = assigned, order
            row["subject_slot"] = trial.get("subject_slot")
            row["group"] = trial.get("group")
            row["item_set"] = trial.get("item_set")
            row["control"] = trial.get("control")
            if order in seen:
                row["_reasons"].append("duplicate")
                row["duplicate"] = True
                first = seen[order]
                problems.append(
                    problem(
                        "duplicate",
                        f"trial {order} answered again (first at "
                        f"{first['source_file']}, line {first['source_line']}); "
                        "the first answer is kept",
                        order=order,
                        item=row["item"],
                        system=row["system"],
                        **where,
                    )
                )
            else:
                seen[order] = row
            out_rows.append(row)
        info: dict[str, Any] = {
            "list": assigned,
            "subject": subject,
            "missing": [],
            "partial": False,
        }
        statuses = Counter(r["session_status"] for r in srows if r["session_status"])
        status_value = (
            min(statuses, key=lambda s: (-statuses[s], s)) if statuses else None
        )
        info["status"] = status_value
        if assigned is not None:
            expected = {
                o for o, t in layout.trials[assigned].items() if not t["practice"]
            }
            missing = sorted(expected - set(seen))
            info["missing"] = missing
            where = {
                "study": study,
                "source_file": srows[0]["source_file"],
                "session": session,
                "subject": subject,
                "list_id": assigned,
            }
            if missing:
                problems.append(
                    problem(
                        "missing_trials",
                        f"{len(missing)} of {len(expected)} test trials of list "
                        f"{assigned} not answered (orders {_orders_text(missing)})",
                        **where,
                    )
                )
            if missing or status_value in _PARTIAL_STATUS:
                info["partial"] = True
                problems.append(
                    problem(
                        "partial_session",
                        f"session status {status_value or 'unknown'}, "
                        f"{len(expected) - len(missing)} of {len(expected)} test "
                        "trials answered; kept and flagged",
                        **where,
                    )
                )
        session_info[session] = info

    by_list: dict[str, list[str]] = defaultdict(list)
    by_subject: dict[str, list[str]] = defaultdict(list)
    for session, info in session_info.items():
        if info["list"] is not None:
            by_list[info["list"]].append(session)
        participant = next(
            (r["participant"] for r in sessions[session] if r["participant"]), None
        )
        if participant is not None:
            by_subject[participant].append(session)
    for list_id in layout.lists:
        if list_id not in by_list:
            problems.append(
                problem(
                    "list_not_run",
                    f"no session did list {list_id}",
                    study=study,
                    list_id=list_id,
                )
            )
        elif len(by_list[list_id]) > 1:
            problems.append(
                problem(
                    "list_repeated",
                    f"{len(by_list[list_id])} sessions did list {list_id}: "
                    + ", ".join(sorted(by_list[list_id])),
                    study=study,
                    list_id=list_id,
                )
            )
    for participant, names in sorted(by_subject.items()):
        if len(names) > 1:
            problems.append(
                problem(
                    "subject_multiple_sessions",
                    f"participant {participant} has {len(names)} sessions: "
                    + ", ".join(sorted(names)),
                    study=study,
                    subject=participant,
                )
            )

    reported_items: set[str] = set()
    records = []
    for row in out_rows:
        records.append(
            _finish_row(
                row,
                study,
                task,
                variant,
                by_item,
                session_info,
                problems,
                reported_items,
            )
        )
    records.sort(key=_sort_key)
    trials = pd.DataFrame(records, columns=list(JUDGMENT_COLUMNS), dtype=object)
    logger.info(
        "study %s: %d row(s), %d session(s), %d problem(s)",
        study,
        len(trials),
        len(session_info),
        len(problems),
    )
    return MergeOutcome(trials, problems, task, session_info)


def _ambiguity(
    row: Mapping[str, Any],
    candidates: Sequence[int],
    trials: Mapping[int, Mapping[str, Any]],
    n_rows: int,
) -> str:
    """The detail of an ``ambiguous_trial`` problem (file, line, trials, remedy)."""
    kinds = []
    for order in candidates:
        trial = trials[order]
        kind = "practice" if trial["practice"] else "filler" if trial["filler"] else ""
        kinds.append(f"{order} ({kind})" if kind else str(order))
    return (
        f"{row['source_file']}, line {row['source_line']}: {_identity(row)} is "
        f"shown by trials {', '.join(kinds)} of the list, and the session has "
        f"{n_rows} row(s) without an order for them, so which answer belongs to which "
        "trial is unknown; left out. Give the order column (or filler) to tell "
        "them apart"
    )


def _identity(row: Mapping[str, Any]) -> str:
    parts = []
    if row.get("order") is not None:
        parts.append(f"order {row['order']}")
    if row.get("item") is not None:
        parts.append(f"item {row['item']}")
    if row.get("system") is not None:
        parts.append(f"system {row['system']}")
    return ", ".join(parts) or "no order or item"


def _sort_key(row: Mapping[str, Any]) -> tuple[Any, ...]:
    return (
        row["list"] is None,
        row["list"] or "",
        row["session"] or "",
        row["order"] if row["order"] is not None else 1 << 30,
        row["source_file"] or "",
        row["source_line"] or 0,
    )


def _finish_row(
    row: dict[str, Any],
    study: str,
    task: str,
    variant: str | None,
    by_item: Mapping[str, Item],
    session_info: Mapping[str, Mapping[str, Any]],
    problems: list[dict[str, Any]],
    reported_items: set[str],
) -> dict[str, Any]:
    reasons: list[str] = row.pop("_reasons")
    out: dict[str, Any] = dict.fromkeys(JUDGMENT_COLUMNS)
    for key in JUDGMENT_COLUMNS:
        if key in row:
            out[key] = row[key]
    out["study"] = study
    out["task"] = task
    out["variant"] = row.get("variant") or variant
    out["subject"] = row.get("subject") or row.get("participant") or row.get("session")
    for flag in ("practice", "filler", "simulated", "aborted", "duplicate"):
        out[flag] = bool(row.get(flag))
    out["corrected"] = False
    info = session_info.get(row.get("session") or "")
    out["partial_session"] = bool(info and info["partial"])
    where = {
        "study": study,
        "source_file": row.get("source_file"),
        "source_line": row.get("source_line"),
        "session": row.get("session"),
        "subject": out["subject"],
        "list_id": out["list"],
        "order": out["order"],
        "item": out["item"],
        "system": out["system"],
    }
    item = by_item.get(out["item"]) if out["item"] is not None else None
    if item is not None:
        out["condition"] = item.condition
        if out["subdomain"] is None:
            out["subdomain"] = item.subdomain
        target = item.domain.target.id
        recorded = out["target_entity"]
        if recorded is not None and recorded != target:
            problems.append(
                problem(
                    "target_mismatch",
                    f"the row's target is {recorded}, the test set's {target}; "
                    "the test set's is used",
                    field="target_entity",
                    **where,
                )
            )
        out["target_entity"] = target
        ids = {e.id for e in item.domain.entities}
        chosen = out["chosen_entity"]
        if chosen is not None and chosen not in ids:
            problems.append(
                problem(
                    "unknown_entity",
                    f"chosen entity {chosen} is not in the domain of {item.id} "
                    f"({', '.join(sorted(ids))}); counted as wrong",
                    field="chosen_entity",
                    **where,
                )
            )
    elif (
        by_item
        and out["item"] is not None
        and not reasons
        and out["item"] not in reported_items
    ):
        reported_items.add(out["item"])
        problems.append(
            problem(
                "item_not_in_testset",
                f"item {out['item']} is not in the test set; no condition or target "
                "check",
                field="item",
                **where,
            )
        )
    if identifies(task):
        _identification_outcome(out, problems, where)
        has_response = out["choice"] is not None
    else:
        has_response = out["adequacy"] is not None or out["fluency"] is not None
    if out["aborted"]:
        reasons.append("aborted")
        problems.append(
            problem("aborted_trial", "DMDX marked the item ABORTED; left out", **where)
        )
    if not has_response and not reasons:
        reasons.append("no_response")
        problems.append(
            problem(
                "no_response",
                "the row has no answer for this task; left out",
                **where,
            )
        )
    out["excluded"] = bool(reasons)
    out["exclusion_reason"] = "; ".join(dict.fromkeys(reasons)) or None
    out["in_analysis"] = False
    out["in_time_analysis"] = False
    for key in (
        "reading_time_outlier", "identification_time_outlier", "rt_outlier", "outlier",
    ):  # fmt: skip
        out[key] = False
    return out


def _identification_outcome(
    out: dict[str, Any], problems: list[dict[str, Any]], where: Mapping[str, Any]
) -> None:
    chosen, target = out["chosen_entity"], out["target_entity"]
    out["cant_tell"] = bool(out["cant_tell"])
    out["timeout"] = bool(out["timeout"])
    if chosen is not None and target is not None:
        computed = chosen == target
        if out["correct"] is not None and out["correct"] != computed:
            problems.append(
                problem(
                    "correct_mismatch",
                    f"recorded correct={str(out['correct']).lower()}, but "
                    f"{chosen} {'is' if computed else 'is not'} the target "
                    f"{target}; recomputed",
                    field="correct",
                    **where,
                )
            )
        out["correct"] = computed
    elif out["cant_tell"]:
        out["correct"] = False
    elif out["timeout"]:
        out["correct"] = None
    out["choice"] = trial_choice(out)

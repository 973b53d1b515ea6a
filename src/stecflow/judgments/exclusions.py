"""Exclusion rules declared before data collection, and their audit.

A study's config lists its rules (``studies.<id>.exclusions``), each with a
``name`` and one of:

``controls_below: <share>``
    The share of the participant's control trials answered as expected is below
    *share*: a ``degraded`` trial rated below the participant's own median of
    ordinary (non-practice, non-control) trials on ``measure`` (default
    ``adequacy``), or below ``cut`` when given; a ``gold`` trial identified
    correctly. A participant without answered control trials is not excluded
    (value empty).
``median_time_below_ms: <ms>``
    The median ``rt_ms`` of the participant's answered test trials is below it.
``incomplete: true``
    Fewer test trials answered than the list holds (value: answered;
    threshold: the list's test trials).
``answer: {field: "<screen>.<field>", in: [values]}``
    The session table's answer is one of the values.

:func:`exclusion_audit` gives one row per participant (session) and rule,
:data:`AUDIT_COLUMNS`; :func:`apply_exclusions` sets ``excluded`` on every row of
a participant any rule excludes, with ``exclusion_reason`` ``rule:<name>``.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from stecflow.judgments._common import JudgmentsError, is_missing

__all__ = [
    "AUDIT_COLUMNS",
    "apply_exclusions",
    "check_rules",
    "exclusion_audit",
    "write_audit",
]

#: Columns of ``results/judgments/exclusions/<study>.tsv``.
AUDIT_COLUMNS = (
    "participant",
    "session",
    "list",
    "rule",
    "value",
    "threshold",
    "excluded",
)

_KINDS = ("controls_below", "median_time_below_ms", "incomplete", "answer")


def check_rules(rules: Sequence[Mapping[str, Any]] | None, study: str) -> list[dict]:
    """The rules, checked: a name each (unique) and exactly one kind."""
    out, seen = [], set()
    for n, rule in enumerate(rules or []):
        where = f"studies[{study}].exclusions[{n}]"
        name = rule.get("name")
        if not name or name in seen:
            raise JudgmentsError("each rule needs its own name", field=f"{where}.name")
        seen.add(name)
        kinds = [k for k in _KINDS if k in rule]
        if len(kinds) != 1:
            raise JudgmentsError(
                "give exactly one of " + ", ".join(_KINDS), field=where
            )
        out.append(dict(rule))
    return out


def _truthy(value: Any) -> bool:
    if is_missing(value):
        return False
    return (
        str(value).lower() in ("true", "1") if isinstance(value, str) else bool(value)
    )


def _number(value: Any) -> float | None:
    if is_missing(value) or value == "":
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(out) else out


def _fmt(value: float | None) -> str | None:
    if value is None:
        return None
    return str(int(value)) if float(value).is_integer() else f"{value:.4f}"


def exclusion_audit(
    trials: Sequence[Mapping[str, Any]],
    rules: Sequence[Mapping[str, Any]],
    *,
    list_sizes: Mapping[str, int],
    sessions: Sequence[Mapping[str, Any]] = (),
) -> list[dict[str, Any]]:
    """One audit row per participant session and rule (:data:`AUDIT_COLUMNS`).

    Parameters
    ----------
    trials
        Merged judgment rows (``session``, ``participant``, ``list``,
        ``practice``, ``control``, ``adequacy``/criterion columns, ``correct``,
        ``rt_ms``).
    rules
        :func:`check_rules`' output.
    list_sizes
        List ID -> its test trials (control trials included).
    sessions
        Rows of the session table (for ``answer`` rules).

    Examples
    --------
    >>> rows = [{"session": "s1", "participant": "p1", "list": "L01",
    ...          "practice": False, "control": c, "adequacy": a, "rt_ms": 900}
    ...         for c, a in ((None, 80), (None, 60), ("degraded", 70))]
    >>> audit = exclusion_audit(rows, [{"name": "attn", "controls_below": 1}],
    ...                         list_sizes={"L01": 3})
    >>> audit[0]["value"], audit[0]["excluded"]
    ('0', 1)
    """
    by_session: dict[str, list[Mapping[str, Any]]] = {}
    for row in trials:
        if is_missing(row.get("session")) or _truthy(row.get("practice")):
            continue
        by_session.setdefault(str(row["session"]), []).append(row)
    answers = {str(s.get("session")): s for s in sessions}
    out = []
    for session in sorted(by_session):
        rows = by_session[session]
        first = rows[0]
        for rule in rules:
            value, threshold, excluded = _evaluate(rule, rows, list_sizes, answers)
            out.append(
                {
                    "participant": first.get("participant") or session,
                    "session": session,
                    "list": first.get("list"),
                    "rule": rule["name"],
                    "value": value,
                    "threshold": threshold,
                    "excluded": int(excluded),
                }
            )
    return out


def _evaluate(
    rule: Mapping[str, Any],
    rows: Sequence[Mapping[str, Any]],
    list_sizes: Mapping[str, int],
    answers: Mapping[str, Mapping[str, Any]],
) -> tuple[str | None, str | None, bool]:
    if "controls_below" in rule:
        share = float(rule["controls_below"])
        measure = rule.get("measure") or "adequacy"
        ordinary = [
            v
            for r in rows
            if is_missing(r.get("control"))
            and (v := _number(r.get(measure))) is not None
        ]
        cut = _number(rule.get("cut"))
        if cut is None and ordinary:
            cut = statistics.median(ordinary)
        hits = total = 0
        for r in rows:
            kind = r.get("control")
            if is_missing(kind):
                continue
            if kind == "gold":
                if is_missing(r.get("correct")):
                    continue
                total += 1
                hits += _truthy(r.get("correct"))
            else:
                value = _number(r.get(measure))
                if value is None or cut is None:
                    continue
                total += 1
                hits += value < cut
        if not total:
            return None, _fmt(share), False
        passed = hits / total
        return _fmt(passed), _fmt(share), passed < share
    if "median_time_below_ms" in rule:
        limit = float(rule["median_time_below_ms"])
        times = [t for r in rows if (t := _number(r.get("rt_ms"))) is not None]
        if not times:
            return None, _fmt(limit), False
        median = statistics.median(times)
        return _fmt(median), _fmt(limit), median < limit
    if "incomplete" in rule:
        size = list_sizes.get(str(rows[0].get("list")), 0)
        answered = len({r.get("order") for r in rows})
        return str(answered), str(size), answered < size
    spec = rule["answer"]
    session = answers.get(str(rows[0].get("session")), {})
    answer = session.get(spec["field"])
    allowed = [str(v) for v in spec["in"]]
    if is_missing(answer):
        return None, "|".join(allowed), False
    return str(answer), "|".join(allowed), str(answer) in allowed


def apply_exclusions(trials: Any, audit: Sequence[Mapping[str, Any]]) -> Any:
    """Flag every row of an excluded participant (a copy of the DataFrame).

    ``excluded`` becomes true and ``exclusion_reason`` gains ``rule:<name>`` for
    each rule that excluded the participant (all their sessions).
    """
    out = trials.copy()
    reasons: dict[str, list[str]] = {}
    for row in audit:
        if row["excluded"]:
            reasons.setdefault(str(row["participant"]), []).append(
                f"rule:{row['rule']}"
            )
    if not reasons or not len(out):
        return out
    who = out["participant"].where(out["participant"].notna(), out["session"])
    for index, person in who.items():
        found = reasons.get(str(person))
        if not found:
            continue
        out.at[index, "excluded"] = True
        old = out.at[index, "exclusion_reason"]
        parts = ([] if is_missing(old) else [str(old)]) + found
        out.at[index, "exclusion_reason"] = "; ".join(dict.fromkeys(parts))
    return out


def write_audit(rows: Sequence[Mapping[str, Any]], path: Any) -> None:
    """Write the audit table (header only when there are no rules)."""
    from stecflow.core.io import write_tsv

    write_tsv(list(rows), AUDIT_COLUMNS, path)

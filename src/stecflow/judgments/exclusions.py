"""Exclusion rules declared before data collection, and their audit.

A study's config lists its rules (``studies.<id>.exclusions``), each with a
``name`` and one of:

``controls_below: <share>``
    The share of the participant's control trials answered as expected is below
    *share*: a ``degraded`` trial rated below the participant's own median of
    ordinary (non-practice, non-control) trials on ``measure`` (default
    ``adequacy``), or below ``cut`` when given; a ``gold`` trial identified
    correctly; a degraded pair of a preference study (``correct`` set) answered
    with the intact text. A participant without answered control trials is not excluded
    (value empty).
``median_time_below_ms: <ms>``
    The median ``rt_ms`` of the participant's answered test trials is below it.
``incomplete: true``
    Fewer test trials answered than the list holds (value: answered;
    threshold: the list's test trials).
``answer: {field: "<screen>.<field>", in: [values]}``
    The session table's answer is one of the values.

:func:`exclusion_audit` gives one row per participant (session) and rule,
:data:`AUDIT_COLUMNS`: ``value`` and ``threshold`` as numbers (a share to four
decimals at most, a time in whole milliseconds, the threshold as the rule gives
it) and ``reason``, the finding in plain words (``0 of 2 control trials passed
(at least 50% required)``, ``median 890 ms against a minimum of 1,500 ms``);
:func:`apply_exclusions` sets ``excluded`` on every row of a participant any rule
excludes, with ``exclusion_reason`` ``rule:<name>`` (a DataFrame;
:func:`excluded_by` gives the same reasons for plain rows).

The rules are the same for every kind of study; a text study's ``measure``
defaults to its first criterion (:func:`stecflow.judgments.text_study.merge_text_study`
fills it in).
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
    "excluded_by",
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
    "reason",
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


def _fmt(value: float | None, digits: int = 4) -> str | None:
    """A number as the audit writes it: no trailing zeros, *digits* decimals
    at most.

    >>> _fmt(0.5), _fmt(2 / 3), _fmt(1500), _fmt(889.85, 0), _fmt(None)
    ('0.5', '0.6667', '1500', '890', None)
    """
    if value is None:
        return None
    text = f"{round(float(value), digits):.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _share(value: float) -> str:
    """A share as a percentage, as precise as it needs: 0.5 -> ``50%``.

    >>> _share(0.5), _share(2 / 3), _share(0.125)
    ('50%', '66.7%', '12.5%')
    """
    percent = round(100 * float(value), 1)
    return f"{percent:g}%"


def _ms(value: float) -> str:
    """Milliseconds in whole numbers with thousands separators.

    >>> _ms(889.85), _ms(1500)
    ('890 ms', '1,500 ms')
    """
    return f"{round(float(value)):,} ms"


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
            value, threshold, excluded, reason = _evaluate(
                rule, rows, list_sizes, answers
            )
            out.append(
                {
                    "participant": first.get("participant") or session,
                    "session": session,
                    "list": first.get("list"),
                    "rule": rule["name"],
                    "value": value,
                    "threshold": threshold,
                    "excluded": int(excluded),
                    "reason": reason,
                }
            )
    return out


def _evaluate(
    rule: Mapping[str, Any],
    rows: Sequence[Mapping[str, Any]],
    list_sizes: Mapping[str, int],
    answers: Mapping[str, Mapping[str, Any]],
) -> tuple[str | None, str | None, bool, str]:
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
            if kind == "gold" or not is_missing(r.get("correct")):
                # gold, or a degraded pair whose expected answer is the intact text
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
        required = f"at least {_share(share)} required"
        if not total:
            return (
                None,
                _fmt(share),
                False,
                f"no control trial answered ({required}); not excluded",
            )
        passed = hits / total
        return (
            _fmt(passed),
            _fmt(share),
            passed < share,
            f"{hits} of {total} control trial{'s' if total != 1 else ''} passed"
            f" ({required})",
        )
    if "median_time_below_ms" in rule:
        limit = float(rule["median_time_below_ms"])
        times = [t for r in rows if (t := _number(r.get("rt_ms"))) is not None]
        if not times:
            return None, _fmt(limit), False, "no response time recorded"
        median = statistics.median(times)
        return (
            _fmt(median, 0),
            _fmt(limit),
            median < limit,
            f"median {_ms(median)} against a minimum of {_ms(limit)}",
        )
    if "incomplete" in rule:
        size = list_sizes.get(str(rows[0].get("list")), 0)
        answered = len({r.get("order") for r in rows})
        return (
            str(answered),
            str(size),
            answered < size,
            f"{answered} of {size} test trials answered (all required)",
        )
    spec = rule["answer"]
    session = answers.get(str(rows[0].get("session")), {})
    answer = session.get(spec["field"])
    allowed = [str(v) for v in spec["in"]]
    listed = ", ".join(allowed)
    if is_missing(answer):
        return None, "|".join(allowed), False, f"no answer to {spec['field']}"
    return (
        str(answer),
        "|".join(allowed),
        str(answer) in allowed,
        f"answered {spec['field']} with {answer} (excluding: {listed})",
    )


def excluded_by(audit: Sequence[Mapping[str, Any]]) -> dict[str, list[str]]:
    """Participant -> ``rule:<name>`` of every rule that excluded them.

    >>> excluded_by([{"participant": "p1", "rule": "attn", "excluded": 1},
    ...              {"participant": "p2", "rule": "attn", "excluded": 0}])
    {'p1': ['rule:attn']}
    """
    reasons: dict[str, list[str]] = {}
    for row in audit:
        if row["excluded"]:
            reasons.setdefault(str(row["participant"]), []).append(
                f"rule:{row['rule']}"
            )
    return reasons


def apply_exclusions(trials: Any, audit: Sequence[Mapping[str, Any]]) -> Any:
    """Flag every row of an excluded participant (a copy of the DataFrame).

    ``excluded`` becomes true and ``exclusion_reason`` gains ``rule:<name>`` for
    each rule that excluded the participant (all their sessions).
    """
    out = trials.copy()
    reasons = excluded_by(audit)
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

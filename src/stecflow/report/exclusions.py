"""The exclusions of a human study in the report: rules, who, why, controls.

Read from the judgments summary (``summary/<study>.json``, key ``exclusions``,
written by :func:`stecflow.judgments.study.merge_study` and, for text studies,
:func:`stecflow.judgments.text_study.merge_text_study` from the audit
``judgments/exclusions/<study>.tsv``): the rules declared before data
collection, the participants excluded and by which rule, how many per list, and
each participant's control-trial result.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from stecflow.report.context import Block, paragraph

__all__ = ["FOLD_AFTER", "exclusion_blocks"]


def _number(value: Any) -> str:
    """A rule's number as the organiser wrote it, thousands separated.

    >>> _number(1500), _number(0.5), _number(2.5)
    ('1,500', '0.5', '2.5')
    """
    value = float(value)
    return f"{int(value):,}" if value.is_integer() else f"{value:g}"


def _percent(share: Any) -> str:
    """A share as a percentage.

    >>> _percent(0.5), _percent(2 / 3)
    ('50%', '66.7%')
    """
    return f"{round(100 * float(share), 1):g}%"


def _control_expected(task: str) -> str:
    """What a control trial of a *task* study answered as expected is (its
    kind's words); every kind's that has controls when the kind is unknown.

    >>> _control_expected("identification")
    "a gold description's target identified"
    """
    from stecflow.studykinds.registry import get, is_kind, kinds

    if is_kind(task):
        expected = get(task).control_expected
        if expected is not None:
            return expected
    return ", ".join(
        dict.fromkeys(k.control_expected for k in kinds() if k.control_expected)
    )


def _rule_text(rule: Mapping[str, Any], task: str = "") -> str:
    """One rule in plain words.

    >>> _rule_text({"name": "fast", "median_time_below_ms": 1500})
    'fast: median response time below 1,500 ms'
    """
    if "controls_below" in rule:
        measure = rule.get("measure") or "adequacy"
        cut = (
            f"below {_number(rule['cut'])}"
            if rule.get("cut") is not None
            else f"below the participant's own median {measure}"
        )
        expected = _control_expected(task).format(cut=cut)
        return (
            f"{rule['name']}: fewer than {_percent(rule['controls_below'])} of the"
            f" control trials answered as expected ({expected})"
        )
    if "median_time_below_ms" in rule:
        limit = _number(rule["median_time_below_ms"])
        return f"{rule['name']}: median response time below {limit} ms"
    if "incomplete" in rule:
        return f"{rule['name']}: fewer trials answered than the list holds"
    answer = rule.get("answer") or {}
    values = ", ".join(str(v) for v in answer.get("in", []))
    return f"{rule['name']}: answered {answer.get('field')} with {values}"


def _finding(row: Mapping[str, Any]) -> str:
    """What the audit found (its ``reason``; an older audit: value and threshold)."""
    reason = row.get("reason")
    if reason:
        return str(reason)
    return f"{_or_none(row.get('value'))} against {_or_none(row.get('threshold'))}"


def _or_none(value: Any) -> str:
    return "none" if value is None or value == "" else str(value)


#: Above this many participants the per-participant control results fold away.
FOLD_AFTER = 10


def exclusion_blocks(summary: Mapping[str, Any]) -> list[Block]:
    """Paragraphs on the study's exclusion rules and their audit (none without).

    The rules in plain words; who was excluded and why (the audit's reasons,
    e.g. ``attention: 0 of 2 control trials passed (at least 50% required)``),
    per list; each participant's control trials, in a folded ``details`` block
    when there are more than :data:`FOLD_AFTER` participants.
    """
    info = summary.get("exclusions")
    if not info:
        return []
    audit = info.get("audit") or []
    rules = info.get("rules") or []
    blocks = [
        paragraph(
            "Exclusion rules declared before data collection: "
            + "; ".join(_rule_text(r, str(summary.get("task") or "")) for r in rules)
            + "."
        )
    ]
    why: dict[str, list[str]] = {}
    lists: dict[str, str] = {}
    for row in audit:
        lists[str(row["participant"])] = str(row.get("list"))
        if int(row["excluded"]):
            why.setdefault(str(row["participant"]), []).append(
                f"{row['rule']}, {_finding(row)}"
            )
    people = len(lists)
    if why:
        per_list = Counter(lists[p] for p in why)
        blocks.append(
            paragraph(
                f"{len(why)} of {people} participants excluded, every trial of"
                " theirs left out of the analyses (kept, flagged, in the"
                " judgments table). "
                + " ".join(f"{p}: {'; '.join(r)}." for p, r in sorted(why.items()))
                + " Per list: "
                + ", ".join(f"{k} {v}" for k, v in sorted(per_list.items()))
                + "."
            )
        )
    else:
        blocks.append(paragraph(f"No participant of {people} was excluded."))
    names = {x.get("name") for x in rules if "controls_below" in x}
    controls = sorted(
        (r for r in audit if r["rule"] in names),
        key=lambda r: (str(r["participant"]), str(r["rule"])),
    )
    if controls:
        items = [f"{r['participant']}: {_finding(r)}" for r in controls]
        if len({str(r["participant"]) for r in controls}) > FOLD_AFTER:
            blocks.append(
                {
                    "kind": "details",
                    "summary": f"Control trials of each of the {people} participants",
                    "blocks": [paragraph("; ".join(items) + ".")],
                }
            )
        else:
            blocks.append(
                paragraph(
                    "Control trials answered as expected, per participant: "
                    + "; ".join(items)
                    + "."
                )
            )
    return blocks

"""The exclusions of a human study in the report: rules, who, why, controls.

Read from the judgments summary (``summary/<study>.json``, key ``exclusions``,
written by :func:`stecflow.judgments.study.merge_study` from the audit
``judgments/exclusions/<study>.tsv``): the rules declared before data
collection, the participants excluded and by which rule, how many per list, and
each participant's control-trial result.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from stecflow.report.context import Block, paragraph

__all__ = ["exclusion_blocks"]


def _rule_text(rule: Mapping[str, Any]) -> str:
    if "controls_below" in rule:
        cut = (
            f"below {rule['cut']}"
            if rule.get("cut") is not None
            else "below their own median"
        )
        return (
            f"{rule['name']}: fewer than {rule['controls_below']:g} of the control"
            f" trials answered as expected (degraded rated {cut}, gold identified)"
        )
    if "median_time_below_ms" in rule:
        limit = rule["median_time_below_ms"]
        return f"{rule['name']}: median response time below {limit:g} ms"
    if "incomplete" in rule:
        return f"{rule['name']}: fewer trials answered than the list holds"
    answer = rule.get("answer") or {}
    values = ", ".join(str(v) for v in answer.get("in", []))
    return f"{rule['name']}: answered {answer.get('field')} with {values}"


def _or_none(value: Any) -> str:
    return "none" if value is None or value == "" else str(value)


def exclusion_blocks(summary: Mapping[str, Any]) -> list[Block]:
    """Paragraphs on the study's exclusion rules and their audit (none without)."""
    info = summary.get("exclusions")
    if not info:
        return []
    audit = info.get("audit") or []
    rules = info.get("rules") or []
    blocks = [
        paragraph(
            "Exclusion rules declared before data collection: "
            + "; ".join(_rule_text(r) for r in rules)
            + "."
        )
    ]
    why: dict[str, list[str]] = {}
    lists: dict[str, str] = {}
    for row in audit:
        lists[str(row["participant"])] = str(row.get("list"))
        if int(row["excluded"]):
            why.setdefault(str(row["participant"]), []).append(
                f"{row['rule']} ({row['value']} against {row['threshold']})"
            )
    people = len(lists)
    if why:
        per_list = Counter(lists[p] for p in why)
        blocks.append(
            paragraph(
                f"{len(why)} of {people} participants excluded, every trial of"
                " theirs left out of the analyses: "
                + "; ".join(f"{p}: {', '.join(r)}" for p, r in sorted(why.items()))
                + ". Per list: "
                + ", ".join(f"{k} {v}" for k, v in sorted(per_list.items()))
                + "."
            )
        )
    else:
        blocks.append(paragraph(f"No participant of {people} was excluded."))
    controls = [
        r
        for r in audit
        if any(r["rule"] == x.get("name") and "controls_below" in x for x in rules)
    ]
    if controls:
        blocks.append(
            paragraph(
                "Control trials answered as expected, per participant: "
                + ", ".join(
                    f"{r['participant']} {_or_none(r['value'])}"
                    for r in sorted(controls, key=lambda r: str(r["participant"]))
                )
                + "."
            )
        )
    return blocks

"""Which trials of a text study leave its analysis, and why.

:func:`flag_text_trials` sets every trial's ``in_analysis`` and
``exclusion_reason`` (a correction's ``exclude``, an import problem, no answer,
a partial session when the config says so, a control trial);
:func:`exclude_by_rules` applies the study's exclusion rules
(:mod:`stecflow.judgments.exclusions`) to every trial of the participants they
exclude.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.judgments._common import problem
from stecflow.judgments.importers.text import Criterion
from stecflow.judgments.pipeline import read_session_rows
from stecflow.studykinds.registry import paired

__all__ = ["exclude_by_rules", "flag_text_trials"]


def flag_text_trials(
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
        if not paired(task):
            answered = any(v is not None for v in t["ratings"].values())
        else:
            answered = t["preferred"] is not None
        if not answered and not t["import_problem"]:
            reasons.append("no_response")
            problems.append(
                problem(
                    "no_response",
                    "no rating given"
                    if not paired(task)
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
                    field="preferred" if paired(task) else None,
                )
            )
        if exclude_partial and t["partial_session"]:
            reasons.append("partial_session")
        if t.get("control"):  # a control trial never enters a system's measures
            reasons.append("control_trial")
        t["in_analysis"] = not reasons
        t["exclusion_reason"] = ", ".join(reasons) or None
    return problems


def exclude_by_rules(
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
    session_rows = read_session_rows(sessions_path)
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

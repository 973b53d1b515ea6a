"""Which evaluators leave a situated study's analysis, and why.

The evaluators whose session failed part-way or is short are discarded, list by
list (:func:`discard_evaluators`, with
:func:`.measures.discard_failed_sessions`); the study's
exclusion rules are evaluated per evaluator (:func:`exclusion_rules_audit`).

May import: pandas inside functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.judgments._common import JudgmentsError, problem
from stecflow.judgments.pipeline import read_session_rows
from stecflow.studykinds.situated_identification.measures import DISCARD_COLUMNS
from stecflow.studykinds.situated_identification.merge_tables import number

__all__ = [
    "COMPLETE_STATUSES",
    "discard_evaluators",
    "exclusion_rules_audit",
    "missing_trials",
]

#: Session statuses of a session that ran to its end: the server's
#: ``completed``; the page saves an ``offline`` file only at the end, so an
#: offline session is complete unless trials are missing.
COMPLETE_STATUSES = ("completed", "offline")


def missing_trials(discarded: Any, design: Any) -> int:
    """Trials the discarded evaluators' lists have and their sessions lack."""
    if not len(discarded):
        return 0
    expected = design.groupby("list").size().to_dict()
    return sum(
        max(0, int(expected.get(r["list"], 0)) - int(r["n_trials"]))
        for r in discarded.to_dict("records")
    )


def exclusion_rules_audit(
    kept: Any,
    design: Any,
    study: str,
    exclusions: Sequence[Mapping[str, Any]] | None,
    sessions_path: str | Path | None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The study's exclusion rules evaluated per evaluator: (rules, audit).

    The audit names an evaluator by ``subject`` (the ID every situated table
    uses), the time rule reads ``time_ms`` and ``incomplete`` counts the design's
    test trials of the evaluator's list.
    """
    from stecflow.judgments.exclusions import check_rules, exclusion_audit

    rules = check_rules(exclusions, study)
    if not rules:
        return [], []
    for n, rule in enumerate(rules):
        if "controls_below" in rule:
            raise JudgmentsError(
                "a situated study has no control trials; use median_time_below_ms,"
                " incomplete or answer rules",
                field=f"studies[{study}].exclusions[{n}]",
            )
    sizes = design.groupby("list").size() if len(design) else {}
    session_rows = read_session_rows(sessions_path)
    rows = [
        {
            "session": r["session"],
            "participant": r["subject"],
            "list": r["list"],
            "practice": False,
            "rt_ms": number(r["time_ms"]),
        }
        for r in kept.to_dict("records")
    ]
    audit = exclusion_audit(
        rows,
        rules,
        list_sizes={str(k): int(v) for k, v in dict(sizes).items()},
        sessions=session_rows,
    )
    return rules, audit


def discard_evaluators(
    trials: Any, design: Any, study: str
) -> tuple[Any, Any, list[dict[str, Any]]]:
    """Discard, list by list, the evaluators whose session failed or is short."""
    import pandas as pd

    from stecflow.studykinds.situated_identification.measures import (
        discard_failed_sessions,
    )

    expected = design.groupby("list").size().to_dict()
    kept_parts, gone_parts = [], []
    for list_id in sorted(set(trials["list"])):
        part = trials[trials["list"] == list_id]
        kept, gone = discard_failed_sessions(
            part,
            complete=COMPLETE_STATUSES,
            expected_trials=int(expected[list_id]),
        )
        kept_parts.append(kept)
        gone_parts.append(gone.assign(list=list_id))
    kept = pd.concat(kept_parts, ignore_index=True) if kept_parts else trials.iloc[:0]
    columns = [*DISCARD_COLUMNS, "list"]
    gone = (
        pd.concat(gone_parts, ignore_index=True)
        if gone_parts
        else pd.DataFrame(columns=columns)
    )
    gone = gone[columns].sort_values("subject", kind="stable").reset_index(drop=True)
    problems = []
    for record in gone.to_dict("records"):
        sessions = sorted(
            set(trials.loc[trials["subject"] == record["subject"], "session"])
        )
        problems.append(
            problem(
                "partial_session",
                f"evaluator {record['subject']} discarded: {record['reason']}",
                study=study,
                session=", ".join(sessions) or None,
                subject=record["subject"],
                list_id=record["list"],
            )
        )
    return kept, gone, problems

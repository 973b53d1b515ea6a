"""The join of a situated study's responses to its design, trial by trial.

:func:`join_situated_trials` places every imported answer on a trial of the
design (list and instance, or list and order for an offline page), recomputes
whether it is correct and reports what does not fit as data-quality problems;
its trials have the fields :data:`TRIAL_FIELDS`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from stecflow.judgments._common import problem
from stecflow.judgments.pipeline import trial_location

__all__ = ["TRIAL_FIELDS", "join_situated_trials"]

#: The fields of a joined trial (the columns of the merge's trial frame).
TRIAL_FIELDS = (
    "subject",
    "session",
    "participant",
    "list",
    "order",
    "item",
    "system",
    "class",
    "shown",
    "expression",
    "target_entity",
    "chosen_entity",
    "correct",
    "cant_tell",
    "timeout",
    "time_ms",
    "replays",
    "session_status",
    "simulated",
    "corrected",
    "corrected_fields",
    "original_values",
    "correction_reason",
    "duplicate",
    "excluded",
    "exclusion_reason",
    "source_file",
    "source_line",
)


def join_situated_trials(
    rows: Sequence[dict[str, Any]], design: Any, study: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Join the imported rows to the design; (trials, problems)."""
    lists = set(design["list"])
    records = design.to_dict("records")
    by_key = {(r["list"], r["item"]): r for r in records}
    # the offline page knows no instance (stecflow.studies.blinding): its rows
    # name the trial by list and order
    by_order = {(r["list"], int(r["order"])): r for r in records}
    trials: list[dict[str, Any]] = []
    problems: list[dict[str, Any]] = []
    seen: dict[tuple[str, str, str], dict[str, Any]] = {}
    for row in rows:
        where = trial_location(row)
        if row["practice"] or row["filler"]:
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
        if row["item"] is None and row["order"] is not None and row["list"] in lists:
            shown = by_order.get((row["list"], int(row["order"])))
            if shown is None:
                problems.append(
                    problem(
                        "not_in_design",
                        f"list {row['list']} has no trial {row['order']}",
                        study=study,
                        field="order",
                        **where,
                    )
                )
                continue
            row["item"] = shown["item"]
        if row["session"] is None or row["list"] is None or row["item"] is None:
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
        design_row = by_key.get((row["list"], row["item"]))
        if design_row is None:
            problems.append(
                problem(
                    "not_in_design",
                    f"instance {row['item']!r} is not a trial of list {row['list']}",
                    study=study,
                    field="instance",
                    **where,
                )
            )
            continue
        if row["order"] is not None and row["order"] != design_row["order"]:
            problems.append(
                problem(
                    "design_mismatch",
                    f"order {row['order']}; the design shows {row['item']} at "
                    f"order {design_row['order']} of list {row['list']}",
                    study=study,
                    field="order",
                    **where,
                )
            )
            continue
        key = (row["session"], row["list"], row["item"])
        if key in seen:
            first = seen[key]
            problems.append(
                problem(
                    "duplicate",
                    f"instance {row['item']} answered again in session "
                    f"{row['session']} (first on line {first['source_line']} of "
                    f"{first['source_file']}); the first answer is kept",
                    study=study,
                    field="instance",
                    **where,
                )
            )
            continue
        seen[key] = row
        target = str(design_row["target"])
        if row["target_entity"] is not None and row["target_entity"] != target:
            problems.append(
                problem(
                    "target_mismatch",
                    f"target {row['target_entity']!r} in the file; the design's "
                    f"is {target!r} (the design's is used)",
                    study=study,
                    field="target_entity",
                    **where,
                )
            )
        cant_tell = bool(row["cant_tell"])
        chosen = None if cant_tell else row["chosen_entity"]
        if chosen is None and not cant_tell:
            problems.append(
                problem(
                    "no_response",
                    "neither a piece (chosen_entity) nor cant_tell; expected one",
                    study=study,
                    field="chosen_entity",
                    **where,
                )
            )
            continue
        correct = chosen is not None and chosen == target
        if row["correct"] is not None and bool(row["correct"]) != correct:
            problems.append(
                problem(
                    "correct_mismatch",
                    f"correct {str(bool(row['correct'])).lower()} in the file; "
                    f"{chosen or 'I do not know'} against target {target} is "
                    f"{str(correct).lower()} (recomputed)",
                    study=study,
                    field="correct",
                    **where,
                )
            )
        time_ms = row["time_ms"]
        trials.append(
            {
                "subject": row["subject"],
                "session": row["session"],
                "participant": row["participant"],
                "list": row["list"],
                "order": int(design_row["order"]),
                "item": row["item"],
                "system": design_row.get("system"),
                "class": design_row["condition"],
                "shown": design_row["shown"],
                "expression": design_row.get("expression"),
                "target_entity": target,
                "chosen_entity": chosen,
                "correct": correct,
                "cant_tell": cant_tell,
                "timeout": False,
                "time_ms": math.nan if time_ms is None else float(time_ms),
                "replays": math.nan if row["replays"] is None else row["replays"],
                "session_status": row["session_status"],
                "simulated": bool(row["simulated"]),
                "corrected": bool(row["corrected"]),
                "corrected_fields": None,
                "original_values": None,
                "correction_reason": None,
                "duplicate": False,
                "excluded": False,
                "exclusion_reason": None,
                "source_file": row["source_file"],
                "source_line": row["source_line"],
            }
        )
    return trials, problems

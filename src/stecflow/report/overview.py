"""Section 1, overview: campaign facts, test-set sizes, participants, studies."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from stecflow.report.context import (
    LATE_MARK,
    Block,
    Context,
    facts,
    paragraph,
    title_case,
    validation_link,
    yes_no,
)
from stecflow.report.formatting import DASH
from stecflow.report.tables import Cell, Column, Row, Table

__all__ = [
    "LONG_LIST",
    "overview_section",
    "reference_sets_details",
    "reference_sets_note",
    "task_summary",
]

LONG_LIST = 20
"""Lists longer than this are counted in the text and listed in a collapsed block."""


def _natural(text: str) -> tuple[Any, ...]:
    """Sort key that puts ``speaker-2`` before ``speaker-10``."""
    return tuple(
        (0, int(part), "") if part.isdigit() else (1, 0, part)
        for part in re.split(r"(\d+)", text)
        if part
    )


def _by_items(
    reference_ids: Sequence[tuple[str, int]],
) -> list[tuple[int, list[str]]]:
    """Reference set IDs grouped by their number of items, most items first."""
    groups: dict[int, list[str]] = {}
    for rid, n in reference_ids:
        groups.setdefault(int(n), []).append(str(rid))
    return [(n, sorted(groups[n], key=_natural)) for n in sorted(groups, reverse=True)]


def _items(n: int) -> str:
    return f"{n} item{'s' if n != 1 else ''}"


def reference_sets_note(reference_ids: Sequence[tuple[str, int]]) -> str:
    """The table note counting many reference sets (the list is collapsed below).

    >>> reference_sets_note([("s1", 11)] + [(f"s{i}", 12) for i in range(2, 24)])
    'Reference sets: 23 (22 with 12 items, 1 with 11 items), listed under the table.'
    """
    counts = ", ".join(
        f"{len(ids)} with {_items(n)}" for n, ids in _by_items(reference_ids)
    )
    return f"Reference sets: {len(reference_ids)} ({counts}), listed under the table."


def reference_sets_details(reference_ids: Sequence[tuple[str, int]]) -> Block:
    """A collapsed block listing many reference sets, grouped by their item count."""
    return {
        "kind": "details",
        "summary": f"The {len(reference_ids)} reference sets",
        "blocks": [
            facts(
                [
                    (f"{_items(n)} ({len(ids)})", ", ".join(ids))
                    for n, ids in _by_items(reference_ids)
                ]
            )
        ],
    }


def task_summary(name: str) -> str:
    """How the overview names a task: its task type's summary (else its ID).

    >>> task_summary("end_to_end")
    'end-to-end generation (a WORD-STRING per item)'
    """
    from stecflow.core.errors import ConfigError
    from stecflow.tasks.registry import get

    try:
        return get(name).summary
    except ConfigError:
        return name


def overview_section(ctx: Context) -> list[Block]:
    """Section 1: campaign facts, test-set sizes, participants, the systems'
    declared properties, studies, the evaluation criteria."""
    campaign = ctx.config.get("campaign") or {}
    blocks: list[Block] = []
    if campaign.get("description"):
        blocks.append(paragraph(str(campaign["description"]).strip()))
    statuses = [r.get("status", "") for r in ctx.summary]
    n_ref = sum(1 for e in ctx.scored if e.reference)
    tasks = campaign.get("tasks") or []
    studies = ctx.config.get("studies") or []
    test = ctx.testset
    refs = ", ".join(
        f"{n} item{'s' if n != 1 else ''} with {k} reference{'s' if k != 1 else ''}"
        for k, n in test.refs_per_item
    )
    items = [
        ("Campaign", str(campaign.get("id", ""))),
        ("Tasks", "; ".join(task_summary(t) for t in tasks) or DASH),
        ("Deadline", str(campaign.get("deadline") or "none")),
        (
            "Test set",
            f"{test.n_items} items ({', '.join(test.subdomains)}); {refs}",
        ),
        (
            "Submissions",
            f"{len(ctx.summary)} received: {statuses.count('accepted')} accepted,"
            f" {statuses.count('rejected')} rejected"
            + (
                f", {statuses.count('unreadable')} unreadable"
                if "unreadable" in statuses
                else ""
            )
            + f"; {sum(1 for e in ctx.scored if e.late)} late",
        ),
        (
            "Systems scored",
            f"{len(ctx.scored)} ({len(ctx.scored) - n_ref} systems,"
            f" {n_ref} human reference sets)",
        ),
        (
            "Human studies",
            ", ".join(str(s.get("id", "?")) for s in studies if isinstance(s, Mapping))
            or "none yet (the judgment stage adds them)",
        ),
    ]
    blocks.append(facts(items))

    # test-set sizes, seed 001 Table 2 style
    conds = list(test.conditions) or [""]
    columns = [Column("subdomain", "Subdomain", align="l")]
    columns += [Column(c or "items", c or "Items") for c in conds]
    if test.conditions:
        columns.append(Column("total", "Total"))
    rows = []
    for sub in test.subdomains:
        counts = [
            sum(n for s, c, n in test.counts if s == sub and c == cond)
            for cond in conds
        ]
        cells = [Cell(title_case(sub))] + [Cell(str(n)) for n in counts]
        if test.conditions:
            cells.append(Cell(str(sum(counts))))
        rows.append(Row(tuple(cells)))
    totals = [sum(n for _, c, n in test.counts if c == cond) for cond in conds]
    cells = [Cell("Total")] + [Cell(str(n)) for n in totals]
    if test.conditions:
        cells.append(Cell(str(test.n_items)))
    rows.append(Row(tuple(cells), classes="total"))
    notes = [f"References per item: {refs}."]
    long_lists: list[Block] = []
    if len(test.reference_ids) > LONG_LIST:
        notes.append(reference_sets_note(test.reference_ids))
        long_lists.append(reference_sets_details(test.reference_ids))
    elif test.reference_ids:
        notes.append(
            "Reference sets: "
            + ", ".join(f"{rid} ({n} items)" for rid, n in test.reference_ids)
            + "."
        )
    if test.entities_per_item:
        notes.append(
            "Entities per domain: "
            + ", ".join(f"{k} ({n} items)" for k, n in test.entities_per_item)
            + "."
        )
    blocks.append(
        ctx.table(
            Table(
                "testset",
                "Test set: items per subdomain and condition.",
                columns,
                rows,
                notes,
            )
        )
    )
    blocks.extend(long_lists)
    blocks.append(ctx.table(_participants_table(ctx)))
    properties = _properties_table(ctx)
    if properties is not None:
        blocks.append(ctx.table(properties))
    if any(isinstance(s, Mapping) for s in studies):
        blocks.append(ctx.table(_studies_table(studies)))
    from stecflow.report.measure_types import criteria_table

    criteria = criteria_table(ctx)  # seed 001 Table 3
    if criteria is not None:
        blocks.append(ctx.table(criteria))
    return blocks


def _studies_table(studies: Sequence[Any]) -> Table:
    rows = []
    for study in studies:
        if not isinstance(study, Mapping):
            continue
        systems = [str(s) for s in study.get("systems") or []]
        task = str(study.get("task", ""))
        if study.get("variant"):
            task += f" ({study['variant']})"
        rows.append(
            Row(
                (
                    Cell(str(study.get("id", ""))),
                    Cell(str(study.get("title", ""))),
                    Cell(task),
                    Cell(
                        f"{len(systems)}: {', '.join(systems)}"
                        if len(systems) <= LONG_LIST
                        else f"{len(systems)} (listed in the CSV download)",
                        csv=(" ".join(systems),),
                    ),
                    Cell(str(study.get("subjects", DASH))),
                    Cell(str(study.get("practice", DASH))),
                    Cell(str(study.get("seed", DASH))),
                )
            )
        )
    from stecflow.studykinds.registry import in_family

    tasks = {str(s.get("task", "")) for s in studies if isinstance(s, Mapping)}
    situated = set(in_family("situated"))
    sections = " and ".join(
        name
        for name, present in (
            ("Human evaluation", bool(tasks - situated)),
            ("Situated identification study", bool(tasks & situated)),
        )
        if present
    )
    return Table(
        "studies",
        "Human studies configured for this campaign (their results appear under"
        f" {sections or 'Human evaluation'} once judgments exist).",
        [
            Column("study", "Study", align="l"),
            Column("title", "Title", align="l"),
            Column("task", "Task", align="l"),
            Column("systems", "Systems", align="l"),
            Column("subjects", "Subjects"),
            Column("practice", "Practice"),
            Column("seed", "Seed"),
        ],
        rows,
    )


def _property_value(value: Any) -> str:
    """A declared property's value as seed 003's Table 1 writes it."""
    if isinstance(value, bool):
        return "Y" if value else "n"
    return DASH if value is None else str(value)


def _properties_table(ctx: Context) -> Table | None:
    """The systems by the properties the campaign declares
    (``submissions.properties``), one row per property (by name) and one column
    per accepted system, as each team gave them in ``system.yaml`` (seed 003
    Table 1); None when the campaign declares none. Human reference sets have
    no algorithm and are left out."""
    # by name: the archived config (config.json) keeps no key order, and a
    # re-run must give the same table
    declared = sorted((ctx.config.get("submissions") or {}).get("properties") or {})
    systems = [e for e in ctx.scored if not e.reference]
    if not declared or not systems:
        return None
    columns = [Column("property", "Property", align="l")]
    columns += [Column(f"{e.team}/{e.system}", e.label, align="c") for e in systems]
    rows = []
    for name in declared:
        cells = [Cell(name)]
        for entry in systems:
            given = ctx.records.get(entry.key, {}).get("properties") or {}
            cells.append(Cell(_property_value(given.get(name))))
        rows.append(Row(tuple(cells)))
    return Table(
        "properties",
        "Systems by algorithmic property (seed 003 Table 1): what each team"
        " declared in system.yaml.",
        columns,
        rows,
        [
            "Y: the system has the property; n: it does not; "
            f"{DASH}: not declared (the system is left out of the analyses by"
            " that property). The properties are those the campaign asks for"
            " (submissions.properties).",
        ],
    )


def _participants_table(ctx: Context) -> Table:
    columns = [
        Column("team", "Team", align="l"),
        Column("system", "System", align="l"),
        Column("description", "Description", align="l"),
        Column("primary", "Primary", align="c"),
        Column("late", "Late", align="c"),
        Column("reference_set", "Reference set", align="c"),
        Column("status", "Validation", align="l", csv=("status", "validation_report")),
        Column("first_error", "First error", align="l"),
    ]
    rows = []
    for row in sorted(ctx.summary, key=lambda r: (r["team"], r["system"])):
        key = (row["team"], row["system"])
        record = ctx.records.get(key, {})
        meta = record.get("metadata") or {}
        status = row.get("status", "")
        link = validation_link(*key) if record else ""
        late = row.get("late", "") == "true"
        classes = "rejected" if status != "accepted" else ("late" if late else "")
        rows.append(
            Row(
                (
                    Cell(row["team"]),
                    Cell(row["system"] or DASH),
                    Cell(str(meta.get("description", "") or "")),
                    Cell(yes_no(row.get("primary", "") == "true") if record else DASH),
                    Cell(
                        (yes_no(late) + (f" {LATE_MARK}" if late else ""))
                        if record
                        else DASH,
                        csv=(yes_no(late) if record else "",),
                    ),
                    Cell(
                        yes_no(row.get("reference", "") == "true") if record else DASH
                    ),
                    Cell(
                        status
                        + (
                            f", superseded by {row['superseded_by']}"
                            if row.get("superseded_by")
                            else ""
                        ),
                        href=link,
                        csv=(status, link),
                        classes=f"status-{status}",
                    ),
                    Cell(row.get("first_error", "")),
                ),
                classes=classes,
            )
        )
    return Table(
        "participants",
        "Participants: every submission received, with its validation status.",
        columns,
        rows,
        [
            "Validation links open each team's validation report"
            " (results/validation/<team>/<system>.md).",
            f"{LATE_MARK} Submitted after the deadline: scored and shown, not ranked.",
        ],
    )

"""The report's tables of the human studies of a text-generation campaign.

A ``text_rating`` study's measures (``results/judgments/measures/<study>.tsv``,
:func:`stecflow.judgments.text_measures.rating_measures`) become one table: per
system, each criterion's mean and SD, and for a 0-100 slider also the mean of the
z-scores per evaluator, as WMT's direct assessment reports them. A
``text_preference`` study's measures become the win rates with their Wilson
intervals and the Bradley-Terry strengths. Built from the stage's files only.

May import: :mod:`stecflow.report`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stecflow.report.context import NAME_COLUMN, Block, Context, named_rows, notice
from stecflow.report.formatting import fixed, parse_float
from stecflow.report.inputs import JudgmentStudy
from stecflow.report.tables import RANK_COLUMN, Cell, Column, Row, Table
from stecflow.studykinds.registry import in_family

__all__ = ["TEXT_TASKS", "preference_blocks", "rating_blocks"]

#: The study tasks of a text-generation campaign.
#: The kinds of the text family (:mod:`stecflow.studykinds`).
TEXT_TASKS = in_family("text")


def _criteria(ctx: Context, study: str) -> dict[str, Mapping[str, Any]]:
    for entry in ctx.config.get("studies") or []:
        if isinstance(entry, Mapping) and entry.get("id") == study:
            return {str(c.get("id")): c for c in entry.get("criteria") or []}
    return {}


def _note(study: JudgmentStudy) -> list[str]:
    if study.summary.get("simulated"):
        return ["Simulated data: answers of simulated participants, not people."]
    return []


def _rating_table(ctx: Context, study: JudgmentStudy) -> Table:
    criteria = _criteria(ctx, study.study)
    rows = study.measures
    order = list(dict.fromkeys(r.get("criterion", "") for r in rows))
    cells = {(r.get("system", ""), r.get("criterion", "")): r for r in rows}
    # ranked by the criterion the organiser names for the kind, else the first
    rank_by = (ctx.config.get("report") or {}).get("rank_by") or {}
    chosen = rank_by.get(str(study.summary.get("task") or ""))
    first = chosen if chosen in order else (order[0] if order else "")

    def key(system: str) -> tuple[bool, float, str]:
        value = parse_float(cells.get((system, first), {}).get("mean"))
        return (value is None, -(value or 0.0), system)

    from stecflow.report.human import human_notes
    from stecflow.report.variance_tables import tukey_groups

    systems = sorted({r.get("system", "") for r in rows}, key=key)
    columns = [RANK_COLUMN, NAME_COLUMN]
    groups = {c: tukey_groups(ctx, c, study.study) for c in order}
    notes = _note(study)
    for criterion in order:
        scale = cells.get((systems[0], criterion), {}).get("scale", "")
        info = criteria.get(criterion, {})
        group = criterion + (
            f" (1–{info.get('points', 5)})" if scale == "likert" else " (0–100)"
        )
        found = groups[criterion]
        columns += [
            Column(
                f"{criterion}_mean",
                "Mean",
                group=group,
                better="higher",
                groups=found[1] if found else "",
            ),
            Column(f"{criterion}_sd", "SD", group=group),
        ]
        if scale == "slider":
            columns.append(Column(f"{criterion}_z", "z", group=group, better="higher"))
        if info.get("question"):
            notes.append(f"{criterion}: “{info['question']}”")
    if any(cells[k].get("scale") == "slider" for k in cells):
        notes.append(
            "z: the mean of the ratings standardised per evaluator (each evaluator's"
            " ratings minus their mean, divided by their SD), as WMT's direct"
            " assessment reports them."
        )
    table_rows = []
    lookup = ctx.by_label()
    ranking = [parse_float(cells.get((s, first), {}).get("mean")) for s in systems]
    names = named_rows(ctx, systems, ranking, True)
    for system, name_cells in zip(systems, names, strict=True):
        entry = lookup.get(system)
        row_cells = list(name_cells)
        for criterion in order:
            row = cells.get((system, criterion), {})
            found = groups[criterion]
            row_cells += [
                Cell(
                    fixed(parse_float(row.get("mean"))),
                    group=found[0].get(ctx.display(system), "") if found else "",
                ),
                Cell(fixed(parse_float(row.get("sd")))),
            ]
            if row.get("scale") == "slider":
                row_cells.append(Cell(fixed(parse_float(row.get("z_mean")))))
        table_rows.append(Row(tuple(row_cells), classes=entry.kind if entry else ""))
    tests = sorted({g[1] for g in groups.values() if g})
    notes += human_notes(table_rows, first, "descending", bool(tests))
    return Table(
        f"human-{study.study}",
        f"Human evaluation, study {study.study}: ratings per criterion, means and"
        f" standard deviations per system (listed in descending order of {first})."
        + (
            f" Letters after the means: homogeneous subsets ({'; '.join(tests)})."
            if tests
            else ""
        ),
        columns,
        table_rows,
        notes,
    )


def _preference_table(ctx: Context, study: JudgmentStudy) -> Table:
    rows = sorted(
        study.measures,
        key=lambda r: (parse_float(r.get("bt_rank")) or 1e9, r.get("system", "")),
    )
    criteria = _criteria(ctx, study.study)
    notes = _note(study) + [
        "Win rate: (wins + ties / 2) / comparisons, with its 95% Wilson interval;"
        " Bradley–Terry strength: log-worth by maximum likelihood, centred on 0,"
        " ties split half and half."
    ]
    notes += [f"{c}: “{i['question']}”" for c, i in criteria.items() if "question" in i]
    from stecflow.report.human import human_notes

    lookup = ctx.by_label()
    table_rows = []
    names = named_rows(
        ctx,
        [r.get("system", "") for r in rows],
        [parse_float(r.get("bt_strength")) for r in rows],
        True,
    )
    for r, name_cells in zip(rows, names, strict=True):
        entry = lookup.get(r.get("system", ""))
        table_rows.append(
            Row(
                (
                    *name_cells,
                    Cell(str(r.get("n", ""))),
                    Cell(str(r.get("wins", ""))),
                    Cell(str(r.get("ties", ""))),
                    Cell(str(r.get("losses", ""))),
                    Cell(fixed(parse_float(r.get("win_rate")))),
                    Cell(
                        f"[{fixed(parse_float(r.get('ci_low')))},"
                        f" {fixed(parse_float(r.get('ci_high')))}]"
                    ),
                    Cell(fixed(parse_float(r.get("bt_strength")))),
                    Cell(fixed(parse_float(r.get("bt_se")))),
                ),
                classes=entry.kind if entry else "",
            )
        )
    return Table(
        f"human-{study.study}",
        f"Pairwise preference, study {study.study}: comparisons, wins, ties and"
        " losses per system, the win rate and the Bradley–Terry strength (listed by"
        " strength).",
        [
            RANK_COLUMN,
            NAME_COLUMN,
            Column("n", "Comparisons"),
            Column("wins", "Wins"),
            Column("ties", "Ties"),
            Column("losses", "Losses"),
            Column("win_rate", "Win rate", better="higher"),
            Column("ci", "95% CI"),
            Column("bt_strength", "BT strength", better="higher"),
            Column("bt_se", "SE"),
        ],
        table_rows,
        notes + human_notes(table_rows, "BT strength", "descending", False),
    )


def rating_blocks(ctx: Context, study: JudgmentStudy, task: str) -> list[Block]:
    """A text rating study's results (the text_rating kind's ``report`` hook)."""
    if not study.measures:
        return [notice("No measure could be computed.", "warning")]
    return [ctx.table(_rating_table(ctx, study))]


def preference_blocks(ctx: Context, study: JudgmentStudy, task: str) -> list[Block]:
    """A text preference study's results (the text_preference kind's ``report``
    hook)."""
    if not study.measures:
        return [notice("No measure could be computed.", "warning")]
    return [ctx.table(_preference_table(ctx, study))]

"""Section 4's comparison of evaluation designs (seed 001 §6).

Owns the blocks of the ``design_comparison`` test
(:mod:`stecflow.analysis.families.designs`): the systems' scores and ranks in
each design side by side, the rank correlations of every pair of designs with
their p-values and how often they order two systems alike, and Kendall's W of
all the rankings.
"""

from __future__ import annotations

from typing import Any

from stecflow.report.analysis_blocks import Record, Rows, not_computable, systems_line
from stecflow.report.context import Block, Context, paragraph
from stecflow.report.formatting import fixed, p_cell, parse_float
from stecflow.report.tables import Cell, Column, Row, Table

__all__ = ["design_comparison_blocks"]


def _design_label(design: dict[str, Any]) -> str:
    return f"{design['study']}: {design['measure'].replace('_', ' ')}"


def design_comparison_blocks(
    ctx: Context, record: Record, rows: Rows, stem: str
) -> list[Block]:
    """The side-by-side scores, the correlations and the concordance."""
    designs = record.get("designs") or []
    digits = int(record.get("digits") or 2)
    blocks: list[Block] = []
    if designs:
        columns = [Column("system", "System", align="l")]
        for d in designs:
            label = _design_label(d)
            columns += [
                Column(f"{d['design']}", "Score", group=label),
                Column(f"{d['design']} rank", "Rank", group=label),
            ]
        table_rows = []
        for r in record.get("scores") or []:
            cells = [Cell(ctx.display(str(r["system"])))]
            for d in designs:
                rank = parse_float(r.get(f"{d['design']} rank"))
                cells += [
                    Cell(fixed(parse_float(r.get(d["design"])), digits)),
                    Cell(fixed(rank, 1 if rank is not None and rank % 1 else 0)),
                ]
            table_rows.append(Row(tuple(cells)))
        notes = [
            "; ".join(
                f"{_design_label(d)}: {d['score']}"
                + ("" if d.get("higher_is_better", True) else ", lower is better")
                for d in designs
            )
            + ". Rank 1 is the best; tied systems share their mean rank.",
            systems_line(ctx, record),
        ]
        blocks.append(
            ctx.table(
                Table(
                    f"stats-{stem}-scores",
                    "Each design's per-system scores and ranks, side by side"
                    " (seed 001 §6: slider, rating scale and preference designs"
                    " of one human evaluation).",
                    columns,
                    table_rows,
                    notes,
                )
            )
        )
    if rows:
        columns = [
            Column("design_a", "Design", align="l"),
            Column("design_b", "Design", align="l"),
            Column("n", "n"),
            Column("spearman_rho", "ρ", group="Spearman"),
            Column("spearman_p", "p", group="Spearman"),
            Column("kendall_tau", "τ-b", group="Kendall"),
            Column("kendall_p", "p", group="Kendall"),
            Column("same_order", "Pairs alike"),
            Column("same_best", "Same best"),
        ]
        by_id = {d["design"]: _design_label(d) for d in designs}
        table_rows = [
            Row(
                (
                    Cell(by_id.get(r["design_a"], r["design_a"])),
                    Cell(by_id.get(r["design_b"], r["design_b"])),
                    Cell(r.get("n", "")),
                    Cell(fixed(parse_float(r.get("spearman_rho")), digits)),
                    Cell(p_cell(parse_float(r.get("spearman_p")))),
                    Cell(fixed(parse_float(r.get("kendall_tau")), digits)),
                    Cell(p_cell(parse_float(r.get("kendall_p")))),
                    Cell(fixed(parse_float(r.get("same_order")), digits)),
                    Cell("yes" if r.get("same_best") == "true" else "no"),
                )
            )
            for r in rows
        ]
        blocks.append(
            ctx.table(
                Table(
                    f"stats-{stem}",
                    "Rank correlations between the designs' system rankings, over"
                    " the systems both scored: Spearman's ρ and Kendall's τ-b with"
                    " two-sided p-values; pairs alike: the share of pairs of systems"
                    " both designs order the same way.",
                    columns,
                    table_rows,
                    [systems_line(ctx, record)],
                )
            )
        )
        blocks += not_computable(rows, "Some correlations")
    w = record.get("concordance") or {}
    if w.get("computable"):
        blocks.append(
            paragraph(
                f"Agreement of all {w['m']} rankings over the {w['n']} systems every"
                f" design scored: Kendall's W = {fixed(w['w'], digits)},"
                f" χ²({w['df']}) = {fixed(w['chi2'], digits)},"
                f" p = {p_cell(w['p_value'])}."
            )
        )
    elif w.get("reason"):
        blocks.append(paragraph(f"Kendall's W not computed: {w['reason']}."))
    return blocks

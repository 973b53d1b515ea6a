"""Section 4's paired comparisons: the t-tests and the situated study's analyses.

Owns the blocks of the ``ttest`` test and of the ``situated_ttests`` and
``confusion`` tests (their sentences; their tables are in the situated section).
"""

from __future__ import annotations

from stecflow.report.analysis_blocks import (
    Record,
    Rows,
    design_blocks,
    not_computable,
    systems_line,
    without_property,
)
from stecflow.report.context import Block, Context, measure_info, paragraph
from stecflow.report.formatting import fixed, p_cell, parse_float
from stecflow.report.tables import Cell, Column, Row, Table

__all__ = ["situated_blocks", "ttest_blocks"]


def ttest_blocks(ctx: Context, record: Record, rows: Rows, stem: str) -> list[Block]:
    """Paired t-tests (seed 000): one sentence and one table row per pair."""
    spec = record.get("spec") or {}
    info = measure_info(ctx, spec.get("measure", ""), source=spec.get("source", ""))
    alpha = float(record.get("alpha", 0.05))
    within, pair_by = spec.get("within", "system"), spec.get("pair_by", "item")
    by = list(spec.get("factors") or [])
    texts = [t.get("text", "") for t in record.get("text") or []]
    usable = [r for r in rows if r.get("computable") == "true"]
    sentences = [
        f"Paired t-tests of {info.label} between the levels of {within.upper()},"
        f" paired by {pair_by} (means per {pair_by} and level first)"
        + (f", separately for each {' × '.join(f.upper() for f in by)}" if by else "")
        + (
            f"; p-values {str(rows[0].get('correction')).capitalize()}-corrected"
            " over the pairs"
            if rows and rows[0].get("correction") not in (None, "", "none")
            else ""
        )
        + "."
    ]
    for row, text in zip(usable, texts, strict=False):
        p = parse_float(row.get("p_adj") or row.get("p_val"))
        verdict = (
            "differed significantly"
            if p is not None and p < alpha
            else ("did not differ significantly")
        )
        where = ", ".join(f"{f} {row.get(f, '')}" for f in by)
        sentences.append(
            f"{where + ': ' if where else ''}{row['level_a']} and {row['level_b']}"
            f" {verdict} ({text})."
        )
    shown = lambda v: ctx.display(v) if within == "system" else v  # noqa: E731
    table = Table(
        f"stats-{stem}",
        f"Paired t-tests of {info.label} between levels of {within.upper()},"
        f" paired by {pair_by}.",
        [
            *(Column(f, f.upper(), align="l") for f in by),
            Column("a", "Level a", align="l"),
            Column("b", "Level b", align="l"),
            Column("mean_a", "Mean a"),
            Column("mean_b", "Mean b"),
            Column("delta", "Difference"),
            Column("ci", f"{100 * (1 - alpha):g}% CI", align="c"),
            Column("t", "t"),
            Column("df", "df"),
            Column("p", "p"),
            Column("p_adj", "p (corrected)"),
            Column("dz", "d_z"),
        ],
        [
            Row(
                (
                    *(Cell(r.get(f, "")) for f in by),
                    Cell(shown(r.get("level_a", ""))),
                    Cell(shown(r.get("level_b", ""))),
                    Cell(fixed(info.show(parse_float(r.get("mean_a"))), info.digits)),
                    Cell(fixed(info.show(parse_float(r.get("mean_b"))), info.digits)),
                    Cell(fixed(parse_float(r.get("delta")))),
                    Cell(
                        f"[{fixed(parse_float(r.get('ci_low')))},"
                        f" {fixed(parse_float(r.get('ci_high')))}]"
                    ),
                    Cell(fixed(parse_float(r.get("t")))),
                    Cell(fixed(parse_float(r.get("df")), 0)),
                    Cell(p_cell(parse_float(r.get("p_val")))),
                    Cell(p_cell(parse_float(r.get("p_adj"))) if "p_adj" in r else ""),
                    Cell(fixed(parse_float(r.get("dz")))),
                )
            )
            for r in rows
        ],
        [systems_line(ctx, record)],
    )
    return [
        paragraph(" ".join(sentences)),
        *not_computable(rows, "Some t-tests"),
        *without_property(record),
        *design_blocks(record),
        ctx.table(table),
    ]


def situated_blocks(ctx: Context, record: Record, rows: Rows, stem: str) -> list[Block]:
    """Analyses of a situated study: the sentences; the tables are in its section."""
    from stecflow.report.kind_sections import kind_sections

    source = (record.get("spec") or {}).get("source") or ""
    blocks: list[Block] = [
        paragraph(f"{t.get('about', '')}: {t.get('text', '')}")
        for t in record.get("text") or []
    ]
    # the tables are in the section of the study the analysis reads, or (an
    # analysis of the scores, ``source: scores``: the confusion matrices) in
    # the kind's section; no section, no link
    sections = kind_sections(ctx)
    reading = [s for s in sections if source in s.studies]
    end = "." if not record.get("simulated") else " (simulated data)."
    if sections:
        section = (reading or sections)[0]
        anchor = f"#{section.anchor}" + (f"-{source}" if reading else "")
        blocks.append(
            paragraph(
                "Shown with the study's tables under ",
                {"text": section.title, "href": anchor},
                end,
            )
        )
    return blocks

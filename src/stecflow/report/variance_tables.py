"""Section 4's analyses of variance: ANOVA, Tukey HSD, Kruskal–Wallis, MANOVA, LMM.

Owns the blocks of the ``anova``, ``tukey``, ``kruskal``, ``manova`` and ``mixed``
tests and :func:`tukey_groups` (the homogeneous subsets the study sections show).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stecflow.report.analysis_blocks import (
    Record,
    Rows,
    design_blocks,
    factor_levels,
    not_computable,
    record_float,
    ss_type_numeral,
    systems_line,
    term_label,
    texts_by_topic,
    without_property,
)
from stecflow.report.context import Block, Context, measure_info, notice, paragraph
from stecflow.report.formatting import fixed, no_zero, p_cell, p_text, parse_float
from stecflow.report.tables import Cell, Column, Row, Table

__all__ = [
    "anova_blocks",
    "kruskal_blocks",
    "manova_blocks",
    "mixed_blocks",
    "tukey_blocks",
    "tukey_groups",
]


def anova_blocks(ctx: Context, record: Record, rows: Rows, stem: str) -> list[Block]:
    from stecflow.analysis.formatting import format_result

    spec = record.get("spec") or {}
    info = measure_info(ctx, spec.get("measure", ""), source=spec.get("source", ""))
    factors = list(spec.get("factors") or ["system"])
    alpha = float(record.get("alpha", 0.05))
    texts = texts_by_topic(record)
    if len(factors) == 1:
        design = f"one-way ANOVA of {info.label} on {factors[0].upper()}"
    else:
        design = (
            " × ".join(
                f"{factor_levels(ctx, f, record)} ({f.upper()})" for f in factors
            )
            + f" ANOVA of {info.label} (Type {ss_type_numeral(record)} sums of squares)"
        )
    sentences = [f"We ran a {design} on the item-level data."]
    table_rows = []
    for row in rows:
        source = row.get("source", "")
        p = parse_float(row.get("p_val"))
        np2 = parse_float(row.get("np2"))
        computable = row.get("computable", "true") == "true"
        if source != "Residual":
            numeric = {
                k: parse_float(v)
                for k, v in row.items()
                if k not in ("source", "reason", "computable")
            }
            stat = texts.get(source) or format_result(
                {
                    **numeric,
                    "source": source,
                    "computable": computable,
                    "reason": row.get("reason", ""),
                }
            )
            if not computable:
                sentences.append(
                    f"The effect of {term_label(source)} on {info.label} could not be"
                    f" computed: {row.get('reason') or 'no reason given'}."
                )
            else:
                effect = f"{stat}, ηp² = {no_zero(np2, 3)}" if np2 is not None else stat
                significant = p is not None and p < alpha
                if ":" in source:
                    verdict = (
                        "was significant" if significant else "was not significant"
                    )
                    sentences.append(
                        f"The {term_label(source)} interaction {verdict} ({effect})."
                    )
                elif significant:
                    sentences.append(
                        f"There was a main effect of {term_label(source)} on"
                        f" {info.label} ({effect})."
                    )
                else:
                    sentences.append(
                        f"There was no significant main effect of {term_label(source)}"
                        f" on {info.label} ({effect})."
                    )
        table_rows.append(
            Row(
                (
                    Cell("Error" if source == "Residual" else term_label(source)),
                    Cell(fixed(parse_float(row.get("ss")))),
                    Cell(fixed(parse_float(row.get("df")), 0)),
                    Cell(fixed(parse_float(row.get("ms")))),
                    Cell(
                        fixed(parse_float(row.get("f"))) if source != "Residual" else ""
                    ),
                    Cell(p_cell(p) if source != "Residual" else ""),
                    Cell(
                        no_zero(np2, 3)
                        if np2 is not None and source != "Residual"
                        else ""
                    ),
                )
            )
        )
    table = Table(
        f"stats-{stem}",
        f"ANOVA of {info.label}: {' × '.join(f.upper() for f in factors)}.",
        [
            Column("source", "Source", align="l"),
            Column("ss", "SS"),
            Column("df", "df"),
            Column("ms", "MS"),
            Column("f", "F"),
            Column("p", "p"),
            Column("np2", "ηp²"),
        ],
        table_rows,
        [systems_line(ctx, record)],
    )
    return [paragraph(" ".join(sentences)), *design_blocks(record), ctx.table(table)]


def tukey_groups(
    ctx: Context, measure: str, source: str
) -> tuple[dict[str, str], str] | None:
    """The Tukey HSD letters of *measure* (of *source*: a study or ``scores``).

    Returns the letters by the report's system label and the test's name for a
    caption (``Tukey HSD, α = .05``), from the first Tukey analysis of that
    measure in the statistics; None if there is none or it was not computable.
    Systems that share a letter are not significantly different.
    """
    for record, rows, _ in ctx.analyses:
        spec = record.get("spec") or {}
        if (record.get("test") or spec.get("test")) != "tukey":
            continue
        if spec.get("measure") != measure or (spec.get("source") or "scores") != (
            source
        ):
            continue
        usable = [
            r
            for r in rows
            if r.get("computable", "true") == "true" and r.get("letters")
        ]
        if not usable:
            return None
        alpha = no_zero(float(record.get("alpha", 0.05)), 2)
        return (
            {ctx.display(r["system"]): r["letters"] for r in usable},
            f"Tukey HSD, α = {alpha}",
        )
    return None


def tukey_blocks(ctx: Context, record: Record, rows: Rows, stem: str) -> list[Block]:
    spec = record.get("spec") or {}
    info = measure_info(ctx, spec.get("measure", ""), source=spec.get("source", ""))
    alpha = float(record.get("alpha", 0.05))
    usable = [r for r in rows if r.get("computable", "true") == "true"]
    if not usable:
        reason = rows[0].get("reason", "") if rows else "no systems"
        return [
            notice(f"Tukey HSD on {info.label} not computable: {reason}.", "warning"),
            *design_blocks(record),
        ]
    from stecflow.analysis.formatting import letter_columns

    names, letters = letter_columns(
        [r["system"] for r in usable], [r["letters"] or "" for r in usable]
    )
    kinds = ctx.by_label()
    table_rows = []
    for r in usable:
        entry = kinds.get(r["system"])
        mean = info.show(parse_float(r.get("mean")))
        table_rows.append(
            Row(
                (
                    Cell(ctx.display(r["system"])),
                    Cell(fixed(mean, info.digits)),
                    *(Cell(v) for v in letters[r["system"]]),
                ),
                classes=entry.kind if entry else "",
            )
        )
    subsets = record.get("subsets") or []
    crit = next((s for s in subsets if s.get("q_crit") is not None), None)
    detail = (
        f" (q crit = {fixed(float(crit['q_crit']))}, harmonic mean n ="
        f" {fixed(float(crit['n_harmonic']), 1)})"
        if crit and crit.get("n_harmonic") is not None
        else ""
    )
    count = len(names)
    cld = record.get("display") == "cld"
    groups = "letters" if cld else "homogeneous subsets"
    summary = (
        "all systems share one letter: no pair differs significantly"
        if count == 1
        else f"the systems fall into {count} {groups}"
    )
    how = " (compact letter display of the Tukey-Kramer pairwise tests)" if cld else ""
    text = (
        f"A post hoc Tukey HSD test on {info.label} with α = {no_zero(alpha, 2)}"
        f"{detail}{how}: {summary}. Systems which do not share a letter are"
        f" significantly different at α = {no_zero(alpha, 2)}."
    )
    caption = "Compact letter display" if cld else "Homogeneous subsets"
    table = Table(
        f"stats-{stem}",
        f"{caption} for {info.label} (Tukey HSD). Systems which do not"
        f" share a letter are significantly different at α = {no_zero(alpha, 2)}.",
        [
            Column("system", "System", align="l"),
            Column(
                "mean",
                f"Mean {info.header}",
                better="higher" if info.higher_is_better else "lower",
            ),
            *(Column(f"subset_{n}", n, align="c") for n in names),
        ],
        table_rows,
        [systems_line(ctx, record)],
    )
    return [paragraph(text), *design_blocks(record), ctx.table(table)]


def kruskal_blocks(ctx: Context, record: Record, rows: Rows, stem: str) -> list[Block]:
    spec = record.get("spec") or {}
    info = measure_info(ctx, spec.get("measure", ""), source=spec.get("source", ""))
    alpha = float(record.get("alpha", 0.05))
    texts = texts_by_topic(record)
    sentences = []
    table_rows = []
    for row in rows:
        p = parse_float(row.get("p_val"))
        if row.get("computable", "true") != "true":
            sentences.append(
                f"The Kruskal–Wallis test on {info.label} could not be computed:"
                f" {row.get('reason') or 'no reason given'}."
            )
        else:
            stat = texts.get(row.get("source", "system")) or (
                f"χ²({fixed(parse_float(row.get('df')), 0)}) ="
                f" {fixed(parse_float(row.get('h')))}, {p_text(p)}"
            )
            verdict = (
                "showed a significant difference"
                if p is not None and p < alpha
                else "showed no significant difference"
            )
            sentences.append(
                f"A Kruskal–Wallis test on the systems' item-level {info.label} scores"
                f" {verdict} between systems ({stat})."
            )
        table_rows.append(
            Row(
                (
                    Cell(term_label(row.get("source", "system"))),
                    Cell(fixed(parse_float(row.get("h")))),
                    Cell(fixed(parse_float(row.get("df")), 0)),
                    Cell(p_cell(p)),
                    Cell(row.get("n", "")),
                    Cell(row.get("n_groups", "")),
                )
            )
        )
    table = Table(
        f"stats-{stem}",
        f"Kruskal–Wallis test on {info.label} across systems.",
        [
            Column("source", "Factor", align="l"),
            Column("h", "H (χ²)"),
            Column("df", "df"),
            Column("p", "p"),
            Column("n", "N"),
            Column("groups", "Groups"),
        ],
        table_rows,
        [systems_line(ctx, record)],
    )
    return [paragraph(" ".join(sentences)), *design_blocks(record), ctx.table(table)]


def manova_blocks(ctx: Context, record: Record, rows: Rows, stem: str) -> list[Block]:
    """MANOVA (seed 003 Table 4) with its univariate follow-ups."""
    spec = record.get("spec") or {}
    source = spec.get("source", "")
    labels = [measure_info(ctx, m, source=source).label for m in spec["measures"]]
    alpha = float(record.get("alpha", 0.05))
    texts = {t.get("about", ""): t.get("text", "") for t in record.get("text") or []}
    pillai = [r for r in rows if r.get("test") == "pillai"]
    sentences = [
        f"A multivariate analysis of variance of {', '.join(labels)} on"
        f" {' × '.join(f.upper() for f in spec.get('factors') or [])}"
        " (Type III, sum-to-zero coding); p-values Bonferroni-corrected over the"
        " model's terms, as seed 003 did."
    ]
    for row in pillai:
        p = parse_float(row.get("p_adj"))
        if row.get("computable") != "true":
            continue
        verdict = "significant" if p is not None and p < alpha else "not significant"
        sentences.append(
            f"{term_label(row['source'])}: {texts.get(row['source'] + ', pillai', '')}"
            f" (corrected {p_text(p)}), {verdict}."
        )
    table = Table(
        f"stats-{stem}",
        f"Multivariate tests of {', '.join(labels)}.",
        [
            Column("source", "Effect", align="l"),
            Column("test", "Statistic", align="l"),
            Column("value", "Value"),
            Column("f", "F"),
            Column("df1", "df1"),
            Column("df2", "df2"),
            Column("p", "p"),
            Column("p_adj", "p (corrected)"),
        ],
        [
            Row(
                (
                    Cell(term_label(r.get("source", ""))),
                    Cell(_STATISTICS.get(r.get("test", ""), r.get("test", ""))),
                    Cell(fixed(parse_float(r.get("value")), 3)),
                    Cell(fixed(parse_float(r.get("f")))),
                    Cell(fixed(parse_float(r.get("df1")), 0)),
                    Cell(fixed(parse_float(r.get("df2")), 0)),
                    Cell(p_cell(parse_float(r.get("p_val")))),
                    Cell(p_cell(parse_float(r.get("p_adj")))),
                )
            )
            for r in rows
        ],
        [systems_line(ctx, record)],
    )
    follow = record.get("followups") or []
    follow_table = Table(
        f"stats-{stem}-followups",
        "Univariate follow-up ANOVAs (Type III), p-values Bonferroni-corrected over"
        " the measures.",
        [
            Column("dv", "Measure", align="l"),
            Column("source", "Effect", align="l"),
            Column("f", "F"),
            Column("df", "df"),
            Column("df_resid", "Error df"),
            Column("p", "p"),
            Column("p_adj", "p (corrected)"),
            Column("np2", "ηp²"),
        ],
        [
            Row(
                (
                    Cell(measure_info(ctx, str(f.get("dv")), source=source).label),
                    Cell(term_label(str(f.get("source", "")))),
                    Cell(fixed(record_float(f.get("f")))),
                    Cell(fixed(record_float(f.get("df")), 0)),
                    Cell(fixed(record_float(f.get("df_resid")), 0)),
                    Cell(p_cell(record_float(f.get("p_val")))),
                    Cell(p_cell(record_float(f.get("p_adj")))),
                    Cell(
                        no_zero(record_float(f.get("np2")), 3)
                        if record_float(f.get("np2")) is not None
                        else ""
                    ),
                )
            )
            for f in follow
        ],
        [],
    )
    return [
        paragraph(" ".join(sentences)),
        *not_computable(rows, "The MANOVA"),
        *without_property(record),
        *design_blocks(record),
        ctx.table(table),
        *([ctx.table(follow_table)] if follow else []),
        *(ctx.table(t) for t in _cell_tables(ctx, record, labels, stem)),
    ]


def _level(value: Any) -> str:
    """A factor's level; a boolean property's as yes or no."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return {"true": "yes", "false": "no"}.get(str(value), str(value))


def _cell_tables(
    ctx: Context, record: Record, labels: list[str], stem: str
) -> list[Table]:
    """The cell means, with n, of each interaction the MANOVA tests (seed 003
    §4.1 reads the trainable × incremental interaction from them)."""
    spec = record.get("spec") or {}
    by_term: dict[str, list[Mapping[str, Any]]] = {}
    for cell in record.get("cells") or []:
        by_term.setdefault(str(cell.get("term", "")), []).append(cell)
    tables = []
    for n, (term, cells) in enumerate(by_term.items(), start=1):
        names = term.split(":")
        columns = [
            Column(f"level_{k}", name.upper(), align="l")
            for k, name in enumerate(names)
        ]
        columns.append(Column("n", "n"))
        columns += [
            Column(m, label) for m, label in zip(spec["measures"], labels, strict=True)
        ]
        rows = [
            Row(
                (
                    *(Cell(_level((c.get("levels") or {}).get(x))) for x in names),
                    Cell(str(c.get("n", ""))),
                    *(
                        Cell(fixed(record_float((c.get("means") or {}).get(m)), 3))
                        for m in spec["measures"]
                    ),
                )
            )
            for c in cells
        ]
        tables.append(
            Table(
                f"stats-{stem}-cells-{n}",
                f"Cell means of {term_label(term)} with n, the interaction the"
                " MANOVA tests.",
                columns,
                rows,
                [
                    "n: the rows analysed in the cell (items or trials), so the"
                    " means weigh systems by their rows, as seed 003's did; an"
                    " empty cell (n = 0) makes the interaction not computable."
                ],
            )
        )
    return tables


_STATISTICS = {
    "wilks": "Wilks' Λ",
    "pillai": "Pillai's V",
    "hotelling_lawley": "Hotelling-Lawley T",
    "roy": "Roy's Θ",
}


def mixed_blocks(ctx: Context, record: Record, rows: Rows, stem: str) -> list[Block]:
    """Mixed model: fixed effects with Satterthwaite t-tests, then the variances."""
    spec = record.get("spec") or {}
    info = measure_info(ctx, spec.get("measure", ""), source=spec.get("source", ""))
    fixed_factor = (spec.get("factors") or ["system"])[0]
    log_scale = spec.get("transform") == "log"
    alpha = float(record.get("alpha", 0.05))
    sentences = [
        f"A linear mixed model of {'log ' if log_scale else ''}{info.label} on"
        f" {fixed_factor.upper()} with crossed random intercepts for subjects and"
        f" items, fitted by REML as lme4 does, with t-tests and"
        f" {100 * (1 - alpha):g}% intervals on Satterthwaite's degrees of freedom"
        " (as lmerTest)."
    ]
    first = rows[0] if rows else {}
    if first.get("reml_crit"):
        sentences.append(
            f"REML criterion {fixed(parse_float(first.get('reml_crit')), 2)};"
            f" log-likelihood {fixed(parse_float(first.get('loglik')), 2)}."
        )
    if first.get("converged") == "false":
        sentences.append("The fit did not converge; its estimates are not reliable.")
    notes = sorted({r.get("note", "") for r in rows if r.get("note")})
    if any(r.get("singular") == "true" for r in rows):
        sentences.append(
            "The fit is singular (a variance component is estimated at zero):"
            " the model is simpler than it looks, and its tests should be read"
            " with care" + (f" ({'; '.join(notes)})." if notes else ".")
        )
    table = Table(
        f"stats-{stem}",
        f"Mixed model of {info.label}: fixed effects and variance components"
        + (
            " (estimates on the log scale; back-transformed in the last column)."
            if log_scale
            else "."
        ),
        [
            Column("effect", "Effect", align="l"),
            Column("term", "Term", align="l"),
            Column("estimate", "Estimate"),
            Column("se", "SE"),
            Column("df", "df"),
            Column("t", "t"),
            Column("p", "p"),
            Column("ci", "CI", align="c"),
            Column("response", "Response scale"),
        ],
        [
            Row(
                (
                    Cell(r.get("effect", "")),
                    Cell(
                        ctx.display(r.get("term", ""))
                        if fixed_factor == "system" and r.get("effect") == "fixed"
                        else r.get("term", "")
                    ),
                    Cell(fixed(parse_float(r.get("estimate")), 3)),
                    Cell(fixed(parse_float(r.get("se")), 3)),
                    Cell(fixed(parse_float(r.get("df")), 1)),
                    Cell(fixed(parse_float(r.get("t") or r.get("z")))),
                    Cell(p_cell(parse_float(r.get("p_val")))),
                    Cell(
                        f"[{fixed(parse_float(r.get('ci_low')), 3)},"
                        f" {fixed(parse_float(r.get('ci_high')), 3)}]"
                        if r.get("effect") == "fixed"
                        else ""
                    ),
                    Cell(fixed(parse_float(r.get("response_estimate")), 3)),
                )
            )
            for r in rows
        ],
        [systems_line(ctx, record)],
    )
    return [
        paragraph(" ".join(sentences)),
        *not_computable(rows, "The mixed model"),
        *without_property(record),
        *design_blocks(record),
        ctx.table(table),
    ]

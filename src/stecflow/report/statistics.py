"""Section 4, statistical analyses written as the seed papers write them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from stecflow.report.context import (
    Block,
    Context,
    heading,
    measure_info,
    measure_label,
    measure_values,
    notice,
    paragraph,
)
from stecflow.report.formatting import DASH, fixed, no_zero, p_cell, p_text, parse_float
from stecflow.report.svg import ScatterPoint, heatmap, scatter_plot
from stecflow.report.tables import Cell, Column, Row, Table

__all__ = ["correlation_caveats", "design_caveat", "statistics_section"]

Record = dict[str, Any]  # an analysis' JSON record
Rows = list[dict[str, str]]  # its TSV table


def _factor(name: str) -> str:
    return " × ".join(part.upper() for part in name.split(":"))


def _levels(ctx: Context, factor: str, record: Mapping[str, Any]) -> int:
    if factor in (record.get("levels") or {}):  # counted on the data analysed
        return int(record["levels"][factor])
    if factor == "system":
        return len(record.get("systems") or [])
    if factor == "subdomain":
        return len(ctx.testset.subdomains)
    if factor == "condition":
        return len(ctx.testset.conditions)
    return 0


def _systems_line(ctx: Context, record: Mapping[str, Any]) -> str:
    systems = [ctx.display(s) for s in record.get("systems") or []]
    stats = ctx.config.get("statistics") or {}
    late = "included" if stats.get("include_late", False) else "excluded"
    text = (
        f"Systems ({len(systems)}): {', '.join(systems) or 'none'};"
        f" late submissions {late}"
    )
    excluded = record.get("excluded_systems") or []
    lookup = ctx.by_label()
    references = [
        s for s in record.get("systems") or [] if s in lookup and lookup[s].reference
    ]
    if record.get("test") == "correlations" and excluded:
        text += "; left out of the correlations: " + ", ".join(
            ctx.display(s) for s in excluded
        )
    elif record.get("test") == "correlations" and references:
        text += "; human reference sets included"
    if record.get("n_observations") is not None:
        text += f"; N = {record['n_observations']} observations"
    return text + f"; α = {no_zero(float(record.get('alpha', 0.05)), 2)}."


def _ss_type(record: Mapping[str, Any]) -> str:
    """The sums of squares of an ANOVA, in Roman numerals (statistics.ss_type)."""
    kind = int((record.get("settings") or {}).get("ss_type", 3))
    return {1: "I", 2: "II", 3: "III"}.get(kind, str(kind))


def _texts(record: Mapping[str, Any]) -> dict[str, str]:
    return {t.get("about", ""): t.get("text", "") for t in record.get("text") or []}


def design_caveat(record: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(title, sentence)`` for an analysis on an incomplete or unbalanced design.

    Read from the record's ``design`` (written by
    :func:`stecflow.stats.balance.design_completeness`); None when the design is
    complete and balanced, or not recorded.

    Examples
    --------
    >>> design_caveat({"design": {"complete": False, "balanced": False,
    ...     "note": "3 of 8 lists have no participant."}})
    ('Incomplete design', '3 of 8 lists have no participant.')
    >>> design_caveat({"design": {"complete": True, "balanced": True, "note": ""}})
    """
    design = record.get("design") or {}
    if not design.get("note"):
        return None
    title = "Incomplete design" if not design.get("complete") else "Unbalanced cells"
    return title, str(design["note"])


def _design_blocks(record: Mapping[str, Any]) -> list[Block]:
    caveat = design_caveat(record)
    return [] if caveat is None else [notice(caveat[1], "warning", caveat[0])]


def _few_systems(row: Mapping[str, str]) -> bool:
    return row.get("few_systems", "false") == "true"


def correlation_caveats(
    ctx: Context, record: Mapping[str, Any]
) -> list[tuple[str, str]]:
    """``(title, sentence)`` per caveat of a correlation analysis.

    Read from the record's ``caveats`` (written by
    :func:`stecflow.stats.correlation.correlation_caveats`): over too few systems
    no correlation is marked significant; a constant measure has no correlation
    (named here by its label).
    """
    out = []
    for caveat in record.get("caveats") or []:
        if caveat.get("kind") == "constant" and caveat.get("measure"):
            label = measure_info(ctx, str(caveat["measure"])).label
            out.append(
                (
                    "Undefined correlations",
                    f"{label} has the same value for every system, so its"
                    " correlation with any other measure is undefined.",
                )
            )
        elif caveat.get("kind") == "few_systems" and caveat.get("text"):
            out.append(("Too few systems", str(caveat["text"])))
    return out


def _anova(ctx: Context, record: Record, rows: Rows, stem: str) -> list[Block]:
    from stecflow.analysis.formatting import format_result

    spec = record.get("spec") or {}
    info = measure_info(ctx, spec.get("measure", ""), source=spec.get("source", ""))
    factors = list(spec.get("factors") or ["system"])
    alpha = float(record.get("alpha", 0.05))
    texts = _texts(record)
    if len(factors) == 1:
        design = f"one-way ANOVA of {info.label} on {factors[0].upper()}"
    else:
        design = (
            " × ".join(f"{_levels(ctx, f, record)} ({f.upper()})" for f in factors)
            + f" ANOVA of {info.label} (Type {_ss_type(record)} sums of squares)"
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
                    f"The effect of {_factor(source)} on {info.label} could not be"
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
                        f"The {_factor(source)} interaction {verdict} ({effect})."
                    )
                elif significant:
                    sentences.append(
                        f"There was a main effect of {_factor(source)} on"
                        f" {info.label} ({effect})."
                    )
                else:
                    sentences.append(
                        f"There was no significant main effect of {_factor(source)}"
                        f" on {info.label} ({effect})."
                    )
        table_rows.append(
            Row(
                (
                    Cell("Error" if source == "Residual" else _factor(source)),
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
        [_systems_line(ctx, record)],
    )
    return [paragraph(" ".join(sentences)), *_design_blocks(record), ctx.table(table)]


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


def _tukey(ctx: Context, record: Record, rows: Rows, stem: str) -> list[Block]:
    spec = record.get("spec") or {}
    info = measure_info(ctx, spec.get("measure", ""), source=spec.get("source", ""))
    alpha = float(record.get("alpha", 0.05))
    usable = [r for r in rows if r.get("computable", "true") == "true"]
    if not usable:
        reason = rows[0].get("reason", "") if rows else "no systems"
        return [
            notice(f"Tukey HSD on {info.label} not computable: {reason}.", "warning"),
            *_design_blocks(record),
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
        [_systems_line(ctx, record)],
    )
    return [paragraph(text), *_design_blocks(record), ctx.table(table)]


def _kruskal(ctx: Context, record: Record, rows: Rows, stem: str) -> list[Block]:
    spec = record.get("spec") or {}
    info = measure_info(ctx, spec.get("measure", ""), source=spec.get("source", ""))
    alpha = float(record.get("alpha", 0.05))
    texts = _texts(record)
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
                    Cell(_factor(row.get("source", "system"))),
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
        [_systems_line(ctx, record)],
    )
    return [paragraph(" ".join(sentences)), *_design_blocks(record), ctx.table(table)]


def _correlations(ctx: Context, record: Record, rows: Rows, stem: str) -> list[Block]:
    from stecflow.analysis.formatting import correlation_cells

    spec = record.get("spec") or {}
    measures = list(spec.get("measures") or [])
    method = record.get("method", spec.get("method", "pearson"))
    symbol = "ρ" if method == "spearman" else "r"
    name = "Spearman's ρ" if method == "spearman" else "Pearson's r"
    infos = {m: measure_info(ctx, m) for m in measures}
    labels = [infos[m].label for m in measures]
    if not rows:
        return [notice("No correlations were computed.", "warning")]
    matrix = correlation_cells(
        (
            (
                r["measure_a"],
                r["measure_b"],
                parse_float(r.get("r")),
                r.get("sig", ""),
                r.get("computable", "true") == "true",
            )
            for r in rows
        ),
        measures,
    )
    values: dict[tuple[str, str], float | None] = {(m, m): 1.0 for m in measures}
    marks: dict[tuple[str, str], str] = {}
    for r in rows:
        a, b = r["measure_a"], r["measure_b"]
        ok = r.get("computable", "true") == "true"
        values[(a, b)] = values[(b, a)] = parse_float(r.get("r")) if ok else None
        marks[(a, b)] = marks[(b, a)] = r.get("sig", "") if ok else ""
    table_rows = [
        Row(
            (
                Cell(label),
                *(Cell(matrix.get((m, n), "")) for n in measures),
            )
        )
        for m, label in zip(measures, labels, strict=True)
    ]
    table = Table(
        f"stats-{stem}",
        f"Correlations ({name}) between evaluation measures, computed on the"
        " per-system means (* significant at p < .05; ** significant at p < .01).",
        [Column("measure", "", align="l")]
        + [Column(m, label) for m, label in zip(measures, labels, strict=True)],
        table_rows,
        [_systems_line(ctx, record)],
    )
    texts = _texts(record)
    significant = [
        f"{infos[r['measure_a']].label}–{infos[r['measure_b']].label}"
        f" ({texts.get(r['measure_a'] + ' ~ ' + r['measure_b'], '')})"
        for r in rows
        if (p := parse_float(r.get("p_val"))) is not None
        and p < float(record.get("alpha", 0.05))
        and r.get("computable", "true") == "true"
        and not _few_systems(r)
    ]
    computed = [r for r in rows if r.get("computable", "true") == "true"]
    if significant:
        verdict = "Significant correlations: " + "; ".join(significant) + "."
    elif computed and all(_few_systems(r) for r in computed):
        verdict = (
            "No correlation is marked significant: too few systems (see the note)."
        )
    else:
        verdict = "No correlation was significant."
    n_sys = len(record.get("systems") or []) - len(record.get("excluded_systems") or [])
    corpus = [infos[m].label for m in measures if infos[m].level == "corpus"]
    text = (
        f"{name} between the per-system means of {len(measures)} measures over"
        f" {n_sys} systems (one mean per system on each measure"
        + (f"; {' and '.join(corpus)} at corpus level" if corpus else "")
        + "). "
        + verdict
    )
    blocks: list[Block] = [paragraph(text)]
    blocks += [
        notice(sentence, "warning", title)
        for title, sentence in correlation_caveats(ctx, record)
    ]
    blocks.append(ctx.table(table))
    pairs = Table(
        f"stats-{stem}-pairs",
        f"Every pair of measures: {name}, degrees of freedom and p.",
        [
            Column("measure_a", "Measure", align="l"),
            Column("measure_b", "Measure", align="l"),
            Column("r", symbol),
            Column("df", "df"),
            Column("p", "p"),
            Column("result", "Result", align="l"),
        ],
        [
            Row(
                (
                    Cell(measure_info(ctx, r["measure_a"]).label),
                    Cell(measure_info(ctx, r["measure_b"]).label),
                    Cell(fixed(parse_float(r.get("r"))) + r.get("sig", "")),
                    Cell(fixed(parse_float(r.get("df")), 0)),
                    Cell(p_cell(parse_float(r.get("p_val")))),
                    Cell(
                        (
                            texts.get(f"{r['measure_a']} ~ {r['measure_b']}")
                            or (r.get("reason") or DASH)
                        )
                        + (
                            f"; not marked: fewer than {record.get('min_systems', 5)}"
                            " systems"
                            if _few_systems(r) and r.get("computable", "true") == "true"
                            else ""
                        )
                    ),
                )
            )
            for r in rows
        ],
    )
    blocks.append(
        {
            "kind": "details",
            "summary": "Every pair of measures, with df and p",
            "blocks": [ctx.table(pairs)],
        }
    )
    figures = [
        ctx.figure(
            heatmap(
                labels,
                [[values.get((m, n)) for n in measures] for m in measures],
                [[marks.get((m, n), "") for n in measures] for m in measures],
                title=f"{name} between measures",
            ),
            f"Heat map of the correlations in Table {table.number}"
            f" ({symbol} from -1, blue, to +1, red).",
            f"figure-{stem}-heatmap",
        )
    ]
    # scatter plots: the first measure against each other one, over systems
    systems = [
        s
        for s in record.get("systems") or []
        if s not in (record.get("excluded_systems") or [])
    ]
    lookup = ctx.by_label()
    first = measures[0] if measures else ""
    for other in measures[1:]:
        fa, fb = infos[first], infos[other]
        xs, ys = measure_values(ctx, first), measure_values(ctx, other)
        points = []
        for s in systems:
            entry = lookup.get(s)
            points.append(
                ScatterPoint(
                    ctx.display(s),
                    xs.get(s),
                    ys.get(s),
                    entry.kind if entry else "system",
                )
            )
        coefficient = values.get((first, other))
        title = f"{fa.label} vs {fb.label}" + (
            f" ({symbol} = {fixed(coefficient, 2)}{marks.get((first, other), '')})"
            if coefficient is not None
            else ""
        )
        figures.append(
            ctx.figure(
                scatter_plot(points, x_label=fa.header, y_label=fb.header, title=title),
                f"{fb.header} against {fa.header}, one point per system.",
                f"figure-{stem}-{first}-{other}",
            )
        )
    blocks.append({"kind": "figures", "items": figures})
    return blocks


def _generic(ctx: Context, record: Record, rows: Rows, stem: str) -> list[Block]:
    """Any other analysis: its text lines and its table as written."""
    blocks: list[Block] = [
        paragraph(f"{t.get('about', '')}: {t.get('text', '')}")
        for t in record.get("text") or []
    ]
    if rows:
        names = list(rows[0])
        blocks.append(
            ctx.table(
                Table(
                    f"stats-{stem}",
                    f"Analysis {stem} ({record.get('test', '?')}).",
                    [Column(n, n, align="l") for n in names],
                    [Row(tuple(Cell(r.get(n, "")) for n in names)) for r in rows],
                    [_systems_line(ctx, record)],
                )
            )
        )
    return blocks


def _not_computable(rows: Rows, what: str) -> list[Block]:
    reasons = sorted(
        {r.get("reason", "") for r in rows if r.get("computable") != "true"}
    )
    if not reasons:
        return []
    return [
        notice(
            f"{what} could not be computed: {'; '.join(r for r in reasons if r)}.",
            "warning",
        )
    ]


def _without_property(record: Mapping[str, Any]) -> list[Block]:
    lacking = record.get("systems_without_property") or {}
    return [
        notice(
            f"{', '.join(who)} did not declare {name} and are left out of this"
            " analysis.",
            "warning",
            "Systems without the property",
        )
        for name, who in sorted(lacking.items())
    ]


def _ttest(ctx: Context, record: Record, rows: Rows, stem: str) -> list[Block]:
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
        [_systems_line(ctx, record)],
    )
    return [
        paragraph(" ".join(sentences)),
        *_not_computable(rows, "Some t-tests"),
        *_without_property(record),
        *_design_blocks(record),
        ctx.table(table),
    ]


def _manova(ctx: Context, record: Record, rows: Rows, stem: str) -> list[Block]:
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
            f"{_factor(row['source'])}: {texts.get(row['source'] + ', pillai', '')}"
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
                    Cell(_factor(r.get("source", ""))),
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
        [_systems_line(ctx, record)],
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
                    Cell(_factor(str(f.get("source", "")))),
                    Cell(fixed(_float(f.get("f")))),
                    Cell(fixed(_float(f.get("df")), 0)),
                    Cell(fixed(_float(f.get("df_resid")), 0)),
                    Cell(p_cell(_float(f.get("p_val")))),
                    Cell(p_cell(_float(f.get("p_adj")))),
                    Cell(
                        no_zero(_float(f.get("np2")), 3)
                        if _float(f.get("np2")) is not None
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
        *_not_computable(rows, "The MANOVA"),
        *_without_property(record),
        *_design_blocks(record),
        ctx.table(table),
        *([ctx.table(follow_table)] if follow else []),
    ]


_STATISTICS = {
    "wilks": "Wilks' Λ",
    "pillai": "Pillai's V",
    "hotelling_lawley": "Hotelling-Lawley T",
    "roy": "Roy's Θ",
}


def _float(value: Any) -> float | None:
    """A number of a JSON record (None, NaN and text become None)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if number != number else number


def _mixed(ctx: Context, record: Record, rows: Rows, stem: str) -> list[Block]:
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
        [_systems_line(ctx, record)],
    )
    return [
        paragraph(" ".join(sentences)),
        *_not_computable(rows, "The mixed model"),
        *_without_property(record),
        *_design_blocks(record),
        ctx.table(table),
    ]


def _property_means(ctx: Context, record: Record, rows: Rows, stem: str) -> list[Block]:
    """Means by system property, one column per level (seed 003 Table 3)."""
    spec = record.get("spec") or {}
    source = spec.get("source", "")
    factors = list(dict.fromkeys(r["factor"] for r in rows))
    columns = [
        (f, level)
        for f in factors
        for level in dict.fromkeys(r["level"] for r in rows if r["factor"] == f)
        if level
    ]
    cells = {(r["factor"], r["level"], r["measure"]): r for r in rows}
    table_rows = []
    for measure in spec.get("measures") or []:
        info = measure_info(ctx, measure, source=source)
        table_rows.append(
            Row(
                (
                    Cell(info.label),
                    *(
                        Cell(
                            fixed(
                                info.show(parse_float(cells[(f, lv, measure)]["mean"])),
                                info.digits,
                            )
                            if (f, lv, measure) in cells
                            else DASH
                        )
                        for f, lv in columns
                    ),
                )
            )
        )
    counts = "; ".join(
        f"{f} {lv}: {cells[(f, lv, m)]['n_systems']}"
        f" system{'' if cells[(f, lv, m)]['n_systems'] == '1' else 's'}"
        f" ({cells[(f, lv, m)]['systems']})"
        for f, lv in columns
        for m in (spec.get("measures") or [])[:1]
        if (f, lv, m) in cells
    )
    table = Table(
        f"stats-{stem}",
        "Means by system property (over the "
        + ("items" if source in ("", "scores") else "trials")
        + " of the systems having each level; unequal-sized samples, as in seed"
        " 003 Table 3).",
        [
            Column("measure", "Measure", align="l"),
            *(Column(f"{f}_{lv}", f"{f}: {lv}") for f, lv in columns),
        ],
        table_rows,
        [*([counts + "."] if counts else []), _systems_line(ctx, record)],
    )
    return [
        *_not_computable(rows, "Some means"),
        *_without_property(record),
        ctx.table(table),
    ]


def _situated(ctx: Context, record: Record, rows: Rows, stem: str) -> list[Block]:
    """Analyses of a situated study: the sentences; the tables are in its section."""
    from stecflow.report.situated import situated_studies

    source = (record.get("spec") or {}).get("source") or ""
    blocks: list[Block] = [
        paragraph(f"{t.get('about', '')}: {t.get('text', '')}")
        for t in record.get("text") or []
    ]
    # the tables are in the section of the situated study the analysis reads,
    # or (an analysis of the scores, ``source: scores``: the confusion
    # matrices) in the situated section; no section, no link
    studies = situated_studies(ctx)
    anchor = (
        f"#situated-{source}" if source in studies else "#situated" if studies else ""
    )
    end = "." if not record.get("simulated") else " (simulated data)."
    if anchor:
        blocks.append(
            paragraph(
                "Shown with the study's tables under ",
                {"text": "Situated identification study", "href": anchor},
                end,
            )
        )
    return blocks


_ANALYSIS_BUILDERS = {
    "anova": _anova,
    "tukey": _tukey,
    "kruskal": _kruskal,
    "correlations": _correlations,
    "ttest": _ttest,
    "manova": _manova,
    "mixed": _mixed,
    "property_means": _property_means,
    "situated_ttests": _situated,
    "confusion": _situated,
}
_ANALYSIS_TITLES = {
    "anova": "ANOVA",
    "tukey": "Tukey HSD homogeneous subsets",
    "kruskal": "Kruskal–Wallis test",
    "correlations": "Correlations",
    "ttest": "Paired t-tests",
    "manova": "MANOVA",
    "mixed": "Mixed-effects model",
    "property_means": "Means by system property",
    "situated_ttests": "Paired t-tests of the situated study",
    "confusion": "Intrinsic evaluation of the pronoun class",
}


def statistics_section(ctx: Context) -> list[Block]:
    """Section 4: every analysis of results/stats, in config order."""
    if not ctx.analyses:
        return [notice("No statistical analyses are configured.", "placeholder")]
    blocks: list[Block] = []
    for record, rows, stem in ctx.analyses:
        test = str(record.get("test", ""))
        spec = record.get("spec") or {}
        what = (
            measure_info(ctx, spec["measure"], source=spec.get("source", "")).label
            if spec.get("measure")
            else ", ".join(measure_label(ctx, m) for m in spec.get("measures") or [])
        )
        source = spec.get("source", "")
        if source and source != "scores":
            what += f", study {source}"
        title = _ANALYSIS_TITLES.get(test, test)
        if test == "tukey" and record.get("display") == "cld":
            title = "Tukey HSD compact letter display"
        blocks.append(
            heading(
                f"{title}{': ' + what.lstrip(', ') if what else ''}"
                f" ({record.get('id', stem)})",
                f"stats-{stem}-section",
            )
        )
        awaiting = record.get("awaiting_responses") or []
        if awaiting:  # a study built before its data: nothing to analyse yet
            blocks.append(
                notice(awaiting_text(awaiting), "placeholder", "Awaiting responses")
            )
            continue
        builder = _ANALYSIS_BUILDERS.get(test, _generic)
        blocks.extend(builder(ctx, record, rows, stem))
    return blocks


def awaiting_text(studies: Sequence[str]) -> str:
    """The sentence shown where a study's figures will be once its data are in.

    >>> awaiting_text(["rating"])  # doctest: +ELLIPSIS
    'Study rating is built (design, stimuli, web experiment, DMDX files) but no ...'
    """
    names = ", ".join(studies)
    which = "Study" if len(studies) == 1 else "Studies"
    verb = "is" if len(studies) == 1 else "are"
    return (
        f"{which} {names} {verb} built (design, stimuli, web experiment, DMDX files)"
        " but no response files are listed for it yet; this analysis runs once they"
        " are (studies[].responses in the config)."
    )

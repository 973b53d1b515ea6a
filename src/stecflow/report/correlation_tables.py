"""Section 4's analyses relating measures: correlations and means by system property.

Owns the blocks of the ``correlations`` and ``property_means`` tests and
:func:`correlation_caveats` (the caveats of a correlation analysis).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stecflow.report.analysis_blocks import (
    Record,
    Rows,
    few_systems,
    not_computable,
    systems_line,
    texts_by_topic,
    without_property,
)
from stecflow.report.context import (
    Block,
    Context,
    measure_info,
    measure_values,
    notice,
    paragraph,
)
from stecflow.report.formatting import DASH, fixed, p_cell, parse_float
from stecflow.report.measure_types import MeasureTypes, grouped
from stecflow.report.svg import ScatterPoint, heatmap, scatter_plot
from stecflow.report.tables import Cell, Column, Row, Table

__all__ = ["correlation_blocks", "correlation_caveats", "property_means_blocks"]


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


def correlation_blocks(
    ctx: Context, record: Record, rows: Rows, stem: str
) -> list[Block]:
    from stecflow.analysis.formatting import correlation_cells

    spec = record.get("spec") or {}
    measures = list(spec.get("measures") or [])
    method = record.get("method", spec.get("method", "pearson"))
    symbol = "ρ" if method == "spearman" else "r"
    name = "Spearman's ρ" if method == "spearman" else "Pearson's r"
    infos = {m: measure_info(ctx, m) for m in measures}
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
    # grouped by type: seed 001 Table 10's headers, seed 002 Table 2's boxes
    types = MeasureTypes(ctx.config)
    by_type = grouped(measures, {m: types.of(m) for m in measures})
    ordered = [m for _, group in by_type for m in group]
    # the columns headed by the group alone, unless two blocks share it
    groups = [kind.group for kind, _ in by_type]
    header = {
        m: kind.short_header if groups.count(kind.group) == 1 else kind.header
        for kind, group in by_type
        for m in group
    }
    table_rows = []
    for kind, group in by_type:
        table_rows.append(Row(heading=kind.header))
        table_rows += [
            Row(
                (
                    Cell(infos[m].label),
                    *(Cell(matrix.get((m, n), "")) for n in ordered),
                )
            )
            for m in group
        ]
    table = Table(
        f"stats-{stem}",
        f"Correlations ({name}) between evaluation measures, computed on the"
        " per-system means (* significant at p < .05; ** significant at p < .01).",
        [Column("measure", "", align="l")]
        + [Column(m, infos[m].label, group=header[m]) for m in ordered],
        table_rows,
        [
            systems_line(ctx, record),
            "Measures grouped by type (human- or auto-assessed, intrinsic or"
            " extrinsic, and the broad type, as in the evaluation criteria"
            " table).",
        ],
    )
    texts = texts_by_topic(record)
    significant = [
        f"{infos[r['measure_a']].label}–{infos[r['measure_b']].label}"
        f" ({texts.get(r['measure_a'] + ' ~ ' + r['measure_b'], '')})"
        for r in rows
        if (p := parse_float(r.get("p_val"))) is not None
        and p < float(record.get("alpha", 0.05))
        and r.get("computable", "true") == "true"
        and not few_systems(r)
    ]
    computed = [r for r in rows if r.get("computable", "true") == "true"]
    if significant:
        verdict = "Significant correlations: " + "; ".join(significant) + "."
    elif computed and all(few_systems(r) for r in computed):
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
                            if few_systems(r) and r.get("computable", "true") == "true"
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
                [infos[m].label for m in ordered],
                [[values.get((m, n)) for n in ordered] for m in ordered],
                [[marks.get((m, n), "") for n in ordered] for m in ordered],
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


def property_means_blocks(
    ctx: Context, record: Record, rows: Rows, stem: str
) -> list[Block]:
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
        [*([counts + "."] if counts else []), systems_line(ctx, record)],
    )
    return [
        *not_computable(rows, "Some means"),
        *without_property(record),
        ctx.table(table),
    ]

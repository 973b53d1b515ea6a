"""Section 2, automatic evaluation: seed 001 Table 5 style tables and plots."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from stecflow.report.context import (
    FAMILY_TITLES,
    HEADLINE,
    LATE_MARK,
    PRIMARY_NOTE,
    SUPERSEDED_MARK,
    SYSTEM_COLUMN,
    Block,
    Context,
    ci_note,
    cluster_cell,
    codes,
    heading,
    headline_metrics,
    metric_ids,
    notice,
    official_ranks,
    ordered_systems,
    paragraph,
    rank_values,
    ranking_metric,
    score_cell,
    score_column,
    score_notes,
    score_rows,
    signature_list,
    subset_title,
    system_cell,
)
from stecflow.report.formatting import DASH, fixed, p_cell, parse_float
from stecflow.report.inputs import SystemEntry
from stecflow.report.overview import task_summary
from stecflow.report.presentation import subset_header
from stecflow.report.self_reported import self_reported_block
from stecflow.report.svg import IntervalPoint, interval_plot
from stecflow.report.tables import RANK_COLUMN, Cell, Column, Row, Table, rank_cells

#: How the scores were computed, by the campaign's task types where they are not
#: the REG tasks': seed 000's decisions, and text generation's sacreBLEU metrics.
MODELS = {
    frozenset({"situated_dialogue"}): "as in the situated-dialogue study of Spanger"
    " et al. (seed 000, Table 4): precision, recall and F of the pronoun class"
    " against the corpus",
    frozenset({"text_generation"}): "against the references of each input, BLEU,"
    " chrF++ and TER by sacreBLEU itself (Post 2018), so that they equal its"
    " command line on the same texts",
}

__all__ = ["scores_section"]


def scores_section(ctx: Context) -> list[Block]:
    """Section 2: score tables overall, per subdomain and condition; plots."""
    blocks: list[Block] = []
    if not ctx.scored:
        return [notice("No system could be scored: see Data quality.", "warning")]
    rank = ranking_metric(ctx)
    rank_info = ctx.metric(rank) if rank else None
    order = (
        f" (listed in order of overall {rank_info.label}, {rank_info.direction})"
        if rank_info
        else ""
    )
    headline = headline_metrics(ctx)
    # the subsets scored (scoring leaves out a lone subdomain: it equals "all")
    scored = {(kind, name) for e in ctx.scored for (_, kind, name) in e.scores}
    sizes = [s for s in ctx.testset.subset_sizes() if (s[0], s[1]) in scored]
    main = [s for s in sizes if s[0] in ("all", "subdomain")]
    conds = [s for s in sizes if s[0] == "condition"]
    fields: dict[str, list[tuple[str, str, int]]] = {}
    for size in sizes:
        if size[0] not in ("all", "subdomain", "condition"):
            fields.setdefault(size[0], []).append(size)
    tasks = set(ctx.config.get("campaign", {}).get("tasks") or ())
    model = MODELS.get(
        frozenset(tasks), "as in the TUNA-REG'09 challenge (Gatt, Belz and Kow 2009)"
    )
    blocks.append(
        paragraph(
            "Automatic intrinsic scores of every accepted submission on the test set,"
            f" computed by stecflow {model}. Every number carries a signature, listed"
            " under the tables."
        )
    )

    def grouped_table(
        anchor: str, caption: str, subsets: Sequence[tuple[str, str, int]]
    ) -> Block:
        columns = [SYSTEM_COLUMN]
        keys = []
        for kind, name, n in subsets:
            group = subset_header(kind, name, n)
            for mid in headline:
                prefix = "" if kind == "all" else f"{name}_"
                columns.append(score_column(ctx.metric(mid), group, prefix))
                keys.append((mid, kind, name))
        rows, skipped = score_rows(ctx, keys, groups=ctx.clusters)
        columns, rows = leaderboard(ctx, columns, rows, keys, ctx.clusters)
        notes = score_notes(ctx, headline, skipped) + leaderboard_notes(
            ctx, rows, columns
        )
        signatures = dict(signature_list(ctx))
        notes += [
            f"Signature {ctx.metric(mid).header}: {signatures[ctx.metric(mid).header]}"
            for mid in headline
            if ctx.metric(mid).header in signatures
        ]
        return ctx.table(
            Table(
                anchor,
                caption + groups_caption(ctx, columns),
                columns,
                rows,
                notes,
                detail_note=ci_note(ctx),
            )
        )

    blocks.append(
        grouped_table(
            "scores-main",
            "Automatic intrinsic scores on the test data"
            + (", overall and per subdomain" if len(main) > 1 else "")
            + order
            + ".",
            main,
        )
    )
    blocks += self_reported_block(ctx)  # seed 001 Table 4, beside Table 5
    if conds:
        blocks.append(
            grouped_table(
                "scores-condition",
                "Automatic intrinsic scores per condition" + order + ".",
                conds,
            )
        )
    for field, subsets in fields.items():  # data.subsets: each meta field's values
        blocks.append(
            grouped_table(
                f"scores-{field}",
                f"Automatic intrinsic scores per {field}" + order + ".",
                subsets,
            )
        )

    blocks += task_blocks(ctx)

    # every metric, overall, one table per family
    blocks.append(heading("Every metric", "scores-all-metrics"))
    families: dict[str, list[str]] = {}
    for mid in metric_ids(ctx):
        families.setdefault(ctx.metric(mid).family, []).append(mid)
    for family in ("text", "attributes", "domain", "decision", "other"):
        mids = families.get(family)
        if not mids:
            continue
        columns = [SYSTEM_COLUMN] + [score_column(ctx.metric(m), "", "") for m in mids]
        keys = [(m, "all", "all") for m in mids]
        rows, skipped = score_rows(ctx, keys, groups=ctx.clusters)
        columns, rows = leaderboard(ctx, columns, rows, keys, ctx.clusters)
        blocks.append(
            ctx.table(
                Table(
                    f"scores-{family}",
                    f"Every metric on {FAMILY_TITLES[family]}, all test data"
                    + order
                    + "."
                    + groups_caption(ctx, columns),
                    columns,
                    rows,
                    score_notes(ctx, mids, skipped)
                    + leaderboard_notes(ctx, rows, columns),
                    latex_detail=True,
                    detail_note=ci_note(ctx),
                )
            )
        )

    # figures: means with CIs per headline metric
    blocks.append(heading("Means and confidence intervals", "scores-figures"))
    official, late = ordered_systems(ctx)
    figures = []
    boot = (ctx.config.get("scoring") or {}).get("bootstrap") or {}
    level = f"{100 * float(boot.get('confidence', 0.95)):g}%"
    for mid in headline:
        info = ctx.metric(mid)
        points = []
        for entry in [*official, *late]:
            low, high = (info.show(v) for v in entry.interval(mid))
            mark = (
                f" {SUPERSEDED_MARK}"
                if entry.superseded_by
                else f" {LATE_MARK}"
                if entry.late
                else ""
            )
            points.append(
                IntervalPoint(
                    entry.label + mark,
                    info.show(entry.value(mid)),
                    low,
                    high,
                    entry.kind,
                )
            )
        svg = interval_plot(
            points,
            title=f"{info.header}: {info.direction}",
            axis_label=f"{info.header}, all test data",
            note=f"dots: scores; bars: {level} bootstrap CIs",
        )
        figures.append(
            ctx.figure(
                svg,
                f"{info.header} per system with {level} bootstrap confidence intervals"
                " (filled: systems; grey: human references; hollow: late or"
                " superseded).",
                f"figure-{mid}",
            )
        )
    blocks.append({"kind": "figures", "items": figures})

    # signatures
    blocks.append(heading("Metric signatures", "scores-signatures"))
    blocks.append(
        paragraph(
            "Each score is tied to the exact settings that produced it (metric,"
            " options, implementing library and version, bootstrap resamples and"
            " seed), as sacreBLEU signatures are:"
        )
    )
    blocks.append(codes(signature_list(ctx)))

    blocks.append(_every_score_block(ctx, [*official, *late], sizes))
    blocks += significance_blocks(ctx)
    return blocks


#: Rows of the table "Every score" at most: beyond it (about 150 systems with the
#: default metrics) the table is left to ``scores/systems.tsv``, which holds the
#: same numbers; 60,000 rows would be most of a 1,000-submission report.
EVERY_SCORE_ROWS = 10_000


def _every_score_block(
    ctx: Context, entries: Sequence[SystemEntry], sizes: Sequence[tuple[str, str, Any]]
) -> Block:
    """Every number in long format (system × metric × subset), collapsed."""
    n_rows = sum(
        (mid, kind, name) in entry.scores
        for entry in entries
        for mid in metric_ids(ctx)
        for kind, name, _ in sizes
    )
    summary = "Every score (system × metric × subset)"
    if n_rows > EVERY_SCORE_ROWS:
        return {
            "kind": "details",
            "summary": summary,
            "blocks": [
                paragraph(
                    f"The {n_rows:,} scores of the {len(entries):,} systems (every"
                    " metric and subset, with its confidence interval) are too many"
                    f" to list on this page (at most {EVERY_SCORE_ROWS:,}): they are"
                    " in ",
                    {"code": "scores/systems.tsv", "text": "scores/systems.tsv"},
                    " (also in the release archive).",
                )
            ],
        }
    rows = []
    for entry in entries:
        for mid in metric_ids(ctx):
            info = ctx.metric(mid)
            for kind, name, _ in sizes:
                row = entry.scores.get((mid, kind, name))
                if row is None:
                    continue
                cell = score_cell(ctx, entry, mid, kind, name)
                rows.append(
                    Row(
                        (
                            system_cell(entry, None),
                            Cell(info.header, csv=(mid,)),
                            Cell(subset_title(kind, name), csv=(kind, name)),
                            cell,
                            Cell(row.get("n", "")),
                        ),
                        classes=entry.kind,
                    )
                )
    long_table = Table(
        "scores-every",
        "Every score: system × metric × subset, with confidence intervals.",
        [
            SYSTEM_COLUMN,
            Column("metric", "Metric", align="l"),
            Column("subset", "Subset", align="l", csv=("subset_kind", "subset")),
            Column("value", "Score", csv=("value", "ci_low", "ci_high")),
            Column("n", "n"),
        ],
        rows,
        ["Values on the report's scale (BLEU 0–1, accuracies in %)."],
        latex_detail=True,
        detail_note=ci_note(ctx),
    )
    return {"kind": "details", "summary": summary, "blocks": [ctx.table(long_table)]}


#: The metric families that score each kind of output a task asks for.
OUTPUT_FAMILIES = {
    "attribute_set": ("attributes", "domain"),
    "word_string": ("text",),
    "pronoun": ("decision",),
}


def task_metrics(ctx: Context, task: str) -> list[str]:
    """The metrics of one task's table: those scoring what the task outputs.

    The headline metrics among them (seed 001 Table 5, or the ASGRE set) when
    there are any, else all of them; every metric for a task of unknown outputs.
    """
    from stecflow.core.errors import ConfigError
    from stecflow.tasks.registry import get

    try:
        outputs = get(task).outputs
    except ConfigError:
        outputs = ()
    families = {f for o in outputs for f in OUTPUT_FAMILIES.get(o, ())}
    mids = [
        m for m in metric_ids(ctx) if not families or ctx.metric(m).family in families
    ]
    headline = [m for m in mids if any(ctx.metric(m).name in h for h in HEADLINE)]
    return headline or mids


def task_entries(ctx: Context) -> dict[str, list[SystemEntry]]:
    """Task -> the scored systems whose validation record lists it."""
    tasks = [str(t) for t in (ctx.config.get("campaign") or {}).get("tasks") or []]
    return {
        task: [
            e
            for e in ctx.scored
            if task in (ctx.records.get(e.key) or {}).get("tasks", [])
        ]
        for task in tasks
    }


def _ranking_key(rank: str | None, info: Any) -> Any:
    """Sort key of systems by *rank* (best first; unscored last; then label)."""

    def key(entry: SystemEntry) -> tuple[int, float, str]:
        value = entry.value(rank) if rank else None
        if value is None or info is None:
            return (1, 0.0, entry.label)
        return (0, -value if info.higher_is_better else value, entry.label)

    return key


def task_blocks(ctx: Context) -> list[Block]:
    """Results per task, as REG'08 reported TUNA-AS, TUNA-R and TUNA-REG.

    Only for a campaign of several tasks whose systems differ from task to task:
    when every system took part in every task, the tables above are each task's.
    Each task's table lists the systems that submitted for it, ranked among
    themselves, with each team's primary system marked and the clusters among
    the task's systems (``task`` rows of ``scores/clusters.tsv``).
    """
    entered = task_entries(ctx)
    if len(entered) < 2 or len({tuple(e.key for e in v) for v in entered.values()}) < 2:
        return []
    blocks: list[Block] = [
        heading("Results per task", "scores-tasks"),
        paragraph(
            "The campaign ran several tasks, and not every system took part in"
            " every one: each task's table lists the systems that submitted for"
            " it (as their validation records say), ranked among themselves, with"
            " each team's primary system marked."
        ),
    ]
    for task, entries in entered.items():
        anchor = f"scores-task-{task.replace('_', '-')}"
        title = task_summary(task)
        if not entries:
            blocks.append(notice(f"{title}: no accepted submission.", "warning"))
            continue
        mids = task_metrics(ctx, task)
        rank = ranking_metric(ctx)
        rank = rank if rank in mids else (mids[0] if mids else None)
        info = ctx.metric(rank) if rank else None

        key = _ranking_key(rank, info)
        official = sorted((e for e in entries if e.official), key=key)
        others = sorted((e for e in entries if not e.official), key=key)
        ranks = official_ranks(
            official,
            rank_values(ctx, official, rank) if rank else None,
            info.higher_is_better if info else True,
        )
        clusters = ctx.task_clusters.get(task, {})
        keys = [(m, "all", "all") for m in mids]
        columns = [SYSTEM_COLUMN, *(score_column(ctx.metric(m), "", "") for m in mids)]
        rows = []
        for entry in [*official, *others]:
            cells = [system_cell(entry, ranks.get(entry.key))]
            cells += [
                score_cell(ctx, entry, m, "all", "all", clusters.get(m)) for m in mids
            ]
            rows.append(Row(tuple(cells), classes=entry.kind))
        columns, rows = leaderboard(ctx, columns, rows, keys, clusters)
        notes = score_notes(ctx, mids, set()) + leaderboard_notes(
            ctx, rows, columns, rank, among="this task's systems"
        )
        order = f" (listed in order of {info.label}, {info.direction})" if info else ""
        blocks.append(
            ctx.table(
                Table(
                    anchor,
                    f"Results of the task {title}: the {len(entries)} systems that"
                    f" submitted for it, all test data{order}."
                    + groups_caption(ctx, columns),
                    columns,
                    rows,
                    notes,
                    detail_note=ci_note(ctx),
                )
            )
        )
    return blocks


#: Names of the paired tests of ``scoring.significance.methods``.
METHOD_NAMES = {
    "paired_bs": "paired bootstrap resampling",
    "paired_ar": "approximate randomisation",
}
#: Defaults of ``scoring.significance`` (sacreBLEU's), for configs without it.
SIGNIFICANCE_DEFAULTS = {
    "methods": ["paired_bs", "paired_ar"],
    "resamples": 1000,
    "trials": 10000,
    "seed": 12345,
    "alpha": 0.05,
}


def _significance_settings(ctx: Context) -> dict[str, Any]:
    scoring = ctx.config.get("scoring") or {}
    return {**SIGNIFICANCE_DEFAULTS, **dict(scoring.get("significance") or {})}


def leaderboard(
    ctx: Context,
    columns: Sequence[Column],
    rows: Sequence[Row],
    keys: Sequence[tuple[str, str, str]],
    clusters: Mapping[str, Mapping[str, tuple[int, int]]],
) -> tuple[list[Column], list[Row]]:
    """A score table as a leaderboard: a rank column first, groups declared.

    *columns* are the system column, then one score column per ``(metric,
    subset_kind, subset)`` of *keys*; *rows* start with the system cell, whose
    CSV holds the rank. The score columns over all test data of metrics with
    *clusters* say which test made their cells' groups.
    """
    method = _group_test(ctx)
    out = [RANK_COLUMN, columns[0]]
    for column, (mid, kind, _) in zip(columns[1:], keys, strict=True):
        grouped = method is not None and kind == "all" and bool(clusters.get(mid))
        out.append(replace(column, groups=method) if grouped else column)
    shown = [r for r in rows if not r.heading]
    ranks = [int(r.cells[0].csv[2]) if _rank_of(r) else None for r in shown]
    cells = iter(rank_cells(ranks))
    ranked = [
        r if r.heading else replace(r, cells=(replace(next(cells), csv=()), *r.cells))
        for r in rows
    ]
    return out, ranked


def _rank_of(row: Row) -> bool:
    csv = row.cells[0].csv or ()
    return len(csv) > 2 and csv[2] != ""


def _group_test(ctx: Context) -> str | None:
    """The test that made the significance groups (None: no test configured)."""
    settings = _significance_settings(ctx)
    if not settings.get("methods"):
        return None
    method = str(settings["methods"][0])
    return f"{METHOD_NAMES.get(method, method)}, p ≤ {settings['alpha']:g}"


def groups_caption(ctx: Context, columns: Sequence[Column]) -> str:
    """The caption's sentence on the table's significance groups (or nothing)."""
    grouped = [c for c in columns if c.groups]
    if not grouped:
        return ""
    return (
        " Small numbers after the scores: significance clusters ("
        + str(_group_test(ctx))
        + ")."
    )


def leaderboard_notes(
    ctx: Context,
    rows: Sequence[Row],
    columns: Sequence[Column],
    rank: str | None = None,
    among: str = "",
) -> list[str]:
    """The notes of a leaderboard: how it ranks, the groups, the primary mark."""
    rank = rank if rank is not None else ranking_metric(ctx)
    notes = []
    if rank and any(
        _rank_of(replace(r, cells=r.cells[1:])) for r in rows if not r.heading
    ):
        info = ctx.metric(rank)
        notes.append(
            f"Rank: by overall {info.label} ({info.direction})"
            + (f", among {among}" if among else "")
            + "; systems with equal scores as shown share a rank (1, 2, 2, 4);"
            " human references, late and superseded submissions are not ranked."
        )
    if any(c.groups for c in columns):
        notes.append(
            "Cluster (small number after a score over all test data): systems"
            + (f" ({among})" if among else "")
            + " sharing a number on a measure are not significantly different"
            " from the best system of their cluster; 1 is the best cluster (see"
            " Which systems differ)."
        )
    if any(
        len(r.cells[1].csv or ()) > 5 and (r.cells[1].csv or ())[5] == "true"
        for r in rows
        if not r.heading
        and r.cells[1].classes == "system"
        and "reference" not in r.classes.split()
    ):
        notes.append(PRIMARY_NOTE)
    return notes


def significance_blocks(ctx: Context) -> list[Block]:
    """Which systems differ: the clusters per metric and every pair's p-values."""
    if not ctx.clusters and not ctx.significance:
        return []
    settings = _significance_settings(ctx)
    methods = [str(m) for m in settings["methods"]]
    described = []
    for method in methods:
        count = settings["resamples"] if method == "paired_bs" else settings["trials"]
        unit = "resamples" if method == "paired_bs" else "trials"
        described.append(f"{METHOD_NAMES.get(method, method)} ({count} {unit})")
    blocks: list[Block] = [
        heading("Which systems differ", "scores-significance"),
        paragraph(
            "Paired significance tests between every two systems in the"
            " statistics, on every metric over all test data: "
            + " and ".join(described)
            + f", as sacreBLEU does them (seed {settings['seed']}); a difference"
            f" is significant when p ≤ {settings['alpha']:g} and the scores differ."
            " Clusters (lines through a ranking, as in the WMT findings' tables):"
            " systems are sorted by score, best first; the best opens cluster 1"
            " and each next system joins the current cluster unless it differs"
            " significantly from the cluster's best system ("
            + METHOD_NAMES.get(methods[0], methods[0])
            + "), where it opens the next cluster."
        ),
    ]
    mids = [m for m in metric_ids(ctx) if ctx.clusters.get(m)]
    official, late = ordered_systems(ctx)
    rows = [
        Row(
            (
                system_cell(entry, None),
                *(cluster_cell(ctx, entry, m) for m in mids),
            ),
            classes=entry.kind,
        )
        for entry in [*official, *late]
    ]
    columns = [
        SYSTEM_COLUMN,
        *(Column(m, ctx.metric(m).label, align="c") for m in mids),
    ]
    blocks.append(
        ctx.table(
            Table(
                "scores-clusters",
                "Clusters of systems not significantly different, per metric (all"
                " test data; 1 is the best cluster)" + _order_note(ctx) + ".",
                columns,
                rows,
                ["Hover a cluster for the system's rank on that metric."]
                + (
                    [f"{DASH} Not in the significance tests (late or superseded)."]
                    if late
                    else []
                ),
            )
        )
    )
    by_metric: dict[str, list[dict[str, str]]] = {}
    for row in ctx.significance:
        by_metric.setdefault(row["metric"], []).append(row)
    labels = {f"{e.team}/{e.system}": e.label for e in ctx.scored}
    for mid in metric_ids(ctx):
        found = by_metric.get(mid)
        if not found:
            continue
        info = ctx.metric(mid)
        pairs: dict[tuple[str, str], dict[str, dict[str, str]]] = {}
        for row in found:
            pairs.setdefault((row["system_a"], row["system_b"]), {})[row["method"]] = (
                row
            )
        table_rows = []
        for (a, b), by_method in pairs.items():
            first = next(iter(by_method.values()))
            delta = parse_float(first.get("delta"))
            cells = [
                Cell(labels.get(a, a), classes="system"),
                Cell(labels.get(b, b), classes="system"),
                Cell(fixed(info.show(delta), info.digits)),
            ]
            for method in methods:
                row = by_method.get(method)
                p = parse_float(row.get("p_value")) if row else None
                mark = "*" if row and row.get("significant") == "true" else ""
                cells.append(
                    Cell(
                        p_cell(p, 4) + mark,
                        csv=(row.get("p_value", "") if row else "",),
                    )
                )
            table_rows.append(Row(tuple(cells)))
        columns = [
            Column("system_a", "System A", align="l"),
            Column("system_b", "System B", align="l"),
            Column("delta", f"Δ {info.header} (B − A)"),
            *(Column(f"p_{m}", f"p ({METHOD_NAMES.get(m, m)})") for m in methods),
        ]
        blocks.append(
            {
                "kind": "details",
                "summary": f"Which systems differ in {info.label}"
                f" ({len(table_rows)} pairs)",
                "blocks": [
                    ctx.table(
                        Table(
                            f"scores-pairs-{mid.replace('_', '-')}",
                            f"Paired tests of every two systems in {info.label},"
                            f" all test data ({info.direction}).",
                            columns,
                            table_rows,
                            [
                                f"* Significant: p ≤ {settings['alpha']:g} and the"
                                " scores differ. p-values as sacreBLEU computes"
                                " them: (samples whose difference exceeds the"
                                " observed one + 1) / (samples + 1); for equal"
                                " scores that is 1 / (samples + 1), which is not a"
                                " difference."
                            ],
                        )
                    )
                ],
            }
        )
    return blocks


def _order_note(ctx: Context) -> str:
    rank = ranking_metric(ctx)
    if not rank:
        return ""
    info = ctx.metric(rank)
    return f"; listed in order of overall {info.label}, {info.direction}"

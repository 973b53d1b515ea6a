"""Sections 6 and 7: methods generated from the config, and provenance."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from stecflow import __version__
from stecflow.report.context import (
    FAMILY_TITLES,
    Block,
    Context,
    codes,
    display_path,
    facts,
    heading,
    measure_info,
    metric_ids,
    paragraph,
    signature_list,
)
from stecflow.report.formatting import DASH, no_zero
from stecflow.report.inputs import (
    MetricInfo,
    config_sha256,
)
from stecflow.report.tables import Cell, Column, Row, Table

__all__ = ["MULTI_REF", "methods_section", "provenance_section"]

MULTI_REF = {
    "mean": "mean over the references",
    "any": "a match with at least one reference counts",
    "max": "the best-matching reference counts",
    "min": "the closest reference counts",
}


def _options_text(options: Sequence[tuple[str, Any]]) -> str:
    def value(v: Any) -> str:
        if isinstance(v, bool):
            return str(v).lower()
        return "none" if v is None else str(v)

    return ", ".join(f"{k} = {value(v)}" for k, v in options) or DASH


def _multi_ref(info: MetricInfo) -> str:
    options = dict(info.options)
    if info.family == "domain":
        return "no references (the item's domain)"
    if info.level == "corpus":
        return "all references at once (corpus level)"
    if info.name in ("rouge2", "rouge_su4"):
        return "n-gram counts pooled over the references"
    return MULTI_REF.get(
        str(options.get("multi_ref")), str(options.get("multi_ref", DASH))
    )


def _own_tokenisation(ctx: Context) -> tuple[list[str], list[tuple[str, str]]]:
    """The metrics that tokenise as their own library does (``scoring.text`` does
    not reach them), and sacreBLEU's signature strings of those that have one,
    with the references per item of the test set (``var`` where it varies)."""
    from stecflow.scoring.specs import build_metrics, metric_specs

    scoring = ctx.config.get("scoring") or {}
    tasks = (ctx.config.get("campaign") or {}).get("tasks") or None
    counts = {n for n, _ in ctx.testset.refs_per_item}
    n_refs: int | str = counts.pop() if len(counts) == 1 else "var"
    own, library = [], []
    for spec, metric in build_metrics(metric_specs(scoring, tasks)):
        if getattr(metric, "shared_text_options", True):
            continue
        own.append(ctx.metric(spec.id).header)
        if hasattr(metric, "sacrebleu_signature"):
            library.append(
                (ctx.metric(spec.id).header, metric.sacrebleu_signature(n_refs))
            )
    return own, library


def methods_section(ctx: Context) -> list[Block]:
    """Section 6: test data, metrics and options, normalisation, bootstrap, tests."""
    scoring = ctx.config.get("scoring") or {}
    text = scoring.get("text") or {}
    boot = scoring.get("bootstrap") or {}
    stats = ctx.config.get("statistics") or {}
    data = ctx.config.get("data") or {}
    checks = (
        "a readable outputs.tsv with one decision (1 or 0) per referring expression"
        " of the solvers, complete metadata"
        if data.get("format") == "dialogue"
        else "well-formed XML, one output per item, attributes and values from the"
        " item's domain, complete metadata"
    )
    items = (
        f"{ctx.testset.n_items} referring expressions of the solvers in"
        f" {len(ctx.testset.subdomains)} sessions (the instances)"
        if data.get("format") == "dialogue"
        else f"{ctx.testset.n_items} items"
    )
    blocks: list[Block] = [
        heading("Test data", "methods-data"),
        paragraph(
            f"The test set ({display_path(data.get('testset', ''))}, format"
            f" {data.get('format', 'tuna')}) has {items}. Every submission was"
            f" validated against it ({checks}); rejected submissions are listed"
            " under Data quality and not scored."
        ),
        heading("Automatic metrics", "methods-metrics"),
    ]
    rows = []
    for mid in metric_ids(ctx):
        info = ctx.metric(mid)
        rows.append(
            Row(
                (
                    Cell(info.header, csv=(mid,)),
                    Cell(info.display_name),
                    Cell(FAMILY_TITLES.get(info.family, info.family)),
                    Cell("corpus" if info.level == "corpus" else "mean of items"),
                    Cell("higher" if info.higher_is_better else "lower"),
                    Cell(_multi_ref(info)),
                    Cell(_options_text(info.options)),
                )
            )
        )
    blocks.append(
        ctx.table(
            Table(
                "metrics",
                "Automatic metrics, their settings and how they use several"
                " references.",
                [
                    Column("metric", "ID", align="l"),
                    Column("name", "Metric", align="l"),
                    Column("input", "Compares", align="l"),
                    Column("level", "System score", align="l"),
                    Column("better", "Better", align="l"),
                    Column("references", "Several references", align="l"),
                    Column("options", "Options", align="l"),
                ],
                rows,
            )
        )
    )
    punct = {
        "strip": "replaced by spaces",
        "delete": "deleted",
        "split": "split off as tokens of their own",
        "keep": "kept as they are",
    }
    own, library = _own_tokenisation(ctx)
    blocks.append(
        paragraph(
            "Text normalisation for every word-string metric"
            + (
                f" but {', '.join(own)} (they tokenise as their libraries do, see"
                " their signatures)"
                if own
                else ""
            )
            + ": "
            + ("lower-cased" if text.get("lowercase", True) else "case kept")
            + "; punctuation "
            + punct.get(
                str(text.get("punctuation", "strip")), str(text.get("punctuation"))
            )
            + ". Human reference sets (e.g. HUMAN-1) are scored like systems, against"
            " the other references of each item (a reference never scores against"
            " itself)."
            + (
                " BLEU-3 is shown on a 0–1 scale, accuracies as percentages."
                if any(ctx.metric(m).name == "bleu3" for m in metric_ids(ctx))
                else " Accuracies are shown as percentages."
            )
        )
    )
    if library:
        blocks.append(
            paragraph(
                "sacreBLEU's own signatures (Post 2018), for the systems' scores: "
                + "; ".join(f"{mid}: {sig}" for mid, sig in library)
                + "."
            )
        )
    resamples = int(boot.get("resamples", 1000))
    blocks.append(
        paragraph(
            f"Confidence intervals: {100 * float(boot.get('confidence', 0.95)):g}%"
            f" percentile bootstrap over items with {resamples} resamples and seed"
            f" {boot.get('seed', 2009)}; every system is resampled with the same item"
            " indices in each subset, and corpus-level metrics are recomputed on each"
            " resample (Efron & Tibshirani 1993)."
            if resamples
            else "Confidence intervals: none (bootstrap resamples = 0)."
        )
    )
    blocks.append(heading("Statistics", "methods-statistics"))
    min_systems = next(
        (r["min_systems"] for r, _, _ in ctx.analyses if r.get("min_systems")), None
    )
    blocks.append(
        paragraph(
            f"Significance level α = {no_zero(float(stats.get('alpha', 0.05)), 2)}."
            " Systems analysed: accepted submissions and the human reference sets;"
            " late submissions "
            + (
                "included."
                if stats.get("include_late", False)
                else "excluded (they are scored and shown, not ranked)."
            )
            + " Human reference sets are "
            + (
                "left out of"
                if stats.get("exclude_references_from_correlations", True)
                else "included in"
            )
            + " the correlations. ANOVAs use Type III sums of squares (SPSS coding);"
            " Tukey HSD results are shown as homogeneous subsets (SPSS style);"
            " Kruskal–Wallis tests use the χ² approximation; correlations are"
            " computed on the per-system means"
            + (
                f" and marked significant only over at least {min_systems} systems"
                " (over fewer, not even an exact permutation test can reach"
                " p < .05)."
                if min_systems
                else "."
            )
        )
    )
    analysis_rows = []
    for record, _, stem in ctx.analyses:
        spec = record.get("spec") or {}
        measures = spec.get("measures") or [spec.get("measure", "")]
        analysis_rows.append(
            Row(
                (
                    Cell(str(record.get("id", stem))),
                    Cell(str(record.get("test", ""))),
                    Cell(str(spec.get("source") or "scores")),
                    Cell(
                        ", ".join(
                            measure_info(ctx, m, source=spec.get("source", "")).label
                            for m in measures
                            if m
                        )
                    ),
                    Cell(" × ".join(f.upper() for f in spec.get("factors") or [])),
                    Cell(str(record.get("method", "")) or DASH),
                    _systems_cell(
                        [ctx.display(s) for s in record.get("systems") or []]
                    ),
                )
            )
        )
    if analysis_rows:
        blocks.append(
            ctx.table(
                Table(
                    "analyses",
                    "Statistical analyses run, in config order.",
                    [
                        Column("id", "ID", align="l"),
                        Column("test", "Test", align="l"),
                        Column("source", "Data", align="l"),
                        Column("measures", "Measure(s)", align="l"),
                        Column("factors", "Factors", align="l"),
                        Column("method", "Method", align="l"),
                        Column("systems", "Systems", align="l"),
                    ],
                    analysis_rows,
                )
            )
        )
    return blocks


def _seeds(value: Any, path: str = "") -> list[tuple[str, str]]:
    """Every ``seed`` key in the config, with its key path."""
    found = []
    if isinstance(value, Mapping):
        for key in sorted(value, key=str):
            sub = f"{path}.{key}" if path else str(key)
            if key == "seed":
                found.append((sub, str(value[key])))
            else:
                found.extend(_seeds(value[key], sub))
    elif isinstance(value, list):
        for n, item in enumerate(value):
            label = item.get("id", n) if isinstance(item, Mapping) else n
            found.extend(_seeds(item, f"{path}[{label}]"))
    return found


def provenance_section(
    ctx: Context,
    snakemake_version: str | None,
    inputs: Sequence[tuple[str, str, str]],
) -> list[Block]:
    """Section 7: versions, config hash, seeds, signatures, checksums."""
    campaign = ctx.config.get("campaign") or {}
    items = [
        ("stecflow", __version__),
        ("Snakemake", snakemake_version or "not run by Snakemake"),
        ("Campaign", str(campaign.get("id", ""))),
        ("Version", str(campaign.get("version", "1"))),
        ("Config sha256", config_sha256(ctx.config)),
    ]
    blocks: list[Block] = [facts(items)]
    seeds = _seeds(ctx.config)
    blocks.append(
        paragraph(
            "Seeds: " + ("; ".join(f"{k} = {v}" for k, v in seeds) or "none") + "."
        )
    )
    blocks.append(paragraph("Metric signatures:"))
    blocks.append(codes(signature_list(ctx)))
    rows = [
        Row((Cell(role), Cell(name), Cell(digest, classes="mono")))
        for role, name, digest in inputs
    ]
    for (team, system), record in ctx.records.items():
        for name, digest in sorted((record.get("checksums") or {}).items()):
            rows.append(
                Row(
                    (
                        Cell("submission"),
                        Cell(f"{team}/{system}/{name}"),
                        Cell(str(digest or DASH), classes="mono"),
                    )
                )
            )
    blocks.append(
        ctx.table(
            Table(
                "checksums",
                "sha256 checksums of the inputs: test set, submissions (as validated)"
                " and the result files this report was built from.",
                [
                    Column("role", "Role", align="l"),
                    Column("file", "File", align="l"),
                    Column("sha256", "sha256", align="l"),
                ],
                rows,
                [
                    "Submission files are named relative to the submissions folder;"
                    " a folder's checksum is taken over its files' sorted relative"
                    " paths and checksums."
                ],
            )
        )
    )
    return blocks


def _systems_cell(names: list[str]) -> Cell:
    """The systems an analysis compares: listed, or counted when there are many."""
    from stecflow.report.overview import LONG_LIST

    text = ", ".join(names)
    if len(names) <= LONG_LIST:
        return Cell(text)
    return Cell(f"{len(names)} systems (listed in the CSV download)", csv=(text,))

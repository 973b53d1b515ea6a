"""Assemble the report: read every input, build the sections in document order."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow import __version__
from stecflow.core.io import read_tsv
from stecflow.data.model import Item, Output
from stecflow.report.agreement import agreement_blocks
from stecflow.report.changes import changes_since
from stecflow.report.context import Context, display_path, heading, path_tail
from stecflow.report.evaluators import evaluators_section
from stecflow.report.human import human_section
from stecflow.report.inputs import (
    PathLike,
    config_sha256,
    file_sha256,
    metric_infos,
    path_sha256,
    read_analyses,
    read_clusters,
    read_judgments,
    read_records,
    read_significance,
    read_system_scores,
    testset_info,
)
from stecflow.report.kind_sections import kind_sections
from stecflow.report.methods import methods_section, provenance_section
from stecflow.report.overview import overview_section
from stecflow.report.power import power_section, read_power
from stecflow.report.quality import quality_section
from stecflow.report.scores import scores_section
from stecflow.report.statistics import statistics_section
from stecflow.report.teams import read_item_scores, read_items, teams_section
from stecflow.report.testset_tables import description_blocks
from stecflow.report.versions import changes_blocks

__all__ = ["build_report", "report_context", "submissions_blocks"]


def report_context(
    config: Mapping[str, Any],
    validation_summary: PathLike,
    validation_records: Sequence[PathLike],
    systems: PathLike,
    items: Sequence[Item],
    **more: Any,
) -> Context:
    """The context every section builder reads: the config, the scores, the
    validation records and the test set; *more* fills the other fields of
    :class:`~stecflow.report.context.Context` (default: empty)."""
    campaign = config.get("campaign") or {}
    ctx = Context(
        config=config,
        metrics=metric_infos(config),
        entries=read_system_scores(systems),
        records=read_records(validation_records),
        summary=read_tsv(validation_summary),
        testset=testset_info(items),
        analyses=more.pop("analyses", []),
        judgments=more.pop("judgments", []),
        prefix=f"{campaign.get('id', 'report')}-",
        **more,
    )
    superseded = {(r["team"], r["system"]): r.get("superseded_by") for r in ctx.summary}
    for entry in ctx.entries:  # a corrected version replaces it: not ranked
        entry.superseded_by = superseded.get(entry.key) or ""
    return ctx


def submissions_blocks(
    *,
    config: Mapping[str, Any],
    validation_summary: PathLike,
    validation_records: Sequence[PathLike],
    systems: PathLike,
    testset: PathLike,
    item_scores: Sequence[PathLike],
    testset_items: PathLike | None = None,
    outputs: Mapping[tuple[str, str], Sequence[Output]] | None = None,
) -> list[Any]:
    """The blocks of the section "Submissions" (:mod:`stecflow.report.teams`),
    from what that section reads alone: no statistics, no judgments."""
    items = read_items(testset_items or testset)
    ctx = report_context(config, validation_summary, validation_records, systems, items)
    return teams_section(ctx, items, read_item_scores(item_scores), outputs)


def _has_other_studies(
    config: Mapping[str, Any], ctx: Context, own: Sequence[str]
) -> bool:
    """True if the campaign has a study outside the sections of their kinds'
    own (*own*: those sections' studies)."""
    configured = {
        str(s.get("id")) for s in config.get("studies") or [] if isinstance(s, Mapping)
    }
    return bool((configured | {s.study for s in ctx.judgments}) - set(own))


def build_report(
    *,
    config: Mapping[str, Any],
    validation_summary: PathLike,
    validation_records: Sequence[PathLike],
    systems: PathLike,
    stats_records: Sequence[PathLike] = (),
    stats_tables: Sequence[PathLike] = (),
    testset: PathLike,
    source_testset: PathLike | None = None,
    testset_items: PathLike | None = None,
    judgment_measures: Sequence[PathLike] = (),
    judgment_summaries: Sequence[PathLike] = (),
    judgment_quality: Sequence[PathLike] = (),
    snakemake_version: str | None = None,
    previous_release: PathLike | None = None,
    significance: PathLike | None = None,
    clusters: PathLike | None = None,
    agreement: Sequence[PathLike] = (),
    power: Sequence[PathLike] = (),
    submissions: str | None = None,
) -> dict[str, Any]:
    """Read every input and return the report's document model.

    Parameters are those of :func:`stecflow.report.render_report` (without the
    template and output). *submissions* is the section "Submissions" as HTML
    (:func:`stecflow.report.render_submissions`: each submission's validation,
    scores, ranks and items), put in the page as it is; None or empty: no such
    section.

    Returns
    -------
    dict
        ``title``, ``campaign``, ``sections`` (each ``id``, ``title``, ``blocks``),
        ``nav`` and ``meta`` for the template; ``version`` and ``changes`` (from
        :func:`stecflow.report.changes.changes_since`).
    """
    campaign = config.get("campaign") or {}
    changes = changes_since(
        previous_release,
        config=config,
        validation_summary=validation_summary,
        systems=systems,
        stats_records=stats_records,
    )
    studies = [
        str(s.get("id")) for s in config.get("studies") or [] if isinstance(s, Mapping)
    ]
    items = read_items(testset_items or testset)
    ctx = report_context(
        config,
        validation_summary,
        validation_records,
        systems,
        items,
        analyses=read_analyses(stats_records, stats_tables),
        judgments=read_judgments(
            judgment_measures, judgment_summaries, judgment_quality, studies
        ),
        significance=read_significance(significance),
    )
    ctx.items = tuple(items)
    ranked = read_clusters(clusters)
    ctx.clusters = ranked.pop("all", {})
    ctx.task_clusters = ranked
    inputs: list[tuple[str, str, str]] = []
    data = config.get("data") or {}
    if source_testset is not None and Path(source_testset).exists():
        inputs.append(
            (
                "test set",
                display_path(str(data.get("testset") or Path(source_testset).name)),
                path_sha256(source_testset),
            )
        )
    inputs.append(
        ("test set (normalised)", path_tail(testset, 2), file_sha256(testset))
    )
    inputs.append(
        (
            "validation summary",
            path_tail(validation_summary, 2),
            file_sha256(validation_summary),
        )
    )
    inputs.append(("scores", path_tail(systems, 2), file_sha256(systems)))
    for path in (significance, clusters):
        if path is not None and Path(path).is_file():
            inputs.append(("significance", path_tail(path, 2), file_sha256(path)))
    for path in sorted([*stats_records, *stats_tables], key=lambda p: Path(p).name):
        inputs.append(("statistics", path_tail(path, 2), file_sha256(path)))
    if previous_release is not None:
        inputs.append(
            (
                "previous release",
                display_path(str(previous_release)),
                file_sha256(previous_release),
            )
        )
    judgment_files = [*judgment_measures, *judgment_summaries, *judgment_quality]
    judgment_files += [p for p in agreement if Path(p).is_file()]
    for path in sorted(judgment_files, key=lambda p: path_tail(p, 2)):
        inputs.append(("judgments", path_tail(path, 2), file_sha256(path)))

    own = kind_sections(ctx)
    in_own = [study for section in own for study in section.studies]
    human = not own or _has_other_studies(config, ctx, in_own)
    power_results = read_power(power)
    # each study's subsection "Evaluators", after its section's blocks
    human_studies = [s.study for s in ctx.judgments if s.study not in in_own]
    sections = [
        (
            "overview",
            "Overview",
            [
                *changes_blocks(changes),
                heading("Campaign", "overview-campaign"),
                *overview_section(ctx),
            ],
        ),
        ("scores", "Automatic evaluation", scores_section(ctx)),
        *(
            [
                (
                    "human",
                    "Human evaluation",
                    human_section(ctx)
                    + evaluators_section(ctx, human_studies, power_results)
                    + agreement_blocks(ctx, agreement),
                )
            ]
            if human
            else []
        ),
        *(
            (
                section.anchor,
                section.title,
                # agreement goes to the first when there is no human section
                section.blocks(ctx)
                + evaluators_section(ctx, section.studies, power_results)
                + ([] if human or n else agreement_blocks(ctx, agreement)),
            )
            for n, section in enumerate(own)
        ),
        ("statistics", "Statistical analyses", statistics_section(ctx)),
        *(
            [("power", "Power and duration", power_section(ctx, power_results))]
            if power
            else []
        ),
        ("quality", "Data quality", quality_section(ctx)),
        *(
            [("submissions", "Submissions", [{"kind": "html", "html": submissions}])]
            if submissions
            else []
        ),
        ("methods", "Methods", methods_section(ctx) + description_blocks(ctx, testset)),
        (
            "provenance",
            "Provenance",
            provenance_section(ctx, snakemake_version, inputs),
        ),
    ]
    out_sections = []
    for number, (anchor, title, blocks) in enumerate(sections, start=1):
        subsections = [
            {"id": b["id"], "text": b["text"]} for b in blocks if b["kind"] == "h3"
        ]
        out_sections.append(
            {
                "id": anchor,
                "number": number,
                "title": title,
                "blocks": blocks,
                "subsections": subsections,
            }
        )
    return {
        "title": str(campaign.get("title") or campaign.get("id") or "Campaign report"),
        "campaign_id": str(campaign.get("id", "")),
        "version": changes["version"],
        "changes": changes,
        "sections": out_sections,
        "meta": {
            "stecflow_version": __version__,
            "snakemake_version": snakemake_version or "",
            "config_sha256": config_sha256(config),
        },
        "counts": {"tables": ctx.tables, "figures": ctx.figures},
    }

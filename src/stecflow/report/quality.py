"""Section 5, data quality: rejected, unreadable and late submissions, gaps."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from stecflow.report.analysis_blocks import design_caveat
from stecflow.report.context import (
    LATE_MARK,
    Block,
    Context,
    display_path,
    heading,
    metric_ids,
    notice,
    paragraph,
    signature_list,
    validation_link,
    yes_no,
)
from stecflow.report.correlation_tables import correlation_caveats
from stecflow.report.formatting import DASH
from stecflow.report.tables import Cell, Column, Row, Table

__all__ = [
    "FLAG_TITLES",
    "quality_section",
    "statistics_caveats",
    "withdrawal_sentence",
]

#: Titles of the judgments stage's measure flags
#: (:func:`stecflow.judgments.measures.measure_flags`).
FLAG_TITLES = {
    "single_judgment": "Identical by construction",
    "constant": "Constant measure",
}


def _problem_rows(problems: Sequence[Mapping[str, Any]]) -> list[Row]:
    return [
        Row(
            (
                Cell(str(p.get("file") or "")),
                Cell("" if p.get("line") is None else str(p["line"])),
                Cell(str(p.get("field") or "")),
                Cell(str(p.get("code") or "")),
                Cell(str(p.get("message") or "")),
            )
        )
        for p in problems
    ]


_PROBLEM_COLUMNS = [
    Column("file", "File", align="l"),
    Column("line", "Line"),
    Column("where", "Where", align="l"),
    Column("code", "Code", align="l"),
    Column("problem", "Problem", align="l"),
]


def quality_section(ctx: Context) -> list[Block]:
    """Section 5: rejected, unreadable, late submissions; gaps; judgments."""
    blocks: list[Block] = []
    rejected = [(k, r) for k, r in ctx.records.items() if r.get("status") != "accepted"]
    blocks.append(heading("Rejected submissions", "quality-rejected"))
    if not rejected:
        blocks.append(paragraph("No submission was rejected."))
    for (team, system), record in rejected:
        errors = record.get("errors") or []
        blocks.append(
            paragraph(
                {"text": f"{team}/{system}", "em": "1"},
                f": rejected with {len(errors)} error{'s' if len(errors) != 1 else ''}"
                f" and {len(record.get('warnings') or [])} warnings; not scored. ",
                {"text": "Validation report", "href": validation_link(team, system)},
                ".",
            )
        )
        blocks.append(
            ctx.table(
                Table(
                    f"rejected-{team}-{system}",
                    f"Validation errors of {team}/{system}.",
                    list(_PROBLEM_COLUMNS),
                    _problem_rows(errors),
                )
            )
        )
    unreadable = [r for r in ctx.summary if r.get("status") == "unreadable"]
    blocks.append(heading("Unreadable folders", "quality-unreadable"))
    if unreadable:
        blocks.append(
            ctx.table(
                Table(
                    "unreadable",
                    "Entries of the submissions folder that are not submissions.",
                    [
                        Column("folder", "Entry", align="l"),
                        Column("reason", "Reason", align="l"),
                    ],
                    [
                        Row(
                            (
                                Cell(
                                    "/".join(x for x in (r["team"], r["system"]) if x)
                                ),
                                Cell(r.get("first_error", "")),
                            )
                        )
                        for r in unreadable
                    ],
                )
            )
        )
    else:
        blocks.append(
            paragraph("Every folder under the submissions root is a submission.")
        )

    late = [(k, r) for k, r in ctx.records.items() if r.get("late")]
    blocks.append(heading("Late submissions", "quality-late"))
    stats = ctx.config.get("statistics") or {}
    deadline = (ctx.config.get("campaign") or {}).get("deadline")
    if late:
        blocks.append(
            ctx.table(
                Table(
                    "late",
                    f"Submissions received after the deadline ({deadline or 'none'}).",
                    [
                        Column("team", "Team", align="l"),
                        Column("system", "System", align="l"),
                        Column("submitted", "Submitted", align="l"),
                        Column("status", "Validation", align="l"),
                        Column("statistics", "In statistics", align="c"),
                    ],
                    [
                        Row(
                            (
                                Cell(team),
                                Cell(system),
                                Cell(
                                    str((r.get("metadata") or {}).get("submitted", ""))
                                ),
                                Cell(str(r.get("status", ""))),
                                Cell(yes_no(bool(stats.get("include_late", False)))),
                            )
                        )
                        for (team, system), r in late
                    ],
                    [
                        "Late submissions are scored and shown, marked"
                        f" {LATE_MARK}, and kept out of the official ranking."
                    ],
                )
            )
        )
    else:
        blocks.append(paragraph("No submission was late."))

    warned = [(k, r) for k, r in ctx.records.items() if r.get("warnings")]
    if warned:
        blocks.append(heading("Warnings", "quality-warnings"))
        for (team, system), record in warned:
            blocks.append(
                ctx.table(
                    Table(
                        f"warnings-{team}-{system}",
                        f"Validation warnings of {team}/{system}.",
                        list(_PROBLEM_COLUMNS),
                        _problem_rows(record["warnings"]),
                    )
                )
            )

    skipped = [(e, m, why) for e in ctx.scored for m, why in sorted(e.skipped.items())]
    blocks.append(heading("Metrics not computed", "quality-skipped"))
    if skipped:
        blocks.append(
            ctx.table(
                Table(
                    "skipped-metrics",
                    "Metrics not computed for a system, and why.",
                    [
                        Column("system", "System", align="l"),
                        Column("metric", "Metric", align="l"),
                        Column("reason", "Reason", align="l"),
                    ],
                    [
                        Row((Cell(e.label), Cell(ctx.metric(m).header), Cell(why)))
                        for e, m, why in skipped
                    ],
                )
            )
        )
    else:
        blocks.append(
            paragraph("Every configured metric was computed for every scored system.")
        )

    signatures = signature_list(ctx)
    stale = [
        (ctx.metric(mid).header, sig)
        for mid in metric_ids(ctx)
        for sig in {s for h, s in signatures if h == ctx.metric(mid).header}
        if ctx.metric(mid).signature and sig != ctx.metric(mid).signature
    ]
    if stale:
        blocks.append(
            notice(
                "Some scores were computed with other settings than the current"
                " config states (stale results; run the workflow again): "
                + "; ".join(f"{h}: {s}" for h, s in sorted(set(stale))),
                "warning",
                "Signature mismatch",
            )
        )

    blocks.append(heading("Caveats on the statistics", "quality-caveats"))
    blocks.extend(_caveat_blocks(ctx))

    blocks.append(heading("Human judgments", "quality-judgments"))
    blocks.extend(_judgment_quality(ctx))
    return blocks


def statistics_caveats(ctx: Context) -> list[tuple[str, str, str]]:
    """``(about, title, sentence)`` for every number to read with care.

    Analyses on incomplete designs (lists without participants, empty or
    unequal cells), correlations over too few systems or with a constant
    measure, and the measures a study flagged (identical by construction,
    constant over systems), in report order.
    """
    out = []
    for record, _, stem in ctx.analyses:
        if record.get("awaiting_responses"):
            continue  # no data yet: said as such, not as an incomplete design
        about = f"Analysis {record.get('id', stem)}"
        caveat = design_caveat(record)
        if caveat is not None:
            out.append((about, *caveat))
        if record.get("test") == "correlations":
            out += [(about, *c) for c in correlation_caveats(ctx, record)]
    for study in ctx.judgments:
        for flag in study.summary.get("measure_flags") or []:
            title = FLAG_TITLES.get(str(flag.get("flag")), "Flagged measure")
            out.append((f"Study {study.study}", title, str(flag.get("text", ""))))
    return out


def _caveat_blocks(ctx: Context) -> list[Block]:
    caveats = statistics_caveats(ctx)
    if not caveats and not ctx.analyses and not ctx.judgments:
        return [paragraph("No statistics were computed.")]
    if not caveats:
        return [
            paragraph(
                "Every analysis ran on a complete design with equal cells, every"
                " correlation over enough systems, and no human measure is"
                " constant or identical to another by construction."
            )
        ]
    return [
        ctx.table(
            Table(
                "statistics-caveats",
                "Statistics to read with care: analyses on incomplete or"
                " unbalanced designs, correlations that cannot mean much, and"
                " measures that carry no information of their own.",
                [
                    Column("about", "About", align="l"),
                    Column("caveat", "Caveat", align="l"),
                    Column("why", "Why", align="l"),
                ],
                [
                    Row((Cell(about), Cell(title), Cell(text)))
                    for about, title, text in caveats
                ],
            )
        )
    ]


_COUNTS = (
    ("rows", "Trials read"),
    ("in_analysis", "In analysis"),
    ("excluded", "Excluded"),
    ("withdrawn", "Withdrawn"),
    ("duplicates", "Duplicates"),
    ("timeouts", "Time-outs"),
    ("corrected", "Corrected"),
    ("partial_sessions", "Partial sessions"),
    ("missing_trials", "Missing trials"),
)


def _outlier_text(summary: Mapping[str, Any]) -> str:
    measures = (summary.get("outliers") or {}).get("measures") or {}
    texts = [
        f"{name.removesuffix('_ms').replace('_', ' ')}: {m.get('count_text', '')}"
        for name, m in sorted(measures.items())
    ]
    if texts:
        return "; ".join(texts)
    return str((summary.get("counts") or {}).get("outliers", DASH))


def withdrawal_sentence(study: str, summary: Mapping[str, Any]) -> str | None:
    """What the report says of a study's withdrawals (None without any).

    >>> withdrawal_sentence("rating", {"withdrawals": {
    ...     "withdrawn": 1, "sessions_erased": 1, "trials_erased": 8,
    ...     "answers_erased": 2, "rows_dropped": 8}})  # doctest: +NORMALIZE_WHITESPACE
    'Study rating: 1 participant withdrew. Their answers were erased from the
    collection database (1 session, 8 trials, 2 questionnaire answers), and the 8
    rows of theirs still in the response files were left out of the judgments,
    statistics, this report and the release.'
    """
    counts = summary.get("withdrawals") or {}
    n = int(counts.get("withdrawn") or 0)
    if not n:
        return None

    def many(k: int, word: str) -> str:
        return f"{k} {word}{'' if k == 1 else 's'}"

    erased = ", ".join(
        (
            many(int(counts.get("sessions_erased") or 0), "session"),
            many(int(counts.get("trials_erased") or 0), "trial"),
            many(int(counts.get("answers_erased") or 0), "questionnaire answer"),
        )
    )
    rows = int(counts.get("rows_dropped") or 0)
    return (
        f"Study {study}: {many(n, 'participant')} withdrew. Their answers were"
        f" erased from the collection database ({erased}), and the"
        f" {many(rows, 'row')} of theirs still in the response files were left out"
        " of the judgments, statistics, this report and the release."
    )


def _judgment_quality(ctx: Context) -> list[Block]:
    """Outliers, time-outs, corrections, partial sessions, simulated data, checks."""
    studies = [s for s in ctx.judgments if s.summary or s.quality]
    if not studies:
        return [
            notice(
                "No judgments yet. Outliers (beyond mean ± 2 SD, replaced by the"
                " series mean), time-outs, corrections, partial sessions and"
                " simulated data will be listed here per study, with every problem"
                " the judgments stage found in the response files.",
                "placeholder",
            )
        ]
    blocks: list[Block] = []
    rows = []
    for study in studies:
        counts = study.summary.get("counts") or {}
        rows.append(
            Row(
                (
                    Cell(study.study),
                    Cell(yes_no(bool(study.summary.get("simulated")))),
                    *(Cell(str(counts.get(key, DASH))) for key, _ in _COUNTS),
                    Cell(_outlier_text(study.summary)),
                ),
                classes="simulated" if study.summary.get("simulated") else "",
            )
        )
    blocks.append(
        ctx.table(
            Table(
                "judgments-overview",
                "Human judgments per study: what was read, kept, excluded, timed"
                " out, corrected and replaced as outliers.",
                [
                    Column("study", "Study", align="l"),
                    Column("simulated", "Simulated", align="c"),
                    *(Column(key, label) for key, label in _COUNTS),
                    Column("outliers", "Outliers", align="l"),
                ],
                rows,
                [
                    "Simulated: answers produced by stecflow's simulated"
                    " participants (the demo campaign), never mixed with real data.",
                    "Withdrawn: participants who withdrew and whose answers were"
                    " erased (stecflow sessions withdraw); none of their answers is"
                    " counted in the other columns.",
                ],
            )
        )
    )
    for study in studies:
        sentence = withdrawal_sentence(study.study, study.summary)
        if sentence is not None:
            blocks.append(paragraph(sentence))
    for study in studies:
        if not study.quality:
            continue
        checks: dict[tuple[str, str], int] = {}
        for row in study.quality:
            key = (row.get("check", ""), row.get("severity", ""))
            checks[key] = checks.get(key, 0) + 1
        detail = Table(
            f"judgments-quality-{study.study}",
            f"Every problem found in the judgments of study {study.study}.",
            [
                Column("check", "Check", align="l"),
                Column("severity", "Severity", align="l"),
                Column("file", "File", align="l"),
                Column("line", "Line"),
                Column("session", "Session", align="l"),
                Column("list", "List", align="l"),
                Column("order", "Order"),
                Column("item", "Item", align="l"),
                Column("system", "System", align="l"),
                Column("field", "Field", align="l"),
                Column("detail", "Detail", align="l"),
            ],
            [
                Row(
                    (
                        Cell(r.get("check", "")),
                        Cell(r.get("severity", "")),
                        Cell(
                            display_path(r["source_file"])
                            if r.get("source_file")
                            else ""
                        ),
                        Cell(r.get("source_line", "")),
                        Cell(r.get("session", "")),
                        Cell(r.get("list", "")),
                        Cell(r.get("order", "")),
                        Cell(r.get("item", "")),
                        Cell(r.get("system", "")),
                        Cell(r.get("field", "")),
                        Cell(r.get("detail", "")),
                    ),
                    classes=f"severity-{r.get('severity', '')}",
                )
                for r in study.quality
            ],
        )
        blocks.append(
            ctx.table(
                Table(
                    f"judgments-checks-{study.study}",
                    f"Data-quality checks of study {study.study}: problems per"
                    " check (error: left out of every analysis; warning: kept and"
                    " flagged; info: for the organiser's attention).",
                    [
                        Column("check", "Check", align="l"),
                        Column("severity", "Severity", align="l"),
                        Column("n", "n"),
                    ],
                    [
                        Row((Cell(check), Cell(severity), Cell(str(n))))
                        for (check, severity), n in sorted(checks.items())
                    ],
                )
            )
        )
        blocks.append(
            {
                "kind": "details",
                "summary": f"Every problem of study {study.study}"
                f" ({len(study.quality)})",
                "blocks": [ctx.table(detail)],
            }
        )
    return blocks

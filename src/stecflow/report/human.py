"""Section 3, human evaluation: seed 001 Tables 6 and 8 from the judgments stage.

For each study the judgments stage writes ``results/judgments/measures/<study>.tsv``
(one row per system × subdomain, ``subdomain`` = ``all`` for the whole study, with
``adequacy_mean``/``_sd``/``_n``, ``accuracy``, ``identification_time_mean_ms``/
``_sd_ms``/``_n`` and so on), ``summary/<study>.json`` (counts, ``simulated``, the
outlier sentences) and ``quality/<study>.tsv``. This section draws, per study,
the means and SDs per system overall and per subdomain (Table 6 for ratings,
Table 8 for identification), states how the data were cleaned, and plots every
human measure against every other over systems (intrinsic against extrinsic).
Until judgments exist it is a marked placeholder.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from stecflow.core.voicing import speech_text
from stecflow.report.context import (
    NAME_COLUMN,
    PRIMARY_NOTE,
    Block,
    Context,
    heading,
    named_rows,
    notice,
    paragraph,
    subset_title,
)
from stecflow.report.exclusions import exclusion_blocks
from stecflow.report.formatting import fixed, parse_float
from stecflow.report.inputs import JudgmentStudy
from stecflow.report.svg import ScatterPoint, scatter_plot
from stecflow.report.tables import RANK_COLUMN, Cell, Column, Row, Table

__all__ = ["HUMAN_MEASURES", "HumanMeasure", "human_section", "study_title"]


@dataclass(frozen=True)
class HumanMeasure:
    """A measure of the judgments' measures table and how the report shows it.

    ``mean``/``sd``/``n`` name its columns; a measure without ``sd`` is a rate
    (one value per cell).
    """

    key: str
    label: str
    mean: str
    sd: str = ""
    n: str = ""
    higher_is_better: bool = True
    #: The kind's measure it shows (:class:`stecflow.studykinds.base.Measure`),
    #: when not named as *key*.
    measure: str = ""


#: Measures in report order (seed 001 Tables 6 and 8, then seed 000's rates).
HUMAN_MEASURES = (
    HumanMeasure("adequacy", "Adequacy", "adequacy_mean", "adequacy_sd", "adequacy_n"),
    HumanMeasure("fluency", "Fluency", "fluency_mean", "fluency_sd", "fluency_n"),
    HumanMeasure("accuracy", "ID acc.", "accuracy", measure="identification_accuracy"),
    HumanMeasure(
        "identification_time",
        "ID time (ms)",
        "identification_time_mean_ms",
        "identification_time_sd_ms",
        "identification_time_n",
        higher_is_better=False,
    ),
    HumanMeasure(
        "reading_time",
        "Reading time (ms)",
        "reading_time_mean_ms",
        "reading_time_sd_ms",
        "reading_time_n",
        higher_is_better=False,
    ),
    HumanMeasure(
        "rt",
        "Response time (ms)",
        "rt_mean_ms",
        "rt_sd_ms",
        "rt_n",
        higher_is_better=False,
    ),
)
#: Rates of the counterbalanced designs (seed 000), shown over all items.
RATE_MEASURES = (
    HumanMeasure("ir", "IR", "ir"),
    HumanMeasure("mir", "MIR", "mir"),
    HumanMeasure("agreement", "Agreement", "agreement"),
)


def study_title(ctx: Context, study: str) -> str:
    """``<id>: <title>`` from the config's studies, else the ID."""
    for spec in ctx.config.get("studies") or []:
        if isinstance(spec, Mapping) and spec.get("id") == study and spec.get("title"):
            return f"{study}: {spec['title']}"
    return study


def _present(
    rows: Sequence[Mapping[str, str]], measures: Sequence[HumanMeasure]
) -> list[HumanMeasure]:
    return [
        m for m in measures if any(parse_float(r.get(m.mean)) is not None for r in rows)
    ]


#: Measures plotted against each other (seed 001 Table 10's human measures).
SCATTER_MEASURES = ("adequacy", "fluency", "accuracy", "identification_time")


def _task_measures(rows: Sequence[Mapping[str, str]], task: str) -> list[HumanMeasure]:
    from stecflow.studykinds.registry import get, is_kind

    present = _present(rows, HUMAN_MEASURES)
    # the measures of the kind's main table (seed 001 Table 6 for ratings, Table
    # 8 for identification); a kind that declares none shows every one present
    wanted = [m.name for m in get(task).measures] if is_kind(task) else []
    if not wanted:
        return present
    chosen = [m for m in present if (m.measure or m.key) in wanted]
    timed = any(name.endswith("_time") for name in wanted)
    if timed and not any(m.key.endswith("_time") for m in chosen):
        chosen += [m for m in present if m.key == "rt"]  # spoken: whole RT only
    return chosen or present


def _main_table(ctx: Context, study: JudgmentStudy, task: str) -> list[Block]:
    measures = _task_measures(study.measures, task)
    if measures:
        return [ctx.table(_measures_table(ctx, study, measures))]
    return [notice("No measure could be computed.", "warning")]


def rating_blocks(ctx: Context, study: JudgmentStudy, task: str) -> list[Block]:
    """A rating study's results: the means and SDs of its measures per system
    (seed 001 Table 6); the rating kind's ``report`` hook."""
    return _main_table(ctx, study, task)


def identification_blocks(ctx: Context, study: JudgmentStudy, task: str) -> list[Block]:
    """An identification study's results: its measures per system (seed 001
    Table 8) and the identification rates; the identification kind's
    ``report`` hook, and the section of a study whose kind is unknown."""
    blocks = _main_table(ctx, study, task)
    rates = _present(study.measures, RATE_MEASURES)
    if rates:
        blocks.append(ctx.table(_rates_table(ctx, study, rates)))
    return blocks


def _subsets(rows: Sequence[Mapping[str, str]]) -> list[str]:
    names = sorted({r.get("subdomain", "all") or "all" for r in rows} - {"all"})
    return ["all", *names]


def _counts_text(study: JudgmentStudy) -> str:
    counts = study.summary.get("counts") or {}
    if not counts:
        return ""

    def n(key: str) -> int:
        return int(counts.get(key) or 0)

    parts = [
        f"{n('in_analysis')} trials in the analysis ({n('rows')} read) from"
        f" {n('subjects')} participants in {n('sessions')} sessions;"
        f" {n('lists_run')} of {n('lists_in_design')} lists run",
        f"{n('practice')} practice and {n('fillers')} filler trials left out",
    ]
    extra = [
        (n("excluded"), "trial excluded", "trials excluded"),
        (n("duplicates"), "duplicate", "duplicates"),
        (n("timeouts"), "time-out", "time-outs"),
        (n("cant_tell"), "“can't tell” answer", "“can't tell” answers"),
        (n("corrected"), "corrected trial", "corrected trials"),
        (n("partial_sessions"), "partial session", "partial sessions"),
        (n("missing_trials"), "trial missing", "trials missing"),
    ]
    listed = [f"{k} {one if k == 1 else many}" for k, one, many in extra if k]
    if listed:
        parts.append(", ".join(listed))
    return "; ".join(parts) + "."


def _ranked_by(
    ctx: Context, study: JudgmentStudy, measures: Sequence[HumanMeasure]
) -> HumanMeasure:
    """The measure a study's table is ranked by: the one the organiser names
    for its kind (``report.rank_by.<kind>``), else the table's first."""
    from stecflow.report.kind_sections import kind_of

    rank_by = (ctx.config.get("report") or {}).get("rank_by") or {}
    chosen = rank_by.get(kind_of(ctx, study) or "")
    return next((m for m in measures if chosen in (m.key, m.measure)), measures[0])


def _measures_table(
    ctx: Context, study: JudgmentStudy, measures: Sequence[HumanMeasure]
) -> Table:
    rows = study.measures
    subsets = _subsets(rows)
    cells = {(r.get("system", ""), r.get("subdomain", "all") or "all"): r for r in rows}
    first = _ranked_by(ctx, study, measures)

    def key(system: str) -> tuple[bool, float, str]:
        value = parse_float(cells.get((system, "all"), {}).get(first.mean))
        if value is None:
            return (True, 0.0, system)
        return (False, -value if first.higher_is_better else value, system)

    systems = sorted({r.get("system", "") for r in rows}, key=key)
    lookup = ctx.by_label()
    groups = {m.key: _tukey(ctx, study.study, m.key) for m in measures}
    columns = [RANK_COLUMN, NAME_COLUMN]
    for subset in subsets:
        n_items = (
            cells.get((systems[0], subset), {}).get("n_items", "") if systems else ""
        )
        title = subset_title("all" if subset == "all" else "subdomain", subset)
        group = title + (f" (n = {n_items} items)" if n_items else "")
        for m in measures:
            prefix = "" if subset == "all" else f"{subset}_"
            better = "higher" if m.higher_is_better else "lower"
            found = groups[m.key] if subset == "all" else None
            test = found[1] if found else ""
            if m.sd:
                columns.append(
                    Column(
                        f"{prefix}{m.key}_mean",
                        m.label,
                        group=group,
                        better=better,
                        groups=test,
                    )
                )
                columns.append(Column(f"{prefix}{m.key}_sd", "SD", group=group))
            else:
                columns.append(
                    Column(
                        f"{prefix}{m.key}",
                        m.label,
                        group=group,
                        better=better,
                        groups=test,
                    )
                )
    ranking = [
        parse_float(cells.get((system, "all"), {}).get(first.mean))
        for system in systems
    ]
    names = named_rows(ctx, systems, ranking, first.higher_is_better)
    table_rows = []
    for system, (rank_cell, name_cell) in zip(systems, names, strict=True):
        entry = lookup.get(system)
        row_cells = [rank_cell, name_cell]
        for subset in subsets:
            row = cells.get((system, subset), {})
            for m in measures:
                found = groups[m.key] if subset == "all" else None
                letters = found[0].get(ctx.display(system), "") if found else ""
                row_cells.append(
                    Cell(fixed(parse_float(row.get(m.mean))), group=letters)
                )
                if m.sd:
                    row_cells.append(Cell(fixed(parse_float(row.get(m.sd)))))
        table_rows.append(Row(tuple(row_cells), classes=entry.kind if entry else ""))
    direction = "descending" if first.higher_is_better else "ascending"
    notes = []
    if study.summary.get("simulated"):
        notes.append("Simulated data: answers of simulated participants, not people.")
    tests = sorted({g[1] for g in groups.values() if g})
    notes += human_notes(table_rows, first.label, direction, bool(tests))
    return Table(
        f"human-{study.study}",
        f"Human evaluation, study {study_title(ctx, study.study)}: means and"
        f" standard deviations per system (listed in {direction} order of overall"
        f" {first.label})."
        + (
            f" Letters after the means: homogeneous subsets ({'; '.join(tests)})."
            if tests
            else ""
        ),
        columns,
        table_rows,
        notes,
    )


def _tukey(ctx: Context, study: str, measure: str) -> tuple[dict[str, str], str] | None:
    from stecflow.report.variance_tables import tukey_groups

    return tukey_groups(ctx, measure, study)


def human_notes(
    rows: Sequence[Row], label: str, direction: str, letters: bool
) -> list[str]:
    """Notes of a human-study leaderboard: rank, letters, primary mark."""
    notes = [
        f"Rank: by overall {label} ({direction} order); systems with equal values"
        " as shown share a rank (1, 2, 2, 4); human references, late and"
        " superseded submissions are not ranked."
    ]
    if letters:
        notes.append(
            "Letters: systems that share a letter are not significantly different"
            " (Tukey HSD of the statistics; see Statistical analyses)."
        )
    if any(len(r.cells[1].csv or ()) > 2 and r.cells[1].csv[2] == "true" for r in rows):
        notes.append(PRIMARY_NOTE)
    return notes


def _rates_table(
    ctx: Context, study: JudgmentStudy, rates: Sequence[HumanMeasure]
) -> Table:
    rows = [r for r in study.measures if (r.get("subdomain") or "all") == "all"]
    rows.sort(key=lambda r: (-(parse_float(r.get(rates[0].mean)) or 0.0), r["system"]))
    names = named_rows(
        ctx,
        [r["system"] for r in rows],
        [parse_float(r.get(rates[0].mean)) for r in rows],
        True,
    )
    lookup = ctx.by_label()
    table_rows = [
        Row(
            (*cells, *(Cell(fixed(parse_float(r.get(m.mean)))) for m in rates)),
            classes=lookup[r["system"]].kind if r["system"] in lookup else "",
        )
        for r, cells in zip(rows, names, strict=True)
    ]
    return Table(
        f"human-{study.study}-rates",
        f"Identification rates, study {study.study}: identification rate (IR),"
        " majority identification rate (MIR) and agreement, over all items.",
        [RANK_COLUMN, NAME_COLUMN]
        + [Column(m.key, m.label, better="higher") for m in rates],
        table_rows,
        human_notes(table_rows, rates[0].label, "descending", False),
    )


def _flag_notices(summary: Mapping[str, Any]) -> list[Block]:
    """The study's flagged measures (MIR = IR by construction, constant ones)."""
    from stecflow.report.quality import FLAG_TITLES

    flags = summary.get("measure_flags") or []
    return [
        notice(
            str(flag.get("text", "")),
            "warning",
            FLAG_TITLES.get(str(flag.get("flag")), "Flagged measure"),
        )
        for flag in flags
        if isinstance(flag, Mapping)
    ]


def _scatter_blocks(ctx: Context, studies: Sequence[JudgmentStudy]) -> list[Block]:
    """Every human measure against every other, one point per system."""
    series: list[tuple[str, str, dict[str, float | None]]] = []
    for study in studies:
        rows = [r for r in study.measures if (r.get("subdomain") or "all") == "all"]
        for m in _present(rows, HUMAN_MEASURES):
            if m.key not in SCATTER_MEASURES:
                continue
            values = {r["system"]: parse_float(r.get(m.mean)) for r in rows}
            series.append((study.study, m.label, values))
    lookup = ctx.by_label()
    figures = []
    for i, (study_a, label_a, a) in enumerate(series):
        for j in range(i + 1, len(series)):
            study_b, label_b, b = series[j]
            systems = sorted(set(a) | set(b))
            points = [
                ScatterPoint(
                    ctx.display(s),
                    a.get(s),
                    b.get(s),
                    lookup[s].kind if s in lookup else "system",
                )
                for s in systems
            ]
            x_label = f"{label_a} ({study_a})" if len(studies) > 1 else label_a
            y_label = f"{label_b} ({study_b})" if len(studies) > 1 else label_b
            figures.append(
                ctx.figure(
                    scatter_plot(
                        points,
                        x_label=x_label,
                        y_label=y_label,
                        title=f"{label_a} vs {label_b}",
                    ),
                    f"{y_label} against {x_label}, one point per system.",
                    f"figure-human-{i}-{j}",
                )
            )
    if not figures:
        return []
    return [
        heading("Human measures against each other", "human-scatter"),
        {"kind": "figures", "items": figures},
    ]


def human_section(ctx: Context) -> list[Block]:
    """Section 3: Tables 6/8 style means and SDs per study, or the placeholder."""
    from stecflow.report.kind_sections import kind_sections
    from stecflow.studykinds.registry import hook, is_kind

    own = {study for section in kind_sections(ctx) for study in section.studies}
    studies = [
        s for s in ctx.judgments if (s.measures or s.summary) and s.study not in own
    ]  # a kind with a section of its own shows its studies there
    if not studies:
        configured = [
            str(s.get("id"))
            for s in ctx.config.get("studies") or []
            if isinstance(s, Mapping) and str(s.get("id")) not in own
        ]
        where = (
            f" The campaign's studies ({', '.join(configured)}) are designed;"
            " their results appear here once judgments are collected."
            if configured
            else ""
        )
        return [
            notice(
                "No human judgments yet. When the judgment stage has collected (or"
                " simulated) judgments, this section shows the human-assessed"
                " intrinsic scores (Adequacy and Fluency: means and SDs per system,"
                " overall and per subdomain, as in TUNA-REG'09) and the extrinsic"
                " identification results (identification accuracy and speed), with"
                " plots of intrinsic against extrinsic measures;"
                " their statistics appear under Statistical analyses." + where,
                "placeholder",
                "Human evaluation: waiting for judgments",
            )
        ]
    blocks: list[Block] = []
    for study in studies:
        summary = study.summary
        task = summary.get("task") or (
            study.measures[0].get("task") if study.measures else ""
        )
        variant = summary.get("variant")
        blocks.append(
            heading(
                f"Study {study_title(ctx, study.study)}"
                + (
                    f" ({task}{', ' + str(variant) if variant else ''})" if task else ""
                ),
                f"human-{study.study}-section",
            )
        )
        if summary.get("awaiting_responses"):
            blocks.append(
                notice(
                    "The experiment is built (design, stimuli, web experiment, DMDX"
                    " files) but no response files are listed yet: run it with"
                    " stecflow serve, then list the exports under the study's"
                    " responses in the config and run the workflow again; only the"
                    " judgments, statistics, report and archive re-run.",
                    "placeholder",
                    "Awaiting responses",
                )
            )
            continue
        if summary.get("simulated"):
            blocks.append(
                notice(
                    "The answers of this study were produced by stecflow's simulated"
                    " participants, not by people: the numbers show that the"
                    " pipeline works, not how good the systems are.",
                    "warning",
                    "Simulated data",
                )
            )
        counts = _counts_text(study)
        if counts:
            blocks.append(paragraph(counts))
        voiced = speech_text(summary.get("speech"))
        if voiced:  # a spoken study: synthesised or the organisers' recordings
            blocks.append(paragraph(f"The descriptions were {voiced}."))
        outliers = (summary.get("outliers") or {}).get("measures") or {}
        for name in sorted(outliers):
            text = outliers[name].get("text")
            if text:
                blocks.append(paragraph(str(text)))
        corrections = summary.get("corrections") or {}
        if corrections.get("applied"):
            blocks.append(
                paragraph(
                    f"{corrections['applied']} corrections from the organisers'"
                    " corrections file were applied (see Data quality)."
                )
            )
        blocks.extend(exclusion_blocks(summary))  # stecflow.report.exclusions
        # the kind's own tables (stecflow.studykinds: its report hook)
        kind = str(task or "")
        results = hook(kind, "report") if is_kind(kind) else None
        blocks += (results or identification_blocks)(ctx, study, kind)
        blocks.extend(_flag_notices(summary))
    blocks.extend(_scatter_blocks(ctx, studies))
    return blocks

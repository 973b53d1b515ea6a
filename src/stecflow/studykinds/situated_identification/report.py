"""The report's situated identification study section (seed 000 §4-5, issue #15).

For every study whose judgments summary says ``"task":
"situated_identification"``, this module lays out what an organiser pastes into
an overview paper, in the seed's order:

1. **Intrinsic evaluation** (seed Tables 4 and 5): precision, recall and F of the
   pronoun class per analysed system and their TP/FP/FN/TN counts, from the
   ``confusion`` analysis record (``results/stats/<id>.json``, its ``systems``);
   the judgments summary's ``intrinsic`` when no such analysis is configured.
   The studied system's confusion matrix is drawn as seed Table 5.
2. **Design** (seed §5.1): instances per class and how many qualify, FP instances
   tested, TP/FN sampled (and to which features' distribution), the halves FP1
   and FP2 and the stratum they are balanced on, subjects, groups, trials per
   subject against the budget, evaluators run and discarded with the reasons.
3. **Table 7**: per class IR (correct / responses), MIR (majority / instances),
   agreement mean (SD, n); **Table 8**: IT mean (SD) in ms over all and over
   correct responses, with the corrected trials excluded; **Table 9**: replays
   mean (SD) and trials replayed, from ``results/judgments/measures/<study>.tsv``.
4. **t-tests** as the seed writes them ("t(33) = 16.24, p < .001"), from the
   ``situated_ttests`` record (``text`` and ``rows``) whose ``spec.source`` is
   the study.
5. **Re-scored intrinsic evaluation** (seed §5.4): original and re-scored P, R
   and F side by side, and how many of the tested FP instances the majority
   identified (the summary's ``rescored``).

Simulated studies and analyses are labelled as such on every table built from
responses (as :mod:`stecflow.report.human` labels REG studies); a study without
responses shows its design and the intrinsic evaluation and says the rest is
awaited. Missing or NaN numbers print as ``–``.

The summary's ``design.halves`` and ``rescored`` are read in the forms their
writers may give them: ``halves`` as rows (``stratum``/``unit``,
``half``/``system``, ``n``/``n_trials``) or as a mapping ``{"by", "A", "B",
"strata"}``; ``rescored`` as the rows of ``Rescored.rows()`` (a list, or under
``"rows"``) or as one mapping with ``original`` and the re-scored ``precision``,
``recall``, ``f``. Whatever cannot be read is shown as ``–``, never guessed.

The section's blocks are ``h3`` headings (one per study, for the contents) and
one ``situated`` block per study, drawn by
``workflow/templates/report/_situated.html.j2``.

May import what the report may (:mod:`stecflow.core`, :mod:`stecflow.report`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from stecflow.report.context import Block, Context, facts, heading, notice, paragraph
from stecflow.report.formatting import DASH, fixed, p_text, parse_float
from stecflow.report.inputs import JudgmentStudy
from stecflow.report.kind_sections import kind_of, section_studies, study_spec
from stecflow.report.tables import Cell, Column, Row, Table
from stecflow.studykinds.situated_identification.report_clips import (
    clip_blocks,
    clip_facts,
)
from stecflow.studykinds.situated_identification.report_errors import error_blocks
from stecflow.studykinds.situated_identification.report_length import length_blocks

__all__ = [
    "CLASS_ORDER",
    "SITUATED_TASK",
    "is_situated",
    "situated_section",
    "situated_studies",
]

#: The task name of the judgments summary and of the study spec.
SITUATED_TASK = "situated_identification"  # this module's kind (its section)
#: The instance classes in the seed's column order (Table 7).
CLASS_ORDER = ("TP", "FN", "FP-Orig", "FP-system")
#: The classes of the intrinsic evaluation (seed Table 5).
_INTRINSIC = ("TP", "FP", "FN", "TN")

SIMULATED_NOTE = "Simulated data: answers of simulated evaluators, not people."
_SIMULATED_TEXT = (
    "The answers of this study were produced by stecflow's simulated evaluators,"
    " not by people: the numbers show that the pipeline works, not how well people"
    " identify the referents."
)


# ---------------------------------------------------------------------------
# which studies


def is_situated(ctx: Context, study: JudgmentStudy) -> bool:
    """True if *study* is a situated identification study: its judgments
    summary's ``task`` is :data:`SITUATED_TASK`, or, without a summary yet,
    its config entry's (:func:`stecflow.report.kind_sections.kind_of`)."""
    return kind_of(ctx, study) == SITUATED_TASK


def situated_studies(ctx: Context) -> list[str]:
    """IDs of the situated studies: judged ones, then configured ones, in
    order; empty when the campaign has none."""
    return section_studies(ctx, SITUATED_TASK)


# ---------------------------------------------------------------------------
# formatting


def _rate(value: Any) -> str:
    return fixed(parse_float(value), 3)


def _int(value: Any) -> int | None:
    number = parse_float(value)
    return int(round(number)) if number is not None else None


def _count(value: Any) -> str:
    number = _int(value)
    return DASH if number is None else f"{number:,}"


def _ms(value: Any) -> str:
    number = parse_float(value)
    return DASH if number is None else f"{round(number):,}"


def _of(part: Any, whole: Any) -> str:
    a, b = _int(part), _int(whole)
    if a is None and b is None:
        return DASH
    return f"{_count(a)}/{_count(b)}"


def _mean_sd(mean: Any, sd: Any, fmt: Any = _rate, n: Any = None) -> str:
    if parse_float(mean) is None:
        return DASH
    inner = fmt(sd)
    if n is not None:
        inner += f", n = {_count(n)}"
    return f"{fmt(mean)} ({inner})"


def _plural(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def _class_title(name: str, system: str) -> str:
    return f"FP-{system}" if name == "FP-system" and system else name


# ---------------------------------------------------------------------------
# the parts


def _study_records(
    ctx: Context, study: str, test: str
) -> list[tuple[dict[str, Any], list[dict[str, str]], str]]:
    """Analyses of *test* for *study* (its ``spec.source``, or the only study)."""
    out = []
    only = len(situated_studies(ctx)) == 1
    for record, rows, stem in ctx.analyses:
        if record.get("test") != test:
            continue
        source = (record.get("spec") or {}).get("source")
        if source == study or (only and not source):
            out.append((record, rows, stem))
    return out


def _confusion_systems(ctx: Context) -> list[dict[str, Any]]:
    for record, _, _ in ctx.analyses:
        if record.get("test") == "confusion" and record.get("systems"):
            return [s for s in record["systems"] if isinstance(s, Mapping)]
    return []


def _system_name(entry: Mapping[str, Any]) -> str:
    if entry.get("team") and entry.get("system"):
        return f"{entry['team']}/{entry['system']}"
    return str(entry.get("label") or entry.get("system") or "")


def _intrinsic_blocks(ctx: Context, study: JudgmentStudy, system: str) -> list[Block]:
    summary = study.summary
    rows = _confusion_systems(ctx)
    source = "the confusion analysis"
    if not rows and summary.get("intrinsic"):
        rows = [{**summary["intrinsic"], "label": system}]
        if "/" in system:
            rows[0]["team"], rows[0]["system"] = system.split("/", 1)
        source = "the study's design"
    if not rows:
        return [
            notice(
                "No intrinsic evaluation to show: configure a statistics analysis"
                " with test confusion.",
                "warning",
            )
        ]
    studied = None
    table_rows = []
    for entry in rows:
        name = _system_name(entry)
        mark = " *" if name == system or entry.get("label") == system else ""
        if mark:
            studied = entry
        shown = ctx.display(name) if name else DASH
        table_rows.append(
            Row(
                (
                    Cell(shown + mark, csv=(shown, str(bool(mark)).lower())),
                    Cell(_rate(entry.get("precision"))),
                    Cell(_rate(entry.get("recall"))),
                    Cell(_rate(entry.get("f"))),
                    *(Cell(_count(entry.get(c.lower()))) for c in _INTRINSIC),
                    Cell(_count(entry.get("n"))),
                ),
                classes="system",
            )
        )
    notes = [
        "Corpus matching: a prediction of the pronoun class is correct when the"
        " corpus has a demonstrative pronoun there (seed 000 §4)."
    ]
    if studied is not None:
        notes.append(f"* The system whose FP instances the study tests ({system}).")
    blocks = [
        ctx.table(
            Table(
                f"situated-{study.study}-intrinsic",
                f"Intrinsic evaluation of the pronoun class, study {study.study}:"
                " precision (P), recall (R) and F per system, with the counts of"
                f" true and false positives and negatives (from {source}).",
                [
                    Column("system", "System", align="l", csv=("system", "studied")),
                    Column("precision", "P", better="higher"),
                    Column("recall", "R", better="higher"),
                    Column("f", "F", better="higher"),
                    *(Column(c.lower(), c) for c in _INTRINSIC),
                    Column("n", "Instances"),
                ],
                table_rows,
                notes,
            )
        )
    ]
    if studied is not None:
        blocks.append(ctx.table(_matrix_table(study.study, system, studied)))
    return blocks


def _matrix_table(study: str, system: str, entry: Mapping[str, Any]) -> Table:
    """Seed Table 5: the studied system's confusion matrix."""
    tp, fp, fn, tn = (_int(entry.get(c)) for c in ("tp", "fp", "fn", "tn"))

    def total(*values: int | None) -> int | None:
        return None if any(v is None for v in values) else sum(values)  # type: ignore[arg-type]

    def row(label: str, a: int | None, b: int | None) -> Row:
        return Row(
            (Cell(label), Cell(_count(a)), Cell(_count(b)), Cell(_count(total(a, b))))
        )

    return Table(
        f"situated-{study}-confusion",
        f"Confusion matrix of {system} against the corpus (seed 000 Table 5 style).",
        [
            Column("system_says", "System", align="l"),
            Column("corpus_pronoun", "pronoun", group="Corpus"),
            Column("corpus_other", "other", group="Corpus"),
            Column("total", "Total"),
        ],
        [
            row("pronoun", tp, fp),
            row("other", fn, tn),
            Row(
                (
                    Cell("Total"),
                    Cell(_count(total(tp, fn))),
                    Cell(_count(total(fp, tn))),
                    Cell(_count(total(tp, fp, fn, tn))),
                ),
                classes="total",
            ),
        ],
        ["TP = pronoun in both; FP = pronoun predicted, other in the corpus."],
    )


def _halves(design: Mapping[str, Any]) -> tuple[str, dict[str, dict[str, int]]]:
    """(stratum column, {stratum: {half: n}}) from the design's ``halves``."""
    halves = design.get("halves")
    by = str(design.get("halves_by") or "")
    strata: dict[str, dict[str, int]] = {}
    rows: Sequence[Any] = []
    if isinstance(halves, Mapping):
        by = str(halves.get("by") or halves.get("halves_by") or by)
        rows = halves.get("rows") or halves.get("strata") or []
        if isinstance(rows, Mapping):  # {stratum: {A: n, B: n}}
            for label, per in rows.items():
                if isinstance(per, Mapping):
                    strata[str(label)] = {str(h): _int(n) or 0 for h, n in per.items()}
            rows = []
        if not rows and not strata:
            sizes = {h: halves[h] for h in ("A", "B", "FP1", "FP2") if h in halves}
            if sizes:
                strata["all"] = {
                    h: len(v) if isinstance(v, list) else _int(v) or 0
                    for h, v in sizes.items()
                }
    elif isinstance(halves, list):
        rows = halves
    for r in rows:
        if not isinstance(r, Mapping):
            continue
        label = str(r.get("stratum", r.get("unit", "all")))
        half = str(r.get("half", r.get("system", "")))
        strata.setdefault(label, {})[half] = _int(r.get("n", r.get("n_trials"))) or 0
    return by, strata


def _half_name(half: str) -> str:
    return {"A": "FP1", "B": "FP2"}.get(half, half)


def _design_blocks(ctx: Context, study: JudgmentStudy, system: str) -> list[Block]:
    summary = study.summary
    design = summary.get("design") or {}
    counts = design.get("counts") or {}
    config = study_spec(ctx, study.study).get("situated") or {}
    items: list[tuple[str, str]] = [("System tested", system or DASH)]
    qualification = design.get("qualification") or {}
    if qualification:
        max_ms = design.get("max_context_ms", config.get("max_context_ms"))
        within = (
            f" (last mention and last action within {_ms(max_ms)} ms)"
            if parse_float(max_ms) is not None
            else ""
        )
        items.append(
            (
                "Instances qualifying",
                "; ".join(
                    f"{c} {_count(q.get('qualifying'))} of {_count(q.get('n'))}"
                    for c, q in (
                        (c, qualification[c])
                        for c in (
                            *_INTRINSIC,
                            *sorted(set(qualification) - set(_INTRINSIC)),
                        )
                        if c in qualification and isinstance(qualification[c], Mapping)
                    )
                )
                + within,
            )
        )
    fp_qualifying = (qualification.get("FP") or {}).get("qualifying")
    items.append(
        (
            "FP instances tested",
            _count(counts.get("fp"))
            + (
                f" of {_count(fp_qualifying)} qualifying"
                if fp_qualifying is not None
                else ""
            ),
        )
    )
    features = design.get("features", config.get("features"))
    sampled = f"{_count(counts.get('tp'))} TP and {_count(counts.get('fn'))} FN"
    if features:
        sampled += (
            " instances, sampled to keep the corpus distribution of "
            + ", ".join(str(f) for f in features)
        )
    items.append(("TP / FN sampled", sampled))
    by, strata = _halves(design)
    by = by or str(config.get("halves_by") or "")
    if strata:
        per_half: dict[str, int] = {}
        for per in strata.values():
            for half, n in per.items():
                per_half[half] = per_half.get(half, 0) + n
        text = " and ".join(
            f"{_half_name(h)} {_count(n)}" for h, n in sorted(per_half.items())
        )
        if by:
            text += f", balanced on {by}: " + "; ".join(
                f"{label} "
                + " / ".join(
                    f"{_count(n)} in {_half_name(h)}" for h, n in sorted(per.items())
                )
                for label, per in sorted(strata.items())
            )
        items.append(("Halves of the FP instances", text))
    elif by:
        items.append(("Halves of the FP instances", f"balanced on {by}"))
    else:
        items.append(("Halves of the FP instances", "random halves"))
    subjects = counts.get("subjects")
    items.append(
        (
            "Subjects and groups",
            f"{_count(subjects)} subjects in two groups:"
            f" FP1-Orig + FP2-{system or 'system'} and FP1-{system or 'system'} +"
            f" FP2-Orig; TP and FN instances shown to both"
            + (
                f" ({_count(counts.get('lists'))} lists)"
                if counts.get("lists") is not None
                else ""
            ),
        )
    )
    budget = design.get("trial_budget", config.get("trial_budget"))
    items.append(
        (
            "Trials per subject",
            _count(counts.get("trials_per_subject"))
            + (
                f" (budget {_count(budget)})" if parse_float(budget) is not None else ""
            ),
        )
    )
    items.extend(clip_facts(design))  # seed 000 §5.1: mean (SD) clip duration
    run = summary.get("counts") or {}
    discarded = [r for r in summary.get("discarded") or [] if isinstance(r, Mapping)]
    if not summary.get("awaiting_responses"):
        n_run = _int(run.get("evaluators"))
        n_discarded = _int(run.get("discarded"))
        if n_discarded is None:
            n_discarded = len(discarded)
        text = (
            f"{_count(n_run)} run, {_count(n_discarded)} discarded"
            f" ({_count(run.get('lists_run'))} of"
            f" {_count(run.get('lists_in_design'))} lists run);"
            f" {_plural(_int(run.get('trials')) or 0, 'trial', 'trials')} kept,"
            f" {_plural(_int(run.get('corrected')) or 0, 'answer', 'answers')}"
            " corrected after a declared mis-click"
        )
        items.append(("Evaluators", text))
        for r in discarded:
            items.append(
                (
                    f"Discarded: {r.get('subject', DASH)}",
                    f"{r.get('reason') or DASH}"
                    f" (session {r.get('session_status') or DASH},"
                    f" {_plural(_int(r.get('n_trials')) or 0, 'trial', 'trials')})",
                )
            )
    majority = (summary.get("settings") or {}).get("majority")
    if majority:
        items.append(
            (
                "Majority",
                "more than half of the evaluators who saw the instance"
                if majority == "strict"
                else "the target is the unique most chosen answer"
                if majority == "plurality"
                else str(majority),
            )
        )
    blocks: list[Block] = [facts(items)]
    allocation = [r for r in design.get("allocation") or [] if isinstance(r, Mapping)]
    if allocation:
        blocks.append(
            {
                "kind": "details",
                "summary": "Sampling of the TP and FN instances per stratum",
                "blocks": [ctx.table(_allocation_table(study.study, allocation))],
            }
        )
    blocks.extend(clip_blocks(ctx, study.study, design))
    return blocks


def _allocation_table(study: str, rows: Sequence[Mapping[str, Any]]) -> Table:
    return Table(
        f"situated-{study}-allocation",
        f"Study {study}: TP and FN instances sampled per feature stratum, against"
        " the corpus distribution (largest remainder).",
        [
            Column("class", "Class", align="l"),
            Column("stratum", "Stratum", align="l"),
            Column("reference_count", "Corpus"),
            Column("reference_share", "Share"),
            Column("ideal", "Ideal"),
            Column("available", "Available"),
            Column("allocated", "Sampled"),
        ],
        [
            Row(
                (
                    Cell(str(r.get("class", ""))),
                    Cell(str(r.get("stratum", ""))),
                    Cell(_count(r.get("reference_count"))),
                    Cell(_rate(r.get("reference_share"))),
                    Cell(_count(r.get("ideal"))),
                    Cell(_count(r.get("available"))),
                    Cell(_count(r.get("allocated"))),
                )
            )
            for r in rows
        ],
    )


def _classes(study: JudgmentStudy) -> list[dict[str, str]]:
    by_class = {r.get("class", ""): r for r in study.measures}
    order = [c for c in CLASS_ORDER if c in by_class]
    order += sorted(set(by_class) - set(CLASS_ORDER) - {""})
    return [by_class[c] for c in order]


def _class_table(
    study: JudgmentStudy,
    system: str,
    suffix: str,
    caption: str,
    lines: Sequence[tuple[str, str, Any]],
    notes: Sequence[str],
) -> Table:
    """A seed-style table: one column per class, one row per measure line."""
    rows = _classes(study)
    columns = [Column("measure", "", align="l")] + [
        Column(r.get("class", ""), _class_title(r.get("class", ""), system))
        for r in rows
    ]
    table_rows = [
        Row((Cell(label, csv=(key,)), *(Cell(show(r)) for r in rows)))
        for label, key, show in lines
    ]
    out_notes = list(notes)
    if any(r.get("class") == "FP-system" for r in rows) and system:
        out_notes.append(
            f"FP-{system}: the FP instances with the expression {system} chose"
            " (the seed's FP-DP); FP-Orig: the same instances with the corpus's"
            " expression."
        )
    if study.summary.get("simulated"):
        out_notes.append(SIMULATED_NOTE)
    return Table(
        f"situated-{study.study}-{suffix}", caption, columns, table_rows, out_notes
    )


def _tables_7_to_9(ctx: Context, study: JudgmentStudy, system: str) -> list[Block]:
    if not study.measures:
        return [notice("The judgments stage wrote no measures.", "warning")]
    t7 = _class_table(
        study,
        system,
        "identification",
        f"Identification accuracy, study {study.study} (seed 000 Table 7): the"
        " identification rate (IR, correct / all responses), the majority"
        " identification rate (MIR, instances whose majority chose the target /"
        " instances) and the agreement score (mean, SD and number of instances"
        " whose majority was correct).",
        [
            ("IR", "ir", lambda r: _rate(r.get("ir"))),
            (
                "(correct / responses)",
                "n_correct_of_responses",
                lambda r: _of(r.get("n_correct"), r.get("n_responses")),
            ),
            ("MIR", "mir", lambda r: _rate(r.get("mir"))),
            (
                "(majority / instances)",
                "n_majority_of_instances",
                lambda r: _of(r.get("n_majority"), r.get("n_instances")),
            ),
            (
                "Agreement: mean (SD, n)",
                "agreement",
                lambda r: _mean_sd(
                    r.get("agreement_mean"),
                    r.get("agreement_sd"),
                    n=r.get("agreement_n"),
                ),
            ),
            ("“I don't know”", "n_cant_tell", lambda r: _count(r.get("n_cant_tell"))),
            ("Evaluators", "n_evaluators", lambda r: _count(r.get("n_evaluators"))),
        ],
        [],
    )
    t8 = _class_table(
        study,
        system,
        "time",
        f"Identification time (IT, ms from the onset of the utterance to the"
        f" click, reading included), study {study.study} (seed 000 Table 8): mean"
        " (SD) over all responses and over correct ones; trials whose answer was"
        " corrected after a declared mis-click are excluded.",
        [
            (
                "IT, all responses",
                "it",
                lambda r: _mean_sd(r.get("it_mean_ms"), r.get("it_sd_ms"), _ms),
            ),
            ("(trials)", "it_n", lambda r: _count(r.get("it_n"))),
            (
                "IT, correct responses",
                "it_correct",
                lambda r: _mean_sd(
                    r.get("it_correct_mean_ms"), r.get("it_correct_sd_ms"), _ms
                ),
            ),
            ("(trials)", "it_correct_n", lambda r: _count(r.get("it_correct_n"))),
            (
                "Corrected trials excluded",
                "n_corrected_excluded",
                lambda r: _count(r.get("n_corrected_excluded")),
            ),
        ],
        [],
    )
    t9 = _class_table(
        study,
        system,
        "replays",
        f"Replays of the clip, study {study.study} (seed 000 Table 9): mean (SD)"
        " per trial and the trials replayed at least once (corrected trials"
        " kept).",
        [
            (
                "Replays: mean (SD)",
                "replays",
                lambda r: _mean_sd(r.get("replays_mean"), r.get("replays_sd"), _rate),
            ),
            (
                "Trials replayed / trials",
                "n_replayed_of_responses",
                lambda r: _of(r.get("n_replayed"), r.get("n_responses")),
            ),
        ],
        [],
    )
    return [ctx.table(t7), ctx.table(t8), ctx.table(t9)]


def _test_value(row: Mapping[str, Any], value: Any) -> str:
    measure = str(row.get("measure", ""))
    return _ms(value) if measure.endswith("_ms") else _rate(value)


def _result_text(row: Mapping[str, Any]) -> str:
    if str(row.get("computable", "true")).lower() in ("false", "0"):
        return f"not computed: {row.get('reason') or DASH}"
    if row.get("text"):
        return str(row["text"])
    t, df = parse_float(row.get("t")), parse_float(row.get("df"))
    if t is None or df is None:
        return DASH
    df_text = str(int(df)) if df.is_integer() else fixed(df)
    return f"t({df_text}) = {fixed(t)}, {p_text(parse_float(row.get('p_val')))}"


def _ttest_blocks(ctx: Context, study: JudgmentStudy, system: str) -> list[Block]:
    records = _study_records(ctx, study.study, "situated_ttests")
    if not records:
        return [
            notice(
                "No t-tests: configure a statistics analysis with test"
                f" situated_ttests and source {study.study}.",
                "placeholder",
            )
        ]
    blocks: list[Block] = []
    for record, tsv_rows, stem in records:
        if record.get("awaiting_responses"):
            blocks.append(
                notice("No responses yet.", "placeholder", "Awaiting responses")
            )
            continue
        sentences = [
            f"{t.get('about')}: {t.get('text', '')}"
            if t.get("about")
            else str(t.get("text", ""))
            for t in record.get("text") or []
            if isinstance(t, Mapping)
        ]
        simulated = bool(record.get("simulated") or study.summary.get("simulated"))
        if sentences:
            blocks.append(
                {
                    "kind": "sentences",
                    "items": sentences,
                    "simulated": simulated,
                }
            )
        rows = [r for r in record.get("rows") or [] if isinstance(r, Mapping)]
        rows = rows or list(tsv_rows)
        if not rows:
            continue
        notes = [
            "Paired t-tests over evaluators (one mean per evaluator and class);"
            " t is signed, mean of the first class minus mean of the second."
        ]
        if simulated:
            notes.append(SIMULATED_NOTE)
        blocks.append(
            ctx.table(
                Table(
                    f"situated-{study.study}-ttests-{stem}",
                    f"Paired t-tests, study {study.study} ({record.get('id', stem)}):"
                    " the seed's comparisons of the classes.",
                    [
                        Column("label", "Measure", align="l"),
                        Column("comparison", "Classes", align="l"),
                        Column("mean_a", "Mean (first)"),
                        Column("mean_b", "Mean (second)"),
                        Column("result", "Result", align="l"),
                        Column("dz", "dz"),
                        Column("n", "Evaluators"),
                    ],
                    [
                        Row(
                            (
                                Cell(str(r.get("label") or r.get("measure", ""))),
                                Cell(
                                    f"{_class_title(str(r.get('level_a', '')), system)}"
                                    " vs "
                                    f"{_class_title(str(r.get('level_b', '')), system)}"
                                ),
                                Cell(_test_value(r, r.get("mean_a"))),
                                Cell(_test_value(r, r.get("mean_b"))),
                                Cell(_result_text(r)),
                                Cell(fixed(parse_float(r.get("dz")))),
                                Cell(_count(r.get("n"))),
                            )
                        )
                        for r in rows
                    ],
                    notes,
                )
            )
        )
    return blocks


def _rescored(data: Any) -> dict[str, Any] | None:
    """Both versions of the re-scoring as ``{"original", "rescored", ...}``."""
    rows = data.get("rows") if isinstance(data, Mapping) else data
    if isinstance(rows, list) and rows:
        by = {str(r.get("version")): r for r in rows if isinstance(r, Mapping)}
        first = by.get("corpus") or rows[0]
        second = by.get("after_extrinsic") or rows[-1]
        return {
            "original": first,
            "rescored": second,
            "fp": second.get("fp", first.get("fp")),
            "fp_tested": second.get("fp_tested"),
            "fp_identified": second.get("fp_identified"),
            "credited": second.get("credited"),
            "untested": second.get("untested"),
        }
    if isinstance(data, Mapping) and data:
        original = data.get("original") or {}
        return {
            "original": original,
            "rescored": data.get("rescored") or data,
            "fp": data.get("fp", original.get("fp")),
            "fp_tested": data.get("fp_tested"),
            "fp_identified": data.get("fp_identified"),
            "credited": data.get("credited"),
            "untested": data.get("untested"),
        }
    return None


def _rescored_blocks(ctx: Context, study: JudgmentStudy, system: str) -> list[Block]:
    found = _rescored(study.summary.get("rescored"))
    if found is None:
        return [notice("The judgments summary has no re-scoring.", "warning")]
    first, second = found["original"], found["rescored"]
    tested, identified = _int(found["fp_tested"]), _int(found["fp_identified"])
    fp = _int(found["fp"])
    sentence = (
        f"Of the {_count(fp)} FP instances of {system or 'the system'},"
        f" {_count(tested)} were tested with its expression; the majority of"
        f" evaluators identified the referent in {_count(identified)} of them."
        " Counting those as correct (untested ones stay wrong"
        if (found.get("untested") or "incorrect") == "incorrect"
        else f" Counting those as correct (untested FPs: {found['untested']}"
    )
    sentence += (
        f") changes precision from {_rate(first.get('precision'))} to"
        f" {_rate(second.get('precision'))} and F from {_rate(first.get('f'))} to"
        f" {_rate(second.get('f'))}; recall stays {_rate(second.get('recall'))}."
    )
    notes = [
        "Recall is unchanged: an FP is an instance without a pronoun in the"
        " corpus, outside recall's denominator (seed 000 §5.4)."
    ]
    if study.summary.get("simulated"):
        notes.append(SIMULATED_NOTE)
    table = Table(
        f"situated-{study.study}-rescored",
        f"Intrinsic evaluation of {system or 'the system'} before and after the"
        f" extrinsic study {study.study} (seed 000 §5.4): FP instances whose"
        " referent the majority identified count as correct.",
        [
            Column("version", "Version", align="l"),
            Column("precision", "P"),
            Column("recall", "R"),
            Column("f", "F"),
            Column("credited", "FP credited"),
        ],
        [
            Row(
                (
                    Cell("Corpus matching", csv=("corpus",)),
                    Cell(_rate(first.get("precision"))),
                    Cell(_rate(first.get("recall"))),
                    Cell(_rate(first.get("f"))),
                    Cell("0"),
                )
            ),
            Row(
                (
                    Cell("After the extrinsic study", csv=("after_extrinsic",)),
                    Cell(_rate(second.get("precision"))),
                    Cell(_rate(second.get("recall"))),
                    Cell(_rate(second.get("f"))),
                    Cell(
                        _count(found["credited"])
                        if parse_float(found["credited"]) is None
                        or float(found["credited"]).is_integer()
                        else fixed(parse_float(found["credited"]))
                    ),
                )
            ),
        ],
        notes,
    )
    return [paragraph(sentence), ctx.table(table)]


# ---------------------------------------------------------------------------
# the section


def _study_title(ctx: Context, study: str) -> str:
    title = study_spec(ctx, study).get("title")
    return f"{study}: {title}" if title else study


def _system_of(ctx: Context, study: JudgmentStudy) -> str:
    system = study.summary.get("system")
    if not system:
        systems = study_spec(ctx, study.study).get("systems") or []
        system = systems[0] if systems else ""
    return str(system or "")


def _study_blocks(ctx: Context, study: JudgmentStudy) -> list[Block]:
    anchor = f"situated-{study.study}"
    system = _system_of(ctx, study)
    label = ctx.display(system) if system else ""  # FP-<label> column titles
    summary = study.summary
    status: list[Block] = []
    if not summary:
        status.append(
            notice(
                "The judgments stage has not written this study's summary yet.",
                "placeholder",
                "Awaiting judgments",
            )
        )
        return [
            heading(f"Situated study {_study_title(ctx, study.study)}", anchor),
            {"kind": "situated", "id": f"{anchor}-body", "status": status, "parts": []},
        ]
    awaiting = bool(summary.get("awaiting_responses"))
    if awaiting:
        status.append(
            notice(
                "The experiment is built (design, web experiment) but no response"
                " files are listed yet: run it with stecflow serve, list the exports"
                " under the study's responses in the config and run the workflow"
                " again. The design and the intrinsic evaluation are shown; Tables"
                " 7-9, the t-tests and the re-scoring appear once responses exist.",
                "placeholder",
                "Awaiting responses",
            )
        )
    elif summary.get("simulated"):
        status.append(notice(_SIMULATED_TEXT, "warning", "Simulated data"))
    from stecflow.report.exclusions import exclusion_blocks

    status.extend(exclusion_blocks(summary))  # rules declared in advance
    parts = [
        {
            "title": "Intrinsic evaluation",
            "id": f"{anchor}-intrinsic",
            "blocks": _intrinsic_blocks(ctx, study, system),
        },
        {
            "title": "Design",
            "id": f"{anchor}-design",
            "blocks": _design_blocks(ctx, study, system),
        },
    ]
    if not awaiting:
        parts += [
            {
                "title": "Identification: accuracy, time and replays",
                "id": f"{anchor}-measures",
                "blocks": _tables_7_to_9(ctx, study, label),
            },
            {
                "title": "Errors by expression form",
                "id": f"{anchor}-errors",
                "blocks": error_blocks(
                    ctx, study, lambda name: _class_title(name, label)
                ),
            },
            {
                "title": "t-tests",
                "id": f"{anchor}-ttests",
                "blocks": _ttest_blocks(ctx, study, label),
            },
            {
                "title": "Expression length",
                "id": f"{anchor}-length",
                "blocks": length_blocks(
                    ctx, study, label, len(situated_studies(ctx)) == 1
                ),
            },
            {
                "title": "Intrinsic evaluation re-scored",
                "id": f"{anchor}-rescored",
                "blocks": _rescored_blocks(ctx, study, system),
            },
        ]
    return [
        heading(
            f"Situated study {_study_title(ctx, study.study)}"
            + (" (simulated)" if summary.get("simulated") and not awaiting else ""),
            anchor,
        ),
        {
            "kind": "situated",
            "id": f"{anchor}-body",
            "status": status,
            "parts": parts,
        },
    ]


def situated_section(ctx: Context, studies: Sequence[str] | None = None) -> list[Block]:
    """The blocks of the "Situated identification study" section (the kind's
    ``section`` hook).

    Parameters
    ----------
    ctx : Context
        The report's context: the judgments (summary and measures per study),
        the analyses (``confusion`` and ``situated_ttests`` records) and the
        config's study specs. Tables are numbered in *ctx* as they are built.
    studies : sequence of str, optional
        The situated studies, in order; default :func:`situated_studies`.

    Returns
    -------
    list of dict
        One ``h3`` and one ``situated`` block (``id``, ``status``: notices,
        ``parts``: ``title``, ``id``, ``blocks``) per situated study, drawn by
        ``_situated.html.j2``; a configured study without judgments yet gets a
        placeholder. Empty when the campaign has no situated study.
    """
    blocks: list[Block] = []
    judged = {s.study: s for s in ctx.judgments}
    for name in situated_studies(ctx) if studies is None else studies:
        study = judged.get(name) or JudgmentStudy(name)
        blocks.extend(_study_blocks(ctx, study))
    return blocks

"""The report's subsection "Evaluators" of each human study (seed 001 §5.2-5.3).

Read from the judgments summary (``summary/<study>.json``, key ``evaluators``,
written by :func:`stecflow.judgments.evaluators.add_evaluators` from the study's
session table and questionnaire): the seed's kind of sentence on the evaluators
as a group, a table of the questionnaire's answers per question (counts of each
choice, numbers (ages) in the release's bins, free text only as how
many answered: never quoted), who is not counted (excluded, withdrawn, not
completed), and the time on task of the study as run beside the estimate of
the study's power analysis (``power/<study>.json``, ``duration``), when there is
one.

The subsection is the same for every kind of study: the report adds it after a
study's blocks, in the human-evaluation section or in the section of the
study's kind (:mod:`stecflow.report.build`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from stecflow.report.context import Block, Context, facts, heading, paragraph
from stecflow.report.tables import Cell, Column, Row, Table

__all__ = ["evaluator_blocks", "evaluators_section", "minutes"]


def minutes(seconds: float) -> str:
    """Seconds as minutes with one decimal.

    >>> minutes(1530), minutes(59)
    ('25.5 min', '1.0 min')
    """
    return f"{float(seconds) / 60:.1f} min"


def _not_counted(block: Mapping[str, Any]) -> str:
    """The sentence on who is not counted, or ''.

    >>> print(_not_counted({"excluded": 2, "withdrawn": 1, "not_completed": 0}))
    ... # doctest: +NORMALIZE_WHITESPACE
    Not counted here: 2 participants excluded by the rules declared before data
    collection and 1 participant who withdrew.
    """
    parts = []
    n = int(block.get("excluded") or 0)
    if n:
        parts.append(
            f"{n} participant{'s' if n != 1 else ''} excluded by the rules"
            " declared before data collection"
        )
    n = int(block.get("withdrawn") or 0)
    if n:
        parts.append(f"{n} participant{'s' if n != 1 else ''} who withdrew")
    n = int(block.get("not_completed") or 0)
    if n:
        parts.append(
            f"{n} participant{'s' if n != 1 else ''} without a completed session"
        )
    if not parts:
        return ""
    listed = (
        parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    )
    return f"Not counted here: {listed}."


def _question_rows(question: Mapping[str, Any]) -> list[Row]:
    label = str(question.get("question") or question.get("field") or "")
    field = str(question.get("field") or "")
    rows: list[tuple[str, str]] = []
    if question.get("type") == "text":
        rows.append(("(answered; free text is not shown)", str(question["answered"])))
    numbers = question.get("numbers")
    if numbers is not None:
        if numbers.get("n") and "median" in numbers:
            rows.append(
                (
                    f"n {numbers['n']}, median {numbers['median']:g},"
                    f" range {numbers['min']:g}-{numbers['max']:g}",
                    str(numbers["n"]),
                )
            )
        elif numbers.get("n"):
            rows.append(
                (
                    f"n {numbers['n']}, median in {numbers['median_bin']}",
                    str(numbers["n"]),
                )
            )
        else:
            rows.append(("(no numbers)", "0"))
    for count in question.get("counts") or ():
        rows.append((str(count["label"]), str(count["count"])))
    if question.get("no_answer"):
        rows.append(("(no answer)", str(question["no_answer"])))
    return [
        Row(
            (
                Cell(label if n == 0 else "", csv=(field,)),
                Cell(answer),
                Cell(count),
            )
        )
        for n, (answer, count) in enumerate(rows)
    ]


def _time_text(time: Mapping[str, Any], estimate: Mapping[str, Any] | None) -> str:
    if not time.get("n"):
        text = "no completed session with a start and an end"
    else:
        n = int(time["n"])
        text = (
            f"{n} completed session{'s' if n != 1 else ''}: median"
            f" {minutes(time['median'])}, range {minutes(time['min'])} to"
            f" {minutes(time['max'])}, 90th percentile {minutes(time['p90'])}"
        )
    if estimate:
        text += (
            f"; estimated before the study: median"
            f" {float(estimate['median_min']):.1f} min, 90th percentile"
            f" {float(estimate['p90_min']):.1f} min"
            + (f" ({estimate['source']})" if estimate.get("source") else "")
        )
    return text + "."


def evaluator_blocks(
    ctx: Context,
    study: str,
    block: Mapping[str, Any] | None,
    estimate: Mapping[str, Any] | None = None,
) -> list[Block]:
    """The subsection "Evaluators" of *study* from its summary's ``evaluators``
    *block* (nothing when there is none), with the power analysis's duration
    *estimate* (``median_min``, ``p90_min``, ``source``) if any."""
    if not block:
        return []
    from stecflow.report.human import study_title

    blocks: list[Block] = [
        heading(f"Evaluators of study {study_title(ctx, study)}", f"evaluators-{study}")
    ]
    if not block.get("sessions"):
        blocks.append(
            paragraph(
                "The study has no session table (the collection server's export"
                " <stem>.sessions.tsv among its responses), so its evaluators'"
                " questionnaire and time on task are not known."
            )
        )
        if estimate:
            blocks.append(facts([("Time on task", _time_text({}, estimate))]))
        return blocks
    text = str(block.get("sentence") or "")
    not_counted = _not_counted(block)
    blocks.append(paragraph(" ".join(t for t in (text, not_counted) if t)))
    questions = block.get("questions") or []
    if questions:
        rows = [row for q in questions for row in _question_rows(q)]
        blocks.append(
            ctx.table(
                Table(
                    f"evaluators-{study}",
                    f"The questionnaire of study {study}: the answers of its"
                    f" {block.get('evaluators', 0)} evaluators per question.",
                    [
                        Column("question", "Question", align="l", csv=("field",)),
                        Column("answer", "Answer", align="l"),
                        Column("count", "Evaluators", align="r"),
                    ],
                    rows,
                    notes=[
                        "Numbers (such as ages) in the bins the release's"
                        " questionnaire counts use, with the bin of the median;"
                        " the exact median and range only for a field the"
                        " release gives per participant. Free-text answers are"
                        " counted, never"
                        " shown. Excluded and withdrawn participants are not"
                        " counted; each evaluator's answers are those of their"
                        " first session with answers."
                    ],
                )
            )
        )
    elif not block.get("questionnaire"):
        blocks.append(
            paragraph("The study has no questionnaire (or its answers are withheld).")
        )
    time = block.get("time_on_task") or {}
    blocks.append(facts([("Time on task", _time_text(time, estimate))]))
    method = time.get("method") or ""
    blocks.append(
        paragraph(
            "Time on task runs from a session's start (when the participant opened"
            " the study's page and the session was created, before the consent"
            " screen) to its end (when its last screen was submitted), over every"
            " completed session, excluded participants' included; the 90th"
            f" percentile by {method}."
        )
    )
    return blocks


def evaluators_section(
    ctx: Context,
    studies: Sequence[str],
    power: Sequence[Mapping[str, Any]] = (),
) -> list[Block]:
    """The subsections "Evaluators" of *studies* (those with a judgments
    summary), in order; *power* is :func:`stecflow.report.power.read_power`'s
    results (their ``settings.duration``: the estimate)."""
    estimates = {
        str(r.get("study")): (r.get("settings") or {}).get("duration") for r in power
    }
    summaries = {s.study: s.summary for s in ctx.judgments}
    blocks: list[Block] = []
    for study in studies:
        summary = summaries.get(study) or {}
        if summary.get("awaiting_responses"):
            continue
        blocks.extend(
            evaluator_blocks(
                ctx, study, summary.get("evaluators"), estimates.get(study)
            )
        )
    return blocks

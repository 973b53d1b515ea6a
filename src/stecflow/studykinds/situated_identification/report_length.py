"""The situated study's expression-length table (seed 000 §5.3.3).

Draws the ``situated_length`` analysis whose ``spec.source`` is the study
(:mod:`.analyses_length`): per unit (characters, the seed's; words), the
instances shown both with the corpus expression and with the system's, the
mean length of each and the mean (SD) of the difference, original minus
system, with the sentence as the seed writes it ("the original expression is on
average 2.72 (SD = 2.04) Japanese character longer than its replacement DP").

May import what the report may (:mod:`stecflow.core`, :mod:`stecflow.report`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stecflow.report.context import Block, Context, notice
from stecflow.report.formatting import DASH, fixed, parse_float
from stecflow.report.inputs import JudgmentStudy
from stecflow.report.tables import Cell, Column, Row, Table

__all__ = ["length_blocks"]


def _records(ctx: Context, study: str, only: bool) -> list[tuple[dict, list, str]]:
    out = []
    for record, rows, stem in ctx.analyses:
        if record.get("test") != "situated_length":
            continue
        source = (record.get("spec") or {}).get("source")
        if source == study or (only and not source):
            out.append((record, rows, stem))
    return out


def _number(value: Any) -> str:
    number = parse_float(value)
    return DASH if number is None else fixed(number)


def length_blocks(
    ctx: Context, study: JudgmentStudy, system: str, only: bool = True
) -> list[Block]:
    """The length table of each ``situated_length`` analysis of *study*
    (*system* names the system's class; *only*: the campaign has one situated
    study, so an analysis without a source is its)."""
    records = _records(ctx, study.study, only)
    if not records:
        return [
            notice(
                "No expression lengths: configure a statistics analysis with test"
                f" situated_length and source {study.study}.",
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
        rows = [r for r in record.get("rows") or [] if isinstance(r, Mapping)]
        rows = rows or list(tsv_rows)
        if not rows:
            continue
        notes = [
            "Instances shown both with the corpus expression (FP-Orig) and with"
            f" the system's (FP-{system or 'system'}); difference: original minus"
            " system, SD with n - 1. Characters are Unicode code points (the"
            " seed's unit, Japanese characters); words are runs between spaces."
            " The seed reports no test of the difference.",
        ]
        if record.get("simulated"):
            notes.append("Simulated data: answers of simulated evaluators, not people.")
        blocks.append(
            ctx.table(
                Table(
                    f"situated-{study.study}-length-{stem}",
                    f"Length of the corpus expression against the system's at the"
                    f" same instance, study {study.study} ({record.get('id', stem)};"
                    " seed 000 §5.3.3).",
                    [
                        Column("unit", "Unit", align="l"),
                        Column("n", "Instances"),
                        Column("mean_original", "Mean, original"),
                        Column("mean_system", "Mean, system"),
                        Column("mean_difference", "Mean difference"),
                        Column("sd_difference", "SD"),
                        Column("text", "As the seed writes it", align="l"),
                    ],
                    [
                        Row(
                            (
                                Cell(str(r.get("unit", ""))),
                                Cell(str(r.get("n", DASH))),
                                Cell(_number(r.get("mean_original"))),
                                Cell(_number(r.get("mean_system"))),
                                Cell(_number(r.get("mean_difference"))),
                                Cell(_number(r.get("sd_difference"))),
                                Cell(str(r.get("text", ""))),
                            )
                        )
                        for r in rows
                    ],
                    notes,
                )
            )
        )
    return blocks

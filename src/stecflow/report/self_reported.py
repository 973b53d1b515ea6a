"""The teams' self-reported scores beside the organisers' (seed 001 Table 4).

TUNA-REG'09 printed the Accuracy, SE and BLEU each team reported for its system
on the development data (Table 4) before the scores the organisers computed on
the test data (Table 5). A system's ``system.yaml`` may give such scores
(``self_reported``, checked by :mod:`stecflow.submissions.self_reported`); its
validation record carries those that passed, and :func:`self_reported_table`
shows them, one row per system and data set, each metric's reported value beside
the system's score on the test set, with notes on what differs between the two.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from stecflow.report.context import (
    SYSTEM_COLUMN,
    Block,
    Context,
    ordered_systems,
    ranking_metric,
    score_cell,
    system_cell,
)
from stecflow.report.formatting import DASH
from stecflow.report.tables import Cell, Column, Row, Table

__all__ = ["reported_text", "self_reported_block", "self_reported_table"]


def reported_text(value: Any) -> str:
    """A reported value as the team wrote it (no rounding, no trailing zeros).

    >>> reported_text(9.71), reported_text(0.2263), reported_text(5), reported_text(4.0)
    ('9.71', '0.2263', '5', '4')
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return DASH
    if isinstance(value, int):
        return str(value)
    return format(value, ".6g")


def _entries(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    found = record.get("self_reported") or []
    return [
        e for e in found if isinstance(e, Mapping) and isinstance(e.get("metric"), str)
    ]


def _rows_of(
    reported: Sequence[Mapping[str, Any]],
) -> list[tuple[str, int | None, dict[str, Any], list[tuple[str, str]]]]:
    """(data, references, metric -> value, notes) per data set the system gave,
    in the order the team first gave them."""
    groups: dict[
        tuple[str, int | None], tuple[dict[str, Any], list[tuple[str, str]]]
    ] = {}
    for item in reported:
        refs = item.get("references")
        key = (str(item.get("data", "")), refs if isinstance(refs, int) else None)
        values, notes = groups.setdefault(key, ({}, []))
        values.setdefault(str(item["metric"]), item.get("value"))
        if item.get("note"):
            notes.append((str(item["metric"]), str(item["note"])))
    return [
        (data, refs, values, notes) for (data, refs), (values, notes) in groups.items()
    ]


def self_reported_table(ctx: Context) -> Table | None:
    """The table of self-reported scores, or None when no scored system gave any.

    Columns: the system, then per metric reported (the campaign's metrics in
    report order, then any other name, sorted) the team's value and the
    organisers' score on all test data; then the data set, the references per
    item and the team's notes. Rows: one per system and data set (human
    reference sets are left out), ordered by the team's own value of the
    ranking metric (seed 001 lists Table 4 by mean SE), best first; systems
    that did not report it follow in the report's order.
    """
    official, others = ordered_systems(ctx)
    rows_by_entry = []
    for entry in [*official, *others]:
        if entry.reference:
            continue
        reported = _entries(ctx.records.get(entry.key) or {})
        for row in _rows_of(reported):
            rows_by_entry.append((entry, *row))
    if not rows_by_entry:
        return None
    known = list(ctx.metrics)
    given = {m for _, _, _, values, _ in rows_by_entry for m in values}
    mids = [m for m in known if m in given] + sorted(given - set(known))
    rank = ranking_metric(ctx)
    if rank in given:
        info = ctx.metric(rank)
        sign = -1.0 if info.higher_is_better else 1.0

        def key(row: tuple[Any, ...]) -> tuple[int, float]:
            value = row[3].get(rank)
            return (1, 0.0) if value is None else (0, sign * float(value))

        rows_by_entry.sort(key=key)  # stable: ties keep the report's order
    columns = [SYSTEM_COLUMN]
    for mid in mids:
        header = ctx.metric(mid).header if mid in ctx.metrics else mid
        columns.append(Column(f"{mid}_reported", "Reported", group=header))
        columns.append(
            Column(
                f"{mid}_test",
                "Test",
                group=header,
                csv=(f"{mid}_test", f"{mid}_test_ci_low", f"{mid}_test_ci_high"),
            )
        )
    any_notes = any(notes for *_, notes in rows_by_entry)
    columns += [
        Column("data", "Data", align="l"),
        Column("references", "Refs"),
    ]
    if any_notes:
        columns.append(Column("note", "Team's note", align="l"))
    rows = []
    for entry, data, refs, values, notes in rows_by_entry:
        cells = [system_cell(entry, None)]
        for mid in mids:
            value = values.get(mid)
            cells.append(
                Cell(
                    reported_text(value),
                    csv=("" if value is None else repr(value),),
                    classes="" if value is not None else "missing",
                )
            )
            if mid in ctx.metrics:
                cells.append(score_cell(ctx, entry, mid, "all", "all"))
            else:
                cells.append(
                    Cell(
                        DASH,
                        csv=("", "", ""),
                        title="the campaign does not compute this metric",
                        classes="missing",
                    )
                )
        cells.append(Cell(data))
        cells.append(Cell(str(refs) if refs else DASH, csv=(str(refs or ""),)))
        if any_notes:
            cells.append(Cell(_note_text(ctx, values, notes)))
        rows.append(Row(tuple(cells), classes=entry.kind, ranked=False))
    return Table(
        "scores-self-reported",
        "Self-reported development scores: what each team reported for its"
        " system in system.yaml (seed 001 Table 4), beside the organisers'"
        " score on the test data"
        + (
            f" (listed in order of the reported {ctx.metric(rank).label},"
            f" {ctx.metric(rank).direction})"
            if rank in given
            else ""
        )
        + ".",
        columns,
        rows,
        _notes(ctx, rows_by_entry, mids),
    )


def _note_text(
    ctx: Context, values: Mapping[str, Any], notes: Sequence[tuple[str, str]]
) -> str:
    """The team's notes of one row: once if every score of the row has the same
    one, else each after its metric's label."""
    if len(notes) == len(values) and len({n for _, n in notes}) == 1:
        return notes[0][1]
    return "; ".join(
        f"{ctx.metric(m).label if m in ctx.metrics else m}: {note}" for m, note in notes
    )


def _notes(
    ctx: Context, rows: Sequence[tuple[Any, ...]], mids: Sequence[str]
) -> list[str]:
    """What differs between a reported score and the test score beside it."""
    test = ctx.testset
    refs = sorted({n for n, _ in test.refs_per_item})
    refs_text = (
        f"{refs[0]} reference{'s' if refs[0] != 1 else ''} per item"
        if len(refs) == 1
        else f"{refs[0]}–{refs[-1]} references per item"
    )
    data_sets = sorted({str(r[1]) for r in rows})
    given_refs = sorted({r[2] for r in rows if r[2]})
    notes = [
        "Reported: the team's own number, as system.yaml gives it (self_reported),"
        " computed with the team's scorer on the data named in Data ("
        + ", ".join(data_sets)
        + ")"
        + (
            f" against {', '.join(map(str, given_refs))} reference(s) per item"
            if given_refs
            else ""
        )
        + "; the organisers neither recompute nor check it beyond its range.",
        f"Test: the organisers' score on the test data ({test.n_items} items,"
        f" {refs_text}), computed by stecflow with the signature listed under"
        " Metric signatures; the confidence interval under it.",
        "The two differ in data (development vs test items), in the number of"
        " references an output is compared with (a metric taking the best or"
        " the mean over references scores differently against one than against"
        " several), and in the scorer (the team's program and settings vs the"
        " campaign's signature); a difference between them is no measure of"
        " over-fitting by itself.",
    ]
    unknown = [m for m in mids if m not in ctx.metrics]
    if unknown:
        notes.append(
            f"{DASH} under Test: the campaign does not compute "
            + ", ".join(unknown)
            + "."
        )
    if any(r[3].get(m) is None for r in rows for m in mids):
        notes.append(f"{DASH} under Reported: the team did not report that metric.")
    return notes


def self_reported_block(ctx: Context) -> list[Block]:
    """The table as a report block (none when no system reported a score)."""
    table = self_reported_table(ctx)
    return [] if table is None else [ctx.table(table)]

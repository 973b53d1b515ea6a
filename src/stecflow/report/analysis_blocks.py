"""The parts every analysis in section 4 is built from, shared by its families.

Owns the table of any analysis without a family of its own
(:func:`generic_blocks`), the note under each table (:func:`systems_line`), the
design and missing-value warnings (:func:`design_caveat`,
:func:`design_blocks`, :func:`not_computable`, :func:`without_property`) and the
small readers of an analysis' record (:func:`term_label`,
:func:`factor_levels`, :func:`ss_type_numeral`, :func:`texts_by_topic`,
:func:`few_systems`, :func:`record_float`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stecflow.report.context import Block, Context, notice, paragraph
from stecflow.report.formatting import no_zero
from stecflow.report.tables import Cell, Column, Row, Table

__all__ = [
    "Record",
    "Rows",
    "design_blocks",
    "design_caveat",
    "factor_levels",
    "few_systems",
    "generic_blocks",
    "not_computable",
    "record_float",
    "ss_type_numeral",
    "systems_line",
    "term_label",
    "texts_by_topic",
    "without_property",
]


Record = dict[str, Any]  # an analysis' JSON record
Rows = list[dict[str, str]]  # its TSV table


def term_label(name: str) -> str:
    """A factor or interaction as shown (``system:subdomain``: SYSTEM × SUBDOMAIN)."""
    return " × ".join(part.upper() for part in name.split(":"))


def factor_levels(ctx: Context, factor: str, record: Mapping[str, Any]) -> int:
    """The number of levels of *factor* in an analysis (as recorded, else known)."""
    if factor in (record.get("levels") or {}):  # counted on the data analysed
        return int(record["levels"][factor])
    if factor == "system":
        return len(record.get("systems") or [])
    if factor == "subdomain":
        return len(ctx.testset.subdomains)
    if factor == "condition":
        return len(ctx.testset.conditions)
    return 0


def systems_line(ctx: Context, record: Mapping[str, Any]) -> str:
    """The note under an analysis' table: its systems, late ones, N and α."""
    systems = [ctx.display(s) for s in record.get("systems") or []]
    stats = ctx.config.get("statistics") or {}
    late = "included" if stats.get("include_late", False) else "excluded"
    text = (
        f"Systems ({len(systems)}): {', '.join(systems) or 'none'};"
        f" late submissions {late}"
    )
    excluded = record.get("excluded_systems") or []
    lookup = ctx.by_label()
    references = [
        s for s in record.get("systems") or [] if s in lookup and lookup[s].reference
    ]
    if record.get("test") == "correlations" and excluded:
        text += "; left out of the correlations: " + ", ".join(
            ctx.display(s) for s in excluded
        )
    elif record.get("test") == "correlations" and references:
        text += "; human reference sets included"
    if record.get("n_observations") is not None:
        text += f"; N = {record['n_observations']} observations"
    return text + f"; α = {no_zero(float(record.get('alpha', 0.05)), 2)}."


def ss_type_numeral(record: Mapping[str, Any]) -> str:
    """The sums of squares of an ANOVA, in Roman numerals (statistics.ss_type)."""
    kind = int((record.get("settings") or {}).get("ss_type", 3))
    return {1: "I", 2: "II", 3: "III"}.get(kind, str(kind))


def texts_by_topic(record: Mapping[str, Any]) -> dict[str, str]:
    """An analysis' text lines, keyed by what each is about."""
    return {t.get("about", ""): t.get("text", "") for t in record.get("text") or []}


def design_caveat(record: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(title, sentence)`` for an analysis on an incomplete or unbalanced design.

    Read from the record's ``design`` (written by
    :func:`stecflow.stats.balance.design_completeness`); None when the design is
    complete and balanced, or not recorded.

    Examples
    --------
    >>> design_caveat({"design": {"complete": False, "balanced": False,
    ...     "note": "3 of 8 lists have no participant."}})
    ('Incomplete design', '3 of 8 lists have no participant.')
    >>> design_caveat({"design": {"complete": True, "balanced": True, "note": ""}})
    """
    design = record.get("design") or {}
    if not design.get("note"):
        return None
    title = "Incomplete design" if not design.get("complete") else "Unbalanced cells"
    return title, str(design["note"])


def design_blocks(record: Mapping[str, Any]) -> list[Block]:
    """A warning for an analysis on an incomplete or unbalanced design."""
    caveat = design_caveat(record)
    return [] if caveat is None else [notice(caveat[1], "warning", caveat[0])]


def few_systems(row: Mapping[str, str]) -> bool:
    """Whether a correlation row is over too few systems to be tested."""
    return row.get("few_systems", "false") == "true"


def generic_blocks(ctx: Context, record: Record, rows: Rows, stem: str) -> list[Block]:
    """Any other analysis: its text lines and its table as written."""
    blocks: list[Block] = [
        paragraph(f"{t.get('about', '')}: {t.get('text', '')}")
        for t in record.get("text") or []
    ]
    if rows:
        names = list(rows[0])
        blocks.append(
            ctx.table(
                Table(
                    f"stats-{stem}",
                    f"Analysis {stem} ({record.get('test', '?')}).",
                    [Column(n, n, align="l") for n in names],
                    [Row(tuple(Cell(r.get(n, "")) for n in names)) for r in rows],
                    [systems_line(ctx, record)],
                )
            )
        )
    return blocks


def not_computable(rows: Rows, what: str) -> list[Block]:
    """A warning naming why some rows of an analysis were not computed."""
    reasons = sorted(
        {r.get("reason", "") for r in rows if r.get("computable") != "true"}
    )
    if not reasons:
        return []
    return [
        notice(
            f"{what} could not be computed: {'; '.join(r for r in reasons if r)}.",
            "warning",
        )
    ]


def without_property(record: Mapping[str, Any]) -> list[Block]:
    """A warning per system property some systems did not declare."""
    lacking = record.get("systems_without_property") or {}
    return [
        notice(
            f"{', '.join(who)} did not declare {name} and are left out of this"
            " analysis.",
            "warning",
            "Systems without the property",
        )
        for name, who in sorted(lacking.items())
    ]


def record_float(value: Any) -> float | None:
    """A number of a JSON record (None, NaN and text become None)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if number != number else number

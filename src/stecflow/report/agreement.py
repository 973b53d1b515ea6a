"""The human-evaluation subsection on inter-rater agreement and z-normalisation.

Reads ``results/judgments/agreement/<study>.json`` (written by
:func:`stecflow.judgments.agreement.write_agreement`): per study and criterion
Krippendorff's alpha and, for slider scores, the ICC, with bootstrap intervals;
with ``normalise: z``, the raw and per-rater z-normalised system means. Draws one
table of coefficients for every study, a sentence on how to read them, a table of
raw and z-normalised means per normalised study, and the methods (libraries and
versions, bootstrap settings).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.report.context import Block, Context, heading, notice, paragraph
from stecflow.report.formatting import fixed, parse_float
from stecflow.report.inputs import PathLike
from stecflow.report.tables import Cell, Column, Row, Table

__all__ = ["agreement_blocks", "read_agreement"]

_LEVELS = {"interval": "interval", "nominal": "nominal"}


def read_agreement(paths: Sequence[PathLike]) -> list[dict[str, Any]]:
    """The agreement JSONs that exist, sorted by study (missing files skipped)."""
    out = []
    for path in sorted(str(p) for p in paths):
        if Path(path).is_file():
            out.append(json.loads(Path(path).read_text(encoding="utf-8")))
    return sorted(out, key=lambda d: str(d.get("study", "")))


def _coefficient_label(row: Mapping[str, Any]) -> str:
    name = str(row.get("coefficient", ""))
    if name == "alpha":
        return f"α ({_LEVELS.get(str(row.get('level')), row.get('level'))})"
    return name


def _number(value: Any, digits: int = 3) -> str:
    number = parse_float(value)
    return fixed(number, digits) if number is not None else "–"


def _ci(row: Mapping[str, Any]) -> Cell:
    low, high = parse_float(row.get("ci_low")), parse_float(row.get("ci_high"))
    if low is None or high is None:
        return Cell("–", csv=("", ""))
    return Cell(
        f"[{fixed(low, 3)}, {fixed(high, 3)}]", csv=(fixed(low, 3), fixed(high, 3))
    )


def _coefficients_table(studies: Sequence[Mapping[str, Any]]) -> Table:
    rows: list[Row] = []
    notes: list[str] = []
    confidence = {
        s.get("settings", {}).get("confidence") for s in studies if s.get("settings")
    }
    level = next(iter(confidence)) if len(confidence) == 1 else 0.95
    for study in studies:
        rows.append(
            Row(
                heading=f"Study {study.get('study')}"
                + ("" if study.get("coefficients") else ": no judgments yet")
            )
        )
        for r in study.get("coefficients") or []:
            k = parse_float(r.get("raters_per_unit"))
            rows.append(
                Row(
                    (
                        Cell(str(r.get("criterion", ""))),
                        Cell(_coefficient_label(r), csv=(str(r.get("coefficient")),)),
                        Cell(_number(r.get("estimate"))),
                        _ci(r),
                        Cell(str(r.get("n_units", ""))),
                        Cell(str(r.get("n_raters", ""))),
                        Cell(str(r.get("n_pairable", ""))),
                        Cell(fixed(k, 2) if k is not None else "–"),
                    )
                )
            )
            note = f"{study.get('study')}, {r.get('criterion')}: {r.get('note')}"
            if r.get("note") and note not in notes:
                notes.append(note)
    notes.append(
        "Units: the things judged (an item described by a system; for a preference"
        " study an item's pair of systems; for a situated study an instance and the"
        " expression shown); only units judged by two or more raters count"
        " (pairable values: their ratings or answers)."
    )
    return Table(
        "human-agreement",
        "Inter-rater agreement per study and criterion: Krippendorff's alpha"
        " (interval for scores, nominal for choices) and, for slider scores, the"
        f" intraclass correlation, with {round(100 * float(level))}% bootstrap"
        " intervals over units.",
        [
            Column("criterion", "Criterion", align="l"),
            Column("coefficient", "Coefficient", align="l"),
            Column("estimate", "Estimate"),
            Column("ci", "CI", csv=("ci_low", "ci_high")),
            Column("n_units", "Units"),
            Column("n_raters", "Raters"),
            Column("n_pairable", "Pairable values"),
            Column("raters_per_unit", "Raters per unit"),
        ],
        rows,
        notes,
    )


def _means_table(study: Mapping[str, Any]) -> Table:
    rows = []
    for r in study.get("system_means") or []:
        rows.append(
            Row(
                (
                    Cell(str(r.get("criterion", ""))),
                    Cell(str(r.get("system", ""))),
                    Cell(str(r.get("n", ""))),
                    Cell(_number(r.get("mean"), 2)),
                    Cell(_number(r.get("z_mean"), 3)),
                    Cell(str(r.get("z_n", ""))),
                )
            )
        )
    return Table(
        f"human-z-{study.get('study')}",
        f"Study {study.get('study')}: raw and per-rater z-normalised means per"
        " criterion and system (trials in the analysis).",
        [
            Column("criterion", "Criterion", align="l"),
            Column("system", "System", align="l"),
            Column("n", "n"),
            Column("mean", "Raw mean"),
            Column("z_mean", "z mean"),
            Column("z_n", "z n"),
        ],
        rows,
        [
            "z: each rater's scores of a criterion standardised by that rater's mean"
            " and SD (n − 1) over all their non-practice trials, as WMT's direct"
            " assessment does; a system's z mean is the mean of its z-scores. A rater"
            " with fewer than two scores or constant ones has none (z n counts those"
            " that have one)."
        ],
    )


def agreement_blocks(ctx: Context, paths: Sequence[PathLike]) -> list[Block]:
    """The agreement subsection (nothing when no agreement file exists).

    Parameters
    ----------
    ctx : Context
        The report's context (numbers the tables).
    paths : sequence of paths
        ``results/judgments/agreement/<study>.json`` of every study.
    """
    studies = read_agreement(paths)
    if not studies:
        return []
    blocks: list[Block] = [heading("Inter-rater agreement", "human-agreement")]
    if not any(s.get("coefficients") for s in studies):
        blocks.append(notice("No study has judgments to compare yet.", "placeholder"))
        return blocks
    blocks.append(
        paragraph(
            "How to read these numbers: alpha and the ICC are 1 when raters agree"
            " perfectly, 0 when they agree no more than chance (alpha) or than"
            " unrelated ratings would (ICC), and negative when they disagree"
            " systematically. Krippendorff (2004) suggests relying on alpha ≥ 0.8 and"
            " drawing only tentative conclusions from 0.667 ≤ alpha < 0.8; for the"
            " ICC, Koo and Li (2016) call below 0.5 poor, 0.5–0.75 moderate,"
            " 0.75–0.9 good and above 0.9 excellent. The single-rater ICC says how"
            " far one participant's score can be trusted, the average-rater ICC how"
            " far the mean of a unit's raters can; a wide interval means too few"
            " units judged more than once to say."
        )
    )
    blocks.append(ctx.table(_coefficients_table(studies)))
    for study in studies:
        if study.get("system_means"):
            blocks.append(ctx.table(_means_table(study)))
    blocks.append(paragraph(_methods(studies)))
    return blocks


def _methods(studies: Sequence[Mapping[str, Any]]) -> str:
    libraries = {}
    for study in studies:
        libraries.update({k: v for k, v in (study.get("libraries") or {}).items() if v})
    settings = [
        f"{s.get('study')}: {s['settings'].get('bootstrap')} resamples, seed"
        f" {s['settings'].get('seed')}"
        for s in studies
        if s.get("settings")
    ]
    dropped = []
    for s in studies:
        parts = [
            f"{n} {why.replace('_', ' ')}"
            for why, n in (s.get("dropped") or {}).items()
            if n
        ]
        if parts:
            dropped.append(f"{s.get('study')}: {', '.join(parts)}")
    text = (
        "Methods: Krippendorff's alpha from the krippendorff package"
        f" {libraries.get('krippendorff', '(version unknown)')} (its bootstrap"
        " resamples with stecflow's vectorised implementation of the same formulas,"
        " tested equal to it); the ICC computed by stecflow with NumPy"
        f" {libraries.get('numpy', '')} after Shrout and Fleiss (1979) and McGraw"
        " and Wong (1996): two-way random, absolute agreement, ICC(2,1) and ICC(2,k)"
        " when every rater judged every unit, else one-way random, ICC(1,1) and"
        " ICC(1,k) (raters nested in units, as in a Latin square), tested against"
        " pingouin and the published values. Intervals: percentile bootstrap over"
        " units, a unit keeping all its ratings ("
        + "; ".join(settings)
        + "). Rows left out: practice, fillers, control trials, excluded"
        " participants and trials not in the analysis"
        + (f" ({'; '.join(dropped)})." if dropped else ".")
    )
    return text

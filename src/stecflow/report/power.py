"""Report section "Power and duration": the power tables of ``results/power``."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.report.context import Context, facts, heading, paragraph
from stecflow.report.tables import Cell, Column, Row, Table

__all__ = ["power_section", "read_power"]


def read_power(paths: Sequence[str | Path]) -> list[dict[str, Any]]:
    """Each study's power rows and settings (``<study>.tsv`` with its ``.json``)."""
    from stecflow.core.io import read_tsv

    out = []
    for path in sorted(Path(p) for p in paths):
        settings_path = path.with_suffix(".json")
        settings = json.loads(settings_path.read_text(encoding="utf-8"))
        out.append({"study": path.stem, "rows": read_tsv(path), "settings": settings})
    return out


def _duration_text(duration: dict[str, Any]) -> str:
    text = (
        f"median {float(duration['median_min']):.1f} min, 90th percentile"
        f" {float(duration['p90_min']):.1f} min ({duration['source']})"
    )
    if "pay_median" in duration:
        cur = duration.get("currency", "")
        text += (
            f"; at {float(duration['hourly_rate']):g} {cur} per hour the pay is"
            f" {float(duration['pay_median']):.2f} {cur} at the median duration and"
            f" {float(duration['pay_p90']):.2f} {cur} at the 90th percentile"
        )
    return text


def power_svg(rows: Sequence[Mapping[str, Any]], *, study: str, alpha: float) -> str:
    """Power per participant number and test, with Wilson intervals."""
    from stecflow.report.svg import IntervalPoint, interval_plot

    points = [
        IntervalPoint(
            f"{r['test']}, n={r['participants']}",
            float(r["power"]),
            float(r["ci_low"]),
            float(r["ci_high"]),
        )
        for r in rows
    ]
    return interval_plot(
        points,
        title=f"Power of study {study} (alpha {alpha})",
        axis_label="power (share of simulated studies with p < alpha)",
        note="bars: Wilson 95 % intervals of the Monte-Carlo estimate",
    )


def power_section(ctx: Context, results: Sequence[dict[str, Any]]) -> list[Any]:
    """Blocks of the power section: per study, settings, table and figure."""
    blocks: list[Any] = []
    for result in results:
        study, settings = result["study"], result["settings"]
        effects = settings["effects"]
        blocks.append(heading(f"Study {study}", f"power-{study}"))
        means = ", ".join(f"{k} {float(v):g}" for k, v in effects["means"].items())
        blocks.append(
            facts(
                [
                    ("Effects", f"{effects['source']}: means {means}"),
                    (
                        "Model",
                        f"{effects['model']}; SDs participant"
                        f" {float(effects['rater_sd']):g}, item"
                        f" {float(effects['item_sd']):g}, residual"
                        f" {float(effects['noise_sd']):g}",
                    ),
                    (
                        "Simulation",
                        f"{settings['runs']} simulated studies per participant"
                        f" number, {settings['trials_per_system']} trials per system"
                        f" and participant, alpha {settings['alpha']}, seed"
                        f" {settings['seed']}",
                    ),
                    ("Session duration", _duration_text(settings["duration"])),
                ]
            )
        )
        blocks.append(
            ctx.table(
                Table(
                    f"power-{study}",
                    f"Power of study {study} per number of participants and test.",
                    [
                        Column("participants", "Participants", align="r"),
                        Column("test", "Test", align="l"),
                        Column(
                            "power",
                            "Power",
                            align="r",
                            csv=("power", "ci_low", "ci_high"),
                        ),
                    ],
                    [
                        Row(
                            (
                                Cell(r["participants"]),
                                Cell(r["test"]),
                                Cell(
                                    f"{float(r['power']):.2f}",
                                    detail=f"[{float(r['ci_low']):.2f},"
                                    f" {float(r['ci_high']):.2f}]",
                                    csv=(r["power"], r["ci_low"], r["ci_high"]),
                                ),
                            )
                        )
                        for r in result["rows"]
                    ],
                    detail_note="Second lines: Wilson 95 % intervals of the"
                    " Monte-Carlo estimate.",
                )
            )
        )
        blocks.append(
            ctx.figure(
                power_svg(result["rows"], study=study, alpha=float(settings["alpha"])),
                f"Power of study {study} per number of participants.",
                f"power-{study}-figure",
            )
        )
    if not blocks:
        blocks.append(paragraph("No study has a power analysis configured."))
    return blocks

"""The clip durations of a situated study in its report section (seed 000 §5.1).

Seed 000 reports how long the clips were that its evaluators watched: "The
average time of a video clip was 15.2 s (SD = 7.9 s)". The design stage records
them in ``design.json`` under ``clips``
(:func:`stecflow.studykinds.situated_identification.design_clips.clip_summary`),
the merge copies them to the judgments summary's ``design.clips``, and this
module shows them in the study's "Design" part:

* :func:`clip_facts`: one line of the design's facts, in the seed's wording
  ("mean 15.2 s (SD = 7.9 s), 3.1-30.0 s, 76 clips");
* :func:`clip_blocks`: the table of the durations per class (TP, FN, FP and
  all), n, mean, SD, min and max in seconds, and where the clip list is.

A summary without ``clips`` (a design built before they were recorded) shows
nothing; missing numbers print as ``–``.

May import what the report may (:mod:`stecflow.core`, :mod:`stecflow.report`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stecflow.report.context import Block, Context, paragraph
from stecflow.report.formatting import DASH, fixed, parse_float
from stecflow.report.tables import Cell, Column, Row, Table

__all__ = ["clip_blocks", "clip_facts", "seconds"]

#: The classes in the seed's column order (Table 7: TP, FN, then FP).
_ORDER = ("TP", "FN", "FP")


def seconds(value: Any) -> str:
    """Milliseconds as seconds with one decimal, as the seed writes them.

    >>> seconds(15240.0), seconds(None)
    ('15.2', '–')
    """
    number = parse_float(value)
    return DASH if number is None else fixed(number / 1000, 1)


def _clips(design: Mapping[str, Any]) -> Mapping[str, Any] | None:
    clips = design.get("clips")
    if isinstance(clips, Mapping) and parse_float(clips.get("n")):
        return clips
    return None


def clip_facts(design: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The "Clip durations" line of a study's design facts (none without clips).

    >>> clip_facts({"clips": {"n": 2, "mean_ms": 15200, "sd_ms": 7900,
    ...     "min_ms": 9614, "max_ms": 20786}})
    [('Clip durations', 'mean 15.2 s (SD = 7.9 s), from 9.6 to 20.8 s, 2 clips')]
    """
    clips = _clips(design)
    if clips is None:
        return []
    n = int(parse_float(clips.get("n")) or 0)
    return [
        (
            "Clip durations",
            f"mean {seconds(clips.get('mean_ms'))} s"
            f" (SD = {seconds(clips.get('sd_ms'))} s),"
            f" from {seconds(clips.get('min_ms'))} to {seconds(clips.get('max_ms'))} s,"
            f" {n:,} {'clip' if n == 1 else 'clips'}",
        )
    ]


def _row(label: str, entry: Mapping[str, Any]) -> Row:
    n = parse_float(entry.get("n"))
    return Row(
        (
            Cell(label),
            Cell(DASH if n is None else f"{int(n):,}"),
            Cell(seconds(entry.get("mean_ms"))),
            Cell(seconds(entry.get("sd_ms"))),
            Cell(seconds(entry.get("min_ms"))),
            Cell(seconds(entry.get("max_ms"))),
        )
    )


def clip_blocks(ctx: Context, study: str, design: Mapping[str, Any]) -> list[Block]:
    """The table of clip durations per class, and where the clip list is.

    Parameters
    ----------
    ctx : Context
        The report's context (numbers the table).
    study : str
        The study's ID.
    design : mapping
        The judgments summary's ``design`` (its ``clips``).

    Returns
    -------
    list of dict
        A paragraph and a numbered table, or nothing when *design* has no clips.
    """
    clips = _clips(design)
    if clips is None:
        return []
    classes = clips.get("classes") or {}
    order = [c for c in _ORDER if c in classes] + sorted(set(classes) - set(_ORDER))
    rows = [
        _row(str(name), classes[name])
        for name in order
        if isinstance(classes[name], Mapping)
    ]
    rows.append(_row("All", clips))
    table = Table(
        f"situated-{study}-clips",
        f"Study {study}: durations of the clips shown, per class, in seconds"
        " (seed 000 §5.1: from the start of the context, which holds the last"
        " mention of and the last action on the target, to just before the"
        " utterance).",
        [
            Column("class", "Class", align="l"),
            Column("n", "Clips"),
            Column("mean_s", "Mean"),
            Column("sd_s", "SD"),
            Column("min_s", "Min"),
            Column("max_s", "Max"),
        ],
        rows,
    )
    return [
        paragraph(
            "Each clip's start, end and duration (ms of session time) and the"
            f" utterance's onset are listed in studies/{study}/clips.tsv."
        ),
        ctx.table(table),
    ]

"""The Methods section's description of the test set by its task types.

A task type that can describe its test set as its seed describes its corpus
(:attr:`stecflow.tasks.base.TaskType.describe_testset`: the situated dialogue's
referring expressions by form, feature and speaker and what was left out of the
instances, seed 000 Table 2) gives plain tables; :func:`description_blocks` numbers
and draws them under a heading "Test set description", without knowing which
task they come from.

May import what the report may (:mod:`stecflow.core`, :mod:`stecflow.report`,
:mod:`stecflow.tasks.registry`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from stecflow.report.context import Block, Context, heading
from stecflow.report.inputs import PathLike
from stecflow.report.tables import Cell, Column, Row, Table

__all__ = ["description_blocks", "description_table"]


def _cell(value: Any) -> Cell:
    if isinstance(value, int) and not isinstance(value, bool):
        return Cell(f"{value:,}", csv=(str(value),))
    return Cell(str(value))


def description_table(ctx: Context, spec: Mapping[str, Any]) -> Block:
    """One described table (``id``, ``caption``, ``columns``, ``rows``,
    ``notes``) as a numbered report table; the first column is left-aligned."""
    columns = [
        Column(str(cid), str(title), align="l" if n == 0 or cid == "why" else "r")
        for n, (cid, title) in enumerate(spec["columns"])
    ]
    rows = [Row(tuple(_cell(v) for v in row)) for row in spec["rows"]]
    return ctx.table(
        Table(
            str(spec["id"]),
            str(spec["caption"]),
            columns,
            rows,
            [str(n) for n in spec.get("notes") or []],
        )
    )


def description_blocks(ctx: Context, testset: PathLike | None) -> list[Block]:
    """The tables of each campaign task type that describes its test set.

    Parameters
    ----------
    ctx : Context
        The report's context (its config names the tasks).
    testset : path or None
        The prepared test set (``results/data/testset.*``); None: nothing.

    Returns
    -------
    list of dict
        A heading and the tables, or nothing when no task type describes its
        test set.
    """
    from stecflow.core.errors import ConfigError
    from stecflow.tasks.registry import get

    if testset is None:
        return []
    tasks: Sequence[str] = (ctx.config.get("campaign") or {}).get("tasks") or []
    blocks: list[Block] = []
    seen: set[Any] = set()
    for name in tasks:
        try:
            describe = get(name).describe_testset
        except ConfigError:
            continue
        if describe is None or describe in seen:
            continue
        seen.add(describe)
        blocks.extend(description_table(ctx, spec) for spec in describe(testset))
    if blocks:
        blocks.insert(0, heading("Test set description", "methods-testset"))
    return blocks

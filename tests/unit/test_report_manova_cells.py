"""The MANOVA's interaction cell means with n in the report (seed 003 §4.1)."""

from __future__ import annotations

from stecflow.report.context import Context
from stecflow.report.inputs import metric_infos
from stecflow.report.variance_tables import manova_blocks


def test_the_interactions_cells_are_a_table_beside_the_manova():
    config = {"scoring": {"metrics": [{"id": "dice"}, {"id": "masi"}]}}
    ctx = Context(
        config=config,
        metrics=metric_infos(config),
        entries=[],
        records={},
        summary=[],
        testset=None,  # type: ignore[arg-type]  # not read here
        analyses=[],
        judgments=[],
        prefix="t-",
    )
    cell = {"term": "trainable:incremental", "n": 24}
    record = {
        "spec": {"measures": ["dice", "masi"], "factors": ["trainable", "incremental"]},
        "cells": [
            {
                **cell,
                "levels": {"trainable": "false", "incremental": "false"},
                "n": 0,
                "means": {"dice": None, "masi": None},
            },
            {
                **cell,
                "levels": {"trainable": "true", "incremental": "true"},
                "means": {"dice": 0.6958, "masi": 0.439},
            },
        ],
    }
    blocks = manova_blocks(ctx, record, [], "table4")
    tables = [b["table"] for b in blocks if b.get("kind") == "table"]
    [table] = [t for t in tables if t.id == "stats-table4-cells-1"]
    assert [c.label for c in table.columns] == [
        "TRAINABLE",
        "INCREMENTAL",
        "n",
        "Dice",
        "MASI",
    ]
    assert [[c.text for c in r.cells] for r in table.rows] == [
        ["no", "no", "0", "–", "–"],
        ["yes", "yes", "24", "0.696", "0.439"],
    ]
    assert table.caption.startswith("Cell means of TRAINABLE × INCREMENTAL with n")

"""The report's table of the systems by their declared properties (seed 003
Table 1), built from the validation records."""

from __future__ import annotations

from stecflow.report.context import Context, SystemEntry
from stecflow.report.overview import _properties_table

DECLARED = {"incremental": "boolean", "trainable": "boolean", "beam": "integer"}


def entry(team: str, system: str, reference: bool = False) -> SystemEntry:
    return SystemEntry(
        team, system, "scored", False, reference, True, label=f"{team}/{system}"
    )


def context(declared, records) -> Context:
    return Context(
        config={"submissions": {"properties": declared}},
        metrics={},
        entries=[entry("a", "ia"), entry("b", "fb"), entry("human", "H1", True)],
        records=records,
        summary=[],
        testset=None,  # type: ignore[arg-type]  # not read by this table
        analyses=[],
        judgments=[],
        prefix="t-",
    )


def cells(table) -> list[list[str]]:
    return [[c.text for c in row.cells] for row in table.rows]


def test_one_row_per_declared_property_one_column_per_system():
    records = {
        ("a", "ia"): {"properties": {"incremental": True, "beam": 4}},
        ("b", "fb"): {"properties": {"incremental": False, "trainable": False}},
        ("human", "H1"): {"properties": {}},
    }
    table = _properties_table(context(DECLARED, records))
    # the reference set has no algorithm: no column
    assert [c.label for c in table.columns] == ["Property", "a/ia", "b/fb"]
    assert cells(table) == [  # by name
        ["beam", "4", "–"],
        ["incremental", "Y", "n"],
        ["trainable", "–", "n"],  # not declared by a/ia
    ]
    assert "seed 003 Table 1" in table.caption


def test_no_table_when_the_campaign_declares_no_property():
    assert _properties_table(context({}, {})) is None
    assert _properties_table(context(None, {})) is None

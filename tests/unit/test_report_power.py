"""Report section of the power analysis (stecflow.report.power)."""

from __future__ import annotations

from stecflow.analysis.power import Effects, design_duration, settings_dict, write_power
from stecflow.report.context import Context
from stecflow.report.power import power_section, read_power


def _context() -> Context:
    return Context(
        config={},
        metrics={},
        entries=[],
        records={},
        summary=[],
        testset=None,
        analyses=[],
        judgments=[],
        prefix="demo-",
    )


def test_power_section_table_figure_and_pay(tmp_path):
    rows = [
        {
            "participants": 6,
            "test": "anova",
            "runs": 10,
            "significant": 7,
            "power": 0.7,
            "mc_se": 0.144914,
            "ci_low": 0.396787,
            "ci_high": 0.892214,
        }
    ]
    duration = design_duration(60, per_trial_ms=3000, hourly_rate=10)
    duration["currency"] = "EUR"
    settings = settings_dict(
        Effects(means={"A": 50, "B": 55}),
        study="rating",
        runs=10,
        seed=7,
        alpha=0.05,
        trials_per_system=10,
        duration=duration,
    )
    write_power(rows, settings, tmp_path, "rating")
    ctx = _context()
    blocks = power_section(ctx, read_power([tmp_path / "rating.tsv"]))
    kinds = [b["kind"] for b in blocks]
    assert kinds == ["h3", "dl", "table", "figure"]
    terms = {i["term"]: i["text"] for i in blocks[1]["items"]}
    assert terms["Effects"] == "config: means A 50, B 55"
    assert terms["Session duration"].startswith("median 5.0 min, 90th percentile 6.1")
    assert (
        "0.83 EUR at the median duration and 1.02 EUR at the 90th"
        in (terms["Session duration"])
    )
    table = blocks[2]["table"]
    assert table.number == 1 and ctx.figures == 1
    (row,) = table.rows
    assert [c.text for c in row.cells] == ["6", "anova", "0.70"]
    assert row.cells[2].detail == "[0.40, 0.89]"
    assert "anova, n=6" in str(blocks[3]["svg"])


def test_power_section_without_results():
    blocks = power_section(_context(), [])
    assert blocks[0]["kind"] == "p"

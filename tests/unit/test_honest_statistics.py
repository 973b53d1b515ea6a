"""Honest statistics (issue #12, point 8): caveats where numbers cannot mean much.

Correlations over too few systems get no stars and a caveat; measures constant
over systems or identical by construction (MIR = IR and agreement = 1 when every
description is judged once) are flagged; analyses on incomplete designs (lists
without participants, unequal cells) say so. Each caveat is checked in the tidy
output, in the JSON record and in the report, and absent where it does not apply.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from stecflow.analysis.collect import ANALYSED_COLUMNS, ITEM_TABLE_COLUMNS
from stecflow.analysis.run import run_analysis
from stecflow.core.io import read_tsv, write_json, write_tsv
from stecflow.judgments import merge_study
from stecflow.judgments._common import JUDGMENT_COLUMNS
from stecflow.judgments.measures import measure_flags, study_measures
from stecflow.report import inputs
from stecflow.report.context import Context
from stecflow.report.human import human_section
from stecflow.report.inputs import JudgmentStudy
from stecflow.report.methods import methods_section
from stecflow.report.quality import quality_section, statistics_caveats
from stecflow.report.statistics import statistics_section
from stecflow.stats.balance import cell_counts, design_completeness
from stecflow.stats.correlation import (
    MIN_SYSTEMS,
    correlation_caveats,
    pairwise_corr,
)
from tests.conftest import REPO

FEW = (
    "Correlations over 3 systems (df = 1): too few systems for a significance test"
    " to mean anything (at least 5 are needed), so no correlation is marked"
    " significant; r describes these systems only."
)
SINGLE = (
    "Every description (an item described by a system) was judged by one"
    " participant only, so the majority identification rate (MIR) equals the"
    " identification rate (IR) and agreement is 1.00 by construction: they say"
    " nothing of their own. They need several judgments per description."
)

# ---------------------------------------------------------------------------
# correlations over too few systems


def test_correlation_over_three_systems_has_no_stars() -> None:
    df = pd.DataFrame({"system": list("abc"), "x": [1.0, 2, 3], "y": [1.0, 2, 2.9]})
    row = pairwise_corr(df, ["x", "y"]).iloc[0]
    # p = .019 would have earned "*" (seed 001's mark): r = 1.00* over df = 1
    assert round(row["r"], 6) == 0.999539 and round(row["p_val"], 6) == 0.019339
    assert (int(row["n"]), int(row["df"])) == (3, 1)
    assert row["sig"] == "" and bool(row["few_systems"])
    # the threshold is an argument: at 3 the star comes back
    assert pairwise_corr(df, ["x", "y"], min_systems=3).at[0, "sig"] == "*"


def test_correlation_threshold_is_five_systems() -> None:
    assert MIN_SYSTEMS == 5
    x = [1.0, 2, 3, 4, 5]
    y = [1.1, 2, 3.2, 3.9, 5.2]
    four = pairwise_corr(
        pd.DataFrame({"system": list("abcd"), "x": x[:4], "y": y[:4]}), ["x", "y"]
    ).iloc[0]
    assert round(four["p_val"], 6) == 0.004526  # "**" before
    assert four["sig"] == "" and bool(four["few_systems"])
    five = pairwise_corr(
        pd.DataFrame({"system": list("abcde"), "x": x, "y": y}), ["x", "y"]
    ).iloc[0]
    assert round(five["p_val"], 6) == 0.000224
    assert five["sig"] == "**" and not bool(five["few_systems"])


def test_correlation_caveats_in_plain_words() -> None:
    df = pd.DataFrame(
        {"system": list("abc"), "x": [1.0, 2, 3], "y": [1.0, 2, 2.9], "c": 7.0}
    )
    caveats = correlation_caveats(pairwise_corr(df, ["x", "y", "c"]))
    assert caveats == [
        {"kind": "few_systems", "n_systems": [3], "min_systems": 5, "text": FEW},
        {
            "kind": "constant",
            "measure": "c",
            "text": "'c' has the same value for every system, so its correlation"
            " with any other measure is undefined.",
        },
    ]
    six = pd.DataFrame(
        {"system": list("abcdef"), "x": [1.0, 2, 3, 4, 5, 6], "y": [2.0, 1, 4, 3, 6, 5]}
    )
    assert correlation_caveats(pairwise_corr(six, ["x", "y"])) == []
    two = correlation_caveats(pairwise_corr(six.head(2), ["x", "y"]))
    assert [c["text"] for c in two] == [
        "Correlations over 2 systems: r needs at least 3 systems, and a"
        " significance test at least 5, so no correlation was computed."
    ]


# ---------------------------------------------------------------------------
# incomplete and unbalanced designs


def test_cell_counts_include_empty_cells() -> None:
    df = pd.DataFrame(
        {
            "system": ["A"] * 3 + ["B"] * 2,
            "subdomain": ["furniture", "furniture", "people", "furniture", "furniture"],
            "value": [1.0, 2.0, 3.0, 4.0, None],
        }
    )
    assert cell_counts(df, "value", ["system", "subdomain"]).values.tolist() == [
        ["A", "furniture", 2],
        ["A", "people", 1],
        ["B", "furniture", 1],
        ["B", "people", 0],
    ]


def _cells(counts: dict[tuple[str, str], int]) -> pd.DataFrame:
    rows = [
        {"label": system, "subdomain": sub, "value": 50.0}
        for (system, sub), n in counts.items()
        for _ in range(n)
    ]
    return pd.DataFrame(rows)


def test_design_note_for_missing_lists_and_unequal_cells() -> None:
    frame = _cells(
        {("A", "furniture"): 14, ("A", "people"): 6, ("B", "furniture"): 10}
        | {("B", "people"): 12}
    )
    design = design_completeness(
        frame,
        "value",
        ["label", "subdomain"],
        names=["system", "subdomain"],
        lists_in_design=8,
        lists_run=5,
        unit="judgments",
    )
    assert design == {
        "factors": ["system", "subdomain"],
        "n_cells": 4,
        "empty_cells": 0,
        "n_min": 6,
        "n_max": 14,
        "balanced": False,
        "lists_in_design": 8,
        "lists_run": 5,
        "lists_without_participant": 3,
        "complete": False,
        "notes": [
            "3 of 8 lists have no participant",
            "system × subdomain cells have 6–14 judgments",
        ],
        "note": "3 of 8 lists have no participant;"
        " system × subdomain cells have 6–14 judgments.",
    }


def test_design_note_for_an_empty_cell_and_none_when_balanced() -> None:
    frame = _cells({("A", "furniture"): 2, ("A", "people"): 2, ("B", "people"): 2})
    gap = design_completeness(frame, "value", ["label", "subdomain"], unit="items")
    assert gap["note"] == "1 of 4 label × subdomain cells is empty."
    assert (gap["complete"], gap["balanced"]) == (False, False)
    one = design_completeness(
        frame[frame["label"] == "A"],
        "value",
        ["label", "subdomain"],
        lists_in_design=2,
        lists_run=2,
    )
    assert one["note"] == "" and one["complete"] and one["balanced"]
    assert one["lists_without_participant"] == 0


def _judgments(folder: Path, counts: dict[str, int], lists: tuple[int, int]) -> Path:
    """A rating study's judgments table and summary: *counts* trials per cell."""
    rows = []
    for cell, n in counts.items():
        system, subdomain = cell.rsplit(":", 1)
        for k in range(n):
            row = dict.fromkeys(JUDGMENT_COLUMNS, "")
            row.update(
                study="rate",
                system=system,
                subdomain=subdomain,
                item=f"{subdomain}{k}",
                adequacy=str(40 + 7 * k + (5 if system.endswith("1") else 0)),
                in_analysis="true",
            )
            rows.append(row)
    path = folder / "judgments" / "rate.tsv"
    write_tsv(rows, JUDGMENT_COLUMNS, path)
    in_design, run = lists
    write_json(
        {
            "study": "rate",
            "simulated": False,
            "counts": {"lists_in_design": in_design, "lists_run": run},
        },
        folder / "judgments" / "summary" / "rate.json",
    )
    return path


def _analysed(folder: Path, systems: list[str]) -> tuple[Path, Path]:
    items = folder / "items.tsv"
    write_tsv([], ITEM_TABLE_COLUMNS, items)
    analysed = folder / "analysed.tsv"
    write_tsv(
        [
            {"label": s.split("/")[1], "team": s.split("/")[0], "system": s}
            | {"status": "scored", "subset": "all", "metric": "se", "value": "1"}
            for s in systems
        ],
        ANALYSED_COLUMNS,
        analysed,
    )
    return items, analysed


@pytest.mark.parametrize(
    ("counts", "lists", "note"),
    [
        (
            {"t1/s1:furniture": 6, "t1/s1:people": 14}
            | {"t2/s2:furniture": 10, "t2/s2:people": 8},
            (8, 5),
            "3 of 8 lists have no participant;"
            " system × subdomain cells have 6–14 judgments.",
        ),
        (
            {"t1/s1:furniture": 4, "t1/s1:people": 4}
            | {"t2/s2:furniture": 4, "t2/s2:people": 4},
            (2, 2),
            "",
        ),
    ],
)
def test_analysis_record_states_the_design(tmp_path, counts, lists, note) -> None:
    judgments = _judgments(tmp_path, counts, lists)
    items, analysed = _analysed(tmp_path, ["t1/s1", "t2/s2"])
    spec = {
        "id": "rate-adequacy-anova",
        "test": "anova",
        "source": "rate",
        "measure": "adequacy",
        "factors": ["system", "subdomain"],
    }
    record = run_analysis(
        spec,
        items,
        analysed,
        tmp_path / "a.tsv",
        tmp_path / "a.json",
        judgments={"rate": judgments},
    )
    written = json.loads((tmp_path / "a.json").read_text())
    assert written["design"] == record["design"]
    assert record["design"]["note"] == note
    assert record["design"]["complete"] is (lists[0] == lists[1])
    assert record["design"]["lists_without_participant"] == lists[0] - lists[1]


# ---------------------------------------------------------------------------
# measures identical by construction or constant


def _trials(correct: dict[tuple[str, str], list[bool]]) -> pd.DataFrame:
    """Identification trials: (system, item) -> one answer per judge."""
    rows = []
    for (system, item), answers in correct.items():
        for judge, ok in enumerate(answers):
            row: dict[str, Any] = dict.fromkeys(JUDGMENT_COLUMNS)
            row.update(
                system=system,
                item=item,
                subdomain="people",
                subject=f"p{judge}",
                target_entity="e1",
                choice="e1" if ok else "e2",
                correct=ok,
                timeout=False,
                cant_tell=False,
                in_analysis=True,
                in_time_analysis=True,
                identification_time_adj_ms=1000.0 + 100 * judge + len(rows),
            )
            rows.append(row)
    return pd.DataFrame(rows)


def test_one_judgment_per_description_is_flagged() -> None:
    once = _trials(
        {
            ("A", "i1"): [True],
            ("A", "i2"): [False],
            ("B", "i1"): [True],
            ("B", "i2"): [True],
        }
    )
    table = study_measures(once, task="identification", study="id")
    overall = table[table["subdomain"] == "all"].set_index("system")
    assert overall.loc["A", ["ir", "mir", "agreement"]].tolist() == [0.5, 0.5, 1.0]
    assert overall.loc["B", ["ir", "mir", "agreement"]].tolist() == [1.0, 1.0, 1.0]
    assert overall["flags"].tolist() == ["constant:agreement;single_judgment"] * 2
    assert [f["text"] for f in measure_flags(table)] == [SINGLE]
    # three judges per description: MIR and IR differ, nothing is flagged
    thrice = _trials(
        {
            ("A", "i1"): [True, True, False],
            ("A", "i2"): [False, False, True],
            ("B", "i1"): [True, False, True],
            ("B", "i2"): [True, True, True],
        }
    )
    table = study_measures(thrice, task="identification", study="id")
    overall = table[table["subdomain"] == "all"].set_index("system")
    assert overall.loc["A", "ir"] == pytest.approx(0.5)
    assert overall.loc["A", "mir"] == 0.5
    assert overall.loc["B", "ir"] == pytest.approx(5 / 6)
    assert overall.loc["B", "mir"] == 1.0
    assert overall["flags"].tolist() == ["", ""] and measure_flags(table) == []


def test_constant_measure_is_flagged() -> None:
    table = study_measures(
        _trials(
            {
                ("A", "i1"): [True, True],
                ("A", "i2"): [True, True],
                ("B", "i1"): [True, True],
                ("B", "i2"): [True, True],
            }
        ),
        task="identification",
        study="id",
    )
    overall = table[table["subdomain"] == "all"]
    assert set(overall["flags"]) == {
        "constant:accuracy;constant:agreement;constant:ir;constant:mir"
    }
    texts = [f["text"] for f in measure_flags(table)]
    assert texts[0] == (
        "Identification accuracy is 1.00 for every system: it does not tell the"
        " systems apart, and its correlation with any other measure is undefined."
    )
    assert [f["measure"] for f in measure_flags(table)] == [
        "accuracy",
        "ir",
        "mir",
        "agreement",
    ]


def test_merged_study_summary_carries_the_flags(tmp_path) -> None:
    fixtures = REPO / "tests" / "fixtures" / "judgments"
    summary = merge_study(
        fixtures / "design_id.tsv",
        [fixtures / "server_export.tsv"],
        None,
        fixtures / "testset.xml",
        out_measures_tsv=tmp_path / "m.tsv",
        study="id-demo",
        task="identification",
    )
    flags = {
        (r["system"], r["subdomain"]): r["flags"] for r in read_tsv(tmp_path / "m.tsv")
    }
    # GRAPH's four items were judged once each, HUMAN-1's twice for some
    assert flags[("GRAPH", "all")] == "single_judgment"
    assert flags[("HUMAN-1", "all")] == ""
    assert [f["systems"] for f in summary["measure_flags"]] == [["GRAPH"]]
    assert summary["measure_flags"][0]["text"].startswith(
        "Every description of GRAPH (an item described by that system) was judged"
        " by one participant only"
    )


# ---------------------------------------------------------------------------
# the report


def _context(
    analyses: list[tuple[dict[str, Any], list[dict[str, str]], str]],
    judgments: list[JudgmentStudy] = (),  # type: ignore[assignment]
) -> Context:
    testset = inputs.TestsetInfo(
        n_items=4,
        subdomains=("furniture", "people"),
        conditions=(),
        counts=(("furniture", "", 2), ("people", "", 2)),
        refs_per_item=(),
        reference_ids=(),
        entities_per_item=(),
    )
    return Context(
        config={"data": {"testset": "test.xml", "format": "tuna"}},
        metrics={},
        entries=[],
        records={},
        summary=[],
        testset=testset,
        analyses=analyses,
        judgments=list(judgments),
        prefix="",
    )


def _texts(blocks: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(b["title"], b["text"]) for b in blocks if b["kind"] == "notice"]


def _table_rows(blocks: list[dict[str, Any]], table_id: str) -> list[list[str]]:
    for block in blocks:
        if block["kind"] == "table" and block["table"].id == table_id:
            rows = block["table"].rows  # divider rows (a group's heading) aside
            return [[c.text for c in row.cells] for row in rows if not row.heading]
    raise AssertionError(f"no table {table_id}")


BOOLS = ("few_systems", "computable")


def _correlation(few: bool) -> tuple[dict[str, Any], list[dict[str, str]], str]:
    df = pd.DataFrame(
        {
            "system": list("abcdef"),
            "se": [1.0, 2, 3, 4, 5, 6],
            "bleu3": [1.1, 2, 3.2, 3.9, 5.2, 6.1],
        }
    )
    if few:
        df = df.head(3)
    result = pairwise_corr(df, ["se", "bleu3"])
    row = {  # as read back from the TSV
        key: ""
        if pd.isna(value)
        else str(value).lower()
        if key in BOOLS
        else str(value)
        for key, value in result.iloc[0].items()
    }
    record = {
        "id": "correlations",
        "test": "correlations",
        "alpha": 0.05,
        "spec": {"measures": ["se", "bleu3"]},
        "systems": list(df["system"]),
        "excluded_systems": [],
        "min_systems": MIN_SYSTEMS,
        "caveats": correlation_caveats(result),
        "text": [],
    }
    return record, [row], "correlations"


def test_report_correlations_over_three_systems_carry_the_caveat() -> None:
    ctx = _context([_correlation(few=True)])
    blocks = statistics_section(ctx)
    assert _texts(blocks) == [("Too few systems", FEW)]
    matrix = _table_rows(blocks, "stats-correlations")
    assert matrix[0][2] == "1.00" and "*" not in matrix[0][2]  # r = .9995, p = .019
    paragraph = next(b for b in blocks if b["kind"] == "p")
    assert paragraph["parts"][0]["text"].endswith(
        "No correlation is marked significant: too few systems (see the note)."
    )
    assert statistics_caveats(ctx) == [
        ("Analysis correlations", "Too few systems", FEW)
    ]
    methods = next(
        b["parts"][0]["text"]
        for b in methods_section(ctx)
        if b["kind"] == "p" and "Significance level" in b["parts"][0]["text"]
    )
    assert methods.endswith(
        "correlations are computed on the per-system means and marked significant"
        " only over at least 5 systems (over fewer, not even an exact permutation"
        " test can reach p < .05)."
    )


def test_report_correlations_over_six_systems_have_stars_and_no_caveat() -> None:
    ctx = _context([_correlation(few=False)])
    blocks = statistics_section(ctx)
    assert _texts(blocks) == []
    assert _table_rows(blocks, "stats-correlations")[0][2] == "1.00**"
    assert statistics_caveats(ctx) == []
    quality = quality_section(ctx)
    caveats = quality[[b.get("id") for b in quality].index("quality-caveats") + 1]
    assert caveats["parts"][0]["text"].startswith(
        "Every analysis ran on a complete design with equal cells"
    )


def _anova(note: str, complete: bool) -> tuple[dict[str, Any], list, str]:
    record = {
        "id": "rate-adequacy-anova",
        "test": "anova",
        "alpha": 0.05,
        "spec": {
            "measure": "adequacy",
            "source": "rate",
            "factors": ["system", "subdomain"],
        },
        "systems": ["s1", "s2"],
        "design": {"note": note, "complete": complete, "balanced": not note},
        "text": [],
    }
    rows = [
        {"source": "label", "ss": "1", "df": "1", "ms": "1", "f": "2", "p_val": ".2"}
        | {"df_resid": "20", "np2": ".09"},
        {"source": "Residual", "ss": "10", "df": "20", "ms": ".5"},
    ]
    return record, rows, "rate-adequacy-anova"


def test_report_incomplete_design_next_to_the_table_and_in_data_quality() -> None:
    note = "3 of 8 lists have no participant; system × subdomain cells have 6–14 judgments."
    ctx = _context([_anova(note, complete=False)])
    blocks = statistics_section(ctx)
    kinds = [b["kind"] for b in blocks]
    assert _texts(blocks) == [("Incomplete design", note)]
    assert kinds.index("notice") == kinds.index("table") - 1  # just above the table
    quality = quality_section(ctx)
    assert _table_rows(quality, "statistics-caveats") == [
        ["Analysis rate-adequacy-anova", "Incomplete design", note]
    ]
    # a study awaiting its responses is not an incomplete design
    waiting = _anova("8 of 8 lists have no participant.", complete=False)
    waiting[0]["awaiting_responses"] = ["rate"]
    assert statistics_caveats(_context([waiting])) == []
    balanced = _context([_anova("", complete=True)])
    assert _texts(statistics_section(balanced)) == []
    assert statistics_caveats(balanced) == []


def test_report_flags_measures_in_human_results_and_data_quality() -> None:
    summary = {
        "study": "id",
        "task": "identification",
        "measure_flags": [
            {"flag": "single_judgment", "text": SINGLE},
        ],
    }
    rows = [
        {"study": "id", "system": s, "subdomain": "all", "accuracy": v, "ir": v}
        | {"mir": v, "agreement": "1", "flags": "single_judgment"}
        for s, v in (("A", "0.5"), ("B", "1"))
    ]
    ctx = _context([], [JudgmentStudy("id", measures=rows, summary=summary)])
    assert _texts(human_section(ctx)) == [("Identical by construction", SINGLE)]
    assert _table_rows(quality_section(ctx), "statistics-caveats") == [
        ["Study id", "Identical by construction", SINGLE]
    ]
    unflagged = {**summary, "measure_flags": []}
    ctx = _context([], [JudgmentStudy("id", measures=rows, summary=unflagged)])
    assert _texts(human_section(ctx)) == []

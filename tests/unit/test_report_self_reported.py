"""The report's table of self-reported development scores (seed 001 Table 4)
beside the organisers' test scores (Table 5), from the validation records."""

from __future__ import annotations

from stecflow.report import inputs
from stecflow.report.context import Context, SystemEntry
from stecflow.report.inputs import metric_infos
from stecflow.report.self_reported import self_reported_table

CONFIG = {
    "campaign": {"tasks": ["end_to_end"]},
    "scoring": {"metrics": [{"id": "string_accuracy"}, {"id": "se"}, {"id": "bleu3"}]},
}
TESTSET = inputs.TestsetInfo(
    n_items=112,
    subdomains=("furniture", "people"),
    conditions=(),
    counts=(),
    refs_per_item=((2, 112),),
    reference_ids=(),
    entities_per_item=(),
)

#: Seed 001 Table 5 (all test data, two references): Acc %, SE, BLEU, as
#: scores/systems.tsv stores them (accuracy 0-1, BLEU-3 0-100).
TEST = {
    "GRAPH": (0.1250, 6.41, 47.0),
    "IS-FP-GT": (0.0357, 6.74, 28.0),
    "USP-EACH": (0.0714, 7.59, 27.0),
    "QUIET": (0.05, 7.00, 30.0),
}
#: Seed 001 Table 4 (all development data, one reference), as the teams gave them.
REPORTED = {
    "IS-FP-GT": [("string_accuracy", 9.71), ("se", 4.313), ("bleu3", 0.297)],
    "GRAPH": [("se", 5.03), ("bleu3", 0.30)],
    "USP-EACH": [("se", 6.03), ("bleu3", 0.19)],
}


def entry(team, system, *, late=False, reference=False) -> SystemEntry:
    found = SystemEntry(team, system, "scored", late, reference, False, label=system)
    for mid, value in zip(
        ("string_accuracy", "se", "bleu3"), TEST.get(system, TEST["QUIET"]), strict=True
    ):
        found.scores[(mid, "all", "all")] = {
            "value": str(value),
            "ci_low": str(value * 0.9),
            "ci_high": str(value * 1.1),
        }
    return found


def context(records) -> Context:
    entries = [
        entry("graph", "GRAPH"),
        entry("is", "IS-FP-GT"),
        entry("usp", "USP-EACH"),
        entry("quiet", "QUIET"),  # reported nothing: no row
        entry("human", "HUMAN-1", reference=True),
    ]
    return Context(
        config=CONFIG,
        metrics=metric_infos(CONFIG),
        entries=entries,
        records=records,
        summary=[],
        testset=TESTSET,
        analyses=[],
        judgments=[],
        prefix="t-",
    )


def records(extra=None):
    found = {
        (team, system): {
            "self_reported": [
                {"metric": m, "value": v, "data": "development", "references": 1}
                for m, v in REPORTED[system]
            ]
        }
        for team, system in (
            ("graph", "GRAPH"),
            ("is", "IS-FP-GT"),
            ("usp", "USP-EACH"),
        )
    }
    found[("quiet", "QUIET")] = {"self_reported": []}
    # a reference set has no algorithm to report on: left out even if it gives any
    found[("human", "HUMAN-1")] = {
        "self_reported": [{"metric": "se", "value": 1.0, "data": "development"}]
    }
    found.update(extra or {})
    return found


def texts(table):
    return [[c.text for c in row.cells] for row in table.rows]


def test_rows_reproduce_seed_001_table_4_beside_table_5():
    table = self_reported_table(context(records()))
    assert table.id == "scores-self-reported"
    assert [(c.group, c.label) for c in table.columns] == [
        ("", "System"),
        ("Acc (%)", "Reported"),
        ("Acc (%)", "Test"),
        ("SE", "Reported"),
        ("SE", "Test"),
        ("BLEU", "Reported"),
        ("BLEU", "Test"),
        ("", "Data"),
        ("", "Refs"),
    ]
    # listed by the reported SE, best (lowest) first, as seed 001 Table 4 is
    assert texts(table) == [
        [
            "IS-FP-GT",
            "9.71",
            "3.57",
            "4.313",
            "6.74",
            "0.297",
            "0.28",
            "development",
            "1",
        ],
        ["GRAPH", "–", "12.50", "5.03", "6.41", "0.3", "0.47", "development", "1"],
        ["USP-EACH", "–", "7.14", "6.03", "7.59", "0.19", "0.27", "development", "1"],
    ]
    assert "listed in order of the reported SE, lower is better" in table.caption
    notes = " ".join(table.notes)
    assert "development" in notes and "112 items, 2 references per item" in notes
    assert "against 1 reference(s) per item" in notes
    assert "signature" in notes
    assert "– under Reported: the team did not report that metric." in table.notes


def test_csv_keeps_the_reported_number_and_the_test_interval():
    table = self_reported_table(context(records()))
    first = table.rows[0].cells
    assert first[1].csv == ("9.71",)
    assert first[2].csv[0] == "3.57"  # the test score, then its interval
    assert len(first[2].csv) == 3
    assert first[-1].csv == ("1",)


def test_an_unknown_metric_a_second_data_set_and_notes():
    extra = {
        ("quiet", "QUIET"): {
            "self_reported": [
                {
                    "metric": "meteor",
                    "value": 0.25,
                    "data": "training",
                    "note": "our own scorer",
                },
                {"metric": "se", "value": 5.5, "data": "development", "references": 1},
            ]
        }
    }
    found = records(extra)
    found[("is", "IS-FP-GT")]["self_reported"][1]["note"] = "teval"
    table = self_reported_table(context(found))
    # the campaign's metrics in config order, then the other names, sorted
    assert [(c.group, c.label) for c in table.columns][7:] == [
        ("meteor", "Reported"),
        ("meteor", "Test"),
        ("", "Data"),
        ("", "Refs"),
        ("", "Team's note"),
    ]
    # one row per system and data set; by the reported SE, then those without
    assert texts(table) == [
        [
            "IS-FP-GT",
            "9.71",
            "3.57",
            "4.313",
            "6.74",
            "0.297",
            "0.28",
            "–",
            "–",
            "development",
            "1",
            "SE: teval",  # a note of one score: after its metric
        ],
        [
            "GRAPH",
            "–",
            "12.50",
            "5.03",
            "6.41",
            "0.3",
            "0.47",
            "–",
            "–",
            "development",
            "1",
            "",
        ],
        [
            "QUIET",
            "–",
            "5.00",
            "5.5",
            "7.00",
            "–",
            "0.30",
            "–",
            "–",
            "development",
            "1",
            "",
        ],
        [
            "USP-EACH",
            "–",
            "7.14",
            "6.03",
            "7.59",
            "0.19",
            "0.27",
            "–",
            "–",
            "development",
            "1",
            "",
        ],
        [
            "QUIET",
            "–",
            "5.00",
            "–",
            "7.00",
            "–",
            "0.30",
            "0.25",
            "–",
            "training",
            "–",
            "our own scorer",  # the note of every score of the row: once
        ],
    ]
    assert "– under Test: the campaign does not compute meteor." in table.notes
    assert "(development, training)" in table.notes[0]


def test_no_table_when_no_system_reported_a_score():
    assert self_reported_table(context({})) is None
    assert (
        self_reported_table(context({("quiet", "QUIET"): {"self_reported": []}}))
        is None
    )


def test_the_table_exports_to_latex():
    table = self_reported_table(context(records()))
    table.number = 3
    latex = table.to_latex()
    assert "IS-FP-GT & 9.71 & 3.57 & 4.313 & 6.74 & 0.297 & 0.28" in latex
    assert "Self-reported development scores" in latex

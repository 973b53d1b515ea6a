"""Measures typed as the seeds type them (issue #45, points 1 and 4).

Seed 001 (TUNA-REG'09) Table 3 types each criterion: Humanlikeness
intrinsic/automatic (Accuracy, string-edit distance, BLEU-3, NIST), Adequacy
and Fluency intrinsic/human, referential clarity extrinsic/human (speed and
accuracy of identification); its Table 10 heads the correlations
"Human-assessed, intrinsic", "Extrinsic", "Auto-assessed, intrinsic". Seed 002
Table 2 boxes its measures: task performance, REG-specific (Min), string
similarity (ROUGE, NIST, BLEU, SE, SEB), set similarity (Dice, MASI).
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from stecflow.campaign.config import check_config
from stecflow.core.errors import ConfigError
from stecflow.metrics.base import Metric, available_metrics, metric_class
from stecflow.metrics.measure_types import MeasureType
from stecflow.report.context import Context
from stecflow.report.correlation_tables import correlation_blocks
from stecflow.report.inputs import metric_infos
from stecflow.report.measure_types import (
    MeasureTypes,
    check_measure_types,
    criteria_table,
)
from stecflow.studykinds.registry import get, kinds

ROOT = Path(__file__).resolve().parents[2]
DEMO = yaml.safe_load((ROOT / "config" / "config.yaml").read_text(encoding="utf-8"))

#: Seed 002 Table 2's boxes (and seed 001 Table 3's types) of the metrics.
SEED_GROUPS = {
    "dice": "set_similarity",
    "masi": "set_similarity",
    "set_accuracy": "set_similarity",
    "string_accuracy": "string_similarity",
    "se": "string_similarity",
    "seb": "string_similarity",
    "bleu3": "string_similarity",
    "nist5": "string_similarity",
    "rouge2": "string_similarity",
    "rouge_su4": "string_similarity",
    "minimality": "reg_specific",
    "uniqueness": "reg_specific",
}


def context(config) -> Context:
    return Context(
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


# -- declarations --------------------------------------------------------------


@pytest.mark.parametrize("name", available_metrics())
def test_every_shipped_metric_declares_its_type(name):
    cls = metric_class(name)
    assert cls.measure_type is not None, f"{cls.__name__} declares no measure_type"
    kind = cls.type_of()
    assert (kind.evaluation, kind.judge) == ("intrinsic", "automatic")
    if name in SEED_GROUPS:
        assert kind.group == SEED_GROUPS[name]
    if name.startswith("decision_"):
        assert kind.group == "decision"


def test_every_shipped_kind_measure_declares_its_type():
    declared = {
        (kind.name, m.name): m.measure_type for kind in kinds() for m in kind.measures
    }
    assert all(declared.values()), [k for k, v in declared.items() if v is None]
    types = {k: (v.kind, v.group) for k, v in declared.items() if v is not None}
    assert types[("rating", "adequacy")] == ("Intrinsic/human", "judgment")
    assert types[("rating", "fluency")] == ("Intrinsic/human", "judgment")
    for measure in ("identification_accuracy", "identification_time", "reading_time"):
        assert types[("identification", measure)] == (
            "Extrinsic/human",
            "task_performance",
        )


def test_measures_a_kind_does_not_declare_take_its_default():
    # a text rating's criteria come from the config: the kind's type, named
    criterion = get("text_rating").type_of("clarity")
    assert (criterion.kind, criterion.group) == ("Intrinsic/human", "judgment")
    assert criterion.technique.startswith("clarity rated by participants")
    assert get("text_rating").type_of("clarity_z").technique == (
        "clarity rated by participants on a Likert scale or a slider"
        " (z-scores per participant)"
    )
    # the situated study declares no measure: task performance (seed 000)
    situated = get("situated_identification").type_of("situated")
    assert (situated.kind, situated.group) == ("Extrinsic/human", "task_performance")
    # per-rater z-scores keep their measure's type
    z = get("rating").type_of("adequacy_z")
    assert z.technique == (
        "adequacy rated by participants on a slider (z-scores per participant)"
    )
    assert z.group == "judgment"


def test_a_plugin_metric_without_a_type_is_typed_by_what_it_compares():
    class Plugin(Metric):
        name = "plugin"
        display_name = "Plugin"
        version = "1"
        input_type = "attributes"

        def segment_stats(self, hyp, refs, **context):
            return (0.0,)

    assert Plugin.type_of() == MeasureType(
        "intrinsic", "automatic", "Plugin", "set_similarity"
    )


def test_a_measure_type_refuses_values_outside_its_vocabulary():
    with pytest.raises(ValueError, match="evaluation must be one of intrinsic"):
        MeasureType("both", "human", "x", "judgment")
    with pytest.raises(ValueError, match="group must be one of judgment, "):
        MeasureType("intrinsic", "human", "x", "boxes")
    with pytest.raises(ValueError, match="technique must be a non-empty text"):
        MeasureType("intrinsic", "human", " ", "judgment")
    t = MeasureType("intrinsic", "automatic", "Dice", "set_similarity")
    with pytest.raises(ValueError, match="unknown field"):
        t.with_overrides({"colour": "red"})


# -- overrides -------------------------------------------------------------------


def with_overrides(overrides):
    config = copy.deepcopy(DEMO)
    config.setdefault("report", {})["measure_types"] = overrides
    return config


def test_the_config_overrides_a_declared_type():
    types = MeasureTypes(
        with_overrides(
            {
                "se": {"group": "other", "technique": "Levenshtein"},
                "adequacy": {"technique": "clarity slider"},
                "rating:fluency": {"evaluation": "extrinsic"},
            }
        )
    )
    se = types.reported("se")
    assert se.overridden and se.type == MeasureType(
        "intrinsic", "automatic", "Levenshtein", "other"
    )
    assert types.of("rating:adequacy").technique == "clarity slider"
    assert types.of("adequacy", study="rating").technique == "clarity slider"
    assert types.of("rating:fluency").kind == "Extrinsic/human"
    assert not types.reported("dice").overridden


def test_the_study_entry_wins_over_the_measure_entry():
    types = MeasureTypes(
        with_overrides(
            {"fluency": {"technique": "a"}, "rating:fluency": {"technique": "b"}}
        )
    )
    assert types.of("rating:fluency").technique == "b"


def test_an_override_of_an_unknown_measure_is_refused_with_what_is_known():
    with pytest.raises(ConfigError) as info:
        check_measure_types(with_overrides({"bleu4": {"group": "other"}}))
    assert info.value.field == "report.measure_types.bleu4"
    assert "'bleu4' is not a measure this campaign reports" in str(info.value)
    assert "rating:adequacy" in str(info.value)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"group": "boxes"}, "group must be one of judgment, task_performance"),
        ({"judge": "machine"}, "judge must be one of human, automatic"),
        ({"colour": "red"}, "unknown field(s) colour"),
        ({}, "give a mapping with any of evaluation, judge, technique, group"),
    ],
)
def test_a_bad_override_is_refused_naming_the_key(entry, message):
    with pytest.raises(ConfigError) as info:
        check_measure_types(with_overrides({"dice": entry}))
    assert info.value.field == "report.measure_types.dice"
    assert message in str(info.value)


def test_check_config_checks_the_overrides():
    config = with_overrides({"identification:reading_time": {"group": "nope"}})
    config["data"]["testset"] = "x.xml"
    with pytest.raises(ConfigError, match="group must be one of"):
        check_config(config)


# -- the criteria table (seed 001 Table 3) -----------------------------------------


def test_the_demo_campaigns_criteria_table():
    table = criteria_table(context(DEMO))
    rows = [[c.text for c in row.cells] for row in table.rows]
    assert len(rows) == 17 + 2 + 3  # 17 metrics, rating, identification
    by_label = {r[0]: r for r in rows}
    assert by_label["Acc"] == [
        "Acc",
        "automatic scores",
        "Intrinsic/automatic",
        "exact match with a reference word string",
        "string similarity",
    ]
    assert by_label["Minimality"][2:] == [
        "Intrinsic/automatic",
        "whether the attribute set is a smallest one singling out the target",
        "REG-specific",
    ]
    assert by_label["Dice"][4] == by_label["MASI"][4] == "set similarity"
    assert by_label["Fluency"] == [
        "Fluency",
        "rating",
        "Intrinsic/human",
        "fluency rated by participants on a slider",
        "judgments",
    ]
    assert by_label["ID time (ms)"] == [
        "ID time (ms)",
        "identification",
        "Extrinsic/human",
        "speed of identifying the referent in an identification experiment",
        "task performance",
    ]
    csv = table.to_csv().splitlines()
    assert csv[0] == "measure,source,evaluation,judge,technique,group"
    assert (
        "identification_accuracy,identification,extrinsic,human,accuracy of"
        " identifying the referent in an identification experiment,task_performance"
    ) in csv
    latex = table.to_latex()
    assert "Measure & From & Type of evaluation & Technique & Group \\\\" in latex
    assert "\\label{tab:criteria}" in latex


def test_the_criteria_table_says_which_types_the_organisers_set():
    table = criteria_table(context(with_overrides({"se": {"group": "other"}})))
    se = next(r for r in table.rows if r.cells[0].text == "SE")
    assert se.cells[4].text == "other"
    assert table.notes[-1] == (
        "Type as the organisers set it (report.measure_types): SE."
    )


# -- correlation tables grouped by type (seed 001 Table 10, seed 002 Table 2) ------

#: Seed 001 Table 10's measures, as the demo config correlates them, with a few
#: of its coefficients (Fluency-ID speed -0.89*, Adequacy-ID acc. 0.95**,
#: Accuracy-BLEU .86*).
MEASURES = DEMO["statistics"]["analyses"][-1]["measures"]
SEED_R = {
    ("rating:fluency", "identification:identification_time"): ("-0.89", "*"),
    ("rating:adequacy", "identification:identification_accuracy"): ("0.95", "**"),
    ("string_accuracy", "bleu3"): ("0.86", "*"),
}


def correlation_rows():
    rows = []
    for i, a in enumerate(MEASURES):
        for b in MEASURES[i + 1 :]:
            r, sig = SEED_R.get((a, b)) or SEED_R.get((b, a)) or ("0.10", "")
            rows.append(
                {
                    "measure_a": a,
                    "measure_b": b,
                    "r": r,
                    "sig": sig,
                    "df": "4",
                    "p_val": "0.01" if sig else "0.5",
                    "computable": "true",
                    "few_systems": "false",
                }
            )
    return rows


def test_the_demo_correlations_are_grouped_as_seed_001_table_10():
    assert MEASURES == [  # the demo's Table 10 analysis
        "string_accuracy",
        "se",
        "bleu3",
        "nist5",
        "rating:adequacy",
        "rating:fluency",
        "identification:identification_accuracy",
        "identification:identification_time",
    ]
    record = {
        "id": "correlations",
        "test": "correlations",
        "alpha": 0.05,
        "spec": {"measures": MEASURES},
        "systems": [],
        "excluded_systems": [],
        "text": [],
    }
    blocks = correlation_blocks(
        context(DEMO), record, correlation_rows(), "correlations"
    )
    table = next(b["table"] for b in blocks if b["kind"] == "table")
    human, extrinsic, auto = (
        "Human-assessed, intrinsic: judgments",
        "Human-assessed, extrinsic: task performance",
        "Auto-assessed, intrinsic: string similarity",
    )
    # columns headed by seed 002 Table 2's boxes, rows by seed 001 Table 10's
    # headers with the box
    assert table.group_spans() == [
        ("", 1),
        ("Judgments", 2),
        ("Task performance", 2),
        ("String similarity", 4),
    ]
    assert [c.label for c in table.columns] == [
        "",
        "Adequacy",
        "Fluency",
        "ID acc.",
        "ID time (ms)",
        "Acc",
        "SE",
        "BLEU",
        "NIST",
    ]
    headings = [r.heading for r in table.rows if r.heading]
    assert headings == [human, extrinsic, auto]
    assert [r.cells[0].text if not r.heading else r.heading for r in table.rows] == [
        human,
        "Adequacy",
        "Fluency",
        extrinsic,
        "ID acc.",
        "ID time (ms)",
        auto,
        "Acc",
        "SE",
        "BLEU",
        "NIST",
    ]
    cells = {
        r.cells[0].text: [c.text for c in r.cells[1:]]
        for r in table.rows
        if not r.heading
    }
    assert cells["Fluency"][3] == "-0.89*"  # seed 001: Fluency, ID speed
    assert cells["ID acc."][0] == "0.95**"  # Adequacy, ID acc.
    assert cells["BLEU"][4] == "0.86*"  # Acc., BLEU
    assert cells["SE"][5] == "1"
    latex = table.to_latex()
    assert "\\multicolumn{4}{c}{String similarity}" in latex
    assert f"\\multicolumn{{9}}{{l}}{{\\emph{{{human}}}}}" in latex
    # the same inputs give the same table
    again = correlation_blocks(
        context(DEMO), record, correlation_rows(), "correlations"
    )
    assert next(b["table"] for b in again if b["kind"] == "table").to_csv() == (
        table.to_csv()
    )


def test_an_override_moves_a_measure_to_another_block():
    config = with_overrides({"se": {"group": "other"}})
    record = {
        "spec": {"measures": ["se", "bleu3", "rating:fluency"]},
        "systems": [],
        "text": [],
    }
    rows = [
        r
        for r in correlation_rows()
        if {r["measure_a"], r["measure_b"]}
        <= {
            "se",
            "bleu3",
            "rating:fluency",
        }
    ]
    blocks = correlation_blocks(context(config), record, rows, "c")
    table = next(b["table"] for b in blocks if b["kind"] == "table")
    assert [r.heading for r in table.rows if r.heading] == [
        "Human-assessed, intrinsic: judgments",
        "Auto-assessed, intrinsic: string similarity",
        "Auto-assessed, intrinsic: other",
    ]
    assert [c.key for c in table.columns] == [
        "measure",
        "rating:fluency",
        "bleu3",
        "se",
    ]
    assert [g for g, _ in table.group_spans()] == [
        "",
        "Judgments",
        "String similarity",
        "Other",
    ]


def test_two_blocks_of_one_group_keep_their_full_headers_over_the_columns():
    # Fluency said to be auto-assessed: two blocks of judgments, told apart
    config = with_overrides({"rating:fluency": {"judge": "automatic"}})
    measures = ["rating:fluency", "rating:adequacy"]
    record = {"spec": {"measures": measures}, "systems": [], "text": []}
    rows = [
        r
        for r in correlation_rows()
        if {r["measure_a"], r["measure_b"]} == set(measures)
    ]
    blocks = correlation_blocks(context(config), record, rows, "c")
    table = next(b["table"] for b in blocks if b["kind"] == "table")
    assert table.group_spans() == [
        ("", 1),
        ("Human-assessed, intrinsic: judgments", 1),
        ("Auto-assessed, intrinsic: judgments", 1),
    ]
    assert [c.key for c in table.columns] == ["measure", *reversed(measures)]


def test_a_z_score_takes_its_measures_type_and_overrides():
    types = MeasureTypes(with_overrides({"rating:adequacy": {"group": "other"}}))
    z = types.of("rating:adequacy_z")
    assert z.group == "other"
    assert z.technique.endswith("on a slider (z-scores per participant)")


def test_a_study_whose_kind_declares_no_measure_is_a_row_of_its_own():
    config = yaml.safe_load(
        (ROOT / "config" / "dialogue-demo.yaml").read_text(encoding="utf-8")
    )
    study = config["studies"][0]
    rows = [[c.text for c in r.cells] for r in criteria_table(context(config)).rows]
    assert rows == [
        [
            "Precision",
            "automatic scores",
            "Intrinsic/automatic",
            "precision of the decisions against the corpus's",
            "decisions",
        ],
        [
            "Recall",
            "automatic scores",
            "Intrinsic/automatic",
            "recall of the decisions against the corpus's",
            "decisions",
        ],
        [
            "F-measure",
            "automatic scores",
            "Intrinsic/automatic",
            "F-measure of the decisions against the corpus's",
            "decisions",
        ],
        [
            study.get("title") or study["id"],
            study["id"],
            "Extrinsic/human",
            "task performance in an identification experiment",
            "task performance",
        ],
    ]
    assert study["id"] in MeasureTypes(config).names()

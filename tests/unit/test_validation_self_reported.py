"""Self-reported scores in system.yaml (seed 001 Table 4): checked, kept, named."""

from __future__ import annotations

import json

import pytest

from stecflow.data.corpus import read_items
from stecflow.scoring.reported import REPORTED_RANGES, reported_metrics
from stecflow.submissions.self_reported import check_self_reported
from stecflow.submissions.validation import validate_submission

TASKS = ["end_to_end", "attribute_selection"]
#: The campaign's metrics as check_submission passes them (config order).
METRICS = reported_metrics(
    {"metrics": [{"id": "string_accuracy"}, {"id": "se"}, {"id": "bleu3"}]}
)


def validate(campaign, yaml_text: str, metrics=METRICS):
    folder = campaign / "submissions" / "alpha" / "sys1"
    path = folder / "system.yaml"
    path.write_text(path.read_text() + yaml_text)
    return validate_submission(
        folder,
        read_items(campaign / "testset.xml"),
        team="alpha",
        system="sys1",
        campaign_tasks=TASKS,
        metrics=metrics,
    )


def test_the_campaign_metrics_come_with_their_ranges_on_the_report_scale():
    assert METRICS == {
        "string_accuracy": (0.0, 100.0),
        "se": (0.0, None),
        "bleu3": (0.0, 1.0),
    }
    from stecflow.report.inputs import PERCENT_METRICS, SCALE

    # the ranges are on the scale the report shows: % metrics up to 100,
    # BLEU-3 (stored 0-100 by sacreBLEU, scaled by 0.01) up to 1
    for name in PERCENT_METRICS:
        assert REPORTED_RANGES[name] == (0.0, 100.0)
    assert SCALE == {"bleu3": 0.01} and REPORTED_RANGES["bleu3"] == (0.0, 1.0)
    from stecflow.metrics.base import available_metrics

    assert set(REPORTED_RANGES) == set(available_metrics())


def test_good_entries_are_kept_in_the_record(tiny_campaign):
    # seed 001 Table 4's row for IS-FP-GT (all development data)
    record = validate(
        tiny_campaign,
        "self_reported:\n"
        "  - {metric: string_accuracy, value: 9.71, data: development,"
        " references: 1}\n"
        "  - {metric: se, value: 4.313, data: development, references: 1,"
        " note: teval}\n"
        "  - {metric: bleu3, value: 0.297, data: development}\n",
    )
    assert record["status"] == "accepted"
    assert record["warnings"] == []
    assert record["self_reported"] == [
        {
            "metric": "string_accuracy",
            "value": 9.71,
            "data": "development",
            "references": 1,
        },
        {
            "metric": "se",
            "value": 4.313,
            "data": "development",
            "references": 1,
            "note": "teval",
        },
        {"metric": "bleu3", "value": 0.297, "data": "development"},
    ]
    assert record["metadata"]["self_reported"] == record["self_reported"]
    json.dumps(record, allow_nan=False)  # the record stays plain JSON


def test_a_submission_without_the_block_has_an_empty_list(tiny_campaign):
    record = validate(tiny_campaign, "")
    assert record["status"] == "accepted" and record["self_reported"] == []


def test_bad_entries_are_errors_naming_the_entry_its_field_and_line(tiny_campaign):
    # system.yaml has 11 lines; "self_reported:" is line 12
    record = validate(
        tiny_campaign,
        "self_reported:\n"
        "  - metric: string_accuracy\n"  # 13
        "    value: 140\n"
        "    data: development\n"
        "  - metric: se\n"  # 16
        "    value: '4.3'\n"
        "    data: development\n"
        "    refs: 1\n"
        "  - value: .nan\n"  # 20
        "    data: ''\n"
        "    references: 0\n"
        "  - 5\n"  # 23
        "  - {metric: bleu3, value: 0.3, data: development}\n"  # 24
        "  - {metric: bleu3, value: 0.31, data: development}\n"  # 25
        "  - {metric: bleu3, value: -0.1, data: dev, references: 2}\n",  # 26
    )
    assert record["status"] == "rejected"
    found = [(e["code"], e["line"], e["field"], e["message"]) for e in record["errors"]]
    assert found == [
        (
            "bad_self_reported",
            14,
            "self_reported[0].value",
            "string_accuracy on the report's scale is from 0 to 100, got the number"
            " 140",
        ),
        (
            "bad_self_reported",
            19,
            "self_reported[1].refs",
            "unknown field 'refs' (an entry has: metric, value, data, references,"
            " note)",
        ),
        (
            "bad_self_reported",
            17,
            "self_reported[1].value",
            "expected a number, got the text '4.3'",
        ),
        (
            "bad_self_reported",
            20,
            "self_reported[2].metric",
            "required field is missing (the campaign's metric ID, e.g. se)",
        ),
        (
            "bad_self_reported",
            20,
            "self_reported[2].value",
            "expected a finite number, got nan",
        ),
        (
            "bad_self_reported",
            21,
            "self_reported[2].data",
            "expected the data it was computed on, e.g. development, got the text ''",
        ),
        (
            "bad_self_reported",
            22,
            "self_reported[2].references",
            "expected a whole number of references per item, 1 or more, got the"
            " number 0",
        ),
        (
            "bad_self_reported",
            23,
            "self_reported[3]",
            "expected a mapping with metric, value and data (optionally references"
            " and note), got the number 5",
        ),
        (
            "bad_self_reported",
            25,
            "self_reported[5]",
            "entry 4 already gives bleu3 on 'development'; give each score once",
        ),
        (
            "bad_self_reported",
            26,
            "self_reported[6].value",
            "bleu3 on the report's scale is from 0 to 1, got the number -0.1",
        ),
    ]
    # every problem names the file; only the good entry is kept
    assert {e["file"] for e in record["errors"]} == {"alpha/sys1/system.yaml"}
    assert record["self_reported"] == [
        {"metric": "bleu3", "value": 0.3, "data": "development"}
    ]
    json.dumps(record, allow_nan=False)


def test_a_metric_the_campaign_does_not_compute_is_a_warning(tiny_campaign):
    record = validate(
        tiny_campaign,
        "self_reported:\n  - {metric: meteor, value: 0.3, data: development}\n",
    )
    assert record["status"] == "accepted"
    assert [
        (w["code"], w["line"], w["field"], w["message"]) for w in record["warnings"]
    ] == [
        (
            "unknown_self_reported_metric",
            13,
            "self_reported[0].metric",
            "the campaign does not compute 'meteor' (it computes: string_accuracy,"
            " se, bleu3); the score is shown without a test score beside it",
        )
    ]
    assert record["self_reported"] == [
        {"metric": "meteor", "value": 0.3, "data": "development"}
    ]


def test_without_the_campaign_metrics_only_the_form_is_checked(tiny_campaign):
    record = validate(
        tiny_campaign,
        "self_reported:\n  - {metric: anything, value: 1000, data: development}\n",
        metrics=None,
    )
    assert record["status"] == "accepted" and record["warnings"] == []
    assert record["self_reported"][0]["value"] == 1000


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ("self_reported: {se: 4.3}\n", "expected a list, got a mapping of 1 keys"),
        ("self_reported:\n", "expected a list, got nothing (null)"),
    ],
)
def test_a_block_that_is_not_a_list_is_a_metadata_error(tiny_campaign, block, message):
    record = validate(tiny_campaign, block)
    assert record["status"] == "rejected"
    assert [
        (e["code"], e["line"], e["field"], e["message"]) for e in record["errors"]
    ] == [("bad_metadata", 12, "self_reported", message)]
    assert record["self_reported"] == []


def test_a_metric_without_a_known_range_is_checked_for_its_form_only():
    ok, problems = check_self_reported(
        [{"metric": "plugin", "value": -5e9, "data": "dev"}],
        {"plugin": (None, None)},
        "t/s/system.yaml",
    )
    assert problems == [] and ok == [{"metric": "plugin", "value": -5e9, "data": "dev"}]


def test_numbers_no_float_holds_are_refused():
    ok, problems = check_self_reported(
        [{"metric": "se", "value": 10**400, "data": "dev"}],
        {"se": (0.0, None)},
        "t/s/system.yaml",
    )
    assert ok == []
    assert [(p.field, p.message) for p in problems] == [
        (
            "self_reported[0].value",
            "expected a finite number, got a whole number beyond every float",
        )
    ]

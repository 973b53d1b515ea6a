"""The measure each kind of table is ranked by, as the organiser names it
(``report.rank_by``): seed 001 ranks its scores by SE (Table 5), its ratings by
Adequacy (Table 6) and identification by accuracy (Table 8); seeds 002 and 003
rank by Dice."""

from __future__ import annotations

import pytest

from stecflow.campaign.config import check_config
from stecflow.core.errors import ConfigError
from stecflow.report.context import Context, ranking_metric
from stecflow.report.human import HUMAN_MEASURES, _measures_table, _ranked_by
from stecflow.report.inputs import JudgmentStudy, metric_infos

METRICS = [{"id": "dice"}, {"id": "masi"}, {"id": "se"}]


def context(rank_by=None, studies=()) -> Context:
    config = {
        "scoring": {"metrics": METRICS},
        "report": {"rank_by": rank_by or {}},
        "studies": list(studies),
    }
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


def test_the_scores_are_ranked_by_se_unless_the_organiser_names_a_metric():
    assert ranking_metric(context()) == "se"  # seed 001 Table 5
    assert ranking_metric(context({"scores": "dice"})) == "dice"  # seeds 002, 003


RATING = {"id": "r1", "task": "rating"}
#: Two systems: A is better on Adequacy, B on Fluency.
ROWS = [
    {"system": "A", "subdomain": "all", "adequacy_mean": "80", "fluency_mean": "40"},
    {"system": "B", "subdomain": "all", "adequacy_mean": "60", "fluency_mean": "70"},
]


def ranked(rank_by=None) -> tuple[list[str], str]:
    ctx = context(rank_by, [RATING])
    study = JudgmentStudy("r1", ROWS, {"task": "rating"})
    measures = [m for m in HUMAN_MEASURES if m.key in ("adequacy", "fluency")]
    table = _measures_table(ctx, study, measures)
    assert [m.key for m in measures] == ["adequacy", "fluency"]  # columns unchanged
    return [row.cells[1].text for row in table.rows], table.caption


def test_a_studys_table_is_ranked_by_its_kinds_measure_the_organiser_names():
    systems, caption = ranked()
    assert systems == ["A", "B"] and "order of overall Adequacy" in caption
    systems, caption = ranked({"rating": "fluency"})
    assert systems == ["B", "A"] and "order of overall Fluency" in caption
    # another kind's choice does not apply
    assert ranked({"identification": "identification_time"})[0] == ["A", "B"]


def test_the_ranking_measure_is_found_by_the_kinds_name_for_it():
    ctx = context({"identification": "identification_time"})
    study = JudgmentStudy("i1", [], {"task": "identification"})
    measures = [
        m for m in HUMAN_MEASURES if m.key in ("accuracy", "identification_time")
    ]
    assert _ranked_by(ctx, study, measures).key == "identification_time"
    ctx = context({"identification": "identification_accuracy"})
    assert _ranked_by(ctx, study, measures).key == "accuracy"


@pytest.mark.parametrize(
    ("rank_by", "field", "message"),
    [
        ({"scores": "bleu"}, "scores", "'bleu' is not a metric of scoring.metrics"),
        ({"ratings": "adequacy"}, "ratings", "'ratings' is not a kind of table"),
        ({"rating": "accuracy"}, "rating", "a rating study has no measure 'accuracy'"),
    ],
)
def test_a_ranking_the_campaign_cannot_make_is_refused(rank_by, field, message):
    config = {
        "campaign": {"id": "c", "tasks": ["end_to_end"]},
        "data": {"format": "tuna"},
        "submissions": {"root": "submissions"},
        "scoring": {"metrics": METRICS},
        "report": {"rank_by": rank_by},
    }
    with pytest.raises(ConfigError, match=message) as caught:
        check_config(config)
    assert caught.value.field == f"report.rank_by.{field}"


def test_a_text_rating_is_ranked_by_the_criterion_the_organiser_names():
    from stecflow.report.text_studies import _rating_table

    rows = [
        {"system": "A", "criterion": "fluency", "mean": "80", "scale": "slider"},
        {"system": "A", "criterion": "faithful", "mean": "50", "scale": "slider"},
        {"system": "B", "criterion": "fluency", "mean": "60", "scale": "slider"},
        {"system": "B", "criterion": "faithful", "mean": "90", "scale": "slider"},
    ]
    study = JudgmentStudy("t1", rows, {"task": "text_rating"})
    for rank_by, systems, first in (
        (None, ["A", "B"], "fluency"),
        ({"text_rating": "faithful"}, ["B", "A"], "faithful"),
    ):
        table = _rating_table(context(rank_by), study)
        assert [row.cells[1].text for row in table.rows] == systems
        assert f"descending order of {first})" in table.caption

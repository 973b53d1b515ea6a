"""The ``rating`` kind: Adequacy and Fluency sliders beside the item's pictures
(TUNA-REG'09's intrinsic human evaluation, seed 001 Table 6).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`.
"""

from types import MappingProxyType

from stecflow.metrics.measure_types import MeasureType
from stecflow.studykinds.base import Measure, ResponseField, StudyKind

#: Seed 001 Table 3: "Judgment of adequacy (fluency) as rated by native speakers".
_RATED = "intrinsic", "human"

KIND = StudyKind(
    name="rating",
    summary=(
        "Participants see an item's pictures, the target highlighted, with one"
        " system's description and rate its Adequacy and Fluency on sliders."
    ),
    family="grid",
    data_formats=frozenset({"tuna", "b5-ref"}),
    needs="REG items (data.format: tuna or b5-ref)",
    control="degraded",
    control_expected="a degraded text rated {cut}",
    normalisable=True,
    reads="outputs.xml",
    min_window=(860, 650),
    page=("_grid.js", "rating.js"),
    measures=(
        Measure(
            "adequacy",
            measure_type=MeasureType(
                *_RATED, "adequacy rated by participants on a slider", "judgment"
            ),
        ),
        Measure(
            "fluency",
            measure_type=MeasureType(
                *_RATED, "fluency rated by participants on a slider", "judgment"
            ),
        ),
    ),
    responses=(
        ResponseField("adequacy", low=1, high=100),
        ResponseField("fluency", low=1, high=100),
    ),
    per_trial_ms=3500.0,
    hooks=MappingProxyType(
        {
            "analyses": "stecflow.analysis.kind_defaults:rating_analyses",
            "stimuli": "stecflow.studies.setup:build_reg_stimuli",
            "simulate": "stecflow.judgments.simulate:simulate_job",
            "merge": "stecflow.judgments.study:merge_job",
            "rated": "stecflow.studies.criteria:slider_criteria",
            "report": "stecflow.report.human:rating_blocks",
            "datasheet": "stecflow.release.heds_kinds:RATING_SHEET",
        }
    ),
)

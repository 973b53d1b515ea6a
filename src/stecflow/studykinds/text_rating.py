"""The ``text_rating`` kind: an item's input and one system's text, every
criterion asked on a Likert scale or a 0-100 slider (direct assessment).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`.
"""

from types import MappingProxyType

from stecflow.metrics.measure_types import MeasureType
from stecflow.studykinds.base import StudyKind

KIND = StudyKind(
    name="text_rating",
    summary=(
        "Participants read an item's input and one system's text and answer"
        " each criterion's question on a Likert scale or a 0-100 slider."
    ),
    family="text",
    # a REG test set too: its items' domains shown as a grid in words (the
    # task type's text_input), the systems' WORD-STRINGs as the texts
    data_formats=frozenset({"text", "tuna", "b5-ref"}),
    needs="a text test set (data.format: text) or REG items (tuna, b5-ref)",
    config_keys=frozenset({"criteria"}),
    control="degraded",
    control_expected="a degraded text rated {cut}",
    measure_type=MeasureType(
        "intrinsic",
        "human",
        "{measure} rated by participants on a Likert scale or a slider",
        "judgment",
    ),
    normalisable=True,
    reads="outputs",
    min_window=(520, 620),
    page=("_text.js", "text_rating.js"),
    hooks=MappingProxyType(
        {
            "measures": "stecflow.analysis.kind_defaults:study_criteria",
            "stimuli": "stecflow.studies.setup:build_text_stimuli",
            "responses": "stecflow.studies.answers:rating_fields",
            "simulate": "stecflow.judgments.text_study:simulate_job",
            "merge": "stecflow.judgments.text_study:merge_job",
            "rated": "stecflow.studies.criteria:configured_ratings",
            "report": "stecflow.report.text_studies:rating_blocks",
            "datasheet": "stecflow.release.heds_kinds:TEXT_RATING_SHEET",
        }
    ),
)

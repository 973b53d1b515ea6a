"""The ``text_preference`` kind: an item's input and two systems' texts side by
side, left and right counterbalanced by a balanced pair design; the participant
chooses one (or, with ``allow_tie``, neither).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`.
"""

from types import MappingProxyType

from stecflow.metrics.measure_types import MeasureType
from stecflow.studykinds.base import StudyKind

KIND = StudyKind(
    name="text_preference",
    summary=(
        "Participants read an item's input and two systems' texts side by side"
        " and choose the one that answers the study's one question better."
    ),
    family="text",
    # a REG test set too: its items' domains shown as a grid in words (the
    # task type's text_input), the systems' WORD-STRINGs as the texts
    data_formats=frozenset({"text", "tuna", "b5-ref"}),
    needs="a text test set (data.format: text) or REG items (tuna, b5-ref)",
    designs=("pairs",),
    config_keys=frozenset({"criteria"}),
    control="degraded",  # a text against a degraded copy of it
    measure_type=MeasureType(
        "intrinsic",
        "human",
        "participants' choice of the better of two systems' texts",
        "judgment",
    ),
    control_expected="the intact text chosen over its degraded copy",
    reads="outputs",
    sides=("system_left", "system_right"),
    unit=("item", ("system_left", "system_right")),
    min_window=(520, 590),
    page=("_text.js", "text_preference.js"),
    tests=MappingProxyType({"preference": "preference"}),
    hooks=MappingProxyType(
        {
            "analyses": "stecflow.analysis.kind_defaults:own_test_analyses",
            "stimuli": "stecflow.studies.setup:build_text_stimuli",
            "responses": "stecflow.studies.answers:preference_fields",
            "keyed": "stecflow.studies.answers:preference_keyed",
            "simulate": "stecflow.judgments.text_study:simulate_job",
            "merge": "stecflow.judgments.text_study:merge_job",
            "agreement": "stecflow.judgments.agreement:preference_answers",
            "rated": "stecflow.studies.criteria:configured_preference",
            "report": "stecflow.report.text_studies:preference_blocks",
            "datasheet": "stecflow.release.heds_kinds:TEXT_PREFERENCE_SHEET",
        }
    ),
)

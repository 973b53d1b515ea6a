"""The ``situated_identification`` kind: seed 000's study of a situated-dialogue
campaign. Participants replay a dialogue's context on the board, read the
utterance and click the piece it means; one system's false positives are shown
against the corpus expressions in the seed's two-group design.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`.
"""

from types import MappingProxyType

from stecflow.studykinds.base import StudyKind

KIND = StudyKind(
    name="situated_identification",
    summary=(
        "Participants replay a dialogue's context on the puzzle board, read the"
        " utterance and click the piece they think it means."
    ),
    family="situated",
    data_formats=frozenset({"dialogue"}),
    needs="a dialogue corpus (data.format: dialogue)",
    designs=(),  # the seed's two groups, built by the kind's own design
    n_systems=(1, 1),
    config_keys=frozenset({"situated"}),
    exclusion_rules=frozenset({"median_time_below_ms", "incomplete", "answer"}),
    reads="decisions",
    unit=("instance", "shown"),
    min_window=(660, 550),
    page=("situated_identification.js",),
    tests=MappingProxyType({"situated_ttests": "ttests"}),
    identifies=True,
    hooks=MappingProxyType(
        {
            "analyses": "stecflow.analysis.kind_defaults:own_test_analyses",
            "check": "stecflow.studies.situated_setup:check_spec",
            "design": "stecflow.studies.situated_setup:design_hook",
            "stimuli": "stecflow.studies.situated_setup:stimuli_hook",
            "simulate": "stecflow.judgments.situated_study:simulate_job",
            "merge": "stecflow.judgments.situated_study:merge_job",
            "agreement": "stecflow.judgments.agreement:situated_answers",
            "rated": "stecflow.studies.criteria:piece_choice",
            "datasheet": "stecflow.release.heds_kinds:SITUATED_SHEET",
        }
    ),
)

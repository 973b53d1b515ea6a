"""The ``situated_identification`` kind: seed 000's study of a situated-dialogue
campaign. Participants replay a dialogue's context on the board, read the
utterance and click the piece it means; one system's false positives are shown
against the corpus expressions in the seed's two-group design.

Its code is in this package, one module per role, each held to the layer of
the stage its role names (``tests/unit/test_layers.py``): ``setup`` (its
config checks and the design and stimuli jobs), ``design`` (the two groups from
an instance table), ``stimuli`` (the replay study's document),
``import_server`` (its responses as the server exports them), ``merge`` and
its steps ``merge_design``, ``merge_join``, ``merge_exclusions``,
``merge_tables``, ``measures`` (seed Tables 7-9), ``simulate`` and
``simulate_job`` (simulated evaluators), ``analyses`` (its own tests,
``situated_ttests`` and, in ``analyses_length``, ``situated_length``) and
``report`` (its section; ``report_errors``: the errors by expression form;
``report_length``: the expression lengths). The clips (seed 000 §5.1):
``design_clips`` (the clip list and durations), ``stimuli_clips`` (clip audio
cut from session recordings with ffmpeg), ``report_clips`` (their durations).

This module itself is the declaration alone. May import: :mod:`stecflow.core`,
:mod:`stecflow.data`, :mod:`stecflow.tasks`.
"""

from types import MappingProxyType

from stecflow.studykinds.base import StudyKind

_OWN = "stecflow.studykinds.situated_identification"

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
    tests=MappingProxyType({"situated_ttests": "ttests", "situated_length": "length"}),
    identifies=True,
    section=("situated", "Situated identification study"),
    hooks=MappingProxyType(
        {
            "analyses": "stecflow.analysis.kind_defaults:own_test_analyses",
            "check": f"{_OWN}.setup:check_spec",
            "design": f"{_OWN}.setup:design_hook",
            "stimuli": f"{_OWN}.setup:stimuli_hook",
            "simulate": f"{_OWN}.merge:simulate_job",
            "merge": f"{_OWN}.merge:merge_job",
            "agreement": "stecflow.judgments.agreement:situated_answers",
            "rated": "stecflow.studies.criteria:piece_choice",
            "section": f"{_OWN}.report:situated_section",
            "tests": f"{_OWN}.analyses:TESTS",
            "datasheet": "stecflow.release.heds_kinds:SITUATED_SHEET",
        }
    ),
)

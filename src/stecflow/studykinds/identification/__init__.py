"""The ``identification`` kind: participants click the picture a description
means (TUNA-REG'09's extrinsic human evaluation, seed 001 Table 8), with the
description and pictures together, read first, or spoken. Its package holds
the readers of a lab's DMDX output (:mod:`.import_dmdx`, :mod:`.import_dmdx_zil`).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`.
"""

from types import MappingProxyType

from stecflow.metrics.measure_types import MeasureType
from stecflow.studykinds.base import Measure, StudyKind


def _task(technique: str) -> MeasureType:
    """Seed 001 Table 3: extrinsic, human: "Speed and accuracy in
    identification experiment" (seed 002 Table 2: task performance)."""
    return MeasureType(
        "extrinsic",
        "human",
        f"{technique} in an identification experiment",
        "task_performance",
    )


KIND = StudyKind(
    name="identification",
    summary=(
        "Participants read (or hear) one system's description and click the"
        " picture they think it means; accuracy and times are recorded."
    ),
    family="grid",
    data_formats=frozenset({"tuna", "b5-ref"}),
    needs="REG items (data.format: tuna or b5-ref)",
    variants=("together", "read_first", "spoken"),
    # spoken: the organisers' recordings instead of espeak-ng (setup.check_spec)
    config_keys=frozenset({"speech"}),
    control="gold",
    control_expected="a gold description's target identified",
    reads="outputs.xml",
    min_window=(660, 440),
    page=("_grid.js", "identification.js"),
    measures=(
        Measure(
            "identification_accuracy",
            level="nominal",
            column="correct",
            measure_type=_task("accuracy of identifying the referent"),
        ),
        Measure(
            "identification_time",
            higher_is_better=False,
            column="identification_time_adj_ms",
            flag="in_time_analysis",
            measure_type=_task("speed of identifying the referent"),
        ),
        Measure(
            "reading_time",
            higher_is_better=False,
            column="reading_time_adj_ms",
            flag="in_time_analysis",
            measure_type=_task("time taken to read the description"),
        ),
    ),
    identifies=True,
    hooks=MappingProxyType(
        {
            "check": "stecflow.studykinds.identification.setup:check_spec",
            "analyses": "stecflow.analysis.kind_defaults:identification_analyses",
            "stimuli": "stecflow.studies.setup:build_reg_stimuli",
            "simulate": "stecflow.judgments.simulate:simulate_job",
            "merge": "stecflow.judgments.study:merge_job",
            "rated": "stecflow.studies.criteria:entity_choice",
            "report": "stecflow.report.human:identification_blocks",
            "datasheet": "stecflow.release.heds_kinds:IDENTIFICATION_SHEET",
        }
    ),
    # a lab's DMDX runs: the zillion-responses file first (an .azk header
    # can open it too)
    response_formats=MappingProxyType(
        {
            "dmdx_zil": "stecflow.studykinds.identification.import_dmdx_zil:FORMAT",
            "dmdx_azk": "stecflow.studykinds.identification.import_dmdx:FORMAT",
        }
    ),
)

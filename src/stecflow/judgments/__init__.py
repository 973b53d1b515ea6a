"""Human judgments: import, merge with the design, correct, clean and summarise.

The package is imported lazily: ``import stecflow.judgments`` loads nothing but
this file; each name below is imported from its module on first use.

Modules
-------
:mod:`~stecflow.judgments.importers`
    Server exports, offline files, generic CSVs and the formats a study kind
    brings (DMDX) into one tidy table (:data:`IMPORT_COLUMNS`); a package with
    one module per format (``server``, ``generic``, ``text``) and ``detect``
    for telling them apart.
:mod:`~stecflow.judgments.design`
    Read and normalise the study design; look its trials up.
:mod:`~stecflow.judgments.merge`
    Map trials to the design and check them (data-quality table).
:mod:`~stecflow.judgments.flags`
    The ``choice`` of a trial and which trials enter the analyses.
:mod:`~stecflow.judgments.corrections`
    The organiser's corrections, applied with an audit trail.
:mod:`~stecflow.judgments.outliers`
    Time-outs and the mean ± k·SD outlier rule (REFERENCE.md §14).
:mod:`~stecflow.judgments.measures`
    Accuracy, times, IR/MIR/agreement (REFERENCE.md §13), rating means.
:mod:`~stecflow.judgments.simulate`
    Simulated participants for the demo campaign: the trials of a design or a
    built study, answered and written as the server's export.
:mod:`~stecflow.judgments.participant`
    The model of a simulated participant (:class:`SimulationSettings`).
:mod:`~stecflow.judgments.lexicon`
    What a description says: the attributes read from its words.
:mod:`~stecflow.judgments.study`
    :func:`merge_study`, the grid kinds' merge.
:mod:`~stecflow.judgments.pipeline`
    The steps every kind's merge shares: response files read, evaluators
    named, correction files listed, the quality table sorted and written.
:mod:`~stecflow.judgments.text_study`
    A text study's merge (:func:`merge_text_study`) and its kinds' hooks; its
    steps in ``text_join``, ``text_corrections``, ``text_exclusions``,
    ``text_measures`` and ``text_simulation``.

A kind with a merge of its own keeps it in its package: seed 000's situated
study in :mod:`stecflow.studykinds.situated_identification` (``merge`` and its
steps, ``measures``, ``simulate``).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.metrics`,
:mod:`stecflow.stats`, :mod:`stecflow.tasks`, :mod:`stecflow.studies` (the
response columns the web experiment writes).
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "CHECKS",
    "IMPORT_COLUMNS",
    "JUDGMENT_COLUMNS",
    "MEASURE_COLUMNS",
    "QUALITY_COLUMNS",
    "SIMULATED_COLUMNS",
    "Correction",
    "ImportResult",
    "JudgmentSettings",
    "JudgmentsError",
    "OutlierSettings",
    "SimulationSettings",
    "apply_corrections",
    "detect_format",
    "identification_rates",
    "identification_summary",
    "item_identification",
    "merge_study",
    "merge_with_design",
    "rating_summary",
    "read_corrections",
    "read_design",
    "read_generic_table",
    "read_response_table",
    "read_responses",
    "replace_outliers",
    "simulate_responses",
    "simulate_study",
    "study_measures",
    "treat_outliers",
    "write_simulated_responses",
]

_HOME = {
    "CHECKS": "_common",
    "IMPORT_COLUMNS": "_common",
    "JUDGMENT_COLUMNS": "_common",
    "QUALITY_COLUMNS": "_common",
    "JudgmentsError": "_common",
    "MEASURE_COLUMNS": "measures",
    "identification_rates": "measures",
    "identification_summary": "measures",
    "item_identification": "measures",
    "rating_summary": "measures",
    "study_measures": "measures",
    "ImportResult": "importers",
    "detect_format": "importers",
    "read_generic_table": "importers",
    "read_response_table": "importers",
    "read_responses": "importers",
    "merge_with_design": "merge",
    "read_design": "design",
    "Correction": "corrections",
    "apply_corrections": "corrections",
    "read_corrections": "corrections",
    "OutlierSettings": "outliers",
    "replace_outliers": "outliers",
    "treat_outliers": "outliers",
    "SIMULATED_COLUMNS": "simulate",
    "SimulationSettings": "participant",
    "simulate_responses": "simulate",
    "simulate_study": "simulate",
    "write_simulated_responses": "simulate",
    "JudgmentSettings": "study",
    "merge_study": "study",
}


def __getattr__(name: str) -> Any:
    if name in _HOME:
        module = importlib.import_module(f"{__name__}.{_HOME[name]}")
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)

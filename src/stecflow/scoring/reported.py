"""The ranges a team's self-reported scores are checked against (seed 001 Table 4).

A ``system.yaml`` may give scores the team computed itself (``self_reported``,
:mod:`stecflow.submissions.self_reported`), on the scale the report shows them:
accuracies and other proportions of items in %, BLEU-3 from 0 to 1 (the seed's
Table 4 prints them so), sacreBLEU's BLEU and chrF++ from 0 to 100. Validation
learns the campaign's metrics and their ranges from :func:`reported_metrics`, so
that a value no scorer could give (an accuracy of 140 %, a negative SE) is named
with its entry; a metric without a known range (a plug-in's) is checked for its
form only.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.metrics`,
:mod:`stecflow.tasks`, :mod:`stecflow.submissions`, :mod:`stecflow.scoring`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["REPORTED_RANGES", "reported_metrics"]

_PERCENT = (0.0, 100.0)
_UNIT = (0.0, 1.0)
_DISTANCE = (0.0, None)

#: Registry name -> (lowest, highest) on the report's scale (None: no bound).
#: Percentages are the metrics the report shows in % (``PERCENT_METRICS`` of
#: :mod:`stecflow.report.inputs`); BLEU-3 is stored 0-100 by sacreBLEU and shown
#: 0-1; SEB is 1 minus a normalised distance, so it has no lowest value.
REPORTED_RANGES: dict[str, tuple[float | None, float | None]] = {
    "string_accuracy": _PERCENT,
    "set_accuracy": _PERCENT,
    "uniqueness": _PERCENT,
    "minimality": _PERCENT,
    "dice": _UNIT,
    "masi": _UNIT,
    "denotation_similarity": _UNIT,
    "bleu3": _UNIT,
    "rouge2": _UNIT,
    "rouge_l": _UNIT,
    "rouge_su4": _UNIT,
    "decision_precision": _UNIT,
    "decision_recall": _UNIT,
    "decision_f": _UNIT,
    "seb": (None, 1.0),
    "bleu": _PERCENT,
    "chrf": _PERCENT,
    "se": _DISTANCE,
    "se_norm": _DISTANCE,
    "set_edit": _DISTANCE,
    "nist5": _DISTANCE,
    "ter": _DISTANCE,
    "underspecification": _DISTANCE,
    "overspecification": _DISTANCE,
}


def reported_metrics(
    scoring: Mapping[str, Any] | None, tasks: Sequence[str] | None = None
) -> dict[str, tuple[float | None, float | None]]:
    """The campaign's metric IDs in report order, each with its range.

    >>> reported_metrics({"metrics": [{"id": "se"}, {"id": "acc",
    ...                   "metric": "string_accuracy"}]})
    {'se': (0.0, None), 'acc': (0.0, 100.0)}
    """
    from stecflow.scoring.specs import metric_specs

    return {
        spec.id: REPORTED_RANGES.get(spec.name, (None, None))
        for spec in metric_specs(scoring, tasks)
    }

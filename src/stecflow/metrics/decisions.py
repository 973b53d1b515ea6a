"""Precision, recall and F of a binary decision as registered metrics (seed 000 §4).

Seed 000's intrinsic evaluation scores, per instance, a system's decision "use a
demonstrative pronoun (DP)" against whether the corpus's speaker used one, and
reports precision, recall and F-measure of the DP class (its Table 4). These
metrics let the scoring stage compute them like any other metric; their
``input_type`` is ``"decision"``: a hypothesis is a bool (the system decided for
the positive class) and an item's references are bools (the corpus did; several
references must agree). The numbers are those of
:class:`stecflow.metrics.classification.ConfusionMatrix`:

* ``decision_precision`` = TP / (TP + FP). Item level: an instance the system
  decided positive scores 1 if the corpus agrees (TP), 0 if not (FP); the other
  instances are undefined (NaN) and skipped, so the mean of the item scores *is*
  precision and ``n`` is its denominator.
* ``decision_recall`` = TP / (TP + FN). Item level the same way: 1 for a TP, 0
  for an FN, NaN for an instance the corpus decided negative.
* ``decision_f`` = 2PR / (P + R) = 2TP / (2TP + FP + FN). Corpus level: the
  per-instance cells (TP, FP, FN, TN) are summed before F is computed (F is not a
  mean of item scores).

May import: :mod:`stecflow.core.errors` only (nothing here does).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from stecflow.metrics.base import Metric, Stats, register_metric
from stecflow.metrics.classification import ConfusionMatrix
from stecflow.metrics.measure_types import MeasureType

__all__ = ["DecisionF", "DecisionPrecision", "DecisionRecall", "decision_cell"]


def _bool(value: Any, what: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise ValueError(f"{what} must be a decision (True/False or 0/1), got {value!r}")


def decision_cell(hyp: Any, refs: Sequence[Any]) -> str:
    """The instance's class: ``"TP"``, ``"FP"``, ``"FN"`` or ``"TN"``.

    Parameters
    ----------
    hyp : bool
        The system decided for the positive class.
    refs : sequence of bool
        The corpus's decision (one value, or several that agree).

    Raises
    ------
    ValueError
        No reference, references that disagree, or a value that is no decision.

    Examples
    --------
    >>> decision_cell(True, [True]), decision_cell(True, [False])
    ('TP', 'FP')
    >>> decision_cell(False, [1]), decision_cell(0, [0, 0])
    ('FN', 'TN')
    """
    predicted = _bool(hyp, "the hypothesis")
    if isinstance(refs, str | bool) or len(refs) == 0:
        raise ValueError("an instance needs the corpus's decision as its reference")
    gold = {_bool(r, "a reference") for r in refs}
    if len(gold) != 1:
        raise ValueError("the references of an instance disagree on the decision")
    actual = gold.pop()
    return {(True, True): "TP", (False, True): "FP", (True, False): "FN"}.get(
        (actual, predicted), "TN"
    )


class _Decision(Metric):
    input_type: ClassVar[Any] = "decision"
    version = "1"
    signature_fields = ()

    def signature_items(self) -> list[tuple[str, object]]:
        """The positive class is the decision True (seed 000: "use a DP")."""
        return [("pos", "true")]


class _ItemRate(_Decision):
    """A rate over the instances of one class: 1 for a hit, 0 for a miss."""

    hit: ClassVar[str] = "TP"
    miss: ClassVar[str] = ""

    def segment_stats(self, hyp: Any, refs: Sequence[Any], **context: Any) -> Stats:
        cell = decision_cell(hyp, refs)
        if cell == self.hit:
            return (1.0,)
        if cell == self.miss:
            return (0.0,)
        return (math.nan,)


@register_metric
class DecisionPrecision(_ItemRate):
    """Precision of the positive decision: TP / (TP + FP).

    Examples
    --------
    >>> p = DecisionPrecision()
    >>> p.corpus_score([True, True, True, False], [[True], [False], [True], [True]])
    0.6666666666666666
    >>> p.signature()
    'Precision|pos:true|version:1'
    """

    name = "decision_precision"
    display_name = "Precision"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "precision of the decisions against the corpus's",
        "decision",
    )
    miss = "FP"


@register_metric
class DecisionRecall(_ItemRate):
    """Recall of the positive decision: TP / (TP + FN).

    Examples
    --------
    >>> DecisionRecall().corpus_score([True, False, False], [[True], [True], [False]])
    0.5
    """

    name = "decision_recall"
    display_name = "Recall"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "recall of the decisions against the corpus's",
        "decision",
    )
    miss = "FN"


@register_metric
class DecisionF(_Decision):
    """Balanced F-measure of the positive decision, 2PR / (P + R), corpus level.

    A segment's statistics are its cell as counts ``(tp, fp, fn, tn)``; a
    (resampled) corpus sums them and takes
    :attr:`~stecflow.metrics.classification.ConfusionMatrix.f` (NaN when P or R
    is undefined).

    Examples
    --------
    >>> f = DecisionF()
    >>> round(f.corpus_score([True, True, True, False],
    ...                      [[True], [False], [True], [True]]), 6)
    0.666667
    """

    name = "decision_f"
    display_name = "F-measure"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "F-measure of the decisions against the corpus's",
        "decision",
    )
    level: ClassVar[Literal["item", "corpus"]] = "corpus"
    stat_names = ("tp", "fp", "fn", "tn")

    def segment_stats(self, hyp: Any, refs: Sequence[Any], **context: Any) -> Stats:
        cell = decision_cell(hyp, refs)
        return tuple(1.0 if cell == c else 0.0 for c in ("TP", "FP", "FN", "TN"))

    def _f(self, totals: Sequence[float]) -> float:
        return ConfusionMatrix(*(int(round(x)) for x in totals)).f

    def score_from_stats(self, stats: Stats) -> float:
        return self._f(stats)

    def aggregate(self, stats: Sequence[Stats]) -> float:
        self._check_nonempty(stats)
        return self._f([sum(column) for column in zip(*stats, strict=True)])

    def resample_scores(self, stats: Sequence[Stats], counts: Any) -> list[float]:
        import numpy as np

        totals = np.asarray(counts) @ np.asarray(stats, dtype=float)
        return [self._f(row) for row in totals]

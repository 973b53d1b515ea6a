"""Intrinsic evaluation of a binary decision, and its re-scoring after a human study.

Seed 000 (Spanger et al., REX-J Tangram study) evaluates a classifier that decides,
per referring-expression instance, whether to use a demonstrative pronoun (DP). The
positive class is "use a DP"; the gold label is whether the corpus's speaker used
one (seed §4.1: "the correctness is judged by comparing the classifier output with
the referring expression actually used in the corpus"). Seed §4.2 names the cells:

* TP: the corpus has a DP and the system predicts one;
* FP: the corpus has no DP but the system predicts one ("humans did not use DPs
  but the classifier suggested it");
* FN: the corpus has a DP but the system does not predict one;
* TN: neither.

The seed reports precision, recall and F-measure of the DP class (its Table 4)
without writing the formulas; they are the standard ones, and §5.4's recomputed
figures (P .664 → .718 with F .730 → .762 at unchanged recall) check that F is the
balanced harmonic mean::

    P = TP / (TP + FP)        R = TP / (TP + FN)        F = 2PR / (P + R)

Zero denominators: P is undefined (NaN) when nothing was predicted positive,
R is undefined (NaN) when the corpus has no positive, F is NaN when P or R is, and
F = 0 when both are defined and P + R = 0 (no TP). ``zero_division`` replaces the
NaN by a number for callers that need one (as scikit-learn's option does).

Re-scoring (seed §5.4, :func:`rescore_false_positives`): FP instances whose system
expression the majority of evaluators identified correctly are counted as correct,
i.e. they join the numerator of precision; the denominator (every positive
prediction) is unchanged, and so is recall, whose denominator is the corpus's DPs,
which the extrinsic study does not change. FPs that were not tested stay wrong, as
in the seed (it tested 36 FPs and credited only the 34 identified ones); other
treatments of untested FPs are options.

May import: :mod:`stecflow.core.errors` only (nothing here does; errors are
``ValueError``, as in the rest of :mod:`stecflow.metrics`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "INSTANCE_CLASSES",
    "UNTESTED_TREATMENTS",
    "ConfusionMatrix",
    "Rescored",
    "confusion_matrix",
    "f_measure",
    "instance_classes",
    "rescore_false_positives",
    "system_confusion_rows",
]

#: The four instance classes, in the order of :meth:`ConfusionMatrix.as_dict`.
INSTANCE_CLASSES = ("TP", "FP", "FN", "TN")

#: Values of ``untested`` in :func:`rescore_false_positives`.
UNTESTED_TREATMENTS = ("incorrect", "excluded", "extrapolated")


def _ratio(num: float, den: float, zero_division: float) -> float:
    return num / den if den else zero_division


def f_measure(
    precision: float, recall: float, zero_division: float = math.nan
) -> float:
    """Balanced F-measure, the harmonic mean 2PR / (P + R).

    NaN (or *zero_division*) when P or R is NaN; 0 when P + R = 0.

    Examples
    --------
    >>> round(f_measure(0.5, 1.0), 6)
    0.666667
    >>> f_measure(0.0, 0.0)
    0.0
    >>> f_measure(math.nan, 1.0)
    nan
    """
    if math.isnan(precision) or math.isnan(recall):
        return zero_division
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


@dataclass(frozen=True)
class ConfusionMatrix:
    """Counts of the four cells of a binary decision against the corpus.

    Attributes
    ----------
    tp, fp, fn, tn : int
        See the module docstring; all non-negative.

    Examples
    --------
    >>> m = ConfusionMatrix(tp=3, fp=1, fn=2, tn=4)
    >>> m.precision, m.recall, round(m.f, 4), m.n
    (0.75, 0.6, 0.6667, 10)
    >>> ConfusionMatrix(tp=0, fp=0, fn=2, tn=1).precision
    nan
    """

    tp: int
    fp: int
    fn: int
    tn: int

    def __post_init__(self) -> None:
        for name in INSTANCE_CLASSES:
            value = getattr(self, name.lower())
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(
                    f"{name.lower()} must be a non-negative integer, got {value!r}"
                )

    @property
    def n(self) -> int:
        """Number of instances."""
        return self.tp + self.fp + self.fn + self.tn

    @property
    def precision(self) -> float:
        """TP / (TP + FP); NaN when nothing was predicted positive."""
        return _ratio(self.tp, self.tp + self.fp, math.nan)

    @property
    def recall(self) -> float:
        """TP / (TP + FN); NaN when the corpus has no positive."""
        return _ratio(self.tp, self.tp + self.fn, math.nan)

    @property
    def f(self) -> float:
        """2PR / (P + R); NaN when P or R is undefined, 0 when TP = 0."""
        return f_measure(self.precision, self.recall)

    def scores(self, zero_division: float = math.nan) -> dict[str, float]:
        """Precision, recall and F, undefined values replaced by *zero_division*."""
        p = _ratio(self.tp, self.tp + self.fp, zero_division)
        r = _ratio(self.tp, self.tp + self.fn, zero_division)
        if math.isnan(self.precision) or math.isnan(self.recall):
            f = zero_division
        else:
            f = self.f
        return {"precision": p, "recall": r, "f": f}

    def as_dict(self, zero_division: float = math.nan) -> dict[str, Any]:
        """Counts and scores as a plain row.

        Examples
        --------
        >>> ConfusionMatrix(1, 1, 0, 2).as_dict()
        {'tp': 1, 'fp': 1, 'fn': 0, 'tn': 2, 'n': 4, 'precision': 0.5, 'recall': 1.0, 'f': 0.6666666666666666}
        """  # noqa: E501
        return {
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "tn": self.tn,
            "n": self.n,
            **self.scores(zero_division),
        }


def _booleans(values: Iterable[Any], name: str) -> list[bool]:
    out = []
    for i, value in enumerate(values):
        if value is None or isinstance(value, str) or value not in (0, 1):
            raise ValueError(f"{name}[{i}] must be a boolean (or 0/1), got {value!r}")
        out.append(bool(value))
    return out


def _pairs(gold: Sequence[Any], predicted: Sequence[Any]) -> list[tuple[bool, bool]]:
    g = _booleans(gold, "gold")
    p = _booleans(predicted, "predicted")
    if len(g) != len(p):
        raise ValueError(
            f"gold has {len(g)} instances but predicted has {len(p)}; they must"
            " be aligned instance by instance"
        )
    return list(zip(g, p, strict=True))


def instance_classes(gold: Sequence[Any], predicted: Sequence[Any]) -> list[str]:
    """Each instance's class: ``"TP"``, ``"FP"``, ``"FN"`` or ``"TN"``.

    Parameters
    ----------
    gold : sequence of bool
        Whether the corpus used the positive form (a DP) at each instance.
    predicted : sequence of bool
        Whether the system decided for it, aligned with *gold*.

    Raises
    ------
    ValueError
        Lengths differ, or a value is not a boolean (``None``, ``"yes"``, 2).

    Examples
    --------
    >>> instance_classes([True, False, True, False], [True, True, False, False])
    ['TP', 'FP', 'FN', 'TN']
    """
    names = {(True, True): "TP", (False, True): "FP", (True, False): "FN"}
    return [names.get(pair, "TN") for pair in _pairs(gold, predicted)]


def confusion_matrix(gold: Sequence[Any], predicted: Sequence[Any]) -> ConfusionMatrix:
    """Count the four classes of :func:`instance_classes`.

    Examples
    --------
    >>> confusion_matrix([1, 1, 1, 0, 0], [1, 1, 0, 1, 0])
    ConfusionMatrix(tp=2, fp=1, fn=1, tn=1)
    """
    classes = instance_classes(gold, predicted)
    return ConfusionMatrix(*(classes.count(c) for c in INSTANCE_CLASSES))


def system_confusion_rows(
    gold: Sequence[Any],
    systems: Mapping[str, Sequence[Any]],
    *,
    zero_division: float = math.nan,
) -> list[dict[str, Any]]:
    """One row per system (sorted by name): counts, precision, recall and F.

    Examples
    --------
    >>> rows = system_confusion_rows([1, 0, 1], {"b": [1, 1, 1], "a": [0, 0, 0]})
    >>> [(r["system"], r["tp"], r["fp"], r["precision"], r["recall"]) for r in rows]
    [('a', 0, 0, nan, 0.0), ('b', 2, 1, 0.6666666666666666, 1.0)]
    """
    return [
        {"system": name, **confusion_matrix(gold, systems[name]).as_dict(zero_division)}
        for name in sorted(systems)
    ]


@dataclass(frozen=True)
class Rescored:
    """A confusion matrix re-scored after the extrinsic study (seed §5.4).

    Attributes
    ----------
    original : ConfusionMatrix
        The corpus-matching result; its precision, recall and F are the first
        version to report.
    fp_tested : int
        FP instances shown to evaluators with the system's expression.
    fp_identified : int
        Of those, the instances whose referent the majority identified.
    untested : str
        How untested FPs were treated (:data:`UNTESTED_TREATMENTS`).
    credited : float
        FPs counted as correct (``fp_identified``, or more when extrapolated).
    precision, recall, f : float
        The second version: re-scored precision, unchanged recall, and F.
    """

    original: ConfusionMatrix
    fp_tested: int
    fp_identified: int
    untested: str
    credited: float
    precision: float
    recall: float
    f: float

    def rows(self) -> list[dict[str, Any]]:
        """Both versions as rows: ``corpus`` then ``after_extrinsic``.

        Examples
        --------
        >>> r = rescore_false_positives(ConfusionMatrix(6, 4, 2, 8), tested=4,
        ...                             identified=2)
        >>> [(x["version"], x["precision"], x["recall"]) for x in r.rows()]
        [('corpus', 0.6, 0.75), ('after_extrinsic', 0.8, 0.75)]
        """
        first = self.original
        common = {
            "tp": first.tp,
            "fp": first.fp,
            "fn": first.fn,
            "tn": first.tn,
            "fp_tested": self.fp_tested,
            "fp_identified": self.fp_identified,
            "untested": self.untested,
        }
        return [
            {
                "version": "corpus",
                **common,
                "credited": 0,
                "precision": first.precision,
                "recall": first.recall,
                "f": first.f,
            },
            {
                "version": "after_extrinsic",
                **common,
                "credited": self.credited,
                "precision": self.precision,
                "recall": self.recall,
                "f": self.f,
            },
        ]


def rescore_false_positives(
    matrix: ConfusionMatrix,
    *,
    tested: int,
    identified: int,
    untested: str = "incorrect",
) -> Rescored:
    """Count the FPs the evaluators identified as correct (seed §5.4).

    Seed 000 showed 36 of its classifier's FP instances with the system's DP
    ("sore", that) and found the majority of evaluators identified the referent
    in 34; "only considering these 34 instances 'correct' increases the precision
    from 0.664 to 0.718, and F-measure from 0.730 to 0.762". With *k* credited
    FPs::

        P' = (TP + k) / (TP + FP)      R' = R = TP / (TP + FN)
        F' = 2 P' R / (P' + R)

    Recall is unchanged: its denominator is the corpus's DPs, and an FP is an
    instance where the corpus has none (the seed's figures are reproduced only
    so; moving the credited FPs into TP on both sides would give a different F).

    Parameters
    ----------
    matrix : ConfusionMatrix
        The corpus-matching result.
    tested : int
        FP instances evaluated with the system's expression (0 ≤ tested ≤ FP).
    identified : int
        Of those, the number the majority identified correctly
        (0 ≤ identified ≤ tested); e.g. the ``majority_identified`` count of the
        FP-system class of
        :func:`stecflow.studykinds.situated_identification.measures.identification_table`.
    untested : {"incorrect", "excluded", "extrapolated"}, default "incorrect"
        The FPs that were not tested. ``incorrect`` (the seed): they stay wrong,
        k = identified. ``excluded``: they leave precision's denominator, which
        becomes TP + tested (precision over the predictions whose acceptability
        is known). ``extrapolated``: they are credited at the tested success
        rate, k = identified + (FP − tested) · identified / tested (a
        non-integer expected count; needs tested > 0).

    Returns
    -------
    Rescored
        Both versions (:meth:`Rescored.rows`).

    Raises
    ------
    ValueError
        Counts out of range, or an unknown *untested* treatment.

    Examples
    --------
    >>> m = ConfusionMatrix(tp=6, fp=4, fn=2, tn=8)
    >>> r = rescore_false_positives(m, tested=2, identified=1)
    >>> r.precision, r.recall, round(r.f, 4)
    (0.7, 0.75, 0.7241)
    >>> rescore_false_positives(m, tested=2, identified=1,
    ...                         untested="excluded").precision
    0.875
    >>> rescore_false_positives(m, tested=2, identified=1,
    ...                         untested="extrapolated").precision
    0.8
    """
    if untested not in UNTESTED_TREATMENTS:
        raise ValueError(
            f"untested must be one of {', '.join(UNTESTED_TREATMENTS)}, got"
            f" {untested!r}"
        )
    for name, value in (("tested", tested), ("identified", identified)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    if tested > matrix.fp:
        raise ValueError(f"tested ({tested}) exceeds the number of FPs ({matrix.fp})")
    if identified > tested:
        raise ValueError(f"identified ({identified}) exceeds tested ({tested})")
    denominator: float = matrix.tp + matrix.fp
    credited: float = identified
    if untested == "excluded":
        denominator = matrix.tp + tested
    elif untested == "extrapolated":
        if tested == 0:
            raise ValueError("untested='extrapolated' needs at least one tested FP")
        credited = identified + (matrix.fp - tested) * identified / tested
    precision = _ratio(matrix.tp + credited, denominator, math.nan)
    recall = matrix.recall
    return Rescored(
        original=matrix,
        fp_tested=tested,
        fp_identified=identified,
        untested=untested,
        credited=credited,
        precision=precision,
        recall=recall,
        f=f_measure(precision, recall),
    )

"""Automatic metrics for referring expressions: attribute sets and word strings.

Every metric is a :class:`Metric` subclass found by name in a registry, built in
the manner of sacreBLEU: options are constructor arguments, a segment becomes a
tuple of sufficient statistics, a list of statistics becomes a system score, and
``signature()`` states every setting that changes a number. REFERENCE.md
(sections 1-12 and 24) is the specification.

Importing this package is cheap: sacreBLEU and rapidfuzz are imported only when a
metric that needs them computes something, and pandas, scipy and numpy never.

API for the scoring stage
-------------------------
::

    metric = get_metric("dice", multi_ref="mean")    # ValueError lists valid names
    metric.signature()            # 'Dice|refs:mean|type:yes|version:1'
    metric.input_type             # "attributes" or "text"
    metric.level                  # "item" (mean of items) or "corpus" (BLEU, NIST)
    stats = metric.corpus_stats(hyps, refs, contexts)   # one tuple per item
    metric.aggregate(stats)       # system score (also on a bootstrap resample)
    metric.item_scores(stats)     # per-item scores, nan where undefined
    metric.summary(stats)         # counts: n_items, n_scored, n_skipped, ...
    metric.score_segment(hyp, refs, **context)          # one item
    metric.segment_stats(hyp, refs, **context)          # one item's statistics

* ``hyps[i]`` is a string (text metrics) or an attribute set, a
  ``frozenset[tuple[str, str]]`` of ``(name, value)`` pairs (attribute metrics).
* ``refs[i]`` is the sequence of item *i*'s references (item-major; their number
  may vary between items; every item needs at least one, except for the
  domain-only metrics Uniqueness, Minimality, Underspecification and
  Overspecification, which ignore references).
* ``contexts[i]`` is a mapping with ``target`` (the target's attribute set) and
  ``distractors`` (a sequence of the distractors' attribute sets). The
  domain-aware metrics need it; all others accept and ignore it.
* Always use :meth:`Metric.corpus_stats` for a test set: NIST-5's statistics
  depend on the whole reference set (``requires_corpus``).
* For bootstrap resampling, resample the list of statistics with shared indices
  and call :meth:`Metric.aggregate`; pass ``{"bs": n, "seed": s}`` to
  ``signature(extra=...)``.
* BLEU-3 is on sacreBLEU's 0-100 scale; every other score is on its natural
  scale (proportions, similarities in [0, 1], distances, NIST).

Registered metrics
------------------
Attribute sets: ``dice``, ``masi``, ``set_accuracy``, ``set_edit``,
``denotation_similarity`` (references); ``uniqueness``, ``minimality``,
``underspecification``, ``overspecification`` (domain only). Word strings:
``string_accuracy``, ``se``, ``seb`` (seed 002's SEB, Bangalore et al.'s
length-normalised string accuracy; ``ssa`` is a deprecated alias), ``se_norm``
(SE divided by a length), ``rouge2``, ``rouge_su4`` (item level); ``bleu3``,
``nist5`` (corpus level).

Text generation (:mod:`stecflow.metrics.sacrebleu`, computed by sacreBLEU, on its
0-100 scale, corpus level from summed item statistics, each with sacreBLEU's own
signature string): ``bleu`` (tokenisers 13a, intl, zh, ja-mecab, char, none),
``chrf`` (chrF++ by default), ``ter`` (lower is better); and ``rouge_l``
(:mod:`stecflow.metrics.rouge_l`: rouge-score's ROUGE-L F, item level, best
reference). Organisers add their own metrics without touching stecflow: see
:mod:`stecflow.scoring.specs` (``"package.module:ClassName"`` or the entry-point
group ``stecflow.metrics``) and docs/metrics.md.

Binary decisions (seed 000's pronoun decision)
----------------------------------------------
:mod:`stecflow.metrics.classification` is not a registered metric (it scores a
system's decisions against the corpus, not expressions against references):
:func:`confusion_matrix`, :func:`instance_classes` (TP, FP, FN, TN per
instance), :class:`ConfusionMatrix` (precision, recall, F of the positive
class), :func:`system_confusion_rows` and :func:`rescore_false_positives`
(seed 000 §5.4: FPs the evaluators identified count as correct).
:mod:`stecflow.metrics.decisions` registers the same precision, recall and F as
metrics on the input type ``decision`` (a bool per instance, the corpus's bool as
reference): ``decision_precision``, ``decision_recall`` (item level: the mean of
1/0 over the instances of their denominator) and ``decision_f`` (corpus level).

Examples
--------
>>> from stecflow.metrics import get_metric
>>> se = get_metric("se")
>>> se.corpus_score(["the large red chair", ""],
...                 [["the big red chair", "the red chair facing left"], ["the chair"]])
2.25
>>> get_metric("nope")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: unknown metric 'nope'; valid metric names are: bleu, bleu3, ...

May import: :mod:`stecflow.core.errors` only: metrics know nothing of files or
presentation (a value hierarchy arrives as an object, read by
:mod:`stecflow.scoring.hierarchy`).
"""

from stecflow.metrics.base import (
    CONTEXT_KEYS,
    DEPRECATED_NAMES,
    Metric,
    Stats,
    available_metrics,
    get_metric,
    metric_class,
    reduce_over_references,
    register_metric,
)
from stecflow.metrics.bleu import BLEU3
from stecflow.metrics.classification import (
    ConfusionMatrix,
    Rescored,
    confusion_matrix,
    instance_classes,
    rescore_false_positives,
    system_confusion_rows,
)
from stecflow.metrics.decisions import DecisionF, DecisionPrecision, DecisionRecall
from stecflow.metrics.denotation import DenotationSimilarity, denotation_similarity
from stecflow.metrics.distinguishing import (
    Minimality,
    Overspecification,
    Underspecification,
    Uniqueness,
    is_minimal,
    is_unique,
    minimal_distinguishing_size,
    overspecification,
    true_of,
    underspecification,
)
from stecflow.metrics.nist import NIST5, ngram_info, nist_length_penalty
from stecflow.metrics.rouge import ROUGE2, ROUGESU4
from stecflow.metrics.rouge_l import ROUGEL
from stecflow.metrics.sacrebleu import BLEU, CHRF, TER
from stecflow.metrics.sets import (
    MASI,
    AttributeSet,
    Dice,
    SetAccuracy,
    SetEdit,
    dice,
    masi,
    normalise_attribute_set,
    set_edit_distance,
    without_type,
)
from stecflow.metrics.strings import (
    SE,
    SEB,
    SSA,
    SENorm,
    StringAccuracy,
    edit_distance,
    normalised_edit_distance,
    simple_string_accuracy,
)
from stecflow.metrics.text import TextNormaliser

__all__ = [
    "BLEU",
    "BLEU3",
    "CHRF",
    "CONTEXT_KEYS",
    "DEPRECATED_NAMES",
    "MASI",
    "NIST5",
    "ROUGE2",
    "ROUGEL",
    "ROUGESU4",
    "SE",
    "SEB",
    "SSA",
    "TER",
    "AttributeSet",
    "ConfusionMatrix",
    "DecisionF",
    "DecisionPrecision",
    "DecisionRecall",
    "DenotationSimilarity",
    "Dice",
    "Metric",
    "Minimality",
    "Overspecification",
    "SENorm",
    "Rescored",
    "SetAccuracy",
    "SetEdit",
    "Stats",
    "StringAccuracy",
    "TextNormaliser",
    "Underspecification",
    "Uniqueness",
    "available_metrics",
    "confusion_matrix",
    "denotation_similarity",
    "dice",
    "edit_distance",
    "get_metric",
    "instance_classes",
    "is_minimal",
    "is_unique",
    "masi",
    "metric_class",
    "minimal_distinguishing_size",
    "ngram_info",
    "nist_length_penalty",
    "normalise_attribute_set",
    "normalised_edit_distance",
    "overspecification",
    "reduce_over_references",
    "register_metric",
    "rescore_false_positives",
    "set_edit_distance",
    "simple_string_accuracy",
    "system_confusion_rows",
    "true_of",
    "underspecification",
    "without_type",
]

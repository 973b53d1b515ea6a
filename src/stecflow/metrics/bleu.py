"""Corpus-level BLEU-3, sacreBLEU's (REFERENCE.md §10).

The segment statistics are sacreBLEU's own layout, ``[hyp_len, ref_len,
correct_1..N, total_1..N]``: clipped n-gram matches against the maximum count
over the item's references, hypothesis n-gram totals, and the length of the
reference closest to the hypothesis (ties to the shorter). They are summed over
the corpus and turned into a score by :func:`compute_bleu`, sacreBLEU's
``sacrebleu.metrics.bleu.BLEU.compute_bleu`` line for line, so smoothing and the
brevity penalty are exactly sacreBLEU's: a unit test compares the two, bit for
bit, on every small combination of statistics under every smoothing method.
sacreBLEU itself is not imported to score: its import (its dataset table,
``portalocker``, ``tabulate``) costs a per-submission job more than BLEU does
(benchmarks/README.md). The tokens are ours
(:class:`~stecflow.metrics.text.TextNormaliser`), so the equivalent direct call is
``BLEU(max_ngram_order=3, tokenize="none", force=True).corpus_score(...)`` on the
space-joined tokens; a unit test checks that the two agree.

Scores are on sacreBLEU's 0-100 scale (REG papers print 0-1; scale in the
report).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from stecflow.metrics.base import (
    Metric,
    Stats,
    check_bool,
    check_choice,
    register_metric,
)
from stecflow.metrics.measure_types import MeasureType
from stecflow.metrics.text import Punctuation, TextMetricMixin, ngram_counts

__all__ = ["BLEU3", "SMOOTH_DEFAULTS", "closest_ref_len", "compute_bleu"]

#: sacreBLEU's smoothing methods and their default values (``BLEU.SMOOTH_DEFAULTS``,
#: copied so that signatures can be built without importing sacreBLEU; a test
#: checks that they agree).
SMOOTH_DEFAULTS: dict[str, float | None] = {
    "none": None,
    "floor": 0.1,
    "add-k": 1,
    "exp": None,
}


def closest_ref_len(hyp_len: int, ref_lens: Sequence[int]) -> int:
    """Length of the reference closest in length to the hypothesis, ties to shorter.

    Examples
    --------
    >>> closest_ref_len(4, [3, 5, 6])
    3
    """
    return min(ref_lens, key=lambda r: (abs(hyp_len - r), r))


def compute_bleu(
    correct: Sequence[float],
    total: Sequence[float],
    sys_len: float,
    ref_len: float,
    smooth_method: str = "none",
    smooth_value: float | None = None,
    effective_order: bool = False,
    max_ngram_order: int = 4,
) -> float:
    """BLEU (0-100) from summed statistics: sacreBLEU's ``BLEU.compute_bleu``.

    The same operations in the same order as sacreBLEU 2's static method (so
    the same bits; ``tests/unit/test_metrics_bleu.py`` checks it against the
    installed sacreBLEU), returning its ``score``. A precision of 0 enters the
    geometric mean as sacreBLEU's floored logarithm, -9999999999.

    Examples
    --------
    >>> round(compute_bleu([7, 3, 1], [9, 7, 5], 9, 9, "exp", max_ngram_order=3), 3)
    40.548
    """
    if smooth_value is None:
        smooth_value = SMOOTH_DEFAULTS[smooth_method]
    bp = 1.0
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    if not any(correct):
        return 0.0
    precisions = [0.0] * max_ngram_order
    smooth_mteval = 1.0
    eff_order = max_ngram_order
    for n in range(1, max_ngram_order + 1):
        matched, guessed = correct[n - 1], total[n - 1]
        if smooth_method == "add-k" and n > 1:
            matched += smooth_value
            guessed += smooth_value
        if guessed == 0:
            break
        if effective_order:
            eff_order = n
        if matched == 0:
            if smooth_method == "exp":
                smooth_mteval *= 2
                precisions[n - 1] = 100.0 / (smooth_mteval * guessed)
            elif smooth_method == "floor":
                precisions[n - 1] = 100.0 * smooth_value / guessed
        else:
            precisions[n - 1] = 100.0 * matched / guessed
    logs = [math.log(p) if p != 0.0 else -9999999999 for p in precisions[:eff_order]]
    return bp * math.exp(sum(logs) / eff_order)


class TextCorpusMetric(TextMetricMixin, Metric):
    """Shared machinery of the corpus-level word-string metrics."""

    input_type: ClassVar[Literal["attributes", "text"]] = "text"
    level: ClassVar[Literal["item", "corpus"]] = "corpus"


@register_metric
class BLEU3(TextCorpusMetric):
    """BLEU with n-grams up to 3, corpus level, all references (REFERENCE.md §10).

    Parameters
    ----------
    smooth_method : {"exp", "none", "floor", "add-k"}, default "exp"
        sacreBLEU's smoothing; ``exp`` is mteval-v13a's rule.
    smooth_value : float, optional
        Value for ``floor`` (default 0.1) and ``add-k`` (default 1).
    effective_order : bool, default False
        sacreBLEU's effective order for the corpus score (off for corpus BLEU).
    segment_effective_order : bool, default True
        Effective order for per-item scores (:meth:`score_from_stats`), which
        REFERENCE.md §10 recommends for item-level analysis; it never affects
        the corpus score.
    lowercase : bool, default True
        Lower-case before tokenising.
    punctuation : {"strip", "delete", "split", "keep"}, default "strip"
        Punctuation handling.

    Examples
    --------
    >>> bleu = BLEU3()
    >>> round(bleu.corpus_score(
    ...     ["the large red chair", "the man with a beard"],
    ...     [["the big red chair", "the red chair facing left"],
    ...      ["the bearded man", "the man with the beard"]]), 3)
    40.548
    >>> bleu.signature().split("|version")[0]
    'BLEU-3|smooth:exp|eff:no|seg_eff:yes|case:lc|punct:strip|tok:none'
    """

    name = "bleu3"
    display_name = "BLEU-3"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "BLEU-3 n-gram precision against the references",
        "string_similarity",
    )
    version = "1"
    libraries = ("sacrebleu",)
    max_ngram_order: ClassVar[int] = 3
    signature_fields = (
        ("smooth_method", "smooth"),
        ("smooth_value", "smooth_value"),
        ("effective_order", "eff"),
        ("segment_effective_order", "seg_eff"),
        ("lowercase", "case"),
        ("punctuation", "punct"),
    )

    def __init__(
        self,
        *,
        smooth_method: Literal["exp", "none", "floor", "add-k"] = "exp",
        smooth_value: float | None = None,
        effective_order: bool = False,
        segment_effective_order: bool = True,
        lowercase: bool = True,
        punctuation: Punctuation = "strip",
    ) -> None:
        check_choice("smooth_method", smooth_method, tuple(SMOOTH_DEFAULTS))
        if smooth_value is not None and (
            isinstance(smooth_value, bool) or not isinstance(smooth_value, int | float)
        ):
            raise ValueError(
                f"option smooth_value must be a number; got {smooth_value!r}"
            )
        check_bool("effective_order", effective_order)
        check_bool("segment_effective_order", segment_effective_order)
        self.smooth_method = smooth_method
        self.smooth_value = smooth_value
        self.effective_order = effective_order
        self.segment_effective_order = segment_effective_order
        self._init_text(lowercase, punctuation)

    def signature_items(self) -> list[tuple[str, object]]:
        """Fields in sacreBLEU's vocabulary (``smooth:add-k[1.00]``, ``tok:none``).

        The smoothing value is folded into ``smooth`` as sacreBLEU does, and
        ``tok:none`` records that sacreBLEU sees our tokens unchanged.
        """
        return [
            ("smooth", self._smooth_label()),
            ("eff", self.effective_order),
            ("seg_eff", self.segment_effective_order),
            ("case", "lc" if self.lowercase else "mixed"),
            ("punct", self.punctuation),
            ("tok", "none"),
        ]

    def _smooth_label(self) -> str:
        default = SMOOTH_DEFAULTS[self.smooth_method]
        if default is None:
            return self.smooth_method
        value = default if self.smooth_value is None else self.smooth_value
        return f"{self.smooth_method}[{value:.2f}]"

    stat_names = (
        "hyp_len",
        "ref_len",
        *(f"correct_{i}" for i in range(1, 4)),
        *(f"total_{i}" for i in range(1, 4)),
    )

    def segment_stats(self, hyp: str, refs: Sequence[str], **context: Any) -> Stats:
        """Return sacreBLEU's statistics for one segment.

        Parameters
        ----------
        hyp : str
            The output string (may be empty).
        refs : sequence of str
            The item's references (at least one; the number may vary by item).
        **context
            Ignored (``target``, ``distractors``).

        Returns
        -------
        tuple of int
            ``hyp_len, ref_len, correct_1..N, total_1..N``.
        """
        self.check_context(context)
        self.check_refs(refs)
        n_max = self.max_ngram_order
        hyp_tokens = self.tokens(hyp)
        ref_max: dict[tuple[str, ...], int] = {}
        ref_lens = []
        for ref in refs:
            ref_tokens = self.tokens(ref)
            ref_lens.append(len(ref_tokens))
            for gram, count in ngram_counts(ref_tokens, n_max).items():
                if count > ref_max.get(gram, 0):
                    ref_max[gram] = count
        correct = [0] * n_max
        total = [0] * n_max
        for gram, count in ngram_counts(hyp_tokens, n_max).items():
            total[len(gram) - 1] += count
            correct[len(gram) - 1] += min(count, ref_max.get(gram, 0))
        hyp_len = len(hyp_tokens)
        return (hyp_len, closest_ref_len(hyp_len, ref_lens), *correct, *total)

    def _compute(self, summed: Sequence[float], effective_order: bool) -> float:
        n = self.max_ngram_order
        return compute_bleu(
            correct=[int(x) for x in summed[2 : 2 + n]],
            total=[int(x) for x in summed[2 + n : 2 + 2 * n]],
            sys_len=int(summed[0]),
            ref_len=int(summed[1]),
            smooth_method=self.smooth_method,
            smooth_value=self.smooth_value,
            effective_order=effective_order,
            max_ngram_order=n,
        )

    def aggregate(self, stats: Sequence[Stats]) -> float:
        """Corpus BLEU from the summed segment statistics (0-100).

        Raises
        ------
        ValueError
            If *stats* is empty.
        """
        self._check_nonempty(stats)
        summed = [sum(col) for col in zip(*stats, strict=True)]
        return self._compute(summed, self.effective_order)

    def resample_scores(self, stats: Sequence[Stats], counts: Any) -> list[float]:
        """Corpus BLEU of each bootstrap resample, from summed statistics."""
        import numpy as np

        totals = counts @ np.array(stats, dtype=np.int64)
        return [self._compute(row, self.effective_order) for row in totals]

    def score_from_stats(self, stats: Stats) -> float:
        """Sentence BLEU of one segment (with ``segment_effective_order``)."""
        return self._compute(stats, self.segment_effective_order)

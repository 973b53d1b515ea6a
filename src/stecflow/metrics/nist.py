"""Corpus-level NIST-5, following NIST's ``mteval-v13a.pl`` (REFERENCE.md §11).

Implemented in-house because sacreBLEU has no NIST and NLTK's ``corpus_nist``
differs from mteval (best single reference instead of clipping against all of
them, closest instead of average reference length, ZeroDivisionError on short
corpora: nltk/nltk#3444, #3901). The formulas, from mteval's
``compute_ngram_info``, ``score_segment``, ``nist_score`` and
``nist_length_penalty``::

    Info(w1..wn) = log2(count(w1..wn-1) / count(w1..wn))
                   (counts over all references; n = 1: total reference words)
    NIST = BP · Σ_{n=1..5} Σ_items Σ_g Info(g)·clipped(g)
                           / max(Σ_items #hyp n-grams of order n, 1)
    BP   = exp(-β · ln²(min(L_sys / L_ref, 1))),  β = -ln 0.5 / ln² 1.5

``clipped(g)`` is the hypothesis count clipped by the maximum count over the
item's references. Because Info depends on the whole reference set, segment
statistics must come from :meth:`NIST5.corpus_stats` over the whole test set, and
all systems must be scored against the same references.

References
----------
Doddington, G. (2002). Automatic evaluation of machine translation quality using
n-gram co-occurrence statistics. HLT 2002.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Literal

from stecflow.metrics.base import Metric, Stats, check_choice, register_metric
from stecflow.metrics.measure_types import MeasureType
from stecflow.metrics.text import Punctuation, TextMetricMixin, ngram_counts

__all__ = [
    "NIST5",
    "NIST_BETA",
    "NIST_VARIABLE_REFS",
    "ngram_info",
    "nist_length_penalty",
]

#: β of the NIST brevity penalty: BP = 0.5 when the system output is 2/3 as long
#: as the average reference.
NIST_BETA = -math.log(0.5) / math.log(1.5) ** 2

#: Valid values of the ``variable_refs`` option.
NIST_VARIABLE_REFS: tuple[str, ...] = ("per_item_mean", "mteval")


def nist_length_penalty(ratio: float) -> float:
    """NIST brevity penalty for a system/reference length ratio.

    Parameters
    ----------
    ratio : float
        ``L_sys / L_ref``.

    Returns
    -------
    float
        1 for ratios >= 1, 0 for ratios <= 0, else ``exp(-β ln² ratio)``.

    Examples
    --------
    >>> round(nist_length_penalty(2 / 3), 12)
    0.5
    >>> round(nist_length_penalty(0.9), 6)
    0.954275
    """
    if ratio >= 1:
        return 1.0
    if ratio <= 0:
        return 0.0
    return math.exp(-NIST_BETA * math.log(ratio) ** 2)


def ngram_info(
    references: Iterable[Sequence[Sequence[str]]], max_order: int = 5
) -> dict[tuple[str, ...], float]:
    """Information weights of every reference n-gram (mteval ``compute_ngram_info``).

    Parameters
    ----------
    references : iterable of sequences of token sequences
        For every item, its references as token sequences.
    max_order : int, default 5
        Highest n-gram order.

    Returns
    -------
    dict
        n-gram (tuple of tokens) to ``log2(count(prefix) / count(n-gram))``, where
        the prefix of a unigram counts as the total number of reference words.

    Examples
    --------
    >>> info = ngram_info([[("the", "red", "chair"), ("the", "large", "red", "chair")]])
    >>> round(info[("the",)], 6), info[("the", "red")], info[("red", "chair")]
    (1.807355, 1.0, 0.0)
    """
    counts: dict[tuple[str, ...], int] = {}
    total_words = 0
    for refs in references:
        for ref in refs:
            tokens = tuple(ref)
            total_words += len(tokens)
            for gram, count in ngram_counts(tokens, max_order).items():
                counts[gram] = counts.get(gram, 0) + count
    return {
        gram: math.log2((total_words if len(gram) == 1 else counts[gram[:-1]]) / count)
        for gram, count in counts.items()
    }


@register_metric
class NIST5(TextMetricMixin, Metric):
    """NIST with n-grams up to 5, corpus level, all references (REFERENCE.md §11).

    Segment statistics: ``hyp_len, ref_words, n_refs, info_1..5, total_1..5,
    match_1..5`` (info-weighted clipped matches, hypothesis n-gram counts and
    clipped match counts per order). Bootstrap resampling keeps the Info weights
    of the full reference set.

    Parameters
    ----------
    variable_refs : {"per_item_mean", "mteval"}, default "per_item_mean"
        The average reference length ``L_ref`` when items have different numbers
        of references: ``per_item_mean`` sums each item's mean reference length
        (REFERENCE.md §11 default); ``mteval`` divides all reference words by the
        largest number of references of an item, as mteval does when some
        reference sets have empty segments. Both equal mteval's formula when the
        number is constant.
    lowercase : bool, default True
        Lower-case before tokenising.
    punctuation : {"strip", "delete", "split", "keep"}, default "strip"
        Punctuation handling.

    Examples
    --------
    >>> nist = NIST5()
    >>> round(nist.corpus_score(["the red chair"],
    ...                         [["the red chair", "the large red chair"]]), 6)
    2.087392
    """

    name = "nist5"
    display_name = "NIST-5"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "NIST-5 information-weighted n-gram precision against the references",
        "string_similarity",
    )
    version = "1"
    level: ClassVar[Literal["item", "corpus"]] = "corpus"
    input_type: ClassVar[Literal["attributes", "text"]] = "text"
    requires_corpus: ClassVar[bool] = True
    max_ngram_order: ClassVar[int] = 5
    stat_names = (
        "hyp_len",
        "ref_words",
        "n_refs",
        *(f"info_{i}" for i in range(1, 6)),
        *(f"total_{i}" for i in range(1, 6)),
        *(f"match_{i}" for i in range(1, 6)),
    )
    signature_fields = (
        ("variable_refs", "vrefs"),
        ("lowercase", "case"),
        ("punctuation", "punct"),
    )

    def __init__(
        self,
        *,
        variable_refs: Literal["per_item_mean", "mteval"] = "per_item_mean",
        lowercase: bool = True,
        punctuation: Punctuation = "strip",
    ) -> None:
        check_choice("variable_refs", variable_refs, NIST_VARIABLE_REFS)
        self.variable_refs = variable_refs
        self._init_text(lowercase, punctuation)

    def corpus_stats(
        self,
        hyps: Sequence[str],
        refs: Sequence[Sequence[str]],
        contexts: Sequence[Mapping[str, Any]] | None = None,
    ) -> list[Stats]:
        """Statistics of every segment, with Info weights from all the references.

        See :meth:`Metric.corpus_stats`; this is the way to get NIST statistics.
        """
        self._check_lengths(hyps, refs, contexts)
        for item_refs in refs:
            self.check_refs(item_refs)
        tokenised = [[self.tokens(r) for r in item_refs] for item_refs in refs]
        info = ngram_info(tokenised, self.max_ngram_order)
        ctxs: Sequence[Mapping[str, Any]] = contexts or [{}] * len(hyps)
        return [
            self._stats(self.tokens(h), r, info, c)
            for h, r, c in zip(hyps, tokenised, ctxs, strict=True)
        ]

    def segment_stats(
        self,
        hyp: str,
        refs: Sequence[str],
        *,
        info: Mapping[tuple[str, ...], float] | None = None,
        **context: Any,
    ) -> Stats:
        """Statistics of one segment given the test set's Info weights.

        Parameters
        ----------
        hyp : str
            The output string.
        refs : sequence of str
            The item's references.
        info : mapping
            Info weights of the whole test set's references
            (:func:`ngram_info` of their tokens). Required: without them the
            statistics cannot be summed over a corpus.
        **context
            Ignored (``target``, ``distractors``).

        Raises
        ------
        ValueError
            If *info* is not given.
        """
        if info is None:
            raise ValueError(
                "NIST-5 weights n-grams by their information in the whole reference "
                "set: use corpus_stats(hyps, refs) for a test set, or pass "
                "info=ngram_info(...) computed from all references"
            )
        self.check_refs(refs)
        return self._stats(
            self.tokens(hyp), [self.tokens(r) for r in refs], info, context
        )

    def _stats(
        self,
        hyp: tuple[str, ...],
        refs: Sequence[tuple[str, ...]],
        info: Mapping[tuple[str, ...], float],
        context: Mapping[str, Any],
    ) -> Stats:
        self.check_context(context)
        n_max = self.max_ngram_order
        ref_max: dict[tuple[str, ...], int] = {}
        for ref in refs:
            for gram, count in ngram_counts(ref, n_max).items():
                if count > ref_max.get(gram, 0):
                    ref_max[gram] = count
        info_sum = [0.0] * n_max
        matches = [0] * n_max
        for gram, count in ngram_counts(hyp, n_max).items():
            clipped = min(count, ref_max.get(gram, 0))
            if clipped:
                info_sum[len(gram) - 1] += info[gram] * clipped
                matches[len(gram) - 1] += clipped
        totals = [max(len(hyp) - n + 1, 0) for n in range(1, n_max + 1)]
        ref_words = sum(len(r) for r in refs)
        return (len(hyp), ref_words, len(refs), *info_sum, *totals, *matches)

    def _score(self, stats: Sequence[Stats]) -> float:
        n = self.max_ngram_order
        hyp_len = sum(s[0] for s in stats)
        if self.variable_refs == "per_item_mean":
            ref_len = math.fsum(s[1] / s[2] for s in stats)
        else:
            ref_len = sum(s[1] for s in stats) / max(s[2] for s in stats)
        score = math.fsum(
            math.fsum(s[3 + i] for s in stats)
            / max(sum(s[3 + n + i] for s in stats), 1)
            for i in range(n)
        )
        penalty = nist_length_penalty(hyp_len / ref_len) if ref_len > 0 else 1.0
        return score * penalty

    def aggregate(self, stats: Sequence[Stats]) -> float:
        """Corpus NIST-5 from the segment statistics.

        Raises
        ------
        ValueError
            If *stats* is empty.
        """
        self._check_nonempty(stats)
        return self._score(stats)

    def resample_scores(self, stats: Sequence[Stats], counts: Any) -> list[float]:
        """Corpus NIST-5 of each bootstrap resample, vectorised over resamples.

        Gives the same numbers as :meth:`aggregate` on each resample (tested).
        """
        import numpy as np

        n = self.max_ngram_order
        s = np.array(stats, dtype=float)
        c = np.asarray(counts, dtype=float)
        hyp_len = c @ s[:, 0]
        if self.variable_refs == "per_item_mean":
            ref_len = c @ (s[:, 1] / s[:, 2])
        else:
            drawn_max = np.where(c > 0, s[:, 2][None, :], 0).max(axis=1)
            ref_len = (c @ s[:, 1]) / drawn_max
        info = c @ s[:, 3 : 3 + n]
        totals = np.maximum(c @ s[:, 3 + n : 3 + 2 * n], 1)
        score = (info / totals).sum(axis=1)
        out = []
        for value, h, r in zip(score, hyp_len, ref_len, strict=True):
            penalty = nist_length_penalty(h / r) if r > 0 else 1.0
            out.append(float(value * penalty))
        return out

    def score_from_stats(self, stats: Stats) -> float:
        """NIST-5 of one segment (with the corpus Info weights it was computed with)."""
        return self._score([stats])

    def score_segment(self, hyp: str, refs: Sequence[str], **context: Any) -> float:
        """NIST-5 of one segment treated as a one-segment test set.

        The Info weights then come from this item's references only, as when
        mteval is run on a one-line test set.
        """
        return self.aggregate(self.corpus_stats([hyp], [refs], [context]))

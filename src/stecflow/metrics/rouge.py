"""ROUGE-2 and ROUGE-SU4, in-house, as ROUGE-1.5.5 computes them (REFERENCE.md §12).

With several references, hits and counts are pooled over the references
(ROUGE-1.5.5's default ``-f A``)::

    R = Σ_refs Σ_g min(count_hyp(g), count_ref(g)) / Σ_refs Σ_g count_ref(g)
    P = Σ_refs Σ_g min(count_hyp(g), count_ref(g)) / (#refs · Σ_g count_hyp(g))
    F = 2PR / (P + R)

A zero denominator gives 0. ROUGE-SU4 counts skip-bigrams (ordered token pairs
with at most 4 tokens between them) plus unigrams; like ROUGE-1.5.5 it leaves out
the unigram of the last token by default. The system score is the mean of the
per-item scores.

References
----------
Lin, C.-Y. (2004). ROUGE: A Package for Automatic Evaluation of Summaries.
Text Summarization Branches Out (ACL W04-1013).
"""

from __future__ import annotations

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
from stecflow.metrics.text import Punctuation, TextMetricMixin, rouge155_tokens

__all__ = [
    "ROUGE2",
    "ROUGE_SCORES",
    "ROUGESU4",
    "ngrams",
    "rouge_from_counts",
    "rouge_hits",
    "skip_bigrams",
]

#: Valid values of the ``score`` option.
ROUGE_SCORES: tuple[str, ...] = ("recall", "precision", "f")

Gram = tuple[str, ...]


def ngrams(tokens: Sequence[str], n: int) -> dict[Gram, int]:
    """Count the n-grams of one order.

    Examples
    --------
    >>> ngrams(["the", "red", "chair"], 2)
    {('the', 'red'): 1, ('red', 'chair'): 1}
    """
    counts: dict[Gram, int] = {}
    for i in range(len(tokens) - n + 1):
        gram = tuple(tokens[i : i + n])
        counts[gram] = counts.get(gram, 0) + 1
    return counts


def skip_bigrams(
    tokens: Sequence[str],
    max_skip: int = 4,
    *,
    unigrams: bool = True,
    include_last_unigram: bool = False,
) -> dict[Gram, int]:
    """Count skip-bigrams (and unigrams) as ROUGE-1.5.5's ``-2 max_skip -u`` does.

    Parameters
    ----------
    tokens : sequence of str
        The tokens.
    max_skip : int, default 4
        Maximum number of tokens between the two words of a pair.
    unigrams : bool, default True
        Add unigrams (ROUGE-SU rather than ROUGE-S).
    include_last_unigram : bool, default False
        Add the last token's unigram too. ROUGE-1.5.5 does not (it adds the
        unigram of each token that starts a pair), so a one-token text has no
        SU units.

    Returns
    -------
    dict
        Unit to count; a unigram is a 1-tuple, a skip-bigram a 2-tuple.

    Examples
    --------
    >>> sorted(skip_bigrams(["a", "b", "c"]).items())
    [(('a',), 1), (('a', 'b'), 1), (('a', 'c'), 1), (('b',), 1), (('b', 'c'), 1)]
    """
    counts: dict[Gram, int] = {}
    n = len(tokens)
    for i in range(n):
        if unigrams and (i < n - 1 or include_last_unigram):
            counts[(tokens[i],)] = counts.get((tokens[i],), 0) + 1
        for j in range(i + 1, min(n, i + max_skip + 2)):
            pair = (tokens[i], tokens[j])
            counts[pair] = counts.get(pair, 0) + 1
    return counts


def rouge_hits(
    hyp: dict[Gram, int], refs: Sequence[dict[Gram, int]]
) -> tuple[int, int, int, int]:
    """Pooled ROUGE counts of one hypothesis against its references.

    Returns
    -------
    tuple of int
        ``(hits, ref_total, hyp_total, n_refs)``: clipped matches summed over
        references, reference units summed over references, hypothesis units,
        number of references.

    Examples
    --------
    >>> rouge_hits(ngrams("a b c".split(), 2), [ngrams("a b d".split(), 2)])
    (1, 2, 2, 1)
    """
    hits = 0
    ref_total = 0
    for ref in refs:
        ref_total += sum(ref.values())
        hits += sum(min(count, ref.get(gram, 0)) for gram, count in hyp.items())
    return hits, ref_total, sum(hyp.values()), len(refs)


def rouge_from_counts(
    hits: float, ref_total: float, hyp_total: float, n_refs: float
) -> tuple[float, float, float]:
    """Recall, precision and F from pooled counts (zero denominators give 0).

    Examples
    --------
    >>> [round(x, 6) for x in rouge_from_counts(2, 7, 3, 2)]
    [0.285714, 0.333333, 0.307692]
    """
    recall = hits / ref_total if ref_total else 0.0
    precision = hits / (n_refs * hyp_total) if hyp_total and n_refs else 0.0
    f = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return recall, precision, f


class _Rouge(TextMetricMixin, Metric):
    """Shared machinery of the ROUGE metrics."""

    input_type: ClassVar[Literal["attributes", "text"]] = "text"
    version = "1"
    stat_names = ("score", "hits", "ref_total", "hyp_total", "n_refs")
    score: Literal["recall", "precision", "f"]
    rouge155_preprocess: bool

    def _init_rouge(
        self,
        score: Literal["recall", "precision", "f"],
        rouge155_preprocess: bool,
        lowercase: bool,
        punctuation: Punctuation,
    ) -> None:
        check_choice("score", score, ROUGE_SCORES)
        check_bool("rouge155_preprocess", rouge155_preprocess)
        self.score = score
        self.rouge155_preprocess = rouge155_preprocess
        self._init_text(lowercase, punctuation)

    def tokens(self, text: str) -> tuple[str, ...]:
        """Tokens under ROUGE-1.5.5's preprocessing if chosen, else the common one."""
        if self.rouge155_preprocess:
            if not isinstance(text, str):
                raise TypeError(f"expected a string, got {type(text).__name__}")
            return rouge155_tokens(text)
        return super().tokens(text)

    def _units(self, tokens: tuple[str, ...]) -> dict[Gram, int]:
        raise NotImplementedError

    def segment_stats(self, hyp: str, refs: Sequence[str], **context: Any) -> Stats:
        """Return ``(score, hits, ref_total, hyp_total, n_refs)`` for one item."""
        self.check_context(context)
        self.check_refs(refs)
        counts = rouge_hits(
            self._units(self.tokens(hyp)), [self._units(self.tokens(r)) for r in refs]
        )
        recall, precision, f = rouge_from_counts(*counts)
        value = {"recall": recall, "precision": precision, "f": f}[self.score]
        return (value, *counts)


@register_metric
class ROUGE2(_Rouge):
    """ROUGE-2: bigram overlap, pooled over references (REFERENCE.md §12).

    Parameters
    ----------
    score : {"recall", "precision", "f"}, default "recall"
        Which figure is the score (the REG reports do not say).
    rouge155_preprocess : bool, default False
        Tokenise like ROUGE-1.5.5 (:func:`~stecflow.metrics.text.rouge155_tokens`)
        instead of with the common normaliser.
    lowercase : bool, default True
        Lower-case before tokenising (common normaliser).
    punctuation : {"strip", "delete", "split", "keep"}, default "strip"
        Punctuation handling (common normaliser).

    Examples
    --------
    >>> ROUGE2().score_segment("the large red chair", ["the big red chair"])
    0.3333333333333333
    """

    name = "rouge2"
    display_name = "ROUGE-2"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "ROUGE-2 bigram overlap with the references",
        "string_similarity",
    )
    signature_fields = (
        ("score", "score"),
        ("rouge155_preprocess", "r155"),
        ("lowercase", "case"),
        ("punctuation", "punct"),
    )

    def __init__(
        self,
        *,
        score: Literal["recall", "precision", "f"] = "recall",
        rouge155_preprocess: bool = False,
        lowercase: bool = True,
        punctuation: Punctuation = "strip",
    ) -> None:
        self._init_rouge(score, rouge155_preprocess, lowercase, punctuation)

    def _units(self, tokens: tuple[str, ...]) -> dict[Gram, int]:
        return ngrams(tokens, 2)


@register_metric
class ROUGESU4(_Rouge):
    """ROUGE-SU4: skip-bigrams with gap <= 4 plus unigrams (REFERENCE.md §12).

    Parameters
    ----------
    score : {"recall", "precision", "f"}, default "recall"
        Which figure is the score.
    su_include_last_unigram : bool, default False
        Count the last token's unigram too (ROUGE-1.5.5 does not).
    rouge155_preprocess : bool, default False
        Tokenise like ROUGE-1.5.5 instead of with the common normaliser.
    lowercase : bool, default True
        Lower-case before tokenising (common normaliser).
    punctuation : {"strip", "delete", "split", "keep"}, default "strip"
        Punctuation handling (common normaliser).

    Examples
    --------
    >>> round(ROUGESU4().score_segment("the large red chair", ["the big red chair"]), 4)
    0.5556
    """

    name = "rouge_su4"
    display_name = "ROUGE-SU4"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "ROUGE-SU4 skip-bigram and unigram overlap with the references",
        "string_similarity",
    )
    signature_fields = (
        ("score", "score"),
        ("su_include_last_unigram", "last_uni"),
        ("rouge155_preprocess", "r155"),
        ("lowercase", "case"),
        ("punctuation", "punct"),
    )

    def __init__(
        self,
        *,
        score: Literal["recall", "precision", "f"] = "recall",
        su_include_last_unigram: bool = False,
        rouge155_preprocess: bool = False,
        lowercase: bool = True,
        punctuation: Punctuation = "strip",
    ) -> None:
        check_bool("su_include_last_unigram", su_include_last_unigram)
        self.su_include_last_unigram = su_include_last_unigram
        self._init_rouge(score, rouge155_preprocess, lowercase, punctuation)

    def _units(self, tokens: tuple[str, ...]) -> dict[Gram, int]:
        return skip_bigrams(
            tokens, 4, unigrams=True, include_last_unigram=self.su_include_last_unigram
        )

"""ROUGE-L F, per item and maximal over the references, as rouge-score computes it.

Google's ``rouge-score`` package (``rouge_scorer.RougeScorer(["rougeL"])`` with
``score_multi``), the ROUGE that GEM and most current text-generation tasks
report, computes ROUGE-L of one output as follows, and this module does the
same in a few lines so that no dependency is needed (a test checks the two agree
when rouge-score is installed):

1. Tokenise (``rouge_score.tokenize``): lower-case, replace every run of
   characters other than ``a-z`` and ``0-9`` by a space, split; with
   ``use_stemmer`` stem every token longer than 3 characters with NLTK's Porter
   stemmer. Only ASCII letters and digits survive: text in other scripts has no
   tokens, so ROUGE-L is 0 for it; use chrF for such text.
2. Against each reference: LCS = length of the longest common subsequence of the
   two token lists; P = LCS / |output|, R = LCS / |reference|,
   F = 2PR / (P + R); all 0 if either list is empty.
3. Keep the reference with the highest F (the first of equal ones).

The system score is the mean of the items' F (item level), on rouge-score's 0-1
scale.

May import: :mod:`stecflow.core.errors` (nothing of stecflow is needed); NLTK
inside functions only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from stecflow.metrics.base import Metric, Stats, check_bool, register_metric
from stecflow.metrics.measure_types import MeasureType

__all__ = ["ROUGEL", "lcs_length", "rouge_score_tokens"]

_NON_ALPHANUM = re.compile(r"[^a-z0-9]+")
_VALID_TOKEN = re.compile(r"^[a-z0-9]+$")


def rouge_score_tokens(text: str, stemmer: Any = None) -> list[str]:
    """Tokenise as ``rouge_score.tokenize.tokenize`` does.

    Parameters
    ----------
    text : str
        The text.
    stemmer : object with a ``stem`` method, optional
        Applied to tokens longer than 3 characters.

    Returns
    -------
    list of str

    Examples
    --------
    >>> rouge_score_tokens("The chair's top-left, 2 Cafés!")
    ['the', 'chair', 's', 'top', 'left', '2', 'caf', 's']
    """
    tokens = _NON_ALPHANUM.sub(" ", text.lower()).split()
    if stemmer is not None:
        tokens = [stemmer.stem(t) if len(t) > 3 else t for t in tokens]
    return [t for t in tokens if _VALID_TOKEN.match(t)]


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two token lists.

    Examples
    --------
    >>> lcs_length("the cat sat on the mat".split(), "the cat was on a mat".split())
    4
    """
    if not a or not b:
        return 0
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b, start=1):
            current.append(
                previous[j - 1] + 1 if x == y else max(previous[j], current[j - 1])
            )
        previous = current
    return previous[-1]


@register_metric
class ROUGEL(Metric):
    """ROUGE-L F of rouge-score: LCS-based, per item, best reference.

    Parameters
    ----------
    use_stemmer : bool, default False
        rouge-score's ``use_stemmer`` (NLTK's Porter stemmer; needs ``nltk``).

    Examples
    --------
    >>> rouge = ROUGEL()
    >>> round(rouge.score_segment("the cat sat on the mat",
    ...                           ["the cat was on a mat", "a cat sat on a mat"]), 6)
    0.666667
    >>> rouge.signature()
    'ROUGE-L|stem:no|tok:rouge-score|version:1'
    """

    name = "rouge_l"
    display_name = "ROUGE-L"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "ROUGE-L longest common subsequence with the best reference",
        "string_similarity",
    )
    version = "1"
    level: ClassVar[Literal["item", "corpus"]] = "item"
    input_type: ClassVar[Literal["attributes", "text"]] = "text"
    signature_fields = (("use_stemmer", "stem"),)
    stat_names = ("f", "precision", "recall", "lcs", "hyp_len", "ref_len")
    #: ``scoring.text`` does not apply: the tokenisation is rouge-score's.
    shared_text_options: ClassVar[bool] = False

    def __init__(self, *, use_stemmer: bool = False) -> None:
        check_bool("use_stemmer", use_stemmer)
        self.use_stemmer = use_stemmer
        self._stemmer: Any = None
        if use_stemmer:
            try:
                from nltk.stem import porter
            except ImportError:
                raise ValueError(
                    "option use_stemmer needs NLTK's Porter stemmer: pip install nltk"
                ) from None
            self._stemmer = porter.PorterStemmer()

    def signature_items(self) -> list[tuple[str, object]]:
        """``stem`` and the tokeniser (rouge-score's)."""
        return [("stem", self.use_stemmer), ("tok", "rouge-score")]

    def tokens(self, text: str) -> list[str]:
        """rouge-score's tokens of *text* (with the stemmer if chosen)."""
        if not isinstance(text, str):
            raise TypeError(f"expected a string, got {type(text).__name__}")
        return rouge_score_tokens(text, self._stemmer)

    def segment_stats(self, hyp: str, refs: Sequence[str], **context: Any) -> Stats:
        """Return ``(f, precision, recall, lcs, hyp_len, ref_len)`` of the best
        reference (highest F, the first of equal ones).

        Parameters
        ----------
        hyp : str
            The output (may be empty: all zero).
        refs : sequence of str
            The item's references (at least one).
        **context
            Ignored (``target``, ``distractors``).
        """
        self.check_context(context)
        self.check_refs(refs)
        hyp_tokens = self.tokens(hyp)
        best: Stats = ()
        for ref in refs:
            ref_tokens = self.tokens(ref)
            lcs = lcs_length(ref_tokens, hyp_tokens)
            if lcs:
                p = lcs / len(hyp_tokens)
                r = lcs / len(ref_tokens)
                f = 2 * p * r / (p + r)
            else:
                p = r = f = 0.0
            stats = (f, p, r, lcs, len(hyp_tokens), len(ref_tokens))
            if not best or f > best[0]:
                best = stats
        return best

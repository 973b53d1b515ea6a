"""Word-string metrics based on exact match and edit distance.

String Accuracy (REFERENCE.md §8), string-edit distance SE with insertion and
deletion 1 and substitution 2 (§7, as in the TUNA-REG'09 report), SEB (§9) and
SE-norm (§7). All work on the word tokens of
:class:`~stecflow.metrics.text.TextNormaliser`; the edit distances come from
``rapidfuzz.distance.Levenshtein``, imported when a distance is first computed.

Names follow the seeds. ``seb`` is what ASGRE'07 and Belz & Gatt (2008, seed 002
§3.4, Tables 1 and 2) call SEB, "the version of string-edit distance of Bangalore
et al. (2000) which normalises for length": their Simple String Accuracy
``1 - (I + D + S) / R`` (REFERENCE.md §9), a similarity, higher is better (seed
002's SEB correlates positively with Dice and BLEU and negatively with SE).
``se_norm`` is a different measure, SE divided by a length (REFERENCE.md §7, the
length-normalised SE of GREC'10), a distance, lower is better. Earlier versions
of stecflow registered the first as ``ssa`` and the second as ``seb``; ``ssa``
is still accepted as a deprecated alias of ``seb`` (:mod:`stecflow.metrics.base`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from operator import itemgetter
from typing import Any, ClassVar, Literal

from stecflow.metrics.base import (
    CONTEXT_KEYS,
    Metric,
    Stats,
    check_choice,
    reduce_over_references,
    register_metric,
)
from stecflow.metrics.measure_types import MeasureType
from stecflow.metrics.text import Punctuation, TextMetricMixin, TextNormaliser

__all__ = [
    "SE",
    "SEB",
    "SE_NORMALISERS",
    "SE_WEIGHTS",
    "SSA",
    "SENorm",
    "StringAccuracy",
    "edit_distance",
    "normalised_edit_distance",
    "se_batch",
    "simple_string_accuracy",
    "token_table",
]

#: (insertion, deletion, substitution) costs of SE (TUNA-REG'09).
SE_WEIGHTS = (1, 1, 2)
#: Valid values of SE-norm's ``normaliser`` option.
SE_NORMALISERS: tuple[str, ...] = ("sum_lengths", "ref_length", "max_length")


def edit_distance(
    hyp: Sequence[str], ref: Sequence[str], weights: tuple[int, int, int] = SE_WEIGHTS
) -> int:
    """Weighted Levenshtein distance between two token sequences.

    A thin wrapper of ``rapidfuzz.distance.Levenshtein.distance`` (keyword-only
    ``weights`` in the order insertion, deletion, substitution). With the default
    weights (1, 1, 2) this is the Indel distance ``|h| + |r| - 2 LCS(h, r)``.

    Parameters
    ----------
    hyp, ref : sequence of str
        Token sequences (strings are compared character by character).
    weights : tuple of int, default (1, 1, 2)
        Insertion, deletion and substitution costs.

    Returns
    -------
    int
        The distance.

    Examples
    --------
    >>> edit_distance("the large red chair".split(), "the big red chair".split())
    2
    >>> edit_distance("lewenstein", "levenshtein")
    3
    """
    from rapidfuzz.distance import Levenshtein

    return int(Levenshtein.distance(hyp, ref, weights=weights))


def normalised_edit_distance(
    hyp: Sequence[str],
    ref: Sequence[str],
    normaliser: Literal["sum_lengths", "ref_length", "max_length"] = "sum_lengths",
) -> float:
    """SE (weights 1, 1, 2) divided by a length (REFERENCE.md §7).

    Parameters
    ----------
    hyp, ref : sequence of str
        Token sequences.
    normaliser : {"sum_lengths", "ref_length", "max_length"}, default "sum_lengths"
        ``sum_lengths``: ``|h| + |r|``, the maximum possible SE, so the result is
        in [0, 1] and equals rapidfuzz's ``normalized_distance`` with weights
        (1, 1, 2); ``ref_length``: ``|r|``; ``max_length``: ``max(|h|, |r|)``
        (result in [0, 2]).

    Returns
    -------
    float
        The normalised distance: 0.0 when both sequences are empty; ``nan`` for
        ``ref_length`` with an empty reference (undefined, like SSA's R = 0).

    Examples
    --------
    >>> normalised_edit_distance("the chair".split(), "the red chair".split())
    0.2
    >>> normalised_edit_distance("the chair".split(), "the red chair".split(),
    ...                          "ref_length")
    0.3333333333333333
    """
    check_choice("normaliser", normaliser, SE_NORMALISERS)
    dist = edit_distance(hyp, ref)
    if normaliser == "sum_lengths":
        denom = len(hyp) + len(ref)
    elif normaliser == "max_length":
        denom = max(len(hyp), len(ref))
    else:
        denom = len(ref)
        if denom == 0:
            return math.nan
    return dist / denom if denom else 0.0


def simple_string_accuracy(hyp: Sequence[str], ref: Sequence[str]) -> float:
    """Simple String Accuracy ``1 - (I + D + S) / R`` (Bangalore et al. 2000).

    ``I + D + S`` is the unit-cost Levenshtein distance and ``R`` the number of
    reference tokens: the item score of :class:`SEB` (REFERENCE.md §9 calls it
    SSA, seed 002 SEB). It is not bounded below by 0, and it is not ``1 - SE/R``.

    Parameters
    ----------
    hyp, ref : sequence of str
        Token sequences.

    Returns
    -------
    float
        SSA; ``nan`` if the reference is empty (R = 0 is undefined).

    References
    ----------
    Bangalore, S., Rambow, O. & Whittaker, S. (2000). Evaluation Metrics for
    Generation. INLG 2000.

    Examples
    --------
    >>> simple_string_accuracy("the large red chair".split(),
    ...                        "the big red chair".split())
    0.75
    >>> simple_string_accuracy("a b c d e".split(), ["x"])
    -4.0
    """
    if len(ref) == 0:
        return math.nan
    return 1.0 - edit_distance(hyp, ref, weights=(1, 1, 1)) / len(ref)


class TextMetric(TextMetricMixin, Metric):
    """Shared machinery of the word-string metrics.

    Every subclass also takes ``tokenise`` ({"words", "characters", "morphemes"},
    default "words"; :class:`~stecflow.metrics.text.TextMetricMixin`): with
    ``characters`` the distances count Japanese characters, as seed 000 measures
    its expressions.

    Examples
    --------
    >>> SE(tokenise="characters").score_segment("その三角形", ["その大きい三角形"])
    3.0
    """

    input_type: ClassVar[Literal["attributes", "text"]] = "text"

    def _tokens_all(
        self, hyp: str, refs: Sequence[str], context: dict[str, Any]
    ) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
        self.check_context(context)
        self.check_refs(refs)
        return self.tokens(hyp), [self.tokens(r) for r in refs]


_TEXT_FIELDS = (("lowercase", "case"), ("punctuation", "punct"))


@register_metric
class StringAccuracy(TextMetric):
    """String Accuracy: the output's tokens equal a reference's (REFERENCE.md §8).

    Per item 1 or 0; with several references ``multi_ref="any"`` (settled by the
    TUNA-REG'09 report) scores 1 if the output matches at least one. System
    score: mean over items.

    Parameters
    ----------
    multi_ref : {"any", "mean"}, default "any"
        How matches against several references are combined.
    lowercase : bool, default True
        Lower-case before comparing.
    punctuation : {"strip", "delete", "split", "keep"}, default "strip"
        Punctuation handling (:class:`~stecflow.metrics.text.TextNormaliser`).

    Examples
    --------
    >>> StringAccuracy().score_segment("The red chair.",
    ...                                ["the big chair", "the red chair"])
    1.0
    """

    name = "string_accuracy"
    display_name = "StringAccuracy"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "exact match with a reference word string",
        "string_similarity",
    )
    version = "1"
    signature_fields = (("multi_ref", "refs"), *_TEXT_FIELDS)

    def __init__(
        self,
        *,
        multi_ref: Literal["any", "mean"] = "any",
        lowercase: bool = True,
        punctuation: Punctuation = "strip",
    ) -> None:
        check_choice("multi_ref", multi_ref, ("any", "mean"))
        self.multi_ref = multi_ref
        self._init_text(lowercase, punctuation)

    def segment_stats(self, hyp: str, refs: Sequence[str], **context: Any) -> Stats:
        """Return ``(accuracy,)`` for one item."""
        h, rs = self._tokens_all(hyp, refs, context)
        return (reduce_over_references([int(h == r) for r in rs], self.multi_ref),)


@register_metric
class SE(TextMetric):
    """String-edit distance on word tokens, weights (1, 1, 2) (REFERENCE.md §7).

    Per item: :func:`edit_distance` to each reference, combined by ``multi_ref``
    (the mean of the pairwise scores, as settled by the TUNA-REG'09 report);
    system score: mean over items. Lower is better.

    Parameters
    ----------
    multi_ref : {"mean", "min", "max"}, default "mean"
        How distances to several references are combined.
    lowercase : bool, default True
        Lower-case before comparing.
    punctuation : {"strip", "delete", "split", "keep"}, default "strip"
        Punctuation handling.

    Examples
    --------
    >>> SE().score_segment("the large red chair",
    ...                    ["the big red chair", "the red chair facing left"])
    2.5
    """

    name = "se"
    display_name = "SE"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "string-edit distance to the reference word strings",
        "string_similarity",
    )
    version = "1"
    higher_is_better = False
    libraries = ("rapidfuzz",)
    signature_fields = (("multi_ref", "refs"), *_TEXT_FIELDS)

    def __init__(
        self,
        *,
        multi_ref: Literal["mean", "min", "max"] = "mean",
        lowercase: bool = True,
        punctuation: Punctuation = "strip",
    ) -> None:
        check_choice("multi_ref", multi_ref, ("mean", "min", "max"))
        self.multi_ref = multi_ref
        self._init_text(lowercase, punctuation)

    def signature_items(self) -> list[tuple[str, object]]:
        """Fields of the signature, with the fixed weights stated (``w:1,1,2``)."""
        return [*super().signature_items(), ("w", SE_WEIGHTS)]

    def segment_stats(self, hyp: str, refs: Sequence[str], **context: Any) -> Stats:
        """Return ``(se,)`` for one item."""
        h, rs = self._tokens_all(hyp, refs, context)
        return (
            reduce_over_references([edit_distance(h, r) for r in rs], self.multi_ref),
        )

    def corpus_stats(
        self,
        hyps: Sequence[str],
        refs: Sequence[Sequence[str]],
        contexts: Sequence[Mapping[str, Any]] | None = None,
    ) -> list[Stats]:
        """Statistics of every item, from rapidfuzz's batch API; same numbers.

        Equal to calling :meth:`segment_stats` per item (tested); SE is the metric
        every TUNA table reports, so its corpus path is one
        ``rapidfuzz.process.cpdist`` call per reference position
        (``Indel.distance``: Levenshtein with weights 1, 1, 2) on the texts'
        tokens, looked up in a table shared by the calls (:func:`token_table`,
        one character per token, so the same distances in rapidfuzz's string
        kernel).
        """
        self._check_lengths(hyps, refs, contexts)
        for context in contexts or ():
            if not context.keys() <= CONTEXT_KEYS:
                self.check_context(context)
        table = token_table(self._normaliser)
        table.tidy()
        try:
            distances = se_batch(hyps, refs, table, self.multi_ref)
        except (TypeError, ValueError):  # the item-by-item path names the problem
            distances = None
        if distances is None:
            return [self.segment_stats(h, r) for h, r in zip(hyps, refs, strict=True)]
        return list(zip(distances))


def se_batch(
    hyps: Sequence[str],
    refs: Sequence[Sequence[str]],
    tokens: Mapping[str, tuple[str, ...]],
    multi_ref: Literal["mean", "min", "max"] = "mean",
) -> list[float] | None:
    """SE of every item, combined over its references, in rapidfuzz batches.

    Parameters
    ----------
    hyps, refs : sequences
        One hypothesis and one list of references per item.
    tokens : mapping
        Text to its tokens: a sequence, or the one-character-per-token spelling
        of :func:`token_table`.
    multi_ref : {"mean", "min", "max"}
        How the distances to several references are combined.

    Returns
    -------
    list of float or None
        One value per item, equal to ``statistics.fmean`` (or ``min``/``max``) of
        the item's distances; None if an item's references are not a non-empty
        list of strings (the caller then reports the problem).
    """
    from rapidfuzz.distance import Indel
    from rapidfuzz.process import cpdist

    if not set(map(type, refs)) <= {list, tuple} and any(
        isinstance(item_refs, _NOT_REFS) for item_refs in refs
    ):
        return None
    n_refs = set(map(len, refs))
    if 0 in n_refs:
        return None
    if not hyps:
        return []
    lookup = tokens.__getitem__
    hyp_tokens = list(map(lookup, hyps))
    if len(n_refs) == 1:  # every item has k references: k batch calls
        (k,) = n_refs
        columns = [
            cpdist(
                hyp_tokens,
                list(map(lookup, map(itemgetter(j), refs))),
                scorer=Indel.distance,
            )
            for j in range(k)
        ]
        if multi_ref == "mean":
            total = columns[0].astype(float)
            for column in columns[1:]:
                total += column
            return (total / k).tolist()
        import numpy as np

        combine = np.min if multi_ref == "min" else np.max
        return combine(np.stack(columns), axis=0).astype(float).tolist()
    flat_hyps = [h for h, rs in zip(hyp_tokens, refs, strict=True) for _ in rs]
    flat_refs = [lookup(r) for rs in refs for r in rs]
    flat = cpdist(flat_hyps, flat_refs, scorer=Indel.distance).tolist()
    reduce = {"mean": statistics.fmean, "min": min, "max": max}[multi_ref]
    out = []
    start = 0
    for item_refs in refs:
        end = start + len(item_refs)
        out.append(float(reduce(flat[start:end])))
        start = end
    return out


#: What a list of references must not be (a single reference).
_NOT_REFS = (str, frozenset, set)


class _TokenTable(dict):
    """Text to its tokens spelt as one character each, filled on first look-up.

    Every distinct token gets a character of its own (the first token seen is
    ``chr(0)``, the next ``chr(1)``, ...), so the Indel distance of two encoded
    texts is the Indel distance of their token sequences, and rapidfuzz compares
    them with its string kernel instead of hashing each token.
    """

    def __init__(self, normaliser: TextNormaliser) -> None:
        super().__init__()
        self.normaliser = normaliser
        self.codes: dict[str, str] = {}

    def __missing__(self, text: str) -> str:
        codes = self.codes
        out = []
        for token in self.normaliser.tokens(text):
            code = codes.get(token)
            if code is None:
                if len(codes) >= _MAX_CODES:
                    raise ValueError("too many distinct tokens for one batch")
                code = codes[token] = chr(len(codes))
            out.append(code)
        encoded = self[text] = "".join(out)
        return encoded

    def tidy(self) -> None:
        """Empty the table between batches once it is large (never within one)."""
        if len(self) >= _TOKEN_TABLE_SIZE or len(self.codes) >= _MAX_CODES // 2:
            self.clear()
            self.codes.clear()


_TOKEN_TABLE_SIZE = 1 << 17
#: Characters available as token codes (every code point of Unicode).
_MAX_CODES = 0x110000
_TOKEN_TABLES: dict[TextNormaliser, _TokenTable] = {}


def token_table(normaliser: TextNormaliser) -> _TokenTable:
    """The shared table of encoded tokens of *normaliser* (for :func:`se_batch`).

    ``table[text]`` spells ``normaliser.tokens(text)`` with one character per
    distinct token (the same token, the same character), computed once per text;
    edit distances between encoded texts equal those between the token
    sequences. The table is emptied between batches once it holds 131,072 texts.
    A non-string raises TypeError.

    Examples
    --------
    >>> table = token_table(TextNormaliser())
    >>> len(table["The red chair."]), table["the chair"][1] == table["red chair"][1]
    (3, True)
    """
    table = _TOKEN_TABLES.get(normaliser)
    if table is None:
        table = _TOKEN_TABLES.setdefault(normaliser, _TokenTable(normaliser))
    return table


@register_metric
class SENorm(TextMetric):
    """SE-norm: string-edit distance divided by a length (REFERENCE.md §7).

    The length-normalised SE reported for GREC'10: SE with weights (1, 1, 2)
    divided by ``|h| + |r|`` (default; the largest possible SE, so values are in
    [0, 1]), by the reference length or by the longer length. A distance: lower
    is better. This is *not* seed 002's SEB (Bangalore et al.'s length-normalised
    string accuracy, higher is better), which is :class:`SEB`; stecflow called
    this measure ``seb`` before its names followed the seeds.

    Per item: :func:`normalised_edit_distance` to each reference, combined by
    ``multi_ref`` (undefined pairs, an empty reference under ``ref_length``, are
    ignored; an item with no defined pair is skipped and counted). System score:
    mean over items.

    Parameters
    ----------
    normaliser : {"sum_lengths", "ref_length", "max_length"}, default "sum_lengths"
        The length SE is divided by.
    multi_ref : {"mean", "min", "max"}, default "mean"
        How values for several references are combined.
    lowercase : bool, default True
        Lower-case before comparing.
    punctuation : {"strip", "delete", "split", "keep"}, default "strip"
        Punctuation handling.

    Examples
    --------
    >>> SENorm().score_segment("the chair", ["the red chair"])
    0.2
    >>> SENorm().signature().split("|version")[0]
    'SE-norm|norm:sum_lengths|refs:mean|case:lc|punct:strip'
    """

    name = "se_norm"
    display_name = "SE-norm"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "string-edit distance to the references, divided by a length",
        "string_similarity",
    )
    version = "1"
    higher_is_better = False
    libraries = ("rapidfuzz",)
    signature_fields = (("normaliser", "norm"), ("multi_ref", "refs"), *_TEXT_FIELDS)

    def __init__(
        self,
        *,
        normaliser: Literal["sum_lengths", "ref_length", "max_length"] = "sum_lengths",
        multi_ref: Literal["mean", "min", "max"] = "mean",
        lowercase: bool = True,
        punctuation: Punctuation = "strip",
    ) -> None:
        check_choice("normaliser", normaliser, SE_NORMALISERS)
        check_choice("multi_ref", multi_ref, ("mean", "min", "max"))
        self.normaliser = normaliser
        self.multi_ref = multi_ref
        self._init_text(lowercase, punctuation)

    def segment_stats(self, hyp: str, refs: Sequence[str], **context: Any) -> Stats:
        """Return ``(se_norm,)`` for one item (``nan`` if undefined)."""
        h, rs = self._tokens_all(hyp, refs, context)
        values = [normalised_edit_distance(h, r, self.normaliser) for r in rs]
        return (reduce_over_references(values, self.multi_ref),)


@register_metric
class SEB(TextMetric):
    """SEB: Bangalore et al.'s length-normalised string accuracy (REFERENCE.md §9).

    What seed 002 (§3.4, Tables 1 and 2) and ASGRE'07 report as SEB, "the
    version of string-edit distance of Bangalore et al. (2000) which normalises
    for length": Simple String Accuracy ``1 - (I + D + S) / R`` with unit costs
    and R the reference length. Higher is better; it is not bounded below by 0
    ("a b c d e" against "x" gives -4). Not to be confused with :class:`SENorm`
    (SE divided by a length, lower is better), which stecflow called ``seb``
    before version 2 of this metric; ``ssa``, this metric's old name, is a
    deprecated alias.

    Per item: :func:`simple_string_accuracy` with each reference, combined by
    ``multi_ref``; references with no tokens (R = 0) are ignored, and an item
    with no usable reference is skipped and counted (:meth:`Metric.summary`).
    System score: mean over the scored items.

    Parameters
    ----------
    multi_ref : {"mean", "max"}, default "mean"
        How values for several references are combined (REFERENCE.md §24,
        ``multi_ref.ssa``).
    lowercase : bool, default True
        Lower-case before comparing.
    punctuation : {"strip", "delete", "split", "keep"}, default "strip"
        Punctuation handling.

    References
    ----------
    Bangalore, S., Rambow, O. & Whittaker, S. (2000). Evaluation Metrics for
    Generation. INLG 2000.
    Belz, A. & Gatt, A. (2008). Intrinsic vs. Extrinsic Evaluation Measures for
    Referring Expression Generation. ACL-08: HLT short papers (seed 002).

    Examples
    --------
    >>> SEB().score_segment("the large red chair", ["the big red chair"])
    0.75
    >>> SEB().score_segment("the chair", ["the red chair"])
    0.6666666666666667
    >>> SEB().signature().split("|version")[0]
    'SEB|refs:mean|case:lc|punct:strip'
    """

    name = "seb"
    display_name = "SEB"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "length-normalised string accuracy (Bangalore et al.)",
        "string_similarity",
    )
    # 2: "seb" became seed 002's SEB (was the normalised distance, now se_norm)
    version = "2"
    libraries = ("rapidfuzz",)
    signature_fields = (("multi_ref", "refs"), *_TEXT_FIELDS)
    option_hint = (
        "seb is seed 002's SEB (Bangalore et al.'s length-normalised string"
        " accuracy, higher is better); the length-normalised SE distance with a"
        " normaliser is the metric se_norm"
    )

    def __init__(
        self,
        *,
        multi_ref: Literal["mean", "max"] = "mean",
        lowercase: bool = True,
        punctuation: Punctuation = "strip",
    ) -> None:
        check_choice("multi_ref", multi_ref, ("mean", "max"))
        self.multi_ref = multi_ref
        self._init_text(lowercase, punctuation)

    def segment_stats(self, hyp: str, refs: Sequence[str], **context: Any) -> Stats:
        """Return ``(seb,)`` for one item (``nan`` if no reference has tokens)."""
        h, rs = self._tokens_all(hyp, refs, context)
        values = [simple_string_accuracy(h, r) for r in rs]
        return (reduce_over_references(values, self.multi_ref),)


#: Deprecated: the class of seed 002's SEB under its old stecflow name.
SSA = SEB

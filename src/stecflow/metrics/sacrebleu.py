"""sacreBLEU's BLEU, chrF(++) and TER as stecflow metrics, computed by sacreBLEU.

Each class wraps one sacreBLEU metric object (``sacrebleu.metrics.BLEU``,
``CHRF``, ``TER``) built from the stecflow options, and lets it do all the work:
preprocessing, tokenisation, the statistics of one segment against its
references (``_extract_corpus_statistics``, sacreBLEU's own corpus path) and the
score from statistics (``_compute_score_from_stats``). As in
:mod:`stecflow.metrics.bleu`, a segment's statistics are sacreBLEU's per-segment
list, and the corpus score is computed from the statistics summed over items,
which is exactly what sacreBLEU's ``corpus_score`` does; so the values equal
sacreBLEU's command line on the same hypotheses and references, and bootstrap
resampling and significance tests re-aggregate statistics without re-reading text.

sacreBLEU 2.x has no public API for per-segment statistics, so the two methods
above are underscored ones; sacreBLEU's own ``significance.py`` calls the same two
for the same reason. They are called in one place each (:class:`SacreBLEUMetric`),
the dependency is pinned below sacreBLEU 3 (pyproject.toml), and the tests compare
every number with sacreBLEU's command line, so a change of them fails a test
rather than a score.

Registered names and options (sacreBLEU's names and defaults):

``bleu``
    ``tokenize`` (``13a`` | ``intl`` | ``zh`` | ``ja-mecab`` | ``char`` |
    ``none``; ``ja-mecab`` needs ``pip install sacrebleu[ja]``, i.e. the
    ``mecab-python3`` and ``ipadic`` packages, also in ``stecflow[japanese]``),
    ``lowercase``, ``smooth`` (``exp`` | ``floor`` | ``add-k`` | ``none``),
    ``smooth_value``, ``effective_order``. The item score is sacreBLEU's
    ``sentence_bleu`` (effective order on), the system score corpus BLEU.
``chrf``
    chrF++ by default: ``word_order`` (2; 0 gives chrF), ``char_order`` (6),
    ``beta`` (2), ``lowercase``, ``whitespace``, ``eps_smoothing``.
``ter``
    ``normalized``, ``no_punct``, ``asian_support``, ``case_sensitive``.

Scores are on sacreBLEU's 0-100 scale; TER is lower-is-better.

Signatures
----------
:meth:`Metric.signature` (stecflow's, a param of the scoring rule) holds
sacreBLEU's own signature fields in sacreBLEU's vocabulary, then stecflow's
version and sacreBLEU's version, e.g.
``BLEU|case:mixed|eff:no|tok:13a|smooth:exp|version:1|sacrebleu:2.6.0``.
:meth:`SacreBLEUMetric.sacrebleu_signature` returns sacreBLEU's own string
(``BLEU.get_signature()``), which also states the number of references
(``nrefs:2``, ``nrefs:var``): give it :func:`reference_count` of the test set's
references.

The ``scoring.text`` settings (lowercase, punctuation) of the REG string metrics do
not apply to these metrics (``shared_text_options = False``): their preprocessing is
sacreBLEU's, set by their own options, so that default settings give sacreBLEU's
default numbers.

May import: :mod:`stecflow.core.errors` (nothing of stecflow is needed); sacreBLEU
inside functions only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

from stecflow.metrics.base import (
    Metric,
    Stats,
    check_bool,
    check_choice,
    register_metric,
)
from stecflow.metrics.measure_types import MeasureType

__all__ = [
    "BLEU",
    "CHRF",
    "JA_MECAB_HINT",
    "SMOOTH_DEFAULTS",
    "TER",
    "TOKENIZERS",
    "SacreBLEUMetric",
    "ja_mecab_available",
    "reference_count",
]

#: The tokenisers the ``tokenize`` option of ``bleu`` accepts (sacreBLEU's names).
TOKENIZERS: tuple[str, ...] = ("13a", "intl", "zh", "ja-mecab", "char", "none")

#: sacreBLEU's smoothing methods and default values (``BLEU.SMOOTH_DEFAULTS``,
#: copied so that signatures need no import of sacreBLEU; a test compares them).
SMOOTH_DEFAULTS: dict[str, float | None] = {
    "exp": None,
    "floor": 0.1,
    "add-k": 1,
    "none": None,
}

#: What to install for ``tokenize: ja-mecab``.
JA_MECAB_HINT = (
    "tokenize 'ja-mecab' needs MeCab and its IPA dictionary: "
    "pip install sacrebleu[ja] (or pip install stecflow[japanese])"
)


def ja_mecab_available() -> bool:
    """True if sacreBLEU's ``ja-mecab`` tokeniser can be used (MeCab and ipadic).

    The two modules are imported (not only looked up), so that an installed but
    broken MeCab (e.g. without its shared library) counts as missing.

    Returns
    -------
    bool
        Whether ``import MeCab`` and ``import ipadic`` both succeed.
    """
    import importlib

    try:
        importlib.import_module("MeCab")
        importlib.import_module("ipadic")
    except Exception:  # ImportError, or OSError of a missing shared library
        return False
    return True


def reference_count(refs: Sequence[Sequence[str]]) -> int | Literal["var"]:
    """The number of references per item as sacreBLEU's signature states it.

    Parameters
    ----------
    refs : sequence of sequences of str
        Item-major references (``refs[i]``: item *i*'s references).

    Returns
    -------
    int or "var"
        The common number of references, or ``"var"`` if it varies by item.

    Examples
    --------
    >>> reference_count([["a", "b"], ["c", "d"]])
    2
    >>> reference_count([["a"], ["c", "d"]])
    'var'
    """
    counts = {len(r) for r in refs}
    if len(counts) == 1:
        return counts.pop()
    return "var"


def _stream_major(refs: Sequence[Sequence[str]]) -> list[list[str | None]]:
    """sacreBLEU's layout: one stream per reference position, ``None`` padding."""
    width = max((len(r) for r in refs), default=0)
    return [[r[k] if k < len(r) else None for r in refs] for k in range(max(width, 1))]


class SacreBLEUMetric(Metric):
    """Shared machinery: a sacreBLEU metric object does the computing.

    Subclasses set ``stat_names`` and implement :meth:`_make` (build the
    sacreBLEU object from the options) and :meth:`_stats_tuple` (sacreBLEU's
    segment list as a tuple of numbers).
    """

    input_type: ClassVar[Literal["attributes", "text"]] = "text"
    level: ClassVar[Literal["item", "corpus"]] = "corpus"
    libraries = ("sacrebleu",)
    version = "1"
    #: ``scoring.text`` does not set these metrics' options (module docstring).
    shared_text_options: ClassVar[bool] = False

    _sacrebleu_object: Any = None

    # -- the wrapped sacreBLEU object ----------------------------------------------

    def _make(self) -> Any:
        raise NotImplementedError

    @property
    def sacrebleu_metric(self) -> Any:
        """The wrapped sacreBLEU metric object (built on first use)."""
        if self._sacrebleu_object is None:
            self._sacrebleu_object = self._make()
        return self._sacrebleu_object

    def _segment_object(self) -> Any:
        """The sacreBLEU object that scores one item (override: sentence BLEU)."""
        return self.sacrebleu_metric

    # -- signatures --------------------------------------------------------------

    def sacrebleu_fields(self) -> list[tuple[str, object]]:
        """sacreBLEU's signature fields without ``nrefs`` and ``version``.

        Built without importing sacreBLEU (signatures are computed when the
        workflow is planned); a test checks them against sacreBLEU's own
        ``get_signature()``. Subclasses implement this.
        """
        raise NotImplementedError

    def sacrebleu_signature(self, n_refs: int | Literal["var"] = 1) -> str:
        """Return sacreBLEU's own signature string for these settings.

        This builds the sacreBLEU object and asks it (``get_signature()``), so
        the string is sacreBLEU's to the letter (with ``ja-mecab``, the MeCab
        version it reports).

        Parameters
        ----------
        n_refs : int or "var", default 1
            References per item (:func:`reference_count` of the test set).

        Returns
        -------
        str
            ``BLEU.get_signature().format()`` (or CHRF's, TER's), e.g.
            ``nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0``.

        Raises
        ------
        ValueError
            If *n_refs* is neither a positive integer nor ``"var"``.
        """
        if n_refs != "var" and (
            isinstance(n_refs, bool) or not isinstance(n_refs, int) or n_refs < 1
        ):
            raise ValueError(f"n_refs must be a positive integer or 'var': {n_refs!r}")
        obj = self.sacrebleu_metric
        args = dict(obj.__dict__)
        args["num_refs"] = -1 if n_refs == "var" else n_refs
        return obj._SIGNATURE_TYPE(args).format()

    def signature_items(self) -> list[tuple[str, object]]:
        """sacreBLEU's signature fields (:meth:`sacrebleu_fields`), in its
        vocabulary and order, so that stecflow's signature reads as sacreBLEU's
        without ``nrefs``."""
        return self.sacrebleu_fields()

    # -- statistics --------------------------------------------------------------

    def _stats_tuple(self, stats: Sequence[Any]) -> Stats:
        return tuple(int(x) for x in stats)

    def _check_text(self, hyp: Any, refs: Sequence[Any]) -> None:
        self.check_refs(refs)
        for text in (hyp, *refs):
            if not isinstance(text, str):
                raise TypeError(
                    f"{self.display_name}: expected strings, got {type(text).__name__}"
                )

    def segment_stats(self, hyp: str, refs: Sequence[str], **context: Any) -> Stats:
        """Return sacreBLEU's statistics of one segment against its references.

        Parameters
        ----------
        hyp : str
            The output (may be empty).
        refs : sequence of str
            The item's references (at least one).
        **context
            Ignored (``target``, ``distractors``).

        Returns
        -------
        tuple of numbers
            sacreBLEU's segment statistics, named by ``stat_names``.
        """
        self.check_context(context)
        self._check_text(hyp, refs)
        obj = self.sacrebleu_metric
        stats = obj._extract_corpus_statistics([hyp], [[r] for r in refs])
        return self._stats_tuple(stats[0])

    def corpus_stats(
        self,
        hyps: Sequence[Any],
        refs: Sequence[Sequence[Any]],
        contexts: Sequence[Mapping[str, Any]] | None = None,
    ) -> list[Stats]:
        """Return every item's statistics, through sacreBLEU's corpus path.

        References are passed to sacreBLEU stream-major, padded with ``None``
        where an item has fewer references (sacreBLEU's variable references).
        """
        self._check_lengths(hyps, refs, contexts)
        for i, (hyp, item_refs) in enumerate(zip(hyps, refs, strict=True)):
            if contexts is not None:
                self.check_context(contexts[i])
            self._check_text(hyp, item_refs)
        if not hyps:
            return []
        stats = self.sacrebleu_metric._extract_corpus_statistics(
            list(hyps), _stream_major(refs)
        )
        return [self._stats_tuple(s) for s in stats]

    def _score(self, summed: Sequence[float], obj: Any = None) -> float:
        obj = obj if obj is not None else self.sacrebleu_metric
        return float(obj._compute_score_from_stats(list(summed)).score)

    def _sum(self, stats: Sequence[Stats]) -> list[float]:
        return [sum(col) for col in zip(*stats, strict=True)]

    def aggregate(self, stats: Sequence[Stats]) -> float:
        """The corpus score from the summed statistics (sacreBLEU's corpus_score).

        Raises
        ------
        ValueError
            If *stats* is empty.
        """
        self._check_nonempty(stats)
        return self._score(self._sum(stats))

    def resample_scores(self, stats: Sequence[Stats], counts: Any) -> list[float]:
        """Corpus score of each bootstrap resample, from summed statistics."""
        import numpy as np

        totals = counts @ np.array(stats, dtype=np.float64)
        return [self._score(self._stats_tuple(row)) for row in totals]

    def score_from_stats(self, stats: Stats) -> float:
        """The item's own score (the item as a one-segment corpus)."""
        return self._score(stats, self._segment_object())


@register_metric
class BLEU(SacreBLEUMetric):
    """sacreBLEU's BLEU (REFERENCE.md §10, sacreBLEU's API).

    Parameters
    ----------
    tokenize : {"13a", "intl", "zh", "ja-mecab", "char", "none"}, default "13a"
        sacreBLEU's tokeniser. ``ja-mecab`` needs MeCab (see
        :data:`JA_MECAB_HINT`); without it the constructor raises ValueError.
    lowercase : bool, default False
        Lower-case before tokenising.
    smooth : {"exp", "floor", "add-k", "none"}, default "exp"
        sacreBLEU's ``smooth_method``.
    smooth_value : float, optional
        For ``floor`` (default 0.1) and ``add-k`` (default 1).
    effective_order : bool, default False
        Effective order for the corpus score; item scores always use it, as
        sacreBLEU's ``sentence_bleu`` does.

    Examples
    --------
    >>> bleu = BLEU()
    >>> round(bleu.corpus_score(["the cat sat on the mat"],
    ...                         [["the cat sat on a mat", "a cat sat on the mat"]]), 4)
    95.5443
    >>> bleu.signature().split("|version")[0]
    'BLEU|case:mixed|eff:no|tok:13a|smooth:exp'
    >>> bleu.sacrebleu_signature(2).rsplit("|version", 1)[0]
    'nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp'
    """

    name = "bleu"
    display_name = "BLEU"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "BLEU n-gram precision against the references (sacreBLEU)",
        "string_similarity",
    )
    max_ngram_order: ClassVar[int] = 4
    signature_fields = (
        ("tokenize", "tok"),
        ("lowercase", "case"),
        ("smooth", "smooth"),
        ("smooth_value", "smooth_value"),
        ("effective_order", "eff"),
    )
    stat_names = (
        "hyp_len",
        "ref_len",
        *(f"correct_{i}" for i in range(1, 5)),
        *(f"total_{i}" for i in range(1, 5)),
    )

    def __init__(
        self,
        *,
        tokenize: str = "13a",
        lowercase: bool = False,
        smooth: str = "exp",
        smooth_value: float | None = None,
        effective_order: bool = False,
    ) -> None:
        check_choice("tokenize", tokenize, TOKENIZERS)
        check_bool("lowercase", lowercase)
        check_choice("smooth", smooth, tuple(SMOOTH_DEFAULTS))
        if smooth_value is not None and (
            isinstance(smooth_value, bool) or not isinstance(smooth_value, int | float)
        ):
            raise ValueError(
                f"option smooth_value must be a number; got {smooth_value!r}"
            )
        check_bool("effective_order", effective_order)
        if tokenize == "ja-mecab" and not ja_mecab_available():
            raise ValueError(JA_MECAB_HINT)
        self.tokenize = tokenize
        self.lowercase = lowercase
        self.smooth = smooth
        self.smooth_value = smooth_value
        self.effective_order = effective_order
        self._sentence_object: Any = None

    @property
    def libraries(self) -> tuple[str, ...]:  # type: ignore[override]
        """sacreBLEU, and for ``ja-mecab`` the MeCab binding and its dictionary."""
        if self.tokenize == "ja-mecab":
            return ("sacrebleu", "mecab-python3", "ipadic")
        return ("sacrebleu",)

    def sacrebleu_fields(self) -> list[tuple[str, object]]:
        """``case``, ``eff``, ``tok``, ``smooth`` as sacreBLEU's BLEUSignature.

        For ``ja-mecab`` sacreBLEU's ``tok`` also names the MeCab version
        (``ja-mecab-0.996-IPA``); here it is ``ja-mecab``, and the versions of
        mecab-python3 and ipadic follow in the signature.
        """
        default = SMOOTH_DEFAULTS[self.smooth]
        smooth = self.smooth
        if default is not None:
            value = default if self.smooth_value is None else self.smooth_value
            smooth = f"{smooth}[{value:.2f}]"
        return [
            ("case", "lc" if self.lowercase else "mixed"),
            ("eff", self.effective_order),
            ("tok", self.tokenize),
            ("smooth", smooth),
        ]

    def _make(self, effective_order: bool | None = None) -> Any:
        from sacrebleu.metrics import BLEU as SacreBLEU

        return SacreBLEU(
            tokenize=self.tokenize,
            lowercase=self.lowercase,
            smooth_method=self.smooth,
            smooth_value=self.smooth_value,
            effective_order=(
                self.effective_order if effective_order is None else effective_order
            ),
            force=True,
        )

    def _segment_object(self) -> Any:
        if self._sentence_object is None:
            self._sentence_object = self._make(effective_order=True)
        return self._sentence_object


@register_metric
class CHRF(SacreBLEUMetric):
    """sacreBLEU's chrF, chrF++ by default (REFERENCE.md §10, sacreBLEU's API).

    Parameters
    ----------
    word_order : int, default 2
        Word n-gram order: 2 is chrF++, 0 is chrF (sacreBLEU's default is 0).
    char_order : int, default 6
        Character n-gram order.
    beta : int, default 2
        Weight of recall against precision.
    lowercase : bool, default False
        Case-insensitive.
    whitespace : bool, default False
        Keep whitespace in character n-grams.
    eps_smoothing : bool, default False
        sacreBLEU's epsilon smoothing (off: effective order, sacreBLEU's default).

    Examples
    --------
    >>> chrf = CHRF()
    >>> chrf.display_name, CHRF(word_order=0).display_name
    ('chrF++', 'chrF')
    >>> chrf.signature().split("|version")[0]
    'chrF++|case:mixed|eff:yes|nc:6|nw:2|space:no'
    """

    name = "chrf"
    display_name = "chrF++"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "character n-gram F-score against the references (sacreBLEU)",
        "string_similarity",
    )
    #: The default orders' statistics; an instance sets its own (``__init__``).
    stat_names = tuple(
        f"{kind}_{o}"
        for o in ("c1", "c2", "c3", "c4", "c5", "c6", "w1", "w2")
        for kind in ("hyp", "ref", "match")
    )
    signature_fields = (
        ("word_order", "nw"),
        ("char_order", "nc"),
        ("beta", "beta"),
        ("lowercase", "case"),
        ("whitespace", "space"),
        ("eps_smoothing", "eps"),
    )

    def __init__(
        self,
        *,
        word_order: int = 2,
        char_order: int = 6,
        beta: int = 2,
        lowercase: bool = False,
        whitespace: bool = False,
        eps_smoothing: bool = False,
    ) -> None:
        for option, value, low in (
            ("word_order", word_order, 0),
            ("char_order", char_order, 1),
            ("beta", beta, 1),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(
                    f"option {option} must be an integer >= {low}; got {value!r}"
                )
        check_bool("lowercase", lowercase)
        check_bool("whitespace", whitespace)
        check_bool("eps_smoothing", eps_smoothing)
        self.word_order = word_order
        self.char_order = char_order
        self.beta = beta
        self.lowercase = lowercase
        self.whitespace = whitespace
        self.eps_smoothing = eps_smoothing
        self.display_name = "chrF" + "+" * word_order  # sacreBLEU's CHRFScore name
        # ``hyp, ref, match`` per character order, then per word order
        orders = [f"c{n}" for n in range(1, char_order + 1)]
        orders += [f"w{n}" for n in range(1, word_order + 1)]
        self.stat_names = tuple(
            f"{kind}_{o}" for o in orders for kind in ("hyp", "ref", "match")
        )

    def _make(self) -> Any:
        from sacrebleu.metrics import CHRF as SacreCHRF

        return SacreCHRF(
            char_order=self.char_order,
            word_order=self.word_order,
            beta=self.beta,
            lowercase=self.lowercase,
            whitespace=self.whitespace,
            eps_smoothing=self.eps_smoothing,
        )

    def sacrebleu_fields(self) -> list[tuple[str, object]]:
        """``case``, ``eff``, ``nc``, ``nw``, ``space`` as CHRFSignature."""
        return [
            ("case", "lc" if self.lowercase else "mixed"),
            ("eff", not self.eps_smoothing),
            ("nc", self.char_order),
            ("nw", self.word_order),
            ("space", self.whitespace),
        ]

    def signature_items(self) -> list[tuple[str, object]]:
        """sacreBLEU's fields plus ``beta`` when it is not sacreBLEU's 2.

        sacreBLEU's chrF signature does not state beta (its score name does:
        chrF1 ...); stecflow's signature must, since beta changes the number.
        """
        items = self.sacrebleu_fields()
        if self.beta != 2:
            items.append(("beta", self.beta))
        return items


@register_metric
class TER(SacreBLEUMetric):
    """sacreBLEU's TER (REFERENCE.md §10, sacreBLEU's API); lower is better.

    The statistics of a segment are sacreBLEU's: the fewest edits to any of the
    references and the mean length of the references; the corpus TER is the sum
    of edits over the sum of mean reference lengths, times 100.

    Parameters
    ----------
    normalized : bool, default False
        Tercom's normalisation.
    no_punct : bool, default False
        Remove punctuation.
    asian_support : bool, default False
        Asian (CJK) handling for ``normalized`` and ``no_punct``.
    case_sensitive : bool, default False
        Keep case (TER lower-cases by default).

    Examples
    --------
    >>> ter = TER()
    >>> ter.corpus_score(["the cat sat on the mat"], [["the cat sat on a mat"]])
    16.666666666666664
    >>> ter.signature().split("|version")[0]
    'TER|case:lc|tok:tercom|norm:no|punct:yes|asian:no'
    """

    name = "ter"
    display_name = "TER"
    measure_type = MeasureType(
        "intrinsic",
        "automatic",
        "translation edit rate to the references (sacreBLEU)",
        "string_similarity",
    )
    higher_is_better = False
    signature_fields = (
        ("normalized", "norm"),
        ("no_punct", "no_punct"),
        ("asian_support", "asian"),
        ("case_sensitive", "case"),
    )
    stat_names = ("edits", "mean_ref_len")

    def __init__(
        self,
        *,
        normalized: bool = False,
        no_punct: bool = False,
        asian_support: bool = False,
        case_sensitive: bool = False,
    ) -> None:
        check_bool("normalized", normalized)
        check_bool("no_punct", no_punct)
        check_bool("asian_support", asian_support)
        check_bool("case_sensitive", case_sensitive)
        self.normalized = normalized
        self.no_punct = no_punct
        self.asian_support = asian_support
        self.case_sensitive = case_sensitive

    def sacrebleu_fields(self) -> list[tuple[str, object]]:
        """``case``, ``tok``, ``norm``, ``punct``, ``asian`` as TERSignature."""
        return [
            ("case", "mixed" if self.case_sensitive else "lc"),
            ("tok", "tercom"),
            ("norm", self.normalized),
            ("punct", not self.no_punct),
            ("asian", self.asian_support),
        ]

    def _make(self) -> Any:
        from sacrebleu.metrics import TER as SacreTER

        return SacreTER(
            normalized=self.normalized,
            no_punct=self.no_punct,
            asian_support=self.asian_support,
            case_sensitive=self.case_sensitive,
        )

    def _stats_tuple(self, stats: Sequence[Any]) -> Stats:
        return (int(stats[0]), float(stats[1]))

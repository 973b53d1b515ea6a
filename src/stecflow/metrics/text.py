"""Text normalisation and tokenisation shared by every word-string metric.

All string metrics work on word tokens, and systems and references must be
normalised identically (REFERENCE.md §1). The settings are not fixed by the
sources, so they are options of every string metric and appear in its signature
(``case:lc|punct:strip``). The default is: Unicode NFC, lower-case, punctuation
replaced by spaces, split on (and so collapse) whitespace.

Languages written without spaces (the Japanese of seed 000's REX-J corpus) need
another unit: the ``tokenise`` option makes every Han, Hiragana or Katakana
character a token of its own while Latin runs and digits stay words
(``characters``), or splits Japanese into morphemes with the optional ``janome``
package (``morphemes``). The option is shared by every text metric through
:class:`TextMetricMixin`, and a non-default value appears in the metric's
signature (``tokens:characters``). :func:`expression_length` counts the units.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from stecflow.metrics.base import check_bool, check_choice

__all__ = [
    "PUNCTUATION_MODES",
    "TOKENISE_MODES",
    "Punctuation",
    "TextNormaliser",
    "Tokenise",
    "expression_length",
    "is_cjk_char",
    "ngram_counts",
    "rouge155_tokens",
]

Punctuation = Literal["strip", "delete", "split", "keep"]
#: Valid values of the ``punctuation`` option.
PUNCTUATION_MODES: tuple[str, ...] = ("strip", "delete", "split", "keep")
Tokenise = Literal["words", "characters", "morphemes"]
#: Valid values of the ``tokenise`` option.
TOKENISE_MODES: tuple[str, ...] = ("words", "characters", "morphemes")

#: Code points of the scripts written without spaces that ``characters`` splits:
#: Han (CJK radicals, Kangxi radicals, the ideographic iteration and zero marks,
#: Hangzhou numerals, CJK Unified Ideographs with Extension A and the
#: supplementary-plane extensions, compatibility ideographs), Hiragana, Katakana
#: (with the phonetic extensions and the half-width forms). Unicode 15 blocks.
_CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x2E80, 0x2FDF),  # CJK Radicals Supplement, Kangxi Radicals
    (0x3005, 0x3007),  # 々 〆 〇
    (0x3021, 0x3029),  # Hangzhou numerals
    (0x3038, 0x303B),  # Han marks
    (0x3040, 0x309F),  # Hiragana
    (0x30A0, 0x30FF),  # Katakana (with ー)
    (0x31F0, 0x31FF),  # Katakana Phonetic Extensions
    (0x3400, 0x4DBF),  # CJK Unified Ideographs Extension A
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0xF900, 0xFAFF),  # CJK Compatibility Ideographs
    (0xFF66, 0xFF9F),  # Half-width Katakana
    (0x20000, 0x3134F),  # Extensions B-G, Compatibility Supplement
)
_CJK_RE = re.compile(
    "[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _CJK_RANGES) + "]"
)


def is_cjk_char(char: str) -> bool:
    """True if *char* is a Han, Hiragana or Katakana character.

    These are the characters that ``tokenise="characters"`` makes tokens of their
    own (the ranges are listed in ``_CJK_RANGES``). Japanese punctuation
    (、。「」) is not among them: it is punctuation, handled by ``punctuation``.

    Parameters
    ----------
    char : str
        One character.

    Returns
    -------
    bool

    Examples
    --------
    >>> [is_cjk_char(c) for c in "平がナA1。"]
    [True, True, True, False, False, False]
    """
    return _CJK_RE.fullmatch(char) is not None


def _is_punct(char: str) -> bool:
    return unicodedata.category(char).startswith("P")


@dataclass(frozen=True)
class TextNormaliser:
    """Turn a string into word tokens.

    Steps, in order: Unicode NFC; lower-casing (``lowercase``); punctuation
    handling (``punctuation``); splitting on any run of whitespace, which also
    drops leading and trailing whitespace. A punctuation character is any
    character of Unicode category ``P*`` (so ``-`` and ``'`` are punctuation,
    ``$`` and ``+`` are not).

    Parameters
    ----------
    lowercase : bool, default True
        Lower-case with :meth:`str.lower`.
    punctuation : {"strip", "delete", "split", "keep"}, default "strip"
        ``strip``: replace every punctuation character by a space ("top-left" ->
        ``top left``); ``delete``: remove it ("top-left" -> ``topleft``);
        ``split``: make it a token of its own, as mteval's tokeniser does
        ("chair." -> ``chair .``); ``keep``: leave it alone.
    tokenise : {"words", "characters", "morphemes"}, default "words"
        The last step. ``words``: split on whitespace only. ``characters``: as
        ``words``, but every Han, Hiragana and Katakana character
        (:func:`is_cjk_char`) is a token of its own, so Japanese and Chinese
        written without spaces are compared character by character while Latin
        runs and digits stay words ("3つのABC" -> ``3 つ の abc``); this is
        sacreBLEU's ``tokenize="zh"`` rule extended to kana (sacreBLEU's ``zh``
        leaves a kana run whole; its ``char`` splits Latin words too).
        ``morphemes``: split the whitespace words into Japanese morphemes with
        janome's dictionary (the optional extra ``stecflow[japanese]``); an
        ImportError names the extra if janome is not installed.

    Examples
    --------
    >>> TextNormaliser().tokens("  The  red chair, top-left. ")
    ('the', 'red', 'chair', 'top', 'left')
    >>> TextNormaliser(lowercase=False, punctuation="split").tokens("A chair.")
    ('A', 'chair', '.')
    >>> TextNormaliser().tokens("")
    ()
    >>> TextNormaliser(tokenise="characters").tokens("その平行四辺形、ABCの3つ")
    ('そ', 'の', '平', '行', '四', '辺', '形', 'abc', 'の', '3', 'つ')
    """

    lowercase: bool = True
    punctuation: Punctuation = "strip"
    tokenise: Tokenise = "words"

    def __post_init__(self) -> None:
        check_bool("lowercase", self.lowercase)
        check_choice("punctuation", self.punctuation, PUNCTUATION_MODES)
        check_choice("tokenise", self.tokenise, TOKENISE_MODES)

    def tokens(self, text: str) -> tuple[str, ...]:
        """Return the tokens of *text*.

        Parameters
        ----------
        text : str
            Any string, possibly empty.

        Returns
        -------
        tuple of str
            The word tokens (empty for an empty or all-punctuation string).

        Raises
        ------
        TypeError
            If *text* is not a string.
        """
        if not isinstance(text, str):
            raise TypeError(f"expected a string, got {type(text).__name__}")
        if self.tokenise == "words":
            return _tokens(text, self.lowercase, self.punctuation)
        return _split_tokens(text, self.lowercase, self.punctuation, self.tokenise)


@lru_cache(maxsize=1 << 16)
def _split_tokens(
    text: str, lowercase: bool, punctuation: str, tokenise: str
) -> tuple[str, ...]:
    """Word tokens of *text* split further into characters or morphemes."""
    words = _tokens(text, lowercase, punctuation)
    if tokenise == "characters":
        return tuple(" ".join(words).translate(_CJK_SPACED).split())
    split = _janome()
    return tuple(m for word in words for m in split(word))


class _CJKSpacer(dict):
    """A :meth:`str.translate` table putting spaces around every CJK character."""

    def __missing__(self, code: int) -> str | int:
        char = chr(code)
        value: str | int = f" {char} " if is_cjk_char(char) else code
        self[code] = value
        return value


_CJK_SPACED = _CJKSpacer()


@lru_cache(maxsize=1)
def _janome() -> Any:
    """janome's morpheme splitter (``wakati`` mode), loaded once on first use."""
    try:
        from janome.tokenizer import Tokenizer
    except ImportError:
        raise ImportError(
            "tokenise: morphemes needs the janome package: install the optional"
            " extra with pip install 'stecflow[japanese]', or use tokenise:"
            " characters"
        ) from None
    tokenizer = Tokenizer(wakati=True)

    def split(word: str) -> list[str]:
        return [str(m) for m in tokenizer.tokenize(word) if str(m).strip()]

    return split


def expression_length(
    text: str, unit: Literal["words", "characters"] = "words", **options: Any
) -> int:
    """Length of a (referring) expression in words or characters.

    Seed 000 (section 5.3.3) measures Japanese expressions in characters: the
    original expressions are "on average 2.72 (SD = 2.04) Japanese character
    longer" than the demonstrative pronoun replacing them, ``sore`` (それ), "two
    Japanese characters". ``unit="characters"`` counts, after normalisation,
    every character that is neither whitespace nor (under the default
    ``punctuation="strip"``) punctuation; ``unit="words"`` counts the tokens of
    :class:`TextNormaliser` (pass ``tokenise="characters"`` to count a Japanese
    expression's characters with Latin runs as one unit each).

    Parameters
    ----------
    text : str
        The expression.
    unit : {"words", "characters"}, default "words"
        What is counted.
    **options
        :class:`TextNormaliser` options (``lowercase``, ``punctuation``,
        ``tokenise``).

    Returns
    -------
    int
        The length (0 for an empty string).

    Examples
    --------
    >>> expression_length("それ", "characters")
    2
    >>> expression_length("平行四辺形", "characters")
    5
    >>> expression_length("the small triangle, left")
    4
    >>> expression_length("the small triangle", "characters")
    16
    """
    check_choice("unit", unit, ("words", "characters"))
    tokens = TextNormaliser(**options).tokens(text)
    if unit == "words":
        return len(tokens)
    return sum(len(token) for token in tokens)


@lru_cache(maxsize=1 << 16)
def _tokens(text: str, lowercase: bool, punctuation: str) -> tuple[str, ...]:
    """Tokenise *text*; cached, since every metric tokenises the same strings."""
    if text.isascii():  # fast path: a translation table of ASCII punctuation
        if lowercase:
            text = text.lower()
        if punctuation == "strip":
            text = text.encode("ascii").translate(_ASCII_STRIP).decode("ascii")
        elif punctuation == "delete":
            text = text.encode("ascii").translate(None, _ASCII_DELETE).decode("ascii")
        elif punctuation == "split":
            text = _ASCII_PUNCT_RE.sub(r" \g<0> ", text)
        return tuple(text.split())
    text = unicodedata.normalize("NFC", text)
    if lowercase:
        text = text.lower()
    if punctuation != "keep":
        replacement = {"strip": " ", "delete": "", "split": None}[punctuation]
        text = "".join(
            (f" {c} " if replacement is None else replacement) if _is_punct(c) else c
            for c in text
        )
    return tuple(text.split())


#: ASCII characters of Unicode category P* ($+<=>^`|~ are symbols, category S).
_ASCII_PUNCT = [chr(c) for c in range(128) if _is_punct(chr(c))]
_ASCII_DELETE = "".join(_ASCII_PUNCT).encode("ascii")
_ASCII_STRIP = bytes.maketrans(_ASCII_DELETE, b" " * len(_ASCII_DELETE))
_ASCII_PUNCT_RE = re.compile("[" + re.escape("".join(_ASCII_PUNCT)) + "]")


_ROUGE_NON_WORD = re.compile(r"[^A-Za-z0-9\-]")
_ROUGE_KEEP = re.compile(r"^[a-z0-9$]")


def rouge155_tokens(text: str) -> tuple[str, ...]:
    """Tokenise like ROUGE-1.5.5's preprocessing (REFERENCE.md §12).

    Lower-case; every character that is not an ASCII letter, digit or hyphen
    becomes a space; keep only tokens that start with a lower-case letter, a digit
    or ``$``.

    Parameters
    ----------
    text : str
        The raw string.

    Returns
    -------
    tuple of str
        The tokens.

    Examples
    --------
    >>> rouge155_tokens("The man's -beard, 2 chairs!")
    ('the', 'man', 's', '2', 'chairs')
    """
    lowered = _ROUGE_NON_WORD.sub(" ", text.lower())
    return tuple(tok for tok in lowered.split() if _ROUGE_KEEP.match(tok))


def ngram_counts(tokens: tuple[str, ...], max_order: int) -> dict[tuple[str, ...], int]:
    """Count the n-grams of orders 1..*max_order* of a token sequence.

    The dict's insertion order follows the text, so iterating over it is
    deterministic (no dependence on string hashing).

    Parameters
    ----------
    tokens : tuple of str
        The tokens.
    max_order : int
        The highest n-gram order.

    Returns
    -------
    dict
        n-gram (a tuple of tokens) to its count.

    Examples
    --------
    >>> ngram_counts(("a", "b", "a"), 2)
    {('a',): 2, ('b',): 1, ('a', 'b'): 1, ('b', 'a'): 1}
    """
    counts: dict[tuple[str, ...], int] = {}
    for n in range(1, max_order + 1):
        for i in range(len(tokens) - n + 1):
            gram = tokens[i : i + n]
            counts[gram] = counts.get(gram, 0) + 1
    return counts


class TextMetricMixin:
    """Options and tokenisation shared by the word-string metrics.

    Every text metric has the options ``lowercase``, ``punctuation`` and
    ``tokenise`` of :class:`TextNormaliser`. The first two are arguments of each
    metric's constructor; ``tokenise`` is added to every subclass here, so that
    the metrics of ``bleu``, ``nist``, ``rouge`` and ``strings`` all take it the
    same way: a subclass's ``__init__`` gains a keyword-only ``tokenise`` argument
    (default ``"words"``, stored before the original ``__init__`` runs, so that
    :meth:`_init_text` sees it), :meth:`option_names` lists it, and
    :meth:`signature` states a value other than ``words`` (``tokens:characters``)
    before any extra fields. The default adds nothing to a signature (nor to the
    ``repr``), so the signatures of existing campaigns do not change.

    ROUGE-1.5.5's own preprocessing (``rouge155_preprocess``) deletes every
    non-ASCII character, so it cannot be combined with another ``tokenise``
    value: that raises ValueError.
    """

    lowercase: bool
    punctuation: Punctuation
    tokenise: Tokenise
    _normaliser: TextNormaliser

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is None or getattr(init, "_adds_tokenise", False):
            return
        import functools
        import inspect

        params = list(inspect.signature(init).parameters.values())
        if "tokenise" in {p.name for p in params}:
            return
        params.append(
            inspect.Parameter(
                "tokenise",
                inspect.Parameter.KEYWORD_ONLY,
                default="words",
                annotation="Literal['words', 'characters', 'morphemes']",
            )
        )

        @functools.wraps(init)
        def __init__(self: Any, *args: Any, tokenise: Any = _UNSET, **kw: Any) -> None:
            if tokenise is not _UNSET or not hasattr(self, "tokenise"):
                value = "words" if tokenise is _UNSET else tokenise
                check_choice("tokenise", value, TOKENISE_MODES)
                self.tokenise = value
            init(self, *args, **kw)
            if getattr(self, "rouge155_preprocess", False) and self.tokenise != "words":
                raise ValueError(
                    "option tokenise must be words with rouge155_preprocess, which"
                    " deletes every non-ASCII character as ROUGE-1.5.5 does; got"
                    f" {self.tokenise!r}"
                )

        __init__.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            params, return_annotation=inspect.signature(init).return_annotation
        )
        __init__._adds_tokenise = True  # type: ignore[attr-defined]
        cls.__init__ = __init__  # type: ignore[misc]

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        """Return the options, ``tokenise`` last (see the class docstring)."""
        names = super().option_names()  # type: ignore[misc]
        return names if "tokenise" in names else (*names, "tokenise")

    def signature(self, extra: Mapping[str, object] | None = None) -> str:
        """The metric's signature, with ``tokens:<mode>`` unless words."""
        tokenise = getattr(self, "tokenise", "words")
        fields = {} if tokenise == "words" else {"tokens": tokenise}
        return super().signature({**fields, **(extra or {})})  # type: ignore[misc]

    def __repr__(self) -> str:
        """Options as constructor arguments; ``tokenise`` only when not words."""
        options = self.options()  # type: ignore[attr-defined]
        if options.get("tokenise") == "words":
            del options["tokenise"]
        args = ", ".join(f"{k}={v!r}" for k, v in options.items())
        return f"{type(self).__name__}({args})"

    def _init_text(self, lowercase: bool, punctuation: Punctuation) -> None:
        tokenise = getattr(self, "tokenise", "words")
        self._normaliser = TextNormaliser(
            lowercase=lowercase, punctuation=punctuation, tokenise=tokenise
        )
        self.lowercase = lowercase
        self.punctuation = punctuation
        self.tokenise = tokenise

    def tokens(self, text: str) -> tuple[str, ...]:
        """Return the tokens of *text* under this metric's normalisation."""
        return self._normaliser.tokens(text)

    def _signature_value(self, attr: str) -> object:
        if attr == "lowercase":
            return "lc" if self.lowercase else "mixed"
        return getattr(self, attr)


#: Marks an option that was not given.
_UNSET: Any = object()

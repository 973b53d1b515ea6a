"""Text normalisation and tokenisation shared by every word-string metric.

All string metrics work on word tokens, and systems and references must be
normalised identically (REFERENCE.md §1). The settings are not fixed by the
sources, so they are options of every string metric and appear in its signature
(``case:lc|punct:strip``). The default is: Unicode NFC, lower-case, punctuation
replaced by spaces, split on (and so collapse) whitespace.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from stecflow.metrics.base import check_bool, check_choice

__all__ = [
    "PUNCTUATION_MODES",
    "Punctuation",
    "TextNormaliser",
    "ngram_counts",
    "rouge155_tokens",
]

Punctuation = Literal["strip", "delete", "split", "keep"]
#: Valid values of the ``punctuation`` option.
PUNCTUATION_MODES: tuple[str, ...] = ("strip", "delete", "split", "keep")


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

    Examples
    --------
    >>> TextNormaliser().tokens("  The  red chair, top-left. ")
    ('the', 'red', 'chair', 'top', 'left')
    >>> TextNormaliser(lowercase=False, punctuation="split").tokens("A chair.")
    ('A', 'chair', '.')
    >>> TextNormaliser().tokens("")
    ()
    """

    lowercase: bool = True
    punctuation: Punctuation = "strip"

    def __post_init__(self) -> None:
        check_bool("lowercase", self.lowercase)
        check_choice("punctuation", self.punctuation, PUNCTUATION_MODES)

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
        return _tokens(text, self.lowercase, self.punctuation)


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
    """Options and tokenisation shared by the word-string metrics."""

    lowercase: bool
    punctuation: Punctuation
    _normaliser: TextNormaliser

    def _init_text(self, lowercase: bool, punctuation: Punctuation) -> None:
        self._normaliser = TextNormaliser(lowercase=lowercase, punctuation=punctuation)
        self.lowercase = lowercase
        self.punctuation = punctuation

    def tokens(self, text: str) -> tuple[str, ...]:
        """Return the tokens of *text* under this metric's normalisation."""
        return self._normaliser.tokens(text)

    def _signature_value(self, attr: str) -> object:
        if attr == "lowercase":
            return "lc" if self.lowercase else "mixed"
        return getattr(self, attr)

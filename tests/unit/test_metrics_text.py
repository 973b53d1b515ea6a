"""Text normalisation and tokenisation of the string metrics (REFERENCE.md §1)."""

from __future__ import annotations

import pytest

from stecflow.metrics import TextNormaliser
from stecflow.metrics.text import ngram_counts, rouge155_tokens


def test_default_normalisation():
    norm = TextNormaliser()
    assert norm.tokens("  The RED\tchair,\n facing left. ") == (
        "the",
        "red",
        "chair",
        "facing",
        "left",
    )
    assert norm.tokens("top-left") == ("top", "left")
    assert norm.tokens("") == ()
    assert norm.tokens(" ... ") == ()


@pytest.mark.parametrize(
    ("punctuation", "expected"),
    [
        ("strip", ("the", "man", "s", "top", "left", "chair")),
        ("delete", ("the", "mans", "topleft", "chair")),
        ("split", ("the", "man", "'", "s", "top", "-", "left", "chair", ".")),
        ("keep", ("the", "man's", "top-left", "chair.")),
    ],
)
def test_punctuation_modes(punctuation, expected):
    norm = TextNormaliser(punctuation=punctuation)
    assert norm.tokens("The man's top-left chair.") == expected


def test_case_option():
    assert TextNormaliser(lowercase=False).tokens("The Chair") == ("The", "Chair")


def test_unicode_is_nfc_normalised():
    composed = "caf\u00e9"
    decomposed = "cafe\u0301"
    norm = TextNormaliser()
    assert norm.tokens(composed) == norm.tokens(decomposed) == ("café",)


def test_invalid_options_and_inputs():
    with pytest.raises(ValueError, match="punctuation"):
        TextNormaliser(punctuation="remove")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="lowercase"):
        TextNormaliser(lowercase="yes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expected a string"):
        TextNormaliser().tokens(None)  # type: ignore[arg-type]


def test_rouge155_preprocessing():
    assert rouge155_tokens("The man's beard, -top- X2 $5") == (
        "the",
        "man",
        "s",
        "beard",
        "x2",
        "5",
    )


def test_ngram_counts_order_follows_the_text():
    counts = ngram_counts(("the", "red", "the", "red"), 3)
    assert list(counts)[:2] == [("the",), ("red",)]
    assert counts[("the", "red")] == 2
    assert counts[("red", "the", "red")] == 1
    assert ngram_counts((), 3) == {}


@pytest.mark.parametrize("punctuation", ["strip", "delete", "split", "keep"])
@pytest.mark.parametrize("lowercase", [True, False])
def test_ascii_fast_path_equals_the_unicode_path(punctuation, lowercase):
    """Every ASCII character is tokenised the same way by both code paths."""
    from stecflow.metrics.text import _tokens

    ascii_text = "".join(chr(c) for c in range(32, 127)) + " The Chair, (left)!"
    # A non-ASCII character forces the general path; it is a letter, kept as is.
    general = _tokens(ascii_text + " é", lowercase, punctuation)
    fast = _tokens(ascii_text, lowercase, punctuation)
    assert general == (*fast, "é")

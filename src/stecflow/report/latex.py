r"""Text for the report's LaTeX downloads: escaped, and ASCII wherever LaTeX allows.

Every LaTeX table the report offers compiles with pdflatex and with xelatex in a
document that loads ``booktabs``. :func:`latex_escape` escapes LaTeX's special
characters and writes the non-ASCII characters a table can hold as LaTeX
commands, so that the file is ASCII and needs no input encoding:

* symbols (``±``, ``×``, ``–``, ``—``, ``−``, ``≤``, ``≥``, ``≠``, ``≈``, ``…``,
  ``†``, quotes, superscript digits, ...) as text or math commands
  (``$\pm$``, ``--``, ``\dots{}``);
* Greek letters in math mode (``Δ`` as ``$\Delta$``, ``χ`` as ``$\chi$``; the
  capitals that look Latin as Latin capitals; tonos and dialytika as math
  accents, ``ά`` as ``$\acute{\alpha}$``);
* Latin letters with diacritics as accent commands on the base letter, from the
  letter's canonical decomposition (``é`` as ``\'{e}``, ``ő`` as ``\H{o}``,
  ``ı`` and ``ȷ`` dotless as ``\i{}``, ``\j{}`` under an accent), and the
  letters of their own (``ß``, ``æ``, ``ø``, ``ł``, ...) as their commands.

A few of those commands exist in pdflatex's T1 font encoding only (ogonek
``\k``, ``ð``, ``þ``, ``đ``, ``ŋ``, guillemets), not in its default OT1:
:func:`latex_needs` then asks for ``\usepackage[T1]{fontenc}`` (xelatex needs
nothing more). Every other character (Japanese, Cyrillic, Vietnamese letters,
emoji) is kept as it is, and :func:`latex_needs` says the table needs xelatex
(or lualatex) and, for Japanese, ``\usepackage{xeCJK}`` with a Japanese font:
pdflatex cannot set such text without per-script packages that a table cannot
choose for the document it goes into.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["latex_escape", "latex_needs"]

#: Characters written as a LaTeX command (not by decomposition).
LATEX_CHARACTERS = {
    # LaTeX's own specials
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    # punctuation and spaces
    "\u00a0": "~",
    "\u2009": r"\,",
    "\u202f": r"\,",
    "–": "--",
    "—": "---",
    "‐": "-",
    "‑": "-",
    "−": "-",
    "…": r"\dots{}",
    "‘": "`",
    "’": "'",
    "‚": ",",
    "“": "``",
    "”": "''",
    "„": ",,",
    "«": r"\guillemotleft{}",
    "»": r"\guillemotright{}",
    "‹": r"\guilsinglleft{}",
    "›": r"\guilsinglright{}",
    "¡": r"\textexclamdown{}",
    "¿": r"\textquestiondown{}",
    "†": r"\textdagger{}",
    "‡": r"\textdaggerdbl{}",
    "•": r"\textbullet{}",
    "·": r"$\cdot$",
    "§": r"\S{}",
    "¶": r"\P{}",
    "©": r"\copyright{}",
    "°": r"\textdegree{}",
    "¹": r"\textsuperscript{1}",
    "²": r"\textsuperscript{2}",
    "³": r"\textsuperscript{3}",
    # mathematical symbols
    "±": r"$\pm$",
    "×": r"$\times$",
    "÷": r"$\div$",
    "≤": r"$\leq$",
    "≥": r"$\geq$",
    "≠": r"$\neq$",
    "≈": r"$\approx$",
    "∞": r"$\infty$",
    "√": r"$\surd$",
    "∆": r"$\Delta$",
    "∑": r"$\sum$",
    "→": r"$\rightarrow$",
    "←": r"$\leftarrow$",
    "↑": r"$\uparrow$",
    "↓": r"$\downarrow$",
    "µ": r"$\mu$",
    # letters of their own
    "ß": r"\ss{}",
    "æ": r"\ae{}",
    "Æ": r"\AE{}",
    "œ": r"\oe{}",
    "Œ": r"\OE{}",
    "ø": r"\o{}",
    "Ø": r"\O{}",
    "ł": r"\l{}",
    "Ł": r"\L{}",
    "ı": r"\i{}",
    "ȷ": r"\j{}",
    "ð": r"\dh{}",
    "Ð": r"\DH{}",
    "þ": r"\th{}",
    "Þ": r"\TH{}",
    "đ": r"\dj{}",
    "Đ": r"\DJ{}",
    "ŋ": r"\ng{}",
    "Ŋ": r"\NG{}",
}

# Greek letters from U+03B1 and U+0391 on, as math commands (a capital that looks
# Latin as that Latin capital; "-": U+03A2, unassigned)
# fmt: off
_GREEK_LOWER = [
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota",
    "kappa", "lambda", "mu", "nu", "xi", "o", "pi", "rho", "varsigma", "sigma",
    "tau", "upsilon", "phi", "chi", "psi", "omega",
]
_GREEK_UPPER = [
    "A", "B", "Gamma", "Delta", "E", "Z", "H", "Theta", "I", "K", "Lambda", "M",
    "N", "Xi", "O", "Pi", "P", "-", "Sigma", "T", "Upsilon", "Phi", "X", "Psi",
    "Omega",
]
# fmt: on
for _n, _name in enumerate(_GREEK_LOWER):
    LATEX_CHARACTERS[chr(0x3B1 + _n)] = "o" if _name == "o" else rf"$\{_name}$"
for _n, _name in enumerate(_GREEK_UPPER):
    if _name != "-":
        LATEX_CHARACTERS[chr(0x391 + _n)] = _name if len(_name) == 1 else rf"$\{_name}$"

#: Combining marks (of a letter's canonical decomposition) as accent commands.
LATEX_ACCENTS = {
    "\u0300": "`",
    "\u0301": "'",
    "\u0302": "^",
    "\u0303": "~",
    "\u0304": "=",
    "\u0306": "u",
    "\u0307": ".",
    "\u0308": '"',
    "\u030a": "r",
    "\u030b": "H",
    "\u030c": "v",
    "\u0323": "d",
    "\u0327": "c",
    "\u0328": "k",
    "\u0331": "b",
}

#: Combining marks on Greek letters (tonos, dialytika, ...) as math accents.
_MATH_ACCENTS = {
    "\u0300": "grave",
    "\u0301": "acute",
    "\u0308": "ddot",
    "\u0303": "tilde",
    "\u0342": "tilde",
    "\u0304": "bar",
    "\u0306": "breve",
}

#: Commands that pdflatex has in the T1 font encoding only (not in OT1).
_T1_ONLY = re.compile(
    r"\\(?:k\{|dh\{|DH\{|th\{|TH\{|dj\{|DJ\{|ng\{|NG\{|guillemot|guilsingl)"
)
_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


def _decomposed(char: str) -> str | None:
    """*char* (a letter, maybe with combining marks after it) as accent commands
    on an ASCII letter (on a Greek letter: math accents), or None."""
    parts = unicodedata.normalize("NFD", char)
    base, marks = parts[0], parts[1:]
    if not marks:
        return None
    mapped = LATEX_CHARACTERS.get(base, base)
    if mapped.startswith("$"):  # a Greek letter
        if any(m not in _MATH_ACCENTS for m in marks):
            return None
        text = mapped.strip("$")
        for mark in marks:
            text = rf"\{_MATH_ACCENTS[mark]}{{{text}}}"
        return f"${text}$"
    base = mapped  # a Greek capital that looks Latin is that Latin letter
    if len(base) != 1 or not base.isascii() or not base.isalpha():
        return None
    if any(m not in LATEX_ACCENTS for m in marks):
        return None
    # an accent above i or j sits on the dotless letter
    above = marks[0] not in "\u0323\u0327\u0328\u0331"
    text = "\\" + base if base in "ij" and above else base
    for mark in marks:
        command = LATEX_ACCENTS[mark]
        text = f"\\{command}{{{text}}}"
    return text


#: A character and the combining marks after it (a letter such as ``z̧`` that
#: Unicode has no precomposed character of).
_CLUSTER = re.compile(r"[^\u0300-\u036f][\u0300-\u036f]*")


def _cluster(match: re.Match[str]) -> str:
    char = match.group()
    if char.isascii():
        return LATEX_CHARACTERS.get(char, char)
    mapped = LATEX_CHARACTERS.get(char)
    if mapped is not None:
        return mapped
    return _decomposed(char) or char


def latex_escape(text: str) -> str:
    r"""Escape *text* for LaTeX (text mode), writing non-ASCII as commands.

    Characters with no LaTeX command (Japanese, Cyrillic, ...) are kept; see
    :func:`latex_needs`.

    Examples
    --------
    >>> latex_escape("a_b & 50% † –")
    'a\\_b \\& 50\\% \\textdagger{} --'
    >>> print(latex_escape("Δ ±0.5 ≤ Gödel, Łódź, naïve"))
    $\Delta$ $\pm$0.5 $\leq$ G\"{o}del, \L{}\'{o}d\'{z}, na\"{\i}ve
    """
    if text.isascii() and not any(c in LATEX_CHARACTERS for c in text):
        return text
    return _CLUSTER.sub(_cluster, unicodedata.normalize("NFC", text))


def latex_needs(latex: str) -> list[str]:
    r"""What a LaTeX text made with :func:`latex_escape` needs beyond ``booktabs``,
    as comment lines (without the ``%``).

    Examples
    --------
    >>> latex_needs(latex_escape("é Δ"))
    []
    >>> latex_needs(latex_escape("Wąs"))
    ['needs \\usepackage[T1]{fontenc} with pdflatex (letters only T1 has)']
    >>> latex_needs(latex_escape("日本"))  # doctest: +NORMALIZE_WHITESPACE
    ['needs xelatex or lualatex (characters pdflatex cannot set: 日本),
      with \\usepackage{xeCJK} and a Japanese font for Japanese']
    """
    needs = []
    if _T1_ONLY.search(latex):
        needs.append(
            r"needs \usepackage[T1]{fontenc} with pdflatex (letters only T1 has)"
        )
    others = "".join(dict.fromkeys(c for c in latex if not c.isascii()))
    if others:
        line = (
            "needs xelatex or lualatex (characters pdflatex cannot set: "
            + (others if len(others) <= 20 else others[:20] + "…")
            + ")"
        )
        if _JAPANESE.search(others):
            line += r", with \usepackage{xeCJK} and a Japanese font for Japanese"
        needs.append(line)
    return needs

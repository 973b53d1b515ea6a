"""Characters no text read from outside may hold, found where they are.

XML 1.0 refuses NUL and the other C0 control characters but tab, line feed and
carriage return, the surrogate code points and U+FFFE/U+FFFF, so the XML path
never lets them in. JSON and YAML escapes (``"\\u0000"``, ``"\\ud800"``,
``"\\e"``) can spell every one of them, and a lone surrogate cannot even be
written as UTF-8: the first write of such a text fails, long after validation.
The readers of JSON and YAML (:mod:`stecflow.data._json`,
:mod:`stecflow.data.yamlsafe`, the collection server's bodies) refuse them with
:func:`bad_character` and :func:`find_bad_text`, as do the readers of text
files. They also refuse the two bidirectional *overrides* (U+202D LEFT-TO-RIGHT
OVERRIDE, U+202E RIGHT-TO-LEFT OVERRIDE), which make a page show text in another
order than it is written (the "Trojan source" trick); the embeddings and
isolates that right-to-left text needs stay allowed.

May import: the standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

__all__ = [
    "BAD_CHARACTERS",
    "bad_character",
    "describe_character",
    "escaped",
    "find_bad_text",
    "in_words",
    "strings_in",
]

#: The characters refused in text from outside (see the module's docs).
BAD_CHARACTERS = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff\u202d\u202e]"
)

_NAMES = {
    0x00: "NUL",
    0x07: "BEL",
    0x08: "BACKSPACE",
    0x0B: "VERTICAL TAB",
    0x0C: "FORM FEED",
    0x1B: "ESC",
    0x202D: "LEFT-TO-RIGHT OVERRIDE",
    0x202E: "RIGHT-TO-LEFT OVERRIDE",
}


def describe_character(char: str) -> str:
    """What *char* is and why it is refused, naming it as ``U+XXXX``.

    >>> describe_character("\\x00")
    'U+0000 (NUL, a control character)'
    >>> describe_character("\\ud800")
    'U+D800 (an unpaired surrogate, half of a UTF-16 pair: not a character)'
    """
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        what = "an unpaired surrogate, half of a UTF-16 pair: not a character"
    elif code in (0xFFFE, 0xFFFF):
        what = "a noncharacter"
    elif code in (0x202D, 0x202E):
        what = f"{_NAMES[code]}, which shows the text after it in another order"
    else:
        what = (
            f"{_NAMES[code]}, a control character"
            if code in _NAMES
            else ("a control character")
        )
    return f"U+{code:04X} ({what})"


def bad_character(text: str) -> str | None:
    """Why *text* cannot be taken (its first refused character), or None.

    >>> bad_character("greedy \\ud800 baseline")
    'character 8 is U+D800 (an unpaired surrogate, half of a UTF-16 pair: not a character); remove it'
    >>> bad_character("tab\\tand\\nline") is None
    True
    """  # noqa: E501
    match = BAD_CHARACTERS.search(text)
    if match is None:
        return None
    return (
        f"character {match.start() + 1} is {describe_character(match.group())};"
        " remove it"
    )


def escaped(text: str) -> str:
    """*text* with every refused character written as an escape, safe to show.

    >>> print(escaped("a\\ud800b\\x1b"))
    a\\ud800b\\u001b
    """
    return BAD_CHARACTERS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def find_bad_text(value: Any) -> tuple[tuple[Any, ...], str] | None:
    """``(path, reason)`` of the first text in JSON-like *value* (keys
    included) that :func:`bad_character` refuses, or None.

    The path lists the keys and list positions leading to it.

    >>> find_bad_text({"a": ["ok", "x\\x1by"]})
    (('a', 1), 'character 2 is U+001B (ESC, a control character); remove it')
    """
    found = _find(value, ())
    if found is None:
        return None
    path, text = found
    return path, bad_character(text)  # type: ignore[return-value]


def strings_in(value: Any) -> Iterator[str]:
    """Every string value in JSON-like *value* (mappings' values, lists, tuples).

    >>> list(strings_in({"a": ["x", 1, {"b": "y"}], "c": "z"}))
    ['x', 'y', 'z']
    """
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for child in value.values():
            yield from strings_in(child)
    elif isinstance(value, list | tuple):
        for child in value:
            yield from strings_in(child)


_SEARCH = BAD_CHARACTERS.search


def _find(value: Any, path: tuple[Any, ...]) -> tuple[tuple[Any, ...], str] | None:
    """One pass, texts checked in place: a path is built per list or mapping
    only (a GEM file of 400,000 outputs in a second)."""
    if isinstance(value, str):
        return (path, value) if _SEARCH(value) else None
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, (list, tuple)):
        items = enumerate(value)
    else:
        return None
    for key, child in items:
        if isinstance(key, str) and _SEARCH(key):
            return (*path, key), key
        if isinstance(child, str):
            if _SEARCH(child):
                return (*path, key), child
        elif isinstance(child, (dict, list, tuple)):
            found = _find(child, (*path, key))
            if found is not None:
                return found
    return None


def in_words(items: Sequence[str], last: str = "and") -> str:
    """*items* in a sentence: ``a``, ``a and b``, ``a, b and c`` (or *last*).

    >>> in_words(["a"]), in_words(["a", "b", "c"]), in_words(["a", "b"], "or")
    ('a', 'a, b and c', 'a or b')
    >>> in_words([])
    ''
    """
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {last} {items[-1]}"

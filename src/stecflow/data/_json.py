"""The guards of every JSON file stecflow reads from outside (private).

Shared by the situated-dialogue session and corpus files
(:mod:`stecflow.data.dialogue`) and the JSON Lines test sets and outputs files
(:mod:`stecflow.data.jsonl`): a size limit, no byte-order mark, UTF-8 only, a
nesting limit checked before parsing, no key given twice, no NaN or Infinity, no
number with a thousand digits; every refusal is a
:class:`~stecflow.core.errors.CorpusError` naming the file, the line and (where
there is one) the field. :class:`_Positions` finds the offset of any value by its
path, so that errors found after parsing still name their line.

May import: :mod:`stecflow.core`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from stecflow.core.errors import CorpusError
from stecflow.core.text import escaped, find_bad_text

__all__: list[str] = []


class _Duplicate(Exception):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _Duplicate(key)
        result[key] = value
    return result


class _Constant(Exception):
    pass


def _no_constant(name: str) -> Any:
    raise _Constant(name)


# A JSON string, matched with possessive quantifiers: ``(?:[^"\\]|\\.)*`` keeps a
# backtracking record per character (1.9 GB for a 15 MiB string, 1 GB for one
# of 7.5 million escapes); these keep none (a string never needs to give back
# what it matched).
_STRING = r'"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"'
_STRINGS = re.compile(_STRING)
_BRACKETS = re.compile(r"[\[\]{}]")
_CONSTANTS = re.compile(_STRING + r"|(-?(?:NaN|Infinity))")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
#: Text that may decode to a character :mod:`stecflow.core.text` refuses: an
#: escape of a C0 control or of a surrogate, or a bidirectional override (raw
#: control characters are not JSON, raw surrogates are not UTF-8).
_RAW_BAD = re.compile("[\u202d\u202e\ud800-\udfff]")
_MAYBE_BAD = re.compile(
    r"\\u(?:00[01]|[dD][89a-fA-F]|202[dDeE]|[fF]{3}[eEfF])|[\u202d\u202e\ud800-\udfff]"
)


def _check_depth(text: str, source: str, max_depth: int) -> None:
    """Refuse lists and objects nested deeper than *max_depth*, before parsing.

    Fewer brackets than the limit cannot nest deeper (one count in C: every
    line of an outputs.jsonl); otherwise the strings are emptied in C (they hold
    no line break, so lines keep their numbers) and only the brackets are
    walked: 4 million strings in a line took 9 s token by token.
    """
    if text.count("[") + text.count("{") <= max_depth:
        return
    bare = _STRINGS.sub('""', text) if '"' in text else text
    depth = 0
    for match in _BRACKETS.finditer(bare):
        if match.group() in "[{":
            depth += 1
            if depth > max_depth:
                raise CorpusError(
                    f"lists and objects nest more than {max_depth} levels deep",
                    file=source,
                    line=bare.count("\n", 0, match.start()) + 1,
                )
        else:
            depth -= 1


_SPACE = re.compile(r"[ \t\r\n]*")


def _find_duplicate(text: str) -> tuple[tuple[Any, ...], int] | None:
    """The path and offset of the first key given twice in one object of valid
    JSON *text* (parsed but for that), or None.

    Walks the tokens keeping only the current path: no record per value, so a
    file of millions of values is walked in bounded memory.
    """
    scanstring = json.decoder.scanstring  # type: ignore[attr-defined]

    def skip(i: int) -> int:
        return _SPACE.match(text, i).end()  # type: ignore[union-attr]

    def value(i: int, path: tuple[Any, ...]) -> int:
        i = skip(i)
        char = text[i]
        if char == "{":
            i = skip(i + 1)
            if text[i] == "}":
                return i + 1
            keys: set[str] = set()
            while True:
                key_at = skip(i)
                key, i = scanstring(text, key_at + 1)
                if key in keys:
                    raise _Duplicate((*path, key), key_at)
                keys.add(key)
                i = skip(value(skip(i) + 1, (*path, key)))
                if text[i] == "}":
                    return i + 1
                i += 1  # the comma
        if char == "[":
            i = skip(i + 1)
            if text[i] == "]":
                return i + 1
            n = 0
            while True:
                i = skip(value(i, (*path, n)))
                n += 1
                if text[i] == "]":
                    return i + 1
                i += 1
        if char == '"':
            return scanstring(text, i + 1)[1]
        for literal in ("true", "false", "null"):
            if text.startswith(literal, i):
                return i + len(literal)
        match = _NUMBER.match(text, i)
        assert match is not None, "valid JSON has a value here"
        return match.end()

    try:
        value(0, ())
    except _Duplicate as found:
        return found.args
    return None


class _Positions:
    """Where the values of valid JSON *text* are, found by path on demand.

    Only the containers on the paths asked for are walked, one level at a
    time: a member or element is stepped over by the C scanner, and the
    offsets of a container's children are kept (the key's offset for a
    member, the value's for an element). A question about one of a million
    cursor samples keeps a million offsets, not a record per number (the
    eager walk this replaces took 400 MB for a 15 MiB session).

    >>> text = '{"a": [1, {"b": 2}],\\n "c": 3}'
    >>> _Positions(text).offset(["a", 1, "b"])
    11
    >>> _Positions(text).offset(["c", "d"])
    22
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.scan = json.JSONDecoder().scan_once
        self.children: dict[tuple[Any, ...], Any] = {}

    def _skip(self, i: int) -> int:
        return _SPACE.match(self.text, i).end()  # type: ignore[union-attr]

    def _walk(self, i: int) -> Any:
        """The children of the value at *i*: {key: (key offset, value offset)}
        for an object, the value offsets for a list, None for a scalar."""
        text, skip = self.text, self._skip
        scanstring = json.decoder.scanstring  # type: ignore[attr-defined]
        char = text[i]
        if char not in "{[":
            return None
        members: dict[str, tuple[int, int]] = {}
        elements: list[int] = []
        i = skip(i + 1)
        if text[i] in "}]":
            return members if char == "{" else elements
        while True:
            if char == "{":
                key_at = skip(i)
                key, i = scanstring(text, key_at + 1)
                i = skip(skip(i) + 1)  # the colon
                members[key] = (key_at, i)
            else:
                i = skip(i)
                elements.append(i)
            i = skip(self.scan(text, i)[1])
            if text[i] in "}]":
                return members if char == "{" else elements
            i += 1  # the comma

    def offset(self, path: Sequence[Any]) -> int:
        """The offset of the value at *path*, or of its deepest part present."""
        at: tuple[Any, ...] = ()
        i = shown = self._skip(0)
        for part in path:
            if at not in self.children:
                self.children[at] = self._walk(i)
            kids = self.children[at]
            if isinstance(kids, dict) and isinstance(part, str) and part in kids:
                shown, i = kids[part]
            elif (
                isinstance(kids, list)
                and isinstance(part, int)
                and 0 <= part < len(kids)
            ):
                shown = i = kids[part]
            else:
                break
            at = (*at, part)
        return shown


def _field(path: Iterable[Any]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _decode(data: bytes, source: str, max_bytes: int) -> str:
    """The text of a file's bytes: size, byte-order mark and UTF-8 checked.

    >>> _decode(b"\\xef\\xbb\\xbf{}", "f.json", 100)
    Traceback (most recent call last):
    stecflow.core.errors.CorpusError: f.json, line 1: the file starts with a byte-order mark; save it as UTF-8 without one
    """  # noqa: E501
    if len(data) > max_bytes:
        raise CorpusError(
            f"file is {len(data):,} bytes; the limit is {max_bytes:,} bytes",
            file=source,
        )
    if data.startswith(b"\xef\xbb\xbf"):
        raise CorpusError(
            "the file starts with a byte-order mark; save it as UTF-8 without one",
            file=source,
            line=1,
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorpusError(
            "bytes are not valid UTF-8; save the file as UTF-8",
            file=source,
            line=data.count(b"\n", 0, exc.start) + 1,
        ) from None


def _parse_text(text: str, source: str, max_depth: int) -> Any:
    """The JSON value of *text*: depth, repeated keys, NaN and Infinity and
    overlong numbers checked; errors name the file and the line in *text*.

    >>> _parse_text('{"a": 1, "a": 2}', "f.json", 4)
    Traceback (most recent call last):
    stecflow.core.errors.CorpusError: f.json, line 1, a: key given twice; keep one
    """
    _check_depth(text, source, max_depth)
    try:
        value = json.loads(text, object_pairs_hook=_pairs, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise CorpusError(
            f"not valid JSON: {exc.msg}", file=source, line=exc.lineno
        ) from None
    except (_Duplicate, _Constant, ValueError) as exc:
        # Find where: the position scanner accepts what json rejected here.
        raise _located_refusal(text, source, exc) from None
    _check_characters(text, value, source)
    return value


def _check_characters(text: str, value: Any, source: str) -> None:
    """Refuse a text in *value* holding a character no text from outside may
    hold (:mod:`stecflow.core.text`), naming its line and field.

    >>> _check_characters('{"a": "\\\\ud800"}', {"a": "\\ud800"}, "f.json")
    Traceback (most recent call last):
    stecflow.core.errors.CorpusError: f.json, line 1, a: character 1 is U+D800 (an unpaired surrogate, half of a UTF-16 pair: not a character); remove it
    """  # noqa: E501
    offset = _bad_offset(text)  # one scan of the text; None: nothing refused
    if offset is None:
        return
    found = find_bad_text(value)
    if found is None:  # cannot be: the escape decodes to a refused character
        return
    path, reason = found
    shown = tuple(escaped(p) if isinstance(p, str) else p for p in path)
    line = text.count("\n", 0, offset) + 1
    raise CorpusError(reason, file=source, line=line, field=_field(shown) or None)


def _bad_offset(text: str) -> int | None:
    """Where in JSON *text* the first refused character is written (an escape
    or the character itself): the text is read in order, so it is the one
    :func:`~stecflow.core.text.find_bad_text` finds first. One scan of the
    text, without building the position of every value (an eager walk: 47 s
    and 380 MB for a GEM file of 400,000 outputs).

    >>> _bad_offset(r'{"a": "\\\\u0000 \\ud83d\\ude00", "b": "\\u001b"}')
    36
    """
    from stecflow.core.text import BAD_CHARACTERS

    if "\\u" not in text and not _RAW_BAD.search(text):
        return None  # (two scans in C, much faster than the one below)
    for match in _MAYBE_BAD.finditer(text):
        start = match.start()
        if match.group().startswith("\\"):
            before = start
            while before and text[before - 1] == "\\":
                before -= 1
            if (start - before) % 2:  # an escaped backslash, then a "u"
                continue
            code = int(text[start + 2 : start + 6], 16)
            if 0xD800 <= code <= 0xDBFF and re.match(
                r"\\u[dD][c-fC-F][0-9a-fA-F]{2}", text[start + 6 : start + 12]
            ):
                continue  # a surrogate pair: one character
            if 0xDC00 <= code <= 0xDFFF and re.match(
                r"\\u[dD][89abAB][0-9a-fA-F]{2}$", text[start - 6 : start]
            ):
                continue  # the second half of a pair
            if not BAD_CHARACTERS.match(chr(code)):
                continue  # a tab, a line break
        return start
    return None


def _parse(data: bytes, source: str, max_bytes: int, max_depth: int) -> tuple[str, Any]:
    """The text and the JSON value of a file's bytes, with every guard
    (:func:`_decode`, :func:`_parse_text`); errors name the file and line."""
    text = _decode(data, source, max_bytes)
    return text, _parse_text(text, source, max_depth)


def _located_refusal(text: str, source: str, exc: Exception) -> CorpusError:
    """The error for what json refused after parsing: where it is, in words."""
    if isinstance(exc, _Duplicate):
        found = _find_duplicate(text)
        if found is not None:
            path, offset = found
            return CorpusError(
                "key given twice; keep one",
                file=source,
                line=text.count("\n", 0, offset) + 1,
                field=_field(path),
            )
        return CorpusError(f"key {exc.args[0]!r} given twice; keep one", file=source)
    if isinstance(exc, _Constant):
        for match in _CONSTANTS.finditer(text):
            if match.group(1):
                return CorpusError(
                    f"{match.group(1)} is not a number JSON allows; write a finite"
                    " number",
                    file=source,
                    line=text.count("\n", 0, match.start()) + 1,
                )
    match = re.search(r"\d{1000,}", text)
    return CorpusError(
        "a number has too many digits" if match else f"not valid JSON: {exc}",
        file=source,
        line=text.count("\n", 0, match.start()) + 1 if match else None,
    )


def _line_finder(text: str) -> Any:
    """The line of the value at a path of valid JSON *text* (or of its deepest
    part present), found on demand (:class:`_Positions`)."""
    positions: _Positions | None = None

    def line(path: Sequence[Any]) -> int | None:
        nonlocal positions
        if positions is None:
            positions = _Positions(text)
        return text.count("\n", 0, positions.offset(path)) + 1

    return line

"""JSON Lines files: the hardened line reader and the test set of text tasks.

Owns the reading of JSON Lines (one JSON value per line, UTF-8) with the guards of
every JSON file stecflow reads (:mod:`stecflow.data._json`: a size limit, no
byte-order mark, UTF-8 only, a nesting limit, no key given twice, no NaN or
Infinity), each error naming the file and the line: :func:`parse_lines` yields
every line's value or its error (for submissions, which report every problem),
:func:`load_jsonl` stops at the first error (for the organisers' own files).

It also owns the test-set line format of the text-generation task
(:func:`load_testset`, :func:`read_testset`)::

    {"id": "t0001", "input": <text | [["subj", "pred", "obj"], ...] | object>,
     "references": ["ref one", "ref two"], "meta": {"category": "Chair"}}

``id``: a non-empty string of at most :data:`MAX_ID_CHARS` characters, without
surrounding spaces, tabs, line breaks or other control characters, unique in the
file (IDs such as WebNLG's ``Id12`` or GEM's ``web_nlg_en-test-3`` fit; it is
not restricted to the folder IDs of :mod:`stecflow.core.ids` because items are
never file names). ``input``: a non-empty string (``kind`` ``"text"``), a
non-empty list of ``[subject, predicate, object]`` string triples
(``"triples"``) or any JSON object (``"json"``). ``references``: one or more
non-empty strings. ``meta`` (optional): a flat object whose values are strings
(e.g. ``category``, ``seen``). No other key. The reader stops at the first
error, naming the file, line and field and what was expected.

May import: :mod:`stecflow.core`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stecflow.core.errors import CorpusError
from stecflow.data._json import _decode, _parse_text

__all__ = [
    "KEYS",
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_ID_CHARS",
    "TestRecord",
    "check_id",
    "load_jsonl",
    "load_testset",
    "parse_lines",
    "read_testset",
    "split_lines",
]

#: Largest JSON Lines test set read, in bytes.
MAX_BYTES = 256 * 1024 * 1024
#: Deepest nesting of lists and objects in one line (an object input may nest).
MAX_DEPTH = 32
#: Longest item ID, in characters.
MAX_ID_CHARS = 256
#: The keys of a test-set line; ``meta`` may be left out.
KEYS = ("id", "input", "references", "meta")

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class TestRecord:
    """One test-set line, checked.

    ``input`` is in its hashable form: the text (``kind`` ``"text"``), a tuple of
    ``(subject, predicate, object)`` tuples (``"triples"``), or the object as
    canonical JSON text, keys sorted (``"json"``). ``meta`` holds sorted
    ``(field, value)`` pairs; ``line`` is the line of the file.
    """

    __test__ = False  # not a pytest test class

    id: str
    kind: str
    input: Any
    references: tuple[str, ...]
    meta: tuple[tuple[str, str], ...]
    line: int


def split_lines(text: str) -> list[str]:
    """The lines of *text* (``\\n`` or ``\\r\\n`` ends; a last newline ends a line).

    >>> split_lines('{"a": 1}\\r\\n{"a": 2}\\n')
    ['{"a": 1}', '{"a": 2}']
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def parse_lines(
    text: str, source: str, *, max_depth: int = MAX_DEPTH, skip_blank: bool = False
) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for every line of *text*, never raising.

    A line that is not one JSON value (or breaks a guard: depth, a key given
    twice, NaN) yields its :class:`~stecflow.core.errors.CorpusError` as the
    value, with the line of the file; a blank line yields a ``CorpusError``
    saying so, or nothing with *skip_blank*.

    >>> [(n, v) for n, v in parse_lines('{"id": "a"}\\n[1, 2]\\n', "f.jsonl")]
    [(1, {'id': 'a'}), (2, [1, 2])]
    >>> n, error = list(parse_lines('{"id": "a"}\\n{"id": NaN}', "f.jsonl"))[1]
    >>> str(error)
    'f.jsonl, line 2: NaN is not a number JSON allows; write a finite number'
    """
    for n, line in enumerate(split_lines(text), start=1):
        if not line.strip():
            if skip_blank:
                continue
            yield (
                n,
                CorpusError(
                    "blank line; give one JSON object per line, without blank lines",
                    file=source,
                    line=n,
                ),
            )
            continue
        try:
            yield n, _parse_text(line, source, max_depth)
        except CorpusError as exc:  # the guards count lines from 1: this line
            yield n, CorpusError(exc.message, file=source, line=n, field=exc.field)


def load_jsonl(
    data: bytes,
    source: str,
    *,
    max_bytes: int = MAX_BYTES,
    max_depth: int = MAX_DEPTH,
) -> list[tuple[int, Any]]:
    """``(line number, value)`` of every line of a JSON Lines file's bytes.

    Raises
    ------
    CorpusError
        At the first problem, naming the file and line: over *max_bytes*, a
        byte-order mark, bytes that are not UTF-8, a blank line, a line that is
        not JSON, nests deeper than *max_depth*, gives a key twice or holds NaN
        or Infinity.

    >>> load_jsonl(b'{"id": "a"}\\n{"id": "b", "id": "c"}\\n', "t.jsonl")
    Traceback (most recent call last):
    stecflow.core.errors.CorpusError: t.jsonl, line 2, id: key given twice; keep one
    """
    text = _decode(data, source, max_bytes)
    values = []
    for n, value in parse_lines(text, source, max_depth=max_depth):
        if isinstance(value, CorpusError):
            raise value
        values.append((n, value))
    return values


def check_id(value: Any) -> str | None:
    """Why *value* cannot be an item ID (see the module's docs), or None.

    >>> check_id("web_nlg_en-test-3") is None
    True
    >>> check_id(" t1")
    "' t1' has spaces around it; remove them"
    """
    if not isinstance(value, str):
        return f"expected a string, got {_shown(value)}"
    if not value:
        return "the ID is empty; give every item an ID"
    if len(value) > MAX_ID_CHARS:
        return f"the ID has {len(value):,} characters; the limit is {MAX_ID_CHARS}"
    if value != value.strip():
        return f"{value!r} has spaces around it; remove them"
    if _CONTROL.search(value):
        return f"{value!r} holds a tab, a line break or a control character"
    return None


def _shown(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:37] + "...")
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return f"an object of {len(value)} keys"
    return type(value).__name__


def _input(value: Any) -> tuple[str, Any] | str:
    """``(kind, hashable form)`` of a line's input, or why it is not one."""
    import json

    if isinstance(value, str):
        if not value.strip():
            return "the input text is empty"
        return "text", value
    if isinstance(value, dict):
        return "json", json.dumps(
            value, sort_keys=True, ensure_ascii=False, separators=(",", ":")
        )
    if isinstance(value, list):
        if not value:
            return "the list of triples is empty; give at least one"
        triples = []
        for n, triple in enumerate(value):
            if not (
                isinstance(triple, list)
                and len(triple) == 3
                and all(isinstance(part, str) for part in triple)
            ):
                return (
                    f"input[{n}] is {_shown(triple)}; a triple is a list of three"
                    ' strings, ["subject", "predicate", "object"]'
                )
            triples.append(tuple(triple))
        return "triples", tuple(triples)
    return (
        f"expected a text, a list of [subject, predicate, object] triples or an"
        f" object, got {_shown(value)}"
    )


def _record(value: Any, n: int, source: str, seen: dict[str, int]) -> TestRecord:
    def error(message: str, field: str | None = None) -> CorpusError:
        return CorpusError(message, file=source, line=n, field=field)

    if not isinstance(value, dict):
        raise error(
            f"expected an object {{id, input, references, meta}}, got {_shown(value)}"
        )
    unknown = sorted(set(value) - set(KEYS))
    if unknown:
        raise error(
            f"unknown key {', '.join(map(repr, unknown))} (the keys are:"
            f" {', '.join(KEYS)})",
            unknown[0],
        )
    if "id" not in value:
        raise error("no id; give every item an ID", "id")
    problem = check_id(value["id"])
    if problem:
        raise error(problem, "id")
    item_id = value["id"]
    if item_id in seen:
        raise error(
            f"ID {item_id!r} again (first on line {seen[item_id]}); give every item"
            " its own ID",
            "id",
        )
    if "input" not in value:
        raise error("no input; give the item's input", "input")
    parsed = _input(value["input"])
    if isinstance(parsed, str):
        raise error(parsed, "input")
    kind, input_value = parsed
    references = value.get("references")
    if not isinstance(references, list) or not references:
        got = "none" if "references" not in value else _shown(references)
        raise error(
            f"expected a list of one or more reference texts, got {got}", "references"
        )
    for r, reference in enumerate(references):
        if not isinstance(reference, str) or not reference.strip():
            raise error(
                f"expected a non-empty text, got {_shown(reference)}",
                f"references[{r}]",
            )
    meta = value.get("meta", {})
    if not isinstance(meta, dict):
        raise error(f"expected an object of texts, got {_shown(meta)}", "meta")
    for key, field_value in meta.items():
        if not key.strip():
            raise error("a meta field needs a name", "meta")
        if not isinstance(field_value, str):
            raise error(
                'meta is a flat object of texts (e.g. {"category": "Chair"}), got'
                f" {_shown(field_value)}",
                f"meta.{key}",
            )
    seen[item_id] = n
    return TestRecord(
        item_id,
        kind,
        input_value,
        tuple(references),
        tuple(sorted(meta.items())),
        n,
    )


def load_testset(
    data: bytes, source: str, *, max_bytes: int = MAX_BYTES
) -> tuple[TestRecord, ...]:
    """The items of a JSON Lines test set's bytes (format: the module's docs).

    Raises
    ------
    CorpusError
        At the first problem, with the file, the line and the field: the guards
        of :func:`load_jsonl`, then a line that is not an object, an unknown key,
        a missing or empty ``id``, an ``id`` given on an earlier line (naming
        it), ``references`` missing, empty or not texts, an ``input`` that is
        neither a text, a list of triples nor an object, a ``meta`` that is not a
        flat object of texts; or a file without items.

    Examples
    --------
    >>> data = (b'{"id": "t1", "input": [["A", "b", "C"]], "references": ["A b C."]}\\n'
    ...         b'{"id": "t1", "input": "x", "references": ["y"]}\\n')
    >>> load_testset(data, "test.jsonl")
    Traceback (most recent call last):
    stecflow.core.errors.CorpusError: test.jsonl, line 2, id: ID 't1' again (first on line 1); give every item its own ID
    >>> load_testset(data.split(b"\\n")[0], "test.jsonl")[0].input
    (('A', 'b', 'C'),)
    """  # noqa: E501
    seen: dict[str, int] = {}
    records = [
        _record(value, n, source, seen)
        for n, value in load_jsonl(data, source, max_bytes=max_bytes)
    ]
    if not records:
        raise CorpusError("the test set holds no item", file=source)
    return tuple(records)


def read_testset(
    path: str | Path, *, max_bytes: int = MAX_BYTES
) -> tuple[TestRecord, ...]:
    """Read a JSON Lines test set with :func:`load_testset` (size checked first).

    Raises
    ------
    CorpusError
        As :func:`load_testset`, or the file cannot be read.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise CorpusError(
                f"file is {size:,} bytes; the limit is {max_bytes:,} bytes",
                file=str(path),
            )
        data = path.read_bytes()
    except OSError as exc:
        raise CorpusError(
            f"cannot read the file ({exc.strerror})", file=str(path)
        ) from None
    return load_testset(data, str(path), max_bytes=max_bytes)

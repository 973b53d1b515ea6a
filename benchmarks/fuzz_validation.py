"""Mutation fuzzer of submission validation: hostile and broken files, one by one.

Starts from a valid submission of the demo campaign (``organisers/incremental``:
112 items, both outputs) and makes seeded mutations of its ``outputs.xml`` and
``system.yaml``:

* **preserving** mutations keep the submission valid and its outputs equal
  (reordered TRIALs and ATTRIBUTEs, comments, processing instructions, CDATA,
  other indentation, UTF-8/16/32 with a byte-order mark); the case must stay
  accepted with the same outputs;
* **destructive** mutations may break it (byte flips, insertions and deletions,
  truncation, deleted, duplicated and renamed elements, entity, DTD, XInclude
  and parameter-entity injections, wrong or missing encoding declarations,
  UTF-16 without a byte-order mark, stray attributes, deep nesting, huge values,
  broken or hostile YAML); the case may be accepted or rejected.

The same run draws cases of the other readers (about a third of them): the
text-generation task's ``outputs.jsonl``, ``outputs.txt`` and GEM-style
``outputs.json`` (from the text demo's ``organisers/template``), with their own
preserving mutations (CRLF line ends, ASCII-only JSON with surrogate-pair
escapes, reordered lines) and destructive ones. Every reader gets **escape**
mutations: lone surrogates, NUL, ESC and other C0 controls and the
bidirectional overrides, written as JSON escapes (``\ud800``), YAML escapes
(``"\\e"``), XML character references (``&#x202E;``) or raw bytes; and
**encoding-declaration** mutations: an XML declaration naming UTF-16 or UTF-32
on UTF-8 bytes (and the reverse), a byte-order mark that disagrees with the
declaration, JSON or YAML saved as UTF-16 or Latin-1. A case carrying such a
character must be rejected (its text could not be written, or would reach a
page), never accepted and never an internal error.

Each case is validated in a forked child, so its time and peak memory (the
child's maximum resident set size, interpreter and libraries included) are its
own. A case *fails* if validation raises, records an ``internal_error``, takes
longer than ``--max-seconds`` or more than ``--max-mb``, or (preserving cases)
is rejected or reads different outputs. Run from the repository::

    python benchmarks/fuzz_validation.py --cases 2000 --seed 13
    python benchmarks/fuzz_validation.py --cases 2000 --record   # append to README

The test suite runs a small seeded sample of the same cases
(``tests/unit/test_fuzz_validation.py``).
"""

from __future__ import annotations

import argparse
import codecs
import functools
import json
import os
import platform
import random
import re
import resource
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
BASE = REPO / "submissions" / "organisers" / "incremental"
TESTSET = REPO / "resources" / "demo" / "test.xml"
TASKS = ["attribute_selection", "realisation", "end_to_end"]
#: The text-generation readers' base case and test set.
TEXT_BASE = REPO / "resources" / "text-demo" / "submissions" / "organisers" / "template"
TEXT_TESTSET = REPO / "resources" / "text-demo" / "test.jsonl"
TEXT_TASKS = ["text_generation"]
#: Characters a reader must refuse (stecflow.core.text), by code point.
HOSTILE_CODES = (0x00, 0x01, 0x07, 0x08, 0x0B, 0x0C, 0x1B, 0x1F, 0xD800, 0xDBFF,
                 0xDC00, 0xDFFF, 0xFFFE, 0x202E, 0x202D)  # fmt: skip


@dataclass(frozen=True)
class Case:
    """One mutated submission: what was done, and the two files."""

    number: int
    mutation: str
    preserving: bool
    outputs: bytes
    metadata: bytes
    #: The outputs file's name: which reader reads the case.
    name: str = "outputs.xml"
    #: Whether the case carries a character every reader must refuse.
    hostile: bool = False


# ------------------------------------------------------------------- mutations

Mutation = Callable[[random.Random, bytes], bytes]


def _trials(data: bytes) -> tuple[bytes, list[bytes], bytes]:
    """Split an outputs file into head, TRIAL elements and tail."""
    start = data.index(b"<TRIAL ")
    end = data.rindex(b"</TRIAL>") + len(b"</TRIAL>")
    body = data[start:end]
    trials = [t + b"</TRIAL>" for t in body.split(b"</TRIAL>")[:-1]]
    return data[:start], trials, data[end:]


def reorder_trials(rng: random.Random, data: bytes) -> bytes:
    head, trials, tail = _trials(data)
    rng.shuffle(trials)
    return head + b"".join(trials) + tail


def reorder_attributes(rng: random.Random, data: bytes) -> bytes:
    parts = data.split(b"<ATTRIBUTE-SET>")
    out = [parts[0]]
    for part in parts[1:]:
        inner, rest = part.split(b"</ATTRIBUTE-SET>", 1)
        attrs = [a.strip() for a in inner.split(b"/>") if a.strip()]
        rng.shuffle(attrs)
        out.append(b"".join(a + b"/>" for a in attrs) + b"</ATTRIBUTE-SET>" + rest)
    return b"<ATTRIBUTE-SET>".join(out)


def add_comments(rng: random.Random, data: bytes) -> bytes:
    head, trials, tail = _trials(data)
    out = [t + b"<!-- a comment -->" * rng.randint(0, 2) for t in trials]
    return head + b"".join(out) + tail


def add_processing_instructions(rng: random.Random, data: bytes) -> bytes:
    return data.replace(b"<TRIAL ", b"<?team note?><TRIAL ", rng.randint(1, 20))


def cdata_strings(rng: random.Random, data: bytes) -> bytes:
    return data.replace(b"<WORD-STRING>", b"<WORD-STRING><![CDATA[").replace(
        b"</WORD-STRING>", b"]]></WORD-STRING>"
    )


def reindent(rng: random.Random, data: bytes) -> bytes:
    text = data.replace(b"\n", b"\r\n" if rng.random() < 0.5 else b"\n\n")
    return text.replace(b"  ", b"\t")


def unicode_with_bom(rng: random.Random, data: bytes) -> bytes:
    codec, bom = rng.choice(
        [
            ("utf-8", codecs.BOM_UTF8),
            ("utf-16-le", codecs.BOM_UTF16_LE),
            ("utf-16-be", codecs.BOM_UTF16_BE),
            ("utf-32-le", codecs.BOM_UTF32_LE),
            ("utf-32-be", codecs.BOM_UTF32_BE),
        ]
    )
    text = data.decode("utf-8")
    if codec != "utf-8" and rng.random() < 0.5:
        text = text.replace("UTF-8", codec[:6].upper(), 1)
    return bom + text.encode(codec)


PRESERVING: dict[str, Mutation] = {
    "reorder_trials": reorder_trials,
    "reorder_attributes": reorder_attributes,
    "comments": add_comments,
    "processing_instructions": add_processing_instructions,
    "cdata": cdata_strings,
    "reindent": reindent,
    "unicode_bom": unicode_with_bom,
}


def flip_bytes(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 20)):
        out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


def insert_bytes(rng: random.Random, data: bytes) -> bytes:
    at = rng.randrange(len(data))
    junk = rng.choice([b"<", b">", b"&", b"\x00", b"\xff\xfe", b"]]>", b"<!--", b'"'])
    return data[:at] + junk * rng.randint(1, 5) + data[at:]


def delete_bytes(rng: random.Random, data: bytes) -> bytes:
    at = rng.randrange(len(data))
    return data[:at] + data[at + rng.randint(1, 200) :]


def truncate(rng: random.Random, data: bytes) -> bytes:
    return data[: rng.randrange(len(data))]


def _element_spans(data: bytes, tag: bytes) -> list[tuple[int, int]]:
    """Where the elements named *tag* are: ``<tag .../>`` or ``<tag ...>...</tag>``."""
    name = re.escape(tag)
    pattern = rb"<" + name + rb"(?=[\s/>])[^>]*?(?:/>|>.*?</" + name + rb">)"
    return [m.span() for m in re.finditer(pattern, data, re.DOTALL)]


def _tag(rng: random.Random) -> bytes:
    return rng.choice([b"TRIAL", b"ATTRIBUTE-SET", b"ATTRIBUTE", b"WORD-STRING"])


def delete_element(rng: random.Random, data: bytes) -> bytes:
    spans = _element_spans(data, _tag(rng))
    begin, end = rng.choice(spans)
    return data[:begin] + data[end:]


def duplicate_element(rng: random.Random, data: bytes) -> bytes:
    spans = [(b, e) for b, e in _element_spans(data, _tag(rng)) if e - b < 10_000]
    begin, end = rng.choice(spans)
    return data[:end] + data[begin:end] * rng.randint(1, 50) + data[end:]


def rename_element(rng: random.Random, data: bytes) -> bytes:
    old = _tag(rng)
    new = rng.choice([b"TRAIL", b"trial", b"x:TRIAL", b"OUTPUTS", b"ATTRIBUTE"])
    return data.replace(b"<" + old, b"<" + new, rng.randint(1, 3))


def change_ids(rng: random.Random, data: bytes) -> bytes:
    head, trials, tail = _trials(data)
    i = rng.randrange(len(trials))
    new = rng.choice([b"", b" ", b"t999", b"&#x0;", b"\xc3\xa9", b"t" * 5000])
    trials[i] = trials[i].replace(b'ID="', b'ID="' + new, 1)
    return head + b"".join(trials) + tail


INJECTIONS = [
    b'<!DOCTYPE OUTPUTS [<!ENTITY x "boom">]>',
    b'<!DOCTYPE OUTPUTS [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
    b'<!DOCTYPE OUTPUTS [<!ENTITY % p SYSTEM "http://127.0.0.1:9/x.dtd"> %p;]>',
    b'<!DOCTYPE OUTPUTS SYSTEM "http://127.0.0.1:9/outputs.dtd">',
    b'<!DOCTYPE OUTPUTS SYSTEM "/etc/passwd">',
    b'<!DOCTYPE OUTPUTS [<!eNtItY x "boom">]>',
]


def inject_doctype(rng: random.Random, data: bytes) -> bytes:
    doctype = rng.choice(INJECTIONS)
    data = data.replace(b"<OUTPUTS>", doctype + b"\n<OUTPUTS>", 1)
    if rng.random() < 0.7:
        data = data.replace(b"</WORD-STRING>", b"&x;</WORD-STRING>", 1)
    return data


def inject_xinclude(rng: random.Random, data: bytes) -> bytes:
    include = (
        b'<xi:include xmlns:xi="http://www.w3.org/2001/XInclude"'
        b' href="/etc/passwd" parse="text"/>'
    )
    return data.replace(b"</WORD-STRING>", include + b"</WORD-STRING>", 1)


def wrong_declaration(rng: random.Random, data: bytes) -> bytes:
    declared = rng.choice(
        [b"UTF-16", b"ISO-8859-1", b"EBCDIC", b"x-nonsense", b"UTF-32"]
    )
    data = data.replace(b"UTF-8", declared, 1)
    if rng.random() < 0.5:
        data = data.replace(b"the ", "thé ".encode("latin-1"), rng.randint(1, 5))
    return data


def utf16_without_bom(rng: random.Random, data: bytes) -> bytes:
    return data.decode("utf-8").encode(rng.choice(["utf-16-le", "utf-16-be"]))


def stray_attributes(rng: random.Random, data: bytes) -> bytes:
    tag = _tag(rng)
    extra = b" ".join(b'a%d="v"' % i for i in range(rng.randint(1, 300)))
    return data.replace(b"<" + tag + b">", b"<" + tag + b" " + extra + b">", 3).replace(
        b"<" + tag + b" ", b"<" + tag + b" " + extra + b" ", 3
    )


def deep_nesting(rng: random.Random, data: bytes) -> bytes:
    depth = rng.choice([10, 60, 70, 500, 5000])
    nest = b"<x>" * depth + b"</x>" * depth
    return data.replace(b"</WORD-STRING>", b"</WORD-STRING>" + nest, 1)


def huge_value(rng: random.Random, data: bytes) -> bytes:
    size = rng.choice([10_000, 1_000_000, 5_000_000])
    if rng.random() < 0.5:
        return data.replace(
            b"</WORD-STRING>", b"w " * (size // 2) + b"</WORD-STRING>", 1
        )
    return data.replace(b'VALUE="', b'VALUE="' + b"v" * size, 1)


def _code(rng: random.Random) -> int:
    return rng.choice(HOSTILE_CODES)


def char_reference(rng: random.Random, data: bytes) -> bytes:
    """A character reference to a character XML or stecflow refuses."""
    ref = (b"&#x%X;" if rng.random() < 0.5 else b"&#%d;") % _code(rng)
    if rng.random() < 0.5:
        return data.replace(b"</WORD-STRING>", ref + b"</WORD-STRING>", 1)
    return data.replace(b'VALUE="', b'VALUE="' + ref, 1)


def raw_control(rng: random.Random, data: bytes) -> bytes:
    """A raw control byte or an override (UTF-8) inside a text."""
    char = chr(rng.choice([c for c in HOSTILE_CODES if not 0xD800 <= c <= 0xDFFF]))
    return data.replace(b"</WORD-STRING>", char.encode("utf-8") + b"</WORD-STRING>", 1)


def declared_encoding(rng: random.Random, data: bytes) -> bytes:
    """The declaration names a wide encoding the bytes are not in, or the bytes
    are in a wide encoding the declaration does not name, or a byte-order mark
    disagrees with the declaration."""
    declared = rng.choice(
        [b"UTF-16", b"UTF-16LE", b"UTF-32", b"UTF-32BE", b"utf-8", b"US-ASCII"]
    )
    choice = rng.random()
    if choice < 0.4:  # UTF-8 bytes, another declaration
        return data.replace(b"UTF-8", declared, 1)
    text = data.decode("utf-8").replace("UTF-8", declared.decode(), 1)
    if choice < 0.7:  # a byte-order mark of another encoding than declared
        codec, bom = rng.choice(
            [
                ("utf-8", codecs.BOM_UTF8),
                ("utf-16-le", codecs.BOM_UTF16_LE),
                ("utf-32-be", codecs.BOM_UTF32_BE),
            ]
        )
        return bom + text.encode(codec)
    # wide bytes without a byte-order mark
    return text.encode(rng.choice(["utf-16-be", "utf-32-le", "utf-32-be"]))


DESTRUCTIVE: dict[str, Mutation] = {
    "flip_bytes": flip_bytes,
    "insert_bytes": insert_bytes,
    "delete_bytes": delete_bytes,
    "truncate": truncate,
    "delete_element": delete_element,
    "duplicate_element": duplicate_element,
    "rename_element": rename_element,
    "change_ids": change_ids,
    "inject_doctype": inject_doctype,
    "inject_xinclude": inject_xinclude,
    "wrong_declaration": wrong_declaration,
    "utf16_without_bom": utf16_without_bom,
    "stray_attributes": stray_attributes,
    "deep_nesting": deep_nesting,
    "huge_value": huge_value,
    "char_reference": char_reference,
    "raw_control": raw_control,
    "declared_encoding": declared_encoding,
}

#: Mutations whose case carries a character every reader must refuse.
HOSTILE_MUTATIONS = {"char_reference", "raw_control", "json_escape", "yaml_escape"}

HOSTILE_YAML = [
    b"submitted: 2026-05-20\n",
    b"primary: yes\n",
    b"tasks: end_to_end\n",
    b"a: &a [x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n",
    b"team: !!python/object/apply:os.system [id]\n",
    b"x: " + b"[" * 1000 + b"\n",
    b"n: " + b"9" * 5000 + b"\n",
    b"? [a, b]\n: c\n",
    b"description: \x00\n",
    b"contact: caf\xe9\n",
    b"primary: true\nprimary: false\n",
    b"submitted: 2026-02-31\n",
    b"%YAML 1.1\n---\n",
    b"--- a\n--- b\n",
]


def _yaml_escape(rng: random.Random) -> str:
    code = _code(rng)
    return rng.choice(
        [f"\\u{code:04x}", f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04X}"]
        + (["\\0"] if code == 0 else [])
        + (["\\e"] if code == 0x1B else [])
    )


def yaml_escape(rng: random.Random, data: bytes) -> bytes:
    """A double-quoted escape of a refused character in a value or a key."""
    text = data.decode("utf-8")
    escape = _yaml_escape(rng)
    lines = text.split("\n")
    if rng.random() < 0.8:
        key = rng.choice(["description", "contact"])
        lines = [
            f'{key}: "greedy {escape} baseline"' if line.startswith(f"{key}:") else line
            for line in lines
            if not line.startswith("  ")  # a folded description's next line
        ]
    else:
        lines.append(f'"note{escape}": x')
    return "\n".join(lines).encode("utf-8")


def yaml_encoding(rng: random.Random, data: bytes) -> bytes:
    """system.yaml saved as UTF-16 (with or without a byte-order mark) or Latin-1."""
    text = data.decode("utf-8").replace("greedy", "gréedy")
    codec = rng.choice(["utf-16", "utf-16-le", "utf-32", "latin-1"])
    return text.replace("description: ", "description: é ", 1).encode(codec)


def mutate_metadata(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    choice = rng.random()
    if choice < 0.2:
        return "yaml_escape", yaml_escape(rng, data)
    if choice < 0.3:
        return "yaml_encoding", yaml_encoding(rng, data)
    return "metadata", _mutate_metadata(rng, data)


def _mutate_metadata(rng: random.Random, data: bytes) -> bytes:
    choice = rng.random()
    if choice < 0.5:
        return data + rng.choice(HOSTILE_YAML)
    if choice < 0.8:
        return flip_bytes(rng, data)
    return truncate(rng, data)


# ------------------------------------------------------------- the text readers

TextMutation = Callable[[random.Random, bytes], tuple[str, bytes]]


def _lines(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.decode("utf-8").splitlines()]


def _jsonl(values: list[dict[str, Any]], **dump: Any) -> bytes:
    return "".join(json.dumps(v, **dump) + "\n" for v in values).encode("utf-8")


def text_crlf(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    return "outputs.jsonl", data.replace(b"\n", b"\r\n")


def text_ascii_pairs(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    """Emoji and accents written as JSON escapes (surrogate pairs): still valid."""
    values = _lines(data)
    for value in rng.sample(values, 5):
        value["output"] += rng.choice([" \U0001f600", " café", " \u05e9\u05dc"])
    return "outputs.jsonl", _jsonl(values, ensure_ascii=True)


def text_reorder(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    values = _lines(data)
    rng.shuffle(values)
    return "outputs.jsonl", _jsonl(values)


def text_as_txt(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    lines = [v["output"] for v in _lines(data)]
    return "outputs.txt", ("\n".join(lines) + "\n").encode("utf-8")


def text_as_gem(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    values = [{"gem_id": v["id"], "generated": v["output"]} for v in _lines(data)]
    document = {"language": "en", "values": values}
    return "outputs.json", json.dumps(document, indent=rng.choice([None, 1])).encode()


TEXT_PRESERVING: dict[str, TextMutation] = {
    "text_crlf": text_crlf,
    "text_ascii_pairs": text_ascii_pairs,
    "text_reorder": text_reorder,
    "text_as_txt": text_as_txt,
    "text_as_gem": text_as_gem,
}


def json_escape(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    """A refused character in one output, as each reader can be given it: a
    JSON escape in outputs.jsonl or outputs.json, the raw character in
    outputs.txt (a surrogate cannot be raw UTF-8: U+202E instead)."""
    code = _code(rng)
    escape = rng.choice([f"\\u{code:04x}", f"\\u{code:04X}"])
    values = _lines(data)
    target = rng.randrange(len(values))
    name = rng.choice(["outputs.jsonl", "outputs.jsonl", "outputs.json", "outputs.txt"])
    if name == "outputs.txt":
        char = chr(code) if not 0xD800 <= code <= 0xDFFF else "\u202e"
        lines = [v["output"] for v in values]
        lines[target] = lines[target][:3] + char + lines[target][3:]
        return name, ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")
    if name == "outputs.json":
        _, gem = text_as_gem(rng, data)
        marker = json.dumps(values[target]["output"])[1:-1]
        text = gem.decode("utf-8").replace(marker, marker[:3] + escape + marker[3:], 1)
        return name, text.encode("utf-8")
    lines = data.decode("utf-8").splitlines()
    where = lines[target].index('"output": "') + len('"output": "')
    lines[target] = lines[target][:where] + escape + lines[target][where:]
    if rng.random() < 0.2:  # in a key instead
        lines[target] = lines[target].replace('"id"', f'"i{escape}d"', 1)
    return "outputs.jsonl", ("\n".join(lines) + "\n").encode("utf-8")


def text_encoding(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    """The text file in another encoding than UTF-8, with or without a mark."""
    text = data.decode("utf-8").replace("Chair", "Chäir")
    codec = rng.choice(["utf-16", "utf-16-be", "utf-32", "latin-1", "utf-8-sig"])
    return rng.choice(["outputs.jsonl", "outputs.jsonl"]), text.encode(codec)


def text_json_hostile(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    """Deep nesting, a key twice, NaN, a huge string or a huge run of escapes."""
    lines = data.decode("utf-8").splitlines()
    target = rng.randrange(len(lines))
    size = rng.choice([10_000, 1_000_000, 5_000_000])
    line = lines[target]
    lines[target] = rng.choice(
        [
            line[:-1] + ', "x": ' + "[" * 5000 + "]" * 5000 + "}",
            line[:-1] + ', "id": "t999"}',
            line[:-1] + ', "score": NaN}',
            line[:-1] + ', "x": "' + "a" * size + '"}',
            line[:-1] + ', "x": "' + "\\n" * (size // 2) + '"}',
            line.replace('"output": "', '"output": "' + "w " * (size // 2), 1),
            line[:-1] + ', "n": ' + "9" * 5000 + "}",
        ]
    )
    return "outputs.jsonl", ("\n".join(lines) + "\n").encode("utf-8")


def text_bytes(rng: random.Random, data: bytes) -> tuple[str, bytes]:
    """Byte flips, insertions, deletions or truncation of outputs.jsonl."""
    mutation = rng.choice([flip_bytes, insert_bytes, delete_bytes, truncate])
    return "outputs.jsonl", mutation(rng, data)


TEXT_DESTRUCTIVE: dict[str, TextMutation] = {
    "json_escape": json_escape,
    "text_encoding": text_encoding,
    "text_json_hostile": text_json_hostile,
    "text_bytes": text_bytes,
}


#: A composed mutation stops growing a case beyond this size.
MAX_CASE_BYTES = 8 * 2**20


def make_cases(
    outputs: bytes,
    metadata: bytes,
    n: int,
    seed: int,
    preserving_share: float = 0.25,
    text: tuple[bytes, bytes] | None = None,
    text_share: float = 0.35,
) -> Iterator[Case]:
    """*n* seeded cases, one at a time: about *preserving_share* of them keep the
    submission valid. With *text* (the outputs.jsonl and system.yaml of a text
    submission), about *text_share* of them are cases of the text readers."""
    rng = random.Random(seed)
    for number in range(n):
        if text is not None and rng.random() < text_share:
            yield _text_case(rng, number, *text, preserving_share)
            continue
        if rng.random() < preserving_share:
            name = rng.choice(sorted(PRESERVING))
            yield Case(number, name, True, PRESERVING[name](rng, outputs), metadata)
            continue
        if rng.random() < 0.15:
            kind, mutated = mutate_metadata(rng, metadata)
            hostile = kind in HOSTILE_MUTATIONS and mutated != metadata
            yield Case(number, kind, False, outputs, mutated, hostile=hostile)
            continue
        names = rng.sample(sorted(DESTRUCTIVE), rng.choice([1, 1, 1, 2, 3]))
        data = outputs
        for name in names:
            if len(data) > MAX_CASE_BYTES:  # keep composed mutations bounded
                break
            try:
                data = DESTRUCTIVE[name](rng, data)
            except (ValueError, IndexError):  # an earlier mutation left no target
                data = flip_bytes(rng, data) if data else data
        # one hostile mutation alone must land: composed ones may cut it out
        hostile = len(names) == 1 and names[0] in HOSTILE_MUTATIONS
        yield Case(
            number, "+".join(names), False, data, metadata,
            hostile=hostile and data != outputs,
        )  # fmt: skip


def _text_case(
    rng: random.Random,
    number: int,
    outputs: bytes,
    metadata: bytes,
    preserving_share: float,
) -> Case:
    """One case of the text readers."""
    if rng.random() < preserving_share:
        kind = rng.choice(sorted(TEXT_PRESERVING))
        name, data = TEXT_PRESERVING[kind](rng, outputs)
        return Case(number, kind, True, data, metadata, name)
    if rng.random() < 0.15:
        kind, mutated = mutate_metadata(rng, metadata)
        hostile = kind in HOSTILE_MUTATIONS and mutated != metadata
        return Case(
            number, f"text_{kind}", False, outputs, mutated, "outputs.jsonl", hostile
        )
    kind = rng.choice(sorted(TEXT_DESTRUCTIVE))
    name, data = TEXT_DESTRUCTIVE[kind](rng, outputs)
    hostile = kind in HOSTILE_MUTATIONS and data != outputs
    return Case(number, kind, False, data, metadata, name, hostile)


# ----------------------------------------------------------------------- running


OUTPUTS_NAMES = ("outputs.xml", "outputs.jsonl", "outputs.txt", "outputs.json")


@functools.lru_cache
def declared_properties(config: str) -> dict[str, Any]:
    """The system properties a shipped campaign declares, which its
    submissions' system.yaml files give."""
    from stecflow.campaign.config import read_config_file

    found = read_config_file(REPO / "config" / config).get("submissions") or {}
    return dict(found.get("properties") or {})


def _validate(folder: Path, items: Any, case: Case) -> dict[str, Any]:
    from stecflow.submissions.validation import validate_submission

    text = case.name != "outputs.xml"
    for name in OUTPUTS_NAMES:
        (folder / name).unlink(missing_ok=True)
    (folder / case.name).write_bytes(case.outputs)
    (folder / "system.yaml").write_bytes(case.metadata)
    start = time.perf_counter()
    record = validate_submission(
        folder,
        items["text" if text else "reg"],
        team=folder.parent.name,
        system=folder.name,
        campaign_tasks=TEXT_TASKS if text else TASKS,
        deadline=None,
        properties=declared_properties("text-demo.yaml" if text else "config.yaml"),
    )
    seconds = time.perf_counter() - start
    json.dumps(record)  # the record must be writable as it is
    return {"record": record, "seconds": seconds}


def run_case(
    folder: Path, items: Any, case: Case, timeout: float = 30.0
) -> dict[str, Any]:
    """Validate one case in a forked child; its result, time and peak memory."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read_end)
        try:
            result = _validate(folder, items, case)
            record = result["record"]
            json.dumps(record).encode("utf-8")  # writable as it is, in UTF-8
            payload = {
                "status": record["status"],
                "codes": sorted({p["code"] for p in record["errors"]}),
                "outputs": record["n_outputs"],
                "seconds": result["seconds"],
                "error": None,
            }
        except BaseException as exc:  # what the fuzzer is looking for
            payload = {"status": "raised", "error": f"{type(exc).__name__}: {exc}"}
        payload["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        with os.fdopen(write_end, "w") as out:
            out.write(json.dumps(payload))
        os._exit(0)
    os.close(write_end)
    deadline = time.monotonic() + timeout
    with os.fdopen(read_end) as pipe:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                return {"status": "hung", "error": f"no answer in {timeout} s"}
            time.sleep(0.005)
        text = pipe.read()
    return json.loads(text) if text else {"status": "crashed", "error": str(status)}


def failure(
    case: Case, result: dict[str, Any], expected_outputs: int, limits: dict[str, float]
) -> str | None:
    """Why a case fails the fuzzer's rules, or None.

    The memory limit is ``limits["mb"]`` or, for a case larger than 5 MB,
    ``limits["per_mb"]`` times its size in MB plus ``limits["mb"]`` /2 (the
    stated bound of issue #38: 20x the file plus 100 MB).
    """
    if result["status"] not in ("accepted", "rejected"):
        return f"{result['status']}: {result.get('error')}"
    if "internal_error" in result["codes"]:
        return "internal_error recorded"
    if result["seconds"] > limits["seconds"]:
        return f"took {result['seconds']:.2f} s"
    size_mb = max(len(case.outputs), len(case.metadata)) / 2**20
    bound = max(limits["mb"], limits.get("per_mb", 20) * size_mb + limits["mb"] / 2)
    if result["peak_mb"] > bound:
        return f"peak memory {result['peak_mb']:.0f} MB (bound {bound:.0f} MB)"
    if case.hostile and result["status"] == "accepted":
        return "a refused character was accepted"
    if case.preserving and (
        result["status"] != "accepted" or result["outputs"] != expected_outputs
    ):
        return f"a valid submission became {result['status']} {result['codes']}"
    return None


def fuzz(
    n: int, seed: int, max_seconds: float = 2.0, max_mb: float = 200.0
) -> dict[str, Any]:
    """Run *n* cases; the figures and every failing case."""
    from stecflow.data.corpus import read_items
    from stecflow.tasks.registry import read_testset

    items = {"reg": read_items(TESTSET), "text": read_testset(TEXT_TESTSET)}
    outputs = (BASE / "outputs.xml").read_bytes()
    metadata = (BASE / "system.yaml").read_bytes()
    text = (
        (TEXT_BASE / "outputs.jsonl").read_bytes(),
        (TEXT_BASE / "system.yaml").read_bytes(),
    )
    cases = make_cases(outputs, metadata, n, seed, text=text)
    limits = {"seconds": max_seconds, "mb": max_mb, "per_mb": 20}
    results, failures = [], []
    readers: Counter = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        folders = {}
        for kind, base in (("reg", BASE), ("text", TEXT_BASE)):
            folders[kind] = Path(tmp) / kind / base.parent.name / base.name
            folders[kind].mkdir(parents=True)
        for case in cases:
            kind = "reg" if case.name == "outputs.xml" else "text"
            readers[case.name if case.outputs is not None else kind] += 1
            if case.hostile:
                readers["hostile"] += 1
            result = run_case(folders[kind], items, case)
            results.append((case.preserving, result))
            why = failure(case, result, len(items[kind]), limits)
            if why:
                failures.append(
                    {"case": case.number, "mutation": case.mutation, "why": why}
                )
    measured = [r for _, r in results if "seconds" in r]
    worst_time = max(measured, key=lambda r: r["seconds"])
    worst_mb = max(measured, key=lambda r: r["peak_mb"])
    return {
        "cases": n,
        "seed": seed,
        "preserving": sum(preserving for preserving, _ in results),
        "accepted": sum(r["status"] == "accepted" for _, r in results),
        "rejected": sum(r["status"] == "rejected" for _, r in results),
        "failures": failures,
        "worst_seconds": worst_time["seconds"],
        "worst_mb": worst_mb["peak_mb"],
        "median_seconds": sorted(r["seconds"] for r in measured)[len(measured) // 2],
        "codes": Counter(code for _, r in results for code in r.get("codes", [])),
        "readers": readers,
    }


def _markdown(figures: dict[str, Any], command: str, elapsed: float) -> str:
    codes = ", ".join(f"{c} {n}" for c, n in figures["codes"].most_common(12))
    return "\n".join(
        [
            f"### {time.strftime('%Y-%m-%d')}: {figures['cases']:,} cases, seed"
            f" {figures['seed']}",
            "",
            f"`{command}` on {platform.machine()}, Python {platform.python_version()},"
            f" {os.cpu_count()} cores; {elapsed:.0f} s in all.",
            "",
            "| cases | preserving | accepted | rejected | failures | median time"
            " | worst time | worst peak memory |",
            "|---|---|---|---|---|---|---|---|",
            f"| {figures['cases']:,} | {figures['preserving']:,} |"
            f" {figures['accepted']:,} | {figures['rejected']:,} |"
            f" {len(figures['failures'])} | {figures['median_seconds'] * 1000:.0f} ms |"
            f" {figures['worst_seconds'] * 1000:.0f} ms |"
            f" {figures['worst_mb']:.0f} MB |",
            "",
            f"Most frequent error codes among rejected cases: {codes}.",
            "",
            "Cases per outputs file: "
            + ", ".join(
                f"{name} {count:,}"
                for name, count in sorted(figures.get("readers", {}).items())
                if name != "hostile"
            )
            + f"; {figures.get('readers', {}).get('hostile', 0):,} cases carry a"
            " character every reader must refuse (a lone surrogate, a C0 control,"
            " an override), all rejected unless listed as failures.",
            "",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--max-seconds", type=float, default=2.0)
    parser.add_argument("--max-mb", type=float, default=200.0)
    parser.add_argument(
        "--record", action="store_true", help="append the figures to README.md"
    )
    parser.add_argument("--json", help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    figures = fuzz(args.cases, args.seed, args.max_seconds, args.max_mb)
    elapsed = time.perf_counter() - start
    command = (
        f"python benchmarks/fuzz_validation.py --cases {args.cases} --seed {args.seed}"
    )
    text = _markdown(figures, command, elapsed)
    print(text)
    for failed in figures["failures"][:20]:
        print(f"FAILED case {failed['case']} ({failed['mutation']}): {failed['why']}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2), encoding="utf-8")
    if args.record:
        readme = REPO / "benchmarks" / "README.md"
        with open(readme, "a", encoding="utf-8") as handle:
            handle.write("\n" + text)
    return 1 if figures["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())

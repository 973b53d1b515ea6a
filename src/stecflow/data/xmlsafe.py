"""The one hardened XML parser used for every XML file stecflow reads.

Submissions come from outside, so parsing is locked down: no entity expansion, no
DTD loading, no network access, a size limit and a depth limit. Every error names
the file, the line and, where known, the element.
"""

from __future__ import annotations

import codecs
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from stecflow.core.errors import XMLError

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "XMLProblem",
    "check_depth",
    "declared_encoding",
    "detect_encoding",
    "parse_xml",
    "parse_xml_lenient",
]

#: Largest XML file read, in bytes (a TUNA-shaped test set of 1,000 items is ~2 MB).
MAX_BYTES = 256 * 1024 * 1024
#: Deepest element nesting accepted (TUNA files nest about 5 levels deep).
MAX_DEPTH = 64

_ENCODING_RE = re.compile(rb"""^<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
_ENTITY_DECL_RE = re.compile(rb"<!ENTITY", re.IGNORECASE)


@dataclass(frozen=True)
class XMLProblem:
    """One problem found while reading an XML file leniently."""

    line: int | None
    message: str
    element: str | None = None
    severity: str = "error"


def _parser(recover: bool) -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        load_dtd=False,
        dtd_validation=False,
        no_network=True,
        huge_tree=False,
        remove_blank_text=False,
        recover=recover,
    )


def declared_encoding(data: bytes) -> str:
    """Return the encoding named in the XML declaration, or ``"utf-8"``.

    >>> declared_encoding(b'<?xml version="1.0" encoding="ISO-8859-1"?><a/>')
    'iso-8859-1'
    >>> declared_encoding(b"<a/>")
    'utf-8'
    """
    match = _ENCODING_RE.match(data.lstrip(b"\xef\xbb\xbf"))
    return match.group(1).decode("ascii").lower() if match else "utf-8"


#: Byte-order marks, longest first (UTF-32 LE starts like UTF-16 LE).
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
#: How "<?" or "<" looks in the first bytes of a file without a byte-order mark
#: (XML 1.0, appendix F).
_SIGNATURES = (
    (b"\x00\x00\x00<", "utf-32-be"),
    (b"<\x00\x00\x00", "utf-32-le"),
    (b"\x00<\x00?", "utf-16-be"),
    (b"<\x00?\x00", "utf-16-le"),
)


def detect_encoding(data: bytes) -> tuple[str, int, str | None]:
    """How to decode an XML file: ``(codec, bytes to skip, note)``.

    A byte-order mark wins, then the shape of the first bytes (XML 1.0, appendix
    F), then the encoding the XML declaration names, then UTF-8. *note* says
    where a declaration disagrees with what the bytes show (the bytes win).

    >>> detect_encoding('<?xml version="1.0"?><a/>'.encode("utf-16"))[:2]
    ('utf-16-le', 2)
    >>> detect_encoding(b'<?xml version="1.0" encoding="ISO-8859-1"?><a/>')
    ('iso-8859-1', 0, None)
    >>> print(detect_encoding(codecs.BOM_UTF8 + b'<?xml version="1.0"'
    ...     b' encoding="UTF-16"?><a/>')[2])  # doctest: +NORMALIZE_WHITESPACE
    the file declares UTF-16 but is UTF-8 (it starts with a UTF-8 byte-order
    mark); it was read as UTF-8
    """
    found = how = None
    skip = 0
    for bom, codec in _BOMS:
        if data.startswith(bom):
            found, skip, how = (
                codec,
                len(bom),
                f"it starts with a {_name(codec)} byte-order mark",
            )
            break
    else:
        for signature, codec in _SIGNATURES:
            if data.startswith(signature):
                found, how = (
                    codec,
                    f"its first bytes are {_name(codec)}, without a byte-order mark",
                )
                break
    if found is None:
        return declared_encoding(data), 0, None
    head = data[skip : skip + 512].decode(found, errors="replace")
    match = _ENCODING_RE.match(head.encode("ascii", errors="replace"))
    note = None
    if match:
        declared = match.group(1).decode("ascii").lower()
        if _family(declared) != _family(found):
            note = (
                f"the file declares {declared.upper()} but is {_name(found)}"
                f" ({how}); it was read as {_name(found)}"
            )
    return found, skip, note


def _family(codec: str) -> str:
    normal = codecs.lookup(codec).name if _known(codec) else codec
    for prefix in ("utf-8", "utf-16", "utf-32"):
        if normal.startswith(prefix) or normal.replace("_", "-").startswith(prefix):
            return prefix
    return normal


def _known(codec: str) -> bool:
    try:
        codecs.lookup(codec)
    except LookupError:
        return False
    return True


def _name(codec: str) -> str:
    return _family(codec).upper() if _family(codec).startswith("utf") else codec


def _read_bytes(path: Path, max_bytes: int) -> bytes:
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise XMLError(
            f"cannot read the file ({exc.strerror})", file=str(path)
        ) from exc
    if size > max_bytes:
        raise XMLError(
            f"file is {size:,} bytes; the limit is {max_bytes:,} bytes", file=str(path)
        )
    return path.read_bytes()


def _check_no_entities(data: bytes, source: str) -> None:
    match = _ENTITY_DECL_RE.search(data)
    if match:
        line = data.count(b"\n", 0, match.start()) + 1
        raise XMLError(
            "entity declarations are not allowed (they are never expanded); "
            "remove the <!ENTITY ...> declaration",
            file=source,
            line=line,
            field="<!ENTITY>",
        )


def check_depth(root: etree._Element, source: str, max_depth: int = MAX_DEPTH) -> None:
    """Raise :class:`XMLError` if elements nest deeper than *max_depth*.

    One XPath query, evaluated by libxml2: the first element one level too deep.

    >>> deep = etree.fromstring("<a><b><c/></b></a>")
    >>> check_depth(deep, "x.xml", max_depth=3)
    >>> check_depth(deep, "x.xml", max_depth=2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    stecflow.core.errors.XMLError: x.xml, line 1, <c>: elements nest more than 2 ...
    """
    too_deep = root.xpath("self::*" + "/*" * max_depth)
    if too_deep:
        raise XMLError(
            f"elements nest more than {max_depth} levels deep",
            file=source,
            line=too_deep[0].sourceline,
            field=f"<{too_deep[0].tag}>",
        )


def parse_xml(
    path: str | Path,
    *,
    max_bytes: int = MAX_BYTES,
    max_depth: int = MAX_DEPTH,
) -> etree._Element:
    """Parse an XML file safely and return its root element.

    Parameters
    ----------
    path
        The file to read. Its XML declaration names the encoding (UTF-8 if absent).
    max_bytes, max_depth
        Limits on the file size and on element nesting.

    Returns
    -------
    lxml.etree._Element
        The root element; ``sourceline`` gives line numbers for error messages.

    Raises
    ------
    XMLError
        If the file is too large or too deep, declares entities, or is not
        well-formed; the message names the file and line.
    """
    path = Path(path)
    source = str(path)
    data = _read_bytes(path, max_bytes)
    _check_no_entities(data, source)
    try:
        root = etree.fromstring(data, _parser(recover=False), base_url=None)
    except etree.XMLSyntaxError as exc:
        line = exc.lineno if exc.lineno else None
        message = exc.msg or str(exc)
        message = re.sub(r",? line \d+, column \d+$", "", message)
        raise XMLError(
            f"not well-formed XML: {message}", file=source, line=line
        ) from exc
    check_depth(root, source, max_depth)
    return root


def parse_xml_lenient(
    data: bytes,
    source: str,
    *,
    max_depth: int = MAX_DEPTH,
    max_elements: Mapping[str, int] | None = None,
) -> tuple[etree._Element | None, list[XMLProblem]]:
    """Parse XML bytes, collecting every problem instead of stopping at the first.

    The encoding comes from a byte-order mark, the first bytes or the declaration
    (:func:`detect_encoding`). Undecodable bytes are reported with their line and
    replaced, and syntax errors are reported from lxml's error log while the
    parser recovers what it can, so a validation report can list all problems of
    a file at once.

    Parameters
    ----------
    max_elements
        Element name -> the most elements of that name accepted. Counted on the
        text before parsing, so an oversized file is refused in milliseconds.

    Returns
    -------
    (root, problems)
        *root* is None only when nothing could be recovered or a limit was
        exceeded.

    Examples
    --------
    >>> root, problems = parse_xml_lenient(b"<a><b>x</a>", "f.xml")
    >>> [(p.line, p.message) for p in problems][:1]
    [(1, 'Opening and ending tag mismatch: b line 1 and a')]
    >>> root, problems = parse_xml_lenient(b"<a><b/><b/></a>", "f.xml",
    ...     max_elements={"b": 1})
    >>> root, problems[0].message
    (None, 'the file has 2 <b> elements; the limit is 1')
    """
    problems: list[XMLProblem] = []
    if _ENTITY_DECL_RE.search(data):
        try:
            _check_no_entities(data, source)
        except XMLError as exc:
            return None, [XMLProblem(exc.line, exc.message, exc.field)]
    encoding, skip, note = detect_encoding(data)
    if note:
        problems.append(XMLProblem(1, note, severity="warning"))
    family = _family(encoding) if _known(encoding) else encoding
    if not skip and family in ("utf-16", "utf-32") and data.startswith(b"<?xml"):
        # its first bytes are ASCII (XML 1.0, appendix F): decoding it as UTF-32
        # would give millions of undecodable spots, seconds and memory for each
        name = family.upper()
        return None, [
            XMLProblem(
                1,
                f"the file declares {encoding.upper()}, but it starts with '<?xml'"
                f" in single bytes, so it is not {name} (where even '<' takes"
                f" {2 if name == 'UTF-16' else 4} bytes); declare the encoding it"
                f' is saved in (encoding="UTF-8") or save it as {name}',
            )
        ]
    try:
        text = data[skip:].decode(encoding)
    except LookupError:
        return None, [
            XMLProblem(1, f"unknown encoding {encoding!r} in the XML declaration")
        ]
    except UnicodeDecodeError:
        text = _decode_reporting(data[skip:], encoding, problems, note is None)
    for name, limit in (max_elements or {}).items():
        count = _count_elements(text, name)
        if count > limit:
            problems.append(
                XMLProblem(
                    None,
                    f"the file has {count:,} <{name}> elements; the limit is {limit:,}",
                    f"<{name}>",
                )
            )
            return None, problems
    if "&#" in text:
        refused = _refused_references(text)
        if refused:  # libxml2 would store a surrogate that cannot be read back
            return None, problems + refused
    # Re-encode as UTF-8 and drop the declaration so lxml reads the repaired text.
    body = re.sub(r"^\ufeff?\s*<\?xml[^>]*\?>", "", text, count=1)
    parser = _parser(recover=True)
    try:
        root = etree.fromstring(body.encode("utf-8", errors="replace"), parser)
    except etree.XMLSyntaxError as exc:
        root = None
        if not parser.error_log:
            problems.append(
                XMLProblem(exc.lineno or None, f"not well-formed XML: {exc.msg}")
            )
    for entry in parser.error_log:
        problems.append(XMLProblem(entry.line or None, entry.message.strip()))
    if root is not None:
        try:
            check_depth(root, source, max_depth)
        except XMLError as exc:
            problems.append(XMLProblem(exc.line, exc.message, exc.field))
            root = None
    return root, problems


_CHAR_REFERENCE = re.compile(r"&#(?:x([0-9a-fA-F]{1,8})|([0-9]{1,10}));")


def _xml_char(code: int) -> bool:
    """Whether XML 1.0 allows character *code* (its production Char)."""
    return (
        code in (0x9, 0xA, 0xD)
        or 0x20 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or 0x10000 <= code <= 0x10FFFF
    )


def _refused_references(text: str) -> list[XMLProblem]:
    """Character references to characters XML does not allow (``&#xD800;``,
    ``&#0;``, ``&#x1B;``), each with its line; at most
    :data:`MAX_REPORTED_BYTES` are listed.

    >>> [(p.line, p.message[:45]) for p in _refused_references("<a>\\n&#xD800;</a>")]
    [(2, 'the character reference &#xD800; is to U+D800')]
    """
    from stecflow.core.text import describe_character

    problems = []
    for match in _CHAR_REFERENCE.finditer(text):
        code = int(match.group(1), 16) if match.group(1) else int(match.group(2))
        if _xml_char(code):
            continue
        if len(problems) == MAX_REPORTED_BYTES:
            problems.append(XMLProblem(None, "more such references are not listed"))
            break
        what = describe_character(chr(code)) if code <= 0x10FFFF else "no character"
        problems.append(
            XMLProblem(
                text.count("\n", 0, match.start()) + 1,
                f"the character reference {match.group()} is to {what}, which XML"
                " does not allow; remove it",
            )
        )
    return problems


def _count_elements(text: str, name: str) -> int:
    """Start tags of *name* in *text* (an upper bound: comments count too)."""
    if text.count("<" + name) == 0:
        return 0
    return len(re.findall("<" + re.escape(name) + r"[\s/>]", text))


#: Most undecodable spots reported one by one; then one problem says more follow.
MAX_REPORTED_BYTES = 50

_bad_spots = threading.local()


def _record_bad_bytes(exc: UnicodeDecodeError) -> tuple[str, int]:
    # only the spots that are reported are kept, the others counted: a 15 MiB
    # file declared UTF-32 but written in UTF-8 has 4 million of them (615 MB
    # of tuples when every one was kept)
    if len(_bad_spots.found) >= MAX_REPORTED_BYTES:
        raise _TooManyBadBytes  # the rest is decoded in C, not spot by spot
    _bad_spots.found.append((exc.start, exc.end))
    return "\ufffd", exc.end


class _TooManyBadBytes(Exception):
    pass


codecs.register_error("stecflow-record", _record_bad_bytes)


def _decode_reporting(
    data: bytes, encoding: str, problems: list[XMLProblem], declared: bool = True
) -> str:
    """Decode *data*, recording the line and column of each invalid byte sequence.

    A codec error handler notes where the bad bytes are and puts U+FFFD in
    their place; the first :data:`MAX_REPORTED_BYTES` are reported with line
    and column. At one more, the whole file is decoded again with U+FFFD in
    every bad place by the codec itself (in C, in constant memory per spot:
    a 15 MiB file declared UTF-32 but written in UTF-8 has 4 million spots),
    and a last problem says that more follow.
    """
    _bad_spots.found = []
    more = False
    try:
        text = data.decode(encoding, errors="stecflow-record")
    except _TooManyBadBytes:
        more = True
        text = data.decode(encoding, errors="replace")
    finally:
        spots = _bad_spots.found
        _bad_spots.found = []
    name = _name(encoding)
    why = "the encoding the file declares" if declared else "the encoding found"
    line, column, position = 1, 1, 0
    for start, end in spots[:MAX_REPORTED_BYTES]:
        chunk = data[position:start].decode(encoding, errors="replace")
        newlines = chunk.count("\n")
        line += newlines
        column = (len(chunk) - chunk.rfind("\n")) if newlines else column + len(chunk)
        bad = data[start:end].hex(" ")
        problems.append(
            XMLProblem(
                line,
                f"bytes {bad} at column {column} are not valid {name} ({why}); save"
                f" the file as {name} or declare its real encoding",
            )
        )
        column += 1
        position = end
    if more:
        problems.append(
            XMLProblem(
                None,
                f"more invalid byte sequences follow the first {MAX_REPORTED_BYTES};"
                " they are not listed",
            )
        )
    return text

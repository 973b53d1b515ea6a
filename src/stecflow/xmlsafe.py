"""The one hardened XML parser used for every XML file stecflow reads.

Submissions come from outside, so parsing is locked down: no entity expansion, no
DTD loading, no network access, a size limit and a depth limit. Every error names
the file, the line and, where known, the element.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from .errors import XMLError

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "XMLProblem",
    "check_depth",
    "declared_encoding",
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
    >>> check_depth(deep, "x.xml", max_depth=2)
    Traceback (most recent call last):
    stecflow.errors.XMLError: x.xml, line 1, <c>: elements nest more than 2 levels deep
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
) -> tuple[etree._Element | None, list[XMLProblem]]:
    """Parse XML bytes, collecting every problem instead of stopping at the first.

    Undecodable bytes are reported with their line and replaced, and syntax errors
    are reported from lxml's error log while the parser recovers what it can, so a
    validation report can list all problems of a file at once.

    Returns
    -------
    (root, problems)
        *root* is None only when nothing could be recovered.

    Examples
    --------
    >>> root, problems = parse_xml_lenient(b"<a><b>x</a>", "f.xml")
    >>> [(p.line, p.message) for p in problems][:1]
    [(1, 'Opening and ending tag mismatch: b line 1 and a')]
    """
    problems: list[XMLProblem] = []
    if _ENTITY_DECL_RE.search(data):
        try:
            _check_no_entities(data, source)
        except XMLError as exc:
            return None, [XMLProblem(exc.line, exc.message, exc.field)]
    encoding = declared_encoding(data)
    try:
        text = data.decode(encoding)
    except LookupError:
        return None, [
            XMLProblem(1, f"unknown encoding {encoding!r} in the XML declaration")
        ]
    except UnicodeDecodeError:
        text = _decode_reporting(data, encoding, problems)
    # Re-encode as UTF-8 and drop the declaration so lxml reads the repaired text.
    body = re.sub(r"^\ufeff?<\?xml[^>]*\?>", "", text, count=1)
    parser = _parser(recover=True)
    try:
        root = etree.fromstring(body.encode("utf-8"), parser)
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


def _decode_reporting(data: bytes, encoding: str, problems: list[XMLProblem]) -> str:
    """Decode *data*, recording each line whose bytes are invalid in *encoding*."""
    lines = data.split(b"\n")
    name = encoding.upper()
    decoded = []
    for number, raw in enumerate(lines, start=1):
        try:
            decoded.append(raw.decode(encoding))
        except UnicodeDecodeError as exc:
            bad = raw[exc.start : exc.end].hex(" ")
            problems.append(
                XMLProblem(
                    number,
                    f"bytes {bad} at column {exc.start + 1} are not valid {name}"
                    f" (the encoding the file declares); save the file as {name}"
                    " or declare its real encoding",
                )
            )
            decoded.append(raw.decode(encoding, errors="replace"))
    return "\n".join(decoded)

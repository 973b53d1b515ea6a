"""The one hardened YAML reader for files that come from outside (``system.yaml``).

PyYAML's safe loader still expands aliases (a few hundred bytes of anchors and
aliases make gigabytes: the "billion laughs" of YAML), recurses without a bound
on nested lists, turns a 5,000-digit number into a ``ValueError`` and keeps the
last of two equal keys without a word. This reader refuses all of that before it
costs anything, and says where:

* files over a size limit are refused before they are read;
* anchors (``&a``), aliases (``*a``) and explicit tags (``!!python/object``,
  ``!!binary``, ``!custom``) are refused;
* nesting deeper than a limit, a key given twice, and numbers too long to convert
  are refused;
* text holding a character no text from outside may hold (a lone surrogate such
  as ``"\\ud800"``, NUL, ESC and the other C0 controls but tab and line breaks,
  a bidirectional override: :mod:`stecflow.core.text`) is refused, naming the
  character as ``U+XXXX`` and the key path;
* dates and timestamps become ISO 8601 text (a date means midnight UTC), so the
  result is plain JSON data: text, numbers, booleans, null, lists and mappings
  with text keys.

Every refusal is a :class:`~stecflow.core.errors.YAMLError` naming file and line.

YAML that is not from outside (the project's own schemas) or that this reader
has already accepted is read with :data:`FAST_SAFE_LOADER`.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import yaml

from stecflow.core.errors import YAMLError
from stecflow.core.text import bad_character, escaped

__all__ = [
    "FAST_SAFE_LOADER",
    "MAX_BYTES",
    "MAX_DEPTH",
    "iso_timestamp",
    "load_yaml",
    "read_yaml",
]

#: Largest YAML file read, in bytes (a system.yaml is a few hundred bytes).
MAX_BYTES = 64 * 1024
#: Deepest nesting of lists and mappings accepted.
MAX_DEPTH = 20
#: PyYAML's safe loader, libyaml's (in C) where PyYAML has it: for YAML that is
#: ours or already accepted, not for files from outside (:func:`load_yaml`).
FAST_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def iso_timestamp(value: dt.date) -> str:
    """A YAML date or timestamp as ISO 8601 text; no zone means UTC.

    A date without a time means midnight UTC of that day.

    >>> iso_timestamp(dt.date(2026, 5, 20))
    '2026-05-20T00:00:00Z'
    >>> iso_timestamp(dt.datetime(2026, 6, 1, 12, 0))
    '2026-06-01T12:00:00Z'
    >>> iso_timestamp(dt.datetime(2026, 6, 1, 12, 0,
    ...     tzinfo=dt.timezone(dt.timedelta(hours=2))))
    '2026-06-01T12:00:00+02:00'
    """
    if not isinstance(value, dt.datetime):
        value = dt.datetime(value.year, value.month, value.day)
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    return value.isoformat().replace("+00:00", "Z")


class _Refused(Exception):
    def __init__(self, message: str, mark: Any, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = mark.line + 1 if mark is not None else None
        self.field = field


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader without anchors, aliases, explicit tags or unbounded nesting."""

    max_depth = MAX_DEPTH

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._path: list[Any] = []

    def _field(self) -> str | None:
        out = ""
        for part in self._path:
            if isinstance(part, int):
                out += f"[{part}]"
            elif part is not None:
                out += f".{escaped(part)}" if out else escaped(part)
        return out or None

    def compose_node(self, parent: Any, index: Any) -> Any:
        # the key path: a mapping's value comes with its key's node, a list's
        # item with its position, a key with None
        if isinstance(index, yaml.ScalarNode):
            self._path.append(str(index.value))
        else:
            self._path.append(index if isinstance(index, int) else None)
        try:
            return self._compose_checked(parent, index)
        finally:
            self._path.pop()

    def _compose_checked(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, yaml.ScalarEvent):
            reason = bad_character(event.value)
            if reason is not None:
                raise _Refused(reason, event.start_mark, self._field())
        if isinstance(event, yaml.AliasEvent):
            raise _Refused(
                f"aliases (*{event.anchor}) are not allowed; write the value out",
                event.start_mark,
                self._field(),
            )
        if getattr(event, "anchor", None) is not None:
            raise _Refused(
                f"anchors (&{event.anchor}) are not allowed; write values out",
                event.start_mark,
                self._field(),
            )
        tag = getattr(event, "tag", None)
        if tag is not None and tag != "!":
            raise _Refused(
                f"tags ({tag}) are not allowed; write plain values",
                event.start_mark,
                self._field(),
            )
        nesting = isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent))
        if nesting:
            self._depth += 1
            if self._depth > self.max_depth:
                raise _Refused(
                    f"lists and mappings nest more than {self.max_depth} levels deep",
                    event.start_mark,
                )
        try:
            return super().compose_node(parent, index)
        finally:
            if nesting:
                self._depth -= 1

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, OverflowError) as exc:
            # int() of thousands of digits, a date such as 2026-02-31.
            kind = str(node.tag).rsplit(":", 1)[-1]
            kind = {"int": "number", "float": "number", "timestamp": "date"}.get(
                kind, kind
            )
            reason = "too many digits" if "digits" in str(exc) else str(exc)
            shown = str(node.value)
            if len(shown) > 40:
                shown = f"{shown[:20]}... ({len(shown):,} characters)"
            raise _Refused(
                f"{shown} cannot be read as a {kind} ({reason}); quote it to keep it"
                " as text",
                node.start_mark,
            ) from None

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if key is None:
                raise _Refused(
                    "keys must be plain names, not lists or mappings",
                    key_node.start_mark,
                )
            if key in seen:
                raise _Refused(
                    f"key {key!r} is given twice (first on line {seen[key]}); keep one",
                    key_node.start_mark,
                )
            seen[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


def _plain(value: Any) -> Any:
    """Dates as ISO text and keys as text: plain JSON data."""
    if isinstance(value, dt.date):
        return iso_timestamp(value)
    if isinstance(value, dict):
        return {_key(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, dt.date):
        return iso_timestamp(key)
    if key is None or isinstance(key, bool):
        return {None: "null", True: "true", False: "false"}[key]
    return str(key)


def load_yaml(data: bytes, source: str, *, max_bytes: int = MAX_BYTES) -> Any:
    """Parse YAML bytes from outside into plain JSON data.

    Parameters
    ----------
    data
        The file's bytes; they must be UTF-8 (a UTF-8 byte-order mark is allowed).
    source
        How to name the file in messages.
    max_bytes
        Refuse larger input before parsing it.

    Raises
    ------
    YAMLError
        With the file and, where known, the line.

    Examples
    --------
    >>> load_yaml(b"submitted: 2026-05-20\\ntasks: [end_to_end]", "s.yaml")
    {'submitted': '2026-05-20T00:00:00Z', 'tasks': ['end_to_end']}
    >>> load_yaml(b"a: &x [1]\\nb: *x", "s.yaml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    stecflow.core.errors.YAMLError: s.yaml, line 1, a: anchors (&x) are not allowed; ...
    """
    if len(data) > max_bytes:
        raise YAMLError(
            f"file is {len(data):,} bytes; the limit is {max_bytes:,} bytes",
            file=source,
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise YAMLError(
            "bytes are not valid UTF-8; save the file as UTF-8",
            file=source,
            line=data.count(b"\n", 0, exc.start) + 1,
        ) from None
    loader = None
    try:
        loader = _StrictLoader(text)
        return _plain(loader.get_single_data())
    except _Refused as exc:
        raise YAMLError(
            exc.message, file=source, line=exc.line, field=exc.field
        ) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise YAMLError(
            f"not valid YAML: {exc.problem or exc.context}",
            file=source,
            line=mark.line + 1 if mark else None,
        ) from None
    except yaml.reader.ReaderError as exc:
        raise YAMLError(
            f"character U+{exc.character:04X} is not allowed in YAML; remove it",
            file=source,
            line=text.count("\n", 0, exc.position) + 1,
        ) from None
    except yaml.YAMLError as exc:
        raise YAMLError(f"not valid YAML: {exc}", file=source) from None
    finally:
        if loader is not None:
            loader.dispose()


def read_yaml(path: str | Path, *, max_bytes: int = MAX_BYTES) -> Any:
    """Read a YAML file from outside with :func:`load_yaml`.

    The size is checked with one ``stat`` before the file is read.
    """
    path = Path(path)
    size = path.stat().st_size
    if size > max_bytes:
        raise YAMLError(
            f"file is {size:,} bytes; the limit is {max_bytes:,} bytes", file=str(path)
        )
    with open(path, "rb") as handle:
        data = handle.read(max_bytes + 1)
    return load_yaml(data, str(path), max_bytes=max_bytes)

"""How an item's input is shown beside the texts of a text study.

:func:`shown_input` turns an item's input into what the page draws: plain text
(``kind: text``), RDF-style triples as a table subject | predicate | object
(``kind: triples``), a JSON object as a table of its fields (``kind: json``,
nested values as compact JSON) or, for an object with an ``html`` string, the
organiser's HTML snippet (``kind: html``). :func:`sanitise_html` cleans such a
snippet by an allow-list, and the page builds it element by element (never
through ``innerHTML``): the tags of :data:`HTML_TAGS`, the attributes of
:data:`HTML_ATTRIBUTES` only (``colspan`` and ``rowspan`` of 1-99, ``lang``,
``dir``); the contents of :data:`HTML_DROPPED` (scripts, styles, frames, forms'
fields, media...) and comments are removed, every other tag is unwrapped (its
text kept). What was removed is logged and listed in the document's ``notes``.

May import: :mod:`stecflow.core`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from html.parser import HTMLParser
from typing import Any

from stecflow.core.errors import StimuliError

__all__ = [
    "HTML_ATTRIBUTES",
    "HTML_DROPPED",
    "HTML_TAGS",
    "sanitise_html",
    "shown_input",
]

#: Tags of an organiser's HTML snippet that are kept (the page builds only these).
HTML_TAGS = frozenset(
    {
        "p", "br", "hr", "div", "span", "b", "strong", "i", "em", "u", "s",
        "sub", "sup", "small", "mark", "code", "pre", "blockquote", "q",
        "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "dl", "dt", "dd",
        "table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td",
    }
)  # fmt: skip
#: Tags without content or end tag.
_VOID = frozenset({"br", "hr"})
#: The attributes kept, with the values allowed (anything else is dropped).
HTML_ATTRIBUTES = {
    "colspan": r"[1-9][0-9]?",
    "rowspan": r"[1-9][0-9]?",
    "lang": r"[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*",
    "dir": r"ltr|rtl|auto",
}
#: Elements removed with everything inside them.
HTML_DROPPED = frozenset(
    {
        "script", "style", "template", "iframe", "frame", "frameset", "object",
        "embed", "applet", "noscript", "svg", "math", "textarea", "select",
        "option", "button", "input", "form", "head", "title", "meta", "link",
        "base", "img", "picture", "video", "audio", "source", "track", "canvas",
        "map", "area", "portal", "dialog",
    }
)  # fmt: skip
_VOID_DROPPED = frozenset(
    {"img", "input", "meta", "link", "base", "source", "track", "area", "embed"}
)
#: Open elements a start tag closes (as a browser does: a new cell ends the last).
_IMPLIED_END = {
    "p": {"p"},
    "li": {"li"},
    "dt": {"dt", "dd"},
    "dd": {"dt", "dd"},
    "td": {"td", "th"},
    "th": {"td", "th"},
    "tr": {"tr", "td", "th"},
}
_MAX_INPUT_CHARS = 100_000


class _Sanitiser(HTMLParser):
    """Parse a snippet into allowed nodes: str or [tag, {attr: value}, children]."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root: list[Any] = []
        self.stack: list[tuple[str, list[Any]]] = [("", self.root)]
        self.dropping: list[str] = []
        self.removed: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        tag = tag.lower()
        if self.dropping:
            if tag not in _VOID_DROPPED and tag not in _VOID:
                self.dropping.append(tag)
            return
        if tag in HTML_DROPPED:
            self.removed.add(tag)
            if tag not in _VOID_DROPPED:
                self.dropping.append(tag)
            return
        if tag not in HTML_TAGS:
            self.removed.add(f"<{tag}> (unwrapped)")
            return
        kept: dict[str, str] = {}
        for name, value in attrs:
            name = name.lower()
            pattern = HTML_ATTRIBUTES.get(name)
            if (
                pattern is not None
                and value is not None
                and re.fullmatch(pattern, value.strip())
            ):
                kept[name] = value.strip()
                continue
            self.removed.add(f"{tag}@{name}")
        while self.stack[-1][0] in _IMPLIED_END.get(tag, ()):
            self.stack.pop()
        node: list[Any] = [tag, dict(sorted(kept.items())), []]
        self.stack[-1][1].append(node)
        if tag not in _VOID:
            self.stack.append((tag, node[2]))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag.lower() in _VOID or tag.lower() in _VOID_DROPPED:
            self.handle_starttag(tag, attrs)
            return
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        tag = tag.lower()
        if self.dropping:
            if tag in self.dropping:
                while self.dropping and self.dropping.pop() != tag:
                    pass
            return
        if tag in _VOID:
            return
        if any(open_tag == tag for open_tag, _ in self.stack[1:]):
            while self.stack[-1][0] != tag:
                self.stack.pop()
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if self.dropping or not data:
            return
        children = self.stack[-1][1]
        if children and isinstance(children[-1], str):
            children[-1] += data
        else:
            children.append(data)

    def handle_comment(self, data: str) -> None:
        self.removed.add("comment")

    def handle_decl(self, decl: str) -> None:
        self.removed.add("declaration")

    def handle_pi(self, data: str) -> None:
        self.removed.add("processing instruction")

    def unknown_decl(self, data: str) -> None:  # pragma: no cover - CDATA etc.
        self.removed.add("declaration")


def sanitise_html(snippet: str) -> tuple[list[Any], list[str]]:
    """An organiser's HTML snippet as allowed nodes, and what was removed.

    Parameters
    ----------
    snippet : str
        The HTML fragment.

    Returns
    -------
    (list, list of str)
        The nodes, each a string (text, entities decoded) or ``[tag, {attribute:
        value}, children]`` with a tag of :data:`HTML_TAGS` and attributes of
        :data:`HTML_ATTRIBUTES` only; and what was removed, sorted (``script``,
        ``<font> (unwrapped)``, ``td@style``, ``comment``...).

    Examples
    --------
    >>> nodes, removed = sanitise_html(
    ...     '<p onclick="x()">A <b>bold</b> claim<script>evil()</script></p>'
    ...     '<a href="http://x">link</a>')
    >>> nodes
    [['p', {}, ['A ', ['b', {}, ['bold']], ' claim']], 'link']
    >>> removed
    ['<a> (unwrapped)', 'p@onclick', 'script']
    >>> sanitise_html('<td colspan="2" style="color:red">&amp;</td>')[0]
    [['td', {'colspan': '2'}, ['&']]]
    """
    parser = _Sanitiser()
    parser.feed(snippet)
    parser.close()
    return parser.root, sorted(parser.removed)


def _input_value(value: Any) -> tuple[str, Any]:
    """(kind, value) of an item's input: a TextInput-like object, str, list or dict."""
    kind = getattr(value, "kind", None)
    if isinstance(kind, str) and hasattr(value, "value"):
        inner = value.value
        if kind == "json" and isinstance(inner, str):
            inner = json.loads(inner)
        elif kind == "json" and isinstance(inner, tuple | list):
            inner = dict(inner)
        return kind, inner
    if value is None:
        return "none", None
    if isinstance(value, str):
        return "text", value
    if isinstance(value, Mapping):
        return "json", value
    if isinstance(value, Sequence):
        return "triples", value
    raise StimuliError(
        f"cannot show an input of type {type(value).__name__}: give text, a list "
        "of triples or a JSON object",
        field="input",
    )


def _plain_json(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain_json(v) for v in value]
    return value


def shown_input(value: Any) -> tuple[dict[str, Any], list[str]]:
    """How a stimulus shows an item's input, and what was removed from it.

    Parameters
    ----------
    value : object
        The item's ``input``: a string, a sequence of ``(subject, predicate,
        object)`` triples, a mapping (a JSON object; with an ``html`` string it
        is the organiser's HTML snippet), an object with ``kind`` (``text``,
        ``triples``, ``json``) and ``value`` (the text task type's input), or
        None (nothing shown).

    Returns
    -------
    (dict, list of str)
        ``{"kind": "text", "text": ...}``, ``{"kind": "triples", "triples":
        [[s, p, o], ...]}``, ``{"kind": "json", "fields": [[name, value],
        ...]}`` (values that are not strings as compact JSON, keys sorted),
        ``{"kind": "html", "nodes": ...}`` (:func:`sanitise_html`) or
        ``{"kind": "none"}``; and what the sanitiser removed.

    Raises
    ------
    StimuliError
        A triple that is not three strings, an input that is none of these or
        longer than 100 000 characters.

    Examples
    --------
    >>> shown_input([("Alan_Bean", "birthPlace", "Wheeler,_Texas")])[0]
    {'kind': 'triples', 'triples': [['Alan_Bean', 'birthPlace', 'Wheeler,_Texas']]}
    >>> shown_input({"name": "Aromi", "stars": 3})[0]
    {'kind': 'json', 'fields': [['name', 'Aromi'], ['stars', '3']]}
    """
    kind, inner = _input_value(value)
    if kind == "none":
        return {"kind": "none"}, []
    if kind == "text":
        text = str(inner)
        if len(text) > _MAX_INPUT_CHARS:
            raise StimuliError(
                f"the input has {len(text)} characters, more than a stimulus shows "
                f"({_MAX_INPUT_CHARS})",
                field="input",
            )
        return {"kind": "text", "text": text}, []
    if kind == "triples":
        triples = []
        for n, triple in enumerate(inner):
            if (
                isinstance(triple, str)
                or not isinstance(triple, Sequence)
                or len(triple) != 3
                or not all(isinstance(x, str) for x in triple)
            ):
                raise StimuliError(
                    f"triple {n + 1} is {triple!r}, not three strings "
                    "(subject, predicate, object)",
                    field="input",
                )
            triples.append([str(x) for x in triple])
        return {"kind": "triples", "triples": triples}, []
    if kind == "json":
        data = _plain_json(inner)
        if isinstance(data, Mapping) and isinstance(data.get("html"), str):
            nodes, removed = sanitise_html(data["html"])
            return {"kind": "html", "nodes": nodes}, removed
        if not isinstance(data, Mapping):
            raise StimuliError("a JSON input must be an object", field="input")
        fields = []
        for key in sorted(data):
            item = data[key]
            text = (
                item
                if isinstance(item, str)
                else json.dumps(
                    item, sort_keys=True, ensure_ascii=False, separators=(",", ":")
                )
            )
            fields.append([key, text])
        if sum(len(k) + len(v) for k, v in fields) > _MAX_INPUT_CHARS:
            raise StimuliError(
                f"the input is longer than a stimulus shows ({_MAX_INPUT_CHARS} "
                "characters)",
                field="input",
            )
        return {"kind": "json", "fields": fields}, []
    raise StimuliError(
        f"unknown input kind {kind!r}: text, triples or json", field="input"
    )

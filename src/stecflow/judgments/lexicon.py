"""What a description says: its content, a set of (attribute, value) pairs.

The simulated participants (:mod:`stecflow.judgments.participant`) compare the
content S of a description with the entities of its item's domain. S is the
attribute set the system produced when there is one (option
``content="attributes_first"``), otherwise it is read from the words with a
lexicon (:class:`Lexicon`): the template realiser's words for every attribute
(:data:`stecflow.tasks.reg.realiser.TEMPLATE_SLOTS`, grid rows and columns) and every
phrase that the human references of the items annotate with an attribute
(``ANNOTATED-WORD-STRING`` spans such as ``couch`` -> ``type:sofa`` or
``second from the right`` -> ``x-dimension:4``). Phrases are matched longest
first; only attributes that occur in the item's domain count; ``without``,
``no`` and ``not`` negate the yes/no attributes that follow.

Names and values are compared lower-cased, integers in plain form;
:func:`entity_sets` gives the domain's entities in the same form.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from stecflow.data.model import Item

__all__ = ["Lexicon", "description_content", "entity_sets", "word_tokens"]

_TOKEN = re.compile(r"[a-z0-9]+")
_SPAN = re.compile(
    r"<ATTRIBUTE\s+NAME=\"([^\"]*)\"\s+VALUE=\"([^\"]*)\"\s*>(.*?)</ATTRIBUTE>",
    re.IGNORECASE | re.DOTALL,
)
_NEGATORS = {"without", "no", "not"}
_SCOPE_END = {"with", "wearing", "facing", "at", "in", "on", "looking", "who"}
_ROWS: dict[str, tuple[str, ...]] = {"1": ("top",), "2": ("middle",), "3": ("bottom",)}
_COLUMNS: dict[str, tuple[str, ...]] = {
    "1": ("left",),
    "2": ("centre", "left"),
    "3": ("centre",),
    "4": ("centre", "right"),
    "5": ("right",),
}


def word_tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def _norm(name: str, value: str) -> tuple[str, str]:
    value = str(value).strip().lower()
    if re.fullmatch(r"[+-]?\d+", value):
        value = str(int(value))
    return str(name).strip().lower(), value


class Lexicon:
    """Phrases (token tuples) mapped to the attributes they express.

    Built from the template realiser's vocabulary and from the annotated human
    references of the given items (see the module docstring).

    Examples
    --------
    >>> lex = Lexicon()
    >>> sorted(lex.parse("the large red chair facing left"))
    [('colour', 'red'), ('orientation', 'left'), ('size', 'large'), ('type', 'chair')]
    >>> sorted(lex.parse("the man without a beard and glasses"))
    [('hasbeard', '0'), ('hasglasses', '0'), ('type', 'person')]
    """

    def __init__(self, items: Iterable[Item] = ()) -> None:
        self.phrases: dict[tuple[str, ...], Counter[tuple[str, str]]] = {}
        self._realiser()
        for item in items:
            for reference in item.references:
                if reference.annotated_word_string:
                    self._annotated(reference.annotated_word_string)
        self.max_len = max((len(p) for p in self.phrases), default=1)

    def add(
        self, phrase: Sequence[str], attribute: tuple[str, str], n: int = 1
    ) -> None:
        """Record that *phrase* expresses *attribute* (*n* more times)."""
        key = tuple(phrase)
        if key:
            self.phrases.setdefault(key, Counter())[_norm(*attribute)] += n

    def _realiser(self) -> None:
        from stecflow.tasks.reg.realiser import TEMPLATE_SLOTS

        negative_slots = (7, 9)
        for (name, value), (slot, words) in TEMPLATE_SLOTS.items():
            if slot in negative_slots:
                continue
            self.add(word_tokens(words), (name, value), 5)
            if words.startswith("a "):
                self.add(word_tokens(words[2:]), (name, value), 5)
        for value, phrase in _ROWS.items():
            self.add(phrase, ("y-dimension", value), 5)
        for value, phrase in _COLUMNS.items():
            self.add(phrase, ("x-dimension", value), 5)
        for word in ("man", "woman", "guy", "person", "one"):
            if word != "one":
                self.add((word,), ("type", "person"), 3)

    def _annotated(self, annotated: str) -> None:
        for name, value, span in _SPAN.findall(annotated):
            text = re.sub(r"<[^>]+>", " ", html.unescape(span))
            self.add(word_tokens(text), (name, value))

    def parse(
        self, text: str, allowed: Mapping[str, set[str]] | None = None
    ) -> frozenset[tuple[str, str]]:
        """Read the attributes a description expresses.

        Parameters
        ----------
        text : str
            The description.
        allowed : mapping, optional
            Attribute name -> values that occur in the item's domain (lower
            case); attributes outside it are ignored.

        Returns
        -------
        frozenset of (name, value)
            Lower-cased names and values.
        """
        tokens = word_tokens(text)
        found: set[tuple[str, str]] = set()
        negative = False
        i = 0
        while i < len(tokens):
            match = None
            for length in range(min(self.max_len, len(tokens) - i), 0, -1):
                phrase = tuple(tokens[i : i + length])
                attribute = self._best(phrase, allowed)
                if attribute is not None:
                    match = (phrase, attribute)
                    break
            if match is not None:
                phrase, (name, value) = match
                if negative and value == "1" and not (_NEGATORS & set(phrase)):
                    value = "0"
                    if allowed is not None and value not in allowed.get(name, set()):
                        value = "1"
                found.add((name, value))
                i += len(phrase)
                continue
            token = tokens[i]
            if token in _NEGATORS:
                negative = True
            elif token in _SCOPE_END and not (
                token == "wearing" and i and tokens[i - 1] == "not"
            ):
                negative = False
            i += 1
        return frozenset(found)

    def _best(
        self, phrase: tuple[str, ...], allowed: Mapping[str, set[str]] | None
    ) -> tuple[str, str] | None:
        counts = self.phrases.get(phrase)
        if not counts:
            return None
        options = [
            (n, attribute)
            for attribute, n in counts.items()
            if allowed is None or attribute[1] in allowed.get(attribute[0], set())
        ]
        if not options:
            return None
        return sorted(options, key=lambda o: (-o[0], o[1]))[0][1]


def _domain_attributes(item: Item) -> dict[str, set[str]]:
    allowed: dict[str, set[str]] = {}
    for entity in item.domain.entities:
        for attribute in entity.attributes:
            name, value = _norm(attribute.name, attribute.value)
            allowed.setdefault(name, set()).add(value)
    return allowed


def entity_sets(item: Item) -> list[tuple[str, frozenset[tuple[str, str]], bool]]:
    return [
        (
            e.id,
            frozenset(_norm(a.name, a.value) for a in e.attributes),
            e.is_target,
        )
        for e in item.domain.entities
    ]


def description_content(
    description: str,
    item: Item,
    *,
    attributes: Iterable[tuple[str, str]] | None = None,
    lexicon: Lexicon | None = None,
) -> frozenset[tuple[str, str]]:
    """The content S of a description in its item's domain (lower case).

    The system's attribute set when given, else the attributes read from the
    words with *lexicon* (default: a lexicon built from *item* alone).

    Examples
    --------
    >>> from stecflow.data.model import Domain, Entity, EntityAttribute, Item
    >>> e = Entity("e1", True, (EntityAttribute("type", "chair"),
    ...                         EntityAttribute("colour", "red")))
    >>> item = Item("t1", Domain((e,)), "furniture")
    >>> sorted(description_content("the red chair", item))
    [('colour', 'red'), ('type', 'chair')]
    """
    if attributes is not None:
        return frozenset(_norm(n, v) for n, v in attributes)
    lexicon = lexicon or Lexicon([item])
    return lexicon.parse(description, _domain_attributes(item))

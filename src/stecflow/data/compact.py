"""The compact test set: the items of an XML test set as one small JSON document.

``prepare_testset`` reads the campaign's test set once and writes, next to the
stecflow XML that humans and the other stages read, ``data/testset.compact.json``:
exactly the :class:`~stecflow.data.model.Item` objects the XML reader returns
(domains with their entities and attributes, references with their word
strings, attribute sets and annotated word strings, subdomain, condition and the
other trial attributes), as nested JSON arrays. A per-submission job loads it
with the C JSON parser instead of parsing and walking the XML: in milliseconds
for the demo, and holding only the items, with each distinct attribute, entity
and string kept once however many items repeat it (TUNA's entities recur in
item after item), instead of a parsed tree.

The file is our own (written by ``prepare_testset``, never by a user), so
reading it checks its header and shape, not every field again; a file of another
version or a damaged one is refused with the file named and the way out
(re-run ``prepare_testset``). Writing is byte-deterministic: the items in their
order, sets sorted, no whitespace, UTF-8.

Layout (version 1)::

    {"format": "stecflow-compact-testset", "version": 1,
     "attributes": [[name, value, kind], ...],       # kind may be null
     "entities": [[id, is_target, image, [attribute index, ...]], ...],
     "items": [[id, subdomain, condition, [[extra name, value], ...],
                [entity index, ...],
                [[ref id, word string, attribute set or null,
                  annotated word string, [[field, value], ...]], ...]], ...]}

An attribute set is a sorted list of ``[name, value]`` pairs; ``null`` where the
reference has none (an empty set is ``[]``). Only items whose ``input`` is None
(the REG task types) have a compact form; the other task types' prepared test
sets are JSON already and are read as they are.

May import: :mod:`stecflow.core`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from stecflow.core.errors import CorpusError
from stecflow.data.model import Domain, Entity, EntityAttribute, Item, Reference

__all__ = ["COMPACT_SUFFIX", "FORMAT", "VERSION", "read_compact", "write_compact"]

#: The ``format`` field of the header.
FORMAT = "stecflow-compact-testset"
#: The layout version this module writes and reads.
VERSION = 1
#: How a compact test set's file name ends (``testset.compact.json``).
COMPACT_SUFFIX = ".compact.json"


def _pairs(pairs: Iterable[tuple[str, str]] | None) -> list[list[str]] | None:
    return None if pairs is None else [[n, v] for n, v in sorted(pairs)]


def write_compact(items: Sequence[Item], path: str | Path) -> int:
    """Write *items* (REG items: ``input`` None) as a compact test set.

    Returns the number of items. Same items, same bytes.

    Raises
    ------
    ValueError
        If an item has an ``input`` (a task type whose items are more than a
        domain): those test sets have no compact form.
    """
    attributes: dict[tuple[str, str, str | None], int] = {}
    entities: dict[tuple[str, bool, str | None, tuple[int, ...]], int] = {}
    rows: list[list[Any]] = []
    for item in items:
        if item.input is not None:
            raise ValueError(
                f"item {item.id} has a task input: only REG test sets have a"
                " compact form"
            )
        entity_ids = []
        for entity in item.domain.entities:
            attribute_ids = tuple(
                attributes.setdefault((a.name, a.value, a.kind), len(attributes))
                for a in entity.attributes
            )
            key = (entity.id, entity.is_target, entity.image, attribute_ids)
            entity_ids.append(entities.setdefault(key, len(entities)))
        references = [
            [
                ref.id,
                ref.word_string,
                _pairs(ref.attribute_set),
                ref.annotated_word_string,
                [[name, value] for name, value in ref.fields],
            ]
            for ref in item.references
        ]
        rows.append(
            [
                item.id,
                item.subdomain,
                item.condition,
                [[name, value] for name, value in item.extra],
                entity_ids,
                references,
            ]
        )
    document = {
        "format": FORMAT,
        "version": VERSION,
        "attributes": [list(key) for key in attributes],
        "entities": [[i, t, img, list(a)] for i, t, img, a in entities],
        "items": rows,
    }
    text = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(text.encode("utf-8") + b"\n")
    return len(rows)


def _refuse(path: str | Path, message: str) -> CorpusError:
    return CorpusError(
        f"{message}; it is written by prepare_testset: delete it and run the"
        " workflow again",
        file=str(path),
        line=None,
        field=None,
    )


def read_compact(path: str | Path) -> list[Item]:
    """The items of a compact test set, equal to what the XML reader returns.

    Raises
    ------
    CorpusError
        If the file is not a compact test set of this version, or is damaged.
    """
    try:
        document = json.loads(Path(path).read_bytes())
    except (OSError, ValueError) as error:
        raise _refuse(path, f"not a readable compact test set ({error})") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise _refuse(path, f"not a compact test set (no format {FORMAT!r})")
    if document.get("version") != VERSION:
        raise _refuse(
            path,
            f"compact test set version {document.get('version')!r}; this"
            f" stecflow reads version {VERSION}",
        )
    intern = sys.intern
    try:
        attributes = [
            EntityAttribute(intern(n), intern(v), None if k is None else intern(k))
            for n, v, k in document["attributes"]
        ]
        entities = [
            Entity(
                intern(entity_id),
                bool(is_target),
                tuple(attributes[a] for a in attribute_ids),
                None if image is None else intern(image),
            )
            for entity_id, is_target, image, attribute_ids in document["entities"]
        ]
        domains: dict[tuple[int, ...], Domain] = {}
        sets: dict[tuple[tuple[str, str], ...], frozenset[tuple[str, str]]] = {}

        def attribute_set(pairs: list[list[str]] | None) -> Any:
            if pairs is None:
                return None
            key = tuple((intern(n), intern(v)) for n, v in pairs)
            found = sets.get(key)
            if found is None:
                found = sets[key] = frozenset(key)
            return found

        items = []
        for item_id, subdomain, condition, extra, entity_ids, refs in document["items"]:
            key = tuple(entity_ids)
            domain = domains.get(key)
            if domain is None:
                domain = domains[key] = Domain(tuple(entities[e] for e in key))
            items.append(
                Item(
                    item_id,
                    domain,
                    intern(subdomain),
                    None if condition is None else intern(condition),
                    tuple(
                        Reference(
                            word_string=words,
                            attribute_set=attribute_set(pairs),
                            annotated_word_string=annotated,
                            id=None if ref_id is None else intern(ref_id),
                            fields=tuple((intern(n), v) for n, v in fields),
                        )
                        for ref_id, words, pairs, annotated, fields in refs
                    ),
                    tuple((intern(n), v) for n, v in extra),
                )
            )
    except (KeyError, IndexError, TypeError, ValueError) as error:
        raise _refuse(path, f"a damaged compact test set ({error!r})") from None
    return items

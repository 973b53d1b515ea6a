"""Read and write corpora in the shared-task XML of the TUNA challenges.

Three layouts are read:

* the shared-task format of the TUNA challenges (Gatt, Belz & Kow 2008, 2009): a
  ``TRIAL`` with ``ID`` and ``CONDITION`` holding a ``DOMAIN`` of ``ENTITY`` elements
  and the human description as ``WORD-STRING``, ``ANNOTATED-WORD-STRING`` and
  ``ATTRIBUTE-SET`` (or ASGRE's ``DESCRIPTION``);
* the TUNA 1.0 distribution, one trial per file under
  ``corpus/singular/{furniture,people}/sNtM.xml``, with ``STRING-DESCRIPTION`` and a
  ``TYPE`` (literal, gradable, boolean) on each attribute;
* a collection file: any root element (``TRIALS`` when we write one) whose children are
  ``TRIAL`` elements; this is how stecflow stores a test set.

An item may have several human references. One reference is written directly in
the TRIAL, as in the challenges; several are each wrapped in a ``REFERENCE`` element
with an ``ID`` (HUMAN-1, HUMAN-2, …). Both are read.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from lxml import etree

from stecflow.core.errors import CorpusError
from stecflow.data.model import (
    ATTRIBUTE_KINDS,
    Domain,
    Entity,
    EntityAttribute,
    Item,
    Reference,
)
from stecflow.data.xmlsafe import parse_xml

__all__ = [
    "element_to_item",
    "infer_subdomain",
    "parse_attribute_set",
    "read_items",
    "write_items",
]

FURNITURE_TYPES = frozenset({"chair", "desk", "fan", "sofa"})
_FRAGMENT_PARSER = etree.XMLParser(
    resolve_entities=False, no_network=True, load_dtd=False
)


def _where(element: etree._Element, source: str) -> dict:
    return {"file": source, "line": element.sourceline, "field": f"<{element.tag}>"}


def _required(element: etree._Element, name: str, source: str) -> str:
    value = element.get(name)
    if value is None or not value.strip():
        raise CorpusError(
            f"the {name} attribute is missing or empty", **_where(element, source)
        )
    return value.strip()


def parse_attribute_set(
    element: etree._Element, source: str
) -> frozenset[tuple[str, str]]:
    """Read the ``ATTRIBUTE`` children of *element* (at any depth) as a set.

    Nested ATTRIBUTE elements are read too, since ANNOTATED-WORD-STRING and TUNA 1.0's
    DESCRIPTION nest them around the words that realise them.
    """
    pairs = set()
    for attribute in element.iter("ATTRIBUTE"):
        pairs.add(
            (
                _required(attribute, "NAME", source),
                _required(attribute, "VALUE", source),
            )
        )
    return frozenset(pairs)


def _text(element: etree._Element) -> str:
    return " ".join("".join(element.itertext()).split())


def _inner_xml(element: etree._Element) -> str:
    parts = [element.text or ""]
    for child in element:
        parts.append(etree.tostring(child, encoding="unicode", with_tail=True))
    return "".join(parts).strip()


# Checked ENTITY attributes by their raw (NAME, VALUE, TYPE) as lxml gives them:
# a test set repeats a few dozen of them thousands of times, so each is checked
# and built once, and the items share the (immutable) objects.
_ATTRIBUTES: dict[tuple[str | None, str | None, str | None], EntityAttribute] = {}
_ATTRIBUTES_MAX = 100_000


def _entity_attribute(attribute: etree._Element, source: str) -> EntityAttribute:
    get = attribute.get
    key = (get("NAME"), get("VALUE"), get("TYPE"))
    known = _ATTRIBUTES.get(key)
    if known is not None:
        return known
    kind = key[2]
    if kind is not None and kind not in ATTRIBUTE_KINDS:
        raise CorpusError(
            f"attribute TYPE is {kind!r}; expected one of {', '.join(ATTRIBUTE_KINDS)}",
            **_where(attribute, source),
        )
    checked = EntityAttribute(
        _required(attribute, "NAME", source),
        _required(attribute, "VALUE", source),
        kind,
    )
    if len(_ATTRIBUTES) >= _ATTRIBUTES_MAX:
        _ATTRIBUTES.clear()
    _ATTRIBUTES[key] = checked
    return checked


def _parse_entity(element: etree._Element, source: str) -> Entity:
    entity_type = _required(element, "TYPE", source)
    if entity_type not in ("target", "distractor"):
        raise CorpusError(
            f"TYPE is {entity_type!r}; expected 'target' or 'distractor'",
            **_where(element, source),
        )
    return Entity(
        id=_required(element, "ID", source),
        is_target=entity_type == "target",
        attributes=tuple(
            [_entity_attribute(a, source) for a in element.iterchildren("ATTRIBUTE")]
        ),
        image=element.get("IMAGE"),
    )


def _parse_domain(element: etree._Element, source: str) -> Domain:
    entities = tuple([_parse_entity(e, source) for e in element.iterchildren("ENTITY")])
    targets = [e for e in entities if e.is_target]
    if len(targets) != 1:
        raise CorpusError(
            f"a DOMAIN needs exactly one target ENTITY; found {len(targets)}",
            **_where(element, source),
        )
    ids = [e.id for e in entities]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise CorpusError(
            f"ENTITY IDs repeated in one DOMAIN: {', '.join(duplicates)}",
            **_where(element, source),
        )
    return Domain(entities)


def _parse_reference(container: etree._Element, source: str) -> Reference | None:
    """Read the reference parts that are direct children of *container*."""
    word_string = annotated = attrs = None
    for child in container:
        if child.tag in ("WORD-STRING", "STRING-DESCRIPTION"):
            word_string = _text(child)
        elif child.tag == "ANNOTATED-WORD-STRING":
            annotated = _inner_xml(child)
        elif child.tag == "ATTRIBUTE-SET":
            attrs = parse_attribute_set(child, source)
        elif child.tag == "DESCRIPTION":
            # ASGRE: a set of attributes; TUNA 1.0: the annotated string.
            if _text(child):
                annotated = annotated if annotated is not None else _inner_xml(child)
            if attrs is None:
                attrs = parse_attribute_set(child, source)
    if word_string is None and annotated is None and attrs is None:
        return None
    return Reference(
        word_string=word_string,
        attribute_set=attrs,
        annotated_word_string=annotated,
        id=container.get("ID") if container.tag == "REFERENCE" else None,
    )


def infer_subdomain(domain: Domain) -> str:
    """Guess the TUNA subdomain from the entities' ``type`` attribute.

    >>> from stecflow.data.model import EntityAttribute as A
    >>> infer_subdomain(Domain((Entity("e1", True, (A("type", "fan"),)),)))
    'furniture'
    """
    types = {e.value_of("type") for e in domain.entities}
    if types and types <= FURNITURE_TYPES:
        return "furniture"
    if types == {"person"}:
        return "people"
    return "all"


def element_to_item(
    trial: etree._Element, source: str, *, subdomain: str | None = None
) -> Item:
    """Convert one ``TRIAL`` element to an :class:`Item`.

    The subdomain comes from the TRIAL's ``SUBDOMAIN`` attribute, else from
    *subdomain* (the TUNA 1.0 folder name), else from the entity types.
    """
    if trial.tag != "TRIAL":
        raise CorpusError("expected a TRIAL element", **_where(trial, source))
    item_id = _required(trial, "ID", source)
    domains = trial.findall("DOMAIN")
    if len(domains) != 1:
        raise CorpusError(
            f"TRIAL {item_id} needs exactly one DOMAIN; found {len(domains)}",
            **_where(trial, source),
        )
    domain = _parse_domain(domains[0], source)
    references: list[Reference] = []
    wrapped = trial.findall("REFERENCE")
    for container in wrapped:
        reference = _parse_reference(container, source)
        if reference is None:
            raise CorpusError("empty REFERENCE", **_where(container, source))
        references.append(reference)
    direct = _parse_reference(trial, source)
    if direct is not None:
        if wrapped:
            raise CorpusError(
                f"TRIAL {item_id} mixes REFERENCE elements with a description outside"
                " them; put every reference in its own REFERENCE",
                **_where(trial, source),
            )
        references.append(direct)
    condition = trial.get("CONDITION")
    condition = condition.strip() if condition else None
    known = {"ID", "CONDITION", "SUBDOMAIN"}
    extra = tuple(sorted((k, v) for k, v in trial.attrib.items() if k not in known))
    return Item(
        id=item_id,
        domain=domain,
        subdomain=trial.get("SUBDOMAIN") or subdomain or infer_subdomain(domain),
        condition=condition,
        references=tuple(references),
        extra=extra,
    )


def _trials_of(root: etree._Element, source: str) -> list[etree._Element]:
    if root.tag == "TRIAL":
        return [root]
    trials = [child for child in root if child.tag == "TRIAL"]
    if not trials:
        raise CorpusError(
            f"no TRIAL elements under the root <{root.tag}>",
            file=source,
            line=root.sourceline,
        )
    return trials


def _check_unique(items: Sequence[Item], source: str) -> None:
    seen: set[str] = set()
    for item in items:
        if item.id in seen:
            raise CorpusError(
                f"TRIAL ID {item.id!r} occurs more than once", file=source
            )
        seen.add(item.id)


def read_items(path: str | Path) -> list[Item]:
    """Read the items of a corpus file or of a TUNA 1.0 style directory.

    Parameters
    ----------
    path
        A collection file, a single-TRIAL file, or a directory searched recursively
        for ``*.xml`` files in sorted order (TUNA 1.0: ``corpus/singular/people/…``;
        a folder named ``furniture`` or ``people`` gives the subdomain); or the
        compact form of a prepared test set (``testset.compact.json``, read by
        :func:`stecflow.data.compact.read_compact`: the same items in a tenth of
        the memory).

    Returns
    -------
    list of Item
        In file order (directories: sorted path order).

    Raises
    ------
    XMLError, CorpusError
        With file, line and element of the first problem.
    """
    from stecflow.data.compact import COMPACT_SUFFIX, read_compact

    if str(path).endswith(COMPACT_SUFFIX):
        return read_compact(path)
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*.xml") if p.is_file())
        if not files:
            raise CorpusError("no .xml files found in this directory", file=str(path))
        items = []
        for file in files:
            subdomain = next(
                (
                    part
                    for part in reversed(file.parts[:-1])
                    if part in ("furniture", "people")
                ),
                None,
            )
            root = parse_xml(file)
            items.extend(
                element_to_item(t, str(file), subdomain=subdomain)
                for t in _trials_of(root, str(file))
            )
        _check_unique(items, str(path))
        return items
    root = parse_xml(path)
    with _no_collection():
        items = [element_to_item(t, str(path)) for t in _trials_of(root, str(path))]
    _check_unique(items, str(path))
    return items


@contextmanager
def _no_collection() -> Iterator[None]:
    """Pause the cyclic garbage collector while a test set's objects are built.

    Hundreds of thousands of new (acyclic) objects would otherwise trigger
    collections that traverse every one of them again and again.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _attribute(
    parent: etree._Element, name: str, value: str, kind: str | None = None
) -> None:
    element = etree.SubElement(parent, "ATTRIBUTE", NAME=name, VALUE=value)
    if kind is not None:
        element.set("TYPE", kind)


def _reference_children(parent: etree._Element, reference: Reference) -> None:
    if reference.word_string is not None:
        etree.SubElement(parent, "WORD-STRING").text = reference.word_string
    if reference.annotated_word_string is not None:
        fragment = etree.fromstring(
            f"<ANNOTATED-WORD-STRING>{reference.annotated_word_string}"
            "</ANNOTATED-WORD-STRING>",
            _FRAGMENT_PARSER,
        )
        parent.append(fragment)
    if reference.attribute_set is not None:
        attribute_set = etree.SubElement(parent, "ATTRIBUTE-SET")
        for name, value in sorted(reference.attribute_set):
            _attribute(attribute_set, name, value)


def item_to_element(item: Item) -> etree._Element:
    """Convert an :class:`Item` to a ``TRIAL`` element (the inverse of reading)."""
    trial = etree.Element("TRIAL", ID=item.id)
    if item.condition is not None:
        trial.set("CONDITION", item.condition)
    trial.set("SUBDOMAIN", item.subdomain)
    for name, value in item.extra:
        trial.set(name, value)
    domain = etree.SubElement(trial, "DOMAIN")
    for entity in item.domain.entities:
        element = etree.SubElement(
            domain,
            "ENTITY",
            ID=entity.id,
            TYPE="target" if entity.is_target else "distractor",
        )
        if entity.image is not None:
            element.set("IMAGE", entity.image)
        for attribute in entity.attributes:
            _attribute(element, attribute.name, attribute.value, attribute.kind)
    if len(item.references) == 1 and item.references[0].id is None:
        _reference_children(trial, item.references[0])
    else:
        for reference in item.references:
            container = etree.SubElement(trial, "REFERENCE")
            if reference.id is not None:
                container.set("ID", reference.id)
            _reference_children(container, reference)
    return trial


def write_items(items: Iterable[Item], path: str | Path) -> None:
    """Write items as one UTF-8 collection file (root ``TRIALS``), deterministically."""
    root = etree.Element("TRIALS")
    for item in items:
        root.append(item_to_element(item))
    annotated = [
        (element, _inner_xml(element)) for element in root.iter("ANNOTATED-WORD-STRING")
    ]
    etree.indent(root, space="  ")
    # Indenting must not touch the mixed content of annotated strings.
    for element, inner in annotated:
        tail = element.tail
        fresh = etree.fromstring(
            f"<ANNOTATED-WORD-STRING>{inner}</ANNOTATED-WORD-STRING>", _FRAGMENT_PARSER
        )
        element.getparent().replace(element, fresh)
        fresh.tail = tail
    data = etree.tostring(
        root, encoding="UTF-8", xml_declaration=True, pretty_print=True
    )
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_bytes(data)

"""Import the b5-ref corpus of referring expressions (University of São Paulo).

b5-ref (Ramos et al. 2017; Paraboni, Monteiro & Lan 2017; CC BY 4.0) has 12 scenes
(``b5-ref-contexts.xml``: ``CONTEXT`` elements with 6 ``ATTRIBUTE-SET`` entities, one
with ``FUNCTION="target"``) and one file per speaker under ``xml-descriptions/``
whose ``CONTEXT`` elements hold that speaker's description of the scene's target: a
``STRING`` in Brazilian Portuguese and the ``ATTRIBUTE`` pairs it expresses. Files
are ISO-8859-1. There are no grid positions and no annotated strings.

Each scene becomes one :class:`~stecflow.data.model.Item` (ID ``ctx-01`` … ``ctx-12``,
subdomain ``people``, no condition) whose references are all its descriptions (about
150 each; 1,821 in all), with reference IDs ``speaker-<TRIAL ID>``.
"""

from __future__ import annotations

import re
from pathlib import Path

from stecflow.core.errors import CorpusError
from stecflow.data.model import Domain, Entity, EntityAttribute, Item, Reference
from stecflow.data.xmlsafe import parse_xml

__all__ = ["read_b5ref"]

_TRIAL_FILE = re.compile(r"^trial(\d+)\.xml$")


def _item_id(context_id: str) -> str:
    return f"ctx-{int(context_id):02d}"


def _read_contexts(path: Path) -> dict[str, Domain]:
    root = parse_xml(path)
    if root.tag != "DOMAIN":
        raise CorpusError(
            "expected root element DOMAIN", file=str(path), line=root.sourceline
        )
    domains = {}
    for context in root.findall("CONTEXT"):
        context_id = context.get("ID")
        if not context_id or not context_id.isdigit():
            raise CorpusError(
                "CONTEXT needs a numeric ID",
                file=str(path),
                line=context.sourceline,
                field="<CONTEXT>",
            )
        entities = []
        for entity in context.findall("ATTRIBUTE-SET"):
            function = entity.get("FUNCTION")
            if function not in ("target", "other"):
                raise CorpusError(
                    f"FUNCTION is {function!r}; expected 'target' or 'other'",
                    file=str(path),
                    line=entity.sourceline,
                    field="<ATTRIBUTE-SET>",
                )
            attributes = tuple(
                EntityAttribute(a.get("NAME", "").strip(), a.get("VALUE", "").strip())
                for a in entity.findall("ATTRIBUTE")
            )
            entities.append(
                Entity(entity.get("ID", ""), function == "target", attributes)
            )
        if sum(e.is_target for e in entities) != 1:
            raise CorpusError(
                "a CONTEXT needs exactly one target",
                file=str(path),
                line=context.sourceline,
                field=f"CONTEXT {context_id}",
            )
        domains[context_id] = Domain(tuple(entities))
    return domains


def read_b5ref(corpus_dir: str | Path) -> list[Item]:
    """Read b5-ref from its ``ref/`` folder (or the folder above it).

    Parameters
    ----------
    corpus_dir
        The b5-ref folder: it (or its ``ref`` subfolder) holds
        ``b5-ref-contexts.xml`` and ``xml-descriptions/``.

    Returns
    -------
    list of Item
        The 12 scenes in context order, each with every speaker's description as a
        reference (speakers in numeric order).

    Raises
    ------
    CorpusError
        If files are missing, or a description names a target other than its scene's.
    """
    base = Path(corpus_dir)
    if (base / "ref").is_dir():
        base = base / "ref"
    contexts_file = base / "b5-ref-contexts.xml"
    descriptions_dir = base / "xml-descriptions"
    if not contexts_file.is_file() or not descriptions_dir.is_dir():
        raise CorpusError(
            "not a b5-ref folder: expected b5-ref-contexts.xml and xml-descriptions/"
            " (b5-ref is part of the b5 corpus of the University of São Paulo,"
            " CC BY 4.0)",
            file=str(corpus_dir),
        )
    domains = _read_contexts(contexts_file)
    references: dict[str, list[Reference]] = {cid: [] for cid in domains}
    files = sorted(
        (int(m.group(1)), p)
        for p in descriptions_dir.iterdir()
        if (m := _TRIAL_FILE.match(p.name))
    )
    for _, path in files:
        root = parse_xml(path)
        speaker = root.get("ID") or path.stem
        for context in root.findall("CONTEXT"):
            context_id = context.get("ID", "")
            if context_id not in domains:
                raise CorpusError(
                    f"CONTEXT {context_id!r} is not in b5-ref-contexts.xml",
                    file=str(path),
                    line=context.sourceline,
                    field="<CONTEXT>",
                )
            target = domains[context_id].target.id
            for description in context.findall("ATTRIBUTE-SET"):
                if description.get("TARGET") != target:
                    raise CorpusError(
                        f"describes {description.get('TARGET')!r} but the scene's"
                        f" target is {target!r}",
                        file=str(path),
                        line=description.sourceline,
                        field="<ATTRIBUTE-SET>",
                    )
                pairs = frozenset(
                    (a.get("NAME", "").strip(), a.get("VALUE", "").strip())
                    for a in description.findall("ATTRIBUTE")
                )
                references[context_id].append(
                    Reference(
                        word_string=" ".join((description.get("STRING") or "").split()),
                        attribute_set=pairs,
                        id=f"speaker-{speaker}",
                    )
                )
    return [
        Item(
            id=_item_id(cid),
            domain=domains[cid],
            subdomain="people",
            condition=None,
            references=tuple(references[cid]),
        )
        for cid in sorted(domains, key=int)
    ]

"""Reading a REG submission's ``outputs.xml``, with every problem located.

The shared-task XML of the REG challenges: an ``OUTPUTS`` root with one ``TRIAL``
per test item, holding an ``ATTRIBUTE-SET`` (attribute selection) and/or a
``WORD-STRING`` (realisation, end to end). :func:`read_outputs` is the reader the
three REG task types declare (:data:`stecflow.tasks.base.OutputReader`): it never
raises on bad input, returns what it could read and a :class:`Problem` with file,
line and element for everything else, and stays within the submission limits.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lxml import etree

from stecflow.data.model import Item, Output
from stecflow.data.xmlsafe import parse_xml_lenient
from stecflow.tasks.base import Limits, Problem

__all__ = ["ELEMENTS", "KNOWN_XML_ATTRIBUTES", "read_outputs", "write_outputs"]

#: The element of a TRIAL that holds each :class:`Output` field.
ELEMENTS = {"attribute_set": "ATTRIBUTE-SET", "word_string": "WORD-STRING"}

#: XML attributes each element of an outputs file may carry; others are ignored
#: with a warning. TRIAL and ATTRIBUTE may repeat what the test set gives them.
KNOWN_XML_ATTRIBUTES = {
    "OUTPUTS": frozenset(),
    "TRIAL": frozenset({"ID", "CONDITION", "SUBDOMAIN"}),
    "ATTRIBUTE-SET": frozenset(),
    "ATTRIBUTE": frozenset({"NAME", "VALUE", "TYPE"}),
    "WORD-STRING": frozenset(),
}


def read_outputs(
    data: bytes,
    label: str,
    items: Sequence[Item],
    required: Sequence[str] = (),
    limits: Limits | None = None,
) -> tuple[list[Output], list[Problem]]:
    """Read an ``outputs.xml`` and check it against the test-set *items*.

    Parameters
    ----------
    data
        The bytes of ``outputs.xml``.
    label
        How to name the file in messages (a relative path).
    items
        The test-set items, in test-set order.
    required
        The :class:`Output` fields every TRIAL must give (``attribute_set``,
        ``word_string``): those the submission's task types need.
    limits
        Size limits (the defaults of :class:`Limits` if not given).

    Returns
    -------
    (outputs, problems)
        One :class:`Output` per TRIAL that could be read (test-set order), and every
        problem found. Outputs are returned even when there are problems.
    """
    limits = limits or Limits()
    problems: list[Problem] = []
    root, xml_problems = parse_xml_lenient(
        data, label, max_elements={"TRIAL": limits.max_trials}
    )
    for p in xml_problems:
        if "limit is" in p.message:
            code = "too_many_trials"
        elif "not valid" in p.message or p.severity == "warning":
            code = "undecodable" if p.severity == "error" else "encoding_mismatch"
        else:
            code = "xml_syntax"
        problems.append(Problem(code, p.message, label, p.line, p.element, p.severity))
    if root is None:
        return [], problems
    if root.tag != "OUTPUTS":
        qname = etree.QName(root)
        where = (
            f"in the namespace {qname.namespace!r}; remove the xmlns declaration"
            if qname.namespace
            else "expected <OUTPUTS>"
        )
        problems.append(
            Problem(
                "unexpected_root",
                f"the root element is <{qname.localname}> {where}"
                if qname.namespace
                else f"the root element is <{root.tag}>; {where}",
                label,
                root.sourceline,
                f"<{qname.localname}>",
            )
        )
        return [], problems
    by_id = {item.id: item for item in items}
    required = sorted(ELEMENTS[name] for name in set(required))
    first_line: dict[str, int | None] = {}
    outputs: dict[str, Output] = {}
    for trial in root:
        if not isinstance(trial.tag, str):
            continue
        line = trial.sourceline
        if trial.tag != "TRIAL":
            problems.append(
                Problem(
                    "unexpected_element",
                    f"unexpected <{trial.tag}>; only TRIAL elements belong here",
                    label,
                    line,
                    f"<{trial.tag}>",
                )
            )
            continue
        item_id = (trial.get("ID") or "").strip()
        if not item_id:
            problems.append(
                Problem("missing_id", "TRIAL without an ID", label, line, "TRIAL")
            )
            continue
        field = f"TRIAL {item_id}"
        if item_id in first_line:
            problems.append(
                Problem(
                    "duplicate_item",
                    f"item {item_id} appears again"
                    f" (first on line {first_line[item_id]}); give one TRIAL per item",
                    label,
                    line,
                    field,
                )
            )
            continue
        first_line[item_id] = line
        item = by_id.get(item_id)
        if item is None:
            problems.append(
                Problem(
                    "unknown_item",
                    f"item {item_id} is not in the test set",
                    label,
                    line,
                    field,
                )
            )
            continue
        outputs[item_id] = _read_trial(trial, item, label, required, limits, problems)
    for item in items:
        if item.id not in first_line:
            problems.append(
                Problem(
                    "missing_item",
                    f"no output for item {item.id}; give one TRIAL per test item",
                    label,
                    None,
                    f"TRIAL {item.id}",
                )
            )
    problems.extend(_unknown_xml_attributes(root, label))
    return [outputs[i.id] for i in items if i.id in outputs], problems


def _unknown_xml_attributes(root: Any, label: str, shown: int = 5) -> list[Problem]:
    """One warning listing the first few XML attributes stecflow ignores."""
    found = []
    for element in root.iter(*KNOWN_XML_ATTRIBUTES):
        names = element.keys()  # one list from lxml, faster than .attrib
        known = KNOWN_XML_ATTRIBUTES[element.tag]
        if names and not known.issuperset(names):
            found += [
                (element.sourceline, element.tag, name)
                for name in names
                if name not in known
            ]
    if not found:
        return []
    first = ", ".join(
        f"{tag} {etree.QName(name).localname}= on line {line}"
        for line, tag, name in found[:shown]
    )
    more = f" and {len(found) - shown:,} more" if len(found) > shown else ""
    return [
        Problem(
            "unknown_xml_attribute",
            f"{len(found):,} XML attributes that stecflow does not read are ignored:"
            f" {first}{more}",
            label,
            found[0][0],
            found[0][1],
            "warning",
        )
    ]


def _read_trial(
    trial: Any,
    item: Item,
    label: str,
    required: Sequence[str],
    limits: Limits,
    problems: list[Problem],
) -> Output:
    field = f"TRIAL {item.id}"
    word_string = attrs = None
    domain_values = item.domain.values()
    seen: dict[str, int] = {}
    for child in trial:
        if not isinstance(child.tag, str):
            continue
        where = f"{field} / {child.tag}"
        if child.tag in ("WORD-STRING", "ATTRIBUTE-SET"):
            if child.tag in seen:
                problems.append(
                    Problem(
                        "duplicate_output",
                        f"a second {child.tag} in this TRIAL (the first is on line"
                        f" {seen[child.tag]}); give one per item",
                        label,
                        child.sourceline,
                        where,
                    )
                )
                continue
            seen[child.tag] = child.sourceline
        if child.tag == "WORD-STRING":
            inner = [
                e for e in child.iter() if e is not child and isinstance(e.tag, str)
            ]
            if inner:
                problems.append(
                    Problem(
                        "unexpected_element",
                        f"<{inner[0].tag}> inside the WORD-STRING; only its text is"
                        " read (write plain text)",
                        label,
                        inner[0].sourceline,
                        where,
                        "warning",
                    )
                )
            text = "".join(child.itertext())
            word_string = " ".join(text.split())
            if not word_string:
                problems.append(
                    Problem(
                        "empty_string",
                        "the WORD-STRING is empty or only whitespace; it is scored"
                        " as an empty description",
                        label,
                        child.sourceline,
                        where,
                        "warning",
                    )
                )
            elif len(word_string) > limits.max_word_string_chars:
                problems.append(
                    Problem(
                        "string_too_long",
                        f"the WORD-STRING has {len(word_string):,} characters; the"
                        f" limit is {limits.max_word_string_chars:,}",
                        label,
                        child.sourceline,
                        where,
                    )
                )
        elif child.tag == "ATTRIBUTE-SET":
            attrs = _read_attribute_set(
                child, field, domain_values, label, limits, problems
            )
        else:
            problems.append(
                Problem(
                    "unexpected_element",
                    f"unexpected <{child.tag}> (expected ATTRIBUTE-SET or WORD-STRING);"
                    " it is ignored",
                    label,
                    child.sourceline,
                    where,
                    "warning",
                )
            )
    present = {
        "WORD-STRING": word_string is not None,
        "ATTRIBUTE-SET": attrs is not None,
    }
    for tag in required:
        if not present[tag]:
            problems.append(
                Problem(
                    "missing_output",
                    f"no {tag}, which the submission's tasks require",
                    label,
                    trial.sourceline,
                    field,
                )
            )
    return Output(item.id, word_string, attrs, trial.sourceline)


def _read_attribute_set(
    element: Any,
    field: str,
    domain_values: Mapping[str, Any],
    label: str,
    limits: Limits,
    problems: list[Problem],
) -> frozenset[tuple[str, str]]:
    where = f"{field} / ATTRIBUTE-SET"
    attributes = list(element.iter("ATTRIBUTE"))
    if len(attributes) > limits.max_attributes_per_set:
        problems.append(
            Problem(
                "too_many_attributes",
                f"the ATTRIBUTE-SET has {len(attributes):,} attributes; the limit is"
                f" {limits.max_attributes_per_set:,}",
                label,
                element.sourceline,
                where,
            )
        )
        return frozenset()
    first_line: dict[tuple[str, str], int] = {}
    for attribute in attributes:
        name = (attribute.get("NAME") or "").strip()
        value = (attribute.get("VALUE") or "").strip()
        at = f"{field} / ATTRIBUTE {name or '?'}"
        if not name or not value:
            problems.append(
                Problem(
                    "bad_attribute",
                    "ATTRIBUTE needs non-empty NAME and VALUE",
                    label,
                    attribute.sourceline,
                    at,
                )
            )
            continue
        if (name, value) in first_line:
            problems.append(
                Problem(
                    "duplicate_attribute",
                    f"{name}={value!r} is given again (first on line"
                    f" {first_line[name, value]}); give each attribute once",
                    label,
                    attribute.sourceline,
                    at,
                )
            )
            continue
        first_line[name, value] = attribute.sourceline
        if name not in domain_values:
            problems.append(
                Problem(
                    "unknown_attribute",
                    f"attribute {name!r} does not occur in this item's domain"
                    f" (it has: {', '.join(domain_values)})",
                    label,
                    attribute.sourceline,
                    at,
                )
            )
        elif value not in domain_values[name]:
            allowed = ", ".join(sorted(domain_values[name]))
            problems.append(
                Problem(
                    "unknown_value",
                    f"{name}={value!r} does not occur in this item's domain"
                    f" (values there: {allowed})",
                    label,
                    attribute.sourceline,
                    at,
                )
            )
    if not attributes:
        problems.append(
            Problem(
                "empty_attribute_set",
                "the ATTRIBUTE-SET has no attributes",
                label,
                element.sourceline,
                where,
            )
        )
    return frozenset(first_line)


def write_outputs(outputs: Iterable[Output], path: str | Path) -> None:
    """Write system outputs as a UTF-8 ``OUTPUTS`` file, deterministically."""
    root = etree.Element("OUTPUTS")
    for output in outputs:
        trial = etree.SubElement(root, "TRIAL", ID=output.item_id)
        if output.attribute_set is not None:
            attribute_set = etree.SubElement(trial, "ATTRIBUTE-SET")
            for name, value in sorted(output.attribute_set):
                etree.SubElement(attribute_set, "ATTRIBUTE", NAME=name, VALUE=value)
        if output.word_string is not None:
            etree.SubElement(trial, "WORD-STRING").text = output.word_string
    etree.indent(root, space="  ")
    data = etree.tostring(
        root, encoding="UTF-8", xml_declaration=True, pretty_print=True
    )
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_bytes(data)

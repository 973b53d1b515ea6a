"""Submissions on disk: ``submissions/<team>/<system>/`` with two files.

* ``system.yaml``: the metadata (team, system, description, contact, primary,
  submitted timestamp, tasks; ``reference: true`` for human reference sets);
* ``outputs.xml``: one ``TRIAL`` per test item with the system's ``ATTRIBUTE-SET``
  and/or ``WORD-STRING``, as in the TUNA challenges::

      <OUTPUTS>
        <TRIAL ID="t001">
          <ATTRIBUTE-SET><ATTRIBUTE NAME="colour" VALUE="red"/></ATTRIBUTE-SET>
          <WORD-STRING>the red chair</WORD-STRING>
        </TRIAL>
      </OUTPUTS>

Reading with every check is :mod:`stecflow.submissions.validation`'s job; this module
holds the
file names and the writer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from lxml import etree

from stecflow.data.model import Output

__all__ = ["METADATA_FILE", "OUTPUTS_FILE", "write_metadata", "write_outputs"]

METADATA_FILE = "system.yaml"
OUTPUTS_FILE = "outputs.xml"


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


def write_metadata(metadata: Mapping[str, Any], path: str | Path) -> None:
    """Write ``system.yaml`` with keys in a fixed, readable order."""
    import yaml

    order = [
        "team",
        "system",
        "description",
        "contact",
        "primary",
        "submitted",
        "tasks",
        "reference",
        "late",
        "release_consent",
    ]
    ordered = {k: metadata[k] for k in order if k in metadata}
    ordered.update({k: metadata[k] for k in sorted(metadata) if k not in ordered})
    text = yaml.safe_dump(ordered, sort_keys=False, allow_unicode=True, width=88)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(text, encoding="utf-8")

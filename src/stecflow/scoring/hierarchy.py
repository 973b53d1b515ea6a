"""Reading the value hierarchy a campaign gives the denotation similarity.

The file (``scoring.value_hierarchy`` or a metric's ``value_hierarchy`` option)
is read here, with the hardened YAML reader, and handed to the metric as a
:class:`~stecflow.metrics.denotation.ValueHierarchy`: metrics never read files.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.metrics`.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from stecflow.core.errors import StecflowError
from stecflow.data.yamlsafe import load_yaml
from stecflow.metrics.denotation import ValueHierarchy

__all__ = ["load_value_hierarchy"]


def load_value_hierarchy(path: str | Path) -> ValueHierarchy:
    """Read an ontology of attribute values from YAML (``value: parent`` per attribute).

    The file maps each attribute to a mapping of its values to their parents, e.g.
    ``type: {chair: seat, sofa: seat, seat: furniture, desk: furniture}``; a parent
    that is not itself a key is a root. It is read with stecflow's hardened YAML
    reader.

    Raises
    ------
    ValueError
        Naming the file and what is wrong (missing, not YAML, wrong shape, cycle).
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ValueError(
            f"value hierarchy {path}: cannot be read ({exc.strerror}); give the path"
            " of a YAML file relative to the working directory"
        ) from None
    try:
        tree = load_yaml(data, str(path), max_bytes=1024 * 1024)
    except StecflowError as exc:
        raise ValueError(f"value hierarchy {exc}") from None
    shape = (
        "give one mapping per attribute of its values to their parent values"
        " (null for a root), e.g. type: {chair: seat, seat: null}"
    )
    if not isinstance(tree, dict):
        raise ValueError(f"value hierarchy {path}: {shape}")
    for attr, values in tree.items():
        scalar = (str, int)
        if not isinstance(values, dict) or not all(
            isinstance(v, scalar) and (p is None or isinstance(p, scalar))
            for v, p in values.items()
        ):
            raise ValueError(f"value hierarchy {path}, attribute {attr}: {shape}")
    return ValueHierarchy(
        tree, sha256=hashlib.sha256(data).hexdigest(), source=str(path)
    )

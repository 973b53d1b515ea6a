"""Submissions on disk: ``submissions/<team>/<system>/`` with two files.

* ``system.yaml``: the metadata (team, system, description, contact, primary,
  submitted timestamp, tasks; ``reference: true`` for human reference sets);
* the outputs file its task type declares (the REG tasks: ``outputs.xml``, written
  by :func:`stecflow.tasks.reg.outputs.write_outputs`).

Reading with every check is :mod:`stecflow.submissions.validation`'s job; this module
holds the metadata file's name and its writer.

May import: :mod:`stecflow.core`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["METADATA_FILE", "not_a_file", "write_metadata"]

METADATA_FILE = "system.yaml"


def not_a_file(path: str | Path) -> str | None:
    """What stands at *path* where a regular file was expected, in words, or None
    (a regular file, or nothing at all).

    >>> import tempfile
    >>> not_a_file(tempfile.mkdtemp())
    'a folder'
    """
    import os
    import stat

    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    if stat.S_ISLNK(mode):
        try:
            mode = os.stat(path).st_mode
        except OSError:
            return "a symbolic link to nothing"
    for test, kind in (
        (stat.S_ISREG, None),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return kind
    return "not a regular file"


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

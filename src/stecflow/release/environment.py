"""The environment a release re-runs in: the lock pinning stecflow's dependency
closure, the Python version and platform, and the stecflow wheel beside them.

:func:`environment_files` writes them under ``environment/`` of the archive
(:data:`LOCK_FILE`, :data:`PLATFORM_FILE`, the wheel and ``source.json`` of
:mod:`stecflow.release.source`); :func:`dependency_closure` says which installed
distributions the lock pins.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Sequence

from stecflow.release.source import SOURCE_FILE, WHEEL_DIR, Source, source_json

__all__ = [
    "LOCK_FILE",
    "NOT_FOR_RERUN",
    "PLATFORM_FILE",
    "dependency_closure",
    "environment_files",
]

#: The environment's files in the archive.
LOCK_FILE = "environment/requirements.lock"
PLATFORM_FILE = "environment/python.txt"


#: stecflow's extras a re-run never needs: its developers' tools and the
#: cluster executor (``stecflow rerun`` runs no workflow).
NOT_FOR_RERUN = frozenset({"test", "bench", "slurm"})


def environment_files(source: Source | None = None) -> dict[str, bytes]:
    """The exact environment: a pip requirements file pinning stecflow and
    every distribution it needs (``name==version``, names normalised as PEP
    503, sorted), a small file with the Python version and platform, and
    stecflow itself.

    The pins are the installed versions of stecflow's dependency closure
    (:func:`dependency_closure`), not of everything the environment happens to
    hold, so the lock installs with ``pip install --no-deps`` from PyPI alone.
    stecflow is on no package index, so the archive holds the stecflow that
    built it as a wheel beside the lock (*source*, default
    :func:`stecflow.release.source.stecflow_source`: the one imported), which
    the lock's ``--find-links .`` (a folder relative to the lock file) makes
    pip install; ``environment/source.json`` names its version, git commit and
    whether its sources differed from that commit.

    The lock depends on the environment only: the same environment gives the
    same bytes (no path, time, host or user).
    """
    import platform
    import sys

    from stecflow.release.source import stecflow_source

    source = source if source is not None else stecflow_source()
    pins = dependency_closure(_wheel_metadata(source.wheel))
    pins["stecflow"] = source.version  # the wheel's (an editable install's
    # metadata is as old as its install)
    lock = [
        "# stecflow and every package it needs, as installed in the environment"
        " that built this release (pip install --no-deps -r requirements.lock).",
        f"# stecflow is installed from {source.wheel_name}, beside this file"
        " (--find-links: a folder relative to this file).",
        "--find-links .",
        *(f"{name}=={version}" for name, version in sorted(pins.items())),
    ]
    info = [
        f"python {platform.python_version()}",
        f"implementation {platform.python_implementation()}",
        f"platform {platform.system()} {platform.machine()}",
        f"byteorder {sys.byteorder}",
    ]
    return {
        LOCK_FILE: ("\n".join(lock) + "\n").encode(),
        PLATFORM_FILE: ("\n".join(info) + "\n").encode(),
        f"{WHEEL_DIR}/{source.wheel_name}": source.wheel,
        SOURCE_FILE: source_json(source),
    }


def _wheel_metadata(wheel: bytes) -> str:
    """The METADATA of a wheel (the stecflow being packed: its requirements
    are today's, where an editable install's are as old as the install)."""
    import io

    with zipfile.ZipFile(io.BytesIO(wheel)) as zipped:
        [name] = [n for n in zipped.namelist() if n.endswith(".dist-info/METADATA")]
        return zipped.read(name).decode("utf-8")


def _normalised(name: str) -> str:
    """A distribution's name as PEP 503 normalises it.

    >>> _normalised("Jinja2"), _normalised("zlib_ng"), _normalised("ruamel.yaml")
    ('jinja2', 'zlib-ng', 'ruamel-yaml')
    """
    return re.sub(r"[-_.]+", "-", name).lower()


def dependency_closure(metadata: str) -> dict[str, str]:
    """The installed versions of every distribution the package whose
    METADATA is *metadata* needs, directly or through others: its
    ``Requires-Dist`` whose markers hold here, with the extras that are
    installed whole (``japanese``, ``dialogue``; never those of
    :data:`NOT_FOR_RERUN`), and recursively theirs with the extras asked
    for. The package itself is not in it. A requirement whose distribution is
    not installed is left out (an optional one; ``pip check`` in the test of
    the release's README shows none is missing).

    A name installed twice (two site folders) is pinned at the version Python
    imports (first on the path).
    """
    import importlib.metadata
    from email.parser import HeaderParser

    from packaging.requirements import Requirement

    headers = HeaderParser()
    installed: dict[str, tuple[str, list[str]]] = {}
    for dist in importlib.metadata.distributions():
        # the headers only, not the long description after them (6x faster
        # for 180 distributions)
        text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
        found = headers.parsestr(text.split("\n\n", 1)[0])
        if found["Name"] and found["Version"]:
            installed.setdefault(
                _normalised(found["Name"]),
                (found["Version"], found.get_all("Requires-Dist") or []),
            )

    def needs(requirements: Sequence[str], extras: set[str]) -> list[Requirement]:
        wanted = []
        for line in requirements:
            requirement = Requirement(line)
            marker = requirement.marker
            if marker is None or any(
                marker.evaluate({"extra": extra}) for extra in (extras or {""})
            ):
                wanted.append(requirement)
        return wanted

    root = headers.parsestr(metadata.split("\n\n", 1)[0])
    requirements = root.get_all("Requires-Dist") or []
    extras = {
        extra
        for extra in root.get_all("Provides-Extra") or []
        if extra not in NOT_FOR_RERUN
        and all(_normalised(r.name) in installed for r in needs(requirements, {extra}))
    }
    pins: dict[str, str] = {}
    asked: set[tuple[str, str]] = set()
    queue = needs(requirements, extras | {""})
    while queue:
        requirement = queue.pop()
        name = _normalised(requirement.name)
        wanted = set(requirement.extras) | {""}
        new = {e for e in wanted if (name, e) not in asked}
        if name not in installed or not new:
            continue
        asked.update((name, e) for e in new)
        version, requires = installed[name]
        pins[name] = version
        queue.extend(needs(requires, new))
    return pins

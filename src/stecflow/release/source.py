"""The stecflow that builds a release: where it came from, and itself as a wheel.

A release archive must re-run where stecflow is on no package index, so it holds
the stecflow that built it (``environment/stecflow-<version>-py3-none-any.whl``,
which the lock file installs through ``--find-links``) and names its source
(``environment/source.json``: version, git commit, whether the sources differed
from that commit, the wheel's sha256).

The wheel is written here with the standard library, following the binary
distribution format (PEP 427 and the packaging specifications): the package
folder stecflow is imported from, its ``.py`` files and the package data of
pyproject.toml (``tool.setuptools.package-data``), metadata from the
``[project]`` table; or, for an installed (non-editable) stecflow, its files
and its installed metadata. No build tool is needed (setuptools' wheel builder
needs the ``wheel`` package and, isolated, an index), and the bytes are the same
for the same sources: entries sorted, every date 1980-01-01, permissions 0644,
deflated by zlib at one level, nothing of the machine, user or clock recorded.
"""

from __future__ import annotations

import base64
import csv
import functools
import hashlib
import io
import json
import os
import re
import subprocess
import tomllib
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Source", "WHEEL_DIR", "build_wheel", "git_state", "stecflow_source"]

#: Where the release archive keeps the wheel and the record of its source.
WHEEL_DIR = "environment"
SOURCE_FILE = "environment/source.json"
#: The fixed date of every wheel entry (the earliest a zip can store).
_EPOCH = (1980, 1, 1, 0, 0, 0)
_LEVEL = 9
#: Folders and files of the package folder never packed.
_SKIP = re.compile(r"(^|/)(__pycache__|\.[^/]*)(/|$)|\.py[co]$")


@dataclass(frozen=True)
class Source:
    """The stecflow that runs: its version, git state and wheel."""

    version: str
    #: The git commit of the checkout stecflow is imported from (None: not a
    #: git checkout, e.g. an installed wheel, or git is missing).
    commit: str | None
    #: Whether the packed sources (the package folder, pyproject.toml, LICENSE)
    #: differ from that commit; None when there is no commit.
    dirty: bool | None
    #: The packed sources that differ from the commit (git status, relative).
    changed: tuple[str, ...] = ()
    wheel_name: str = ""
    wheel: bytes = field(default=b"", repr=False)

    def record(self) -> dict[str, Any]:
        """What ``environment/source.json`` holds."""
        return {
            "name": "stecflow",
            "version": self.version,
            "git_commit": self.commit,
            "dirty": self.dirty,
            "changed_files": list(self.changed),
            "wheel": f"{WHEEL_DIR}/{self.wheel_name}",
            "wheel_sha256": hashlib.sha256(self.wheel).hexdigest(),
        }

    def describe(self) -> str:
        """One sentence for the README and the datasheet.

        >>> Source("0.1.0", "ab" * 20, True, ("src/stecflow/cli.py",)).describe()
        ... # doctest: +NORMALIZE_WHITESPACE
        'stecflow 0.1.0, git commit abababababababababababababababababababab, with
        uncommitted changes to 1 file (listed in environment/source.json)'
        >>> Source("0.1.0", None, None).describe()
        'stecflow 0.1.0 (not built from a git checkout: no commit recorded)'
        """
        if self.commit is None:
            return (
                f"stecflow {self.version} (not built from a git checkout:"
                " no commit recorded)"
            )
        state = (
            f", with uncommitted changes to {len(self.changed)} file(s)"
            if self.dirty
            else ", the committed tree unchanged"
        )
        if self.dirty and len(self.changed) == 1:
            state = ", with uncommitted changes to 1 file"
        if self.dirty:
            state += f" (listed in {SOURCE_FILE})"
        return f"stecflow {self.version}, git commit {self.commit}{state}"


def _package_dir() -> Path:
    import stecflow

    return Path(stecflow.__file__).resolve().parent


def _project(package_dir: Path) -> tuple[Path, dict[str, Any]] | None:
    """The checkout stecflow is imported from and its pyproject.toml, if any
    (``src/stecflow`` two folders below a pyproject.toml naming stecflow)."""
    root = package_dir.parent.parent
    try:
        document = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return None
    if (document.get("project") or {}).get("name") != "stecflow":
        return None
    return root, document


def git_state(
    root: Path, paths: list[str]
) -> tuple[str | None, bool | None, list[str]]:
    """The commit of the git checkout *root* and which of *paths* differ from
    it (modified, added, deleted or untracked, ignored files aside); (None,
    None, []) when *root* is not a git checkout or git cannot run."""
    environment = dict(os.environ, GIT_OPTIONAL_LOCKS="0", LC_ALL="C")

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
            env=environment,
        ).stdout

    try:
        top = Path(git("rev-parse", "--show-toplevel").strip()).resolve()
        commit = git("rev-parse", "HEAD").strip()
        status = git(
            "status", "--porcelain", "--untracked-files=all", "-z", "--", *paths
        )
    except (OSError, subprocess.SubprocessError):
        return None, None, []
    if top != root.resolve():  # stecflow inside another project's repository
        return None, None, []
    changed = []
    entries = status.split("\0")
    n = 0
    while n < len(entries):
        entry = entries[n]
        n += 1
        if len(entry) < 4:
            continue
        changed.append(entry[3:])
        if entry[0] in "RC":  # a rename's source follows
            n += 1
    return commit, bool(changed), sorted(changed)


def _files(package_dir: Path, package_data: Mapping[str, Any] | None) -> list[Path]:
    """The package's files: every ``.py`` file and, with *package_data*
    (pyproject's ``tool.setuptools.package-data``), the files its patterns
    name; without it (an installed stecflow), every file."""
    found = set()
    for path in package_dir.rglob("*"):
        rel = path.relative_to(package_dir).as_posix()
        if not path.is_file() or _SKIP.search(rel):
            continue
        if package_data is None or path.suffix == ".py":
            found.add(path)
    for package, patterns in (package_data or {}).items():
        parts = package.split(".")
        if parts[0] != "stecflow":
            continue
        folder = package_dir.joinpath(*parts[1:])
        for pattern in patterns:
            found.update(
                p
                for p in folder.glob(pattern)
                if p.is_file()
                and not _SKIP.search(p.relative_to(package_dir).as_posix())
            )
    return sorted(found)


def _metadata(project: Mapping[str, Any]) -> str:
    """Core metadata 2.1 (the METADATA file) from pyproject's ``[project]``."""
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
    ]
    if project.get("description"):
        lines.append(f"Summary: {project['description']}")
    authors = [a.get("name") for a in project.get("authors") or [] if a.get("name")]
    if authors:
        lines.append(f"Author: {', '.join(authors)}")
    licence = project.get("license")
    if isinstance(licence, Mapping) and licence.get("text"):
        lines.append(f"License: {licence['text']}")
    lines += [f"Classifier: {c}" for c in project.get("classifiers") or []]
    if project.get("requires-python"):
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies") or []]
    for extra, requirements in (project.get("optional-dependencies") or {}).items():
        lines.append(f"Provides-Extra: {extra}")
        for requirement in requirements:
            name, _, marker = requirement.partition(";")
            condition = f'extra == "{extra}"'
            if marker.strip():
                condition = f"({marker.strip()}) and {condition}"
            lines.append(f"Requires-Dist: {name.strip()}; {condition}")
    return "\n".join(lines) + "\n"


def _entry_points(project: Mapping[str, Any]) -> str:
    scripts = project.get("scripts") or {}
    if not scripts:
        return ""
    return "[console_scripts]\n" + "".join(
        f"{name} = {target}\n" for name, target in scripts.items()
    )


def _record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def build_wheel(package_dir: Path | None = None) -> tuple[str, bytes, str]:
    """The wheel of the stecflow in *package_dir* (default: the one imported).

    Returns
    -------
    tuple
        The wheel's file name, its bytes and the version it installs.
    """
    package_dir = Path(package_dir) if package_dir else _package_dir()
    found = _project(package_dir)
    extra: dict[str, bytes] = {}
    if found is not None:
        root, document = found
        project = document["project"]
        version = str(project["version"])
        data = ((document.get("tool") or {}).get("setuptools") or {}).get(
            "package-data"
        ) or {}
        files = _files(package_dir, data)
        metadata, entry_points = _metadata(project), _entry_points(project)
        if (root / "LICENSE").is_file():
            extra["LICENSE"] = (root / "LICENSE").read_bytes()
    else:  # an installed stecflow: its files and its installed metadata
        import importlib.metadata

        dist = importlib.metadata.distribution("stecflow")
        version = dist.version
        files = _files(package_dir, None)
        metadata = dist.read_text("METADATA") or ""
        entry_points = dist.read_text("entry_points.txt") or ""
    info = f"stecflow-{version}.dist-info"
    entries = {
        f"stecflow/{p.relative_to(package_dir).as_posix()}": p.read_bytes()
        for p in files
    }
    entries[f"{info}/METADATA"] = metadata.encode()
    entries[f"{info}/WHEEL"] = (
        b"Wheel-Version: 1.0\n"
        b"Generator: stecflow.release.source\n"
        b"Root-Is-Purelib: true\n"
        b"Tag: py3-none-any\n"
    )
    if entry_points:
        entries[f"{info}/entry_points.txt"] = entry_points.encode()
    for name, data in extra.items():
        entries[f"{info}/licenses/{name}"] = data
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for name in sorted(entries):
        writer.writerow([name, _record_hash(entries[name]), len(entries[name])])
    writer.writerow([f"{info}/RECORD", "", ""])
    entries[f"{info}/RECORD"] = record.getvalue().encode()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as wheel:
        # the dist-info last, as the format recommends (RECORD the very last)
        order = sorted(
            entries, key=lambda n: (n.startswith(info), n.endswith("/RECORD"), n)
        )
        for name in order:
            entry = zipfile.ZipInfo(name, date_time=_EPOCH)
            entry.external_attr = 0o100644 << 16
            entry.create_system = 3
            entry.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(entry, entries[name], compresslevel=_LEVEL)
    return f"stecflow-{version}-py3-none-any.whl", buffer.getvalue(), version


@functools.lru_cache(maxsize=1)
def stecflow_source() -> Source:
    """The stecflow of this process: version, git state and wheel (built once
    per process: a campaign's release job builds it once)."""
    package_dir = _package_dir()
    name, wheel, version = build_wheel(package_dir)
    commit, dirty, changed = None, None, []
    found = _project(package_dir)
    if found is not None:
        root = found[0]
        paths = [package_dir.relative_to(root).as_posix(), "pyproject.toml", "LICENSE"]
        commit, dirty, changed = git_state(root, paths)
    return Source(version, commit, dirty, tuple(changed), name, wheel)


def source_json(source: Source) -> bytes:
    """``environment/source.json``."""
    return (json.dumps(source.record(), indent=2, sort_keys=True) + "\n").encode()

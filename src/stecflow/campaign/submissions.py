"""Which submissions the campaign has: the one scan of the submissions folder and,
read from their ``system.yaml`` at DAG build (with its store), which are late,
superseded and analysed.

``discover_submissions`` is the one scan of the submissions folder the workflow
makes (at parse time, sorted).
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stecflow.core.ids import MAX_ID_LENGTH, is_valid_id
from stecflow.submissions.safepath import leads_outside, read_inside

__all__ = [
    "BUILD_KEYS",
    "Discovery",
    "analysed_submissions",
    "discover_submissions",
    "late_submissions",
    "load_build_store",
    "save_build_store",
    "superseded_submissions",
]


@dataclass(frozen=True)
class Discovery:
    """What the submissions folder holds.

    ``submissions`` lists ``(team, system)`` pairs, sorted, whose folder names are
    valid IDs; ``problems`` lists entries that cannot become submissions, each with
    the reason (they are shown in the validation summary, never dropped silently).
    """

    submissions: tuple[tuple[str, str], ...]
    problems: tuple[tuple[str, str], ...]


def discover_submissions(root: str | Path) -> Discovery:
    """Find ``<root>/<team>/<system>/`` folders, sorted, in one pass.

    Hidden entries (names starting with ``.``) are ignored. Files where a team or
    system folder is expected, folder names that are not valid IDs (see
    :mod:`stecflow.core.ids`), and symbolic links that lead out of *root* are listed as
    problems; links that stay inside *root* are followed (see
    :mod:`stecflow.submissions.safepath`).

    Parameters
    ----------
    root
        The submissions folder; a missing folder means no submissions.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> base = pathlib.Path(tempfile.mkdtemp())
    >>> (base / "subs" / "team-1" / "primary").mkdir(parents=True)
    >>> (base / "elsewhere").mkdir()
    >>> (base / "subs" / "team-2").symlink_to(base / "elsewhere")
    >>> found = discover_submissions(base / "subs")
    >>> found.submissions
    (('team-1', 'primary'),)
    >>> found.problems[0][0]
    'team-2'
    """
    root = Path(root)
    found: list[tuple[str, str]] = []
    problems: list[tuple[str, str]] = []
    if not root.is_dir():
        return Discovery((), ())
    for team_dir in _entries(root):
        team = _shown_name(team_dir.name)
        problem = _folder_problem(team_dir, root, "team")
        if problem:
            problems.append((team, problem))
            continue
        for system_dir in _entries(Path(team_dir.path)):
            name = f"{team}/{_shown_name(system_dir.name)}"
            problem = _folder_problem(system_dir, root, "system")
            if problem:
                problems.append((name, problem))
            elif not (is_valid_id(team_dir.name) and is_valid_id(system_dir.name)):
                problems.append(
                    (
                        name,
                        "folder names may use only letters (a-z, A-Z), digits, '-' and"
                        " '_', must start with a letter or digit and have at most"
                        f" {MAX_ID_LENGTH} characters; rename the folder",
                    )
                )
            else:
                found.append((team_dir.name, system_dir.name))
    return Discovery(tuple(found), tuple(problems))


def _shown_name(name: str) -> str:
    """A folder name as text for the summary (bytes that are not UTF-8 escaped).

    >>> _shown_name("caf\\udce9")
    'caf\\\\xe9'
    """
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def _entries(folder: Path) -> list[os.DirEntry]:
    """The entries of *folder* not hidden (no leading dot), sorted by name."""
    with os.scandir(folder) as entries:
        return sorted(
            (entry for entry in entries if not entry.name.startswith(".")),
            key=lambda entry: entry.name,
        )


def _folder_problem(entry: os.DirEntry, root: Path, kind: str) -> str | None:
    """Why *entry* cannot be a team or system folder, or None if it can.

    A folder that is not a link, in a folder already found inside *root*, is
    inside it: only links (and what is not a folder) need resolving.
    """
    if entry.is_dir(follow_symlinks=False):
        return None
    folder = Path(entry.path)
    if leads_outside(folder, root):
        return (
            "a symbolic link that leads out of the submissions folder (stecflow"
            f" follows links only inside it); put the {kind} folder itself here"
        )
    if not folder.is_dir():
        if folder.is_symlink() and not folder.exists():
            return f"a symbolic link to nothing where a {kind} folder was expected"
        return f"a file where a {kind} folder was expected"
    return None


def late_submissions(
    root: str | Path, submissions: Sequence[tuple[str, str]], deadline: str | None
) -> frozenset[tuple[str, str]]:
    """The submissions whose ``system.yaml`` marks them late (read at DAG build).

    The workflow keeps these out of the inputs of the statistics (unless the config
    includes late submissions), so that adding one re-runs its own jobs and the
    tables and report that list it, not the analyses. Validation stays the judge:
    a file that cannot be read here (or is a link leading out of *root*) counts as
    on time, and the statistics still drop whatever its validation record calls
    late.

    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "t" / "s").mkdir(parents=True)
    >>> meta = root / "t" / "s" / "system.yaml"
    >>> _ = meta.write_text("submitted: 2026-06-20T00:00:00Z")
    >>> sorted(late_submissions(root, [("t", "s")], "2026-06-01T23:59:59Z"))
    [('t', 's')]
    """
    from stecflow.submissions.metadata import is_late

    late = set()
    for team, system in submissions:
        metadata = _metadata_at_build(root, team, system)
        if is_late(
            {"late": metadata.get("late"), "submitted": metadata.get("submitted")},
            deadline,
        ):
            late.add((team, system))
    return frozenset(late)


def _metadata_at_build(root: str | Path, team: str, system: str) -> dict[str, Any]:
    """The keys :data:`BUILD_KEYS` of a submission's ``system.yaml`` as read at
    DAG build ({} if unreadable)."""
    from stecflow.core.errors import StecflowError
    from stecflow.data.yamlsafe import MAX_BYTES as MAX_YAML_BYTES
    from stecflow.data.yamlsafe import load_yaml

    path = Path(root) / team / system / "system.yaml"
    try:
        # the hardened reader: an alias bomb or a huge file must not stall
        # the DAG build (validation reports what is wrong with them)
        stat = path.stat()
        if stat.st_size > MAX_YAML_BYTES:
            return {}
        # read once per file state (lateness and supersession both ask, and a
        # build of the workflow reads what an earlier one stored)
        key = "\0".join(
            map(
                str,
                (path, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns),
            )
        )
        if key not in _READ_AT_BUILD:
            metadata = load_yaml(read_inside(path, root), str(path))
            if not isinstance(metadata, dict):
                metadata = {}
            _READ_AT_BUILD[key] = {k: metadata[k] for k in BUILD_KEYS if k in metadata}
    except (OSError, StecflowError):
        return {}
    _USED_AT_BUILD.add(key)
    return _READ_AT_BUILD[key]


#: The keys of ``system.yaml`` the DAG build reads: lateness and supersession.
BUILD_KEYS = ("late", "submitted", "supersedes")
#: What :func:`_metadata_at_build` read, by file and its state (path, identity,
#: size, modification and change times); the keys read since the last store.
_READ_AT_BUILD: dict[str, dict[str, Any]] = {}
_USED_AT_BUILD: set[str] = set()

#: How the store keeps each YAML value's type: tag -> (type, to text, from text).
_STORED_TYPES: dict[str, tuple[type, Any, Any]] = {
    "str": (str, str, str),
    "bool": (bool, int, bool),
    "int": (int, int, int),
    "float": (float, float, float),
    "datetime": (
        datetime.datetime,
        datetime.datetime.isoformat,
        datetime.datetime.fromisoformat,
    ),
    "date": (datetime.date, datetime.date.isoformat, datetime.date.fromisoformat),
}


def _stored(value: Any) -> list[Any] | None:
    """*value* as the store writes it, ``[tag, value]`` (None: not storable)."""
    if value is None:
        return ["none", None]
    for tag, (kind, encode, _) in _STORED_TYPES.items():
        if type(value) is kind:
            return [tag, encode(value)]
    return None


def _restored(stored: Any) -> Any:
    tag, value = stored
    return None if tag == "none" else _STORED_TYPES[tag][2](value)


def load_build_store(path: str | Path) -> None:
    """Take what an earlier DAG build read of the ``system.yaml`` files (see
    :func:`save_build_store`); a missing or unreadable store is ignored."""
    import json

    try:
        stored = json.loads(Path(path).read_text(encoding="utf-8"))
        found = {
            key: {name: _restored(value) for name, value in entry.items()}
            for key, entry in stored["files"].items()
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return
    for key, entry in found.items():
        _READ_AT_BUILD.setdefault(key, entry)


def save_build_store(path: str | Path) -> None:
    """Store what this build read of the ``system.yaml`` files it used, by file
    state, so that the next build (a re-run for a late submission, a dry run)
    reads only the files added or changed since. Never fails the build."""
    import json

    files = {}
    for key in sorted(_USED_AT_BUILD & _READ_AT_BUILD.keys()):
        entry = {name: _stored(value) for name, value in _READ_AT_BUILD[key].items()}
        if all(value is not None for value in entry.values()):
            files[key] = entry
    _USED_AT_BUILD.clear()
    text = json.dumps({"files": files}, sort_keys=True, indent=0) + "\n"
    target = Path(path)
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        partial.write_text(text, encoding="utf-8")
        partial.replace(target)
    except OSError:
        partial.unlink(missing_ok=True)


def superseded_submissions(
    root: str | Path, submissions: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], str]:
    """The submissions a corrected version replaces (read at DAG build).

    A system whose ``system.yaml`` says ``supersedes: <system>`` replaces that
    earlier system of its own team, as seed 003 used the corrected IS-FBS instead
    of the buggy one; without the key both stand side by side, as seed 002's
    Table 1 shows IS-FBS and *IS-FBS. The superseded system is still validated,
    scored and shown (marked superseded), but it leaves the official ranking and
    the statistics, whatever becomes of the correction. Names that are not another
    submission of the same team are ignored here (validation rejects them), and
    so are the keys of a cycle (``a`` supersedes ``b``, ``b`` supersedes ``a``:
    neither is superseded, so the team stays in the statistics; the validation
    summary reports the cycle as an error,
    :mod:`stecflow.submissions.supersession`).

    Returns
    -------
    dict
        ``(team, superseded system)`` -> the superseding system (several joined
        with ``,``).

    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> for s in ("fbs", "fbs-fixed"):
    ...     _ = (root / "is" / s).mkdir(parents=True)
    >>> _ = (root / "is" / "fbs-fixed" / "system.yaml").write_text("supersedes: fbs")
    >>> superseded_submissions(root, [("is", "fbs"), ("is", "fbs-fixed")])
    {('is', 'fbs'): 'fbs-fixed'}
    """
    from stecflow.submissions.supersession import supersession

    found = supersession(
        {
            (team, system): _metadata_at_build(root, team, system).get("supersedes")
            for team, system in submissions
        }
    )
    return {key: ",".join(systems) for key, systems in found.superseded.items()}


def analysed_submissions(
    root: str | Path,
    submissions: Sequence[tuple[str, str]],
    deadline: str | None,
    *,
    include_late: bool = False,
    store: str | Path | None = None,
) -> tuple[tuple[str, str], ...]:
    """The submissions whose scores the statistics read, in the given order.

    Late submissions stay out unless *include_late*; superseded ones always do
    (:func:`superseded_submissions`). Worked out from ``system.yaml`` at DAG
    build, so that adding a late submission does not re-run the analyses. With
    *store* (a JSON file), what earlier builds read of the files that have not
    changed is taken from it, and what this one read is stored there
    (:func:`save_build_store`): a 1,000-submission build otherwise spends a
    quarter of its time reading them with the hardened YAML reader.

    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> for s in ("a", "b", "c"):
    ...     _ = (root / "t" / s).mkdir(parents=True)
    >>> _ = (root / "t" / "b" / "system.yaml").write_text("supersedes: a")
    >>> _ = (root / "t" / "c" / "system.yaml").write_text("late: true")
    >>> analysed_submissions(root, [("t", "a"), ("t", "b"), ("t", "c")], None)
    (('t', 'b'),)
    """
    if store is not None:
        load_build_store(store)
    left_out = set(superseded_submissions(root, submissions))
    if not include_late:
        left_out |= late_submissions(root, submissions, deadline)
    if store is not None:
        save_build_store(store)
    return tuple(pair for pair in submissions if pair not in left_out)

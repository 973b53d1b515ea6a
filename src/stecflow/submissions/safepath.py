"""Read teams' files without ever leaving the submissions folder.

Everything in ``submissions/`` comes from outside. A symbolic link there (an
``outputs.xml``, a ``system.yaml``, or a team or system folder) could point at any
file the organisers' account can read, which would then be validated, scored,
shown in the report and copied into the release archive. stecflow follows a link
only when it resolves inside the submissions folder; a link that leads out of it
is refused with an error naming the link (:class:`OutsideLinkError`). Hard links
cannot be told from ordinary files and are not checked.

The submissions folder is the *root*. A submission folder is
``<root>/<team>/<system>``, so functions given one take its grandparent as the root.

Reading is guarded three times: the path is resolved one component at a time and
every step must stay inside the real root; the resolved path is opened with
``O_NOFOLLOW`` (its last component cannot have been swapped for a link since);
and where the system tells which file a descriptor is (Linux's
``/proc/self/fd``), the opened file must be inside the root before a byte is read.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from stecflow.core.errors import SubmissionError

__all__ = [
    "OutsideLinkError",
    "is_submission_file",
    "leads_outside",
    "open_inside",
    "read_inside",
    "read_submission_file",
    "resolve_inside",
    "submission_files",
    "submission_root",
]

#: Flags of every open: read only, never through a final link, never block on a
#: FIFO, and not inherited by child processes.
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


class OutsideLinkError(SubmissionError):
    """A path in the submissions folder leads out of it through a symbolic link.

    ``file`` is the path asked for and ``field`` the link that leads out, both
    relative to the submissions folder (never the link's target: results must not
    show paths of the organisers' machine).
    """


def submission_root(submission_dir: str | Path) -> Path:
    """The submissions folder of ``<root>/<team>/<system>``: its grandparent.

    Taken from the path as written (links are not followed), made absolute.

    >>> submission_root("/campaign/submissions/team-07/primary").as_posix()
    '/campaign/submissions'
    """
    return Path(os.path.abspath(submission_dir)).parent.parent


def _inside(path: str, real_root: str) -> bool:
    return path == real_root or path.startswith(real_root.rstrip(os.sep) + os.sep)


def resolve_inside(path: str | Path, root: str | Path) -> Path:
    """The real path of *path*, which must not lead out of *root*.

    Each prefix of the path below *root* (``team``, ``team/system``, …) is
    resolved (links followed, so links that stay inside work) and must be inside
    the real *root*: where a link ends up decides. The file itself need not
    exist: a missing file is the caller's to report.

    Raises
    ------
    OutsideLinkError
        Naming the first component (relative to *root*) that leads out of it, or
        the path itself when it is not under *root* at all.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> base = pathlib.Path(tempfile.mkdtemp())
    >>> (base / "subs" / "t" / "s").mkdir(parents=True)
    >>> (base / "secret.txt").write_text("x")
    1
    >>> (base / "subs" / "t" / "s" / "outputs.xml").symlink_to(base / "secret.txt")
    >>> try:
    ...     resolve_inside(base / "subs" / "t" / "s" / "outputs.xml", base / "subs")
    ... except OutsideLinkError as exc:
    ...     print(exc.file, "|", exc.field)
    t/s/outputs.xml | t/s/outputs.xml
    """
    root_abs = os.path.abspath(root)
    real_root = os.path.realpath(root_abs)
    path_abs = os.path.abspath(path)
    try:
        parts = Path(path_abs).relative_to(root_abs).parts
    except ValueError:
        raise OutsideLinkError(
            "is not inside the submissions folder", file=str(path)
        ) from None
    real = real_root
    for n, part in enumerate(parts):
        candidate = os.path.join(real, part)
        try:
            is_link = stat.S_ISLNK(os.lstat(candidate).st_mode)
        except OSError:  # missing (or unreadable): nothing below it to follow
            return Path(real, *parts[n:])
        real = os.path.realpath(candidate) if is_link else candidate
        if not _inside(real, real_root):
            raise OutsideLinkError(
                "a symbolic link that leads out of the submissions folder (stecflow"
                " follows links only inside it); put the file or folder itself there",
                file="/".join(parts),
                field="/".join(parts[: n + 1]),
            )
    return Path(real)


def submission_files(
    submission_dir: str | Path, names: Iterable[str]
) -> tuple[dict[str, Path | None], list[OutsideLinkError]]:
    """Locate files of one submission folder, refusing links out of the root.

    Returns
    -------
    (paths, refused)
        *name* -> its real path (inside the root, possibly missing), or None when
        refused; and the errors of the refused ones.
    """
    root = submission_root(submission_dir)
    paths: dict[str, Path | None] = {}
    refused = []
    for name in names:
        try:
            paths[name] = resolve_inside(Path(submission_dir) / name, root)
        except OutsideLinkError as exc:
            paths[name] = None
            refused.append(exc)
    return paths, refused


def is_submission_file(submission_dir: str | Path, name: str) -> bool:
    """True if *name* in the submission folder is a regular file inside the root.

    Called for every file of every submission at each DAG build, so the usual
    case is answered with three ``lstat`` calls: team folder, system folder and
    file, none a link, are inside the root by construction. Anything else (a
    link, a missing entry, a name with a folder in it) is resolved in full.
    """
    if os.sep not in name and (os.altsep is None or os.altsep not in name):
        folder = os.path.abspath(submission_dir)  # as submission_root takes it
        try:
            modes = [
                os.lstat(path).st_mode
                for path in (
                    os.path.dirname(folder),
                    folder,
                    os.path.join(folder, name),
                )
            ]
        except OSError:
            modes = []
        if modes and not any(stat.S_ISLNK(mode) for mode in modes):
            return stat.S_ISREG(modes[-1])
    return _resolves_to_file(submission_dir, name)


def _resolves_to_file(submission_dir: str | Path, name: str) -> bool:
    """:func:`is_submission_file` in full: every link followed and checked."""
    try:
        path = resolve_inside(
            Path(submission_dir) / name, submission_root(submission_dir)
        )
    except OutsideLinkError:
        return False
    return path.is_file()


def leads_outside(path: str | Path, root: str | Path) -> bool:
    """True if *path* leads out of *root* through a symbolic link.

    >>> leads_outside("submissions/t/s/outputs.xml", "submissions")
    False
    """
    try:
        resolve_inside(path, root)
    except OutsideLinkError:
        return True
    return False


def _opened_path(fd: int) -> str | None:
    """Which file a descriptor is, where the system says (Linux), else None."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


def open_inside(path: str | Path, root: str | Path) -> BinaryIO:
    """Open *path*, a regular file that does not lead out of *root*, for reading.

    Raises
    ------
    OutsideLinkError
        If *path* leads out of *root* (nothing is read).
    SubmissionError
        If *path* is not a regular file (a FIFO, a device, a folder).
    OSError
        If the file cannot be opened (missing, no permission, or its last
        component became a link after it was resolved).
    """
    real_root = os.path.realpath(root)
    real = resolve_inside(path, root)
    fd = os.open(real, _OPEN_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise SubmissionError("is not a regular file", file=str(path))
        opened = _opened_path(fd)
        if opened is not None and not _inside(opened, real_root):
            raise OutsideLinkError(
                "changed into a link that leads out of the submissions folder while"
                " being opened; it was not read",
                file=str(path),
            )
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_inside(path: str | Path, root: str | Path) -> bytes:
    """The bytes of *path*, opened with :func:`open_inside` (same errors)."""
    with open_inside(path, root) as handle:
        return handle.read()


def read_submission_file(submission_dir: str | Path, name: str) -> bytes:
    """The bytes of *name* in a submission folder ``<root>/<team>/<system>``.

    Same guarantees and errors as :func:`read_inside`, with the folder's
    grandparent as the root.
    """
    return read_inside(Path(submission_dir) / name, submission_root(submission_dir))

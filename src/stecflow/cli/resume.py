"""``stecflow resume``: finishes a campaign run that was killed, after checking that
none still works.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from stecflow.core.errors import StecflowError

__all__ = ["register", "run"]


def _snakemake_processes(folder: Path) -> list[tuple[int, str]] | None:
    """``(pid, command line)`` of the processes of a Snakemake run in *folder*:
    Snakemake itself or one of its jobs (``.snakemake/scripts``), working in
    *folder* or given it with ``--directory``. Read from ``/proc`` (Linux);
    None where there is none to read."""
    proc = Path("/proc")
    if not (proc / "self" / "cmdline").exists():
        return None
    mine = {os.getpid(), os.getppid()}
    target = os.path.realpath(folder)
    found = []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) in mine:
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            cwd = os.path.realpath(os.readlink(entry / "cwd"))
        except OSError:  # gone, or another user's
            continue
        words = [a.decode("utf-8", "replace") for a in argv if a]
        line = " ".join(words)
        if "snakemake" not in line:
            continue
        given = [
            os.path.realpath(os.path.join(cwd, words[n + 1]))
            for n, word in enumerate(words[:-1])
            if word in ("--directory", "-d")
        ]
        if target in (given or [cwd]) or f"{target}/.snakemake/" in line:
            found.append((int(entry.name), line))
    return sorted(found)


def run(args: argparse.Namespace) -> int:
    """Run ``stecflow resume`` with the parsed *args*; return the exit status."""
    import subprocess

    folder = Path(args.directory)
    options = list(args.snakemake_args)
    if options[:1] == ["--"]:
        options = options[1:]
    running = _snakemake_processes(folder)
    if running is None:
        raise StecflowError(
            "cannot see the running processes here (no /proc); make sure the old"
            " run is gone, then run snakemake --unlock and snakemake"
            " --rerun-incomplete as the README says"
        )
    if running:
        pid, line = running[0]
        raise StecflowError(
            f"a Snakemake run is still working in {folder} (process {pid}:"
            f" {line[:120]}); let it finish or stop it (and its jobs) first; its"
            " lock is not stale"
        )
    command = [sys.executable, "-m", "snakemake"]  # run in the folder, as the
    # README's commands are (its Snakefile, its config/, its .snakemake/)
    locks = folder / ".snakemake" / "locks"
    if locks.is_dir() and any(locks.iterdir()):
        print(f"stecflow resume: removing the stale lock of {folder}", file=sys.stderr)
        done = subprocess.run([*command, "--unlock", *options], cwd=folder, check=False)
        if done.returncode != 0:
            return done.returncode
    print(
        "stecflow resume: re-running what was cut short, then the rest",
        file=sys.stderr,
    )
    return subprocess.run(
        [*command, "--rerun-incomplete", *options], cwd=folder, check=False
    ).returncode


def register(subparsers: Any) -> None:
    """Add the ``resume`` subcommand to *subparsers*."""
    resume = subparsers.add_parser(
        "resume",
        help="finish a campaign run that was killed (kill -9, power cut)",
        description=(
            "Finish a Snakemake run of the campaign that was killed before it"
            " could remove its lock, in one command: check that no Snakemake run"
            " or job is still working in the folder (Linux: from /proc), remove"
            " the stale lock (snakemake --unlock) and run again with"
            " --rerun-incomplete, so that jobs cut short run again from the start"
            " and nothing finished runs twice. Give the options of the run after"
            " the command, e.g. stecflow resume --cores 2 --configfile"
            " config/b5-ref.yaml."
        ),
    )
    resume.add_argument(
        "--directory",
        default=".",
        help="the campaign's folder (default: the current one)",
    )
    resume.add_argument(
        "snakemake_args",
        nargs=argparse.REMAINDER,
        help="options for snakemake (e.g. --cores 2 --configfile FILE)",
    )
    resume.set_defaults(func=run)

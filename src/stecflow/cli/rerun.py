"""``stecflow rerun``: re-runs a release archive's statistics and report
(:mod:`stecflow.rerun`) and says which files differ.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from stecflow.rerun import rerun_release

__all__ = ["register", "run"]


def run(args: argparse.Namespace) -> int:
    """Run ``stecflow rerun`` with the parsed *args*; return the exit status."""
    results = rerun_release(
        args.archive,
        args.out,
        source_testset=args.source_testset,
        previous_release=args.previous,
    )
    for name, same in results:
        print(f"{'identical' if same else 'DIFFERENT'}\t{name}")
    different = [name for name, same in results if not same]
    print(
        f"{len(results) - len(different)} of {len(results)} files identical"
        f" (rerun in {Path(args.out) / 'rerun'})"
    )
    if different:
        print(
            "stecflow rerun: the files marked DIFFERENT are not the archived ones:"
            " check that this environment is the release's (README.md, section"
            " Re-running: the Python of environment/python.txt, then"
            " pip install --no-deps -r environment/requirements.lock in a new venv)",
            file=sys.stderr,
        )
    return 1 if different else 0


def register(subparsers: Any) -> None:
    """Add the ``rerun`` subcommand to *subparsers*."""
    rerun = subparsers.add_parser(
        "rerun",
        help="re-run the statistics and the report from a release archive",
        description=(
            "Unpack a release archive (results/release/<campaign>-<version>.zip),"
            " run its statistical analyses and render its report again from the"
            " archived scores, judgments and config alone, and compare every"
            " statistics file and the report with the archived ones byte for"
            " byte. Exit status 0 when all are identical, 1 when one differs."
        ),
    )
    rerun.add_argument("archive", help="the release archive (.zip)")
    rerun.add_argument(
        "--out", required=True, help="folder to unpack into (the rerun goes to rerun/)"
    )
    rerun.add_argument(
        "--source-testset",
        default=None,
        help=(
            "the configured test set (file or folder, data.testset), when the"
            " archive does not hold it: prepared as the campaign prepared it"
        ),
    )
    rerun.add_argument(
        "--previous",
        default=None,
        help="the previous release's archive, when the config names one",
    )
    rerun.set_defaults(func=run)

"""The ``stecflow`` command line, for teams and organisers.

Teams check a submission before sending it (``stecflow validate``), exactly as the
campaign's workflow will; organisers convert corpora and rebuild the demo.

Data sets are REG corpora (``--format tuna`` or ``b5-ref``) or, for the situated
task of seed 000 (task type ``situated_dialogue``), a folder of
``stecflow-dialogue`` JSON sessions (``--format dialogue``, also recognised by its
files): its instances are the solvers' referring expressions
(:func:`stecflow.tasks.situated_dialogue.items_from_sessions`), and ``validate``,
``score`` and ``baseline`` then work on ``outputs.tsv`` with that task type. A
JSON Lines test set (``--format text``, also recognised by its ``.jsonl`` suffix)
is the text-generation task's (``text_generation``): ``validate`` and ``score``
then read ``outputs.jsonl``, ``outputs.txt`` or GEM-style ``outputs.json``. The
formats are those of :mod:`stecflow.tasks.formats`.

Each subcommand is one module of this package with ``register(subparsers)`` and
``run(args)`` (:data:`SUBCOMMANDS`, in the order the help lists them); what they
share is in :mod:`stecflow.cli.common`.

May import: any :mod:`stecflow` package (the top layer).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from stecflow import __version__
from stecflow.core.errors import StecflowError

__all__ = ["SUBCOMMANDS", "build_parser", "main"]

#: The subcommands, one module each, in the order the help lists them.
SUBCOMMANDS = (
    "validate",
    "score",
    "baseline",
    "serve",
    "sessions",
    "export",
    "convert",
    "power",
    "demo",
    "rerun",
    "resume",
)


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser (also used to render the help in the docs)."""
    parser = argparse.ArgumentParser(
        prog="stecflow",
        description=(
            "Tools for a referring expression generation shared task. The campaign"
            " itself runs with 'snakemake --cores N'; these commands let teams check"
            " their submissions and organisers prepare data."
        ),
    )
    parser.add_argument(
        "--version", action="version", version=f"stecflow {__version__}"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in SUBCOMMANDS:
        importlib.import_module(f"stecflow.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if getattr(args, "command", None) == "resume":  # the rest is snakemake's
        args.snakemake_args = [*unknown, *args.snakemake_args]
    elif unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        return args.func(args)
    except StecflowError as exc:
        print(f"stecflow {args.command}: error: {exc}", file=sys.stderr)
        return 2

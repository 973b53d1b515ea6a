"""``stecflow convert``: writes a corpus as stecflow's XML test-set file."""

from __future__ import annotations

import argparse
from typing import Any

from stecflow.cli.common import load_items
from stecflow.tasks.formats import formats

__all__ = ["register", "run"]


def run(args: argparse.Namespace) -> int:
    """Run ``stecflow convert`` with the parsed *args*; return the exit status."""
    from stecflow.data.corpus import write_items

    items = load_items(args.source, args.format)
    write_items(items, args.output)
    print(f"wrote {len(items)} items to {args.output}")
    return 0


def register(subparsers: Any) -> None:
    """Add the ``convert`` subcommand to *subparsers*."""
    convert = subparsers.add_parser(
        "convert",
        help="convert a corpus to stecflow's XML test-set file",
        description=(
            "Read a corpus (a TUNA shared-task file, a TUNA 1.0 folder, or the b5-ref"
            " folder) and write it as one TUNA-style XML file."
        ),
    )
    convert.add_argument("source", help="corpus file or folder")
    convert.add_argument("output", help="XML file to write")
    convert.add_argument(
        "--format",
        choices=[f.name for f in formats() if f.convertible],
        default="tuna",
        help="the corpus's format (default tuna: a shared-task file)",
    )
    convert.set_defaults(func=run)

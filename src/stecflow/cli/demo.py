"""``stecflow demo``: regenerates the demo corpus and demo submissions."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register", "run"]


def run(args: argparse.Namespace) -> int:
    """Run ``stecflow demo`` with the parsed *args*; return the exit status."""
    from stecflow.demo.generate import build_demo

    build_demo(args.resources, args.submissions, seed=args.seed)
    print(f"wrote {args.resources} and {args.submissions}")
    return 0


def register(subparsers: Any) -> None:
    """Add the ``demo`` subcommand to *subparsers*."""
    demo = subparsers.add_parser(
        "demo",
        help="regenerate the demo corpus and demo submissions",
        description=(
            "Regenerate the demo campaign's corpus (resources/demo) and submissions"
            " (baselines, human references, a broken and a late submission) from a"
            " seed. The same seed gives the same bytes."
        ),
    )
    demo.add_argument(
        "--resources",
        default="resources/demo",
        help="corpus folder (default resources/demo)",
    )
    demo.add_argument(
        "--submissions",
        default="submissions",
        help="submissions folder (default submissions)",
    )
    demo.add_argument(
        "--seed", type=int, default=2009, help="random seed (default 2009)"
    )
    demo.set_defaults(func=run)

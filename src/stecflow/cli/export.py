"""``stecflow export``: writes a study's collected responses as TSV."""

from __future__ import annotations

import argparse
from typing import Any

from stecflow.cli.common import study_dir
from stecflow.studies.server.defaults import DEFAULT_ABANDON_AFTER_S

__all__ = ["register", "run"]


def run(args: argparse.Namespace) -> int:
    """Run ``stecflow export`` with the parsed *args*; return the exit status."""
    from stecflow.studies.server import export_responses

    n = export_responses(
        study_dir(args.study),
        args.out,
        db_path=args.db,
        abandon_after_s=args.abandon_after,
        include_practice=not args.no_practice,
    )
    print(f"wrote {n} responses to {args.out} (sessions beside it: .sessions.tsv)")
    return 0


def register(subparsers: Any) -> None:
    """Add the ``export`` subcommand to *subparsers*."""
    export = subparsers.add_parser(
        "export",
        help="export a study's collected responses as TSV",
        description=(
            "Write every stored trial of a study as TSV, one row per trial, in the"
            " format the judgments stage reads (columns in"
            " stecflow.studies.server's docs)."
        ),
    )
    export.add_argument(
        "study",
        help="study ID (results/studies/<ID>, or results/<campaign>/studies/<ID>)"
        " or study folder",
    )
    export.add_argument("--out", required=True, help="TSV file to write")
    export.add_argument(
        "--db", help="SQLite file (default: responses.sqlite beside web/)"
    )
    export.add_argument(
        "--abandon-after",
        type=float,
        default=DEFAULT_ABANDON_AFTER_S,
        metavar="SECONDS",
        help="a session silent this long is exported as abandoned (default 1800)",
    )
    export.add_argument(
        "--no-practice", action="store_true", help="leave practice trials out"
    )
    export.set_defaults(func=run)

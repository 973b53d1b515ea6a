"""``stecflow serve``: serves a human study's web experiment and collects responses."""

from __future__ import annotations

import argparse
from typing import Any

from stecflow.cli.common import study_dir
from stecflow.core.errors import StecflowError
from stecflow.studies.server.defaults import DEFAULT_ABANDON_AFTER_S
from stecflow.studies.server.options import add_serve_options, serve_options

__all__ = ["register", "run"]


def run(args: argparse.Namespace) -> int:
    """Run ``stecflow serve`` with the parsed *args*; return the exit status."""
    import errno
    import sqlite3

    from stecflow.studies.server import check_study, serve

    folder = study_dir(args.study)
    check_study(folder, args.db)  # before anything listens or is announced

    def ready(server: Any) -> None:
        print(
            f"serving study {server.app.study.study} ({folder}) on {server.url}"
            f" (responses in {server.app.db_path}; Ctrl-C stops)",
            flush=True,
        )

    try:
        serve(
            folder,
            host=args.host,
            port=args.port,
            db_path=args.db,
            abandon_after_s=args.abandon_after,
            ready=ready,
            **serve_options(args),
        )
    except sqlite3.Error as exc:
        raise StecflowError(
            f"the database cannot be used ({exc}); give --db another file",
            file=args.db,
        ) from None
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            why = f"port {args.port} is in use; give another with --port"
        else:
            why = f"{exc.strerror or exc}; check --host and --port"
        raise StecflowError(
            f"cannot listen on {args.host}:{args.port}: {why}"
        ) from None
    return 0


def register(subparsers: Any) -> None:
    """Add the ``serve`` subcommand to *subparsers*."""
    serve = subparsers.add_parser(
        "serve",
        help="run a human study's web experiment and collect responses",
        description=(
            "Serve a study built by the workflow (results/studies/<study>/web) and"
            " store every answer the moment it is given, in SQLite. Lists are handed"
            " out so that they fill evenly; sessions abandoned for --abandon-after"
            " seconds release their list. Participants open http://HOST:PORT/, or"
            " ?participant=ID to record who they are."
        ),
    )
    serve.add_argument(
        "study",
        help="study ID (results/studies/<ID>, or results/<campaign>/studies/<ID>)"
        " or study folder",
    )
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; 0.0.0.0 only behind a TLS"
        " proxy)",
    )
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument(
        "--db", help="SQLite file (default: responses.sqlite beside web/)"
    )
    serve.add_argument(
        "--abandon-after",
        type=float,
        default=DEFAULT_ABANDON_AFTER_S,
        metavar="SECONDS",
        help="release the list of a session silent this long (default 1800)",
    )
    add_serve_options(serve)
    serve.set_defaults(func=run)

"""The server's own command line: ``python -m stecflow.studies.server``.

``serve STUDY`` and ``export STUDY --out FILE``, as :func:`main`; the load and
access options of ``serve`` are the same as ``stecflow serve``'s (a test checks
that the two agree).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import Any

from stecflow.core.errors import StecflowError
from stecflow.studies.server.defaults import (
    DEFAULT_ABANDON_AFTER_S,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_READ_TIMEOUT_S,
    DEFAULT_SESSION_WINDOW_S,
    DEFAULT_SESSIONS_PER_ADDRESS,
)
from stecflow.studies.server.export import export_responses
from stecflow.studies.server.httpd import serve

__all__ = ["main"]

logger = logging.getLogger(__name__)


def _add_serve_options(parser: argparse.ArgumentParser) -> None:
    """Add the load and access options of :func:`serve` (read by _serve_options)."""
    parser.add_argument(
        "--read-timeout",
        type=float,
        default=DEFAULT_READ_TIMEOUT_S,
        metavar="SECONDS",
        help="close a connection that sends nothing for this long (default 30)",
    )
    parser.add_argument(
        "--max-connections",
        type=int,
        default=DEFAULT_MAX_CONNECTIONS,
        metavar="N",
        help="serve at most N connections at once; more are told to retry "
        "(default 256)",
    )
    parser.add_argument(
        "--sessions-per-address",
        type=int,
        default=DEFAULT_SESSIONS_PER_ADDRESS,
        metavar="N",
        help="let one network address start at most N sessions per "
        "--session-window (default 20; 0: no limit; raise it for a lab whose "
        "computers share an address)",
    )
    parser.add_argument(
        "--session-window",
        type=float,
        default=DEFAULT_SESSION_WINDOW_S,
        metavar="SECONDS",
        help="the window of --sessions-per-address (default 600)",
    )
    parser.add_argument(
        "--require-participant",
        action="store_true",
        help="start a session only with a participant ID in the page's address "
        "(?participant=, ?PROLIFIC_PID=, ?pid= or ?workerId=)",
    )
    parser.add_argument(
        "--behind-proxy",
        action="store_true",
        help="count addresses by the X-Forwarded-For header that a reverse proxy "
        "on this host adds (use only behind such a proxy)",
    )


def _serve_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of :func:`serve` from :func:`_add_serve_options`."""
    return {
        "read_timeout_s": args.read_timeout,
        "max_connections": args.max_connections,
        "sessions_per_address": args.sessions_per_address,
        "session_window_s": args.session_window,
        "require_participant": args.require_participant,
        "behind_proxy": args.behind_proxy,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Command line:
    ``python -m stecflow.studies.server {serve,export} STUDY [options]``."""
    parser = argparse.ArgumentParser(prog="python -m stecflow.studies.server")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("serve", help="serve a study and collect responses")
    run.add_argument("study_dir")
    run.add_argument("--host", default="127.0.0.1")
    run.add_argument("--port", type=int, default=8000)
    run.add_argument("--db", default=None)
    run.add_argument("--abandon-after", type=float, default=DEFAULT_ABANDON_AFTER_S)
    run.add_argument("--synchronous", choices=("FULL", "NORMAL"), default="FULL")
    _add_serve_options(run)
    out = sub.add_parser("export", help="export the responses as TSV")
    out.add_argument("study_dir")
    out.add_argument("--out", required=True)
    out.add_argument("--db", default=None)
    out.add_argument("--abandon-after", type=float, default=DEFAULT_ABANDON_AFTER_S)
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, stream=sys.stderr, format="%(levelname)s %(message)s"
    )
    try:
        if args.command == "serve":
            serve(
                args.study_dir,
                args.host,
                args.port,
                db_path=args.db,
                abandon_after_s=args.abandon_after,
                synchronous=args.synchronous,
                **_serve_options(args),
            )
        else:
            export_responses(
                args.study_dir,
                args.out,
                db_path=args.db,
                abandon_after_s=args.abandon_after,
            )
    except StecflowError as error:
        logger.error("%s", error)
        return 2
    return 0

"""The load and access options of serving a study, declared once for
``stecflow serve`` and ``python -m stecflow.studies.server serve``.

Each option has one flag, type, default and metavar (:data:`SERVE_OPTIONS`); the
two command lines list them in their own order and, for some, their own words
(:attr:`ServeOption.server_help`). :func:`serve_options` turns the parsed
options into the keyword arguments of :func:`~stecflow.studies.server.httpd.serve`.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from stecflow.studies.server.defaults import (
    DEFAULT_CONNECTIONS_PER_ADDRESS,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_READ_TIMEOUT_S,
    DEFAULT_SESSION_WINDOW_S,
    DEFAULT_SESSIONS_PER_ADDRESS,
    DEFAULT_THREADS,
    DEFAULT_TRUSTED_PROXY,
)

__all__ = ["SERVE_OPTIONS", "SERVER_ORDER", "ServeOption", "add_serve_options"]


@dataclass(frozen=True)
class ServeOption:
    """One option: its flag, its argparse keywords (type, default, metavar,
    action) and its help as ``stecflow serve`` words it, and as the server's own
    command line does where that differs."""

    flag: str
    keywords: Mapping[str, Any] = field(default_factory=dict)
    help: str = ""
    server_help: str | None = None


#: The options, in the order ``stecflow serve`` lists them.
SERVE_OPTIONS = (
    ServeOption(
        "--require-participant",
        {"action": "store_true"},
        "start a session only with a participant ID in the link"
        " (?participant=, ?PROLIFIC_PID=, ?pid= or ?workerId=)",
        "start a session only with a participant ID in the page's address "
        "(?participant=, ?PROLIFIC_PID=, ?pid= or ?workerId=)",
    ),
    ServeOption(
        "--sessions-per-address",
        {"type": int, "default": DEFAULT_SESSIONS_PER_ADDRESS, "metavar": "N"},
        "let one network address start at most N sessions per"
        " --session-window (default 20; 0: no limit; raise it for a lab whose"
        " computers share one address)",
        "let one network address start at most N sessions per "
        "--session-window (default 20; 0: no limit; raise it for a lab whose "
        "computers share an address)",
    ),
    ServeOption(
        "--session-window",
        {"type": float, "default": DEFAULT_SESSION_WINDOW_S, "metavar": "SECONDS"},
        "the time window of --sessions-per-address (default 600)",
        "the window of --sessions-per-address (default 600)",
    ),
    ServeOption(
        "--behind-proxy",
        {"action": "store_true"},
        "take addresses from the X-Forwarded-For header that a reverse proxy"
        " on this machine adds (only behind such a proxy)",
        "count addresses by the X-Forwarded-For header that a reverse proxy "
        "on this host adds (use only behind such a proxy)",
    ),
    ServeOption(
        "--trusted-proxy",
        {"default": DEFAULT_TRUSTED_PROXY, "metavar": "ADDRESS"},
        "with --behind-proxy, the proxy's address: X-Forwarded-For is"
        " believed on its connections only (default 127.0.0.1; * for any)",
    ),
    ServeOption(
        "--threads",
        {"type": int, "default": DEFAULT_THREADS, "metavar": "N"},
        "worker threads answering requests (default 8); idle connections take none",
    ),
    ServeOption(
        "--read-timeout",
        {"type": float, "default": DEFAULT_READ_TIMEOUT_S, "metavar": "SECONDS"},
        "close a connection that sends nothing for this long (default 30)",
    ),
    ServeOption(
        "--max-connections",
        {"type": int, "default": DEFAULT_MAX_CONNECTIONS, "metavar": "N"},
        "serve at most N connections at once; the others are told to retry"
        " (default 256)",
        "serve at most N connections at once; more are told to retry (default 256)",
    ),
    ServeOption(
        "--connections-per-address",
        {"type": int, "default": DEFAULT_CONNECTIONS_PER_ADDRESS, "metavar": "N"},
        "serve at most N of them from one network address; the others are"
        " told to retry (default 64; 0: no limit; raise it for a lab whose"
        " computers share one address)",
        "serve at most N of them from one network address; more are told to "
        "retry (default 64; 0: no limit; raise it for a lab whose computers share "
        "an address)",
    ),
    ServeOption(
        "--admin-token-file",
        {"metavar": "FILE"},
        "turn on the organiser's pages (admin/progress) with the token in"
        " FILE's first line (or set STECFLOW_ADMIN_TOKEN; see docs/deployment.md)",
        "turn on the organiser's pages (admin/progress) with the token in "
        "FILE's first line (or set STECFLOW_ADMIN_TOKEN; --admin-token TOKEN "
        "also works but shows the token to other users of the machine)",
    ),
    ServeOption(
        "--admin-token",
        {"metavar": "TOKEN"},
        "the organiser's token itself (other users of the machine can see it"
        " in the process list; prefer --admin-token-file or STECFLOW_ADMIN_TOKEN)",
    ),
    ServeOption(
        "--log",
        {"metavar": "FILE"},
        "per-session event log, JSON Lines (default: <database"
        " stem>.events.jsonl beside the database)",
        "the per-session event log, JSON Lines (default: "
        "<database stem>.events.jsonl beside the database)",
    ),
    ServeOption("--no-log", {"action": "store_true"}, "write no event log"),
    ServeOption(
        "--log-addresses",
        {"action": "store_true"},
        "write client addresses into the event log (personal data)",
    ),
    ServeOption(
        "--per-list",
        {"type": int, "default": 1, "metavar": "N"},
        "completed sessions wanted per list, for the progress page (default 1)",
    ),
)

#: The order in which ``python -m stecflow.studies.server serve`` lists them.
SERVER_ORDER = (
    "--read-timeout",
    "--max-connections",
    "--connections-per-address",
    "--sessions-per-address",
    "--session-window",
    "--require-participant",
    "--behind-proxy",
    "--trusted-proxy",
    "--threads",
    "--admin-token-file",
    "--admin-token",
    "--log",
    "--no-log",
    "--log-addresses",
    "--per-list",
)


def add_serve_options(
    parser: argparse.ArgumentParser, *, server_wording: bool = False
) -> None:
    """Add the options of :data:`SERVE_OPTIONS` to *parser*: in ``stecflow
    serve``'s order and words, or (*server_wording*) in those of ``python -m
    stecflow.studies.server serve``."""
    by_flag = {option.flag: option for option in SERVE_OPTIONS}
    order = SERVER_ORDER if server_wording else tuple(by_flag)
    for flag in order:
        option = by_flag[flag]
        words = option.help
        if server_wording and option.server_help is not None:
            words = option.server_help
        parser.add_argument(flag, **option.keywords, help=words)


def serve_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of :func:`~stecflow.studies.server.httpd.serve`
    given by the options :func:`add_serve_options` added."""
    return {
        "read_timeout_s": args.read_timeout,
        "max_connections": args.max_connections,
        "connections_per_address": args.connections_per_address,
        "threads": args.threads,
        "trusted_proxy": args.trusted_proxy,
        "sessions_per_address": args.sessions_per_address,
        "session_window_s": args.session_window,
        "require_participant": args.require_participant,
        "behind_proxy": args.behind_proxy,
        "admin_token": args.admin_token,
        "admin_token_file": args.admin_token_file,
        "log_path": args.log,
        "log": not args.no_log,
        "log_addresses": args.log_addresses,
        "per_list": args.per_list,
    }

"""``stecflow sessions``: the organiser's commands for a running study."""

from __future__ import annotations

import argparse
from typing import Any

from stecflow.cli.common import study_dir
from stecflow.studies.server.defaults import DEFAULT_ABANDON_AFTER_S

__all__ = ["register", "run"]


def run(args: argparse.Namespace) -> int:
    """Run ``stecflow sessions`` with the parsed *args*; return the exit status."""
    from stecflow.studies.server.cli import sessions_command

    print(
        sessions_command(
            args.action,
            study_dir(args.study),
            db_path=args.db,
            session=getattr(args, "session", None),
            out=getattr(args, "out", None),
            abandon_after_s=getattr(args, "abandon_after", DEFAULT_ABANDON_AFTER_S),
            per_list=getattr(args, "per_list", 1),
            as_json=getattr(args, "json", False),
            key=getattr(args, "key", None),
            config=getattr(args, "config", None),
            record_only=getattr(args, "record_only", False),
        )
    )
    return 0


def register(subparsers: Any) -> None:
    """Add the ``sessions`` subcommand to *subparsers*."""
    sessions = subparsers.add_parser(
        "sessions",
        help="the organiser's commands for a running study: return, backup, progress,"
        " withdraw, backups",
        description=(
            "return: mark a place the crowdsourcing platform returned or timed out"
            " (by session, platform session or participant ID), so that its list"
            " goes to the next participant. backup: copy the study's database"
            " consistently while the server runs. progress: sessions per list,"
            " durations, lists still needed. withdraw: erase every answer of a"
            " participant who withdraws (by ID or release pseudonym), keeping an"
            " audit line without personal data that the workflow reads, so that"
            " the next run leaves them out of judgments, statistics, report and"
            " release. backups: the backups made, and which hold withdrawn data."
            " Safe while `stecflow serve` runs."
        ),
    )
    actions = sessions.add_subparsers(dest="action", required=True)
    for name in ("return", "backup", "progress", "withdraw", "backups"):
        action = actions.add_parser(name)
        action.add_argument("study", help="study ID or study folder")
        action.add_argument(
            "--db", help="SQLite file (default: responses.sqlite beside web/)"
        )
        if name == "return":
            action.add_argument(
                "session", help="session, platform session or participant ID"
            )
        elif name == "backup":
            action.add_argument("--out", required=True, help="the copy to write")
        elif name == "withdraw":
            from stecflow.studies.server.cli import (
                WITHDRAW_WHO_HELP,
                add_withdraw_options,
            )

            action.add_argument(
                "session", metavar="participant", help=WITHDRAW_WHO_HELP
            )
            add_withdraw_options(action)
        elif name == "backups":
            pass
        else:
            action.add_argument(
                "--abandon-after",
                type=float,
                default=DEFAULT_ABANDON_AFTER_S,
                metavar="SECONDS",
                help="a session silent this long counts as abandoned (default 1800)",
            )
            action.add_argument(
                "--per-list",
                type=int,
                default=1,
                metavar="N",
                help="completed sessions wanted per list (default 1)",
            )
            action.add_argument("--json", action="store_true", help="print JSON")
    sessions.set_defaults(func=run)

"""The server's own command line: ``python -m stecflow.studies.server``.

``serve STUDY``, ``export STUDY --out FILE`` and the organiser's commands
``return STUDY SESSION`` (a place the platform returned or timed out),
``backup STUDY --out FILE`` (a consistent copy of the database while the server
runs), ``progress STUDY`` (the progress page's numbers), ``withdraw STUDY WHO``
(erase a participant who withdraws, keeping an audit line without personal
data) and ``backups STUDY`` (the backups, and which hold withdrawn data), as
:func:`main`; the
load and access options of ``serve`` are ``stecflow serve``'s, declared once in
:mod:`stecflow.studies.server.options`, and ``stecflow sessions`` runs the
organiser's commands through :func:`sessions_command`.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from stecflow.core.errors import StecflowError
from stecflow.studies.server.defaults import DEFAULT_ABANDON_AFTER_S
from stecflow.studies.server.export import export_responses, sessions_path
from stecflow.studies.server.httpd import serve
from stecflow.studies.server.options import add_serve_options, serve_options
from stecflow.studies.server.study import CollectionError

__all__ = [
    "WITHDRAW_WHO_HELP",
    "add_withdraw_options",
    "main",
    "sessions_command",
    "withdrawal_key",
]

logger = logging.getLogger(__name__)


def _add_sessions_commands(sub: Any) -> None:
    """The organiser's commands (the same as ``stecflow sessions``)."""
    back = sub.add_parser(
        "return", help="mark a place returned or timed out on the platform"
    )
    back.add_argument("study_dir")
    back.add_argument("session", help="session, platform session or participant ID")
    back.add_argument("--db", default=None)
    copy = sub.add_parser("backup", help="copy the database safely while it runs")
    copy.add_argument("study_dir")
    copy.add_argument("--out", required=True)
    copy.add_argument("--db", default=None)
    show = sub.add_parser("progress", help="print the collection's progress")
    show.add_argument("study_dir")
    show.add_argument("--db", default=None)
    show.add_argument("--abandon-after", type=float, default=DEFAULT_ABANDON_AFTER_S)
    show.add_argument("--per-list", type=int, default=1)
    show.add_argument("--json", action="store_true", help="print JSON")
    gone = sub.add_parser(
        "withdraw",
        help="erase a participant who withdraws, keeping an audit line without "
        "personal data",
    )
    gone.add_argument("study_dir")
    gone.add_argument("session", metavar="participant", help=WITHDRAW_WHO_HELP)
    gone.add_argument("--db", default=None)
    add_withdraw_options(gone)
    listing = sub.add_parser(
        "backups", help="list the backups and which hold withdrawn data"
    )
    listing.add_argument("study_dir")
    listing.add_argument("--db", default=None)


#: Help of the participant argument of ``withdraw``.
WITHDRAW_WHO_HELP = (
    "participant, session or platform session ID, or the participant's pseudonym "
    "in the release (e.g. P07-3fa2b19c0d)"
)


def add_withdraw_options(parser: argparse.ArgumentParser) -> None:
    """The key and record options of ``withdraw`` (here and ``stecflow sessions``)."""
    parser.add_argument(
        "--config",
        default=None,
        metavar="FILE",
        help="the campaign config whose release.key (else campaign.id) keys the "
        "audit line's hashes, as it keys the release's pseudonyms (default: "
        "config/config.yaml when it exists)",
    )
    parser.add_argument(
        "--key", default=None, help="the release key itself, instead of --config"
    )
    parser.add_argument(
        "--record-only",
        action="store_true",
        help="record the withdrawal even when the database holds no session of "
        "the person (answers collected offline or in the lab), so that the "
        "workflow drops their answers",
    )


def withdrawal_key(key: str | None, config: str | Path | None) -> str:
    """The key of a withdrawal's hashes: *key*, else ``release.key`` or else
    ``campaign.id`` of the campaign config *config* (default
    ``config/config.yaml`` when it exists).

    Raises
    ------
    CollectionError
        No key given and no config to read it from.
    """
    if key:
        return key
    path = Path(config) if config is not None else Path("config") / "config.yaml"
    if config is None and not path.is_file():
        raise CollectionError(
            "give the campaign config with --config FILE (its release.key, else "
            "campaign.id, keys the withdrawal's hashes as it keys the release's "
            "pseudonyms), or the key itself with --key",
            field="key",
        )
    import yaml

    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise CollectionError(
            f"cannot read the campaign config ({error})", file=str(path)
        ) from None
    release = document.get("release") or {}
    campaign = document.get("campaign") or {}
    found = release.get("key") or campaign.get("id")
    if not found:
        raise CollectionError(
            "the config has neither release.key nor campaign.id; give --key",
            file=str(path),
        )
    return str(found)


def sessions_command(
    action: str,
    study_dir: str | Path,
    *,
    db_path: str | Path | None = None,
    session: str | None = None,
    out: str | Path | None = None,
    abandon_after_s: float = DEFAULT_ABANDON_AFTER_S,
    per_list: int = 1,
    as_json: bool = False,
    now: float | None = None,
    key: str | None = None,
    config: str | Path | None = None,
    record_only: bool = False,
) -> str:
    """Run an organiser's command; return what to print.

    Parameters
    ----------
    action : {"return", "backup", "progress", "withdraw", "backups"}
        ``return``: mark *session* (session, platform session or participant
        ID) returned, so that its list goes to the next participant; safe while
        the server runs. ``backup``: copy the database to *out*
        (:func:`~stecflow.studies.server.organiser.backup_database`).
        ``progress``: the progress numbers, as text or JSON. ``withdraw``:
        erase the participant *session* names (an ID or a release pseudonym)
        and record the withdrawal
        (:func:`~stecflow.studies.server.organiser.withdraw_participant`); safe
        while the server runs. ``backups``: the backups made with ``backup``,
        each with whether it holds withdrawn data.
    study_dir, db_path
        The study and its database (default: beside the web folder).
    key, config, record_only
        ``withdraw``: the release key, or the campaign config to read it from
        (:func:`withdrawal_key`), and whether to record a withdrawal that
        matches no session.
    """
    from stecflow.studies.server.organiser import (
        backup_database,
        mark_returned,
        record_withdrawal,
        withdraw_participant,
    )
    from stecflow.studies.server.progress import progress
    from stecflow.studies.server.store import Store
    from stecflow.studies.server.study import default_db, load_study

    study = load_study(study_dir)
    db = Path(db_path) if db_path is not None else default_db(study.web_dir)
    current = time.time() if now is None else now
    if action == "backup":
        counts = backup_database(db, out)
        return (
            f"backed up {db} to {out} ({counts['sessions']} sessions, "
            f"{counts['trials']} trials)"
        )
    if action == "backups":
        return _backups_text(db)
    if action == "withdraw":
        secret = withdrawal_key(key, config)  # before anything is erased
        if record_only and not db.is_file():
            return _withdraw_text(
                record_withdrawal(db, str(session), secret, current), study.study
            )
    if not db.is_file():
        raise CollectionError(f"{db} does not exist; nothing collected yet")
    store = Store(db, study)
    try:
        if action == "withdraw":
            return _withdraw_text(
                withdraw_participant(
                    store, str(session), secret, current, record_only=record_only
                ),
                study.study,
            )
        if action == "return":
            result = mark_returned(store, str(session), current)
            done = "was already marked returned" if result["already"] else "returned"
            return (
                f"session {result['session']} {done}; list {result['list']} goes to "
                "the next participant"
            )
        with store.connection() as connection:
            data = progress(
                connection,
                study.study,
                list(study.lists),
                current,
                abandon_after_s,
                per_list,
            )
    finally:
        store.close()
    if as_json:
        return json.dumps(data, indent=2, sort_keys=True)
    lines = [
        f"study {data['study']}: {data['sessions']} sessions; completed "
        f"{data['completed']}, in progress {data['in_progress']}, abandoned "
        f"{data['abandoned']}, returned {data['returned']}",
    ]
    d = data["duration_s"]
    if d["n"]:
        lines.append(
            f"duration of {d['n']} completed: median {d['median'] / 60:.1f} min, "
            f"90th percentile {d['p90'] / 60:.1f} min"
        )
    lines.append("list\tcompleted\tin_progress\tabandoned\treturned\tneeded")
    for e in data["lists"]:
        lines.append(
            f"{e['list']}\t{e['completed']}\t{e['in_progress']}\t{e['abandoned']}"
            f"\t{e['returned']}\t{e['needed']}"
        )
    lines.append(
        f"participants still needed: {data['participants_needed']} (lists "
        f"{', '.join(data['lists_needed']) or 'none'})"
    )
    return "\n".join(lines)


def _withdraw_text(result: dict[str, Any], study: str) -> str:
    lines = [
        f"erased {result['sessions']} session(s), {result['trials']} trial(s) and "
        f"{result['answers']} questionnaire answer(s); the withdrawal is recorded "
        f"in {result['record']} (hashes {', '.join(result['hashes'])}, no ID)",
        "the next workflow run leaves the person out of the judgments, statistics,"
        " report and release, also from exports made before now, when the study's"
        f" withdrawals list {Path(result['record']).name} (results/studies/{study}/"
        "responses.withdrawals.tsv is read without being listed)",
    ]
    if not result["log_truncated"]:
        lines.append(
            "the database's write-ahead log (-wal) could not be emptied while "
            "another process read it (the server?): the erased rows may stay in it "
            "until the server writes over them, at the latest until it stops "
            "(SQLite then empties and removes the log)"
        )
    for path in result["backups"]:
        lines.append(
            f"backup {path} was made before and still holds the person's data; it is"
            f" marked ({path}.withdrawn.tsv): delete it, or erase them there too"
            f" with --db {path} and the hash {result['hashes'][0]}"
        )
    return "\n".join(lines)


def _backups_text(db: Path) -> str:
    from stecflow.studies.server.organiser import list_backups

    entries = list_backups(db)
    if not entries:
        return f"no backup of {db} was made with `stecflow sessions backup`"
    lines = ["backup_utc\tsessions\ttrials\tpath\tnote"]
    for e in entries:
        if not e["exists"]:
            note = "missing (moved or deleted)"
        elif e["withdrawn"]:
            note = (
                f"HOLDS DATA OF {e['withdrawn']} WITHDRAWN PARTICIPANT(S): delete it,"
                " or erase them in it before restoring it (see "
                f"{e['path']}.withdrawn.tsv)"
            )
        else:
            note = "no withdrawn data"
        lines.append(
            f"{e['backup_utc']}\t{e['sessions']}\t{e['trials']}\t{e['path']}\t{note}"
        )
    return "\n".join(lines)


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
    add_serve_options(run, server_wording=True)
    out = sub.add_parser("export", help="export the responses as TSV")
    out.add_argument("study_dir")
    out.add_argument("--out", required=True)
    out.add_argument("--db", default=None)
    out.add_argument("--abandon-after", type=float, default=DEFAULT_ABANDON_AFTER_S)
    _add_sessions_commands(sub)
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
                **serve_options(args),
            )
        elif args.command == "export":
            export_responses(
                args.study_dir,
                args.out,
                db_path=args.db,
                abandon_after_s=args.abandon_after,
            )
            print(f"wrote {args.out} and {sessions_path(args.out)}")
        else:
            print(
                sessions_command(
                    args.command,
                    args.study_dir,
                    db_path=args.db,
                    session=getattr(args, "session", None),
                    out=getattr(args, "out", None),
                    abandon_after_s=getattr(
                        args, "abandon_after", DEFAULT_ABANDON_AFTER_S
                    ),
                    per_list=getattr(args, "per_list", 1),
                    as_json=getattr(args, "json", False),
                    key=getattr(args, "key", None),
                    config=getattr(args, "config", None),
                    record_only=getattr(args, "record_only", False),
                )
            )
    except StecflowError as error:
        logger.error("%s", error)
        return 2
    return 0

"""``stecflow validate``: checks a submission folder as the campaign's workflow will."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from stecflow.cli.common import (
    campaign_folder,
    from_config,
    load_config,
    load_items,
    own_tasks,
)
from stecflow.core.errors import StecflowError
from stecflow.tasks.formats import chosen_format
from stecflow.tasks.formats import names as format_names
from stecflow.tasks.registry import names as task_names

__all__ = ["register", "run"]


def _check_as_discovered(folder: Path, root: Path) -> None:
    """Refuse a submission folder inside the campaign's submissions folder *root*
    that the workflow's discovery would not take: a team or system folder that
    is a symbolic link leading out of *root*
    (:func:`stecflow.campaign.discover_submissions` lists it as unreadable, with
    the same words)."""
    from stecflow.submissions.safepath import leads_outside

    where = Path(os.path.abspath(folder))
    root = Path(os.path.abspath(root))
    if root not in where.parents:
        return  # not in the campaign: checked as a folder of its own
    parts = where.relative_to(root).parts
    for depth, kind in ((1, "team"), (2, "system")):
        if len(parts) < depth:
            break
        entry = root.joinpath(*parts[:depth])
        if entry.is_symlink() and leads_outside(entry, root):
            raise StecflowError(
                "a symbolic link that leads out of the submissions folder"
                f" ({root}; stecflow follows links only inside it): the workflow"
                f" lists it as unreadable and does not validate it; put the {kind}"
                " folder itself here",
                file="/".join(parts[:depth]),
            )


def run(args: argparse.Namespace) -> int:
    """Run ``stecflow validate`` with the parsed *args*; return the exit status."""
    from stecflow.scoring.reported import reported_metrics
    from stecflow.submissions.report import format_report, write_validation
    from stecflow.submissions.validation import validate_submission
    from stecflow.tasks.base import Limits

    tasks: Sequence[str] = args.tasks or task_names()
    deadline = args.deadline
    testset, data_format = args.testset, args.format
    limits = None
    properties = None
    metrics = None
    folder = Path(args.submission)
    if args.config:
        config = load_config(args.config)
        base = campaign_folder(args.config)
        campaign = config.get("campaign", {})
        tasks = args.tasks or campaign.get("tasks", task_names())
        deadline = deadline or campaign.get("deadline")
        data = config.get("data", {})
        if not testset and data.get("testset"):
            testset = from_config(base, data["testset"])
        data_format = args.format or data.get("format")
        submissions = config.get("submissions") or {}
        limits = Limits.from_config(submissions.get("limits"))
        properties = submissions.get("properties")
        metrics = reported_metrics(config.get("scoring"), tasks)
        inside = Path(from_config(base, submissions.get("root") or "submissions"))
        if not folder.is_dir() and (inside / args.submission).is_dir():
            folder = inside / args.submission  # team/system in the campaign
        _check_as_discovered(folder, inside)
    if not testset:
        raise StecflowError("give the test set with --testset FILE (or --config)")
    data_format = chosen_format(testset, data_format)
    if own_tasks(data_format) and not args.tasks and not args.config:
        tasks = list(own_tasks(data_format))  # a dialogue corpus's, a text set's
    # the team and system are the folder names as given (as the workflow names a
    # folder that is a link inside the submissions folder), not the link's target
    named = Path(os.path.abspath(folder))
    folder = folder.resolve()
    if not folder.is_dir():
        raise StecflowError(
            "not a folder; give submissions/<team>/<system>", file=args.submission
        )
    record = validate_submission(
        named,
        load_items(testset, data_format),
        team=named.parent.name,
        system=named.name,
        campaign_tasks=list(tasks),
        deadline=deadline,
        limits=limits,
        properties=properties,
        metrics=metrics,
    )
    print(format_report(record))
    if args.json:
        write_validation(record, args.json, Path(args.json).with_suffix(".md"))
    return 0 if record["status"] == "accepted" else 1


def register(subparsers: Any) -> None:
    """Add the ``validate`` subcommand to *subparsers*."""
    validate = subparsers.add_parser(
        "validate",
        help="check a submission folder before sending it",
        description=(
            "Check a submission folder (system.yaml and outputs.xml, outputs.tsv"
            " for the situated dialogue task, or one of outputs.jsonl, outputs.txt"
            " and outputs.json for text generation) against the test set, print every"
            " problem found with file, line and field, and exit 0 if the submission"
            " is valid or 1 if it is not. The checks are the campaign workflow's"
            " own."
        ),
    )
    validate.add_argument(
        "submission", help="the submission folder, named <team>/<system>"
    )
    validate.add_argument(
        "--testset",
        help="the test set (XML file, corpus folder, folder of dialogue sessions,"
        " or JSON Lines file of the text task)",
    )
    validate.add_argument(
        "--format",
        choices=format_names(),
        default=None,
        help="format of the test set (default: dialogue for a folder of"
        " stecflow-dialogue sessions, whose submissions hold outputs.tsv and are"
        " checked for the situated_dialogue task; text for a .jsonl file, checked"
        " for the text_generation task; tuna otherwise)",
    )
    validate.add_argument(
        "--config",
        help="a campaign config; its tasks, deadline, limits and test set are used"
        " (its paths count from the campaign folder: the folder holding config/, or"
        " the config's own folder), and SUBMISSION may be <team>/<system> in its"
        " submissions folder",
    )
    validate.add_argument(
        "--tasks",
        nargs="+",
        choices=task_names(),
        help="tasks the campaign runs (default: all)",
    )
    validate.add_argument(
        "--deadline", help="ISO 8601 deadline, e.g. 2026-06-01T23:59:59Z"
    )
    validate.add_argument(
        "--json",
        metavar="FILE",
        help="also write the record as JSON (and .md beside it)",
    )
    validate.set_defaults(func=run)

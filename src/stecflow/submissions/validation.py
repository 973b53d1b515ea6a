"""Validate one submission against the campaign's test set (``validation.smk``).

Validation never raises on bad input: it returns a record with ``status`` either
``"accepted"`` or ``"rejected"`` and *every* problem found, each with the file, line
and field, so a team can fix everything in one go. Later stages skip rejected
submissions and the report lists the reasons. The parts: the metadata
(:mod:`.metadata`), the outputs file read by its task type (:mod:`.outputs`), the
team's report (:mod:`.report`) and the campaign's summary (:mod:`.summary`).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`,
:mod:`stecflow.submissions`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from stecflow.core.ids import is_valid_id
from stecflow.data.model import Item, Output
from stecflow.submissions.files import METADATA_FILE
from stecflow.submissions.metadata import _read_metadata, is_late
from stecflow.submissions.outputs import (
    _read_outputs_file,
    outputs_files,
    submission_file_names,
)
from stecflow.submissions.reading import _sha256
from stecflow.submissions.report import write_validation
from stecflow.tasks.base import Limits, Problem

__all__ = ["MAX_LISTED", "validate_submission", "validate_to_files"]


#: Problems of one kind listed one by one in a record; the rest are counted.
MAX_LISTED = 100


def _listed(problems: Sequence[Problem]) -> list[dict[str, Any]]:
    """The problems as dicts, at most :data:`MAX_LISTED` of each kind.

    A file with 50,000 unknown items gives a readable report (and a bounded
    record), not 50,000 rows; one extra problem per kind says how many more.
    """
    listed: list[dict[str, Any]] = []
    counts: dict[str, int] = {}
    for problem in problems:
        counts[problem.code] = counts.get(problem.code, 0) + 1
        if counts[problem.code] <= MAX_LISTED:
            listed.append(asdict(problem))
    for code, count in counts.items():
        if count > MAX_LISTED:
            first = next(p for p in problems if p.code == code)
            listed.append(
                asdict(
                    Problem(
                        code,
                        f"{count - MAX_LISTED:,} more problems of this kind are not"
                        " listed",
                        first.file,
                        severity=first.severity,
                    )
                )
            )
    return listed


def validate_submission(
    submission_dir: str | Path,
    items: Sequence[Item],
    *,
    team: str,
    system: str,
    campaign_tasks: Sequence[str],
    deadline: str | None = None,
    limits: Limits | None = None,
    properties: Mapping[str, Any] | None = None,
    metrics: Mapping[str, tuple[float | None, float | None]] | None = None,
) -> dict[str, Any]:
    """Check one submission and return its validation record.

    Parameters
    ----------
    submission_dir
        The folder ``submissions/<team>/<system>``.
    items
        The test set.
    team, system
        The IDs taken from the folder names.
    campaign_tasks
        The tasks the campaign runs; a submission for another task is rejected.
    deadline
        ISO 8601 timestamp after which a submission counts as late.
    limits
        Size limits (the defaults of :class:`Limits` if not given).
    properties
        The system properties the campaign declares (config
        ``submissions.properties``), checked by
        :func:`~stecflow.submissions.metadata.check_properties`.
    metrics
        The campaign's metric IDs with their ranges on the report's scale, which
        the ``self_reported`` scores of ``system.yaml`` are checked against
        (:func:`~stecflow.submissions.self_reported.check_self_reported`; None:
        only their form is checked).

    Returns
    -------
    dict
        ``status`` (``"accepted"`` or ``"rejected"``), ``errors`` and ``warnings``
        (lists of problem dicts), ``late``, ``reference``, ``primary``, ``tasks``,
        ``properties`` and ``self_reported`` (those that passed the checks), the
        metadata, counts and sha256 checksums of the files read. Never raises on
        bad submission content.
    """
    try:
        return _check_submission(
            Path(submission_dir),
            items,
            team=team,
            system=system,
            campaign_tasks=campaign_tasks,
            deadline=deadline,
            limits=limits or Limits(),
            properties=properties,
            metrics=metrics,
        )
    except Exception as exc:  # a bug of ours must never stop the campaign
        import logging

        logging.getLogger(__name__).exception("%s/%s: validation failed", team, system)
        problem = Problem(
            "internal_error",
            f"stecflow could not check this submission ({type(exc).__name__}: {exc});"
            " this is a bug in stecflow, please report it with the file",
            f"{team}/{system}",
        )
        return {
            "team": team,
            "system": system,
            "status": "rejected",
            "late": False,
            "reference": False,
            "primary": False,
            "supersedes": None,
            "tasks": [],
            "properties": {},
            "self_reported": [],
            "metadata": {},
            "n_items": len(items),
            "n_outputs": 0,
            "n_errors": 1,
            "n_warnings": 0,
            "errors": [asdict(problem)],
            "warnings": [],
            "limits": asdict(limits or Limits()),
            "checksums": {},
        }


def _check_submission(
    folder: Path,
    items: Sequence[Item],
    *,
    team: str,
    system: str,
    campaign_tasks: Sequence[str],
    deadline: str | None,
    limits: Limits,
    properties: Mapping[str, Any] | None = None,
    metrics: Mapping[str, tuple[float | None, float | None]] | None = None,
) -> dict[str, Any]:
    prefix = f"{team}/{system}"
    problems: list[Problem] = []
    for kind, value in (("team", team), ("system", system)):
        if not is_valid_id(value):
            problems.append(
                Problem(
                    "bad_id",
                    f"the {kind} folder name {value!r} may use only letters, digits,"
                    " '-' and '_', and must start with a letter or digit",
                    prefix,
                )
            )
    from stecflow.submissions.safepath import submission_files

    paths, refused = submission_files(folder, submission_file_names(campaign_tasks))
    problems.extend(
        Problem("outside_link", e.message, str(e.file), None, e.field) for e in refused
    )
    metadata: dict[str, Any] = {}
    if paths[METADATA_FILE] is not None:  # None: a link out of submissions/, refused
        metadata, meta_problems = _read_metadata(
            paths[METADATA_FILE],
            f"{prefix}/{METADATA_FILE}",
            team,
            system,
            limits.metadata_bytes,
            properties,
            metrics,
        )
        problems.extend(meta_problems)
    supersedes = metadata.get("supersedes")
    supersedes = supersedes if isinstance(supersedes, str) else None  # else: schema
    problem = _supersedes_problem(folder, team, system, supersedes)
    if problem is not None:
        problems.append(problem)
        supersedes = None
    tasks = metadata.get("tasks") if isinstance(metadata.get("tasks"), list) else []
    tasks = [t for t in tasks if isinstance(t, str)]
    for task in tasks:
        if task not in campaign_tasks:
            problems.append(
                Problem(
                    "task_not_run",
                    f"task {task!r} is not run in this campaign (it runs:"
                    f" {', '.join(campaign_tasks)})",
                    f"{prefix}/{METADATA_FILE}",
                    None,
                    "tasks",
                )
            )
    claimed = [t for t in tasks if t in campaign_tasks]
    try:
        names = outputs_files(claimed, campaign_tasks)
    except ValueError as exc:  # tasks whose outputs are read from different files
        problems.append(
            Problem("mixed_tasks", str(exc), f"{prefix}/{METADATA_FILE}", None, "tasks")
        )
        claimed, names = [], outputs_files([], campaign_tasks)
    # a task type may accept several names (text: .jsonl, .txt, .json): one file
    present = [n for n in names if paths[n] is not None and paths[n].is_file()]
    name = present[0] if present else names[0]
    outputs_path = paths[name]
    outputs: list[Output] = []
    if len(present) > 1:
        problems.append(
            Problem(
                "several_outputs",
                f"{', '.join(present[:-1])} and {present[-1]} are"
                f" {'both' if len(present) == 2 else 'all'} outputs files; keep the"
                " one that holds the system's outputs",
                prefix,
            )
        )
    elif outputs_path is not None and outputs_path.is_file():
        outputs, output_problems = _read_outputs_file(
            outputs_path, f"{prefix}/{name}", items, claimed, limits
        )
        problems.extend(output_problems)
    elif outputs_path is not None:  # None: a link out of submissions/, refused
        from stecflow.submissions.files import not_a_file

        others = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
        found = f" (the folder has: {', '.join(others)})" if others else ""
        what = [(n, not_a_file(folder / n)) for n in names if paths[n] is not None]
        what = [(n, kind) for n, kind in what if kind]
        if what:
            n, kind = what[0]
            message = (
                f"{n} is {kind}, not a file; put the system's outputs in a regular"
                f" file named {n}"
            )
        elif len(names) == 1:
            message = f"no {name}{found}; put the system's outputs in {name}"
        else:
            choices = f"{', '.join(names[:-1])} or {names[-1]}"
            message = (
                f"no outputs file ({choices}){found}; put the system's outputs in"
                " one of them"
            )
        problems.append(Problem("missing_outputs", message, prefix))
    errors = [p for p in problems if p.severity == "error"]
    warnings = [p for p in problems if p.severity == "warning"]
    return {
        "team": team,
        "system": system,
        "status": "rejected" if errors else "accepted",
        "late": is_late(metadata, deadline),
        "reference": bool(metadata.get("reference", False)),
        "primary": bool(metadata.get("primary", False)),
        "supersedes": supersedes,
        "tasks": tasks,
        "properties": dict(metadata.get("properties") or {}),
        "self_reported": list(metadata.get("self_reported") or []),
        "metadata": {k: metadata[k] for k in sorted(metadata)},
        "n_items": len(items),
        "n_outputs": len(outputs),
        "n_errors": len(errors),
        "n_warnings": len(warnings),
        "errors": _listed(errors),
        "warnings": _listed(warnings),
        "limits": asdict(limits),
        "checksums": {
            METADATA_FILE: (
                _sha256(paths[METADATA_FILE], limits.metadata_bytes)
                if paths[METADATA_FILE]
                else None
            ),
            **{
                n: (_sha256(paths[n], limits.outputs_bytes) if paths[n] else None)
                for n in (present or [name])
            },
        },
    }


def _supersedes_problem(
    folder: Path, team: str, system: str, supersedes: str | None
) -> Problem | None:
    """Why ``supersedes`` cannot name the system this one corrects, or None.

    It must be another system folder of the same team (only its existence is
    checked: nothing in it is read).
    """
    if supersedes is None or not is_valid_id(supersedes):
        return None  # absent, or not an ID (the schema check reports that)
    where = f"{team}/{system}/{METADATA_FILE}"
    if supersedes == system:
        message = (
            "a system cannot supersede itself; give the ID of the earlier system"
            " of your team that this one corrects, or remove the key"
        )
    elif not (folder.parent / supersedes).is_dir():
        message = (
            f"team {team} has no system {supersedes!r} to supersede; give the ID"
            " of the earlier system of your team that this one corrects (a folder"
            f" next to {system}/), or remove the key to let both stand"
        )
    else:
        return None
    return Problem("bad_supersedes", message, where, None, "supersedes")


def validate_to_files(
    submission_dir: str | Path,
    testset_path: str | Path,
    *,
    team: str,
    system: str,
    campaign_tasks: Sequence[str],
    deadline: str | None,
    json_path: str | Path,
    md_path: str | Path,
    limits: Mapping[str, Any] | None = None,
    properties: Mapping[str, Any] | None = None,
    items: Sequence[Item] | None = None,
    metrics: Mapping[str, tuple[float | None, float | None]] | None = None,
) -> dict[str, Any]:
    """Validate a submission against a test-set file and write both reports.

    *limits* is the config's ``submissions.limits`` (defaults of :class:`Limits`
    where a key is absent), *properties* its ``submissions.properties``, *metrics*
    its metrics with their ranges (see :func:`validate_submission`). *items*,
    when given, are the test set's items already read (the file is not read
    again).
    """
    import logging

    if items is None:
        from stecflow.tasks.registry import read_testset

        items = read_testset(testset_path)
    record = validate_submission(
        submission_dir,
        items,
        team=team,
        system=system,
        campaign_tasks=campaign_tasks,
        deadline=deadline,
        limits=Limits.from_config(limits),
        properties=properties,
        metrics=metrics,
    )
    write_validation(record, json_path, md_path)
    logging.getLogger(__name__).info(
        "%s/%s: %s with %d errors and %d warnings",
        team,
        system,
        record["status"],
        record["n_errors"],
        record["n_warnings"],
    )
    return record

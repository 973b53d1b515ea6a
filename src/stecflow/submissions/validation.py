"""Validate one submission against the campaign's test set.

Validation never raises on bad input: it returns a record with ``status`` either
``"accepted"`` or ``"rejected"`` and *every* problem found, each with the file, line
and field, so a team can fix everything in one go. Later stages skip rejected
submissions and the report lists the reasons.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from importlib import resources
from pathlib import Path
from typing import Any

from stecflow.core.errors import StecflowError
from stecflow.core.ids import is_valid_id
from stecflow.core.io import read_json, write_json, write_tsv
from stecflow.data.model import Item, Output
from stecflow.submissions.files import METADATA_FILE
from stecflow.tasks.base import Limits, Problem, TaskType
from stecflow.tasks.registry import task_types

__all__ = [
    "Limits",
    "Problem",
    "format_report",
    "is_late",
    "outputs_file",
    "parse_timestamp",
    "read_outputs",
    "summarise_validation",
    "submission_file_names",
    "superseding",
    "timestamp_text",
    "validate_submission",
    "validate_to_files",
    "write_validation",
]


def parse_timestamp(value: str) -> dt.datetime:
    """Parse an ISO 8601 timestamp with a time zone (``Z`` allowed).

    >>> parse_timestamp("2026-06-01T23:59:59Z").isoformat()
    '2026-06-01T23:59:59+00:00'
    """
    parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        raise ValueError(f"timestamp {value!r} has no time zone (add Z for UTC)")
    return parsed


def timestamp_text(value: Any) -> Any:
    """An unquoted YAML timestamp as ISO 8601 text (UTC if it has no zone).

    >>> timestamp_text(dt.datetime(2026, 6, 1, 12, 0))
    '2026-06-01T12:00:00Z'
    >>> timestamp_text("2026-06-01T12:00:00+02:00")
    '2026-06-01T12:00:00+02:00'
    """
    if not isinstance(value, dt.datetime):
        return value
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    return value.isoformat().replace("+00:00", "Z")


def is_late(metadata: Mapping[str, Any], deadline: str | None) -> bool:
    """Return True if the submission is marked late or arrived after *deadline*.

    >>> is_late({"submitted": "2026-06-02T00:00:00Z"}, "2026-06-01T23:59:59Z")
    True
    >>> is_late({"submitted": "2026-06-01T10:00:00+02:00", "late": False}, None)
    False
    """
    if metadata.get("late") is not None:
        return bool(metadata["late"])
    if deadline is None or not isinstance(metadata.get("submitted"), str):
        return False
    try:
        return parse_timestamp(metadata["submitted"]) > parse_timestamp(deadline)
    except ValueError:
        return False


# --------------------------------------------------------------------------- metadata


def _submission_schema() -> dict:
    """The metadata schema, ``tasks`` limited to the registered task types."""
    import yaml

    from stecflow.tasks.registry import names

    text = (
        resources.files("stecflow.submissions")
        .joinpath("schemas/submission.schema.yaml")
        .read_text()
    )
    schema = yaml.safe_load(text)
    schema["properties"]["tasks"]["items"]["enum"] = list(names())
    return schema


def _key_lines(text: str) -> dict[str, int]:
    """Map each top-level YAML key to its line number (1-based).

    Only called on text that :func:`~stecflow.data.yamlsafe.load_yaml` has accepted
    (bounded in size and nesting).
    """
    import yaml

    try:
        node = yaml.compose(text)
    except yaml.YAMLError:
        return {}
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {
        str(k.value): k.start_mark.line + 1
        for k, _ in node.value
        if isinstance(k, yaml.ScalarNode)
    }


#: How the types of the submission schema are named in messages.
_TYPE_WORDS = {
    "string": "text",
    "boolean": "true or false",
    "array": "a list",
    "object": "a mapping",
    "integer": "a whole number",
    "number": "a number",
    "null": "nothing (null)",
}


def _shown(value: Any, limit: int = 60) -> str:
    """A value as a message shows it: its kind and a short form."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = value if len(value) <= limit else value[: limit - 3] + "..."
        more = f", {len(value):,} characters" if len(value) > limit else ""
        return f"the text {text!r}{more}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return f"a mapping of {len(value)} keys"
    return type(value).__name__


def _schema_message(error: Any) -> str:
    """A jsonschema error in plain words, with the value cut to a readable size."""
    expected = error.schema.get("description", "")
    got = _shown(error.instance)
    if error.validator == "type":
        types = error.validator_value
        types = [types] if isinstance(types, str) else types
        return (
            f"expected {' or '.join(_TYPE_WORDS.get(t, t) for t in types)}, got {got}"
        )
    if error.validator == "pattern":
        return f"{got} does not have the expected form. {expected}".strip()
    if error.validator == "enum":
        allowed = ", ".join(str(v) for v in error.validator_value)
        return f"expected one of {allowed}, got {got}"
    if error.validator in ("minLength", "minItems"):
        return f"{got} is too short"
    if error.validator in ("maxLength", "maxItems"):
        return f"{got} is too long (at most {error.validator_value:,})"
    if error.validator == "uniqueItems":
        return "the list has repeated entries; give each once"
    message = error.message
    return message if len(message) <= 200 else message[:197] + "..."


def _open_regular(path: Path) -> Any:
    """Open a submission file that discovery resolved inside ``submissions/``.

    Without following a link its last part may have become since, and only if
    it is a regular file (:func:`stecflow.submissions.safepath.open_inside`).
    """
    from stecflow.submissions.safepath import open_inside

    return open_inside(path, path.parent)


def _read_regular(path: Path, size: int) -> bytes:
    """At most *size* bytes of a file opened with :func:`_open_regular`."""
    with _open_regular(path) as handle:
        return handle.read(size)


def _unreadable(exc: Exception, label: str) -> Problem:
    """A file that could not be opened after discovery found it."""
    reason = getattr(exc, "message", None) or getattr(exc, "strerror", None) or exc
    return Problem("unreadable_file", f"the file cannot be read: {reason}", label)


def _read_metadata(
    path: Path, label: str, team: str, system: str, max_bytes: int = 64 * 1024
) -> tuple[dict[str, Any], list[Problem]]:
    """Read ``system.yaml`` with the hardened reader and check it against its schema.

    Never raises on bad content: every problem becomes a :class:`Problem` naming
    the field and, where known, the line. Dates and timestamps come back as ISO
    8601 text (a date alone means midnight UTC).
    """
    import jsonschema

    from stecflow.core.errors import YAMLError
    from stecflow.data.yamlsafe import load_yaml

    if not path.is_file():
        return {}, [
            Problem(
                "missing_metadata",
                f"no {METADATA_FILE}; add one with team, system, description, contact,"
                " primary, submitted and tasks (see the README)",
                label,
            )
        ]
    size = path.stat().st_size
    if size > max_bytes:
        return {}, [
            Problem(
                "metadata_too_large",
                f"the file is {size:,} bytes; the limit is {max_bytes:,} bytes"
                " (a system.yaml is a few hundred bytes)",
                label,
            )
        ]
    try:
        raw = _read_regular(path, max_bytes + 1)
    except (OSError, StecflowError) as exc:
        return {}, [_unreadable(exc, label)]
    try:
        metadata = load_yaml(raw, label, max_bytes=max_bytes)
    except YAMLError as exc:
        code = "undecodable" if "UTF-8" in exc.message else "bad_yaml"
        return {}, [Problem(code, exc.message, label, exc.line)]
    if not isinstance(metadata, dict):
        return {}, [
            Problem(
                "bad_yaml",
                f"expected a mapping of fields to values, got {_shown(metadata)}",
                label,
                1,
            )
        ]
    lines = _key_lines(raw.decode("utf-8-sig"))
    problems = []
    validator = jsonschema.Draft202012Validator(_submission_schema())
    for error in sorted(validator.iter_errors(metadata), key=lambda e: list(e.path)):
        key = str(error.path[0]) if error.path else None
        field = key
        if key is not None and len(error.path) > 1:
            field = key + "".join(f"[{p}]" for p in list(error.path)[1:])
        if error.validator == "required":
            missing = error.message.split("'")[1]
            problems.append(
                Problem(
                    "incomplete_metadata",
                    "required field is missing",
                    label,
                    None,
                    missing,
                )
            )
        elif error.validator == "additionalProperties":
            known = ", ".join(_submission_schema()["properties"])
            for extra in sorted(set(metadata) - set(error.schema["properties"])):
                problems.append(
                    Problem(
                        "unknown_metadata_key",
                        f"unknown field (the fields are: {known})",
                        label,
                        lines.get(extra),
                        extra if len(extra) <= 60 else extra[:57] + "...",
                    )
                )
        else:
            problems.append(
                Problem(
                    "bad_metadata",
                    _schema_message(error),
                    label,
                    lines.get(key) if key else None,
                    field,
                )
            )
    for key, expected in (("team", team), ("system", system)):
        value = metadata.get(key)
        if isinstance(value, str) and value != expected:
            problems.append(
                Problem(
                    "metadata_mismatch",
                    f"says {_shown(value)} but the folder is named {expected!r};"
                    " make them the same",
                    label,
                    lines.get(key),
                    key,
                )
            )
    return metadata, problems


# ---------------------------------------------------------------------------- outputs


# ------------------------------------------------------------------------- submission


def _sha256(path: Path, max_bytes: int) -> str | None:
    """The file's sha256, read in blocks; None if it is missing or over the limit."""
    if not path.is_file() or path.stat().st_size > max_bytes:
        return None
    try:
        with _open_regular(path) as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except (OSError, StecflowError):  # reported where the file is read
        return None


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


def _read_outputs_file(
    path: Path,
    label: str,
    items: Sequence[Item],
    tasks: Sequence[str],
    limits: Limits,
) -> tuple[list[Output], list[Problem]]:
    """Check the size of the outputs file before reading it, then read it."""
    size = path.stat().st_size
    if size > limits.outputs_bytes:
        return [], [
            Problem(
                "outputs_too_large",
                f"the file is {size / 2**20:,.1f} MiB ({size:,} bytes); the limit is"
                f" {limits.max_outputs_mib:g} MiB (submissions.limits.max_outputs_mib"
                " in the campaign config)",
                label,
            )
        ]
    try:
        data = _read_regular(path, limits.outputs_bytes + 1)
    except (OSError, StecflowError) as exc:
        return [], [_unreadable(exc, label)]
    return read_outputs(data, label, items, tasks, limits)


def _reader_of(types: Sequence[TaskType]) -> TaskType:
    """The task type whose reader reads a submission of *types* (they share one)."""
    first = types[0]
    for other in types[1:]:
        if (other.outputs_file, other.read_outputs) != (
            first.outputs_file,
            first.read_outputs,
        ):
            raise ValueError(
                f"tasks {first.name} and {other.name} read different outputs files;"
                " a system takes part in tasks of one kind"
            )
    return first


def submission_file_names(campaign_tasks: Sequence[str]) -> tuple[str, ...]:
    """The files of a submission folder a campaign reads: metadata, then outputs.

    >>> submission_file_names(["end_to_end", "attribute_selection"])
    ('system.yaml', 'outputs.xml')
    """
    files = sorted({t.outputs_file for t in task_types(campaign_tasks)})
    return (METADATA_FILE, *files)


def outputs_file(tasks: Sequence[str], campaign_tasks: Sequence[str] = ()) -> str:
    """The name of the outputs file of a submission to *tasks*.

    >>> outputs_file(["end_to_end"])
    'outputs.xml'
    """
    if tasks:
        return _reader_of(task_types(tasks)).outputs_file
    return task_types(campaign_tasks or None)[0].outputs_file


def read_outputs(
    data: bytes,
    label: str,
    items: Sequence[Item],
    tasks: Sequence[str],
    limits: Limits | None = None,
    *,
    campaign_tasks: Sequence[str] = (),
) -> tuple[list[Output], list[Problem]]:
    """Read a submission's outputs file with the reader its task types declare.

    Parameters
    ----------
    data
        The bytes of the outputs file.
    label
        How to name the file in messages (a relative path).
    items
        The test-set items, in test-set order.
    tasks
        The tasks the submission claims: their task types' ``outputs`` must be
        given for every item. None claimed: nothing is required, and the file is
        read as the *campaign_tasks* (by default the built-in REG tasks) read it.
    limits
        Size limits (the defaults of :class:`Limits` if not given).

    Returns
    -------
    (outputs, problems)
        One :class:`Output` per item that could be read (test-set order), and every
        problem found. Outputs are returned even when there are problems.
    """
    types = task_types(tasks) if tasks else task_types(campaign_tasks or None)[:1]
    required = sorted({name for t in task_types(tasks) for name in t.outputs})
    return _reader_of(types).read_outputs(
        data, label, items, required, limits or Limits()
    )


def validate_submission(
    submission_dir: str | Path,
    items: Sequence[Item],
    *,
    team: str,
    system: str,
    campaign_tasks: Sequence[str],
    deadline: str | None = None,
    limits: Limits | None = None,
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

    Returns
    -------
    dict
        ``status`` (``"accepted"`` or ``"rejected"``), ``errors`` and ``warnings``
        (lists of problem dicts), ``late``, ``reference``, ``primary``, ``tasks``,
        the metadata, counts and sha256 checksums of the files read. Never raises on
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
        name = outputs_file(claimed, campaign_tasks)
    except ValueError as exc:  # tasks whose outputs are read from different files
        problems.append(
            Problem("mixed_tasks", str(exc), f"{prefix}/{METADATA_FILE}", None, "tasks")
        )
        claimed, name = [], outputs_file([], campaign_tasks)
    outputs_path = paths[name]
    outputs: list[Output] = []
    if outputs_path is not None and outputs_path.is_file():
        outputs, output_problems = _read_outputs_file(
            outputs_path, f"{prefix}/{name}", items, claimed, limits
        )
        problems.extend(output_problems)
    elif outputs_path is not None:  # None: a link out of submissions/, refused
        others = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
        found = f" (the folder has: {', '.join(others)})" if others else ""
        problems.append(
            Problem(
                "missing_outputs",
                f"no {name}{found}; put the system's outputs in {name}",
                prefix,
            )
        )
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
            name: (_sha256(paths[name], limits.outputs_bytes) if paths[name] else None),
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


def format_report(record: Mapping[str, Any]) -> str:
    """Render a validation record as Markdown for the team.

    >>> print(format_report({"team": "t", "system": "s", "status": "accepted",
    ...     "late": False, "n_items": 2, "n_outputs": 2, "errors": [],
    ...     "warnings": []}).splitlines()[0])
    # Validation report: t/s
    """
    status = record["status"].upper()
    lines = [
        f"# Validation report: {record['team']}/{record['system']}",
        "",
        f"**Status: {status}**" + (" (late submission)" if record.get("late") else ""),
        "",
        f"- outputs read: {record['n_outputs']} of {record['n_items']} test items",
        *(
            [f"- supersedes: {record['team']}/{record['supersedes']}"]
            if record.get("supersedes")
            else []
        ),
        f"- errors: {record.get('n_errors', len(record['errors']))}",
        f"- warnings: {record.get('n_warnings', len(record['warnings']))}",
        "",
    ]
    if record["status"] == "rejected":
        lines += [
            "This submission is not scored until every error below is fixed.",
            "Fix them all, then run `stecflow validate` again to check.",
            "",
        ]
    for title, problems in (
        ("Errors", record["errors"]),
        ("Warnings", record["warnings"]),
    ):
        if not problems:
            continue
        lines += [
            f"## {title}",
            "",
            "| file | line | where | problem |",
            "|---|---|---|---|",
        ]
        for p in problems:
            cells = [
                p["file"],
                "" if p["line"] is None else str(p["line"]),
                p["field"] or "",
                p["message"],
            ]
            lines.append("| " + " | ".join(_md_cell(c) for c in cells) + " |")
        lines.append("")
    if not record["errors"] and not record["warnings"]:
        lines += ["No problems found.", ""]
    return "\n".join(lines)


def _md_cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def write_validation(
    record: Mapping[str, Any], json_path: str | Path, md_path: str | Path
) -> None:
    """Write the record as deterministic JSON and the Markdown report."""
    write_json(record, json_path)
    Path(md_path).write_text(format_report(record), encoding="utf-8")


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
) -> dict[str, Any]:
    """Validate a submission against a test-set file and write both reports.

    *limits* is the config's ``submissions.limits`` (defaults of :class:`Limits`
    where a key is absent).
    """
    import logging

    from stecflow.data.corpus import read_items

    record = validate_submission(
        submission_dir,
        read_items(testset_path),
        team=team,
        system=system,
        campaign_tasks=campaign_tasks,
        deadline=deadline,
        limits=Limits.from_config(limits),
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


def superseding(records: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], str]:
    """``(team, system)`` -> the system(s) of the team that supersede it.

    Read from the validation records' ``supersedes`` (set only when it names
    another system folder of the team); several are joined with ``,``.

    >>> superseding([{"team": "is", "system": "fbs-2", "supersedes": "fbs"},
    ...              {"team": "is", "system": "fbs"}])
    {('is', 'fbs'): 'fbs-2'}
    """
    out: dict[tuple[str, str], list[str]] = {}
    for record in records:
        if record.get("supersedes"):
            key = (record["team"], record["supersedes"])
            out.setdefault(key, []).append(record["system"])
    return {key: ",".join(sorted(systems)) for key, systems in sorted(out.items())}


#: Columns of ``results/validation/summary.tsv``.
SUMMARY_COLUMNS = (
    "team",
    "system",
    "status",
    "late",
    "reference",
    "primary",
    "supersedes",
    "superseded_by",
    "tasks",
    "n_outputs",
    "n_items",
    "n_errors",
    "n_warnings",
    "first_error",
)


def summarise_validation(
    record_paths: Sequence[str | Path],
    discovery_problems: Sequence[Sequence[str]],
    tsv_path: str | Path,
) -> list[dict[str, Any]]:
    """Collect every validation record into one table, one row per submission.

    Folders that discovery could not take as submissions get a row with status
    ``unreadable`` and the reason, so nothing in ``submissions/`` goes unmentioned.
    A system that a later one of its team names in ``supersedes`` gets that
    system's ID in ``superseded_by`` (it leaves the ranking and the statistics).
    """
    rows = []
    records = [read_json(path) for path in record_paths]
    superseded_by = superseding(records)
    for record in records:
        first = record["errors"][0] if record["errors"] else None
        rows.append(
            {
                **{k: record[k] for k in SUMMARY_COLUMNS if k in record},
                "superseded_by": superseded_by.get((record["team"], record["system"])),
                "first_error": Problem(**first).describe() if first else "",
            }
        )
    for name, reason in discovery_problems:
        team, _, system = name.partition("/")
        rows.append(
            {
                "team": team,
                "system": system,
                "status": "unreadable",
                "first_error": f"{name}: {reason}",
            }
        )
    rows.sort(key=lambda r: (r["team"], r["system"]))
    write_tsv(rows, SUMMARY_COLUMNS, tsv_path)
    return rows

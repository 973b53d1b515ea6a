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
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from .ids import is_valid_id
from .io import read_json, write_json, write_tsv
from .model import Item, Output
from .submission import METADATA_FILE, OUTPUTS_FILE
from .xmlsafe import parse_xml_lenient

__all__ = [
    "TASK_OUTPUTS",
    "Problem",
    "format_report",
    "is_late",
    "parse_timestamp",
    "read_outputs",
    "summarise_validation",
    "timestamp_text",
    "validate_submission",
    "validate_to_files",
    "write_validation",
]

#: Which output element each task needs for every item.
TASK_OUTPUTS = {
    "attribute_selection": "ATTRIBUTE-SET",
    "realisation": "WORD-STRING",
    "end_to_end": "WORD-STRING",
}


@dataclass(frozen=True)
class Problem:
    """One problem in a submission; ``severity`` is ``"error"`` or ``"warning"``."""

    code: str
    message: str
    file: str
    line: int | None = None
    field: str | None = None
    severity: str = "error"

    def describe(self) -> str:
        """Render as ``file, line N, field: message``."""
        where = [self.file]
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.field:
            where.append(self.field)
        return ", ".join(where) + ": " + self.message


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
    import yaml

    text = (
        resources.files("stecflow")
        .joinpath("schemas/submission.schema.yaml")
        .read_text()
    )
    return yaml.safe_load(text)


def _key_lines(text: str) -> dict[str, int]:
    """Map each top-level YAML key to its line number (1-based)."""
    import yaml

    try:
        node = yaml.compose(text)
    except yaml.YAMLError:
        return {}
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {
        k.value: k.start_mark.line + 1 for k, _ in node.value if hasattr(k, "value")
    }


def _read_metadata(
    path: Path, label: str, team: str, system: str
) -> tuple[dict[str, Any], list[Problem]]:
    import jsonschema
    import yaml

    if not path.is_file():
        return {}, [
            Problem(
                "missing_metadata",
                f"no {METADATA_FILE}; add one with team, system, description, contact,"
                " primary, submitted and tasks (see the README)",
                label,
            )
        ]
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        return {}, [
            Problem(
                "undecodable",
                "bytes are not valid UTF-8; save the file as UTF-8",
                label,
                line,
            )
        ]
    try:
        metadata = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return {}, [
            Problem(
                "bad_yaml",
                f"not valid YAML: {getattr(exc, 'problem', None) or exc}",
                label,
                mark.line + 1 if mark else None,
            )
        ]
    if not isinstance(metadata, dict):
        return {}, [
            Problem("bad_yaml", "expected a mapping of keys to values", label, 1)
        ]
    for key, value in list(metadata.items()):
        metadata[key] = timestamp_text(value)
    lines = _key_lines(text)
    problems = []
    validator = jsonschema.Draft202012Validator(_submission_schema())
    for error in sorted(validator.iter_errors(metadata), key=lambda e: list(e.path)):
        key = str(error.path[0]) if error.path else None
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
            problems.append(
                Problem("unknown_metadata_key", error.message, label, None, key)
            )
        else:
            problems.append(
                Problem(
                    "bad_metadata",
                    f"{error.message}",
                    label,
                    lines.get(key) if key else None,
                    key,
                )
            )
    for key, expected in (("team", team), ("system", system)):
        value = metadata.get(key)
        if isinstance(value, str) and value != expected:
            problems.append(
                Problem(
                    "metadata_mismatch",
                    f"says {value!r} but the folder is named {expected!r};"
                    " make them the same",
                    label,
                    lines.get(key),
                    key,
                )
            )
    return metadata, problems


# ---------------------------------------------------------------------------- outputs


def read_outputs(
    data: bytes,
    label: str,
    items: Sequence[Item],
    tasks: Iterable[str],
) -> tuple[list[Output], list[Problem]]:
    """Read an outputs file and check it against the test-set *items*.

    Parameters
    ----------
    data
        The bytes of ``outputs.xml``.
    label
        How to name the file in messages (a relative path).
    items
        The test-set items, in test-set order.
    tasks
        The tasks the submission claims; each decides which element is required.

    Returns
    -------
    (outputs, problems)
        One :class:`Output` per TRIAL that could be read (test-set order), and every
        problem found. Outputs are returned even when there are problems.
    """
    problems: list[Problem] = []
    root, xml_problems = parse_xml_lenient(data, label)
    for p in xml_problems:
        code = "undecodable" if "not valid" in p.message else "xml_syntax"
        problems.append(Problem(code, p.message, label, p.line, p.element))
    if root is None:
        return [], problems
    if root.tag != "OUTPUTS":
        problems.append(
            Problem(
                "unexpected_root",
                f"the root element is <{root.tag}>; expected <OUTPUTS>",
                label,
                root.sourceline,
                f"<{root.tag}>",
                "warning",
            )
        )
    by_id = {item.id: item for item in items}
    required = sorted({TASK_OUTPUTS[t] for t in tasks if t in TASK_OUTPUTS})
    first_line: dict[str, int | None] = {}
    outputs: dict[str, Output] = {}
    for trial in root:
        if not isinstance(trial.tag, str):
            continue
        line = trial.sourceline
        if trial.tag != "TRIAL":
            problems.append(
                Problem(
                    "unexpected_element",
                    f"unexpected <{trial.tag}>; only TRIAL elements belong here",
                    label,
                    line,
                    f"<{trial.tag}>",
                )
            )
            continue
        item_id = (trial.get("ID") or "").strip()
        if not item_id:
            problems.append(
                Problem("missing_id", "TRIAL without an ID", label, line, "TRIAL")
            )
            continue
        field = f"TRIAL {item_id}"
        if item_id in first_line:
            problems.append(
                Problem(
                    "duplicate_item",
                    f"item {item_id} appears again"
                    f" (first on line {first_line[item_id]}); give one TRIAL per item",
                    label,
                    line,
                    field,
                )
            )
            continue
        first_line[item_id] = line
        item = by_id.get(item_id)
        if item is None:
            problems.append(
                Problem(
                    "unknown_item",
                    f"item {item_id} is not in the test set",
                    label,
                    line,
                    field,
                )
            )
            continue
        outputs[item_id] = _read_trial(trial, item, label, required, problems)
    for item in items:
        if item.id not in first_line:
            problems.append(
                Problem(
                    "missing_item",
                    f"no output for item {item.id}; give one TRIAL per test item",
                    label,
                    None,
                    f"TRIAL {item.id}",
                )
            )
    return [outputs[i.id] for i in items if i.id in outputs], problems


def _read_trial(
    trial: Any, item: Item, label: str, required: Sequence[str], problems: list[Problem]
) -> Output:
    field = f"TRIAL {item.id}"
    word_string = attrs = None
    domain_values = item.domain.values()
    for child in trial:
        if not isinstance(child.tag, str):
            continue
        where = f"{field} / {child.tag}"
        if child.tag == "WORD-STRING":
            text = "".join(child.itertext())
            word_string = " ".join(text.split())
            if not word_string:
                problems.append(
                    Problem(
                        "empty_string",
                        "the WORD-STRING is empty or only whitespace",
                        label,
                        child.sourceline,
                        where,
                    )
                )
        elif child.tag == "ATTRIBUTE-SET":
            pairs = []
            for attribute in child.iter("ATTRIBUTE"):
                name = (attribute.get("NAME") or "").strip()
                value = (attribute.get("VALUE") or "").strip()
                at = f"{field} / ATTRIBUTE {name or '?'}"
                if not name or not value:
                    problems.append(
                        Problem(
                            "bad_attribute",
                            "ATTRIBUTE needs non-empty NAME and VALUE",
                            label,
                            attribute.sourceline,
                            at,
                        )
                    )
                    continue
                if name not in domain_values:
                    problems.append(
                        Problem(
                            "unknown_attribute",
                            f"attribute {name!r} does not occur in this item's domain"
                            f" (it has: {', '.join(domain_values)})",
                            label,
                            attribute.sourceline,
                            at,
                        )
                    )
                elif value not in domain_values[name]:
                    allowed = ", ".join(sorted(domain_values[name]))
                    problems.append(
                        Problem(
                            "unknown_value",
                            f"{name}={value!r} does not occur in this item's domain"
                            f" (values there: {allowed})",
                            label,
                            attribute.sourceline,
                            at,
                        )
                    )
                pairs.append((name, value))
            attrs = frozenset(pairs)
            if not pairs:
                problems.append(
                    Problem(
                        "empty_attribute_set",
                        "the ATTRIBUTE-SET has no attributes",
                        label,
                        child.sourceline,
                        where,
                    )
                )
        else:
            problems.append(
                Problem(
                    "unexpected_element",
                    f"unexpected <{child.tag}> (expected ATTRIBUTE-SET or WORD-STRING);"
                    " it is ignored",
                    label,
                    child.sourceline,
                    where,
                    "warning",
                )
            )
    present = {
        "WORD-STRING": word_string is not None,
        "ATTRIBUTE-SET": attrs is not None,
    }
    for tag in required:
        if not present[tag]:
            problems.append(
                Problem(
                    "missing_output",
                    f"no {tag}, which the submission's tasks require",
                    label,
                    trial.sourceline,
                    field,
                )
            )
    return Output(item.id, word_string, attrs, trial.sourceline)


# ------------------------------------------------------------------------- submission


def _sha256(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def validate_submission(
    submission_dir: str | Path,
    items: Sequence[Item],
    *,
    team: str,
    system: str,
    campaign_tasks: Sequence[str],
    deadline: str | None = None,
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

    Returns
    -------
    dict
        ``status`` (``"accepted"`` or ``"rejected"``), ``errors`` and ``warnings``
        (lists of problem dicts), ``late``, ``reference``, ``primary``, ``tasks``,
        the metadata, counts and sha256 checksums of the files read. Never raises on
        bad submission content.
    """
    folder = Path(submission_dir)
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
    metadata, meta_problems = _read_metadata(
        folder / METADATA_FILE, f"{prefix}/{METADATA_FILE}", team, system
    )
    problems.extend(meta_problems)
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
    outputs_path = folder / OUTPUTS_FILE
    outputs: list[Output] = []
    if outputs_path.is_file():
        outputs, output_problems = read_outputs(
            outputs_path.read_bytes(),
            f"{prefix}/{OUTPUTS_FILE}",
            items,
            [t for t in tasks if t in campaign_tasks],
        )
        problems.extend(output_problems)
    else:
        others = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
        found = f" (the folder has: {', '.join(others)})" if others else ""
        problems.append(
            Problem(
                "missing_outputs",
                f"no {OUTPUTS_FILE}{found}; put the system's outputs in {OUTPUTS_FILE}",
                prefix,
            )
        )
    errors = [asdict(p) for p in problems if p.severity == "error"]
    warnings = [asdict(p) for p in problems if p.severity == "warning"]
    return {
        "team": team,
        "system": system,
        "status": "rejected" if errors else "accepted",
        "late": is_late(metadata, deadline),
        "reference": bool(metadata.get("reference", False)),
        "primary": bool(metadata.get("primary", False)),
        "tasks": tasks,
        "metadata": {k: metadata[k] for k in sorted(metadata)},
        "n_items": len(items),
        "n_outputs": len(outputs),
        "n_errors": len(errors),
        "n_warnings": len(warnings),
        "errors": errors,
        "warnings": warnings,
        "checksums": {
            name: _sha256(folder / name) for name in (METADATA_FILE, OUTPUTS_FILE)
        },
    }


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
        f"- errors: {len(record['errors'])}",
        f"- warnings: {len(record['warnings'])}",
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
) -> dict[str, Any]:
    """Validate a submission against a test-set file and write both reports."""
    import logging

    from .corpus import read_items

    record = validate_submission(
        submission_dir,
        read_items(testset_path),
        team=team,
        system=system,
        campaign_tasks=campaign_tasks,
        deadline=deadline,
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


#: Columns of ``results/validation/summary.tsv``.
SUMMARY_COLUMNS = (
    "team",
    "system",
    "status",
    "late",
    "reference",
    "primary",
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
    """
    rows = []
    for path in record_paths:
        record = read_json(path)
        first = record["errors"][0] if record["errors"] else None
        rows.append(
            {
                **{k: record[k] for k in SUMMARY_COLUMNS if k in record},
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

"""The validation report a team reads (``validation/<team>/<system>.md``).

May import: :mod:`stecflow.core`, :mod:`stecflow.submissions`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from stecflow.core.io import write_json

__all__ = ["format_report", "write_validation"]


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
    diagnosis = _diagnosis(record)
    if diagnosis:
        lines += [f"**Diagnosis:** {diagnosis}", ""]
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


def _diagnosis(record: Mapping[str, Any]) -> str | None:
    """One line for the commonest cause of hundreds of errors: outputs of
    another test set (no output is for an item of this one), or None.

    >>> _diagnosis({"n_outputs": 0, "n_items": 148, "errors": [
    ...     {"code": "unknown_item", "field": "TRIAL t001"},
    ...     {"code": "unknown_item", "field": "TRIAL t002"},
    ...     {"code": "missing_item", "field": "TRIAL dv-0001"}]})
    'none of the outputs is for an item of this test set (outputs for t001, t002; the test set has 148 items, e.g. dv-0001): the outputs were made for other data; check the test set given (--testset, or data.testset of --config)'
    """  # noqa: E501
    if record.get("n_outputs") or not record.get("n_items"):
        return None

    def ids(code: str) -> list[str]:
        return [
            str(e.get("field") or "").split(" ", 1)[-1]
            for e in record.get("errors") or []
            if e.get("code") == code and e.get("field")
        ]

    unknown, missing = ids("unknown_item"), ids("missing_item")
    if not unknown:
        return None
    shown = ", ".join(unknown[:3]) + (", …" if len(unknown) > 3 else "")
    example = f", e.g. {missing[0]}" if missing else ""
    return (
        f"none of the outputs is for an item of this test set (outputs for"
        f" {shown}; the test set has {record['n_items']} items{example}): the"
        " outputs were made for other data; check the test set given"
        " (--testset, or data.testset of --config)"
    )


def _md_cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def write_validation(
    record: Mapping[str, Any], json_path: str | Path, md_path: str | Path
) -> None:
    """Write the record as deterministic JSON and the Markdown report."""
    write_json(record, json_path)
    Path(md_path).write_text(format_report(record), encoding="utf-8")

"""The report's version and its "Changes since version X" block (in the overview)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stecflow.report.context import Block, heading, paragraph

__all__ = ["KIND_LABELS", "changes_blocks"]

#: How each kind of change is introduced in the list.
KIND_LABELS = {
    "submission_added": "Submission added",
    "submission_removed": "Submission removed",
    "status": "Status changed",
    "late": "Late flag changed",
    "score": "Score changed",
    "signature": "Metric signature changed",
    "analysis_added": "Analysis added",
    "analysis_removed": "Analysis removed",
    "analysis_changed": "Analysis result changed",
    "study_added": "Study added",
    "study_removed": "Study removed",
}


def changes_blocks(changes: Mapping[str, Any]) -> list[Block]:
    """Heading and list of the changes from
    :func:`stecflow.report.changes.changes_since`."""
    previous = changes.get("previous_version")
    notes = list(changes.get("notes") or [])
    if previous is None:
        blocks = [
            heading("First version", "changes"),
            paragraph(
                f"This is the first version ({changes.get('version', '1')}) of the"
                " results; no previous release to compare with."
            ),
        ]
    else:
        items = [
            f"{KIND_LABELS.get(c.kind, c.kind)}: {c.text}"
            for c in changes.get("changes") or []
        ]
        blocks = [
            heading(f"Changes since version {previous}", "changes"),
            paragraph(
                f"Version {changes.get('version', '1')} compared with the release"
                f" archive of version {previous}: {len(items)}"
                f" change{'s' if len(items) != 1 else ''} in submissions, scores,"
                " metric signatures, analyses and studies."
            ),
        ]
        if items:
            blocks.append({"kind": "list", "items": items})
    if notes:
        blocks.append(paragraph("Notes from the organisers:"))
        blocks.append({"kind": "list", "items": notes})
    return blocks

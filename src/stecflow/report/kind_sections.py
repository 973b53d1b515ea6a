"""Which studies the report shows in a section of their kind's own.

A study kind may declare a report section of its own
(:attr:`stecflow.studykinds.base.StudyKind.section`: its anchor and title, and
its ``section`` hook, ``(ctx, study IDs) -> blocks``), as seed 000's situated
identification study has; its studies then leave the human-evaluation section
and its analyses point there. This module finds them, by the kind the judgments
summary records or, for a study not yet judged, the one its config entry names.

May import: :mod:`stecflow.core`, :mod:`stecflow.report` (its own modules),
:mod:`stecflow.studykinds.registry`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from stecflow.report.context import Block, Context
from stecflow.report.inputs import JudgmentStudy
from stecflow.studykinds.registry import get, hook, is_kind, names

__all__ = [
    "KindSection",
    "kind_of",
    "kind_sections",
    "section_studies",
    "study_spec",
]


class KindSection(NamedTuple):
    """A kind's own section: its anchor, title, kind and studies, in order."""

    anchor: str
    title: str
    kind: str
    studies: list[str]

    def blocks(self, ctx: Context) -> list[Block]:
        """The section's blocks, from the kind's ``section`` hook."""
        return list(hook(self.kind, "section")(ctx, self.studies))


def study_spec(ctx: Context, study: str) -> Mapping[str, Any]:
    """The config entry of *study* (empty when it has none)."""
    for spec in ctx.config.get("studies") or []:
        if isinstance(spec, Mapping) and str(spec.get("id")) == study:
            return spec
    return {}


def kind_of(ctx: Context, study: JudgmentStudy) -> str | None:
    """The study kind of *study*: its judgments summary's ``task``, else its
    config entry's; None when neither names a registered kind."""
    task = study.summary.get("task") if study.summary else None
    if task is None:
        task = study_spec(ctx, study.study).get("task")
    return task if is_kind(task) else None


def section_studies(ctx: Context, kind: str) -> list[str]:
    """IDs of the studies of *kind*: the judged ones, then the configured
    ones not judged yet, in order."""
    found = [s.study for s in ctx.judgments if kind_of(ctx, s) == kind]
    for spec in ctx.config.get("studies") or []:
        if (
            isinstance(spec, Mapping)
            and spec.get("task") == kind
            and str(spec.get("id")) not in found
        ):
            found.append(str(spec.get("id")))
    return found


def kind_sections(ctx: Context) -> list[KindSection]:
    """The sections of their own of the kinds the campaign has studies of, in
    the registry's order."""
    sections = []
    for name in names():
        declared = get(name).section
        if declared:
            studies = section_studies(ctx, name)
            if studies:
                sections.append(KindSection(*declared, name, studies))
    return sections

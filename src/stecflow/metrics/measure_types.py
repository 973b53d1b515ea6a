"""What kind of evaluation a measure is, as the seed papers type their measures.

Seed 001 (TUNA-REG'09) Table 3 types every evaluation criterion by its *type of
evaluation* (intrinsic or extrinsic, human or automatic) and its *evaluation
technique* ("BLEU-3, NIST", "Judgment of fluency as rated by native speakers",
"Speed and accuracy in identification experiment"); its Table 10 heads the
correlations "Human-assessed, intrinsic", "Extrinsic" and "Auto-assessed,
intrinsic". Seed 002 (Belz & Gatt 2008) Table 2 boxes its correlations into four
broad types of measure: task performance, REG-specific, string similarity and
set similarity.

A :class:`MeasureType` holds all of that for one measure. It is declared where
the measure is declared: a metric class's ``measure_type``
(:mod:`stecflow.metrics.base`), a study kind's :class:`Measure`
(:mod:`stecflow.studykinds.base`); the config's ``report.measure_types``
overrides it. The report's criteria table and the grouping of its correlation
tables read it.

This module imports nothing of stecflow (metrics know nothing of files).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

__all__ = [
    "EVALUATIONS",
    "FIELDS",
    "GROUPS",
    "GROUP_TITLES",
    "JUDGES",
    "MeasureType",
    "default_metric_type",
]

#: Intrinsic: the output judged as it is (against references, by raters);
#: extrinsic: its effect on a task people do with it (seed 001 §5).
EVALUATIONS = ("intrinsic", "extrinsic")
#: Who gives the number: people (participants, raters) or a program.
JUDGES = ("human", "automatic")
#: The broad types of measure, in the order the report's correlation tables
#: show them: seed 001 Table 10's human-assessed measures first (judgments,
#: then task performance), then seed 002 Table 2's automatic boxes.
GROUPS = (
    "judgment",
    "task_performance",
    "reg_specific",
    "string_similarity",
    "set_similarity",
    "decision",
    "other",
)
#: How each group is named in the report.
GROUP_TITLES = {
    "judgment": "judgments",
    "task_performance": "task performance",
    "reg_specific": "REG-specific",
    "string_similarity": "string similarity",
    "set_similarity": "set similarity",
    "decision": "decisions",
    "other": "other",
}
#: The fields of a type, as ``report.measure_types`` names them.
FIELDS = ("evaluation", "judge", "technique", "group")


@dataclass(frozen=True)
class MeasureType:
    """The type of one measure (seed 001 Table 3, seed 002 Table 2's boxes).

    >>> t = MeasureType("intrinsic", "automatic", "BLEU-3", "string_similarity")
    >>> t.kind, t.short_header
    ('Intrinsic/automatic', 'String similarity')
    >>> t.header
    'Auto-assessed, intrinsic: string similarity'
    >>> MeasureType("intrinsic", "people", "x", "judgment")
    Traceback (most recent call last):
    ...
    ValueError: judge must be one of human, automatic; got 'people'
    """

    #: ``intrinsic`` or ``extrinsic`` (:data:`EVALUATIONS`).
    evaluation: str
    #: ``human`` or ``automatic`` (:data:`JUDGES`).
    judge: str
    #: The evaluation technique, in words (seed 001 Table 3's third column).
    technique: str
    #: The broad type (:data:`GROUPS`), seed 002 Table 2's boxes.
    group: str

    def __post_init__(self) -> None:
        for name, choices in (
            ("evaluation", EVALUATIONS),
            ("judge", JUDGES),
            ("group", GROUPS),
        ):
            value = getattr(self, name)
            if value not in choices:
                raise ValueError(
                    f"{name} must be one of {', '.join(choices)}; got {value!r}"
                )
        if not isinstance(self.technique, str) or not self.technique.strip():
            raise ValueError(
                f"technique must be a non-empty text; got {self.technique!r}"
            )

    @property
    def kind(self) -> str:
        """Seed 001 Table 3's "type of evaluation": ``Intrinsic/automatic``."""
        return f"{self.evaluation.capitalize()}/{self.judge}"

    @property
    def group_title(self) -> str:
        """The group as the report names it (``REG-specific``)."""
        return GROUP_TITLES[self.group]

    @property
    def header(self) -> str:
        """The heading of its block of a correlation table: seed 001 Table 10's
        header ("Human-assessed, intrinsic") with seed 002 Table 2's box."""
        judge = "Human-assessed" if self.judge == "human" else "Auto-assessed"
        return f"{judge}, {self.evaluation}: {self.group_title}"

    @property
    def short_header(self) -> str:
        """The group alone, capitalised (``String similarity``): the heading of
        its columns, seed 002 Table 2's boxes."""
        title = self.group_title
        return title[:1].upper() + title[1:]

    @property
    def order(self) -> tuple[int, int, int]:
        """Sort key of its block: the group, then human before automatic,
        intrinsic before extrinsic."""
        return (
            GROUPS.index(self.group),
            JUDGES.index(self.judge),
            EVALUATIONS.index(self.evaluation),
        )

    def with_overrides(self, overrides: Mapping[str, Any]) -> MeasureType:
        """This type with some fields replaced (a ``report.measure_types`` entry).

        >>> MeasureType("intrinsic", "automatic", "Dice", "set_similarity"
        ...     ).with_overrides({"group": "other"}).group
        'other'

        Raises
        ------
        ValueError
            For a field that is not one of :data:`FIELDS`, or a bad value.
        """
        unknown = sorted(set(overrides) - set(FIELDS))
        if unknown:
            raise ValueError(
                f"unknown field(s) {', '.join(unknown)}; a measure type has"
                f" {', '.join(FIELDS)}"
            )
        return replace(self, **dict(overrides))


def default_metric_type(input_type: str, display_name: str) -> MeasureType:
    """The type of a metric class that declares none (an organiser's plugin):
    intrinsic and automatic, grouped by what it compares.

    >>> default_metric_type("text", "MyMetric").group
    'string_similarity'
    """
    group = {
        "text": "string_similarity",
        "attributes": "set_similarity",
        "decision": "decision",
    }.get(input_type, "other")
    return MeasureType("intrinsic", "automatic", display_name, group)

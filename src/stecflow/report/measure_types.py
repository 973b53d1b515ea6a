"""The type of every measure a campaign reports, and the criteria table.

Seed 001 (TUNA-REG'09) Table 3 gives an overview of its evaluation methods: each
criterion's type of evaluation (intrinsic or extrinsic, human or automatic) and
technique. :func:`criteria_table` prints that table for the campaign, one row
per measure it reports: its automatic metrics, then its studies' measures. The
types come from where the measures are declared (a metric class's
``measure_type``, a study kind's :class:`~stecflow.studykinds.base.Measure`),
overridden by the config's ``report.measure_types``
(:func:`check_measure_types`); the correlation tables group their measures by
the same types (:func:`grouped`, seed 001 Table 10, seed 002 Table 2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from stecflow.core.errors import ConfigError
from stecflow.metrics.measure_types import GROUP_TITLES, MeasureType

__all__ = [
    "MeasureTypes",
    "ReportedMeasure",
    "check_measure_types",
    "criteria_table",
    "grouped",
]

#: The type of a measure nothing declares (a stale score, an unknown name).
_UNKNOWN = MeasureType("intrinsic", "automatic", "not declared", "other")


@dataclass(frozen=True)
class ReportedMeasure:
    """One measure the campaign reports: its name as the correlations and
    ``report.measure_types`` name it, the study it comes from (empty: the
    automatic scores) and its type, overrides applied."""

    name: str
    study: str
    type: MeasureType
    #: Whether ``report.measure_types`` changed its declared type.
    overridden: bool = False


def _studies(config: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [
        s
        for s in config.get("studies") or []
        if isinstance(s, Mapping) and s.get("id") and s.get("task")
    ]


def _study_measures(study: Mapping[str, Any]) -> list[str]:
    """The measures of a study: its kind's ``measures`` hook's (a text
    rating's criteria) or the measures its kind declares; none for a kind that
    declares none (the situated study: the study itself is the measure)."""
    from stecflow.studykinds.registry import get, hook, is_kind

    if not is_kind(study["task"]):
        return []
    own = hook(study["task"], "measures")
    if own is not None:
        return [str(m) for m in own(study)]
    return [m.name for m in get(study["task"]).measures]


class MeasureTypes:
    """The types of the measures of one campaign config.

    >>> types = MeasureTypes({"scoring": {"metrics": [{"id": "dice"}]},
    ...     "report": {"measure_types": {"dice": {"group": "other"}}}})
    >>> types.of("dice").group, types.of("dice").technique
    ('other', 'Dice coefficient with the reference attribute sets')
    """

    def __init__(self, config: Mapping[str, Any]) -> None:
        from stecflow.scoring.specs import build_metrics, metric_specs

        self.config = config
        scoring = config.get("scoring") or {}
        tasks = (config.get("campaign") or {}).get("tasks") or None
        #: Metric ID -> its class's type, in config order.
        self.metrics: dict[str, MeasureType] = {
            spec.id: type(metric).type_of()
            for spec, metric in build_metrics(metric_specs(scoring, tasks))
        }
        self.studies = {str(s["id"]): s for s in _studies(config)}
        self.overrides: Mapping[str, Mapping[str, Any]] = (
            config.get("report") or {}
        ).get("measure_types") or {}

    def _kind_type(self, study: str, measure: str) -> MeasureType:
        from stecflow.studykinds.registry import get, is_kind, kinds

        spec = self.studies.get(study)
        if spec is not None and is_kind(spec["task"]):
            return get(spec["task"]).type_of(measure)
        for kind in kinds():  # a study not configured: any kind declaring it
            if measure in {m.name for m in kind.measures}:
                return kind.type_of(measure)
        return _UNKNOWN

    def reported(self, name: str, study: str = "") -> ReportedMeasure:
        """The type of measure *name*: a metric ID, ``<study>:<measure>``, or a
        study's measure given with its *study*; overrides applied (the bare
        measure's first, then the study's own; a ``<measure>_z`` takes its
        measure's)."""
        if ":" in name:
            study, name = name.split(":", 1)
        keys = [name]
        if study and name in self.metrics and study == "scores":
            study = ""
        if not study and name in self.metrics:
            declared = self.metrics[name]
        elif (
            not study
            and name in self.studies
            and not _study_measures(self.studies[name])
        ):  # a study whose kind declares no measure: the study itself
            declared = self._kind_type(name, "")
            study = name
        else:
            study = study or next(
                (sid for sid, s in self.studies.items() if name in _study_measures(s)),
                "",
            )
            declared = self._kind_type(study, name)
            # a per-rater z-score (<measure>_z) takes its measure's entries
            bare = name[: -len("_z")] if name.endswith("_z") else name
            keys = list(dict.fromkeys([bare, name]))
            if study:
                keys += [f"{study}:{k}" for k in dict.fromkeys([bare, name])]
        found = declared
        for key in keys:
            if key in self.overrides:
                found = found.with_overrides(self.overrides[key])
        return ReportedMeasure(name, study, found, found != declared)

    def of(self, name: str, study: str = "") -> MeasureType:
        """:meth:`reported`'s type alone."""
        return self.reported(name, study).type

    def all(self) -> list[ReportedMeasure]:
        """Every measure the campaign reports: its metrics in config order, then
        each study's measures in config order (a study whose kind declares none
        stands for itself)."""
        out = [self.reported(mid) for mid in self.metrics]
        for sid, spec in self.studies.items():
            measures = _study_measures(spec)
            if not measures:
                out.append(self.reported(sid))
            out += [self.reported(m, sid) for m in measures]
        return out

    def names(self) -> list[str]:
        """The names ``report.measure_types`` may give: metric IDs, study
        measures, ``<study>:<measure>`` and the IDs of studies whose kind
        declares no measure."""
        names = list(self.metrics)
        for sid, spec in self.studies.items():
            measures = _study_measures(spec)
            names += [m for m in measures if m not in names]
            names += [f"{sid}:{m}" for m in measures] or [sid]
        return names


def check_measure_types(config: Mapping[str, Any]) -> None:
    """Check ``report.measure_types``: every key names a measure the campaign
    reports, every entry gives known fields with allowed values.

    Raises
    ------
    ConfigError
        Naming the key, with what it can be.
    """
    overrides = (config.get("report") or {}).get("measure_types") or {}
    if not overrides:
        return
    types = MeasureTypes(config)
    known = types.names()
    for key, entry in overrides.items():
        where = f"report.measure_types.{key}"
        if key not in known:
            raise ConfigError(
                f"{key!r} is not a measure this campaign reports; give a metric"
                " ID of scoring.metrics, a study's measure or <study ID>:<measure>"
                f" (it has: {', '.join(known) or 'none'})",
                field=where,
            )
        if not isinstance(entry, Mapping) or not entry:
            raise ConfigError(
                "give a mapping with any of evaluation, judge, technique, group",
                field=where,
            )
        try:
            types.of(key)
        except ValueError as exc:
            raise ConfigError(str(exc), field=where) from None


def grouped(
    measures: Sequence[str], types: Mapping[str, MeasureType]
) -> list[tuple[MeasureType, list[str]]]:
    """The measures in blocks of equal group, judge and evaluation, the blocks
    in :attr:`MeasureType.order`, the measures of a block in the given order.

    >>> t = MeasureType("intrinsic", "automatic", "x", "set_similarity")
    >>> h = MeasureType("extrinsic", "human", "y", "task_performance")
    >>> [(b.group, ms) for b, ms in grouped(["dice", "it", "masi"],
    ...     {"dice": t, "it": h, "masi": t})]
    [('task_performance', ['it']), ('set_similarity', ['dice', 'masi'])]
    """
    blocks: dict[tuple[int, int, int], tuple[MeasureType, list[str]]] = {}
    for m in measures:
        kind = types[m]
        blocks.setdefault(kind.order, (kind, []))[1].append(m)
    return [blocks[k] for k in sorted(blocks)]


def _source(measure: ReportedMeasure) -> str:
    return measure.study or "automatic scores"


def _label(ctx: Any, measure: ReportedMeasure) -> str:
    from stecflow.report.context import HUMAN_LABELS

    if not measure.study:
        return ctx.metric(measure.name).label
    if measure.name == measure.study:
        return str(_study(ctx, measure.study).get("title") or measure.study)
    return HUMAN_LABELS.get(measure.name, (measure.name,))[0]


def _study(ctx: Any, study: str) -> Mapping[str, Any]:
    return next((s for s in _studies(ctx.config) if s["id"] == study), {})


def criteria_table(ctx: Any, types: MeasureTypes | None = None) -> Any:
    """Seed 001 Table 3 for the campaign: one row per measure it reports, with
    its source, type of evaluation, technique and group; None if it reports
    none."""
    from stecflow.report.tables import Cell, Column, Row, Table

    types = types or MeasureTypes(ctx.config)
    reported = types.all()
    if not reported:
        return None
    rows = [
        Row(
            (
                Cell(_label(ctx, m), csv=(m.name,)),
                Cell(_source(m), csv=(m.study or "scores",)),
                Cell(m.type.kind, csv=(m.type.evaluation, m.type.judge)),
                Cell(m.type.technique),
                Cell(GROUP_TITLES[m.type.group], csv=(m.type.group,)),
            )
        )
        for m in reported
    ]
    changed = [
        f"{_label(ctx, m)}" + (f" ({m.study})" if m.study else "")
        for m in reported
        if m.overridden
    ]
    notes = [
        "Intrinsic: the output judged as it is; extrinsic: its effect on a task"
        " people do with it (seed 001 §5). Groups as seed 002 Table 2's boxes;"
        " the correlation tables are grouped by them."
    ]
    if changed:
        notes.append(
            "Type as the organisers set it (report.measure_types): "
            + ", ".join(changed)
            + "."
        )
    return Table(
        "criteria",
        "Evaluation criteria: every measure reported, its type of evaluation and"
        " technique (as seed 001 Table 3).",
        [
            Column("measure", "Measure", align="l"),
            Column("source", "From", align="l"),
            Column(
                "type", "Type of evaluation", align="l", csv=("evaluation", "judge")
            ),
            Column("technique", "Technique", align="l"),
            Column("group", "Group", align="l"),
        ],
        rows,
        notes,
    )

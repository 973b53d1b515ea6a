"""Which metrics a campaign computes, with which options, and their signatures.

:func:`metric_specs` reads the config's ``scoring`` section (or, without a list,
the :func:`default_metrics` of the campaign's task types); :func:`build_metrics`
makes the metric objects, loading a value hierarchy file when one is configured;
:func:`metric_signatures` is a param of the scoring rule, so a change of settings
re-runs exactly the scoring jobs.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.metrics`,
:mod:`stecflow.tasks`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from stecflow.core.errors import ConfigError

if TYPE_CHECKING:
    from stecflow.tasks.base import TaskType

__all__ = [
    "build_metrics",
    "default_metrics",
    "metric_directions",
    "metric_signatures",
    "metric_specs",
    "MetricSpec",
]


def default_metrics(tasks: Sequence[str] | None = None) -> tuple[str, ...]:
    """The metrics computed when the config lists none: those the campaign's task
    types declare (``default_metrics``), in their order, each once.

    *tasks* are task-type names (None: the built-in REG tasks).

    >>> default_metrics(["end_to_end"])[:3]
    ('dice', 'masi', 'set_accuracy')
    """
    from stecflow.tasks.registry import task_types

    names = [m for task in task_types(tasks) for m in task.default_metrics]
    return tuple(dict.fromkeys(names))


@dataclass(frozen=True)
class MetricSpec:
    """One configured metric: its ID in tables, registry name and options."""

    id: str
    name: str
    options: tuple[tuple[str, Any], ...]


def metric_specs(
    scoring: Mapping[str, Any] | None, tasks: Sequence[str] | None = None
) -> list[MetricSpec]:
    """Read the ``scoring`` config section into metric specs.

    Without ``scoring.metrics``, the metrics are the :func:`default_metrics` of the
    campaign's *tasks* (task-type names; None: the built-in REG tasks).

    ``scoring.text`` (``lowercase``, ``punctuation``) applies to every text metric
    that has those options, and ``scoring.value_hierarchy`` (an ontology of the
    attribute values) to every metric with a ``value_hierarchy`` option (the
    denotation similarity), unless the metric's own ``options`` say otherwise.

    Raises
    ------
    ConfigError
        For an unknown metric or option, or a repeated ID, naming the key path.
    """
    from stecflow.metrics import metric_class

    scoring = scoring or {}
    entries = scoring.get("metrics") or [
        {"id": name} for name in default_metrics(tasks)
    ]
    text = dict(scoring.get("text") or {})
    if scoring.get("value_hierarchy"):
        text["value_hierarchy"] = scoring["value_hierarchy"]
    specs = []
    seen = set()
    for n, entry in enumerate(entries):
        where = f"scoring.metrics[{n}]"
        name = entry.get("metric", entry["id"])
        try:
            cls = metric_class(name)
        except ValueError as exc:
            raise ConfigError(str(exc), field=f"{where}.metric") from None
        if entry["id"] in seen:
            raise ConfigError(f"metric ID {entry['id']!r} is used twice", field=where)
        seen.add(entry["id"])
        options = {k: v for k, v in text.items() if k in cls.option_names()}
        options.update(entry.get("options") or {})
        specs.append(MetricSpec(entry["id"], name, tuple(sorted(options.items()))))
    return specs


def build_metrics(specs: Sequence[MetricSpec]) -> list[tuple[MetricSpec, Any]]:
    """Instantiate the metrics; raise :class:`ConfigError` on a bad option."""
    from stecflow.metrics import get_metric

    built = []
    for spec in specs:
        options = dict(spec.options)
        try:
            if isinstance(options.get("value_hierarchy"), str):
                from stecflow.scoring.hierarchy import load_value_hierarchy

                options["value_hierarchy"] = load_value_hierarchy(
                    options["value_hierarchy"]
                )
            built.append((spec, get_metric(spec.name, **options)))
        except (TypeError, ValueError) as exc:
            raise ConfigError(
                str(exc), field=f"scoring.metrics[{spec.id}].options"
            ) from None
    return built


def _bootstrap_extra(scoring: Mapping[str, Any] | None) -> dict[str, Any]:
    boot = (scoring or {}).get("bootstrap") or {}
    return {"bs": int(boot.get("resamples", 1000)), "seed": int(boot.get("seed", 2009))}


def _realised(scoring: Mapping[str, Any] | None) -> bool:
    """True if word-string metrics score template-realised attribute sets."""
    return (scoring or {}).get("realise") == "template"


def _task(tasks: Sequence[str] | None) -> TaskType:
    """The task type that says what metrics score (the first of *tasks*)."""
    from stecflow.tasks.registry import task_types

    return task_types(tasks)[0]


def _realiser(scoring: Mapping[str, Any] | None, task: TaskType) -> Any:
    """The task's realiser if text metrics score realised outputs, else None."""
    return task.realiser if _realised(scoring) else None


def _signature_extra(
    scoring: Mapping[str, Any] | None,
    metric: Any,
    extra: Mapping[str, Any],
    task: TaskType,
) -> dict[str, Any]:
    """The signature fields beyond the metric's own: bootstrap, and the realiser
    when word-string metrics score realised outputs."""
    if metric.input_type == "text" and _realiser(scoring, task) is not None:
        return {"realise": task.realiser_id, **extra}
    return dict(extra)


def metric_signatures(
    scoring: Mapping[str, Any] | None, tasks: Sequence[str] | None = None
) -> dict[str, str]:
    """Map each metric ID to its signature (with the bootstrap settings).

    Used as a ``params`` value of the scoring rule, so that changing a metric's
    settings or version re-runs the scoring jobs and what depends on them.
    *tasks*: the campaign's task-type names (None: the built-in REG tasks).
    """
    extra = _bootstrap_extra(scoring)
    task = _task(tasks)
    return {
        spec.id: metric.signature(extra=_signature_extra(scoring, metric, extra, task))
        for spec, metric in build_metrics(metric_specs(scoring, tasks))
    }


def metric_directions(
    scoring: Mapping[str, Any] | None, tasks: Sequence[str] | None = None
) -> dict[str, bool]:
    """Map each metric ID to True if higher scores are better."""
    return {
        spec.id: metric.higher_is_better
        for spec, metric in build_metrics(metric_specs(scoring, tasks))
    }

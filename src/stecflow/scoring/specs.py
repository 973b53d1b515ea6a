"""Which metrics a campaign computes, with which options, and their signatures.

:func:`metric_specs` reads the config's ``scoring`` section (or, without a list,
the :func:`default_metrics` of the campaign's task types); :func:`build_metrics`
makes the metric objects, loading a value hierarchy file when one is configured;
:func:`metric_signatures` is a param of the scoring rule, so a change of settings
re-runs exactly the scoring jobs.

Metric plug-ins
---------------
An organiser adds a metric without touching stecflow in one of two ways
(:func:`resolve_metric_class`; docs/metrics.md has a worked example):

* ``scoring.metrics[].metric: "package.module:ClassName"``: the module is imported
  (it must be importable, e.g. installed or on ``PYTHONPATH``) and ``ClassName``
  must be a concrete subclass of :class:`stecflow.metrics.base.Metric`;
* an entry point in the group ``stecflow.metrics`` (:data:`ENTRY_POINT_GROUP`) of
  an installed distribution, whose name is then used as a metric name like the
  built-in ones (built-in names win).

Errors name the config entry (``scoring.metrics[2].metric``) and what was
expected.

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
    "ENTRY_POINT_GROUP",
    "build_metrics",
    "default_metrics",
    "metric_directions",
    "metric_signatures",
    "metric_specs",
    "MetricSpec",
    "plugin_metric_names",
    "resolve_metric_class",
]

#: The entry-point group in which installed distributions register metrics.
ENTRY_POINT_GROUP = "stecflow.metrics"

_PLUGIN_FORM = "'package.module:ClassName' (a subclass of stecflow.metrics.Metric)"


def plugin_metric_names() -> dict[str, str]:
    """The metrics installed distributions offer in :data:`ENTRY_POINT_GROUP`.

    Returns
    -------
    dict
        Entry-point name to its value (``"package.module:ClassName"``), sorted.
    """
    from importlib.metadata import entry_points

    found = entry_points(group=ENTRY_POINT_GROUP)
    return {ep.name: ep.value for ep in sorted(found, key=lambda ep: ep.name)}


def _check_metric_class(obj: Any, what: str, where: str) -> type:
    """Return *obj* if it is a concrete Metric subclass, else raise ConfigError."""
    import inspect

    from stecflow.metrics.base import Metric

    if not (inspect.isclass(obj) and issubclass(obj, Metric)):
        raise ConfigError(
            f"{what} is {type(obj).__name__} {obj!r}, not a metric class; "
            f"expected {_PLUGIN_FORM}",
            field=where,
        )
    if inspect.isabstract(obj):
        missing = ", ".join(sorted(obj.__abstractmethods__))
        raise ConfigError(
            f"{what} is an abstract metric class (it does not implement {missing});"
            f" expected a concrete subclass of stecflow.metrics.Metric",
            field=where,
        )
    for attr in ("name", "display_name", "version", "input_type"):
        if not hasattr(obj, attr):
            raise ConfigError(
                f"{what} has no class attribute {attr!r}; a metric class sets"
                " name, display_name, version and input_type",
                field=where,
            )
    return obj


def _import_metric_class(path: str, where: str) -> type:
    """Load ``package.module:ClassName``; ConfigError naming *where* if it fails."""
    import importlib

    module_name, _, class_name = path.partition(":")
    if (
        not module_name
        or not class_name
        or ":" in class_name
        or not all(p.isidentifier() for p in module_name.split("."))
        or not all(p.isidentifier() for p in class_name.split("."))
    ):
        raise ConfigError(
            f"metric {path!r} is not a plug-in path; expected {_PLUGIN_FORM}",
            field=where,
        )
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # any failure of the organiser's module at import
        raise ConfigError(
            f"metric {path!r}: cannot import module {module_name!r} ({exc}); "
            f"expected {_PLUGIN_FORM} naming an importable module (installed or "
            "on PYTHONPATH)",
            field=where,
        ) from None
    obj: Any = module
    for part in class_name.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ConfigError(
                f"metric {path!r}: module {module_name!r} has no {class_name!r}; "
                f"expected {_PLUGIN_FORM}",
                field=where,
            ) from None
    return _check_metric_class(obj, f"metric {path!r}", where)


def resolve_metric_class(name: str, where: str = "scoring.metrics[].metric") -> type:
    """Return the metric class a config names.

    Parameters
    ----------
    name : str
        A registered name (``bleu``), a plug-in path
        (``"package.module:ClassName"``) or the name of an entry point in the
        group :data:`ENTRY_POINT_GROUP`.
    where : str
        The config key path, for errors.

    Returns
    -------
    type
        A concrete :class:`stecflow.metrics.base.Metric` subclass.

    Raises
    ------
    ConfigError
        With ``field=where``, if the name is unknown, the module cannot be
        imported, the class does not exist or is not a concrete Metric subclass.

    Examples
    --------
    >>> resolve_metric_class("stecflow.metrics.sacrebleu:CHRF").name
    'chrf'
    """
    from stecflow.metrics import metric_class

    if ":" in name:
        return _import_metric_class(name, where)
    try:
        return metric_class(name)
    except ValueError as exc:
        unknown = str(exc)
    plugins = plugin_metric_names()
    if name not in plugins:
        extra = f"; installed plug-ins: {', '.join(plugins)}" if plugins else ""
        raise ConfigError(
            f"{unknown}{extra}; or give a plug-in as {_PLUGIN_FORM}", field=where
        )
    from importlib.metadata import entry_points

    ep = next(e for e in entry_points(group=ENTRY_POINT_GROUP) if e.name == name)
    what = f"entry point {name!r} ({ep.value}) of group {ENTRY_POINT_GROUP!r}"
    try:
        obj = ep.load()
    except Exception as exc:  # any failure of the distribution's module
        raise ConfigError(
            f"{what} cannot be loaded ({exc}); expected {_PLUGIN_FORM}", field=where
        ) from None
    return _check_metric_class(obj, what, where)


def _create_metric(cls: type, name: str, options: Mapping[str, Any]) -> Any:
    """Instantiate *cls* with *options*, rejecting options it does not accept."""
    accepted = cls.option_names()  # type: ignore[attr-defined]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        hint = getattr(cls, "option_hint", "")
        raise ValueError(
            f"metric {name!r} does not accept option(s) {', '.join(unknown)}; "
            f"its options are: {', '.join(accepted) or '(none)'}"
            + (f" ({hint})" if hint else "")
        )
    return cls(**options)


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
    that has those options (except metrics whose class sets
    ``shared_text_options = False``, e.g. the sacreBLEU metrics), and
    ``scoring.value_hierarchy`` (an ontology of the attribute values) to every
    metric with a ``value_hierarchy`` option (the denotation similarity), unless
    the metric's own ``options`` say otherwise.

    Raises
    ------
    ConfigError
        For an unknown metric or option, or a repeated ID, naming the key path.
    """
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
        if not isinstance(name, str) or not name:
            raise ConfigError(
                f"metric must be a metric name or {_PLUGIN_FORM}; got {name!r}",
                field=f"{where}.metric",
            )
        cls = resolve_metric_class(name, f"{where}.metric")
        if entry["id"] in seen:
            raise ConfigError(f"metric ID {entry['id']!r} is used twice", field=where)
        seen.add(entry["id"])
        shared = text if getattr(cls, "shared_text_options", True) else {}
        options = {k: v for k, v in shared.items() if k in cls.option_names()}
        options.update(entry.get("options") or {})
        specs.append(MetricSpec(entry["id"], name, tuple(sorted(options.items()))))
    return specs


def build_metrics(specs: Sequence[MetricSpec]) -> list[tuple[MetricSpec, Any]]:
    """Instantiate the metrics; raise :class:`ConfigError` on a bad option."""
    built = []
    for spec in specs:
        options = dict(spec.options)
        try:
            if isinstance(options.get("value_hierarchy"), str):
                from stecflow.scoring.hierarchy import load_value_hierarchy

                options["value_hierarchy"] = load_value_hierarchy(
                    options["value_hierarchy"]
                )
            cls = resolve_metric_class(spec.name, f"scoring.metrics[{spec.id}].metric")
            built.append((spec, _create_metric(cls, spec.name, options)))
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

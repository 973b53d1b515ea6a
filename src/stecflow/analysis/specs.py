"""Which analyses a campaign runs: the entries of ``statistics.analyses`` (or the
default ones) with their defaults filled in and checked against the config, and
the groups of them one job runs.

Each entry is checked by the spec check of its test
(:class:`~stecflow.analysis.registry.AnalysisTest`); the tests of item scores
and a study's trials share :func:`spec_check`, those bound to a study kind have
their own (:mod:`stecflow.analysis.kind_defaults`). Factors are columns of the
data (:data:`SCORE_FACTORS` for scores, :data:`STUDY_FACTORS` for a study's
trials) or system properties the campaign declares (``submissions.properties``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from stecflow.analysis import registry
from stecflow.analysis.kind_defaults import (
    check_study_source,
    default_analyses,
    study_measures,
)
from stecflow.analysis.registry import Check, SpecContext
from stecflow.core.errors import ConfigError

__all__ = [
    "SCORE_FACTORS",
    "STUDY_FACTORS",
    "analysis_groups",
    "analysis_sources",
    "analysis_specs",
    "spec_check",
]

#: Columns of the item scores an analysis may use as factors.
SCORE_FACTORS = ("system", "item", "subdomain", "condition")

#: Columns of a study's trials (``judgments/<study>.tsv``) usable as factors.
STUDY_FACTORS = (
    "system",
    "item",
    "subdomain",
    "condition",
    "subject",
    "participant",
    "session",
    "list",
    "subject_slot",
    "group",
    "item_set",
    "variant",
)


def _computed_metrics(
    metrics: Mapping[str, Any],
    tasks: Sequence[str] | None,
    scoring: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """The configured metrics that give the campaign's outputs a score.

    A word-string metric scores nothing in a campaign whose task types output no
    word string (attribute selection) unless ``scoring.realise`` realises the
    attribute sets: every system gets a ``skipped`` row for it, and no analysis
    has data. The default analyses
    (:func:`~stecflow.analysis.kind_defaults.default_analyses`) use only these.

    Examples
    --------
    >>> from stecflow.metrics import get_metric
    >>> metrics = {"dice": get_metric("dice"), "se": get_metric("se")}
    >>> list(_computed_metrics(metrics, ["attribute_selection"], {}))
    ['dice']
    >>> list(_computed_metrics(metrics, ["attribute_selection"],
    ...                        {"realise": "template"}))
    ['dice', 'se']
    >>> list(_computed_metrics(metrics, ["end_to_end"], {}))
    ['dice', 'se']
    """
    from stecflow.tasks.registry import task_types

    outputs = {o for task in task_types(tasks) for o in task.outputs}
    realised = bool((scoring or {}).get("realise")) and "attribute_set" in outputs
    texts = "word_string" in outputs or realised
    return {
        mid: metric
        for mid, metric in metrics.items()
        if texts or getattr(metric, "input_type", None) != "text"
    }


def analysis_specs(config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The analyses to run, with defaults filled in, checked against the config.

    Raises
    ------
    ConfigError
        For an unknown test (the message of the config schema's ``test``
        enum), an unknown measure or source, a test on a corpus-level metric (which
        has no item scores), bad factors (neither a column of the source nor a
        declared system property) or a repeated ID, naming the key path.
    """
    from stecflow.scoring.specs import build_metrics, metric_specs

    statistics = config.get("statistics") or {}
    tasks = (config.get("campaign") or {}).get("tasks") or None
    metrics = {
        spec.id: metric
        for spec, metric in build_metrics(metric_specs(config.get("scoring"), tasks))
    }
    studies = {s["id"]: s for s in config.get("studies") or []}
    declared = dict((config.get("submissions") or {}).get("properties") or {})
    clash = sorted(set(declared) & set(STUDY_FACTORS))
    if clash:
        raise ConfigError(
            f"system property {clash[0]!r} has the name of a data column; rename it",
            field=f"submissions.properties.{clash[0]}",
        )
    available = dict.fromkeys(metrics, "scores")
    for sid, study in studies.items():
        available.update(
            dict.fromkeys((f"{sid}:{m}" for m in study_measures(study)), sid)
        )
    entries = statistics.get("analyses") or default_analyses(
        _computed_metrics(metrics, tasks, config.get("scoring")),
        list(studies.values()),
    )
    context = SpecContext(metrics, studies, available, declared)
    specs = []
    for n, entry in enumerate(entries):
        where = f"statistics.analyses[{n}]"
        if entry["test"] not in registry.names():  # as the config schema says
            raise ConfigError(
                f"{entry['test']!r} is not one of {list(registry.names())}",
                field=f"{where}.test",
            )
        specs.append(registry.get(entry["test"]).check(entry, where, context))
    return specs


def analysis_sources(spec: Mapping[str, Any], studies: Iterable[str]) -> list[str]:
    """The studies whose judgments one analysis reads, sorted (none: scores only).

    Its ``source`` and the studies its measures name (``rating:adequacy``), where
    they are studies of the campaign.

    Examples
    --------
    >>> analysis_sources({"source": "scores", "measures": ["se", "rating:fluency"]},
    ...                  ["rating", "identification"])
    ['rating']
    """
    known = set(studies)
    sources = {spec.get("source", "scores")} | {
        m.split(":")[0] for m in spec.get("measures", []) if ":" in m
    }
    return sorted(s for s in sources if s in known)


def analysis_groups(
    specs: Iterable[Mapping[str, Any]], studies: Iterable[str]
) -> dict[str, list[str]]:
    """Group name -> the IDs of the analyses that read the same tables.

    One job runs each group (the ``run_analyses_<group>`` rules), so the
    statistics stage loads its libraries once per group, not once per analysis,
    and new judgments of one study re-run only the analyses that read them. The
    analyses of the automatic scores alone form the group ``scores``; the others
    are named after the studies they read, joined with ``+`` (sorted). Groups are
    in order of their first analysis; analyses keep the configured order.

    Examples
    --------
    >>> analysis_groups(
    ...     [{"id": "se-anova", "source": "scores"},
    ...      {"id": "r-anova", "source": "rating"},
    ...      {"id": "correlations", "source": "scores",
    ...       "measures": ["se", "rating:fluency", "identification:time"]},
    ...      {"id": "se-tukey", "source": "scores"}],
    ...     ["rating", "identification"])
    {'scores': ['se-anova', 'se-tukey'], 'rating': ['r-anova'], \
'identification+rating': ['correlations']}
    """
    known = list(studies)
    groups: dict[str, list[str]] = {}
    for spec in specs:
        name = "+".join(analysis_sources(spec, known)) or "scores"
        groups.setdefault(name, []).append(spec["id"])
    return groups


#: What a test's ``measure`` or ``measures`` are: ``one`` measure (``measure``)
#: of the item scores or of a study's trials, ``several`` at once
#: (``measures``; a study's measures and item-level metrics may be joined), or
#: ``system_means``: any measures of the scores or the studies (``measures``,
#: by default all), on per-system means (correlations: corpus-level metrics
#: enter, ``deletion`` and ``exclude_systems`` apply).
Measures = Literal["one", "several", "system_means"]


def _system_factor(context: SpecContext) -> list[str]:
    return ["system"]


def spec_check(
    *,
    measures: Measures = "one",
    least: int = 1,
    default_factors: Callable[[SpecContext], list[str]] = _system_factor,
    refine: Callable[[dict[str, Any], str], None] | None = None,
    terms: bool = False,
) -> Check:
    """The spec check of a test of item scores or of a study's trials.

    The check fills in the defaults (``source: scores``, the factors) and
    checks the ID (once), the source (``scores`` or a study of a kind the test
    may read), the measures (known, at least *least* of several, none
    corpus-level but on system means), the factors (columns of the source or
    declared properties), the keys only some tests take, then *refine*'s
    checks of the test itself, then the ``terms``.

    Parameters
    ----------
    measures
        What the test's measures are (:data:`Measures`).
    least
        The fewest measures a test of ``several`` takes.
    default_factors
        The factors of an entry that names none, from the config.
    refine
        ``refine(spec, where)``: the test's own checks and defaults (raising a
        ConfigError naming the key path under *where*).
    terms
        Whether the test takes ``terms`` (the model's terms, of the factors).
    """

    def check(
        entry: Mapping[str, Any], where: str, context: SpecContext
    ) -> dict[str, Any]:
        return _checked_spec(
            entry,
            where,
            context,
            measures=measures,
            least=least,
            default_factors=default_factors,
            refine=refine,
            terms=terms,
        )

    return check


def _checked_spec(
    entry: Mapping[str, Any],
    where: str,
    context: SpecContext,
    *,
    measures: Measures,
    least: int,
    default_factors: Callable[[SpecContext], list[str]],
    refine: Callable[[dict[str, Any], str], None] | None,
    terms: bool,
) -> dict[str, Any]:
    """One entry of ``statistics.analyses`` with its defaults, or a ConfigError
    (the arguments after *context* are :func:`spec_check`'s)."""
    test = entry["test"]
    metrics, studies = context.metrics, context.studies
    available, declared, seen = context.available, context.declared, context.seen
    several = measures == "several"
    spec = {"factors": default_factors(context), "source": "scores", **entry}
    if spec["id"] in seen:
        raise ConfigError(f"analysis ID {spec['id']!r} is used twice", field=where)
    seen.add(spec["id"])
    if measures == "system_means":
        spec.setdefault("measures", list(available))
        valid, chosen = list(available), spec["measures"]
    elif spec["source"] == "scores":
        valid = list(metrics)
        chosen = list(spec.get("measures") or []) if several else [spec.get("measure")]
    elif spec["source"] in studies:
        check_study_source(spec, studies[spec["source"]], where)
        valid = study_measures(studies[spec["source"]])
        if several:  # a study's measures and metrics joined
            valid += [m for m, metric in metrics.items() if metric.level != "corpus"]
            chosen = spec.get("measures") or []
        else:
            chosen = [spec.get("measure")]
    else:
        raise ConfigError(
            f"unknown source {spec['source']!r}; use scores or a study ID"
            f" ({', '.join(studies) or 'no studies are configured'})",
            field=f"{where}.source",
        )
    key = "measures" if several else "measure"
    if several and len(chosen) < least:
        raise ConfigError(
            f"{test} needs measures: at least {least}",
            field=f"{where}.measures",
        )
    unknown = [m for m in chosen if m not in valid]
    if unknown:
        raise ConfigError(
            f"unknown measure {unknown[0]!r}; measures here: {', '.join(valid)}",
            field=f"{where}.{key}",
        )
    corpus = [
        m
        for m in chosen
        if measures != "system_means" and m in metrics and metrics[m].level == "corpus"
    ]
    if corpus:
        raise ConfigError(
            f"{corpus[0]} is a corpus-level metric: it has no per-item scores"
            f" for a {test} test (use it in correlations)",
            field=f"{where}.{key}",
        )
    if spec.get("deletion") and measures != "system_means":
        raise ConfigError(
            "deletion applies to correlations only", field=f"{where}.deletion"
        )
    if spec.get("exclude_systems") and measures != "system_means":
        raise ConfigError(
            "exclude_systems applies to correlations only (an analysis of"
            " item scores takes every system analysed)",
            field=f"{where}.exclude_systems",
        )
    columns = SCORE_FACTORS if spec["source"] == "scores" else STUDY_FACTORS
    allowed = [*columns, *declared]
    named = [*spec["factors"]]
    named += [spec[k] for k in ("within", "pair_by") if spec.get(k)]
    bad = [f for f in named if f not in allowed]
    if bad:
        raise ConfigError(
            f"unknown factor {bad[0]!r}: factors here are the columns"
            f" {', '.join(columns)} and the system properties declared in"
            f" submissions.properties ({', '.join(declared) or 'none'})",
            field=f"{where}.factors",
        )
    if refine is not None:
        refine(spec, where)
    if spec.get("terms") and not terms:
        raise ConfigError("terms applies to manova only", field=f"{where}.terms")
    for term in spec.get("terms") or []:
        missing = [f for f in term.split(":") if f not in spec["factors"]]
        if missing:
            raise ConfigError(
                f"term {term!r} names {missing[0]!r}, which is not among the"
                f" factors ({', '.join(spec['factors'])})",
                field=f"{where}.terms",
            )
    return spec

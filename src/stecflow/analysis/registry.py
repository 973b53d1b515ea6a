"""The analysis tests by name: what each one declares (:class:`AnalysisTest`) and
where :func:`~stecflow.analysis.run.run_analysis` finds it (:func:`get`).

An analysis test (the ``test`` of an entry of ``statistics.analyses``) is one
:class:`AnalysisTest`: its spec check (the entry with its defaults, or a
ConfigError naming the key path), its frame loader (what it analyses, read
from the tables of the stages before), its runner (the result table, and what
goes into the JSON record beside it) and how its table and record are written.
The built-in tests are declared one family per module of
:mod:`stecflow.analysis.families` (:data:`FAMILIES`), imported on first use; a
study kind's own tests by its ``tests`` hook (the situated study's
``situated_ttests``); a test from outside the library is passed to
:func:`register`.

The runner of a test computes with a :mod:`stecflow.stats` function; how its
result is written in words is :mod:`stecflow.analysis.formatting`, and how the
report shows it ``report/statistics.py``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stecflow.analysis.record import write_result
from stecflow.core.errors import ConfigError

__all__ = [
    "FAMILIES",
    "AnalysisJob",
    "AnalysisTest",
    "SpecContext",
    "effect_rows",
    "get",
    "names",
    "register",
    "spec_factors",
    "unregister",
]

#: Modules declaring the built-in tests (each has a ``TESTS`` tuple), in the
#: order the tests are listed (the order of the config schema's ``test`` enum).
FAMILIES = (
    "stecflow.analysis.families.univariate",
    "stecflow.analysis.families.correlation",
    "stecflow.analysis.families.ttests",
    "stecflow.analysis.families.multivariate",
    "stecflow.analysis.families.mixed",
    "stecflow.analysis.families.descriptive",
    "stecflow.analysis.families.situated",
    "stecflow.analysis.families.preference",
    "stecflow.analysis.families.designs",
)


@dataclass(frozen=True)
class SpecContext:
    """What a spec check reads of the config, and the IDs checked so far."""

    #: Metric ID -> metric, every metric the campaign configures.
    metrics: Mapping[str, Any]
    #: Study ID -> the study's config entry.
    studies: Mapping[str, Mapping[str, Any]]
    #: Measure -> where it comes from: a metric ID -> ``scores``, and each
    #: study's measures as ``<study>:<measure>`` -> the study ID.
    available: Mapping[str, str]
    #: The system properties declared in ``submissions.properties``.
    declared: Mapping[str, Any]
    #: The analysis IDs checked so far (a check adds its own).
    seen: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class AnalysisJob:
    """One analysis' input tables, output files and settings, as
    :func:`~stecflow.analysis.run.run_analysis` got them."""

    #: ``scores/items.tsv`` and ``scores/analysed.tsv``
    #: (:func:`~stecflow.analysis.collect.collect_item_scores`).
    items_path: str | Path
    systems_path: str | Path
    #: The table and the JSON record to write.
    out_tsv: str | Path
    out_json: str | Path
    #: ``(team, system)`` -> label of every system analysed.
    labels: Mapping[tuple[str, str], str]
    #: Study ID -> ``judgments/<study>.tsv``.
    judgments: Mapping[str, str | Path]
    alpha: float = 0.05
    higher_is_better: Mapping[str, bool] | None = None
    exclude_references: bool = True
    ss_type: int = 3
    digits: int = 2
    posthoc: Mapping[str, Any] = field(default_factory=dict)


#: ``check(entry, where, context)``: the entry of ``statistics.analyses`` at
#: *where* with its defaults filled in, or a ConfigError naming the key path.
Check = Callable[[Mapping[str, Any], str, SpecContext], dict[str, Any]]
#: ``load(spec, job, record)``: what the test analyses (a frame; for tests whose
#: computation reads and checks its tables itself,
#: naming file and line, their paths); *record* takes what loading found.
Load = Callable[[Mapping[str, Any], AnalysisJob, dict[str, Any]], Any]
#: ``run(spec, data, job, record)``: the result (a frame or rows); the entries
#: of the JSON record the test adds go into *record*.
Run = Callable[[Mapping[str, Any], Any, AnalysisJob, dict[str, Any]], Any]
#: ``write(spec, result, data, job, record)``: write the table and the record;
#: return the record.
Write = Callable[[Mapping[str, Any], Any, Any, AnalysisJob, dict[str, Any]], Any]


def spec_factors(spec: Mapping[str, Any]) -> list[str]:
    """The factors whose cells the design check counts: the spec's ``factors``."""
    return list(spec.get("factors") or [])


def effect_rows(
    spec: Mapping[str, Any], status: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The not-computable table of a test of effects: one row of the first
    factor's effect (``source``) with *status* (``computable``, ``reason``)."""
    factors = list(spec.get("factors") or [])
    return [{"source": factors[0] if factors else "system", **status}]


@dataclass(frozen=True)
class AnalysisTest:
    """One analysis test: what ``test: <name>`` checks, reads, computes and writes.

    :func:`~stecflow.analysis.run.run_analysis` calls ``load``, then ``run``,
    then ``write``; :func:`~stecflow.analysis.specs.analysis_specs` calls
    ``check`` on each entry naming the test.
    """

    #: The name a config gives as ``test``.
    name: str
    #: The spec check (:data:`Check`).
    check: Check
    #: The frame loader (:data:`Load`).
    load: Load
    #: The runner (:data:`Run`).
    run: Run
    #: How the table and record are written (:data:`Write`); by default
    #: :func:`~stecflow.analysis.record.write_result`: the result frame as the
    #: table, and the record completed with the judgments' settings, the
    #: design's completeness (over :attr:`design_factors`) and the texts.
    write: Write = write_result
    #: Whether the default writer gives each result row as a text
    #: (:func:`~stecflow.analysis.formatting.format_result`), where the runner
    #: put no ``text`` in the record: letter tables have no test statistic.
    texts: bool = True
    #: The factors whose cells the default writer counts (none: no count).
    design_factors: Callable[[Mapping[str, Any]], Sequence[str]] = spec_factors
    #: The metrics whose item scores the test reads from ``scores/items.tsv``
    #: (:func:`~stecflow.analysis.run.prefetch_item_frames` reads them at once
    #: for a group of analyses).
    item_measures: Callable[[Mapping[str, Any]], Sequence[Any]] = (
        lambda spec: []  # reads no item scores
    )
    #: The table of the analysis when it cannot be computed, from its spec and
    #: the status cells (``computable`` false, ``reason``).
    not_computable: Callable[
        [Mapping[str, Any], Mapping[str, Any]], list[dict[str, Any]]
    ] = effect_rows
    #: Whether :func:`~stecflow.analysis.run.run_analysis_or_note` first checks
    #: that the metrics it names have scores (the tests bound to a study kind
    #: say themselves what is missing).
    checks_scores: bool = True
    #: What :func:`~stecflow.analysis.run.run_analysis_or_note` does when some
    #: of its metrics have no scores: ``partial(spec, unscored, run, out_tsv,
    #: out_json)`` runs what can be computed (``run(spec)`` is
    #: :func:`~stecflow.analysis.run.run_analysis` of another spec), completes
    #: the table and record, and returns the record; None: not computable.
    partial: Callable[..., Any] | None = None


_BUILT_IN: dict[str, AnalysisTest] = {}  # filled on first use, in FAMILIES order
_ADDED: dict[str, AnalysisTest] = {}


def _built_in() -> dict[str, AnalysisTest]:
    """The tests of :data:`FAMILIES`, then those the study kinds bring (their
    ``tests`` hook), in the kinds' order."""
    if not _BUILT_IN:
        from stecflow.studykinds.registry import hook, kinds

        families = [importlib.import_module(module).TESTS for module in FAMILIES]
        families += [hook(kind.name, "tests") or () for kind in kinds()]
        for tests in families:
            for test in tests:
                if test.name in _BUILT_IN:
                    raise ValueError(f"test {test.name!r} is declared twice")
                _BUILT_IN[test.name] = test
    return _BUILT_IN


def register(test: AnalysisTest) -> AnalysisTest:
    """Add *test* under its name; a name is registered once.

    Raises
    ------
    ValueError
        If another test already has the name.
    """
    existing = _built_in().get(test.name) or _ADDED.get(test.name)
    if existing is not None and existing is not test:
        raise ValueError(f"an analysis test {test.name!r} is already registered")
    _ADDED[test.name] = test
    return test


def unregister(name: str) -> None:
    """Remove the test *name* added by :func:`register` (tests that add their own
    use it); the built-in tests stay."""
    _ADDED.pop(name, None)


def names() -> tuple[str, ...]:
    """Every test's name: the built-in ones in :data:`FAMILIES` order, then those
    :func:`register` added.

    >>> names()[:4]
    ('anova', 'tukey', 'kruskal', 'correlations')
    """
    return (*_built_in(), *(n for n in _ADDED if n not in _BUILT_IN))


def get(name: str) -> AnalysisTest:
    """The test called *name*.

    Raises
    ------
    ConfigError
        If there is none, with the message of the config schema's ``test`` enum
        (naming the tests there are).

    >>> get("kruskal").name
    'kruskal'
    """
    found = _built_in().get(name) or _ADDED.get(name)
    if found is None:
        raise ConfigError(f"{name!r} is not one of {list(names())}", field="test")
    return found

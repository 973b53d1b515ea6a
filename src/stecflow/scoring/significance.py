"""Which systems differ: paired tests between every two systems on every metric.

:func:`compare_systems` (the ``compare_systems`` rule) reads the item scores of
the systems that enter the statistics (``results/scores/items.tsv``, whose
``stats`` column holds each item's sufficient statistics) and their system
scores (``results/scores/analysed.tsv``), and writes

* ``results/scores/significance.tsv``: one row per metric x pair of systems x
  method (:data:`SIGNIFICANCE_COLUMNS`): paired bootstrap resampling
  (``paired_bs``) and approximate randomisation (``paired_ar``) exactly as
  sacreBLEU does them (:mod:`stecflow.stats.significance`), over the statistics
  of every configured metric of any task type: corpus-level metrics (BLEU,
  NIST, chrF, TER) rescored from resampled statistics, mean metrics (Dice, SE,
  ...) as the mean of the resampled item scores. Each metric scores its own
  resamples (``Metric.resample_scores`` of the metric registry), so a test's
  scores are the scoring stage's.
* ``results/scores/clusters.tsv``: per metric, every system's rank and cluster
  of systems not significantly different (:data:`CLUSTER_COLUMNS`, the rule of
  :func:`stecflow.stats.significance.significance_clusters`), by the first of the
  configured methods; in a campaign of several task types, also among each
  task's systems (``task`` column; the tasks each system's validation record
  lists), as WMT ranks each language pair on its own.

Systems are named ``team/system``. Every pair is tested on the items both were
scored on (a pair with different items is logged and tested on the common ones;
its ``n`` says how many). A pair is significant when its p-value is at most
``alpha`` (sacreBLEU marks p <= 0.05 with a star) and the two scores differ: two
systems with equal scores are never significantly different (sacreBLEU's tests
give them p = 1 / (samples + 1)). Seeded: every pair draws from a generator
started from the configured seed, as sacreBLEU's comparisons with a baseline
do, so results are byte-identical run to run and do not depend on the other
systems.

May import: :mod:`stecflow.core`, :mod:`stecflow.metrics`, :mod:`stecflow.stats`,
:mod:`stecflow.scoring`.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.core.io import iter_tsv, read_tsv, write_tsv
from stecflow.scoring.specs import build_metrics, metric_specs

__all__ = [
    "CLUSTER_COLUMNS",
    "DEFAULTS",
    "METHODS",
    "SIGNIFICANCE_COLUMNS",
    "compare_systems",
    "metric_score_function",
    "pairwise_tests",
    "significance_settings",
    "method_signature",
]

log = logging.getLogger(__name__)

#: Methods by config name: (description, the sample-count key of the settings).
METHODS = {
    "paired_bs": ("paired bootstrap resampling", "resamples"),
    "paired_ar": ("approximate randomisation", "trials"),
}

#: ``scoring.significance`` defaults: sacreBLEU's.
DEFAULTS: dict[str, Any] = {
    "methods": ["paired_bs", "paired_ar"],
    "resamples": 1000,
    "trials": 10000,
    "seed": 12345,
    "alpha": 0.05,
}

#: Columns of ``results/scores/significance.tsv``.
SIGNIFICANCE_COLUMNS = (
    "metric",
    "subset",
    "system_a",
    "system_b",
    "method",
    "delta",
    "p_value",
    "significant",
    "score_a",
    "score_b",
    "n",
    "signature",
)

#: Columns of ``results/scores/clusters.tsv``. ``task`` is ``all`` for the
#: clusters of every system analysed; a campaign of several task types also gets
#: the clusters among each task's systems (those whose validation record lists it).
CLUSTER_COLUMNS = ("metric", "system", "rank", "cluster", "score", "method", "task")


def significance_settings(settings: Mapping[str, Any] | None) -> dict[str, Any]:
    """``scoring.significance`` with the defaults filled in.

    Examples
    --------
    >>> settings = significance_settings({"seed": 1})
    >>> settings["seed"], settings["trials"]
    (1, 10000)
    """
    out = {**DEFAULTS, **dict(settings or {})}
    out["methods"] = list(out["methods"])
    unknown = [m for m in out["methods"] if m not in METHODS]
    if unknown:
        from stecflow.core.errors import ConfigError

        raise ConfigError(
            f"unknown significance method(s) {', '.join(unknown)}; use"
            f" {' or '.join(METHODS)}",
            field="scoring.significance.methods",
        )
    return out


def method_signature(method: str, settings: Mapping[str, Any]) -> str:
    """The sacreBLEU-style signature of one test's settings.

    Examples
    --------
    >>> method_signature("paired_ar", significance_settings(None))
    'paired_ar|ar:10000|seed:12345|alpha:0.05'
    """
    key = METHODS[method][1]
    short = "bs" if method == "paired_bs" else "ar"
    return (
        f"{method}|{short}:{int(settings[key])}|seed:{int(settings['seed'])}"
        f"|alpha:{float(settings['alpha']):g}"
    )


def metric_score_function(metric: Any) -> Any:
    """The score function of a registered metric for the paired tests.

    ``score(counts, stats)`` -> ``metric.resample_scores(stats, counts)``: the
    metric scores each drawn multiset of items itself (summed statistics for
    BLEU, NIST's own reference length, the mean of defined item scores for mean
    metrics), as it scores bootstrap resamples for confidence intervals.
    """
    import numpy as np

    cache: dict[int, tuple[Any, list[tuple[float, ...]]]] = {}

    def score(counts: Any, stats: Any) -> Any:
        held = cache.get(id(stats))
        if held is None or held[0] is not stats:  # the tests pass one array per call
            cache.clear()
            held = cache[id(stats)] = (stats, [tuple(map(float, r)) for r in stats])
        return np.asarray(metric.resample_scores(held[1], counts), dtype=float)

    return score


def _parse_stats(text: str, value: str, where: str) -> tuple[float, ...]:
    """An item's statistics from the ``stats`` column (its value if empty)."""
    from stecflow.core.errors import StecflowError

    text = (text or "").strip()
    try:
        if text:
            return tuple(float(x) for x in text.split())
        return (float(value) if value not in ("", None) else math.nan,)
    except ValueError:
        raise StecflowError(
            f"{where}: stats {text!r} is not a list of numbers; run the"
            " scoring stage again"
        ) from None


def pairwise_tests(
    stats: Mapping[str, Mapping[str, tuple[float, ...]]],
    metric: Any,
    settings: Mapping[str, Any],
    *,
    metric_id: str = "",
    groups: Mapping[str, Sequence[str]] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, list[tuple[str, int, int, float]]]]:
    """Test every pair of systems on one metric and cluster them.

    Parameters
    ----------
    stats
        System -> item -> the item's statistics (the metric's ``stat_names``).
    metric
        The metric object (``resample_scores``, ``higher_is_better``).
    settings
        :func:`significance_settings`.
    metric_id
        The metric's ID in the config (the rows' ``metric``).
    groups
        Further groups of systems to cluster on their own (task -> systems), as
        a campaign of several tasks ranks each task's systems.

    Returns
    -------
    (rows, clusters)
        Rows of :data:`SIGNIFICANCE_COLUMNS` (pairs in sorted system order,
        methods in the configured order) and, for ``"all"`` and each group,
        ``(system, rank, cluster, score)`` in ranking order.
    """
    import numpy as np

    from stecflow.stats import significance as tests

    score = metric_score_function(metric)
    systems = sorted(stats)
    items_of = {system: tuple(sorted(stats[system])) for system in systems}
    matrices = {}
    overall = {}
    for system in systems:
        items = items_of[system]
        if items:
            matrix = np.array([stats[system][i] for i in items], dtype=float)
            matrices[system] = matrix
            ones = np.ones((1, len(items)), dtype=np.int64)
            overall[system] = float(score(ones, matrix)[0])
        else:
            overall[system] = math.nan
    resamples = int(settings["resamples"])
    trials = int(settings["trials"])
    seed = int(settings["seed"])
    # Every test of n items draws the same counts (a generator per test, started
    # from the seed), so they are drawn once per n, and each system's bootstrap
    # resamples are scored once, not once per pair: the same results, S scorings
    # instead of S(S - 1).
    counts_by_n: dict[int, Any] = {}
    draws_by_n: dict[int, Any] = {}
    resampled: dict[str, Any] = {}

    def bootstrap_scores(system: str) -> Any:
        if system not in resampled:
            n = len(items_of[system])
            if n not in counts_by_n:
                counts_by_n[n] = tests.bootstrap_counts(n, resamples, seed)
            resampled[system] = np.asarray(
                score(counts_by_n[n], matrices[system]), dtype=float
            )
        return resampled[system]

    def draws(n: int) -> Any:
        if n not in draws_by_n:
            draws_by_n[n] = tests.randomisation_draws(n, trials, seed)
        return draws_by_n[n]

    rows: list[dict[str, Any]] = []
    significant: dict[tuple[str, str], bool] = {}
    for n, system_a in enumerate(systems):
        for system_b in systems[n + 1 :]:
            common = sorted(set(stats[system_a]) & set(stats[system_b]))
            if len(common) != max(len(stats[system_a]), len(stats[system_b])):
                log.warning(
                    "%s: %s and %s were scored on different items; tested on the"
                    " %d they share",
                    metric_id,
                    system_a,
                    system_b,
                    len(common),
                )
            same_items = items_of[system_a] == items_of[system_b]
            for method in settings["methods"]:
                row = {
                    "metric": metric_id,
                    "subset": "all",
                    "system_a": system_a,
                    "system_b": system_b,
                    "method": method,
                    "n": len(common),
                    "signature": method_signature(method, settings),
                }
                if not common:
                    rows.append({**row, "significant": False})
                    continue
                if same_items:
                    a, b = matrices[system_a], matrices[system_b]
                else:
                    a = np.array([stats[system_a][i] for i in common], dtype=float)
                    b = np.array([stats[system_b][i] for i in common], dtype=float)
                if method == "paired_bs" and same_items:
                    result = tests.paired_bs_from_scores(
                        overall[system_a],
                        overall[system_b],
                        bootstrap_scores(system_a),
                        bootstrap_scores(system_b),
                        n=len(common),
                        seed=seed,
                    )
                elif method == "paired_bs":
                    result = tests.paired_bs(
                        a, b, score, resamples=resamples, seed=seed
                    )
                else:
                    result = tests.paired_ar(
                        a, b, score, trials=trials, seed=seed, draws=draws(len(common))
                    )
                differs = abs(result.delta) > tests.TIE_MARGIN * max(
                    1.0, abs(result.score_a), abs(result.score_b)
                )
                flag = bool(
                    differs
                    and not math.isnan(result.p_value)
                    and result.p_value <= float(settings["alpha"])
                )
                if method == settings["methods"][0]:
                    significant[(system_a, system_b)] = flag
                rows.append(
                    {
                        **row,
                        "delta": result.delta,
                        "p_value": result.p_value,
                        "significant": flag,
                        "score_a": result.score_a,
                        "score_b": result.score_b,
                    }
                )
    clusters = {}
    for group, members in {"all": systems, **dict(groups or {})}.items():
        ranked = tests.significance_clusters(
            {s: overall[s] for s in members if s in overall},
            lambda x, y: significant.get((min(x, y), max(x, y)), False),
            higher_is_better=bool(metric.higher_is_better),
        )
        clusters[group] = [(s, rank, c, overall[s]) for s, rank, c in ranked]
    return rows, clusters


def compare_systems(
    items_path: str | Path,
    systems_path: str | Path,
    significance_path: str | Path,
    clusters_path: str | Path,
    *,
    scoring: Mapping[str, Any] | None = None,
    tasks: Sequence[str] | None = None,
    validation_paths: Sequence[str | Path] = (),
) -> int:
    """Write ``scores/significance.tsv`` and ``scores/clusters.tsv``.

    Parameters
    ----------
    items_path
        ``results/scores/items.tsv``, written by
        :func:`stecflow.analysis.collect.collect_item_scores`.
    systems_path
        ``results/scores/analysed.tsv``: the systems compared and their scores
        (a system's score recomputed from its item statistics must agree with it).
    significance_path, clusters_path
        Where to write the two tables.
    scoring
        The config's ``scoring`` section (the metrics, ``significance``).
    tasks
        The campaign's task types (None: the REG tasks).
    validation_paths
        The validation records of the systems compared, if given; else the
        ``tasks`` column of *systems_path* (written from them by
        ``collect_item_scores``). With several *tasks*, ``clusters.tsv`` also
        ranks each task's systems (``task`` column), the systems whose record
        lists the task.

    Returns
    -------
    int
        The number of rows of ``significance.tsv``.

    Raises
    ------
    StecflowError
        If an item's statistics cannot be read, naming the file, line and field.
    """
    settings = significance_settings((scoring or {}).get("significance"))
    if not settings["methods"]:  # switched off (e.g. too many systems for n^2 tests)
        log.info("scoring.significance.methods is empty: no paired tests")
        write_tsv([], SIGNIFICANCE_COLUMNS, significance_path)
        write_tsv([], CLUSTER_COLUMNS, clusters_path)
        return 0
    systems: dict[str, dict[str, float]] = {}
    entered: dict[str, list[str]] = {}  # system -> the task types it entered
    for row in read_tsv(systems_path):
        if row.get("status") == "scored" and row.get("subset", "all") == "all":
            key = f"{row['team']}/{row['system']}"
            entered.setdefault(key, (row.get("tasks") or "").split())
            value = row.get("value", "")
            systems.setdefault(row["metric"], {})[key] = (
                float(value) if value else math.nan
            )
    stats: dict[str, dict[str, dict[str, tuple[float, ...]]]] = {}
    for line, row in enumerate(iter_tsv(items_path), start=2):
        key = f"{row['team']}/{row['system']}"
        where = f"{Path(items_path).name}, line {line}, field stats"
        stats.setdefault(row["metric"], {}).setdefault(key, {})[row["item"]] = (
            _parse_stats(row.get("stats", ""), row.get("value", ""), where)
        )
    groups: dict[str, list[str]] = {}
    if tasks is not None and len(tasks) > 1:
        if validation_paths:  # else the tasks column of analysed.tsv
            from stecflow.core.io import read_json

            entered = {}
            for path in validation_paths:
                record = read_json(path)
                key = f"{record['team']}/{record['system']}"
                entered[key] = record.get("tasks") or []
        groups = {t: sorted(s for s, ts in entered.items() if t in ts) for t in tasks}
    rows: list[dict[str, Any]] = []
    cluster_rows: list[dict[str, Any]] = []
    configured = build_metrics(metric_specs(scoring, tasks))
    for metric_id in sorted(set(stats) - {spec.id for spec, _ in configured}):
        log.warning("%s: in the item scores but not configured; not tested", metric_id)
    for spec, metric in configured:
        by_system = stats.get(spec.id)
        if not by_system:
            log.info("%s: no system has item scores; not tested", spec.id)
            continue
        metric_rows, grouped = pairwise_tests(
            by_system, metric, settings, metric_id=spec.id, groups=groups
        )
        clusters = grouped["all"]
        for system, _, _, value in clusters:
            stored = systems.get(spec.id, {}).get(system)
            if stored is not None and not math.isclose(
                value, stored, rel_tol=1e-6, abs_tol=1e-9
            ):
                log.warning(
                    "%s: %s scores %r from its item statistics, %r in %s",
                    spec.id,
                    system,
                    value,
                    stored,
                    Path(systems_path).name,
                )
        rows += metric_rows
        cluster_rows += [
            {
                "metric": spec.id,
                "system": system,
                "rank": rank,
                "cluster": cluster,
                "score": value,
                "method": settings["methods"][0],
                "task": group,
            }
            for group, ranked in grouped.items()
            for system, rank, cluster, value in ranked
        ]
        log.info(
            "%s: %d systems, %d clusters, %d of %d pairs significant (%s)",
            spec.id,
            len(clusters),
            max((c for _, _, c, _ in clusters), default=0),
            sum(
                1
                for r in metric_rows
                if r["significant"] and r["method"] == settings["methods"][0]
            ),
            len(metric_rows) // max(1, len(settings["methods"])),
            settings["methods"][0],
        )
    write_tsv(rows, SIGNIFICANCE_COLUMNS, significance_path)
    write_tsv(cluster_rows, CLUSTER_COLUMNS, clusters_path)
    return len(rows)

"""The statistics stage: run the configured analyses on scores (and judgments).

The config's ``statistics.analyses`` lists analyses by ID; each becomes one job
writing ``results/stats/<id>.tsv`` (the tidy result of a :mod:`stecflow.stats`
function) and ``results/stats/<id>.json`` (the settings it ran with, the systems
it covered and the result written as the seed papers write it, e.g.
``F(7, 880) = 7.29, p < .001``).

Without an explicit list, the analyses TUNA-REG'09 reported on automatic scores
run (seed 001 §5.1): a one-way ANOVA of string-edit distance on SYSTEM with Tukey
homogeneous subsets, a Kruskal-Wallis test on the Accuracy indicators, and the
Pearson correlations between the system means of every measure.

Which systems enter: accepted submissions, human reference sets included,
late ones only if ``statistics.include_late`` (the official ranking excludes them).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .errors import ConfigError
from .io import read_json, read_tsv, write_json, write_tsv

__all__ = [
    "ITEM_TABLE_COLUMNS",
    "TESTS",
    "analysis_specs",
    "collect_item_scores",
    "run_analysis",
]

log = logging.getLogger(__name__)

#: The tests an analysis can run.
TESTS = ("anova", "tukey", "kruskal", "correlations")

#: Columns of ``results/scores/items.tsv`` (every included system's item scores).
ITEM_TABLE_COLUMNS = (
    "team",
    "system",
    "label",
    "reference_set",
    "late",
    "primary",
    "item",
    "subdomain",
    "condition",
    "metric",
    "value",
)

_DEFAULT_ANALYSES = (
    {"id": "se-anova", "test": "anova", "measure": "se", "factors": ["system"]},
    {"id": "se-tukey", "test": "tukey", "measure": "se", "factors": ["system"]},
    {"id": "accuracy-kruskal", "test": "kruskal", "measure": "string_accuracy"},
    {"id": "correlations", "test": "correlations"},
)


def analysis_specs(config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The analyses to run, with defaults filled in, checked against the metrics.

    Raises
    ------
    ConfigError
        For an unknown measure, a test on a corpus-level metric that needs item
        scores, or a repeated ID, naming the key path.
    """
    from .scoring import build_metrics, metric_specs

    statistics = config.get("statistics") or {}
    metrics = {
        spec.id: metric
        for spec, metric in build_metrics(metric_specs(config.get("scoring")))
    }
    entries = statistics.get("analyses") or [
        a
        for a in _DEFAULT_ANALYSES
        if a.get("measure") is None or a["measure"] in metrics
    ]
    specs, seen = [], set()
    for n, entry in enumerate(entries):
        where = f"statistics.analyses[{n}]"
        spec = {"factors": ["system"], **entry}
        if spec["id"] in seen:
            raise ConfigError(f"analysis ID {spec['id']!r} is used twice", field=where)
        seen.add(spec["id"])
        if spec["test"] == "correlations":
            spec.setdefault("measures", list(metrics))
            unknown = [m for m in spec["measures"] if m not in metrics]
        else:
            unknown = [] if spec.get("measure") in metrics else [spec.get("measure")]
        if unknown:
            raise ConfigError(
                f"unknown measure {unknown[0]!r}; the configured metrics are"
                f" {', '.join(metrics)}",
                field=f"{where}.measure",
            )
        if (
            spec["test"] != "correlations"
            and metrics[spec["measure"]].level == "corpus"
        ):
            raise ConfigError(
                f"{spec['measure']} is a corpus-level metric: it has no per-item scores"
                f" for a {spec['test']} test (use it in correlations)",
                field=f"{where}.measure",
            )
        if spec["factors"][0] != "system" or not set(spec["factors"]) <= {
            "system",
            "subdomain",
            "condition",
        }:
            raise ConfigError(
                "factors must start with system and may add subdomain and condition",
                field=f"{where}.factors",
            )
        specs.append(spec)
    return specs


def _labels(identities: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """System labels for tables: the system ID, or team/system where IDs clash."""
    counts: dict[str, int] = {}
    for _, system in identities:
        counts[system] = counts.get(system, 0) + 1
    return {
        (team, system): system if counts[system] == 1 else f"{team}/{system}"
        for team, system in identities
    }


def collect_item_scores(
    summary_paths: Sequence[str | Path],
    item_paths: Sequence[str | Path],
    out_path: str | Path,
    *,
    include_late: bool = False,
) -> int:
    """Gather the item-level scores of every system that enters the statistics.

    Parameters
    ----------
    summary_paths, item_paths
        Each submission's ``scores/systems/…json`` and ``scores/items/…tsv``, in
        the same order.
    out_path
        ``scores/items.tsv``: one row per system × item × metric (the score over
        all references), columns :data:`ITEM_TABLE_COLUMNS`.
    include_late
        Include late submissions (default: they stay out of the official analyses).

    Returns
    -------
    int
        The number of systems included.
    """
    chosen = []
    for summary_path, item_path in zip(summary_paths, item_paths, strict=True):
        summary = read_json(summary_path)
        if summary["status"] != "scored" or (summary["late"] and not include_late):
            continue
        chosen.append((summary, item_path))
    labels = _labels([(s["team"], s["system"]) for s, _ in chosen])
    rows = []
    for summary, item_path in chosen:
        identity = {
            "team": summary["team"],
            "system": summary["system"],
            "label": labels[(summary["team"], summary["system"])],
            "reference_set": summary["reference_set"],
            "late": summary["late"],
            "primary": summary["primary"],
        }
        for row in read_tsv(item_path):
            if row["reference"] == "*":
                rows.append(
                    {
                        **identity,
                        **{
                            k: row[k]
                            for k in (
                                "item",
                                "subdomain",
                                "condition",
                                "metric",
                                "value",
                            )
                        },
                    }
                )
    write_tsv(rows, ITEM_TABLE_COLUMNS, out_path)
    return len(chosen)


def _item_frame(items_path: str | Path, measure: str) -> Any:
    import pandas as pd

    frame = pd.read_csv(items_path, sep="\t", dtype=str, keep_default_na=False)
    frame = frame[frame["metric"] == measure].copy()
    frame["value"] = pd.to_numeric(frame["value"].replace("", "nan"))
    return frame.rename(columns={"label": "system_label"})


def _system_frame(
    systems_path: str | Path,
    labels: Mapping[tuple[str, str], str],
    measures: Sequence[str],
) -> Any:
    import pandas as pd

    rows: dict[str, dict[str, Any]] = {}
    for row in read_tsv(systems_path):
        key = (row["team"], row["system"])
        if key not in labels or row["status"] != "scored" or row["subset"] != "all":
            continue
        if row["metric"] in measures:
            entry = rows.setdefault(
                labels[key],
                {
                    "system": labels[key],
                    "reference_set": row["reference_set"] == "true",
                },
            )
            entry[row["metric"]] = float(row["value"]) if row["value"] else float("nan")
    return pd.DataFrame(list(rows.values()))


def _about(row: Any) -> str:
    """What one result row is about: the effect, or the pair of measures."""
    if "measure_a" in row:
        return f"{row['measure_a']} ~ {row['measure_b']}"
    return str(row.get("source", ""))


def run_analysis(
    spec: Mapping[str, Any],
    items_path: str | Path,
    systems_path: str | Path,
    out_tsv: str | Path,
    out_json: str | Path,
    *,
    alpha: float = 0.05,
    higher_is_better: Mapping[str, bool] | None = None,
    exclude_references_from_correlations: bool = False,
) -> dict[str, Any]:
    """Run one configured analysis and write its table and its JSON record.

    Parameters
    ----------
    spec
        One entry of :func:`analysis_specs`.
    items_path
        ``scores/items.tsv`` from :func:`collect_item_scores`.
    systems_path
        ``scores/systems.tsv`` (system-level scores, for correlations: BLEU and
        NIST enter with their corpus-level values).
    alpha
        Significance level of post hoc tests.
    higher_is_better
        Metric ID -> direction, so that letter ``A`` goes to the best systems.
    exclude_references_from_correlations
        Leave the human reference sets out of correlations.
    """
    from .stats.formatting import format_result

    test = spec["test"]
    factors = [("label" if f == "system" else f) for f in spec["factors"]]
    record: dict[str, Any] = {
        "id": spec["id"],
        "test": test,
        "alpha": alpha,
        "spec": dict(spec),
    }
    if test == "correlations":
        from .stats.correlation import pairwise_corr

        labels = {}
        for row in read_tsv(items_path):
            labels[(row["team"], row["system"])] = row["label"]
        frame = _system_frame(systems_path, labels, spec["measures"])
        excluded = (
            sorted(frame.loc[frame["reference_set"], "system"])
            if exclude_references_from_correlations and len(frame)
            else []
        )
        method = spec.get("method", "pearson")
        result = pairwise_corr(
            frame, spec["measures"], method=method, exclude_systems=excluded
        )
        record.update(
            {
                "method": method,
                "excluded_systems": excluded,
                "systems": sorted(frame["system"]) if len(frame) else [],
            }
        )
    else:
        frame = _item_frame(items_path, spec["measure"]).rename(
            columns={"system_label": "label"}
        )
        record["systems"] = sorted(frame["label"].unique().tolist())
        record["n_observations"] = int(frame["value"].notna().sum())
        if test == "anova":
            from .stats.anova import anova

            result = anova(frame, "value", factors)
        elif test == "kruskal":
            from .stats.nonparametric import kruskal

            result = kruskal(frame, "value", "label")
        elif test == "tukey":
            from .stats.posthoc import homogeneous_subsets, subset_letters

            subsets = homogeneous_subsets(
                frame, "value", "label", model=factors, alpha=alpha
            )
            best_high = (higher_is_better or {}).get(spec["measure"], True)
            result = subset_letters(subsets, descending=best_high)
            record["subsets"] = subsets.to_dict(orient="records")
        else:  # pragma: no cover - the schema and analysis_specs allow only TESTS
            raise ConfigError(
                f"unknown test {test!r}",
                field=f"statistics.analyses[{spec['id']}].test",
            )
        # tables speak of "system", whatever the column was called internally
        result = result.rename(columns={"group": "system"})
        if "source" in result:
            result["source"] = result["source"].str.replace("label", "system")
    record["text"] = []
    if test != "tukey":  # letters tables have no test statistic of their own
        record["text"] = [
            {"about": _about(row), "text": text}
            for _, row in result.iterrows()
            if (text := format_result(row))
        ]
    columns = list(result.columns)
    write_tsv(result.to_dict(orient="records"), columns, out_tsv)
    write_json(record, out_json)
    log.info("%s: %d result rows", spec["id"], len(result))
    return record

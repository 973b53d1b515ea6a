"""The statistics stage: run the configured analyses on scores and judgments.

The config's ``statistics.analyses`` lists analyses by ID; each becomes one job
writing ``results/stats/<id>.tsv`` (the tidy result of a :mod:`stecflow.stats`
function) and ``results/stats/<id>.json`` (the settings it ran with, the systems it
covered and the result written as the seed papers write it, e.g.
``F(7, 880) = 7.29, p < .001``).

An analysis reads either the automatic scores (``source: scores``; the measure is a
metric ID) or one human study (``source: <study ID>``; the measure is one of
:data:`JUDGMENT_MEASURES`). Correlations take measures of both kinds, human ones
written ``<study>:<measure>``, on per-system means.

Without an explicit list, the analyses TUNA-REG'09 reported run (seed 001 §5): a
one-way ANOVA of string-edit distance on SYSTEM with Tukey homogeneous subsets and a
Kruskal-Wallis test on Accuracy; for each rating study SYSTEM × DOMAIN ANOVAs of
Adequacy and Fluency with Tukey subsets; for each identification study a SYSTEM ×
DOMAIN ANOVA of identification time with Tukey subsets and a Kruskal-Wallis test on
identification accuracy; and the Pearson correlations between all these measures.

Which systems enter: accepted submissions, human reference sets included, late
ones only if ``statistics.include_late`` (the official ranking excludes them).
Correlations leave the human reference sets out by default
(``statistics.exclude_references_from_correlations``): seed 001's Table 10 is
computed over the six peer systems (with HUMAN-1 and HUMAN-2 its Fluency-ID speed
r is -0.37, not the published -0.89). A correlation's ``exclude_systems`` leaves
named systems out as well, as seed 002 left IS-FBS out of the correlations between
its two experiments (§4: the buggy version was judged in Exp 1, the corrected one
in Exp 2). Which systems were left out, and why, is recorded in the JSON.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.core.errors import ConfigError
from stecflow.core.io import iter_tsv, read_json, read_tsv, write_json, write_tsv
from stecflow.scoring.systems import SYSTEM_COLUMNS, system_rows

__all__ = [
    "ANALYSED_COLUMNS",
    "ITEM_TABLE_COLUMNS",
    "JUDGMENT_MEASURES",
    "TESTS",
    "analysis_specs",
    "collect_item_scores",
    "correlation_exclusions",
    "run_analysis",
]

log = logging.getLogger(__name__)

#: The tests an analysis can run.
TESTS = ("anova", "tukey", "kruskal", "correlations")

#: Measures of human studies: the column of ``judgments/<study>.tsv``, the flag
#: selecting the trials analysed, whether higher is better, and the tasks having it.
JUDGMENT_MEASURES: dict[str, tuple[str, str, bool, tuple[str, ...]]] = {
    "adequacy": ("adequacy", "in_analysis", True, ("rating",)),
    "fluency": ("fluency", "in_analysis", True, ("rating",)),
    "identification_accuracy": ("correct", "in_analysis", True, ("identification",)),
    "identification_time": (
        "identification_time_adj_ms",
        "in_time_analysis",
        False,
        ("identification",),
    ),
    "reading_time": (
        "reading_time_adj_ms",
        "in_time_analysis",
        False,
        ("identification",),
    ),
}

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


def _study_measures(study: Mapping[str, Any]) -> list[str]:
    return [m for m, (*_, tasks) in JUDGMENT_MEASURES.items() if study["task"] in tasks]


def _default_analyses(
    metrics: Mapping[str, Any], studies: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """What TUNA-REG'09 reported, for the metrics and studies configured."""
    out: list[dict[str, Any]] = []
    if "se" in metrics:
        out += [
            {"id": "se-anova", "test": "anova", "measure": "se"},
            {"id": "se-tukey", "test": "tukey", "measure": "se"},
        ]
    if "string_accuracy" in metrics:
        out.append(
            {"id": "accuracy-kruskal", "test": "kruskal", "measure": "string_accuracy"}
        )
    correlated = [
        m for m in ("string_accuracy", "se", "bleu3", "nist5") if m in metrics
    ]
    two_way = ["system", "subdomain"]
    for study in studies:
        sid = study["id"]
        if study["task"] == "rating":
            for measure in ("adequacy", "fluency"):
                out += [
                    {
                        "id": f"{sid}-{measure}-anova",
                        "test": "anova",
                        "source": sid,
                        "measure": measure,
                        "factors": two_way,
                    },
                    {
                        "id": f"{sid}-{measure}-tukey",
                        "test": "tukey",
                        "source": sid,
                        "measure": measure,
                        "factors": two_way,
                    },
                ]
            correlated += [f"{sid}:adequacy", f"{sid}:fluency"]
        else:
            out += [
                {
                    "id": f"{sid}-time-anova",
                    "test": "anova",
                    "source": sid,
                    "measure": "identification_time",
                    "factors": two_way,
                },
                {
                    "id": f"{sid}-time-tukey",
                    "test": "tukey",
                    "source": sid,
                    "measure": "identification_time",
                    "factors": two_way,
                },
                {
                    "id": f"{sid}-accuracy-kruskal",
                    "test": "kruskal",
                    "source": sid,
                    "measure": "identification_accuracy",
                },
            ]
            correlated += [
                f"{sid}:identification_accuracy",
                f"{sid}:identification_time",
            ]
    if len(correlated) >= 2:
        out.append(
            {"id": "correlations", "test": "correlations", "measures": correlated}
        )
    return out


def analysis_specs(config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The analyses to run, with defaults filled in, checked against the config.

    Raises
    ------
    ConfigError
        For an unknown measure or source, a test on a corpus-level metric (which
        has no item scores), bad factors or a repeated ID, naming the key path.
    """
    from stecflow.scoring.specs import build_metrics, metric_specs

    statistics = config.get("statistics") or {}
    metrics = {
        spec.id: metric
        for spec, metric in build_metrics(
            metric_specs(
                config.get("scoring"),
                (config.get("campaign") or {}).get("tasks") or None,
            )
        )
    }
    studies = {s["id"]: s for s in config.get("studies") or []}
    available = dict.fromkeys(metrics, "scores")
    for sid, study in studies.items():
        available.update(
            dict.fromkeys((f"{sid}:{m}" for m in _study_measures(study)), sid)
        )
    entries = statistics.get("analyses") or _default_analyses(
        metrics, list(studies.values())
    )
    specs, seen = [], set()
    for n, entry in enumerate(entries):
        where = f"statistics.analyses[{n}]"
        spec = {"factors": ["system"], "source": "scores", **entry}
        if spec["id"] in seen:
            raise ConfigError(f"analysis ID {spec['id']!r} is used twice", field=where)
        seen.add(spec["id"])
        if spec["test"] == "correlations":
            spec.setdefault("measures", list(available))
            valid, chosen = list(available), spec["measures"]
        elif spec["source"] == "scores":
            valid, chosen = list(metrics), [spec.get("measure")]
        elif spec["source"] in studies:
            valid, chosen = (
                _study_measures(studies[spec["source"]]),
                [spec.get("measure")],
            )
        else:
            raise ConfigError(
                f"unknown source {spec['source']!r}; use scores or a study ID"
                f" ({', '.join(studies) or 'no studies are configured'})",
                field=f"{where}.source",
            )
        unknown = [m for m in chosen if m not in valid]
        if unknown:
            raise ConfigError(
                f"unknown measure {unknown[0]!r}; measures here: {', '.join(valid)}",
                field=f"{where}.measure",
            )
        if (
            spec["test"] != "correlations"
            and spec["source"] == "scores"
            and metrics[spec["measure"]].level == "corpus"
        ):
            raise ConfigError(
                f"{spec['measure']} is a corpus-level metric: it has no per-item scores"
                f" for a {spec['test']} test (use it in correlations)",
                field=f"{where}.measure",
            )
        if spec.get("exclude_systems") and spec["test"] != "correlations":
            raise ConfigError(
                "exclude_systems applies to correlations only (an analysis of"
                " item scores takes every system analysed)",
                field=f"{where}.exclude_systems",
            )
        allowed = {"system", "subdomain", "condition"}
        if spec["factors"][0] != "system" or not set(spec["factors"]) <= allowed:
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


def correlation_exclusions(
    labels: Mapping[tuple[str, str], str],
    references: Iterable[str],
    exclude_systems: Sequence[str] = (),
    *,
    exclude_references: bool = True,
) -> tuple[dict[str, str], list[str]]:
    """Which analysed systems a correlation leaves out, and why.

    Parameters
    ----------
    labels
        ``(team, system)`` -> label of every system analysed.
    references
        Labels of the human reference sets among them.
    exclude_systems
        The analysis' ``exclude_systems``: ``team/system``, or a system ID that no
        other team uses, or a label.
    exclude_references
        Leave the human reference sets out (the default; seed 001 Table 10).

    Returns
    -------
    (dict, list)
        Label -> reason of every system left out, and the names in
        *exclude_systems* that match no analysed system (late, rejected or
        superseded ones, or a typo: recorded, not silently dropped).

    Examples
    --------
    >>> labels = {("human", "HUMAN-1"): "HUMAN-1", ("is", "IS-FBS"): "IS-FBS",
    ...           ("cam", "CAM-B"): "CAM-B"}
    >>> out, absent = correlation_exclusions(labels, ["HUMAN-1"],
    ...                                      ["is/IS-FBS", "GR-SC"])
    >>> out
    {'HUMAN-1': 'human reference set', 'IS-FBS': 'named in exclude_systems'}
    >>> absent
    ['GR-SC']
    """
    out: dict[str, str] = {}
    if exclude_references:
        out.update(dict.fromkeys(sorted(references), "human reference set"))
    absent = []
    for name in exclude_systems:
        team, _, system = name.rpartition("/")
        found = [
            label
            for (t, s), label in labels.items()
            if (s == system and t == team) or (not team and name in (s, label))
        ]
        if len(set(found)) == 1:
            out.setdefault(found[0], "named in exclude_systems")
        else:  # unknown, or a system ID several teams use: say team/system
            absent.append(name)
    return dict(sorted(out.items())), absent


#: Columns of ``scores/analysed.tsv`` (see :func:`collect_item_scores`).
ANALYSED_COLUMNS = ("label", *SYSTEM_COLUMNS)


def collect_item_scores(
    summary_paths: Sequence[str | Path],
    item_paths: Sequence[str | Path],
    out_path: str | Path,
    systems_out: str | Path | None = None,
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
    systems_out
        ``scores/analysed.tsv``: the same systems with their labels and their
        scores over all items (the ``subset`` *all* rows of ``scores/systems.tsv``,
        columns :data:`ANALYSED_COLUMNS`). The analyses take the systems and
        labels from it, and correlations their system-level BLEU and NIST; they
        read it rather than ``systems.tsv``, so that a late submission, which
        changes ``systems.tsv``, does not re-run them.
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
    keep = ("item", "subdomain", "condition", "metric", "value")

    def rows():  # one system's table at a time: memory does not grow with S
        for summary, item_path in chosen:
            identity = {
                "team": summary["team"],
                "system": summary["system"],
                "label": labels[(summary["team"], summary["system"])],
                "reference_set": summary["reference_set"],
                "late": summary["late"],
                "primary": summary["primary"],
            }
            for row in iter_tsv(item_path):
                if row["reference"] == "*":
                    yield {**identity, **{k: row[k] for k in keep}}

    write_tsv(rows(), ITEM_TABLE_COLUMNS, out_path)
    if systems_out is not None:
        overall = (
            {"label": labels[(row["team"], row["system"])], **row}
            for row in system_rows(s for s, _ in chosen)
            if row.get("subset") == "all"
        )
        write_tsv(overall, ANALYSED_COLUMNS, systems_out)
    return len(chosen)


def _item_frame(items_path: str | Path, measure: str) -> Any:
    import pandas as pd

    # In chunks, keeping one metric's rows: items.tsv holds every metric of every
    # system analysed (1.9 million rows for 1,000 systems x 112 items x 17 metrics).
    chunks = pd.read_csv(
        items_path, sep="\t", dtype=str, keep_default_na=False, chunksize=200_000
    )
    frame = pd.concat([chunk[chunk["metric"] == measure] for chunk in chunks])
    frame["value"] = pd.to_numeric(frame["value"].replace("", "nan"))
    return frame


def _judgment_frame(
    judgments_path: str | Path, measure: str, labels: Mapping[tuple[str, str], str]
) -> Any:
    """Trials analysed for one judgment measure, with ``label`` and ``value``."""
    import pandas as pd

    column, flag, _, _ = JUDGMENT_MEASURES[measure]
    frame = pd.read_csv(judgments_path, sep="\t", dtype=str, keep_default_na=False)
    frame = frame[(frame[flag] == "true") & (frame["system"] != "")].copy()
    frame["value"] = pd.to_numeric(
        frame[column].replace({"true": "1", "false": "0", "": "nan"})
    )
    pairs = [tuple(s.split("/", 1)) for s in frame["system"]]
    frame["label"] = [labels.get(p, f"{p[0]}/{p[1]}") for p in pairs]
    return frame


def _system_frame(
    systems_path: str | Path,
    labels: Mapping[tuple[str, str], str],
    measures: Sequence[str],
    judgments: Mapping[str, str | Path],
) -> Any:
    """One row per system: system-level scores and means of judgment measures."""
    import pandas as pd

    rows: dict[str, dict[str, Any]] = {}
    for row in read_tsv(systems_path):
        key = (row["team"], row["system"])
        if key not in labels or row["status"] != "scored" or row["subset"] != "all":
            continue
        entry = rows.setdefault(
            labels[key],
            {"system": labels[key], "reference_set": row["reference_set"] == "true"},
        )
        if row["metric"] in measures:
            entry[row["metric"]] = float(row["value"]) if row["value"] else float("nan")
    if rows:
        frame = pd.DataFrame(list(rows.values()))
    else:
        frame = pd.DataFrame(columns=["system", "reference_set"])
    for name in measures:
        if ":" in name:
            study, measure = name.split(":", 1)
            trials = _judgment_frame(judgments[study], measure, labels)
            means = trials.groupby("label")["value"].mean()
            frame[name] = frame["system"].map(means)
    return frame


def _judgment_settings(judgments_path: str | Path) -> dict[str, Any]:
    """How a study's judgments were cleaned, from the merge stage's summary.

    The summary sits beside the table (``judgments/summary/<study>.json``, written
    by the same job), so the settings behind every human figure are recorded with it.
    """
    path = Path(judgments_path)
    summary = read_json(path.parent / "summary" / f"{path.stem}.json")
    outliers = summary.get("outliers") or {}
    return {
        "simulated": summary.get("simulated"),
        "settings": summary.get("settings"),
        "outlier_rule": outliers.get("signature"),
        "outliers": {
            measure: entry.get("count_text")
            for measure, entry in sorted((outliers.get("measures") or {}).items())
        },
        "corrections_applied": (summary.get("corrections") or {}).get("applied", 0),
        "counts": summary.get("counts"),
        "awaiting_responses": bool(summary.get("awaiting_responses")),
    }


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
    exclude_references_from_correlations: bool = True,
    judgments: Mapping[str, str | Path] | None = None,
) -> dict[str, Any]:
    """Run one configured analysis and write its table and its JSON record.

    Parameters
    ----------
    spec
        One entry of :func:`analysis_specs`.
    items_path
        ``scores/items.tsv`` from :func:`collect_item_scores`.
    systems_path
        ``scores/analysed.tsv`` from :func:`collect_item_scores`: which systems
        enter, their labels, and their system-level scores (for correlations:
        BLEU and NIST enter with their corpus-level values).
    alpha
        Significance level of post hoc tests.
    higher_is_better
        Metric ID -> direction, so that letter ``A`` goes to the best systems.
    exclude_references_from_correlations
        Leave the human reference sets out of correlations (default, as seed 001
        Table 10; see :func:`correlation_exclusions`, which also applies the
        spec's ``exclude_systems``).
    judgments
        Study ID -> ``judgments/<study>.tsv``, for analyses of human judgments and
        correlations with their system means.
    """
    from stecflow.analysis.formatting import format_result

    judgments = judgments or {}
    test = spec["test"]
    factors = [("label" if f == "system" else f) for f in spec["factors"]]
    labels = {(r["team"], r["system"]): r["label"] for r in read_tsv(systems_path)}
    record: dict[str, Any] = {
        "id": spec["id"],
        "test": test,
        "alpha": alpha,
        "spec": dict(spec),
    }
    if test == "correlations":
        from stecflow.stats.correlation import (
            MIN_SYSTEMS,
            correlation_caveats,
            pairwise_corr,
        )

        frame = _system_frame(systems_path, labels, spec["measures"], judgments)
        references = (
            frame.loc[frame["reference_set"].astype(bool), "system"]
            if len(frame)
            else []
        )
        exclusions, absent = correlation_exclusions(
            labels,
            references,
            spec.get("exclude_systems") or (),
            exclude_references=exclude_references_from_correlations,
        )
        record["exclusions"] = exclusions
        record["exclude_systems_not_analysed"] = absent
        for name in absent:
            log.warning(
                "%s: exclude_systems names %r, which is not among the systems"
                " analysed (write team/system)",
                spec["id"],
                name,
            )
        excluded = sorted(exclusions)
        method = spec.get("method", "pearson")
        result = pairwise_corr(
            frame, spec["measures"], method=method, exclude_systems=excluded
        )
        record.update(
            {
                "method": method,
                # which systems every cell rests on; the rows give each cell's n
                "deletion": str(result["deletion"].iloc[0]) if len(result) else "",
                "excluded_systems": excluded,
                "systems": sorted(frame["system"]) if len(frame) else [],
                # r over too few systems, or undefined: said in plain words
                "min_systems": MIN_SYSTEMS,
                "caveats": correlation_caveats(result),
            }
        )
    else:
        source = spec.get("source", "scores")
        if source == "scores":
            frame = _item_frame(items_path, spec["measure"])
            best_high = (higher_is_better or {}).get(spec["measure"], True)
        else:
            frame = _judgment_frame(judgments[source], spec["measure"], labels)
            best_high = JUDGMENT_MEASURES[spec["measure"]][2]
        record["systems"] = sorted(frame["label"].unique().tolist())
        record["n_observations"] = int(frame["value"].notna().sum())
        if test == "anova":
            from stecflow.stats.anova import anova

            result = anova(frame, "value", factors)
        elif test == "kruskal":
            from stecflow.stats.nonparametric import kruskal

            result = kruskal(frame, "value", "label")
        else:
            from stecflow.stats.posthoc import homogeneous_subsets, subset_letters

            subsets = homogeneous_subsets(
                frame, "value", "label", model=factors, alpha=alpha
            )
            result = subset_letters(subsets, descending=best_high)
            record["subsets"] = subsets.to_dict(orient="records")
        # tables speak of "system", whatever the column was called internally
        result = result.rename(columns={"group": "system"})
        if "source" in result:
            result["source"] = result["source"].str.replace("label", "system")
    used = {spec.get("source", "scores")} | {
        m.split(":", 1)[0] for m in spec.get("measures", []) if ":" in m
    }
    record["judgments"] = {
        study: _judgment_settings(judgments[study])
        for study in sorted(used)
        if study in judgments
    }
    # studies built but not yet run: their figures are awaited, not missing
    record["awaiting_responses"] = sorted(
        study
        for study, info in record["judgments"].items()
        if info["awaiting_responses"]
    )
    if test != "correlations":  # missing lists, empty or unequal cells
        from stecflow.stats.balance import design_completeness

        counts = (record["judgments"].get(spec.get("source", "")) or {}).get(
            "counts"
        ) or {}
        record["design"] = design_completeness(
            frame,
            "value",
            factors,
            names=spec["factors"],
            lists_in_design=counts.get("lists_in_design"),
            lists_run=counts.get("lists_run"),
            unit="items" if spec.get("source", "scores") == "scores" else "judgments",
        )
    record["text"] = []
    if test != "tukey":  # letters tables have no test statistic of their own
        record["text"] = [
            {"about": _about(row), "text": text}
            for _, row in result.iterrows()
            if (text := format_result(row))
        ]
    write_tsv(result.to_dict(orient="records"), list(result.columns), out_tsv)
    write_json(record, out_json)
    log.info("%s: %d result rows", spec["id"], len(result))
    return record

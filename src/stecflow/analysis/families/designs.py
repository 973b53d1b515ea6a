"""The ``design_comparison`` test: do different designs of a human evaluation
rank the systems alike? (seed 001 §6: "a direct comparison between different
designs for human-assessed intrinsic evaluations (e.g. comparing the slider
design reported here to preference judgments and rating scales)").

An entry names two or more designs as ``measures``, each ``<study>:<measure>``:
a rated measure of a study (a ``rating`` study's slider ``adequacy``, a
``text_rating`` criterion on a Likert scale or a slider), whose score is the
system's mean over the trials analysed; or a study whose kind shows two systems
side by side (``text_preference``) with ``win_rate`` (wins plus half the ties
over comparisons) or ``strength`` (Bradley-Terry, ties split half and half:
:func:`stecflow.stats.preference.bradley_terry`). A measure where lower is
better (times) is ranked the other way round.

The table: one row per pair of designs over the systems both scored, with
Spearman's rho and Kendall's tau-b and their two-sided p-values, the share of
pairs of systems they order alike and whether they agree on the best system
(:func:`stecflow.stats.rank_agreement.design_correlations`). The record adds
each system's score and rank in every design side by side (``scores``) and
Kendall's W of all the designs' rankings (``concordance``).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from typing import Any

from stecflow.analysis.kind_defaults import checked_entry, study_measures
from stecflow.analysis.record import judgment_settings
from stecflow.analysis.registry import AnalysisJob, AnalysisTest, SpecContext
from stecflow.core.errors import ConfigError
from stecflow.core.io import write_json, write_tsv

__all__ = ["DESIGN_COMPARISON", "DESIGN_COMPARISON_COLUMNS", "PAIR_MEASURES", "TESTS"]

log = logging.getLogger(__name__)

#: Columns of a ``design_comparison`` table (one row per pair of designs).
DESIGN_COMPARISON_COLUMNS = (
    "design_a",
    "design_b",
    "n",
    "spearman_rho",
    "spearman_p",
    "kendall_tau",
    "kendall_p",
    "same_order",
    "same_best",
    "computable",
    "reason",
)
#: The scores of a study whose trials show two systems side by side.
PAIR_MEASURES = {
    "win_rate": "win rate (wins + ties / 2) / comparisons",
    "strength": "Bradley-Terry strength (ties half)",
}
_KEYS = ("id", "test", "source", "measures")


def _check(
    entry: Mapping[str, Any], where: str, context: SpecContext
) -> dict[str, Any]:
    """Two or more ``<study>:<measure>`` of the campaign's studies, each once."""
    from stecflow.studykinds.registry import get

    spec = checked_entry(entry, where, _KEYS, context.seen)
    if spec.get("source", "scores") != "scores":
        raise ConfigError(
            "a design_comparison names its studies in measures, each"
            " <study>:<measure>; leave source out",
            field=f"{where}.source",
        )
    measures = spec.get("measures")
    if not isinstance(measures, list) or len(measures) < 2:
        raise ConfigError(
            "give at least two designs to compare, each <study>:<measure>"
            " (e.g. [rating:adequacy, likert:adequacy, prefer:win_rate])",
            field=f"{where}.measures",
        )
    if len(set(measures)) != len(measures):
        raise ConfigError("a design is listed twice", field=f"{where}.measures")
    for n, name in enumerate(measures):
        at = f"{where}.measures[{n}]"
        study, _, measure = str(name).partition(":")
        if study not in context.studies or not measure:
            raise ConfigError(
                f"{name!r} is not <study>:<measure> of a configured study"
                f" ({', '.join(context.studies) or 'none is configured'})",
                field=at,
            )
        kind = get(context.studies[study]["task"])
        if len(kind.sides) == 2:  # two systems side by side: who wins
            allowed = list(PAIR_MEASURES)
        else:
            allowed = study_measures(context.studies[study])
        if measure not in allowed:
            raise ConfigError(
                f"study {study} ({kind.name}) has no measure {measure!r}; it has"
                f" {', '.join(allowed)}",
                field=at,
            )
    return spec


def _label(labels: Mapping[tuple[str, str], str], system: str) -> str:
    team, _, name = system.partition("/")
    return labels.get((team, name), system)


def _pair_scores(path: Any, measure: str, job: AnalysisJob) -> dict[str, float]:
    """Each system's win rate or Bradley-Terry strength in a preference study."""
    import pandas as pd

    from stecflow.stats.preference import bradley_terry, preference_counts

    frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    missing = [
        c
        for c in ("system_left", "system_right", "preferred", "in_analysis")
        if c not in frame.columns
    ]
    if missing:
        raise ConfigError(
            f"{path} has no column {missing[0]}: not the judgments of a study"
            " showing two systems side by side",
            field="measures",
        )
    frame = frame[frame["in_analysis"] == "true"]
    trials = pd.DataFrame(
        {
            "system_left": frame["system_left"].map(lambda s: _label(job.labels, s)),
            "system_right": frame["system_right"].map(lambda s: _label(job.labels, s)),
            "preferred": frame["preferred"],
        }
    )
    if not len(trials):
        return {}
    if measure == "win_rate":
        counts = preference_counts(trials, confidence=1 - job.alpha)
        return {str(r["system"]): float(r["win_rate"]) for _, r in counts.iterrows()}
    bt = bradley_terry(trials, confidence=1 - job.alpha)
    return {str(r["system"]): float(r["strength"]) for _, r in bt.iterrows()}


def _load(spec: Mapping[str, Any], job: AnalysisJob, record: dict[str, Any]) -> Any:
    """Design -> (system -> score, higher is better)."""
    from stecflow.analysis.frames import judgment_frame
    from stecflow.analysis.kind_defaults import measure_column

    designs: dict[str, tuple[dict[str, float], bool]] = {}
    for name in spec["measures"]:
        study, _, measure = name.partition(":")
        path = job.judgments[study]
        if measure in PAIR_MEASURES:
            designs[name] = (_pair_scores(path, measure, job), True)
            continue
        trials = judgment_frame(path, measure, job.labels)
        means = trials.groupby("label")["value"].mean()
        designs[name] = (
            {str(k): float(v) for k, v in means.items() if not math.isnan(v)},
            measure_column(measure)[2],
        )
    return designs


def _rank(values: Mapping[str, float], higher: bool) -> dict[str, float]:
    from stecflow.stats.rank_agreement import average_ranks

    systems = sorted(values)
    oriented = [values[s] if higher else -values[s] for s in systems]
    return dict(zip(systems, average_ranks(oriented), strict=True))


def _run(
    spec: Mapping[str, Any], designs: Any, job: AnalysisJob, record: dict[str, Any]
) -> list[dict[str, Any]]:
    from stecflow.stats.rank_agreement import design_correlations, kendalls_w

    oriented = {
        name: {s: v if higher else -v for s, v in values.items()}
        for name, (values, higher) in designs.items()
    }
    rows = design_correlations(oriented)
    systems = sorted({s for values, _ in designs.values() for s in values})
    ranks = {name: _rank(values, higher) for name, (values, higher) in designs.items()}
    scores = []
    for system in systems:
        row: dict[str, Any] = {"system": system}
        for name, (values, _) in designs.items():
            row[name] = values.get(system)
            row[f"{name} rank"] = ranks[name].get(system)
        scores.append(row)
    first = spec["measures"][0]
    scores.sort(key=lambda r: (r[f"{first} rank"] is None, r[f"{first} rank"] or 0))
    record["designs"] = [
        {
            "design": name,
            "study": name.partition(":")[0],
            "measure": name.partition(":")[2],
            "score": PAIR_MEASURES.get(name.partition(":")[2], "mean over trials"),
            "higher_is_better": higher,
            "n_systems": len(values),
        }
        for name, (values, higher) in designs.items()
    ]
    record["scores"] = scores
    record["systems"] = systems
    record["concordance"] = kendalls_w(oriented) if oriented else {}
    record["settings"] = {
        "spearman": "Spearman's rho, two-sided p (scipy.stats.spearmanr)",
        "kendall": "Kendall's tau-b, two-sided p (scipy.stats.kendalltau)",
        "same_order": "share of pairs of systems both designs order alike"
        " (tied in one design only: half)",
        "concordance": "Kendall's W with the correction for ties, chi-square"
        " test on n - 1 df, over the systems every design scored",
    }
    record["text"] = [
        {
            "about": f"{r['design_a']} ~ {r['design_b']}",
            "text": (
                f"rho = {r['spearman_rho']:.2f} (p = {r['spearman_p']:.3f}),"
                f" tau = {r['kendall_tau']:.2f} (p = {r['kendall_p']:.3f}),"
                f" n = {r['n']}"
            )
            if r["computable"]
            else f"not computable ({r['reason']})",
        }
        for r in rows
    ]
    studies = sorted({name.partition(":")[0] for name in spec["measures"]})
    infos = {s: judgment_settings(job.judgments[s]) for s in studies}
    record["judgments"] = infos
    record["awaiting_responses"] = [
        s for s in studies if infos[s]["awaiting_responses"]
    ]
    return rows


def _write(
    spec: Mapping[str, Any],
    rows: list[dict[str, Any]],
    designs: Any,
    job: AnalysisJob,
    record: dict[str, Any],
) -> dict[str, Any]:
    write_tsv(rows, list(DESIGN_COMPARISON_COLUMNS), job.out_tsv)
    write_json(record, job.out_json)
    log.info("%s: %d designs, %d pairs", spec["id"], len(designs), len(rows))
    return record


def _not_computable(
    spec: Mapping[str, Any], status: Mapping[str, Any]
) -> list[dict[str, Any]]:
    return [{"design_a": "", "design_b": "", **status}]


DESIGN_COMPARISON = AnalysisTest(
    name="design_comparison",
    check=_check,
    load=_load,
    run=_run,
    write=_write,
    design_factors=lambda spec: [],
    not_computable=_not_computable,
    checks_scores=False,
)

TESTS = (DESIGN_COMPARISON,)

"""The ``preference`` test of a ``text_preference`` study (issue #16): per system
its Bradley-Terry strength (:func:`stecflow.stats.preference.bradley_terry`,
ties split half and half) tested against a reference system, with its wins,
losses, ties and win rate (Wilson interval), and in the JSON the pairwise win
rates.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from stecflow.analysis.kind_defaults import (
    checked_preference_spec,
)
from stecflow.analysis.record import judgment_settings
from stecflow.analysis.registry import AnalysisJob, AnalysisTest, SpecContext
from stecflow.core.errors import ConfigError
from stecflow.core.io import write_json, write_tsv

__all__ = ["PREFERENCE", "PREFERENCE_COLUMNS", "TESTS"]

log = logging.getLogger(__name__)


#: Columns of a ``preference`` analysis's table (one row per system, best first).
PREFERENCE_COLUMNS = (
    "system",
    "rank",
    "n",
    "wins",
    "losses",
    "ties",
    "win_rate",
    "win_rate_ci_low",
    "win_rate_ci_high",
    "strength",
    "se",
    "worth",
    "reference",
    "diff",
    "se_diff",
    "ci_low",
    "ci_high",
    "z",
    "p_value",
    "computable",
    "reason",
)


def _check(
    entry: Mapping[str, Any], where: str, context: SpecContext
) -> dict[str, Any]:
    return checked_preference_spec(entry, where, context.studies, context.seen)


def _label(labels: Mapping[tuple[str, str], str], system: str) -> str:
    """A system's label (``team/system`` when it is not analysed)."""
    team, _, name = system.partition("/")
    return labels.get((team, name), system)


def _trials(spec: Mapping[str, Any], job: AnalysisJob, record: dict[str, Any]) -> Any:
    """The trials of ``judgments/<study>.tsv`` in the analysis: the systems
    compared, by their labels, and the one preferred."""
    import pandas as pd

    path = job.judgments[spec["source"]]
    frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    missing = [
        c
        for c in ("system_left", "system_right", "preferred", "in_analysis")
        if c not in frame.columns
    ]
    if missing:
        raise ConfigError(
            f"{path} has no column {missing[0]}: not the judgments of a study"
            " whose kind is analysed by preference",
            field=f"{spec['id']}.source",
        )
    frame = frame[frame["in_analysis"] == "true"]
    return pd.DataFrame(
        {
            "system_left": frame["system_left"].map(lambda s: _label(job.labels, s)),
            "system_right": frame["system_right"].map(lambda s: _label(job.labels, s)),
            "preferred": frame["preferred"],
        }
    )


def _run(
    spec: Mapping[str, Any], trials: Any, job: AnalysisJob, record: dict[str, Any]
) -> list[dict[str, Any]]:
    """Bradley-Terry strengths and win rates of a preference study.

    The rows: one per system (:data:`PREFERENCE_COLUMNS`, best first); the
    record adds the pairwise win rates (``pairs``), how ties entered the model,
    its log-likelihood and the reference.
    """
    from stecflow.stats.preference import (
        bradley_terry,
        pairwise_preferences,
        preference_counts,
    )

    study = spec["source"]
    confidence = 1 - job.alpha
    reference = spec.get("reference")
    systems = sorted(set(trials["system_left"]) | set(trials["system_right"]))
    if reference is not None:
        reference = _label(job.labels, str(reference))
        if reference not in systems:
            reference = None  # not compared (yet): the first system by name
    rows: list[dict[str, Any]] = []
    pairs: list[dict[str, Any]] = []
    model: dict[str, Any] = {"ties": "half", "reference": reference}
    if len(trials):
        counts = preference_counts(trials, confidence=confidence).set_index("system")
        bt = bradley_terry(trials, reference=reference, confidence=confidence)
        for r in bt.to_dict("records"):
            c = counts.loc[r["system"]]
            rows.append(
                {
                    **{k: r[k] for k in PREFERENCE_COLUMNS if k in r},
                    "n": int(c["n"]),
                    "wins": int(c["wins"]),
                    "losses": int(c["losses"]),
                    "ties": int(c["ties"]),
                    "win_rate": float(c["win_rate"]),
                    "win_rate_ci_low": float(c["ci_low"]),
                    "win_rate_ci_high": float(c["ci_high"]),
                }
            )
        if not bool(bt["computable"].iloc[0]):  # no ranks: best win rate first
            rows.sort(key=lambda r: (-r["win_rate"], r["system"]))
        pairs = pairwise_preferences(trials, confidence=confidence).to_dict("records")
        first = bt.iloc[0]
        model.update(
            reference=str(first["reference"]),
            computable=bool(first["computable"]),
            reason=str(first["reason"]),
            log_likelihood=float(first["log_likelihood"]),
        )
    record["settings"] = {
        "confidence": confidence,
        "ties": "split half and half (a tie is half a win for each side)",
        "win_rate": "(wins + ties / 2) / comparisons, Wilson interval",
        "pairs_test": "two-sided exact binomial test of wins, ties left out",
    }
    record["model"] = model
    record["systems"] = systems
    record["n_trials"] = len(trials)
    record["pairs"] = pairs
    record["text"] = [
        {
            "about": r["system"],
            "text": f"{r['system']}: win rate {r['win_rate']:.2f}"
            f" [{r['win_rate_ci_low']:.2f}, {r['win_rate_ci_high']:.2f}]"
            + (
                f", Bradley-Terry strength {r['strength']:.2f} (SE {r['se']:.2f})"
                if r.get("computable")
                else ""
            ),
        }
        for r in rows
    ]
    info = judgment_settings(job.judgments[study])
    record["judgments"] = {study: info}
    record["awaiting_responses"] = [study] if info["awaiting_responses"] else []
    return rows


def _write(
    spec: Mapping[str, Any],
    rows: list[dict[str, Any]],
    trials: Any,
    job: AnalysisJob,
    record: dict[str, Any],
) -> dict[str, Any]:
    write_tsv(rows, list(PREFERENCE_COLUMNS), job.out_tsv)
    write_json(record, job.out_json)
    log.info("%s: %d systems, %d trials", spec["id"], len(rows), len(trials))
    return record


def _not_computable(
    spec: Mapping[str, Any], status: Mapping[str, Any]
) -> list[dict[str, Any]]:
    return [{"system": "", **status}]


PREFERENCE = AnalysisTest(
    name="preference",
    check=_check,
    load=_trials,
    run=_run,
    write=_write,
    not_computable=_not_computable,
    checks_scores=False,
)

TESTS = (PREFERENCE,)

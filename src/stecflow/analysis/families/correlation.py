"""The ``correlations`` test: Pearson (or Spearman) correlations between
measures of the scores and the studies, on per-system means, with the systems
it leaves out and why.

Correlations leave the human reference sets out by default
(``statistics.exclude_references_from_correlations``): seed 001's Table 10 is
computed over the six peer systems (with HUMAN-1 and HUMAN-2 its Fluency-ID
speed r is -0.37, not the published -0.89). A correlation's
``exclude_systems`` leaves named systems out as well, as seed 002 left IS-FBS
out of the correlations between its two experiments (§4: the buggy version was
judged in Exp 1, the corrected one in Exp 2). Which systems were left out, and
why, is recorded in the JSON. Correlations compute the pairs they can and mark
the others.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.analysis.frames import system_frame
from stecflow.analysis.registry import AnalysisJob, AnalysisTest
from stecflow.analysis.specs import spec_check
from stecflow.core.io import read_tsv, write_json, write_tsv

__all__ = ["CORRELATIONS", "TESTS", "correlation_exclusions"]

log = logging.getLogger(__name__)


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


def _load(spec: Mapping[str, Any], job: AnalysisJob, record: dict[str, Any]) -> Any:
    """One row per system: its system-level scores and judgment means."""
    return system_frame(job.systems_path, job.labels, spec["measures"], job.judgments)


def _run(
    spec: Mapping[str, Any], frame: Any, job: AnalysisJob, record: dict[str, Any]
) -> Any:
    from stecflow.stats.correlation import (
        MIN_SYSTEMS,
        correlation_caveats,
        pairwise_corr,
    )

    labels = job.labels
    references = (
        frame.loc[frame["reference_set"].astype(bool), "system"] if len(frame) else []
    )
    exclusions, absent = correlation_exclusions(
        labels,
        references,
        spec.get("exclude_systems") or (),
        exclude_references=job.exclude_references,
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
        frame,
        spec["measures"],
        method=method,
        exclude_systems=excluded,
        confidence=1 - job.alpha,
        deletion=spec.get("deletion", "listwise"),
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
    return result


def _no_design(spec: Mapping[str, Any]) -> list[str]:
    return []  # system means: no cells of items or trials to count


def _pairs_not_computable(
    spec: Mapping[str, Any], status: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """One row per pair of measures: each cell of the matrix says why."""
    measures = list(spec.get("measures") or [])
    if spec.get("measure"):
        measures = [spec["measure"], *measures]
    pairs = [
        {"measure_a": a, "measure_b": b}
        for i, a in enumerate(measures)
        for b in measures[i + 1 :]
    ]
    return [{**p, **status} for p in pairs or [{"measure_a": "", "measure_b": ""}]]


def _partial(
    spec: Mapping[str, Any],
    unscored: Mapping[str, str],
    run: Callable[[Mapping[str, Any]], dict[str, Any]],
    out_tsv: str | Path,
    out_json: str | Path,
) -> dict[str, Any] | None:
    """The pairs of the measures with scores, if two are left, and a
    not-computable row for each pair of an *unscored* one; None otherwise."""
    kept = [m for m in spec.get("measures") or [] if m not in unscored]
    if len(kept) < 2:
        return None
    record = run({**spec, "measures": kept})
    return _with_unscored_pairs(spec, unscored, record, out_tsv, out_json)


def _with_unscored_pairs(
    spec: Mapping[str, Any],
    unscored: Mapping[str, str],
    record: dict[str, Any],
    out_tsv: str | Path,
    out_json: str | Path,
) -> dict[str, Any]:
    """A correlation table and record computed without the *unscored* measures,
    completed with a not-computable row for each of their pairs (in the order
    of the configured measures) and the configured spec."""
    rows = read_tsv(out_tsv)
    columns = list(rows[0]) if rows else ["measure_a", "measure_b"]
    columns += [c for c in ("computable", "reason") if c not in columns]
    computed = {(r["measure_a"], r["measure_b"]): r for r in rows}
    measures = list(spec["measures"])
    table = []
    for i, a in enumerate(measures):
        for b in measures[i + 1 :]:
            row = computed.get((a, b)) or computed.get((b, a))
            if row is None:
                why = "; ".join(unscored[m] for m in (a, b) if m in unscored)
                row = {"measure_a": a, "measure_b": b, "computable": False}
                row["reason"] = why
                record["text"].append(
                    {"about": f"{a} ~ {b}", "text": f"not computable ({why})"}
                )
            table.append(row)
    record["spec"] = dict(spec)
    record["unscored"] = dict(unscored)
    write_tsv(table, columns, out_tsv)
    write_json(record, out_json)
    log.info("%s: not computable for %s", spec["id"], ", ".join(unscored))
    return record


CORRELATIONS = AnalysisTest(
    name="correlations",
    check=spec_check(measures="system_means"),
    load=_load,
    run=_run,
    design_factors=_no_design,
    not_computable=_pairs_not_computable,
    partial=_partial,
)

TESTS = (CORRELATIONS,)

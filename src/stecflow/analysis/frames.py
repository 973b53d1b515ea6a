"""The frames the analyses read: item scores (kept per job in a module-level
cache), a study's trials, per-system means, with the system properties an
analysis names.

The frames call the system column ``label`` (the system's label in the tables,
:func:`~stecflow.analysis.collect.collect_item_scores`); the tables the
analyses write say ``system`` again (:func:`system_words`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stecflow.analysis.collect import system_properties
from stecflow.analysis.kind_defaults import judgment_measures, measure_column
from stecflow.core.io import iter_tsv_blocks, read_tsv

if TYPE_CHECKING:  # pragma: no cover
    from stecflow.analysis.registry import AnalysisJob

__all__ = [
    "add_properties",
    "factor_columns",
    "item_frame",
    "item_frames",
    "judgment_frame",
    "measure_frame",
    "measure_item_scores",
    "measures_frame",
    "measures_item_scores",
    "with_properties",
    "score_frame",
    "system_frame",
    "system_table",
    "system_words",
    "trial_frame",
]

log = logging.getLogger(__name__)


def _level(value: Any) -> Any:
    """A property value as a factor level (YAML's spelling of booleans)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def add_properties(
    frame: Any, names: Sequence[str], properties: Mapping[str, Mapping[str, Any]]
) -> dict[str, list[str]]:
    """Add the system properties *names* as columns; return who lacks each."""
    lacking = {}
    for name in names:
        by_label = {
            label: _level(props.get(name)) for label, props in properties.items()
        }
        frame[name] = frame["label"].map(by_label)
        lacking[name] = sorted(
            frame.loc[frame[name].isna(), "label"].astype(str).unique().tolist()
        )
    return {k: v for k, v in lacking.items() if v}


def trial_frame(
    judgments_path: str | Path,
    measures: Sequence[str],
    labels: Mapping[tuple[str, str], str],
    items_path: str | Path,
    criteria: Sequence[str] = (),
) -> Any:
    """A study's analysed trials, one column per measure (NaN where not analysed).

    A study measure is its value where the trial enters that measure's analysis
    (its flag, :func:`~stecflow.analysis.kind_defaults.judgment_measures`); a
    metric is the item score of the system shown, joined by system and item
    (seed 003's MANOVA of Dice, MASI, IT and RT on the trials).
    """
    import pandas as pd

    frame = pd.read_csv(judgments_path, sep="\t", dtype=str, keep_default_na=False)
    # control trials (system CONTROL) are never analysed as a system
    frame = frame[(frame["system"] != "") & (frame["system"] != "CONTROL")].copy()
    pairs = [tuple(s.split("/", 1)) for s in frame["system"]]
    frame["label"] = [labels.get(p, f"{p[0]}/{p[1]}") for p in pairs]
    declared = judgment_measures()
    study = [m for m in measures if m in declared or m in criteria]
    flags = {measure_column(m, criteria)[1] for m in study}
    if flags:
        frame = frame[frame[list(flags)].eq("true").any(axis=1)].copy()
    for name in study:
        column, flag, _ = measure_column(name, criteria)
        values = pd.to_numeric(
            frame[column].replace({"true": "1", "false": "0", "": "nan"})
        )
        frame[name] = values.where(frame[flag] == "true")
    for name in measures:
        if name in study:
            continue
        scores = item_frame(items_path, name)
        lookup = scores.set_index(["label", "item"])["value"]
        index = pd.MultiIndex.from_arrays([frame["label"], frame["item"]])
        frame[name] = lookup.reindex(index).to_numpy()
    return frame


def score_frame(items_path: str | Path, measures: Sequence[str]) -> Any:
    """Item scores, one column per metric (rows: system x item)."""
    frame = None
    for name in measures:
        part = item_frame(items_path, name).rename(columns={"value": name})
        part = part[["label", "item", "subdomain", "condition", name]]
        frame = (
            part
            if frame is None
            else frame.merge(part, on=["label", "item", "subdomain", "condition"])
        )
    return frame


def item_frame(items_path: str | Path, measure: str) -> Any:
    """The rows of ``scores/items.tsv`` of one metric (:func:`item_frames`)."""
    return item_frames(items_path, [measure])[measure]


#: (items.tsv, its state) -> metric -> its rows, as :func:`item_frames` read them
_ITEM_FRAMES: dict[tuple[str, int, int, int], dict[str, Any]] = {}


def item_frames(items_path: str | Path, measures: Sequence[str]) -> dict[str, Any]:
    """The rows of ``scores/items.tsv`` of each metric in *measures*, one frame each.

    The file is read once for all the metrics not read before (it holds every
    metric of every system analysed: 1.9 million rows for 1,000 systems × 112
    items × 17 metrics), in blocks of lines, keeping their rows only, and
    without the ``stats`` column, which no analysis reads: only the lines that
    hold one of the metrics as a cell are parsed
    (:func:`~stecflow.core.io.iter_tsv_blocks`). Within one job the frames are
    kept, for the file as it is (path, identity, size, time), so the analyses of
    a group that share a metric read it once
    (:func:`~stecflow.analysis.run.prefetch_item_frames`); each call gets its own
    copies. A metric without rows gets an empty frame.
    """
    import io

    import pandas as pd

    stat = Path(items_path).stat()
    key = (str(items_path), stat.st_ino, stat.st_size, stat.st_mtime_ns)
    kept = _ITEM_FRAMES.setdefault(key, {})
    missing = [m for m in dict.fromkeys(measures) if m not in kept]
    if missing:
        # only the lines that can be such rows are parsed (one metric of 17:
        # a tenth of the file), in blocks of a few MB; the header alone gives
        # the columns when there are none
        blocks = iter_tsv_blocks(items_path, missing)
        header = next(blocks)

        def parse(block: str) -> Any:
            chunk = pd.read_csv(
                io.StringIO(header + block),
                sep="\t",
                dtype=str,
                keep_default_na=False,
                usecols=lambda column: column != "stats",
            )
            return chunk[chunk["metric"].isin(missing)]

        rows = pd.concat([parse(block) for block in blocks] or [parse("")])
        for measure in missing:
            frame = rows[rows["metric"] == measure].copy()
            frame["value"] = pd.to_numeric(frame["value"].replace("", "nan"))
            kept[measure] = frame
    return {m: kept[m].copy() for m in measures}


def judgment_frame(
    judgments_path: str | Path,
    measure: str,
    labels: Mapping[tuple[str, str], str],
    criteria: Sequence[str] = (),
) -> Any:
    """Trials analysed for one judgment measure, with ``label`` and ``value``."""
    import pandas as pd

    column, flag, _ = measure_column(measure, criteria)
    frame = pd.read_csv(judgments_path, sep="\t", dtype=str, keep_default_na=False)
    frame = frame[
        (frame[flag] == "true")
        & (frame["system"] != "")
        & (frame["system"] != "CONTROL")
    ].copy()
    frame["value"] = pd.to_numeric(
        frame[column].replace({"true": "1", "false": "0", "": "nan"})
    )
    pairs = [tuple(s.split("/", 1)) for s in frame["system"]]
    frame["label"] = [labels.get(p, f"{p[0]}/{p[1]}") for p in pairs]
    return frame


def system_frame(
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
            trials = judgment_frame(judgments[study], measure, labels)
            means = trials.groupby("label")["value"].mean()
            frame[name] = frame["system"].map(means)
    return frame


def system_words(value: Any) -> Any:
    """Say ``system`` where the tables called the system column ``label``."""
    import re

    import pandas as pd

    pattern = re.compile(r"\blabel\b")
    if isinstance(value, pd.DataFrame):
        value = value.rename(columns={"label": "system"})
        for column in ("source", "factor", "about"):
            if column in value:
                value[column] = value[column].map(
                    lambda v: pattern.sub("system", v) if isinstance(v, str) else v
                )
        return value
    if isinstance(value, dict):
        return {k: system_words(v) for k, v in value.items()}
    if isinstance(value, list):
        return [system_words(v) for v in value]
    if isinstance(value, str):
        return pattern.sub("system", value)
    return value


def measure_frame(
    spec: Mapping[str, Any], job: AnalysisJob, record: dict[str, Any]
) -> Any:
    """The rows an analysis of one ``measure`` tests, the measure as ``value``:
    its item scores (``source: scores``) or the trials of its study analysed
    for it, with the system properties it names (:func:`with_properties`)."""
    source = spec.get("source", "scores")
    if source == "scores":
        frame = item_frame(job.items_path, spec["measure"])
    else:
        criteria = spec.get("criteria") or ()
        frame = judgment_frame(
            job.judgments[source], spec["measure"], job.labels, criteria
        )
    return with_properties(spec, frame, ["value"], job, record)


def measures_frame(
    spec: Mapping[str, Any], job: AnalysisJob, record: dict[str, Any]
) -> Any:
    """The rows an analysis of several ``measures`` tests, one column each: the
    item scores (``source: scores``, :func:`score_frame`) or its study's trials
    (:func:`trial_frame`), with the system properties it names."""
    measures = list(spec["measures"])
    source = spec.get("source", "scores")
    if source == "scores":
        frame = score_frame(job.items_path, measures)
    else:
        frame = trial_frame(
            job.judgments[source],
            measures,
            job.labels,
            job.items_path,
            spec.get("criteria") or (),
        )
    return with_properties(spec, frame, measures, job, record)


def with_properties(
    spec: Mapping[str, Any],
    frame: Any,
    measures: Sequence[str],
    job: AnalysisJob,
    record: dict[str, Any],
) -> Any:
    """*frame* with a column per system property the analysis names as a factor
    (``within`` and ``pair_by`` too); *record* gets which properties, who lacks
    them (left out, with a warning), the systems, each factor's number of levels
    and the number of observations of *measures*."""
    properties = system_properties(job.systems_path)
    named = [*spec.get("factors", [])]
    named += [spec[k] for k in ("within", "pair_by") if spec.get(k)]
    wanted = [f for f in dict.fromkeys(named) if f not in frame and f != "system"]
    lacking = add_properties(frame, wanted, properties)
    if wanted:
        record["properties"] = wanted
        record["systems_without_property"] = lacking
        for name, who in lacking.items():
            log.warning(
                "%s: %s did not declare %s; left out of this analysis",
                spec["id"],
                ", ".join(who),
                name,
            )
    record["systems"] = sorted(frame["label"].unique().tolist())
    record["levels"] = {
        name: int(frame["label" if name == "system" else name].dropna().nunique())
        for name in dict.fromkeys(named)
    }
    record["n_observations"] = int(frame[measures].notna().all(axis=1).sum())
    return frame


def measure_item_scores(spec: Mapping[str, Any]) -> list[Any]:
    """The metric whose item scores an analysis of one ``measure`` reads: its
    measure, if its source is the scores."""
    if spec.get("source", "scores") == "scores":
        return [spec.get("measure")]
    return []


def measures_item_scores(spec: Mapping[str, Any]) -> list[Any]:
    """The metrics whose item scores an analysis of several ``measures`` reads,
    whatever its source: those of its measures that are not a study's."""
    study = {*judgment_measures(), *(spec.get("criteria") or ())}
    return [m for m in spec.get("measures") or () if m not in study]


def factor_columns(spec: Mapping[str, Any]) -> list[str]:
    """The columns of an analysis' ``factors`` in its frame (``system`` is
    ``label``)."""
    return [("label" if f == "system" else f) for f in spec.get("factors", [])]


def system_table(result: Any) -> Any:
    """A result table as written: ``system`` where it said ``group`` or
    ``label`` (:func:`system_words`)."""
    return system_words(result.rename(columns={"group": "system"}))

"""One study's judgments, from response files to the tables the workflow keeps.

:func:`merge_study` is what the workflow's ``merge_judgments`` rule calls once per
study: it reads every response file (:mod:`~stecflow.judgments.importers`) and
the design (:mod:`~stecflow.judgments.design`), maps the trials to the design
and checks them (:mod:`~stecflow.judgments.merge`), applies the organiser's
corrections (:mod:`~stecflow.judgments.corrections`), sets the analysis flags
(:mod:`~stecflow.judgments.flags`), treats time outliers
(:mod:`~stecflow.judgments.outliers`), computes the per-system measures
(:mod:`~stecflow.judgments.measures`) and writes

* ``results/judgments/<study>.tsv``: one row per trial, :data:`JUDGMENT_COLUMNS`;
* the data-quality table: one row per problem, :data:`QUALITY_COLUMNS`;
* a JSON summary: counts, the outlier sentence, corrections, the settings used;
* optionally the measures table: :data:`MEASURE_COLUMNS`.

Every output is byte-deterministic (sorted rows, fixed columns, floats through
:func:`stecflow.core.io.format_float`).
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stecflow.judgments._common import (
    CHECKS,
    JUDGMENT_COLUMNS,
    JudgmentsError,
    is_missing,
    plain,
    problem,
)
from stecflow.judgments.outliers import OutlierSettings
from stecflow.judgments.pipeline import (
    correction_paths,
    read_session_rows,
    release_key,
    sort_problems,
    write_quality,
)
from stecflow.studykinds.base import MergeJob
from stecflow.studykinds.registry import identifies, in_family

__all__ = ["JUDGMENTS_VERSION", "JudgmentSettings", "merge_study"]

logger = logging.getLogger(__name__)

#: Version of the judgments tables; bump when a column changes meaning.
JUDGMENTS_VERSION = 1

_ADJUSTED = {
    "identification_time_ms": (
        "identification_time_outlier",
        "identification_time_adj_ms",
    ),
    "reading_time_ms": ("reading_time_outlier", "reading_time_adj_ms"),
    "rt_ms": ("rt_outlier", "rt_adj_ms"),
}


@dataclass(frozen=True)
class JudgmentSettings:
    """Settings of the judgments stage (config ``judgments``).

    Attributes
    ----------
    task, variant : str or None
        Override the task (``rating``/``identification``) and variant the
        response files record.
    timeout_ms : float
        The DMDX item files' time-out (15 000 ms in seeds 001 and 003).
    encoding : str or None
        Encoding of response files that are not UTF-8.
    strict : bool
        Fail on the first unusable row instead of keeping it flagged.
    exclude_partial_sessions : bool
        Leave sessions with missing trials out of the analyses (default: keep).
    timeouts, cant_tell : {"error", "exclude"}
        Count time-outs and "can't tell" answers as not identified (default) or
        leave them out of accuracy and IR.
    times_include_errors : bool
        Keep wrong identifications in the time analyses (default true: seed 001
        analysed all 896 identification times).
    corrected_in_times : bool
        Keep corrected trials in the time analyses (default false, seed 000).
    outliers : OutlierSettings
        REFERENCE.md §14.
    majority_tie, aggregation : str
        REFERENCE.md §13 (``ident.majority_tie``, ``ident.aggregation``).
    """

    task: str | None = None
    variant: str | None = None
    timeout_ms: float = 15000.0
    encoding: str | None = None
    strict: bool = False
    exclude_partial_sessions: bool = False
    timeouts: str = "error"
    cant_tell: str = "error"
    times_include_errors: bool = True
    corrected_in_times: bool = False
    outliers: OutlierSettings = field(default_factory=OutlierSettings)
    majority_tie: str = "not_identified"
    aggregation: str = "mean_over_items"

    def __post_init__(self) -> None:
        from stecflow.judgments.measures import IDENT_AGGREGATIONS, MAJORITY_TIES

        choices = (
            ("task", self.task, (None, *in_family("grid"))),
            ("timeouts", self.timeouts, ("error", "exclude")),
            ("cant_tell", self.cant_tell, ("error", "exclude")),
            ("ident.majority_tie", self.majority_tie, MAJORITY_TIES),
            ("ident.aggregation", self.aggregation, IDENT_AGGREGATIONS),
        )
        for name, value, allowed in choices:
            if value not in allowed:
                raise JudgmentsError(
                    f"{value!r} is not one of "
                    + ", ".join(str(a) for a in allowed if a is not None),
                    field=f"judgments.{name}",
                )
        if not self.timeout_ms > 0:
            raise JudgmentsError("must be positive", field="judgments.timeout_ms")

    @classmethod
    def from_mapping(
        cls, values: JudgmentSettings | Mapping[str, Any] | None
    ) -> JudgmentSettings:
        """Build from the config's ``judgments`` mapping (unknown keys raise).

        ``outliers`` and ``ident`` are nested mappings; ``simulation`` is
        accepted and ignored here (see
        :class:`stecflow.judgments.participant.SimulationSettings`).

        >>> s = JudgmentSettings.from_mapping(
        ...     {"outliers": {"k": 3}, "ident": {"majority_tie": "identified"}})
        >>> s.outliers.k, s.majority_tie
        (3, 'identified')
        """
        if isinstance(values, JudgmentSettings):
            return values
        values = dict(values or {})
        values.pop("simulation", None)
        ident = values.pop("ident", None) or {}
        unknown_ident = sorted(set(ident) - {"majority_tie", "aggregation"})
        if unknown_ident:
            raise JudgmentsError(
                f"unknown key {unknown_ident[0]!r}",
                field=f"judgments.ident.{unknown_ident[0]}",
            )
        outliers = values.pop("outliers", None)
        known = {f for f in cls.__dataclass_fields__} - {"outliers"}
        unknown = sorted(set(values) - known)
        if unknown:
            raise JudgmentsError(
                f"unknown key {unknown[0]!r}", field=f"judgments.{unknown[0]}"
            )
        return cls(
            outliers=OutlierSettings.from_mapping(outliers),
            **ident,
            **values,
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain data for the summary (the settings used, as the report states)."""
        return {
            "task": self.task,
            "variant": self.variant,
            "timeout_ms": self.timeout_ms,
            "encoding": self.encoding,
            "strict": self.strict,
            "exclude_partial_sessions": self.exclude_partial_sessions,
            "timeouts": self.timeouts,
            "cant_tell": self.cant_tell,
            "times_include_errors": self.times_include_errors,
            "corrected_in_times": self.corrected_in_times,
            "outliers": self.outliers.to_dict(),
            "ident": {
                "majority_tie": self.majority_tie,
                "aggregation": self.aggregation,
            },
        }


def _dmdx_list(path: str, lists: Sequence[str]) -> str | None:
    stem = Path(path).stem
    for list_id in sorted(lists, key=len, reverse=True):
        if stem == list_id or re.match(re.escape(list_id) + r"(?![A-Za-z0-9])", stem):
            return list_id
    return None


def _quality_sort(row: Mapping[str, Any]) -> tuple[Any, ...]:
    order = row.get("order")
    return (
        row.get("source_file") or "~",
        row.get("source_line") if row.get("source_line") is not None else 1 << 30,
        row.get("list") or "~",
        row.get("session") or "~",
        order if order is not None else 1 << 30,
        list(CHECKS).index(row["check"]),
        row.get("detail") or "",
    )


def _records(frame: Any, columns: Sequence[str]) -> list[dict[str, Any]]:
    out = []
    for row in frame.to_dict("records"):
        clean: dict[str, Any] = {}
        for key in columns:
            value = plain(row.get(key))
            if key in ("order", "subject_slot", "source_line") and value is not None:
                value = int(value)
            clean[key] = value
        out.append(clean)
    return out


def unblind_choices(rows: Sequence[dict[str, Any]], key_path: str | Path) -> int:
    """Map the picture labels an offline page recorded to the corpus's entity IDs.

    The page shows each trial's pictures under opaque labels
    (:mod:`stecflow.studies.blinding`); the server stores entity IDs, an offline
    file the labels. A row whose ``chosen_entity`` is a label of its trial (by
    ``list`` and ``order``) gets that label's entity; every other row is left as
    it is. Returns how many rows were mapped.

    Raises
    ------
    JudgmentsError
        The key cannot be read.
    """
    from stecflow.studies.blinding import entity_labels

    try:
        key = json.loads(Path(key_path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise JudgmentsError(
            f"cannot read the study's key ({error}); rebuild the study's stimuli",
            file=str(key_path),
        ) from None
    labels = entity_labels(key)
    mapped = 0
    for row in rows:
        chosen, order = row.get("chosen_entity"), row.get("order")
        if chosen is None or order is None or row.get("list") is None:
            continue
        try:
            shown = labels.get((str(row["list"]), int(order)))
        except (TypeError, ValueError):
            continue
        if shown and chosen in shown:
            row["chosen_entity"] = shown[chosen]
            mapped += 1
    return mapped


def merge_study(
    design_path: str | Path,
    response_paths: Sequence[str | Path],
    corrections_path: str | Path | Sequence[str | Path] | None = None,
    testset_path: str | Path | None = None,
    settings: JudgmentSettings | Mapping[str, Any] | None = None,
    out_judgments_tsv: str | Path | None = None,
    out_quality_tsv: str | Path | None = None,
    out_summary_json: str | Path | None = None,
    *,
    study: str | None = None,
    task: str | None = None,
    variant: str | None = None,
    out_measures_tsv: str | Path | None = None,
    dmdx_items_dir: str | Path | None = None,
    items_paths: Sequence[str | Path] = (),
    exclusions: Sequence[Mapping[str, Any]] | None = None,
    out_exclusions_tsv: str | Path | None = None,
    withdrawals: Sequence[str | Path] = (),
    sessions: Any = None,
    normalise: str | None = None,
    pseudonym_key: str | None = None,
    key_path: str | Path | None = None,
) -> dict[str, Any]:
    """Merge one study's responses with its design and write the judgments tables.

    Parameters
    ----------
    design_path : path
        ``results/studies/<study>/design.tsv``.
    response_paths : sequence of paths
        Server exports, offline files, generic CSVs, DMDX ``.azk`` files or
        simulated answers, in any mix (read in sorted order).
    corrections_path : path or sequence of paths, optional
        The organiser's corrections file (:mod:`stecflow.judgments.corrections`);
        a sequence (possibly empty, as a Snakemake input function may give)
        applies each file in turn.
    testset_path : path, optional
        The test set (stecflow XML): conditions, targets and entity checks.
    settings : JudgmentSettings or mapping, optional
        The config's ``judgments`` section.
    out_judgments_tsv, out_quality_tsv, out_summary_json : path, optional
        Outputs (skipped when None).
    study : str, optional
        Default: the design's ``study`` column.
    task, variant : str, optional
        The study's task and variant (from the study's config); they override
        ``settings`` and what the response files record.
    out_measures_tsv : path, optional
        The per-system measures (:data:`MEASURE_COLUMNS`).
    dmdx_items_dir : path, optional
        Folder with the ``<list>-items.tsv`` tables of the DMDX item files
        (``results/studies/<study>/dmdx``). A ``.azk`` file's list is the design
        list its file name starts with.
    items_paths : sequence of paths
        More items (e.g. the practice items' split).
    exclusions : sequence of mappings, optional
        The study's exclusion rules (``studies.<id>.exclusions``,
        :mod:`stecflow.judgments.exclusions`), applied before the analysis flags.
    out_exclusions_tsv : path, optional
        Their audit (``results/judgments/exclusions/<study>.tsv``), written even
        without rules (header only).
    withdrawals : sequence of paths
        The study's withdrawals files (:mod:`stecflow.judgments.withdrawals`):
        the rows of a participant who withdrew are left out of every table,
        matched by their IDs' hashes keyed with *pseudonym_key*; the summary
        counts them (``withdrawals``, ``counts.withdrawn``).
    sessions : DataFrame or path, optional
        The study's session table (``answer`` rules); a path that does not
        exist counts as no table.
    normalise : {"z", None}
        The study's ``normalise``: ``z`` adds ``adequacy_z`` and ``fluency_z``
        to a rating study's judgments table (:mod:`stecflow.judgments.normalise`).
    pseudonym_key : str, optional
        The release key (``release.key``, else the campaign ID) the summary's
        pseudonyms are keyed with (:mod:`stecflow.judgments.public`); default:
        the study's ID.
    key_path : path, optional
        The study's key (``results/studies/<study>/stimuli-key.json``): the
        pictures an offline page's rows name by the labels it showed are mapped
        back to the corpus's entities (:func:`unblind_choices`).

    Returns
    -------
    dict
        The summary written to *out_summary_json*: counts, checks and settings,
        with pseudonyms for participants and sessions and no absolute path
        (:func:`stecflow.judgments.public.public_summary`).

    Raises
    ------
    JudgmentsError
        A file cannot be read at all, a correction does not apply, or a setting
        is invalid.
    """
    import pandas as pd

    from stecflow.core.io import write_json, write_tsv
    from stecflow.judgments.corrections import apply_corrections, read_corrections
    from stecflow.judgments.design import read_design
    from stecflow.judgments.flags import analysis_flags
    from stecflow.judgments.importers import read_responses
    from stecflow.judgments.measures import MEASURE_COLUMNS, study_measures
    from stecflow.judgments.merge import merge_with_design
    from stecflow.judgments.outliers import (
        outlier_sentence,
        short_count,
        treat_outliers,
    )
    from stecflow.judgments.withdrawals import drop_withdrawn

    config = JudgmentSettings.from_mapping(settings)
    design = read_design(design_path)
    if study is None:
        studies = sorted({s for s in design.get("study", pd.Series([])) if s})
        if len(studies) != 1:
            raise JudgmentsError(
                "give the study: the design's study column does not name one",
                file=str(design_path),
                field="study",
            )
        study = studies[0]
    items: dict[str, Any] = {}
    if testset_path is not None or items_paths:
        from stecflow.data.corpus import read_items

        paths = ([str(testset_path)] if testset_path is not None else []) + sorted(
            str(p) for p in items_paths
        )
        for path in paths:
            for item in read_items(path):
                items.setdefault(item.id, item)

    lists = sorted(set(design["list"]))
    results = []
    for path in sorted(str(p) for p in response_paths):
        list_id = table = None
        if path.lower().endswith((".azk", ".zil")):
            list_id = _dmdx_list(path, lists)
            if dmdx_items_dir is not None and list_id is not None:
                candidate = Path(dmdx_items_dir) / f"{list_id}-items.tsv"
                table = candidate if candidate.is_file() else None
        results.append(
            read_responses(
                path,
                study=study,
                list_id=list_id,
                dmdx_item_table=table,
                timeout_ms=config.timeout_ms,
                encoding=config.encoding,
                strict=config.strict,
            )
        )
    rows = [row for result in results for row in result.rows]
    problems = [p for result in results for p in result.problems]
    rows, problems, withdrawal = drop_withdrawn(
        rows, problems, withdrawals, release_key(study, pseudonym_key)
    )
    if key_path is not None:
        unblind_choices(rows, key_path)
    outcome = merge_with_design(
        rows,
        design,
        study=study,
        items=items or None,
        task=task or config.task,
        variant=variant or config.variant,
    )
    problems.extend(outcome.problems)
    trials = outcome.trials

    report: list[dict[str, Any]] = []
    skipped_corrections = 0
    correction_files = correction_paths(corrections_path)
    for path in correction_files:
        corrections = read_corrections(path, encoding=config.encoding)
        skipped_corrections += sum(
            1 for c in corrections if c.study is not None and c.study != study
        )
        trials, applied, found = apply_corrections(
            trials,
            corrections,
            study=study,
            source=path,
            items=items or None,
        )
        report.extend(applied)
        problems.extend(found)

    audit, trials = _exclusions(trials, design, exclusions, sessions, study)
    if out_exclusions_tsv is not None:
        from stecflow.judgments.exclusions import AUDIT_COLUMNS

        write_tsv(audit, AUDIT_COLUMNS, out_exclusions_tsv)
    trials = analysis_flags(
        trials,
        task=outcome.task,
        exclude_partial_sessions=config.exclude_partial_sessions,
        timeouts=config.timeouts,
        cant_tell=config.cant_tell,
        times_include_errors=config.times_include_errors,
        corrected_in_times=config.corrected_in_times,
    )
    if "control" in trials:  # control trials never enter an analysis of systems
        is_control = trials["control"].map(lambda v: not is_missing(v))
        trials.loc[is_control, "in_analysis"] = False
        trials.loc[is_control, "in_time_analysis"] = False
    outlier_summary = _outliers(
        trials, config, study, problems, treat_outliers, outlier_sentence, short_count
    )
    trials = outlier_summary.pop("_trials")
    measures = study_measures(
        trials,
        task=outcome.task,
        study=study,
        majority_tie=config.majority_tie,
        aggregation=config.aggregation,
    )

    sort_problems(problems, study, key=_quality_sort)
    judgment_rows = _records(trials, JUDGMENT_COLUMNS)
    judgment_columns = tuple(JUDGMENT_COLUMNS)
    if normalise is not None and not identifies(outcome.task):
        from stecflow.judgments.normalise import add_z_scores

        judgment_columns += add_z_scores(
            judgment_rows, ("adequacy", "fluency"), normalise=normalise
        )
    summary = _summary(
        study,
        outcome,
        trials,
        design,
        results,
        problems,
        report,
        skipped_corrections,
        correction_files,
        outlier_summary,
        measures,
        config,
    )
    # A study run before its data are in: the experiment is built, the rest waits.
    summary["awaiting_responses"] = not response_paths
    summary["withdrawals"] = withdrawal
    summary["counts"]["withdrawn"] = withdrawal["withdrawn"]
    if key_path is not None:  # a spoken study: how its descriptions were voiced
        from stecflow.studies.recordings import key_speech

        voiced = key_speech(key_path)
        if voiced is not None:
            summary["speech"] = voiced
    if exclusions:  # the rules and who they excluded, for the report
        excluded = sorted({r["participant"] for r in audit if r["excluded"]})
        summary["exclusions"] = {
            "rules": [dict(r) for r in exclusions],
            "excluded_participants": excluded,
            "audit": audit,
        }
    from stecflow.judgments.public import public_summary

    summary = public_summary(summary, release_key(study, pseudonym_key))
    if out_judgments_tsv is not None:
        write_tsv(judgment_rows, judgment_columns, out_judgments_tsv)
    if out_quality_tsv is not None:
        # the same pseudonyms as the summary (released and reported as it is)
        write_quality(
            problems,
            judgment_rows,
            out_quality_tsv,
            release_key(study, pseudonym_key),
        )
    if out_measures_tsv is not None:
        write_tsv(
            _records(measures, MEASURE_COLUMNS), MEASURE_COLUMNS, out_measures_tsv
        )
    if out_summary_json is not None:
        write_json(summary, out_summary_json)
    logger.info(
        "study %s: %d trial(s), %d in the analysis, %d problem(s)",
        study,
        len(trials),
        summary["counts"]["in_analysis"],
        len(problems),
    )
    return summary


def _outliers(
    trials: Any,
    config: JudgmentSettings,
    study: str,
    problems: list[dict[str, Any]],
    treat_outliers: Any,
    outlier_sentence: Any,
    short_count: Any,
) -> dict[str, Any]:
    import pandas as pd

    out = trials.copy()
    timed = out["in_time_analysis"].to_numpy(dtype=bool)
    measures: dict[str, Any] = {}
    for measure, (flag, adjusted) in _ADJUSTED.items():
        values = pd.to_numeric(out[measure], errors="coerce")
        if measure in config.outliers.measures:
            out, cells = treat_outliers(
                out,
                measure,
                settings=config.outliers,
                mask=timed,
                flag_column=flag,
                adjusted_column=adjusted,
            )
            n_total = int(cells["n"].sum()) if len(cells) else 0
            if n_total == 0:
                continue
            n_out = int(cells["n_outliers"].sum())
            cell_rows = []
            for cell in cells.to_dict("records"):
                cell = {k: plain(v) for k, v in cell.items()}
                cell_rows.append(cell)
                if cell["warning"]:
                    problems.append(
                        problem(
                            "small_outlier_cell",
                            f"{measure}, {cell['cell']}: {cell['warning']}",
                            study=study,
                            field=measure,
                        )
                    )
            measures[measure] = {
                "n": n_total,
                "n_outliers": n_out,
                "percent": round(100 * n_out / n_total, 1) if n_total else None,
                "count_text": short_count(n_out, n_total),
                "text": outlier_sentence(
                    n_out, n_total, measure=measure, settings=config.outliers
                ),
                "cells": cell_rows,
            }
        else:
            out[flag] = False
            out[adjusted] = values.where(timed, math.nan)
    out["outlier"] = (
        out["reading_time_outlier"].astype(bool)
        | out["identification_time_outlier"].astype(bool)
        | out["rt_outlier"].astype(bool)
    )
    return {
        "_trials": out,
        "settings": config.outliers.to_dict(),
        "signature": config.outliers.signature(),
        "measures": measures,
    }


def _exclusions(
    trials: Any,
    design: Any,
    rules: Sequence[Mapping[str, Any]] | None,
    sessions: Any,
    study: str,
) -> tuple[list[dict[str, Any]], Any]:
    """The audit of the study's exclusion rules and the trials flagged by it."""
    from stecflow.judgments.exclusions import (
        apply_exclusions,
        check_rules,
        exclusion_audit,
    )

    checked = check_rules(rules, study)
    if not checked:
        return [], trials
    session_rows: list[dict[str, Any]] = []
    if isinstance(sessions, str | Path):
        session_rows = read_session_rows(sessions)
    elif sessions is not None:
        session_rows = sessions.to_dict("records")
    tests = design[~design["practice"].astype(bool)]
    sizes = {str(k): int(v) for k, v in tests.groupby("list").size().items()}
    audit = exclusion_audit(
        trials.to_dict("records"), checked, list_sizes=sizes, sessions=session_rows
    )
    return audit, apply_exclusions(trials, audit)


def _count(trials: Any, column: str, mask: Any = None) -> int:
    values = trials[column].map(lambda v: bool(v) if not is_missing(v) else False)
    if mask is not None:
        values = values & mask
    return int(values.sum())


def _summary(
    study: str,
    outcome: Any,
    trials: Any,
    design: Any,
    results: Sequence[Any],
    problems: Sequence[Mapping[str, Any]],
    report: Sequence[Mapping[str, Any]],
    skipped_corrections: int,
    correction_files: Sequence[str],
    outliers: Mapping[str, Any],
    measures: Any,
    config: JudgmentSettings,
) -> dict[str, Any]:
    from stecflow.judgments.measures import measure_flags

    analysed = trials["in_analysis"].astype(bool)
    sessions = outcome.sessions
    by_check = Counter(p["check"] for p in problems)
    severities = Counter(p["severity"] for p in problems)
    simulated = _count(trials, "simulated")
    variants = sorted({str(v) for v in trials["variant"] if not is_missing(v)})
    return {
        "version": JUDGMENTS_VERSION,
        "study": study,
        "task": outcome.task,
        "variant": variants[0] if len(variants) == 1 else (variants or None),
        "simulated": bool(len(trials)) and simulated == len(trials),
        "counts": {
            "rows": int(len(trials)),
            "sessions": len(sessions),
            "subjects": len({info["subject"] for info in sessions.values()}),
            "lists_in_design": int(design["list"].nunique()),
            "lists_run": len({i["list"] for i in sessions.values() if i["list"]}),
            "design_test_trials": int((~design["practice"].astype(bool)).sum()),
            "in_analysis": int(analysed.sum()),
            "in_time_analysis": int(trials["in_time_analysis"].astype(bool).sum()),
            "practice": _count(trials, "practice"),
            "fillers": _count(trials, "filler"),
            "controls": int(trials["control"].map(lambda v: not is_missing(v)).sum())
            if "control" in trials
            else 0,
            "excluded": _count(trials, "excluded"),
            "duplicates": _count(trials, "duplicate"),
            "timeouts": _count(trials, "timeout", analysed),
            "cant_tell": _count(trials, "cant_tell", analysed),
            "corrected": _count(trials, "corrected"),
            "outliers": _count(trials, "outlier"),
            "partial_sessions": sum(1 for i in sessions.values() if i["partial"]),
            "missing_trials": sum(len(i["missing"]) for i in sessions.values()),
            "simulated_rows": simulated,
        },
        "sources": [
            {
                "file": r.path,
                "format": r.source_format,
                "rows": len(r.rows),
                "notes": list(r.notes),
            }
            for r in results
        ],
        "sessions": {
            name: {
                "list": info["list"],
                "subject": info["subject"],
                "status": info["status"],
                "partial": info["partial"],
                "n_missing": len(info["missing"]),
            }
            for name, info in sorted(sessions.items())
        },
        "quality": {
            "by_check": dict(sorted(by_check.items())),
            "by_severity": dict(sorted(severities.items())),
        },
        "corrections": {
            "files": list(correction_files),
            "applied": len(report),
            "skipped_other_study": skipped_corrections,
            "report": list(report),
        },
        "outliers": dict(outliers),
        "measures": _records(measures, list(measures.columns)),
        # measures that mean nothing here (MIR = IR, constant), in plain words
        "measure_flags": measure_flags(measures),
        "settings": config.to_dict(),
    }


def merge_job(job: MergeJob) -> None:
    """The grid kinds' ``merge`` hook: :func:`merge_study` on a job's files."""
    merge_study(
        design_path=job.design,
        response_paths=job.responses,
        corrections_path=list(job.corrections),
        testset_path=job.testset,
        settings=job.settings,
        out_judgments_tsv=job.judgments,
        out_quality_tsv=job.quality,
        out_summary_json=job.summary,
        study=job.spec["id"],
        task=job.spec["task"],
        variant=job.spec.get("variant"),
        out_measures_tsv=job.measures,
        dmdx_items_dir=job.dmdx_items_dir,
        items_paths=list(job.practice),
        exclusions=job.spec.get("exclusions"),
        out_exclusions_tsv=job.exclusions,
        withdrawals=list(job.withdrawals),
        sessions=job.sessions,
        normalise=job.spec.get("normalise"),
        pseudonym_key=job.pseudonym_key,
        key_path=job.key,
    )

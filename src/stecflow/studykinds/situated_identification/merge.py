"""The merge of a situated identification study (seed 000 §5) and its hooks.

:func:`merge_situated_study` (rule ``merge_judgments``, through the kind's
``merge`` hook :func:`merge_job`) reads the response files
(:func:`.import_server.read_situated_responses`) and the
design (:mod:`.merge_design`), joins every trial to the
design (:mod:`.merge_join`: list and instance give the
class, the expression shown and the target), applies the organisers'
corrections (:mod:`stecflow.judgments.corrections`: a declared mis-click
corrected, with its audit row), discards the evaluators whose session failed
part-way and applies the exclusion rules
(:mod:`.merge_exclusions`), computes seed 000's Tables 7-9
(:func:`.measures.situated_measures`) and re-scores the
intrinsic evaluation with the FP-system instances the majority identified
(:mod:`.merge_tables`). It writes the judgments table, the
data-quality table (:data:`~stecflow.judgments._common.QUALITY_COLUMNS`), the
measures and a JSON summary, byte-identical on every run (sorted rows, fixed
columns, floats through :func:`stecflow.core.io.format_float`, NaN as an empty
cell / null). The steps every merge shares are in
:mod:`stecflow.judgments.pipeline`.

The kind's ``simulate`` hook :func:`simulate_job` runs
:func:`.simulate_job.simulate_situated_study`.

Problems of the data (a bad line, an unknown list or instance, a duplicate trial,
a trial that is not the design's, a discarded evaluator, a corrected answer) are
rows of the quality table; the rest of the data is kept.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.metrics`,
:mod:`stecflow.studies` (inside functions), :mod:`stecflow.judgments`; pandas
inside functions.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.judgments._common import JudgmentsError, plain
from stecflow.judgments.pipeline import (
    correction_paths,
    name_subjects,
    read_response_files,
    release_key,
    sort_problems,
    write_merged,
)
from stecflow.studykinds.base import MergeJob, SimulationJob
from stecflow.studykinds.situated_identification.measures import (
    DISCARD_COLUMNS,
    IDENTIFICATION_COLUMNS,
    INSTANCE_COLUMNS,
    REPLAY_COLUMNS,
    TIME_COLUMNS,
)
from stecflow.studykinds.situated_identification.merge_design import (
    TASK,
    design_halves,
    drop_practice,
    majority_rule,
    read_design_settings,
    read_situated_design,
    time_scopes,
)
from stecflow.studykinds.situated_identification.merge_exclusions import (
    discard_evaluators,
    exclusion_rules_audit,
    missing_trials,
)
from stecflow.studykinds.situated_identification.merge_join import (
    TRIAL_FIELDS,
    join_situated_trials,
)
from stecflow.studykinds.situated_identification.merge_tables import (
    MEASURE_INPUT,
    SITUATED_JUDGMENT_COLUMNS,
    SITUATED_MEASURE_COLUMNS,
    measure_rows,
    number,
    records,
    rescored_intrinsic,
)
from stecflow.studykinds.situated_identification.simulate_job import (
    simulate_situated_study,
)

__all__ = ["merge_job", "merge_situated_study", "simulate_job"]

logger = logging.getLogger(__name__)


def merge_situated_study(
    design_path: str | Path,
    settings_path: str | Path,
    responses: Sequence[str | Path],
    corrections: str | Path | Sequence[str | Path] | None,
    judgments_path: str | Path,
    quality_path: str | Path,
    measures_path: str | Path,
    summary_path: str | Path,
    *,
    settings: Mapping[str, Any] | None = None,
    pseudonym_key: str | None = None,
    exclusions: Sequence[Mapping[str, Any]] | None = None,
    exclusions_path: str | Path | None = None,
    sessions_path: str | Path | None = None,
    withdrawals: Sequence[str | Path] = (),
) -> dict[str, Any]:
    """Merge a situated study's responses with its design and write four files.

    Parameters
    ----------
    design_path : path
        ``results/studies/<study>/design.tsv``.
    settings_path : path
        ``results/studies/<study>/design.json``: ``majority`` (default
        ``strict``), ``time_scope`` (default both), ``system``, ``intrinsic``
        (the system's confusion counts), ``counts``, ``allocation``,
        ``qualification``, ``halves`` / ``item_sets``.
    responses : sequence of paths
        Situated response files (exports, offline files, simulated files), read
        in sorted order. Empty: the tables are written without rows and the
        summary says ``awaiting_responses``.
    corrections : path or sequence of paths, optional
        The organisers' corrections file (format of
        :mod:`stecflow.judgments.corrections`; a sequence, possibly empty, is
        applied file by file). A corrected trial is
        ``corrected`` (left out of IT, kept in IR); a trial with ``exclude``
        leaves the judgments table.
    judgments_path, quality_path, measures_path, summary_path : path
        Outputs
        (:data:`.merge_tables.SITUATED_JUDGMENT_COLUMNS`,
        :data:`~stecflow.judgments._common.QUALITY_COLUMNS`,
        :data:`.merge_tables.SITUATED_MEASURE_COLUMNS`,
        the JSON summary).
    settings : mapping, optional
        The config's ``judgments`` mapping: ``encoding`` (of the response and
        corrections files) and ``strict`` (raise at the first bad line) are
        used; nothing is added to it.
    pseudonym_key : str, optional
        The release key the summary's pseudonyms are keyed with
        (:mod:`stecflow.judgments.public`); default: the study's ID.
    exclusions : sequence of mapping, optional
        The study's exclusion rules (``studies.<id>.exclusions``;
        :mod:`stecflow.judgments.exclusions`): ``median_time_below_ms`` (on
        ``time_ms``), ``incomplete`` and ``answer`` (a situated study has no
        control trials). An evaluator a rule excludes leaves the judgments and
        every measure, as a discarded one does; the audit and the summary's
        ``exclusions`` say who and why.
    exclusions_path : path, optional
        The audit (``results/judgments/exclusions/<study>.tsv``), written even
        without rules (header only).
    sessions_path : path, optional
        The session table, for ``answer`` rules.
    withdrawals : sequence of paths
        The study's withdrawals files (:mod:`stecflow.judgments.withdrawals`):
        the rows of an evaluator who withdrew are left out of every table;
        the summary counts them (``withdrawals``, ``counts.withdrawn``).

    Returns
    -------
    dict
        The summary written to *summary_path*.

    Raises
    ------
    JudgmentsError
        A file cannot be read as a whole, a correction does not apply, or
        design.json's settings are invalid.
    """
    import pandas as pd

    from stecflow.judgments.corrections import apply_corrections, read_corrections
    from stecflow.judgments.withdrawals import drop_withdrawn
    from stecflow.studykinds.situated_identification.import_server import (
        read_situated_responses,
    )
    from stecflow.studykinds.situated_identification.measures import situated_measures

    config = dict(settings or {})
    encoding = config.get("encoding")
    strict = bool(config.get("strict", False))
    design = read_situated_design(design_path)
    design_json = read_design_settings(settings_path)
    majority = majority_rule(design_json, str(settings_path))
    scopes = time_scopes(design_json, str(settings_path))
    studies = sorted({s for s in design["study"] if s}) if len(design) else []
    study = studies[0] if len(studies) == 1 else design_json.get("study")
    if not study:
        raise JudgmentsError(
            "the design's study column does not name one study",
            file=str(design_path),
            field="study",
        )
    study = str(study)
    design = drop_practice(design)

    key = release_key(study, pseudonym_key)
    rows, problems, sources = read_response_files(
        responses,
        lambda path: read_situated_responses(
            path, study=study, encoding=encoding, strict=strict
        ),
    )
    rows, problems, withdrawal = drop_withdrawn(rows, problems, withdrawals, key)
    usable = [r for r in rows if r["session"] is not None]
    problems.extend(name_subjects(usable, study))
    joined, found = join_situated_trials(usable, design, study)
    problems.extend(found)
    frame = pd.DataFrame(joined, columns=TRIAL_FIELDS, dtype=object)

    report: list[dict[str, Any]] = []
    correction_files = correction_paths(corrections)
    for path in correction_files:
        frame, applied, found = apply_corrections(
            frame, read_corrections(path, encoding=encoding), study=study, source=path
        )
        report.extend(applied)
        problems.extend(found)
    for column in ("correct", "cant_tell", "corrected", "simulated", "excluded"):
        frame[column] = frame[column].map(lambda v: bool(plain(v)))
    for column in ("time_ms", "replays"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce")

    # Sessions are judged complete with the excluded trials still in: a trial
    # the organisers withdrew was answered, and does not make a session short.
    if len(frame):
        kept, discarded, found = discard_evaluators(frame, design, study)
        problems.extend(found)
        kept = kept[~kept["excluded"].astype(bool)]
    else:
        kept = frame
        discarded = pd.DataFrame(columns=[*DISCARD_COLUMNS, "list"])
    kept = kept.sort_values(["subject", "order"], kind="stable").reset_index(drop=True)
    rules, audit = exclusion_rules_audit(kept, design, study, exclusions, sessions_path)
    excluded = sorted({str(r["participant"]) for r in audit if r["excluded"]})
    if excluded:
        leaving = kept["subject"].astype(str).isin(excluded)
        kept = kept[~leaving].reset_index(drop=True)
    if exclusions_path is not None:
        from stecflow.judgments.exclusions import write_audit

        write_audit(audit, exclusions_path)

    if len(kept):
        statuses = tuple(sorted({str(s) for s in kept["session_status"]}))
        measures = situated_measures(
            kept[list(MEASURE_INPUT)].rename(columns=MEASURE_INPUT),
            majority=majority,
            scopes=scopes,
            complete=statuses,
        )
        identification = measures.identification
        times, replays = measures.times, measures.replays
        instances = measures.instances
        tested, identified = measures.fp_rescoring_counts()
        measure_table = measure_rows(measures)
    else:
        identification = pd.DataFrame(columns=list(IDENTIFICATION_COLUMNS))
        times = pd.DataFrame(columns=list(TIME_COLUMNS))
        replays = pd.DataFrame(columns=list(REPLAY_COLUMNS))
        instances = pd.DataFrame(columns=list(INSTANCE_COLUMNS))
        tested = identified = 0
        measure_table = []

    awaiting = not responses
    sort_problems(problems, study)
    judgment_rows = [
        {
            "subject": r["subject"],
            "list": r["list"],
            "order": int(r["order"]),
            "instance": r["item"],
            "class": r["class"],
            "shown": r["shown"],
            "expression": plain(r["expression"]),
            "target": r["target_entity"],
            "chosen": plain(r["chosen_entity"]),
            "correct": bool(r["correct"]),
            "cant_tell": bool(r["cant_tell"]),
            "time_ms": number(r["time_ms"]),
            "replays": number(r["replays"]),
            "corrected": bool(r["corrected"]),
            "session_status": plain(r["session_status"]),
            "simulated": bool(r["simulated"]),
        }
        for r in kept.to_dict("records")
    ]
    counts = design_json.get("counts") or {}
    summary = {
        "study": study,
        "task": TASK,
        "simulated": bool(judgment_rows) and all(r["simulated"] for r in judgment_rows),
        "system": design_json.get("system"),
        "awaiting_responses": awaiting,
        "withdrawals": withdrawal,
        "counts": {
            "withdrawn": withdrawal["withdrawn"],
            "lists_in_design": int(design["list"].nunique()) if len(design) else 0,
            "lists_run": int(frame["list"].nunique()) if len(frame) else 0,
            "evaluators": int(kept["subject"].nunique()) if len(kept) else 0,
            "discarded": len(discarded),
            "trials": len(judgment_rows),
            "corrected": sum(1 for r in judgment_rows if r["corrected"]),
            # the data-quality overview's columns, as a REG study's summary has
            # them (a situated trial has no time-out and no outlier replacement)
            "rows": len(rows),
            "in_analysis": len(judgment_rows),
            "excluded": int(frame["excluded"].sum()) if len(frame) else 0,
            "duplicates": sum(1 for p in problems if p.get("check") == "duplicate"),
            "timeouts": 0,
            "partial_sessions": len(discarded),
            "missing_trials": missing_trials(discarded, design),
        },
        "sources": sources,
        "discarded": records(discarded, DISCARD_COLUMNS),
        "corrections": [{k: plain(v) for k, v in r.items()} for r in report],
        "identification": records(identification, IDENTIFICATION_COLUMNS),
        "time": records(times, TIME_COLUMNS),
        "replays": records(replays, REPLAY_COLUMNS),
        "instances": records(instances, INSTANCE_COLUMNS),
        "design": {
            "counts": counts,
            "allocation": design_json.get("allocation", []),
            "qualification": design_json.get("qualification", {}),
            "halves": design_halves(design_json),
            "clips": design_json.get("clips"),  # durations (seed 000 §5.1)
        },
        "intrinsic": design_json.get("intrinsic"),
        "rescored": None
        if awaiting
        else rescored_intrinsic(
            design_json.get("intrinsic"),
            tested,
            identified,
            instances,
            str(settings_path),
        ),
        "settings": {"majority": majority, "time_scope": scopes},
    }
    if rules:  # the rules and who they excluded, for the report
        summary["exclusions"] = {
            "rules": rules,
            "excluded_participants": excluded,
            "audit": audit,
        }
    summary = write_merged(
        judgment_rows,
        SITUATED_JUDGMENT_COLUMNS,
        problems,
        measure_table,
        SITUATED_MEASURE_COLUMNS,
        summary,
        key,
        judgments=judgments_path,
        quality=quality_path,
        measures_path=measures_path,
        summary_path=summary_path,
    )
    logger.info(
        "situated study %s: %d trial(s) of %d evaluator(s), %d discarded, %d "
        "problem(s)",
        study,
        len(judgment_rows),
        summary["counts"]["evaluators"],
        len(discarded),
        len(problems),
    )
    return summary


def merge_job(job: MergeJob) -> None:
    """The kind's ``merge`` hook: :func:`merge_situated_study` on a job's files."""
    merge_situated_study(
        job.design,
        job.design_settings,
        job.responses,
        job.corrections[0] if job.corrections else None,
        job.judgments,
        job.quality,
        job.measures,
        job.summary,
        settings=job.settings,
        pseudonym_key=job.pseudonym_key,
        exclusions=job.spec.get("exclusions"),
        exclusions_path=job.exclusions,
        sessions_path=job.sessions,
        withdrawals=list(job.withdrawals),
    )


def simulate_job(job: SimulationJob) -> None:
    """The kind's ``simulate`` hook:
    :func:`.simulate_job.simulate_situated_study`."""
    simulate_situated_study(
        job.design, job.testset, job.responses, seed=job.seed, settings=job.settings
    )

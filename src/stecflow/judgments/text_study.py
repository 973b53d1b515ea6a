"""The merge of a text study (``text_rating``, ``text_preference``) and its hooks.

:func:`merge_text_study` (rule ``merge_judgments``, through the kinds' ``merge``
hook :func:`merge_job`; issue #16) reads the response files
(:func:`stecflow.judgments.importers.text.read_text_responses`), joins every
trial to the design (:mod:`stecflow.judgments.text_join`: ``design.tsv`` has the
columns of :data:`stecflow.studies.designs.TRIAL_COLUMNS`, and for a preference
study ``system_left`` and ``system_right``), applies the organisers'
corrections (:mod:`stecflow.judgments.text_corrections`), keeps and flags
partial sessions, sets which trials enter the analysis and applies the
exclusion rules (:mod:`stecflow.judgments.text_exclusions`), computes the
measures (:mod:`stecflow.judgments.text_measures`) and writes the four files of
every merge: the judgments table (:func:`judgment_columns`), the data-quality
table (:data:`~stecflow.judgments._common.QUALITY_COLUMNS`), the measures and a
JSON summary, byte-identical on every run (sorted rows, fixed columns, floats
through :func:`stecflow.core.io.format_float`). The steps every merge shares are
in :mod:`stecflow.judgments.pipeline`.

The kinds' ``simulate`` hook :func:`simulate_job` runs
:func:`stecflow.judgments.text_simulation.simulate_text_study` on the texts the
study shows.

Which trials enter the measures (``in_analysis``): a test trial joined to the
design, not excluded by a correction, without an import problem, answered
(every criterion missing is ``no_response``); partial sessions stay in unless
``judgments.exclude_partial_sessions``. A trial that cannot be placed in the
design (another study, an unknown list, a trial that is not the design's, a
duplicate) is only a row of the quality table, with file, line and column.

May import: :mod:`stecflow.core`, :mod:`stecflow.stats`, :mod:`stecflow.judgments`;
numpy, pandas and SciPy inside functions.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.judgments._common import JudgmentsError
from stecflow.judgments.importers.text import Criterion, criteria_from_config
from stecflow.judgments.pipeline import (
    correction_paths,
    name_subjects,
    read_response_files,
    release_key,
    sort_problems,
    write_merged,
)
from stecflow.judgments.text_corrections import (
    apply_text_corrections,
    read_text_corrections,
)
from stecflow.judgments.text_exclusions import exclude_by_rules, flag_text_trials
from stecflow.judgments.text_join import (
    join_text_trials,
    read_text_design,
    text_sessions,
)
from stecflow.judgments.text_measures import (
    PREFERENCE_MEASURE_COLUMNS,
    RATING_MEASURE_COLUMNS,
    preference_measures,
    rating_measures,
)
from stecflow.judgments.text_simulation import simulate_text_study
from stecflow.studykinds.base import MergeJob, SimulationJob
from stecflow.studykinds.registry import paired

__all__ = ["judgment_columns", "merge_job", "merge_text_study", "simulate_job"]

logger = logging.getLogger(__name__)

#: Columns of the judgments table before the task's own (:func:`judgment_columns`).
_HEAD = ("subject", "session", "list", "order", "item")
#: Columns after them.
_TAIL = (
    "time_ms",
    "session_status",
    "partial_session",
    "corrected",
    "excluded",
    "in_analysis",
    "exclusion_reason",
    "simulated",
)


def judgment_columns(task: str, criteria: Sequence[Criterion]) -> tuple[str, ...]:
    """Columns of ``results/judgments/<study>.tsv`` of a text study.

    A rating study has ``system``, ``control`` (the kind of a control trial,
    empty for the others) and one column per criterion (its ID); a preference
    study ``system_left``, ``system_right``, ``preferred``, ``winner`` (the
    system preferred, empty for a tie) and ``control``.

    >>> judgment_columns("text_rating", [Criterion("fluency", "likert", 5)])[5:8]
    ('system', 'control', 'fluency')
    """
    if paired(task):
        own: tuple[str, ...] = (
            "system_left",
            "system_right",
            "preferred",
            "winner",
            "control",
        )
    else:
        own = ("system", "control", *(c.id for c in criteria))
    return (*_HEAD, *own, *_TAIL)


def _check_criteria(task: str, criteria: Sequence[Criterion]) -> None:
    taken = set(judgment_columns(task, []))
    for n, criterion in enumerate(criteria):
        if not paired(task) and criterion.id in taken:
            raise JudgmentsError(
                f"criterion {criterion.id!r} has the name of a column of the "
                "judgments table; rename it",
                field=f"criteria[{n}].id",
            )


def merge_text_study(
    design_path: str | Path,
    responses: Sequence[str | Path],
    corrections: str | Path | Sequence[str | Path] | None,
    judgments_path: str | Path,
    quality_path: str | Path,
    measures_path: str | Path,
    summary_path: str | Path,
    *,
    study: Mapping[str, Any],
    settings: Mapping[str, Any] | None = None,
    pseudonym_key: str | None = None,
    exclusions_path: str | Path | None = None,
    sessions_path: str | Path | None = None,
    withdrawals: Sequence[str | Path] = (),
) -> dict[str, Any]:
    """Merge a text study's responses with its design and write its four files.

    Parameters
    ----------
    design_path : path
        ``results/studies/<study>/design.tsv``
        (:func:`~stecflow.judgments.text_join.read_text_design`).
    responses : sequence of paths
        Response files (exports, offline files, simulated files), read in sorted
        order. Empty: the tables are written without rows and the summary says
        ``awaiting_responses``.
    corrections : path or sequence of paths, optional
        Corrections files
        (:func:`~stecflow.judgments.text_corrections.read_text_corrections`),
        applied in order.
    judgments_path, quality_path, measures_path, summary_path : path
        Outputs: :func:`judgment_columns`,
        :data:`~stecflow.judgments._common.QUALITY_COLUMNS`,
        :data:`~stecflow.judgments.text_measures.RATING_MEASURE_COLUMNS` or
        :data:`~stecflow.judgments.text_measures.PREFERENCE_MEASURE_COLUMNS`,
        and the JSON summary.
    study : mapping
        The study's config entry: ``id``, ``task`` (``text_rating`` or
        ``text_preference``), ``criteria`` and ``normalise`` (``z``: every
        criterion gains a ``<criterion>_z`` column of per-rater z-scores,
        :mod:`stecflow.judgments.normalise`) and ``exclusions`` (the rules of
        :mod:`stecflow.judgments.exclusions`; a rule's ``measure`` defaults to
        the first criterion).
    settings : mapping, optional
        The config's ``judgments`` mapping: ``encoding``, ``strict`` and
        ``exclude_partial_sessions`` (default false) are used.
    pseudonym_key : str, optional
        The release key the summary's pseudonyms are keyed with
        (:mod:`stecflow.judgments.public`); default: the study's ID.
    exclusions_path : path, optional
        The audit of the exclusion rules
        (``results/judgments/exclusions/<study>.tsv``,
        :data:`~stecflow.judgments.exclusions.AUDIT_COLUMNS`), written even
        without rules (header only). Every trial of an excluded participant
        stays in the judgments table with ``excluded`` true, ``in_analysis``
        false and ``rule:<name>`` in ``exclusion_reason``.
    sessions_path : path, optional
        The session table (``results/judgments/sessions/<study>.tsv``), for
        rules on questionnaire answers.
    withdrawals : sequence of paths
        The study's withdrawals files (:mod:`stecflow.judgments.withdrawals`):
        the rows of a participant who withdrew are left out of every table;
        the summary counts them (``withdrawals``, ``counts.withdrawn``).

    Returns
    -------
    dict
        The summary written to *summary_path*.

    Raises
    ------
    JudgmentsError
        A file cannot be read as a whole, a correction does not apply, or the
        study's criteria are invalid.
    """
    from stecflow.judgments.importers.text import read_text_responses
    from stecflow.judgments.withdrawals import drop_withdrawn

    config = dict(settings or {})
    encoding = config.get("encoding")
    strict = bool(config.get("strict", False))
    exclude_partial = bool(config.get("exclude_partial_sessions", False))
    study_id = str(study.get("id") or "")
    task = str(study.get("task"))
    criteria = criteria_from_config(study.get("criteria"), task)
    _check_criteria(task, criteria)
    design = read_text_design(design_path, task)
    named = sorted({d["study"] for d in design if d.get("study")})
    if named and named != [study_id]:
        raise JudgmentsError(
            f"the design is of study {', '.join(named)}; expected {study_id}",
            file=str(design_path),
            field="study",
        )

    key = release_key(study_id, pseudonym_key)
    rows, problems, sources = read_response_files(
        responses,
        lambda path: read_text_responses(
            path,
            task=task,
            criteria=criteria,
            study=study_id,
            encoding=encoding,
            strict=strict,
        ),
    )
    rows, problems, withdrawal = drop_withdrawn(rows, problems, withdrawals, key)
    usable = [r for r in rows if r["session"] is not None]
    problems.extend(name_subjects(usable, study_id))
    trials, found = join_text_trials(usable, design, task, study_id)
    problems.extend(found)

    correction_files = correction_paths(corrections)
    report: list[dict[str, Any]] = []
    for path in correction_files:
        applied, found = apply_text_corrections(
            trials,
            read_text_corrections(
                path, task=task, criteria=criteria, encoding=encoding
            ),
            study=study_id,
            source=path,
        )
        report.extend(applied)
        problems.extend(found)

    sessions, found = text_sessions(trials, design, study_id)
    problems.extend(found)
    for t in trials:
        t["partial_session"] = sessions[t["session"]]["partial"]
    problems.extend(flag_text_trials(trials, task, exclude_partial, study_id))
    rules, audit = exclude_by_rules(trials, design, study, criteria, sessions_path)
    if exclusions_path is not None:
        from stecflow.judgments.exclusions import write_audit

        write_audit(audit, exclusions_path)
    trials.sort(key=lambda t: (t["subject"], t["session"], t["order"]))

    columns = judgment_columns(task, criteria)
    table = []
    for t in trials:
        row = {c: t.get(c) for c in columns}
        if not paired(task):
            row.update(t["ratings"])
        table.append(row)
    if not paired(task) and study.get("normalise"):
        from stecflow.judgments.normalise import add_z_scores

        columns += add_z_scores(
            table, [c.id for c in criteria], normalise=study.get("normalise")
        )
    pairs: list[dict[str, Any]] = []
    model: dict[str, Any] | None = None
    if not paired(task):
        measure_rows = rating_measures(table, criteria)
        measure_columns = RATING_MEASURE_COLUMNS
    else:
        measure_rows, pairs, model = preference_measures(table, criteria[0])
        measure_columns = PREFERENCE_MEASURE_COLUMNS

    sort_problems(problems, study_id)
    by_check = Counter(p["check"] for p in problems)
    test_design = [d for d in design if not d["practice"]]
    summary = {
        "study": study_id,
        "task": task,
        "simulated": bool(table) and all(r["simulated"] for r in table),
        "awaiting_responses": not responses,
        "withdrawals": withdrawal,
        "criteria": [
            {
                "id": c.id,
                "scale": c.scale,
                "points": c.points,
                **({"allow_tie": c.allow_tie} if paired(task) else {}),
            }
            for c in criteria
        ],
        "counts": {
            "rows": len(rows),
            "withdrawn": withdrawal["withdrawn"],
            "sessions": len(sessions),
            "subjects": len({i["subject"] for i in sessions.values()}),
            "lists_in_design": len({d["list"] for d in test_design}),
            "lists_run": len({i["list"] for i in sessions.values()}),
            "design_test_trials": len(test_design),
            "trials": len(table),
            "in_analysis": sum(1 for r in table if r["in_analysis"]),
            "excluded": sum(1 for r in table if r["excluded"]),
            "controls": sum(1 for r in table if r.get("control")),
            "corrected": sum(1 for r in table if r["corrected"]),
            "duplicates": by_check.get("duplicate", 0),
            "timeouts": 0,
            "partial_sessions": sum(1 for i in sessions.values() if i["partial"]),
            "missing_trials": sum(i["n_missing"] for i in sessions.values()),
            "simulated_rows": sum(1 for r in table if r["simulated"]),
        },
        "sources": sources,
        "sessions": dict(sorted(sessions.items())),
        "quality": {"by_check": dict(sorted(by_check.items()))},
        "corrections": {
            "files": correction_files,
            "applied": len(report),
            "report": report,
        },
        "measures": measure_rows,
        "settings": {
            "exclude_partial_sessions": exclude_partial,
            "z_scores": "per evaluator and criterion, SD with n - 1 (sliders)",
            **({"preference": model} if model is not None else {}),
        },
    }
    if rules:  # the rules and who they excluded, for the report
        summary["exclusions"] = {
            "rules": rules,
            "excluded_participants": sorted(
                {str(r["participant"]) for r in audit if r["excluded"]}
            ),
            "audit": audit,
        }
    if paired(task):
        summary["pairs"] = pairs
        # how often each side won: a check of position bias (the design
        # counterbalances the sides; a large imbalance is worth a look)
        summary["sides"] = dict(
            sorted(
                Counter(str(r["preferred"]) for r in table if r["in_analysis"]).items()
            )
        )
    summary = write_merged(
        table,
        columns,
        problems,
        measure_rows,
        measure_columns,
        summary,
        key,
        judgments=judgments_path,
        quality=quality_path,
        measures_path=measures_path,
        summary_path=summary_path,
    )
    logger.info(
        "text study %s (%s): %d trial(s), %d in the analysis, %d problem(s)",
        study_id,
        task,
        len(table),
        summary["counts"]["in_analysis"],
        len(problems),
    )
    return summary


def merge_job(job: MergeJob) -> None:
    """The text kinds' ``merge`` hook: :func:`merge_text_study` on a job's files."""
    merge_text_study(
        job.design,
        job.responses,
        list(job.corrections),
        job.judgments,
        job.quality,
        job.measures,
        job.summary,
        study=job.spec,
        settings=job.settings,
        pseudonym_key=job.pseudonym_key,
        exclusions_path=job.exclusions,
        sessions_path=job.sessions,
        withdrawals=list(job.withdrawals),
    )


def simulate_job(job: SimulationJob) -> None:
    """The text kinds' ``simulate`` hook:
    :func:`~stecflow.judgments.text_simulation.simulate_text_study` on the
    texts the study shows (:func:`stecflow.studies.setup.study_outputs`).

    Items without an ``input`` of their own (a REG test set: domains) are
    judged by the rating study's model (:func:`reg_qualities`), so that a
    text rating, a preference and the REG rating study of one campaign rate
    the same latent adequacy and fluency."""
    from stecflow.studies.setup import study_outputs
    from stecflow.tasks.registry import read_testset

    items = read_testset(job.testset)
    shown = study_outputs(job.spec, items, job.submission_dirs, job.tasks)
    domains = any(i.input is None for i in items)
    simulate_text_study(
        job.design,
        job.testset,
        shown,
        job.responses,
        study=job.spec,
        seed=job.seed,
        settings=job.settings,
        inputs={i.id: i.input for i in items} if domains else None,
        qualities=reg_qualities(items, shown) if domains else None,
    )


def reg_qualities(
    items: Sequence[Any], shown: Mapping[str, Mapping[str, str]]
) -> dict[tuple[str, str], Any]:
    """(system, item ID) -> the latent quality of each REG description shown:
    the rating simulator's adequacy and fluency
    (:func:`stecflow.judgments.participant.latent_ratings`) on 0-1, adequacy
    as the ``quality`` (every criterion but a fluency one), fluency as the
    ``fluency`` (:mod:`stecflow.judgments.text_sim`).

    >>> from stecflow.data.model import Domain, Entity, EntityAttribute, Item
    >>> def chair(i, colour):
    ...     a = (EntityAttribute("type", "chair"), EntityAttribute("colour", colour))
    ...     return Entity(f"e{i}", i == 1, a)
    >>> item = Item("t1", Domain((chair(1, "red"), chair(2, "blue"))), "furniture")
    >>> q = reg_qualities([item], {"a/b": {"t1": "the red chair"},
    ...                            "c/d": {"t1": "the chair"}})
    >>> # distinguishing, one attribute beyond the minimal (3 points off);
    >>> # fitting both chairs: 100 x (1/2)^0.7
    >>> q[("a/b", "t1")].quality, round(q[("c/d", "t1")].quality, 4)
    (0.97, 0.6156)
    """
    from stecflow.judgments.lexicon import Lexicon, word_tokens
    from stecflow.judgments.participant import latent_ratings
    from stecflow.judgments.text_sim import OutputQuality

    by_id = {i.id: i for i in items if i.input is None}
    lexicon = Lexicon(by_id[i] for i in sorted(by_id))
    qualities = {}
    for system, texts in sorted(shown.items()):
        for item_id, text in sorted(texts.items()):
            if item_id not in by_id:
                continue
            adequacy, fluency = latent_ratings(text, by_id[item_id], lexicon)
            qualities[(system, item_id)] = OutputQuality(
                coverage=adequacy / 100,
                repetition=0.0,
                fluency=fluency / 100,
                quality=adequacy / 100,
                words=len(word_tokens(text)),
            )
    return qualities

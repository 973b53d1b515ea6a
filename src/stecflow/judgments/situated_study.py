"""The judgments stage of a situated identification study (seed 000 §5).

Owns the two functions the workflow calls for a study of
``task: situated_identification``:

* :func:`merge_situated_study` (rule ``merge_judgments``): reads the response
  files (:func:`stecflow.judgments.importers.situated.read_situated_responses`),
  joins every trial to the design (``design.tsv``: list and instance give the
  class, the expression shown and the target), applies the organisers'
  corrections (:mod:`stecflow.judgments.corrections`: a declared mis-click
  corrected, with its audit row), discards the evaluators whose session failed
  part-way (:func:`stecflow.judgments.situated.discard_failed_sessions`),
  computes seed 000's Tables 7-9
  (:func:`stecflow.judgments.situated.situated_measures`) and re-scores the
  intrinsic evaluation with the FP-system instances the majority identified
  (:func:`stecflow.metrics.classification.rescore_false_positives`, seed §5.4).
  It writes the judgments table (:data:`SITUATED_JUDGMENT_COLUMNS`), the
  data-quality table (:data:`~stecflow.judgments._common.QUALITY_COLUMNS`), the
  measures (:data:`SITUATED_MEASURE_COLUMNS`) and a JSON summary, byte-identical
  on every run (sorted rows, fixed columns, floats through
  :func:`stecflow.core.io.format_float`, NaN as an empty cell / null).
* :func:`simulate_situated_study` (rule ``simulate_responses``): the design
  answered by :func:`stecflow.judgments.situated_sim.simulate_situated`, written
  as a response file the importer reads, every row ``simulated``.

Problems of the data (a bad line, an unknown list or instance, a duplicate trial,
a trial that is not the design's, a discarded evaluator, a corrected answer) are
rows of the quality table; the rest of the data is kept.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.metrics`,
:mod:`stecflow.studies` (inside functions), :mod:`stecflow.judgments`; pandas
inside functions.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.judgments._common import (
    CHECKS,
    QUALITY_COLUMNS,
    JudgmentsError,
    plain,
    problem,
)
from stecflow.judgments.situated import (
    CLASSES,
    DISCARD_COLUMNS,
    IDENTIFICATION_COLUMNS,
    INSTANCE_COLUMNS,
    MAJORITY_RULES,
    REPLAY_COLUMNS,
    SCOPES,
    TIME_COLUMNS,
)
from stecflow.studykinds.base import MergeJob, SimulationJob

__all__ = [
    "COMPLETE_STATUSES",
    "SITUATED_JUDGMENT_COLUMNS",
    "SITUATED_MEASURE_COLUMNS",
    "merge_job",
    "merge_situated_study",
    "read_situated_design",
    "simulate_job",
    "simulate_situated_study",
]

logger = logging.getLogger(__name__)

#: Columns of ``results/judgments/<study>.tsv`` for a situated study.
SITUATED_JUDGMENT_COLUMNS = (
    "subject",
    "list",
    "order",
    "instance",
    "class",
    "shown",
    "expression",
    "target",
    "chosen",
    "correct",
    "cant_tell",
    "time_ms",
    "replays",
    "corrected",
    "session_status",
    "simulated",
)

#: Columns of ``results/judgments/measures/<study>.tsv``: one row per class.
SITUATED_MEASURE_COLUMNS = (
    "class",
    "n_evaluators",
    "n_responses",
    "n_correct",
    "n_cant_tell",
    "ir",
    "n_instances",
    "n_majority",
    "mir",
    "agreement_mean",
    "agreement_sd",
    "agreement_n",
    "it_n",
    "it_mean_ms",
    "it_sd_ms",
    "it_correct_n",
    "it_correct_mean_ms",
    "it_correct_sd_ms",
    "n_corrected_excluded",
    "replays_mean",
    "replays_sd",
    "n_replayed",
)

#: Session statuses of a session that ran to its end: the server's
#: ``completed``; the page saves an ``offline`` file only at the end, so an
#: offline session is complete unless trials are missing.
COMPLETE_STATUSES = ("completed", "offline")

_TASK = "situated_identification"
_DESIGN_NEEDED = ("study", "list", "order", "item", "condition", "shown", "target")


# ----------------------------------------------------------------------- inputs


def read_situated_design(path: str | Path) -> Any:
    """Read ``design.tsv`` of a situated study as a DataFrame.

    Parameters
    ----------
    path : path
        The design (columns
        :data:`~stecflow.studies.designs.situated.SITUATED_TRIAL_COLUMNS`; at
        least ``study, list, order, item, condition, shown, target``).

    Returns
    -------
    pandas.DataFrame
        Strings, ``order`` as int, ``practice`` and ``filler`` as bool.

    Raises
    ------
    JudgmentsError
        A column is missing, a condition is not a situated class, or an order is
        not a whole number (file, line, column).
    """
    import pandas as pd

    from stecflow.core.io import read_tsv

    source = str(path)
    try:
        rows = read_tsv(path)
    except OSError as exc:
        raise JudgmentsError(
            f"cannot read the design ({exc.strerror})", file=source
        ) from None
    columns = list(rows[0]) if rows else []
    if rows:
        missing = [c for c in _DESIGN_NEEDED if c not in columns]
        if missing:
            raise JudgmentsError(
                f"missing column(s) {', '.join(missing)}; expected the situated "
                "design's columns (SITUATED_TRIAL_COLUMNS)",
                file=source,
                line=1,
                field=missing[0],
            )
    for line, row in enumerate(rows, start=2):
        if row["condition"] not in CLASSES:
            raise JudgmentsError(
                f"condition {row['condition']!r}; expected one of "
                + ", ".join(CLASSES),
                file=source,
                line=line,
                field="condition",
            )
        try:
            row["order"] = int(row["order"])
        except ValueError:
            raise JudgmentsError(
                f"order {row['order']!r}; expected a whole number",
                file=source,
                line=line,
                field="order",
            ) from None
        for flag in ("practice", "filler"):
            row[flag] = row.get(flag, "") == "true"
    frame = pd.DataFrame(rows, columns=columns or list(_DESIGN_NEEDED))
    return frame


def _test_trials(design: Any) -> Any:
    """The design without practice trials (they are not situated instances)."""
    if "practice" not in design.columns or not len(design):
        return design
    return design[~design["practice"].astype(bool)].reset_index(drop=True)


def _read_settings(path: str | Path) -> dict[str, Any]:
    from stecflow.core.io import read_json

    try:
        data = read_json(path)
    except OSError as exc:
        raise JudgmentsError(
            f"cannot read design.json ({exc.strerror})", file=str(path)
        ) from None
    except ValueError as exc:
        raise JudgmentsError(f"not JSON ({exc})", file=str(path)) from None
    if not isinstance(data, dict):
        raise JudgmentsError("expected a JSON object", file=str(path))
    return data


def _majority(settings: Mapping[str, Any], path: str) -> str:
    rule = settings.get("majority") or "strict"
    if rule not in MAJORITY_RULES:
        raise JudgmentsError(
            f"majority {rule!r}; expected one of {', '.join(MAJORITY_RULES)}",
            file=path,
            field="majority",
        )
    return str(rule)


def _scopes(settings: Mapping[str, Any], path: str) -> list[str]:
    scopes = settings.get("time_scope") or list(SCOPES)
    if isinstance(scopes, str):
        scopes = [scopes]
    bad = [s for s in scopes if s not in SCOPES]
    if bad:
        raise JudgmentsError(
            f"time_scope {bad[0]!r}; expected {', '.join(SCOPES)}",
            file=path,
            field="time_scope",
        )
    return [s for s in SCOPES if s in scopes]


# ----------------------------------------------------------------------- merge


def _where(row: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "source_file": row.get("source_file"),
        "source_line": row.get("source_line"),
        "session": row.get("session"),
        "list_id": row.get("list"),
        "order": row.get("order"),
        "item": row.get("item"),
        "system": row.get("system"),
    }


def _subjects(rows: Sequence[dict[str, Any]], study: str) -> list[dict[str, Any]]:
    """Name each row's evaluator: the participant, or the session without one.

    A participant with several sessions is ``participant/session`` in each.
    """
    sessions_of: dict[str, set[str]] = {}
    for row in rows:
        if row["participant"] is not None:
            sessions_of.setdefault(row["participant"], set()).add(row["session"])
    found = []
    for participant, sessions in sorted(sessions_of.items()):
        if len(sessions) > 1:
            found.append(
                problem(
                    "subject_multiple_sessions",
                    f"participant {participant} has {len(sessions)} sessions "
                    f"({', '.join(sorted(sessions))}); each is an evaluator of its "
                    "own",
                    study=study,
                    subject=participant,
                )
            )
    for row in rows:
        who = row["participant"]
        if who is None:
            row["subject"] = row["session"]
        elif len(sessions_of[who]) > 1:
            row["subject"] = f"{who}/{row['session']}"
        else:
            row["subject"] = who
    return found


def _join(
    rows: Sequence[dict[str, Any]], design: Any, study: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Join the imported rows to the design; (trials, problems)."""
    lists = set(design["list"])
    records = design.to_dict("records")
    by_key = {(r["list"], r["item"]): r for r in records}
    # the offline page knows no instance (stecflow.studies.blinding): its rows
    # name the trial by list and order
    by_order = {(r["list"], int(r["order"])): r for r in records}
    trials: list[dict[str, Any]] = []
    problems: list[dict[str, Any]] = []
    seen: dict[tuple[str, str, str], dict[str, Any]] = {}
    for row in rows:
        where = _where(row)
        if row["practice"] or row["filler"]:
            continue
        if row["study"] is not None and row["study"] != study:
            problems.append(
                problem(
                    "other_study",
                    f"study {row['study']!r}; expected {study}",
                    study=study,
                    field="study",
                    **where,
                )
            )
            continue
        if row["item"] is None and row["order"] is not None and row["list"] in lists:
            shown = by_order.get((row["list"], int(row["order"])))
            if shown is None:
                problems.append(
                    problem(
                        "not_in_design",
                        f"list {row['list']} has no trial {row['order']}",
                        study=study,
                        field="order",
                        **where,
                    )
                )
                continue
            row["item"] = shown["item"]
        if row["session"] is None or row["list"] is None or row["item"] is None:
            continue  # reported by the importer (import_problem)
        if row["list"] not in lists:
            problems.append(
                problem(
                    "unknown_list",
                    f"list {row['list']!r} is not in the design ({len(lists)} lists)",
                    study=study,
                    field="list",
                    **where,
                )
            )
            continue
        design_row = by_key.get((row["list"], row["item"]))
        if design_row is None:
            problems.append(
                problem(
                    "not_in_design",
                    f"instance {row['item']!r} is not a trial of list {row['list']}",
                    study=study,
                    field="instance",
                    **where,
                )
            )
            continue
        if row["order"] is not None and row["order"] != design_row["order"]:
            problems.append(
                problem(
                    "design_mismatch",
                    f"order {row['order']}; the design shows {row['item']} at "
                    f"order {design_row['order']} of list {row['list']}",
                    study=study,
                    field="order",
                    **where,
                )
            )
            continue
        key = (row["session"], row["list"], row["item"])
        if key in seen:
            first = seen[key]
            problems.append(
                problem(
                    "duplicate",
                    f"instance {row['item']} answered again in session "
                    f"{row['session']} (first on line {first['source_line']} of "
                    f"{first['source_file']}); the first answer is kept",
                    study=study,
                    field="instance",
                    **where,
                )
            )
            continue
        seen[key] = row
        target = str(design_row["target"])
        if row["target_entity"] is not None and row["target_entity"] != target:
            problems.append(
                problem(
                    "target_mismatch",
                    f"target {row['target_entity']!r} in the file; the design's "
                    f"is {target!r} (the design's is used)",
                    study=study,
                    field="target_entity",
                    **where,
                )
            )
        cant_tell = bool(row["cant_tell"])
        chosen = None if cant_tell else row["chosen_entity"]
        if chosen is None and not cant_tell:
            problems.append(
                problem(
                    "no_response",
                    "neither a piece (chosen_entity) nor cant_tell; expected one",
                    study=study,
                    field="chosen_entity",
                    **where,
                )
            )
            continue
        correct = chosen is not None and chosen == target
        if row["correct"] is not None and bool(row["correct"]) != correct:
            problems.append(
                problem(
                    "correct_mismatch",
                    f"correct {str(bool(row['correct'])).lower()} in the file; "
                    f"{chosen or 'I do not know'} against target {target} is "
                    f"{str(correct).lower()} (recomputed)",
                    study=study,
                    field="correct",
                    **where,
                )
            )
        time_ms = row["time_ms"]
        trials.append(
            {
                "subject": row["subject"],
                "session": row["session"],
                "participant": row["participant"],
                "list": row["list"],
                "order": int(design_row["order"]),
                "item": row["item"],
                "system": design_row.get("system"),
                "class": design_row["condition"],
                "shown": design_row["shown"],
                "expression": design_row.get("expression"),
                "target_entity": target,
                "chosen_entity": chosen,
                "correct": correct,
                "cant_tell": cant_tell,
                "timeout": False,
                "time_ms": math.nan if time_ms is None else float(time_ms),
                "replays": math.nan if row["replays"] is None else row["replays"],
                "session_status": row["session_status"],
                "simulated": bool(row["simulated"]),
                "corrected": bool(row["corrected"]),
                "corrected_fields": None,
                "original_values": None,
                "correction_reason": None,
                "duplicate": False,
                "excluded": False,
                "exclusion_reason": None,
                "source_file": row["source_file"],
                "source_line": row["source_line"],
            }
        )
    return trials, problems


def _missing_trials(discarded: Any, design: Any) -> int:
    """Trials the discarded evaluators' lists have and their sessions lack."""
    if not len(discarded):
        return 0
    expected = design.groupby("list").size().to_dict()
    return sum(
        max(0, int(expected.get(r["list"], 0)) - int(r["n_trials"]))
        for r in discarded.to_dict("records")
    )


def _exclusions(
    kept: Any,
    design: Any,
    study: str,
    exclusions: Sequence[Mapping[str, Any]] | None,
    sessions_path: str | Path | None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The study's exclusion rules evaluated per evaluator: (rules, audit).

    The audit names an evaluator by ``subject`` (the ID every situated table
    uses), the time rule reads ``time_ms`` and ``incomplete`` counts the design's
    test trials of the evaluator's list.
    """
    from stecflow.judgments.exclusions import check_rules, exclusion_audit

    rules = check_rules(exclusions, study)
    if not rules:
        return [], []
    for n, rule in enumerate(rules):
        if "controls_below" in rule:
            raise JudgmentsError(
                "a situated study has no control trials; use median_time_below_ms,"
                " incomplete or answer rules",
                field=f"studies[{study}].exclusions[{n}]",
            )
    sizes = design.groupby("list").size() if len(design) else {}
    session_rows: list[dict[str, Any]] = []
    if sessions_path is not None and Path(sessions_path).is_file():
        from stecflow.core.io import read_tsv

        session_rows = list(read_tsv(sessions_path))
    rows = [
        {
            "session": r["session"],
            "participant": r["subject"],
            "list": r["list"],
            "practice": False,
            "rt_ms": _number(r["time_ms"]),
        }
        for r in kept.to_dict("records")
    ]
    audit = exclusion_audit(
        rows,
        rules,
        list_sizes={str(k): int(v) for k, v in dict(sizes).items()},
        sessions=session_rows,
    )
    return rules, audit


def _discard(
    trials: Any, design: Any, study: str
) -> tuple[Any, Any, list[dict[str, Any]]]:
    """Discard, list by list, the evaluators whose session failed or is short."""
    import pandas as pd

    from stecflow.judgments.situated import discard_failed_sessions

    expected = design.groupby("list").size().to_dict()
    kept_parts, gone_parts = [], []
    for list_id in sorted(set(trials["list"])):
        part = trials[trials["list"] == list_id]
        kept, gone = discard_failed_sessions(
            part,
            complete=COMPLETE_STATUSES,
            expected_trials=int(expected[list_id]),
        )
        kept_parts.append(kept)
        gone_parts.append(gone.assign(list=list_id))
    kept = pd.concat(kept_parts, ignore_index=True) if kept_parts else trials.iloc[:0]
    columns = [*DISCARD_COLUMNS, "list"]
    gone = (
        pd.concat(gone_parts, ignore_index=True)
        if gone_parts
        else pd.DataFrame(columns=columns)
    )
    gone = gone[columns].sort_values("subject", kind="stable").reset_index(drop=True)
    problems = []
    for record in gone.to_dict("records"):
        sessions = sorted(
            set(trials.loc[trials["subject"] == record["subject"], "session"])
        )
        problems.append(
            problem(
                "partial_session",
                f"evaluator {record['subject']} discarded: {record['reason']}",
                study=study,
                session=", ".join(sessions) or None,
                subject=record["subject"],
                list_id=record["list"],
            )
        )
    return kept, gone, problems


def _quality_key(row: Mapping[str, Any]) -> tuple[Any, ...]:
    order = row.get("order")
    return (
        row.get("source_file") or "~",
        row.get("source_line") if row.get("source_line") is not None else 1 << 30,
        row.get("subject") or "~",
        row.get("list") or "~",
        row.get("session") or "~",
        order if order is not None else 1 << 30,
        list(CHECKS).index(row["check"]),
        row.get("detail") or "",
    )


def _records(frame: Any, columns: Sequence[str]) -> list[dict[str, Any]]:
    out = []
    for row in frame.to_dict("records"):
        out.append({c: plain(row.get(c)) for c in columns})
    return out


def _number(value: Any) -> Any:
    value = plain(value)
    if isinstance(value, float) and value.is_integer() and not isinstance(value, bool):
        return int(value)
    return value


def _measure_rows(measures: Any) -> list[dict[str, Any]]:
    rows = []
    times = measures.times
    replays = measures.replays
    for ident in measures.identification.to_dict("records"):
        cls = ident["class"]
        row = {c: plain(ident[c]) for c in IDENTIFICATION_COLUMNS}
        for scope, prefix in (("all", "it"), ("correct", "it_correct")):
            t = times[(times["class"] == cls) & (times["scope"] == scope)]
            record = t.iloc[0] if len(t) else None
            row[f"{prefix}_n"] = None if record is None else plain(record["it_n"])
            row[f"{prefix}_mean_ms"] = (
                None if record is None else plain(record["it_mean_ms"])
            )
            row[f"{prefix}_sd_ms"] = (
                None if record is None else plain(record["it_sd_ms"])
            )
            if scope == "all":
                row["n_corrected_excluded"] = (
                    None if record is None else plain(record["n_corrected_excluded"])
                )
        r = replays[(replays["class"] == cls) & (replays["scope"] == "all")]
        record = r.iloc[0] if len(r) else None
        for column in ("replays_mean", "replays_sd", "n_replayed"):
            row[column] = None if record is None else plain(record[column])
        rows.append({c: row.get(c) for c in SITUATED_MEASURE_COLUMNS})
    return rows


def _rescored(
    intrinsic: Mapping[str, Any] | None,
    tested: int,
    identified: int,
    instances: Any,
    source: str,
) -> dict[str, Any] | None:
    from stecflow.metrics.classification import (
        ConfusionMatrix,
        rescore_false_positives,
    )

    if not intrinsic:
        return None
    try:
        matrix = ConfusionMatrix(*(int(intrinsic[k]) for k in ("tp", "fp", "fn", "tn")))
        result = rescore_false_positives(matrix, tested=tested, identified=identified)
    except (KeyError, TypeError, ValueError) as exc:
        raise JudgmentsError(
            f"cannot re-score the intrinsic evaluation: {exc}",
            file=source,
            field="intrinsic",
        ) from None
    fp = instances[instances["class"] == "FP-system"] if len(instances) else instances
    return {
        "original": {
            **matrix.as_dict(),
        },
        "precision": result.precision,
        "recall": result.recall,
        "f": result.f,
        "credited": result.credited,
        "untested": result.untested,
        "fp_tested": result.fp_tested,
        "fp_identified": result.fp_identified,
        "instances_tested": sorted(str(i) for i in fp["instance"]) if len(fp) else [],
        "instances_identified": sorted(
            str(i)
            for i, ok in zip(fp["instance"], fp["majority_identified"], strict=True)
            if ok
        )
        if len(fp)
        else [],
        "rows": [{k: plain(v) for k, v in r.items()} for r in result.rows()],
    }


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
        Outputs (:data:`SITUATED_JUDGMENT_COLUMNS`,
        :data:`~stecflow.judgments._common.QUALITY_COLUMNS`,
        :data:`SITUATED_MEASURE_COLUMNS`, the JSON summary).
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

    from stecflow.core.io import write_json, write_tsv
    from stecflow.judgments.corrections import apply_corrections, read_corrections
    from stecflow.judgments.importers.situated import read_situated_responses
    from stecflow.judgments.situated import situated_measures
    from stecflow.judgments.withdrawals import drop_withdrawn

    config = dict(settings or {})
    encoding = config.get("encoding")
    strict = bool(config.get("strict", False))
    design = read_situated_design(design_path)
    design_json = _read_settings(settings_path)
    majority = _majority(design_json, str(settings_path))
    scopes = _scopes(design_json, str(settings_path))
    studies = sorted({s for s in design["study"] if s}) if len(design) else []
    study = studies[0] if len(studies) == 1 else design_json.get("study")
    if not study:
        raise JudgmentsError(
            "the design's study column does not name one study",
            file=str(design_path),
            field="study",
        )
    study = str(study)
    design = _test_trials(design)

    rows: list[dict[str, Any]] = []
    problems: list[dict[str, Any]] = []
    sources = []
    for path in sorted(str(p) for p in responses):
        result = read_situated_responses(
            path, study=study, encoding=encoding, strict=strict
        )
        rows.extend(result.rows)
        problems.extend(result.problems)
        sources.append(
            {"file": path, "format": result.source_format, "rows": len(result.rows)}
        )
    rows, problems, withdrawal = drop_withdrawn(
        rows, problems, withdrawals, study if pseudonym_key is None else pseudonym_key
    )
    usable = [r for r in rows if r["session"] is not None]
    problems.extend(_subjects(usable, study))
    joined, found = _join(usable, design, study)
    problems.extend(found)
    frame = pd.DataFrame(joined, columns=_TRIAL_FIELDS, dtype=object)

    report: list[dict[str, Any]] = []
    if corrections is None:
        correction_files: list[str] = []
    elif isinstance(corrections, str | Path):
        correction_files = [str(corrections)]
    else:  # a Snakemake input function may give a list, possibly empty
        correction_files = [str(p) for p in corrections]
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
        kept, discarded, found = _discard(frame, design, study)
        problems.extend(found)
        kept = kept[~kept["excluded"].astype(bool)]
    else:
        kept = frame
        discarded = pd.DataFrame(columns=[*DISCARD_COLUMNS, "list"])
    kept = kept.sort_values(["subject", "order"], kind="stable").reset_index(drop=True)
    rules, audit = _exclusions(kept, design, study, exclusions, sessions_path)
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
            kept[list(_MEASURE_INPUT)].rename(columns=_MEASURE_INPUT),
            majority=majority,
            scopes=scopes,
            complete=statuses,
        )
        identification = measures.identification
        times, replays = measures.times, measures.replays
        instances = measures.instances
        tested, identified = measures.fp_rescoring_counts()
        measure_rows = _measure_rows(measures)
    else:
        identification = pd.DataFrame(columns=list(IDENTIFICATION_COLUMNS))
        times = pd.DataFrame(columns=list(TIME_COLUMNS))
        replays = pd.DataFrame(columns=list(REPLAY_COLUMNS))
        instances = pd.DataFrame(columns=list(INSTANCE_COLUMNS))
        tested = identified = 0
        measure_rows = []

    awaiting = not responses
    for p in problems:
        p["study"] = p.get("study") or study
    problems.sort(key=_quality_key)
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
            "time_ms": _number(r["time_ms"]),
            "replays": _number(r["replays"]),
            "corrected": bool(r["corrected"]),
            "session_status": plain(r["session_status"]),
            "simulated": bool(r["simulated"]),
        }
        for r in kept.to_dict("records")
    ]
    counts = design_json.get("counts") or {}
    summary = {
        "study": study,
        "task": _TASK,
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
            "missing_trials": _missing_trials(discarded, design),
        },
        "sources": sources,
        "discarded": _records(discarded, DISCARD_COLUMNS),
        "corrections": [{k: plain(v) for k, v in r.items()} for r in report],
        "identification": _records(identification, IDENTIFICATION_COLUMNS),
        "time": _records(times, TIME_COLUMNS),
        "replays": _records(replays, REPLAY_COLUMNS),
        "instances": _records(instances, INSTANCE_COLUMNS),
        "design": {
            "counts": counts,
            "allocation": design_json.get("allocation", []),
            "qualification": design_json.get("qualification", {}),
            "halves": _halves(design_json),
        },
        "intrinsic": design_json.get("intrinsic"),
        "rescored": None
        if awaiting
        else _rescored(
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
    write_tsv(judgment_rows, SITUATED_JUDGMENT_COLUMNS, judgments_path)
    from stecflow.judgments.public import public_quality

    # the same pseudonyms as the summary (released and reported as it is)
    write_tsv(
        public_quality(
            problems,
            study if pseudonym_key is None else str(pseudonym_key),
            judgment_rows,
        ),
        QUALITY_COLUMNS,
        quality_path,
    )
    write_tsv(measure_rows, SITUATED_MEASURE_COLUMNS, measures_path)
    from stecflow.judgments.public import public_summary

    # no raw participant or session ID, no absolute path (released as it is)
    summary = public_summary(
        summary, study if pseudonym_key is None else str(pseudonym_key)
    )
    write_json(summary, summary_path)
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


_TRIAL_FIELDS = (
    "subject",
    "session",
    "participant",
    "list",
    "order",
    "item",
    "system",
    "class",
    "shown",
    "expression",
    "target_entity",
    "chosen_entity",
    "correct",
    "cant_tell",
    "timeout",
    "time_ms",
    "replays",
    "session_status",
    "simulated",
    "corrected",
    "corrected_fields",
    "original_values",
    "correction_reason",
    "duplicate",
    "excluded",
    "exclusion_reason",
    "source_file",
    "source_line",
)

_MEASURE_INPUT = {
    "subject": "subject",
    "item": "instance",
    "class": "class",
    "chosen_entity": "chosen",
    "target_entity": "target",
    "correct": "correct",
    "cant_tell": "cant_tell",
    "time_ms": "time_ms",
    "replays": "replays",
    "corrected": "corrected",
    "session_status": "session_status",
}


def _halves(design_json: Mapping[str, Any]) -> Any:
    if "halves" in design_json:
        return design_json["halves"]
    sets = design_json.get("item_sets") or {}
    return {k: sets[k] for k in ("A", "B") if k in sets}


# -------------------------------------------------------------------- simulation


def simulate_situated_study(
    design_path: str | Path,
    testset_path: str | Path,
    out_path: str | Path,
    *,
    seed: int,
    settings: Mapping[str, Any] | None = None,
) -> int:
    """Answer a situated design with simulated evaluators and write a response file.

    One simulated evaluator per list (``sim-<list>``, as participant and
    session) answers the list's trials
    (:func:`stecflow.judgments.situated_sim.simulate_situated`). The file has
    the columns of a situated export
    (:func:`~stecflow.judgments.importers.situated.situated_response_columns`)
    and then ``simulated`` (true in every row) and ``corrected`` (a declared
    mis-click whose answer was corrected); ``time_ms``,
    ``identification_time_ms`` and ``rt_ms`` hold the identification time,
    ``plays`` is ``replays + 1``, ``answer_via`` is ``board`` or ``dont_know``.

    Parameters
    ----------
    design_path : path
        ``results/studies/<study>/design.tsv``; a ``design.json`` beside it
        gives ``max_context_ms`` (default 30000).
    testset_path : path
        The corpus folder or ``results/data/testset.json``
        (:func:`stecflow.data.dialogue.read_sessions`).
    out_path : path
        The TSV to write (``results/judgments/simulated/<study>.tsv``).
    seed : int
        The study seed.
    settings : mapping, optional
        The config's ``judgments.simulation`` mapping; the keys
        :class:`~stecflow.judgments.situated_sim.SituatedSimulationSettings`
        has are used (the REG simulator's keys and ``seed`` are left to it).

    Returns
    -------
    int
        The number of rows written.
    """
    from dataclasses import fields

    from stecflow.core.io import write_tsv
    from stecflow.data.dialogue import read_sessions
    from stecflow.judgments.importers.situated import situated_response_columns
    from stecflow.judgments.situated_sim import (
        SituatedSimulationSettings,
        simulate_situated,
    )

    design = read_situated_design(design_path)
    beside = Path(design_path).with_name("design.json")
    design_json = _read_settings(beside) if beside.is_file() else {}
    max_context_ms = int(design_json.get("max_context_ms") or 30_000)
    known = {f.name for f in fields(SituatedSimulationSettings)}
    config = SituatedSimulationSettings.from_mapping(
        {k: v for k, v in dict(settings or {}).items() if k in known}
    )
    sessions = read_sessions(testset_path)
    dialogue_of = {e.id: s.id for s in sessions for _, e in s.expressions()}
    test = _test_trials(design)
    studies = sorted({s for s in test["study"] if s})
    study = studies[0] if len(studies) == 1 else "study"
    answers = simulate_situated(
        test,
        sessions,
        seed=seed,
        settings=config,
        study=study,
        max_context_ms=max_context_ms,
    )
    by_key = {(r["list"], r["item"]): r for r in test.to_dict("records")}
    rows = []
    for a in answers.to_dict("records"):
        list_id = str(a["subject"])[len("sim-") :]
        d = by_key[(list_id, a["instance"])]
        time_ms = a["time_ms"]
        rows.append(
            {
                "study": study,
                "task": _TASK,
                "variant": None,
                "session": a["subject"],
                "participant": a["subject"],
                "session_status": a["session_status"],
                "list": list_id,
                "order": int(d["order"]),
                "item": a["instance"],
                "system": d.get("system"),
                "subdomain": d.get("subdomain") or None,
                "practice": False,
                "filler": False,
                "chosen_entity": a["chosen"],
                "target_entity": a["target"],
                "correct": bool(a["correct"]),
                "cant_tell": bool(a["cant_tell"]),
                "timeout": False,
                "identification_time_ms": time_ms,
                "rt_ms": time_ms,
                "instance": a["instance"],
                "dialogue": dialogue_of.get(str(a["instance"])),
                "expression": a["instance"],
                "time_ms": time_ms,
                "plays": int(a["replays"]) + 1,
                "replays": int(a["replays"]),
                "answer_via": "dont_know" if a["cant_tell"] else "board",
                "simulated": True,
                "corrected": bool(a["corrected"]),
            }
        )
    rows.sort(key=lambda r: (r["list"], r["order"]))
    columns = (*situated_response_columns(), "simulated", "corrected")
    write_tsv(rows, columns, out_path)
    logger.info("study %s: %d SIMULATED situated trial(s) written", study, len(rows))
    return len(rows)


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
    """The kind's ``simulate`` hook: :func:`simulate_situated_study`."""
    simulate_situated_study(
        job.design, job.testset, job.responses, seed=job.seed, settings=job.settings
    )

"""The campaign's validation summary (``validation/summary.tsv``) and corrections.

One row per submission with its status, lateness and first problem
(:func:`summarise_validation`, the ``summarise_validation`` rule), and which
submission supersedes which (:func:`superseding`).

May import: :mod:`stecflow.core`, :mod:`stecflow.submissions`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.core.io import read_json, write_json_lines, write_tsv
from stecflow.tasks.base import Problem

__all__ = ["summarise_validation", "superseding", "SUMMARY_COLUMNS"]


def superseding(records: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], str]:
    """``(team, system)`` -> the system(s) of the team that supersede it.

    Read from the validation records' ``supersedes`` (set only when it names
    another system folder of the team); several are joined with ``,``.

    >>> superseding([{"team": "is", "system": "fbs-2", "supersedes": "fbs"},
    ...              {"team": "is", "system": "fbs"}])
    {('is', 'fbs'): 'fbs-2'}
    """
    found = _supersession(records)
    return {key: ",".join(systems) for key, systems in found.superseded.items()}


def _logger() -> Any:
    import logging

    return logging.getLogger(__name__)


def _supersession(records: Iterable[Mapping[str, Any]]) -> Any:
    """The records' ``supersedes`` read together (cycles and forks found)."""
    from stecflow.submissions.supersession import supersession

    return supersession(
        {(r["team"], r["system"]): r.get("supersedes") for r in records}
    )


def _campaign_problems(
    records: Sequence[Mapping[str, Any]],
) -> dict[tuple[str, str], list[Problem]]:
    """``(team, system)`` -> the problems only the records read together show:
    :func:`_supersession_problems`, then two primary systems of one team,
    team or system folder names equal but for case, and byte-identical outputs
    files of two submissions (warnings)."""
    out = _supersession_problems(records)

    def warn(key: tuple[str, str], code: str, message: str, field: Any) -> None:
        out.setdefault(key, []).append(
            Problem(
                code,
                message,
                f"{key[0]}/{key[1]}/system.yaml" if field else f"{key[0]}/{key[1]}",
                None,
                field,
                severity="warning",
            )
        )

    by_team: dict[str, list[Mapping[str, Any]]] = {}
    for record in records:
        by_team.setdefault(record["team"], []).append(record)
    for team, team_records in sorted(by_team.items()):
        primary = sorted(r["system"] for r in team_records if r.get("primary"))
        if len(primary) > 1:
            files = ", ".join(f"{team}/{s}/system.yaml" for s in primary)
            for system in primary:
                warn(
                    (team, system),
                    "several_primary",
                    f"team {team} marks {len(primary)} systems primary: true"
                    f" ({files}); a team has one primary system, the one it"
                    " ranks by: set primary: false in the others",
                    "primary",
                )
    clash = (
        " differ only in upper and lower case: on a file system that ignores"
        " case (macOS, Windows) their files in the release archive land in one"
        " folder, one team's overwriting the other's; rename one of them"
    )
    folded: dict[str, set[str]] = {}
    for team in by_team:
        folded.setdefault(team.casefold(), set()).add(team)
    for names in folded.values():
        if len(names) > 1:
            said = " and ".join(sorted(names))
            for team in sorted(names):
                for record in by_team[team]:
                    warn(
                        (team, record["system"]),
                        "case_clash",
                        f"the team folders {said}{clash}",
                        None,
                    )
    for team, team_records in sorted(by_team.items()):
        systems: dict[str, set[str]] = {}
        for record in team_records:
            systems.setdefault(record["system"].casefold(), set()).add(record["system"])
        for names in systems.values():
            if len(names) > 1:
                said = " and ".join(f"{team}/{n}" for n in sorted(names))
                for system in sorted(names):
                    warn(
                        (team, system),
                        "case_clash",
                        f"the system folders {said}{clash}",
                        None,
                    )
    # the same outputs file twice: a late resubmission of a system already in
    # (without supersedes), or a file sent into the wrong folder
    by_outputs: dict[tuple[tuple[str, str], ...], list[tuple[str, str]]] = {}
    for record in records:
        outputs = tuple(
            sorted(
                (name, digest)
                for name, digest in (record.get("checksums") or {}).items()
                if name != "system.yaml" and digest
            )
        )
        if outputs:
            key = (record["team"], record["system"])
            by_outputs.setdefault(outputs, []).append(key)
    for same in by_outputs.values():
        if len(same) < 2:
            continue
        for key in sorted(same):
            late = {(r["team"], r["system"]) for r in records if r.get("late")}
            others = ", ".join(f"{t}/{s}" for t, s in sorted(same) if (t, s) != key)
            warn(
                key,
                "identical_outputs",
                f"the outputs are byte for byte those of {others}"
                + (" (this one is late)" if key in late else "")
                + ": the same file submitted twice? If this system corrects"
                " another, say so with supersedes in system.yaml; otherwise send"
                " this system's own outputs",
                None,
            )
    return out


def _supersession_problems(
    records: Sequence[Mapping[str, Any]],
) -> dict[tuple[str, str], list[Problem]]:
    """``(team, system)`` -> the problems of its ``supersedes`` key read with
    those of the other systems: a cycle (an error of every system in it) and a
    fork (a warning of each system superseding the same one)."""
    found = _supersession(records)
    out: dict[tuple[str, str], list[Problem]] = {}
    for team, systems in found.cycles:
        message = found.cycle_message(team, systems)
        for system in systems:
            out.setdefault((team, system), []).append(
                Problem(
                    "supersedes_cycle",
                    message,
                    f"{team}/{system}/system.yaml",
                    None,
                    "supersedes",
                )
            )
    for (team, earlier), systems in found.forks.items():
        message = found.fork_message(team, earlier)
        for system in systems:
            out.setdefault((team, system), []).append(
                Problem(
                    "supersedes_fork",
                    message,
                    f"{team}/{system}/system.yaml",
                    None,
                    "supersedes",
                    severity="warning",
                )
            )
    return out


#: Columns of ``results/validation/summary.tsv``.
SUMMARY_COLUMNS = (
    "team",
    "system",
    "status",
    "late",
    "reference",
    "primary",
    "supersedes",
    "superseded_by",
    "tasks",
    "n_outputs",
    "n_items",
    "n_errors",
    "n_warnings",
    "first_error",
)


def summarise_validation(
    record_paths: Sequence[str | Path],
    discovery_problems: Sequence[Sequence[str]],
    tsv_path: str | Path,
    records_path: str | Path | None = None,
) -> list[dict[str, Any]]:
    """Collect every validation record into one table, one row per submission.

    With *records_path* (``validation/records.jsonl``), also write the records
    themselves there, one a line in the order of *record_paths*: the stages that
    read every record (the report) read that one file, so that Snakemake tracks
    one input for them instead of one per submission.

    Folders that discovery could not take as submissions get a row with status
    ``unreadable`` and the reason, so nothing in ``submissions/`` goes unmentioned.
    A system that a later one of its team names in ``supersedes`` gets that
    system's ID in ``superseded_by`` (it leaves the ranking and the statistics).

    The ``supersedes`` keys are read together
    (:mod:`stecflow.submissions.supersession`): the systems of a cycle get an
    error naming every file of it (first, so that ``first_error`` shows it) and
    none of them counts as superseded, so the team stays in the statistics; the
    systems superseding the same one get a warning. So do the systems of a team
    that marks several of them ``primary: true``, and the submissions of team
    (or system) folders whose names differ only in case (``Team-Q`` and
    ``team-q``, one folder on macOS and Windows). All are added to the records
    written to *records_path* (the report's input) and logged; the statuses
    stay as validation gave them (the outputs themselves are fine).
    """
    from dataclasses import asdict

    rows = []
    records = [read_json(path) for path in record_paths]
    superseded_by = superseding(records)
    for key, problems in _campaign_problems(records).items():
        for record in records:
            if (record["team"], record["system"]) != key:
                continue
            for problem in problems:
                kind = "errors" if problem.severity == "error" else "warnings"
                # a cycle's error comes first: the summary's first_error shows it
                at = 0 if kind == "errors" else len(record[kind])
                record[kind] = [*record[kind][:at], asdict(problem), *record[kind][at:]]
                record[f"n_{kind}"] = record.get(f"n_{kind}", 0) + 1
                _logger().log(40 if kind == "errors" else 30, "%s", problem.describe())
    for record in records:
        first = record["errors"][0] if record["errors"] else None
        rows.append(
            {
                **{k: record[k] for k in SUMMARY_COLUMNS if k in record},
                "superseded_by": superseded_by.get((record["team"], record["system"])),
                "first_error": Problem(**first).describe() if first else "",
            }
        )
    for name, reason in discovery_problems:
        team, _, system = name.partition("/")
        rows.append(
            {
                "team": team,
                "system": system,
                "status": "unreadable",
                "first_error": f"{name}: {reason}",
            }
        )
    rows.sort(key=lambda r: (r["team"], r["system"]))
    write_tsv(rows, SUMMARY_COLUMNS, tsv_path)
    if records_path is not None:
        write_json_lines(records, records_path)
    return rows

"""What changed since the previous version of a campaign's results.

:func:`read_release` reads the parts of a release archive (built by
:func:`stecflow.release.archive.build_release`) that the comparison needs, straight from
the zip (nothing is extracted to disk; absurdly large members are refused);
:func:`read_current` reads the same parts from the current results; and
:func:`compare` lists the differences as :class:`Change` records, in a fixed
order (kind, then subject), so the same inputs always give the same list.
"""

from __future__ import annotations

import json
import math
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from stecflow.core.errors import StecflowError
from stecflow.core.io import parse_tsv, read_json, read_tsv

__all__ = [
    "KINDS",
    "MAX_MEMBER_BYTES",
    "Change",
    "Results",
    "changes_since",
    "compare",
    "read_current",
    "read_release",
]

#: Largest archive member read (uncompressed bytes); larger ones are refused.
MAX_MEMBER_BYTES = 64 * 1024 * 1024

#: Relative tolerance of score comparisons.
REL_TOL = 1e-9

#: Kinds of change, in the order they are listed.
KINDS = (
    "submission_added",
    "submission_removed",
    "status",
    "late",
    "score",
    "signature",
    "analysis_added",
    "analysis_removed",
    "analysis_changed",
    "study_added",
    "study_removed",
)


@dataclass(frozen=True)
class Change:
    """One difference: its kind, what it is about, old and new values, a sentence."""

    kind: str
    subject: str
    old: str = ""
    new: str = ""
    text: str = ""


@dataclass
class Results:
    """The comparable parts of one version's results."""

    version: str
    submissions: dict[str, tuple[str, str]] = field(default_factory=dict)
    scores: dict[str, dict[str, float | None]] = field(default_factory=dict)
    signatures: dict[str, str] = field(default_factory=dict)
    analyses: dict[str, str] = field(default_factory=dict)
    studies: list[str] = field(default_factory=list)


def _float(value: str | None) -> float | None:
    try:
        number = float(value) if value not in (None, "") else None
    except ValueError:
        return None
    return number if number is None or math.isfinite(number) else None


def _version(config: Mapping[str, Any]) -> str:
    return str((config.get("campaign") or {}).get("version", "1"))


def _results(
    config: Mapping[str, Any],
    summary: Sequence[Mapping[str, str]],
    systems: Sequence[Mapping[str, str]],
    stats: Mapping[str, Any],
) -> Results:
    out = Results(version=_version(config))
    for row in summary:
        name = f"{row.get('team', '')}/{row.get('system', '')}"
        out.submissions[name] = (str(row.get("status", "")), str(row.get("late", "")))
    signatures: dict[str, set[str]] = {}
    for row in systems:
        metric = row.get("metric_name") or row.get("metric") or ""
        if not metric:
            continue
        if row.get("signature"):
            signatures.setdefault(metric, set()).add(row["signature"])
        if row.get("subset_kind") == "all" and row.get("status") == "scored":
            name = f"{row.get('team', '')}/{row.get('system', '')}"
            out.scores.setdefault(name, {})[metric] = _float(row.get("value"))
    out.signatures = {m: " ; ".join(sorted(s)) for m, s in signatures.items()}
    for name, record in stats.items():
        texts = record.get("text") if isinstance(record, Mapping) else None
        out.analyses[name] = "; ".join(
            f"{t.get('about')}: {t.get('text')}" if t.get("about") else str(t["text"])
            for t in texts or []
            if isinstance(t, Mapping) and "text" in t
        )
    out.studies = sorted(
        str(s.get("id")) for s in config.get("studies") or [] if isinstance(s, Mapping)
    )
    return out


def _member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path) -> str:
    if info.file_size > MAX_MEMBER_BYTES:
        raise StecflowError(
            f"archive member {info.filename} is {info.file_size} bytes, more than"
            f" {MAX_MEMBER_BYTES}",
            file=str(path),
            field="report.previous_release",
        )
    with archive.open(info) as handle:
        data = handle.read(MAX_MEMBER_BYTES + 1)
    if len(data) > MAX_MEMBER_BYTES:
        raise StecflowError(
            f"archive member {info.filename} is larger than {MAX_MEMBER_BYTES} bytes",
            file=str(path),
            field="report.previous_release",
        )
    return data.decode("utf-8")


def read_release(path: str | Path) -> Results:
    """Read the previous version from its release archive (no extraction).

    Raises
    ------
    StecflowError
        If the archive is missing, is not a zip, or lacks ``config.json``.
    """
    path = Path(path)
    where = {"file": str(path), "field": "report.previous_release"}
    if not path.is_file():
        raise StecflowError(
            f"the previous release archive {path} does not exist (set"
            " report.previous_release to an existing archive, or to null)",
            **where,
        )
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as error:
        raise StecflowError(f"not a readable zip archive: {error}", **where) from None
    with archive:
        members = {
            info.filename: info
            for info in archive.infolist()
            if not info.is_dir()
            and ".." not in PurePosixPath(info.filename).parts
            and not info.filename.startswith("/")
        }
        if "config.json" not in members:
            raise StecflowError("the archive has no config.json", **where)

        def text(name: str) -> str:
            return _member(archive, members[name], path) if name in members else ""

        try:
            config = json.loads(text("config.json"))
            stats = {
                PurePosixPath(name).stem: json.loads(text(name))
                for name in sorted(members)
                if PurePosixPath(name).parent == PurePosixPath("stats")
                and name.endswith(".json")
            }
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise StecflowError(
                f"unreadable JSON in the archive: {error}", **where
            ) from None
        return _results(
            config,
            parse_tsv(text("validation/summary.tsv")),
            parse_tsv(text("scores/systems.tsv")),
            stats,
        )


def read_current(
    config: Mapping[str, Any],
    validation_summary: str | Path,
    systems: str | Path,
    stats_records: Sequence[str | Path] = (),
) -> Results:
    """Read the current version from the workflow's result files."""
    stats = {Path(p).stem: read_json(p) for p in stats_records}
    return _results(config, read_tsv(validation_summary), read_tsv(systems), stats)


def _show(value: float | None) -> str:
    return "none" if value is None else f"{value:.6g}"


def _same(old: float | None, new: float | None) -> bool:
    if old is None or new is None:
        return old is new
    return math.isclose(old, new, rel_tol=REL_TOL, abs_tol=1e-12)


def compare(previous: Results, current: Results) -> list[Change]:
    """Every difference between two versions, sorted by kind and subject."""
    changes: list[Change] = []
    old_subs, new_subs = previous.submissions, current.submissions
    for name in sorted(new_subs.keys() - old_subs.keys()):
        status = new_subs[name][0]
        changes.append(
            Change("submission_added", name, "", status, f"{name} added ({status})")
        )
    for name in sorted(old_subs.keys() - new_subs.keys()):
        changes.append(Change("submission_removed", name, text=f"{name} removed"))
    for name in sorted(old_subs.keys() & new_subs.keys()):
        (old_status, old_late), (new_status, new_late) = old_subs[name], new_subs[name]
        if old_status != new_status:
            changes.append(
                Change(
                    "status",
                    name,
                    old_status,
                    new_status,
                    f"{name}: {old_status} → {new_status}",
                )
            )
        if old_late != new_late:
            now = "now late" if new_late == "true" else "no longer late"
            changes.append(Change("late", name, old_late, new_late, f"{name}: {now}"))
    for name in sorted(previous.scores.keys() & current.scores.keys()):
        old_scores, new_scores = previous.scores[name], current.scores[name]
        for metric in sorted(old_scores.keys() | new_scores.keys()):
            old, new = old_scores.get(metric), new_scores.get(metric)
            if not _same(old, new):
                changes.append(
                    Change(
                        "score",
                        f"{name} {metric}",
                        _show(old),
                        _show(new),
                        f"{name}, {metric}: {_show(old)} → {_show(new)}",
                    )
                )
    for metric in sorted(previous.signatures.keys() | current.signatures.keys()):
        old_sig = previous.signatures.get(metric, "")
        new_sig = current.signatures.get(metric, "")
        if old_sig != new_sig:
            changes.append(
                Change(
                    "signature",
                    metric,
                    old_sig,
                    new_sig,
                    f"{metric} signature: {old_sig or 'none'} → {new_sig or 'none'}",
                )
            )
    old_an, new_an = previous.analyses, current.analyses
    for name in sorted(new_an.keys() - old_an.keys()):
        changes.append(
            Change("analysis_added", name, "", new_an[name], f"analysis {name} added")
        )
    for name in sorted(old_an.keys() - new_an.keys()):
        changes.append(
            Change("analysis_removed", name, text=f"analysis {name} removed")
        )
    for name in sorted(old_an.keys() & new_an.keys()):
        if old_an[name] != new_an[name]:
            changes.append(
                Change(
                    "analysis_changed",
                    name,
                    old_an[name],
                    new_an[name],
                    f"analysis {name}: {old_an[name]} → {new_an[name]}",
                )
            )
    for study in sorted(set(current.studies) - set(previous.studies)):
        changes.append(Change("study_added", study, text=f"study {study} added"))
    for study in sorted(set(previous.studies) - set(current.studies)):
        changes.append(Change("study_removed", study, text=f"study {study} removed"))
    order = {kind: n for n, kind in enumerate(KINDS)}
    return sorted(changes, key=lambda c: (order[c.kind], c.subject))


def changes_since(
    previous_release: str | Path | None,
    *,
    config: Mapping[str, Any],
    validation_summary: str | Path,
    systems: str | Path,
    stats_records: Sequence[str | Path] = (),
) -> dict[str, Any]:
    """The changes since *previous_release* (None: this is the first version).

    Returns ``previous_version`` (None for the first version), ``version``,
    ``changes`` (:class:`Change` records) and ``notes`` (``report.changes``).
    """
    notes = [str(n) for n in (config.get("report") or {}).get("changes") or []]
    if previous_release is None:  # nothing to compare: the results are not read
        return {
            "previous_version": None,
            "version": _version(config),
            "changes": [],
            "notes": notes,
        }
    current = read_current(config, validation_summary, systems, stats_records)
    previous = read_release(previous_release)
    return {
        "previous_version": previous.version,
        "version": current.version,
        "changes": compare(previous, current),
        "notes": notes,
    }

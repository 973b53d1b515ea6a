"""Read what the report shows: results files, the config's metrics, the test set.

The functions here only read and reshape; they never format for display. Every
collection they return is in a fixed order (config order for metrics, sorted IDs
for systems and subsets), so the report built from them is deterministic.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stecflow.core.io import iter_json_records, read_json, read_tsv
from stecflow.report.formatting import parse_float

if TYPE_CHECKING:
    from stecflow.data.model import Item

__all__ = [
    "JudgmentStudy",
    "MetricInfo",
    "SystemEntry",
    "TestsetInfo",
    "config_sha256",
    "file_sha256",
    "metric_infos",
    "path_sha256",
    "read_clusters",
    "read_judgments",
    "read_significance",
    "read_system_scores",
    "read_testset",
    "testset_info",
    "system_labels",
]

PathLike = str | Path

#: Registry names shown as percentages (proportions of items).
PERCENT_METRICS = frozenset(
    {"string_accuracy", "set_accuracy", "uniqueness", "minimality"}
)
#: Registry names stored on another scale than the report shows (sacreBLEU 0-100).
SCALE = {"bleu3": 0.01}
#: Short column headers, as in the seed papers' tables.
SHORT_LABELS = {
    "string_accuracy": "Acc",
    "set_accuracy": "SetAcc",
    "bleu3": "BLEU",
    "nist5": "NIST",
}


@dataclass(frozen=True)
class MetricInfo:
    """One configured metric, with what the report needs to show it.

    Attributes
    ----------
    id : str
        The metric's ID in the config and in every table.
    name : str
        Registry name (``se``, ``bleu3``, …).
    label : str
        Short header (``Acc``, ``SE``, ``BLEU``, …; the ID when it differs from
        the registry name).
    display_name : str
        The metric's own name (``StringAccuracy``, ``BLEU-3``).
    family : str
        ``text``, ``attributes`` (against references) or ``domain`` (attribute
        sets against the item's domain only).
    level : str
        ``item`` (mean of item scores) or ``corpus`` (BLEU, NIST).
    higher_is_better : bool
    percent : bool
        Shown multiplied by 100.
    scale : float
        Factor from the stored value to the shown one (before ``percent``).
    options : tuple of (str, object)
        Every option with its value, defaults included.
    signature : str
        The signature the config implies (bootstrap settings included).
    """

    id: str
    name: str
    label: str
    display_name: str
    family: str
    level: str
    higher_is_better: bool
    percent: bool = False
    scale: float = 1.0
    options: tuple[tuple[str, Any], ...] = ()
    signature: str = ""
    digits: int = 2

    @property
    def header(self) -> str:
        """Column header with the unit (``Acc (%)``)."""
        return f"{self.label} (%)" if self.percent else self.label

    @property
    def direction(self) -> str:
        """``higher is better`` or ``lower is better``."""
        return "higher is better" if self.higher_is_better else "lower is better"

    def show(self, value: float | None) -> float | None:
        """The stored value on the report's scale."""
        if value is None:
            return None
        return value * self.scale * (100.0 if self.percent else 1.0)


def metric_infos(config: Mapping[str, Any]) -> dict[str, MetricInfo]:
    """The configured metrics in config order, keyed by ID.

    Raises
    ------
    ConfigError
        For an unknown metric or option (as the scoring stage would).
    """
    from stecflow.metrics.distinguishing import DomainMetric
    from stecflow.scoring.specs import build_metrics, metric_signatures, metric_specs

    scoring = config.get("scoring") or {}
    tasks = (config.get("campaign") or {}).get("tasks") or None
    signatures = metric_signatures(scoring, tasks)
    infos = {}
    for spec, metric in build_metrics(metric_specs(scoring, tasks)):
        if isinstance(metric, DomainMetric):
            family = "domain"
        else:
            family = {"text": "text", "decision": "decision"}.get(
                metric.input_type, "attributes"
            )
        label = (
            SHORT_LABELS.get(spec.name, metric.display_name)
            if spec.id == spec.name
            else spec.id
        )
        infos[spec.id] = MetricInfo(
            id=spec.id,
            name=spec.name,
            label=label,
            display_name=metric.display_name,
            family=family,
            level=metric.level,
            higher_is_better=bool(metric.higher_is_better),
            percent=spec.name in PERCENT_METRICS,
            scale=SCALE.get(spec.name, 1.0),
            options=tuple(sorted(metric.options().items())),
            signature=signatures[spec.id],
            # seed 000 prints its decisions' precision, recall and F with three
            # decimals (0.664, 0.730), as the report's situated tables do
            digits=3 if family == "decision" else 2,
        )
    return infos


def fallback_metric(metric_id: str, display_name: str, higher: bool) -> MetricInfo:
    """Info for a metric found in the scores but not in the config (stale scores)."""
    return MetricInfo(
        id=metric_id,
        name=metric_id,
        label=display_name or metric_id,
        display_name=display_name or metric_id,
        family="other",
        level="item",
        higher_is_better=higher,
    )


@dataclass
class SystemEntry:
    """One submission as the scores table has it.

    ``scores`` maps ``(metric, subset_kind, subset)`` to the row of
    ``scores/systems.tsv``; ``skipped`` maps a metric to the reason it was not
    computed for this system. ``superseded_by`` names the system(s) of the team
    that supersede this one (``superseded_by`` of the validation summary).
    """

    team: str
    system: str
    status: str
    late: bool
    reference: bool
    primary: bool
    reason: str = ""
    label: str = ""
    superseded_by: str = ""
    scores: dict[tuple[str, str, str], dict[str, str]] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str]:
        """``(team, system)``."""
        return (self.team, self.system)

    @property
    def official(self) -> bool:
        """In the official ranking: neither late nor superseded."""
        return not (self.late or self.superseded_by)

    @property
    def kind(self) -> str:
        """``late`` (also superseded), ``reference`` or ``system`` (plot markers)."""
        if not self.official:
            return "late"
        return "reference" if self.reference else "system"

    def value(
        self, metric: str, kind: str = "all", subset: str = "all"
    ) -> float | None:
        """The stored score, or None."""
        row = self.scores.get((metric, kind, subset))
        return parse_float(row["value"]) if row else None

    def interval(
        self, metric: str, kind: str = "all", subset: str = "all"
    ) -> tuple[float | None, float | None]:
        """The stored confidence interval, or ``(None, None)``."""
        row = self.scores.get((metric, kind, subset))
        if not row:
            return None, None
        return parse_float(row["ci_low"]), parse_float(row["ci_high"])


def system_labels(keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Labels for tables: the system ID, or ``team/system`` where IDs clash.

    The same rule as the statistics stage, so that labels agree.

    Examples
    --------
    >>> system_labels([("a", "x"), ("b", "x"), ("c", "y")])
    {('a', 'x'): 'a/x', ('b', 'x'): 'b/x', ('c', 'y'): 'y'}
    """
    counts = Counter(system for _, system in keys)
    return {
        (team, system): system if counts[system] == 1 else f"{team}/{system}"
        for team, system in keys
    }


def _flag(value: str) -> bool:
    return value.strip().lower() == "true"


def read_system_scores(path: PathLike) -> list[SystemEntry]:
    """Read ``scores/systems.tsv`` into one entry per submission, sorted by ID."""
    entries: dict[tuple[str, str], SystemEntry] = {}
    for row in read_tsv(path):
        key = (row["team"], row["system"])
        entry = entries.get(key)
        if entry is None:
            entry = entries[key] = SystemEntry(
                team=row["team"],
                system=row["system"],
                status="skipped" if not row.get("metric") else "scored",
                late=_flag(row.get("late", "")),
                reference=_flag(row.get("reference_set", "")),
                primary=_flag(row.get("primary", "")),
                reason=row.get("reason", "") if not row.get("metric") else "",
            )
        if not row.get("metric"):
            continue
        if row["status"] == "scored":
            entry.scores[(row["metric"], row["subset_kind"], row["subset"])] = row
        else:
            entry.skipped[row["metric"]] = row.get("reason", "") or row["status"]
    ordered = [entries[k] for k in sorted(entries)]
    # clashes count over every submission, so a late "primary" never passes for
    # a rejected team's "primary"
    labels = system_labels([e.key for e in ordered])
    for entry in ordered:
        entry.label = labels[entry.key]
    return ordered


@dataclass(frozen=True)
class TestsetInfo:
    """Sizes of the test set: items per subdomain and condition, references."""

    n_items: int
    subdomains: tuple[str, ...]
    conditions: tuple[str, ...]
    counts: tuple[tuple[str, str, int], ...]  # (subdomain, condition, items)
    refs_per_item: tuple[tuple[int, int], ...]  # (references, items)
    reference_ids: tuple[tuple[str, int], ...]  # (reference ID, items)
    entities_per_item: tuple[tuple[int, int], ...]
    #: (field, value, items) of the items' other fields (a text test set's meta)
    meta: tuple[tuple[str, str, int], ...] = ()

    def subset_sizes(self) -> list[tuple[str, str, int]]:
        """``(kind, name, items)`` for all, each subdomain, each condition, then
        each value of the items' other fields (kind: the field's name)."""
        sizes = [("all", "all", self.n_items)]
        for sub in self.subdomains:
            sizes.append(
                ("subdomain", sub, sum(n for s, _, n in self.counts if s == sub))
            )
        for cond in self.conditions:
            sizes.append(
                ("condition", cond, sum(n for _, c, n in self.counts if c == cond))
            )
        return sizes + list(self.meta)


def read_testset(path: PathLike) -> TestsetInfo:
    """Count items, subsets and references of the (normalised) test set."""
    from stecflow.tasks.registry import read_testset

    return testset_info(read_testset(path))


def testset_info(items: Sequence[Item]) -> TestsetInfo:
    """Count items, subsets and references of the test set's *items*."""
    cells = Counter((i.subdomain, i.condition or "") for i in items)
    return TestsetInfo(
        n_items=len(items),
        subdomains=tuple(sorted({i.subdomain for i in items})),
        conditions=tuple(sorted({i.condition for i in items if i.condition})),
        counts=tuple((s, c, n) for (s, c), n in sorted(cells.items())),
        refs_per_item=tuple(sorted(Counter(len(i.references) for i in items).items())),
        reference_ids=tuple(
            sorted(
                Counter(r.id or "(no ID)" for i in items for r in i.references).items()
            )
        ),
        entities_per_item=tuple(
            sorted(Counter(len(i.domain.entities) for i in items).items())
        ),
        meta=tuple(
            (field, value, n)
            for (field, value), n in sorted(
                Counter(pair for i in items for pair in i.extra).items()
            )
        ),
    )


def file_sha256(path: PathLike) -> str:
    """sha256 of one file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def path_sha256(path: PathLike) -> str:
    """sha256 of a file, or of a folder's sorted ``relative path\\0sha256\\n`` lines."""
    root = Path(path)
    if root.is_file():
        return file_sha256(root)
    digest = hashlib.sha256()
    for file in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = file.relative_to(root).as_posix()
        digest.update(f"{rel}\0{file_sha256(file)}\n".encode())
    return digest.hexdigest()


def config_sha256(config: Mapping[str, Any]) -> str:
    """sha256 of the config's canonical JSON (sorted keys, no spaces, UTF-8).

    Examples
    --------
    >>> config_sha256({"b": 1, "a": [1, 2]}) == config_sha256({"a": [1, 2], "b": 1})
    True

    The secret pseudonym key (``release.key``) is hashed as the release archive's
    config.json shows it, ``(withheld)``, so the hash can be checked, and the
    report rendered again, from the archive.

    >>> config_sha256({"release": {"key": "s"}}) == config_sha256(
    ...     {"release": {"key": "(withheld)"}}
    ... )
    True
    """
    release = config.get("release") if isinstance(config, Mapping) else None
    if isinstance(release, Mapping) and release.get("key"):
        config = {**config, "release": {**release, "key": "(withheld)"}}
    text = json.dumps(
        config, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_records(paths: Sequence[PathLike]) -> dict[tuple[str, str], dict[str, Any]]:
    """Validation records keyed by ``(team, system)``, from their files or from
    ``validation/records.jsonl`` (all of them, one a line)."""
    records = {}
    for record in iter_json_records(paths):
        records[(record["team"], record["system"])] = record
    return dict(sorted(records.items()))


def read_analyses(
    records: Sequence[PathLike], tables: Sequence[PathLike]
) -> list[tuple[dict[str, Any], list[dict[str, str]], str]]:
    """Pair each analysis record (JSON) with its table (TSV) by file stem.

    Returns ``(record, rows, stem)`` in the order of *records* (the config's).
    """
    by_stem = {Path(t).stem: Path(t) for t in tables}
    out = []
    for path in records:
        stem = Path(path).stem
        table = by_stem.get(stem)
        rows = read_tsv(table) if table is not None else []
        out.append((read_json(path), rows, stem))
    return out


@dataclass
class JudgmentStudy:
    """What the judgments stage wrote for one human study.

    Attributes
    ----------
    study : str
        The study ID.
    measures : list of dict
        Rows of ``results/judgments/measures/<study>.tsv`` (one per system ×
        subdomain, ``subdomain`` = ``all`` for the whole study).
    summary : dict
        ``results/judgments/summary/<study>.json`` (counts, ``simulated``, the
        outlier sentences, corrections, settings).
    quality : list of dict
        Rows of ``results/judgments/quality/<study>.tsv`` (one per problem).
    """

    study: str
    measures: list[dict[str, str]] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    quality: list[dict[str, str]] = field(default_factory=list)


def read_judgments(
    measures: Sequence[PathLike],
    summaries: Sequence[PathLike],
    quality: Sequence[PathLike],
    order: Sequence[str] = (),
) -> list[JudgmentStudy]:
    """Gather the judgments stage's files per study.

    Files are matched by the study their rows name (the file stem when a table
    is empty). Studies come in *order* (the config's), then any others sorted.
    """
    studies: dict[str, JudgmentStudy] = {}

    def get(name: str) -> JudgmentStudy:
        return studies.setdefault(name, JudgmentStudy(name))

    for path in measures:
        rows = read_tsv(path)
        for row in rows:
            get(row.get("study") or Path(path).stem).measures.append(row)
        if not rows:
            get(Path(path).stem)
    for path in summaries:
        summary = read_json(path)
        get(str(summary.get("study") or Path(path).stem)).summary = summary
    for path in quality:
        rows = read_tsv(path)
        for row in rows:
            get(row.get("study") or Path(path).stem).quality.append(row)
        if not rows:
            get(Path(path).stem)
    rank = {name: n for n, name in enumerate(order)}
    return [
        studies[name]
        for name in sorted(studies, key=lambda s: (rank.get(s, len(rank)), s))
    ]


def read_clusters(
    path: PathLike | None,
) -> dict[str, dict[str, dict[str, tuple[int, int]]]]:
    """``scores/clusters.tsv`` as task -> metric -> ``team/system`` -> (rank, cluster).

    Task ``all`` holds the clusters of every system compared; a campaign of
    several tasks also has each task's. None or a missing file: no clusters.
    """
    out: dict[str, dict[str, dict[str, tuple[int, int]]]] = {}
    if path is None or not Path(path).is_file():
        return out
    for row in read_tsv(path):
        task = row.get("task") or "all"
        out.setdefault(task, {}).setdefault(row["metric"], {})[row["system"]] = (
            int(row["rank"]),
            int(row["cluster"]),
        )
    return out


def read_significance(path: PathLike | None) -> list[dict[str, str]]:
    """The rows of ``scores/significance.tsv`` (none for None or a missing file)."""
    if path is None or not Path(path).is_file():
        return []
    return read_tsv(path)

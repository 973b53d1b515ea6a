"""What the report's section builders share: the context, blocks, ordering, cells.

A section is a list of *blocks* (plain dicts the template draws: ``p``, ``h3``,
``table``, ``figure``, ``figures``, ``dl``, ``codes``, ``notice``, ``details``).
:class:`Context` holds the inputs every builder reads and numbers tables and
figures in document order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

from markupsafe import Markup

from stecflow.report.formatting import DASH, parse_float, system_anchor
from stecflow.report.inputs import (
    JudgmentStudy,
    MetricInfo,
    PathLike,
    SystemEntry,
    TestsetInfo,
    fallback_metric,
)
from stecflow.report.presentation import (
    interval_note,
    score_text,
    subset_title,
    unit_notes,
)
from stecflow.report.tables import (
    Cell,
    Column,
    Row,
    Table,
    competition_ranks,
    rank_cells,
)

__all__ = [
    "FAMILY_TITLES",
    "HUMAN_LABELS",
    "HEADLINE",
    "LATE_MARK",
    "PRIMARY_MARK",
    "PRIMARY_NOTE",
    "REFERENCE_MARK",
    "SUPERSEDED_MARK",
    "SYSTEM_COLUMN",
    "Block",
    "Context",
    "CLUSTER_COLUMN",
    "ci_note",
    "cluster_cell",
    "cluster_metric",
    "codes",
    "display_path",
    "facts",
    "heading",
    "headline_metrics",
    "measure_info",
    "measure_label",
    "measure_values",
    "NAME_COLUMN",
    "named_rows",
    "metric_ids",
    "notice",
    "official_ranks",
    "ordered_systems",
    "paragraph",
    "path_tail",
    "rank_values",
    "ranking_metric",
    "score_cell",
    "score_column",
    "score_notes",
    "score_rows",
    "signature_list",
    "subset_title",
    "system_cell",
    "title_case",
    "validation_link",
    "yes_no",
]

Block = dict[str, Any]
FAMILY_TITLES = {
    "text": "word strings",
    "attributes": "attribute sets (against the references)",
    "domain": "attribute sets (against the domain)",
    "decision": "decisions (against the corpus)",
    "other": "other measures",
}
HEADLINE = (
    ("bleu", "chrf", "ter"),  # text generation: sacreBLEU's three, as WMT and GEM
    ("string_accuracy", "se", "bleu3", "nist5"),  # TUNA-REG'09, seed 001 Table 5
    ("dice", "masi", "set_accuracy"),  # ASGRE / TUNA-AS
)
LATE_MARK = "†"
REFERENCE_MARK = "‡"
#: Marks a system that a corrected version of it supersedes (seed 002 wrote *IS-FBS).
SUPERSEDED_MARK = "§"
#: Marks the system a team named its primary one (``primary`` of system.yaml).
PRIMARY_MARK = "*"
PRIMARY_NOTE = (
    f"{PRIMARY_MARK} The team's primary system (system.yaml); the CSV's primary"
    " column says the same."
)


def paragraph(*parts: str | Mapping[str, str]) -> Block:
    """A paragraph of text parts (``{"text", "href"|"code"|"em"}`` for markup)."""
    return {
        "kind": "p",
        "parts": [{"text": p} if isinstance(p, str) else dict(p) for p in parts],
    }


def notice(text: str, tone: str = "info", title: str = "") -> Block:
    """A highlighted note: ``tone`` is ``info``, ``warning`` or ``placeholder``."""
    return {"kind": "notice", "text": text, "tone": tone, "title": title}


def heading(text: str, anchor: str) -> Block:
    """A subsection heading (``h3``) with its anchor."""
    return {"kind": "h3", "text": text, "id": anchor}


def facts(items: Sequence[tuple[str, str]]) -> Block:
    """A definition list of ``(term, text)`` pairs."""
    return {"kind": "dl", "items": [{"term": t, "text": d} for t, d in items]}


def codes(items: Sequence[tuple[str, str]]) -> Block:
    """A definition list whose texts are code (signatures)."""
    return {"kind": "codes", "items": [{"term": t, "code": c} for t, c in items]}


def yes_no(flag: bool) -> str:
    """``yes`` or ``no``."""
    return "yes" if flag else "no"


def title_case(name: str) -> str:
    """Upper-case the first letter (``people`` -> ``People``)."""
    return name[:1].upper() + name[1:]


def display_path(path: str) -> str:
    """A config path for display: relative ones as given, absolute ones by name."""
    pure = PurePosixPath(str(path).replace("\\", "/"))
    return pure.name if pure.is_absolute() or ":" in pure.parts[0] else str(pure)


def path_tail(path: PathLike, parts: int) -> str:
    """The last *parts* components of a path (never an absolute path)."""
    return "/".join(Path(path).parts[-parts:])


def validation_link(team: str, system: str) -> str:
    """Relative link from results/report/ to a team's validation report."""
    return f"../validation/{quote(team)}/{quote(system)}.md"


@dataclass
class Context:
    """Everything the section builders share."""

    config: Mapping[str, Any]
    metrics: dict[str, MetricInfo]
    entries: list[SystemEntry]
    records: dict[tuple[str, str], dict[str, Any]]
    summary: list[dict[str, str]]
    testset: TestsetInfo
    analyses: list[tuple[dict[str, Any], list[dict[str, str]], str]]
    judgments: list[JudgmentStudy]
    prefix: str
    tables: int = 0
    figures: int = 0
    #: metric -> ``team/system`` -> (rank, cluster), from ``scores/clusters.tsv``
    clusters: dict[str, dict[str, tuple[int, int]]] = field(default_factory=dict)
    #: rows of ``scores/significance.tsv``
    significance: list[dict[str, str]] = field(default_factory=list)
    #: task -> metric -> ``team/system`` -> (rank, cluster) among the task's systems
    task_clusters: dict[str, dict[str, dict[str, tuple[int, int]]]] = field(
        default_factory=dict
    )
    #: The test set's items (:class:`~stecflow.data.model.Item`), for tables
    #: that describe instances by their references' fields (a situated study's
    #: errors by expression form); empty when not read.
    items: tuple[Any, ...] = ()

    # numbering in document order
    def table(self, table: Table) -> Block:
        """Number *table* and wrap it as a block."""
        self.tables += 1
        table.number = self.tables
        table.file_prefix = self.prefix
        return {"kind": "table", "table": table}

    def figure(self, svg: str, caption: str, anchor: str) -> dict[str, Any]:
        """Number an SVG figure and wrap it as a block."""
        self.figures += 1
        return {
            "kind": "figure",
            "svg": Markup(svg),  # built by .svg, which escapes every text
            "caption": caption,
            "number": self.figures,
            "id": anchor,
        }

    # The entries never change once the context is built, so what is derived
    # from them over every submission is computed once: the sections ask for it
    # once per submission, table and cell (quadratic at 1,000 submissions).
    @cached_property
    def scored(self) -> tuple[SystemEntry, ...]:
        """Submissions with scores (accepted ones), in ID order."""
        return tuple(e for e in self.entries if e.status == "scored")

    @cached_property
    def scored_metric_ids(self) -> tuple[str, ...]:
        """Configured metrics, then any other metric found in the scores."""
        ids = dict.fromkeys(self.metrics)
        for entry in self.scored:
            ids.update(dict.fromkeys(mid for mid, _, _ in entry.scores))
        return tuple(ids)

    @cached_property
    def signatures(self) -> tuple[tuple[str, str], ...]:
        """(metric header, signature) of each metric (:func:`signature_list`)."""
        found_by_metric: dict[str, set[str]] = {}
        for e in self.scored:
            for (m, _, _), row in e.scores.items():
                if row.get("signature"):
                    found_by_metric.setdefault(m, set()).add(row["signature"])
        out = []
        for mid in metric_ids(self):
            found = sorted(found_by_metric.get(mid, ()))
            sigs = found or (
                [self.metric(mid).signature] if self.metric(mid).signature else []
            )
            out += [(self.metric(mid).header, sig) for sig in sigs]
        return tuple(out)

    def metric(self, metric_id: str) -> MetricInfo:
        """Display info of a metric (fallback for metrics not in the config)."""
        info = self.metrics.get(metric_id)
        if info is not None:
            return info
        for entry in self.scored:
            for (mid, _, _), row in entry.scores.items():
                if mid == metric_id:
                    return fallback_metric(
                        mid,
                        row.get("metric_name", ""),
                        row["higher_is_better"] == "true",
                    )
        name = metric_id.replace("_", " ")
        return fallback_metric(metric_id, name[:1].upper() + name[1:], True)

    def display(self, label: str | Mapping[str, Any]) -> str:
        """The report's label for a system named *label* by the statistics.

        *label* may also be a per-system mapping with ``team`` and ``system``
        (the ``systems`` of a ``confusion`` analysis record).
        """
        if isinstance(label, Mapping):
            label = (
                f"{label.get('team')}/{label.get('system')}"
                if label.get("team")
                else str(label.get("system") or label.get("label") or "")
            )
        entry = self._by_label.get(label)
        return entry.label if entry is not None else label

    def by_label(self) -> dict[str, SystemEntry]:
        """Entries by every name the statistics may use for them."""
        return dict(self._by_label)

    @cached_property
    def _by_label(self) -> dict[str, SystemEntry]:
        out: dict[str, SystemEntry] = {}
        for entry in self.scored:
            out.setdefault(f"{entry.team}/{entry.system}", entry)
            out.setdefault(entry.system, entry)
        for entry in self.scored:
            out[entry.label] = entry
        return out


# ---------------------------------------------------------------------------
# measures of the statistics: metric IDs, human measures, "<study>:<measure>"

#: Labels of the human measures the statistics stage analyses, and the column of
#: the judgments' measures table holding their per-system mean.
HUMAN_LABELS = {
    "adequacy": ("Adequacy", "adequacy_mean"),
    "fluency": ("Fluency", "fluency_mean"),
    "identification_accuracy": ("ID acc.", "accuracy"),
    "identification_time": ("ID time (ms)", "identification_time_mean_ms"),
    "reading_time": ("Reading time (ms)", "reading_time_mean_ms"),
}


def measure_label(ctx: Context, name: str, *, study: str = "") -> str:
    """Label of a measure of the statistics: a metric, or a human measure.

    Human measures are named ``<study>:<measure>`` in correlations, or given with
    their study (the analysis' ``source``); the study is added to the label when
    the campaign has more than one study with that measure.
    """
    if ":" in name:
        study, name = name.split(":", 1)
    if name in HUMAN_LABELS and (study or name not in ctx.metrics):
        label = HUMAN_LABELS[name][0]
        studies = [
            s.study for s in ctx.judgments if HUMAN_LABELS[name][1] in _columns(s)
        ]
        return f"{label} ({study})" if study and len(studies) > 1 else label
    return ctx.metric(name).label


def measure_info(ctx: Context, name: str, *, source: str = "") -> MetricInfo:
    """How to show a measure of the statistics (metric or human measure)."""
    study = source if source and source != "scores" else ""
    bare = name.split(":", 1)[-1]
    if (":" in name or study or bare not in ctx.metrics) and bare in HUMAN_LABELS:
        label = measure_label(ctx, name, study=study)
        return MetricInfo(
            id=name,
            name=bare,
            label=label,
            display_name=label,
            family="human",
            level="item",
            higher_is_better=not bare.endswith("_time"),
        )
    return ctx.metric(name)


def _columns(study: JudgmentStudy) -> set[str]:
    return {k for row in study.measures for k, v in row.items() if v not in ("", None)}


def measure_values(ctx: Context, name: str) -> dict[str, float | None]:
    """Per-system overall values of a measure, by every name a system may have.

    Metrics come on the report's scale from the scores; human measures
    (``<study>:<measure>``) from the judgments' measures table (subdomain all).
    """
    values: dict[str, float | None] = {}
    if ":" in name:
        study_id, measure = name.split(":", 1)
        column = HUMAN_LABELS.get(measure, ("", measure))[1]
        lookup = ctx.by_label()
        for study in ctx.judgments:
            if study.study != study_id:
                continue
            for row in study.measures:
                if (row.get("subdomain") or "all") != "all":
                    continue
                value = parse_float(row.get(column))
                values[row["system"]] = value
                entry = lookup.get(row["system"])
                if entry is not None:
                    values[entry.label] = value
        return values
    info = ctx.metric(name)
    for entry in ctx.scored:
        value = info.show(entry.value(name))
        for key in (entry.label, entry.system, f"{entry.team}/{entry.system}"):
            values.setdefault(key, value)
    return values


# ---------------------------------------------------------------------------
# ordering and cells


def metric_ids(ctx: Context) -> list[str]:
    """Configured metrics, then any other metric found in the scores."""
    return list(ctx.scored_metric_ids)


def ranking_metric(ctx: Context) -> str | None:
    """The metric the organiser ranks the scores by (``report.rank_by.scores``);
    by default SE if configured (seed 001 orders by overall mean SE), else the
    first metric; in a text-generation campaign its first headline metric
    (BLEU)."""
    ids = metric_ids(ctx)
    chosen = ((ctx.config.get("report") or {}).get("rank_by") or {}).get("scores")
    if chosen in ids:
        return chosen
    tasks = set((ctx.config.get("campaign") or {}).get("tasks") or ())
    if tasks == {"text_generation"} and ids:
        return headline_metrics(ctx)[0]
    if "se" in ids:
        return "se"
    return ids[0] if ids else None


def headline_metrics(ctx: Context) -> list[str]:
    """The metrics of seed 001 Table 5 (Acc, SE, BLEU, NIST) that are configured.

    Before them, sacreBLEU's BLEU, chrF++ and TER (a text-generation campaign);
    after them the ASGRE set (Dice, MASI, accuracy), else the first four metrics.
    """
    ids = metric_ids(ctx)
    for names in HEADLINE:
        chosen = [mid for name in names for mid in ids if ctx.metric(mid).name == name]
        if chosen:
            return chosen
    return ids[:4]


def ordered_systems(ctx: Context) -> tuple[list[SystemEntry], list[SystemEntry]]:
    """Scored systems: (official ranking order, the others) by the ranking metric.

    The others are late submissions and systems that a corrected version
    supersedes; neither is ranked.
    """
    metric = ranking_metric(ctx)
    info = ctx.metric(metric) if metric else None

    def key(entry: SystemEntry) -> tuple[int, float, str]:
        value = entry.value(metric) if metric else None
        if value is None or info is None:
            return (1, 0.0, entry.label)
        return (0, -value if info.higher_is_better else value, entry.label)

    official = sorted((e for e in ctx.scored if e.official), key=key)
    late = sorted((e for e in ctx.scored if not e.official), key=key)
    return official, late


def official_ranks(
    official: Sequence[SystemEntry],
    values: Mapping[tuple[str, str], float | None] | None = None,
    higher_is_better: bool = True,
) -> dict[tuple[str, str], int]:
    """Ranks of the official systems (human references unranked).

    Without *values*: 1, 2, … in the given order. With *values* (by entry
    key): standard competition ranks, equal values sharing a rank ("1, 2, 2,
    4"); a system without a value is not ranked.
    """
    systems = [e for e in official if not e.reference]
    if values is None:
        return {e.key: n for n, e in enumerate(systems, 1)}
    found = competition_ranks([values.get(e.key) for e in systems], higher_is_better)
    return {e.key: r for e, r in zip(systems, found, strict=True) if r is not None}


def rank_values(
    ctx: Context, entries: Sequence[SystemEntry], metric: str | None
) -> dict[tuple[str, str], float | None]:
    """The values systems are ranked by: *metric* overall, as the report shows it.

    Scores are rounded to the digits the tables show, so two systems the tables
    show equal share a rank.
    """
    if metric is None:
        return {}
    info = ctx.metric(metric)
    out: dict[tuple[str, str], float | None] = {}
    for entry in entries:
        value = info.show(entry.value(metric))
        out[entry.key] = None if value is None else round(value, info.digits)
    return out


def system_cell(entry: SystemEntry, rank: int | None) -> Cell:
    """The first cell of a score row: label with marks; CSV identity columns."""
    mark = (
        f" {SUPERSEDED_MARK}"
        if entry.superseded_by
        else f" {LATE_MARK}"
        if entry.late
        else f" {REFERENCE_MARK}"
        if entry.reference
        else ""
    )
    primary = f" {PRIMARY_MARK}" if entry.primary and not entry.reference else ""
    return Cell(
        entry.label + primary + mark,
        csv=(
            entry.label,
            entry.team,
            str(rank) if rank else "",
            str(entry.reference).lower(),
            str(entry.late).lower(),
            str(entry.primary).lower(),
        ),
        classes="system",
        href="#" + system_anchor(entry.team, entry.system),
    )


SYSTEM_COLUMN = Column(
    "system",
    "System",
    align="l",
    csv=("system", "team", "rank", "reference_set", "late", "primary"),
)


#: The system column of a human-study table: the name, its rank and primary flag.
NAME_COLUMN = Column("system", "System", align="l", csv=("system", "rank", "primary"))


def named_rows(
    ctx: Context,
    names: Sequence[str],
    values: Sequence[float | None],
    higher_is_better: bool,
    digits: int = 2,
) -> list[tuple[Cell, Cell]]:
    """Rank and name cells of the systems of a human-study table, in order.

    *names* are the systems as the judgments name them, *values* what ranks
    them (rounded to *digits*, as shown: equal values share a rank). A human
    reference set, a late or a superseded submission is not ranked; a team's
    primary system is marked and every known system links to its section. The
    rank cell goes first in the page and its value into the name cell's CSV
    (:data:`NAME_COLUMN`).
    """
    lookup = ctx.by_label()
    entries = [lookup.get(name) for name in names]
    shown = [
        None
        if value is None
        or (entry is not None and (entry.reference or not entry.official))
        else round(value, digits)
        for value, entry in zip(values, entries, strict=True)
    ]
    ranks = competition_ranks(shown, higher_is_better)
    out = []
    for name, entry, rank, rank_cell in zip(
        names, entries, ranks, rank_cells(ranks), strict=True
    ):
        primary = entry is not None and entry.primary and not entry.reference
        text = ctx.display(name) + (f" {PRIMARY_MARK}" if primary else "")
        cell = Cell(
            text,
            csv=(name, str(rank) if rank else "", str(primary).lower()),
            classes="system" if entry is not None else "",
            href="#" + system_anchor(entry.team, entry.system) if entry else "",
        )
        out.append((replace(rank_cell, csv=()), cell))
    return out


def score_cell(
    ctx: Context,
    entry: SystemEntry,
    metric_id: str,
    kind: str,
    subset: str,
    groups: Mapping[str, tuple[int, int]] | None = None,
) -> Cell:
    """One score on the report's scale with its CI, or a dash and the reason.

    *groups* (``team/system`` -> (rank, cluster)) adds the system's significance
    cluster to the cell (:attr:`Cell.group`).
    """
    shown = score_text(
        ctx.metric(metric_id),
        entry.value(metric_id, kind, subset),
        *entry.interval(metric_id, kind, subset),
    )
    if shown is None:
        reason = entry.skipped.get(metric_id, "not computed for this subset")
        return Cell(DASH, csv=("", "", ""), title=reason, classes="missing")
    found = (groups or {}).get(f"{entry.team}/{entry.system}")
    return Cell(
        shown.text,
        detail=shown.interval,
        csv=(shown.text, shown.low, shown.high),
        group=str(found[1]) if found else "",
    )


def score_column(info: MetricInfo, group: str, csv_prefix: str) -> Column:
    """A score column whose CSV has value, CI low and CI high; best marked."""
    stem = f"{csv_prefix}{info.id}"
    return Column(
        stem,
        info.header,
        group=group,
        csv=(stem, f"{stem}_ci_low", f"{stem}_ci_high"),
        better="higher" if info.higher_is_better else "lower",
    )


#: The column of a score table with each system's significance cluster.
CLUSTER_COLUMN = Column("cluster", "Cluster", align="c")


def cluster_metric(ctx: Context) -> str | None:
    """The metric whose clusters the score tables show: the ranking metric.

    None when the campaign has no clusters of it (no ``scores/clusters.tsv``).
    """
    metric = ranking_metric(ctx)
    return metric if metric is not None and ctx.clusters.get(metric) else None


def cluster_cell(ctx: Context, entry: SystemEntry, metric_id: str) -> Cell:
    """A system's cluster on *metric_id* (a dash if it was not compared)."""
    found = ctx.clusters.get(metric_id, {}).get(f"{entry.team}/{entry.system}")
    if found is None:
        return Cell(
            DASH,
            csv=("",),
            title="not in the significance tests (late, superseded or not scored)",
            classes="missing",
        )
    rank, cluster = found
    return Cell(str(cluster), title=f"rank {rank}")


def score_rows(
    ctx: Context,
    columns: Sequence[tuple[str, str, str]],
    cluster: str | None = None,
    groups: Mapping[str, Mapping[str, tuple[int, int]]] | None = None,
) -> tuple[list[Row], set[tuple[str, str]]]:
    """Rows of a score table; columns are ``(metric, subset_kind, subset)``.

    With *cluster* (a metric ID), a cell after the system's holds its cluster on
    that metric (:data:`CLUSTER_COLUMN`). With *groups* (metric -> clusters, as
    :attr:`Context.clusters`), each score over all test data carries its
    system's cluster on that metric. The system cells' ranks are competition
    ranks by the ranking metric (:func:`rank_values`).
    """
    official, late = ordered_systems(ctx)
    ranks = official_ranks(official, *_ranking(ctx, official))
    rows: list[Row] = []
    skipped: set[tuple[str, str]] = set()

    def make(entry: SystemEntry) -> Row:
        cells = [system_cell(entry, ranks.get(entry.key))]
        if cluster is not None:
            cells.append(cluster_cell(ctx, entry, cluster))
        for metric_id, kind, subset in columns:
            found = (groups or {}).get(metric_id) if kind == "all" else None
            cell = score_cell(ctx, entry, metric_id, kind, subset, found)
            if cell.text == DASH and metric_id in entry.skipped:
                skipped.add((entry.label, metric_id))
            cells.append(cell)
        return Row(tuple(cells), classes=entry.kind)

    rows.extend(make(e) for e in official)
    superseded = [e for e in late if e.superseded_by]
    late = [e for e in late if not e.superseded_by]
    if late:
        rows.append(
            Row(heading=f"Late submissions ({LATE_MARK}): not in the official ranking")
        )
        rows.extend(make(e) for e in late)
    if superseded:
        rows.append(
            Row(
                heading=f"Superseded by a corrected version ({SUPERSEDED_MARK}):"
                " not in the official ranking"
            )
        )
        rows.extend(make(e) for e in superseded)
    return rows, skipped


def _ranking(
    ctx: Context, entries: Sequence[SystemEntry]
) -> tuple[dict[tuple[str, str], float | None] | None, bool]:
    """Values and direction that rank *entries* (None: rank in list order)."""
    metric = ranking_metric(ctx)
    if metric is None:
        return None, True
    return rank_values(ctx, entries, metric), ctx.metric(metric).higher_is_better


def ci_note(ctx: Context) -> str:
    """What the second line of a score cell is (empty without resampling)."""
    return interval_note(ctx.config.get("scoring"))


def score_notes(
    ctx: Context, metrics: Sequence[str], skipped: set[tuple[str, str]]
) -> list[str]:
    """Footnotes of a score table: CIs, scales, marks and missing scores."""
    notes = unit_notes([ctx.metric(m) for m in metrics])
    if any(e.reference for e in ctx.scored):
        notes.append(
            f"{REFERENCE_MARK} Human reference set, scored against the other"
            " references of each item."
        )
    if any(e.late for e in ctx.scored):
        notes.append(
            f"{LATE_MARK} Late submission: scored and shown, but not in the official"
            " ranking."
        )
    for entry in ctx.scored:
        if entry.superseded_by:
            notes.append(
                f"{SUPERSEDED_MARK} {entry.label}: superseded by the corrected"
                f" {entry.team}/{entry.superseded_by}; scored and shown, but not in"
                " the official ranking or the statistics."
            )
    by_system: dict[str, list[str]] = {}
    for label, metric_id in sorted(skipped):
        by_system.setdefault(label, []).append(metric_id)
    entries = {e.label: e for e in ctx.scored}
    for label, mids in by_system.items():
        reasons = sorted({entries[label].skipped[m] for m in mids})
        names = ", ".join(ctx.metric(m).label for m in mids)
        notes.append(f"{DASH} {label}: {names} not computed: {'; '.join(reasons)}.")
    return notes


def signature_list(ctx: Context) -> list[tuple[str, str]]:
    """One signature per metric, as found in the scores (config's if none scored)."""
    return list(ctx.signatures)

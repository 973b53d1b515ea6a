"""One section per submission: its validation, its scores and ranks, its items.

For each submission the section "Submissions" of the report shows

* its validation status (valid, valid with warnings, rejected) with the counts
  and the first problems of ``validation/<team>/<system>.json``;
* its scores with their intervals and its rank on every metric and subset
  (``scores/systems.tsv``): competition ranking ("1, 2, 2, 4") among the
  campaign's official systems (neither late, superseded nor a human reference
  set), ties meaning equal stored scores;
* item by item its output, the item's references and the item's scores
  (``scores/items/<team>/<system>.tsv``, the rows over all references), worst
  items first by the primary metric (the report's ranking metric, or the first
  metric the submission has item scores for); the first :data:`SHOWN_ITEMS`
  shown, the rest (up to :data:`MAX_ITEMS` in all, fewer when many submissions
  share :data:`ITEM_ROWS`: :func:`item_limit`) in a collapsed block. An item
  lists at most :data:`SHOWN_REFERENCES` references (:func:`reference_cell`):
  when it has more, those closest to the output by the primary metric (its
  rows per reference in the item table), then how many more there are; every
  reference is in the test set, and its score in the item table.

Each submission's part starts with a heading whose id is
:func:`stecflow.report.formatting.system_anchor`, which the score tables link
to. What an output and a reference show comes from the task type
(:attr:`stecflow.tasks.base.TaskType.outputs`): attribute sets as
``{colour:red, type:chair}``, texts as they are, decisions as yes/no. Outputs are
shown only for submissions whose team consented to their release
(``release_consent`` in ``system.yaml``), as in the release archive, which holds
the same outputs: the report inside it can be built again from it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from stecflow.core.io import iter_tsv_columns
from stecflow.data.model import Item, Output, Reference, format_attribute_set
from stecflow.report.context import (
    Block,
    Context,
    headline_metrics,
    metric_ids,
    notice,
    paragraph,
    ranking_metric,
    subset_title,
)
from stecflow.report.formatting import DASH, fixed, parse_float, system_anchor
from stecflow.report.inputs import MetricInfo, PathLike, SystemEntry
from stecflow.report.presentation import score_text

__all__ = [
    "ITEM_ROWS",
    "MAX_ITEMS",
    "SHOWN_ITEMS",
    "SHOWN_REFERENCES",
    "competition_ranks",
    "ItemScores",
    "read_item_scores",
    "read_items",
    "reference_cell",
    "status_text",
    "teams_section",
]

#: Items shown before the collapsed rest, worst first.
SHOWN_ITEMS = 10
#: Items listed per submission at most (the rest: in its item-scores table).
MAX_ITEMS = 500
#: Item rows of the whole section: a campaign of many submissions lists fewer
#: items per submission (at least :data:`SHOWN_ITEMS`), so the one report stays
#: small enough to open (1,000 submissions x 112 items would be 112,000 rows).
ITEM_ROWS = 20_000
#: References listed per item at most (an item of the b5-ref corpus has ~150):
#: the closest to the output by the primary metric, then "… and N more".
SHOWN_REFERENCES = 5
#: Problems listed per kind (errors, warnings) in a submission's part.
SHOWN_PROBLEMS = 5

Key = tuple[str, str]


def read_items(path: PathLike) -> list[Item]:
    """The test set's items, with their references."""
    from stecflow.tasks.registry import read_testset

    return read_testset(path)


def read_item_scores(paths: Sequence[PathLike]) -> ItemScores:
    """Item scores over all references, as (team, system) -> item -> metric -> value.

    *paths* are ``scores/items/<team>/<system>.tsv``: the team is the folder's
    name, the system the file's stem. Rows scoring one reference alone are left
    out; a rejected submission's table is empty. Each table is read when its
    submission is looked up (:class:`ItemScores`), so the report holds one
    submission's item scores at a time, not a campaign's.
    """
    return ItemScores(paths)


class ItemScores(Mapping[Key, dict[str, dict[str, "float | None"]]]):
    """(team, system) -> item -> metric -> value, each table read when looked up."""

    def __init__(self, paths: Sequence[PathLike]) -> None:
        self._paths = dict(
            sorted(((Path(p).parent.name, Path(p).stem), Path(p)) for p in paths)
        )

    def __getitem__(self, key: Key) -> dict[str, dict[str, float | None]]:
        return self.read(key)

    def read(
        self, key: Key, metrics: Collection[str] | None = None
    ) -> dict[str, dict[str, float | None]]:
        """The submission's item scores; with *metrics*, of those metrics only
        (the other rows are skipped unread: a report shows a few metrics)."""
        items: dict[str, dict[str, float | None]] = {}
        rows = iter_tsv_columns(
            self._paths[key],
            ("item", "metric", "value"),
            where=("reference", "*"),
            among=None if metrics is None else ("metric", metrics),
        )
        for item, metric, value in rows:
            items.setdefault(item, {})[metric] = parse_float(value)
        return items

    def read_references(
        self, key: Key, metric: str, items: Collection[str]
    ) -> dict[str, dict[str, float | None]]:
        """Item -> reference ID -> the submission's score against that reference
        alone, on *metric*, of the *items* (none for a metric scored over all
        references only)."""
        out: dict[str, dict[str, float | None]] = {}
        wanted = frozenset(items)
        rows = iter_tsv_columns(
            self._paths[key],
            ("item", "reference", "value"),
            among=("metric", (metric,)),
        )
        for item, reference, value in rows:
            if reference != "*" and item in wanted and reference is not None:
                out.setdefault(item, {})[reference] = parse_float(value)
        return out

    def __contains__(self, key: object) -> bool:  # without reading the table
        return key in self._paths

    def __iter__(self) -> Iterator[Key]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)


def competition_ranks(
    ctx: Context, metric: str, kind: str = "all", subset: str = "all"
) -> dict[Key, int]:
    """Rank of each official system on one metric and subset, with ties.

    Competition ranking ("1, 2, 2, 4", :func:`stecflow.report.tables.competition_ranks`)
    of the scores as the report shows them (rounded to the table's digits, as
    the leaderboard tables rank), so a submission's section and the main tables
    agree. Late and superseded submissions, human reference sets and systems
    without the score are not ranked.
    """
    from stecflow.report.tables import competition_ranks as ranks_of

    info = ctx.metric(metric)
    values = {}
    for e in ctx.scored:
        if not e.official or e.reference:
            continue
        shown = info.show(e.value(metric, kind, subset))
        if shown is not None:
            values[e.key] = round(shown, info.digits)
    ranked = ranks_of(list(values.values()), info.higher_is_better)
    return dict(zip(values, ranked, strict=True))


def status_text(record: Mapping[str, Any] | None, entry: SystemEntry | None) -> str:
    """``valid``, ``valid with warnings`` or ``rejected`` (from the record)."""
    if record is None:
        return "rejected" if entry is None or entry.status != "scored" else "valid"
    if record.get("status") != "accepted":
        return "rejected"
    return "valid with warnings" if int(record.get("n_warnings") or 0) else "valid"


def _problem_text(problem: Mapping[str, Any]) -> str:
    where = str(problem.get("file") or "")
    if problem.get("line"):
        where += f", line {problem['line']}"
    if problem.get("field"):
        where += f", {problem['field']}"
    message = str(problem.get("message") or problem.get("code") or "")
    return f"{where}: {message}" if where else message


def _problems(record: Mapping[str, Any], name: str, label: str) -> list[Block]:
    found = list(record.get(name) or [])
    if not found:
        return []
    items = [_problem_text(p) for p in found[:SHOWN_PROBLEMS]]
    if len(found) > SHOWN_PROBLEMS:
        items.append(f"… and {len(found) - SHOWN_PROBLEMS} more")
    return [paragraph(f"{label} ({len(found)}):"), {"kind": "list", "items": items}]


def _validation_blocks(
    record: Mapping[str, Any] | None, entry: SystemEntry | None
) -> list[Block]:
    status = status_text(record, entry)
    if record is None:
        reason = entry.reason if entry is not None else ""
        return [
            notice(
                "No validation record." + (f" {reason}." if reason else ""),
                "warning",
                f"Validation: {status}",
            )
        ]
    errors = int(record.get("n_errors") or 0)
    warnings = int(record.get("n_warnings") or 0)
    counts = (
        f"{errors} error{'s' * (errors != 1)},"
        f" {warnings} warning{'s' * (warnings != 1)};"
        f" {record.get('n_outputs', DASH)} outputs for"
        f" {record.get('n_items', DASH)} items."
    )
    if status == "rejected":
        text = f"{counts} Rejected at validation: not scored, so no scores or ranks."
    else:
        text = counts
    tone = "warning" if status != "valid" else "info"
    blocks = [notice(text, tone, f"Validation: {status}")]
    blocks += _problems(record, "errors", "Errors")
    blocks += _problems(record, "warnings", "Warnings")
    return blocks


def _cell(text: str, detail: str = "", classes: str = "") -> dict[str, str]:
    return {"text": text, "detail": detail, "classes": classes}


def grid(
    columns: Sequence[tuple[str, str]], rows: list[list[dict[str, str]]], caption: str
) -> Block:
    """A plain table block (no number, no downloads): ``(label, align)`` columns."""
    return {
        "kind": "grid",
        "caption": caption,
        "columns": [{"label": label, "align": align} for label, align in columns],
        "rows": rows,
    }


def _unranked(entry: SystemEntry) -> str:
    if entry.superseded_by:
        return "not ranked (superseded)"
    if entry.late:
        return "not ranked (late)"
    if entry.reference:
        return "not ranked (human reference)"
    return "not ranked"


def _subsets(ctx: Context, entry: SystemEntry) -> list[tuple[str, str]]:
    """The entry's subsets in the order of the test set's subsets."""
    present = {(kind, subset) for _, kind, subset in entry.scores}
    order = [(kind, name) for kind, name, _ in ctx.testset.subset_sizes()]
    known = [s for s in order if s in present]
    return known + sorted(present - set(known))


def _score_blocks(
    ctx: Context,
    entry: SystemEntry,
    ranked: dict[tuple[str, str, str], dict[Key, int]],
    ids: Sequence[str],
    n_ranked: int,
) -> list[Block]:
    """The score table of one submission; *ranked* holds the ranks of every
    metric and subset (:func:`competition_ranks`), filled on first use and
    shared by all submissions; *ids* are the report's metrics in order;
    *n_ranked* is the number of official systems."""
    subsets = _subsets(ctx, entry)
    present = {k[0] for k in entry.scores}
    metrics = [m for m in ids if m in present]
    for m in metrics:
        for kind, subset in subsets:
            if (m, kind, subset) not in ranked:
                ranked[m, kind, subset] = competition_ranks(ctx, m, kind, subset)
    rows = []
    for metric in metrics:
        info = ctx.metric(metric)
        row = [_cell(info.header)]
        for kind, subset in subsets:
            low, high = entry.interval(metric, kind, subset)
            shown = score_text(info, entry.value(metric, kind, subset), low, high)
            if shown is None:
                row.append(_cell(DASH, classes="n missing"))
                continue
            rank = ranked[metric, kind, subset].get(entry.key)
            rank_text = (
                f"rank {rank} of {len(ranked[metric, kind, subset])}"
                if rank is not None
                else _unranked(entry)
            )
            detail = f"{shown.interval} · {rank_text}" if shown.interval else rank_text
            row.append(_cell(shown.text, detail, "n"))
        rows.append(row)
    for metric, reason in sorted(entry.skipped.items()):
        cells = [_cell(f"not computed: {reason}", classes="missing")]
        cells += [_cell(DASH, classes="n missing") for _ in subsets[1:]]
        rows.append([_cell(ctx.metric(metric).header), *cells])
    columns = [("Metric", "l")] + [
        (subset_title(kind, subset), "r") for kind, subset in subsets
    ]
    caption = (
        f"Scores of {entry.team}/{entry.system} per metric and subset, each with its"
        f" interval and its rank among the {n_ranked} official systems (ties share a"
        " rank: 1, 2, 2, 4)."
    )
    return [grid(columns, rows, caption)]


def _field_text(source: Output | Reference, name: str) -> str | None:
    if name == "attribute_set":
        value = source.attribute_set
        return None if value is None else format_attribute_set(value)
    if name == "word_string":
        return source.word_string
    value = source.get(name)
    if value is None:
        return None
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _fields(ctx: Context, record: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """``(field, label)`` of what the submission's task types output."""
    from stecflow.tasks.registry import task_types

    names = list((record or {}).get("tasks") or [])
    campaign = (ctx.config.get("campaign") or {}).get("tasks") or None
    types = task_types(names) if names else task_types(campaign)[:1]
    fields: dict[str, str] = {}
    for task in types:
        for name in task.outputs:
            fields.setdefault(name, task.labels.get(name, name.replace("_", " ")))
    return list(fields.items())


def _primary_metric(
    ctx: Context, scores: Mapping[str, Mapping[str, float | None]]
) -> str | None:
    """The metric the items are ordered by: the ranking metric if scored."""
    present = {
        m for values in scores.values() for m, v in values.items() if v is not None
    }
    first = ranking_metric(ctx)
    if first in present:
        return first
    return next((m for m in metric_ids(ctx) if m in present), None)


def _item_metrics(ctx: Context, primary: str, scores: Mapping[str, Any]) -> list[str]:
    present = {m for values in scores.values() for m in values}
    return [primary] + [
        m for m in headline_metrics(ctx) if m in present and m != primary
    ]


#: item ID -> reference ID -> an output's score against that reference alone
ReferenceScores = Mapping[str, Mapping[str, "float | None"]]

#: (item ID, fields) -> what :func:`_reference_texts` made of the item
ReferenceTexts = dict[tuple[str, tuple[tuple[str, str], ...]], list[tuple[str, str]]]


def _reference_texts(
    item: Item, fields: tuple[tuple[str, str], ...], made: ReferenceTexts
) -> list[tuple[str, str]]:
    """``(reference ID, "ID: what it says")`` of each of the item's references,
    made once (kept in *made*) for all the submissions that list the item."""
    key = (item.id, fields)
    if key in made:
        return made[key]
    out = made[key] = []
    for n, ref in enumerate(item.references, start=1):
        ref_id = ref.id or f"ref-{n}"
        shown = [t for name, _ in fields if (t := _field_text(ref, name))]
        out.append((ref_id, f"{ref_id}: {' '.join(shown) if shown else DASH}"))
    return out


def item_limit(n_submissions: int) -> int:
    """Items listed per submission: :data:`MAX_ITEMS`, fewer when many share
    :data:`ITEM_ROWS`, never fewer than :data:`SHOWN_ITEMS`.

    >>> item_limit(4), item_limit(100), item_limit(1000)
    (500, 200, 20)
    """
    share = ITEM_ROWS // max(n_submissions, 1)
    return max(SHOWN_ITEMS, min(MAX_ITEMS, share))


def reference_cell(
    references: Sequence[tuple[str, str]],
    closeness: Mapping[str, float | None] | None = None,
    info: MetricInfo | None = None,
    limit: int | None = None,
) -> tuple[str, int]:
    """An item's references cell, and how many references it leaves out.

    *references* are ``(reference ID, "ID: what it says")`` in test-set order,
    all shown when they are *limit* or fewer. Of more, *limit* are shown: given
    the output's score against each reference alone (*closeness*, on *info*'s
    metric), the closest first, each with that score (``ID (0.75): ...``);
    otherwise the first in test-set order. A last line counts the others.
    *limit* is :data:`SHOWN_REFERENCES` unless given.

    Examples
    --------
    >>> refs = [(f"r{n}", f"r{n}: text {n}") for n in range(1, 8)]
    >>> print(reference_cell(refs, limit=2)[0])
    r1: text 1
    r2: text 2
    … and 5 more
    >>> info = MetricInfo("dice", "dice", "Dice", "Dice", "set", "item", True)
    >>> text, more = reference_cell(refs, {"r3": 0.5, "r6": 0.9}, info, limit=2)
    >>> print(text)
    r6 (0.90): text 6
    r3 (0.50): text 3
    … and 5 more
    >>> more
    5
    """
    limit = SHOWN_REFERENCES if limit is None else limit
    if len(references) <= limit:
        return "\n".join(text for _, text in references) or DASH, 0
    lines = []
    if closeness and info is not None:
        sign = -1.0 if info.higher_is_better else 1.0

        def distance(n: int) -> tuple[int, float, int]:
            value = closeness.get(references[n][0])
            return (1, 0.0, n) if value is None else (0, sign * value, n)

        for n in sorted(range(len(references)), key=distance)[:limit]:
            ref_id, text = references[n]
            value = closeness.get(ref_id)
            if value is not None:
                score = fixed(info.show(value), info.digits)
                text = f"{ref_id} ({score}):" + text.removeprefix(f"{ref_id}:")
            lines.append(text)
    else:
        lines = [text for _, text in references[:limit]]
    more = len(references) - limit
    return "\n".join([*lines, f"… and {more} more"]), more


def _item_blocks(
    ctx: Context,
    entry: SystemEntry,
    record: Mapping[str, Any] | None,
    items: Sequence[Item],
    scores: Mapping[str, Mapping[str, float | None]],
    outputs: Callable[[Collection[str]], Sequence[Output]] | None,
    limit: int | None = None,
    references: ReferenceTexts | None = None,
    reference_scores: Callable[[str, Collection[str]], ReferenceScores] | None = None,
) -> list[Block]:
    """Its items, worst first; *outputs* gives the outputs of the items listed
    (None: the outputs are not shown); *reference_scores* (metric, item IDs) the
    scores against each reference alone (:meth:`ItemScores.read_references`),
    to show the closest of an item's many references (:func:`reference_cell`)."""
    primary = _primary_metric(ctx, scores)
    info = ctx.metric(primary) if primary is not None else None
    metrics = _item_metrics(ctx, primary, scores) if primary is not None else []
    fields = tuple(_fields(ctx, record))
    references = {} if references is None else references
    exclude = entry.system if entry.reference else None

    def badness(item: Item) -> tuple[int, float, str]:
        value = scores.get(item.id, {}).get(primary) if info is not None else None
        if value is None or info is None:
            return (1, 0.0, item.id)
        return (0, value if info.higher_is_better else -value, item.id)

    scored = sorted(items, key=badness) if info is not None else list(items)
    limit = MAX_ITEMS if limit is None else limit
    # a human reference set's own reference is left out of its items' references
    left_out = exclude is not None and any(
        ref_id == exclude
        for item in scored
        for ref_id, _ in _reference_texts(item, fields, references)
    )
    listed = scored[: max(limit, SHOWN_ITEMS)]  # the worst items, up to the limit
    found = outputs([item.id for item in listed]) if outputs is not None else ()
    by_id = {o.item_id: o for o in found}
    ref_lists = {
        item.id: [
            (ref_id, text)
            for ref_id, text in _reference_texts(item, fields, references)
            if ref_id != exclude
        ]
        for item in listed
    }
    crowded = [i for i, refs in ref_lists.items() if len(refs) > SHOWN_REFERENCES]
    # the closest references by the first shown metric scored per reference
    close_by: MetricInfo | None = None
    closeness: ReferenceScores = {}
    for metric in metrics if crowded and reference_scores is not None else ():
        closeness = reference_scores(metric, crowded)
        if closeness:
            close_by = ctx.metric(metric)
            break
    rows = []
    for item in listed:
        row = [_cell(item.id)]
        output = by_id.get(item.id)
        if outputs is not None:
            for name, _ in fields:
                text = _field_text(output, name) if output is not None else None
                row.append(_cell(DASH if text is None else text, classes="t"))
        refs, _ = reference_cell(ref_lists[item.id], closeness.get(item.id), close_by)
        row.append(_cell(refs, classes="t refs"))
        for metric in metrics:
            shown = ctx.metric(metric).show(scores.get(item.id, {}).get(metric))
            row.append(_cell(fixed(shown, ctx.metric(metric).digits), classes="n"))
        rows.append(row)
    columns = [("Item", "l")]
    if outputs is not None:
        columns += [(f"Output: {label}", "l") for _, label in fields]
    columns.append(("References", "l"))
    columns += [(ctx.metric(m).header, "r") for m in metrics]
    if info is None:
        blocks = [paragraph("No item scores: the items in test-set order.")]
    else:
        worst = "lowest" if info.higher_is_better else "highest"
        blocks = [
            paragraph(
                f"Items worst first by {info.display_name} ({info.header},"
                f" {info.direction}: {worst} first); each item's scores are over all"
                " its references"
                + (
                    " (as a human reference set, the references other than"
                    f" {entry.system})."
                    if left_out
                    else "."
                )
            )
        ]
    if crowded:
        where = f"scores/items/{entry.team}/{entry.system}.tsv"
        blocks.append(
            paragraph(
                f"An item lists at most {SHOWN_REFERENCES} of its references: "
                + (
                    f"those closest to the output by {close_by.display_name}"
                    " (its score against each reference alone in brackets)"
                    if close_by is not None
                    else "the first in the test set"
                )
                + ", then how many more it has. All of an item's references are"
                " in the test set, and the output's score against each in ",
                {"code": where, "text": where},
                " (the rows of its reference ID).",
            )
        )
    if outputs is None:
        consented = bool(((record or {}).get("metadata") or {}).get("release_consent"))
        blocks.append(
            notice(
                "Outputs are not shown: "
                + (
                    "they were not available to this report."
                    if consented
                    else "the team did not consent to their release"
                    " (release_consent in system.yaml)."
                ),
                "info",
            )
        )
    shown, kept = rows[:SHOWN_ITEMS], rows[SHOWN_ITEMS:]
    n_rest = len(scored) - len(shown)  # items after the first shown
    name = f"{entry.team}/{entry.system}"
    caption = (
        f"The {len(shown)} worst item{'s' * (len(shown) != 1)} of {name}."
        if n_rest
        else f"All {len(shown)} items of {name}, worst first."
    )
    blocks.append(grid(columns, shown, caption))
    if n_rest:
        inner = []
        if kept:
            first, last = len(shown) + 1, len(shown) + len(kept)
            inner.append(
                grid(
                    columns,
                    kept,
                    f"Items {first}–{last} of {name}."
                    if last > first
                    else f"Item {first} of {name}.",
                )
            )
        if len(kept) < n_rest:  # the page stays small in large campaigns
            inner.append(
                paragraph(
                    f"Not listed here: the {n_rest - len(kept)} best"
                    f" item{'s' * (n_rest - len(kept) != 1)}; every item's scores"
                    " are in ",
                    {
                        "code": f"scores/items/{entry.team}/{entry.system}.tsv",
                        "text": f"scores/items/{entry.team}/{entry.system}.tsv",
                    },
                    " (also in the release archive).",
                )
            )
        blocks.append(
            {
                "kind": "details",
                "summary": f"The other {n_rest} items of {name}",
                "blocks": inner,
            }
        )
    return blocks


def _outputs_of(
    outputs: Mapping[Key, Sequence[Output]] | None, key: Key
) -> Callable[[Collection[str]], Sequence[Output]] | None:
    """How to get a submission's outputs of some items (None: not shown); from
    :class:`stecflow.release.archive.ReleasedOutputs`, only those items are read."""
    if outputs is None or key not in outputs:
        return None
    read = getattr(outputs, "read", None)
    if read is not None:
        return partial(read, key)
    return lambda _ids: outputs[key]


def _scores_of(
    ctx: Context,
    item_scores: Mapping[Key, Mapping[str, Mapping[str, float | None]]],
    key: Key,
    shown: Collection[str],
) -> Mapping[str, Mapping[str, float | None]]:
    """The item scores :func:`_item_blocks` shows of one submission: from an
    :class:`ItemScores`, only the *shown* metrics (the ranking and headline
    ones) are read, unless the submission lacks the ranking metric (then its
    items are ordered by another, :func:`_primary_metric`, and every metric is
    read)."""
    read = getattr(item_scores, "read", None)
    if read is None or key not in item_scores:
        return item_scores.get(key, {})
    scores = read(key, shown)
    return scores if _primary_metric(ctx, scores) == ranking_metric(ctx) else read(key)


def _reference_scores_of(
    item_scores: Mapping[Key, Any], key: Key
) -> Callable[[str, Collection[str]], ReferenceScores] | None:
    """How to read a submission's scores per reference (None: not at hand)."""
    read = getattr(item_scores, "read_references", None)
    if read is None or key not in item_scores:
        return None
    return partial(read, key)


def teams_section(
    ctx: Context,
    items: Sequence[Item],
    item_scores: Mapping[Key, Mapping[str, Mapping[str, float | None]]],
    outputs: Mapping[Key, Sequence[Output]] | None = None,
) -> list[Block]:
    """The blocks of the section "Submissions": one part per submission.

    Parameters
    ----------
    ctx
        The report's context (scores, validation records).
    items
        The test set's items (for the references).
    item_scores
        From :func:`read_item_scores`.
    outputs
        Each submission's outputs, for the submissions whose outputs may be
        shown (consented); the others show their items without outputs.
    """
    entries = {e.key: e for e in ctx.entries}
    keys = sorted(set(entries) | set(ctx.records))
    if not keys:
        return [paragraph("No submissions.")]
    blocks: list[Block] = [
        paragraph(
            "Each submission's validation, its scores and ranks per metric and subset,"
            " and its items, worst first. Submissions: ",
            *[
                part
                for n, key in enumerate(keys)
                for part in ([{"text": ", "}] if n else [])
                + [{"text": f"{key[0]}/{key[1]}", "href": "#" + system_anchor(*key)}]
            ],
            ".",
        )
    ]
    ranked: dict[tuple[str, str, str], dict[Key, int]] = {}
    references: ReferenceTexts = {}
    ids = metric_ids(ctx)
    n_ranked = sum(1 for e in ctx.scored if e.official and not e.reference)
    shown = {ranking_metric(ctx), *headline_metrics(ctx)}
    for key in keys:
        entry = entries.get(key)
        record = ctx.records.get(key)
        blocks.append(
            {"kind": "h4", "text": f"{key[0]}/{key[1]}", "id": system_anchor(*key)}
        )
        blocks += _validation_blocks(record, entry)
        if entry is None or entry.status != "scored":
            continue
        blocks += _score_blocks(ctx, entry, ranked, ids, n_ranked)
        blocks += _item_blocks(
            ctx,
            entry,
            record,
            items,
            _scores_of(ctx, item_scores, key, shown),
            _outputs_of(outputs, key),
            item_limit(len(keys)),
            references,
            _reference_scores_of(item_scores, key),
        )
    return blocks

"""Scoring one submission: every configured metric on every item.

One job per submission (:func:`score_submission`, in the ``check_submission`` rule)
computes every metric on every item and writes two files:

* ``scores/items/<team>/<system>.tsv``: one row per item × reference × metric. The
  row whose ``reference`` is ``*`` is the item's score over all its references (the
  number the system score averages) and carries the metric's sufficient statistics,
  so tables can be recomputed without re-reading any text; the other rows score the
  output against each reference alone.
* ``scores/systems/<team>/<system>.json``: the system's score for every metric and
  subset (all items, each subdomain, each condition, each value of the meta
  fields the config names in ``data.subsets``) with n, a seeded 95% bootstrap
  confidence interval and the signature. Corpus-level metrics (BLEU, NIST) are
  computed at corpus level on each subset, never averaged from item scores.

:func:`stecflow.scoring.systems.aggregate_scores` concatenates the per-system
summaries into ``scores/systems.tsv``. A late submission therefore costs one
scoring job plus a cheap concatenation.

Human reference sets (``reference: true`` in their metadata, e.g. HUMAN-1) are
scored against the *other* references of each item, as in TUNA-REG'09 Table 5: a
reference whose ID equals the system ID is left out. What a metric scores of an
output, and what an item's input gives it, comes from the campaign's task type
(:mod:`stecflow.tasks`).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.metrics`,
:mod:`stecflow.tasks`, :mod:`stecflow.submissions`.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stecflow.core.io import read_json, write_json, write_tsv
from stecflow.data.model import Item, Output
from stecflow.scoring.bootstrap import bootstrap_intervals, subsets_of
from stecflow.scoring.specs import (
    _realiser,
    _signature_extra,
    _task,
    build_metrics,
    metric_specs,
)

if TYPE_CHECKING:
    from stecflow.tasks.base import TaskType

__all__ = ["ITEM_COLUMNS", "ItemRows", "score_outputs", "score_submission"]


log = logging.getLogger(__name__)


ITEM_COLUMNS = (
    "item",
    "subdomain",
    "condition",
    "metric",
    "reference",
    "value",
    "stats",
)


def _references(
    item: Item,
    input_type: str,
    exclude: str | None,
    task: TaskType,
    realiser: Any = None,
) -> list[tuple[str, Any]]:
    refs = []
    for n, reference in enumerate(item.references, start=1):
        ref_id = reference.id or f"ref-{n}"
        if exclude is not None and ref_id == exclude:
            continue
        value = task.metric_input(reference, input_type, realiser)
        if value is not None:
            refs.append((ref_id, value))
    return refs


def _stats_text(stats: tuple[float, ...]) -> str:
    return " ".join(repr(float(x)) for x in stats)


def score_outputs(
    items: Sequence[Item],
    outputs: Sequence[Output],
    scoring: Mapping[str, Any] | None = None,
    *,
    exclude_reference: str | None = None,
    tasks: Sequence[str] | None = None,
    subsets: Sequence[str] = (),
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Score a system's outputs on *items* with every configured metric.

    This is the one code path behind the workflow and ``stecflow score``.

    Parameters
    ----------
    items
        The test (or development) items with their references.
    outputs
        The system's outputs; items without an output are not scored (validation
        rejects such submissions before they get here).
    scoring
        The config's ``scoring`` section (metrics, text settings, bootstrap).
    exclude_reference
        A reference ID to leave out of every item (a human reference set scored
        against the others).
    tasks
        The campaign's task-type names (None: the built-in REG tasks). The first
        says what each metric scores of an output and of a reference and what an
        item's input gives metrics that look at it; together they give the
        default metrics.
    subsets
        Meta fields (config ``data.subsets``) whose values each give a subset
        of their own (:func:`~stecflow.scoring.bootstrap.subsets_of`).

    Returns
    -------
    (item_rows, system_rows)
        Rows with the columns of :data:`ITEM_COLUMNS` (an :class:`ItemRows`,
        whose rows are made as it is iterated) and, without team-level fields,
        of :data:`SYSTEM_COLUMNS`. A metric whose input the system did not
        produce (e.g. word-string metrics for an attribute-selection system) gets
        one system row with status ``skipped`` and the reason.
    """
    by_id = {o.item_id: o for o in outputs}
    scored_items = [i for i in items if i.id in by_id]
    boot = (scoring or {}).get("bootstrap") or {}
    resamples = int(boot.get("resamples", 1000))
    seed = int(boot.get("seed", 2009))
    confidence = float(boot.get("confidence", 0.95))
    extra = {"bs": resamples, "seed": seed}
    item_rows = ItemRows(scored_items)
    system_rows: list[dict[str, Any]] = []
    subset_list = subsets_of(scored_items, subsets)
    for field in subsets:
        if not any(kind == field for kind, _, _ in subset_list):
            log.warning(
                "data.subsets names %r, a meta field no scored item has: no"
                " subsets for it",
                field,
            )
    task = _task(tasks)
    metrics = build_metrics(metric_specs(scoring, tasks))
    contexts = _item_contexts(
        task, scored_items, normalise=any(_is_set_metric(m) for _, m in metrics)
    )
    pending: list[Any] = []  # rows whose bootstrap intervals are filled at the end
    realiser = _realiser(scoring, task)
    normalised: dict[str, Any] = {}
    held_ids: dict[tuple[str, ...], tuple[str, ...]] = {}
    for spec, metric in metrics:
        signature = metric.signature(
            extra=_signature_extra(scoring, metric, extra, task)
        )
        base = {
            "metric": spec.id,
            "metric_name": metric.display_name,
            "higher_is_better": metric.higher_is_better,
            "signature": signature,
        }
        hyps = [
            task.metric_input(by_id[i.id], metric.input_type, realiser)
            for i in scored_items
        ]
        missing = sum(h is None for h in hyps)
        refs_with_ids = [
            _references(i, metric.input_type, exclude_reference, task, realiser)
            for i in scored_items
        ]
        domain_only = _is_domain_only(metric)
        no_refs = [
            i.id for i, r in zip(scored_items, refs_with_ids, strict=True) if not r
        ]
        reason = None
        if not scored_items:
            reason = "no outputs to score"
        elif missing:
            kind = (
                "attribute sets"
                if metric.input_type == "attributes"
                else "word strings"
            )
            reason = f"the outputs have no {kind} ({missing} of {len(hyps)} items)"
        elif no_refs and not domain_only:
            reason = (
                f"{len(no_refs)} items have no reference of this kind"
                f" (first: {no_refs[0]}); the metric needs one per item"
            )
        if reason is not None:
            system_rows.append(
                {
                    **base,
                    "status": "skipped",
                    "subset_kind": "all",
                    "subset": "all",
                    "reason": reason,
                }
            )
            continue
        refs = [[value for _, value in r] for r in refs_with_ids]
        if _is_set_metric(metric):  # normalise the sets once for every set metric
            if "sets" not in normalised:
                normalised["sets"] = _normalised_sets(hyps, refs)
            hyps, refs = normalised["sets"]
        stats = metric.corpus_stats(hyps, refs, contexts)
        per_reference = _per_reference_scores(metric, hyps, refs, contexts, domain_only)
        each_reference = metric.level == "item" and not domain_only
        ref_ids: list[tuple[str, ...]] = []
        ref_values: list[Any] = []
        for hyp, item_refs, context in zip(hyps, refs_with_ids, contexts, strict=True):
            if not each_reference or len(item_refs) < 2:
                ref_ids.append(())
                continue
            ids = tuple(ref_id for ref_id, _ in item_refs)
            ref_ids.append(held_ids.setdefault(ids, ids))  # one tuple for all metrics
            for _, value in item_refs:
                ref_values.append(
                    next(per_reference)
                    if per_reference is not None
                    else metric.score_segment(hyp, [value], **context)
                )
        item_rows.add(spec.id, metric, stats, ref_ids, ref_values)
        for kind, name, indices in subset_list:
            if metric.requires_corpus and kind != "all":
                subset_stats = metric.corpus_stats(
                    [hyps[i] for i in indices],
                    [refs[i] for i in indices],
                    [contexts[i] for i in indices],
                )
                source = subset_stats  # the intervals' statistics (bootstrap_intervals)
            else:
                subset_stats = [stats[i] for i in indices]
                source = stats
            summary = metric.summary(subset_stats)
            row = {
                **base,
                "status": "scored",
                "subset_kind": kind,
                "subset": name,
                "value": metric.aggregate(subset_stats),
                "n": summary.get("n_scored", summary["n_items"]),
                "n_skipped": summary.get("n_skipped", 0),
                "ci_low": None,
                "ci_high": None,
            }
            system_rows.append(row)
            pending.append((kind, name, indices, metric, source, row))
    bootstrap_intervals(pending, resamples, seed, confidence)
    return item_rows, system_rows


class ItemRows:
    """A system's item rows (:data:`ITEM_COLUMNS`), made as they are read.

    Sorted by item, then metric, then the all-references row (``*``) before the
    rows of each reference by ID. Each metric keeps only what its rows are made
    from: its statistics of every item (which the bootstrap intervals hold
    anyway) and its scores against each reference of multi-reference items.
    Rows are dicts made while iterating, so writing the 390,000 rows of a
    10,000-item test set never holds them all (about 900 bytes a row as dicts).
    """

    def __init__(self, items: Sequence[Item]) -> None:
        self._items = list(items)
        self._metrics: list[tuple[str, Any, Sequence[Any], list[Any], list[Any]]] = []

    def add(
        self,
        metric_id: str,
        metric: Any,
        stats: Sequence[tuple[float, ...]],
        ref_ids: Sequence[tuple[str, ...]],
        ref_values: Sequence[Any],
    ) -> None:
        """One metric's rows: *stats* and *ref_ids* per item (no IDs: no rows per
        reference); *ref_values* flat, each item's scores in its *ref_ids* order."""
        self._metrics.append((metric_id, metric, stats, list(ref_ids), ref_values))

    def __len__(self) -> int:
        return sum(len(m[2]) + len(m[4]) for m in self._metrics)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        metrics = sorted(self._metrics, key=lambda m: m[0])
        starts = [
            list(itertools.accumulate(map(len, m[3]), initial=0)) for m in metrics
        ]  # where each item's reference scores start in each metric's flat list
        items = self._items
        order = sorted(range(len(items)), key=lambda n: items[n].id)
        rows = self._rows(metrics, starts, order)
        if len({i.id for i in items}) == len(items):
            yield from rows
        else:  # one ID twice (validation prevents it): the rows of both, sorted
            yield from sorted(
                rows,
                key=lambda r: (
                    r["item"],
                    r["metric"],
                    r["reference"] != "*",
                    r["reference"],
                ),
            )

    def _rows(
        self, metrics: list[Any], starts: list[list[int]], order: Sequence[int]
    ) -> Iterator[dict[str, Any]]:
        for n in order:
            item = self._items[n]
            for (metric_id, metric, stats, ref_ids, values), offsets in zip(
                metrics, starts, strict=True
            ):
                common = {
                    "item": item.id,
                    "subdomain": item.subdomain,
                    "condition": item.condition,
                    "metric": metric_id,
                }
                item_stats = stats[n]
                yield {
                    **common,
                    "reference": "*",
                    "value": metric.score_from_stats(item_stats),
                    "stats": _stats_text(item_stats),
                }
                ids = ref_ids[n]
                first = offsets[n]
                for k in sorted(range(len(ids)), key=ids.__getitem__):
                    yield {**common, "reference": ids[k], "value": values[first + k]}


def _is_set_metric(metric: Any) -> bool:
    """True for stecflow's own attribute-set metrics (they normalise their sets)."""
    from stecflow.metrics.distinguishing import DomainMetric
    from stecflow.metrics.sets import AttributeSetMetric

    return isinstance(metric, AttributeSetMetric | DomainMetric)


def _normalised_sets(hyps: Sequence[Any], refs: Sequence[Sequence[Any]]) -> Any:
    """The outputs and references as normalised sets, made once."""
    from stecflow.metrics.sets import prepare_sets

    try:
        return prepare_sets(hyps, refs)
    except (TypeError, ValueError):  # the metrics name the problem
        return hyps, refs


def _item_contexts(
    task: TaskType, items: Sequence[Item], *, normalise: bool
) -> list[dict[str, Any]]:
    """Each item's context for the metrics (the task's ``scoring_context``).

    With *normalise* (some metric compares attribute sets), the domain's sets
    (``target``, ``distractors``) are normalised as the set metrics would
    normalise them, made once per item and held once: equal sets are one object
    and the task's own sets are not kept. Metrics other than the domain-aware
    set metrics ignore the context (:data:`stecflow.metrics.base.CONTEXT_KEYS`),
    so every metric gets these.
    """
    from stecflow.metrics.sets import (
        NormalisedSet,
        NormalisedSets,
        normalise_attribute_set,
    )

    if not normalise:
        return [dict(task.scoring_context(i)) for i in items]
    held: dict[Any, Any] = {}

    def one(pairs: Any) -> Any:
        if not isinstance(pairs, frozenset):
            return pairs
        normal = normalise_attribute_set(pairs, cache=False)
        return held.setdefault(normal, normal)

    contexts = []
    for item in items:
        context = dict(task.scoring_context(item))
        if "target" in context:
            context["target"] = one(context["target"])
        if isinstance(context.get("distractors"), list | tuple):
            distractors = list(map(one, context["distractors"]))
            if all(type(d) is NormalisedSet for d in distractors):
                distractors = NormalisedSets(distractors)  # not checked again
            context["distractors"] = distractors
        contexts.append(context)
    return contexts


def _per_reference_scores(
    metric: Any,
    hyps: Sequence[Any],
    refs: Sequence[Sequence[Any]],
    contexts: Sequence[Any],
    domain_only: bool,
) -> Any:
    """Scores against each reference of the multi-reference items, in one batch.

    An iterator over them in item and reference order (what
    ``metric.score_segment(hyp, [ref], **context)`` gives for each), or None
    where the metric's statistics depend on the whole test set.
    """
    if metric.level != "item" or domain_only or metric.requires_corpus:
        return None
    pairs = [
        (hyp, [ref], context)
        for hyp, item_refs, context in zip(hyps, refs, contexts, strict=True)
        if len(item_refs) > 1
        for ref in item_refs
    ]
    if not pairs:
        return iter(())
    pair_hyps, pair_refs, pair_contexts = zip(*pairs, strict=True)
    stats = metric.corpus_stats(list(pair_hyps), list(pair_refs), list(pair_contexts))
    return iter([metric.score_from_stats(s) for s in stats])


def _is_domain_only(metric: Any) -> bool:
    from stecflow.metrics.distinguishing import DomainMetric

    return isinstance(metric, DomainMetric)


def score_submission(
    validation_path: str | Path,
    submission_dir: str | Path,
    testset_path: str | Path,
    scoring: Mapping[str, Any] | None,
    items_path: str | Path,
    summary_path: str | Path,
    tasks: Sequence[str] | None = None,
    subsets: Sequence[str] = (),
    items: Sequence[Item] | None = None,
) -> dict[str, Any]:
    """Score one validated submission and write its item table and summary.

    A rejected submission is not scored: its files say ``skipped`` and why.
    *tasks* are the campaign's task-type names (None: the built-in REG tasks);
    *subsets* the meta fields of ``data.subsets`` (see :func:`score_outputs`).
    The outputs file is the one of the task type's names in the folder. *items*,
    when given, are the test set's items already read (the file is not read).
    """
    from stecflow.submissions.outputs import outputs_file, read_outputs
    from stecflow.submissions.safepath import read_submission_file
    from stecflow.tasks.base import Limits

    record = read_json(validation_path)
    identity = {
        "team": record["team"],
        "system": record["system"],
        "reference_set": record["reference"],
        "late": record["late"],
        "primary": record["primary"],
    }
    if record["status"] != "accepted":
        reason = f"rejected at validation ({record['n_errors']} errors)"
        write_tsv([], ITEM_COLUMNS, items_path)
        summary = {**identity, "status": "skipped", "reason": reason, "scores": []}
        write_json(summary, summary_path)
        log.info("%s/%s skipped: %s", record["team"], record["system"], reason)
        return summary
    if items is None:
        from stecflow.tasks.registry import read_testset

        items = read_testset(testset_path)
    name = outputs_file(record["tasks"], tasks or (), folder=submission_dir)
    data = read_submission_file(submission_dir, name)  # no link out of it
    limits = Limits.from_config(record.get("limits"))
    outputs, problems = read_outputs(
        data, name, items, record["tasks"], limits, campaign_tasks=tasks or ()
    )
    errors = [p for p in problems if p.severity == "error"]
    if errors:  # the files changed since validation; never score unchecked data
        raise ValueError(
            f"{record['team']}/{record['system']}: outputs changed since validation"
            f" ({errors[0].describe()}); run the workflow again"
        )
    exclude = record["system"] if record["reference"] else None
    item_rows, system_rows = score_outputs(
        items,
        outputs,
        scoring,
        exclude_reference=exclude,
        tasks=tasks,
        subsets=subsets,
    )
    write_tsv(item_rows, ITEM_COLUMNS, items_path)
    summary = {**identity, "status": "scored", "reason": None, "scores": system_rows}
    write_json(summary, summary_path)
    log.info(
        "%s/%s: %d item rows, %d system rows",
        record["team"],
        record["system"],
        len(item_rows),
        len(system_rows),
    )
    return summary

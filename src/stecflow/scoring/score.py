"""The scoring stage: every configured metric on one submission, then the tables.

One job per submission (:func:`score_submission`) computes every metric on every
item and writes two files:

* ``scores/items/<team>/<system>.tsv``: one row per item × reference × metric. The
  row whose ``reference`` is ``*`` is the item's score over all its references (the
  number the system score averages) and carries the metric's sufficient statistics,
  so tables can be recomputed without re-reading any text; the other rows score the
  output against each reference alone.
* ``scores/systems/<team>/<system>.json``: the system's score for every metric and
  subset (all items, each subdomain, each condition) with n, a seeded 95% bootstrap
  confidence interval and the signature. Corpus-level metrics (BLEU, NIST) are
  computed at corpus level on each subset, never averaged from item scores.

:func:`aggregate_scores` concatenates the per-system summaries into
``scores/systems.tsv``. A late submission therefore costs one scoring job plus a
cheap concatenation.

Human reference sets (``reference: true`` in their metadata, e.g. HUMAN-1) are
scored against the *other* references of each item, as in TUNA-REG'09 Table 5: a
reference whose ID equals the system ID is left out.
"""

from __future__ import annotations

import hashlib
import logging
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stecflow.core.errors import ConfigError
from stecflow.core.io import read_json, read_tsv, write_json, write_tsv

if TYPE_CHECKING:
    from stecflow.tasks.base import TaskType
from stecflow.data.model import Item, Output

__all__ = [
    "default_metrics",
    "ITEM_COLUMNS",
    "SYSTEM_COLUMNS",
    "MetricSpec",
    "aggregate_scores",
    "build_metrics",
    "check_coverage",
    "format_score_table",
    "metric_directions",
    "metric_signatures",
    "metric_specs",
    "score_outputs",
    "score_submission",
    "subsets_of",
    "system_rows",
]

log = logging.getLogger(__name__)


def default_metrics(tasks: Sequence[str] | None = None) -> tuple[str, ...]:
    """The metrics computed when the config lists none: those the campaign's task
    types declare (``default_metrics``), in their order, each once.

    *tasks* are task-type names (None: the built-in REG tasks).

    >>> default_metrics(["end_to_end"])[:3]
    ('dice', 'masi', 'set_accuracy')
    """
    from stecflow.tasks.registry import task_types

    names = [m for task in task_types(tasks) for m in task.default_metrics]
    return tuple(dict.fromkeys(names))


ITEM_COLUMNS = (
    "item",
    "subdomain",
    "condition",
    "metric",
    "reference",
    "value",
    "stats",
)

SYSTEM_COLUMNS = (
    "team",
    "system",
    "status",
    "reference_set",
    "late",
    "primary",
    "metric",
    "metric_name",
    "subset_kind",
    "subset",
    "value",
    "n",
    "n_skipped",
    "ci_low",
    "ci_high",
    "higher_is_better",
    "signature",
    "reason",
)


@dataclass(frozen=True)
class MetricSpec:
    """One configured metric: its ID in tables, registry name and options."""

    id: str
    name: str
    options: tuple[tuple[str, Any], ...]


def metric_specs(
    scoring: Mapping[str, Any] | None, tasks: Sequence[str] | None = None
) -> list[MetricSpec]:
    """Read the ``scoring`` config section into metric specs.

    Without ``scoring.metrics``, the metrics are the :func:`default_metrics` of the
    campaign's *tasks* (task-type names; None: the built-in REG tasks).

    ``scoring.text`` (``lowercase``, ``punctuation``) applies to every text metric
    that has those options, and ``scoring.value_hierarchy`` (an ontology of the
    attribute values) to every metric with a ``value_hierarchy`` option (the
    denotation similarity), unless the metric's own ``options`` say otherwise.

    Raises
    ------
    ConfigError
        For an unknown metric or option, or a repeated ID, naming the key path.
    """
    from stecflow.metrics import metric_class

    scoring = scoring or {}
    entries = scoring.get("metrics") or [
        {"id": name} for name in default_metrics(tasks)
    ]
    text = dict(scoring.get("text") or {})
    if scoring.get("value_hierarchy"):
        text["value_hierarchy"] = scoring["value_hierarchy"]
    specs = []
    seen = set()
    for n, entry in enumerate(entries):
        where = f"scoring.metrics[{n}]"
        name = entry.get("metric", entry["id"])
        try:
            cls = metric_class(name)
        except ValueError as exc:
            raise ConfigError(str(exc), field=f"{where}.metric") from None
        if entry["id"] in seen:
            raise ConfigError(f"metric ID {entry['id']!r} is used twice", field=where)
        seen.add(entry["id"])
        options = {k: v for k, v in text.items() if k in cls.option_names()}
        options.update(entry.get("options") or {})
        specs.append(MetricSpec(entry["id"], name, tuple(sorted(options.items()))))
    return specs


def build_metrics(specs: Sequence[MetricSpec]) -> list[tuple[MetricSpec, Any]]:
    """Instantiate the metrics; raise :class:`ConfigError` on a bad option."""
    from stecflow.metrics import get_metric

    built = []
    for spec in specs:
        try:
            built.append((spec, get_metric(spec.name, **dict(spec.options))))
        except (TypeError, ValueError) as exc:
            raise ConfigError(
                str(exc), field=f"scoring.metrics[{spec.id}].options"
            ) from None
    return built


def _bootstrap_extra(scoring: Mapping[str, Any] | None) -> dict[str, Any]:
    boot = (scoring or {}).get("bootstrap") or {}
    return {"bs": int(boot.get("resamples", 1000)), "seed": int(boot.get("seed", 2009))}


def _realised(scoring: Mapping[str, Any] | None) -> bool:
    """True if word-string metrics score template-realised attribute sets."""
    return (scoring or {}).get("realise") == "template"


def _task(tasks: Sequence[str] | None) -> TaskType:
    """The task type that says what metrics score (the first of *tasks*)."""
    from stecflow.tasks.registry import task_types

    return task_types(tasks)[0]


def _realiser(scoring: Mapping[str, Any] | None, task: TaskType) -> Any:
    """The task's realiser if text metrics score realised outputs, else None."""
    return task.realiser if _realised(scoring) else None


def _signature_extra(
    scoring: Mapping[str, Any] | None,
    metric: Any,
    extra: Mapping[str, Any],
    task: TaskType,
) -> dict[str, Any]:
    """The signature fields beyond the metric's own: bootstrap, and the realiser
    when word-string metrics score realised outputs."""
    if metric.input_type == "text" and _realiser(scoring, task) is not None:
        return {"realise": task.realiser_id, **extra}
    return dict(extra)


def metric_signatures(
    scoring: Mapping[str, Any] | None, tasks: Sequence[str] | None = None
) -> dict[str, str]:
    """Map each metric ID to its signature (with the bootstrap settings).

    Used as a ``params`` value of the scoring rule, so that changing a metric's
    settings or version re-runs the scoring jobs and what depends on them.
    *tasks*: the campaign's task-type names (None: the built-in REG tasks).
    """
    extra = _bootstrap_extra(scoring)
    task = _task(tasks)
    return {
        spec.id: metric.signature(extra=_signature_extra(scoring, metric, extra, task))
        for spec, metric in build_metrics(metric_specs(scoring, tasks))
    }


def metric_directions(
    scoring: Mapping[str, Any] | None, tasks: Sequence[str] | None = None
) -> dict[str, bool]:
    """Map each metric ID to True if higher scores are better."""
    return {
        spec.id: metric.higher_is_better
        for spec, metric in build_metrics(metric_specs(scoring, tasks))
    }


def subsets_of(items: Sequence[Item]) -> list[tuple[str, str, list[int]]]:
    """The subsets scores are reported on: all, each subdomain, each condition.

    Returns ``(kind, name, indices)`` triples in a fixed order; subdomains and
    conditions are sorted, items without a condition are in no condition subset.
    """
    subsets = [("all", "all", list(range(len(items))))]
    for kind, key in (("subdomain", "subdomain"), ("condition", "condition")):
        values = sorted({getattr(i, key) for i in items if getattr(i, key)})
        if kind == "subdomain" and len(values) < 2:
            continue
        for value in values:
            subsets.append(
                (
                    kind,
                    value,
                    [n for n, i in enumerate(items) if getattr(i, key) == value],
                )
            )
    return subsets


def _rng_seed(seed: int, *parts: str) -> int:
    digest = hashlib.sha256("\x1f".join([str(seed), *parts]).encode()).digest()
    return int.from_bytes(digest[:8], "little")


def _bootstrap_counts(n: int, resamples: int, seed: int, subset: str) -> Any:
    """How often each of *n* items is drawn in each resample (resamples × n).

    The draws depend only on the seed, the subset and n, so every system gets the
    same resampled items for a subset and intervals compare like with like.
    """
    import numpy as np

    if n < 2 or resamples <= 0:
        return None
    rng = np.random.default_rng(_rng_seed(seed, subset, str(n)))
    indices = rng.integers(0, n, size=(resamples, n))
    offsets = (np.arange(resamples) * n)[:, None]
    flat = np.bincount((indices + offsets).ravel(), minlength=resamples * n)
    return flat.reshape(resamples, n)


def _bootstrap_ci(
    metric: Any, stats: Sequence[tuple[float, ...]], counts: Any, confidence: float
) -> tuple[float, float]:
    """Percentile bootstrap interval of the system score (Efron & Tibshirani 1993)."""
    import numpy as np

    if counts is None:
        return math.nan, math.nan
    values = np.array(metric.resample_scores(stats, counts), dtype=float)
    values = values[~np.isnan(values)]
    if values.size == 0:
        return math.nan, math.nan
    alpha = (1 - confidence) / 2
    low, high = np.quantile(values, [alpha, 1 - alpha])
    return float(low), float(high)


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

    Returns
    -------
    (item_rows, system_rows)
        Rows with the columns of :data:`ITEM_COLUMNS` and, without team-level
        fields, of :data:`SYSTEM_COLUMNS`. A metric whose input the system did not
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
    item_rows: list[dict[str, Any]] = []
    system_rows: list[dict[str, Any]] = []
    subsets = subsets_of(scored_items)
    task = _task(tasks)
    contexts = [dict(task.scoring_context(i)) for i in scored_items]
    counts = {
        name: _bootstrap_counts(len(indices), resamples, seed, f"{kind}:{name}")
        for kind, name, indices in subsets
    }
    realiser = _realiser(scoring, task)
    for spec, metric in build_metrics(metric_specs(scoring, tasks)):
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
        stats = metric.corpus_stats(hyps, refs, contexts)
        for item, hyp, item_refs, context, item_stats in zip(
            scored_items, hyps, refs_with_ids, contexts, stats, strict=True
        ):
            common = {
                "item": item.id,
                "subdomain": item.subdomain,
                "condition": item.condition,
                "metric": spec.id,
            }
            item_rows.append(
                {
                    **common,
                    "reference": "*",
                    "value": metric.score_from_stats(item_stats),
                    "stats": _stats_text(item_stats),
                }
            )
            if metric.level == "item" and not domain_only and len(item_refs) > 1:
                for ref_id, value in item_refs:
                    item_rows.append(
                        {
                            **common,
                            "reference": ref_id,
                            "value": metric.score_segment(hyp, [value], **context),
                        }
                    )
        for kind, name, indices in subsets:
            if metric.requires_corpus and kind != "all":
                subset_stats = metric.corpus_stats(
                    [hyps[i] for i in indices],
                    [refs[i] for i in indices],
                    [contexts[i] for i in indices],
                )
            else:
                subset_stats = [stats[i] for i in indices]
            summary = metric.summary(subset_stats)
            low, high = _bootstrap_ci(metric, subset_stats, counts[name], confidence)
            system_rows.append(
                {
                    **base,
                    "status": "scored",
                    "subset_kind": kind,
                    "subset": name,
                    "value": metric.aggregate(subset_stats),
                    "n": summary.get("n_scored", summary["n_items"]),
                    "n_skipped": summary.get("n_skipped", 0),
                    "ci_low": low,
                    "ci_high": high,
                }
            )
    item_rows.sort(
        key=lambda r: (r["item"], r["metric"], r["reference"] != "*", r["reference"])
    )
    return item_rows, system_rows


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
) -> dict[str, Any]:
    """Score one validated submission and write its item table and summary.

    A rejected submission is not scored: its files say ``skipped`` and why.
    *tasks* are the campaign's task-type names (None: the built-in REG tasks).
    """
    from stecflow.data.corpus import read_items
    from stecflow.submissions.safepath import read_submission_file
    from stecflow.submissions.validation import Limits, outputs_file, read_outputs

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
    items = read_items(testset_path)
    name = outputs_file(record["tasks"], tasks or ())
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
        items, outputs, scoring, exclude_reference=exclude, tasks=tasks
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


def aggregate_scores(summary_paths: Sequence[str | Path], out_path: str | Path) -> int:
    """Concatenate per-system summaries into ``scores/systems.tsv``.

    Skipped systems get one row with the reason. Rows are sorted by team, system,
    metric ID and subset. Returns the number of rows.
    """
    rows = system_rows(read_json(path) for path in summary_paths)
    write_tsv(rows, SYSTEM_COLUMNS, out_path)
    return len(rows)


def system_rows(summaries: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The ``scores/systems.tsv`` rows of per-system summaries, sorted."""
    rows = []
    for summary in summaries:
        identity = {
            k: summary[k]
            for k in ("team", "system", "reference_set", "late", "primary")
        }
        if summary["status"] != "scored":
            rows.append(
                {**identity, "status": summary["status"], "reason": summary["reason"]}
            )
            continue
        for row in summary["scores"]:
            rows.append({**identity, **row})
    order = {"all": 0, "subdomain": 1, "condition": 2}
    rows.sort(
        key=lambda r: (
            r["team"],
            r["system"],
            r.get("metric") or "",
            order.get(r.get("subset_kind") or "all", 3),
            r.get("subset") or "",
        )
    )
    return rows


def read_system_scores(path: str | Path) -> list[dict[str, str]]:
    """Read ``scores/systems.tsv`` back (all values as strings)."""
    return read_tsv(path)


def _first(ids: Sequence[str], shown: int = 3) -> str:
    return ", ".join(ids[:shown]) + (", …" if len(ids) > shown else "")


def check_coverage(
    items: Sequence[Item],
    outputs: Sequence[Output],
    problems: Sequence[Any],
    *,
    data_label: str,
    outputs_label: str,
) -> tuple[list[Any], list[str]]:
    """Take the item-ID problems of an outputs file scored on other data.

    ``stecflow score`` scores outputs on whatever data a team has (a development
    split, part of it): outputs for only some of the items are scored on those
    items, with a warning; outputs for items the data do not have are left out,
    with a warning. Outputs that share no item with the data are an error.

    Parameters
    ----------
    items
        The data's items.
    outputs, problems
        What :func:`stecflow.submissions.validation.read_outputs` returned for the file.
    data_label, outputs_label
        How to name the data and the outputs file in messages.

    Returns
    -------
    (problems, warnings)
        The other problems, and one warning line per kind of ID mismatch.

    Raises
    ------
    StecflowError
        In one line, when no output is for an item of the data: how many outputs
        and items there are, and the first IDs of each.

    Examples
    --------
    >>> from stecflow.submissions.validation import Problem
    >>> from types import SimpleNamespace as Item
    >>> items = [Item(id=f"t{n}") for n in range(1, 5)]
    >>> unknown = [Problem("unknown_item", "", "o.xml", 3, f"TRIAL d{n}")
    ...            for n in range(1, 5)]
    >>> missing = [Problem("missing_item", "", "o.xml", None, f"TRIAL {i.id}")
    ...            for i in items]
    >>> check_coverage(items, [], unknown + missing, data_label="dev.xml",
    ...                outputs_label="o.xml")
    Traceback (most recent call last):
    ...
    stecflow.core.errors.StecflowError: none of the 4 outputs in o.xml (IDs d1, d2, d3, …) is an item of dev.xml (4 items, IDs t1, t2, t3, …); score outputs against the data they were made for
    >>> check_coverage(items, [object()], missing[1:], data_label="dev.xml",
    ...                outputs_label="o.xml")[1]
    ['3 of the 4 items of dev.xml have no output in o.xml (t2, t3, t4); the scores are on the other 1 item']
    """  # noqa: E501
    from stecflow.core.errors import StecflowError

    ids: dict[str, list[str]] = {"unknown_item": [], "missing_item": []}
    rest = []
    for problem in problems:
        if problem.code in ids and (problem.field or "").startswith("TRIAL "):
            ids[problem.code].append(problem.field[len("TRIAL ") :])
        else:
            rest.append(problem)
    unknown, missing = ids["unknown_item"], ids["missing_item"]
    if not outputs and (unknown or missing):
        if unknown:
            found = f"none of the {len(unknown)} outputs in {outputs_label}"
            found += f" (IDs {_first(unknown)}) is an item of {data_label}"
        else:
            found = f"{outputs_label} has no outputs (TRIAL elements) for {data_label}"
        raise StecflowError(
            f"{found} ({len(items)} items, IDs {_first([i.id for i in items])});"
            " score outputs against the data they were made for"
        )
    warnings = []
    if missing:
        scored = len(items) - len(missing)
        warnings.append(
            f"{len(missing)} of the {len(items)} items of {data_label}"
            f" {'has' if len(missing) == 1 else 'have'} no output in {outputs_label}"
            f" ({_first(missing)}); the scores are on the other {scored}"
            f" item{'' if scored == 1 else 's'}"
        )
    if unknown:
        warnings.append(
            f"{len(unknown)} output{'' if len(unknown) == 1 else 's'} in"
            f" {outputs_label} {'is' if len(unknown) == 1 else 'are'} for items that"
            f" {data_label} does not have ({_first(unknown)}); not scored"
        )
    return rest, warnings


def format_score_table(
    system_rows: Sequence[Mapping[str, Any]],
    scoring: Mapping[str, Any] | None = None,
    fmt: str = "table",
    *,
    caption: str = "Automatic scores.",
    header: Mapping[str, Any] | None = None,
) -> str:
    """Render one system's scores exactly as the campaign report shows them.

    Labels and units (BLEU 0–1, accuracies in %), decimals, bootstrap intervals,
    notes and signatures come from :mod:`stecflow.report.presentation`, which the
    report uses too, so ``stecflow score`` and the report cannot disagree.

    Parameters
    ----------
    system_rows
        The system rows of :func:`score_outputs`.
    scoring
        The ``scoring`` section the rows were computed with (metric labels, the
        interval's level, resamples and seed).
    fmt
        ``table`` (aligned text), ``tsv``, ``json`` or ``latex``.
    caption, header
        The table's caption; extra top-level keys of the JSON document.

    Examples
    --------
    >>> print(format_score_table([
    ...     {"metric": "se", "metric_name": "SE", "status": "scored",
    ...      "subset_kind": "all", "subset": "all", "value": 2.375, "n": 4,
    ...      "ci_low": 1.125, "ci_high": 3.75, "signature": "SE|version:1"},
    ...     {"metric": "bleu3", "status": "skipped", "subset_kind": "all",
    ...      "subset": "all", "reason": "no word strings"}],
    ...     {"metrics": [{"id": "se"}, {"id": "bleu3"}]}), end="")
    Automatic scores.
    <BLANKLINE>
    Metric  All items (n = 4)
    SE      2.38 [1.12, 3.75]
    BLEU                    –
    <BLANKLINE>
    In brackets: 95% percentile bootstrap confidence interval (1000 resamples of the items, seed 2009).
    – BLEU: not computed: no word strings.
    Signature SE: SE|version:1
    """  # noqa: E501
    from stecflow.report.inputs import metric_infos
    from stecflow.report.presentation import render_scores

    infos = metric_infos({"scoring": dict(scoring or {})})
    return render_scores(
        system_rows, infos, scoring, fmt, caption=caption, header=header
    )

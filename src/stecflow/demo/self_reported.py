"""The demo teams' self-reported development scores (seed 001 Table 4).

TUNA-REG'09's teams scored their systems on the development data, with one
human reference per item, and reported Accuracy, SE and BLEU (not all of them
Accuracy). The demo's teams do the same: :func:`development_scores` scores a
system's outputs for the demo's development split with stecflow's metrics at
their default settings and gives them as ``system.yaml``'s ``self_reported``
entries, on the scale the report shows (Accuracy in %, BLEU-3 from 0 to 1),
rounded as a team would print them.
"""

from __future__ import annotations

from collections.abc import Sequence

from stecflow.data.model import Item, Output

__all__ = ["REPORTED", "development_scores"]

#: Metric -> (factor to the report's scale, decimals the team prints): seed 001
#: Table 4 prints Accuracy in % and SE and BLEU with two to four decimals.
REPORTED = {
    "string_accuracy": (100.0, 2),
    "se": (1.0, 3),
    "bleu3": (0.01, 4),
}


def development_scores(
    items: Sequence[Item],
    outputs: Sequence[Output],
    metrics: Sequence[str] = tuple(REPORTED),
    note: str = "",
) -> list[dict[str, object]]:
    """``self_reported`` entries: *metrics* of *outputs* on the development *items*.

    Each entry gives ``data: development`` and the number of references per item
    (the demo's development items have one each); *note*, if given, goes with
    the first entry.

    >>> from stecflow.data.model import Reference
    >>> items = [Item("d1", None, "furniture", references=(
    ...     Reference("the red chair", id="HUMAN"),))]
    >>> development_scores(items, [Output("d1", word_string="the red chair")],
    ...                    ["string_accuracy", "se"])
    ... # doctest: +NORMALIZE_WHITESPACE
    [{'metric': 'string_accuracy', 'value': 100.0, 'data': 'development',
      'references': 1}, {'metric': 'se', 'value': 0.0, 'data': 'development',
      'references': 1}]
    """
    from stecflow.metrics.base import get_metric

    by_id = {o.item_id: o for o in outputs}
    hyps = [by_id[i.id].word_string or "" for i in items]
    refs = [[r.word_string or "" for r in i.references] for i in items]
    counts = sorted({len(r) for r in refs})
    entries: list[dict[str, object]] = []
    for name in metrics:
        factor, digits = REPORTED[name]
        value = get_metric(name).corpus_score(hyps, refs)
        entry: dict[str, object] = {
            "metric": name,
            "value": round(value * factor, digits),
            "data": "development",
        }
        if len(counts) == 1:
            entry["references"] = counts[0]
        if note and not entries:
            entry["note"] = note
        entries.append(entry)
    return entries

"""A metric plug-in: the length ratio of outputs to references (docs/metrics.md).

An organiser's own metric, outside stecflow. A campaign uses it with::

    scoring:
      metrics:
        - id: length_ratio
          metric: "length_ratio:LengthRatio"     # module on PYTHONPATH
          options: {reference: shortest}

The ratio is corpus level, as BLEU's brevity penalty counts lengths: the number of
whitespace tokens of all outputs over that of the references (per item the mean,
or the shortest, of its references' lengths). 1.0 means outputs as long as the
references; it is neither better nor worse, so ``higher_is_better`` is True only
for the sake of sorting.

May import: :mod:`stecflow.metrics` (the plug-in API) and the standard library.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stecflow.metrics import Metric, Stats
from stecflow.metrics.base import check_choice


class LengthRatio(Metric):
    """Total output length over total reference length (whitespace tokens).

    Parameters
    ----------
    reference : {"mean", "shortest"}, default "mean"
        Which length of an item's references counts.

    Examples
    --------
    >>> ratio = LengthRatio()
    >>> ratio.corpus_score(["a b c", "a"], [["a b", "a b c d"], ["a b"]])
    0.8
    >>> ratio.signature()
    'LengthRatio|ref:mean|version:1'
    """

    name = "length_ratio"
    display_name = "LengthRatio"
    version = "1"
    level = "corpus"
    input_type = "text"
    signature_fields = (("reference", "ref"),)
    stat_names = ("hyp_len", "ref_len")

    def __init__(self, *, reference: str = "mean") -> None:
        check_choice("reference", reference, ("mean", "shortest"))
        self.reference = reference

    def segment_stats(self, hyp: str, refs: Sequence[str], **context: Any) -> Stats:
        """``(output length, reference length)`` of one item."""
        self.check_context(context)
        self.check_refs(refs)
        lengths = [len(r.split()) for r in refs]
        ref_len = (
            min(lengths)
            if self.reference == "shortest"
            else sum(lengths) / len(lengths)
        )
        return (len(hyp.split()), ref_len)

    def score_from_stats(self, stats: Stats) -> float:
        """The ratio of one item (or of summed statistics); 0 if no reference word."""
        return stats[0] / stats[1] if stats[1] else 0.0

    def aggregate(self, stats: Sequence[Stats]) -> float:
        """Sum the lengths over items, then divide."""
        self._check_nonempty(stats)
        return self.score_from_stats(
            (sum(s[0] for s in stats), sum(s[1] for s in stats))
        )

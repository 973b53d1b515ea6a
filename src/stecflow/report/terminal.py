"""The score table ``stecflow score`` prints in a terminal.

Same labels, number formats, notes and signatures as the report's tables
(:mod:`stecflow.report.presentation`), laid out as plain text.

May import: :mod:`stecflow.core`, :mod:`stecflow.scoring`, :mod:`stecflow.report`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["format_score_table"]


def format_score_table(
    system_rows: Sequence[Mapping[str, Any]],
    scoring: Mapping[str, Any] | None = None,
    fmt: str = "table",
    *,
    caption: str = "Automatic scores.",
    header: Mapping[str, Any] | None = None,
    tasks: Sequence[str] | None = None,
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
    tasks
        The task types scored (their default metrics, when ``scoring`` names
        none), as the campaign's ``campaign.tasks``.

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

    config: dict[str, Any] = {"scoring": dict(scoring or {})}
    if tasks:
        config["campaign"] = {"tasks": list(tasks)}
    infos = metric_infos(config)
    return render_scores(
        system_rows, infos, scoring, fmt, caption=caption, header=header
    )

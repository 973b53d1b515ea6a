"""Section 4, statistical analyses written as the seed papers write them.

Owns the section (:func:`statistics_section`) and the one table keyed by test
name that picks each analysis' blocks (``_ANALYSIS_BUILDERS``, from the family
modules :mod:`~stecflow.report.variance_tables`,
:mod:`~stecflow.report.pairwise_tables`, :mod:`~stecflow.report.correlation_tables`
and, for any other test, :mod:`~stecflow.report.analysis_blocks`) and its
titles.
"""

from __future__ import annotations

from collections.abc import Sequence

from stecflow.report.analysis_blocks import generic_blocks
from stecflow.report.context import (
    Block,
    Context,
    heading,
    measure_info,
    measure_label,
    notice,
)
from stecflow.report.correlation_tables import correlation_blocks, property_means_blocks
from stecflow.report.design_tables import design_comparison_blocks
from stecflow.report.pairwise_tables import situated_blocks, ttest_blocks
from stecflow.report.variance_tables import (
    anova_blocks,
    kruskal_blocks,
    manova_blocks,
    mixed_blocks,
    tukey_blocks,
)

__all__ = ["awaiting_text", "statistics_section"]


_ANALYSIS_BUILDERS = {
    "anova": anova_blocks,
    "tukey": tukey_blocks,
    "kruskal": kruskal_blocks,
    "correlations": correlation_blocks,
    "ttest": ttest_blocks,
    "manova": manova_blocks,
    "mixed": mixed_blocks,
    "property_means": property_means_blocks,
    "design_comparison": design_comparison_blocks,
    "situated_ttests": situated_blocks,
    "confusion": situated_blocks,
    "situated_length": situated_blocks,
}


_ANALYSIS_TITLES = {
    "anova": "ANOVA",
    "tukey": "Tukey HSD homogeneous subsets",
    "kruskal": "Kruskal–Wallis test",
    "correlations": "Correlations",
    "ttest": "Paired t-tests",
    "manova": "MANOVA",
    "mixed": "Mixed-effects model",
    "property_means": "Means by system property",
    "design_comparison": "Comparison of evaluation designs",
    "situated_ttests": "Paired t-tests of the situated study",
    "confusion": "Intrinsic evaluation of the pronoun class",
    "situated_length": "Expression length of the situated study",
}


def _measure_title(ctx: Context, measure: str) -> str:
    """A measure as an analysis's heading names it; one of a study
    (``<study>:<measure>``, as design_comparison takes them) with its study."""
    study, _, _ = str(measure).rpartition(":")
    label = measure_label(ctx, measure)
    return f"{label} ({study})" if study else label


def statistics_section(ctx: Context) -> list[Block]:
    """Section 4: every analysis of results/stats, in config order."""
    if not ctx.analyses:
        return [notice("No statistical analyses are configured.", "placeholder")]
    blocks: list[Block] = []
    for record, rows, stem in ctx.analyses:
        test = str(record.get("test", ""))
        spec = record.get("spec") or {}
        what = (
            measure_info(ctx, spec["measure"], source=spec.get("source", "")).label
            if spec.get("measure")
            else ", ".join(_measure_title(ctx, m) for m in spec.get("measures") or [])
        )
        source = spec.get("source", "")
        if source and source != "scores":
            what += f", study {source}"
        title = _ANALYSIS_TITLES.get(test, test)
        if test == "tukey" and record.get("display") == "cld":
            title = "Tukey HSD compact letter display"
        blocks.append(
            heading(
                f"{title}{': ' + what.lstrip(', ') if what else ''}"
                f" ({record.get('id', stem)})",
                f"stats-{stem}-section",
            )
        )
        awaiting = record.get("awaiting_responses") or []
        if awaiting:  # a study built before its data: nothing to analyse yet
            blocks.append(
                notice(awaiting_text(awaiting), "placeholder", "Awaiting responses")
            )
            continue
        builder = _ANALYSIS_BUILDERS.get(test, generic_blocks)
        blocks.extend(builder(ctx, record, rows, stem))
    return blocks


def awaiting_text(studies: Sequence[str]) -> str:
    """The sentence shown where a study's figures will be once its data are in.

    >>> awaiting_text(["rating"])  # doctest: +ELLIPSIS
    'Study rating is built (design, stimuli, web experiment, DMDX files) but no ...'
    """
    names = ", ".join(studies)
    which = "Study" if len(studies) == 1 else "Studies"
    verb = "is" if len(studies) == 1 else "are"
    return (
        f"{which} {names} {verb} built (design, stimuli, web experiment, DMDX files)"
        " but no response files are listed for it yet; this analysis runs once they"
        " are (studies[].responses in the config)."
    )

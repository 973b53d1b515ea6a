"""The tests of one measure across systems (and further factors) on item scores
or a study's trials: ``anova``, ``tukey`` and ``kruskal`` (seed 001 §5).

``anova`` takes sums of squares of ``statistics.ss_type``; ``tukey`` is shown as
``statistics.posthoc.display``: SPSS homogeneous subsets or a compact letter
display, letter ``A`` for the best systems.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from stecflow.analysis.frames import (
    factor_columns,
    measure_frame,
    measure_item_scores,
    system_table,
)
from stecflow.analysis.kind_defaults import measure_column
from stecflow.analysis.registry import AnalysisJob, AnalysisTest
from stecflow.analysis.specs import spec_check
from stecflow.core.errors import ConfigError

__all__ = ["ANOVA", "KRUSKAL", "TESTS", "TUKEY"]


def _run_anova(
    spec: Mapping[str, Any], frame: Any, job: AnalysisJob, record: dict[str, Any]
) -> Any:
    from stecflow.stats.anova import anova

    result = anova(frame, "value", factor_columns(spec), ss_type=job.ss_type)
    return system_table(result)


def _run_kruskal(
    spec: Mapping[str, Any], frame: Any, job: AnalysisJob, record: dict[str, Any]
) -> Any:
    from stecflow.stats.nonparametric import kruskal

    return system_table(kruskal(frame, "value", factor_columns(spec)[0]))


def _check_tukey(spec: dict[str, Any], where: str) -> None:
    if spec["factors"][0] != "system":
        raise ConfigError(
            "a Tukey test compares systems: its factors must start with system",
            field=f"{where}.factors",
        )


def _run_tukey(
    spec: Mapping[str, Any], frame: Any, job: AnalysisJob, record: dict[str, Any]
) -> Any:
    if spec.get("source", "scores") == "scores":
        best_high = (job.higher_is_better or {}).get(spec["measure"], True)
    else:
        best_high = measure_column(spec["measure"], spec.get("criteria") or ())[2]
    result = _tukey(
        frame, factor_columns(spec), job.alpha, best_high, job.posthoc, record
    )
    return system_table(result)


def _tukey(
    frame: Any,
    factors: Sequence[str],
    alpha: float,
    best_high: bool,
    posthoc: Mapping[str, Any],
    record: dict[str, Any],
) -> Any:
    """Tukey HSD letters, as SPSS homogeneous subsets or a compact letter display."""
    from stecflow.stats.posthoc import homogeneous_subsets, subset_letters, tukey_cld

    display = posthoc.get("display", "spss_subsets")
    record["display"] = display
    if display == "cld":
        return tukey_cld(
            frame,
            "value",
            "label",
            model=list(factors),
            alpha=alpha,
            descending=best_high,
            case="upper",
        )
    subsets = homogeneous_subsets(
        frame,
        "value",
        "label",
        model=list(factors),
        alpha=alpha,
        sig_method=posthoc.get("subset_sig", "studentized_range"),
    )
    record["subsets"] = subsets.to_dict(orient="records")
    return subset_letters(subsets, descending=best_high)


def _letters_not_computable(
    spec: Mapping[str, Any], status: Mapping[str, Any]
) -> list[dict[str, Any]]:
    return [{"system": "", "letters": "", **status}]


ANOVA = AnalysisTest(
    name="anova",
    check=spec_check(),
    load=measure_frame,
    run=_run_anova,
    item_measures=measure_item_scores,
)

TUKEY = AnalysisTest(
    name="tukey",
    check=spec_check(refine=_check_tukey),
    load=measure_frame,
    run=_run_tukey,
    texts=False,  # a letters table has no test statistic of its own
    item_measures=measure_item_scores,
    not_computable=_letters_not_computable,
)

KRUSKAL = AnalysisTest(
    name="kruskal",
    check=spec_check(),
    load=measure_frame,
    run=_run_kruskal,
    item_measures=measure_item_scores,
)

TESTS = (ANOVA, TUKEY, KRUSKAL)

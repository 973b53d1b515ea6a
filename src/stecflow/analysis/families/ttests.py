"""The ``ttest`` test: paired t-tests between the levels of one column
(``within``), paired by another (``pair_by``), as seed 000 compared TP and FN
instances over its evaluators (:func:`stecflow.analysis.kinds.run_ttests`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stecflow.analysis.frames import (
    factor_columns,
    measure_frame,
    measure_item_scores,
    system_table,
    system_words,
)
from stecflow.analysis.registry import AnalysisJob, AnalysisTest, SpecContext
from stecflow.analysis.specs import spec_check
from stecflow.core.errors import ConfigError

__all__ = ["TESTS", "TTEST"]


def _no_factors(context: SpecContext) -> list[str]:
    return []


def _check(spec: dict[str, Any], where: str) -> None:
    spec.setdefault("within", "system")
    spec.setdefault("pair_by", "item" if spec["source"] == "scores" else "subject")
    if spec["within"] == spec["pair_by"] or spec["within"] in spec["factors"]:
        raise ConfigError(
            "within, pair_by and the factors must be different columns",
            field=f"{where}.within",
        )


def _run(
    spec: Mapping[str, Any], frame: Any, job: AnalysisJob, record: dict[str, Any]
) -> Any:
    from stecflow.analysis import kinds

    within = "label" if spec["within"] == "system" else spec["within"]
    pair_by = "label" if spec["pair_by"] == "system" else spec["pair_by"]
    result, extra = kinds.run_ttests(
        frame,
        "value",
        within,
        pair_by,
        by=factor_columns(spec),
        levels=spec.get("levels"),
        alternative=spec.get("alternative", "two-sided"),
        correction=spec.get("correction", "bonferroni"),
        confidence=1 - job.alpha,
        digits=job.digits,
    )
    record.update(system_words(extra))
    return system_table(result)


def _design_factors(spec: Mapping[str, Any]) -> list[str]:
    """The further factors and ``within``, whose cells the tests compare."""
    return [*spec.get("factors", []), spec.get("within", "system")]


def _not_computable(
    spec: Mapping[str, Any], status: Mapping[str, Any]
) -> list[dict[str, Any]]:
    return [{"level_a": "", "level_b": "", **status}]


TTEST = AnalysisTest(
    name="ttest",
    check=spec_check(default_factors=_no_factors, refine=_check),
    load=measure_frame,
    run=_run,
    design_factors=_design_factors,
    item_measures=measure_item_scores,
    not_computable=_not_computable,
)

TESTS = (TTEST,)

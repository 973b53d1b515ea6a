"""The ``property_means`` test: means of measures by the levels of each factor,
e.g. incremental vs non-incremental systems (seed 003 Table 3;
:func:`stecflow.analysis.kinds.property_means`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stecflow.analysis.frames import (
    factor_columns,
    measures_frame,
    measures_item_scores,
    system_table,
    system_words,
)
from stecflow.analysis.registry import AnalysisJob, AnalysisTest, SpecContext
from stecflow.analysis.specs import spec_check
from stecflow.core.errors import ConfigError

__all__ = ["PROPERTY_MEANS", "TESTS"]


def _declared_properties(context: SpecContext) -> list[str]:
    return list(context.declared)


def _check(spec: dict[str, Any], where: str) -> None:
    if not spec["factors"]:
        raise ConfigError(
            "property_means needs factors: declare system properties"
            " (submissions.properties) or name the factors",
            field=f"{where}.factors",
        )


def _run(
    spec: Mapping[str, Any], frame: Any, job: AnalysisJob, record: dict[str, Any]
) -> Any:
    from stecflow.analysis import kinds

    result, extra = kinds.property_means(
        frame, list(spec["measures"]), factor_columns(spec), digits=job.digits
    )
    record.update(system_words(extra))
    return system_table(result)


def _no_design(spec: Mapping[str, Any]) -> list[str]:
    return []  # one table per factor, no model


def _not_computable(
    spec: Mapping[str, Any], status: Mapping[str, Any]
) -> list[dict[str, Any]]:
    measures = list(spec.get("measures") or [])
    if spec.get("measure"):
        measures = [spec["measure"], *measures]
    factors = list(spec.get("factors") or [])
    first = factors[0] if factors else ""
    return [
        {"factor": first, "level": "", "measure": m, **status} for m in measures or [""]
    ]


PROPERTY_MEANS = AnalysisTest(
    name="property_means",
    check=spec_check(
        measures="several", default_factors=_declared_properties, refine=_check
    ),
    load=measures_frame,
    run=_run,
    design_factors=_no_design,
    item_measures=measures_item_scores,
    not_computable=_not_computable,
)

TESTS = (PROPERTY_MEANS,)

"""The ``mixed`` test: a linear mixed model of one measure of a study on one
factor with crossed random intercepts for subjects and items
(:func:`stecflow.analysis.kinds.run_mixed`).
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
from stecflow.analysis.registry import AnalysisJob, AnalysisTest
from stecflow.analysis.specs import spec_check
from stecflow.core.errors import ConfigError

__all__ = ["MIXED", "TESTS"]


def _check(spec: dict[str, Any], where: str) -> None:
    if spec["source"] == "scores":
        raise ConfigError(
            "a mixed model needs subjects: give a study as source",
            field=f"{where}.source",
        )
    if spec["factors"][0] in ("subject", "item"):
        raise ConfigError(
            "the fixed factor of a mixed model cannot be subject or item (they"
            " are its random effects)",
            field=f"{where}.factors",
        )


def _run(
    spec: Mapping[str, Any], frame: Any, job: AnalysisJob, record: dict[str, Any]
) -> Any:
    from stecflow.analysis import kinds

    result, extra = kinds.run_mixed(
        frame,
        "value",
        factor_columns(spec)[0],
        transform=spec.get("transform", "none"),
        coding=spec.get("coding", "means"),
        confidence=1 - job.alpha,
        digits=job.digits,
    )
    record.update(system_words(extra))
    return system_table(result)


def _design_factors(spec: Mapping[str, Any]) -> list[str]:
    """The fixed factor (subjects and items are random effects)."""
    return list(spec["factors"][:1])


MIXED = AnalysisTest(
    name="mixed",
    check=spec_check(refine=_check),
    load=measure_frame,
    run=_run,
    design_factors=_design_factors,
    item_measures=measure_item_scores,
)

TESTS = (MIXED,)

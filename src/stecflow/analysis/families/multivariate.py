"""The ``manova`` test: a MANOVA of several measures on between-system factors,
e.g. system properties, with univariate follow-ups Bonferroni-corrected over the
measures (seed 003 Table 4; :func:`stecflow.analysis.kinds.run_manova`).
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
from stecflow.analysis.registry import AnalysisJob, AnalysisTest
from stecflow.analysis.specs import spec_check

__all__ = ["MANOVA", "TESTS"]


def _run(
    spec: Mapping[str, Any], frame: Any, job: AnalysisJob, record: dict[str, Any]
) -> Any:
    from stecflow.analysis import kinds

    terms = spec.get("terms")
    if terms:
        terms = [
            ":".join("label" if f == "system" else f for f in t.split(":"))
            for t in terms
        ]
    result, extra = kinds.run_manova(
        frame,
        list(spec["measures"]),
        factor_columns(spec),
        terms=terms,
        correction=spec.get("correction", "bonferroni"),
        digits=job.digits,
    )
    record.update(system_words(extra))
    return system_table(result)


MANOVA = AnalysisTest(
    name="manova",
    check=spec_check(measures="several", least=2, terms=True),
    load=measures_frame,
    run=_run,
    item_measures=measures_item_scores,
)

TESTS = (MANOVA,)

"""The situated study's ``situated_length`` test: how much longer the corpus
expression is than the system's at the same instance (seed 000 §5.3.3).

The seed notes that its IT comparison of FP-DP and FP-Orig "obscures the fact
that the expressions of the FP-DP instances are generally shorter than the
original expressions. In fact, the original expression is on average 2.72
(SD = 2.04) Japanese character longer than its replacement DP". For every
instance shown both as in the corpus (class FP-Orig) and with the system's
expression (FP-system), :func:`expression_lengths` takes the two expressions from
the merged judgments (``results/judgments/<study>.tsv``, columns ``instance``,
``class``, ``expression``) and :func:`length_differences` gives, per unit,
the number of instances, the mean length of each and the mean and SD (n - 1) of
the difference original minus system. The seed's unit is the character
(Unicode code points here); words (runs between spaces) are given beside it for
languages written with spaces. The seed reports no test of the difference, so
none is made.

May import what the analyses may (:mod:`stecflow.core`, :mod:`stecflow.stats`,
:mod:`stecflow.judgments`, :mod:`stecflow.analysis`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.analysis.kind_defaults import checked_entry, kinds_taking, taking
from stecflow.analysis.record import judgment_settings
from stecflow.analysis.registry import AnalysisJob, AnalysisTest, SpecContext
from stecflow.core.errors import ConfigError
from stecflow.core.io import write_json, write_tsv

__all__ = [
    "LENGTH_COLUMNS",
    "SITUATED_LENGTH",
    "UNITS",
    "expression_lengths",
    "length_differences",
]

log = logging.getLogger(__name__)

#: Keys a ``situated_length`` analysis may have.
KEYS = ("id", "test", "source")
#: Units of length: name -> how an expression is measured.
UNITS = {
    "characters": lambda text: len(text),
    "words": lambda text: len(text.split()),
}
#: The two classes compared: the corpus expression and the system's.
ORIGINAL, SYSTEM = "FP-Orig", "FP-system"
#: Columns of the result table.
LENGTH_COLUMNS = (
    "unit",
    "n",
    "mean_original",
    "mean_system",
    "mean_difference",
    "sd_difference",
    "text",
)


def expression_lengths(
    rows: Sequence[Mapping[str, str]], where: str = "judgments"
) -> list[tuple[str, str, str]]:
    """``(instance, original expression, system expression)`` of every instance
    shown in both classes, sorted by instance.

    Raises
    ------
    JudgmentsError
        An instance is shown with two different expressions in one class (file
        and line named).

    Examples
    --------
    >>> expression_lengths([
    ...     {"instance": "e1", "class": "FP-Orig", "expression": "the square"},
    ...     {"instance": "e1", "class": "FP-system", "expression": "that one"},
    ...     {"instance": "e2", "class": "TP", "expression": "that"}])
    [('e1', 'the square', 'that one')]
    """
    from stecflow.judgments._common import JudgmentsError

    seen: dict[tuple[str, str], tuple[str, int]] = {}
    for line, row in enumerate(rows, start=2):
        cls = row.get("class", "")
        if cls not in (ORIGINAL, SYSTEM):
            continue
        key = (row.get("instance", ""), cls)
        text = row.get("expression", "")
        if key in seen and seen[key][0] != text:
            raise JudgmentsError(
                f"instance {key[0]} is shown as {cls} with {text!r} here and"
                f" {seen[key][0]!r} on line {seen[key][1]}; expected one expression",
                file=where,
                line=line,
                field="expression",
            )
        seen.setdefault(key, (text, line))
    instances = sorted({i for i, _ in seen})
    return [
        (i, seen[(i, ORIGINAL)][0], seen[(i, SYSTEM)][0])
        for i in instances
        if (i, ORIGINAL) in seen and (i, SYSTEM) in seen
    ]


def _mean_sd(values: Sequence[float]) -> tuple[float, float]:
    n = len(values)
    if n == 0:
        return math.nan, math.nan
    mean = math.fsum(values) / n
    if n < 2:
        return mean, math.nan
    return mean, math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))


def length_differences(
    pairs: Sequence[tuple[str, str, str]], digits: int = 2
) -> list[dict[str, Any]]:
    """Per unit of :data:`UNITS`: ``n``, the mean lengths of the original and
    the system's expressions, the mean and SD (n - 1) of original minus system,
    and the text as the seed writes it.

    Examples
    --------
    >>> rows = length_differences([("e1", "the square", "that one"),
    ...                            ("e2", "the small triangle", "that one")])
    >>> [(r["unit"], r["n"], r["mean_difference"], round(r["sd_difference"], 4))
    ...  for r in rows]
    [('characters', 2, 6.0, 5.6569), ('words', 2, 0.5, 0.7071)]
    >>> rows[0]["text"]
    'the original expression is on average 6.00 (SD = 5.66) characters longer'
    """
    out = []
    for unit, measure in UNITS.items():
        originals = [float(measure(o)) for _, o, _ in pairs]
        systems = [float(measure(s)) for _, _, s in pairs]
        diffs = [o - s for o, s in zip(originals, systems, strict=True)]
        mean, sd = _mean_sd(diffs)
        if math.isnan(mean):
            text = "no instance was shown both ways"
        else:
            word = "longer" if mean >= 0 else "shorter"
            sd_text = "–" if math.isnan(sd) else f"{sd:.{digits}f}"
            text = (
                f"the original expression is on average {abs(mean):.{digits}f}"
                f" (SD = {sd_text}) {unit} {word}"
            )
        out.append(
            {
                "unit": unit,
                "n": len(pairs),
                "mean_original": _mean_sd(originals)[0],
                "mean_system": _mean_sd(systems)[0],
                "mean_difference": mean,
                "sd_difference": sd,
                "text": text,
            }
        )
    return out


# ---------------------------------------------------------------------------
# the analysis test


def _check(
    entry: Mapping[str, Any], where: str, context: SpecContext
) -> dict[str, Any]:
    """A ``situated_length`` entry: a situated study as its source."""
    spec = checked_entry(entry, where, KEYS, context.seen)
    situated = taking("situated_length", context.studies)
    source = spec.get("source")
    if source not in situated:
        what = "no source" if source is None else f"{source!r} is not"
        raise ConfigError(
            f"situated_length analyses a {kinds_taking('situated_length')} study:"
            f" {what} one ({', '.join(situated) or 'none is configured'})",
            field=f"{where}.source",
        )
    return spec


def _load(spec: Mapping[str, Any], job: AnalysisJob, record: dict[str, Any]) -> Any:
    return job.judgments[spec["source"]]


def _run(
    spec: Mapping[str, Any], path: Any, job: AnalysisJob, record: dict[str, Any]
) -> Any:
    from stecflow.core.io import read_tsv

    rows = read_tsv(path) if Path(path).stat().st_size else []
    pairs = expression_lengths(rows, where=str(path))
    result = length_differences(pairs, digits=job.digits) if rows else []
    info = judgment_settings(path)
    if info["awaiting_responses"] is None:
        info["awaiting_responses"] = not rows
    record["settings"] = {
        "digits": job.digits,
        "classes": [ORIGINAL, SYSTEM],
        "units": {
            "characters": "Unicode code points (the seed's Japanese characters)",
            "words": "runs of characters between spaces",
        },
        "difference": "original minus system, SD with n - 1",
    }
    record["text"] = [{"about": r["unit"], "text": r["text"]} for r in result]
    record["rows"] = [
        {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in r.items()}
        for r in result
    ]
    record["instances"] = [
        {"instance": i, "original": o, "system": s} for i, o, s in pairs
    ]
    record["simulated"] = any(r.get("simulated") == "true" for r in rows)
    record["judgments"] = {spec["source"]: info}
    record["awaiting_responses"] = (
        [spec["source"]] if info["awaiting_responses"] else []
    )
    return result


def _write(
    spec: Mapping[str, Any],
    result: Any,
    path: Any,
    job: AnalysisJob,
    record: dict[str, Any],
) -> dict[str, Any]:
    write_tsv(result, list(LENGTH_COLUMNS), job.out_tsv)
    write_json(record, job.out_json)
    log.info("%s: %d result rows", spec["id"], len(result))
    return record


SITUATED_LENGTH = AnalysisTest(
    name="situated_length",
    check=_check,
    load=_load,
    run=_run,
    write=_write,
    checks_scores=False,
)

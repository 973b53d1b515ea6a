"""Per-rater z-normalisation of rating scores (study option ``normalise: z``).

As WMT's direct assessment does (Graham et al. 2017; Barrault et al. 2019,
section 3.1.2), each rater's scores of one criterion are standardised by that
rater's own mean and standard deviation, so that a rater who uses only the top
of the slider and one who uses all of it weigh the same; a system's
z-normalised score is then the mean of its z-scores. The judgments table gains
one column ``<measure>_z`` per rated measure (``adequacy_z``, ``fluency_z``, or
``<criterion>_z`` of a ``text_rating`` study), which analyses can name as
measures.

The rater's mean and SD (``n - 1``) are taken over all their non-practice trials
with a score, control trials included (as WMT's degraded "bad references" are
among a worker's scores), duplicates and excluded trials left out; every such
trial gets its z-score. A rater with fewer than two such scores, or constant
ones, has no z-scores (empty cells), and practice trials never have one.

References
----------
Graham, Y., Baldwin, T., Moffat, A., & Zobel, J. (2017). Can machine translation
systems be evaluated by the crowd alone? Natural Language Engineering 23(1).
Barrault, L., et al. (2019). Findings of the 2019 Conference on Machine
Translation (WMT19), section 3.1.2.

May import: :mod:`stecflow.judgments`; nothing heavy.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, MutableMapping, Sequence
from typing import Any

from stecflow.judgments._common import JudgmentsError

__all__ = ["NORMALISATIONS", "add_z_scores", "check_normalise", "z_columns"]

#: Values of a study's ``normalise`` key (None: no normalisation).
NORMALISATIONS = ("z",)

_TRUE = {"true", "1", "yes", "True", "TRUE"}


def _flag(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return False
    return str(value).strip() in _TRUE


def _number(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def z_columns(measures: Sequence[str]) -> tuple[str, ...]:
    """The columns :func:`add_z_scores` adds.

    >>> z_columns(["adequacy", "fluency"])
    ('adequacy_z', 'fluency_z')
    """
    return tuple(f"{m}_z" for m in measures)


def add_z_scores(
    rows: Sequence[MutableMapping[str, Any]],
    measures: Sequence[str],
    *,
    rater: str = "subject",
    normalise: str | None = "z",
) -> tuple[str, ...]:
    """Add ``<measure>_z`` to every row, in place; return the new columns.

    Parameters
    ----------
    rows : sequence of mutable mappings
        The judgments table's rows (values as the merge keeps them: numbers,
        booleans or strings).
    measures : sequence of str
        The score columns to normalise.
    rater : str, default "subject"
        The column naming the rater.
    normalise : {"z", None}
        None adds nothing and returns ``()``.

    Returns
    -------
    tuple of str
        The columns added (to append to the table's columns).

    Raises
    ------
    JudgmentsError
        An unknown normalisation.

    Examples
    --------
    >>> rows = [{"subject": "s1", "adequacy": x} for x in (10, 20, 30)]
    >>> rows.append({"subject": "s1", "adequacy": 99, "practice": True})
    >>> add_z_scores(rows, ["adequacy"])
    ('adequacy_z',)
    >>> [r["adequacy_z"] for r in rows]
    [-1.0, 0.0, 1.0, None]
    """
    if normalise is None:
        return ()
    if normalise not in NORMALISATIONS:
        raise JudgmentsError(
            f"{normalise!r} is not one of {', '.join(NORMALISATIONS)}",
            field="normalise",
        )
    columns = z_columns(measures)
    for measure, column in zip(measures, columns, strict=True):
        basis: dict[str, list[tuple[int, float]]] = {}
        for i, row in enumerate(rows):
            row[column] = None
            if (
                _flag(row.get("practice"))
                or _flag(row.get("duplicate"))
                or _flag(row.get("excluded"))
            ):
                continue
            value = _number(row.get(measure))
            who = row.get(rater)
            if value is None or who is None or str(who) == "":
                continue
            basis.setdefault(str(who), []).append((i, value))
        for scores in basis.values():
            values = [v for _, v in scores]
            if len(values) < 2:
                continue
            mean = statistics.fmean(values)
            sd = statistics.stdev(values)
            if not sd > 0:
                continue
            for i, value in scores:
                rows[i][column] = (value - mean) / sd
    return columns


def check_normalise(study: Mapping[str, Any], where: str = "") -> str | None:
    """The study's ``normalise`` value, checked against its task.

    *where* is the study's key path in the config (e.g. ``studies[0]``).

    >>> check_normalise({"task": "rating", "normalise": "z"})
    'z'
    >>> check_normalise({"task": "identification", "normalise": "z"}, "studies[1]")
    Traceback (most recent call last):
    ...
    stecflow.core.errors.ConfigError: studies[1].normalise: only rating and text_rating studies have scores to normalise; leave normalise out
    """  # noqa: E501
    from stecflow.core.errors import ConfigError

    where = where or f"studies.{study.get('id')}"
    value = study.get("normalise")
    if value is None:
        return None
    if value not in NORMALISATIONS:
        raise ConfigError(
            f"{value!r} is not one of {', '.join(NORMALISATIONS)}",
            field=f"{where}.normalise",
        )
    from stecflow.studykinds.registry import get, names_where

    if not get(str(study.get("task"))).normalisable:
        scored = names_where(lambda kind: kind.normalisable)
        raise ConfigError(
            f"only {' and '.join(scored)} studies have scores to normalise;"
            " leave normalise out",
            field=f"{where}.normalise",
        )
    return value

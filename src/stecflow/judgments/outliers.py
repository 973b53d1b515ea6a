"""Reaction-time outliers: the mean ± k·SD rule with SPSS-style replacement.

TUNA-REG'09 (seed 001, section 5.3): "Outliers were defined as those
identification times which fell outside the mean ± 2SD range. 44 data points
(4.9%) out of a total of 896 were identified as outliers by this definition;
these were replaced with the series mean (Ratliff, 1993)." REFERENCE.md §14
settles what the sources leave open and makes it configurable:

* ``rule``: ``sd`` (outside mean ± ``k``·SD, strictly), ``fixed`` (outside
  ``[fixed_min_ms, fixed_max_ms]``) or ``none``;
* ``k`` (default 2) and ``sd_ddof`` (default 1, the sample SD SPSS uses);
* ``scope``: the series over which mean and SD are computed: ``all`` (default,
  SPSS's "series" is the whole variable), ``per_system``, ``per_subject``,
  ``per_system_domain`` (system × subdomain) or ``per_subdomain``;
* ``replacement``: ``mean_excluding_outliers`` (default: outliers are recoded
  to missing and replaced by the mean of the remaining values, SPSS ``RMV
  SMEAN``), ``mean_including`` (the series mean with the outliers), ``drop``
  or ``winsorize`` (the nearest bound).

Worked example (REFERENCE.md §14): RT = [500, 520, 480, 510, 2000, 490, 505, 495,
515, 485] has mean 650, SD 474.517299, bounds [−299.035, 1599.035]; 2000 is the
outlier, replaced by 500 (650 when the mean includes it).

With *n* values the largest attainable ``|z|`` (``ddof`` 1) is (n−1)/√n, 1.79 at
n = 5, so a 2-SD rule can never fire in cells of five or fewer values; such cells
get a warning (:func:`max_abs_z`).

Reference: Ratcliff, R. (1993). Methods for dealing with reaction time
outliers. Psychological Bulletin 114(3):510–532 (the REG papers spell it
"Ratliff").
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from stecflow.judgments._common import JudgmentsError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "OUTLIER_CELL_COLUMNS",
    "OUTLIER_REPLACEMENTS",
    "OUTLIER_RULES",
    "OUTLIER_SCOPES",
    "OutlierResult",
    "OutlierSettings",
    "max_abs_z",
    "outlier_sentence",
    "replace_outliers",
    "sd_bounds",
    "treat_outliers",
]

#: Outlier rules.
OUTLIER_RULES = ("sd", "fixed", "none")
#: Scopes and the columns that define their cells.
OUTLIER_SCOPES: dict[str, tuple[str, ...]] = {
    "all": (),
    "per_system": ("system",),
    "per_subject": ("subject",),
    "per_system_domain": ("system", "subdomain"),
    "per_subdomain": ("subdomain",),
}
#: What an outlier is replaced with.
OUTLIER_REPLACEMENTS = (
    "mean_excluding_outliers",
    "mean_including",
    "drop",
    "winsorize",
)
#: Time columns the rule can be applied to.
TIME_MEASURES = ("identification_time_ms", "reading_time_ms", "rt_ms")

#: Columns of the per-cell table of :func:`treat_outliers`.
OUTLIER_CELL_COLUMNS = (
    "measure",
    "cell",
    "n",
    "mean",
    "sd",
    "lower",
    "upper",
    "n_outliers",
    "replacement_value",
    "max_abs_z",
    "warning",
)

_MEASURE_NAMES = {
    "identification_time_ms": "identification times",
    "reading_time_ms": "reading times",
    "rt_ms": "response times",
}
_REPLACEMENT_TEXT = {
    "mean_excluding_outliers": "these were replaced with the series mean (the mean "
    "of the remaining values; SPSS RMV SMEAN; Ratcliff, 1993)",
    "mean_including": "these were replaced with the series mean including the "
    "outliers (Ratcliff, 1993)",
    "drop": "these were left out of the analysis (Ratcliff, 1993)",
    "winsorize": "these were replaced with the nearest bound (winsorised; "
    "Ratcliff, 1993)",
}
_SCOPE_TEXT = {
    "all": "over all trials",
    "per_system": "per system",
    "per_subject": "per subject",
    "per_system_domain": "per system and subdomain",
    "per_subdomain": "per subdomain",
}


@dataclass(frozen=True)
class OutlierSettings:
    """Settings of the outlier treatment (config ``judgments.outliers``).

    Attributes
    ----------
    rule : {"sd", "fixed", "none"}
        See the module docstring.
    k : float
        Width of the SD band (default 2, TUNA-REG'09).
    sd_ddof : int
        Delta degrees of freedom of the SD (default 1).
    scope : str
        One of :data:`OUTLIER_SCOPES` (default ``all``).
    replacement : str
        One of :data:`OUTLIER_REPLACEMENTS` (default ``mean_excluding_outliers``).
    measures : tuple of str
        Time columns treated (default identification and reading times).
    fixed_min_ms, fixed_max_ms : float or None
        Bounds of the ``fixed`` rule.
    """

    rule: str = "sd"
    k: float = 2.0
    sd_ddof: int = 1
    scope: str = "all"
    replacement: str = "mean_excluding_outliers"
    measures: tuple[str, ...] = ("identification_time_ms", "reading_time_ms")
    fixed_min_ms: float | None = None
    fixed_max_ms: float | None = None

    def __post_init__(self) -> None:
        checks = (
            ("rule", self.rule, OUTLIER_RULES),
            ("scope", self.scope, tuple(OUTLIER_SCOPES)),
            ("replacement", self.replacement, OUTLIER_REPLACEMENTS),
        )
        for name, value, allowed in checks:
            if value not in allowed:
                raise JudgmentsError(
                    f"{value!r} is not one of {', '.join(allowed)}",
                    field=f"outliers.{name}",
                )
        if isinstance(self.k, bool) or not isinstance(self.k, int | float):
            raise JudgmentsError(
                f"must be a number, got {self.k!r}", field="outliers.k"
            )
        if not self.k > 0:
            raise JudgmentsError(f"must be positive, got {self.k}", field="outliers.k")
        if self.sd_ddof not in (0, 1):
            raise JudgmentsError(
                f"must be 0 or 1, got {self.sd_ddof!r}", field="outliers.sd_ddof"
            )
        bad = [m for m in self.measures if m not in TIME_MEASURES]
        if bad:
            raise JudgmentsError(
                f"{bad[0]!r} is not one of {', '.join(TIME_MEASURES)}",
                field="outliers.measures",
            )
        if (
            self.rule == "fixed"
            and self.fixed_min_ms is None
            and (self.fixed_max_ms is None)
        ):
            raise JudgmentsError(
                "the fixed rule needs fixed_min_ms or fixed_max_ms",
                field="outliers.fixed_min_ms",
            )

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | None) -> OutlierSettings:
        """Build from config (unknown keys raise).

        >>> OutlierSettings.from_mapping({"k": 2.5, "scope": "per_system"}).k
        2.5
        """
        values = dict(values or {})
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(values) - known)
        if unknown:
            raise JudgmentsError(
                f"unknown key {unknown[0]!r}; use {', '.join(sorted(known))}",
                field=f"outliers.{unknown[0]}",
            )
        if "measures" in values:
            values["measures"] = tuple(values["measures"])
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for the summary and report."""
        out = asdict(self)
        out["measures"] = list(self.measures)
        return out

    def signature(self) -> str:
        """A sacrebleu-style signature of the settings.

        >>> OutlierSettings().signature()
        'outliers|rule:sd|k:2|ddof:1|scope:all|replacement:mean_excluding_outliers'
        """
        if self.rule == "fixed":
            band = f"min:{self.fixed_min_ms}|max:{self.fixed_max_ms}"
        else:
            band = f"k:{self.k:g}|ddof:{self.sd_ddof}"
        return (
            f"outliers|rule:{self.rule}|{band}|scope:{self.scope}|"
            f"replacement:{self.replacement}"
        )


def max_abs_z(n: int, ddof: int = 1) -> float:
    """The largest ``|z|`` any value can reach in a sample of *n* values.

    It is sqrt((n−1)(n−ddof)/n): (n−1)/√n with ``ddof=1`` (REFERENCE.md §14),
    √(n−1) with ``ddof=0``.

    Examples
    --------
    >>> round(max_abs_z(5), 2), round(max_abs_z(10), 3)
    (1.79, 2.846)
    """
    if n < 2:
        return 0.0
    return math.sqrt((n - 1) * (n - ddof) / n)


def sd_bounds(
    values: Sequence[float] | np.ndarray, *, k: float = 2.0, ddof: int = 1
) -> tuple[float, float, float, float]:
    """Mean, SD and the bounds mean ± k·SD of *values* (NaN ignored).

    Examples
    --------
    >>> rt = [500, 520, 480, 510, 2000, 490, 505, 495, 515, 485]
    >>> mean, sd, lower, upper = sd_bounds(rt)
    >>> mean, round(sd, 6), round(lower, 3), round(upper, 3)
    (650.0, 474.517299, -299.035, 1599.035)
    """
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if len(x) == 0:
        return (math.nan,) * 4
    mean = float(np.mean(x))
    sd = float(np.std(x, ddof=ddof)) if len(x) > ddof else math.nan
    if not math.isfinite(sd):
        return mean, sd, math.nan, math.nan
    return mean, sd, mean - k * sd, mean + k * sd


@dataclass(frozen=True)
class OutlierResult:
    """Outcome of :func:`replace_outliers` for one series."""

    adjusted: np.ndarray
    outlier: np.ndarray
    n: int
    mean: float
    sd: float
    lower: float
    upper: float
    n_outliers: int
    replacement_value: float
    max_abs_z: float
    warning: str | None


def replace_outliers(
    values: Sequence[float] | np.ndarray,
    *,
    rule: str = "sd",
    k: float = 2.0,
    ddof: int = 1,
    replacement: str = "mean_excluding_outliers",
    fixed_min: float | None = None,
    fixed_max: float | None = None,
) -> OutlierResult:
    """Flag the outliers of one series and replace them.

    Parameters
    ----------
    values : array-like of float
        The series (NaN values are neither flagged nor replaced).
    rule, k, ddof, replacement, fixed_min, fixed_max
        See :class:`OutlierSettings`. A value is an outlier when it lies
        strictly outside the bounds.

    Returns
    -------
    OutlierResult
        ``adjusted`` (NaN for dropped outliers), the flags and the statistics.

    Examples
    --------
    >>> rt = [500, 520, 480, 510, 2000, 490, 505, 495, 515, 485]
    >>> r = replace_outliers(rt)
    >>> r.n_outliers, float(r.adjusted[4]), round(r.upper, 3)
    (1, 500.0, 1599.035)
    >>> float(replace_outliers(rt, replacement="mean_including").adjusted[4])
    650.0
    """
    x = np.asarray(values, dtype=float)
    finite = np.isfinite(x)
    n = int(finite.sum())
    mean, sd, lower, upper = sd_bounds(x, k=k, ddof=ddof)
    warning = None
    zmax = max_abs_z(n, ddof)
    if rule == "fixed":
        lower = -math.inf if fixed_min is None else float(fixed_min)
        upper = math.inf if fixed_max is None else float(fixed_max)
    if rule == "none" or n == 0:
        flags = np.zeros(len(x), dtype=bool)
    elif rule == "sd" and not math.isfinite(sd):
        flags = np.zeros(len(x), dtype=bool)
        warning = f"n = {n}: the SD is undefined, no outliers can be found"
    else:
        with np.errstate(invalid="ignore"):
            flags = finite & ((x < lower) | (x > upper))
        if rule == "sd" and zmax <= k:
            warning = (
                f"n = {n}: the largest possible |z| is {zmax:.2f} <= k = {k:g}, so "
                "no value can be an outlier"
            )
    n_out = int(flags.sum())
    adjusted = x.copy()
    value = math.nan
    if n_out:
        if replacement == "mean_excluding_outliers":
            rest = x[finite & ~flags]
            value = float(np.mean(rest)) if len(rest) else math.nan
            adjusted[flags] = value
            if not len(rest):
                warning = "every value is an outlier; they are left out"
        elif replacement == "mean_including":
            value = mean
            adjusted[flags] = value
        elif replacement == "drop":
            adjusted[flags] = math.nan
        elif replacement == "winsorize":
            adjusted[flags & (x < lower)] = lower
            adjusted[flags & (x > upper)] = upper
        else:
            raise JudgmentsError(
                f"{replacement!r} is not one of {', '.join(OUTLIER_REPLACEMENTS)}",
                field="outliers.replacement",
            )
    return OutlierResult(
        adjusted, flags, n, mean, sd, lower, upper, n_out, value, zmax, warning
    )


def treat_outliers(
    data: pd.DataFrame,
    dv: str,
    *,
    settings: OutlierSettings | Mapping[str, Any] | None = None,
    mask: Any = None,
    flag_column: str | None = None,
    adjusted_column: str | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Apply the outlier rule to one time column of a tidy table.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per trial, with *dv* and the scope's columns (``system``,
        ``subject``, ``subdomain``).
    dv : str
        The time column.
    settings : OutlierSettings or mapping, optional
        Rule, k, ddof, scope, replacement (defaults: REFERENCE.md §14).
    mask : boolean array-like, optional
        Rows that belong to the series (default: every row with a finite *dv*);
        the others get a missing adjusted value.
    flag_column, adjusted_column : str, optional
        Output columns (default ``<dv>_outlier`` and ``<dv>_adjusted``).

    Returns
    -------
    (data, cells)
        A copy of *data* with the flag and adjusted columns, and one row per
        scope cell (:data:`OUTLIER_CELL_COLUMNS`).

    Examples
    --------
    >>> import pandas as pd
    >>> rt = [500, 520, 480, 510, 2000, 490, 505, 495, 515, 485]
    >>> df = pd.DataFrame({"rt": rt, "system": ["A"] * 10})
    >>> out, cells = treat_outliers(df, "rt")
    >>> out["rt_adjusted"].tolist()[3:6], int(cells.loc[0, "n_outliers"])
    ([510.0, 500.0, 490.0], 1)
    """
    import pandas as pd

    if settings is None:
        settings = OutlierSettings()
    elif not isinstance(settings, OutlierSettings):
        settings = OutlierSettings.from_mapping(settings)
    flag_column = flag_column or f"{dv}_outlier"
    adjusted_column = adjusted_column or f"{dv}_adjusted"
    out = data.copy()
    values = pd.to_numeric(out[dv], errors="coerce").to_numpy(dtype=float)
    in_series = np.isfinite(values)
    if mask is not None:
        in_series &= np.asarray(mask, dtype=bool)
    flags = np.zeros(len(out), dtype=bool)
    adjusted = np.full(len(out), math.nan)
    by = list(OUTLIER_SCOPES[settings.scope])
    positions = np.flatnonzero(in_series)
    if by:
        frame = out.iloc[positions][by]
        keys = [tuple(str(v) for v in row) for row in frame.itertuples(index=False)]
    else:
        keys = [("all",)] * len(positions)
    groups: dict[tuple[str, ...], list[int]] = {}
    for position, key in zip(positions.tolist(), keys, strict=True):
        groups.setdefault(key, []).append(position)
    cells = []
    for key in sorted(groups):
        index = np.asarray(groups[key], dtype=int)
        result = replace_outliers(
            values[index],
            rule=settings.rule,
            k=settings.k,
            ddof=settings.sd_ddof,
            replacement=settings.replacement,
            fixed_min=settings.fixed_min_ms,
            fixed_max=settings.fixed_max_ms,
        )
        flags[index] = result.outlier
        adjusted[index] = result.adjusted
        cell = (
            ", ".join(f"{c}={v}" for c, v in zip(by, key, strict=True)) if by else "all"
        )
        cells.append(
            {
                "measure": dv,
                "cell": cell,
                "n": result.n,
                "mean": result.mean,
                "sd": result.sd,
                "lower": result.lower,
                "upper": result.upper,
                "n_outliers": result.n_outliers,
                "replacement_value": result.replacement_value,
                "max_abs_z": result.max_abs_z,
                "warning": result.warning,
            }
        )
    out[flag_column] = flags
    out[adjusted_column] = adjusted
    return out, pd.DataFrame(cells, columns=list(OUTLIER_CELL_COLUMNS))


def outlier_sentence(
    n_outliers: int,
    n_total: int,
    *,
    measure: str = "identification_time_ms",
    settings: OutlierSettings | None = None,
) -> str:
    """Describe the outlier treatment in the style of seed 001, section 5.3.

    Examples
    --------
    >>> print(outlier_sentence(44, 896))
    Outliers were defined as those identification times which fell outside the mean ± 2SD range (computed over all trials). 44 data points (4.9%) out of a total of 896 were identified as outliers by this definition; these were replaced with the series mean (the mean of the remaining values; SPSS RMV SMEAN; Ratcliff, 1993).
    """  # noqa: E501
    settings = settings or OutlierSettings()
    name = _MEASURE_NAMES.get(measure, measure)
    if settings.rule == "none":
        return f"No outlier treatment was applied to the {name}."
    if settings.rule == "fixed":
        low = "-inf" if settings.fixed_min_ms is None else f"{settings.fixed_min_ms:g}"
        high = "inf" if settings.fixed_max_ms is None else f"{settings.fixed_max_ms:g}"
        rule = f"fell outside the range [{low}, {high}] ms"
    else:
        rule = (
            f"fell outside the mean ± {settings.k:g}SD range (computed "
            f"{_SCOPE_TEXT[settings.scope]})"
        )
    share = 100 * n_outliers / n_total if n_total else 0.0
    text = (
        f"Outliers were defined as those {name} which {rule}. {n_outliers} data "
        f"points ({share:.1f}%) out of a total of {n_total} were identified as "
        "outliers by this definition"
    )
    if n_outliers:
        return text + "; " + _REPLACEMENT_TEXT[settings.replacement] + "."
    return text + "."


def short_count(n_outliers: int, n_total: int) -> str:
    """``"44 of 896 data points (4.9%)"``.

    >>> short_count(44, 896)
    '44 of 896 data points (4.9%)'
    """
    share = 100 * n_outliers / n_total if n_total else 0.0
    return f"{n_outliers} of {n_total} data points ({share:.1f}%)"

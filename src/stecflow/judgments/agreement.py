"""Inter-rater agreement of a human study: Krippendorff's alpha and the ICC.

What is computed, per study and criterion (``results/judgments/agreement/<study>.tsv``):

* **Krippendorff's alpha** (Krippendorff 2011), interval metric for slider and
  Likert scores (Adequacy, Fluency, a ``text_rating`` criterion), nominal for
  categorical answers (the entity chosen in an identification study, the text
  preferred in a preference study (or a tie), the piece chosen in a situated
  study). Alpha uses every *pairable* value: the values of units judged by at
  least two raters, however many raters judged each unit, so the incomplete
  designs of human studies (Latin squares, lists) need no imputation. The point
  estimate is the ``krippendorff`` package's (PyPI, Castro 2017); the bootstrap
  resamples use :class:`UnitStats`, the same formulas as sums of per-unit
  statistics (one resample costs O(units)), which the tests check against
  :func:`alpha` and :func:`alpha` against the package, to 1e-12 (the package
  builds a units x values x values tensor on each call, 0.1 s for 700 slider
  units, too slow for a thousand resamples).
* **Intraclass correlation** for slider scores (Shrout & Fleiss 1979; McGraw &
  Wong 1996), single-rater and average-rater forms. Which model fits depends on
  the design, and the table says which was used:

  - raters *crossed* with units (every rater judged every unit kept): two-way
    random effects, absolute agreement, ICC(2,1) and ICC(2,k) (McGraw & Wong's
    ICC(A,1) and ICC(A,k)): raters are a sample of possible raters and a rater
    who scores everything higher counts as disagreement, as it should when
    system means are compared on raw scores;
  - raters *nested* in units (a Latin-square or list design: each unit judged by
    a different set of participants): the rater effect cannot be separated from
    error, so the one-way random model, ICC(1,1) and ICC(1,k), is the only one
    that applies. With unequal numbers of raters per unit, the one-way ANOVA
    estimator with the average group size k0 = (N - sum k_i^2 / N) / (a - 1)
    (Snedecor & Cochran; the ``k`` of ICC(1,k) is k0).

  ``pingouin.intraclass_corr`` needs complete data (it drops every unit with a
  missing rating, i.e. all of them in a Latin square), so the ICC is computed
  here (:func:`icc`) and tested against pingouin on complete data and against the
  published values of Shrout & Fleiss (1979, Table 2).
* **Confidence intervals**: percentile bootstrap over *units* (the things
  judged: an item described by a system, a pair of texts for an item, a
  situated instance), with a seed from the config: a unit keeps all its
  ratings, so the dependence of the ratings of one unit is kept, and one scheme
  serves alpha and ICC alike. (Hayes & Krippendorff 2007 resample pairable
  values from the coincidence matrix, which applies to alpha only and treats
  the pairs of one unit as independent.) Resamples where a coefficient is
  undefined (fewer than two pairable units, no variation) are left out and
  counted.

Rows used: trials that are not practice, not fillers, not control trials
(``control`` column, system ``CONTROL``), not excluded (``excluded``), and in the
analysis (``in_analysis``) where the table has those columns; the JSON says how
many rows each reason removed.

May import: :mod:`stecflow.core`, :mod:`stecflow.judgments`; numpy, pandas and
krippendorff inside functions.

References
----------
Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg
School for Communication, University of Pennsylvania.
Hayes, A. F., & Krippendorff, K. (2007). Answering the call for a standard
reliability measure for coding data. Communication Methods and Measures 1(1).
Shrout, P. E., & Fleiss, J. L. (1979). Intraclass correlations: uses in assessing
rater reliability. Psychological Bulletin 86(2), 420-428.
McGraw, K. O., & Wong, S. P. (1996). Forming inferences about some intraclass
correlation coefficients. Psychological Methods 1(1), 30-46.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stecflow.judgments._common import JudgmentsError, digest_seed
from stecflow.studies.criteria import Criterion, rated_criteria

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import pandas as pd

__all__ = [
    "AGREEMENT_COLUMNS",
    "AGREEMENT_VERSION",
    "SYSTEM_MEAN_COLUMNS",
    "AgreementSettings",
    "Criterion",
    "UnitStats",
    "agreement_criteria",
    "alpha",
    "analysed_rows",
    "icc",
    "reliability_matrix",
    "study_agreement",
    "system_means",
    "write_agreement",
]

logger = logging.getLogger(__name__)

#: Version of the agreement tables; bump when a column changes meaning.
AGREEMENT_VERSION = 1

#: Columns of ``results/judgments/agreement/<study>.tsv``: one row per criterion
#: and coefficient.
AGREEMENT_COLUMNS = (
    "study",
    "criterion",
    "level",
    "coefficient",
    "estimate",
    "ci_low",
    "ci_high",
    "n_units",
    "n_raters",
    "n_pairable",
    "raters_per_unit",
    "n_boot",
    "n_boot_undefined",
    "note",
)

#: Columns of the JSON's ``system_means`` (raw and per-rater z-normalised means).
SYSTEM_MEAN_COLUMNS = ("criterion", "system", "n", "mean", "z_n", "z_mean")

_TRUE = {"true", "1", "yes", "True", "TRUE"}


@dataclass(frozen=True)
class AgreementSettings:
    """Settings of the agreement statistics (study key ``agreement``).

    Attributes
    ----------
    bootstrap : int
        Bootstrap resamples of the units (0: no intervals).
    confidence : float
        Level of the percentile intervals.
    seed : int or None
        Seed of the resampling (None: the study's seed).
    """

    bootstrap: int = 1000
    confidence: float = 0.95
    seed: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.bootstrap, int) or self.bootstrap < 0:
            raise JudgmentsError(
                f"must be a whole number >= 0, got {self.bootstrap!r}",
                field="agreement.bootstrap",
            )
        if not 0 < self.confidence < 1:
            raise JudgmentsError(
                f"must be between 0 and 1, got {self.confidence!r}",
                field="agreement.confidence",
            )

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | None) -> AgreementSettings:
        """Build from a study's ``agreement`` mapping (unknown keys raise).

        >>> AgreementSettings.from_mapping({"bootstrap": 200}).bootstrap
        200
        """
        values = dict(values or {})
        unknown = sorted(set(values) - {"bootstrap", "confidence", "seed"})
        if unknown:
            raise JudgmentsError(
                f"unknown key {unknown[0]!r}", field=f"agreement.{unknown[0]}"
            )
        return cls(**values)


# ---------------------------------------------------------------- coefficients


def alpha(matrix: np.ndarray, level: str = "interval") -> float:
    """Krippendorff's alpha of a raters x units matrix (NaN = no value).

    Units with fewer than two values are not pairable and are ignored. Returns
    NaN when fewer than two units are pairable or the values do not vary (the
    expected disagreement is 0).

    Parameters
    ----------
    matrix : numpy.ndarray
        Raters x units; for ``nominal``, category codes (any numbers).
    level : {"interval", "nominal"}

    Examples
    --------
    Krippendorff (2011), section C and E: four observers, twelve units, missing
    values.

    >>> import numpy as np
    >>> n = np.nan
    >>> data = np.array([[1, 2, 3, 3, 2, 1, 4, 1, 2, n, n, n],
    ...                  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, n, 3],
    ...                  [n, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, n],
    ...                  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, n]])
    >>> round(alpha(data, "nominal"), 3), round(alpha(data, "interval"), 3)
    (0.743, 0.849)
    """
    import numpy as np

    data = np.asarray(matrix, dtype=float)
    present = ~np.isnan(data)
    m = present.sum(axis=0)
    keep = m >= 2
    data, present, m = data[:, keep], present[:, keep], m[keep]
    n = int(m.sum())
    if data.shape[1] < 1 or n < 2:
        return math.nan
    if level == "interval":
        values = np.where(present, data, 0.0)
        unit_mean = values.sum(axis=0) / m
        ss_unit = (np.where(present, data - unit_mean, 0.0) ** 2).sum(axis=0)
        # sum over ordered pairs i != j of (v_i - v_j)^2 = 2 m SS
        d_o = float((2.0 * m * ss_unit / (m - 1)).sum()) / n
        grand = values.sum() / n
        ss_total = float((np.where(present, data - grand, 0.0) ** 2).sum())
        d_e = 2.0 * n * ss_total / (n * (n - 1))
    elif level == "nominal":
        codes = np.unique(data[present])
        counts = np.stack([(data == c).sum(axis=0) for c in codes])  # c x units
        d_o = float(((m**2 - (counts**2).sum(axis=0)) / (m - 1)).sum()) / n
        totals = counts.sum(axis=1)
        d_e = float(n**2 - (totals**2).sum()) / (n * (n - 1))
    else:
        raise JudgmentsError(
            f"unknown level {level!r}; use interval or nominal", field="level"
        )
    if d_e <= 0:
        return math.nan
    return 1.0 - d_o / d_e


def _library_alpha(matrix: np.ndarray, level: str) -> float:
    """The krippendorff package's alpha (NaN where it refuses the data)."""
    import krippendorff

    try:
        value = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level)
    except (ValueError, ZeroDivisionError):
        return math.nan
    return float(value) if math.isfinite(value) else math.nan


def icc(matrix: np.ndarray, model: str | None = None) -> dict[str, Any]:
    """Intraclass correlations of a raters x units matrix (NaN = not rated).

    Units with fewer than two ratings are left out. When every remaining unit was
    rated by every remaining rater (raters crossed with units), the two-way random
    model, absolute agreement: ICC(2,1) and ICC(2,k); otherwise (raters nested in
    units) the one-way random model: ICC(1,1) and ICC(1,k), k the (average) number
    of raters per unit (k0 for unequal numbers). *model* (``one_way`` or
    ``two_way``) forces one (``two_way`` needs complete data).

    Returns
    -------
    dict
        ``model`` (``two_way`` or ``one_way``), ``single`` and ``average`` (the
        coefficients, NaN if undefined), ``k`` (raters per unit), ``n_units``,
        ``n_raters``.

    Examples
    --------
    Shrout & Fleiss (1979), Table 2: 6 targets, 4 judges (ICC(2,1) = .29,
    ICC(2,4) = .62).

    >>> import numpy as np
    >>> x = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8],
    ...               [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]], float).T
    >>> r = icc(x)
    >>> r["model"], round(r["single"], 2), round(r["average"], 2)
    ('two_way', 0.29, 0.62)
    """
    import numpy as np

    data = np.asarray(matrix, dtype=float)
    present = ~np.isnan(data)
    keep = present.sum(axis=0) >= 2
    data, present = data[:, keep], present[:, keep]
    raters = present.any(axis=1)
    data, present = data[raters], present[raters]
    n_units, n_raters = data.shape[1], data.shape[0]
    out: dict[str, Any] = {
        "model": "one_way",
        "single": math.nan,
        "average": math.nan,
        "k": math.nan,
        "n_units": n_units,
        "n_raters": n_raters,
    }
    if n_units < 2:
        return out
    if model not in (None, "one_way", "two_way"):
        raise JudgmentsError(f"unknown ICC model {model!r}", field="model")
    if model == "two_way" and not present.all():
        return out
    if present.all() and model != "one_way":
        k, n = n_raters, n_units
        out.update(model="two_way", k=float(k))
        grand = data.mean()
        ss_rows = k * ((data.mean(axis=0) - grand) ** 2).sum()  # units
        ss_cols = n * ((data.mean(axis=1) - grand) ** 2).sum()  # raters
        ss_total = ((data - grand) ** 2).sum()
        ss_err = ss_total - ss_rows - ss_cols
        msr = ss_rows / (n - 1)
        msc = ss_cols / (k - 1)
        mse = ss_err / ((n - 1) * (k - 1))
        single = msr + (k - 1) * mse + k * (msc - mse) / n
        average = msr + (msc - mse) / n
        out["single"] = float((msr - mse) / single) if single > 0 else math.nan
        out["average"] = float((msr - mse) / average) if average > 0 else math.nan
        return out
    counts = present.sum(axis=0).astype(float)
    values = np.where(present, data, 0.0)
    big_n = counts.sum()
    unit_mean = values.sum(axis=0) / counts
    grand = values.sum() / big_n
    ss_between = float((counts * (unit_mean - grand) ** 2).sum())
    ss_within = float((np.where(present, data - unit_mean, 0.0) ** 2).sum())
    msb = ss_between / (n_units - 1)
    msw = ss_within / (big_n - n_units)
    k0 = (big_n - (counts**2).sum() / big_n) / (n_units - 1)
    out["k"] = float(k0)
    denominator = msb + (k0 - 1) * msw
    out["single"] = float((msb - msw) / denominator) if denominator > 0 else math.nan
    out["average"] = float((msb - msw) / msb) if msb > 0 else math.nan
    return out


@dataclass(frozen=True)
class UnitStats:
    """Per-unit sufficient statistics of a raters x units matrix, for resampling.

    A bootstrap resample of units is a weight per unit (how often it was drawn);
    alpha (interval and nominal) and the one-way ICC are sums over units of
    these statistics, so one resample costs O(units) instead of a pass over the
    raters x units matrix. :meth:`alpha` and :meth:`icc_one_way` equal
    :func:`alpha` and :func:`icc` (``model="one_way"``) of the resampled matrix
    (tested to 1e-10).

    Attributes
    ----------
    level : str
    m : numpy.ndarray
        Values per unit (units with fewer than two are dropped).
    s, q : numpy.ndarray
        Sum and sum of squares per unit of the values centred on their overall
        mean (for precision).
    ss : numpy.ndarray
        Sum of squared deviations from the unit's own mean.
    counts : numpy.ndarray or None
        Nominal: categories x units counts.
    """

    level: str
    m: Any
    s: Any
    q: Any
    ss: Any
    counts: Any = None

    @classmethod
    def from_matrix(cls, matrix: np.ndarray, level: str) -> UnitStats:
        """The statistics of *matrix* (raters x units, NaN = no value)."""
        import numpy as np

        data = np.asarray(matrix, dtype=float)
        present = ~np.isnan(data)
        keep = present.sum(axis=0) >= 2
        data, present = data[:, keep], present[:, keep]
        m = present.sum(axis=0).astype(float)
        centre = float(data[present].mean()) if present.any() else 0.0
        values = np.where(present, data - centre, 0.0)
        s = values.sum(axis=0)
        unit_mean = s / np.where(m > 0, m, 1)
        ss = (np.where(present, values - unit_mean, 0.0) ** 2).sum(axis=0)
        counts = None
        if level == "nominal":
            codes = np.unique(data[present])
            counts = np.stack([(data == c).sum(axis=0) for c in codes]).astype(float)
        elif level != "interval":
            raise JudgmentsError(
                f"unknown level {level!r}; use interval or nominal", field="level"
            )
        return cls(level, m, s, (values**2).sum(axis=0), ss, counts)

    def alpha(self, weights: np.ndarray) -> float:
        """Alpha of the units drawn *weights* times each (NaN if undefined)."""
        import numpy as np

        w = np.asarray(weights, dtype=float)
        n = float((w * self.m).sum())
        if n < 2:
            return math.nan
        if self.level == "interval":
            d_o = float((w * 2.0 * self.m * self.ss / (self.m - 1)).sum()) / n
            sum_q = float((w * self.q).sum())
            ss_total = sum_q - float((w * self.s).sum()) ** 2 / n
            if ss_total <= 1e-12 * sum_q:  # no variation (rounding aside)
                return math.nan
            d_e = 2.0 * ss_total / (n - 1)
        else:
            pairs = self.m**2 - (self.counts**2).sum(axis=0)
            d_o = float((w * pairs / (self.m - 1)).sum()) / n
            totals = self.counts @ w
            d_e = float(n**2 - (totals**2).sum()) / (n * (n - 1))
            if d_e <= 0:
                return math.nan
        return 1.0 - d_o / d_e

    def icc_one_way(self, weights: np.ndarray) -> dict[str, float]:
        """ICC(1,1) (``single``) and ICC(1,k) (``average``) of the units drawn."""
        import numpy as np

        w = np.asarray(weights, dtype=float)
        out = {"single": math.nan, "average": math.nan}
        units = float(w.sum())
        big_n = float((w * self.m).sum())
        if units < 2 or big_n <= units:
            return out
        total = float((w * self.s).sum())
        ss_between = float((w * self.s**2 / self.m).sum()) - total**2 / big_n
        ss_within = float((w * self.ss).sum())
        msb = ss_between / (units - 1)
        msw = ss_within / (big_n - units)
        k0 = (big_n - float((w * self.m**2).sum()) / big_n) / (units - 1)
        denominator = msb + (k0 - 1) * msw
        if denominator > 0:
            out["single"] = (msb - msw) / denominator
        if msb > 0:
            out["average"] = (msb - msw) / msb
        return out


# --------------------------------------------------------------------- the data


def _truthy(value: Any) -> bool:
    return str(value).strip() in _TRUE


def analysed_rows(frame: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, int]]:
    """The rows agreement is computed on, and how many each reason removed.

    Practice, filler, control (``control`` column or system ``CONTROL``),
    excluded and not-in-analysis rows go, in that order of counting.
    """
    keep = [True] * len(frame)
    dropped: dict[str, int] = {}
    tests: list[tuple[str, Any]] = []
    for column in ("practice", "filler"):
        if column in frame.columns:
            tests.append((column, frame[column].map(_truthy)))
    if "control" in frame.columns:
        tests.append(("control", frame["control"].astype(str).str.strip() != ""))
    if "system" in frame.columns:
        tests.append(("control_system", frame["system"].astype(str) == "CONTROL"))
    if "excluded" in frame.columns:
        tests.append(("excluded", frame["excluded"].map(_truthy)))
    if "in_analysis" in frame.columns:
        tests.append(("not_in_analysis", ~frame["in_analysis"].map(_truthy)))
    for name, drop in tests:
        drop = list(drop)
        removed = 0
        for i, d in enumerate(drop):
            if keep[i] and d:
                keep[i] = False
                removed += 1
        key = "control" if name == "control_system" else name
        dropped[key] = dropped.get(key, 0) + removed
    return frame[keep].copy(), dropped


def agreement_criteria(study: Mapping[str, Any]) -> list[Criterion]:
    """What is rated in a study, by task
    (:func:`stecflow.studies.criteria.rated_criteria`).

    >>> [c.name for c in agreement_criteria({"task": "rating"})]
    ['adequacy', 'fluency']
    """
    try:
        return rated_criteria(study)
    except ValueError as error:
        raise JudgmentsError(str(error), field="task") from None


def _units(frame: pd.DataFrame, unit: Sequence[str | tuple[str, ...]]) -> list[str]:
    """The unit each row judges: what two raters must share to be compared (a
    kind's :attr:`~stecflow.studykinds.base.StudyKind.unit`: columns, a tuple
    of columns an unordered pair; a column the table lacks counts as empty).

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"item": ["i"], "left": ["b"], "right": ["a"]})
    >>> _units(frame, ("item", ("left", "right")))
    ['i|a|b']
    """
    parts = []
    for column in unit:
        if isinstance(column, tuple):  # an unordered pair (or set) of columns
            parts.append(
                [
                    "|".join(sorted(values))
                    for values in zip(*(frame[c] for c in column), strict=True)
                ]
            )
        else:
            parts.append(
                list(frame[column]) if column in frame.columns else [""] * len(frame)
            )
    return ["|".join(str(v) for v in values) for values in zip(*parts, strict=True)]


def preference_answers(frame: pd.DataFrame) -> pd.DataFrame:
    """A preference study's answers as raters agree on them: a tie is an
    answer (``winner`` empty and ``preferred`` tie: ``tie``)."""
    import pandas as pd

    if "winner" not in frame.columns:
        return frame
    preferred = (
        frame["preferred"].astype(str)
        if "preferred" in frame.columns
        else pd.Series("", index=frame.index)
    )
    winner = frame["winner"].astype(str)
    frame["winner"] = [
        w if w else ("tie" if p == "tie" else "")
        for w, p in zip(winner, preferred, strict=True)
    ]
    return frame


def situated_answers(frame: pd.DataFrame) -> pd.DataFrame:
    """A situated study's answers as raters agree on them: "I don't know" is an
    answer raters can agree on, as in the IR measures (``cant_tell``)."""
    if {"chosen", "cant_tell"} <= set(frame):
        frame["chosen"] = [
            c if c else ("cant_tell" if _truthy(t) else "")
            for c, t in zip(
                frame["chosen"].astype(str), frame["cant_tell"], strict=True
            )
        ]
    return frame


def reliability_matrix(
    frame: pd.DataFrame,
    *,
    unit: str,
    rater: str,
    value: str,
    level: str,
) -> tuple[np.ndarray, list[str], list[str], int]:
    """Raters x units matrix of one criterion's values (NaN where not rated).

    A nominal value is coded by its rank among the sorted categories. A rater who
    judged a unit twice keeps the first value (counted as the 4th result).

    Returns
    -------
    (matrix, raters, units, n_repeated)

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"u": ["a", "a", "b"], "r": ["x", "y", "x"],
    ...                    "v": ["2", "3", ""]})
    >>> m, raters, units, _ = reliability_matrix(
    ...     df, unit="u", rater="r", value="v", level="interval")
    >>> m.tolist(), raters, units
    ([[2.0], [3.0]], ['x', 'y'], ['a'])
    """
    import numpy as np
    import pandas as pd

    values = frame[value].astype(str).str.strip()
    if level == "interval":
        numbers = pd.to_numeric(values.replace("", "nan"), errors="coerce")
        present = numbers.notna() & np.isfinite(numbers.fillna(0))
        coded = numbers
    else:
        present = values != ""
        categories = sorted(set(values[present]))
        lookup = {c: float(i) for i, c in enumerate(categories)}
        coded = values.map(lambda v: lookup.get(v, math.nan))
    part = pd.DataFrame(
        {
            "unit": frame[unit].astype(str).to_numpy(),
            "rater": frame[rater].astype(str).to_numpy(),
            "value": coded.to_numpy(dtype=float),
        }
    )[present.to_numpy()]
    repeated = int(part.duplicated(["unit", "rater"]).sum())
    part = part.drop_duplicates(["unit", "rater"], keep="first")
    raters = sorted(set(part["rater"]))
    units = sorted(set(part["unit"]))
    matrix = np.full((len(raters), len(units)), np.nan)
    r_index = {r: i for i, r in enumerate(raters)}
    u_index = {u: i for i, u in enumerate(units)}
    for u, r, v in part[["unit", "rater", "value"]].itertuples(index=False):
        matrix[r_index[r], u_index[u]] = v
    # units judged by one rater only carry no agreement information
    pairable = (~np.isnan(matrix)).sum(axis=0) >= 2
    matrix = matrix[:, pairable]
    units = [u for u, p in zip(units, pairable, strict=True) if p]
    used = (~np.isnan(matrix)).any(axis=1)
    matrix = matrix[used]
    raters = [r for r, k in zip(raters, used, strict=True) if k]
    return matrix, raters, units, repeated


def _interval(boots: Sequence[float], confidence: float) -> tuple[float, float, int]:
    import numpy as np

    values = np.asarray(boots, dtype=float)
    undefined = int(np.isnan(values).sum())
    values = values[~np.isnan(values)]
    if len(values) < 2:
        return math.nan, math.nan, undefined
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(values, [tail, 1.0 - tail])
    return float(low), float(high), undefined


def study_agreement(
    judgments: pd.DataFrame,
    study: Mapping[str, Any],
    settings: AgreementSettings | Mapping[str, Any] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Agreement per criterion of one study's judgments table.

    Parameters
    ----------
    judgments : pandas.DataFrame
        ``results/judgments/<study>.tsv`` read as strings.
    study : mapping
        The study's config entry (``id``, ``task``, ``seed``, ``criteria``).
    settings : AgreementSettings or mapping, optional
        The study's ``agreement`` settings.

    Returns
    -------
    (rows, facts)
        Rows with :data:`AGREEMENT_COLUMNS`; facts: rows read and dropped.
    """
    import numpy as np

    config = (
        settings
        if isinstance(settings, AgreementSettings)
        else AgreementSettings.from_mapping(settings)
    )
    study_id = str(study.get("id") or "")
    task = str(study.get("task"))
    seed = config.seed if config.seed is not None else int(study.get("seed") or 0)
    frame, dropped = analysed_rows(judgments)
    if not len(frame):  # no judgments yet (a study awaiting its responses)
        facts = {"rows": int(len(judgments)), "rows_used": 0, "seed": seed}
        return [], {**facts, "dropped": dict(sorted(dropped.items()))}
    rater = "subject"
    if rater not in frame.columns:
        raise JudgmentsError(
            "the judgments table has no subject column", field="subject"
        )
    from stecflow.studykinds.registry import get, hook

    frame = frame.assign(_unit=_units(frame, get(task).unit) if len(frame) else [])
    answers = hook(task, "agreement")  # how the kind's answers are compared
    if answers is not None:
        frame = answers(frame)
    rows: list[dict[str, Any]] = []
    for criterion in agreement_criteria(study):
        if criterion.column not in frame.columns:
            raise JudgmentsError(
                f"the judgments table has no column {criterion.column!r}",
                field=criterion.column,
            )
        matrix, raters, units, repeated = reliability_matrix(
            frame,
            unit="_unit",
            rater=rater,
            value=criterion.column,
            level=criterion.level,
        )
        n_units = len(units)
        n_pairable = int((~np.isnan(matrix)).sum())
        note = []
        if n_units < 2:
            note.append(
                "fewer than two units were judged by two or more raters: agreement "
                "needs units judged more than once (run each list with more than "
                "one participant)"
            )
        if repeated:
            note.append(
                f"{repeated} repeated judgment(s) of a unit by one rater:"
                " the first kept"
            )
        estimates = {
            "alpha": _library_alpha(matrix, criterion.level)
            if n_units >= 2
            else math.nan
        }
        icc_result = icc(matrix) if criterion.icc else None
        icc_names: tuple[str, str] = ("", "")
        if icc_result is not None:
            icc_names = (
                ("ICC(2,1)", "ICC(2,k)")
                if icc_result["model"] == "two_way"
                else ("ICC(1,1)", "ICC(1,k)")
            )
            estimates[icc_names[0]] = icc_result["single"]
            estimates[icc_names[1]] = icc_result["average"]
        boots: dict[str, list[float]] = {name: [] for name in estimates}
        if config.bootstrap and n_units >= 2:
            rng = np.random.default_rng(digest_seed(seed, study_id, criterion.name))
            stats = UnitStats.from_matrix(matrix, criterion.level)
            for _ in range(config.bootstrap):
                picks = rng.integers(0, n_units, n_units)
                weights = np.bincount(picks, minlength=n_units)
                boots["alpha"].append(stats.alpha(weights))
                if icc_result is None:
                    continue
                # the model of the full data, kept in every resample
                if icc_result["model"] == "two_way":
                    result = icc(matrix[:, picks], model="two_way")
                else:
                    result = stats.icc_one_way(weights)
                boots[icc_names[0]].append(result["single"])
                boots[icc_names[1]].append(result["average"])
        for name, estimate in estimates.items():
            low, high, undefined = (
                _interval(boots[name], config.confidence)
                if boots[name]
                else (math.nan, math.nan, 0)
            )
            k = (
                icc_result["k"]
                if name != "alpha" and icc_result is not None
                else (n_pairable / n_units if n_units else math.nan)
            )
            rows.append(
                {
                    "study": study_id,
                    "criterion": criterion.name,
                    "level": criterion.level,
                    "coefficient": name,
                    "estimate": estimate,
                    "ci_low": low,
                    "ci_high": high,
                    "n_units": n_units,
                    "n_raters": len(raters),
                    "n_pairable": n_pairable,
                    "raters_per_unit": k,
                    "n_boot": len(boots[name]),
                    "n_boot_undefined": undefined,
                    "note": "; ".join(note),
                }
            )
    facts = {
        "rows": int(len(judgments)),
        "rows_used": int(len(frame)),
        "dropped": dict(sorted(dropped.items())),
        "seed": seed,
    }
    return rows, facts


def system_means(
    judgments: pd.DataFrame, study: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """Raw and z-normalised means per criterion and system (analysed rows).

    The z column is ``<criterion column>_z`` (:mod:`stecflow.judgments.normalise`);
    without it, ``z_mean`` is NaN. Interval criteria only.
    """
    import pandas as pd

    frame, _ = analysed_rows(judgments)
    out = []
    for criterion in agreement_criteria(study):
        if criterion.level != "interval" or criterion.column not in frame.columns:
            continue
        raw = pd.to_numeric(frame[criterion.column].replace("", "nan"), errors="coerce")
        z_column = f"{criterion.column}_z"
        z = (
            pd.to_numeric(frame[z_column].replace("", "nan"), errors="coerce")
            if z_column in frame.columns
            else pd.Series(math.nan, index=frame.index)
        )
        for system in sorted(set(frame["system"].astype(str)) - {""}):
            mask = frame["system"].astype(str) == system
            out.append(
                {
                    "criterion": criterion.name,
                    "system": system,
                    "n": int(raw[mask].notna().sum()),
                    "mean": float(raw[mask].mean())
                    if raw[mask].notna().any()
                    else math.nan,
                    "z_n": int(z[mask].notna().sum()),
                    "z_mean": float(z[mask].mean())
                    if z[mask].notna().any()
                    else math.nan,
                }
            )
    return out


def write_agreement(
    judgments_path: str | Path,
    tsv_path: str | Path,
    json_path: str | Path,
    *,
    study: Mapping[str, Any],
) -> dict[str, Any]:
    """Compute a study's agreement and write its TSV and JSON (rule
    ``compute_agreement``).

    The JSON holds the settings (bootstrap count, confidence level, seed, the
    library versions), the rows read and dropped, the coefficients again, and
    with ``normalise: z`` the raw and z-normalised system means.
    """
    import importlib.metadata

    import pandas as pd

    from stecflow.core.io import write_json, write_tsv

    try:
        judgments = pd.read_csv(
            judgments_path, sep="\t", dtype=str, keep_default_na=False
        )
    except pd.errors.EmptyDataError:  # no header either: no judgments yet
        judgments = pd.DataFrame()
    config = AgreementSettings.from_mapping(study.get("agreement"))
    try:
        rows, facts = study_agreement(judgments, study, config)
    except JudgmentsError as error:
        if error.file is not None:
            raise
        raise JudgmentsError(
            error.message, file=str(judgments_path), field=error.field
        ) from error
    summary_means = (
        system_means(judgments, study)
        if study.get("normalise") == "z" and len(judgments)
        else []
    )
    versions = {}
    for name in ("krippendorff", "numpy"):
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:  # pragma: no cover
            versions[name] = None
    normalise = study.get("normalise")
    summary = {
        "version": AGREEMENT_VERSION,
        "study": str(study.get("id") or ""),
        "task": study.get("task"),
        "settings": {
            "bootstrap": config.bootstrap,
            "confidence": config.confidence,
            "seed": facts["seed"],
            "resampling": "units (percentile intervals)",
            "normalise": normalise,
        },
        "libraries": versions,
        "rows": facts["rows"],
        "rows_used": facts["rows_used"],
        "dropped": facts["dropped"],
        "coefficients": rows,
        "awaiting_judgments": not facts["rows"],
        "system_means": summary_means,
    }
    write_tsv(rows, AGREEMENT_COLUMNS, tsv_path)
    write_json(summary, json_path)
    logger.info(
        "agreement of study %s: %d coefficient(s) over %d row(s)",
        summary["study"],
        len(rows),
        facts["rows_used"],
    )
    return summary

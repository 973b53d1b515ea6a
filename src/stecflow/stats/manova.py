"""Multivariate analysis of variance with Bonferroni-corrected follow-ups.

ASGRE'07 (seed 003, section 4.1, Table 4) runs a MANOVA of Dice, MASI, IT and RT on
four binary system properties and one interaction, reporting F with 4 and 2201 df
and significance "after Bonferroni correction". This module fits the multivariate
linear model with statsmodels (``MANOVA.from_formula(...).mv_test()``) under
sum-to-zero coding, so that each term's hypothesis matches SPSS GLM's Type III
multivariate tests, and offers univariate follow-up ANOVAs per dependent variable
with Bonferroni-adjusted p-values. REFERENCE.md sections 20 and 21.
"""

from __future__ import annotations

import itertools
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import statsmodels.formula.api as smf
from scipy.stats import f as fdist
from statsmodels.multivariate.manova import MANOVA
from statsmodels.stats.anova import anova_lm

from stecflow.stats._common import (
    NanPolicy,
    StatsInputError,
    as_list,
    drop_missing,
    finish_frame,
    not_computable,
    ok,
)
from stecflow.stats.multitest import adjust_p

__all__ = [
    "FOLLOWUP_COLUMNS",
    "MANOVA_COLUMNS",
    "SINGULAR_TOL",
    "manova",
    "manova_followups",
]

#: Columns of :func:`manova`.
MANOVA_COLUMNS = [
    "source",
    "test",
    "value",
    "f",
    "df1",
    "df2",
    "p_val",
    "p_adj",
    "n",
    "n_missing",
    "computable",
    "reason",
]

#: Columns of :func:`manova_followups`.
FOLLOWUP_COLUMNS = [
    "dv",
    "source",
    "ss",
    "df",
    "f",
    "df_resid",
    "p_val",
    "p_adj",
    "np2",
    "n",
    "n_missing",
    "computable",
    "reason",
]

_TESTS = {
    "Wilks' lambda": "wilks",
    "Pillai's trace": "pillai",
    "Hotelling-Lawley trace": "hotelling_lawley",
    "Roy's greatest root": "roy",
}

_TERM_RE = re.compile(r"^[^:]+(:[^:]+)*$")


@dataclass
class _Design:
    frame: pd.DataFrame
    dv_cols: list[str]
    rhs: str
    terms: list[str]  # user-facing names, e.g. "trainable:incremental"
    internal: dict[str, str]  # user-facing term -> statsmodels term label
    n_missing: int
    reason: str = ""
    extra: dict[str, object] = field(default_factory=dict)


def _hotelling_lawley_f(
    trace: float, p: int, q: int, df_error: int
) -> tuple[float, float, float, float]:
    """F approximation of the Hotelling-Lawley trace used by SPSS and R.

    With s = min(p, q), m = (|p - q| - 1) / 2 and n = (v - p - 1) / 2:
    df1 = s (2m + s + 1), df2 = 2 (s n + 1), F = df2 T / (s^2 (2m + s + 1))
    (Pillai & Samson 1959; R ``stats:::HL``).
    """
    s = min(p, q)
    m = (abs(p - q) - 1) / 2
    n = (df_error - p - 1) / 2
    df1 = s * (2 * m + s + 1)
    df2 = 2 * (s * n + 1)
    f = df2 * trace / (s * s * (2 * m + s + 1))
    return f, _clean_df(df1), _clean_df(df2), float(fdist.sf(f, df1, df2))


def _clean_df(value: object) -> float:
    """Degrees of freedom without floating-point noise (42.99999999999997 -> 43)."""
    return round(float(value), 9)  # type: ignore[arg-type]


#: Smallest eigenvalue of the residual correlation matrix (1 - R^2 of the most
#: collinear DV on the others), and smallest share of a DV's variance left
#: unexplained by the model, below which the residual SSCP matrix counts as
#: singular. Both are unit-free.
SINGULAR_TOL = 1e-10


def _is_constant(values: np.ndarray) -> bool:
    """True when the spread is below 1e-12 of the magnitude (whatever the units)."""
    return bool(np.ptp(values) <= 1e-12 * np.abs(values).max())


def _standardise(
    y: np.ndarray, x: np.ndarray, dvs: Sequence[str]
) -> tuple[np.ndarray, str]:
    """Scale each DV to unit total sum of squares about its mean; judge singularity.

    Returns the standardised DVs and an empty reason, or a reason why the
    residual SSCP matrix is singular. Every test is unit-free: a DV is constant
    when its spread is below 1e-12 of its magnitude, the model fits a DV exactly
    when less than :data:`SINGULAR_TOL` of its variance is left in the
    residuals, and the DVs are collinear when the smallest eigenvalue of the
    residual correlation matrix is below :data:`SINGULAR_TOL`. Rescaling a DV
    (milliseconds to seconds) changes none of them, nor the standardised data
    beyond rounding.
    """
    centred = y - y.mean(axis=0)
    total = np.sqrt((centred**2).sum(axis=0))
    size = np.abs(y).max(axis=0)
    for j, dv in enumerate(dvs):
        if not total[j] > 1e-12 * size[j] * np.sqrt(len(y)):
            return y, (
                "the residual SSCP matrix is singular (dependent variable"
                f" {dv!r} is constant)"
            )
    # scaled, not centred: statsmodels drops the intercept hypothesis of centred
    # data (all its eigenvalues zero) and then fails
    z = y / total
    resid = z - x @ np.linalg.lstsq(x, z, rcond=None)[0]
    sscp = resid.T @ resid
    unexplained = np.diag(sscp)  # 1 - R^2 of each DV on the model
    for j, dv in enumerate(dvs):
        if unexplained[j] <= SINGULAR_TOL:
            return z, (
                "the residual SSCP matrix is singular (the model fits dependent"
                f" variable {dv!r} exactly: no residual variance)"
            )
    scale = 1 / np.sqrt(unexplained)
    corr = sscp * np.outer(scale, scale)
    if float(np.linalg.eigvalsh(corr).min()) <= SINGULAR_TOL:
        return z, (
            "the residual SSCP matrix is singular (the dependent variables are"
            " collinear: one is a linear combination of the others)"
        )
    return z, ""


def _exog(frame: pd.DataFrame, dv_col: str, rhs: str) -> np.ndarray:
    """The model matrix of ``rhs`` (with intercept) for the rows of *frame*."""
    return np.asarray(smf.ols(f"{dv_col} ~ {rhs}", data=frame).exog, dtype=float)


def _design(
    data: pd.DataFrame,
    dvs: Sequence[str],
    between: str | Sequence[str],
    terms: Sequence[str] | None,
    nan_policy: NanPolicy,
    what: str,
) -> _Design:
    dvs = as_list(dvs)
    factors = as_list(between)
    if len(dvs) < 1 or not factors:
        raise StatsInputError(
            f"{what}: give dependent variables and at least one factor"
        )
    if len(set(dvs + factors)) != len(dvs) + len(factors):
        raise StatsInputError(
            f"{what}: dependent variables and factors must be distinct"
        )
    if terms is None:
        combos = [
            c
            for r in range(1, len(factors) + 1)
            for c in itertools.combinations(factors, r)
        ]
        term_list = [":".join(c) for c in combos]
    else:
        term_list = list(terms)
        for t in term_list:
            if not _TERM_RE.match(t) or any(p not in factors for p in t.split(":")):
                raise StatsInputError(
                    f"{what}: term {t!r} must be factors of between joined by ':'"
                )
    clean, n_missing, reason = drop_missing(
        data, dvs, factors, what=what, nan_policy=nan_policy
    )
    frame = pd.DataFrame(index=clean.index)
    dv_cols = [f"_d{i}" for i in range(len(dvs))]
    for col, dv in zip(dv_cols, dvs, strict=True):
        frame[col] = clean[dv].to_numpy(dtype=float)
    code = {}
    for i, fac in enumerate(factors):
        frame[f"_f{i}"] = clean[fac].map(str).to_numpy()
        code[fac] = f"C(_f{i}, Sum)"
    internal = {t: ":".join(code[p] for p in t.split(":")) for t in term_list}
    rhs = " + ".join(internal[t] for t in term_list)
    design = _Design(frame, dv_cols, rhs, term_list, internal, n_missing, reason)
    if reason:
        return design
    if len(frame) == 0:
        design.reason = "no observations"
        return design
    for i, fac in enumerate(factors):
        if frame[f"_f{i}"].nunique() < 2:
            design.reason = f"factor {fac!r} has fewer than 2 levels with data"
            return design
    x = _exog(frame, dv_cols[0], rhs)
    rank = int(np.linalg.matrix_rank(x))
    if rank < x.shape[1]:
        design.reason = (
            "the design matrix is rank deficient (empty cells or confounded terms); "
            "drop interaction terms with the terms argument"
        )
        return design
    df_resid = len(frame) - rank
    design.extra["df_resid"] = df_resid
    if df_resid < 1:
        design.reason = "no residual degrees of freedom"
    return design


def manova(
    data: pd.DataFrame,
    dvs: Sequence[str],
    between: str | Sequence[str],
    *,
    terms: Sequence[str] | None = None,
    correction: str = "bonferroni",
    nan_policy: NanPolicy = "omit",
) -> pd.DataFrame:
    """Between-subjects MANOVA: Wilks, Pillai, Hotelling-Lawley and Roy per term.

    Parameters
    ----------
    data : pandas.DataFrame
        Long format, one row per observation, with all dependent variables as
        columns.
    dvs : sequence of str
        At least two numeric dependent variables.
    between : str or sequence of str
        Factor(s).
    terms : sequence of str, optional
        Model terms, e.g. ``["trainable", "incremental", "trainable:incremental"]``;
        default: the full factorial of *between*. The model uses sum-to-zero coding.
    correction : {"bonferroni", "none"}
        Correction of each statistic's p-values over the model's terms (the
        seed 003 practice), in ``p_adj``.
    nan_policy : {"omit", "not_computable"}
        Missing-value handling (listwise over all dependent variables).

    Returns
    -------
    pandas.DataFrame
        Four rows per term (``test`` = ``"wilks"``, ``"pillai"``,
        ``"hotelling_lawley"``, ``"roy"``): ``source``, ``test``, ``value`` (the
        statistic), ``f`` (approximate F), ``df1``, ``df2``, ``p_val``, ``p_adj``,
        ``n``, ``n_missing``, ``computable``, ``reason``. Wilks' F is Rao's
        approximation (exact for 1 or 2 dependent variables or hypothesis df).

    Raises
    ------
    StatsInputError
        For fewer than two dependent variables, missing columns or bad terms.

    Notes
    -----
    Not computable when a factor has one level, the design is rank deficient
    (e.g. an interaction with an empty cell), there are fewer residual df than
    dependent variables, or the residual SSCP matrix is singular (a constant
    dependent variable, one the model fits exactly, or collinear ones). All four
    statistics, their F approximations and df agree with SPSS GLM and R
    (``summary.manova``, ``car::Manova``). For Hotelling-Lawley statsmodels
    applies McKeon's (1974) F approximation (as SAS does); we replace it by the
    Pillai-Samson approximation that SPSS and R use.

    Units do not matter. The verdict "singular" is reached on unit-free
    quantities (each DV's spread relative to its size, the share of its variance
    left in the residuals, the eigenvalues of the residual correlation matrix,
    with tolerance :data:`SINGULAR_TOL`), and the statistics are computed on the
    DVs scaled to unit sum of squares, so times in milliseconds next to a score
    with SD 0.02 give the same result as times in seconds (to about 1e-12
    relative). R's ``summary.manova`` standardises the residual SSCP matrix the
    same way before its rank test (QR with tolerance 1e-7, a looser cut: R
    declares singular only when 1 - R^2 of a DV on the others is below about
    1e-14).

    References
    ----------
    Wilks, S. S. (1932). Certain generalizations in the analysis of variance.
    Biometrika 24:471-494.
    Rao, C. R. (1951). An asymptotic expansion of the distribution of Wilks'
    criterion. Bull. Int. Statist. Inst. 33:177-180.
    Pillai, K. C. S. (1955). Some new test criteria in multivariate analysis.
    Ann. Math. Stat. 26:117-121.
    Pillai, K. C. S. & Samson, P. (1959). On Hotelling's generalization of T^2.
    Biometrika 46:160-165.

    Examples
    --------
    REFERENCE.md section 20:

    >>> pairs = {"S1": [(1.8, .95), (2.0, .90), (1.9, 1.0), (2.2, .85)],
    ...          "S2": [(2.4, .80), (2.6, .75), (2.3, .85), (2.5, .70)],
    ...          "S3": [(2.1, .90), (2.0, .95), (2.3, .80), (2.2, .90)]}
    >>> df = pd.DataFrame([(s, rt, acc) for s, v in pairs.items() for rt, acc in v],
    ...                   columns=["system", "rt", "acc"])
    >>> res = manova(df, ["rt", "acc"], "system").set_index("test")
    >>> res.loc[["wilks", "pillai"], "value"].round(6).tolist()
    [0.260439, 0.788658]
    >>> res.loc["wilks", ["f", "df1", "df2", "p_val"]].astype(float).round(6).tolist()
    [3.838029, 4.0, 16.0, 0.022623]
    """
    dvs = as_list(dvs)
    if len(dvs) < 2:
        raise StatsInputError("manova: give at least two dependent variables")
    design = _design(data, dvs, between, terms, nan_policy, "manova")
    n = len(design.frame)
    base = {"n": n, "n_missing": design.n_missing}
    reason = design.reason
    if not reason:
        df_resid = int(design.extra["df_resid"])  # type: ignore[call-overload]
        if df_resid < len(dvs):
            reason = (
                f"fewer residual df ({df_resid}) than dependent variables ({len(dvs)})"
            )
        else:
            y = design.frame[design.dv_cols].to_numpy(dtype=float)
            x = _exog(design.frame, design.dv_cols[0], design.rhs)
            z, reason = _standardise(y, x, dvs)
    rows: list[dict[str, Any]] = []
    if reason:
        for t in design.terms:
            for test in _TESTS.values():
                rows.append(not_computable(reason, source=t, test=test, **base))
        return finish_frame(rows, MANOVA_COLUMNS)
    # the statistics are invariant to rescaling a DV: compute them on the
    # standardised DVs, so that they are also numerically the same whatever the units
    frame = design.frame.copy()
    frame[design.dv_cols] = z
    lhs = " + ".join(design.dv_cols)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = MANOVA.from_formula(f"{lhs} ~ {design.rhs}", data=frame).mv_test()
    df_resid = int(design.extra["df_resid"])  # type: ignore[call-overload]
    for t in design.terms:
        table = result.results[design.internal[t]]["stat"]
        for label, test in _TESTS.items():
            row = table.loc[label]
            value = float(row["Value"])
            f, df1, df2, p = (
                float(row["F Value"]),
                _clean_df(row["Num DF"]),
                _clean_df(row["Den DF"]),
                float(row["Pr > F"]),
            )
            if test == "hotelling_lawley":
                q = int(round(float(table.loc["Wilks' lambda", "Num DF"]))) // len(dvs)
                f, df1, df2, p = _hotelling_lawley_f(value, len(dvs), q, df_resid)
            rows.append(
                ok(
                    source=t,
                    test=test,
                    value=value,
                    f=f,
                    df1=df1,
                    df2=df2,
                    p_val=p,
                    **base,
                )
            )
    frame = finish_frame(rows, MANOVA_COLUMNS)
    for test in _TESTS.values():
        mask = frame["test"] == test
        frame.loc[mask, "p_adj"] = adjust_p(
            frame.loc[mask, "p_val"].to_numpy(float), correction
        )
    return frame


def manova_followups(
    data: pd.DataFrame,
    dvs: Sequence[str],
    between: str | Sequence[str],
    *,
    terms: Sequence[str] | None = None,
    correction: str = "bonferroni",
    nan_policy: NanPolicy = "omit",
) -> pd.DataFrame:
    """Univariate Type III ANOVAs per dependent variable, Bonferroni-corrected.

    The usual follow-up of a MANOVA (SPSS GLM "Tests of Between-Subjects
    Effects"): for each term, one F test per dependent variable on the same cases
    and model, with p-values multiplied by the number of dependent variables
    (per-test alpha = alpha / p, Bonferroni).

    Parameters
    ----------
    data, dvs, between, terms, nan_policy
        As in :func:`manova` (listwise deletion over all dependent variables, so
        the follow-ups use the MANOVA's cases).
    correction : {"bonferroni", "none"}
        Correction over the dependent variables within each term.

    Returns
    -------
    pandas.DataFrame
        One row per (dependent variable, term), ordered by *dvs* then terms:
        ``dv``, ``source``, ``ss`` (Type III), ``df``, ``f``, ``df_resid``,
        ``p_val``, ``p_adj``, ``np2``, ``n``, ``n_missing``, ``computable``,
        ``reason``.

    References
    ----------
    Dunn, O. J. (1961). Multiple comparisons among means. JASA 56:52-64.
    Tabachnick, B. G. & Fidell, L. S. (2013). Using Multivariate Statistics, 6th
    ed., ch. 7 (univariate F tests after MANOVA).

    Examples
    --------
    >>> pairs = {"S1": [(1.8, .95), (2.0, .90), (1.9, 1.0), (2.2, .85)],
    ...          "S2": [(2.4, .80), (2.6, .75), (2.3, .85), (2.5, .70)],
    ...          "S3": [(2.1, .90), (2.0, .95), (2.3, .80), (2.2, .90)]}
    >>> df = pd.DataFrame([(s, rt, acc) for s, v in pairs.items() for rt, acc in v],
    ...                   columns=["system", "rt", "acc"])
    >>> res = manova_followups(df, ["rt", "acc"], "system")
    >>> res[["dv", "source", "df", "df_resid"]].values.tolist()
    [['rt', 'system', 2, 9], ['acc', 'system', 2, 9]]
    >>> bool((res["p_adj"] == (2 * res["p_val"]).clip(upper=1)).all())
    True
    """
    dvs = as_list(dvs)
    design = _design(data, dvs, between, terms, nan_policy, "manova_followups")
    n = len(design.frame)
    rows: list[dict[str, Any]] = []
    for dv, col in zip(dvs, design.dv_cols, strict=True):
        base = {"dv": dv, "n": n, "n_missing": design.n_missing}
        reason = design.reason
        if not reason and _is_constant(design.frame[col].to_numpy(dtype=float)):
            reason = f"dv {dv!r} is constant"
        model = None
        if not reason:
            model = smf.ols(f"{col} ~ {design.rhs}", data=design.frame).fit()
            total = float(((design.frame[col] - design.frame[col].mean()) ** 2).sum())
            if model.ssr <= 1e-12 * total:
                reason = "zero residual variance"
        if reason or model is None:
            rows.extend(not_computable(reason, source=t, **base) for t in design.terms)
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = anova_lm(model, typ=3)
        ss_e, df_e = float(model.ssr), int(round(model.df_resid))
        for t in design.terms:
            row = table.loc[design.internal[t]]
            ss = float(row["sum_sq"])
            rows.append(
                ok(
                    source=t,
                    ss=ss,
                    df=int(round(float(row["df"]))),
                    f=float(row["F"]),
                    df_resid=df_e,
                    p_val=float(row["PR(>F)"]),
                    np2=ss / (ss + ss_e),
                    **base,
                )
            )
    frame = finish_frame(rows, FOLLOWUP_COLUMNS)
    for t in design.terms:
        mask = frame["source"] == t
        frame.loc[mask, "p_adj"] = adjust_p(
            frame.loc[mask, "p_val"].to_numpy(float), correction
        )
    frame["df"] = frame["df"].astype("Int64")
    frame["df_resid"] = frame["df_resid"].astype("Int64")
    return frame

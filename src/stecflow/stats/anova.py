"""Between-subjects analysis of variance (one-way and factorial, Type I/II/III SS).

TUNA-REG'09 (seed 001, sections 5.1-5.3) reports a one-way ANOVA of string-edit
distance on SYSTEM and two-way SYSTEM x DOMAIN univariate ANOVAs on Adequacy,
Fluency and identification speed, run in SPSS. SPSS's UNIANOVA uses Type III sums
of squares, which equal those of a least-squares fit under sum-to-zero (deviation)
coding: REFERENCE.md section 15. We fit ``y ~ C(a, Sum) * C(b, Sum)`` with
statsmodels and use :func:`statsmodels.stats.anova.anova_lm`; with statsmodels'
default treatment coding the Type III main-effect rows would test simple effects at
the reference level instead, which is why the coding is fixed here.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
import statsmodels.formula.api as smf
from statsmodels.stats.anova import anova_lm

from stecflow.stats._common import (
    NanPolicy,
    StatsInputError,
    as_list,
    drop_missing,
    finish_frame,
    is_constant,
    not_computable,
    ok,
)

__all__ = ["ANOVA_COLUMNS", "anova", "error_term"]

#: Columns of the frame returned by :func:`anova`, in order.
ANOVA_COLUMNS = [
    "source",
    "ss",
    "df",
    "ms",
    "f",
    "df_resid",
    "p_val",
    "np2",
    "n",
    "n_missing",
    "computable",
    "reason",
]


@dataclass(frozen=True)
class _Fit:
    """A fitted factorial model (or the reason it cannot be fitted)."""

    frame: pd.DataFrame  # columns _y, _f0, _f1, ... (levels as str)
    factors: list[str]
    n_missing: int
    reason: str
    model: object | None = None  # statsmodels RegressionResults
    ss_resid: float = float("nan")
    df_resid: int = 0


def _term_name(factors: Sequence[str], combo: Sequence[int]) -> str:
    return ":".join(factors[i] for i in combo)


def _terms(factors: Sequence[str]) -> list[tuple[int, ...]]:
    """All main effects and interactions of a full factorial, in SPSS order."""
    k = len(factors)
    return [c for r in range(1, k + 1) for c in itertools.combinations(range(k), r)]


def _fit(
    data: pd.DataFrame,
    dv: str,
    between: str | Sequence[str],
    *,
    nan_policy: NanPolicy = "omit",
    what: str = "anova",
) -> _Fit:
    """Check the design and fit the full-factorial OLS model with sum coding."""
    factors = as_list(between)
    if not factors:
        raise StatsInputError(f"{what}: give at least one between-subjects factor")
    if len(set(factors)) != len(factors) or dv in factors:
        raise StatsInputError(f"{what}: dv and factors must be distinct columns")
    clean, n_missing, reason = drop_missing(
        data, [dv], factors, what=what, nan_policy=nan_policy
    )
    frame = pd.DataFrame({"_y": clean[dv].to_numpy(dtype=float)})
    for i, fac in enumerate(factors):
        frame[f"_f{i}"] = clean[fac].map(str).to_numpy()
    if reason:
        return _Fit(frame, factors, n_missing, reason)
    if len(frame) == 0:
        return _Fit(frame, factors, n_missing, "no observations")
    for i, fac in enumerate(factors):
        if frame[f"_f{i}"].nunique() < 2:
            return _Fit(
                frame,
                factors,
                n_missing,
                f"factor {fac!r} has fewer than 2 levels with data",
            )
    cols = [f"_f{i}" for i in range(len(factors))]
    counts = frame.groupby(cols).size()
    full = pd.MultiIndex.from_product(
        [sorted(frame[c].unique()) for c in cols], names=cols
    )
    n_cells = len(full)
    if len(counts) < n_cells:
        empty = [
            " x ".join(map(str, key if isinstance(key, tuple) else (key,)))
            for key in full.difference(counts.index)
        ]
        shown = ", ".join(empty[:5]) + (", ..." if len(empty) > 5 else "")
        return _Fit(
            frame,
            factors,
            n_missing,
            f"empty cell(s): {shown}; the full-factorial model is not estimable",
        )
    df_resid = len(frame) - n_cells
    if df_resid < 1:
        return _Fit(frame, factors, n_missing, "no residual degrees of freedom")
    if is_constant(frame["_y"].to_numpy()):
        return _Fit(frame, factors, n_missing, f"dv {dv!r} is constant")
    if len(cols) == 1:
        # One factor: the cell-means model needs no design matrix (whose n x k
        # dummies took 2.8 GB and a minute for 1,000 systems x 112 items).
        model = None
        cell_means = frame.groupby(cols[0])["_y"].transform("mean")
        ss_resid = float(((frame["_y"] - cell_means) ** 2).sum())
    else:
        rhs = " * ".join(f"C({c}, Sum)" for c in cols)
        model = smf.ols(f"_y ~ {rhs}", data=frame).fit()
        ss_resid = float(model.ssr)
    ss_total = float(((frame["_y"] - frame["_y"].mean()) ** 2).sum())
    if ss_resid <= 1e-12 * ss_total:
        return _Fit(
            frame, factors, n_missing, "zero residual variance (every cell is constant)"
        )
    return _Fit(frame, factors, n_missing, "", model, ss_resid, int(df_resid))


def anova(
    data: pd.DataFrame,
    dv: str,
    between: str | Sequence[str],
    *,
    ss_type: int = 3,
    nan_policy: NanPolicy = "omit",
) -> pd.DataFrame:
    """One-way or factorial between-subjects ANOVA with partial eta squared.

    The model is the full factorial of *between* (all main effects and interactions),
    fitted by least squares under sum-to-zero coding. Type III sums of squares (the
    default) equal SPSS UNIANOVA's and R's ``car::Anova(type = 3)`` with
    ``contr.sum``; for a one-way design all three types coincide.

    Parameters
    ----------
    data : pandas.DataFrame
        Long format: one row per observation.
    dv : str
        Column with the dependent variable (numeric).
    between : str or sequence of str
        One factor (one-way ANOVA) or several (factorial ANOVA, e.g.
        ``["system", "domain"]``). Levels are compared as strings.
    ss_type : {1, 2, 3}
        Type of sums of squares. Type I is sequential in the order of *between*.
    nan_policy : {"omit", "not_computable"}
        ``"omit"`` removes rows with a missing value listwise (counted in
        ``n_missing``); ``"not_computable"`` returns not-computable rows instead.

    Returns
    -------
    pandas.DataFrame
        One row per term (main effects in the order of *between*, then interactions
        named ``"a:b"``), then a ``"Residual"`` row. Columns:

        ``source``; ``ss`` (sum of squares); ``df``; ``ms`` (mean square);
        ``f``; ``df_resid`` (error df, the second df of F); ``p_val``;
        ``np2`` (partial eta squared, SS_effect / (SS_effect + SS_error));
        ``n`` (observations used); ``n_missing`` (rows removed);
        ``computable``; ``reason``.

        The Residual row has no ``f``, ``p_val`` or ``np2`` (NaN by definition). If
        the model cannot be fitted (fewer than 2 levels, an empty cell, no error df,
        a constant dv), every term row has ``computable=False`` and a ``reason``.

    Raises
    ------
    StatsInputError
        If a column is missing, *dv* is not numeric or *ss_type* is unknown.

    See Also
    --------
    stecflow.stats.posthoc.homogeneous_subsets : post hoc test using this model's
        error term.

    Notes
    -----
    Partial eta squared follows Cohen (1973). Empty cells make the Type III
    hypotheses of a full-factorial model undefined (SPSS then switches to Type IV);
    this function reports them as not computable instead of guessing.

    References
    ----------
    Fisher, R. A. (1925). Statistical Methods for Research Workers. Oliver & Boyd.
    Searle, S. R. (1987). Linear Models for Unbalanced Data. Wiley (Type III SS).
    Cohen, J. (1973). Eta-squared and partial eta-squared in fixed factor ANOVA
    designs. Educational and Psychological Measurement 33:107-112.
    IBM SPSS Statistics, UNIANOVA command (METHOD = SSTYPE(3)).

    Examples
    --------
    The unbalanced data of REFERENCE.md section 15:

    >>> cells = {("S1", "furn"): [.80, .75, .85], ("S1", "ppl"): [.60, .65],
    ...          ("S2", "furn"): [.70, .72], ("S2", "ppl"): [.55, .50, .58],
    ...          ("S3", "furn"): [.90, .88, .86], ("S3", "ppl"): [.62, .70, .66]}
    >>> df = pd.DataFrame([(s, d, y) for (s, d), ys in cells.items() for y in ys],
    ...                   columns=["system", "domain", "y"])
    >>> res = anova(df, "y", ["system", "domain"])
    >>> res["source"].tolist()
    ['system', 'domain', 'system:domain', 'Residual']
    >>> res["ss"].round(6).tolist()
    [0.054913, 0.135201, 0.002273, 0.013717]
    >>> res.loc[0, ["f", "df", "df_resid"]].round(4).tolist()
    [20.0169, 2.0, 10.0]
    >>> round(float(anova(df, "y", ["system", "domain"], ss_type=1).loc[0, "ss"]), 4)
    0.0735
    """
    if ss_type not in (1, 2, 3):
        raise StatsInputError(f"anova: ss_type must be 1, 2 or 3, not {ss_type!r}")
    fit = _fit(data, dv, between, nan_policy=nan_policy, what="anova")
    factors = fit.factors
    terms = _terms(factors)
    n = len(fit.frame)
    base = {"n": n, "n_missing": fit.n_missing}
    if fit.reason:
        rows: list[dict[str, Any]] = [
            not_computable(fit.reason, source=_term_name(factors, c), **base)
            for c in terms
        ]
        rows.append(not_computable(fit.reason, source="Residual", **base))
        return _typed(finish_frame(rows, ANOVA_COLUMNS))
    if fit.model is None:  # one factor: every SS type is the between-groups SS
        table = _one_way_table(fit.frame, fit.ss_resid, fit.df_resid)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = anova_lm(fit.model, typ=ss_type)
    ss_col = "sum_sq"
    lookup: dict[str, pd.Series] = {}
    for label, row in table.iterrows():
        name = str(label)
        for i, fac in enumerate(factors):
            name = name.replace(f"C(_f{i}, Sum)", fac)
        lookup[name] = row
    ss_e, df_e = fit.ss_resid, fit.df_resid
    ms_e = ss_e / df_e
    rows = []
    for combo in terms:
        name = _term_name(factors, combo)
        row = lookup[name]
        ss, df = float(row[ss_col]), int(round(float(row["df"])))
        f = (ss / df) / ms_e
        rows.append(
            ok(
                source=name,
                ss=ss,
                df=df,
                ms=ss / df,
                f=f,
                df_resid=df_e,
                p_val=float(row["PR(>F)"]),
                np2=ss / (ss + ss_e),
                **base,
            )
        )
    rows.append(ok(source="Residual", ss=ss_e, df=df_e, ms=ms_e, df_resid=df_e, **base))
    return _typed(finish_frame(rows, ANOVA_COLUMNS))


def _one_way_table(frame: pd.DataFrame, ss_resid: float, df_resid: int) -> Any:
    """The factor's row of a one-way ANOVA, in the shape of ``anova_lm``'s table.

    SS = sum of n_g (mean_g - grand mean)^2 over groups, the same for types I, II
    and III with one factor; F and p from the F(k - 1, df_resid) distribution.
    """
    from scipy.stats import f as f_dist

    groups = frame.groupby("_f0")["_y"].agg(["size", "mean"])
    grand = float(frame["_y"].mean())
    ss = float((groups["size"] * (groups["mean"] - grand) ** 2).sum())
    df = len(groups) - 1
    f_value = (ss / df) / (ss_resid / df_resid)
    p_value = float(f_dist.sf(f_value, df, df_resid))
    return pd.DataFrame(
        {"sum_sq": [ss], "df": [float(df)], "PR(>F)": [p_value]},
        index=["C(_f0, Sum)"],
    )


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    for col in ("df", "df_resid"):
        frame[col] = frame[col].astype("Int64")
    frame["n"] = frame["n"].astype(int)
    frame["n_missing"] = frame["n_missing"].astype(int)
    return frame


def error_term(
    data: pd.DataFrame,
    dv: str,
    between: str | Sequence[str],
    *,
    nan_policy: NanPolicy = "omit",
) -> tuple[float, int, str]:
    """Return the error mean square and df of the full-factorial model on *between*.

    This is the MS_E and df_E that SPSS's post hoc tests use in a factorial
    UNIANOVA (REFERENCE.md section 16).

    Parameters
    ----------
    data, dv, between, nan_policy
        As in :func:`anova`.

    Returns
    -------
    tuple of (float, int, str)
        ``(ms_error, df_error, reason)``; when the model cannot be fitted,
        ``ms_error`` is NaN, ``df_error`` is 0 and ``reason`` says why
        (otherwise ``reason`` is ``""``).

    Examples
    --------
    >>> df = pd.DataFrame({"g": list("aabb"), "y": [1.0, 2.0, 3.0, 5.0]})
    >>> error_term(df, "y", "g")
    (1.25, 2, '')
    """
    fit = _fit(data, dv, between, nan_policy=nan_policy, what="error_term")
    if fit.reason:
        return float("nan"), 0, fit.reason
    return fit.ss_resid / fit.df_resid, fit.df_resid, ""

"""Between-subjects analysis of variance (one-way and factorial, Type I/II/III SS).

TUNA-REG'09 (seed 001, sections 5.1-5.3) reports a one-way ANOVA of string-edit
distance on SYSTEM and two-way SYSTEM x DOMAIN univariate ANOVAs on Adequacy,
Fluency and identification speed, run in SPSS. SPSS's UNIANOVA uses Type III sums
of squares, which equal those of a least-squares fit under sum-to-zero (deviation)
coding: REFERENCE.md section 15.

One- and two-factor designs (every design of the campaigns) are computed in closed
form from the table of cell counts and cell totals, with no design matrix, so a
SYSTEM x DOMAIN ANOVA of 1,000 systems takes well under a second and a few MB
(``benchmarks/README.md``); a two-way design may have empty cells (Types I and II;
Type III is then undefined). Designs with three or more factors are fitted with
statsmodels (``y ~ C(a, Sum) * C(b, Sum) * C(c, Sum)`` and
:func:`statsmodels.stats.anova.anova_lm`; with statsmodels' default treatment
coding the Type III main-effect rows would test simple effects at the reference
level instead, which is why the coding is fixed there) and need every cell filled.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

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
    """The cells of a factorial design (or the reason no model can be fitted).

    Without a *reason*, the full-factorial (cell-means) model is fitted: its
    residual SS is the within-cell SS and its df ``n - number of non-empty cells``,
    whether or not some cells are empty (R's ``lm`` drops the aliased columns of
    an empty cell and gets the same residuals).
    """

    frame: pd.DataFrame  # columns _y, _f0, _f1, ... (levels as str)
    factors: list[str]
    n_missing: int
    reason: str
    empty: tuple[str, ...] = ()  # empty cells, "a x b"
    ss_resid: float = float("nan")
    df_resid: int = 0


def _term_name(factors: Sequence[str], combo: Sequence[int]) -> str:
    return ":".join(factors[i] for i in combo)


def _terms(factors: Sequence[str]) -> list[tuple[int, ...]]:
    """All main effects and interactions of a full factorial, in SPSS order."""
    k = len(factors)
    return [c for r in range(1, k + 1) for c in itertools.combinations(range(k), r)]


def _shown(cells: Sequence[str]) -> str:
    return ", ".join(cells[:5]) + (", ..." if len(cells) > 5 else "")


def _fit(
    data: pd.DataFrame,
    dv: str,
    between: str | Sequence[str],
    *,
    nan_policy: NanPolicy = "omit",
    what: str = "anova",
) -> _Fit:
    """Check the design and fit the full-factorial (cell-means) model."""
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
    cell_mean = frame.groupby(cols, sort=False)["_y"].transform("mean")
    n_cells = int(frame.groupby(cols, sort=False).ngroups)
    empty: tuple[str, ...] = ()
    n_full = int(np.prod([frame[c].nunique() for c in cols]))
    if n_cells < n_full:
        counts = frame.groupby(cols).size()
        full = pd.MultiIndex.from_product(
            [sorted(frame[c].unique()) for c in cols], names=cols
        )
        empty = tuple(
            " x ".join(map(str, key if isinstance(key, tuple) else (key,)))
            for key in full.difference(counts.index)
        )
    df_resid = len(frame) - n_cells
    if df_resid < 1:
        return _Fit(frame, factors, n_missing, "no residual degrees of freedom", empty)
    if is_constant(frame["_y"].to_numpy()):
        return _Fit(frame, factors, n_missing, f"dv {dv!r} is constant", empty)
    ss_resid = float(((frame["_y"] - cell_mean) ** 2).sum())
    ss_total = float(((frame["_y"] - frame["_y"].mean()) ** 2).sum())
    if ss_resid <= 1e-12 * ss_total:
        return _Fit(
            frame,
            factors,
            n_missing,
            "zero residual variance (every cell is constant)",
            empty,
        )
    return _Fit(frame, factors, n_missing, "", empty, ss_resid, int(df_resid))


#: Why Type III sums of squares are refused when a cell is empty.
_TYPE3_EMPTY = (
    "Type III sums of squares are undefined with empty cell(s) ({cells}): the "
    "hypotheses they test then depend on the contrast coding (in R, dropping each "
    "term from lm() under contr.sum and under contr.treatment gives different sums "
    "of squares and df); use ss_type=1 or 2, which are defined"
)


def _two_way_ss(fit: _Fit, ss_type: int) -> dict[str, tuple[float, int, str]]:
    """Sums of squares of a two-way design from its cell counts and totals.

    No design matrix: everything follows from the a x b table of cell counts
    ``n_ij`` and totals (of the centred dv). With ``S`` the factor with fewer
    levels and ``L`` the other one, the additive model's SS for ``S`` adjusted
    for ``L`` is ``r' C^- r`` with the reduced normal equations
    ``C = diag(n_.s) - N' diag(1 / n_l.) N`` and ``r = T_.s - N' diag(1 / n_l.)
    T_l.`` (Searle 1987, ch. 4), whose rank gives the df (``s - 1`` when the
    design is connected). Then ``SS(A + B) = SS(L) + SS(S | L)``,
    ``SS(L | S) = SS(A + B) - SS(S)`` and the interaction SS is the cell-means
    model SS minus ``SS(A + B)`` with ``(non-empty cells - 1) - df(A + B)`` df:
    the interaction loses one df per empty cell, as in R's ``anova(lm())``.

    Type III (every cell filled) tests equal unweighted marginal means: the
    marginal means ``m_i`` of the cell means are independent with variances
    ``sigma^2 v_i``, ``v_i = sum_j (1 / n_ij) / b^2``, so its SS is the weighted
    SS of ``m_i`` about their weighted mean with weights ``1 / v_i``; the
    interaction SS is the same for all three types.

    Returns ``{term: (ss, df, reason)}`` with a non-empty reason when the term
    cannot be tested.
    """
    frame = fit.frame
    f0, f1 = fit.factors
    y = frame["_y"].to_numpy(dtype=float)
    y = y - y.mean()
    codes = []
    for col in ("_f0", "_f1"):
        code, _ = pd.factorize(frame[col], sort=True)
        codes.append(code)
    a, b = int(codes[0].max()) + 1, int(codes[1].max()) + 1
    flat = codes[0] * b + codes[1]
    n = np.bincount(flat, minlength=a * b).astype(float).reshape(a, b)
    t = np.bincount(flat, weights=y, minlength=a * b).reshape(a, b)
    filled = n > 0
    ss_cells = float(np.sum(t[filled] ** 2 / n[filled]))
    n0, n1 = n.sum(axis=1), n.sum(axis=0)
    t0, t1 = t.sum(axis=1), t.sum(axis=0)
    ss0, ss1 = float(np.sum(t0**2 / n0)), float(np.sum(t1**2 / n1))
    inter = _term_name(fit.factors, (0, 1))
    out: dict[str, tuple[float, int, str]] = {}
    if ss_type == 3:
        if fit.empty:
            why = _TYPE3_EMPTY.format(cells=_shown(fit.empty))
            return {
                f0: (np.nan, a - 1, why),
                f1: (np.nan, b - 1, why),
                inter: (np.nan, (a - 1) * (b - 1), why),
            }
        means = t / n
        for name, m, v, df in (
            (f0, means.mean(axis=1), (1 / n).sum(axis=1) / b**2, a - 1),
            (f1, means.mean(axis=0), (1 / n).sum(axis=0) / a**2, b - 1),
        ):
            w = 1 / v
            centre = float(np.sum(w * m) / np.sum(w))
            out[name] = (float(np.sum(w * (m - centre) ** 2)), df, "")
    # Adjust the factor with fewer levels for the other (a small dense system).
    small_is_1 = b <= a
    nl = n if small_is_1 else n.T  # rows: levels of L; columns: levels of S
    tl = t if small_is_1 else t.T
    n_l, n_s = nl.sum(axis=1), nl.sum(axis=0)
    t_l, t_s = tl.sum(axis=1), tl.sum(axis=0)
    c = np.diag(n_s) - nl.T @ (nl / n_l[:, None])
    r = t_s - nl.T @ (t_l / n_l)
    c1, r1 = c[:-1, :-1], r[:-1]  # C 1 = 0: drop one level (full rank if connected)
    scale = float(np.max(np.abs(c1))) if c1.size else 1.0
    rank = int(np.linalg.matrix_rank(c1, tol=1e-10 * scale)) if c1.size else 0
    sol = np.linalg.lstsq(c1, r1, rcond=1e-10)[0] if c1.size else np.zeros(0)
    ss_s_adj = float(r1 @ sol)
    ss_l, ss_s = (ss0, ss1) if small_is_1 else (ss1, ss0)
    l_levels, s_levels = (a, b) if small_is_1 else (b, a)
    ss_add = ss_l + ss_s_adj
    df_add = (l_levels - 1) + rank
    ss_l_adj = ss_add - ss_s
    df_l_adj = df_add - (s_levels - 1)
    ss_int = ss_cells - ss_add
    df_int = (int(filled.sum()) - 1) - df_add
    # SS and df of each main effect adjusted for the other one
    small, large = (f1, f0) if small_is_1 else (f0, f1)
    adj = {small: (ss_s_adj, rank), large: (ss_l_adj, df_l_adj)}
    if ss_type == 1:
        out[f0] = (ss0, a - 1, "")
        out[f1] = (*adj[f1], "")
    elif ss_type == 2:
        out[f0] = (*adj[f0], "")
        out[f1] = (*adj[f1], "")
    out[inter] = (max(ss_int, 0.0), df_int, "")
    for term, (ss, df, why) in list(out.items()):
        if not why and df < 1:
            out[term] = (np.nan, 0, _no_df_reason(term, fit))
        elif not why:
            out[term] = (max(ss, 0.0), df, "")
    return out


def _no_df_reason(term: str, fit: _Fit) -> str:
    cells = f" with empty cell(s) {_shown(fit.empty)}" if fit.empty else ""
    return (
        f"no degrees of freedom for {term}{cells}: the observed cells confound it "
        "with the terms it is adjusted for, so nothing of it is left to test"
    )


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
        the model cannot be fitted (fewer than 2 levels, no error df, a constant
        dv), every row has ``computable=False`` and a ``reason``. A term that is
        undefined although the model is fitted (Type III with an empty cell; a
        term left with no df) has ``computable=False`` and its own ``reason``.

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
    Partial eta squared follows Cohen (1973).

    **Empty cells** (two factors). The full-factorial model's error term is the
    within-cell one, with ``n - (number of non-empty cells)`` df, as R's ``lm``
    (which drops the aliased columns). Type I (sequential in the order of
    *between*) equals R's ``anova(lm(y ~ a * b))`` and Type II equals
    ``car::Anova(type = 2)``; the interaction loses one df per empty cell (when
    the observed cells connect every level). A term with no df left (e.g. the
    interaction of a 2 x 2 design with an empty cell) is reported not computable.
    Type III is refused: with an empty cell its hypotheses depend on the contrast
    coding (in R, ``drop1`` on ``lm`` under ``contr.sum`` and under
    ``contr.treatment`` give different SS and df; ``car::Anova(type = 3)`` refuses
    unless told ``singular.ok = TRUE``), and SPSS switches to Type IV. Designs with
    three or more factors and an empty cell are not computed.

    The two-way sums of squares come from the reduced normal equations of the
    additive model (Searle 1987, ch. 4) and, for Type III, from the weighted
    sums of squares of the unweighted marginal means; they equal R's to about
    1e-13 relative on the reference data (``tests/r/make_reference*.R``).

    References
    ----------
    Fisher, R. A. (1925). Statistical Methods for Research Workers. Oliver & Boyd.
    Searle, S. R. (1987). Linear Models for Unbalanced Data. Wiley (Type I, II
    and III SS; empty cells).
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
    reason = fit.reason
    if not reason and fit.empty and len(factors) > 2:
        reason = (
            f"empty cell(s): {_shown(fit.empty)}; sums of squares with empty cells "
            "are computed for one- and two-factor designs only"
        )
    if reason:
        rows: list[dict[str, Any]] = [
            not_computable(reason, source=_term_name(factors, c), **base) for c in terms
        ]
        rows.append(not_computable(reason, source="Residual", **base))
        return _typed(finish_frame(rows, ANOVA_COLUMNS))
    if len(factors) == 1:  # every SS type is the between-groups SS
        table = _one_way_ss(fit)
    elif len(factors) == 2:
        table = _two_way_ss(fit, ss_type)
    else:
        table = _statsmodels_ss(fit, ss_type)
    ss_e, df_e = fit.ss_resid, fit.df_resid
    ms_e = ss_e / df_e
    rows = []
    for combo in terms:
        name = _term_name(factors, combo)
        ss, df, why = table[name]
        if why:
            rows.append(not_computable(why, source=name, df_resid=df_e, **base))
            continue
        f = (ss / df) / ms_e
        rows.append(
            ok(
                source=name,
                ss=ss,
                df=df,
                ms=ss / df,
                f=f,
                df_resid=df_e,
                p_val=_f_sf(f, df, df_e),
                np2=ss / (ss + ss_e),
                **base,
            )
        )
    rows.append(ok(source="Residual", ss=ss_e, df=df_e, ms=ms_e, df_resid=df_e, **base))
    return _typed(finish_frame(rows, ANOVA_COLUMNS))


def _f_sf(f: float, df1: int, df2: int) -> float:
    """P(F > f): ``scipy.stats.f.sf``, from the function it calls, ``fdtrc``.

    ``scipy.special`` loads in a fifth of the time ``scipy.stats`` takes (about
    1.1 s less in a job that needs nothing else of it); below the support (a sum
    of squares rounded under 0) the answer is ``f.sf``'s, 1, and NaN without
    degrees of freedom, as ``f.sf`` gives.
    """
    from scipy.special import fdtrc

    if f <= 0 and df1 > 0 and df2 > 0:
        return 1.0
    return float(fdtrc(df1, df2, f))


def _one_way_ss(fit: _Fit) -> dict[str, tuple[float, int, str]]:
    """SS = sum of n_g (mean_g - grand mean)^2: the same for types I, II and III."""
    groups = fit.frame.groupby("_f0")["_y"].agg(["size", "mean"])
    grand = float(fit.frame["_y"].mean())
    ss = float((groups["size"] * (groups["mean"] - grand) ** 2).sum())
    return {fit.factors[0]: (ss, len(groups) - 1, "")}


def _statsmodels_ss(fit: _Fit, ss_type: int) -> dict[str, tuple[float, int, str]]:
    """Three or more factors (every cell filled): statsmodels with sum coding."""
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    cols = [f"_f{i}" for i in range(len(fit.factors))]
    rhs = " * ".join(f"C({c}, Sum)" for c in cols)
    model = smf.ols(f"_y ~ {rhs}", data=fit.frame).fit()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = anova_lm(model, typ=ss_type)
    out: dict[str, tuple[float, int, str]] = {}
    for label, row in table.iterrows():
        name = str(label)
        for i, fac in enumerate(fit.factors):
            name = name.replace(f"C(_f{i}, Sum)", fac)
        out[name] = (float(row["sum_sq"]), int(round(float(row["df"]))), "")
    return out


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
    UNIANOVA (REFERENCE.md section 16): the pooled within-cell variance, with
    ``n - (number of non-empty cells)`` df. Empty cells are allowed, as in R
    (``deviance(fit) / df.residual(fit)`` of ``lm(y ~ a * b)``).

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

"""Linear mixed-effects model with crossed random effects for subjects and items.

The TUNA papers analyse ratings and identification times with by-trial ANOVAs that
treat subjects and items as fixed or ignore them. A now-standard alternative
(Baayen, Davidson & Bates 2008) is a mixed model with crossed random intercepts for
subjects and items, e.g. on log identification time (Ratcliff 1993 lists the log
transform among the remedies for skewed reaction times):

    y = system effect + u_subject + w_item + e,
    u ~ N(0, s2_subject), w ~ N(0, s2_item), e ~ N(0, s2)

:func:`mixed_model` fits it as ``lme4::lmer(y ~ system + (1 | subject) + (1 | item))``
does and tests the fixed effects as ``summary(lmerTest::lmer(...))`` does.

Method
------
The fit is lme4's (Bates, Maechler, Bolker & Walker 2015, section 3), reimplemented
with numpy/scipy: the REML criterion (or the ML deviance), profiled over the fixed
effects and the residual variance, is minimised over the relative standard
deviations ``theta = (sd_subject / sigma, sd_item / sigma) >= 0``; every quantity
then follows in closed form at the optimum:

* fixed effects: the generalised least-squares estimates;
* their covariance: ``sigma^2 (R_X' R_X)^-1 = (X' V^-1 X)^-1`` at the estimated
  variance components (lme4's ``vcov``), hence the standard errors;
* variance components ``(sigma theta_k)^2`` and ``sigma^2`` (lme4's ``VarCorr``);
* ``loglik`` (lme4's ``logLik``: the REML log-likelihood of a REML fit) and
  ``reml_crit`` (lme4's ``REMLcrit``: ``-2`` times the REML log-likelihood, at the
  fitted ``theta`` also for an ML fit);
* Satterthwaite degrees of freedom for the t test of each fixed effect, from the
  Hessian of the deviance in the variance parameters and the gradient of the
  coefficient's variance (lmerTest; Kuznetsova, Brockhoff & Christensen 2017). We
  use exact formulas in the variance components where lmerTest differentiates
  numerically in ``(theta, sigma)``; at the optimum both give the same df.

Differences from lme4/lmerTest are those of the optimiser: lme4 stops BOBYQA at
``xtol_abs = ftol_abs = 1e-8``, we minimise with L-BFGS-B on the analytic gradient
and polish with Newton steps, so our optimum is the tighter one (its REML criterion
is never higher). On the test designs (tests/unit/test_stats_mixed_lme4.py) the
results agree with ``lmer`` run with a tight optimiser tolerance to 2e-10 relative
(fixed effects), 1e-7 (SEs, variance components) and 3e-7 (Satterthwaite df, where
lmerTest's numerical Hessian limits the agreement); with a default ``lmer`` fit to
the precision of that fit's own stopping rule: 1e-6 (fixed effects), 4e-6 (SEs),
1.1e-5 (variance components) and 2e-5 (df). The log-likelihood and REML criterion
agree to 1e-12 in both cases. The numerical details are in ``_fit``.

Earlier versions used statsmodels' ``MixedLM``. Its fixed-effect standard errors
come from the inverse Hessian of the joint log-likelihood in the fixed effects and
the variance parameters, not from ``(X' V^-1 X)^-1`` at the REML estimates, and
differ from lme4's on unbalanced data (by up to 0.23% on ``mixed_sparse.csv``);
it has no Satterthwaite df.

Edge cases
----------
* A singular fit (a variance component estimated at 0, lme4's ``isSingular`` with
  its tolerance 1e-4 on ``theta``) is *flagged*: ``singular`` is True on every row
  and ``note`` names the component. The numbers are still lme4's and lmerTest's
  (they equal those of the model without that random intercept, and its df drop
  out of the Satterthwaite computation, as in lmerTest at ``theta = 0``).
* Zero residual variance (the response is an exact sum of system, subject and item
  effects) leaves the REML criterion without a minimum: every row is not computable
  with that reason, and no estimate is shown.
* A fit that does not converge, or whose Hessian in the variance parameters is not
  positive definite (no Satterthwaite df), is marked not computable with the reason;
  its estimates and SEs are still shown, and what cannot be computed (df, p,
  intervals) is NaN only on these not-computable rows.

Limitations
-----------
* Only random intercepts; no random slopes (e.g. by-subject system effects).
* Dense ``q x q`` linear algebra (``q`` = subjects + items): exact and fast for a
  shared-task study (a few hundred subjects and items, any number of trials);
  lme4's sparse Cholesky scales further.
* No Kenward-Roger df (pbkrtest); with few subjects or items Satterthwaite and
  Kenward-Roger can differ.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import linalg, optimize, stats

from stecflow.stats._common import (
    NanPolicy,
    StatsInputError,
    drop_missing,
    fill_column,
    finish_frame,
    is_constant,
    level_label,
    not_computable,
    ok,
)

__all__ = ["MIXED_COLUMNS", "mixed_model"]

#: Columns of :func:`mixed_model`.
MIXED_COLUMNS = [
    "effect",
    "term",
    "estimate",
    "se",
    "df",
    "t",
    "p_val",
    "ci_low",
    "ci_high",
    "response_estimate",
    "response_ci_low",
    "response_ci_high",
    "transform",
    "method",
    "loglik",
    "reml_crit",
    "singular",
    "converged",
    "n",
    "n_subjects",
    "n_items",
    "n_missing",
    "note",
    "computable",
    "reason",
]

#: lme4::isSingular's default tolerance on theta.
SINGULAR_TOL = 1e-4

_COMPONENTS = ("subject", "item")


def mixed_model(
    data: pd.DataFrame,
    dv: str,
    fixed: str = "system",
    subject: str = "subject",
    item: str = "item",
    *,
    transform: Literal["none", "log"] = "none",
    coding: Literal["means", "treatment"] = "means",
    reference: str | None = None,
    reml: bool = True,
    confidence: float = 0.95,
    nan_policy: NanPolicy = "omit",
) -> pd.DataFrame:
    """Fit ``dv ~ fixed + (1 | subject) + (1 | item)`` as lme4 and test as lmerTest.

    Parameters
    ----------
    data : pandas.DataFrame
        Long format, one row per trial.
    dv : str
        Numeric response (a rating, or a time for ``transform="log"``).
    fixed : str
        Fixed-effect factor (e.g. ``"system"``).
    subject, item : str
        Crossed random-intercept factors.
    transform : {"none", "log"}
        Fit the model to ``log(dv)`` (all values must be positive).
    coding : {"means", "treatment"}
        ``"means"``: one fixed effect per level, the model-based mean of that level
        (on the transformed scale; R's ``y ~ 0 + system``). ``"treatment"``: an
        intercept (the reference level's mean) and each other level's difference
        from it (R's ``y ~ system``).
    reference : str, optional
        Reference level for ``coding="treatment"`` (default: first sorted level).
    reml : bool
        REML (default, as lme4) or maximum likelihood (``REML = FALSE``).
    confidence : float
        Level of the intervals of the fixed effects (t with Satterthwaite df, as
        ``lmerTest::contest(..., confint = TRUE)``).
    nan_policy : {"omit", "not_computable"}
        Missing-value handling.

    Returns
    -------
    pandas.DataFrame
        Fixed-effect rows (``effect="fixed"``; ``term`` is the level, or
        ``"(Intercept)"`` for the treatment intercept) then variance rows
        (``effect="random"``, ``term`` in ``"subject"``, ``"item"``,
        ``"residual"``, ``estimate`` = variance on the transformed scale, lme4's
        ``VarCorr``; their ``se``, ``df``, ``t``, ``p_val`` and intervals are NaN,
        as variances are not tested by t tests). Columns:

        ``estimate``, ``se``
            Fixed effect and its standard error from ``(X' V^-1 X)^-1``.
        ``df``, ``t``, ``p_val``
            Satterthwaite df, ``t = estimate / se`` and the two-sided p-value
            (``summary(lmerTest::lmer(...))``).
        ``ci_low``, ``ci_high``
            ``estimate -/+ t_{df, 1 - alpha/2} * se``.
        ``response_estimate``, ``response_ci_low``, ``response_ci_high``
            Fixed effects back-transformed: ``exp`` for log (geometric means or
            ratios); identical to the estimate otherwise.
        ``method``, ``loglik``, ``reml_crit``
            ``"REML"`` or ``"ML"``, lme4's ``logLik`` and ``REMLcrit`` (one value
            per model, repeated on each row).
        ``singular``, ``note``
            lme4's ``isSingular`` and, if True, which component is at 0.
        ``transform``, ``converged``, ``n``, ``n_subjects``, ``n_items``,
        ``n_missing``, ``computable``, ``reason``.

    Raises
    ------
    StatsInputError
        For missing columns, an unknown option, or an unknown *reference*.

    See Also
    --------
    stecflow.stats.anova.anova : the by-trial ANOVA of the seed papers.

    Notes
    -----
    Results equal lme4 1.1 and lmerTest 3.1 to about 1e-6 relative (module
    docstring: method and where it differs).

    References
    ----------
    Baayen, R. H., Davidson, D. J. & Bates, D. M. (2008). Mixed-effects modeling
    with crossed random effects for subjects and items. Journal of Memory and
    Language 59(4):390-412.
    Bates, D., Maechler, M., Bolker, B. & Walker, S. (2015). Fitting linear
    mixed-effects models using lme4. Journal of Statistical Software 67(1).
    Kuznetsova, A., Brockhoff, P. B. & Christensen, R. H. B. (2017). lmerTest
    package: tests in linear mixed effects models. Journal of Statistical
    Software 82(13).
    Satterthwaite, F. E. (1946). An approximate distribution of estimates of
    variance components. Biometrics Bulletin 2(6):110-114.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> rows = [(s, i, "AB"[(s + i) % 2]) for s in range(6) for i in range(8)]
    >>> df = pd.DataFrame(rows, columns=["subject", "item", "system"])
    >>> df["rating"] = (50 + 10 * (df["system"] == "B") + 2 * df["subject"]
    ...                 + rng.normal(0, 3, 8)[df["item"]] + rng.normal(0, 2, len(df)))
    >>> res = mixed_model(df, "rating", coding="treatment")
    >>> res["term"].tolist()
    ['(Intercept)', 'B', 'subject', 'item', 'residual']
    >>> res[["estimate", "se", "df"]].head(2).round(3).values.tolist()
    [[56.178, 2.032, 6.528], [9.967, 0.494, 34.0]]

    The system contrast is balanced over subjects and items, so its df are those of
    the residual, 48 - 1 - 5 - 7 - 1 = 34, as in the classical ANOVA.
    >>> bool(res["computable"].all()), bool(res["singular"].any())
    (True, False)
    """
    if transform not in ("none", "log"):
        raise StatsInputError(
            f"mixed_model: transform must be none or log, not {transform!r}"
        )
    if coding not in ("means", "treatment"):
        raise StatsInputError(
            f"mixed_model: coding must be means or treatment, not {coding!r}"
        )
    if not 0 < confidence < 1:
        raise StatsInputError(
            f"mixed_model: confidence must lie in (0, 1), not {confidence}"
        )
    roles = [fixed, subject, item]
    if len(set(roles + [dv])) != 4:
        raise StatsInputError(
            "mixed_model: dv, fixed, subject and item must be 4 different columns"
        )
    clean, n_missing, reason = drop_missing(
        data, [dv], roles, what="mixed_model", nan_policy=nan_policy
    )
    frame = pd.DataFrame(
        {
            "_y": clean[dv].to_numpy(dtype=float),
            "_f": clean[fixed].map(level_label).to_numpy(),
            "_s": clean[subject].map(level_label).to_numpy(),
            "_i": clean[item].map(level_label).to_numpy(),
        }
    )
    levels = sorted(frame["_f"].unique())
    if coding == "treatment":
        ref = (
            level_label(reference)
            if reference is not None
            else (levels[0] if levels else "")
        )
        if levels and ref not in levels:
            raise StatsInputError(
                f"mixed_model: reference level {ref!r} not in {fixed!r}"
            )
        levels = [ref] + [lv for lv in levels if lv != ref]
    base: dict[str, Any] = {
        "transform": transform,
        "method": "REML" if reml else "ML",
        "n": len(frame),
        "n_subjects": int(frame["_s"].nunique()),
        "n_items": int(frame["_i"].nunique()),
        "n_missing": n_missing,
    }
    fixed_terms = levels if coding == "means" else ["(Intercept)", *levels[1:]]
    if not reason:
        reason = _precheck(frame, levels, transform, dv)
    if not reason:
        y = frame["_y"].to_numpy()
        if transform == "log":
            y = np.log(y)
        x = (frame["_f"].to_numpy()[:, None] == np.asarray(levels)[None, :]).astype(
            float
        )
        if coding == "treatment":
            x[:, 0] = 1.0
        codes = [
            pd.factorize(frame[col], sort=True)[0].astype(np.intp)
            for col in ("_s", "_i")
        ]
        reason = _zero_residual(y, x, codes, dv)
    if reason:
        return _not_computable_frame(reason, fixed_terms, base)
    try:
        crossed = _CrossedData.build(y, x, codes)
        fitted = _fit(crossed, reml)
    except (np.linalg.LinAlgError, ValueError, FloatingPointError) as exc:
        return _not_computable_frame(
            f"the model could not be fitted: {exc}", fixed_terms, base
        )
    if not (np.isfinite(fitted.sigma2) and fitted.sigma2 > 0):
        return _not_computable_frame(
            "zero residual variance at the optimum: no REML estimate", fixed_terms, base
        )
    return _result_frame(fitted, fixed_terms, base, transform, confidence)


def _not_computable_frame(
    reason: str, fixed_terms: list[str], base: dict[str, Any]
) -> pd.DataFrame:
    rows: list[dict[str, Any]] = [
        not_computable(reason, effect="fixed", term=t, **base) for t in fixed_terms
    ]
    rows += [
        not_computable(reason, effect="random", term=t, **base)
        for t in (*_COMPONENTS, "residual")
    ]
    return _typed(finish_frame(rows, MIXED_COLUMNS))


def _result_frame(
    fitted: _Fit,
    fixed_terms: list[str],
    base: dict[str, Any],
    transform: str,
    confidence: float,
) -> pd.DataFrame:
    zero = [name for name, th in zip(_COMPONENTS, fitted.theta, strict=True) if th == 0]
    small = [
        name
        for name, th in zip(_COMPONENTS, fitted.theta, strict=True)
        if 0 < th < SINGULAR_TOL
    ]
    note = ""
    if fitted.singular:
        parts = [f"the {name} variance is estimated at 0" for name in zero]
        parts += [
            f"the {name} variance is near 0 (theta < {SINGULAR_TOL:g})"
            for name in small
        ]
        note = (
            "singular fit (lme4's isSingular): "
            + " and ".join(parts)
            + "; the fixed effects are those of the model without "
            + ("these random intercepts" if len(parts) > 1 else "that random intercept")
        )
    why = ""
    if not fitted.converged:
        why = f"the optimiser did not converge ({fitted.message or 'no optimum found'})"
    elif not fitted.hessian_ok:
        why = (
            "no Satterthwaite df: the Hessian of the "
            + ("REML criterion" if base["method"] == "REML" else "deviance")
            + " in the variance parameters is not positive definite"
        )
    status = (lambda **f: not_computable(why, **f)) if why else ok
    model = {
        **base,
        "loglik": -fitted.criterion / 2,
        "reml_crit": fitted.reml_crit,
        "singular": fitted.singular,
        "converged": fitted.converged,
        "note": note,
    }
    back = np.exp if transform == "log" else (lambda v: v)
    rows: list[dict[str, Any]] = []
    ses = np.sqrt(np.diag(fitted.vcov))
    for j, term in enumerate(fixed_terms):
        est, se = float(fitted.beta[j]), float(ses[j])
        row: dict[str, Any] = {
            "estimate": est,
            "se": se,
            "t": est / se,
            "response_estimate": float(back(est)),
        }
        df = float(fitted.df[j]) if len(fitted.df) else float("nan")
        if np.isfinite(df) and df > 0:
            crit = float(stats.t.ppf(1 - (1 - confidence) / 2, df))
            low, high = est - crit * se, est + crit * se
            row |= {
                "df": df,
                "p_val": float(2 * stats.t.sf(abs(est / se), df)),
                "ci_low": low,
                "ci_high": high,
                "response_ci_low": float(back(low)),
                "response_ci_high": float(back(high)),
            }
            rows.append(status(effect="fixed", term=term, **row, **model))
        else:
            rows.append(
                not_computable(
                    why or f"no Satterthwaite df for {term!r}",
                    effect="fixed",
                    term=term,
                    **row,
                    **model,
                )
            )
    variances = [*(fitted.sigma2 * fitted.theta**2), fitted.sigma2]
    for term, value in zip((*_COMPONENTS, "residual"), variances, strict=True):
        rows.append(status(effect="random", term=term, estimate=float(value), **model))
    return _typed(finish_frame(rows, MIXED_COLUMNS))


def _precheck(frame: pd.DataFrame, levels: list[str], transform: str, dv: str) -> str:
    if len(frame) == 0:
        return "no observations"
    if len(levels) < 2:
        return "fewer than 2 levels of the fixed factor with data"
    for col, name in (("_s", "subjects"), ("_i", "items")):
        if frame[col].nunique() < 2:
            return f"fewer than 2 {name}: a variance component needs at least 2"
    pairs = frame[["_s", "_i"]].drop_duplicates()
    if pairs["_s"].is_unique and pairs["_i"].is_unique:
        return (
            "subjects and items form the same grouping (each subject with one item "
            "and each item with one subject): their variances cannot be separated"
        )
    if transform == "log" and (frame["_y"] <= 0).any():
        k = int((frame["_y"] <= 0).sum())
        return f"log transform needs positive values; {k} value(s) of {dv!r} are <= 0"
    if is_constant(frame["_y"].to_numpy()):
        return f"dv {dv!r} is constant"
    n_params = len(levels) + 3
    if len(frame) <= n_params:
        return f"too few observations ({len(frame)}) for {n_params} parameters"
    return ""


def _zero_residual(
    y: np.ndarray, x: np.ndarray, codes: list[np.ndarray], dv: str
) -> str:
    """Reason if *y* is an exact sum of fixed, subject and item effects, else ``""``.

    Then the residual sum of squares of the fixed-effects model with all three
    factors is 0 and the REML criterion decreases without bound as the residual
    variance goes to 0: there is no estimate.
    """
    full = np.hstack([x, *(np.eye(int(c.max()) + 1)[c] for c in codes)])
    yc = y - y.mean()
    coef = linalg.lstsq(full, yc, lapack_driver="gelsy")[0]  # QR with pivoting
    rss = float(np.sum((yc - full @ coef) ** 2))
    if rss <= 1e-20 * float(yc @ yc):
        return (
            f"zero residual variance: {dv!r} is an exact sum of fixed, subject and "
            "item effects, so the mixed model has no REML estimate"
        )
    return ""


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    fill_column(frame, "converged", False, bool)
    fill_column(frame, "singular", False, bool)
    fill_column(frame, "note", "", str)
    for col in ("n", "n_subjects", "n_items", "n_missing"):
        frame[col] = frame[col].astype(int)
    return frame


# ---------------------------------------------------------------- the fit
@dataclass
class _CrossedData:
    """Cross-products of a crossed random-intercept model."""

    n: int
    sizes: tuple[int, ...]
    ztz: np.ndarray
    ztx: np.ndarray
    zty: np.ndarray
    xtx: np.ndarray
    xty: np.ndarray
    yty: float
    #: Vector s with X s = 1; the fit centres y and adds mean(y) * s to beta.
    shift: np.ndarray
    y_mean: float

    @property
    def p(self) -> int:
        return int(self.xtx.shape[0])

    @classmethod
    def build(
        cls, y: np.ndarray, x: np.ndarray, codes: list[np.ndarray]
    ) -> _CrossedData:
        """Cross-products from the response, fixed design and factor codes."""
        from scipy import sparse

        n = len(y)
        sizes = tuple(int(c.max()) + 1 for c in codes)
        offsets = np.cumsum((0, *sizes[:-1]))
        rows = np.tile(np.arange(n), len(codes))
        cols = np.concatenate([c + o for c, o in zip(codes, offsets, strict=True)])
        z = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, sum(sizes)))
        shift = linalg.lstsq(x, np.ones(n), lapack_driver="gelsy")[0]
        y_mean = float(np.mean(y))
        yc = y - y_mean
        ztz = (z.T @ z).toarray()
        return cls(
            n=n,
            sizes=sizes,
            ztz=ztz,
            ztx=np.asarray(z.T @ x),
            zty=np.asarray(z.T @ yc).ravel(),
            xtx=x.T @ x,
            xty=x.T @ yc,
            yty=float(yc @ yc),
            shift=shift,
            y_mean=y_mean,
        )


@dataclass
class _Solution:
    """The penalised least-squares solution at one ``theta``."""

    theta: np.ndarray
    lam: np.ndarray
    chol_l: np.ndarray
    l_inv: np.ndarray
    rzx: np.ndarray
    cu: np.ndarray
    xtwx: np.ndarray
    chol_rx: np.ndarray
    beta_c: np.ndarray
    r2: float
    ld_l2: float
    ld_rx2: float

    def criterion(self, n: int, reml: bool) -> float:
        """lme4's profiled REML criterion or ML deviance at this theta."""
        p = len(self.beta_c)
        dof = n - p if reml else n
        crit = self.ld_l2 + dof * (1 + np.log(2 * np.pi * self.r2 / dof))
        return float(crit + self.ld_rx2) if reml else float(crit)


def _tri_inv(lower: np.ndarray) -> np.ndarray:
    inv, info = linalg.lapack.dtrtri(lower, lower=1)
    if info != 0:
        raise np.linalg.LinAlgError("singular Cholesky factor")
    return np.asarray(inv)


def _solve(data: _CrossedData, theta: np.ndarray) -> _Solution:
    """Solve the penalised least-squares problem at *theta* (lme4's PLS step)."""
    lam = np.repeat(np.asarray(theta, dtype=float), data.sizes)
    m = lam[:, None] * data.ztz * lam[None, :]
    m[np.diag_indices_from(m)] += 1.0
    chol_l = linalg.cholesky(m, lower=True)
    l_inv = _tri_inv(chol_l)
    rzx = l_inv @ (lam[:, None] * data.ztx)
    cu = l_inv @ (lam * data.zty)
    xtwx = data.xtx - rzx.T @ rzx
    chol_rx = linalg.cholesky(xtwx, lower=True)
    xtwy = data.xty - rzx.T @ cu
    cb = linalg.solve_triangular(chol_rx, xtwy, lower=True)
    beta_c = linalg.solve_triangular(chol_rx.T, cb, lower=False)
    r2 = float(data.yty - cu @ cu - cb @ cb)
    return _Solution(
        theta=np.asarray(theta, dtype=float),
        lam=lam,
        chol_l=chol_l,
        l_inv=l_inv,
        rzx=rzx,
        cu=cu,
        xtwx=xtwx,
        chol_rx=chol_rx,
        beta_c=beta_c,
        r2=max(r2, 0.0),
        ld_l2=float(2 * np.sum(np.log(np.diag(chol_l)))),
        ld_rx2=float(2 * np.sum(np.log(np.diag(chol_rx)))),
    )


@dataclass
class _Products:
    """``Z'WZ``, ``Z'WX``, ``Z'QZ``, ``Z'Qy``, ``(X'WX)^-1``.

    ``W = sigma^2 V^-1`` and ``Q = sigma^2 P``.
    """

    ztwz: np.ndarray
    ztwx: np.ndarray
    ztqz: np.ndarray
    ztqy: np.ndarray
    xtwx_inv: np.ndarray


def _products(data: _CrossedData, sol: _Solution) -> _Products:
    """Quadratic forms in ``V^-1`` and ``P`` needed by gradients and Hessians."""
    b = sol.l_inv @ (sol.lam[:, None] * data.ztz)
    ztwz = data.ztz - b.T @ b
    ztwx = data.ztx - b.T @ sol.rzx
    ztwy = data.zty - b.T @ sol.cu
    xtwx_inv = linalg.cho_solve((sol.chol_rx, True), np.eye(data.p))
    ztqz = ztwz - ztwx @ xtwx_inv @ ztwx.T
    ztqy = ztwy - ztwx @ sol.beta_c
    return _Products(ztwz, ztwx, ztqz, ztqy, xtwx_inv)


def _blocks(sizes: tuple[int, ...]) -> list[slice]:
    edges = np.cumsum((0, *sizes))
    return [slice(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:], strict=True)]


def _sigma2(data: _CrossedData, sol: _Solution, reml: bool) -> float:
    return sol.r2 / (data.n - data.p if reml else data.n)


def _gradient(data: _CrossedData, sol: _Solution, reml: bool) -> np.ndarray:
    """Gradient of the profiled criterion in theta (envelope theorem over sigma)."""
    pr = _products(data, sol)
    sigma2 = _sigma2(data, sol, reml)
    trace_m = pr.ztqz if reml else pr.ztwz
    grad = np.empty(len(data.sizes))
    for k, blk in enumerate(_blocks(data.sizes)):
        tr = float(np.trace(trace_m[blk, blk]))
        quad = float(pr.ztqy[blk] @ pr.ztqy[blk]) / sigma2
        grad[k] = 2 * sol.theta[k] * (tr - quad)
    return grad


@dataclass
class _Fit:
    """A fitted model (fixed effects on the original scale of y)."""

    theta: np.ndarray
    sol: _Solution
    sigma2: float
    beta: np.ndarray
    vcov: np.ndarray
    reml_crit: float
    deviance: float
    criterion: float
    converged: bool
    singular: bool
    message: str = ""
    df: np.ndarray = field(default_factory=lambda: np.array([]))
    hessian_ok: bool = True


def _minimise(
    data: _CrossedData, reml: bool, start: np.ndarray, free: np.ndarray
) -> tuple[np.ndarray, bool, str]:
    """Minimise the profiled criterion over the components where *free* is True."""
    theta = start.copy()
    theta[~free] = 0.0
    if not free.any():
        return theta, True, ""

    def full(t: np.ndarray) -> np.ndarray:
        out = np.zeros(len(data.sizes))
        out[free] = t
        return out

    def fun(t: np.ndarray) -> tuple[float, np.ndarray]:
        sol = _solve(data, full(t))
        return sol.criterion(data.n, reml), _gradient(data, sol, reml)[free]

    res = optimize.minimize(
        fun,
        theta[free],
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, None)] * int(free.sum()),
        options={"ftol": 1e-15, "gtol": 1e-11, "maxiter": 1000},
    )
    t = np.asarray(res.x, dtype=float)
    # Newton polish on the interior components (finite-difference Hessian of the
    # analytic gradient): L-BFGS-B stops at ~1e-8 in theta on flat criteria.
    value, g = fun(t)
    for _ in range(20):
        inner = t > SINGULAR_TOL
        if not inner.any():
            break
        idx = np.flatnonzero(inner)
        hess = np.empty((len(idx), len(idx)))
        for a, i in enumerate(idx):
            h = 1e-5 * max(1.0, t[i])
            up, down = t.copy(), t.copy()
            up[i] += h
            down[i] -= h
            hess[:, a] = (fun(up)[1][idx] - fun(down)[1][idx]) / (2 * h)
        hess = (hess + hess.T) / 2
        try:
            step = np.linalg.solve(hess, g[idx])
        except np.linalg.LinAlgError:
            break
        if not np.all(np.isfinite(step)) or np.any(np.linalg.eigvalsh(hess) <= 0):
            break
        cand = t.copy()
        cand[idx] = np.maximum(t[idx] - step, 0.0)
        cand_value, cand_g = fun(cand)
        if cand_value > value + 1e-12 * abs(value):
            break
        t, value, g = cand, cand_value, cand_g
        if np.max(np.abs(step)) < 1e-12 * max(1.0, float(np.max(t))):
            break
    grad = g
    # projected gradient: zero where interior, non-negative where at the bound
    proj = np.where(t > 0, grad, np.minimum(grad, 0.0))
    ok = bool(np.all(np.isfinite(t))) and float(np.max(np.abs(proj))) < 1e-4
    return full(t), ok, "" if ok else str(res.message)


def _fit(data: _CrossedData, reml: bool) -> _Fit:
    """Fit by minimising lme4's profiled criterion; boundary estimates set to 0.

    The computations of ``lme4::lmer`` (Bates et al. 2015, section 3) for
    ``y = X beta + Z b + e``, ``b ~ N(0, sigma^2 Lambda Lambda')``,
    ``e ~ N(0, sigma^2 I)``, where ``Z = [Z_subject, Z_item]`` holds one indicator
    block per factor and ``Lambda = diag(theta_k I)`` is the relative covariance
    factor; the variance components are ``sigma^2 theta_k^2`` and ``sigma^2``.

    For a given ``theta`` the penalised least-squares problem is solved with the
    Cholesky factors ``L L' = Lambda' Z'Z Lambda + I`` and
    ``R_X R_X' = X'X - R_ZX' R_ZX``; the penalised residual sum of squares ``r^2``,
    ``beta`` and ``sigma^2`` follow in closed form, which leaves lme4's profiled
    criteria (``REMLcrit`` and ``deviance``)::

        REML(theta) = log|L|^2 + log|R_X|^2 + (n - p) (1 + log(2 pi r^2 / (n - p)))
        ML(theta)   = log|L|^2 + n (1 + log(2 pi r^2 / n))

    to minimise over ``theta >= 0``. lme4 uses sparse matrices; here the ``q x q``
    system (``q`` = subjects + items) is dense, built from the cross-products
    ``Z'Z``, ``Z'X``, ``Z'y``, ``X'X``, ``X'y``, ``y'y`` (y centred; the constant
    is in the span of X), so nothing of size ``n x n`` is formed.

    lme4 minimises with BOBYQA (derivative-free); we use L-BFGS-B with the analytic
    gradient of the profiled criterion, then Newton steps with the finite-difference
    Hessian of that gradient, then try ``theta_k = 0`` for every component that ends
    below lme4's ``isSingular`` tolerance (1e-4) and keep it if the criterion is no
    worse. This reaches the optimum to about 1e-9 in ``theta``, tighter than lme4's
    default stopping rule (``xtol_abs = ftol_abs = 1e-8``).

    Satterthwaite df (lmerTest) need the Hessian of the deviance in the variance
    parameters and the gradient of ``Var(beta_j)`` in the same parameters; lmerTest
    takes both numerically (``numDeriv``) in ``(theta, sigma)``, we use the exact
    formulas in the variance components ``phi = (sigma^2 theta_k^2, sigma^2)``::

        d2 REMLdev / dphi_k dphi_l = -tr(P G_k P G_l) + 2 y'P G_k P G_l P y
        dVar(beta) / dphi_k        = C X'V^-1 G_k V^-1 X C,  C = (X'V^-1 X)^-1

    with ``G_k = Z_k Z_k'``, ``G_resid = I``, ``P = V^-1 - V^-1 X C X'V^-1`` (for
    ML the trace has ``V^-1`` in place of ``P``). At a stationary point the df do
    not depend on the parameterisation. A component at exactly 0 drops out (in
    lmerTest's ``theta`` its gradient is 0 and its Hessian block decouples), which
    gives the df of the model without it. The ``G_resid = I`` terms come from
    ``P V P = P`` and ``V^-1 V V^-1 = V^-1``, so only ``q x q`` and ``q x p``
    matrices are needed.
    """
    k = len(data.sizes)
    theta, converged, message = _minimise(data, reml, np.ones(k), np.ones(k, bool))
    best = _solve(data, theta).criterion(data.n, reml)
    # lme4 reports boundary fits with theta exactly 0; take 0 whenever it is no
    # worse (the optimiser may stop at 1e-7 instead).
    near = theta < SINGULAR_TOL
    if near.any():
        cand, ok, msg = _minimise(data, reml, theta, ~near)
        value = _solve(data, cand).criterion(data.n, reml)
        if value <= best + 1e-10 * max(1.0, abs(best)):
            theta, converged, message, best = cand, ok, msg, value
    sol = _solve(data, theta)
    sigma2 = _sigma2(data, sol, reml)
    beta = sol.beta_c + data.y_mean * data.shift
    vcov = sigma2 * linalg.cho_solve((sol.chol_rx, True), np.eye(data.p))
    result = _Fit(
        theta=theta,
        sol=sol,
        sigma2=sigma2,
        beta=beta,
        vcov=vcov,
        reml_crit=sol.criterion(data.n, True),
        deviance=sol.criterion(data.n, False),
        criterion=best,
        converged=converged,
        singular=bool(np.any(theta < SINGULAR_TOL)),
        message=message,
    )
    if sigma2 > 0:
        result.df, result.hessian_ok = _satterthwaite(data, result, reml)
    return result


def _variance_hessian(
    data: _CrossedData, fitted: _Fit, reml: bool, pr: _Products, active: np.ndarray
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Hessian of -2 log L in phi and the ``X'V^-1 G_k V^-1 X`` matrices.

    *active* selects the random components (those not at 0); the residual variance
    is always the last parameter.
    """
    s2 = fitted.sigma2
    blocks = [b for b, a in zip(_blocks(data.sizes), active, strict=True) if a]
    phi = s2 * fitted.theta[active] ** 2
    m = len(blocks)
    trace_m = pr.ztqz if reml else pr.ztwz
    n_eff = data.n - data.p if reml else data.n
    t = np.empty(m + 1)
    tt = np.empty((m + 1, m + 1))
    s = np.empty(m + 1)
    u = np.empty((m + 1, m + 1))
    for i, bi in enumerate(blocks):
        t[i] = np.trace(trace_m[bi, bi]) / s2
        s[i] = float(pr.ztqy[bi] @ pr.ztqy[bi]) / s2**2
        for j, bj in enumerate(blocks):
            tt[i, j] = float(np.sum(trace_m[bi, bj] ** 2)) / s2**2
            u[i, j] = float(pr.ztqy[bi] @ pr.ztqz[bi, bj] @ pr.ztqy[bj]) / s2**3
    r = m
    y_p_y = fitted.sol.r2 / s2
    t[r] = (n_eff - phi @ t[:m]) / s2
    s[r] = (y_p_y - phi @ s[:m]) / s2
    for j in range(m):
        tt[r, j] = tt[j, r] = (t[j] - phi @ tt[:m, j]) / s2
        u[r, j] = u[j, r] = (s[j] - phi @ u[:m, j]) / s2
    tt[r, r] = (t[r] - phi @ tt[:m, r]) / s2
    u[r, r] = (s[r] - phi @ u[:m, r]) / s2
    hess = -tt + 2 * u
    d_mats = [pr.ztwx[b].T @ pr.ztwx[b] / s2**2 for b in blocks]
    xtvx = fitted.sol.xtwx / s2
    resid = xtvx.copy()
    for p, d in zip(phi, d_mats, strict=True):
        resid -= p * d
    d_mats.append(resid / s2)
    return hess, d_mats


def _satterthwaite(
    data: _CrossedData, fitted: _Fit, reml: bool
) -> tuple[np.ndarray, bool]:
    """Satterthwaite df of each fixed effect (lmerTest's ``summary``)."""
    pr = _products(data, fitted.sol)
    active = fitted.theta > 0
    hess, d_mats = _variance_hessian(data, fitted, reml, pr, active)
    evals = np.linalg.eigvalsh(hess)
    # relative cut-off: the Hessian's scale is that of 1 / variance^2
    if not np.all(np.isfinite(evals)) or evals.min() <= 1e-12 * np.abs(evals).max():
        return np.full(data.p, np.nan), False
    cov_phi = 2 * np.linalg.inv(hess)
    c = fitted.vcov
    grads = np.stack([np.diag(c @ d @ c) for d in d_mats], axis=1)
    var = np.diag(c)
    denom = np.einsum("jk,kl,jl->j", grads, cov_phi, grads)
    return 2 * var**2 / denom, True

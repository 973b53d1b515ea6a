"""Linear mixed-effects model with crossed random effects for subjects and items.

The TUNA papers analyse ratings and identification times with by-trial ANOVAs that
treat subjects and items as fixed or ignore them. A now-standard alternative
(Baayen, Davidson & Bates 2008) is a mixed model with crossed random intercepts for
subjects and items, e.g. on log identification time (Ratcliff 1993 lists the log
transform among the remedies for skewed reaction times):

    y = system effect + u_subject + w_item + e,
    u ~ N(0, s2_subject), w ~ N(0, s2_item), e ~ N(0, s2)

statsmodels has no direct syntax for crossed random effects; the documented way is
to put all rows in a single group and declare each crossed factor as a variance
component (``groups`` constant, ``re_formula="0"``, ``vc_formula`` with
``0 + C(subject)`` and ``0 + C(item)``). This gives the same REML fit as
``lme4::lmer(y ~ system + (1 | subject) + (1 | item))``.

Limitations
-----------
* Only random intercepts; no random slopes (e.g. by-subject system effects).
* Inference is Wald z (normal) with REML standard errors; there are no
  Satterthwaite or Kenward-Roger degrees of freedom (lmerTest, pbkrtest), so
  p-values are anticonservative with few subjects or items.
* The single-group formulation builds a dense random-effects design of
  ``n_obs x (n_subjects + n_items)`` columns: fine for a TUNA-size study (a few
  thousand trials), slow and memory-hungry for very large data.
* statsmodels' default optimiser (BFGS) often stops early on this model; we use
  L-BFGS, then Powell and Nelder-Mead, and report ``converged``. A fit that does not
  converge is marked not computable (its estimates are still shown).
"""

from __future__ import annotations

import warnings
from typing import Any, Literal

import numpy as np
import pandas as pd
import statsmodels.formula.api as smf
from scipy import stats

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
    "z",
    "p_val",
    "ci_low",
    "ci_high",
    "response_estimate",
    "response_ci_low",
    "response_ci_high",
    "transform",
    "converged",
    "n",
    "n_subjects",
    "n_items",
    "n_missing",
    "computable",
    "reason",
]

_OPTIMISERS = ["lbfgs", "powell", "nm"]


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
    """Fit ``dv ~ fixed + (1 | subject) + (1 | item)`` and return tidy estimates.

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
        (on the transformed scale). ``"treatment"``: an intercept (the reference
        level's mean) and each other level's difference from it.
    reference : str, optional
        Reference level for ``coding="treatment"`` (default: first sorted level).
    reml : bool
        REML (default, as lme4) or maximum likelihood.
    confidence : float
        Level of the Wald intervals.
    nan_policy : {"omit", "not_computable"}
        Missing-value handling.

    Returns
    -------
    pandas.DataFrame
        Fixed-effect rows (``effect="fixed"``; ``term`` is the level, or
        ``"(Intercept)"`` for the treatment intercept) then variance rows
        (``effect="random"``, ``term`` in ``"subject"``, ``"item"``,
        ``"residual"``, ``estimate`` = variance on the transformed scale; their
        ``se``, ``z``, ``p_val`` and intervals are NaN, as variance tests are not
        Wald tests). Columns: ``effect``, ``term``, ``estimate``, ``se``, ``z``,
        ``p_val``, ``ci_low``, ``ci_high``, ``response_estimate``,
        ``response_ci_low``, ``response_ci_high`` (fixed effects back-transformed:
        ``exp`` for log, i.e. geometric means or ratios; identical to the estimate
        otherwise), ``transform``, ``converged``, ``n``, ``n_subjects``,
        ``n_items``, ``n_missing``, ``computable``, ``reason``.

    Raises
    ------
    StatsInputError
        For missing columns, an unknown option, or an unknown *reference*.

    References
    ----------
    Baayen, R. H., Davidson, D. J. & Bates, D. M. (2008). Mixed-effects modeling
    with crossed random effects for subjects and items. Journal of Memory and
    Language 59(4):390-412.
    Bates, D., Maechler, M., Bolker, B. & Walker, S. (2015). Fitting linear
    mixed-effects models using lme4. Journal of Statistical Software 67(1).
    statsmodels, "Linear Mixed Effects Models" (variance components, crossed
    random effects via a single group).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> rows = [(s, i, "AB"[(s + i) % 2]) for s in range(6) for i in range(8)]
    >>> df = pd.DataFrame(rows, columns=["subject", "item", "system"])
    >>> df["rating"] = (50 + 10 * (df["system"] == "B") + df["subject"]
    ...                 + rng.normal(0, 2, len(df)))
    >>> res = mixed_model(df, "rating")
    >>> res["term"].tolist()
    ['A', 'B', 'subject', 'item', 'residual']
    >>> bool(res["computable"].all())
    True
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
            "_g": 0,
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
    base = {
        "transform": transform,
        "n": len(frame),
        "n_subjects": int(frame["_s"].nunique()),
        "n_items": int(frame["_i"].nunique()),
        "n_missing": n_missing,
    }
    if not reason:
        reason = _precheck(frame, levels, transform, dv)
    fixed_terms = levels if coding == "means" else ["(Intercept)", *levels[1:]]
    if reason:
        rows: list[dict[str, Any]] = [
            not_computable(reason, effect="fixed", term=t, **base) for t in fixed_terms
        ]
        rows += [
            not_computable(reason, effect="random", term=t, **base)
            for t in ("subject", "item", "residual")
        ]
        return _typed(finish_frame(rows, MIXED_COLUMNS))
    if transform == "log":
        frame["_y"] = np.log(frame["_y"])
    frame["_f"] = pd.Categorical(frame["_f"], categories=levels)
    rhs = "0 + C(_f)" if coding == "means" else "C(_f)"
    model = smf.mixedlm(
        f"_y ~ {rhs}",
        frame,
        groups="_g",
        re_formula="0",
        vc_formula={"subject": "0 + C(_s)", "item": "0 + C(_i)"},
    )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = model.fit(reml=reml, method=_OPTIMISERS)
    except (np.linalg.LinAlgError, ValueError) as exc:
        why = f"the model could not be fitted: {exc}"
        rows = [
            not_computable(why, effect="fixed", term=t, **base) for t in fixed_terms
        ]
        return _typed(finish_frame(rows, MIXED_COLUMNS))
    converged = bool(result.converged)
    status = ok if converged else _not_converged
    z_crit = float(stats.norm.ppf(1 - (1 - confidence) / 2))
    back = np.exp if transform == "log" else (lambda v: v)
    rows = []
    fe, bse = result.fe_params, result.bse_fe
    for term, name in zip(fixed_terms, fe.index, strict=True):
        est, se = float(fe[name]), float(bse[name])
        low, high = est - z_crit * se, est + z_crit * se
        rows.append(
            status(
                effect="fixed",
                term=term,
                estimate=est,
                se=se,
                z=est / se,
                p_val=float(2 * stats.norm.sf(abs(est / se))),
                ci_low=low,
                ci_high=high,
                response_estimate=float(back(est)),
                response_ci_low=float(back(low)),
                response_ci_high=float(back(high)),
                converged=converged,
                **base,
            )
        )
    vc = dict(
        zip(
            result.model.exog_vc.names,
            np.asarray(result.vcomp, dtype=float),
            strict=True,
        )
    )
    for term, value in (
        ("subject", vc["subject"]),
        ("item", vc["item"]),
        ("residual", result.scale),
    ):
        rows.append(
            status(
                effect="random",
                term=term,
                estimate=float(value),
                converged=converged,
                **base,
            )
        )
    return _typed(finish_frame(rows, MIXED_COLUMNS))


def _not_converged(**fields: object) -> dict[str, object]:
    return not_computable(
        "the optimiser did not converge (estimates unreliable)", **fields
    )


def _precheck(frame: pd.DataFrame, levels: list[str], transform: str, dv: str) -> str:
    if len(frame) == 0:
        return "no observations"
    if len(levels) < 2:
        return "fewer than 2 levels of the fixed factor with data"
    for col, name in (("_s", "subjects"), ("_i", "items")):
        if frame[col].nunique() < 2:
            return f"fewer than 2 {name}: a variance component needs at least 2"
    if transform == "log" and (frame["_y"] <= 0).any():
        k = int((frame["_y"] <= 0).sum())
        return f"log transform needs positive values; {k} value(s) of {dv!r} are <= 0"
    if is_constant(frame["_y"].to_numpy()):
        return f"dv {dv!r} is constant"
    n_params = len(levels) + 3
    if len(frame) <= n_params:
        return f"too few observations ({len(frame)}) for {n_params} parameters"
    return ""


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    fill_column(frame, "converged", False, bool)
    for col in ("n", "n_subjects", "n_items", "n_missing"):
        frame[col] = frame[col].astype(int)
    return frame

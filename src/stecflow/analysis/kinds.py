"""The analysis kinds beyond ANOVA, Tukey, Kruskal-Wallis and correlations.

Each function takes the analysed rows (a DataFrame with the measures as columns and
the factors, system labels in ``label``), runs the :mod:`stecflow.stats` function
and returns the tidy result plus what goes into the analysis' JSON record beside
it; :func:`stecflow.analysis.run.run_analysis` writes both.

* :func:`run_ttests`: paired t-tests between the levels of one column (``within``),
  paired by another (``pair_by``), as seed 000 compared TP and FN instances over
  its 34 evaluators ("t(33) = 16.24"); with more than two levels every pair,
  Bonferroni-corrected (:func:`stecflow.stats.ttests.pairwise_paired_ttests`);
  split by further factors, one set of tests per combination of their levels.
* :func:`run_manova`: MANOVA of several measures on between-system factors, e.g.
  system properties, with the univariate follow-ups Bonferroni-corrected over the
  measures (seed 003 Table 4; :func:`stecflow.stats.manova.manova`,
  :func:`~stecflow.stats.manova.manova_followups`).
* :func:`run_mixed`: a linear mixed model of one measure on one factor with crossed
  random intercepts for subjects and items (:func:`stecflow.stats.mixed.mixed_model`).
* :func:`property_means`: means of measures by the levels of each factor, e.g.
  incremental vs non-incremental systems (seed 003 Table 3). Descriptive: the
  means are over the rows analysed (items or trials), so systems with more rows
  weigh more, as in seed 003 ("unequal-sized samples").

May import: :mod:`stecflow.core`, :mod:`stecflow.stats`, :mod:`stecflow.analysis`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

__all__ = [
    "PROPERTY_MEANS_COLUMNS",
    "property_means",
    "run_manova",
    "run_mixed",
    "run_ttests",
]

#: Columns of :func:`property_means`.
PROPERTY_MEANS_COLUMNS = [
    "factor",
    "level",
    "measure",
    "mean",
    "sd",
    "n",
    "n_systems",
    "systems",
    "computable",
    "reason",
]


def _texts(result: Any, about: Any, digits: int) -> list[dict[str, str]]:
    from stecflow.analysis.formatting import format_result

    return [
        {"about": about(row), "text": text}
        for _, row in result.iterrows()
        if (text := format_result(row, digits=digits))
    ]


def run_ttests(
    frame: Any,
    dv: str,
    within: str,
    pair_by: str,
    *,
    by: Sequence[str] = (),
    levels: Sequence[str] | None = None,
    alternative: str = "two-sided",
    correction: str = "bonferroni",
    confidence: float = 0.95,
    digits: int = 2,
) -> tuple[Any, dict[str, Any]]:
    """Paired t-tests of *dv* between levels of *within*, paired by *pair_by*.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per observation.
    dv, within, pair_by
        As *dv*, *within* and *subject* of
        :func:`stecflow.stats.ttests.paired_ttest`.
    by
        Columns splitting the data: one set of tests per combination of their
        levels (columns of the same names lead the result).
    levels
        Two levels of *within* to compare (``paired_ttest`` with ``a``, ``b``);
        default every pair, corrected by *correction*.
    alternative, correction, confidence
        Passed on.
    digits
        Decimals of t in the texts.

    Returns
    -------
    (pandas.DataFrame, dict)
        The tests (the columns of the stats function after the *by* columns) and
        the record entries: ``text`` (``about`` = ``"a vs b"``, preceded by the
        split levels).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"subject": [1, 2, 3, 4, 5, 6] * 2,
    ...                    "condition": ["x"] * 6 + ["z"] * 6,
    ...                    "value": [2.1, 2.5, 1.9, 2.8, 2.4, 2.2,
    ...                              2.4, 2.6, 2.3, 3.1, 2.5, 2.6]})
    >>> res, extra = run_ttests(df, "value", "condition", "subject")
    >>> extra["text"]
    [{'about': 'x vs z', 'text': 't(5) = -4.78, p = .005'}]
    """
    import pandas as pd

    from stecflow.stats.ttests import paired_ttest, pairwise_paired_ttests

    groups = [((), frame)] if not by else list(frame.groupby(list(by), sort=True))
    parts = []
    for key, part in groups:
        key = key if isinstance(key, tuple) else (key,)
        if levels:
            result = paired_ttest(
                part,
                dv,
                within,
                pair_by,
                a=levels[0],
                b=levels[1],
                alternative=alternative,  # type: ignore[arg-type]
                confidence=confidence,
            )
        else:
            result = pairwise_paired_ttests(
                part,
                dv,
                within,
                pair_by,
                correction=correction,
                alternative=alternative,  # type: ignore[arg-type]
                confidence=confidence,
            )
        for n, column in reversed(list(enumerate(by))):
            result.insert(0, column, str(key[n]))
        parts.append(result)
    result = pd.concat(parts, ignore_index=True)

    def about(row: Any) -> str:
        split = ", ".join(f"{c} {row[c]}" for c in by)
        pair = f"{row['level_a']} vs {row['level_b']}"
        return f"{split}: {pair}" if split else pair

    return result, {"text": _texts(result, about, digits)}


def run_manova(
    frame: Any,
    measures: Sequence[str],
    factors: Sequence[str],
    *,
    terms: Sequence[str] | None = None,
    correction: str = "bonferroni",
    digits: int = 2,
) -> tuple[Any, dict[str, Any]]:
    """MANOVA of *measures* on *factors*, with univariate follow-ups.

    Returns
    -------
    (pandas.DataFrame, dict)
        The multivariate tests (:func:`stecflow.stats.manova.manova`) and the
        record entries: ``followups`` (the rows of
        :func:`~stecflow.stats.manova.manova_followups`, p-values corrected over
        the measures), ``cells`` (:func:`interaction_cells`), ``text`` (one
        per term and statistic, ``about`` = ``"<term>, <statistic>"``) and
        ``followup_text`` (``about`` = ``"<measure>: <term>"``).
    """
    from stecflow.stats.manova import manova, manova_followups

    kwargs = {"terms": list(terms) if terms else None, "correction": correction}
    result = manova(frame, list(measures), list(factors), **kwargs)
    followups = manova_followups(frame, list(measures), list(factors), **kwargs)
    extra = {
        "followups": followups.to_dict(orient="records"),
        "cells": interaction_cells(frame, measures, factors, terms),
        "text": _texts(result, lambda r: f"{r['source']}, {r['test']}", digits),
        "followup_text": _texts(
            followups, lambda r: f"{r['dv']}: {r['source']}", digits
        ),
    }
    return result, extra


def interaction_cells(
    frame: Any,
    measures: Sequence[str],
    factors: Sequence[str],
    terms: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """The cell means, with n, of each interaction the MANOVA tests (seed 003
    §4.1 reads its trainable × incremental interaction from them: "the mean
    Dice score for non-trainable incremental systems was .625, as compared to
    .696 for trainable incremental systems").

    The rows are the MANOVA's (complete in every measure and factor); every
    combination of the levels seen is a cell, an empty one with n = 0 and no
    means. *terms* are the model's (default: the full factorial of *factors*).

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"dice": [.5, .7, .9, .3], "masi": [.4, .6, .8, .2],
    ...     "inc": [True, True, False, False], "train": [True, False, True, True]})
    >>> [(c["levels"], c["n"], c["means"]["dice"])
    ...  for c in interaction_cells(frame, ["dice", "masi"], ["inc", "train"])]
    ... # doctest: +NORMALIZE_WHITESPACE
    [({'inc': False, 'train': False}, 0, None), ({'inc': False, 'train': True}, 2, 0.6),
     ({'inc': True, 'train': False}, 1, 0.7), ({'inc': True, 'train': True}, 1, 0.5)]
    """
    factors = list(factors)
    if terms is None:
        terms = [
            ":".join(c)
            for r in range(2, len(factors) + 1)
            for c in itertools.combinations(factors, r)
        ]
    rows = frame.dropna(subset=[*measures, *factors])
    cells = []
    for term in (t for t in terms if ":" in t):
        names = term.split(":")
        levels = [sorted(rows[name].unique(), key=str) for name in names]
        for combo in itertools.product(*levels):
            part = rows
            for name, level in zip(names, combo, strict=True):
                part = part[part[name] == level]
            cells.append(
                {
                    "term": term,
                    "levels": {n: _plain(v) for n, v in zip(names, combo, strict=True)},
                    "n": len(part),
                    "means": {
                        m: round(float(part[m].mean()), 12) if len(part) else None
                        for m in measures
                    },
                }
            )
    return cells


def _plain(value: Any) -> Any:
    """A level as JSON writes it (numpy scalars to Python ones)."""
    return value.item() if hasattr(value, "item") else value


def run_mixed(
    frame: Any,
    dv: str,
    fixed: str,
    *,
    subject: str = "subject",
    item: str = "item",
    transform: str = "none",
    coding: str = "means",
    confidence: float = 0.95,
    digits: int = 2,
) -> tuple[Any, dict[str, Any]]:
    """Mixed model ``dv ~ fixed + (1 | subject) + (1 | item)``.

    Returns
    -------
    (pandas.DataFrame, dict)
        The estimates (:func:`stecflow.stats.mixed.mixed_model`) and the record
        entries: ``text`` per fixed effect (``about`` = its term).
    """
    from stecflow.stats.mixed import mixed_model

    result = mixed_model(
        frame,
        dv,
        fixed,
        subject,
        item,
        transform=transform,  # type: ignore[arg-type]
        coding=coding,  # type: ignore[arg-type]
        confidence=confidence,
    )
    return result, {"text": _texts(result, lambda r: str(r["term"]), digits)}


def _fmt(value: float, digits: int) -> str:
    return "n/a" if not math.isfinite(value) else f"{value:.{digits}f}"


def property_means(
    frame: Any,
    measures: Sequence[str],
    factors: Sequence[str],
    *,
    digits: int = 2,
) -> tuple[Any, dict[str, Any]]:
    """Means of each measure by the levels of each factor (seed 003 Table 3).

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per observation, with the measures as columns, the factors and
        the system ``label``.
    measures, factors
        Columns of *frame*. Rows missing a factor's level (a system that did not
        declare the property) leave that factor's means only.
    digits
        Decimals of the means in the texts.

    Returns
    -------
    (pandas.DataFrame, dict)
        One row per factor, level and measure (levels sorted): the columns of
        :data:`PROPERTY_MEANS_COLUMNS` (``sd`` with n - 1; ``systems`` the labels
        having the level, comma-separated), and the record entries: ``text``, one
        per factor and measure (``about`` = ``"<measure> by <factor>"``, e.g.
        ``"false: M = 0.56, SD = 0.10, n = 224; true: M = 0.70, ..."``).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"label": ["A", "A", "B", "C"],
    ...                    "trainable": ["true", "true", "false", "true"],
    ...                    "dice": [0.5, 0.7, 0.4, 0.9]})
    >>> res, extra = property_means(df, ["dice"], ["trainable"])
    >>> res[["level", "n", "n_systems", "systems"]].values.tolist()
    [['false', 1, 1, 'B'], ['true', 3, 2, 'A, C']]
    >>> res["mean"].round(6).tolist()
    [0.4, 0.7]
    >>> extra["text"][0]["text"]
    'false: M = 0.40, SD = n/a, n = 1; true: M = 0.70, SD = 0.20, n = 3'
    """
    import pandas as pd

    rows: list[dict[str, Any]] = []
    texts = []
    for factor, measure in itertools.product(factors, measures):
        values = pd.to_numeric(frame[measure], errors="coerce")
        keep = values.notna() & frame[factor].notna() & (frame[factor] != "")
        part = pd.DataFrame(
            {
                "level": frame.loc[keep, factor].astype(str),
                "value": values[keep].astype(float),
                "label": frame.loc[keep, "label"],
            }
        )
        pieces = []
        if part.empty:
            rows.append(
                {
                    "factor": factor,
                    "measure": measure,
                    "n": 0,
                    "n_systems": 0,
                    "computable": False,
                    "reason": f"no observation of {measure} has a level of {factor}",
                }
            )
        for level, group in part.groupby("level", sort=True):
            n = len(group)
            mean = float(group["value"].mean())
            sd = float(group["value"].std(ddof=1)) if n > 1 else float("nan")
            systems = sorted(group["label"].unique())
            rows.append(
                {
                    "factor": factor,
                    "level": level,
                    "measure": measure,
                    "mean": mean,
                    "sd": sd,
                    "n": n,
                    "n_systems": len(systems),
                    "systems": ", ".join(systems),
                    "computable": True,
                    "reason": "",
                }
            )
            pieces.append(
                f"{level}: M = {_fmt(mean, digits)}, SD = {_fmt(sd, digits)}, n = {n}"
            )
        if pieces:
            texts.append({"about": f"{measure} by {factor}", "text": "; ".join(pieces)})
    result = pd.DataFrame(rows, columns=PROPERTY_MEANS_COLUMNS)
    result["computable"] = result["computable"].astype(bool)
    result["reason"] = result["reason"].fillna("")
    return result, {"text": texts}

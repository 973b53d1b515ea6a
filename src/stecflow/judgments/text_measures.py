"""The measures of a text study: ratings per criterion and system, preferences.

A rating study (:func:`rating_measures`): per criterion and system, the number
of ratings, their mean and SD (``n - 1``), and for a slider criterion the mean
of the ratings standardised per evaluator, as WMT's direct assessment does
(Graham et al. 2017): each evaluator's ratings of that criterion (the trials in
the analysis) become ``(x - mean) / sd`` with the evaluator's own mean and SD
(``n - 1``); an evaluator with fewer than two ratings or constant ones has no
z-scores (the count used is ``z_n``). A preference study
(:func:`preference_measures`): per system its wins, losses and ties, its win
rate (ties half) with a Wilson interval, and its Bradley-Terry strength
(:mod:`stecflow.stats.preference`, ties split half and half); the pairwise win
rates are in the summary.

May import: numpy, pandas and SciPy inside functions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from stecflow.judgments.importers.text import Criterion

__all__ = [
    "PREFERENCE_MEASURE_COLUMNS",
    "RATING_MEASURE_COLUMNS",
    "preference_measures",
    "rating_measures",
]

#: Columns of ``results/judgments/measures/<study>.tsv`` for a rating study.
RATING_MEASURE_COLUMNS = (
    "criterion",
    "scale",
    "system",
    "n",
    "n_subjects",
    "mean",
    "sd",
    "z_n",
    "z_mean",
    "z_sd",
)

#: Columns of ``results/judgments/measures/<study>.tsv`` for a preference study.
PREFERENCE_MEASURE_COLUMNS = (
    "criterion",
    "system",
    "n",
    "wins",
    "losses",
    "ties",
    "win_rate",
    "ci_low",
    "ci_high",
    "bt_rank",
    "bt_strength",
    "bt_se",
    "bt_worth",
    "bt_note",
)


def rating_measures(
    trials: Sequence[Mapping[str, Any]], criteria: Sequence[Criterion]
) -> list[dict[str, Any]]:
    """Per criterion and system: n, mean, SD, and for sliders the mean z-score.

    Parameters
    ----------
    trials : sequence of mapping
        The judgments rows (``subject``, ``system``, one key per criterion,
        ``in_analysis``); only trials in the analysis with a value count.
    criteria : sequence of Criterion
        The study's criteria, in the order of the output.

    Returns
    -------
    list of dict
        :data:`RATING_MEASURE_COLUMNS`, criteria in config order, systems by
        name. ``z_*`` are None for a Likert criterion.

    Examples
    --------
    >>> t = [{"subject": s, "system": y, "in_analysis": True, "a": v}
    ...      for s, y, v in [("s1", "A", 80), ("s1", "B", 40), ("s2", "A", 30),
    ...                      ("s2", "B", 10)]]
    >>> m = rating_measures(t, [Criterion("a", "slider")])
    >>> [(r["system"], r["mean"], round(r["z_mean"], 4)) for r in m]
    [('A', 55.0, 0.7071), ('B', 25.0, -0.7071)]
    """
    import statistics

    out = []
    for criterion in criteria:
        values = [
            (str(t["subject"]), str(t["system"]), float(t[criterion.id]))
            for t in trials
            if t.get("in_analysis") and not _missing(t.get(criterion.id))
        ]
        z: dict[int, float] = {}
        if criterion.scale == "slider":
            by_subject: dict[str, list[int]] = {}
            for n, (subject, _, _) in enumerate(values):
                by_subject.setdefault(subject, []).append(n)
            for indices in by_subject.values():
                xs = [values[i][2] for i in indices]
                if len(xs) < 2:
                    continue
                mean, sd = statistics.fmean(xs), statistics.stdev(xs)
                if sd == 0:
                    continue
                for i in indices:
                    z[i] = (values[i][2] - mean) / sd
        for system in sorted({v[1] for v in values}):
            rows = [n for n, v in enumerate(values) if v[1] == system]
            xs = [values[n][2] for n in rows]
            zs = [z[n] for n in rows if n in z]
            slider = criterion.scale == "slider"
            out.append(
                {
                    "criterion": criterion.id,
                    "scale": criterion.scale,
                    "system": system,
                    "n": len(xs),
                    "n_subjects": len({values[n][0] for n in rows}),
                    "mean": statistics.fmean(xs),
                    "sd": statistics.stdev(xs) if len(xs) > 1 else None,
                    "z_n": len(zs) if slider else None,
                    "z_mean": statistics.fmean(zs) if slider and zs else None,
                    "z_sd": statistics.stdev(zs) if slider and len(zs) > 1 else None,
                }
            )
    return out


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def preference_measures(
    trials: Sequence[Mapping[str, Any]],
    criterion: Criterion,
    *,
    confidence: float = 0.95,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
    """Per system win rates and Bradley-Terry strengths; pairwise win rates.

    Parameters
    ----------
    trials : sequence of mapping
        Judgments rows (``system_left``, ``system_right``, ``preferred``,
        ``in_analysis``); only trials in the analysis count.
    criterion : Criterion
        The study's criterion (its ID labels the rows).
    confidence : float
        Coverage of the Wilson intervals.

    Returns
    -------
    (measures, pairs, model)
        :data:`PREFERENCE_MEASURE_COLUMNS` rows (best Bradley-Terry rank
        first), :data:`stecflow.stats.preference.PAIR_COLUMNS` rows, and the
        model's facts (ties, log-likelihood, reference, whether computable).
    """
    import pandas as pd

    from stecflow.stats.preference import (
        bradley_terry,
        pairwise_preferences,
        preference_counts,
    )

    kept = [t for t in trials if t.get("in_analysis")]
    if not kept:
        return [], [], {"ties": "half", "computable": False, "reason": "no trials"}
    frame = pd.DataFrame(
        [
            {
                "system_left": t["system_left"],
                "system_right": t["system_right"],
                "preferred": t["preferred"],
            }
            for t in kept
        ]
    )
    counts = preference_counts(frame, confidence=confidence).set_index("system")
    bt = bradley_terry(frame).set_index("system")
    pairs = pairwise_preferences(frame, confidence=confidence)
    order = sorted(
        counts.index,
        key=lambda s: (
            bt.loc[s, "rank"] if bool(bt.loc[s, "computable"]) else 0,
            -counts.loc[s, "win_rate"],
            s,
        ),
    )
    out = []
    for system in order:
        c, b = counts.loc[system], bt.loc[system]
        fitted = bool(b["computable"])
        out.append(
            {
                "criterion": criterion.id,
                "system": system,
                "n": int(c["n"]),
                "wins": int(c["wins"]),
                "losses": int(c["losses"]),
                "ties": int(c["ties"]),
                "win_rate": float(c["win_rate"]),
                "ci_low": float(c["ci_low"]),
                "ci_high": float(c["ci_high"]),
                "bt_rank": int(b["rank"]) if fitted else None,
                "bt_strength": float(b["strength"]) if fitted else None,
                "bt_se": float(b["se"]) if fitted else None,
                "bt_worth": float(b["worth"]) if fitted else None,
                "bt_note": None if fitted else str(b["reason"]),
            }
        )
    first = bt.iloc[0]
    model = {
        "ties": "half",
        "computable": bool(first["computable"]),
        "reason": str(first["reason"]) or None,
        "log_likelihood": float(first["log_likelihood"])
        if bool(first["computable"])
        else None,
        "confidence": confidence,
    }
    pair_rows = [
        {k: (None if _missing(v) else v) for k, v in r.items()}
        for r in pairs.to_dict("records")
    ]
    return out, pair_rows, model

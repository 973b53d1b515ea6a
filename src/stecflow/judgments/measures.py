"""Derived measures of human studies, pingouin-style: tidy table in, tidy table out.

Extrinsic (identification) measures of the TUNA challenges (seed 001 Table 8,
seed 003 section 3.2) and of Spanger et al. (2013, seed 000 section 5.2):

* identification accuracy (share of trials whose target was identified) and
  error rate (1 − accuracy), per system and subdomain;
* reading and identification times: mean, SD (ddof 1, as SPSS) and n, of the
  outlier-adjusted times (:mod:`stecflow.judgments.outliers`);
* identification rate (IR), majority identification rate (MIR) and agreement
  (REFERENCE.md §13): for a description *i* (an item described by a system)
  judged by evaluators *e* with choices c_ie (an entity, "can't tell", a
  time-out) and gold g_i::

      IR(i)         = (1/E_i) Σ_e [c_ie = g_i]     system IR = mean over items
                                                    (option: pooled)
      MajorityId(i) = [mode_e(c_ie) = g_i]         a tied mode counts as not
                                                    identified (option)
      MIR           = mean over items of MajorityId(i)
      Agreement(i)  = max_c |{e: c_ie = c}| / E_i  system = mean over items

Intrinsic (rating) measures (seed 001 Table 6): mean and SD of Adequacy and
Fluency per system and subdomain.

Some of these numbers carry no information, and are flagged (the ``flags``
column, and :func:`measure_flags` in plain words):

* ``single_judgment``: every description of the row was judged once (a Latin
  square run once gives each item × system cell one judgment). Then
  MajorityId(i) = IR(i), so MIR = IR, and Agreement(i) = 1/1, so agreement is 1:
  identical by construction, not findings. They need several judgments per
  description (seed 000 had 17 or 34 evaluators per instance).
* ``constant:<column>``: on the rows over all subdomains, the measure has the
  same value for every system (at least two): it tells no system apart, and its
  correlation with any other measure is undefined.

Every function takes a long-format DataFrame and role arguments and returns a
DataFrame with the documented columns; none does I/O.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from stecflow.judgments._common import JudgmentsError, is_missing
from stecflow.studykinds.registry import identifies

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "IDENT_AGGREGATIONS",
    "MAJORITY_TIES",
    "MEASURE_COLUMNS",
    "MEASURE_NAMES",
    "describe",
    "identification_rates",
    "identification_summary",
    "item_identification",
    "measure_flags",
    "rating_summary",
    "study_measures",
]

#: Values of ``ident.majority_tie``.
MAJORITY_TIES = ("not_identified", "identified")
#: Values of ``ident.aggregation``.
IDENT_AGGREGATIONS = ("mean_over_items", "pooled")

#: Columns of :func:`study_measures` (one row per system and subdomain).
MEASURE_COLUMNS = (
    "study",
    "task",
    "system",
    "subdomain",
    "n_trials",
    "n_subjects",
    "n_items",
    "accuracy",
    "error_rate",
    "n_correct",
    "n_timeouts",
    "n_cant_tell",
    "ir",
    "mir",
    "agreement",
    "reading_time_mean_ms",
    "reading_time_sd_ms",
    "reading_time_n",
    "identification_time_mean_ms",
    "identification_time_sd_ms",
    "identification_time_n",
    "rt_mean_ms",
    "rt_sd_ms",
    "rt_n",
    "adequacy_mean",
    "adequacy_sd",
    "adequacy_n",
    "fluency_mean",
    "fluency_sd",
    "fluency_n",
    "flags",
)

#: Per-system measures checked for being constant over systems, and their names
#: in the flags' sentences.
MEASURE_NAMES = {
    "accuracy": "Identification accuracy",
    "ir": "The identification rate (IR)",
    "mir": "The majority identification rate (MIR)",
    "agreement": "Agreement",
    "reading_time_mean_ms": "Mean reading time",
    "identification_time_mean_ms": "Mean identification time",
    "rt_mean_ms": "Mean response time",
    "adequacy_mean": "Mean Adequacy",
    "fluency_mean": "Mean Fluency",
}


def _check(name: str, value: str, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise JudgmentsError(
            f"{value!r} is not one of {', '.join(allowed)}", field=f"ident.{name}"
        )


def _groups(data: pd.DataFrame, by: Sequence[str]) -> list[tuple[tuple, pd.DataFrame]]:
    if not by:
        return [((), data)]
    out = []
    for key, frame in data.groupby(list(by), sort=True, dropna=False):
        out.append((key if isinstance(key, tuple) else (key,), frame))
    return out


def describe(
    data: pd.DataFrame, dv: str, *, by: Sequence[str] = (), ddof: int = 1
) -> pd.DataFrame:
    """Mean, SD and n of *dv* per group (missing values ignored).

    Returns columns ``*by``, ``mean``, ``sd``, ``n`` (SD is NaN for n < 2).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"system": ["A", "A", "B"], "t": [1.0, 3.0, 5.0]})
    >>> describe(df, "t", by=["system"]).round(4).to_dict("records")
    [{'system': 'A', 'mean': 2.0, 'sd': 1.4142, 'n': 2}, {'system': 'B', 'mean': 5.0, 'sd': nan, 'n': 1}]
    """  # noqa: E501
    import pandas as pd

    rows = []
    for key, frame in _groups(data, by):
        x = pd.to_numeric(frame[dv], errors="coerce").to_numpy(dtype=float)
        x = x[np.isfinite(x)]
        n = len(x)
        rows.append(
            {
                **dict(zip(by, key, strict=True)),
                "mean": float(np.mean(x)) if n else math.nan,
                "sd": float(np.std(x, ddof=ddof)) if n > ddof else math.nan,
                "n": n,
            }
        )
    return pd.DataFrame(rows, columns=[*by, "mean", "sd", "n"])


def item_identification(
    data: pd.DataFrame,
    *,
    choice: str = "choice",
    gold: str = "target_entity",
    item: str = "item",
    by: Sequence[str] = ("system",),
    majority_tie: str = "not_identified",
) -> pd.DataFrame:
    """Per-description identification (REFERENCE.md §13), one row per item.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per judgement, with the evaluator's *choice* and the *gold*
        entity (rows with a missing choice are ignored).
    choice, gold, item : str
        Column names.
    by : sequence of str, default ("system",)
        Further columns that identify a description (an item described by a
        system).
    majority_tie : {"not_identified", "identified"}
        How a tied mode that includes the gold counts.

    Returns
    -------
    pandas.DataFrame
        Columns ``*by``, ``item``, ``n_judgements``, ``n_correct``, ``ir``,
        ``modal_count``, ``tied``, ``majority_identified`` (0/1), ``agreement``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item": ["i1"] * 5 + ["i2"] * 5, "system": "S",
    ...     "choice": list("ggxgy") + list("xxggy"), "target_entity": "g"})
    >>> item_identification(df)[["item", "ir", "majority_identified",
    ...     "agreement"]].to_dict("records")
    [{'item': 'i1', 'ir': 0.6, 'majority_identified': 1, 'agreement': 0.6}, {'item': 'i2', 'ir': 0.4, 'majority_identified': 0, 'agreement': 0.4}]
    """  # noqa: E501
    import pandas as pd

    _check("majority_tie", majority_tie, MAJORITY_TIES)
    keep = ~data[choice].map(is_missing)
    rows = []
    for key, frame in _groups(data[keep], [*by, item]):
        choices = [str(c) for c in frame[choice]]
        golds = {str(g) for g in frame[gold] if not is_missing(g)}
        if len(golds) > 1:
            names = ", ".join(sorted(golds))
            raise JudgmentsError(
                f"item {key[-1]} has several gold entities ({names})", field=gold
            )
        target = golds.pop() if golds else None
        counts = Counter(choices)
        n = len(choices)
        top = max(counts.values())
        modes = sorted(c for c, k in counts.items() if k == top)
        tied = len(modes) > 1
        if target is not None and target in modes:
            identified = not tied or majority_tie == "identified"
        else:
            identified = False
        n_correct = counts.get(target, 0) if target is not None else 0
        rows.append(
            {
                **dict(zip([*by, item], key, strict=True)),
                "n_judgements": n,
                "n_correct": n_correct,
                "ir": n_correct / n,
                "modal_count": top,
                "tied": tied,
                "majority_identified": int(identified),
                "agreement": top / n,
            }
        )
    columns = [
        *by,
        item,
        "n_judgements",
        "n_correct",
        "ir",
        "modal_count",
        "tied",
        "majority_identified",
        "agreement",
    ]
    return pd.DataFrame(rows, columns=columns)


def identification_rates(
    data: pd.DataFrame,
    *,
    choice: str = "choice",
    gold: str = "target_entity",
    item: str = "item",
    by: Sequence[str] = ("system",),
    majority_tie: str = "not_identified",
    aggregation: str = "mean_over_items",
) -> pd.DataFrame:
    """IR, MIR and agreement per group (REFERENCE.md §13).

    Parameters
    ----------
    data, choice, gold, item, majority_tie
        As :func:`item_identification`.
    by : sequence of str, default ("system",)
        The groups (a description is an item within a group).
    aggregation : {"mean_over_items", "pooled"}
        ``mean_over_items`` (default): IR and agreement are means of the
        per-item values; ``pooled``: IR = correct judgements / judgements and
        agreement = modal counts / judgements (micro-averages, as seed 000's
        Table 7 reports IR). MIR is always a mean over items.

    Returns
    -------
    pandas.DataFrame
        Columns ``*by``, ``n_items``, ``n_judgements``, ``ir``, ``mir``,
        ``agreement``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item": ["i1"] * 5 + ["i2"] * 5, "system": "S",
    ...     "choice": list("ggxgy") + list("xxggy"), "target_entity": "g"})
    >>> identification_rates(df).round(6).to_dict("records")
    [{'system': 'S', 'n_items': 2, 'n_judgements': 10, 'ir': 0.5, 'mir': 0.5, 'agreement': 0.5}]
    """  # noqa: E501
    import pandas as pd

    _check("aggregation", aggregation, IDENT_AGGREGATIONS)
    per_item = item_identification(
        data, choice=choice, gold=gold, item=item, by=by, majority_tie=majority_tie
    )
    rows = []
    for key, frame in _groups(per_item, by):
        n_items = len(frame)
        judgements = int(frame["n_judgements"].sum())
        if aggregation == "pooled":
            ir = frame["n_correct"].sum() / judgements if judgements else math.nan
            agreement = (
                frame["modal_count"].sum() / judgements if judgements else math.nan
            )
        else:
            ir = float(frame["ir"].mean()) if n_items else math.nan
            agreement = float(frame["agreement"].mean()) if n_items else math.nan
        rows.append(
            {
                **dict(zip(by, key, strict=True)),
                "n_items": n_items,
                "n_judgements": judgements,
                "ir": float(ir),
                "mir": float(frame["majority_identified"].mean())
                if n_items
                else math.nan,
                "agreement": float(agreement),
            }
        )
    columns = [*by, "n_items", "n_judgements", "ir", "mir", "agreement"]
    return pd.DataFrame(rows, columns=columns)


def identification_summary(
    data: pd.DataFrame,
    *,
    by: Sequence[str] = ("system",),
    correct: str = "correct",
    times: Sequence[str] = (
        "reading_time_adj_ms",
        "identification_time_adj_ms",
        "rt_adj_ms",
    ),
    time_mask: str | None = "in_time_analysis",
) -> pd.DataFrame:
    """Identification accuracy, error rate and times per group.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per trial in the analysis.
    by : sequence of str
        Grouping columns.
    correct : str
        0/1 or boolean column; missing values (a time-out kept as an error has
        ``correct`` missing) count as not identified.
    times : sequence of str
        Time columns to describe (mean, SD, n).
    time_mask : str or None
        Boolean column selecting the trials whose times count.

    Returns
    -------
    pandas.DataFrame
        Columns ``*by``, ``n_trials``, ``n_correct``, ``accuracy``,
        ``error_rate``, then ``<t>_mean``, ``<t>_sd``, ``<t>_n`` per time column.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"system": ["A"] * 4, "correct": [True, True, False, None],
    ...                    "identification_time_adj_ms": [900.0, 1100, 1000, None],
    ...                    "in_time_analysis": [True, True, True, False]})
    >>> r = identification_summary(df, times=["identification_time_adj_ms"])
    >>> r[["accuracy", "error_rate", "identification_time_adj_ms_mean"]].values.tolist()
    [[0.5, 0.5, 1000.0]]
    """  # noqa: E501
    import pandas as pd

    rows = []
    for key, frame in _groups(data, by):
        hits = frame[correct].map(lambda v: 0 if is_missing(v) else int(bool(v)))
        n = len(frame)
        row: dict[str, Any] = {
            **dict(zip(by, key, strict=True)),
            "n_trials": n,
            "n_correct": int(hits.sum()),
            "accuracy": float(hits.mean()) if n else math.nan,
            "error_rate": 1 - float(hits.mean()) if n else math.nan,
        }
        timed = frame
        if time_mask is not None and time_mask in frame:
            timed = frame[
                frame[time_mask].map(lambda v: bool(v) if not is_missing(v) else False)
            ]
        for column in times:
            stats = describe(timed, column).iloc[0]
            row[f"{column}_mean"] = stats["mean"]
            row[f"{column}_sd"] = stats["sd"]
            row[f"{column}_n"] = int(stats["n"])
        rows.append(row)
    columns = [*by, "n_trials", "n_correct", "accuracy", "error_rate"]
    for column in times:
        columns += [f"{column}_mean", f"{column}_sd", f"{column}_n"]
    return pd.DataFrame(rows, columns=columns)


def rating_summary(
    data: pd.DataFrame,
    *,
    by: Sequence[str] = ("system",),
    dvs: Sequence[str] = ("adequacy", "fluency"),
) -> pd.DataFrame:
    """Mean, SD and n of the ratings per group (seed 001, Table 6).

    Returns columns ``*by``, then ``<dv>_mean``, ``<dv>_sd``, ``<dv>_n``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"system": ["A", "A"], "adequacy": [80.0, 90.0],
    ...                    "fluency": [70.0, None]})
    >>> rating_summary(df).round(3).values.tolist()
    [['A', 85.0, 7.071, 2, 70.0, nan, 1]]
    """
    import pandas as pd

    rows = []
    for key, frame in _groups(data, by):
        row: dict[str, Any] = dict(zip(by, key, strict=True))
        for dv in dvs:
            stats = describe(frame, dv).iloc[0]
            row[f"{dv}_mean"] = stats["mean"]
            row[f"{dv}_sd"] = stats["sd"]
            row[f"{dv}_n"] = int(stats["n"])
        rows.append(row)
    columns = list(by)
    for dv in dvs:
        columns += [f"{dv}_mean", f"{dv}_sd", f"{dv}_n"]
    return pd.DataFrame(rows, columns=columns)


def study_measures(
    trials: pd.DataFrame,
    *,
    task: str,
    study: str | None = None,
    majority_tie: str = "not_identified",
    aggregation: str = "mean_over_items",
    overall: str = "all",
) -> pd.DataFrame:
    """Every measure per system, overall and per subdomain (seed 001 Tables 6, 8).

    Parameters
    ----------
    trials : pandas.DataFrame
        The judgments table (:data:`JUDGMENT_COLUMNS`); only ``in_analysis``
        rows count, and for times only ``in_time_analysis`` rows (adjusted
        times).
    task : {"rating", "identification"}
        Which measures to fill (the others stay missing).
    study : str, optional
        Copied to the ``study`` column.
    majority_tie, aggregation
        REFERENCE.md §13 options.
    overall : str, default "all"
        The ``subdomain`` label of the rows over all subdomains.

    Returns
    -------
    pandas.DataFrame
        :data:`MEASURE_COLUMNS`, sorted by system then subdomain (``all`` first);
        ``flags`` holds ``;``-separated codes (module docstring), ``""`` for none.
    """
    import pandas as pd

    def truthy(column: str) -> Any:
        return trials[column].map(lambda v: bool(v) if not is_missing(v) else False)

    data = trials[truthy("in_analysis")].copy()
    data["subdomain"] = data["subdomain"].map(
        lambda v: "unknown" if is_missing(v) else str(v)
    )
    rows: list[dict[str, Any]] = []
    scopes: list[tuple[str, pd.DataFrame]] = [(overall, data)]
    for subdomain in sorted(set(data["subdomain"])):
        scopes.append((subdomain, data[data["subdomain"] == subdomain]))
    for subdomain, frame in scopes:
        for system in sorted(set(frame["system"].dropna().astype(str))):
            part = frame[frame["system"].astype(str) == system]
            row: dict[str, Any] = dict.fromkeys(MEASURE_COLUMNS)
            row.update(
                study=study,
                task=task,
                system=system,
                subdomain=subdomain,
                n_trials=len(part),
                n_subjects=int(part["subject"].nunique()),
                n_items=int(part["item"].nunique()),
            )
            if identifies(task):
                _identification_row(row, part, majority_tie, aggregation)
            else:
                timed = part[part["in_time_analysis"].map(bool)]
                stats = describe(timed, "rt_adj_ms").iloc[0]
                row.update(
                    rt_mean_ms=stats["mean"], rt_sd_ms=stats["sd"], rt_n=int(stats["n"])
                )
                for dv in ("adequacy", "fluency"):
                    stats = describe(part, dv).iloc[0]
                    row.update(
                        {
                            f"{dv}_mean": stats["mean"],
                            f"{dv}_sd": stats["sd"],
                            f"{dv}_n": int(stats["n"]),
                        }
                    )
            rows.append(row)
    out = pd.DataFrame(rows, columns=list(MEASURE_COLUMNS))
    for column in MEASURE_COLUMNS[4:-1]:  # not applicable: NaN, not None
        out[column] = pd.to_numeric(out[column], errors="coerce")
    out["flags"] = out["flags"].fillna("").astype(str)
    _flag_constant(out, overall)
    if len(out):
        out["_o"] = (out["subdomain"] != overall).astype(int)
        out = out.sort_values(["system", "_o", "subdomain"], kind="stable").drop(
            columns="_o"
        )
    return out.reset_index(drop=True)


def _is_constant(values: Any) -> bool:
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    scale = max(1.0, float(np.max(np.abs(x)))) if x.size else 1.0
    return x.size >= 2 and float(np.ptp(x)) <= 1e-12 * scale


def _add_flag(flags: str, flag: str) -> str:
    return ";".join(sorted({*filter(None, flags.split(";")), flag}))


def _flag_constant(out: pd.DataFrame, overall: str) -> None:
    """Flag the measures equal for every system on the rows over all subdomains."""
    rows = out["subdomain"] == overall
    if rows.sum() < 2:
        return
    for column in MEASURE_NAMES:
        if _is_constant(out.loc[rows, column]):
            out.loc[rows, "flags"] = [
                _add_flag(f, f"constant:{column}") for f in out.loc[rows, "flags"]
            ]


def measure_flags(measures: pd.DataFrame, *, overall: str = "all") -> list[dict]:
    """The flags of a measures table as plain sentences, for the summary and report.

    Parameters
    ----------
    measures : pandas.DataFrame
        The result of :func:`study_measures` (or its TSV read back).
    overall : str, default "all"
        The ``subdomain`` label of the rows over all subdomains (the only rows
        read).

    Returns
    -------
    list of dict
        ``{"flag": "single_judgment", "measures": ["mir", "agreement"],
        "systems": [...], "text": ...}`` when descriptions were judged once,
        then one ``{"flag": "constant", "measure": <column>, "value": v,
        "text": ...}`` per constant measure (agreement left out when one
        judgment per description already explains it). Empty when nothing is
        flagged.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"system": ["A", "B"], "subdomain": "all",
    ...     "flags": ["constant:accuracy;single_judgment"] * 2,
    ...     "accuracy": [1.0, 1.0]})
    >>> for flag in measure_flags(table):
    ...     print(flag["text"])
    Every description (an item described by a system) was judged by one participant only, so the majority identification rate (MIR) equals the identification rate (IR) and agreement is 1.00 by construction: they say nothing of their own. They need several judgments per description.
    Identification accuracy is 1.00 for every system: it does not tell the systems apart, and its correlation with any other measure is undefined.
    """  # noqa: E501
    import pandas as pd

    if "flags" not in measures or not len(measures):
        return []
    rows = measures[measures["subdomain"].astype(str) == overall]
    flags = {
        str(system): set(filter(None, str(f or "").split(";")))
        for system, f in zip(rows["system"], rows["flags"], strict=True)
    }
    out: list[dict] = []
    single = sorted(s for s, f in flags.items() if "single_judgment" in f)
    if single:
        if len(single) == len(flags):
            who = "Every description (an item described by a system) was"
        else:
            who = (
                f"Every description of {', '.join(single)} (an item described by"
                " that system) was"
            )
        out.append(
            {
                "flag": "single_judgment",
                "measures": ["mir", "agreement"],
                "systems": single,
                "text": f"{who} judged by one participant only, so the majority"
                " identification rate (MIR) equals the identification rate (IR)"
                " and agreement is 1.00 by construction: they say nothing of"
                " their own. They need several judgments per description.",
            }
        )
    every = set.intersection(*flags.values()) if flags else set()
    for column in MEASURE_NAMES:
        if f"constant:{column}" not in every:
            continue
        if column == "agreement" and single:
            continue  # 1 by construction, said above
        values = [
            float(v)
            for v in pd.to_numeric(rows[column], errors="coerce")
            if np.isfinite(float(v))
        ]
        out.append(
            {
                "flag": "constant",
                "measure": column,
                "value": values[0],
                "text": f"{MEASURE_NAMES[column]} is {values[0]:.2f} for every"
                " system: it does not tell the systems apart, and its correlation"
                " with any other measure is undefined.",
            }
        )
    return out


def _identification_row(
    row: dict[str, Any], part: pd.DataFrame, majority_tie: str, aggregation: str
) -> None:
    summary = identification_summary(
        part,
        by=(),
        times=("reading_time_adj_ms", "identification_time_adj_ms", "rt_adj_ms"),
    ).iloc[0]
    row.update(
        accuracy=summary["accuracy"],
        error_rate=summary["error_rate"],
        n_correct=int(summary["n_correct"]),
        n_timeouts=int(
            part["timeout"].map(lambda v: bool(v) if not is_missing(v) else False).sum()
        ),
        n_cant_tell=int(
            part["cant_tell"]
            .map(lambda v: bool(v) if not is_missing(v) else False)
            .sum()
        ),
    )
    for name in ("reading_time", "identification_time", "rt"):
        row[f"{name}_mean_ms"] = summary[f"{name}_adj_ms_mean"]
        row[f"{name}_sd_ms"] = summary[f"{name}_adj_ms_sd"]
        row[f"{name}_n"] = int(summary[f"{name}_adj_ms_n"])
    rates = identification_rates(
        part,
        by=(),
        majority_tie=majority_tie,
        aggregation=aggregation,
    )
    if len(rates):
        first = rates.iloc[0]
        row.update(
            ir=float(first["ir"]),
            mir=float(first["mir"]),
            agreement=float(first["agreement"]),
        )
        if first["n_items"] and first["n_judgements"] == first["n_items"]:
            row["flags"] = "single_judgment"  # MIR = IR, agreement = 1

"""Measures of a situated-dialogue identification study, as seed 000 defines them.

Seed 000 (Spanger et al., REX-J Tangram study, §5.2-5.3) shows evaluators a
replayable clip of the dialogue before a referring expression, then the utterance;
they click a piece or "I don't know". Its trials belong to four instance classes of
the intrinsic evaluation: ``TP`` and ``FN`` (the corpus expression, a demonstrative
pronoun, shown to every evaluator), ``FP-Orig`` (a false positive shown with the
corpus's original expression) and ``FP-system`` (the same instance with the
system's pronoun; the seed's "FP-DP"), each FP instance seen by one group in each
form. This module computes, per class, the seed's Tables 7-9:

* **IR**, identification rate, micro-averaged: correct responses / all responses
  of the class (an "I don't know" is a response, and not correct), with both
  counts (Table 7, first two rows).
* **MIR**, majority identification rate: instances whose majority of evaluators
  chose the correct target / instances, with both counts (Table 7). "Majority"
  is more than half of the evaluators who saw the instance (``majority=
  "strict"``, the seed's wording); ``"plurality"`` asks only that the target be
  the unique most chosen answer, "I don't know" counting as an answer.
* **Agreement score** (§5.3.1): over the instances whose majority chose the
  correct target only, the share of the evaluators who saw the instance (34 for
  TP and FN, 17 for each FP form in the seed) that chose the correct target;
  mean and SD over those instances.
* **IT**, identification time (Table 8): from the onset of the utterance to the
  click, reading included (§5.2); mean and SD over trials, trials whose answer
  was corrected after a declared mis-click excluded (§5.3). Over all responses
  and over correct ones (``scope``), as the seed does not say which Table 8 uses.
* **Replays** (Table 9): times the clip was replayed, mean and SD per trial
  (corrected trials kept: the seed excludes them from IT only), with the number of
  trials replayed at least once.

SDs are sample SDs (ddof 1, as :mod:`stecflow.judgments.measures`), NaN below two
values. Evaluators whose session failed part-way are discarded before anything is
computed, and listed with the reason (:func:`discard_failed_sessions`; the seed
discarded 2 of 36 after a system failure).

How the agreement differs from :mod:`stecflow.judgments.measures`: there,
``Agreement(i)`` is the share of evaluators choosing the *modal* answer, whatever
it is (correct or not), and the system value is a mean over *all* items, with no
SD. Seed 000's agreement counts only choices of the *correct* target and only on
instances whose majority was correct, and reports mean and SD. Its MIR is also
the strict "more than half" by default, where ``measures`` takes the mode. The
functions of ``measures`` are unchanged.

Input is a tidy trials table, one row per trial, with the columns of
:data:`TRIAL_COLUMNS` (``correct`` may be left out or missing: it is then
``chosen == target`` and not "I don't know"); outputs are tidy DataFrames.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.metrics`,
:mod:`stecflow.stats`, :mod:`stecflow.tasks`, :mod:`stecflow.studies`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from stecflow.judgments._common import JudgmentsError, is_missing

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "CLASSES",
    "DISCARD_COLUMNS",
    "IDENTIFICATION_COLUMNS",
    "INSTANCE_COLUMNS",
    "MAJORITY_RULES",
    "REPLAY_COLUMNS",
    "SCOPES",
    "TIME_COLUMNS",
    "TRIAL_COLUMNS",
    "SituatedMeasures",
    "discard_failed_sessions",
    "evaluator_table",
    "identification_table",
    "instance_table",
    "replay_table",
    "situated_measures",
    "time_table",
]

#: The instance classes in the seed's column order (Table 7).
CLASSES = ("TP", "FN", "FP-Orig", "FP-system")
#: Values of ``majority``.
MAJORITY_RULES = ("strict", "plurality")
#: Values in ``scopes``: every response, or correct responses only.
SCOPES = ("all", "correct")

#: Columns of the trials table (``correct`` optional, see the module docstring).
TRIAL_COLUMNS = (
    "subject",
    "instance",
    "class",
    "chosen",
    "target",
    "correct",
    "cant_tell",
    "time_ms",
    "replays",
    "corrected",
    "session_status",
)
#: Columns of :func:`discard_failed_sessions`'s record.
DISCARD_COLUMNS = ("subject", "session_status", "n_trials", "reason")
#: Columns of :func:`instance_table`.
INSTANCE_COLUMNS = (
    "class",
    "instance",
    "target",
    "n_responses",
    "n_correct",
    "n_cant_tell",
    "ir",
    "majority_identified",
    "agreement",
)
#: Columns of :func:`identification_table` (Table 7).
IDENTIFICATION_COLUMNS = (
    "class",
    "n_evaluators",
    "n_responses",
    "n_correct",
    "n_cant_tell",
    "ir",
    "n_instances",
    "n_majority",
    "mir",
    "agreement_mean",
    "agreement_sd",
    "agreement_n",
)
#: Columns of :func:`time_table` (Table 8).
TIME_COLUMNS = (
    "class",
    "scope",
    "n_trials",
    "n_corrected_excluded",
    "it_n",
    "it_mean_ms",
    "it_sd_ms",
)
#: Columns of :func:`replay_table` (Table 9).
REPLAY_COLUMNS = (
    "class",
    "scope",
    "n_trials",
    "n_replayed",
    "replays_total",
    "replays_mean",
    "replays_sd",
)

_REQUIRED = ("subject", "instance", "class", "target", "cant_tell")


def _flag(value: Any) -> bool:
    return False if is_missing(value) else bool(value)


def _mean_sd(values: Sequence[float]) -> tuple[float, float]:
    n = len(values)
    if not n:
        return math.nan, math.nan
    mean = math.fsum(values) / n
    if n < 2:
        return mean, math.nan
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var)


def _check_columns(trials: pd.DataFrame, needed: Sequence[str]) -> None:
    missing = [c for c in needed if c not in trials.columns]
    if missing:
        raise JudgmentsError(
            f"the trials table lacks the column(s) {', '.join(missing)}",
            field=missing[0],
        )


def _prepare(trials: pd.DataFrame, classes: Sequence[str]) -> pd.DataFrame:
    """Normalise the trials: string keys, boolean flags, derived ``correct``."""
    import pandas as pd

    _check_columns(trials, _REQUIRED)
    data = trials.copy()
    for column in ("subject", "instance", "class", "target"):
        data[column] = data[column].map(lambda v: None if is_missing(v) else str(v))
    unknown = sorted({c for c in data["class"] if c not in classes}, key=str)
    if unknown:
        raise JudgmentsError(
            f"unknown instance class(es) {', '.join(map(str, unknown))}; expected"
            f" {', '.join(classes)}",
            field="class",
        )
    data["cant_tell"] = data["cant_tell"].map(_flag)
    data["corrected"] = data["corrected"].map(_flag) if "corrected" in data else False
    chosen = data["chosen"] if "chosen" in data else pd.Series(None, index=data.index)
    derived = [
        (not ct) and not is_missing(c) and str(c) == t
        for c, t, ct in zip(chosen, data["target"], data["cant_tell"], strict=True)
    ]
    if "correct" in data:
        data["correct"] = [
            d if is_missing(v) else bool(v) and not ct
            for v, d, ct in zip(
                data["correct"], derived, data["cant_tell"], strict=True
            )
        ]
    else:
        data["correct"] = derived
    data["chosen"] = [None if is_missing(c) else str(c) for c in chosen]
    for column in ("time_ms", "replays"):
        data[column] = (
            pd.to_numeric(data[column], errors="coerce") if column in data else math.nan
        )
    keys = data[["subject", "class", "instance"]]
    twice = keys[keys.duplicated()]
    if len(twice):
        s, c, i = twice.iloc[0]
        raise JudgmentsError(
            f"subject {s} answered instance {i} ({c}) more than once", field="instance"
        )
    return data


def discard_failed_sessions(
    trials: pd.DataFrame,
    *,
    complete: Sequence[str] = ("completed",),
    expected_trials: int | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Drop the evaluators whose session failed part-way, and say who and why.

    Parameters
    ----------
    trials : pandas.DataFrame
        One row per trial with ``subject`` and ``session_status`` (the statuses
        of :mod:`stecflow.studies.server`: ``completed``, ``in_progress``,
        ``abandoned``; DMDX's ``aborted``).
    complete : sequence of str, default ("completed",)
        Statuses of a session that ran to its end.
    expected_trials : int, optional
        Trials each evaluator should have answered (76 in the seed); an evaluator
        with fewer is discarded too, whatever the status says.

    Returns
    -------
    (kept, discarded) : tuple of pandas.DataFrame
        *kept*: the trials of the other evaluators. *discarded*: one row per
        discarded evaluator, :data:`DISCARD_COLUMNS`, sorted by subject.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"subject": ["a", "a", "b"],
    ...                   "session_status": ["completed", "completed", "abandoned"]})
    >>> kept, gone = discard_failed_sessions(t, expected_trials=2)
    >>> sorted(set(kept["subject"])), gone["reason"].tolist()
    (['a'], ['session abandoned; answered 1 of 2 trials'])
    """
    import pandas as pd

    _check_columns(trials, ("subject", "session_status"))
    subjects = trials["subject"].map(lambda v: None if is_missing(v) else str(v))
    rows = []
    for subject in sorted(set(subjects.dropna())):
        mine = trials[subjects == subject]
        statuses = sorted({str(s) for s in mine["session_status"] if not is_missing(s)})
        reasons = []
        bad = [s for s in statuses if s not in complete]
        if bad or not statuses:
            reasons.append(
                f"session {'/'.join(bad)}" if bad else "session status unknown"
            )
        if expected_trials is not None and len(mine) < expected_trials:
            reasons.append(f"answered {len(mine)} of {expected_trials} trials")
        if reasons:
            rows.append(
                {
                    "subject": subject,
                    "session_status": "/".join(statuses),
                    "n_trials": len(mine),
                    "reason": "; ".join(reasons),
                }
            )
    discarded = pd.DataFrame(rows, columns=list(DISCARD_COLUMNS))
    kept = trials[~subjects.isin(set(discarded["subject"]))].reset_index(drop=True)
    return kept, discarded


def _majority(frame: pd.DataFrame, rule: str) -> bool:
    n = len(frame)
    n_correct = int(frame["correct"].sum())
    if rule == "strict":
        return 2 * n_correct > n
    answers = Counter(
        "\0cant_tell" if ct else ("\0none" if c is None else c)
        for c, ct in zip(frame["chosen"], frame["cant_tell"], strict=True)
    )
    target = frame["target"].iloc[0]
    top = max(answers.values())
    modes = [a for a, k in answers.items() if k == top]
    return modes == [target] and n_correct == top


def _check_rule(majority: str) -> None:
    if majority not in MAJORITY_RULES:
        raise JudgmentsError(
            f"{majority!r} is not one of {', '.join(MAJORITY_RULES)}",
            field="majority",
        )


def _ordered(data: pd.DataFrame, classes: Sequence[str]) -> list[tuple[str, Any]]:
    present = set(data["class"])
    return [(c, data[data["class"] == c]) for c in classes if c in present]


def instance_table(
    trials: pd.DataFrame,
    *,
    classes: Sequence[str] = CLASSES,
    majority: str = "strict",
) -> pd.DataFrame:
    """Per-instance identification: IR, majority and the seed's agreement.

    Parameters
    ----------
    trials : pandas.DataFrame
        The trials (:data:`TRIAL_COLUMNS`), failed sessions already discarded.
    classes : sequence of str, default :data:`CLASSES`
        The instance classes, in output order; any other class is an error.
    majority : {"strict", "plurality"}, default "strict"
        More than half of the evaluators correct (the seed), or the target the
        unique most chosen answer.

    Returns
    -------
    pandas.DataFrame
        :data:`INSTANCE_COLUMNS`, one row per class and instance (classes in
        *classes* order, instances sorted); ``agreement`` is
        ``n_correct / n_responses`` where ``majority_identified``, else NaN.

    Raises
    ------
    JudgmentsError
        A column is missing, a class is unknown, an evaluator answered an
        instance twice, or an instance has several targets.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"subject": list("abc") * 2, "class": "TP",
    ...     "instance": ["i1"] * 3 + ["i2"] * 3, "target": "3",
    ...     "chosen": ["3", "3", "5", "3", "5", None],
    ...     "cant_tell": [False] * 5 + [True]})
    >>> instance_table(t)[["instance", "n_correct", "ir", "majority_identified",
    ...     "agreement"]].round(4).values.tolist()
    [['i1', 2, 0.6667, True, 0.6667], ['i2', 1, 0.3333, False, nan]]
    """
    import pandas as pd

    _check_rule(majority)
    data = _prepare(trials, classes)
    rows = []
    for cls, frame in _ordered(data, classes):
        for instance in sorted(set(frame["instance"])):
            part = frame[frame["instance"] == instance]
            targets = sorted({t for t in part["target"] if t is not None})
            if len(targets) > 1:
                raise JudgmentsError(
                    f"instance {instance} ({cls}) has several targets"
                    f" ({', '.join(targets)})",
                    field="target",
                )
            n = len(part)
            n_correct = int(part["correct"].sum())
            identified = _majority(part, majority)
            rows.append(
                {
                    "class": cls,
                    "instance": instance,
                    "target": targets[0] if targets else None,
                    "n_responses": n,
                    "n_correct": n_correct,
                    "n_cant_tell": int(part["cant_tell"].sum()),
                    "ir": n_correct / n,
                    "majority_identified": identified,
                    "agreement": n_correct / n if identified else math.nan,
                }
            )
    return pd.DataFrame(rows, columns=list(INSTANCE_COLUMNS))


def identification_table(
    trials: pd.DataFrame,
    *,
    classes: Sequence[str] = CLASSES,
    majority: str = "strict",
) -> pd.DataFrame:
    """Seed 000's Table 7 per class: IR and MIR with counts, agreement mean and SD.

    Returns
    -------
    pandas.DataFrame
        :data:`IDENTIFICATION_COLUMNS`, one row per class present, in *classes*
        order. ``ir = n_correct / n_responses`` (micro-average), ``mir =
        n_majority / n_instances``, ``agreement_*`` over the ``agreement_n``
        instances whose majority was correct.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"subject": list("abc") * 2, "class": "TP",
    ...     "instance": ["i1"] * 3 + ["i2"] * 3, "target": "3",
    ...     "chosen": ["3", "3", "5", "3", "3", "3"], "cant_tell": False})
    >>> r = identification_table(t).round(4).to_dict("records")[0]
    >>> r["n_correct"], r["n_responses"], r["ir"], r["n_majority"], r["mir"]
    (5, 6, 0.8333, 2, 1.0)
    >>> r["agreement_mean"], r["agreement_sd"]
    (0.8333, 0.2357)
    """
    import pandas as pd

    per_instance = instance_table(trials, classes=classes, majority=majority)
    data = _prepare(trials, classes)
    rows = []
    for cls, frame in _ordered(data, classes):
        inst = per_instance[per_instance["class"] == cls]
        agreement = [float(a) for a in inst["agreement"] if not math.isnan(a)]
        mean, sd = _mean_sd(agreement)
        n_instances = len(inst)
        n_majority = int(inst["majority_identified"].sum())
        rows.append(
            {
                "class": cls,
                "n_evaluators": int(frame["subject"].nunique()),
                "n_responses": len(frame),
                "n_correct": int(frame["correct"].sum()),
                "n_cant_tell": int(frame["cant_tell"].sum()),
                "ir": float(frame["correct"].mean()),
                "n_instances": n_instances,
                "n_majority": n_majority,
                "mir": n_majority / n_instances,
                "agreement_mean": mean,
                "agreement_sd": sd,
                "agreement_n": len(agreement),
            }
        )
    return pd.DataFrame(rows, columns=list(IDENTIFICATION_COLUMNS))


def _check_scopes(scopes: Sequence[str]) -> None:
    for scope in scopes:
        if scope not in SCOPES:
            raise JudgmentsError(
                f"{scope!r} is not one of {', '.join(SCOPES)}", field="scopes"
            )


def _scoped(frame: pd.DataFrame, scope: str) -> pd.DataFrame:
    return frame[frame["correct"]] if scope == "correct" else frame


def time_table(
    trials: pd.DataFrame,
    *,
    classes: Sequence[str] = CLASSES,
    scopes: Sequence[str] = SCOPES,
) -> pd.DataFrame:
    """Seed 000's Table 8 per class: identification time, mean and SD (ms).

    Trials whose answer was corrected after a declared mis-click are excluded
    (seed §5.3), and so are trials without a time.

    Returns
    -------
    pandas.DataFrame
        :data:`TIME_COLUMNS`, one row per class and scope: ``n_trials`` trials
        in the scope, ``n_corrected_excluded`` of them corrected, ``it_n`` times
        averaged.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"subject": list("abc"), "class": "FN", "instance": "i",
    ...     "target": "1", "chosen": ["1", "1", "2"], "cant_tell": False,
    ...     "time_ms": [2000.0, 4000.0, 9000.0], "corrected": [False, False, True]})
    >>> time_table(t)[["scope", "it_n", "it_mean_ms", "n_corrected_excluded"]
    ...     ].round(1).values.tolist()
    [['all', 2, 3000.0, 1], ['correct', 2, 3000.0, 0]]
    """
    import pandas as pd

    _check_scopes(scopes)
    data = _prepare(trials, classes)
    rows = []
    for cls, frame in _ordered(data, classes):
        for scope in scopes:
            part = _scoped(frame, scope)
            kept = part[~part["corrected"]]
            times = [float(t) for t in kept["time_ms"] if not math.isnan(t)]
            mean, sd = _mean_sd(times)
            rows.append(
                {
                    "class": cls,
                    "scope": scope,
                    "n_trials": len(part),
                    "n_corrected_excluded": int(part["corrected"].sum()),
                    "it_n": len(times),
                    "it_mean_ms": mean,
                    "it_sd_ms": sd,
                }
            )
    return pd.DataFrame(rows, columns=list(TIME_COLUMNS))


def replay_table(
    trials: pd.DataFrame,
    *,
    classes: Sequence[str] = CLASSES,
    scopes: Sequence[str] = SCOPES,
) -> pd.DataFrame:
    """Seed 000's Table 9 per class: replays of the clip per trial, mean and SD.

    Returns
    -------
    pandas.DataFrame
        :data:`REPLAY_COLUMNS`, one row per class and scope; trials without a
        replay count are left out of ``n_trials`` and the statistics.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"subject": list("abc"), "class": "TP", "instance": "i",
    ...     "target": "1", "chosen": ["1", "1", "2"], "cant_tell": False,
    ...     "replays": [0, 2, 4]})
    >>> replay_table(t)[["scope", "n_replayed", "replays_total", "replays_mean"]
    ...     ].values.tolist()
    [['all', 2, 6.0, 2.0], ['correct', 1, 2.0, 1.0]]
    """
    import pandas as pd

    _check_scopes(scopes)
    data = _prepare(trials, classes)
    rows = []
    for cls, frame in _ordered(data, classes):
        for scope in scopes:
            part = _scoped(frame, scope)
            counts = [float(r) for r in part["replays"] if not math.isnan(r)]
            mean, sd = _mean_sd(counts)
            rows.append(
                {
                    "class": cls,
                    "scope": scope,
                    "n_trials": len(counts),
                    "n_replayed": sum(1 for r in counts if r > 0),
                    "replays_total": math.fsum(counts),
                    "replays_mean": mean,
                    "replays_sd": sd,
                }
            )
    return pd.DataFrame(rows, columns=list(REPLAY_COLUMNS))


def evaluator_table(
    trials: pd.DataFrame, *, classes: Sequence[str] = CLASSES
) -> pd.DataFrame:
    """Per evaluator and class: IR, mean IT and mean replays (for paired tests).

    The seed's t-tests are paired over evaluators (``t(33)`` with 34 of them);
    this is their input. IT excludes corrected trials, as in :func:`time_table`.

    Returns
    -------
    pandas.DataFrame
        Columns ``subject``, ``class``, ``n_responses``, ``n_correct``, ``ir``,
        ``it_n``, ``it_mean_ms``, ``replays_mean``; sorted by subject, then
        class in *classes* order.
    """
    import pandas as pd

    data = _prepare(trials, classes)
    rows = []
    for subject in sorted(set(data["subject"])):
        mine = data[data["subject"] == subject]
        for cls, frame in _ordered(mine, classes):
            times = [
                float(t)
                for t in frame.loc[~frame["corrected"], "time_ms"]
                if not math.isnan(t)
            ]
            replays = [float(r) for r in frame["replays"] if not math.isnan(r)]
            rows.append(
                {
                    "subject": subject,
                    "class": cls,
                    "n_responses": len(frame),
                    "n_correct": int(frame["correct"].sum()),
                    "ir": float(frame["correct"].mean()),
                    "it_n": len(times),
                    "it_mean_ms": _mean_sd(times)[0],
                    "replays_mean": _mean_sd(replays)[0],
                }
            )
    columns = [
        "subject",
        "class",
        "n_responses",
        "n_correct",
        "ir",
        "it_n",
        "it_mean_ms",
        "replays_mean",
    ]
    return pd.DataFrame(rows, columns=columns)


@dataclass(frozen=True)
class SituatedMeasures:
    """Every table of :func:`situated_measures`.

    Attributes
    ----------
    identification, times, replays : pandas.DataFrame
        Seed 000's Tables 7, 8 and 9 (:func:`identification_table`,
        :func:`time_table`, :func:`replay_table`).
    instances : pandas.DataFrame
        :func:`instance_table`; its ``FP-system`` rows give the counts
        :func:`stecflow.metrics.classification.rescore_false_positives` needs.
    evaluators : pandas.DataFrame
        :func:`evaluator_table`.
    discarded : pandas.DataFrame
        The evaluators left out, and why (:data:`DISCARD_COLUMNS`).
    """

    identification: pd.DataFrame
    times: pd.DataFrame
    replays: pd.DataFrame
    instances: pd.DataFrame
    evaluators: pd.DataFrame
    discarded: pd.DataFrame

    def fp_rescoring_counts(self, fp_class: str = "FP-system") -> tuple[int, int]:
        """(tested, identified): FP instances shown with the system's expression,
        and those whose majority identified the target."""
        inst = self.instances[self.instances["class"] == fp_class]
        return len(inst), int(inst["majority_identified"].sum())


def situated_measures(
    trials: pd.DataFrame,
    *,
    classes: Sequence[str] = CLASSES,
    majority: str = "strict",
    scopes: Sequence[str] = SCOPES,
    complete: Sequence[str] = ("completed",),
    expected_trials: int | None = None,
) -> SituatedMeasures:
    """Discard failed sessions, then compute Tables 7-9 and the per-instance table.

    Parameters are those of :func:`discard_failed_sessions`,
    :func:`instance_table` and :func:`time_table`; the trials need
    ``session_status``.
    """
    _check_rule(majority)
    _check_scopes(scopes)
    kept, discarded = discard_failed_sessions(
        trials, complete=complete, expected_trials=expected_trials
    )
    return SituatedMeasures(
        identification=identification_table(kept, classes=classes, majority=majority),
        times=time_table(kept, classes=classes, scopes=scopes),
        replays=replay_table(kept, classes=classes, scopes=scopes),
        instances=instance_table(kept, classes=classes, majority=majority),
        evaluators=evaluator_table(kept, classes=classes),
        discarded=discarded,
    )

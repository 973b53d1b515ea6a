"""The clips of a situated study (seed 000 §5.1): their list and their durations.

A trial of seed 000's study plays a clip of the shared work area "from the
context start" (the earlier of the last mention of and the last action on the
target, at most ``max_context_ms`` before the utterance:
:func:`stecflow.data.dialogue.context_start`) to just before the utterance, then
shows the utterance; the seed reports "the average time of a video clip was
15.2 s (SD = 7.9 s)". This module owns:

* :func:`clip_rows`: one row per instance a study shows (:data:`CLIP_COLUMNS`):
  its session, class, the clip's ``start_ms`` and ``end_ms`` in session time,
  ``duration_ms`` and ``utterance_onset_ms`` (the clip ends at the onset, so
  ``end_ms`` equals it; both are listed so that the file says so);
* :func:`clip_summary`: n, mean, SD (sample SD, ddof = 1), min and max of the
  durations, over all instances shown and per class (FP, TP, FN), as
  ``design.json`` records them under ``clips`` and the report prints them.

No I/O: the instance table in, rows and numbers out.

May import: the standard library (pandas tables are read, not imported).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["CLIP_COLUMNS", "CLIP_CLASSES", "clip_rows", "clip_summary"]

#: Columns of ``studies/<study>/clips.tsv``, in order (times in ms, session time).
CLIP_COLUMNS = (
    "instance",
    "session",
    "class",
    "start_ms",
    "end_ms",
    "duration_ms",
    "utterance_onset_ms",
)

#: The classes a situated study shows, in the order the summary lists them.
CLIP_CLASSES = ("FP", "TP", "FN")


def _ms(value: Any) -> int:
    number = float(value)
    if math.isnan(number):
        raise ValueError("missing time")
    return int(round(number))


def clip_rows(table: Any, instances: Iterable[str]) -> list[dict[str, Any]]:
    """The clip of every instance in *instances*, sorted by instance ID.

    Parameters
    ----------
    table : pandas.DataFrame
        The instance table (:func:`.setup.situated_instances`): ``instance``,
        ``session``, ``class``, ``context_start_ms`` and ``utterance_start_ms``.
    instances : iterable of str
        The instances the study shows (each listed once, whatever the order).

    Returns
    -------
    list of dict
        Rows with :data:`CLIP_COLUMNS`; ``start_ms`` is the context start,
        ``end_ms`` and ``utterance_onset_ms`` the utterance's onset,
        ``duration_ms = end_ms - start_ms``.

    Raises
    ------
    ValueError
        An instance not in *table*, or one without a context start (it cannot
        have been shown: :func:`.design.qualify_instances` refuses it).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"instance": ["b", "a"], "session": ["s1", "s2"],
    ...     "class": ["TP", "FP"], "context_start_ms": [1000.0, 2500.0],
    ...     "utterance_start_ms": [9000, 4000]})
    >>> [(r["instance"], r["start_ms"], r["end_ms"], r["duration_ms"])
    ...  for r in clip_rows(table, ["b", "a"])]
    [('a', 2500, 4000, 1500), ('b', 1000, 9000, 8000)]
    """
    by_id = {str(r["instance"]): r for r in table.to_dict(orient="records")}
    rows = []
    for instance in sorted(set(instances)):
        row = by_id.get(instance)
        if row is None:
            raise ValueError(f"instance {instance} is not in the instance table")
        try:
            start = _ms(row["context_start_ms"])
        except (TypeError, ValueError):
            raise ValueError(
                f"instance {instance} has no context start, so no clip"
            ) from None
        onset = _ms(row["utterance_start_ms"])
        rows.append(
            {
                "instance": instance,
                "session": str(row["session"]),
                "class": str(row["class"]),
                "start_ms": start,
                "end_ms": onset,
                "duration_ms": onset - start,
                "utterance_onset_ms": onset,
            }
        )
    return rows


def _describe(durations: Sequence[float]) -> dict[str, Any]:
    n = len(durations)
    return {
        "n": n,
        "mean_ms": statistics.fmean(durations) if n else None,
        "sd_ms": statistics.stdev(durations) if n > 1 else None,
        "min_ms": min(durations) if n else None,
        "max_ms": max(durations) if n else None,
    }


def clip_summary(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """n, mean, SD (ddof = 1), min and max of the clip durations, in ms.

    Returns ``{"n", "mean_ms", "sd_ms", "min_ms", "max_ms", "classes": {class:
    the same}}`` over the rows of :func:`clip_rows` (the classes of
    :data:`CLIP_CLASSES` first, then any other, sorted); None where a number is
    undefined (no clip; the SD of one clip).

    >>> s = clip_summary([{"class": "FP", "duration_ms": d} for d in (500, 520, 480)])
    >>> s["n"], s["mean_ms"], s["sd_ms"], s["min_ms"], s["max_ms"]
    (3, 500.0, 20.0, 480, 520)
    """
    rows = list(rows)
    durations = [r["duration_ms"] for r in rows]
    classes: dict[str, list[float]] = {}
    for r in rows:
        classes.setdefault(str(r["class"]), []).append(r["duration_ms"])
    order = [c for c in CLIP_CLASSES if c in classes] + sorted(
        set(classes) - set(CLIP_CLASSES)
    )
    return {
        **_describe(durations),
        "classes": {c: _describe(classes[c]) for c in order},
    }

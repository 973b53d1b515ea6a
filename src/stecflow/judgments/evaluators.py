"""The evaluators as a group: the questionnaire per question, and time on task.

TUNA-REG'09 (seed 001, §5.2-5.3) describes its evaluators in one sentence
(counts, ages, native speakers) and gives the time the experiment took.
:func:`evaluators_summary` computes both for one study from its merged session
table (``results/judgments/sessions/<study>.tsv``, :mod:`stecflow.judgments.sessions`),
its questionnaire (``experiment.questionnaire``,
:func:`stecflow.studies.screens.read_questionnaire`) and its exclusion audit
(``results/judgments/exclusions/<study>.tsv``); :func:`add_evaluators` writes it
into the study's judgments summary as ``evaluators``, which the report shows as
the study's subsection "Evaluators" (:mod:`stecflow.report.evaluators`).

Who is counted
    The *evaluators* are the participants (the session table's ``participant``,
    else its ``session``) with at least one ``completed`` session, less those an
    exclusion rule excluded (``excluded`` in the audit): they are counted
    separately (``excluded``), as are the participants who withdrew (their rows
    are already left out of the session table; the count is the judgments
    summary's ``withdrawals.withdrawn``) and those without a completed session
    (``not_completed``). A participant's answers are those of their first
    session with any answer (by start, then session ID).

The questionnaire per question
    A choice: the count of each option (in the questionnaire's order, zero
    counts included), then ``(other)`` for values not among them; yes/no:
    ``yes`` and ``no``; a number: its counts in bins of ``number_bin`` from the
    question's ``min`` (else 0), the bins the release's questionnaire counts
    use (:func:`stecflow.release.privacy.questionnaire_counts`), and ``n``,
    the first and last bins answered (``first_bin``, ``last_bin``) and the bin
    of the median (``median_bin``, of the lower median) -- or, for a field the
    release gives per participant (``release.personal_data.per_participant``),
    ``n``, ``median``, ``min`` and ``max`` themselves: the summary and the
    report are released, and the consent text promises numbers only in those
    bins;
    free text: only how many answered (never the answers: they can name a
    person, :mod:`stecflow.release.privacy`). Every question counts the
    evaluators who left it blank (``no_answer``).

The sentence
    :func:`evaluators_sentence`, the seed's kind, from the questions that exist,
    found by their field IDs: ``gender`` (a choice; options ``female``/``male``
    are written as women and men, others by their label), ``age`` (a number)
    and ``native`` (yes/no: native speakers of the campaign's language), e.g.
    "24 evaluators took part (13 women, 11 men), aged 18-47 (in bins of 10;
    median in 18-27); 22 native speakers of English."

Time on task
    Per completed session, from its start (``started_utc``: when the
    participant opened the study's page and the server created the session,
    before the consent screen) to its end (``ended_utc``: when the last screen
    was submitted and the session completed): the session table's
    ``duration_s``, else the difference of the two times. Over all completed
    sessions, excluded participants' included (they took the time too): ``n``,
    ``median``, ``min``, ``max`` and the 90th percentile by linear
    interpolation between order statistics (:data:`PERCENTILE_METHOD`: numpy's
    default ``linear``, ``statistics.quantiles(..., method="inclusive")``,
    Excel's ``PERCENTILE.INC``), in seconds.

Nothing here imports pandas or numpy.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

__all__ = [
    "PERCENTILE_METHOD",
    "add_evaluators",
    "evaluators_sentence",
    "evaluators_summary",
    "percentile",
    "time_on_task",
]

#: How the 90th percentile of the time on task is computed, in the words the
#: report prints.
PERCENTILE_METHOD = (
    "linear interpolation between order statistics (numpy's default 'linear',"
    " Excel's PERCENTILE.INC)"
)
#: The field IDs the sentence reads.
GENDER, AGE, NATIVE = "gender", "age", "native"
_WOMEN = {"female", "woman", "women", "f"}
_MEN = {"male", "man", "men", "m"}
_YES = {"true", "yes", "1", "y"}
_NO = {"false", "no", "0", "n"}


def _blank(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return not str(value).strip()


def _text(value: Any) -> str:
    from stecflow.core.io import restore_formula

    return restore_formula(str(value).strip())


def _number(value: float) -> int | float:
    """*value* as an int when whole (so JSON and the report write ``24``)."""
    return int(value) if float(value).is_integer() else round(float(value), 3)


def percentile(values: Sequence[float], q: float) -> float:
    """The *q*-th percentile (0-100) of *values* by linear interpolation between
    order statistics (numpy's default; :data:`PERCENTILE_METHOD`).

    >>> percentile([1, 2, 3, 4], 90)
    3.7
    >>> percentile([5], 90)
    5.0
    """
    ordered = sorted(float(v) for v in values)
    if not ordered:
        raise ValueError("no values")
    position = (len(ordered) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _who(row: Mapping[str, Any]) -> str:
    return str(row.get("participant") or row.get("session") or "")


def _seconds(row: Mapping[str, Any]) -> float | None:
    """A completed session's time on task in seconds, or None."""
    duration = row.get("duration_s")
    if not _blank(duration):
        try:
            value = float(str(duration))
        except ValueError:
            value = math.nan
        if math.isfinite(value) and value >= 0:
            return value
    start, end = row.get("started_utc"), row.get("ended_utc")
    if _blank(start) or _blank(end):
        return None
    try:
        parsed = [
            datetime.fromisoformat(str(t).strip().replace("Z", "+00:00"))
            for t in (start, end)
        ]
    except ValueError:
        return None
    seconds = (parsed[1] - parsed[0]).total_seconds()
    return seconds if seconds >= 0 else None


def time_on_task(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Time on task of the completed sessions among *rows*, in seconds.

    Returns ``n`` (completed sessions with a time) and, when ``n`` > 0,
    ``median``, ``min``, ``max`` and ``p90`` (:func:`percentile`), rounded to
    0.1 s; ``method`` names the percentile's method.

    >>> time_on_task([{"status": "completed", "duration_s": "600"},
    ...               {"status": "completed", "started_utc": "2026-01-01T10:00:00Z",
    ...                "ended_utc": "2026-01-01T10:20:00Z"},
    ...               {"status": "abandoned", "duration_s": ""}])["median"]
    900.0
    """
    times = [
        t
        for row in rows
        if str(row.get("status") or "") == "completed"
        and (t := _seconds(row)) is not None
    ]
    out: dict[str, Any] = {"n": len(times), "method": PERCENTILE_METHOD}
    if times:
        out.update(
            median=round(statistics.median(times), 1),
            min=round(min(times), 1),
            max=round(max(times), 1),
            p90=round(percentile(times, 90), 1),
        )
    return out


def _bin_label(low: float, width: int) -> str:
    """A bin's label, as the release's questionnaire counts write it."""
    if float(low).is_integer():
        return f"{int(low)}-{int(low) + width - 1}"
    return f"{low:g} to under {low + width:g}"


def _binned(numbers: Sequence[float], start: float, width: int) -> dict[float, int]:
    """The count of *numbers* per bin of *width* from *start*, by bin low."""
    out: dict[float, int] = {}
    for number in numbers:
        low = start + math.floor((number - start) / width) * width
        out[low] = out.get(low, 0) + 1
    return dict(sorted(out.items()))


def _question(
    field: Mapping[str, Any],
    screen: str,
    people: Sequence[Mapping],
    number_bin: int = 10,
    exact: Collection[str] = (),
) -> dict:
    column = f"{screen}.{field['id']}"
    kind = str(field.get("type") or "text")
    out: dict[str, Any] = {
        "field": column,
        "id": str(field["id"]),
        "type": kind,
        "question": str(field.get("question") or ""),
    }
    values = [None if _blank(p.get(column)) else _text(p.get(column)) for p in people]
    given = [v for v in values if v is not None]
    out["answered"] = len(given)
    out["no_answer"] = len(values) - len(given)
    counts: list[dict[str, Any]] = []
    other = 0
    if kind == "choice":
        options = list(field.get("options") or ())
        known = {str(o["value"]): 0 for o in options}
        for value in given:
            if value in known:
                known[value] += 1
            else:
                other += 1
        counts = [
            {
                "answer": str(o["value"]),
                "label": str(o["label"]),
                "count": known[str(o["value"])],
            }
            for o in options
        ]
    elif kind == "yes-no":
        yes = sum(1 for v in given if v.lower() in _YES)
        no = sum(1 for v in given if v.lower() in _NO)
        other = len(given) - yes - no
        counts = [
            {"answer": "yes", "label": "yes", "count": yes},
            {"answer": "no", "label": "no", "count": no},
        ]
    elif kind == "number":
        numbers = []
        for value in given:
            try:
                number = float(value)
            except ValueError:
                number = math.nan
            if math.isfinite(number):
                numbers.append(number)
            else:
                other += 1
        out["numbers"] = {"n": len(numbers)}
        start = float(field.get("min") or 0)
        bins = _binned(numbers, start, number_bin)
        counts = [
            {"answer": label, "label": label, "count": n}
            for label, n in (
                (_bin_label(low, number_bin), n) for low, n in bins.items()
            )
        ]
        if numbers and column in exact:
            out["numbers"].update(
                median=_number(statistics.median(numbers)),
                min=_number(min(numbers)),
                max=_number(max(numbers)),
            )
        elif numbers:
            middle = statistics.median_low(numbers)
            out["numbers"].update(
                width=number_bin,
                first_bin=_bin_label(min(bins), number_bin),
                last_bin=_bin_label(max(bins), number_bin),
                median_bin=_bin_label(
                    next(low for low in bins if low <= middle < low + number_bin),
                    number_bin,
                ),
            )
    if other:
        counts.append({"answer": "(other)", "label": "(other)", "count": other})
    out["counts"] = counts
    return out


def evaluators_sentence(
    n: int, questions: Sequence[Mapping[str, Any]], language: str | None = None
) -> str:
    """The seed's kind of sentence on *n* evaluators, from the questions there
    are (:func:`evaluators_summary`'s ``questions``).

    >>> qs = [{"id": "gender", "type": "choice", "counts": [
    ...     {"answer": "female", "label": "Female", "count": 13},
    ...     {"answer": "male", "label": "Male", "count": 11}], "no_answer": 0},
    ...     {"id": "age", "type": "number", "no_answer": 0,
    ...      "numbers": {"n": 24, "median": 24, "min": 19, "max": 41}},
    ...     {"id": "native", "type": "yes-no", "no_answer": 0, "counts": [
    ...      {"answer": "yes", "label": "yes", "count": 22},
    ...      {"answer": "no", "label": "no", "count": 2}]}]
    >>> print(evaluators_sentence(24, qs, "English"))  # doctest: +NORMALIZE_WHITESPACE
    24 evaluators took part (13 women, 11 men), aged 19-41 (median 24);
    22 native speakers of English.

    Ages released only in bins (the default policy):

    >>> qs[1]["numbers"] = {"n": 24, "width": 10, "first_bin": "18-27",
    ...     "last_bin": "38-47", "median_bin": "18-27"}
    >>> print(evaluators_sentence(24, qs[1:2]))
    24 evaluators took part, aged 18-47 (in bins of 10; median in 18-27).
    """
    by_id = {str(q.get("id")): q for q in questions}
    text = f"{n} evaluator{'s' if n != 1 else ''} took part"
    gender = by_id.get(GENDER)
    if gender is not None and gender.get("type") == "choice":
        parts = []
        for count in gender.get("counts") or ():
            if not count["count"]:
                continue
            value = str(count["answer"]).lower()
            if value in _WOMEN:
                word = "woman" if count["count"] == 1 else "women"
            elif value in _MEN:
                word = "man" if count["count"] == 1 else "men"
            elif value == "(other)":  # a value not among the options
                word = "other answer" if count["count"] == 1 else "other answers"
            else:
                word = str(count["label"]).lower()
            parts.append(f"{count['count']} {word}")
        if gender.get("no_answer"):
            parts.append(f"{gender['no_answer']} no answer")
        if parts:
            text += f" ({', '.join(parts)})"
    age = by_id.get(AGE)
    numbers = (age or {}).get("numbers") or {}
    if age is not None and age.get("type") == "number" and numbers.get("n"):
        some = f"; {numbers['n']} of {n} gave their age" if numbers["n"] != n else ""
        if "median" in numbers:  # released per participant: the exact figures
            text += (
                f", aged {numbers['min']:g}-{numbers['max']:g}"
                f" (median {numbers['median']:g}{some})"
            )
        else:
            first, last = numbers["first_bin"], numbers["last_bin"]
            span = f"{first.split('-')[0]}-{last.split('-')[1]}"
            if " " in first + last:  # bins from a fractional min
                span = f"{first} to {last}"
            text += (
                f", aged {span} (in bins of {numbers['width']};"
                f" median in {numbers['median_bin']}{some})"
            )
    native = by_id.get(NATIVE)
    if native is not None and native.get("type") == "yes-no":
        yes = next((c["count"] for c in native["counts"] if c["answer"] == "yes"), 0)
        of = f" of {language}" if language else ""
        text += f"; {yes} native speaker{'s' if yes != 1 else ''}{of}"
    return text + "."


def evaluators_summary(
    rows: Sequence[Mapping[str, Any]],
    questionnaire: Mapping[str, Any] | None = None,
    *,
    excluded: Sequence[str] = (),
    withdrawn: int = 0,
    language: str | None = None,
    number_bin: int = 10,
    exact: Collection[str] = (),
) -> dict[str, Any]:
    """The evaluators of one study as a group (see the module's help).

    Parameters
    ----------
    rows
        The merged session table's rows (withdrawn participants already left out).
    questionnaire
        The study's questionnaire (``screen`` and ``fields``, as
        :func:`stecflow.studies.screens.read_questionnaire` gives it), or None.
    excluded
        Participant (else session) IDs an exclusion rule excluded.
    withdrawn
        How many participants withdrew.
    language
        The language of the native-speaker question (``release.language``).
    number_bin, exact
        The width of the bins of numbers, and the answer columns released per
        participant (``release.personal_data``'s ``number_bin`` and
        ``per_participant``): only those get exact medians and ranges.

    Returns
    -------
    dict
        ``evaluators`` (count), ``excluded``, ``withdrawn``, ``not_completed``,
        ``sessions`` (rows of the table), ``questionnaire`` (whether there is
        one), ``questions`` (in the questionnaire's order), ``sentence`` and
        ``time_on_task`` (:func:`time_on_task`).
    """
    gone = {str(e) for e in excluded}
    completed = {_who(r) for r in rows if str(r.get("status") or "") == "completed"}
    completed.discard("")
    everyone = {_who(r) for r in rows} - {""}
    counted = completed - gone
    ordered = sorted(
        rows, key=lambda r: (str(r.get("started_utc") or ""), str(r.get("session")))
    )
    fields = list((questionnaire or {}).get("fields") or ())
    screen = str((questionnaire or {}).get("screen") or "questionnaire")
    columns = [f"{screen}.{f['id']}" for f in fields]
    first: dict[str, Mapping[str, Any]] = {}
    for row in ordered:
        who = _who(row)
        if who not in counted:
            continue
        if who not in first or (
            all(_blank(first[who].get(c)) for c in columns)
            and not all(_blank(row.get(c)) for c in columns)
        ):
            first[who] = row
    people = [first[k] for k in sorted(first)]
    questions = [_question(f, screen, people, number_bin, exact) for f in fields]
    return {
        "evaluators": len(counted),
        "excluded": len(everyone & gone),
        "withdrawn": int(withdrawn),
        "not_completed": len(everyone - completed - gone),
        "sessions": len(rows),
        "questionnaire": bool(fields),
        "questions": questions,
        "sentence": evaluators_sentence(len(counted), questions, language)
        if rows
        else "",
        "time_on_task": time_on_task(rows),
    }


def _excluded_ids(path: str | Path | None) -> list[str]:
    """The participants the audit ``results/judgments/exclusions/<study>.tsv``
    marks excluded (participant, else session)."""
    if path is None or not Path(path).is_file():
        return []
    from stecflow.core.io import read_tsv

    out = set()
    for row in read_tsv(path):
        if str(row.get("excluded") or "").strip().lower() in {"true", "1", "yes"}:
            who = _who(row)
            if who:
                out.add(who)
    return sorted(out)


def add_evaluators(
    summary_path: str | Path,
    sessions_path: str | Path | None,
    *,
    questionnaire_path: str | Path | None = None,
    exclusions_path: str | Path | None = None,
    language: str | None = None,
    withhold_questionnaire: bool = False,
    number_bin: int = 10,
    exact: Collection[str] = (),
) -> dict[str, Any]:
    """Add ``evaluators`` (:func:`evaluators_summary`) to the judgments summary
    at *summary_path* (rewritten in place, same bytes for the same inputs) and
    return it. The withdrawn count is the summary's ``withdrawals.withdrawn``.

    With *withhold_questionnaire* (``release.personal_data.questionnaire:
    withhold``; the summary is released) the questionnaire is left out: the
    block then counts the evaluators and their time on task only;
    *number_bin* and *exact* are as in :func:`evaluators_summary`.
    """
    from stecflow.core.io import write_json
    from stecflow.judgments.pipeline import read_session_rows

    summary = json.loads(Path(summary_path).read_text(encoding="utf-8"))
    questionnaire = None
    if questionnaire_path and not withhold_questionnaire:
        from stecflow.studies.screens import read_questionnaire

        questionnaire = read_questionnaire(
            questionnaire_path, field="experiment.questionnaire"
        )
    withdrawn = int((summary.get("withdrawals") or {}).get("withdrawn") or 0)
    block = evaluators_summary(
        read_session_rows(sessions_path),
        questionnaire,
        excluded=_excluded_ids(exclusions_path),
        withdrawn=withdrawn,
        language=language,
        number_bin=number_bin,
        exact=exact,
    )
    summary["evaluators"] = block
    write_json(summary, summary_path)
    return block

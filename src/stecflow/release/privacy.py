"""What the release holds about participants: a declared policy, and the consent.

The campaign config's ``release.personal_data`` declares what the release archive
may hold about the people who took part (:class:`PersonalDataPolicy`). By
default:

- the answers to a study's questionnaire are released only as counts per
  question and answer over all participants (``judgments/questionnaire/<study>.tsv``,
  :func:`questionnaire_counts`): numbers such as ages in bins of
  ``number_bin`` (10) from the question's ``min``, choices and yes/no answers
  counted, free text never (only how many answered);
- the session table (``judgments/sessions/<study>.tsv``) keeps one row per
  session keyed by pseudonyms only (:func:`released_sessions`): no answer
  columns, start and end as dates (``times: date``; ``relative``: seconds from
  the study's first start; ``withhold``: neither), never exact timestamps; its
  ``problem`` notes name the fields only, not the values they quote;
- the exclusion audit does not quote questionnaire answers.

An organiser releases more field by field: ``per_participant`` lists session
columns (``<screen>.<field>`` answers, ``started_utc``, ``ended_utc``) released
as given, in each pseudonymous row.

The consent text the participants agreed to must say what is released.
:func:`consent_statement` writes that sentence from the policy, in English and
Japanese (the shipped ``resources/participants/consent.*.md`` hold the default
policy's); :func:`check_consent` reads a study's consent text and names what it
promises that the release would break: a statement of another policy, or a
known promise (data published "only in anonymous, aggregated form") that
per-answer rows break. :func:`stecflow.release.archive.build_release` refuses
to write a release its consent texts contradict.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from stecflow.core.errors import ConfigError

__all__ = [
    "NO_ANSWER",
    "PersonalDataPolicy",
    "QUESTIONNAIRE_COLUMNS",
    "check_consent",
    "consent_statement",
    "questionnaire_counts",
    "read_questions",
    "released_exclusions",
    "released_sessions",
]

#: Columns of ``judgments/questionnaire/<study>.tsv``.
QUESTIONNAIRE_COLUMNS = ["study", "field", "type", "question", "answer", "count"]
#: The answer row of the participants who left a question blank.
NO_ANSWER = "(no answer)"
#: The answer row of a free-text question: how many wrote something.
ANSWERED = "(answered)"
#: A value that is not one of the question's options (or not a number).
OTHER = "(other)"
#: The session columns of exact times, released as given only when opted in.
TIME_COLUMNS = ("started_utc", "ended_utc")
_ANSWER_COLUMN = re.compile(r"^[A-Za-z0-9_-]{1,64}\.[A-Za-z0-9_-]{1,64}$")
#: Columns that hold the recruitment platform's own ID of a person.
_PLATFORM_IDS = ("participant", "subject", "external_session")
_TIMES = ("date", "relative", "withhold")
_QUESTIONNAIRE = ("aggregate", "withhold")


@dataclass(frozen=True)
class PersonalDataPolicy:
    """``release.personal_data`` of the config (the defaults are the schema's).

    Examples
    --------
    >>> policy = PersonalDataPolicy.from_config(
    ...     {"personal_data": {"times": "relative"}})
    >>> policy.times, policy.questionnaire, policy.per_participant
    ('relative', 'aggregate', ())
    >>> PersonalDataPolicy.from_config({"personal_data": {"times": "exact"}})
    Traceback (most recent call last):
    ...
    stecflow.core.errors.ConfigError: release.personal_data.times: 'exact' is not \
one of date, relative, withhold; exact times are released only when listed in \
per_participant (started_utc, ended_utc)
    """

    questionnaire: str = "aggregate"
    number_bin: int = 10
    times: str = "date"
    per_participant: tuple[str, ...] = ()
    keep_columns: tuple[str, ...] = ()

    @classmethod
    def from_config(cls, release: Mapping[str, Any] | None) -> PersonalDataPolicy:
        """The policy of a config's ``release`` section, checked."""
        release = release or {}
        data = dict(release.get("personal_data") or {})
        where = "release.personal_data"
        known = {"questionnaire", "number_bin", "times", "per_participant"}
        for key in sorted(set(data) - known):
            raise ConfigError(
                f"unknown key; known keys are {', '.join(sorted(known))}",
                field=f"{where}.{key}",
            )
        times = data.get("times", "date")
        if times not in _TIMES:
            raise ConfigError(
                f"{times!r} is not one of {', '.join(_TIMES)}; exact times are"
                " released only when listed in per_participant (started_utc,"
                " ended_utc)",
                field=f"{where}.times",
            )
        questionnaire = data.get("questionnaire", "aggregate")
        if questionnaire not in _QUESTIONNAIRE:
            raise ConfigError(
                f"{questionnaire!r} is not one of {', '.join(_QUESTIONNAIRE)}",
                field=f"{where}.questionnaire",
            )
        width = data.get("number_bin", 10)
        if isinstance(width, bool) or not isinstance(width, int) or width < 1:
            raise ConfigError(
                f"{width!r} is not a whole number of 1 or more",
                field=f"{where}.number_bin",
            )
        fields = [str(f) for f in data.get("per_participant") or ()]
        for name in fields:
            if name not in TIME_COLUMNS and not _ANSWER_COLUMN.match(name):
                raise ConfigError(
                    f"{name!r} is not a session column that can be released: give"
                    " a questionnaire answer as <screen>.<field> (e.g."
                    " demographics.native) or started_utc / ended_utc",
                    field=f"{where}.per_participant",
                )
        return cls(
            questionnaire=questionnaire,
            number_bin=width,
            times=times,
            per_participant=tuple(sorted(set(fields))),
            keep_columns=tuple(
                sorted(str(c) for c in release.get("keep_columns") or ())
            ),
        )

    @property
    def answers_per_participant(self) -> tuple[str, ...]:
        """The questionnaire answers opted in (``<screen>.<field>``)."""
        return tuple(f for f in self.per_participant if f not in TIME_COLUMNS)

    @property
    def exact_times(self) -> tuple[str, ...]:
        """The exact time columns opted in."""
        return tuple(f for f in self.per_participant if f in TIME_COLUMNS)


def _true(value: Any) -> bool:
    return str(value).strip().lower() in {"1", "true", "yes"}


def _blank(value: Any) -> bool:
    return value is None or str(value).strip() == ""


def _utc(value: Any) -> datetime | None:
    if _blank(value):
        return None
    try:
        return datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
    except ValueError:
        return None


def _problem_fields(text: Any) -> str:
    """A session row's problem notes reduced to the fields they name (the notes
    quote the values: a malformed time, an ID).

    >>> _problem_fields("/srv/a.tsv, line 3, field started_utc: '10:00' is not "
    ...                 "an ISO 8601 UTC time; /srv/a.tsv, line 3, field consent: 'x'")
    'started_utc; consent'
    >>> _problem_fields("/srv/a.tsv, line 4: 9 fields, the header has 12")
    'row'
    """
    if _blank(text):
        return ""
    found = re.findall(r"field ([A-Za-z0-9_.-]+):", str(text))
    names = list(dict.fromkeys(found))
    if re.search(r"\d+ fields, the header has", str(text)):
        names.append("row")
    return "; ".join(names) or "row"


def released_sessions(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[str],
    policy: PersonalDataPolicy,
) -> tuple[list[dict[str, Any]], list[str]]:
    """A study's session table as the policy releases it (before pseudonyms).

    Parameters
    ----------
    rows, columns
        The merged session table (``results/judgments/sessions/<study>.tsv``)
        and its columns in order.
    policy
        What may be released.

    Returns
    -------
    rows, columns
        Answer columns dropped unless opted in; ``started_utc`` / ``ended_utc``
        (unless opted in) become ``started_date`` / ``ended_date`` (YYYY-MM-DD,
        UTC), or ``started_s`` / ``ended_s`` (whole seconds from the study's
        first start), or nothing; ``problem`` names fields only.

    Examples
    --------
    >>> rows, columns = released_sessions(
    ...     [{"session": "s1", "started_utc": "2026-05-01T10:00:07Z",
    ...       "ended_utc": "2026-05-01T10:20:00Z", "demographics.age": "34",
    ...       "problem": ""}],
    ...     ["session", "started_utc", "ended_utc", "demographics.age", "problem"],
    ...     PersonalDataPolicy())
    >>> columns
    ['session', 'started_date', 'ended_date', 'problem']
    >>> rows[0]["started_date"], rows[0]["ended_date"]
    ('2026-05-01', '2026-05-01')
    >>> released_sessions(
    ...     [{"session": "s1", "started_utc": "2026-05-01T10:00:07Z"},
    ...      {"session": "s2", "started_utc": "2026-05-02T10:00:00Z"}],
    ...     ["session", "started_utc"],
    ...     PersonalDataPolicy(times="relative"))[0][1]["started_s"]
    86393
    """
    answers = [c for c in columns if _ANSWER_COLUMN.match(c)]
    kept_answers = set(policy.answers_per_participant)
    first = min(
        (t for r in rows if (t := _utc(r.get("started_utc"))) is not None),
        default=None,
    )
    out_columns: list[str] = []
    for column in columns:
        if column in answers and column not in kept_answers:
            continue
        if column in TIME_COLUMNS and column not in policy.exact_times:
            stem = column.removesuffix("_utc")
            if policy.times == "date":
                out_columns.append(f"{stem}_date")
            elif policy.times == "relative":
                out_columns.append(f"{stem}_s")
            continue
        out_columns.append(column)
    out = []
    for row in rows:
        new: dict[str, Any] = {}
        for column in columns:
            value = row.get(column)
            if column in answers and column not in kept_answers:
                continue
            if column in TIME_COLUMNS and column not in policy.exact_times:
                stem = column.removesuffix("_utc")
                when = _utc(value)
                if policy.times == "date":
                    new[f"{stem}_date"] = (
                        when.date().isoformat() if when is not None else ""
                    )
                elif policy.times == "relative":
                    new[f"{stem}_s"] = (
                        math.floor((when - first).total_seconds())
                        if when is not None and first is not None
                        else ""
                    )
                continue
            if column == "problem":
                value = _problem_fields(value)
            new[column] = value
        out.append(new)
    return out, out_columns


def released_exclusions(
    rows: Sequence[Mapping[str, Any]], policy: PersonalDataPolicy
) -> list[dict[str, Any]]:
    """The exclusion audit without the questionnaire answers it quotes (a rule
    on an answer records the participant's answer in ``value`` and
    ``reason``), unless that answer is opted in per participant.

    >>> released_exclusions([{"participant": "p", "value": "no", "excluded": "1",
    ...     "threshold": "no", "reason":
    ...     "answered demographics.native with no (excluding: no)"}],
    ...     PersonalDataPolicy())[0]
    ... # doctest: +NORMALIZE_WHITESPACE
    {'participant': 'p', 'value': '', 'excluded': '1', 'threshold': 'no',
     'reason': 'answer to demographics.native among the excluding ones (no)'}
    """
    out = []
    quoted = re.compile(r"^answered (\S+) with .* \(excluding: (.*)\)$", re.DOTALL)
    for row in rows:
        new = dict(row)
        found = quoted.match(str(row.get("reason") or ""))
        if found and found.group(1) not in policy.answers_per_participant:
            among = "among" if _true(row.get("excluded")) else "not among"
            new["value"] = ""
            new["reason"] = (
                f"answer to {found.group(1)} {among} the excluding ones"
                f" ({found.group(2)})"
            )
        out.append(new)
    return out


def _respondents(
    rows: Sequence[Mapping[str, Any]], answers: Sequence[str]
) -> list[Mapping[str, Any]]:
    """One row per participant who answered the questionnaire: their first
    session with an answer (by start, then session)."""
    chosen: dict[str, Mapping[str, Any]] = {}
    ordered = sorted(
        rows, key=lambda r: (str(r.get("started_utc") or ""), str(r.get("session")))
    )
    for row in ordered:
        if all(_blank(row.get(c)) for c in answers):
            continue
        who = str(row.get("participant") or row.get("session") or "")
        chosen.setdefault(who, row)
    return [chosen[k] for k in sorted(chosen)]


def read_questions(path: str | Path) -> dict[str, Any] | None:
    """A questionnaire file as the release reads it: ``screen`` and ``fields``
    (``id``, ``type``, ``question``, ``min``, ``options`` as ``{"value",
    "label"}``), or None when the file is not a questionnaire.

    The file was checked when the study was built
    (:func:`stecflow.studies.screens.read_questionnaire`, a layer the release
    does not import); fields without an ``id`` are left out here, and a field of
    an unknown type is counted as free text (answered or not), never quoted.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "q.yaml"
    >>> _ = path.write_text("screen: d\\nfields:\\n  - {id: g, question: Gender,"
    ...     " type: choice, options: [f, {value: m, label: Male}]}\\n")
    >>> read_questions(path)["fields"][0]["options"]
    [{'value': 'f', 'label': 'f'}, {'value': 'm', 'label': 'Male'}]
    """
    from stecflow.data.yamlsafe import load_yaml

    data = load_yaml(Path(path).read_bytes(), str(path))
    if not isinstance(data, Mapping) or not isinstance(data.get("fields"), list):
        return None
    fields = []
    for field in data["fields"]:
        if not isinstance(field, Mapping) or not field.get("id"):
            continue
        kind = field.get("type")
        entry: dict[str, Any] = {
            "id": str(field["id"]),
            "type": kind if kind in ("choice", "number", "yes-no") else "text",
            "question": str(field.get("question") or "").strip(),
        }
        if entry["type"] == "choice":
            entry["options"] = [
                {"value": str(o["value"]), "label": str(o["label"])}
                if isinstance(o, Mapping) and {"value", "label"} <= set(o)
                else {"value": str(o), "label": str(o)}
                for o in field.get("options") or ()
            ]
        if entry["type"] == "number" and isinstance(field.get("min"), int | float):
            entry["min"] = field["min"]
        fields.append(entry)
    return {"screen": str(data.get("screen") or "questionnaire"), "fields": fields}


def _number_label(low: float, width: int) -> str:
    if float(low).is_integer():
        return f"{int(low)}-{int(low) + width - 1}"
    return f"{low:g} to under {low + width:g}"


def questionnaire_counts(
    study: str,
    rows: Sequence[Mapping[str, Any]],
    questionnaire: Mapping[str, Any] | None,
    columns: Sequence[str] = (),
    policy: PersonalDataPolicy | None = None,
) -> list[dict[str, Any]]:
    """Counts per question and answer over the participants who answered.

    Parameters
    ----------
    study
        The study ID.
    rows
        The merged session table's rows.
    questionnaire
        The study's questionnaire (:func:`stecflow.studies.screens.read_questionnaire`),
        or None: the answer columns are then counted as free text (answered or
        not), their types being unknown.
    columns
        The session table's columns (its answer columns, when there is no
        questionnaire).
    policy
        ``number_bin`` is the width of the bins of numbers (default 10).

    Returns
    -------
    list of dict
        :data:`QUESTIONNAIRE_COLUMNS`, in the questionnaire's order: a choice's
        options in their order (zero counts included), then :data:`OTHER` for
        values not among them; a yes/no question ``yes``, ``no``; a number its
        bins (``18-27``) from the question's ``min`` (else 0) in rising order,
        then :data:`OTHER` for what is not a number; free text only
        :data:`ANSWERED`; each question last :data:`NO_ANSWER` (participants who
        answered other questions but not this one). Participants are counted
        once (their first session with answers).

    Examples
    --------
    >>> q = {"screen": "d", "fields": [
    ...     {"id": "age", "type": "number", "question": "Age?", "min": 18},
    ...     {"id": "field", "type": "text", "question": "Field?"}]}
    >>> rows = [{"session": "a", "d.age": "19", "d.field": "linguistics"},
    ...         {"session": "b", "d.age": "34", "d.field": ""},
    ...         {"session": "c", "d.age": "27.5", "d.field": "law"}]
    >>> [(r["field"], r["answer"], r["count"])
    ...  for r in questionnaire_counts("s", rows, q)]  # doctest: +NORMALIZE_WHITESPACE
    [('d.age', '18-27', 2), ('d.age', '28-37', 1), ('d.age', '(no answer)', 0),
     ('d.field', '(answered)', 2), ('d.field', '(no answer)', 1)]
    """
    policy = policy or PersonalDataPolicy()
    if questionnaire:
        screen = questionnaire.get("screen") or "questionnaire"
        fields = [
            {**f, "column": f"{screen}.{f['id']}"} for f in questionnaire["fields"]
        ]
    else:
        fields = [
            {"column": c, "type": "text", "question": ""}
            for c in columns
            if _ANSWER_COLUMN.match(c)
        ]
    people = _respondents(rows, [f["column"] for f in fields])
    out: list[dict[str, Any]] = []
    for field in fields:
        column, kind = field["column"], field["type"]
        counts: dict[str, int] = {}
        blank = 0
        if kind == "choice":
            counts = {str(o["value"]): 0 for o in field.get("options") or ()}
        elif kind == "yes-no":
            counts = {"yes": 0, "no": 0}
        elif kind == "text":
            counts = {ANSWERED: 0}
        numbers: dict[float, int] = {}
        other = 0
        for person in people:
            value = person.get(column)
            if _blank(value):
                blank += 1
                continue
            text = str(value).strip()
            if kind == "choice":
                if text in counts:
                    counts[text] += 1
                else:
                    other += 1
            elif kind == "yes-no":
                low = text.lower()
                if low in {"true", "yes", "1"}:
                    counts["yes"] += 1
                elif low in {"false", "no", "0"}:
                    counts["no"] += 1
                else:
                    other += 1
            elif kind == "number":
                try:
                    number = float(text)
                    if not math.isfinite(number):
                        raise ValueError
                except ValueError:
                    other += 1
                    continue
                start = float(field.get("min") or 0)
                low = start + math.floor((number - start) / policy.number_bin) * (
                    policy.number_bin
                )
                numbers[low] = numbers.get(low, 0) + 1
            else:
                counts[ANSWERED] = counts.get(ANSWERED, 0) + 1
        if kind == "number":
            counts = {
                _number_label(low, policy.number_bin): n
                for low, n in sorted(numbers.items())
            }
        if other:
            counts[OTHER] = other
        counts[NO_ANSWER] = blank
        for answer, n in counts.items():
            out.append(
                {
                    "study": study,
                    "field": column,
                    "type": kind,
                    "question": field.get("question") or "",
                    "answer": answer,
                    "count": n,
                }
            )
    return out


#: The lead of the statement :func:`consent_statement` writes, per language.
STATEMENT_LEADS = {"en": "What we publish:", "ja": "公表するもの："}
#: Promises of consent texts that a release with one row per answer breaks
#: (phrases in the consent texts stecflow shipped before the policy).
ONLY_AGGREGATED = {
    "en": ("only in anonymous, aggregated form", "only in aggregated form"),
    "ja": ("匿名で集計した形でのみ",),
}


def consent_statement(
    policy: PersonalDataPolicy,
    language: str = "en",
    questions: Mapping[str, str] | None = None,
    text_fields: Sequence[str] = (),
) -> str:
    """The consent text's sentence on what the release holds, from the policy.

    Parameters
    ----------
    policy
        The release policy.
    language
        ``en`` or ``ja``.
    questions
        ``<screen>.<field>`` -> the question's wording (the questionnaire of
        the study), to name the opted-in answers; default their column names.
    text_fields
        The free-text questions (``<screen>.<field>``); a free-text answer
        opted in drops the promise that typed text is never published.

    Returns
    -------
    str
        One Markdown list item (``- `` and the sentences), on one line.

    Raises
    ------
    ConfigError
        For a language without a statement.

    Examples
    --------
    >>> print(consent_statement(PersonalDataPolicy()))  # doctest: +ELLIPSIS
    - What we publish: your answers to the study's tasks and how long you took, \
one row per answer, under a code instead of your name or any ID. Your answers \
to the questionnaire about you only as counts over all participants (numbers \
such as your age in groups of 10), never linked to your code; nothing you type \
in a free-text box is published. The day you took part, not the time.
    """
    if language not in STATEMENT_LEADS:
        raise ConfigError(
            f"no statement of what is published in {language!r}; stecflow has"
            f" {', '.join(STATEMENT_LEADS)}: write the consent text's statement"
            " yourself and check it against release.personal_data",
            field="experiment.language",
        )
    questions = dict(questions or {})
    opted = policy.answers_per_participant
    named = [questions.get(f) or f for f in opted]
    free_text = any(f in text_fields or f not in questions for f in opted)
    platform = any(c in _PLATFORM_IDS for c in policy.keep_columns)
    width = policy.number_bin
    exact = policy.exact_times
    if language == "en":
        who = (
            "with your ID on the recruitment platform (not your name)"
            if platform
            else "under a code instead of your name or any ID"
        )
        parts = [
            f"{STATEMENT_LEADS['en']} your answers to the study's tasks and how"
            f" long you took, one row per answer, {who}."
        ]
        if policy.questionnaire == "withhold" and not opted:
            parts.append("Not your answers to the questionnaire about you.")
        elif policy.questionnaire == "withhold":
            parts.append(
                "Of the questionnaire about you, only your answers to these"
                f" questions, linked to your {'ID' if platform else 'code'}: "
                + "; ".join(f"“{q}”" for q in named)
                + "."
            )
        elif opted:
            parts.append(
                "Your answers to these questions of the questionnaire about you,"
                f" linked to your {'ID' if platform else 'code'}: "
                + "; ".join(f"“{q}”" for q in named)
                + "; your other answers only as counts over all participants"
                f" (numbers such as your age in groups of {width})."
            )
        else:
            parts.append(
                "Your answers to the questionnaire about you only as counts over"
                f" all participants (numbers such as your age in groups of {width}),"
                " never linked to your "
                + ("ID" if platform else "code")
                + ("." if free_text else ";")
            )
        if not free_text:
            if opted:
                parts[-1] = parts[-1][:-1] + ";"
            parts[-1] += " nothing you type in a free-text box is published."
        if len(exact) == 2:
            parts.append("The date and time you started and finished.")
        elif exact:
            word, other = (
                ("started", "finished")
                if exact == ("started_utc",)
                else ("finished", "started")
            )
            rest = {
                "date": f"when you {other}, the day only",
                "relative": f"when you {other} only as the time since the study began",
                "withhold": f"not when you {other}",
            }[policy.times]
            parts.append(f"The date and time you {word}; {rest}.")
        elif policy.times == "date":
            parts.append("The day you took part, not the time.")
        elif policy.times == "relative":
            parts.append(
                "When you took part only as the time since the study began, not"
                " the date or the time of day."
            )
        else:
            parts.append("Not when you took part.")
        return "- " + " ".join(parts)
    who = (
        "募集サイトでの識別番号（氏名ではありません）を付けて"
        if platform
        else "氏名や識別番号の代わりに符号を付けて"
    )
    parts = [
        f"{STATEMENT_LEADS['ja']}課題への回答と回答にかかった時間を、{who}1回答ずつ"
        "公表します。"
    ]
    quoted = "、".join(f"「{q}」" for q in named)
    if policy.questionnaire == "withhold" and not opted:
        parts.append("あなたについてのアンケートの回答は公表しません。")
    elif policy.questionnaire == "withhold":
        parts.append(
            f"あなたについてのアンケートの回答のうち、{quoted}への回答のみを符号と"
            "結び付けて公表します。"
        )
    elif opted:
        parts.append(
            f"あなたについてのアンケートの回答のうち、{quoted}への回答は符号と"
            "結び付けて公表し、その他の回答は参加者全体の人数（年齢などの数は"
            f"{width}ごとの区分）としてのみ公表します。"
        )
    else:
        parts.append(
            "あなたについてのアンケートの回答は、参加者全体の人数（年齢などの数は"
            f"{width}ごとの区分）としてのみ公表し、符号と結び付けて公表することは"
            "ありません。"
        )
    if not free_text:
        parts.append("自由記述欄に書かれた文章は公表しません。")
    if len(exact) == 2:
        parts.append("参加を始めた日時と終えた日時を公表します。")
    elif exact:
        word, other = (
            ("始めた", "終えた") if exact == ("started_utc",) else ("終えた", "始めた")
        )
        rest = {
            "date": "日付のみ公表します",
            "relative": "研究の開始からの経過時間としてのみ公表します",
            "withhold": "公表しません",
        }[policy.times]
        parts.append(f"参加を{word}日時を公表し、{other}時は{rest}。")
    elif policy.times == "date":
        parts.append("参加した日付のみを公表し、時刻は公表しません。")
    elif policy.times == "relative":
        parts.append(
            "参加した時期は研究の開始からの経過時間としてのみ公表し、日付や時刻は"
            "公表しません。"
        )
    else:
        parts.append("参加した日時は公表しません。")
    return "- " + "".join(parts)


def _squeeze(text: str) -> str:
    """*text* without whitespace or Markdown emphasis (line wrapping and marks
    do not change what a consent text says)."""
    return re.sub(r"[\s*_`]+", "", text)


def check_consent(
    text: str,
    policy: PersonalDataPolicy,
    language: str = "en",
    questions: Mapping[str, str] | None = None,
    text_fields: Sequence[str] = (),
) -> tuple[bool, list[str]]:
    """What a consent text promises that the release under *policy* breaks.

    Returns ``(checked, problems)``: *checked* is true when the text holds the
    statement :func:`consent_statement` writes for *policy* (whitespace and
    line breaks aside), or a statement or promise stecflow recognises;
    *problems* says, in plain words, each promise broken and the statement to
    put in its place. A text that holds none (the organisers' own wording)
    gives ``(False, [])``: it could not be checked.

    Examples
    --------
    >>> ok = consent_statement(PersonalDataPolicy())
    >>> check_consent("# Consent\\n\\n" + ok, PersonalDataPolicy())
    (True, [])
    >>> checked, problems = check_consent(
    ...     "published only in anonymous, aggregated form", PersonalDataPolicy())
    >>> checked, problems[0][:43]
    (True, 'it promises the data are published "only in')
    """
    expected = (
        consent_statement(policy, language, questions, text_fields)
        if language in STATEMENT_LEADS
        else None  # the organisers' own language: the known promises only
    )
    squeezed = _squeeze(text)
    problems: list[str] = []
    checked = False
    for phrases in ONLY_AGGREGATED.values():
        for phrase in phrases:
            if _squeeze(phrase) in squeezed:
                checked = True
                problems.append(
                    f'it promises the data are published "{phrase}", but the release'
                    " holds every answer to the study's tasks, one row per answer"
                    " under a pseudonym"
                    + (
                        " and, as release.personal_data.per_participant opts in, "
                        + ", ".join(policy.per_participant)
                        + " per participant"
                        if policy.per_participant
                        else ""
                    )
                )
    if expected is not None and _squeeze(expected[2:]) in squeezed:
        return True, problems
    for lead in STATEMENT_LEADS.values():
        if _squeeze(lead) in squeezed:
            checked = True
            problems.append(
                "its statement of what is published is not the one"
                " release.personal_data gives"
            )
            break
    if problems and expected is not None:
        problems.append(f"put this statement in its place: {expected}")
    return checked, problems

"""The organisers' corrections of a text study: read, checked and applied.

A corrections file has the format of :mod:`stecflow.judgments.corrections`; its
fields here are a criterion's ID, ``preferred`` and ``exclude``
(:func:`read_text_corrections`). :func:`apply_text_corrections` applies them to
the joined trials with a report row and a data-quality row each.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.judgments._common import (
    JudgmentsError,
    clean_str,
    normalise_header,
    parse_int,
    parse_number,
    problem,
    read_text,
)
from stecflow.judgments.importers.text import PREFERENCE_OUTCOMES, Criterion
from stecflow.judgments.text_join import winner
from stecflow.studykinds.registry import paired

__all__ = ["TextCorrection", "apply_text_corrections", "read_text_corrections"]


class TextCorrection(dict):  # type: ignore[type-arg]
    """One checked row of a text study's corrections file (a dict of its cells)."""


def read_text_corrections(
    path: str | Path,
    *,
    task: str,
    criteria: Sequence[Criterion],
    encoding: str | None = None,
) -> list[TextCorrection]:
    """Read a corrections file for a text study.

    The format is that of :mod:`stecflow.judgments.corrections` (columns
    ``study, session, participant, order, item, system, field, old_value,
    new_value, reason``; ``#`` starts a comment line). ``field`` is a
    criterion's ID (a rating study; the value is checked against its scale),
    ``preferred`` (a preference study: ``left``, ``right`` or ``tie``) or
    ``exclude`` (``true``: leave the trial out).

    Returns
    -------
    list of TextCorrection
        With ``line``, ``field``, ``new_value`` (parsed), ``reason`` and the
        trial's keys (``order`` as int).

    Raises
    ------
    JudgmentsError
        An unknown column or field, a value off its scale, no session or
        participant, no order or item, no reason (file, line, column).
    """
    import csv
    import io

    from stecflow.judgments.corrections import CORRECTION_COLUMNS

    source = str(path)
    text = read_text(path, encoding=encoding)
    lines = [
        (n, line)
        for n, line in enumerate(text.split("\n"), start=1)
        if line.strip() and not line.lstrip().startswith("#")
    ]
    if not lines:
        return []
    delimiter = "\t" if "\t" in lines[0][1] else ","
    parsed = list(
        csv.reader(io.StringIO("\n".join(t for _, t in lines)), delimiter=delimiter)
    )
    header = [normalise_header(h) for h in parsed[0]]
    unknown = [h for h in header if h not in CORRECTION_COLUMNS]
    if unknown:
        raise JudgmentsError(
            f"unknown column {unknown[0]!r}; a corrections file has "
            + ", ".join(CORRECTION_COLUMNS),
            file=source,
            line=lines[0][0],
            field=unknown[0],
        )
    by_id = {c.id: c for c in criteria}
    fields = ["exclude", *(["preferred"] if paired(task) else by_id)]
    out = []
    for (line, _), cells in zip(lines[1:], parsed[1:], strict=True):
        if len(cells) != len(header):
            raise JudgmentsError(
                f"{len(cells)} fields, the header has {len(header)}",
                file=source,
                line=line,
            )
        values = {h: clean_str(v) for h, v in zip(header, cells, strict=True)}
        name = values.get("field")
        if name not in fields:
            raise JudgmentsError(
                f"{name!r} cannot be corrected in a {task} study; use one of "
                + ", ".join(fields),
                file=source,
                line=line,
                field="field",
            )
        if not values.get("session") and not values.get("participant"):
            raise JudgmentsError(
                "give the session or the participant",
                file=source,
                line=line,
                field="session",
            )
        if not values.get("order") and not values.get("item"):
            raise JudgmentsError(
                "give the order or the item", file=source, line=line, field="order"
            )
        if not values.get("reason"):
            raise JudgmentsError(
                "give the reason for the correction",
                file=source,
                line=line,
                field="reason",
            )
        raw = values.get("new_value")
        try:
            order = parse_int(values.get("order") or "")
            if name == "exclude":
                if (raw or "").lower() != "true":
                    raise ValueError(f"{raw!r}; exclude takes new_value true")
                new_value: Any = True
            elif name == "preferred":
                if raw not in PREFERENCE_OUTCOMES:
                    raise ValueError(
                        f"{raw!r}; expected one of {', '.join(PREFERENCE_OUTCOMES)}"
                    )
                new_value = raw
            else:
                new_value = parse_number(raw or "")
                if new_value is not None:
                    by_id[name].check(new_value)
        except ValueError as exc:
            column = "order" if "whole number" in str(exc) and order is None else ""
            raise JudgmentsError(
                str(exc), file=source, line=line, field=column or "new_value"
            ) from None
        correction = TextCorrection(values)
        correction.update(line=line, field=name, new_value=new_value, order=order)
        out.append(correction)
    return out


def _matches(row: Mapping[str, Any], c: Mapping[str, Any]) -> bool:
    for key, column in (
        ("session", "session"),
        ("participant", "participant"),
        ("order", "order"),
        ("item", "item"),
    ):
        if c.get(key) is not None and row.get(column) != c[key]:
            return False
    system = c.get("system")
    if system is None:
        return True
    return system in (
        row.get("system"),
        row.get("system_left"),
        row.get("system_right"),
    )


def apply_text_corrections(
    trials: list[dict[str, Any]],
    corrections: Sequence[Mapping[str, Any]],
    *,
    study: str,
    source: str,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Apply corrections in place; (report rows, quality rows)."""
    report, problems = [], []
    for c in corrections:
        if c.get("study") is not None and c["study"] != study:
            continue
        matches = [t for t in trials if _matches(t, c)]
        if len(matches) != 1:
            what = "no trial" if not matches else f"{len(matches)} trials"
            raise JudgmentsError(
                f"matches {what} of study {study}; give the session and the order",
                file=source,
                line=c["line"],
            )
        trial = matches[0]
        name = c["field"]
        if name == "exclude":
            old: Any = trial["excluded"]
            trial["excluded"] = True
        elif name == "preferred":
            old = trial["preferred"]
            trial["preferred"] = c["new_value"]
            trial["winner"] = winner(trial)
        else:
            old = trial["ratings"].get(name)
            trial["ratings"][name] = c["new_value"]
        old_text = _plain_text(old)
        if c.get("old_value") is not None and not _same(c["old_value"], old):
            raise JudgmentsError(
                f"old_value {c['old_value']!r} is not the trial's value {old_text!r}",
                file=source,
                line=c["line"],
                field="old_value",
            )
        trial["corrected"] = True
        new_text = _plain_text(c["new_value"])
        problems.append(
            problem(
                "excluded_by_correction" if name == "exclude" else "corrected",
                f"{name}: {old_text or '(empty)'} -> {new_text or '(empty)'} "
                f"({c['reason']})",
                study=study,
                source_file=source,
                source_line=c["line"],
                session=trial["session"],
                subject=trial["subject"],
                list_id=trial["list"],
                order=trial["order"],
                item=trial["item"],
                system=trial.get("system"),
                field=name,
            )
        )
        report.append(
            {
                "corrections_line": c["line"],
                "file": source,
                "session": trial["session"],
                "subject": trial["subject"],
                "list": trial["list"],
                "order": trial["order"],
                "item": trial["item"],
                "field": name,
                "old_value": old_text,
                "new_value": new_text,
                "reason": c["reason"],
            }
        )
    return report, problems


def _same(expected: str, value: Any) -> bool:
    """Whether a correction's ``old_value`` is the trial's value (numbers by value)."""
    if isinstance(value, float):
        try:
            number = parse_number(expected)
        except ValueError:
            return False
        return number is not None and abs(number - value) < 1e-9
    return expected == _plain_text(value)


def _plain_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)

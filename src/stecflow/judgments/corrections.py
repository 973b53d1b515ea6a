"""Corrections the organiser makes to recorded trials, applied with an audit trail.

Seed 000 (section 5.3): participants were asked to report a mis-click; "this
occurred in 3 cases and we manually corrected the automatically collected data
according to the evaluator's declaration. These manually corrected cases were
excluded for the calculation of IT." A corrections file records such changes so
that they are applied reproducibly and visibly.

The file (TSV or CSV, UTF-8, ``#`` starts a comment line) has one row per changed
value, with the columns :data:`CORRECTION_COLUMNS`:

``study``
    Optional; rows for other studies are skipped (so one file can serve all).
``session``, ``participant``
    Which session: give at least one (the session ID is unambiguous).
``order``, ``item``, ``system``
    Which trial of the session: ``order`` or ``item`` (``system`` optional).
``field``
    One of :data:`CORRECTABLE_FIELDS`, or ``exclude`` to leave the trial out.
``old_value``
    Optional: the value the organiser expects to replace; if given and the
    trial's value differs, the correction is refused (a guard against a wrong
    session or order).
``new_value``
    The new value in the judgments table's format (``true``/``false``, a number,
    an entity ID; empty for missing). For ``exclude``: ``true``.
``reason``
    Required: why (it is copied to the judgments table and the report).

Applying a correction sets ``corrected`` and records, per trial, the corrected
fields, their original values (``field=value``) and the reasons. A corrected
``chosen_entity`` recomputes ``correct``. Corrected trials stay in the accuracy
and rating analyses but leave the time analyses (``in_time_analysis``), as in
seed 000. A row that matches no trial, or more than one, raises.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stecflow.judgments._common import (
    JudgmentsError,
    clean_str,
    is_missing,
    normalise_header,
    parse_bool,
    parse_int,
    parse_number,
    plain,
    problem,
    read_text,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from stecflow.data.model import Item

__all__ = [
    "CORRECTABLE_FIELDS",
    "CORRECTION_COLUMNS",
    "CORRECTION_REPORT_COLUMNS",
    "Correction",
    "apply_corrections",
    "read_corrections",
]

logger = logging.getLogger(__name__)

#: Columns of a corrections file.
CORRECTION_COLUMNS = (
    "study",
    "session",
    "participant",
    "order",
    "item",
    "system",
    "field",
    "old_value",
    "new_value",
    "reason",
)

#: Fields a correction may change, with the kind of their value (``score``:
#: a 0-100 rating).
CORRECTABLE_FIELDS: dict[str, str] = {
    "chosen_entity": "entity",
    "correct": "bool",
    "cant_tell": "bool",
    "timeout": "bool",
    "adequacy": "score",
    "fluency": "score",
    "reading_time_ms": "time",
    "identification_time_ms": "time",
    "rt_ms": "time",
    "exclude": "bool",
}

#: Columns of the corrections report (one row per applied correction).
CORRECTION_REPORT_COLUMNS = (
    "study",
    "corrections_line",
    "session",
    "subject",
    "list",
    "order",
    "item",
    "system",
    "field",
    "old_value",
    "new_value",
    "reason",
)


@dataclass(frozen=True)
class Correction:
    """One row of a corrections file, checked and parsed."""

    line: int
    field: str
    new_value: Any
    reason: str
    study: str | None = None
    session: str | None = None
    participant: str | None = None
    order: int | None = None
    item: str | None = None
    system: str | None = None
    old_value: str | None = None


def _parse(kind: str, text: str | None) -> Any:
    text = text or ""
    if kind == "entity":
        return clean_str(text)
    if kind == "bool":
        return parse_bool(text)
    value = parse_number(text)
    if value is None:
        return None
    if kind == "score" and not 0 <= value <= 100:
        raise ValueError(f"{value:g} is outside 0-100")
    if kind == "time" and value < 0:
        raise ValueError(f"{value:g} is negative")
    return value


def read_corrections(
    path: str | Path, *, encoding: str | None = None
) -> list[Correction]:
    """Read and check a corrections file (format in the module docstring).

    Parameters
    ----------
    path : path
        The file (``.tsv`` or ``.csv``).
    encoding : str, optional
        When not UTF-8.

    Returns
    -------
    list of Correction
        In file order.

    Raises
    ------
    JudgmentsError
        An unknown or missing column, an unknown field, a value that does not fit
        its field, no session or participant, no order or item, no reason, or the
        same field of the same trial corrected twice.
    """
    import csv
    import io

    source = str(path)
    text = read_text(path, encoding=encoding)
    lines = [
        (n, line)
        for n, line in enumerate(text.split("\n"), start=1)
        if line.strip() and not line.lstrip().startswith("#")
    ]
    if not lines:
        return []
    first = lines[0][1]
    delimiter = "\t" if "\t" in first else ("," if "," in first else ";")
    reader = csv.reader(
        io.StringIO("\n".join(line for _, line in lines)), delimiter=delimiter
    )
    parsed = list(reader)
    header = [normalise_header(h) for h in parsed[0]]
    header_line = lines[0][0]
    unknown = [h for h in header if h not in CORRECTION_COLUMNS]
    if unknown:
        raise JudgmentsError(
            f"unknown column {unknown[0]!r}; a corrections file has "
            + ", ".join(CORRECTION_COLUMNS),
            file=source,
            line=header_line,
            field=unknown[0],
        )
    for needed in ("field", "new_value", "reason"):
        if needed not in header:
            raise JudgmentsError(
                f"no {needed} column", file=source, line=header_line, field=needed
            )
    if "session" not in header and "participant" not in header:
        raise JudgmentsError(
            "no session or participant column",
            file=source,
            line=header_line,
            field="session",
        )
    if "order" not in header and "item" not in header:
        raise JudgmentsError(
            "no order or item column", file=source, line=header_line, field="order"
        )
    out: list[Correction] = []
    seen: dict[tuple[Any, ...], int] = {}
    for (line, _), fields in zip(lines[1:], parsed[1:], strict=True):
        if len(fields) != len(header):
            raise JudgmentsError(
                f"{len(fields)} fields, the header has {len(header)}",
                file=source,
                line=line,
            )
        values = {h: clean_str(v) for h, v in zip(header, fields, strict=True)}
        name = values.get("field")
        if name not in CORRECTABLE_FIELDS:
            raise JudgmentsError(
                f"{name!r} cannot be corrected; use one of "
                + ", ".join(CORRECTABLE_FIELDS),
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
        parsed_values: dict[str, Any] = {}
        for column, kind in (
            ("order", "order"),
            ("new_value", CORRECTABLE_FIELDS[name]),
            ("old_value", CORRECTABLE_FIELDS[name]),
        ):
            try:
                cell = values.get(column)
                parsed_values[column] = (
                    parse_int(cell or "") if kind == "order" else _parse(kind, cell)
                )
            except ValueError as exc:
                raise JudgmentsError(
                    f"{exc} (field {name})" if column != "order" else str(exc),
                    file=source,
                    line=line,
                    field=column,
                ) from None
        order, new_value = parsed_values["order"], parsed_values["new_value"]
        if name == "exclude" and new_value is not True:
            raise JudgmentsError(
                "exclude takes new_value true",
                file=source,
                line=line,
                field="new_value",
            )
        correction = Correction(
            line=line,
            field=name,
            new_value=new_value,
            reason=str(values["reason"]),
            study=values.get("study"),
            session=values.get("session"),
            participant=values.get("participant"),
            order=order,
            item=values.get("item"),
            system=values.get("system"),
            old_value=values.get("old_value"),
        )
        key = (
            correction.study, correction.session, correction.participant,
            correction.order, correction.item, correction.system, name,
        )  # fmt: skip
        if key in seen:
            raise JudgmentsError(
                f"the same field of the same trial is corrected on line {seen[key]}",
                file=source,
                line=line,
                field="field",
            )
        seen[key] = line
        out.append(correction)
    return out


def _text(value: Any) -> str:
    value = plain(value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _same(kind: str, current: Any, old_text: str) -> bool:
    try:
        old = _parse(kind, old_text)
    except ValueError:
        return False
    current = plain(current)
    if kind in ("score", "time"):
        return old is not None and current is not None and abs(old - current) < 1e-6
    return old == current


def apply_corrections(
    trials: pd.DataFrame,
    corrections: Iterable[Correction],
    *,
    study: str,
    source: str = "corrections",
    items: Mapping[str, Item] | None = None,
) -> tuple[pd.DataFrame, list[dict[str, Any]], list[dict[str, Any]]]:
    """Apply corrections to the merged trials, keeping an audit trail.

    Parameters
    ----------
    trials : pandas.DataFrame
        The merged trials (:data:`JUDGMENT_COLUMNS`).
    corrections : iterable of Correction
        From :func:`read_corrections`; those of other studies are skipped.
    study : str
        The study being merged.
    source : str
        The corrections file's name, for messages.
    items : mapping, optional
        Item ID -> Item: a corrected ``chosen_entity`` must be in the domain.

    Returns
    -------
    (trials, report, problems)
        A corrected copy of *trials*; the corrections report
        (:data:`CORRECTION_REPORT_COLUMNS`); data-quality rows (``corrected``,
        ``excluded_by_correction``).

    Raises
    ------
    JudgmentsError
        A correction matches no trial or several, its ``old_value`` is not the
        trial's value, or its entity is not in the item's domain.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame([{"session": "s1", "participant": "p1", "subject": "p1",
    ...     "list": "L01", "order": 3, "item": "t1", "system": "A",
    ...     "target_entity": "e1", "chosen_entity": "e2", "choice": "e2",
    ...     "correct": False, "cant_tell": False, "timeout": False,
    ...     "duplicate": False, "excluded": False, "corrected": False,
    ...     "corrected_fields": None, "original_values": None,
    ...     "correction_reason": None, "exclusion_reason": None}])
    >>> c = Correction(line=2, session="s1", order=3, field="chosen_entity",
    ...                new_value="e1", reason="reported mis-click")
    >>> out, report, _ = apply_corrections(t, [c], study="id1")
    >>> row = out.iloc[0]
    >>> row["chosen_entity"], bool(row["correct"]), row["original_values"]
    ('e1', True, 'chosen_entity=e2')
    """
    out = trials.copy()
    report: list[dict[str, Any]] = []
    problems: list[dict[str, Any]] = []
    records = [{k: plain(v) for k, v in r.items()} for r in out.to_dict("records")]
    for correction in corrections:
        if correction.study is not None and correction.study != study:
            continue
        matches = [i for i, row in enumerate(records) if _matches(row, correction)]
        if len(matches) > 1:
            kept = [i for i in matches if not _flag(records[i].get("duplicate"))]
            matches = kept if kept else matches
        if not matches:
            raise JudgmentsError(
                "matches no trial of study "
                + study
                + " ("
                + _describe(correction)
                + ")",
                file=source,
                line=correction.line,
            )
        if len(matches) > 1:
            raise JudgmentsError(
                f"matches {len(matches)} trials ({_describe(correction)}); give the "
                "session and order",
                file=source,
                line=correction.line,
            )
        row = records[matches[0]]
        kind = CORRECTABLE_FIELDS[correction.field]
        name = correction.field
        current = row.get("excluded") if name == "exclude" else row.get(name)
        if correction.old_value is not None and not _same(
            kind, current, correction.old_value
        ):
            raise JudgmentsError(
                f"old_value {correction.old_value!r} is not the trial's value "
                f"{_text(current)!r} ({_describe(correction)})",
                file=source,
                line=correction.line,
                field="old_value",
            )
        item = items.get(str(row.get("item"))) if items else None
        if name == "chosen_entity" and item is not None and correction.new_value:
            ids = {e.id for e in item.domain.entities}
            if correction.new_value not in ids:
                raise JudgmentsError(
                    f"entity {correction.new_value} is not in the domain of "
                    f"{item.id} ({', '.join(sorted(ids))})",
                    file=source,
                    line=correction.line,
                    field="new_value",
                )
        _apply(row, correction)
        where = {
            "study": study,
            "source_file": source,
            "source_line": correction.line,
            "session": row.get("session"),
            "subject": row.get("subject"),
            "list_id": row.get("list"),
            "order": plain(row.get("order")),
            "item": row.get("item"),
            "system": row.get("system"),
            "field": name,
        }
        detail = (
            f"{name}: {_text(current) or '(empty)'} -> "
            f"{_text(correction.new_value) or '(empty)'} ({correction.reason})"
        )
        problems.append(
            problem(
                "excluded_by_correction" if name == "exclude" else "corrected",
                detail,
                **where,
            )
        )
        report.append(
            {
                "study": study,
                "corrections_line": correction.line,
                "session": row.get("session"),
                "subject": row.get("subject"),
                "list": row.get("list"),
                "order": plain(row.get("order")),
                "item": row.get("item"),
                "system": row.get("system"),
                "field": name,
                "old_value": _text(current),
                "new_value": _text(correction.new_value),
                "reason": correction.reason,
            }
        )
    import pandas as pd

    corrected = pd.DataFrame(records, columns=out.columns, dtype=object)
    logger.info("applied %d correction(s) to study %s", len(report), study)
    return corrected, report, problems


def _flag(value: Any) -> bool:
    return bool(value) if not is_missing(value) else False


def _matches(row: Mapping[str, Any], c: Correction) -> bool:
    if c.session is not None and row.get("session") != c.session:
        return False
    if c.participant is not None and row.get("participant") != c.participant:
        return False
    if c.order is not None and plain(row.get("order")) != c.order:
        return False
    if c.item is not None and row.get("item") != c.item:
        return False
    return not (c.system is not None and row.get("system") != c.system)


def _describe(c: Correction) -> str:
    parts = [
        f"{k} {v}"
        for k, v in (
            ("session", c.session),
            ("participant", c.participant),
            ("order", c.order),
            ("item", c.item),
            ("system", c.system),
        )
        if v is not None
    ]
    return ", ".join(parts)


def _append(row: dict[str, Any], key: str, text: str, sep: str) -> None:
    current = row.get(key)
    current = None if is_missing(current) else current
    parts = current.split(sep) if current else []
    if text not in parts:
        parts.append(text)
    row[key] = sep.join(parts)


def _apply(row: dict[str, Any], c: Correction) -> None:
    name = c.field
    original = row.get("excluded") if name == "exclude" else row.get(name)
    fields = (
        (row.get("corrected_fields") or "")
        if not is_missing(row.get("corrected_fields"))
        else ""
    )
    if name not in fields.split(","):
        _append(row, "original_values", f"{name}={_text(original)}", "; ")
    _append(row, "corrected_fields", name, ",")
    _append(row, "correction_reason", c.reason, "; ")
    row["corrected"] = True
    if name == "exclude":
        row["excluded"] = True
        _append(row, "exclusion_reason", "correction", "; ")
        return
    row[name] = c.new_value
    if name == "chosen_entity":
        target = row.get("target_entity")
        if c.new_value is not None:
            row["cant_tell"] = False
            row["timeout"] = False
            if not is_missing(target) and target is not None:
                row["correct"] = c.new_value == target
    elif name == "cant_tell" and c.new_value:
        row["chosen_entity"] = None
        row["correct"] = False
    elif name == "timeout" and c.new_value:
        row["chosen_entity"] = None
        row["correct"] = None
    if "choice" in row:
        from stecflow.judgments.flags import trial_choice

        if all(k in row for k in ("chosen_entity", "cant_tell", "timeout", "correct")):
            row["choice"] = trial_choice(
                {
                    k: (None if is_missing(row.get(k)) else row.get(k))
                    for k in (
                        "chosen_entity",
                        "cant_tell",
                        "timeout",
                        "correct",
                        "target_entity",
                    )
                }
            )

"""A system's ``self_reported`` scores in ``system.yaml`` (seed 001 Table 4).

Teams of TUNA-REG'09 computed Accuracy, SE and BLEU on the development data with
the organisers' scorer and printed them in their reports; the organisers then
scored the test data themselves. A ``system.yaml`` may give such scores as a list
under ``self_reported``, each entry with ``metric`` (the campaign's metric ID),
``value`` (on the scale the report shows: accuracies in %, BLEU-3 from 0 to 1),
``data`` (e.g. ``development``), optionally ``references`` (how many per item)
and ``note``. :func:`check_self_reported` checks them as
:func:`~stecflow.submissions.metadata.check_properties` checks the properties:
a malformed entry is an error that names the entry and its field (the team
fixes it as any other metadata error); a metric the campaign does not compute
is a warning, and the entry is kept (the report shows it without a test score).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`,
:mod:`stecflow.submissions`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from stecflow.tasks.base import Problem

__all__ = ["ENTRY_KEYS", "check_self_reported", "entry_lines"]

#: The keys of one entry: required ones first.
ENTRY_KEYS = ("metric", "value", "data", "references", "note")
_REQUIRED = ("metric", "value", "data")
_MAX_TEXT = {"metric": 64, "data": 200, "note": 500}

#: What a metric's range is, as the campaign passes it: (lowest, highest) on the
#: report's scale, either bound None where there is none.
Range = tuple[float | None, float | None]


def entry_lines(text: str, key: str = "self_reported") -> list[dict[str, int]]:
    """For each entry of the list under top-level *key*: its keys' lines (1-based),
    with ``""`` for the line the entry starts on. Empty if the YAML has no such
    list (the text has passed the hardened reader before).

    >>> entry_lines("team: t\\nself_reported:\\n  - metric: se\\n    value: 4\\n")
    [{'': 3, 'metric': 3, 'value': 4}]
    """
    import yaml

    try:
        node = yaml.compose(text)
    except yaml.YAMLError:
        return []
    if not isinstance(node, yaml.MappingNode):
        return []
    for k, value in node.value:
        if (
            isinstance(k, yaml.ScalarNode)
            and k.value == key
            and isinstance(value, yaml.SequenceNode)
        ):
            found = []
            for entry in value.value:
                lines = {"": entry.start_mark.line + 1}
                if isinstance(entry, yaml.MappingNode):
                    lines.update(
                        {
                            str(n.value): n.start_mark.line + 1
                            for n, _ in entry.value
                            if isinstance(n, yaml.ScalarNode)
                        }
                    )
                found.append(lines)
            return found
    return []


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _bounds_text(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"from {low:g} to {high:g}"
    if low is not None:
        return f"at least {low:g}"
    return f"at most {high:g}"


def _entry_problems(
    entry: Any,
    index: int,
    metrics: Mapping[str, Range] | None,
    label: str,
    lines: Mapping[str, int],
) -> tuple[list[Problem], list[Problem]]:
    """(errors, warnings) of one entry."""
    field = f"self_reported[{index}]"
    start = lines.get("")
    if not isinstance(entry, dict):
        return [
            Problem(
                "bad_self_reported",
                "expected a mapping with metric, value and data (optionally"
                f" references and note), got {_shown(entry)}",
                label,
                start,
                field,
            )
        ], []
    errors: list[Problem] = []
    for key in sorted(set(map(str, entry)) - set(ENTRY_KEYS)):
        errors.append(
            Problem(
                "bad_self_reported",
                f"unknown field {key[:60]!r} (an entry has: {', '.join(ENTRY_KEYS)})",
                label,
                lines.get(key, start),
                f"{field}.{key[:60]}",
            )
        )
    for key in _REQUIRED:
        if key not in entry:
            errors.append(
                Problem(
                    "bad_self_reported",
                    f"required field is missing ({_EXPECTED[key]})",
                    label,
                    start,
                    f"{field}.{key}",
                )
            )
    for key in ENTRY_KEYS:
        if key not in entry:
            continue
        value = entry[key]
        where = lines.get(key, start)
        message = _value_problem(key, value)
        if message:
            errors.append(
                Problem("bad_self_reported", message, label, where, f"{field}.{key}")
            )
    metric, value = entry.get("metric"), entry.get("value")
    warnings: list[Problem] = []
    if metrics is None or not isinstance(metric, str) or errors:
        return errors, warnings
    if metric not in metrics:
        known = ", ".join(metrics) or "none"
        warnings.append(
            Problem(
                "unknown_self_reported_metric",
                f"the campaign does not compute {metric!r} (it computes: {known});"
                " the score is shown without a test score beside it",
                label,
                lines.get("metric", start),
                f"{field}.metric",
                severity="warning",
            )
        )
        return errors, warnings
    low, high = metrics[metric]
    if (low is not None and value < low) or (high is not None and value > high):
        errors.append(
            Problem(
                "bad_self_reported",
                f"{metric} on the report's scale is {_bounds_text(low, high)}, got"
                f" {_shown(value)}",
                label,
                lines.get("value", start),
                f"{field}.value",
            )
        )
    return errors, warnings


#: What each key holds, for messages.
_EXPECTED = {
    "metric": "the campaign's metric ID, e.g. se",
    "value": "a number on the report's scale",
    "data": "the data it was computed on, e.g. development",
    "references": "a whole number of references per item, 1 or more",
    "note": "text",
}


def _value_problem(key: str, value: Any) -> str:
    """Why *value* cannot be the entry's *key*, or an empty string."""
    if key == "value":
        if not _number(value):
            return f"expected a number, got {_shown(value)}"
        try:
            finite = math.isfinite(value)
        except OverflowError:  # an int beyond every float
            return "expected a finite number, got a whole number beyond every float"
        if not finite:
            return f"expected a finite number, got {value}"
        return ""
    if key == "references":
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            return f"expected {_EXPECTED[key]}, got {_shown(value)}"
        return ""
    if not isinstance(value, str) or (key != "note" and not value.strip()):
        return f"expected {_EXPECTED[key]}, got {_shown(value)}"
    if len(value) > _MAX_TEXT[key]:
        return f"{_shown(value)} is too long (at most {_MAX_TEXT[key]:,} characters)"
    return ""


def _shown(value: Any) -> str:
    from stecflow.submissions.metadata import _shown as shown

    return shown(value)


def check_self_reported(
    entries: Any,
    metrics: Mapping[str, Range] | None,
    label: str,
    lines: Sequence[Mapping[str, int]] = (),
    line: int | None = None,
) -> tuple[list[dict[str, Any]], list[Problem]]:
    """Check a system's ``self_reported`` list.

    Parameters
    ----------
    entries
        The ``self_reported`` value of ``system.yaml``.
    metrics
        The campaign's metric IDs, in report order, each with its range on the
        report's scale (``(0, 100)`` for an accuracy in %, ``(0, None)`` for
        SE); None when the campaign is not known (only the form is checked).
    label
        The file, for the problems.
    lines
        Each entry's key lines (:func:`entry_lines`).
    line
        The line of the ``self_reported`` key.

    Returns
    -------
    (list, list)
        The entries that passed (keys in :data:`ENTRY_KEYS` order), and the
        problems: a malformed entry, a value out of its metric's range, or the
        same metric on the same data and references twice is an error
        (``bad_self_reported``); a metric the campaign does not compute is a
        warning (``unknown_self_reported_metric``; the entry is kept).

    Examples
    --------
    >>> ok, problems = check_self_reported(
    ...     [{"metric": "se", "value": 4.3, "data": "development", "references": 1},
    ...      {"metric": "string_accuracy", "value": 140, "data": "development"},
    ...      {"metric": "meteor", "value": 0.3, "data": "development"}],
    ...     {"string_accuracy": (0, 100), "se": (0, None)}, "t/s/system.yaml")
    >>> [e["metric"] for e in ok]
    ['se', 'meteor']
    >>> [(p.code, p.field, p.message) for p in problems]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('bad_self_reported', 'self_reported[1].value',
      "string_accuracy on the report's scale is from 0 to 100, got the number 140"),
     ('unknown_self_reported_metric', 'self_reported[2].metric',
      "the campaign does not compute 'meteor' (it computes: string_accuracy, se);
      the score is shown without a test score beside it")]
    """
    if not isinstance(entries, list):
        return [], []  # the schema check names a value that is not a list
    accepted: list[dict[str, Any]] = []
    problems: list[Problem] = []
    seen: dict[tuple[Any, ...], int] = {}
    for index, entry in enumerate(entries):
        where = lines[index] if index < len(lines) else {"": line} if line else {}
        errors, warnings = _entry_problems(entry, index, metrics, label, where)
        if not errors:
            key = (entry["metric"], entry["data"], entry.get("references"))
            if key in seen:
                errors.append(
                    Problem(
                        "bad_self_reported",
                        f"entry {seen[key]} already gives {entry['metric']} on"
                        f" {entry['data']!r}"
                        + (
                            f" with {entry['references']} references"
                            if entry.get("references")
                            else ""
                        )
                        + "; give each score once",
                        label,
                        where.get("", line),
                        f"self_reported[{index}]",
                    )
                )
            else:
                seen[key] = index
        problems += errors + warnings
        if not errors:
            accepted.append({k: entry[k] for k in ENTRY_KEYS if k in entry})
    return accepted, problems

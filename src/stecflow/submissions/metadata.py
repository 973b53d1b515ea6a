"""A submission's ``system.yaml``: its schema, its timestamps, lateness.

:func:`_read_metadata` reads the file with the hardened YAML reader and checks it
against ``schemas/submission.schema.yaml`` (its ``tasks`` limited to the registered
task types): first with the schema compiled by fastjsonschema, which answers a
valid file in milliseconds; a file it refuses then goes through jsonschema, whose
every error becomes a :class:`Problem` with the line of its key and a message in
plain words. :func:`check_properties` checks the
``properties`` a system declares against the names and types the campaign declares
(``submissions.properties`` in its config), and
:mod:`~stecflow.submissions.self_reported` the scores a team reports itself
(``self_reported``).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`,
:mod:`stecflow.submissions`.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from stecflow.core.errors import StecflowError
from stecflow.submissions.files import METADATA_FILE
from stecflow.submissions.reading import _read_regular, _unreadable
from stecflow.tasks.base import Problem

__all__ = [
    "PROPERTY_TYPES",
    "check_properties",
    "is_late",
    "parse_timestamp",
    "timestamp_text",
]


def parse_timestamp(value: str) -> dt.datetime:
    """Parse an ISO 8601 timestamp with a time zone (``Z`` allowed).

    >>> parse_timestamp("2026-06-01T23:59:59Z").isoformat()
    '2026-06-01T23:59:59+00:00'
    """
    parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        raise ValueError(f"timestamp {value!r} has no time zone (add Z for UTC)")
    return parsed


def timestamp_text(value: Any) -> Any:
    """An unquoted YAML timestamp as ISO 8601 text (UTC if it has no zone).

    >>> timestamp_text(dt.datetime(2026, 6, 1, 12, 0))
    '2026-06-01T12:00:00Z'
    >>> timestamp_text("2026-06-01T12:00:00+02:00")
    '2026-06-01T12:00:00+02:00'
    """
    if not isinstance(value, dt.datetime):
        return value
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    return value.isoformat().replace("+00:00", "Z")


def is_late(metadata: Mapping[str, Any], deadline: str | None) -> bool:
    """Return True if the submission is marked late or arrived after *deadline*.

    >>> is_late({"submitted": "2026-06-02T00:00:00Z"}, "2026-06-01T23:59:59Z")
    True
    >>> is_late({"submitted": "2026-06-01T10:00:00+02:00", "late": False}, None)
    False
    """
    if metadata.get("late") is not None:
        return bool(metadata["late"])
    if deadline is None or not isinstance(metadata.get("submitted"), str):
        return False
    try:
        return parse_timestamp(metadata["submitted"]) > parse_timestamp(deadline)
    except ValueError:
        return False


def _submission_schema() -> dict:
    """The metadata schema, ``tasks`` limited to the registered task types."""
    import yaml

    from stecflow.data.yamlsafe import FAST_SAFE_LOADER
    from stecflow.tasks.registry import names

    text = (
        resources.files("stecflow.submissions")
        .joinpath("schemas/submission.schema.yaml")
        .read_text()
    )
    schema = yaml.load(text, Loader=FAST_SAFE_LOADER)  # ours: 10 ms less a job
    schema["properties"]["tasks"]["items"]["enum"] = list(names())
    return schema


@functools.cache
def _quick_check(task_names: tuple[str, ...]) -> Callable[[Any], Any]:
    """The schema compiled to Python by fastjsonschema (one per set of task types:
    *task_names*, the registered ones, is the cache's key)."""
    import fastjsonschema

    return fastjsonschema.compile(
        _submission_schema(), use_default=False, use_formats=False
    )


def _conforms(metadata: Any) -> bool:
    """True if *metadata* meets the schema, by the quick compiled check.

    Most files do, and answering that takes fastjsonschema a few milliseconds
    where importing jsonschema takes a tenth of a second, in every job. Only a
    file this check refuses goes through jsonschema, which lists every problem
    with its place. The quick check never accepts what jsonschema refuses (it
    is stricter in one place: ``$`` in a pattern means the very end, not also
    before a final newline), as ``tests/unit/test_metadata_quick_check.py``
    checks on valid, broken and hostile files.
    """
    import fastjsonschema

    from stecflow.tasks.registry import names

    try:
        _quick_check(tuple(names()))(metadata)
    except fastjsonschema.JsonSchemaValueException:
        return False
    return True


def _key_lines(text: str) -> dict[str, int]:
    """Map each top-level YAML key to its line number (1-based).

    Only called on text that :func:`~stecflow.data.yamlsafe.load_yaml` has accepted
    (bounded in size and nesting).
    """
    import yaml

    try:
        node = yaml.compose(text)
    except yaml.YAMLError:
        return {}
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {
        str(k.value): k.start_mark.line + 1
        for k, _ in node.value
        if isinstance(k, yaml.ScalarNode)
    }


#: How the types of the submission schema are named in messages.
_TYPE_WORDS = {
    "string": "text",
    "boolean": "true or false",
    "array": "a list",
    "object": "a mapping",
    "integer": "a whole number",
    "number": "a number",
    "null": "nothing (null)",
}


def _shown(value: Any, limit: int = 60) -> str:
    """A value as a message shows it: its kind and a short form."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = value if len(value) <= limit else value[: limit - 3] + "..."
        more = f", {len(value):,} characters" if len(value) > limit else ""
        return f"the text {text!r}{more}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return f"a mapping of {len(value)} keys"
    return type(value).__name__


def _schema_message(error: Any) -> str:
    """A jsonschema error in plain words, with the value cut to a readable size."""
    expected = error.schema.get("description", "")
    got = _shown(error.instance)
    if error.validator == "type":
        types = error.validator_value
        types = [types] if isinstance(types, str) else types
        return (
            f"expected {' or '.join(_TYPE_WORDS.get(t, t) for t in types)}, got {got}"
        )
    if error.validator == "pattern":
        return f"{got} does not have the expected form. {expected}".strip()
    if error.validator == "enum":
        allowed = ", ".join(str(v) for v in error.validator_value)
        return f"expected one of {allowed}, got {got}"
    if error.validator in ("minLength", "minItems"):
        return f"{got} is too short"
    if error.validator in ("maxLength", "maxItems"):
        return f"{got} is too long (at most {error.validator_value:,})"
    if error.validator == "uniqueItems":
        return "the list has repeated entries; give each once"
    message = error.message
    return message if len(message) <= 200 else message[:197] + "..."


def _nested_key_lines(text: str, key: str) -> dict[str, int]:
    """Map each key of the mapping under top-level *key* to its line (1-based)."""
    import yaml

    try:
        node = yaml.compose(text)
    except yaml.YAMLError:
        return {}
    if not isinstance(node, yaml.MappingNode):
        return {}
    for k, value in node.value:
        if (
            isinstance(k, yaml.ScalarNode)
            and k.value == key
            and isinstance(value, yaml.MappingNode)
        ):
            return {
                str(n.value): n.start_mark.line + 1
                for n, _ in value.value
                if isinstance(n, yaml.ScalarNode)
            }
    return {}


#: Types a campaign may declare for a system property, with the Python types of
#: their values (a list of allowed values declares a string property).
PROPERTY_TYPES: dict[str, tuple[type, ...]] = {
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
    "string": (str,),
}


def _property_ok(value: Any, declared: Any) -> bool:
    if isinstance(declared, list):
        return isinstance(value, str) and value in declared
    if isinstance(value, bool) and declared != "boolean":
        return False  # YAML true is no number
    return isinstance(value, PROPERTY_TYPES.get(str(declared), ()))


def _declared_text(declared: Any) -> str:
    if isinstance(declared, list):
        return "one of " + ", ".join(str(v) for v in declared)
    return _TYPE_WORDS.get(str(declared), str(declared))


def check_properties(
    properties: Any,
    declared: Mapping[str, Any] | None,
    label: str,
    lines: Mapping[str, int] | None = None,
    line: int | None = None,
) -> tuple[dict[str, Any], list[Problem]]:
    """Check a system's ``properties`` against the campaign's declared ones.

    Parameters
    ----------
    properties
        The ``properties`` of ``system.yaml`` (a mapping; anything else is left
        to the schema check).
    declared
        The config's ``submissions.properties``: name -> ``boolean``,
        ``integer``, ``number``, ``string`` or a list of allowed values.
    label
        The file, for the problems.
    lines
        Property name -> its line in the file.
    line
        The line of the ``properties`` key (for properties that are missing).

    Returns
    -------
    (dict, list)
        The properties that passed (name -> value, in declared order), and the
        problems: an undeclared name or a value of the wrong type is an error
        (``unknown_property``, ``bad_property``); a declared property the
        system does not give is a warning (``missing_property``: the system
        stays out of the analyses by that property).

    Examples
    --------
    >>> ok, problems = check_properties(
    ...     {"incremental": True, "uses_type": "often", "colour": "red"},
    ...     {"incremental": "boolean", "trainable": "boolean",
    ...      "uses_type": ["always", "never"]},
    ...     "t/s/system.yaml", {"incremental": 9, "uses_type": 10, "colour": 11})
    >>> ok
    {'incremental': True}
    >>> [(p.code, p.line, p.field, p.severity) for p in problems]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('bad_property', 10, 'properties.uses_type', 'error'),
     ('unknown_property', 11, 'properties.colour', 'error'),
     ('missing_property', None, 'properties.trainable', 'warning')]
    """
    declared = dict(declared or {})
    given = properties if isinstance(properties, dict) else {}
    lines = lines or {}
    problems: list[Problem] = []
    accepted: dict[str, Any] = {}
    for name, value in given.items():
        where = lines.get(str(name))
        field = f"properties.{name}"
        if name not in declared:
            known = ", ".join(declared) or "none are declared"
            problems.append(
                Problem(
                    "unknown_property",
                    f"this campaign does not ask for property {name!r} (it asks"
                    f" for: {known})",
                    label,
                    where,
                    field,
                )
            )
        elif not _property_ok(value, declared[name]):
            problems.append(
                Problem(
                    "bad_property",
                    f"expected {_declared_text(declared[name])}, got {_shown(value)}",
                    label,
                    where,
                    field,
                )
            )
    for name, kind in declared.items():
        if name in given and _property_ok(given[name], kind):
            accepted[name] = given[name]
        elif name not in given:
            problems.append(
                Problem(
                    "missing_property",
                    f"the campaign asks for this property"
                    f" ({_declared_text(kind)}); without it the system stays out of"
                    " the analyses by it",
                    label,
                    line,
                    f"properties.{name}",
                    severity="warning",
                )
            )
    return accepted, problems


def _schema_problems(
    metadata: dict[str, Any], lines: dict[str, int], label: str
) -> list[Problem]:
    """Every way *metadata* breaks the schema, as problems with their lines."""
    import jsonschema

    problems = []
    validator = jsonschema.Draft202012Validator(_submission_schema())
    for error in sorted(validator.iter_errors(metadata), key=lambda e: list(e.path)):
        key = str(error.path[0]) if error.path else None
        if key == "properties" and len(error.path) > 1:
            continue  # a property's value: check_properties names it, with its line
        if key == "self_reported" and len(error.path) > 1:
            continue  # an entry: check_self_reported names it, with its line
        field = key
        if key is not None and len(error.path) > 1:
            field = key + "".join(f"[{p}]" for p in list(error.path)[1:])
        if error.validator == "required":
            missing = error.message.split("'")[1]
            problems.append(
                Problem(
                    "incomplete_metadata",
                    "required field is missing",
                    label,
                    None,
                    missing,
                )
            )
        elif error.validator == "additionalProperties":
            known = ", ".join(_submission_schema()["properties"])
            for extra in sorted(set(metadata) - set(error.schema["properties"])):
                problems.append(
                    Problem(
                        "unknown_metadata_key",
                        f"unknown field (the fields are: {known})",
                        label,
                        lines.get(extra),
                        extra if len(extra) <= 60 else extra[:57] + "...",
                    )
                )
        else:
            problems.append(
                Problem(
                    "bad_metadata",
                    _schema_message(error),
                    label,
                    lines.get(key) if key else None,
                    field,
                )
            )
    return problems


def _read_metadata(
    path: Path,
    label: str,
    team: str,
    system: str,
    max_bytes: int = 64 * 1024,
    properties: Mapping[str, Any] | None = None,
    metrics: Mapping[str, tuple[float | None, float | None]] | None = None,
) -> tuple[dict[str, Any], list[Problem]]:
    """Read ``system.yaml`` with the hardened reader and check it against its schema.

    Never raises on bad content: every problem becomes a :class:`Problem` naming
    the field and, where known, the line. Dates and timestamps come back as ISO
    8601 text (a date alone means midnight UTC). *properties* are the campaign's
    declared system properties (:func:`check_properties`; a human reference set,
    ``reference: true``, need not give them); the metadata returned keeps under
    ``properties`` only those that passed. *metrics* are the campaign's metric IDs
    with their ranges on the report's scale, against which the ``self_reported``
    scores are checked
    (:func:`~stecflow.submissions.self_reported.check_self_reported`; None: only
    their form); the metadata keeps under ``self_reported`` only the entries that
    passed.
    """
    from stecflow.core.errors import YAMLError
    from stecflow.data.yamlsafe import load_yaml
    from stecflow.submissions.files import not_a_file

    kind = not_a_file(path)
    if kind is not None:
        return {}, [
            Problem(
                "missing_metadata",
                f"{METADATA_FILE} is {kind}, not a file; put the metadata in a"
                f" regular file named {METADATA_FILE}",
                label,
            )
        ]
    if not path.is_file():
        return {}, [
            Problem(
                "missing_metadata",
                f"no {METADATA_FILE}; add one with team, system, description, contact,"
                " primary, submitted and tasks (see the README)",
                label,
            )
        ]
    size = path.stat().st_size
    if size > max_bytes:
        return {}, [
            Problem(
                "metadata_too_large",
                f"the file is {size:,} bytes; the limit is {max_bytes:,} bytes"
                " (a system.yaml is a few hundred bytes)",
                label,
            )
        ]
    try:
        raw = _read_regular(path, max_bytes + 1)
    except (OSError, StecflowError) as exc:
        return {}, [_unreadable(exc, label)]
    try:
        metadata = load_yaml(raw, label, max_bytes=max_bytes)
    except YAMLError as exc:
        code = "undecodable" if "UTF-8" in exc.message else "bad_yaml"
        if " is U+" in exc.message and exc.message.startswith("character "):
            code = "bad_character"  # a lone surrogate, a control character
        return {}, [Problem(code, exc.message, label, exc.line, exc.field)]
    if not isinstance(metadata, dict):
        return {}, [
            Problem(
                "bad_yaml",
                f"expected a mapping of fields to values, got {_shown(metadata)}",
                label,
                1,
            )
        ]
    lines = _key_lines(raw.decode("utf-8-sig"))
    problems = [] if _conforms(metadata) else _schema_problems(metadata, lines, label)
    for key, expected in (("team", team), ("system", system)):
        value = metadata.get(key)
        if isinstance(value, str) and value != expected:
            problems.append(
                Problem(
                    "metadata_mismatch",
                    f"says {_shown(value)} but the folder is named {expected!r};"
                    " make them the same",
                    label,
                    lines.get(key),
                    key,
                )
            )
    # a human reference set has no algorithm: it need not give the properties
    reference_only = metadata.get("reference") is True and not metadata.get(
        "properties"
    )
    if (properties or metadata.get("properties")) and not reference_only:
        accepted, found = check_properties(
            metadata.get("properties"),
            properties,
            label,
            _nested_key_lines(raw.decode("utf-8-sig"), "properties"),
            lines.get("properties"),
        )
        problems.extend(found)
        metadata = {**metadata, "properties": accepted}
    if "self_reported" in metadata:
        from stecflow.submissions.self_reported import (
            check_self_reported,
            entry_lines,
        )

        reported, found = check_self_reported(
            metadata["self_reported"],
            metrics,
            label,
            entry_lines(raw.decode("utf-8-sig")),
            lines.get("self_reported"),
        )
        problems.extend(found)
        metadata = {**metadata, "self_reported": reported}
    return metadata, problems

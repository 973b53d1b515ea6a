"""Text generation: one text per input (data-to-text, summarisation, responses).

The task of WebNLG-, E2E- or GEM-style shared tasks: a system reads an item's
input (a text, RDF-style triples or any JSON object) and writes one text, scored
against one or more human references.

Items: the test set is a JSON Lines file (:mod:`stecflow.data.jsonl` owns its
line format and its hardened reader); :func:`items_from_records` makes one
:class:`~stecflow.data.model.Item` per line: ``Item(id, Domain(()),
subdomain="all", references=(Reference(word_string=r, id="ref1"), ...),
extra=<sorted meta pairs>, input=TextInput(kind, value))``. The meta fields give
the subsets scores are reported on (config ``data.subsets``, e.g. ``category``,
``seen``). :func:`read_items` reads a test set, :func:`format_testset` /
:func:`write_testset` write the canonical JSON Lines file the campaign prepares
(``results/data/testset.jsonl``).

Outputs: a submission folder holds exactly one of (:data:`OUTPUTS_FILES`):

* ``outputs.jsonl``: one ``{"id": "...", "output": "..."}`` object per line, in
  any order (other keys are ignored, with a warning);
* ``outputs.txt``: one output per line, in test-set order; the file has exactly
  as many lines as the test set has items (an empty line is an empty output);
* ``outputs.json``: GEM style, as GEM-metrics reads predictions
  (``gem_metrics.texts.Predictions``: ``{"language": "en", "values":
  [{"gem_id": "...", "generated": "..."}, ...]}``); each value may instead use
  ``id`` and ``output``, or be a plain string (then the values are in test-set
  order, or keyed by a parallel ``keys`` list as in a GEM benchmark submission).
  A GEM submission file (``{"submission_name": ..., "tasks": {<dataset>:
  {"values": [...], "keys": [...]}}}``) is read when it holds one dataset.

:func:`read_outputs` reads any of them (which, by the file name it is given;
other names are recognised by their content) and never raises: every problem is
a :class:`~stecflow.tasks.base.Problem` with the file, the line and the field
(missing, repeated and unknown IDs, a wrong number of lines or values,
undecodable bytes, a byte-order mark, JSON errors, the limits; an empty output
is a warning). An :class:`~stecflow.data.model.Output` holds the text as
``word_string`` and its line. :func:`format_outputs` / :func:`write_outputs`
write ``outputs.jsonl``.

Metrics: sacreBLEU's BLEU, chrF++ and TER by default (:data:`DEFAULT_METRICS`),
and every text metric (string accuracy, string edit distance, ...) against all
references of an item.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from stecflow.core.errors import CorpusError
from stecflow.data._json import _decode, _line_finder, _parse_text
from stecflow.data.jsonl import (
    TestRecord,
    check_id,
    parse_lines,
    split_lines,
)
from stecflow.data.jsonl import read_testset as read_records
from stecflow.data.model import Domain, Item, Output, Reference
from stecflow.tasks.base import Limits, Problem, TaskType

__all__ = [
    "DEFAULT_METRICS",
    "INPUT_KINDS",
    "OUTPUTS_FILE",
    "OUTPUTS_FILES",
    "SUBDOMAIN",
    "TASK",
    "TextInput",
    "format_outputs",
    "format_testset",
    "items_from_records",
    "read_items",
    "read_outputs",
    "write_outputs",
    "write_testset",
]

#: The outputs file :func:`write_outputs` writes.
OUTPUTS_FILE = "outputs.jsonl"
#: The names a submission's outputs file may have (one per folder).
OUTPUTS_FILES = ("outputs.jsonl", "outputs.txt", "outputs.json")
#: sacreBLEU's BLEU, chrF++ and TER (:mod:`stecflow.metrics.sacrebleu`).
DEFAULT_METRICS = ("bleu", "chrf", "ter")
#: The subdomain of every item (subsets come from meta fields instead).
SUBDOMAIN = "all"
#: What an input may be.
INPUT_KINDS = ("text", "triples", "json")
#: Deepest nesting in an outputs file (GEM's values sit three levels down).
_MAX_DEPTH = 8
#: Problems of one kind listed line by line; the rest are counted in one.
_LISTED = 20


@dataclass(frozen=True)
class TextInput:
    """The input of a text-generation item, in a hashable form.

    ``kind`` is ``"text"`` (``value`` the text), ``"triples"`` (a tuple of
    ``(subject, predicate, object)`` tuples) or ``"json"`` (the object as
    canonical JSON text, keys sorted).

    >>> TextInput("triples", (("Alan_Bean", "occupation", "Test_pilot"),)).data
    [['Alan_Bean', 'occupation', 'Test_pilot']]
    >>> TextInput("json", '{"area":"riverside","name":"Aromi"}').data["name"]
    'Aromi'
    """

    kind: str
    value: Any

    @property
    def data(self) -> Any:
        """The input as the test set gives it (text, list of lists, object)."""
        if self.kind == "triples":
            return [list(triple) for triple in self.value]
        if self.kind == "json":
            return json.loads(self.value)
        return self.value


def items_from_records(records: Iterable[TestRecord]) -> list[Item]:
    """One :class:`Item` per test-set record (see the module's docs).

    >>> from stecflow.data.jsonl import load_testset
    >>> records = load_testset(b'{"id": "t1", "input": "Aromi, riverside",'
    ...     b' "references": ["Aromi is by the river.", "Aromi: riverside."],'
    ...     b' "meta": {"seen": "seen"}}', "t.jsonl")
    >>> item = items_from_records(records)[0]
    >>> [r.id for r in item.references], item.extra, item.input.kind
    (['ref1', 'ref2'], (('seen', 'seen'),), 'text')
    """
    return [
        Item(
            record.id,
            Domain(()),
            SUBDOMAIN,
            None,
            tuple(
                Reference(word_string=text, id=f"ref{n}")
                for n, text in enumerate(record.references, start=1)
            ),
            extra=record.meta,
            input=TextInput(record.kind, record.input),
        )
        for record in records
    ]


def read_items(path: str | Path) -> list[Item]:
    """The items of a JSON Lines test set (:func:`stecflow.data.jsonl.read_testset`).

    Raises
    ------
    CorpusError
        At the first problem of the file, with its line and field.
    """
    return items_from_records(read_records(path))


def _line_of(item: Item) -> dict[str, Any]:
    if not isinstance(item.input, TextInput):
        raise ValueError(f"item {item.id} is not a text-generation item")
    line: dict[str, Any] = {
        "id": item.id,
        "input": item.input.data,
        "references": [r.word_string for r in item.references],
    }
    if item.extra:
        line["meta"] = dict(item.extra)
    return line


def format_testset(items: Iterable[Item]) -> str:
    """The canonical JSON Lines text of text-generation *items*: one line each,
    keys sorted, UTF-8 characters as they are.

    >>> item = Item("t1", Domain(()), "all", references=(Reference("Hi."),),
    ...             input=TextInput("text", "greet"))
    >>> format_testset([item])
    '{"id": "t1", "input": "greet", "references": ["Hi."]}\\n'
    """
    return "".join(
        json.dumps(_line_of(item), ensure_ascii=False, sort_keys=True) + "\n"
        for item in items
    )


def write_testset(items: Iterable[Item], path: str | Path) -> int:
    """Write :func:`format_testset` to *path* (UTF-8); return the item count."""
    items = list(items)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_bytes(format_testset(items).encode("utf-8"))
    return len(items)


# ---------------------------------------------------------------- outputs files


def _format_of(label: str, text: str) -> str:
    """Which outputs format: by the file name, else by the content."""
    suffix = PurePosixPath(label.replace("\\", "/")).suffix.lower()
    if suffix in (".jsonl", ".txt", ".json"):
        return suffix[1:]
    if not text.lstrip().startswith("{"):
        return "txt"
    try:  # one JSON document (GEM style), or one object per line?
        value = json.loads(text)
    except (ValueError, RecursionError):
        return "jsonl"
    gem = isinstance(value, dict) and bool({"values", "tasks"} & set(value))
    return "json" if gem else "jsonl"


def _decoded(
    data: bytes, label: str, limits: Limits
) -> tuple[str | None, list[Problem]]:
    if len(data) > limits.outputs_bytes:
        return None, [
            Problem(
                "outputs_too_large",
                f"the file is {len(data):,} bytes; the limit is"
                f" {limits.max_outputs_mib:g} MiB (submissions.limits.max_outputs_mib"
                " in the campaign config)",
                label,
            )
        ]
    try:
        return _decode(data, label, len(data)), []
    except CorpusError as exc:
        if "byte-order" in exc.message:
            return None, [Problem("byte_order_mark", exc.message, label, exc.line)]
    if label.endswith(".json"):  # one document: nothing to read around the bytes
        text = data.decode("utf-8", errors="replace")
        line = text.count("\n", 0, text.index("\ufffd")) + 1
        message = "bytes are not valid UTF-8; save the file as UTF-8"
        return None, [Problem("undecodable", message, label, line)]
    # A line-based file: every line with bad bytes is an error, and the other
    # lines are still read and checked (the bad ones as replacement characters).
    problems = []
    for n, raw in enumerate(data.split(b"\n"), 1):
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            problems.append(
                Problem(
                    "undecodable",
                    "bytes on this line are not valid UTF-8; save the file as UTF-8",
                    label,
                    n,
                )
            )
    return data.decode("utf-8", errors="replace"), problems


def _entries_jsonl(
    text: str, label: str, problems: list[Problem]
) -> list[tuple[int, str | None, Any]]:
    """``(line, id, output)`` of every line that is an object with both keys."""
    entries: list[tuple[int, str | None, Any]] = []
    unknown: dict[str, int] = {}
    blank = [n for n, line in enumerate(split_lines(text), 1) if not line.strip()]
    if blank:
        problems.append(
            Problem(
                "blank_line",
                f"{len(blank):,} blank line{'' if len(blank) == 1 else 's'} ignored"
                f" (first: line {blank[0]}); give one object per line",
                label,
                blank[0],
                severity="warning",
            )
        )
    for n, value in parse_lines(text, label, max_depth=_MAX_DEPTH, skip_blank=True):
        if isinstance(value, CorpusError):
            problems.append(
                Problem("json_syntax", value.message, label, n, value.field)
            )
            continue
        if not isinstance(value, dict):
            problems.append(
                Problem(
                    "bad_line",
                    'expected an object {"id": ..., "output": ...} on each line',
                    label,
                    n,
                )
            )
            continue
        for key in value:
            if key not in ("id", "output"):
                unknown.setdefault(key, n)
        if "id" not in value:
            problems.append(
                Problem("missing_id", "no id; give the item's ID", label, n, "id")
            )
            continue
        if "output" not in value:
            problems.append(
                Problem(
                    "bad_output",
                    "no output; give the system's text",
                    label,
                    n,
                    "output",
                )
            )
            continue
        entries.append((n, value["id"], value["output"]))
    if unknown:
        keys = ", ".join(repr(k) for k in unknown)
        problems.append(
            Problem(
                "unknown_key",
                f"key {keys} ignored (first on line {min(unknown.values())}); an"
                " output line has the keys id and output",
                label,
                min(unknown.values()),
                next(iter(unknown)),
                "warning",
            )
        )
    return entries


def _entries_txt(
    text: str, label: str, items: Sequence[Item], problems: list[Problem]
) -> list[tuple[int, str | None, Any]]:
    lines = split_lines(text)
    if len(lines) != len(items):
        problems.append(
            Problem(
                "line_count",
                f"{len(lines):,} line{'' if len(lines) == 1 else 's'}; the test set"
                f" has {len(items):,} items: give"
                " one line per item, in test-set order (an output may be empty,"
                " its line may not be missing)",
                label,
                min(len(lines), len(items)) + 1 if lines else None,
            )
        )
    return [
        (n, item.id, line)
        for n, (line, item) in enumerate(zip(lines, items, strict=False), start=1)
    ]


def _entries_gem(
    text: str, label: str, items: Sequence[Item], problems: list[Problem]
) -> list[tuple[int, str | None, Any]]:
    try:
        raw = _parse_text(text, label, _MAX_DEPTH)
    except CorpusError as exc:
        problems.append(Problem("json_syntax", exc.message, label, exc.line, exc.field))
        return []
    line = _line_finder(text)
    path: tuple[Any, ...] = ()
    if isinstance(raw, dict) and "values" not in raw and "tasks" in raw:
        tasks = raw["tasks"]
        if not isinstance(tasks, dict) or len(tasks) != 1:
            count = len(tasks) if isinstance(tasks, dict) else 0
            problems.append(
                Problem(
                    "gem_tasks",
                    f"the GEM submission holds {count} datasets under tasks; give"
                    " the outputs of this test set alone",
                    label,
                    line(["tasks"]),
                    "tasks",
                )
            )
            return []
        name = next(iter(tasks))
        raw, path = tasks[name], ("tasks", name)
    if not isinstance(raw, dict) or not isinstance(raw.get("values"), list):
        problems.append(
            Problem(
                "bad_gem",
                'expected a GEM predictions object {"language": "en", "values":'
                ' [{"gem_id": ..., "generated": ...}, ...]}',
                label,
                line(path),
                ".".join(map(str, (*path, "values"))),
            )
        )
        return []
    values = raw["values"]
    keys = raw.get("keys")
    if keys is not None and not (
        isinstance(keys, list)
        and len(keys) == len(values)
        and all(isinstance(k, str) for k in keys)
    ):
        problems.append(
            Problem(
                "bad_keys",
                f"keys must list one ID (a string) per value ({len(values):,})",
                label,
                line([*path, "keys"]),
                "keys",
            )
        )
        keys = None
    entries: list[tuple[int, str | None, Any]] = []
    for n, value in enumerate(values):
        where = [*path, "values", n]
        at = line(where)
        if isinstance(value, str):
            entries.append((at, keys[n] if keys else None, value))
        elif isinstance(value, dict):
            item_id = value.get("gem_id", value.get("id", keys[n] if keys else None))
            output = value.get("generated", value.get("output"))
            if output is None:
                problems.append(
                    Problem(
                        "bad_output",
                        "no generated (or output) text in this value",
                        label,
                        at,
                        f"values[{n}]",
                    )
                )
                continue
            entries.append((at, item_id, output))
        else:
            problems.append(
                Problem(
                    "bad_value",
                    "a value is a string or an object with gem_id and generated",
                    label,
                    at,
                    f"values[{n}]",
                )
            )
    with_id = [e for e in entries if e[1] is not None]
    if entries and not with_id:  # positional, as GEM-metrics reads them
        if len(values) != len(items):
            problems.append(
                Problem(
                    "value_count",
                    f"{len(values):,} values without IDs; the test set has"
                    f" {len(items):,} items: give one value per item, in test-set"
                    " order, or give each its gem_id",
                    label,
                    line([*path, "values"]),
                    "values",
                )
            )
        return [
            (at, item.id, output)
            for (at, _, output), item in zip(entries, items, strict=False)
        ]
    for at, item_id, _ in entries:
        if item_id is None:
            problems.append(
                Problem(
                    "missing_id",
                    "no gem_id (or id) in this value, while others have one",
                    label,
                    at,
                    "gem_id",
                )
            )
    return with_id


def _json_type(value: Any) -> str:
    """How JSON names the type of a parsed *value*.

    >>> _json_type(None), _json_type(3), _json_type([1])
    ('null', 'a number', 'a list')
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    return "a list" if isinstance(value, list) else "an object"


def _counted(problems: list[Problem], code: str, found: list[Problem]) -> None:
    problems.extend(found[:_LISTED])
    if len(found) > _LISTED:
        first = found[0]
        problems.append(
            Problem(
                code,
                f"... and {len(found) - _LISTED:,} more",
                first.file,
                severity=first.severity,
            )
        )


def read_outputs(
    data: bytes,
    label: str,
    items: Sequence[Item],
    required: Sequence[str] = (),
    limits: Limits | None = None,
) -> tuple[list[Output], list[Problem]]:
    """Read an outputs file of the text task: every problem with its line.

    Parameters
    ----------
    data
        The file's bytes (UTF-8 without a byte-order mark).
    label
        How messages name the file; its suffix (``.jsonl``, ``.txt``,
        ``.json``) says the format (another name: recognised by the content).
    items
        The test-set items, in test-set order.
    required
        Unused: every item needs its text (a missing one is an error).
    limits
        ``max_outputs_mib`` (the file), ``max_trials`` (outputs read),
        ``max_word_string_chars`` (one output).

    Returns
    -------
    (outputs, problems)
        The outputs read, in test-set order, and every problem; never raises.

    Examples
    --------
    >>> items = [Item(f"t{n}", Domain(()), "all") for n in (1, 2, 3)]
    >>> outs, probs = read_outputs(
    ...     b'{"id": "t1", "output": "A."}\\n{"id": "t9", "output": "B."}\\n'
    ...     b'{"id": "t1", "output": "C."}\\n{"id": "t2", "output": " "}\\n',
    ...     "team/sys/outputs.jsonl", items)
    >>> [(o.item_id, o.word_string, o.line) for o in outs]
    [('t1', 'A.', 1), ('t2', ' ', 4)]
    >>> for p in probs:
    ...     print(p.severity, p.describe())
    error team/sys/outputs.jsonl, line 2, item t9: item t9 is not in the test set
    error team/sys/outputs.jsonl, line 3, item t1: item t1 again (first on line 1); give one output per item
    warning team/sys/outputs.jsonl, line 4, item t2: the output is empty or only spaces; it is scored as an empty text
    error team/sys/outputs.jsonl, item t3: no output for item t3; give one output per test item
    """  # noqa: E501
    limits = limits or Limits()
    text, problems = _decoded(data, label, limits)
    if text is None:
        return [], problems
    kind = _format_of(label, text)
    if kind == "jsonl":
        entries = _entries_jsonl(text, label, problems)
    elif kind == "txt":
        entries = _entries_txt(text, label, items, problems)
    else:
        entries = _entries_gem(text, label, items, problems)
    if len(entries) > limits.max_trials:
        problems.append(
            Problem(
                "too_many_outputs",
                f"{len(entries):,} outputs; the limit is {limits.max_trials:,}"
                " (submissions.limits.max_trials in the campaign config); the rest"
                " is not read",
                label,
                entries[limits.max_trials][0],
            )
        )
        entries = entries[: limits.max_trials]
    known = {item.id for item in items}
    first_line: dict[str, int | None] = {}
    outputs: dict[str, Output] = {}
    unknown: list[Problem] = []
    duplicates: list[Problem] = []
    empty: list[Problem] = []
    for line, item_id, output in entries:
        why = check_id(item_id)
        if why is not None:
            problems.append(Problem("bad_id", why, label, line, "id"))
            continue
        item_id = str(item_id)  # check_id says it is one
        field = f"item {item_id if len(item_id) <= 64 else item_id[:61] + '...'}"
        if item_id in first_line:
            duplicates.append(
                Problem(
                    "duplicate_item",
                    f"item {item_id} again (first on line {first_line[item_id]});"
                    " give one output per item",
                    label,
                    line,
                    field,
                )
            )
            continue
        first_line[item_id] = line
        if item_id not in known:
            unknown.append(
                Problem(
                    "unknown_item",
                    f"item {item_id} is not in the test set",
                    label,
                    line,
                    field,
                )
            )
            continue
        if not isinstance(output, str):
            problems.append(
                Problem(
                    "bad_output",
                    f"the output must be a string, not {_json_type(output)}",
                    label,
                    line,
                    field,
                )
            )
            continue
        if len(output) > limits.max_word_string_chars:
            problems.append(
                Problem(
                    "string_too_long",
                    f"the output has {len(output):,} characters; the limit is"
                    f" {limits.max_word_string_chars:,}"
                    " (submissions.limits.max_word_string_chars)",
                    label,
                    line,
                    field,
                )
            )
            continue
        if not output.strip():
            empty.append(
                Problem(
                    "empty_output",
                    "the output is empty or only spaces; it is scored as an empty text",
                    label,
                    line,
                    field,
                    "warning",
                )
            )
        outputs[item_id] = Output(item_id, output, None, line)
    _counted(problems, "unknown_item", unknown)
    _counted(problems, "duplicate_item", duplicates)
    _counted(problems, "empty_output", empty)
    missing = [
        Problem(
            "missing_item",
            f"no output for item {item.id}; give one output per test item",
            label,
            None,
            f"item {item.id}",
        )
        for item in items
        if item.id not in first_line
    ]
    # outputs in test-set order: a wrong count says it already, item by item
    if not any(p.code in ("line_count", "value_count") for p in problems):
        _counted(problems, "missing_item", missing)
    return [outputs[i.id] for i in items if i.id in outputs], problems


def format_outputs(outputs: Iterable[Output]) -> str:
    """The text of ``outputs.jsonl`` for *outputs*, in their order.

    >>> format_outputs([Output("t1", "Aromi is by the river."), Output("t2", "")])
    '{"id": "t1", "output": "Aromi is by the river."}\\n{"id": "t2", "output": ""}\\n'
    """
    return "".join(
        json.dumps({"id": o.item_id, "output": o.word_string or ""}, ensure_ascii=False)
        + "\n"
        for o in outputs
    )


def write_outputs(outputs: Iterable[Output], path: str | Path) -> None:
    """Write :func:`format_outputs` to *path* (UTF-8, LF)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_bytes(format_outputs(outputs).encode("utf-8"))


TASK = TaskType(
    name="text_generation",
    summary="text generation (a text per input, scored against references)",
    input=(
        "a text, RDF-style triples or a JSON object, with one or more reference"
        " texts and optional metadata (JSON Lines)"
    ),
    outputs=("word_string",),
    outputs_file=OUTPUTS_FILE,
    outputs_files=OUTPUTS_FILES,
    read_outputs=read_outputs,
    default_metrics=DEFAULT_METRICS,
    labels={"word_string": "output"},
)

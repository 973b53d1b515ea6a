"""A submission's outputs file, read by the reader its task types declare.

Which file a submission's tasks read (:func:`outputs_file`; a task type may
accept several names, :func:`outputs_files`, of which a folder holds one), the
files a campaign reads in every submission folder (:func:`submission_file_names`),
and
:func:`read_outputs`, which checks the size limit and hands the bytes to the task
type's reader (:attr:`stecflow.tasks.base.TaskType.read_outputs`).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`,
:mod:`stecflow.submissions`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from stecflow.core.errors import StecflowError
from stecflow.data.model import Item, Output
from stecflow.submissions.files import METADATA_FILE
from stecflow.submissions.reading import _read_regular, _unreadable
from stecflow.tasks.base import Limits, Problem, TaskType
from stecflow.tasks.registry import task_types

__all__ = ["outputs_file", "outputs_files", "read_outputs", "submission_file_names"]


def _read_outputs_file(
    path: Path,
    label: str,
    items: Sequence[Item],
    tasks: Sequence[str],
    limits: Limits,
) -> tuple[list[Output], list[Problem]]:
    """Check the size of the outputs file before reading it, then read it."""
    size = path.stat().st_size
    if size > limits.outputs_bytes:
        return [], [
            Problem(
                "outputs_too_large",
                f"the file is {size / 2**20:,.1f} MiB ({size:,} bytes); the limit is"
                f" {limits.max_outputs_mib:g} MiB (submissions.limits.max_outputs_mib"
                " in the campaign config)",
                label,
            )
        ]
    try:
        data = _read_regular(path, limits.outputs_bytes + 1)
    except (OSError, StecflowError) as exc:
        return [], [_unreadable(exc, label)]
    return read_outputs(data, label, items, tasks, limits)


def _reader_of(types: Sequence[TaskType]) -> TaskType:
    """The task type whose reader reads a submission of *types* (they share one)."""
    first = types[0]
    for other in types[1:]:
        if (other.outputs_file, other.read_outputs) != (
            first.outputs_file,
            first.read_outputs,
        ):
            raise ValueError(
                f"tasks {first.name} and {other.name} read different outputs files;"
                " a system takes part in tasks of one kind"
            )
    return first


def submission_file_names(campaign_tasks: Sequence[str]) -> tuple[str, ...]:
    """The files of a submission folder a campaign reads: metadata, then outputs.

    >>> submission_file_names(["end_to_end", "attribute_selection"])
    ('system.yaml', 'outputs.xml')
    >>> submission_file_names(["text_generation"])
    ('system.yaml', 'outputs.json', 'outputs.jsonl', 'outputs.txt')
    """
    files = sorted(
        {name for t in task_types(campaign_tasks) for name in t.outputs_file_names}
    )
    return (METADATA_FILE, *files)


def outputs_files(
    tasks: Sequence[str], campaign_tasks: Sequence[str] = ()
) -> tuple[str, ...]:
    """Every name the outputs file of a submission to *tasks* may have, the
    task type's :attr:`~stecflow.tasks.base.TaskType.outputs_file` first (no
    task claimed: as the first of *campaign_tasks*, by default the REG tasks).

    Raises
    ------
    ValueError
        If *tasks* read different outputs files.

    >>> outputs_files(["text_generation"])
    ('outputs.jsonl', 'outputs.txt', 'outputs.json')
    """
    types = task_types(tasks) if tasks else task_types(campaign_tasks or None)[:1]
    return _reader_of(types).outputs_file_names


def outputs_file(
    tasks: Sequence[str],
    campaign_tasks: Sequence[str] = (),
    folder: str | Path | None = None,
) -> str:
    """The name of the outputs file of a submission to *tasks*.

    With *folder* (the submission folder), the first of :func:`outputs_files`
    that is a file there (links out of the submissions folder do not count);
    otherwise, or when none is, the task type's own name.

    >>> outputs_file(["end_to_end"])
    'outputs.xml'
    """
    names = outputs_files(tasks, campaign_tasks)
    if folder is not None and len(names) > 1:
        from stecflow.submissions.safepath import is_submission_file

        for name in names:
            if is_submission_file(folder, name):
                return name
    return names[0]


def read_outputs(
    data: bytes,
    label: str,
    items: Sequence[Item],
    tasks: Sequence[str],
    limits: Limits | None = None,
    *,
    campaign_tasks: Sequence[str] = (),
) -> tuple[list[Output], list[Problem]]:
    """Read a submission's outputs file with the reader its task types declare.

    Parameters
    ----------
    data
        The bytes of the outputs file.
    label
        How to name the file in messages (a relative path).
    items
        The test-set items, in test-set order.
    tasks
        The tasks the submission claims: their task types' ``outputs`` must be
        given for every item. None claimed: nothing is required, and the file is
        read as the *campaign_tasks* (by default the built-in REG tasks) read it.
    limits
        Size limits (the defaults of :class:`Limits` if not given).

    Returns
    -------
    (outputs, problems)
        One :class:`Output` per item that could be read (test-set order), and every
        problem found. Outputs are returned even when there are problems.
    """
    types = task_types(tasks) if tasks else task_types(campaign_tasks or None)[:1]
    required = sorted({name for t in task_types(tasks) for name in t.outputs})
    outputs, problems = _reader_of(types).read_outputs(
        data, label, items, required, limits or Limits()
    )
    return _checked_characters(outputs, problems, label)


#: Characters that show nothing: an output of only these (and spaces) is blank
#: on every page, though not empty.
_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e"


def _texts(output: Output) -> list[tuple[str, str]]:
    """``(field, text)`` of every text of *output*."""
    texts = []
    if output.word_string is not None:
        texts.append(("word_string", output.word_string))
    for name, value in sorted(output.attribute_set or ()):
        texts.append(("attribute_set", f"{name}={value}"))
    for name, value in output.fields:
        if isinstance(value, str):
            texts.append((name, value))
    return texts


def _checked_characters(
    outputs: list[Output], problems: list[Problem], label: str
) -> tuple[list[Output], list[Problem]]:
    """Refuse outputs holding a character no text from outside may hold
    (:mod:`stecflow.core.text`: a lone surrogate, NUL, ESC and the other C0
    controls but tab and line breaks, a bidirectional override), whatever the
    file's format; warn about an output of invisible characters only.

    The readers of JSON refuse these on the line already; this catches what a
    text, TSV or XML reader let through, so that no such text reaches a page
    or a write: a refused output is kept (the item is not reported missing as
    well) with its texts escaped (:func:`stecflow.core.text.escaped`).

    >>> outs, problems = _checked_characters(
    ...     [Output("t1", "a\\u202eb", line=3), Output("t2", "\\u200b", line=4)],
    ...     [], "t/s/outputs.txt")
    >>> print(outs[0].word_string)
    a\\u202eb
    >>> [(p.line, p.severity, p.message[:36]) for p in problems]
    [(3, 'error', 'character 2 is U+202E (RIGHT-TO-LEFT'), (4, 'warning', 'the output holds only invisible char')]
    """  # noqa: E501
    from stecflow.core.text import bad_character

    kept = []
    problems = list(problems)
    for output in outputs:
        refused = False
        for field, text in _texts(output):
            reason = bad_character(text)
            if reason is not None:
                problems.append(
                    Problem("bad_character", reason, label, output.line, field)
                )
                refused = True
                break
        if refused:
            kept.append(_escaped_output(output))
            continue
        kept.append(output)
        text = output.word_string
        if text and not text.strip(_INVISIBLE + " \t\n\r\u00a0\u3000"):
            problems.append(
                Problem(
                    "invisible_output",
                    "the output holds only invisible characters (zero-width"
                    f" spaces or joiners: {_code_points(text)}); it shows as blank."
                    " Give the output's words, or leave the item out if the system"
                    " produced nothing",
                    label,
                    output.line,
                    "word_string",
                    severity="warning",
                )
            )
    return kept, problems


def _escaped_output(output: Output) -> Output:
    from dataclasses import replace

    from stecflow.core.text import escaped

    return replace(
        output,
        word_string=None if output.word_string is None else escaped(output.word_string),
        attribute_set=None
        if output.attribute_set is None
        else frozenset((escaped(n), escaped(v)) for n, v in output.attribute_set),
        fields=tuple(
            (n, escaped(v) if isinstance(v, str) else v) for n, v in output.fields
        ),
    )


def _code_points(text: str) -> str:
    shown = sorted({f"U+{ord(c):04X}" for c in text if not c.isspace()})
    return ", ".join(shown[:5])

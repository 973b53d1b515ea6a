"""The registry of task types: every stage asks it what a task is.

The built-in task types are the three REG tasks, one module each
(:mod:`stecflow.tasks.attribute_selection`, :mod:`stecflow.tasks.realisation`,
:mod:`stecflow.tasks.end_to_end`), and seed 000's situated-dialogue pronoun
decision (:mod:`stecflow.tasks.situated_dialogue`) and text generation
(:mod:`stecflow.tasks.text_generation`); they are imported on first
use, so importing the registry costs nothing. A new task type is one module that
builds a :class:`~stecflow.tasks.base.TaskType` and is listed in :data:`BUILT_IN`
(or, from outside the library, passed to :func:`register`). A campaign that names
no task runs :data:`DEFAULT_TASKS`, the REG tasks.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from stecflow.core.errors import ConfigError
from stecflow.tasks.base import TaskType

if TYPE_CHECKING:  # pragma: no cover
    from stecflow.data.model import Item

__all__ = [
    "BUILT_IN",
    "DEFAULT_TASKS",
    "get",
    "names",
    "read_testset",
    "register",
    "task_types",
    "unregister",
]

#: Modules that declare the built-in task types (each has a ``TASK``), in the
#: order tables and lists show them.
BUILT_IN = (
    "stecflow.tasks.attribute_selection",
    "stecflow.tasks.realisation",
    "stecflow.tasks.end_to_end",
    "stecflow.tasks.situated_dialogue",
    "stecflow.tasks.text_generation",
)

#: The task types of a campaign (or a call) that names none: the REG tasks. The
#: other built-in types run only when named.
DEFAULT_TASKS = ("attribute_selection", "realisation", "end_to_end")

_REGISTERED: dict[str, TaskType] = {}
_BUILT_IN_NAMES: list[str] = []  # filled on first use, in BUILT_IN order


def _load_built_in() -> None:
    if not _BUILT_IN_NAMES:
        for module in BUILT_IN:
            task = register(importlib.import_module(module).TASK)
            _BUILT_IN_NAMES.append(task.name)


def _load_one(name: str) -> None:
    """Register the built-in task type *name* alone, if there is one by that name.

    A per-submission job of a REG campaign then does not import the other task
    types (the dialogue corpus reader, the JSON Lines reader) it never uses.
    """
    module = f"stecflow.tasks.{name}"
    if module in BUILT_IN:
        register(importlib.import_module(module).TASK)


def register(task_type: TaskType) -> TaskType:
    """Add *task_type* under its name; a name is registered once.

    Raises
    ------
    ValueError
        If another task type already has the name.
    """
    existing = _REGISTERED.get(task_type.name)
    if existing is not None and existing is not task_type:
        raise ValueError(f"a task type {task_type.name!r} is already registered")
    _REGISTERED[task_type.name] = task_type
    return task_type


def unregister(name: str) -> None:
    """Remove the task type *name* (tests that register their own use it)."""
    _REGISTERED.pop(name, None)


def names() -> tuple[str, ...]:
    """Every registered task type's name, built-in ones first.

    A built-in task type is named as its module (checked by the tests), so
    listing the names imports none of them.

    >>> names()[:3]
    ('attribute_selection', 'realisation', 'end_to_end')
    """
    built_in = [module.rsplit(".", 1)[1] for module in BUILT_IN]
    return tuple(built_in) + tuple(n for n in _REGISTERED if n not in built_in)


def get(name: str) -> TaskType:
    """The task type called *name*.

    Raises
    ------
    ConfigError
        If there is none, naming the ones there are.

    >>> get("end_to_end").outputs
    ('word_string',)
    """
    if name not in _REGISTERED:
        _load_one(name)
    if name not in _REGISTERED:
        _load_built_in()
    try:
        return _REGISTERED[name]
    except KeyError:
        raise ConfigError(
            f"{name!r} is not a task type stecflow knows (it knows:"
            f" {', '.join(names())})",
            field="tasks",
        ) from None


def task_types(task_names: Iterable[str] | None = None) -> list[TaskType]:
    """The task types of *task_names* (:data:`DEFAULT_TASKS` when None), in order.

    >>> [t.name for t in task_types()]
    ['attribute_selection', 'realisation', 'end_to_end']
    """
    return [get(n) for n in (DEFAULT_TASKS if task_names is None else task_names)]


def read_testset(path: str | Path) -> list[Item]:
    """The items of a campaign's prepared test set, whatever its task types.

    ``results/data/testset.xml`` (stecflow XML: the REG tasks) or
    ``results/data/testset.json`` (a dialogue corpus file, see
    :func:`stecflow.data.dialogue.load_corpus_file`: one item per solver
    expression, :func:`stecflow.tasks.situated_dialogue.items_from_sessions`) or
    ``results/data/testset.jsonl`` (a JSON Lines test set of the text-generation
    task, :func:`stecflow.tasks.text_generation.read_items`), or the XML's
    compact form ``results/data/testset.compact.json``: the format whose
    prepared or job file name ends as *path* does reads it
    (:func:`stecflow.tasks.formats.read_prepared`).
    """
    from stecflow.tasks.formats import read_prepared

    return read_prepared(path)

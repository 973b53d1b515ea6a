"""The registry of study kinds: every stage asks it what a study's kind is.

The built-in kinds are declared one module each (:data:`BUILT_IN`), imported on
first use. A new kind is one module that builds a
:class:`~stecflow.studykinds.base.StudyKind` named ``KIND`` and is listed in
:data:`BUILT_IN` (or, from outside the library, passed to :func:`register`).
Code of a kind's own is reached through :func:`hook`, which imports it when a
stage first asks.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from stecflow.core.errors import ConfigError
from stecflow.studykinds.base import StudyKind

__all__ = [
    "BUILT_IN",
    "get",
    "hook",
    "in_family",
    "kinds",
    "names",
    "names_where",
    "register",
    "unregister",
]

#: Modules that declare the built-in kinds (each has a ``KIND``), in the order
#: configs, tables and lists show them.
BUILT_IN = (
    "stecflow.studykinds.rating",
    "stecflow.studykinds.identification",
    "stecflow.studykinds.situated_identification",
    "stecflow.studykinds.text_rating",
    "stecflow.studykinds.text_preference",
)

_REGISTERED: dict[str, StudyKind] = {}


def _load_built_in() -> None:
    for module in BUILT_IN:
        if module.rsplit(".", 1)[1] not in _REGISTERED:
            register(importlib.import_module(module).KIND)


def register(kind: StudyKind) -> StudyKind:
    """Add *kind* under its name; a name is registered once.

    Raises
    ------
    ValueError
        If another kind already has the name.
    """
    existing = _REGISTERED.get(kind.name)
    if existing is not None and existing is not kind:
        raise ValueError(f"a study kind {kind.name!r} is already registered")
    _REGISTERED[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    """Remove the kind *name* (tests that register their own use it)."""
    _REGISTERED.pop(name, None)
    for key in [key for key in _HOOKS if key[0] == name]:
        del _HOOKS[key]


def names() -> tuple[str, ...]:
    """Every registered kind's name, the built-in ones first.

    A built-in kind is named as its module (checked by the tests), so listing
    the names imports none of them.

    >>> names()[:2]
    ('rating', 'identification')
    """
    built_in = [module.rsplit(".", 1)[1] for module in BUILT_IN]
    return tuple(built_in) + tuple(n for n in _REGISTERED if n not in built_in)


def kinds() -> tuple[StudyKind, ...]:
    """Every registered kind, in the order of :func:`names`."""
    _load_built_in()
    return tuple(_REGISTERED[n] for n in names())


def names_where(test: Callable[[StudyKind], bool]) -> tuple[str, ...]:
    """The names of the kinds for which *test* holds, in order.

    >>> names_where(lambda kind: kind.family == "text")
    ('text_rating', 'text_preference')
    """
    return tuple(kind.name for kind in kinds() if test(kind))


def in_family(family: str) -> tuple[str, ...]:
    """The names of the kinds of *family* (:data:`~stecflow.studykinds.base.FAMILIES`).

    >>> in_family("grid")
    ('rating', 'identification')
    """
    return names_where(lambda kind: kind.family == family)


def get(name: str) -> StudyKind:
    """The kind called *name*.

    Raises
    ------
    ConfigError
        If there is none, naming the ones there are.

    >>> get("identification").variants
    ('together', 'read_first', 'spoken')
    """
    if name not in _REGISTERED:
        module = f"stecflow.studykinds.{name}"
        if module in BUILT_IN:
            register(importlib.import_module(module).KIND)
    try:
        return _REGISTERED[name]
    except KeyError:
        raise ConfigError(
            f"{name!r} is not a study kind stecflow knows (it knows:"
            f" {', '.join(names())})",
            field="task",
        ) from None


_HOOKS: dict[tuple[str, str], Any] = {}


def hook(name: str, role: str) -> Any:
    """The kind *name*'s code for *role* (``"module:name"`` in its
    :attr:`~stecflow.studykinds.base.StudyKind.hooks`: a function, or for
    ``datasheet`` the release's :class:`~stecflow.release.heds.KindSheet`),
    imported on first use; None when the kind has none for that role."""
    key = (name, role)
    if key not in _HOOKS:
        target = get(name).hooks.get(role)
        if target is None:
            return None
        module, _, function = target.partition(":")
        _HOOKS[key] = getattr(importlib.import_module(module), function)
    return _HOOKS[key]

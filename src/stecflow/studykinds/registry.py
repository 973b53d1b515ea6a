"""The registry of study kinds: every stage asks it what a study's kind is.

The built-in kinds are declared one module each (:data:`BUILT_IN`), imported on
first use. A new kind is one module that builds a
:class:`~stecflow.studykinds.base.StudyKind` named ``KIND`` and is listed in
:data:`BUILT_IN`; from outside the library, an installed distribution offers it
as an entry point of the group :data:`ENTRY_POINT_GROUP` (``name =
"package.module:KIND"``), loaded when a config names a kind stecflow does not
know (:func:`load_plugins`), or a program passes it to :func:`register`.
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
    "ENTRY_POINT_GROUP",
    "get",
    "hook",
    "identifies",
    "in_family",
    "is_kind",
    "kinds",
    "load_plugins",
    "names",
    "names_where",
    "paired",
    "register",
    "response_fields",
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

#: The entry-point group in which installed distributions declare study kinds.
ENTRY_POINT_GROUP = "stecflow.study_kinds"

_REGISTERED: dict[str, StudyKind] = {}
_PLUGINS: list[tuple[str, ...]] = []  # the names loaded, once loaded


def _load_built_in() -> None:
    for module in BUILT_IN:
        if module.rsplit(".", 1)[1] not in _REGISTERED:
            register(importlib.import_module(module).KIND)


def load_plugins() -> tuple[str, ...]:
    """Register the kinds installed distributions declare in
    :data:`ENTRY_POINT_GROUP`; return their names.

    Scanning the installed distributions costs tens of milliseconds, so it is
    done once, and only when a name is not a built-in kind's (a campaign of
    built-in kinds never pays it).

    Raises
    ------
    ConfigError
        If an entry point cannot be loaded, is not a
        :class:`~stecflow.studykinds.base.StudyKind`, or is named otherwise than
        the kind it declares.
    """
    if _PLUGINS:
        return _PLUGINS[0]
    from importlib.metadata import entry_points

    found = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)
    for ep in found:
        what = f"the study kind {ep.name!r} ({ep.value}, of {ENTRY_POINT_GROUP})"
        try:
            kind = ep.load()
        except Exception as exc:  # any failure of the distribution's module
            raise ConfigError(f"{what} cannot be loaded: {exc}", field="task") from None
        if not isinstance(kind, StudyKind):
            raise ConfigError(
                f"{what} is {type(kind).__name__}, not a stecflow.studykinds.StudyKind",
                field="task",
            )
        if kind.name != ep.name:
            raise ConfigError(
                f"{what} declares a kind named {kind.name!r}: name the entry point"
                " as the kind",
                field="task",
            )
        if _REGISTERED.get(kind.name) is not kind:
            register(kind)
    _PLUGINS.append(tuple(ep.name for ep in found))
    return _PLUGINS[0]


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


def is_kind(name: object) -> bool:
    """Whether *name* is a study kind: a built-in one, or one registered or
    installed (:func:`load_plugins`), as a study's summary may name it.

    >>> is_kind("rating"), is_kind("no such kind"), is_kind(None)
    (True, False, False)
    """
    if not isinstance(name, str):
        return False
    try:
        get(name)
    except ConfigError:
        return False
    return True


def identifies(name: str) -> bool:
    """Whether a trial of the kind *name* asks the participant to find the
    referent (:attr:`~stecflow.studykinds.base.StudyKind.identifies`).

    >>> identifies("identification"), identifies("rating")
    (True, False)
    """
    return get(name).identifies


def paired(name: str) -> bool:
    """Whether a trial of the kind *name* shows two systems side by side.

    >>> paired("text_preference"), paired("text_rating")
    (True, False)
    """
    return get(name).paired


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
        else:
            load_plugins()
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
        _HOOKS[key] = _load(target)
    return _HOOKS[key]


def _load(target: str) -> Any:
    """The object a ``"module:name"`` names, its module imported."""
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def response_formats() -> dict[str, Any]:
    """The response-file formats the kinds bring
    (:attr:`~stecflow.studykinds.base.StudyKind.response_formats`), by name, in
    the kinds' order, each a :class:`stecflow.judgments.importers.ResponseFormat`
    imported on first use.

    >>> list(response_formats())
    ['dmdx_zil', 'dmdx_azk']
    """
    formats = {}
    for kind in kinds():
        for name, target in kind.response_formats.items():
            key = (kind.name, f"format:{name}")
            if key not in _HOOKS:
                _HOOKS[key] = _load(target)
            formats[name] = _HOOKS[key]
    return formats


def response_fields(name: str, criteria: Any = ()) -> tuple[Any, ...]:
    """The answers a trial of the kind *name* returns
    (:class:`~stecflow.studykinds.base.ResponseField`): its ``responses`` hook's,
    given the study's *criteria*, or else its declared
    :attr:`~stecflow.studykinds.base.StudyKind.responses`.

    >>> [f.name for f in response_fields("rating")]
    ['adequacy', 'fluency']
    >>> response_fields("text_preference", [{"id": "overall"}])[0].choices
    ('left', 'right')
    """
    own = hook(name, "responses")
    return tuple(own(criteria)) if own is not None else get(name).responses

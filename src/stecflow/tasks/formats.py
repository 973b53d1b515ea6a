"""The registry of test-set formats: how a campaign's test set is recognised,
read and prepared.

A :class:`TestsetFormat` declares one format (``data.format`` in the config,
``--format`` on the command line): the task types it feeds, how a path in its
layout is recognised (:attr:`~TestsetFormat.sniff`), how its items are read
(:attr:`~TestsetFormat.read`), its canonical writer
(:attr:`~TestsetFormat.prepare`), the file it is prepared to under
``<results>/data/`` and the file the per-submission jobs read. The built-in
formats are the REG corpora (``tuna``, ``b5-ref``), seed 000's dialogue corpus
(``dialogue``) and the text-generation task's JSON Lines (``text``); their
readers are imported on first use, so importing the registry costs nothing. A
new format is one :class:`TestsetFormat` passed to :func:`register`.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from stecflow.core.errors import ConfigError

if TYPE_CHECKING:  # pragma: no cover
    from stecflow.data.model import Item

__all__ = [
    "DEFAULT_FORMAT",
    "TestsetFormat",
    "chosen_format",
    "formats",
    "get",
    "layout",
    "names",
    "read_prepared",
    "register",
    "unregister",
]

#: The format of a test set whose path no format claims (and ``data.format``'s
#: default).
DEFAULT_FORMAT = "tuna"


@dataclass(frozen=True)
class TestsetFormat:
    """One test-set format.

    Attributes
    ----------
    name
        Its ``data.format`` and ``--format``.
    tasks
        The task types it feeds; None: every task type that no format with
        ``alone`` feeds (the REG corpora feed any REG-like task type).
    alone
        A campaign on this format runs exactly one of its ``tasks``, and those
        task types need this format (:func:`stecflow.campaign.check_tasks`).
    what
        How a config error names a test set of this format, e.g. ``a dialogue
        corpus``.
    sniff
        ``sniff(path)``: what *path* is (e.g. ``a b5-ref corpus folder``) if its
        layout is one only this format reads, else None; a path given with
        another ``--format`` is then refused with that description.
    claims
        ``claims(path)``: whether a path given without ``--format`` is read in
        this format (None: only when named); a path no format claims is read in
        :data:`DEFAULT_FORMAT`.
    read
        ``read(path)``: the items of a test set in this format.
    prepare
        ``prepare(path, out, compact)``: write the test set at *path* in
        stecflow's own form to *out* (and, if the format has one and *compact*
        is not None, its compact form to *compact*); returns the number of
        items. What :func:`stecflow.campaign.prepare_testset` runs.
    prepared_name, job_name
        The file names, under ``<results>/data/``, of the prepared test set and
        of the test set the per-submission jobs read (the same file, or a
        compact form of it).
    read_prepared
        ``read_prepared(path)``: the items of a file named like
        ``prepared_name`` or ``job_name`` (:func:`read_prepared`).
    required_tasks, requirement
        Task types a campaign on this format must run, and why (``b5-ref has no
        grid positions ...``), for :func:`stecflow.campaign.check_config`.
    hint
        What else the config error of an ``alone`` format suggests.
    has_meta
        Its items carry meta fields that can give subsets (``data.subsets``).
    convertible
        ``stecflow convert`` writes its items as stecflow XML.
    """

    __test__ = False  # a library class, not a pytest test class

    name: str
    tasks: tuple[str, ...] | None
    what: str
    sniff: Callable[[Path], str | None]
    read: Callable[[str | Path], list[Item]]
    prepare: Callable[[str | Path, str | Path, str | Path | None], int]
    prepared_name: str
    job_name: str
    read_prepared: Callable[[str | Path], list[Item]]
    claims: Callable[[Path], bool] | None = None
    alone: bool = False
    required_tasks: tuple[str, ...] = ()
    requirement: str = ""
    hint: str = ""
    has_meta: bool = False
    convertible: bool = True


_REGISTERED: dict[str, TestsetFormat] = {}


def register(testset_format: TestsetFormat) -> TestsetFormat:
    """Add *testset_format* under its name; a name is registered once.

    Raises
    ------
    ValueError
        If another format already has the name.
    """
    _load_built_in()
    existing = _REGISTERED.get(testset_format.name)
    if existing is not None and existing is not testset_format:
        raise ValueError(f"a test-set format {testset_format.name!r} is registered")
    _REGISTERED[testset_format.name] = testset_format
    return testset_format


def unregister(name: str) -> None:
    """Remove the format *name* (tests that register their own use it)."""
    if name not in _BUILT_IN_NAMES:
        _REGISTERED.pop(name, None)


def formats() -> tuple[TestsetFormat, ...]:
    """Every registered format, the built-in ones first."""
    _load_built_in()
    return tuple(_REGISTERED.values())


def names() -> tuple[str, ...]:
    """Every registered format's name, the built-in ones first.

    >>> names()[:4]
    ('tuna', 'b5-ref', 'dialogue', 'text')
    """
    return tuple(f.name for f in formats())


def get(name: str) -> TestsetFormat:
    """The format called *name*.

    Raises
    ------
    ConfigError
        If there is none, naming the ones there are (field ``data.format``).

    >>> get("dialogue").prepared_name
    'testset.json'
    """
    _load_built_in()
    try:
        return _REGISTERED[name]
    except KeyError:
        raise ConfigError(
            f"unknown format {name!r}; expected one of {', '.join(names())}",
            field="data.format",
        ) from None


def _sniff_order() -> list[TestsetFormat]:
    """Formats that claim paths first, :data:`DEFAULT_FORMAT` (the catch-all) last."""
    found = formats()
    return (
        [f for f in found if f.claims is not None]
        + [f for f in found if f.claims is None and f.name != DEFAULT_FORMAT]
        + [f for f in found if f.name == DEFAULT_FORMAT]
    )


def layout(path: str | Path) -> tuple[str, str] | None:
    """``(format, what)`` for a test-set layout that only one format reads."""
    for testset_format in _sniff_order():
        what = testset_format.sniff(Path(path))
        if what is not None:
            return testset_format.name, what
    return None


def chosen_format(path: str | Path, given: str | None = None) -> str:
    """The format of *path*: *given*, else the one that claims it (e.g.
    ``dialogue`` for a folder of ``stecflow-dialogue`` sessions, ``text`` for a
    ``.jsonl`` file), else :data:`DEFAULT_FORMAT`."""
    if given:
        return given
    for testset_format in formats():
        if testset_format.claims is not None and testset_format.claims(Path(path)):
            return testset_format.name
    return DEFAULT_FORMAT


def _suffix(name: str) -> str:
    return name[name.find(".") :] if "." in name else ""


def read_prepared(path: str | Path) -> list[Item]:
    """The items of a prepared test set (or the file the jobs read), in the
    format its name says: the format whose ``prepared_name`` or ``job_name``
    ends as *path* does (the longest such ending), else :data:`DEFAULT_FORMAT`'s
    (stecflow XML)."""
    name = Path(path).name
    best: tuple[int, TestsetFormat] | None = None
    for testset_format in formats():
        for declared in (testset_format.job_name, testset_format.prepared_name):
            suffix = _suffix(declared)
            longer = best is None or len(suffix) > best[0]
            if suffix and name.endswith(suffix) and longer:
                best = (len(suffix), testset_format)
    found = best[1] if best is not None else get(DEFAULT_FORMAT)
    return found.read_prepared(path)


# ------------------------------------------------------------ the REG corpora


def _read_tuna(path: str | Path) -> list[Item]:
    from stecflow.data.corpus import read_items

    return read_items(path)


def _read_b5ref(path: str | Path) -> list[Item]:
    from stecflow.data.b5ref import read_b5ref

    return read_b5ref(path)


def _read_reg_prepared(path: str | Path) -> list[Item]:
    """stecflow XML, or its compact form (:mod:`stecflow.data.compact`)."""
    from stecflow.data.compact import COMPACT_SUFFIX

    if str(path).endswith(COMPACT_SUFFIX):
        from stecflow.data.compact import read_compact

        return read_compact(path)
    from stecflow.data.corpus import read_items

    return read_items(path)


def _reg_writer(
    read: Callable[[str | Path], list[Item]],
) -> Callable[[str | Path, str | Path, str | Path | None], int]:
    """stecflow XML, and the compact form of the items read back from it."""

    def prepare(
        path: str | Path, out: str | Path, compact: str | Path | None = None
    ) -> int:
        from stecflow.data.corpus import read_items, write_items

        items = read(path)
        write_items(items, out)
        if compact is not None:
            from stecflow.data.compact import write_compact

            del items  # the XML's own items: exactly what the jobs read before
            items = read_items(out)
            write_compact(items, compact)
        return len(items)

    return prepare


def _sniff_b5ref(path: Path) -> str | None:
    if path.is_dir():
        for base in (path, path / "ref"):
            if (base / "b5-ref-contexts.xml").is_file() and (
                base / "xml-descriptions"
            ).is_dir():
                return "a b5-ref corpus folder"
    return None


def _sniff_tuna(path: Path) -> str | None:
    if path.is_dir():
        if (
            (path / "corpus" / "singular").is_dir()
            or (path / "singular").is_dir()
            or path.name in ("singular", "furniture", "people")
        ):
            return "a TUNA 1.0 corpus folder"
        if any(path.rglob("*.xml")):
            return "a folder of TUNA XML files"
        return None
    if path.is_file() and path.suffix.lower() == ".xml":
        return "an XML file (b5-ref is read from its corpus folder)"
    return None


# ------------------------------------------------------- the dialogue corpus


def _is_dialogue_folder(path: Path) -> bool:
    """Whether *path* is a folder whose first ``*.json`` file (in name order, as
    :func:`~stecflow.data.dialogue.read_corpus` reads them) is a JSON object with
    ``"format": "stecflow-dialogue"``."""
    if not path.is_dir():
        return False
    first = next(iter(sorted(path.glob("*.json"))), None)
    if first is None:
        return False
    try:
        data = json.loads(first.read_bytes())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("format") == "stecflow-dialogue"


def _sniff_dialogue(path: Path) -> str | None:
    if _is_dialogue_folder(path):
        return "a folder of stecflow-dialogue sessions"
    return None


def _read_dialogue(path: str | Path) -> list[Item]:
    from stecflow.data.dialogue import read_corpus
    from stecflow.tasks.situated_dialogue import items_from_sessions

    return items_from_sessions(read_corpus(path))


def _prepare_dialogue(
    path: str | Path, out: str | Path, compact: str | Path | None = None
) -> int:
    """Every session in one JSON document
    (:func:`stecflow.data.dialogue.write_corpus_file`)."""
    from stecflow.data.dialogue import read_corpus, write_corpus_file
    from stecflow.tasks.situated_dialogue import items_from_sessions

    sessions = read_corpus(path)
    items = items_from_sessions(sessions)  # refuses repeated expression IDs
    write_corpus_file(sessions, out)
    return len(items)


def _read_dialogue_prepared(path: str | Path) -> list[Item]:
    from stecflow.data.dialogue import read_sessions
    from stecflow.tasks.situated_dialogue import items_from_sessions

    return items_from_sessions(read_sessions(path))


# ------------------------------------------------------------ JSON Lines text


def _is_jsonl(path: Path) -> bool:
    return Path(path).suffix.lower() == ".jsonl"


def _sniff_text(path: Path) -> str | None:
    if path.is_file() and _is_jsonl(path):
        return "a JSON Lines test set of the text_generation task"
    return None


def _read_text(path: str | Path) -> list[Item]:
    from stecflow.tasks.text_generation import read_items

    return read_items(path)


def _prepare_text(
    path: str | Path, out: str | Path, compact: str | Path | None = None
) -> int:
    """Canonical JSON Lines (:func:`stecflow.tasks.text_generation.write_testset`)."""
    from stecflow.tasks.text_generation import write_testset

    return write_testset(_read_text(path), out)


# ------------------------------------------------------------------ built in


def _built_in() -> Sequence[TestsetFormat]:
    reg = {
        "tasks": None,
        "what": "a REG test set",
        "prepared_name": "testset.xml",
        "job_name": "testset.compact.json",
        "read_prepared": _read_reg_prepared,
    }
    return (
        TestsetFormat(
            name="tuna",
            sniff=_sniff_tuna,
            read=_read_tuna,
            prepare=_reg_writer(_read_tuna),
            **reg,  # type: ignore[arg-type]
        ),
        TestsetFormat(
            name="b5-ref",
            sniff=_sniff_b5ref,
            read=_read_b5ref,
            prepare=_reg_writer(_read_b5ref),
            required_tasks=("attribute_selection",),
            requirement="has no grid positions or realiser data",
            **reg,  # type: ignore[arg-type]
        ),
        TestsetFormat(
            name="dialogue",
            tasks=("situated_dialogue",),
            alone=True,
            what="a dialogue corpus",
            hint=", or a REG task with a REG test set",
            sniff=_sniff_dialogue,
            claims=_is_dialogue_folder,
            read=_read_dialogue,
            prepare=_prepare_dialogue,
            prepared_name="testset.json",
            job_name="testset.json",
            read_prepared=_read_dialogue_prepared,
            convertible=False,
        ),
        TestsetFormat(
            name="text",
            tasks=("text_generation",),
            alone=True,
            what="a JSON Lines test set",
            sniff=_sniff_text,
            claims=_is_jsonl,
            read=_read_text,
            prepare=_prepare_text,
            prepared_name="testset.jsonl",
            job_name="testset.jsonl",
            read_prepared=_read_text,
            has_meta=True,
        ),
    )


_BUILT_IN_NAMES: list[str] = []


def _load_built_in() -> None:
    if not _BUILT_IN_NAMES:
        for testset_format in _built_in():
            _BUILT_IN_NAMES.append(testset_format.name)
            _REGISTERED[testset_format.name] = testset_format

"""Tell the response formats apart and read a file with the reader it needs."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from stecflow.judgments._common import JudgmentsError, normalise_header, read_text
from stecflow.judgments.importers._columns import (
    GENERIC_ALIASES,
    SERVER_MARKERS,
    response_columns,
)
from stecflow.judgments.importers._rows import ImportResult, guess_delimiter
from stecflow.judgments.importers.generic import read_generic_table
from stecflow.judgments.importers.server import read_response_table
from stecflow.judgments.sessions import is_session_header
from stecflow.studykinds.registry import response_formats

__all__ = ["detect_format", "read_responses"]


def detect_format(path: str | Path, *, encoding: str | None = None) -> str:
    """Tell which reader a response file needs.

    Returns
    -------
    str
        ``sessions`` (a session table, not responses:
        :func:`stecflow.judgments.sessions.is_session_header`; read with
        :func:`stecflow.judgments.sessions.read_sessions`),
        a format a study kind brings, by its extension or its first lines
        (:attr:`stecflow.studykinds.base.StudyKind.response_formats`: the
        identification kind's ``dmdx_zil``, DMDX zillion ``Item N, ...``
        lines, and ``dmdx_azk``, a DMDX header), ``server`` (the
        server's export: every column, or two of the columns only it has, so
        that a damaged export gets a precise message) or ``generic`` (``participant`` or
        ``subject`` or ``session``, and ``item``).

    Raises
    ------
    JudgmentsError
        The file fits none of them; the message lists its header.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "x.csv")
    ...     _ = open(p, "w").write("subject,item,system,correct\\n1,t001,A,1\\n")
    ...     detect_format(p)
    'generic'
    """
    source = str(path)
    formats = response_formats()
    for name, form in formats.items():
        if source.lower().endswith(form.suffix):
            return name
    text = read_text(path, encoding=encoding, fallback="cp1252")
    head = text.lstrip()[:2000]
    for name, form in formats.items():
        if form.looks_like(head):
            return name
    first = next((line for line in text.split("\n") if line.strip()), "")
    delimiter = guess_delimiter(first, source)
    header = [normalise_header(h.strip('"')) for h in first.split(delimiter)]
    if is_session_header(header):
        return "sessions"
    markers = set(header) & set(SERVER_MARKERS)
    if set(response_columns()) <= set(header) or len(markers) >= 2:
        return "server"  # a damaged export gets read_response_table's message
    names = {GENERIC_ALIASES.get(h, h) for h in header}
    if ("participant" in names or "session" in names) and "item" in names:
        return "generic"
    raise JudgmentsError(
        f"unknown format: the header has {', '.join(header)[:300]}; expected the "
        "server's export columns, the generic CSV's (participant, item, ...) or a "
        "DMDX .azk file",
        file=source,
        line=1,
    )


def read_responses(
    path: str | Path,
    *,
    study: str | None = None,
    source_format: str | None = None,
    list_id: str | None = None,
    dmdx_item_table: Mapping[int, Mapping[str, Any]] | str | Path | None = None,
    timeout_ms: float = 15000.0,
    encoding: str | None = None,
    strict: bool = False,
) -> ImportResult:
    """Read one response file of any supported format (:func:`detect_format`).

    Parameters
    ----------
    path : path
        The file.
    study : str, optional
        The study the file belongs to (used for DMDX and generic rows without a
        study, and in problem rows).
    source_format : {"server", "offline", "generic", "dmdx_azk", "dmdx_zil"}, optional
        Skip detection (a kind's own formats included).
    list_id, dmdx_item_table, timeout_ms
        For a kind's own formats (DMDX: see
        :func:`stecflow.studykinds.identification.import_dmdx.read_dmdx_azk`).
    encoding : str, optional
        The file's encoding when it is not UTF-8.
    strict : bool, default False
        Raise at the first unusable row.

    Returns
    -------
    ImportResult
        Rows of :data:`IMPORT_COLUMNS`, problems and notes.
    """
    kind = source_format or detect_format(path, encoding=encoding)
    readers: dict[str, Callable[[], ImportResult]] = {
        "server": lambda: read_response_table(
            path, study=study, encoding=encoding, strict=strict
        ),
        "generic": lambda: read_generic_table(
            path, study=study, encoding=encoding, strict=strict
        ),
    }
    for name, form in response_formats().items():
        readers[name] = lambda form=form: form.read(
            path,
            study=study,
            list_id=list_id,
            item_table=dmdx_item_table,
            timeout_ms=timeout_ms,
            encoding=encoding,
            strict=strict,
        )
    readers["offline"] = readers["server"]
    if kind == "sessions":
        raise JudgmentsError(
            "this is a session table (one row per session), not responses; the "
            "judgments stage reads it with stecflow.judgments.sessions.read_sessions "
            "and writes results/judgments/sessions/<study>.tsv",
            file=str(path),
            line=1,
        )
    if kind not in readers:
        raise JudgmentsError(
            f"unknown format {kind!r}; use one of {', '.join(sorted(readers))}",
            file=str(path),
            field="source_format",
        )
    return readers[kind]()

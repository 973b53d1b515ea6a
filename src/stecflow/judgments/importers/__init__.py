"""Read human-study responses from every supported source into one tidy table.

Three sources are supported, and those a study kind brings, each read by its own
function and all returning an
:class:`ImportResult` whose rows have the columns :data:`IMPORT_COLUMNS` (one row
per answered trial):

``server`` / ``offline``: :func:`read_response_table`
    The collection server's export
    (:func:`stecflow.studies.server.export_responses`) and
    the file the web page saves in offline mode: the same TSV with the columns
    :data:`stecflow.studies.settings.RESPONSE_COLUMNS`, optionally followed by
    ``simulated`` (files written by :mod:`stecflow.judgments.simulate`). Rows whose
    ``session_status`` is ``offline`` are labelled ``offline``.
``generic``: :func:`read_generic_table`
    A small CSV (or TSV) an organiser can produce from any other tool; its columns
    are documented in ``docs/judgments.md``.
A study kind's own formats (:class:`ResponseFormat`, declared in its
:attr:`~stecflow.studykinds.base.StudyKind.response_formats`)
    The output of the lab software its studies can run on: the identification
    kind's DMDX ``.azk`` and ``.zil`` files
    (:mod:`stecflow.studykinds.identification.import_dmdx`,
    :mod:`~stecflow.studykinds.identification.import_dmdx_zil`).

:func:`detect_format` tells them apart and :func:`read_responses` dispatches.

A file that cannot be read as a whole (unknown format, missing or unexpected
columns, binary data, bytes that are not in the file's encoding) raises
:class:`JudgmentsError` naming the file, line and field. A row that cannot be used
(a time that is not a number, a truncated line, an unknown boolean) is **kept**:
the bad value becomes missing, ``import_problem`` says what was wrong, and a row of
the data-quality table (:data:`QUALITY_COLUMNS`, check ``import_problem``) reports
it; the merge leaves such rows out of the analyses. With ``strict=True`` the first
such problem raises instead.

Modules
-------
:mod:`~stecflow.judgments.importers.server`
    :func:`read_response_table` (server exports and offline files).
:mod:`~stecflow.judgments.importers.generic`
    :func:`read_generic_table` (generic CSV/TSV).
:mod:`~stecflow.judgments.importers.text`
    :func:`read_text_responses` (a text study's export, offline file or
    simulated file: ``rating_<criterion>`` columns, or the preference columns,
    after the server's).
:mod:`~stecflow.judgments.importers.detect`
    :func:`detect_format` and :func:`read_responses`.
``_columns`` and ``_rows`` (private)
    What the readers share: column definitions; :class:`ImportResult`, table
    splitting and the common row checks.
"""

from __future__ import annotations

from stecflow.judgments.importers._columns import GENERIC_COLUMNS
from stecflow.judgments.importers._rows import (
    ImportResult,
    ResponseFormat,
    concat_results,
)
from stecflow.judgments.importers.detect import detect_format, read_responses
from stecflow.judgments.importers.generic import read_generic_table
from stecflow.judgments.importers.server import read_response_table
from stecflow.judgments.importers.text import (
    TEXT_IMPORT_COLUMNS,
    TextImport,
    read_text_responses,
    text_response_columns,
)

__all__ = [
    "GENERIC_COLUMNS",
    "TEXT_IMPORT_COLUMNS",
    "ImportResult",
    "ResponseFormat",
    "TextImport",
    "concat_results",
    "detect_format",
    "read_generic_table",
    "read_response_table",
    "read_responses",
    "read_text_responses",
    "text_response_columns",
]

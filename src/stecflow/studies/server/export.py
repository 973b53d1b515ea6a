"""Reading the stored responses back, and exporting them as TSV.

Owns :func:`read_responses` (every stored trial as a row of the study document's
``columns``: :data:`~stecflow.studies.settings.RESPONSE_COLUMNS`, then in a
situated identification study the situated fields of ``situated_trials``, in a
text study its answer fields of ``text_trials``; read-only,
beside a running server, then ``answered_utc``: when the server received the
trial, ISO 8601 UTC, :func:`export_columns`) and :func:`export_responses` (those
rows as a TSV file, and beside it the session table
``<stem>.sessions.tsv``: :func:`read_sessions_table`, :func:`format_sessions`,
columns :data:`~stecflow.studies.server.progress.SESSION_COLUMNS` then one per
questionnaire answer). The columns are described in
:mod:`stecflow.studies.server` and ``docs/judgments.md``.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from stecflow.studies.server.defaults import DEFAULT_ABANDON_AFTER_S
from stecflow.studies.server.events import utc_iso
from stecflow.studies.server.progress import (
    SESSION_COLUMNS,
    read_session_rows,
    session_status,
)
from stecflow.studies.server.store import (
    BOOL_FIELDS,
    RESPONSE_FIELDS,
    SITUATED_FIELDS,
    refuse_newer,
    session_columns,
)
from stecflow.studies.server.study import (
    CollectionError,
    Study,
    default_db,
    load_study,
)

__all__ = [
    "ANSWERED_COLUMN",
    "export_columns",
    "export_responses",
    "format_sessions",
    "read_responses",
    "read_sessions_table",
    "sessions_path",
]

logger = logging.getLogger(__name__)

#: The column the export adds after the study's columns: when the server
#: received the trial (ISO 8601 UTC, ``Z``, 0.001 s).
ANSWERED_COLUMN = "answered_utc"


def export_columns(study: Study) -> tuple[str, ...]:
    """The columns of a study's trial export: its document's, then ``answered_utc``."""
    return (*study.columns, ANSWERED_COLUMN)


def sessions_path(out_path: str | Path) -> Path:
    """The session table written beside a trial export: ``<stem>.sessions.tsv``.

    >>> sessions_path("exports/rating.tsv").as_posix()
    'exports/rating.sessions.tsv'
    """
    out = Path(out_path)
    return out.with_name(f"{out.stem}.sessions.tsv")


@contextmanager
def _open_db(study: Study, db_path: str | Path | None) -> Iterator[sqlite3.Connection]:
    """The study's database, read-only, checked to belong to its stimuli."""
    path = Path(db_path) if db_path is not None else default_db(study.web_dir)
    if not path.is_file():
        raise CollectionError(f"{path} does not exist; nothing collected yet")
    uri = f"file:{path.resolve()}?mode=ro"
    db = sqlite3.connect(uri, uri=True, timeout=30.0)
    try:
        refuse_newer(db, path)
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("stimuli_sha256") != study.sha256:
            raise CollectionError(
                f"{path} was collected with other stimuli than {study.web_dir}; "
                "export with the study folder it belongs to",
                field="db_path",
            )
        yield db
    finally:
        db.close()


def read_responses(
    study_dir: str | Path,
    *,
    db_path: str | Path | None = None,
    abandon_after_s: float = DEFAULT_ABANDON_AFTER_S,
    now: float | None = None,
) -> list[dict[str, Any]]:
    """Read every stored trial as a row of the study's ``columns``.

    A REG study's columns are :data:`RESPONSE_COLUMNS`; a situated identification
    study's add ``instance``, ``dialogue``, ``expression``, ``time_ms``,
    ``plays``, ``replays`` and ``answer_via`` after them (the document's order).

    Parameters
    ----------
    study_dir : path
        The study folder or its web folder.
    db_path : path, optional
        The database (default as for :func:`make_app`).
    abandon_after_s : float, default 1800
        Used to label unfinished sessions ``in_progress`` or ``abandoned``.
    now : float, optional
        The time to judge that by (default: now).

    Returns
    -------
    list of dict
        Rows sorted by list, session and order; booleans as bool, missing as None.

    Raises
    ------
    CollectionError
        If the database is missing or belongs to other stimuli.
    """
    study = load_study(study_dir)
    with _open_db(study, db_path) as db:
        current = time.time() if now is None else now
        return _trial_rows(db, study, current, abandon_after_s)


def _trial_rows(
    db: sqlite3.Connection, study: Study, current: float, abandon_after_s: float
) -> list[dict[str, Any]]:
    """The rows of :func:`read_responses` from an open database."""
    returned = "returned_s" if "returned_s" in session_columns(db) else "NULL"
    sessions = {
        r[0]: r[1:]
        for r in db.execute(
            "SELECT session_id, participant, completed_s, last_seen_s, "
            f"{returned} FROM sessions"
        )
    }
    names = [
        "session_id",
        "order",
        "list",
        "item",
        "system",
        "subdomain",
        "practice",
        "filler",
        "target_entity",
        *RESPONSE_FIELDS,
        "received_s",
    ]
    select = ", ".join(f't."{n}"' for n in names)
    source = "trials AS t"
    if study.situated:
        names += list(SITUATED_FIELDS)
        select += ", " + ", ".join(f's."{n}"' for n in SITUATED_FIELDS)
        source += (
            " LEFT JOIN situated_trials AS s "
            'ON s.session_id = t.session_id AND s."order" = t."order"'
        )
    query = f'SELECT {select} FROM {source} ORDER BY t.list, t.session_id, t."order"'
    answers: dict[tuple[str, int], dict[str, Any]] = {}
    if study.text:
        for session_id, order, name, value in db.execute(
            'SELECT session_id, "order", name, value FROM text_trials'
        ):
            answers.setdefault((session_id, int(order)), {})[name] = value
    rows = []
    for values in db.execute(query):
        record = dict(zip(names, values, strict=True))
        record.update(answers.get((record["session_id"], int(record["order"])), {}))
        participant, completed_s, last_seen_s, returned_s = sessions[
            record["session_id"]
        ]
        received_s = record.pop("received_s")
        row = {
            "study": study.study,
            "task": study.task,
            "variant": study.variant,
            "session": record.pop("session_id"),
            "participant": participant,
            "session_status": session_status(
                completed_s, last_seen_s, returned_s, current, abandon_after_s
            ),
            **record,
        }
        for name in BOOL_FIELDS:
            if row[name] is not None:
                row[name] = bool(row[name])
        row[ANSWERED_COLUMN] = utc_iso(received_s, millis=True)
        rows.append({c: row.get(c) for c in export_columns(study)})
    return rows


def read_sessions_table(
    study_dir: str | Path,
    *,
    db_path: str | Path | None = None,
    abandon_after_s: float = DEFAULT_ABANDON_AFTER_S,
    now: float | None = None,
) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
    """Every session as a row of the session table, and the table's columns.

    The columns are :data:`~stecflow.studies.server.progress.SESSION_COLUMNS`,
    then one per questionnaire answer (``<screen>.<field>``, sorted); see
    :func:`~stecflow.studies.server.progress.read_session_rows` for the values.
    """
    study = load_study(study_dir)
    with _open_db(study, db_path) as db:
        current = time.time() if now is None else now
        rows, answers = read_session_rows(db, study.study, current, abandon_after_s)
    return rows, (*SESSION_COLUMNS, *answers)


def _neutralised(rows: list[dict[str, Any]], columns: tuple[str, ...]) -> list[dict]:
    """Rows with outside free text (IDs, answers) neutralised against formulas."""
    from stecflow.core.io import neutralise_formula

    free = [c for c in columns if "." in c or c in ("study_id", "external_session")]
    out = []
    for row in rows:
        row = dict(row)
        for name in free:
            if isinstance(row.get(name), str):
                row[name] = neutralise_formula(row[name])
        out.append(row)
    return out


def format_sessions(
    study: Study, db_path: str | Path, now: float, abandon_after_s: float
) -> str:
    """The session table of a study's database as TSV text."""
    from stecflow.core.io import format_tsv

    rows, columns = read_sessions_table(
        study.web_dir, db_path=db_path, abandon_after_s=abandon_after_s, now=now
    )
    return format_tsv(_neutralised(rows, columns), columns)


def export_responses(
    study_dir: str | Path,
    out_path: str | Path,
    *,
    db_path: str | Path | None = None,
    abandon_after_s: float = DEFAULT_ABANDON_AFTER_S,
    include_practice: bool = True,
    now: float | None = None,
) -> int:
    """Write the stored trials as TSV, one row per trial; the CLI's ``stecflow export``.

    Parameters
    ----------
    study_dir : path
        The study folder (``results/studies/<study>``) or its web folder.
    out_path : path
        The TSV to write (the study's columns: :data:`RESPONSE_COLUMNS`, then
        the situated ones in a situated study, then ``answered_utc``; described
        in :mod:`stecflow.studies.server`; rows sorted by list, session and
        order). The session table goes beside it, as ``<stem>.sessions.tsv``
        (:func:`sessions_path`), one row per session.
    db_path : path, optional
        The database (default: ``responses.sqlite`` beside the web folder).
    abandon_after_s : float, default 1800
        Labels unfinished sessions ``in_progress`` or ``abandoned``.
    include_practice : bool, default True
        Keep practice trials (flagged ``practice=true``).
    now : float, optional
        The time statuses are judged at (default: now).

    Returns
    -------
    int
        The number of rows written.
    """
    from stecflow.core.io import write_tsv

    study = load_study(study_dir)
    current = time.time() if now is None else now
    with _open_db(study, db_path) as db:
        # one read transaction: trials and sessions from the same moment, even
        # while the server writes
        db.execute("BEGIN")
        rows = _trial_rows(db, study, current, abandon_after_s)
        sessions, answers = read_session_rows(db, study.study, current, abandon_after_s)
        db.execute("COMMIT")
    columns = (*SESSION_COLUMNS, *answers)
    if not include_practice:
        rows = [r for r in rows if not r["practice"]]
    write_tsv(rows, export_columns(study), out_path)
    write_tsv(_neutralised(sessions, columns), columns, sessions_path(out_path))
    logger.info(
        "exported %d trial(s) to %s and %d session(s) to %s",
        len(rows),
        out_path,
        len(sessions),
        sessions_path(out_path),
    )
    return len(rows)


# --------------------------------------------------------------------------- main

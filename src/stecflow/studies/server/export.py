"""Reading the stored responses back, and exporting them as TSV.

Owns :func:`read_responses` (every stored trial as a row of the study document's
``columns``: :data:`~stecflow.studies.settings.RESPONSE_COLUMNS`, then in a
situated identification study the situated fields of ``situated_trials``, in a
text study its answer fields of ``text_trials``; read-only,
beside a running server) and :func:`export_responses` (those rows as a TSV file).
The columns are described in :mod:`stecflow.studies.server` and
``docs/judgments.md``.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from pathlib import Path
from typing import Any

from stecflow.studies.server.defaults import DEFAULT_ABANDON_AFTER_S
from stecflow.studies.server.store import (
    BOOL_FIELDS,
    RESPONSE_FIELDS,
    SITUATED_FIELDS,
    refuse_newer,
)
from stecflow.studies.server.study import CollectionError, default_db, load_study

__all__ = ["export_responses", "read_responses"]

logger = logging.getLogger(__name__)


def _status(
    completed_s: float | None, last_seen_s: float, now: float, abandon: float
) -> str:
    if completed_s is not None:
        return "completed"
    return "in_progress" if now - last_seen_s <= abandon else "abandoned"


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
        sessions = {
            r[0]: r[1:]
            for r in db.execute(
                "SELECT session_id, participant, completed_s, last_seen_s FROM sessions"
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
        query = (
            f'SELECT {select} FROM {source} ORDER BY t.list, t.session_id, t."order"'
        )
        answers: dict[tuple[str, int], dict[str, Any]] = {}
        if study.text:
            for session_id, order, name, value in db.execute(
                'SELECT session_id, "order", name, value FROM text_trials'
            ):
                answers.setdefault((session_id, int(order)), {})[name] = value
        current = time.time() if now is None else now
        rows = []
        for values in db.execute(query):
            record = dict(zip(names, values, strict=True))
            record.update(answers.get((record["session_id"], int(record["order"])), {}))
            participant, completed_s, last_seen_s = sessions[record["session_id"]]
            row = {
                "study": study.study,
                "task": study.task,
                "variant": study.variant,
                "session": record.pop("session_id"),
                "participant": participant,
                "session_status": _status(
                    completed_s, last_seen_s, current, abandon_after_s
                ),
                **record,
            }
            for name in BOOL_FIELDS:
                if row[name] is not None:
                    row[name] = bool(row[name])
            rows.append({c: row.get(c) for c in study.columns})
        return rows
    finally:
        db.close()


def export_responses(
    study_dir: str | Path,
    out_path: str | Path,
    *,
    db_path: str | Path | None = None,
    abandon_after_s: float = DEFAULT_ABANDON_AFTER_S,
    include_practice: bool = True,
) -> int:
    """Write the stored trials as TSV, one row per trial; the CLI's ``stecflow export``.

    Parameters
    ----------
    study_dir : path
        The study folder (``results/studies/<study>``) or its web folder.
    out_path : path
        The TSV to write (the study's columns: :data:`RESPONSE_COLUMNS`, then
        the situated ones in a situated study; described in
        :mod:`stecflow.studies.server`; rows sorted by list, session and order).
    db_path : path, optional
        The database (default: ``responses.sqlite`` beside the web folder).
    abandon_after_s : float, default 1800
        Labels unfinished sessions ``in_progress`` or ``abandoned``.
    include_practice : bool, default True
        Keep practice trials (flagged ``practice=true``).

    Returns
    -------
    int
        The number of rows written.
    """
    from stecflow.core.io import write_tsv

    columns = load_study(study_dir).columns
    rows = read_responses(study_dir, db_path=db_path, abandon_after_s=abandon_after_s)
    if not include_practice:
        rows = [r for r in rows if not r["practice"]]
    write_tsv(rows, columns, out_path)
    logger.info("exported %d trial(s) to %s", len(rows), out_path)
    return len(rows)


# --------------------------------------------------------------------------- main

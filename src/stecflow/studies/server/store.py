"""The SQLite store of responses: schema, response fields, connection pool.

Owns the database layout (tables ``meta``, ``sessions``, ``trials`` and, since
schema version 2, the side table ``situated_trials`` with the fields only a
situated identification trial has, :data:`SITUATED_FIELDS`; and ``text_trials``,
one row per answer field of a text rating or preference trial: ``name`` is the
column, e.g. ``rating_fluency`` or ``preferred``, created when missing without a
version change, since a stecflow without it cannot load a text study at all), the
response fields
of a trial as stored (:data:`RESPONSE_FIELDS`; the ones stored as 0/1 in
:data:`BOOL_FIELDS`) and :class:`Store`, which opens a database in WAL mode,
migrates a version 1 database (REG studies; the side table is added, nothing else
changes), refuses one of a newer version or collected with other stimuli, and
hands out pooled connections and one-writer-at-a-time transactions.

Schema version 3 adds to ``sessions`` the crowdsourcing IDs (``study_id``,
``external_session``), ``consent`` (1 when the participant agreed on the
study's consent screen) and ``returned_s`` (when the organiser marked the place
returned or timed out on the platform), and the table ``answers`` (one row per
questionnaire field: ``screen``, ``field``, the value as JSON, ``received_s``).
A version 1 or 2 database is migrated in place (columns and table added, nothing
else changes; :func:`session_columns` tells a reader which columns a database
has).

The column ``attempt_sha256`` of ``sessions`` (:data:`SESSION_ATTEMPT_COLUMNS`:
the SHA-256 of the attempt key the page sends with ``POST api/session``, which
makes a retried request find the session it created) is added when missing,
without a version change: a stecflow without it serves and exports such a
database unchanged (it never reads the column and leaves it empty).
"""

from __future__ import annotations

import queue
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from stecflow.studies.server.study import CollectionError, Study

__all__ = [
    "BOOL_FIELDS",
    "RESPONSE_FIELDS",
    "SCHEMA_VERSION",
    "SITUATED_FIELDS",
    "SESSION_ATTEMPT_COLUMNS",
    "SESSION_EXTRA_COLUMNS",
    "Store",
    "refuse_newer",
    "session_columns",
]

#: Version 1: meta, sessions, trials. Version 2 adds ``situated_trials``.
#: Version 3 adds the columns :data:`SESSION_EXTRA_COLUMNS` to ``sessions`` and
#: the table ``answers``.
SCHEMA_VERSION = 3

#: Columns of ``sessions`` added by schema version 3 (name -> SQL type).
SESSION_EXTRA_COLUMNS = {
    "study_id": "TEXT",
    "external_session": "TEXT",
    "consent": "INTEGER",
    "returned_s": "REAL",
}
#: Columns of ``sessions`` added when missing without a version change.
SESSION_ATTEMPT_COLUMNS = {"attempt_sha256": "TEXT"}

RESPONSE_FIELDS = (
    "adequacy",
    "fluency",
    "chosen_entity",
    "correct",
    "cant_tell",
    "timeout",
    "reading_time_ms",
    "identification_time_ms",
    "rt_ms",
    "audio_onset_ms",
    "click_x",
    "click_y",
)
BOOL_FIELDS = ("practice", "filler", "correct", "cant_tell", "timeout")
#: Fields of a situated identification trial, stored in ``situated_trials``
#: (the same names, in the same order, as
#: ``stecflow.studykinds.situated_identification.stimuli.SITUATED_COLUMNS``).
SITUATED_FIELDS = (
    "instance",
    "dialogue",
    "expression",
    "time_ms",
    "plays",
    "replays",
    "answer_via",
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    session_id TEXT PRIMARY KEY,
    token_sha256 TEXT NOT NULL UNIQUE,
    list TEXT NOT NULL,
    participant TEXT,
    created_s REAL NOT NULL,
    last_seen_s REAL NOT NULL,
    completed_s REAL,
    completion_code TEXT,
    study_id TEXT,
    external_session TEXT,
    consent INTEGER,
    returned_s REAL,
    attempt_sha256 TEXT
);
CREATE INDEX IF NOT EXISTS sessions_by_list ON sessions (list);
CREATE TABLE IF NOT EXISTS trials (
    session_id TEXT NOT NULL REFERENCES sessions (session_id),
    "order" INTEGER NOT NULL,
    list TEXT NOT NULL,
    item TEXT NOT NULL,
    system TEXT,
    subdomain TEXT,
    practice INTEGER NOT NULL,
    filler INTEGER NOT NULL,
    target_entity TEXT,
    adequacy INTEGER,
    fluency INTEGER,
    chosen_entity TEXT,
    correct INTEGER,
    cant_tell INTEGER,
    timeout INTEGER,
    reading_time_ms REAL,
    identification_time_ms REAL,
    rt_ms REAL,
    audio_onset_ms REAL,
    click_x REAL,
    click_y REAL,
    received_s REAL NOT NULL,
    PRIMARY KEY (session_id, "order")
);
CREATE TABLE IF NOT EXISTS situated_trials (
    session_id TEXT NOT NULL,
    "order" INTEGER NOT NULL,
    instance TEXT NOT NULL,
    dialogue TEXT NOT NULL,
    expression TEXT NOT NULL,
    time_ms REAL NOT NULL,
    plays INTEGER NOT NULL,
    replays INTEGER NOT NULL,
    answer_via TEXT NOT NULL,
    PRIMARY KEY (session_id, "order"),
    FOREIGN KEY (session_id, "order") REFERENCES trials (session_id, "order")
);
CREATE TABLE IF NOT EXISTS text_trials (
    session_id TEXT NOT NULL,
    "order" INTEGER NOT NULL,
    name TEXT NOT NULL,
    value,
    PRIMARY KEY (session_id, "order", name),
    FOREIGN KEY (session_id, "order") REFERENCES trials (session_id, "order")
);
CREATE TABLE IF NOT EXISTS answers (
    session_id TEXT NOT NULL REFERENCES sessions (session_id),
    screen TEXT NOT NULL,
    field TEXT NOT NULL,
    value_json TEXT NOT NULL,
    received_s REAL NOT NULL,
    PRIMARY KEY (session_id, screen, field)
);
"""


class Store:
    """SQLite (WAL) store with a small connection pool."""

    def __init__(self, path: Path, study: Study, synchronous: str = "FULL") -> None:
        self.path = path
        self.synchronous = synchronous
        self._pool: queue.SimpleQueue[sqlite3.Connection] = queue.SimpleQueue()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._setup(study)
        except BaseException:
            self.close()
            raise

    def _setup(self, study: Study) -> None:
        path = self.path
        with self.connection() as db:
            refuse_newer(db, path)
            db.executescript(_SCHEMA)
            have = session_columns(db)
            for name, kind in SESSION_EXTRA_COLUMNS.items():
                if name not in have:  # a version 1 or 2 database
                    db.execute(f"ALTER TABLE sessions ADD COLUMN {name} {kind}")
            for name, kind in SESSION_ATTEMPT_COLUMNS.items():
                if name not in have:  # written by a stecflow without attempt keys
                    db.execute(f"ALTER TABLE sessions ADD COLUMN {name} {kind}")
            db.execute(
                "CREATE INDEX IF NOT EXISTS sessions_by_attempt "
                "ON sessions (attempt_sha256)"
            )
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
            if not meta:
                db.executemany(
                    "INSERT INTO meta (key, value) VALUES (?, ?)",
                    [
                        ("schema_version", str(SCHEMA_VERSION)),
                        ("study", study.study),
                        ("stimuli_sha256", study.sha256),
                    ],
                )
            elif meta.get("stimuli_sha256") != study.sha256 or meta.get("study") != (
                study.study
            ):
                old = meta.get("stimuli_sha256", "?")[:12]
                raise CollectionError(
                    f"{path} holds responses to study {meta.get('study')} with other "
                    f"stimuli (stimuli.json sha256 {old}, now {study.sha256[:12]}); "
                    "studies are frozen: restore the "
                    "original stimuli, or collect the new study in a new database",
                    field="db_path",
                )
            elif meta.get("schema_version") != str(SCHEMA_VERSION):
                # version 1 or 2 -> 3: the script above added situated_trials and
                # answers, the loop the new columns of sessions
                db.execute(
                    "UPDATE meta SET value = ? WHERE key = 'schema_version'",
                    (str(SCHEMA_VERSION),),
                )

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(
            self.path, timeout=30.0, isolation_level=None, check_same_thread=False
        )
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={self.synchronous}")
        db.execute("PRAGMA busy_timeout=30000")
        db.execute("PRAGMA foreign_keys=ON")
        with self._lock:
            self._all.append(db)
        return db

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        try:
            db = self._pool.get_nowait()
        except queue.Empty:
            db = self._connect()
        try:
            yield db
        finally:
            if db.in_transaction:
                db.rollback()
            self._pool.put(db)

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        # One writer at a time in this process: SQLite's own busy handler backs
        # off with sleeps of up to 100 ms, which gives long latency tails under
        # load; a lock queues writers fairly instead. Other processes (an export
        # running beside the server) are still handled by busy_timeout.
        with self._write_lock, self.connection() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.rollback()
                raise
            db.commit()

    def close(self) -> None:
        with self._lock:
            for db in self._all:
                with suppress(sqlite3.Error):
                    db.close()
            self._all.clear()


def session_columns(db: sqlite3.Connection) -> set[str]:
    """The columns of the ``sessions`` table of *db* (older databases lack some)."""
    return {str(row[1]) for row in db.execute("PRAGMA table_info(sessions)")}


def refuse_newer(db: sqlite3.Connection, path: Path) -> None:
    """Raise if *db* was written by a newer stecflow (a schema this one lacks)."""
    has_meta = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
    ).fetchone()
    if not has_meta:
        return
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    try:
        version = int(row[0]) if row is not None else 1
    except ValueError:
        version = SCHEMA_VERSION + 1
    if version > SCHEMA_VERSION:
        raise CollectionError(
            f"{path} has database schema version {row[0]}, newer than this "
            f"stecflow's ({SCHEMA_VERSION}); serve or export it with the stecflow "
            "that created it",
            field="db_path",
        )

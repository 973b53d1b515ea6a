"""The collection server of a human study: serves the web experiment, stores answers.

A small WSGI application on the standard library (``wsgiref`` with one thread per
request) and SQLite in WAL mode. It serves a study folder built by
:func:`stecflow.studies.stimuli.build_study` and stores every trial the moment it is
answered. Run it with :func:`serve` (blocking) or :func:`make_server` (tests,
embedding); export with :func:`export_responses`. From a shell::

    python -m stecflow.studies.server serve results/studies/rating-1 --port 8000
    python -m stecflow.studies.server export results/studies/rating-1 \
        --out responses.tsv

Behaviour
---------
* **Lists fill evenly.** A new session gets the list with the fewest completed plus
  active sessions; ties go to the list with fewer completed sessions, then to the
  earlier list in the design. So the first participants get the lists in order,
  and no list gets a second participant while another has none.
* **Abandoned sessions are re-released.** A session that is not completed and has
  not been heard from for ``abandon_after_s`` seconds no longer counts, so its list
  goes to the next participant. If the participant comes back, the session still
  works (the list then gets two participants; both are kept).
* **Nothing is lost.** Each trial is committed (``synchronous=FULL``) before the
  page is told so; the page keeps unacknowledged trials in ``localStorage`` and
  resends them, so a reload, a lost connection or a server restart loses nothing.
  On load, the page asks for its session state and resumes at the first trial
  missing. Re-sent trials are acknowledged and never overwrite the first copy.
* **Isolation.** A session is identified by an unguessable token
  (``secrets.token_urlsafe(32)``, sent as ``Authorization: Bearer``; only its
  SHA-256 is stored) and can only write its own trials. Every request body is
  limited (``max_body_bytes``, 16 KiB by default; 413), must be a JSON object
  in strict JSON (no ``NaN`` or ``Infinity``, no number beyond 20 digits or
  outside the range of a float; 400), and is checked field by field against the
  trial it answers (400); unknown or missing tokens get 403. Only the
  experiment's own files are served. No request body, however malformed, gets a
  500.
* **Bounded load.** A connection that sends nothing for ``read_timeout_s``
  seconds (30 by default) is closed (408 if its body stalls); at most
  ``max_connections`` (256) are served at once, and the ones beyond get an
  immediate 503 (``Retry-After: 1``; the page retries).
* **Who may start.** Each client address may open ``sessions_per_address``
  sessions (20) per ``session_window_s`` seconds (600), 429 with
  ``Retry-After`` beyond that, on top of the study's cap (``max_sessions``,
  409: final, so the page tells a latecomer the study is full instead of
  waiting for the server). Behind a reverse proxy, set ``behind_proxy`` so
  that the address is the last one of ``X-Forwarded-For`` (IPv6 addresses
  count per /64). With ``require_participant``, a session needs a participant
  ID (400 without).
* **Frozen stimuli.** The database records the SHA-256 of ``stimuli.json``; a server
  started on a database collected with other stimuli refuses to run.

API (all JSON, paths relative to the page)
------------------------------------------
``GET api/ping`` -> ``{"study", "sha256", "task", "variant"}``.
``POST api/session`` ``{"participant": str or null}`` -> 201 ``{"token",
"session_id", "list", "answered": [], "completed": false}``; 400 without a
participant if one is required, 429 if the address opened too many sessions.
``GET api/session`` -> ``{"session_id", "list", "answered": [orders],
"completed", "completion_code"}``.
``POST api/trial`` (one trial: ``order``, ``item``, ``system`` and the responses
below) -> 201 ``{"stored": true}`` or 200 ``{"stored": false, "duplicate": true}``.
``POST api/complete`` -> 200 ``{"completion_code"}``, or 409 ``{"missing": [orders]}``.

Response table (export and offline file)
----------------------------------------
One row per answered trial; columns :data:`RESPONSE_COLUMNS` in this order (empty
cell: not applicable or missing; booleans ``true``/``false``; times in ms, 0.1 ms
resolution, from ``performance.now()``):

``study``, ``task``, ``variant``
    The study ID, ``rating`` or ``identification``, and the identification
    variant (``together``, ``read_first``, ``spoken``; empty for rating).
``session``, ``participant``, ``session_status``
    A public session ID (never the token; ``offline-...`` in offline files), the
    participant ID passed in the page's address as ``?participant=``,
    ``?PROLIFIC_PID=``, ``?pid=`` or ``?workerId=`` (may be empty),
    and ``completed``, ``in_progress``, ``abandoned`` or ``offline``.
``list``, ``order``, ``item``, ``system``, ``subdomain``, ``practice``, ``filler``
    The trial, as in the design (``order`` is 1-based within the list; ``system``
    is empty for practice trials without one).
``adequacy``, ``fluency``
    Rating: the slider positions, integers 1-100 (hidden scale; 50 = untouched
    centre).
``chosen_entity``, ``target_entity``, ``correct``, ``cant_tell``, ``timeout``
    Identification: the entity clicked (empty for a timeout or "can't tell"), the
    target, whether they agree (computed by the server; ``false`` for "can't
    tell", empty for a timeout), and the two flags. ``target_entity`` is filled
    for rating too (the highlighted entity).
``reading_time_ms``, ``identification_time_ms``, ``rt_ms``
    ``read_first``: description onset to the call for the pictures (RT), and
    picture onset to the click (IT). ``together``: description-and-picture onset
    to the click (RIT) in ``identification_time_ms``. ``spoken``: display onset to
    the click. ``rt_ms`` is the whole response time (rating: display onset to
    "Next"; identification: reading plus identification time; empty on timeout).
``audio_onset_ms``
    ``spoken``: when the voice started, from display onset.
``click_x``, ``click_y``
    Identification: the click position within the clicked picture's box, as
    fractions 0-1 from its top left corner (empty for keyboard choices).
"""

from __future__ import annotations

import argparse
import hashlib
import ipaddress
import json
import logging
import math
import mimetypes
import os
import queue
import re
import secrets
import socket
import sqlite3
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from socketserver import ThreadingMixIn
from typing import Any
from urllib.parse import unquote
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

from stecflow.core.errors import StecflowError
from stecflow.studies.stimuli import RESPONSE_COLUMNS

__all__ = [
    "DEFAULT_ABANDON_AFTER_S",
    "DEFAULT_MAX_CONNECTIONS",
    "DEFAULT_READ_TIMEOUT_S",
    "DEFAULT_SESSION_WINDOW_S",
    "DEFAULT_SESSIONS_PER_ADDRESS",
    "MAX_BODY_BYTES",
    "RESPONSE_COLUMNS",
    "WEB_FILES",
    "CollectionApp",
    "CollectionError",
    "ExperimentServer",
    "check_study",
    "export_responses",
    "load_study",
    "main",
    "make_app",
    "make_server",
    "read_responses",
    "resolve_study",
    "serve",
]

logger = logging.getLogger(__name__)

#: Default limit of a request body, in bytes.
MAX_BODY_BYTES = 16 * 1024
#: Default time after which an unfinished, silent session no longer holds its list.
DEFAULT_ABANDON_AFTER_S = 1800.0
#: Default time a connection may stay silent before it is closed.
DEFAULT_READ_TIMEOUT_S = 30.0
#: Default number of connections served at once (more get a 503).
DEFAULT_MAX_CONNECTIONS = 256
#: Default number of sessions one client address may open per window.
DEFAULT_SESSIONS_PER_ADDRESS = 20
#: Default window of the per-address session limit, in seconds.
DEFAULT_SESSION_WINDOW_S = 600.0
_MAX_DIGITS = 20
_LINGER_S = 0.5
_MAX_LINGERING = 128
_CONTENT_LENGTH = re.compile(r"^[0-9]{1,15}$")
_DRAIN_LIMIT = 1024 * 1024
_SCHEMA_VERSION = 1
_MAX_MS = 3_600_000.0
_STATIC_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".wav": "audio/wav",
    ".tsv": "text/tab-separated-values; charset=utf-8",
}
_SAFE_PATH = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]*(/[A-Za-z0-9_][A-Za-z0-9._-]*)*$")
_PARTICIPANT = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "media-src 'self' blob:; connect-src 'self'; object-src 'none'; "
    "base-uri 'none'; frame-ancestors 'none'; form-action 'none'"
)


class CollectionError(StecflowError):
    """A study folder or database cannot be used for collection (says what to do)."""


class _HTTPError(Exception):
    def __init__(
        self,
        status: int,
        message: str,
        *,
        headers: Sequence[tuple[str, str]] = (),
        **extra: Any,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = list(headers)
        self.extra = extra


_REASONS = {
    200: "OK",
    201: "Created",
    400: "Bad Request",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    408: "Request Timeout",
    409: "Conflict",
    411: "Length Required",
    413: "Payload Too Large",
    415: "Unsupported Media Type",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


# --------------------------------------------------------------------------- study


@dataclass(frozen=True)
class _Trial:
    order: int
    item: str
    system: str | None
    subdomain: str | None
    practice: bool
    filler: bool
    target: str
    entities: frozenset[str]


@dataclass(frozen=True)
class Study:
    """What the server needs to know about a built study.

    Attributes
    ----------
    web_dir : Path
        The folder served.
    study, task : str
        The study ID and task.
    variant : str or None
        The identification variant.
    sha256 : str
        SHA-256 of ``stimuli.json``.
    lists : dict
        List ID -> {order -> trial}, lists in design order.
    completion_code : str or None
        The study-wide completion code, if the settings fix one.
    """

    web_dir: Path
    study: str
    task: str
    variant: str | None
    sha256: str
    lists: dict[str, dict[int, _Trial]]
    completion_code: str | None


def resolve_study(study_dir: str | Path) -> Path:
    """Return the web folder of a study: *study_dir* itself or ``study_dir/web``.

    Raises
    ------
    CollectionError
        If neither holds a ``stimuli.json``.
    """
    root = Path(study_dir)
    for candidate in (root / "web", root):
        if (candidate / "stimuli.json").is_file():
            return candidate
    raise CollectionError(
        f"{root} holds no built study (no stimuli.json in it or in {root / 'web'}); "
        "build the study's stimuli first",
        field="study_dir",
    )


def load_study(study_dir: str | Path) -> Study:
    """Read a built study's ``stimuli.json``.

    Parameters
    ----------
    study_dir : path
        The study folder (``results/studies/<study>``) or its ``web`` folder.

    Returns
    -------
    Study

    Raises
    ------
    CollectionError
        If the folder holds no study or the document is not a stecflow study.
    """
    web = resolve_study(study_dir)
    raw = (web / "stimuli.json").read_bytes()
    try:
        doc = json.loads(raw)
        if doc.get("format") != "stecflow-study":
            raise ValueError("not a stecflow study document")
        lists: dict[str, dict[int, _Trial]] = {}
        for lst in doc["lists"]:
            trials = {}
            for t in lst["trials"]:
                trials[int(t["order"])] = _Trial(
                    order=int(t["order"]),
                    item=str(t["item"]),
                    system=t["system"],
                    subdomain=t.get("subdomain"),
                    practice=bool(t["practice"]),
                    filler=bool(t["filler"]),
                    target=str(t["target"]),
                    entities=frozenset(str(e["id"]) for e in t["entities"]),
                )
            lists[str(lst["list"])] = trials
        settings = doc.get("settings", {})
        return Study(
            web_dir=web,
            study=str(doc["study"]),
            task=str(doc["task"]),
            variant=doc.get("variant"),
            sha256=hashlib.sha256(raw).hexdigest(),
            lists=lists,
            completion_code=settings.get("completion_code"),
        )
    except (ValueError, KeyError, TypeError) as error:
        raise CollectionError(
            f"{web / 'stimuli.json'} is not a usable study document ({error}); "
            "rebuild the study",
            field="stimuli.json",
        ) from None


#: Files of a study's web folder the page cannot run without.
WEB_FILES = ("index.html", "experiment.js", "stimuli.json")


def check_study(study_dir: str | Path, db_path: str | Path | None = None) -> Study:
    """Check that a study can be served, before anything listens.

    Parameters
    ----------
    study_dir : path
        The study folder (``results/studies/<study>``) or its ``web`` folder.
    db_path : path, optional
        The database (default: ``responses.sqlite`` beside the web folder).

    Returns
    -------
    Study
        The study, when the folder exists, ``stimuli.json`` is a study document
        with lists of trials (the design), the page's files are there and match
        the study's ``MANIFEST.tsv``, and the database can be written (created).

    Raises
    ------
    CollectionError
        Naming the file or folder at fault and what to do.
    """
    from stecflow.studies.stimuli import StimuliError, study_sha256

    root = Path(study_dir)
    if not root.is_dir():
        raise CollectionError(
            "no such study folder; give a study ID (results/studies/<ID>) or the"
            " folder of a study the workflow built",
            file=str(root),
        )
    study = load_study(root)
    empty = [name for name, trials in study.lists.items() if not trials]
    if not study.lists or empty:
        raise CollectionError(
            "the study's design has no lists of trials"
            + (f" (list {empty[0]} is empty)" if empty else "")
            + "; rebuild the study",
            file=str(study.web_dir / "stimuli.json"),
        )
    for name in WEB_FILES:
        if not (study.web_dir / name).is_file():
            raise CollectionError(
                f"{name} is missing from the study's web folder; rebuild the study",
                file=str(study.web_dir),
            )
    try:
        study_sha256(study.web_dir)
    except StimuliError as error:
        raise CollectionError(error.message, file=str(study.web_dir)) from None
    _check_writable(
        Path(db_path) if db_path is not None else _default_db(study.web_dir)
    )
    return study


def _check_writable(db: Path) -> None:
    """Raise unless the SQLite file *db* (and its journal beside it) can be written."""
    what = "; give --db a file in a folder you can write to"
    if db.exists():
        if not db.is_file():
            raise CollectionError(
                "the database path is not a file" + what, file=str(db)
            )
        if not os.access(db, os.R_OK | os.W_OK):
            raise CollectionError("the database cannot be written" + what, file=str(db))
        folder = db.parent
    else:
        folder = db.parent
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
    if not folder.is_dir():
        raise CollectionError(
            f"{folder} is not a folder, so the database cannot be created" + what,
            file=str(db),
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CollectionError(
            f"cannot write in {folder} (the database and its journal go there)" + what,
            file=str(db),
        )


# --------------------------------------------------------------------------- store

_RESPONSE_FIELDS = (
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
_BOOL_FIELDS = ("practice", "filler", "correct", "cant_tell", "timeout")

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
    completion_code TEXT
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
"""


class _Store:
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
            db.executescript(_SCHEMA)
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
            if not meta:
                db.executemany(
                    "INSERT INTO meta (key, value) VALUES (?, ?)",
                    [
                        ("schema_version", str(_SCHEMA_VERSION)),
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


# --------------------------------------------------------------------------- the app


def _number(
    payload: Mapping[str, Any], name: str, low: float, high: float, *, required: bool
) -> float | None:
    value = payload.get(name)
    if value is None:
        if required:
            raise _HTTPError(400, f"{name} is required")
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _HTTPError(400, f"{name} must be a number, got {type(value).__name__}")
    # Compared before any conversion: NaN fails, and a huge int never meets float().
    if not low <= value <= high:
        raise _HTTPError(400, f"{name} must be between {low:g} and {high:g}")
    return float(value)


def _flag(payload: Mapping[str, Any], name: str) -> bool:
    value = payload.get(name, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise _HTTPError(400, f"{name} must be true or false")
    return value


_TRIAL_KEYS = frozenset({"order", "item", "system", *_RESPONSE_FIELDS}) - {"correct"}


class _BadNumber(ValueError):
    """A number in a request body that the API refuses (the message says why)."""


def _parse_int(text: str) -> int:
    # Python refuses int strings over 4,300 digits with a ValueError of its own;
    # no field of the API needs more than a few digits.
    if len(text.lstrip("-")) > _MAX_DIGITS:
        raise _BadNumber(
            f"the request body has a number of more than {_MAX_DIGITS} digits"
        )
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400 parses as infinity
        raise _BadNumber("the request body has a number too large for a float")
    return value


def _parse_constant(text: str) -> float:
    raise _BadNumber(f"the request body has {text}, which is not JSON; send numbers")


def _client_key(environ: Mapping[str, Any], behind_proxy: bool) -> str:
    """The address a request comes from, as the session limit counts it.

    Behind a reverse proxy, the last address of ``X-Forwarded-For`` (the one the
    proxy added; earlier ones are the client's word). IPv6 addresses count per
    /64, the block one subscriber usually holds.
    """
    address = str(environ.get("REMOTE_ADDR") or "")
    if behind_proxy:
        forwarded = str(environ.get("HTTP_X_FORWARDED_FOR") or "")
        address = forwarded.split(",")[-1].strip() or address
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class _RateLimit:
    """At most *limit* events per *window_s* seconds per key (``limit=0``: none)."""

    def __init__(self, limit: int, window_s: float) -> None:
        self.limit = limit
        self.window_s = window_s
        self._events: dict[str, deque[float]] = {}
        self._lock = threading.Lock()
        self._next_sweep = -math.inf

    def take(self, key: str, now: float) -> float:
        """Count an event of *key*; return 0, or the seconds until one is allowed."""
        if self.limit <= 0:
            return 0.0
        horizon = now - self.window_s
        with self._lock:
            if now >= self._next_sweep:  # forget quiet addresses once per window
                self._events = {
                    k: v for k, v in self._events.items() if v and v[-1] > horizon
                }
                self._next_sweep = now + self.window_s
            events = self._events.setdefault(key, deque())
            while events and events[0] <= horizon:
                events.popleft()
            if len(events) >= self.limit:
                return events[0] - horizon
            events.append(now)
            return 0.0

    def give_back(self, key: str, now: float) -> None:
        """Uncount the event of *key* at *now* (its request failed)."""
        with self._lock:
            events = self._events.get(key)
            if events is not None:
                with suppress(ValueError):
                    events.remove(now)


class CollectionApp:
    """The WSGI application: static experiment files plus the ``api/`` endpoints.

    Use :func:`make_app` to build one; :meth:`close` closes the database.

    Attributes
    ----------
    study : Study
        The study served.
    db_path : Path
        The SQLite database.
    abandon_after_s : float
        Silence after which an unfinished session no longer holds its list.
    require_participant : bool
        Whether a session needs a participant ID.
    behind_proxy : bool
        Whether client addresses come from ``X-Forwarded-For``.
    """

    def __init__(
        self,
        study: Study,
        db_path: Path,
        *,
        abandon_after_s: float = DEFAULT_ABANDON_AFTER_S,
        max_body_bytes: int = MAX_BODY_BYTES,
        max_sessions: int = 100_000,
        sessions_per_address: int = DEFAULT_SESSIONS_PER_ADDRESS,
        session_window_s: float = DEFAULT_SESSION_WINDOW_S,
        require_participant: bool = False,
        behind_proxy: bool = False,
        clock: Callable[[], float] = time.time,
        synchronous: str = "FULL",
    ) -> None:
        if abandon_after_s <= 0:
            raise CollectionError("must be positive", field="abandon_after_s")
        if sessions_per_address < 0:
            raise CollectionError(
                "must be 0 (no limit) or more", field="sessions_per_address"
            )
        if session_window_s <= 0:
            raise CollectionError("must be positive", field="session_window_s")
        self.study = study
        self.db_path = db_path
        self.abandon_after_s = float(abandon_after_s)
        self.max_body_bytes = int(max_body_bytes)
        self.max_sessions = int(max_sessions)
        self.require_participant = bool(require_participant)
        self.behind_proxy = bool(behind_proxy)
        self._session_limit = _RateLimit(int(sessions_per_address), session_window_s)
        self.clock = clock
        self.store = _Store(db_path, study, synchronous)
        self._list_ids = list(study.lists)
        self._files: dict[str, tuple[bytes, str]] = {}
        self._files_lock = threading.Lock()

    def close(self) -> None:
        """Close the database connections."""
        self.store.close()

    # ----------------------------------------------------------------- WSGI

    def __call__(
        self, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        method = environ.get("REQUEST_METHOD", "GET")
        path = environ.get("PATH_INFO", "/") or "/"
        try:
            if path.startswith("/api/"):
                status, body = self._api(method, path[len("/api/") :], environ)
                return self._json(start_response, status, body)
            return self._static(method, path, start_response)
        except _HTTPError as error:
            if error.status in (411, 413):
                self._drain(environ)
            body = {"error": error.message, **error.extra}
            return self._json(start_response, error.status, body, error.headers)
        except Exception:  # pragma: no cover - a bug; logged, never shown
            logger.exception("internal error on %s %s", method, path)
            return self._json(start_response, 500, {"error": "internal server error"})

    @staticmethod
    def _drain(environ: Mapping[str, Any]) -> None:
        """Read (and drop) an unread body so that the client sees the answer."""
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return
        stream = environ.get("wsgi.input")
        if stream is None or not 0 < length <= _DRAIN_LIMIT:
            return
        with suppress(OSError):  # a client that stalls or leaves: answer anyway
            while length > 0:
                chunk = stream.read(min(length, 65536))
                if not chunk:
                    break
                length -= len(chunk)

    @staticmethod
    def _headers(content_type: str, length: int) -> list[tuple[str, str]]:
        return [
            ("Content-Type", content_type),
            ("Content-Length", str(length)),
            ("Cache-Control", "no-store"),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
            ("Content-Security-Policy", _CSP),
        ]

    def _json(
        self,
        start_response: Callable[..., Any],
        status: int,
        body: Any,
        headers: Sequence[tuple[str, str]] = (),
    ) -> list[bytes]:
        data = json.dumps(body, sort_keys=True).encode("utf-8")
        start_response(
            f"{status} {_REASONS.get(status, 'Error')}",
            self._headers("application/json", len(data)) + list(headers),
        )
        return [data]

    def _static(
        self, method: str, path: str, start_response: Callable[..., Any]
    ) -> list[bytes]:
        if method not in ("GET", "HEAD"):
            raise _HTTPError(405, "only GET and HEAD are allowed here")
        relative = unquote(path).lstrip("/") or "index.html"
        if not _SAFE_PATH.match(relative) or ".." in relative.split("/"):
            raise _HTTPError(404, "not found")
        suffix = Path(relative).suffix.lower()
        if suffix not in _STATIC_TYPES:
            raise _HTTPError(404, "not found")
        with self._files_lock:
            cached = self._files.get(relative)
        if cached is None:
            target = (self.study.web_dir / relative).resolve()
            root = self.study.web_dir.resolve()
            if root not in target.parents or not target.is_file():
                raise _HTTPError(404, "not found")
            cached = (
                target.read_bytes(),
                _STATIC_TYPES.get(suffix) or mimetypes.types_map.get(suffix, ""),
            )
            with self._files_lock:
                self._files[relative] = cached
        data, content_type = cached
        start_response("200 OK", self._headers(content_type, len(data)))
        return [b"" if method == "HEAD" else data]

    def _read_json(self, environ: Mapping[str, Any]) -> dict[str, Any]:
        length_text = str(environ.get("CONTENT_LENGTH") or "").strip()
        if not length_text:
            raise _HTTPError(411, "a Content-Length header is required")
        if not _CONTENT_LENGTH.match(length_text):  # ASCII digits, at most 15
            if length_text.isascii() and length_text.isdigit():
                raise _HTTPError(
                    413, f"the request body is limited to {self.max_body_bytes} bytes"
                )
            raise _HTTPError(400, "Content-Length must be a number of bytes")
        length = int(length_text)
        if length > self.max_body_bytes:
            raise _HTTPError(
                413, f"the request body is limited to {self.max_body_bytes} bytes"
            )
        content_type = str(environ.get("CONTENT_TYPE") or "application/json")
        if content_type.split(";")[0].strip().lower() != "application/json":
            self._drain(environ)
            raise _HTTPError(415, "send JSON (Content-Type: application/json)")
        try:
            raw = environ["wsgi.input"].read(length) if length else b""
        except TimeoutError:
            raise _HTTPError(408, "the request body did not arrive in time") from None
        except OSError:
            raise _HTTPError(400, "the connection broke off in the body") from None
        if len(raw) != length:
            raise _HTTPError(400, "the request body is shorter than Content-Length")
        try:
            data = json.loads(
                raw.decode("utf-8"),
                parse_int=_parse_int,
                parse_float=_parse_float,
                parse_constant=_parse_constant,
            )
        except _BadNumber as error:
            raise _HTTPError(400, str(error)) from None
        except (ValueError, RecursionError):  # bad UTF-8 or JSON, also a ValueError
            raise _HTTPError(400, "the request body is not valid JSON") from None
        if not isinstance(data, dict):
            raise _HTTPError(400, "the request body must be a JSON object")
        return data

    def _session(
        self, db: sqlite3.Connection, environ: Mapping[str, Any]
    ) -> tuple[Any, ...]:
        header = str(environ.get("HTTP_AUTHORIZATION") or "")
        if not header.startswith("Bearer "):
            raise _HTTPError(403, "no session token (Authorization: Bearer ...)")
        token = header[len("Bearer ") :].strip()
        if not 20 <= len(token) <= 128:
            raise _HTTPError(403, "unknown session")
        digest = hashlib.sha256(token.encode("utf-8")).hexdigest()
        row = db.execute(
            "SELECT session_id, list, participant, completed_s, completion_code "
            "FROM sessions WHERE token_sha256 = ?",
            (digest,),
        ).fetchone()
        if row is None:
            raise _HTTPError(403, "unknown session")
        return tuple(row)

    def _api(
        self, method: str, route: str, environ: Mapping[str, Any]
    ) -> tuple[int, Any]:
        routes = {
            "ping": ("GET",),
            "session": ("GET", "POST"),
            "trial": ("POST",),
            "complete": ("POST",),
        }
        if route not in routes:
            raise _HTTPError(404, "no such endpoint")
        if method not in routes[route]:
            raise _HTTPError(405, f"use {' or '.join(routes[route])}")
        if route == "ping":
            return 200, {
                "study": self.study.study,
                "sha256": self.study.sha256,
                "task": self.study.task,
                "variant": self.study.variant,
            }
        if route == "session" and method == "POST":
            return self._create_session(environ, self._read_json(environ))
        if route == "session":
            return self._state(environ)
        if route == "trial":
            return self._store_trial(environ, self._read_json(environ))
        self._read_json(environ)
        return self._complete(environ)

    # ----------------------------------------------------------------- endpoints

    def _usage(self, db: sqlite3.Connection, now: float) -> dict[str, tuple[int, int]]:
        cutoff = now - self.abandon_after_s
        usage = {list_id: (0, 0) for list_id in self._list_ids}
        for list_id, done, active in db.execute(
            "SELECT list, SUM(completed_s IS NOT NULL), "
            "SUM(completed_s IS NULL AND last_seen_s >= ?) FROM sessions GROUP BY list",
            (cutoff,),
        ):
            if list_id in usage:
                usage[list_id] = (int(done or 0), int(active or 0))
        return usage

    def _create_session(
        self, environ: Mapping[str, Any], payload: Mapping[str, Any]
    ) -> tuple[int, Any]:
        unknown = sorted(set(payload) - {"participant"})
        if unknown:
            raise _HTTPError(400, f"unknown field(s): {', '.join(unknown)}")
        participant = payload.get("participant")
        if participant is not None and (
            not isinstance(participant, str) or not _PARTICIPANT.match(participant)
        ):
            raise _HTTPError(400, "participant must be 1-64 letters, digits, - or _")
        if participant is None and self.require_participant:
            raise _HTTPError(
                400,
                "this study needs your participant ID: open the study with the "
                "link you were given (its address ends in ?participant=..., "
                "?PROLIFIC_PID=..., ?pid=... or ?workerId=...)",
            )
        now = self.clock()
        client = _client_key(environ, self.behind_proxy)
        wait = self._session_limit.take(client, now)
        if wait > 0:
            retry = max(1, math.ceil(wait))
            logger.debug("session limit reached by %s", client)
            raise _HTTPError(
                429,
                "too many sessions were started from your network; "
                f"please try again in {retry} seconds",
                headers=[("Retry-After", str(retry))],
                retry_after_s=retry,
            )
        try:
            return self._open_session(participant, now)
        except BaseException:
            self._session_limit.give_back(client, now)
            raise

    def _open_session(self, participant: str | None, now: float) -> tuple[int, Any]:
        token = secrets.token_urlsafe(32)
        session_id = secrets.token_hex(8)
        with self.store.transaction() as db:
            (count,) = db.execute("SELECT COUNT(*) FROM sessions").fetchone()
            if count >= self.max_sessions:
                # 409, not 503: the page retries 5xx, and a full study stays full
                raise _HTTPError(
                    409,
                    "This study is full and takes no more participants. Thank you"
                    " for your interest.",
                )
            usage = self._usage(db, now)
            position = {list_id: k for k, list_id in enumerate(self._list_ids)}
            chosen = min(
                self._list_ids,
                key=lambda k: (sum(usage[k]), usage[k][0], position[k]),
            )
            db.execute(
                "INSERT INTO sessions (session_id, token_sha256, list, participant, "
                "created_s, last_seen_s) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    hashlib.sha256(token.encode("utf-8")).hexdigest(),
                    chosen,
                    participant,
                    now,
                    now,
                ),
            )
        logger.info("session %s: list %s", session_id, chosen)
        return 201, {
            "token": token,
            "session_id": session_id,
            "list": chosen,
            "answered": [],
            "completed": False,
            "completion_code": None,
        }

    def _state(self, environ: Mapping[str, Any]) -> tuple[int, Any]:
        with self.store.transaction() as db:
            session_id, list_id, _, completed_s, code = self._session(db, environ)
            db.execute(
                "UPDATE sessions SET last_seen_s = ? WHERE session_id = ?",
                (self.clock(), session_id),
            )
            answered = [
                int(r[0])
                for r in db.execute(
                    'SELECT "order" FROM trials WHERE session_id = ? ORDER BY "order"',
                    (session_id,),
                )
            ]
        return 200, {
            "session_id": session_id,
            "list": list_id,
            "answered": answered,
            "completed": completed_s is not None,
            "completion_code": code,
        }

    def _validate(self, payload: Mapping[str, Any], trial: _Trial) -> dict[str, Any]:
        if payload.get("item") != trial.item or payload.get("system") != trial.system:
            raise _HTTPError(
                400,
                f"trial {trial.order} of this list shows item {trial.item} by "
                f"{trial.system}, not {payload.get('item')} by {payload.get('system')}",
            )
        record: dict[str, Any] = dict.fromkeys(_RESPONSE_FIELDS)
        if self.study.task == "rating":
            for name in ("adequacy", "fluency"):
                value = payload.get(name)
                if isinstance(value, bool) or not isinstance(value, int):
                    raise _HTTPError(400, f"{name} must be an integer from 1 to 100")
                if not 1 <= value <= 100:
                    raise _HTTPError(400, f"{name} must be an integer from 1 to 100")
                record[name] = value
            record["rt_ms"] = _number(payload, "rt_ms", 0, _MAX_MS, required=True)
            for name in _RESPONSE_FIELDS:
                if name not in ("adequacy", "fluency", "rt_ms") and payload.get(
                    name
                ) not in (None, False):
                    raise _HTTPError(400, f"{name} does not belong to a rating trial")
            return record
        for name in ("adequacy", "fluency"):
            if payload.get(name) is not None:
                raise _HTTPError(400, f"{name} does not belong to identification")
        chosen = payload.get("chosen_entity")
        if chosen is not None and (
            not isinstance(chosen, str) or chosen not in trial.entities
        ):
            raise _HTTPError(400, "chosen_entity is not an entity of this trial")
        cant_tell = _flag(payload, "cant_tell")
        timeout = _flag(payload, "timeout")
        if (chosen is not None) + cant_tell + timeout != 1:
            raise _HTTPError(
                400, "give exactly one of chosen_entity, cant_tell=true, timeout=true"
            )
        record.update(chosen_entity=chosen, cant_tell=cant_tell, timeout=timeout)
        if chosen is not None:
            record["correct"] = chosen == trial.target
        else:
            record["correct"] = False if cant_tell else None
        answered = not timeout
        record["identification_time_ms"] = _number(
            payload, "identification_time_ms", 0, _MAX_MS, required=answered
        )
        record["rt_ms"] = _number(payload, "rt_ms", 0, _MAX_MS, required=answered)
        record["reading_time_ms"] = _number(
            payload,
            "reading_time_ms",
            0,
            _MAX_MS,
            required=self.study.variant == "read_first",
        )
        record["audio_onset_ms"] = _number(
            payload, "audio_onset_ms", 0, _MAX_MS, required=False
        )
        record["click_x"] = _number(payload, "click_x", 0, 1, required=False)
        record["click_y"] = _number(payload, "click_y", 0, 1, required=False)
        return record

    def _store_trial(
        self, environ: Mapping[str, Any], payload: Mapping[str, Any]
    ) -> tuple[int, Any]:
        unknown = sorted(set(payload) - _TRIAL_KEYS)
        if unknown:
            raise _HTTPError(400, f"unknown field(s): {', '.join(unknown)}")
        order = payload.get("order")
        if isinstance(order, bool) or not isinstance(order, int):
            raise _HTTPError(400, "order must be an integer")
        with self.store.transaction() as db:
            session_id, list_id, _, _, _ = self._session(db, environ)
            trial = self.study.lists[list_id].get(order)
            if trial is None:
                raise _HTTPError(400, f"list {list_id} has no trial {order}")
            record = self._validate(payload, trial)
            now = self.clock()
            cursor = db.execute(
                'INSERT OR IGNORE INTO trials (session_id, "order", list, item, '
                "system, subdomain, practice, filler, target_entity, "
                + ", ".join(_RESPONSE_FIELDS)
                + ", received_s) VALUES ("
                + ", ".join("?" * (10 + len(_RESPONSE_FIELDS)))
                + ")",
                (
                    session_id,
                    order,
                    list_id,
                    trial.item,
                    trial.system,
                    trial.subdomain,
                    int(trial.practice),
                    int(trial.filler),
                    trial.target,
                    *(
                        int(record[k]) if isinstance(record[k], bool) else record[k]
                        for k in _RESPONSE_FIELDS
                    ),
                    now,
                ),
            )
            stored = cursor.rowcount == 1
            db.execute(
                "UPDATE sessions SET last_seen_s = ? WHERE session_id = ?",
                (now, session_id),
            )
        if stored:
            return 201, {"stored": True, "order": order}
        return 200, {"stored": False, "duplicate": True, "order": order}

    def _complete(self, environ: Mapping[str, Any]) -> tuple[int, Any]:
        with self.store.transaction() as db:
            session_id, list_id, _, completed_s, code = self._session(db, environ)
            if completed_s is not None:
                return 200, {"completion_code": code}
            have = {
                int(r[0])
                for r in db.execute(
                    'SELECT "order" FROM trials WHERE session_id = ?', (session_id,)
                )
            }
            missing = sorted(set(self.study.lists[list_id]) - have)
            if missing:
                raise _HTTPError(409, "trials are missing", missing=missing)
            code = self.study.completion_code or secrets.token_hex(4).upper()
            now = self.clock()
            db.execute(
                "UPDATE sessions SET completed_s = ?, completion_code = ?, "
                "last_seen_s = ? WHERE session_id = ?",
                (now, code, now, session_id),
            )
        logger.info("session %s completed list %s", session_id, list_id)
        return 200, {"completion_code": code}


def _default_db(web_dir: Path) -> Path:
    return web_dir.parent / "responses.sqlite"


def make_app(
    study_dir: str | Path,
    *,
    db_path: str | Path | None = None,
    abandon_after_s: float = DEFAULT_ABANDON_AFTER_S,
    max_body_bytes: int = MAX_BODY_BYTES,
    max_sessions: int = 100_000,
    sessions_per_address: int = DEFAULT_SESSIONS_PER_ADDRESS,
    session_window_s: float = DEFAULT_SESSION_WINDOW_S,
    require_participant: bool = False,
    behind_proxy: bool = False,
    clock: Callable[[], float] = time.time,
    synchronous: str = "FULL",
) -> CollectionApp:
    """Build the WSGI application of a study.

    Parameters
    ----------
    study_dir : path
        The study folder (``results/studies/<study>``) or its ``web`` folder.
    db_path : path, optional
        The SQLite database (created if absent). Default: ``responses.sqlite``
        beside the web folder (``results/studies/<study>/responses.sqlite``); keep
        it somewhere backed up, outside the web folder.
    abandon_after_s : float, default 1800
        Silence after which an unfinished session no longer holds its list.
    max_body_bytes : int, default 16384
        Limit of every request body.
    max_sessions : int, default 100000
        Sessions the study accepts in all (409 after that: the study is full).
    sessions_per_address : int, default 20
        Sessions one client address may open per *session_window_s* (429 with
        ``Retry-After`` beyond that); 0 lifts the limit. Raise it for a lab whose
        computers share one address.
    session_window_s : float, default 600
        The window of *sessions_per_address*, in seconds.
    require_participant : bool, default False
        Open a session only with a participant ID (from the page's address,
        e.g. ``?PROLIFIC_PID=``); 400 with a message saying so without one.
    behind_proxy : bool, default False
        Take the client address from the last entry of ``X-Forwarded-For``, as
        a reverse proxy on this host appends it. Only behind such a proxy:
        otherwise clients choose their own address.
    clock : callable, default time.time
        Seconds since the epoch (tests pass a fake clock).
    synchronous : {"FULL", "NORMAL"}, default "FULL"
        SQLite's ``synchronous`` pragma: FULL survives power loss, NORMAL only
        process crashes.

    Returns
    -------
    CollectionApp
    """
    study = load_study(study_dir)
    if synchronous not in ("FULL", "NORMAL"):
        raise CollectionError("must be FULL or NORMAL", field="synchronous")
    path = Path(db_path) if db_path is not None else _default_db(study.web_dir)
    return CollectionApp(
        study,
        path,
        abandon_after_s=abandon_after_s,
        max_body_bytes=max_body_bytes,
        max_sessions=max_sessions,
        sessions_per_address=sessions_per_address,
        session_window_s=session_window_s,
        require_participant=require_participant,
        behind_proxy=behind_proxy,
        clock=clock,
        synchronous=synchronous,
    )


# --------------------------------------------------------------------------- server


class _Handler(WSGIRequestHandler):
    def setup(self) -> None:
        # StreamRequestHandler puts self.timeout on the socket: every read that
        # waits longer raises TimeoutError.
        self.timeout = getattr(self.server, "read_timeout_s", DEFAULT_READ_TIMEOUT_S)
        super().setup()

    def handle(self) -> None:
        try:
            super().handle()
        except OSError as error:  # silent (TimeoutError) or gone: nobody to answer
            logger.debug("%s: connection dropped (%r)", self.client_address[0], error)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        logger.debug("%s %s", self.address_string(), format % args)


_BUSY_BODY = b'{"error": "the server is busy; please try again in a moment"}'
_BUSY = (
    b"HTTP/1.0 503 Service Unavailable\r\n"
    b"Content-Type: application/json\r\n"
    b"Content-Length: " + str(len(_BUSY_BODY)).encode("ascii") + b"\r\n"
    b"Retry-After: 1\r\n"
    b"Cache-Control: no-store\r\n"
    b"Connection: close\r\n\r\n" + _BUSY_BODY
)


class _ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    """One thread per connection, at most *max_connections* at once."""

    daemon_threads = True
    request_queue_size = 1024
    allow_reuse_address = True

    def __init__(
        self,
        address: tuple[str, int],
        handler: type[WSGIRequestHandler],
        *,
        read_timeout_s: float,
        max_connections: int,
    ) -> None:
        self.read_timeout_s = float(read_timeout_s)
        self._slots = threading.BoundedSemaphore(max_connections)
        self._lingering: list[tuple[float, socket.socket]] = []
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            self._refuse(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:  # the thread did not start: its slot is free
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def _refuse(self, request: socket.socket) -> None:
        """Answer 503 without a thread and without ever blocking the accept loop.

        The socket is closed a little later (:meth:`service_actions`): closing it
        while the request is still arriving would reset the connection before
        the client reads the answer.
        """
        try:
            request.setblocking(False)
            _discard_input(request)
            request.sendall(_BUSY)  # a new socket's send buffer takes it at once
            request.shutdown(socket.SHUT_WR)
        except OSError:
            self.close_request(request)
            return
        if len(self._lingering) >= _MAX_LINGERING:
            self.close_request(request)
            return
        self._lingering.append((time.monotonic() + _LINGER_S, request))

    def service_actions(self) -> None:
        """Close refused sockets once the client has closed or after a moment."""
        super().service_actions()
        now = time.monotonic()
        waiting = []
        for deadline, request in self._lingering:
            if _discard_input(request) or now >= deadline:
                self.close_request(request)
            else:
                waiting.append((deadline, request))
        self._lingering = waiting

    def server_close(self) -> None:
        super().server_close()
        for _, request in self._lingering:
            self.close_request(request)
        self._lingering = []


def _discard_input(request: socket.socket) -> bool:
    """Read what a non-blocking socket holds; True once the client has closed."""
    try:
        while request.recv(65536):
            pass
    except BlockingIOError:
        return False
    except OSError:
        return True
    return True


class ExperimentServer:
    """A running HTTP server for one study (see :func:`make_server`).

    Attributes
    ----------
    app : CollectionApp
        The application served.
    host : str
    port : int
        The port actually bound (useful with ``port=0``).
    url : str
        ``http://host:port/``.
    """

    def __init__(
        self,
        app: CollectionApp,
        host: str,
        port: int,
        *,
        read_timeout_s: float = DEFAULT_READ_TIMEOUT_S,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
    ) -> None:
        if not read_timeout_s > 0:
            raise CollectionError("must be positive", field="read_timeout_s")
        if max_connections < 1:
            raise CollectionError("must be 1 or more", field="max_connections")
        self.app = app
        self._httpd = _ThreadingWSGIServer(
            (host, port),
            _Handler,
            read_timeout_s=read_timeout_s,
            max_connections=max_connections,
        )
        self._httpd.set_app(app)
        self.host = host
        self.port = int(self._httpd.server_address[1])
        self.url = f"http://{host}:{self.port}/"
        self._thread: threading.Thread | None = None

    def serve_forever(self) -> None:
        """Serve until :meth:`shutdown` is called (from another thread)."""
        self._httpd.serve_forever(poll_interval=0.2)

    def start(self) -> ExperimentServer:
        """Serve in a daemon thread; return self."""
        self._thread = threading.Thread(
            target=self.serve_forever, name="stecflow-server", daemon=True
        )
        self._thread.start()
        return self

    def shutdown(self) -> None:
        """Stop serving (if :meth:`start` was used), then :meth:`close`."""
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=10)
            self._thread = None
        self.close()

    def close(self) -> None:
        """Close the listening socket and the database."""
        self._httpd.server_close()
        self.app.close()

    def __enter__(self) -> ExperimentServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()


def make_server(
    study_dir: str | Path,
    host: str = "127.0.0.1",
    port: int = 8000,
    *,
    db_path: str | Path | None = None,
    abandon_after_s: float = DEFAULT_ABANDON_AFTER_S,
    read_timeout_s: float = DEFAULT_READ_TIMEOUT_S,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    **options: Any,
) -> ExperimentServer:
    """Bind a server for a study without starting it.

    Parameters
    ----------
    study_dir, db_path, abandon_after_s
        As for :func:`make_app`; further keyword *options* (the session limit,
        ``require_participant``, ``behind_proxy``, ...) go there too.
    host : str, default "127.0.0.1"
        Address to bind; give ``0.0.0.0`` only behind a TLS reverse proxy.
    port : int, default 8000
        Port; 0 picks a free one (see :attr:`ExperimentServer.port`).
    read_timeout_s : float, default 30
        A connection that sends nothing for this long is closed (a stalled body
        gets 408).
    max_connections : int, default 256
        Connections served at once; the ones beyond get an immediate 503 with
        ``Retry-After: 1`` (the experiment page retries).

    Returns
    -------
    ExperimentServer
        Call ``.serve_forever()`` or ``.start()`` (thread), then ``.shutdown()``.
    """
    app = make_app(
        study_dir, db_path=db_path, abandon_after_s=abandon_after_s, **options
    )
    try:
        return ExperimentServer(
            app,
            host,
            port,
            read_timeout_s=read_timeout_s,
            max_connections=max_connections,
        )
    except (OSError, CollectionError):
        app.close()
        raise


def serve(
    study_dir: str | Path,
    host: str = "127.0.0.1",
    port: int = 8000,
    db_path: str | Path | None = None,
    abandon_after_s: float = DEFAULT_ABANDON_AFTER_S,
    *,
    synchronous: str = "FULL",
    read_timeout_s: float = DEFAULT_READ_TIMEOUT_S,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    sessions_per_address: int = DEFAULT_SESSIONS_PER_ADDRESS,
    session_window_s: float = DEFAULT_SESSION_WINDOW_S,
    require_participant: bool = False,
    behind_proxy: bool = False,
    ready: Callable[[ExperimentServer], None] | None = None,
) -> None:
    """Serve a study until interrupted (Ctrl-C); the CLI's ``stecflow serve``.

    Parameters
    ----------
    study_dir : path
        The study folder (``results/studies/<study>``) or its ``web`` folder.
    host, port
        Where to listen (default ``127.0.0.1:8000``).
    db_path : path, optional
        The database (default: ``responses.sqlite`` beside the web folder).
    abandon_after_s : float, default 1800
        Silence after which an unfinished session's list is given to others.
    synchronous : {"FULL", "NORMAL"}, default "FULL"
        SQLite durability (see :func:`make_app`); NORMAL is about twice as fast
        per write but may lose the last answers on a power cut.
    read_timeout_s, max_connections
        As for :func:`make_server`.
    sessions_per_address, session_window_s, require_participant, behind_proxy
        As for :func:`make_app`.
    ready : callable, optional
        Called with the server once it listens (e.g. to print its URL).
    """
    server = make_server(
        study_dir,
        host,
        port,
        db_path=db_path,
        abandon_after_s=abandon_after_s,
        synchronous=synchronous,
        read_timeout_s=read_timeout_s,
        max_connections=max_connections,
        sessions_per_address=sessions_per_address,
        session_window_s=session_window_s,
        require_participant=require_participant,
        behind_proxy=behind_proxy,
    )
    logger.info(
        "serving study %s at %s (responses in %s)",
        server.app.study.study,
        server.url,
        server.app.db_path,
    )
    if ready is not None:
        ready(server)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        logger.info("stopped")
    finally:
        server.close()


# --------------------------------------------------------------------------- export


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
    """Read every stored trial as a row of :data:`RESPONSE_COLUMNS`.

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
    path = Path(db_path) if db_path is not None else _default_db(study.web_dir)
    if not path.is_file():
        raise CollectionError(f"{path} does not exist; nothing collected yet")
    uri = f"file:{path.resolve()}?mode=ro"
    db = sqlite3.connect(uri, uri=True, timeout=30.0)
    try:
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
            *_RESPONSE_FIELDS,
        ]
        query = (
            "SELECT "
            + ", ".join(f'"{n}"' for n in names)
            + ' FROM trials ORDER BY list, session_id, "order"'
        )
        current = time.time() if now is None else now
        rows = []
        for values in db.execute(query):
            record = dict(zip(names, values, strict=True))
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
            for name in _BOOL_FIELDS:
                if row[name] is not None:
                    row[name] = bool(row[name])
            rows.append({c: row.get(c) for c in RESPONSE_COLUMNS})
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
        The TSV to write (columns :data:`RESPONSE_COLUMNS`, see the module
        docstring; rows sorted by list, session and order).
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

    rows = read_responses(study_dir, db_path=db_path, abandon_after_s=abandon_after_s)
    if not include_practice:
        rows = [r for r in rows if not r["practice"]]
    write_tsv(rows, RESPONSE_COLUMNS, out_path)
    logger.info("exported %d trial(s) to %s", len(rows), out_path)
    return len(rows)


# --------------------------------------------------------------------------- main


def _add_serve_options(parser: argparse.ArgumentParser) -> None:
    """Add the load and access options of :func:`serve` (read by _serve_options)."""
    parser.add_argument(
        "--read-timeout",
        type=float,
        default=DEFAULT_READ_TIMEOUT_S,
        metavar="SECONDS",
        help="close a connection that sends nothing for this long (default 30)",
    )
    parser.add_argument(
        "--max-connections",
        type=int,
        default=DEFAULT_MAX_CONNECTIONS,
        metavar="N",
        help="serve at most N connections at once; more are told to retry "
        "(default 256)",
    )
    parser.add_argument(
        "--sessions-per-address",
        type=int,
        default=DEFAULT_SESSIONS_PER_ADDRESS,
        metavar="N",
        help="let one network address start at most N sessions per "
        "--session-window (default 20; 0: no limit; raise it for a lab whose "
        "computers share an address)",
    )
    parser.add_argument(
        "--session-window",
        type=float,
        default=DEFAULT_SESSION_WINDOW_S,
        metavar="SECONDS",
        help="the window of --sessions-per-address (default 600)",
    )
    parser.add_argument(
        "--require-participant",
        action="store_true",
        help="start a session only with a participant ID in the page's address "
        "(?participant=, ?PROLIFIC_PID=, ?pid= or ?workerId=)",
    )
    parser.add_argument(
        "--behind-proxy",
        action="store_true",
        help="count addresses by the X-Forwarded-For header that a reverse proxy "
        "on this host adds (use only behind such a proxy)",
    )


def _serve_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of :func:`serve` from :func:`_add_serve_options`."""
    return {
        "read_timeout_s": args.read_timeout,
        "max_connections": args.max_connections,
        "sessions_per_address": args.sessions_per_address,
        "session_window_s": args.session_window,
        "require_participant": args.require_participant,
        "behind_proxy": args.behind_proxy,
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Command line:
    ``python -m stecflow.studies.server {serve,export} STUDY [options]``."""
    parser = argparse.ArgumentParser(prog="python -m stecflow.studies.server")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("serve", help="serve a study and collect responses")
    run.add_argument("study_dir")
    run.add_argument("--host", default="127.0.0.1")
    run.add_argument("--port", type=int, default=8000)
    run.add_argument("--db", default=None)
    run.add_argument("--abandon-after", type=float, default=DEFAULT_ABANDON_AFTER_S)
    run.add_argument("--synchronous", choices=("FULL", "NORMAL"), default="FULL")
    _add_serve_options(run)
    out = sub.add_parser("export", help="export the responses as TSV")
    out.add_argument("study_dir")
    out.add_argument("--out", required=True)
    out.add_argument("--db", default=None)
    out.add_argument("--abandon-after", type=float, default=DEFAULT_ABANDON_AFTER_S)
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, stream=sys.stderr, format="%(levelname)s %(message)s"
    )
    try:
        if args.command == "serve":
            serve(
                args.study_dir,
                args.host,
                args.port,
                db_path=args.db,
                abandon_after_s=args.abandon_after,
                synchronous=args.synchronous,
                **_serve_options(args),
            )
        else:
            export_responses(
                args.study_dir,
                args.out,
                db_path=args.db,
                abandon_after_s=args.abandon_after,
            )
    except StecflowError as error:
        logger.error("%s", error)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

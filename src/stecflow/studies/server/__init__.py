"""The collection server of a human study: serves the web experiment, stores answers.

A small WSGI application served by waitress through stecflow's HTTP layer
(:mod:`stecflow.serving`: an event loop holds the connections, worker threads
answer whole requests) and SQLite in WAL mode. It serves a study folder built by
:func:`stecflow.studies.stimuli.build_study` and stores every trial the moment it is
answered. Run it with :func:`serve` (blocking) or :func:`make_server` (tests,
embedding); export with :func:`export_responses`. From a shell::

    python -m stecflow.studies.server serve results/studies/rating-1 --port 8000
    python -m stecflow.studies.server export results/studies/rating-1 \
        --out responses.tsv
    python -m stecflow.studies.server return results/studies/rating-1 SESSION
    python -m stecflow.studies.server backup results/studies/rating-1 --out copy.sqlite
    python -m stecflow.studies.server progress results/studies/rating-1

Running it for paid participants (reverse proxy, service, backups, the
organiser's token, the log, Prolific): ``docs/deployment.md``.

Modules
-------
:mod:`~stecflow.studies.server.study`
    Loading and checking a built study folder (:func:`load_study`,
    :func:`check_study`) and :class:`CollectionError`.
:mod:`~stecflow.studies.server.store`
    The SQLite store: schema, response fields, connection pool.
:mod:`stecflow.serving` (below this package)
    The HTTP server and its limits, reading a request (strict JSON bodies, the
    client's address, per-address rate limits), static files.
:mod:`~stecflow.studies.server.app`
    The WSGI application (:class:`CollectionApp`, :func:`make_app`): routing,
    errors, the event log.
:mod:`~stecflow.studies.server.participants`
    The participant's endpoints under ``api/``: sessions, trials, answers,
    completion.
:mod:`~stecflow.studies.server.checks`
    The checks of a trial's fields and of a questionnaire screen's answers.
:mod:`~stecflow.studies.server.admin`
    The organiser's pages under ``admin/``.
:mod:`~stecflow.studies.server.responses`
    The headers and JSON bodies of the answers.
:mod:`~stecflow.studies.server.httpd`
    The application on the HTTP server (:class:`ExperimentServer`,
    :func:`make_server`, :func:`serve`).
:mod:`~stecflow.studies.server.export`
    Reading and exporting the responses (:func:`read_responses`,
    :func:`export_responses`).
:mod:`~stecflow.studies.server.cli`
    ``python -m stecflow.studies.server`` (:func:`main`).
:mod:`~stecflow.studies.server.defaults`
    The defaults of the settings, shared by all of the above.
:mod:`~stecflow.studies.server.progress`
    Session statuses, the session table and the progress numbers and page.
:mod:`~stecflow.studies.server.organiser`
    The organiser's token, returned places, online backups.
:mod:`~stecflow.studies.server.events`
    The per-session event log (JSON Lines, rotated).

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
  (``secrets.token_urlsafe(32)``, or derived from the page's attempt key, below;
  sent as ``Authorization: Bearer``; only its SHA-256 is stored) and can only
  write its own trials. Every request body is limited (``max_body_bytes``,
  16 KiB by default; 413), must be a JSON object in strict JSON (no ``NaN`` or
  ``Infinity``, no number beyond 20 digits or outside the range of a float;
  400), and is checked field by field against the trial it answers (400);
  unknown or missing tokens get 403. Only the experiment's own files are
  served. No request body, however malformed, gets a 500.
* **Bounded load.** Idle and slow clients wait on the event loop and hold no
  worker; the application sees a request only once its body has arrived. A
  connection that sends nothing for ``read_timeout_s`` seconds (30 by
  default) is closed, also when its headers or body stall; at most
  ``max_connections`` (256) are open at once, and the ones beyond get an
  immediate 503 (``Retry-After: 1``; the page retries). One client address
  may hold at most ``connections_per_address`` (64) of them (503 beyond), so
  that a client holding idle connections leaves the server to the others.
  Behind a reverse proxy (``behind_proxy``) every connection comes from the
  proxy, and the proxy's own per-address limits count (nginx ``limit_conn``
  and ``limit_req``: ``resources/deploy/nginx-stecflow.conf``).
* **Who may start.** Each client address may open ``sessions_per_address``
  sessions (20) per ``session_window_s`` seconds (600), 429 with
  ``Retry-After`` beyond that, on top of the study's cap (``max_sessions``,
  409: final, so the page tells a latecomer the study is full instead of
  waiting for the server). Behind a reverse proxy, set ``behind_proxy`` so
  that the address is the last one of ``X-Forwarded-For``, believed only on
  connections from the proxy (``trusted_proxy``, 127.0.0.1 by default; from
  anyone else the header is removed). IPv6 addresses count per /64. With
  ``require_participant``, a session needs a participant ID (400 without).
* **A lost answer is not a second attempt.** The page sends an attempt key
  (``attempt``: 22-64 letters, digits, ``-`` or ``_``; it keeps it in
  ``localStorage``) with ``POST api/session``, and the server stores its
  SHA-256. The same key from the same participant ID (or from no ID, when the
  request gives none) for a session neither completed nor returned gets that
  session again (200, its trials answered so far, the same token: derived from
  the key and the session ID, so it is never stored), without counting against
  ``sessions_per_address``; any other key gets 409 as before. So a browser
  whose first answer was lost (the session committed, the reply never arrived)
  retries into its own session instead of being locked out.
* **Returned places.** A place the crowdsourcing platform returned or timed out,
  marked by the organiser (``stecflow sessions return``, ``POST admin/return``),
  no longer holds its list and can send nothing more (409); it stays in the
  exports with status ``returned``.
* **Consent.** When the study document declares a consent screen
  (:func:`~stecflow.studies.server.study.declares_consent`), a session is opened
  only with ``consent: true`` (400 otherwise): the page asks before it opens
  one, so a participant who declines leaves no data.
* **The organiser.** With an admin token, ``admin/progress`` (HTML),
  ``admin/progress.json``, ``admin/export.tsv``, ``admin/sessions.tsv`` and
  ``POST admin/return`` answer a request with ``Authorization: Bearer <token>``
  or Basic authentication with the token as password (401 otherwise; 404
  without a token configured). Every session event goes to a JSON Lines log
  (:mod:`~stecflow.studies.server.events`).
* **Frozen stimuli.** The database records the SHA-256 of ``stimuli.json``; a server
  started on a database collected with other stimuli refuses to run.

API (all JSON, paths relative to the page)
------------------------------------------
``GET api/ping`` -> ``{"study", "sha256", "task", "variant"}``.
``POST api/session`` ``{"participant", "study_id", "external_session": str or
null, "consent": bool}`` (all optional; IDs 1-64 letters, digits, ``-``, ``_``)
-> 201 ``{"token", "session_id", "list", "answered": [], "completed": false}``;
400 without a participant if one is required or without consent if the study
has a consent screen, 429 if the address opened too many sessions.
``POST api/answers`` ``{"screen": id, "answers": {field: str, number, bool or
null}}`` (at most 100 fields, strings of at most 2000 characters; re-posting a
screen replaces its answers) -> 200 ``{"stored": n}``.
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
    and ``completed``, ``in_progress``, ``abandoned``, ``returned`` (the
    organiser marked the place returned on the platform) or ``offline``.
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

The server's export adds ``answered_utc`` after the study's columns (when the
server received the trial, ISO 8601 UTC, e.g. ``2026-11-26T21:40:30.500Z``), and
writes the session table beside it (``<stem>.sessions.tsv``,
:mod:`stecflow.judgments.sessions` describes its columns).

A situated identification study (``task: situated_identification``, seed 000
§5.1, :mod:`stecflow.studykinds.situated_identification.stimuli`) has the
columns of its document: the above
(``chosen_entity`` is a piece of the trial's board, empty with ``cant_tell``; no
time-out), then ``instance``, ``dialogue``, ``expression`` (what was shown; checked
against the design), ``time_ms`` (utterance onset to the click, >= 0; also in
``identification_time_ms`` and ``rt_ms``), ``plays`` (clip starts, >= 1),
``replays`` (``plays - 1``) and ``answer_via`` (``board``, ``button`` or
``dont_know``, the last exactly with ``cant_tell``). They are stored in the side
table ``situated_trials`` (database schema version 2; a version 1 database is
migrated by adding it, a newer one refused).

A text study (``task: text_rating`` or ``text_preference``,
:mod:`stecflow.studies.text`) has the columns of its document too: the above (only
the trial's fields and ``rt_ms``, display to "Next", are filled), then
``rating_<criterion>`` per criterion (an integer 1..points for a Likert scale,
0-100 for a slider), or ``system_left``, ``system_right`` (checked against the
design), ``preferred`` (``left``, ``right``, or ``tie`` when the criterion allows
it) and ``chosen_system`` (the preferred side's system, empty for a tie). They
are stored one field per row in the side table ``text_trials``, created in a
database that lacks it.
"""

from __future__ import annotations

from stecflow.studies.server.app import CollectionApp, make_app
from stecflow.studies.server.cli import main
from stecflow.studies.server.defaults import (
    DEFAULT_ABANDON_AFTER_S,
    DEFAULT_CONNECTIONS_PER_ADDRESS,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_READ_TIMEOUT_S,
    DEFAULT_SESSION_WINDOW_S,
    DEFAULT_SESSIONS_PER_ADDRESS,
    MAX_BODY_BYTES,
)
from stecflow.studies.server.export import export_responses, read_responses
from stecflow.studies.server.httpd import ExperimentServer, make_server, serve
from stecflow.studies.server.study import (
    WEB_FILES,
    CollectionError,
    Study,
    check_study,
    load_study,
    resolve_study,
)
from stecflow.studies.settings import RESPONSE_COLUMNS

__all__ = [
    "DEFAULT_ABANDON_AFTER_S",
    "DEFAULT_CONNECTIONS_PER_ADDRESS",
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
    "Study",
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

"""The collection server behind nginx under 500 participants: waitress against wsgiref.

In one run, for each server named in ``--servers`` in turn (a fresh database
each, the same study): nginx in front (``nginx -p <tmp>``, the shipped site
``resources/deploy/nginx-stecflow.conf`` on a plain HTTP loopback port, or with
``--site plain`` a bare proxy), the application behind it with
``--behind-proxy`` (waitress: ``python -m stecflow.studies.server serve``;
wsgiref: ``benchmarks/wsgiref_server.py``, the HTTP layer of c2444cf), and
``--participants`` simulated participants at once. Each participant opens a
session (with a participant ID and an attempt key, as the page does), posts
the first ``--trials-per-participant`` trials of its list one after another
(``POST /api/trial``, the payload the page sends) and completes the session.
It retries like the page: on a 5xx, 408, 429 or a connection error it waits the
answer's ``Retry-After`` (else 0.3 s, doubling up to 3 s) and sends the same
trial again; the server answers a trial it already stored 200, not 201.

Clients: ``--client-processes`` processes (default 4) with one thread per
participant each, ``http.client`` with one keep-alive connection per
participant, so that no single interpreter's lock limits the clients. Each
participant connects from an address of its own (127.1.x.y): the shipped
site's per-address ``limit_req``/``limit_conn`` and the server's sessions per
address then count one participant each, as on the Internet.

During the load on waitress the application is killed with SIGKILL ``--kills``
times (spread over the run by trials acknowledged) and started again at once
on the same port and database, as systemd's ``Restart=always`` would.

Afterwards the database is compared with what the clients were told:
acknowledged (200 or 201), stored, lost (acknowledged but not stored: must be
0), duplicated (stored twice: must be 0), stored but never acknowledged;
throughput, latency of ``/api/trial`` (from the first send of a trial to its
acknowledgement, retries included, and of each single request), retries by
cause. Exit status 1 if a trial was lost or duplicated. Run from the
repository::

    python benchmarks/server_stack.py --participants 500 \\
        --trials-per-participant 102 --servers waitress,wsgiref --kills 5 \\
        --json out.json
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import multiprocessing
import os
import platform
import random
import secrets
import shlex
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from server_load import build_study, free_port, percentile  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SHIPPED_SITE = REPO / "resources" / "deploy" / "nginx-stecflow.conf"
WSGIREF = Path(__file__).resolve().parent / "wsgiref_server.py"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
PRACTICE = 2  # practice trials at the start of every list (build_study)
DEMO_ITEMS = 112  # test items of the demo campaign usable in a 4-system square


# ------------------------------------------------------------------------ nginx


def shipped_site(port: int) -> str:
    """The shipped site on plain HTTP at 127.0.0.1:*port*, to the upstream.

    Changed lines only: the redirect server's ``listen`` (a free port), the TLS
    server's ``listen`` (plain HTTP: TLS would cost the clients' and nginx's
    CPU, not the server's), its TLS lines (certificates, protocols,
    ``http2 on``: dropped) and every
    ``proxy_pass`` (the upstream ``stecflow_app``). Limits, time-outs, sizes,
    buffering and error pages are the shipped ones.
    """
    out = []
    for line in SHIPPED_SITE.read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith("listen [::]"):
            continue
        if stripped == "listen 80;":
            line = f"    listen 127.0.0.1:{free_port()};"
        elif stripped.startswith("listen 443"):
            line = f"    listen 127.0.0.1:{port} backlog=4096;"
        elif stripped.startswith(("ssl_certificate", "ssl_protocols", "http2 ")):
            continue
        elif stripped.startswith("proxy_pass "):
            line = line.replace("http://127.0.0.1:8000", "http://stecflow_app")
        out.append(line)
    return "\n".join(out) + "\n"


def plain_site(port: int) -> str:
    """A bare reverse proxy: no per-address limits, the shipped proxy settings."""
    return f"""server {{
    listen 127.0.0.1:{port} backlog=4096;
    access_log off;
    keepalive_timeout 20s;
    client_max_body_size 16k;
    location / {{
        proxy_pass http://stecflow_app;
        proxy_http_version 1.1;
        proxy_set_header Host $host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_next_upstream off;
        proxy_read_timeout 60s;
    }}
}}
"""


class Nginx:
    """nginx in the foreground with its files in *root*."""

    def __init__(self, root: Path, app_port: int, site: str) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        text = shipped_site(self.port) if site == "shipped" else plain_site(self.port)
        (root / "site.conf").write_text(text)
        temp = {}
        for name in ("body", "proxy", "fcgi", "uwsgi", "scgi"):
            temp[name] = root / name
            temp[name].mkdir(exist_ok=True)
        user = "user root;\n" if os.geteuid() == 0 else ""
        self.error_log = root / "error.log"
        self.conf = root / "nginx.conf"
        self.conf.write_text(
            f"""{user}daemon off;
worker_processes auto;
pid {root / "nginx.pid"};
error_log {self.error_log} warn;
worker_rlimit_nofile 16384;
events {{ worker_connections 4096; }}
http {{
    default_type application/octet-stream;
    access_log off;
    client_body_temp_path {temp["body"]};
    proxy_temp_path {temp["proxy"]};
    fastcgi_temp_path {temp["fcgi"]};
    uwsgi_temp_path {temp["uwsgi"]};
    scgi_temp_path {temp["scgi"]};
    upstream stecflow_app {{ server 127.0.0.1:{app_port}; }}
    include {root / "site.conf"};
}}
"""
        )
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        command = [NGINX, "-p", str(self.root), "-e", str(self.error_log)]
        command += ["-c", str(self.conf)]
        check = subprocess.run(
            [*command, "-t"], capture_output=True, text=True, timeout=30
        )
        if check.returncode != 0:
            raise RuntimeError(check.stderr)
        with open(self.root / "nginx.out", "ab") as handle:
            self.process = subprocess.Popen(command, stdout=handle, stderr=handle)
        wait_for_port(self.port, self.process, self.error_log)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def wait_for_port(port: int, process: subprocess.Popen, log: Path) -> float:
    """Seconds until 127.0.0.1:*port* accepts connections."""
    began = time.monotonic()
    while time.monotonic() - began < 60:
        if process.poll() is not None:
            raise RuntimeError(log.read_text(errors="replace")[-3000:])
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return time.monotonic() - began
        time.sleep(0.01)
    raise RuntimeError(f"nothing listens on port {port}")


# -------------------------------------------------------------------------- app


class App:
    """The study's server as a subprocess, killed and restarted on demand."""

    def __init__(
        self, kind: str, study: Path, db: Path, log: Path, threads: int | None
    ) -> None:
        self.kind, self.study, self.db, self.log = kind, study, db, log
        self.port = free_port()
        self.threads = threads
        self.max_connections: int | None = None
        self.process: subprocess.Popen | None = None

    def command(self) -> list[str]:
        common = [str(self.study), "--port", str(self.port), "--db", str(self.db)]
        common.append("--behind-proxy")
        if self.max_connections is not None:
            common += ["--max-connections", str(self.max_connections)]
        if self.kind == "wsgiref":
            return [sys.executable, str(WSGIREF), *common]
        extra = [] if self.threads is None else ["--threads", str(self.threads)]
        return [
            sys.executable,
            "-m",
            "stecflow.studies.server",
            "serve",
            "--host",
            "127.0.0.1",
            *common,
            *extra,
        ]

    def start(self) -> float:
        with open(self.log, "ab") as handle:
            self.process = subprocess.Popen(
                self.command(), stdout=handle, stderr=handle, cwd=REPO
            )
        return wait_for_port(self.port, self.process, self.log)

    def kill9(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


# ---------------------------------------------------------------------- clients


def source_address(k: int) -> str:
    """Participant *k*'s own loopback address, 127.1.x.y."""
    return f"127.1.{k // 250}.{k % 250 + 1}"


class Shared:
    """Counters the client processes update and the parent reads for progress."""

    def __init__(self, context: Any) -> None:
        self.acknowledged = context.Value("q", 0)
        self.retries = context.Value("q", 0)
        self.rejected = context.Value("q", 0)
        self.finished = context.Value("q", 0)

    @staticmethod
    def add(value: Any, n: int = 1) -> None:
        with value.get_lock():
            value.value += n


class Participant:
    """One simulated participant on its own keep-alive connection."""

    RETRIED = {408, 429}

    def __init__(
        self, k: int, port: int, n_trials: int, deadline: float, shared: Shared
    ) -> None:
        self.k, self.port, self.n_trials = k, port, n_trials
        self.deadline, self.shared = deadline, shared
        self.address = source_address(k)
        self.random = random.Random(k)
        self.connection: http.client.HTTPConnection | None = None
        self.token: str | None = None
        self.session_id: str | None = None
        self.acked: list[int] = []  # orders acknowledged (200 or 201)
        self.stored_201 = 0
        self.duplicate_200 = 0
        self.rejected: list[tuple[int, int]] = []
        self.retries: Counter[str] = Counter()
        self.trial_latency: list[float] = []  # first send -> acknowledged
        self.request_latency: list[float] = []  # every single POST /api/trial
        self.unfinished = False
        self.completed = False

    def _send(self, method: str, path: str, body: bytes | None):
        if self.connection is None:
            self.connection = http.client.HTTPConnection(
                "127.0.0.1", self.port, timeout=120, source_address=(self.address, 0)
            )
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        try:
            self.connection.request(method, path, body=body, headers=headers)
            response = self.connection.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException):
            self.connection.close()
            self.connection = None
            raise
        if response.will_close:
            self.connection.close()
            self.connection = None
        return response.status, response.getheader("Retry-After"), raw

    def persistent(self, method: str, path: str, payload: Any, timed: bool = False):
        """Send until the server answers below 500 (not 408/429), as the page."""
        body = json.dumps(payload).encode()
        delay = 0.3
        first = time.perf_counter()
        while True:
            if time.monotonic() > self.deadline:
                return None, None
            began = time.perf_counter()
            try:
                status, retry_after, raw = self._send(method, path, body)
            except (OSError, http.client.HTTPException) as error:
                status, retry_after, raw = None, None, b""
                cause = f"connection error ({type(error).__name__})"
            if timed:
                self.request_latency.append(time.perf_counter() - began)
            if status is not None and status < 500 and status not in self.RETRIED:
                if timed:
                    self.trial_latency.append(time.perf_counter() - first)
                try:
                    data = json.loads(raw) if raw else None
                except ValueError:
                    data = None
                return status, data
            if status is not None:
                cause = str(status)
            self.retries[cause] += 1
            Shared.add(self.shared.retries)
            try:
                wait = float(retry_after) if retry_after else delay
            except ValueError:
                wait = delay
            time.sleep(wait)
            delay = min(delay * 2, 3.0)

    def run(self) -> None:
        try:
            self._run()
        finally:
            if self.connection is not None:
                self.connection.close()
            Shared.add(self.shared.finished)

    def _run(self) -> None:
        status, data = self.persistent(
            "POST",
            "/api/session",
            {"participant": f"bench{self.k:05d}", "attempt": secrets.token_hex(16)},
        )
        if status not in (200, 201):
            self.unfinished = True
            self.rejected.append((-1, status or 0))
            return
        self.token, self.session_id = data["token"], data["session_id"]
        trials = data["stimuli"]["trials"][: self.n_trials]
        for trial in trials:
            payload = {
                "order": trial["order"],
                "trial": trial["id"],
                "adequacy": self.random.randint(1, 100),
                "fluency": self.random.randint(1, 100),
                "rt_ms": round(self.random.uniform(800, 9000), 1),
            }
            status, _ = self.persistent("POST", "/api/trial", payload, timed=True)
            if status is None:
                self.unfinished = True
                return
            if status in (200, 201):
                self.acked.append(trial["order"])
                if status == 201:
                    self.stored_201 += 1
                else:
                    self.duplicate_200 += 1
                Shared.add(self.shared.acknowledged)
            else:
                self.rejected.append((trial["order"], status))
                Shared.add(self.shared.rejected)
        status, _ = self.persistent("POST", "/api/complete", {})
        self.completed = status == 200

    def result(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "acked": self.acked,
            "stored_201": self.stored_201,
            "duplicate_200": self.duplicate_200,
            "rejected": self.rejected,
            "retries": dict(self.retries),
            "trial_latency": self.trial_latency,
            "request_latency": self.request_latency,
            "unfinished": self.unfinished,
            "completed": self.completed,
        }


def client_process(
    ks: list[int],
    port: int,
    n_trials: int,
    time_limit: float,
    shared: Shared,
    ready: Any,
    go: Any,
    out: str,
) -> None:
    """Run participants *ks* in threads once *go* is set; write results to *out*."""
    threading.stack_size(256 * 1024)
    ready.set()
    go.wait()
    deadline = time.monotonic() + time_limit
    people = [Participant(k, port, n_trials, deadline, shared) for k in ks]
    threads = [threading.Thread(target=p.run, daemon=True) for p in people]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    Path(out).write_text(json.dumps([p.result() for p in people]))


# ------------------------------------------------------------------------- run


def run_server(
    kind: str,
    study: Path,
    root: Path,
    args: argparse.Namespace,
    kills: int,
) -> dict[str, Any]:
    folder = root / kind
    folder.mkdir()
    db = folder / "responses.sqlite"
    app = App(kind, study, db, folder / "app.log", args.threads)
    app.max_connections = args.max_connections
    app.start()
    nginx = Nginx(folder / "nginx", app.port, args.site)
    nginx.start()
    context = multiprocessing.get_context("fork")
    shared = Shared(context)
    go = context.Event()
    n = args.participants
    groups = [
        list(range(i, n, args.client_processes)) for i in range(args.client_processes)
    ]
    processes, readies, outs = [], [], []
    for i, ks in enumerate(groups):
        ready = context.Event()
        out = str(folder / f"clients-{i}.json")
        process = context.Process(
            target=client_process,
            args=(
                ks,
                nginx.port,
                args.trials_per_participant,
                args.time_limit,
                shared,
                ready,
                go,
                out,
            ),
        )
        process.start()
        processes.append(process)
        readies.append(ready)
        outs.append(out)
    for ready in readies:
        ready.wait(60)
    expected = n * args.trials_per_participant
    targets = [expected * (i + 1) / (kills + 1) for i in range(kills)]
    kill_log: list[dict[str, Any]] = []
    print(
        f"[{kind}] {n} participants x {args.trials_per_participant} trials "
        f"through nginx :{nginx.port} -> app :{app.port}",
        flush=True,
    )
    began = time.monotonic()
    go.set()
    last_print = began
    while shared.finished.value < n:
        time.sleep(0.05)
        now = time.monotonic()
        acked = shared.acknowledged.value
        if targets and acked >= targets[0]:
            targets.pop(0)
            at = now - began
            app.kill9()
            killed = time.monotonic()
            up = app.start()
            kill_log.append(
                {
                    "at_s": round(at, 2),
                    "acknowledged_before": acked,
                    "restart_s": round(time.monotonic() - killed, 3),
                    "start_to_listen_s": round(up, 3),
                }
            )
            print(
                f"[{kind}] {at:6.1f} s: kill -9 at {acked:,} acknowledged; "
                f"listening again after {time.monotonic() - killed:.2f} s",
                flush=True,
            )
        if now - last_print >= args.progress_every:
            last_print = now
            print(
                f"[{kind}] {now - began:6.1f} s: {acked:,}/{expected:,} "
                f"acknowledged ({acked / (now - began):.0f}/s), "
                f"retries {shared.retries.value:,}, rejected "
                f"{shared.rejected.value}, participants done "
                f"{shared.finished.value}/{n}",
                flush=True,
            )
        if now - began > args.time_limit + 300:
            print(f"[{kind}] clients did not finish; stopping", flush=True)
            break
    wall = time.monotonic() - began
    for process in processes:
        process.join(60)
        if process.is_alive():
            process.kill()
    nginx.stop()
    app.stop()
    people: list[dict[str, Any]] = []
    for out in outs:
        if Path(out).exists():
            people += json.loads(Path(out).read_text())
    return summarise(kind, db, people, wall, kill_log, nginx, app)


def summarise(
    kind: str,
    db: Path,
    people: list[dict[str, Any]],
    wall: float,
    kill_log: list[dict[str, Any]],
    nginx: Nginx,
    app: App,
) -> dict[str, Any]:
    acked = {(p["session_id"], o) for p in people for o in p["acked"]}
    acked_count = sum(len(p["acked"]) for p in people)
    connection = sqlite3.connect(db)
    rows = connection.execute('SELECT session_id, "order" FROM trials').fetchall()
    (sessions,) = connection.execute("SELECT COUNT(*) FROM sessions").fetchone()
    (completed,) = connection.execute(
        "SELECT COUNT(*) FROM sessions WHERE completed_s IS NOT NULL"
    ).fetchone()
    (integrity,) = connection.execute("PRAGMA integrity_check").fetchone()
    connection.close()
    stored = Counter(rows)
    retries: Counter[str] = Counter()
    for p in people:
        retries.update(p["retries"])
    trial_latency = [v for p in people for v in p["trial_latency"]]
    request_latency = [v for p in people for v in p["request_latency"]]

    def ms(values: list[float], q: float | None) -> float:
        if not values:
            return float("nan")
        return 1000 * (max(values) if q is None else percentile(values, q))

    error_lines = 0
    if nginx.error_log.exists():
        error_lines = sum(
            1
            for line in nginx.error_log.read_text(errors="replace").splitlines()
            if "[error]" in line or "[crit]" in line or "[alert]" in line
        )
    return {
        "server": kind,
        "participants": len(people),
        "sessions": sessions,
        "sessions_completed": completed,
        "unfinished_participants": sum(p["unfinished"] for p in people),
        "wall_s": wall,
        "trials_acknowledged": acked_count,
        "trials_acknowledged_distinct": len(acked),
        "acknowledged_201": sum(p["stored_201"] for p in people),
        "acknowledged_200_duplicate": sum(p["duplicate_200"] for p in people),
        "trials_stored": len(stored),
        "trial_rows": sum(stored.values()),
        "lost": len(acked - set(stored)),
        "duplicated": sum(1 for c in stored.values() if c > 1),
        "stored_not_acknowledged": len(set(stored) - acked),
        "rejected": sum(len(p["rejected"]) for p in people),
        "rejected_statuses": dict(
            Counter(str(s) for p in people for _, s in p["rejected"])
        ),
        "retries": sum(retries.values()),
        "retries_by_cause": dict(retries),
        "trials_per_s": acked_count / wall if wall else float("nan"),
        "trial_p50_ms": ms(trial_latency, 50),
        "trial_p99_ms": ms(trial_latency, 99),
        "trial_max_ms": ms(trial_latency, None),
        "request_p50_ms": ms(request_latency, 50),
        "request_p99_ms": ms(request_latency, 99),
        "request_max_ms": ms(request_latency, None),
        "trial_requests": len(request_latency),
        "kills": kill_log,
        "nginx_error_lines": error_lines,
        "sqlite_integrity": integrity,
    }


ROWS = [
    (
        "participants (sessions opened / completed)",
        lambda r: f"{r['participants']} ({r['sessions']} / {r['sessions_completed']})",
    ),
    (
        "trials acknowledged (201 stored + 200 duplicate)",
        lambda r: (
            f"{r['trials_acknowledged']:,} ({r['acknowledged_201']:,} + "
            f"{r['acknowledged_200_duplicate']:,})"
        ),
    ),
    ("trials stored", lambda r: f"{r['trials_stored']:,}"),
    ("**lost** (acknowledged, not stored)", lambda r: f"**{r['lost']}**"),
    ("**duplicated** (stored twice)", lambda r: f"**{r['duplicated']}**"),
    ("stored, never acknowledged", lambda r: f"{r['stored_not_acknowledged']}"),
    ("rejected (4xx)", lambda r: f"{r['rejected']}"),
    ("participants unfinished", lambda r: f"{r['unfinished_participants']}"),
    ("wall time", lambda r: f"{r['wall_s']:.1f} s"),
    ("throughput", lambda r: f"{r['trials_per_s']:.0f} trials/s"),
    (
        "`/api/trial` p50 / p99 / max (acknowledged, retries incl.)",
        lambda r: (
            f"{r['trial_p50_ms']:.0f} / {r['trial_p99_ms']:.0f} / "
            f"{r['trial_max_ms']:.0f} ms"
        ),
    ),
    (
        "one request p50 / p99 / max",
        lambda r: (
            f"{r['request_p50_ms']:.0f} / {r['request_p99_ms']:.0f} / "
            f"{r['request_max_ms']:.0f} ms"
        ),
    ),
    (
        "retries (by cause)",
        lambda r: (
            f"{r['retries']:,}"
            + (
                " ("
                + ", ".join(
                    f"{k}: {v:,}" for k, v in sorted(r["retries_by_cause"].items())
                )
                + ")"
                if r["retries_by_cause"]
                else ""
            )
        ),
    ),
    ("kill -9 of the app", lambda r: f"{len(r['kills'])}"),
    ("nginx error-log lines", lambda r: f"{r['nginx_error_lines']:,}"),
    ("SQLite integrity_check", lambda r: r["sqlite_integrity"]),
]


def table(results: list[dict[str, Any]]) -> str:
    head = "| measure | " + " | ".join(r["server"] for r in results) + " |"
    lines = [head, "|---" * (len(results) + 1) + "|"]
    for label, cell in ROWS:
        lines.append(f"| {label} | " + " | ".join(cell(r) for r in results) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--participants", type=int, default=500)
    parser.add_argument(
        "--trials-per-participant",
        type=int,
        default=102,
        help="trials posted per participant; a list has 4 x ceil((N - 2) / 4) + 2 "
        "(default 102: whole lists, so that sessions complete)",
    )
    parser.add_argument("--servers", default="waitress,wsgiref")
    parser.add_argument("--kills", type=int, default=5, help="kill -9 of waitress")
    parser.add_argument("--client-processes", type=int, default=4)
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="waitress worker threads (default: serve's)",
    )
    parser.add_argument(
        "--max-connections",
        type=int,
        default=None,
        help="both servers' --max-connections (default: their own, 256)",
    )
    parser.add_argument("--site", choices=("shipped", "plain"), default="shipped")
    parser.add_argument(
        "--time-limit",
        type=float,
        default=900.0,
        help="seconds per server after which clients stop",
    )
    parser.add_argument("--progress-every", type=float, default=10.0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    servers = [s.strip() for s in args.servers.split(",") if s.strip()]
    if not servers or set(servers) - {"waitress", "wsgiref"}:
        parser.error("--servers: waitress and/or wsgiref")
    if not 1 <= args.participants <= 2000:
        parser.error("--participants must be between 1 and 2000")
    items = 4 * math.ceil(max(1, args.trials_per_participant - PRACTICE) / 4)
    if items > DEMO_ITEMS:
        parser.error(f"--trials-per-participant at most {DEMO_ITEMS + PRACTICE}")
    command = "python " + " ".join(
        shlex.quote(a) for a in ["benchmarks/server_stack.py", *(argv or sys.argv[1:])]
    )
    results = []
    with tempfile.TemporaryDirectory(prefix="stecflow-stack-") as tmp:
        root = Path(tmp)
        study = build_study(root, items, 4)
        for kind in servers:
            kills = args.kills if kind == "waitress" else 0
            results.append(run_server(kind, study, root, args, kills))
            r = results[-1]
            print(
                f"[{kind}] done: {r['trials_acknowledged']:,} acknowledged, "
                f"{r['trials_stored']:,} stored, lost {r['lost']}, duplicated "
                f"{r['duplicated']}, {r['trials_per_s']:.0f} trials/s",
                flush=True,
            )
    load = os.getloadavg()
    header = [
        f"command: {command}",
        f"machine: {platform.machine()}, {os.cpu_count()} CPU(s), Python "
        f"{platform.python_version()}, nginx {nginx_version()}, load average "
        f"after {load[0]:.2f}",
        f"clients: {args.client_processes} processes x "
        f"{math.ceil(args.participants / args.client_processes)} threads "
        f"(http.client, a keep-alive connection and a 127.1.x.y address per "
        f"participant); nginx site: {args.site}",
    ]
    sys.stdout.write("\n".join(header) + "\n\n" + table(results) + "\n")
    for r in results:
        for kill in r["kills"]:
            sys.stdout.write(
                f"{r['server']}: kill -9 at {kill['at_s']} s "
                f"({kill['acknowledged_before']:,} acknowledged), listening again "
                f"after {kill['restart_s']} s\n"
            )
    if args.json is not None:
        args.json.write_text(
            json.dumps(
                {"command": command, "header": header, "results": results}, indent=2
            )
            + "\n"
        )
    ok = all(r["lost"] == 0 and r["duplicated"] == 0 for r in results)
    return 0 if ok else 1


def nginx_version() -> str:
    done = subprocess.run([NGINX, "-v"], capture_output=True, text=True)
    return done.stderr.strip().rsplit("/", 1)[-1]


if __name__ == "__main__":
    raise SystemExit(main())

"""Load benchmark of the collection server: many simulated participants at once.

Builds a rating study from the demo campaign in a temporary folder, starts
``python -m stecflow.studies.server serve`` on 127.0.0.1 in a subprocess (so the
clients do
not share its interpreter), and runs N simulated participants concurrently, one
thread each. A participant creates a session, asks for its state, answers every
trial of its list (one POST per trial, as the page does), and completes the
session. Everything stays on the loopback interface, and the run is bounded: at
most ``--participants`` sessions and no new request after ``--time-limit``
seconds.

Reported: requests, throughput (requests/s and trials/s), latency percentiles
(p50/p95/p99/max) per request kind, errors, and whether the trials stored in the
database equal the trials the server acknowledged (201). Run from the repository::

    python benchmarks/server_load.py --participants 200
    python benchmarks/server_load.py --participants 200 --think-ms 50 --json out.json
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import random
import shlex
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "resources" / "demo"
SUBMISSIONS = {
    "full-brevity": "organisers/full-brevity",
    "greedy": "organisers/greedy",
    "incremental": "organisers/incremental",
    "HUMAN-1": "human/HUMAN-1",
}


def build_study(root: Path, n_items: int, subjects: int) -> Path:
    """A rating study: 4 systems x *n_items* demo items, 2 practice trials."""
    from stecflow.data.corpus import read_items
    from stecflow.studies.designs import latin_square_design
    from stecflow.studies.stimuli import build_study as build
    from stecflow.submissions.outputs import read_outputs

    test = read_items(DEMO / "test.xml")[:n_items]
    dev = read_items(DEMO / "dev.xml")[:10]
    outputs = {}
    for system, folder in SUBMISSIONS.items():
        path = REPO / "submissions" / folder / "outputs.xml"
        rows, _ = read_outputs(path.read_bytes(), str(path), test, ["end_to_end"])
        outputs[system] = {o.item_id: o.word_string for o in rows if o.word_string}
    design = latin_square_design(
        sorted(SUBMISSIONS),
        [i.id for i in test],
        subjects=subjects,
        seed=2009,
        practice_pool=[i.id for i in dev],
        n_practice=2,
        study="load",
    )
    study = root / "load"
    build(
        design,
        list(test) + list(dev),
        outputs,
        task="rating",
        images_dir=DEMO / "images",
        out_dir=study / "web",
    )
    return study


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(
    study: Path, db: Path, port: int, log: Path, synchronous: str
) -> subprocess.Popen:
    handle = open(log, "wb")  # noqa: SIM115 - the child keeps it open
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "stecflow.studies.server",
            "serve",
            str(study),
            "--port",
            str(port),
            "--db",
            str(db),
            "--synchronous",
            synchronous,
        ],
        stdout=handle,
        stderr=handle,
    )
    handle.close()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(log.read_text())
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return process
        time.sleep(0.05)
    process.kill()
    raise RuntimeError("the server did not start")


class Recorder:
    """Latencies and outcomes of every request, thread-safe."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latency: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.acknowledged = 0
        self.duplicates = 0
        self.completed = 0

    def add(self, kind: str, seconds: float, ok: bool) -> None:
        with self.lock:
            self.latency[kind].append(seconds)
            if not ok:
                self.errors[kind] += 1


class Participant(threading.Thread):
    """One simulated participant."""

    def __init__(
        self,
        port: int,
        doc: dict[str, Any],
        recorder: Recorder,
        deadline: float,
        think_s: float,
        seed: int,
        start: threading.Event,
    ) -> None:
        super().__init__(daemon=True)
        self.port, self.doc, self.recorder = port, doc, recorder
        self.deadline, self.think_s = deadline, think_s
        self.random = random.Random(seed)
        self.start_event = start
        self.token: str | None = None

    def call(self, kind: str, method: str, path: str, body: Any = None):
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        data = None if body is None else json.dumps(body).encode()
        began = time.perf_counter()
        status, payload = 0, None
        for _attempt in range(3):
            try:
                connection = http.client.HTTPConnection(
                    "127.0.0.1", self.port, timeout=30
                )
                connection.request(method, path, body=data, headers=headers)
                response = connection.getresponse()
                status, raw = response.status, response.read()
                connection.close()
                payload = json.loads(raw) if raw else None
                break
            except OSError:
                time.sleep(0.05)
        self.recorder.add(kind, time.perf_counter() - began, 200 <= status < 300)
        return status, payload

    def run(self) -> None:
        self.start_event.wait()
        if time.monotonic() > self.deadline:
            return
        status, data = self.call(
            "create", "POST", "/api/session", {"participant": None}
        )
        if status != 201:
            return
        self.token = data["token"]
        self.call("state", "GET", "/api/session")
        # the page gets its own list, blinded, with its session (opaque trial IDs)
        trials = data["stimuli"]["trials"]
        for trial in trials:
            if time.monotonic() > self.deadline:
                return
            if self.think_s:
                time.sleep(self.random.uniform(0, 2 * self.think_s))
            payload = {
                "order": trial["order"],
                "trial": trial["id"],
                "adequacy": self.random.randint(1, 100),
                "fluency": self.random.randint(1, 100),
                "rt_ms": round(self.random.uniform(800, 9000), 1),
            }
            status, _ = self.call("trial", "POST", "/api/trial", payload)
            with self.recorder.lock:
                if status == 201:
                    self.recorder.acknowledged += 1
                elif status == 200:
                    self.recorder.duplicates += 1
        status, _ = self.call("complete", "POST", "/api/complete", {})
        if status == 200:
            with self.recorder.lock:
                self.recorder.completed += 1


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(0, min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1))))
    return ordered[rank]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--participants", type=int, default=200)
    parser.add_argument("--items", type=int, default=32, help="demo test items")
    parser.add_argument("--lists", type=int, default=8, help="subject slots")
    parser.add_argument("--think-ms", type=float, default=0.0, help="mean pause")
    parser.add_argument("--time-limit", type=float, default=180.0, help="seconds")
    parser.add_argument("--json", type=Path, default=None, help="write results")
    parser.add_argument("--synchronous", choices=("FULL", "NORMAL"), default="FULL")
    args = parser.parse_args(argv)
    if not 1 <= args.participants <= 2000:
        parser.error("--participants must be between 1 and 2000")
    command = "python " + " ".join(
        shlex.quote(a) for a in [str(Path(sys.argv[0])), *(argv or sys.argv[1:])]
    )
    with tempfile.TemporaryDirectory(prefix="stecflow-load-") as tmp:
        root = Path(tmp)
        study = build_study(root, args.items, args.lists)
        key = json.loads((study / "stimuli-key.json").read_text())
        doc = {"lists": list(key["participant_lists"].values())}
        db = root / "responses.sqlite"
        port = free_port()
        server = start_server(study, db, port, root / "server.log", args.synchronous)
        recorder = Recorder()
        go = threading.Event()
        deadline = time.monotonic() + args.time_limit
        threads = [
            Participant(port, doc, recorder, deadline, args.think_ms / 1000, k, go)
            for k in range(args.participants)
        ]
        try:
            for thread in threads:
                thread.start()
            began = time.perf_counter()
            go.set()
            for thread in threads:
                thread.join(timeout=max(0.0, deadline - time.monotonic()) + 30)
            wall = time.perf_counter() - began
        finally:
            server.terminate()
            server.wait(timeout=30)
        connection = sqlite3.connect(db)
        stored = connection.execute("SELECT COUNT(*) FROM trials").fetchone()[0]
        sessions = connection.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
        per_list = connection.execute(
            "SELECT COUNT(*) FROM sessions GROUP BY list"
        ).fetchall()
        connection.close()
    requests = sum(len(v) for v in recorder.latency.values())
    kinds = {}
    for kind in ("create", "state", "trial", "complete"):
        values = recorder.latency.get(kind, [])
        kinds[kind] = {
            "n": len(values),
            "errors": recorder.errors.get(kind, 0),
            "p50_ms": percentile(values, 50) * 1000,
            "p95_ms": percentile(values, 95) * 1000,
            "p99_ms": percentile(values, 99) * 1000,
            "max_ms": max(values) * 1000 if values else float("nan"),
            "mean_ms": statistics.fmean(values) * 1000 if values else float("nan"),
        }
    every = [v for values in recorder.latency.values() for v in values]
    result = {
        "command": command,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "participants": args.participants,
        "lists": len(doc["lists"]),
        "trials_per_participant": len(doc["lists"][0]["trials"]),
        "think_ms": args.think_ms,
        "synchronous": args.synchronous,
        "wall_s": wall,
        "requests": requests,
        "requests_per_s": requests / wall,
        "trials_acknowledged": recorder.acknowledged,
        "trials_stored": stored,
        "duplicates": recorder.duplicates,
        "sessions": sessions,
        "sessions_completed": recorder.completed,
        "sessions_per_list": sorted({n for (n,) in per_list}),
        "trials_per_s": recorder.acknowledged / wall,
        "p50_ms": percentile(every, 50) * 1000,
        "p95_ms": percentile(every, 95) * 1000,
        "p99_ms": percentile(every, 99) * 1000,
        "by_kind": kinds,
        "stored_equals_acknowledged": stored == recorder.acknowledged,
    }
    lines = [
        f"command: {command}",
        f"machine: {os.cpu_count()} CPU(s), Python {platform.python_version()}, "
        f"server and clients on 127.0.0.1, SQLite WAL synchronous={args.synchronous}",
        f"participants: {args.participants} concurrent ({sessions} sessions, "
        f"{recorder.completed} completed; sessions per list "
        f"{result['sessions_per_list']}), {result['trials_per_participant']} trials "
        f"each, think time {args.think_ms:g} ms",
        f"wall time: {wall:.2f} s; requests: {requests} "
        f"({result['requests_per_s']:.0f}/s); trials: {recorder.acknowledged} "
        f"acknowledged ({result['trials_per_s']:.0f}/s), {stored} stored, "
        f"{recorder.duplicates} duplicates",
        f"latency all requests: p50 {result['p50_ms']:.1f} ms, p95 "
        f"{result['p95_ms']:.1f} ms, p99 {result['p99_ms']:.1f} ms",
    ]
    for kind, row in kinds.items():
        lines.append(
            f"  {kind:<8} n={row['n']:<6} errors={row['errors']:<3} "
            f"p50={row['p50_ms']:.1f} p95={row['p95_ms']:.1f} "
            f"p99={row['p99_ms']:.1f} max={row['max_ms']:.1f} ms"
        )
    verdict = "OK" if result["stored_equals_acknowledged"] else "MISMATCH"
    lines.append(f"stored trials == acknowledged trials: {verdict}")
    sys.stdout.write("\n".join(lines) + "\n")
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    return 0 if result["stored_equals_acknowledged"] else 1


if __name__ == "__main__":
    raise SystemExit(main())

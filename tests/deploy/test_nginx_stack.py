"""The shipped nginx file, run by the real nginx, in front of a real stecflow serve.

Every test starts nginx (``nginx -p <tmp> -c <tmp>/nginx.conf``, a minimal main
file written here that includes the shipped site) on loopback, in front of
``python -m stecflow.studies.server serve --behind-proxy`` on another port. The
site file is ``resources/deploy/nginx-stecflow.conf`` with its ports, host name
and certificate paths substituted and nothing else (asserted line by line); the
certificate is a throwaway self-signed one made with openssl.

Through nginx: a participant's whole session in chromium; the forwarded address
(the server counts the address nginx saw, a forged ``X-Forwarded-For`` moves
nothing); nginx's own answers (502, 503, 413) in JSON the page understands;
1,000 idle and 200 slow-body connections from one address while 20 participants
from other addresses complete their sessions, each request within 2 s; and the
server killed mid-session in chromium and started again, with every answer
stored exactly once.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import selectors
import shutil
import socket
import ssl
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from stecflow.studies.server import read_responses
from tests.browser.driver import Participant, load_document
from tests.browser.studykit import FAST, build_demo_study

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "resources" / "deploy" / "nginx-stecflow.conf"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
OPENSSL = shutil.which("openssl")

if not Path(NGINX).is_file() or OPENSSL is None:
    pytest.skip(
        "the nginx deployment tests need Debian's nginx and openssl: "
        "apt-get install --no-install-recommends nginx openssl",
        allow_module_level=True,
    )

pytestmark = pytest.mark.deploy

# --------------------------------------------------------------- the site file

#: The lines a test may change, and nothing else: listen ports, the host name,
#: the certificate paths, the study server's port.
_SUBSTITUTABLE = re.compile(
    r"^\s*(listen |server_name |ssl_certificate |ssl_certificate_key |proxy_pass )"
)


def substituted_site(
    text: str, *, http_port: int, https_port: int, app_port: int, cert: Path, key: Path
) -> str:
    """The shipped site file on loopback ports, with the test's certificate."""
    out = text
    for shipped, local in (
        ("listen 80;", f"listen 127.0.0.1:{http_port};"),
        ("listen [::]:80;", f"listen [::1]:{http_port};"),
        ("listen 443 ssl http2;", f"listen 127.0.0.1:{https_port} ssl http2;"),
        ("listen [::]:443 ssl http2;", f"listen [::1]:{https_port} ssl http2;"),
        ("server_name study.example.org;", "server_name localhost;"),
        (
            "ssl_certificate /etc/letsencrypt/live/study.example.org/fullchain.pem;",
            f"ssl_certificate {cert};",
        ),
        (
            "ssl_certificate_key /etc/letsencrypt/live/study.example.org/privkey.pem;",
            f"ssl_certificate_key {key};",
        ),
        (
            "proxy_pass http://127.0.0.1:8000;",
            f"proxy_pass http://127.0.0.1:{app_port};",
        ),
    ):
        assert shipped in out, f"the shipped nginx file no longer has {shipped!r}"
        out = out.replace(shipped, local)
    return out


def changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    """The (shipped, substituted) lines that differ; the line count must not."""
    old, new = before.splitlines(), after.splitlines()
    assert len(old) == len(new), "the substitution added or removed lines"
    return [(a, b) for a, b in zip(old, new, strict=True) if a != b]


def free_port() -> int:
    """A TCP port free on both 127.0.0.1 and ::1."""
    for _ in range(50):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        try:
            with socket.socket(socket.AF_INET6) as sock6:
                sock6.bind(("::1", port))
        except OSError:
            continue
        return port
    raise RuntimeError("no port free on both 127.0.0.1 and ::1")


def _wait_for_port(port: int, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(log.read_text(errors="replace"))
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}: {log.read_text(errors='replace')}")


# --------------------------------------------------------------------- the stack


class App:
    """``python -m stecflow.studies.server serve`` (killed and started again at will)."""

    def __init__(self, study: Path, db: Path, port: int, log: Path, options: list[str]):
        self.study, self.db, self.port, self.log = study, db, port, log
        self.options = options
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> App:
        with open(self.log, "ab") as handle:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "stecflow.studies.server",
                    "serve",
                    str(self.study),
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                    "--db",
                    str(self.db),
                    "--behind-proxy",
                    *self.options,
                ],
                stdout=handle,
                stderr=handle,
            )
        _wait_for_port(self.port, self.process, self.log)
        return self

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None


class Stack:
    """nginx with the shipped site in front of an :class:`App`."""

    def __init__(self, root: Path, study: Path, options: list[str]) -> None:
        self.root = root / "nginx"
        self.root.mkdir()
        self.https_port, self.http_port, app_port = (free_port() for _ in range(3))
        self.url = f"https://127.0.0.1:{self.https_port}/"
        self.app = App(
            study, root / "responses.sqlite", app_port, root / "app.log", options
        )
        self.cert, self.key = self.root / "cert.pem", self.root / "key.pem"
        subprocess.run(
            [
                str(OPENSSL),
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-subj",
                "/CN=localhost",
                "-addext",
                "subjectAltName=DNS:localhost,IP:127.0.0.1",
                "-days",
                "1",
                "-keyout",
                str(self.key),
                "-out",
                str(self.cert),
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
        shipped = SHIPPED.read_text()
        self.site_text = substituted_site(
            shipped,
            http_port=self.http_port,
            https_port=self.https_port,
            app_port=app_port,
            cert=self.cert,
            key=self.key,
        )
        for before, after in changed_lines(shipped, self.site_text):
            assert _SUBSTITUTABLE.match(before) and _SUBSTITUTABLE.match(after), (
                before,
                after,
            )
        site = self.root / "stecflow-site.conf"
        site.write_text(self.site_text)
        temp = {
            name: self.root / name
            for name in ("body", "proxy", "fcgi", "uwsgi", "scgi")
        }
        for path in temp.values():
            path.mkdir()
        self.error_log = self.root / "error.log"
        # the worker runs as root when the test does: the temp folders are in a
        # folder only root may enter
        user = "user root;\n" if os.geteuid() == 0 else ""
        self.conf = self.root / "nginx.conf"
        self.conf.write_text(
            f"""{user}daemon off;
worker_processes 1;
pid {self.root / "nginx.pid"};
error_log {self.error_log} warn;
worker_rlimit_nofile 8192;
events {{ worker_connections 4096; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    client_body_temp_path {temp["body"]};
    proxy_temp_path {temp["proxy"]};
    fastcgi_temp_path {temp["fcgi"]};
    uwsgi_temp_path {temp["uwsgi"]};
    scgi_temp_path {temp["scgi"]};
    include {site};
}}
"""
        )
        self.nginx: subprocess.Popen[bytes] | None = None
        self.context: ssl.SSLContext | None = None

    def start(self) -> Stack:
        check = subprocess.run(
            [
                NGINX,
                "-t",
                "-p",
                str(self.root),
                "-e",
                str(self.error_log),
                "-c",
                str(self.conf),
            ],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert check.returncode == 0, check.stderr
        self.app.start()
        with open(self.root / "nginx.out", "ab") as handle:
            self.nginx = subprocess.Popen(
                [
                    NGINX,
                    "-p",
                    str(self.root),
                    "-e",
                    str(self.error_log),
                    "-c",
                    str(self.conf),
                ],
                stdout=handle,
                stderr=handle,
            )
        _wait_for_port(self.https_port, self.nginx, self.error_log)
        return self

    def stop(self) -> None:
        if self.nginx is not None and self.nginx.poll() is None:
            self.nginx.terminate()
            try:
                self.nginx.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.nginx.kill()
                self.nginx.wait(timeout=10)
        self.nginx = None
        self.app.kill()


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Any]:
    """A factory of stacks (study, server options), all stopped at the end."""
    made: list[Stack] = []

    def make(study: Path, options: list[str] | None = None) -> Stack:
        made.append(Stack(tmp_path, study, list(options or [])))
        return made[-1].start()

    yield make
    for each in made:
        each.stop()


# ------------------------------------------------------------------- clients


def tls_context(stack: Stack) -> ssl.SSLContext:
    """A client context that trusts the stack's throwaway certificate only."""
    if stack.context is None:
        stack.context = ssl.create_default_context(cafile=str(stack.cert))
    return stack.context


def call(
    stack: Stack,
    method: str,
    path: str,
    body: Any = None,
    *,
    token: str | None = None,
    source: str = "127.0.0.1",
    headers: dict[str, str] | None = None,
    raw: bytes | None = None,
) -> tuple[int, Any, dict[str, str]]:
    """One HTTPS request through nginx from *source*; (status, JSON, headers)."""
    connection = http.client.HTTPSConnection(
        "localhost",
        stack.https_port,
        timeout=10,
        source_address=(source, 0),
        context=tls_context(stack),
    )
    sent = dict(headers or {})
    data = raw
    if body is not None:
        data = json.dumps(body).encode()
        sent.setdefault("Content-Type", "application/json")
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    try:
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        payload = response.read()
        status, got = response.status, {k.lower(): v for k, v in response.getheaders()}
    finally:
        connection.close()
    try:
        decoded = json.loads(payload)
    except ValueError:
        decoded = payload
    return status, decoded, got


def _rows_by_order(study: Path, db: Path) -> dict[int, dict[str, Any]]:
    rows = read_responses(study, db_path=db)
    orders = [r["order"] for r in rows]
    assert len(orders) == len(set(orders)), "a trial was stored twice"
    return {r["order"]: r for r in rows}


def _list_orders(doc: dict[str, Any], list_id: str) -> list[int]:
    return [
        t["order"]
        for t in next(x for x in doc["lists"] if x["list"] == list_id)["trials"]
    ]


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A chromium page that accepts the throwaway certificate; errors recorded."""
    context = browser.new_context(
        ignore_https_errors=True, viewport={"width": 1100, "height": 1000}
    )
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(f"pageerror: {error}"))
    page.on(
        "console",
        lambda message: (
            page.errors.append(message.text) if message.type == "error" else None
        ),
    )
    page.set_default_timeout(20_000)
    yield page
    context.close()


# --------------------------------------------------------------------- tests


def test_only_ports_names_and_certificates_are_substituted(tmp_path):
    shipped = SHIPPED.read_text()
    site = substituted_site(
        shipped,
        http_port=1080,
        https_port=1443,
        app_port=18000,
        cert=tmp_path / "c",
        key=tmp_path / "k",
    )
    changed = changed_lines(shipped, site)
    assert changed and all(
        _SUBSTITUTABLE.match(a) and _SUBSTITUTABLE.match(b) for a, b in changed
    ), changed
    # every limit of the shipped file is there, untouched
    for directive in (
        "limit_conn_zone",
        "limit_req_zone",
        "limit_conn stecflow_conn",
        "limit_req zone=stecflow_api",
        "limit_conn_status 503;",
        "limit_req_status 503;",
        "proxy_request_buffering on;",
        "proxy_buffering on;",
        "proxy_next_upstream off;",
        "client_header_timeout",
        "client_body_timeout",
        "send_timeout",
        "keepalive_timeout",
        "client_header_buffer_size",
        "large_client_header_buffers",
        "client_max_body_size 16k;",
        "client_max_body_size 1m;",
    ):
        assert shipped.count(directive) == site.count(directive) > 0, directive


def test_a_whole_session_in_chromium_through_nginx(tmp_path, stack, page):
    study = build_demo_study(tmp_path, task="rating", settings=FAST)
    doc = load_document(study)
    running = stack(study)
    page.goto(running.url + "?participant=P-NGINX")
    person = Participant(page, doc)
    assert person.run() == "done"
    assert len(page.text_content("#completion-code").strip()) == 8
    rows = _rows_by_order(study, running.app.db)
    assert sorted(rows) == _list_orders(doc, person.list_id)
    for order, row in rows.items():
        assert row["participant"] == "P-NGINX" and row["session_status"] == "completed"
        assert row["adequacy"] == person.answers[order]["adequacy"]
    assert page.errors == []


def test_the_server_counts_the_address_nginx_saw(tmp_path, stack):
    study = build_demo_study(tmp_path, task="rating", settings=FAST)
    running = stack(study, ["--sessions-per-address", "1"])
    new = {"participant": None}
    assert call(running, "POST", "/api/session", new, source="127.0.0.2")[0] == 201
    status, data, _ = call(running, "POST", "/api/session", new, source="127.0.0.2")
    assert status == 429, data
    # the client's own X-Forwarded-For is kept in front; the server takes the
    # last address, the one nginx appended
    forged = {"X-Forwarded-For": "198.51.100.9"}
    status, data, _ = call(
        running, "POST", "/api/session", new, source="127.0.0.2", headers=forged
    )
    assert status == 429, data
    assert call(running, "POST", "/api/session", new, source="127.0.0.3")[0] == 201
    # nor does claiming someone else's address count against them
    claim = {"X-Forwarded-For": "127.0.0.3"}
    assert (
        call(running, "POST", "/api/session", new, source="127.0.0.4", headers=claim)[0]
        == 201
    )


def test_nginx_answers_in_json_the_page_understands(tmp_path, stack):
    study = build_demo_study(tmp_path, task="rating", settings=FAST)
    running = stack(study)
    # plain HTTP is sent to HTTPS
    connection = http.client.HTTPConnection("127.0.0.1", running.http_port, timeout=10)
    try:
        connection.request("GET", "/?participant=x")
        response = connection.getresponse()
        response.read()
        assert response.status == 301
        assert response.getheader("Location") == "https://127.0.0.1/?participant=x"
    finally:
        connection.close()
    # a body above the server's limit is refused by nginx before it is read
    status, data, headers = call(
        running, "POST", "/api/trial", raw=b"{" + b" " * 20_000 + b"}"
    )
    assert status == 413 and "error" in data, data
    assert headers["content-type"] == "application/json"
    # a flood from one address (300 requests on one kept-alive connection, as
    # fast as they go): the first 100 pass (the burst, which a page resending
    # its waiting answers never exceeds), the rest get 503s the page retries
    statuses = []
    connection = http.client.HTTPSConnection(
        "localhost",
        running.https_port,
        timeout=10,
        source_address=("127.0.0.9", 0),
        context=tls_context(running),
    )
    try:
        for _ in range(300):
            connection.request("GET", "/api/ping")
            response = connection.getresponse()
            body = response.read()
            got = {k.lower(): v for k, v in response.getheaders()}
            statuses.append((response.status, got, body))
    finally:
        connection.close()
    assert [s for s, _, _ in statuses[:100]] == [200] * 100
    refused = [(s, h) for s, h, b in statuses if s != 200 and "error" in json.loads(b)]
    assert len(refused) > 100 and {s for s, _ in refused} == {503}, statuses[-1]
    assert len(refused) == sum(s != 200 for s, _, _ in statuses)
    assert all(
        h["retry-after"] == "1" and h["content-type"] == "application/json"
        for _, h in refused
    )
    assert call(running, "GET", "/api/ping", source="127.0.0.10")[0] == 200
    # the study's server down: 502, JSON, retry
    running.app.kill()
    status, data, headers = call(running, "GET", "/api/ping")
    assert status == 502 and "not answering" in data["error"], data
    assert (
        headers["retry-after"] == "1" and headers["content-type"] == "application/json"
    )


def _ready(socks: list[Any], events: int, timeout: float) -> list[Any]:
    """The sockets of *socks* ready for *events* (poll: more than 1024 fds)."""
    with selectors.DefaultSelector() as selector:
        for sock in socks:
            selector.register(sock, events)
        return [key.fileobj for key, _ in selector.select(timeout)]


def _open(sock: socket.socket) -> bool:
    """Whether the other end has not closed *sock* (Linux: its TCP state)."""
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)
    return info[0] == 1  # TCP_ESTABLISHED (CLOSE_WAIT once the peer closed)


def _tls(stack: Stack, context: ssl.SSLContext) -> ssl.SSLSocket:
    sock = socket.create_connection(
        ("127.0.0.1", stack.https_port), timeout=10, source_address=("127.0.0.1", 0)
    )
    return context.wrap_socket(sock, server_hostname="localhost")


def run_sessions(
    stack: Stack, doc: dict[str, Any], sources: list[str]
) -> tuple[list[float], list[tuple[str, int]], float]:
    """One whole session through the API from each of *sources* at once, as the
    page makes it: (latency of every request, the failed ones, seconds)."""
    latencies: list[float] = []
    failures: list[tuple[str, int]] = []
    lock = threading.Lock()

    def participant(source: str) -> None:
        def timed(kind: str, *args: Any, **kwargs: Any) -> Any:
            began = time.perf_counter()
            try:
                status, data, _ = call(stack, *args, source=source, **kwargs)
            except OSError as error:
                status, data = 0, str(error)
            with lock:
                latencies.append(time.perf_counter() - began)
                if not 200 <= status < 300:
                    failures.append((kind, status))
            return data

        created = timed("create", "POST", "/api/session", {"participant": None})
        if not isinstance(created, dict) or "token" not in created:
            return
        token = created["token"]
        timed("state", "GET", "/api/session", token=token)
        trials = next(x for x in doc["lists"] if x["list"] == created["list"])["trials"]
        for trial in trials:
            payload = {
                "order": trial["order"],
                "trial": trial["id"],
                "adequacy": 50,
                "fluency": 60,
                "rt_ms": 1500.0,
            }
            timed("trial", "POST", "/api/trial", payload, token=token)
            time.sleep(0.05)
        timed("complete", "POST", "/api/complete", {}, token=token)

    began = time.perf_counter()
    threads = [threading.Thread(target=participant, args=(a,)) for a in sources]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    return latencies, failures, time.perf_counter() - began


def test_idle_and_slow_clients_of_one_address_leave_nginx_to_the_others(
    tmp_path, stack, record_property
):
    study = build_demo_study(tmp_path, task="rating", settings=FAST)
    doc = load_document(study)
    running = stack(study)
    context = tls_context(running)
    per_session = 3 + len(doc["lists"][0]["trials"])
    sources = [f"127.0.0.{n}" for n in range(2, 22)]
    # the same sessions first with no one else about: the machine's own pace
    calm, calm_failures, calm_s = run_sessions(running, doc, sources)
    assert calm_failures == [] and len(calm) == 20 * per_session
    held: list[socket.socket] = []
    slow: list[ssl.SSLSocket] = []
    setup = time.perf_counter()
    stop = threading.Event()
    closed = [0]
    guard = threading.Lock()

    def drip() -> None:
        while not stop.wait(1.0):
            with guard:
                for sock in list(slow):
                    try:
                        sock.send(b" ")
                    except OSError:
                        slow.remove(sock)
                        closed[0] += 1
                        sock.close()

    def slow_body() -> ssl.SSLSocket:
        sock = _tls(running, context)
        sock.sendall(
            b"POST /api/trial HTTP/1.1\r\nHost: localhost\r\n"
            b"Content-Type: application/json\r\nContent-Length: 10000\r\n\r\n{"
        )
        return sock

    def partial_line() -> ssl.SSLSocket:
        sock = _tls(running, context)
        sock.sendall(b"GET /api/session HTTP/1.1\r\nHost: local")
        return sock

    dripper = threading.Thread(target=drip, daemon=True)
    try:
        with ThreadPoolExecutor(16) as pool:
            # 200 bodies of 10,000 bytes announced, then a byte a second
            made = list(pool.map(lambda _: slow_body(), range(200)))
            with guard:
                slow.extend(made)
            dripper.start()
            # 500 connections that stop in the request line (TLS done)
            held.extend(pool.map(lambda _: partial_line(), range(500)))
        # 500 connections that send nothing (not even the TLS greeting)
        for _ in range(500):
            held.append(
                socket.create_connection(
                    ("127.0.0.1", running.https_port),
                    timeout=10,
                    source_address=("127.0.0.1", 0),
                )
            )
        setup = time.perf_counter() - setup
        idle_before = sum(map(_open, held))
        latencies, failures, elapsed = run_sessions(running, doc, sources)
        # idle connections nginx still held when the last session completed
        # (client_header_timeout closes them 10 s after they connected)
        idle_after = sum(map(_open, held))
        stop.set()
        dripper.join(timeout=5)
        # what nginx told the slow senders: 503 beyond the per-address limits
        readable = _ready(slow, selectors.EVENT_READ, 0.5)
        answers = []
        for sock in readable:
            sock.settimeout(0.5)
            try:
                answers.append(sock.recv(64))
            except (OSError, ssl.SSLError):
                answers.append(b"")
        refused_slow = sum(a.startswith(b"HTTP/1.1 503") for a in answers)
    finally:
        stop.set()
        if dripper.is_alive():
            dripper.join(timeout=5)
        with guard:
            for sock in held + slow:
                sock.close()
    figures = {
        "requests": len(latencies),
        "max_s": round(max(latencies), 3),
        "median_s": round(statistics.median(latencies), 4),
        "sessions_s": round(elapsed, 2),
        "calm_max_s": round(max(calm), 3),
        "calm_median_s": round(statistics.median(calm), 4),
        "calm_sessions_s": round(calm_s, 2),
        "slow_refused_503": refused_slow,
        "slow_closed": closed[0],
        "setup_s": round(setup, 2),
        "idle_open_at_start": idle_before,
        "idle_open_when_done": idle_after,
    }
    for name, value in figures.items():
        record_property(name, value)
    print("nginx slowloris figures:", figures)
    assert failures == [], failures
    assert figures["idle_open_at_start"] == 1000, figures
    assert figures["requests"] == 20 * per_session
    assert max(latencies) < 2.0, figures
    # limit_req (burst 100) and limit_conn (32) refused all but 32 slow bodies
    assert refused_slow >= 200 - 32 - closed[0], figures
    completed = read_responses(study, db_path=running.app.db)
    assert {r["session_status"] for r in completed} == {"completed"}
    assert len(completed) == 2 * 20 * (per_session - 3)


def test_the_server_restarted_behind_nginx_loses_no_answer(tmp_path, stack, page):
    study = build_demo_study(tmp_path, task="rating", settings=FAST)
    doc = load_document(study)
    running = stack(study)
    statuses: list[int] = []
    page.on(
        "response",
        lambda r: statuses.append(r.status) if r.url.endswith("/api/trial") else None,
    )
    page.goto(running.url + "?participant=P-RESTART")
    person = Participant(page, doc)
    assert person.run(stop=lambda s, o: s == "rating" and o == "5") == "rating"
    deadline = time.monotonic() + 10
    while (
        len(read_responses(study, db_path=running.app.db)) < 4
        and time.monotonic() < deadline
    ):
        time.sleep(0.05)
    assert len(read_responses(study, db_path=running.app.db)) == 4
    running.app.kill()
    # trials 5 and 6 are answered while the server is down: nginx answers 502
    assert person.run(stop=lambda s, o: s == "rating" and o == "7") == "rating"
    page.wait_for_function(
        "() => document.getElementById('status').textContent.includes('Saving')"
    )
    assert 502 in statuses and len(read_responses(study, db_path=running.app.db)) == 4
    running.app.start()
    # no reload: the page's queue resends trials 5 and 6 by itself
    assert person.run() == "done"
    rows = _rows_by_order(study, running.app.db)
    assert sorted(rows) == _list_orders(doc, person.list_id), "a trial was lost"
    assert all(r["session_status"] == "completed" for r in rows.values())
    for order, row in rows.items():
        assert row["adequacy"] == person.answers[order]["adequacy"]
    # the 502s nginx answered, as the page logs failed loads; nothing else
    assert [e for e in page.errors if "502" not in e] == [], page.errors

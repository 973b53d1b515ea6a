"""benchmarks/run_all.py: one command runs the benchmarks and appends their tables."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import REPO

RUN_ALL = REPO / "benchmarks" / "run_all.py"


def test_every_benchmark_script_is_listed_with_its_command():
    out = subprocess.run(
        [sys.executable, str(RUN_ALL), "--list"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    listed = set(re.findall(r"^(\w+): python benchmarks/(\w+)\.py", out, re.M))
    assert all(name == script for name, script in listed)
    scripts = {
        p.stem for p in (REPO / "benchmarks").glob("*.py") if p.stem != "run_all"
    }
    # every script but scale.py (which growth.py runs at each size) and
    # wsgiref_server.py (the former server, which server_stack.py runs) is run
    assert {name for name, _ in listed} == scripts - {"scale", "wsgiref_server"}


def test_a_run_prints_the_machine_the_commit_and_the_tables():
    run = subprocess.run(
        [sys.executable, str(RUN_ALL), "--only", "limits", "--no-record"],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    out = run.stdout
    assert re.search(r"^Machine: .+, \d+ cores", out, re.M)
    assert re.search(r"^Commit: [0-9a-f]{7,}\+?$", out, re.M)
    assert re.search(
        r"^\*\*limits\*\*: `python benchmarks/limits\.py`, \d+ s, exit status 0$",
        out,
        re.M,
    )
    assert "| at every limit | validate |" in out  # limits.py's own table

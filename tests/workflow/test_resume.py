"""After a kill -9, one command finishes the run (issue #38, point 7).

``stecflow resume --cores 2`` does what the README's two commands did
(``snakemake --unlock``, then ``snakemake --cores 2 --rerun-incomplete``), once it
has made sure that no Snakemake run or job still works in the folder: the lock of
a live run is never removed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from tests.conftest import TINY
from tests.workflow.helpers import SNAKEFILE, snakemake, snakemake_command
from tests.workflow.test_interrupted_run import LAST, jobs_in_log, run_and_kill

pytestmark = [
    pytest.mark.workflow,
    pytest.mark.skipif(
        not os.path.exists("/proc/self/cmdline"), reason="needs Linux's /proc"
    ),
]


def resume(campaign, *options):
    return subprocess.run(
        [sys.executable, "-m", "stecflow.cli", "resume", "--directory", str(campaign)]
        + list(options),
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_one_command_finishes_a_killed_run(tmp_path):
    import shutil

    for attempt in range(3):
        campaign = tmp_path / f"run-{attempt}"
        shutil.copytree(TINY, campaign)
        log = tmp_path / f"killed-{attempt}.log"
        if run_and_kill(campaign, log):
            break
    else:
        pytest.fail("3 runs ended before they could be killed midway")
    started, finished = jobs_in_log(log.read_text())
    done = {o for jobid in finished for o in started[jobid]}
    # the plain command stops (at the incomplete files, or at the stale lock)
    refused = subprocess.run(
        snakemake_command(campaign, "--cores", "2"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    said = refused.stdout + refused.stderr
    assert refused.returncode != 0
    assert "--rerun-incomplete" in said or "--unlock" in said

    result = resume(campaign, "--snakefile", str(SNAKEFILE), "--cores", "2")
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-3000:]
    assert "stecflow resume: removing the stale lock" in out
    assert (campaign / LAST).exists()
    rerun = {o for outputs in jobs_in_log(out)[0].values() for o in outputs}
    assert rerun and not rerun & done  # nothing finished ran again
    # and the run is complete: nothing left to do
    again = snakemake(campaign, "--dry-run")
    assert "Nothing to be done" in again.stdout + again.stderr


def test_a_live_run_is_never_unlocked(tmp_path):
    campaign = tmp_path / "c"
    (campaign / ".snakemake" / "locks").mkdir(parents=True)
    lock = campaign / ".snakemake" / "locks" / "0.input.lock"
    lock.write_text("x")
    # a process that looks like a Snakemake run working in the folder
    live = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)", "snakemake"],
        cwd=campaign,
    )
    try:
        deadline = time.monotonic() + 10
        while not os.path.exists(f"/proc/{live.pid}/cmdline"):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        result = resume(campaign, "--cores", "1")
    finally:
        live.kill()
        live.wait()
    assert result.returncode == 2
    assert f"a Snakemake run is still working in {campaign} (process {live.pid}" in (
        result.stderr
    )
    assert lock.exists()  # untouched

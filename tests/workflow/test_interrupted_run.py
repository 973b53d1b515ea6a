"""A run killed with SIGKILL resumes with the README's commands to the same bytes.

The README's section "If a run was interrupted" tells organisers to run
``snakemake --unlock`` and then ``snakemake --cores 2 --rerun-incomplete``. This
test kills the whole process group of a run of the tiny campaign in the middle
(some jobs finished, others running), resumes it with exactly those commands and
compares every file under ``results/`` with an uninterrupted run.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import TINY
from tests.workflow.helpers import snakemake, snakemake_command, untimed

pytestmark = [
    pytest.mark.workflow,
    pytest.mark.skipif(not hasattr(os, "killpg"), reason="needs POSIX process groups"),
]

#: The README's commands after an interruption, in order.
RESUME = (["--unlock"], ["--cores", "2", "--rerun-incomplete"])
#: An output written in the middle of the run: the scores are collected and the
#: statistics (eight analyses, the longest stretch of the run) are about to start.
MIDWAY = Path("results") / "scores" / "items.tsv"
#: The last output of the run; if it exists when the run is killed, it was too late.
LAST = Path("results") / "release" / "tiny-1.zip"
#: Result folders that hold times (benchmarks) and so differ between runs.
TIMED = {"benchmarks"}
ATTEMPTS = 3


def jobs_in_log(text: str) -> tuple[dict[str, list[str]], set[str]]:
    """Outputs of every job Snakemake's log says it started, and the finished jobids."""
    outputs = {}
    for block in re.split(r"^(?:local)?rule \S+:$", text, flags=re.M)[1:]:
        jobid = re.search(r"^\s+jobid: (\d+)$", block, re.M)
        if jobid:
            output = re.search(r"^\s+output: (.*)$", block, re.M)
            outputs[jobid.group(1)] = output.group(1).split(", ") if output else []
    return outputs, set(re.findall(r"^Finished jobid: (\d+)", text, re.M))


def group_alive(pgid: int) -> bool:
    """Whether a process of group *pgid* still runs (zombies do not count)."""
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        return True
    for stat in proc.glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended while we looked
            continue
        if fields[0] != "Z" and int(fields[2]) == pgid:
            return True
    return False


def run_and_kill(campaign: Path, log: Path) -> bool:
    """Start a run, SIGKILL its process group midway; False if the moment was missed.

    Midway means: ``MIDWAY`` exists, so several jobs have finished, and the log
    shows a job that started and has not finished. Missed means the run ended, or
    the last output was already written, before the kill.
    """
    with log.open("w") as sink:
        process = subprocess.Popen(
            snakemake_command(campaign, "--cores", "2"),
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, jobs included
        )
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and process.poll() is None:
            if (campaign / MIDWAY).exists():
                started, finished = jobs_in_log(log.read_text())
                if finished and set(started) - finished:
                    break
            time.sleep(0.02)
        else:
            return False  # finished (or hung) before the moment came
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
    deadline = time.monotonic() + 30
    while group_alive(process.pid):  # orphaned jobs must not race the resume
        assert time.monotonic() < deadline, "jobs of the killed run still running"
        time.sleep(0.05)
    return not (campaign / LAST).exists()


def result_files(campaign: Path) -> dict[str, bytes]:
    """Every file under results/ but the timed ones, by relative path."""
    results = campaign / "results"
    return {
        str(path.relative_to(results)): untimed(
            path.relative_to(results).as_posix(), path.read_bytes()
        )
        for path in sorted(results.rglob("*"))
        if path.is_file() and not TIMED & set(path.relative_to(results).parts)
    }


def test_killed_run_resumes_to_the_same_bytes(tmp_path):
    reference = tmp_path / "uninterrupted"
    shutil.copytree(TINY, reference)
    snakemake(reference)

    for attempt in range(1, ATTEMPTS + 1):
        campaign = tmp_path / f"interrupted-{attempt}"
        shutil.copytree(TINY, campaign)
        log = tmp_path / f"killed-{attempt}.log"
        if run_and_kill(campaign, log):
            break
    else:
        pytest.fail(f"{ATTEMPTS} runs ended before they could be killed midway")
    started, finished = jobs_in_log(log.read_text())
    done = {o for jobid in finished for o in started[jobid]}
    killed = {o for jobid in set(started) - finished for o in started[jobid]}
    assert done and killed, (done, killed)

    # the killed run left its lock: running again refuses, even with the flag
    refused = subprocess.run(
        snakemake_command(campaign, *RESUME[1]),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert refused.returncode != 0
    assert "--unlock" in refused.stdout + refused.stderr

    # the README's commands finish the run
    resumed = ""
    for args in RESUME:
        step = subprocess.run(
            snakemake_command(campaign, *args),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert step.returncode == 0, f"{args}:\n{step.stdout}\n{step.stderr}"
        resumed = step.stdout + step.stderr
    rerun = {o for outputs in jobs_in_log(resumed)[0].values() for o in outputs}
    # nothing finished ran again
    assert rerun and not rerun & done, rerun & done

    expected, got = result_files(reference), result_files(campaign)
    assert sorted(got) == sorted(expected)
    assert [name for name in expected if got[name] != expected[name]] == []

"""A job's log: its records, its traceback, and its CPU time and peak memory."""

from __future__ import annotations

import json
import logging
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from stecflow.core.logs import BENCHMARK_COLUMNS, job_log


def _proc_mb(field: str) -> float:
    text = Path("/proc/self/status").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB", text, re.M).group(1)) / 1024


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_finished_job_logs_its_cpu_time_and_peak_memory_as_proc_has_them(tmp_path):
    log = tmp_path / "job.log"
    with job_log(log):
        logging.getLogger("stecflow.scoring").info("scored 4 items")
        block = bytearray(64 * 2**20)  # 64 MB touched: the peak must show it
        block[::4096] = b"x" * len(block[::4096])
        high_water = _proc_mb("VmHWM")
    del block
    lines = log.read_text().splitlines()
    assert lines[0] == "INFO stecflow.scoring: scored 4 items"
    found = re.fullmatch(
        r"INFO stecflow\.job: finished: CPU (\d+\.\d\d) s, peak memory (\d+) MB",
        lines[-1],
    )
    assert found, lines[-1]
    assert float(found.group(1)) > 0
    assert abs(int(found.group(2)) - high_water) <= 1  # the kernel's high-water mark
    assert high_water >= 64


#: A job with two threads that hash at once (hashlib lets go of the GIL), each
#: until it has had 0.3 s of CPU; it prints its peak memory and its CPU time just
#: before and just after the job's end, when the benchmark is written.
TWO_THREAD_JOB = """
import hashlib, json, resource, sys, threading, time
from pathlib import Path
from stecflow.core.logs import job_log


def busy(seconds):
    data = bytes(2**20)
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        hashlib.sha256(data).digest()


def cpu():
    who = (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    return sum(u.ru_utime + u.ru_stime for u in map(resource.getrusage, who))


with job_log(sys.argv[1]):
    block = bytearray(80 * 2**20)
    block[::4096] = b"x" * len(block[::4096])
    helper = threading.Thread(target=busy, args=(0.3,))
    helper.start()
    busy(0.3)
    helper.join()
    status = Path("/proc/self/status").read_text()
    high_water = int(status.split("VmHWM:")[1].split()[0]) / 1024
    before = cpu()
print(json.dumps({"high_water": high_water, "before": before, "after": cpu()}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_finished_job_writes_its_benchmark_beside_the_logs(tmp_path):
    """<results>/logs/<rule>/<job>.log -> <results>/benchmarks/<rule>/<job>.tsv, in
    the columns of Snakemake's benchmark files, the figures from /proc. The job
    has two threads, so its CPU time may exceed its wall time (on two free
    cores it does); neither bounds the other."""
    log = tmp_path / "results" / "logs" / "check_submission" / "logs" / "s1.log"
    started = time.clock_gettime(time.CLOCK_BOOTTIME)  # the clock of /proc/uptime
    done = subprocess.run(
        [sys.executable, "-c", TWO_THREAD_JOB, str(log)],
        check=True,
        capture_output=True,
        text=True,
    )
    lifetime = time.clock_gettime(time.CLOCK_BOOTTIME) - started
    job = json.loads(done.stdout)
    bench = tmp_path / "results" / "benchmarks" / "check_submission" / "logs"
    header, row = (bench / "s1.tsv").read_text().splitlines()
    figures = dict(zip(header.split("\t"), row.split("\t"), strict=True))
    assert tuple(figures) == BENCHMARK_COLUMNS
    assert figures["max_uss"] == figures["max_pss"] == "-"  # only sampling has them
    assert abs(float(figures["max_rss"]) - job["high_water"]) < 1
    assert float(figures["max_vms"]) >= float(figures["max_rss"]) >= 80
    # figures have two decimals (+-0.005); /proc counts a life in 10 ms ticks
    cpu, wall = float(figures["cpu_time"]), float(figures["s"])
    assert job["before"] >= 0.6  # 0.3 s of each thread
    assert job["before"] - 0.005 <= cpu <= job["after"] + 0.005
    # a thread's 0.3 s of CPU took at least 0.3 s; the job lived while this
    # process waited for it
    assert 0.3 - 0.015 <= wall <= lifetime + 0.015
    low, high = (
        100 * (cpu - 0.005) / (wall + 0.005),
        100 * (cpu + 0.005) / (wall - 0.005),
    )
    assert low - 0.005 <= float(figures["mean_load"]) <= high + 0.005
    hours, minutes, seconds = map(int, figures["h:m:s"].split(":"))
    assert abs(3600 * hours + 60 * minutes + seconds - wall) <= 0.5 + 0.005


def test_a_failed_job_logs_its_traceback_and_no_figures(tmp_path):
    log = tmp_path / "logs" / "rule" / "job.log"
    with pytest.raises(ValueError, match="bad row"), job_log(log):
        raise ValueError("bad row")
    text = log.read_text()
    assert "ValueError: bad row" in text and "finished:" not in text
    assert not (tmp_path / "benchmarks").exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_job_started_from_a_large_process_reports_its_own_peak(tmp_path):
    """Linux keeps ru_maxrss across execve: the parent's size must not show."""
    log = tmp_path / "job.log"
    parent = bytearray(300 * 2**20)
    parent[::4096] = b"x" * len(parent[::4096])  # this process: over 300 MB
    code = (
        "import sys\nfrom stecflow.core.logs import BENCHMARK_COLUMNS, job_log\n"
        "with job_log(sys.argv[1]):\n    pass\n"
    )
    subprocess.run([sys.executable, "-c", code, str(log)], check=True)
    del parent
    peak = int(re.search(r"peak memory (\d+) MB$", log.read_text()).group(1))
    assert 5 < peak < 100

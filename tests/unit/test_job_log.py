"""A job's log: its records, its traceback, and its CPU time and peak memory."""

from __future__ import annotations

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


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_finished_job_writes_its_benchmark_beside_the_logs(tmp_path):
    """<results>/logs/<rule>/<job>.log -> <results>/benchmarks/<rule>/<job>.tsv, in
    the columns of Snakemake's benchmark files, the figures from /proc."""
    log = tmp_path / "results" / "logs" / "check_submission" / "logs" / "s1.log"
    with job_log(log):
        block = bytearray(80 * 2**20)
        block[::4096] = b"x" * len(block[::4096])
        while time.process_time() < 0.3:  # some CPU of its own
            pass
        high_water = _proc_mb("VmHWM")
    del block
    bench = tmp_path / "results" / "benchmarks" / "check_submission" / "logs"
    header, row = (bench / "s1.tsv").read_text().splitlines()
    figures = dict(zip(header.split("\t"), row.split("\t"), strict=True))
    assert tuple(figures) == BENCHMARK_COLUMNS
    assert figures["max_uss"] == figures["max_pss"] == "-"  # only sampling has them
    assert abs(float(figures["max_rss"]) - high_water) < 1
    assert float(figures["max_vms"]) >= float(figures["max_rss"]) >= 80
    cpu = float(figures["cpu_time"])
    assert cpu >= 0.3 and float(figures["s"]) >= cpu - 0.05  # this process's life
    assert float(figures["mean_load"]) == pytest.approx(
        100 * cpu / float(figures["s"]), abs=1.5
    )
    # the process's whole life: under pytest, as long as the run so far
    hours, minutes, seconds = map(int, figures["h:m:s"].split(":"))
    assert 3600 * hours + 60 * minutes + seconds == round(float(figures["s"]))


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

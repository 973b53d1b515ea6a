"""Run Snakemake on a campaign folder and read what it planned or did."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from tests.conftest import REPO

SNAKEFILE = REPO / "Snakefile"


def snakemake_command(campaign: Path, *args: str) -> list[str]:
    """``snakemake *args`` with our Snakefile in *campaign*, nothing else added."""
    return [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(SNAKEFILE),
        "--directory",
        str(campaign),
        *args,
    ]


def snakemake(
    campaign: Path, *args: str, check: bool = True
) -> subprocess.CompletedProcess:
    """Run snakemake with our Snakefile in *campaign*; return the finished process."""
    result = subprocess.run(
        snakemake_command(campaign, "--cores", "2", *args),
        capture_output=True,
        text=True,
        timeout=900,
    )
    if check and result.returncode != 0:
        raise AssertionError(
            f"snakemake failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
        )
    return result


def planned_jobs(campaign: Path, *args: str) -> Counter:
    """Jobs per rule that a dry run would execute (from its job-stats table)."""
    result = snakemake(campaign, "--dry-run", *args)
    text = result.stdout + result.stderr
    counts: Counter = Counter()
    if "Nothing to be done" in text:
        return counts
    table = text.split("Job stats:", 1)[1]
    for line in table.splitlines()[3:]:
        match = re.match(r"^(\S+)\s+(\d+)$", line.strip())
        if not match:
            break
        if match.group(1) != "total":
            counts[match.group(1)] = int(match.group(2))
    return counts


def job_resources(output: str) -> list[tuple[str, dict[str, str]]]:
    """(rule, resources) of every job in Snakemake's log of a run, in log order."""
    jobs = []
    for block in re.split(r"^(?:local)?rule ", output, flags=re.M)[1:]:
        rule = block.split(":", 1)[0]
        match = re.search(r"^\s+resources: (.*)$", block, re.M)
        pairs = match.group(1).split(", ") if match else []
        jobs.append((rule, dict(p.split("=", 1) for p in pairs if "=" in p)))
    return jobs


#: The line each job's log ends with: its CPU time and peak memory, which differ
#: from run to run (stecflow.core.logs.job_log).
_RESOURCE_LINE = re.compile(rb"^INFO stecflow\.job: finished: CPU .*\n", re.M)


def untimed(relative: str, data: bytes) -> bytes:
    """A result file's bytes without what differs between identical runs: the
    resource line of a job's log (other log lines are compared)."""
    if "logs/" in relative:
        return _RESOURCE_LINE.sub(b"", data)
    return data

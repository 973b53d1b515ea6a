"""Time "the rest" (every aggregate) and the dry run of a campaign against its floor.

Usage: python benchmarks/aggregates.py [CAMPAIGN] [--submissions N] [--rounds N]

CAMPAIGN is a campaign folder whose jobs have run (e.g. one kept by ``scale.py
--workdir``); without it, one of N submissions x 112 items is made by
``scale.make_campaign`` in a scratch folder and run once. Its floor,
``CAMPAIGN-floor`` beside it, is made on first use (``scale.make_floor``: the same
test set and submissions, one do-nothing job per submission, and as many wide and
narrow do-nothing aggregates as the workflow has, counted by ``scale.WIDE_RULES``
in a dry run), its per-submission jobs run once. Each round alternates: our dry
run, the floor's, ours re-running every aggregate (``--forcerun``), the floor's.
Prints the seconds of each as JSON.

With ``--steps``, one more rest is run with two of Snakemake's steps timed per
rule, in its own process: ``Job.prepare`` (before a job starts: for each input,
whether a dependency makes it as a pipe or a service) and
``PersistenceBase.finished`` (after it ends: the checksums of its inputs, once
for each of its outputs); while they run, Snakemake starts no other job. Their
seconds are printed with the timeline of the jobs (from each job's benchmark
file, ``results/benchmarks/<rule>/<job>.tsv``: its end is the file's time, its
start that less the job's life).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import scale

SNAKEFILE = str(scale.REPO / "Snakefile")


def _seconds(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("campaign", type=Path, nargs="?")
    parser.add_argument("--submissions", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--steps", action="store_true", help="also time Snakemake's steps per rule"
    )
    args = parser.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # as scale.py: jobs use .pyc
    ours = scale.snakemake("-s", SNAKEFILE)
    with tempfile.TemporaryDirectory() as scratch:
        if args.campaign is not None:
            root = args.campaign.resolve()
        else:
            root = Path(scratch) / "campaign"
            scale.make_campaign(root, args.submissions, 112)
            _seconds([*ours, "--cores", "2"], root)
        result = measure(root, ours, args.rounds)
        print(json.dumps(result, indent=1))
        if args.steps:
            forced = ["--cores", "2", "--forcerun", *result["aggregates"]]
            print(steps(root, ["-s", SNAKEFILE, *forced]))


def measure(root: Path, ours: list[str], rounds: int) -> dict:
    """The aggregates of *root* and the seconds of each alternating run."""
    jobs = scale.planned_jobs([*ours, "-n", "--forceall", "--cores", "2"], root)
    aggregates = sorted(
        rule
        for rule in jobs
        if rule not in scale.PER_SUBMISSION_RULES | {"all", "total"}
    )
    wide = sum(n for rule, n in jobs.items() if rule in scale.WIDE_RULES)
    narrow = sum(jobs[rule] for rule in aggregates) - wide
    floor = root.with_name(root.name + "-floor")
    if not floor.exists():
        scale.make_floor(floor, root, scale.ONE_JOB, wide, narrow)
        _seconds(scale.snakemake("--cores", "2", "--until", "check"), floor)
    seconds: dict[str, list[float]] = {}
    for _ in range(rounds):
        for name, command, cwd in (
            ("dry_ours", [*ours, "-n", "--quiet", "all", "--cores", "2"], root),
            (
                "dry_floor",
                scale.snakemake("-n", "--quiet", "all", "--cores", "2"),
                floor,
            ),
            ("rest_ours", [*ours, "--cores", "2", "--forcerun", *aggregates], root),
            (
                "rest_floor",
                scale.snakemake("--cores", "2", "--forcerun", "wide", "narrow"),
                floor,
            ),
        ):
            seconds.setdefault(name, []).append(round(_seconds(command, cwd), 2))
    return {
        "aggregates": aggregates,
        "wide": wide,
        "narrow": narrow,
        "seconds": seconds,
    }


#: Runs Snakemake (its arguments in argv) with Job.prepare and
#: PersistenceBase.finished timed per rule; prints "seconds step rule" lines.
STEPS = """\
import atexit, collections, sys, time
from snakemake import jobs, persistence
from snakemake.cli import main
spent = collections.Counter()

def timed(step, original, job_of):
    async def wrapper(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            return await original(self, *args, **kwargs)
        finally:
            spent[step, job_of(self, *args).rule.name] += time.perf_counter() - start
    return wrapper

jobs.Job.prepare = timed("prepare", jobs.Job.prepare, lambda job: job)
persistence.PersistenceBase.finished = timed(
    "finished", persistence.PersistenceBase.finished, lambda _, job: job
)
atexit.register(lambda: print(*(f"{s:.3f} {k[0]} {k[1]}" for k, s in spent.items()),
                              sep="\\n", file=sys.stderr))
sys.argv = ["snakemake", *sys.argv[1:]]
main()
"""


def steps(root: Path, arguments: list[str]) -> str:
    """One rest under :data:`STEPS`: Snakemake's two steps per rule, then the
    jobs' timeline, as Markdown tables."""
    run = subprocess.run(
        [sys.executable, "-c", STEPS, *arguments],
        cwd=root,
        capture_output=True,
        text=True,
    )
    timed = [line.split() for line in run.stderr.splitlines()]
    timed = [t for t in timed if len(t) == 3 and t[1] in ("prepare", "finished")]
    lines = ["| rule | prepare (s) | finished (s) |", "|---|---|---|"]
    per_rule: dict[str, dict[str, float]] = {}
    for seconds, step, rule in timed:
        per_rule.setdefault(rule, {})[step] = float(seconds)
    for rule, spent in sorted(per_rule.items(), key=lambda kv: -sum(kv[1].values())):
        prepare, finished = spent.get("prepare", 0), spent.get("finished", 0)
        lines.append(f"| `{rule}` | {prepare:.2f} | {finished:.2f} |")
    jobs = []
    for path in (root / "results" / "benchmarks").glob("*/*.tsv"):
        if path.parent.name in scale.PER_SUBMISSION_RULES:
            continue
        with open(path, encoding="utf-8") as handle:
            life = float(list(csv.DictReader(handle, delimiter="\t"))[-1]["s"])
        end = path.stat().st_mtime
        jobs.append((end - life, end, path.parent.name))
    first = min(start for start, _, _ in jobs)
    lines += ["", "| job | start (s) | end (s) |", "|---|---|---|"]
    lines += [
        f"| `{rule}` | {start - first:.2f} | {end - first:.2f} |"
        for start, end, rule in sorted(jobs)
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()

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
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
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
        print(json.dumps(measure(root, ours, args.rounds), indent=1))


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


if __name__ == "__main__":
    main()

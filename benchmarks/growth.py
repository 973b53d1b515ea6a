"""Growth: time and peak memory as a campaign grows in submissions and in items.

Runs ``benchmarks/scale.py`` (each run in a fresh temporary campaign, with its
floors) at every size asked for: each number of submissions with the first number
of items, and each further number of items with the first number of submissions
(by default 10, 100 and 1,000 submissions × 112 items, then 10 submissions × 1,000
and 10,000 items). Then prints, from the runs' figures:

* per size: the dry-run DAG build, the per-submission stage, the rest, the re-run
  after one late submission, and the largest peak memory of a per-submission job
  and of any other job (from each job's log: its CPU time and peak memory as the
  operating system counts them);
* per rule: the CPU time of all its jobs at each size, and the growth factor from
  one size to the next against the growth of the size itself (a linear rule grows
  like the size; the per-submission rule's CPU per submission should stay flat).

Each run's own tables (``scale.py``'s) are printed too. ``--from DIR`` rebuilds
the tables from the JSON figures a previous run left in DIR (``--keep DIR``).

Usage::

    python benchmarks/growth.py [--submissions 10 100 1000] [--items 112 1000 10000]
                                [--cores 2] [--keep DIR | --from DIR]
"""

from __future__ import annotations

import argparse
import itertools
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def sizes(submissions: list[int], items: list[int]) -> list[tuple[int, int]]:
    """(submissions, items) pairs: every S with the first N, every other N with
    the first S."""
    by_submissions = [(s, items[0]) for s in submissions]
    return by_submissions + [(submissions[0], n) for n in items[1:]]


def run_scale(
    s: int, n: int, cores: int, folder: Path, keep_campaigns: bool = False
) -> dict:
    """One ``scale.py`` run; its figures, with its printed tables under "text"."""
    target = folder / f"scale-{s}x{n}.json"
    command = [
        sys.executable,
        str(HERE / "scale.py"),
        "--submissions",
        str(s),
        "--items",
        str(n),
        "--cores",
        str(cores),
        "--json",
        str(target),
    ]
    if keep_campaigns:
        command += ["--workdir", str(folder / f"campaign-{s}x{n}")]
    print(f"growth: {s} submissions x {n} items ...", file=sys.stderr, flush=True)
    start = time.perf_counter()
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stdout[-3000:] + run.stderr[-3000:])
        raise SystemExit(f"growth: scale.py failed at {s} submissions x {n} items")
    print(
        f"growth: {s} x {n} done in {time.perf_counter() - start:.0f} s",
        file=sys.stderr,
        flush=True,
    )
    figures = json.loads(target.read_text(encoding="utf-8"))
    figures["text"] = run.stdout
    target.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return figures


def _largest(rules: dict, per_submission: bool) -> str:
    chosen = {
        rule: f
        for rule, f in rules.items()
        if (rule == "check_submission") == per_submission
    }
    if not chosen:
        return ""
    rule, f = max(chosen.items(), key=lambda r: r[1]["mb"])
    return f"{f['mb']:.0f} MB" if per_submission else f"{f['mb']:.0f} MB (`{rule}`)"


def size_table(runs: list[dict]) -> list[str]:
    lines = [
        "| submissions × items | dry-run DAG | per-submission stage | per submission"
        " | the rest | late re-run | peak: per-submission job | peak: other jobs |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in runs:
        ours, s = r["stecflow"], r["submissions"]
        lines.append(
            f"| {s:,} × {r['items']:,} | {ours['build']:.1f} s | {ours['stage']:.1f} s"
            f" | {ours['stage'] / s:.2f} s | {ours['rest']:.1f} s | {r['late']:.1f} s"
            f" | {_largest(r['rules'], True)} | {_largest(r['rules'], False)} |"
        )
    return lines


def rule_table(runs: list[dict], key: str) -> list[str]:
    """CPU of every rule at each size of one series, with growth factors."""
    label = {"submissions": "submissions", "items": "items"}[key]
    rules = sorted({rule for r in runs for rule in r["rules"]})
    head = " | ".join(f"{r[key]:,} {label}" for r in runs)
    steps = [f"×{b[key] / a[key]:.3g} {label}" for a, b in itertools.pairwise(runs)]
    lines = [
        f"| rule | {head} | " + " | ".join(f"growth at {s}" for s in steps) + " |",
        "|---|" + "---|" * (len(runs) + len(steps)),
    ]
    last = runs[-1]["rules"]
    for rule in sorted(rules, key=lambda x: -last.get(x, {}).get("cpu", 0)):
        cpu = [r["rules"].get(rule, {}).get("cpu") for r in runs]
        cells = [f"{c:.1f} s" if c is not None else "" for c in cpu]
        growth = [
            f"×{b / a:.1f}" if a and b is not None and a >= 0.05 else ""
            for a, b in itertools.pairwise(cpu)
        ]
        lines.append(f"| `{rule}` | " + " | ".join(cells + growth) + " |")
    return lines


def report(runs: list[dict], cores: int) -> str:
    first_s = runs[0]["submissions"]
    by_s = [r for r in runs if r["items"] == runs[0]["items"]]
    by_n = [r for r in runs if r["submissions"] == first_s]
    commits = sorted({r["commit"] for r in runs})
    lines = [
        "### Growth in submissions and in items",
        "",
        "Command: `python benchmarks/growth.py --submissions "
        + " ".join(str(r["submissions"]) for r in by_s)
        + " --items "
        + " ".join(str(r["items"]) for r in by_n)
        + f" --cores {cores}`  ",
        f"Machine: {platform.machine()}, {cores} cores, Python"
        f" {platform.python_version()}; commit {', '.join(commits)}",
        "",
        "Wall times of the workflow's stages (`scale.py`); peak memory is the"
        " largest of any job of the stage, from the jobs' logs.",
        "",
        *size_table(runs),
        "",
        f"CPU time of every rule's jobs as submissions grow ({runs[0]['items']:,}"
        " items):",
        "",
        *rule_table(by_s, "submissions"),
        "",
        f"CPU time of every rule's jobs as items grow ({first_s:,} submissions):",
        "",
        *rule_table(by_n, "items"),
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--items", type=int, nargs="+", default=[112, 1000, 10000])
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="keep each run's figures here")
    parser.add_argument(
        "--keep-campaigns",
        action="store_true",
        help="with --keep: keep each run's campaign and floors there too",
    )
    parser.add_argument(
        "--from", dest="source", type=Path, help="tables from a kept folder, no runs"
    )
    args = parser.parse_args()
    if args.source:
        runs = [
            json.loads(p.read_text(encoding="utf-8"))
            for p in sorted(args.source.glob("scale-*.json"))
        ]
        wanted = sizes(args.submissions, args.items)
        runs = [r for r in runs if (r["submissions"], r["items"]) in wanted]
        runs.sort(key=lambda r: wanted.index((r["submissions"], r["items"])))
    else:
        with tempfile.TemporaryDirectory() as scratch:
            folder = args.keep or Path(scratch)
            folder.mkdir(parents=True, exist_ok=True)
            keep_campaigns = args.keep_campaigns and args.keep is not None
            runs = [
                run_scale(s, n, args.cores, folder, keep_campaigns)
                for s, n in sizes(args.submissions, args.items)
            ]
    for r in runs:
        if r.get("text"):
            print(r["text"])
    print(report(runs, args.cores))


if __name__ == "__main__":
    main()

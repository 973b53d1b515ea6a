"""Run every benchmark and append its tables to benchmarks/README.md.

One command for all of ``benchmarks/``: each benchmark runs in its own process,
one after the other (they time the machine, so never two at once), its output
(the Markdown tables every script prints) is kept, and at the end one section is
appended to ``benchmarks/README.md`` with the date, the machine (processor,
cores, memory, the load average before the run), the Python and the commit, then
per benchmark its command, how long it took, its exit status and its tables.

Usage::

    python benchmarks/run_all.py                 # everything (several hours)
    python benchmarks/run_all.py --quick         # small sizes: a check in minutes
    python benchmarks/run_all.py --only metrics io_bootstrap
    python benchmarks/run_all.py --list          # the benchmarks and commands
    python benchmarks/run_all.py --no-record     # print, do not append

The peers that some benchmarks time stecflow against are in the ``bench`` extra
(``pip install -e '.[bench]'``).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from scale import commit  # noqa: E402

README = HERE / "README.md"

#: name -> (arguments of the full run, arguments of --quick), in running order.
BENCHMARKS: dict[str, tuple[list[str], list[str]]] = {
    "metrics": (
        ["--items", "20000", "--repeat", "5"],
        ["--items", "2000", "--repeat", "3"],
    ),
    "io_bootstrap": (
        ["--items", "20000", "--repeat", "5"],
        ["--items", "2000", "--repeat", "2"],
    ),
    "scoring": (
        ["--systems", "100", "--items", "1000"],
        ["--systems", "3", "--items", "200"],
    ),
    "anova_tukey": (
        ["--systems", "100", "1000", "--per-cell", "12"],
        ["--systems", "100", "--per-cell", "12"],
    ),
    "significance_pairs": (["1000", "112", "se"], ["100", "112", "se"]),
    "limits": ([], []),
    "fuzz_validation": (
        ["--cases", "2000", "--seed", "13"],
        ["--cases", "100", "--seed", "13"],
    ),
    "server_load": (["--participants", "200"], ["--participants", "20"]),
    # waitress and the former wsgiref server (wsgiref_server.py) behind nginx
    "server_stack": (
        ["--participants", "500", "--trials-per-participant", "102", "--kills", "5"],
        ["--participants", "20", "--trials-per-participant", "10", "--kills", "1"],
    ),
    "aggregates": (
        ["--submissions", "1000", "--rounds", "3"],
        ["--submissions", "6", "--rounds", "1"],
    ),
    "growth": (
        ["--submissions", "10", "100", "1000", "--items", "112", "1000", "10000"],
        ["--submissions", "4", "8", "--items", "20", "40"],
    ),
}


def machine() -> str:
    """Processor, cores, memory and load, as this machine reports them."""
    model = platform.processor() or platform.machine()
    memory = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f", {int(line.split()[1]) / 2**20:.0f} GiB memory"
                break
    except OSError:
        pass
    load = ""
    if hasattr(os, "getloadavg"):
        load = ", load average {:.2f} / {:.2f} / {:.2f} before the run".format(
            *os.getloadavg()
        )
    return (
        f"{model}, {os.cpu_count()} cores{memory}{load}; {platform.system()}"
        f" {platform.release()}, Python {platform.python_version()}"
    )


def run_one(name: str, arguments: list[str]) -> tuple[str, float, int, str]:
    """Run one benchmark; (command, seconds, exit status, its output)."""
    command = ["python", f"benchmarks/{name}.py", *arguments]
    print(f"run_all: {' '.join(command)} ...", file=sys.stderr, flush=True)
    start = time.perf_counter()
    run = subprocess.run(
        [sys.executable, str(HERE / f"{name}.py"), *arguments],
        cwd=HERE.parent,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - start
    output = run.stdout.strip()
    if run.returncode != 0:
        output += "\n\n```\n" + run.stderr.strip()[-2000:] + "\n```"
    print(
        f"run_all: {name} finished in {seconds:.0f} s, exit status {run.returncode}",
        file=sys.stderr,
        flush=True,
    )
    return " ".join(command), seconds, run.returncode, output


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=list(BENCHMARKS), metavar="NAME")
    parser.add_argument("--quick", action="store_true", help="small sizes")
    parser.add_argument("--list", action="store_true", help="list, run nothing")
    parser.add_argument("--no-record", action="store_true", help="do not append")
    args = parser.parse_args()
    chosen = [n for n in BENCHMARKS if not args.only or n in args.only]
    if args.list:
        for name in chosen:
            full, quick = BENCHMARKS[name]
            print(f"{name}: python benchmarks/{name}.py {' '.join(full)}".rstrip())
            print(f"  --quick: python benchmarks/{name}.py {' '.join(quick)}".rstrip())
        return 0
    header = [
        f"## {datetime.date.today().isoformat()}: every benchmark"
        f"{' (quick sizes)' if args.quick else ''}",
        "",
        f"Command: `python benchmarks/run_all.py"
        f"{' --quick' if args.quick else ''}"
        f"{' --only ' + ' '.join(args.only) if args.only else ''}`  ",
        f"Machine: {machine()}  ",
        f"Commit: {commit()}",
        "",
    ]
    sections = []
    failed = 0
    for name in chosen:
        command, seconds, status, output = run_one(name, BENCHMARKS[name][args.quick])
        failed += status != 0
        sections += [
            f"**{name}**: `{command}`, {seconds:.0f} s, exit status {status}",
            "",
            output,
            "",
        ]
    text = "\n".join(header + sections)
    print(text)
    if not args.no_record:
        with open(README, "a", encoding="utf-8") as handle:
            handle.write("\n" + text)
        print(f"run_all: appended to {README}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

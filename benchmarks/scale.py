"""Scale benchmark: a synthetic campaign of S submissions x N items, against the floor.

Generates, in a temporary folder, a TUNA-shaped test set of N items and S
submissions (Incremental Algorithm variants, see ``benchmarks/scoring.py``) plus a
small simulated rating study, then measures on this machine, in one run:

* the dry-run DAG build (``snakemake -n``);
* the full run (``snakemake --cores C``);
* the re-run after adding one late submission;
* the floor: a do-nothing Snakefile of the same shape (one validation and one
  scoring job per submission, the same aggregates), each job a Python script that
  only writes its output;
* the peak memory (max RSS) of the largest per-submission job, from Snakemake's
  benchmark files.

Prints the figures and the ratios, and with ``--record`` appends them, with the
command and the machine, to ``benchmarks/README.md``.

Usage::

    python benchmarks/scale.py --submissions 100 --items 112 --cores 2 --record
"""

from __future__ import annotations

import argparse
import csv
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scoring import make_items, make_system  # noqa: E402

from stecflow.corpus import write_items  # noqa: E402
from stecflow.submission import write_metadata, write_outputs  # noqa: E402

REPO = Path(__file__).resolve().parents[1]

CONFIG = """\
campaign:
  id: scale
  title: Scale benchmark
  description: Synthetic campaign.
  tasks: [end_to_end, attribute_selection]
  version: "1"
  deadline: "2026-06-01T23:59:59Z"
data: {{format: tuna, testset: testset.xml, train: null, dev: null, images: null}}
submissions: {{root: submissions}}
scoring:
  metrics: []
  text: {{lowercase: true, punctuation: strip}}
  bootstrap: {{resamples: 1000, confidence: 0.95, seed: 1}}
statistics:
  alpha: 0.05
  include_late: false
  exclude_references_from_correlations: false
  analyses: []
studies:
  - id: rating
    task: rating
    systems: [{study_systems}]
    subjects: 4
    seed: 1
    simulate: true
judgments: {{simulation: {{seed: 1}}}}
release: {{key: null, include_testset: false, testset_pointer: null, licence: null,
          authors: [], evaluators: null, ethics: null, keep_columns: [], notes: null}}
report: {{previous_release: null, changes: []}}
"""

FLOOR_SNAKEFILE = """\
from pathlib import Path

TEAMS = sorted(p.name for p in Path("submissions").iterdir())
AGGREGATES = range({aggregates})


rule all:
    input:
        expand("floor/aggregate/{{k}}.txt", k=AGGREGATES),


rule validate:
    output:
        "floor/validation/{{team}}.json",
    script:
        "touch_output.py"


rule score:
    input:
        "floor/validation/{{team}}.json",
    output:
        "floor/scores/{{team}}.tsv",
    script:
        "touch_output.py"


rule aggregate:
    input:
        expand("floor/scores/{{team}}.tsv", team=TEAMS),
    output:
        "floor/aggregate/{{k}}.txt",
    script:
        "touch_output.py"
"""

TOUCH = """\
from pathlib import Path

for path in snakemake.output:  # noqa: F821
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text("done\\n")
"""


def add_submission(root: Path, items, number: int, *, late: bool = False) -> str:
    """Write one synthetic submission; return its team/system."""
    team, system = f"team-{number:04d}", "primary"
    folder = root / "submissions" / team / system
    write_outputs(make_system(items, number), folder / "outputs.xml")
    write_metadata(
        {
            "team": team,
            "system": system,
            "description": "Incremental Algorithm with a random preference order.",
            "contact": "bench@example.org",
            "primary": True,
            "submitted": "2026-06-20T00:00:00Z" if late else "2026-05-01T00:00:00Z",
            "tasks": ["end_to_end", "attribute_selection"],
            "reference": False,
            "release_consent": True,
        },
        folder / "system.yaml",
    )
    return f"{team}/{system}"


def make_campaign(root: Path, submissions: int, n_items: int) -> list:
    items = make_items(n_items)
    write_items(items, root / "testset.xml")
    names = [add_submission(root, items, n) for n in range(submissions)]
    (root / "config").mkdir(parents=True)
    (root / "config" / "config.yaml").write_text(
        CONFIG.format(study_systems=", ".join(names[:4]))
    )
    return items


def timed(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True, text=True)
    return time.perf_counter() - start


def snakemake(*args: str) -> list[str]:
    return [sys.executable, "-m", "snakemake", *args]


def count_jobs(command: list[str], cwd: Path) -> int:
    """The total number of jobs in a dry run's job-stats table."""
    out = subprocess.run(command, cwd=cwd, check=True, capture_output=True, text=True)
    for line in (out.stdout + out.stderr).splitlines():
        if line.startswith("total"):
            return int(line.split()[-1])
    raise RuntimeError("no job stats in the dry run")


def peak_rss_mb(folder: Path) -> float:
    """Largest max_rss (MB) among the per-submission jobs' benchmark files."""
    peak = 0.0
    for path in folder.rglob("*.tsv"):
        with open(path, encoding="utf-8") as handle:
            for row in csv.DictReader(handle, delimiter="\t"):
                value = row.get("max_rss", "NA")
                if value not in ("NA", ""):
                    peak = max(peak, float(value))
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=100)
    parser.add_argument("--items", type=int, default=112)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--record", action="store_true", help="append to README.md")
    args = parser.parse_args()
    snakefile = str(REPO / "Snakefile")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "campaign"
        items = make_campaign(root, args.submissions, args.items)
        cores = str(args.cores)
        dag_s = timed(snakemake("-s", snakefile, "-n", "--cores", cores), root)
        planned = count_jobs(snakemake("-s", snakefile, "-n", "--cores", cores), root)
        full_s = timed(snakemake("-s", snakefile, "--cores", cores), root)
        add_submission(root, items, args.submissions, late=True)
        late_s = timed(snakemake("-s", snakefile, "--cores", cores), root)
        rss = peak_rss_mb(root / "results" / "benchmarks" / "score_submission")
        floor = Path(tmp) / "floor"
        floor.mkdir()
        shutil.copytree(root / "submissions", floor / "submissions")
        per_submission = 2 * (args.submissions + 1)
        aggregates = max(planned - per_submission, 1)
        (floor / "Snakefile").write_text(FLOOR_SNAKEFILE.format(aggregates=aggregates))
        (floor / "touch_output.py").write_text(TOUCH)
        floor_dag_s = timed(snakemake("-n", "--cores", cores), floor)
        floor_s = timed(snakemake("--cores", cores), floor)
    command = (
        f"python benchmarks/scale.py --submissions {args.submissions}"
        f" --items {args.items} --cores {args.cores}"
    )
    python = platform.python_version()
    machine = f"{platform.machine()}, {args.cores} cores, Python {python}"
    lines = [
        f"### Scale: {args.submissions} submissions x {args.items} items",
        "",
        f"Command: `{command}`  ",
        f"Machine: {machine}",
        "",
        "| measure | stecflow | floor | ratio |",
        "|---|---|---|---|",
        f"| dry-run DAG build | {dag_s:.1f} s | {floor_dag_s:.1f} s"
        f" | {dag_s / floor_dag_s:.2f}x |",
        f"| full run ({planned} jobs) | {full_s:.1f} s | {floor_s:.1f} s"
        f" | {full_s / floor_s:.2f}x |",
        f"| re-run after one late submission | {late_s:.1f} s | |"
        f" {late_s / full_s:.1%} of the full run |",
        f"| peak memory of a scoring job | {rss:.0f} MB | | |",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if args.record:
        with open(REPO / "benchmarks" / "README.md", "a", encoding="utf-8") as handle:
            handle.write("\n" + text)


if __name__ == "__main__":
    main()

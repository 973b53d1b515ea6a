"""Scale benchmark: a synthetic campaign of S submissions x N items, against the floor.

Generates, in a temporary folder, a TUNA-shaped test set of N items and S
submissions (Incremental Algorithm variants, see ``benchmarks/scoring.py``) plus a
small simulated rating study, then measures on this machine, in one run:

* the dry-run DAG build (``snakemake -n --quiet all``: building, not printing);
* the per-submission stages alone (``--until score_submission``: the test set,
  one validation and one scoring job per submission), then the rest (studies,
  judgments, tables, statistics, report, archive); the full run is their sum;
* the re-run after adding one late submission;
* the floor: a do-nothing Snakefile of the same shape (one validation and one
  scoring job per submission, as many aggregates reading every submission and as
  many reading one file as the real DAG has), each job a Python script that only
  writes its output, timed the same way;
* the peak memory (max RSS) of every rule's largest job, from Snakemake's
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
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scoring import make_items, make_system  # noqa: E402

from stecflow.data.corpus import write_items  # noqa: E402
from stecflow.submissions.files import write_metadata  # noqa: E402
from stecflow.tasks.reg.outputs import write_outputs  # noqa: E402

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
  # every pair of 1,000 systems would be 500,000 paired tests per metric: off
  significance: {{methods: []}}
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


rule all:
    input:
        expand("floor/wide/{{k}}.txt", k=range({wide})),
        expand("floor/narrow/{{k}}.txt", k=range({narrow})),


rule prepare:
    output:
        "floor/testset.txt",
    script:
        "touch_output.py"


rule validate:
    input:
        "floor/testset.txt",
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


rule wide:
    input:
        expand("floor/scores/{{team}}.tsv", team=TEAMS),
    output:
        "floor/wide/{{k}}.txt",
    script:
        "touch_output.py"


rule narrow:
    input:
        "floor/testset.txt",
    output:
        "floor/narrow/{{k}}.txt",
    script:
        "touch_output.py"
"""

#: Rules of the real workflow whose inputs include every submission's files.
WIDE_RULES = {
    "summarise_validation",
    "aggregate_scores",
    "collect_item_scores",
    "render_report",
    "build_release",
}
PER_SUBMISSION_RULES = {"prepare_testset", "validate_submission", "score_submission"}

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


def planned_jobs(command: list[str], cwd: Path) -> dict[str, int]:
    """Jobs per rule in a dry run's job-stats table."""
    out = subprocess.run(command, cwd=cwd, check=True, capture_output=True, text=True)
    text = out.stdout + out.stderr
    counts: dict[str, int] = {}
    for line in text.split("Job stats:", 1)[1].splitlines()[3:]:
        parts = line.split()
        if len(parts) != 2 or not parts[1].isdigit():
            break
        counts[parts[0]] = int(parts[1])
    return counts


def peak_rss_mb(folder: Path) -> dict[str, float]:
    """Rule -> largest max_rss (MB) among its jobs' benchmark files."""
    peaks: dict[str, float] = {}
    for path in sorted(folder.rglob("*.tsv")):
        rule = path.relative_to(folder).parts[0]
        with open(path, encoding="utf-8") as handle:
            for row in csv.DictReader(handle, delimiter="\t"):
                value = row.get("max_rss", "NA")
                if value not in ("NA", ""):
                    peaks[rule] = max(peaks.get(rule, 0.0), float(value))
    return peaks


def measure(root: Path, cores: str, snakefile: list[str], until: str) -> dict:
    """Dry-run build, per-submission stage, the rest, in that order."""
    build = timed(snakemake(*snakefile, "-n", "--quiet", "all", "--cores", cores), root)
    stage = timed(snakemake(*snakefile, "--cores", cores, "--until", until), root)
    rest = timed(snakemake(*snakefile, "--cores", cores), root)
    return {"build": build, "stage": stage, "rest": rest, "full": stage + rest}


def compute_seconds(root: Path, sample: int = 10) -> float:
    """Median in-process time of one submission's validation and scoring.

    The work the per-submission jobs must do whatever runs them: the library
    calls of both adapters, imports already loaded, on *sample* submissions of the
    finished campaign (written to a scratch folder).
    """
    import statistics

    import yaml

    from stecflow.scoring.score import score_submission
    from stecflow.submissions.validation import validate_to_files

    config = yaml.safe_load((root / "config" / "config.yaml").read_text())
    testset = root / "results" / "data" / "testset.xml"
    times = []
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        teams = sorted((root / "submissions").iterdir())[:sample]
        for team in teams:
            folder = team / "primary"
            start = time.perf_counter()
            validate_to_files(
                folder,
                testset,
                team=team.name,
                system="primary",
                campaign_tasks=config["campaign"]["tasks"],
                deadline=config["campaign"]["deadline"],
                json_path=out / "v.json",
                md_path=out / "v.md",
            )
            score_submission(
                validation_path=out / "v.json",
                submission_dir=folder,
                testset_path=testset,
                scoring=config["scoring"],
                items_path=out / "i.tsv",
                summary_path=out / "s.json",
            )
            times.append(time.perf_counter() - start)
    return statistics.median(times[1:] or times)  # the first one loads the imports


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=100)
    parser.add_argument("--items", type=int, default=112)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--record", action="store_true", help="append to README.md")
    args = parser.parse_args()
    snakefile = ["-s", str(REPO / "Snakefile")]
    cores = str(args.cores)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "campaign"
        items = make_campaign(root, args.submissions, args.items)
        jobs = planned_jobs(snakemake(*snakefile, "-n", "--cores", cores), root)
        ours = measure(root, cores, snakefile, "score_submission")
        add_submission(root, items, args.submissions, late=True)
        late_jobs = planned_jobs(snakemake(*snakefile, "-n", "--cores", cores), root)
        late_s = timed(snakemake(*snakefile, "--cores", cores), root)
        peaks = peak_rss_mb(root / "results" / "benchmarks")
        work = compute_seconds(root)
        floor = Path(tmp) / "floor"
        floor.mkdir()
        for team in sorted((root / "submissions").iterdir())[: args.submissions]:
            (floor / "submissions" / team.name).mkdir(parents=True)
        wide = sum(n for rule, n in jobs.items() if rule in WIDE_RULES)
        narrow = sum(
            n
            for rule, n in jobs.items()
            if rule not in WIDE_RULES | PER_SUBMISSION_RULES | {"all", "total"}
        )
        (floor / "Snakefile").write_text(
            FLOOR_SNAKEFILE.format(wide=wide, narrow=narrow)
        )
        (floor / "touch_output.py").write_text(TOUCH)
        base = measure(floor, cores, [], "score")
    command = (
        f"python benchmarks/scale.py --submissions {args.submissions}"
        f" --items {args.items} --cores {args.cores}"
    )
    python = platform.python_version()
    machine = f"{platform.machine()}, {args.cores} cores, Python {python}"
    per_submission = 2 * args.submissions + 1
    rerun = sum(n for rule, n in late_jobs.items() if rule != "total")
    compute = work * args.submissions / args.cores

    def row(label: str, key: str) -> str:
        return (
            f"| {label} | {ours[key]:.1f} s | {base[key]:.1f} s"
            f" | {ours[key] / base[key]:.2f}x |"
        )

    lines = [
        f"### Scale: {args.submissions} submissions x {args.items} items",
        "",
        f"Command: `{command}`  ",
        f"Machine: {machine}",
        "",
        "| measure | stecflow | floor | ratio |",
        "|---|---|---|---|",
        row("dry-run DAG build", "build"),
        row(f"per-submission stages ({per_submission} jobs)", "stage"),
        row(f"the rest ({jobs['total'] - per_submission} jobs)", "rest"),
        row(f"full run ({jobs['total']} jobs)", "full"),
        f"| re-run after one late submission ({rerun} jobs) | {late_s:.1f} s | |"
        f" {late_s / ours['full']:.1%} of the full run |",
        "",
        f"In-process work of one submission (validation and scoring, imports"
        f" loaded): {work:.2f} s, so {compute:.1f} s"
        f" for {args.submissions} on {args.cores} cores; the per-submission stages"
        f" spend {ours['stage'] - base['stage'] - compute:.1f} s"
        " beyond that and the floor (job start-up: interpreter, imports, reading"
        " the test set).",
        "",
        "Peak memory (max RSS) of each rule's largest job: "
        + ", ".join(f"{rule} {mb:.0f} MB" for rule, mb in sorted(peaks.items()))
        + ".",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if args.record:
        with open(REPO / "benchmarks" / "README.md", "a", encoding="utf-8") as handle:
            handle.write("\n" + text)


if __name__ == "__main__":
    main()

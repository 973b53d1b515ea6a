"""Scale benchmark: a synthetic campaign of S submissions x N items, against the floor.

Generates, in a temporary folder, a TUNA-shaped test set of N items and S
submissions (Incremental Algorithm variants, see ``benchmarks/scoring.py``) plus a
small simulated rating study, then measures on this machine, in one run:

* the dry-run DAG build (``snakemake -n --quiet all``: building, not printing);
* the per-submission stages alone (``--until check_submission``: the test set
  and its compact form, one job per submission that validates then scores it),
  then the rest (studies, judgments, tables, statistics, report, archive); the
  full run is their sum;
* the re-run after adding one late submission;
* two floors, do-nothing Snakefiles whose jobs are Python scripts that only write
  their outputs, timed the same way, with the same inputs as the real jobs (the
  test set and each submission's own files): the old shape (one validation and
  one scoring job per submission) and the new shape (one job per submission);
  both have as many aggregates reading every submission and as many reading one
  file as the real DAG has;
* the in-process work of one submission (its job's library call, imports
  loaded), so that the per-submission stages can be set against the new-shape
  floor plus that work;
* one per-submission job of each shape run on its own in a fresh interpreter
  (submission 0): wall time, CPU time and peak memory (max RSS) as the operating
  system reports them for the child process (``getrusage(RUSAGE_CHILDREN)`` in a
  wrapper that runs only that job), not from Snakemake's benchmark files, which
  miss short jobs' peaks.

Prints the figures and the ratios, and with ``--record`` appends them, with the
command, the machine and the commit, to ``benchmarks/README.md``.

Usage::

    python benchmarks/scale.py --submissions 100 --items 112 --cores 2 --record
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scoring import make_items, make_system  # noqa: E402

from stecflow.core.resources import cap_numeric_threads  # noqa: E402
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


def submission_files(wildcards):
    folder = f"submissions/{{wildcards.team}}/primary"
    return [f"{{folder}}/outputs.xml", f"{{folder}}/system.yaml"]


rule all:
    input:
        expand("floor/wide/{{k}}.txt", k=range({wide})),
        expand("floor/narrow/{{k}}.txt", k=range({narrow})),


rule prepare:
    input:
        "testset.xml",
    output:
        "floor/testset.txt",
    script:
        "touch_output.py"


{per_submission}

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

#: The floor's per-submission jobs as the workflow had them: validation, then
#: scoring, each reading the test set and the submission's files.
TWO_JOBS = """\
rule validate:
    input:
        "floor/testset.txt",
        submission_files,
    output:
        "floor/validation/{team}.json",
        "floor/validation/{team}.md",
    script:
        "touch_output.py"


rule score:
    input:
        "floor/validation/{team}.json",
        "floor/testset.txt",
        submission_files,
    output:
        "floor/scores/{team}.tsv",
        "floor/systems/{team}.json",
    script:
        "touch_output.py"
"""

#: The new shape: one job per submission writes its four records.
ONE_JOB = """\
rule check:
    input:
        "floor/testset.txt",
        submission_files,
    output:
        "floor/validation/{team}.json",
        "floor/validation/{team}.md",
        "floor/scores/{team}.tsv",
        "floor/systems/{team}.json",
    script:
        "touch_output.py"
"""

#: Rules of the real workflow whose inputs include every submission's files.
WIDE_RULES = {
    "summarise_validation",
    "aggregate_scores",
    "collect_item_scores",
    "render_submissions",
    "render_report",
    "pack_release",
}
PER_SUBMISSION_RULES = {"prepare_testset", "check_submission"}

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
    run = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stdout[-3000:] + run.stderr[-3000:])
        raise SystemExit(f"failed in {cwd}: {' '.join(command)}")
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


def measure(root: Path, cores: str, snakefile: list[str], until: str) -> dict:
    """Dry-run build, per-submission stage, the rest, in that order."""
    build = timed(snakemake(*snakefile, "-n", "--quiet", "all", "--cores", cores), root)
    stage = timed(snakemake(*snakefile, "--cores", cores, "--until", until), root)
    rest = timed(snakemake(*snakefile, "--cores", cores), root)
    return {"build": build, "stage": stage, "rest": rest, "full": stage + rest}


def job_code(root: Path, shape: str, out: Path, number: int = 0) -> str:
    """Python code running one per-submission job of *shape* on submission *number*.

    ``validate`` and ``score`` are the old shape's two jobs, each reading the XML
    test set; ``check`` is the new shape's one job on the compact test set;
    ``nothing`` is the floor's job (a fresh interpreter that writes a file).
    """
    config = f"{root}/config/config.yaml"
    folder = f"{root}/submissions/team-{number:04d}/primary"
    data = f"{root}/results/data"
    common = (
        "import yaml\n"
        f"config = yaml.safe_load(open({config!r}))\n"
        "tasks = config['campaign']['tasks']\n"
    )
    if shape == "nothing":
        return f"open({str(out / 'nothing.txt')!r}, 'w').write('done')\n"
    if shape == "validate":
        return common + (
            "from stecflow.submissions.validation import validate_to_files\n"
            f"validate_to_files({folder!r}, {data + '/testset.xml'!r},"
            f" team='team-{number:04d}', system='primary', campaign_tasks=tasks,"
            " deadline=config['campaign']['deadline'],"
            f" json_path={str(out / 'v.json')!r}, md_path={str(out / 'v.md')!r})\n"
        )
    if shape == "score":
        return common + (
            "from stecflow.scoring.score import score_submission\n"
            f"score_submission(validation_path={str(out / 'v.json')!r},"
            f" submission_dir={folder!r}, testset_path={data + '/testset.xml'!r},"
            " scoring=config['scoring'], tasks=tasks,"
            f" items_path={str(out / 'i.tsv')!r},"
            f" summary_path={str(out / 's.json')!r})\n"
        )
    return common + (
        "from stecflow.scoring.check import check_submission\n"
        f"check_submission({folder!r}, {data + '/testset.compact.json'!r},"
        f" team='team-{number:04d}', system='primary', campaign_tasks=tasks,"
        " deadline=config['campaign']['deadline'], scoring=config['scoring'],"
        f" record_path={str(out / 'cv.json')!r},"
        f" report_path={str(out / 'cv.md')!r},"
        f" items_path={str(out / 'ci.tsv')!r},"
        f" summary_path={str(out / 'cs.json')!r})\n"
    )


#: Runs the command in its argv as its only child and prints what the operating
#: system measured of it: wall seconds, CPU seconds, peak RSS in KB (Linux).
RUSAGE_WRAPPER = """\
import resource, subprocess, sys, time
start = time.perf_counter()
subprocess.run(sys.argv[1:], check=True)
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)
"""


def os_measured(code: str, repeats: int = 3) -> dict[str, float]:
    """Wall, CPU (s) and peak memory (MB) of a fresh interpreter running *code*.

    Each run is the only child of a wrapper process, so ``RUSAGE_CHILDREN`` is
    that job's own figures; the median run (by wall time) is kept.
    """
    runs = []
    for _ in range(repeats):
        out = subprocess.run(
            [sys.executable, "-c", RUSAGE_WRAPPER, sys.executable, "-c", code],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
        runs.append(
            {"wall": float(out[0]), "cpu": float(out[1]), "mb": int(out[2]) / 1024}
        )
    runs.sort(key=lambda r: r["wall"])
    return runs[len(runs) // 2]


def job_figures(root: Path) -> dict[str, dict[str, float]]:
    """OS-measured figures of one job of each shape (see :func:`job_code`)."""
    figures = {}
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        for shape in ("nothing", "validate", "score", "check"):
            figures[shape] = os_measured(job_code(root, shape, out))
        same = (out / "s.json").read_bytes() == (out / "cs.json").read_bytes()
        if not same or (out / "i.tsv").read_bytes() != (out / "ci.tsv").read_bytes():
            raise SystemExit("the one-job and two-job shapes scored differently")
    return figures


def compute_seconds(root: Path, sample: int = 10) -> float:
    """Median in-process time of one submission's per-submission job.

    The work the job must do whatever runs it: :func:`check_submission` (loading
    the compact test set, validation, scoring, writing the four records),
    imports already loaded, on *sample* submissions of the finished campaign
    (written to a scratch folder).
    """
    import statistics

    import yaml

    from stecflow.scoring.check import check_submission

    config = yaml.safe_load((root / "config" / "config.yaml").read_text())
    testset = root / "results" / "data" / "testset.compact.json"
    times = []
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        teams = sorted((root / "submissions").iterdir())[:sample]
        for team in teams:
            start = time.perf_counter()
            check_submission(
                team / "primary",
                testset,
                team=team.name,
                system="primary",
                campaign_tasks=config["campaign"]["tasks"],
                deadline=config["campaign"]["deadline"],
                scoring=config["scoring"],
                record_path=out / "v.json",
                report_path=out / "v.md",
                items_path=out / "i.tsv",
                summary_path=out / "s.json",
            )
            times.append(time.perf_counter() - start)
    return statistics.median(times[1:] or times)  # the first one loads the imports


def rule_figures(root: Path) -> dict[str, dict[str, float]]:
    """Per rule: jobs, summed CPU seconds and the largest peak memory (MB).

    Read from the last line of each job's log (``results/logs/<rule>/...``),
    where :func:`stecflow.core.logs.job_log` writes the process's CPU time and
    peak resident memory as the operating system counts them (``getrusage``),
    so short jobs' peaks are not missed as in Snakemake's sampled benchmarks.
    """
    from stecflow.core.logs import RESOURCE_PREFIX

    pattern = re.compile(
        re.escape(RESOURCE_PREFIX) + r" ([\d.]+) s, peak memory (\d+) MB$"
    )
    figures: dict[str, dict[str, float]] = {}
    for log in sorted((root / "results" / "logs").rglob("*.log")):
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
        found = pattern.search(lines[-1]) if lines else None
        if found is None:
            continue
        rule = log.relative_to(root / "results" / "logs").parts[0]
        rule = rule.removesuffix(".log")
        entry = figures.setdefault(rule, {"jobs": 0, "cpu": 0.0, "mb": 0.0})
        entry["jobs"] += 1
        entry["cpu"] += float(found.group(1))
        entry["mb"] = max(entry["mb"], float(found.group(2)))
    return figures


def make_floor(folder: Path, root: Path, per_submission: str, wide: int, narrow: int):
    """A floor campaign in *folder* with the real one's test set and submissions."""
    folder.mkdir()
    shutil.copy(root / "testset.xml", folder / "testset.xml")
    for team in sorted((root / "submissions").iterdir()):
        shutil.copytree(team, folder / "submissions" / team.name)
    (folder / "Snakefile").write_text(
        FLOOR_SNAKEFILE.format(wide=wide, narrow=narrow, per_submission=per_submission)
    )
    (folder / "touch_output.py").write_text(TOUCH)


def commit() -> str:
    """The short hash of the checked-out commit (with + if files changed)."""
    run = subprocess.run(
        ["git", "describe", "--always", "--dirty=+"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    return run.stdout.strip() or "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=100)
    parser.add_argument("--items", type=int, default=112)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--record", action="store_true", help="append to README.md")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--workdir", type=Path, help="make the campaign and floors here and keep them"
    )
    args = parser.parse_args()
    # Jobs write their modules' bytecode, as Python does by default; without it
    # (PYTHONDONTWRITEBYTECODE set, as in some containers) every job compiles
    # stecflow's modules from source again, about 0.1 s a job the floor never pays.
    bytecode_note = (
        "; PYTHONDONTWRITEBYTECODE was set here and is unset for the runs"
        if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None
        else ""
    )
    # The jobs timed on their own get one thread for NumPy, as in the workflow.
    cap_numeric_threads(os.environ)
    snakefile = ["-s", str(REPO / "Snakefile")]
    cores = str(args.cores)
    with tempfile.TemporaryDirectory() as scratch:
        tmp = args.workdir or Path(scratch)  # --workdir: kept, to look at after
        root = Path(tmp) / "campaign"
        items = make_campaign(root, args.submissions, args.items)
        jobs = planned_jobs(snakemake(*snakefile, "-n", "--cores", cores), root)
        wide = sum(n for rule, n in jobs.items() if rule in WIDE_RULES)
        narrow = sum(
            n
            for rule, n in jobs.items()
            if rule not in WIDE_RULES | PER_SUBMISSION_RULES | {"all", "total"}
        )
        old_floor, new_floor = Path(tmp) / "floor-two", Path(tmp) / "floor-one"
        make_floor(old_floor, root, TWO_JOBS, wide, narrow)
        make_floor(new_floor, root, ONE_JOB, wide, narrow)
        ours = measure(root, cores, snakefile, "check_submission")
        rules = rule_figures(root)
        add_submission(root, items, args.submissions, late=True)
        late_jobs = planned_jobs(snakemake(*snakefile, "-n", "--cores", cores), root)
        late_s = timed(snakemake(*snakefile, "--cores", cores), root)
        work = compute_seconds(root)
        one_job = job_figures(root)
        old = measure(old_floor, cores, [], "score")
        new = measure(new_floor, cores, [], "check")
    command = (
        f"python benchmarks/scale.py --submissions {args.submissions}"
        f" --items {args.items} --cores {args.cores}"
    )
    python = platform.python_version()
    machine = f"{platform.machine()}, {args.cores} cores, Python {python}"
    per_submission = args.submissions + 1
    rerun = sum(n for rule, n in late_jobs.items() if rule != "total")
    compute = work * args.submissions / args.cores
    limit = dict(new)
    limit["stage"] = new["stage"] + compute
    limit["full"] = limit["stage"] + new["rest"]

    def row(label: str, key: str) -> str:
        return (
            f"| {label} | {ours[key]:.1f} s | {old[key]:.1f} s"
            f" | {ours[key] / old[key]:.2f}x | {limit[key]:.1f} s"
            f" | {ours[key] / limit[key]:.2f}x |"
        )

    def job_row(label: str, shape: str) -> str:
        f = one_job[shape]
        return f"| {label} | {f['wall']:.2f} s | {f['cpu']:.2f} s | {f['mb']:.0f} MB |"

    two = {k: one_job["validate"][k] + one_job["score"][k] for k in ("wall", "cpu")}
    lines = [
        f"### Scale: {args.submissions} submissions x {args.items} items",
        "",
        f"Command: `{command}`  ",
        f"Machine: {machine}; commit {commit()}{bytecode_note}",
        "",
        "Old floor: two do-nothing jobs per submission (validation, scoring);"
        " new-shape floor: one per submission; both with the real jobs' inputs."
        " The last two columns set stecflow against the new-shape floor plus the"
        f" in-process work ({work:.3f} s per submission, so {compute:.1f} s for"
        f" {args.submissions} on {args.cores} cores) in its per-submission row.",
        "",
        "| measure | stecflow | old floor | ratio | new-shape floor + work | ratio |",
        "|---|---|---|---|---|---|",
        row("dry-run DAG build", "build"),
        row(f"per-submission stages ({per_submission} jobs)", "stage"),
        row(f"the rest ({jobs['total'] - per_submission} jobs)", "rest"),
        row(f"full run ({jobs['total']} jobs)", "full"),
        f"| re-run after one late submission ({rerun} jobs) | {late_s:.1f} s |"
        f" | {late_s / ours['full']:.1%} of the full run | | |",
        "",
        "One per-submission job on its own (submission 0, a fresh interpreter, the"
        " median of three runs), as the operating system measures the child"
        " process (`getrusage(RUSAGE_CHILDREN)`):",
        "",
        "| job | wall | CPU | peak memory (max RSS) |",
        "|---|---|---|---|",
        job_row("do-nothing Python job (`python -c`)", "nothing"),
        job_row("old shape: validation, reading the XML", "validate"),
        job_row("old shape: scoring, reading the XML", "score"),
        f"| old shape: both | {two['wall']:.2f} s | {two['cpu']:.2f} s | |",
        job_row("one job: validation and scoring, compact test set", "check"),
        "",
        "Every rule of the full run, from its jobs' logs (each job's own CPU time"
        " and peak memory as the operating system counts them, `getrusage`):",
        "",
        "| rule | jobs | CPU, all jobs | largest peak memory |",
        "|---|---|---|---|",
        *(
            f"| `{rule}` | {f['jobs']} | {f['cpu']:.1f} s | {f['mb']:.0f} MB |"
            for rule, f in sorted(rules.items(), key=lambda r: -r[1]["cpu"])
        ),
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if args.json:
        figures = {
            "submissions": args.submissions,
            "items": args.items,
            "cores": args.cores,
            "commit": commit(),
            "stecflow": ours,
            "old_floor": old,
            "new_floor": new,
            "limit": limit,
            "late": late_s,
            "work_per_submission": work,
            "one_job": one_job,
            "rules": rules,
        }
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    if args.record:
        with open(REPO / "benchmarks" / "README.md", "a", encoding="utf-8") as handle:
            handle.write("\n" + text)


if __name__ == "__main__":
    main()

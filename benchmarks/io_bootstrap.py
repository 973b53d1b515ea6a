"""Bootstrap intervals, reading the test set and writing TSVs against their floors.

Times, in one run on the same data (medians of ``--repeat`` runs each):

* **bootstrap**: the 1,000-resample percentile intervals of every metric on every
  subset of one system, as a scoring job computes them
  (:func:`stecflow.scoring.bootstrap.bootstrap_intervals`, on the statistics a
  real :func:`~stecflow.scoring.score.score_outputs` call passes it), against a
  numpy floor: per subset the same seeded draws turned into a counts matrix (one
  ``bincount`` per block of resamples) and one matrix product with every metric's item
  scores and every corpus metric's statistic columns at once, then the
  quantiles. The item-level metrics' intervals must agree to 1e-12 (the floor's
  single product sums in another order; ours are bit-identical to the per-metric
  computation, see tests/unit/test_bootstrap_vectorised.py).
* **reading the test set** (:func:`stecflow.data.corpus.read_items`, which also
  checks encoding, entities and depth) against lxml parsing the same file with the
  same hardened settings (no entities, no DTD, no network) and walking it into
  tuples of the same data; the data must be equal.
* **writing the item TSV** (:func:`stecflow.core.io.write_tsv` of the job's item
  rows) against ``csv.writer`` writing the same rows (each picked with
  ``map(row.get, columns)``, as item rows may lack a column); read back, the
  cells must be equal (floats to the 10 significant digits stecflow writes).
* **deflating the item TSV into a zip**: the release archive's writer
  (:func:`stecflow.release.archive._write_zip`, zlib-ng at ``DEFLATE_LEVEL``)
  against ``zipfile.ZipFile.write`` with zlib at its default level, as the
  archive was written before; read back, both entries must be the file's bytes.

Peak memory: each measured call once more in a forked child, the growth of its
resident set (``VmHWM`` minus ``VmRSS`` before the call, from /proc, the
high-water mark reset in the child first).

Usage::

    python benchmarks/io_bootstrap.py [--items 20000] [--repeat 5] [--record]

Prints a Markdown table with the machine and commit; ``--record`` appends it to
benchmarks/README.md. Exit status 1 if a result differs from its floor's.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from lxml import etree

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scoring import make_items, make_system  # noqa: E402

import stecflow.scoring.score as score_module  # noqa: E402
from stecflow.core.io import format_float, write_tsv  # noqa: E402
from stecflow.data.corpus import read_items, write_items  # noqa: E402
from stecflow.scoring.bootstrap import (  # noqa: E402
    _generic_mean,
    _rng_seed,
    bootstrap_intervals,
)

AIMS = {"bootstrap": 2.0, "read": 1.5, "tsv": 1.2, "deflate": 1.0}
RESAMPLES, SEED, CONFIDENCE = 1000, 2009, 0.95


def median_time(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def peak_growth_mb(function) -> float:
    """Peak resident-set growth of one call of *function*, in a forked child."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: measure, report, leave at once
        os.close(read)
        # The child inherits the parent's high-water mark: reset it (Linux 4.0+).
        Path("/proc/self/clear_refs").write_text("5")
        before = _status_kb("VmRSS")
        function()
        growth = max(_status_kb("VmHWM") - before, 0)
        os.write(write, str(growth).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as handle:
        text = handle.read()
    os.waitpid(pid, 0)
    return int(text or 0) / 1024


# -- bootstrap ---------------------------------------------------------------------


def scoring_inputs(items, outputs):
    """The item rows and the bootstrap's pending list of one scoring call."""
    captured = {}

    def capture(pending, resamples, seed, confidence):
        captured["pending"] = pending

    real = score_module.bootstrap_intervals
    score_module.bootstrap_intervals = capture
    try:
        item_rows, _ = score_module.score_outputs(items, outputs, None)
    finally:
        score_module.bootstrap_intervals = real
    return item_rows, captured["pending"]


def floor_columns(pending):
    """Per subset: its size and the columns the floor multiplies (item scores of
    item-level metrics, statistic columns of corpus metrics)."""
    subsets = {}
    for kind, name, indices, metric, stats, _row in pending:
        entry = subsets.setdefault((kind, name), {"n": len(indices), "columns": []})
        whole = len(stats) != len(indices)
        chosen = [stats[i] for i in indices] if whole else stats
        values = np.array(chosen, dtype=float)
        if _generic_mean(metric):
            values = values[:, :1]  # the item score (Metric.score_from_stats)
        entry["columns"].append((metric.name, _generic_mean(metric), values))
    return subsets


def floor_bootstrap(subsets):
    """The numpy floor: one counts matrix and one product per subset."""
    out = {}
    for (kind, name), entry in subsets.items():
        n = entry["n"]
        rng = np.random.default_rng(_rng_seed(SEED, f"{kind}:{name}", str(n)))
        counts = np.empty((RESAMPLES, n))
        step = max(1, (1 << 20) // n)  # rows per block: one bincount a block
        for start in range(0, RESAMPLES, step):
            rows = min(step, RESAMPLES - start)
            drawn = (
                rng.integers(0, n, size=(rows, n)) + np.arange(0, rows * n, n)[:, None]
            )
            counts[start : start + rows] = np.bincount(
                drawn.ravel(), minlength=rows * n
            ).reshape(rows, n)
        matrix = np.hstack([values for _, _, values in entry["columns"]])
        sums = counts @ matrix / n
        position = 0
        for metric, is_mean, values in entry["columns"]:
            if is_mean and not np.isnan(values).any():
                low, high = np.quantile(
                    sums[:, position], [(1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2]
                )
                out[kind, name, metric] = (float(low), float(high))
            position += values.shape[1]
    return out


def ours_bootstrap(pending):
    rows = [dict(p[5]) for p in pending]
    bootstrap_intervals(
        [(*p[:5], row) for p, row in zip(pending, rows, strict=True)],
        RESAMPLES,
        SEED,
        CONFIDENCE,
    )
    return rows


# -- reading the test set ------------------------------------------------------------

HARDENED = dict(resolve_entities=False, no_network=True, load_dtd=False)


def _words(element) -> str:
    return " ".join("".join(element.itertext()).split())


def _inner(element) -> str:
    parts = [element.text or ""]
    parts += [etree.tostring(c, encoding="unicode", with_tail=True) for c in element]
    return "".join(parts).strip()


def floor_read(path: Path):
    root = etree.parse(str(path), etree.XMLParser(**HARDENED)).getroot()
    out = []
    for trial in root.iterchildren("TRIAL"):
        entities = tuple(
            (
                e.get("ID"),
                e.get("TYPE") == "target",
                tuple(
                    (a.get("NAME"), a.get("VALUE"), a.get("TYPE"))
                    for a in e.iterchildren("ATTRIBUTE")
                ),
                e.get("IMAGE"),
            )
            for e in trial.find("DOMAIN").iterchildren("ENTITY")
        )
        references = []
        for ref in trial.iterchildren("REFERENCE"):
            words = annotated = attrs = None
            for part in ref:
                if part.tag == "WORD-STRING":
                    words = _words(part)
                elif part.tag == "ANNOTATED-WORD-STRING":
                    annotated = _inner(part)
                elif part.tag == "ATTRIBUTE-SET":
                    attrs = frozenset(
                        (a.get("NAME"), a.get("VALUE")) for a in part.iter("ATTRIBUTE")
                    )
            references.append((ref.get("ID"), words, attrs, annotated))
        out.append(
            (
                trial.get("ID"),
                trial.get("CONDITION"),
                trial.get("SUBDOMAIN"),
                entities,
                tuple(references),
            )
        )
    return out


def item_data(items):
    """Our items as the floor's tuples."""
    return [
        (
            i.id,
            i.condition,
            i.subdomain,
            tuple(
                (
                    e.id,
                    e.is_target,
                    tuple((a.name, a.value, a.kind) for a in e.attributes),
                    e.image,
                )
                for e in i.domain.entities
            ),
            tuple(
                (r.id, r.word_string, r.attribute_set, r.annotated_word_string)
                for r in i.references
            ),
        )
        for i in items
    ]


# -- writing TSVs ------------------------------------------------------------------


def floor_tsv(rows, columns, path: Path) -> None:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter="\t", lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(tuple(map(row.get, columns)) for row in rows)


def same_tsv(ours: Path, floor: Path) -> bool:
    with (
        open(ours, encoding="utf-8", newline="") as a,
        open(floor, encoding="utf-8", newline="") as b,
    ):
        left = list(csv.reader(a, delimiter="\t", quoting=csv.QUOTE_NONE))
        right = list(csv.reader(b, delimiter="\t"))
    if len(left) != len(right):
        return False
    for x, y in zip(left[1:], right[1:], strict=True):
        for p, q in zip(x, y, strict=True):
            if p != q and p != format_float(float(q)):
                return False
    return left[0] == right[0]


# -- the run ------------------------------------------------------------------------


def commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).resolve().parent,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def bootstrap_result(pending, repeat: int) -> tuple:
    subsets = floor_columns(pending)
    ours_rows = ours_bootstrap(pending)
    floor = floor_bootstrap(subsets)
    worst = max(
        abs(a - b)
        for row, (kind, name, _i, metric, *_rest) in zip(
            ours_rows, pending, strict=True
        )
        if (kind, name, metric.name) in floor
        for a, b in zip(
            (row["ci_low"], row["ci_high"]), floor[kind, name, metric.name], strict=True
        )
    )
    return timed_result(
        f"bootstrap intervals ({len(pending)} metric × subset, {RESAMPLES} resamples)",
        "bootstrap",
        lambda: ours_bootstrap(pending),
        lambda: floor_bootstrap(subsets),
        repeat,
        worst < 1e-12,
        f"largest difference {worst:.1e}",
    )


def timed_result(label, key, ours, floor, repeat: int, equal: bool, note: str):
    """One table row: median times and peak growth of *ours* and its *floor*."""
    return (
        label,
        key,
        median_time(ours, repeat),
        median_time(floor, repeat),
        peak_growth_mb(ours),
        peak_growth_mb(floor),
        equal,
        note,
    )


def read_result(items, folder: Path, repeat: int) -> tuple:
    path = folder / "testset.xml"
    write_items(items, path)
    equal = item_data(read_items(path)) == floor_read(path)
    return timed_result(
        f"reading the test set ({path.stat().st_size / 1e6:.0f} MB XML)",
        "read",
        lambda: read_items(path),
        lambda: floor_read(path),
        repeat,
        equal,
        "same items" if equal else "items differ",
    )


def tsv_result(item_rows, folder: Path, repeat: int) -> tuple:
    columns = score_module.ITEM_COLUMNS
    ours_tsv, floor_file = folder / "ours.tsv", folder / "floor.tsv"
    write_tsv(item_rows, columns, ours_tsv)
    floor_tsv(item_rows, columns, floor_file)
    equal = same_tsv(ours_tsv, floor_file)
    return timed_result(
        f"writing the item TSV ({len(item_rows):,} rows)",
        "tsv",
        lambda: write_tsv(item_rows, columns, ours_tsv),
        lambda: floor_tsv(item_rows, columns, floor_file),
        repeat,
        equal,
        "same cells" if equal else "cells differ",
    )


def deflate_result(folder: Path, repeat: int) -> tuple:
    import zipfile

    from stecflow.release.archive import _write_zip

    source = folder / "ours.tsv"
    ours_zip, floor_zip = folder / "ours.zip", folder / "floor.zip"

    def ours() -> None:
        _write_zip({"items.tsv": source}, ours_zip)

    def floor() -> None:
        with zipfile.ZipFile(floor_zip, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.write(source, "items.tsv")

    ours()
    floor()
    sizes = []
    equal = True
    for path in (ours_zip, floor_zip):
        with zipfile.ZipFile(path) as archive:
            equal &= archive.read("items.tsv") == source.read_bytes()
            sizes.append(archive.getinfo("items.tsv").compress_size / 1e6)
    return timed_result(
        f"deflating the item TSV ({source.stat().st_size / 1e6:.0f} MB) into a zip",
        "deflate",
        ours,
        floor,
        repeat,
        equal,
        f"same bytes read back; {sizes[0]:.1f} MB (zlib-ng) / {sizes[1]:.1f} MB (zlib)",
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--record", action="store_true")
    parser.add_argument(
        "--parts",
        nargs="+",
        choices=sorted(AIMS),
        default=sorted(AIMS),
        help="what to time (default: all four)",
    )
    args = parser.parse_args()
    repeat = max(args.repeat, 1)

    print(f"generating {args.items} items and scoring one system ...", file=sys.stderr)
    items = make_items(args.items)
    item_rows, pending = scoring_inputs(items, make_system(items, 1))
    item_rows = list(item_rows)  # made once: both writers get the same dicts
    results = []
    if "bootstrap" in args.parts:
        results.append(bootstrap_result(pending, repeat))
    if {"read", "tsv", "deflate"} & set(args.parts):
        with tempfile.TemporaryDirectory() as folder:
            if "read" in args.parts:
                results.append(read_result(items, Path(folder), repeat))
            if "tsv" in args.parts:
                results.append(tsv_result(item_rows, Path(folder), repeat))
            if "deflate" in args.parts:  # the item TSV written above, or now
                if "tsv" not in args.parts:
                    write_tsv(
                        item_rows, score_module.ITEM_COLUMNS, Path(folder) / "ours.tsv"
                    )
                results.append(deflate_result(Path(folder), repeat))

    today = datetime.date.today().isoformat()
    parts = "" if set(args.parts) == set(AIMS) else f" --parts {' '.join(args.parts)}"
    lines = [
        f"### {today}: bootstrap, test-set reading, TSV writing and deflating,"
        f" {args.items:,} items",
        "",
        f"Command: `python benchmarks/io_bootstrap.py --items {args.items}"
        f" --repeat {repeat}{parts}`  ",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python"
        f" {platform.python_version()}; commit {commit()}; medians of {repeat} runs",
        "",
        "| what | stecflow | floor | ratio | aim | met | peak growth"
        " (stecflow / floor) | equal |",
        "|---|---|---|---|---|---|---|---|",
    ]
    failed = False
    for label, key, ours, theirs, ours_mb, floor_mb, equal, note in results:
        ratio = ours / theirs
        failed |= not equal
        lines.append(
            f"| {label} | {ours:.2f} s | {theirs:.2f} s | {ratio:.2f}x"
            f" | ≤ {AIMS[key]}x | {'yes' if ratio <= AIMS[key] else 'no'}"
            f" | {ours_mb:.0f} / {floor_mb:.0f} MB | {note} |"
        )
    table = "\n".join(lines) + "\n"
    print(table)
    if args.record:
        readme = Path(__file__).resolve().parent / "README.md"
        with open(readme, "a", encoding="utf-8") as handle:
            handle.write("\n" + table)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

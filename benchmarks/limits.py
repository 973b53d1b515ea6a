"""Submissions at and just over the size limits: time and peak memory.

Builds, from the demo campaign's ``organisers/incremental`` submission (112 items),

* one submission **at** every limit it can reach while staying valid: each
  WORD-STRING exactly ``max_word_string_chars`` long and ``outputs.xml`` padded
  with a comment to exactly ``max_outputs_mib``; it is validated and then scored
  with the demo's metrics, and must be accepted;
* one submission **just over** each limit (one byte, one TRIAL, one ATTRIBUTE,
  one character too many); each must be rejected.

Each step runs in a forked child, so its time and peak memory (maximum resident
set size, interpreter and libraries included) are its own. Run from the
repository::

    python benchmarks/limits.py            # print the table
    python benchmarks/limits.py --record   # also append it to benchmarks/README.md
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
BASE = REPO / "submissions" / "organisers" / "incremental"
TESTSET = REPO / "resources" / "demo" / "test.xml"
TASKS = ["attribute_selection", "realisation", "end_to_end"]


def in_child(work: Callable[[], Any]) -> dict[str, Any]:
    """Run *work* in a forked child: its result, seconds and peak RSS in MB."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        start = time.perf_counter()
        result = work()
        payload = {
            "result": result,
            "seconds": time.perf_counter() - start,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        }
        with os.fdopen(write_end, "w") as out:
            out.write(json.dumps(payload))
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        text = pipe.read()
    os.waitpid(pid, 0)
    return json.loads(text)


def demo_config() -> dict[str, Any]:
    """The demo config, with the schema's defaults filled in."""
    from snakemake.utils import validate

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    validate(config, str(REPO / "workflow" / "schemas" / "config.schema.yaml"))
    return config


def at_limit(base: bytes, limits: Any) -> bytes:
    """Every WORD-STRING at the length limit, the file padded to the size limit."""
    words = ("word " * limits.max_word_string_chars)[: limits.max_word_string_chars]
    words = words.rstrip() + "x" * (limits.max_word_string_chars - len(words.rstrip()))
    data = re.sub(
        rb"<WORD-STRING>[^<]*</WORD-STRING>",
        b"<WORD-STRING>" + words.encode() + b"</WORD-STRING>",
        base,
    )
    # padding as comments of 1 MB each (libxml2 refuses one text node over 10 MB)
    padding = limits.outputs_bytes - len(data)
    chunk = 2**20
    comments = []
    while padding > 0:
        size = min(chunk, padding)
        comments.append(b"<!--" + b"p" * max(size - 8, 0) + b"-->\n")
        padding -= len(comments[-1])
    pad = b"".join(comments)[: limits.outputs_bytes - len(data)]
    return data.replace(b"<OUTPUTS>", pad + b"<OUTPUTS>", 1)


def over_limits(base: bytes, limits: Any) -> dict[str, bytes]:
    """One submission just over each limit."""
    first = base.index(b"<ATTRIBUTE NAME=")
    extra = b"".join(
        b'<ATTRIBUTE NAME="a%d" VALUE="v"/>' % i
        for i in range(limits.max_attributes_per_set)
    )
    trial = b'<TRIAL ID="x"/>\n'
    return {
        "size + 1 byte": at_limit(base, limits) + b"\n",
        "TRIALs + 1": base.replace(
            b"</OUTPUTS>",
            trial * (limits.max_trials - base.count(b"<TRIAL ") + 1) + b"</OUTPUTS>",
        ),
        "ATTRIBUTEs per set + 1": base[:first] + extra + base[first:],
        "WORD-STRING + 1 character": re.sub(
            rb"<WORD-STRING>[^<]*</WORD-STRING>",
            b"<WORD-STRING>"
            + b"w" * (limits.max_word_string_chars + 1)
            + b"</WORD-STRING>",
            base,
            count=1,
        ),
    }


def measure() -> list[dict[str, Any]]:
    from stecflow.data.corpus import read_items
    from stecflow.scoring.score import score_submission
    from stecflow.submissions.report import write_validation
    from stecflow.submissions.validation import validate_submission
    from stecflow.tasks.base import Limits

    limits = Limits()
    items = read_items(TESTSET)
    base = (BASE / "outputs.xml").read_bytes()
    config = demo_config()
    scoring = config["scoring"]
    properties = config["submissions"]["properties"]  # the demo's, as its systems give
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "organisers" / "incremental"
        folder.mkdir(parents=True)
        (folder / "system.yaml").write_bytes((BASE / "system.yaml").read_bytes())

        def validate() -> dict[str, Any]:
            record = validate_submission(
                folder,
                items,
                team="organisers",
                system="incremental",
                campaign_tasks=TASKS,
                limits=limits,
                properties=properties,
            )
            write_validation(record, Path(tmp) / "v.json", Path(tmp) / "v.md")
            return {
                "status": record["status"],
                "codes": [e["code"] for e in record["errors"]],
            }

        def score() -> dict[str, Any]:
            summary = score_submission(
                Path(tmp) / "v.json",
                folder,
                TESTSET,
                scoring,
                Path(tmp) / "items.tsv",
                Path(tmp) / "summary.json",
            )
            return {"status": summary["status"], "codes": []}

        data = at_limit(base, limits)
        (folder / "outputs.xml").write_bytes(data)
        for step, work in (("validate", validate), ("score", score)):
            outcome = in_child(work)
            rows.append(
                {"case": "at every limit", "step": step, "bytes": len(data), **outcome}
            )
        for case, data in over_limits(base, limits).items():
            (folder / "outputs.xml").write_bytes(data)
            outcome = in_child(validate)
            rows.append(
                {"case": case, "step": "validate", "bytes": len(data), **outcome}
            )
    return rows


def markdown(rows: list[dict[str, Any]], elapsed: float) -> str:
    lines = [
        f"### {time.strftime('%Y-%m-%d')}: submissions at and over the default limits",
        "",
        f"`python benchmarks/limits.py` on {platform.machine()}, Python"
        f" {platform.python_version()}, {os.cpu_count()} cores; {elapsed:.0f} s in all."
        " Demo test set (112 items); defaults: 16 MiB outputs.xml, 50,000 TRIALs,"
        " 100 ATTRIBUTEs per set, 5,000 characters per WORD-STRING.",
        "",
        "| case | step | outputs.xml | outcome | time | peak memory |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        result = row["result"]
        outcome = result["status"] + (
            f" ({', '.join(sorted(set(result['codes'])))})" if result["codes"] else ""
        )
        lines.append(
            f"| {row['case']} | {row['step']} | {row['bytes']:,} bytes | {outcome} |"
            f" {row['seconds'] * 1000:,.0f} ms | {row['peak_mb']:.0f} MB |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--record", action="store_true", help="append to benchmarks/README.md"
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows = measure()
    text = markdown(rows, time.perf_counter() - start)
    print(text)
    if args.record:
        with open(REPO / "benchmarks" / "README.md", "a", encoding="utf-8") as handle:
            handle.write("\n" + text)
    at = [r for r in rows if r["case"] == "at every limit"]
    over = [r for r in rows if r["case"] != "at every limit"]
    ok = all(r["result"]["status"] in ("accepted", "scored") for r in at) and all(
        r["result"]["status"] == "rejected" for r in over
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

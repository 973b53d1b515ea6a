"""The plausibility kind's code by role, built on stecflow's shared machinery.

``stimuli`` builds the text family's study document (the input and one text per
trial, :func:`stecflow.studies.text.make_text_study_files`) and gives it the
kind's own question and answer; ``merge`` places every exported answer on its
design trial and writes the stage's five files; ``simulate`` answers as a
participant would; ``rated`` and ``report`` say what evaluators judge and show
the share of Yes per system.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

QUESTION = "Could this text have been written for this input?"
#: The criterion the page and the agreement stage know the question by.
CRITERION = {"id": "plausible", "question": QUESTION}
ANSWER_COLUMNS = ("plausible",)
JUDGMENT_COLUMNS = (
    "subject",
    "session",
    "list",
    "order",
    "item",
    "system",
    "plausible",
    "rt_ms",
    "in_analysis",
    "simulated",
)


def stimuli(spec, design_path, testset_path, practice_path, submission_dirs,
            images_dir, web_dir, dmdx_dir, tasks) -> dict[str, Any]:  # fmt: skip
    """The web experiment: the text family's document, the kind's question."""
    from pathlib import Path

    from stecflow.studies.bundle import study_files, write_study
    from stecflow.studies.settings import RESPONSE_COLUMNS
    from stecflow.studies.setup import make_design, study_outputs
    from stecflow.studies.text import make_text_study_files
    from stecflow.tasks.registry import read_testset

    design = make_design(spec, testset_path, practice_path)  # as design.tsv has it
    items = read_testset(testset_path)
    bundle = make_text_study_files(
        design,
        items,
        study_outputs(spec, items, submission_dirs, tasks),
        task="text_rating",  # the family's one-text trials
        criteria=[{**CRITERION, "scale": "likert", "points": 2}],
        settings={"title": spec.get("title") or spec["id"]},
    )
    document = {
        **bundle.document,
        "task": spec["task"],
        "columns": [*RESPONSE_COLUMNS, *ANSWER_COLUMNS],
        "criteria": [CRITERION],
        "texts": {
            **bundle.document["texts"],
            "instructions": [
                "Read the input and the text, then answer the question: Yes or No."
            ],
        },
    }
    files = study_files(document, {}, {})
    write_study(files, web_dir, overwrite=True)
    Path(dmdx_dir).mkdir(parents=True, exist_ok=True)
    (Path(dmdx_dir) / "README.txt").write_text("No DMDX files.\n", encoding="utf-8")
    return files.summary()


def _design(path) -> dict[tuple[str, int], dict[str, str]]:
    from stecflow.core.io import read_tsv

    return {(r["list"], int(r["order"])): r for r in read_tsv(path)}


def merge(job) -> None:
    """The stage's five files from the exported answers."""
    import statistics

    from stecflow.core.io import format_float, read_tsv
    from stecflow.judgments.exclusions import write_audit
    from stecflow.judgments.pipeline import release_key, write_merged

    study = str(job.spec["id"])
    design = _design(job.design)
    table = []
    rows_read = 0
    for path in sorted(str(p) for p in job.responses):
        for row in read_tsv(path):
            rows_read += 1
            trial = design.get((row["list"], int(row["order"])))
            if row["study"] != study or trial is None or trial["practice"] == "true":
                continue
            answered = row["plausible"] in ("yes", "no")  # kept either way
            table.append(
                {
                    "subject": row["participant"] or row["session"],
                    "session": row["session"],
                    "list": row["list"],
                    "order": int(row["order"]),
                    "item": trial["item"],
                    "system": trial["system"],
                    "plausible": int(row["plausible"] == "yes") if answered else "",
                    "rt_ms": row["rt_ms"],
                    "in_analysis": "true" if answered else "false",
                    "simulated": "false",
                }
            )
    table.sort(key=lambda r: (r["subject"], r["session"], r["order"]))
    measures = []
    for system in sorted({r["system"] for r in table}):
        values = [
            r["plausible"]
            for r in table
            if r["system"] == system and r["in_analysis"] == "true"
        ]
        measures.append(
            {
                "study": study,
                "task": job.spec["task"],
                "system": system,
                "n": len(values),
                "plausible": format_float(statistics.fmean(values)) if values else "",
            }
        )
    write_audit([], job.exclusions)
    summary = {
        "study": study,
        "task": job.spec["task"],
        "simulated": False,
        "awaiting_responses": not job.responses,
        "counts": {  # the counts the report's study line reads
            "rows": rows_read,
            "trials": len(table),
            "in_analysis": sum(r["in_analysis"] == "true" for r in table),
            "subjects": len({r["subject"] for r in table}),
            "sessions": len({r["session"] for r in table}),
            "lists_in_design": len({key[0] for key in design}),
            "lists_run": len({r["list"] for r in table}),
        },
        "measures": measures,
    }
    write_merged(
        table,
        JUDGMENT_COLUMNS,
        [],
        measures,
        ("study", "task", "system", "n", "plausible"),
        summary,
        release_key(study, job.pseudonym_key),
        judgments=job.judgments,
        quality=job.quality,
        measures_path=job.measures,
        summary_path=job.summary,
    )


def simulate(job) -> None:
    """Every list answered once: Yes for three texts in four."""
    from stecflow.core.io import write_tsv
    from stecflow.studies.settings import RESPONSE_COLUMNS

    rng = random.Random(job.seed)
    rows = []
    for (list_id, order), trial in sorted(_design(job.design).items()):
        rows.append(
            {
                **dict.fromkeys(RESPONSE_COLUMNS, ""),
                "study": job.spec["id"],
                "task": job.spec["task"],
                "session": f"sim-{list_id}",
                "participant": f"sim-{list_id}",
                "session_status": "completed",
                "list": list_id,
                "order": order,
                "item": trial["item"],
                "system": trial["system"],
                "practice": trial["practice"],
                "filler": trial["filler"],
                "rt_ms": "2000",
                "plausible": "yes" if rng.random() < 0.75 else "no",
            }
        )
    write_tsv(rows, (*RESPONSE_COLUMNS, *ANSWER_COLUMNS), job.responses)


def rated(study: Mapping[str, Any]) -> list[Any]:
    """What its evaluators judge: one nominal answer per text."""
    from stecflow.studies.criteria import Criterion

    return [Criterion("plausible", "nominal", "plausible")]


def report(ctx, study, kind) -> list[Any]:
    """Its results in the report: the share of Yes per system."""
    from stecflow.report.context import NAME_COLUMN, named_rows
    from stecflow.report.formatting import fixed, parse_float
    from stecflow.report.tables import RANK_COLUMN, Cell, Column, Row, Table

    rows = sorted(
        study.measures,
        key=lambda r: (-(parse_float(r.get("plausible")) or 0), r.get("system", "")),
    )
    systems = [r.get("system", "") for r in rows]
    shares = [parse_float(r.get("plausible")) for r in rows]
    names = named_rows(ctx, systems, shares, True)
    table = Table(
        f"human-{study.study}",
        f"Plausibility, study {study.study}: the share of texts judged plausible"
        " per system.",
        [
            RANK_COLUMN,
            NAME_COLUMN,
            Column("n", "Texts"),
            Column("plausible", "Yes", better="higher"),
        ],
        [
            Row((*cells, Cell(str(r.get("n", ""))), Cell(fixed(share))))
            for r, cells, share in zip(rows, names, shares, strict=True)
        ],
        [f"“{QUESTION}”"],
    )
    return [ctx.table(table)]

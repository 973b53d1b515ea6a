"""The simulated responses of a text study: its design answered and written.

:func:`simulate_text_study` (rule ``simulate_responses``): the design answered
by :func:`stecflow.judgments.text_sim.simulate_text_answers`, written as a
response file the importer reads, every row ``simulated``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from stecflow.judgments._common import JudgmentsError, read_text
from stecflow.judgments.importers.text import criteria_from_config
from stecflow.judgments.text_join import read_text_design
from stecflow.studykinds.registry import paired

__all__ = ["simulate_text_study"]

# the log lines keep the name they had when this was part of text_study
logger = logging.getLogger("stecflow.judgments.text_study")


def _read_jsonl(path: str | Path, what: str) -> list[tuple[int, dict[str, Any]]]:
    import json

    source = str(path)
    out = []
    for n, line in enumerate(read_text(path).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as exc:
            raise JudgmentsError(
                f"not JSON ({exc}); expected one {what} object per line",
                file=source,
                line=n,
            ) from None
        if not isinstance(value, dict) or not isinstance(value.get("id"), str):
            raise JudgmentsError(
                f"expected a JSON object with a string id ({what})",
                file=source,
                line=n,
                field="id",
            )
        out.append((n, value))
    return out


def _outputs(
    outputs: Mapping[str, str | Path | Mapping[str, str]],
) -> dict[tuple[str, str], str | None]:
    found: dict[tuple[str, str], str | None] = {}
    for system, value in outputs.items():
        if isinstance(value, Mapping):
            for item, text in value.items():
                found[(system, str(item))] = text
            continue
        for n, entry in _read_jsonl(value, "output"):
            text = entry.get("output")
            if text is not None and not isinstance(text, str):
                raise JudgmentsError(
                    "output must be a string", file=str(value), line=n, field="output"
                )
            found[(system, entry["id"])] = text
    return found


def simulate_text_study(
    design_path: str | Path,
    testset_path: str | Path,
    outputs: Mapping[str, str | Path | Mapping[str, str]],
    out_path: str | Path,
    *,
    study: Mapping[str, Any],
    seed: int,
    settings: Mapping[str, Any] | None = None,
    inputs: Mapping[str, Any] | None = None,
    qualities: Mapping[tuple[str, str], Any] | None = None,
) -> int:
    """Answer a text study's design with simulated evaluators; write a response file.

    One simulated evaluator per list (``sim-<list>``, participant and session)
    answers the list's test trials
    (:func:`stecflow.judgments.text_sim.simulate_text_answers`). The file has the
    columns of a text export
    (:func:`~stecflow.judgments.importers.text.text_response_columns`) and then
    ``simulated`` (true in every row); ``rt_ms`` holds the answer time and
    ``session_status`` is ``completed``.

    Parameters
    ----------
    design_path : path
        ``results/studies/<study>/design.tsv``.
    testset_path : path
        The prepared test set, ``results/data/testset.jsonl`` (``id`` and
        ``input`` per line).
    outputs : mapping
        System (as the design names it) -> its outputs: a JSON Lines file of
        ``{"id", "output"}`` or a mapping item ID -> text.
    out_path : path
        The TSV to write (``results/judgments/simulated/<study>.tsv``).
    study : mapping
        The study's config entry (``id``, ``task``, ``criteria``).
    seed : int
        The study seed.
    settings : mapping, optional
        The config's ``judgments.simulation``; the keys of
        :class:`~stecflow.judgments.text_sim.TextSimulationSettings` are used.
    inputs : mapping, optional
        Item ID -> the input the latent quality is computed against, instead
        of the ``input`` of each line of *testset_path* (a REG test set is
        not JSON Lines: the caller gives them).
    qualities : mapping, optional
        (system, item ID) -> the output's latent quality
        (:class:`~stecflow.judgments.text_sim.OutputQuality`), given by the
        caller instead of the text model's (a REG study's descriptions).

    Returns
    -------
    int
        The number of rows written.
    """
    from stecflow.core.io import write_tsv
    from stecflow.judgments.importers.text import text_response_columns
    from stecflow.judgments.text_sim import (
        TextSimulationSettings,
        simulate_text_answers,
    )

    task = str(study.get("task"))
    study_id = str(study.get("id") or "")
    criteria = criteria_from_config(study.get("criteria"), task)
    design = [d for d in read_text_design(design_path, task) if not d["practice"]]
    if inputs is None:
        inputs = {e["id"]: e.get("input") for _, e in _read_jsonl(testset_path, "item")}
    answers = simulate_text_answers(
        design,
        task=task,
        criteria=criteria,
        inputs=inputs,
        outputs=_outputs(outputs),
        seed=seed,
        study=study_id,
        settings=TextSimulationSettings.from_mapping(settings),
        qualities=qualities,
    )
    rows = []
    for a in answers:
        row = {
            "study": study_id,
            "task": task,
            "session": a["subject"],
            "participant": a["subject"],
            "session_status": "completed",
            "list": a["list"],
            "order": a["order"],
            "item": a["item"],
            "practice": False,
            "filler": False,
            "rt_ms": a["time_ms"],
            "simulated": True,
        }
        if not paired(task):
            row["system"] = a["system"]
            row.update({f"rating_{k}": v for k, v in a["ratings"].items()})
        else:
            row.update(
                {
                    k: a[k]
                    for k in (
                        "system_left",
                        "system_right",
                        "preferred",
                        "chosen_system",
                    )
                }
            )
        rows.append(row)
    rows.sort(key=lambda r: (r["list"], r["order"]))
    write_tsv(rows, (*text_response_columns(task, criteria), "simulated"), out_path)
    logger.info("study %s: %d SIMULATED %s trial(s) written", study_id, len(rows), task)
    return len(rows)

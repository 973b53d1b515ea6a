"""The simulated responses of a situated study: its design answered and written.

:func:`simulate_situated_study` (rule ``simulate_responses``): the design
answered by :func:`.simulate.simulate_situated`, written
as a response file the importer reads, every row ``simulated``.

May import: :mod:`stecflow.data` and pandas inside functions.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from stecflow.studykinds.situated_identification.merge_design import (
    TASK,
    drop_practice,
    read_design_settings,
    read_situated_design,
)

__all__ = ["simulate_situated_study"]

# the log lines keep the name they had when this was part of the merge module
logger = logging.getLogger("stecflow.studykinds.situated_identification.merge")


def simulate_situated_study(
    design_path: str | Path,
    testset_path: str | Path,
    out_path: str | Path,
    *,
    seed: int,
    settings: Mapping[str, Any] | None = None,
) -> int:
    """Answer a situated design with simulated evaluators and write a response file.

    One simulated evaluator per list (``sim-<list>``, as participant and
    session) answers the list's trials
    (:func:`.simulate.simulate_situated`). The file has
    the columns of a situated export
    (:func:`.import_server.situated_response_columns`)
    and then ``simulated`` (true in every row) and ``corrected`` (a declared
    mis-click whose answer was corrected); ``time_ms``,
    ``identification_time_ms`` and ``rt_ms`` hold the identification time,
    ``plays`` is ``replays + 1``, ``answer_via`` is ``board`` or ``dont_know``.

    Parameters
    ----------
    design_path : path
        ``results/studies/<study>/design.tsv``; a ``design.json`` beside it
        gives ``max_context_ms`` (default 30000).
    testset_path : path
        The corpus folder or ``results/data/testset.json``
        (:func:`stecflow.data.dialogue.read_sessions`).
    out_path : path
        The TSV to write (``results/judgments/simulated/<study>.tsv``).
    seed : int
        The study seed.
    settings : mapping, optional
        The config's ``judgments.simulation`` mapping; the keys
        :class:`.simulate.SituatedSimulationSettings`
        has are used (the REG simulator's keys and ``seed`` are left to it).

    Returns
    -------
    int
        The number of rows written.
    """
    from dataclasses import fields

    from stecflow.core.io import write_tsv
    from stecflow.data.dialogue import read_sessions
    from stecflow.studykinds.situated_identification.import_server import (
        situated_response_columns,
    )
    from stecflow.studykinds.situated_identification.simulate import (
        SituatedSimulationSettings,
        simulate_situated,
    )

    design = read_situated_design(design_path)
    beside = Path(design_path).with_name("design.json")
    design_json = read_design_settings(beside) if beside.is_file() else {}
    max_context_ms = int(design_json.get("max_context_ms") or 30_000)
    known = {f.name for f in fields(SituatedSimulationSettings)}
    config = SituatedSimulationSettings.from_mapping(
        {k: v for k, v in dict(settings or {}).items() if k in known}
    )
    sessions = read_sessions(testset_path)
    dialogue_of = {e.id: s.id for s in sessions for _, e in s.expressions()}
    test = drop_practice(design)
    studies = sorted({s for s in test["study"] if s})
    study = studies[0] if len(studies) == 1 else "study"
    answers = simulate_situated(
        test,
        sessions,
        seed=seed,
        settings=config,
        study=study,
        max_context_ms=max_context_ms,
    )
    by_key = {(r["list"], r["item"]): r for r in test.to_dict("records")}
    rows = []
    for a in answers.to_dict("records"):
        list_id = str(a["subject"])[len("sim-") :]
        d = by_key[(list_id, a["instance"])]
        time_ms = a["time_ms"]
        rows.append(
            {
                "study": study,
                "task": TASK,
                "variant": None,
                "session": a["subject"],
                "participant": a["subject"],
                "session_status": a["session_status"],
                "list": list_id,
                "order": int(d["order"]),
                "item": a["instance"],
                "system": d.get("system"),
                "subdomain": d.get("subdomain") or None,
                "practice": False,
                "filler": False,
                "chosen_entity": a["chosen"],
                "target_entity": a["target"],
                "correct": bool(a["correct"]),
                "cant_tell": bool(a["cant_tell"]),
                "timeout": False,
                "identification_time_ms": time_ms,
                "rt_ms": time_ms,
                "instance": a["instance"],
                "dialogue": dialogue_of.get(str(a["instance"])),
                "expression": a["instance"],
                "time_ms": time_ms,
                "plays": int(a["replays"]) + 1,
                "replays": int(a["replays"]),
                "answer_via": "dont_know" if a["cant_tell"] else "board",
                "simulated": True,
                "corrected": bool(a["corrected"]),
            }
        )
    rows.sort(key=lambda r: (r["list"], r["order"]))
    columns = (*situated_response_columns(), "simulated", "corrected")
    write_tsv(rows, columns, out_path)
    logger.info("study %s: %d SIMULATED situated trial(s) written", study, len(rows))
    return len(rows)

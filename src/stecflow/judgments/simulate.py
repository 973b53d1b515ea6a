"""Simulated participants, so that a demo campaign runs end to end with no humans.

The simulator answers every trial of a study design the way a participant of the
web experiment would, and writes the answers in the collection server's export
format (:data:`stecflow.studies.settings.RESPONSE_COLUMNS`) plus a ``simulated`` column
that is always ``true``. The file goes through the same importer and merge as real
data (:func:`stecflow.judgments.importers.read_response_table` keeps the label),
so every downstream table and the report can mark simulated judgments.

:func:`simulate_responses` builds the trials from a design and the systems'
outputs, :func:`simulate_study` from a built study's key ``stimuli-key.json`` (the
descriptions exactly as the web experiment shows them) and writes the answers
(:func:`write_simulated_responses`). How a participant answers is the model of
:mod:`stecflow.judgments.participant` (documented for organisers in
``docs/judgments.md``); what a description says is read by
:mod:`stecflow.judgments.lexicon`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stecflow.judgments._common import JudgmentsError, plain
from stecflow.judgments.participant import SimulationSettings, Trial, simulate_trials
from stecflow.studies.blinding import KEY_FILE
from stecflow.studies.settings import RESPONSE_COLUMNS
from stecflow.studykinds.base import SimulationJob
from stecflow.studykinds.registry import get, in_family

if TYPE_CHECKING:  # pragma: no cover
    from stecflow.data.model import Item

__all__ = [
    "SIMULATED_COLUMNS",
    "simulate_job",
    "simulate_responses",
    "simulate_study",
    "write_simulated_responses",
]

#: Columns of a simulated response file: the server's export, then ``simulated``.
SIMULATED_COLUMNS = (*RESPONSE_COLUMNS, "simulated")


def _output_parts(value: Any) -> tuple[str | None, frozenset[tuple[str, str]] | None]:
    if value is None:
        return None, None
    if isinstance(value, str):
        return value, None
    if isinstance(value, Mapping):
        words, attrs = value.get("word_string"), value.get("attribute_set")
    else:
        words = getattr(value, "word_string", None)
        attrs = getattr(value, "attribute_set", None)
    return words, (frozenset(attrs) if attrs is not None else None)


def _items_by_id(items: Iterable[Item]) -> dict[str, Item]:
    out: dict[str, Item] = {}
    for item in items:
        out.setdefault(item.id, item)
    return out


def simulate_responses(
    design: Any,
    items: Iterable[Item],
    outputs_by_system: Mapping[str, Mapping[str, Any]],
    *,
    task: str,
    seed: int,
    variant: str | None = None,
    settings: SimulationSettings | Mapping[str, Any] | None = None,
    study: str | None = None,
    presentation: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Simulate the answers of participants to every list of a design.

    Parameters
    ----------
    design : Design or DataFrame
        The study design (:data:`stecflow.studies.designs.TRIAL_COLUMNS`).
    items : iterable of Item
        Test and practice items (domains, references).
    outputs_by_system : mapping
        System ID -> {item ID -> output}: a word string, an
        :class:`~stecflow.data.model.Output` or a mapping with ``word_string`` and
        ``attribute_set``. A practice trial without a system (or output) shows
        the item's first human reference, as the web experiment does.
    task : {"rating", "identification"}
        The experiment.
    seed : int
        Seed of every draw.
    variant : {"together", "read_first", "spoken"}, optional
        Identification timing (default ``together``).
    settings : SimulationSettings or mapping, optional
        Model parameters.
    study : str, optional
        Study ID (default: the design's ``study`` column).
    presentation : mapping, optional
        The study's presentation settings
        (:class:`stecflow.studies.settings.StudySettings`
        keys ``timeout_ms``, ``cant_tell``, ``delay_ms``, ``speech_wpm``).

    Returns
    -------
    list of dict
        Rows of :data:`SIMULATED_COLUMNS` sorted by list, session and order
        (``simulated`` is True in every row).

    Raises
    ------
    JudgmentsError
        Unknown task, or a test trial whose system has no output for its item.
    """
    from stecflow.judgments.design import design_frame
    from stecflow.tasks.reg.realiser import realise

    if task not in in_family("grid"):
        raise JudgmentsError(
            f"{task!r} is not {' or '.join(in_family('grid'))}", field="task"
        )
    if variant is None:  # the kind's default variant (none for a rating)
        variant = get(task).default_variant
    frame = design_frame(design)
    by_id = _items_by_id(items)
    if study is None:
        studies = sorted({s for s in frame.get("study", []) if s})
        study = studies[0] if studies else "study"
    trials: dict[str, list[Trial]] = {}
    for raw in frame.to_dict("records"):
        row = {k: plain(v) for k, v in raw.items()}
        item = by_id.get(row["item"])
        system = row.get("system")
        words, attrs = _output_parts(
            outputs_by_system.get(system, {}).get(row["item"]) if system else None
        )
        if words is None and attrs is not None:
            words = realise(attrs)
        if words is None:
            if not row["practice"] and system:
                raise JudgmentsError(
                    f"system {system} has no output for item {row['item']}",
                    field="outputs_by_system",
                )
            reference = item.references[0] if item and item.references else None
            words = reference.word_string if reference else ""
            attrs = reference.attribute_set if reference else None
        target = item.domain.target.id if item is not None else None
        trials.setdefault(row["list"], []).append(
            Trial(
                list=row["list"],
                order=int(row["order"]),
                item=row["item"],
                system=system,
                subdomain=row.get("subdomain") or (item.subdomain if item else None),
                practice=bool(row["practice"]),
                filler=bool(row["filler"]),
                description=words or "",
                attributes=attrs,
                target=target,
            )
        )
    return simulate_trials(
        trials,
        by_id,
        task=task,
        variant=variant,
        seed=seed,
        settings=settings,
        study=study,
        presentation=presentation or {},
    )


def simulate_study(
    stimuli_path: str | Path,
    items_paths: str | Path | Sequence[str | Path],
    out_path: str | Path,
    *,
    seed: int,
    settings: SimulationSettings | Mapping[str, Any] | None = None,
) -> int:
    """Simulate a built study from its key and write the answers.

    The descriptions are exactly those the web experiment shows (the whole study
    document of :func:`stecflow.studies.stimuli.make_study_files`, as the study's
    key ``stimuli-key.json`` keeps it: the page's own files hold no list), read
    from their words; the items give the domains and references.

    Parameters
    ----------
    stimuli_path : path
        ``results/studies/<study>/stimuli-key.json``, or the study folder or its
        ``web`` folder (the key is beside it).
    items_paths : path or sequence of paths
        Test set (and practice items' corpus) in stecflow's XML.
    out_path : path
        The TSV to write (:func:`write_simulated_responses`).
    seed : int
        Seed of every draw.
    settings : SimulationSettings or mapping, optional
        Model parameters.

    Returns
    -------
    int
        Rows written.
    """
    from stecflow.data.corpus import read_items

    path = Path(stimuli_path)
    if path.is_dir():
        inside = [path / KEY_FILE, path.parent / KEY_FILE]
        path = next((p for p in inside if p.is_file()), inside[0])
    source = str(path)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise JudgmentsError(
            f"cannot read the study document ({exc})", file=source
        ) from None
    for key in ("study", "task", "lists", "settings"):
        if key not in document:
            raise JudgmentsError(
                f"the study document has no {key!r}", file=source, field=key
            )
    paths = [items_paths] if isinstance(items_paths, str | Path) else items_paths
    items: dict[str, Item] = {}
    for name in sorted(str(p) for p in paths):
        for item in read_items(name):
            items.setdefault(item.id, item)
    trials: dict[str, list[Trial]] = {}
    for lst in document["lists"]:
        for t in lst["trials"]:
            trials.setdefault(lst["list"], []).append(
                Trial(
                    list=lst["list"],
                    order=int(t["order"]),
                    item=t["item"],
                    system=t.get("system"),
                    subdomain=t.get("subdomain"),
                    practice=bool(t.get("practice")),
                    filler=bool(t.get("filler")),
                    description=t.get("description") or "",
                    attributes=None,
                    target=t.get("target"),
                )
            )
    rows = simulate_trials(
        trials,
        items,
        task=document["task"],
        variant=document.get("variant"),
        seed=seed,
        settings=settings,
        study=document["study"],
        presentation=document["settings"],
    )
    write_simulated_responses(rows, out_path)
    return len(rows)


def write_simulated_responses(
    rows: Iterable[Mapping[str, Any]], path: str | Path
) -> None:
    """Write simulated answers as the server's export plus ``simulated``.

    Columns: :data:`stecflow.studies.settings.RESPONSE_COLUMNS` then ``simulated``; rows
    sorted by list, session and order (deterministic bytes).
    """
    from stecflow.core.io import write_tsv

    ordered = sorted(
        ({k: plain(v) for k, v in row.items()} for row in rows),
        key=lambda r: (str(r.get("list")), str(r.get("session")), int(r["order"])),
    )
    write_tsv(ordered, SIMULATED_COLUMNS, path)


def simulate_job(job: SimulationJob) -> None:
    """The grid kinds' ``simulate`` hook: :func:`simulate_study` on the study's
    key and items (test set and practice)."""
    simulate_study(
        stimuli_path=job.key,
        items_paths=[job.testset, *job.practice],
        out_path=job.responses,
        seed=job.seed,
        settings=job.settings,
    )

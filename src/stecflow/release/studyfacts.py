"""What the datasheet says of each study beyond its design: what was collected,
the texts its page showed and its power analysis, read from the study's files.

:func:`datasheet_studies` gives the studies as
:func:`stecflow.release.heds.datasheet` reads them: each study's design
settings with its title, :func:`collected_counts`, :func:`study_texts` and
:func:`power_results`, and the questionnaire counts and consent check that the
packing (:mod:`stecflow.release.archive`) made.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.core.io import read_json, read_tsv

__all__ = [
    "collected_counts",
    "datasheet_studies",
    "power_results",
    "study_speech",
    "study_texts",
]


def _true(value: Any) -> bool:
    return str(value).strip().lower() in {"1", "true", "yes"}


def collected_counts(
    judgments: str | Path, exclusions: str | Path | None = None
) -> dict[str, Any]:
    """What was collected in one study, from its judgments table (and the
    exclusions table ``judgments/exclusions/<study>.tsv`` when there is one).

    Test trials are rows that are neither practice nor fillers (``controls``
    counts the control trials among them: a ``control`` kind set); participants are
    counted by their ID, else their subject, else their session (a study without
    participant IDs); sessions when not empty; ``lists`` maps each list run to its
    number of test trials.
    """
    rows = read_tsv(judgments)
    test = [
        r for r in rows if not _true(r.get("practice")) and not _true(r.get("filler"))
    ]
    lists: dict[str, int] = {}
    for row in test:
        lists[row.get("list") or ""] = lists.get(row.get("list") or "", 0) + 1
    counts: dict[str, Any] = {
        "rows": len(rows),
        "trials": len(test),
        "practice": sum(_true(r.get("practice")) for r in rows),
        # attention checks among the test trials (the design's system CONTROL)
        "controls": sum(1 for r in test if (r.get("control") or "").strip()),
        "fillers": sum(
            _true(r.get("filler")) and not _true(r.get("practice")) for r in rows
        ),
        # who answered: the participant ID, else the subject, else the session
        "participants": len(
            {
                r.get("participant") or r.get("subject") or r.get("session")
                for r in rows
                if r.get("participant") or r.get("subject") or r.get("session")
            }
        ),
        "sessions": len({r["session"] for r in rows if r.get("session")}),
        "lists": dict(sorted((k, v) for k, v in lists.items() if k)),
        "simulated": any(_true(r.get("simulated")) for r in rows),
        "excluded_rows": sum(_true(r.get("excluded")) for r in test),
        "exclusions": None,
    }
    if exclusions is not None and Path(exclusions).is_file():
        table = read_tsv(exclusions)
        excluded = {r.get("participant") for r in table if _true(r.get("excluded"))}
        rules: dict[str, int] = {}
        for row in table:
            if _true(row.get("excluded")):
                rules[row.get("rule") or ""] = rules.get(row.get("rule") or "", 0) + 1
        counts["exclusions"] = {
            "participants": len(excluded),
            "rules": dict(sorted(rules.items())),
        }
    return counts


def study_texts(study_dirs: Sequence[str | Path]) -> dict[str, dict[str, Any]]:
    """Study -> the ``texts`` of its study document (the questions, scale ends
    and instructions its page shows), from the ``web`` folders among
    *study_dirs* (``studies/<study>/web``): the first JSON file there, in name
    order, with a ``texts`` mapping."""
    out: dict[str, dict[str, Any]] = {}
    for folder in study_dirs:
        folder = Path(folder)
        if folder.name != "web" or not folder.is_dir():
            continue
        for file in sorted(folder.glob("*.json")):
            try:
                document = json.loads(file.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(document, dict) and isinstance(document.get("texts"), dict):
                out[folder.parent.name] = document["texts"]
                break
    return out


def study_speech(study_dirs: Sequence[str | Path]) -> dict[str, dict[str, Any]]:
    """Study -> the ``speech`` of its public study document (``web/stimuli.json``:
    espeak-ng's version, voice and rate, or the organisers' recordings), for the
    spoken studies among *study_dirs* (``studies/<study>/web``)."""
    out: dict[str, dict[str, Any]] = {}
    for folder in study_dirs:
        file = Path(folder) / "stimuli.json"
        if Path(folder).name != "web" or not file.is_file():
            continue
        try:
            document = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(document, dict) and isinstance(document.get("speech"), dict):
            out[Path(folder).parent.name] = document["speech"]
    return out


def power_results(files: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """``power/<study>.json`` and ``.tsv`` among the copied files, per study."""
    out: dict[str, dict[str, Any]] = {}
    for archive_path, source in files.items():
        path = Path(archive_path)
        if path.parent.name == "power" and path.suffix == ".json":
            table = Path(source).with_suffix(".tsv")
            out[path.stem] = {
                "settings": read_json(source),
                "rows": read_tsv(table) if table.is_file() else [],
            }
    return out


def datasheet_studies(
    config: Mapping[str, Any],
    study_settings: Sequence[str | Path],
    *,
    judgments: Sequence[str | Path],
    files: Mapping[str, Any],
    study_dirs: Sequence[str | Path],
    questionnaires: Mapping[str, Any],
    consents: Mapping[str, str],
) -> list[dict[str, Any]]:
    """The studies as the datasheet reads them: each ``design.json`` of
    *study_settings* with the study's configured ``title``, what was
    ``collected`` (:func:`collected_counts` of its judgments among *judgments*,
    with their exclusions), its ``power`` analysis among the archive's *files*
    when it has one (:func:`power_results`), its ``questionnaire`` counts (the
    archive's ``judgments/questionnaire/<study>.tsv`` in *questionnaires*),
    ``consent`` (*consents*: ``checked`` or ``unchecked``) and ``texts``
    (:func:`study_texts` of *study_dirs*); None where a study has none."""
    collected = {}
    for path in judgments:
        path = Path(path)
        collected[path.stem] = collected_counts(
            path, path.parent / "exclusions" / path.name
        )
    titles = {s["id"]: s.get("title") for s in config.get("studies") or []}
    studies = [read_json(p) for p in study_settings]
    texts = study_texts(study_dirs)
    speech = study_speech(study_dirs)
    power = power_results(files)
    return [
        s
        | {"title": titles.get(s["study"]), "collected": collected.get(s["study"])}
        | ({"power": power[s["study"]]} if s["study"] in power else {})
        | {
            "questionnaire": questionnaires.get(
                f"judgments/questionnaire/{s['study']}.tsv"
            ),
            "consent": consents.get(s["study"]),
            "texts": texts.get(s["study"]),
        }
        | ({"speech": speech[s["study"]]} if s["study"] in speech else {})
        for s in studies
    ]

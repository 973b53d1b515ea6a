"""Blind trials: what a participant's browser receives, and the organiser's key.

A study document (:func:`stecflow.studies.bundle.study_files`) names, for every
trial of every list, the item, the system that produced the output (human
reference sets included), the correct answer and whether the trial is a control.
None of that may reach a participant: with the browser's developer tools they would
find the right answer, spot the attention checks and see which texts are human.
:func:`blind` splits the document in three:

* the **public document** (``web/stimuli.json`` and ``stimuli.js``): the page's
  settings, texts, columns and criteria, no list and no trial. The study-wide
  completion code is left out too: the server gives it when a session completes.
* one **participant list** per list of the design: its trials in order, each with
  an opaque ``id``, its ``order``, ``practice`` and only what the trial shows (the
  description or outputs, the pictures and their cells, the clip, the input), and
  the inputs and clips those trials show. The collection server hands a session its
  own list and nothing else; the offline copy of a list (``offline/<list>/``) holds
  that list only.
* the **key** (``stimuli-key.json``, beside ``web/``, never served): the whole
  document, every trial with its opaque ID and, for trials whose pictures are
  clicked, the map from the labels the page shows to the corpus's entity IDs; and
  the participant lists exactly as built. The server checks answers against it;
  the judgments stage reads it to map an offline file's labels back.

Opaque IDs are HMAC-SHA-256 tags keyed by a digest of the study's own lists: the
same study gives the same IDs (the files are reproducible), but nobody who has not
seen the whole design can compute or guess them, and the same item gets different
IDs in different lists. Entities are listed in the order of their grid cells
(rows, then columns), never in the corpus's order, which often puts the target
first.

What a trial keeps of the answer: a rating trial marks the target it shows
(``marked`` on that entity: the red frame is part of the stimulus), and a
practice trial keeps its ``target`` (as a label) for the feedback the page gives
after it; practice trials are not analysed. Test trials and control trials carry
neither.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from stecflow.core.text import strings_in

__all__ = [
    "HIDDEN_FIELDS",
    "KEY_FILE",
    "Blinded",
    "blind",
    "media_paths",
    "entity_labels",
]

#: The file of the organiser's key, beside the study's ``web/`` folder.
KEY_FILE = "stimuli-key.json"
#: Trial fields that never reach a participant: provenance, answer and design.
HIDDEN_FIELDS = frozenset(
    {
        "item",
        "system",
        "system_left",
        "system_right",
        "subdomain",
        "item_set",
        "filler",
        "control",
        "dialogue",
        "expression",
        "target",
        "recording",  # an organiser's recording: its file names the system
    }
)
#: Document-level fields the public document leaves out (the lists, the design's
#: settings with its systems and seed, the shared inputs and clips, which go with
#: the lists that show them, and the builder's notes, which name systems).
_PRIVATE_DOCUMENT = ("lists", "design", "inputs", "contexts", "notes")
#: Trial fields that point into a document table, and that table.
_SHARED = {"input": "inputs", "context": "contexts"}
#: Folders of the web folder whose files are media a trial shows.
_MEDIA = ("images/", "audio/", "media/")


@dataclass(frozen=True)
class Blinded:
    """A study document split by :func:`blind`.

    Attributes
    ----------
    public : dict
        The page's document: no lists, no completion code.
    lists : dict of str to dict
        List ID -> the participant list (``list``, ``trials``, ``inputs``,
        ``contexts``), in design order.
    key : dict
        The organiser's key: the whole document with trial IDs and entity labels,
        and the participant lists under ``participant_lists``.
    """

    public: dict[str, Any]
    lists: dict[str, dict[str, Any]]
    key: dict[str, Any]


def _secret(document: Mapping[str, Any]) -> bytes:
    """The study's blinding key: a digest of its study ID and its whole lists."""
    canonical = json.dumps(
        {"study": document.get("study"), "lists": document.get("lists") or []},
        sort_keys=True,
        ensure_ascii=True,
    )
    return hashlib.sha256(b"stecflow-blinding\x1f" + canonical.encode()).digest()


def _tag(secret: bytes, *parts: object) -> str:
    message = "\x1f".join(map(str, parts)).encode("utf-8")
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


def _cell(entity: Mapping[str, Any]) -> tuple[Any, ...]:
    return (entity.get("y") or 0, entity.get("x") or 0, str(entity.get("id")))


def blind(document: Mapping[str, Any]) -> Blinded:
    """Split a study document into the public document, the lists and the key.

    Parameters
    ----------
    document : mapping
        A whole study document (``lists`` of ``trials``; ``inputs`` and
        ``contexts`` where trials point into them).

    Returns
    -------
    Blinded

    Examples
    --------
    >>> doc = {"study": "s", "settings": {"completion_code": "C1"}, "lists": [
    ...     {"list": "L01", "subject_slot": 1, "group": 1, "trials": [
    ...         {"order": 1, "item": "t1", "system": "HUMAN-1", "practice": False,
    ...          "filler": False, "target": "e2", "description": "the red chair",
    ...          "entities": [{"id": "e2", "x": 3, "y": 1}, {"id": "e1", "x": 1,
    ...                        "y": 1}]}]}]}
    >>> out = blind(doc)
    >>> trial = out.lists["L01"]["trials"][0]
    >>> sorted(trial)
    ['description', 'entities', 'id', 'order', 'practice']
    >>> shown = json.dumps(out.lists)
    >>> '"HUMAN-1"' in shown or '"e2"' in shown or '"t1"' in shown
    False
    >>> out.public
    {'study': 's', 'settings': {}}
    >>> out.key["lists"][0]["trials"][0]["id"] == trial["id"]
    True
    """
    secret = _secret(document)
    key_lists = []
    participant_lists: dict[str, dict[str, Any]] = {}
    for each in document.get("lists") or []:
        list_id = str(each["list"])
        shown_trials = []
        tables: dict[str, dict[str, Any]] = {table: {} for table in _SHARED.values()}
        key_trials = []
        for trial in each["trials"]:
            trial_id = "t" + _tag(secret, "trial", list_id, trial["order"])[:20]
            shown = {k: v for k, v in trial.items() if k not in HIDDEN_FIELDS}
            shown["id"] = trial_id
            keyed = {**trial, "id": trial_id}
            for name, table in _SHARED.items():
                if trial.get(name) is None:
                    continue
                ref = name[0] + _tag(secret, name, trial[name])[:16]
                shown[name] = ref
                tables[table][ref] = document[table][trial[name]]
            labels: dict[str, str] = {}
            if isinstance(trial.get("entities"), list):
                for entity in trial["entities"]:
                    entity_id = str(entity["id"])
                    labels[entity_id] = (
                        "e" + _tag(secret, "entity", trial_id, entity_id)[:12]
                    )
                shown["entities"] = sorted(
                    ({**e, "id": labels[str(e["id"])]} for e in trial["entities"]),
                    key=_cell,
                )
                keyed["labels"] = {label: eid for eid, label in labels.items()}
            target = trial.get("target")
            if trial.get("practice") and target is not None:
                shown["target"] = labels.get(str(target), target)
            shown_trials.append(dict(sorted(shown.items())))
            key_trials.append(keyed)
        participant = {"list": list_id, "trials": shown_trials}
        for table, entries in tables.items():
            if entries:
                participant[table] = dict(sorted(entries.items()))
        participant_lists[list_id] = participant
        key_lists.append({**each, "trials": key_trials})
    public = {k: v for k, v in document.items() if k not in _PRIVATE_DOCUMENT}
    settings = dict(public.get("settings") or {})
    settings.pop("completion_code", None)
    public["settings"] = settings
    key = {
        **document,
        "lists": key_lists,
        "participant_lists": participant_lists,
    }
    return Blinded(public=public, lists=participant_lists, key=key)


def media_paths(participant_list: Mapping[str, Any]) -> set[str]:
    """The media files (``images/``, ``audio/``, ``media/``) a list's trials show.

    >>> sorted(media_paths({"trials": [{"audio": "audio/a.wav", "entities": [
    ...     {"image": "images/x.svg"}], "description": "images/ in words"}]}))
    ['audio/a.wav', 'images/x.svg']
    """
    return {
        s
        for s in strings_in(participant_list)
        if s.startswith(_MEDIA) and " " not in s and "/" in s
    }


def entity_labels(key: Mapping[str, Any]) -> dict[tuple[str, int], dict[str, str]]:
    """(list, order) -> {label shown -> entity ID}, for every trial with pictures.

    An offline page records the label it showed (``chosen_entity``); the key maps
    it back (:func:`stecflow.judgments.study.unblind_choices`).

    >>> key = {"lists": [{"list": "L01", "trials": [
    ...     {"order": 1, "labels": {"e9f": "e2"}}, {"order": 2}]}]}
    >>> entity_labels(key)
    {('L01', 1): {'e9f': 'e2'}}
    """
    return {
        (str(each["list"]), int(trial["order"])): dict(trial["labels"])
        for each in key.get("lists") or ()
        for trial in each.get("trials") or ()
        if trial.get("labels")
    }

"""Loading and checking a built study folder, before anything is served.

Owns :class:`Study` (what the server needs from ``stimuli.json``), finding the web
folder of a study (:func:`resolve_study`), reading it (:func:`load_study`), the
checks ``stecflow serve`` runs before it listens (:func:`check_study`) and
:class:`CollectionError`, the error every part of the server raises for a folder,
database or setting that cannot be used.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stecflow.core.errors import ConfigError, StecflowError
from stecflow.studies.blinding import KEY_FILE
from stecflow.studies.settings import RESPONSE_COLUMNS
from stecflow.studykinds.registry import get as study_kind

__all__ = [
    "WEB_FILES",
    "CollectionError",
    "Study",
    "Trial",
    "check_study",
    "declares_consent",
    "default_db",
    "load_study",
    "resolve_study",
]


class CollectionError(StecflowError):
    """A study folder or database cannot be used for collection (says what to do)."""


@dataclass(frozen=True)
class Trial:
    """One trial of a list, as answers to it are checked and stored.

    ``target`` is None in a text study (nothing to identify); ``system_left``
    and ``system_right`` are the sides of a text preference trial. Everything but
    ``trial_id``, ``order`` and the labels stays on the server: the page sees
    the trial as its participant list shows it (:mod:`stecflow.studies.blinding`).
    """

    order: int
    item: str
    system: str | None
    subdomain: str | None
    practice: bool
    filler: bool
    target: str | None
    entities: frozenset[str]
    dialogue: str | None = None
    expression: str | None = None
    system_left: str | None = None
    system_right: str | None = None
    #: The opaque ID the page knows the trial by (stecflow.studies.blinding).
    trial_id: str | None = None
    #: Label shown -> entity ID, for trials whose pictures are clicked.
    labels: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Study:
    """What the server needs to know about a built study.

    Attributes
    ----------
    web_dir : Path
        The folder served.
    study, task : str
        The study ID and task.
    variant : str or None
        The identification variant.
    sha256 : str
        SHA-256 of ``stimuli.json``.
    lists : dict
        List ID -> {order -> trial}, lists in design order.
    completion_code : str or None
        The study-wide completion code, if the settings fix one.
    columns : tuple of str
        The columns of the study's response table, in the document's order
        (``RESPONSE_COLUMNS``, then ``SITUATED_COLUMNS`` in a situated study, or
        the text study's columns: ``rating_<criterion>`` or the preference's).
    criteria : tuple of dict
        A text study's criteria (``id``, ``scale``, ``points``, ``allow_tie``...),
        as its document gives them; empty for other studies.
    consent : bool
        Whether the study shows a consent screen (:func:`declares_consent`):
        then a session is opened only with ``consent: true``.
    participant_lists : mapping
        List ID -> the list as its participant's page receives it (blinded:
        opaque trial IDs, only what each trial shows), from the study's key.
    """

    web_dir: Path
    study: str
    task: str
    variant: str | None
    sha256: str
    lists: dict[str, dict[int, Trial]]
    completion_code: str | None
    columns: tuple[str, ...] = RESPONSE_COLUMNS
    criteria: tuple[dict[str, Any], ...] = ()
    consent: bool = False
    participant_lists: Mapping[str, Any] = field(default_factory=dict)

    @property
    def family(self) -> str:
        """The family of the study's kind (``grid``, ``situated``, ``text``:
        :data:`stecflow.studykinds.base.FAMILIES`)."""
        return study_kind(self.task).family

    @property
    def situated(self) -> bool:
        """Whether this is a situated identification study (seed 000, §5.1)."""
        return self.family == "situated"

    @property
    def text(self) -> bool:
        """Whether this is a text rating or preference study (studies.text)."""
        return self.family == "text"


def resolve_study(study_dir: str | Path) -> Path:
    """Return the web folder of a study: *study_dir* itself or ``study_dir/web``.

    Raises
    ------
    CollectionError
        If neither holds a ``stimuli.json``.
    """
    root = Path(study_dir)
    for candidate in (root / "web", root):
        if (candidate / "stimuli.json").is_file():
            return candidate
    raise CollectionError(
        f"{root} holds no built study (no stimuli.json in it or in {root / 'web'}); "
        "build the study's stimuli first",
        field="study_dir",
    )


def load_study(study_dir: str | Path) -> Study:
    """Read a built study's ``stimuli.json``.

    Parameters
    ----------
    study_dir : path
        The study folder (``results/studies/<study>``) or its ``web`` folder.

    Returns
    -------
    Study

    Raises
    ------
    CollectionError
        If the folder holds no study or the document is not a stecflow study.
    """
    web = resolve_study(study_dir)
    raw = (web / "stimuli.json").read_bytes()
    key_path = web.parent / KEY_FILE
    try:
        public = json.loads(raw)
        if public.get("format") != "stecflow-study":
            raise ValueError("not a stecflow study document")
    except (ValueError, TypeError, AttributeError) as error:
        raise CollectionError(
            f"{web / 'stimuli.json'} is not a usable study document ({error}); "
            "rebuild the study",
            field="stimuli.json",
        ) from None
    if not key_path.is_file():
        raise CollectionError(
            f"{key_path} is missing: the study's key (its trials, systems and "
            "answers, kept beside the web folder and never served) is needed to "
            "hand out lists and check answers; rebuild the study",
            field=KEY_FILE,
        )
    key_raw = key_path.read_bytes()
    if hashlib.sha256(key_raw).hexdigest() != public.get("design_sha256"):
        raise CollectionError(
            f"{key_path} is not the key of the study in {web} (its SHA-256 differs "
            "from the one stimuli.json records); rebuild the study",
            field=KEY_FILE,
        )
    try:
        doc = json.loads(key_raw)
        family = study_kind(doc["task"]).family
        situated, text = family == "situated", family == "text"
        lists: dict[str, dict[int, Trial]] = {}
        for lst in doc["lists"]:
            trials = {}
            for t in lst["trials"]:
                if situated:
                    # the valid answers of a situated trial are its pieces
                    clip = doc["contexts"][t["context"]]
                    answers = (p["id"] for p in clip["pieces"])
                elif text:
                    answers = ()  # rated or compared: nothing to choose from
                else:
                    answers = (e["id"] for e in t["entities"])
                trials[int(t["order"])] = Trial(
                    order=int(t["order"]),
                    item=str(t["item"]),
                    system=t["system"],
                    subdomain=t.get("subdomain"),
                    practice=bool(t["practice"]),
                    filler=bool(t["filler"]),
                    target=None if text else str(t["target"]),
                    entities=frozenset(str(a) for a in answers),
                    dialogue=str(t["dialogue"]) if situated else None,
                    expression=str(t["expression"]) if situated else None,
                    system_left=t.get("system_left") if text else None,
                    system_right=t.get("system_right") if text else None,
                    trial_id=t.get("id"),
                    labels=dict(t.get("labels") or {}),
                )
            lists[str(lst["list"])] = trials
        if text and not doc.get("criteria"):
            raise ValueError("a text study's document must give its criteria")
        settings = doc.get("settings", {})
        columns = tuple(str(c) for c in doc.get("columns") or RESPONSE_COLUMNS)
        if columns[: len(RESPONSE_COLUMNS)] != RESPONSE_COLUMNS:
            raise ValueError("its columns do not start with RESPONSE_COLUMNS")
        return Study(
            web_dir=web,
            study=str(doc["study"]),
            task=str(doc["task"]),
            variant=doc.get("variant"),
            sha256=hashlib.sha256(raw).hexdigest(),
            lists=lists,
            completion_code=settings.get("completion_code"),
            columns=columns,
            criteria=tuple(dict(c) for c in doc.get("criteria") or ()) if text else (),
            consent=declares_consent(public),  # as the page shows it
            participant_lists=dict(doc["participant_lists"]),
        )
    except (ValueError, KeyError, TypeError, ConfigError) as error:
        raise CollectionError(
            f"{key_path} is not a usable study key ({error}); rebuild the study",
            field=KEY_FILE,
        ) from None


def _is_consent_screen(screen: Any) -> bool:
    if isinstance(screen, str):
        return screen == "consent"
    if not isinstance(screen, dict):
        return False
    kinds = {screen.get("kind"), screen.get("type"), screen.get("id")}
    return "consent" in kinds


def declares_consent(doc: dict[str, Any]) -> bool:
    """Whether a study document declares a consent screen.

    The page shows the screens of the study document; the server reads the same
    document. A consent screen is declared by ``settings.consent`` (true, or the
    screen's text or file), or by a screen of kind (``kind`` or ``type``) or ID
    ``consent`` in ``settings.screens`` or the document's ``screens`` (a list of
    screens, or a mapping of screen ID to screen).

    >>> declares_consent({"settings": {"consent": None}})
    False
    >>> declares_consent({"settings": {"screens": [{"id": "c1", "kind": "consent"}]}})
    True
    >>> declares_consent({"screens": {"consent": {"text": "consent.md"}}})
    True
    """
    settings = doc.get("settings") or {}
    if not isinstance(settings, dict):
        return False
    if settings.get("consent") not in (None, False, "", {}):
        return True
    for screens in (settings.get("screens"), doc.get("screens")):
        if isinstance(screens, dict):
            if "consent" in screens or any(
                _is_consent_screen(s) for s in screens.values()
            ):
                return True
        elif isinstance(screens, list) and any(_is_consent_screen(s) for s in screens):
            return True
    return False


#: Files of a study's web folder the page cannot run without.
WEB_FILES = ("index.html", "experiment.js", "stimuli.json")


def check_study(study_dir: str | Path, db_path: str | Path | None = None) -> Study:
    """Check that a study can be served, before anything listens.

    Parameters
    ----------
    study_dir : path
        The study folder (``results/studies/<study>``) or its ``web`` folder.
    db_path : path, optional
        The database (default: ``responses.sqlite`` beside the web folder).

    Returns
    -------
    Study
        The study, when the folder exists, ``stimuli.json`` is a study document
        with lists of trials (the design), the page's files are there and match
        the study's ``MANIFEST.tsv``, and the database can be written (created).

    Raises
    ------
    CollectionError
        Naming the file or folder at fault and what to do.
    """
    from stecflow.core.errors import StimuliError
    from stecflow.studies.bundle import study_sha256

    root = Path(study_dir)
    if not root.is_dir():
        raise CollectionError(
            "no such study folder; give a study ID (results/studies/<ID>) or the"
            " folder of a study the workflow built",
            file=str(root),
        )
    study = load_study(root)
    empty = [name for name, trials in study.lists.items() if not trials]
    if not study.lists or empty:
        raise CollectionError(
            "the study's design has no lists of trials"
            + (f" (list {empty[0]} is empty)" if empty else "")
            + "; rebuild the study",
            file=str(study.web_dir / "stimuli.json"),
        )
    for name in WEB_FILES:
        if not (study.web_dir / name).is_file():
            raise CollectionError(
                f"{name} is missing from the study's web folder; rebuild the study",
                file=str(study.web_dir),
            )
    try:
        study_sha256(study.web_dir)
    except StimuliError as error:
        raise CollectionError(error.message, file=str(study.web_dir)) from None
    _check_writable(Path(db_path) if db_path is not None else default_db(study.web_dir))
    return study


def _check_writable(db: Path) -> None:
    """Raise unless the SQLite file *db* (and its journal beside it) can be written."""
    what = "; give --db a file in a folder you can write to"
    if db.exists():
        if not db.is_file():
            raise CollectionError(
                "the database path is not a file" + what, file=str(db)
            )
        if not os.access(db, os.R_OK | os.W_OK):
            raise CollectionError("the database cannot be written" + what, file=str(db))
        folder = db.parent
    else:
        folder = db.parent
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
    if not folder.is_dir():
        raise CollectionError(
            f"{folder} is not a folder, so the database cannot be created" + what,
            file=str(db),
        )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CollectionError(
            f"cannot write in {folder} (the database and its journal go there)" + what,
            file=str(db),
        )


def default_db(web_dir: Path) -> Path:
    """The database of a study by default: ``responses.sqlite`` beside *web_dir*."""
    return web_dir.parent / "responses.sqlite"

"""The study bundle: the self-contained web experiment every study kind writes.

This module owns the files the study kinds share: from a study document and its media,
:func:`study_files` makes every file of a study (the page, the public document, the
media, ``MANIFEST.tsv``, the organiser's key and each list's offline copy),
:func:`write_study` writes them and :func:`study_sha256` checks them. Each kind makes
its own document (the REG grid kinds: :mod:`stecflow.studies.stimuli`; the text kinds:
:mod:`stecflow.studies.text`; the situated study:
:mod:`stecflow.studykinds.situated_identification.stimuli`).

The web folder runs the whole experiment in a browser, both from disk (``file://``,
*offline*: the results are saved as a file at the end) and served by
:mod:`stecflow.studies.server` (*online*: every trial is stored the moment it is
answered). Its bytes depend only on the document and the media, so a deployed study
can be pinned by the SHA-256 of its ``MANIFEST.tsv`` (:func:`study_sha256`). The page
is assembled from ``web/core.js`` and the study kind's trial components of
``web/components/`` (:func:`page_script`).

Output folder (``results/studies/<study>/web/``)::

    index.html       the page (open it from disk, or serve the folder)
    experiment.js    the runner (plain JavaScript, no library, no network): the
                     core and the study kind's trial component (:func:`page_script`)
    experiment.css
    stimuli.js       the study document as a script (file:// pages cannot fetch JSON)
    stimuli.json     the same document, read by the server
    ...              the kind's media (pictures, audio, video), by relative path
    MANIFEST.tsv     path, size and SHA-256 of every other file
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from stecflow.core.errors import StimuliError
from stecflow.studies import speech
from stecflow.studies.blinding import KEY_FILE, blind, media_paths
from stecflow.studies.strings import UI_STRINGS, read_catalogue

__all__ = [
    "PAGE_MARKER",
    "STIMULI_VERSION",
    "StudyFiles",
    "digest",
    "page_script",
    "plain",
    "study_files",
    "study_sha256",
    "write_study",
    "write_tree",
]

#: Version of the study document and page; bump when either changes meaning.
STIMULI_VERSION = 1
_WEB_ASSETS = ("experiment.css",)
#: The line of ``web/core.js`` after which :func:`page_script` puts a kind's parts.
PAGE_MARKER = (
    b"  // ---- trial components of the study's kind"
    b" (page_script inserts them after this line)\n"
)


@dataclass(frozen=True)
class StudyFiles:
    """The files of a study's web folder, as bytes keyed by relative path.

    Attributes
    ----------
    document : dict
        The whole study document, every trial with its item, system and answer:
        the organiser's (:mod:`stecflow.studies.blinding`); the web folder holds
        only its public part.
    files : dict of str to bytes
        Every file of the web folder (what the server serves), ``MANIFEST.tsv``
        included: the page, the public document (no lists), the media of every list.
    audio : dict of str to bytes
        The spoken descriptions (``audio/<name>.wav``), also in *files*.
    key : bytes
        The organiser's key (``stimuli-key.json``, beside the web folder): the
        document with trial IDs and entity labels, and every participant list.
    offline : dict of str to dict
        List ID -> the files of that list's offline copy (``offline/<list>/``):
        the page, the public document with that list only, its media.
    """

    document: dict[str, Any]
    files: dict[str, bytes] = field(repr=False)
    audio: dict[str, bytes] = field(default_factory=dict, repr=False)
    key: bytes = field(default=b"", repr=False)
    offline: dict[str, dict[str, bytes]] = field(default_factory=dict, repr=False)

    def summary(self) -> dict[str, Any]:
        """What a ``stimuli`` hook returns: ``study``, ``task``, ``variant``,
        the numbers of ``lists``, ``trials`` and ``files``, and ``sha256`` (of
        ``MANIFEST.tsv``, which an opened study's config pins)."""
        doc = self.document
        return {
            "study": doc["study"],
            "task": doc["task"],
            "variant": doc.get("variant"),
            "lists": len(doc["lists"]),
            "trials": sum(len(lst["trials"]) for lst in doc["lists"]),
            "files": len(self.files),
            "sha256": hashlib.sha256(self.files["MANIFEST.tsv"]).hexdigest(),
        }


def digest(*parts: object) -> str:
    """The SHA-256 (hex) of *parts*, joined by the unit separator (a stable name)."""
    return hashlib.sha256("\x1f".join(map(str, parts)).encode("utf-8")).hexdigest()


def _json_bytes(data: Any) -> bytes:
    text = json.dumps(data, sort_keys=True, indent=1, ensure_ascii=True)
    return (text + "\n").encode("utf-8")


def plain(value: Any) -> Any:
    """Turn pandas/numpy scalars (and missing values) into plain Python values."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item") and not isinstance(value, str | bytes):
        return value.item()
    return value


def _asset(name: str) -> bytes:
    return resources.files("stecflow.studies").joinpath("web", name).read_bytes()


def page_script(task: str) -> bytes:
    """The ``experiment.js`` of a study of kind *task*: the core and its parts.

    ``web/core.js`` up to and including its marker line (:data:`PAGE_MARKER`),
    then each of the kind's page parts
    (:attr:`~stecflow.studykinds.base.StudyKind.page`: a file of
    ``web/components/``, or an absolute path for a kind declared outside the
    library) after a one-line banner comment naming it (``components/<name>``,
    or the file's name), then the rest of ``core.js``. The parts are code inside
    the core's function and register the kind's trial with ``trialKind``. The
    bytes depend only on the files, never on where they are.

    Raises
    ------
    StimuliError
        If a page part is missing.

    Examples
    --------
    >>> script = page_script("rating")
    >>> b'// ---- components/_grid.js' in script
    True
    >>> script.count(b'trialKind("rating"')
    1
    """
    from stecflow.studykinds import registry

    core = _asset("core.js")
    head, marker, tail = core.partition(PAGE_MARKER)
    if not marker:  # pragma: no cover - the package's own file
        raise StimuliError("web/core.js has no marker line for the trial components")
    parts = [head, marker]
    for name in registry.get(task).page:
        path = Path(name)
        if path.is_absolute():
            label, source = path.name, path
        else:
            label = f"components/{name}"
            source = resources.files("stecflow.studies") / "web" / label
        try:
            data = source.read_bytes()
        except OSError as error:
            raise StimuliError(
                f"the page part {name} of the study kind {task} cannot be read"
                f" ({error.strerror or error}); StudyKind.page names files of"
                " stecflow/studies/web/components/ or absolute paths"
            ) from error
        if data and not data.endswith(b"\n"):
            data += b"\n"
        parts += [f"  // ---- {label}\n".encode(), data]
    parts.append(tail)
    return b"".join(parts)


def study_files(
    document: Mapping[str, Any],
    extra: Mapping[str, bytes],
    audio: Mapping[str, bytes],
) -> StudyFiles:
    """Every file of a study from its whole document and its media.

    The document is blinded (:func:`stecflow.studies.blinding.blind`). The web
    folder gets the page (``index.html``), the public document as JSON and as a
    script, the page's assets, the *extra* files (pictures, media, audio, by
    relative path) and the ``MANIFEST.tsv`` of them all, in path order; each
    list's offline copy gets the same page with that list only and the media it
    shows; the key keeps the rest. Shared by every kind of study.
    """
    from stecflow.studies.screens import study_screens

    screens = study_screens(document.get("settings") or {})
    extra = dict(extra)
    word = (document.get("settings") or {}).get("sound_check")
    if word:
        settings = document["settings"]
        extra["audio/sound-check.wav"] = speech.speak(
            word, settings.get("voice", "en-us"), settings.get("speech_wpm", 150)
        )
    if screens:
        document = {**document, "screens": screens}
    if (document.get("settings") or {}).get("messages"):
        language, _ = read_catalogue(document["settings"]["messages"], UI_STRINGS)
        document = {**document, "texts": {**document["texts"], "language": language}}
    given = document.get("settings") or {}
    if given.get("check_window"):
        from stecflow.studykinds.registry import get as study_kind

        width, height = study_kind(document["task"]).min_window
        document = {
            **document,
            "settings": {
                **given,
                "min_width": given.get("min_width") or width,
                "min_height": given.get("min_height") or height,
            },
        }
    blinded = blind(document)
    key = _json_bytes(blinded.key)
    public = {**blinded.public, "design_sha256": hashlib.sha256(key).hexdigest()}
    files = _page_files(public, extra)
    offline: dict[str, dict[str, bytes]] = {}
    code = (document.get("settings") or {}).get("completion_code")
    for list_id, shown in blinded.lists.items():
        wanted = media_paths(shown) | {"audio/sound-check.wav"}
        own = {
            **public,
            "settings": {**public["settings"], "completion_code": code},
            "lists": [shown],
        }
        offline[list_id] = _page_files(
            own, {p: data for p, data in extra.items() if p in wanted}
        )
    return StudyFiles(
        document=dict(document), files=files, audio=audio, key=key, offline=offline
    )


def _page_files(document: Mapping[str, Any], extra: Mapping[str, bytes]) -> dict:
    """The page, its document (JSON and script), assets, *extra* and manifest."""
    stimuli_json = _json_bytes(document)
    sha = hashlib.sha256(stimuli_json).hexdigest()
    stimuli_js = (
        "window.STECFLOW_STUDY = "
        + json.dumps(document, sort_keys=True, ensure_ascii=True)
        + ";\nwindow.STECFLOW_STUDY.sha256 = "
        + json.dumps(sha)
        + ";\n"
    ).encode("utf-8")
    files: dict[str, bytes] = {
        "index.html": _render_index(document),
        "stimuli.json": stimuli_json,
        "stimuli.js": stimuli_js,
    }
    for name in _WEB_ASSETS:
        files[name] = _asset(name)
    files["experiment.js"] = page_script(document["task"])
    files.update(extra)
    files["MANIFEST.tsv"] = _manifest(files)
    return dict(sorted(files.items()))


def _render_index(document: Mapping[str, Any]) -> bytes:
    from jinja2 import Environment, StrictUndefined

    env = Environment(
        autoescape=True, undefined=StrictUndefined, keep_trailing_newline=True
    )
    template = env.from_string(_asset("index.html.j2").decode("utf-8"))
    texts = document["texts"]
    ui = texts.get("ui") or UI_STRINGS["en"]
    text = template.render(
        title=document["settings"]["title"],
        study=document["study"],
        task=document["task"],
        variant=document["variant"] or "",
        language=texts.get("language", "en"),
        noscript=_html_text(ui["html_noscript"]),
        loading=_html_text(ui["html_loading"]),
        damaged=texts["ui"].get("damaged", "") if texts.get("ui") else "",
    )
    return text.encode("utf-8")


def _html_text(text: str) -> Any:
    """Escape *text* for HTML, writing the ellipsis as ``&hellip;``."""
    from markupsafe import Markup, escape

    return Markup(str(escape(text)).replace("\u2026", "&hellip;"))


def _manifest(files: Mapping[str, bytes]) -> bytes:
    lines = ["path\tsize\tsha256"]
    for path in sorted(files):
        data = files[path]
        lines.append(f"{path}\t{len(data)}\t{hashlib.sha256(data).hexdigest()}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def write_tree(files: Mapping[str, bytes], out_dir: Path, overwrite: bool) -> None:
    """Write *files* (bytes by relative path) into *out_dir*, which must be empty or
    absent unless *overwrite* (then it is replaced)."""
    if out_dir.exists() and any(out_dir.iterdir()):
        if not overwrite:
            raise StimuliError(
                f"{out_dir} already exists and is not empty; a study's stimuli are "
                "frozen once built: build a new study, or pass overwrite=True if "
                "this study has not been opened",
                field="out_dir",
            )
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for path in sorted(files):
        target = out_dir / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(files[path])


def write_study(
    bundle: StudyFiles, out_dir: str | Path, *, overwrite: bool = False
) -> None:
    """Write a study's files: the web folder, and beside it the key and offline copies.

    *out_dir* is the web folder (``results/studies/<study>/web``); the key goes to
    ``stimuli-key.json`` and each list's offline copy to ``offline/<list>/`` in its
    parent folder, the study folder.
    """
    out = Path(out_dir)
    write_tree(bundle.files, out, overwrite)
    offline = {
        f"{list_id}/{path}": data
        for list_id, files in bundle.offline.items()
        for path, data in files.items()
    }
    write_tree(offline, out.parent / "offline", overwrite)
    (out.parent / KEY_FILE).write_bytes(bundle.key)


def study_sha256(web_dir: str | Path) -> str:
    """Return the SHA-256 of a built study's ``MANIFEST.tsv`` (pins every file).

    Parameters
    ----------
    web_dir : path
        The study's web folder.

    Returns
    -------
    str
        Hex digest; equal for byte-identical studies.

    Raises
    ------
    StimuliError
        If a file differs from the manifest, or the manifest is missing.
    """
    root = Path(web_dir)
    manifest = root / "MANIFEST.tsv"
    if not manifest.is_file():
        raise StimuliError(f"{manifest} is missing; rebuild the study", field="web_dir")
    data = manifest.read_bytes()
    for line in data.decode("utf-8").splitlines()[1:]:
        path, size, expected = line.split("\t")
        target = root / path
        if not target.is_file() or hashlib.sha256(target.read_bytes()).hexdigest() != (
            expected
        ):
            raise StimuliError(
                f"{path} differs from MANIFEST.tsv (size {size}); the study's files "
                "were changed after it was built",
                field="web_dir",
            )
    return hashlib.sha256(data).hexdigest()

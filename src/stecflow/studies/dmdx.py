"""DMDX item files of an identification study, for labs that replicate the seeds.

:func:`make_dmdx_files` turns the study document that
:func:`stecflow.studies.stimuli.make_study_files` made for the web experiment into
DMDX item files (Forster & Forster 2003), one per list, with a table per list that
decodes recorded click positions into the entity clicked (the identification
kind's :func:`stecflow.studykinds.identification.import_dmdx.read_dmdx_item_table`
reads it back).
:func:`stecflow.studies.stimuli.build_study` writes them when given ``dmdx_dir``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stecflow.studies.speech import beep_wav
from stecflow.studykinds.registry import get as study_kind

if TYPE_CHECKING:  # pragma: no cover - typing only
    from stecflow.studies.bundle import StudyFiles

__all__ = ["make_dmdx_files"]


def _rtf(text: str) -> str:
    """Escape *text* for an RTF item file (DMDX reads RTF)."""
    out = []
    for char in text.replace('"', "'"):
        code = ord(char)
        if char in "\\{}":
            out.append("\\" + char)
        elif code < 128:
            out.append(char)
        elif code < 32768:
            out.append(f"\\u{code}?")
        else:
            out.append(f"\\u{code - 65536}?")
    return "".join(out)


def _f(value: float) -> str:
    return f"{value:.4f}".rstrip("0").rstrip(".") or "0"


def _boxes(trial: Mapping[str, Any]) -> list[tuple[str, str, tuple[float, ...]]]:
    """Screen boxes (normalised x1, y1, x2, y2) of a trial's pictures."""
    columns, rows = trial["grid"]
    width, height = 0.9 / columns, 0.72 / rows
    pad = 0.06
    boxes: list[tuple[str, str, tuple[float, ...]]] = []
    for entity in trial["entities"]:
        x1 = 0.05 + (entity["x"] - 1) * width
        y1 = 0.22 + (entity["y"] - 1) * height
        box = (
            x1 + pad * width,
            y1 + pad * height,
            x1 + (1 - pad) * width,
            y1 + (1 - pad) * height,
        )
        stem = Path(entity["image"]).stem
        boxes.append((entity["id"], stem, box))
    return boxes


_DMDX_README = """DMDX item files for study {study} ({task}{variant})
=================================================

Made by stecflow (stecflow.stimuli.make_dmdx_files) from the same study document as
the web experiment in ../web/, for labs that replicate the seeds' set-up (DMDX,
Forster & Forster 2003). One item file per list: <list>.rtf, plus <list>-items.tsv,
which maps every DMDX item number to the trial it shows and gives the screen box of
every picture (normalised coordinates x1,y1,x2,y2, 0-1 from the top left corner),
so that recorded click positions can be turned into the entity clicked.

Before the first session:
1. Convert the pictures to BMP (DMDX reads .bmp; the files name them without
   extension), e.g. with ImageMagick, in this folder:
     for f in ../web/images/*.svg; do
       convert -background white -density 300 "$f" -resize 300x300 \\
         "$(basename "${{f%.svg}}").bmp"
     done
   (corpus pictures in other formats: convert them the same way).
2. Open each .rtf in DMDX and run its Syntax Check, then a pilot session.
   These files use only the documented item-file keywords <ep>/<eop>, <vm>, <id>,
   <zil>, <t>, <d>, <nfb>, <xyjustification>, <dbc>, <dwc>, <msfd>, <xy>,
   <bmp x1,y1,x2,y2>, <wav>, frames separated by / (next screen) and , (same
   screen), * (clock on) and ; (end of item); there is no <scramble>, so items run
   in the design's list order. They were not run in DMDX when generated (DMDX is
   Windows-only).

Trial structure (identification; times from the study settings):
  the participant requests each item (no <cr>), warning bell (bell.wav),
  fixation cross for {fixation_ms} ms, then
  together:   blank {delay_ms} ms, description and pictures together (clock on);
  read_first: blank {delay_ms} ms, the description (clock on: item n+10000 gives
              the reading time), then the pictures (clock on: item n gives the
              identification time);
  spoken:     the pictures (clock on), the voice {delay_ms} ms later (audio/*.wav).
Timeout {timeout_ms} ms. The click position identifies the picture chosen.
Rating studies have no DMDX files: the seeds ran them on the web only.
"""


def make_dmdx_files(study: StudyFiles) -> dict[str, bytes]:
    """Make DMDX item files (``.rtf``, one per list) for an identification study.

    Mapping of a trial (list order *n*) onto DMDX items: item number *n* (practice
    trials included, as they come first) shows the warning bell (``<wav>
    "bell"``), the fixation cross (``<msfd {fixation_ms}> "+"``) and then the
    stimulus frame with the clock on (``*``): the description (``<xy .5,.1>``) and
    every picture at its grid box (``<bmp x1,y1,x2,y2> "<image stem>"``, pictures
    separated by ``,`` so they share one screen). ``read_first`` splits a trial
    into item ``10000 + n`` (the description: reading time) and item *n* (the
    pictures: identification time); ``spoken`` shows the pictures and plays
    ``<wav> "<audio stem>"`` ``delay_ms`` later. The mouse (``<id mouse>``) with
    zillion responses (``<zil>``) records the click position; ``<list>-items.tsv``
    gives each item's trial and picture boxes to decode it. The timeout is
    ``<t {timeout_ms}>``; there is no ``<scramble>``, so items run in the design's
    list order.

    Parameters
    ----------
    study : StudyFiles
        From :func:`make_study_files`.

    Returns
    -------
    dict of str to bytes
        ``README.txt``, ``bell.wav``, for identification studies ``<list>.rtf``
        and ``<list>-items.tsv`` per list, and the spoken variant's WAV files.
        Rating studies get the README only.
    """
    doc = study.document
    settings = doc["settings"]
    variant = doc["variant"]
    readme = _DMDX_README.format(
        study=doc["study"],
        task=doc["task"],
        variant=f", {variant}" if variant else "",
        fixation_ms=settings["fixation_ms"],
        delay_ms=settings["delay_ms"],
        timeout_ms=settings["timeout_ms"],
    )
    files: dict[str, bytes] = {"README.txt": readme.encode("utf-8")}
    if not study_kind(doc["task"]).identifies:  # a rating study: the README only
        return files
    files["bell.wav"] = beep_wav(settings["beep_hz"], max(settings["beep_ms"], 200))
    for path, data in study.audio.items():
        files[Path(path).name] = data
    phase = doc["task"]  # an item's second (or only) phase is the study's task
    header = (
        "{\\rtf1\\ansi\\ansicpg1252\\deff0{\\fonttbl{\\f0\\fswiss Arial;}}\\f0\\fs28\n"
    )
    params = (
        "<ep> <vm desktop> <id keyboard> <id mouse> <zil> "
        f"<t {settings['timeout_ms']}> <d 30> <nfb> <xyjustification center> "
        "<dbc 255255255> <dwc 0> <eop>"
    )
    columns = (
        "dmdx_item",
        "phase",
        "list",
        "order",
        "item",
        "system",
        "practice",
        "filler",
        "target_entity",
        "description",
        "boxes",
    )
    for lst in doc["lists"]:
        lines = [
            params,
            f"! stecflow study {_rtf(doc['study'])}, list {lst['list']}, "
            f"identification ({variant}); generated file, do not edit",
            '0 <xy .5,.4> "'
            + _rtf("Click the picture that the description is about.")
            + '", <xy .5,.6> "'
            + _rtf("Press the space bar to start.")
            + '";',
        ]
        table = ["\t".join(columns)]
        for trial in lst["trials"]:
            n = trial["order"]
            boxes = _boxes(trial)
            pictures = ", ".join(
                f'<bmp {_f(b[0])},{_f(b[1])},{_f(b[2])},{_f(b[3])}> "{stem}"'
                for _, stem, b in boxes
            )
            text = f'<xy .5,.1> "{_rtf(trial["description"])}"'
            start = f'<wav> "bell" / <msfd {settings["fixation_ms"]}> <xy .5,.5> "+" / '
            blank = f'<msfd {settings["delay_ms"]}> "" / '
            phases = [(phase, n)]
            if variant == "together":
                lines.append(f"+{n} {start}{blank}* {text}, {pictures};")
            elif variant == "read_first":
                phases = [("reading", 10000 + n), (phase, n)]
                lines.append(f"+{10000 + n} {start}{blank}* {text};")
                lines.append(f"+{n} * {pictures};")
            else:
                sound = Path(trial["audio"]).stem
                lines.append(
                    f"+{n} {start}* <msfd {settings['delay_ms']}> {pictures}, "
                    f'<wav> "{sound}";'
                )
            encoded = ";".join(
                f"{eid}:{_f(b[0])},{_f(b[1])},{_f(b[2])},{_f(b[3])}"
                for eid, _, b in boxes
            )
            for phase, number in phases:
                table.append(
                    "\t".join(
                        [
                            str(number),
                            phase,
                            lst["list"],
                            str(n),
                            trial["item"],
                            trial["system"] or "",
                            "true" if trial["practice"] else "false",
                            "true" if trial["filler"] else "false",
                            trial["target"],
                            " ".join(trial["description"].split()),
                            encoded,
                        ]
                    )
                )
        body = header + "".join(line + "\\par\n" for line in lines) + "}\n"
        files[f"{lst['list']}.rtf"] = body.encode("ascii")
        files[f"{lst['list']}-items.tsv"] = ("\n".join(table) + "\n").encode("utf-8")
    return dict(sorted(files.items()))

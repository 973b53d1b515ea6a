"""Build small studies from the demo campaign for the stimuli, server and browser tests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from stecflow.data.corpus import read_items
from stecflow.data.model import Item
from stecflow.studies.designs import Design, latin_square_design
from stecflow.studies.stimuli import build_study
from stecflow.submissions.outputs import read_outputs

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "resources" / "demo"
IMAGES = DEMO / "images"
SUBMISSIONS = REPO / "submissions"
#: System ID -> submission folder (team/system) of the demo campaign.
SYSTEMS = {
    "greedy": "organisers/greedy",
    "full-brevity": "organisers/full-brevity",
    "incremental": "organisers/incremental",
    "HUMAN-1": "human/HUMAN-1",
}

#: Short timings so that browser sessions run in seconds.
FAST = {
    "fixation_ms": 60,
    "delay_ms": 40,
    "timeout_ms": 2500,
    "feedback_ms": 60,
    "break_every": 3,
    "beep_ms": 40,
}


@cache
def demo_items() -> tuple[tuple[Item, ...], tuple[Item, ...]]:
    """The demo test and development items."""
    return tuple(read_items(DEMO / "test.xml")), tuple(read_items(DEMO / "dev.xml"))


@cache
def demo_outputs(systems: tuple[str, ...]) -> dict[str, dict[str, str]]:
    """System ID -> {item -> word string} from the demo submissions."""
    test, _ = demo_items()
    outputs = {}
    for system in systems:
        path = SUBMISSIONS / SYSTEMS[system] / "outputs.xml"
        rows, _problems = read_outputs(
            path.read_bytes(), str(path), test, ["end_to_end"]
        )
        outputs[system] = {o.item_id: o.word_string for o in rows if o.word_string}
    return outputs


def demo_design(
    *,
    systems: Sequence[str] = ("full-brevity", "greedy", "HUMAN-1"),
    n_items: int = 6,
    subjects: int = 3,
    n_practice: int = 2,
    seed: int = 11,
    study: str = "demo-study",
    first_item: int = 0,
) -> Design:
    """A repeated-Latin-square design on the first demo test items."""
    test, dev = demo_items()
    chosen = test[first_item : first_item + n_items]
    return latin_square_design(
        list(systems),
        [i.id for i in chosen],
        subjects=subjects,
        seed=seed,
        subdomains={i.id: i.subdomain for i in chosen},
        practice_pool=[i.id for i in dev[:20]],
        n_practice=n_practice,
        study=study,
    )


def build_demo_study(
    root: Path,
    *,
    task: str = "rating",
    variant: str | None = None,
    settings: Mapping[str, Any] | None = None,
    dmdx: bool = False,
    **design_options: Any,
) -> Path:
    """Build a demo study into ``root/<study>/web`` (and ``dmdx``); return the study folder."""
    design = demo_design(**design_options)
    test, dev = demo_items()
    outputs = demo_outputs(tuple(sorted(design.systems)))
    study_dir = root / design.study
    build_study(
        design,
        test + dev,
        outputs,
        task=task,
        variant=variant,
        images_dir=IMAGES,
        out_dir=study_dir / "web",
        dmdx_dir=study_dir / "dmdx" if dmdx else None,
        settings=dict(settings or {}),
    )
    return study_dir


#: A list of three situated trials of the demo dialogue corpus (seed 000).
SITUATED_LIST = [
    ("s01", "s01-e007", None),
    ("s01", "s01-e010", "that one"),
    ("s01", "s01-e014", None),
]


def build_situated_demo(root: Path, **options: Any) -> Path:
    """Build a situated study of the demo dialogues into ``root/web``; return it."""
    from stecflow.data.dialogue import read_corpus
    from stecflow.studykinds.situated_identification.stimuli import build_situated_study

    web = root / "web"
    build_situated_study(
        read_corpus(REPO / "resources" / "dialogue-demo"),
        {"L01": SITUATED_LIST},
        study="situated-layout",
        out_dir=web,
        **options,
    )
    return web

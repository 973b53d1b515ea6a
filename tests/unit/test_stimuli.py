"""Tests of stecflow.studies.stimuli and its parts: the web experiment's files
(stecflow.studies.bundle), the REG scene of an item (stecflow.tasks.reg.scene), speech
(stecflow.studies.speech) and the DMDX item files (stecflow.studies.dmdx)."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import subprocess
import sys
import wave
from pathlib import Path

import pytest

from stecflow.core.errors import ConfigError, StimuliError
from stecflow.data.model import Domain, Entity, EntityAttribute, Item, Reference
from stecflow.studies import dmdx, speech
from stecflow.studies.bundle import study_sha256
from stecflow.studies.designs import latin_square_design, two_group_design
from stecflow.studies.dmdx import make_dmdx_files
from stecflow.studies.settings import RESPONSE_COLUMNS, StudySettings
from stecflow.studies.speech import espeak_version
from stecflow.studies.stimuli import build_study, make_study_files
from stecflow.studies.strings import (
    ADEQUACY_QUESTION,
    FLUENCY_QUESTION,
    SITUATED_UI_STRINGS,
    TEXT_UI_STRINGS,
    UI_STRINGS,
    placeholders,
)
from stecflow.tasks.reg.pictures import image_name
from stecflow.tasks.reg.scene import scene
from tests.browser.studykit import IMAGES, demo_design, demo_items, demo_outputs

SYSTEMS = ("full-brevity", "greedy", "HUMAN-1")
TEXT_SUFFIXES = (".html", ".js", ".css", ".json", ".svg", ".tsv", ".txt", ".rtf")
#: XML namespace names are identifiers, not addresses: nothing is fetched from them.
NAMESPACES = ("http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink")


def _inputs(**options):
    design = demo_design(systems=SYSTEMS, **options)
    test, dev = demo_items()
    return design, test + dev, demo_outputs(tuple(sorted(SYSTEMS)))


def _files(task="rating", variant=None, settings=None, **options):
    design, items, outputs = _inputs(**options)
    return make_study_files(
        design,
        items,
        outputs,
        task=task,
        variant=variant,
        images_dir=IMAGES,
        settings=settings,
    )


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


# --------------------------------------------------------------------------- lists


@pytest.mark.parametrize("subjects", [3, 6])
def test_one_list_per_subject_slot_in_design_order(subjects):
    design, items, outputs = _inputs(n_items=6, subjects=subjects)
    bundle = make_study_files(design, items, outputs, task="rating", images_dir=IMAGES)
    lists = bundle.document["lists"]
    assert len(lists) == design.subjects == subjects
    assert [x["list"] for x in lists] == sorted(design.trials["list"].unique())
    for lst in lists:
        expected = design.trials[design.trials["list"] == lst["list"]]
        got = [
            (t["order"], t["item"], t["system"], t["practice"], t["filler"])
            for t in lst["trials"]
        ]
        want = [
            (
                int(r.order),
                r.item,
                r.system if isinstance(r.system, str) else None,
                bool(r.practice),
                bool(r.filler),
            )
            for r in expected.itertuples()
        ]
        assert got == want


def test_trials_carry_description_target_and_grid():
    bundle = _files()
    test, dev = demo_items()
    by_id = {i.id: i for i in test + dev}
    outputs = demo_outputs(tuple(sorted(SYSTEMS)))
    for lst in bundle.document["lists"]:
        for trial in lst["trials"]:
            item = by_id[trial["item"]]
            if trial["system"] is None:  # practice: the human reference
                assert trial["practice"]
                assert trial["description"] == item.references[0].word_string
            else:
                assert trial["description"] == outputs[trial["system"]][item.id]
            assert trial["target"] == item.domain.target.id
            assert trial["grid"] == [5, 3]
            for entity in trial["entities"]:
                source = next(e for e in item.domain.entities if e.id == entity["id"])
                assert entity["x"] == int(source.value_of("x-dimension"))
                assert entity["y"] == int(source.value_of("y-dimension"))
                assert entity["image"] == f"images/{source.image}"


def test_document_has_the_seed_questions_and_columns():
    doc = _files().document
    assert doc["texts"]["adequacy_question"] == ADEQUACY_QUESTION
    assert doc["texts"]["fluency_question"] == FLUENCY_QUESTION
    assert ADEQUACY_QUESTION.startswith("How clear is this description?")
    assert ADEQUACY_QUESTION.endswith("based on the phrase given?")
    assert FLUENCY_QUESTION.endswith("Is it good, clear English?")
    assert doc["columns"] == list(RESPONSE_COLUMNS)
    assert doc["settings"]["timeout_ms"] == 15000
    assert doc["settings"]["fixation_ms"] == 1000
    assert doc["settings"]["delay_ms"] == 500
    assert doc["design"]["kind"] == "latin_square"


# --------------------------------------------------------------------------- bytes


def test_build_is_byte_deterministic_and_independent_of_input_order(tmp_path):
    design, items, outputs = _inputs()
    first = build_study(
        design,
        items,
        outputs,
        task="identification",
        variant="read_first",
        images_dir=IMAGES,
        out_dir=tmp_path / "a" / "web",
        dmdx_dir=tmp_path / "a" / "dmdx",
    )
    shuffled = {
        s: dict(reversed(list(o.items()))) for s, o in reversed(outputs.items())
    }
    second = build_study(
        demo_design(systems=tuple(reversed(SYSTEMS))),
        list(reversed(items)),
        shuffled,
        task="identification",
        variant="read_first",
        images_dir=IMAGES,
        out_dir=tmp_path / "b" / "web",
        dmdx_dir=tmp_path / "b" / "dmdx",
    )
    assert first == second
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    assert first["sha256"] == study_sha256(tmp_path / "a" / "web")


def test_building_in_another_process_gives_the_same_bytes(tmp_path):
    code = (
        "import sys; from pathlib import Path; "
        "from tests.browser.studykit import build_demo_study; "
        "build_demo_study(Path(sys.argv[1]), task='rating')"
    )
    root = Path(__file__).resolve().parents[2]
    for name in ("x", "y"):
        subprocess.run(
            [sys.executable, "-c", code, str(tmp_path / name)],
            check=True,
            cwd=root,
            env={"PYTHONHASHSEED": name == "x" and "1" or "2", "PATH": ""},
        )
    assert _tree(tmp_path / "x") == _tree(tmp_path / "y")


def test_no_network_references_in_generated_files(tmp_path):
    design, items, outputs = _inputs()
    build_study(
        design,
        items,
        outputs,
        task="identification",
        images_dir=IMAGES,
        out_dir=tmp_path / "web",
        dmdx_dir=tmp_path / "dmdx",
        settings={"cant_tell": True},
    )
    checked = 0
    for path in sorted(tmp_path.rglob("*")):
        if path.suffix not in TEXT_SUFFIXES:
            continue
        text = path.read_text(encoding="utf-8")
        for url in re.findall(r"(?:https?|ftp|wss?)://[^\s\"'<>)]*", text):
            assert url in NAMESPACES, f"{path.name}: {url}"
            assert f'xmlns="{url}"' in text or f'xmlns:xlink="{url}"' in text
        assert "//cdn" not in text and "@import" not in text
        checked += 1
    assert checked > 10
    html = (tmp_path / "web" / "index.html").read_text()
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert sorted(sources) == [
        "data:,",
        "experiment.css",
        "experiment.js",
        "stimuli.js",
    ]


def _manifest_matches(folder: Path) -> None:
    with open(folder / "MANIFEST.tsv", encoding="utf-8") as handle:
        manifest = list(csv.DictReader(handle, delimiter="\t"))
    files = {p.relative_to(folder).as_posix() for p in folder.rglob("*")}
    files = {f for f in files if (folder / f).is_file()} - {"MANIFEST.tsv"}
    assert {row["path"] for row in manifest} == files
    for row in manifest:
        data = (folder / row["path"]).read_bytes()
        assert int(row["size"]) == len(data)
        assert row["sha256"] == hashlib.sha256(data).hexdigest()


def test_every_picture_is_shipped_and_listed_in_the_manifest(tmp_path):
    design, items, outputs = _inputs()
    web = tmp_path / "web"
    build_study(design, items, outputs, task="rating", images_dir=IMAGES, out_dir=web)
    key = json.loads((tmp_path / "stimuli-key.json").read_text())
    referenced = {
        e["image"] for lst in key["lists"] for t in lst["trials"] for e in t["entities"]
    }
    for image in referenced:
        copy = web / image
        assert copy.is_file(), image
        assert copy.read_bytes() == (IMAGES / Path(image).name).read_bytes()
    # the served folder has every list's pictures (a session may get any list)
    shipped = {p.relative_to(web).as_posix() for p in web.rglob("*.svg")}
    assert shipped == referenced
    _manifest_matches(web)
    doc = json.loads((web / "stimuli.json").read_text())
    assert "lists" not in doc and "design" not in doc
    assert (
        doc["design_sha256"]
        == hashlib.sha256((tmp_path / "stimuli-key.json").read_bytes()).hexdigest()
    )
    js = (web / "stimuli.js").read_text()
    assert json.loads(js.split(" = ", 1)[1].split(";\n", 1)[0]) == doc
    sha = hashlib.sha256((web / "stimuli.json").read_bytes()).hexdigest()
    assert f'window.STECFLOW_STUDY.sha256 = "{sha}";' in js
    # each offline copy has its own list and only the pictures that list shows
    copies = sorted(p.name for p in (tmp_path / "offline").iterdir())
    assert copies == [lst["list"] for lst in key["lists"]]
    for lst in key["lists"]:
        copy = tmp_path / "offline" / lst["list"]
        own = json.loads((copy / "stimuli.json").read_text())
        assert [x["list"] for x in own["lists"]] == [lst["list"]]
        assert own["lists"][0] == key["participant_lists"][lst["list"]]
        wanted = {e["image"] for t in lst["trials"] for e in t["entities"]}
        assert {p.relative_to(copy).as_posix() for p in copy.rglob("*.svg")} == wanted
        _manifest_matches(copy)


def test_study_sha256_detects_changed_files(tmp_path):
    design, items, outputs = _inputs()
    build_study(design, items, outputs, task="rating", out_dir=tmp_path / "web")
    study_sha256(tmp_path / "web")
    (tmp_path / "web" / "experiment.css").write_text("body { color: red }\n")
    with pytest.raises(StimuliError, match="experiment.css differs"):
        study_sha256(tmp_path / "web")


def test_a_built_study_is_not_overwritten_by_accident(tmp_path):
    design, items, outputs = _inputs()
    web = tmp_path / "web"
    build_study(design, items, outputs, task="rating", out_dir=web)
    with pytest.raises(StimuliError, match="frozen"):
        build_study(design, items, outputs, task="rating", out_dir=web)
    (web / "stale.txt").write_text("left over")
    (tmp_path / "offline" / "L01" / "stale.txt").write_text("left over")
    build_study(design, items, outputs, task="rating", out_dir=web, overwrite=True)
    assert not (web / "stale.txt").exists()
    assert not (tmp_path / "offline" / "L01" / "stale.txt").exists()


# --------------------------------------------------------------------------- pictures


def _entity(eid, target=False, attrs=(), image=None):
    return Entity(
        eid, target, tuple(EntityAttribute(n, v) for n, v in attrs), image=image
    )


def _b5ref_like_items():
    people = [
        ("gender", "male"),
        ("hair.colour", "dark"),
        ("glasses", "no"),
    ]
    items = []
    for k in range(1, 5):
        entities = tuple(
            _entity(chr(ord("a") + j), j == 0, [*people, ("id", f"{k}-{j}")])
            for j in range(6)
        )
        items.append(
            Item(
                f"ctx-{k:02d}",
                Domain(entities),
                "people",
                references=(Reference(word_string="o homem de óculos {sério}"),),
            )
        )
    return items


def test_entities_without_pictures_or_positions_get_placeholders_and_a_layout():
    items = _b5ref_like_items()
    design = latin_square_design(
        ["A", "B"], [i.id for i in items[:2]], subjects=2, seed=3, study="b5"
    )
    outputs = {s: {i.id: f"descrição {s}" for i in items} for s in ("A", "B")}
    bundle = make_study_files(design, items, outputs, task="identification")
    firsts = set()
    for lst in bundle.document["lists"]:
        for trial in lst["trials"]:
            assert trial["grid"] == [3, 2]
            cells = {(e["x"], e["y"]) for e in trial["entities"]}
            assert cells == {(x, y) for x in (1, 2, 3) for y in (1, 2)}
            for entity in trial["entities"]:
                assert re.fullmatch(
                    r"images/placeholder-[0-9a-f]{16}\.svg", entity["image"]
                )
                svg = bundle.files[entity["image"]].decode()
                assert f">{entity['id']}</text>" in svg and "glasses: no" in svg
            first = min(trial["entities"], key=lambda e: (e["y"], e["x"]))
            firsts.add(first["id"] == trial["target"])
    # the layout is drawn from the seed: it does not follow the document order
    again = make_study_files(design, items, outputs, task="identification")
    assert again.files == bundle.files
    assert False in firsts  # the target is not always in the first cell


def test_demo_drawings_for_entities_with_demo_attributes_but_no_image():
    attrs = [("type", "desk"), ("colour", "grey"), ("size", "small")]
    entities = (
        _entity(
            "e1",
            True,
            [
                *attrs,
                ("orientation", "left"),
                ("x-dimension", "1"),
                ("y-dimension", "1"),
            ],
        ),
        _entity(
            "e2",
            False,
            [
                *attrs,
                ("orientation", "back"),
                ("x-dimension", "2"),
                ("y-dimension", "3"),
            ],
        ),
    )
    items = [Item(f"t{k}", Domain(entities), "furniture") for k in (1, 2)]
    design = latin_square_design(["A", "B"], ["t1", "t2"], subjects=2, seed=1)
    outputs = {"A": {"t1": "x", "t2": "y"}, "B": {"t1": "z", "t2": "w"}}
    bundle = make_study_files(design, items, outputs, task="rating")
    name = image_name({n: v for n, v in [*attrs, ("orientation", "left")]})
    assert f"images/{name}" in bundle.files
    assert bundle.files[f"images/{name}"].startswith(b"<svg")


def test_missing_picture_file_is_an_error_naming_the_item(tmp_path):
    design, items, outputs = _inputs()
    with pytest.raises(StimuliError, match=r"is not in .*data.images"):
        make_study_files(design, items, outputs, task="rating", images_dir=tmp_path)


def test_scene_is_what_the_trials_show():
    """The REG scene's grid, entities and pictures are the trials', images/ aside."""
    bundle = _files()
    test, dev = demo_items()
    by_id = {i.id: i for i in test + dev}
    design = demo_design(systems=SYSTEMS)
    seen = set()
    for lst in bundle.document["lists"]:
        for trial in lst["trials"]:
            grid, entities, pictures = scene(by_id[trial["item"]], IMAGES, design.seed)
            assert trial["grid"] == grid
            target = by_id[trial["item"]].domain.target.id
            # a rating trial marks its target: the frame is part of the stimulus
            assert trial["entities"] == [
                {**e, "image": f"images/{e['image']}"}
                | ({"marked": True} if e["id"] == target else {})
                for e in entities
            ]
            assert entities == sorted(entities, key=lambda e: (e["y"], e["x"]))
            assert set(pictures) == {e["image"] for e in entities}
            for name, data in pictures.items():
                assert bundle.files[f"images/{name}"] == data
            seen.add(trial["item"])
    assert len(seen) > 5


def test_scene_errors_name_the_item(tmp_path):
    def chair(eid, x, y, image=None):
        attrs = [
            ("type", "chair"),
            ("colour", "red"),
            ("size", "large"),
            ("orientation", "front"),
            ("x-dimension", str(x)),
            ("y-dimension", str(y)),
        ]
        return _entity(eid, eid == "e1", attrs, image=image)

    shared = Item("t1", Domain((chair("e1", 1, 1), chair("e2", 1, 1))), "furniture")
    with pytest.raises(StimuliError, match="share a grid cell") as error:
        scene(shared, None, 1)
    assert error.value.field == "item t1"
    bad = Item("t2", Domain((chair("e1", 1, 1), chair("e2", 2, 1, "../x.svg"))), "f")
    with pytest.raises(StimuliError, match="must be a plain file name") as error:
        scene(bad, None, 1)
    assert error.value.field == "item t2"
    # a corpus file named like the demo drawing of another entity of the item
    (tmp_path / "chair-red-large-front.svg").write_bytes(b"<svg/>")
    named = chair("e1", 1, 1, "chair-red-large-front.svg")
    clash = Item("t3", Domain((named, chair("e2", 2, 1))), "furniture")
    with pytest.raises(StimuliError, match="two different pictures are both called"):
        scene(clash, tmp_path, 1)


def test_the_reg_scene_does_not_import_the_studies():
    """tasks.reg may import core, data and metrics only: never stecflow.studies."""
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import stecflow.tasks.reg.scene, sys; print(' '.join(sys.modules))",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert not [m for m in out if m.startswith("stecflow.studies")]


def test_missing_output_is_an_error_listing_every_gap():
    design, items, outputs = _inputs()
    broken = {s: dict(o) for s, o in outputs.items()}
    removed = sorted(broken["greedy"])[:6]
    for item in removed:
        del broken["greedy"][item]
    with pytest.raises(StimuliError, match="no output of system greedy") as error:
        make_study_files(design, items, broken, task="rating")
    assert "problem(s)" in str(error.value)


@pytest.mark.parametrize(
    ("task", "variant", "message"),
    [
        ("ranking", None, "not one of rating, identification"),
        ("rating", "spoken", "a rating study has no variant"),
        ("identification", "sung", "not one of together, read_first, spoken"),
    ],
)
def test_unknown_task_or_variant(task, variant, message):
    design, items, outputs = _inputs()
    with pytest.raises(StimuliError, match=message):
        make_study_files(design, items, outputs, task=task, variant=variant)


# --------------------------------------------------------------------------- settings


def test_settings_reject_unknown_keys_and_bad_values():
    with pytest.raises(ConfigError, match="experiment.fixation: unknown key"):
        StudySettings.from_mapping({"fixation": 100})
    with pytest.raises(ConfigError, match="experiment.timeout_ms: must be between"):
        StudySettings.from_mapping({"timeout_ms": 10})
    with pytest.raises(ConfigError, match="completion_code"):
        StudySettings(completion_code="has spaces")
    with pytest.raises(ConfigError, match="must be true or false"):
        StudySettings(cant_tell="yes")
    assert StudySettings.from_mapping(None) == StudySettings()


def test_settings_reach_the_page_and_custom_instructions_replace_the_default():
    doc = _files(
        task="identification",
        settings={"cant_tell": True, "instructions": "One.\n\nTwo."},
    ).document
    assert doc["settings"]["cant_tell"] is True
    assert doc["texts"]["instructions"] == ["One.", "Two."]
    default = _files(task="identification", settings={"cant_tell": True}).document
    assert any("Can't tell" in p for p in default["texts"]["instructions"])
    assert any("2 practice examples" in p for p in default["texts"]["instructions"])


# ------------------------------------------------------------------------ languages

#: index.html of the English demo identification study, as stecflow has always
#: written it (checked byte for byte against a build from before translations).
ENGLISH_INDEX = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>Descriptions of pictures</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="experiment.css">
</head>
<body data-study="demo-study" data-task="identification" data-variant="together">
<header id="header">
<h1 id="title">Descriptions of pictures</h1>
<div id="progress-box" hidden><span id="progress-text"></span>\
<progress id="progress" max="1" value="0"></progress></div>
</header>
<main id="app" aria-live="polite">
<noscript><p class="error">This experiment needs JavaScript. \
Please enable it and reload the page.</p></noscript>
<p id="loading">Loading&hellip;</p>
</main>
<footer id="status" role="status"></footer>
<script src="stimuli.js"></script>
<script src="experiment.js"></script>
</body>
</html>
"""


def test_english_default_study_files_are_as_before():
    files = _files(task="identification", variant="together")
    assert files.files["index.html"].decode("utf-8") == ENGLISH_INDEX
    doc = files.document
    assert "language" not in doc["settings"] and "strings" not in doc["settings"]
    assert set(doc["texts"]) == {
        "instructions",
        "adequacy_question",
        "fluency_question",
        "adequacy_labels",
        "fluency_labels",
    }
    assert doc["texts"]["instructions"] == [
        "In each trial you will see a grid of pictures together with a description"
        " of one of them. Click the picture you think is meant, as quickly and as"
        " accurately as you can.",
        "You start each trial yourself by clicking 'Start' or pressing the space"
        " bar. You will then hear a short beep and see a cross (+) in the middle of"
        " the screen: look at it. A trial ends after 15 seconds if no picture has"
        " been chosen.",
        "You will start with 2 practice examples.",
    ]
    assert doc["texts"]["adequacy_labels"] == ["not clear", "very clear"]
    assert doc["texts"]["fluency_labels"] == ["not fluent", "very fluent"]
    # Stating the default language explicitly changes nothing either.
    explicit = _files(
        task="identification", variant="together", settings={"language": "en"}
    )
    assert explicit.files == files.files


def test_japanese_study_document_and_page():
    settings = {"language": "ja", "cant_tell": True, "timeout_ms": 9000}
    files = _files(task="identification", variant="together", settings=settings)
    doc = files.document
    assert doc["settings"]["language"] == "ja"
    assert doc["texts"]["language"] == "ja"
    assert doc["texts"]["ui"] == UI_STRINGS["ja"]
    assert doc["texts"]["ui"]["cant_tell"] == "わからない"
    instructions = doc["texts"]["instructions"]
    assert instructions[0] == UI_STRINGS["ja"]["instructions_together"]
    assert instructions[1].endswith("9秒以内に絵が選ばれないと、その試行は終了します。")
    assert instructions[2] == (
        "どの絵が指されているかわからない場合は、「わからない」をクリックしてください。"
    )
    assert instructions[3] == "はじめに2問の練習があります。"
    html = files.files["index.html"].decode("utf-8")
    assert '<html lang="ja">' in html
    assert "<title>絵の説明</title>" in html and doc["settings"]["title"] == "絵の説明"
    titled = StudySettings(language="ja", title="タングラム")
    assert titled.title == "タングラム"
    assert '<p id="loading">読み込み中&hellip;</p>' in html
    assert "この実験にはJavaScriptが必要です。" in html
    rating = _files(settings={"language": "ja"}).document["texts"]
    assert rating["adequacy_labels"] == ["明確でない", "とても明確"]
    assert rating["instructions"][2] == "1. " + UI_STRINGS["ja"]["adequacy_question"]
    # stimuli.json is ASCII (escaped), the page's own text is UTF-8
    assert files.files["stimuli.json"].isascii()


def test_single_strings_can_be_replaced():
    settings = {
        "cant_tell": True,
        "strings": {
            "cant_tell": "I don't know",
            "instructions_cant_tell": 'If you cannot tell, click "I don\'t know".',
            "progress_trial": "Item {n}/{total}",
        },
    }
    doc = _files(task="identification", variant="together", settings=settings).document
    ui = doc["texts"]["ui"]
    assert ui["cant_tell"] == "I don't know"
    assert ui["progress_trial"] == "Item {n}/{total}"
    assert ui["start"] == "Start"
    assert doc["texts"]["language"] == "en"
    assert (
        doc["texts"]["instructions"][2] == 'If you cannot tell, click "I don\'t know".'
    )
    assert doc["settings"]["strings"] == dict(sorted(settings["strings"].items()))
    ja = StudySettings(language="ja", strings={"start": "スタート"}).ui_strings()
    assert ja["start"] == "スタート" and ja["next"] == "次へ"


def test_language_settings_are_checked():
    with pytest.raises(ConfigError, match="experiment.language: must be one of en, ja"):
        StudySettings.from_mapping({"language": "de"})
    with pytest.raises(ConfigError, match="experiment.strings.cancel: unknown"):
        StudySettings.from_mapping({"strings": {"cancel": "x"}})
    with pytest.raises(ConfigError, match="strings.break: must have the fields"):
        StudySettings(strings={"break": "A break: {done} done."})
    with pytest.raises(ConfigError, match="strings.start: must be a string"):
        StudySettings(strings={"start": 3})
    with pytest.raises(ConfigError, match="strings: must be null or a mapping"):
        StudySettings(strings=["start"])


def test_every_language_has_every_string_with_the_same_fields():
    english = UI_STRINGS["en"]
    for language, table in UI_STRINGS.items():
        assert list(table) == list(english), language
        for key, text in table.items():
            assert text.strip(), (language, key)
            assert placeholders(text) == placeholders(english[key]), (language, key)
    assert english["adequacy_question"] == ADEQUACY_QUESTION
    assert english["fluency_question"] == FLUENCY_QUESTION


def test_the_runner_shows_only_strings_of_the_table():
    """core.js's English table is UI_STRINGS["en"], and every key the core and
    the kinds' components use is in the table (the page shows no string a study
    cannot translate)."""
    web = Path(__file__).resolve().parents[2] / "src/stecflow/studies/web"
    js = "".join(
        path.read_text(encoding="utf-8")
        for path in [web / "core.js", *sorted((web / "components").glob("*.js"))]
    )
    block = js.split("const UI_EN = {\n", 1)[1].split("\n  };", 1)[0]
    table = {}
    for line in block.splitlines():
        key, value = line.strip().split(": ", 1)
        table[key] = json.loads(value.rstrip(","))
    english = UI_STRINGS["en"]
    assert table == {k: english[k] for k in table}
    used = set(re.findall(r'\bt\("(\w+)"', js))
    assert used == set(table)
    not_in_js = {k for k in english if k not in table}
    assert all(
        k.startswith(("html_", "instructions_"))
        or k.endswith("_question")
        or "_label_" in k
        for k in not_in_js
    )


def test_config_schema_lists_every_interface_string():
    import yaml

    schema = yaml.safe_load(
        (
            Path(__file__).resolve().parents[2] / "workflow/schemas/config.schema.yaml"
        ).read_text(encoding="utf-8")
    )
    experiment = schema["properties"]["studies"]["items"]["properties"]["experiment"]
    props = experiment["properties"]
    assert props["language"]["enum"] == ["en", "ja"]
    # the REG studies' strings, then the situated trial's (seed 000), then the
    # text trials' (stecflow.studies.text)
    assert props["strings"]["propertyNames"]["enum"] == list(UI_STRINGS["en"]) + list(
        SITUATED_UI_STRINGS["en"]
    ) + list(TEXT_UI_STRINGS["en"])


# --------------------------------------------------------------------------- speech


def test_spoken_variant_refuses_without_espeak(monkeypatch):
    monkeypatch.setattr(speech.shutil, "which", lambda name: None)
    with pytest.raises(StimuliError, match="apt-get install espeak-ng"):
        _files(task="identification", variant="spoken")


def test_spoken_variant_calls_the_speech_module(monkeypatch):
    """The builder looks espeak-ng up through stecflow.studies.speech (patchable)."""
    said = []

    def fake_speak(text, voice, wpm):
        said.append((text, voice, wpm))
        return b"RIFF" + text.encode()

    monkeypatch.setattr(speech, "espeak_version", lambda: "0.test")
    monkeypatch.setattr(speech, "speak", fake_speak)
    bundle = _files(task="identification", variant="spoken")
    assert bundle.document["speech"]["version"] == "0.test"
    assert said and all(v == "en-us" and w == 150 for _, v, w in said)
    for lst in bundle.document["lists"]:
        for trial in lst["trials"]:
            wav = bundle.files[trial["audio"]]
            assert wav == b"RIFF" + trial["description"].encode()


@pytest.mark.skipif(espeak_version() is None, reason="espeak-ng is not installed")
def test_spoken_variant_ships_one_deterministic_wav_per_description():
    first = _files(task="identification", variant="spoken")
    second = _files(task="identification", variant="spoken")
    assert first.files == second.files
    doc = first.document
    assert doc["speech"]["engine"] == "espeak-ng" and doc["speech"]["voice"] == "en-us"
    texts = {}
    for lst in doc["lists"]:
        for trial in lst["trials"]:
            assert trial["audio"] in first.files
            texts.setdefault(trial["audio"], set()).add(trial["description"])
    assert all(len(t) == 1 for t in texts.values())
    with wave.open(io.BytesIO(first.files[next(iter(texts))])) as handle:
        assert handle.getnframes() > 1000


# --------------------------------------------------------------------------- DMDX


def _read_items_tsv(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode()), delimiter="\t"))


@pytest.mark.parametrize("variant", ["together", "read_first"])
def test_dmdx_item_file_per_list(variant):
    bundle = _files(task="identification", variant=variant)
    files = make_dmdx_files(bundle)
    doc = bundle.document
    assert files == make_dmdx_files(bundle)
    assert "README.txt" in files and files["bell.wav"].startswith(b"RIFF")
    for lst in doc["lists"]:
        rtf = files[f"{lst['list']}.rtf"].decode("ascii")
        assert rtf.startswith("{\\rtf1") and rtf.rstrip().endswith("}")
        assert rtf.count("{") == rtf.count("}")
        lines = rtf.splitlines()
        assert lines[1].startswith("<ep>") and "<t 15000>" in lines[1]
        assert "<id mouse>" in lines[1] and lines[1].endswith("<eop>\\par")
        numbers = [int(m) for m in re.findall(r"^\+(\d+) ", rtf, flags=re.M)]
        orders = [t["order"] for t in lst["trials"]]
        if variant == "together":
            assert numbers == orders
        else:
            assert numbers == [n for o in orders for n in (10000 + o, o)]
        assert rtf.count('<wav> "bell"') == len(orders)
        assert rtf.count('<msfd 1000> <xy .5,.5> "+"') == len(orders)
        table = _read_items_tsv(files[f"{lst['list']}-items.tsv"])
        assert len(table) == len(orders) * (1 if variant == "together" else 2)
        for row in table:
            trial = next(t for t in lst["trials"] if t["order"] == int(row["order"]))
            assert (
                row["item"] == trial["item"] and row["target_entity"] == trial["target"]
            )
            boxes = dict(b.split(":") for b in row["boxes"].split(";"))
            assert set(boxes) == {e["id"] for e in trial["entities"]}
            for box in boxes.values():
                x1, y1, x2, y2 = map(float, box.split(","))
                assert 0 <= x1 < x2 <= 1 and 0 <= y1 < y2 <= 1
        for trial in lst["trials"]:
            for entity in trial["entities"]:
                assert f'"{Path(entity["image"]).stem}"' in rtf


def test_dmdx_escapes_rtf_and_rating_studies_get_a_readme_only():
    assert dmdx._rtf('o "homem" {sério} \\ ção') == (
        "o 'homem' \\{s\\u233?rio\\} \\\\ \\u231?\\u227?o"
    )
    files = make_dmdx_files(_files(task="rating"))
    assert sorted(files) == ["README.txt"]
    assert b"Rating studies have no DMDX files" in files["README.txt"]


@pytest.mark.skipif(espeak_version() is None, reason="espeak-ng is not installed")
def test_dmdx_spoken_items_play_the_descriptions():
    bundle = _files(task="identification", variant="spoken")
    files = make_dmdx_files(bundle)
    for path in bundle.audio:
        assert files[Path(path).name] == bundle.audio[path]
    rtf = files["L01.rtf"].decode()
    assert rtf.count("* <msfd 500>") == len(bundle.document["lists"][0]["trials"])


# --------------------------------------------------------------------------- designs


def test_two_group_design_with_cant_tell():
    test, dev = demo_items()
    contexts = [i.id for i in test[:4]]
    shared = [i.id for i in test[4:6]]
    design = two_group_design(
        contexts,
        original="HUMAN-1",
        replacement="greedy",
        shared=shared,
        subjects=2,
        seed=5,
        practice_pool=[i.id for i in dev[:5]],
        n_practice=1,
        study="two-groups",
    )
    outputs = demo_outputs(("HUMAN-1", "greedy"))
    bundle = make_study_files(
        design,
        test + dev,
        outputs,
        task="identification",
        settings={"cant_tell": True},
        images_dir=IMAGES,
    )
    lists = bundle.document["lists"]
    assert [x["group"] for x in lists] == [1, 2]
    sets = {t["item_set"] for x in lists for t in x["trials"] if not t["practice"]}
    assert sets == {"A", "B", "shared"}
    assert bundle.document["settings"]["cant_tell"] is True


def test_importing_stimuli_and_server_is_light():
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import stecflow.studies.stimuli, stecflow.studies.server, sys; print(' '.join(sys.modules))",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    heavy = {"pandas", "scipy", "numpy", "snakemake", "statsmodels", "jinja2"}
    assert not heavy & {m.split(".")[0] for m in out}


# participant screens (issue 17, point 2) -------------------------------------------

PARTICIPANTS = Path(__file__).resolve().parents[2] / "resources" / "participants"


def _screens_settings(language="en", **more):
    return {
        "language": language,
        "consent": str(PARTICIPANTS / f"consent.{language}.md"),
        "questionnaire": str(PARTICIPANTS / f"questionnaire.{language}.yaml"),
        "debrief": str(PARTICIPANTS / f"debrief.{language}.md"),
        **more,
    }


@pytest.mark.parametrize("language", ["en", "ja"])
def test_the_shipped_screens_carry_the_seed_questions(language):
    doc = _files(settings=_screens_settings(language)).document
    screens = doc["screens"]
    assert screens["consent"][0]["kind"] == "h"
    assert screens["debrief"][0]["kind"] == "h"
    questionnaire = screens["questionnaire"]
    assert questionnaire["screen"] == "demographics" and questionnaire["at"] == "start"
    # seed 001 sections 5.2-5.3: gender, education, field, proficiency and
    # variety of the language, colour vision, hearing, handedness (and age)
    assert [f["id"] for f in questionnaire["fields"]] == [
        "gender",
        "age",
        "education",
        "field",
        "native",
        "proficiency",
        "variety",
        "colour_vision",
        "hearing",
        "handedness",
    ]
    types = {f["id"]: f["type"] for f in questionnaire["fields"]}
    assert types["age"] == "number" and types["colour_vision"] == "yes-no"
    assert doc["settings"]["consent"].endswith(f"consent.{language}.md")


def test_english_and_japanese_questionnaires_store_the_same_values():
    from stecflow.studies.screens import read_questionnaire

    en = read_questionnaire(PARTICIPANTS / "questionnaire.en.yaml")
    ja = read_questionnaire(PARTICIPANTS / "questionnaire.ja.yaml")

    def shape(q):
        return [
            (
                f["id"],
                f["type"],
                f["required"],
                [o["value"] for o in f.get("options", [])],
            )
            for f in q["fields"]
        ]

    assert shape(en) == shape(ja)


def test_organiser_text_is_data_not_markup(tmp_path):
    from stecflow.studies.screens import read_text

    path = tmp_path / "consent.md"
    path.write_text(
        "# Consent <script>alert(1)</script>\n\nRead **this**\ncarefully.\n\n"
        "1. one\n   more\n2. <img src=x onerror=alert(1)>\n",
        encoding="utf-8",
    )
    assert read_text(path, field="consent") == [
        {"kind": "h", "text": "Consent <script>alert(1)</script>"},
        {"kind": "p", "text": "Read this carefully."},
        {"kind": "li", "text": "one more"},
        {"kind": "li", "text": "<img src=x onerror=alert(1)>"},
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "fields:\n  - id: age\n    question: Age?\n    type: numbr\n",
            r"q\.yaml, line 4, fields\[1\] \(age\)\.type: must be one of choice, "
            r"text, number, yes-no, got 'numbr'",
        ),
        (
            "fields:\n  - id: g\n    question: G?\n    type: choice\n"
            "    options: [a]\n",
            r"line 5, fields\[1\] \(g\)\.options: a choice needs .* two options",
        ),
        (
            "fields:\n  - {id: a, question: A, type: text}\n"
            "  - {id: a, question: B, type: text}\n",
            r"line 3, fields\[2\] \(a\)\.id: id used twice",
        ),
        (
            "fields:\n  - id: bad id\n    question: A?\n    type: text\n",
            r"line 2, fields\[1\]\.id: id must be 1-64",
        ),
        (
            "fields: [\n",
            r"q\.yaml, line \d+, experiment\.questionnaire: not valid YAML",
        ),
        (
            "screen: s\nfields:\n  - {id: a, question: A, type: text, options: [x, y]}\n",
            r"line 3, fields\[1\] \(a\)\.options: only a choice has options",
        ),
    ],
)
def test_a_bad_questionnaire_names_file_line_and_field(tmp_path, text, message):
    path = tmp_path / "q.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        _files(settings={"questionnaire": str(path)})


def test_a_missing_screen_file_is_named():
    with pytest.raises(ConfigError, match=r"experiment\.consent: cannot read the file"):
        _files(settings={"consent": "no/such/consent.md"})


def test_screen_settings_are_checked():
    with pytest.raises(ConfigError, match="completion_url: must be null or an http"):
        StudySettings(completion_url="javascript:alert(1)")
    with pytest.raises(ConfigError, match="questionnaire_at: must be start or end"):
        StudySettings(questionnaire_at="middle")
    with pytest.raises(ConfigError, match=r"url_params\.worker: unknown"):
        StudySettings(url_params={"worker": "w"})
    settings = StudySettings(url_params={"participant": "PID"})
    assert settings.url_param_names()["participant"][:3] == [
        "PID",
        "participant",
        "PROLIFIC_PID",
    ]
    assert settings.url_param_names()["external_session"][1] == "SESSION_ID"


def test_window_check_takes_the_trial_kinds_layout():
    from stecflow.studykinds.registry import get

    width, height = get(_files().document["task"]).min_window
    assert (width, height) == (860, 650)  # rating's (studykinds/rating.py)
    doc = _files(settings={"check_window": True}).document
    assert (doc["settings"]["min_width"], doc["settings"]["min_height"]) == (
        width,
        height,
    )
    doc = _files(settings={"check_window": True, "min_width": 1300}).document
    assert (doc["settings"]["min_width"], doc["settings"]["min_height"]) == (
        1300,
        height,
    )


def test_a_study_without_screens_has_the_same_document_as_before():
    doc = _files().document
    assert "screens" not in doc
    assert not {"consent", "url_params", "min_width", "messages"} & set(doc["settings"])

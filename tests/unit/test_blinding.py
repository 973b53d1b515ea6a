"""Participants see only their trial (stecflow.studies.blinding, issue 37 points 1-2).

For every kind of study (REG rating, identification in its three variants,
situated identification, text rating with control trials, text preference) a
participant fetches everything a participant can fetch from a real server on
127.0.0.1, as a browser would: the page and its scripts, the session and its
list, every picture, sound and clip that list shows, and the organiser's files
by guessing their names. Nothing fetched names a system, an item, a reference
set, a corpus entity, a correct answer or a control; the offline copy of a list
holds that list only. The answers are checked on the server against the key.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from stecflow.studies.blinding import HIDDEN_FIELDS, KEY_FILE, blind, media_paths
from tests.browser.studykit import build_demo_study, demo_items

ROOT = Path(__file__).resolve().parents[2]
FAST = {"fixation_ms": 60, "delay_ms": 40, "timeout_ms": 2500, "beep_ms": 40}


def _text_study(root: Path, task: str) -> Path:
    from stecflow.data.model import Domain, Item
    from stecflow.studies.designs import latin_square_design
    from stecflow.studies.designs.controls import add_controls
    from stecflow.studies.designs.pairs import pair_design
    from stecflow.studies.text import build_text_study

    systems = ["organisers/template", "organisers/rules", "human/HUMAN-1"]
    items = [Item(f"t{k}", Domain(()), "all", input=f"fact {k}") for k in range(1, 7)]
    outputs = {s: {i.id: f"text {k} of {i.id}" for i in items} for k, s in
               enumerate(systems)}  # fmt: skip
    if task == "text_rating":
        design = latin_square_design(systems, [i.id for i in items], subjects=3, seed=5)
        design = add_controls(design, kind="degraded", per_list=1)
        outputs["CONTROL"] = {i.id: f"broken {i.id} text" for i in items}
        criteria = [{"id": "fluency", "question": "Fluent?", "scale": "likert"}]
    else:
        design = pair_design(systems, [i.id for i in items], subjects=6, seed=2)
        criteria = [{"id": "overall", "question": "Better?", "allow_tie": True}]
    study = root / task
    build_text_study(
        design, items, outputs, task=task, criteria=criteria, out_dir=study / "web"
    )
    return study


def _situated_study(root: Path) -> Path:
    from stecflow.data.dialogue import read_corpus
    from stecflow.studykinds.situated_identification.stimuli import build_situated_study

    sessions = {s.id: s for s in read_corpus(ROOT / "resources" / "dialogue-demo")}
    media = root / "media"
    media.mkdir()
    (media / "FP1-orig-s01-e007.webm").write_bytes(b"a clip")
    lists = {
        "L01": [
            {"session": "s01", "expression": "s01-e007", "system": "Orig",
             "media": "FP1-orig-s01-e007.webm"},
            {"session": "s01", "expression": "s01-e010", "system": "sys-demo",
             "text": "that one"},
        ],
        "L02": [
            {"session": "s01", "expression": "s01-e007", "system": "sys-demo",
             "text": "this"},
            {"session": "s01", "expression": "s01-e010", "system": "Orig"},
        ],
    }  # fmt: skip
    study = root / "situated"
    build_situated_study(
        sessions, lists, study="rexj", out_dir=study / "web", media_dir=media
    )
    return study


def _build(kind: str, root: Path) -> Path:
    if kind.startswith("text_"):
        return _text_study(root, kind)
    if kind == "situated":
        return _situated_study(root)
    if kind == "rating":
        return build_demo_study(root, task="rating", settings=FAST)
    variant = kind.split("-", 1)[1]
    if variant == "spoken" and shutil.which("espeak-ng") is None:
        pytest.skip("the spoken variant needs espeak-ng: apt-get install espeak-ng")
    return build_demo_study(
        root,
        task="identification",
        variant=variant,
        settings=FAST,
        systems=("full-brevity", "greedy", "HUMAN-1"),
        study=f"ident-{variant}",
    )


KINDS = [
    "rating",
    "identification-together",
    "identification-read_first",
    "identification-spoken",
    "situated",
    "text_rating",
    "text_preference",
]


@pytest.fixture(scope="module", params=KINDS)
def study(request, tmp_path_factory) -> Path:
    return _build(request.param, tmp_path_factory.mktemp(request.param))


def _key(study: Path) -> dict[str, Any]:
    return json.loads((study / KEY_FILE).read_text(encoding="utf-8"))


def _hidden(key: dict[str, Any]) -> set[str]:
    """Every value a participant must not see: systems, items, entities, corpus IDs."""
    hidden = set()
    for each in key["lists"]:
        for trial in each["trials"]:
            for name in ("system", "system_left", "system_right", "item", "dialogue",
                         "expression", "control"):  # fmt: skip
                if trial.get(name):
                    hidden.add(str(trial[name]))
            if trial.get("entities"):
                hidden.update(str(e["id"]) for e in trial["entities"])
            if trial.get("target") and trial.get("entities"):
                hidden.add(str(trial["target"]))
    if key["task"] == "text_rating":
        hidden.add("CONTROL")
    return hidden


def _strings(value: Any):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _trials(value: Any):
    """Every trial object in a JSON value (a dict with an ``order`` and an ``id``)."""
    if isinstance(value, dict):
        if "order" in value and "id" in value:
            yield value
        for v in value.values():
            yield from _trials(v)
    elif isinstance(value, list):
        for v in value:
            yield from _trials(v)


def _script_document(js: bytes) -> Any:
    first = js.decode("utf-8").split("\n", 1)[0]
    assert first.startswith("window.STECFLOW_STUDY = ") and first.endswith(";")
    return json.loads(first[len("window.STECFLOW_STUDY = ") : -1])


def assert_blind(documents: list[Any], raw: list[bytes], key: dict[str, Any]) -> None:
    """No hidden field or value in what a participant received."""
    hidden = _hidden(key)
    assert hidden, "the study hides something"
    for document in documents:
        found = hidden & set(_strings(document))
        assert not found, f"the page received {sorted(found)[:5]}"
        for trial in _trials(document):
            leaked = set(trial) & HIDDEN_FIELDS
            if trial.get("practice"):
                leaked -= {"target"}  # the feedback of a practice trial
            assert not leaked, (trial["order"], leaked)
            for entity in trial.get("entities") or ():
                assert set(entity) <= {"id", "image", "x", "y", "marked"}
    distinctive = {h for h in hidden if len(h) >= 5}
    for data in raw:
        for value in distinctive:
            assert value.encode() not in data, value


def test_a_participant_fetches_nothing_that_gives_the_study_away(study, serve):
    key = _key(study)
    client, _ = serve(study)
    documents, raw = [], []
    for path in ("/", "/index.html", "/stimuli.json", "/stimuli.js",
                 "/experiment.js", "/experiment.css"):  # fmt: skip
        status, body, _ = client.call("GET", path)
        assert status == 200, path
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        raw.append(data)
    documents.append(json.loads(raw[2]))
    documents.append(_script_document(raw[3]))
    status, session, _ = client.call(
        "POST", "/api/session", {"participant": "P1", "attempt": "a" * 32}
    )
    assert status == 201, session
    status, state, _ = client.call("GET", "/api/session", token=session["token"])
    assert status == 200
    documents += [session, state]
    shown = session["stimuli"]
    assert state["stimuli"] == shown == key["participant_lists"][session["list"]]
    assert [t["order"] for t in shown["trials"]] == [
        t["order"]
        for t in next(x for x in key["lists"] if x["list"] == shown["list"])["trials"]
    ]
    media = sorted(media_paths(shown))
    assert media or key["task"].startswith("text_")
    for path in media:
        status, body, _ = client.call("GET", "/" + path)
        assert status == 200, path
        raw.append(body if isinstance(body, bytes) else json.dumps(body).encode())
    assert_blind(documents, raw, key)
    # the organiser's files are not there to be fetched, whatever the name
    for path in ("/MANIFEST.tsv", f"/../{KEY_FILE}", f"/{KEY_FILE}",
                 "/%2e%2e/stimuli-key.json", "/offline/L01/stimuli.js",
                 "/../offline/L01/stimuli.js", "/../design.tsv", "/api/list",
                 "/api/trials", "/api/stimuli"):  # fmt: skip
        assert client.call("GET", path)[0] == 404, path


def test_the_server_hands_out_the_sessions_own_list_only(study, serve):
    key = _key(study)
    client, _ = serve(study)
    seen = {}
    for k in range(len(key["lists"])):
        status, session, _ = client.call(
            "POST", "/api/session", {"participant": f"p{k}"}
        )
        assert status == 201
        seen[session["list"]] = session
        # asking for another list by name gets the session's own list
        other = next(x["list"] for x in key["lists"] if x["list"] != session["list"])
        status, state, _ = client.call(
            "GET", f"/api/session?list={other}", token=session["token"]
        )
        assert state["stimuli"]["list"] == session["list"]
        ids = {t["id"] for t in state["stimuli"]["trials"]}
        others = {
            t["id"]
            for x in key["lists"]
            if x["list"] != session["list"]
            for t in x["trials"]
        }
        assert ids and not ids & others  # trial IDs differ from list to list
    assert sorted(seen) == sorted(x["list"] for x in key["lists"])
    # a trial of another list cannot be answered in this session
    first = seen[key["lists"][0]["list"]]
    foreign = key["lists"][1]["trials"][0]
    status, data, _ = client.call(
        "POST",
        "/api/trial",
        {"order": foreign["order"], "trial": foreign["id"], "rt_ms": 10.0},
        first["token"],
    )
    assert status == 400 and "not " + repr(foreign["id"]) in data["error"]


def test_the_web_folder_holds_no_trial_and_each_offline_copy_its_own_list(study):
    key = _key(study)
    web = study / "web"
    every_id = {t["id"] for x in key["lists"] for t in x["trials"]}
    hidden = {h for h in _hidden(key) if len(h) >= 5}
    for path in web.rglob("*"):
        if path.is_file() and path.name != "MANIFEST.tsv":
            data = path.read_bytes()
            assert not any(i.encode() in data for i in every_id), path
            assert not any(h.encode() in data for h in hidden), path
    for each in key["lists"]:
        copy = study / "offline" / each["list"]
        document = _script_document((copy / "stimuli.js").read_bytes())
        assert [x["list"] for x in document["lists"]] == [each["list"]]
        own = {t["id"] for t in each["trials"]}
        data = b"".join(p.read_bytes() for p in copy.rglob("*") if p.is_file())
        assert not any(i.encode() in data for i in every_id - own)
        raw = [p.read_bytes() for p in copy.rglob("*") if p.is_file()]
        assert_blind([document], raw, key)


def test_blinding_is_reproducible_and_keyed_by_the_design():
    doc = {
        "study": "s",
        "settings": {},
        "lists": [
            {"list": "L01", "trials": [{"order": 1, "item": "t1", "system": "A"}]},
            {"list": "L02", "trials": [{"order": 1, "item": "t1", "system": "B"}]},
        ],
    }
    first, again = blind(doc), blind(json.loads(json.dumps(doc)))
    assert first.key == again.key and first.lists == again.lists
    one, two = (first.lists[x]["trials"][0]["id"] for x in ("L01", "L02"))
    assert one != two and len(one) == 21  # per list; 80 bits
    # another design (here: another system in one trial) gives other IDs
    doc["lists"][1]["trials"][0]["system"] = "C"
    assert blind(doc).lists["L01"]["trials"][0]["id"] != one


def test_entities_are_listed_by_cell_not_in_corpus_order():
    test, _ = demo_items()
    item = next(i for i in test if i.domain.entities[0].is_target)
    trial = {
        "order": 1,
        "item": item.id,
        "practice": False,
        "target": item.domain.target.id,
        "entities": [
            {"id": e.id, "image": "images/x.svg", "x": k % 5 + 1, "y": 3 - k // 5}
            for k, e in enumerate(item.domain.entities)
        ],
    }
    shown = blind({"study": "s", "lists": [{"list": "L01", "trials": [trial]}]})
    entities = shown.lists["L01"]["trials"][0]["entities"]
    assert [(e["y"], e["x"]) for e in entities] == sorted(
        (e["y"], e["x"]) for e in trial["entities"]
    )
    # the target, first in the corpus, is not first on the page
    assert (entities[0]["y"], entities[0]["x"]) != (3, 1)


def test_an_offline_file_of_labels_merges_with_the_key(tmp_path):
    """Rows as an offline page saves them: list, order and the label clicked."""
    from stecflow.core.io import read_tsv, write_tsv
    from stecflow.judgments.study import merge_study
    from stecflow.studies.settings import RESPONSE_COLUMNS
    from stecflow.studies.setup import _design_text
    from tests.browser.studykit import DEMO, demo_design

    study = build_demo_study(tmp_path, task="identification", settings=FAST)
    key = _key(study)
    design = tmp_path / "design.tsv"
    design.write_text(_design_text(demo_design()), encoding="utf-8")
    trials = key["lists"][0]["trials"]
    rows = []
    for trial in trials:
        wrong = next(e["id"] for e in trial["entities"] if e["id"] != trial["target"])
        chosen = wrong if trial["order"] % 3 == 0 else trial["target"]
        label = next(k for k, v in trial["labels"].items() if v == chosen)
        rows.append(
            dict.fromkeys(RESPONSE_COLUMNS)
            | {"study": key["study"], "task": "identification", "variant":
               "together", "session": "offline-1", "participant": "lab-1",
               "session_status": "offline", "list": "L01", "order": trial["order"],
               "practice": trial["practice"], "chosen_entity": label,
               "identification_time_ms": 900.0, "rt_ms": 900.0}
        )  # fmt: skip
    offline = tmp_path / "offline.tsv"
    write_tsv(rows, RESPONSE_COLUMNS, offline)

    def merged(**options):
        out = tmp_path / f"judgments-{len(options)}.tsv"
        merge_study(
            design,
            [offline],
            out_judgments_tsv=out,
            items_paths=[DEMO / "test.xml", DEMO / "dev.xml"],
            task="identification",
            study=key["study"],
            **options,
        )
        return {int(r["order"]): r for r in read_tsv(out)}

    got = merged(key_path=study / KEY_FILE)
    for trial in trials:
        row = got[trial["order"]]
        assert (row["item"], row["target_entity"]) == (trial["item"], trial["target"])
        assert row["system"] == (trial["system"] or "")
        assert row["correct"] == ("false" if trial["order"] % 3 == 0 else "true")
    # without the key the labels name no entity of the item: counted as wrong
    unkeyed = merged()
    assert {r["correct"] for r in unkeyed.values()} == {"false"}

"""The situated study's design and stimuli stages on the embedded dialogue demo.

The system is the seed's recency baseline (a demonstrative pronoun iff the target
is the most recently mentioned object, feature D1) over resources/dialogue-demo
(6 sessions, 368 solver expressions).
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import pytest

from stecflow.baselines.situated import recency_outputs, write_submission
from stecflow.core.errors import ConfigError
from stecflow.core.io import read_json, read_tsv
from stecflow.data.dialogue import context_start, read_sessions, write_corpus_file
from stecflow.studies.designs.balance import BALANCE_COLUMNS
from stecflow.studykinds.situated_identification.design import (
    INSTANCE_COLUMNS,
    SITUATED_TRIAL_COLUMNS,
    qualify_instances,
)
from stecflow.studykinds.situated_identification.setup import (
    INSTANCE_TABLE_COLUMNS,
    build_situated_stimuli,
    design_situated_study,
    situated_instances,
)
from stecflow.tasks.situated_dialogue import items_from_sessions

DEMO = Path(__file__).resolve().parents[2] / "resources" / "dialogue-demo"
SYSTEM = "organisers/recency"


@pytest.fixture(scope="module")
def demo():
    sessions = read_sessions(DEMO)
    items = items_from_sessions(sessions)
    decisions = {o.item_id: o for o in recency_outputs(items)}
    return sessions, items, decisions


@pytest.fixture(scope="module")
def table(demo):
    return situated_instances(*demo)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory, demo):
    """A prepared test set, the recency submission and its validation record."""
    sessions, items, decisions = demo
    root = tmp_path_factory.mktemp("campaign")
    write_corpus_file(sessions, root / "testset.json")
    folder = write_submission(
        root / "submissions" / "organisers" / "recency",
        list(decisions.values()),
        description="recency",
    )
    record = root / "validation" / "organisers" / "recency.json"
    record.parent.mkdir(parents=True)
    record.write_text(
        json.dumps({"team": "organisers", "system": "recency", "status": "accepted"}),
        encoding="utf-8",
    )
    return {
        "root": root,
        "testset": root / "testset.json",
        "outputs": folder / "outputs.tsv",
        "validation": record,
    }


def _spec(**situated):
    return {
        "id": "situated",
        "title": None,
        "task": "situated_identification",
        "systems": [SYSTEM],
        "subjects": situated.pop("subjects", 36),
        "seed": 2010,
        "simulate": True,
        "responses": [],
        "corrections": None,
        "experiment": situated.pop("experiment", {"language": "en"}),
        "situated": {
            "features": ["O1", "O2"],
            "halves_by": "target_shape",
            "n_per_class": 20,
            "max_fp": None,
            "trial_budget": 80,
            "max_context_ms": 30000,
            "speaker": "solver",
            "majority": "strict",
            "speech": False,
            "media": None,
            **situated,
        },
    }


def _design(campaign, out: Path, spec=None):
    spec = spec or _spec()
    return design_situated_study(
        spec,
        campaign["testset"],
        campaign["outputs"],
        campaign["validation"],
        out / "design.tsv",
        out / "balance.tsv",
        out / "design.json",
    )


# ------------------------------------------------------------- instance table


def test_instance_table_classes_of_the_recency_baseline(table):
    assert list(table.columns) == list(INSTANCE_TABLE_COLUMNS)
    assert set(INSTANCE_COLUMNS) <= set(table.columns)
    assert len(table) == 368
    assert table["class"].value_counts().to_dict() == {
        "TN": 204,
        "TP": 68,
        "FN": 61,
        "FP": 35,
    }
    # the classes are the corpus's pronoun against the decision
    fp = table[table["class"] == "FP"]
    assert (~fp["corpus_pronoun"] & fp["system_pronoun"]).all()
    # recency decides by D1
    assert (table["system_pronoun"] == table["D1"]).all()
    assert set(table["speaker"]) == {"solver"}


def test_a_hand_checked_row(table):
    # s05-u034 (solver, 132188 ms): "Turn the triangle you just moved a little",
    # target MT. Last earlier mention of MT: s05-u033 "this one" at 126912 ms;
    # last action on MT begun before the onset: s05-a030, a move 129410-131094 ms.
    # The context holds both: it starts at min(126912, 129410), 5276 ms long.
    row = table.set_index("instance").loc["s05-e034"]
    assert row["session"] == "s05"
    assert row["class"] == "FP"  # D1 true (MT was mentioned last), corpus: no DP
    assert row["target"] == "MT"
    assert row["target_shape"] == "medium_triangle"
    assert row["utterance_start_ms"] == 132188
    assert row["last_mention_ms"] == 126912
    assert row["last_action_ms"] == 129410
    assert row["context_start_ms"] == 126912
    assert row["D2"] == 132188 - 126912
    assert row["A2"] == 132188 - 131094
    assert (row["D1"], row["D3"], row["D4"], row["D5"]) == (True, True, 0, 11)
    assert (row["A1"], row["A3"], row["A4"], row["A5"]) == (True, "move", 0, 9)
    assert (row["O1"], row["O2"]) == (False, False)
    assert row["form"] == "action_mentioning"
    assert row["original_expression"] == "the triangle you just moved"
    assert row["system_expression"] == "that one"  # the demonstrative of "en"
    assert (row["corpus_pronoun"], row["system_pronoun"]) == (False, True)


def test_times_of_instances_without_a_short_context(demo, table):
    rows = table.set_index("instance")
    # the session's first expression: nothing before it
    first = rows.loc["s01-e001"]
    assert math.isnan(first["last_mention_ms"]) and math.isnan(first["last_action_ms"])
    assert math.isnan(first["context_start_ms"])
    assert first["system_expression"] == ""  # no DP decided, none proposed
    # s01-e021 at 64702 ms: last mention 18629 ms, last action 21039 ms; the
    # context holding both would last 64702 - 18629 = 46073 ms > 30 s
    late = rows.loc["s01-e021"]
    assert (late["last_mention_ms"], late["last_action_ms"]) == (18629, 21039)
    assert math.isnan(late["context_start_ms"])
    reasons = qualify_instances(table).set_index("instance")["reason"]
    assert reasons["s01-e021"] == (
        "no context start: one holding the last mention and the last action would"
        " last 46073 ms, over the maximum of 30000 ms"
    )
    assert reasons["s01-e001"] == "no earlier mention of the target"
    longer = situated_instances(*demo, max_context_ms=60_000).set_index("instance")
    assert longer.at["s01-e021", "context_start_ms"] == 18629
    # the start is data.dialogue's, the one the stimuli builder replays from
    sessions = {s.id: s for s in demo[0]}
    for instance, start in rows["context_start_ms"].items():
        expected = context_start(sessions[rows.at[instance, "session"]], instance)
        assert (math.isnan(start) and expected is None) or start == expected


def test_an_instance_without_a_decision_is_an_error(demo):
    sessions, items, decisions = demo
    fewer = {k: v for k, v in decisions.items() if k != "s05-e034"}
    with pytest.raises(ConfigError, match="1 instance.*s05-e034"):
        situated_instances(sessions, items, fewer)


def test_the_output_expression_is_shown_when_given(demo):
    from stecflow.data.model import Output

    sessions, items, decisions = demo
    mine = dict(decisions)
    mine["s05-e034"] = Output("s05-e034", "this one", fields=(("pronoun", True),))
    rows = situated_instances(sessions, items, mine).set_index("instance")
    assert rows.at["s05-e034", "system_expression"] == "this one"


# -------------------------------------------------------------------- design


@pytest.fixture(scope="module")
def designed(campaign, tmp_path_factory):
    out = tmp_path_factory.mktemp("design")
    settings = _design(campaign, out)
    return out, settings


def test_design_counts_per_condition_and_list(designed, table):
    out, settings = designed
    rows = read_tsv(out / "design.tsv")
    assert list(rows[0]) == list(SITUATED_TRIAL_COLUMNS)
    # 32 of the 35 FP instances qualify (all tested), 20 TP and 20 FN sampled
    assert settings["counts"] == {
        "fp": 32,
        "tp": 20,
        "fn": 20,
        "trials_per_subject": 72,
        "subjects": 36,
        "lists": 36,
    }
    assert settings["counts"]["trials_per_subject"] <= 80
    lists = sorted({r["list"] for r in rows})
    assert len(lists) == 36 and len(rows) == 36 * 72
    classes = table.set_index("instance")["class"]
    fp_all = set(settings["item_sets"]["A"]) | set(settings["item_sets"]["B"])
    assert len(fp_all) == 32 and {classes[i] for i in fp_all} == {"FP"}
    shared = None
    for list_id in lists:
        trials = [r for r in rows if r["list"] == list_id]
        conditions = [r["condition"] for r in trials]
        assert {c: conditions.count(c) for c in set(conditions)} == {
            "FP-Orig": 16,
            "FP-system": 16,
            "TP": 20,
            "FN": 20,
        }
        assert sorted(int(r["order"]) for r in trials) == list(range(1, 73))
        # every FP instance once per list, half with the corpus's expression
        fp = [r["item"] for r in trials if r["instance_class"] == "FP"]
        assert sorted(fp) == sorted(fp_all)
        for r in trials:
            expected = "system" if r["condition"] == "FP-system" else "original"
            assert r["shown"] == expected
            assert r["system"] == (SYSTEM if expected == "system" else "Orig")
        for r in trials:
            if r["shown"] == "system":
                assert r["expression"] == "that one"
        # TP and FN instances shared by every list
        these = {r["item"] for r in trials if r["condition"] in ("TP", "FN")}
        shared = these if shared is None else shared
        assert these == shared
    assert {classes[i] for i in shared} == {"TP", "FN"}
    # the two groups see each FP instance in the other version
    by = {(r["list"], r["item"]): r["shown"] for r in rows}
    for item in fp_all:
        assert by[("L01", item)] != by[("L02", item)]


def test_halves_balanced_on_the_target_shape(designed, table):
    out, settings = designed
    shapes = table.set_index("instance")["target_shape"]
    a, b = settings["item_sets"]["A"], settings["item_sets"]["B"]
    assert (len(a), len(b)) == (16, 16)
    for shape in set(shapes[a + b]):
        n_a = sum(shapes[i] == shape for i in a)
        n_b = sum(shapes[i] == shape for i in b)
        assert abs(n_a - n_b) <= 1, shape
    halves = settings["halves"]
    assert (halves["by"], halves["A"], halves["B"]) == ("target_shape", a, b)
    assert sum(n["A"] + n["B"] for n in halves["strata"].values()) == 32
    for shape, n in halves["strata"].items():
        assert n == {
            "A": sum(shapes[i] == shape for i in a),
            "B": sum(shapes[i] == shape for i in b),
        }
    balance = read_tsv(out / "balance.tsv")
    assert list(balance[0]) == list(BALANCE_COLUMNS)
    halves = [r for r in balance if r["check"] == "half_stratum"]
    assert len(halves) == 2 * len(set(shapes[a + b]))
    assert all(r["ok"] == "true" for r in halves)
    conditions = [r for r in balance if r["check"] == "list_condition"]
    assert len(conditions) == 36 * 4 and all(r["ok"] == "true" for r in conditions)


def test_design_json_contract(designed, table):
    out, settings = designed
    written = read_json(out / "design.json")
    assert written == settings
    assert written["task"] == "situated_identification"
    assert written["variant"] is None
    assert written["system"] == SYSTEM
    assert written["systems"] == ["Orig", SYSTEM]
    intrinsic = written["intrinsic"]
    assert {k: intrinsic[k] for k in ("tp", "fp", "fn", "tn", "n")} == {
        "tp": 68,
        "fp": 35,
        "fn": 61,
        "tn": 204,
        "n": 368,
    }
    assert intrinsic["precision"] == pytest.approx(68 / 103)
    assert intrinsic["recall"] == pytest.approx(68 / 129)
    assert intrinsic["f"] == pytest.approx(2 * 68 / (2 * 68 + 35 + 61))
    assert len(written["classes"]) == 368
    assert written["classes"]["s05-e034"] == "FP"
    assert written["qualification"] == {
        "TP": {"n": 68, "qualifying": 66},
        "FP": {"n": 35, "qualifying": 32},
        "FN": {"n": 61, "qualifying": 38},
        "TN": {"n": 204, "qualifying": 76},
    }
    # the allocation keeps the corpus's O1/O2 distribution; per class it sums to 20
    for cls in ("TP", "FN"):
        rows = [r for r in written["allocation"] if r["class"] == cls]
        assert sum(r["allocated"] for r in rows) == 20
        assert sum(r["reference_count"] for r in rows) == 368
    corpus = table.groupby(["O1", "O2"]).size().to_dict()
    tp = {r["stratum"]: r for r in written["allocation"] if r["class"] == "TP"}
    assert tp["O1=False|O2=False"]["reference_count"] == corpus[(False, False)]


def test_design_files_are_byte_identical_on_a_second_run(designed, campaign, tmp_path):
    out, _ = designed
    _design(campaign, tmp_path)
    for name in ("design.tsv", "balance.tsv", "design.json"):
        assert (tmp_path / name).read_bytes() == (out / name).read_bytes(), name


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"subjects": 35}, "studies[situated].subjects", "use an even number such"),
        (
            {"trial_budget": 60},
            "studies[situated].situated.trial_budget",
            "32 FP \\+ 20 TP \\+ 20 FN = 72 trials, over the budget of 60; set"
            " max_fp to at most 20, lower n_per_class to at most 14 or raise"
            " trial_budget to 72",
        ),
        (
            {"n_per_class": 30, "trial_budget": 60},
            "studies[situated].situated.trial_budget",
            "= 92 trials, over the budget of 60; lower n_per_class to at most 14"
            " or raise trial_budget to 92$",
        ),
        (
            {"n_per_class": 40, "trial_budget": 200},
            "studies[situated].situated.n_per_class",
            "40 FN instances requested but only 38 of the 61 FN instances qualify",
        ),
        (
            {"max_context_ms": 1000},
            "studies[situated].situated.max_context_ms",
            "only 0 FP instance\\(s\\) qualify; the two halves need at least 2:"
            " lengthen max_context_ms",
        ),
        (
            {"halves_by": "colour"},
            "studies[situated].situated.halves_by",
            "a column of the instance table \\(D1, .*target_shape.*\\), got 'colour'",
        ),
        (
            {"features": ["O3"]},
            "studies[situated].situated.features",
            "got \\['O3'\\]",
        ),
    ],
)
def test_impossible_designs_are_config_errors(
    campaign, tmp_path, change, field, message
):
    with pytest.raises(ConfigError, match=message) as caught:
        _design(campaign, tmp_path, _spec(**change))
    assert caught.value.field == field
    assert "study 'situated'" in caught.value.message
    assert not (tmp_path / "design.tsv").exists()


def test_a_rejected_system_is_a_config_error(campaign, tmp_path):
    record = tmp_path / "validation" / "organisers" / "recency.json"
    record.parent.mkdir(parents=True)
    record.write_text(
        json.dumps({"team": "organisers", "system": "recency", "status": "rejected"}),
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as caught:
        design_situated_study(
            _spec(),
            campaign["testset"],
            campaign["outputs"],
            record,
            tmp_path / "design.tsv",
            tmp_path / "balance.tsv",
            tmp_path / "design.json",
        )
    message = caught.value.message
    assert "study 'situated'" in message and SYSTEM in message
    assert str(record.with_suffix(".md")) in message
    assert message.endswith("validation/organisers/recency.md, or test another system")
    assert caught.value.field == "studies[situated].systems"


def test_exactly_one_system(campaign, tmp_path):
    spec = _spec()
    spec["systems"] = [SYSTEM, "organisers/logistic"]
    with pytest.raises(ConfigError, match="exactly one system") as caught:
        _design(campaign, tmp_path, spec)
    assert caught.value.field == "studies[situated].systems"


def test_outputs_changed_since_validation(campaign, tmp_path):
    folder = tmp_path / "subs" / "organisers" / "recency"
    folder.mkdir(parents=True)
    text = campaign["outputs"].read_text(encoding="utf-8")
    (folder / "outputs.tsv").write_text(
        text.replace("s05-e034\t1", "s05-e034\tyes"), encoding="utf-8"
    )
    spec = _spec()
    with pytest.raises(ConfigError, match="changed since they were validated") as e:
        design_situated_study(
            spec,
            campaign["testset"],
            folder / "outputs.tsv",
            campaign["validation"],
            tmp_path / "design.tsv",
            tmp_path / "balance.tsv",
            tmp_path / "design.json",
        )
    assert "outputs.tsv, line " in e.value.message and "pronoun" in e.value.message


# ------------------------------------------------------------------- stimuli


@pytest.fixture(scope="module")
def small(campaign, tmp_path_factory):
    """A two-list design (2 subjects) and its built stimuli, strings overridden."""
    out = tmp_path_factory.mktemp("small")
    spec = _spec(
        subjects=2,
        experiment={
            "language": "en",
            "strings": {"dont_know": "No idea", "cant_tell": "Not sure"},
        },
    )
    _design(campaign, out, spec)
    summary = build_situated_stimuli(
        spec, out / "design.tsv", campaign["testset"], out / "web", out / "dmdx"
    )
    return out, spec, summary


def test_stimuli_folder_builds(small):
    out, _, summary = small
    assert summary["lists"] == 2 and summary["trials"] == 144
    assert summary["task"] == "situated_identification"
    web = out / "web"
    for name in ("index.html", "stimuli.json", "stimuli.js", "MANIFEST.tsv"):
        assert (web / name).is_file(), name
    html = (web / "index.html").read_text(encoding="utf-8")
    assert "<title>Which piece is meant?</title>" in html
    assert "Descriptions of pictures" not in html
    public = json.loads((web / "stimuli.json").read_text(encoding="utf-8"))
    assert "lists" not in public and "contexts" not in public
    document = json.loads((out / "stimuli-key.json").read_text(encoding="utf-8"))
    rows = read_tsv(out / "design.tsv")
    assert [lst["list"] for lst in document["lists"]] == ["L01", "L02"]
    assert [lst["group"] for lst in document["lists"]] == [1, 2]
    for lst in document["lists"]:
        design = sorted(
            (r for r in rows if r["list"] == lst["list"]), key=lambda r: int(r["order"])
        )
        assert [t["item"] for t in lst["trials"]] == [r["item"] for r in design]
        assert [t["expression_text"] for t in lst["trials"]] == [
            r["expression"] for r in design
        ]
    trial = next(
        t for t in document["lists"][0]["trials"] if t["expression"] == "s05-e034"
    )
    shown = next(r for r in rows if r["list"] == "L01" and r["item"] == "s05-e034")
    start, end = trial["highlight"]
    if shown["shown"] == "system":
        assert trial["description"] == "Turn that one a little"
        assert trial["system"] == SYSTEM
    else:
        assert trial["description"] == "Turn the triangle you just moved a little"
        assert trial["system"] == "Orig"
    assert trial["description"][start:end] == shown["expression"]
    clip = document["contexts"][trial["context"]]
    assert trial["context"] == "s05/s05-e034@126912"
    assert (clip["start_ms"], clip["end_ms"]) == (126912, 132188)
    # each clip once, however many lists show it: 72 instances, 2 lists
    assert len(document["contexts"]) == 72
    readme = (out / "dmdx" / "README.txt").read_text(encoding="utf-8")
    assert "stecflow serve situated" in readme and "web/index.html" in readme


def test_strings_override_reaches_the_page(small):
    out, _, _ = small
    document = json.loads((out / "web" / "stimuli.json").read_text(encoding="utf-8"))
    ui = document["texts"]["ui"]
    assert ui["dont_know"] == "No idea"  # a situated string
    assert ui["cant_tell"] == "Not sure"  # a REG string
    assert ui["replay"] == "Replay the clip"
    assert document["settings"]["strings"] == {
        "cant_tell": "Not sure",
        "dont_know": "No idea",
    }
    script = (out / "web" / "stimuli.js").read_text(encoding="utf-8")
    assert '"dont_know": "No idea"' in script


def test_stimuli_check_the_trial_budget_first(small, campaign, tmp_path):
    out, spec, _ = small
    tight = _spec(subjects=2, trial_budget=71)
    with pytest.raises(ConfigError, match="2 list\\(s\\).*budget of 71") as caught:
        build_situated_stimuli(
            tight, out / "design.tsv", campaign["testset"], tmp_path / "w", tmp_path
        )
    assert caught.value.field == "studies[situated].situated.trial_budget"
    assert not (tmp_path / "w").exists()


def test_bad_situated_string_is_a_config_error(small, campaign, tmp_path):
    out, _, _ = small
    spec = _spec(subjects=2, experiment={"strings": {"piece_label": "piece"}})
    with pytest.raises(ConfigError, match="fields .* of the original: n") as caught:
        build_situated_stimuli(
            spec, out / "design.tsv", campaign["testset"], tmp_path / "w", tmp_path
        )
    assert caught.value.field == "studies[situated].experiment.strings.piece_label"


def test_japanese_default_title(small, campaign, tmp_path):
    out, _, _ = small
    spec = _spec(subjects=2, experiment={"language": "ja"})
    build_situated_stimuli(
        spec, out / "design.tsv", campaign["testset"], tmp_path / "w", tmp_path / "d"
    )
    html = (tmp_path / "w" / "index.html").read_text(encoding="utf-8")
    assert "<title>どのピースのことでしょう</title>" in html


def test_media_folder_needs_one_file_per_instance(small, campaign, tmp_path):
    out, _, _ = small
    shown = {r["item"] for r in read_tsv(out / "design.tsv")}
    media = tmp_path / "media"
    media.mkdir()
    for item in sorted(shown)[1:]:
        (media / f"{item}.mp4").write_bytes(b"video " + item.encode())
    spec = _spec(subjects=2, media=str(media))
    with pytest.raises(ConfigError, match=f"no {sorted(shown)[0]}\\.<mp4") as caught:
        build_situated_stimuli(
            spec, out / "design.tsv", campaign["testset"], tmp_path / "w", tmp_path
        )
    assert caught.value.field == "studies[situated].situated.media"
    (media / f"{sorted(shown)[0]}.webm").write_bytes(b"video")
    build_situated_stimuli(
        spec, out / "design.tsv", campaign["testset"], tmp_path / "w", tmp_path / "d"
    )
    document = json.loads((tmp_path / "stimuli-key.json").read_text("utf-8"))
    trial = document["lists"][0]["trials"][0]
    # the file of each instance, named by its content in the study
    data = (
        b"video"
        if trial["item"] == sorted(shown)[0]
        else b"video " + trial["item"].encode()
    )
    suffix = ".webm" if trial["item"] == sorted(shown)[0] else ".mp4"
    assert trial["media"] == f"media/{hashlib.sha256(data).hexdigest()[:20]}{suffix}"
    assert trial["media_kind"] == "video"
    assert (tmp_path / "w" / trial["media"]).read_bytes() == data


def test_a_design_that_does_not_fit_the_test_set(small, campaign, tmp_path):
    out, spec, _ = small
    lines = (out / "design.tsv").read_text(encoding="utf-8").splitlines(True)
    header = lines[0].rstrip("\n").split("\t")
    cells = lines[1].rstrip("\n").split("\t")
    item, target = cells[header.index("item")], cells[header.index("target")]
    cells[header.index("target")] = "XX"
    lines[1] = "\t".join(cells) + "\n"
    (tmp_path / "design.tsv").write_text("".join(lines), encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        build_situated_stimuli(
            spec, tmp_path / "design.tsv", campaign["testset"], tmp_path / "w", tmp_path
        )
    message = caught.value.message
    assert f"list L01, trial 1: the test set's {item} is " in message
    assert f"referring to {target}, not " in message and "referring to XX" in message
    assert caught.value.field == "studies[situated]"


def test_the_workflow_stage_dispatches_and_keeps_an_opened_study_pinned(
    small, campaign, tmp_path
):
    """studies.setup.build_stimuli (the rule's code) builds a situated study with
    the situated builder, and refuses stimuli that no longer hash to its pin."""
    from stecflow.studies.setup import build_stimuli

    out, spec, summary = small

    def build(pinned, web):
        return build_stimuli(
            {**spec, "sha256": pinned},
            out / "design.tsv",
            campaign["testset"],
            None,
            {},
            None,
            web,
            tmp_path / "dmdx",
        )

    assert build(summary["sha256"], tmp_path / "same")["sha256"] == summary["sha256"]
    assert (tmp_path / "same" / "stimuli.json").read_bytes() == (
        out / "web" / "stimuli.json"
    ).read_bytes()
    with pytest.raises(ConfigError, match="is opened") as caught:
        build("0" * 64, tmp_path / "other")
    assert caught.value.field == "studies[situated].sha256"

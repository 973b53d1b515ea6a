"""Simulated participants: determinism, ranges, sensitivity, round trip."""

from __future__ import annotations

from itertools import combinations

import pandas as pd
import pytest

from stecflow.data.corpus import read_items
from stecflow.data.model import Output
from stecflow.judgments import JudgmentsError
from stecflow.judgments.importers import read_response_table
from stecflow.judgments.lexicon import Lexicon, description_content
from stecflow.judgments.participant import SimulationSettings
from stecflow.judgments.simulate import (
    SIMULATED_COLUMNS,
    simulate_responses,
    simulate_study,
    write_simulated_responses,
)
from stecflow.judgments.study import merge_study
from stecflow.metrics.distinguishing import is_unique
from stecflow.studies.designs import latin_square_design
from stecflow.studies.settings import RESPONSE_COLUMNS
from stecflow.studies.stimuli import make_study_files
from stecflow.tasks.reg.realiser import realise
from tests.conftest import FIXTURES, REPO, python_stdout

J = FIXTURES / "judgments"
DEMO = read_items(REPO / "resources" / "demo" / "test.xml")
FIX_ITEMS = read_items(J / "testset.xml") + read_items(J / "practice.xml")


def minimal(item):
    target = item.domain.target.attribute_set
    others = [e.attribute_set for e in item.domain.distractors]
    names = sorted(target)
    for k in range(1, len(names) + 1):
        for combo in combinations(names, k):
            if is_unique(frozenset(combo), target, others):
                return frozenset(combo)
    return target


def three_systems():
    """good: minimal distinguishing; vague: type only; wrong: a distractor's."""
    outputs = {"good": {}, "vague": {}, "wrong": {}}
    for item in DEMO:
        target = item.domain.target
        good = minimal(item)
        vague = frozenset(a for a in target.attribute_set if a[0] == "type")
        wrong = minimal_of(item, item.domain.distractors[0])
        for name, attrs in (("good", good), ("vague", vague), ("wrong", wrong)):
            outputs[name][item.id] = Output(item.id, realise(attrs), attrs)
    return outputs


def minimal_of(item, entity):
    others = [e.attribute_set for e in item.domain.entities if e.id != entity.id]
    names = sorted(entity.attribute_set)
    for k in range(1, len(names) + 1):
        for combo in combinations(names, k):
            if is_unique(frozenset(combo), entity.attribute_set, others):
                return frozenset(combo)
    return entity.attribute_set


@pytest.fixture(scope="module")
def demo_design():
    items = [i.id for i in DEMO][:111]
    return latin_square_design(
        ["good", "vague", "wrong"], items, subjects=3, seed=4, study="sim-test"
    )


def by_system(rows, column):
    df = pd.DataFrame(rows)
    df = df[~df["practice"].astype(bool)]
    return df.groupby("system")[column].apply(
        lambda s: pd.to_numeric(s, errors="coerce").astype(float).mean()
    )


# --------------------------------------------------------------------------- lexicon


def test_lexicon_reads_realiser_and_annotated_phrases():
    lexicon = Lexicon(FIX_ITEMS)
    t02 = next(i for i in FIX_ITEMS if i.id == "t02")
    assert description_content(
        "the big grey couch in the middle row", t02, lexicon=lexicon
    ) == {("size", "large"), ("colour", "grey"), ("type", "sofa"), ("y-dimension", "2")}
    t03 = next(i for i in FIX_ITEMS if i.id == "t03")
    assert description_content(
        "the white-haired bearded man", t03, lexicon=lexicon
    ) == {("haircolour", "light"), ("hasbeard", "1"), ("type", "person")}
    assert sorted(Lexicon().parse("the one at the bottom centre right")) == [
        ("x-dimension", "4"),
        ("y-dimension", "3"),
    ]
    assert sorted(Lexicon().parse("the person not wearing a tie")) == [
        ("hastie", "0"),
        ("type", "person"),
    ]
    assert Lexicon().parse("the one") == frozenset()


def test_attributes_win_over_words():
    item = FIX_ITEMS[0]
    content = description_content(
        "whatever", item, attributes={("Colour", "Red"), ("x-dimension", "01")}
    )
    assert content == {("colour", "red"), ("x-dimension", "1")}


# --------------------------------------------------------------------------- model


def test_determinism_and_seed(demo_design):
    outputs = three_systems()
    a = simulate_responses(demo_design, DEMO, outputs, task="identification", seed=1)
    b = simulate_responses(
        demo_design, list(reversed(DEMO)), outputs, task="identification", seed=1
    )
    c = simulate_responses(demo_design, DEMO, outputs, task="identification", seed=2)
    assert a == b
    assert a != c
    shuffled = demo_design.trials.sample(frac=1, random_state=0)
    assert (
        simulate_responses(shuffled, DEMO, outputs, task="identification", seed=1) == a
    )


def test_rows_are_server_rows_labelled_simulated(demo_design):
    rows = simulate_responses(demo_design, DEMO, three_systems(), task="rating", seed=3)
    assert len(rows) == len(demo_design.trials)
    assert all(list(r) == list(SIMULATED_COLUMNS) for r in rows)
    assert (*RESPONSE_COLUMNS, "simulated") == SIMULATED_COLUMNS
    assert all(r["simulated"] is True for r in rows)
    assert {r["session"] for r in rows} == {"sim-L01-01", "sim-L02-01", "sim-L03-01"}
    assert {r["session_status"] for r in rows} == {"completed"}
    assert all(r["study"] == "sim-test" and r["task"] == "rating" for r in rows)


def test_plausible_ranges(demo_design):
    outputs = three_systems()
    ratings = simulate_responses(demo_design, DEMO, outputs, task="rating", seed=5)
    for r in ratings:
        assert isinstance(r["adequacy"], int) and 1 <= r["adequacy"] <= 100
        assert isinstance(r["fluency"], int) and 1 <= r["fluency"] <= 100
        assert 1000 < r["rt_ms"] < 60000
        assert r["chosen_entity"] is None
    ident = simulate_responses(
        demo_design, DEMO, outputs, task="identification", variant="read_first", seed=5
    )
    for r in ident:
        assert r["reading_time_ms"] > 100
        if not r["timeout"]:
            assert 100 < r["identification_time_ms"] <= 15000
            assert r["rt_ms"] == pytest.approx(
                r["reading_time_ms"] + r["identification_time_ms"]
            )
            assert 0 <= r["click_x"] <= 1
        assert r["target_entity"] is not None


def test_better_descriptions_get_better_outcomes(demo_design):
    outputs = three_systems()
    settings = {"sessions_per_list": 4}
    ident = simulate_responses(
        demo_design, DEMO, outputs, task="identification", seed=9, settings=settings
    )
    accuracy = by_system(
        [dict(r, correct=bool(r["correct"])) for r in ident], "correct"
    )
    assert accuracy["good"] > 0.9
    assert accuracy["good"] > accuracy["vague"] > accuracy["wrong"]
    assert accuracy["wrong"] < 0.25
    times = by_system(ident, "identification_time_ms")
    assert times["good"] < times["vague"]
    ratings = simulate_responses(
        demo_design, DEMO, outputs, task="rating", seed=9, settings=settings
    )
    adequacy = by_system(ratings, "adequacy")
    assert adequacy["good"] > adequacy["vague"] > adequacy["wrong"]
    assert adequacy["good"] - adequacy["wrong"] > 30


def test_fluency_prefers_well_formed_strings(demo_design):
    outputs = three_systems()
    broken = {
        k: Output(k, "chair chair with hasBeard 1", None) for k in outputs["good"]
    }
    outputs["vague"] = broken
    ratings = simulate_responses(
        demo_design,
        DEMO,
        outputs,
        task="rating",
        seed=2,
        settings={"sessions_per_list": 3},
    )
    fluency = by_system(ratings, "fluency")
    assert fluency["good"] - fluency["vague"] > 25


def test_variants_cant_tell_timeouts_and_abandoned_sessions(demo_design):
    outputs = three_systems()
    spoken = simulate_responses(
        demo_design, DEMO, outputs, task="identification", variant="spoken", seed=1
    )
    assert all(r["audio_onset_ms"] > 500 for r in spoken if not r["timeout"])
    assert all(r["reading_time_ms"] is None for r in spoken)
    cant = simulate_responses(
        demo_design,
        DEMO,
        outputs,
        task="identification",
        seed=1,
        presentation={"cant_tell": True},
    )
    vague = [r for r in cant if r["system"] == "vague"]
    assert any(r["cant_tell"] for r in vague)
    assert not any(r["cant_tell"] for r in cant if r["system"] == "good")
    assert all(r["correct"] is False for r in cant if r["cant_tell"])
    fast = simulate_responses(
        demo_design,
        DEMO,
        outputs,
        task="identification",
        seed=1,
        presentation={"timeout_ms": 2500},
    )
    timeouts = [r for r in fast if r["timeout"]]
    assert timeouts and all(
        r["correct"] is None and r["rt_ms"] is None for r in timeouts
    )
    abandon = simulate_responses(
        demo_design,
        DEMO,
        outputs,
        task="identification",
        seed=1,
        settings={"p_abandon": 1.0},
    )
    assert {r["session_status"] for r in abandon} == {"abandoned"}
    assert len(abandon) < len(demo_design.trials)


def test_practice_trials_and_missing_outputs():
    design = latin_square_design(
        ["GRAPH", "HUMAN-1"],
        ["t01", "t02", "t03", "t04"],
        subjects=2,
        seed=1,
        practice_pool=["p01"],
        n_practice=1,
        study="s",
    )
    outputs = {
        "GRAPH": {i: "the one" for i in ("t01", "t02", "t03", "t04")},
        "HUMAN-1": {i: "the one" for i in ("t01", "t02", "t03", "t04")},
    }
    rows = simulate_responses(design, FIX_ITEMS, outputs, task="identification", seed=1)
    practice = [r for r in rows if r["practice"]]
    assert len(practice) == 2 and all(r["system"] is None for r in practice)
    del outputs["GRAPH"]["t02"]
    with pytest.raises(JudgmentsError, match="GRAPH has no output for item t02"):
        simulate_responses(design, FIX_ITEMS, outputs, task="identification", seed=1)


def test_settings_validation():
    assert SimulationSettings.from_mapping(None) == SimulationSettings()
    for values, field in (
        ({"beta": -1}, "simulation.beta"),
        ({"lapse_rate": 2}, "simulation.lapse_rate"),
        ({"sessions_per_list": 0}, "simulation.sessions_per_list"),
        ({"content": "magic"}, "simulation.content"),
        ({"speed": 1}, "simulation.speed"),
        ({"beta": "high"}, "simulation.beta"),
    ):
        with pytest.raises(JudgmentsError) as info:
            SimulationSettings.from_mapping(values)
        assert info.value.field == field
    with pytest.raises(JudgmentsError):
        simulate_responses(
            pd.DataFrame(
                {"list": ["L01"], "order": [1], "item": ["t01"], "system": ["A"]}
            ),
            FIX_ITEMS,
            {"A": {"t01": "x"}},
            task="ranking",
            seed=1,
        )
    with pytest.raises(JudgmentsError):
        simulate_responses(
            pd.DataFrame(
                {"list": ["L01"], "order": [1], "item": ["t01"], "system": ["A"]}
            ),
            FIX_ITEMS,
            {"A": {"t01": "x"}},
            task="rating",
            seed=-1,
        )


# --------------------------------------------------------------------------- files


def test_round_trip_through_the_importer_and_merge(tmp_path):
    design = latin_square_design(
        ["GRAPH", "HUMAN-1"],
        ["t01", "t02", "t03", "t04"],
        subjects=2,
        seed=11,
        practice_pool=["p01"],
        n_practice=1,
        study="id-demo",
        subdomains={i.id: i.subdomain for i in FIX_ITEMS},
    )
    outputs = {
        s: {
            i.id: i.references[0 if s == "HUMAN-1" else -1].word_string
            for i in FIX_ITEMS
            if i.id.startswith("t")
        }
        for s in ("GRAPH", "HUMAN-1")
    }
    rows = simulate_responses(
        design,
        FIX_ITEMS,
        outputs,
        task="identification",
        seed=3,
        settings={"sessions_per_list": 3},
    )
    path = tmp_path / "simulated.tsv"
    write_simulated_responses(rows, path)
    first = path.read_text().split("\n")[0]
    assert first.split("\t") == list(SIMULATED_COLUMNS)
    imported = read_response_table(path)
    assert len(imported.rows) == len(rows) and not imported.problems
    assert all(r["simulated"] is True for r in imported.rows)
    for original, back in zip(rows, imported.rows, strict=True):
        for key in (
            "session",
            "order",
            "item",
            "chosen_entity",
            "correct",
            "identification_time_ms",
        ):
            assert back[key] == original[key]
    design_path = tmp_path / "design.tsv"
    design.trials.to_csv(design_path, sep="\t", index=False)
    summary = merge_study(
        design_path,
        [path],
        None,
        J / "testset.xml",
        {},
        tmp_path / "j.tsv",
        tmp_path / "q.tsv",
        tmp_path / "s.json",
        items_paths=[J / "practice.xml"],
    )
    assert summary["simulated"] is True
    assert summary["counts"]["simulated_rows"] == len(rows)
    judged = pd.read_csv(tmp_path / "j.tsv", sep="\t", dtype=str, keep_default_na=False)
    assert set(judged["simulated"]) == {"true"}
    assert summary["quality"]["by_check"] == {"list_repeated": 2}


def test_simulate_study_from_the_stimuli_document(tmp_path):
    design = latin_square_design(
        ["GRAPH", "HUMAN-1"],
        ["t01", "t02", "t03", "t04"],
        subjects=2,
        seed=11,
        study="id-demo",
    )
    outputs = {
        s: {i.id: i.references[0].word_string for i in FIX_ITEMS[:4]}
        for s in ("GRAPH", "HUMAN-1")
    }
    study = make_study_files(
        design, FIX_ITEMS, outputs, task="identification", variant="read_first"
    )
    stimuli = tmp_path / "stimuli-key.json"
    stimuli.write_bytes(study.key)
    out = tmp_path / "sim.tsv"
    n = simulate_study(stimuli, [J / "testset.xml"], out, seed=4)
    assert n == 8
    first = out.read_bytes()
    simulate_study(tmp_path, J / "testset.xml", out, seed=4)  # the folder
    assert out.read_bytes() == first
    (tmp_path / "web").mkdir()
    simulate_study(tmp_path / "web", J / "testset.xml", out, seed=4)  # beside it
    assert out.read_bytes() == first  # deterministic bytes
    rows = read_response_table(out).rows
    assert {r["variant"] for r in rows} == {"read_first"}
    assert all(r["reading_time_ms"] for r in rows)
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(JudgmentsError, match="has no 'study'"):
        simulate_study(bad, J / "testset.xml", out, seed=1)
    with pytest.raises(JudgmentsError, match="cannot read"):
        simulate_study(tmp_path / "none.json", J / "testset.xml", out, seed=1)


def test_missing_values_are_pandas_missing_values():
    """`plain` (each simulated cell) tells missing values as pandas.isna does,
    checking Python's and NumPy's scalars without loading pandas."""
    from decimal import Decimal

    import numpy as np

    from stecflow.judgments._common import is_missing, plain

    values = [
        None, float("nan"), np.nan, np.float32("nan"), np.float32(1.5), 2.5, 0,
        True, np.int64(3), np.bool_(False), np.str_("x"), "", "nan", b"",
        np.datetime64("NaT"), np.timedelta64("NaT"), np.datetime64("2020-01-01"),
        np.complex64(complex("nan")), complex("nan"), Decimal("NaN"), pd.NA, pd.NaT,
        pd.Timestamp("2020-01-01"),
    ]  # fmt: skip
    assert [is_missing(v) for v in values] == [bool(pd.isna(v)) for v in values]
    assert [plain(v) for v in values[:5]] == [None, None, None, None, 1.5]
    assert type(plain(np.int64(3))) is int
    code = (
        "import sys, numpy as np\n"
        "from stecflow.judgments._common import plain\n"
        "cells = [1, 'x', 1.5, float('nan'), None, True, np.int64(2), np.float64(3),"
        " np.float32('nan'), np.datetime64('NaT')]\n"
        "print([plain(v) for v in cells], 'pandas' in sys.modules)"
    )
    out = python_stdout(code)
    assert out.strip() == "[1, 'x', 1.5, None, None, True, 2, 3.0, None, None] False"

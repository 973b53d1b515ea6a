"""Simulated evaluators of seed 000's situated identification study.

The instances are the demo corpus's expressions (resources/dialogue-demo/) with the
classes the seed's recency baseline earns (a pronoun iff the target is the most
recently mentioned object, seed 000 §4.1) against the corpus's forms; the design
is :func:`situated_design` with the seed's shape (20 TP, 20 FN, every qualifying
FP, solver expressions only, 36 evaluators).
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from stecflow.data.dialogue import context_start, read_corpus
from stecflow.judgments import JudgmentsError
from stecflow.studykinds.situated_identification.design import situated_design
from stecflow.studykinds.situated_identification.measures import (
    TRIAL_COLUMNS,
    situated_measures,
)
from stecflow.studykinds.situated_identification.simulate import (
    FEATURE_WEIGHTS,
    SIMULATED_TRIAL_COLUMNS,
    SituatedSimulationSettings,
    clip_salience,
    simulate_situated,
)
from tests.conftest import REPO

SEED = 2010


def instance_table(sessions) -> pd.DataFrame:
    """One row per expression, classed by the recency baseline (D1)."""
    rows = []
    for s in sessions:
        seen: dict[str, int] = {}
        for u, e in s.expressions():
            f = e.features
            cls = {
                (True, True): "TP",
                (True, False): "FN",
                (False, True): "FP",
                (False, False): "TN",
            }[(e.is_pronoun, f.D1)]
            start = context_start(s, e.id)
            actions = [
                a.start_ms
                for a in s.actions
                if a.piece == e.referent and a.start_ms < u.start_ms
            ]
            rows.append(
                {
                    "instance": e.id,
                    "session": s.id,
                    "speaker": u.speaker,
                    "class": cls,
                    "target": e.referent,
                    "context_start_ms": math.nan if start is None else start,
                    "utterance_start_ms": u.start_ms,
                    "last_mention_ms": seen.get(e.referent, math.nan),
                    "last_action_ms": actions[-1] if actions else math.nan,
                    "O1": int(f.O1),
                    "O2": int(f.O2),
                    "original_expression": u.span(e),
                    "system_expression": "that one" if cls in ("TP", "FP") else "",
                }
            )
            seen[e.referent] = u.start_ms
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def sessions():
    return read_corpus(REPO / "resources" / "dialogue-demo")


@pytest.fixture(scope="module")
def design(sessions):
    return situated_design(
        instance_table(sessions),
        subjects=36,
        seed=SEED,
        n_per_class=20,
        speaker="solver",
        study="demo",
    )


@pytest.fixture(scope="module")
def simulated(design, sessions):
    return simulate_situated(design, sessions, seed=SEED)


def _class_means(trials: pd.DataFrame) -> dict[str, tuple[float, float]]:
    m = situated_measures(trials)
    ir = dict(zip(m.identification["class"], m.identification["ir"], strict=True))
    times = m.times[m.times["scope"] == "all"]
    it = dict(zip(times["class"], times["it_mean_ms"], strict=True))
    return {c: (ir[c], it[c]) for c in ir}


def test_columns_labels_and_counts(simulated, design):
    assert tuple(simulated.columns) == SIMULATED_TRIAL_COLUMNS
    assert set(TRIAL_COLUMNS) <= set(simulated.columns)
    assert simulated["simulated"].eq(True).all()
    assert len(simulated) == len(design.trials) == 36 * 72
    assert sorted(set(simulated["subject"]))[:2] == ["sim-L01", "sim-L02"]
    assert simulated["subject"].nunique() == 36
    assert simulated.groupby("class").size().to_dict() == {
        "FN": 36 * 20,
        "FP-Orig": 36 * 16,
        "FP-system": 36 * 16,
        "TP": 36 * 20,
    }
    assert simulated["session_status"].eq("completed").all()
    dont_know = simulated[simulated["cant_tell"]]
    assert dont_know["chosen"].isna().all() and not dont_know["correct"].any()
    answered = simulated[~simulated["cant_tell"]]
    assert (answered["correct"] == (answered["chosen"] == answered["target"])).all()
    assert (simulated["time_ms"] > 0).all() and (simulated["replays"] >= 0).all()


def test_deterministic_and_seeded(simulated, design, sessions):
    again = simulate_situated(design, sessions, seed=SEED)
    pd.testing.assert_frame_equal(simulated, again)
    # The same trials in another order give the same answers (per-ID seeds).
    shuffled = design.trials.sample(frac=1.0, random_state=3)
    pd.testing.assert_frame_equal(
        simulated, simulate_situated(shuffled, sessions, seed=SEED, study="demo")
    )
    other = simulate_situated(design, sessions, seed=SEED + 1)
    assert not other["time_ms"].equals(simulated["time_ms"])


def test_tp_beats_fn_because_of_the_features(simulated, design, sessions):
    means = _class_means(simulated)
    tp_ir, tp_it = means["TP"]
    fn_ir, fn_it = means["FN"]
    # The seed's figures (§5.3.2-5.3.3), to which the defaults are calibrated:
    # TP 661 of 680 correct, FN "about 25 %" lower, TP "between about
    # 500-1,400 ms" faster.
    assert tp_ir == pytest.approx(661 / 680, abs=0.01)
    assert 0.2 < tp_ir - fn_ir < 0.3
    assert 500 < fn_it - tp_it < 1400
    flat = simulate_situated(
        design, sessions, seed=SEED, settings=SituatedSimulationSettings().flattened()
    )
    flat_means = _class_means(flat)
    # Flattened: .499 vs .518 and 4,800 vs 4,770 ms, against .236 and 627 ms.
    assert abs(flat_means["TP"][0] - flat_means["FN"][0]) < 0.04
    assert abs(flat_means["TP"][1] - flat_means["FN"][1]) < 150


def test_salience_is_the_table_3_features_within_the_clip(design, sessions):
    """For the target, the salience is D1/D4, A1/A4, O1 and O2 weighted."""
    s = SituatedSimulationSettings()
    by_id = {
        e.id: (session, e) for session in sessions for _, e in session.expressions()
    }
    checked = 0
    for item in sorted(set(design.trials["item"])):
        session, e = by_id[item]
        f = e.features
        start = context_start(session, item)
        value = clip_salience(session, item, start, s)[e.referent]
        expected = (
            s.mention_weight * s.decay**f.D4
            + s.action_weight * s.decay**f.A4
            + s.cursor_weight * f.O1
            + s.operated_weight * f.O2
        )
        assert value == pytest.approx(expected), item
        assert (f.D4 == 0) == f.D1
        ame = clip_salience(session, item, start, s, action_mentioning=True)
        assert ame[e.referent] - value == pytest.approx(
            s.action_mention_weight * s.decay**f.A4
        )
        checked += 1
    assert checked == 72  # 32 FP, 20 TP, 20 FN instances
    flat = clip_salience(session, item, start, s.flattened())
    assert set(flat.values()) == {0.0}


def test_session_failures_and_misclicks(design, sessions):
    failing = simulate_situated(
        design,
        sessions,
        seed=SEED,
        settings={"p_session_failure": 1.0, "p_misclick": 0.5},
    )
    assert failing["session_status"].eq("abandoned").all()
    assert failing.groupby("subject").size().max() < 72
    assert failing["corrected"].any()
    assert failing.loc[failing["corrected"], "chosen"].notna().all()


def test_settings_checked():
    assert SituatedSimulationSettings().flattened().mention_weight == 0.0
    assert all(
        getattr(SituatedSimulationSettings().flattened(), w) == 0.0
        for w in FEATURE_WEIGHTS
    )
    with pytest.raises(JudgmentsError, match="unknown key"):
        SituatedSimulationSettings.from_mapping({"betta": 1})
    with pytest.raises(JudgmentsError, match="between 0 and 1"):
        SituatedSimulationSettings(lapse_rate=1.5)
    with pytest.raises(JudgmentsError, match="non-negative"):
        SituatedSimulationSettings(beta=-1)


def test_unknown_instance_is_an_error(design, sessions):
    with pytest.raises(JudgmentsError, match="in 0 of the sessions"):
        simulate_situated(design, sessions[:1], seed=SEED)
    with pytest.raises(JudgmentsError, match="non-negative integer"):
        simulate_situated(design, sessions, seed=-1)

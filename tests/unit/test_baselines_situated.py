"""The situated-dialogue baselines (seed 000 §4.1) on the simulated demo corpus.

The recency baseline's counts are derived here by hand from D1 and the gold forms
of the sessions; the learnt baseline's are pinned from a run (scikit-learn's
logistic regression, sessions dealt into folds with seed 2009).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from stecflow.baselines.situated import (
    FEATURE_COLUMNS,
    feature_matrix,
    logistic_outputs,
    recency_outputs,
    session_folds,
    write_baseline_submissions,
    write_submission,
)
from stecflow.data.dialogue import read_corpus
from stecflow.data.model import Domain, Item
from stecflow.metrics.classification import confusion_matrix
from stecflow.scoring.score import score_outputs
from stecflow.submissions.outputs import read_outputs as read_submission_outputs
from stecflow.submissions.validation import validate_submission
from tests.conftest import REPO

DEMO = REPO / "resources" / "dialogue-demo"


@pytest.fixture(scope="module")
def sessions():
    return read_corpus(DEMO)


@pytest.fixture(scope="module")
def items(sessions):
    from stecflow.tasks.situated_dialogue import items_from_sessions

    return items_from_sessions(sessions)


def _decisions(outputs):
    return [o.get("pronoun") for o in outputs]


def test_recency_baseline_is_d1_and_its_counts_by_hand(sessions, items):
    # by hand, from the sessions: the solver's expressions, D1 and the gold form
    tp = fp = fn = tn = 0
    for session in sessions:
        for utterance, expression in session.expressions():
            if utterance.speaker != "solver":
                continue
            gold = expression.form == "demonstrative_pronoun"
            said = expression.features.D1
            tp += gold and said
            fp += said and not gold
            fn += gold and not said
            tn += not gold and not said
    assert (tp, fp, fn, tn) == (68, 35, 61, 204)
    outputs = recency_outputs(items)
    matrix = confusion_matrix([i.input.pronoun for i in items], _decisions(outputs))
    assert (matrix.tp, matrix.fp, matrix.fn, matrix.tn) == (tp, fp, fn, tn)
    assert round(matrix.precision, 4) == 0.6602  # 68 / 103
    assert round(matrix.recall, 4) == 0.5271  # 68 / 129
    assert round(matrix.f, 4) == 0.5862  # 136 / 232
    # a DP shows the language's demonstrative, a non-DP no expression
    assert {o.word_string for o in outputs if o.get("pronoun")} == {"that one"}
    assert {o.word_string for o in outputs if not o.get("pronoun")} == {None}


def test_recency_refuses_items_of_another_task():
    with pytest.raises(ValueError, match="not a situated-dialogue instance"):
        recency_outputs([Item("t1", Domain(()), "furniture")])


def test_feature_matrix_encodes_table_3(items):
    rows = feature_matrix(items)
    assert len(rows) == 368 and all(len(r) == len(FEATURE_COLUMNS) for r in rows)
    f = items[1].input.features
    row = dict(zip(FEATURE_COLUMNS, rows[1], strict=True))
    assert row["D1"] == float(f.D1) and row["O2"] == float(f.O2)
    assert row["D2_known"] == float(f.D2 is not None)
    first = dict(zip(FEATURE_COLUMNS, rows[0], strict=True))
    assert first["D2_known"] == first["D2_log_s"] == 0.0  # never mentioned before


def test_session_folds_are_seeded_and_grouped():
    names = [f"s{n:02d}" for n in range(1, 25)]
    folds = session_folds(names, 10, 2009)
    assert sorted(folds) == names and set(folds.values()) == set(range(10))
    sizes = sorted(list(folds.values()).count(k) for k in range(10))
    assert sizes == [2, 2, 2, 2, 2, 2, 3, 3, 3, 3]  # 24 sessions dealt in turn
    assert folds == session_folds(list(reversed(names)), 10, 2009)
    assert folds != session_folds(names, 10, 2010)
    assert set(session_folds(names[:6], 10, 1).values()) == set(range(6))
    with pytest.raises(ValueError, match="at least two sessions"):
        session_folds(["s1"], 10, 1)


def test_learnt_baseline_cross_validated_by_session(items):
    pytest.importorskip("sklearn")
    result = logistic_outputs(items, folds=10, seed=2009)
    # six sessions: one fold each (leave one session out)
    assert result.folds == 6 and sorted(result.fold_of.values()) == list(range(6))
    assert len(result.outputs) == len(result.probabilities) == 368
    decided = _decisions(result.outputs)
    assert decided == [p >= 0.5 for p in result.probabilities]
    matrix = confusion_matrix([i.input.pronoun for i in items], decided)
    # pinned from a run (scikit-learn 1.9, lbfgs is deterministic)
    assert (matrix.tp, matrix.fp, matrix.fn, matrix.tn) == (103, 14, 26, 225)
    assert round(matrix.precision, 4) == 0.8803  # 103 / 117
    assert round(matrix.recall, 4) == 0.7984  # 103 / 129
    assert round(matrix.f, 4) == 0.8374  # 206 / 246
    # it learns something the recency baseline misses
    recency = confusion_matrix(
        [i.input.pronoun for i in items], _decisions(recency_outputs(items))
    )
    assert matrix.f > recency.f
    # same seed, same decisions; three folds dealt with another seed differ
    assert _decisions(logistic_outputs(items, seed=2009).outputs) == decided
    other = logistic_outputs(items, folds=3, seed=1)
    assert other.folds == 3 and sorted(set(other.fold_of.values())) == [0, 1, 2]


def test_out_of_fold_means_the_session_was_not_trained_on(items):
    pytest.importorskip("sklearn")
    # flipping one session's labels cannot change that session's own decisions
    result = logistic_outputs(items, folds=10, seed=2009)
    s01 = [n for n, i in enumerate(items) if i.subdomain == "s01"]
    flipped = []
    for item in items:
        if item.subdomain == "s02":
            ref = item.references[0]
            expression = item.input.expression
            form = "other" if expression.is_pronoun else "demonstrative_pronoun"
            new_input = replace(item.input, expression=replace(expression, form=form))
            item = replace(item, input=new_input, references=(ref,))
        flipped.append(item)
    again = logistic_outputs(flipped, folds=10, seed=2009)
    assert [again.probabilities[n] for n in s01] != [
        result.probabilities[n] for n in s01
    ]
    s02 = [n for n, i in enumerate(items) if i.subdomain == "s02"]
    assert [again.probabilities[n] for n in s02] == [
        result.probabilities[n] for n in s02
    ]


@pytest.mark.parametrize("name", ["recency", "logistic"])
def test_baselines_write_submissions_the_campaign_accepts_and_scores(
    name, items, tmp_path
):
    if name == "logistic":
        pytest.importorskip("sklearn")
        outputs = logistic_outputs(items).outputs
    else:
        outputs = recency_outputs(items)
    folder = write_submission(
        tmp_path / "organisers" / name, outputs, description=f"{name} baseline"
    )
    assert sorted(p.name for p in folder.iterdir()) == ["outputs.tsv", "system.yaml"]
    record = validate_submission(
        folder,
        items,
        team="organisers",
        system=name,
        campaign_tasks=["situated_dialogue"],
    )
    assert record["status"] == "accepted", record["errors"]
    assert record["tasks"] == ["situated_dialogue"] and record["n_outputs"] == 368
    read, problems = read_submission_outputs(
        (folder / "outputs.tsv").read_bytes(),
        "outputs.tsv",
        items,
        ["situated_dialogue"],
    )
    assert problems == [] and _decisions(read) == _decisions(outputs)
    _, rows = score_outputs(
        items, read, {"bootstrap": {"resamples": 100}}, tasks=["situated_dialogue"]
    )
    overall = {r["metric"]: r["value"] for r in rows if r["subset"] == "all"}
    matrix = confusion_matrix([i.input.pronoun for i in items], _decisions(outputs))
    assert overall["decision_precision"] == matrix.precision
    assert overall["decision_recall"] == matrix.recall
    assert overall["decision_f"] == pytest.approx(matrix.f, abs=1e-15)


def test_both_baselines_written_with_their_method(items, tmp_path):
    pytest.importorskip("sklearn")
    import yaml

    folders = write_baseline_submissions(items, tmp_path, seed=2009)
    assert [f.relative_to(tmp_path).as_posix() for f in folders] == [
        "organisers/recency",
        "organisers/logistic",
    ]
    meta = yaml.safe_load((folders[1] / "system.yaml").read_text())
    assert (
        "6-fold cross-validation grouped by session (seed 2009)"
        in (meta["description"])
    )
    assert meta["tasks"] == ["situated_dialogue"] and meta["primary"] is False
    again = write_baseline_submissions(items, tmp_path / "again", seed=2009)
    for first, second in zip(folders, again, strict=True):
        for name in ("outputs.tsv", "system.yaml"):
            assert (first / name).read_bytes() == (second / name).read_bytes()

"""Seed 000's Table 4: the logistic baseline with one feature group left out.

Every learnt row is recomputed here independently: the test encodes the Table 3
features itself (by name, from each instance's ``Features``), deals the sessions
into folds itself, and fits scikit-learn's scaler and logistic regression on the
kept columns, then counts TP, FP, FN and TN by hand.
"""

from __future__ import annotations

import math
import random

import pytest

from stecflow.baselines.situated import (
    FEATURE_COLUMNS,
    FEATURE_GROUPS,
    kept_columns,
    logistic_outputs,
    write_baseline_submissions,
)
from stecflow.baselines.situated_ablations import (
    ABLATION_COLUMNS,
    ablated_system,
    ablation_rows,
    format_ablation_table,
    write_ablation_submissions,
    write_ablation_table,
)
from stecflow.cli import main
from stecflow.core.io import read_tsv
from stecflow.data.dialogue import Expression, Features, Utterance, read_corpus
from stecflow.data.model import Domain, Item
from stecflow.submissions.validation import validate_submission
from stecflow.tasks.situated_dialogue import Instance, items_from_sessions
from tests.conftest import REPO

DEMO = REPO / "resources" / "dialogue-demo"

#: The demo corpus's Table 4 (6 sessions, one fold each, seed 2009): label,
#: system, TP, FP, FN, TN. Pinned from a run and recomputed independently below.
DEMO_TABLE = [
    ("Baseline", "recency", 68, 35, 61, 204),
    ("All features", "logistic", 103, 14, 26, 225),
    ("All but dialogue history", "logistic-no-D", 107, 14, 22, 225),
    ("All but action history", "logistic-no-A", 107, 15, 22, 224),
    ("All but current operation", "logistic-no-O", 86, 47, 43, 192),
]


def _features(rng: random.Random) -> Features:
    mentioned = rng.random() < 0.7
    acted = rng.random() < 0.6
    return Features(
        D1=mentioned and rng.random() < 0.5,
        D2=rng.randrange(200, 20000) if mentioned else None,
        D3=mentioned and rng.random() < 0.3,
        D4=rng.randrange(4),
        D5=rng.randrange(1, 4) if mentioned else 0,
        A1=acted and rng.random() < 0.5,
        A2=rng.randrange(0, 15000) if acted else None,
        A3=rng.choice(("move", "rotate", "flip")) if acted else None,
        A4=rng.randrange(3),
        A5=rng.randrange(1, 3) if acted else 0,
        O1=rng.random() < 0.4,
        O2=rng.random() < 0.3,
    )


def _constructed_items() -> list[Item]:
    """Eight sessions of 12 instances; a pronoun by a noisy rule on D1, A1,
    O1 and O2, so that every group carries some of the signal."""
    rng = random.Random(45)
    items = []
    for s in range(1, 9):
        session = f"c{s}"
        for n in range(12):
            f = _features(rng)
            score = -1.2 + 1.1 * f.D1 + 0.7 * f.A1 + 1.4 * f.O1 + 1.2 * f.O2
            pronoun = score + rng.gauss(0, 0.7) > 0
            ident = f"{session}-e{n:02d}"
            expression = Expression(
                ident,
                0,
                8,
                "P1",
                "demonstrative_pronoun" if pronoun else "definite_description",
                f,
            )
            utterance = Utterance(
                f"{session}-u{n:02d}", "solver", n, n + 1, "that one", (expression,)
            )
            items.append(
                Item(
                    ident,
                    Domain(()),
                    session,
                    input=Instance(session, "en", utterance, expression),
                )
            )
    return items


@pytest.fixture(scope="module")
def constructed():
    """The constructed items and their rows (10 folds asked, seed 3)."""
    pytest.importorskip("sklearn")
    items = _constructed_items()
    return items, ablation_rows(items, folds=10, seed=3)


def _encode(f: Features) -> dict[str, float]:
    """The Table 3 features as numbers, written out here by name."""

    def known(ms):
        return 0.0 if ms is None else 1.0

    def log_s(ms):
        return 0.0 if ms is None else math.log(1 + ms / 1000)

    return {
        "D1": float(f.D1),
        "D2_known": known(f.D2),
        "D2_log_s": log_s(f.D2),
        "D3": float(f.D3),
        "D4": float(f.D4),
        "D5": float(f.D5),
        "A1": float(f.A1),
        "A2_known": known(f.A2),
        "A2_log_s": log_s(f.A2),
        "A3_move": float(f.A3 == "move"),
        "A3_rotate": float(f.A3 == "rotate"),
        "A3_flip": float(f.A3 == "flip"),
        "A4": float(f.A4),
        "A5": float(f.A5),
        "O1": float(f.O1),
        "O2": float(f.O2),
    }


def _independent(items, removed, folds, seed):
    """(TP, FP, FN, TN) of the logistic regression without the groups
    *removed*, computed here from scratch."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    names = sorted({i.input.session for i in items})
    k = min(folds, len(names))
    order = np.random.default_rng(seed).permutation(len(names))
    fold_of = {names[int(j)]: n % k for n, j in enumerate(order)}
    encoded = [_encode(i.input.features) for i in items]
    keep = [c for c in encoded[0] if c[0] not in removed]
    x = np.array([[row[c] for c in keep] for row in encoded])
    y = np.array(
        [int(i.input.expression.form == "demonstrative_pronoun") for i in items]
    )
    fold = np.array([fold_of[i.input.session] for i in items])
    decided = np.zeros(len(items), dtype=bool)
    for held in range(k):
        test = fold == held
        scaler = StandardScaler().fit(x[~test])
        model = LogisticRegression(C=1.0).fit(scaler.transform(x[~test]), y[~test])
        p = model.predict_proba(scaler.transform(x[test]))[:, 1]
        decided[test] = p >= 0.5
    gold = y == 1
    return (
        int(np.sum(gold & decided)),
        int(np.sum(~gold & decided)),
        int(np.sum(gold & ~decided)),
        int(np.sum(~gold & ~decided)),
    )


def _counts(row):
    m = row.matrix
    return (m.tp, m.fp, m.fn, m.tn)


def test_columns_are_named_by_their_seed_group():
    assert list(FEATURE_GROUPS) == ["D", "A", "O"]
    # every column belongs to exactly one of the three groups, in order
    assert [c[0] for c in FEATURE_COLUMNS] == ["D"] * 6 + ["A"] * 8 + ["O"] * 2
    assert kept_columns(["O"]) == FEATURE_COLUMNS[:14]
    assert kept_columns(["D", "O"]) == FEATURE_COLUMNS[6:14]
    assert kept_columns() == FEATURE_COLUMNS
    with pytest.raises(ValueError, match="unknown feature group 'Q': the groups are D"):
        kept_columns(["Q"])
    with pytest.raises(ValueError, match="every feature group removed"):
        kept_columns(["D", "A", "O"])
    assert ablated_system(["A"]) == "logistic-no-A"
    with pytest.raises(ValueError, match="unknown feature group 'd'"):
        ablated_system(["d"])


def test_constructed_corpus_rows_match_an_independent_fit(constructed):
    items, rows = constructed
    assert [(r.label, r.system, r.removed) for r in rows] == [
        ("Baseline", "recency", ()),
        ("All features", "logistic", ()),
        ("All but dialogue history", "logistic-no-D", ("D",)),
        ("All but action history", "logistic-no-A", ("A",)),
        ("All but current operation", "logistic-no-O", ("O",)),
    ]
    # the baseline by hand: a pronoun iff D1
    gold = [i.input.pronoun for i in items]
    d1 = [i.input.features.D1 for i in items]
    assert _counts(rows[0]) == (
        sum(g and d for g, d in zip(gold, d1, strict=True)),
        sum(d and not g for g, d in zip(gold, d1, strict=True)),
        sum(g and not d for g, d in zip(gold, d1, strict=True)),
        sum(not g and not d for g, d in zip(gold, d1, strict=True)),
    )
    for row in rows[1:]:
        assert row.folds == 8  # eight sessions: one fold each
        assert _counts(row) == _independent(items, row.removed, 10, 3), row.label
        tp, fp, fn, _ = _counts(row)
        assert row.matrix.precision == tp / (tp + fp)
        assert row.matrix.recall == tp / (tp + fn)
        assert row.matrix.f == pytest.approx(2 * tp / (2 * tp + fp + fn), abs=1e-15)
    # the counts themselves (8 sessions x 12 instances, 51 pronouns)
    assert [_counts(r) for r in rows] == [
        (17, 11, 34, 34),
        (42, 6, 9, 39),
        (42, 5, 9, 40),
        (41, 7, 10, 38),
        (28, 33, 23, 12),
    ]
    # three folds: every row still from the same folds, and the fit again agrees
    three = ablation_rows(items, folds=3, seed=11)
    assert {r.folds for r in three[1:]} == {3}
    for row in three[1:]:
        assert _counts(row) == _independent(items, row.removed, 3, 11)


def test_the_rows_share_one_assignment_of_sessions_to_folds():
    pytest.importorskip("sklearn")
    items = _constructed_items()
    folds = {
        tuple(sorted(logistic_outputs(items, seed=5, without=w).fold_of.items()))
        for w in [(), ("D",), ("A",), ("O",)]
    }
    assert len(folds) == 1
    assert logistic_outputs(items, without=("O",)).columns == FEATURE_COLUMNS[:14]


def test_demo_table_4_matches_an_independent_fit():
    pytest.importorskip("sklearn")
    items = items_from_sessions(read_corpus(DEMO))
    rows = ablation_rows(items, folds=10, seed=2009)
    assert [(r.label, r.system, *_counts(r)) for r in rows] == DEMO_TABLE
    for row in rows[1:]:
        assert _counts(row) == _independent(items, row.removed, 10, 2009)
    # the seed's finding: all features beat the baseline, and leaving out the
    # current operation hurts most
    f = {r.system: r.matrix.f for r in rows}
    assert f["logistic"] > f["recency"]
    assert f["logistic-no-O"] == min(f[s] for s in f if s != "recency")


def test_table_tsv_and_text_are_the_rows(constructed, tmp_path):
    _, rows = constructed
    path = write_ablation_table(rows, tmp_path / "t" / "ablations.tsv")
    data = path.read_bytes()
    lines = data.decode().split("\n")
    assert lines[0].split("\t") == list(ABLATION_COLUMNS)
    assert lines[1].split("\t") == [
        "Baseline",
        "recency",
        "",
        "D1",
        "",
        "17",
        "11",
        "34",
        "34",
        "0.6071428571",  # 17 / 28
        "0.3333333333",  # 17 / 51
        "0.4303797468",  # 34 / 79
    ]
    table = read_tsv(path)
    assert [r["system"] for r in table] == [r.system for r in rows]
    assert table[4]["removed"] == "O" and table[4]["columns"] == ",".join(
        FEATURE_COLUMNS[:14]
    )
    assert table[4]["folds"] == "8"
    assert [float(r["f"]) for r in table] == pytest.approx([r.matrix.f for r in rows])
    # same inputs, same bytes
    again = write_ablation_table(
        ablation_rows(_constructed_items(), seed=3), tmp_path / "b.tsv"
    )
    assert again.read_bytes() == data
    text = format_ablation_table(rows).splitlines()
    assert text[0].split() == ["row", "system", "TP", "FP", "FN", "TN", "P", "R", "F"]
    assert text[2].split()[-7:] == ["42", "6", "9", "39", "0.875", "0.824", "0.848"]
    assert text[5].startswith("All but current operation  logistic-no-O")


def test_ablation_submissions_are_accepted_and_described(constructed, tmp_path):
    import yaml

    items, rows = constructed
    folders = write_ablation_submissions(rows, tmp_path, seed=3)
    assert [f.relative_to(tmp_path).as_posix() for f in folders] == [
        "organisers/logistic-no-D",
        "organisers/logistic-no-A",
        "organisers/logistic-no-O",
    ]
    meta = yaml.safe_load((folders[2] / "system.yaml").read_text("utf-8"))
    assert meta["description"] == (
        "Logistic regression (scikit-learn, L2, C=1, standardised features) over"
        " the Table 3 features of seed 000 except those of the current operation"
        " (O1-O2); decisions out of fold from 8-fold cross-validation grouped by"
        " session (seed 3)."
    )
    for folder in folders:
        record = validate_submission(
            folder,
            items,
            team="organisers",
            system=folder.name,
            campaign_tasks=["situated_dialogue"],
        )
        assert record["status"] == "accepted", record["errors"]


def test_baseline_submissions_unchanged_by_default_and_ablations_on_request(tmp_path):
    pytest.importorskip("sklearn")
    items = _constructed_items()
    plain = write_baseline_submissions(items, tmp_path / "a", seed=3)
    assert [f.name for f in plain] == ["recency", "logistic"]
    both = write_baseline_submissions(items, tmp_path / "b", seed=3, ablations=True)
    assert [f.name for f in both] == [
        "recency",
        "logistic",
        "logistic-no-D",
        "logistic-no-A",
        "logistic-no-O",
    ]
    for name in ("recency", "logistic"):
        for file in ("outputs.tsv", "system.yaml"):
            a = (tmp_path / "a" / "organisers" / name / file).read_bytes()
            assert (tmp_path / "b" / "organisers" / name / file).read_bytes() == a


def test_the_demo_ships_the_ablations_as_scored_submissions():
    root = DEMO / "submissions" / "organisers"
    assert sorted(p.name for p in root.iterdir()) == sorted(
        system for _, system, *_ in DEMO_TABLE
    )


# -- the command line


def _cli(*argv: str) -> int:
    return main(["baseline", "logistic", "--dialogue", str(DEMO), *argv])


def test_cli_ablations_prints_and_writes_the_table(tmp_path, capsys):
    pytest.importorskip("sklearn")
    path = tmp_path / "ablations.tsv"
    assert _cli("--ablations", str(path)) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        "Seed 000 Table 4 on 368 instances: the logistic baseline with 6-fold"
        " cross-validation grouped by session (seed 2009), the same folds for"
        " every row"
    )
    assert out[1].split() == ["row", "system", "TP", "FP", "FN", "TN", "P", "R", "F"]
    assert out[2].split() == [
        "Baseline",
        "recency",
        "68",
        "35",
        "61",
        "204",
        "0.660",
        "0.527",
        "0.586",
    ]
    assert out[6].split()[-7:] == ["86", "47", "43", "192", "0.647", "0.667", "0.656"]
    assert out[7] == f"wrote 5 rows to {path}"
    table = read_tsv(path)
    assert [
        (r["row"], r["system"], int(r["tp"]), int(r["fp"]), int(r["fn"]), int(r["tn"]))
        for r in table
    ] == DEMO_TABLE
    assert table[1]["precision"] == "0.8803418803"  # 103 / 117
    assert table[2]["f"] == "0.856"  # 214 / 250
    # the folds and seed are the options'
    other = tmp_path / "other.tsv"
    assert _cli("--ablations", str(other), "--folds", "3", "--seed", "7") == 0
    assert {r["folds"] for r in read_tsv(other)[1:]} == {"3"}
    no_o = read_tsv(other)[4]
    counts = tuple(int(no_o[c]) for c in ("tp", "fp", "fn", "tn"))
    assert counts == (81, 42, 48, 197)  # other folds, other decisions
    items = items_from_sessions(read_corpus(DEMO))
    assert counts == _independent(items, ("O",), 3, 7)


def test_cli_ablate_writes_one_submission_without_the_group(tmp_path, capsys):
    pytest.importorskip("sklearn")
    folder = tmp_path / "organisers" / "logistic-no-O"
    assert _cli("--ablate", "O", "--out", str(folder)) == 0
    shipped = DEMO / "submissions" / "organisers" / "logistic-no-O"
    assert (folder / "outputs.tsv").read_bytes() == (
        shipped / "outputs.tsv"
    ).read_bytes()
    assert "except those of the current operation (O1-O2)" in (
        folder / "system.yaml"
    ).read_text("utf-8")
    # repeated, in either case: both groups out
    two = tmp_path / "organisers" / "logistic-no-D-A"
    assert _cli("--ablate", "a", "--ablate", "D", "--out", str(two)) == 0
    assert "except those of the dialogue history (D1-D5) and the action history" in (
        two / "system.yaml"
    ).read_text("utf-8")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["logistic", "--ablate", "X", "--out", "o/x"],
            "--ablate: unknown feature group 'X': the groups are D (dialogue"
            " history), A (action history) and O (current operation)",
        ),
        (
            [
                "logistic",
                "--ablate",
                "D",
                "--ablate",
                "A",
                "--ablate",
                "O",
                "--out",
                "o/x",
            ],
            "--ablate: every feature group removed",
        ),
        (
            ["recency", "--ablate", "D", "--out", "o/x"],
            "the recency baseline has no features to leave out",
        ),
        (["recency", "--ablations", "t.tsv"], "--ablations compares the logistic"),
        (
            ["logistic", "--ablations", "t.tsv", "--out", "o/x"],
            "--ablations writes a table, not a submission",
        ),
        (["logistic", "--ablations", "t.tsv", "--ablate", "D"], "not both"),
        (["logistic"], "or --ablations TABLE.tsv"),
    ],
)
def test_cli_refuses_bad_ablations(argv, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["baseline", *argv[:1], "--dialogue", str(DEMO), *argv[1:]]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o").exists() and not (tmp_path / "t.tsv").exists()


def test_cli_ablate_is_for_the_situated_task(tmp_path, capsys):
    xml = REPO / "resources" / "demo" / "test.xml"
    assert (
        main(
            ["baseline", "greedy", str(xml), str(tmp_path / "o" / "g"), "--ablate", "D"]
        )
        == 2
    )
    assert (
        "--ablate and --ablations are for the logistic baseline"
        in capsys.readouterr().err
    )


def test_help_explains_the_ablation_options(capsys):
    with pytest.raises(SystemExit):
        main(["baseline", "--help"])
    words = " ".join(capsys.readouterr().out.split())
    assert "--ablate G" in words and "--ablations TABLE" in words
    assert (
        "D (dialogue history, D1-D5), A (action history, A1-A5) or O (current operation, O1-O2)"
        in words
    )
    assert "the same folds for every row" in words

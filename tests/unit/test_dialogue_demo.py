"""The simulated situated-dialogue corpus (resources/dialogue-demo/)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from stecflow.data.dialogue import (
    Session,
    compute_features,
    cursor_at,
    piece_states,
    point_in_piece,
    read_corpus,
)
from stecflow.demo import dialogue as demo
from stecflow.demo.seeding import DEFAULT_SEED

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "resources" / "dialogue-demo"


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dialogue-demo")
    (out / "stale.json").write_text("{}")
    written = demo.write_demo(out)
    assert [p.name for p in written] == [f"s0{n}.json" for n in range(1, 7)]
    return out


@pytest.fixture(scope="module")
def corpus() -> tuple[Session, ...]:
    return read_corpus(COMMITTED)


def solver_expressions(corpus):
    return [(u, e) for s in corpus for u, e in s.expressions() if u.speaker == "solver"]


def test_regeneration_gives_the_committed_bytes(fresh: Path) -> None:
    new = {p.name: p.read_bytes() for p in sorted(fresh.iterdir()) if p.is_file()}
    old = {p.name: p.read_bytes() for p in sorted(COMMITTED.glob("*.json"))}
    assert sorted(new) == sorted(old)  # stale.json was removed
    changed = [name for name in new if new[name] != old[name]]
    assert not changed, f"regenerate with python -m stecflow.demo.dialogue: {changed}"


def test_the_demo_submissions_regenerate_identically(fresh: Path) -> None:
    """The organisers' baselines the dialogue campaign runs (its submissions)."""
    pytest.importorskip("sklearn", reason="pip install 'stecflow[dialogue]'")
    written = demo.write_demo_submissions(fresh)
    root = fresh / "submissions"
    new = {str(p.relative_to(root)): p.read_bytes() for p in written}
    committed = COMMITTED / "submissions"
    old = {
        str(p.relative_to(committed)): p.read_bytes()
        for p in sorted(committed.rglob("*"))
        if p.is_file()
    }
    assert sorted(new) == [
        "organisers/logistic-no-A/outputs.tsv",
        "organisers/logistic-no-A/system.yaml",
        "organisers/logistic-no-D/outputs.tsv",
        "organisers/logistic-no-D/system.yaml",
        "organisers/logistic-no-O/outputs.tsv",
        "organisers/logistic-no-O/system.yaml",
        "organisers/logistic/outputs.tsv",
        "organisers/logistic/system.yaml",
        "organisers/recency/outputs.tsv",
        "organisers/recency/system.yaml",
    ]
    changed = [name for name in new if new[name] != old.get(name)]
    assert not changed, f"regenerate with python -m stecflow.demo.dialogue: {changed}"
    # one line per solver expression of the corpus, after the header
    assert new["organisers/recency/outputs.tsv"].count(b"\n") == 368 + 1


def test_reader_reads_back_what_was_generated(corpus) -> None:
    assert corpus == demo.generate_sessions(DEFAULT_SEED)
    assert demo.generate_sessions(1)[0] != corpus[0]


def test_main_writes_the_corpus(tmp_path: Path, capsys) -> None:
    pytest.importorskip("sklearn", reason="pip install 'stecflow[dialogue]'")
    assert demo.main(["--out", str(tmp_path / "d")]) == 0
    printed = capsys.readouterr().out
    assert printed.count(".json") == 6 and printed.count("outputs.tsv") == 5
    assert read_corpus(tmp_path / "d") == demo.generate_sessions()


def test_small_and_labelled_simulated(corpus) -> None:
    total = sum(p.stat().st_size for p in COMMITTED.iterdir())
    assert total < 1_000_000
    assert all(s.source.startswith("SIMULATED") for s in corpus)
    assert all("simulated layout" in s.goal.name for s in corpus)


def test_seven_tangram_pieces(corpus) -> None:
    for session in corpus:
        assert Counter(p.shape for p in session.pieces) == {
            "large_triangle": 2,
            "medium_triangle": 1,
            "small_triangle": 2,
            "square": 1,
            "parallelogram": 1,
        }
        assert {p.piece for p in session.goal.placements} == {
            p.id for p in session.pieces
        }


def test_stored_features_are_the_computed_ones(corpus) -> None:
    for session in corpus:
        computed = compute_features(session)
        for _, expression in session.expressions():
            assert expression.features == computed[expression.id]


def test_the_four_kinds_of_expression(corpus) -> None:
    spans = Counter()
    forms = Counter()
    for u, e in solver_expressions(corpus):
        spans[(e.form, u.span(e).lower())] += 1
        forms[e.form] += 1
    assert set(forms) == {
        "demonstrative_pronoun",
        "definite_description",
        "unique_name",
        "action_mentioning",
    }
    assert spans[("demonstrative_pronoun", "that one")] > 10
    assert spans[("definite_description", "the small triangle")] > 0
    assert spans[("unique_name", "the parallelogram")] > 10
    assert any(
        re.fullmatch(r"the triangle you just (moved|turned|flipped)", text)
        for form, text in spans
        if form == "action_mentioning"
    )
    assert all(
        text in ("the square", "the parallelogram")
        for form, text in spans
        if form == "unique_name"
    )
    # a description of one of two same-shaped pieces says which, mostly
    two = [t for f, t in spans if f == "definite_description" and "small" in t]
    assert any(t.endswith(("on the left", "on the right", "at the top")) for t in two)
    # the operator checks with "this one?"
    operator = [u for s in corpus for u in s.utterances if u.speaker == "operator"]
    assert any(u.text == "this one?" and u.expressions for u in operator)


def _share(rows, feature, value):
    chosen = [e for _, e in rows if getattr(e.features, feature) == value]
    return sum(e.is_pronoun for e in chosen) / len(chosen)


def test_pronouns_depend_on_the_situation_with_noise(corpus) -> None:
    rows = solver_expressions(corpus)
    assert len(rows) > 300
    # recency of mention, the cursor and the current operation favour a pronoun
    for feature in ("D1", "O1", "O2"):
        assert _share(rows, feature, True) - _share(rows, feature, False) > 0.3
    # ... with noise: the noiseless rule does not reproduce the corpus
    rule = [demo.pronoun_score(e.features) > 0 for _, e in rows]
    agree = sum(r == e.is_pronoun for r, (_, e) in zip(rule, rows, strict=True))
    assert 0.75 < agree / len(rows) < 0.97

    def f_score(predicted):
        pairs = list(zip(predicted, (e.is_pronoun for _, e in rows), strict=True))
        tp = sum(p and g for p, g in pairs)
        fp = sum(p and not g for p, g in pairs)
        fn = sum(g and not p for p, g in pairs)
        return 2 * tp / (2 * tp + fp + fn)

    # the seed's recency baseline finds something, the features find more
    recency = f_score([e.features.D1 for _, e in rows])
    assert 0.4 < recency < f_score(rule) - 0.1


def test_timing_is_plausible(corpus) -> None:
    for session in corpus:
        for u in session.utterances:
            words = len(u.text.split())
            assert words * 240 + 200 <= u.end_ms - u.start_ms <= words * 340 + 201
        for a in session.actions:
            assert 500 <= a.end_ms - a.start_ms <= 1800
        starts = [a.start_ms for a in session.actions]
        assert starts == sorted(starts)


def test_cursor_goes_to_the_pieces_handled(corpus) -> None:
    for session in corpus:
        for action in session.actions:
            before = piece_states(session, action.start_ms)[action.piece]
            at_start = cursor_at(session, action.start_ms)
            assert point_in_piece(before, session.area.unit, *at_start)
            assert cursor_at(session, action.end_ms) == (action.x, action.y)

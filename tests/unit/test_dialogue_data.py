"""The stecflow-dialogue format: reader, errors, features, context, writer.

The small session below is worked by hand: every feature value and every
context is computed in the comments before it is asserted.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path

import pytest

from stecflow.core.errors import CorpusError
from stecflow.data import dialogue as dlg
from stecflow.data.dialogue import (
    FEATURE_NAMES,
    Features,
    compute_features,
    context_start,
    cut_context,
    dumps_session,
    load_session,
    piece_polygon,
    read_corpus,
    read_session,
    session_schema,
    with_computed_features,
)

F0 = {
    "D1": False, "D2": None, "D3": False, "D4": 0, "D5": 0,
    "A1": False, "A2": None, "A3": None, "A4": 0, "A5": 0, "O1": False, "O2": False,
}  # fmt: skip


def expr(id_, start, end, referent, form):
    return {
        "id": id_,
        "start": start,
        "end": end,
        "referent": referent,
        "form": form,
        "features": dict(F0),
    }


def small() -> dict:
    """Four pieces, four utterances, two actions, three cursor samples."""
    return {
        "format": "stecflow-dialogue",
        "version": 1,
        "id": "t1",
        "language": "en",
        "source": "hand-made test session",
        "area": {"width": 800, "height": 600, "unit": 50},
        "pieces": [
            {"id": "SQ", "shape": "square", "x": 100, "y": 100, "rotation": 0, "flipped": False},
            {"id": "ST1", "shape": "small_triangle", "x": 300, "y": 100, "rotation": 0, "flipped": False},
            {"id": "ST2", "shape": "small_triangle", "x": 500, "y": 100, "rotation": 0, "flipped": False},
            {"id": "PG", "shape": "parallelogram", "x": 300, "y": 400, "rotation": 0, "flipped": False},
        ],
        "goal": {
            "name": "row",
            "placements": [{"piece": "SQ", "x": 10, "y": 10, "rotation": 45, "flipped": False}],
        },
        "utterances": [
            {"id": "u1", "speaker": "solver", "start_ms": 1000, "end_ms": 2000,
             "text": "move the square to the left",
             "expressions": [expr("e1", 5, 15, "SQ", "unique_name")]},
            {"id": "u2", "speaker": "solver", "start_ms": 4000, "end_ms": 5000,
             "text": "now that one", "expressions": [expr("e2", 4, 12, "SQ", "demonstrative_pronoun")]},
            {"id": "u3", "speaker": "operator", "start_ms": 5200, "end_ms": 5600,
             "text": "this one?", "expressions": [expr("e3", 0, 8, "ST1", "demonstrative_pronoun")]},
            {"id": "u4", "speaker": "solver", "start_ms": 6000, "end_ms": 7000,
             "text": "rotate that and the square",
             "expressions": [expr("e4", 7, 11, "ST1", "demonstrative_pronoun"),
                             expr("e5", 16, 26, "SQ", "unique_name")]},
        ],
        "actions": [
            {"id": "a1", "piece": "SQ", "kind": "move", "start_ms": 2500, "end_ms": 3500,
             "x": 150, "y": 300, "rotation": 0, "flipped": False},
            {"id": "a2", "piece": "ST1", "kind": "rotate", "start_ms": 5500, "end_ms": 6500,
             "x": 300, "y": 100, "rotation": 90, "flipped": False},
        ],
        "cursor": [
            {"t_ms": 0, "x": 400, "y": 300},
            {"t_ms": 3500, "x": 150, "y": 300},
            {"t_ms": 5400, "x": 300, "y": 100},
        ],
    }  # fmt: skip


def encode(raw: dict) -> bytes:
    return json.dumps(raw, indent=2).encode("utf-8")


def line_of(data: bytes, needle: str, nth: int = 0) -> int:
    text = data.decode("utf-8")
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    return text.count("\n", 0, at) + 1


@pytest.fixture
def session() -> dlg.Session:
    return load_session(encode(small()), "t1.json")


# ------------------------------------------------------------------- the model


def test_reads_the_model(session: dlg.Session) -> None:
    assert session.id == "t1" and session.area == dlg.Area(800, 600, 50)
    assert [p.id for p in session.pieces] == ["SQ", "ST1", "ST2", "PG"]
    assert session.goal.placements[0] == dlg.Placement("SQ", 10, 10, 45, False)
    u4 = session.utterances[3]
    assert [u4.span(e) for e in u4.expressions] == ["that", "the square"]
    assert [e.is_pronoun for _, e in session.expressions()] == [
        False, True, True, True, False,
    ]  # fmt: skip
    assert session.actions[1] == dlg.Action(
        "a2", "ST1", "rotate", 5500, 6500, 300, 100, 90, False
    )
    assert session.cursor[1] == dlg.CursorSample(3500, 150, 300)
    assert session.find("e5")[0].id == "u4"


def test_round_trip_is_exact(session: dlg.Session, tmp_path: Path) -> None:
    text = dumps_session(session)
    assert load_session(text.encode("utf-8"), "again.json") == session
    assert dumps_session(load_session(text.encode(), "x")) == text
    dlg.write_session(session, tmp_path / "t1.json")
    assert read_session(tmp_path / "t1.json") == session
    assert read_corpus(tmp_path) == (session,)
    # one cursor sample per line, features on one line
    assert '    {"t_ms": 3500, "x": 150, "y": 300},\n' in text
    assert '"features": {"D1": false, "D2": null,' in text


def test_japanese_offsets_are_code_points() -> None:
    raw = small()
    raw["language"] = "ja"
    raw["utterances"][1]["text"] = "それを右に"
    raw["utterances"][1]["expressions"][0].update(start=0, end=2)
    session = load_session(encode(raw), "ja.json")
    utterance, expression = session.find("e2")
    assert utterance.span(expression) == "それ"
    raw["utterances"][1]["expressions"][0].update(start=4, end=6)
    with pytest.raises(CorpusError, match=r"5 characters"):
        load_session(encode(raw), "ja.json")


# --------------------------------------------------------------------- features


def test_features_worked_by_hand(session: dlg.Session) -> None:
    got = compute_features(session)
    # e1 (t = 1000): nothing before it.
    assert got["e1"] == Features(**F0)
    # e2 (SQ, t = 4000): e1 (SQ, onset 1000) is the last mention; a1 (SQ)
    # ended at 3500; the cursor sample of 3500 (150, 300) is SQ's new centre.
    assert got["e2"] == Features(
        D1=True, D2=3000, D3=False, D4=0, D5=1,
        A1=True, A2=500, A3="move", A4=0, A5=1, O1=True, O2=False,
    )  # fmt: skip
    # e3 (ST1, t = 5200): never mentioned, SQ was (D4 = 1); never acted on, SQ
    # was (A4 = 1); the cursor is still on SQ; a2 begins only at 5500.
    assert got["e3"] == Features(
        D1=False, D2=None, D3=False, D4=1, D5=0,
        A1=False, A2=None, A3=None, A4=1, A5=0, O1=False, O2=False,
    )  # fmt: skip
    # e4 (ST1, t = 6000): e3 (a pronoun, onset 5200) is the last mention; a2
    # on ST1 runs 5500-6500 (A2 = 0, O2); the 5400 sample (300, 100) is ST1's
    # centre, and ST1 has not moved yet.
    assert got["e4"] == Features(
        D1=True, D2=800, D3=True, D4=0, D5=1,
        A1=True, A2=0, A3="rotate", A4=0, A5=1, O1=True, O2=True,
    )  # fmt: skip
    # e5 (SQ, same utterance): e4 (ST1) comes just before; SQ's last mention
    # is e2 (a pronoun, onset 4000), then ST1 (e3, e4); a1 ended at 3500, then
    # a2 on ST1 began.
    assert got["e5"] == Features(
        D1=False, D2=2000, D3=True, D4=1, D5=2,
        A1=False, A2=2500, A3="move", A4=1, A5=1, O1=False, O2=False,
    )  # fmt: skip


def test_feature_names_are_the_seeds(session: dlg.Session) -> None:
    assert FEATURE_NAMES == (
        "D1", "D2", "D3", "D4", "D5", "A1", "A2", "A3", "A4", "A5", "O1", "O2",
    )  # fmt: skip
    assert set(dlg.FEATURE_DESCRIPTIONS) == set(FEATURE_NAMES)
    schema = session_schema()
    features = schema["properties"]["utterances"]["items"]["properties"]["expressions"][
        "items"
    ]["properties"]["features"]
    assert tuple(features["properties"]) == FEATURE_NAMES
    filled = with_computed_features(session)
    assert filled.find("e4")[1].features.O2 is True
    assert list(filled.find("e2")[1].features.as_dict()) == list(FEATURE_NAMES)


def test_geometry() -> None:
    # large triangle, legs 2 units = 100 px; centroid at (2/3, 2/3) units
    pts = piece_polygon("large_triangle", 0, 0, 0, False, 50)
    assert [(round(x, 6), round(y, 6)) for x, y in pts] == [
        (-33.333333, -33.333333), (66.666667, -33.333333), (-33.333333, 66.666667),
    ]  # fmt: skip
    # flipped: mirrored left to right about the centroid
    flipped = piece_polygon("large_triangle", 0, 0, 0, True, 50)
    assert [(round(x, 6), round(y, 6)) for x, y in flipped] == [
        (33.333333, -33.333333), (-66.666667, -33.333333), (33.333333, 66.666667),
    ]  # fmt: skip
    # parallelogram (0,0) (1,0) (2,1) (1,1): centroid (1, 0.5)
    pg = piece_polygon("parallelogram", 0, 0, 180, False, 10)
    assert [(round(x, 6), round(y, 6)) for x, y in pg] == [
        (10.0, 5.0), (0.0, 5.0), (-10.0, -5.0), (0.0, -5.0),
    ]  # fmt: skip


# ---------------------------------------------------------------------- context


def test_context_start_as_the_seed_chose_it(session: dlg.Session) -> None:
    # e4 (ST1, onset 6000): last mention e3 at 5200, last action a2 at 5500
    assert context_start(session, "e4") == 5200
    # e2 (SQ, onset 4000): mention at 1000, action at 2500 -> 3 s of context
    assert context_start(session, "e2") == 1000
    assert context_start(session, "e2", max_ms=3000) == 1000
    assert context_start(session, "e2", max_ms=2999) is None
    # e3: ST1 never mentioned or acted on before; e1: nothing before
    assert context_start(session, "e3") is None
    assert context_start(session, "e1") is None


def test_cut_context(session: dlg.Session) -> None:
    ctx = cut_context(session, "e4", 5200)
    assert (ctx.start_ms, ctx.end_ms, ctx.duration_ms) == (5200, 6000, 800)
    assert ctx.utterance.id == "u4" and ctx.expression.id == "e4"
    assert [u.id for u in ctx.utterances] == ["u3"]
    assert [a.id for a in ctx.actions] == ["a2"]  # a1 ended at 3500
    assert [s.t_ms for s in ctx.cursor] == [5400]
    assert ctx.cursor_start == (150, 300)
    assert {p.id: (p.x, p.y) for p in ctx.pieces}["SQ"] == (150, 300)
    # from the start: every utterance before u4, both actions, pieces as at 0
    whole = cut_context(session, "e5", 0)
    assert [u.id for u in whole.utterances] == ["u1", "u2", "u3"]
    assert [a.id for a in whole.actions] == ["a1", "a2"]
    assert [s.t_ms for s in whole.cursor] == [0, 3500, 5400]
    assert whole.pieces == session.pieces
    # an action under way at the start is kept, its piece in its state before
    mid = cut_context(session, "e2", 3000)
    assert [a.id for a in mid.actions] == ["a1"]
    assert {p.id: (p.x, p.y) for p in mid.pieces}["SQ"] == (100, 100)
    with pytest.raises(ValueError, match="between 0 and the utterance's onset"):
        cut_context(session, "e4", 6001)
    with pytest.raises(KeyError):
        cut_context(session, "nope", 0)


# ---------------------------------------------------------------- the reader


def broken(change) -> bytes:
    raw = copy.deepcopy(small())
    change(raw)
    return encode(raw)


@pytest.mark.parametrize(
    ("change", "needle", "field", "message"),
    [
        (
            lambda r: r["utterances"][2].update(start_ms=3000),
            '"start_ms": 3000',
            "utterances[2].start_ms",
            "utterances out of order: this one starts at 3000 ms, the one before at 4000 ms",
        ),
        (
            lambda r: r["utterances"][0].update(end_ms=900),
            '"end_ms": 900',
            "utterances[0].end_ms",
            "the utterance ends (900 ms) before it starts (1000 ms)",
        ),
        (
            lambda r: r["utterances"][1]["expressions"][0].update(end=13),
            '"end": 13',
            "utterances[1].expressions[0].end",
            "the span 4:13 is outside the utterance's text (12 characters) or empty",
        ),
        (
            lambda r: r["utterances"][3]["expressions"][1].update(referent="LT9"),
            '"referent": "LT9"',
            "utterances[3].expressions[1].referent",
            "'LT9' is not a piece of this session (the pieces: PG, SQ, ST1, ST2)",
        ),
        (
            lambda r: r["actions"][1].update(piece="LT9"),
            '"piece": "LT9"',
            "actions[1].piece",
            "'LT9' is not a piece of this session",
        ),
        (
            lambda r: r["actions"][1].update(start_ms=2000, end_ms=2100),
            '"start_ms": 2000',
            "actions[1].start_ms",
            "actions out of order",
        ),
        (
            lambda r: r["cursor"][2].update(t_ms=3500),
            '"t_ms": 3500',
            "cursor[2].t_ms",
            "cursor samples out of order: 3500 ms after 3500 ms",
        ),
        (
            lambda r: r["cursor"][1].update(x=801),
            '"x": 801',
            "cursor[1].x",
            "the cursor is outside the work area (0 to 800 pixels)",
        ),
        (
            lambda r: r["utterances"][3]["expressions"][1].update(id="e1"),
            '"id": "e1"',
            "utterances[3].expressions[1].id",
            "expression ID 'e1' is used twice",
        ),
        (
            lambda r: r["pieces"][3].update(id="SQ"),
            '"id": "SQ"',
            "pieces[3].id",
            "piece ID 'SQ' is used twice (first at pieces[0])",
        ),
        (
            lambda r: r["goal"]["placements"].append(dict(r["goal"]["placements"][0])),
            '"piece": "SQ"',
            "goal.placements[1].piece",
            "the piece is placed twice",
        ),
    ],
    ids=[
        "utterance-order",
        "utterance-end",
        "span",
        "referent",
        "action-piece",
        "action-order",
        "cursor-order",
        "cursor-area",
        "expression-id",
        "piece-id",
        "goal-twice",
    ],  # fmt: skip
)
def test_consistency_errors_name_file_line_and_field(change, needle, field, message):
    data = broken(change)
    with pytest.raises(CorpusError) as info:
        load_session(data, "bad.json")
    error = info.value
    twice = {
        "goal.placements[1].piece",
        "utterances[3].expressions[1].id",
        "pieces[3].id",
        "cursor[2].t_ms",
    }
    nth = 1 if field in twice else 0  # the needle's first match is the original
    assert (error.file, error.field) == ("bad.json", field)
    assert error.line == line_of(data, needle, nth)
    assert message in error.message


@pytest.mark.parametrize(
    ("change", "needle", "field", "message"),
    [
        (
            lambda r: r["area"].update(colour="red"),
            '"colour"',
            "area",
            "unknown field colour (the fields are: width, height, unit)",
        ),
        (
            lambda r: r["utterances"][1].update(speaker="narrator"),
            '"speaker": "narrator"',
            "utterances[1].speaker",
            "expected one of solver, operator, got 'narrator'",
        ),
        (
            lambda r: r["actions"][0].update(start_ms=2500.5),
            '"start_ms": 2500.5',
            "actions[0].start_ms",
            "expected a whole number, got the number 2500.5",
        ),
        (
            lambda r: r["utterances"][0]["expressions"][0]["features"].pop("O2"),
            '"O1": false',
            "utterances[0].expressions[0].features",
            "required field O2 is missing",
        ),
        (
            lambda r: r["pieces"][0].update(id="a.b"),
            '"id": "a.b"',
            "pieces[0].id",
            "'a.b' is not an ID (letters, digits, - and _, at most 64 characters)",
        ),
        (
            lambda r: r.update(version=2),
            '"version": 2',
            "version",
            "expected 1, got the number 2",
        ),
        # cursor samples of an unusual shape go to the schema one by one
        (
            lambda r: r["cursor"][1].update(z=1),
            ('"t_ms": 3500', -1),
            "cursor[1]",
            "unknown field z (the fields are: t_ms, x, y)",
        ),
        (
            lambda r: r["cursor"][2].update(x="150"),
            '"x": "150"',
            "cursor[2].x",
            "expected a number, got '150'",
        ),
        (
            lambda r: r["cursor"][1].update(t_ms=-5),
            '"t_ms": -5',
            "cursor[1].t_ms",
            "expected at least 0, got the number -5",
        ),
        (
            lambda r: r["cursor"].__setitem__(0, [0, 1, 2]),
            ('"cursor": [', 1),
            "cursor[0]",
            "expected an object, got a list of 3",
        ),
    ],
    ids=[
        "unknown-field",
        "speaker",
        "integer-ms",
        "missing-feature",
        "id",
        "version",
        "cursor-field",
        "cursor-text",
        "cursor-negative",
        "cursor-list",
    ],
)
def test_schema_errors_name_file_line_and_field(change, needle, field, message):
    data = broken(change)
    with pytest.raises(CorpusError) as info:
        load_session(data, "bad.json")
    error = info.value
    assert (error.file, error.field, error.message) == ("bad.json", field, message)
    if field.endswith("features"):  # the object's line: its key
        assert error.line == line_of(data, '"features"')
    elif field == "area":
        assert error.line == line_of(data, '"area"')
    elif isinstance(needle, tuple):  # a sample's line: its opening bracket
        assert error.line == line_of(data, needle[0]) + needle[1]
    else:
        assert error.line == line_of(data, needle)


def test_syntax_errors_and_hostile_input() -> None:
    good = encode(small()).decode()
    cases = {
        "dup": good.replace('"unit": 50', '"unit": 50,\n "unit": 40'),
        "nan": good.replace('"unit": 50', '"unit": NaN'),
        "inf": good.replace('"height": 600', '"height": -Infinity'),
        "syntax": good.replace('"unit": 50', '"unit": 50,'),
    }
    with pytest.raises(CorpusError) as info:
        load_session(cases["dup"].encode(), "d.json")
    assert (info.value.line, info.value.field) == (
        line_of(cases["dup"].encode(), '"unit": 40'),
        "area.unit",
    )
    assert info.value.message == "key given twice; keep one"
    with pytest.raises(CorpusError, match=r"n.json, line \d+: NaN is not a number"):
        load_session(cases["nan"].encode(), "n.json")
    with pytest.raises(CorpusError) as info:
        load_session(cases["inf"].encode(), "i.json")
    assert info.value.line == line_of(cases["inf"].encode(), "Infinity")
    assert info.value.message.startswith("-Infinity is not a number JSON allows")
    with pytest.raises(CorpusError) as info:
        load_session(cases["syntax"].encode(), "s.json")
    assert info.value.line == line_of(cases["syntax"].encode(), '"unit": 50,') + 1
    assert info.value.message.startswith("not valid JSON: Expecting property name")
    # duplicate keys in two different objects are fine
    assert load_session(good.encode(), "ok.json").id == "t1"
    with pytest.raises(CorpusError, match="nest more than 16 levels"):
        load_session(b"[" * 17 + b"]" * 17, "deep.json")
    with pytest.raises(CorpusError, match="byte-order mark"):
        load_session(b"\xef\xbb\xbf" + good.encode(), "bom.json")
    with pytest.raises(CorpusError, match=r"line 3: bytes are not valid UTF-8"):
        load_session(b'{\n"a":\n"\xff"}', "u.json")
    with pytest.raises(CorpusError, match="a number has too many digits"):
        load_session(b'{"a": ' + b"9" * 5000 + b"}", "big.json")
    with pytest.raises(CorpusError, match="the limit is 100 bytes"):
        load_session(good.encode(), "l.json", max_bytes=100)
    with pytest.raises(CorpusError, match="expected an object, got a list of 0"):
        load_session(b"[]", "list.json")


def test_read_corpus_refuses_twins_and_empty(tmp_path: Path, session) -> None:
    with pytest.raises(CorpusError, match="no session files"):
        read_corpus(tmp_path)
    dlg.write_session(session, tmp_path / "a.json")
    dlg.write_session(session, tmp_path / "b.json")
    with pytest.raises(CorpusError, match="session ID 't1' is also the ID in a.json"):
        read_corpus(tmp_path)
    with pytest.raises(CorpusError, match="cannot read the file"):
        read_session(tmp_path / "missing.json")


def test_schema_is_closed_and_described() -> None:
    def objects(node, path="$"):
        if isinstance(node, dict):
            if node.get("type") == "object":
                yield path, node
            for key, value in node.items():
                yield from objects(value, f"{path}.{key}")
        elif isinstance(node, list):
            for n, value in enumerate(node):
                yield from objects(value, f"{path}[{n}]")

    found = list(objects(session_schema()))
    assert len(found) == 11
    # the only optional fields: an expression's content and a session's
    # set_aside (seed 000 Table 2 and §3; absent means not annotated)
    optional = {
        "$": {"set_aside"},
        "$.properties.utterances.items.properties.expressions.items": {"content"},
    }
    for path, obj in found:
        assert obj.get("additionalProperties") is False, path
        assert set(obj["required"]) == set(obj["properties"]) - optional.get(
            path, set()
        ), path
        for key, prop in obj["properties"].items():
            assert prop.get("description"), f"{path}.{key}"


def test_mangled_files_give_corpus_errors_only() -> None:
    """Random byte edits of a valid file: a session or a CorpusError, nothing else."""
    import random

    good = encode(small())
    rng = random.Random(15)
    outcomes = Counter()
    for _ in range(400):
        data = bytearray(good)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(data))
            action = rng.randrange(3)
            if action == 0:
                del data[at]
            elif action == 1:
                data.insert(at, rng.choice(b'{}[]",:0-9eE.\\ntfnNaI\xff'))
            else:
                data[at] = rng.randrange(256)
        try:
            load_session(bytes(data), "m.json")
            outcomes["read"] += 1
        except CorpusError as exc:
            assert exc.file == "m.json" and exc.message
            outcomes["refused"] += 1
    assert outcomes["refused"] > 300


def test_wrong_values_anywhere_give_corpus_errors_with_a_line() -> None:
    """Valid JSON, wrong value at a random place: refused with line and field."""
    import random

    def places(node, path=()):
        yield path
        if isinstance(node, dict):
            for key, value in node.items():
                yield from places(value, (*path, key))
        elif isinstance(node, list):
            for n, value in enumerate(node):
                yield from places(value, (*path, n))

    rng = random.Random(16)
    all_places = [p for p in places(small()) if p]
    odd = [None, -1, 10**9, 2.5, "", "x.y", [], {}, True, "LT9", 360]
    refused = 0
    for _ in range(300):
        raw = copy.deepcopy(small())
        path = rng.choice(all_places)
        node = raw
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = rng.choice(odd)
        data = encode(raw)
        try:
            load_session(data, "w.json")
        except CorpusError as exc:
            refused += 1
            assert exc.line is not None and 1 <= exc.line <= data.count(b"\n") + 1
            assert exc.field, exc
    assert refused > 200


# ------------------------------------------------------------------ corpus file


DEMO = Path(__file__).resolve().parents[2] / "resources" / "dialogue-demo"


@pytest.fixture(scope="module")
def corpus_text() -> str:
    return dlg.dumps_corpus(read_corpus(DEMO))


def test_corpus_file_reads_back_the_sessions(corpus_text):
    sessions = dlg.load_corpus_file(corpus_text.encode(), "testset.json")
    assert sessions == read_corpus(DEMO)
    assert corpus_text.startswith('{\n  "format": "stecflow-dialogue-corpus",')


def test_corpus_file_errors_name_line_and_field_inside_the_session(corpus_text):
    # the first operator utterance of the third session, given a speaker that is
    # not one of the two roles: the line is the file's, the field the session's
    third = corpus_text.index('"id": "s03"')
    at = corpus_text.index('"speaker": "operator"', third)
    bad = corpus_text[:at] + '"speaker": "boss"' + corpus_text[at + 21 :]
    with pytest.raises(CorpusError) as caught:
        dlg.load_corpus_file(bad.encode(), "testset.json")
    error = caught.value
    assert error.file == "testset.json, sessions[2]"
    assert error.line == corpus_text.count("\n", 0, at) + 1
    assert error.field.startswith("utterances[") and error.field.endswith(".speaker")
    assert "expected one of solver, operator, got 'boss'" in error.message


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"format": "stecflow-dialogue", "version": 1}', "not a corpus file"),
        ('{"format": "stecflow-dialogue-corpus", "sessions": []}', "no session"),
        ('{"format": "stecflow-dialogue-corpus", "sessions": [NaN]}', "NaN"),
        ('{"format": "stecflow-dialogue-corpus",\n"format": 1}', "key given twice"),
    ],
)
def test_what_is_no_corpus_file_is_refused(text, words):
    with pytest.raises(CorpusError, match=words):
        dlg.load_corpus_file(text.encode(), "c.json")


def test_a_session_twice_in_a_corpus_file_is_refused(corpus_text):
    doc = json.loads(corpus_text)
    doc["sessions"].append(doc["sessions"][0])
    with pytest.raises(CorpusError, match="also the ID of sessions\\[0\\]") as caught:
        dlg.load_corpus_file(json.dumps(doc).encode(), "c.json")
    assert caught.value.field == "sessions[6].id"


def test_the_first_error_written_is_reported_and_whole_ms_floats_are_kept() -> None:
    raw = small()
    raw["utterances"][1]["speaker"] = "narrator"
    raw["cursor"][2]["x"] = "far"
    with pytest.raises(CorpusError) as info:
        load_session(encode(raw), "late.json")
    assert info.value.field == "utterances[1].speaker"  # the cursor comes last
    first = {"cursor": raw.pop("cursor"), **raw}
    with pytest.raises(CorpusError) as info:
        load_session(encode(first), "early.json")
    assert (info.value.field, info.value.line) == (
        "cursor[2].x",
        line_of(encode(first), '"x": "far"'),
    )
    raw = small()
    raw["cursor"][1]["t_ms"] = 3500.0  # a whole number, as JSON Schema reads it
    assert load_session(encode(raw), "ok.json").cursor[1].t_ms == 3500

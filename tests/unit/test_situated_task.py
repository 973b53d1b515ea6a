"""The situated-dialogue task type (seed 000): items, the outputs file, scoring.

Hand-made cases give every number; the demo corpus is checked against counts made
here directly from its sessions.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest
import yaml

from stecflow.core.errors import CorpusError
from stecflow.data.dialogue import read_corpus
from stecflow.data.model import Domain, Item, Output, Reference
from stecflow.metrics import get_metric
from stecflow.metrics.classification import confusion_matrix, instance_classes
from stecflow.scoring.score import score_outputs
from stecflow.scoring.specs import default_metrics
from stecflow.submissions.validation import validate_submission
from stecflow.tasks import registry
from stecflow.tasks.base import Limits
from stecflow.tasks.reg.task import REG_METRICS
from stecflow.tasks.situated_dialogue import (
    DEFAULT_METRICS,
    TASK,
    format_outputs,
    items_from_sessions,
    read_outputs,
)
from tests.conftest import REPO

DEMO = REPO / "resources" / "dialogue-demo"


@pytest.fixture(scope="module")
def sessions():
    return read_corpus(DEMO)


@pytest.fixture(scope="module")
def items(sessions):
    return items_from_sessions(sessions)


def _item(item_id: str, pronoun: bool, session: str = "s1") -> Item:
    ref = Reference("x", id="corpus", fields=(("pronoun", pronoun),))
    return Item(item_id, Domain(()), session, None, (ref,))


def _out(item_id: str, pronoun: bool, expression: str | None = None) -> Output:
    return Output(item_id, expression, fields=(("pronoun", pronoun),))


# ----------------------------------------------------------------- registry


def test_registered_and_reg_defaults_unchanged():
    assert registry.get("situated_dialogue") is TASK
    assert "situated_dialogue" in registry.names()
    # a campaign that names no task still runs the three REG tasks only
    assert [t.name for t in registry.task_types()] == [
        "attribute_selection",
        "realisation",
        "end_to_end",
    ]
    assert default_metrics(None) == REG_METRICS
    assert default_metrics(["situated_dialogue"]) == DEFAULT_METRICS
    assert TASK.outputs_file == "outputs.tsv" and TASK.outputs == ("pronoun",)


def test_reg_data_model_is_unchanged_by_the_extension():
    out = Output("t1", "the chair", frozenset({("type", "chair")}), 3)
    assert out.fields == () and out.get("pronoun") is None
    assert out == Output("t1", "the chair", frozenset({("type", "chair")}), 3)
    assert Reference("r").fields == () and Item("i", Domain(()), "x").input is None


# -------------------------------------------------------------------- items


def test_items_are_the_solvers_expressions(sessions, items):
    solver = [
        (s, u, e) for s in sessions for u, e in s.expressions() if u.speaker == "solver"
    ]
    assert len(items) == len(solver) == 368
    assert [i.id for i in items] == [e.id for _, _, e in solver]
    assert [i.subdomain for i in items] == [s.id for s, _, _ in solver]
    first, (_, u, e) = items[0], solver[0]
    assert first.domain.target.id == e.referent
    assert len(first.domain.entities) == 7
    assert first.references[0].word_string == u.text[e.start : e.end]
    assert first.references[0].get("form") == e.form
    assert first.input.features == e.features
    assert sum(i.references[0].get("pronoun") for i in items) == 129
    both = items_from_sessions(sessions, speakers=("solver", "operator"))
    assert len(both) == sum(len(s.expressions()) for s in sessions) == 411


def test_an_expression_id_used_in_two_sessions_is_refused(sessions):
    clash = replace(sessions[1], id="copy")
    with pytest.raises(CorpusError, match="also used in session 's01'"):
        items_from_sessions(
            [sessions[0], replace(clash, utterances=sessions[0].utterances)]
        )


# ------------------------------------------------------------- outputs file

ITEMS = [_item(f"e{n}", n % 2 == 0) for n in range(1, 5)]


def test_round_trip_of_the_outputs_file():
    outputs = [_out("e1", True, "that one"), _out("e2", False), _out("e3", True)]
    outputs.append(_out("e4", False, "the small triangle"))
    text = format_outputs(outputs)
    assert text.splitlines()[:3] == [
        "instance\tpronoun\texpression",
        "e1\t1\tthat one",
        "e2\t0",
    ]
    read, problems = read_outputs(text.encode(), "o.tsv", ITEMS, ["pronoun"], Limits())
    assert problems == []
    assert [(o.item_id, o.get("pronoun"), o.word_string, o.line) for o in read] == [
        ("e1", True, "that one", 2),
        ("e2", False, None, 3),
        ("e3", True, None, 4),
        ("e4", False, "the small triangle", 5),
    ]
    # two columns and CRLF line ends are fine too
    crlf = b"instance\tpronoun\r\ne2\t1\r\ne1\t0\r\ne3\t0\r\ne4\t1\r\n"
    read, problems = read_outputs(crlf, "o.tsv", ITEMS, ["pronoun"], Limits())
    assert problems == [] and [o.item_id for o in read] == ["e1", "e2", "e3", "e4"]


def _codes(data: bytes, limits: Limits | None = None):
    outputs, problems = read_outputs(
        data, "t/s/outputs.tsv", ITEMS, ["pronoun"], limits or Limits()
    )
    return outputs, [(p.code, p.line, p.field) for p in problems]


def test_every_problem_has_its_line():
    data = (
        b"instance\tpronoun\texpression\n"
        b"e1\t1\tthat one\n"
        b"e1\t0\n"  # 3: again
        b"e9\t1\n"  # 4: unknown
        b"e2\tyes\n"  # 5: not 0/1
        b"e3\t1\tthat\tone\n"  # 6: four cells
        b"\n"
        b"e4\t1\tthat\x07one\n"  # 8: control character
    )
    outputs, found = _codes(data)
    assert found == [
        ("duplicate_instance", 3, "e1"),
        ("unknown_instance", 4, "instance"),
        ("bad_decision", 5, "pronoun"),
        ("bad_columns", 6, None),
        ("control_character", 8, "expression"),
        ("missing_instance", None, "e3"),  # its line could not be read
    ]
    assert [o.item_id for o in outputs] == ["e1"]


def test_header_encoding_and_limits():
    assert _codes(b"e1\t1\ne2\t0\ne3\t1\ne4\t0\n")[1] == [("missing_header", 1, None)]
    assert _codes(b"instance\tdecision\ne1\t1\n")[1][0] == ("missing_header", 1, None)
    assert _codes(b"\xef\xbb\xbfinstance\tpronoun\n")[1] == [
        ("byte_order_mark", 1, None)
    ]
    assert _codes(b"instance\tpronoun\ne1\t1\ne2\t\xff\n")[1] == [("not_utf8", 3, None)]
    many = b"instance\tpronoun\n" + b"e1\t1\n" * 5
    assert ("too_many_lines", 4, None) in _codes(many, Limits(max_trials=2))[1]
    long = b"instance\tpronoun\texpression\ne1\t1\t" + b"x" * 11 + b"\n"
    found = _codes(long, Limits(max_word_string_chars=10))[1]
    assert found[0] == ("expression_too_long", 2, "expression")
    # nothing required (no task claimed): missing instances are no error
    assert read_outputs(b"instance\tpronoun\n", "o", ITEMS, [], Limits()) == ([], [])


def test_the_reader_never_raises_on_random_edits():
    good = format_outputs([_out(i.id, True, "that one") for i in ITEMS]).encode()
    rng = random.Random(15)
    for _ in range(400):
        data = bytearray(good)
        for _ in range(rng.randint(1, 6)):
            at = rng.randrange(len(data))
            data[at : at + 1] = bytes([rng.randrange(256)]) * rng.randint(0, 2)
        outputs, problems = read_outputs(bytes(data), "o", ITEMS, ["pronoun"], Limits())
        assert all(p.file == "o" for p in problems)
        assert all(isinstance(o.get("pronoun"), bool) for o in outputs)


def test_the_writer_refuses_what_the_reader_could_not_read():
    with pytest.raises(ValueError, match="no pronoun decision"):
        format_outputs([Output("e1", "that one")])
    with pytest.raises(ValueError, match="control"):
        format_outputs([_out("e1", True, "that\tone")])


# ----------------------------------------------------------------- scoring


def test_metrics_against_the_classification_module_by_hand():
    # gold (e1..e4): F, T, F, T; decisions: T, T, F, F -> FP, TP, TN, FN
    outputs = [_out("e1", True), _out("e2", True), _out("e3", False), _out("e4", False)]
    gold = [i.references[0].get("pronoun") for i in ITEMS]
    assert instance_classes(gold, [o.get("pronoun") for o in outputs]) == [
        "FP",
        "TP",
        "TN",
        "FN",
    ]
    item_rows, rows = score_outputs(
        ITEMS, outputs, {"bootstrap": {"resamples": 50}}, tasks=["situated_dialogue"]
    )
    overall = {r["metric"]: r for r in rows if r["subset"] == "all"}
    assert overall["decision_precision"]["value"] == 0.5  # 1 / (1 + 1)
    assert overall["decision_precision"]["n"] == 2
    assert overall["decision_recall"]["value"] == 0.5  # 1 / (1 + 1)
    assert overall["decision_f"]["value"] == 0.5
    per_item = {
        (r["item"], r["metric"]): r["value"] for r in item_rows if r["reference"] == "*"
    }
    assert per_item["e1", "decision_precision"] == 0.0  # an FP
    assert per_item["e2", "decision_f"] == 1.0  # a TP
    assert math.isnan(per_item["e3", "decision_recall"])  # a TN has no recall
    assert get_metric("decision_f").signature() == "F-measure|pos:true|version:1"


def test_score_outputs_agrees_with_metrics_classification_on_the_demo(items):
    # a decision that is neither trivial nor the gold: D1 or O2
    decided = [i.input.features.D1 or i.input.features.O2 for i in items]
    outputs = [_out(i.id, d) for i, d in zip(items, decided, strict=True)]
    _, rows = score_outputs(
        items, outputs, {"bootstrap": {"resamples": 200}}, tasks=["situated_dialogue"]
    )
    matrix = confusion_matrix([i.input.pronoun for i in items], decided)
    overall = {r["metric"]: r for r in rows if r["subset"] == "all"}
    assert overall["decision_precision"]["value"] == matrix.precision
    assert overall["decision_recall"]["value"] == matrix.recall
    assert overall["decision_f"]["value"] == pytest.approx(matrix.f, abs=1e-15)
    assert overall["decision_precision"]["n"] == matrix.tp + matrix.fp
    assert overall["decision_recall"]["n"] == matrix.tp + matrix.fn
    assert overall["decision_f"]["n"] == 368
    for row in overall.values():
        assert row["ci_low"] <= row["value"] <= row["ci_high"]
    # one subset per session, each scored like the corpus restricted to it
    s03 = [n for n, i in enumerate(items) if i.subdomain == "s03"]
    sub = confusion_matrix(
        [items[n].input.pronoun for n in s03], [decided[n] for n in s03]
    )
    f03 = next(r for r in rows if r["subset"] == "s03" and r["metric"] == "decision_f")
    assert f03["value"] == pytest.approx(sub.f, abs=1e-15)


def test_validation_reads_and_checks_outputs_tsv(items, tmp_path):
    def submit(team: str, text: str):
        folder = tmp_path / team / "sys"
        folder.mkdir(parents=True)
        meta = {
            "team": team,
            "system": "sys",
            "description": "pronoun decisions",
            "contact": "a@example.org",
            "primary": True,
            "submitted": "2026-05-01T10:00:00Z",
            "tasks": ["situated_dialogue"],
        }
        (folder / "system.yaml").write_text(yaml.safe_dump(meta))
        (folder / "outputs.tsv").write_text(text)
        return validate_submission(
            folder, items, team=team, system="sys", campaign_tasks=["situated_dialogue"]
        )

    good = submit("good", format_outputs([_out(i.id, False) for i in items]))
    assert good["status"] == "accepted", good["errors"]
    assert good["n_outputs"] == 368 and "outputs.tsv" in good["checksums"]
    lines = format_outputs([_out(i.id, False) for i in items]).splitlines()
    lines[10] = lines[10].replace("\t0", "\t2")
    bad = submit("bad", "\n".join(lines) + "\n")
    assert bad["status"] == "rejected"
    assert [(e["code"], e["file"], e["line"]) for e in bad["errors"]] == [
        ("bad_decision", "bad/sys/outputs.tsv", 11)
    ]


def test_the_seeds_table_4_figures_through_the_scoring_stage():
    # seed 000's all-features classifier (P .664, F .730 over 1,242 instances);
    # (TP, FP, FN) = (415, 210, 97) is one of the three matrices its figures allow
    # (derived in test_metrics_classification)
    cells = [("TP", 415), ("FP", 210), ("FN", 97), ("TN", 520)]
    gold_of = {"TP": True, "FP": False, "FN": True, "TN": False}
    said_of = {"TP": True, "FP": True, "FN": False, "TN": False}
    items, outputs = [], []
    for cell, count in cells:
        for n in range(count):
            item_id = f"{cell}{n}"
            items.append(_item(item_id, gold_of[cell], session=f"p{n % 6}"))
            outputs.append(_out(item_id, said_of[cell]))
    _, rows = score_outputs(
        items, outputs, {"bootstrap": {"resamples": 10}}, tasks=["situated_dialogue"]
    )
    overall = {r["metric"]: r for r in rows if r["subset"] == "all"}
    assert round(overall["decision_precision"]["value"], 3) == 0.664  # 415 / 625
    assert round(overall["decision_recall"]["value"], 3) == 0.811  # 415 / 512
    assert round(overall["decision_f"]["value"], 3) == 0.730  # 830 / 1137
    assert overall["decision_f"]["value"] == 830 / 1137
    assert overall["decision_f"]["n"] == 1242

"""The situated study's ``situated_length`` analysis (issue #45 point 13): how
much longer the corpus expression is than the system's at the same instance
(seed 000 §5.3.3: "on average 2.72 (SD = 2.04) Japanese character longer").

Expected values are computed here with :mod:`statistics`, independently of the
analysis.
"""

from __future__ import annotations

import statistics

import pytest

from stecflow.analysis.run import run_analysis
from stecflow.analysis.specs import analysis_specs
from stecflow.core.errors import ConfigError
from stecflow.core.io import read_tsv, write_tsv
from stecflow.judgments import JudgmentsError
from stecflow.studykinds.situated_identification.analyses_length import (
    LENGTH_COLUMNS,
    expression_lengths,
    length_differences,
)
from tests.unit.test_analysis_situated import JUDGMENT_TABLE_COLUMNS, situated_config

#: (instance, original, system): Japanese as the seed (sore, two characters)
#: and English; one instance in the TP class that must not enter.
PAIRS = [
    ("e1", "平行四辺形", "それ"),  # 5 - 2 = 3 characters, 1 - 1 = 0 words
    ("e2", "いま動かした三角形", "それ"),  # 9 - 2 = 7
    ("e3", "the small triangle on the left", "that one"),  # 30 - 8, 6 - 2
    ("e4", "the square", "that one"),  # 10 - 8 = 2, 2 - 2 = 0
]


def trials(pairs=PAIRS, subjects=("s1", "s2")) -> list[dict]:
    rows = []
    for subject in subjects:
        for instance, original, system in pairs:
            for cls, shown, text in (
                ("FP-Orig", "original", original),
                ("FP-system", "system", system),
            ):
                rows.append(
                    {
                        "subject": subject,
                        "list": "1",
                        "order": len(rows),
                        "instance": instance,
                        "class": cls,
                        "shown": shown,
                        "expression": text,
                        "target": "SQ",
                        "chosen": "SQ",
                        "correct": True,
                        "cant_tell": False,
                        "time_ms": 1000,
                        "replays": 0,
                        "corrected": False,
                        "session_status": "completed",
                        "simulated": True,
                    }
                )
        rows.append({**rows[-1], "instance": "t1", "class": "TP", "expression": "x"})
    return rows


def test_pairs_are_the_instances_shown_both_ways() -> None:
    assert expression_lengths(trials()) == sorted(PAIRS)


def test_means_and_sd_against_statistics() -> None:
    rows = length_differences(PAIRS)
    assert [r["unit"] for r in rows] == ["characters", "words"]
    chars = [len(o) - len(s) for _, o, s in PAIRS]
    words = [len(o.split()) - len(s.split()) for _, o, s in PAIRS]
    assert chars == [3, 7, 22, 2] and words == [0, 0, 4, 0]
    for row, diffs in zip(rows, (chars, words), strict=True):
        assert row["n"] == 4
        assert row["mean_difference"] == pytest.approx(statistics.mean(diffs))
        assert row["sd_difference"] == pytest.approx(statistics.stdev(diffs))
    assert rows[0]["mean_original"] == pytest.approx((5 + 9 + 30 + 10) / 4)
    assert rows[0]["mean_system"] == pytest.approx((2 + 2 + 8 + 8) / 4)
    # 3, 7, 22, 2: mean 8.5, squares 30.25 + 2.25 + 182.25 + 42.25 = 257,
    # SD = sqrt(257 / 3) = 9.26
    assert rows[0]["mean_difference"] == 8.5
    assert rows[0]["text"] == (
        "the original expression is on average 8.50 (SD = 9.26) characters longer"
    )


def test_two_expressions_for_one_instance_and_class_are_an_error() -> None:
    rows = trials()
    rows[2] = {**rows[2], "expression": "another"}  # e2, FP-Orig, subject s1
    rows[11] = {**rows[11], "instance": "e2", "class": "FP-Orig"}
    with pytest.raises(JudgmentsError, match="shown as FP-Orig with") as caught:
        expression_lengths(rows, where="situated.tsv")
    assert caught.value.line is not None and caught.value.field == "expression"


def test_one_instance_has_no_sd() -> None:
    (chars, _) = length_differences(PAIRS[:1])
    assert chars["n"] == 1 and chars["mean_difference"] == 3
    assert chars["sd_difference"] != chars["sd_difference"]  # NaN
    assert "(SD = –)" in chars["text"]
    assert length_differences([])[0]["text"] == "no instance was shown both ways"


def test_the_analysis_writes_its_table_and_record(tmp_path) -> None:
    judgments = tmp_path / "judgments" / "situated.tsv"
    write_tsv(trials(), JUDGMENT_TABLE_COLUMNS, judgments)
    (spec,) = analysis_specs(
        situated_config(
            [{"id": "len", "test": "situated_length", "source": "situated"}]
        )
    )
    empty = tmp_path / "empty.tsv"
    write_tsv([], ["team", "system", "label"], empty)
    record = run_analysis(
        spec,
        empty,
        empty,
        tmp_path / "stats" / "len.tsv",
        tmp_path / "stats" / "len.json",
        judgments={"situated": judgments},
    )
    rows = read_tsv(tmp_path / "stats" / "len.tsv")
    assert list(rows[0]) == list(LENGTH_COLUMNS)
    assert [(r["unit"], r["n"], r["mean_difference"]) for r in rows] == [
        ("characters", "4", "8.5"),
        ("words", "4", "1"),
    ]
    assert record["simulated"] is True and record["awaiting_responses"] == []
    assert record["instances"][0] == {
        "instance": "e1",
        "original": "平行四辺形",
        "system": "それ",
    }
    assert record["text"][0]["about"] == "characters"


def test_awaiting_responses(tmp_path) -> None:
    judgments = tmp_path / "situated.tsv"
    write_tsv([], JUDGMENT_TABLE_COLUMNS, judgments)
    (spec,) = analysis_specs(
        situated_config(
            [{"id": "len", "test": "situated_length", "source": "situated"}]
        )
    )
    record = run_analysis(
        spec,
        judgments,
        judgments,
        tmp_path / "len.tsv",
        tmp_path / "len.json",
        judgments={"situated": judgments},
    )
    assert record["awaiting_responses"] == ["situated"] and record["rows"] == []


def test_config_errors_name_the_field() -> None:
    with pytest.raises(ConfigError, match="situated_length analyses a") as caught:
        analysis_specs(
            situated_config([{"id": "len", "test": "situated_length", "source": "x"}])
        )
    assert caught.value.field == "statistics.analyses[0].source"
    with pytest.raises(ConfigError) as caught:
        analysis_specs(
            situated_config(
                [
                    {
                        "id": "len",
                        "test": "situated_length",
                        "source": "situated",
                        "measure": "ir",
                    }
                ]
            )
        )
    assert "measure" in str(caught.value.field) + str(caught.value)

"""Seed 000's paired t-tests over evaluators (the kind's analyses module).

The synthetic study has the seed's shape: 34 evaluators kept (one more whose
session failed is discarded), each with 20 TP and 20 FN trials and 8 FP trials in
each form. Every evaluator identifies all TP targets; half identify 14 of the 20 FN
targets (IR .70), half 16 (IR .80). So the paired differences are .30 and .20:
mean .25, SD .05 * sqrt(34/33), and t = .25 / (SD / sqrt(34)) = 5 * sqrt(33)
= 28.7228 with 33 df.
"""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from stecflow.analysis.run import run_analysis
from stecflow.analysis.specs import analysis_specs
from stecflow.core.errors import ConfigError
from stecflow.core.io import read_tsv, write_json, write_tsv
from stecflow.judgments import JudgmentsError
from stecflow.stats.ttests import paired_ttest
from stecflow.studykinds.situated_identification.analyses import (
    SEED_COMPARISONS,
    SITUATED_TEST_COLUMNS,
    read_situated_trials,
    situated_ttests,
)
from stecflow.studykinds.situated_identification.measures import (
    TRIAL_COLUMNS,
    evaluator_table,
)


def synthetic_trials() -> pd.DataFrame:
    rows = []
    for k in range(35):
        subject = f"e{k:02d}"
        status = "abandoned" if k == 34 else "completed"
        fn_correct = 14 if k % 2 == 0 else 16
        plan = [("TP", 20, 20), ("FN", 20, fn_correct)]
        plan += [("FP-Orig", 8, 8 - k % 3), ("FP-system", 8, 7 - k % 2)]
        for cls, n, n_correct in plan:
            for i in range(n):
                correct = i < n_correct
                base = {"TP": 2000, "FN": 2600, "FP-Orig": 2400, "FP-system": 2500}
                rows.append(
                    {
                        "subject": subject,
                        "instance": f"{cls}-{i:02d}",
                        "class": cls,
                        "target": "p1",
                        "chosen": "p1" if correct else "p2",
                        "cant_tell": False,
                        # Evaluator speed varies; FN is slower by 600 + 20 k ms.
                        "time_ms": base[cls]
                        + 50 * k
                        + (20 * k if cls == "FN" else 0)
                        + (13 * (k % 4) if cls == "FP-system" else 0)
                        # A corrected trial with a huge time, excluded from IT.
                        + (90_000 if (cls == "TP" and i == 0) else 0)
                        + 7 * i,
                        "replays": i % 3,
                        "corrected": cls == "TP" and i == 0,
                        "session_status": status,
                    }
                )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def trials() -> pd.DataFrame:
    return synthetic_trials()


def test_hand_computed_tp_fn_identification_rate(trials):
    rows, texts = situated_ttests(trials)
    assert tuple(rows.columns) == SITUATED_TEST_COLUMNS
    first = rows.iloc[0]
    assert (first["level_a"], first["level_b"], first["measure"]) == ("TP", "FN", "ir")
    assert first["n"] == 34 and first["df"] == 33
    assert first["mean_a"] == pytest.approx(1.0)
    assert first["mean_b"] == pytest.approx(0.75)
    assert first["t"] == pytest.approx(5 * math.sqrt(33))
    assert first["text"] == "t(33) = 28.72, p < .001"
    assert texts[0] == {
        "about": "TP vs FN: identification rate",
        "text": "t(33) = 28.72, p < .001",
    }


def test_identification_time_excludes_corrected_trials_and_is_signed(trials):
    rows, _ = situated_ttests(trials, comparisons=[("TP", "FN", "it_mean_ms")])
    row = rows.iloc[0]
    # TP: 19 uncorrected trials, i = 1..19, mean 7 * 10 = 70 ms above the base.
    tp = [2000 + 50 * k + 70 for k in range(34)]
    fn = [2600 + 70 * k + 7 * 9.5 for k in range(34)]
    assert row["mean_a"] == pytest.approx(sum(tp) / 34)
    assert row["mean_b"] == pytest.approx(sum(fn) / 34)
    assert row["t"] < 0 and row["text"].startswith("t(33) = -")


def test_every_seed_comparison_equals_paired_ttest_on_the_evaluator_table(trials):
    rows, texts = situated_ttests(trials)
    kept = trials[trials["session_status"] == "completed"]
    evaluators = evaluator_table(kept)
    assert [tuple(r) for r in rows[["level_a", "level_b", "measure"]].values] == list(
        SEED_COMPARISONS
    )
    for (a, b, measure), (_, row) in zip(
        SEED_COMPARISONS, rows.iterrows(), strict=True
    ):
        expected = paired_ttest(evaluators, measure, "class", "subject", a=a, b=b)
        expected = expected.iloc[0]
        for column in ("mean_a", "mean_b", "delta", "t", "p_val", "ci_low", "dz"):
            assert row[column] == pytest.approx(expected[column]), (a, b, column)
        assert row["df"] == expected["df"] == 33
        t_text = f"{expected['t']:.2f}"
        assert row["text"].startswith(f"t(33) = {t_text}, p ")
    assert len(texts) == 4


def test_failed_sessions_kept_when_complete_says_so(trials):
    rows, _ = situated_ttests(
        trials,
        comparisons=[("TP", "FN", "ir")],
        complete=("completed", "abandoned"),
    )
    assert rows.iloc[0]["n"] == 35 and rows.iloc[0]["df"] == 34


def test_not_computable_and_errors(trials):
    same = trials.assign(time_ms=1000.0)
    rows, texts = situated_ttests(same, comparisons=[("TP", "FN", "it_mean_ms")])
    assert not rows.iloc[0]["computable"]
    assert rows.iloc[0]["text"].startswith("not computable (")
    assert texts == []
    with pytest.raises(JudgmentsError, match="not one of"):
        situated_ttests(trials, comparisons=[("TP", "FN", "speed")])


# --------------------------------------------------------------------------
# The ``situated_ttests`` analysis of the statistics stage (issue #15 point 8)

#: Columns of results/judgments/<study>.tsv (the merge stage's contract).
JUDGMENT_TABLE_COLUMNS = (
    "subject",
    "list",
    "order",
    "instance",
    "class",
    "shown",
    "expression",
    "target",
    "chosen",
    "correct",
    "cant_tell",
    "time_ms",
    "replays",
    "corrected",
    "session_status",
    "simulated",
)


def situated_config(analyses=None, studies=None) -> dict:
    """The parts of config/dialogue-demo.yaml that analysis_specs reads."""
    return {
        "campaign": {"id": "demo-dialogue", "tasks": ["situated_dialogue"]},
        "scoring": {
            "metrics": [
                {"id": "decision_precision"},
                {"id": "decision_recall"},
                {"id": "decision_f"},
            ]
        },
        "studies": studies
        if studies is not None
        else [
            {
                "id": "situated",
                "task": "situated_identification",
                "systems": ["organisers/recency"],
                "subjects": 36,
                "seed": 2010,
            }
        ],
        "statistics": {"analyses": analyses or []},
    }


def write_study(folder, trials, *, simulated=True, summary=True):
    """results/judgments/<study>.tsv (and its summary) as the merge writes them."""
    rows = []
    for n, row in enumerate(trials.to_dict(orient="records")):
        correct = (not row["cant_tell"]) and row["chosen"] == row["target"]
        rows.append(
            {
                **row,
                "list": "1" if int(row["subject"][1:]) % 2 else "2",
                "order": n,
                "shown": "system" if row["class"] == "FP-system" else "original",
                "expression": "that one",
                "correct": correct,
                "simulated": simulated,
            }
        )
    path = folder / "judgments" / "situated.tsv"
    write_tsv(rows, JUDGMENT_TABLE_COLUMNS, path)
    if summary:
        write_json(
            {
                "study": "situated",
                "task": "situated_identification",
                "simulated": simulated,
                "system": "organisers/recency",
                "awaiting_responses": not rows,
                "counts": {"evaluators": trials["subject"].nunique()},
                "corrections": [{"subject": "e00"}],
                "discarded": [],
                "settings": {"majority": "strict", "time_scope": ["all"]},
            },
            folder / "judgments" / "summary" / "situated.json",
        )
    return path


def run_ttests(tmp_path, judgments, spec=None, alpha=0.05, digits=2):
    spec = (
        spec
        or analysis_specs(
            situated_config(
                [{"id": "t", "test": "situated_ttests", "source": "situated"}]
            )
        )[0]
    )
    empty = tmp_path / "empty.tsv"
    write_tsv([], ["team", "system", "label"], empty)
    record = run_analysis(
        spec,
        empty,
        empty,
        tmp_path / "stats" / "t.tsv",
        tmp_path / "stats" / "t.json",
        alpha=alpha,
        judgments={"situated": judgments},
        digits=digits,
    )
    return record, read_tsv(tmp_path / "stats" / "t.tsv")


def test_run_analysis_rows_equal_scipy_on_per_evaluator_means(trials, tmp_path):
    from scipy.stats import ttest_rel

    kept = trials[trials["session_status"] == "completed"]  # as the merge keeps
    path = write_study(tmp_path, kept)
    record, rows = run_ttests(tmp_path, path)
    assert list(rows[0]) == list(SITUATED_TEST_COLUMNS)
    assert len(rows) == len(record["rows"]) == 4
    # per-evaluator means computed here, independently of evaluator_table
    data = kept.assign(correct=kept["chosen"] == kept["target"])
    ir = data.groupby(["subject", "class"])["correct"].mean().unstack()
    it = (
        data[~data["corrected"]]
        .groupby(["subject", "class"])["time_ms"]
        .mean()
        .unstack()
    )
    means = {"ir": ir, "it_mean_ms": it}
    for (a, b, measure), row in zip(SEED_COMPARISONS, rows, strict=True):
        expected = ttest_rel(means[measure][a], means[measure][b])
        assert (row["level_a"], row["level_b"], row["measure"]) == (a, b, measure)
        assert float(row["t"]) == pytest.approx(expected.statistic, rel=1e-9)
        assert float(row["p_val"]) == pytest.approx(expected.pvalue, rel=1e-6)
        assert row["df"] == "33" and row["n"] == "34"
        assert float(row["mean_a"]) == pytest.approx(means[measure][a].mean())
    assert float(rows[0]["t"]) == pytest.approx(5 * math.sqrt(33), rel=1e-9)
    assert record["text"][0] == {
        "about": "TP vs FN: identification rate",
        "text": "t(33) = 28.72, p < .001",
    }
    assert [t["about"] for t in record["text"]] == [
        "TP vs FN: identification rate",
        "TP vs FN: identification time (ms)",
        "FP-system vs FP-Orig: identification rate",
        "FP-system vs FP-Orig: identification time (ms)",
    ]
    assert record["simulated"] is True and record["awaiting_responses"] == []
    assert record["n_evaluators"] == 34 and record["n_trials"] == 34 * 56
    assert record["judgments"]["situated"]["corrections_applied"] == 1
    assert record["settings"]["confidence"] == pytest.approx(0.95)
    on_disk = json.loads((tmp_path / "stats" / "t.json").read_text())
    assert {"id", "test", "alpha", "spec", "settings", "text", "rows"} <= set(on_disk)
    assert on_disk["rows"][0]["df"] == 33 and on_disk["simulated"] is True


def test_alpha_digits_and_comparisons_from_the_config(trials, tmp_path):
    from scipy.stats import ttest_rel

    kept = trials[trials["session_status"] == "completed"]
    path = write_study(tmp_path, kept, simulated=False)
    (spec,) = analysis_specs(
        situated_config(
            [
                {
                    "id": "t",
                    "test": "situated_ttests",
                    "source": "situated",
                    "comparisons": [["FN", "TP", "replays_mean"]],
                }
            ]
        )
    )
    record, rows = run_ttests(tmp_path, path, spec=spec, alpha=0.01, digits=3)
    (row,) = rows
    # replays i % 3 over i = 0..19 in both classes: no difference at all
    assert row["computable"] == "false" and row["ci_low"] == ""
    assert record["text"] == [] and record["simulated"] is False
    # FN replayed once more by the evaluators from e17 on
    later = (kept["class"] == "FN") & (kept["subject"] > "e16")
    kept2 = kept.assign(replays=kept["replays"] + later)
    path = write_study(tmp_path, kept2, simulated=False)
    record, rows = run_ttests(tmp_path, path, spec=spec, alpha=0.01, digits=3)
    (row,) = rows
    replays = kept2.groupby(["subject", "class"])["replays"].mean().unstack()
    expected = ttest_rel(replays["FN"], replays["TP"])
    ci = expected.confidence_interval(0.99)
    assert float(row["t"]) == pytest.approx(expected.statistic, rel=1e-9)
    assert float(row["ci_low"]) == pytest.approx(ci.low, rel=1e-9)
    assert float(row["ci_high"]) == pytest.approx(ci.high, rel=1e-9)
    assert float(row["delta"]) == pytest.approx(17 / 34)  # 17 of 34 evaluators
    assert record["text"] == [
        {
            "about": "FN vs TP: replays",
            "text": f"t(33) = {expected.statistic:.3f}, p < .001",
        }
    ]
    assert record["settings"]["confidence"] == pytest.approx(0.99)


def test_rows_of_every_status_the_merge_kept_enter(trials, tmp_path):
    # the merge stage discards failed sessions; whatever it kept is analysed
    path = write_study(tmp_path, trials)
    record, rows = run_ttests(tmp_path, path)
    assert rows[0]["n"] == "35" and rows[0]["df"] == "34"


def test_awaiting_responses_writes_an_empty_table(tmp_path):
    path = write_study(tmp_path, pd.DataFrame(columns=list(TRIAL_COLUMNS)))
    record, rows = run_ttests(tmp_path, path)
    assert rows == []
    text = (tmp_path / "stats" / "t.tsv").read_text()
    assert text == "\t".join(SITUATED_TEST_COLUMNS) + "\n"
    assert record["awaiting_responses"] == ["situated"]
    assert record["text"] == [] and record["rows"] == []
    assert record["n_trials"] == 0
    # without the summary the empty table says it too
    (tmp_path / "judgments" / "summary" / "situated.json").unlink()
    record, _ = run_ttests(tmp_path, path)
    assert record["awaiting_responses"] == ["situated"]


def test_unreadable_trials_say_file_line_and_column(trials, tmp_path):
    kept = trials[trials["session_status"] == "completed"]
    path = write_study(tmp_path, kept)
    lines = path.read_text().splitlines()
    header = lines[0].split("\t")
    cells = lines[3].split("\t")
    cells[header.index("cant_tell")] = "yes"
    lines[3] = "\t".join(cells)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(JudgmentsError, match="not a boolean") as caught:
        read_situated_trials(path)
    assert (caught.value.line, caught.value.field) == (4, "cant_tell")
    assert caught.value.file == str(path)
    cells[header.index("cant_tell")] = "false"
    cells[header.index("time_ms")] = "fast"
    lines[3] = "\t".join(cells)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(JudgmentsError, match="not a number") as caught:
        read_situated_trials(path)
    assert (caught.value.line, caught.value.field) == (4, "time_ms")
    write_tsv([], ["subject", "instance"], path)
    with pytest.raises(JudgmentsError, match="lacks the column") as caught:
        read_situated_trials(path)
    assert caught.value.field == "class" and caught.value.line == 1
    assert "class, target, cant_tell, session_status" in str(caught.value)


def test_default_analyses_for_a_situated_study_are_not_the_reg_ones():
    specs = analysis_specs(situated_config())
    assert [(s["id"], s["test"], s["source"]) for s in specs] == [
        ("confusion", "confusion", "scores"),
        ("situated-ttests", "situated_ttests", "situated"),
        ("situated-length", "situated_length", "situated"),
    ]
    # a REG identification study next to it keeps its TUNA-REG'09 analyses
    reg = {"id": "exp", "task": "identification", "systems": ["a/b"]}
    config = situated_config(
        studies=[*situated_config()["studies"], {**reg, "subjects": 8, "seed": 1}]
    )
    ids = [s["id"] for s in analysis_specs(config)]
    assert ids[:3] == ["confusion", "situated-ttests", "situated-length"]
    assert "exp-time-anova" in ids and not any(
        i.startswith("situated-") and i not in ("situated-ttests", "situated-length")
        for i in ids
    )


def test_situated_ttests_config_errors_name_the_field():
    def fails(entry, match, field, studies=None):
        with pytest.raises(ConfigError, match=match) as caught:
            analysis_specs(situated_config([entry], studies=studies))
        assert caught.value.field == field

    at = "statistics.analyses[0]"
    base = {"id": "t", "test": "situated_ttests", "source": "situated"}
    fails({**base, "source": "scores"}, "'scores' is not one", f"{at}.source")
    fails({"id": "t", "test": "situated_ttests"}, "no source", f"{at}.source")
    reg = [{"id": "exp", "task": "identification", "systems": ["a/b"]}]
    fails(
        {**base, "source": "exp"},
        r"'exp' is not one \(none is configured\)",
        f"{at}.source",
        studies=reg,
    )
    fails(
        {**base, "comparisons": [["TP", "FX", "ir"]]},
        "unknown class 'FX'",
        f"{at}.comparisons[0][1]",
    )
    fails(
        {**base, "comparisons": [["TP", "FN", "ir"], ["TP", "FN", "speed"]]},
        "unknown measure 'speed'",
        f"{at}.comparisons[1][2]",
    )
    fails({**base, "comparisons": [["TP", "FN"]]}, "class_a", f"{at}.comparisons[0]")
    fails(
        {**base, "comparisons": [["TP", "TP", "ir"]]},
        "compared with itself",
        f"{at}.comparisons[0]",
    )
    fails({**base, "measure": "ir"}, "does not apply", f"{at}.measure")
    fails(
        {"id": "a", "test": "anova", "source": "situated", "measure": "ir"},
        "analyse it with test situated_ttests",
        f"{at}.test",
    )

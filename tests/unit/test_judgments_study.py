"""merge_study: the workflow's entry point, its outputs and settings."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from stecflow.judgments import (
    JUDGMENT_COLUMNS,
    MEASURE_COLUMNS,
    QUALITY_COLUMNS,
    JudgmentsError,
)
from stecflow.judgments.study import JudgmentSettings, merge_study
from tests.conftest import FIXTURES, python_stdout

J = FIXTURES / "judgments"
SOURCES = [
    "server_export.tsv",
    "id-demo-L02-offline-9c1d2e3f.tsv",
    "generic_lab.csv",
    "generic_wrong_list.csv",
    "L01.azk",
]


def run(
    tmp_path, *, settings=None, corrections="corrections.tsv", sources=SOURCES, out="a"
):
    folder = tmp_path / out
    summary = merge_study(
        J / "design_id.tsv",
        [J / s for s in sources],
        J / corrections if corrections else None,
        J / "testset.xml",
        settings or {},
        folder / "judgments.tsv",
        folder / "quality.tsv",
        folder / "summary.json",
        out_measures_tsv=folder / "measures.tsv",
        dmdx_items_dir=J,
        items_paths=[J / "practice.xml"],
    )
    return summary, folder


def read(path):
    return pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)


def test_outputs_and_columns(tmp_path):
    summary, folder = run(tmp_path)
    judged = read(folder / "judgments.tsv")
    assert list(judged.columns) == list(JUDGMENT_COLUMNS)
    assert len(judged) == 49
    assert list(read(folder / "quality.tsv").columns) == list(QUALITY_COLUMNS)
    assert list(read(folder / "measures.tsv").columns) == list(MEASURE_COLUMNS)
    assert json.loads((folder / "summary.json").read_text()) == summary
    counts = summary["counts"]
    assert counts["rows"] == 49 and counts["sessions"] == 11
    assert counts["design_test_trials"] == 8 and counts["lists_run"] == 2
    assert counts["practice"] == 8 and counts["corrected"] == 2
    assert counts["partial_sessions"] == 2 and counts["missing_trials"] == 3
    assert counts["timeouts"] == 2 and counts["simulated_rows"] == 0
    assert summary["simulated"] is False
    assert summary["task"] == "identification" and summary["variant"] == "together"
    assert [s["format"] for s in summary["sources"]] == [
        "dmdx_azk",
        "generic",
        "generic",
        "server",
        "server",
    ]
    assert summary["corrections"]["applied"] == 2
    assert summary["corrections"]["skipped_other_study"] == 1
    assert summary["settings"]["outliers"]["k"] == 2.0


def test_every_row_has_flags_and_adjusted_times(tmp_path):
    _, folder = run(tmp_path)
    j = read(folder / "judgments.tsv")
    for column in (
        "practice",
        "filler",
        "simulated",
        "timeout",
        "corrected",
        "in_analysis",
        "in_time_analysis",
        "outlier",
        "excluded",
    ):
        assert set(j[column]) <= {"true", "false"}, column
    timed = j[j["in_time_analysis"] == "true"]
    assert (timed["identification_time_adj_ms"] != "").all()
    assert (
        j.loc[j["in_time_analysis"] == "false", "identification_time_adj_ms"] == ""
    ).all()
    fixed = j[(j["session"] == "3f9a0c2be41d7a65") & (j["order"] == "3")].iloc[0]
    assert fixed["corrected"] == "true" and fixed["in_time_analysis"] == "false"
    assert fixed["original_values"] == "chosen_entity=e2"
    outliers = j[j["identification_time_outlier"] == "true"]
    assert len(outliers) == 2
    replaced = set(outliers["identification_time_adj_ms"])
    assert len(replaced) == 1  # one series (scope all), one replacement value
    assert set(outliers["outlier"]) == {"true"}


def test_outlier_summary_matches_the_table(tmp_path):
    summary, folder = run(tmp_path)
    j = read(folder / "judgments.tsv")
    times = pd.to_numeric(
        j.loc[j["in_time_analysis"] == "true", "identification_time_ms"]
    )
    info = summary["outliers"]["measures"]["identification_time_ms"]
    assert info["n"] == len(times) == 32
    assert info["n_outliers"] == 2
    assert info["count_text"] == "2 of 32 data points (6.2%)"
    mean, sd = times.mean(), times.std(ddof=1)
    cell = info["cells"][0]
    assert cell["mean"] == pytest.approx(mean) and cell["sd"] == pytest.approx(sd)
    out = times[(times - mean).abs() > 2 * sd]
    assert len(out) == 2
    assert cell["replacement_value"] == pytest.approx(times.drop(out.index).mean())
    assert info["text"].startswith("Outliers were defined as those identification")
    assert "reading_time_ms" not in summary["outliers"]["measures"]  # no data
    assert summary["outliers"]["signature"].startswith("outliers|rule:sd|k:2|")


def test_byte_deterministic(tmp_path):
    run(tmp_path, out="a")
    run(tmp_path, out="b")
    for name in ("judgments.tsv", "quality.tsv", "summary.json", "measures.tsv"):
        assert (tmp_path / "a" / name).read_bytes() == (
            tmp_path / "b" / name
        ).read_bytes()


def test_quality_table_is_sorted_and_complete(tmp_path):
    summary, folder = run(tmp_path)
    q = read(folder / "quality.tsv")
    assert set(q["check"]) == {
        "aborted_trial",
        "corrected",
        "excluded_by_correction",
        "list_repeated",
        "missing_trials",
        "partial_session",
        "source_note",
        "unknown_subject",
        "wrong_list",
    }
    assert summary["quality"]["by_check"]["wrong_list"] == 1
    assert sum(summary["quality"]["by_severity"].values()) == len(q)
    assert q["study"].eq("id-demo").all()


def test_settings_change_the_analysis(tmp_path):
    base, _ = run(tmp_path, out="base")
    summary, folder = run(
        tmp_path,
        out="strict",
        settings={
            "exclude_partial_sessions": True,
            "timeouts": "exclude",
            "outliers": {"scope": "per_system", "replacement": "drop"},
            "ident": {"aggregation": "pooled"},
            "simulation": {"beta": 2.0},  # accepted and ignored here
        },
    )
    assert summary["counts"]["in_analysis"] < base["counts"]["in_analysis"]
    assert summary["settings"]["ident"]["aggregation"] == "pooled"
    cells = summary["outliers"]["measures"]["identification_time_ms"]["cells"]
    assert [c["cell"] for c in cells] == ["system=GRAPH", "system=HUMAN-1"]
    j = read(folder / "judgments.tsv")
    dropped = j[j["identification_time_outlier"] == "true"]
    assert (dropped["identification_time_adj_ms"] == "").all()


def test_rating_study(tmp_path):
    summary = merge_study(
        J / "design_rate.tsv",
        [J / "rating_export.tsv"],
        None,
        J / "testset.xml",
        None,
        None,
        None,
        None,
        out_measures_tsv=tmp_path / "m.tsv",
    )
    assert summary["task"] == "rating" and summary["variant"] is None
    assert summary["counts"]["in_analysis"] == 8
    assert summary["outliers"]["measures"] == {}  # ratings: no time treatment
    m = pd.read_csv(tmp_path / "m.tsv", sep="\t")
    graph = m[(m.system == "GRAPH") & (m.subdomain == "all")].iloc[0]
    assert graph["adequacy_mean"] == pytest.approx((84 + 66 + 95 + 61) / 4)
    assert graph["fluency_mean"] == pytest.approx((90 + 58 + 93 + 88) / 4)
    assert graph["n_trials"] == 4


def test_bad_inputs(tmp_path):
    with pytest.raises(JudgmentsError) as info:
        run(tmp_path, settings={"outliers": {"k": -1}})
    assert info.value.field == "outliers.k"
    with pytest.raises(JudgmentsError) as info:
        JudgmentSettings.from_mapping({"tiemouts": "error"})
    assert info.value.field == "judgments.tiemouts"
    with pytest.raises(JudgmentsError) as info:
        JudgmentSettings.from_mapping({"ident": {"tie": "x"}})
    assert info.value.field == "judgments.ident.tie"
    with pytest.raises(JudgmentsError) as info:
        JudgmentSettings.from_mapping({"timeouts": "drop"})
    assert info.value.field == "judgments.timeouts"
    with pytest.raises(JudgmentsError, match="not valid utf-8"):
        run(tmp_path, sources=["broken/generic_latin1.csv"], corrections=None)
    with pytest.raises(JudgmentsError, match="matches no trial"):
        run(tmp_path, corrections="broken/corrections_unmatched.tsv")
    summary, _ = run(
        tmp_path,
        settings={"encoding": "latin-1"},
        corrections=None,
        sources=["broken/generic_latin1.csv"],
    )
    assert summary["counts"]["rows"] == 2
    with pytest.raises(JudgmentsError, match="line 3, identification_time_ms"):
        run(
            tmp_path,
            settings={"strict": True},
            corrections=None,
            sources=["broken/server_bad_values.tsv"],
        )


def test_broken_rows_are_kept_and_reported(tmp_path):
    summary, folder = run(
        tmp_path, corrections=None, sources=["broken/server_bad_values.tsv"]
    )
    q = read(folder / "quality.tsv")
    problems = q[q["check"] == "import_problem"]
    assert problems["source_line"].tolist() == ["3", "4", "5"]
    j = read(folder / "judgments.tsv")
    assert (j["exclusion_reason"] == "import_problem").sum() == 3
    assert summary["counts"]["rows"] == 5


def test_importing_the_package_is_light():
    code = (
        "import sys, stecflow.judgments\n"
        "heavy = {'pandas', 'numpy', 'scipy'} & {m.split('.')[0] for m in sys.modules}\n"
        "print(sorted(heavy))"
    )
    out = python_stdout(code).strip()
    assert out == "[]"
    import stecflow.judgments as judgments

    assert judgments.merge_study is merge_study
    assert "merge_study" in dir(judgments)
    with pytest.raises(AttributeError):
        judgments.no_such_name  # noqa: B018


def test_corrections_as_a_list_of_files(tmp_path):
    none = merge_study(
        J / "design_id.tsv", [J / "server_export.tsv"], [], J / "testset.xml"
    )
    assert none["corrections"] == {
        "applied": 0,
        "files": [],
        "report": [],
        "skipped_other_study": 0,
    }
    extra = tmp_path / "more.tsv"
    extra.write_text(
        "session\torder\tfield\tnew_value\treason\n"
        "8c04d1e97b2a6f13\t5\tidentification_time_ms\t3100\tclock\n"
    )
    both = merge_study(
        J / "design_id.tsv",
        [J / "server_export.tsv", J / "id-demo-L02-offline-9c1d2e3f.tsv"],
        [J / "corrections.tsv", extra],
        J / "testset.xml",
    )
    assert both["corrections"]["applied"] == 3
    # released as it is: the file name, not the machine path
    assert both["corrections"]["files"][1] == "more.tsv"


def test_task_from_the_study_config_overrides_the_files(tmp_path):
    path = tmp_path / "ratings.csv"
    path.write_text(
        "participant,item,system,adequacy,fluency\n"
        "R9,t04,HUMAN-1,70,80\nR9,t01,HUMAN-1,90,85\n"
        "R9,t02,GRAPH,60,65\nR9,t03,GRAPH,75,70\n"
    )
    guessed = merge_study(J / "design_rate.tsv", [path], None, J / "testset.xml")
    assert guessed["task"] == "rating"
    given = merge_study(
        J / "design_rate.tsv",
        [path],
        None,
        J / "testset.xml",
        task="rating",
        variant=None,
    )
    assert given["counts"]["in_analysis"] == 4
    forced = merge_study(
        J / "design_rate.tsv", [path], None, J / "testset.xml", task="identification"
    )
    assert forced["counts"]["in_analysis"] == 0  # no identification answers
    assert forced["quality"]["by_check"]["no_response"] == 4


def test_outside_text_is_safe_in_the_judgments_tsv_and_reads_back(tmp_path):
    from stecflow.core.io import read_tsv

    lab = tmp_path / "lab.csv"
    lab.write_text(
        "participant,item,system,chosen_entity,identification_time_ms\n"
        "+cmd,t03,HUMAN-1,e2,3401.2\n+cmd,t01,HUMAN-1,e1,3190.0\n"
        "+cmd,t04,GRAPH,e3,2877.9\n+cmd,t02,GRAPH,e1,4420.3\n"
    )
    reason = "reported a mis-click\u2028(lab log)\x07 3 June"
    fixes = tmp_path / "fixes.tsv"
    fixes.write_text(
        "participant\titem\tfield\tnew_value\treason\n"
        f"+cmd\tt03\tchosen_entity\te1\t{reason}\n",
        encoding="utf-8",
    )
    folder = tmp_path / "out"
    merge_study(
        J / "design_id.tsv",
        [lab],
        fixes,
        J / "testset.xml",
        {},
        folder / "judgments.tsv",
        folder / "quality.tsv",
        folder / "summary.json",
    )
    text = (folder / "judgments.tsv").read_text(encoding="utf-8")
    assert len(text.splitlines()) == 5  # the header and four trials
    assert "\u2028" not in text and "\x07" not in text
    raw = [dict(zip(JUDGMENT_COLUMNS, line.split("\t"), strict=True))
           for line in text.split("\n")[1:-1]]  # fmt: skip
    assert {(r["participant"], r["session"], r["subject"]) for r in raw} == {
        ("'+cmd", "'+cmd", "'+cmd")
    }
    [fixed] = [r for r in raw if r["corrected"] == "true"]
    assert (
        fixed["correction_reason"] == "reported a mis-click\\u2028(lab log)\\x07 3 June"
    )
    assert fixed["condition"] == "-LOC" and fixed["item"] == "t03"
    # Read back as written: the library's reader and the statistics' pandas reader.
    back = read_tsv(folder / "judgments.tsv")
    assert {r["participant"] for r in back} == {"+cmd"}
    assert [r["correction_reason"] for r in back if r["corrected"] == "true"] == [
        reason
    ]
    frame = read(folder / "judgments.tsv")
    assert len(frame) == 4 and frame["in_analysis"].tolist() == ["true"] * 4

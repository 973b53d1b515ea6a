"""Merging responses with the design, and every data-quality check."""

from __future__ import annotations

import pandas as pd
import pytest

from stecflow.data.corpus import read_items
from stecflow.judgments import JUDGMENT_COLUMNS, JudgmentsError
from stecflow.judgments.design import design_frame, read_design
from stecflow.judgments.flags import analysis_flags
from stecflow.judgments.importers import read_responses
from stecflow.judgments.merge import merge_with_design
from stecflow.studies.designs import latin_square_design
from tests.conftest import FIXTURES

J = FIXTURES / "judgments"
ITEMS = {
    i.id: i for i in read_items(J / "testset.xml") + read_items(J / "practice.xml")
}


def design():
    return read_design(J / "design_id.tsv")


def rows_of(*names, study="id-demo"):
    out = []
    for name in names:
        out.extend(read_responses(J / name, study=study).rows)
    return out


def merge(rows, **kwargs):
    kwargs.setdefault("items", ITEMS)
    return merge_with_design(rows, design(), study="id-demo", **kwargs)


def checks(outcome):
    return sorted(p["check"] for p in outcome.problems)


def row(**values):
    base = {
        "study": "id-demo",
        "session": "s1",
        "participant": "p1",
        "list": "L01",
        "order": None,
        "item": None,
        "system": None,
        "chosen_entity": None,
        "correct": None,
        "source_file": "x.tsv",
        "source_line": 2,
        "task": "identification",
        "session_status": "completed",
    }
    base.update(values)
    return base


def full_session(session="s1", list_id="L01", **extra):
    """Rows answering every trial of *list_id* correctly."""
    d = design()
    out = []
    for k, t in enumerate(d[d["list"] == list_id].to_dict("records"), start=2):
        target = ITEMS[t["item"]].domain.target.id
        out.append(
            row(
                session=session,
                participant=session,
                list=list_id,
                order=t["order"],
                item=t["item"],
                system=t["system"],
                chosen_entity=target,
                source_line=k,
                identification_time_ms=3000.0 + k,
                **extra,
            )
        )
    return out


# --------------------------------------------------------------------------- design


def test_read_design_types():
    d = design()
    assert list(d["order"][:5]) == [1, 2, 3, 4, 5]
    assert d.loc[0, "practice"] is True and d.loc[1, "practice"] is False
    assert d.loc[0, "system"] is None and d.loc[0, "subject_slot"] == 1
    assert d.loc[1, "subdomain"] == "people"


def test_design_object_is_accepted():
    built = latin_square_design(["A", "B"], ["i1", "i2"], subjects=2, seed=1)
    frame = design_frame(built)
    assert len(frame) == 4 and set(frame["list"]) == {"L01", "L02"}


def test_design_errors(tmp_path):
    bad = tmp_path / "d.tsv"
    bad.write_text("list\titem\nL01\tt01\n")
    with pytest.raises(JudgmentsError) as info:
        read_design(bad)
    assert info.value.field == "order"
    bad.write_text("list\torder\titem\tsystem\nL01\t1\tt01\tA\nL01\t1\tt02\tA\n")
    with pytest.raises(JudgmentsError, match="share list and order") as info:
        read_design(bad)
    assert info.value.line == 3
    bad.write_text("list\torder\titem\tsystem\nL01\tfirst\tt01\tA\n")
    with pytest.raises(JudgmentsError, match="'first' is not a number"):
        read_design(bad)


# --------------------------------------------------------------------------- mapping


def test_clean_session_maps_to_the_design():
    outcome = merge(full_session())
    assert outcome.task == "identification"
    t = outcome.trials
    assert list(t.columns) == list(JUDGMENT_COLUMNS)
    assert list(t["order"]) == [1, 2, 3, 4, 5]
    assert list(t["subdomain"]) == [
        "furniture",
        "people",
        "furniture",
        "people",
        "furniture",
    ]
    assert list(t["condition"]) == ["-LOC", "-LOC", "-LOC", "+LOC", "+LOC"]
    assert t.loc[0, "practice"] is True and t.loc[0, "subject_slot"] == 1
    assert set(t["correct"]) == {True}
    assert checks(outcome) == ["list_not_run"]  # only L01 was done


def test_trials_without_order_are_matched_by_item_and_system():
    rows = rows_of("generic_lab.csv")
    outcome = merge([r for r in rows if r["participant"] in ("S05", "S06")])
    t = outcome.trials
    s05 = t[t["session"] == "S05"]
    assert set(s05["list"]) == {"L01"}
    assert list(s05["order"]) == [1, 2, 3, 4, 5]
    s06 = t[t["session"] == "S06"]
    assert set(s06["list"]) == {"L02"} and list(s06["order"]) == [2, 3, 4, 5]
    assert checks(outcome) == []


def test_dmdx_rows_take_item_and_system_from_the_design():
    rows = read_responses(J / "L02-read-first.azk", list_id="L02").rows
    t = merge(rows).trials
    assert list(t["item"]) == ["p01", "t01", "t04", "t02", "t03"]
    assert list(t["system"])[1:] == ["GRAPH", "HUMAN-1", "HUMAN-1", "GRAPH"]
    assert list(t["choice"])[:3] == ["e1", "incorrect", "e3"]  # target of t04: e3


def test_wrong_list_is_detected_and_reassigned():
    outcome = merge(rows_of("generic_wrong_list.csv"))
    [p] = [p for p in outcome.problems if p["check"] == "wrong_list"]
    assert p["severity"] == "warning" and p["list"] == "L01"
    assert "recorded on list L02" in p["detail"] and "4 of 4" in p["detail"]
    assert set(outcome.trials["list"]) == {"L01"}
    assert not outcome.trials["excluded"].any()


def test_recorded_list_not_in_design_but_trials_fit_one():
    rows = full_session(list_id="L01")
    for r in rows:
        r["list"] = "list-1"
    outcome = merge(rows)
    assert "wrong_list" in checks(outcome)
    assert set(outcome.trials["list"]) == {"L01"}


def test_unknown_list():
    rows = [row(list="L09", order=7, item="t99", system="X", chosen_entity="e1")]
    outcome = merge(rows)
    [p] = [p for p in outcome.problems if p["check"] == "unknown_list"]
    assert p["severity"] == "error" and "L09 is not in the design" in p["detail"]
    assert outcome.trials.loc[0, "excluded"] is True
    assert outcome.trials.loc[0, "exclusion_reason"] == "unknown_list"


def test_unknown_subject():
    outcome = merge(rows_of("generic_lab.csv"))
    [p] = [p for p in outcome.problems if p["check"] == "unknown_subject"]
    assert p["session"] == "S08" and p["source_line"] == 11
    s08 = outcome.trials[outcome.trials["session"] == "S08"]
    assert len(s08) == 4 and s08["excluded"].all()
    assert set(s08["exclusion_reason"]) == {"unknown_subject"}


def test_not_in_design_and_design_mismatch():
    rows = full_session()
    rows.append(
        row(order=9, item="t01", system="GRAPH", chosen_entity="e1", source_line=20)
    )
    rows[1]["item"] = "t04"  # order 2 of L01 is t03
    outcome = merge(rows)
    found = {p["check"]: p for p in outcome.problems}
    assert found["not_in_design"]["source_line"] == 20
    assert "no trial of list L01 has order 9" in found["not_in_design"]["detail"]
    assert found["design_mismatch"]["order"] == 2
    assert "is item t03 by HUMAN-1" in found["design_mismatch"]["detail"]
    t = outcome.trials
    assert set(t.loc[t["excluded"], "exclusion_reason"]) == {
        "not_in_design",
        "design_mismatch",
    }


def test_duplicates_keep_the_first_answer():
    rows = full_session()
    copy = dict(rows[3], source_file="y.tsv", source_line=9, chosen_entity="e1")
    outcome = merge([*rows, copy])
    [p] = [p for p in outcome.problems if p["check"] == "duplicate"]
    assert p["source_file"] == "y.tsv" and "first at x.tsv, line 5" in p["detail"]
    t = outcome.trials
    dup = t[t["duplicate"]]
    assert len(dup) == 1 and dup.iloc[0]["source_file"] == "y.tsv"
    assert dup.iloc[0]["excluded"] is True


def test_the_same_file_twice_gives_duplicates():
    outcome = merge(rows_of("server_export.tsv") + rows_of("server_export.tsv"))
    assert outcome.trials["duplicate"].sum() == 13
    assert checks(outcome).count("duplicate") == 13
    assert outcome.trials["excluded"].sum() == 13


def test_missing_trials_and_partial_sessions():
    outcome = merge(rows_of("server_export.tsv"))
    found = [p for p in outcome.problems if p["session"] == "a71e5b0c3d9f2468"]
    assert sorted(p["check"] for p in found) == ["missing_trials", "partial_session"]
    missing = next(p for p in found if p["check"] == "missing_trials")
    assert missing["detail"].startswith("2 of 4 test trials of list L01 not answered")
    assert "(orders 4-5)" in missing["detail"]
    t = outcome.trials
    assert t[t["session"] == "a71e5b0c3d9f2468"]["partial_session"].all()
    assert not t[t["session"] == "3f9a0c2be41d7a65"]["partial_session"].any()
    assert outcome.sessions["a71e5b0c3d9f2468"]["missing"] == [4, 5]
    # Kept in the analysis unless asked otherwise.
    flagged = analysis_flags(t, task="identification")
    part = flagged["session"] == "a71e5b0c3d9f2468"
    test = part & ~flagged["practice"].astype(bool)
    assert flagged.loc[test, "in_analysis"].all()
    strict = analysis_flags(t, task="identification", exclude_partial_sessions=True)
    assert not strict.loc[part, "in_analysis"].any()


def test_lists_not_run_repeated_and_participants_with_two_sessions():
    rows = full_session("s1") + full_session("s2")
    for r in rows:
        r["participant"] = "P1"
    outcome = merge(rows)
    assert checks(outcome) == [
        "list_not_run",
        "list_repeated",
        "subject_multiple_sessions",
    ]
    assert set(outcome.trials["subject"]) == {"P1"}


def test_target_correct_and_entity_checks():
    rows = full_session()
    rows[1].update(target_entity="e9")  # t03: the target is e1
    rows[2].update(correct=False)  # t01: e1 was chosen and is the target
    rows[3].update(chosen_entity="e7")  # t04 has e1-e3
    outcome = merge(rows)
    found = {p["check"]: p for p in outcome.problems}
    assert found["target_mismatch"]["detail"] == (
        "the row's target is e9, the test set's e1; the test set's is used"
    )
    assert "recomputed" in found["correct_mismatch"]["detail"]
    assert "e7 is not in the domain of t04" in found["unknown_entity"]["detail"]
    t = outcome.trials
    assert t.loc[2, "correct"] is True and t.loc[3, "correct"] is False
    assert t.loc[1, "target_entity"] == "e1"


def test_item_not_in_testset_is_reported_once():
    items = {k: v for k, v in ITEMS.items() if k != "t01"}
    outcome = merge(full_session() + full_session("s2"), items=items)
    assert checks(outcome).count("item_not_in_testset") == 1


def test_other_study_rows_are_left_out():
    rows = full_session()
    rows[1]["study"] = "rate-demo"
    outcome = merge(rows)
    assert "other_study" in checks(outcome)
    assert outcome.trials["exclusion_reason"].tolist().count("other_study") == 1


def test_aborted_and_no_response():
    rows = full_session()
    rows[2]["aborted"] = True
    rows[3]["chosen_entity"] = None  # nothing recorded at all
    outcome = merge(rows)
    assert {"aborted_trial", "no_response"} <= set(checks(outcome))
    t = outcome.trials
    assert t.loc[2, "exclusion_reason"] == "aborted"
    assert t.loc[3, "exclusion_reason"] == "no_response"


def test_import_problem_rows_are_excluded():
    rows = rows_of("server_export.tsv")
    rows[2]["import_problem"] = "identification_time_ms: 'x' is not a number"
    t = merge(rows).trials
    assert t["exclusion_reason"].tolist().count("import_problem") == 1


def test_inconsistent_list_in_one_session():
    rows = full_session()
    rows[2]["list"] = "L02"
    outcome = merge(rows)
    assert "inconsistent_list" in checks(outcome)
    assert set(outcome.trials["list"]) == {"L01"}


def test_timeout_cant_tell_and_choice():
    outcome = merge(rows_of("server_export.tsv", "id-demo-L02-offline-9c1d2e3f.tsv"))
    t = outcome.trials
    timeout = t[t["timeout"]].iloc[0]
    assert timeout["choice"] == "timeout" and timeout["correct"] is None
    cant = t[t["cant_tell"]].iloc[0]
    assert cant["choice"] == "cant_tell" and cant["correct"] is False
    flags = analysis_flags(t, task="identification")
    assert flags.loc[timeout.name, "in_analysis"]
    assert not flags.loc[timeout.name, "in_time_analysis"]
    excluded = analysis_flags(
        t, task="identification", timeouts="exclude", cant_tell="exclude"
    )
    assert not excluded.loc[timeout.name, "in_analysis"]
    assert not excluded.loc[cant.name, "in_analysis"]
    with pytest.raises(JudgmentsError):
        analysis_flags(t, task="identification", timeouts="maybe")


def test_analysis_flags_for_errors_and_corrections():
    t = merge(full_session()).trials
    t.loc[2, "correct"] = False
    t.loc[3, "corrected"] = True
    flags = analysis_flags(t, task="identification")
    assert list(flags["in_analysis"]) == [False, True, True, True, True]
    assert list(flags["in_time_analysis"]) == [False, True, True, False, True]
    no_errors = analysis_flags(t, task="identification", times_include_errors=False)
    assert not no_errors.loc[2, "in_time_analysis"]
    keep = analysis_flags(t, task="identification", corrected_in_times=True)
    assert keep.loc[3, "in_time_analysis"]


def test_rating_task_and_no_rating():
    rows = read_responses(J / "rating_export.tsv").rows
    rows[3]["adequacy"] = rows[3]["fluency"] = None
    design_rate = read_design(J / "design_rate.tsv")
    outcome = merge_with_design(rows, design_rate, study="rate-demo", items=ITEMS)
    assert outcome.task == "rating"
    assert checks(outcome) == ["no_response"]
    assert outcome.trials["choice"].isna().all()


def test_task_can_be_given_and_is_checked():
    with pytest.raises(JudgmentsError):
        merge(full_session(), task="ranking")
    assert merge(full_session(), task="identification").task == "identification"


def test_rows_are_sorted_deterministically():
    rows = rows_of("server_export.tsv", "generic_lab.csv")
    a = merge(rows).trials
    b = merge(list(reversed(rows))).trials
    pd.testing.assert_frame_equal(a, b)


# --------------------------------------------------------------- fillers, no order


def _seed003_design():
    """Seed 003's shape: 15 systems, 148 items, 2 filler copies, 15 subjects.

    With seed 2007, list L01 shows item t131 by S00 twice: as a test trial (order
    10) and as a filler copy (order 19).
    """
    from stecflow.studies.designs import latin_square_design

    systems = [f"S{k:02d}" for k in range(15)]
    items = [f"t{k:03d}" for k in range(148)]
    return latin_square_design(systems, items, subjects=15, seed=2007, study="r3")


def test_filler_copy_of_a_test_trial_without_order_column(tmp_path):
    from stecflow.core.io import read_tsv, write_tsv
    from stecflow.judgments.study import merge_study
    from stecflow.studies.designs import TRIAL_COLUMNS

    design_table = _seed003_design().trials
    write_tsv(design_table.to_dict("records"), TRIAL_COLUMNS, tmp_path / "d.tsv")
    l01 = design_table[design_table["list"] == "L01"].sort_values("order")
    pair = l01[(l01["item"] == "t131") & (l01["system"] == "S00")]
    assert list(pair["order"]) == [10, 19] and list(pair["filler"]) == [False, True]
    assert len(l01) == 150 and int(l01["filler"].sum()) == 2
    # A complete session as another tool writes it: no order, no list; the
    # adequacy given to each trial is half its position, so where it lands shows.
    lines = ["participant,item,system,adequacy,fluency"]
    lines += [f"P01,{t.item},{t.system},{t.order / 2},50" for t in l01.itertuples()]
    (tmp_path / "lab.csv").write_text("\n".join(lines) + "\n")
    summary = merge_study(
        tmp_path / "d.tsv",
        [tmp_path / "lab.csv"],
        None,
        None,
        {},
        tmp_path / "j.tsv",
        tmp_path / "q.tsv",
        tmp_path / "s.json",
        task="rating",
    )
    judged = read_tsv(tmp_path / "j.tsv")
    assert len(judged) == 150
    assert [r["order"] for r in judged] == [str(o) for o in range(1, 151)]
    assert [float(r["adequacy"]) * 2 for r in judged] == list(range(1, 151))
    assert [(r["order"], r["source_line"], r["filler"]) for r in judged if
            r["item"] == "t131" and r["system"] == "S00"] == [
        ("10", "11", "false"),
        ("19", "20", "true"),
    ]  # fmt: skip
    assert not any(r["excluded"] == "true" for r in judged)
    counts = summary["counts"]
    assert (counts["rows"], counts["in_analysis"], counts["fillers"]) == (150, 148, 2)
    assert (counts["excluded"], counts["duplicates"], counts["missing_trials"]) == (
        0,
        0,
        0,
    )
    assert summary["quality"]["by_check"] == {"list_not_run": 14}


def _filler_design():
    # L01 shows t01 by A twice: a test trial (order 2) and a filler (order 4).
    return pd.DataFrame(
        {
            "list": ["L01"] * 5,
            "order": [1, 2, 3, 4, 5],
            "item": ["p01", "t01", "t02", "t01", "t03"],
            "system": [None, "A", "B", "A", "C"],
            "practice": [True, False, False, False, False],
            "filler": [False, False, False, True, False],
        }
    )


def _rating(item, system, line, adequacy, **extra):
    return row(
        item=item,
        system=system,
        source_line=line,
        adequacy=float(adequacy),
        fluency=50.0,
        task="rating",
        **extra,
    )


def test_occurrence_decides_between_test_trial_and_filler():
    rows = [
        _rating("p01", None, 2, 10),
        _rating("t01", "A", 3, 20),
        _rating("t02", "B", 4, 30),
        _rating("t01", "A", 5, 40),
        _rating("t03", "C", 6, 50),
    ]
    out = merge_with_design(list(reversed(rows)), _filler_design(), study="id-demo")
    t = out.trials
    assert list(t["order"]) == [1, 2, 3, 4, 5]
    assert list(t["adequacy"]) == [10.0, 20.0, 30.0, 40.0, 50.0]
    assert list(t["filler"]) == [False, False, False, True, False]
    assert not t["excluded"].any() and out.problems == []


def test_filler_flag_of_the_row_decides_even_in_a_partial_session():
    rows = [
        _rating("t02", "B", 3, 30),
        _rating("t01", "A", 4, 40, filler=True),  # the test trial was not answered
    ]
    out = merge_with_design(rows, _filler_design(), study="id-demo")
    t = out.trials
    assert list(t["order"]) == [3, 4] and list(t["filler"]) == [False, True]
    assert not t["excluded"].any()
    [missing] = [p for p in out.problems if p["check"] == "missing_trials"]
    assert "(orders 2, 5)" in missing["detail"]


def test_row_fitting_a_test_trial_and_a_filler_is_an_error_naming_file_and_line():
    rows = [_rating("t02", "B", 3, 30), _rating("t01", "A", 7, 40)]
    out = merge_with_design(rows, _filler_design(), study="id-demo")
    [p] = [p for p in out.problems if p["check"] == "ambiguous_trial"]
    assert p["severity"] == "error"
    assert (p["source_file"], p["source_line"], p["list"]) == ("x.tsv", 7, "L01")
    assert p["detail"] == (
        "x.tsv, line 7: item t01, system A is shown by trials 2, 4 (filler) of the "
        "list, and the session has 1 row(s) without an order for them, so which "
        "answer belongs to which trial is unknown; left out. Give the order column "
        "(or filler) to tell them apart"
    )
    t = out.trials
    ambiguous = t[t["source_line"] == 7].iloc[0]
    assert ambiguous["excluded"] is True and ambiguous["order"] is None
    assert ambiguous["exclusion_reason"] == "ambiguous_trial"
    assert "not_in_design" not in checks(out)


def test_more_rows_than_trials_of_a_pair_are_all_ambiguous():
    rows = [_rating("t01", "A", line, 40) for line in (3, 4, 5)]
    out = merge_with_design(rows, _filler_design(), study="id-demo")
    found = [p for p in out.problems if p["check"] == "ambiguous_trial"]
    assert [p["source_line"] for p in found] == [3, 4, 5]
    assert "the session has 3 row(s)" in found[0]["detail"]
    assert out.trials["exclusion_reason"].tolist() == ["ambiguous_trial"] * 3

"""The analysis kinds a campaign config declares (issue #18, point 1).

Paired t-tests, MANOVA with follow-ups, mixed models and means by system property,
run through :func:`analysis_specs` and :func:`run_analysis` as the workflow runs
them, on the data behind the R references in ``tests/data/r_reference`` and
compared with R's numbers (``reference.json``, made by ``tests/r/make_reference.R``
and ``tests/r/make_reference_properties.R``).
"""

from __future__ import annotations

import csv
import json
import statistics
from pathlib import Path

import pytest
import yaml

from stecflow.analysis.collect import (
    ANALYSED_COLUMNS,
    ITEM_TABLE_COLUMNS,
    collect_item_scores,
    system_properties,
)
from stecflow.analysis.run import run_analysis
from stecflow.analysis.specs import analysis_specs
from stecflow.core.errors import ConfigError
from stecflow.core.io import read_json, read_tsv, write_json, write_tsv
from stecflow.judgments import JUDGMENT_COLUMNS
from stecflow.scoring.score import ITEM_COLUMNS
from tests.conftest import REPO

R_DATA = REPO / "tests" / "data" / "r_reference"


def r_reference(name: str = "reference") -> dict:
    return json.loads((R_DATA / f"{name}.json").read_text())


def r_rows(name: str) -> list[dict[str, str]]:
    with open(R_DATA / f"{name}.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def config(analyses: list[dict], properties: dict | None = None) -> dict:
    """config/config.yaml with these analyses (and declared system properties)."""
    out = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    out["statistics"]["analyses"] = analyses
    out["submissions"]["properties"] = properties or {}
    return out


def write_scores(
    folder: Path,
    scores: dict[tuple[str, str], dict[str, float]],
    properties: dict[str, dict] | None = None,
) -> tuple[Path, Path]:
    """items.tsv and analysed.tsv: (system, item) -> metric -> value."""
    properties = properties or {}
    rows = [
        {
            "team": f"t-{system}",
            "system": system,
            "label": system,
            "reference_set": "false",
            "late": "false",
            "primary": "true",
            "item": item,
            "subdomain": "furniture",
            "condition": "",
            "metric": metric,
            "value": value,
        }
        for (system, item), values in scores.items()
        for metric, value in values.items()
    ]
    items = folder / "items.tsv"
    write_tsv(rows, ITEM_TABLE_COLUMNS, items)
    systems = sorted({s for s, _ in scores})
    analysed = folder / "analysed.tsv"
    write_tsv(
        [
            {
                "label": s,
                "team": f"t-{s}",
                "system": s,
                "status": "scored",
                "subset": "all",
                "metric": "se",
                "value": "1",
                "properties": json.dumps(properties.get(s, {})),
            }
            for s in systems
        ],
        ANALYSED_COLUMNS,
        analysed,
    )
    return items, analysed


def run(spec: dict, folder: Path, items: Path, analysed: Path, **kwargs):
    record = run_analysis(
        spec,
        items,
        analysed,
        folder / f"{spec['id']}.tsv",
        folder / f"{spec['id']}.json",
        **kwargs,
    )
    assert read_json(folder / f"{spec['id']}.json") == json.loads(
        json.dumps(record, allow_nan=True)
    )
    return record, read_tsv(folder / f"{spec['id']}.tsv")


# --- paired t-tests ---------------------------------------------------------------


def test_paired_ttest_of_two_systems_matches_r(tmp_path):
    """REFERENCE.md section 19 as two systems' item scores: R's t.test(paired)."""
    ref = r_reference()["paired_ttest"]
    scores = {
        (r["system"], f"i{r['item']}"): {"se": float(r["score"])}
        for r in r_rows("paired_ttest")
    }
    items, analysed = write_scores(tmp_path, scores)
    (spec,) = analysis_specs(
        config([{"id": "xz", "test": "ttest", "measure": "se", "levels": ["x", "z"]}])
    )
    assert (spec["within"], spec["pair_by"], spec["factors"]) == ("system", "item", [])
    record, rows = run(spec, tmp_path, items, analysed)
    (row,) = rows
    assert (row["level_a"], row["level_b"], row["n"]) == ("x", "z", "6")
    assert float(row["t"]) == pytest.approx(ref["t"], rel=1e-8)
    assert float(row["df"]) == ref["df"]
    assert float(row["p_val"]) == pytest.approx(ref["p"], rel=1e-8)
    # alpha = .05: the 95% interval R gives
    assert float(row["ci_low"]) == pytest.approx(ref["ci_low"], rel=1e-8)
    assert float(row["ci_high"]) == pytest.approx(ref["ci_high"], rel=1e-8)
    assert record["text"] == [{"about": "x vs z", "text": "t(5) = -4.78, p = .005"}]
    # statistics.digits
    record, _ = run(spec, tmp_path, items, analysed, digits=3)
    assert record["text"][0]["text"] == "t(5) = -4.781, p = .005"


def test_paired_ttests_within_a_column_split_by_system(tmp_path):
    """Seed 000's design: each evaluator's mean per instance class (TP vs FN),
    t over evaluators; here one test per system, with a third class Bonferroni-
    corrected over its pairs."""
    from stecflow.stats.ttests import pairwise_paired_ttests

    x = [float(r["score"]) for r in r_rows("paired_ttest") if r["system"] == "x"]
    z = [float(r["score"]) for r in r_rows("paired_ttest") if r["system"] == "z"]
    trials = []
    for k, (a, b) in enumerate(zip(x, z, strict=True)):
        for cls, value in (("TP", a), ("FN", b), ("FP", (a + b) / 2 + 0.1 * k)):
            trials.append(("S1", f"p{k}", cls, value))
            trials.append(("S2", f"p{k}", cls, value * 2))
    judgments = _write_judgments(
        tmp_path,
        [
            {"system": f"t-{s}/{s}", "subject": subj, "condition": c, "adequacy": v}
            | {"item": f"{c}{subj}"}
            for s, subj, c, v in trials
        ],
    )
    items, analysed = write_scores(tmp_path, {("S1", "i"): {}, ("S2", "i"): {}})
    (spec,) = analysis_specs(
        config(
            [
                {
                    "id": "classes",
                    "test": "ttest",
                    "source": "rating",
                    "measure": "adequacy",
                    "within": "condition",
                    "factors": ["system"],
                }
            ]
        )
    )
    assert spec["pair_by"] == "subject"
    record, rows = run(spec, tmp_path, items, analysed, judgments=judgments)
    assert [(r["system"], r["level_a"], r["level_b"]) for r in rows] == [
        (s, a, b)
        for s in ("S1", "S2")
        for a, b in (("FN", "FP"), ("FN", "TP"), ("FP", "TP"))
    ]
    # TP vs FN of S1 is R's test with the sign turned (FN - TP)
    ref = r_reference()["paired_ttest"]
    assert float(rows[1]["t"]) == pytest.approx(-ref["t"], rel=1e-8)
    assert float(rows[1]["p_val"]) == pytest.approx(ref["p"], rel=1e-8)
    assert float(rows[1]["p_adj"]) == pytest.approx(3 * ref["p"], rel=1e-8)
    # the same as the library on one system's trials
    import pandas as pd

    frame = pd.DataFrame(
        [(subj, c, v) for s, subj, c, v in trials if s == "S2"],
        columns=["subject", "condition", "value"],
    )
    direct = pairwise_paired_ttests(frame, "value", "condition", "subject")
    # the TSV keeps 10 significant digits
    assert [float(r["t"]) for r in rows[3:]] == pytest.approx(
        direct["t"].tolist(), rel=1e-9
    )
    assert record["text"][1] == {
        "about": "system S1: FN vs TP",
        "text": f"t(5) = {-ref['t']:.2f}, p = .005",
    }


# --- MANOVA -------------------------------------------------------------------------


def test_manova_on_a_system_property_matches_r(tmp_path):
    """REFERENCE.md section 20: rt and acc of three systems, the factor a declared
    system property (one level per system): R's summary.manova."""
    ref = r_reference()["manova_ref20"]
    data = r_rows("manova_ref20")
    scores = {}
    for n, r in enumerate(data):
        scores[(r["system"], f"i{n % 4}")] = {
            "se": float(r["rt"]),
            "string_accuracy": float(r["acc"]),
        }
    kinds = {"S1": {"kind": "a"}, "S2": {"kind": "b"}, "S3": {"kind": "c"}}
    items, analysed = write_scores(tmp_path, scores, kinds)
    (spec,) = analysis_specs(
        config(
            [
                {
                    "id": "mv",
                    "test": "manova",
                    "measures": ["se", "string_accuracy"],
                    "factors": ["kind"],
                }
            ],
            {"kind": ["a", "b", "c"]},
        )
    )
    record, rows = run(spec, tmp_path, items, analysed)
    by_test = {r["test"]: r for r in rows}
    for name, key in (
        ("wilks", "Wilks"),
        ("pillai", "Pillai"),
        ("hotelling_lawley", "Hotelling-Lawley"),
        ("roy", "Roy"),
    ):
        row = by_test[name]
        assert row["source"] == "kind"
        assert float(row["value"]) == pytest.approx(ref[key]["value"], rel=1e-8)
        assert float(row["f"]) == pytest.approx(ref[key]["f"], rel=1e-8)
        assert (float(row["df1"]), float(row["df2"])) == (
            ref[key]["df1"],
            ref[key]["df2"],
        )
        assert float(row["p_val"]) == pytest.approx(ref[key]["p"], rel=1e-6)
    assert record["properties"] == ["kind"] and record["n_observations"] == 12
    assert {
        "about": "kind, wilks",
        "text": "Wilks' Λ = 0.26, F(4, 16) = 3.84, p = .023",
    } in record["text"]
    # follow-ups: one-way ANOVAs per measure (checked against scipy's f_oneway),
    # Bonferroni over the two measures
    from scipy.stats import f_oneway

    followups = {f["dv"]: f for f in record["followups"]}
    for dv, column in (("se", "rt"), ("string_accuracy", "acc")):
        groups = [
            [float(r[column]) for r in data if r["system"] == s]
            for s in ("S1", "S2", "S3")
        ]
        expected = f_oneway(*groups)
        assert followups[dv]["f"] == pytest.approx(expected.statistic, rel=1e-10)
        assert followups[dv]["p_val"] == pytest.approx(expected.pvalue, rel=1e-8)
        assert followups[dv]["p_adj"] == pytest.approx(
            min(1.0, 2 * expected.pvalue), rel=1e-8
        )
    assert [t["about"] for t in record["followup_text"]] == [
        "se: kind",
        "string_accuracy: kind",
    ]


def test_manova_of_two_binary_properties_matches_car(tmp_path):
    """Seed 003 Table 4's design: two binary system properties and their
    interaction (unequal cells), car::Manova(type = 3) with contr.sum."""
    ref = r_reference("properties")["manova_properties"]
    data = r_rows("properties")
    systems = sorted({r["system"] for r in data})
    props = {
        s: {
            "trainable": next(
                r["trainable"] == "TRUE" for r in data if r["system"] == s
            ),
            "incremental": next(
                r["incremental"] == "TRUE" for r in data if r["system"] == s
            ),
        }
        for s in systems
    }
    scores = {
        (r["system"], r["item"]): {"dice": float(r["dice"]), "masi": float(r["masi"])}
        for r in data
    }
    items, analysed = write_scores(tmp_path, scores, props)
    (spec,) = analysis_specs(
        config(
            [
                {
                    "id": "table4",
                    "test": "manova",
                    "measures": ["dice", "masi"],
                    "factors": ["trainable", "incremental"],
                }
            ],
            {"trainable": "boolean", "incremental": "boolean"},
        )
    )
    record, rows = run(spec, tmp_path, items, analysed)
    pillai = {r["source"]: r for r in rows if r["test"] == "pillai"}
    assert list(pillai) == ref["term"]
    # seed 003 §4.1: the interaction's cell means with n, from the raw rows
    cells = {
        (c["levels"]["trainable"], c["levels"]["incremental"]): c
        for c in record["cells"]
    }
    assert {c["term"] for c in record["cells"]} == {"trainable:incremental"}
    for (trainable, incremental), cell in cells.items():
        mine = [
            r
            for r in data
            if (r["trainable"] == "TRUE") == (trainable == "true")
            and (r["incremental"] == "TRUE") == (incremental == "true")
        ]
        assert cell["n"] == len(mine) > 0
        for m in ("dice", "masi"):
            assert cell["means"][m] == pytest.approx(
                statistics.fmean(float(r[m]) for r in mine), abs=1e-12
            )
    assert sum(c["n"] for c in cells.values()) == len(data)
    for n, term in enumerate(ref["term"]):
        assert float(pillai[term]["value"]) == pytest.approx(ref["pillai"][n], rel=1e-8)
        assert float(pillai[term]["f"]) == pytest.approx(ref["f"][n], rel=1e-8)
        assert float(pillai[term]["df2"]) == ref["df2"][n]
        assert float(pillai[term]["p_val"]) == pytest.approx(ref["p"][n], rel=1e-6)
        # Bonferroni over the three terms
        assert float(pillai[term]["p_adj"]) == pytest.approx(
            min(1.0, 3 * ref["p"][n]), rel=1e-6
        )
    # Table 3: means by property, R's tapply(mean), tapply(sd)
    (spec,) = analysis_specs(
        config(
            [{"id": "table3", "test": "property_means", "measures": ["dice", "masi"]}],
            {"trainable": "boolean", "incremental": "boolean"},
        )
    )
    record, rows = run(spec, tmp_path, items, analysed)
    means = r_reference("properties")["means_by_property"]
    for row in rows:
        r = means[f"{row['measure']}_by_{row['factor']}"]
        n = r["level"].index(row["level"])
        # the TSV keeps 10 significant digits
        assert float(row["mean"]) == pytest.approx(r["mean"][n], rel=1e-9)
        assert float(row["sd"]) == pytest.approx(r["sd"][n], rel=1e-9)
        assert int(row["n"]) == r["n"][n]
    assert len(rows) == 8 and record["systems_without_property"] == {}


# --- mixed model --------------------------------------------------------------------


def _write_judgments(folder: Path, trials: list[dict], study: str = "rating"):
    rows = []
    for trial in trials:
        row = dict.fromkeys(JUDGMENT_COLUMNS, "")
        row.update({k: str(v) for k, v in trial.items()})
        row.update(study=study, in_analysis="true", in_time_analysis="true")
        rows.append(row)
    path = folder / "judgments" / f"{study}.tsv"
    write_tsv(rows, JUDGMENT_COLUMNS, path)
    write_json(
        {"study": study, "simulated": False, "counts": {}},
        folder / "judgments" / "summary" / f"{study}.json",
    )
    return {study: path}


def test_mixed_model_of_a_rating_study_matches_lme4(tmp_path):
    """mixed_crossed.csv as a rating study's adequacy: lme4::lmer, REML."""
    ref = r_reference()["mixed_crossed"]["rating_means"]
    data = r_rows("mixed_crossed")
    judgments = _write_judgments(
        tmp_path,
        [
            {
                "system": f"t-{r['system']}/{r['system']}",
                "subject": r["subject"],
                "item": r["item"],
                "adequacy": r["rating"],
            }
            for r in data
        ],
    )
    items, analysed = write_scores(tmp_path, {(s, "i"): {} for s in "ABCD"})
    (spec,) = analysis_specs(
        config(
            [{"id": "lmm", "test": "mixed", "source": "rating", "measure": "adequacy"}]
        )
    )
    record, rows = run(spec, tmp_path, items, analysed, judgments=judgments)
    fixed = [r for r in rows if r["effect"] == "fixed"]
    assert [r["term"] for r in fixed] == ["A", "B", "C", "D"]
    # lme4's REML fit and (X'V^-1X)^-1 SEs; the TSV keeps 10 significant digits
    # and lmer's default optimiser stops about 1e-6 short of the optimum
    for row, estimate, se in zip(fixed, ref["estimate"], ref["se"], strict=True):
        assert float(row["estimate"]) == pytest.approx(estimate, rel=1e-5)
        assert float(row["se"]) == pytest.approx(se, rel=1e-5)
    random = {r["term"]: float(r["estimate"]) for r in rows if r["effect"] == "random"}
    r_vc = dict(zip(ref["vc_group"], ref["vc_var"], strict=True))
    assert random["subject"] == pytest.approx(r_vc["subject"], rel=3e-5)
    assert random["item"] == pytest.approx(r_vc["item"], rel=3e-5)
    assert [t["about"] for t in record["text"]] == ["A", "B", "C", "D"]
    assert record["text"][0]["text"].startswith("b = 61.67, t(")
    assert record["n_observations"] == 128


# --- means by system property ---------------------------------------------------


def test_property_means_by_each_declared_property(tmp_path):
    """Seed 003 Table 3: means by property level, over the rows (unequal n)."""
    scores = {
        ("A", "i1"): {"se": 1.0},
        ("A", "i2"): {"se": 2.0},
        ("B", "i1"): {"se": 4.0},
        ("B", "i2"): {"se": 6.0},
        ("C", "i1"): {"se": 10.0},
        ("C", "i2"): {"se": 11.0},
        ("D", "i1"): {"se": 100.0},  # no properties declared: left out
    }
    props = {
        "A": {"incremental": True, "uses_type": "always"},
        "B": {"incremental": True, "uses_type": "never"},
        "C": {"incremental": False, "uses_type": "never"},
    }
    items, analysed = write_scores(tmp_path, scores, props)
    declared = {"incremental": "boolean", "uses_type": ["always", "never"]}
    (spec,) = analysis_specs(
        config([{"id": "t3", "test": "property_means", "measures": ["se"]}], declared)
    )
    assert spec["factors"] == ["incremental", "uses_type"]
    record, rows = run(spec, tmp_path, items, analysed)
    table = {(r["factor"], r["level"]): r for r in rows}
    assert list(table) == [
        ("incremental", "false"),
        ("incremental", "true"),
        ("uses_type", "always"),
        ("uses_type", "never"),
    ]
    assert float(table[("incremental", "true")]["mean"]) == 13 / 4
    assert table[("incremental", "true")]["systems"] == "A, B"
    assert float(table[("uses_type", "never")]["mean"]) == 31 / 4
    assert float(table[("incremental", "false")]["sd"]) == pytest.approx(0.5**0.5)
    assert record["systems_without_property"] == {
        "incremental": ["D"],
        "uses_type": ["D"],
    }
    assert record["text"][0] == {
        "about": "se by incremental",
        "text": "false: M = 10.50, SD = 0.71, n = 2; true: M = 3.25, SD = 2.22, n = 4",
    }


# --- settings -------------------------------------------------------------------


def test_anova_sum_of_squares_type_and_compact_letters(tmp_path):
    """statistics.ss_type reaches the ANOVA (R's car::Anova types 2 and 3 on an
    unbalanced 3 x 2 design), statistics.posthoc.display the letters
    (multcompView's letter sets on REFERENCE.md section 16 example A)."""
    ref = r_reference()
    data = r_rows("ref15_two_way")
    columns = list(data[0])
    scores = {(r["system"], f"i{n}"): {"se": float(r["y"])} for n, r in enumerate(data)}
    items, analysed = write_scores(tmp_path, scores)
    rows = read_tsv(items)
    domain = {f"i{n}": r["domain"] for n, r in enumerate(data)}
    for row in rows:
        row["subdomain"] = domain[row["item"]]
    write_tsv(rows, ITEM_TABLE_COLUMNS, items)
    spec = {
        "id": "a2",
        "test": "anova",
        "measure": "se",
        "source": "scores",
        "factors": ["system", "subdomain"],
    }
    for ss_type in (2, 3):
        r_table = ref["ref15_two_way"][f"type{ss_type}"]
        _, out = run(spec, tmp_path, items, analysed, ss_type=ss_type)
        for row in out[:3]:
            term = row["source"].replace("subdomain", "domain")
            n = r_table["term"].index(term)
            assert float(row["ss"]) == pytest.approx(r_table["ss"][n], rel=1e-8)
    assert columns[:3] == ["system", "domain", "y"]

    # example A, compact letter display
    example = {}
    for n, r in enumerate(r_rows("tukey_example_a")):
        example[(r["group"], f"i{n}")] = {"se": float(r["y"])}
    folder = tmp_path / "cld"
    folder.mkdir()
    items, analysed = write_scores(folder, example)
    tukey = {"id": "cld", "test": "tukey", "measure": "se", "source": "scores"}
    record, rows = run(
        tukey | {"factors": ["system"]},
        folder,
        items,
        analysed,
        posthoc={"display": "cld"},
        higher_is_better={"se": False},
    )
    assert record["display"] == "cld" and "subsets" not in record
    letters = {r["system"]: r["letters"] for r in rows}
    shared = {
        frozenset(s for s, ls in letters.items() if x in ls)
        for x in "".join(letters.values())
    }
    r_letters = ref["tukey_example_a"]["letters"]
    r_shared = {
        frozenset(s for s, ls in r_letters.items() if x in ls)
        for x in "".join(r_letters.values())
    }
    assert (
        shared
        == r_shared
        == {
            frozenset("AB"),
            frozenset("BC"),
            frozenset("D"),
        }
    )


def test_config_errors_of_the_new_kinds():
    def error(entry, properties=None):
        with pytest.raises(ConfigError) as info:
            analysis_specs(config([{"id": "x", **entry}], properties))
        return info.value

    assert error({"test": "manova", "measures": ["se"]}).field == (
        "statistics.analyses[0].measures"
    )
    assert "corpus-level" in str(error({"test": "manova", "measures": ["se", "bleu3"]}))
    assert "needs subjects" in str(error({"test": "mixed", "measure": "se"}))
    assert (
        error({"test": "ttest", "measure": "se", "within": "incremental"}).field
        == "statistics.analyses[0].factors"
    )
    assert "not among the factors" in str(
        error(
            {
                "test": "manova",
                "measures": ["se", "string_accuracy"],
                "factors": ["incremental"],
                "terms": ["incremental:trainable"],
            },
            {"incremental": "boolean", "trainable": "boolean"},
        )
    )
    assert "property_means needs factors" in str(
        error({"test": "property_means", "measures": ["se"]})
    )
    clash = error({"test": "anova", "measure": "se"}, {"subject": "string"})
    assert clash.field == "submissions.properties.subject"


def test_collect_item_scores_carries_validated_properties(tmp_path):
    summaries, item_paths, records = [], [], []
    for system, props in (("A", {"incremental": True}), ("B", {})):
        summary = {
            "team": "t",
            "system": system,
            "status": "scored",
            "late": False,
            "reference_set": False,
            "primary": True,
            "reason": None,
            "scores": [
                {"status": "scored", "subset": "all", "metric": "se", "value": 1}
            ],
        }
        write_json(summary, tmp_path / f"{system}.json")
        tasks = ["end_to_end", "attribute_selection"][: 1 + (system == "A")]
        write_json({"properties": props, "tasks": tasks}, tmp_path / f"v{system}.json")
        write_tsv([], ITEM_COLUMNS, tmp_path / f"{system}.tsv")
        summaries.append(tmp_path / f"{system}.json")
        item_paths.append(tmp_path / f"{system}.tsv")
        records.append(tmp_path / f"v{system}.json")
    collect_item_scores(
        summaries,
        item_paths,
        tmp_path / "items.tsv",
        tmp_path / "analysed.tsv",
        validation_paths=records,
    )
    assert system_properties(tmp_path / "analysed.tsv") == {
        "A": {"incremental": True},
        "B": {},
    }
    # the task types each record lists, for the significance tests' clusters
    tasks = {r["label"]: r["tasks"] for r in read_tsv(tmp_path / "analysed.tsv")}
    assert tasks == {"A": "end_to_end attribute_selection", "B": "end_to_end"}

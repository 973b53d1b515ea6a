from __future__ import annotations

import json

import pytest
import yaml

from stecflow.analysis.collect import ITEM_TABLE_COLUMNS, collect_item_scores
from stecflow.analysis.run import run_analysis
from stecflow.analysis.specs import analysis_specs
from stecflow.core.errors import ConfigError
from stecflow.core.io import format_tsv, read_tsv, write_json, write_tsv
from stecflow.scoring.score import ITEM_COLUMNS
from tests.conftest import REPO

# REFERENCE.md §16 example A: four systems, five items each (lower is better here).
EXAMPLE_A = {
    "A": [2, 3, 2.5, 3.5, 3],
    "B": [3.5, 4, 3, 4.5, 4],
    "C": [5, 4.5, 5.5, 4, 5],
    "D": [6.5, 6, 5.5, 7, 6],
}


@pytest.fixture
def campaign(tmp_path):
    """Per-submission summaries and item tables for example A, plus a late system."""
    summaries, items = [], []
    for n, (system, values) in enumerate(
        [*EXAMPLE_A.items(), ("LATE", [9, 9, 9, 9, 9])]
    ):
        team = "human" if system == "D" else f"team{n}"
        system_scores = [
            {
                "status": "scored",
                "subset_kind": "all",
                "subset": "all",
                "metric": metric,
                "value": value,
            }
            for metric, value in (
                ("bleu3", 100 - 10 * sum(values) / 5),
                ("nist5", n),
                ("se", sum(values) / 5),
            )
        ]
        summary = {
            "team": team,
            "system": system,
            "status": "scored",
            "late": system == "LATE",
            "reference_set": system == "D",
            "primary": True,
            "reason": None,
            "scores": system_scores,
        }
        write_json(summary, tmp_path / f"{system}.json")
        rows = [
            {
                "item": f"i{k}",
                "subdomain": "people" if k % 2 else "furniture",
                "condition": "+LOC",
                "metric": "se",
                "reference": "*",
                "value": v,
                "stats": str(v),
            }
            for k, v in enumerate(values)
        ]
        write_tsv(rows, ITEM_COLUMNS, tmp_path / f"{system}.tsv")
        summaries.append(tmp_path / f"{system}.json")
        items.append(tmp_path / f"{system}.tsv")
    return tmp_path, summaries, items


def test_collect_excludes_late_unless_asked(campaign):
    folder, summaries, items = campaign
    assert (
        collect_item_scores(
            summaries, items, folder / "items.tsv", folder / "systems.tsv"
        )
        == 4
    )
    rows = read_tsv(folder / "items.tsv")
    assert {r["label"] for r in rows} == {"A", "B", "C", "D"} and len(rows) == 20
    analysed = read_tsv(folder / "systems.tsv")
    assert [(r["system"], r["metric"], r["value"]) for r in analysed[:3]] == [
        ("D", "bleu3", "38"),
        ("D", "nist5", "3"),
        ("D", "se", "6.2"),
    ]
    assert {r["system"] for r in analysed} == {"A", "B", "C", "D"}
    assert (
        collect_item_scores(summaries, items, folder / "all.tsv", include_late=True)
        == 5
    )


def test_collect_copies_each_cell_as_written(tmp_path):
    """Cells that need escaping or neutralising come out as the item table has
    them, and read back as they were (the rows are copied, not re-encoded)."""
    summary = {
        "team": "=t",
        "system": "s\tys",
        "status": "scored",
        "late": False,
        "reference_set": False,
        "primary": True,
        "scores": [],
    }
    write_json(summary, tmp_path / "s.json")
    rows = [
        {
            "item": item,
            "subdomain": "+LOC",
            "condition": "-TYPE",
            "metric": "se",
            "reference": reference,
            "value": 1.5,
            "stats": "a\\b\nc",
        }
        for item, reference in (("=1+1", "*"), ("i\t2", "HUMAN-1"), ("'q", "*"))
    ]
    write_tsv(rows, ITEM_COLUMNS, tmp_path / "s.tsv")
    collect_item_scores([tmp_path / "s.json"], [tmp_path / "s.tsv"], tmp_path / "o.tsv")
    expected = [
        {"label": "s\tys", **summary, **row} for row in rows if row["reference"] == "*"
    ]
    text = (tmp_path / "o.tsv").read_text(encoding="utf-8")
    assert text == format_tsv(expected, ITEM_TABLE_COLUMNS)
    assert [
        (r["team"], r["system"], r["item"], r["stats"])
        for r in read_tsv(tmp_path / "o.tsv")
    ] == [("=t", "s\tys", "=1+1", "a\\b\nc"), ("=t", "s\tys", "'q", "a\\b\nc")]


@pytest.mark.parametrize(
    "lines",
    [
        # as the scoring stage writes them: every line cut the fast way
        ["t1\tA\t-LOC\tse\t*\t2\t2", "t1\tA\t-LOC\tse\tH-1\t1\t1"],
        # other * cells before, in and after the reference
        ["*\tA\t*\tse\t*\t*\t*", "t1\t*\t-LOC\t*\tH-1\t*\t*"],
        # short, long, blank and CRLF lines, an empty reference
        ["t1\tA\t-LOC\tse\t*", "t1\tA\t-LOC\tse\t*\t2\t2\textra", "", "x\r"],
        ["t2\tA\t-LOC\tse\t*\t2\t2\r", "t3\tA\t-LOC\tse\t\t2\t2", "\t\t\t\t*"],
        # escaped cells as write_tsv leaves them
        ["'=1\tA\\tB\t-LOC\tse\t*\t1.5\ta\\nb"],
    ],
)
def test_overall_rows_cut_as_the_column_reader_gives_them(tmp_path, lines):
    """The fast cut of an item table's rows over all references gives the
    lines that iter_tsv_columns gives, on tables of odd shapes too."""
    from stecflow.analysis.collect import _overall_lines
    from stecflow.core.io import iter_tsv_columns

    path = tmp_path / "items.tsv"
    path.write_text("\t".join(ITEM_COLUMNS) + "\n" + "\n".join(lines) + "\n")
    keep = ITEM_TABLE_COLUMNS[6:]
    expected = [
        "\t".join(c or "" for c in cells) + "\n"
        for cells in iter_tsv_columns(path, keep, ("reference", "*"), raw=True)
    ]
    assert expected  # every case has a row over all references
    assert list(_overall_lines(path, keep)) == expected


def test_item_frames_read_once_and_again_when_the_file_changes(campaign, monkeypatch):
    import pandas as pd

    from stecflow.analysis import frames, run

    reads = []
    read_csv = pd.read_csv
    monkeypatch.setattr(
        pd, "read_csv", lambda *a, **k: reads.append(a) or read_csv(*a, **k)
    )
    folder, summaries, items = campaign
    path = folder / "items.tsv"
    collect_item_scores(summaries, items, path)
    got = frames.item_frames(path, ["se", "bleu3"])
    assert len(got["se"]) == 20 and got["bleu3"].empty
    assert "stats" not in got["se"] and got["se"]["value"].sum() == 88.0
    got["se"]["value"] = 0.0  # each call gets its own copy
    assert frames.item_frame(path, "se")["value"].sum() == 88.0
    assert len(reads) == 1
    collect_item_scores(summaries, items, path, include_late=True)  # rewritten
    specs = [{"test": "anova", "measure": "se"}, {"test": "tukey", "measure": "nist5"}]
    run.prefetch_item_frames(path, specs)
    assert len(frames.item_frame(path, "se")) == 25
    assert frames.item_frame(path, "nist5").empty and len(reads) == 2


def test_prefetch_reads_only_the_metrics_item_analyses_use(monkeypatch):
    """Correlations read system-level scores, study analyses their trials: a
    group of those never reads items.tsv."""
    from stecflow.analysis import run

    asked = []
    monkeypatch.setattr(run, "item_frames", lambda _, m: asked.append(m))
    study = [
        {"test": "correlations", "measures": ["se", "adequacy"]},
        {"test": "anova", "source": "rating", "measure": "adequacy"},
        {"test": "preference", "source": "pairs"},
    ]
    run.prefetch_item_frames("items.tsv", study)
    assert asked == []
    manova = {
        "test": "manova",
        "source": "identification",
        "measures": ["dice", "identification_time"],
    }
    tukey = {"test": "tukey", "measure": "se"}
    run.prefetch_item_frames("items.tsv", [*study, manova, tukey, tukey])
    assert asked == [["dice", "se"]]


def test_tukey_reproduces_reference_example_a(campaign):
    folder, summaries, items = campaign
    collect_item_scores(summaries, items, folder / "items.tsv", folder / "systems.tsv")
    spec = {"id": "t", "test": "tukey", "measure": "se", "factors": ["system"]}
    record = run_analysis(
        spec,
        folder / "items.tsv",
        folder / "systems.tsv",
        folder / "t.tsv",
        folder / "t.json",
        higher_is_better={"se": False},
    )
    letters = {r["system"]: r["letters"] for r in read_tsv(folder / "t.tsv")}
    assert letters == {"A": "A", "B": "AB", "C": "B", "D": "C"}
    sigs = sorted({round(s["sig"], 3) for s in record["subsets"]})
    assert sigs == [0.059, 1.0]
    assert record["subsets"][0]["hsd"] == pytest.approx(1.031555, abs=1e-6)


def test_anova_text_as_the_seed_writes_it(campaign):
    folder, summaries, items = campaign
    collect_item_scores(summaries, items, folder / "items.tsv", folder / "systems.tsv")
    spec = {"id": "a", "test": "anova", "measure": "se", "factors": ["system"]}
    record = run_analysis(
        spec,
        folder / "items.tsv",
        folder / "systems.tsv",
        folder / "a.tsv",
        folder / "a.json",
    )
    table = read_tsv(folder / "a.tsv")
    assert (
        table[0]["source"] == "system"
        and table[0]["df"] == "3"
        and table[0]["df_resid"] == "16"
    )
    assert float(table[1]["ms"]) == pytest.approx(0.325)
    assert record["text"][0]["about"] == "system"
    assert record["text"][0]["text"].startswith("F(3, 16) = ")
    assert json.loads((folder / "a.json").read_text())["systems"] == [
        "A",
        "B",
        "C",
        "D",
    ]


def test_correlations_use_system_level_scores_and_can_drop_references(campaign):
    folder, summaries, items = campaign
    collect_item_scores(summaries, items, folder / "items.tsv", folder / "systems.tsv")
    spec = {
        "id": "c",
        "test": "correlations",
        "measures": ["se", "bleu3", "nist5"],
        "factors": ["system"],
    }
    run_analysis(
        spec,
        folder / "items.tsv",
        folder / "systems.tsv",
        folder / "c.tsv",
        folder / "c.json",
        exclude_references_from_correlations=False,  # the default is True
    )
    rows = {(r["measure_a"], r["measure_b"]): r for r in read_tsv(folder / "c.tsv")}
    assert float(rows[("se", "bleu3")]["r"]) == pytest.approx(-1.0)
    # r = -1 over 4 systems (p < .001): too few systems for stars (issue #12)
    assert rows[("se", "bleu3")]["n"] == "4" and rows[("se", "bleu3")]["sig"] == ""
    assert rows[("se", "bleu3")]["few_systems"] == "true"
    record = run_analysis(
        spec,
        folder / "items.tsv",
        folder / "systems.tsv",
        folder / "c.tsv",
        folder / "c.json",
        exclude_references_from_correlations=True,
    )
    assert record["excluded_systems"] == ["D"]
    assert read_tsv(folder / "c.tsv")[0]["n"] == "3"


def test_correlations_take_deletion_and_the_confidence_level_from_the_config(
    campaign,
):
    from stecflow.stats.correlation import pairwise_corr

    folder, summaries, items = campaign
    collect_item_scores(summaries, items, folder / "items.tsv", folder / "systems.tsv")
    spec = {
        "id": "c",
        "test": "correlations",
        "measures": ["se", "bleu3", "nist5"],
        "factors": ["system"],
        "deletion": "pairwise",
    }
    record = run_analysis(
        spec,
        folder / "items.tsv",
        folder / "systems.tsv",
        folder / "c.tsv",
        folder / "c.json",
        alpha=0.1,
        exclude_references_from_correlations=False,
    )
    rows = read_tsv(folder / "c.tsv")
    assert record["deletion"] == "pairwise"
    assert {r["deletion"] for r in rows} == {"pairwise"}
    assert {r["confidence"] for r in rows} == {"0.9"}
    # the same interval as the library gives at 90% on the system means
    means = _system_means(folder / "systems.tsv", ["se", "bleu3", "nist5"])
    expected = pairwise_corr(
        means, ["se", "bleu3", "nist5"], confidence=0.9, deletion="pairwise"
    )
    got = {(r["measure_a"], r["measure_b"]): r for r in rows}
    compared = 0
    for _, row in expected.iterrows():
        mine = got[row["measure_a"], row["measure_b"]]
        if row["ci_low"] == row["ci_low"]:  # not NaN (|r| = 1 has no interval)
            assert float(mine["ci_low"]) == pytest.approx(row["ci_low"], rel=1e-9)
            assert float(mine["ci_high"]) == pytest.approx(row["ci_high"], rel=1e-9)
            compared += 1
    assert compared >= 1
    with pytest.raises(ConfigError, match="deletion applies to correlations only"):
        analysis_specs(
            {
                "scoring": {},
                "statistics": {
                    "analyses": [
                        {
                            "id": "x",
                            "test": "anova",
                            "measure": "se",
                            "factors": ["system"],
                            "deletion": "pairwise",
                        }
                    ]
                },
            }
        )


def _system_means(systems_tsv, measures):
    import pandas as pd

    rows = [
        r
        for r in read_tsv(systems_tsv)
        if r["metric"] in measures and r["subset"] == "all" and r["status"] == "scored"
    ]
    frame = pd.DataFrame(
        {"system": r["system"], "measure": r["metric"], "value": float(r["value"])}
        for r in rows
    )
    return frame.pivot(index="system", columns="measure", values="value").reset_index()


def test_default_analyses_and_config_errors():
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["statistics"]["analyses"] = []
    specs = analysis_specs(config)
    assert [s["id"] for s in specs] == [
        "se-anova",
        "se-tukey",
        "accuracy-kruskal",
        "rating-adequacy-anova",
        "rating-adequacy-tukey",
        "rating-fluency-anova",
        "rating-fluency-tukey",
        "identification-time-anova",
        "identification-time-tukey",
        "identification-accuracy-kruskal",
        "correlations",
    ]
    # TUNA-REG'09 Table 10: the eight measures, correlated on system means
    assert specs[-1]["measures"] == [
        "string_accuracy",
        "se",
        "bleu3",
        "nist5",
        "rating:adequacy",
        "rating:fluency",
        "identification:identification_accuracy",
        "identification:identification_time",
    ]
    assert specs[3]["factors"] == ["system", "subdomain"]
    assert specs[3]["source"] == "rating"
    config["statistics"]["analyses"] = [
        {
            "id": "x",
            "test": "anova",
            "source": "rating",
            "measure": "identification_time",
        }
    ]
    with pytest.raises(ConfigError, match="adequacy, fluency"):
        analysis_specs(config)
    config["statistics"]["analyses"] = [
        {"id": "x", "test": "anova", "source": "ratings", "measure": "adequacy"}
    ]
    with pytest.raises(ConfigError, match="unknown source 'ratings'"):
        analysis_specs(config)
    config["statistics"]["analyses"] = [
        {"id": "x", "test": "anova", "measure": "bleu3"}
    ]
    with pytest.raises(ConfigError, match="corpus-level"):
        analysis_specs(config)
    config["statistics"]["analyses"] = [
        {"id": "x", "test": "kruskal", "measure": "sse"}
    ]
    with pytest.raises(ConfigError) as info:
        analysis_specs(config)
    assert info.value.field == "statistics.analyses[0].measure"
    # factors may be any column (issue #18): an ANOVA on subdomain alone is fine,
    # a Tukey test still compares systems
    config["statistics"]["analyses"] = [
        {"id": "x", "test": "anova", "measure": "se", "factors": ["subdomain"]}
    ]
    assert analysis_specs(config)[0]["factors"] == ["subdomain"]
    config["statistics"]["analyses"][0]["test"] = "tukey"
    with pytest.raises(ConfigError, match="start with system"):
        analysis_specs(config)
    config["statistics"]["analyses"] = [
        {"id": "x", "test": "anova", "measure": "se", "factors": ["system", "colour"]}
    ]
    with pytest.raises(ConfigError, match="unknown factor 'colour'") as info:
        analysis_specs(config)
    assert info.value.field == "statistics.analyses[0].factors"

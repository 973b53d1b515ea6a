"""The report's situated identification study section (stecflow.studykinds.situated_identification.report).

The inputs are small contract-conforming files written by hand (a judgments
summary, a measures table, the situated_ttests and confusion analysis records)
with numbers chosen so that every figure shown can be checked by hand; the
section is rendered through the report's own template.
"""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from stecflow.report import render_html
from stecflow.report.build import _has_other_studies
from stecflow.report.context import Context
from stecflow.report.human import human_section
from stecflow.report.inputs import read_analyses, read_judgments
from stecflow.studykinds.situated_identification.report import (
    is_situated,
    situated_section,
    situated_studies,
)
from tests.conftest import REPO

TEMPLATE = REPO / "workflow" / "templates" / "report" / "index.html.j2"

MEASURE_COLUMNS = tuple(
    [
        "class",
        "n_evaluators",
        "n_responses",
        "n_correct",
        "n_cant_tell",
        "ir",
        "n_instances",
        "n_majority",
        "mir",
        "agreement_mean",
        "agreement_sd",
        "agreement_n",
        "it_n",
        "it_mean_ms",
        "it_sd_ms",
        "it_correct_n",
        "it_correct_mean_ms",
        "it_correct_sd_ms",
        "n_corrected_excluded",
        "replays_mean",
        "replays_sd",
        "n_replayed",
    ]
)

#: One row per class; IR = 661/680 = 0.972, MIR = 16/20 = 0.800, and so on.
MEASURES = {
    "TP": [34, 680, 661, 3, 661 / 680, 20, 20, 1.0, 0.969, 0.049, 20]
    + [678, 4123.6, 2310.2, 659, 4001.4, 2200.0, 2, 0.412, 0.8, 180],
    "FN": [34, 680, 490, 20, 490 / 680, 20, 16, 0.8, 0.871, 0.172, 16]
    + [679, 5530.2, 3101.9, 489, 5012.5, 2899.4, 1, 0.955, 1.2, 300],
    "FP-Orig": [34, 612, 570, 5, 570 / 612, 36, 32, 32 / 36, 0.969, 0.088, 32]
    + [612, 4500.0, 2000.0, 570, 4400.0, 1900.0, 0, 0.3, 0.6, 120],
    "FP-system": [34, 612, 575, 4, 575 / 612, 36, 34, 34 / 36, 0.926, 0.108, 34]
    + [612, 4700.0, 2100.0, 575, 4600.0, 2000.0, 0, 0.8, 1.1, 310],
}

SYSTEM = "organisers/recency"


def summary(study: str = "situated", **changes: Any) -> dict[str, Any]:
    """A judgments summary as merge_situated_study writes it (contract)."""
    data = {
        "study": study,
        "task": "situated_identification",
        "simulated": True,
        "system": SYSTEM,
        "awaiting_responses": False,
        "counts": {
            "lists_in_design": 36,
            "lists_run": 36,
            "evaluators": 36,
            "discarded": 2,
            "trials": 2584,
            "corrected": 3,
        },
        "discarded": [
            {
                "subject": "s07",
                "session_status": "failed",
                "n_trials": 40,
                "reason": "session failed part-way (system failure)",
            },
            {
                "subject": "s22",
                "session_status": "failed",
                "n_trials": 12,
                "reason": "session failed part-way (system failure)",
            },
        ],
        "corrections": [],
        "identification": [],
        "time": [],
        "replays": [],
        "instances": [],
        "design": {
            "counts": {
                "fp": 36,
                "tp": 20,
                "fn": 20,
                "trials_per_subject": 76,
                "subjects": 36,
                "lists": 36,
            },
            "qualification": {
                "TP": {"n": 200, "qualifying": 150},
                "FP": {"n": 133, "qualifying": 36},
                "FN": {"n": 90, "qualifying": 60},
                "TN": {"n": 400, "qualifying": 300},
            },
            "allocation": [
                {
                    "class": "TP",
                    "stratum": "O1=1|O2=0",
                    "reference_count": 120,
                    "reference_share": 0.6,
                    "quota": 12.0,
                    "ideal": 12,
                    "available": 80,
                    "allocated": 12,
                }
            ],
            "halves": [
                {"stratum": "parallelogram", "half": "A", "n": 7},
                {"stratum": "parallelogram", "half": "B", "n": 8},
                {"stratum": "other", "half": "A", "n": 11},
                {"stratum": "other", "half": "B", "n": 10},
            ],
            "halves_by": "target_shape",
            "features": ["O1", "O2"],
            "trial_budget": 80,
        },
        "intrinsic": {
            "tp": 6,
            "fp": 4,
            "fn": 2,
            "tn": 8,
            "n": 20,
            "precision": 0.6,
            "recall": 0.75,
            "f": 2 * 0.6 * 0.75 / 1.35,
        },
        # rescore_false_positives(ConfusionMatrix(6, 4, 2, 8), tested=4,
        # identified=2).rows(): P (6 + 2) / 10 = 0.8, F = 2·.8·.75/1.55 = 0.774
        "rescored": [
            {
                "version": "corpus",
                "tp": 6,
                "fp": 4,
                "fn": 2,
                "tn": 8,
                "fp_tested": 4,
                "fp_identified": 2,
                "untested": "incorrect",
                "credited": 0,
                "precision": 0.6,
                "recall": 0.75,
                "f": 2 * 0.6 * 0.75 / 1.35,
            },
            {
                "version": "after_extrinsic",
                "tp": 6,
                "fp": 4,
                "fn": 2,
                "tn": 8,
                "fp_tested": 4,
                "fp_identified": 2,
                "untested": "incorrect",
                "credited": 2,
                "precision": 0.8,
                "recall": 0.75,
                "f": 2 * 0.8 * 0.75 / 1.55,
            },
        ],
        "settings": {"majority": "strict", "time_scope": ["all", "correct"]},
    }
    data.update(changes)
    return data


def ttests_record(study: str = "situated") -> dict[str, Any]:
    rows = [
        {
            "measure": "ir",
            "label": "identification rate",
            "level_a": "TP",
            "level_b": "FN",
            "mean_a": 0.9721,
            "mean_b": 0.7206,
            "delta": 0.2515,
            "t": 16.2414,
            "df": 33,
            "p_val": 1e-17,
            "ci_low": 0.22,
            "ci_high": 0.28,
            "dz": 2.7854,
            "alternative": "two-sided",
            "n": 34,
            "n_missing": 0,
            "computable": True,
            "reason": "",
            "text": "t(33) = 16.24, p < .001",
        },
        {
            "measure": "it_mean_ms",
            "label": "identification time (ms)",
            "level_a": "FP-system",
            "level_b": "FP-Orig",
            "mean_a": 4700.4,
            "mean_b": 4500.6,
            "delta": 199.8,
            "t": None,
            "df": None,
            "p_val": None,
            "ci_low": None,
            "ci_high": None,
            "dz": None,
            "alternative": "two-sided",
            "n": 1,
            "n_missing": 33,
            "computable": False,
            "reason": "fewer than 2 evaluators with both classes",
            "text": "",
        },
    ]
    return {
        "id": "situated-ttests",
        "test": "situated_ttests",
        "alpha": 0.05,
        "spec": {"id": "situated-ttests", "test": "situated_ttests", "source": study},
        "settings": {},
        "text": [
            {
                "about": "TP vs FN, identification rate",
                "text": "t(33) = 16.24, p < .001",
            }
        ],
        "rows": rows,
        "simulated": True,
    }


def confusion_record() -> dict[str, Any]:
    return {
        "id": "intrinsic",
        "test": "confusion",
        "alpha": 0.05,
        "spec": {"id": "intrinsic", "test": "confusion"},
        "settings": {},
        "text": [],
        "rows": [],
        "systems": [
            {
                "team": "organisers",
                "system": "recency",
                "label": "recency",
                "tp": 6,
                "fp": 4,
                "fn": 2,
                "tn": 8,
                "n": 20,
                "precision": 0.6,
                "recall": 0.75,
                "f": 2 * 0.6 * 0.75 / 1.35,
            },
            {
                "team": "organisers",
                "system": "logistic",
                "label": "logistic",
                "tp": 7,
                "fp": 1,
                "fn": 1,
                "tn": 11,
                "n": 20,
                "precision": 0.875,
                "recall": 0.875,
                "f": 0.875,
            },
        ],
    }


def write_measures(path: Path, measures: dict[str, list[Any]]) -> None:
    lines = ["\t".join(MEASURE_COLUMNS)]
    for name, values in measures.items():
        lines.append("\t".join([name, *(str(v) for v in values)]))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


CONFIG = {
    "campaign": {"id": "demo-dialogue", "tasks": ["situated_dialogue"]},
    "studies": [
        {
            "id": "situated",
            "title": "Who is that?",
            "task": "situated_identification",
            "systems": [SYSTEM],
            "situated": {"trial_budget": 80, "max_context_ms": 30000},
        }
    ],
}


def make_context(
    tmp_path: Path,
    *,
    summary_data: dict[str, Any] | None = None,
    measures: dict[str, list[Any]] | None = None,
    records: tuple[dict[str, Any], ...] | None = None,
    config: dict[str, Any] = CONFIG,
    extra_studies: tuple[tuple[str, dict[str, Any], list[str]], ...] = (),
) -> Context:
    """A report context reading the hand-written files through the report's readers."""
    (tmp_path / "measures").mkdir(parents=True)
    (tmp_path / "summary").mkdir(parents=True)
    (tmp_path / "stats").mkdir(parents=True)
    write_measures(tmp_path / "measures" / "situated.tsv", measures or MEASURES)
    (tmp_path / "summary" / "situated.json").write_text(
        json.dumps(summary_data or summary()), encoding="utf-8"
    )
    measure_files = [tmp_path / "measures" / "situated.tsv"]
    summary_files = [tmp_path / "summary" / "situated.json"]
    for name, data, lines in extra_studies:
        (tmp_path / "summary" / f"{name}.json").write_text(json.dumps(data))
        (tmp_path / "measures" / f"{name}.tsv").write_text("\n".join(lines) + "\n")
        measure_files.append(tmp_path / "measures" / f"{name}.tsv")
        summary_files.append(tmp_path / "summary" / f"{name}.json")
    stats = []
    for record in (ttests_record(), confusion_record()) if records is None else records:
        path = tmp_path / "stats" / f"{record['id']}.json"
        path.write_text(json.dumps(record), encoding="utf-8")
        stats.append(path)
    studies = [str(s["id"]) for s in config.get("studies") or []]
    return Context(
        config=config,
        metrics={},
        entries=[],
        records={},
        summary=[],
        testset=None,  # type: ignore[arg-type]  # not read by these sections
        analyses=read_analyses(stats, []),
        judgments=read_judgments(measure_files, summary_files, [], studies),
        prefix="demo-dialogue-",
    )


def render(blocks: list[dict[str, Any]]) -> str:
    """The section through the report's template (index.html.j2 and partials)."""
    subsections = [
        {"id": b["id"], "text": b["text"]} for b in blocks if b["kind"] == "h3"
    ]
    document = {
        "title": "t",
        "campaign_id": "demo-dialogue",
        "version": "1",
        "sections": [
            {
                "id": "situated",
                "number": 1,
                "title": "Situated identification study",
                "blocks": blocks,
                "subsections": subsections,
            }
        ],
        "meta": {
            "stecflow_version": "0",
            "snakemake_version": "",
            "config_sha256": "0" * 64,
        },
    }
    return render_html(document, TEMPLATE)


def text_of(html: str) -> str:
    """The visible text, tags dropped, entities decoded, spaces collapsed."""
    body = html.split("<main>", 1)[1]
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", body)))


def table_html(html: str, table_id: str) -> str:
    match = re.search(
        rf'<figure class="table" id="{table_id}">(.*?)</figure>', html, re.S
    )
    assert match, f"no table {table_id}"
    return match.group(1)


def cells(html: str, table_id: str) -> list[list[str]]:
    """Rows of a table as the visible text of their cells."""
    body = table_html(html, table_id).split("<tbody>", 1)[1]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
    return [
        [
            unescape(re.sub(r"<[^>]+>", "", c)).strip()
            for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)
        ]
        for row in rows
    ]


@pytest.fixture
def page(tmp_path) -> str:
    return render(situated_section(make_context(tmp_path)))


def test_tables_7_to_9_show_the_measures_per_class(page):
    t7 = cells(page, "situated-situated-identification")
    assert t7[0] == ["IR", "0.972", "0.721", "0.931", "0.940"]
    assert t7[1] == [
        "(correct / responses)",
        "661/680",
        "490/680",
        "570/612",
        "575/612",
    ]
    assert t7[2] == ["MIR", "1.000", "0.800", "0.889", "0.944"]
    assert t7[3] == ["(majority / instances)", "20/20", "16/20", "32/36", "34/36"]
    assert t7[4][:3] == [
        "Agreement: mean (SD, n)",
        "0.969 (0.049, n = 20)",
        "0.871 (0.172, n = 16)",
    ]
    header = table_html(page, "situated-situated-identification")
    assert ">FP-Orig</th>" in header and ">FP-organisers/recency</th>" in header
    t8 = cells(page, "situated-situated-time")
    assert t8[0] == [
        "IT, all responses",
        "4,124 (2,310)",
        "5,530 (3,102)",
        "4,500 (2,000)",
        "4,700 (2,100)",
    ]
    assert t8[4] == ["Corrected trials excluded", "2", "1", "0", "0"]
    t9 = cells(page, "situated-situated-replays")
    assert t9[0][1] == "0.412 (0.800)"
    assert t9[1][1:] == ["180/680", "300/680", "120/612", "310/612"]


def test_every_table_built_from_responses_is_labelled_simulated(page):
    for table in ("identification", "time", "replays", "rescored"):
        assert "Simulated data" in table_html(page, f"situated-situated-{table}")
    assert "Simulated data" not in table_html(page, "situated-situated-intrinsic")
    text = text_of(page)
    assert "Simulated data. The answers of this study" in text
    assert "Situated study situated: Who is that? (simulated)" in text
    assert (
        "TP vs FN, identification rate: t(33) = 16.24, p < .001 (simulated data)"
        in text
    )


def test_the_intrinsic_evaluation_and_the_confusion_matrix(page):
    rows = cells(page, "situated-situated-intrinsic")
    assert rows[0] == [
        "organisers/recency *",
        "0.600",
        "0.750",
        "0.667",
        "6",
        "4",
        "2",
        "8",
        "20",
    ]
    assert rows[1][0] == "organisers/logistic" and rows[1][1:4] == ["0.875"] * 3
    # the best P, R and F are bold (the logistic model's), as in the LaTeX
    block = table_html(page, "situated-situated-intrinsic")
    assert block.count('best"') == 3 and "<strong>0.875</strong>" in block
    matrix = cells(page, "situated-situated-confusion")
    assert matrix == [
        ["pronoun", "6", "4", "10"],
        ["other", "2", "8", "10"],
        ["Total", "8", "12", "20"],
    ]


def test_the_design_facts(page):
    text = text_of(page)
    assert "Instances qualifying: TP 150 of 200; FP 36 of 133; FN 60 of 90;" in text
    assert "TN 300 of 400 (last mention and last action within 30,000 ms)" in text
    assert "FP instances tested: 36 of 36 qualifying" in text
    assert (
        "20 TP and 20 FN instances, sampled to keep the corpus distribution of O1, O2"
        in text
    )
    assert (
        "FP1 18 and FP2 18, balanced on target_shape: other 11 in FP1 / 10 in FP2;"
        " parallelogram 7 in FP1 / 8 in FP2"
    ) in text
    assert "36 subjects in two groups" in text
    assert "Trials per subject: 76 (budget 80)" in text
    assert (
        "Evaluators: 36 run, 2 discarded (36 of 36 lists run); 2,584 trials kept"
        in text
    )
    assert (
        "Discarded: s07: session failed part-way (system failure) (session failed, 40 trials)"
        in text
    )
    allocation = cells(page, "situated-situated-allocation")
    assert allocation == [["TP", "O1=1|O2=0", "120", "0.600", "12", "80", "12"]]


def test_t_tests_as_the_seed_writes_them(page):
    rows = cells(page, "situated-situated-ttests-situated-ttests")
    assert rows[0] == [
        "identification rate",
        "TP vs FN",
        "0.972",
        "0.721",
        "t(33) = 16.24, p < .001",
        "2.79",
        "34",
    ]
    assert rows[1][1] == "FP-organisers/recency vs FP-Orig"
    assert rows[1][2:5] == [
        "4,700",
        "4,501",
        "not computed: fewer than 2 evaluators with both classes",
    ]
    assert rows[1][5] == "–"


def test_the_rescored_intrinsic_evaluation_side_by_side(page):
    rows = cells(page, "situated-situated-rescored")
    assert rows == [
        ["Corpus matching", "0.600", "0.750", "0.667", "0"],
        ["After the extrinsic study", "0.800", "0.750", "0.774", "2"],
    ]
    text = text_of(page)
    assert (
        "Of the 4 FP instances of organisers/recency, 4 were tested with its"
        " expression; the majority of evaluators identified the referent in 2 of them."
    ) in text
    assert "changes precision from 0.600 to 0.800 and F from 0.667 to 0.774" in text


def test_rescored_as_one_mapping_reads_the_same(tmp_path):
    rows = summary()["rescored"]
    flat = {
        **{k: rows[1][k] for k in ("precision", "recall", "f", "credited")},
        "original": rows[0],
        "fp": 4,
        "fp_tested": 4,
        "fp_identified": 2,
        "untested": "incorrect",
    }
    html = render(
        situated_section(make_context(tmp_path, summary_data=summary(rescored=flat)))
    )
    assert cells(html, "situated-situated-rescored")[1][1:4] == [
        "0.800",
        "0.750",
        "0.774",
    ]


def test_an_empty_class_prints_dashes_not_nan(tmp_path):
    measures = dict(MEASURES)
    measures["FP-system"] = [0, 0, 0, 0, "nan", 0, 0, "nan", "nan", "", 0]
    measures["FP-system"] += [0, "nan", "nan", 0, "nan", "", 0, "nan", "nan", 0]
    data = summary()
    data["rescored"][1]["precision"] = None  # NaN is written as null
    data["rescored"][1]["f"] = None
    html = render(
        situated_section(make_context(tmp_path, summary_data=data, measures=measures))
    )
    assert [r[4] for r in cells(html, "situated-situated-identification")] == [
        "–",
        "0/0",
        "–",
        "0/0",
        "–",
        "0",
        "0",
    ]
    assert cells(html, "situated-situated-time")[0][4] == "–"
    assert cells(html, "situated-situated-replays")[0][4] == "–"
    assert cells(html, "situated-situated-rescored")[1][1:4] == ["–", "0.750", "–"]
    section = html.split("<main>", 1)[1]
    assert not re.search(r"\bnan\b|\bNone\b", section, re.I)


def test_awaiting_responses_shows_the_design_only(tmp_path):
    data = summary(awaiting_responses=True, simulated=False, counts={}, rescored=None)
    ctx = make_context(tmp_path, summary_data=data, records=(confusion_record(),))
    html = render(situated_section(ctx))
    text = text_of(html)
    assert "Awaiting responses." in text
    assert "situated-situated-intrinsic" in html and "Trials per subject: 76" in text
    for absent in ("identification", "time", "replays", "rescored"):
        assert f'id="situated-situated-{absent}"' not in html
    assert "simulated" not in text.lower()


def test_intrinsic_falls_back_to_the_design_without_a_confusion_analysis(tmp_path):
    ctx = make_context(tmp_path, records=(ttests_record(),))
    html = render(situated_section(ctx))
    rows = cells(html, "situated-situated-intrinsic")
    assert rows == [
        ["organisers/recency *", "0.600", "0.750", "0.667", "6", "4", "2", "8", "20"]
    ]
    assert "from the study's design" in text_of(html)


def test_reg_studies_keep_their_section_and_situated_ones_leave_it(tmp_path):
    reg = {"study": "rate", "task": "rating", "simulated": False}
    lines = [
        "study\tsystem\tsubdomain\tadequacy_mean\tadequacy_sd",
        "rate\tA\tall\t0.5\t0.1",
    ]
    config = {
        "studies": [
            *CONFIG["studies"],
            {"id": "rate", "task": "rating", "systems": ["A"]},
        ]
    }
    ctx = make_context(tmp_path, config=config, extra_studies=(("rate", reg, lines),))
    assert [is_situated(ctx, s) for s in ctx.judgments] == [True, False]
    assert situated_studies(ctx) == ["situated"]
    human = human_section(ctx)
    assert [b["text"] for b in human if b["kind"] == "h3"] == ["Study rate (rating)"]
    assert _has_other_studies(config, ctx, ["situated"])
    assert not _has_other_studies(CONFIG, make_context(tmp_path / "b"), ["situated"])


def test_a_configured_study_without_judgments_is_a_placeholder(tmp_path):
    ctx = make_context(tmp_path)
    ctx.judgments.clear()
    assert situated_studies(ctx) == ["situated"]
    text = text_of(render(situated_section(ctx)))
    assert "Awaiting judgments." in text
    assert situated_section(make_context(tmp_path / "b", config={"studies": []})) != []
    empty = make_context(tmp_path / "c", config={"studies": []})
    empty.judgments.clear()
    assert situated_section(empty) == []


def test_statistics_section_points_to_the_situated_section(tmp_path):
    from stecflow.report.statistics import statistics_section

    ctx = make_context(tmp_path)
    blocks = statistics_section(ctx)
    assert [b["text"] for b in blocks if b["kind"] == "h3"] == [
        "Paired t-tests of the situated study: study situated (situated-ttests)",
        "Intrinsic evaluation of the pronoun class (intrinsic)",
    ]
    assert not [b for b in blocks if b["kind"] == "table"]  # tables: own section
    text = text_of(render(blocks))
    assert "TP vs FN, identification rate: t(33) = 16.24, p < .001" in text
    assert "Shown with the study's tables under Situated identification study" in text
    html = render(blocks)
    assert 'href="#situated-situated"' in html and 'href="#situated"' in html


def test_a_confusion_record_names_its_systems_in_the_methods(tmp_path):
    ctx = make_context(tmp_path)
    entry = confusion_record()["systems"][0]
    assert ctx.display(entry) == "organisers/recency"
    assert ctx.display({"system": "recency"}) == "recency"


def test_an_analysis_of_the_scores_links_to_a_section_that_exists(tmp_path):
    """A confusion analysis reads the scores (source: scores): its link goes to
    the situated section, never to a "#situated-scores" that no section has."""
    from stecflow.report.pairwise_tables import situated_blocks

    def hrefs(blocks):
        text = json.dumps(blocks)
        return re.findall(r'"href": "([^"]+)"', text)

    ctx = make_context(tmp_path)
    for source, href in (("scores", "#situated"), ("situated", "#situated-situated")):
        assert hrefs(situated_blocks(ctx, {"spec": {"source": source}}, [], "x")) == [
            href
        ]
    empty = make_context(tmp_path / "none", config={"studies": []})
    empty.judgments.clear()
    assert hrefs(situated_blocks(empty, {"spec": {"source": "scores"}}, [], "x")) == []

"""The campaign report: numbers, escaping, determinism, offline, downloads.

The inputs are real: the workflow runs once per session on a copy of
tests/fixtures/tiny_campaign up to the report's inputs (validation, scores,
statistics), and each test renders the report from them with the library.
"""

from __future__ import annotations

import base64
import copy
import csv
import hashlib
import io
import json
import re
import runpy
import shutil
from html import unescape as html_unescape
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import unquote

import pytest
import yaml

from stecflow.core.io import (
    read_json,
    read_tsv,
    write_json,
    write_json_lines,
    write_tsv,
)
from stecflow.report import render_report
from stecflow.report.formatting import fixed, latex_escape
from stecflow.report.svg import IntervalPoint, ScatterPoint, interval_plot, scatter_plot
from stecflow.report.tables import Cell, Column, Row, Table
from tests.conftest import REPO, TINY, python_stdout
from tests.workflow.helpers import snakemake

TEMPLATE = REPO / "workflow" / "templates" / "report" / "index.html.j2"
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"

# ---------------------------------------------------------------------------
# helpers (also used by tests/browser/test_report_browser.py)


def load_config(campaign: Path) -> dict[str, Any]:
    """The campaign's config as Snakemake sees it: schema defaults filled in."""
    from snakemake.utils import validate

    config = yaml.safe_load((campaign / "config" / "config.yaml").read_text())
    validate(config, schema=str(SCHEMA), set_default=True)
    return config


def report_inputs(campaign: Path) -> dict[str, Any]:
    """Run the workflow up to the report's inputs; return render_report's kwargs.

    Only the report's inputs are requested, so the test does not depend on the
    report rule being part of the Snakefile, nor on the other stages.
    """
    from stecflow.analysis.specs import analysis_specs

    config = load_config(campaign)
    analyses = [spec["id"] for spec in analysis_specs(config)]
    stats = [f"results/stats/{a}.{ext}" for a in analyses for ext in ("json", "tsv")]
    studies = [str(s["id"]) for s in config.get("studies") or []]
    judgments = {
        kind: [f"results/judgments/{kind}/{s}.{ext}" for s in studies]
        for kind, ext in (("measures", "tsv"), ("summary", "json"), ("quality", "tsv"))
    }
    snakemake(
        campaign,
        "results/data/testset.xml",
        "results/validation/summary.tsv",
        "results/scores/systems.tsv",
        *stats,
        *(path for paths in judgments.values() for path in paths),
    )
    results = campaign / "results"
    return {
        "config": config,
        "validation_summary": results / "validation" / "summary.tsv",
        "validation_records": sorted((results / "validation").glob("*/*.json")),
        "systems": results / "scores" / "systems.tsv",
        "testset": results / "data" / "testset.xml",
        "source_testset": campaign / config["data"]["testset"],
        "stats_records": [results / "stats" / f"{a}.json" for a in analyses],
        "stats_tables": [results / "stats" / f"{a}.tsv" for a in analyses],
        "judgment_measures": [campaign / p for p in judgments["measures"]],
        "judgment_summaries": [campaign / p for p in judgments["summary"]],
        "judgment_quality": [campaign / p for p in judgments["quality"]],
        "template": TEMPLATE,
    }


def table_csv(html: str, table_id: str) -> list[list[str]]:
    """The CSV download of one table, decoded from its data: URI."""
    block = html.split(f'id="{table_id}"', 1)[1]
    uri = re.search(r'class="csv" download="[^"]+" href="([^"]+)"', block).group(1)
    assert uri.startswith("data:text/csv;charset=utf-8,")
    text = unquote(html_unescape(uri).split(",", 1)[1])
    return list(csv.reader(io.StringIO(text)))


def table_latex(html: str, table_id: str) -> str:
    """The LaTeX download of one table."""
    block = html.split(f'id="{table_id}"', 1)[1]
    uri = re.search(r'class="latex" download="[^"]+" href="([^"]+)"', block).group(1)
    return unquote(html_unescape(uri).split(",", 1)[1])


SCRIPT = TEMPLATE.parent / "sort.js"


def own_script_removed(html: str) -> str:
    """The page without its one inline script, which must be ``sort.js`` as is."""
    script = "<script>" + SCRIPT.read_text(encoding="utf-8") + "</script>"
    assert html.count("<script") == 1 and html.count(script) == 1
    return html.replace(script, "")


def system_rows(systems_tsv: Path) -> dict[tuple[str, str, str, str], dict]:
    """systems.tsv rows by (system, metric, subset_kind, subset)."""
    return {
        (r["system"], r["metric"], r["subset_kind"], r["subset"]): r
        for r in read_tsv(systems_tsv)
        if r["status"] == "scored"
    }


# ---------------------------------------------------------------------------
# fixtures


@pytest.fixture(scope="session")
def tiny_inputs(tmp_path_factory) -> dict[str, Any]:
    """The tiny campaign run once up to the report's inputs."""
    campaign = tmp_path_factory.mktemp("report") / "campaign"
    shutil.copytree(TINY, campaign)
    return report_inputs(campaign)


@pytest.fixture(scope="session")
def tiny_html(tiny_inputs, tmp_path_factory) -> str:
    """The report of the tiny campaign."""
    out = tmp_path_factory.mktemp("html") / "index.html"
    return render_report(**tiny_inputs, out_html=out, snakemake_version="9.0.0")


def copy_inputs(inputs: dict[str, Any], target: Path) -> dict[str, Any]:
    """Copy a campaign's results (and test set) elsewhere; kwargs pointing there."""
    results = Path(inputs["systems"]).parents[1]
    shutil.copytree(results, target / "results")
    shutil.copy(inputs["source_testset"], target / Path(inputs["source_testset"]).name)
    moved = dict(inputs)
    for key in ("validation_summary", "systems", "testset"):
        moved[key] = target / "results" / Path(inputs[key]).relative_to(results)
    for key in (
        "validation_records",
        "stats_records",
        "stats_tables",
        "judgment_measures",
        "judgment_summaries",
        "judgment_quality",
    ):
        moved[key] = [
            target / "results" / Path(p).relative_to(results) for p in inputs[key]
        ]
    moved["source_testset"] = target / Path(inputs["source_testset"]).name
    return moved


# ---------------------------------------------------------------------------
# numbers as intended


def test_scores_are_formatted_and_scaled(tiny_inputs, tiny_html):
    rows = system_rows(tiny_inputs["systems"])
    se = rows[("sys1", "se", "all", "all")]
    bleu = rows[("sys1", "bleu3", "all", "all")]
    acc = rows[("sys1", "string_accuracy", "all", "all")]
    expected_se = fixed(float(se["value"]))
    expected_bleu = fixed(float(bleu["value"]) / 100)  # sacreBLEU 0-100 -> 0-1
    expected_acc = fixed(float(acc["value"]) * 100)  # proportion -> %
    table = table_csv(tiny_html, "scores-main")
    header, body = table[0], table[1:]
    assert header[:5] == ["system", "team", "rank", "reference_set", "late"]
    sys1 = next(r for r in body if r[0] == "sys1")
    cell = dict(zip(header, sys1, strict=True))
    assert cell["se"] == expected_se
    assert cell["se_ci_low"] == fixed(float(se["ci_low"]))
    assert cell["se_ci_high"] == fixed(float(se["ci_high"]))
    assert cell["bleu3"] == expected_bleu
    assert cell["string_accuracy"] == expected_acc
    assert cell["rank"] == "1"
    # per subdomain columns, seed 001 Table 5 layout
    people = rows[("sys1", "se", "subdomain", "people")]
    assert cell["people_se"] == fixed(float(people["value"]))
    # the HTML shows value and CI as "2.38" + "[1.12, 3.75]"
    ci = f"[{fixed(float(se['ci_low']))}, {fixed(float(se['ci_high']))}]"
    assert f'>{expected_se}<span class="ci">{ci}</span>' in tiny_html


def test_late_systems_are_marked_and_not_ranked(tiny_html):
    body = table_csv(tiny_html, "scores-main")[1:]
    sys2 = next(r for r in body if r[0] == "sys2")
    assert sys2[2] == "" and sys2[4] == "true"  # no rank, late
    assert [r[0] for r in body] == ["sys1", "sys2"]  # late ones after the ranking
    main = tiny_html.split('id="scores-main"', 1)[1].split("</figure>", 1)[0]
    assert "not in the official ranking" in main
    assert "sys2 †" in main


def test_signatures_are_listed_once_per_metric(tiny_inputs, tiny_html):
    signatures = {
        r["metric"]: r["signature"]
        for r in read_tsv(tiny_inputs["systems"])
        if r["status"] == "scored"
    }
    for signature in signatures.values():
        assert signature in tiny_html
    section = tiny_html.split('id="scores-signatures"', 1)[1].split("<h3", 1)[0]
    assert section.count("<code>") == len(signatures)


def test_statistics_are_written_as_the_seed_writes_them(tiny_inputs, tiny_html):
    anova = json.loads(Path(tiny_inputs["stats_records"][0]).read_text())
    assert anova["test"] == "anova"
    text = anova["text"][0]["text"]  # e.g. "F(1, 6) = 0.00, p = 1.000"
    assert f"main effect of SYSTEM on SE ({text}, ηp² = " in tiny_html
    table = table_csv(tiny_html, "stats-se-anova")
    assert table[0] == ["source", "ss", "df", "ms", "f", "p", "np2"]
    assert [r[0] for r in table[1:]] == ["SYSTEM", "Error"]
    kruskal = next(
        json.loads(Path(p).read_text())
        for p in tiny_inputs["stats_records"]
        if "kruskal" in str(p)
    )
    for entry in kruskal["text"]:
        assert entry["text"] in tiny_html  # "χ²(1) = …" or "not computable (…)"
    letters = table_csv(tiny_html, "stats-se-tukey")
    assert letters[0][:2] == ["system", "mean"]
    assert {r[0] for r in letters[1:]} == {"sys1", "sys2"}
    assert all(r[2] == "A" for r in letters[1:])  # one homogeneous subset


def test_rejected_submission_lists_every_error_with_a_link(tiny_inputs, tiny_html):
    record = json.loads(
        next(
            p for p in tiny_inputs["validation_records"] if "gamma" in str(p)
        ).read_text()
    )
    assert record["status"] == "rejected"
    errors = table_csv(tiny_html, "rejected-gamma-broken")
    assert len(errors) - 1 == record["n_errors"] == len(record["errors"])
    assert [r[4] for r in errors[1:]] == [e["message"] for e in record["errors"]]
    assert 'href="../validation/gamma/broken.md"' in tiny_html
    participants = table_csv(tiny_html, "participants")
    gamma = next(r for r in participants[1:] if r[0] == "gamma")
    assert gamma[6:8] == ["rejected", "../validation/gamma/broken.md"]
    assert gamma[8].startswith("gamma/broken/")  # the first error


def test_overview_has_test_set_sizes(tiny_html):
    table = table_csv(tiny_html, "testset")
    assert table[0] == ["subdomain", "+LOC", "-LOC", "total"]
    assert table[-1][0] == "Total" and table[-1][-1] == "4"
    assert "Tiny test campaign" in tiny_html


def test_methods_and_provenance(tiny_inputs, tiny_html):
    from stecflow.report.inputs import config_sha256, file_sha256

    assert config_sha256(tiny_inputs["config"]) in tiny_html
    assert "scoring.bootstrap.seed = 11" in tiny_html
    assert "200 resamples" in tiny_html
    assert "Snakemake</dt><dd>9.0.0" in tiny_html
    assert file_sha256(tiny_inputs["source_testset"]) in tiny_html
    checksums = table_csv(tiny_html, "checksums")
    files = {r[1]: r[2] for r in checksums[1:]}
    assert files["scores/systems.tsv"] == file_sha256(tiny_inputs["systems"])
    record = json.loads(Path(tiny_inputs["validation_records"][0]).read_text())
    for name, digest in record["checksums"].items():
        assert files[f"{record['team']}/{record['system']}/{name}"] == digest
    metrics = table_csv(tiny_html, "metrics")
    assert "multi_ref = any" in {r[0]: r[6] for r in metrics[1:]}["string_accuracy"]


# ---------------------------------------------------------------------------
# safety: escaping, offline, determinism


def test_participant_text_is_escaped(tiny_inputs, tmp_path):
    inputs = copy_inputs(tiny_inputs, tmp_path)
    evil = '<script>alert(1)</script>"><img src=x onerror=alert(2)>'
    path = next(p for p in inputs["validation_records"] if "alpha" in str(p))
    record = json.loads(path.read_text())
    record["metadata"]["description"] = evil
    write_json(record, path)
    broken = next(p for p in inputs["validation_records"] if "gamma" in str(p))
    record = json.loads(broken.read_text())
    record["errors"][0]["message"] = "<b onmouseover=alert(3)>bad</b>"
    write_json(record, broken)
    html = own_script_removed(render_report(**inputs, out_html=tmp_path / "index.html"))
    assert "<script" not in html
    assert "<img" not in html and "<b onmouseover" not in html
    assert (
        "&lt;script&gt;alert(1)&lt;/script&gt;&#34;&gt;&lt;img src=x onerror=alert(2)&gt;"
        in html
    )
    assert "&lt;b onmouseover=alert(3)&gt;bad&lt;/b&gt;" in html
    # the CSV carries the text as it is (a CSV is not HTML)
    participants = table_csv(html, "participants")
    assert evil in {r[1]: r[2] for r in participants[1:]}.values()


EXTERNAL = re.compile(
    r"""(?:src|href|action|xlink:href|srcset|poster|data)\s*=\s*["']?\s*(?:https?:|//|ftp:)"""
    r"|@import|url\(|<script|<link|<iframe|<object|<embed|<base",
    re.IGNORECASE,
)


def test_report_is_self_contained(tiny_html):
    page = own_script_removed(tiny_html)
    assert EXTERNAL.search(page) is None, EXTERNAL.search(page)
    assert "http://" not in tiny_html and "https://" not in tiny_html
    policy = re.search(
        r'http-equiv="Content-Security-Policy" content="([^"]+)"', tiny_html
    )
    assert "default-src 'none'" in policy.group(1)
    # the one script runs by its hash; no other script, no eval, no fetch
    digest = hashlib.sha256(SCRIPT.read_bytes()).digest()
    allowed = f"script-src 'sha256-{base64.b64encode(digest).decode()}'"
    assert allowed + ";" in policy.group(1)
    assert not re.search(
        r"fetch|XMLHttpRequest|eval|import\(|https?:", SCRIPT.read_text()
    )
    # every link is relative, in-page or a data: download
    for href in re.findall(r'href="([^"]*)"', tiny_html):
        assert href.startswith(("#", "../validation/", "data:")), href


def test_same_inputs_same_bytes(tiny_inputs, tmp_path):
    first = render_report(**tiny_inputs, out_html=tmp_path / "a.html")
    second = render_report(**tiny_inputs, out_html=tmp_path / "b.html")
    assert (tmp_path / "a.html").read_bytes() == (tmp_path / "b.html").read_bytes()
    assert first == second
    # the same files elsewhere on disk: no absolute paths leak into the page
    moved = copy_inputs(tiny_inputs, tmp_path / "elsewhere")
    third = render_report(**moved, out_html=tmp_path / "c.html")
    assert third == first
    for leak in (str(tmp_path), str(Path(tiny_inputs["systems"]).parents[2]), "/tmp/"):
        assert leak not in first


def test_importing_the_report_is_light():
    out = python_stdout("import stecflow.report, sys; print(' '.join(sys.modules))")
    out = out.split()
    assert not {m.split(".")[0] for m in out} & {"pandas", "scipy", "snakemake"}


def test_rendering_the_report_loads_no_statistics_library(tiny_inputs, tmp_path):
    """The report formats what the analyses wrote (ANOVA, Tukey letters): making it
    loads neither pandas nor SciPy, a third of a second of its job's start-up."""
    code = (
        "import json, sys\n"
        "from stecflow.report import render_report\n"
        "kwargs = json.load(sys.stdin)\n"
        "render_report(**kwargs)\n"
        "print(' '.join(sys.modules))"
    )
    kwargs = {**tiny_inputs, "out_html": tmp_path / "index.html"}
    out = python_stdout(code, stdin=json.dumps(kwargs, default=str)).split()
    assert not {m.split(".")[0] for m in out} & {"pandas", "scipy", "statsmodels"}
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert 'id="stats-se-tukey"' in html and 'id="stats-se-anova"' in html


# ---------------------------------------------------------------------------
# missing scores, unreadable folders, human data


def test_skipped_metric_shows_a_dash_and_the_reason(tiny_inputs, tmp_path):
    inputs = copy_inputs(tiny_inputs, tmp_path)
    rows = read_tsv(inputs["systems"])
    columns = list(rows[0])
    reason = "the outputs have no word strings (4 of 4 items)"
    kept = [r for r in rows if not (r["system"] == "sys1" and r["metric"] == "bleu3")]
    template = next(r for r in rows if r["system"] == "sys1" and r["metric"] == "bleu3")
    skipped = {
        **{k: "" for k in columns},
        **{
            k: template[k]
            for k in ("team", "system", "reference_set", "late", "primary")
        },
        "status": "skipped",
        "metric": "bleu3",
        "metric_name": "BLEU-3",
        "subset_kind": "all",
        "subset": "all",
        "reason": reason,
    }
    write_tsv([*kept, skipped], columns, inputs["systems"])
    html = render_report(**inputs, out_html=tmp_path / "index.html")
    sys1 = next(r for r in table_csv(html, "scores-main")[1:] if r[0] == "sys1")
    header = table_csv(html, "scores-main")[0]
    assert dict(zip(header, sys1, strict=True))["bleu3"] == ""
    assert f'title="{reason}"' in html
    assert f"– sys1: BLEU not computed: {reason}." in html
    quality = table_csv(html, "skipped-metrics")
    assert quality[1] == ["sys1", "BLEU", reason]


def test_subsets_without_scores_get_no_columns(tiny_inputs, tmp_path):
    # scoring leaves out a lone subdomain (b5-ref: people only), as it equals "all"
    inputs = copy_inputs(tiny_inputs, tmp_path)
    rows = read_tsv(inputs["systems"])
    kept = [r for r in rows if r["subset_kind"] != "subdomain"]
    write_tsv(kept, list(rows[0]), inputs["systems"])
    html = render_report(**inputs, out_html=tmp_path / "index.html")
    header = table_csv(html, "scores-main")[0]
    assert "se" in header and not any(h.startswith("people_") for h in header)
    main = html.split('id="scores-main"', 1)[1].split("</figure>", 1)[0]
    assert "All test data (n = 4)" in main and "People (n = " not in main


def test_unreadable_folders_are_listed(tiny_inputs, tmp_path):
    inputs = copy_inputs(tiny_inputs, tmp_path)
    rows = read_tsv(inputs["validation_summary"])
    columns = list(rows[0])
    rows.append(
        {
            **{k: "" for k in columns},
            "team": "stray.txt",
            "status": "unreadable",
            "first_error": "stray.txt: a file where a team folder was expected",
        }
    )
    write_tsv(rows, columns, inputs["validation_summary"])
    html = render_report(**inputs, out_html=tmp_path / "index.html")
    assert table_csv(html, "unreadable")[1] == [
        "stray.txt",
        "stray.txt: a file where a team folder was expected",
    ]
    assert "1 unreadable" in html


def test_human_sections_are_placeholders_until_judgments_exist(tiny_inputs, tmp_path):
    empty = {"judgment_measures": [], "judgment_summaries": [], "judgment_quality": []}
    html = render_report(**{**tiny_inputs, **empty}, out_html=tmp_path / "a.html")
    assert "Human evaluation: waiting for judgments" in html
    assert "No judgments yet. Outliers" in html


@pytest.fixture(scope="session")
def judgments(tmp_path_factory) -> dict[str, list[Path]]:
    """The judgments stage's files for two small studies (rating, identification)."""
    try:
        from stecflow.judgments import merge_study
    except ImportError:  # pragma: no cover - the judgments stage is not there
        pytest.skip("stecflow.judgments is not available")
    fixtures = REPO / "tests" / "fixtures" / "judgments"
    out = tmp_path_factory.mktemp("judgments")
    files: dict[str, list[Path]] = {"measures": [], "summaries": [], "quality": []}
    for study, design, answers, task in (
        ("rate-demo", "design_rate.tsv", "rating_export.tsv", "rating"),
        ("id-demo", "design_id.tsv", "server_export.tsv", "identification"),
    ):
        paths = {
            "measures": out / "measures" / f"{study}.tsv",
            "summaries": out / "summary" / f"{study}.json",
            "quality": out / "quality" / f"{study}.tsv",
        }
        merge_study(
            fixtures / design,
            [fixtures / answers],
            None,
            fixtures / "testset.xml",
            out_judgments_tsv=out / f"{study}.tsv",
            out_quality_tsv=paths["quality"],
            out_summary_json=paths["summaries"],
            out_measures_tsv=paths["measures"],
            study=study,
            task=task,
        )
        for key, path in paths.items():
            files[key].append(path)
    return files


def test_human_results_render_from_the_judgments_stage(
    tiny_inputs, judgments, tmp_path
):
    html = render_report(
        **{
            **tiny_inputs,
            "judgment_measures": judgments["measures"],
            "judgment_summaries": judgments["summaries"],
            "judgment_quality": judgments["quality"],
        },
        out_html=tmp_path / "index.html",
    )
    assert "waiting for judgments" not in html
    measures = {
        (r["study"], r["system"], r["subdomain"]): r
        for path in judgments["measures"]
        for r in read_tsv(path)
    }
    rating = table_csv(html, "human-rate-demo")
    assert rating[0][:7] == [
        "system",
        "rank",
        "primary",
        "adequacy_mean",
        "adequacy_sd",
        "fluency_mean",
        "fluency_sd",
    ]
    adequacy = [
        float(measures[("rate-demo", r[0], "all")]["adequacy_mean"]) for r in rating[1:]
    ]
    assert adequacy == sorted(adequacy, reverse=True)  # Table 6 order
    first = measures[("rate-demo", rating[1][0], "all")]
    assert rating[1][3] == fixed(float(first["adequacy_mean"]))
    # ranked by adequacy, the best adequacy and fluency named in the best column
    assert [r[1] for r in rating[1:]] == [
        str(1 + sum(a > b for a in adequacy)) for b in adequacy
    ]
    fluency = [float(r[5]) for r in rating[1:]]
    for row, value in zip(rating[1:], fluency, strict=True):
        best = row[-1].split()
        assert ("adequacy_mean" in best) == (row[1] == "1")
        assert ("fluency_mean" in best) == (value == max(fluency))
    ident = table_csv(html, "human-id-demo")
    assert ident[0][:6] == [
        "system",
        "rank",
        "primary",
        "accuracy",
        "identification_time_mean",
        "identification_time_sd",
    ]
    row = measures[("id-demo", ident[1][0], "all")]
    assert ident[1][3] == fixed(float(row["accuracy"]))
    # the outlier sentence of the summary, and data quality per study
    summary = json.loads(judgments["summaries"][1].read_text())
    sentence = summary["outliers"]["measures"]["identification_time_ms"]["text"]
    assert html_unescape(sentence) in html_unescape(html)
    overview = table_csv(html, "judgments-overview")
    assert overview[0][:3] == ["study", "simulated", "rows"]
    assert {r[0] for r in overview[1:]} == {"rate-demo", "id-demo"}
    checks = table_csv(html, "judgments-checks-id-demo")
    assert ["partial_session", "warning", "1"] in checks
    problems = table_csv(html, "judgments-quality-id-demo")
    assert len(problems) - 1 == len(read_tsv(judgments["quality"][1]))
    assert str(REPO) not in html and str(REPO.parent) not in html  # file names only
    assert "Adequacy vs Fluency" in html  # scatter plots between human measures


def test_simulated_judgments_are_labelled(tiny_inputs, judgments, tmp_path):
    summary = json.loads(judgments["summaries"][0].read_text())
    summary["simulated"] = True
    write_json(summary, tmp_path / "rate-demo.json")
    html = render_report(
        **{
            **tiny_inputs,
            "judgment_measures": judgments["measures"][:1],
            "judgment_summaries": [tmp_path / "rate-demo.json"],
            "judgment_quality": [],
        },
        out_html=tmp_path / "index.html",
    )
    assert "<strong>Simulated data.</strong>" in html
    assert table_csv(html, "judgments-overview")[1][:2] == ["rate-demo", "yes"]


# ---------------------------------------------------------------------------
# tables, figures, adapter


def test_table_csv_and_latex():
    table = Table(
        "scores",
        "Scores & more",
        [
            Column("system", "System", align="l"),
            Column("se", "SE", group="All", csv=("se", "se_lo", "se_hi")),
            Column("bleu", "BLEU", group="All"),
        ],
        [
            Row(
                (
                    Cell("A_1"),
                    Cell("6.41", "[5.90, 6.95]", ("6.41", "5.90", "6.95")),
                    Cell("0.47"),
                )
            ),
            Row(heading="Late submissions"),
            Row((Cell("B †"), Cell("–", csv=("", "", "")), Cell("0.20"))),
        ],
        ["† late"],
        latex_detail=True,
        detail_note="Second line: CI.",
    )
    assert table.to_csv() == (
        "system,se,se_lo,se_hi,bleu\nA_1,6.41,5.90,6.95,0.47\nB †,,,,0.20\n"
    )
    latex = table.to_latex()
    assert r"\begin{tabular}{lrr}" in latex
    assert r"\multicolumn{2}{c}{All}" in latex and r"\cmidrule(lr){2-3}" in latex
    assert r"A\_1 & 6.41 {\footnotesize [5.90, 6.95]} & 0.47 \\" in latex
    assert r"\multicolumn{3}{l}{\emph{Late submissions}} \\" in latex
    assert r"B \textdagger{} & -- & 0.20 \\" in latex
    assert r"\caption{Scores \& more Second line: CI. \textdagger{} late.}" in latex
    assert latex.count(r"\toprule") == latex.count(r"\bottomrule") == 1
    assert latex_escape("50% #1 {x}") == r"50\% \#1 \{x\}"


def test_table_csv_neutralises_free_text_columns_only():
    table = Table(
        "t",
        "c",
        [
            Column("system", "System", align="l"),
            Column("description", "Description", align="l"),
            Column("subset", "Subset", align="l", csv=("subset_kind", "subset")),
            Column("delta", "Difference"),
        ],
        [
            Row(
                (
                    Cell("+team/sys"),
                    Cell('=HYPERLINK("http://x","y")'),
                    Cell("+LOC", csv=("condition", "+LOC")),
                    Cell("-0.37"),
                )
            ),
            Row((Cell("A"), Cell("@me\u2028-you"), Cell("-LOC"), Cell("+1"))),
        ],
    )
    assert list(csv.reader(io.StringIO(table.to_csv()))) == [
        ["system", "description", "subset_kind", "subset", "delta"],
        ["'+team/sys", '\'=HYPERLINK("http://x","y")', "condition", "+LOC", "-0.37"],
        ["A", "'@me\u2028-you", "-LOC", "", "+1"],
    ]
    assert "'" not in table.to_latex()


def test_report_tables_download_as_latex(tiny_html):
    latex = table_latex(tiny_html, "scores-main")
    assert latex.startswith("% needs \\usepackage{booktabs}")
    assert "\\toprule" in latex and "\\bottomrule" in latex
    assert "sys1" in latex and "sys2 \\textdagger{}" in latex
    assert "Second line" not in latex  # no CIs in this LaTeX table, so no note
    assert "Second line: 95% percentile bootstrap" in tiny_html
    every = table_latex(tiny_html, "scores-text")
    assert "Second line: 95\\% percentile bootstrap" in every
    assert "{\\footnotesize [" in every
    assert 'download="tiny-scores-main.csv"' in tiny_html


def test_figures_are_inline_svg(tiny_html):
    assert tiny_html.count("<svg") >= 4
    assert 'id="figure-se"' in tiny_html
    svg = scatter_plot(
        [
            ScatterPoint("H<1>", 1.0, 1.0),
            ScatterPoint("H2", 1.0, 1.0),
            ScatterPoint("S", 2, 3),
        ],
        x_label="x",
        y_label="y",
        title="t",
    )
    assert "H&lt;1&gt;, H2" in svg  # coincident points share one label
    plot = interval_plot(
        [IntervalPoint("A", None), IntervalPoint("B", 2.0, 1.5, 2.5, "late")],
        title="SE",
        axis_label="SE",
    )
    assert "not computed" in plot and 'fill="#ffffff"' in plot


def test_adapter_calls_the_library(tiny_inputs, tmp_path):
    main = runpy.run_path(str(REPO / "workflow" / "scripts" / "render_report.py"))[
        "main"
    ]
    out = tmp_path / "index.html"
    from stecflow.data.compact import write_compact
    from stecflow.tasks.registry import read_testset

    compact = tmp_path / "testset.compact.json"
    write_compact(read_testset(tiny_inputs["testset"]), compact)
    no_submissions = tmp_path / "submissions.html"  # no item scores: no section
    no_submissions.write_text("")
    # the records as the rule gives them: all in validation/records.jsonl
    records = tmp_path / "records.jsonl"
    write_json_lines(map(read_json, tiny_inputs["validation_records"]), records)
    main(
        SimpleNamespace(
            input=SimpleNamespace(
                summary=str(tiny_inputs["validation_summary"]),
                records=str(records),
                systems=str(tiny_inputs["systems"]),
                stats=[str(p) for p in tiny_inputs["stats_records"]],
                stats_tables=[str(p) for p in tiny_inputs["stats_tables"]],
                testset=str(tiny_inputs["testset"]),
                # the items as the rule gives them: the compact form
                testset_items=str(compact),
                source_testset=str(tiny_inputs["source_testset"]),
                judgment_measures=[str(p) for p in tiny_inputs["judgment_measures"]],
                judgment_summaries=[str(p) for p in tiny_inputs["judgment_summaries"]],
                judgment_quality=[str(p) for p in tiny_inputs["judgment_quality"]],
                template=str(TEMPLATE),
                submissions=str(no_submissions),
            ),
            output=SimpleNamespace(html=str(out)),
            params=SimpleNamespace(
                config=tiny_inputs["config"], snakemake_version="9.9.9"
            ),
            log=[str(tmp_path / "render.log")],
        )
    )
    assert "Snakemake 9.9.9" in out.read_text()
    assert "report: 7 sections" in (tmp_path / "render.log").read_text()
    # the same page as from the XML test set and each record's own file (as
    # `stecflow rerun` gives them): the checksum is still the XML's
    same = render_report(
        **tiny_inputs, out_html=tmp_path / "xml.html", snakemake_version="9.9.9"
    )
    assert out.read_text() == same


# ---------------------------------------------------------------------------
# versions and changes


def test_first_version_is_said_and_version_shown(tiny_html):
    assert "<title>Tiny test campaign · version 1</title>" in tiny_html
    assert 'id="changes">First version</h3>' in tiny_html
    assert "<dt>Version</dt><dd>1</dd>" in tiny_html


def test_changes_since_the_previous_release(tiny_inputs, tmp_path):
    from stecflow.release.archive import build_release

    previous = tmp_path / "release" / "tiny-1.zip"
    build_release(
        tiny_inputs["config"],
        validation_records=[],
        submissions_root=tmp_path,
        files={
            "validation/summary.tsv": tiny_inputs["validation_summary"],
            "scores/systems.tsv": tiny_inputs["systems"],
        },
        out_zip=previous,
    )
    moved = copy_inputs(tiny_inputs, tmp_path / "v2")
    rows = read_tsv(moved["systems"])
    row = next(r for r in rows if r["status"] == "scored" and r["subset_kind"] == "all")
    old = row["value"]
    row["value"] = str(float(old) + 1)
    write_tsv(rows, list(rows[0]), moved["systems"])
    summary = read_tsv(moved["validation_summary"])
    summary.append(dict(summary[0], team="new<team>", system="x"))
    write_tsv(summary, list(summary[0]), moved["validation_summary"])
    config = json.loads(json.dumps(moved["config"]))
    config["campaign"]["version"] = "2"
    config["report"] = {"changes": ["Fixed <script> typo"]}
    moved["config"] = config
    html = render_report(
        **moved, out_html=tmp_path / "index.html", previous_release=previous
    )
    section = html.split('id="changes">', 1)[1].split('id="overview-campaign"', 1)[0]
    assert section.startswith("Changes since version 1</h3>")
    assert "Submission added: new&lt;team&gt;/x added" in section
    name = f"{row['team']}/{row['system']}, {row['metric_name']}"
    assert f"Score changed: {name}: {float(old):.6g} → {float(old) + 1:.6g}" in (
        html_unescape(section)
    )
    assert "Fixed &lt;script&gt; typo" in section
    assert "version 2" in html.split("</h1>", 1)[0]
    assert "previous release" in html


def test_missing_previous_release_is_a_clear_error(tiny_inputs, tmp_path):
    from stecflow.core.errors import StecflowError

    with pytest.raises(StecflowError, match="report.previous_release"):
        render_report(
            **tiny_inputs,
            out_html=tmp_path / "index.html",
            previous_release=tmp_path / "missing.zip",
        )


def test_outside_text_is_neutralised_in_csv_downloads_and_the_release(
    tiny_inputs, tmp_path
):
    import zipfile

    from stecflow.release.archive import build_release

    inputs = copy_inputs(tiny_inputs, tmp_path)
    evil = '=HYPERLINK("http://x","y")'
    path = next(p for p in inputs["validation_records"] if "alpha" in str(p))
    record = json.loads(path.read_text())
    record["metadata"]["description"] = evil
    write_json(record, path)
    html = render_report(**inputs, out_html=tmp_path / "index.html")
    participants = table_csv(html, "participants")
    column = participants[0].index("description")
    alpha = [r for r in participants[1:] if r[0] == "alpha"]
    assert [r[column] for r in alpha] == ["'" + evil]
    # The page shows the text as it is (HTML is not a spreadsheet).
    assert "=HYPERLINK(&#34;http://x&#34;,&#34;y&#34;)" in html
    # Every other CSV cell starting with ' is that one: the ±LOC subsets, say, are
    # left alone.
    cells = []
    for table_id in re.findall(r'<figure class="table" id="([^"]+)"', html):
        rows = table_csv(html, table_id)
        for r in rows[1:]:
            cells += [(table_id, h, c) for h, c in zip(rows[0], r, strict=True)]
    assert [c for c in cells if c[2].startswith("'")] == [
        ("participants", "description", "'" + evil)
    ]
    subsets = {c for t, h, c in cells if h == "subset"}
    assert {"+LOC", "-LOC"} <= subsets
    # The release carries the report as rendered.
    build_release(
        inputs["config"],
        validation_records=[],
        submissions_root=tmp_path,
        files={"report/index.html": tmp_path / "index.html"},
        out_zip=tmp_path / "release.zip",
    )
    with zipfile.ZipFile(tmp_path / "release.zip") as archive:
        released = archive.read("report/index.html").decode("utf-8")
    released_rows = table_csv(released, "participants")[1:]
    assert [r[column] for r in released_rows if r[0] == "alpha"] == ["'" + evil]


def test_superseded_systems_are_marked_and_not_ranked(tiny_inputs, tmp_path):
    # issue #12, point 6c: sys1 superseded by a corrected version (seed 002's
    # *IS-FBS); it stays scored and shown, out of the ranking
    inputs = copy_inputs(tiny_inputs, tmp_path)
    rows = read_tsv(inputs["validation_summary"])
    for row in rows:
        if row["system"] == "sys1":
            row["superseded_by"] = "sys1-fixed"
    write_tsv(rows, list(rows[0]), inputs["validation_summary"])
    html = render_report(**inputs, out_html=tmp_path / "index.html")
    body = table_csv(html, "scores-main")[1:]
    sys1 = next(r for r in body if r[0] == "sys1")
    assert sys1[2] == "" and sys1[4] == "false"  # no rank, not late
    main = html.split('id="scores-main"', 1)[1].split("</figure>", 1)[0]
    assert "sys1 * §" in main  # its team's primary system, superseded
    assert "Superseded by a corrected version (§): not in the official ranking" in main
    assert "superseded by the corrected alpha/sys1-fixed" in main
    participants = {r[1]: r for r in table_csv(html, "participants")[1:]}
    assert participants["sys1"][6] == "accepted"  # the CSV keeps the status
    assert "accepted, superseded by sys1-fixed" in html


def test_stecflow_score_reads_exactly_like_the_report(tiny_inputs, tiny_html, tmp_path):
    # issue #12, point 7: a team's numbers from `stecflow score` are the report's
    # strings (units, decimals, intervals, signatures) for the same system
    from stecflow.cli import main as cli

    campaign = Path(tiny_inputs["source_testset"]).parent
    outputs = campaign / "submissions" / "alpha" / "sys1" / "outputs.xml"
    config = campaign / "config" / "config.yaml"
    tsv, tex = tmp_path / "sys1.tsv", tmp_path / "sys1.tex"
    args = ["score", str(tiny_inputs["source_testset"]), str(outputs)]
    assert cli([*args, "--config", str(config), "--tsv", str(tsv)]) == 0
    assert cli([*args, "--config", str(config), "--latex", str(tex)]) == 0
    columns = ("value", "ci_low", "ci_high", "n")
    mine = {
        (r["metric"], r["subset_kind"], r["subset"]): tuple(r[c] for c in columns)
        for r in read_tsv(tsv)
        if r["status"] == "scored"
    }
    every = table_csv(tiny_html, "scores-every")
    theirs = {}
    for values in every[1:]:
        row = dict(zip(every[0], values, strict=True))
        if row["system"] == "sys1":
            key = (row["metric"], row["subset_kind"], row["subset"])
            theirs[key] = tuple(row[c] for c in columns)
    assert mine == theirs
    assert len(mine) == 5 * len({m for m, _, _ in mine}) > 40
    bleu = [k for k in mine if k[0] == "bleu3" and k[1] == "all"]
    assert float(mine[bleu[0]][0]) < 1  # on the report's 0-1 scale
    for row in read_tsv(tsv):  # the signatures the report lists
        assert row["signature"] and row["signature"] in tiny_html
    # the LaTeX cells of the overall column are the report's LaTeX cells
    report_latex = "".join(
        table_latex(tiny_html, f"scores-{family}")
        for family in ("text", "attributes", "domain")
    )
    cells = [
        line.split(" & ")[1].rstrip(" \\")
        for line in tex.read_text().splitlines()
        if " & " in line and not line.startswith("Metric")
    ]
    assert len(cells) == len({m for m, _, _ in mine})
    for cell in cells:
        assert f"& {cell} " in report_latex or f"& {cell} \\\\" in report_latex


# ---------------------------------------------------------------------------
# leaderboard tables: rank with ties, best values, groups, primary systems


def leaderboard_inputs(tiny_inputs: dict[str, Any], target: Path) -> dict[str, Any]:
    """Four systems of three teams on SE (lower is better) and Acc, with clusters.

    SE 1.00, 2.00, 2.00, 10.00 (ranks 1, 2, 2, 4); Acc 50, 75, 75, 10 % (two
    best); team t1 has two systems, A its primary one.
    """
    inputs = copy_inputs(tiny_inputs, target)
    rows = read_tsv(inputs["systems"])
    columns = list(rows[0])
    template = {
        m: next(
            r
            for r in rows
            if r["system"] == "sys1" and r["metric"] == m and r["subset_kind"] == "all"
        )
        for m in ("se", "string_accuracy")
    }
    systems = [  # team, system, primary, SE, Acc (proportion)
        ("t1", "A", "true", "1.0", "0.5"),
        ("t1", "B", "false", "2.0", "0.75"),
        ("t2", "C", "true", "2.0", "0.75"),
        ("t3", "D", "true", "10.0", "0.1"),
    ]
    written = []
    for team, system, primary, se, acc in systems:
        for metric, value in (("se", se), ("string_accuracy", acc)):
            row = dict(template[metric], team=team, system=system, primary=primary)
            row.update(value=value, ci_low=value, ci_high=value, late="false")
            written.append(row)
    write_tsv(written, columns, inputs["systems"])
    clusters = target / "clusters.tsv"
    groups = {"se": (1, 2, 2, 3), "string_accuracy": (2, 1, 1, 3)}
    write_tsv(
        [
            {
                "metric": metric,
                "system": f"{team}/{system}",
                "rank": str(n),
                "cluster": str(cluster),
                "score": "",
                "method": "paired_bs",
                "task": "all",
            }
            for metric, found in groups.items()
            for n, ((team, system, *_), cluster) in enumerate(
                zip(systems, found, strict=True), 1
            )
        ],
        ["metric", "system", "rank", "cluster", "score", "method", "task"],
        clusters,
    )
    inputs["clusters"] = clusters
    return inputs


def table_block(html: str, table_id: str) -> str:
    """The HTML of one table's figure."""
    return html.split(f'id="{table_id}"', 1)[1].split("</figure>", 1)[0]


def test_leaderboard_rank_best_groups_and_primary(tiny_inputs, tmp_path):
    inputs = leaderboard_inputs(tiny_inputs, tmp_path)
    html = render_report(**inputs, out_html=tmp_path / "index.html")
    rows = table_csv(html, "scores-text")
    header, body = rows[0], [dict(zip(rows[0], r, strict=True)) for r in rows[1:]]
    assert header[:6] == ["system", "team", "rank", "reference_set", "late", "primary"]
    assert header[-1] == "best"
    # ranked by SE, lower is better: a tie shares rank 2, the next is 4
    assert [(r["system"], r["rank"]) for r in body] == [
        ("A", "1"),
        ("B", "2"),
        ("C", "2"),
        ("D", "4"),
    ]
    assert [r["primary"] for r in body] == ["true", "false", "true", "true"]
    # best: the lowest SE (A), the highest accuracy (B and C, tied)
    assert {r["system"]: r["best"].split() for r in body} == {
        "A": ["se"],
        "B": ["string_accuracy"],
        "C": ["string_accuracy"],
        "D": [],
    }
    # the clusters of both measures, as clusters.tsv has them
    assert [(r["se_group"], r["string_accuracy_group"]) for r in body] == [
        ("1", "2"),
        ("2", "1"),
        ("2", "1"),
        ("3", "3"),
    ]
    # the page: rank column, bold best values, groups, primary marks, links
    block = table_block(html, "scores-text")
    trs = re.findall(r"<tr class=\"system\">(.*?)</tr>", block)
    cells = [re.findall(r"<td([^>]*)>(.*?)</td>", tr) for tr in trs]
    assert [c[0][1] for c in cells] == ["1", "2", "2", "4"]
    assert 'title="rank 2, shared"' in cells[1][0][0]
    assert [c[1][1] for c in cells] == [
        '<a href="#system-t1--A">A *</a>',
        '<a href="#system-t1--B">B</a>',
        '<a href="#system-t2--C">C *</a>',
        '<a href="#system-t3--D">D *</a>',
    ]
    acc, se = 2, 3  # columns: rank, system, Acc, SE, ...
    best = [[n for n, (attrs, _) in enumerate(c) if " best" in attrs] for c in cells]
    assert best == [[se], [acc], [acc], []]
    assert cells[0][se][1].startswith('<strong>1.00</strong> <span class="grp"')
    assert cells[1][acc][1].startswith("<strong>75.00</strong>")
    assert [
        re.search(r'class="grp"[^>]*>(\w+)<', c[se][1]).group(1) for c in cells
    ] == [
        "1",
        "2",
        "2",
        "3",
    ]
    assert 'data-value="75.0"' in cells[1][acc][0]
    assert "* The team&#39;s primary system (system.yaml)" in block
    assert "significance clusters (paired bootstrap resampling, p ≤ 0.05)" in block
    assert "share a rank (1, 2, 2, 4)" in block
    # LaTeX: the same ranks, bold and groups
    latex = table_latex(html, "scores-text")
    lines = [line for line in latex.splitlines() if " & " in line][-4:]
    assert lines[0].startswith(r"1 & A * & 50.00$^{\mathrm{2}}$")
    assert r"\textbf{1.00}$^{\mathrm{1}}$" in lines[0]
    assert lines[1].startswith(r"2 & B & \textbf{75.00}$^{\mathrm{1}}$")
    assert lines[2].startswith(r"2 & C * & \textbf{75.00}$^{\mathrm{1}}$")
    assert lines[3].startswith(r"4 & D * & 10.00$^{\mathrm{3}}$ ")
    assert r"\textbf" not in lines[3]


def test_best_values_skip_unranked_rows_and_lone_values():
    columns = [
        Column("system", "System", align="l"),
        Column("err", "Err", better="lower"),
        Column("n", "n"),
    ]
    table = Table(
        "t",
        "c",
        columns,
        [
            Row((Cell("A"), Cell("0.30"), Cell("5"))),
            Row((Cell("H"), Cell("0.10"), Cell("9")), classes="reference"),
            Row(heading="Late"),
            Row((Cell("L"), Cell("0.05"), Cell("7")), classes="late"),
            Row((Cell("B"), Cell("−0.20"), Cell("3"))),
        ],
    )
    # the human reference and the late system do not compete; "n" is no score
    assert table.best_cells() == {(4, 1)}
    assert table.to_csv().splitlines() == [
        "system,err,n,best",
        "A,0.30,5,",
        "H,0.10,9,",
        "L,0.05,7,",
        "B,−0.20,3,err",
    ]
    assert r"B & \textbf{-0.20} & 3 \\" in table.to_latex()
    lone = Table("u", "c", columns[:2], [Row((Cell("A"), Cell("1.0")))])
    assert lone.best_cells() == frozenset() and "Bold" not in " ".join(lone.html_notes)
    same = Table("s", "c", columns[:2], [Row((Cell(x), Cell("0.5"))) for x in "AB"])
    assert same.best_cells() == frozenset()  # equal values: none is better


def test_human_table_carries_the_tukey_letters_of_the_statistics(
    tiny_inputs, tiny_html
):
    found = {}
    for stem in ("adequacy", "fluency"):
        path = next(
            p for p in tiny_inputs["stats_tables"] if f"ratings-{stem}-tukey" in str(p)
        )
        found[stem] = {r["system"]: r["letters"] for r in read_tsv(path)}
    table = table_csv(tiny_html, "human-ratings")
    header = table[0]
    rows = {r[0]: dict(zip(header, r, strict=True)) for r in table[1:]}
    for stem, letters in found.items():
        assert header[header.index(f"{stem}_mean") + 1] == f"{stem}_mean_group"
        for system, letter in letters.items():
            assert (
                rows[f"beta/{system}" if system == "sys2" else f"alpha/{system}"][
                    f"{stem}_mean_group"
                ]
                == letter
            )
    # the late system is shown but not ranked; the primary one is marked
    assert rows["alpha/sys1"]["rank"] == "1" and rows["alpha/sys1"]["primary"] == "true"
    assert rows["beta/sys2"]["rank"] == ""
    block = table_block(tiny_html, "human-ratings")
    assert "homogeneous subsets (Tukey HSD, α = .05)" in block
    assert '<a href="#system-alpha--sys1">sys1 *</a>' in block


def test_a_campaign_without_significance_tests_gets_no_groups(
    tiny_inputs, tiny_html, tmp_path
):
    """significance methods: [] (too many systems for every pair) still reports."""
    inputs = copy_inputs(tiny_inputs, tmp_path)
    config = copy.deepcopy(inputs["config"])
    config["scoring"]["significance"] = {
        **config["scoring"].get("significance", {}),
        "methods": [],
    }
    inputs["config"] = config
    html = render_report(**inputs, out_html=tmp_path / "index.html")
    assert table_csv(html, "scores-main") == table_csv(tiny_html, "scores-main")
    assert "significance clusters" not in html

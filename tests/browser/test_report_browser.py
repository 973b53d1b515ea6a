"""The demo campaign's report in headless chromium: offline, clean, right numbers.

The workflow runs once per session on a temporary copy of the demo campaign
(config/, resources/demo/, submissions/). The page is opened from file:// with
every request routed: anything that is not a file: URL fails the test (and is
aborted). Expected numbers are computed here from results/scores/systems.tsv.
"""

from __future__ import annotations

import csv
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from stecflow.core.io import read_tsv
from stecflow.report.formatting import fixed
from tests.browser.reportkit import Watched
from tests.unit.test_report import report_inputs

pytestmark = pytest.mark.workflow


@pytest.fixture
def page(chromium, demo) -> Iterator[Watched]:
    """The demo report, loaded from file:// in a fresh, watched context."""
    watched = Watched(chromium)
    watched.page.set_default_timeout(20_000)
    watched.page.goto(demo["html"].as_uri())
    watched.page.wait_for_load_state("load")
    yield watched
    watched.context.close()


def expected_ranking(systems_tsv: Path) -> list[dict[str, Any]]:
    """Official (not late) scored systems by overall SE, lower first, with scores."""
    rows = [
        r
        for r in read_tsv(systems_tsv)
        if r["status"] == "scored" and r["subset"] == "all"
    ]
    systems: dict[str, dict[str, Any]] = {}
    for r in rows:
        entry = systems.setdefault(r["system"], {"late": r["late"] == "true"})
        entry[r["metric"]] = (
            float(r["value"]),
            float(r["ci_low"]),
            float(r["ci_high"]),
        )
    ranked = sorted(
        ((name, s) for name, s in systems.items() if not s["late"]),
        key=lambda pair: (pair[1]["se"][0], pair[0]),
    )
    return [{"system": name, **scores} for name, scores in ranked]


def test_report_opens_offline_without_errors(page):
    assert page.page.title().startswith("stecflow demo")
    assert (
        page.page.locator("section#scores h2").inner_text() == "2. Automatic evaluation"
    )
    assert page.page.locator("svg.figure-svg").count() >= 5
    page.assert_clean()
    assert page.requests == [page.page.url]  # the page itself, nothing else


def test_key_figures_of_the_demo_campaign(page, demo):
    expected = expected_ranking(demo["inputs"]["systems"])
    rows = page.page.locator("#scores-main tbody tr:not(.divider)")
    shown = []
    for i in range(rows.count()):
        cells = rows.nth(i).locator("td")
        shown.append([cells.nth(k).inner_text() for k in range(cells.count())])
    # columns: rank, system (with its marks), then Acc, SE, BLEU, NIST over all
    # test data, each score followed by its significance cluster, then its CI
    official = [r for r in shown if "†" not in r[1]]
    assert [r[1].rstrip(" ‡*") for r in official] == [e["system"] for e in expected]
    for row, scores in zip(official, expected, strict=True):
        value, low, high = scores["se"]
        assert row[3].split("\n")[0].split()[0] == fixed(value)
        assert f"[{fixed(low)}, {fixed(high)}]" in row[3]
        acc = fixed(100 * scores["string_accuracy"][0])
        assert row[2].split("\n")[0].split()[0] == acc
        assert row[4].split("\n")[0].split()[0] == fixed(scores["bleu3"][0] / 100)
        assert row[5].split("\n")[0].split()[0] == fixed(scores["nist5"][0])
    clusters = [int(r[3].split("\n")[0].split()[1]) for r in official]
    assert clusters[0] == 1 and clusters == sorted(clusters)  # ranked by SE
    ranks = [int(r[0]) for r in official if "‡" not in r[1]]
    assert ranks[0] == 1 and ranks == sorted(ranks)
    late = [r for r in shown if "†" in r[1]]
    assert late and page.page.get_by_text("not in the official ranking").count() >= 1
    # statistics as the seed writes them, from the analyses' own records
    body = page.page.evaluate("document.body.textContent")
    for path in demo["inputs"]["stats_records"]:
        record = json.loads(Path(path).read_text())
        for entry in record["text"]:
            assert entry["text"] in body, entry
    assert "There was" in body and "main effect of SYSTEM on SE" in body
    assert page.page.locator("#figure-correlations-heatmap svg").is_visible()
    page.assert_clean()


def test_csv_download_yields_the_table(page, demo, tmp_path):
    expected = expected_ranking(demo["inputs"]["systems"])
    with page.page.expect_download() as info:
        page.page.locator("#scores-main a.csv").click()
    download = info.value
    assert download.suggested_filename == "demo-reg-scores-main.csv"
    target = tmp_path / download.suggested_filename
    download.save_as(target)
    table = list(csv.DictReader(target.open(encoding="utf-8", newline="")))
    ranked = [r for r in table if r["rank"]]
    assert [r["system"] for r in ranked] == [
        e["system"] for e in expected if not e["system"].startswith("HUMAN")
    ]
    first = next(r for r in table if r["system"] == expected[0]["system"])
    value, low, high = expected[0]["se"]
    assert (first["se"], first["se_ci_low"], first["se_ci_high"]) == (
        fixed(value),
        fixed(low),
        fixed(high),
    )
    assert {r["late"] for r in table} == {"true", "false"}
    page.assert_clean()


def test_relative_links_resolve_and_rejected_team_is_explained(page, demo):
    links = page.page.locator('a[href^="../validation/"]')
    hrefs = {links.nth(i).get_attribute("href") for i in range(links.count())}
    assert len(hrefs) == len(demo["inputs"]["validation_records"])
    for href in hrefs:
        assert (demo["html"].parent / href).resolve().is_file(), href
    errors = page.page.locator("#rejected-broken-team-primary tbody tr")
    record = json.loads(
        (
            demo["campaign"] / "results" / "validation" / "broken-team" / "primary.json"
        ).read_text()
    )
    assert errors.count() == len(record["errors"])
    page.assert_clean()


# ---------------------------------------------------------------------------
# sorting a table by its headers (the page's one script, allowed by its hash)

#: Records CSP violations before the page's own script runs.
CSP_WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__violations.push(e.violatedDirective + " " + e.blockedURI);
});
"""


@pytest.fixture(scope="module")
def leaderboard(chromium, tmp_path_factory) -> Path:
    """The tiny campaign's report with four systems (tests/unit/test_report.py)."""
    from stecflow.report import render_report
    from tests.conftest import TINY
    from tests.unit.test_report import leaderboard_inputs

    root = tmp_path_factory.mktemp("leaderboard")
    campaign = root / "campaign"
    shutil.copytree(TINY, campaign)
    inputs = leaderboard_inputs(report_inputs(campaign), root / "copy")
    render_report(**inputs, out_html=root / "index.html")
    return root / "index.html"


def _column(page: Any, table: str, index: int) -> list[str]:
    cells = page.locator(f"#{table} tbody tr:not(.divider) td:nth-child({index})")
    return [cells.nth(i).inner_text().split("\n")[0] for i in range(cells.count())]


def test_headers_sort_rows_numerically(chromium, leaderboard):
    watched = Watched(chromium)
    try:
        page = watched.page
        page.add_init_script(CSP_WATCH)
        page.goto(leaderboard.as_uri())
        page.wait_for_load_state("load")
        headers = page.locator("#scores-text thead tr:last-child th")
        se = headers.nth(3)
        assert se.locator("button.sort").inner_text() == "SE"
        assert se.get_attribute("aria-sort") is None
        names = lambda: [n.rstrip(" *") for n in _column(page, "scores-text", 2)]  # noqa: E731
        assert names() == ["A", "B", "C", "D"]  # built in ranking order
        # SE: lower is better, so the first click sorts ascending, by number
        # (text order would put 10.00 before 2.00); ties keep their order
        se.locator("button").click()
        assert se.get_attribute("aria-sort") == "ascending"
        assert _column(page, "scores-text", 4) == [
            "1.00 1",
            "2.00 2",
            "2.00 2",
            "10.00 3",
        ]
        se.locator("button").click()
        assert se.get_attribute("aria-sort") == "descending"
        assert names() == ["D", "B", "C", "A"]
        # by keyboard: focus the accuracy header's button and press Enter;
        # higher is better, so the best comes first; SE's state is cleared
        acc = headers.nth(2)
        acc.locator("button").focus()
        page.keyboard.press("Enter")
        assert acc.get_attribute("aria-sort") == "descending"
        assert se.get_attribute("aria-sort") is None
        assert names() == ["B", "C", "A", "D"]
        # the rank column sorts by its numbers too, back to the ranking
        headers.nth(0).locator("button").click()
        assert _column(page, "scores-text", 1) == ["1", "2", "2", "4"]
        assert names() == ["A", "B", "C", "D"]
        # the best values stay bold wherever their rows go
        assert page.locator("#scores-text td.best strong").count() == 3
        assert page.evaluate("window.__violations") == []
        watched.assert_clean()
    finally:
        watched.context.close()

"""The demo campaign's report for the browser tests: built once per session.

``chromium`` and ``demo`` are fixtures of tests/browser/conftest.py (defined
here, imported there), so the demo campaign runs once however many report test
modules use it; ``Watched`` is a page whose console errors and requests are
recorded.
"""

from __future__ import annotations

import runpy
import shutil
from types import SimpleNamespace
from typing import Any

import pytest

from tests.conftest import REPO
from tests.unit.test_report import TEMPLATE, report_inputs
from tests.workflow.helpers import snakemake


@pytest.fixture(scope="session")
def chromium(browser: Any) -> Any:
    """The session's chromium of tests/browser/conftest.py (it skips, saying what
    to install, when Debian's chromium or Playwright is missing)."""
    return browser


@pytest.fixture(scope="session")
def demo(chromium, tmp_path_factory) -> dict[str, Any]:
    """The demo campaign run once; its report (by the rule if the Snakefile has it)."""
    campaign = tmp_path_factory.mktemp("demo") / "campaign"
    campaign.mkdir()
    shutil.copytree(REPO / "config", campaign / "config")
    shutil.copytree(REPO / "submissions", campaign / "submissions")
    for name in ("demo", "participants"):
        shutil.copytree(REPO / "resources" / name, campaign / "resources" / name)
    inputs = report_inputs(campaign)
    html = campaign / "results" / "report" / "index.html"
    rules = snakemake(campaign, "--list-rules").stdout.split()
    if "render_report" in rules:
        snakemake(campaign, "results/report/index.html")
    else:  # the rule is not wired into the Snakefile: run its adapter directly
        main = runpy.run_path(str(REPO / "workflow" / "scripts" / "render_report.py"))
        main["main"](
            SimpleNamespace(
                input=SimpleNamespace(
                    summary=str(inputs["validation_summary"]),
                    records=[str(p) for p in inputs["validation_records"]],
                    systems=str(inputs["systems"]),
                    stats=[str(p) for p in inputs["stats_records"]],
                    stats_tables=[str(p) for p in inputs["stats_tables"]],
                    testset=str(inputs["testset"]),
                    source_testset=str(inputs["source_testset"]),
                    judgment_measures=[str(p) for p in inputs["judgment_measures"]],
                    judgment_summaries=[str(p) for p in inputs["judgment_summaries"]],
                    judgment_quality=[str(p) for p in inputs["judgment_quality"]],
                    template=str(TEMPLATE),
                ),
                output=SimpleNamespace(html=str(html)),
                params=SimpleNamespace(config=inputs["config"], snakemake_version=""),
                log=[str(campaign / "results" / "logs" / "render_report.log")],
            )
        )
    return {"campaign": campaign, "html": html, "inputs": inputs}


class Watched:
    """A page whose console errors and requests are recorded; non-file: aborted."""

    def __init__(self, browser: Any) -> None:
        self.context = browser.new_context(
            accept_downloads=True, viewport={"width": 1280, "height": 1000}
        )
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.blocked: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on(
            "console",
            lambda m: self.errors.append(m.text) if m.type == "error" else None,
        )
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        self.page.on("request", lambda r: self.requests.append(r.url))

    def _route(self, route: Any) -> None:
        url = route.request.url
        if url.startswith("file:"):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()

    def assert_clean(self) -> None:
        assert self.errors == [], self.errors
        assert self.blocked == [], self.blocked
        assert all(u.startswith(("file:", "data:")) for u in self.requests), (
            self.requests
        )

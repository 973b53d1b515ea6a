"""Shared fixtures: paths of the repository, the fixture campaign and b5-ref."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
TINY = FIXTURES / "tiny_campaign"
#: The b5-ref corpus shipped with stecflow (see resources/b5-ref/README.md).
B5REF = REPO / "resources" / "b5-ref" / "corpus"


def python_stdout(code: str, stdin: str | None = None) -> str:
    """What *code* prints when run by a fresh interpreter (which modules a job
    path loads, say); a failure raises with its traceback."""
    return subprocess.run(
        [sys.executable, "-c", code],
        input=stdin,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


@pytest.fixture
def b5ref_dir() -> Path:
    """The b5-ref corpus folder shipped in resources/b5-ref/corpus."""
    if not (B5REF / "ref" / "b5-ref-contexts.xml").is_file():
        pytest.fail(
            "the b5-ref corpus shipped with stecflow is missing from"
            " resources/b5-ref/corpus (ref/b5-ref-contexts.xml); restore it from git"
        )
    return B5REF


@pytest.fixture
def tiny_campaign(tmp_path: Path) -> Path:
    """A fresh copy of tests/fixtures/tiny_campaign to run the workflow in."""
    target = tmp_path / "campaign"
    shutil.copytree(TINY, target)
    return target


# ------------------------------------------------------------------ the browser

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--autoplay-policy=no-user-gesture-required",
]
SKIP_REASON = (
    "browser tests need Debian's chromium and pip's playwright: install Debian's "
    "chromium and pip's playwright (apt-get install chromium; pip install playwright)"
)


def _browser_missing() -> bool:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return True
    return not Path(CHROMIUM).is_file()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless chromium for the whole session, for every test directory
    (tests/browser, tests/deploy): one Playwright per process."""
    if _browser_missing():
        pytest.skip(SKIP_REASON)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(
            executable_path=CHROMIUM, args=LAUNCH_ARGS, headless=True
        )
        yield instance
        instance.close()

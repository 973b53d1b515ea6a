"""Shared fixtures: paths of the repository, the fixture campaign and b5-ref."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

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

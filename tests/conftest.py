"""Shared fixtures: paths of the repository, the fixture campaign and b5-ref."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
TINY = FIXTURES / "tiny_campaign"
B5REF = REPO.parent / "shared" / "reg_data" / "b5-ref"


@pytest.fixture
def b5ref_dir() -> Path:
    """The b5-ref corpus folder; tests using it skip when it is absent."""
    if not (B5REF / "ref" / "b5-ref-contexts.xml").is_file():
        pytest.skip(
            "b5-ref corpus not found at ../shared/reg_data/b5-ref; get it from the b5"
            " corpus of the University of São Paulo (CC BY 4.0, the 'ref' subcorpus)"
            " and place it there"
        )
    return B5REF


@pytest.fixture
def tiny_campaign(tmp_path: Path) -> Path:
    """A fresh copy of tests/fixtures/tiny_campaign to run the workflow in."""
    target = tmp_path / "campaign"
    shutil.copytree(TINY, target)
    return target

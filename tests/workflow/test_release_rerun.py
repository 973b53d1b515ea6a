"""The demo's release archive re-runs: `stecflow rerun` gets the same bytes.

The demo campaign runs in a copy of the checkout; its archive is then checked as
a reader of the release would: no absolute path anywhere, every link of the
report lands on an entry, the datasheet counts what the judgments hold, and the
statistics and report made again from the archive alone equal the archived ones.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from posixpath import normpath
from urllib.parse import unquote

import pytest

from stecflow.core.io import parse_tsv
from tests.conftest import REPO
from tests.workflow.helpers import snakemake

pytestmark = pytest.mark.workflow

# where this machine keeps files (home, temporary files, the checkout's parent),
# named from the environment rather than written here, and a Windows drive
FORBIDDEN = (
    str(Path.home()) + os.sep,
    tempfile.gettempdir() + os.sep,
    str(REPO.parent) + os.sep,
    "C:\\",
)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    checkout = tmp_path_factory.mktemp("release") / "checkout"
    for part in ("config", "resources", "submissions"):
        shutil.copytree(REPO / part, checkout / part)
    snakemake(checkout)
    [archive] = (checkout / "results" / "release").glob("*.zip")
    return checkout, archive


def test_rerun_from_the_archive_alone_gives_the_same_bytes(demo, tmp_path):
    _, archive = demo
    moved = tmp_path / "elsewhere" / archive.name  # nothing of the checkout needed
    moved.parent.mkdir()
    shutil.copy(archive, moved)
    result = subprocess.run(
        [sys.executable, "-m", "stecflow.cli", "rerun", str(moved), "--out", "out"],
        cwd=moved.parent,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    with zipfile.ZipFile(archive) as zipped:
        stats = [n for n in zipped.namelist() if n.startswith("stats/")]
    lines = result.stdout.splitlines()
    assert len(stats) == 22  # the demo's 11 analyses
    assert sorted(lines[:-1]) == sorted(
        f"identical\t{name}" for name in [*stats, "report/index.html"]
    )
    assert lines[-1].startswith("23 of 23 files identical")
    rerun = moved.parent / "out" / "rerun"
    # unpacked as the campaign's results folder (config `results`)
    assert (rerun / "report" / "index.html").read_bytes() == (
        moved.parent / "out" / "results" / "report" / "index.html"
    ).read_bytes()
    # an archive whose files do not match its manifest is refused, plainly
    tampered = tmp_path / "tampered.zip"
    with zipfile.ZipFile(moved) as src, zipfile.ZipFile(tampered, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "judgments/rating.tsv":
                data = data.replace(b"\t66\t", b"\t67\t", 1)
            dst.writestr(info, data)
    refused = subprocess.run(
        [sys.executable, "-m", "stecflow.cli", "rerun", str(tampered), "--out", "t"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert refused.returncode == 2
    assert (
        "judgments/rating.tsv does not match its sha256 in MANIFEST.tsv"
        in refused.stderr
    )


def test_no_absolute_path_in_any_entry(demo):
    checkout, archive = demo
    with zipfile.ZipFile(archive) as zipped:
        names = zipped.namelist()
        for name in names:
            data = zipped.read(name)
            for needle in (str(checkout), *FORBIDDEN):
                assert needle not in name
                text = data.decode("utf-8", errors="replace")
                assert needle not in text, (name, needle)
    assert len(names) > 800  # the web experiments' pictures included


def test_every_link_of_the_archived_report_lands_on_an_entry(demo):
    _, archive = demo
    with zipfile.ZipFile(archive) as zipped:
        names = set(zipped.namelist())
        html = zipped.read("report/index.html").decode()
    links = {
        unquote(href)
        for href in re.findall(r'href="([^"#][^"]*)"', html)
        if not href.startswith(("data:", "http:", "https:", "mailto:"))
    }
    assert links  # the validation reports of the 8 submissions
    for link in links:
        assert normpath(f"report/{link}") in names, link
    assert any(link.startswith("../validation/") for link in links)


def test_materials_environment_and_metadata(demo):
    _, archive = demo
    with zipfile.ZipFile(archive) as zipped:
        names = set(zipped.namelist())
        sheet = zipped.read("DATASHEET.md").decode()
        rows = parse_tsv(zipped.read("judgments/identification.tsv").decode())
        lock = zipped.read("environment/requirements.lock").decode()
        cff = zipped.read("CITATION.cff").decode()
    for study in ("rating", "identification"):
        for leaf in ("design.tsv", "design.json", "web/index.html", "dmdx/README.txt"):
            assert f"studies/{study}/{leaf}" in names
    assert "studies/identification/dmdx/L01.rtf" in names
    assert "snakemake==" in lock and "stecflow==" in lock
    assert 'date-released: "2026-06-15"' in cff
    # the datasheet counts what the judgments hold (hand count from the table)
    test = [r for r in rows if r["practice"] != "true" and r["filler"] != "true"]
    practice = sum(r["practice"] == "true" for r in rows)
    lists = sorted({r["list"] for r in test})
    assert (len(test), practice, len(lists)) == (672, 30, 6)
    assert (
        f"Collected: {len(test)} test trials ({practice} practice and 12 filler"
        f" trials besides) from 6 participant(s) in 6 session(s); 6 of 6 lists run"
    ) in sheet

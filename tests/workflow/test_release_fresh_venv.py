"""The release re-runs from its own README, in an empty folder and a new venv.

The b5-ref campaign (the shipped corpus and baselines; its archive leaves the test
set out, so the README's ``--source-testset`` step is followed too) runs in a
temporary folder; its archive is copied alone into an empty folder, and the
``bash`` block of the archive's README.md is run line by line: unpack with
``python -m zipfile``, ``python -m venv venv``, ``venv/bin/pip install --no-deps -r
release/environment/requirements.lock``, ``venv/bin/stecflow rerun ...``. The
statistics and the report made again must equal the archived ones.

One thing is added to the README's steps, for speed and to run without the
network: the ~180 packages the lock pins are not downloaded from PyPI (hundreds
of MB; minutes even from pip's cache). The new venv instead sees this
environment's site-packages, as ``--system-site-packages`` would, through a
folder of links to every entry *but stecflow's* (the checkout's editable
install), and pip runs with ``PIP_NO_INDEX=1``. Every pin is then already
installed but stecflow, which pip can only take from the wheel the archive holds
(the lock's ``--find-links .``): the test fails if the archive's stecflow is
missing, cannot be installed, or is not the one that runs.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.workflow.helpers import snakemake

pytestmark = pytest.mark.workflow

ARCHIVE = "b5-ref-1.zip"


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    """The b5-ref campaign's release archive, built by the workflow."""
    from tests.conftest import B5REF

    # the config as shipped, paths relative to the campaign folder: the report
    # hashes the config as released (absolute paths would be made relative)
    campaign = tmp_path_factory.mktemp("b5") / "campaign"
    shutil.copytree(B5REF.parent, campaign / "resources" / "b5-ref")
    shutil.copy(REPO / "config" / "b5-ref.yaml", campaign / "b5-ref.yaml")
    snakemake(campaign, "--configfile", str(campaign / "b5-ref.yaml"))
    return campaign / "results" / "b5-ref" / "release" / ARCHIVE


def _readme_commands(readme: str) -> list[str]:
    """The lines of the README's bash block, comments cut off."""
    block = re.search(r"^```bash\n(.*?)^```", readme, re.M | re.S)
    assert block, "the README gives no commands"
    return [
        line.split("  #")[0].strip()
        for line in block.group(1).splitlines()
        if line.strip()
    ]


def _site_without_stecflow(folder: Path) -> Path:
    """A folder of links to this environment's site-packages entries, stecflow's
    (its editable install) left out."""
    view = folder / "site-packages-without-stecflow"
    view.mkdir()
    for base in site.getsitepackages():
        for entry in sorted(Path(base).iterdir()):
            if "stecflow" in entry.name.lower() or entry.suffix == ".pth":
                continue
            if not (view / entry.name).exists():
                (view / entry.name).symlink_to(entry)
    return view


def test_the_readme_steps_rerun_the_release_in_a_new_venv(
    archive, tmp_path_factory, b5ref_dir
):
    fresh = tmp_path_factory.mktemp("fresh")  # empty but for the archive
    shutil.copy(archive, fresh / ARCHIVE)
    with zipfile.ZipFile(archive) as zipped:
        readme = zipped.read("README.md").decode()
        record = json.loads(zipped.read("environment/source.json"))
        wheel = zipped.read(record["wheel"])
        lock = zipped.read("environment/requirements.lock").decode()
        stats = [n for n in zipped.namelist() if n.startswith("stats/")]
    commands = _readme_commands(readme)
    assert [c.split()[:3] for c in commands] == [
        ["python", "-m", "zipfile"],
        ["python", "-m", "venv"],
        ["venv/bin/pip", "install", "--no-deps"],
        ["venv/bin/stecflow", "rerun", ARCHIVE],
    ]
    # the archive names its source and holds it
    assert re.fullmatch(r"[0-9a-f]{40}", record["git_commit"])
    assert isinstance(record["dirty"], bool)
    assert f"git commit {record['git_commit']}" in readme
    assert "--find-links ." in lock.splitlines() and "\nstecflow==" in lock
    import hashlib

    assert hashlib.sha256(wheel).hexdigest() == record["wheel_sha256"]

    environment = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    environment.pop("PYTHONPATH", None)
    environment.pop("VIRTUAL_ENV", None)
    view = _site_without_stecflow(tmp_path_factory.mktemp("view"))
    results = {}
    for command in commands:
        argv = shlex.split(command.replace("<test set>", str(b5ref_dir)))
        if argv[0] == "python":
            argv[0] = sys.executable
        if argv[0].startswith("venv/"):
            argv[0] = str(fresh / argv[0])
        result = subprocess.run(
            argv,
            cwd=fresh,
            env=environment,
            capture_output=True,
            text=True,
            timeout=900,
        )
        results[argv[1] if argv[0] != sys.executable else argv[2]] = result
        if argv[1:3] == ["-m", "venv"]:
            # (the packages pip would download from PyPI: see the docstring)
            [packages] = (fresh / "venv" / "lib").glob("python3*/site-packages")
            (packages / "build-environment.pth").write_text(f"{view}\n")
        if argv[1] != "rerun":
            assert result.returncode == 0, (command, result.stdout, result.stderr)
    rerun = results["rerun"]
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    lines = rerun.stdout.splitlines()
    compared = [*stats, "report/index.html"]
    assert len(stats) == 8  # b5-ref's 4 analyses
    assert sorted(lines[:-1]) == sorted(f"identical\t{name}" for name in compared)
    assert lines[-1].startswith("9 of 9 files identical"), rerun.stdout
    # the stecflow that ran is the archive's wheel, installed in the venv
    where = subprocess.run(
        [
            str(fresh / "venv" / "bin" / "python"),
            "-c",
            "import stecflow; print(stecflow.__file__)",
        ],
        cwd=fresh,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(where).is_relative_to(fresh / "venv"), where
    assert "stecflow-" in results["install"].stdout  # pip installed it


def test_the_rerun_messages_point_to_readme_steps_that_exist(archive, tmp_path):
    """Without the test set b5-ref's archive does not re-run; the message says
    where the README tells what to do, and the README does tell it."""
    with zipfile.ZipFile(archive) as zipped:
        readme = zipped.read("README.md").decode()
    result = subprocess.run(
        [sys.executable, "-m", "stecflow.cli", "rerun", str(archive), "--out", "out"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 2
    assert "README.md's section Re-running" in result.stderr
    assert "--source-testset" in result.stderr
    assert "\n## Re-running\n" in readme
    assert "--source-testset <test set>" in readme
    assert "format `b5-ref`" in readme and "give its file or folder" in readme

"""The release re-runs from its own README, in an empty folder and a new venv.

The b5-ref campaign (the shipped corpus and baselines; its archive leaves the test
set out, so the README's ``--source-testset`` step is followed too) runs in a
temporary folder; its archive is copied alone into an empty folder, and the
``bash`` block of the archive's README.md is run line by line: unpack with
``python -m zipfile``, ``python -m venv venv``, ``venv/bin/pip install --no-deps -r
release/environment/requirements.lock``, ``venv/bin/stecflow rerun ...``. The
statistics and the report made again must equal the archived ones.

The first test adds one thing to the README's steps, for speed and to run
without the network: the ~80 packages the lock pins are not downloaded from PyPI (hundreds
of MB; minutes even from pip's cache). The new venv instead sees this
environment's site-packages, as ``--system-site-packages`` would, through a
folder of links to every entry *but stecflow's* (the checkout's editable
install), and pip runs with ``PIP_NO_INDEX=1``. Every pin is then already
installed but stecflow, which pip can only take from the wheel the archive holds
(the lock's ``--find-links .``): the test fails if the archive's stecflow is
missing, cannot be installed, or is not the one that runs. The second test
(``STECFLOW_TEST_PYPI=1``, which ``.ci/run`` sets) follows the README exactly,
PyPI included, and checks that the venv holds stecflow's needs and no more.
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


def _follow_the_readme(
    archive: Path, fresh: Path, testset: Path, view: Path | None
) -> dict[str, subprocess.CompletedProcess]:
    """Run the README's commands in *fresh* (empty but for the archive); with
    a *view*, pip uses no index and the venv sees *view* (see the docstring)."""
    shutil.copy(archive, fresh / ARCHIVE)
    with zipfile.ZipFile(archive) as zipped:
        readme = zipped.read("README.md").decode()
        stats = [n for n in zipped.namelist() if n.startswith("stats/")]
    commands = _readme_commands(readme)
    assert [c.split()[:3] for c in commands] == [
        ["python", "-m", "zipfile"],
        ["python", "-m", "venv"],
        ["venv/bin/pip", "install", "--no-deps"],
        ["venv/bin/stecflow", "rerun", ARCHIVE],
    ]
    environment = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1")
    if view is not None:
        environment["PIP_NO_INDEX"] = "1"
    environment.pop("PYTHONPATH", None)
    environment.pop("VIRTUAL_ENV", None)
    results = {}
    for command in commands:
        argv = shlex.split(command.replace("<test set>", str(testset)))
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
            timeout=1800,
        )
        results[argv[1] if argv[0] != sys.executable else argv[2]] = result
        if view is not None and argv[1:3] == ["-m", "venv"]:
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
    return results


def test_the_readme_steps_rerun_the_release_in_a_new_venv(
    archive, tmp_path_factory, b5ref_dir
):
    with zipfile.ZipFile(archive) as zipped:
        readme = zipped.read("README.md").decode()
        record = json.loads(zipped.read("environment/source.json"))
        wheel = zipped.read(record["wheel"])
        lock = zipped.read("environment/requirements.lock").decode()
    # the archive names its source and holds it
    assert re.fullmatch(r"[0-9a-f]{40}", record["git_commit"])
    assert isinstance(record["dirty"], bool)
    assert f"git commit {record['git_commit']}" in readme
    assert "--find-links ." in lock.splitlines() and "\nstecflow==" in lock
    import hashlib

    assert hashlib.sha256(wheel).hexdigest() == record["wheel_sha256"]
    view = _site_without_stecflow(tmp_path_factory.mktemp("view"))
    _follow_the_readme(archive, tmp_path_factory.mktemp("fresh"), b5ref_dir, view)


@pytest.mark.network
@pytest.mark.skipif(
    os.environ.get("STECFLOW_TEST_PYPI") != "1",
    reason="installs the release's lock from PyPI (about 150 MB, or pip's cache):"
    " set STECFLOW_TEST_PYPI=1 to run it (.ci/run does)",
)
def test_the_lock_installs_from_pypi_alone(archive, tmp_path_factory, b5ref_dir):
    """The README's steps exactly: every pin of the lock from PyPI, stecflow
    from the archive's wheel; the venv then holds what stecflow needs and
    nothing else (pip check), and the release re-runs byte for byte."""
    fresh = tmp_path_factory.mktemp("pypi")
    _follow_the_readme(archive, fresh, b5ref_dir, view=None)
    with zipfile.ZipFile(archive) as zipped:
        lock = zipped.read("environment/requirements.lock").decode()
    pins = {
        line.split("==")[0]: line.split("==")[1]
        for line in lock.splitlines()
        if "==" in line and not line.startswith("#")
    }
    check = subprocess.run(
        [str(fresh / "venv" / "bin" / "python"), "-m", "pip", "check"],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stdout + check.stderr  # nothing missing
    frozen = subprocess.run(
        [
            str(fresh / "venv" / "bin" / "python"),
            "-m",
            "pip",
            "list",
            "--format=freeze",
            "--exclude-editable",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    installed = {
        re.sub(r"[-_.]+", "-", line.split("==")[0]).lower(): line.split("==")[1]
        for line in frozen.splitlines()
        if "==" in line
    }
    for own in ("pip", "setuptools"):  # what python -m venv puts in every venv
        installed.pop(own, None)
    assert installed == pins, set(installed.items()) ^ set(pins.items())


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

"""The release holds the stecflow that built it: a deterministic wheel and its
source (version, git commit, uncommitted changes), and its README's re-run steps."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import subprocess
import tomllib
import zipfile
from pathlib import Path

import pytest

import stecflow
from stecflow.release.environment import LOCK_FILE, environment_files
from stecflow.release.readme import readme_text
from stecflow.release.source import (
    SOURCE_FILE,
    Source,
    build_wheel,
    git_state,
    stecflow_source,
)
from tests.conftest import REPO

PACKAGE = Path(stecflow.__file__).resolve().parent


def test_the_wheel_is_byte_identical_and_complete():
    name, first, version = build_wheel()
    assert build_wheel()[1] == first
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert version == project["version"]
    assert name == f"stecflow-{version}-py3-none-any.whl"
    with zipfile.ZipFile(io.BytesIO(first)) as wheel:
        infos = wheel.infolist()
        names = [i.filename for i in infos]
        assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
        info = f"stecflow-{version}.dist-info"
        assert names[-1] == f"{info}/RECORD"
        # every module and the package data pyproject.toml names
        modules = {
            f"stecflow/{p.relative_to(PACKAGE).as_posix()}"
            for p in PACKAGE.rglob("*.py")
            if "__pycache__" not in p.parts
        }
        assert modules <= set(names)
        for data in (
            "stecflow/py.typed",
            "stecflow/studies/web/core.js",
            "stecflow/studies/web/components/_grid.js",
            "stecflow/studies/web/components/rating.js",
            "stecflow/submissions/schemas/submission.schema.yaml",
        ):
            assert data in names
        assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
        metadata = wheel.read(f"{info}/METADATA").decode()
        # from pyproject.toml, not from the (older) editable install's metadata
        for requirement in project["dependencies"]:
            assert f"Requires-Dist: {requirement}\n" in metadata
        assert 'Requires-Dist: scikit-learn>=1.4,<2; extra == "dialogue"' in metadata
        assert (
            "stecflow = stecflow.cli:main"
            in wheel.read(f"{info}/entry_points.txt").decode()
        )
        rows = list(csv.reader(io.StringIO(wheel.read(f"{info}/RECORD").decode())))
        assert sorted(r[0] for r in rows) == sorted(names)
        for path, digest, size in rows:
            if path.endswith("/RECORD"):
                continue
            data = wheel.read(path)
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest())
            assert digest == "sha256=" + expected.rstrip(b"=").decode()
            assert int(size) == len(data)


def _git(folder: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(folder), *args],
        check=True,
        capture_output=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.org",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.org",
            "PATH": "/usr/bin:/bin:/usr/local/bin",
            "HOME": str(folder),
        },
    )


def test_git_state_names_the_commit_and_the_changed_sources(tmp_path):
    assert git_state(tmp_path, ["src/pkg"]) == (None, None, [])  # not a checkout
    _git(tmp_path, "init", "-q")
    package = tmp_path / "src" / "pkg"
    package.mkdir(parents=True)
    (package / "a.py").write_text("A = 1\n")
    (tmp_path / "notes.txt").write_text("not packed\n")
    _git(tmp_path, "add", "src/pkg/a.py")
    _git(tmp_path, "commit", "-q", "-m", "a")
    commit, dirty, changed = git_state(tmp_path, ["src/pkg", "pyproject.toml"])
    assert len(commit) == 40 and dirty is False and changed == []
    (package / "a.py").write_text("A = 2\n")
    (package / "b.py").write_text("B = 1\n")
    assert git_state(tmp_path, ["src/pkg"]) == (
        commit,
        True,
        ["src/pkg/a.py", "src/pkg/b.py"],
    )


def test_the_environment_holds_the_wheel_the_lock_installs():
    files = environment_files()
    source = stecflow_source()
    record = json.loads(files[SOURCE_FILE])
    assert files[record["wheel"]] == source.wheel
    assert record["wheel_sha256"] == hashlib.sha256(source.wheel).hexdigest()
    assert record["version"] == source.version and record["name"] == "stecflow"
    lock = files[LOCK_FILE].decode().splitlines()
    assert "--find-links ." in lock and f"stecflow=={source.version}" in lock
    assert record["wheel"] == f"environment/{source.wheel_name}"  # beside the lock
    # this checkout is a git checkout: its commit is named
    assert record["git_commit"] and isinstance(record["dirty"], bool)
    assert all(not Path(p).is_absolute() for p in record["changed_files"])


@pytest.mark.parametrize("included", [True, False])
def test_the_readme_gives_the_rerun_steps(included):
    config = {
        "results": "results/b5-ref",
        "campaign": {"id": "b5-ref", "title": "B5", "version": "1"},
        "data": {"testset": "resources/b5-ref/corpus", "format": "b5-ref"},
        "release": {"testset_pointer": "the b5 corpus"},
        "report": {"previous_release": None if included else "old/b5-ref-0.zip"},
    }
    software = Source("0.1.0", "ab" * 20, False).record() | {
        "wheel": "environment/stecflow-0.1.0-py3-none-any.whl"
    }
    text = readme_text(
        config,
        [],
        [],
        "data/testset.xml" if included else None,
        archive="b5-ref-1.zip",
        software=software,
        project_root="/nowhere",
    )
    assert "\n## Re-running\n" in text
    assert f"git commit {'ab' * 20}, the committed tree unchanged" in text
    steps = text.split("```bash\n")[1].split("```")[0]
    rerun = "venv/bin/stecflow rerun b5-ref-1.zip --out rerun-check"
    if not included:
        rerun += " --source-testset <test set> --previous <previous archive>"
    assert [line.split("  #")[0].rstrip() for line in steps.splitlines()] == [
        "python -m zipfile -e b5-ref-1.zip release",
        "python -m venv venv",
        "venv/bin/pip install --no-deps -r release/environment/requirements.lock",
        rerun,
    ]
    assert ("`resources/b5-ref/corpus`, format `b5-ref`" in text) is not included
    assert ("`old/b5-ref-0.zip`" in text) is not included
    assert "rerun-check/results/b5-ref/" in text

"""environment.yml (the conda route of the README) and pyproject.toml (pip) agree.

Both list the run-time dependencies; a package in one and not the other (as
zlib-ng, which the release archive imports, once was) breaks one route only, at
the stage that imports it. Conda-forge names some Python packages differently
from PyPI: :data:`CONDA_NAMES` maps them.
"""

from __future__ import annotations

import re
import tomllib

import yaml

from tests.conftest import REPO

#: PyPI name -> conda-forge name, where they differ.
CONDA_NAMES = {
    "snakemake": "snakemake-minimal",
    "fastjsonschema": "python-fastjsonschema",
    "zlib-ng": "python-zlib-ng",
}
#: Conda packages of environment.yml that pyproject.toml does not list as such.
CONDA_ONLY = {"python"}
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(.*?)\s*$")


def _split(requirement: str) -> tuple[str, str]:
    match = _REQUIREMENT.match(requirement.split(";")[0])
    assert match, requirement
    name = re.sub(r"[-_.]+", "-", match.group(1)).lower()
    return name, match.group(2).replace(" ", "")


def _pyproject() -> tuple[dict[str, str], dict[str, str]]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    main = dict(_split(r) for r in project["dependencies"])
    test = dict(_split(r) for r in project["optional-dependencies"]["test"])
    return main, test


def _conda() -> dict[str, str]:
    document = yaml.safe_load((REPO / "environment.yml").read_text())
    return dict(_split(d) for d in document["dependencies"] if isinstance(d, str))


def test_every_pip_dependency_is_in_the_conda_environment_with_its_pins():
    main, _ = _pyproject()
    conda = _conda()
    wanted = {CONDA_NAMES.get(name, name): spec for name, spec in main.items()}
    missing = sorted(set(wanted) - set(conda))
    assert not missing, f"environment.yml lacks {missing} (pyproject.toml has them)"
    assert {n: conda[n] for n in wanted} == wanted


def test_the_conda_environment_holds_nothing_pip_would_not_install():
    main, test = _pyproject()
    known = {CONDA_NAMES.get(n, n): s for n, s in {**test, **main}.items()}
    extra = {n: s for n, s in _conda().items() if n not in CONDA_ONLY}
    assert sorted(set(extra) - set(known)) == []
    # the test tools it adds are pinned as the test extra pins them
    assert {n: known[n] for n in extra} == extra


def test_zlib_ng_is_in_both_lists():
    # stecflow.release.archive imports zlib_ng: the release step needs it
    archive = (REPO / "src" / "stecflow" / "release" / "archive.py").read_text()
    assert "from zlib_ng import" in archive
    assert _pyproject()[0]["zlib-ng"] == ">=1.0,<2"
    assert _conda()["python-zlib-ng"] == ">=1.0,<2"

"""The release's README.md: what the archive holds, and the steps that re-run
its statistics and report from it alone (section Re-running, to which
``stecflow rerun``'s error messages point)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.release.heds import _software
from stecflow.release.paths import relative_path

__all__ = ["readme_text"]


def readme_text(
    config: Mapping[str, Any],
    consented: Sequence[str],
    withheld: Sequence[str],
    testset_entry: str | None,
    *,
    archive: str = "<this archive>.zip",
    software: Mapping[str, Any] | None = None,
    project_root: str | Path | None = None,
) -> str:
    """README.md: what the release holds (the test set, or *testset_entry*'s
    absence and where to get it; the *consented* outputs and how many are
    *withheld*; where each part is) and the section Re-running for the archive
    named *archive*, built by *software* (``environment/source.json``'s record),
    with configured paths relative to *project_root*."""
    campaign = config["campaign"]
    release = config.get("release") or {}
    pointer = (
        f"`{testset_entry}`"
        if testset_entry
        else release.get("testset_pointer") or "the test set is distributed separately"
    )
    lines = [
        f"# {campaign['title']}: data release {campaign.get('version', '1')}",
        "",
        campaign.get("description", "").strip(),
        "",
        f"- Test set: {pointer}.",
        f"- System outputs released: {len(consented)}"
        f" ({', '.join(consented) or 'none'}).",
        f"- Outputs withheld (no consent, or rejected): {len(withheld)}.",
        "- Scores: `scores/`; statistics: `stats/`; the report: `report/index.html`.",
        "- Judgments: `judgments/`, participants and sessions pseudonymised.",
        "- Study materials: `studies/<study>/` (design, balance, the web experiment"
        " in `web/`, DMDX files in `dmdx/`, consent and other texts in"
        " `materials/`); validation reports: `validation/`.",
        "- The environment: `environment/requirements.lock` (pip install -r),"
        " `environment/python.txt` (Python version and platform) and the"
        " stecflow that built this release, as a wheel, with"
        " `environment/source.json` (its version and git commit).",
        "- Metadata: `DATASHEET.md` (HEDS 3.0), `CITATION.cff`, `.zenodo.json`.",
        "- `MANIFEST.tsv` lists the size and sha256 of every file.",
        "",
        *_rerun_steps(config, archive, testset_entry, software, project_root),
    ]
    return "\n".join(lines)


def _commented(commands: Sequence[tuple[str, str]]) -> list[str]:
    """Shell commands with their comments aligned after the commented ones.

    >>> _commented([("ls", "list"), ("true", "")])
    ['ls  # list', 'true']
    """
    width = max((len(c) for c, note in commands if note), default=0)
    return [f"{c:<{width}}  # {note}" if note else c for c, note in commands]


def _rerun_steps(
    config: Mapping[str, Any],
    archive: str,
    testset_entry: str | None,
    software: Mapping[str, Any] | None,
    project_root: str | Path | None,
) -> list[str]:
    """The README's section Re-running: the exact steps, from an empty folder
    to ``stecflow rerun``'s verdict (its error messages point here)."""
    results = str(config.get("results") or "results")
    if Path(results).is_absolute() or ".." in Path(results).parts:
        results = Path(results).name
    rerun = f"venv/bin/stecflow rerun {archive} --out rerun-check"
    notes = []
    if not testset_entry:
        data = config.get("data") or {}
        configured = relative_path(
            str(data.get("testset") or "the test set"), project_root
        )
        rerun += " --source-testset <test set>"
        pointer = (config.get("release") or {}).get("testset_pointer")
        notes += [
            "",
            "This archive does not hold the test set"
            f" ({pointer or 'it is distributed separately'}). Get it as the"
            " campaign read it (`data.testset` in `config.json`:"
            f" `{configured}`, format `{data.get('format') or 'tuna'}`) and give"
            " its file or folder as `<test set>`: `stecflow rerun` prepares it"
            " as the campaign did.",
        ]
    previous = (config.get("report") or {}).get("previous_release")
    if previous:
        rerun += " --previous <previous archive>"
        notes += [
            "",
            "This release compares its results with the previous release"
            f" (`{relative_path(str(previous), project_root)}`): give that"
            " archive as `<previous archive>`.",
        ]
    built = (
        f"It was built by {_software(software)}: `{software['wheel']}` is that"
        " stecflow, which the lock file installs (`--find-links .`), so no"
        " package index needs to hold it."
        if software
        else "Install the stecflow version the lock file names."
    )
    return [
        "## Re-running",
        "",
        "The statistics and the report can be made again from this archive"
        " alone and compared with the archived ones byte for byte. " + built,
        "",
        "Use the Python version of `environment/python.txt` (the lock pins the"
        " packages built for it). In an empty folder holding only"
        f" `{archive}`:",
        "",
        "```bash",
        *_commented(
            [
                (f"python -m zipfile -e {archive} release", "unpack (or any unzip)"),
                ("python -m venv venv", "a new, empty environment"),
                (
                    "venv/bin/pip install --no-deps"
                    " -r release/environment/requirements.lock",
                    "",
                ),
                (rerun, ""),
            ]
        ),
        "```",
        "",
        "(On Windows: `venv\\Scripts\\pip` and `venv\\Scripts\\stecflow`.)"
        " pip installs every package at the version the release was built with"
        " (from PyPI) and stecflow from `release/environment/`; the lock pins"
        " stecflow and every package it needs, as installed where it was built,"
        " so pip is told not to resolve dependencies again (`--no-deps`)."
        " `stecflow rerun`"
        f" unpacks the archive into `rerun-check/{results}/`, checks every file"
        " against `MANIFEST.tsv`, runs the statistics and renders the report"
        " again into `rerun-check/rerun/`, prints `identical` or `DIFFERENT` for"
        " each file and exits with status 0 when all are identical.",
        *notes,
        "",
    ]

"""Symbolic links in submissions/: nothing outside the submissions folder is read.

Teams' folders are untrusted. A link that leads out of ``submissions/`` (an
``outputs.xml``, a ``system.yaml``, a system folder, a team folder) must never be
followed: discovery lists such folders as unreadable, validation rejects such
files with an error naming the link, and scoring, the release archive and the
human studies never open them. Links that resolve inside ``submissions/`` are
followed (README, "Submissions").
"""

from __future__ import annotations

import hashlib
import os
import site
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from stecflow.campaign import discover_submissions, late_submissions
from stecflow.core.io import read_json, read_tsv
from stecflow.release.archive import build_release
from stecflow.scoring.score import score_submission
from stecflow.studies.setup import build_stimuli, design_study, study_specs
from stecflow.submissions.safepath import (
    OutsideLinkError,
    is_submission_file,
    leads_outside,
    read_inside,
    read_submission_file,
    resolve_inside,
)
from stecflow.submissions.summary import summarise_validation
from stecflow.submissions.validation import validate_to_files
from tests.conftest import REPO

TASKS = ["end_to_end", "attribute_selection"]
DEADLINE = "2026-06-01T23:59:59Z"
CANARY = "zebra canary quokka"  # words no submission of the fixture uses
SCORING = {
    "metrics": [{"id": "dice"}, {"id": "string_accuracy"}],
    "bootstrap": {"resamples": 20, "seed": 1},
}


def _metadata(team: str, system: str, **extra: object) -> str:
    fields = {
        "team": team,
        "system": system,
        "description": f"{system} test system",
        "contact": "someone@example.org",
        "primary": True,
        "submitted": "2026-05-01T10:00:00Z",
        "tasks": TASKS,
        "reference": False,
        "release_consent": True,
        **extra,
    }
    return yaml.safe_dump(fields, sort_keys=False)


def _write_system(folder: Path, team: str, system: str, outputs: str, **extra) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "system.yaml").write_text(_metadata(team, system, **extra))
    (folder / "outputs.xml").write_text(outputs)


@pytest.fixture
def linked(tiny_campaign: Path, tmp_path: Path) -> dict[str, Path]:
    """The tiny campaign plus submissions with links out of (and inside) it.

    Every file outside is a *valid* submission carrying the canary, so following
    any of the links would get it accepted, scored and released.
    """
    root = tiny_campaign / "submissions"
    good = (root / "alpha" / "sys1" / "outputs.xml").read_text()
    canary_outputs = good.replace("the red chair", f"the red {CANARY}", 1)
    assert CANARY in canary_outputs
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "outputs.xml").write_text(canary_outputs)
    (outside / "system.yaml").write_text(
        _metadata("delta", "meta-link", description=CANARY, late=True)
    )
    _write_system(
        outside / "sysdir", "delta", "dir-link", canary_outputs, description=CANARY
    )
    _write_system(
        outside / "teamdir" / "sys", "epsilon", "sys", canary_outputs, late=True
    )
    delta = root / "delta"
    # a file link out: outputs.xml
    _write_system(delta / "file-link", "delta", "file-link", good)
    (delta / "file-link" / "outputs.xml").unlink()
    (delta / "file-link" / "outputs.xml").symlink_to(outside / "outputs.xml")
    # a file link out: system.yaml
    _write_system(delta / "meta-link", "delta", "meta-link", good)
    (delta / "meta-link" / "system.yaml").unlink()
    (delta / "meta-link" / "system.yaml").symlink_to(outside / "system.yaml")
    # a system-folder link out, and a team-folder link out
    (delta / "dir-link").symlink_to(outside / "sysdir")
    (root / "epsilon").symlink_to(outside / "teamdir")
    # links inside submissions/: a shared outputs file, and a system folder alias
    _write_system(delta / "shared", "delta", "shared", good)
    (delta / "shared" / "outputs.xml").unlink()
    (delta / "shared" / "outputs.xml").symlink_to(
        Path("..") / ".." / "alpha" / "sys1" / "outputs.xml"
    )
    (delta / "alias").symlink_to(Path("..") / "alpha" / "sys1")
    return {"campaign": tiny_campaign, "root": root, "outside": outside}


# ----------------------------------------------------------------- the audit hook

#: Paths opened while recording (None: not recording). Audit hooks cannot be
#: removed, so the one hook installed stays for the session and records only
#: while a test switches it on.
_OPENED: list[object] | None = None
_HOOKED = False


def _audit(event: str, args: tuple) -> None:
    if _OPENED is not None and event == "open":
        _OPENED.append(args[0])


def _start_recording() -> None:
    global _OPENED, _HOOKED
    if not _HOOKED:
        sys.addaudithook(_audit)
        _HOOKED = True
    _OPENED = []


def _stop_recording() -> list[str]:
    global _OPENED
    opened, _OPENED = _OPENED or [], None
    return [
        os.path.realpath(os.fsdecode(p))
        for p in opened
        if isinstance(p, (str, bytes, os.PathLike))
    ]


def _python_roots() -> list[str]:
    """Where Python, its time-zone data and the installed packages live."""
    import zoneinfo

    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    roots.update(zoneinfo.TZPATH)
    roots.update(site.getsitepackages())
    roots.add(site.getusersitepackages())
    roots.add(str(REPO / "src"))  # stecflow itself, installed in editable mode
    # where imports look (Snakemake adds .snakemake/pip-deployments), which the
    # release's environment lock lists
    roots.update(p for p in sys.path if p and os.path.isabs(p))
    return [os.path.realpath(r) for r in roots]


def _package_metadata(path: str) -> bool:
    """Metadata of an installed package, wherever it was installed from (the
    release's environment lock reads every package's name and version)."""
    return Path(path).parent.suffix in (".dist-info", ".egg-info")


def _is_under(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def _run_campaign(
    campaign: Path, root: Path, results: Path
) -> tuple[list[Path], OutsideLinkError | None]:
    """Discovery, validation, scoring, the summary, the release and a study.

    The link folders that discovery refuses are also validated and scored
    directly, as a caller of the library might: they must be refused there too.
    Returns the validation records and the error that refused the study's
    stimuli (the study lists a system whose outputs.xml links out).
    """
    config = yaml.safe_load((campaign / "config" / "config.yaml").read_text())
    testset = campaign / "testset.xml"
    discovery = discover_submissions(root)
    late_submissions(root, discovery.submissions, DEADLINE)
    records = []
    direct = [("delta", "dir-link"), ("epsilon", "sys")]
    for team, system in [*discovery.submissions, *direct]:
        record = results / "validation" / team / f"{system}.json"
        validate_to_files(
            root / team / system,
            testset,
            team=team,
            system=system,
            campaign_tasks=TASKS,
            deadline=DEADLINE,
            json_path=record,
            md_path=record.with_suffix(".md"),
        )
        score_submission(
            record,
            root / team / system,
            testset,
            SCORING,
            results / "scores" / "items" / team / f"{system}.tsv",
            results / "scores" / "systems" / team / f"{system}.json",
        )
        records.append(record)
    summarise_validation(
        records[: len(discovery.submissions)],
        [list(problem) for problem in discovery.problems],
        results / "validation" / "summary.tsv",
    )
    build_release(
        config,
        validation_records=records,
        submissions_root=root,
        files={},
        out_zip=results / "release" / "tiny-1.zip",
    )
    spec = study_specs(
        {
            "studies": [
                {
                    **config["studies"][0],
                    "systems": ["alpha/sys1", "delta/file-link"],
                }
            ]
        }
    )[0]
    study = results / "studies" / "links"
    design_study(
        spec,
        testset,
        None,
        study / "design.tsv",
        study / "balance.tsv",
        study / "design.json",
    )
    try:
        build_stimuli(
            spec,
            study / "design.tsv",
            testset,
            None,
            {s: root / s for s in spec["systems"]},
            None,
            study / "web",
            study / "dmdx",
        )
    except OutsideLinkError as exc:
        return records, exc
    return records, None


def _result_bytes(results: Path) -> dict[str, bytes]:
    """Every result file's bytes, with the members of zip archives unpacked."""
    found = {}
    for path in sorted(results.rglob("*")):
        if not path.is_file():
            continue
        found[str(path)] = path.read_bytes()
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                for name in archive.namelist():
                    found[f"{path}!{name}"] = archive.read(name)
    return found


def test_nothing_outside_the_submissions_folder_is_opened(linked, tmp_path):
    campaign, root, outside = linked["campaign"], linked["root"], linked["outside"]
    results = campaign / "results"
    _start_recording()
    try:
        _, study_error = _run_campaign(campaign, root, results)
    finally:
        opened = _stop_recording()
    allowed = [os.path.realpath(campaign), *_python_roots()]
    assert [
        p for p in opened if not _is_under(p, allowed) and not _package_metadata(p)
    ] == []
    assert not [p for p in opened if _is_under(p, [os.path.realpath(outside)])]
    # the files of the submissions were opened, so the hook did record
    assert os.path.realpath(root / "alpha" / "sys1" / "outputs.xml") in opened

    # nothing of the outside files reached the results, not even a checksum
    secrets = [CANARY.encode()] + [
        hashlib.sha256(p.read_bytes()).hexdigest().encode()
        for p in outside.rglob("*")
        if p.is_file()
    ]
    leaks = [
        name
        for name, data in _result_bytes(results).items()
        for secret in secrets
        if secret in data
    ]
    assert leaks == []
    assert study_error is not None
    assert study_error.field == "delta/file-link/outputs.xml"
    assert not (results / "studies" / "links" / "web").exists()

    summary = {
        (r["team"], r["system"]): r
        for r in read_tsv(results / "validation" / "summary.tsv")
    }
    link_reason = (
        "a symbolic link that leads out of the submissions folder (stecflow follows"
        " links only inside it); put the {} folder itself here"
    )
    assert summary[("delta", "dir-link")]["status"] == "unreadable"
    assert summary[("delta", "dir-link")]["first_error"] == (
        "delta/dir-link: " + link_reason.format("system")
    )
    assert summary[("epsilon", "")]["status"] == "unreadable"
    assert summary[("epsilon", "")]["first_error"] == (
        "epsilon: " + link_reason.format("team")
    )
    file_error = (
        "a symbolic link that leads out of the submissions folder (stecflow follows"
        " links only inside it); put the file or folder itself there"
    )
    assert summary[("delta", "file-link")]["status"] == "rejected"
    assert summary[("delta", "file-link")]["first_error"] == (
        "delta/file-link/outputs.xml, delta/file-link/outputs.xml: " + file_error
    )
    assert summary[("delta", "meta-link")]["status"] == "rejected"
    assert summary[("delta", "meta-link")]["first_error"] == (
        "delta/meta-link/system.yaml, delta/meta-link/system.yaml: " + file_error
    )
    assert summary[("delta", "meta-link")]["late"] == "false"  # the outside said late
    assert summary[("delta", "shared")]["status"] == "accepted"
    assert summary[("alpha", "sys1")]["status"] == "accepted"

    # validated directly, a folder link out is rejected, both files naming the link
    for (team, system), link in [
        (("delta", "dir-link"), "delta/dir-link"),
        (("epsilon", "sys"), "epsilon"),
    ]:
        record = read_json(results / "validation" / team / f"{system}.json")
        assert record["status"] == "rejected"
        assert [(e["code"], e["file"], e["field"]) for e in record["errors"]] == [
            ("outside_link", f"{team}/{system}/system.yaml", link),
            ("outside_link", f"{team}/{system}/outputs.xml", link),
        ]
        assert record["checksums"] == {"outputs.xml": None, "system.yaml": None}
        assert record["n_outputs"] == 0
        scores = read_json(results / "scores" / "systems" / team / f"{system}.json")
        assert scores["status"] == "skipped"

    with zipfile.ZipFile(results / "release" / "tiny-1.zip") as archive:
        released = sorted(n for n in archive.namelist() if n.startswith("submissions/"))
    assert released == [
        "submissions/alpha/sys1/outputs.xml",
        "submissions/alpha/sys1/system.yaml",
        "submissions/beta/sys2/outputs.xml",
        "submissions/beta/sys2/system.yaml",
        "submissions/delta/shared/outputs.xml",
        "submissions/delta/shared/system.yaml",
    ]


def test_links_inside_the_submissions_folder_are_followed(linked):
    """A link that resolves inside submissions/ works like the file it points at."""
    campaign, root = linked["campaign"], linked["root"]
    results = campaign / "results"
    records, _ = _run_campaign(campaign, root, results)
    names = [p.relative_to(results / "validation").as_posix() for p in records]
    assert "delta/alias.json" in names and "delta/shared.json" in names
    shared = read_json(results / "validation" / "delta" / "shared.json")
    original = read_json(results / "validation" / "alpha" / "sys1.json")
    assert shared["status"] == "accepted"
    assert shared["n_outputs"] == original["n_outputs"] == 4
    assert shared["checksums"]["outputs.xml"] == original["checksums"]["outputs.xml"]
    a = read_json(results / "scores" / "systems" / "delta" / "shared.json")["scores"]
    b = read_json(results / "scores" / "systems" / "alpha" / "sys1.json")["scores"]
    assert [s["value"] for s in a] == [s["value"] for s in b]
    # the alias folder is read through the link: its metadata names alpha/sys1
    alias = read_json(results / "validation" / "delta" / "alias.json")
    assert [(e["code"], e["field"]) for e in alias["errors"]] == [
        ("metadata_mismatch", "team"),
        ("metadata_mismatch", "system"),
    ]
    assert alias["n_outputs"] == 4


def test_discovery_refuses_folder_links_out_and_follows_links_in(linked, tmp_path):
    root = linked["root"]
    (root / "delta" / "dangling").symlink_to(root / "delta" / "nowhere")
    found = discover_submissions(root)
    assert ("delta", "alias") in found.submissions
    assert ("delta", "shared") in found.submissions
    assert ("delta", "dir-link") not in found.submissions
    assert not any(team == "epsilon" for team, _ in found.submissions)
    reasons = dict(found.problems)
    assert reasons["delta/dangling"] == (
        "a symbolic link to nothing where a system folder was expected"
    )
    assert reasons["delta/dir-link"].startswith("a symbolic link that leads out")
    assert reasons["epsilon"].startswith("a symbolic link that leads out")


def test_late_submissions_ignore_metadata_linked_from_outside(linked):
    root = linked["root"]
    found = discover_submissions(root)
    late_in_fixture = {("beta", "sys2")}
    # delta/meta-link's outside system.yaml says late: true, and is not read
    assert late_submissions(root, found.submissions, DEADLINE) == late_in_fixture
    (root / "delta" / "shared" / "system.yaml").write_text(
        _metadata("delta", "shared", late=True)
    )
    assert late_submissions(root, found.submissions, DEADLINE) == {
        *late_in_fixture,
        ("delta", "shared"),
    }


def test_scoring_refuses_outputs_that_became_a_link_out(linked, tmp_path):
    """Accepted at validation, then swapped for a link: scoring reads nothing."""
    campaign, root, outside = linked["campaign"], linked["root"], linked["outside"]
    folder = root / "alpha" / "sys1"
    record = tmp_path / "v.json"
    validate_to_files(
        folder,
        campaign / "testset.xml",
        team="alpha",
        system="sys1",
        campaign_tasks=TASKS,
        deadline=DEADLINE,
        json_path=record,
        md_path=tmp_path / "v.md",
    )
    (folder / "outputs.xml").unlink()
    (folder / "outputs.xml").symlink_to(outside / "outputs.xml")
    with pytest.raises(OutsideLinkError) as info:
        score_submission(
            record,
            folder,
            campaign / "testset.xml",
            SCORING,
            tmp_path / "i.tsv",
            tmp_path / "s.json",
        )
    assert info.value.field == "alpha/sys1/outputs.xml"
    assert not (tmp_path / "s.json").exists()


# ------------------------------------------------------------- stecflow.submissions.safepath


def test_resolve_inside_names_the_first_link_out(linked):
    root = linked["root"]
    with pytest.raises(OutsideLinkError) as info:
        resolve_inside(root / "epsilon" / "sys" / "outputs.xml", root)
    assert (info.value.file, info.value.field) == ("epsilon/sys/outputs.xml", "epsilon")
    assert resolve_inside(root / "delta" / "shared" / "outputs.xml", root) == (
        (root / "alpha" / "sys1" / "outputs.xml").resolve()
    )
    assert leads_outside(root / "delta" / "dir-link" / "outputs.xml", root)
    assert not leads_outside(root / "delta" / "alias" / "outputs.xml", root)
    # missing files are the caller's to report
    assert resolve_inside(root / "alpha" / "none.xml", root) == (
        root.resolve() / "alpha" / "none.xml"
    )
    with pytest.raises(OutsideLinkError, match="not inside the submissions folder"):
        resolve_inside(root / ".." / "testset.xml", root)


def test_root_given_through_a_link_works(linked, tmp_path):
    """The submissions folder itself may be a link (e.g. to a mounted disk)."""
    alias = tmp_path / "subs"
    alias.symlink_to(linked["root"])
    assert ("alpha", "sys1") in discover_submissions(alias).submissions
    data = read_submission_file(alias / "alpha" / "sys1", "outputs.xml")
    assert data == (linked["root"] / "alpha" / "sys1" / "outputs.xml").read_bytes()
    assert is_submission_file(alias / "delta" / "shared", "outputs.xml")
    assert not is_submission_file(alias / "delta" / "file-link", "outputs.xml")


def test_only_regular_files_are_read(linked):
    root = linked["root"]
    fifo = root / "alpha" / "sys1" / "fifo.xml"
    os.mkfifo(fifo)
    with pytest.raises(Exception, match="is not a regular file"):
        read_inside(fifo, root)  # returns at once: a FIFO is never waited on
    with pytest.raises(Exception, match="is not a regular file"):
        read_inside(root / "alpha", root)
    assert not is_submission_file(root / "alpha" / "sys1", "fifo.xml")


def test_the_quick_file_check_agrees_with_the_full_resolution(linked, tmp_path):
    """is_submission_file answers plain folders with lstat alone: on every entry of
    the tree of links (files, links in and out, folders, fifos, missing names),
    through the root and through a link to it, it says what resolving says."""
    from stecflow.submissions.safepath import _resolves_to_file

    root = linked["root"]
    os.mkfifo(root / "alpha" / "sys1" / "fifo.xml")
    (root / "alpha" / "sys1" / "folder.xml").mkdir()
    alias = tmp_path / "subs"
    alias.symlink_to(root)
    checked = []
    for base in (root, alias):
        for team in os.listdir(base):
            for system in os.listdir(base / team) if (base / team).is_dir() else []:
                folder = base / team / system
                names = os.listdir(folder) if folder.is_dir() else []
                for name in [*names, "missing.xml", "../sys1/outputs.xml"]:
                    quick = is_submission_file(folder, name)
                    assert quick == _resolves_to_file(folder, name), (folder, name)
                    checked.append(quick)
    assert checked.count(True) >= 8 and checked.count(False) >= 8

"""What changed since the previous release: synthetic results, exact change lists."""

from __future__ import annotations

import copy
import zipfile
from pathlib import Path
from typing import Any

import pytest

from stecflow.core.errors import StecflowError
from stecflow.core.io import write_json, write_tsv
from stecflow.release.archive import build_release
from stecflow.report.changes import (
    MAX_MEMBER_BYTES,
    Change,
    changes_since,
    read_release,
)

SUMMARY_COLUMNS = ["team", "system", "status", "late"]
SYSTEMS_COLUMNS = [
    "team",
    "system",
    "status",
    "metric",
    "metric_name",
    "subset_kind",
    "subset",
    "value",
    "signature",
]
CONFIG: dict[str, Any] = {
    "campaign": {"id": "toy", "title": "Toy", "tasks": ["end_to_end"], "version": "1"},
    "studies": [{"id": "ratings"}],
    "release": {},
}


def score(team, system, metric, value, signature, kind="all", subset="all"):
    return {
        "team": team,
        "system": system,
        "status": "scored",
        "metric": metric.lower(),
        "metric_name": metric,
        "subset_kind": kind,
        "subset": subset,
        "value": value,
        "signature": signature,
    }


def write_results(
    folder: Path,
    *,
    summary: list[dict[str, str]],
    systems: list[dict[str, str]],
    stats: dict[str, list[dict[str, str]]],
) -> dict[str, Any]:
    """Write one version's results; return changes_since's keyword arguments."""
    (folder / "validation").mkdir(parents=True)
    (folder / "scores").mkdir()
    write_tsv(summary, SUMMARY_COLUMNS, folder / "validation" / "summary.tsv")
    write_tsv(systems, SYSTEMS_COLUMNS, folder / "scores" / "systems.tsv")
    records = []
    for name, text in stats.items():
        path = folder / "stats" / f"{name}.json"
        write_json({"id": name, "text": text}, path)
        records.append(path)
    return {
        "validation_summary": folder / "validation" / "summary.tsv",
        "systems": folder / "scores" / "systems.tsv",
        "stats_records": records,
    }


def archive(config, inputs, out: Path) -> Path:
    files = {
        "validation/summary.tsv": inputs["validation_summary"],
        "scores/systems.tsv": inputs["systems"],
        **{f"stats/{Path(p).name}": p for p in inputs["stats_records"]},
    }
    build_release(
        config,
        validation_records=[],
        submissions_root=out.parent,
        files=files,
        out_zip=out,
    )
    return out


@pytest.fixture
def versions(tmp_path):
    """Version 1 as an archive; version 2's config and result files."""
    v1 = write_results(
        tmp_path / "v1",
        summary=[
            {"team": "a", "system": "s1", "status": "accepted", "late": "false"},
            {"team": "b", "system": "s2", "status": "rejected", "late": "false"},
            {"team": "c", "system": "s3", "status": "accepted", "late": "false"},
        ],
        systems=[
            score("a", "s1", "BLEU-3", "27.5", "BLEU-3|bs:1000"),
            score("a", "s1", "BLEU-3", "20.0", "BLEU-3|bs:1000", "subdomain", "x"),
            score("a", "s1", "Accuracy", "0.5", "Accuracy|v1"),
            score("c", "s3", "BLEU-3", "10.0", "BLEU-3|bs:1000"),
        ],
        stats={
            "bleu-anova": [{"about": "system", "text": "F(1, 8) = 2.00, p = .195"}],
            "old-test": [{"text": "nothing"}],
        },
    )
    previous = archive(CONFIG, v1, tmp_path / "release" / "toy-1.zip")
    config = copy.deepcopy(CONFIG)
    config["campaign"]["version"] = "2"
    config["studies"].append({"id": "identification"})
    config["report"] = {"changes": ["Late submission of team d added."]}
    v2 = write_results(
        tmp_path / "v2",
        summary=[
            {"team": "a", "system": "s1", "status": "accepted", "late": "false"},
            {"team": "b", "system": "s2", "status": "accepted", "late": "false"},
            {"team": "d", "system": "new", "status": "accepted", "late": "true"},
        ],
        systems=[
            # within the tolerance: no change
            score("a", "s1", "BLEU-3", "27.50000000001", "BLEU-3|bs:2000"),
            score("a", "s1", "BLEU-3", "21.0", "BLEU-3|bs:2000", "subdomain", "x"),
            score("a", "s1", "Accuracy", "0.75", "Accuracy|v1"),
            score("b", "s2", "BLEU-3", "12.0", "BLEU-3|bs:2000"),
            score("d", "new", "BLEU-3", "30.0", "BLEU-3|bs:2000"),
        ],
        stats={
            "bleu-anova": [{"about": "system", "text": "F(2, 9) = 5.10, p = .033"}],
            "new-test": [{"text": "something"}],
        },
    )
    return previous, config, v2


def test_changes_are_listed_exactly(versions):
    previous, config, current = versions
    result = changes_since(previous, config=config, **current)
    assert result["previous_version"] == "1"
    assert result["version"] == "2"
    assert result["notes"] == ["Late submission of team d added."]
    assert result["changes"] == [
        Change("submission_added", "d/new", "", "accepted", "d/new added (accepted)"),
        Change("submission_removed", "c/s3", text="c/s3 removed"),
        Change("status", "b/s2", "rejected", "accepted", "b/s2: rejected → accepted"),
        Change("score", "a/s1 Accuracy", "0.5", "0.75", "a/s1, Accuracy: 0.5 → 0.75"),
        Change(
            "signature",
            "BLEU-3",
            "BLEU-3|bs:1000",
            "BLEU-3|bs:2000",
            "BLEU-3 signature: BLEU-3|bs:1000 → BLEU-3|bs:2000",
        ),
        Change(
            "analysis_added", "new-test", "", "something", "analysis new-test added"
        ),
        Change("analysis_removed", "old-test", text="analysis old-test removed"),
        Change(
            "analysis_changed",
            "bleu-anova",
            "system: F(1, 8) = 2.00, p = .195",
            "system: F(2, 9) = 5.10, p = .033",
            "analysis bleu-anova: system: F(1, 8) = 2.00, p = .195"
            " → system: F(2, 9) = 5.10, p = .033",
        ),
        Change("study_added", "identification", text="study identification added"),
    ]


def test_same_results_no_changes_and_deterministic(versions, tmp_path):
    previous, config, current = versions
    again = archive(config, current, tmp_path / "again.zip")
    assert changes_since(again, config=config, **current)["changes"] == []
    first = changes_since(previous, config=config, **current)
    assert first == changes_since(previous, config=config, **current)


def test_late_flag_changes_are_listed(tmp_path):
    row = {"team": "a", "system": "s1", "status": "accepted", "late": "false"}
    old = write_results(tmp_path / "old", summary=[row], systems=[], stats={})
    new = write_results(
        tmp_path / "new", summary=[row | {"late": "true"}], systems=[], stats={}
    )
    previous = archive(CONFIG, old, tmp_path / "old.zip")
    changes = changes_since(previous, config=CONFIG, **new)["changes"]
    assert changes == [Change("late", "a/s1", "false", "true", "a/s1: now late")]


def test_first_version(versions):
    _, config, current = versions
    result = changes_since(None, config=config, **current)
    assert result["previous_version"] is None
    assert result["changes"] == []


def test_missing_archive_names_the_path_and_the_key(versions, tmp_path):
    _, config, current = versions
    missing = tmp_path / "nowhere" / "toy-0.zip"
    with pytest.raises(StecflowError) as error:
        changes_since(missing, config=config, **current)
    assert str(missing) in str(error.value)
    assert "report.previous_release" in str(error.value)


def test_absurd_members_are_refused(tmp_path):
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as bomb:
        bomb.writestr("config.json", "{}")
        bomb.writestr("scores/systems.tsv", b"\0" * (MAX_MEMBER_BYTES + 1))
    with pytest.raises(StecflowError, match="larger than|more than"):
        read_release(path)


def test_not_a_zip_is_an_error(tmp_path):
    path = tmp_path / "toy-1.zip"
    path.write_text("not a zip")
    with pytest.raises(StecflowError, match="report.previous_release"):
        read_release(path)

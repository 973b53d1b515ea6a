"""The stecflow command line: help, exit codes, and the same report as the workflow."""

from __future__ import annotations

import subprocess
import sys

import pytest

from stecflow.cli import build_parser, main
from tests.conftest import REPO

TINY_TESTSET = REPO / "tests" / "fixtures" / "tiny_campaign" / "testset.xml"


def test_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for command in (
        "validate",
        "score",
        "baseline",
        "serve",
        "export",
        "convert",
        "demo",
    ):
        assert command in out


@pytest.mark.parametrize(
    "command", ["validate", "score", "baseline", "convert", "demo"]
)
def test_each_subcommand_has_help(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    assert out.startswith(f"usage: stecflow {command}")
    assert len(out.splitlines()) > 5


def test_validate_exit_codes(tiny_campaign, capsys):
    good = tiny_campaign / "submissions" / "alpha" / "sys1"
    bad = tiny_campaign / "submissions" / "gamma" / "broken"
    assert main(["validate", str(good), "--testset", str(TINY_TESTSET)]) == 0
    assert "**Status: ACCEPTED**" in capsys.readouterr().out
    assert main(["validate", str(bad), "--testset", str(TINY_TESTSET)]) == 1
    out = capsys.readouterr().out
    assert (
        "**Status: REJECTED**" in out
        and "| gamma/broken/outputs.xml | 12 | TRIAL t9 |" in out
    )


def test_validate_prints_what_the_workflow_writes(tiny_campaign, capsys, tmp_path):
    from stecflow.corpus import read_items
    from stecflow.validation import format_report, validate_submission

    bad = tiny_campaign / "submissions" / "gamma" / "broken"
    config = tiny_campaign / "config" / "config.yaml"
    assert (
        main(
            [
                "validate",
                str(bad),
                "--config",
                str(config),
                "--testset",
                str(TINY_TESTSET),
                "--json",
                str(tmp_path / "r.json"),
            ]
        )
        == 1
    )
    printed = capsys.readouterr().out
    record = validate_submission(
        bad,
        read_items(TINY_TESTSET),
        team="gamma",
        system="broken",
        campaign_tasks=["end_to_end", "attribute_selection"],
        deadline="2026-06-01T23:59:59Z",
    )
    assert printed == format_report(record) + "\n"
    assert (tmp_path / "r.md").read_text() == format_report(record)


def test_validate_late_deadline_flag(tiny_campaign, capsys):
    beta = tiny_campaign / "submissions" / "beta" / "sys2"
    assert (
        main(
            [
                "validate",
                str(beta),
                "--testset",
                str(TINY_TESTSET),
                "--deadline",
                "2026-06-01T00:00:00Z",
            ]
        )
        == 0
    )
    assert "(late submission)" in capsys.readouterr().out


def test_usage_errors_are_plain(tmp_path, capsys):
    assert (
        main(["validate", str(tmp_path / "nowhere"), "--testset", str(TINY_TESTSET)])
        == 2
    )
    assert "not a folder" in capsys.readouterr().err
    assert main(["validate", str(tmp_path)]) == 2
    assert "--testset" in capsys.readouterr().err
    assert main(["score", str(tmp_path / "missing.xml"), str(tmp_path / "o.xml")]) == 2
    assert "cannot read the file" in capsys.readouterr().err


def test_convert(tmp_path, capsys):
    out = tmp_path / "t.xml"
    assert main(["convert", str(TINY_TESTSET), str(out)]) == 0
    assert out.read_bytes() == TINY_TESTSET.read_bytes()


def test_console_script_is_installed():
    result = subprocess.run(
        [sys.executable, "-m", "stecflow.cli", "--version"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0 and result.stdout.startswith("stecflow ")
    assert build_parser().prog == "stecflow"

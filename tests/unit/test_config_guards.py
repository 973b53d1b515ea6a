"""Organiser configs refused up front, with the key path (issue #38, point 6).

An alias bomb in ``campaign.description`` took 43 s to a MemoryError at 2.9 GB; a
key given twice was taken silently; ``resamples: 10^12`` passed the schema and
failed in the first scoring job; ``submissions.root: /`` said "not a submission"
of every folder of the file system.
"""

from __future__ import annotations

import os
import subprocess
import time

import pytest
import yaml

from stecflow import campaign
from stecflow.core.errors import ConfigError
from tests.conftest import REPO, TINY
from tests.workflow.helpers import snakemake_command

SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"


def test_an_alias_bomb_is_refused_at_once_with_line_and_key(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(
        "campaign:\n  id: x\n  description: &d [a, b]\n  title: *d\n", "utf-8"
    )
    started = time.perf_counter()
    with pytest.raises(ConfigError) as caught:
        campaign.read_config_file(path)
    assert time.perf_counter() - started < 1
    error = caught.value
    assert (error.file, error.line, error.field) == (
        str(path),
        3,
        "campaign.description",
    )
    assert error.message.startswith("anchors (&d) are not allowed")


def test_a_key_given_twice_is_refused(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("scoring:\n  bootstrap:\n    seed: 1\n    seed: 2\n", "utf-8")
    with pytest.raises(ConfigError) as caught:
        campaign.read_config_file(path)
    assert str(caught.value) == (
        f"{path}, line 4: key 'seed' is given twice (first on line 3); keep one"
    )


def test_a_lone_surrogate_in_a_config_names_the_key_path(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text('campaign:\n  id: x\n  title: "T\\ud800"\n', "utf-8")
    with pytest.raises(ConfigError) as caught:
        campaign.read_config_file(path)
    assert (caught.value.line, caught.value.field) == (3, "campaign.title")
    assert "U+D800" in caught.value.message


def test_every_shipped_config_passes_the_hardened_reader():
    paths = sorted((REPO / "config").glob("*.yaml"))
    paths += sorted(TINY.glob("config/*.yaml"))
    campaign.check_config_files(paths)
    for path in paths:  # and reads as a plain loader reads it (no dates here)
        assert campaign.read_config_file(path) == yaml.safe_load(path.read_text())


@pytest.mark.parametrize(
    ("keys", "field"),
    [
        (("scoring", "bootstrap", "resamples"), "config.scoring.bootstrap.resamples"),
        (
            ("scoring", "significance", "resamples"),
            "config.scoring.significance.resamples",
        ),
    ],
)
def test_resamples_have_a_maximum(keys, field):
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    node = config
    for key in keys[:-1]:
        node = node.setdefault(key, {})
    node[keys[-1]] = 10**12
    with pytest.raises(ConfigError) as caught:
        campaign.validate_config(config, SCHEMA)
    assert caught.value.field == field
    assert "is greater than the maximum of 10000" in caught.value.message
    node[keys[-1]] = 10000
    campaign.validate_config(config, SCHEMA)


@pytest.mark.parametrize(
    ("root", "what"),
    [
        ("/", "the root of the file system"),
        (".", "the campaign's own folder"),
        ("..", "a folder above the campaign"),
    ],
)
def test_a_submissions_root_holding_the_campaign_is_refused(
    root, what, tmp_path, monkeypatch
):
    (tmp_path / "campaign").mkdir()
    monkeypatch.chdir(tmp_path / "campaign")
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["submissions"]["root"] = root
    with pytest.raises(ConfigError) as caught:
        campaign.check_config(config)
    assert caught.value.field == "submissions.root"
    assert caught.value.message.startswith(f"{root!r} is {what}: every folder")
    config["submissions"]["root"] = "submissions"
    campaign.check_config(config)


def test_cli_validate_reads_the_config_as_the_workflow_does(tmp_path, capsys):
    from stecflow import cli

    config = tmp_path / "config.yaml"
    config.write_text(
        (TINY / "config" / "config.yaml").read_text() + "campaign:\n  id: again\n"
    )
    code = cli.main(
        [
            "validate",
            str(TINY / "submissions" / "alpha" / "sys1"),
            "--config",
            str(config),
        ]
    )
    assert code != 0
    err = capsys.readouterr().err
    assert "key 'campaign' is given twice" in err and str(config) in err


@pytest.mark.workflow
def test_the_workflow_refuses_an_alias_bomb_before_walking_it(tmp_path):
    import shutil

    work = tmp_path / "c"
    shutil.copytree(TINY, work)
    levels = ['lol: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    levels += [
        f"l{n}: &l{n} [" + ", ".join([f"*l{n - 1}"] * 9) + "]" for n in range(1, 9)
    ]
    config = work / "config" / "config.yaml"
    text = config.read_text()
    config.write_text(
        "x-bomb:\n" + "".join(f"  {line}\n" for line in levels) + text, "utf-8"
    )
    started = time.perf_counter()
    result = subprocess.run(
        snakemake_command(work, "--dry-run", "--configfile", str(config)),
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    assert result.returncode != 0
    assert time.perf_counter() - started < 60
    out = result.stdout + result.stderr
    assert "line 2, x-bomb.lol: anchors (&l0) are not allowed" in out, out[-2000:]


def test_cli_score_resamples_have_the_same_maximum(capsys):
    from stecflow import cli

    code = cli.main(
        [
            "score",
            str(TINY / "testset.xml"),
            str(TINY / "submissions" / "alpha" / "sys1" / "outputs.xml"),
            "--resamples",
            str(10**12),
        ]
    )
    assert code == 2
    assert "--resamples 1000000000000: give 0 (no intervals) to 10,000" in (
        capsys.readouterr().err
    )

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
    from stecflow.data.corpus import read_items
    from stecflow.submissions.report import format_report
    from stecflow.submissions.validation import validate_submission

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


# ---------------------------------------------------------------------------
# stecflow score: the report's presentation (issue #12, point 7)

TINY_OUTPUTS = REPO / "tests" / "fixtures" / "tiny_campaign" / "submissions"
TINY_CONFIG = REPO / "tests" / "fixtures" / "tiny_campaign" / "config" / "config.yaml"


def _sys1() -> str:
    return str(TINY_OUTPUTS / "alpha" / "sys1" / "outputs.xml")


def test_score_prints_the_reports_units_labels_intervals_and_signatures(capsys):
    from stecflow.data.corpus import read_items
    from stecflow.scoring.score import score_outputs
    from stecflow.submissions.outputs import read_outputs

    metrics = ["se", "bleu3", "string_accuracy"]
    args = ["score", str(TINY_TESTSET), _sys1(), "--config", str(TINY_CONFIG)]
    assert main([*args, "--metrics", *metrics]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "Automatic scores of outputs.xml on testset.xml (4 items)."
    assert lines[2].split("  ")[0] == "Metric"
    assert "All items (n = 4)" in lines[2] and "Furniture (n = 2)" in lines[2]
    rows = {line.split("  ")[0].strip(): line for line in lines[3:6]}
    # the stored values: SE 2.375, BLEU on sacreBLEU's 0-100 scale, Acc 0.5
    items = read_items(TINY_TESTSET)
    outputs, _ = read_outputs(
        (TINY_OUTPUTS / "alpha/sys1/outputs.xml").read_bytes(), "o", items, []
    )
    _, stored = score_outputs(
        items,
        outputs,
        {
            "metrics": [{"id": m} for m in metrics],
            "bootstrap": {"resamples": 200, "seed": 11},
        },
    )
    bleu = next(r for r in stored if r["metric"] == "bleu3" and r["subset"] == "all")
    assert 70 < bleu["value"] < 75  # 0-100 as stored ...
    assert rows["SE"].split()[1:4] == ["2.38", "[1.12,", "3.75]"]
    assert rows["BLEU"].split()[1] == f"{bleu['value'] / 100:.2f}" == "0.73"  # ... 0-1
    assert rows["Acc (%)"].split()[2:5] == ["50.00", "[0.00,", "100.00]"]
    assert (
        "In brackets: 95% percentile bootstrap confidence interval (200 resamples of"
        " the items, seed 11)." in lines
    )
    assert "BLEU on a 0–1 scale (sacreBLEU's 0–100 divided by 100)." in lines
    assert "Acc in % of items." in lines
    assert f"Signature BLEU: {bleu['signature']}" in lines


def test_score_writes_tsv_json_and_latex(capsys, tmp_path):
    import json

    from stecflow.core.io import read_tsv

    args = ["score", str(TINY_TESTSET), _sys1(), "--metrics", "se", "bleu3"]
    args += ["--resamples", "0"]
    tsv, js, tex = tmp_path / "s.tsv", tmp_path / "s.json", tmp_path / "s.tex"
    assert main([*args, "--tsv", str(tsv), "--json", str(js), "--latex", str(tex)]) == 0
    assert capsys.readouterr().out.startswith("Automatic scores of outputs.xml")
    rows = read_tsv(tsv)
    assert [(r["metric"], r["label"], r["subset"], r["n"], r["value"]) for r in rows][
        :2
    ] == [("se", "SE", "all", "4", "2.38"), ("se", "SE", "furniture", "2", "1.25")]
    assert rows[5]["metric"] == "bleu3" and rows[5]["value"] == "0.73"
    assert rows[0]["ci_low"] == "" and rows[0]["signature"].startswith("SE|")
    doc = json.loads(js.read_text())
    assert (doc["n_items"], doc["n_scored"], doc["outputs"]) == (4, 4, "outputs.xml")
    assert doc["scores"][0]["value"] == "2.38" and doc["scores"][5]["label"] == "BLEU"
    latex = tex.read_text()
    assert r"Metric & All items (n = 4) & Furniture (n = 2)" in latex
    assert "\nSE & 2.38 & 1.25 & 3.50 & 3.00 & 1.75 \\\\\n" in latex
    assert "BLEU on a 0--1 scale" in latex
    # "-" writes to standard output instead of the table
    assert main([*args, "--tsv", "-"]) == 0
    assert capsys.readouterr().out == tsv.read_text()


def test_score_outputs_for_other_data_say_so_in_one_line(capsys, tmp_path):
    sys1 = (TINY_OUTPUTS / "alpha" / "sys1" / "outputs.xml").read_text()
    other = tmp_path / "dev-outputs.xml"
    other.write_text(sys1.replace('ID="t', 'ID="d'))
    assert main(["score", str(TINY_TESTSET), str(other), "--metrics", "se"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"stecflow score: error: none of the 4 outputs in {other} (IDs d1, d2, d3, …)"
        f" is an item of {TINY_TESTSET} (4 items, IDs t1, t2, t3, …); score outputs"
        " against the data they were made for\n"
    )


def test_score_partial_overlap_is_scored_with_a_warning(capsys, tmp_path):
    sys1 = (TINY_OUTPUTS / "alpha" / "sys1" / "outputs.xml").read_text()
    part = tmp_path / "part.xml"
    part.write_text(sys1.replace('ID="t1"', 'ID="x1"'))
    args = ["score", str(TINY_TESTSET), str(part), "--metrics", "se"]
    assert main([*args, "--resamples", "0"]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"warning: 1 of the 4 items of {TINY_TESTSET} has no output in {part} (t1);"
        " the scores are on the other 3 items",
        f"warning: 1 output in {part} is for items that {TINY_TESTSET} does not have"
        " (x1); not scored",
    ]
    lines = captured.out.splitlines()
    assert lines[0] == "Automatic scores of part.xml on testset.xml (3 of 4 items)."
    # t2-t4 only: SE mean(1, 0), mean(1, 7), mean(2, 4) = (0.5 + 4 + 3) / 3
    assert lines[3].split() == ["SE", "2.50", "0.50", "3.50", "4.00", "1.75"]
    assert "All items (n = 3)" in lines[2]


# ---------------------------------------------------------------------------
# stecflow validate --config: paths from the campaign folder


def test_validate_config_paths_count_from_the_campaign_folder(
    tiny_campaign, tmp_path, monkeypatch, capsys
):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    config = tiny_campaign / "config" / "config.yaml"
    # the config's testset.xml is <campaign>/testset.xml; team/system is found in
    # its submissions folder
    assert main(["validate", "alpha/sys1", "--config", str(config)]) == 0
    assert "**Status: ACCEPTED**" in capsys.readouterr().out
    # a config outside a config/ folder: paths count from its own folder
    flat = tmp_path / "flat"
    (flat / "data").mkdir(parents=True)
    (flat / "data" / "test.xml").write_bytes(TINY_TESTSET.read_bytes())
    (flat / "campaign.yaml").write_text(
        "campaign: {tasks: [end_to_end, attribute_selection]}\n"
        "data: {testset: data/test.xml}\n"
    )
    good = tiny_campaign / "submissions" / "alpha" / "sys1"
    assert main(["validate", str(good), "--config", str(flat / "campaign.yaml")]) == 0
    assert not (elsewhere / "data").exists()


# ---------------------------------------------------------------------------
# stecflow convert: which --format fits


def test_convert_says_which_format_fits_a_corpus_layout(tmp_path, capsys):
    from stecflow.data.corpus import read_items, write_items

    b5 = tmp_path / "b5-ref"
    (b5 / "ref" / "xml-descriptions").mkdir(parents=True)
    (b5 / "ref" / "b5-ref-contexts.xml").write_text("<CONTEXTS/>")
    assert main(["convert", str(b5), str(tmp_path / "out.xml")]) == 2
    assert capsys.readouterr().err == (
        f"stecflow convert: error: {b5} is a b5-ref corpus folder; give --format"
        " b5-ref\n"
    )
    tuna = tmp_path / "tuna"
    folder = tuna / "corpus" / "singular" / "furniture"
    folder.mkdir(parents=True)
    write_items(read_items(TINY_TESTSET)[:1], folder / "s1t1.xml")
    out = tmp_path / "t.xml"
    assert main(["convert", str(tuna), str(out), "--format", "b5-ref"]) == 2
    assert capsys.readouterr().err == (
        f"stecflow convert: error: {tuna} is a TUNA 1.0 corpus folder; give --format"
        " tuna\n"
    )
    assert main(["convert", str(tuna), str(out)]) == 0
    assert [i.id for i in read_items(out)] == ["t1"]


# ---------------------------------------------------------------------------
# stecflow serve: the study is checked before a URL is announced


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    from tests.browser.studykit import build_demo_study

    return build_demo_study(tmp_path_factory.mktemp("serve"))


def _copy(study, tmp_path):
    import shutil

    target = tmp_path / study.name
    shutil.copytree(study, target)
    return target


def test_serve_refuses_a_broken_study_with_a_plain_error(study, tmp_path, capsys):
    missing = tmp_path / "nowhere"
    assert main(["serve", str(missing)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"stecflow serve: error: {missing}: no such study folder; give a study ID"
        " (results/studies/<ID>) or the folder of a study the workflow built\n"
    )
    no_page = _copy(study, tmp_path / "a")
    (no_page / "web" / "index.html").unlink()
    assert main(["serve", str(no_page), "--port", "0"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"stecflow serve: error: {no_page / 'web'}: index.html is missing from the"
        " study's web folder; rebuild the study\n"
    )
    changed = _copy(study, tmp_path / "b")
    (changed / "web" / "experiment.css").write_text("body {}")
    assert main(["serve", str(changed), "--port", "0"]) == 2
    assert "experiment.css differs from MANIFEST.tsv" in capsys.readouterr().err
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    db = blocker / "responses.sqlite"
    assert main(["serve", str(study), "--db", str(db), "--port", "0"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1
    assert f"{blocker} is not a folder, so the database cannot be created" in (
        captured.err
    )


def test_serve_announces_the_url_only_once_listening(
    study, tmp_path, capsys, monkeypatch
):
    import socket

    from stecflow.studies.server import ExperimentServer

    db = tmp_path / "r.sqlite"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["serve", str(study), "--db", str(db), "--port", str(port)])
        captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err == (
        f"stecflow serve: error: cannot listen on 127.0.0.1:{port}: port {port} is"
        " in use; give another with --port\n"
    )

    def stop(self):
        raise KeyboardInterrupt  # as Ctrl-C would, once serving

    monkeypatch.setattr(ExperimentServer, "serve_forever", stop)
    assert main(["serve", str(study), "--db", str(db), "--port", "0"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"serving study demo-study ({study}) on http://127.0.0.1:")
    assert f"(responses in {db}; Ctrl-C stops)" in out


def test_study_id_is_found_in_a_campaigns_own_results_folder(tmp_path, monkeypatch):
    from stecflow.cli.common import study_dir as _study_dir
    from stecflow.core.errors import ConfigError

    monkeypatch.chdir(tmp_path)
    assert _study_dir("rating") == "results/studies/rating"  # nothing built yet
    (tmp_path / "results" / "b5-ref" / "studies" / "rating").mkdir(parents=True)
    assert _study_dir("rating") == "results/b5-ref/studies/rating"
    (tmp_path / "results" / "other" / "studies" / "rating").mkdir(parents=True)
    with pytest.raises(ConfigError, match="in several campaigns' results"):
        _study_dir("rating")
    (tmp_path / "results" / "studies" / "rating").mkdir(parents=True)
    assert _study_dir("rating") == "results/studies/rating"  # the demo's first


def test_validate_names_a_typo_in_the_config_tasks_first(tmp_path, capsys):
    """A typo in campaign.tasks (or tasks that do not fit the test set) is named
    with the config's key path before a file is read with the wrong reader."""
    text = (REPO / "config" / "text-demo.yaml").read_text(encoding="utf-8")
    team = REPO / "resources" / "text-demo" / "submissions" / "human" / "ref"
    for tasks, expected in (
        (
            "[text_generaton]",
            "campaign.tasks[0]: 'text_generaton' is not a task type stecflow knows"
            " (it knows: attribute_selection, realisation, end_to_end,"
            " situated_dialogue, text_generation)",
        ),
        (
            "[end_to_end]",
            "campaign.tasks: a JSON Lines test set (data.format: text) is for the"
            " text_generation task alone",
        ),
    ):
        config = tmp_path / "config.yaml"  # refused before any path is read
        config.write_text(
            text.replace("tasks: [text_generation]", f"tasks: {tasks}"),
            encoding="utf-8",
        )
        assert main(["validate", str(team), "--config", str(config)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"stecflow validate: error: {config}, {expected}"), err
        assert "bug" not in err and "Traceback" not in err


def test_validate_against_another_test_set_says_so_in_one_line(capsys):
    team = REPO / "submissions" / "organisers" / "greedy"
    dev = REPO / "resources" / "demo" / "dev.xml"
    assert main(["validate", str(team), "--testset", str(dev)]) == 1
    out = capsys.readouterr().out
    assert (
        "**Diagnosis:** none of the outputs is for an item of this test set (outputs"
        " for t001, t002, t003, …; the test set has 148 items, e.g. dv-0001)"
    ) in out
    assert out.index("**Diagnosis:**") < out.index("## Errors")


def test_every_option_says_what_it_does_and_its_default():
    import argparse

    missing = []

    def walk(parser: argparse.ArgumentParser, command: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    walk(child, f"{command} {name}")
                continue
            if isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
                continue
            name = "/".join(action.option_strings) or action.dest
            help_text = action.help or ""
            if not help_text or help_text == argparse.SUPPRESS:
                missing.append(f"{command} {name}: no help")
            elif (
                action.option_strings
                and action.default not in (None, False, argparse.SUPPRESS)
                and not action.required
                and "default" not in help_text
            ):
                missing.append(f"{command} {name}: default {action.default!r} unsaid")

    walk(build_parser(), "stecflow")
    assert missing == []

"""A participant who withdraws is gone from the next run (issue 37, point 4).

The responses come from an export made before the withdrawal; the organiser
withdraws the participant with `stecflow sessions withdraw` (the database is
elsewhere, so the withdrawal is recorded only, beside the study's default
database, where the workflow reads it without it being listed). The next run
merges the judgments again: the participant is in no judgment, measure,
statistic, report table or release file, and the report counts the withdrawal.
"""

from __future__ import annotations

import json
import shutil
import zipfile

import pytest
import yaml

from stecflow import cli
from stecflow.core.io import read_tsv
from stecflow.studies.server.withdrawals import id_hash
from tests.workflow.helpers import planned_jobs, snakemake

pytestmark = pytest.mark.workflow


def test_a_withdrawn_participant_leaves_judgments_statistics_report_and_release(
    tiny_campaign, monkeypatch, capsys
):
    snakemake(tiny_campaign)
    results = tiny_campaign / "results"
    # the export made before the withdrawal: the study's answers as collected
    export = tiny_campaign / "responses" / "ratings.tsv"
    export.parent.mkdir()
    shutil.copy(results / "judgments" / "simulated" / "ratings.tsv", export)
    config_path = tiny_campaign / "config" / "config.yaml"
    config = yaml.safe_load(config_path.read_text())
    [study] = config["studies"]
    study["simulate"] = False
    study["responses"] = ["responses/ratings.tsv"]
    config_path.write_text(yaml.safe_dump(config, sort_keys=False))
    snakemake(tiny_campaign)
    before = read_tsv(results / "judgments" / "ratings.tsv")
    subjects = sorted({r["subject"] for r in before})
    assert len(subjects) == 2
    gone, kept = subjects
    n_gone = sum(1 for r in before if r["subject"] == gone)
    analysed = sum(
        1 for r in before if r["subject"] == gone and r["in_analysis"] == "true"
    )
    assert n_gone > 0 and analysed > 0
    anova = results / "stats" / "ratings-adequacy-anova.tsv"
    [n_before] = {r["n"] for r in read_tsv(anova)}

    monkeypatch.chdir(tiny_campaign)
    argv = ["sessions", "withdraw", "ratings", gone, "--record-only"]
    assert cli.main([*argv, "--config", "config/config.yaml"]) == 0
    assert "erased 0 session(s)" in capsys.readouterr().out
    record = results / "studies" / "ratings" / "responses.withdrawals.tsv"
    assert gone not in record.read_text()
    # only the merge and what reads the judgments run again
    jobs = planned_jobs(tiny_campaign)
    assert jobs["merge_judgments"] == 1 and "build_stimuli" not in jobs
    snakemake(tiny_campaign)

    after = read_tsv(results / "judgments" / "ratings.tsv")
    assert {r["subject"] for r in after} == {kept}
    assert len(after) == len(before) - n_gone
    summary = json.loads((results / "judgments/summary/ratings.json").read_text())
    assert summary["counts"]["withdrawn"] == 1
    assert summary["withdrawals"]["rows_dropped"] == n_gone
    measures = read_tsv(results / "judgments" / "measures" / "ratings.tsv")
    assert {m["n_subjects"] for m in measures if m["subdomain"] == "all"} == {"1"}
    # the statistics read the judgments without the participant
    assert {r["n"] for r in read_tsv(anova)} == {str(int(n_before) - analysed)}
    html = (results / "report" / "index.html").read_text()
    assert "Study ratings: 1 participant withdrew." in html
    assert gone not in html
    # the release: no file names the participant, by ID or by pseudonym
    digits = id_hash(gone, "tiny")[:10].encode()  # key: the campaign ID
    [archive] = results.glob("release/*.zip")
    with zipfile.ZipFile(archive) as zipped:
        names = zipped.namelist()
        judged = next(n for n in names if n.endswith("judgments/ratings.tsv"))
        assert len(zipped.read(judged).decode().splitlines()) == len(after) + 1
        for name in names:
            data = zipped.read(name)
            assert gone.encode() not in data and digits not in data, name

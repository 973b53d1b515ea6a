"""Every folder name validation accepts builds and runs in the DAG; others are listed.

Snakemake refuses wildcard values that end in one piece repeated 20 times or more
(``PeriodicWildcardError``), which valid IDs such as ``aaaaaaaaaaaaaaaaaaaa`` do;
the per-submission rules therefore use one ``{submission}`` wildcard whose value
ends in a dot (see ``workflow/rules/common.smk`` and ``stecflow.core.ids``).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from stecflow.core.io import read_tsv
from tests.workflow.helpers import planned_jobs, snakemake

pytestmark = pytest.mark.workflow

#: (team, system) folder names the project accepts, of every awkward form.
ACCEPTED = [
    ("a", "a"),  # one character; team and system with the same name
    ("a", "a-b"),  # a name that is a prefix of another
    ("a-b", "a"),
    ("team", "sys"),
    ("team-1", "sys"),  # a team that is a prefix of another
    ("same", "same"),
    ("a" * 20, "a" * 20),  # periodic: Snakemake's detector fires at 20 repeats
    ("a" * 64, "b" * 64),  # the longest IDs
    ("0123456789", "42"),  # digits only
    ("runs", "x" + "-" * 40),  # runs of '-' and '_'
    ("runs", "x" + "_" * 63),
    ("runs", "x" + "-_" * 20),
]

#: The accepted names of the real run: one of each form, to keep it short.
RUN = [ACCEPTED[i] for i in (0, 1, 5, 6, 7, 8, 11)]

#: Folder names the project refuses: too long, dots, spaces, non-ASCII, leading '-'.
REFUSED = [
    ("a" * 65, "primary"),
    ("v1.2", "primary"),
    ("bad team", "primary"),
    ("équipe", "primary"),
    ("-lead", "primary"),
    ("ok", "sys.v2"),
]


def _add_submissions(campaign: Path, pairs: list[tuple[str, str]]) -> None:
    """Give each (team, system) a copy of alpha/sys1 with matching metadata."""
    source = campaign / "submissions" / "alpha" / "sys1"
    metadata = yaml.safe_load((source / "system.yaml").read_text())
    for team, system in pairs:
        folder = campaign / "submissions" / team / system
        folder.mkdir(parents=True)
        shutil.copy(source / "outputs.xml", folder / "outputs.xml")
        (folder / "system.yaml").write_text(
            yaml.safe_dump(metadata | {"team": team, "system": system})
        )


def test_every_accepted_name_is_planned_and_refused_ones_do_not_break_the_dag(
    tiny_campaign,
):
    _add_submissions(tiny_campaign, ACCEPTED + REFUSED)
    run = snakemake(tiny_campaign, "--dry-run")
    text = run.stdout + run.stderr
    assert "PeriodicWildcardError" not in text
    outputs = set()
    for line in re.findall(r"^\s+output: (.*)$", text, re.M):
        outputs.update(line.split(", "))
    for team, system in [*ACCEPTED, ("alpha", "sys1")]:
        assert f"results/validation/{team}/{system}.json" in outputs
        assert f"results/validation/{team}/{system}.md" in outputs
        assert f"results/scores/items/{team}/{system}.tsv" in outputs
        assert f"results/scores/systems/{team}/{system}.json" in outputs
    for team, system in REFUSED:
        assert not [o for o in outputs if f"{team}/{system}" in o]
    jobs = planned_jobs(tiny_campaign)
    assert jobs["check_submission"] == 3 + len(ACCEPTED)
    assert jobs["summarise_validation"] == 1


def test_awkward_names_are_validated_scored_and_listed(tiny_campaign):
    """A real run of validation and scoring (about 15 s): names of each awkward form
    are validated and scored, refused ones are listed as unreadable with the reason.
    """
    _add_submissions(tiny_campaign, RUN + REFUSED)
    snakemake(
        tiny_campaign, "results/scores/systems.tsv", "results/validation/summary.tsv"
    )
    summary = {
        (r["team"], r["system"]): r
        for r in read_tsv(tiny_campaign / "results" / "validation" / "summary.tsv")
    }
    for pair in RUN:
        assert summary[pair]["status"] == "accepted"
    for team, system in REFUSED:
        assert summary[(team, system)]["status"] == "unreadable"
        assert summary[(team, system)]["first_error"].startswith(
            f"{team}/{system}: folder names may use only letters"
        )
    scored = {
        (r["team"], r["system"])
        for r in read_tsv(tiny_campaign / "results" / "scores" / "systems.tsv")
        if r["status"] == "scored"
    }
    assert scored == {*RUN, ("alpha", "sys1"), ("beta", "sys2")}

"""No escape sequence stops a campaign (issue #38, points 1 and 7), end to end.

A lone surrogate in one system.yaml made ``check_submission`` fail (no summary,
report or release even with ``--keep-going``) while ``stecflow validate`` said
ACCEPTED; raw NUL, ESC and RLO from YAML escapes reached ``report/index.html``.
Now those submissions are rejected at validation, the others go on, and the
report holds none of those characters.
"""

from __future__ import annotations

import pytest

from stecflow.core.io import read_tsv
from tests.workflow.helpers import snakemake

pytestmark = pytest.mark.workflow


def test_escapes_in_system_yaml_reject_one_submission_and_stop_nothing(
    tiny_campaign,
):
    import shutil

    root = tiny_campaign / "submissions"
    # new systems beside those of the fixture's study (a study whose systems
    # are all rejected is another matter)
    for team, earlier, system, escape in (
        ("alpha", "sys1", "esc1", "\\ud800"),  # a lone surrogate: no UTF-8 for it
        ("beta", "sys2", "esc2", "\\e[2J\\0\\u202Eevil"),  # ESC, NUL, RLO
    ):
        shutil.copytree(root / team / earlier, root / team / system)
        path = root / team / system / "system.yaml"
        text = path.read_text().replace(f"system: {earlier}", f"system: {system}")
        text = text.replace(
            f"description: {earlier} test system",
            f'description: "greedy {escape} baseline"',
        )
        path.write_text(text)
    snakemake(tiny_campaign, "results/report/index.html")
    rows = {
        (r["team"], r["system"]): r
        for r in read_tsv(tiny_campaign / "results" / "validation" / "summary.tsv")
    }
    assert rows[("alpha", "sys1")]["status"] == "accepted"
    for key in (("alpha", "esc1"), ("beta", "esc2")):
        assert rows[key]["status"] == "rejected"
        assert rows[key]["first_error"].startswith(
            f"{key[0]}/{key[1]}/system.yaml, line 3, description: character 8 is U+"
        )
    report = (tiny_campaign / "results" / "report" / "index.html").read_text(
        encoding="utf-8"
    )
    for char in ("\x00", "\x1b", "\u202e"):
        assert char not in report
    assert "U+D800 (an unpaired surrogate" in report

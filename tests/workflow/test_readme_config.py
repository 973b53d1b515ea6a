"""The README's minimal config ("What the config must contain") runs as written.

Issue 39: the template, read from README.md itself (so that this fails when the
README drifts), with only its paths filled in and each task type and data format
its comments offer, runs every campaign to its report and release archive; no
default analysis names a metric the campaign does not score.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from stecflow.core.io import read_json, read_tsv
from tests.conftest import B5REF, TINY
from tests.conftest import REPO as ROOT
from tests.workflow.helpers import snakemake

pytestmark = pytest.mark.workflow

README = ROOT / "README.md"
HEADING = "**What the config must contain**"

#: The data shipped in the repository for each format the template offers.
TESTSETS = {"tuna": TINY / "testset.xml", "b5-ref": B5REF}
#: Its submissions (b5-ref: the organisers' attribute-selection baselines).
SUBMISSIONS = {
    "tuna": TINY / "submissions",
    "b5-ref": ROOT / "resources" / "b5-ref" / "submissions",
}
#: b5-ref has no word strings: its campaigns run attribute selection only.
FORMAT_TASKS = {"b5-ref": {"attribute_selection"}}


def readme_template() -> str:
    """The YAML block under the README's "What the config must contain"."""
    text = README.read_text(encoding="utf-8")
    assert HEADING in text, f"README.md lost its {HEADING} paragraph"
    block = re.search(r"```yaml\n(.*?)```", text.split(HEADING, 1)[1], re.S)
    assert block, f"no yaml block after {HEADING} in README.md"
    return block.group(1)


def _offered(template: str, key: str, joiner: str) -> list[str]:
    """The value of *key* in the template and those its comment offers
    (``tasks: [attribute_selection]   # and/or realisation, end_to_end``)."""
    match = re.search(rf"^\s*{key}: (\S+)\s*#\s*{joiner} ([^(\n]*)", template, re.M)
    assert match, f"the README's template has no {key!r} line offering others"
    given = match.group(1).strip("[]")
    return [given, *re.findall(r"[\w-]+", match.group(2))]


def campaigns() -> list[tuple[str, str]]:
    """(format, task type) of every run: each format with each task it offers."""
    template = readme_template()
    formats = _offered(template, "format", "or")
    tasks = _offered(template, "tasks", "and/or")
    return [
        (fmt, task)
        for fmt in formats
        for task in tasks
        if task in FORMAT_TASKS.get(fmt, {task})
    ]


def _fill(template: str, key: str, value: str) -> str:
    """The template with *key*'s value replaced (comments kept); exactly once."""
    filled, n = re.subn(
        rf"^(\s*{key}:) [^#\n]*?(\s*(#.*)?)$",
        lambda m: f"{m.group(1)} {value}{m.group(2)}",
        template,
        count=1,
        flags=re.M,
    )
    assert n == 1, f"the README's template has no {key!r}"
    return filled


def _submissions(fmt: str, task: str, folder: Path) -> Path:
    """The shipped submissions, each declaring the campaign's task (a tuna
    fixture system declares two; the broken one stays broken)."""
    if fmt == "b5-ref":
        return SUBMISSIONS[fmt]
    shutil.copytree(SUBMISSIONS[fmt], folder)
    for meta in folder.glob("*/*/system.yaml"):
        try:
            data = yaml.safe_load(meta.read_text(encoding="utf-8"))
        except yaml.YAMLError:
            continue
        if isinstance(data, dict) and data.get("tasks") and "broken" not in str(meta):
            data["tasks"] = [task]
            meta.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return folder


def test_the_template_offers_the_reg_tasks_and_formats():
    assert campaigns() == [
        ("tuna", "attribute_selection"),
        ("tuna", "realisation"),
        ("tuna", "end_to_end"),
        ("b5-ref", "attribute_selection"),
    ]


@pytest.mark.parametrize(("fmt", "task"), campaigns())
def test_readme_minimal_config_runs_to_the_report(tmp_path, fmt, task):
    campaign = tmp_path / "campaign"
    campaign.mkdir()
    text = readme_template()
    text = _fill(text, "tasks", f"[{task}]")
    text = _fill(text, "format", fmt)
    text = _fill(text, "testset", str(TESTSETS[fmt]))
    text = _fill(text, "root", str(_submissions(fmt, task, tmp_path / "subs")))
    config = yaml.safe_load(text)
    assert set(config) == {"results", "campaign", "data", "submissions"}
    (campaign / "campaign.yaml").write_text(text, encoding="utf-8")

    snakemake(campaign, "--configfile", str(campaign / "campaign.yaml"))

    results = campaign / config["results"]
    cid = config["campaign"]["id"]
    assert (results / "report" / "index.html").is_file()
    assert (results / "release" / f"{cid}-1.zip").is_file()
    accepted = [
        r["system"]
        for r in read_tsv(results / "validation" / "summary.tsv")
        if r["status"] == "accepted"
    ]
    assert len(accepted) >= 2
    # the default analyses ran on metrics the campaign scored, and each wrote
    # its table and record
    scored = {
        r["metric"]
        for r in read_tsv(results / "scores" / "systems.tsv")
        if r["status"] == "scored"
    }
    records = sorted((results / "stats").glob("*.json"))
    assert records, "no default analysis ran"
    html = (results / "report" / "index.html").read_text(encoding="utf-8")
    for path in records:
        record = read_json(path)
        spec = record["spec"]
        named = [m for m in [spec.get("measure"), *spec.get("measures", [])] if m]
        assert set(named) <= scored, (path.name, named, sorted(scored))
        assert path.with_suffix(".tsv").is_file()
        assert "no system has scores" not in str(record.get("reason", ""))
        assert f'id="stats-{path.stem}-section"' in html

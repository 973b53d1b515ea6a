"""A study kind is one package: a kind declared outside stecflow runs a campaign.

The plausibility kind of ``tests/kinds/plausibility`` (a yes/no judgement of
one text) is offered as an installed distribution offers it, an entry point of
the group ``stecflow.study_kinds`` (a ``.dist-info`` folder on the job's
``PYTHONPATH``), and goes through the whole campaign without a change to the
library: the config check, the design (the shared Latin square), the stimuli
and the page assembled from its component, two participants answering in the
real browser, the collection server checking their answers by the kind's
declaration and refusing what it does not declare, the export, the merge, the
default analyses of its declared measure (ANOVA and Tukey), the report and the
release.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from stecflow.core.io import read_tsv
from stecflow.studykinds import registry
from tests.conftest import REPO
from tests.kinds.plausibility import KIND
from tests.workflow.helpers import snakemake_command

pytestmark = pytest.mark.workflow

STUDY = "plausible"
SYSTEMS = ["organisers/template", "organisers/rules", "organisers/weak"]
ENTRY_POINTS = "[stecflow.study_kinds]\nplausibility = tests.kinds.plausibility:KIND\n"


def _campaign(root: Path) -> tuple[Path, dict[str, str]]:
    """A copy of the text demo with one plausibility study, and the
    environment whose PYTHONPATH holds the kind's distribution."""
    campaign = root / "campaign"
    shutil.copytree(REPO / "config", campaign / "config")
    shutil.copytree(
        REPO / "resources" / "text-demo", campaign / "resources" / "text-demo"
    )
    config = yaml.safe_load((REPO / "config" / "text-demo.yaml").read_text())
    config["results"] = "results/plausibility"
    config["statistics"].pop("analyses")  # the defaults: the kind's measure's
    config["studies"] = [
        {
            "id": STUDY,
            "title": "Could the text have been written for the input?",
            "task": "plausibility",
            "systems": SYSTEMS,
            "subjects": 3,
            "seed": 31,
        }
    ]
    (campaign / "config" / "plausibility.yaml").write_text(yaml.safe_dump(config))
    plugins = root / "plugins"
    info = plugins / "stecflow_plausibility-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: stecflow-plausibility\nVersion: 1.0\n"
    )
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugins), str(REPO)])}
    return campaign, env


def _run(campaign: Path, env: dict[str, str]) -> None:
    result = subprocess.run(
        snakemake_command(
            campaign,
            "--cores",
            "2",
            "--configfile",
            str(campaign / "config" / "plausibility.yaml"),
        ),
        cwd=campaign,
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-6000:]


def _answer(page, doc: dict, url: str, plausible: set[str]) -> list[tuple[str, str]]:
    """One participant: Yes to the texts of the systems in *plausible*; the
    (system, answer) of every trial."""
    page.goto(url)
    page.wait_for_selector("body[data-screen=welcome]")
    page.click("#start")
    page.wait_for_selector("body[data-screen=plausibility]")  # a list is given
    list_id = page.evaluate("() => document.body.dataset.list")
    trials = next(lst for lst in doc["lists"] if lst["list"] == list_id)["trials"]
    answers = []
    for trial in trials:
        page.wait_for_function(
            "o => document.body.dataset.screen === 'break' || (document.body"
            ".dataset.screen === 'plausibility' && document.body.dataset.order === o)",
            arg=str(trial["order"]),
        )
        if page.evaluate("() => document.body.dataset.screen") == "break":
            page.click("#continue")  # the core's pause between blocks
            page.wait_for_selector(
                f"body[data-screen=plausibility][data-order='{trial['order']}']"
            )
        assert page.text_content("#output").strip().endswith(trial["output"])
        answer = "yes" if trial["system"] in plausible else "no"
        page.click(f"#answer-{answer}")
        page.click("#next")
        answers.append((trial["system"], answer))
    page.wait_for_selector("body[data-screen=done]")
    return answers


def _post_outside_answer(url: str, doc: dict) -> tuple[int, dict]:
    """A session's first trial answered with a value the kind does not take."""
    import urllib.error
    import urllib.request

    def post(path: str, body: dict, token: str | None = None) -> tuple[int, dict]:
        request = urllib.request.Request(
            url.rstrip("/") + path,
            json.dumps(body).encode(),
            {"Content-Type": "application/json"}
            | ({"Authorization": f"Bearer {token}"} if token else {}),
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    status, session = post("/api/session", {"participant": "P-refused"})
    assert status == 201, session
    trial = next(lst for lst in doc["lists"] if lst["list"] == session["list"])
    first = trial["trials"][0]
    answer = {"order": first["order"], "trial": first["id"], "rt_ms": 900}
    return post("/api/trial", answer | {"plausible": "maybe"}, session["token"])


def test_a_kind_declared_outside_the_library_runs_a_whole_campaign(tmp_path, browser):
    from stecflow.studies.server import export_responses, make_server

    campaign, env = _campaign(tmp_path)
    _run(campaign, env)  # design, stimuli, awaiting responses
    results = campaign / "results" / "plausibility"
    study_dir = results / "studies" / STUDY
    doc = json.loads((study_dir / "stimuli-key.json").read_text())  # the whole
    assert doc["task"] == "plausibility" and doc["columns"][-1] == "plausible"
    assert len(doc["lists"]) == 3  # a Latin square of the three systems
    script = (study_dir / "web" / "experiment.js").read_text()
    assert 'trialKind("plausibility"' in script

    registry.register(KIND)  # this process serves the study
    try:
        db = tmp_path / "responses.sqlite"
        with make_server(study_dir, port=0, db_path=db).start() as server:
            answered = []
            for plausible in ({"organisers/rules"}, set(SYSTEMS[:2])):
                # a browser profile of its own: a participant each
                context = browser.new_context(viewport={"width": 1366, "height": 768})
                answered.append(_answer(context.new_page(), doc, server.url, plausible))
                context.close()
            # what the kind does not declare is refused, saying what it takes
            status, refusal = _post_outside_answer(server.url, doc)
            assert status == 400
            assert refusal["error"] == "plausible must be one of yes, no, got 'maybe'"
        responses = campaign / "responses.tsv"
        assert export_responses(study_dir, responses, db_path=db) == sum(
            len(person) for person in answered
        )
    finally:
        registry.unregister("plausibility")

    config = yaml.safe_load((campaign / "config" / "plausibility.yaml").read_text())
    config["studies"][0]["responses"] = [str(responses)]
    (campaign / "config" / "plausibility.yaml").write_text(yaml.safe_dump(config))
    _run(campaign, env)  # merge, analyses, report, release

    # the judgments and measures are the answers given in the browser
    given = [pair for person in answered for pair in person]
    rows = read_tsv(results / "judgments" / f"{STUDY}.tsv")
    assert sorted((r["system"], r["plausible"]) for r in rows) == sorted(
        (system, "1" if answer == "yes" else "0") for system, answer in given
    )
    measures = read_tsv(results / "judgments" / "measures" / f"{STUDY}.tsv")
    shares = {r["system"]: float(r["plausible"]) for r in measures}
    for system in SYSTEMS:
        said = [answer for s, answer in given if s == system]
        assert shares[system] == pytest.approx(said.count("yes") / len(said))
    assert shares["organisers/rules"] == 1.0 and shares["organisers/weak"] == 0.0
    assert 0.0 < shares["organisers/template"] < 1.0  # yes from one of two

    # its declared measure's default analyses: ANOVA and Tukey over the trials
    anova = json.loads(
        (results / "stats" / f"{STUDY}-plausible-anova.json").read_text()
    )
    assert anova["spec"]["measure"] == "plausible"
    assert anova["n_observations"] == len(given) and anova["levels"]["system"] == 3
    assert (results / "stats" / f"{STUDY}-plausible-tukey.json").is_file()
    report = (results / "report" / "index.html").read_text(encoding="utf-8")
    assert f'id="human-{STUDY}"' in report  # the kind's own table
    assert "Could this text have been written for this input?" in report

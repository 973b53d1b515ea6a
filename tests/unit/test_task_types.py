"""The task-type seam: a task type defined here, in the tests, runs through
validation, scoring, a study's stimuli and the report without any change to the
library.

The task ("colour naming") is deliberately unlike the REG tasks: a system names
the colour of one object, writes its outputs to a TSV file (``outputs.tsv``: item
ID, tab, text) instead of ``outputs.xml``, is scored by default with string
accuracy and BLEU only, shows a colour swatch instead of a grid of pictures, and
has a realiser of its own. Everything the stages need
to know comes from the :class:`~stecflow.tasks.base.TaskType` declared below.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from sacrebleu.metrics import BLEU

from stecflow.core.io import read_tsv
from stecflow.data.corpus import write_items
from stecflow.data.model import Domain, Entity, EntityAttribute, Item, Output, Reference
from stecflow.report import render_report
from stecflow.scoring.score import score_outputs, score_submission
from stecflow.scoring.specs import metric_signatures
from stecflow.scoring.systems import aggregate_scores
from stecflow.submissions.summary import summarise_validation
from stecflow.submissions.validation import validate_submission, validate_to_files
from stecflow.tasks import registry
from stecflow.tasks.base import Problem, TaskType
from tests.conftest import REPO

TEMPLATE = REPO / "workflow" / "templates" / "report" / "index.html.j2"
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"

# ----------------------------------------------------------------- the task type


def read_tsv_outputs(data, label, items, required, limits):
    """``item<TAB>text`` per line; every problem with its line."""
    known = {item.id for item in items}
    outputs, problems, seen = {}, [], {}
    for n, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        item_id, tab, text = line.partition("\t")
        if not tab:
            problems.append(Problem("no_tab", "expected item<TAB>text", label, n))
        elif item_id not in known:
            problems.append(
                Problem(
                    "unknown_item", f"item {item_id} is not in the test set", label, n
                )
            )
        elif item_id in seen:
            problems.append(
                Problem("duplicate_item", f"item {item_id} again", label, n, item_id)
            )
        else:
            seen[item_id] = n
            outputs[item_id] = Output(item_id, text.strip(), None, n)
    for item in items:
        if item.id not in outputs and "word_string" in required:
            problems.append(
                Problem(
                    "missing_item", f"no output for {item.id}", label, None, item.id
                )
            )
    return [outputs[i.id] for i in items if i.id in outputs], problems


def realise_colour(attributes) -> str:
    return "the " + " ".join(v for _, v in sorted(attributes)) + " one"


def swatch(item, images_dir, seed):
    """The scene of a colour-naming item: one swatch of its colour."""
    colour = item.domain.target.value_of("colour")
    svg = f'<svg xmlns="http://www.w3.org/2000/svg"><rect fill="{colour}"/></svg>'
    name = f"swatch-{colour}.svg"
    return [1, 1], [{"id": "o1", "image": name, "x": 1, "y": 1}], {name: svg.encode()}


COLOUR_NAMING = TaskType(
    name="colour_naming",
    summary="colour naming (one line of text per object)",
    input="one object with its colour",
    outputs=("word_string",),
    outputs_file="outputs.tsv",
    read_outputs=read_tsv_outputs,
    default_metrics=("string_accuracy", "bleu3"),
    scene=swatch,
    realiser=realise_colour,
    realiser_id="colour-v1",
)


@pytest.fixture
def colour_naming():
    registry.register(COLOUR_NAMING)
    yield COLOUR_NAMING
    registry.unregister(COLOUR_NAMING.name)


def _item(n: int, colour: str, refs: list[str], group: str) -> Item:
    target = Entity("o1", True, (EntityAttribute("colour", colour),))
    return Item(
        f"c{n}",
        Domain((target,)),
        group,
        None,
        tuple(
            Reference(
                word_string=r,
                attribute_set=frozenset({("colour", colour)}),
                id=f"ref-{k}",
            )
            for k, r in enumerate(refs, 1)
        ),
    )


ITEMS = [
    _item(1, "red", ["red", "dark red"], "toys"),
    _item(2, "blue", ["blue", "light blue"], "toys"),
    _item(3, "green", ["green", "green"], "tools"),
    _item(4, "grey", ["grey", "silver grey"], "tools"),
]
EXACT = {"c1": "red", "c2": "blue", "c3": "green", "c4": "grey"}
SLOPPY = {"c1": "dark red", "c2": "navy", "c3": "green", "c4": "grey"}


def _submission(root: Path, team: str, outputs: str, **meta) -> Path:
    folder = root / "submissions" / team / "sys"
    folder.mkdir(parents=True)
    metadata = {
        "team": team,
        "system": "sys",
        "description": f"{team}'s colour namer",
        "contact": f"{team}@example.org",
        "primary": True,
        "submitted": "2026-05-01T10:00:00Z",
        "tasks": ["colour_naming"],
        **meta,
    }
    (folder / "system.yaml").write_text(yaml.safe_dump(metadata))
    (folder / "outputs.tsv").write_text(outputs)
    return folder


def _lines(outputs: dict[str, str]) -> str:
    return "".join(f"{k}\t{v}\n" for k, v in outputs.items())


# ------------------------------------------------------------------------ tests


def test_registry_knows_the_reg_tasks_and_refuses_unknown_names():
    assert registry.names()[:3] == ("attribute_selection", "realisation", "end_to_end")
    assert registry.get("attribute_selection").outputs == ("attribute_set",)
    with pytest.raises(Exception, match="'colour_naming' is not a task type"):
        registry.get("colour_naming")
    with pytest.raises(ValueError, match="already registered"):
        registry.register(TaskType(**{**COLOUR_NAMING.__dict__, "name": "end_to_end"}))


def test_validation_reads_the_task_types_own_file(colour_naming, tmp_path):
    good = _submission(tmp_path, "good", _lines(EXACT))
    record = validate_submission(
        good, ITEMS, team="good", system="sys", campaign_tasks=["colour_naming"]
    )
    assert record["status"] == "accepted", record["errors"]
    assert record["n_outputs"] == 4 and record["tasks"] == ["colour_naming"]
    assert set(record["checksums"]) == {"system.yaml", "outputs.tsv"}

    bad = _submission(tmp_path, "bad", "c1\tred\nc1\tred again\nc9\tpink\nno tab\n")
    record = validate_submission(
        bad, ITEMS, team="bad", system="sys", campaign_tasks=["colour_naming"]
    )
    assert record["status"] == "rejected"
    found = [(e["code"], e["file"], e["line"]) for e in record["errors"]]
    assert found[:3] == [
        ("duplicate_item", "bad/sys/outputs.tsv", 2),
        ("unknown_item", "bad/sys/outputs.tsv", 3),
        ("no_tab", "bad/sys/outputs.tsv", 4),
    ]
    assert [e["field"] for e in record["errors"][3:]] == ["c2", "c3", "c4"]

    # the metadata schema takes the registered name; an unknown task stays an error
    wrong = _submission(tmp_path, "wrong", _lines(EXACT), tasks=["colour_nameing"])
    record = validate_submission(
        wrong, ITEMS, team="wrong", system="sys", campaign_tasks=["colour_naming"]
    )
    assert ("bad_metadata", "tasks[0]") in {
        (e["code"], e["field"]) for e in record["errors"]
    }


def test_scoring_uses_the_task_types_metrics_and_realiser(colour_naming):
    outputs = [Output(k, v) for k, v in SLOPPY.items()]
    item_rows, rows = score_outputs(
        ITEMS, outputs, {"bootstrap": {"resamples": 20}}, tasks=["colour_naming"]
    )
    overall = {r["metric"]: r for r in rows if r["subset"] == "all"}
    assert sorted(overall) == ["bleu3", "string_accuracy"]
    # string accuracy: an exact match with any reference (c1, c3, c4), 3 of 4
    assert overall["string_accuracy"]["value"] == pytest.approx(0.75)
    # corpus BLEU-3 as sacreBLEU computes it on the same (lower-case) strings
    streams = [[i.references[k].word_string for i in ITEMS] for k in range(2)]
    bleu = BLEU(max_ngram_order=3, tokenize="none", force=True)
    expected = bleu.corpus_score(list(SLOPPY.values()), streams).score
    assert overall["bleu3"]["value"] == pytest.approx(expected, abs=1e-9)
    assert {r["subset"] for r in rows} == {"all", "toys", "tools"}

    # scoring.realise: template uses the task type's realiser, and says so
    realised = [Output(k, None, frozenset({("colour", v)})) for k, v in EXACT.items()]
    scoring = {"realise": "template", "bootstrap": {"resamples": 20}}
    _, rows = score_outputs(ITEMS, realised, scoring, tasks=["colour_naming"])
    overall = {r["metric"]: r for r in rows if r["subset"] == "all"}
    # outputs and references both realised: "the red one" against "the red one"
    assert overall["string_accuracy"]["value"] == 1.0
    assert overall["bleu3"]["value"] == pytest.approx(100.0)
    signatures = metric_signatures(scoring, ["colour_naming"])
    assert "realise:colour-v1" in signatures["bleu3"]


def test_a_study_shows_the_task_types_scene_and_outputs(colour_naming):
    from stecflow.studies.designs import latin_square_design
    from stecflow.studies.setup import shown_descriptions
    from stecflow.studies.stimuli import make_study_files

    design = latin_square_design(
        ["exact", "sloppy"], [i.id for i in ITEMS], subjects=2, seed=1, study="s"
    )
    realised = [Output(k, None, frozenset({("colour", v)})) for k, v in EXACT.items()]
    shown = {
        "exact": shown_descriptions(
            {"id": "s", "realise": "template"}, "exact", realised, ["colour_naming"]
        ),
        "sloppy": shown_descriptions(
            {"id": "s"},
            "sloppy",
            [Output(k, v) for k, v in SLOPPY.items()],
            ["colour_naming"],
        ),
    }
    assert shown["exact"]["c1"] == "the red one"  # the task type's realiser
    bundle = make_study_files(
        design, ITEMS, shown, task="rating", task_type=colour_naming
    )
    trials = [t for lst in bundle.document["lists"] for t in lst["trials"]]
    assert {t["entities"][0]["image"] for t in trials} == {
        f"images/swatch-{c}.svg" for c in EXACT.values()
    }
    assert all(t["grid"] == [1, 1] for t in trials)
    assert "images/swatch-red.svg" in bundle.files
    assert {t["description"] for t in trials if t["system"] == "sloppy"} == set(
        SLOPPY.values()
    )


def test_the_report_presents_a_campaign_of_the_new_task_type(colour_naming, tmp_path):
    from snakemake.utils import validate

    write_items(ITEMS, tmp_path / "testset.xml")
    submissions = {
        "exact": _submission(tmp_path, "exact", _lines(EXACT)),
        "sloppy": _submission(tmp_path, "sloppy", _lines(SLOPPY)),
        "broken": _submission(tmp_path, "broken", "c1\tred\nc2 blue\n"),
    }
    results = tmp_path / "results"
    records, summaries = [], []
    for team, folder in submissions.items():
        record = results / "validation" / team / "sys.json"
        record.parent.mkdir(parents=True)
        validate_to_files(
            folder,
            tmp_path / "testset.xml",
            team=team,
            system="sys",
            campaign_tasks=["colour_naming"],
            deadline=None,
            json_path=record,
            md_path=record.with_suffix(".md"),
        )
        summary = results / "scores" / "systems" / team / "sys.json"
        summary.parent.mkdir(parents=True)
        score_submission(
            record,
            folder,
            tmp_path / "testset.xml",
            {"bootstrap": {"resamples": 20}},
            summary.with_suffix(".tsv"),
            summary,
            tasks=["colour_naming"],
        )
        records.append(record)
        summaries.append(summary)
    summarise_validation(records, [], results / "validation" / "summary.tsv")
    aggregate_scores(summaries, results / "scores" / "systems.tsv")
    table = read_tsv(results / "scores" / "systems.tsv")
    scored = {(r["team"], r["metric"]): r for r in table if r["subset"] == "all"}
    assert float(scored["exact", "string_accuracy"]["value"]) == 1.0
    assert float(scored["sloppy", "string_accuracy"]["value"]) == 0.75
    broken = [r for r in table if r["team"] == "broken"]
    assert [r["status"] for r in broken] == ["skipped"]

    config = {
        "campaign": {
            "id": "colours",
            "title": "Colour naming",
            "tasks": ["colour_naming"],
        },
        "data": {"format": "tuna", "testset": "testset.xml"},
        "submissions": {"root": "submissions"},
        "scoring": {"bootstrap": {"resamples": 20}},
        "statistics": {"analyses": []},
    }
    validate(config, schema=str(SCHEMA), set_default=True)
    html = render_report(
        config=config,
        validation_summary=results / "validation" / "summary.tsv",
        validation_records=records,
        systems=results / "scores" / "systems.tsv",
        testset=tmp_path / "testset.xml",
        template=TEMPLATE,
        out_html=tmp_path / "report.html",
    )
    page = (tmp_path / "report.html").read_text()
    assert html is not None
    assert "colour naming (one line of text per object)" in page
    assert "broken/sys/outputs.tsv" in page  # the rejected file, named
    # the score table: string accuracy in %, then BLEU, the systems ranked
    # (primary systems marked *, the best value of a column in bold)
    assert re.search(r"exact/sys \*(</[^>]+>)+\s*<td[^>]*><strong>100\.00", page)
    assert re.search(r"sloppy/sys \*(</[^>]+>)+\s*<td[^>]*>75\.00", page)
    assert "Acc (%)" in page and "BLEU" in page
    assert "Dice" not in page  # no REG metric the task type did not ask for
    assert (
        json.loads((results / "validation" / "broken" / "sys.json").read_text())[
            "errors"
        ][0]["line"]
        == 2
    )

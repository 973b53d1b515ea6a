"""The report's section per submission: validation, scores and ranks, items.

The campaign is tests/fixtures/tiny_campaign, run up to the report's inputs:
alpha/sys1 (on time), beta/sys2 (late) and gamma/broken (rejected), four items
with two references each. The item scores below are those of
``scores/items/alpha/sys1.tsv`` (SE of items t1-t4: 2, 0.5, 4, 3).
"""

from __future__ import annotations

import re
import shutil
from html import unescape
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from stecflow.core.io import read_tsv
from stecflow.data.model import Domain, Item, Output, Reference, attribute_set
from stecflow.release.archive import released_outputs
from stecflow.report import render_report, teams
from stecflow.report.formatting import system_anchor
from stecflow.report.inputs import MetricInfo, SystemEntry
from stecflow.report.teams import _field_text, competition_ranks, status_text
from tests.conftest import TINY
from tests.unit.test_report import report_inputs


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> dict[str, Any]:
    """The tiny campaign's report inputs, with item scores and released outputs."""
    root = tmp_path_factory.mktemp("teams") / "campaign"
    shutil.copytree(TINY, root)
    inputs = report_inputs(root)
    results = root / "results"
    inputs["item_scores"] = sorted((results / "scores" / "items").glob("*/*.tsv"))
    inputs["outputs"] = released_outputs(
        inputs["validation_records"],
        root / "submissions",
        inputs["testset"],
        inputs["config"]["campaign"].get("tasks") or (),
    )
    return inputs


@pytest.fixture(scope="module")
def html(campaign, tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("teams-html") / "index.html"
    return render_report(**campaign, out_html=out)


def part(page: str, team: str, system: str) -> str:
    """The HTML of one submission's part of the section."""
    start = page.index(f'<h4 id="{system_anchor(team, system)}">')
    end = page.find("<h4 ", start + 1)
    if end < 0:
        end = page.index("</section>", start)
    return page[start:end]


def grid_rows(fragment: str, caption: str) -> list[list[str]]:
    """The cells' text (second lines left out) of the grid with this caption."""
    start = fragment.index(f"<caption>{caption}</caption>")
    body = fragment[start : fragment.index("</table>", start)]
    rows = []
    for row in re.findall(r"<tr>(.*?)</tr>", body.split("<tbody>")[1], re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        rows.append([unescape(re.sub(r"<span.*?</span>", "", c)) for c in cells])
    return rows


def test_each_submission_has_its_anchor_and_is_linked(html):
    section = html[html.index('<section id="submissions">') :]
    for team, system in (("alpha", "sys1"), ("beta", "sys2"), ("gamma", "broken")):
        anchor = system_anchor(team, system)
        assert f'<h4 id="{anchor}">{team}/{system}</h4>' in section
        assert f'<a href="#{anchor}">{team}/{system}</a>' in section
    assert system_anchor("alpha", "sys1") == "system-alpha--sys1"


def test_items_worst_first_with_outputs_references_and_scores(html):
    alpha = part(html, "alpha", "sys1")
    assert "Items worst first by SE (SE, lower is better: highest first)" in alpha
    rows = grid_rows(alpha, "All 4 items of alpha/sys1, worst first.")
    # SE per item (items TSV): t3 4, t4 3, t1 2, t2 0.5; BLEU shown 0-1
    assert [r[0] for r in rows] == ["t3", "t4", "t1", "t2"]
    assert rows[0] == [
        "t3",
        "the man with a beard",
        "{hasBeard:1, type:person}",
        "HUMAN-1: the old man with a beard {age:old, hasBeard:1, type:person}\n"
        "HUMAN-2: the bearded man in the middle"
        " {hasBeard:1, type:person, x-dimension:2, y-dimension:2}",
        "4.00",  # SE
        "0.00",  # Acc (%)
        "0.65",  # BLEU 64.98 on 0-1
        "4.22",  # NIST
    ]
    assert [r[4] for r in rows] == ["4.00", "3.00", "2.00", "0.50"]
    assert [r[5] for r in rows] == ["0.00", "0.00", "100.00", "100.00"]


def alpha_part(campaign, out: Path, monkeypatch, **limits: int) -> str:
    """alpha/sys1's part of a report rendered with the item limits *limits*."""
    for name, value in limits.items():
        monkeypatch.setattr(teams, name, value)
    return part(render_report(**campaign, out_html=out), "alpha", "sys1")


def collapsed(fragment: str) -> str:
    """The collapsed block of a submission's part."""
    return fragment[fragment.index("<details>") : fragment.index("</details>")]


def test_items_after_the_first_are_collapsed(campaign, tmp_path, monkeypatch):
    alpha = alpha_part(campaign, tmp_path / "index.html", monkeypatch, SHOWN_ITEMS=2)
    shown = grid_rows(alpha, "The 2 worst items of alpha/sys1.")
    assert [r[0] for r in shown] == ["t3", "t4"]
    details = collapsed(alpha)
    assert "<summary>The other 2 items of alpha/sys1</summary>" in details
    assert [r[0] for r in grid_rows(details, "Items 3–4 of alpha/sys1.")] == [
        "t1",
        "t2",
    ]


def test_items_beyond_the_limit_are_left_to_the_item_table(
    campaign, tmp_path, monkeypatch
):
    monkeypatch.setattr(teams, "SHOWN_ITEMS", 1)
    monkeypatch.setattr(teams, "MAX_ITEMS", 3)
    page = render_report(**campaign, out_html=tmp_path / "index.html")
    alpha = part(page, "alpha", "sys1")
    assert [r[0] for r in grid_rows(alpha, "The 1 worst item of alpha/sys1.")] == ["t3"]
    assert [r[0] for r in grid_rows(alpha, "Items 2–3 of alpha/sys1.")] == [
        "t4",
        "t1",
    ]
    assert (
        "<p>Not listed here: the 1 best item; every item&#39;s scores are in"
        " <code>scores/items/alpha/sys1.tsv</code> (also in the release archive).</p>"
        in alpha
    )
    assert ">t2<" not in alpha


def test_many_submissions_share_the_item_rows(campaign, tmp_path, monkeypatch):
    """The section lists at most ITEM_ROWS items over all submissions (here
    three submissions share 6 rows: 2 each, 1 shown and 1 collapsed)."""
    monkeypatch.setattr(teams, "SHOWN_ITEMS", 1)
    monkeypatch.setattr(teams, "ITEM_ROWS", 6)
    page = render_report(**campaign, out_html=tmp_path / "index.html")
    alpha = part(page, "alpha", "sys1")
    assert [r[0] for r in grid_rows(alpha, "Item 2 of alpha/sys1.")] == ["t4"]
    assert "Not listed here: the 2 best items" in alpha


def test_a_limit_of_the_shown_items_lists_no_more(campaign, tmp_path, monkeypatch):
    """At the limit (thousands of submissions), the collapsed part only points to
    the item table: no empty table."""
    alpha = alpha_part(
        campaign, tmp_path / "index.html", monkeypatch, SHOWN_ITEMS=2, MAX_ITEMS=2
    )
    shown = grid_rows(alpha, "The 2 worst items of alpha/sys1.")
    assert [r[0] for r in shown] == ["t3", "t4"]
    details = collapsed(alpha)
    assert "<summary>The other 2 items of alpha/sys1</summary>" in details
    assert "<table" not in details
    assert "Not listed here: the 2 best items" in details


def test_every_score_table_gives_way_to_its_file_in_large_campaigns(
    campaign, tmp_path, monkeypatch
):
    from stecflow.report import scores
    from tests.unit.test_report import table_csv

    page = render_report(**campaign, out_html=tmp_path / "all.html")
    n_rows = len(table_csv(page, "scores-every")) - 1  # sys1 and the late sys2
    assert n_rows == 2 * 5 * 17
    monkeypatch.setattr(scores, "EVERY_SCORE_ROWS", n_rows)
    assert 'id="scores-every"' in render_report(**campaign, out_html=tmp_path / "a")
    monkeypatch.setattr(scores, "EVERY_SCORE_ROWS", n_rows - 1)
    page = render_report(**campaign, out_html=tmp_path / "capped.html")
    assert 'id="scores-every"' not in page
    summary = page.index("<summary>Every score (system × metric × subset)</summary>")
    details = page[summary : page.index("</details>", summary)]
    assert (
        unescape(re.sub(r"<[^>]+>", "", details))
        .strip()
        .endswith(
            f"The {n_rows} scores of the 2 systems (every metric and subset, with its"
            f" confidence interval) are too many to list on this page (at most"
            f" {n_rows - 1}): they are in scores/systems.tsv (also in the release"
            " archive)."
        )
    )


def test_released_outputs_of_the_listed_items_only(campaign, monkeypatch):
    """The report reads each submission's outputs of the items it lists, the
    same outputs as a whole read gives; asking whether a submission has
    outputs reads nothing."""
    from stecflow.submissions import outputs as module

    outputs = campaign["outputs"]
    whole = {o.item_id: o for o in outputs[("alpha", "sys1")]}
    assert sorted(whole) == ["t1", "t2", "t3", "t4"]
    reads = []
    read = module.read_outputs
    monkeypatch.setattr(
        module, "read_outputs", lambda *a, **k: reads.append(a[2]) or read(*a, **k)
    )
    assert ("alpha", "sys1") in outputs and ("gamma", "broken") not in outputs
    assert reads == []
    assert outputs.read(("alpha", "sys1"), {"t3", "t1"}) == [whole["t1"], whole["t3"]]
    assert [item.id for item in reads[0]] == ["t1", "t3"]


def test_item_scores_of_some_metrics_only(campaign, monkeypatch):
    """A submission's item scores can be read for a few metrics (the rows of the
    others are skipped); asking whether it has any reads no table."""
    from stecflow.report.teams import read_item_scores

    scores = read_item_scores(campaign["item_scores"])
    whole = scores[("alpha", "sys1")]
    assert sorted(whole["t3"]) == sorted(whole["t1"]) and len(whole["t3"]) > 3
    some = scores.read(("alpha", "sys1"), {"se", "nist5"})
    assert some == {
        item: {m: v for m, v in values.items() if m in {"se", "nist5"}}
        for item, values in whole.items()
    }
    assert [some[i]["se"] for i in ("t1", "t2", "t3", "t4")] == [2.0, 0.5, 4.0, 3.0]
    opened = []
    monkeypatch.setattr(teams, "iter_tsv_columns", lambda *a, **k: opened.append(a))
    assert ("alpha", "sys1") in scores and ("nobody", "none") not in scores
    assert opened == []


def test_items_ordered_by_another_metric_without_the_ranking_one(campaign, tmp_path):
    """A submission without item scores of the ranking metric (SE) has its items
    ordered by the first metric it has (Dice), which is not one of the few
    metrics read otherwise."""
    table = tmp_path / "items" / "alpha" / "sys1.tsv"
    table.parent.mkdir(parents=True)
    source = next(p for p in campaign["item_scores"] if p.parent.name == "alpha")
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    metric = lines[0].split("\t").index("metric")
    kept = [x for x in lines[1:] if x.split("\t")[metric] != "se"]
    assert len(lines) - 1 - len(kept) == 4 * 3  # SE of 4 items: all refs, each ref
    table.write_text("".join([lines[0], *kept]), encoding="utf-8")
    inputs = dict(campaign, item_scores=[table])
    alpha = part(render_report(**inputs, out_html=tmp_path / "r.html"), "alpha", "sys1")
    assert "Items worst first by Dice (Dice, higher is better: lowest first)" in alpha
    rows = grid_rows(alpha, "All 4 items of alpha/sys1, worst first.")
    assert [r[0] for r in rows] == ["t4", "t3", "t1", "t2"]


def test_scores_with_intervals_and_ranks(html, campaign):
    alpha = part(html, "alpha", "sys1")
    row = next(
        r
        for r in read_tsv(campaign["systems"])
        if r["system"] == "sys1" and r["metric"] == "se" and r["subset"] == "all"
    )
    assert (row["value"], row["ci_low"], row["ci_high"]) == ("2.375", "1.11875", "3.75")
    assert (
        '<td class="n">2.38<span class="ci">[1.12, 3.75] · rank 1 of 1</span></td>'
        in alpha
    )
    beta = part(html, "beta", "sys2")  # late: scored, shown, not ranked
    assert "not ranked (late)" in beta
    assert "rank 1 of" not in beta


def test_rejected_submission_says_why_without_scores(html):
    gamma = part(html, "gamma", "broken")
    assert (
        "<strong>Validation: rejected.</strong> 10 errors, 1 warning; 3 outputs for"
        " 4 items. Rejected at validation: not scored, so no scores or ranks." in gamma
    )
    assert "<p>Errors (10):</p>" in gamma
    assert "<li>… and 5 more</li>" in gamma
    assert (
        "gamma/broken/outputs.xml, line 7, TRIAL t2 / WORD-STRING: the WORD-STRING"
        " is empty" in unescape(gamma)
    )
    assert 'class="grid"' not in gamma and "rank 1" not in gamma
    assert "../validation/" not in html[html.index('<section id="submissions">') :]


def test_outputs_are_shown_only_when_released(campaign, tmp_path):
    page = render_report(
        **{
            **campaign,
            "outputs": {
                k: v for k, v in campaign["outputs"].items() if k != ("beta", "sys2")
            },
        },
        out_html=tmp_path / "index.html",
    )
    beta = part(page, "beta", "sys2")
    assert "Outputs are not shown: they were not available to this report." in beta
    rows = grid_rows(beta, "All 4 items of beta/sys2, worst first.")
    assert len(rows[0]) == 6  # item, references, SE, Acc, BLEU, NIST
    assert "Output:" not in beta


def test_no_consent_means_no_outputs(campaign, tmp_path):
    released = campaign["outputs"]  # both accepted teams consented
    assert {k: len(v) for k, v in released.items()} == {
        ("alpha", "sys1"): 4,
        ("beta", "sys2"): 4,
    }
    assert released[("alpha", "sys1")][2].word_string == "the man with a beard"
    records = []
    for path in campaign["validation_records"]:
        text = Path(path).read_text(encoding="utf-8")
        copy = tmp_path / Path(path).parent.name / Path(path).name
        copy.parent.mkdir(exist_ok=True)
        copy.write_text(
            text.replace('"release_consent": true', '"release_consent": false'),
            encoding="utf-8",
        )
        records.append(copy)
    assert (
        released_outputs(
            records,
            Path(campaign["systems"]).parents[2] / "submissions",
            campaign["testset"],
        )
        == {}
    )


def test_same_bytes_twice(campaign, html, tmp_path):
    again = render_report(**campaign, out_html=tmp_path / "index.html")
    assert again == html


def test_section_made_beforehand_gives_the_same_page(campaign, html, tmp_path):
    """The workflow renders the section "Submissions" in a job of its own
    (render_submissions) and the page takes it as it is: the same bytes as a
    page that makes the section itself; without item scores the fragment is
    empty and the page has no such section."""
    from stecflow.report import render_submissions

    section_inputs = {
        k: campaign[k]
        for k in (
            "config",
            "validation_summary",
            "validation_records",
            "systems",
            "testset",
            "template",
            "item_scores",
            "outputs",
        )
    }
    fragment = tmp_path / "parts" / "submissions.html"
    render_submissions(**section_inputs, out_html=fragment)
    text = fragment.read_text(encoding="utf-8")
    assert text.startswith("<p>Each submission&#39;s validation, its scores and ranks")
    assert text.count("<h4 id=") == 3  # alpha/sys1, beta/sys2, gamma/broken
    assert text in html
    rest = {k: v for k, v in campaign.items() if k not in ("item_scores", "outputs")}
    page = render_report(**rest, submissions=fragment, out_html=tmp_path / "a.html")
    assert page == html
    render_submissions(
        **(section_inputs | {"item_scores": []}), out_html=tmp_path / "none.html"
    )
    assert (tmp_path / "none.html").read_text(encoding="utf-8") == ""
    bare = render_report(
        **rest, submissions=tmp_path / "none.html", out_html=tmp_path / "b.html"
    )
    assert 'id="submissions"' in html and 'id="submissions"' not in bare
    assert bare == render_report(**rest, out_html=tmp_path / "c.html")


def entry(system: str, value: float | None, **flags: bool) -> SystemEntry:
    e = SystemEntry(
        "t",
        system,
        "scored",
        flags.get("late", False),
        flags.get("reference", False),
        True,
    )
    if value is not None:
        e.scores[("m", "all", "all")] = {"value": repr(value)}
    return e


@pytest.mark.parametrize(
    ("higher", "expected"),
    [
        (True, {"a": 1, "b": 2, "c": 2, "d": 4}),
        (False, {"a": 4, "b": 2, "c": 2, "d": 1}),
    ],
)
def test_competition_ranking_with_ties(higher, expected):
    info = MetricInfo("m", "m", "M", "M", "text", "item", higher)
    ctx = SimpleNamespace(
        scored=[
            entry("a", 0.9),
            entry("b", 0.8),
            entry("c", 0.8),
            entry("d", 0.7),
            entry("late", 1.0, late=True),
            entry("human", 1.0, reference=True),
            entry("none", None),
        ],
        metric=lambda _: info,
    )
    ranks = competition_ranks(ctx, "m")
    assert {k[1]: v for k, v in ranks.items()} == expected


def test_ranks_are_those_of_the_values_as_shown():
    """Scores the tables show equal share a rank, as in the leaderboard tables
    (stecflow.report.context.rank_values rounds to the shown digits too)."""
    info = MetricInfo("m", "m", "M", "M", "text", "item", True)
    assert info.digits == 2
    ctx = SimpleNamespace(
        scored=[entry("a", 0.7004), entry("b", 0.7001), entry("c", 0.69)],
        metric=lambda _: info,
    )
    ranks = competition_ranks(ctx, "m")
    assert {k[1]: v for k, v in ranks.items()} == {"a": 1, "b": 1, "c": 3}


def test_status_and_field_texts_of_every_task_type():
    assert status_text({"status": "accepted", "n_warnings": 0}, None) == "valid"
    assert status_text({"status": "accepted", "n_warnings": 2}, None) == (
        "valid with warnings"
    )
    assert status_text({"status": "rejected"}, None) == "rejected"
    reg = Output(
        "t1", "the red chair", attribute_set({"colour": "red", "type": "chair"})
    )
    assert _field_text(reg, "attribute_set") == "{colour:red, type:chair}"
    assert _field_text(reg, "word_string") == "the red chair"
    dialogue = Output("e1", "it", fields=(("pronoun", True),))
    assert _field_text(dialogue, "pronoun") == "yes"
    ref = Reference(fields=(("form", "full"), ("pronoun", False)))
    assert _field_text(ref, "pronoun") == "no"
    assert _field_text(Output("x"), "word_string") is None


def test_output_columns_come_from_the_task_types():
    def fields(tasks):
        ctx = SimpleNamespace(config={"campaign": {"tasks": tasks}})
        return teams._fields(ctx, {"tasks": tasks})

    assert fields(["situated_dialogue"]) == [("pronoun", "pronoun")]
    assert fields(["text_generation"]) == [("word_string", "output")]
    assert fields(["end_to_end", "attribute_selection"]) == [
        ("word_string", "WORD-STRING"),
        ("attribute_set", "ATTRIBUTE-SET"),
    ]


def test_competition_ranks_by_bisection_equal_the_definition():
    """Rank = 1 + the number of strictly better values; None unranked (1,000 cases)."""
    import random

    from stecflow.report.tables import competition_ranks as ranks_of

    rng = random.Random(7)
    for _ in range(1000):
        values = [
            None if rng.random() < 0.1 else rng.choice([0.5, 1.0, 1.5, rng.random()])
            for _ in range(rng.randint(0, 12))
        ]
        present = [v for v in values if v is not None]
        for higher in (True, False):
            expected = [
                None
                if v is None
                else 1 + sum((w > v) if higher else (w < v) for w in present)
                for v in values
            ]
            assert ranks_of(values, higher) == expected


# -- many references: the closest few, then a count ---------------------------


def test_an_item_of_150_references_shows_the_closest_few():
    references = tuple(
        Reference(word_string=f"the chair number {n}", id=f"r{n:03d}")
        for n in range(1, 151)
    )
    item = Item("t1", Domain(()), "furniture", references=references)
    texts = teams._reference_texts(item, (("word_string", "words"),), {})
    assert len(texts) == 150
    info = MetricInfo("dice", "dice", "Dice", "Dice", "set", "item", True)
    # the output's Dice against each reference: r150 closest, r001 farthest;
    # r075 has no score of its own (listed after the scored ones)
    closeness = {f"r{n:03d}": n / 150 for n in range(1, 151) if n != 75}
    text, more = teams.reference_cell(texts, closeness, info)
    lines = text.split("\n")
    assert len(lines) == teams.SHOWN_REFERENCES + 1 <= 6
    assert more == 150 - teams.SHOWN_REFERENCES
    assert lines[-1] == f"… and {more} more"
    assert lines[:2] == [
        "r150 (1.00): the chair number 150",
        "r149 (0.99): the chair number 149",
    ]
    # lower is better: the lowest first
    lower = MetricInfo("se", "se", "SE", "SE", "set", "item", False)
    first = teams.reference_cell(texts, closeness, lower)[0].split("\n")[0]
    assert first == "r001 (0.01): the chair number 1"
    # without scores per reference: the first in test-set order, no scores
    plain = teams.reference_cell(texts)[0].split("\n")
    assert plain[:2] == ["r001: the chair number 1", "r002: the chair number 2"]
    assert plain[-1] == "… and 145 more"
    # few references: all, in test-set order, without scores
    assert teams.reference_cell(texts[:3], closeness, info) == (
        "r001: the chair number 1\nr002: the chair number 2\nr003: the chair number 3",
        0,
    )


def test_items_show_their_closest_references_with_a_pointer(
    campaign, tmp_path, monkeypatch
):
    # the tiny campaign's items have two references: show one of them
    alpha = alpha_part(
        campaign, tmp_path / "index.html", monkeypatch, SHOWN_REFERENCES=1
    )
    rows = grid_rows(alpha, "All 4 items of alpha/sys1, worst first.")
    table = next(
        p for p in campaign["item_scores"] if p.parts[-2:] == ("alpha", "sys1.tsv")
    )
    se = {
        (r["item"], r["reference"]): float(r["value"])
        for r in read_tsv(table)
        if r["metric"] == "se" and r["reference"] != "*"
    }
    for row in rows:
        cell = row[3].split("\n")
        assert len(cell) == 2 and cell[1] == "… and 1 more", row
        closest = min(("HUMAN-1", "HUMAN-2"), key=lambda ref: se[(row[0], ref)])
        assert cell[0].startswith(f"{closest} ({se[(row[0], closest)]:.2f}): "), row
    assert "An item lists at most 1 of its references: those closest to the" in alpha
    assert "<code>scores/items/alpha/sys1.tsv</code>" in alpha

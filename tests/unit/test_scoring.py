from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest
import sacrebleu

from stecflow.cli import main as cli
from stecflow.core.errors import ConfigError
from stecflow.core.io import read_tsv
from stecflow.data.corpus import read_items
from stecflow.data.model import Output
from stecflow.metrics.text import TextNormaliser
from stecflow.scoring.score import score_outputs, score_submission
from stecflow.scoring.specs import metric_signatures, metric_specs
from stecflow.scoring.systems import aggregate_scores
from stecflow.submissions.outputs import read_outputs
from stecflow.submissions.report import write_validation
from stecflow.submissions.validation import validate_submission

QUICK = {"bootstrap": {"resamples": 200, "seed": 7}}


@pytest.fixture
def items(tiny_campaign):
    return read_items(tiny_campaign / "testset.xml")


@pytest.fixture
def alpha(tiny_campaign, items):
    data = (
        tiny_campaign / "submissions" / "alpha" / "sys1" / "outputs.xml"
    ).read_bytes()
    outputs, problems = read_outputs(data, "o.xml", items, ["end_to_end"])
    assert problems == []
    return outputs


def value(rows, metric, subset="all"):
    [row] = [r for r in rows if r["metric"] == metric and r["subset"] == subset]
    return row["value"]


def test_se_by_hand(items, alpha):
    # t1: mean(0, 4); t2: mean(1, 0); t3: mean(1, 7); t4: mean(2, 4)
    _, rows = score_outputs(items, alpha, {**QUICK, "metrics": [{"id": "se"}]})
    assert value(rows, "se") == pytest.approx((2 + 0.5 + 4 + 3) / 4)
    assert value(rows, "se", "furniture") == pytest.approx(1.25)
    assert value(rows, "se", "people") == pytest.approx(3.5)
    assert value(rows, "se", "+LOC") == pytest.approx(3.0)


def test_bleu_is_corpus_level_per_subset_and_equals_sacrebleu(items, alpha):
    _, rows = score_outputs(items, alpha, {**QUICK, "metrics": [{"id": "bleu3"}]})
    norm = TextNormaliser()
    for subset, chosen in [
        ("all", items),
        ("people", items[2:]),
        ("-LOC", items[1::2]),
    ]:
        hyps = [
            " ".join(norm.tokens(o.word_string))
            for o in alpha
            if o.item_id in {i.id for i in chosen}
        ]
        refs = [
            [" ".join(norm.tokens(i.references[k].word_string)) for i in chosen]
            for k in (0, 1)
        ]
        bleu = sacrebleu.metrics.BLEU(max_ngram_order=3, tokenize="none", force=True)
        expected = bleu.corpus_score(hyps, refs).score
        assert value(rows, "bleu3", subset) == pytest.approx(expected, abs=1e-9), subset


def test_item_rows_per_reference(items, alpha):
    item_rows, _ = score_outputs(
        items,
        alpha,
        {**QUICK, "metrics": [{"id": "se"}, {"id": "uniqueness"}, {"id": "nist5"}]},
    )
    t1 = [
        (r["metric"], r["reference"], r["value"])
        for r in item_rows
        if r["item"] == "t1"
    ]
    assert t1 == [
        ("nist5", "*", pytest.approx(t1[0][2])),
        ("se", "*", 2.0),
        ("se", "HUMAN-1", 0.0),
        ("se", "HUMAN-2", 4.0),
        ("uniqueness", "*", 1.0),
    ]
    star = [r for r in item_rows if r["reference"] == "*"]
    assert all(r["stats"] for r in star) and len(star) == 12


def test_human_reference_is_scored_against_the_others(items):
    human1 = [
        Output(i.id, i.references[0].word_string, i.references[0].attribute_set)
        for i in items
    ]
    _, rows = score_outputs(
        items,
        human1,
        {**QUICK, "metrics": [{"id": "se"}, {"id": "string_accuracy"}]},
        exclude_reference="HUMAN-1",
    )
    # HUMAN-1 vs HUMAN-2: t1 4, t2 1, t3 (5+6-2*3... see below), t4 2
    # t3: "the old man with a beard" vs "the bearded man in the middle": LCS "the man" -> 6+6-4 = 8
    # t4: "the young man without glasses" vs "the man with no glasses": LCS "the man glasses" -> 5+5-6 = 4
    assert value(rows, "se") == pytest.approx((4 + 1 + 8 + 4) / 4)
    assert value(rows, "string_accuracy") == 0
    _, self_rows = score_outputs(
        items, human1, {**QUICK, "metrics": [{"id": "string_accuracy"}]}
    )
    assert value(self_rows, "string_accuracy") == 1


def test_missing_input_kind_is_skipped_with_reason(items):
    strings_only = [Output(i.id, "the thing") for i in items]
    _, rows = score_outputs(
        items, strings_only, {**QUICK, "metrics": [{"id": "dice"}, {"id": "se"}]}
    )
    dice = [r for r in rows if r["metric"] == "dice"]
    assert len(dice) == 1 and dice[0]["status"] == "skipped"
    assert dice[0]["reason"] == "the outputs have no attribute sets (4 of 4 items)"
    assert value(rows, "se") > 0


def test_bootstrap_intervals_are_seeded_and_shared(items, alpha):
    config = {**QUICK, "metrics": [{"id": "se"}, {"id": "bleu3"}]}
    _, first = score_outputs(items, alpha, config)
    _, again = score_outputs(items, alpha, config)
    assert first == again
    for row in first:
        assert (
            row["ci_low"] <= row["value"] + 1e-9
            and row["value"] - 1e-9 <= row["ci_high"]
            or math.isnan(row["ci_low"])
        )
    _, other = score_outputs(
        items, alpha, {**config, "bootstrap": {"resamples": 200, "seed": 8}}
    )
    assert [r["ci_low"] for r in other] != [r["ci_low"] for r in first]
    assert all("bs:200|seed:7" in r["signature"] for r in first)


def test_config_errors_name_the_key():
    with pytest.raises(ConfigError) as info:
        metric_specs({"metrics": [{"id": "dice"}, {"id": "blue"}]})
    assert info.value.field == "scoring.metrics[1].metric" and "bleu3" in str(
        info.value
    )
    with pytest.raises(ConfigError, match="used twice"):
        metric_specs({"metrics": [{"id": "dice"}, {"id": "dice"}]})
    with pytest.raises(ConfigError, match="multi_ref"):
        metric_signatures(
            {"metrics": [{"id": "dice", "options": {"multi_ref": "median"}}]}
        )


def test_text_settings_reach_text_metrics_only():
    specs = {
        s.id: s
        for s in metric_specs(
            {"text": {"lowercase": False}, "metrics": [{"id": "se"}, {"id": "dice"}]}
        )
    }
    assert dict(specs["se"].options) == {"lowercase": False}
    assert dict(specs["dice"].options) == {}
    signatures = metric_signatures(
        {"text": {"lowercase": False}, "metrics": [{"id": "se"}]}
    )
    assert "|case:mixed|" in signatures["se"]
    assert signatures != metric_signatures({"metrics": [{"id": "se"}]})


def test_score_submission_and_aggregate(tiny_campaign, items, tmp_path):
    summaries = []
    for team, system in [("alpha", "sys1"), ("gamma", "broken")]:
        folder = tiny_campaign / "submissions" / team / system
        record = validate_submission(
            folder,
            items,
            team=team,
            system=system,
            campaign_tasks=["end_to_end", "attribute_selection"],
        )
        write_validation(record, tmp_path / f"{team}.json", tmp_path / f"{team}.md")
        summary = tmp_path / f"{team}-summary.json"
        score_submission(
            tmp_path / f"{team}.json",
            folder,
            tiny_campaign / "testset.xml",
            QUICK,
            tmp_path / f"{team}.tsv",
            summary,
        )
        summaries.append(summary)
    skipped = json.loads(summaries[1].read_text())
    assert (
        skipped["status"] == "skipped"
        and skipped["reason"] == "rejected at validation (10 errors)"
    )
    assert read_tsv(tmp_path / "gamma.tsv") == []
    n = aggregate_scores(summaries, tmp_path / "systems.tsv")
    rows = read_tsv(tmp_path / "systems.tsv")
    assert len(rows) == n == 17 * 5 + 1
    se = [r for r in rows if r["metric"] == "se" and r["subset"] == "all"]
    assert (
        se[0]["value"] == "2.375"
        and se[0]["n"] == "4"
        and se[0]["signature"].startswith("SE|")
    )
    assert rows[-1]["system"] == "broken" and rows[-1]["status"] == "skipped"


def test_cli_score(tiny_campaign, capsys, tmp_path):
    outputs = tiny_campaign / "submissions" / "alpha" / "sys1" / "outputs.xml"
    code = cli(
        [
            "score",
            str(tiny_campaign / "testset.xml"),
            str(outputs),
            "--metrics",
            "se",
            "bleu3",
            "--resamples",
            "0",
            "--json",
            str(tmp_path / "s.json"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    lines = out.splitlines()
    assert lines[2].split("  ") == [
        "Metric",
        "All items (n = 4)",
        "Furniture (n = 2)",
        "People (n = 2)",
        "+LOC (n = 2)",
        "-LOC (n = 2)",
    ]
    assert lines[3].split() == ["SE", "2.38", "1.25", "3.50", "3.00", "1.75"]
    assert (
        "Signature SE: SE|refs:mean|case:lc|punct:strip|w:1,1,2|bs:0|seed:2009"
        "|version:1|rapidfuzz:" in out
    )
    assert json.loads((tmp_path / "s.json").read_text())["n_items"] == 4
    broken = tiny_campaign / "submissions" / "gamma" / "broken" / "outputs.xml"
    assert (
        cli(
            [
                "score",
                str(tiny_campaign / "testset.xml"),
                str(broken),
                "--metrics",
                "se",
            ]
        )
        == 1
    )
    assert "add --partial" in capsys.readouterr().err


def test_empty_word_string_is_scored_as_saying_nothing(items, alpha):
    # A whitespace-only WORD-STRING is a warning at validation and is scored as
    # an empty description: the edit distance to each reference is its length.
    silent = [replace(alpha[0], word_string="")] + list(alpha[1:])
    metrics = {
        **QUICK,
        "metrics": [{"id": "se"}, {"id": "string_accuracy"}, {"id": "bleu3"}],
    }
    item_rows, rows = score_outputs(items, silent, metrics)
    se_t1 = {
        r["reference"]: r["value"]
        for r in item_rows
        if r["item"] == "t1" and r["metric"] == "se"
    }
    # "the red chair" and "the large red chair on the left"
    assert (se_t1["HUMAN-1"], se_t1["HUMAN-2"], se_t1["*"]) == (3, 7, 5)
    # t1 matched HUMAN-1 exactly (SE 0): no more
    assert value(rows, "se") == pytest.approx((5 + 0.5 + 4 + 3) / 4)
    assert value(rows, "string_accuracy") == 0.25  # t2 still matches HUMAN-2
    assert (
        0
        <= value(rows, "bleu3")
        < value(score_outputs(items, alpha, metrics)[1], "bleu3")
    )


def test_config_with_the_old_ssa_name_scores_seed002s_seb(caplog):
    """A config naming ``ssa`` (seed 002's SEB under its old name) still runs."""
    from stecflow.scoring.specs import metric_directions, metric_signatures

    scoring = {"metrics": [{"id": "ssa"}, {"id": "seb"}, {"id": "se_norm"}]}
    with caplog.at_level("WARNING"):
        signatures = metric_signatures(scoring)
    assert signatures["ssa"] == signatures["seb"]
    assert signatures["seb"].startswith("SEB|refs:mean|case:lc|punct:strip|bs:1000")
    assert signatures["se_norm"].startswith("SE-norm|norm:sum_lengths|refs:mean|")
    assert "deprecated" in caplog.text
    assert metric_directions(scoring) == {"ssa": True, "seb": True, "se_norm": False}


def test_string_metrics_on_realised_attribute_sets(items, alpha):
    # ASGRE 2007 (seed 002, measures 4): peer and reference attribute sets are
    # realised by the template realiser and the string metrics score the results.
    from rapidfuzz.distance import Indel

    from stecflow.tasks.reg.realiser import realise

    sets_only = [replace(o, word_string=None) for o in alpha]
    metrics = {**QUICK, "metrics": [{"id": "se"}, {"id": "dice"}]}
    _, plain = score_outputs(items, sets_only, metrics)
    [se_row] = [r for r in plain if r["metric"] == "se"]
    assert se_row["status"] == "skipped"
    item_rows, rows = score_outputs(
        items, sets_only, {**metrics, "realise": "template"}
    )
    expected = []
    for item, output in zip(items, alpha, strict=True):
        hyp = realise(output.attribute_set).split()
        refs = [realise(r.attribute_set).split() for r in item.references]
        expected.append(sum(Indel.distance(hyp, ref) for ref in refs) / len(refs))
    assert value(rows, "se") == pytest.approx(sum(expected) / len(expected))
    assert realise(alpha[0].attribute_set) == "the red chair"
    signatures = {r["metric"]: r["signature"] for r in rows}
    assert "|realise:template-v1|" in signatures["se"]
    assert "realise" not in signatures["dice"]  # set metrics are unchanged
    assert value(rows, "dice") == value(plain, "dice")


def _sorted_rows(rows):
    """The order item rows are written in, as a sort of the rows themselves."""
    return sorted(
        rows,
        key=lambda r: (r["item"], r["metric"], r["reference"] != "*", r["reference"]),
    )


def test_item_rows_are_made_in_order_and_counted(items, alpha):
    item_rows, _ = score_outputs(
        items,
        alpha,
        {**QUICK, "metrics": [{"id": "se"}, {"id": "dice"}, {"id": "bleu3"}]},
    )
    rows = list(item_rows)
    assert rows == list(item_rows)  # made again, the same
    assert rows == _sorted_rows(rows) and len(item_rows) == len(rows)
    # 4 items × (se: * + 2 references; dice: * + 2 references; bleu3: * only)
    assert len(rows) == 4 * (3 + 3 + 1)
    assert [r["metric"] for r in rows[:7]] == ["bleu3"] + ["dice"] * 3 + ["se"] * 3


def test_item_rows_of_a_repeated_item_id_are_still_sorted(items, alpha):
    twice = [*items, replace(items[0], subdomain="people")]
    item_rows, _ = score_outputs(twice, alpha, {**QUICK, "metrics": [{"id": "se"}]})
    rows = list(item_rows)
    assert len(rows) == 5 * 3 and rows == _sorted_rows(rows)
    first = [r["subdomain"] for r in rows if r["item"] == items[0].id]
    # the all-references rows, then each reference's, each in the items' order
    assert first == [items[0].subdomain, "people"] * 3

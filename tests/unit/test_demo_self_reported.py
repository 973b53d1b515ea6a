"""The demo teams' self-reported development scores (seed 001 Table 4) are what
their systems score on the committed development data, recomputed here without
stecflow's metrics; the demo campaign's validation keeps them."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
import yaml

from stecflow.baselines import systems as baselines
from stecflow.data.corpus import read_items
from stecflow.demo.submissions import system_outputs

ROOT = Path(__file__).resolve().parents[2]
SUBMISSIONS = ROOT / "submissions"


def _reported(team: str, system: str) -> list[dict]:
    meta = yaml.safe_load((SUBMISSIONS / team / system / "system.yaml").read_text())
    return meta.get("self_reported", [])


def _tokens(text: str) -> list[str]:
    """Lower-cased words, every punctuation character a space (the default
    text settings of the campaign's metrics, and of TUNA's teval)."""
    text = unicodedata.normalize("NFC", text).lower()
    return "".join(
        " " if unicodedata.category(c)[0] == "P" else c for c in text
    ).split()


def _indel(a: list[str], b: list[str]) -> int:
    """Levenshtein with insertion and deletion 1, substitution 2 (seed 001's SE),
    by the plain dynamic programme."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(
                min(
                    previous[j] + 1,
                    current[j - 1] + 1,
                    previous[j - 1] + (0 if x == y else 2),
                )
            )
        previous = current
    return previous[-1]


@pytest.fixture(scope="module")
def dev():
    return read_items(ROOT / "resources" / "demo" / "dev.xml")


def test_which_demo_systems_report_what():
    found = {
        f"{team}/{system}": [
            (e["metric"], e["data"], e.get("references"))
            for e in _reported(team, system)
        ]
        for team, system in (
            ("organisers", "full-brevity"),
            ("organisers", "greedy"),
            ("organisers", "incremental"),
            ("organisers", "incremental-loc"),
            ("late-team", "primary"),
            ("human", "HUMAN-1"),
        )
    }
    three = [
        ("string_accuracy", "development", 1),
        ("se", "development", 1),
        ("bleu3", "development", 1),
    ]
    assert found == {
        "organisers/full-brevity": [],
        # no Accuracy, as GRAPH and USP-EACH in seed 001 Table 4
        "organisers/greedy": three[1:],
        "organisers/incremental": three,
        "organisers/incremental-loc": three,
        "late-team/primary": three,
        "human/HUMAN-1": [],
    }


def test_greedy_reports_its_development_scores(dev):
    """Greedy's SE and BLEU-3 on the 148 development items, one reference each:
    SE by a plain dynamic programme, BLEU-3 by sacreBLEU itself."""
    import sacrebleu

    outputs = system_outputs(dev, lambda item: baselines.greedy(item.domain))
    hyps = [_tokens(o.word_string) for o in outputs]
    refs = [_tokens(item.references[0].word_string) for item in dev]
    assert len(dev) == 148 and all(len(i.references) == 1 for i in dev)
    se = sum(_indel(h, r) for h, r in zip(hyps, refs, strict=True)) / len(dev)
    bleu = sacrebleu.BLEU(max_ngram_order=3, tokenize="none", force=True)
    score = bleu.corpus_score(
        [" ".join(h) for h in hyps], [[" ".join(r) for r in refs]]
    )
    reported = {e["metric"]: e["value"] for e in _reported("organisers", "greedy")}
    assert reported == {"se": round(se, 3), "bleu3": round(score.score / 100, 4)}
    assert reported == {"se": 9.676, "bleu3": 0.0465}


def test_incremental_reports_its_development_accuracy(dev):
    from stecflow.demo.corpus import generate_corpus

    train = generate_corpus()["train"]
    orders = baselines.learn_preference_order(train)
    outputs = system_outputs(
        dev, lambda item: baselines.incremental(item.domain, orders[item.subdomain])
    )
    same = sum(
        _tokens(o.word_string) == _tokens(i.references[0].word_string)
        for o, i in zip(outputs, dev, strict=True)
    )
    reported = {e["metric"]: e["value"] for e in _reported("organisers", "incremental")}
    assert reported["string_accuracy"] == round(100 * same / len(dev), 2) == 10.14
    assert reported["se"] == 8.108 and reported["bleu3"] == 0.2122


def test_the_demo_campaign_validation_keeps_them():
    from stecflow.scoring.reported import reported_metrics
    from stecflow.submissions.validation import validate_submission

    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    record = validate_submission(
        SUBMISSIONS / "organisers" / "incremental",
        read_items(ROOT / "resources" / "demo" / "test.xml"),
        team="organisers",
        system="incremental",
        campaign_tasks=config["campaign"]["tasks"],
        properties=config["submissions"]["properties"],
        metrics=reported_metrics(config["scoring"], config["campaign"]["tasks"]),
    )
    assert record["status"] == "accepted" and record["warnings"] == []
    assert [(e["metric"], e["value"]) for e in record["self_reported"]] == [
        ("string_accuracy", 10.14),
        ("se", 8.108),
        ("bleu3", 0.2122),
    ]

"""The data-to-text demo (resources/text-demo/, config/text-demo.yaml)."""

from __future__ import annotations

import doctest
import json
import re
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest
import yaml

from stecflow.core.ids import is_valid_id
from stecflow.demo import text as demo
from stecflow.demo.domains import FURNITURE_SCHEMA, PEOPLE_SCHEMA
from stecflow.submissions.metadata import is_late

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "resources" / "text-demo"
SUBMISSIONS = COMMITTED / "submissions"
TEST_SIZE = 24 * 5


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, demo.TextDemoBuild]:
    out = tmp_path_factory.mktemp("text-demo")
    stale = out / "submissions" / "organisers" / "template" / "outputs.txt"
    stale.parent.mkdir(parents=True)
    stale.write_text("an earlier run's outputs file\n")
    return out, demo.write_demo(out)


@pytest.fixture(scope="module")
def splits() -> dict[str, list[dict]]:
    return {s: read_jsonl(COMMITTED / f"{s}.jsonl") for s in ("train", "dev", "test")}


def committed_files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_regeneration_gives_the_committed_bytes(fresh) -> None:
    out, build = fresh
    new = committed_files(out)
    old = committed_files(COMMITTED)
    assert sorted(new) == sorted(old)  # the stale outputs.txt was removed
    assert sorted(str(p.relative_to(out)) for p in build.files) == sorted(new)
    changed = [name for name in new if new[name] != old[name]]
    assert not changed, f"regenerate with python -m stecflow.demo.text: {changed}"
    assert sum(len(b) for b in old.values()) < 400_000


def test_main_writes_the_demo(tmp_path: Path, capsys) -> None:
    assert demo.main(["--out", str(tmp_path / "d")]) == 0
    printed = capsys.readouterr().out
    assert printed.count("system.yaml") == 6
    assert "line 3 (t003): bytes invalid in UTF-8" in printed
    assert committed_files(tmp_path / "d") == committed_files(COMMITTED)


def test_another_seed_gives_another_corpus() -> None:
    assert demo.generate_corpus(1)["test"] != demo.generate_corpus()["test"]


def test_doctests() -> None:
    result = doctest.testmod(demo)
    assert result.attempted >= 4 and result.failed == 0


def test_counts_per_split_and_category(splits) -> None:
    counts = {
        split: Counter(item["meta"]["category"] for item in items)
        for split, items in splits.items()
    }
    assert counts["test"] == {c: 24 for c in demo.CATEGORIES}
    seen = [c for c in demo.CATEGORIES if c not in demo.UNSEEN_CATEGORIES]
    assert counts["train"] == {c: 60 for c in seen}
    assert counts["dev"] == {c: 12 for c in seen}
    assert len(splits["test"]) == TEST_SIZE
    for items in splits.values():
        for item in items:
            expected = (
                "unseen" if item["meta"]["category"] in ("Fan", "Person") else "seen"
            )
            assert item["meta"]["seen"] == expected
    assert Counter(i["meta"]["seen"] for i in splits["test"]) == {
        "seen": 72,
        "unseen": 48,
    }


def test_unseen_categories_are_absent_from_train_and_dev(splits) -> None:
    for split in ("train", "dev"):
        subjects = {t[0] for item in splits[split] for t in item["input"]}
        assert not any(s.startswith(("fan_", "person_")) for s in subjects)
        predicates = {t[1] for item in splits[split] for t in item["input"]}
        assert not predicates & {"age", "hasBeard", "hasGlasses", "hairColour"}
    unseen = [i for i in splits["test"] if i["meta"]["seen"] == "unseen"]
    assert {t[0].split("_")[0] for i in unseen for t in i["input"]} == {
        "fan",
        "person",
    }


def test_lines_follow_the_contract(splits) -> None:
    ids = [item["id"] for items in splits.values() for item in items]
    assert len(ids) == len(set(ids)) == 180 + 36 + 120
    assert all(is_valid_id(i) for i in ids)
    assert [i["id"] for i in splits["test"]][:2] == ["t001", "t002"]
    for items in splits.values():
        for item in items:
            assert list(item) == ["id", "input", "references", "meta"]
            assert all(isinstance(r, str) and r.strip() for r in item["references"])
            assert all(isinstance(v, str) for v in item["meta"].values())


def test_triples_use_the_demo_vocabularies(splits) -> None:
    furniture = {name: values for name, values, _ in FURNITURE_SCHEMA}
    people = {name: values for name, values, _ in PEOPLE_SCHEMA}
    sizes = Counter()
    for items in splits.values():
        for item in items:
            triples = item["input"]
            sizes[len(triples)] += 1
            category = item["meta"]["category"]
            assert 1 <= len(triples) <= 5
            assert len({t[0] for t in triples}) == 1  # one entity per input
            assert len({t[1] for t in triples}) == len(triples)  # no repeated fact
            assert re.fullmatch(rf"{category.lower()}_\d\d", triples[0][0])
            vocabulary = people if category == "Person" else furniture
            for _, predicate, value in triples:
                if predicate == "row":
                    assert value in ("top", "middle", "bottom")
                elif predicate == "column":
                    assert value in ("1", "2", "3", "4", "5")
                elif predicate.startswith("has"):
                    assert predicate in vocabulary and value in ("yes", "no")
                else:
                    assert predicate != "type" and value in vocabulary[predicate]
            facts = {p: v for _, p, v in triples}
            assert not (facts.get("hasHair") == "no" and "hairColour" in facts)
    assert set(sizes) == {1, 2, 3, 4, 5}


def test_three_references_per_test_input_by_different_authors(splits) -> None:
    assert all(len(i["references"]) == 3 for i in splits["test"])
    for split in ("train", "dev"):
        assert {len(i["references"]) for i in splits[split]} == {1, 2, 3}
    # varied templates and word orders: most inputs' references differ
    distinct = sum(len(set(i["references"])) == 3 for i in splits["test"])
    assert distinct > 0.6 * TEST_SIZE
    words = Counter(
        w for i in splits["test"] for r in i["references"] for w in r.split()
    )
    for synonym_pair in (("big", "large"), ("little", "small")):
        assert all(words[w] > 0 for w in synonym_pair)
    noun_phrases = [r for i in splits["test"] for r in i["references"] if " is a" in r]
    assert len(noun_phrases) > 20


def test_human_ref_is_the_held_out_reference(splits) -> None:
    corpus = demo.generate_corpus()
    human = read_jsonl(SUBMISSIONS / "human" / "ref" / "outputs.jsonl")
    for line, item, full in zip(human, splits["test"], corpus["test"], strict=True):
        assert line == {"id": item["id"], "output": full.references[0]}
        assert item["references"] == list(full.references[1:])


# --- the submissions ---------------------------------------------------------------


def outputs_of(team: str, system: str, test: list[dict]) -> dict[str, str]:
    """id -> output of a valid submission, whatever its outputs format."""
    folder = SUBMISSIONS / team / system
    files = sorted(p.name for p in folder.glob("outputs.*"))
    assert len(files) == 1, files
    path = folder / files[0]
    if path.suffix == ".jsonl":
        pairs = [(r["id"], r["output"]) for r in read_jsonl(path)]
    elif path.suffix == ".txt":
        lines = path.read_text("utf-8").split("\n")
        assert lines[-1] == "" and len(lines) - 1 == len(test)
        pairs = list(zip([i["id"] for i in test], lines[:-1], strict=True))
    else:
        gem = json.loads(path.read_text("utf-8"))
        assert gem["language"] == "en"
        pairs = [(v["gem_id"], v["generated"]) for v in gem["values"]]
    assert [i for i, _ in pairs] == [i["id"] for i in test]
    return dict(pairs)


SYSTEMS = {
    ("organisers", "template"): "outputs.jsonl",
    ("organisers", "rules"): "outputs.txt",
    ("organisers", "weak"): "outputs.json",
    ("human", "ref"): "outputs.jsonl",
    ("late-team", "primary"): "outputs.jsonl",
}


@pytest.mark.parametrize(("team", "system"), sorted(SYSTEMS))
def test_every_system_covers_every_input(team, system, splits) -> None:
    assert (SUBMISSIONS / team / system / SYSTEMS[team, system]).is_file()
    outputs = outputs_of(team, system, splits["test"])
    assert len(outputs) == TEST_SIZE
    assert all(o.strip() and o == o.strip() for o in outputs.values())


def metadata_schema() -> dict:
    text = (
        resources.files("stecflow.submissions")
        .joinpath("schemas/submission.schema.yaml")
        .read_text()
    )
    return yaml.safe_load(text)


def test_system_yaml_as_the_reg_demo_writes_it() -> None:
    import jsonschema

    validator = jsonschema.Draft202012Validator(metadata_schema())
    folders = sorted(p.parent for p in SUBMISSIONS.glob("*/*/system.yaml"))
    assert [f"{f.parent.name}/{f.name}" for f in folders] == [
        "broken-team/primary",
        "human/ref",
        "late-team/primary",
        "organisers/rules",
        "organisers/template",
        "organisers/weak",
    ]
    late = []
    for folder in folders:
        metadata = yaml.safe_load((folder / "system.yaml").read_text("utf-8"))
        assert not list(validator.iter_errors(metadata)), folder
        assert (metadata["team"], metadata["system"]) == (
            folder.parent.name,
            folder.name,
        )
        assert metadata["tasks"] == ["text_generation"]
        assert metadata["reference"] == (folder.parent.name == "human")
        if is_late(metadata, demo.DEADLINE):
            late.append(folder.parent.name)
    assert late == ["late-team"]
    primaries = {
        f"{f.parent.name}/{f.name}"
        for f in folders
        if yaml.safe_load((f / "system.yaml").read_text("utf-8"))["primary"]
    }
    assert primaries == {"broken-team/primary", "late-team/primary", "organisers/rules"}


# What each baseline must say for a triple to count as mentioned: the object itself,
# the template's word for an orientation, the thing a yes/no predicate is about.
_THING = {
    "hasHair": r"(?:has|with|has no|dark|light) hair|bald",
    "hasBeard": "beard",
    "hasGlasses": "glasses",
    "hasShirt": "shirt",
    "hasSuit": "suit",
    "hasTie": "tie",
}
_FACING = {"front": "forward", "back": "away"}


def mentioned(triple: list[str], text: str) -> bool:
    _, predicate, value = triple
    if predicate in _THING:
        word = _THING[predicate]
    elif predicate == "orientation":
        word = _FACING.get(value, value)
    else:
        word = re.escape(value)
    return re.search(rf"\b(?:{word})\b", text.lower()) is not None


def test_mentioned_counts_what_a_text_says() -> None:
    assert mentioned(["chair_1", "colour", "red"], "Chair 1 is red.")
    assert not mentioned(["chair_1", "colour", "red"], "Chair 1 is reddish.")
    assert mentioned(["fan_2", "orientation", "back"], "It faces away.")
    assert mentioned(["person_3", "hasHair", "no"], "Person 3 is a bald man.")
    assert mentioned(["person_3", "hasHair", "yes"], "Person 3 has hair.")
    assert mentioned(["person_3", "hasHair", "yes"], "Person 3 has light hair.")
    assert not mentioned(["person_3", "hasHair", "yes"], "Person 3 has a hat.")
    assert not mentioned(["person_3", "column", "2"], "It is in column 3.")


def test_the_weak_baseline_is_measurably_worse(splits) -> None:
    test = splits["test"]
    outputs = {s: outputs_of("organisers", s, test) for s in ("template", "rules")}
    outputs["weak"] = outputs_of("organisers", "weak", test)
    coverage = {}
    for system, texts in outputs.items():
        said = [sum(mentioned(t, texts[i["id"]]) for t in i["input"]) for i in test]
        coverage[system] = sum(said) / sum(len(i["input"]) for i in test)
        if system == "weak":  # it keeps ceil(n / 2) of n triples, so drops some
            kept = [(len(i["input"]) + 1) // 2 for i in test]
            assert all(k <= n for k, n in zip(kept, said, strict=True))
            for n, item in zip(said, test, strict=True):
                assert n < len(item["input"]) or len(item["input"]) == 1
    assert coverage["template"] == coverage["rules"] == 1.0
    assert coverage["weak"] < 0.7
    # and it repeats itself: some sentence occurs twice in every output
    for text in outputs["weak"].values():
        sentences = [s.strip() for s in re.findall(r"[^.]+\.", text)]
        assert len(set(sentences)) < len(sentences)


def test_sacrebleu_ranks_the_baselines(splits) -> None:
    """BLEU and chrF++ against the three references: weak < template < rules."""
    import sacrebleu

    test = splits["test"]
    references = [[i["references"][k] for i in test] for k in range(3)]
    bleu, chrf = {}, {}
    for team, system in SYSTEMS:
        texts = outputs_of(team, system, test)
        hypotheses = [texts[i["id"]] for i in test]
        bleu[system] = sacrebleu.corpus_bleu(hypotheses, references).score
        chrf[system] = sacrebleu.corpus_chrf(hypotheses, references, word_order=2).score
    assert bleu["primary"] < bleu["weak"] < bleu["template"] < bleu["rules"]
    assert chrf["primary"] < chrf["weak"] < chrf["template"] < chrf["rules"]


# --- the broken submission ---------------------------------------------------------


def test_the_broken_submission_has_its_problems_in_its_bytes(fresh, splits) -> None:
    _, build = fresh
    test_ids = [i["id"] for i in splits["test"]]
    raw = (SUBMISSIONS / "broken-team" / "primary" / "outputs.jsonl").read_bytes()
    lines = raw.split(b"\n")
    assert lines[-1] == b""
    lines = lines[:-1]
    problems = {p.problem: (p.line, p.item_id) for p in build.broken_problems}
    assert problems == {
        "bytes invalid in UTF-8": (3, "t003"),
        "missing item": (5, "t005"),
        "duplicated item": (10, "t010"),
        "unknown item ID": (21, "t999"),
        "empty output": (31, "t030"),
    }
    undecodable = []
    ids = []
    for number, line in enumerate(lines, start=1):
        try:
            ids.append(json.loads(line.decode("utf-8"))["id"])
        except UnicodeDecodeError:
            undecodable.append(number)
            ids.append(json.loads(line.decode("latin-1"))["id"])
    assert undecodable == [3] and b"caf\xe9" in lines[2]
    assert len(lines) == TEST_SIZE + 1  # -1 missing, +1 duplicate, +1 unknown
    assert "t005" not in ids
    assert [n for n, i in enumerate(ids, start=1) if i == "t010"] == [9, 10]
    assert ids[20] == "t999" and "t999" not in test_ids
    assert json.loads(lines[30])["output"].strip() == ""
    assert ids[30] == "t030"
    assert set(ids) - {"t999"} == set(test_ids) - {"t005"}


# --- the campaign config -----------------------------------------------------------


def test_the_config_names_the_demo_files() -> None:
    config = yaml.safe_load((ROOT / "config" / "text-demo.yaml").read_text("utf-8"))
    assert config["results"] == "results/text-demo"
    assert config["campaign"]["tasks"] == ["text_generation"]
    data = config["data"]
    assert data["format"] == "text" and data["subsets"] == ["category", "seen"]
    for key in ("testset", "train", "dev"):
        assert (ROOT / data[key]).is_file()
    assert (ROOT / config["submissions"]["root"]) == SUBMISSIONS
    assert config["campaign"]["deadline"] == demo.DEADLINE
    assert [m["id"] for m in config["scoring"]["metrics"]] == [
        "bleu",
        "chrf",
        "ter",
        "rouge_l",
        "string_accuracy",
        "se",
    ]
    # the two text studies name demo systems
    assert [s["task"] for s in config["studies"]] == ["text_rating", "text_preference"]
    systems = {s for study in config["studies"] for s in study["systems"]}
    assert systems == {
        "organisers/template",
        "organisers/rules",
        "organisers/weak",
        "human/ref",
    }
    assert all((SUBMISSIONS / s / "system.yaml").is_file() for s in systems)

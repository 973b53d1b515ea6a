"""Tests of the demo corpus generator, its pictures and the demo submissions."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import NamedTuple

import pytest
import yaml
from lxml import etree

from stecflow.baselines.systems import (
    LOCATION_ATTRIBUTES,
    full_brevity,
    is_distinguishing,
)
from stecflow.data.corpus import read_items, write_items
from stecflow.data.model import Item
from stecflow.demo import generate as demo
from stecflow.demo.generate import (
    DEADLINE,
    SPLIT_SIZES,
    DemoBuild,
    build_demo,
    generate_corpus,
    generate_domain,
    item_ids,
    minimal_distinguishing_size,
)

ROOT = Path(__file__).resolve().parents[2]
RESOURCES = ROOT / "resources" / "demo"
SUBMISSIONS = ROOT / "submissions"
DEMO_TEAMS = ("broken-team", "human", "late-team", "organisers")
_SPAN = re.compile(r'<ATTRIBUTE NAME="([^"]+)" VALUE="([^"]+)">([^<]*)</ATTRIBUTE>')


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, DemoBuild]:
    root = tmp_path_factory.mktemp("demo")
    return root, build_demo(root / "resources" / "demo", root / "submissions")


@pytest.fixture(scope="module")
def corpus() -> dict[str, list[Item]]:
    return generate_corpus()


def _files(directory: Path) -> dict[str, bytes]:
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


# --------------------------------------------------------------- committed data


def test_regeneration_matches_committed_resources(
    built: tuple[Path, DemoBuild],
) -> None:
    root, _ = built
    fresh, committed = _files(root / "resources" / "demo"), _files(RESOURCES)
    assert sorted(fresh) == sorted(committed)
    changed = [name for name in fresh if fresh[name] != committed[name]]
    assert not changed, (
        f"regenerate with python -m stecflow.demo.generate: {changed[:5]}"
    )


@pytest.mark.parametrize("team", DEMO_TEAMS)
def test_regeneration_matches_committed_submissions(
    built: tuple[Path, DemoBuild], team: str
) -> None:
    root, _ = built
    fresh = _files(root / "submissions" / team)
    committed = _files(SUBMISSIONS / team)
    assert sorted(fresh) == sorted(committed)
    assert all(fresh[name] == committed[name] for name in fresh)


def test_build_reports_every_file(built: tuple[Path, DemoBuild]) -> None:
    root, build = built
    on_disk = {p for p in root.rglob("*") if p.is_file()}
    assert set(build.files) == on_disk
    assert list(build.files) == sorted(build.files)


def test_same_seed_same_corpus_other_seed_other_corpus(
    corpus: dict[str, list[Item]],
) -> None:
    assert generate_corpus(demo.DEFAULT_SEED) == corpus
    other = generate_corpus(1)
    assert other["test"][0].domain != corpus["test"][0].domain


def test_committed_data_is_modest_in_size() -> None:
    total = sum(p.stat().st_size for p in RESOURCES.rglob("*") if p.is_file())
    total += sum(
        p.stat().st_size
        for team in DEMO_TEAMS
        for p in (SUBMISSIONS / team).rglob("*")
        if p.is_file()
    )
    assert total < 6_000_000


# ----------------------------------------------------------------------- corpus


def test_split_sizes_and_ids(corpus: dict[str, list[Item]]) -> None:
    assert {split: len(items) for split, items in corpus.items()} == {
        "train": 593,
        "dev": 148,
        "test": 112,
    }
    for split, items in corpus.items():
        assert [item.id for item in items] == item_ids(split)
        counts = Counter(item.subdomain for item in items)
        assert counts == SPLIT_SIZES[split]
    assert corpus["test"][0].id == "t001"
    assert corpus["train"][0].id == "tr-0001"
    assert corpus["dev"][-1].id == "dv-0148"
    all_ids = [item.id for items in corpus.values() for item in items]
    assert len(set(all_ids)) == len(all_ids)


def test_condition_balance(corpus: dict[str, list[Item]]) -> None:
    test = Counter((item.subdomain, item.condition) for item in corpus["test"])
    assert test == {
        ("furniture", "+LOC"): 28,
        ("furniture", "-LOC"): 28,
        ("people", "+LOC"): 28,
        ("people", "-LOC"): 28,
    }
    for split in ("train", "dev"):
        counts = Counter((i.subdomain, i.condition) for i in corpus[split])
        for subdomain in ("furniture", "people"):
            plus, minus = counts[(subdomain, "+LOC")], counts[(subdomain, "-LOC")]
            assert abs(plus - minus) <= 1


def test_domains(corpus: dict[str, list[Item]]) -> None:
    schema = {"furniture": demo.FURNITURE_SCHEMA, "people": demo.PEOPLE_SCHEMA}
    for item in (i for items in corpus.values() for i in items):
        entities = item.domain.entities
        assert len(entities) == 7
        assert sum(e.is_target for e in entities) == 1
        assert [e.id for e in entities] == [f"e{n}" for n in range(1, 8)]
        cells = {
            (e.value_of("x-dimension"), e.value_of("y-dimension")) for e in entities
        }
        assert len(cells) == 7
        for x, y in cells:
            assert 1 <= int(x or 0) <= 5 and 1 <= int(y or 0) <= 3
        vocabulary = {
            name: (values, kind) for name, values, kind in schema[item.subdomain]
        }
        for e in entities:
            names = [a.name for a in e.attributes]
            assert names == [*vocabulary, "x-dimension", "y-dimension"]
            for a in e.attributes:
                if a.name in LOCATION_ATTRIBUTES:
                    assert a.kind == "gradable"
                else:
                    assert a.value in vocabulary[a.name][0]
                    assert a.kind == vocabulary[a.name][1]
            if item.subdomain == "people" and e.value_of("hasShirt") == "0":
                assert e.value_of("hasSuit") == e.value_of("hasTie") == "0"
            assert e.image and e.image.endswith(".svg")


def test_every_target_distinguishable_without_location(
    corpus: dict[str, list[Item]],
) -> None:
    sizes: Counter[int] = Counter()
    for item in (i for items in corpus.values() for i in items):
        no_location = full_brevity(item.domain, exclude=LOCATION_ATTRIBUTES)
        assert is_distinguishing(no_location, item.domain), item.id
        assert 1 <= len(no_location) <= 4, item.id
        sizes[len(no_location)] += 1
    # TUNA-like: identifying descriptions need from one to four attributes.
    assert set(sizes) == {1, 2, 3, 4}


def test_generate_domain_is_deterministic() -> None:
    import random

    a = generate_domain("people", random.Random(5))
    b = generate_domain("people", random.Random(5))
    assert a == b


def test_minimal_distinguishing_size_none() -> None:
    assert minimal_distinguishing_size({"type": "fan"}, [{"type": "fan"}]) is None


class Described(NamedTuple):
    """A reference with its item; None fields replaced by empty values."""

    item: Item
    id: str | None
    attributes: frozenset[tuple[str, str]]
    words: str
    annotated: str


def _described(corpus: dict[str, list[Item]], **where: str) -> list[Described]:
    return [
        Described(
            item,
            r.id,
            r.attribute_set or frozenset(),
            r.word_string or "",
            r.annotated_word_string or "",
        )
        for items in corpus.values()
        for item in items
        if all(getattr(item, k) == v for k, v in where.items())
        for r in item.references
    ]


def test_references(corpus: dict[str, list[Item]]) -> None:
    for split, items in corpus.items():
        for item in items:
            ids = [r.id for r in item.references]
            assert ids == (["HUMAN-1", "HUMAN-2"] if split == "test" else [None])
    for ref in _described(corpus):
        assert ref.attributes
        assert ref.attributes <= ref.item.domain.target.attribute_set
        assert ref.words == " ".join(ref.words.split())
        spans = _SPAN.findall(ref.annotated)
        assert {(n, v) for n, v, _ in spans} == ref.attributes
        plain = _SPAN.sub(lambda m: m.group(3), ref.annotated)
        assert "<" not in plain
        assert plain == ref.words


def test_test_references_differ_between_authors(corpus: dict[str, list[Item]]) -> None:
    pairs = [item.references for item in corpus["test"]]
    same_words = sum(a.word_string == b.word_string for a, b in pairs)
    same_sets = sum(a.attribute_set == b.attribute_set for a, b in pairs)
    assert same_words < 20
    assert same_sets < 70


def _location_rate(refs: list[Described]) -> float:
    used = [any(n in LOCATION_ATTRIBUTES for n, _ in r.attributes) for r in refs]
    return sum(used) / len(used)


def test_location_used_much_more_under_plus_loc(corpus: dict[str, list[Item]]) -> None:
    for subdomain in ("furniture", "people"):
        plus = _location_rate(_described(corpus, subdomain=subdomain, condition="+LOC"))
        minus = _location_rate(
            _described(corpus, subdomain=subdomain, condition="-LOC")
        )
        assert plus > 0.45, (subdomain, plus)
        assert minus < 0.2, (subdomain, minus)
        assert plus > 3 * minus


def test_references_are_human_like(corpus: dict[str, list[Item]]) -> None:
    refs = _described(corpus)
    # Over-specification: longer than the shortest distinguishing set on average.
    mean_len = sum(len(r.attributes) for r in refs) / len(refs)
    mean_k = sum(len(full_brevity(r.item.domain)) for r in refs) / len(refs)
    assert mean_len > mean_k + 1
    redundant = [
        any(is_distinguishing(r.attributes - {a}, r.item.domain) for a in r.attributes)
        for r in refs
    ]
    assert sum(redundant) / len(refs) > 0.4
    # Mostly, not always, distinguishing.
    unique = [is_distinguishing(r.attributes, r.item.domain) for r in refs]
    assert 0.85 < sum(unique) / len(refs) < 1
    # Type nearly always; colour very often for furniture.
    furniture = _described(corpus, subdomain="furniture")
    has = Counter(n for r in furniture for n, _ in r.attributes)
    assert has["type"] / len(furniture) > 0.9
    assert has["colour"] > has["size"] and has["colour"] > has["orientation"]
    # Lexical variation and small imperfections.
    words = Counter(w for r in refs for w in r.words.lower().split())
    for a, b in [("sofa", "couch"), ("grey", "gray"), ("large", "big"), ("man", "guy")]:
        assert words[a] > 0 and words[b] > 0, (a, b)
    assert any(not r.words.lower().startswith(("the ", "a ", "an ")) for r in refs)


def test_round_trip(tmp_path: Path, corpus: dict[str, list[Item]]) -> None:
    for split in ("dev", "test"):
        path = tmp_path / f"{split}.xml"
        write_items(corpus[split], path)
        assert read_items(path) == corpus[split]


def test_committed_corpus_reads_back(corpus: dict[str, list[Item]]) -> None:
    assert read_items(RESOURCES / "test.xml") == corpus["test"]


# ---------------------------------------------------------------------- pictures


def test_pictures(built: tuple[Path, DemoBuild], corpus: dict[str, list[Item]]) -> None:
    root, _ = built
    images = root / "resources" / "demo" / "images"
    names = {p.name for p in images.glob("*.svg")}
    used = {e.image for items in corpus.values() for i in items for e in i.domain}
    assert names == used
    assert len(names) > 100
    for path in sorted(images.glob("*.svg")):
        data = path.read_bytes()
        assert len(data) < 4000
        svg = etree.fromstring(data)
        assert svg.tag == "{http://www.w3.org/2000/svg}svg"
        assert svg.get("viewBox") == "0 0 100 100"
        title = svg.find("{http://www.w3.org/2000/svg}title")
        assert title is not None and title.text


def test_stale_pictures_are_removed(
    tmp_path: Path, corpus: dict[str, list[Item]]
) -> None:
    (tmp_path / "old.svg").write_text("<svg/>")
    (tmp_path / "notes.txt").write_text("kept")
    demo.write_pictures(corpus["test"][:2], tmp_path)
    assert not (tmp_path / "old.svg").exists()
    assert (tmp_path / "notes.txt").exists()


# ------------------------------------------------------------------- submissions


def _metadata(root: Path, team: str, system: str) -> dict:
    return yaml.safe_load((root / team / system / "system.yaml").read_text())


def test_valid_submissions(corpus: dict[str, list[Item]]) -> None:
    test_ids = [item.id for item in corpus["test"]]
    domains = {item.id: item.domain for item in corpus["test"]}
    systems = {
        ("organisers", "full-brevity"),
        ("organisers", "greedy"),
        ("organisers", "incremental"),
        ("organisers", "incremental-loc"),
        ("human", "HUMAN-1"),
        ("human", "HUMAN-2"),
        ("late-team", "primary"),
    }
    for team, system in sorted(systems):
        meta = _metadata(SUBMISSIONS, team, system)
        assert meta["team"] == team and meta["system"] == system
        for key in ("description", "contact", "submitted", "tasks"):
            assert meta[key]
        assert meta["reference"] is (team == "human")
        if team == "human":
            assert meta["primary"] is False
        assert (meta["submitted"] > DEADLINE) is (team == "late-team")
        assert meta["submitted"].endswith("Z")
        root = etree.parse(str(SUBMISSIONS / team / system / "outputs.xml")).getroot()
        trials = root.findall("TRIAL")
        assert [t.get("ID") for t in trials] == test_ids
        for trial in trials:
            words = trial.findtext("WORD-STRING")
            assert words and words.strip()
            attrs = {(a.get("NAME"), a.get("VALUE")) for a in trial.iter("ATTRIBUTE")}
            assert attrs
            if team != "human":
                assert is_distinguishing(attrs, domains[trial.get("ID")])


def test_human_submissions_are_the_test_references(
    corpus: dict[str, list[Item]],
) -> None:
    for number in (1, 2):
        root = etree.parse(
            str(SUBMISSIONS / "human" / f"HUMAN-{number}" / "outputs.xml")
        )
        for trial, item in zip(root.getroot(), corpus["test"], strict=True):
            reference = item.references[number - 1]
            assert trial.findtext("WORD-STRING") == reference.word_string
            attrs = {(a.get("NAME"), a.get("VALUE")) for a in trial.iter("ATTRIBUTE")}
            assert attrs == reference.attribute_set


def test_broken_submission(built: tuple[Path, DemoBuild]) -> None:
    _, build = built
    directory = SUBMISSIONS / "broken-team" / "primary"
    meta = _metadata(SUBMISSIONS, "broken-team", "primary")
    assert "contact" not in meta
    data = (directory / "outputs.xml").read_bytes()
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    lines = data.split(b"\n")
    problems = {p.problem: p for p in build.broken_problems}
    assert set(problems) == {
        "bytes invalid in UTF-8",
        "missing item",
        "duplicated item",
        "unknown item ID",
        "attribute value not in domain",
        "attribute name not in domain",
        "empty word string",
    }

    def line(problem: str) -> bytes:
        return lines[problems[problem].line - 1]

    bad = line("bytes invalid in UTF-8")
    assert b"\xe9" in bad and b"<WORD-STRING>" in bad
    assert sum(b"\xe9" in x for x in lines) == 1
    assert line("unknown item ID").strip() == b'<TRIAL ID="t999">'
    assert b'NAME="colour" VALUE="purple"' in line("attribute value not in domain")
    assert b'NAME="material"' in line("attribute name not in domain")
    assert line("empty word string").strip() == b"<WORD-STRING>   </WORD-STRING>"
    duplicated = problems["duplicated item"]
    assert (
        lines[duplicated.line - 1].strip()
        == f'<TRIAL ID="{duplicated.item_id}">'.encode()
    )
    assert data.count(f'ID="{duplicated.item_id}"'.encode()) == 2
    missing = problems["missing item"]
    assert f'ID="{missing.item_id}"'.encode() not in data
    # Well-formed apart from the bad bytes.
    root = etree.fromstring(data.decode("latin-1").encode("utf-8"))
    assert len(root.findall("TRIAL")) == 112 - 1 + 1 + 1
    # The problem items: value and name errors are in furniture items.
    assert problems["attribute value not in domain"].item_id <= "t056"
    assert problems["attribute name not in domain"].item_id <= "t056"

"""The embedded data-to-text demo: triples about the demo's furniture and people.

Owns the generator of ``resources/text-demo/`` (``python -m stecflow.demo.text``), a
small WebNLG-shaped corpus for the ``text_generation`` task and its submissions.

Inputs
    1-5 RDF-style triples about one entity, e.g.
    ``[["chair_12", "colour", "red"], ["chair_12", "size", "large"]]``. The entity is
    drawn as the REG demo draws its targets (:func:`stecflow.demo.domains.
    generate_domain`, so people are dressed consistently); its predicates are the
    TUNA attributes of :data:`~stecflow.demo.domains.FURNITURE_SCHEMA` and
    :data:`~stecflow.demo.domains.PEOPLE_SCHEMA` (booleans as ``yes``/``no``, no
    ``hairColour`` for a bald person) plus ``row`` (``top``, ``middle``, ``bottom``)
    and ``column`` (``1``-``5``) from the 5 x 3 grid. The category is the entity's
    type (:data:`CATEGORIES`); :data:`UNSEEN_CATEGORIES` are held out of train and
    dev, as WebNLG holds out unseen categories (``meta``: ``category``, ``seen``).
Splits
    ``train.jsonl``, ``dev.jsonl`` (seen categories only) and ``test.jsonl`` (every
    category), :data:`SPLIT_SIZES` items per category, in the JSON Lines format of
    the text task (``id``, ``input``, ``references``, ``meta``).
References
    Written by a pool of simulated authors (:class:`TextAuthor`), each wrapping an
    author of the REG demo (:func:`stecflow.demo.authors.draw_authors`) and adding
    habits of its own: how often it describes the entity as one noun phrase worded by
    :func:`stecflow.demo.wording.realise_human` ("Chair 12 is a big red chair facing
    left"), how many facts it puts in a sentence, how it refers back ("It", "The
    chair", the name), its preferred order of the facts and its preferred words. A
    test input gets :data:`TEST_REFERENCES` + 1 references by distinct authors: one
    is held out as the human reference system ``human/ref``, the others stay in
    ``test.jsonl``; train and dev inputs get 1-3.
Submissions (``submissions/<team>/<system>/``)
    ``organisers/template`` (one fixed sentence per triple, in input order:
    ``outputs.jsonl``), ``organisers/rules`` (facts ordered, aggregated into a noun
    phrase and one more sentence with a pronoun: ``outputs.txt``, primary),
    ``organisers/weak`` (drops about half the triples and repeats a sentence:
    GEM-style ``outputs.json``), ``human/ref`` (``reference: true``),
    ``late-team/primary`` (attribute-value lists, submitted after
    :data:`~stecflow.demo.submissions.DEADLINE`) and ``broken-team/primary``
    (problems listed by :func:`write_broken_submission`).

Every random choice comes from :func:`stecflow.demo.seeding.rng_for` with a purpose
string, and every file is written in a fixed order, so the same seed gives the same
bytes.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.tasks`,
:mod:`stecflow.submissions`, :mod:`stecflow.baselines`, :mod:`stecflow.demo`.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from stecflow.core.text import in_words
from stecflow.demo.authors import Author, draw_authors
from stecflow.demo.domains import appearance_of, generate_domain
from stecflow.demo.seeding import DEFAULT_SEED, rng_for
from stecflow.demo.submissions import DEADLINE, BrokenProblem
from stecflow.demo.wording import realise_human
from stecflow.submissions.files import METADATA_FILE, write_metadata

__all__ = [
    "CATEGORIES",
    "DEADLINE",
    "N_AUTHORS",
    "SPLIT_SIZES",
    "TASK",
    "TEST_REFERENCES",
    "UNSEEN_CATEGORIES",
    "TextAuthor",
    "TextDemoBuild",
    "TextItem",
    "Triple",
    "draw_text_authors",
    "generate_corpus",
    "late_text",
    "main",
    "rules_text",
    "template_text",
    "weak_text",
    "write_broken_submission",
    "write_demo",
]

#: The task type of every demo submission.
TASK = "text_generation"
#: Categories: the four furniture types and people.
CATEGORIES = ("Chair", "Desk", "Fan", "Sofa", "Person")
#: Categories held out of train and dev (WebNLG's "unseen" categories): one that
#: shares its predicates with seen ones and one whose predicates are all new.
UNSEEN_CATEGORIES = ("Fan", "Person")
#: Items per category in each split (train and dev have seen categories only).
SPLIT_SIZES = {"train": 60, "dev": 12, "test": 24}
#: References per test item in ``test.jsonl`` (one more goes to ``human/ref``).
TEST_REFERENCES = 3
#: Size of the pool of simulated authors.
N_AUTHORS = 12
#: How many triples an input has, and how often.
_TRIPLE_COUNTS = ((1, 2, 3, 4, 5), (0.12, 0.22, 0.26, 0.22, 0.18))

Triple = tuple[str, str, str]

_FURNITURE_PREDICATES = ("colour", "size", "orientation", "row", "column")
_PEOPLE_PREDICATES = (
    "age",
    "hairColour",
    "hasHair",
    "hasBeard",
    "hasGlasses",
    "hasShirt",
    "hasSuit",
    "hasTie",
    "orientation",
    "row",
    "column",
)
_ROWS = {"1": "top", "2": "middle", "3": "bottom"}
_ROW_NUMBERS = {name: number for number, name in _ROWS.items()}
_ORDINALS = {"1": "first", "2": "second", "3": "third", "4": "fourth", "5": "fifth"}
_ID_PREFIX = {"train": "tr", "dev": "dv", "test": "t"}


@dataclass(frozen=True)
class TextItem:
    """One input of the text demo: its triples, references and metadata."""

    id: str
    triples: tuple[Triple, ...]
    references: tuple[str, ...]
    category: str
    seen: str

    def record(self) -> dict[str, object]:
        """The item as one line of the text task's JSON Lines format."""
        return {
            "id": self.id,
            "input": [list(t) for t in self.triples],
            "references": list(self.references),
            "meta": {"category": self.category, "seen": self.seen},
        }


@dataclass(frozen=True)
class TextAuthor:
    """A simulated writer of references: a REG demo author and habits for text.

    Attributes
    ----------
    base
        The REG demo author (preferred words, noun-phrase habits).
    np_rate
        Chance of writing the whole input as one noun phrase ("X is a big red chair").
    per_sentence
        Most facts put into one sentence of the clause style.
    back_reference
        How later sentences name the entity: ``pronoun``, ``noun`` or ``name``.
    order
        Predicates in the order the author mentions them.
    """

    base: Author
    np_rate: float
    per_sentence: int
    back_reference: str
    order: tuple[str, ...]

    @property
    def number(self) -> int:
        """The REG demo author's number."""
        return self.base.number


def draw_text_authors(
    seed: int = DEFAULT_SEED, count: int = N_AUTHORS
) -> list[TextAuthor]:
    """The pool of *count* reference writers of the text demo."""
    rng = rng_for(seed, "text-demo", "authors")
    canonical = list(_PEOPLE_PREDICATES[:1]) + ["size", "colour"]
    canonical += [p for p in _PEOPLE_PREDICATES[1:] if p not in canonical]
    authors = []
    for base in draw_authors(seed, count):
        order = list(canonical)
        for _ in range(rng.choice((0, 1, 2, 3))):
            i = rng.randrange(len(order) - 1)
            order[i], order[i + 1] = order[i + 1], order[i]
        authors.append(
            TextAuthor(
                base=base,
                np_rate=round(rng.uniform(0.1, 0.6), 3),
                per_sentence=rng.choice((2, 3, 3, 5)),
                back_reference=rng.choices(
                    ("pronoun", "noun", "name"), weights=(0.6, 0.3, 0.1)
                )[0],
                order=tuple(order),
            )
        )
    return authors


# --- the inputs --------------------------------------------------------------------


def _entity(category: str, rng: random.Random) -> dict[str, str]:
    """An entity of *category* (its attributes and grid position) as TUNA draws one."""
    subdomain = "people" if category == "Person" else "furniture"
    domain = generate_domain(subdomain, rng)
    target = domain.target
    values = appearance_of(target)
    if subdomain == "furniture":
        values["type"] = category.lower()
    position = {a.name: a.value for a in target.attributes}
    values["row"] = _ROWS[position["y-dimension"]]
    values["column"] = position["x-dimension"]
    return values


def _triples(subject: str, category: str, rng: random.Random) -> tuple[Triple, ...]:
    values = _entity(category, rng)
    if category == "Person":
        candidates = [
            p
            for p in _PEOPLE_PREDICATES
            if not (p == "hairColour" and values["hasHair"] == "0")
        ]
    else:
        candidates = list(_FURNITURE_PREDICATES)
    count = rng.choices(*_TRIPLE_COUNTS)[0]
    chosen = rng.sample(candidates, min(count, len(candidates)))
    triples = []
    for predicate in chosen:
        value = values[predicate]
        if predicate.startswith("has"):
            value = {"1": "yes", "0": "no"}[value]
        triples.append((subject, predicate, value))
    return tuple(triples)


# --- human-like references ---------------------------------------------------------


def _name(subject: str) -> str:
    """``chair_12`` -> ``Chair 12``."""
    kind, number = subject.rsplit("_", 1)
    return f"{kind.capitalize()} {int(number)}"


def _pick(
    author: TextAuthor, rng: random.Random, key: str, variants: Sequence[str]
) -> str:
    """The author's habitual variant for *key* (85 % of the time), else any."""
    if len(variants) == 1:
        return variants[0]
    weighted = [(v, 1.0) for v in variants]
    if rng.random() < 0.85:
        return author.base.prefers(f"text-{key}", weighted)
    return rng.choice(list(variants))


_ADJECTIVES = {
    ("colour", "grey"): ("grey", "gray"),
    ("size", "large"): ("large", "big"),
    ("size", "small"): ("small", "little"),
    ("age", "old"): ("old", "elderly", "older"),
    ("age", "young"): ("young", "younger"),
}
_FACING = {
    "front": ("faces forward", "faces the front", "faces the viewer", "is facing us"),
    "back": ("faces away", "faces backwards", "is turned away"),
    "left": ("faces left", "faces to the left", "is turned to the left", "points left"),
    "right": (
        "faces right",
        "faces to the right",
        "is turned to the right",
        "points right",
    ),
}
_LOOKING = {
    "front": ("looks straight ahead", "faces forward", "looks at the camera"),
    "left": ("looks left", "faces left", "is looking to the left"),
    "right": ("looks right", "faces right", "is looking to the right"),
}
_PERSON_VERBS = {
    ("hairColour", "dark"): ("has dark hair", "is dark-haired"),
    ("hairColour", "light"): ("has light hair", "has fair hair", "is blond"),
    ("hasHair", "yes"): ("has hair", "is not bald"),
    ("hasHair", "no"): ("is bald", "has no hair"),
    ("hasBeard", "yes"): ("has a beard", "is bearded", "wears a beard"),
    ("hasBeard", "no"): ("has no beard", "is clean-shaven", "does not have a beard"),
    ("hasGlasses", "yes"): ("wears glasses", "has glasses on", "wears spectacles"),
    ("hasGlasses", "no"): ("does not wear glasses", "wears no glasses"),
    ("hasShirt", "yes"): ("wears a shirt", "is wearing a shirt"),
    ("hasShirt", "no"): ("wears no shirt", "is not wearing a shirt"),
    ("hasSuit", "yes"): ("wears a suit", "is in a suit", "wears a jacket"),
    ("hasSuit", "no"): ("does not wear a suit", "wears no jacket"),
    ("hasTie", "yes"): ("wears a tie", "has a tie on", "is wearing a tie"),
    ("hasTie", "no"): ("does not wear a tie", "wears no tie"),
}
_ROW_VERBS = {
    "top": ("is in the top row", "is at the top", "sits in the top row"),
    "middle": ("is in the middle row", "is in the second row"),
    "bottom": ("is in the bottom row", "is at the bottom", "sits in the bottom row"),
}
_EDGE_COLUMNS = {
    "1": "is in the leftmost column",
    "3": "is in the middle column",
    "5": "is in the rightmost column",
}


def _is_adjective(predicate: str) -> bool:
    return predicate in ("colour", "size", "age")


def _adjective(triple: Triple, author: TextAuthor, rng: random.Random) -> str:
    _, predicate, value = triple
    variants = _ADJECTIVES.get((predicate, value), (value,))
    return _pick(author, rng, f"{predicate}-{value}", variants)


def _verb_phrase(
    triple: Triple, category: str, author: TextAuthor, rng: random.Random
) -> str:
    _, predicate, value = triple
    if predicate == "orientation":
        table = _LOOKING if category == "Person" else _FACING
        return _pick(author, rng, f"{category == 'Person'}-{value}", table[value])
    if predicate == "row":
        return _pick(author, rng, f"row-{value}", _ROW_VERBS[value])
    if predicate == "column":
        variants = [f"is in column {value}", f"is in the {_ORDINALS[value]} column"]
        if value in _EDGE_COLUMNS:
            variants.append(_EDGE_COLUMNS[value])
        return _pick(author, rng, f"column-{value}", variants)
    return _pick(author, rng, f"{predicate}-{value}", _PERSON_VERBS[predicate, value])


def _np_reference(
    item_triples: Sequence[Triple],
    category: str,
    author: TextAuthor,
    rng: random.Random,
) -> str:
    """The entity as one noun phrase, worded as the REG demo's authors word it."""
    selected = {"type": "person" if category == "Person" else category.lower()}
    for _, predicate, value in item_triples:
        if predicate == "row":
            selected["y-dimension"] = _ROW_NUMBERS[value]
        elif predicate == "column":
            selected["x-dimension"] = value
        elif predicate.startswith("has"):
            selected[predicate] = {"yes": "1", "no": "0"}[value]
        else:
            selected[predicate] = value
    subdomain = "people" if category == "Person" else "furniture"
    name = _name(item_triples[0][0])
    shape = rng.choice(("is", "is", "this", "the"))
    determiner = "the" if shape == "the" else "a"
    writer = replace(author.base, determiner=determiner, capital=0.0)
    phrase, _ = realise_human(selected, subdomain, writer, rng)
    if shape == "the":
        return f"{phrase[:1].upper()}{phrase[1:]} is {name}."
    if shape == "this":
        return f"This is {name}, {phrase}."
    return f"{name} is {phrase}."


def _clause_reference(
    item_triples: Sequence[Triple],
    category: str,
    author: TextAuthor,
    rng: random.Random,
) -> str:
    """Sentences of coordinated verb phrases, in the author's order of facts."""
    rank = {p: n for n, p in enumerate(author.order)}
    ordered = list(item_triples)
    if rng.random() < 0.8:
        ordered.sort(key=lambda t: rank[t[1]])
    name = _name(item_triples[0][0])
    chunks = [
        ordered[i : i + author.per_sentence]
        for i in range(0, len(ordered), author.per_sentence)
    ]
    sentences = []
    for index, chunk in enumerate(chunks):
        adjectives = [_adjective(t, author, rng) for t in chunk if _is_adjective(t[1])]
        parts = [f"is {in_words(adjectives)}"] if adjectives else []
        parts += [
            _verb_phrase(t, category, author, rng)
            for t in chunk
            if not _is_adjective(t[1])
        ]
        if index == 0 or author.back_reference == "name":
            subject = name
        elif author.back_reference == "pronoun":
            subject = "He" if category == "Person" else "It"
        else:
            noun = "man" if category == "Person" else category.lower()
            subject = f"The {noun}"
        sentences.append(f"{subject} {in_words(parts)}.")
    return " ".join(sentences)


def _reference(
    item_triples: Sequence[Triple],
    category: str,
    author: TextAuthor,
    rng: random.Random,
) -> str:
    if rng.random() < author.np_rate:
        return _np_reference(item_triples, category, author, rng)
    return _clause_reference(item_triples, category, author, rng)


def generate_corpus(seed: int = DEFAULT_SEED) -> dict[str, list[TextItem]]:
    """The text demo's splits: ``train``, ``dev`` and ``test``.

    Test items carry :data:`TEST_REFERENCES` + 1 references; the first is the one
    :func:`write_demo` holds out as ``human/ref``. Items are in category order
    (:data:`CATEGORIES`), IDs ``tr001``..., ``dv001``..., ``t001``....

    Parameters
    ----------
    seed
        The campaign seed; the same seed gives the same corpus.

    Returns
    -------
    dict of str to list of TextItem
    """
    authors = draw_text_authors(seed)
    corpus: dict[str, list[TextItem]] = {}
    for split, size in SPLIT_SIZES.items():
        items: list[TextItem] = []
        categories = [
            c for c in CATEGORIES if split == "test" or c not in UNSEEN_CATEGORIES
        ]
        for category in categories:
            rng = rng_for(seed, "text-demo", split, category)
            for number in rng.sample(range(1, 100), size):
                item_id = f"{_ID_PREFIX[split]}{len(items) + 1:03d}"
                subject = f"{category.lower()}_{number:02d}"
                triples = _triples(subject, category, rng)
                n_refs = TEST_REFERENCES + 1 if split == "test" else rng.randint(1, 3)
                writers = rng.sample(authors, n_refs)
                ref_rng = rng_for(seed, "text-demo", "references", item_id)
                references = tuple(
                    _reference(triples, category, writer, ref_rng) for writer in writers
                )
                seen = "unseen" if category in UNSEEN_CATEGORIES else "seen"
                items.append(TextItem(item_id, triples, references, category, seen))
        corpus[split] = items
    return corpus


# --- the systems -------------------------------------------------------------------

_TEMPLATE_FACING = {
    "front": "forward",
    "back": "away",
    "left": "left",
    "right": "right",
}
_TEMPLATE_HAS = {
    "hasHair": ("has hair", "has no hair"),
    "hasBeard": ("has a beard", "has no beard"),
    "hasGlasses": ("wears glasses", "does not wear glasses"),
    "hasShirt": ("wears a shirt", "does not wear a shirt"),
    "hasSuit": ("wears a suit", "does not wear a suit"),
    "hasTie": ("wears a tie", "does not wear a tie"),
}


def _template_phrase(triple: Triple) -> str:
    """The fixed verb phrase of one triple (one template per predicate)."""
    _, predicate, value = triple
    if predicate in ("colour", "size", "age"):
        return f"is {value}"
    if predicate == "orientation":
        return f"faces {_TEMPLATE_FACING[value]}"
    if predicate == "row":
        return f"is in the {value} row"
    if predicate == "column":
        return f"is in column {value}"
    if predicate == "hairColour":
        return f"has {value} hair"
    yes, no = _TEMPLATE_HAS[predicate]
    return yes if value == "yes" else no


def template_text(triples: Sequence[Triple]) -> str:
    """One fixed sentence per triple, in input order, the subject named each time.

    >>> template_text([("chair_12", "colour", "red"), ("chair_12", "size", "large")])
    'Chair 12 is red. Chair 12 is large.'
    """
    return " ".join(f"{_name(t[0])} {_template_phrase(t)}." for t in triples)


def rules_text(triples: Sequence[Triple]) -> str:
    """Facts aggregated: a noun phrase for what the entity is, a pronoun for the rest.

    Size, colour and age become pre-modifiers, hair, beard and glasses a ``with``
    phrase, clothes a ``wearing`` phrase; orientation and position follow in a second
    sentence with "It" (furniture) or "He" (people).

    >>> rules_text([("chair_12", "colour", "red"), ("chair_12", "size", "large"),
    ...             ("chair_12", "orientation", "left")])
    'Chair 12 is a large red chair. It faces left.'
    >>> rules_text([("person_3", "hasBeard", "yes"), ("person_3", "row", "top"),
    ...             ("person_3", "column", "2")])
    'Person 3 is a man with a beard. He is in the top row, column 2.'
    """
    facts = {predicate: value for _, predicate, value in triples}
    name = _name(triples[0][0])
    person = name.startswith("Person")
    noun = "man" if person else name.split()[0].lower()
    premodifiers = [facts[p] for p in ("age", "size", "colour") if p in facts]
    with_items, wearing, without = [], [], []
    if "hairColour" in facts:
        with_items.append(f"{facts['hairColour']} hair")
    if facts.get("hasHair") == "no":
        premodifiers.insert(0, "bald")
    elif facts.get("hasHair") == "yes" and "hairColour" not in facts:
        with_items.append("hair")
    things = {"hasBeard": "a beard", "hasGlasses": "glasses"}
    things.update({"hasShirt": "a shirt", "hasSuit": "a suit", "hasTie": "a tie"})
    for predicate, thing in things.items():
        if predicate not in facts:
            continue
        if facts[predicate] == "no":
            without.append(thing)
        elif predicate in ("hasBeard", "hasGlasses"):
            with_items.append(thing)
        else:
            wearing.append(thing)
    phrase = " ".join([*premodifiers, noun])
    article = "an" if phrase[0] in "aeiou" else "a"
    described = f"{article} {phrase}"
    if with_items:
        described += f" with {in_words(with_items)}"
    if wearing:
        described += f" wearing {in_words(wearing)}"
    if without:
        described += f" without {in_words(without).replace(' and ', ' or ')}"
    second = []
    if "orientation" in facts:
        second.append(f"faces {_TEMPLATE_FACING[facts['orientation']]}")
    row, column = facts.get("row"), facts.get("column")
    if row and column:
        second.append(f"is in the {row} row, column {column}")
    elif row:
        second.append(f"is in the {row} row")
    elif column:
        second.append(f"is in column {column}")
    first_sentence_has_content = described != f"a {noun}"
    if second and not first_sentence_has_content:
        return f"{name} {in_words(second)}."
    sentences = [f"{name} is {described}."]
    if second:
        sentences.append(f"{'He' if person else 'It'} {in_words(second)}.")
    return " ".join(sentences)


def weak_text(item_id: str, triples: Sequence[Triple], seed: int = DEFAULT_SEED) -> str:
    """A weak system: keeps about half the triples (at least one) and repeats one.

    The kept triples (``ceil(n / 2)`` of *n*, chosen at random per item, in input
    order) are worded as :func:`template_text` words them; one of the sentences is
    then said twice.
    """
    rng = rng_for(seed, "text-demo", "weak", item_id)
    keep = sorted(rng.sample(range(len(triples)), (len(triples) + 1) // 2))
    sentences = [
        f"{_name(triples[i][0])} {_template_phrase(triples[i])}." for i in keep
    ]
    repeated = rng.randrange(len(sentences))
    sentences.insert(repeated + 1, sentences[repeated])
    return " ".join(sentences)


def late_text(triples: Sequence[Triple]) -> str:
    """The late team's system: the predicates and objects listed after the name.

    >>> late_text([("fan_07", "colour", "blue"), ("fan_07", "row", "top")])
    'Fan 7: colour blue, row top.'
    """
    pairs = ", ".join(f"{predicate} {value}" for _, predicate, value in triples)
    return f"{_name(triples[0][0])}: {pairs}."


# --- the files ---------------------------------------------------------------------


@dataclass(frozen=True)
class TextDemoBuild:
    """What :func:`write_demo` wrote."""

    files: tuple[Path, ...]
    broken_problems: tuple[BrokenProblem, ...]


def _json_line(record: object) -> str:
    return json.dumps(record, ensure_ascii=False) + "\n"


def _write_jsonl(path: Path, records: Sequence[object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(_json_line(r) for r in records), encoding="utf-8")
    return path


def _metadata(team: str, system: str, description: str, **extra: object) -> dict:
    return {
        "team": team,
        "system": system,
        "description": description,
        "contact": f"{team}@example.org",
        "primary": False,
        "submitted": "2026-05-20T14:03:00Z",
        "tasks": [TASK],
        "reference": False,
        "release_consent": True,
        **extra,
    }


def _submission_folder(root: Path, team: str, system: str, outputs: str) -> Path:
    """The folder of one submission, cleared of other ``outputs.*`` files."""
    folder = root / team / system
    folder.mkdir(parents=True, exist_ok=True)
    for stale in sorted(folder.glob("outputs.*")):
        if stale.name != outputs:
            stale.unlink()
    return folder


def write_broken_submission(
    test: Sequence[TextItem], directory: str | Path
) -> list[BrokenProblem]:
    """Write the deliberately broken submission (``outputs.jsonl``, ``system.yaml``).

    Its lines are :func:`template_text`'s outputs, written byte by byte, with these
    problems (in line order):

    * the 3rd item's output holds bytes invalid in UTF-8 (a Latin-1 ``é``);
    * the 5th item is missing;
    * the 10th item occurs twice (a duplicate ID);
    * an unknown ID, ``t999``, follows the 20th item;
    * the 30th item's output is whitespace only (a warning: an empty output).

    The metadata is valid.

    Parameters
    ----------
    test
        The test items, at least 30.
    directory
        ``submissions/broken-team/primary``.

    Returns
    -------
    list of BrokenProblem
        Each problem with its 1-based line in ``outputs.jsonl`` (for the missing item:
        the line where it would have been).
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    lines: list[bytes] = []
    problems: list[BrokenProblem] = []

    def line(item_id: str, text: str, tail: bytes = b"") -> None:
        encoded = _json_line({"id": item_id, "output": text}).encode("utf-8")
        if tail:  # before the closing quote of the output
            encoded = encoded[: -len(b'"}\n')] + tail + b'"}\n'
        lines.append(encoded)

    for index, item in enumerate(test, start=1):
        text = template_text(item.triples)
        if index == 3:
            line(item.id, text, tail=b" (caf\xe9 corner)")
            problems.append(
                BrokenProblem(len(lines), item.id, "bytes invalid in UTF-8")
            )
        elif index == 5:
            problems.append(BrokenProblem(len(lines) + 1, item.id, "missing item"))
        elif index == 10:
            line(item.id, text)
            line(item.id, text)
            problems.append(BrokenProblem(len(lines), item.id, "duplicated item"))
        elif index == 20:
            line(item.id, text)
            line("t999", text)
            problems.append(BrokenProblem(len(lines), "t999", "unknown item ID"))
        elif index == 30:
            line(item.id, "   ")
            problems.append(BrokenProblem(len(lines), item.id, "empty output"))
        else:
            line(item.id, text)
    (directory / "outputs.jsonl").write_bytes(b"".join(lines))
    write_metadata(
        _metadata(
            "broken-team",
            "primary",
            "A deliberately broken submission to exercise validation: an undecodable"
            " line, a missing, a duplicated and an unknown item ID, an empty output.",
            primary=True,
            submitted="2026-05-28T17:45:00Z",
            release_consent=False,
        ),
        directory / METADATA_FILE,
    )
    return problems


def write_demo(directory: str | Path, seed: int = DEFAULT_SEED) -> TextDemoBuild:
    """Write the text demo to *directory* (usually ``resources/text-demo``).

    Writes ``train.jsonl``, ``dev.jsonl`` and ``test.jsonl`` (each test item with
    :data:`TEST_REFERENCES` references) and ``submissions/<team>/<system>/`` with
    ``system.yaml`` and one outputs file each (see the module docstring); any other
    ``outputs.*`` file in those folders is removed.

    Parameters
    ----------
    directory
        Where to write.
    seed
        The campaign seed; the same seed gives byte-identical files.

    Returns
    -------
    TextDemoBuild
        The files written (sorted) and the broken submission's problems.
    """
    directory = Path(directory)
    corpus = generate_corpus(seed)
    test = corpus["test"]
    files = []
    for split, items in corpus.items():
        if split == "test":
            items = [replace(i, references=i.references[1:]) for i in items]
        files.append(
            _write_jsonl(directory / f"{split}.jsonl", [i.record() for i in items])
        )
    root = directory / "submissions"

    def jsonl(team: str, system: str, texts: Sequence[str], meta: dict) -> None:
        folder = _submission_folder(root, team, system, "outputs.jsonl")
        records = [{"id": i.id, "output": t} for i, t in zip(test, texts, strict=True)]
        files.append(_write_jsonl(folder / "outputs.jsonl", records))
        write_metadata(meta, folder / METADATA_FILE)
        files.append(folder / METADATA_FILE)

    jsonl(
        "organisers",
        "template",
        [template_text(i.triples) for i in test],
        _metadata(
            "organisers",
            "template",
            "One fixed sentence template per predicate, triples in input order, the"
            " entity named in every sentence.",
        ),
    )
    folder = _submission_folder(root, "organisers", "rules", "outputs.txt")
    text = "".join(rules_text(i.triples) + "\n" for i in test)
    (folder / "outputs.txt").write_text(text, encoding="utf-8")
    write_metadata(
        _metadata(
            "organisers",
            "rules",
            "Rule-based: facts ordered and aggregated into one noun phrase (size,"
            " colour, age; with, wearing and without phrases), orientation and position"
            " in a second sentence with a pronoun. One output per line, in test-set"
            " order.",
            primary=True,
            submitted="2026-05-20T14:05:00Z",
        ),
        folder / METADATA_FILE,
    )
    files += [folder / "outputs.txt", folder / METADATA_FILE]
    folder = _submission_folder(root, "organisers", "weak", "outputs.json")
    gem = {
        "language": "en",
        "values": [
            {"gem_id": i.id, "generated": weak_text(i.id, i.triples, seed)}
            for i in test
        ],
    }
    (folder / "outputs.json").write_text(
        json.dumps(gem, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    write_metadata(
        _metadata(
            "organisers",
            "weak",
            "A weak baseline: keeps about half of the triples, words them with the"
            " template system and repeats one sentence. GEM-style outputs.json.",
            submitted="2026-05-20T14:07:00Z",
        ),
        folder / METADATA_FILE,
    )
    files += [folder / "outputs.json", folder / METADATA_FILE]
    jsonl(
        "human",
        "ref",
        [i.references[0] for i in test],
        _metadata(
            "human",
            "ref",
            "Human reference set: one reference per test input, held out of the test"
            " set, written by several simulated authors.",
            reference=True,
            submitted="2026-05-15T09:00:00Z",
        ),
    )
    jsonl(
        "late-team",
        "primary",
        [late_text(i.triples) for i in test],
        _metadata(
            "late-team",
            "primary",
            "Lists each predicate and object after the entity's name. Submitted after"
            " the deadline.",
            primary=True,
            submitted="2026-06-03T09:30:00Z",
        ),
    )
    broken = root / "broken-team" / "primary"
    _submission_folder(root, "broken-team", "primary", "outputs.jsonl")
    problems = write_broken_submission(test, broken)
    files += [broken / "outputs.jsonl", broken / METADATA_FILE]
    return TextDemoBuild(files=tuple(sorted(files)), broken_problems=tuple(problems))


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m stecflow.demo.text [--out DIR] [--seed N]``."""
    parser = argparse.ArgumentParser(
        prog="python -m stecflow.demo.text",
        description="Write the data-to-text demo corpus and its submissions.",
    )
    parser.add_argument("--out", default="resources/text-demo", type=Path)
    parser.add_argument("--seed", default=DEFAULT_SEED, type=int)
    args = parser.parse_args(argv)
    build = write_demo(args.out, args.seed)
    for path in build.files:
        print(path)
    for problem in build.broken_problems:
        print(
            f"broken-team/primary/outputs.jsonl line {problem.line}"
            f" ({problem.item_id}): {problem.problem}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

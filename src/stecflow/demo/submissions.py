"""The demo submissions: baselines, human references, a late team and a broken one.

``organisers`` (Full Brevity, Greedy, the Incremental Algorithm with a preference
order learnt from train, and IA with orders learnt per subdomain and condition that
uses location only under +LOC; all realised by
:func:`stecflow.tasks.reg.realiser.realise`),
``human`` (HUMAN-1, HUMAN-2: the test references, flagged ``reference: true``),
``late-team`` (IA with a random preference order per item, submitted after the
:data:`DEADLINE`) and ``broken-team`` (missing ``contact``; an outputs file with the
problems listed by :func:`write_broken_submission`). Greedy, both Incremental
Algorithms and the late team report their own scores on the development data
(``self_reported``, :mod:`stecflow.demo.self_reported`), as seed 001 Table 4's
teams did.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from stecflow.baselines import systems as baselines
from stecflow.data.model import Item, Output
from stecflow.demo.seeding import DEFAULT_SEED, rng_for
from stecflow.demo.self_reported import development_scores
from stecflow.submissions.files import METADATA_FILE, write_metadata
from stecflow.tasks.reg.realiser import realise
from stecflow.tasks.reg.task import OUTPUTS_FILE

__all__ = [
    "DEADLINE",
    "BrokenProblem",
    "demo_submissions",
    "system_outputs",
    "write_broken_submission",
]

#: Submission deadline of the demo campaign (ISO 8601, UTC).
DEADLINE = "2026-06-01T23:59:59Z"
_LOCATION = baselines.LOCATION_ATTRIBUTES


@dataclass(frozen=True)
class BrokenProblem:
    """One deliberate problem of the broken demo submission's outputs file."""

    line: int
    item_id: str
    problem: str


def system_outputs(
    items: Sequence[Item], select: Callable[[Item], frozenset[tuple[str, str]]]
) -> list[Output]:
    """Outputs for *items*: *select*'s attribute sets, worded by the realiser."""
    outputs = []
    for item in items:
        attributes = select(item)
        outputs.append(
            Output(item.id, word_string=realise(attributes), attribute_set=attributes)
        )
    return outputs


def demo_submissions(
    corpus: dict[str, list[Item]], seed: int = DEFAULT_SEED
) -> dict[tuple[str, str], tuple[dict[str, object], list[Output]]]:
    """The valid demo submissions: (team, system) -> (metadata, outputs).

    Parameters
    ----------
    corpus
        As returned by :func:`generate_corpus` (train gives the IA orders).
    seed
        Seeds the late team's random preference orders.
    """
    test = corpus["test"]
    by_subdomain = baselines.learn_preference_order(corpus["train"])
    by_condition = baselines.learn_preference_order(
        corpus["train"], key=lambda item: (item.subdomain, item.condition)
    )

    def ia(item: Item) -> frozenset[tuple[str, str]]:
        return baselines.incremental(item.domain, by_subdomain[item.subdomain])

    def ia_loc(item: Item) -> frozenset[tuple[str, str]]:
        order = by_condition[(item.subdomain, item.condition)]
        if item.condition != "+LOC":
            order = tuple(n for n in order if n not in _LOCATION)
        return baselines.incremental(item.domain, order)

    def random_ia(item: Item) -> frozenset[tuple[str, str]]:
        names = sorted({a.name for a in item.domain.target.attributes})
        rng_for(seed, item.id, "late-team").shuffle(names)
        return baselines.incremental(item.domain, names)

    def meta(
        team: str, system: str, description: str, **extra: object
    ) -> dict[str, object]:
        return {
            "team": team,
            "system": system,
            "description": description,
            "contact": f"{team}@example.org",
            "primary": False,
            "submitted": "2026-05-20T14:03:00Z",
            "tasks": ["end_to_end", "attribute_selection"],
            "reference": False,
            "release_consent": True,
            **extra,
        }

    template = " Realised by the deterministic template realiser."
    dev = corpus["dev"]

    def reported(
        select: Callable[[Item], frozenset[tuple[str, str]]],
        metrics: Sequence[str] = ("string_accuracy", "se", "bleu3"),
        note: str = "",
    ) -> list[dict[str, object]]:
        """The team's own scores on the development data (seed 001 Table 4)."""
        return development_scores(dev, system_outputs(dev, select), metrics, note)

    def properties(
        incremental: bool = False,
        discriminatory_power: bool = False,
        trainable: bool = False,
        full_brevity: bool = False,
    ) -> dict[str, bool]:
        """The algorithm's properties, as config.yaml declares them (seed 003
        Table 1's Incr, DP, Train and FB)."""
        return {
            "incremental": incremental,
            "discriminatory_power": discriminatory_power,
            "trainable": trainable,
            "full_brevity": full_brevity,
        }

    systems: dict[tuple[str, str], tuple[dict[str, object], list[Output]]] = {
        ("organisers", "full-brevity"): (
            meta(
                "organisers",
                "full-brevity",
                "Full Brevity (Dale 1989): a smallest distinguishing attribute set,"
                " ties broken by a fixed attribute order." + template,
                properties=properties(full_brevity=True),
            ),
            system_outputs(test, lambda item: baselines.full_brevity(item.domain)),
        ),
        ("organisers", "greedy"): (
            meta(
                "organisers",
                "greedy",
                "Greedy (Dale 1989): repeatedly adds the attribute that rules out most"
                " remaining distractors." + template,
                submitted="2026-05-20T14:05:00Z",
                properties=properties(discriminatory_power=True),
                # no Accuracy, as GRAPH and USP-EACH in seed 001 Table 4
                self_reported=reported(
                    lambda item: baselines.greedy(item.domain), ("se", "bleu3")
                ),
            ),
            system_outputs(test, lambda item: baselines.greedy(item.domain)),
        ),
        ("organisers", "incremental"): (
            meta(
                "organisers",
                "incremental",
                "Incremental Algorithm (Dale & Reiter 1995), preference order learnt"
                " per subdomain from attribute frequencies in train, type always"
                " included." + template,
                primary=True,
                submitted="2026-05-20T14:07:00Z",
                properties=properties(incremental=True, trainable=True),
                self_reported=reported(
                    ia,
                    note="exact match after lower-casing and removing punctuation",
                ),
            ),
            system_outputs(test, ia),
        ),
        ("organisers", "incremental-loc"): (
            meta(
                "organisers",
                "incremental-loc",
                "Incremental Algorithm with preference orders learnt per subdomain and"
                " condition; location used only under +LOC." + template,
                submitted="2026-05-20T14:09:00Z",
                properties=properties(incremental=True, trainable=True),
                self_reported=reported(ia_loc),
            ),
            system_outputs(test, ia_loc),
        ),
        ("late-team", "primary"): (
            meta(
                "late-team",
                "primary",
                "Incremental Algorithm with a random preference order per item"
                " (seeded), template realiser. Submitted after the deadline.",
                primary=True,
                submitted="2026-06-03T09:30:00Z",
                properties=properties(incremental=True),
                self_reported=reported(random_ia),
            ),
            system_outputs(test, random_ia),
        ),
    }
    for number in (1, 2):
        system = f"HUMAN-{number}"
        outputs = []
        for item in test:
            reference = next(r for r in item.references if r.id == system)
            outputs.append(
                Output(
                    item.id,
                    word_string=reference.word_string,
                    attribute_set=reference.attribute_set,
                )
            )
        systems[("human", system)] = (
            meta(
                "human",
                system,
                f"Human reference set {number}: the test set's {system} descriptions,"
                " written by several authors.",
                reference=True,
                submitted="2026-05-15T09:00:00Z",
            ),
            outputs,
        )
    return systems


def _xml_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def write_broken_submission(
    test: Sequence[Item], outputs: Sequence[Output], directory: str | Path
) -> list[BrokenProblem]:
    """Write the deliberately broken submission (outputs.xml and system.yaml).

    The outputs file is written byte by byte, not with the writer, and is
    well-formed XML apart from the bad bytes. Its problems (in line order):

    * bytes invalid in UTF-8 (a Latin-1 ``é``) in the 3rd item's word string;
    * the 5th item is missing;
    * the 10th item occurs twice;
    * an attribute value not in the domain (``colour:purple``) in the 20th item;
    * an unknown item ID, ``t999``, after the 20th item;
    * an attribute name not in the domain (``material:wood``) in the 30th item;
    * a whitespace-only WORD-STRING in the 40th item (a warning: it is scored as
      an empty description).

    The metadata lacks ``contact``.

    Parameters
    ----------
    test
        The test items (the first 56 are furniture).
    outputs
        Valid outputs for every test item, in the same order (e.g. Full Brevity).
    directory
        ``submissions/broken-team/primary``.

    Returns
    -------
    list of BrokenProblem
        Where each problem is (1-based line numbers of the outputs file).
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    lines: list[bytes] = [b"<?xml version='1.0' encoding='UTF-8'?>", b"<OUTPUTS>"]
    problems: list[BrokenProblem] = []

    def trial(
        output: Output, *, wrong: tuple[str, str] | None = None, note: str = ""
    ) -> None:
        lines.append(f'  <TRIAL ID="{output.item_id}">'.encode())
        if note == "unknown-id":
            problems.append(
                BrokenProblem(len(lines), output.item_id, "unknown item ID")
            )
        lines.append(b"    <ATTRIBUTE-SET>")
        pairs = sorted(output.attribute_set or ())
        if wrong is not None:
            pairs = sorted({p for p in pairs if p[0] != wrong[0]} | {wrong})
        for name, value in pairs:
            lines.append(f'      <ATTRIBUTE NAME="{name}" VALUE="{value}"/>'.encode())
            if (name, value) == wrong:
                problems.append(BrokenProblem(len(lines), output.item_id, note))
        lines.append(b"    </ATTRIBUTE-SET>")
        words = _xml_text(output.word_string or "").encode()
        if note == "encoding":
            words += b" (caf\xe9 corner)"
        elif note == "empty word string":
            words = b"   "
        lines.append(b"    <WORD-STRING>" + words + b"</WORD-STRING>")
        if note in ("encoding", "empty word string"):
            detail = "bytes invalid in UTF-8" if note == "encoding" else note
            problems.append(BrokenProblem(len(lines), output.item_id, detail))
        lines.append(b"  </TRIAL>")

    for index, output in enumerate(outputs, start=1):
        if index == 3:
            trial(output, note="encoding")
        elif index == 5:
            problems.append(
                BrokenProblem(len(lines) + 1, output.item_id, "missing item")
            )
        elif index == 10:
            trial(output)
            problems.append(
                BrokenProblem(len(lines) + 1, output.item_id, "duplicated item")
            )
            trial(output)
        elif index == 20:
            trial(
                output, wrong=("colour", "purple"), note="attribute value not in domain"
            )
            unknown = Output(
                "t999",
                word_string=output.word_string,
                attribute_set=output.attribute_set,
            )
            trial(unknown, note="unknown-id")
        elif index == 30:
            trial(
                output, wrong=("material", "wood"), note="attribute name not in domain"
            )
        elif index == 40:
            trial(output, note="empty word string")
        else:
            trial(output)
    lines.append(b"</OUTPUTS>")
    (directory / OUTPUTS_FILE).write_bytes(b"\n".join(lines) + b"\n")
    write_metadata(
        {
            "team": "broken-team",
            "system": "primary",
            "description": "A deliberately broken submission to exercise validation.",
            "primary": True,
            "submitted": "2026-05-28T17:45:00Z",
            "tasks": ["end_to_end", "attribute_selection"],
            "reference": False,
            "release_consent": False,
            "properties": {
                "incremental": True,
                "discriminatory_power": False,
                "trainable": False,
                "full_brevity": False,
            },
        },
        directory / METADATA_FILE,
    )
    return problems

"""The authors of the demo's human-like references.

Each reference is written by an *author* from a pool of 60. An author has a
verbosity (0.2–0.7, scaling the chance of adding an attribute that rules nothing
out), a propensity to use location (0.5–1.2), a rate of mentioning the head noun, a
habit for the determiner (mostly "the", sometimes "a" or none), word-order habits
and preferred words (e.g. "couch" rather than "sofa"), each used 85 % of the time.
The habits shape both what an author mentions (:mod:`~stecflow.demo.references`)
and in which words (:mod:`~stecflow.demo.wording`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from stecflow.demo.seeding import rng_for

__all__ = ["Author", "draw_authors"]


@dataclass(frozen=True)
class Author:
    """A describer: habits that stay the same across the author's references."""

    number: int
    verbosity: float
    location: float
    type_rate: float
    determiner: str
    size_after_colour: bool
    location_first: bool
    column_first: bool
    corner: float
    capital: float

    def prefers(self, key: str, variants: Sequence[tuple[str, float]]) -> str:
        """The author's habitual variant for *key* (fixed per author and key)."""
        words = [v for v, _ in variants]
        weights = [w for _, w in variants]
        return rng_for(self.number, "lexicon", key).choices(words, weights)[0]


def draw_authors(seed: int, count: int = 60) -> list[Author]:
    """The pool of *count* authors of a campaign, drawn from its *seed*."""
    rng = rng_for(seed, "authors")
    authors = []
    for number in range(count):
        authors.append(
            Author(
                number=seed * 1000 + number,
                verbosity=round(rng.uniform(0.2, 0.7), 3),
                location=round(rng.uniform(0.5, 1.2), 3),
                type_rate=round(rng.uniform(0.88, 1.0), 3),
                determiner=rng.choices(("the", "a", ""), weights=(0.86, 0.05, 0.09))[0],
                size_after_colour=rng.random() < 0.15,
                location_first=rng.random() < 0.25,
                column_first=rng.random() < 0.3,
                corner=round(rng.uniform(0.3, 0.9), 3),
                capital=rng.choice((0.0, 0.0, 0.1, 0.5)),
            )
        )
    return authors

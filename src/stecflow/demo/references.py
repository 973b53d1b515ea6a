"""Human-like references: what an author mentions, realised in the author's words.

*Content* is chosen like a noisy Incremental Algorithm: the head noun (``type``)
first (about 95 % of the time), then the target's other attributes in an order
sorted by salience times log-normal noise. Salience favours colour, then size and
orientation (furniture) and beard, glasses and hair (people); a boolean attribute
with value 0 is less salient (except baldness, which is very salient). Location
has salience 0.4 × the author's propensity under +LOC and 0.03 under -LOC, where
describers were discouraged from using it. An attribute that rules out a remaining
distractor is taken (97 %; and 3 % of the time the author then gives up before the
description is distinguishing); one that does not is still taken with probability
0.7 × salience × verbosity, which makes references over-specified, as human ones
are. Having used one of ``x-dimension``/``y-dimension``, an author adds the other
half the time ("top left"). References are therefore usually, not always,
distinguishing.

The chosen attributes are then put into words by
:func:`~stecflow.demo.wording.realise_human`; :func:`human_reference` does both.
"""

from __future__ import annotations

import random

from stecflow.baselines.systems import LOCATION_ATTRIBUTES as _LOCATION
from stecflow.data.model import Domain, Entity, Reference
from stecflow.demo.authors import Author
from stecflow.demo.wording import realise_human

__all__ = ["human_reference"]


#: Scales the chance of adding an attribute that rules out no remaining distractor.
_REDUNDANCY = 0.7
_SALIENCE = {
    "type": 1.0,
    "colour": 0.9,
    "size": 0.45,
    "orientation": 0.4,
    "hasBeard": 0.75,
    "hasGlasses": 0.75,
    "hasHair": 0.6,
    "hairColour": 0.55,
    "age": 0.35,
    "hasSuit": 0.3,
    "hasTie": 0.25,
    "hasShirt": 0.15,
}


def _salience(name: str, target: Entity, condition: str, author: Author) -> float:
    if name in _LOCATION:
        return 0.4 * author.location if condition == "+LOC" else 0.03
    value = target.value_of(name)
    base = _SALIENCE.get(name, 0.3)
    if name == "orientation" and target.value_of("type") == "person":
        base = 0.25
    if name == "hasHair":
        return min(1.0, base * 1.4) if value == "0" else base * 0.3
    if name == "hairColour" and target.value_of("hasHair") == "0":
        return base * 0.3
    if value == "0":
        return base * 0.35
    return base


def _select_content(
    domain: Domain, condition: str, author: Author, rng: random.Random
) -> dict[str, str]:
    target = domain.target
    values = {a.name: a.value for a in target.attributes}
    selected: dict[str, str] = {}
    remaining = list(domain.distractors)

    def take(name: str) -> None:
        selected[name] = values[name]
        remaining[:] = [d for d in remaining if d.value_of(name) == values[name]]

    if rng.random() < author.type_rate:
        take("type")
    names = [name for name in values if name != "type"]
    weight = {n: _salience(n, target, condition, author) for n in names}
    keys = {n: weight[n] * rng.lognormvariate(0, 0.5) for n in names}
    for name in sorted(names, key=lambda n: (-keys[n], n)):
        helps = any(d.value_of(name) != values[name] for d in remaining)
        if helps and rng.random() < 0.97:
            take(name)
            if remaining and len(selected) >= 2 and rng.random() < 0.03:
                break  # the author stops before the description is distinguishing
        elif rng.random() < _REDUNDANCY * weight[name] * author.verbosity:
            take(name)
    located = [n for n in _LOCATION if n in selected]
    if len(located) == 1 and rng.random() < 0.5:
        take(next(n for n in _LOCATION if n not in selected))
    if not selected:
        take("type")
    return selected


def human_reference(
    domain: Domain,
    subdomain: str,
    condition: str,
    author: Author,
    rng: random.Random,
    reference_id: str | None,
) -> Reference:
    """One reference to *domain*'s target by *author*: content, then words."""
    selected = _select_content(domain, condition, author, rng)
    words, annotated = realise_human(selected, subdomain, author, rng)
    return Reference(
        word_string=words,
        attribute_set=frozenset(selected.items()),
        annotated_word_string=annotated,
        id=reference_id,
    )

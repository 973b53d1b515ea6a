"""What a control trial shows: degraded outputs and gold descriptions.

The design places control trials (:mod:`stecflow.studies.designs.controls`,
system ``CONTROL``); this module makes the text each one shows, one per item, so
that the stimuli builders render a control trial like any other trial (the
participant cannot tell it apart):

**degraded** (rating studies; WMT's "bad references", Graham et al. 2017, the
quality control of WMT's direct assessment 2016-2019 and of Appraise). The source
is the item's first human reference (its word string), or, for an item without
one, the first study system's output for it (systems in sorted order). A span of
consecutive words is replaced by the same number of consecutive words of another
item's source text; the span's length depends on the text's length as in WMT:
1 word for texts of 1 word, 2 for 2-5 words, 3 for 6-8, 4 for 9-15, 5 for 16-20
and ``n // 4`` beyond; its start and the other item are drawn from the study seed
(the other item's words must differ from the replaced ones). For a study that
shows attribute sets realised (``realise: template``) the control describes a
distractor instead: the attributes of the reference's attribute set, with the
values of a distractor (drawn from the seed) that differs from the target on at
least one of them, realised by the same template realiser as the outputs.

In a ``text_preference`` study the degraded text is a copy of the output of
the system the design drew for the item
(:func:`stecflow.studies.designs.controls.control_source`), damaged the same
way with the other items' outputs of that system as donors
(:func:`pair_control_texts`); the control trial shows it next to the intact
output.

**gold** (identification studies): the item's first human reference whose
attribute set identifies the target uniquely, checked against the item's domain
(true of the target, of no distractor); for a ``realise: template`` study, or when
no reference qualifies, the template realisation of the target's full attribute
set without location, then with location, whichever first identifies it
uniquely. An item whose target no description can single out (a distractor
identical to it) gets no gold text and is never chosen for a gold trial.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from stecflow.studies.designs.seeding import _rng

__all__ = [
    "control_texts",
    "degrade_text",
    "degraded_span_length",
    "distractor_description",
    "gold_description",
    "pair_control_texts",
]

_LOCATION = ("x-dimension", "y-dimension")


def degraded_span_length(n_words: int) -> int:
    """Words replaced in a text of *n_words* words (WMT's bad references).

    >>> [degraded_span_length(n) for n in (1, 2, 5, 6, 8, 9, 15, 16, 20, 21, 40)]
    [1, 2, 2, 3, 3, 4, 4, 5, 5, 5, 10]
    """
    if n_words <= 1:
        return 1
    for limit, length in ((5, 2), (8, 3), (15, 4), (20, 5)):
        if n_words <= limit:
            return length
    return n_words // 4


def degrade_text(text: str, donors: Sequence[str], seed: int, *keys: Any) -> str | None:
    """*text* with a span of words replaced by a span of a donor text.

    *donors* are the other items' texts, tried in a seeded order; the first with
    enough words whose span differs from the replaced one is used. None when no
    donor fits.

    >>> degrade_text("the large red chair facing left",
    ...              ["the old man with glasses"], 1, "t1")
    'old man with chair facing left'
    """
    words = text.split()
    if not words:
        return None
    length = degraded_span_length(len(words))
    rng = _rng(seed, "degraded", *keys)
    start = int(rng.integers(len(words) - length + 1))
    old = words[start : start + length]
    order = rng.permutation(len(donors)) if donors else []
    for index in order:
        donor = donors[int(index)].split()
        if len(donor) < length:
            continue
        at = int(rng.integers(len(donor) - length + 1))
        new = donor[at : at + length]
        if [w.lower() for w in new] == [w.lower() for w in old]:
            continue
        return " ".join(words[:start] + new + words[start + length :])
    return None


def distractor_description(item: Any, seed: int) -> str | None:
    """Describe a distractor instead of the target (``realise: template``).

    The attribute names of the item's first reference attribute set (the
    target's non-location attributes when it has none), with the values of a
    seeded distractor that differs from the target on one of them, realised.
    """
    from stecflow.tasks.reg.realiser import realise

    target = item.domain.target
    reference = next(
        (r.attribute_set for r in item.references if r.attribute_set), None
    )
    names = sorted(
        {n for n, _ in reference}
        if reference
        else {a.name for a in target.attributes if a.name not in _LOCATION}
    )
    candidates = [
        d
        for d in item.domain.distractors
        if any(d.value_of(n) != target.value_of(n) for n in names)
    ]
    if not candidates:
        return None
    rng = _rng(seed, "distractor", item.id)
    chosen = candidates[int(rng.integers(len(candidates)))]
    attrs = {(n, v) for n in names if (v := chosen.value_of(n)) is not None}
    return realise(attrs)


def gold_description(item: Any, realised: bool = False) -> str | None:
    """A description that identifies the item's target unambiguously, or None.

    Checked against the domain with
    :func:`stecflow.metrics.distinguishing.is_unique`.
    """
    from stecflow.metrics.distinguishing import is_unique
    from stecflow.tasks.reg.realiser import realise

    target = item.domain.target.attribute_set
    distractors = [d.attribute_set for d in item.domain.distractors]
    if not realised:
        for reference in item.references:
            attrs = reference.attribute_set
            if (
                reference.word_string
                and attrs
                and is_unique(frozenset(attrs), target, distractors)
            ):
                return str(reference.word_string)
    without = frozenset(a for a in target if a[0] not in _LOCATION)
    for attrs in (without, target):
        if attrs and is_unique(attrs, target, distractors):
            return realise(attrs)
    return None


def _source_text(item: Any, outputs: Mapping[str, Mapping[str, str]]) -> str | None:
    for reference in item.references:
        if reference.word_string:
            return str(reference.word_string)
    for system in sorted(outputs):
        text = outputs[system].get(item.id)
        if text:
            return str(text)
    return None


def control_texts(
    kind: str,
    items: Sequence[Any],
    outputs: Mapping[str, Mapping[str, str]],
    *,
    seed: int,
    realised: bool = False,
) -> dict[str, str]:
    """Item ID -> the text a control trial of *kind* shows for it.

    Items for which no text can be made are left out (the design never places a
    control trial on them: see :func:`stecflow.studies.setup.make_design`).
    """
    out: dict[str, str] = {}
    if kind == "gold":
        for item in items:
            if item.domain.entities and (text := gold_description(item, realised)):
                out[item.id] = text
        return out
    if realised:
        for item in items:
            if item.domain.entities and (text := distractor_description(item, seed)):
                out[item.id] = text
        return out
    sources = {item.id: _source_text(item, outputs) for item in items}
    ids = sorted(i for i, text in sources.items() if text)
    for item_id in ids:
        donors = [sources[i] for i in ids if i != item_id]
        text = degrade_text(sources[item_id], donors, seed, item_id)  # type: ignore[arg-type]
        if text is not None:
            out[item_id] = text
    return out


def pair_control_texts(
    item_ids: Sequence[str],
    outputs: Mapping[str, Mapping[str, str]],
    systems: Sequence[str],
    *,
    seed: int,
) -> dict[str, str]:
    """Item ID -> the degraded copy a preference control trial shows.

    The copy of :func:`~stecflow.studies.designs.controls.control_source`'s
    output, degraded with that system's other outputs as donors. Items whose
    output cannot be degraded are left out.

    >>> outs = {"a": {"t1": "the red chair on the left", "t2": "a big old desk"}}
    >>> pair_control_texts(["t1", "t2"], outs, ["a"], seed=1)["t1"] != outs["a"]["t1"]
    True
    """
    from stecflow.studies.designs.controls import control_source

    out: dict[str, str] = {}
    for item_id in sorted(item_ids):
        system = control_source(systems, seed, item_id)
        texts = outputs.get(system, {})
        source = texts.get(item_id)
        if not source:
            continue
        donors = [texts[i] for i in sorted(texts) if i != item_id and texts[i]]
        text = degrade_text(source, donors, seed, item_id)
        if text is not None:
            out[item_id] = text
    return out

"""Classic attribute-selection algorithms, used as the organisers' baselines.

Each algorithm takes a :class:`~stecflow.data.model.Domain` and returns an attribute set
(a frozenset of ``(name, value)`` pairs, all true of the target):

* :func:`full_brevity`, Full Brevity (Dale 1989): a smallest distinguishing set;
* :func:`greedy`, the Greedy Algorithm (Dale 1989): add the attribute that rules out
  most remaining distractors until none remain;
* :func:`incremental`, the Incremental Algorithm (Dale & Reiter 1995): walk a
  preference order, keep every attribute that rules out a remaining distractor, and
  always include ``type`` (the head noun); :func:`learn_preference_order` learns the
  order from the attribute sets of training references.

An attribute *rules out* a distractor when the distractor does not have it (a
different value, or no value for that name). Location (``x-dimension``,
``y-dimension``) is an ordinary attribute here; pass ``exclude=LOCATION_ATTRIBUTES``
(or leave location out of the preference order) to select without it.

Ties are broken with a fixed attribute order, :data:`CANONICAL_ORDER` (names not in
it come after, alphabetically), so every result is deterministic.

**When no distinguishing set exists** (a distractor has every attribute of the
target), no algorithm fails: Full Brevity returns a smallest set that rules out every
distractor that *can* be ruled out, Greedy returns what it had when no attribute
ruled out any more distractors, and the Incremental Algorithm returns what it had at
the end of the preference order. Use :func:`is_distinguishing` to tell.

References
----------
Dale, R. (1989). Cooking up referring expressions. *Proceedings of ACL 1989*, 68-75.
Dale, R., & Reiter, E. (1995). Computational interpretations of the Gricean maxims in
the generation of referring expressions. *Cognitive Science*, 19(2), 233-263.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Hashable, Iterable, Sequence
from itertools import combinations

from stecflow.data.model import AttributeSet, Domain, Entity, Item, Output

__all__ = [
    "BASELINES",
    "CANONICAL_ORDER",
    "LOCATION_ATTRIBUTES",
    "attribute_frequencies",
    "full_brevity",
    "greedy",
    "incremental",
    "is_distinguishing",
    "learn_preference_order",
    "remaining_distractors",
    "run_baseline",
]

#: The two attributes that give an entity's place on the screen grid.
LOCATION_ATTRIBUTES = ("x-dimension", "y-dimension")

#: Attribute names in tie-breaking order: head noun, then the properties TUNA's
#: describers favour, location last.
CANONICAL_ORDER = (
    "type",
    "colour",
    "size",
    "orientation",
    "age",
    "hairColour",
    "hasHair",
    "hasBeard",
    "hasGlasses",
    "hasShirt",
    "hasSuit",
    "hasTie",
    "x-dimension",
    "y-dimension",
)


def _name_key(name: str) -> tuple[int, str]:
    if name in CANONICAL_ORDER:
        return (CANONICAL_ORDER.index(name), "")
    return (len(CANONICAL_ORDER), name)


def _attribute_key(attribute: tuple[str, str]) -> tuple[int, str, str]:
    return (*_name_key(attribute[0]), attribute[1])


def _true_of(attributes: Iterable[tuple[str, str]], entity: Entity) -> bool:
    return all(entity.value_of(name) == value for name, value in attributes)


def remaining_distractors(
    attributes: Iterable[tuple[str, str]], domain: Domain
) -> tuple[Entity, ...]:
    """Return the distractors that *attributes* do not rule out.

    Examples
    --------
    >>> from stecflow.data.model import EntityAttribute as A
    >>> d = Domain((Entity("e1", True, (A("colour", "red"),)),
    ...             Entity("e2", False, (A("colour", "blue"),))))
    >>> [e.id for e in remaining_distractors(set(), d)]
    ['e2']
    >>> remaining_distractors({("colour", "red")}, d)
    ()
    """
    attributes = tuple(attributes)
    return tuple(d for d in domain.distractors if _true_of(attributes, d))


def is_distinguishing(attributes: Iterable[tuple[str, str]], domain: Domain) -> bool:
    """Return True if *attributes* are all true of the target and rule out every
    distractor (REFERENCE.md §6, ``unique``)."""
    attributes = tuple(attributes)
    return _true_of(attributes, domain.target) and not remaining_distractors(
        attributes, domain
    )


def _candidates(domain: Domain, exclude: Collection[str]) -> list[tuple[str, str]]:
    pairs = {
        (a.name, a.value) for a in domain.target.attributes if a.name not in exclude
    }
    return sorted(pairs, key=_attribute_key)


def _ruled_out(attributes: Iterable[tuple[str, str]], domain: Domain) -> frozenset[str]:
    left = {d.id for d in remaining_distractors(attributes, domain)}
    return frozenset(d.id for d in domain.distractors if d.id not in left)


def full_brevity(domain: Domain, *, exclude: Collection[str] = ()) -> AttributeSet:
    """Full Brevity (Dale 1989): a smallest set of target attributes that
    distinguishes the target.

    Subsets are tried by increasing size; among sets of one size the first in
    lexicographic order of :data:`CANONICAL_ORDER` wins (``type`` before ``colour``
    before … before location), so the result is deterministic.

    Parameters
    ----------
    domain
        The entities; exactly one is the target.
    exclude
        Attribute names never to select, e.g. :data:`LOCATION_ATTRIBUTES`.

    Returns
    -------
    AttributeSet
        A distinguishing set of minimum size (empty if there are no distractors).
        If none exists, a smallest set ruling out every distractor that the
        target's whole attribute set rules out.

    Examples
    --------
    The worked example of REFERENCE.md §6 (k* = 2):

    >>> from stecflow.data.model import EntityAttribute as A
    >>> def e(i, target, **attrs):
    ...     return Entity(f"e{i}", target, tuple(A(k, v) for k, v in attrs.items()))
    >>> d = Domain((e(1, True, type="chair", colour="red", size="large"),
    ...             e(2, False, type="chair", colour="blue", size="large"),
    ...             e(3, False, type="sofa", colour="red", size="small")))
    >>> sorted(full_brevity(d))
    [('colour', 'red'), ('type', 'chair')]
    """
    candidates = _candidates(domain, exclude)
    goal = _ruled_out(candidates, domain)
    for size in range(len(candidates) + 1):
        for subset in combinations(candidates, size):
            if _ruled_out(subset, domain) >= goal:
                return frozenset(subset)
    return frozenset(candidates)  # pragma: no cover (the full set always reaches goal)


def greedy(domain: Domain, *, exclude: Collection[str] = ()) -> AttributeSet:
    """The Greedy Algorithm (Dale 1989): repeatedly add the target attribute that
    rules out most of the remaining distractors.

    Ties go to the attribute earliest in :data:`CANONICAL_ORDER`. Selection stops
    when no distractor remains, or when no attribute rules out any of those that
    remain (then the result is not distinguishing).

    Parameters
    ----------
    domain
        The entities; exactly one is the target.
    exclude
        Attribute names never to select.

    Returns
    -------
    AttributeSet
        The attributes selected (empty if there are no distractors).

    Examples
    --------
    >>> from stecflow.data.model import EntityAttribute as A
    >>> def e(i, target, **attrs):
    ...     return Entity(f"e{i}", target, tuple(A(k, v) for k, v in attrs.items()))
    >>> d = Domain((e(1, True, type="fan", colour="red", size="small"),
    ...             e(2, False, type="fan", colour="blue", size="small"),
    ...             e(3, False, type="fan", colour="green", size="small"),
    ...             e(4, False, type="fan", colour="red", size="large")))
    >>> sorted(greedy(d))
    [('colour', 'red'), ('size', 'small')]
    """
    candidates = _candidates(domain, exclude)
    selected: list[tuple[str, str]] = []
    remaining = list(domain.distractors)
    while remaining:
        best, best_count = None, 0
        for attribute in candidates:
            if attribute in selected:
                continue
            count = sum(
                1 for d in remaining if d.value_of(attribute[0]) != attribute[1]
            )
            if count > best_count:  # strict: the earliest attribute wins ties
                best, best_count = attribute, count
        if best is None:
            break
        selected.append(best)
        remaining = [d for d in remaining if d.value_of(best[0]) == best[1]]
    return frozenset(selected)


def incremental(
    domain: Domain, preference: Sequence[str], *, include_type: bool = True
) -> AttributeSet:
    """The Incremental Algorithm (Dale & Reiter 1995).

    Attribute names are taken in *preference* order; the target's attribute of that
    name is kept if it rules out at least one remaining distractor, and selection
    stops as soon as none remain. Names not in *preference* are never selected.
    With *include_type*, the target's ``type`` is added at the end if it was not
    selected, as Dale & Reiter always include the head noun (its category).

    Parameters
    ----------
    domain
        The entities; exactly one is the target.
    preference
        Attribute names, most preferred first (see :func:`learn_preference_order`).
    include_type
        Always include ``type`` when the target has one.

    Returns
    -------
    AttributeSet
        The selected attributes; not distinguishing if the order ran out first.

    Examples
    --------
    >>> from stecflow.data.model import EntityAttribute as A
    >>> def e(i, target, **attrs):
    ...     return Entity(f"e{i}", target, tuple(A(k, v) for k, v in attrs.items()))
    >>> d = Domain((e(1, True, type="chair", colour="red", size="large"),
    ...             e(2, False, type="chair", colour="blue", size="large"),
    ...             e(3, False, type="sofa", colour="red", size="small")))
    >>> sorted(incremental(d, ["colour", "size", "type"]))
    [('colour', 'red'), ('size', 'large'), ('type', 'chair')]
    """
    target = domain.target
    selected: list[tuple[str, str]] = []
    remaining = list(domain.distractors)
    for name in preference:
        if not remaining:
            break
        value = target.value_of(name)
        if value is None or (name, value) in selected:
            continue
        if any(d.value_of(name) != value for d in remaining):
            selected.append((name, value))
            remaining = [d for d in remaining if d.value_of(name) == value]
    type_value = target.value_of("type")
    if include_type and type_value is not None:
        selected.append(("type", type_value))
    return frozenset(selected)


def _by_subdomain(item: Item) -> str:
    return item.subdomain


def attribute_frequencies(
    items: Iterable[Item], *, key: Callable[[Item], Hashable] = _by_subdomain
) -> dict[Hashable, Counter[str]]:
    """Count, per group of items, the references whose attribute set uses each name.

    Every attribute name of the groups' domains is present, with count 0 if no
    reference uses it. A name is counted once per reference.

    Parameters
    ----------
    items
        Training items with references.
    key
        Groups the items (default: by subdomain).

    Returns
    -------
    dict
        Group -> Counter of attribute names.
    """
    counts: dict[Hashable, Counter[str]] = {}
    for item in items:
        counter = counts.setdefault(key(item), Counter())
        for entity in item.domain.entities:
            for attribute in entity.attributes:
                counter.setdefault(attribute.name, 0)
        for reference in item.references:
            names = {name for name, _ in reference.attribute_set or ()}
            counter.update(names)
    return counts


def learn_preference_order(
    items: Iterable[Item], *, key: Callable[[Item], Hashable] = _by_subdomain
) -> dict[Hashable, tuple[str, ...]]:
    """Learn an Incremental Algorithm preference order from training references.

    Attribute names are ordered by how many references of the group use them, most
    frequent first; ties follow :data:`CANONICAL_ORDER`, then the name.

    Parameters
    ----------
    items
        Training items with references (their attribute sets are counted).
    key
        Groups the items; one order is learnt per group (default: per subdomain).

    Returns
    -------
    dict
        Group -> attribute names, most preferred first.

    Examples
    --------
    >>> from stecflow.data.model import EntityAttribute as A, Reference
    >>> d = Domain((Entity("e1", True, (A("type", "fan"), A("colour", "red"),
    ...                                 A("size", "large"))),))
    >>> refs = (Reference(attribute_set=frozenset({("colour", "red")})),
    ...         Reference(attribute_set=frozenset({("colour", "red"),
    ...                                            ("type", "fan")})))
    >>> learn_preference_order([Item("t1", d, "furniture", references=refs)])
    {'furniture': ('colour', 'type', 'size')}
    """
    orders: dict[Hashable, tuple[str, ...]] = {}
    for group, counter in attribute_frequencies(items, key=key).items():
        ranked = sorted(counter, key=lambda n: (-counter[n], *_name_key(n)))
        orders[group] = tuple(ranked)
    return orders


#: The baselines :func:`run_baseline` knows, by name.
BASELINES = ("full-brevity", "greedy", "incremental")


def run_baseline(
    name: str,
    items: Sequence[Item],
    *,
    train: Sequence[Item] | None = None,
    word_strings: bool = True,
) -> list[Output]:
    """Run a baseline on every item and return its outputs.

    Parameters
    ----------
    name
        One of :data:`BASELINES`.
    items
        The items to describe (their references are not used, except below).
    train
        Training items for the Incremental Algorithm's preference order (one order
        per subdomain). Without them the order for each item is learnt from the
        references of all *other* items (leave one out), so no item's own human
        descriptions influence its output.
    word_strings
        Also realise each attribute set with the template realiser (English).

    Returns
    -------
    list of Output
        One per item, in item order.
    """
    from stecflow.tasks.reg.realiser import realise

    if name not in BASELINES:
        raise ValueError(
            f"unknown baseline {name!r}; choose one of {', '.join(BASELINES)}"
        )
    orders: dict[Hashable, tuple[str, ...]] = {}
    totals: dict[Hashable, Counter[str]] = {}
    if name == "incremental" and train is not None:
        orders = learn_preference_order(train)
    elif name == "incremental":
        totals = attribute_frequencies(items)
    outputs = []
    for item in items:
        if name == "full-brevity":
            attrs = full_brevity(item.domain)
        elif name == "greedy":
            attrs = greedy(item.domain)
        else:
            if train is not None:
                order = orders.get(item.subdomain) or tuple(CANONICAL_ORDER)
            else:
                counter = (
                    totals[item.subdomain]
                    - attribute_frequencies([item])[item.subdomain]
                )
                for attr_name in totals[item.subdomain]:
                    counter.setdefault(attr_name, 0)
                order = tuple(
                    sorted(counter, key=lambda n: (-counter[n], *_name_key(n)))
                )
            attrs = incremental(item.domain, order)
        outputs.append(Output(item.id, realise(attrs) if word_strings else None, attrs))
    return outputs

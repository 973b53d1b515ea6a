"""Practice trials: drawn once per study, shown first to every subject."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from stecflow.studies.designs.checks import DesignError, _check_count, _check_ids
from stecflow.studies.designs.seeding import _rng

__all__: list[str] = []


def _choose_practice(
    pool: Sequence[str], n_practice: int, test_items: Sequence[str], seed: int
) -> tuple[str, ...]:
    """Draw the practice items (same for every subject) from outside the test set."""
    n_practice = _check_count(n_practice, "n_practice", 0)
    if n_practice == 0:
        return ()
    candidates = _check_ids(pool, "practice_pool", 0)
    overlap = sorted(set(candidates) & set(test_items))
    if overlap:
        raise DesignError(
            f"{len(overlap)} practice item(s) are test items "
            f"({', '.join(overlap[:5])}); draw practice items from another split, "
            "e.g. the development set",
            field="practice_pool",
        )
    if n_practice > len(candidates):
        raise DesignError(
            f"asked for {n_practice} practice items but the pool holds "
            f"{len(candidates)}; lower n_practice or give a larger pool",
            field="n_practice",
        )
    picks = _rng(seed, "practice").choice(len(candidates), n_practice, replace=False)
    return tuple(candidates[int(i)] for i in picks)


def _practice_rows(
    base: dict[str, Any],
    practice: tuple[str, ...],
    practice_system: str | None,
    subdomains: Mapping[str, str],
) -> list[dict[str, Any]]:
    return [
        {
            **base,
            "square": None,
            "square_row": None,
            "square_column": None,
            "order": position,
            "item": item,
            "subdomain": subdomains.get(item),
            "item_set": None,
            "system": practice_system,
            "practice": True,
            "filler": False,
        }
        for position, item in enumerate(practice, start=1)
    ]

"""The demo corpus: its splits, items and pictures.

Splits and sizes are those of TUNA-REG (Gatt, Belz & Kow 2009, Table 2): train
319 furniture + 274 people items (IDs ``tr-0001`` …), dev 80 + 68 (``dv-0001`` …),
test 56 + 56 (``t001`` … ``t112``). Within a split, furniture items come first; the
two conditions are balanced within each subdomain (the test set has 28 +LOC and
28 -LOC items per subdomain) and shuffled. Each item has a domain
(:func:`~stecflow.demo.domains.generate_domain`) and human-like references
(:mod:`~stecflow.demo.references`): test items get two, HUMAN-1 and HUMAN-2, by two
different authors drawn independently; train and dev items get one.

:func:`write_pictures` draws the entities the items use
(:mod:`stecflow.tasks.reg.pictures`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from pathlib import Path

from stecflow.data.model import Item
from stecflow.demo.authors import draw_authors
from stecflow.demo.domains import appearance_of, generate_domain
from stecflow.demo.references import human_reference
from stecflow.demo.seeding import DEFAULT_SEED, rng_for
from stecflow.tasks.reg.pictures import render_svg

__all__ = ["SPLIT_SIZES", "generate_corpus", "item_ids", "write_pictures"]

#: Items per split and subdomain (TUNA-REG'09, Table 2).
SPLIT_SIZES: dict[str, dict[str, int]] = {
    "train": {"furniture": 319, "people": 274},
    "dev": {"furniture": 80, "people": 68},
    "test": {"furniture": 56, "people": 56},
}
_ID_FORMAT = {"train": "tr-{:04d}", "dev": "dv-{:04d}", "test": "t{:03d}"}


def item_ids(split: str) -> list[str]:
    """Return the item IDs of a split, furniture items first.

    >>> item_ids("test")[:2], item_ids("test")[-1], item_ids("train")[0]
    (['t001', 't002'], 't112', 'tr-0001')
    """
    total = sum(SPLIT_SIZES[split].values())
    return [_ID_FORMAT[split].format(i) for i in range(1, total + 1)]


def _conditions(count: int, rng: random.Random) -> list[str]:
    conditions = ["+LOC"] * ((count + 1) // 2) + ["-LOC"] * (count // 2)
    rng.shuffle(conditions)
    return conditions


def generate_corpus(seed: int = DEFAULT_SEED) -> dict[str, list[Item]]:
    """Generate the train, dev and test items of the demo corpus.

    Parameters
    ----------
    seed
        Every random choice derives from it; the same seed gives the same corpus.

    Returns
    -------
    dict
        ``{"train": [...], "dev": [...], "test": [...]}``, items in ID order.
    """
    authors = draw_authors(seed)
    corpus: dict[str, list[Item]] = {}
    for split, sizes in SPLIT_SIZES.items():
        ids = iter(item_ids(split))
        items: list[Item] = []
        for subdomain, count in sizes.items():
            conditions = _conditions(
                count, rng_for(seed, split, subdomain, "conditions")
            )
            for condition in conditions:
                item_id = next(ids)
                domain = generate_domain(subdomain, rng_for(seed, item_id, "domain"))
                rng = rng_for(seed, item_id, "references")
                if split == "test":
                    pair = rng.sample(authors, 2)
                    references = tuple(
                        human_reference(
                            domain, subdomain, condition, author, rng, f"HUMAN-{i}"
                        )
                        for i, author in enumerate(pair, start=1)
                    )
                else:
                    author = rng.choice(authors)
                    references = (
                        human_reference(
                            domain, subdomain, condition, author, rng, None
                        ),
                    )
                items.append(
                    Item(
                        id=item_id,
                        domain=domain,
                        subdomain=subdomain,
                        condition=condition,
                        references=references,
                    )
                )
        corpus[split] = items
    return corpus


def write_pictures(items: Iterable[Item], directory: str | Path) -> list[Path]:
    """Write one SVG per distinct entity appearance used by *items*.

    Other ``*.svg`` files in *directory* are removed, so the folder always matches
    the corpus.

    Returns
    -------
    list of Path
        The pictures written, sorted.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    pictures: dict[str, str] = {}
    for item in items:
        for entity in item.domain.entities:
            if entity.image and entity.image not in pictures:
                pictures[entity.image] = render_svg(appearance_of(entity))
    for stale in sorted(directory.glob("*.svg")):
        if stale.name not in pictures:
            stale.unlink()
    written = []
    for name in sorted(pictures):
        path = directory / name
        path.write_bytes(pictures[name].encode("utf-8"))
        written.append(path)
    return written

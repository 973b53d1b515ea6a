"""How the REG tasks show an item's input: its entities' pictures on a grid.

A REG item's input is a domain of entities, one of them the target. A study shows
it as a grid of pictures (:func:`scene`); the study builder
(:mod:`stecflow.studies.stimuli`) adds the description, marks or hides the target,
and ships the pictures with the page.

:func:`scene` is the one seam between the study builder and this task type: a
task-type registry will later choose, per task, the function that shows an input.
Its contract is deliberately small:

* inputs: the item, the folder of the corpus's pictures (or None) and the study
  seed; nothing else (no settings, no study files);
* outputs: the grid size, the entities with their picture and cell, and the bytes
  of every picture; pure (the same inputs give the same values and bytes);
* errors: :class:`~stecflow.core.errors.StimuliError` with ``field="item <ID>"``.

Pictures are the corpus's own files (``Entity.image``, read from the images folder),
else the demo corpus's drawing (:mod:`stecflow.tasks.reg.pictures`) when the
entity's attributes fit its vocabulary, else a labelled placeholder. Cells are
TUNA's ``x-dimension`` and ``y-dimension`` when every entity has them, else a
balanced layout in an order drawn from the seed and the item ID.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.metrics`.
"""

from __future__ import annotations

import hashlib
import html
import math
import re
from pathlib import Path
from typing import Any

from stecflow.core.errors import StimuliError
from stecflow.data.model import Entity, Item
from stecflow.tasks.reg.pictures import image_name, render_svg

__all__ = ["scene"]

_IMAGE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\.(svg|png|jpe?g|gif|webp)$")
_DEMO_KEYS = {
    "furniture": ("type", "colour", "size", "orientation"),
    "person": (
        "type",
        "age",
        "hairColour",
        "hasHair",
        "hasBeard",
        "hasGlasses",
        "hasShirt",
        "hasSuit",
        "hasTie",
        "orientation",
    ),
}
_LOCATION = ("x-dimension", "y-dimension")


def scene(
    item: Item, images_dir: str | Path | None, seed: int
) -> tuple[list[int], list[dict[str, Any]], dict[str, bytes]]:
    """Return how *item*'s input is shown: ``(grid, entities, pictures)``.

    Parameters
    ----------
    item : Item
        A REG item; every entity of its domain is shown.
    images_dir : path or None
        The corpus's pictures, named by ``Entity.image``; None: entities with an
        image name get the demo drawing or the placeholder instead.
    seed : int
        The study seed; it decides the layout of entities without grid positions.

    Returns
    -------
    grid : list of int
        ``[columns, rows]``: at least 5 x 3 for TUNA positions; otherwise the
        smallest balanced grid with at most 5 columns.
    entities : list of dict
        One ``{"id", "image", "x", "y"}`` per entity, sorted by row (``y``) then
        column (``x``), both 1-based; ``image`` is a file name, a key of
        *pictures*.
    pictures : dict of str to bytes
        File name -> bytes of every picture the entities show, in the order the
        entities are placed.

    Raises
    ------
    StimuliError
        With ``field="item <ID>"``: two entities share a grid cell, an image name
        is not a plain picture file name, a picture is not in *images_dir*, or two
        different pictures have the same file name.

    Examples
    --------
    >>> from stecflow.data.model import Domain, Entity, EntityAttribute, Item
    >>> def chair(i, x, colour):
    ...     attrs = {"type": "chair", "colour": colour, "size": "large",
    ...              "orientation": "front", "x-dimension": str(x),
    ...              "y-dimension": "2"}
    ...     return Entity(f"e{i}", i == 1,
    ...                   tuple(EntityAttribute(k, v) for k, v in attrs.items()))
    >>> item = Item("t1", Domain((chair(1, 3, "red"), chair(2, 1, "blue"))), "f")
    >>> grid, entities, pictures = scene(item, None, seed=1)
    >>> grid
    [5, 3]
    >>> entities[0]
    {'id': 'e2', 'image': 'chair-blue-large-front.svg', 'x': 1, 'y': 2}
    >>> sorted(pictures) == sorted(e["image"] for e in entities)
    True
    """
    images = Path(images_dir) if images_dir is not None else None
    grid, placed = _layout(item, seed)
    entities: list[dict[str, Any]] = []
    pictures: dict[str, bytes] = {}
    for entity, x, y in placed:
        name, data = _entity_picture(entity, images, item.id)
        if pictures.setdefault(name, data) != data:
            raise StimuliError(
                f"two different pictures are both called {name}",
                field=f"item {item.id}",
            )
        entities.append({"id": entity.id, "image": name, "x": x, "y": y})
    entities.sort(key=lambda e: (e["y"], e["x"]))
    return grid, entities, pictures


# --------------------------------------------------------------------------- pictures


def _appearance(entity: Entity) -> dict[str, str]:
    return {a.name: a.value for a in entity.attributes if a.name not in _LOCATION}


def _demo_svg(entity: Entity) -> tuple[str, bytes] | None:
    """The demo corpus's drawing of *entity*, if its attributes fit the vocabulary."""
    appearance = _appearance(entity)
    kind = "person" if appearance.get("type") == "person" else "furniture"
    if any(key not in appearance for key in _DEMO_KEYS[kind]):
        return None
    try:
        return image_name(appearance), render_svg(appearance).encode("utf-8")
    except (KeyError, ValueError):
        return None


def _placeholder_svg(entity: Entity) -> tuple[str, bytes]:
    """A labelled placeholder for an entity without a picture."""
    lines = [
        f"{a.name}: {a.value}" for a in entity.attributes if a.name not in _LOCATION
    ]
    shown = lines[:7] + (["..."] if len(lines) > 7 else [])
    body = [
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" '
        'width="100" height="100" role="img">',
        f"<title>{html.escape(entity.id)}</title>",
        '<rect x="2" y="2" width="96" height="96" fill="#f4f4f4" stroke="#888888" '
        'stroke-dasharray="4 3"/>',
        '<text x="50" y="14" font-family="sans-serif" font-size="10" '
        f'text-anchor="middle" fill="#222222">{html.escape(entity.id)}</text>',
    ]
    for row, text in enumerate(shown):
        body.append(
            f'<text x="6" y="{26 + 10 * row}" font-family="sans-serif" font-size="7" '
            f'fill="#444444">{html.escape(text[:28])}</text>'
        )
    body.append("</svg>")
    data = ("\n".join(body) + "\n").encode("utf-8")
    return f"placeholder-{hashlib.sha256(data).hexdigest()[:16]}.svg", data


def _entity_picture(
    entity: Entity, images_dir: Path | None, item_id: str
) -> tuple[str, bytes]:
    """Return (file name, bytes) of the picture shown for *entity*."""
    if entity.image:
        name = Path(entity.image).name
        if not _IMAGE_NAME.match(name) or name != entity.image:
            raise StimuliError(
                f"entity {entity.id}: image {entity.image!r} must be a plain file name "
                "(letters, digits, '.', '_', '-') ending in .svg, .png, .jpg, .gif "
                "or .webp",
                field=f"item {item_id}",
            )
        if images_dir is not None:
            path = images_dir / name
            if not path.is_file():
                raise StimuliError(
                    f"entity {entity.id}: picture {name} is not in {images_dir}; "
                    "give the corpus's images folder (config data.images)",
                    field=f"item {item_id}",
                )
            return name, path.read_bytes()
    demo = _demo_svg(entity)
    if demo is not None:
        return demo
    return _placeholder_svg(entity)


# --------------------------------------------------------------------------- layout


def _grid_position(entity: Entity) -> tuple[int, int] | None:
    x, y = entity.value_of("x-dimension"), entity.value_of("y-dimension")
    if x is None or y is None or not x.isdigit() or not y.isdigit():
        return None
    if int(x) < 1 or int(y) < 1:
        return None
    return int(x), int(y)


def _order_key(seed: int, item_id: str, entity_id: str) -> str:
    """Sort key of an entity in a drawn layout (changing it changes every study)."""
    text = "\x1f".join(map(str, (seed, "layout", item_id, entity_id)))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _layout(item: Item, seed: int) -> tuple[list[int], list[tuple[Entity, int, int]]]:
    """Place the entities of *item* on a grid: ``([columns, rows], placements)``.

    TUNA's ``x-dimension`` (1-5) and ``y-dimension`` (1-3) are used when every
    entity has them; otherwise the entities are put in a balanced grid in an order
    drawn from the seed and the item ID (never the document order, which often
    puts the target first).
    """
    entities = list(item.domain.entities)
    positions = [_grid_position(e) for e in entities]
    if all(p is not None for p in positions):
        cells = [p for p in positions if p is not None]
        if len(set(cells)) != len(cells):
            raise StimuliError(
                "two entities share a grid cell (x-dimension, y-dimension)",
                field=f"item {item.id}",
            )
        columns = max(5, *(x for x, _ in cells))
        rows = max(3, *(y for _, y in cells))
        placed = [(e, p[0], p[1]) for e, p in zip(entities, cells, strict=True)]
        return [columns, rows], placed
    rows = math.ceil(len(entities) / 5)
    columns = math.ceil(len(entities) / rows)
    order = sorted(entities, key=lambda e: _order_key(seed, item.id, e.id))
    placed = [(e, k % columns + 1, k // columns + 1) for k, e in enumerate(order)]
    return [columns, rows], placed

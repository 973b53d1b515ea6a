"""How a text study (``text_rating``, ``text_preference``) shows a REG item's input.

The grid kinds (``rating``, ``identification``) draw a REG item's domain as a
grid of pictures beside the description. A text study's page shows an item's
input as text, triples, a table of fields or a sanitised HTML snippet
(:mod:`stecflow.studies.text_input`), never pictures; so the REG tasks give it
the same grid in words (:func:`domain_input`): an HTML table of the grid's rows
and columns, each occupied cell naming its entity in plain words (the words of
the demo pictures' titles, :func:`~stecflow.tasks.reg.pictures.describe_appearance`,
else the entity's attributes as ``name: value``), the target's cell marked
"TARGET" and highlighted, as the rating study highlights the target's picture.
The layout is the pictures' (:func:`stecflow.tasks.reg.scene._layout`: TUNA's
x/y dimensions, else a seeded balanced grid), so the same item shows the same
arrangement in both kinds of study.

May import: :mod:`stecflow.core`, :mod:`stecflow.data`.
"""

from __future__ import annotations

import html
from typing import Any

from stecflow.data.model import Entity, Item
from stecflow.tasks.reg.pictures import describe_appearance
from stecflow.tasks.reg.scene import _LOCATION, _layout

__all__ = ["domain_input", "entity_words"]


def entity_words(entity: Entity) -> str:
    """An entity in plain words: the demo pictures' title when its attributes
    fit their vocabulary, else ``name: value`` of each attribute but location.

    >>> from stecflow.data.model import Entity, EntityAttribute
    >>> def e(**a):
    ...     return Entity("e1", True, tuple(EntityAttribute(*kv) for kv in a.items()))
    >>> entity_words(e(type="fan", colour="grey", size="small", orientation="back"))
    'small grey fan, seen from the back'
    >>> entity_words(e(type="lamp", colour="gold"))
    'type: lamp, colour: gold'
    """
    appearance = {a.name: a.value for a in entity.attributes if a.name not in _LOCATION}
    try:
        return describe_appearance(appearance)
    except KeyError:  # not the demo vocabulary: its attributes as they are
        return ", ".join(f"{k}: {v}" for k, v in appearance.items()) or entity.id


def domain_input(item: Item, seed: int) -> dict[str, Any]:
    """A REG item's domain as a text study shows it: ``{"html": <table>}``.

    One table row per grid row, one cell per column; an empty cell is left
    blank; the target's cell reads ``TARGET: <words>`` in ``<mark><strong>``.
    Deterministic (the layout depends only on the item and *seed*).

    >>> from stecflow.data.model import Domain, Entity, EntityAttribute, Item
    >>> def chair(i, x, colour):
    ...     a = {"type": "chair", "colour": colour, "size": "large",
    ...          "orientation": "front", "x-dimension": str(x), "y-dimension": "1"}
    ...     return Entity(f"e{i}", i == 1,
    ...                   tuple(EntityAttribute(k, v) for k, v in a.items()))
    >>> item = Item("t1", Domain((chair(1, 2, "red"), chair(2, 1, "blue"))), "f")
    >>> snippet = domain_input(item, 1)["html"]
    >>> "<td><mark><strong>TARGET: large red chair, facing the viewer" in snippet
    True
    >>> snippet.count("<tr>")
    3
    """
    (columns, rows), placed = _layout(item, seed)
    cells: dict[tuple[int, int], Entity] = {(x, y): e for e, x, y in placed}
    lines = [
        "<table>",
        "<caption>The entities on the grid, row by row; the target is marked"
        " TARGET</caption>",
        "<tbody>",
    ]
    for y in range(1, rows + 1):
        row = []
        for x in range(1, columns + 1):
            entity = cells.get((x, y))
            if entity is None:
                row.append("<td></td>")
                continue
            words = html.escape(entity_words(entity))
            row.append(
                f"<td><mark><strong>TARGET: {words}</strong></mark></td>"
                if entity.is_target
                else f"<td>{words}</td>"
            )
        lines.append("<tr>" + "".join(row) + "</tr>")
    lines += ["</tbody>", "</table>"]
    return {"html": "\n".join(lines)}

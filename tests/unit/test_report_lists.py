"""Long lists in the report are counted in the text and listed in a collapsed block.

The b5-ref corpus has 152 speakers, each a reference set of 11 or 12 scenes; the
overview used to list them all in one table note.
"""

from __future__ import annotations

import re

import jinja2

from stecflow.report.methods import _systems_cell
from stecflow.report.overview import (
    LONG_LIST,
    reference_sets_details,
    reference_sets_note,
)
from tests.conftest import REPO

TEMPLATES = REPO / "workflow" / "templates" / "report"

# 152 speakers: speaker-1 and speaker-77 described 11 scenes, the others 12
SPEAKERS = [(f"speaker-{i}", 11 if i in (1, 77) else 12) for i in range(1, 153)]


def render_block(block: dict) -> str:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True
    )
    macros = env.from_string('{% import "_macros.html.j2" as m %}{{ m.block(b) }}')
    return macros.render(b=block)


def test_many_reference_sets_are_counted_in_the_note():
    assert reference_sets_note(SPEAKERS) == (
        "Reference sets: 152 (150 with 12 items, 2 with 11 items),"
        " listed under the table."
    )


def test_many_reference_sets_are_listed_in_a_collapsed_block():
    block = reference_sets_details(SPEAKERS)
    assert block["kind"] == "details"
    assert block["summary"] == "The 152 reference sets"
    (listing,) = block["blocks"]
    terms = [(item["term"], item["text"].split(", ")) for item in listing["items"]]
    assert [t for t, _ in terms] == ["12 items (150)", "11 items (2)"]
    twelve = terms[0][1]
    assert len(twelve) == 150
    # numbered IDs in their numeric order, not as strings sort
    assert twelve[:10] == [f"speaker-{i}" for i in range(2, 12) if i != 77]
    assert twelve.index("speaker-9") < twelve.index("speaker-10")
    assert twelve[-1] == "speaker-152"
    assert terms[1][1] == ["speaker-1", "speaker-77"]
    html = render_block(block)
    assert re.search(r"<details>\s*<summary>The 152 reference sets</summary>", html)
    body = html.split("<summary>", 1)[1]
    assert body.count("speaker-") == 152
    assert "</details>" in html and html.index("speaker-152") < html.index("</details>")


def test_analysis_systems_counted_when_many():
    few = [f"sys-{i}" for i in range(LONG_LIST)]
    assert _systems_cell(few).text == ", ".join(few)
    many = [f"sys-{i}" for i in range(LONG_LIST + 1)]
    cell = _systems_cell(many)
    assert cell.text == "21 systems (listed in the CSV download)"
    assert cell.csv_values(1) == (", ".join(many),)

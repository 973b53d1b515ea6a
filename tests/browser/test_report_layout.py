"""The demo campaign's report on a phone, on a laptop and on paper.

On a 400 px wide phone and a 1366 x 768 laptop the page never scrolls sideways
(wide tables scroll inside their own box), nothing overlaps the table of
contents and its titles wrap under their own first word. On desktop screens
(1366 and 1920 px wide) no table scrolls at all: every one fits its box. Printed
whole (chromium's print media, then a PDF; the page's box "Print the results
only" unticked), every table fits the printable width of an A4 page (210 mm less
the stylesheet's two 15 mm margins, at 96 px per inch), and the PDF holds the
last column header of the widest table; the results-only print (the default)
leaves out the section "Submissions" and collapsed blocks' contents, and is
far shorter (demo: 29 pages, 148 whole).

The report is the one tests/browser/reportkit.py builds (the demo campaign run
once per session by the workflow).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.reportkit import Watched

pytestmark = pytest.mark.workflow

#: The viewports the report must fit: a phone and a laptop.
VIEWPORTS = [(400, 800), (1366, 768)]
#: Desktop widths at which no table may scroll in its box (issue 39: the
#: headline table was cut by 32 px at both).
DESKTOPS = [(1366, 768), (1920, 1080)]
#: A4 less the @page margins (15 mm each side) of report.css, in CSS px (96 dpi).
PRINT_WIDTH = int((210 - 2 * 15) / 25.4 * 96)  # 680

# every table's box, its table and where they sit
TABLES_JS = """() => Array.from(document.querySelectorAll('table')).map(t => {
  const box = t.closest('.scroll') || t.parentElement;
  const b = box.getBoundingClientRect(), r = t.getBoundingClientRect();
  return {
    id: (t.closest('figure') || {}).id || '',
    box_left: b.left, box_right: b.right,
    box_client: box.clientWidth, box_scroll: box.scrollWidth,
    box_overflow: getComputedStyle(box).overflowX,
    table_scroll: t.scrollWidth, table_right: r.right,
    visible: t.checkVisibility(),
  };
})"""

# elements outside the table of contents whose box overlaps it
OVERLAP_JS = """() => {
  const toc = document.querySelector('nav.toc');
  const n = toc.getBoundingClientRect();
  const hits = [];
  for (const e of document.querySelectorAll('body *')) {
    if (toc.contains(e) || e.contains(toc)) continue;
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    if (r.left < n.right - 0.5 && r.right > n.left + 0.5
        && r.top < n.bottom - 0.5 && r.bottom > n.top + 0.5) {
      hits.push(e.tagName + '#' + e.id + '.' + e.className);
    }
  }
  return hits;
}"""

# each contents entry: where its lines start, and the places where a line
# ends other than at a space (a word, or a hyphenated ID, cut in two)
TOC_JS = """() => Array.from(document.querySelectorAll('nav.toc a')).map(a => {
  const range = document.createRange();
  range.selectNodeContents(a);
  const lines = [];
  for (const r of range.getClientRects()) {
    if (r.width < 1) continue;
    const last = lines[lines.length - 1];
    if (!last || r.top > last.top + 2) lines.push({top: r.top, left: r.left});
  }
  const chars = [];
  const walker = document.createTreeWalker(a, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.data.length; i++) {
      const r = document.createRange();
      r.setStart(node, i); r.setEnd(node, i + 1);
      const box = r.getBoundingClientRect();
      chars.push({c: node.data[i], top: box.width > 0 ? box.top : null});
    }
  }
  const text = chars.map(x => x.c).join('');
  const cut = [];
  let previous = null;
  chars.forEach((x, i) => {
    if (x.top === null) return;
    if (previous !== null && x.top > previous + 2 && !/\\s/.test(text[i - 1] || ' ')) {
      cut.push(text.slice(Math.max(0, i - 8), i) + '|' + text.slice(i, i + 8));
    }
    previous = x.top;
  });
  return {text, lefts: lines.map(l => Math.round(l.left)), cut};
})"""


@pytest.fixture
def report(chromium, demo) -> Iterator[Any]:  # noqa: F811
    """A factory of watched pages showing the demo report at a viewport size."""
    opened: list[Watched] = []

    def open_at(width: int, height: int) -> Watched:
        watched = Watched(chromium)
        opened.append(watched)
        watched.page.set_viewport_size({"width": width, "height": height})
        watched.page.set_default_timeout(30_000)
        watched.page.goto(demo["html"].as_uri())
        watched.page.wait_for_load_state("load")
        return watched

    yield open_at
    for watched in opened:
        watched.context.close()


@pytest.mark.parametrize(("width", "height"), VIEWPORTS)
def test_no_sideways_page_scroll(report, width, height):
    watched = report(width, height)
    page = watched.page
    assert page.evaluate("window.innerWidth") == width
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= width, f"the page is {wide} px wide in a {width} px window"
    assert page.evaluate("document.body.scrollWidth") <= width
    tables = page.evaluate(TABLES_JS)
    assert len(tables) > 20
    for t in tables:
        if not t["visible"]:  # inside a closed details block
            continue
        # the table's box lies within the viewport; a wider table scrolls in it
        assert t["box_left"] >= -0.5 and t["box_right"] <= width + 0.5, t
        if t["table_scroll"] > t["box_client"] + 1:
            assert t["box_overflow"] in ("auto", "scroll"), t
    watched.assert_clean()


@pytest.mark.parametrize(("width", "height"), VIEWPORTS)
def test_contents_not_overlapped_and_titles_not_split(report, width, height):
    page = report(width, height).page
    assert page.evaluate(OVERLAP_JS) == []
    entries = page.evaluate(TOC_JS)
    assert len(entries) > 30
    wrapped = [e for e in entries if len(e["lefts"]) > 1]
    if width == 400:
        assert wrapped, "long titles wrap on a phone"
    for entry in entries:
        # lines end at spaces only (no word or hyphenated ID cut in two), and
        # wrapped lines start under the title's first word (a hanging indent),
        # not under the number
        assert entry["cut"] == [], entry
        assert len(set(entry["lefts"])) <= 1, entry


@pytest.mark.parametrize(("width", "height"), DESKTOPS)
def test_no_table_overflows_on_a_desktop(report, width, height):
    watched = report(width, height)
    page = watched.page
    # the collapsed blocks too: their tables are as wide when opened
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    tables = page.evaluate(TABLES_JS)
    assert len(tables) > 20
    assert all(t["visible"] for t in tables)
    over = [
        (t["id"], t["box_scroll"], t["box_client"])
        for t in tables
        if t["box_scroll"] > t["box_client"] or t["table_scroll"] > t["box_client"]
    ]
    assert over == [], over
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    watched.assert_clean()


def _pdf_pages(page: Any) -> tuple[int, str]:
    """The number of pages and the text of the page printed as PDF."""
    pdf = page.pdf(prefer_css_page_size=True, print_background=True)
    assert pdf.startswith(b"%PDF-")
    pypdf = pytest.importorskip("pypdf", reason="the PDF's text needs pypdf")
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    return len(reader.pages), "\n".join(p.extract_text() for p in reader.pages)


#: Every number in a numeric cell whose characters lie on more than one line.
SPLIT_NUMBERS_JS = """() => {
  const split = [];
  for (const cell of document.querySelectorAll('td.a-r, table.grid td.n')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.textContent.matchAll(/[-+−]?[0-9][0-9.,]*/g)) {
        if (m[0].length < 2) continue;
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()]
          .filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (tops.size > 1) split.push(m[0] + ' in ' + cell.textContent.trim());
      }
    }
  }
  return split;
}"""


def _printed_tables(page: Any) -> list[dict[str, Any]]:
    page.emulate_media(media="print")
    page.set_viewport_size({"width": PRINT_WIDTH, "height": 1000})
    return page.evaluate(TABLES_JS)


def test_printed_tables_fit_the_page(report, tmp_path):
    watched = report(1366, 768)
    page = watched.page
    widest = page.evaluate(
        """() => {
          let best = null;
          for (const t of document.querySelectorAll('table')) {
            if (!best || t.scrollWidth > best.scrollWidth) best = t;
          }
          const head = best.querySelector('thead tr:last-child th:last-child');
          return {id: best.closest('figure').id, width: best.scrollWidth,
                  last: head.textContent.trim()};
        }"""
    )
    assert widest["width"] > PRINT_WIDTH  # wider than the page on screen
    # the results-only print (the default): no section "Submissions", collapsed
    # blocks as their summary line
    assert page.locator("#print-results-only").is_checked()
    page.emulate_media(media="print")
    assert not page.locator("#submissions").is_visible()
    assert not page.locator("#print-results-only").is_visible()
    short, short_text = _pdf_pages(page)
    assert "The results only: printed without section" in short_text
    # (pypdf reads ligatures as such: "ﬀ" in "differ", so no "ff" below)
    assert "Not printed: Every score" in short_text
    assert short_text.count("Not printed: Which systems di") >= 10
    assert "The other 102 items of" not in short_text
    # everything: the box unticked on screen, then printed
    page.emulate_media(media="screen")
    page.locator("#print-results-only").uncheck()
    tables = _printed_tables(page)
    clipped = [
        t
        for t in tables
        if t["table_scroll"] > t["box_client"] + 1
        or t["table_right"] > PRINT_WIDTH + 1
        or t["box_scroll"] > t["box_client"] + 1
    ]
    assert clipped == [], [t["id"] for t in clipped]
    # no number is split across two lines ("7.0" printed as "7." and "0")
    split = page.evaluate(SPLIT_NUMBERS_JS)
    assert split == [], split[:10]
    # tables in collapsed blocks are printed too
    assert all(t["visible"] for t in tables)
    # no scrolling box on paper, no navigation
    assert {t["box_overflow"] for t in tables} == {"visible"}
    assert not page.locator("nav.toc").is_visible()
    assert page.locator("#submissions").is_visible()
    pdf = page.pdf(prefer_css_page_size=True, print_background=True)
    assert pdf.startswith(b"%PDF-")
    (tmp_path / "report.pdf").write_bytes(pdf)
    pypdf = pytest.importorskip("pypdf", reason="the PDF's text needs pypdf")
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    # the results-only print is far shorter (demo: 29 pages, 148 whole)
    assert short * 3 < len(reader.pages), (short, len(reader.pages))
    # A4 portrait, as the stylesheet asks (210 x 297 mm = 595.3 x 841.9 pt)
    box = reader.pages[0].mediabox
    assert abs(float(box.width) - 595.3) < 1.5, box
    assert abs(float(box.height) - 841.9) < 1.5, box
    text = "\n".join(p.extract_text() for p in reader.pages)
    assert widest["last"] and widest["last"] in text, widest
    assert "Table 1:" in text
    assert "Printed whole: every section" in text

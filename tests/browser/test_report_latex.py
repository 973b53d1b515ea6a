"""Every LaTeX table the demo report offers compiles with pdflatex and xelatex.

The report embeds each table's LaTeX download as a ``data:`` URI on its link of
class ``latex``; each is put into a minimal document (``article`` with
``booktabs``) and compiled by both engines (tests/unit/test_report_latex.py).
Issue 39 found a raw ``Δ`` in every "Which systems differ" table, which stops
pdflatex. The report is the one tests/browser/reportkit.py builds; the test
skips, naming the Debian packages, without pdflatex and xelatex.
"""

from __future__ import annotations

import pytest

from tests.unit.test_report_latex import (
    TEX_SKIP,
    compile_tables,
    latex_downloads,
    tex_missing,
)

pytestmark = pytest.mark.workflow


def test_every_latex_download_compiles(demo, tmp_path):
    if tex_missing():
        pytest.skip(TEX_SKIP)
    tables = latex_downloads(demo["html"].read_text(encoding="utf-8"))
    assert len(tables) > 40, sorted(tables)
    pairs = [name for name in tables if "-pairs-" in name]
    assert pairs, sorted(tables)  # the "Which systems differ" tables
    for name in pairs:
        assert r"$\Delta$" in tables[name] and "Δ" not in tables[name], name
    # the demo's tables are ASCII: none needs xelatex or the T1 encoding
    assert [n for n, t in tables.items() if not t.isascii()] == []
    assert compile_tables(tables, tmp_path) == {}

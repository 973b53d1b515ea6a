"""The report's LaTeX downloads compile with pdflatex and with xelatex.

:func:`stecflow.report.latex.latex_escape` writes every character a table can
hold as ASCII LaTeX (symbols, Greek, accented Latin letters); what it cannot
(Japanese, Cyrillic) it keeps, and the table's header then says it needs
xelatex. The compiling tests skip, naming the Debian packages, without TeX.
:func:`latex_downloads` and :func:`compile_tables` serve
tests/browser/test_report_latex.py too (every table of the built demo report).
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path
from urllib.parse import unquote

import pytest

from stecflow.report.latex import LATEX_CHARACTERS, latex_escape, latex_needs
from stecflow.report.tables import Cell, Column, Row, Table

#: The Debian packages the compiling tests need: pdflatex and LaTeX's base
#: (texlive-latex-base), booktabs (texlive-latex-recommended), xelatex
#: (texlive-xetex), Latin Modern in T1 for pdflatex (lmodern).
TEX_PACKAGES = "texlive-latex-base texlive-latex-recommended texlive-xetex lmodern"
TEX_SKIP = (
    "compiling the report's LaTeX needs pdflatex and xelatex: apt-get install -y"
    f" --no-install-recommends {TEX_PACKAGES}"
)
ENGINES = ("pdflatex", "xelatex")

_LINK = re.compile(r'<a class="latex" download="([^"]+)" href="([^"]+)"')


def tex_missing() -> bool:
    """True when an engine or booktabs is not installed."""
    if any(shutil.which(e) is None for e in ENGINES):
        return True
    found = subprocess.run(
        ["kpsewhich", "booktabs.sty", "lmodern.sty"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    return len(found) < 2


def latex_downloads(page: str) -> dict[str, str]:
    """Every LaTeX download of a report page: file name -> the file's text
    (the ``data:`` URIs of the links of class ``latex``)."""
    out = {}
    for name, href in _LINK.findall(page):
        head, _, data = html.unescape(href).partition(",")
        assert head == "data:application/x-tex;charset=utf-8", head
        out[html.unescape(name)] = unquote(data, encoding="utf-8", errors="strict")
    return out


def _document(engine: str, tables: list[str]) -> str:
    needs = "\n".join(tables)
    preamble = [r"\documentclass{article}"]
    if engine == "pdflatex" and r"\usepackage[T1]{fontenc}" in needs:
        preamble += [r"\usepackage[T1]{fontenc}", r"\usepackage{lmodern}"]
    preamble += [r"\usepackage{booktabs}", r"\begin{document}"]
    body = [t + "\\clearpage\n" for t in tables]  # no pile of unplaced floats
    return "\n".join(preamble) + "\n" + "".join(body) + "\\end{document}\n"


def _run(engine: str, folder: Path, name: str, text: str) -> str | None:
    """Compile *text* as *name*.tex; None, or the log's errors."""
    (folder / f"{name}.tex").write_text(text, encoding="utf-8")
    done = subprocess.run(
        [engine, "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"],
        cwd=folder,
        capture_output=True,
        check=False,
        timeout=300,
    )
    if done.returncode == 0 and (folder / f"{name}.pdf").is_file():
        return None
    log = (folder / f"{name}.log").read_text(encoding="utf-8", errors="replace")
    errors = [line for line in log.splitlines() if line.startswith("!")]
    return "\n".join(errors) or log[-2000:]


def compile_tables(tables: dict[str, str], folder: Path) -> dict[str, str]:
    """Compile *tables* (name -> LaTeX) in a minimal document with each engine
    (pdflatex only those that do not say they need xelatex); the failures, as
    "engine name" -> LaTeX's errors. All tables go into one document per
    engine; only when it fails is each table compiled alone, to name it."""
    failures = {}
    for engine in ENGINES:
        chosen = {
            n: t
            for n, t in tables.items()
            if engine == "xelatex" or "needs xelatex" not in t
        }
        if not chosen:
            continue
        whole = _run(
            engine, folder, f"all-{engine}", _document(engine, [*chosen.values()])
        )
        if whole is None:
            continue
        named = {}
        for n, (name, text) in enumerate(chosen.items()):
            error = _run(engine, folder, f"{engine}-{n}", _document(engine, [text]))
            if error:
                named[f"{engine} {name}"] = error
        failures.update(named or {engine: whole})
    return failures


# -- escaping -----------------------------------------------------------------

#: Text a table can hold: the report's symbols, Greek, accented Latin letters.
EVERY_KIND = (
    "Δ ± × ÷ – — − … · • † ‡ ² ³ ° µ ≤ ≥ ≠ ≈ ∞ → ← “quoted” ‘q’ ¿¡ § © "
    "αβγδεζηθικλμνξοπρςστυφχψω ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ ά ΐ Ά "
    "Gödel Łódź naïve façade Dvořák Erdős Crème brûlée ñ å Ångström ß æ Æ œ ø "
    "Ørsted ǘ ı ḍ ī ă ė ŭ z̧ Ş ţ 50% #1 a_b {x} ~ ^ \\ & $ | < >"
)
#: Letters pdflatex sets in the T1 encoding only.
T1_LETTERS = "Wąs Gdańsk ð Ð þ Þ đ Đ ŋ «guillemets» ‹x›"


def test_escaped_text_is_ascii():
    escaped = latex_escape(EVERY_KIND + " " + T1_LETTERS)
    assert escaped.isascii(), [c for c in escaped if not c.isascii()]
    assert latex_escape("Δ BLEU") == r"$\Delta$ BLEU"
    assert latex_escape("é") == r"\'{e}" and latex_escape("ï") == r"\"{\i}"
    assert latex_escape("±0.1–0.2") == r"$\pm$0.1--0.2"
    # every mapped character and every precomposed Latin letter with one of
    # the supported accents comes out as ASCII
    latin = [
        chr(c)
        for c in range(0xC0, 0x250)
        if unicodedata.category(chr(c)).startswith("L")
    ]
    for char in [*LATEX_CHARACTERS, *latin]:
        escaped = latex_escape(char)
        if escaped.isascii():
            continue
        assert escaped == char, (char, escaped)
        assert latex_needs(escaped), char


def test_needs_lines():
    assert latex_needs(latex_escape(EVERY_KIND)) == []
    assert latex_needs(latex_escape(T1_LETTERS)) == [
        r"needs \usepackage[T1]{fontenc} with pdflatex (letters only T1 has)"
    ]
    (japanese,) = latex_needs(latex_escape("評価 システム"))
    assert "xelatex" in japanese and "xeCJK" in japanese
    table = Table("t", "Кириллица", [Column("s", "System", align="l")], [])
    lines = table.to_latex().splitlines()
    assert lines[0] == r"% needs \usepackage{booktabs}"
    assert lines[1].startswith("% needs xelatex"), lines[1]


def _table(text: str) -> Table:
    words = text.split()
    return Table(
        "t-every-kind",
        "Every kind: " + text,
        [
            Column("s", "System " + words[0], align="l"),
            Column("v", words[1], group="All"),
        ],
        [Row((Cell(word), Cell("0.50", f"[{word}]", group="A"))) for word in words[2:]],
        [f"Note {text}."],
        latex_detail=True,
    )


@pytest.mark.skipif(tex_missing(), reason=TEX_SKIP)
def test_every_kind_of_character_compiles(tmp_path):
    tables = {
        "every-kind.tex": _table(EVERY_KIND).to_latex(),
        "t1.tex": _table(T1_LETTERS).to_latex(),
    }
    assert compile_tables(tables, tmp_path) == {}
    # the first compiles without T1 (the OT1 default), the second says it needs T1
    assert "fontenc" not in tables["every-kind.tex"]
    assert r"\usepackage[T1]{fontenc}" in tables["t1.tex"]
    # a raw non-ASCII character stops pdflatex (what issue 39 found: a raw Δ)
    raw = tables["every-kind.tex"].replace(r"$\Delta$", "Δ")
    failures = compile_tables({"raw.tex": raw}, tmp_path)
    assert list(failures) == ["pdflatex raw.tex"], failures
    assert "Unicode character Δ" in failures["pdflatex raw.tex"]

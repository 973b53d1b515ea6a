"""The library's layering, checked on the source (every import, lazy ones too).

The stage packages of ``src/stecflow`` are stacked as in docs/architecture.md: a
package imports only packages of lower layers (never one of its own layer, never
upwards), so the pipeline can be read bottom-up and no cycle can form. A study
kind's own code (``studykinds/<kind>/<role>.py``) counts as a module of the
stage its role names (:data:`ROLE_STAGE`). On top:

* the library never imports snakemake (the workflow calls the library, not the
  reverse);
* metrics and statistics know nothing of files or presentation: they import no
  stecflow module but ``stecflow.core.errors`` and no standard-library module
  that reads or writes files, and never call ``open``;
* the report is built from the files of the stages before it: of those stages it
  imports only descriptions (which metrics there are, how statistics are
  written, what a task is), never the code that computes them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "stecflow"

#: Layers, bottom up. A package may import the packages of lower layers only.
LAYERS = (
    ("core",),
    ("data", "serving"),
    ("metrics", "stats"),
    ("tasks",),
    # what a study kind is (plain declarations; their code is named, not imported)
    ("studykinds",),
    ("submissions", "baselines"),
    ("scoring", "studies", "demo"),
    # the archive describes the studies (its datasheet); the judgments read its
    # pseudonyms
    ("release",),
    ("judgments",),
    ("analysis",),
    ("report",),
    ("campaign",),
    # re-running a release runs the analyses and the report, and prepares the
    # test set as the campaign does
    ("rerun",),
    ("cli",),
)
LAYER = {package: n for n, packages in enumerate(LAYERS) for package in packages}

#: A kind's own code (``studykinds/<kind>/<role>[_<what>].py``) belongs to the
#: stage its role names, and is held to that stage's layer: its design and
#: stimuli to ``studies``, its merge, importers, measures and simulated
#: participants to ``judgments``, its analyses to ``analysis``, its report
#: section to ``report``. A stage's module may import a kind's module of its own
#: stage (or a lower one), as it imports its own package's modules.
ROLE_STAGE = {
    "setup": "studies",
    "design": "studies",
    "stimuli": "studies",
    "import": "judgments",
    "merge": "judgments",
    "measures": "judgments",
    "simulate": "judgments",
    "analyses": "analysis",
    "report": "report",
}

#: What the report may import from the stages whose files it reads.
REPORT_MAY_IMPORT = {
    "stecflow.scoring.specs",  # which metrics, their labels and signatures
    "stecflow.analysis.formatting",  # how statistics are written
    "stecflow.tasks.registry",  # how a task is named
    "stecflow.studykinds.registry",  # what a study kind is
}
FILE_MODULES = {"pathlib", "os", "io", "shutil", "glob", "tempfile", "zipfile", "csv"}


def _stage(parts: tuple[str, ...] | list[str]) -> str:
    """The package whose layer a module (its dotted name's parts after
    ``stecflow``) is held to: its own, or for a kind's module, its role's."""
    if parts[0] == "studykinds" and len(parts) >= 3 and parts[2] != "__init__":
        role = parts[2].split("_")[0]
        assert role in ROLE_STAGE, (
            f"stecflow.{'.'.join(parts)}: a kind's module is named by its role"
            f" ({', '.join(ROLE_STAGE)}), optionally followed by _<what>"
        )
        return ROLE_STAGE[role]
    return parts[0]


def _package(path: Path) -> str:
    return _stage(path.relative_to(SRC).with_suffix("").parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import in *path*, relative ones resolved."""
    module = ".".join(("stecflow", *path.relative_to(SRC).with_suffix("").parts))
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[: -node.level]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            found.append((node.lineno, name))
            if name == "stecflow":  # from stecflow import x
                found += [(node.lineno, f"stecflow.{a.name}") for a in node.names]
    return found


MODULES = sorted(p for p in SRC.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_package_has_a_layer_and_says_what_it_may_import():
    packages = {_package(p) for p in MODULES} - {"__init__"}
    assert packages == set(LAYER)
    for package in packages:
        init = SRC / package / "__init__.py"
        if init.exists():
            assert "May import:" in ast.get_docstring(ast.parse(init.read_text())), (
                package
            )


def _not_downwards(package: str, imports: list[tuple[int, str]]) -> list[str]:
    """The imports of a module of *package* that do not go to a lower layer."""
    wrong = []
    for line, name in imports:
        parts = name.split(".")
        if parts[0] == "snakemake":
            wrong.append(f"line {line}: {name} (the library never imports snakemake)")
        if parts[0] != "stecflow" or len(parts) < 2 or parts[1] == "__version__":
            continue
        target = _stage(parts[1:])
        if target == package:
            continue
        if LAYER[target] >= LAYER[package]:
            wrong.append(
                f"line {line}: {name} ({target} is not below {package}; see"
                " LAYERS in this test and docs/architecture.md)"
            )
    return wrong


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_imports_go_downwards_only(path):
    package = _package(path)
    if package != "__init__":
        wrong = _not_downwards(package, _imports(path))
        assert not wrong, f"{path.relative_to(SRC)}:\n" + "\n".join(wrong)


def test_the_check_catches_what_it_forbids():
    """The rule is not vacuous: upward, same-layer and snakemake imports fail."""
    assert _not_downwards("metrics", [(3, "stecflow.report.tables")]) == [
        "line 3: stecflow.report.tables (report is not below metrics; see LAYERS in"
        " this test and docs/architecture.md)"
    ]
    assert _not_downwards("scoring", [(1, "stecflow.studies.setup")])
    assert _not_downwards("data", [(1, "snakemake.io")])
    assert not _not_downwards("report", [(1, "stecflow.scoring.specs")])
    # a kind's module is held to its role's stage, both ways
    kind = "stecflow.studykinds.situated_identification"
    assert _not_downwards("judgments", [(1, f"{kind}.report")])
    assert not _not_downwards("report", [(1, f"{kind}.report")])
    assert not _not_downwards("report", [(1, f"{kind}.merge_tables")])
    assert _stage(["studykinds", "situated_identification", "merge_join"]) == (
        "judgments"
    )
    assert _stage(["studykinds", "situated_identification"]) == "studykinds"
    with pytest.raises(AssertionError, match="named by its role"):
        _stage(["studykinds", "situated_identification", "helpers"])


@pytest.mark.parametrize(
    "path",
    [p for p in MODULES if _package(p) in ("metrics", "stats")],
    ids=lambda p: str(p.relative_to(SRC)),
)
def test_metrics_and_statistics_know_nothing_of_files(path):
    package = _package(path)
    for line, name in _imports(path):
        if name.startswith("stecflow.") and not name.startswith(f"stecflow.{package}"):
            assert name == "stecflow.core.errors", f"line {line}: imports {name}"
        assert name.split(".")[0] not in FILE_MODULES | {"jinja2", "yaml", "lxml"}, (
            f"line {line}: imports {name}"
        )
    calls = [
        node.lineno
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "open"
    ]
    assert not calls, f"open() on lines {calls}"


@pytest.mark.parametrize(
    "path",
    [p for p in MODULES if _package(p) == "report"],
    ids=lambda p: str(p.relative_to(SRC)),
)
def test_the_report_imports_descriptions_not_computations(path):
    for line, name in _imports(path):
        parts = name.split(".")
        if parts[0] != "stecflow" or len(parts) < 2:
            continue
        if parts[1] == "__version__" or _stage(parts[1:]) in (
            "core",
            "data",
            "metrics",
            "report",
        ):
            continue
        assert name in REPORT_MAY_IMPORT, f"line {line}: the report imports {name}"


def test_every_rule_names_the_library_function_it_runs():
    """A newcomer finds a rule's code in one hop: ``# code: module.function``."""
    import importlib
    import re

    rules = SRC.parents[1] / "workflow" / "rules"
    seen = 0
    for smk in sorted(rules.glob("*.smk")):
        text = smk.read_text(encoding="utf-8")
        for match in re.finditer(r"^(?:# code: (\S+) .*\n)?rule (\w+):", text, re.M):
            code, rule = match.groups()
            assert code, f"{smk.name}: rule {rule} has no '# code:' line above it"
            module, function = code.rsplit(".", 1)
            assert callable(getattr(importlib.import_module(module), function)), code
            seen += 1
    assert seen >= 13

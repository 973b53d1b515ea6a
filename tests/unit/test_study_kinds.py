"""The study-kind seam: every kind is declared once and the stages ask the
registry (:mod:`stecflow.studykinds`).

* Conformance: every registered kind's declaration is complete and its hooks
  import (the checks lm-eval runs over every registered task).
* The config schema's ``task`` enum is the registry's: a kind registered from
  outside the library is accepted by the config check, an unknown one refused
  with the kinds there are.
* No module outside ``studykinds/`` names a kind: no string literal equal to
  a registered kind's name (docstrings aside), no import of a kind's own code
  (its package's modules); the check is shown to catch both.
"""

from __future__ import annotations

import ast
import copy
import importlib
from pathlib import Path

import pytest

from stecflow.core.errors import ConfigError
from stecflow.studykinds import registry
from stecflow.studykinds.base import EXCLUSION_RULES, FAMILIES, StudyKind
from tests.conftest import REPO

SRC = REPO / "src" / "stecflow"
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"
#: The roles every kind fills, and the one it may (its own design).
REQUIRED_HOOKS = ("stimuli", "simulate", "merge", "rated")
OPTIONAL_HOOKS = (
    "check",
    "design",
    "agreement",
    "report",
    "datasheet",
    "section",
    "tests",
    "responses",
    "keyed",
    "analyses",
    "measures",
)
#: A laptop's browser window (1366 x 768 screen): every kind's trials fit it.
LAPTOP = (1366, 657)


# ------------------------------------------------------------------ conformance


@pytest.mark.parametrize("name", registry.names())
def test_every_kind_is_declared_whole(name):
    kind = registry.get(name)
    assert kind.name == name
    assert kind.summary.endswith(".") and len(kind.summary) > 40
    assert kind.family in FAMILIES
    from stecflow.tasks import formats

    assert kind.data_formats and kind.data_formats <= set(formats.names())
    assert kind.needs.endswith(")")  # names the data.format it needs
    assert kind.n_systems[0] >= 1
    assert kind.n_systems[1] is None or kind.n_systems[1] >= kind.n_systems[0]
    assert set(kind.exclusion_rules) <= set(EXCLUSION_RULES)
    assert (kind.control is None) == (kind.control_expected is None)
    if kind.control is None:
        assert "controls_below" not in kind.exclusion_rules
    assert kind.reads in ("outputs.xml", "outputs", "decisions")
    assert (kind.reads == "decisions") == ("design" in kind.hooks)
    width, height = kind.min_window
    assert 360 <= width <= LAPTOP[0] and 400 <= height <= LAPTOP[1]
    measures = [m.name for m in kind.measures]
    assert len(measures) == len(set(measures))
    assert all(m.level in ("interval", "nominal") for m in kind.measures)
    # its own design, or designs of the shared machinery
    assert kind.designs or "design" in kind.hooks
    assert set(kind.hooks) <= {*REQUIRED_HOOKS, *OPTIONAL_HOOKS}
    for role in REQUIRED_HOOKS:
        assert role in kind.hooks, f"{name} has no {role} hook"
    from stecflow.release.heds import KindSheet

    for role in kind.hooks:
        found = registry.hook(name, role)
        if role == "datasheet":
            assert isinstance(found, KindSheet), name
        elif role == "tests":  # its own analysis tests, the ones it names
            from stecflow.analysis.registry import AnalysisTest

            assert all(isinstance(t, AnalysisTest) for t in found), name
            assert {t.name for t in found} == set(kind.tests), name
        else:
            assert callable(found), (name, role)


def test_a_built_in_kind_is_named_as_its_module_and_listed_in_order():
    assert registry.names()[:5] == (
        "rating",
        "identification",
        "situated_identification",
        "text_rating",
        "text_preference",
    )
    for module in registry.BUILT_IN:
        kind = importlib.import_module(module).KIND
        assert module.rsplit(".", 1)[1] == kind.name
    assert registry.in_family("text") == ("text_rating", "text_preference")


def test_config_keys_of_a_kind_are_keys_of_a_study_entry():
    import yaml

    schema = yaml.safe_load(SCHEMA.read_text(encoding="utf-8"))
    keys = set(schema["properties"]["studies"]["items"]["properties"])
    for kind in registry.kinds():
        assert kind.config_keys <= keys, kind.name


def test_an_unknown_kind_is_refused_naming_the_kinds():
    with pytest.raises(ConfigError, match="not a study kind") as caught:
        registry.get("ranking")
    assert "text_preference" in caught.value.message
    with pytest.raises(ValueError, match="already registered"):
        registry.register(
            StudyKind(
                name="rating",
                summary="x",
                family="grid",
                data_formats=frozenset({"tuna"}),
                needs="x",
            )
        )


def test_a_declaration_refuses_what_cannot_be():
    base = dict(name="odd", summary="x", data_formats=frozenset({"text"}), needs="x")
    with pytest.raises(ValueError, match="family"):
        StudyKind(family="video", **base)
    with pytest.raises(ValueError, match="exclusion rules"):
        StudyKind(family="text", exclusion_rules=frozenset({"speed"}), **base)
    with pytest.raises(ValueError, match="control_expected"):
        StudyKind(family="text", control="degraded", **base)


# -------------------------------------------------------- the schema's enum


def _config(task: str) -> dict:
    return {
        "campaign": {"id": "mini", "title": "Mini", "tasks": ["text_generation"]},
        "data": {"testset": "test.jsonl", "format": "text"},
        "submissions": {"root": "submissions"},
        "studies": [
            {
                "id": "judge",
                "task": task,
                "systems": ["a/x", "b/y"],
                "subjects": 4,
                "seed": 1,
            }
        ],
    }


def test_the_schemas_kinds_are_the_registrys(tmp_path):
    from stecflow.campaign import validate_config

    with pytest.raises(ConfigError) as caught:
        validate_config(_config("plausibility"), SCHEMA)
    assert caught.value.field == "config.studies[0].task"
    assert "'text_preference'" in caught.value.message
    kind = StudyKind(
        name="plausibility",
        summary="Participants say whether a text is plausible, yes or no.",
        family="text",
        data_formats=frozenset({"text"}),
        needs="a text test set (data.format: text)",
    )
    registry.register(kind)
    try:
        validate_config(_config("plausibility"), SCHEMA)  # accepted now
        # a study entry is checked against the declaration: no criteria here
        from stecflow.studies.setup import study_specs

        [spec] = study_specs(_config("plausibility"))
        assert spec["design"] == "latin_square" and spec["variant"] is None
        entry = copy.deepcopy(_config("plausibility"))
        entry["studies"][0]["variant"] = "spoken"
        with pytest.raises(ConfigError, match="plausibility studies have no variant"):
            study_specs(entry)
    finally:
        registry.unregister("plausibility")
    with pytest.raises(ConfigError):
        validate_config(_config("plausibility"), SCHEMA)


def _installed(root: Path, entry: str) -> None:
    """A distribution on ``sys.path`` whose entry point offers *entry*."""
    info = root / "stecflow_kinds-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: k\nVersion: 1\n")
    (info / "entry_points.txt").write_text(f"[stecflow.study_kinds]\n{entry}\n")


@pytest.fixture
def fresh_plugins(monkeypatch, tmp_path):
    """No installed kind loaded yet; *tmp_path* on ``sys.path``."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_PLUGINS", [])
    yield tmp_path
    registry.unregister("plausibility")


def test_an_installed_kind_is_loaded_when_a_config_names_it(fresh_plugins):
    from stecflow.campaign import validate_config

    _installed(fresh_plugins, "plausibility = tests.kinds.plausibility:KIND")
    assert not registry.is_kind("no_such_kind")
    validate_config(_config("plausibility"), SCHEMA)  # found, then accepted
    assert registry.get("plausibility").responses[0].choices == ("yes", "no")
    assert registry.load_plugins() == ("plausibility",)
    assert "plausibility" in registry.names()


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("plausibility = tests.kinds.no_such_module:KIND", "cannot be loaded"),
        ("plausibility = tests.kinds.plausibility:HERE", "not a stecflow.studykinds"),
        ("plausible = tests.kinds.plausibility:KIND", "declares a kind named"),
    ],
)
def test_a_broken_installed_kind_is_named_in_the_error(fresh_plugins, entry, message):
    _installed(fresh_plugins, entry)
    with pytest.raises(ConfigError, match=message) as caught:
        registry.get("plausibility")
    assert entry.split(" = ")[1] in caught.value.message
    assert caught.value.field == "task"


# ------------------------------------------------------------------ the ratchet


def kind_names_in(source: str, names: set[str]) -> list[int]:
    """The lines of the string literals of *source* equal to one of *names*,
    docstrings aside."""
    tree = ast.parse(source)
    docstrings = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef) and body:
            first = body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value in names
        and id(node) not in docstrings
    )


def _kind_imports(tree: ast.AST, names: set[str]) -> list[int]:
    """The lines of *tree*'s imports of a kind's own code
    (``stecflow.studykinds.<kind>`` and its modules): only the registry and
    the base may be imported from outside the kinds."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            modules = [node.module or ""]
            if node.module == "stecflow.studykinds":
                modules = [f"stecflow.studykinds.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        else:
            continue
        parts = [m.split(".") for m in modules]
        if any(
            p[:2] == ["stecflow", "studykinds"] and p[2:3] and p[2] in names
            for p in parts
        ):
            found.append(node.lineno)
    return sorted(found)


def _counts(root: Path) -> dict[str, list[int]]:
    """Per module outside ``studykinds/``: the lines naming a kind (a string
    literal equal to its name, docstrings aside) or importing a kind's code."""
    names = set(registry.names())
    found = {}
    for path in sorted(root.rglob("*.py")):
        module = path.relative_to(root).as_posix()
        if module.startswith("studykinds/") or "__pycache__" in module:
            continue
        source = path.read_text(encoding="utf-8")
        lines = kind_names_in(source, names) + _kind_imports(ast.parse(source), names)
        if lines:
            found[module] = sorted(lines)
    return found


def test_no_module_outside_the_kinds_names_a_kind():
    """A kind's name, and its code, are its package's alone: every stage asks
    the registry (its declaration, a hook) instead."""
    found = _counts(SRC)
    assert not found, (
        "these modules name a study kind or import its code: ask"
        f" stecflow.studykinds.registry (the kind's declaration or a hook): {found}"
    )


def test_the_workflow_names_no_kind():
    names = set(registry.names())
    for path in sorted((REPO / "workflow" / "scripts").glob("*.py")):
        assert not kind_names_in(path.read_text(encoding="utf-8"), names), path.name
    for path in sorted((REPO / "workflow" / "rules").glob("*.smk")):
        text = path.read_text(encoding="utf-8")
        assert not any(f'"{name}"' in text for name in names), path.name


def test_the_ratchet_catches_a_kind_named_outside(tmp_path):
    """The check is not vacuous: a comparison with a kind's name is found (a
    docstring's mention is not)."""
    source = (
        '"""A module about text_rating."""\n'
        "def f(spec):\n"
        '    """text_preference here is prose."""\n'
        '    return spec["task"] == "text_rating"\n'
    )
    assert kind_names_in(source, set(registry.names())) == [4]
    (tmp_path / "studies").mkdir()
    (tmp_path / "studies" / "new.py").write_text(source, encoding="utf-8")
    (tmp_path / "studykinds").mkdir()
    (tmp_path / "studykinds" / "kind.py").write_text(source, encoding="utf-8")
    # importing a kind's code is naming it too; the registry is not
    (tmp_path / "report").mkdir()
    (tmp_path / "report" / "uses.py").write_text(
        "from stecflow.studykinds.registry import get\n"
        "from stecflow.studykinds import base, situated_identification\n"
        "import stecflow.studykinds.identification.import_dmdx\n"
        "from stecflow.studykinds.situated_identification.report import x\n",
        encoding="utf-8",
    )
    assert _counts(tmp_path) == {"report/uses.py": [2, 3, 4], "studies/new.py": [4]}

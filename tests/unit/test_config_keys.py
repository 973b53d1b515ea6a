"""Docstrings of the statistics name only config keys the schema has (issue #18)."""

from __future__ import annotations

import ast
import re

import yaml

from tests.conftest import REPO

SCHEMA = yaml.safe_load(
    (REPO / "workflow" / "schemas" / "config.schema.yaml").read_text()
)
PACKAGES = [REPO / "src" / "stecflow" / "stats", REPO / "src" / "stecflow" / "analysis"]
#: ``a.b`` or ``a.b.c`` in double backquotes, optionally followed by ": value"
FILE_SUFFIXES = {"smk", "py", "tsv", "json", "yaml", "csv", "md", "html", "xml"}
KEY = re.compile(r"``([a-z_]+(?:\.[a-z_]+)+)(?::\s*[a-z_]+)?``")


def _has(path: list[str]) -> bool:
    node = SCHEMA
    for part in path:
        node = node.get("items", node) if "properties" not in node else node
        properties = node.get("properties") or {}
        if part not in properties:
            return False
        node = properties[part]
    return True


def _docstrings():
    for package in PACKAGES:
        for path in sorted(package.glob("*.py")):
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                if isinstance(
                    node,
                    ast.Module | ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef,
                ):
                    doc = ast.get_docstring(node)
                    if doc:
                        yield path.name, doc


def test_config_keys_named_in_docstrings_exist():
    top = set(SCHEMA["properties"])
    statistics = set(SCHEMA["properties"]["statistics"]["properties"])
    named = set()
    for name, doc in _docstrings():
        for key in KEY.findall(doc):
            parts = key.split(".")
            if parts[-1] in FILE_SUFFIXES:  # a file name, e.g. statistics.smk
                continue
            if parts[0] in top:
                named.add((name, key, _has(parts)))
            elif parts[0] in statistics:  # written relative to statistics:
                named.add((name, key, _has(["statistics", *parts])))
    assert {(n, k) for n, k, ok in named if not ok} == set()
    # the keys of issue #18 are among those named, so the check has teeth
    keys = {k for _, k, _ in named}
    assert {
        "statistics.ss_type",
        "statistics.digits",
        "statistics.posthoc.display",
    } <= keys


def test_the_lookup_rejects_a_key_that_does_not_exist():
    assert _has(["statistics", "posthoc", "display"])
    assert _has(["statistics", "analyses", "within"])
    assert not _has(["statistics", "posthoc", "letters"])
    assert not _has(["statistics", "sum_of_squares"])

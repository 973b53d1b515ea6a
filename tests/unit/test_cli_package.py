"""The command line as a package: one module per subcommand, each with
``register(subparsers)`` and ``run(args)``, listed once in the order of the help."""

from __future__ import annotations

import argparse
import importlib
import tomllib

from stecflow.cli import SUBCOMMANDS, build_parser
from tests.conftest import REPO


def test_every_subcommand_is_a_module_that_registers_and_runs():
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert tuple(sub.choices) == SUBCOMMANDS
    for name in SUBCOMMANDS:
        module = importlib.import_module(f"stecflow.cli.{name}")
        assert module.__doc__ and f"stecflow {name}" in module.__doc__, name
        assert callable(module.register) and callable(module.run), name
        assert sub.choices[name].get_default("func") is module.run, name


def test_the_entry_point_is_the_package_main():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["scripts"]["stecflow"] == "stecflow.cli:main"

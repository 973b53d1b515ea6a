"""A seeded sample of the validation fuzzer (benchmarks/fuzz_validation.py).

The benchmark runs thousands of cases and records its figures; here a small,
fixed sample of the same mutations runs on every test run: validation never
raises, never takes more than 2 s or 200 MB on a case, and a submission that a
mutation keeps valid stays accepted with the same outputs.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.skipif(
    not hasattr(__import__("os"), "fork"), reason="the fuzzer forks one child per case"
)


@pytest.fixture(scope="module")
def fuzzer():
    path = REPO / "benchmarks" / "fuzz_validation.py"
    spec = importlib.util.spec_from_file_location("fuzz_validation", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["fuzz_validation"] = module
    spec.loader.exec_module(module)
    return module


def test_every_mutation_kind_is_drawn(fuzzer):
    base = (fuzzer.BASE / "outputs.xml").read_bytes()
    drawn, digests = set(), []
    for case in fuzzer.make_cases(base, b"team: x\n", 400, seed=7):
        drawn |= set(case.mutation.split("+"))
        digests.append(hash(case.outputs))
        assert len(case.outputs) < 2 * fuzzer.MAX_CASE_BYTES
    metadata = {"metadata", "yaml_escape", "yaml_encoding"}
    assert drawn == set(fuzzer.PRESERVING) | set(fuzzer.DESTRUCTIVE) | metadata
    # same seed, same cases
    again = fuzzer.make_cases(base, b"team: x\n", 400, seed=7)
    assert [hash(c.outputs) for c in again] == digests


def test_seeded_sample_never_raises_and_keeps_valid_cases_valid(tmp_path):
    # In a fresh interpreter, as the benchmark runs: a forked child's peak memory
    # includes what its parent holds, and a test session holds a lot.
    out = tmp_path / "figures.json"
    script = REPO / "benchmarks" / "fuzz_validation.py"
    command = [sys.executable, str(script), "--cases", "100", "--seed", "2026"]
    run = subprocess.run(
        [*command, "--json", str(out)], capture_output=True, text=True, timeout=600
    )
    figures = json.loads(out.read_text())
    assert figures["failures"] == [], run.stdout
    assert run.returncode == 0
    assert figures["accepted"] >= figures["preserving"] > 10
    assert figures["rejected"] > 30
    assert figures["worst_seconds"] < 2 and figures["worst_mb"] < 200


def test_every_reader_and_text_mutation_is_drawn(fuzzer):
    base = (fuzzer.BASE / "outputs.xml").read_bytes()
    text = (
        (fuzzer.TEXT_BASE / "outputs.jsonl").read_bytes(),
        (fuzzer.TEXT_BASE / "system.yaml").read_bytes(),
    )
    cases = list(fuzzer.make_cases(base, b"team: x\n", 400, seed=7, text=text))
    names = {case.name for case in cases}
    assert names == {"outputs.xml", "outputs.jsonl", "outputs.txt", "outputs.json"}
    kinds = {part for case in cases for part in case.mutation.split("+")}
    assert set(fuzzer.TEXT_PRESERVING) | set(fuzzer.TEXT_DESTRUCTIVE) <= kinds
    assert {"char_reference", "raw_control", "declared_encoding"} <= kinds
    hostile = [c for c in cases if c.hostile]
    assert {c.mutation for c in hostile} >= {
        "json_escape",
        "char_reference",
        "raw_control",
    }

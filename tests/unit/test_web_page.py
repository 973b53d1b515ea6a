"""The experiment page by parts (issue #36, point 3): a core and one trial
component per study kind (:func:`stecflow.studies.bundle.page_script`).

* Conformance: every registered kind declares its page parts, they exist, and
  the page assembled for a kind registers exactly that kind's trial and holds
  no other kind's component; every component file belongs to some kind.
* The core tests no kind: no kind's name is a string in ``web/core.js``.
* The page a study's bundle carries is the assembled one, byte-deterministic,
  with no absolute path in it; a kind declared outside the library brings its
  part by absolute path; a missing part is an error naming it.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from stecflow.core.errors import StimuliError
from stecflow.studies.bundle import PAGE_MARKER, page_script
from stecflow.studykinds import registry
from stecflow.studykinds.base import StudyKind
from tests.conftest import REPO

WEB = REPO / "src" / "stecflow" / "studies" / "web"
COMPONENTS = WEB / "components"
REGISTERS = re.compile(r'^\s*trialKind\("([^"]+)"', re.M)


def _kinds_parts() -> dict[str, tuple[str, ...]]:
    return {name: registry.get(name).page for name in registry.names()}


@pytest.mark.parametrize("name", registry.names())
def test_every_kind_declares_page_parts_that_exist(name):
    page = registry.get(name).page
    assert page, f"{name} declares no page parts (StudyKind.page)"
    assert len(page) == len(set(page))
    for part in page:
        assert (COMPONENTS / part).is_file(), (name, part)


@pytest.mark.parametrize("name", registry.names())
def test_the_assembled_page_registers_exactly_its_kind(name):
    script = page_script(name).decode("utf-8")
    assert REGISTERS.findall(script) == [name]
    assert f'trialKind("{name}"' in script
    own = set(registry.get(name).page)
    for other, parts in _kinds_parts().items():
        for part in set(parts) - own:
            assert f"// ---- components/{part}\n" not in script, (name, other, part)
            body = (COMPONENTS / part).read_text(encoding="utf-8")
            assert body not in script, (name, part)
    # the parts, in order, each after its banner, at the core's marker
    core = (WEB / "core.js").read_text(encoding="utf-8")
    head, marker, tail = core.partition(PAGE_MARKER.decode("utf-8"))
    parts = "".join(
        f"  // ---- components/{part}\n"
        + (COMPONENTS / part).read_text(encoding="utf-8")
        for part in registry.get(name).page
    )
    assert script == head + marker + parts + tail
    assert page_script(name) == page_script(name)


def test_every_component_belongs_to_a_kind():
    used = {part for parts in _kinds_parts().values() for part in parts}
    files = {path.name for path in COMPONENTS.glob("*.js")}
    assert files == used
    # a shared part (underscored) registers nothing; a kind's own part registers it
    for path in sorted(COMPONENTS.glob("*.js")):
        found = REGISTERS.findall(path.read_text(encoding="utf-8"))
        if path.name.startswith("_"):
            assert found == [], path.name
        else:
            assert len(found) == 1, path.name
            assert path.name in registry.get(found[0]).page, path.name


def test_the_core_tests_no_kind():
    core = (WEB / "core.js").read_text(encoding="utf-8")
    assert core.count(PAGE_MARKER.decode("utf-8")) == 1
    for name in registry.names():
        assert f'"{name}"' not in core, name
        assert f"'{name}'" not in core, name
    assert not re.search(r"\bTASK\s*[!=]==", core)
    assert "TRIALS[TASK].run(trial)" in core
    assert not REGISTERS.findall(core)


@pytest.mark.skipif(
    shutil.which("node") is None,
    reason="node is not installed: apt-get install nodejs (it parses the assembled"
    " page with node --check)",
)
@pytest.mark.parametrize("name", registry.names())
def test_the_assembled_page_parses(name, tmp_path):
    path = tmp_path / "experiment.js"
    path.write_bytes(page_script(name))
    done = subprocess.run(["node", "--check", str(path)], capture_output=True)
    assert done.returncode == 0, done.stderr.decode()


def test_a_bundle_carries_the_assembled_page():
    from stecflow.data.model import Domain, Entity, EntityAttribute, Item
    from stecflow.studies.designs import latin_square_design
    from stecflow.studies.stimuli import make_study_files

    def entity(i, x, target=False):
        attrs = (
            EntityAttribute("type", "chair"),
            EntityAttribute("x-dimension", str(x)),
            EntityAttribute("y-dimension", "1"),
        )
        return Entity(f"e{i}", target, attrs)

    items = [
        Item(f"t{k}", Domain((entity(1, 1, True), entity(2, 3))), "furniture")
        for k in (1, 2)
    ]
    design = latin_square_design(["A", "B"], ["t1", "t2"], subjects=2, seed=1)
    outputs = {"A": {"t1": "a", "t2": "b"}, "B": {"t1": "c", "t2": "d"}}
    for task in ("rating", "identification"):
        bundle = make_study_files(design, items, outputs, task=task)
        assert bundle.files["experiment.js"] == page_script(task)
        for files in bundle.offline.values():
            assert files["experiment.js"] == page_script(task)
        assert "experiment.css" in bundle.files
        assert str(REPO).encode() not in bundle.files["experiment.js"]


def _outside_kind(page: tuple[str, ...]) -> StudyKind:
    return StudyKind(
        name="plausibility",
        summary="Participants say whether a text is plausible, yes or no.",
        family="text",
        data_formats=frozenset({"text"}),
        needs="texts (data.format: text)",
        page=page,
    )


def test_a_kind_declared_outside_brings_its_part_by_path(tmp_path):
    own = tmp_path / "plausibility.js"
    own.write_text(
        '  trialKind("plausibility", { run: async () => ({ rt_ms: 0 }) });',
        encoding="utf-8",
    )
    registry.register(_outside_kind(("_text.js", str(own))))
    try:
        script = page_script("plausibility").decode("utf-8")
    finally:
        registry.unregister("plausibility")
    assert REGISTERS.findall(script) == ["plausibility"]
    assert "  // ---- components/_text.js\n" in script
    # named by its file's name: no absolute path in the study's files
    assert "  // ---- plausibility.js\n" in script and str(tmp_path) not in script
    assert "({ rt_ms: 0 }) });\n" in script  # a part without a final newline gets one
    assert script.index("plausibility.js") < script.index("function main()")


def test_a_missing_part_is_named():
    registry.register(_outside_kind(("nowhere.js",)))
    try:
        with pytest.raises(
            StimuliError, match=r"page part nowhere\.js of the study kind plausibility"
        ):
            page_script("plausibility")
    finally:
        registry.unregister("plausibility")

"""Package-level guarantees: light imports, no snakemake, adapters agree with rules."""

from __future__ import annotations

import runpy
from types import SimpleNamespace

from tests.conftest import REPO, python_stdout

HEAVY = ("snakemake", "pandas", "scipy", "statsmodels", "sacrebleu")


def imported_modules(code: str) -> set[str]:
    out = python_stdout(f"{code}\nimport sys; print(' '.join(sys.modules))")
    return {m.split(".")[0] for m in out.split()}


def test_stecflow_never_imports_snakemake():
    for path in (REPO / "src" / "stecflow").rglob("*.py"):
        text = path.read_text()
        assert "import snakemake" not in text and "from snakemake" not in text, path


def test_importing_the_package_and_validation_is_light():
    modules = imported_modules(
        "import stecflow, stecflow.submissions.validation, stecflow.cli"
    )
    assert not modules & set(HEAVY)


def test_adapters_have_no_import_side_effects_and_call_the_library(tmp_path):
    campaign = REPO / "tests" / "fixtures" / "tiny_campaign"
    scripts = REPO / "workflow" / "scripts"
    prepare = runpy.run_path(str(scripts / "prepare_testset.py"))["main"]
    prepare(
        SimpleNamespace(
            input=SimpleNamespace(testset=str(campaign / "testset.xml")),
            output=SimpleNamespace(
                testset=str(tmp_path / "testset.xml"),
                compact=str(tmp_path / "testset.compact.json"),
            ),
            params=SimpleNamespace(data_format="tuna"),
            log=[str(tmp_path / "prepare.log")],
        )
    )
    check = runpy.run_path(str(scripts / "check_submission.py"))["main"]
    check(
        SimpleNamespace(
            input=SimpleNamespace(testset=str(tmp_path / "testset.compact.json")),
            output=SimpleNamespace(
                record=str(tmp_path / "v.json"),
                report=str(tmp_path / "v.md"),
                item_scores=str(tmp_path / "i.tsv"),
                summary=str(tmp_path / "sys.json"),
            ),
            params=SimpleNamespace(
                submissions_root=str(campaign / "submissions"),
                tasks=["end_to_end", "attribute_selection"],
                deadline=None,
                limits={},
                scoring={"bootstrap": {"resamples": 50}},
                subsets=[],
            ),
            wildcards=SimpleNamespace(submission="alpha/sys1."),
            log=[str(tmp_path / "check.log")],
        )
    )
    assert '"status": "scored"' in (tmp_path / "sys.json").read_text()
    assert '"status": "accepted"' in (tmp_path / "v.json").read_text()
    assert "alpha/sys1: accepted" in (tmp_path / "check.log").read_text()
    summarise = runpy.run_path(str(scripts / "summarise_validation.py"))["main"]
    summarise(
        SimpleNamespace(
            input=SimpleNamespace(records=[str(tmp_path / "v.json")]),
            output=SimpleNamespace(
                summary=str(tmp_path / "s.tsv"), records=str(tmp_path / "r.jsonl")
            ),
            params=SimpleNamespace(discovery_problems=[]),
            log=[str(tmp_path / "summary.log")],
        )
    )
    assert (
        (tmp_path / "s.tsv")
        .read_text()
        .splitlines()[1]
        .startswith("alpha\tsys1\taccepted")
    )
    assert (tmp_path / "r.jsonl").read_text().count("\n") == 1


def test_failing_job_writes_its_traceback_to_the_log(tmp_path):
    scripts = REPO / "workflow" / "scripts"
    prepare = runpy.run_path(str(scripts / "prepare_testset.py"))["main"]
    log = tmp_path / "p.log"
    try:
        prepare(
            SimpleNamespace(
                input=SimpleNamespace(testset=str(tmp_path / "missing.xml")),
                output=SimpleNamespace(testset=str(tmp_path / "t.xml")),
                params=SimpleNamespace(data_format="tuna"),
                log=[str(log)],
            )
        )
    except Exception as exc:  # noqa: BLE001
        assert "cannot read the file" in str(exc)
    assert "XMLError" in log.read_text()


def test_per_submission_jobs_import_no_heavy_libraries(tmp_path):
    """Running a validation or scoring job loads neither pandas, SciPy nor statsmodels.

    Every submission pays its jobs' start-up, so these imports stay out of them
    (numpy is needed for bootstrap intervals, rapidfuzz by metrics). Nor does it
    load sacreBLEU (BLEU-3 has its formula, ``metrics.bleu.compute_bleu``) or
    ``numpy.ma`` (``np.quantile`` would).
    """
    from stecflow.campaign import prepare_testset

    campaign = REPO / "tests" / "fixtures" / "tiny_campaign"
    prepare_testset(
        campaign / "testset.xml",
        "tuna",
        tmp_path / "t.xml",
        compact_path=tmp_path / "t.compact.json",
    )
    code = f"""
import runpy, sys
from types import SimpleNamespace as N
scripts = {str(REPO / "workflow" / "scripts")!r}
tmp = {str(tmp_path)!r}
root = {str(campaign / "submissions")!r}
runpy.run_path(scripts + "/check_submission.py")["main"](N(
    input=N(testset=tmp + "/t.compact.json"),
    output=N(record=tmp + "/v.json", report=tmp + "/v.md",
             item_scores=tmp + "/i.tsv", summary=tmp + "/s.json"),
    params=N(submissions_root=root,
             tasks=["end_to_end", "attribute_selection"], deadline=None,
             limits={{}}, scoring={{"bootstrap": {{"resamples": 50}}}}, subsets=[]),
    wildcards=N(submission="alpha/sys1."), log=[tmp + "/s.log"]))
print(" ".join(sorted(sys.modules)))
"""
    out = python_stdout(code)
    loaded = {m.split(".")[0] for m in out.split()}
    assert not loaded & {"pandas", "scipy", "statsmodels", "snakemake", "matplotlib"}
    assert not loaded & {"sacrebleu", "portalocker", "tabulate"}
    assert "numpy.random" in out.split() and "numpy.ma" not in out.split()
    # a REG campaign's job reads neither dialogue corpora nor JSON Lines
    assert not set(out.split()) & {
        "stecflow.data.dialogue",
        "stecflow.tasks.situated_dialogue",
        "stecflow.tasks.text_generation",
        "lxml.html",
    }
    assert (tmp_path / "s.json").is_file()


def test_built_in_task_types_are_named_as_their_modules():
    """The registry lists the built-in names without importing the modules."""
    import importlib

    from stecflow.tasks import registry

    for module in registry.BUILT_IN:
        assert importlib.import_module(module).TASK.name == module.rsplit(".", 1)[1]
    assert registry.names()[: len(registry.BUILT_IN)] == (
        "attribute_selection",
        "realisation",
        "end_to_end",
        "situated_dialogue",
        "text_generation",
    )

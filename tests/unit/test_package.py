"""Package-level guarantees: light imports, no snakemake, adapters agree with rules."""

from __future__ import annotations

import runpy
import subprocess
import sys
from types import SimpleNamespace

from tests.conftest import REPO

HEAVY = ("snakemake", "pandas", "scipy", "statsmodels", "sacrebleu")


def imported_modules(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys; print(' '.join(sys.modules))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
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
            output=SimpleNamespace(testset=str(tmp_path / "testset.xml")),
            params=SimpleNamespace(data_format="tuna"),
            log=[str(tmp_path / "prepare.log")],
        )
    )
    validate = runpy.run_path(str(scripts / "validate_submission.py"))["main"]
    validate(
        SimpleNamespace(
            input=SimpleNamespace(testset=str(tmp_path / "testset.xml")),
            output=SimpleNamespace(
                record=str(tmp_path / "v.json"), report=str(tmp_path / "v.md")
            ),
            params=SimpleNamespace(
                submission_dir=str(campaign / "submissions" / "alpha" / "sys1"),
                team="alpha",
                system="sys1",
                tasks=["end_to_end", "attribute_selection"],
                deadline=None,
                limits={},
            ),
            wildcards=SimpleNamespace(team="alpha", system="sys1"),
            log=[str(tmp_path / "validate.log")],
        )
    )
    assert '"status": "accepted"' in (tmp_path / "v.json").read_text()
    assert "alpha/sys1: accepted" in (tmp_path / "validate.log").read_text()
    summarise = runpy.run_path(str(scripts / "summarise_validation.py"))["main"]
    summarise(
        SimpleNamespace(
            input=SimpleNamespace(records=[str(tmp_path / "v.json")]),
            output=SimpleNamespace(summary=str(tmp_path / "s.tsv")),
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
    (numpy is needed for bootstrap intervals; sacrebleu and rapidfuzz by metrics).
    """
    campaign = REPO / "tests" / "fixtures" / "tiny_campaign"
    code = f"""
import runpy, sys
from types import SimpleNamespace as N
scripts = {str(REPO / "workflow" / "scripts")!r}
tmp = {str(tmp_path)!r}
sub = {str(campaign / "submissions" / "alpha" / "sys1")!r}
testset = {str(campaign / "testset.xml")!r}
runpy.run_path(scripts + "/validate_submission.py")["main"](N(
    input=N(testset=testset),
    output=N(record=tmp + "/v.json", report=tmp + "/v.md"),
    params=N(submission_dir=sub, team="alpha", system="sys1",
             tasks=["end_to_end", "attribute_selection"], deadline=None,
             limits={{}}),
    wildcards=N(team="alpha", system="sys1"), log=[tmp + "/v.log"]))
runpy.run_path(scripts + "/score_submission.py")["main"](N(
    input=N(validation=tmp + "/v.json", testset=testset),
    params=N(submission_dir=sub, scoring={{"bootstrap": {{"resamples": 50}}}},
             tasks=["end_to_end", "attribute_selection"], subsets=[]),
    output=N(item_scores=tmp + "/i.tsv", summary=tmp + "/s.json"), log=[tmp + "/s.log"]))
print(" ".join(sorted(sys.modules)))
"""
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    loaded = {m.split(".")[0] for m in out.split()}
    assert not loaded & {"pandas", "scipy", "statsmodels", "snakemake", "matplotlib"}
    assert (tmp_path / "s.json").is_file()

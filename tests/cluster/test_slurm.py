"""The tiny campaign on a real one-node SLURM cluster gives the same results as locally.

The SLURM run goes through profiles/slurm, with its placeholders filled in, so the
profile that organisers use is tested too. Needs root, slurm-wlm, munge and
snakemake-executor-plugin-slurm; skipped otherwise.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.cluster.slurm import (
    CPUS,
    INSTALL_HINT,
    Cluster,
    missing_requirements,
    one_node_cluster,
)
from tests.conftest import REPO, TINY
from tests.workflow.helpers import SNAKEFILE, snakemake, untimed

pytestmark = pytest.mark.slurm

PROFILE = REPO / "profiles" / "slurm" / "config.yaml"
#: Seconds before the SLURM run is stopped (it takes about 3 minutes).
SLURM_RUN_TIMEOUT = 600
#: Results that may differ between two runs: the wall-clock timings of each job
#: (and the last line of each job's log, see ``untimed``).
NOT_COMPARED = ("results/benchmarks/",)
#: The SLURM log folder of the group of per-submission jobs (see the profile).
SUBMISSION_GROUP = "group_per_submission_check_submission"


@pytest.fixture
def slurm_cluster() -> Iterator[Cluster]:
    """A fresh one-node SLURM cluster, stopped and removed after the test."""
    missing = missing_requirements()
    if missing:
        pytest.skip(f"needs {', '.join(missing)}: {INSTALL_HINT}")
    # Not pytest's tmp_path: munged needs every folder above its socket to be
    # enterable by all users, and pytest's base folder is private.
    root = Path(tempfile.mkdtemp(prefix="stecflow-slurm-"))
    root.chmod(0o755)
    try:
        with one_node_cluster(root) as cluster:
            yield cluster
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_profile_runs_campaign_on_slurm_like_locally(
    slurm_cluster: Cluster, tiny_campaign: Path, tmp_path: Path
):
    snakemake(tiny_campaign)
    campaign = tmp_path / "slurm_campaign"
    shutil.copytree(TINY, campaign)

    output = run_on_slurm(slurm_cluster, campaign, tmp_path / "profile")

    local, on_slurm = result_files(tiny_campaign), result_files(campaign)
    assert sorted(on_slurm) == sorted(local)
    differing = [path for path in local if local[path] != on_slurm[path]]
    assert not differing, f"results differ between local and SLURM runs: {differing}"

    job_ids = re.findall(r"submitted with SLURM jobid (\d+)", output)
    assert job_ids, output
    logs = sorted((campaign / ".snakemake" / "slurm_logs").rglob("*.log"))
    assert sorted(log.stem for log in logs) == sorted(job_ids)
    # All three submissions were validated and scored in one SLURM job.
    assert [log.parent.name for log in logs].count(SUBMISSION_GROUP) == 1
    states = slurm_cluster.run(
        "squeue", "--states=all", "--noheader", "--format=%i %T"
    ).stdout
    finished = dict(line.split() for line in states.splitlines())
    assert {finished.get(job_id) for job_id in job_ids} == {"COMPLETED"}, states


def run_on_slurm(cluster: Cluster, campaign: Path, profile_dir: Path) -> str:
    """Run the campaign through profiles/slurm on CLUSTER; return Snakemake's output."""
    profile = yaml.safe_load(PROFILE.read_text())
    resources = profile["default-resources"]
    assert resources["slurm_partition"] == "<partition>", "profile placeholder changed"
    assert resources["slurm_account"] == "<account>", "profile placeholder changed"
    # Any account does: without accounting, SLURM does not check it.
    resources.update(slurm_partition=cluster.partition, slurm_account="stecflow")
    profile_dir.mkdir()
    (profile_dir / "config.yaml").write_text(yaml.safe_dump(profile))
    command = [
        *("timeout", "-k", "30", str(SLURM_RUN_TIMEOUT)),
        *(sys.executable, "-m", "snakemake", "--snakefile", str(SNAKEFILE)),
        *("--directory", str(campaign), "--profile", str(profile_dir)),
        # The node has only this many CPUs: a group job asking for more would
        # never start.
        *("--cores", str(CPUS)),
        # Fail at once rather than retry: a failure here is a bug, not bad luck.
        *("--retries", "0"),
        # Without accounting (no slurmdbd) sacct cannot see jobs: poll squeue.
        *("--slurm-status-command", "squeue"),
        *("--slurm-init-seconds-before-status-checks", "2"),
        # Keep the SLURM logs of successful jobs: they prove where jobs ran.
        "--slurm-keep-successful-logs",
    ]
    result = subprocess.run(command, env=cluster.env, capture_output=True, text=True)
    output = result.stdout + result.stderr
    if result.returncode != 0:
        timed_out = " (timed out)" if result.returncode == 124 else ""
        pytest.fail(
            f"snakemake on SLURM failed ({result.returncode}){timed_out}:\n{output}"
        )
    return output


def result_files(campaign: Path) -> dict[str, bytes]:
    """Every file under the campaign's results/ but NOT_COMPARED, by relative path."""
    return {
        path.relative_to(campaign).as_posix(): untimed(
            path.relative_to(campaign).as_posix(), path.read_bytes()
        )
        for path in sorted((campaign / "results").rglob("*"))
        if path.is_file()
        and not path.relative_to(campaign).as_posix().startswith(NOT_COMPARED)
    }

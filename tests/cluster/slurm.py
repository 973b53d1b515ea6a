"""Start a one-node SLURM cluster (munged, slurmctld, slurmd) in a folder, and stop it.

Everything the daemons write (key, socket, state, spool, pid files, logs) stays in
that folder, so nothing outside it is touched and every start is a fresh cluster.
Each daemon runs in the foreground as a child of this process and is stopped by its
own process ID.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

INSTALL_HINT = (
    "apt-get install slurm-wlm munge; pip install snakemake-executor-plugin-slurm"
)
PROGRAMS = ("munged", "slurmctld", "slurmd", "sbatch", "srun", "squeue", "sinfo")
PARTITION = "debug"
#: CPUs of the one node; Snakemake's --cores must not exceed it.
CPUS = 2
#: Seconds to wait for the daemons to come up, and for them to stop.
START_TIMEOUT = 60
STOP_TIMEOUT = 20

SLURM_CONF = """\
ClusterName=stecflowtest
SlurmctldHost={node}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={munge_socket}
CredType=cred/munge
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.pid
MailProg=/bin/true
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
# Keep finished jobs visible to squeue for 10 minutes: without accounting, squeue
# is the only way to see a job's final state.
MinJobAge=600
NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={memory} State=UNKNOWN
PartitionName={partition} Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""

# snakemake-executor-plugin-slurm-jobstep removes every SLURM_* variable but a few
# job IDs before it calls srun inside a job, SLURM_CONF included; srun then finds no
# configuration (real clusters keep theirs in /etc/slurm). This srun puts it back.
SRUN = """\
#!/bin/sh
SLURM_CONF={conf} exec {srun} "$@"
"""


def missing_requirements() -> list[str]:
    """What keeps a cluster from starting here: not root, or missing programs."""
    missing = [] if os.geteuid() == 0 else ["root (the daemons run as root)"]
    missing += [program for program in PROGRAMS if shutil.which(program) is None]
    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        missing.append("snakemake-executor-plugin-slurm")
    return missing


@dataclass
class Cluster:
    """A running one-node cluster: its folder, node and client environment."""

    root: Path
    node: str
    partition: str
    env: dict[str, str]

    def run(self, *command: str) -> subprocess.CompletedProcess:
        """Run a SLURM client command against this cluster; fail if it fails."""
        return subprocess.run(
            command, env=self.env, capture_output=True, text=True, check=True
        )


def _free_port() -> int:
    """A TCP port that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _memory_mb() -> int:
    """Memory to give the node: half of the machine's, at most 8000 MB."""
    with open("/proc/meminfo") as meminfo:
        total_kb = int(
            next(line for line in meminfo if line.startswith("MemTotal")).split()[1]
        )
    return min(8000, total_kb // 1024 // 2)


def _logs(root: Path) -> str:
    """The end of each daemon's log, for error messages."""
    parts = []
    for log in sorted(root.glob("*.log")):
        lines = log.read_text(errors="replace").splitlines()[-30:]
        parts.append(f"--- {log.name}\n" + "\n".join(lines))
    return "\n".join(parts)


def _stop(process: subprocess.Popen) -> None:
    """Stop one daemon by its process ID: SIGTERM, then SIGKILL if it lingers."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _start(
    stack: ExitStack, root: Path, name: str, command: list[str], env: dict[str, str]
) -> subprocess.Popen:
    """Start a daemon in the foreground, logging to ROOT/NAME.log; stop it on exit."""
    with open(root / f"{name}.log", "w") as log:
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, env=env
        )
    stack.callback(_stop, process)
    return process


def _wait(
    what: str, root: Path, ready: Callable[[], bool], daemons: list[subprocess.Popen]
) -> None:
    """Poll READY until it is true; fail with the logs if a daemon dies or time runs out."""
    deadline = time.monotonic() + START_TIMEOUT
    while not ready():
        dead = [process.args[0] for process in daemons if process.poll() is not None]
        if dead or time.monotonic() > deadline:
            reason = (
                f"{', '.join(dead)} exited" if dead else f"{START_TIMEOUT} s passed"
            )
            raise RuntimeError(
                f"SLURM test cluster: {what} not ready ({reason})\n{_logs(root)}"
            )
        time.sleep(0.5)


def _node_idle(env: dict[str, str]) -> bool:
    """Whether sinfo answers and shows the node idle."""
    result = subprocess.run(
        ["sinfo", "--noheader", "--Node", "--format=%T"],
        env=env,
        capture_output=True,
        text=True,
    )
    return result.returncode == 0 and result.stdout.strip().startswith("idle")


def _cancel_jobs(env: dict[str, str]) -> None:
    """Cancel the cluster's unfinished jobs and wait until they are gone."""
    active = ["--noheader", "--format=%i", "--states=PENDING,RUNNING,COMPLETING"]
    deadline = time.monotonic() + STOP_TIMEOUT
    while time.monotonic() < deadline:
        result = subprocess.run(
            ["squeue", *active], env=env, capture_output=True, text=True
        )
        job_ids = result.stdout.split()
        if result.returncode != 0 or not job_ids:
            return
        subprocess.run(["scancel", *job_ids], env=env, capture_output=True)
        time.sleep(1)


@contextmanager
def one_node_cluster(root: Path) -> Iterator[Cluster]:
    """Run munged, slurmctld and slurmd from ROOT until the block ends.

    ROOT must be a new, empty folder that every user can enter (munged checks the
    folders above its socket). On exit, unfinished jobs are cancelled and the
    daemons stopped, even if the block failed.
    """
    node = socket.gethostname().split(".")[0]
    munge = root / "munge"
    munge.mkdir(mode=0o755)
    (root / "state").mkdir()
    (root / "spool").mkdir()
    (root / "bin").mkdir()
    key = munge / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    conf = root / "slurm.conf"
    conf.write_text(
        SLURM_CONF.format(
            node=node,
            ctld_port=_free_port(),
            slurmd_port=_free_port(),
            munge_socket=munge / "munge.socket",
            root=root,
            cpus=CPUS,
            memory=_memory_mb(),
            partition=PARTITION,
        )
    )
    srun = root / "bin" / "srun"
    srun.write_text(SRUN.format(conf=conf, srun=shutil.which("srun")))
    srun.chmod(0o755)
    env = dict(os.environ, SLURM_CONF=str(conf))
    env["PATH"] = f"{srun.parent}{os.pathsep}{env['PATH']}"

    with ExitStack() as stack:
        munged = _start(
            stack,
            root,
            "munged",
            [
                "munged",
                "--foreground",
                f"--key-file={key}",
                f"--socket={munge / 'munge.socket'}",
                f"--pid-file={munge / 'munged.pid'}",
                f"--seed-file={munge / 'munged.seed'}",
                f"--log-file={munge / 'munged.log'}",
            ],
            env,
        )
        _wait("munged", root, (munge / "munge.socket").exists, [munged])
        daemons = [
            munged,
            _start(stack, root, "slurmctld", ["slurmctld", "-D", "-f", str(conf)], env),
            _start(
                stack,
                root,
                "slurmd",
                ["slurmd", "-D", "-f", str(conf), "-N", node],
                env,
            ),
        ]
        stack.callback(_cancel_jobs, env)
        _wait(f"node {node}", root, lambda: _node_idle(env), daemons)
        yield Cluster(root=root, node=node, partition=PARTITION, env=env)

"""Route a job's logging and uncaught tracebacks to its log file."""

from __future__ import annotations

import contextlib
import logging
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

__all__ = ["benchmark_path", "job_log", "resource_line", "write_benchmark"]

#: How :func:`resource_line` starts (what ``benchmarks/`` looks for in a log).
RESOURCE_PREFIX = "finished: CPU"
#: The columns of a job's benchmark file: those of Snakemake's ``benchmark:``
#: files, so that what reads those reads these.
BENCHMARK_COLUMNS = (
    "s",
    "h:m:s",
    "max_rss",
    "max_vms",
    "max_uss",
    "max_pss",
    "io_in",
    "io_out",
    "mean_load",
    "cpu_time",
)


@contextlib.contextmanager
def job_log(path: str | Path, level: int = logging.INFO) -> Iterator[logging.Logger]:
    """Send ``stecflow`` log records (and any traceback) to *path* while in the block.

    The traceback is written to the log and the exception re-raised, so Snakemake
    marks the job failed and points the user at a log that says why. A job that
    ends well logs, last, its process's CPU time and peak memory as the operating
    system counts them (:func:`resource_line`): ``benchmarks/`` reads these lines,
    which unlike Snakemake's sampled benchmark files do not miss short jobs' peaks.
    It also writes these figures as the job's benchmark file (:func:`benchmark_path`,
    :func:`write_benchmark`).
    """
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, mode="w", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("stecflow")
    previous = logger.level
    logger.addHandler(handler)
    logger.setLevel(level)
    try:
        yield logger
        line = resource_line()
        if line:
            logging.getLogger("stecflow.job").info(line)
        benchmark = benchmark_path(path)
        if benchmark is not None:
            write_benchmark(benchmark)
    except BaseException:
        handler.stream.write(traceback.format_exc())
        raise
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous)
        handler.close()


def resource_line() -> str | None:
    """This process's CPU time and peak resident memory so far, in words.

    For example ``finished: CPU 1.21 s, peak memory 58 MB``; None where the
    operating system does not say (no :mod:`resource` module, as on Windows).
    The peak is the kernel's high-water mark of this program (``VmHWM`` in
    ``/proc/self/status``): ``getrusage``'s ``ru_maxrss`` would also count the
    process it was started from, as Linux keeps it across ``execve``.
    """
    try:
        import resource
    except ImportError:
        return None
    usage = resource.getrusage(resource.RUSAGE_SELF)
    peak_kb = _high_water_kb()
    if peak_kb is None:  # ru_maxrss: KB on Linux, bytes on macOS
        peak_kb = usage.ru_maxrss // (1024 if sys.platform == "darwin" else 1)
    return (
        f"{RESOURCE_PREFIX} {usage.ru_utime + usage.ru_stime:.2f} s,"
        f" peak memory {peak_kb / 1024:.0f} MB"
    )


def _high_water_kb() -> int | None:
    high_water = _proc_fields("status").get("VmHWM")
    return None if high_water is None else int(high_water.split()[0])


def benchmark_path(log: str | Path) -> Path | None:
    """Where the job of *log* records its benchmark: the workflow's layout
    ``<results>/logs/<rule>/<job>.log`` gives
    ``<results>/benchmarks/<rule>/<job>.tsv`` (the last ``logs`` folder with a
    rule's folder below it); None for a log elsewhere.

    >>> benchmark_path("results/logs/check_submission/logs/s1.log").as_posix()
    'results/benchmarks/check_submission/logs/s1.tsv'
    >>> benchmark_path("logs/job.log") is None
    True
    """
    parts = Path(log).parts
    for at in range(len(parts) - 3, -1, -1):
        if parts[at] == "logs":
            rest = parts[at + 1 :]
            return Path(*parts[:at], "benchmarks", *rest).with_suffix(".tsv")
    return None


def write_benchmark(path: str | Path) -> None:
    """Write this process's figures so far as a benchmark file at *path*.

    The columns of Snakemake's ``benchmark:`` files (:data:`BENCHMARK_COLUMNS`),
    each read once from the operating system at the end instead of sampled
    twice a second while the job runs: ``s`` the seconds since the process
    started, ``max_rss`` and ``max_vms`` the kernel's high-water marks (MB),
    ``io_in`` and ``io_out`` the MB read from and written to storage,
    ``cpu_time`` the seconds of CPU (of all its threads and waited-for children,
    so more than ``s`` when they ran at once), ``mean_load`` that CPU in percent
    of ``s`` (then above 100). ``max_uss`` and ``max_pss``, which only sampling
    gives, are ``-`` (as Snakemake writes a figure it does not have), and so is
    any figure the system does not report (these come from Linux's ``/proc``).
    """
    import datetime
    import os

    figures: dict[str, float | str | None] = dict.fromkeys(BENCHMARK_COLUMNS)
    try:
        import resource

        cpu = 0.0
        for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
            usage = resource.getrusage(who)
            cpu += usage.ru_utime + usage.ru_stime
        figures["cpu_time"] = cpu
    except ImportError:  # (Windows)
        pass
    status = _proc_fields("status")  # (the peaks in kB)
    for column, field in (("max_rss", "VmHWM"), ("max_vms", "VmPeak")):
        if field in status:
            figures[column] = int(status[field].split()[0]) / 1024
    io = _proc_fields("io")
    for column, field in (("io_in", "read_bytes"), ("io_out", "write_bytes")):
        if field in io:
            figures[column] = int(io[field]) / 1024**2
    try:
        stat = Path("/proc/self/stat").read_text(encoding="ascii")
        started = int(stat.rsplit(")", 1)[1].split()[19]) / os.sysconf("SC_CLK_TCK")
        uptime = float(Path("/proc/uptime").read_text(encoding="ascii").split()[0])
        figures["s"] = max(uptime - started, 0.0)
        figures["h:m:s"] = str(datetime.timedelta(seconds=round(figures["s"])))
    except (OSError, ValueError, IndexError):
        pass
    if isinstance(figures["cpu_time"], float) and figures["s"]:
        figures["mean_load"] = 100 * figures["cpu_time"] / float(figures["s"])
    cells = [
        "-" if v is None else f"{v:.2f}" if isinstance(v, float) else str(v)
        for v in figures.values()
    ]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(
        "\t".join(BENCHMARK_COLUMNS) + "\n" + "\t".join(cells) + "\n",
        encoding="utf-8",
    )


def _proc_fields(name: str) -> dict[str, str]:
    """``/proc/self/<name>`` as field -> value ({} where there is none)."""
    try:
        text = Path(f"/proc/self/{name}").read_text(encoding="ascii", errors="replace")
    except OSError:
        return {}
    return {
        key.strip(): value.strip()
        for key, _, value in (line.partition(":") for line in text.splitlines())
    }

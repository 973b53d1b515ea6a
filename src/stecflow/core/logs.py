"""Route a job's logging and uncaught tracebacks to its log file."""

from __future__ import annotations

import contextlib
import logging
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path

__all__ = ["job_log", "resource_line"]

#: How :func:`resource_line` starts (what ``benchmarks/`` looks for in a log).
RESOURCE_PREFIX = "finished: CPU"


@contextlib.contextmanager
def job_log(path: str | Path, level: int = logging.INFO) -> Iterator[logging.Logger]:
    """Send ``stecflow`` log records (and any traceback) to *path* while in the block.

    The traceback is written to the log and the exception re-raised, so Snakemake
    marks the job failed and points the user at a log that says why. A job that
    ends well logs, last, its process's CPU time and peak memory as the operating
    system counts them (:func:`resource_line`): ``benchmarks/`` reads these lines,
    which unlike Snakemake's sampled benchmark files do not miss short jobs' peaks.
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
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return None

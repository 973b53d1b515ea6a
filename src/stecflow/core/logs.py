"""Route a job's logging and uncaught tracebacks to its log file."""

from __future__ import annotations

import contextlib
import logging
import traceback
from collections.abc import Iterator
from pathlib import Path

__all__ = ["job_log"]


@contextlib.contextmanager
def job_log(path: str | Path, level: int = logging.INFO) -> Iterator[logging.Logger]:
    """Send ``stecflow`` log records (and any traceback) to *path* while in the block.

    The traceback is written to the log and the exception re-raised, so Snakemake
    marks the job failed and points the user at a log that says why.
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
    except BaseException:
        handler.stream.write(traceback.format_exc())
        raise
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous)
        handler.close()

"""Validating then scoring one submission in one job (rule ``check_submission``).

Every submission costs one job start (interpreter, imports, reading the test
set), so its validation and its scoring run in the same interpreter, on the same
items read once: :func:`check_submission` writes the validation record and its
readable report (:func:`stecflow.submissions.validation.validate_to_files`),
then the item scores and the system summary
(:func:`stecflow.scoring.score.score_submission`), the same four files, with the
same bytes, as two separate jobs would. A rejected submission still gets its
pass-through score files (``skipped`` and why).

The items come from the compact test set (:mod:`stecflow.data.compact`,
``data/testset.compact.json``) where the campaign has one (the REG formats), else
from the prepared test set itself (:func:`load_items`).

May import: :mod:`stecflow.core`, :mod:`stecflow.data`, :mod:`stecflow.metrics`,
:mod:`stecflow.tasks`, :mod:`stecflow.submissions`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.data.compact import COMPACT_SUFFIX, read_compact
from stecflow.data.model import Item

__all__ = ["check_submission", "load_items"]


def load_items(path: str | Path) -> list[Item]:
    """The items of a compact test set (``*.compact.json``) or a prepared one.

    >>> from stecflow.data.compact import write_compact
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> write_compact([], folder / "testset.compact.json")
    0
    >>> load_items(folder / "testset.compact.json")
    []
    """
    if str(path).endswith(COMPACT_SUFFIX):
        return read_compact(path)
    from stecflow.tasks.registry import read_testset

    return read_testset(path)


def check_submission(
    submission_dir: str | Path,
    testset_path: str | Path,
    *,
    team: str,
    system: str,
    campaign_tasks: Sequence[str],
    deadline: str | None,
    scoring: Mapping[str, Any] | None,
    record_path: str | Path,
    report_path: str | Path,
    items_path: str | Path,
    summary_path: str | Path,
    limits: Mapping[str, Any] | None = None,
    properties: Mapping[str, Any] | None = None,
    subsets: Sequence[str] = (),
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Validate one submission, then score it; return (record, summary).

    *testset_path* is the compact test set or the prepared one (see
    :func:`load_items`); the other arguments are those of
    :func:`~stecflow.submissions.validation.validate_to_files` (``limits``,
    ``properties``: the config's ``submissions`` keys; the self-reported scores
    are checked against the metrics of *scoring*,
    :func:`~stecflow.scoring.reported.reported_metrics`) and
    :func:`~stecflow.scoring.score.score_submission` (``scoring``, ``subsets``).
    """
    from stecflow.scoring.reported import reported_metrics
    from stecflow.scoring.score import score_submission
    from stecflow.submissions.validation import validate_to_files

    items = load_items(testset_path)
    record = validate_to_files(
        submission_dir,
        testset_path,
        team=team,
        system=system,
        campaign_tasks=campaign_tasks,
        deadline=deadline,
        json_path=record_path,
        md_path=report_path,
        limits=limits,
        properties=properties,
        items=items,
        metrics=reported_metrics(scoring, campaign_tasks),
    )
    summary = score_submission(
        validation_path=record_path,
        submission_dir=submission_dir,
        testset_path=testset_path,
        scoring=scoring,
        items_path=items_path,
        summary_path=summary_path,
        tasks=campaign_tasks,
        subsets=subsets,
        items=items,
    )
    return record, summary

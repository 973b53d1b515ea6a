"""The campaign's results folder: where it is, which campaign owns it, and
removing the per-submission results of submissions taken out.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.core.errors import ConfigError

__all__ = [
    "OWNER_FILE",
    "SUBMISSION_OUTPUTS",
    "check_results_owner",
    "claim_results",
    "prune_removed_submissions",
    "results_dir",
]

#: The file in a results folder that names the campaign writing there.
OWNER_FILE = ".campaign"


def results_dir(config: Mapping[str, Any]) -> str:
    """The campaign's results folder (``results`` in the config), normalised.

    Raises
    ------
    ConfigError
        When the folder is the working directory or one above it: the results
        of a campaign go into a folder of their own.

    Examples
    --------
    >>> results_dir({"results": "results/b5-ref/"})
    'results/b5-ref'
    >>> results_dir({})
    'results'
    """
    raw = str(config.get("results") or "results")
    folder = posixpath.normpath(raw.replace(os.sep, "/"))
    if set(folder.split("/")) <= {".", ".."}:
        raise ConfigError(
            f"{raw!r} is not a folder of its own inside the working directory;"
            " give one, e.g. results/<campaign-id>",
            field="results",
        )
    return folder


def check_results_owner(results: str | Path, campaign_id: str) -> None:
    """Stop if another campaign's outputs are in *results*.

    The folder names its campaign in :data:`OWNER_FILE` (written by
    :func:`claim_results` when a run starts); a folder without one belongs to
    nobody yet.

    Raises
    ------
    ConfigError
        Naming the campaign that owns the folder and the key to set.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp()) / "results"
    >>> claim_results(folder, "demo-reg")
    >>> check_results_owner(folder, "demo-reg")  # its own folder: fine
    >>> check_results_owner(folder, "b5-ref")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    stecflow.core.errors.ConfigError: ...holds the outputs of campaign 'demo-reg'...
    """
    owner_file = Path(results) / OWNER_FILE
    try:
        owner = owner_file.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return
    if owner and owner != campaign_id:
        # no field prefix: the message names the key (`results:`) itself
        raise ConfigError(
            f"{results}/ holds the outputs of campaign {owner!r} ({owner_file} says"
            f" so); campaign {campaign_id!r} cannot write there. Set `results:"
            f" results/{campaign_id}` (or another folder of its own) in the config"
            f" of {campaign_id!r}, or remove {results}/ if those outputs are no"
            " longer wanted"
        )


def claim_results(results: str | Path, campaign_id: str) -> None:
    """Record in *results* that *campaign_id* writes there (create the folder).

    Raises
    ------
    ConfigError
        When another campaign owns the folder (see :func:`check_results_owner`).
    """
    check_results_owner(results, campaign_id)
    owner_file = Path(results) / OWNER_FILE
    if not owner_file.is_file():
        owner_file.parent.mkdir(parents=True, exist_ok=True)
        owner_file.write_text(f"{campaign_id}\n", encoding="utf-8")


#: The per-submission outputs of the workflow (``check_submission``), by folder
#: under the results and suffix.
SUBMISSION_OUTPUTS = (
    ("validation", ".json"),
    ("validation", ".md"),
    ("scores/items", ".tsv"),
    ("scores/systems", ".json"),
    ("logs/check_submission", ".log"),
)


def prune_removed_submissions(
    results: str | Path, submissions: Sequence[tuple[str, str]]
) -> list[str]:
    """Remove the per-submission results of submissions no longer in the
    submissions folder, and their team folders once empty.

    A submission taken out (withdrawn, moved, renamed) leaves nothing behind:
    no validation record or score file a reader of ``results/`` could take for
    part of the campaign. Only the files the workflow writes per submission
    (:data:`SUBMISSION_OUTPUTS`) are touched.

    Returns
    -------
    list of str
        ``team/system`` of every submission whose results were removed, sorted.
    """
    results = Path(results)
    keep = {f"{team}/{system}" for team, system in submissions}
    removed: set[str] = set()
    for folder, suffix in SUBMISSION_OUTPUTS:
        base = results / folder
        if not base.is_dir():
            continue
        for path in sorted(base.glob(f"*/*{suffix}")):
            name = f"{path.parent.name}/{path.name[: -len(suffix)]}"
            if name not in keep and path.is_file() and not path.is_symlink():
                path.unlink()
                removed.add(name)
        for team in sorted(p for p in base.iterdir() if p.is_dir()):
            if not any(team.iterdir()):
                team.rmdir()
    return sorted(removed)

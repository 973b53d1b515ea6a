"""What the subcommands share: reading a config and a data set, finding a study."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from stecflow.core.errors import StecflowError
from stecflow.tasks.formats import chosen_format, layout
from stecflow.tasks.formats import get as get_format
from stecflow.tasks.formats import names as format_names

if TYPE_CHECKING:
    from stecflow.data.model import Item

__all__ = [
    "MAX_RESAMPLES",
    "SITUATED_BASELINES",
    "SITUATED_TASK",
    "campaign_folder",
    "from_config",
    "load_config",
    "load_items",
    "own_tasks",
    "study_dir",
]

#: The task type of a dialogue corpus's instances (its pronoun decisions are
#: summarised by ``score`` and made by the situated baselines).
SITUATED_TASK = "situated_dialogue"
#: Most bootstrap resamples (the config schema's maximum of
#: ``scoring.bootstrap.resamples``).
MAX_RESAMPLES = 10_000
#: The baselines of the situated task (:mod:`stecflow.baselines.situated`).
SITUATED_BASELINES = ("recency", "logistic")


def own_tasks(data_format: str | None) -> tuple[str, ...]:
    """The task types a data set of *data_format* feeds alone (a dialogue
    corpus, a JSON Lines test set: :attr:`stecflow.tasks.formats.TestsetFormat.alone`),
    else none."""
    if data_format not in format_names():
        return ()
    found = get_format(data_format)
    return tuple(found.tasks or ()) if found.alone else ()


def load_config(path: str) -> dict:
    """A campaign config, read as the workflow reads it
    (:func:`stecflow.campaign.read_config_file`: no aliases, no key twice), its
    task types known and fitting its test set's format
    (:func:`stecflow.campaign.check_tasks`): a typo in ``campaign.tasks`` is
    named before any file is read with the wrong reader."""
    from stecflow.campaign import check_tasks, read_config_file
    from stecflow.core.errors import ConfigError

    config = read_config_file(path)
    try:
        check_tasks(config)
    except ConfigError as exc:
        raise ConfigError(exc.message, file=path, field=exc.field) from None
    return config


def campaign_folder(config_path: str) -> Path:
    """The folder a campaign config's relative paths start from.

    Snakemake runs in the campaign's folder and reads ``config/<name>.yaml`` from
    there, so the paths of a config in a folder named ``config`` count from the
    folder above it; any other config's paths count from its own folder. Never
    from the current directory.
    """
    folder = Path(os.path.abspath(config_path)).parent
    return folder.parent if folder.name == "config" else folder


def from_config(base: Path, path: str) -> str:
    return str(Path(path) if Path(path).is_absolute() else base / path)


def load_items(path: str, data_format: str | None) -> list[Item]:
    """Read a data set, first saying which ``--format`` fits a known layout.

    A dialogue corpus gives one item per referring expression of the solvers
    (:func:`~stecflow.tasks.situated_dialogue.items_from_sessions`).
    """
    from stecflow.campaign import load_testset

    data_format = chosen_format(path, data_format)
    found = layout(Path(path))  # a layout only one format reads
    if found is not None and found[0] != data_format:
        raise StecflowError(f"{path} is {found[1]}; give --format {found[0]}")
    return load_testset(path, data_format)


def study_dir(study: str, results: str | Path = "results") -> str:
    """A study ID means ``results/studies/<id>``, or the study of that ID in the
    one campaign results folder below ``results/`` that has it (a campaign with its
    own ``results:`` key, e.g. ``results/b5-ref/studies/<id>``); anything else is a
    folder.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "b5-ref" / "studies" / "id").mkdir(parents=True)
    >>> study_dir("id", root) == str(root / "b5-ref" / "studies" / "id")
    True
    """
    from stecflow.core.errors import ConfigError
    from stecflow.core.ids import is_valid_id

    if not is_valid_id(study) or Path(study).exists():
        return study
    default = Path(results) / "studies" / study
    found = sorted(str(p) for p in Path(results).glob(f"*/studies/{study}"))
    if default.exists() or not found:
        return str(default)
    if len(found) > 1:
        raise ConfigError(
            f"study {study!r} is in several campaigns' results ({', '.join(found)});"
            " give the folder of the one to serve"
        )
    return found[0]

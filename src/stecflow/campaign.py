"""The campaign: its configuration, its test set and its submissions.

``discover_submissions`` is the one scan of the submissions folder the workflow makes
(at parse time, sorted); ``check_config`` holds the cross-key rules a JSON schema
cannot express; ``load_testset`` reads the test set in whichever format the config
names and is what every stage uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ConfigError
from .ids import is_valid_id
from .model import Item

__all__ = [
    "DATA_FORMATS",
    "Discovery",
    "check_config",
    "discover_submissions",
    "late_submissions",
    "load_testset",
    "prepare_testset",
]

#: Test-set formats: a TUNA-style XML file or folder, or the b5-ref corpus folder.
DATA_FORMATS = ("tuna", "b5-ref")


@dataclass(frozen=True)
class Discovery:
    """What the submissions folder holds.

    ``submissions`` lists ``(team, system)`` pairs, sorted, whose folder names are
    valid IDs; ``problems`` lists entries that cannot become submissions, each with
    the reason (they are shown in the validation summary, never dropped silently).
    """

    submissions: tuple[tuple[str, str], ...]
    problems: tuple[tuple[str, str], ...]


def discover_submissions(root: str | Path) -> Discovery:
    """Find ``<root>/<team>/<system>/`` folders, sorted, in one pass.

    Hidden entries (names starting with ``.``) are ignored. Files where a team or
    system folder is expected, and folder names that are not valid IDs, are listed
    as problems.

    Parameters
    ----------
    root
        The submissions folder; a missing folder means no submissions.
    """
    root = Path(root)
    found: list[tuple[str, str]] = []
    problems: list[tuple[str, str]] = []
    if not root.is_dir():
        return Discovery((), ())
    for team_dir in sorted(root.iterdir()):
        if team_dir.name.startswith("."):
            continue
        if not team_dir.is_dir():
            problems.append((team_dir.name, "a file where a team folder was expected"))
            continue
        for system_dir in sorted(team_dir.iterdir()):
            name = f"{team_dir.name}/{system_dir.name}"
            if system_dir.name.startswith("."):
                continue
            if not system_dir.is_dir():
                problems.append((name, "a file where a system folder was expected"))
            elif not (is_valid_id(team_dir.name) and is_valid_id(system_dir.name)):
                problems.append(
                    (
                        name,
                        "folder names may use only letters, digits, '-' and '_' and"
                        " must start with a letter or digit; rename the folder",
                    )
                )
            else:
                found.append((team_dir.name, system_dir.name))
    return Discovery(tuple(found), tuple(problems))


def late_submissions(
    root: str | Path, submissions: Sequence[tuple[str, str]], deadline: str | None
) -> frozenset[tuple[str, str]]:
    """The submissions whose ``system.yaml`` marks them late (read at DAG build).

    The workflow keeps these out of the inputs of the statistics (unless the config
    includes late submissions), so that adding one re-runs its own jobs and the
    tables and report that list it, not the analyses. Validation stays the judge:
    a file that cannot be read here counts as on time, and the statistics still
    drop whatever its validation record calls late.

    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "t" / "s").mkdir(parents=True)
    >>> meta = root / "t" / "s" / "system.yaml"
    >>> _ = meta.write_text("submitted: 2026-06-20T00:00:00Z")
    >>> sorted(late_submissions(root, [("t", "s")], "2026-06-01T23:59:59Z"))
    [('t', 's')]
    """
    import yaml

    from .validation import is_late, timestamp_text

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    late = set()
    for team, system in submissions:
        try:
            text = (Path(root) / team / system / "system.yaml").read_text("utf-8")
            metadata = yaml.load(text, Loader=loader)  # noqa: S506 (a safe loader)
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue
        if isinstance(metadata, dict):
            submitted = timestamp_text(metadata.get("submitted"))
            if is_late(
                {"late": metadata.get("late"), "submitted": submitted}, deadline
            ):
                late.add((team, system))
    return frozenset(late)


def check_config(config: Mapping[str, Any]) -> None:
    """Check the rules of a campaign config that its JSON schema cannot express.

    Raises
    ------
    ConfigError
        Naming the key path of the first problem found.
    """
    from .validation import parse_timestamp

    campaign = config.get("campaign", {})
    deadline = campaign.get("deadline")
    if deadline is not None:
        try:
            parse_timestamp(str(deadline))
        except ValueError as exc:
            raise ConfigError(
                f"{exc}; write it as 2026-06-01T23:59:59Z", field="campaign.deadline"
            ) from None
    from .analysis import analysis_specs

    analysis_specs(config)  # checks the metrics too
    data = config.get("data", {})
    if data.get("format") == "b5-ref" and "attribute_selection" not in campaign.get(
        "tasks", []
    ):
        raise ConfigError(
            "b5-ref has no grid positions or realiser data; its campaigns must run the"
            " attribute_selection task",
            field="campaign.tasks",
        )


def load_testset(path: str | Path, data_format: str = "tuna") -> list[Item]:
    """Read the campaign's test set in the format the config names.

    Parameters
    ----------
    path
        A TUNA-style XML file or folder (``tuna``) or the b5-ref folder (``b5-ref``).
    data_format
        One of :data:`DATA_FORMATS`.
    """
    if data_format == "tuna":
        from .corpus import read_items

        return read_items(path)
    if data_format == "b5-ref":
        from .b5ref import read_b5ref

        return read_b5ref(path)
    raise ConfigError(
        f"unknown format {data_format!r}; expected one of {', '.join(DATA_FORMATS)}",
        field="data.format",
    )


def prepare_testset(path: str | Path, data_format: str, out_path: str | Path) -> int:
    """Read the test set in its own format and write it as one TUNA-style XML file.

    Every later stage reads this canonical file, whatever the source format.
    Returns the number of items written.
    """
    from .corpus import write_items

    items = load_testset(path, data_format)
    write_items(items, out_path)
    return len(items)

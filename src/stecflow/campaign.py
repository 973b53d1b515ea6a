"""The campaign: its configuration, its test set and its submissions.

``discover_submissions`` is the one scan of the submissions folder the workflow makes
(at parse time, sorted); ``check_config`` holds the cross-key rules a JSON schema
cannot express; ``load_testset`` reads the test set in whichever format the config
names and is what every stage uses.
"""

from __future__ import annotations

import datetime
import os
import posixpath
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stecflow.core.errors import ConfigError
from stecflow.core.ids import MAX_ID_LENGTH, is_valid_id
from stecflow.data.model import Item
from stecflow.submissions.safepath import leads_outside, read_inside
from stecflow.tasks import formats as testset_formats

__all__ = [
    "DATA_FORMATS",
    "analysed_submissions",
    "OWNER_FILE",
    "Discovery",
    "check_config",
    "check_tasks",
    "prune_removed_submissions",
    "check_config_files",
    "check_results_owner",
    "read_config_file",
    "claim_results",
    "discover_submissions",
    "late_submissions",
    "superseded_submissions",
    "load_testset",
    "prepare_testset",
    "prepared_testset_name",
    "results_dir",
    "validate_config",
]

#: The built-in test-set formats: a TUNA-style XML file or folder, the b5-ref
#: corpus folder, a folder of ``stecflow-dialogue`` sessions (the situated task of
#: seed 000), or a JSON Lines file of the text-generation task
#: (:mod:`stecflow.data.jsonl`); each is declared in :mod:`stecflow.tasks.formats`.
DATA_FORMATS = testset_formats.names()

#: Subset kinds scores always have: a meta field in ``data.subsets`` may not
#: take one of these names.
_RESERVED_SUBSETS = ("all", "subdomain", "condition")

#: The file in a results folder that names the campaign writing there.
OWNER_FILE = ".campaign"


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
    system folder is expected, folder names that are not valid IDs (see
    :mod:`stecflow.core.ids`), and symbolic links that lead out of *root* are listed as
    problems; links that stay inside *root* are followed (see
    :mod:`stecflow.submissions.safepath`).

    Parameters
    ----------
    root
        The submissions folder; a missing folder means no submissions.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> base = pathlib.Path(tempfile.mkdtemp())
    >>> (base / "subs" / "team-1" / "primary").mkdir(parents=True)
    >>> (base / "elsewhere").mkdir()
    >>> (base / "subs" / "team-2").symlink_to(base / "elsewhere")
    >>> found = discover_submissions(base / "subs")
    >>> found.submissions
    (('team-1', 'primary'),)
    >>> found.problems[0][0]
    'team-2'
    """
    root = Path(root)
    found: list[tuple[str, str]] = []
    problems: list[tuple[str, str]] = []
    if not root.is_dir():
        return Discovery((), ())
    for team_dir in _entries(root):
        team = _shown_name(team_dir.name)
        problem = _folder_problem(team_dir, root, "team")
        if problem:
            problems.append((team, problem))
            continue
        for system_dir in _entries(Path(team_dir.path)):
            name = f"{team}/{_shown_name(system_dir.name)}"
            problem = _folder_problem(system_dir, root, "system")
            if problem:
                problems.append((name, problem))
            elif not (is_valid_id(team_dir.name) and is_valid_id(system_dir.name)):
                problems.append(
                    (
                        name,
                        "folder names may use only letters (a-z, A-Z), digits, '-' and"
                        " '_', must start with a letter or digit and have at most"
                        f" {MAX_ID_LENGTH} characters; rename the folder",
                    )
                )
            else:
                found.append((team_dir.name, system_dir.name))
    return Discovery(tuple(found), tuple(problems))


def _shown_name(name: str) -> str:
    """A folder name as text for the summary (bytes that are not UTF-8 escaped).

    >>> _shown_name("caf\\udce9")
    'caf\\\\xe9'
    """
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def _entries(folder: Path) -> list[os.DirEntry]:
    """The entries of *folder* not hidden (no leading dot), sorted by name."""
    with os.scandir(folder) as entries:
        return sorted(
            (entry for entry in entries if not entry.name.startswith(".")),
            key=lambda entry: entry.name,
        )


def _folder_problem(entry: os.DirEntry, root: Path, kind: str) -> str | None:
    """Why *entry* cannot be a team or system folder, or None if it can.

    A folder that is not a link, in a folder already found inside *root*, is
    inside it: only links (and what is not a folder) need resolving.
    """
    if entry.is_dir(follow_symlinks=False):
        return None
    folder = Path(entry.path)
    if leads_outside(folder, root):
        return (
            "a symbolic link that leads out of the submissions folder (stecflow"
            f" follows links only inside it); put the {kind} folder itself here"
        )
    if not folder.is_dir():
        if folder.is_symlink() and not folder.exists():
            return f"a symbolic link to nothing where a {kind} folder was expected"
        return f"a file where a {kind} folder was expected"
    return None


def late_submissions(
    root: str | Path, submissions: Sequence[tuple[str, str]], deadline: str | None
) -> frozenset[tuple[str, str]]:
    """The submissions whose ``system.yaml`` marks them late (read at DAG build).

    The workflow keeps these out of the inputs of the statistics (unless the config
    includes late submissions), so that adding one re-runs its own jobs and the
    tables and report that list it, not the analyses. Validation stays the judge:
    a file that cannot be read here (or is a link leading out of *root*) counts as
    on time, and the statistics still drop whatever its validation record calls
    late.

    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "t" / "s").mkdir(parents=True)
    >>> meta = root / "t" / "s" / "system.yaml"
    >>> _ = meta.write_text("submitted: 2026-06-20T00:00:00Z")
    >>> sorted(late_submissions(root, [("t", "s")], "2026-06-01T23:59:59Z"))
    [('t', 's')]
    """
    from stecflow.submissions.metadata import is_late

    late = set()
    for team, system in submissions:
        metadata = _metadata_at_build(root, team, system)
        if is_late(
            {"late": metadata.get("late"), "submitted": metadata.get("submitted")},
            deadline,
        ):
            late.add((team, system))
    return frozenset(late)


def _metadata_at_build(root: str | Path, team: str, system: str) -> dict[str, Any]:
    """The keys :data:`BUILD_KEYS` of a submission's ``system.yaml`` as read at
    DAG build ({} if unreadable)."""
    from stecflow.core.errors import StecflowError
    from stecflow.data.yamlsafe import MAX_BYTES as MAX_YAML_BYTES
    from stecflow.data.yamlsafe import load_yaml

    path = Path(root) / team / system / "system.yaml"
    try:
        # the hardened reader: an alias bomb or a huge file must not stall
        # the DAG build (validation reports what is wrong with them)
        stat = path.stat()
        if stat.st_size > MAX_YAML_BYTES:
            return {}
        # read once per file state (lateness and supersession both ask, and a
        # build of the workflow reads what an earlier one stored)
        key = "\0".join(
            map(
                str,
                (path, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns),
            )
        )
        if key not in _READ_AT_BUILD:
            metadata = load_yaml(read_inside(path, root), str(path))
            if not isinstance(metadata, dict):
                metadata = {}
            _READ_AT_BUILD[key] = {k: metadata[k] for k in BUILD_KEYS if k in metadata}
    except (OSError, StecflowError):
        return {}
    _USED_AT_BUILD.add(key)
    return _READ_AT_BUILD[key]


#: The keys of ``system.yaml`` the DAG build reads: lateness and supersession.
BUILD_KEYS = ("late", "submitted", "supersedes")
#: What :func:`_metadata_at_build` read, by file and its state (path, identity,
#: size, modification and change times); the keys read since the last store.
_READ_AT_BUILD: dict[str, dict[str, Any]] = {}
_USED_AT_BUILD: set[str] = set()

#: How the store keeps each YAML value's type: tag -> (type, to text, from text).
_STORED_TYPES: dict[str, tuple[type, Any, Any]] = {
    "str": (str, str, str),
    "bool": (bool, int, bool),
    "int": (int, int, int),
    "float": (float, float, float),
    "datetime": (
        datetime.datetime,
        datetime.datetime.isoformat,
        datetime.datetime.fromisoformat,
    ),
    "date": (datetime.date, datetime.date.isoformat, datetime.date.fromisoformat),
}


def _stored(value: Any) -> list[Any] | None:
    """*value* as the store writes it, ``[tag, value]`` (None: not storable)."""
    if value is None:
        return ["none", None]
    for tag, (kind, encode, _) in _STORED_TYPES.items():
        if type(value) is kind:
            return [tag, encode(value)]
    return None


def _restored(stored: Any) -> Any:
    tag, value = stored
    return None if tag == "none" else _STORED_TYPES[tag][2](value)


def load_build_store(path: str | Path) -> None:
    """Take what an earlier DAG build read of the ``system.yaml`` files (see
    :func:`save_build_store`); a missing or unreadable store is ignored."""
    import json

    try:
        stored = json.loads(Path(path).read_text(encoding="utf-8"))
        found = {
            key: {name: _restored(value) for name, value in entry.items()}
            for key, entry in stored["files"].items()
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return
    for key, entry in found.items():
        _READ_AT_BUILD.setdefault(key, entry)


def save_build_store(path: str | Path) -> None:
    """Store what this build read of the ``system.yaml`` files it used, by file
    state, so that the next build (a re-run for a late submission, a dry run)
    reads only the files added or changed since. Never fails the build."""
    import json

    files = {}
    for key in sorted(_USED_AT_BUILD & _READ_AT_BUILD.keys()):
        entry = {name: _stored(value) for name, value in _READ_AT_BUILD[key].items()}
        if all(value is not None for value in entry.values()):
            files[key] = entry
    _USED_AT_BUILD.clear()
    text = json.dumps({"files": files}, sort_keys=True, indent=0) + "\n"
    target = Path(path)
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        partial.write_text(text, encoding="utf-8")
        partial.replace(target)
    except OSError:
        partial.unlink(missing_ok=True)


def superseded_submissions(
    root: str | Path, submissions: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], str]:
    """The submissions a corrected version replaces (read at DAG build).

    A system whose ``system.yaml`` says ``supersedes: <system>`` replaces that
    earlier system of its own team, as seed 003 used the corrected IS-FBS instead
    of the buggy one; without the key both stand side by side, as seed 002's
    Table 1 shows IS-FBS and *IS-FBS. The superseded system is still validated,
    scored and shown (marked superseded), but it leaves the official ranking and
    the statistics, whatever becomes of the correction. Names that are not another
    submission of the same team are ignored here (validation rejects them), and
    so are the keys of a cycle (``a`` supersedes ``b``, ``b`` supersedes ``a``:
    neither is superseded, so the team stays in the statistics; the validation
    summary reports the cycle as an error,
    :mod:`stecflow.submissions.supersession`).

    Returns
    -------
    dict
        ``(team, superseded system)`` -> the superseding system (several joined
        with ``,``).

    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> for s in ("fbs", "fbs-fixed"):
    ...     _ = (root / "is" / s).mkdir(parents=True)
    >>> _ = (root / "is" / "fbs-fixed" / "system.yaml").write_text("supersedes: fbs")
    >>> superseded_submissions(root, [("is", "fbs"), ("is", "fbs-fixed")])
    {('is', 'fbs'): 'fbs-fixed'}
    """
    from stecflow.submissions.supersession import supersession

    found = supersession(
        {
            (team, system): _metadata_at_build(root, team, system).get("supersedes")
            for team, system in submissions
        }
    )
    return {key: ",".join(systems) for key, systems in found.superseded.items()}


def analysed_submissions(
    root: str | Path,
    submissions: Sequence[tuple[str, str]],
    deadline: str | None,
    *,
    include_late: bool = False,
    store: str | Path | None = None,
) -> tuple[tuple[str, str], ...]:
    """The submissions whose scores the statistics read, in the given order.

    Late submissions stay out unless *include_late*; superseded ones always do
    (:func:`superseded_submissions`). Worked out from ``system.yaml`` at DAG
    build, so that adding a late submission does not re-run the analyses. With
    *store* (a JSON file), what earlier builds read of the files that have not
    changed is taken from it, and what this one read is stored there
    (:func:`save_build_store`): a 1,000-submission build otherwise spends a
    quarter of its time reading them with the hardened YAML reader.

    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> for s in ("a", "b", "c"):
    ...     _ = (root / "t" / s).mkdir(parents=True)
    >>> _ = (root / "t" / "b" / "system.yaml").write_text("supersedes: a")
    >>> _ = (root / "t" / "c" / "system.yaml").write_text("late: true")
    >>> analysed_submissions(root, [("t", "a"), ("t", "b"), ("t", "c")], None)
    (('t', 'b'),)
    """
    if store is not None:
        load_build_store(store)
    left_out = set(superseded_submissions(root, submissions))
    if not include_late:
        left_out |= late_submissions(root, submissions, deadline)
    if store is not None:
        save_build_store(store)
    return tuple(pair for pair in submissions if pair not in left_out)


def validate_config(config: MutableMapping[str, Any], schema: str | Path) -> None:
    """Check *config* against the JSON schema in *schema* (YAML) and fill in the
    defaults it gives for absent keys, as Snakemake's ``validate`` does (draft
    2020-12, a ``properties`` validator that sets defaults first).

    It reads the schema with libyaml where PyYAML has it (Snakemake's YAML
    template reader takes 0.15 s of every start on the 60 KB schema) and names
    the key path of the first problem instead of printing the whole schema.

    Raises
    ------
    ConfigError
        Naming the key path (``config``, then the keys) and what the schema
        expected.
    """
    import jsonschema
    import yaml

    from stecflow.data.yamlsafe import FAST_SAFE_LOADER

    with open(schema, encoding="utf-8") as handle:
        spec = yaml.load(handle, Loader=FAST_SAFE_LOADER)
    _with_study_kinds(spec)
    check_properties = jsonschema.Draft202012Validator.VALIDATORS["properties"]

    def set_defaults(validator: Any, properties: Any, instance: Any, subschema: Any):
        if isinstance(instance, dict):
            for name, property_schema in properties.items():
                if "default" in property_schema:
                    instance.setdefault(name, property_schema["default"])
        yield from check_properties(validator, properties, instance, subschema)

    validator = jsonschema.validators.extend(
        jsonschema.Draft202012Validator, {"properties": set_defaults}
    )(spec)
    error = jsonschema.exceptions.best_match(validator.iter_errors(config))
    if error is not None:
        keys = "".join(
            f"[{key}]" if isinstance(key, int) else f".{key}"
            for key in error.absolute_path
        )
        raise ConfigError(error.message, field=f"config{keys}")


def _with_study_kinds(schema: MutableMapping[str, Any]) -> None:
    """Give a study's ``task`` the registered study kinds as its enum
    (:mod:`stecflow.studykinds`): the schema's YAML lists none, so a kind is
    declared in one place."""
    from stecflow.studykinds.registry import names

    studies = schema.get("properties", {}).get("studies", {})
    task = studies.get("items", {}).get("properties", {}).get("task")
    if task is not None:
        task["enum"] = list(names())


#: Largest campaign config file read, in bytes (the demo's is 13 KB).
MAX_CONFIG_BYTES = 1024 * 1024


def read_config_file(path: str | Path) -> dict[str, Any]:
    """A campaign config file, read with the hardened reader of ``system.yaml``.

    Anchors and aliases (an alias bomb in ``campaign.description`` takes
    gigabytes once something walks it), tags, a key given twice (which a plain
    YAML reader takes silently, keeping the last), a lone surrogate or a
    control character in a text (:mod:`stecflow.data.yamlsafe`) are refused
    before anything else reads the config. JSON configs are YAML too.

    Raises
    ------
    ConfigError
        Naming the file, the line and the key path.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "c.yaml"
    >>> _ = path.write_text("campaign:\\n  id: a\\n  id: b\\n")
    >>> read_config_file(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    stecflow.core.errors.ConfigError: ...c.yaml, line 3: key 'id' is given twice (first on line 2); keep one
    """  # noqa: E501
    from stecflow.core.errors import YAMLError
    from stecflow.data.yamlsafe import read_yaml

    try:
        data = read_yaml(path, max_bytes=MAX_CONFIG_BYTES)
    except OSError as exc:
        raise ConfigError(
            f"cannot read the file ({exc.strerror})", file=str(path)
        ) from None
    except YAMLError as exc:
        raise ConfigError(
            exc.message, file=exc.file, line=exc.line, field=exc.field
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(
            "expected a mapping of keys to values (campaign:, data:, ...)",
            file=str(path),
            line=1,
        )
    return data


def check_config_files(paths: Sequence[str | Path]) -> None:
    """Read every config file the workflow was given with
    :func:`read_config_file`: the workflow's first check, before the schema.

    Raises
    ------
    ConfigError
        For the first file refused, naming its line and key path.
    """
    for path in paths:
        read_config_file(path)


def _check_submissions_root(root: Any) -> None:
    """Refuse a submissions folder that holds the campaign itself: ``/``, the
    working folder or a folder above it (every folder in it would be taken for
    a team)."""
    if not isinstance(root, str) or not root:
        return
    where = Path(os.path.abspath(root))
    here = Path.cwd()
    if where == Path(where.anchor) or where == here or where in here.parents:
        what = (
            "the root of the file system"
            if where == Path(where.anchor)
            else "the campaign's own folder"
            if where == here
            else "a folder above the campaign"
        )
        raise ConfigError(
            f"{root!r} is {what}: every folder in it would be taken for a team."
            " Give the folder that holds only the <team>/<system>/ folders"
            " (e.g. submissions)",
            field="submissions.root",
        )


def check_tasks(config: Mapping[str, Any]) -> None:
    """Check that ``campaign.tasks`` names task types stecflow knows and that
    they fit the test set's format (``data.format``): the first check of the
    workflow and of every command given ``--config``, before any file is read
    by the wrong reader.

    Raises
    ------
    ConfigError
        Naming the key path: an unknown task type (with the known ones), or
        tasks that do not fit the data.
    """
    from stecflow.tasks.registry import get as task_type

    campaign = config.get("campaign") or {}
    data = config.get("data") or {}
    if not isinstance(campaign, Mapping) or not isinstance(data, Mapping):
        return  # the schema says what is wrong
    tasks = campaign.get("tasks") or []
    if not isinstance(tasks, list):
        return
    for n, name in enumerate(tasks):
        try:
            task_type(str(name))
        except ConfigError as exc:
            raise ConfigError(exc.message, field=f"campaign.tasks[{n}]") from None
    chosen = data.get("format")
    for (
        testset_format
    ) in testset_formats.formats():  # a format that feeds its task types alone
        if not testset_format.alone:
            continue
        own = testset_format.tasks or ()
        on_it = chosen == testset_format.name
        if on_it != any(task in own for task in tasks) or (on_it and len(tasks) != 1):
            task = " or ".join(own)
            raise ConfigError(
                f"{testset_format.what} (data.format: {testset_format.name}) is"
                f" for the {task} task alone, and that task needs one: set"
                f" campaign.tasks: [{task}] with data.format:"
                f" {testset_format.name}{testset_format.hint}",
                field="campaign.tasks",
            )


def check_config(config: Mapping[str, Any]) -> None:
    """Check the rules of a campaign config that its JSON schema cannot express.

    Raises
    ------
    ConfigError
        Naming the key path of the first problem found.
    """
    from stecflow.submissions.metadata import parse_timestamp

    _check_submissions_root((config.get("submissions") or {}).get("root"))
    check_tasks(config)
    campaign = config.get("campaign", {})
    deadline = campaign.get("deadline")
    if deadline is not None:
        try:
            parse_timestamp(str(deadline))
        except ValueError as exc:
            raise ConfigError(
                f"{exc}; write it as 2026-06-01T23:59:59Z", field="campaign.deadline"
            ) from None
    data = config.get("data", {})
    known = data.get("format") in testset_formats.names()
    chosen = testset_formats.get(data["format"]) if known else None
    for n, name in enumerate(data.get("subsets") or []):
        if chosen is None or not chosen.has_meta:
            with_meta = " or ".join(
                f"{f.name} test set (data.format: {f.name})"
                for f in testset_formats.formats()
                if f.has_meta
            )
            raise ConfigError(
                f"only a {with_meta} has meta fields to give subsets; remove"
                " data.subsets",
                field=f"data.subsets[{n}]",
            )
        if name in _RESERVED_SUBSETS:
            raise ConfigError(
                f"{name!r} names a subset every table has already"
                f" ({', '.join(_RESERVED_SUBSETS)}); name a meta field of the test"
                " set",
                field=f"data.subsets[{n}]",
            )
    from stecflow.judgments.normalise import check_normalise

    for n, study in enumerate(config.get("studies") or []):
        check_normalise(study, f"studies[{n}]")  # per-rater z-scores: ratings only
    from stecflow.analysis.analyses import analysis_specs

    analysis_specs(config)  # checks the metrics too
    for task in chosen.required_tasks if chosen is not None else ():
        if task not in campaign.get("tasks", []):
            raise ConfigError(
                f"{chosen.name} {chosen.requirement}; its campaigns must run the"
                f" {task} task",
                field="campaign.tasks",
            )


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


def load_testset(path: str | Path, data_format: str = "tuna") -> list[Item]:
    """Read the campaign's test set in the format the config names.

    Parameters
    ----------
    path
        A TUNA-style XML file or folder (``tuna``), the b5-ref folder
        (``b5-ref``), a folder of dialogue sessions (``dialogue``: one item per
        solver expression), or a JSON Lines file (``text``: one item per line,
        :func:`stecflow.tasks.text_generation.read_items`).
    data_format
        A format of the registry :mod:`stecflow.tasks.formats` (the built-in
        ones are :data:`DATA_FORMATS`).
    """
    return testset_formats.get(data_format).read(path)


def prepared_testset_name(data_format: str) -> str:
    """The file name of the prepared test set under ``<results>/data/``.

    >>> prepared_testset_name("tuna"), prepared_testset_name("dialogue")
    ('testset.xml', 'testset.json')
    >>> prepared_testset_name("text")
    'testset.jsonl'
    """
    return testset_formats.get(data_format).prepared_name


def job_testset_name(data_format: str) -> str:
    """The file name, under ``<results>/data/``, of the test set that the
    per-submission jobs read.

    The compact form (:mod:`stecflow.data.compact`) for the REG formats, whose
    prepared test set is XML; the prepared test set itself (JSON already) for
    the others.

    >>> job_testset_name("tuna"), job_testset_name("dialogue")
    ('testset.compact.json', 'testset.json')
    """
    return testset_formats.get(data_format).job_name


def prepare_testset(
    path: str | Path,
    data_format: str,
    out_path: str | Path,
    compact_path: str | Path | None = None,
) -> int:
    """Read the test set in its own format and write it in stecflow's own.

    Every later stage reads this canonical file (with
    :func:`stecflow.tasks.registry.read_testset`), whatever the source format:
    stecflow XML for the REG formats, a dialogue corpus file (every session in
    one JSON document, :func:`stecflow.data.dialogue.write_corpus_file`) for
    ``dialogue``, canonical JSON Lines
    (:func:`stecflow.tasks.text_generation.write_testset`) for ``text``. For the
    REG formats, *compact_path* (if given) receives the compact form of the
    items read back from that XML (:func:`stecflow.data.compact.write_compact`),
    which the per-submission jobs load instead of the XML. Returns the number
    of items. The writer is the format's own
    (:attr:`stecflow.tasks.formats.TestsetFormat.prepare`).
    """
    return testset_formats.get(data_format).prepare(path, out_path, compact_path)

"""The campaign config: reading its files, checking it against the JSON schema and
the cross-key rules the schema cannot express (``check_config``, ``check_tasks``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping, Sequence
from pathlib import Path
from typing import Any

from stecflow.core.errors import ConfigError
from stecflow.tasks import formats as testset_formats

__all__ = [
    "MAX_CONFIG_BYTES",
    "check_config",
    "check_config_files",
    "check_tasks",
    "read_config_file",
    "validate_config",
]

#: Subset kinds scores always have: a meta field in ``data.subsets`` may not
#: take one of these names.
_RESERVED_SUBSETS = ("all", "subdomain", "condition")


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
    _with_study_kinds(spec, config)
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


def _with_study_kinds(schema: MutableMapping[str, Any], config: Any) -> None:
    """Give a study's ``task`` the registered study kinds as its enum
    (:mod:`stecflow.studykinds`): the schema's YAML lists none, so a kind is
    declared in one place. A kind the config names that is not built in is
    looked for among the installed plug-ins first."""
    from stecflow.studykinds.registry import load_plugins, names

    entries = config.get("studies") if isinstance(config, Mapping) else None
    if not isinstance(entries, list):
        entries = []
    named = {entry.get("task") for entry in entries if isinstance(entry, Mapping)}
    if named - {None} - set(names()):
        load_plugins()
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


def _check_rank_by(config: Mapping[str, Any]) -> None:
    """``report.rank_by``: scores by a configured metric, a study kind's
    tables by a measure it declares."""
    from stecflow.studykinds.registry import get, is_kind, names

    rank_by = (config.get("report") or {}).get("rank_by") or {}
    metrics = [
        str(m.get("id"))
        for m in (config.get("scoring") or {}).get("metrics") or []
        if isinstance(m, Mapping)
    ]
    for table, measure in rank_by.items():
        where = f"report.rank_by.{table}"
        if table == "scores":
            if measure not in metrics:
                raise ConfigError(
                    f"{measure!r} is not a metric of scoring.metrics (it has:"
                    f" {', '.join(metrics) or 'none'})",
                    field=where,
                )
        elif not is_kind(table):
            raise ConfigError(
                f"{table!r} is not a kind of table: give scores or a study kind"
                f" ({', '.join(names())})",
                field=where,
            )
        else:
            declared = [m.name for m in get(table).measures]
            if declared and measure not in declared:
                raise ConfigError(
                    f"a {table} study has no measure {measure!r} (it has:"
                    f" {', '.join(declared)})",
                    field=where,
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
    from stecflow.analysis.specs import analysis_specs

    analysis_specs(config)  # checks the metrics too
    _check_rank_by(config)
    from stecflow.report.measure_types import check_measure_types

    check_measure_types(config)
    for task in chosen.required_tasks if chosen is not None else ():
        if task not in campaign.get("tasks", []):
            raise ConfigError(
                f"{chosen.name} {chosen.requirement}; its campaigns must run the"
                f" {task} task",
                field="campaign.tasks",
            )

"""The human-studies stage: designs from the config, checked against the campaign.

A study is declared in the config (``studies``) with an explicit list of systems
(``team/system``, human reference sets included), its task and its number of
subjects. Its design depends only on that entry, the test set and the seed, never
on "all submissions", so a late submission cannot change an opened study; a late
system goes into a new study.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stecflow.core.errors import ConfigError
from stecflow.core.io import format_tsv, write_json, write_tsv
from stecflow.core.text import in_words
from stecflow.studykinds.base import EXCLUSION_RULES
from stecflow.studykinds.registry import get as study_kind
from stecflow.studykinds.registry import hook, kinds, names_where

if TYPE_CHECKING:
    from stecflow.data.model import Output

__all__ = [
    "DESIGN_KEYS",
    "study_outputs",
    "build_stimuli",
    "check_studies",
    "design_spec",
    "design_study",
    "make_design",
    "study_specs",
]

log = logging.getLogger(__name__)


#: The keys of a study entry that decide its design and stimuli. Only these are
#: params of the design and stimuli rules, so adding response files or corrections
#: to an opened study re-runs the merge of its judgments, never its stimuli.
DESIGN_KEYS = (
    "id",
    "title",
    "task",
    "variant",
    "design",
    "shared",
    "systems",
    "subdomains",
    "sample_items",
    "subjects",
    "seed",
    "practice",
    "carryover_balanced",
    "group_by_subdomain",
    "experiment",
    "realise",
    "situated",
    "criteria",
    "controls",
    "speech",
    "sha256",
)


def design_spec(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The design-relevant part of a study entry (see :data:`DESIGN_KEYS`)."""
    return {key: spec[key] for key in DESIGN_KEYS if key in spec}


def study_specs(config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The configured studies, with defaults filled in; IDs must be unique."""
    specs, seen = [], set()
    for n, entry in enumerate(config.get("studies") or []):
        if entry["id"] in seen:
            raise ConfigError(
                f"study ID {entry['id']!r} is used twice", field=f"studies[{n}].id"
            )
        seen.add(entry["id"])
        spec = {
            "design": "latin_square",
            "shared": 0,
            "variant": None,
            "practice": 0,
            "carryover_balanced": False,
            "group_by_subdomain": True,
            "subdomains": None,
            "responses": [],
            "corrections": None,
            "simulate": False,
            **entry,
        }
        _check_kind(spec, entry, n)
        if spec["design"] == "two_group" and len(spec["systems"]) != 2:
            raise ConfigError(
                "a two_group design compares exactly two systems: the original"
                " expressions first, then the system's replacements",
                field=f"studies[{n}].systems",
            )
        specs.append(spec)
    return specs


#: A design in words, for "a <kind> study has the <design> design".
_DESIGN_WORDS = {
    "latin_square": "Latin square",
    "two_group": "two-group",
    "pairs": "balanced pair",
}


def _check_kind(spec: dict[str, Any], entry: Mapping[str, Any], n: int) -> None:
    """Check a study entry against what its kind declares, filling in the
    kind's design and variant; then the kind's own ``check`` hook, if any.

    Raises
    ------
    ConfigError
        Naming the field and what the kind takes.
    """
    kind = study_kind(spec["task"])
    task = kind.name
    takes_criteria = "criteria" in kind.config_keys
    if takes_criteria != bool(spec.get("criteria")):
        asking = names_where(lambda other: "criteria" in other.config_keys)
        raise ConfigError(
            f"a {in_words(asking, 'or')} study asks its `criteria` (each with its"
            " question and scale); other studies have none"
            if takes_criteria
            else f"a {task} study has its own questions; criteria are for"
            f" {in_words(asking, 'and')} studies",
            field=f"studies[{n}].criteria",
        )
    if kind.designs:
        if entry.get("design") not in (None, *kind.designs):
            raise ConfigError(
                f"a {task} study has the {_DESIGN_WORDS[kind.designs[0]]} design;"
                " leave design out"
                if len(kind.designs) == 1
                else f"a {task} study takes design {in_words(kind.designs, 'or')}",
                field=f"studies[{n}].design",
            )
        spec["design"] = entry.get("design") or kind.designs[0]
    for key in sorted(
        {key for other in kinds() for key in other.config_keys}
        - kind.config_keys
        - {"criteria"}
    ):
        if key in entry:
            owners = names_where(lambda other, key=key: key in other.config_keys)
            raise ConfigError(
                f"{key} settings are for task: {in_words(owners, 'or')}",
                field=f"studies[{n}].{key}",
            )
    check = hook(task, "check")
    if check is not None:
        check(spec, n)
    fewest = kind.n_systems[0]
    if len(spec["systems"]) < fewest:
        raise ConfigError(
            f"a {task} study compares at least {_COUNT_WORDS.get(fewest, fewest)}"
            " systems",
            field=f"studies[{n}].systems",
        )
    if spec.get("controls") is not None:
        spec["controls"] = _check_controls(spec, n)
    for rule in spec.get("exclusions") or ():
        unsupported = [
            r
            for r in EXCLUSION_RULES
            if r in (rule or {}) and r not in kind.exclusion_rules
        ]
        if unsupported:
            # never accepted and then silently left unapplied
            supported = [r for r in EXCLUSION_RULES if r in kind.exclusion_rules]
            raise ConfigError(
                f"a {task} study has no control trials, so no {unsupported[0]}"
                f" rule; use {in_words(supported, 'or')} rules"
                if unsupported == ["controls_below"] and kind.control is None
                else f"a {task} study takes no {unsupported[0]} rule; use"
                f" {in_words(supported, 'or')} rules",
                field=f"studies[{n}].exclusions",
            )
    if kind.variants and spec["variant"] is None:
        spec["variant"] = kind.variants[0]
    if not kind.variants and spec["variant"] is not None:
        raise ConfigError(
            f"{task} studies have no variant", field=f"studies[{n}].variant"
        )


#: Small counts in words.
_COUNT_WORDS = {1: "one", 2: "two", 3: "three", 4: "four"}


def _check_controls(spec: Mapping[str, Any], n: int) -> dict[str, Any]:
    """A study's ``controls`` with its kind filled in; refuse what cannot be.

    >>> _check_controls({"task": "rating", "controls": {"per_list": 2}}, 0)
    {'kind': 'degraded', 'per_list': 2, 'share': None}
    """
    where = f"studies[{n}].controls"
    controls = dict(spec["controls"])
    expected = study_kind(spec["task"]).control
    if expected is None:
        by_control: dict[str, list[str]] = {}
        for kind in kinds():
            if kind.control is not None:
                by_control.setdefault(kind.control, []).append(kind.name)
        taking = " and ".join(
            f"{in_words(names, 'and')} ({control})"
            for control, names in by_control.items()
        )
        raise ConfigError(
            f"a {spec['task']} study has no control trials yet; they are for"
            f" {taking} studies",
            field=where,
        )
    kind = controls.get("kind") or expected
    if kind != expected:
        raise ConfigError(
            f"a {spec['task']} study takes {expected} control trials, not {kind}",
            field=f"{where}.kind",
        )
    per_list, share = controls.get("per_list"), controls.get("share")
    if (per_list is None) == (share is None):
        raise ConfigError(
            "give per_list (control trials in every list) or share (of each"
            " list's trials), one of them",
            field=where,
        )
    return {"kind": kind, "per_list": per_list, "share": share}


def check_studies(
    config: Mapping[str, Any], submissions: Iterable[tuple[str, str]]
) -> None:
    """Check that every study's systems are submissions, listed once each.

    Raises
    ------
    ConfigError
        Naming the study and the system that is not in ``submissions/``.
    """
    known = {f"{team}/{system}" for team, system in submissions}
    root = (config.get("submissions") or {}).get("root")
    for n, spec in enumerate(study_specs(config)):
        systems = spec["systems"]
        for system in systems:
            if system not in known:
                raise ConfigError(
                    f"study {spec['id']!r} lists {system!r}, which is not a submission"
                    " (give team/system as in submissions/<team>/<system>)",
                    field=f"studies[{n}].systems",
                )
        if len(set(systems)) != len(systems):
            raise ConfigError(
                f"study {spec['id']!r} lists a system twice",
                field=f"studies[{n}].systems",
            )
        kind = study_kind(spec["task"])
        data_format = (config.get("data") or {}).get("format") or "tuna"
        if data_format not in kind.data_formats:
            showing = names_where(
                lambda other, shown=data_format: shown in other.data_formats
            )
            raise ConfigError(
                f"study {spec['id']!r}: a {spec['task']} study needs {kind.needs}"
                + (
                    f"; a {data_format} test set is studied with task:"
                    f" {in_words(showing, 'or')}"
                    if showing
                    else ""
                ),
                field=f"studies[{n}].task",
            )
        if kind.reads == "decisions":  # shows no outputs' text
            continue
        if not spec.get("realise") and root is not None:
            for system in systems:
                if _says_no_text(Path(root) / system):
                    raise ConfigError(
                        f"study {spec['id']!r} would show participants empty"
                        f" descriptions: {system} outputs attribute sets only (its"
                        " tasks have no realisation or end_to_end); set realise:"
                        " template to show them realised, as ASGRE did",
                        field=f"studies[{n}].systems",
                    )


def _says_no_text(folder: Path) -> bool:
    """True if a submission's system.yaml lists only tasks whose outputs hold no
    text (the attribute-selection task): its outputs need realising to be shown.

    Read with the hardened reader; anything unreadable counts as False (validation
    reports it, and the stimuli job checks the outputs themselves).
    """
    from stecflow.core.errors import StecflowError
    from stecflow.data.yamlsafe import MAX_BYTES, load_yaml
    from stecflow.submissions.safepath import read_submission_file

    try:
        if (folder / "system.yaml").stat().st_size > MAX_BYTES:
            return False
        metadata = load_yaml(read_submission_file(folder, "system.yaml"), str(folder))
    except (OSError, StecflowError):
        return False
    from stecflow.tasks.registry import names, task_types

    tasks = metadata.get("tasks") if isinstance(metadata, dict) else None
    if not isinstance(tasks, list) or not tasks or not set(tasks) <= set(names()):
        return False
    return all("word_string" not in t.outputs for t in task_types(tasks))


def shown_descriptions(
    spec: Mapping[str, Any],
    system: str,
    outputs: Iterable[Output],
    tasks: Sequence[str] | None = None,
) -> dict[str, str]:
    """Item ID -> the description participants see for one system of a study.

    What the campaign's task type shows of an output
    (:meth:`~stecflow.tasks.base.TaskType.shown_output`; *tasks*: the campaign's
    task-type names, None for the built-in REG tasks): for the REG tasks the
    WORD-STRING, or with ``realise: template`` the ATTRIBUTE-SET realised by the
    template realiser (as the ASGRE identification experiments showed
    attribute-selection outputs). An empty WORD-STRING is shown as it is (the
    system said nothing); an output with nothing to show is a config error naming
    the system, never a blank stimulus.

    >>> from stecflow.data.model import Output
    >>> out = [Output("t1", None, frozenset({("type", "chair"), ("colour", "red")}))]
    >>> shown_descriptions({"id": "s", "realise": "template"}, "a/b", out)
    {'t1': 'the red chair'}
    """
    from stecflow.tasks.registry import task_types

    task = task_types(tasks)[0]
    realise = spec.get("realise") == "template"
    shown = {}
    for output in outputs:
        text = task.shown_output(output, realise)
        if text is not None:
            shown[output.item_id] = text
        else:
            kind, fix = (
                (task.labels["attribute_set"], "take it out of the study")
                if realise
                else (
                    task.labels["word_string"],
                    "set realise: template to show its attribute sets realised",
                )
            )
            raise ConfigError(
                f"study {spec['id']!r} would show participants an empty description:"
                f" {system} has no {kind} for item {output.item_id}; {fix}",
                field=f"studies[{spec['id']}].systems",
            )
    return shown


def make_design(
    spec: Mapping[str, Any],
    testset_path: str | Path,
    practice_path: str | Path | None,
    *,
    controls: bool = True,
) -> Any:
    """Build the :class:`~stecflow.studies.designs.Design` of one study.

    With ``controls`` (default) the study's control trials are placed in it
    (:func:`stecflow.studies.designs.controls.add_controls`), on items for which
    :func:`stecflow.studies.controls.control_texts` can make a text from the test
    set (and, for degraded texts of items without references, on every item: the
    systems' outputs are the source). Deterministic."""
    design = _base_design(spec, testset_path, practice_path)
    if not controls or not spec.get("controls"):
        return design
    from stecflow.studies.controls import control_texts
    from stecflow.studies.designs.controls import add_controls
    from stecflow.tasks.registry import read_testset as read_items

    items = [i for i in read_items(testset_path) if i.id in set(design.items)]
    settings = spec["controls"]
    realised = spec.get("realise") == "template"
    texts = control_texts(
        settings["kind"], items, {}, seed=spec["seed"], realised=realised
    )
    eligible = set(texts)
    if spec["design"] == "pairs":  # degraded copies of the outputs
        eligible = set(design.items)
    elif settings["kind"] == "degraded" and not realised:
        eligible |= {
            i.id for i in items if not any(r.word_string for r in i.references)
        }
    if not eligible:
        raise ConfigError(
            f"study {spec['id']!r}: no test item can show a {settings['kind']} control"
            " trial (gold: no description singles out any target; degraded: no"
            " text to damage)",
            field=f"studies[{spec['id']}].controls",
        )
    return add_controls(
        design,
        kind=settings["kind"],
        per_list=settings.get("per_list"),
        share=settings.get("share"),
        eligible=sorted(eligible),
        subdomains={i.id: i.subdomain for i in items},
    )


def _base_design(
    spec: Mapping[str, Any],
    testset_path: str | Path,
    practice_path: str | Path | None,
) -> Any:
    """The study's design without control trials."""
    from stecflow.studies.designs import latin_square_design, two_group_design
    from stecflow.tasks.registry import read_testset as read_items

    items = read_items(testset_path)
    if spec.get("subdomains"):
        items = [i for i in items if i.subdomain in spec["subdomains"]]
    if spec.get("sample_items"):
        items = sample_items(items, spec["sample_items"], spec["seed"], spec["id"])
    practice_pool: Sequence[str] = ()
    if spec["practice"]:
        if practice_path is None:
            raise ConfigError(
                f"study {spec['id']!r} asks for practice trials; set data.dev",
                field="data.dev",
            )
        practice_pool = [i.id for i in read_items(practice_path)]
    if spec["design"] == "pairs":
        from stecflow.studies.designs.pairs import pair_design

        try:
            return pair_design(
                spec["systems"],
                [i.id for i in items],
                subjects=spec["subjects"],
                seed=spec["seed"],
                study=spec["id"],
            )
        except ValueError as error:  # DesignError: say which key to change
            raise ConfigError(str(error), field=f"studies[{spec['id']}]") from None
    if spec["design"] == "two_group":
        # seed 000: the same contexts with the original expression for one group
        # and the system's for the other; `shared` items are seen by both groups.
        ids = [i.id for i in items]
        n_shared = spec.get("shared", 0)
        shared = sorted(ids, key=lambda i: _stable_key(spec["seed"], i))[:n_shared]
        original, replacement = spec["systems"]
        return two_group_design(
            [i for i in ids if i not in shared],
            original=original,
            replacement=replacement,
            subjects=spec["subjects"],
            seed=spec["seed"],
            shared=shared,
            strata={i.id: i.subdomain for i in items},
            practice_pool=practice_pool,
            n_practice=spec["practice"],
            study=spec["id"],
        )
    return latin_square_design(
        spec["systems"],
        [i.id for i in items],
        subjects=spec["subjects"],
        seed=spec["seed"],
        subdomains={i.id: i.subdomain for i in items},
        group_by_subdomain=spec["group_by_subdomain"],
        carryover_balanced=spec["carryover_balanced"],
        practice_pool=practice_pool,
        n_practice=spec["practice"],
        study=spec["id"],
    )


def sample_items(items: Sequence[Any], n: int, seed: int, study: str) -> list[Any]:
    """*n* of *items*, drawn with *seed*: the subdomains (sorted) take turns,
    each giving its next item in a seeded order, until *n* are drawn; returned
    in test-set order. Studies with the same seed and *n* draw the same items.

    >>> from types import SimpleNamespace as Item
    >>> items = [Item(id=f"t{k}", subdomain="ab"[k % 2]) for k in range(6)]
    >>> drawn = sample_items(items, 4, 1, "s")
    >>> len(drawn), sorted(i.subdomain for i in drawn)
    (4, ['a', 'a', 'b', 'b'])
    >>> sample_items(items, 7, 1, "s")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    stecflow.core.errors.ConfigError: studies[s].sample_items: 7 items asked ...

    Raises
    ------
    ConfigError
        When *n* is more than the items there are.
    """
    if n > len(items):
        raise ConfigError(
            f"{n} items asked for, but the test set (after subdomains) has"
            f" {len(items)}",
            field=f"studies[{study}].sample_items",
        )
    queues: dict[str, list[Any]] = {}
    for item in sorted(items, key=lambda i: _stable_key(seed, i.id)):
        queues.setdefault(item.subdomain, []).append(item)
    chosen: set[str] = set()
    turns = [queues[k] for k in sorted(queues)]
    while len(chosen) < n:
        for queue in turns:
            if queue and len(chosen) < n:
                chosen.add(queue.pop(0).id)
    return [i for i in items if i.id in chosen]


def _stable_key(seed: int, item_id: str) -> str:
    """A seeded, platform-independent sort key (never the salted hash())."""
    return hashlib.sha256(f"{seed}\x1f{item_id}".encode()).hexdigest()


def _design_text(design: Any) -> str:
    from stecflow.studies.designs import TRIAL_COLUMNS
    from stecflow.studies.designs.pairs import PAIR_TRIAL_COLUMNS

    columns = PAIR_TRIAL_COLUMNS if design.kind == "pairs" else TRIAL_COLUMNS
    return format_tsv(design.trials.to_dict(orient="records"), columns)


def design_study(
    spec: Mapping[str, Any],
    testset_path: str | Path,
    practice_path: str | Path | None,
    design_path: str | Path,
    balance_path: str | Path,
    settings_path: str | Path,
    system_files: Sequence[str | Path] = (),
) -> dict[str, Any]:
    """Build one study's design and write it with its balance table.

    Parameters
    ----------
    spec
        One entry of :func:`study_specs`.
    testset_path
        The campaign's test set (stecflow XML).
    practice_path
        Items to draw practice trials from (outside the test set), e.g. the
        development split; required when ``spec["practice"] > 0``.
    design_path, balance_path, settings_path
        ``design.tsv`` (one row per trial), ``balance.tsv`` (the proof of balance)
        and ``design.json`` (the design's parameters and notes).
    system_files
        A situated_identification study only: its system's ``outputs.tsv`` and
        validation record (its decisions choose the instances, seed 000 §5.1; see
        :func:`stecflow.studykinds.situated_identification.setup.design_situated_study`).

    Raises
    ------
    ConfigError
        If the design is impossible (e.g. subjects not a multiple of the number of
        systems); the message says what would work.
    """
    from stecflow.studies.designs import balance_problems, balance_table

    own = hook(spec["task"], "design")
    if own is not None:  # a kind with a design of its own
        return own(
            spec,
            testset_path,
            practice_path,
            design_path,
            balance_path,
            settings_path,
            system_files,
        )
    design = make_design(spec, testset_path, practice_path, controls=False)
    if design.kind == "pairs":
        from stecflow.studies.designs.pairs import (
            pair_balance_problems as balance_problems,
        )
        from stecflow.studies.designs.pairs import pair_balance_table as balance_table
    problems = balance_problems(design)
    if problems:  # our own bug if it ever happens
        raise RuntimeError(f"design of {spec['id']} is not balanced: {problems}")
    balance = balance_table(design)  # of the systems' trials, controls aside
    if spec.get("controls"):
        design = make_design(spec, testset_path, practice_path)
    Path(design_path).parent.mkdir(parents=True, exist_ok=True)
    Path(design_path).write_text(_design_text(design), encoding="utf-8")
    write_tsv(balance.to_dict(orient="records"), list(balance.columns), balance_path)
    settings = {**design.settings(), "task": spec["task"], "variant": spec["variant"]}
    if spec.get("realise"):  # how attribute sets are shown (datasheet, report)
        from stecflow.tasks.reg.realiser import REALISER_ID

        settings["realiser"] = REALISER_ID
    write_json(settings, settings_path)
    log.info(
        "%s: %d trials for %d subjects",
        spec["id"],
        settings["n_trials"],
        design.subjects,
    )
    return settings


def build_stimuli(
    spec: Mapping[str, Any],
    design_path: str | Path,
    testset_path: str | Path,
    practice_path: str | Path | None,
    submission_dirs: Mapping[str, str | Path],
    images_dir: str | Path | None,
    web_dir: str | Path,
    dmdx_dir: str | Path,
    tasks: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Build a study's self-contained web experiment and DMDX item files.

    The design is rebuilt from the study's config entry and must equal the written
    ``design.tsv``; the outputs of the study's systems are read from their
    submissions (human reference sets are systems like any other). When the config
    pins the study (``sha256``, set when the study opens), the stimuli must hash to
    it: an opened study never changes.

    Parameters
    ----------
    submission_dirs
        ``team/system`` -> the submission folder, for every system of the study.
    tasks
        The campaign's task-type names (None: the built-in REG tasks): they say
        how an output is read and shown.

    Returns
    -------
    dict
        The summary of :func:`stecflow.studies.stimuli.build_study` (with ``sha256``).
    """
    summary = hook(spec["task"], "stimuli")(
        spec,
        design_path,
        testset_path,
        practice_path,
        submission_dirs,
        images_dir,
        web_dir,
        dmdx_dir,
        tasks,
    )
    pinned = spec.get("sha256")
    if pinned and pinned != summary["sha256"]:
        raise ConfigError(
            f"study {spec['id']!r} is opened (sha256 {pinned[:12]}...) but its stimuli"
            f" now hash to {summary['sha256'][:12]}...; an opened study must not"
            " change: put new systems in a new study",
            field=f"studies[{spec['id']}].sha256",
        )
    log.info("%s: %d files, sha256 %s", spec["id"], summary["files"], summary["sha256"])
    return summary


def study_outputs(
    spec: Mapping[str, Any],
    items: Sequence[Any],
    submission_dirs: Mapping[str, str | Path],
    tasks: Sequence[str] | None,
) -> dict[str, dict[str, str]]:
    """``team/system`` -> item ID -> the text participants see, for every system
    of a study, read from each submission's own outputs file (whichever of the
    task type's file names it has) through its task type's reader."""
    from stecflow.submissions.outputs import outputs_file, read_outputs
    from stecflow.submissions.safepath import read_submission_file

    shown = {}
    for system, folder in sorted(submission_dirs.items()):
        name = outputs_file([], tasks or (), folder=folder)
        data = read_submission_file(folder, name)  # no link out of it
        outputs, _ = read_outputs(
            data, f"{system}/{name}", items, [], campaign_tasks=tasks or ()
        )
        shown[system] = shown_descriptions(spec, system, outputs, tasks)
    if spec.get("controls"):  # what the control trials show (per item)
        from stecflow.studies.controls import control_texts
        from stecflow.studies.designs.controls import CONTROL_SYSTEM

        if spec["design"] == "pairs":  # a text against a degraded copy of it
            from stecflow.studies.controls import pair_control_texts

            shown[CONTROL_SYSTEM] = pair_control_texts(
                [i.id for i in items], shown, spec["systems"], seed=spec["seed"]
            )
        else:
            shown[CONTROL_SYSTEM] = control_texts(
                spec["controls"]["kind"],
                items,
                shown,
                seed=spec["seed"],
                realised=spec.get("realise") == "template",
            )
    return shown


def _checked_design(
    spec: Mapping[str, Any],
    design_path: str | Path,
    testset_path: str | Path,
    practice_path: str | Path | None,
) -> Any:
    """The study's design, rebuilt from its config entry; it must be the one
    written (a study's design never changes once built)."""
    design = make_design(spec, testset_path, practice_path)
    if Path(design_path).read_text(encoding="utf-8") != _design_text(design):
        raise ConfigError(
            f"{design_path} no longer matches study {spec['id']!r} in the config; a"
            " study's design must not change once built",
            field=f"studies[{spec['id']}]",
        )
    return design


def build_text_stimuli(
    spec: Mapping[str, Any],
    design_path: str | Path,
    testset_path: str | Path,
    practice_path: str | Path | None,
    submission_dirs: Mapping[str, str | Path],
    images_dir: str | Path | None,
    web_dir: str | Path,
    dmdx_dir: str | Path,
    tasks: Sequence[str] | None,
) -> dict[str, Any]:
    """The web experiment of a text study (ratings or preferences), unpinned;
    DMDX files are not made for it (its dmdx folder holds a README saying so).
    The text kinds' ``stimuli`` hook (no practice items, no pictures).

    An item without an ``input`` of its own (a REG item: a domain) shows what
    the campaign's task type gives as its text input
    (:attr:`~stecflow.tasks.base.TaskType.text_input`: for the REG tasks the
    domain's grid in words with the target marked), laid out with the study's
    seed as the grid kinds lay out their pictures."""
    from dataclasses import replace

    from stecflow.studies.text import build_text_study
    from stecflow.tasks.registry import read_testset, task_types

    design = _checked_design(spec, design_path, testset_path, None)
    items = read_testset(testset_path)
    text_input = task_types(tasks)[0].text_input
    if text_input is not None:
        items = [
            replace(i, input=text_input(i, spec["seed"])) if i.input is None else i
            for i in items
        ]
    settings = {
        "title": spec.get("title") or spec["id"],
        **(spec.get("experiment") or {}),
    }
    summary = build_text_study(
        design,
        items,
        study_outputs(spec, items, submission_dirs, tasks),
        task=spec["task"],
        criteria=spec["criteria"],
        out_dir=web_dir,
        settings=settings,
        overwrite=True,
    )
    dmdx = Path(dmdx_dir)
    dmdx.mkdir(parents=True, exist_ok=True)
    (dmdx / "README.txt").write_text(
        f"No DMDX item files for study {spec['id']}: DMDX shows the REG studies'"
        " descriptions and pictures, not a text study's rating scales or pairs."
        f" Run the web experiment: open web/index.html, or `stecflow serve"
        f" {spec['id']}`.\n",
        encoding="utf-8",
    )
    return summary


def build_reg_stimuli(
    spec: Mapping[str, Any],
    design_path: str | Path,
    testset_path: str | Path,
    practice_path: str | Path | None,
    submission_dirs: Mapping[str, str | Path],
    images_dir: str | Path | None,
    web_dir: str | Path,
    dmdx_dir: str | Path,
    tasks: Sequence[str] | None,
) -> dict[str, Any]:
    """The stimuli of a REG study (rating or identification), unpinned: the
    grid kinds' ``stimuli`` hook."""
    from stecflow.data.corpus import read_items
    from stecflow.studies.stimuli import build_study
    from stecflow.tasks.registry import task_types

    design = _checked_design(spec, design_path, testset_path, practice_path)
    items = read_items(testset_path)
    if practice_path is not None:
        items += read_items(practice_path)
    outputs_by_system = study_outputs(spec, items, submission_dirs, tasks)
    settings = {
        "title": spec.get("title") or spec["id"],
        **(spec.get("experiment") or {}),
    }
    return build_study(
        design,
        items,
        outputs_by_system,
        task=spec["task"],
        variant=spec["variant"],
        images_dir=images_dir,
        out_dir=web_dir,
        dmdx_dir=dmdx_dir,
        settings=settings,
        overwrite=True,
        task_type=task_types(tasks)[0],
        speech_source=spec.get("speech"),
    )

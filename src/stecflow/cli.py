"""The ``stecflow`` command line, for teams and organisers.

Teams check a submission before sending it (``stecflow validate``), exactly as the
campaign's workflow will; organisers convert corpora and rebuild the demo.

Data sets are REG corpora (``--format tuna`` or ``b5-ref``) or, for the situated
task of seed 000 (task type ``situated_dialogue``), a folder of
``stecflow-dialogue`` JSON sessions (``--format dialogue``, also recognised by its
files): its instances are the solvers' referring expressions
(:func:`stecflow.tasks.situated_dialogue.items_from_sessions`), and ``validate``,
``score`` and ``baseline`` then work on ``outputs.tsv`` with that task type. A
JSON Lines test set (``--format text``, also recognised by its ``.jsonl`` suffix)
is the text-generation task's (``text_generation``): ``validate`` and ``score``
then read ``outputs.jsonl``, ``outputs.txt`` or GEM-style ``outputs.json``.

May import: any :mod:`stecflow` package (the top layer).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stecflow import __version__
from stecflow.campaign import DATA_FORMATS
from stecflow.core.errors import StecflowError
from stecflow.tasks.registry import names as task_names

if TYPE_CHECKING:
    from stecflow.data.model import Item

__all__ = ["main"]

#: The ``--format`` of a folder of ``stecflow-dialogue`` JSON sessions.
DIALOGUE_FORMAT = "dialogue"
#: Every ``--format``: the campaign's test-set formats (the dialogue corpus too).
FORMATS = DATA_FORMATS
#: The task type of a dialogue corpus's instances.
SITUATED_TASK = "situated_dialogue"
#: The ``--format`` of a JSON Lines test set (a ``.jsonl`` file).
TEXT_FORMAT = "text"
#: The task type of a JSON Lines test set's items.
TEXT_TASK = "text_generation"
#: Most bootstrap resamples (the config schema's maximum of
#: ``scoring.bootstrap.resamples``).
MAX_RESAMPLES = 10_000
#: The baselines of the situated task (:mod:`stecflow.baselines.situated`).
SITUATED_BASELINES = ("recency", "logistic")


def _load_yaml(path: str) -> dict:
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


def _campaign_folder(config_path: str) -> Path:
    """The folder a campaign config's relative paths start from.

    Snakemake runs in the campaign's folder and reads ``config/<name>.yaml`` from
    there, so the paths of a config in a folder named ``config`` count from the
    folder above it; any other config's paths count from its own folder. Never
    from the current directory.
    """
    folder = Path(os.path.abspath(config_path)).parent
    return folder.parent if folder.name == "config" else folder


def _from_config(base: Path, path: str) -> str:
    return str(Path(path) if Path(path).is_absolute() else base / path)


def _is_dialogue_folder(path: Path) -> bool:
    """Whether *path* is a folder whose first ``*.json`` file (in name order, as
    :func:`~stecflow.data.dialogue.read_corpus` reads them) is a JSON object with
    ``"format": "stecflow-dialogue"``."""
    import json

    if not path.is_dir():
        return False
    first = next(iter(sorted(path.glob("*.json"))), None)
    if first is None:
        return False
    try:
        data = json.loads(first.read_bytes())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("format") == "stecflow-dialogue"


def _layout(path: Path) -> tuple[str, str] | None:
    """``(format, what)`` for a corpus layout that only one ``--format`` reads."""
    if _is_dialogue_folder(path):
        return DIALOGUE_FORMAT, "a folder of stecflow-dialogue sessions"
    if path.is_dir():
        for base in (path, path / "ref"):
            if (base / "b5-ref-contexts.xml").is_file() and (
                base / "xml-descriptions"
            ).is_dir():
                return "b5-ref", "a b5-ref corpus folder"
        if (
            (path / "corpus" / "singular").is_dir()
            or (path / "singular").is_dir()
            or path.name in ("singular", "furniture", "people")
        ):
            return "tuna", "a TUNA 1.0 corpus folder"
        if any(path.rglob("*.xml")):
            return "tuna", "a folder of TUNA XML files"
        return None
    if path.is_file() and path.suffix.lower() == ".xml":
        return "tuna", "an XML file (b5-ref is read from its corpus folder)"
    if path.is_file() and path.suffix.lower() == ".jsonl":
        return TEXT_FORMAT, "a JSON Lines test set of the text_generation task"
    return None


def _data_format(path: str, given: str | None) -> str:
    """The ``--format`` of *path*: the one given, else ``dialogue`` for a folder of
    ``stecflow-dialogue`` sessions, ``text`` for a ``.jsonl`` file, else ``tuna``."""
    if given:
        return given
    if Path(path).suffix.lower() == ".jsonl":
        return TEXT_FORMAT
    return DIALOGUE_FORMAT if _is_dialogue_folder(Path(path)) else "tuna"


def _load_items(path: str, data_format: str | None) -> list[Item]:
    """Read a data set, first saying which ``--format`` fits a known layout.

    A dialogue corpus gives one item per referring expression of the solvers
    (:func:`~stecflow.tasks.situated_dialogue.items_from_sessions`).
    """
    from stecflow.campaign import load_testset

    data_format = _data_format(path, data_format)
    layout = _layout(Path(path))
    if layout is not None and layout[0] != data_format:
        raise StecflowError(f"{path} is {layout[1]}; give --format {layout[0]}")
    return load_testset(path, data_format)


def _check_as_discovered(folder: Path, root: Path) -> None:
    """Refuse a submission folder inside the campaign's submissions folder *root*
    that the workflow's discovery would not take: a team or system folder that
    is a symbolic link leading out of *root*
    (:func:`stecflow.campaign.discover_submissions` lists it as unreadable, with
    the same words)."""
    from stecflow.submissions.safepath import leads_outside

    where = Path(os.path.abspath(folder))
    root = Path(os.path.abspath(root))
    if root not in where.parents:
        return  # not in the campaign: checked as a folder of its own
    parts = where.relative_to(root).parts
    for depth, kind in ((1, "team"), (2, "system")):
        if len(parts) < depth:
            break
        entry = root.joinpath(*parts[:depth])
        if entry.is_symlink() and leads_outside(entry, root):
            raise StecflowError(
                "a symbolic link that leads out of the submissions folder"
                f" ({root}; stecflow follows links only inside it): the workflow"
                f" lists it as unreadable and does not validate it; put the {kind}"
                " folder itself here",
                file="/".join(parts[:depth]),
            )


def _cmd_validate(args: argparse.Namespace) -> int:
    from stecflow.submissions.report import format_report, write_validation
    from stecflow.submissions.validation import validate_submission
    from stecflow.tasks.base import Limits

    tasks: Sequence[str] = args.tasks or task_names()
    deadline = args.deadline
    testset, data_format = args.testset, args.format
    limits = None
    properties = None
    folder = Path(args.submission)
    if args.config:
        config = _load_yaml(args.config)
        base = _campaign_folder(args.config)
        campaign = config.get("campaign", {})
        tasks = args.tasks or campaign.get("tasks", task_names())
        deadline = deadline or campaign.get("deadline")
        data = config.get("data", {})
        if not testset and data.get("testset"):
            testset = _from_config(base, data["testset"])
        data_format = args.format or data.get("format")
        submissions = config.get("submissions") or {}
        limits = Limits.from_config(submissions.get("limits"))
        properties = submissions.get("properties")
        inside = Path(_from_config(base, submissions.get("root") or "submissions"))
        if not folder.is_dir() and (inside / args.submission).is_dir():
            folder = inside / args.submission  # team/system in the campaign
        _check_as_discovered(folder, inside)
    if not testset:
        raise StecflowError("give the test set with --testset FILE (or --config)")
    data_format = _data_format(testset, data_format)
    if data_format == DIALOGUE_FORMAT and not args.tasks and not args.config:
        tasks = [SITUATED_TASK]
    if data_format == TEXT_FORMAT and not args.tasks and not args.config:
        tasks = [TEXT_TASK]
    # the team and system are the folder names as given (as the workflow names a
    # folder that is a link inside the submissions folder), not the link's target
    named = Path(os.path.abspath(folder))
    folder = folder.resolve()
    if not folder.is_dir():
        raise StecflowError(
            "not a folder; give submissions/<team>/<system>", file=args.submission
        )
    record = validate_submission(
        named,
        _load_items(testset, data_format),
        team=named.parent.name,
        system=named.name,
        campaign_tasks=list(tasks),
        deadline=deadline,
        limits=limits,
        properties=properties,
    )
    print(format_report(record))
    if args.json:
        write_validation(record, args.json, Path(args.json).with_suffix(".md"))
    return 0 if record["status"] == "accepted" else 1


def _write(text: str, target: str) -> None:
    """Write *text* to the file *target*, or to standard output for ``-``."""
    if target == "-":
        sys.stdout.write(text)
        return
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    Path(target).write_text(text, encoding="utf-8")


def _cmd_score(args: argparse.Namespace) -> int:
    from stecflow.core.io import write_tsv
    from stecflow.report.terminal import format_score_table
    from stecflow.scoring.coverage import check_coverage
    from stecflow.scoring.score import ITEM_COLUMNS, score_outputs
    from stecflow.submissions.outputs import read_outputs

    scoring, tasks, subsets = {}, None, []
    if args.config:
        config = _load_yaml(args.config)
        scoring = dict(config.get("scoring") or {})
        subsets = list((config.get("data") or {}).get("subsets") or [])
        tasks = (config.get("campaign") or {}).get("tasks") or None
    if args.metrics:
        scoring["metrics"] = [{"id": name} for name in args.metrics]
    if args.resamples is not None:
        if not 0 <= args.resamples <= MAX_RESAMPLES:
            raise StecflowError(
                f"--resamples {args.resamples}: give 0 (no intervals) to"
                f" {MAX_RESAMPLES:,}, as the campaign config allows"
            )
        scoring["bootstrap"] = {
            **(scoring.get("bootstrap") or {}),
            "resamples": args.resamples,
        }
    data_format = _data_format(args.data, args.format)
    situated = data_format == DIALOGUE_FORMAT
    if situated and not tasks:
        tasks = [SITUATED_TASK]
    if data_format == TEXT_FORMAT and not tasks:
        tasks = [TEXT_TASK]
    items = _load_items(args.data, data_format)
    path = Path(args.outputs)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StecflowError(
            f"cannot read the file ({exc.strerror})", file=args.outputs
        ) from None
    outputs, problems = read_outputs(
        data, args.outputs, items, [], campaign_tasks=tasks or ()
    )
    problems, warnings = check_coverage(
        items, outputs, problems, data_label=args.data, outputs_label=args.outputs
    )
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    errors = [p for p in problems if p.severity == "error"]
    for problem in problems:
        print(f"{problem.severity}: {problem.describe()}", file=sys.stderr)
    if errors and not args.partial:
        print(
            f"stecflow score: {len(errors)} problems in the outputs (listed above); fix"
            " them, or add --partial to score the items that could be read",
            file=sys.stderr,
        )
        return 1
    item_rows, system_rows = score_outputs(
        items,
        outputs,
        scoring,
        exclude_reference=args.exclude_reference,
        tasks=tasks,
        subsets=subsets,
    )
    n_scored = len({o.item_id for o in outputs})
    of = (
        f"{n_scored} items"
        if n_scored == len(items)
        else f"{n_scored} of {len(items)} items"
    )
    caption = f"Automatic scores of {path.name} on {Path(args.data).name} ({of})."
    header = {
        "data": Path(args.data).name,
        "outputs": path.name,
        "n_items": len(items),
        "n_scored": n_scored,
    }
    targets = {"tsv": args.tsv, "json": args.json, "latex": args.latex}
    if "-" not in targets.values():
        sys.stdout.write(
            format_score_table(system_rows, scoring, caption=caption, tasks=tasks)
        )
    for fmt, target in targets.items():
        if target:
            text = format_score_table(
                system_rows, scoring, fmt, caption=caption, header=header, tasks=tasks
            )
            _write(text, target)
    if args.items_tsv:
        write_tsv(item_rows, ITEM_COLUMNS, args.items_tsv)
    if situated and "-" not in targets.values():
        sys.stdout.write(_decision_summary(items, outputs))
    return 0


def _decision_summary(items: Sequence[Item], outputs: Sequence[Any]) -> str:
    """Precision, recall, F and the confusion matrix of pronoun decisions.

    The numbers are :func:`stecflow.metrics.classification.confusion_matrix` of
    the corpus's decisions (gold) and the outputs' (predicted) over the scored
    instances: P = TP / (TP + FP), R = TP / (TP + FN), F = 2PR / (P + R), the
    positive class being "use a demonstrative pronoun" (seed 000 §4, Table 4).
    """
    from stecflow.metrics.classification import confusion_matrix

    decided = {o.item_id: o.get("pronoun") for o in outputs}
    scored = [i for i in items if isinstance(decided.get(i.id), bool)]
    gold = [i.references[0].get("pronoun") for i in scored]
    m = confusion_matrix(gold, [decided[i.id] for i in scored])

    def show(value: float) -> str:
        return "undefined" if value != value else f"{value:.3f}"

    return (
        f"\nPronoun decisions ({m.n} instances; positive: a demonstrative"
        " pronoun)\n"
        f"  precision {show(m.precision)}  recall {show(m.recall)}"
        f"  F {show(m.f)}\n"
        "                 corpus DP  corpus not DP\n"
        f"  system DP      TP {m.tp:>6}  FP {m.fp:>10}\n"
        f"  system not DP  FN {m.fn:>6}  TN {m.tn:>10}\n"
    )


def _situated_baseline(args: argparse.Namespace, data: str, out: str) -> int:
    """Write the recency or logistic baseline of the situated task (seed 000)."""
    from stecflow.baselines.situated import (
        logistic_outputs,
        recency_outputs,
        write_submission,
    )
    from stecflow.tasks.situated_dialogue import OUTPUTS_FILE

    data_format = _data_format(data, args.format)
    if data_format != DIALOGUE_FORMAT:
        raise StecflowError(
            f"the {args.algorithm} baseline decides on situated dialogue; give a"
            " folder of stecflow-dialogue sessions with --dialogue DIR",
            file=data,
        )
    if args.train or args.no_strings:
        raise StecflowError(
            "--train and --no-strings are for the REG baselines; the situated"
            " baselines take --folds and --seed"
        )
    items = _load_items(data, DIALOGUE_FORMAT)
    if args.algorithm == "recency":
        outputs = recency_outputs(items)
        description = (
            "Recency baseline of seed 000: a demonstrative pronoun iff the most"
            " recently mentioned object is the target (feature D1)."
        )
    else:
        try:
            import sklearn  # noqa: F401
        except ImportError:
            raise StecflowError(
                "the logistic baseline needs scikit-learn, which is not installed;"
                " install it with: pip install 'stecflow[dialogue]'"
            ) from None
        try:
            learnt = logistic_outputs(items, folds=args.folds, seed=args.seed)
        except ValueError as exc:
            raise StecflowError(str(exc), file=data) from None
        outputs = learnt.outputs
        description = (
            "Logistic regression (scikit-learn, L2, C=1, standardised features)"
            " over the Table 3 features of seed 000; decisions out of fold from"
            f" {learnt.folds}-fold cross-validation grouped by session (seed"
            f" {args.seed})."
        )
    folder = Path(out)
    write_submission(
        folder,
        outputs,
        description=description,
        contact=args.contact,
        submitted=args.submitted,
    )
    print(f"wrote {len(outputs)} decisions to {folder / OUTPUTS_FILE}")
    return 0


def _cmd_baseline(args: argparse.Namespace) -> int:
    from stecflow.baselines.systems import run_baseline
    from stecflow.submissions.files import METADATA_FILE, write_metadata
    from stecflow.tasks.reg.outputs import write_outputs
    from stecflow.tasks.reg.task import OUTPUTS_FILE

    if args.dialogue and args.data:
        raise StecflowError("give the data set once: as DATA or with --dialogue")
    if args.out_option and args.out:
        raise StecflowError("give the submission folder once: as OUT or with --out")
    data = args.dialogue or args.data
    out = args.out_option or args.out
    if not data or not out:
        raise StecflowError(
            "give the data set (DATA, or --dialogue DIR) and the submission folder"
            " (OUT, or --out FOLDER)"
        )
    if args.algorithm in SITUATED_BASELINES:
        return _situated_baseline(args, data, out)
    if args.dialogue or _data_format(data, args.format) == DIALOGUE_FORMAT:
        raise StecflowError(
            f"{args.algorithm} is a REG baseline; on a dialogue corpus use"
            f" {' or '.join(SITUATED_BASELINES)}"
        )
    args.data, args.out = data, out
    items = _load_items(args.data, args.format)
    train = _load_items(args.train, args.format) if args.train else None
    outputs = run_baseline(
        args.algorithm, items, train=train, word_strings=not args.no_strings
    )
    folder = Path(args.out)
    write_outputs(outputs, folder / OUTPUTS_FILE)
    how = "from the training data" if train else "leaving each item out"
    descriptions = {
        "full-brevity": "Full Brevity (Dale 1989): a smallest distinguishing set.",
        "greedy": "Greedy (Dale 1989): adds the attribute ruling out most distractors.",
        "incremental": "Incremental Algorithm (Dale & Reiter 1995), preference order"
        f" learnt {how}.",
    }
    realised = "" if args.no_strings else " Realised with the template realiser."
    write_metadata(
        {
            "team": folder.parent.name,
            "system": folder.name,
            "description": descriptions[args.algorithm] + realised,
            "contact": args.contact,
            "primary": False,
            "submitted": args.submitted,
            "tasks": ["attribute_selection"]
            if args.no_strings
            else [
                "end_to_end",
                "attribute_selection",
            ],
            "reference": False,
            "release_consent": True,
        },
        folder / METADATA_FILE,
    )
    print(f"wrote {len(outputs)} outputs to {folder / OUTPUTS_FILE}")
    return 0


def _study_dir(study: str, results: str | Path = "results") -> str:
    """A study ID means ``results/studies/<id>``, or the study of that ID in the
    one campaign results folder below ``results/`` that has it (a campaign with its
    own ``results:`` key, e.g. ``results/b5-ref/studies/<id>``); anything else is a
    folder.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "b5-ref" / "studies" / "id").mkdir(parents=True)
    >>> _study_dir("id", root) == str(root / "b5-ref" / "studies" / "id")
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


def _cmd_serve(args: argparse.Namespace) -> int:
    import errno
    import sqlite3

    from stecflow.studies.server import check_study, serve

    folder = _study_dir(args.study)
    check_study(folder, args.db)  # before anything listens or is announced

    def ready(server: Any) -> None:
        print(
            f"serving study {server.app.study.study} ({folder}) on {server.url}"
            f" (responses in {server.app.db_path}; Ctrl-C stops)",
            flush=True,
        )

    try:
        serve(
            folder,
            host=args.host,
            port=args.port,
            db_path=args.db,
            abandon_after_s=args.abandon_after,
            read_timeout_s=args.read_timeout,
            max_connections=args.max_connections,
            connections_per_address=args.connections_per_address,
            threads=args.threads,
            trusted_proxy=args.trusted_proxy,
            sessions_per_address=args.sessions_per_address,
            session_window_s=args.session_window,
            require_participant=args.require_participant,
            behind_proxy=args.behind_proxy,
            ready=ready,
            admin_token=args.admin_token,
            admin_token_file=args.admin_token_file,
            log_path=args.log,
            log=not args.no_log,
            log_addresses=args.log_addresses,
            per_list=args.per_list,
        )
    except sqlite3.Error as exc:
        raise StecflowError(
            f"the database cannot be used ({exc}); give --db another file",
            file=args.db,
        ) from None
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            why = f"port {args.port} is in use; give another with --port"
        else:
            why = f"{exc.strerror or exc}; check --host and --port"
        raise StecflowError(
            f"cannot listen on {args.host}:{args.port}: {why}"
        ) from None
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from stecflow.studies.server import export_responses

    n = export_responses(
        _study_dir(args.study),
        args.out,
        db_path=args.db,
        abandon_after_s=args.abandon_after,
        include_practice=not args.no_practice,
    )
    print(f"wrote {n} responses to {args.out} (sessions beside it: .sessions.tsv)")
    return 0


def _cmd_sessions(args: argparse.Namespace) -> int:
    from stecflow.studies.server.cli import sessions_command

    print(
        sessions_command(
            args.action,
            _study_dir(args.study),
            db_path=args.db,
            session=getattr(args, "session", None),
            out=getattr(args, "out", None),
            abandon_after_s=getattr(args, "abandon_after", 1800.0),
            per_list=getattr(args, "per_list", 1),
            as_json=getattr(args, "json", False),
            key=getattr(args, "key", None),
            config=getattr(args, "config", None),
            record_only=getattr(args, "record_only", False),
        )
    )
    return 0


def _cmd_convert(args: argparse.Namespace) -> int:
    from stecflow.data.corpus import write_items

    items = _load_items(args.source, args.format)
    write_items(items, args.output)
    print(f"wrote {len(items)} items to {args.output}")
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from stecflow.demo.generate import build_demo

    build_demo(args.resources, args.submissions, seed=args.seed)
    print(f"wrote {args.resources} and {args.submissions}")
    return 0


def _cmd_power(args: argparse.Namespace) -> int:
    from stecflow.analysis.power import describe_duration, run_power, write_power
    from stecflow.data.yamlsafe import load_yaml

    try:
        config = load_yaml(Path(args.config).read_bytes(), args.config)
    except OSError as exc:
        print(
            f"stecflow power: error: cannot read {args.config} ({exc})", file=sys.stderr
        )
        return 2

    def progress(done: int, total: int) -> None:
        if done == total or done % max(1, total // 20) == 0:
            print(f"\rsimulated {done}/{total} studies", end="", file=sys.stderr)
            if done == total:
                print(file=sys.stderr)

    rows, settings = run_power(
        config,
        args.study,
        pilot=args.pilot,
        sessions=args.sessions,
        runs=args.runs,
        participants=args.participants,
        seed=args.seed,
        progress=None if args.quiet else progress,
    )
    for row in rows:
        print(
            f"{row['participants']:>4} participants  {row['test']:<16}"
            f" power {row['power']:.3f}  [{row['ci_low']:.3f}, {row['ci_high']:.3f}]"
        )
    print(describe_duration(settings["duration"]))
    if args.out:
        from stecflow.report.power import power_svg

        figure = power_svg(rows, study=args.study, alpha=float(settings["alpha"]))
        for path in write_power(rows, settings, args.out, args.study, figure=figure):
            print(f"wrote {path}")
    return 0


def rerun_release(
    archive: str | Path,
    out: str | Path,
    *,
    source_testset: str | Path | None = None,
    previous_release: str | Path | None = None,
) -> list[tuple[str, bool]]:
    """Unpack a release archive into *out*, run its statistics and report again
    from the archived files alone (into ``<out>/rerun/``), and compare them
    with the archived ones byte for byte.

    Returns ``(archive path, identical)`` for every statistics file and the
    report. The archive's MANIFEST.tsv is checked first.
    """
    import json
    import zipfile

    home = Path(out).resolve()
    try:
        zipped = zipfile.ZipFile(archive)
    except (OSError, zipfile.BadZipFile) as exc:
        raise StecflowError(
            f"{archive}: not a readable release archive ({exc})"
        ) from exc
    with zipped:
        for name in zipped.namelist():
            if name.startswith(("/", "\\")) or ".." in Path(name).parts:
                raise StecflowError(f"{archive}: unsafe entry name {name!r}")
        try:
            results = json.loads(zipped.read("config.json")).get("results")
        except (KeyError, ValueError) as exc:
            raise StecflowError(f"{archive}: no readable config.json") from exc
        # laid out as the campaign's results folder, so that paths the stages
        # record (relative to the project) come out the same
        results = Path(str(results or "results"))
        if results.is_absolute() or ".." in results.parts:
            results = Path(results.name)
        zipped.extractall(home / results)
    if source_testset is not None:
        source_testset = Path(source_testset).resolve()
    if previous_release is not None:
        previous_release = Path(previous_release).resolve()
    before = Path.cwd()
    os.chdir(home)
    try:
        return _rerun_in(results, source_testset, previous_release, str(archive))
    finally:
        os.chdir(before)


def _rerun_in(
    out: Path,
    source_testset: Path | None,
    previous_release: Path | None,
    archive: str,
) -> list[tuple[str, bool]]:
    """The work of :func:`rerun_release`, in the folder the archive went to."""
    import hashlib
    import json

    from stecflow.analysis.analyses import analysis_specs, run_analysis
    from stecflow.core.io import read_tsv
    from stecflow.release.archive import released_outputs
    from stecflow.report import render_report
    from stecflow.scoring.specs import metric_directions

    for row in read_tsv(out / "MANIFEST.tsv"):
        data = (out / row["path"]).read_bytes()
        if hashlib.sha256(data).hexdigest() != row["sha256"]:
            raise StecflowError(
                f"{archive}: {row['path']} does not match its sha256 in MANIFEST.tsv:"
                " the archive was damaged or changed; get it again from where it"
                " was published (README.md, section Re-running)"
            )
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    previous = (config.get("report") or {}).get("previous_release")
    if previous and previous_release is None:
        raise StecflowError(
            f"this release compares its results with the previous release ({previous});"
            " give that archive with --previous, as README.md's section Re-running"
            " says"
        )
    studies = [str(s["id"]) for s in config.get("studies") or []]
    tasks = config["campaign"]["tasks"]
    statistics = config.get("statistics") or {}
    again = Path("rerun")
    analyses = [spec["id"] for spec in analysis_specs(config)]
    for spec in analysis_specs(config):
        sources = {spec.get("source")} | {
            m.split(":")[0] for m in spec.get("measures", []) if ":" in m
        }
        run_analysis(
            spec,
            out / "scores" / "items.tsv",
            out / "scores" / "analysed.tsv",
            again / "stats" / f"{spec['id']}.tsv",
            again / "stats" / f"{spec['id']}.json",
            alpha=statistics.get("alpha", 0.05),
            higher_is_better=metric_directions(config["scoring"], tasks),
            exclude_references_from_correlations=statistics.get(
                "exclude_references_from_correlations", True
            ),
            judgments={
                s: out / "judgments" / f"{s}.tsv"
                for s in sorted(x for x in sources if x)
                if s in studies
            },
            ss_type=statistics.get("ss_type", 3),
            digits=statistics.get("digits", 2),
            posthoc=statistics.get("posthoc"),
        )
    testsets = sorted((out / "data").glob("testset.*"))
    if not testsets and source_testset is not None:
        # prepared as the campaign's rule prepare_testset did
        from stecflow.campaign import prepare_testset, prepared_testset_name

        data_format = str((config.get("data") or {}).get("format") or "tuna")
        prepared = out / "data" / prepared_testset_name(data_format)
        prepared.parent.mkdir(parents=True, exist_ok=True)
        prepare_testset(source_testset, data_format, prepared)
        testsets = [prepared]
    if not testsets:
        raise StecflowError(
            f"{archive} holds no test set (release.include_testset is false): get"
            " it as README.md's section Re-running says and give it with"
            " --source-testset"
        )
    source = source_testset
    if source is None:
        found = sorted((out / "data" / "source").glob("*"))
        source = found[0] if found else None
    lock = (out / "environment" / "requirements.lock").read_text(encoding="utf-8")
    snakemake_version = next(
        (p.split("==")[1] for p in lock.splitlines() if p.startswith("snakemake==")),
        None,
    )
    summary = read_tsv(out / "validation" / "summary.tsv")
    render_report(
        config=config,
        validation_summary=out / "validation" / "summary.tsv",
        validation_records=[
            out / "validation" / r["team"] / f"{r['system']}.json" for r in summary
        ],
        systems=out / "scores" / "systems.tsv",
        testset=testsets[0],
        template=out / "rerun" / "templates" / "report" / "index.html.j2",
        out_html=again / "report" / "index.html",
        stats_records=[again / "stats" / f"{a}.json" for a in analyses],
        stats_tables=[again / "stats" / f"{a}.tsv" for a in analyses],
        source_testset=source,
        judgment_measures=[
            out / "judgments" / "measures" / f"{s}.tsv" for s in studies
        ],
        judgment_summaries=[
            out / "judgments" / "summary" / f"{s}.json" for s in studies
        ],
        judgment_quality=[out / "judgments" / "quality" / f"{s}.tsv" for s in studies],
        snakemake_version=snakemake_version,
        previous_release=previous_release,
        significance=out / "scores" / "significance.tsv",
        clusters=out / "scores" / "clusters.tsv",
        agreement=[
            p
            for s in studies
            if (p := out / "judgments" / "agreement" / f"{s}.json").is_file()
        ],
        power=[p for s in studies if (p := out / "power" / f"{s}.tsv").is_file()],
        item_scores=[
            p
            for r in summary
            if (
                p := out / "scores" / "items" / r["team"] / f"{r['system']}.tsv"
            ).is_file()
        ],
        outputs=released_outputs(
            [out / "validation" / r["team"] / f"{r['system']}.json" for r in summary],
            out / "submissions",
            testsets[0],
            tasks,
        ),
    )
    compared = [f"stats/{a}.{ext}" for a in analyses for ext in ("tsv", "json")]
    compared.append("report/index.html")
    return [
        (name, (again / name).read_bytes() == (out / name).read_bytes())
        for name in compared
    ]


def _cmd_rerun(args: argparse.Namespace) -> int:
    results = rerun_release(
        args.archive,
        args.out,
        source_testset=args.source_testset,
        previous_release=args.previous,
    )
    for name, same in results:
        print(f"{'identical' if same else 'DIFFERENT'}\t{name}")
    different = [name for name, same in results if not same]
    print(
        f"{len(results) - len(different)} of {len(results)} files identical"
        f" (rerun in {Path(args.out) / 'rerun'})"
    )
    if different:
        print(
            "stecflow rerun: the files marked DIFFERENT are not the archived ones:"
            " check that this environment is the release's (README.md, section"
            " Re-running: the Python of environment/python.txt, then"
            " pip install --no-deps -r environment/requirements.lock in a new venv)",
            file=sys.stderr,
        )
    return 1 if different else 0


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser (also used to render the help in the docs)."""
    parser = argparse.ArgumentParser(
        prog="stecflow",
        description=(
            "Tools for a referring expression generation shared task. The campaign"
            " itself runs with 'snakemake --cores N'; these commands let teams check"
            " their submissions and organisers prepare data."
        ),
    )
    parser.add_argument(
        "--version", action="version", version=f"stecflow {__version__}"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    validate = sub.add_parser(
        "validate",
        help="check a submission folder before sending it",
        description=(
            "Check a submission folder (system.yaml and outputs.xml, outputs.tsv"
            " for the situated dialogue task, or one of outputs.jsonl, outputs.txt"
            " and outputs.json for text generation) against the test set, print every"
            " problem found with file, line and field, and exit 0 if the submission"
            " is valid or 1 if it is not. The checks are the campaign workflow's"
            " own."
        ),
    )
    validate.add_argument(
        "submission", help="the submission folder, named <team>/<system>"
    )
    validate.add_argument(
        "--testset",
        help="the test set (XML file, corpus folder, folder of dialogue sessions,"
        " or JSON Lines file of the text task)",
    )
    validate.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="format of the test set (default: dialogue for a folder of"
        " stecflow-dialogue sessions, whose submissions hold outputs.tsv and are"
        " checked for the situated_dialogue task; text for a .jsonl file, checked"
        " for the text_generation task; tuna otherwise)",
    )
    validate.add_argument(
        "--config",
        help="a campaign config; its tasks, deadline, limits and test set are used"
        " (its paths count from the campaign folder: the folder holding config/, or"
        " the config's own folder), and SUBMISSION may be <team>/<system> in its"
        " submissions folder",
    )
    validate.add_argument(
        "--tasks",
        nargs="+",
        choices=task_names(),
        help="tasks the campaign runs (default: all)",
    )
    validate.add_argument(
        "--deadline", help="ISO 8601 deadline, e.g. 2026-06-01T23:59:59Z"
    )
    validate.add_argument(
        "--json",
        metavar="FILE",
        help="also write the record as JSON (and .md beside it)",
    )
    validate.set_defaults(func=_cmd_validate)

    score = sub.add_parser(
        "score",
        help="score system outputs against a data set with references",
        description=(
            "Score an outputs file (OUTPUTS/TRIAL XML, as submitted) against a data set"
            " with human references, e.g. the development split, with the campaign's"
            " metrics, and print a table overall and per subdomain and condition,"
            " with the campaign report's labels, units (BLEU 0-1, accuracies in %),"
            " decimals, bootstrap intervals and signatures. This is the code the"
            " campaign workflow runs on the test set. Outputs for only some items"
            " are scored on those items, with a warning. For the situated dialogue"
            " task, give the folder of dialogue sessions and the team's outputs.tsv:"
            " the pronoun decisions are scored with precision, recall and F of the"
            " 'use a demonstrative pronoun' class (seed 000, Table 4), and the"
            " confusion matrix (TP, FP, FN, TN) is printed below the table. For"
            " the text-generation task, give the JSON Lines test set and the"
            " team's outputs.jsonl, outputs.txt or GEM-style outputs.json; with"
            " --config, its data.subsets add a row per value of those meta"
            " fields."
        ),
    )
    score.add_argument(
        "data",
        help="data set with references (XML file, corpus folder, folder of"
        " stecflow-dialogue sessions, or JSON Lines file of the text task)",
    )
    score.add_argument(
        "outputs",
        help="the system's outputs.xml (outputs.tsv for situated dialogue;"
        " outputs.jsonl, .txt or GEM-style .json for text generation)",
    )
    score.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="format of the data set (default: dialogue for a folder of"
        " stecflow-dialogue sessions, text for a .jsonl file, tuna otherwise)",
    )
    score.add_argument(
        "--config", help="a campaign config whose scoring settings to use"
    )
    score.add_argument(
        "--metrics",
        nargs="+",
        metavar="METRIC",
        help="only these metrics (e.g. se bleu3, or decision_f)",
    )
    score.add_argument(
        "--resamples", type=int, help="bootstrap resamples for intervals (0: none)"
    )
    score.add_argument(
        "--exclude-reference",
        metavar="ID",
        help="leave this reference out (to score a human set against the others)",
    )
    score.add_argument(
        "--partial", action="store_true", help="score what can be read despite problems"
    )
    score.add_argument(
        "--tsv",
        metavar="FILE",
        help="write the scores as TSV, one row per metric and subset, as the"
        " report writes them (- : standard output, instead of the table)",
    )
    score.add_argument(
        "--json", metavar="FILE", help="write the scores as JSON (- : standard output)"
    )
    score.add_argument(
        "--latex",
        metavar="FILE",
        help="write the table as LaTeX (booktabs), as the report's downloads"
        " (- : standard output)",
    )
    score.add_argument(
        "--items-tsv",
        metavar="FILE",
        help="write per-item scores as TSV (on each metric's own scale)",
    )
    score.set_defaults(func=_cmd_score)

    baseline = sub.add_parser(
        "baseline",
        help="run a baseline system and write it as a submission",
        description=(
            "Run one of the organisers' baselines on a data set and write a"
            " submission folder (system.yaml and the outputs). The folder's parent"
            " names the team. For referring expression generation: Full Brevity,"
            " Greedy, Incremental Algorithm (outputs.xml). For the situated"
            " dialogue task (seed 000), on a folder of dialogue sessions given with"
            " --dialogue: 'recency' uses a demonstrative pronoun exactly when the"
            " target is the object mentioned last (the seed's baseline);"
            " 'logistic' learns a logistic regression over the seed's Table 3"
            " features and decides each instance with a model trained on the other"
            " sessions (cross-validation by session; needs scikit-learn, in the"
            " 'dialogue' extra). Both write outputs.tsv."
        ),
    )
    baseline.add_argument(
        "algorithm",
        choices=("full-brevity", "greedy", "incremental", *SITUATED_BASELINES),
        help="the baseline: full-brevity, greedy or incremental (REG tasks, Dale"
        " and Reiter's algorithms), recency or logistic (situated dialogue)",
    )
    baseline.add_argument(
        "data", nargs="?", help="the test set (XML file or corpus folder)"
    )
    baseline.add_argument(
        "out", nargs="?", help="submission folder to write, <team>/<system>"
    )
    baseline.add_argument(
        "--dialogue",
        metavar="DIR",
        help="folder of stecflow-dialogue sessions (for recency and logistic)",
    )
    baseline.add_argument(
        "--out",
        dest="out_option",
        metavar="FOLDER",
        help="submission folder to write, <team>/<system> (instead of OUT)",
    )
    baseline.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="format of the data set (default: dialogue for a folder of"
        " stecflow-dialogue sessions, text for a .jsonl file, tuna otherwise)",
    )
    baseline.add_argument(
        "--folds",
        type=int,
        default=10,
        help="logistic: number of cross-validation folds, sessions kept whole"
        " (default 10, as in the seed; at most one fold per session)",
    )
    baseline.add_argument(
        "--seed",
        type=int,
        default=2009,
        help="logistic: random seed of the assignment of sessions to folds"
        " (default 2009)",
    )
    baseline.add_argument("--train", help="training split for the preference order")
    baseline.add_argument(
        "--no-strings", action="store_true", help="attribute sets only (no realiser)"
    )
    baseline.add_argument(
        "--contact",
        default="organisers",
        help="contact in system.yaml (default organisers)",
    )
    baseline.add_argument(
        "--submitted",
        default="2026-01-01T00:00:00Z",
        help="timestamp for system.yaml (fixed, so outputs are reproducible;"
        " default 2026-01-01T00:00:00Z)",
    )
    baseline.set_defaults(func=_cmd_baseline)

    serve = sub.add_parser(
        "serve",
        help="run a human study's web experiment and collect responses",
        description=(
            "Serve a study built by the workflow (results/studies/<study>/web) and"
            " store every answer the moment it is given, in SQLite. Lists are handed"
            " out so that they fill evenly; sessions abandoned for --abandon-after"
            " seconds release their list. Participants open http://HOST:PORT/, or"
            " ?participant=ID to record who they are."
        ),
    )
    serve.add_argument(
        "study",
        help="study ID (results/studies/<ID>, or results/<campaign>/studies/<ID>)"
        " or study folder",
    )
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; 0.0.0.0 only behind a TLS"
        " proxy)",
    )
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument(
        "--db", help="SQLite file (default: responses.sqlite beside web/)"
    )
    serve.add_argument(
        "--abandon-after",
        type=float,
        default=1800.0,
        metavar="SECONDS",
        help="release the list of a session silent this long (default 1800)",
    )
    serve.add_argument(
        "--require-participant",
        action="store_true",
        help="start a session only with a participant ID in the link"
        " (?participant=, ?PROLIFIC_PID=, ?pid= or ?workerId=)",
    )
    serve.add_argument(
        "--sessions-per-address",
        type=int,
        default=20,
        metavar="N",
        help="let one network address start at most N sessions per"
        " --session-window (default 20; 0: no limit; raise it for a lab whose"
        " computers share one address)",
    )
    serve.add_argument(
        "--session-window",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="the time window of --sessions-per-address (default 600)",
    )
    serve.add_argument(
        "--behind-proxy",
        action="store_true",
        help="take addresses from the X-Forwarded-For header that a reverse proxy"
        " on this machine adds (only behind such a proxy)",
    )
    serve.add_argument(
        "--trusted-proxy",
        default="127.0.0.1",
        metavar="ADDRESS",
        help="with --behind-proxy, the proxy's address: X-Forwarded-For is"
        " believed on its connections only (default 127.0.0.1; * for any)",
    )
    serve.add_argument(
        "--threads",
        type=int,
        default=8,
        metavar="N",
        help="worker threads answering requests (default 8); idle connections"
        " take none",
    )
    serve.add_argument(
        "--read-timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="close a connection that sends nothing for this long (default 30)",
    )
    serve.add_argument(
        "--max-connections",
        type=int,
        default=256,
        metavar="N",
        help="serve at most N connections at once; the others are told to retry"
        " (default 256)",
    )
    serve.add_argument(
        "--connections-per-address",
        type=int,
        default=64,
        metavar="N",
        help="serve at most N of them from one network address; the others are"
        " told to retry (default 64; 0: no limit; raise it for a lab whose"
        " computers share one address)",
    )
    serve.add_argument(
        "--admin-token-file",
        metavar="FILE",
        help="turn on the organiser's pages (admin/progress) with the token in"
        " FILE's first line (or set STECFLOW_ADMIN_TOKEN; see docs/deployment.md)",
    )
    serve.add_argument(
        "--admin-token",
        metavar="TOKEN",
        help="the organiser's token itself (other users of the machine can see it"
        " in the process list; prefer --admin-token-file or STECFLOW_ADMIN_TOKEN)",
    )
    serve.add_argument(
        "--log",
        metavar="FILE",
        help="per-session event log, JSON Lines (default: <database"
        " stem>.events.jsonl beside the database)",
    )
    serve.add_argument("--no-log", action="store_true", help="write no event log")
    serve.add_argument(
        "--log-addresses",
        action="store_true",
        help="write client addresses into the event log (personal data)",
    )
    serve.add_argument(
        "--per-list",
        type=int,
        default=1,
        metavar="N",
        help="completed sessions wanted per list, for the progress page (default 1)",
    )
    serve.set_defaults(func=_cmd_serve)

    sessions = sub.add_parser(
        "sessions",
        help="the organiser's commands for a running study: return, backup, progress,"
        " withdraw, backups",
        description=(
            "return: mark a place the crowdsourcing platform returned or timed out"
            " (by session, platform session or participant ID), so that its list"
            " goes to the next participant. backup: copy the study's database"
            " consistently while the server runs. progress: sessions per list,"
            " durations, lists still needed. withdraw: erase every answer of a"
            " participant who withdraws (by ID or release pseudonym), keeping an"
            " audit line without personal data that the workflow reads, so that"
            " the next run leaves them out of judgments, statistics, report and"
            " release. backups: the backups made, and which hold withdrawn data."
            " Safe while `stecflow serve` runs."
        ),
    )
    actions = sessions.add_subparsers(dest="action", required=True)
    for name in ("return", "backup", "progress", "withdraw", "backups"):
        action = actions.add_parser(name)
        action.add_argument("study", help="study ID or study folder")
        action.add_argument(
            "--db", help="SQLite file (default: responses.sqlite beside web/)"
        )
        if name == "return":
            action.add_argument(
                "session", help="session, platform session or participant ID"
            )
        elif name == "backup":
            action.add_argument("--out", required=True, help="the copy to write")
        elif name == "withdraw":
            from stecflow.studies.server.cli import (
                WITHDRAW_WHO_HELP,
                add_withdraw_options,
            )

            action.add_argument(
                "session", metavar="participant", help=WITHDRAW_WHO_HELP
            )
            add_withdraw_options(action)
        elif name == "backups":
            pass
        else:
            action.add_argument(
                "--abandon-after",
                type=float,
                default=1800.0,
                metavar="SECONDS",
                help="a session silent this long counts as abandoned (default 1800)",
            )
            action.add_argument(
                "--per-list",
                type=int,
                default=1,
                metavar="N",
                help="completed sessions wanted per list (default 1)",
            )
            action.add_argument("--json", action="store_true", help="print JSON")
    sessions.set_defaults(func=_cmd_sessions)

    export = sub.add_parser(
        "export",
        help="export a study's collected responses as TSV",
        description=(
            "Write every stored trial of a study as TSV, one row per trial, in the"
            " format the judgments stage reads (columns in"
            " stecflow.studies.server's docs)."
        ),
    )
    export.add_argument(
        "study",
        help="study ID (results/studies/<ID>, or results/<campaign>/studies/<ID>)"
        " or study folder",
    )
    export.add_argument("--out", required=True, help="TSV file to write")
    export.add_argument(
        "--db", help="SQLite file (default: responses.sqlite beside web/)"
    )
    export.add_argument(
        "--abandon-after",
        type=float,
        default=1800.0,
        metavar="SECONDS",
        help="a session silent this long is exported as abandoned (default 1800)",
    )
    export.add_argument(
        "--no-practice", action="store_true", help="leave practice trials out"
    )
    export.set_defaults(func=_cmd_export)

    convert = sub.add_parser(
        "convert",
        help="convert a corpus to stecflow's XML test-set file",
        description=(
            "Read a corpus (a TUNA shared-task file, a TUNA 1.0 folder, or the b5-ref"
            " folder) and write it as one TUNA-style XML file."
        ),
    )
    convert.add_argument("source", help="corpus file or folder")
    convert.add_argument("output", help="XML file to write")
    convert.add_argument(
        "--format",
        choices=[f for f in FORMATS if f != DIALOGUE_FORMAT],
        default="tuna",
        help="the corpus's format (default tuna: a shared-task file)",
    )
    convert.set_defaults(func=_cmd_convert)

    power = sub.add_parser(
        "power",
        help="power of a study and the duration and pay of its sessions",
        description=(
            "Simulate a study many times (the participant simulator's rating model,"
            " effects from a pilot's judgments or studies.<id>.power.effects),"
            " run the study's tests (ANOVA on system, Kruskal-Wallis, Tukey pairs)"
            " and report the power per number of participants; estimate session"
            " duration (pilot session table or design) and pay."
        ),
    )
    power.add_argument("study", help="study ID in the config")
    power.add_argument(
        "--config",
        default="config/config.yaml",
        help="campaign config (default config/config.yaml)",
    )
    power.add_argument(
        "--pilot", help="pilot judgments (results/judgments/<study>.tsv)"
    )
    power.add_argument(
        "--sessions", help="pilot session table (duration_s), for duration and pay"
    )
    power.add_argument("--runs", type=int, help="simulations per size (default 200)")
    power.add_argument(
        "--participants", type=int, nargs="+", metavar="N", help="participant numbers"
    )
    power.add_argument("--seed", type=int, help="seed (default: the study's)")
    power.add_argument("--out", help="folder for <study>.tsv/.json/.svg")
    power.add_argument("--quiet", action="store_true", help="no progress line")
    power.set_defaults(func=_cmd_power)

    demo = sub.add_parser(
        "demo",
        help="regenerate the demo corpus and demo submissions",
        description=(
            "Regenerate the demo campaign's corpus (resources/demo) and submissions"
            " (baselines, human references, a broken and a late submission) from a"
            " seed. The same seed gives the same bytes."
        ),
    )
    demo.add_argument(
        "--resources",
        default="resources/demo",
        help="corpus folder (default resources/demo)",
    )
    demo.add_argument(
        "--submissions",
        default="submissions",
        help="submissions folder (default submissions)",
    )
    demo.add_argument(
        "--seed", type=int, default=2009, help="random seed (default 2009)"
    )
    demo.set_defaults(func=_cmd_demo)

    rerun = sub.add_parser(
        "rerun",
        help="re-run the statistics and the report from a release archive",
        description=(
            "Unpack a release archive (results/release/<campaign>-<version>.zip),"
            " run its statistical analyses and render its report again from the"
            " archived scores, judgments and config alone, and compare every"
            " statistics file and the report with the archived ones byte for"
            " byte. Exit status 0 when all are identical, 1 when one differs."
        ),
    )
    rerun.add_argument("archive", help="the release archive (.zip)")
    rerun.add_argument(
        "--out", required=True, help="folder to unpack into (the rerun goes to rerun/)"
    )
    rerun.add_argument(
        "--source-testset",
        default=None,
        help=(
            "the configured test set (file or folder, data.testset), when the"
            " archive does not hold it: prepared as the campaign prepared it"
        ),
    )
    rerun.add_argument(
        "--previous",
        default=None,
        help="the previous release's archive, when the config names one",
    )
    rerun.set_defaults(func=_cmd_rerun)

    resume = sub.add_parser(
        "resume",
        help="finish a campaign run that was killed (kill -9, power cut)",
        description=(
            "Finish a Snakemake run of the campaign that was killed before it"
            " could remove its lock, in one command: check that no Snakemake run"
            " or job is still working in the folder (Linux: from /proc), remove"
            " the stale lock (snakemake --unlock) and run again with"
            " --rerun-incomplete, so that jobs cut short run again from the start"
            " and nothing finished runs twice. Give the options of the run after"
            " the command, e.g. stecflow resume --cores 2 --configfile"
            " config/b5-ref.yaml."
        ),
    )
    resume.add_argument(
        "--directory",
        default=".",
        help="the campaign's folder (default: the current one)",
    )
    resume.add_argument(
        "snakemake_args",
        nargs=argparse.REMAINDER,
        help="options for snakemake (e.g. --cores 2 --configfile FILE)",
    )
    resume.set_defaults(func=_cmd_resume)
    return parser


def _snakemake_processes(folder: Path) -> list[tuple[int, str]] | None:
    """``(pid, command line)`` of the processes of a Snakemake run in *folder*:
    Snakemake itself or one of its jobs (``.snakemake/scripts``), working in
    *folder* or given it with ``--directory``. Read from ``/proc`` (Linux);
    None where there is none to read."""
    proc = Path("/proc")
    if not (proc / "self" / "cmdline").exists():
        return None
    mine = {os.getpid(), os.getppid()}
    target = os.path.realpath(folder)
    found = []
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) in mine:
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            cwd = os.path.realpath(os.readlink(entry / "cwd"))
        except OSError:  # gone, or another user's
            continue
        words = [a.decode("utf-8", "replace") for a in argv if a]
        line = " ".join(words)
        if "snakemake" not in line:
            continue
        given = [
            os.path.realpath(os.path.join(cwd, words[n + 1]))
            for n, word in enumerate(words[:-1])
            if word in ("--directory", "-d")
        ]
        if target in (given or [cwd]) or f"{target}/.snakemake/" in line:
            found.append((int(entry.name), line))
    return sorted(found)


def _cmd_resume(args: argparse.Namespace) -> int:
    import subprocess

    folder = Path(args.directory)
    options = list(args.snakemake_args)
    if options[:1] == ["--"]:
        options = options[1:]
    running = _snakemake_processes(folder)
    if running is None:
        raise StecflowError(
            "cannot see the running processes here (no /proc); make sure the old"
            " run is gone, then run snakemake --unlock and snakemake"
            " --rerun-incomplete as the README says"
        )
    if running:
        pid, line = running[0]
        raise StecflowError(
            f"a Snakemake run is still working in {folder} (process {pid}:"
            f" {line[:120]}); let it finish or stop it (and its jobs) first; its"
            " lock is not stale"
        )
    command = [sys.executable, "-m", "snakemake"]  # run in the folder, as the
    # README's commands are (its Snakefile, its config/, its .snakemake/)
    locks = folder / ".snakemake" / "locks"
    if locks.is_dir() and any(locks.iterdir()):
        print(f"stecflow resume: removing the stale lock of {folder}", file=sys.stderr)
        done = subprocess.run([*command, "--unlock", *options], cwd=folder, check=False)
        if done.returncode != 0:
            return done.returncode
    print(
        "stecflow resume: re-running what was cut short, then the rest",
        file=sys.stderr,
    )
    return subprocess.run(
        [*command, "--rerun-incomplete", *options], cwd=folder, check=False
    ).returncode


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if getattr(args, "command", None) == "resume":  # the rest is snakemake's
        args.snakemake_args = [*unknown, *args.snakemake_args]
    elif unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        return args.func(args)
    except StecflowError as exc:
        print(f"stecflow {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

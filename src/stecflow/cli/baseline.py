"""``stecflow baseline``: runs an organisers' baseline and writes it as a submission."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from stecflow.cli.common import (
    SITUATED_BASELINES,
    SITUATED_TASK,
    load_items,
    own_tasks,
)
from stecflow.core.errors import StecflowError
from stecflow.tasks.formats import chosen_format
from stecflow.tasks.formats import names as format_names

__all__ = ["register", "run"]


def _ablation_groups(args: argparse.Namespace) -> tuple[str, ...]:
    """The feature groups of ``--ablate``, checked, in the order given."""
    from stecflow.baselines.situated import kept_columns

    groups = tuple(dict.fromkeys(g.strip().upper() for g in args.ablate or ()))
    if groups and args.algorithm != "logistic":
        raise StecflowError(
            "--ablate leaves feature groups out of the logistic baseline; the"
            f" {args.algorithm} baseline has no features to leave out"
        )
    try:
        kept_columns(groups)
    except ValueError as exc:
        raise StecflowError(f"--ablate: {exc}") from None
    return groups


def _needs_sklearn() -> None:
    try:
        import sklearn  # noqa: F401
    except ImportError:
        raise StecflowError(
            "the logistic baseline needs scikit-learn, which is not installed;"
            " install it with: pip install 'stecflow[dialogue]'"
        ) from None


def _situated_ablations(args: argparse.Namespace, data: str, out: str | None) -> int:
    """Print and write seed 000's Table 4: baseline, all features, all but each
    feature group, under the same cross-validation."""
    from stecflow.baselines.situated_ablations import (
        ablation_rows,
        format_ablation_table,
        write_ablation_table,
    )

    if args.algorithm != "logistic":
        raise StecflowError(
            "--ablations compares the logistic baseline's feature groups; run it"
            " as: stecflow baseline logistic --dialogue DIR --ablations TABLE.tsv"
        )
    if out:
        raise StecflowError(
            "--ablations writes a table, not a submission: leave out OUT, or"
            " write one submission without a feature group with --ablate G OUT"
        )
    if args.ablate:
        raise StecflowError(
            "give --ablations (every group left out in turn) or --ablate G (one"
            " submission without G), not both"
        )
    _needs_sklearn()
    items = load_items(data, args.format)
    try:
        rows = ablation_rows(items, folds=args.folds, seed=args.seed)
    except ValueError as exc:
        raise StecflowError(str(exc), file=data) from None
    path = write_ablation_table(rows, args.ablations)
    learnt = rows[1].folds
    print(
        f"Seed 000 Table 4 on {len(items)} instances: the logistic baseline with"
        f" {learnt}-fold cross-validation grouped by session (seed {args.seed}),"
        " the same folds for every row"
    )
    print(format_ablation_table(rows))
    print(f"wrote {len(rows)} rows to {path}")
    return 0


def _situated_baseline(args: argparse.Namespace, data: str, out: str | None) -> int:
    """Write the recency or logistic baseline of the situated task (seed 000)."""
    from stecflow.baselines.situated import (
        logistic_outputs,
        recency_outputs,
        write_submission,
    )
    from stecflow.baselines.situated_ablations import ablation_description
    from stecflow.tasks.situated_dialogue import OUTPUTS_FILE

    data_format = chosen_format(data, args.format)
    if SITUATED_TASK not in own_tasks(data_format):
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
    if args.ablations:
        return _situated_ablations(args, data, out)
    if not out:
        raise StecflowError(
            "give the submission folder (OUT, or --out FOLDER), or --ablations"
            " TABLE.tsv for the table of feature groups left out"
        )
    groups = _ablation_groups(args)
    items = load_items(data, data_format)
    if args.algorithm == "recency":
        outputs = recency_outputs(items)
        description = (
            "Recency baseline of seed 000: a demonstrative pronoun iff the most"
            " recently mentioned object is the target (feature D1)."
        )
    else:
        _needs_sklearn()
        try:
            learnt = logistic_outputs(
                items, folds=args.folds, seed=args.seed, without=groups
            )
        except ValueError as exc:
            raise StecflowError(str(exc), file=data) from None
        outputs = learnt.outputs
        description = ablation_description(groups, learnt.folds, args.seed)
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


def run(args: argparse.Namespace) -> int:
    """Run ``stecflow baseline`` with the parsed *args*; return the exit status."""
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
    if data and args.algorithm in SITUATED_BASELINES:
        return _situated_baseline(args, data, out)
    if not data or not out:
        raise StecflowError(
            "give the data set (DATA, or --dialogue DIR) and the submission folder"
            " (OUT, or --out FOLDER)"
        )
    if args.ablate or args.ablations:
        raise StecflowError(
            "--ablate and --ablations are for the logistic baseline of the"
            " situated task (stecflow baseline logistic --dialogue DIR)"
        )
    if args.dialogue or SITUATED_TASK in own_tasks(chosen_format(data, args.format)):
        raise StecflowError(
            f"{args.algorithm} is a REG baseline; on a dialogue corpus use"
            f" {' or '.join(SITUATED_BASELINES)}"
        )
    args.data, args.out = data, out
    items = load_items(args.data, args.format)
    train = load_items(args.train, args.format) if args.train else None
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


def register(subparsers: Any) -> None:
    """Add the ``baseline`` subcommand to *subparsers*."""
    baseline = subparsers.add_parser(
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
            " 'dialogue' extra). Both write outputs.tsv. For the seed's Table 4,"
            " 'logistic --ablate G' leaves the features of group G out (D:"
            " dialogue history D1-D5, A: action history A1-A5, O: current"
            " operation O1-O2), and 'logistic --ablations TABLE.tsv' prints and"
            " writes the table of the baseline, all features and all but each"
            " group, every row with the same folds."
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
        choices=format_names(),
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
    baseline.add_argument(
        "--ablate",
        action="append",
        metavar="G",
        help="logistic: leave out the features of group G: D (dialogue history,"
        " D1-D5), A (action history, A1-A5) or O (current operation, O1-O2);"
        " repeat it to leave out more than one",
    )
    baseline.add_argument(
        "--ablations",
        metavar="TABLE",
        help="logistic: instead of a submission, print seed 000's Table 4 (the"
        " recency baseline, all features, and all but each group, with TP, FP,"
        " FN, TN, precision, recall and F; the same folds for every row) and"
        " write it as TSV to TABLE",
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
    baseline.set_defaults(func=run)

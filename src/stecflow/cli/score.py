"""``stecflow score``: scores an outputs file against a data set with references."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stecflow.cli.common import (
    MAX_RESAMPLES,
    SITUATED_TASK,
    load_config,
    load_items,
    own_tasks,
)
from stecflow.core.errors import StecflowError
from stecflow.tasks.formats import chosen_format
from stecflow.tasks.formats import names as format_names

if TYPE_CHECKING:
    from stecflow.data.model import Item

__all__ = ["register", "run"]


def _write(text: str, target: str) -> None:
    """Write *text* to the file *target*, or to standard output for ``-``."""
    if target == "-":
        sys.stdout.write(text)
        return
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    Path(target).write_text(text, encoding="utf-8")


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


def run(args: argparse.Namespace) -> int:
    """Run ``stecflow score`` with the parsed *args*; return the exit status."""
    from stecflow.core.io import write_tsv
    from stecflow.report.terminal import format_score_table
    from stecflow.scoring.coverage import check_coverage
    from stecflow.scoring.score import ITEM_COLUMNS, score_outputs
    from stecflow.submissions.outputs import read_outputs

    scoring, tasks, subsets = {}, None, []
    if args.config:
        config = load_config(args.config)
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
    data_format = chosen_format(args.data, args.format)
    situated = SITUATED_TASK in own_tasks(data_format)
    if not tasks:  # a dialogue corpus's or JSON Lines test set's own task
        tasks = list(own_tasks(data_format)) or tasks
    items = load_items(args.data, data_format)
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


def register(subparsers: Any) -> None:
    """Add the ``score`` subcommand to *subparsers*."""
    score = subparsers.add_parser(
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
        choices=format_names(),
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
    score.set_defaults(func=run)

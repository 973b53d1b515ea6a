"""``stecflow power``: the power of a study and the duration and pay of its sessions."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["register", "run"]


def run(args: argparse.Namespace) -> int:
    """Run ``stecflow power`` with the parsed *args*; return the exit status."""
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


def register(subparsers: Any) -> None:
    """Add the ``power`` subcommand to *subparsers*."""
    power = subparsers.add_parser(
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
    power.set_defaults(func=run)

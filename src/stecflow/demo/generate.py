"""Generate the demo campaign: a TUNA-shaped corpus, pictures and submissions.

No copy of the TUNA corpus may be shipped, so :func:`build_demo` makes a corpus of
the same shape from one seed, draws its entities (:mod:`stecflow.tasks.reg.pictures`),
and writes the demo submissions that exercise every stage of the campaign. This
module is the entry point (``python -m stecflow.demo.generate`` and
``stecflow demo``) and re-exports the parts' public names; the parts are

:mod:`~stecflow.demo.corpus`
    Splits and sizes (TUNA-REG's), the items, and their pictures.
:mod:`~stecflow.demo.domains`
    TUNA's vocabularies and the domains: 7 entities on a 5 × 3 grid, the target
    distinguishable by 1–4 attributes besides location.
:mod:`~stecflow.demo.references`
    The generative model of human descriptions: which attributes an author
    mentions (a noisy, often over-specifying Incremental Algorithm).
:mod:`~stecflow.demo.authors`
    The pool of 60 authors and their habits.
:mod:`~stecflow.demo.wording`
    The words an author puts them in (synonyms, word orders, annotated spans).
:mod:`~stecflow.demo.submissions`
    The organisers' baselines, the HUMAN reference sets, a late team and a broken
    team.
:mod:`~stecflow.demo.seeding`
    The seeded random generators all of the above draw from.

Determinism: every random choice comes from :class:`random.Random` instances seeded
from the campaign seed and a purpose string through SHA-256 (never ``hash()`` or the
clock), and every file is written in a fixed order, so the same seed gives the same
bytes. Regenerate with ``python -m stecflow.demo.generate`` (or ``stecflow demo``)
from the project root.
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from stecflow.baselines import systems as baselines
from stecflow.data.corpus import write_items
from stecflow.demo.corpus import SPLIT_SIZES, generate_corpus, item_ids, write_pictures
from stecflow.demo.domains import (
    FURNITURE_SCHEMA,
    PEOPLE_SCHEMA,
    generate_domain,
    minimal_distinguishing_size,
)
from stecflow.demo.seeding import DEFAULT_SEED
from stecflow.demo.submissions import (
    DEADLINE,
    BrokenProblem,
    demo_submissions,
    system_outputs,
    write_broken_submission,
)
from stecflow.submissions.files import METADATA_FILE, write_metadata
from stecflow.tasks.reg.outputs import write_outputs
from stecflow.tasks.reg.task import OUTPUTS_FILE

__all__ = [
    "DEADLINE",
    "DEFAULT_SEED",
    "FURNITURE_SCHEMA",
    "PEOPLE_SCHEMA",
    "SPLIT_SIZES",
    "BrokenProblem",
    "DemoBuild",
    "build_demo",
    "demo_submissions",
    "generate_corpus",
    "generate_domain",
    "item_ids",
    "main",
    "minimal_distinguishing_size",
    "write_broken_submission",
    "write_pictures",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class DemoBuild:
    """What :func:`build_demo` wrote."""

    files: tuple[Path, ...]
    broken_problems: tuple[BrokenProblem, ...]


def build_demo(
    resources_dir: str | Path, submissions_dir: str | Path, seed: int = DEFAULT_SEED
) -> DemoBuild:
    """Generate the demo corpus, its pictures and the demo submissions.

    Writes ``<resources_dir>/{train,dev,test}.xml``, ``<resources_dir>/images/*.svg``
    and ``<submissions_dir>/<team>/<system>/{outputs.xml,system.yaml}`` for the teams
    ``organisers``, ``human``, ``late-team`` and ``broken-team``. Other submissions
    in *submissions_dir* are left alone.

    Parameters
    ----------
    resources_dir
        Usually ``resources/demo``.
    submissions_dir
        Usually ``submissions``.
    seed
        The campaign seed; the same seed gives byte-identical files.

    Returns
    -------
    DemoBuild
        The files written (sorted) and the broken submission's problems.
    """
    resources_dir, submissions_dir = Path(resources_dir), Path(submissions_dir)
    corpus = generate_corpus(seed)
    files: list[Path] = []
    for split, items in corpus.items():
        path = resources_dir / f"{split}.xml"
        write_items(items, path)
        files.append(path)
    all_items = [item for items in corpus.values() for item in items]
    files.extend(write_pictures(all_items, resources_dir / "images"))
    for (team, system), (metadata, outputs) in sorted(
        demo_submissions(corpus, seed).items()
    ):
        directory = submissions_dir / team / system
        write_outputs(outputs, directory / OUTPUTS_FILE)
        write_metadata(metadata, directory / METADATA_FILE)
        files.extend([directory / OUTPUTS_FILE, directory / METADATA_FILE])
    broken_dir = submissions_dir / "broken-team" / "primary"
    fb = system_outputs(
        corpus["test"], lambda item: baselines.full_brevity(item.domain)
    )
    problems = write_broken_submission(corpus["test"], fb, broken_dir)
    files.extend([broken_dir / OUTPUTS_FILE, broken_dir / METADATA_FILE])
    logger.info("wrote %d demo files (seed %d)", len(files), seed)
    return DemoBuild(files=tuple(sorted(files)), broken_problems=tuple(problems))


def main(argv: Sequence[str] | None = None) -> int:
    """Command line:
    ``python -m stecflow.demo.generate [--resources DIR] [--submissions DIR]
    [--seed N]``."""
    parser = argparse.ArgumentParser(
        prog="python -m stecflow.demo.generate",
        description="Regenerate the demo corpus, pictures and submissions.",
    )
    parser.add_argument("--resources", default="resources/demo", type=Path)
    parser.add_argument("--submissions", default="submissions", type=Path)
    parser.add_argument("--seed", default=DEFAULT_SEED, type=int)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    build = build_demo(args.resources, args.submissions, args.seed)
    for problem in build.broken_problems:
        logger.info(
            "broken-team/primary/%s line %d (%s): %s",
            OUTPUTS_FILE,
            problem.line,
            problem.item_id,
            problem.problem,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

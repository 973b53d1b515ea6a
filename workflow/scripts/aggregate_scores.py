"""Adapter for rule `aggregate_scores` (workflow/rules/scoring.smk)."""

from stecflow.core.logs import job_log
from stecflow.scoring.systems import aggregate_scores


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`."""
    with job_log(smk.log[0]):
        aggregate_scores(list(smk.input.summaries), smk.output.systems)


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)

"""Adapter for rule `compare_systems` (workflow/rules/scoring.smk)."""

from stecflow.core.logs import job_log
from stecflow.scoring.significance import compare_systems


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`."""
    with job_log(smk.log[0]):
        compare_systems(
            smk.input.item_scores,
            smk.input.systems,
            smk.output.significance,
            smk.output.clusters,
            scoring=smk.params.scoring,
            tasks=smk.params.tasks,
        )


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)

"""Adapter for rule `collect_item_scores` (workflow/rules/statistics.smk)."""

from stecflow.analysis.collect import collect_item_scores
from stecflow.core.logs import job_log


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`."""
    with job_log(smk.log[0]):
        collect_item_scores(
            list(smk.input.summaries),
            list(smk.input.item_scores),
            smk.output.table,
            smk.output.systems,
            include_late=smk.params.include_late,
            validation_paths=list(smk.input.validation),
        )


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)

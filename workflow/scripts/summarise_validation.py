"""Adapter for rule `summarise_validation` (workflow/rules/validation.smk)."""

from stecflow.core.logs import job_log
from stecflow.submissions.summary import summarise_validation


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`."""
    with job_log(smk.log[0]):
        summarise_validation(
            list(smk.input.records),
            smk.params.discovery_problems,
            smk.output.summary,
            smk.output.records,
        )


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)

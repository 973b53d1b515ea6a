"""Adapter for rule `compute_agreement` (workflow/rules/judgments.smk)."""

from stecflow.core.logs import job_log


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`."""
    with job_log(smk.log[0]):
        from stecflow.judgments.agreement import write_agreement

        write_agreement(
            smk.input.judgments,
            smk.output.table,
            smk.output.settings,
            study=smk.params.spec,
        )


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)

"""Adapter for rule `design_study` (workflow/rules/studies.smk)."""

from stecflow.core.logs import job_log
from stecflow.studies.setup import design_study


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`."""
    with job_log(smk.log[0]):
        design_study(
            smk.params.spec,
            smk.input.testset,
            smk.input.practice[0] if smk.input.practice else None,
            smk.output.design,
            smk.output.balance,
            smk.output.settings,
            system_files=list(smk.input.system_files),
        )


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)

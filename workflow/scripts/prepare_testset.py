"""Adapter for rule `prepare_testset` (workflow/rules/validation.smk)."""

from stecflow.campaign import prepare_testset
from stecflow.core.logs import job_log


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`."""
    with job_log(smk.log[0]):
        prepare_testset(
            smk.input.testset,
            smk.params.data_format,
            smk.output.testset,
            compact_path=getattr(smk.output, "compact", None),
        )


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)

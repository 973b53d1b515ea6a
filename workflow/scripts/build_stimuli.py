"""Adapter for rule `build_stimuli` (workflow/rules/studies.smk)."""

from stecflow.core.logs import job_log
from stecflow.studies.setup import build_stimuli


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`."""
    with job_log(smk.log[0]):
        build_stimuli(
            smk.params.spec,
            smk.input.design,
            smk.input.testset,
            smk.input.practice[0] if smk.input.practice else None,
            smk.params.submission_dirs,
            smk.input.images[0] if smk.input.images else None,
            smk.output.web,
            smk.output.dmdx,
            tasks=smk.params.tasks,
        )


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)

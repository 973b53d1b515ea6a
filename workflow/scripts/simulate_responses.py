"""Adapter for rule `simulate_responses` (workflow/rules/judgments.smk)."""

from stecflow.core.logs import job_log


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`."""
    with job_log(smk.log[0]):
        from stecflow.studykinds.base import SimulationJob
        from stecflow.studykinds.registry import hook

        # the study's kind answers (stecflow.studykinds: its simulate hook)
        hook(smk.params.task, "simulate")(
            SimulationJob(
                spec=smk.params.spec,
                settings=smk.params.settings,
                seed=smk.params.seed,
                design=smk.input.design,
                key=smk.input.key,
                testset=smk.input.testset,
                practice=list(smk.input.practice),
                submission_dirs=smk.params.submission_dirs,
                tasks=smk.params.tasks,
                responses=smk.output.responses,
            )
        )


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)

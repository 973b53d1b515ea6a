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
        # their session table: times and questionnaire answers (any kind)
        if hasattr(smk.output, "sessions"):
            from stecflow.judgments.simulated_sessions import write_simulated_sessions

            questionnaire = list(getattr(smk.input, "questionnaire", []) or [])
            write_simulated_sessions(
                smk.output.responses,
                smk.output.sessions,
                study=smk.wildcards.study,
                seed=smk.params.seed,
                questionnaire_path=questionnaire[0] if questionnaire else None,
            )


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)

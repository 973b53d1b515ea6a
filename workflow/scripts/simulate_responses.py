"""Adapter for rule `simulate_responses` (workflow/rules/judgments.smk)."""

from stecflow.core.logs import job_log


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`."""
    with job_log(smk.log[0]):
        if smk.params.task == "situated_identification":
            from stecflow.judgments.situated_study import simulate_situated_study

            simulate_situated_study(
                smk.input.design,
                smk.input.testset,
                smk.output.responses,
                seed=smk.params.seed,
                settings=smk.params.settings,
            )
            return
        if smk.params.task in ("text_rating", "text_preference"):
            from stecflow.judgments.text_study import simulate_text_study
            from stecflow.studies.setup import study_outputs
            from stecflow.tasks.registry import read_testset

            items = read_testset(smk.input.testset)
            simulate_text_study(
                smk.input.design,
                smk.input.testset,
                study_outputs(
                    smk.params.spec, items, smk.params.submission_dirs, smk.params.tasks
                ),
                smk.output.responses,
                study=smk.params.spec,
                seed=smk.params.seed,
                settings=smk.params.settings,
            )
            return
        from stecflow.judgments.simulate import simulate_study

        simulate_study(
            stimuli_path=smk.input.key,
            items_paths=[smk.input.testset, *smk.input.practice],
            out_path=smk.output.responses,
            seed=smk.params.seed,
            settings=smk.params.settings,
        )


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)

"""Adapter for rule `merge_judgments` (workflow/rules/judgments.smk)."""

from stecflow.core.logs import job_log


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`."""
    with job_log(smk.log[0]):
        from stecflow.judgments.sessions import merge_sessions
        from stecflow.studykinds.base import MergeJob
        from stecflow.studykinds.registry import hook

        # session tables among the responses -> results/judgments/sessions/<study>.tsv
        responses = merge_sessions(
            list(smk.input.responses),
            smk.output.sessions,
            study=smk.wildcards.study,
            withdrawals=list(smk.input.withdrawals),
            key=smk.params.pseudonym_key,
        )
        # the study's kind merges (stecflow.studykinds: its merge hook)
        hook(smk.params.task, "merge")(
            MergeJob(
                spec=smk.params.spec,
                settings=smk.params.settings,
                design=smk.input.design,
                design_settings=smk.input.design_settings,
                key=smk.input.key,
                responses=responses,
                corrections=list(smk.input.corrections),
                withdrawals=list(smk.input.withdrawals),
                testset=smk.input.testset,
                practice=list(smk.input.practice),
                dmdx_items_dir=smk.params.dmdx_items_dir,
                pseudonym_key=getattr(smk.params, "pseudonym_key", None),
                judgments=smk.output.judgments,
                quality=smk.output.quality,
                measures=smk.output.measures,
                summary=smk.output.summary,
                exclusions=smk.output.exclusions,
                sessions=getattr(smk.output, "sessions", None),
            )
        )
        # the evaluators as a group and their time on task, into the summary
        if getattr(smk.output, "sessions", None):
            from stecflow.judgments.evaluators import add_evaluators

            questionnaire = list(getattr(smk.input, "questionnaire", []) or [])
            add_evaluators(
                smk.output.summary,
                smk.output.sessions,
                questionnaire_path=questionnaire[0] if questionnaire else None,
                exclusions_path=smk.output.exclusions,
                language=getattr(smk.params, "language", None),
                withhold_questionnaire=bool(
                    getattr(smk.params, "withhold_questionnaire", False)
                ),
                number_bin=int(getattr(smk.params, "number_bin", 10) or 10),
                exact=list(getattr(smk.params, "per_participant", []) or []),
            )


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)

"""Adapter for rule `merge_judgments` (workflow/rules/judgments.smk)."""

from stecflow.core.logs import job_log


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`."""
    with job_log(smk.log[0]):
        from stecflow.judgments.sessions import merge_sessions

        # session tables among the responses -> results/judgments/sessions/<study>.tsv
        responses = merge_sessions(
            list(smk.input.responses),
            smk.output.sessions,
            study=smk.wildcards.study,
            withdrawals=list(smk.input.withdrawals),
            key=smk.params.pseudonym_key,
        )
        if smk.params.task == "situated_identification":
            from stecflow.judgments.situated_study import merge_situated_study

            merge_situated_study(
                smk.input.design,
                smk.input.design_settings,
                responses,
                smk.input.corrections[0] if smk.input.corrections else None,
                smk.output.judgments,
                smk.output.quality,
                smk.output.measures,
                smk.output.summary,
                settings=smk.params.settings,
                pseudonym_key=getattr(smk.params, "pseudonym_key", None),
                exclusions=smk.params.spec.get("exclusions"),
                exclusions_path=smk.output.exclusions,
                sessions_path=getattr(smk.output, "sessions", None),
                withdrawals=list(smk.input.withdrawals),
            )
            return
        if smk.params.task in ("text_rating", "text_preference"):
            from stecflow.judgments.text_study import merge_text_study

            merge_text_study(
                smk.input.design,
                responses,
                list(smk.input.corrections),
                smk.output.judgments,
                smk.output.quality,
                smk.output.measures,
                smk.output.summary,
                study=smk.params.spec,
                settings=smk.params.settings,
                pseudonym_key=getattr(smk.params, "pseudonym_key", None),
                exclusions_path=smk.output.exclusions,
                sessions_path=getattr(smk.output, "sessions", None),
                withdrawals=list(smk.input.withdrawals),
            )
            return
        from stecflow.judgments.study import merge_study

        merge_study(
            design_path=smk.input.design,
            response_paths=responses,
            corrections_path=list(smk.input.corrections),
            testset_path=smk.input.testset,
            settings=smk.params.settings,
            out_judgments_tsv=smk.output.judgments,
            out_quality_tsv=smk.output.quality,
            out_summary_json=smk.output.summary,
            study=smk.wildcards.study,
            task=smk.params.task,
            variant=smk.params.variant,
            out_measures_tsv=smk.output.measures,
            dmdx_items_dir=smk.params.dmdx_items_dir,
            items_paths=list(smk.input.practice),
            exclusions=smk.params.spec.get("exclusions"),
            out_exclusions_tsv=smk.output.exclusions,
            withdrawals=list(smk.input.withdrawals),
            sessions=getattr(smk.output, "sessions", None),
            normalise=smk.params.spec.get("normalise"),
            pseudonym_key=getattr(smk.params, "pseudonym_key", None),
            key_path=smk.input.key,
        )


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)

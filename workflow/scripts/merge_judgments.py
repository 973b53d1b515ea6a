"""Adapter for rule `merge_judgments` (workflow/rules/judgments.smk)."""

from stecflow.core.logs import job_log
from stecflow.judgments.study import merge_study


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`."""
    with job_log(smk.log[0]):
        merge_study(
            design_path=smk.input.design,
            response_paths=list(smk.input.responses),
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
        )


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)

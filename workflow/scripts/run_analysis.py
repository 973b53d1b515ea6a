"""Adapter for rule `run_analysis` (workflow/rules/statistics.smk)."""

from stecflow.analysis.analyses import run_analysis
from stecflow.core.logs import job_log


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`."""
    with job_log(smk.log[0]):
        run_analysis(
            smk.params.spec,
            smk.input.item_scores,
            smk.input.systems,
            smk.output.table,
            smk.output.record,
            alpha=smk.params.alpha,
            higher_is_better=smk.params.higher_is_better,
            exclude_references_from_correlations=smk.params.exclude_references,
            judgments=smk.params.judgments,
            ss_type=getattr(smk.params, "ss_type", 3),
            digits=getattr(smk.params, "digits", 2),
            posthoc=getattr(smk.params, "posthoc", None),
        )


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)

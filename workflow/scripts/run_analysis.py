"""Adapter for the rules `run_analyses_<group>` (workflow/rules/statistics.smk)."""

import logging

from stecflow.analysis.run import prefetch_item_frames, run_analysis_or_note
from stecflow.core.logs import job_log


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`.

    Runs every analysis of the group, in order, each writing its own table and
    record; one that cannot be computed writes a row saying why
    (`run_analysis_or_note`) and does not stop the others or the workflow.
    """
    with job_log(smk.log[0]):
        specs = [smk.params.specs[analysis] for analysis in smk.params.analyses]
        try:  # the item scores of every analysis of the group, in one read
            prefetch_item_frames(smk.input.item_scores, specs)
        except Exception:  # each analysis reads them itself and says what is wrong
            logging.getLogger("stecflow.analysis").debug("prefetch failed", exc_info=1)
        for analysis, table, record in zip(
            smk.params.analyses, smk.output.tables, smk.output.records, strict=True
        ):
            run_analysis_or_note(
                smk.params.specs[analysis],
                smk.input.item_scores,
                smk.input.systems,
                table,
                record,
                alpha=smk.params.alpha,
                higher_is_better=smk.params.higher_is_better,
                exclude_references_from_correlations=smk.params.exclude_references,
                judgments=smk.params.judgments[analysis],
                ss_type=smk.params.ss_type,
                digits=smk.params.digits,
                posthoc=smk.params.posthoc,
            )


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)

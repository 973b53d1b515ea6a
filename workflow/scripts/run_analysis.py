"""Adapter for the rules `run_analyses_<group>` (workflow/rules/statistics.smk)."""

import logging

from stecflow.analysis.analyses import prefetch_item_frames, run_analysis
from stecflow.core.logs import job_log


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`.

    Runs every analysis of the group, in order, each writing its own table and
    record; one that fails does not stop the others, and the job fails at the end
    naming every analysis that failed.
    """
    with job_log(smk.log[0]):
        specs = [smk.params.specs[analysis] for analysis in smk.params.analyses]
        try:  # the item scores of every analysis of the group, in one read
            prefetch_item_frames(smk.input.item_scores, specs)
        except Exception:  # each analysis reads them itself and says what is wrong
            logging.getLogger("stecflow.analysis").debug("prefetch failed", exc_info=1)
        failed = []
        for analysis, table, record in zip(
            smk.params.analyses, smk.output.tables, smk.output.records, strict=True
        ):
            try:
                run_analysis(
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
            except Exception:
                logging.getLogger("stecflow.analysis").exception(
                    "analysis %s failed", analysis
                )
                failed.append(analysis)
        if failed:
            raise SystemExit(
                f"analyses failed (see the log above): {', '.join(failed)}"
            )


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)

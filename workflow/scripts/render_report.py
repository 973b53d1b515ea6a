"""Adapter for rule `render_report` (workflow/rules/report.smk)."""

from stecflow.core.logs import job_log
from stecflow.report import render_report


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`."""
    with job_log(smk.log[0]):
        render_report(
            config=smk.params.config,
            validation_summary=smk.input.summary,
            validation_records=[smk.input.records],
            systems=smk.input.systems,
            testset=smk.input.testset,
            template=smk.input.template,
            out_html=smk.output.html,
            stats_records=list(smk.input.stats),
            stats_tables=list(smk.input.stats_tables),
            source_testset=smk.input.source_testset,
            testset_items=smk.input.testset_items,
            judgment_measures=list(smk.input.judgment_measures),
            judgment_summaries=list(smk.input.judgment_summaries),
            judgment_quality=list(smk.input.judgment_quality),
            snakemake_version=smk.params.snakemake_version,
            previous_release=next(
                iter(getattr(smk.input, "previous_release", [])), None
            ),
            significance=getattr(smk.input, "significance", None),
            clusters=getattr(smk.input, "clusters", None),
            agreement=list(getattr(smk.input, "agreement", [])),
            power=list(getattr(smk.input, "power", [])),
            submissions=smk.input.submissions,
        )


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)

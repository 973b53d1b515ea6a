"""Adapter for rule `render_submissions` (workflow/rules/report.smk)."""

from stecflow.core.logs import job_log
from stecflow.release.archive import released_outputs
from stecflow.report import render_submissions


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`."""
    with job_log(smk.log[0]):
        render_submissions(
            config=smk.params.config,
            validation_summary=smk.input.summary,
            validation_records=[smk.input.records],
            systems=smk.input.systems,
            testset=smk.input.testset,
            testset_items=smk.input.testset_items,
            template=smk.input.template,
            item_scores=list(smk.input.item_scores),
            outputs=released_outputs(
                [smk.input.records],
                smk.params.submissions_root,
                smk.input.testset_items,
                smk.params.config["campaign"].get("tasks") or (),
            ),
            out_html=smk.output.html,
        )


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)

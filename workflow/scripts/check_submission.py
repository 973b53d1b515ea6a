"""Adapter for rule `check_submission` (workflow/rules/validation.smk)."""

from pathlib import Path

from stecflow.core.ids import split_submission_wildcard
from stecflow.core.logs import job_log
from stecflow.scoring.check import check_submission


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`."""
    team, system = split_submission_wildcard(smk.wildcards.submission)
    with job_log(smk.log[0]):
        check_submission(
            Path(smk.params.submissions_root, team, system),
            smk.input.testset,
            team=team,
            system=system,
            campaign_tasks=smk.params.tasks,
            deadline=smk.params.deadline,
            scoring=smk.params.scoring,
            record_path=smk.output.record,
            report_path=smk.output.report,
            items_path=smk.output.item_scores,
            summary_path=smk.output.summary,
            limits=smk.params.limits,
            properties=getattr(smk.params, "properties", None),
            subsets=smk.params.subsets,
        )


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)

"""Adapter for rule `validate_submission` (workflow/rules/validation.smk)."""

from stecflow.core.logs import job_log
from stecflow.submissions.validation import validate_to_files


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`."""
    with job_log(smk.log[0]):
        validate_to_files(
            smk.params.submission_dir,
            smk.input.testset,
            team=smk.params.team,
            system=smk.params.system,
            campaign_tasks=smk.params.tasks,
            deadline=smk.params.deadline,
            limits=smk.params.limits,
            properties=getattr(smk.params, "properties", None),
            json_path=smk.output.record,
            md_path=smk.output.report,
        )


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)

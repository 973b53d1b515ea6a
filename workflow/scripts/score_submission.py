"""Adapter for rule `score_submission` (workflow/rules/scoring.smk)."""

from stecflow.core.logs import job_log
from stecflow.scoring.score import score_submission


def main(smk) -> None:
    """Run one job; `smk` is the object Snakemake injects as `snakemake`."""
    with job_log(smk.log[0]):
        score_submission(
            validation_path=smk.input.validation,
            submission_dir=smk.params.submission_dir,
            testset_path=smk.input.testset,
            scoring=smk.params.scoring,
            items_path=smk.output.item_scores,
            summary_path=smk.output.summary,
            tasks=smk.params.tasks,
            subsets=smk.params.subsets,
        )


if __name__ == "__main__":
    main(snakemake)  # noqa: F821 (defined by Snakemake's script preamble)
